#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# cxltierctl region: the library's real ioctl path, end to end through the CLI.
#
# Theory of operation: create a region with a mode, see it in the table and in the
# JSON, touch its pages and read back where they are, refuse a duplicate and a bad
# size with the library's reasons, destroy it and see it gone.  Prints TAP; exits 4
# (skip) without /dev/cxltier.
set -u
[ -e /dev/cxltier ] || { echo "1..0 # SKIP /dev/cxltier is missing"; exit 4; }
command -v cxltierctl >/dev/null || { echo "1..0 # SKIP cxltierctl is not installed"; exit 4; }

name=sh.$$
n=0 failed=0
check() {	# check DESCRIPTION COMMAND...
	local desc=$1 out
	shift
	n=$((n + 1))
	if out=$("$@" 2>&1); then
		echo "ok $n $desc"
	else
		echo "not ok $n $desc"
		echo "$out" | sed 's/^/# /'
		failed=$((failed + 1))
	fi
}
fails_with() {	# fails_with TEXT COMMAND...: COMMAND exits 1 and says TEXT on stderr
	local text=$1 out rc
	shift
	out=$("$@" 2>&1 >/dev/null); rc=$?
	[ $rc -eq 1 ] && echo "$out" | grep -q -- "$text" || { echo "exit $rc: $out"; return 1; }
}
cleanup() { cxltierctl region destroy "$name" >/dev/null 2>&1; }
trap cleanup EXIT

echo "1..8"
check "create with a mode" cxltierctl region create "$name" 8M --policy fast-first --mode 0640
check "listed in the table" sh -c "cxltierctl region list | grep -E '^$name +[0-9]+ +8 MiB +fast-first +volatile +- +root +0640'"
check "listed in the JSON" sh -c "cxltierctl region list --json | grep -q '\"name\": \"$name\"'"
check "touch places every page" sh -c "cxltierctl region touch $name | grep -q 'Touched 2048 pages'"
check "stat shows them resident" sh -c "cxltierctl region stat $name --json | grep -q '\"resident_pages\": 2048'"
check "a duplicate name is refused" fails_with "a region of that name exists" \
	cxltierctl region create "$name" 4M
check "a size that is no page multiple is refused" fails_with "not a nonzero multiple of the page size" \
	cxltierctl region create "$name.odd" 8000
check "destroy, then it is gone" sh -c "cxltierctl region destroy $name &&
	! cxltierctl region list | grep -q '^$name ' &&
	cxltierctl region stat $name 2>&1 | grep -q 'no such region'"
[ $failed -eq 0 ]
