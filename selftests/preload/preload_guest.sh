#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The preload group: an unmodified program (cxlt-preload-worker, which knows nothing
# of cxltier) with libcxltier-preload.so against the module.  Its large allocations
# are in a region of its own (where /proc/self/maps says they are, and the region's
# resident pages as the module counts them), through every allocation function,
# threads, fork (the child's private copy is made from the module's PAGES answer),
# exec and a full region; the region is gone when the program exits and stays when
# it is killed; cxltierctl run --regions sets it up, alone or with a plan.  Prints TAP.
set -u
W=/usr/bin/cxlt-preload-worker
LIB=
for l in /usr/lib/cxltier/libcxltier-preload.so /usr/lib/x86_64-linux-gnu/cxltier/libcxltier-preload.so; do
	[ -f "$l" ] && LIB=$l
done
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }
# check DESCRIPTION COMMAND...: one case, passing when COMMAND succeeds.
check() {
	local desc=$1 out
	shift
	if out=$("$@" 2>&1); then
		ok "$desc"
	else
		notok "$desc"
		echo "$out" | sed 's/^/# /'
	fi
}
# A setup that fails fails the group (no skips: the image has both files).
if [ ! -x "$W" ] || [ -z "$LIB" ] || [ ! -e /dev/cxltier ]; then
	notok "setup: $W, libcxltier-preload.so and /dev/cxltier (${LIB:-no preload})"
	echo "1..$n"
	exit 1
fi
export CXLTIER_PRELOAD_SIZE=256M
preloaded() { LD_PRELOAD=$LIB "$@"; }
no_region_left() { ! cxltierctl region list | grep '^preload\.'; }

# every large allocation in the region, small ones in the heap, data kept
basic() {
	local out
	out=$(preloaded "$W" basic 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	for k in malloc-4M calloc-2M posix_memalign-2M aligned_alloc-3M realloc-small-to-3M \
		realloc-3M-to-9M; do
		grep -qx "$k region" <<<"$out" || return 1
	done
	grep -qx 'malloc-100 heap' <<<"$out" && [ "$(tail -n 1 <<<"$out")" = ok ]
}
check "large allocations of every kind go to the region, small ones to the heap" basic
check "the region is gone when the program exits" no_region_left

# The module's count: the held 2 MiB are resident in the region, then the region goes.
held() {
	local out pid t
	rm -f /tmp/preload.fifo
	mkfifo /tmp/preload.fifo
	# It holds its allocation until the fifo's writer (fd 4) closes.
	LD_PRELOAD=$LIB "$W" hold - </tmp/preload.fifo >/tmp/preload.hold 2>&1 &
	pid=$!
	exec 4>/tmp/preload.fifo
	for ((t = 0; t < 300; t++)); do grep -q holding /tmp/preload.hold && break; sleep 0.1; done
	out=$(cxltierctl region stat "preload.$pid" --json 2>&1)
	echo "$out" | head -n 20
	exec 4>&-
	wait $pid || return 1
	# 512 pages of data and the one before them with the block's header.
	grep -q '"resident_pages": 513' <<<"$out" && grep -q '"policy": "fast-first"' <<<"$out" &&
		grep -qx 'held region' /tmp/preload.hold && ! cxltierctl region list | grep -q "^preload\.$pid "
}
check "the module counts the program's pages in its region (region stat), then the region goes" held
# A case's whole output, then a look at it: a grep -q that left early would kill the
# program with SIGPIPE, and a killed program leaves its region.
# says TEXT COMMAND...: COMMAND succeeds and prints the line TEXT.
says() {
	local text=$1 out
	shift
	out=$("$@" 2>&1) || { echo "$out"; return 1; }
	grep -qx -- "$text" <<<"$out" || { echo "$out"; return 1; }
}
check "eight threads allocate, fill and free without meeting" says ok preloaded "$W" threads 8
forked() {
	local out
	out=$(preloaded "$W" fork 2>&1) || { echo "$out"; return 1; }
	echo "$out"
	grep -qx 'child-block heap' <<<"$out" && grep -qx 'parent-after region' <<<"$out" &&
		grep -qx ok <<<"$out"
}
check "fork: the child gets a private copy, the parent's data stays" forked
check "exec: the new program takes the region's name over" says 'malloc-4M region' preloaded "$W" exec
check "a full region: the rest comes from the heap" says 'full region=7 heap=33' \
	env CXLTIER_PRELOAD_SIZE=64M LD_PRELOAD="$LIB" "$W" full
killed() {
	local pid t
	LD_PRELOAD=$LIB "$W" hold 60 >/tmp/preload.kill 2>&1 &
	pid=$!
	for ((t = 0; t < 300; t++)); do grep -q holding /tmp/preload.kill && break; sleep 0.1; done
	kill -KILL $pid
	wait $pid 2>/dev/null
	cxltierctl region list | grep -q "^preload\.$pid " && cxltierctl region destroy "preload.$pid"
}
check "a killed program leaves its region, which destroy removes" killed
check "cxltierctl run --regions runs the program with it" says 'malloc-4M region' \
	cxltierctl run --regions -- "$W" basic
planned() {
	local out
	out=$(cxltierctl run --regions --fast 16M -- "$W" basic 2>/tmp/preload.run)
	echo "$out"
	cat /tmp/preload.run
	grep -qx 'malloc-4M region' <<<"$out" && grep -q '^Job: exited with status 0' /tmp/preload.run
}
check "with a plan too (--fast), and the report" planned
# A program with an allocator of its own (Debian's redis-server links jemalloc): its
# small allocations go to the C library through the preload, and the C library's
# malloc_usable_size() must answer for them (jemalloc's crashed the server at start);
# a value of 3 MiB is one large allocation, in the region, and reads back whole.
other_allocator() {
	local sock=/tmp/preload-redis.sock pid t rc=0 scale=${CXLT_TIMEOUT_SCALE:-1}
	rm -f "$sock"
	head -c 2359296 /dev/urandom | base64 -w0 >/tmp/preload.val	# 3 MiB of text
	LD_PRELOAD=$LIB redis-server --port 0 --unixsocket "$sock" --save '' \
		--appendonly no >/tmp/preload.redis 2>&1 &
	pid=$!
	# Ready in a few seconds here; 60 s is the 10x margin.
	for ((t = 0; t < 600 * scale; t++)); do
		[ -S "$sock" ] && break
		kill -0 $pid 2>/dev/null || break
		sleep 0.1
	done
	if [ -S "$sock" ] && redis-cli -s "$sock" -x SET big </tmp/preload.val | grep -qx OK; then
		redis-cli -s "$sock" GET big >/tmp/preload.got
		# redis-cli ends the value with a newline of its own.
		cmp <(cat /tmp/preload.val; echo) /tmp/preload.got || rc=1
		cxltierctl region stat "preload.$pid" --json | grep -q '"resident_pages": [1-9]' || rc=1
		redis-cli -s "$sock" SHUTDOWN NOSAVE >/dev/null 2>&1
	else
		rc=1
	fi
	kill $pid 2>/dev/null
	wait $pid
	[ $rc -eq 0 ] || tail -n 20 /tmp/preload.redis
	rm -f /tmp/preload.val /tmp/preload.got
	return $rc
}
check "a program with its own allocator (redis-server, jemalloc) runs, its large value in the region" other_allocator
check "no region is left" no_region_left
echo "1..$n"
[ $failed -eq 0 ]
