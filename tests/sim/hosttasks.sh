#!/bin/sh
# tests/sim/hosttasks.sh - host tasks (bench/simulator/hosttasks.c), each
# rule checked so that removing it fails a line here:
#   - off (--host-tasks 0), every figure is the model's before host tasks,
#     byte for byte (hosttasks.golden, from the commit before them; its
#     scx lines since from the scx strategy's per-LLC queues and slices
#     and POLL_END, the busy-host skip of the idle scans, JOIN_WAKER and
#     rule 6's scans that read each poll record once; its
#     sis-core line since from the SIS_CORE patch's second draft: each
#     a strategy's change; its other lines since from the EEVDF
#     runqueues, a model change: on g4dnmetal the same decisions, only
#     the last digits of throughput and overhead moved with the order of
#     the float sums, while greedy's line and 128arm's stock line moved
#     for real; the scx lines as they were), but the host_* fields,
#     which are 0;
#   - on, they run: npus kthreads and a vhost worker and an I/O thread per
#     VM; each kind's share of the host's PU time is what its parameters
#     say, within a tolerance;
#   - vhost workers are woken by the vCPUs' burst ends (one in
#     --vhost-every);
#   - a per-CPU kthread never leaves its PU and no host task halt-polls
#     (--check's invariants, check.c), under every strategy;
#   - host-task latency is reported for every strategy;
#   - sched_ext's unmanaged path: HOST_PACK (select_host_pack()) moves
#     scx's host tasks and nothing of stock's;
#   - the same seed gives the same line.
#
#   hosttasks.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
here=$(dirname "$0")
g4=$dir/g4dnmetal.xml
arm=$dir/128arm-2pa2n8cluster4co.xml
fail=0
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT

field() {
	printf '%s\n' "$2" | sed "s/.*\"$1\":\([^,}]*\).*/\1/"
}
check() {	# check DESCRIPTION AWK-CONDITION
	if ! awk "BEGIN { exit !($2) }"; then
		echo "FAIL: hosttasks: $1 ($2)"
		fail=1
	fi
}
run() {
	"$sim" --seed 3 --warmup-ms 5 --measure-ms 10 "$@"
}
strats="stock pinned daemon daemon-cores scx sis-core greedy"

# off: the old model's lines exactly (the points of hosttasks.golden)
{
	for st in $strats; do
		run --host-tasks 0 --topology "$g4" --workload hackbench \
		    --load 125 --strategy "$st"
	done
	for st in stock scx; do
		run --host-tasks 0 --topology "$g4" --workload dense --load 100 \
		    --strategy "$st"
		run --host-tasks 0 --topology "$arm" --workload hackbench \
		    --load 125 --strategy "$st"
	done
} | sed -e 's/,"host_tasks":0,"host_share":0.0,"host_wakes_per_s":0.0//' \
    -e 's/,"host_p50_ns":0.0,"host_p99_ns":0.0//' \
    -e 's/,"host_wait_share":0.0,"errors"/,"errors"/' \
    >"$tmp"
if ! cmp -s "$tmp" "$here/hosttasks.golden"; then
	echo "FAIL: hosttasks: --host-tasks 0 is not the model before them"
	diff "$tmp" "$here/hosttasks.golden" | head -4
	fail=1
fi

# on, every strategy: they run, under --check, with their own latency
for st in $strats; do
	l=$(run --check --topology "$g4" --workload hackbench --load 125 \
	    --strategy "$st" 2>&1) || {
		echo "FAIL: hosttasks: $st: --check: $(printf '%s\n' "$l" |
		    head -1)"
		fail=1
	}
	check "$st: no error under --check" "$(field errors "$l") == 0"
	# g4dnmetal: 96 PUs, 30 VMs
	check "$st: 96 kthreads + 2 x 30 VM threads" \
	    "$(field host_tasks "$l") == 156"
	check "$st: host tasks wake" "$(field host_wakes_per_s "$l") > 0"
	check "$st: host p99 reported" \
	    "$(field host_p99_ns "$l") >= $(field host_p50_ns "$l") && \
	    $(field host_p99_ns "$l") > 0"
	check "$st: host wait share in (0, 1)" \
	    "$(field host_wait_share "$l") > 0 && \
	    $(field host_wait_share "$l") < 1"
	check "$st: host share 0.5-3 %" \
	    "$(field host_share "$l") > 0.005 && $(field host_share "$l") < 0.03"
done

