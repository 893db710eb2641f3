#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/crash/crash_test.sh [--trials N] [--seed N] [--dir DIR] [--mib N] [--keep] [-v]
# tests/crash/crash_test.sh --check PREV-LOG CUR-LOG
#
# The host-driven crash loop (make crash-test TRIALS=N): boot the persist topology
# TRIALS + 1 times on the same device files (fresh ones at the start), run
# cxlt-crash-worker in the guest and kill QEMU (SIGKILL) at a moment picked from the
# worker's lines, then check what the next boot finds.  Boot 0 formats the pools and
# creates the checkpoint (two copies, one per device); boots 1..N-1 restore, check,
# commit and churn until killed; the last boot only restores and checks.  Each kill
# comes (at random, from --seed) while a commit runs or just after (0-1.2 s after a
# "begin G" line; a commit takes about 0.9 s), right after a region create or destroy
# began, or at a random time.
#
# Checked after each kill, from the lines seen before it:
#   checkpoint  restored generation >= the last one seen committed (else lost),
#               <= the last one seen begun + 1 (else torn), its size and content those
#               of its generation (else torn); nothing restored when something was
#               committed: lost; every copy ok, except one stale at G-1 when the
#               kill may have cut the commit of the restored G (not seen committed)
#               between the copies' records (else torn: a copy bad, missing,
#               diverged or behind after a mere kill);
#   regions     a region seen created is there with its content (missing: lost; other
#               content: torn), one seen destroyed is gone (there: torn), the one
#               create or destroy in flight at the kill may have happened or not (a
#               create whose content was not finished shows seed 0, unchecked).
#
# Ends with "N trials, T torn, L lost" (T and L count trials).  Exit status: 0 when
# every trial ran and none was torn or lost; 1 on a torn or lost trial or a harness
# error (a boot that did not reach the worker, a worker error, a timeout: one line
# says which); 2 for a usage error.
#
#   --trials N  kills (default 30)       --seed N  of the kill moments (default: random)
#   --dir DIR   the device files and logs (default: a new folder in $TMPDIR, removed
#               at the end unless --keep or a trial failed)
#   --mib N     checkpoint size (default 3)   -v  show each boot's worker lines
#   --check     only compare two boots' console logs as the loop does, print what is
#               torn or lost; exit 1 when anything is
set -uo pipefail

ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$ROOT/qemu/run
PROG=crash-test
usage() { sed -n '3,40p' "$0" | sed 's/^# \{0,1\}//'; }
die_usage() { echo "$PROG: $* (see $0 --help)" >&2; exit 2; }

# --check PREV CUR: only compare two boots' logs (tests/rig checks the checker).
CHECK_ONLY=()
if [ "${1:-}" = --check ]; then
	[ $# -eq 3 ] || die_usage "--check needs PREV and CUR"
	CHECK_ONLY=("$2" "$3")
	set --
fi

trials=30 seed=$((RANDOM * 32768 + RANDOM)) dir='' mib=3 keep=0 verbose=0
while [ $# -gt 0 ]; do
	case $1 in
	--trials) trials=${2:-}; shift 2 || die_usage "--trials needs N" ;;
	--seed) seed=${2:-}; shift 2 || die_usage "--seed needs N" ;;
	--dir) dir=${2:-}; shift 2 || die_usage "--dir needs DIR" ;;
	--mib) mib=${2:-}; shift 2 || die_usage "--mib needs N" ;;
	--keep) keep=1; shift ;;
	-v|--verbose) verbose=1; shift ;;
	-h|--help) usage; exit 0 ;;
	*) die_usage "unknown argument: $1" ;;
	esac
done
if ! [[ $trials =~ ^[0-9]+$ ]] || [ "$trials" -lt 1 ]; then
	die_usage "--trials must be a positive number"
fi
[[ $seed =~ ^[0-9]+$ ]] || die_usage "--seed must be a number"
if ! [[ $mib =~ ^[0-9]+$ ]] || [ "$mib" -lt 1 ]; then
	die_usage "--mib must be a positive number"
fi
RANDOM=$seed

