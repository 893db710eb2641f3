#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# man_test.sh MANDIR CXLTIERCTL PROCD CKPTJOB: the man pages say what the programs offer.
#  - Each page renders with man(1), names itself in NAME ("name - what") and has its
#    section in its header.
#  - cxltierctl(8): every command the binary has, down to its subcommands ("blade
#    fence"), is in the page's synopsis, and the synopsis names no command the binary
#    does not have.
#  - cxltier-procd(8), cxltier-ckpt-job(1): every option of the binary's --help is in
#    the page.
# Ends with "man pages: N checks, N failed"; exit 1 on any failure.
set -uo pipefail
MANDIR=$1 CTL=$2 PROCD=$3 CKPTJOB=$4
checks=0 failed=0
fail() { echo "man_test: $*" >&2; failed=$((failed + 1)); }
check() { checks=$((checks + 1)); }

render() { MANWIDTH=100 man -l "$1" 2>/dev/null | col -bx; }

for page in cxltierctl.8 cxltier-procd.8 libcxltier.3 cxltier.4 cxltier-ckpt-job.1; do
	f=$MANDIR/$page
	check
	[ -s "$f" ] || { fail "$page: missing"; continue; }
	name=${page%.*} section=${page##*.}
	text=$(render "$f")
	check
	grep -q "^${name^^}($section)" <<<"$text" || fail "$page: no header ${name^^}($section)"
	check
	grep -A1 '^NAME' <<<"$text" | grep -q "^ *$name - " || fail "$page: NAME does not say '$name - ...'"
done

# The subcommands of a CLI11 --help ("Subcommands:" to the end, first word of each).
subcommands() {
	"$@" --help 2>/dev/null | sed -n '/^Subcommands:/,$p' | sed -n 's/^  \([a-z][a-z-]*\) .*/\1/p'
}
synopsis=$(render "$MANDIR/cxltierctl.8" | sed -n '/^SYNOPSIS/,/^[A-Z]/p')
cmds=() all=()
for c in $(subcommands "$CTL"); do
	all+=("$c")
	subs=$(subcommands "$CTL" "$c")
	if [ -n "$subs" ]; then
		for s in $subs; do cmds+=("$c $s"); all+=("$c $s"); done
	else
		cmds+=("$c")
	fi
done
[ ${#cmds[@]} -gt 20 ] || fail "only ${#cmds[@]} cxltierctl commands found in its --help"
for c in "${cmds[@]}"; do
	check
	grep -Eq "cxltierctl $c( |$)" <<<"$synopsis" || fail "cxltierctl(8): '$c' is not in the synopsis"
done
# And back: each synopsis line's command exists ("cxltierctl WORD [WORD]").
while read -r w1 w2; do
	check
	printf '%s\n' "${all[@]}" | grep -Fqx "$w1${w2:+ $w2}" ||
		fail "cxltierctl(8): the synopsis has 'cxltierctl $w1${w2:+ $w2}', the binary has no such command"
done < <(sed -n 's/^ *cxltierctl \([a-z][a-z-]*\) *\([a-z][a-z-]*\)\{0,1\}.*/\1 \2/p' <<<"$synopsis" | sort -u)

# Every option of a program's --help is in its page.
options_in_page() {
	local page=$1 prog=$2 text o n=0
	text=$(render "$MANDIR/$page")
	for o in $("$prog" --help 2>/dev/null | grep -oE -- '--[a-z][a-z-]+' | sort -u); do
		[ "$o" = --help ] && continue
		check
		n=$((n + 1))
		grep -q -- "$o" <<<"$text" || fail "$page: $o is not in the page"
	done
	[ $n -gt 0 ] || fail "$page: no option found in $prog --help"
}
options_in_page cxltier-procd.8 "$PROCD"
options_in_page cxltier-ckpt-job.1 "$CKPTJOB"

echo "man pages: $checks checks, $failed failed"
[ $failed -eq 0 ]
