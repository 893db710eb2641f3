#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tests/pool/pair.sh, on both hosts of qemu/cluster (topology
# shared), in the shared folder.  Attaches the shared device's RAM region as a shared
# pool (A formats it first), tries the attach refusals, runs shared_test, then checks
# the pool's on-device structures.  TAP on stdout; exit 0 when everything passed.
D=/sys/bus/cxl/devices
T=/usr/lib/cxltier/selftests/pool/shared_test
id=$((CXLT_HOST + 1))
# shellcheck source=guest_lib.sh
. ./guest_lib.sh
# dax_of REGION: its dax device, once dax_cxl made it.
dax_of() {
	i=0
	while [ $i -lt 100 ]; do
		d=$(find "$(readlink -f "$D/$1")" -name 'dax[0-9]*.[0-9]*' | head -n1)
		[ -n "$d" ] && { basename "$d"; return; }
		sleep 0.2; i=$((i + 1))
	done
}

echo "TAP version 13"
modprobe -a dax_cxl device_dax
shared=$(cxlt-region-of 0x1000) own=$(cxlt-region-of 0x1001)
[ -n "$shared" ] || { echo "Bail out! no region on the shared device"; exit 1; }
sdax=$(dax_of "$shared")
owndax=$(dax_of "$own")

# Bound to device_dax (as an admin mapping it as a device would), the dax device
# holds the memory: the module refuses the attach; cxltierctl unbinds it first.
daxctl reconfigure-device --mode=devdax "$sdax" >/dev/null 2>&1
if [ ! -e "/sys/bus/dax/devices/$sdax/driver" ]; then
	nok "$sdax bound to device_dax"
elif echo "$shared host=$id" >$P/pool_attach 2>/dev/null; then
	nok "attach while device_dax holds the memory is refused"
else
	ok "attach while device_dax holds the memory is refused ($(cat $P/pools/$shared/error 2>/dev/null))"
fi
if echo "$shared" >$P/pool_attach 2>/dev/null; then
	nok "attach without a host id (host_id=0) is refused"
else
	ok "attach without a host id (host_id=0) is refused"
fi
if [ "$CXLT_HOST" = 0 ]; then
	out=$(cxltierctl pool attach "$shared" --host $id 2>&1) &&
		ok "A attaches $shared with cxltierctl (host $id): $(cat $P/pools/$shared/state)" ||
		nok "A attaches $shared: $out"
	echo "$shared" >$P/pool_format && ok "A formats $shared" || nok "A formats $shared"
	touch formatted
else
	wait_for formatted 300 || { echo "Bail out! A did not format the pool"; exit 1; }
	out=$(cxltierctl pool attach "$shared" --host $id 2>&1) &&
		ok "B attaches $shared with cxltierctl (host $id)" ||
		nok "B attaches $shared: $out"
	if echo "$shared host=$id" >$P/pool_attach 2>/dev/null; then
		nok "a second attach is refused"
	else
		ok "a second attach is refused"
	fi
fi
st=$(cat $P/pools/$shared/state)
[ "$st" = online ] && ok "$shared is online" || nok "$shared is $st: $(cat $P/pools/$shared/error)"
# The host's own region is not shared: attaching it while device_dax has it fails too.
[ -n "$owndax" ] && daxctl reconfigure-device --mode=devdax "$owndax" >/dev/null 2>&1
if [ -n "$owndax" ] && [ -e "/sys/bus/dax/devices/$owndax/driver" ]; then
	if echo "$own host=$id" >$P/pool_attach 2>/dev/null; then
		nok "attach of $own (claimed by $owndax) is refused"
	else
		ok "attach of $own (claimed by $owndax) is refused"
	fi
fi

# A region holding a foreign superblock: the attach is refused and nothing is
# written to it.  (Both copies of the superblock overwritten through device DAX.)
# Device DAX can be mapped only with CONFIG_FS_DAX (Debian's kernel; not the
# debug kernel's config, whose mmap fails "vma is not DAX capable"): else skipped.
if [ -n "$owndax" ] && [ -c "/dev/$owndax" ] && ! "$T" --poke "/dev/$owndax" 0 X 8192 2>/dev/null; then
	ok "attach of $own with a foreign superblock is refused # SKIP device DAX cannot be mapped on this kernel"
	echo "$owndax" >/sys/bus/dax/drivers/device_dax/unbind
