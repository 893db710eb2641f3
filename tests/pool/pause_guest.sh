#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# The guest side of tests/pool/pause_test.sh: pause_guest.sh A|B TRIAL, in the shared
# folder (fresh for each trial, as the shared device).  Regions carry the pattern of
# their name, written and read by selftests/pool/pause_worker (word i = tag(name) << 32
# | i).  Both hosts create regions (create, pattern, write-back, read back), destroy
# two of three, in a loop, and log what they do: "creating NAME" before a create
# ("calling NAME" from the worker as it calls the kernel),
# "created NAME" once the create and the pattern returned, "destroying NAME" before a
# destroy, "destroyed NAME" after it (a.log, b.log).
#
#   A: attaches the pool as host 1 and formats it, writes the pool's lease and grace to
#      "lease", starts CXLT_PAUSE_HOLDERS (default 2) holders (pause_worker hold: a
#      region kept mapped, read and rewritten until told to stop, that note whether
#      they saw their pattern, SIGBUS or anything else), then churns and says
#      a.started.  The host stops its QEMU (SIGSTOP) for longer than lease + grace and
#      continues it (a.stopped, a.resumed).  A then waits until its record is live
#      again, churns 5 s more, stops the churn and the holders (a.quiet).
#   B: attaches as host 2, checks that "evict 1" is refused (EBUSY) while A's heartbeat
#      moves, churns all along, notes when it sees A expired while A is stopped and
#      when A is live again after the resume, and stops churning once A is quiet
#      (b.quiet).
# Then each checks on its own side: A's record is live, pool check ends "0 problems",
# every region either host logged as created (and not destroyed since) opens with its
# pattern intact, none logged as destroyed is in the table, free = size less the
# table's regions, and its own creates found their region zero and read their pattern
# back.  A also checks its holders: never another region's data or zeros, SIGBUS if
# and only if its kernel logged "lease lapsed" (quoted as diagnostics), and a reopen by
# name after each SIGBUS.  TAP on stdout; exit 0 when every case passed.
W=/usr/lib/cxltier/selftests/pool/pause_worker
role=$1 trial=$2
holders=${CXLT_PAUSE_HOLDERS:-2}
scale=${CXLT_TIMEOUT_SCALE:-1}
# shellcheck source=guest_lib.sh
. ./guest_lib.sh
# live_within SECONDS: until host 1 (A) reads live on this host; 1 on timeout.
live_within() {
	i=0
	until grep -q '^1 live ' $P/pools/$shared/hosts; do
		sleep 0.1; i=$((i + 1))
		[ $i -lt $(($1 * 10 * scale)) ] || return 1
	done
}

# churn PREFIX LOG STOPFILE: create, pattern, destroy two of three, until STOPFILE.
# Creates that returned but found the region not zero or lost their pattern (worker
# exit 4 or 2; these are logged as created) or whose region did not open (exit 5; not
# logged) are noted, with what the worker said, in PREFIX.anom: each is a failure.
churn() {
	i=0 made=0 failed=0 timedout=0 kms=0 ams=0
	while [ ! -e "$3" ]; do
		name=$1-$i
		echo "creating $name" >>"$2"
		out=$(CXLT_PAUSE_MARK=$2 $W create "$shared" "$name" 2>&1)
		rc=$?
		case $rc in
		0|2|4) echo "created $name" >>"$2"; made=$((made + 1))
		   # shellcheck disable=SC2046
		   [ $rc = 0 ] && set -- "$1" "$2" "$3" $(echo "$out" | sed -n 's/^time //p') &&
			kms=$((kms + ${4:-0})) ams=$((ams + ${5:-0})) ;;
		*) failed=$((failed + 1))
		   case $out in *"timed out"*) timedout=$((timedout + 1)) ;; esac
		   echo "# $name: exit $rc: $out" >>"$1.fail" ;;
		esac
		case $rc in 2|4|5) echo "$out" >>"$1.anom" ;; esac
		if [ $((i % 3)) -ne 2 ]; then
			echo "destroying $name" >>"$2"
			cxltierctl region destroy "$name" >/dev/null 2>&1 && echo "destroyed $name" >>"$2"
		fi
		i=$((i + 1))
	done
	echo "$made created ($((kms / (made ? made : 1))) ms in the create call, $((ams / (made ? made : 1))) ms with the pattern, on average), $failed creates failed ($timedout timed out)" >"$1.sum"
}

modprobe dax_cxl
shared=$(cxlt-region-of 0x1000)
[ -n "$shared" ] || { echo "Bail out! no region on the shared device"; exit 1; }
echo "TAP version 13"

