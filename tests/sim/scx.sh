#!/bin/sh
# tests/sim/scx.sh - the scx strategy's queueing (bench/simulator/
# strategy_scx.c) at work, from the counters it prints to stderr with
# VP_SIM_SCX_STATS=1, on short --check runs (the shared queue's vtime
# order is one of --check's invariants, scx_check()):
#   - KEPT: with nobody waiting, a thread whose slice ends keeps its PU
#     (g4dn.metal, hogs at 150 %: 72 threads on 96 PUs and no host tasks,
#     never a requeue); with host tasks a per-CPU kthread's wake-up
#     preempts the hog on its PU (enqueue_urgent(), SCX_ENQ_PREEMPT,
#     VP_SLICE_KTHREAD), which is requeued, and none waits in a queue;
#   - with nobody waiting the slice is VP_SLICE_MAX, 5 ms: 72 hogs over
#     52 ms end at most 72 * 52 / 5 = 748 slices, and more than the 187
#     that SCX_SLICE_DFL's 20 ms would give (with the 3 ms EEVDF slice,
#     ~1100);
#   - with threads waiting (128arm, no SMT: 192 hogs on 128 PUs) a slice
#     end requeues, and freed PUs consume the queues; but a thread still
#     earlier by vtime than its PU's queue heads keeps it (take_due());
#   - RESUME_PREV: a requeued thread waits to resume on its own PU
#     (held_elsewhere()): on 128arm hogs (no host tasks) slice ends keep
#     their thread while an earlier one waits for its own PU (held), and
#     the hogs migrate at most a quarter as often as with the rule off,
#     where they rotate over the LLC's PUs;
#   - ops.tick (scx_tick(), once a jiffy): a slice that has run past the
#     one that fits the waiters now is cut (g4dn.metal hogs, a host task
#     waiting behind a hog that started its 5 ms alone), and with nobody
#     waiting none is;
#   - JOIN_WAKER: on 128arm tbench (client/server pairs, short bursts,
#     nothing idle at 150 %) wake-ups queue on the waker's PU, in its own
#     queue (queued_pu), and migrate at most a tenth as often as with the
#     rule off, which queues none there;
#   - a per-CPU kthread waits in its PU's own queue; a PU whose own
#     queues are empty takes another LLC's thread (128arm dense);
#   - a queued wake-up kicks an idle PU of its allowed set (dense, 150 %);
#   - a kick is not free (6.12 scx_bpf_kick_cpu(): an irq_work, the idle
#     CPU's runqueue lock, resched_curr(), then its C-state exit): every
#     kick is in flight at least --scx-kick-ns, and without COST_SCX
#     (--costs none) none is;
#   - a DSQ has a lock and a walk (6.12 consume_dispatch_q():
#     under dsq->lock, each task that may not run here skipped): every
#     consume costs at least one line transfer (50 ns) plus 50 ns per
#     task walked past (128arm dense: VMs' allowed sets differ), and
#     nothing without COST_SCX;
#   - a kept slice is not free: one schedule() pass that ends where it
#     began (ops.dispatch renews prev's slice), --scx-resched-ns per
#     kept slice (g4dn.metal hogs);
#   - POLL_END: a wake-up that finds nothing idle goes to a PU whose vCPU
#     halt-polls (g4dn.metal tbench at 150 %, where most PUs poll; with
#     JOIN_WAKER off, which would take the pairs' wake-ups first), and
#     with the feature off none does (the counter is the decision's:
#     decide() said VP_SCX_V_POLL_END), while --check holds that no
#     thread waits on a runqueue where a vCPU still polls;
#   - a latency-profile vCPU's wake-up that finds nothing to claim
#     preempts its PU (vp_enqueue()'s enqueue_urgent(), SCX_ENQ_PREEMPT)
#     on g4dn.metal dense with VMs alternating latency and balanced, and
#     with balanced VMs alone none does; at a slice end a queued latency
#     vCPU goes before a thread that is not one up to VP_SCX_LAT_LEAD_NS
#     later by vtime (lat_leads(): lat_first, 128arm hogs).
#
#   scx.sh SIM TOPODIR
set -eu
sim=$1
dir=$2
fail=0
err=$(mktemp)

out=$(mktemp)
trap 'rm -f "$err" "$out"' EXIT

# stats TOPOLOGY WORKLOAD [OPTION...]: "direct N queued N kick N ..."
# (the JSON line in $out)
stats() {
	t=$1 w=$2
	shift 2
	if ! VP_SIM_SCX_STATS=1 "$sim" --topology "$dir/$t" --workload "$w" \
	    --load 150 --strategy scx --seed 7 --check --warmup-ms 2 \
	    --measure-ms 50 "$@" 2>"$err" >"$out"; then
		echo "FAIL: scx invariant: $t $w: $(cat "$err")" >&2
		fail=1
	fi
	sed -n 's/^scx: //p' "$err"
}

