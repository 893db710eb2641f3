#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/pool/pair.sh [--rounds N]: two hosts of a shared pool (qemu/cluster, topology
# shared, a fresh shared device): both attach it, A writes a region B reads by name
# and by handle, both create and destroy regions at once (N rounds each, default 40),
# then the pool's check must be clean.  The guest side is pair_guest.sh and
# selftests/pool/shared_test.c.  Ends with "N passed, N failed, N skipped"; exit 0 when
# all passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
rounds=40
[ "${1:-}" = --rounds ] && rounds=${2:-40}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/share" "$work/persist"
cp "$ROOT/tests/pool/pair_guest.sh" "$ROOT/tests/pool/guest_lib.sh" "$work/share/"
# --stop-on-failure: a host that dies (a panic) leaves the other waiting for it until
# the timeout; stopped at once instead, the run ends with the dead host's reason.
out=$(CXLT_PERSIST_DIR=$work/persist "$ROOT/qemu/cluster" --fresh --stop-on-failure --share "$work/share" \
	--timeout 900 --env "CXLT_POOL_ROUNDS=$rounds" -- sh ./pair_guest.sh 2>&1 | tee /dev/stderr)
rc=$?
pass=$(grep -E '^\[[AB]\] ok [0-9]+ ' <<<"$out" | grep -cv '# SKIP')
skip=$(grep -cE '^\[[AB]\] ok [0-9]+ .*# SKIP' <<<"$out")
fail=$(grep -cE '^\[[AB]\] not ok [0-9]+ ' <<<"$out")
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "# the cluster failed (exit $rc) without a failing case"
	fail=1
fi
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