if [ "$role" = A ]; then
	echo "$shared host=1" >$P/pool_attach || { echo "Bail out! attach: $(cat $P/pools/$shared/error)"; exit 1; }
	echo "$shared" >$P/pool_format || { echo "Bail out! format failed"; exit 1; }
	lease=$(cat $P/pools/$shared/lease_ms 2>/dev/null) ||
		lease=$(cat /sys/module/cxltier/parameters/pool_lease_ms)
	grace=$(cat $P/pools/$shared/grace_ms 2>/dev/null) || grace=$((lease / 2))
	echo "# lease $lease ms, grace $grace ms ($( [ -e $P/pools/$shared/grace_ms ] && echo "the pool's" || echo "pool_lease_ms and lease/2: no pools/$shared/grace_ms"))"
	echo "$lease $grace" >lease
	touch a.attached
	k=1
	while [ $k -le "$holders" ]; do
		$W hold "$shared" "h$trial-$k" a.log hold.stop "hold$k.res" >"hold$k.out" 2>&1 &
		k=$((k + 1))
	done
	i=0
	until [ "$(cat a.log 2>/dev/null | grep -c '^created h')" -ge "$holders" ]; do
		sleep 0.1; i=$((i + 1))
		[ $i -lt $((600 * scale)) ] || { echo "Bail out! the holders did not start: $(cat hold*.out)"; exit 1; }
	done
	churn a$trial a.log a.stopchurn &
	cpid=$!
	touch a.started
	# Stopped and continued by the host in here.
	wait_for a.resumed 600 || { echo "Bail out! no word of the resume"; exit 1; }
	t0=$(now_ms)
	if live_within 60; then
		ok "A's record is live on A again $(($(now_ms) - t0)) ms after the resume"
	else
		nok "A's record is not live on A 60 s after the resume: $(cat $P/pools/$shared/hosts | tr '\n' ';')"
	fi
	sleep 5
	touch a.stopchurn
	wait $cpid
	touch hold.stop
	i=0
	until [ "$(ls hold*.res 2>/dev/null | wc -l)" -ge "$holders" ]; do
		sleep 0.1; i=$((i + 1))
		[ $i -lt $((600 * scale)) ] || break
	done
	touch a.quiet
	wait_for b.quiet 300 || nok "B did not stop churning"
else
	wait_for a.attached 600 || { echo "Bail out! A did not attach"; exit 1; }
	echo "$shared host=2" >$P/pool_attach || { echo "Bail out! attach: $(cat $P/pools/$shared/error)"; exit 1; }
	err=$( (echo "evict 1" >$P/pools/$shared/check) 2>&1 )
	case $? in
	0) nok "evict 1 while A's heartbeat moves is refused: it was taken" ;;
	*) case $err in
	   *[Bb]usy*) ok "evict 1 while A's heartbeat moves is refused (EBUSY)" ;;
	   *) nok "evict 1 while A's heartbeat moves is refused with EBUSY: $err" ;;
	   esac ;;
	esac
	churn b$trial b.log b.stopchurn &
	cpid=$!
	wait_for a.stopped 600 || { echo "Bail out! A was not stopped"; touch b.stopchurn; exit 1; }
	t0=$(now_ms) seen=
	until [ -e a.resumed ]; do
		if [ -z "$seen" ] && grep -q '^1 expired' $P/pools/$shared/hosts; then
			seen=$(($(now_ms) - t0))
		fi
		sleep 0.1
	done
	paused=$(($(now_ms) - t0))
	read -r lease grace <lease
	if [ -n "$seen" ]; then
		ok "B saw A expired while it was stopped: $seen ms after the stop (lease $lease + grace $grace ms; stopped about $paused ms)"
	else
		nok "B did not see A expired in the $paused ms it was stopped (lease $lease + grace $grace ms): $(cat $P/pools/$shared/hosts | tr '\n' ';')"
	fi
	t0=$(now_ms)
	if live_within 60; then
		ok "A's record is live on B again $(($(now_ms) - t0)) ms after the resume"
	else
		nok "A's record is not live on B 60 s after the resume: $(cat $P/pools/$shared/hosts | tr '\n' ';')"
	fi
	wait_for a.quiet 300 || nok "A did not quiet down"
	touch b.stopchurn
	wait $cpid
	touch b.quiet
fi

# --- The checks, on this host's side ----------------------------------------------
me=$(echo "$role" | tr AB ab)
echo "# $role: $(cat $me$trial.sum)"
[ -e $me$trial.fail ] && head -n 5 $me$trial.fail | sed "s/^#* */# /"
hosts=$(cat $P/pools/$shared/hosts)
echo "$hosts" | grep -q '^1 live ' && ok "A's record is live ($role's view)" ||
	nok "A's record ($role's view): $(echo "$hosts" | tr '\n' ';')"
report=$(cat $P/pools/$shared/check)
case $report in
*"0 problems") ok "pool check is clean on $role" ;;
*) nok "pool check on $role: $(echo "$report" | tr '\n' ';')" ;;
esac

