#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pool/pause_test.sh [--trials N] [--lease-ms MS]: the multi-host pool's pause
# loop, beside the kill loop (kill_test.sh).  Each trial boots two hosts sharing a
# fresh CXL device (topology shared) with a short lease (pool_lease_ms).  Both create
# regions with a pattern of their name, check it and destroy two of three, in a loop;
# A also runs holders that keep a region mapped, read and rewrite it
# (pause_guest.sh, selftests/pool/pause_worker.c).  0.5 to 3.5 s into A's work the
# host stops A's QEMU: odd trials with SIGSTOP (the guest's clocks jump by the pause
# when it goes on: A's own clock tells it its lease lapsed), even trials as A has just
# begun a create and with QMP "stop" (the guest's clocks stop with it: only B's verdict
# on the device tells A), for a random time between lease + grace + 1 s and 3 leases
# (grace: the pool's, written by A to the shared folder), while B goes on creating and
# destroying; then continues it (SIGCONT, QMP "cont").  Once A's record is live again on both, each host checks: pool check
# clean, every region either logged as created there with its pattern, none logged
# as destroyed back, no space leaked; and A's holders saw their pattern or SIGBUS,
# never other data, SIGBUS if and only if A's kernel logged "lease lapsed".
# Default: 10 trials, a lease of 5000 ms.  Prints a line per trial, ends with
# "N trials, F failed" and "N passed, N failed, N skipped" (both hosts' cases); exit 0
# when every trial passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=loop_lib.sh
. "$ROOT/tests/pool/loop_lib.sh"
loop_args pause_test 10 "$@"
work=$(mktemp -d)
apid='' bpid=''
cleanup() {
	local q f
	# A stopped QEMU would keep a SIGTERM pending: continue it, then end it.
	for f in "$work/a.pid" "$work/b.pid"; do
		q=$(qemu_of "$f") || continue
		kill -CONT "$q" 2>/dev/null
		kill "$q" 2>/dev/null
	done
	for q in $apid $bpid; do kill "$q" 2>/dev/null; done
	for q in $apid $bpid; do wait "$q" 2>/dev/null; done
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export CXLT_PERSIST_DIR=$work/persist
share=$work/share
mkdir -p "$share" "$CXLT_PERSIST_DIR"
RUN=${CXLT_QEMU_RUN:-$ROOT/qemu/run}	# a stand-in for tests/rig
# Even trials stop A this many ms after its worker logged "calling NAME", just before
# its create call, which takes 0.8-1.5 s here (the "ms in the create call" of A's
# summary), most of it zeroing the new space under the pool lock.
CREATE_MS_MIN=50 CREATE_MS_MAX=600
ms() { echo $(($(date +%s%N) / 1000000)); }
# nap SECONDS: sleep, and let INT or TERM end it at once (bash runs a trap only once a
# foreground command returns; wait returns when the trap comes).
nap() { sleep "$1" & wait $!; }
secs() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }	# ms -> s, one decimal
pass=0 fail=0 skip=0 tfail=0 pauses=() times=()
# wait_pair: both hosts' exits into $arc and $brc, and $ended.  A host that could not
# run its command (qemu/run's 125: QEMU died, the guest failed to set up) or timed out
# (124) ends the other, as qemu/cluster does: the other would wait for it in vain
# until its own timeout (735 s instead of 70 when QEMU aborted in B).
wait_pair() {
	local first s o other name=A
	ended=
	wait -n -p first "$apid" "$bpid"
	s=$?
	other=$bpid
	[ "$first" = "$apid" ] || { other=$apid name=B; }
	if [ "$s" -eq 124 ] || [ "$s" -eq 125 ]; then
		ended=" ($name ended with $s: the other was stopped)"
		kill "$other" 2>/dev/null	# qemu/run ends its QEMU on SIGTERM
	fi
	wait "$other"
	o=$?
	if [ $name = A ]; then arc=$s brc=$o; else brc=$s arc=$o; fi
}

