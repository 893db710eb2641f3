#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/model/run.sh: model-check the shared pool's lock and leases (lease.pml) with
# SPIN, in every configuration below; ctest runs it ("lease_model", make check).
#
# lease.pml is a SPIN (Promela) model of the protocol of Documentation/persistence.rst,
# "The lease protocol, model-checked": hosts with a heartbeat, a lease L and a grace
# G, Lamport's bakery over per-host records, one table entry E that hosts create,
# destroy and free under the lock and open (an open bit, then a read of E) outside
# it, a global clock, pauses of any length except between a lease check and its
# store (at most W), crashes, and the re-attach of a host whose lease lapsed.
# Properties: P1, only one host at a time can write the table (a late store of a host
# judged dead violates it); P2, E is never freed while a host has it mapped.
#
# Each configuration is generated (spin -a), compiled (gcc) and searched exhaustively
# (breadth-first, -DCOLLAPSE state compression, no bitstate) in a temporary
# directory.  "pass" configurations must report no error; "fail" ones are negative
# controls, variants of the protocol with one safeguard taken away, and must report
# the violation (a model that cannot fail proves nothing).  Breadth-first search
# makes their counterexamples the shortest ones; the step count printed is the
# trail's length, the steps of init starting the processes included (14 to 16 here).
#
# Output: one line per configuration, "ok - NAME: ..." or "not ok - NAME: ...", then
# "N passed, N failed, N skipped"; the exit status is non-zero when any failed.
#
# CXLT_MODEL_SET=hosts3 (make model-3hosts) checks three hosts instead.  p2-3hosts
# and neg-store-late-W3-3hosts are searched exhaustively (EXHAUSTIVE3 below: 9.1
# million states, about 80 s of CPU; the negative control's violation after 1.7
# million, its depth-first trail 1.5 million steps long).  p1-bakery-3hosts, whose
# state space exhaustive search does not fit in memory or time (more than 160 million
# states even with the reductions), gets bitstate (supertrace)
# search, depth-first, a 2^W-bit table (CXLT_MODEL_BITS, default 34: 2 GiB).  It can
# miss states; pan's "hash factor" (bits per stored state) is printed, and a
# configuration fails when it is under 100 (below that, the states a collision hid
# are no longer negligible, SPIN's manual says), or when the search was cut short.
# CXLT_MODEL_SECS=S gives each configuration a time budget instead (make check's
# lease_model_3hosts: 60 s, a 2^33-bit table) and a depth bound of 200 steps
# (CXLT_MODEL_DEPTH): every run of up to 200 steps is a candidate (the two-host
# counterexamples are 38-42 steps), not one path a million steps deep.  pan is
# interrupted after S seconds and reports what it searched; a "pass" configuration is
# then a partial search, and says so with its states, depth and hash factor; a
# negative control must still find its violation within the budget.
# SPIN is required (scripts/setup installs it; or apt-get install spin): without it
# the test fails.  CXLT_MODEL_KEEP=DIR keeps the outputs and trails in DIR;
# CXLT_MODEL_ONLY=NAME runs that configuration only.
set -euo pipefail

HERE=$(cd "$(dirname "$0")" && pwd)
MODEL=$HERE/lease.pml

