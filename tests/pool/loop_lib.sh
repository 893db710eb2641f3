# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by the two-host loops (kill_test.sh, pause_test.sh): their arguments, and
# helpers for their trials.
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

# qemu_of PIDFILE: the QEMU process it names, if it still runs.
qemu_of() {
	local q
	q=$(cat "$1" 2>/dev/null) || return 1
	[ -n "$q" ] && grep -q qemu "/proc/$q/comm" 2>/dev/null && echo "$q"
}

# why_failed LOG...: from each host's log, the first line that says why a trial
# failed (a failed case, a bail-out, qemu/run's own word such as its timeout), with
# the host's letter; for the trial's FAILED line, which CI's summary shows.
why_failed() {
	local log line out=
	for log in "$@"; do
		line=$(grep -m1 -E '^not ok [0-9]|^Bail out|^qemu/(run|cluster): ' "$log") || continue
		out+="${out:+; }$(basename "$log" .log): ${line:0:120}"
	done
	echo "${out:-no failed case in the logs}"
}
