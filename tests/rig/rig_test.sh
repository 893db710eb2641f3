#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# Host-side tests of the QEMU rig (qemu/run), which every guest test stands on.
#
# Theory of operation: each case boots the guest (or refuses to) and checks the exit
# status and the one-line reason qemu/run promises: the command's own status, 124 on
# timeout, 125 with a reason when the guest panics or the module fails to load, 2 for
# a usage error; --share makes a host folder writable from the guest, and under a
# membind to each CXL node of pool a program runs from it and reads and writes it
# through pages on that node (the 9p device's DMA into CXL memory); pool boots
# with 4 CPUs (more than the host has: round-robin TCG); the debug kernel boots with
# its checkers when it is built (skipped otherwise).  qemu/qmp's usage errors and
# unreachable sockets are checked without a guest; one boot of "single" has the guest
# run QMP commands through the request channel (cxlt-qmp) and leaves no server
# behind.  The corrupt request flips bytes of a device file and nothing outside the
# run's folder (without a guest), and a boot of "persist" has two pmem regions whose
# bytes the guest sees flipped after cxlt-corrupt.  The crash loop's checker finds
# what is torn or lost in made-up logs and lets the in-flight cases pass.  scripts/check
# runs a guest job again after QEMU's own abort, twice at most, and the pool's pause loop
# ends the other host at once when one host's QEMU dies (stand-ins for qemu/run).  qemu/cluster's
# usage errors are checked without a guest, and one double boot of "shared" has host A
# write into the device both hosts share and host B read it.  The simulator's trace
# recorder (qemu/run --plugin) records sort in the guest.  Prints TAP.
set -u
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
RUN=$ROOT/qemu/run
QMP=$ROOT/qemu/qmp
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
		not_ok "$name" "exit $rc, want $want; stderr: $(head -n1 <<<"$err")"
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
expect "auto_register=1 on a shared device is a usage error" 2 "shared with other hosts" -- \
	--topology shared --modparams auto_register=1 -- true
# cluster_expect NAME REGEX -- qemu/cluster arguments...: a usage error (2), one line.
cluster_expect() {
	local name=$1 re=$2 err rc
	shift 3
	err=$("$ROOT/qemu/cluster" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne 2 ] || ! grep -qE "$re" <<<"$err" || [ "$(grep -c . <<<"$err")" -ne 1 ]; then
		not_ok "$name" "exit $rc, want 2 and one line matching /$re/: $err"
	else
		ok "$name"
	fi
}
cluster_expect "cluster: one command per host or one for all" "3 commands for 2 hosts" -- \
	-- true ::: true ::: true
cluster_expect "cluster: an empty command is a usage error" "empty COMMAND" -- -- true :::
cluster_expect "cluster: per-host options are refused" "per host" -- --qmp x -- true
# qmp_expect NAME STATUS REGEX -- qemu/qmp arguments...: like expect, for qemu/qmp.
qmp_expect() {
	local name=$1 want=$2 re=$3 err rc
	shift 4
	err=$(env -u CXLT_QMP "$QMP" "$@" 2>&1 >/dev/null)
	rc=$?
	if [ "$rc" -ne "$want" ]; then
		not_ok "$name" "exit $rc, want $want; stderr: $(head -n1 <<<"$err")"
	elif ! grep -qE "$re" <<<"$err" || [ "$(grep -c . <<<"$err")" -ne 1 ]; then
		not_ok "$name" "want one line matching /$re/ on stderr, got: $err"
	else
		ok "$name"
	fi
}

qmp_expect "qmp: missing command is a usage error" 2 "no COMMAND" -- --socket /nonexistent
qmp_expect "qmp: no socket is a usage error" 2 "no QMP socket: give --socket" -- query-status
qmp_expect "qmp: JSON-ARGS must be an object" 2 "must be a JSON object" -- \
	--socket /nonexistent query-status '[1]'
qmp_expect "qmp: a bad command name is a usage error" 2 "not a QMP command name" -- \
	--socket /nonexistent 'query status'
qmp_expect "qmp: a missing socket says so" 1 "no QMP socket at /nonexistent/qmp.sock" -- \
	--socket /nonexistent/qmp.sock query-status
