#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# tests/tools/completion_test.sh CXLTIERCTL: the bash completion
# (tools/completion/cxltierctl.bash) as bash runs it (COMP_WORDS, COMP_CWORD, the
# completion function) for every command: after each command path it offers exactly
# the subcommands its help lists, after "-" its options, and a prefix narrows them.
# The expected lists come from the help text by a parser of their own (awk), not the
# completion's.  TAP; exit 0 when every case passed.
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
bin=$(realpath "${1:?usage: completion_test.sh CXLTIERCTL}")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Completion runs "cxltierctl" from PATH: the built one.
ln -s "$bin" "$work/cxltierctl"
export PATH=$work:$PATH
# shellcheck source=../../tools/completion/cxltierctl.bash
. "$ROOT/tools/completion/cxltierctl.bash"
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $1"; }
nok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n $1"; }

# complete WORDS...: what the completion offers for the last word, sorted, one line.
complete_words() {
	COMP_WORDS=("$@")
	COMP_CWORD=$(($# - 1))
	COMPREPLY=()
	_cxltierctl
	[ ${#COMPREPLY[@]} -eq 0 ] || printf '%s\n' "${COMPREPLY[@]}" | sort | tr '\n' ' '
}
subs_of() { cxltierctl "$@" --help | awk '/^Subcommands:/ { f = 1; next } f && /^  [^ ]/ { print $1; next } f && !/^ / { f = 0 }' | sort | tr '\n' ' '; }

echo "TAP version 13"
# Every command path, from the help walk.
paths=("")
commands=0 wrong=0
while [ ${#paths[@]} -gt 0 ]; do
	p=${paths[0]}
	paths=("${paths[@]:1}")
	# shellcheck disable=SC2086
	want=$(subs_of $p)
	# shellcheck disable=SC2086
	got=$(complete_words cxltierctl $p "")
	commands=$((commands + 1))
	if [ "$got" != "$want" ]; then
		wrong=$((wrong + 1))
		echo "# cxltierctl $p: offers '$got', its help lists '$want'"
	fi
	# shellcheck disable=SC2086
	opts=$(complete_words cxltierctl $p -)
	if [[ " $opts " != *" --help "* ]]; then
		wrong=$((wrong + 1))
		echo "# cxltierctl $p -: offers '$opts', no --help"
	fi
	for s in $want; do paths+=("${p:+$p }$s"); done
done
[ "$commands" -gt 40 ] && [ "$wrong" -eq 0 ] &&
	ok "every command ($commands) is offered its subcommands and options" ||
	nok "$wrong of $commands commands offered the wrong words"

check() {	# check WANT WORDS...: the completion of WORDS is exactly WANT
	local want=$1 got
	shift
	got=$(complete_words "$@")
	[ "$got" = "$want" ] && ok "$* -> $want" || nok "$*: offers '$got', not '$want'"
}
check "tier " cxltierctl ti
check "add list remove weights " cxltierctl tier ""
check "--json " cxltierctl list --j
check "--blade " cxltierctl list -j --bl
check "list " cxltierctl -j tier li
check "add list remove weights " cxltierctl tier --help ""
echo "1..$n"
echo "$((n - bad)) passed, $bad failed, 0 skipped"
[ "$bad" -eq 0 ]
