#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Module load and unload.
#
# Theory of operation: the guest booted with cxltier.ko loaded.  Unload it and check
# that its sysfs tree goes and cxltierctl says the module is missing; load it again
# and check the same blades and regions come back; a second load is refused; unload
# and load 20 times in a row leaves the kernel log clean (checked by the dmesg guard);
# auto_register=1 registers every committed RAM region, now and later, and the tiers
# keep the module loaded until they are removed; a load that fails late leaves no
# tier behind.
# KTAP via the kselftest helpers of linux-source-6.12 would need its ktap_helpers.sh
# in the guest; this script prints plain TAP lines instead.
set -u
KO=/lib/modules/$(uname -r)/extra/cxltier.ko
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
not_ok() { n=$((n + 1)); failed=1; echo "not ok $n $1${2:+ # $2}"; }
check() { local name=$1; shift; if "$@"; then ok "$name"; else not_ok "$name"; fi; }

[ -d /sys/kernel/cxltier ] || { echo "# cxltier.ko is not loaded"; exit 4; }
before=$(ls /sys/kernel/cxltier/blades | tr '\n' ' ')

check "unload succeeds" rmmod cxltier
check "sysfs tree is gone after unload" test ! -e /sys/kernel/cxltier
out=$(cxltierctl list 2>&1); rc=$?
check "cxltierctl list without the module fails" test $rc -ne 0
check "cxltierctl names the missing module" grep -q "not loaded" <<<"$out"
check "unload of an unloaded module fails" bash -c "! rmmod cxltier 2>/dev/null"

check "load succeeds" insmod "$KO"
after=$(ls /sys/kernel/cxltier/blades | tr '\n' ' ')
check "same blades after reload" test "$before" = "$after"
out=$(insmod "$KO" 2>&1); rc=$?
check "second load is refused" test $rc -ne 0
check "second load says the module exists" grep -qi "exists" <<<"$out"

# A reader holding a sysfs file open must not block unload, nor crash after it.
exec 3</sys/kernel/cxltier/abi_version
check "unload with an open sysfs file" rmmod cxltier
check "read from the stale file fails (ENODEV), no crash" bash -c "! cat <&3 >/dev/null 2>&1"
exec 3<&-
check "load after stale reader" insmod "$KO"

# Twenty on Debian's kernel; five on the debug kernel, whose checkers need one pass
# (a load and an unload take seconds there).
cycles=20
[ "${CXLT_KERNEL:-}" = debug ] && cycles=5
loops_ok=true
for i in $(seq $cycles); do
	rmmod cxltier && insmod "$KO" || { loops_ok=false; break; }
done
check "$cycles unload/load cycles" $loops_ok
check "module is loaded at the end" test -d /sys/kernel/cxltier

# auto_register=1: every committed RAM region becomes a tier at load, and so does one
# that appears later; tiers pin the module until removed.
D=/sys/bus/cxl/devices
committed=0
for r in $D/region*; do
	[ "$(cat "$r/commit")" = 1 ] && [ "$(cat "$r/mode")" = ram ] && committed=$((committed + 1))
done
check "unload before auto_register" rmmod cxltier
check "load with auto_register=1" insmod "$KO" auto_register=1
tiers=$(ls /sys/kernel/cxltier/tiers | wc -l)
check "every committed region ($committed) became a tier" test "$tiers" -eq "$committed" -a "$tiers" -gt 0
check "unload is refused while tiers exist" bash -c "! rmmod cxltier 2>/dev/null"
last=$(ls /sys/kernel/cxltier/tiers | sort -V | tail -n1)
# Its blades in interleave order: each target decoder's endpoint port names its memdev.
targets=$(for i in $(seq 0 $(($(cat $D/$last/interleave_ways) - 1))); do
	basename "$(readlink -f "$D/$(cat $D/$last/target$i)/../uport")"; done)
check "remove the last tier" sh -c "echo $last > /sys/kernel/cxltier/tier_remove"
# Tear the region down and build it again over the same blades.
root=$(basename "$(dirname "$(readlink -f $D/$last)")")
decs=$(for i in $(seq 0 $(($(cat $D/$last/interleave_ways) - 1))); do cat $D/$last/target$i; done)
echo "$last" >/sys/bus/cxl/drivers/cxl_region/unbind
echo 0 >$D/$last/commit
echo "$last" >$D/$root/delete_region
for d in $decs; do echo 0 >$D/$d/dpa_size; done
new=$(cxlt-mkregion $targets 2>&1 | tail -n1)
for i in $(seq 50); do [ -d "/sys/kernel/cxltier/tiers/$new" ] && break; sleep 0.2; done
check "a region created later ($new) becomes a tier by itself" test -d "/sys/kernel/cxltier/tiers/$new"
removed=true
for t in /sys/kernel/cxltier/tiers/*; do
	echo "$(basename "$t")" >/sys/kernel/cxltier/tier_remove || removed=false
done
check "remove every tier" $removed
check "unload after the tiers are gone" rmmod cxltier
check "load without parameters" insmod "$KO"
check "bad parameter value is refused" bash -c "! insmod $KO rescan_delay_ms=99999 2>/dev/null"
check "bad dev_mode is refused" bash -c "! insmod $KO dev_mode=0777 2>/dev/null"

# A load that fails late (after discovery, where auto_register used to add tiers)
# must leave no tier behind: no online memory, no claim in /proc/iomem.
check "unload before a failing load" rmmod cxltier
check "a load failing late is refused" \
	bash -c "! insmod $KO auto_register=1 fast_user_pct=101 2>/dev/null"
check "the failed load left no tier" bash -c "! grep -q cxltier /proc/iomem"
check "load after the failed load" insmod "$KO"

out=$(cxltierctl list 2>&1); rc=$?
check "cxltierctl list succeeds" test $rc -eq 0
all=true
for m in /sys/bus/cxl/devices/mem*; do
	grep -qw "$(basename "$m")" <<<"$out" || all=false
done
check "cxltierctl list names every blade" $all

echo "1..$n"
exit $failed
