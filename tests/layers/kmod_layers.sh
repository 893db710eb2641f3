#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/layers/kmod_layers.sh: no two parts of the module need each other.  A part is
# a file's base name (pool.c and pool.h are "pool"; poolcore/ and policy/ are parts
# of their own); "A needs B" when A.c or A.h includes B.h.  The graph of every part
# must have no loop (design.rst, "Persistence": the pool code uses the region and
# fence code, never the other way round).  tsort(1) finds a loop and names it.
# A negative control adds region -> pool (what region.c did before store_ops) and
# must be refused.  TAP; exit 0 when both cases pass.
set -uo pipefail
KMOD=$(cd "$(dirname "$0")/../../kmod" && pwd)

edges() {
	local f part inc
	while IFS= read -r f; do
		part=${f#"$KMOD"/}
		case $part in
		poolcore/*) part=poolcore ;;
		policy/*) part=policy ;;
		*) part=${part%.*} ;;
		esac
		sed -n 's/^#include "\(.*\)\.h"$/\1/p' "$f" | while read -r inc; do
			case $inc in
			poolcore/*|cxlt_pc|cxlt_pool_format|pc_compat) inc=poolcore ;;
			policy/*|cxlt_policy) inc=policy ;;
			esac
			[ "$inc" = "$part" ] || echo "$part $inc"
		done
	done < <(find "$KMOD" -name '*.[ch]' ! -name '*.mod.c' | sort)
}

n=0 bad=0
check() {	# check NAME EXPECT(0: no loop, 1: a loop) EXTRA-EDGES
	local out rc
	out=$({ edges; printf '%s' "$3"; } | tsort 2>&1 >/dev/null)
	rc=$?
	n=$((n + 1))
	if { [ "$2" = 0 ] && [ $rc -eq 0 ]; } || { [ "$2" = 1 ] && [ $rc -ne 0 ]; }; then
		echo "ok $n $1"
	else
		bad=$((bad + 1))
		echo "not ok $n $1"
		printf '# %s\n' "${out//$'\n'/$'\n'# }"
	fi
}

echo "TAP version 13"
echo "1..2"
[ "$(edges | wc -l)" -gt 20 ] || { echo "Bail out! no includes found under $KMOD"; exit 1; }
check "no two parts of kmod/ need each other" 0 ""
check "negative control: region -> pool is a loop" 1 "region pool
"
echo "$((n - bad)) passed, $bad failed, 0 skipped"
[ $bad -eq 0 ]