elif [ -n "$owndax" ] && [ -c "/dev/$owndax" ]; then
	echo "$owndax" >/sys/bus/dax/drivers/device_dax/unbind
	if echo "$own host=$id" >$P/pool_attach 2>/dev/null; then
		nok "attach of $own with a foreign superblock is refused"
	else
		ok "attach of $own with a foreign superblock is refused ($(cat $P/pools/$own/state): $(cat $P/pools/$own/error))"
	fi
	echo "$own" >$P/pool_detach 2>/dev/null
	echo "$owndax" >/sys/bus/dax/drivers/device_dax/bind
	i=0
	while [ ! -c "/dev/$owndax" ] && [ $i -lt 50 ]; do sleep 0.1; i=$((i + 1)); done
	got=$("$T" --peek "/dev/$owndax" 0 8)$("$T" --peek "/dev/$owndax" 4096 8)
	[ "$got" = XXXXXXXXXXXXXXXX ] && ok "the refused region is left as it was" ||
		nok "the refused region changed: '$got'"
	echo "$owndax" >/sys/bus/dax/drivers/device_dax/unbind
fi
# A region registered as a tier is System RAM here: refused.
if out=$(cxltierctl tier add "$own" 2>&1); then
	if echo "$own host=$id" >$P/pool_attach 2>/dev/null; then
		nok "attach of $own, a tier, is refused"
	else
		ok "attach of $own, a tier, is refused ($(cat $P/pools/$own/error))"
	fi
	echo "$own" >$P/pool_detach 2>/dev/null
	cxltierctl tier remove "$own" >/dev/null 2>&1 || echo "# tier remove $own failed"
else
	nok "tier add $own: $out"
fi

# One grep: its output is the console, a terminal, so each line shows as it comes
# (a second grep behind a pipe held them all until the test ended).
"$T" "$shared" "${CXLT_POOL_ROUNDS:-40}" | grep -vE '^(TAP version|1\.\.)'
# shared_test's cases count in pair.sh's tally with the ones above.
touch "done.$CXLT_HOST"
wait_for "done.$((1 - CXLT_HOST))" 300
sleep 3	# a heartbeat or two: the last destroys' entries are freed
report=$(cat $P/pools/$shared/check)
case $report in
*"0 problems") ok "pool check of $shared is clean" ;;
*) nok "pool check of $shared: $(echo "$report" | tr '\n' ';')" ;;
esac
table=$(cat $P/pools/$shared/table)
[ -z "$table" ] && ok "every region destroyed: the table is empty" ||
	nok "regions left in the table: $(echo "$table" | tr '\n' ';')"
if out=$(cxltierctl pool check "$shared" 2>&1); then
	ok "cxltierctl pool check $shared exits 0"
else
	nok "cxltierctl pool check $shared: $out"
fi
cxltierctl pool stat "$shared" | sed 's/^/# /'
# A's lease lapses (its heartbeat held: pool_test_hold_heartbeat) with a region of
# its own in the pool: a destroy then frees nothing and must fail with ETIMEDOUT (it
# returned 0, and the region came back when A attached again); B judges A expired;
# released, A attaches again by itself, the region is still there on both hosts, and
# a destroy now works.
HOLD=/sys/module/cxltier/parameters/pool_test_hold_heartbeat
lease_s=$((($(cat $P/pools/$shared/lease_ms 2>/dev/null || echo 10000) + 999) / 1000))
if [ "$CXLT_HOST" = 0 ]; then
	if cxltierctl region create --persistent --pool "$shared" lapse-x 2M >/dev/null 2>&1; then
		echo 1 >$HOLD
		touch a.held
		sleep $((lease_s + 2))
		out=$(cxltierctl region destroy lapse-x 2>&1)
		rc=$?
		case $rc:$out in
		0:*) nok "A's destroy after its lease lapsed returned 0 (it frees nothing then)" ;;
		*[Tt]imed\ out*) ok "A's destroy after its lease lapsed fails with ETIMEDOUT: $out" ;;
		*) nok "A's destroy after its lease lapsed: exit $rc: $out" ;;
		esac
		wait_for b.saw_expired 120 || echo "# B did not see A expired"
		echo 0 >$HOLD
		i=0
		until grep -q "^$id live " $P/pools/$shared/hosts && [ "$(cat $P/pools/$shared/state)" = online ]; do
			sleep 0.2; i=$((i + 1))
			[ $i -lt $((300 * ${CXLT_TIMEOUT_SCALE:-1})) ] || break
		done
		grep -q "^$id live " $P/pools/$shared/hosts && ok "A attaches again by itself once its heartbeat runs ($((i / 5)) s)" ||
			nok "A's record after the heartbeat runs again: $(grep "^$id " $P/pools/$shared/hosts)"
		awk '$3 == "lapse-x" && $2 == "used" { f = 1 } END { exit !f }' $P/pools/$shared/table &&
			ok "lapse-x is still in A's table" || nok "lapse-x is gone from A's table after the failed destroy"
		touch a.reattached
		wait_for b.checked_lapse 120 || echo "# B did not check lapse-x"
		out=$(cxltierctl region destroy lapse-x 2>&1) && ok "A destroys lapse-x after it attached again" ||
			nok "A destroys lapse-x after it attached again: $out"
	else
		echo 0 >$HOLD
		nok "A creates lapse-x"
	fi
	touch a.lapse_done
