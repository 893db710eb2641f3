#!/bin/bash
# SPDX-License-Identifier: GPL-2.0
#
# The guest half of the slurm group (tests/slurm/cluster_test.sh): every host of a
# three-host qemu/cluster --net runs it (topologies shared,shared2,single).  Each
# host comes up with cxlt-slurm-up (cxlt-a: one 256 MiB tier, slurmctld and slurmd;
# cxlt-b: two tiers; both attach the shared device as the cluster's shared pool;
# cxlt-c: no tier and no module); cxlt-a submits the jobs and checks them; cxlt-b fences a
# blade when cxlt-a asks; the others wait for cxlt-a to finish.  Hosts meet through
# files in the shared folder (the working directory, /mnt/host).
#
# Output: TAP lines from cxlt-a ("ok N ..."), then "1..N".
set -u
S=$PWD
T=/usr/lib/cxltier/selftests/slurm/cxlt_slurm_touch
P=/usr/lib/cxltier/selftests/slurm/cxlt_slurm_pool
me=$(hostname)
scale=${CXLT_TIMEOUT_SCALE:-1}
n=0 failed=0
ok() { n=$((n + 1)); echo "ok $n $*"; }
notok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n $*"; }
# check WHAT CMD...: one case, passing when CMD succeeds.
check() {
	local what=$1
	shift
	if "$@"; then ok "$what"; else notok "$what"; fi
}
# A setup step that fails fails the run, on every host (failed.HOST ends their waits).
die() {
	notok "$*"
	touch "$S/failed.$me"
	show_logs
	echo "1..$n"
	exit 1
}
show_logs() {
	local f
	for f in /var/log/slurmctld.log /var/log/slurmd.log; do
		[ -f "$f" ] || continue
		echo "# --- $me: the last of $f"
		tail -n 30 "$f" | sed 's/^/# /'
	done
}
# wait_for FILE SECONDS: FILE appears in the shared folder (or a host failed).
wait_for() {
	local t
	for ((t = 0; t < $2 * scale; t++)); do
		[ -e "$S/$1" ] && return 0
		compgen -G "$S/failed.*" >/dev/null && return 1
		sleep 1
	done
	return 1
}

# Any other exit with a failure (an unset variable under set -u) ends the others' waits.
trap 'rc=$?; [ $rc -eq 0 ] || touch "$S/failed.$me"' EXIT

# This host's part of the cluster (qemu/guest/cxlt-slurm-up, as make demo's part 3).
out=$(cxlt-slurm-up 2>&1) || die "$me: $out"

if [ "$me" = cxlt-b ]; then
	# The GRES count follows the blades: the watcher updates slurmctld on a fence.
	cxltier-slurm-gres --node "$me" --update --watch >/var/log/cxltier-slurm-gres.log 2>&1 &
	# When cxlt-a asks: fence the blade under the first tier (region0's device).
	if wait_for fence.go 1500; then
		d=/sys/bus/cxl/devices
		ep=$(basename "$(dirname "$(readlink -f "$d/$(cat $d/region0/target0)")")")
		blade=$(basename "$(readlink -f "$d/$ep/uport")")
		out=$(cxltierctl blade fence --force "$blade" 2>&1) || echo "# fence of $blade: $out"
		echo "$blade" >"$S/fenced"
	fi
fi
if [ "$me" != cxlt-a ]; then
	# Until cxlt-a has run the cases (or failed).
	wait_for done 1500 || { show_logs; exit 1; }
	[ "$me" = cxlt-b ] && sed 's/^/# gres: /' /var/log/cxltier-slurm-gres.log
	exit 0
fi
trap 'rc=$?; touch "$S/done"; [ $rc -eq 0 ] || touch "$S/failed.$me"' EXIT

# --- the cases, from cxlt-a -----------------------------------------------------------
# nodes_idle N: N nodes idle within a while.
nodes_idle() {
	local t
	for ((t = 0; t < 300 * scale; t++)); do
		[ "$(sinfo -h -t idle -o %D 2>/dev/null | head -n 1)" = "$1" ] && return 0
		sleep 1
	done
	sinfo 2>&1 | sed 's/^/# /'
	return 1
}
nodes_idle 3 || die "the three nodes did not come up idle"
ok "three nodes up: cxlt-a offers $(cat "$S/gres.cxlt-a") bytes of CXL memory, cxlt-b $(cat "$S/gres.cxlt-b"), cxlt-c $(cat "$S/gres.cxlt-c")"

