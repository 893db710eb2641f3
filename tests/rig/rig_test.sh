#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the QEMU rig (qemu/run), which every guest test stands on.
#
# Theory of operation: each case boots the guest (or refuses to) and checks the exit
# status and the one-line reason qemu/run promises: the command's own status, 124 on
# timeout, 125 with a reason when the guest panics or the module fails to load, 2 for
# a usage error; --share makes a host folder writable from the guest; pool boots
# with 4 CPUs (more than the host has: round-robin TCG); the debug kernel boots with
# its checkers when it is built (skipped otherwise).  Prints TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$ROOT/qemu/run
BUILD=${CXLT_BUILD:-$ROOT/build}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
skip() { n=$((n + 1)); echo "ok $n $1 # SKIP $2"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n $1"; [ -n "${2:-}" ] && echo "# $2"; }

# expect NAME STATUS REGEX -- qemu/run arguments...
expect() {
	local name=$1 want=$2 re=$3 err rc
	shift 4
	err=$("$RUN" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		not_ok "$name" "exit $rc, want $want; stderr: $(tail -n1 <<<"$err")"
	elif [ -n "$re" ] && ! grep -qE "$re" <<<"$err"; then
		not_ok "$name" "stderr does not match /$re/: $err"
	elif [ -n "$re" ] && [ "$(grep -c . <<<"$err")" -ne 1 ]; then
		not_ok "$name" "want one line on stderr, got: $err"
	else
		ok "$name"
	fi
}

expect "unknown topology is a usage error" 2 "unknown topology 'nosuch'" -- \
	--topology nosuch -- true
expect "missing command is a usage error" 2 "no COMMAND" -- --topology single
expect "bad timeout is a usage error" 2 "timeout" -- --timeout abc -- true
expect "unknown kernel is a usage error" 2 "unknown kernel 'nosuch'" -- \
	--kernel nosuch -- true
expect "command's exit status comes back" 7 "" -- --topology single --timeout 120 -- \
	sh -c 'exit 7'
expect "guest panic is reported" 125 "guest kernel panicked" -- --topology single \
	--timeout 120 -- sh -c 'echo c >/proc/sysrq-trigger'
expect "module load failure is reported" 125 "cxltier.ko failed to load" -- \
	--topology single --timeout 120 --modparams rescan_delay_ms=99999 -- true
# Whether the guest is still booting or already sleeping when time is up, it is 124.
expect "timeout gives 124" 124 "timeout" -- --topology single --timeout 10 -- sleep 600

dir=$(mktemp -d)
out=$("$RUN" --topology single --timeout 120 --share "$dir" -- \
	sh -c 'pwd; echo from-guest >/mnt/host/hello' 2>&1)
if [ "$(cat "$dir/hello" 2>/dev/null)" = from-guest ] && grep -q "^/mnt/host$" <<<"$out"; then
	ok "--share mounts the host folder at /mnt/host and runs there"
else
	not_ok "--share mounts the host folder at /mnt/host and runs there" "$out"
fi
rm -rf "$dir"

out=$("$RUN" --topology single --timeout 120 --no-module -- \
	sh -c 'test ! -e /sys/kernel/cxltier && ls /sys/bus/cxl/devices | grep -c ^region' 2>&1)
if [ "$(tail -n1 <<<"$out")" = 1 ]; then
	ok "--no-module boots with regions and without cxltier"
else
	not_ok "--no-module boots with regions and without cxltier" "$out"
fi

# Four CPUs on a host with fewer: qemu/run switches to round-robin TCG, which boots
# as fast as with two (multi-threaded TCG was seen to hang here on a slow machine).
out=$("$RUN" --topology pool --smp 4 --timeout 300 -- \
	sh -c 'grep -c ^processor /proc/cpuinfo' 2>&1)
if [ "$(tail -n1 <<<"$out")" = 4 ]; then
	ok "pool boots with --smp 4"
else
	not_ok "pool boots with --smp 4" "$(tail -n1 <<<"$out")"
fi

# The debug kernel: its own image, its checkers on, the module loaded.
. "$ROOT/scripts/kernel-env"
name="--kernel debug boots the checker kernel with kmemleak and cxltier"
if ! cxlt_kernel_env "$ROOT" debug; then
	skip "$name" "$KERR"
elif [ ! -f "$BUILD/guest-debug/initrd.cpio.gz" ]; then
	skip "$name" "no debug guest image (make debug-guest)"
else
	out=$("$RUN" --kernel debug --topology single --timeout 120 -- \
		sh -c 'uname -r; test -e /sys/kernel/debug/kmemleak && test -d /sys/kernel/cxltier &&
			echo checkers-on' 2>&1)
	if grep -qx "$KVER" <<<"$out" && grep -qx checkers-on <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "$(tail -n2 <<<"$out" | tr '\n' ' ')"
	fi
fi

echo "1..$n"
exit $failed
