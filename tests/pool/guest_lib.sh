# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=sh disable=SC2034
# Sourced by the guest sides of the two-host tests (pair_guest.sh, kill_guest.sh,
# pause_guest.sh), from the shared folder the host copies it to: TAP cases and waits.
P=/sys/kernel/cxltier
n=0 bad=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
nok() { n=$((n + 1)); bad=$((bad + 1)); echo "not ok $n $*"; }
now_ms() { read -r up _ </proc/uptime; echo "${up%.*}${up#*.}0"; }
# wait_for FILE SECONDS: until FILE exists (SECONDS scaled on the debug kernel); 1 on timeout.
wait_for() {
	i=0
	until [ -e "$1" ]; do
		sleep 0.1; i=$((i + 1))
		[ $i -lt $(($2 * 10 * ${CXLT_TIMEOUT_SCALE:-1})) ] || return 1
	done
}