# refused WHY OPTION...: sbatch refuses the job at submission, saying WHY (an extended
# regular expression).
refused() {
	local why=$1 out
	shift
	if out=$(sbatch "$@" --wrap true 2>&1); then
		echo "# accepted: $out"
		scancel "$(echo "$out" | awk '{ print $NF }')" 2>/dev/null
		return 1
	fi
	echo "$out" | head -n 3 | sed 's/^/# /'
	grep -qE -- "$why" <<<"$out"
}
check "--cxl-slow=lots is refused at submission" refused "'lots' is not a size" --cxl-slow=lots
check "--cxl-slow=-1G is refused at submission" refused "'-1G' is not a size" --cxl-slow=-1G
check "--cxl-slow=0 is refused at submission" refused "more than 0" --cxl-slow=0
check "--cxl-policy=fastest is refused at submission" refused "preferred, interleave" \
	--cxl-slow=16M --cxl-policy=fastest
check "--cxl-slow=64G, more than any host has, is refused at submission" \
	refused "Requested node configuration is not available" --cxl-slow=64G
check "--gres=cxlmem that disagrees with --cxl-slow is refused" refused "disagrees" \
	--cxl-slow=16M --gres=cxlmem:1024

# job_state ID: its state (RUNNING, PENDING, COMPLETED, ...).
job_state() { [ -n "$1" ] && scontrol show job "$1" 2>/dev/null | sed -n 's/.*JobState=\([A-Z_]*\).*/\1/p'; }
job_node() { scontrol show job "$1" 2>/dev/null | sed -n 's/^ *NodeList=\([^ ]*\).*/\1/p'; }
# wait_state ID STATE SECONDS
wait_state() {
	local t
	for ((t = 0; t < $3 * scale; t++)); do
		[ "$(job_state "$1")" = "$2" ] && return 0
		sleep 1
	done
	echo "# job $1: $(job_state "$1"), not $2"
	return 1
}
submit() { sbatch --parsable "$@"; }
# placed FILE KIND: the job's output shows all its pages on KIND (cxl, dram), on both,
# or on two CXL nodes at least (cxl2).
placed() {
	local line
	line=$(grep '^placement:' "$1" | head -n 1)
	echo "# $1: $line"
	case $2 in
	cxl) [[ $line =~ \ dram=0\  ]] && ! [[ $line =~ \ cxl=0\  ]] ;;
	dram) [[ $line =~ \ cxl=0\  ]] ;;
	both) ! [[ $line =~ \ dram=0\  ]] && ! [[ $line =~ \ cxl=0\  ]] ;;
	# On two CXL nodes or more, none on DRAM.
	cxl2) [[ $line =~ \ dram=0\  ]] && [[ $line =~ nodes=[0-9]+:[1-9][0-9]*,[0-9]+:[1-9] ]] ;;
	esac
}

# 384 MiB of slow memory: only cxlt-b has that much.
j1=$(submit --cxl-slow=384M -o "$S/j1.out" --wrap "$T 32 40") ||
	die "sbatch of a job with --cxl-slow=384M failed"
wait_state "$j1" RUNNING 120
check "a job asking 384M of CXL memory runs on cxlt-b, the host with room" [ "$(job_node "$j1")" = cxlt-b ]
# 200 MiB: cxlt-a has it (cxlt-b has 128 MiB left); its srun step gets the same plan.
j2=$(submit --cxl-slow=200M -o "$S/j2.out" \
	--wrap "$T 16 20; srun -o $S/j2.step.out $T 16") ||
	die "sbatch of a job with --cxl-slow=200M failed"
wait_state "$j2" RUNNING 120
check "a job asking 200M runs on cxlt-a" [ "$(job_node "$j2")" = cxlt-a ]
# Another 200 MiB fits nowhere now: it waits for one of them to end.
j3=$(submit --cxl-slow=200M -o "$S/j3.out" --wrap "$T 16") ||
	die "sbatch of a third job failed"
