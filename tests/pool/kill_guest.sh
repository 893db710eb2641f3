#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tests/pool/kill_test.sh: kill_guest.sh A|B TRIAL, in the shared
# folder, which holds a.log (A's committed creates and destroys, across trials).
#
#   A: attaches the shared pool (formats it on the first trial), says a.started, then
#      creates and destroys regions until its QEMU is killed; each create or destroy
#      that returned is logged ("created NAME", "destroyed NAME"; a destroy's intent
#      first, "destroying NAME").
#   B: attaches, creates and destroys regions of its own until the host says
#      a.killed; then times a create (it needs the pool lock A may have died
#      holding), waits until A's record is expired, evicts A ("evict 1" into the
#      pool's check: an expired host's open regions stay held until it attaches
#      again or is evicted), waits until A holds no entry and no entry is dying,
#      and checks: every
#      region A logged as created (and not destroyed) is there, none it logged as
#      destroyed is, the pool check is clean, the free space is the size less the
#      regions' space.  Then it destroys every region, for the next trial.
# TAP on stdout; exit 0 when every case passed.
role=$1 trial=$2
# shellcheck source=guest_lib.sh
. ./guest_lib.sh

modprobe dax_cxl
shared=$(cxlt-region-of 0x1000)
[ -n "$shared" ] || { echo "Bail out! no region on the shared device"; exit 1; }
echo "TAP version 13"

if [ "$role" = A ]; then
	# Its record may still say attached from the life the last trial killed:
	# the attach watches it for a few heartbeats, then takes it over.
	echo "$shared host=1" >$P/pool_attach || { echo "Bail out! attach: $(cat $P/pools/$shared/error)"; exit 1; }
	if [ "$(cat $P/pools/$shared/state)" = unformatted ]; then
		echo "$shared" >$P/pool_format || { echo "Bail out! format failed"; exit 1; }
	fi
	touch a.attached
	i=0
	while :; do
		name=a$trial-$i
		if cxltierctl region create --persistent --pool "$shared" "$name" 2M >/dev/null; then
			echo "created $name" >>a.log
		fi
		[ $i -eq 0 ] && touch a.started
		# Two of three go again at once.  The intent is logged first: a kill between
		# the destroy and its log line leaves "destroying", either outcome allowed.
		if [ $((i % 3)) -ne 2 ]; then
			echo "destroying $name" >>a.log
			cxltierctl region destroy "$name" >/dev/null && echo "destroyed $name" >>a.log
		fi
		i=$((i + 1))
	done
fi

wait_for a.attached 300 || { echo "Bail out! A did not attach"; exit 1; }
echo "$shared host=2" >$P/pool_attach || { echo "Bail out! attach: $(cat $P/pools/$shared/error)"; exit 1; }
# B's own creates and destroys run in the background; the foreground notes when
# A was killed (the host says so at once) and then waits for them to stop: one
# may be waiting for the pool lock A died holding.
(
	i=0
	while [ ! -e a.killed ]; do
		name=b$trial-$i
		cxltierctl region create --persistent --pool "$shared" "$name" 2M >/dev/null &&
			cxltierctl region destroy "$name" >/dev/null
		i=$((i + 1))
	done
	echo "# B did $i creates and destroys alongside A"
) &
churn=$!
wait_for a.killed 300 || { echo "Bail out! no word of A's death"; exit 1; }
t0=$(now_ms)
wait $churn
if cxltierctl region create --persistent --pool "$shared" "b$trial-after" 2M >/dev/null; then
	ok "B creates after A's death: $(($(now_ms) - t0)) ms (lease $(cat /sys/module/cxltier/parameters/pool_lease_ms) ms)"
else
	nok "B creates after A's death"
fi
# A's record is expired (its heartbeat stood still for the lease and the grace).  Its
# open regions stay held (a destroyed one "dying") until it attaches again or an
# operator evicts it: A is dead for good (its QEMU was killed), so B evicts it.
i=0
until grep -q '^1 expired' $P/pools/$shared/hosts; do
	sleep 0.2; i=$((i + 1))
	[ $i -lt 300 ] || break