for ((t = 1; t <= trials; t++)); do
	rm -rf "$share" "$CXLT_PERSIST_DIR/shared0.mem" "$work/a.pid" "$work/b.pid"
	mkdir -p "$share"
	cp "$ROOT/tests/pool/pause_guest.sh" "$ROOT/tests/pool/guest_lib.sh" "$share/"
	t0=$SECONDS
	# 40-90 s a trial: 900 s is a 10x margin.
	"$RUN" --topology shared --timeout 900 --share "$share" --pidfile "$work/a.pid" \
		--qmp "$work/a.qmp" --modparams "pool_lease_ms=$lease" --env CXLT_HOST=0 -- sh ./pause_guest.sh A "$t" \
		>"$work/A.log" 2>&1 </dev/null &
	apid=$!
	"$RUN" --topology shared --timeout 900 --share "$share" --pidfile "$work/b.pid" \
		--modparams "pool_lease_ms=$lease" --env CXLT_HOST=1 -- sh ./pause_guest.sh B "$t" \
		>"$work/B.log" 2>&1 </dev/null &
	bpid=$!
	for ((i = 0; i < 3000; i++)); do
		[ -e "$share/a.started" ] && break
		kill -0 "$apid" 2>/dev/null || break
		sleep 0.1
	done
	pause=0 how=
	if [ -e "$share/a.started" ]; then
		read -r glease grace 2>/dev/null <"$share/lease" || glease=
		[[ ${glease:-} =~ ^[0-9]+$ && ${grace:-} =~ ^[0-9]+$ ]] || { glease=$lease grace=$((lease / 2)); }
		lo=$((glease + grace + 1000)) hi=$((3 * glease))
		[ $hi -gt $lo ] || hi=$((lo + 2000))
		want=$((lo + (RANDOM * 32768 + RANDOM) % (hi - lo + 1)))
		delay=$((500 + RANDOM % 3001))
		nap "$(secs $delay)"
		# Even trials: as A begins a create (it zeroes its space holding the pool
		# lock, the window in which a host that comes back finds the lock gone).
		if [ $((t % 2)) -eq 0 ]; then
			for ((i = 0; i < 3000; i++)); do
				[[ $(tail -n1 "$share/a.log" 2>/dev/null) == calling* ]] && break
				sleep 0.01
			done
			nap "0.$(printf '%03d' $((CREATE_MS_MIN + RANDOM % (CREATE_MS_MAX - CREATE_MS_MIN + 1))))"
		fi
		if q=$(qemu_of "$work/a.pid"); then
			s0=$(ms)
			if [ $((t % 2)) -eq 0 ]; then
				how_stop="QMP stop"
				"$ROOT/qemu/qmp" --socket "$work/a.qmp" stop >/dev/null ||
					echo "# trial $t: QMP stop failed"
			else
				how_stop=SIGSTOP
				kill -STOP "$q"
			fi
			touch "$share/a.stopped"
			at=$(tail -n1 "$share/a.log" 2>/dev/null)
			nap "$((want / 1000)).$(printf '%03d' $((want % 1000)))"
			if [ $((t % 2)) -eq 0 ]; then
				"$ROOT/qemu/qmp" --socket "$work/a.qmp" cont >/dev/null ||
					echo "# trial $t: QMP cont failed"
			else
				kill -CONT "$q"
			fi
			pause=$(($(ms) - s0))
			touch "$share/a.resumed"
			how="A stopped ($how_stop) $(secs $delay) s into its work$([ $((t % 2)) -eq 0 ] && echo ", as it began a create"), ${at:+at \"$at\", }for $(secs $pause) s (asked $(secs $want) s; lease $glease + grace $grace ms)"
			pauses+=("$pause")
		else
			how="A's QEMU was gone before the pause"
			touch "$share/a.stopped" "$share/a.resumed"
		fi
	else
		how="A never started"
		echo "# trial $t: A never started (see its log below)"
		# A hung boot would hold the trial until its timeout: end it now, and B,
		# which would wait for A until its own (the trial has failed already).
		q=$(qemu_of "$work/a.pid") && kill -9 "$q"
		q=$(qemu_of "$work/b.pid") && kill -9 "$q"
		touch "$share/a.stopped" "$share/a.resumed"
	fi
	wait_pair
	apid='' bpid=''
	p=0 s=0 f=0
	for r in A B; do
		p=$((p + $(grep -cE '^ok [0-9]+ ' "$work/$r.log")))
		s=$((s + $(grep -cE '^ok [0-9]+ .*# SKIP' "$work/$r.log")))
		f=$((f + $(grep -cE '^not ok [0-9]+ ' "$work/$r.log")))
	done
	{ [ "$arc" -ne 0 ] || [ "$brc" -ne 0 ]; } && [ "$f" -eq 0 ] && f=1
	[ "$pause" -eq 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p - s)) fail=$((fail + f)) skip=$((skip + s))
	times+=("$((SECONDS - t0))")
	lapse=$(grep -o "[0-9]* 'lease lapsed' lines; [0-9]* SIGBUS" "$work/A.log" | head -n1)
	if [ "$f" -eq 0 ]; then
		echo "trial $t: ok ($((SECONDS - t0)) s; $how; ${lapse:-?})"
	else
		tfail=$((tfail + 1))
		echo "trial $t: FAILED ($((SECONDS - t0)) s; $how; ${lapse:-?}; A exit $arc, B exit $brc$ended; $(why_failed "$work/A.log" "$work/B.log"))"
		for r in A B; do
			grep -E '^not ok |^Bail out|^# |qemu/run' "$work/$r.log" | head -n 60 | sed "s/^/# [$r] /"
		done
	fi
done
if [ ${#pauses[@]} -gt 0 ]; then
	sorted=$(printf '%s\n' "${pauses[@]}" | sort -n)
	echo "# pauses: min $(head -n1 <<<"$sorted") ms, max $(tail -n1 <<<"$sorted") ms; trials took $(printf '%s s ' "${times[@]}")"
fi
echo "$trials trials, $tfail failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$tfail" -eq 0 ]
