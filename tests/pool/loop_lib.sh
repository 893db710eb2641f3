# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the two-host loops (kill_test.sh, pause_test.sh): their arguments.
#
# loop_args NAME TRIALS "$@": parse [--trials N] [--lease-ms MS] into $trials (default
# TRIALS) and $lease (default 5000 ms); exit 2 with a reason on anything else.
loop_args() {
	local name=$1
	trials=$2 lease=5000
	shift 2
	while [ $# -gt 0 ]; do
		case $1 in
		--trials) trials=${2:-}; shift 2 ;;
		--lease-ms) lease=${2:-}; shift 2 ;;
		*) echo "$name: unknown argument $1" >&2; exit 2 ;;
		esac
	done
	[[ $trials =~ ^[1-9][0-9]*$ ]] || { echo "$name: --trials needs a number" >&2; exit 2; }
	[[ $lease =~ ^[1-9][0-9]*$ ]] || { echo "$name: --lease-ms needs a number" >&2; exit 2; }
}