done
echo "# A expired $(($(now_ms) - t0)) ms after its death"
hosts=$(cat $P/pools/$shared/hosts)
echo "$hosts" | grep -q '^1 expired' && ok "A's record is expired" || nok "A's record: $hosts"
err=$( (echo "evict 1" >$P/pools/$shared/check) 2>&1 ) && ok "B evicts A (evict 1)" ||
	nok "B evicts A (evict 1): $err"
# holds_a: some entry lists host 1 (A) among the hosts that have it open.
holds_a() {
	awk '{ k = split($10, h, ","); for (j = 1; j <= k; j++) if (h[j] == "1") f = 1 } END { exit !f }' \
		$P/pools/$shared/table
}
i=0
while holds_a || grep -q ' dying ' $P/pools/$shared/table ||
	! grep -q '^0 problems' $P/pools/$shared/check; do
	sleep 0.2; i=$((i + 1))
	[ $i -lt 300 ] || break
done
echo "# A evicted and cleared $(($(now_ms) - t0)) ms after its death"
a=$(grep '^1 ' $P/pools/$shared/hosts)
if echo "$a" | grep -q '^1 live' || holds_a; then
	nok "A's record is cleared after the evict: ${a:-no record}; entries it holds: $(awk '$10 ~ /(^|,)1(,|$)/ { print $3 }' $P/pools/$shared/table | tr '\n' ' ')"
else
	ok "A's record is cleared after the evict (${a:-no record}) and it holds no entry"
fi
grep -q ' dying ' $P/pools/$shared/table && nok "dying entries are left after the evict: $(grep ' dying ' $P/pools/$shared/table | tr '\n' ';')" ||
	ok "no dying entry is left after the evict"
report=$(cat $P/pools/$shared/check)
case $report in
*"0 problems") ok "pool check is clean" ;;
*) nok "pool check: $(echo "$report" | tr '\n' ';')" ;;
esac

# Committed is there, destroyed is gone: the last word on each name in a.log
# ("destroying": A died during the destroy, which may or may not have happened).
table=$(cat $P/pools/$shared/table)
lost=0 back=0 kept=0
for name in $(awk '{ last[$2] = $1 } END { for (n in last) if (last[n] == "created") print n }' a.log); do
	kept=$((kept + 1))
	echo "$table" | awk -v n="$name" '$3 == n && $2 == "used" { f = 1 } END { exit !f }' ||
		{ lost=$((lost + 1)); echo "# lost: $name"; }
done
for name in $(awk '{ last[$2] = $1 } END { for (n in last) if (last[n] == "destroyed") print n }' a.log); do
	echo "$table" | awk -v n="$name" '$3 == n { f = 1 } END { exit !f }' &&
		{ back=$((back + 1)); echo "# destroyed but there: $name"; }
done
[ $lost -eq 0 ] && ok "every region A committed is there ($kept)" || nok "$lost regions A committed are lost"
[ $back -eq 0 ] && ok "no region A destroyed is back" || nok "$back regions A destroyed are back"

# No space leaked: free = size - the entries' space (2 MiB units).
size=$(cat $P/pools/$shared/size) free=$(cat $P/pools/$shared/free)
held=$(echo "$table" | awk '$1 != "" { s += int(($5 + 2097151) / 2097152) * 2097152 } END { print s + 0 }')
[ $((size - held)) -eq "$free" ] && ok "no space leaked (free $free of $size)" ||
	nok "free $free, size $size, regions hold $held: $((size - held - free)) bytes leaked"

# Clean slate for the next trial: every region goes (A's logged as destroyed).
for name in $(echo "$table" | awk '{ print $3 }'); do
	cxltierctl region destroy "$name" >/dev/null && echo "destroyed $name" >>a.log
done
echo "$shared" >$P/pool_detach || echo "# detach failed"
echo "1..$n"
[ $bad -eq 0 ]