dir=$(mktemp -d)
# A socket that nobody listens on any more (socat leaves it behind).
socat "UNIX-LISTEN:$dir/dead.sock,unlink-close=0" - </dev/null >/dev/null 2>&1 &
spid=$!
for _ in $(seq 50); do [ -S "$dir/dead.sock" ] && break; sleep 0.1; done
kill "$spid" 2>/dev/null
wait "$spid" 2>/dev/null
qmp_expect "qmp: a socket without QEMU says QEMU is not running" 1 "QEMU is not running" -- \
	--socket "$dir/dead.sock" query-status
out=$(printf '7 query-status\n\n8\n' | "$QMP" --socket "$dir/dead.sock" --serve 2>/dev/null)
if [ "$out" = "7 error QEMU is not running (nothing listens on $dir/dead.sock)
8 error empty request" ]; then
	ok "qmp --serve answers one line per request"
else
	not_ok "qmp --serve answers one line per request" "$out"
fi
rm -rf "$dir"

# The corrupt request, served without QEMU: bytes flipped in place, names outside the
# folder refused.
dir=$(mktemp -d)
mkdir "$dir/files"
printf 'abcdefgh' >"$dir/files/blade1.pmem"
echo secret >"$dir/outside"
ln -s ../outside "$dir/files/link"
out=$(printf '%s\n' '1 corrupt {"file": "blade1.pmem", "offset": 2, "length": 3}' \
	'2 corrupt {"file": "../outside", "offset": 0, "length": 1}' \
	'3 corrupt {"file": "link", "offset": 0, "length": 1}' \
	'4 corrupt {"file": "blade1.pmem", "offset": 6, "length": 3}' \
	'5 corrupt {"file": "blade1.pmem", "offset": 0}' |
	"$QMP" --socket "$dir/none.sock" --serve --files "$dir/files" 2>/dev/null)
want='1 ok {"file": "blade1.pmem", "offset": 2, "length": 3}
2 error corrupt: '"'"'../outside'"'"' is not a file name of this run (a plain name, no path)
3 error corrupt: no file '"'"'link'"'"' among this run'"'"'s device files (blade1.pmem link)
4 error corrupt: 6+3 is beyond the end of blade1.pmem (8 bytes)
5 error corrupt: want {"file": NAME, "offset": N, "length": N}'
name="qmp --serve corrupt flips bytes of a file of --files and nothing outside it"
if [ "$out" = "$want" ] && [ "$(od -An -tx1 "$dir/files/blade1.pmem" | tr -d ' ')" = 61629c9b9a666768 ] &&
	[ "$(cat "$dir/outside")" = secret ]; then
	ok "$name"
else
	not_ok "$name" "$out"
fi
out=$(echo '6 corrupt {"file": "blade1.pmem", "offset": 0, "length": 1}' |
	"$QMP" --socket "$dir/none.sock" --serve 2>/dev/null)
if [ "$out" = "6 error corrupt: this run has no persistent device files" ]; then
	ok "qmp --serve refuses corrupt without --files"
else
	not_ok "qmp --serve refuses corrupt without --files" "$out"
fi
rm -rf "$dir"

# The summary of a failed part says what the failed case logged (its TH_LOG lines,
# the numbers it saw), even when they are far from the end of the log, and not what
# a case that passed logged: CI keeps only the summary.
dir=$(mktemp -d)
{
	echo '# #  RUN           mig.fine ...'
	echo '# # migration_test.c:10:fine:passing case measured 7'
	echo '# ok 1 mig.fine'
	echo '# #  RUN           mig.burst ...'
	echo '# # migration_test.c:957:burst:reclaim demoted 128 pages'
	for i in $(seq 20); do echo "# # filler $i"; done
	echo '# # migration_test.c:959:burst:Expected demoted (128) >= 4096'
	echo '# not ok 2 mig.burst'
	for i in $(seq 20); do echo "# # later $i"; done
	echo 'not ok 1 migration:migration_test # exit=1'
} >"$dir/log"
out=$("$ROOT/scripts/check" --diagnose "$dir/log" 2>&1)
if grep -q 'burst:reclaim demoted 128 pages' <<<"$out" && ! grep -q 'passing case' <<<"$out"; then
	ok "check's summary of a failure shows what the failed case logged"
else
	not_ok "check's summary of a failure shows what the failed case logged" "got: $out"
fi
rm -rf "$dir"

# A guest job whose QEMU aborts on its own (the iotlb_to_section race) runs again, up
# to twice; a third abort counts as a failure, and so does any other failure at once.
# qemu/run's stand-in fails its first $FAKE_FAILS boots, with QEMU's abort or plainly.
dir=$(mktemp -d)
cat >"$dir/run" <<'EOF'
#!/bin/bash
n=$(($(cat "$FAKE_DIR/calls" 2>/dev/null || echo 0) + 1))
echo "$n" >"$FAKE_DIR/calls"
if [ "$n" -le "$FAKE_FAILS" ]; then
	[ "$FAKE_HOW" = abort ] &&
		echo "qemu/run: QEMU failed (exit 134): qemu-system-x86_64: system/physmem.c:2678: iotlb_to_section: Assertion \`section_index < d->map.sections_nb' failed." >&2
	exit 125
fi
echo "ok 1 fake"
echo "1 passed, 0 failed, 0 skipped"
EOF
chmod +x "$dir/run"
# retry_case NAME FAILS HOW CALLS STATUS: FAILS boots fail (HOW: abort or plain);
# then CALLS boots in all, and check's exit STATUS is 0 (0) or not (1).
retry_case() {
	local out rc calls
	rm -f "$dir/calls"
	out=$(FAKE_DIR=$dir FAKE_FAILS=$2 FAKE_HOW=$3 CXLT_QEMU_RUN=$dir/run \
		"$ROOT/scripts/check" --guest-only --only persist_removal 2>&1)
	rc=$?
	[ "$rc" -ne 0 ] && rc=1
	calls=$(cat "$dir/calls" 2>/dev/null || echo 0)
	if [ "$calls" -eq "$4" ] && [ "$rc" -eq "$5" ]; then
		ok "$1"
	else
		not_ok "$1" "$calls boots (want $4), exit $rc (want $5); last lines: $(tail -n3 <<<"$out")"
	fi
}
retry_case "check runs a job again after QEMU's own abort, twice" 2 abort 3 0
retry_case "check counts a third abort of QEMU as a failure" 3 abort 3 1
retry_case "check does not run a job again that failed otherwise" 1 plain 1 1
rm -rf "$dir"

# The pool's pause loop (tests/pool/pause_test.sh) ends the other host when one host's
# qemu/run ends with 125 (QEMU died): the other's command would wait for it until its
# own timeout.  The stand-ins: host A starts its work; $FAKE_DIES ends with 125 after
# 1 s, the other waits 600 s unless ended (SIGTERM, as qemu/run ends its QEMU).
dir=$(mktemp -d)
cat >"$dir/run" <<'EOF2'
#!/bin/bash
share= host=
while [ $# -gt 0 ]; do
	case $1 in
	--share) share=$2; shift 2 ;;
	--env) [ "$2" = CXLT_HOST=0 ] && host=A; [ "$2" = CXLT_HOST=1 ] && host=B; shift 2 ;;
	--) break ;;
	*) shift 2 ;;
	esac
