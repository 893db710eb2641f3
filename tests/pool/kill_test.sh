#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pool/kill_test.sh [--trials N] [--lease-ms MS]: the multi-host pool's kill loop.
# Each trial boots two hosts sharing a CXL device (topology shared; the device file
# is kept across trials, made fresh for the first), lets A create and destroy regions
# on the shared pool while B does the same, kills A's QEMU (SIGKILL) at a random
# moment, and has B check that it takes the pool lock after A's lease, that A's
# record is expired and cleared, that no region A committed is lost and none it
# destroyed is back, that no space leaked and that the pool check is clean
# (kill_guest.sh).  Default: 20 trials, a lease of 5000 ms.  Ends with
# "N trials, F failed" and "N passed, N failed, N skipped" (B's cases); exit 0 when every
# trial passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=loop_lib.sh
. "$ROOT/tests/pool/loop_lib.sh"
loop_args kill_test 20 "$@"
work=$(mktemp -d)
apid=
cleanup() {
	[ -n "$apid" ] && kill "$apid" 2>/dev/null
	rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
export CXLT_PERSIST_DIR=$work/persist
mkdir -p "$work/share" "$CXLT_PERSIST_DIR"
cp "$ROOT/tests/pool/kill_guest.sh" "$ROOT/tests/pool/guest_lib.sh" "$work/share/"
RUN=$ROOT/qemu/run
pass=0 fail=0 skip=0 tfail=0 takeovers=()

for ((t = 1; t <= trials; t++)); do
	share=$work/share
	rm -f "$share"/a.attached "$share"/a.started "$share"/a.killed "$work/a.pid"
	t0=$SECONDS
	# 25-40 s a trial: 400 s is a 10x margin.
	"$RUN" --topology shared --timeout 400 --share "$share" --pidfile "$work/a.pid" \
		--modparams "pool_lease_ms=$lease" --env CXLT_HOST=0 -- sh ./kill_guest.sh A "$t" \
		>"$work/A.log" 2>&1 </dev/null &
	apid=$!
	"$RUN" --topology shared --timeout 400 --share "$share" \
		--modparams "pool_lease_ms=$lease" --env CXLT_HOST=1 -- sh ./kill_guest.sh B "$t" \
		>"$work/B.log" 2>&1 </dev/null &
	bpid=$!
	# A is at work: kill its QEMU 0 to 3 s later (a create holds the pool lock most
	# of the time, so most kills find A holding it).
	for ((i = 0; i < 3000; i++)); do
		[ -e "$share/a.started" ] && break
		kill -0 "$apid" 2>/dev/null || break
		sleep 0.1
	done
	if [ -e "$share/a.started" ]; then
		sleep "$((RANDOM % 3)).$((RANDOM % 10))"
		kill -9 "$(cat "$work/a.pid")" 2>/dev/null
		touch "$share/a.killed"
	else
		echo "# trial $t: A never started (see its log below)"
		sed 's/^/# [A] /' "$work/A.log" | tail -n 20
		# A hung boot would hold the trial until its timeout: end it now.
		q=$(qemu_of "$work/a.pid") && kill -9 "$q"
		touch "$share/a.killed"
	fi
	wait "$apid" 2>/dev/null
	apid=
	wait "$bpid"
	brc=$?
	p=$(grep -cE '^ok [0-9]+ ' "$work/B.log")
	s=$(grep -cE '^ok [0-9]+ .*# SKIP' "$work/B.log")
	f=$(grep -cE '^not ok [0-9]+ ' "$work/B.log")
	[ "$brc" -ne 0 ] && [ "$f" -eq 0 ] && f=1
	pass=$((pass + p - s)) fail=$((fail + f)) skip=$((skip + s))
	grep "^# A expired" "$work/B.log"
	take=$(sed -n 's/^ok [0-9]* B creates after A.s death: \([0-9]*\) ms.*/\1/p' "$work/B.log")
	[ -n "$take" ] && takeovers+=("$take")
	if [ "$f" -eq 0 ]; then
		echo "trial $t: ok ($((SECONDS - t0)) s; B's first create after A's death: ${take:-?} ms; $(grep -c . "$share/a.log" 2>/dev/null) log lines)"
	else
		tfail=$((tfail + 1))
		echo "trial $t: FAILED ($((SECONDS - t0)) s; B exit $brc; $(why_failed "$work/B.log" "$work/A.log"))"
		sed 's/^/# [B] /' "$work/B.log" | tail -n 40
	fi
done
if [ ${#takeovers[@]} -gt 0 ]; then
	sorted=$(printf '%s\n' "${takeovers[@]}" | sort -n)
	echo "# B's first create after A's death: min $(head -n1 <<<"$sorted") ms, max $(tail -n1 <<<"$sorted") ms (lease $lease ms)"
fi
echo "$trials trials, $tfail failed"
echo "$pass passed, $fail failed, $skip skipped"
[ "$tfail" -eq 0 ]