sleep $((5 * scale))
check "a third job asking 200M waits while nothing has room ($(job_state "$j3"))" \
	[ "$(job_state "$j3")" = PENDING ]
wait_state "$j2" COMPLETED 300
check "it starts when the job on cxlt-a ends, and runs there" \
	eval 'wait_state "$j3" COMPLETED 300 && [ "$(job_node "$j3")" = cxlt-a ]'
wait_state "$j1" COMPLETED 300
check "the pages of a --cxl-slow job are on the host's CXL nodes" placed "$S/j1.out" cxl
check "an srun step inside the batch job gets the same placement" placed "$S/j2.step.out" cxl
# Interleave over cxlt-b's two CXL nodes.  Not over DRAM and CXL: under TCG, QEMU
# crashes when a process runs under a policy that interleaves DRAM and CXL pages
# (Documentation/rig.rst, "Interleaving DRAM and CXL"); real hosts are not affected.
j4=$(submit -w cxlt-b --cxl-slow=64M --cxl-policy=interleave -o "$S/j4.out" \
	--wrap "$T 32") || die "sbatch of an interleave job failed"
wait_state "$j4" COMPLETED 300
check "--cxl-policy=interleave: pages on both of cxlt-b's CXL nodes" placed "$S/j4.out" cxl2
j5=$(submit -o "$S/j5.out" --wrap "$T 16") || die "sbatch of a plain job failed"
wait_state "$j5" COMPLETED 300
check "a job without --cxl-* runs as usual, on DRAM" placed "$S/j5.out" dram

# The plugin on a host without the module: plain jobs run, --cxl-* jobs fail saying why.
j6=$(submit -w cxlt-c -o "$S/j6.out" --wrap "$T 16") || die "sbatch of a plain job to cxlt-c failed"
wait_state "$j6" COMPLETED 300
check "on cxlt-c, without the module, a job without --cxl-* runs" placed "$S/j6.out" dram
j7=$(submit -w cxlt-c --cxl-fast=16M -o "$S/j7.out" --wrap "$T 16") ||
	die "sbatch of a --cxl-fast job to cxlt-c failed"
wait_state "$j7" FAILED 300
check "there a job with --cxl-fast fails, and its output says why" \
	grep -q "cxltier: job not placed: .*no cxltier module" "$S/j7.out"
check "and scontrol show job says why" \
	eval 'scontrol show job "$j7" | grep -q "AdminComment=cxltier: .*no cxltier module"'
check "--cxl-fast=16M became the job's memory (job_submit.lua)" \
	eval 'scontrol show job "$j7" | grep -q "MinMemoryNode=16M"'

# --- the shared pool: a cluster-wide license on the nodes that attach it -------------
lic=$(cat "$S/pool.cxlt-a")
check "the shared pool is the license cxlpool ($lic MiB), cxlt-a and cxlt-b have the feature" \
	eval 'scontrol show license cxlpool | grep -q "Total=$lic " &&
		[ "$(sinfo -h -N -o "%N %f" | grep -c cxlpool)" = 2 ]'
# A job on cxlt-a holds 160 MiB of it and leaves a region there; a job asking as much
# waits for it, though cxlt-b is idle, then reads the region on cxlt-b.
p1=$(submit -w cxlt-a --cxl-pool=160M -o "$S/p1.out" --wrap "$P put handoff 64 && sleep 30") ||
	die "sbatch of a --cxl-pool job failed"
wait_state "$p1" RUNNING 120
for ((t = 0; t < 60 * scale; t++)); do grep -q 'pool:' "$S/p1.out" 2>/dev/null && break; sleep 1; done
p2=$(submit -w cxlt-b --cxl-pool=160M -o "$S/p2.out" --wrap "$P get handoff 64") ||
	die "sbatch of a second --cxl-pool job failed"
