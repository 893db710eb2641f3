#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/slurm/cluster_test.sh: the slurm group.  Three hosts (qemu/cluster --net, with
# the Slurm overlay of qemu/build-slurm): cxlt-a (topology shared, its own 256 MiB of
# CXL memory one tier), cxlt-b (shared2, two 256 MiB tiers) and cxlt-c (single, no
# tier); cxlt-a and cxlt-b attach the shared device as the cluster's shared pool.
# Each runs selftests/slurm/slurm_guest.sh: Debian's slurmctld and slurmd 22.05
# with cxltier's SPANK plugin and job_submit.lua, and cxlt-a submits jobs with
# --cxl-fast/--cxl-slow and checks where Slurm ran them and where their pages are.
# Ends with "N passed, N failed, N skipped"; exit 0 when all passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${CXLT_BUILD:-$ROOT/build}
OVERLAY=$BUILD/guest/slurm.cpio.gz
[ -f "$OVERLAY" ] || { echo "# $OVERLAY is missing (make slurm-guest)"; echo "0 passed, 1 failed, 0 skipped"; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/share" "$work/persist"
t0=$SECONDS
# One guest thread each: three guests share this machine's CPUs.
out=$(CXLT_PERSIST_DIR=$work/persist "$ROOT/qemu/cluster" --hosts 3 --net --stop-on-failure --fresh \
	--topology shared,shared2,single --tcg single \
	--overlay "$OVERLAY" --share "$work/share" --timeout 1800 \
	-- bash /usr/lib/cxltier/selftests/slurm/slurm_guest.sh 2>&1 | tee /dev/stderr)
rc=$?
pass=$(grep -E '^\[[ABC]\] ok [0-9]+ ' <<<"$out" | grep -cv '# SKIP')
skip=$(grep -cE '^\[[ABC]\] ok [0-9]+ .*# SKIP' <<<"$out")
fail=$(grep -cE '^\[[ABC]\] not ok [0-9]+ ' <<<"$out")
if [ "$rc" -ne 0 ] && [ "$fail" -eq 0 ]; then
	echo "# the cluster failed (exit $rc) without a failing case"
	fail=1
fi
echo "# slurm cluster: $((SECONDS - t0)) s"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ] && [ "$rc" -eq 0 ]