else
	wait_for a.held 300 || echo "# A did not hold its heartbeat"
	i=0
	until grep -q '^1 expired' $P/pools/$shared/hosts; do
		sleep 0.2; i=$((i + 1))
		[ $i -lt $((300 * ${CXLT_TIMEOUT_SCALE:-1})) ] || break
	done
	grep -q '^1 expired' $P/pools/$shared/hosts && ok "B judges A expired while A's heartbeat is held" ||
		nok "B's view of A while A's heartbeat is held: $(grep '^1 ' $P/pools/$shared/hosts)"
	touch b.saw_expired
	wait_for a.reattached 300 || echo "# A did not attach again"
	awk '$3 == "lapse-x" && $2 == "used" { f = 1 } END { exit !f }' $P/pools/$shared/table &&
		ok "B sees lapse-x after A's failed destroy" || nok "lapse-x is not in B's table"
	touch b.checked_lapse
	wait_for a.lapse_done 300
fi
# A fences the shared blade; B's heartbeat sees it on the device and fences its own
# memdev of that serial: its pool is lost there too.
smem=
for m in "$D"/mem*; do
	[ "$(cat "$m/serial" 2>/dev/null)" = 0x1000 ] && smem=$(basename "$m")
done
if [ "$CXLT_HOST" = 0 ]; then
	wait_for b.checked 300
	out=$(cxltierctl blade fence --force "$smem" 2>&1) && ok "A fences $smem, the shared blade" ||
		nok "A fences $smem: $out"
	touch a.fenced
else
	touch b.checked
	wait_for a.fenced 300
	i=0
	until [ "$(cat $P/blades/$smem/state 2>/dev/null)" = fenced ]; do
		sleep 0.2; i=$((i + 1))
		[ $i -lt 150 ] || break
	done
	[ "$(cat $P/blades/$smem/state 2>/dev/null)" = fenced ] &&
		ok "B fenced its $smem too (the same device), $((i / 5)) s after A" ||
		nok "B's $smem is $(cat $P/blades/$smem/state 2>/dev/null) after A fenced it"
	st=$(cat $P/pools/$shared/state 2>/dev/null || echo gone)
	case $st in
	lost|gone) ok "B's pool is $st" ;;
	*) nok "B's pool is $st after the fence" ;;
	esac
	cxltierctl events 2>/dev/null | grep -q peer && ok "B's event log names the cause: peer" ||
		nok "no event with cause peer: $(cxltierctl events 2>&1 | tail -n 3 | tr '\n' ';')"
fi

# The kernel's checkers (the debug kernel's lockdep, KASAN, ...) found nothing.
reports=$(dmesg | grep -E 'WARNING:|BUG:|Oops|circular locking|KASAN:|UBSAN:|sleeping function called|inconsistent lock state' | head -n 5)
[ -z "$reports" ] && ok "no kernel warnings" || nok "kernel reports: $(echo "$reports" | tr '\n' ';')"
echo "1..$n"
[ $bad -eq 0 ]