# json NAME: the number field NAME of the last run's JSON line
json() {
	sed "s/.*\"$1\":\([0-9.e+-]*\).*/\1/" "$out"
}

# field STATS NAME
field() {
	echo "$1" | awk -v k="$2" '{ for (i = 1; i < NF; i += 2)
		if ($i == k) print $(i + 1) }'
}

# expect WHAT VALUE OP BOUND
expect() {
	if ! [ "$2" -"$3" "$4" ]; then
		echo "FAIL: scx: $1: $2, expected -$3 $4"
		fail=1
	fi
}

s=$(stats g4dnmetal.xml hogs --host-tasks 0)
expect "kept, nobody waiting" "$(field "$s" kept)" ge 1
expect "requeued, nobody waiting" "$(field "$s" requeue)" eq 0
expect "slices of 5 ms" "$(field "$s" kept)" le 748
expect "slices of 5 ms, not 20" "$(field "$s" kept)" gt 187
expect "no slice cut, nobody waiting" "$(field "$s" cut)" eq 0
# with host tasks a per-CPU kthread's wake-up preempts the hog on its PU
# (enqueue_urgent(): it may run nowhere else, and no ops.select_cpu for
# it), which goes back to its queue; none waits in its PU's queue, and
# half the host tasks' wake-ups wait under 50 us (without the model:
# 0 preempting, every kthread queued, p50 258 us at seed 7)
s=$(stats g4dnmetal.xml hogs)
expect "kthread wake-ups that preempted" "$(field "$s" kthread)" ge 1
expect "hogs requeued by a kthread" "$(field "$s" requeue)" ge 1
expect "kthreads queued in their PU's queue" "$(field "$s" queued_pu)" eq 0
hp50=$(json host_p50_ns)
expect "host tasks' p50 wait, ns" "${hp50%.*}" lt 50000
expect "slices cut by the tick for a waiter" "$(field "$s" cut)" ge 1

s=$(stats 128arm-2pa2n8cluster4co.xml hogs)
expect "requeued, threads waiting" "$(field "$s" requeue)" ge 1
# take_due(): with threads waiting, a hog still earlier by vtime than
# its PU's queue heads runs on (0 kept without the rule)
expect "kept, earlier by vtime than the waiters" "$(field "$s" kept)" ge 1
expect "consumed at least what was requeued" "$(field "$s" consume)" \
    ge "$(field "$s" requeue)"

# RESUME_PREV (held_elsewhere()): 128arm hogs at 125 % without host
# tasks (160 hogs on 128 PUs, a quarter of them waiting at any time):
# with the rule, some slice ends keep their hog while an earlier one
# waits for its own PU, and the hogs migrate at most a quarter as often
# as with it off, where every slice end hands its PU to the queue's head
s=$(stats 128arm-2pa2n8cluster4co.xml hogs --host-tasks 0 --load 125)
mr=$(json migrations_per_s)
expect "slice ends kept, an earlier hog held for its PU" \
    "$(field "$s" held)" ge 1
s=$(stats 128arm-2pa2n8cluster4co.xml hogs --host-tasks 0 --load 125 \
    --feature -RESUME_PREV)
m0=$(json migrations_per_s)
expect "none held with RESUME_PREV off" "$(field "$s" held)" eq 0
if ! awk -v a="$mr" -v b="$m0" 'BEGIN { exit !(a * 4 <= b) }'; then
	echo "FAIL: scx: RESUME_PREV: $mr migrations/s, $m0 without it"
	fail=1
fi

s=$(stats g4dnmetal.xml dense)
expect "queued wake-ups" "$(field "$s" queued)" ge 1
expect "idle PUs kicked" "$(field "$s" kick)" ge 1

# the kicks' time in flight, from the JSON line (no warm-up: the
# counters cover the whole run): at least 50 us each
# with --scx-kick-ns 50000 (the C-state exit comes on top), none free
s=$(stats g4dnmetal.xml dense --scx-kick-ns 50000 --warmup-ms 0)
kicks=$(field "$s" kick)
kns=$(json kick_ns)
if ! awk -v n="$kns" -v k="$kicks" 'BEGIN { exit !(k > 0 && n >= k * 50000) }'
then
	echo "FAIL: scx: $kicks kicks in flight $kns ns in all, not >= 50 us each"
	fail=1
fi
s=$(stats g4dnmetal.xml dense --scx-kick-ns 50000 --warmup-ms 0 --costs none)
kns=$(json kick_ns)
expect "kick time without COST_SCX" "${kns%.*}" eq 0