# The last word on each name in both logs: "created" must be there with its pattern,
# "destroyed" must not be in the table ("destroying": cut, either outcome).
kept=$(cat a.log b.log | awk '{ last[$2] = $1 } END { for (x in last) if (last[x] == "created") print x }')
gone=$(cat a.log b.log | awk '{ last[$2] = $1 } END { for (x in last) if (last[x] == "destroyed") print x }')
nkept=$(echo $kept | wc -w)
# shellcheck disable=SC2086
$W verify $kept >verify.$me 2>&1
intact=$(grep -c '^intact ' verify.$me)
if [ "$intact" -eq "$nkept" ]; then
	ok "every region logged as created is there with its pattern, read on $role ($nkept: $(echo "$kept" | grep -c '^a') A's, $(echo "$kept" | grep -c '^b') B's, $(echo "$kept" | grep -c '^h') holders')"
else
	nok "$((nkept - intact)) of $nkept regions logged as created are not there with their pattern, read on $role"
	grep -v '^intact ' verify.$me | head -n 10 | sed 's/^/# /'
fi
table=$(cat $P/pools/$shared/table)
back=0
for name in $gone; do
	echo "$table" | awk -v n="$name" '$3 == n { f = 1 } END { exit !f }' &&
		{ back=$((back + 1)); echo "# destroyed but there: $name"; }
done
[ $back -eq 0 ] && ok "no region logged as destroyed is in $role's table ($(echo $gone | wc -w))" ||
	nok "$back regions logged as destroyed are in $role's table"
size=$(cat $P/pools/$shared/size) free=$(cat $P/pools/$shared/free)
held=$(echo "$table" | awk '$1 != "" { s += int(($5 + 2097151) / 2097152) * 2097152 } END { print s + 0 }')
echo "# $role's table: $(echo "$table" | grep -c ' used ') used, $(echo "$table" | grep -c ' dying ') dying"
[ $((size - held)) -eq "$free" ] && ok "no space leaked, on $role (free $free of $size)" ||
	nok "on $role: free $free, size $size, regions hold $held: $((size - held - free)) bytes leaked"
if [ -e $me$trial.anom ]; then
	nok "$role's creates: $(grep -c . $me$trial.anom) returned but found their new region not zero, lost their pattern or did not open"
	head -n 5 $me$trial.anom | sed 's/^/# /'
else
	ok "$role's creates that returned found their new region there, zero, and read their pattern back"
fi

if [ "$role" = A ]; then
	lapses=$(dmesg | grep -c 'lease lapsed')
	dmesg | grep 'lease lapsed' | head -n 5 | sed 's/^/# dmesg: /'
	dmesg | grep 'cxltier: pool' | grep -v 'lease lapsed' | tail -n 15 | sed 's/^/# dmesg: /'
	seen_bad=0 iff=0 reopen=0 results=0 total_bus=0
	k=1
	while [ $k -le "$holders" ]; do
		if [ -e hold$k.res ]; then
			results=$((results + 1))
			# NAME passes P sigbus S reopens R reopen_failures F zero Z foreign X misplaced M
			read -r hname _ passes _ bus _ reop _ rfail _ zero _ foreign _ misplaced <hold$k.res
			echo "# holder $hname: $passes passes, $bus SIGBUS, $reop reopens ($rfail tries failed), wrong words: $zero zero, $foreign foreign, $misplaced misplaced"
			[ $((zero + foreign + misplaced)) -eq 0 ] || seen_bad=$((seen_bad + 1))
			if [ "$lapses" -gt 0 ]; then [ "$bus" -gt 0 ] || iff=$((iff + 1)); else [ "$bus" -eq 0 ] || iff=$((iff + 1)); fi
			[ "$reop" -eq "$bus" ] || reopen=$((reopen + 1))
			total_bus=$((total_bus + bus))
		fi
		grep -v 'SIGBUS in pass\|reopened by name' hold$k.out | head -n 3 | sed "s/^/# holder $k: /"
		k=$((k + 1))
	done
	[ $results -eq "$holders" ] && ok "A's $holders holders ended and reported" ||
		nok "only $results of A's $holders holders ended and reported"
	[ $seen_bad -eq 0 ] && ok "A's holders saw only their own pattern or SIGBUS" ||
		nok "$seen_bad of A's holders read what was not their pattern"
	[ $iff -eq 0 ] && ok "A's holders got SIGBUS if and only if A logged a lapse ($lapses 'lease lapsed' lines; $total_bus SIGBUS)" ||
		nok "$iff of A's holders: SIGBUS without a logged lapse or a lapse without SIGBUS ($lapses 'lease lapsed' lines; $total_bus SIGBUS)"
	[ $reopen -eq 0 ] && ok "A's holders reopened their region by name after each SIGBUS" ||
		nok "$reopen of A's holders could not reopen their region by name after a SIGBUS"
	touch a.verified
	wait_for b.verified 300
else
	touch b.verified
	wait_for a.verified 300
fi
echo "1..$n"
[ $bad -eq 0 ]