done
trap 'kill $! 2>/dev/null; exit 130' TERM
[ "$host" = A ] && touch "$share/a.started"
if [ "$host" = "$FAKE_DIES" ]; then
	sleep 1
	echo "qemu/run: QEMU failed (exit 134): (the stand-in)" >&2
	exit 125
fi
sleep 600 &
wait $!
EOF2
chmod +x "$dir/run"
for h in A B; do
	name="the pause loop ends the other host at once when $h's QEMU dies"
	t0=$SECONDS
	out=$(FAKE_DIES=$h CXLT_QEMU_RUN=$dir/run timeout 300 "$ROOT/tests/pool/pause_test.sh" --trials 1 2>&1)
	rc=$? took=$((SECONDS - t0))
	# 1 s of the stand-in and at most 3.5 s before the pause: 60 s is a 10x margin.
	if [ "$rc" -eq 1 ] && [ "$took" -lt 60 ] && grep -q "^trial 1: FAILED.*$h exit 125.*$h ended with 125" <<<"$out"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc (want 1) in $took s (want < 60); got: $(grep -m1 '^trial' <<<"$out")"
	fi
done
rm -rf "$dir"

# The crash loop's checker (tests/crash) on made-up logs: what the boot after a kill
# may find, and what is torn or lost.  The kill came during the create of crash-r0
# and after "committed 7" (a cut "committed 8" line does not count).
dir=$(mktemp -d)
CRASH=$ROOT/tests/crash/crash_test.sh
cat >"$dir/prev" <<'EOF'
crashw restore gen=5 size=3121152 content=ok copies=ok,ok .
crashw region crash-r1 seed=100 body=ok .
crashw region crash-r2 seed=0 body=- .
crashw table n=2 .
crashw ready next=destroy:crash-r1 .
crashw begin 6 .
crashw intent destroy crash-r1 .
crashw done destroy crash-r1 next=create:crash-r3:200002 .
crashw intent create crash-r3 200002 .
crashw done create crash-r3 200002 next=create:crash-r0:200003 .
crashw committed 6 .
crashw begin 7 .
crashw committed 7 .
crashw begin 8 .
crashw intent create crash-r0 200003 .
crashw committed 8
EOF
good='crashw restore gen=8 size=3145728 content=ok copies=ok,ok .
crashw region crash-r2 seed=0 body=- .
crashw region crash-r3 seed=200002 body=ok .
crashw region crash-r0 seed=0 body=- .
crashw table n=3 .'
# check_case NAME WANT SED: the good log changed by SED must give WANT ("" = nothing).
check_case() {
	local out
	sed "$3" <<<"$good" >"$dir/cur"
	out=$("$CRASH" --check "$dir/prev" "$dir/cur" 2>&1)
	if [ "$out" = "$2" ]; then
		ok "crash checker: $1"
	else
		not_ok "crash checker: $1" "got: $out"
	fi
}
check_case "the newest begun generation, a create in flight half done" "" ''
check_case "the last committed, the create in flight done" "" \
	's/gen=8/gen=7/; s/crash-r0 seed=0 body=-/crash-r0 seed=200003 body=ok/'