s=$(stats 128arm-2pa2n8cluster4co.xml dense --warmup-ms 0 --measure-ms 20)
# 4 LLCs: a PU whose own queues are empty takes another LLC's thread
expect "taken from another LLC's queue" "$(field "$s" stolen)" ge 1
consumed=$(field "$s" consume)
walked=$(field "$s" walked)
lns=$(json dsq_lock_ns)
expect "tasks walked past" "$walked" ge 1
if ! awk -v n="$lns" -v c="$consumed" -v w="$walked" \
    'BEGIN { exit !(n >= (c + w) * 50) }'; then
	echo "FAIL: scx: DSQ lock $lns ns for $consumed consumes," \
	    "$walked walked past: not >= 50 ns each"
	fail=1
fi
s=$(stats 128arm-2pa2n8cluster4co.xml dense --warmup-ms 0 --measure-ms 20 \
    --costs none)
lns=$(json dsq_lock_ns)
expect "DSQ lock time without COST_SCX" "${lns%.*}" eq 0

s=$(stats g4dnmetal.xml hogs --warmup-ms 0 --scx-resched-ns 20000 \
    --host-tasks 0)
kept=$(field "$s" kept)
rns=$(json resched_ns)
if ! awk -v n="$rns" -v k="$kept" 'BEGIN { exit !(k > 0 && n == k * 20000) }'
then
	echo "FAIL: scx: $kept kept slices cost $rns ns, not 20 us each"
	fail=1
fi

s=$(stats 128arm-2pa2n8cluster4co.xml tbench --measure-ms 20)
expect "wake-ups joining their waker's PU" "$(field "$s" join)" ge 1
expect "... queued on that PU's own queue" "$(field "$s" queued_pu)" ge \
    "$(field "$s" join)"
mj=$(json migrations_per_s)
s=$(stats 128arm-2pa2n8cluster4co.xml tbench --measure-ms 20 \
    --feature -JOIN_WAKER)
expect "no wake-up joins its waker with JOIN_WAKER off" "$(field "$s" join)" \
    eq 0
m0=$(json migrations_per_s)
if ! awk -v a="$mj" -v b="$m0" 'BEGIN { exit !(a * 10 <= b) }'; then
	echo "FAIL: scx: JOIN_WAKER: $mj migrations/s, $m0 without it"
	fail=1
fi

# (JOIN_WAKER off: its wake-ups, tried first, are queued ones too)
s=$(stats g4dnmetal.xml tbench --feature -JOIN_WAKER)
expect "wake-ups that ended a halt poll" "$(field "$s" poll_end)" ge 1
expect "... more than were queued" "$(field "$s" poll_end)" gt \
    "$(field "$s" queued)"
s=$(stats g4dnmetal.xml tbench --feature -POLL_END)
expect "no poll ended with POLL_END off" "$(field "$s" poll_end)" eq 0

s=$(stats g4dnmetal.xml dense --vm-mix latency,balanced)
expect "latency vCPUs' wake-ups that preempted" \
    "$(field "$s" lat_preempt)" ge 1
s=$(stats g4dnmetal.xml dense --vm-mix balanced)
expect "no preempting wake-up without latency VMs" \
    "$(field "$s" lat_preempt)" eq 0

# ... and at a slice end a queued latency vCPU goes before a task that is
# not one, up to VP_SCX_LAT_LEAD_NS later by vtime (lat_leads(); 128arm
# hogs, where latency vCPUs are requeued at their slice ends: 501 at
# seed 7); with balanced VMs alone none does
s=$(stats 128arm-2pa2n8cluster4co.xml hogs --vm-mix latency,balanced)
expect "latency vCPUs put first at a slice end" "$(field "$s" lat_first)" \
    ge 1
s=$(stats 128arm-2pa2n8cluster4co.xml hogs --vm-mix balanced)
expect "none put first without latency VMs" "$(field "$s" lat_first)" eq 0

# ops.tick cuts a halt poll's window as it cuts a slice: the polling
# vCPU is its PU's running task (g4dn.metal dense has waiters past a
# slice while vCPUs poll: 4 to 14 cuts in 300 ms over seeds 7-9, and
# in 50 ms 0 or 1 only); with halt polling off there is none to cut
s=$(stats g4dnmetal.xml dense --measure-ms 300)
expect "halt polls cut by the tick" "$(field "$s" poll_cut)" ge 1
s=$(stats g4dnmetal.xml dense --halt-poll-ns 0 --measure-ms 300)
expect "no poll cut without halt polling" "$(field "$s" poll_cut)" eq 0

[ $fail = 0 ] && echo "check-sim: scx queueing rules hold"
exit $fail
