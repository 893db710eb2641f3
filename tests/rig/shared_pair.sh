#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of rig_test.sh's two-host case (qemu/cluster, topology shared): run on
# both hosts in the shared folder, which holds shared_mem (static) and a word, nonce.
# Each host maps the shared device's region as device DAX (device_dax, never kmem), and
#   A: writes "NONCE from A" at offset 0 of the region, then creates a.done;
#   B: waits for a.done, reads offset 0, writes "NONCE from B" at 4096, creates b.done;
#   A: waits for b.done, reads offset 4096.
# Exit 0 when what each read is what the other wrote.
set -u
D=/sys/bus/cxl/devices
nonce=$(cat nonce) || exit 3
limit=$((120 * ${CXLT_TIMEOUT_SCALE:-1}))
fail() { echo "host $CXLT_HOST: $*"; exit 1; }

# The shared device's region: its endpoint decoder's memdev has serial 0x1000.
region=
for r in "$D"/region*; do
	t=$(cat "$r/target0" 2>/dev/null) || continue
	ep=$(basename "$(dirname "$(readlink -f "$D/$t")")")
	m=$(basename "$(readlink -f "$D/$ep/uport")")
	[ "$(cat "$D/$m/serial" 2>/dev/null)" = 0x1000 ] && region=$(basename "$r")
done
[ -n "$region" ] || fail "no region on the shared device (serial 0x1000)"
# dax_cxl makes the region's dax device; without kmem nothing onlines it, and
# daxctl binds it to device_dax.
modprobe -a dax_cxl device_dax || fail "cannot load dax_cxl, device_dax"
dax=
for _ in $(seq 100); do
	dax=$(find "$(readlink -f "$D/$region")" -name 'dax[0-9]*.[0-9]*' | head -n1)
	[ -n "$dax" ] && break
	sleep 0.2
done
[ -n "$dax" ] || fail "$region got no dax device"
dax=$(basename "$dax")
daxctl reconfigure-device --mode=devdax "$dax" >/dev/null 2>&1 ||
	fail "cannot switch $dax to devdax: $(daxctl reconfigure-device --mode=devdax "$dax" 2>&1 | tail -n1)"
for _ in $(seq 50); do [ -c "/dev/$dax" ] && break; sleep 0.1; done
[ -c "/dev/$dax" ] || fail "no /dev/$dax"
grep -q '^kmem ' /proc/modules && fail "kmem is loaded: the shared device could be onlined"
echo "host $CXLT_HOST of $CXLT_HOSTS: $region as /dev/$dax"

# wait_for FILE: until FILE shows up in the shared folder.
wait_for() {
	local end=$((SECONDS + limit))
	until [ -e "$1" ]; do
		[ $SECONDS -lt "$end" ] || fail "no $1 after ${limit}s"
		sleep 0.2
	done
}
case $CXLT_HOST in
0)
	./shared_mem "/dev/$dax" put 0 "$nonce from A" || fail "cannot write"
	touch a.done
	wait_for b.done
	got=$(./shared_mem "/dev/$dax" get 4096 64) || fail "cannot read"
	echo "read: $got"
	[ "$got" = "$nonce from B" ] || fail "read '$got', want '$nonce from B'"
	;;
1)
	wait_for a.done
	got=$(./shared_mem "/dev/$dax" get 0 64) || fail "cannot read"
	echo "read: $got"
	[ "$got" = "$nonce from A" ] || fail "read '$got', want '$nonce from A'"
	./shared_mem "/dev/$dax" put 4096 "$nonce from B" || fail "cannot write"
	touch b.done
	;;
*) fail "this test has two hosts" ;;
esac