check_case "one beyond the last begun line is allowed (its line may be unseen)" "" 's/gen=8/gen=9/'
check_case "an older generation is lost" "lost: restored generation 6, generation 7 was committed" \
	's/gen=8/gen=6/'
check_case "nothing restored is lost" "lost: nothing restored, generation 7 was committed" \
	's/^crashw restore .*/crashw restore none (no checkpoint) ./'
check_case "a generation never begun is torn" "torn: restored generation 10, the last begun was 8" \
	's/gen=8/gen=10/'
check_case "wrong content is torn" "torn: restored generation 8 does not hold its content" \
	's/content=ok/content=bad/'
check_case "a created region missing is lost" "lost: crash-r3 (seed 200002) is missing" \
	'/crash-r3/d'
check_case "a destroyed region back is torn" \
	"torn: crash-r1 was destroyed (or never created) but is there, seed 100" \
	'$a crashw region crash-r1 seed=100 body=ok .'
check_case "a region with another seed is torn" "torn: crash-r3 holds seed 7, not 200002" \
	's/seed=200002/seed=7/'
check_case "the region in flight with content of no seed is torn" \
	"torn: crash-r0 holds content of no seed" 's/crash-r0 seed=0 body=-/crash-r0 seed=0 body=bad/'
rm -rf "$dir"

expect "command's exit status comes back" 7 "" -- --topology single --timeout 120 -- \
	sh -c 'exit 7'