if [ ${#CHECK_ONLY[@]} -gt 0 ]; then
	:
elif [ -n "$dir" ]; then
	mkdir -p "$dir" || die_usage "cannot create $dir"
	dir=$(cd "$dir" && pwd)
	rm -f "$dir"/blade*.* "$dir"/boot*.log
else
	dir=$(mktemp -d "${TMPDIR:-/tmp}/cxlt-crash.XXXXXX")
fi
rpid=
cleanup() {
	# Only what this script started: the current qemu/run (and its QEMU).
	if [ -n "$rpid" ]; then
		[ -s "$dir/qemu.pid" ] && kill -KILL "$(cat "$dir/qemu.pid")" 2>/dev/null
		kill "$rpid" 2>/dev/null
	fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# Times measured here (persist topology, Debian's kernel, 3 MiB checkpoints): a boot
# to the worker's "ready" 10-16 s, a commit 0.3-1 s, a create or destroy 0.1-0.3 s.
# A boot has 300 s and a line waited for 120 s: more than 10x.
BOOT_TIMEOUT=300 LINE_TIMEOUT=120

torn=0 lost=0 errors=0 done_trials=0 rehung=0
[ ${#CHECK_ONLY[@]} -gt 0 ] || echo "$PROG: $trials trials, seed $seed, files in $dir"

# boot I ARGS...: start boot I of the loop in the background, its console in boot$I.log.
boot() {
	local i=$1
	shift
	: >"$dir/boot$i.log"
	rm -f "$dir/qemu.pid"
	CXLT_PERSIST_DIR=$dir "$RUN" --topology persist --timeout "$BOOT_TIMEOUT" \
		--pidfile "$dir/qemu.pid" -- cxlt-crash-worker --mib "$mib" "$@" \
		>"$dir/boot$i.log" 2>&1 &
	rpid=$!
}

# The worker's complete lines so far (the end mark " ." proves a line whole).
lines() { sed -n 's/^crashw \(.*\) \.$/\1/p' "$1"; }

# wait_for I REGEX: wait until boot I's worker printed a line matching REGEX; 1 when
# the run ended or LINE_TIMEOUT passed first, 2 on a worker error line.
wait_for() {
	local log=$dir/boot$1.log end=$((SECONDS + ${3:-$LINE_TIMEOUT}))
	while [ $SECONDS -lt $end ]; do
		lines "$log" | grep -qE "$2" && return 0
		lines "$log" | grep -q '^error ' && return 2
		kill -0 "$rpid" 2>/dev/null || { lines "$log" | grep -qE "$2"; return; }
		sleep 0.05
	done
	return 1
}

# finish: wait for the current run to end; its exit status in rc.
finish() {
	wait "$rpid"
	rc=$?
	rpid=
}

harness_error() {	# harness_error I MESSAGE
	errors=$((errors + 1))
	echo "$PROG: boot $1: harness error: $2"
	sed 's/^/    | /' "$dir/boot$1.log" | tail -n 15
}

# check PREV CUR: compare what the boot of log CUR found with what the lines of log
# PREV (the boot before, killed) said;
# prints "torn: ..." and "lost: ..." lines, nothing when all is well.
check() {
	awk '
	function take(op) { inflight = op }
	FNR == 1 { file++ }
	# The boot before the kill: what it found, then what it did.
	file == 1 && $1 == "restore" {
		R = 0
		if ($2 ~ /^gen=/) { R = substr($2, 5) + 0 }
	}
	file == 1 && $1 == "region" { want[$2] = substr($3, 6) + 0 }
	file == 1 && $1 == "ready" { next_op = substr($2, 6) }
	file == 1 && $1 == "begin" { B = $2 + 0 }
	file == 1 && $1 == "committed" { C = $2 + 0 }
	file == 1 && $1 == "intent" {
		inflight = $2 == "create" ? "create:" $3 ":" $4 : "destroy:" $3
		next_op = ""
	}
	file == 1 && $1 == "done" {
		if ($2 == "create") want[$3] = $4 + 0; else delete want[$3]
		inflight = ""
		next_op = substr($NF, 6)
	}
	# The boot after it.
	file == 2 && $1 == "restore" {
		restored = 1
		if ($2 == "none") { G = -1 }
		else {
			G = substr($2, 5) + 0
			content = substr($4, 9)
			copies = substr($5, 8)
			gens = $6 ~ /^gens=/ ? substr($6, 6) : ""
		}
	}
	file == 2 && $1 == "region" {
		obs[$2] = substr($3, 6) + 0
		body[$2] = substr($4, 6)
	}
	file == 2 && $1 == "table" { table = 1 }
	END {
		if (C < R) C = R
		if (B < C) B = C
		if (!restored) print "error: the boot after the kill printed no restore line"
		else if (G < 0) { if (C > 0) print "lost: nothing restored, generation " C " was committed" }
		else {
			if (G < C) print "lost: restored generation " G ", generation " C " was committed"
			if (G > B + 1) print "torn: restored generation " G ", the last begun was " B
			if (content != "ok") print "torn: restored generation " G " does not hold its content"
			# A kill between the copies records of generation G leaves one
			# copy at G-1: stale, and only then.
			n = split(copies, st, ","); split(gens, gn, ",")
			for (k = 1; k <= n; k++) {
				if (st[k] == "ok") continue
				if (st[k] == "stale" && G > C && gn[k] != "" && gn[k] + 1 == G) continue
				print "torn: copy " (k - 1) " is " st[k] " after the kill (copies=" copies \
					", gens=" (gens == "" ? "?" : gens) ", generation " G " restored)"
			}
		}
		if (!table) print "error: the boot after the kill listed no region table"
		if (inflight == "") inflight = next_op
		split(inflight, f, ":")
		for (n in obs) all[n] = 1
		for (n in want) all[n] = 1
		for (n in all) {
			if (body[n] == "bad") { print "torn: " n " holds content of no seed"; continue }
			if (n == f[2] && f[1] == "create") {
				if ((n in obs) && obs[n] != 0 && obs[n] != f[3])
					print "torn: " n " (create of seed " f[3] " in flight) holds seed " obs[n]
				continue
			}
			if (n == f[2] && f[1] == "destroy") {
				if ((n in obs) && obs[n] != want[n])
					print "torn: " n " (destroy in flight) holds seed " obs[n] ", not " want[n]
				continue
			}
			if ((n in want) && !(n in obs)) print "lost: " n " (seed " want[n] ") is missing"
			else if (!(n in want)) print "torn: " n " was destroyed (or never created) but is there, seed " obs[n]
			else if (obs[n] != want[n]) print "torn: " n " holds seed " obs[n] ", not " want[n]
		}
	}' <(lines "$1") <(lines "$2") || echo "error: the check failed"
}

# pick_kill I: wait for the moment chosen for boot I and kill QEMU; what it waited
# for in $what.  Not in a subshell: $RANDOM goes on from --seed.
pick_kill() {
	local i=$1 kind=$((RANDOM % 3)) start g n ms rc
	case $kind in
	0)	# while a commit runs
		start=$(lines "$dir/boot$i.log" | sed -n 's/^restore gen=\([0-9]*\) .*/\1/p')
		g=$((${start:-0} + 1 + RANDOM % 3)) ms=$((RANDOM % 1200))
		what="${ms} ms after begin $g"
		wait_for "$i" "^begin $g\$"
		rc=$?
		;;
	1)	# right after a create or destroy began
		n=$((1 + RANDOM % 4)) ms=$((RANDOM % 100))
		what="${ms} ms after the intent line $n"
		local end=$((SECONDS + LINE_TIMEOUT))
		rc=1
		while [ $SECONDS -lt $end ] && kill -0 "$rpid" 2>/dev/null; do
			[ "$(lines "$dir/boot$i.log" | grep -c '^intent ')" -ge "$n" ] && { rc=0; break; }
			lines "$dir/boot$i.log" | grep -q '^error ' && { rc=2; break; }
			sleep 0.05
		done
		;;
	2)	# any time
		ms=$((RANDOM % 4000))
		what="${ms} ms after ready"
		rc=0
		;;
	esac
	[ $rc -eq 0 ] || return $rc
	sleep "$((ms / 1000)).$(printf '%03d' $((ms % 1000)))"
	kill -KILL "$(cat "$dir/qemu.pid")" 2>/dev/null
	return 0
}

if [ ${#CHECK_ONLY[@]} -gt 0 ]; then
	out=$(check "${CHECK_ONLY[@]}")
	[ -n "$out" ] && echo "$out"
	[ -z "$out" ]
	exit
fi

t0=$SECONDS
for ((i = 0; i <= trials; i++)); do
	b0=$SECONDS
	args=(--seed $((i + 1)) --seconds 120)
	[ "$i" -eq 0 ] && args+=(--first)
	[ "$i" -eq "$trials" ] && args=(--verify-only --seed $((i + 1)))
	boot "$i" "${args[@]}"
	if [ "$i" -eq "$trials" ]; then
		finish
		[ "$rc" -eq 0 ] || harness_error "$i" "the last boot (restore and check only) exited $rc"
	else
		# Longer than qemu/run's boot limit (120 s), so that a boot that hangs ends
		# as a "boot hang" (multi-threaded TCG stops in early boot now and then,
		# see qemu/run) and is booted once more, as scripts/check does: the guest
		# never reached the device files, so the trial starts over from the same state.
		if ! wait_for "$i" '^ready ' $((LINE_TIMEOUT + 60)); then
			cleanup
			finish
			if [ "$rehung" -eq 0 ] && grep -q '^qemu/run: boot hang' "$dir/boot$i.log"; then
				rehung=1
				echo "$PROG: boot $i: $(grep '^qemu/run: boot hang' "$dir/boot$i.log" | cut -c1-100); booting it again"
				i=$((i - 1))
				continue
			fi
			harness_error "$i" "the worker did not get ready (exit $rc)"
			break
		fi
		ready=$((SECONDS - b0))
		if ! pick_kill "$i"; then
			cleanup
			finish
			harness_error "$i" "no kill: waited for $what (exit $rc)"
			break
		fi
		finish
		if [ "$rc" -ne 125 ] || lines "$dir/boot$i.log" | grep -q '^error '; then
			harness_error "$i" "the run ended by itself (exit $rc) instead of being killed"
			break
		fi
	fi
	[ $verbose -eq 1 ] && lines "$dir/boot$i.log" | sed 's/^/    /'
	if [ "$i" -gt 0 ]; then
		out=$(check "$dir/boot$((i - 1)).log" "$dir/boot$i.log")
		done_trials=$((done_trials + 1))
		grep -q '^torn: ' <<<"$out" && torn=$((torn + 1))
		grep -q '^lost: ' <<<"$out" && lost=$((lost + 1))
		if grep -q '^error: ' <<<"$out"; then
			harness_error "$i" "$(grep '^error: ' <<<"$out" | head -n1)"
		fi
		result=$(lines "$dir/boot$i.log" | grep -m1 '^restore ' | cut -d' ' -f2-)
		printf '%s: trial %d: killed %s; next boot: %s, %s regions%s\n' "$PROG" "$i" \
			"$kill_what" "$result" "$(lines "$dir/boot$i.log" | grep -c '^region ')" \
			"$([ -n "$out" ] && echo "; $(tr '\n' ';' <<<"$out")")"
	fi
	kill_what=${what:-}
	[ "$i" -lt "$trials" ] && echo "$PROG: boot $i: ready after ${ready}s, $((SECONDS - b0)) s in all" >&2
done

echo "$PROG: $((SECONDS - t0)) s for $((i > trials ? trials + 1 : i + 1)) boots"
[ $errors -gt 0 ] && echo "$PROG: $errors harness error(s); logs in $dir" && keep=1
[ $((torn + lost)) -gt 0 ] && echo "$PROG: logs in $dir" && keep=1
echo "$done_trials trials, $torn torn, $lost lost"
[ $keep -eq 1 ] || rm -rf "$dir"
[ $errors -eq 0 ] && [ $((torn + lost)) -eq 0 ] && [ "$done_trials" -eq "$trials" ]
