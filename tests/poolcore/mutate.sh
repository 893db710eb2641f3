#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/poolcore/mutate.sh BUILD: every write-back, fence, invalidate and lease check
# of the pool core (kmod/poolcore/*.c) matters.  Each one in turn is removed (the
# call made dead: "if (0) pc->ops->wb(...)"; the check made true) and the host test
# (poolcore_test, over the simulated device with per-host caches) must fail.
# Prints one line per mutant, ends with "N passed, N failed, N skipped" (a mutant
# the tests do not kill is a failure) and exits non-zero if any survived.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BUILD=${1:?usage: mutate.sh BUILD}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
CXX=${CXX:-c++} CC=${CC:-cc}
flags=(-O1 -Wall -Wextra -Werror -I"$ROOT/kmod/poolcore" -I"$ROOT/tests/poolcore" -I"$ROOT/kmod/policy")
$CXX -std=c++20 "${flags[@]}" -c "$ROOT/tests/poolcore/poolcore_test.cpp" -o "$work/test.o" &&
	$CXX -std=c++20 "${flags[@]}" -c "$ROOT/tests/poolcore/sim.cpp" -o "$work/sim.o" ||
	{ echo "mutate: cannot build the test"; exit 1; }
pass=0 fail=0 n=0
for src in "$ROOT"/kmod/poolcore/*.c; do
	f=$(basename "$src")
	while IFS=: read -r line text; do
		n=$((n + 1))
		mkdir -p "$work/m"
		cp "$ROOT"/kmod/poolcore/*.c "$work/m/"
		sed -i -E "${line}s/pc->ops->(wb|inval|fence)\(/if (0) pc->ops->\1(/; ${line}s/cxlt_pc_(may_write|writable)\(pc\)/true/" "$work/m/$f"
		what="$f:$line: $(echo "$text" | sed -E 's/^[[:space:]]+//')"
		objs=()
		ok=1
		for c in "$work"/m/*.c; do
			# A check removed at its only call leaves the function unused: not an error.
			$CC -std=gnu11 "${flags[@]}" -Wno-unused-function -c "$c" -o "$c.o" 2>"$work/cc.log" || { ok=0; break; }
			objs+=("$c.o")
		done
		if [ $ok = 0 ] || ! $CXX -o "$work/t" "$work/test.o" "$work/sim.o" "${objs[@]}" \
			-lgtest -lgtest_main -pthread 2>>"$work/cc.log"; then
			echo "not ok $n $what # does not build: $(head -c 200 "$work/cc.log")"
			fail=$((fail + 1))
		elif timeout 600 "$work/t" --gtest_fail_fast >"$work/run.log" 2>&1; then
			echo "not ok $n $what # survives: no test fails without it"
			fail=$((fail + 1))
		else
			killed=$(grep -m1 '^\[  FAILED  \] ' "$work/run.log" | sed 's/^\[  FAILED  \] //; s/ (.*//')
			echo "ok $n $what # killed by ${killed:-a crash}"
			pass=$((pass + 1))
		fi
		rm -rf "$work/m"
	done < <(grep -nE 'pc->ops->(wb|inval|fence)\(|cxlt_pc_(may_write|writable)\(pc\)' "$src")
done
echo "$pass passed, $fail failed, 0 skipped"
[ $fail = 0 ]