# each kind's share: kthreads 5 us every 4 ms on each PU (0.125 %); I/O
# threads 10 us every 2 ms per VM (30 VMs on 96 PUs: 0.156 %).  On a
# half-loaded host; a PU time above the work is SMT sharing.
l=$(run --topology "$g4" --workload hogs --load 50 --strategy stock \
    --vhost-ns 0 --iothread-ns 0)
check "kthreads alone: one per PU" "$(field host_tasks "$l") == 96"
check "kthreads' share 5/4000" \
    "$(field host_share "$l") > 0.00125 * 0.7 && \
    $(field host_share "$l") < 0.00125 * 1.6"
check "kthreads: 250 wake-ups a second each" \
    "$(field host_wakes_per_s "$l") > 96 * 250 * 0.9 && \
    $(field host_wakes_per_s "$l") < 96 * 250 * 1.1"
l=$(run --topology "$g4" --workload hogs --load 50 --strategy stock \
    --vhost-ns 0 --kthread-ns 0)
v=$(field vms "$l")
check "I/O threads alone: one per VM" "$(field host_tasks "$l") == $v"
check "I/O threads' share" \
    "$(field host_share "$l") > $v * 0.005 / 96 * 0.6 && \
    $(field host_share "$l") < $v * 0.005 / 96 * 1.6"

# vhost: a kick every --vhost-every burst ends of a vCPU; hackbench's
# bursts end at about its wake-up rate (a message each)
a=$(run --topology "$g4" --workload hackbench --load 125 --strategy stock \
    --kthread-ns 0 --iothread-ns 0)
b=$(run --topology "$g4" --workload hackbench --load 125 --strategy stock \
    --kthread-ns 0 --iothread-ns 0 --vhost-every 4)
check "vhost alone: one per VM" "$(field host_tasks "$a") == 30"
check "vhost: kicks from the vCPUs' burst ends" \
    "$(field host_wakes_per_s "$a") > $(field wakes_per_s "$a") / 16 * 0.5"
check "vhost: four times the kicks at --vhost-every 4" \
    "$(field host_wakes_per_s "$b") > 2.5 * $(field host_wakes_per_s "$a")"

# sched_ext's unmanaged path: HOST_PACK moves scx's host tasks only
for t in "$g4" "$arm"; do
	on=$(run --topology "$t" --workload hackbench --load 100 --strategy scx)
	off=$(run --topology "$t" --workload hackbench --load 100 \
	    --strategy scx --feature -HOST_PACK)
	[ "$on" = "$off" ] && [ "$t" = "$g4" ] && {
		echo "FAIL: hosttasks: HOST_PACK changes nothing under scx"
		fail=1
	}
	on=$(run --topology "$t" --workload hackbench --load 100 \
	    --strategy stock)
	off=$(run --topology "$t" --workload hackbench --load 100 \
	    --strategy stock --feature -HOST_PACK)
	[ "$on" = "$off" ] || {
		echo "FAIL: hosttasks: HOST_PACK moves stock"
		fail=1
	}
done

# a per-CPU kthread never reaches ops.select_cpu (6.12 select_task_rq():
# nr_cpus_allowed == 1): every one of its wake-ups goes through
# vp_enqueue(), whose enqueue_urgent() puts it on its PU preempting, even
# onto its idle PU (scx's counters cover the whole run: no warm-up)
q() {
	VP_SIM_SCX_STATS=1 "$sim" --seed 3 --warmup-ms 0 --measure-ms 10 \
	    --topology "$g4" --workload hogs --load 50 --strategy scx \
	    --vhost-ns 0 --iothread-ns 0 "$@" 2>&1 >/dev/null |
	    sed -n 's/.* kthread \([0-9]*\).*/\1/p'
}
l=$(run --warmup-ms 0 --topology "$g4" --workload hogs --load 50 \
    --strategy scx --vhost-ns 0 --iothread-ns 0)
check "scx: kthread wake-ups all preempting" \
    "$(q) - $(q --host-tasks 0) >= 0.8 * $(field host_wakes_per_s "$l") / 100"

# determinism
a=$(run --topology "$arm" --workload dense --load 125 --strategy scx)
b=$(run --topology "$arm" --workload dense --load 125 --strategy scx)
[ "$a" = "$b" ] || { echo "FAIL: hosttasks: same seed, other line"; fail=1; }

[ $fail = 0 ] && echo "check-sim: host tasks run, apart, on every strategy"
exit $fail