sleep $((5 * scale))
reason=$(scontrol show job "$p2" | grep -oE 'Reason=[^ ]+')
check "a second job asking 160M of the pool waits on cxlt-b for the license ($(job_state "$p2") $reason)" \
	eval '[ "$(job_state "$p2")" = PENDING ] && [ "$reason" = Reason=Licenses ]'
wait_state "$p1" COMPLETED 300
sed 's/^/# p1: /' "$S/p1.out"
check "the first wrote a region on the pool (CXLTIER_POOL on cxlt-a)" grep -q '^pool: put handoff 64 MiB on region' "$S/p1.out"
wait_state "$p2" COMPLETED 300
sed 's/^/# p2: /' "$S/p2.out"
check "the second ran when the license came back, and read it on cxlt-b by name" \
	eval 'grep -q "^pool: got handoff 64 MiB from region[0-9]*: [0-9]* words checked" "$S/p2.out" &&
		[ "$(job_node "$p2")" = cxlt-b ]'
check "a --cxl-pool job is not placed where the pool is not attached (cxlt-c)" \
	refused "Requested node configuration is not available" -w cxlt-c --cxl-pool=16M
check "--cxl-pool larger than the pool is refused at submission" refused "icense" --cxl-pool=1G
check "--cxl-pool=0 is refused at submission" refused "more than 0" --cxl-pool=0
check "the license is all free again" eval 'scontrol show license cxlpool | grep -q "Used=0 "'

# cxlmem_mib: cxlt-b's cxlmem count in MiB (scontrol prints 512M, 1G, ...).
cxlmem_mib() {
	local g
	g=$(scontrol show node cxlt-b | grep -oE 'cxlmem:[0-9]+[KMGT]?' | head -n 1)
	g=${g#cxlmem:}
	case $g in
	*K) echo $((${g%K} / 1024)) ;;
	*M) echo "${g%M}" ;;
	*G) echo $((${g%G} * 1024)) ;;
	*T) echo $((${g%T} * 1024 * 1024)) ;;
	*) echo $((g / 1048576)) ;;
	esac
}

# A blade fenced under a running job: the job gets SIGBUS, the node's count drops and
# no new job is placed on the memory that is gone.
j8=$(submit --cxl-slow=384M -o "$S/j8.out" --wrap "$T 64 600") ||
	die "sbatch of a job for the fence failed"
wait_state "$j8" RUNNING 120
for ((t = 0; t < 60 * scale; t++)); do grep -q placement: "$S/j8.out" 2>/dev/null && break; sleep 1; done
before=$(cxlmem_mib)
touch "$S/fence.go"
wait_for fenced 300 || die "cxlt-b did not fence its blade"
# Killed by the fence: SIGBUS, or SIGSEGV when its stack was on the blade too (the
# kernel cannot write the SIGBUS frame there; the job's policy puts it on CXL).
# Slurm shows the signal (ExitCode=0:7 or 0:11), or the batch shell's 128 + signal.
sigbus() {
	wait_state "$j8" FAILED 300 || return 1
	scontrol show job "$j8" | grep -oE "ExitCode=[0-9:]+" | sed 's/^/# /'
	scontrol show job "$j8" | grep -qE "ExitCode=(0:7|0:11|135:0|139:0)"
}
sed 's/^/# j8: /' "$S/j8.out"
check "a job whose memory was on the fenced blade ($(cat "$S/fenced")) dies of it" sigbus
after=
for ((t = 0; t < 120 * scale; t++)); do
	after=$(cxlmem_mib)
	[ "$after" -lt "$before" ] && break
	sleep 1
done
check "cxlt-b's GRES drops from $before MiB to $after MiB" [ "$after" -eq $((before - 256)) ]
# Refused at submission (no node has that much now), or left waiting.
if j9=$(sbatch --parsable --cxl-slow=384M -o "$S/j9.out" --wrap "$T 16" 2>&1); then
	sleep $((5 * scale))
	state="$(job_state "$j9")"
	scancel "$j9"
else
	state="refused: $j9"
fi
check "a new job asking 384M is not placed on the memory that is gone ($state)" \
	eval '[[ $state == PENDING || $state == refused:* ]]' 

[ $failed -eq 0 ] || show_logs
echo "1..$n"
[ $failed -eq 0 ]
