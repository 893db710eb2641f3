# SPDX-License-Identifier: GPL-2.0
# bash completion for cxltierctl: subcommands and options, read from cxltierctl's own
# --help at each completion, so that every command and option is offered as the
# installed cxltierctl has it (tests/tools/completion_test.sh checks every command).

# The subcommands ("Subcommands:" section) or the options ("Options:" section: each
# -x and --long of a line) of one help text, one per line.
_cxltierctl_help_words()	# _cxltierctl_help_words subcommands|options HELP
{
	local section='' line w
	local -a ws
	while IFS= read -r line; do
		case $line in
		Subcommands:*|SUBCOMMANDS:*) section=subcommands; continue ;;
		Options:*|OPTIONS:*) section=options; continue ;;
		"") section=; continue ;;
		"  "[!\ ]*) ;;
		*) continue ;;
		esac
		[ "$section" = "$1" ] || continue
		line=${line#  }
		line=${line%% *}
		if [ "$1" = subcommands ]; then
			printf '%s\n' "$line"
		else
			IFS=, read -r -a ws <<<"$line"
			for w in "${ws[@]}"; do
				[[ $w == -* ]] && printf '%s\n' "$w"
			done
		fi
	done <<<"$2"
}

_cxltierctl()
{
	local cur=${COMP_WORDS[COMP_CWORD]} cmd=${COMP_WORDS[0]} help i w
	local -a path=()
	# The command path so far: the words that are subcommands of the path before them.
	help=$("$cmd" --help 2>/dev/null) || return
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		[[ $w == -* ]] && continue
		# No "| grep -q": under pipefail its early exit would fail the pipe.
		if [[ $'\n'$(_cxltierctl_help_words subcommands "$help")$'\n' == *$'\n'"$w"$'\n'* ]]; then
			path+=("$w")
			help=$("$cmd" "${path[@]}" --help 2>/dev/null) || return
		fi
	done
	local kind=subcommands
	[[ $cur == -* ]] && kind=options
	local IFS=$'\n'
	# shellcheck disable=SC2207
	COMPREPLY=($(compgen -W "$(_cxltierctl_help_words "$kind" "$help")" -- "$cur"))
}
complete -F _cxltierctl cxltierctl