# qemu/run's panic report on an oops (no guest can be made to oops on purpose the
# same way twice): the fatal report wins over an earlier one that did not kill, its
# frames skip stack markers, unreliable frames and an interrupted context's
# registers, and a line that is not the kernel's (no timestamp) is not a report.
got=$(bash -c 'source <(sed -n "/^panic_report()/,/^}/p" "$1"); panic_report' _ "$RUN" <<'EOF_OOPS'
[    5.100000] BUG: sleeping function called from invalid context at kernel/x.c:1
BUG: a program's own line
[   12.345678] BUG: unable to handle page fault for address: ffff888012345678
[   12.345679] #PF: supervisor read access in kernel mode
[   12.345680] Oops: 0000 [#1] PREEMPT SMP NOPTI
[   12.345681] CPU: 1 UID: 0 PID: 0 Comm: swapper/1 Tainted: G           OE      6.12.118+deb12-amd64 #1
[   12.345683] RIP: 0010:__run_timers+0x1a2/0x2c0
[   12.345685] RSP: 0018:ffffc90000003ee0 EFLAGS: 00010086
[   12.345686] Call Trace:
[   12.345687]  <IRQ>
[   12.345688]  ? __die+0x23/0x70
[   12.345690]  run_timer_softirq+0x2a/0x50
[   12.345691]  handle_softirqs+0xd8/0x2c0
[   12.345693]  </IRQ>
[   12.345694]  <TASK>
[   12.345695] RIP: 0010:pv_native_safe_halt+0xf/0x20
[   12.345696] RAX: 0000000000000000 RBX: 0000000000000000
[   12.345697]  default_idle+0x9/0x20 [cxltier]
[   12.345698]  </TASK>
[   12.345699] Modules linked in: cxltier(OE)
[   12.345700] Kernel panic - not syncing: Fatal exception in interrupt
EOF_OOPS
)
want='qemu/run:   BUG: unable to handle page fault for address: ffff888012345678 in CPU 1, PID 0 (swapper/1) at __run_timers+0x1a2/0x2c0
qemu/run:   call trace: run_timer_softirq+0x2a/0x50 < handle_softirqs+0xd8/0x2c0 < default_idle+0x9/0x20 [cxltier]'
[ "$got" = "$want" ] && ok "an oops's panic report names the fatal report, its task, where it hit and its frames" ||
	not_ok "an oops's panic report" "got: $got"
# A panic says where it happened: the task and the call trace (sysrq's crash panics
# in sysrq_handle_crash, under sh's write(2) to /proc/sysrq-trigger).
err=$("$RUN" --topology single --timeout 120 -- sh -c 'echo c >/proc/sysrq-trigger' 2>&1 >/dev/null)
rc=$?
if [ $rc -ne 125 ]; then
	not_ok "guest panic is reported" "exit $rc, want 125; stderr: $(head -n1 <<<"$err")"
elif [ "$(head -n1 <<<"$err")" != "qemu/run: guest kernel panicked: sysrq triggered crash" ]; then
	not_ok "guest panic is reported" "first line: $(head -n1 <<<"$err")"
elif ! grep -qE '^qemu/run:   in CPU [0-9]+, PID [0-9]+ \(sh\)$' <<<"$err"; then
	not_ok "guest panic is reported" "no line naming the task: $err"
elif ! grep -qE '^qemu/run:   call trace: .*< sysrq_handle_crash\+0x[0-9a-f]+/0x[0-9a-f]+ < .* < ksys_write\+' <<<"$err"; then
	not_ok "guest panic is reported" "no call trace from ksys_write to sysrq_handle_crash: $err"
else
	ok "guest panic is reported, with the task and its call trace"
fi
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

# Device I/O into CXL pages (pool, every region onlined as a NUMA node by the kernel's
# kmem): for each CXL node, with the page cache dropped, the guest runs a program from
# the share under numactl --membind=NODE (exec reads it over 9p into page cache on
# NODE) that mbinds a buffer to NODE, read(2)s a 1 MiB file of the share into it,
# checks that its own mapped pages and the buffer's are all on NODE and writes the
# buffer to a file of the share (the device reads CXL pages), which must be the file.
# Virtio-9p's DMA to and from a CXL page goes through a QEMU bounce buffer (the CXL
# window is emulated I/O memory): without qemu/run's own one for the 9p device the
# first such request hangs the guest for good (a 9p request stuck that way cannot
# even be killed), so the run's timeout is what fails the case.  Measured here:
# 16-38 s in all, each node 1.1-2.7 s; 400 s leaves 10x.
name="--share: exec, read(2) and write(2) between the share and every CXL node"
dir=$(mktemp -d)
if ! cc -static -O2 -o "$dir/cxl_read" "$ROOT/tests/rig/cxl_read.c" 2>"$dir/cc.err"; then
	not_ok "$name" "cannot build the static helper: $(tail -n1 "$dir/cc.err")"
else
	head -c 1M /dev/urandom >"$dir/data"
	# shellcheck disable=SC2016  # (expanded in the guest)
	out=$("$RUN" --topology pool --no-module --timeout 400 --share "$dir" -- bash -c '
		modprobe -a dax_cxl kmem && daxctl online-memory all >/dev/null 2>&1 || exit 3
		nodes=$(cat /sys/bus/dax/devices/dax*/target_node)
		echo nodes $nodes
		for n in $nodes; do
			echo 3 >/proc/sys/vm/drop_caches
			s=${EPOCHREALTIME/./}
			numactl --membind=$n ./cxl_read data $n >out.$n ||
				{ echo "node $n: exit $?"; exit 4; }
			echo "node $n: $(((${EPOCHREALTIME/./} - s) / 1000)) ms"
		done' 2>&1)
	rc=$?
	nodes=$(sed -n 's/^nodes //p' <<<"$out")
	regions=$(. "$ROOT/qemu/topologies/pool" && echo "$TOPO_REGIONS")
	good=$rc
	[ "$(wc -w <<<"$nodes")" = "$(wc -w <<<"$regions")" ] || good=1
	for node in $nodes; do
		if [ "$node" = 0 ] || ! cmp -s "$dir/data" "$dir/out.$node"; then
			good=1
		fi
	done
	if [ "$good" = 0 ]; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $(tr '\n' ' ' <<<"$out")"
	fi
fi
rm -rf "$dir"

out=$("$RUN" --topology single --timeout 120 --no-module -- \
	sh -c 'test ! -e /sys/kernel/cxltier && ls /sys/bus/cxl/devices | grep -c ^region' 2>&1)
if [ "$(tail -n1 <<<"$out")" = 1 ]; then
	ok "--no-module boots with regions and without cxltier"
else
	not_ok "--no-module boots with regions and without cxltier" "$out"
fi

# The request channel: the guest has the host run QMP commands in its QEMU.  Measured
# here: the boot 6-13 s, a request 0.1-0.4 s; 120 s and the guest's own 30 s per
# request leave 10x.  --qmp names the socket so that no server of this run can hide.
dir=$(mktemp -d)
out=$("$RUN" --topology single --no-module --no-regions --timeout 120 --qmp "$dir/qmp.sock" -- \
	bash -c 'cxlt-qmp query-status; cxlt-qmp query-nosuch; echo "nosuch=$?"
		cxlt-qmp --path-of mem0; cxlt-aer-unmask mem0' 2>&1)
rc=$?
name="guest QMP requests: cxlt-qmp query-status runs, an unknown command fails"
if [ $rc -eq 0 ] && grep -q '^{"status": "running", "running": true}$' <<<"$out" &&
	grep -q '^cxlt-qmp: query-nosuch: The command query-nosuch has not been found$' <<<"$out" &&
	grep -qx 'nosuch=1' <<<"$out"; then
	ok "$name"
else
	not_ok "$name" "exit $rc: $(tr '\n' ' ' <<<"$out")"
fi
name="guest QMP requests: --path-of mem0 is blade0, cxlt-aer-unmask clears the mask"
if grep -qx /machine/peripheral/blade0 <<<"$out" && grep -qE '^mem0 .* -> 0x00000000$' <<<"$out"; then
	ok "$name"
else
	not_ok "$name" "$(tr '\n' ' ' <<<"$out")"
fi
sleep 0.5
if left=$(pgrep -af -- "$dir/qmp.sock"); then
	not_ok "the request server ends with the run" "$left"
else
	ok "the request server ends with the run"
fi
rm -rf "$dir"

# Corruption from the guest (persist, both devices): the guest reads 16 bytes of
# blade1's pmem region through a raw namespace (nd_pmem), has the host flip them
# (cxlt-corrupt), reads them again, and the host finds them flipped in the file.  Its
# own persist folder: the shared one belongs to other runs.  Measured here: 10-12 s.
dir=$(mktemp -d)
truncate -s 256M "$dir/blade1.pmem"
printf 'cxlt-corrupt-me!' | dd of="$dir/blade1.pmem" bs=1 seek=8192 conv=notrunc status=none
# shellcheck disable=SC2016  # (expanded in the guest)
out=$(CXLT_PERSIST_DIR=$dir "$RUN" --topology persist --no-module --timeout 120 -- bash -c '
	D=/sys/bus/cxl/devices
	for r in $(cd $D && ls -d region*); do
		[ "$(cat $D/$r/mode)" = pmem ] || continue
		echo "pmem $r $(($(cat $D/$r/size)))"
		m=$(basename "$(readlink -f "$D/$(cat $D/$r/target0)/../uport")")
		[ "$(cat $D/$m/serial)" = 0x1001 ] && r1=$r
	done
	modprobe nd_pmem && ndctl create-namespace -r "$r1" -m raw >/dev/null || exit 3
	dev=/dev/$(ndctl list -N -r "$r1" | sed -n "s/.*\"blockdev\":\"\(pmem[0-9]*\)\".*/\1/p")
	rd() { echo 3 >/proc/sys/vm/drop_caches; dd if=$dev bs=16 skip=512 count=1 status=none; }
	echo "before $(rd)"
	cxlt-corrupt "$r1" 8192 16 || exit 4
	echo "after $(rd | od -An -tx1 | tr -d " \n")"
	cxlt-corrupt --file ../blade0.pmem 0 1; echo "traversal=$?"' 2>&1)
rc=$?
name="persist: two committed pmem regions; cxlt-corrupt flips bytes the guest then reads"
flipped=$(dd if="$dir/blade1.pmem" bs=1 skip=8192 count=16 status=none | od -An -tx1 | tr -d ' \n')
if [ $rc -eq 0 ] && [ "$(grep -c '^pmem region[0-9]* 268435456$' <<<"$out")" = 2 ] &&
	grep -qx 'before cxlt-corrupt-me!' <<<"$out" &&
	grep -qx '{"file": "blade1.pmem", "offset": 8192, "length": 16}' <<<"$out" &&
	grep -qx 'after 9c87938bd29c908d8d8a8f8bd2929ade' <<<"$out" &&
	grep -qx 'traversal=1' <<<"$out" && [ "$flipped" = 9c87938bd29c908d8d8a8f8bd2929ade ]; then
	ok "$name"
else
	not_ok "$name" "exit $rc, file $flipped: $(tr '\n' ' ' <<<"$out")"
fi
rm -rf "$dir"

# Four CPUs on a host with fewer: qemu/run switches to round-robin TCG, which boots
# as fast as with two (multi-threaded TCG was seen to hang here on a slow machine).
out=$("$RUN" --topology pool --smp 4 --timeout 300 -- \
	sh -c 'grep -c ^processor /proc/cpuinfo' 2>&1)
if [ "$(tail -n1 <<<"$out")" = 4 ]; then
	ok "pool boots with --smp 4"
else
	not_ok "pool boots with --smp 4" "$(tail -n1 <<<"$out")"
fi

# A boot that hangs (here: the VM stopped with QMP stop as soon as QEMU runs, so the
# guest's init never starts) ends with "qemu/run: boot hang", exit 125, at the boot
# limit (CXLT_BOOT_TIMEOUT, 10 s here), not at --timeout.
hdir=$(mktemp -d)
t0=$SECONDS
CXLT_BOOT_TIMEOUT=10 "$RUN" --topology single --timeout 300 --qmp "$hdir/qmp" -- true \
	>"$hdir/out" 2>&1 &
hpid=$!
for ((i = 0; i < 300; i++)); do [ -S "$hdir/qmp" ] && break; sleep 0.1; done
"$QMP" --socket "$hdir/qmp" stop >/dev/null 2>&1
wait "$hpid"
rc=$? secs=$((SECONDS - t0))
if [ $rc -eq 125 ] && grep -q '^qemu/run: boot hang' "$hdir/out" && [ $secs -lt 120 ]; then
	ok "a hung boot ends with 'boot hang' at the boot limit ($secs s)"
else
	not_ok "a hung boot ends with 'boot hang' at the boot limit" "exit $rc after $secs s: $(tail -n1 "$hdir/out")"
fi
rm -rf "$hdir"

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

# Two hosts sharing one CXL device (qemu/cluster, topology shared): A writes a string
# into the shared region through device DAX, B reads it when A's file shows up in the
# shared folder and writes a reply, A reads that (tests/rig/shared_pair.sh).  The
# helper that maps /dev/daxN.M is built static here and run from the shared folder.
# Its own persist folder and a fresh nonce: no other run's bytes can pass for these.
# Measured here: 15 s for both boots at once (smp 1 each); 240 s leaves 10x+.
name="cluster: two hosts share a CXL device, coordinated through the shared folder"
dir=$(mktemp -d)
mkdir "$dir/share" "$dir/persist" "$dir/logs"
if ! cc -static -O2 -o "$dir/share/shared_mem" "$ROOT/tests/rig/shared_mem.c" 2>"$dir/cc.err"; then
	not_ok "$name" "cannot build the static helper: $(tail -n1 "$dir/cc.err")"
else
	cp "$ROOT/tests/rig/shared_pair.sh" "$dir/share/"
	nonce=n$$-$RANDOM
	echo "$nonce" >"$dir/share/nonce"
	out=$(CXLT_PERSIST_DIR=$dir/persist "$ROOT/qemu/cluster" --smp 1 --timeout 240 \
		--share "$dir/share" --logs "$dir/logs" -- bash ./shared_pair.sh 2>&1)
	rc=$?
	if [ $rc -eq 0 ] && grep -qx "\[B\] read: $nonce from A" <<<"$out" &&
		grep -qx "\[A\] read: $nonce from B" <<<"$out" &&
		[ "$(head -c ${#nonce} "$dir/persist/shared0.mem")" = "$nonce" ] &&
		[ "$(cat "$dir/logs/A.status" "$dir/logs/B.status")" = "0
0" ] && grep -q "read: $nonce from A" "$dir/logs/B.log"; then
		ok "$name"
	else
		not_ok "$name" "exit $rc: $(tr '\n' ' ' <<<"$out")"
	fi
fi
rm -rf "$dir"

# qemu/run --plugin and the simulator's trace recorder (make bench-traces): QEMU's
# pagetrace plugin records busybox sort in the guest (bench/trace/record sort-1, into
# a folder of its own), and the trace is one cxlt-sim reads, of about the committed
# one's size: the same program on the same input, thinned as the committed one was
# (its "kept 1 in K"), has the run's misses and the trace's accesses within 10% and
# its pages within 25%.  Misses follow the program's virtual addresses (ASLR off)
# and repeat: four runs here, 4,014,757-4,014,830 (committed: 4,015,835).  Pages are
# guest-physical frames, which a run may reuse more or less: 11,802-11,804 in those
# runs (committed: 11,795), and once, in a make check, 10,263 (-13%) with its
# accesses within 0.03%.  What this test is for is far outside those bands: kernel
# accesses or another CPU's in the trace (kernel addresses: +36% misses, +38%
# pages), no cache model (8x the misses), the program missed (a trace of the loop).
# The first run downloads QEMU's source package for the plugin's header (cached
# after).  Measured here: 60 s with the header cached; 900 s is 10x+.
name="bench-traces: pagetrace records sort in the guest, a trace the simulator reads"
dir=$(mktemp -d)
keep=$(xz -dc "$ROOT/bench/sim/traces/heldout/sort-1.txt.xz" | sed -n 's/^# kept 1 in \([0-9]*\) of [0-9]* entries$/\1/p')
out=$(timeout 900 "$ROOT/bench/trace/record" "$BUILD" --out "$dir" --keep "${keep:-0}" sort-1 2>&1)
rc=$?
if [ $rc -ne 0 ] || [ ! -s "$dir/heldout/sort-1.txt.xz" ]; then
	not_ok "$name" "exit $rc: $(tail -n3 <<<"$out" | tr '\n' ' ')"
else
	xz -dc "$dir/heldout/sort-1.txt.xz" >"$dir/sort-1.txt"
	mkdir -p "$dir/c/tuning" "$dir/c/heldout"
	cp "$dir/sort-1.txt" "$dir/c/heldout/"
	counts='s/^# kept 1 in [0-9]* of \([0-9]*\) entries$/\1/p; s/^# \([0-9]*\) accesses to \([0-9]*\) pages$/\1 \2/p'
	got=$(sed -n "$counts" "$dir/sort-1.txt" | tr '\n' ' ')
	want=$(xz -dc "$ROOT/bench/sim/traces/heldout/sort-1.txt.xz" | sed -n "$counts" | tr '\n' ' ')
	sim=$("$BUILD/bench/cxlt-sim" --heldout only --corpus "$dir/c" 2>&1)
	src=$?
	read -r gm ga gp <<<"$got"
	read -r wm wa wp <<<"$want"
	near() {	# near GOT WANT PERCENT
		[ -n "$1" ] && [ -n "$2" ] && [ $(($1 * 100)) -ge $(($2 * (100 - $3))) ] &&
			[ $(($1 * 100)) -le $(($2 * (100 + $3))) ]
	}
	if [ $src -ne 0 ] || ! grep -qE '^sort-1 +1/4 ' <<<"$sim"; then
		not_ok "$name" "cxlt-sim (exit $src): $(tail -n2 <<<"$sim" | tr '\n' ' ')"
	elif ! near "$gm" "$wm" 10 || ! near "$ga" "$wa" 10 || ! near "$gp" "$wp" 25; then
		not_ok "$name" "recorded $got(misses, accesses, pages; 1 in $keep kept), the committed one $want"
	else
		ok "$name"
	fi
fi
rm -rf "$dir"

echo "1..$n"
exit $failed