# NAME  EXPECT  SPIN-DEFINES
CONFIGS2=(
	# P1 with the bakery: 2 hosts, checked stores, crashes, re-attach
	"p1-bakery-2hosts	pass	-DN=2 -DOPENERS=0"
	# P1 and P2: every host opens and closes E, the lock as P1 states it
	"p2-2hosts	pass	-DN=2 -DOPENERS=2 -DABSTRACT_LOCK"
	# negative controls
	"neg-store-late-W3	fail	-DN=2 -DOPENERS=0 -DW=3"
	"neg-no-lease-check	fail	-DN=2 -DOPENERS=0 -DNOCHECK_TABLE"
	"neg-stale-expiry	fail	-DN=2 -DOPENERS=0 -DSTALE_EXPIRY"
	"neg-ignore-expired-bits	fail	-DN=2 -DOPENERS=1 -DABSTRACT_LOCK -DIGNORE_EXPIRED_BITS"
)
# Three hosts, with lease.pml's sound reductions (WRITER_AGES, MAXCRASH=0, TABLE_ANY:
# a pass with them is a pass without them).  Names in EXHAUSTIVE3 are searched
# exhaustively (depth-first, -DCOLLAPSE, no bitstate) even with CXLT_MODEL_SECS; the
# others by bitstate as described above.
R3="-DWRITER_AGES -DMAXCRASH=0"
CONFIGS3=(
	# P1 with the bakery of three hosts; P2 with one opener and the lock as P1 states it
	"p1-bakery-3hosts	pass	-DN=3 -DOPENERS=0 $R3 -DTABLE_ANY"
	"p2-3hosts	pass	-DN=3 -DOPENERS=1 -DABSTRACT_LOCK $R3"
	# the bakery's store checked late: must be found
	"neg-store-late-W3-3hosts	fail	-DN=3 -DOPENERS=0 -DW=3 $R3 -DTABLE_ANY"
)
EXHAUSTIVE3=" p2-3hosts neg-store-late-W3-3hosts "
case ${CXLT_MODEL_SET:-hosts2} in
hosts2) CONFIGS=("${CONFIGS2[@]}") BITSTATE=0 ;;
hosts3) CONFIGS=("${CONFIGS3[@]}") BITSTATE=1 ;;
*) echo "run.sh: CXLT_MODEL_SET is hosts2 or hosts3" >&2; exit 2 ;;
esac
BITS=${CXLT_MODEL_BITS:-34}
SECS=${CXLT_MODEL_SECS:-}
[[ -z $SECS || $SECS =~ ^[1-9][0-9]*$ ]] || { echo "run.sh: CXLT_MODEL_SECS must be a number of seconds" >&2; exit 2; }

pass=0 fail=0 skip=0
if ! command -v spin >/dev/null 2>&1; then
	echo "not ok - lease model: spin is not installed (run scripts/setup, or apt-get install spin)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
if ! command -v gcc >/dev/null 2>&1; then
	echo "not ok - lease model: gcc is not installed (run scripts/setup)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi

WORK=$(mktemp -d "${TMPDIR:-/tmp}/cxlt-model.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
KEEP=${CXLT_MODEL_KEEP:-}
[ -z "$KEEP" ] || mkdir -p "$KEEP"

for cfg in "${CONFIGS[@]}"; do
	IFS=$'\t' read -r name expect defs <<<"$cfg"
	if [ -n "${CXLT_MODEL_ONLY:-}" ] && [ "$CXLT_MODEL_ONLY" != "$name" ]; then
		continue
	fi
	dir=$WORK/$name
	mkdir -p "$dir"
	cp "$MODEL" "$dir/lease.pml"
	exh=0
	[ "$BITSTATE" = 0 ] || [[ $EXHAUSTIVE3 != *" $name "* ]] || exh=1
	# shellcheck disable=SC2086
	if [ "$exh" = 1 ]; then
		cflags="-DSAFETY -DNOREDUCE -DCOLLAPSE -DMEMLIM=10240" panargs="-w27 -m10000000"
	elif [ "$BITSTATE" = 1 ] && [ -n "$SECS" ]; then
		cflags="-DSAFETY -DNOREDUCE -DBITSTATE -DMEMLIM=16384" panargs="-w$BITS -m${CXLT_MODEL_DEPTH:-200}"
	elif [ "$BITSTATE" = 1 ]; then
		cflags="-DSAFETY -DNOREDUCE -DBITSTATE -DMEMLIM=16384" panargs="-w$BITS -m3000000"
	else
		cflags="-DSAFETY -DNOREDUCE -DBFS -DCOLLAPSE -DMEMLIM=8192" panargs="-w24"
	fi
	# shellcheck disable=SC2086
	if ! (cd "$dir" && spin -a $defs lease.pml >spin.log 2>&1 &&
		gcc -O2 -w $cflags -o pan pan.c >gcc.log 2>&1); then
		echo "not ok - $name: spin -a or gcc failed"
		sed 's/^/    /' "$dir"/spin.log "$dir"/gcc.log 2>/dev/null | tail -n 20
		fail=$((fail + 1))
		continue
	fi
	t0=$(date +%s.%N)
	rc=0
	# shellcheck disable=SC2086
	if [ -n "$SECS" ] && [ "$exh" = 0 ]; then
		# SIGINT: pan stops, then prints its statistics as at the end of a search.
		(cd "$dir" && timeout -s INT "$SECS" ./pan $panargs >pan.out 2>&1) || rc=$?
	else
		(cd "$dir" && ./pan $panargs >pan.out 2>&1) || rc=$?
	fi
	secs=$(echo "$(date +%s.%N) - $t0" | bc)
	secs=$(printf '%.1f' "$secs")
	out=$dir/pan.out
	[ -z "$KEEP" ] || cp "$out" "$KEEP/$name.out"
	[ -z "$KEEP" ] || [ ! -f "$dir/lease.pml.trail" ] || cp "$dir/lease.pml.trail" "$KEEP/$name.trail"
	errors=$(sed -n 's/.*errors: \([0-9]*\).*/\1/p' "$out" | tail -n1)
	states=$(sed -n 's/^ *\([0-9.e+]*\) states, stored.*/\1/p' "$out" | tail -n1)
	states=$(printf '%.0f' "${states:-0}")
	if [ -z "$errors" ]; then
		echo "not ok - $name: no result from pan (exit $rc)"
		sed 's/^/    /' "$out" | tail -n 20
		fail=$((fail + 1))
	elif grep -qE 'MEMLIM|out of memory' "$out" ||
		{ { [ -z "$SECS" ] || [ "$exh" = 1 ]; } && grep -q 'max search depth too small' "$out"; }; then
		echo "not ok - $name: search incomplete ($states states, $secs s)"
		grep -E 'MEMLIM|out of memory|max search depth' "$out" | sed 's/^/    /'
		fail=$((fail + 1))
	elif [ "$BITSTATE" = 1 ] && [ "$exh" = 0 ] && [ "$expect" = pass ] && [ "$errors" = 0 ] &&
		! awk '/hash factor:/ { exit !($3 >= 100) }' "$out"; then
		echo "not ok - $name: bitstate coverage too low: $(grep -o 'hash factor: [0-9.e+]*' "$out") ($states states, $secs s)"
		fail=$((fail + 1))
	elif [ "$expect" = pass ]; then
		if [ "$errors" = 0 ] && grep -q '^Interrupted' "$out"; then
			depth=$(sed -n 's/.*depth reached \([0-9]*\).*/\1/p' "$out" | tail -n1)
			echo "ok - $name: no violation in $states states (partial: bitstate search of runs up to $depth steps, stopped after $secs s, $(grep -o 'hash factor: [0-9.e+]*' "$out" | head -n1))"
			pass=$((pass + 1))
		elif [ "$errors" = 0 ]; then
			hf=$(grep -o 'hash factor: [0-9.e+]*' "$out" | head -n1 || true)
			echo "ok - $name: $states states${hf:+, $hf}, $secs s"
			pass=$((pass + 1))
		else
			echo "not ok - $name: $errors error(s), $states states, $secs s"
			grep -E '^pan:' "$out" | head -n 3 | sed 's/^/    /'
			fail=$((fail + 1))
		fi
	else
		if [ "$errors" != 0 ] && [ -f "$dir/lease.pml.trail" ]; then
			steps=$(wc -l <"$dir/lease.pml.trail")
			why=P1
			grep -q '^pan:1: assertion violated.*mapped' "$out" && why=P2
			echo "ok - $name: $why violated as required, counterexample of $steps steps ($states states, $secs s)"
			pass=$((pass + 1))
		else
			echo "not ok - $name: negative control found no violation ($states states, $secs s)"
			fail=$((fail + 1))
		fi
	fi
done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
