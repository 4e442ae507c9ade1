/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vcpuplace.bpf.c: the sched_ext scheduler for vCPU threads.
 *
 * Wake-ups of managed vCPUs follow the rules of daemon/core/place.c, in
 * the same order, with the daemon's plan as input (vp_vcpus, vp_pus,
 * vp_doms; see vcpuplace_scx.h):
 *   1. the home PU, if its whole core is idle;
 *      cache-hot: a short sleeper's idle previous PU (SIS_CACHE);
 *   2. a whole idle core in the near domain (home cluster), then in the
 *      far one (home LLC), both widened by the daemon on tiny LLCs, best
 *      priority first (SIS_CORE, CLUSTER_FIRST);
 *   3. the home PU if idle next to a busy sibling, else the idle PU of
 *      the far domain with the best SMT-aware priority (SMT_PRIO);
 *   4. outside the far domain, unless the policy keeps it there: a whole
 *      idle core of the allowed set, then any idle PU;
 *   5. the previous PU if idle; else a queue (below).
 * A PU found idle is claimed (so no other waker takes it) and the task is
 * dispatched straight to it.  The allowed set is the thread's own
 * affinity (p->cpus_ptr), which the daemon sets.
 *
 * Every other task takes sched_ext's default idle pick and the same
 * weighted-vtime queues: one per CPU for what may run on that CPU alone,
 * one per LLC for the rest (VP_SCX_DSQ_CPU/LLC in vcpuplace_scx.h).  A
 * PU takes the earlier head of its own two, then any LLC's that holds a
 * task it may run.  Without SCX_OPS_SWITCH_PARTIAL the host's tasks
 * are scheduled here too, fairly, so neither a host hog nor a vCPU can
 * starve the other (daemon/scx/README.md says why the daemon loads it
 * that way, and what partial mode measured).
 */
#include "vp_scx/compat.bpf.h"
#include "vcpuplace_scx.h"

char _license[] SEC("license") = "GPL";

/*
 * How the kernel ejected the scheduler, written by ops.exit() for the
 * loader (scx_exit_read()).  The dump has one byte until the loader
 * resizes its map to vp_exit_dump_len before loading.
 */
struct vp_scx_exit_rec vp_exit_rec;
char vp_exit_dump[1] SEC(".data.vp_exit_dump");
const volatile u32 vp_exit_dump_len;

/* The daemon's switches (enum vp_scx_feature), written through the
 * skeleton's mmap of .data: a wake-up reads whichever value is there. */
u32 vp_features = VP_SCX_FEAT_DEFAULT;
/* Test hook (scx_force_error()): the next vCPU wake-up calls
 * scx_bpf_error(), as a bug in this program would. */
bool vp_force_error;
/* Test hook (scx_join_run_set()): JOIN_WAKER's bound on both usual runs,
 * raised by the boot tests, whose bursts take QEMU TCG far longer. */
__u64 vp_join_run_ns = VP_SCX_JOIN_RUN_NS;
/* Test hook (scx_resume_lag_set()): RESUME_PREV's bound on how far behind
 * a PU's own task a held task may fall, raised by scx_resume: QEMU TCG
 * stretches every slice past it. */
__u64 vp_resume_lag_ns = VP_SCX_RESUME_LAG_NS;
/* Test hook (scx_lat_lead_set()): how far by vtime a queued latency vCPU
 * may be later than prev and still go first (lat_leads()); scx_slice
 * raises it past TCG's slices, and sets 0 to turn the rule off. */
__u64 vp_lat_lead_ns = VP_SCX_LAT_LEAD_NS;

/* The vtime of the task that ran last: where a waking task starts. */
static u64 vtime_now;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u64));
	__uint(max_entries, VP_SCX_STAT_NR);
} vp_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(struct vp_scx_pu));
	__uint(max_entries, VP_SCX_MAX_CPUS);
} vp_pus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(struct vp_scx_dom));
	__uint(max_entries, VP_SCX_MAX_DOMS);
} vp_doms SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(struct vp_scx_vcpu));
	__uint(max_entries, VP_SCX_MAX_VCPUS);
} vp_vcpus SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(struct vp_scx_vcpu_stats));
	__uint(max_entries, VP_SCX_MAX_VCPUS);
} vp_vcpu_stats SEC(".maps");

/* Per task: its run bursts, and when a managed vCPU last slept. */
struct vp_task {
	u64 slept_at;		/* SIS_CACHE: when it last went to sleep */
	u64 ran_at;		/* when its current burst started */
	u64 slice_at;		/* when its current slice started (a burst
				 * kept by ops.dispatch has several) */
	u64 avg_run_ns;		/* its bursts, averaged (1/4 new, 3/4 old) */
	bool vcpu;		/* a managed vCPU at its last wake-up */
	bool latency;		/* ... of the latency profile (VP_SCX_F_LATENCY) */
	bool join_waker;	/* JOIN_WAKER sent its wake-up to the waker's
				 * PU: ops.enqueue queues it on that PU's own
				 * queue, once */
	bool kthread_wake;	/* a per-CPU kthread woken with its short
				 * slice, which ops.running leaves alone */
	u64 cg_id;		/* the cgroup counted at ops.runnable, 0:
				 * none (the root, or no cgroup support) */
	u32 cg_w;		/* the weight counted there (p->scx.weight
				 * then: a nice change meanwhile is undone
				 * with the value that was added) */
	bool in_halt;		/* inside kvm_vcpu_halt(): between the halt
				 * probes (halt_mark()) */
	s32 resume_on;		/* 1 + the CPU whose slice end queued it,
				 * while it waits there (take_due()); 0: a
				 * wake-up, or running */
};

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct vp_task);
} vp_task_store SEC(".maps");

/*
 * The wake-up decision (decide() and its helpers) is in vcpuplace_wake.h,
 * shared with the host simulator (bench/simulator/strategy_scx.c).  Here
 * are its accessors: sched_ext's idle masks and kfuncs, and the maps.
 */
static bool feat(u32 f)
{
	return vp_features & f;
}

static const struct vp_scx_pu *pu_of(s32 cpu)
{
	u32 key = cpu;

	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return NULL;
	return bpf_map_lookup_elem(&vp_pus, &key);
}

static const struct vp_scx_dom *dom_of(u32 id)
{
	if (id >= VP_SCX_MAX_DOMS)
		return NULL;
	return bpf_map_lookup_elem(&vp_doms, &id);
}

static const struct vp_cpu_run *cpu_run_of(s32 cpu);

/*
 * Per CPU: since when the task running there halt-polls in KVM (0: it
 * does not).  Set by the probe on kvm_vcpu_halt()'s entry (and by
 * ops.running for a vCPU preempted inside it), cleared by its
 * exit probe (the poll found the vCPU's own wake-up), by ops.stopping
 * (the poll ran out and the vCPU sleeps, or it was preempted) and by the
 * one wake-up that takes the poll (claim_poll()).  Where the probes do
 * not attach (no KVM, or no BTF for it, at load) every entry stays 0,
 * and POLL_END never finds a PU.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u64));
	__uint(max_entries, VP_SCX_MAX_CPUS);
} vp_cpu_poll SEC(".maps");

static u64 *cpu_poll_of(s32 cpu)
{
	u32 key = cpu;

	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return NULL;
	return bpf_map_lookup_elem(&vp_cpu_poll, &key);
}

/* What runs on this CPU halt-polls since @now. */
static void poll_stamp_here(u64 now)
{
	u64 *since = cpu_poll_of(bpf_get_smp_processor_id());

	if (since)
		*since = now;
}

/*
 * This wake-up takes @cpu's halt poll: it was polling, and no other
 * waker took it first (the compare-and-swap), so exactly one wake-up is
 * sent to end each poll.
 */
static bool claim_poll(s32 cpu)
{
	u64 *since = cpu_poll_of(cpu);
	u64 seen;

	if (!since)
		return false;
	seen = *(volatile u64 *)since;
	return seen && __sync_val_compare_and_swap(since, seen, 0) == seen;
}

/*
 * STAY_PREV's test of @cpu: nothing waits to run there next, in its local
 * DSQ (6.12 scx_bpf_dsq_nr_queued() reads another CPU's through
 * SCX_DSQ_LOCAL_ON) nor in its own queue.  Not a claim: two wakers may
 * both pass it and both wait there, which costs the second one at most
 * a slice (the rule's bound), never a stall.
 */
static bool stay_free(s32 cpu)
{
	return scx_bpf_dsq_nr_queued(VP_DSQ_LOCAL_ON | cpu) == 0 &&
	       scx_bpf_dsq_nr_queued(VP_SCX_DSQ_CPU(cpu)) == 0;
}

/*
 * JOIN_WAKER's waker: the task running this select_cpu (current), if it
 * is a vCPU of the same VM as @v, on the CPU it runs on; else -1.  A
 * wake-up from interrupt context finds whatever runs there, which counts
 * only when it is such a vCPU: then it is one all the same.
 */
static s32 waker_cpu_of(struct task_struct *p, const struct vp_scx_vcpu *v)
{
	struct task_struct *cur = bpf_get_current_task_btf();
	const struct vp_scx_vcpu *wv;
	u32 tid;

	if (!cur || cur == p)
		return -1;
	tid = cur->pid;
	wv = bpf_map_lookup_elem(&vp_vcpus, &tid);
	if (!wv || wv->vm != v->vm)
		return -1;
	return bpf_get_smp_processor_id();
}

#define VPW_WAKE_CTX \
	struct task_struct *p; \
	struct vp_task *t;	/* p's storage, looked up once; may be NULL */ \
	const struct cpumask *idle;	/* PUs idle now */ \
	const struct cpumask *idle_core; /* PUs whose whole core is idle */
#define vpw_feat(w, f)		feat(f)
#define vpw_idle(w, cpu)	bpf_cpumask_test_cpu(cpu, (w)->idle)
#define vpw_idle_core(w, cpu)	bpf_cpumask_test_cpu(cpu, (w)->idle_core)
#define vpw_allowed(w, cpu)	bpf_cpumask_test_cpu(cpu, (w)->p->cpus_ptr)
#define vpw_claim(w, cpu)	scx_bpf_test_and_clear_cpu_idle(cpu)
#define vpw_pu(w, cpu)		pu_of(cpu)
#define vpw_dom(w, id)		dom_of(id)
#define vpw_now(w)		bpf_ktime_get_ns()
#define vpw_cpu_run(w, cpu)	cpu_run_of(cpu)
#define vpw_slept_at(w)		((w)->t ? (w)->t->slept_at : 0)
#define vpw_pick_idle(w, core)	scx_bpf_pick_idle_cpu((w)->p->cpus_ptr, \
					(core) ? VP_PICK_IDLE_CORE : 0)
#define vpw_any_allowed(w)	bpf_cpumask_any_distribute((w)->p->cpus_ptr)
#define vpw_for(i, from, to)	bpf_for(i, from, to)
#define vpw_claim_poll(w, cpu)	claim_poll(cpu)
#define vpw_claim_stay(w, cpu)	stay_free(cpu)
#define vpw_avg_run(w)		((w)->t ? (w)->t->avg_run_ns : 0)
#define vpw_waker_cpu(w)	waker_cpu_of((w)->p, (w)->v)
#define vpw_join_run_ns(w)	(*(volatile __u64 *)&vp_join_run_ns)
#define vpw_any_idle(w, core)	bpf_cpumask_intersects((core) ? \
					(w)->idle_core : (w)->idle, \
					(w)->p->cpus_ptr)
#include "vcpuplace_wake.h"

/* Per CPU: the run records of struct vp_cpu_run (vcpuplace_wake.h). */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(struct vp_cpu_run));
	__uint(max_entries, VP_SCX_MAX_CPUS);
} vp_cpu_runs SEC(".maps");

static const struct vp_cpu_run *cpu_run_of(s32 cpu)
{
	u32 key = cpu;

	return bpf_map_lookup_elem(&vp_cpu_runs, &key);
}

/*
 * A PU claimed for a task reads as busy at once (its idle bit is clear)
 * but runs the task only when it wakes, which can be much later under
 * virtualisation.  Until then vp_cpu_runs would still describe whatever
 * ran there before, and a host task could be packed beside a vCPU that is
 * on its way.  So the claim itself records who is coming.
 */
/*
 * Writes run record @r, which wakers on other CPUs read without a lock
 * (busy_rest_ns()): each field in one store the compiler may not split,
 * merge or drop (WRITE_ONCE-style volatile stores), since last, by an
 * exchange (BPF has no fence; its atomics are full barriers, as in
 * vp_exit()), so a reader that sees the new since (a claim is about
 * the newest task) finds the fields of the same writer beside it, barring
 * a second writer at the same moment (a claim racing ops.running: either
 * record is true for a moment).
 */
static void run_record_write(struct vp_cpu_run *r, u64 since, u64 expect_ns,
			     bool vcpu)
{
	*(volatile u64 *)&r->expect_ns = expect_ns;
	*(volatile bool *)&r->vcpu = vcpu;
	__sync_lock_test_and_set(&r->since, since);
}

static void note_claim(s32 cpu, const struct vp_task *t, bool vcpu)
{
	struct vp_cpu_run *r;
	u32 key = cpu;

	if (cpu < 0)
		return;
	r = bpf_map_lookup_elem(&vp_cpu_runs, &key);
	if (!r)
		return;
	run_record_write(r, bpf_ktime_get_ns(), t ? t->avg_run_ns : 0, vcpu);
}

static void stat_inc(enum vp_scx_stat idx)
{
	u32 key = idx;
	u64 *cnt = bpf_map_lookup_elem(&vp_stats, &key);

	/* a miss cannot happen (key < max_entries); it would only lose a count */
	if (cnt)
		(*cnt)++;
}

/*
 * Slices that fit the load.  A task runs for VP_SLICE_MAX when nothing
 * waits where its PU would take it, and for VP_SLICE_MAX / (n + 1) when n
 * tasks wait, never less than VP_SLICE_MIN; ops.tick ends a slice that
 * has run past that while others wait.  So with n waiters one of them
 * waits about n slices of VP_SLICE_MAX / n: VP_SLICE_MAX, whatever n is,
 * until n passes VP_SLICE_MAX / VP_SLICE_MIN.
 *
 * VP_SLICE_MAX, 5 ms: what a task waits behind one hog on its PU, at
 * most (plus a tick).  A guest's timer tick is 1-4 ms (HZ 1000-250), so
 * a vCPU kept waiting much longer than that misses ticks and its guest
 * sees the lost time as steal; a hog alone keeps its PU anyway (the slice
 * is renewed), so a longer slice would buy nothing but the wait.
 * VP_SLICE_MIN, 1 ms: slice ends land on ticks (1 ms at HZ 1000), so a
 * shorter bound would only cut a crowded PU at every tick; and each cut
 * costs a switch (a few us, tens more in refilled caches) and often a
 * migration.  The simulator's tuning set (bench/README.md) lost 15 % of
 * schbench's throughput at 125 % with 250 us, nothing with 1 ms.
 * VP_SLICE_KTHREAD, 250 us: a per-CPU kthread's slice, which it takes
 * at once by preempting (vp_enqueue()); kworkers and ksoftirqd run for
 * us, and one that needs more goes through the queue at its slice end
 * like any task.
 */
#define VP_SLICE_MAX		VP_SCX_SLICE_MAX_NS
#define VP_SLICE_MIN		VP_SCX_SLICE_MIN_NS
#define VP_SLICE_KTHREAD	VP_SCX_SLICE_KTHREAD_NS

/*
 * Tasks waiting where PU @cpu would take them first: its local DSQ, its
 * own CPU's queue, its LLC's queue and the shared one (vp_dispatch()'s
 * take_own()), not the other LLCs', which it takes only when idle.  An
 * LLC's queue may hold tasks only other PUs of the LLC may run, so this
 * may be too many, never too few: a slice ended for nothing costs one
 * ops.dispatch, which renews it (vp_dispatch()).
 */
static u64 nr_queued(u64 dsq)
{
	s32 n = scx_bpf_dsq_nr_queued(dsq);

	return n > 0 ? (u64)n : 0;
}

static u64 nr_waiting(s32 cpu)
{
	const struct vp_scx_pu *pu = pu_of(cpu);
	u64 n = nr_queued(VP_DSQ_LOCAL_ON | cpu) +
		nr_queued(VP_SCX_DSQ_CPU(cpu)) + nr_queued(VP_SCX_DSQ_SHARED);

	if (pu && pu->valid)
		n += nr_queued(VP_SCX_DSQ_LLC(pu->llc_dom));
	return n;
}

/* The slice that fits @waiting tasks. */
static u64 slice_of(u64 waiting)
{
	u64 slice = VP_SLICE_MAX / (waiting + 1);

	return slice < VP_SLICE_MIN ? VP_SLICE_MIN : slice;
}

/* The slice for a task that starts on PU @cpu now. */
static u64 slice_for(s32 cpu)
{
	return slice_of(nr_waiting(cpu));
}

/*
 * A per-CPU kthread: bound to one PU.  Not a task that merely has
 * migration disabled: p->migration_disabled read at a wake-up counted
 * ordinary threads too (scx_progress's host sleeper, then sent to its
 * previous PU beside the pinned vCPU in 398 of 399 rounds), and such a
 * task's wake-up goes to its PU anyway.
 */
static bool pcpu_kthread(struct task_struct *p)
{
	return (p->flags & VP_PF_KTHREAD) && p->nr_cpus_allowed == 1;
}

/*
 * Per CPU: whether what runs there now is urgent (a per-CPU kthread or a
 * latency vCPU), which a latency vCPU's wake-up does not preempt.
 * Written by ops.running; a stale read only preempts once too often or
 * too seldom.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
	__uint(max_entries, VP_SCX_MAX_CPUS);
} vp_cpu_urgent SEC(".maps");

static bool cpu_urgent(s32 cpu)
{
	u32 key = cpu;
	u32 *u = bpf_map_lookup_elem(&vp_cpu_urgent, &key);

	return !u || *u;
}

/* Per-vCPU counters: one wake-up decided at @cpu for rule @why. */
static void count_wake(struct wake *w, s32 cpu, enum vp_scx_vstat why,
		       bool direct)
{
	struct vp_scx_vcpu_stats *st;
	const struct vp_scx_pu *pu, *ppu;
	u32 tid = w->p->pid;

	st = bpf_map_lookup_elem(&vp_vcpu_stats, &tid);
	if (!st)
		return;		/* the daemon creates it with the entry */
	st->n[VP_SCX_V_WAKEUP]++;
	if (why < VP_SCX_VSTAT_NR)
		st->n[why]++;
	st->n[VP_SCX_V_PROBES] += w->probes;
	pu = pu_of(cpu);
	/*
	 * Where it lands next to a busy sibling, the decision is wrong if a
	 * whole idle core of its allowed set showed in the mask at that
	 * moment.  Queued wake-ups land later, wherever a PU idles: the
	 * decision is then the queue's, not this one's.
	 */
	if (direct && w->sib_busy) {
		st->n[VP_SCX_V_SMT_BUSY]++;
		if (bpf_cpumask_intersects(w->idle_core, w->p->cpus_ptr))
			st->n[VP_SCX_V_SMT_BUSY_IDLE_CORE]++;
	}
	if (cpu != w->prev) {
		st->n[VP_SCX_V_MIGRATED]++;
		ppu = pu_of(w->prev);
		if (pu && ppu && pu->cluster_dom != ppu->cluster_dom)
			st->n[VP_SCX_V_CROSS_CLUSTER]++;
		if (pu && ppu && pu->llc_dom != ppu->llc_dom)
			st->n[VP_SCX_V_CROSS_LLC]++;
	}
}

/* A vp_vcpus entry the daemon wrote, checked before it is trusted. */
static bool vcpu_sane(const struct vp_scx_vcpu *v)
{
	return v->home >= -1 && v->home < VP_SCX_MAX_CPUS &&
	       v->near_dom < VP_SCX_MAX_DOMS && v->far_dom < VP_SCX_MAX_DOMS;
}

static s32 select_vcpu(struct task_struct *p, struct vp_task *t,
		       s32 prev_cpu, const struct vp_scx_vcpu *v)
{
	struct wake w = { .p = p, .t = t, .v = v, .prev = prev_cpu };
	enum vp_scx_vstat why;
	bool direct;
	s32 cpu;

	w.idle = scx_bpf_get_idle_cpumask();
	w.idle_core = scx_bpf_get_idle_smtmask();
	cpu = decide(&w, &why, &direct);
	count_wake(&w, cpu, why, direct);
	scx_bpf_put_idle_cpumask(w.idle_core);
	scx_bpf_put_idle_cpumask(w.idle);
	if (direct) {
		/*
		 * A claimed halt poll: the task joins that PU's runqueue,
		 * so single_task_running() fails there and the poll ends
		 * (kvm_vcpu_can_poll()); the vCPU sleeps and this task runs
		 * next.  STAY_PREV: it waits on prev's runqueue behind the
		 * task running there, whose run record it leaves alone.  No
		 * kick: nothing there is idle.
		 */
		if (why != VP_SCX_V_STAY_PREV)
			note_claim(cpu, t, true);
		if (why == VP_SCX_V_STAY_PREV)
			stat_inc(VP_SCX_WAKE_STAY_PREV);
		else if (why == VP_SCX_V_POLL_END)
			stat_inc(VP_SCX_WAKE_POLL_END);
		else
			stat_inc(w.sib_busy ? VP_SCX_WAKE_IDLE_PU :
				 VP_SCX_WAKE_IDLE_CORE);
		stat_inc(VP_SCX_DIRECT);
		vp_dsq_insert(p, VP_DSQ_LOCAL, VP_SLICE_MAX, 0);
	} else if (why == VP_SCX_V_JOIN_WAKER) {
		/* without its storage it goes to the LLC's queue instead */
		if (t)
			t->join_waker = true;
		stat_inc(VP_SCX_WAKE_JOIN_WAKER);
	} else {
		stat_inc(VP_SCX_WAKE_QUEUED);
	}
	return cpu;
}

/*
 * HOST_PACK: a host task (not a managed vCPU) wakes on an idle PU whose
 * sibling already runs host work, so host work shares cores and whole
 * cores stay for the vCPUs.  Its previous PU first (warm caches), then at
 * most HOST_PACK_PROBES PUs of its LLC.  -1: none; the caller falls back
 * to sched_ext's default (idle core first).
 */
#define HOST_PACK_PROBES 64

static bool host_work_beside(const struct cpumask *idle, s32 cpu)
{
	const struct vp_scx_pu *pu = pu_of(cpu);
	u32 i, nsib;

	if (!pu || !pu->valid)
		return false;
	nsib = pu->nsib;
	bpf_for(i, 0, VP_SCX_MAX_SMT) {
		const struct vp_cpu_run *r;
		u32 key;

		if (i >= nsib)
			break;
		if (pu->sib[i] < 0 || bpf_cpumask_test_cpu(pu->sib[i], idle))
			continue;
		key = pu->sib[i];
		r = bpf_map_lookup_elem(&vp_cpu_runs, &key);
		if (r && !r->vcpu)
			return true;
	}
	return false;
}

/*
 * With @claim false nothing is claimed: the PU returned is one the task
 * would be packed on now (ops.dispatch asks so before it lets a slice end).
 */
static bool pack_take(s32 cpu, bool claim)
{
	return !claim || scx_bpf_test_and_clear_cpu_idle(cpu);
}

static s32 select_host_pack(struct task_struct *p, s32 prev, bool claim)
{
	const struct cpumask *idle;
	const struct vp_scx_pu *ppu = pu_of(prev);
	const struct vp_scx_dom *d;
	s32 found = -1;
	u32 i, n, start;

	if (!feat(VP_SCX_FEAT_HOST_PACK) || !ppu || !ppu->valid)
		return -1;
	d = dom_of(ppu->llc_dom);
	if (!d)
		return -1;
	idle = scx_bpf_get_idle_cpumask();
	if (bpf_cpumask_test_cpu(prev, p->cpus_ptr) &&
	    bpf_cpumask_test_cpu(prev, idle) && host_work_beside(idle, prev) &&
	    pack_take(prev, claim)) {
		found = prev;
		goto out;
	}
	n = d->ncpus;
	/* start at a PU that depends on the task, so wakers spread out */
	start = n ? (u32)p->pid % n : 0;
	bpf_for(i, 0, HOST_PACK_PROBES) {
		u32 k = start + i;
		s32 cpu;

		if (i >= n)
			break;
		if (k >= n)
			k -= n;
		if (k >= VP_SCX_DOM_CPUS)
			break;
		cpu = d->cpu[k];
		if (cpu < 0 || !bpf_cpumask_test_cpu(cpu, idle) ||
		    !bpf_cpumask_test_cpu(cpu, p->cpus_ptr) ||
		    !host_work_beside(idle, cpu))
			continue;
		if (pack_take(cpu, claim)) {
			found = cpu;
			break;
		}
	}
out:
	scx_bpf_put_idle_cpumask(idle);
	return found;
}

/*
 * Whether @p may be moved off its CPU by a SCX_DSQ_LOCAL_ON verdict at
 * all: 6.12 ext.c task_can_run_on_remote_rq() ejects the scheduler for
 * a migration-disabled task, so it is tested here, before any PU is
 * claimed for it.  The count is read through CO-RE; a kernel without
 * the field (no SMP) never disables migration.
 */
static bool migration_held(struct task_struct *p)
{
	if (!bpf_core_field_exists(p->migration_disabled))
		return false;
	return vpw_migration_held(p->migration_disabled,
				  p == bpf_get_current_task_btf());
}

/* @p may be dispatched to @cpu's local DSQ from elsewhere (LOCAL_ON). */
static bool local_on_ok(struct task_struct *p, s32 cpu)
{
	return cpu >= 0 && bpf_cpumask_test_cpu(cpu, p->cpus_ptr) &&
	       !migration_held(p);
}

/*
 * HOST_PACK at the end of a slice: a host task that has its core to
 * itself (no sibling runs host work) moves beside host work elsewhere,
 * if an idle PU there allows it, and frees its core.  Hogs never sleep,
 * so without this they would stay where they first woke, one per core.
 * Returns the PU claimed for it (only if @claim), or -1: it stays.
 */
static s32 host_pack_move(struct task_struct *p, bool claim)
{
	struct vp_task *t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	const struct cpumask *idle;
	s32 cpu = scx_bpf_task_cpu(p);
	bool alone;

	if (!feat(VP_SCX_FEAT_HOST_PACK) || !t || t->vcpu || migration_held(p))
		return -1;
	idle = scx_bpf_get_idle_cpumask();
	alone = !host_work_beside(idle, cpu);
	scx_bpf_put_idle_cpumask(idle);
	return alone ? select_host_pack(p, cpu, claim) : -1;
}

s32 VP_SCX_OP(vp_select_cpu, struct task_struct *p, s32 prev_cpu,
		   u64 wake_flags)
{
	const struct vp_scx_vcpu *v;
	struct vp_task *t;
	u32 tid = p->pid;
	bool idle = false;
	s32 cpu;

	stat_inc(VP_SCX_WAKE);
	v = bpf_map_lookup_elem(&vp_vcpus, &tid);
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (t) {
		t->vcpu = v != NULL;
		t->latency = v && (v->flags & VP_SCX_F_LATENCY);
	}
	if (v && vp_force_error)
		vp_scx_error("vp_force_error set by the loader (test hook), tid %d",
			     p->pid);
	if (v && vcpu_sane(v))
		return select_vcpu(p, t, prev_cpu, v);
	if (v)
		stat_inc(VP_SCX_BAD_INPUT);
	/* not a vCPU (or a bad entry) */
	stat_inc(VP_SCX_WAKE_UNMANAGED);
	cpu = select_host_pack(p, prev_cpu, true);
	if (cpu >= 0) {
		stat_inc(VP_SCX_HOST_PACKED);
		idle = true;
	} else {
		/* sched_ext's own idle-core-first pick */
		cpu = scx_bpf_select_cpu_dfl(p, prev_cpu, wake_flags, &idle);
	}
	if (idle) {
		note_claim(cpu, t, false);
		stat_inc(VP_SCX_DIRECT);
		vp_dsq_insert(p, VP_DSQ_LOCAL, VP_SLICE_MAX, 0);
	}
	return cpu;
}

/*
 * cgroup cpu.weight (needs a kernel with CONFIG_EXT_GROUP_SCHED: the
 * loader sets vp_cg_on and keeps the cgroup ops only when the running
 * kernel's sched_ext_ops has them; otherwise this code is never
 * verified, let alone run).
 *
 * Fairness is one vtime for every task, and a task's vtime advances by
 * its run time over its effective weight.  Without cgroups that weight is
 * p->scx.weight (nice), so 64 busy threads of one VM get 64 times the CPU
 * of one host daemon, whatever libvirt wrote into cpu.weight.  CFS
 * instead splits a parent's share among its busy children by their
 * weights, level by level.  The same split is had here by scaling each
 * task's charge: for a task in cgroup c below the root,
 *
 *   charge = runtime * 100 / w_task * prod over c and its ancestors a
 *            below the root of (busy(a) / w_a)
 *
 * where w_a is a's cpu.weight and busy(a) the sum of the weights of
 * what is runnable directly under a: its runnable tasks (p->scx.weight)
 * and its child cgroups that have a runnable task somewhere below.  The
 * tasks of a cgroup then together advance as fast as one task of weight
 * w_a would at a's level, so the group gets w_a's share of its parent,
 * however many threads it runs: 4 busy threads in a group of weight 100
 * are charged 4x their run time each and 1 in a group of weight 300
 * 1/3x, so the second group gets 3/4 of a PU the two contend for.  A task
 * directly in the root is charged as before (runtime * 100 / w_task):
 * the root's own sum is never needed, which keeps its entry out of every
 * wake-up and sleep of the host.
 *
 * busy(a) is kept up to date where tasks become runnable and stop being
 * so (ops.runnable, ops.quiescent, which the kernel also calls around a
 * move to another cgroup), walking up only while a cgroup turns busy or
 * idle; each cgroup's sums change under its own lock, one level at a
 * time, so concurrent walks on other CPUs add up exactly.  Depth is
 * bounded (VP_CG_MAX_DEPTH): levels further up are not counted.
 */
const volatile bool vp_cg_on;	/* the loader's: the kernel has the ops */

#define VP_CG_MAX		16384	/* cgroups tracked; more are not */
#define VP_CG_MAX_DEPTH		16	/* levels below the root walked */
#define VP_CG_WEIGHT_DFL	100	/* CGROUP_WEIGHT_DFL */
/* a charge is at most this (about 5 hours): no product overflows */
#define VP_CG_CHARGE_MAX	(1ULL << 44)

struct vp_cg {
	struct bpf_spin_lock lock;
	u32 weight;		/* cpu.weight, 1..10000 */
	u32 counted;		/* the weight its parent's busy holds for it
				 * while it is busy (0 while idle) */
	u64 parent;		/* its parent's id; 0: a child of the root */
	s64 nr;			/* runnable tasks and busy children directly
				 * under it: busy while > 0 */
	s64 busy;		/* their weights, summed */
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, VP_CG_MAX);
	__type(key, u64);
	__type(value, struct vp_cg);
} vp_cgs SEC(".maps");

/*
 * The id of @p's cgroup for the cpu controller (its task group), 0 for
 * the root or an autogroup, which the root's share covers.  Read here,
 * not asked of scx_bpf_task_cgroup(): no reference to take and drop at
 * every wake-up.
 */
static u64 task_cg_id(struct task_struct *p)
{
	struct task_group *tg = p->sched_task_group;
	struct cgroup *cgrp;

	if (!tg)
		return 0;
	cgrp = tg->css.cgroup;
	if (!cgrp || cgrp->level <= 0)
		return 0;
	return cgrp->kn->id;
}

/*
 * One level of a busy/idle walk: @dw is added to @id's busy sum and @dn
 * to its count.  Returns the weight to add (dn > 0) or take (dn < 0) at
 * the parent when @id turned busy or idle with it, else 0, and the
 * parent's id in @parent.
 */
static s64 cg_level(u64 id, s64 dw, s64 dn, u64 *parent)
{
	struct vp_cg *cg = bpf_map_lookup_elem(&vp_cgs, &id);
	s64 up = 0;

	if (!cg)
		return 0;
	bpf_spin_lock(&cg->lock);
	cg->busy += dw;
	cg->nr += dn;
	if (dn > 0 && cg->nr == dn) {
		cg->counted = cg->weight;
		up = cg->counted;
	} else if (dn < 0 && cg->nr <= 0) {
		up = -(s64)cg->counted;
		cg->counted = 0;
		/* never below 0: an entry made while the task ran (a full
		 * table then) has nothing of it to take back */
		cg->nr = 0;
		cg->busy = 0;
	}
	bpf_spin_unlock(&cg->lock);
	*parent = cg->parent;
	return up;
}

/* @w of a task becomes runnable (@dn 1) or stops being so (-1) in @id. */
static void cg_walk(u64 id, s64 w, s64 dn)
{
	u32 i;

	bpf_for(i, 0, VP_CG_MAX_DEPTH) {
		u64 parent = 0;

		if (!id)
			break;
		w = cg_level(id, dn > 0 ? w : -w, dn, &parent);
		if (!w)
			break;
		if (w < 0)
			w = -w;
		id = parent;
	}
}

/* @ran_ns of @p's run as vtime: over its weight, and its groups' shares. */
static u64 vtime_charge(struct task_struct *p, const struct vp_task *t,
			u64 ran_ns)
{
	u64 x = ran_ns * 100 / p->scx.weight, id = t->cg_id;
	u32 i;

	if (!vp_cg_on)
		return x;
	bpf_for(i, 0, VP_CG_MAX_DEPTH) {
		struct vp_cg *cg;
		s64 busy;

		if (!id)
			break;
		cg = bpf_map_lookup_elem(&vp_cgs, &id);
		if (!cg)
			break;
		/* read without the lock: a moment's value is enough */
		busy = *(volatile s64 *)&cg->busy;
		if (busy > 0 && cg->weight)
			x = x * (u64)busy / cg->weight;
		if (x > VP_CG_CHARGE_MAX)
			x = VP_CG_CHARGE_MAX;
		id = cg->parent;
	}
	return x ? x : 1;
}

void VP_SCX_OP(vp_runnable, struct task_struct *p, u64 enq_flags)
{
	struct vp_task *t;

	if (!vp_cg_on)
		return;
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (!t)
		return;
	t->cg_id = task_cg_id(p);
	t->cg_w = p->scx.weight;
	cg_walk(t->cg_id, t->cg_w, 1);
}

void VP_SCX_OP(vp_quiescent, struct task_struct *p, u64 deq_flags)
{
	struct vp_task *t;

	if (!vp_cg_on)
		return;
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (!t || !t->cg_id)
		return;
	cg_walk(t->cg_id, t->cg_w, -1);
	t->cg_id = 0;
}

/*
 * A cgroup appears (or every one, at load): its entry, idle.  The root
 * has none (see above).  A full table is no error, which would fail the
 * cgroup's creation or the load: its tasks are charged as if the cgroup
 * were not there, and the count says so.
 */
s32 VP_SCX_OP(vp_cgroup_init, struct cgroup *cgrp,
	      struct scx_cgroup_init_args *args)
{
	struct vp_cg cg = { .weight = args->weight };
	struct cgroup *parent;
	u64 id = cgrp->kn->id;

	if (cgrp->level <= 0)
		return 0;
	parent = cgrp->self.parent ? cgrp->self.parent->cgroup : NULL;
	if (parent && parent->level > 0)
		cg.parent = parent->kn->id;
	if (bpf_map_update_elem(&vp_cgs, &id, &cg, BPF_NOEXIST))
		stat_inc(VP_SCX_CG_UNTRACKED);
	return 0;
}

void VP_SCX_OP(vp_cgroup_exit, struct cgroup *cgrp)
{
	u64 id = cgrp->kn->id;

	bpf_map_delete_elem(&vp_cgs, &id);
}

/*
 * cpu.weight changed: a busy cgroup's parent holds the old weight in its
 * sum, and gets the difference (each level under its own lock, so a walk
 * that turns the cgroup idle at the same moment takes away exactly what
 * was added).
 */
void VP_SCX_OP(vp_cgroup_set_weight, struct cgroup *cgrp, u32 weight)
{
	u64 id = cgrp->kn->id, parent = 0;
	struct vp_cg *cg = bpf_map_lookup_elem(&vp_cgs, &id);
	s64 delta = 0;

	if (!cg)
		return;
	bpf_spin_lock(&cg->lock);
	cg->weight = weight;
	if (cg->nr > 0) {
		delta = (s64)weight - cg->counted;
		cg->counted = weight;
	}
	parent = cg->parent;
	bpf_spin_unlock(&cg->lock);
	if (delta && parent)
		cg_level(parent, delta, 0, &parent);
}

static bool vtime_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/*
 * SCX_ENQ_LAST: @p's slice ran out with nothing else to run on its PU,
 * and ops.dispatch did not renew it because HOST_PACK had a PU for it
 * (vp_dispatch()).  It moves there, and its PU idles.  If that PU is gone
 * meanwhile, it stays: in the local DSQ of its PU, which is then kicked,
 * because 6.12 ext.c leaves the follow-up to the scheduler (the comment
 * on SCX_ENQ_LAST: "A scheduler that wants a full dispatch cycle on the
 * CPU should kick it"), and a PU that idles with a task in its local DSQ
 * stalls it.
 */
static void enqueue_last(struct task_struct *p, u64 enq_flags)
{
	s32 cpu = host_pack_move(p, true);

	/* checked again where the verdict is given: never LOCAL_ON a task
	 * that cannot go there */
	if (cpu >= 0 && local_on_ok(p, cpu)) {
		note_claim(cpu, bpf_task_storage_get(&vp_task_store, p, 0, 0),
			   false);
		stat_inc(VP_SCX_HOST_MOVED);
		vp_dsq_insert(p, VP_DSQ_LOCAL_ON | cpu, VP_SLICE_MAX,
			      enq_flags);
		scx_bpf_kick_cpu(cpu, VP_KICK_IDLE);
		return;
	}
	/* claimed but unusable: woken, it idles again and its idle bit
	 * comes back for the next waker */
	if (cpu >= 0)
		scx_bpf_kick_cpu(cpu, VP_KICK_IDLE);
	stat_inc(VP_SCX_KEPT);
	vp_dsq_insert(p, VP_DSQ_LOCAL, VP_SLICE_MAX, enq_flags);
	scx_bpf_kick_cpu(scx_bpf_task_cpu(p), 0);
}

/*
 * 6.12 select_task_rq() calls ops.select_cpu only for a task that may
 * run on more than one CPU (nr_cpus_allowed > 1, migration enabled), so a
 * vCPU pinned to one PU wakes straight into ops.enqueue.  Whether it is a
 * managed vCPU is noted here then, as vp_select_cpu() does for the rest:
 * else ops.running would record it as host work, and HOST_PACK would pack
 * host tasks beside it.
 */
static void note_pinned_vcpu(struct task_struct *p, u64 enq_flags)
{
	const struct vp_scx_vcpu *v;
	struct vp_task *t;
	u32 tid = p->pid;

	if (!(enq_flags & VP_ENQ_WAKEUP) || p->nr_cpus_allowed != 1)
		return;
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (!t)
		return;
	v = bpf_map_lookup_elem(&vp_vcpus, &tid);
	t->vcpu = v != NULL;
	t->latency = v && (v->flags & VP_SCX_F_LATENCY);
}

/*
 * A wake-up that must not wait behind the slice running on its PU (the
 * one ops.select_cpu chose, or its only one): a per-CPU kthread, whose
 * work (timers, RCU, softirqs, per-CPU workqueues) can run nowhere else,
 * so host work is never held up by a vCPU's slice; and a latency vCPU,
 * unless what runs there is urgent too.  It goes straight to the local
 * DSQ of its PU and preempts (SCX_ENQ_PREEMPT ends the current slice);
 * the preempted task goes through the queue by its vtime.  Only a
 * wake-up: at a slice end a busy kthread is queued like any task, or it
 * would take its PU for good.
 */
static bool enqueue_urgent(struct task_struct *p, u64 enq_flags)
{
	struct vp_task *t;
	s32 cpu;

	if (!(enq_flags & VP_ENQ_WAKEUP))
		return false;
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (pcpu_kthread(p)) {
		if (t)
			t->kthread_wake = true;
		stat_inc(VP_SCX_KTHREAD);
		vp_dsq_insert(p, VP_DSQ_LOCAL, VP_SLICE_KTHREAD,
			      enq_flags | VP_ENQ_PREEMPT);
		return true;
	}
	cpu = scx_bpf_task_cpu(p);
	if (!t || !t->latency || cpu_urgent(cpu))
		return false;
	stat_inc(VP_SCX_LAT_PREEMPT);
	vp_dsq_insert(p, VP_DSQ_LOCAL, slice_for(cpu),
		      enq_flags | VP_ENQ_PREEMPT);
	return true;
}

/*
 * The queue @p waits in when it found no idle PU: the queue of the one
 * CPU it may run on (pinned, a per-CPU kthread: no other PU should walk
 * past it) or of the waker's CPU JOIN_WAKER chose, else its LLC's queue
 * at @cpu, where select_cpu left it; before the daemon has described
 * @cpu, the shared queue.
 *
 * Not a task that merely has migration disabled: from ops.enqueue the
 * count cannot be told from the BPF programs' own when they nest (6.12's
 * scx_bpf_reenqueue_local() runs ops.enqueue inside ops.cpu_release, two
 * migrate_disable()s deep), and scx_progress's preempted spinner, sent
 * to its own CPU's queue so, waited there the whole second an RT task
 * held that CPU.  In an LLC's queue such a task is safe: another CPU's
 * consume skips it (task_can_run_on_remote_rq() without an error), and
 * its own CPU takes it.
 */
static u64 queue_of(struct task_struct *p, s32 cpu, bool *own_cpu)
{
	struct vp_task *t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	const struct vp_scx_pu *pu;

	*own_cpu = p->nr_cpus_allowed == 1;
	/* JOIN_WAKER: the waker's PU (select_cpu returned it), once */
	if (t && t->join_waker) {
		t->join_waker = false;
		*own_cpu = true;
	}
	if (*own_cpu)
		return VP_SCX_DSQ_CPU(cpu);
	pu = pu_of(cpu);
	if (!pu || !pu->valid)
		return VP_SCX_DSQ_SHARED;
	return VP_SCX_DSQ_LLC(pu->llc_dom);
}

/*
 * A task queued by its slice end waits to resume on the CPU it ran on
 * (take_due()); a wake-up, or a task a higher class pushed off its CPU
 * (REENQ), goes to whichever PU takes it first.  Only for what goes
 * into a queue: a task sent to a local DSQ runs next there, and
 * ops.running clears the mark.
 */
static void mark_resume(struct task_struct *p, s32 cpu, u64 enq_flags)
{
	struct vp_task *t = bpf_task_storage_get(&vp_task_store, p, 0, 0);

	if (t)
		t->resume_on = enq_flags & (VP_ENQ_WAKEUP | VP_ENQ_REENQ) ?
			       0 : cpu + 1;
}

void VP_SCX_OP(vp_enqueue, struct task_struct *p, u64 enq_flags)
{
	u64 vtime = p->scx.dsq_vtime;
	s32 cpu = scx_bpf_task_cpu(p);
	bool own_cpu;
	u64 dsq;

	note_pinned_vcpu(p, enq_flags);
	if (enq_flags & VP_ENQ_LAST) {
		enqueue_last(p, enq_flags);
		return;
	}
	if (enqueue_urgent(p, enq_flags))
		return;
	/*
	 * Anything else that is not a wake-up (a slice that ran out while
	 * another task waited, which ops.dispatch has just taken) goes
	 * through a queue by its vtime: a task that keeps its PU never
	 * comes here (vp_dispatch() renews its slice).
	 */
	mark_resume(p, cpu, enq_flags);
	dsq = queue_of(p, cpu, &own_cpu);
	stat_inc(own_cpu ? VP_SCX_QUEUED_CPU : VP_SCX_QUEUED);
	/* a sleeper banks at most one slice of credit */
	if (vtime_before(vtime, vtime_now - VP_SLICE_DFL))
		vtime = vtime_now - VP_SLICE_DFL;
	vp_dsq_insert_vtime(p, dsq, VP_SLICE_MAX, vtime, enq_flags);
	/*
	 * At a slice end its own PU dispatches next anyway: no PU to wake
	 * for it.  Not so for a wake-up, nor for a task vp_cpu_release()
	 * sends back from a PU a higher class has taken.
	 */
	if (!(enq_flags & (VP_ENQ_WAKEUP | VP_ENQ_REENQ)))
		return;
	/* its own CPU's queue: that CPU, if it idles, and no other */
	if (own_cpu) {
		scx_bpf_kick_cpu(cpu, VP_KICK_IDLE);
		return;
	}
	/*
	 * An idle PU sleeps until something wakes it: without a kick the task
	 * would wait for a busy PU's slice to end while a PU of its allowed
	 * set idles.  A whole idle core first, so the queue is not drained
	 * onto a busy core's sibling.  The PU picked is claimed, so two
	 * enqueues do not kick the same one; in another LLC, it takes the
	 * task from this LLC's queue (vp_dispatch()).
	 */
	cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, VP_PICK_IDLE_CORE);
	if (cpu < 0)
		cpu = scx_bpf_pick_idle_cpu(p->cpus_ptr, 0);
	if (cpu >= 0) {
		stat_inc(VP_SCX_KICK_IDLE);
		scx_bpf_kick_cpu(cpu, VP_KICK_IDLE);
	}
}

/* The vtime of the first task of @dsq, if it has one. */
static bool head_vtime(u64 dsq, u64 *ret)
{
	struct task_struct *p;

	bpf_for_each(scx_dsq, p, dsq, 0) {
		*ret = p->scx.dsq_vtime;
		return true;
	}
	return false;
}

/*
 * This PU's own two queues, its CPU's and its LLC's: the one whose head
 * is earlier first (vtime order across both), then the other.  A move
 * takes the first task this PU may run, which need not be the head.
 * Both are always tried: the peek only orders them (a queue may fill
 * between the peek and the move, and a move from an empty queue reads
 * its count without the lock).
 */
static bool take_own(s32 cpu, const struct vp_scx_pu *pu)
{
	u64 cq = VP_SCX_DSQ_CPU(cpu), lq = VP_SCX_DSQ_LLC(pu->llc_dom);
	u64 cv = 0, lv = 0;
	bool c = head_vtime(cq, &cv), l = head_vtime(lq, &lv);
	bool cpu_first = c && (!l || vtime_before(cv, lv));

	if (vp_dsq_move_to_local(cpu_first ? cq : lq))
		return true;
	return vp_dsq_move_to_local(cpu_first ? lq : cq);
}

/*
 * Nothing of its own: a task of another LLC's queue that may run here,
 * the nearest LLC id first (the daemon numbers LLCs in topology order,
 * so a package's LLCs are neighbours).  An empty queue is passed over
 * without its lock (scx_bpf_dsq_nr_queued()).
 */
static bool steal(const struct vp_scx_pu *pu)
{
	u32 i, k, n = pu->nllcs, own;

	if (pu->llc_dom < pu->llc_first)
		return false;
	own = pu->llc_dom - pu->llc_first;
	bpf_for(i, 1, VP_SCX_MAX_STEAL) {
		u64 dsq;

		if (i >= n)
			break;
		k = own + i;
		if (k >= n)
			k -= n;
		dsq = VP_SCX_DSQ_LLC(pu->llc_first + k);
		if (scx_bpf_dsq_nr_queued(dsq) > 0 &&
		    vp_dsq_move_to_local(dsq)) {
			stat_inc(VP_SCX_STOLEN);
			return true;
		}
	}
	return false;
}

/*
 * Per CPU: 1 while a higher class (RT, deadline, stop) holds it, from
 * ops.cpu_release to ops.cpu_acquire.  Its own queue (VP_SCX_DSQ_CPU) is
 * drained by it alone, and may hold a task that can run elsewhere: one
 * JOIN_WAKER queued behind its waker, which the RT task then preempted.
 * scx_bpf_reenqueue_local() reaches only the local DSQ, and ops.cpu_release
 * may not move tasks between DSQs, so the PUs of its LLC take such a task
 * instead (take_released()).  nr_released gates their walk: 0 on a host
 * whose higher classes leave sched_ext's PUs alone.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
	__uint(max_entries, VP_SCX_MAX_CPUS);
} vp_cpu_released SEC(".maps");

static u32 nr_released;

static u32 *released_of(s32 cpu)
{
	u32 key = cpu;

	if (cpu < 0 || cpu >= VP_SCX_MAX_CPUS)
		return NULL;
	return bpf_map_lookup_elem(&vp_cpu_released, &key);
}

/*
 * A task of the queue of a PU of this LLC that a higher class holds.  The
 * move skips what may run only there (pinned tasks, per-CPU kthreads:
 * 6.12 consume_dispatch_q() passes over a task that cannot run on this
 * PU), so those wait for their PU, as they must.
 */
static bool take_released(s32 cpu, const struct vp_scx_pu *pu)
{
	const struct vp_scx_dom *d;
	u32 i, n, *rel;
	s32 c;

	if (!*(volatile u32 *)&nr_released)
		return false;
	d = dom_of(pu->llc_dom);
	if (!d)
		return false;
	n = d->ncpus;
	bpf_for(i, 0, VP_SCX_DOM_CPUS) {
		if (i >= n)
			break;
		c = d->cpu[i];
		if (c == cpu || !(rel = released_of(c)) || !*rel)
			continue;
		if (scx_bpf_dsq_nr_queued(VP_SCX_DSQ_CPU(c)) > 0 &&
		    vp_dsq_move_to_local(VP_SCX_DSQ_CPU(c))) {
			stat_inc(VP_SCX_TAKEN_RELEASED);
			return true;
		}
	}
	return false;
}

/*
 * A task stranded in the queue of a PU a higher class holds, before
 * anything else, @prev included: no other path reaches it, and
 * vp_cpu_release() may have preempted this PU for it.  Before this ran
 * first, a PU reached it only when its prev did not go on and its own
 * queues were empty, and scx_join saw a partner wait all 900 ms of the
 * RT task's hold, once in about 20 boots.
 */
static bool take_stranded(s32 cpu)
{
	const struct vp_scx_pu *pu = pu_of(cpu);

	return pu && pu->valid && take_released(cpu, pu);
}

/* A task this PU may run, from any queue: its own first. */
static bool take_any(s32 cpu)
{
	const struct vp_scx_pu *pu = pu_of(cpu);

	/* not described by the daemon yet: no LLC to take from */
	if (!pu || !pu->valid)
		return vp_dsq_move_to_local(VP_SCX_DSQ_CPU(cpu)) ||
		       vp_dsq_move_to_local(VP_SCX_DSQ_SHARED);
	/* the shared queue: what woke before the daemon described a CPU */
	return take_own(cpu, pu) ||
	       vp_dsq_move_to_local(VP_SCX_DSQ_SHARED) || steal(pu);
}

/*
 * Directed yield.  KVM calls yield_to() for a vCPU that spins on a lock
 * whose holder is preempted (kvm_vcpu_on_spin(), from pause-loop exits)
 * and for the guest's PV sched-yield hypercall (kvm_sched_yield()):
 * "run this vCPU of my VM instead of me".  6.12 yield_to_task_scx()
 * returns false without ops.yield, so the spinner just spins on.  Here
 * the yielder's turn ends (slice 0, so yield_to() schedules) and its PU
 * takes the named vCPU first (take_yield_target() from vp_dispatch()):
 * the lock holder runs in the spinner's place, as CFS's next buddy
 * (yield_to_task_fair()) would have it.  Only between vCPUs of one VM;
 * anything else is refused (false), as without the op.  Per CPU: the pid
 * of the task the vCPU running there yielded to, 0: none.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(key_size, sizeof(u32));
	__uint(value_size, sizeof(u32));
	__uint(max_entries, VP_SCX_MAX_CPUS);
} vp_yield_to SEC(".maps");

/* Queue entries a PU looks through for the vCPU yielded to, at most. */
#define YIELD_SCAN	64

/* @a and @b are managed vCPUs of the same VM. */
static bool same_vm(struct task_struct *a, struct task_struct *b)
{
	u32 ta = a->pid, tb = b->pid;
	const struct vp_scx_vcpu *va = bpf_map_lookup_elem(&vp_vcpus, &ta);
	const struct vp_scx_vcpu *vb = bpf_map_lookup_elem(&vp_vcpus, &tb);

	return va && vb && va->vm == vb->vm;
}

bool VP_SCX_OP(vp_yield, struct task_struct *from, struct task_struct *to)
{
	u32 cpu = bpf_get_smp_processor_id();
	u32 *slot;

	/* sched_yield(): others first, as sched_ext does without the op */
	if (!to) {
		from->scx.slice = 0;
		return false;
	}
	if (!feat(VP_SCX_FEAT_YIELD_TO) || !same_vm(from, to))
		return false;
	slot = bpf_map_lookup_elem(&vp_yield_to, &cpu);
	if (!slot)
		return false;
	*slot = to->pid;
	from->scx.slice = 0;
	stat_inc(VP_SCX_YIELD_TO);
	return true;
}

/*
 * The vCPU the task that ran here last yielded to, moved from @dsq to
 * this PU's local DSQ if it waits there and may run here.
 */
static bool yield_take_from(s32 cpu, u64 dsq, u32 pid)
{
	struct task_struct *p;
	u32 n = 0;

	bpf_for_each(scx_dsq, p, dsq, 0) {
		if (++n > YIELD_SCAN)
			break;
		if ((u32)p->pid != pid)
			continue;
		if (!bpf_cpumask_test_cpu(cpu, p->cpus_ptr) ||
		    migration_held(p))
			return false;
		return vp_dsq_move(BPF_FOR_EACH_ITER, p, VP_DSQ_LOCAL, 0);
	}
	return false;
}

/*
 * ops.dispatch after a directed yield on this PU: the target, from this
 * PU's own queue (pinned vCPUs) or its LLC's.  Elsewhere (another LLC's
 * queue, a local DSQ, already running) it is left where it is: yield_to()
 * has rescheduled its PU, and this PU goes on as usual.
 */
static bool take_yield_target(s32 cpu)
{
	const struct vp_scx_pu *pu;
	u32 key = cpu, pid, *slot = bpf_map_lookup_elem(&vp_yield_to, &key);

	if (!slot || !*slot)
		return false;
	pid = *slot;
	*slot = 0;
	pu = pu_of(cpu);
	if (yield_take_from(cpu, VP_SCX_DSQ_CPU(cpu), pid) ||
	    (pu && pu->valid &&
	     yield_take_from(cpu, VP_SCX_DSQ_LLC(pu->llc_dom), pid))) {
		stat_inc(VP_SCX_YIELD_MOVED);
		return true;
	}
	return false;
}

/*
 * Preempted tasks resume where they ran.  A task whose slice ran out
 * while others waited goes back to its queue marked with its CPU
 * (mark_resume()).  Any PU of the queue could take it, but that move is
 * a migration (its caches; for a vCPU the VMCS reload and the TLB and EPT
 * refill) that buys nothing while every PU is busy: some task waits
 * either way.  So the other PUs pass it over: at their own slice ends
 * while their task is less than VP_SCX_RESUME_LAG_NS ahead of it by vtime,
 * and, about to idle, in a first pass (take_due()), so that a wake-up
 * behind it goes first.  Its own CPU takes it at its next slice end, by
 * vtime as ever.  VP_SCX_RESUME_LAG_NS bounds what that costs fairness:
 * a PU's own task runs on while another waits at most that far behind
 * it.  Its own PU's next slice end comes within the longest slice and a
 * tick (4 ms at HZ 250): two VP_SLICE_MAX cover both.  (On the tuning
 * set, 5, 10 and 20 ms cut migrations alike: bench/README.md.)  Before this, hogs rotated over all of
 * their LLC's PUs at every slice end: 2.6 to 9.5 migrations per wake-up
 * in the simulator, against stock's 0.3 to 0.5 (bench/README.md).
 */
static bool held_elsewhere(struct task_struct *p, s32 cpu, bool have_prev,
			   u64 v)
{
	struct vp_task *t = bpf_task_storage_get(&vp_task_store, p, 0, 0);

	if (!feat(VP_SCX_FEAT_RESUME_PREV) || !t || !t->resume_on ||
	    t->resume_on == cpu + 1)
		return false;
	return !have_prev ||
	       vtime_before(v, p->scx.dsq_vtime +
				  *(volatile __u64 *)&vp_resume_lag_ns);
}

/* @p, queued, may be moved to @cpu's local DSQ. */
static bool runs_here(struct task_struct *p, s32 cpu)
{
	return bpf_cpumask_test_cpu(cpu, p->cpus_ptr) &&
	       (scx_bpf_task_cpu(p) == cpu || !migration_held(p));
}

/* What take_due() looks for, in each queue it reads. */
struct vp_due_scan {
	s32 cpu;		/* this PU */
	bool have_prev;		/* its task runs on unless one is due first */
	bool prev_latency;	/* ... a latency-profile vCPU */
	bool held;		/* a task was passed over as held_elsewhere() */
	u64 v;			/* prev's vtime, charged up to now */
	u64 lead;		/* lat_leads()'s bound: vp_lat_lead_ns */
};

/*
 * Latency-profile vCPUs go first at slice ends.  Their wake-ups preempt
 * (enqueue_urgent()), but one that waits in a queue all the same (it was
 * preempted itself, its slice ran out, or a latency vCPU ran on its PU)
 * would wait its turn by vtime: behind every task of its queue that ran
 * less, slice after slice.  So queued @p, later by vtime than prev, is
 * due before it all the same when @p is a latency vCPU, prev is not one,
 * and @p is at most VP_SCX_LAT_LEAD_NS later (vp_lat_lead_ns).  The
 * bound keeps the profile a matter of order, not of share: a latency
 * vCPU that keeps its PU busy runs at most that far ahead of its fair
 * share, then waits its turn like any task.  (In the simulator, on the
 * tuning set, the latency VMs' p99 against stock's went from 0.501 to
 * 0.460, with bounds of 2.5 to 20 ms 0.460 to 0.490: bench/README.md.)
 * due_in() has already stopped at the first task past that bound, which
 * with a latency prev is the first one later than prev: what is left to
 * ask of @p is whether it is a latency vCPU.
 */
static bool lat_leads(struct task_struct *p)
{
	struct vp_task *t = bpf_task_storage_get(&vp_task_store, p, 0, 0);

	return t && t->latency;
}

/*
 * The first task of @dsq, in vtime order, that this PU should run: one it
 * may run, not held_elsewhere() and, with a prev, not later than prev's
 * vtime unless lat_leads().  At most VP_SCX_RESUME_SCAN are read.
 * *@vt: its vtime; with @take it is moved to the local DSQ too, and the result says whether
 * the move happened.
 * The walk is a bounded bpf_for() that steps the DSQ's iterator itself,
 * not bpf_for_each() with a count: the verifier then sees every pass
 * alike, where a count it must track apart made it walk each pass anew
 * (vp_dispatch() passed its million instructions).
 */
static bool due_in(u64 dsq, struct vp_due_scan *sc, bool take, u64 *vt)
{
	struct bpf_iter_scx_dsq it;
	struct task_struct *p;
	bool found = false;
	u32 i;

	if (bpf_iter_scx_dsq_new(&it, dsq, 0)) {
		bpf_iter_scx_dsq_destroy(&it);
		return false;
	}
	bpf_for(i, 0, VP_SCX_RESUME_SCAN) {
		p = bpf_iter_scx_dsq_next(&it);
		/* vtime order: past the latency lead, the rest are later
		 * still (a tie goes to the queue) */
		if (!p || (sc->have_prev &&
			   vtime_before(sc->v + (sc->prev_latency ? 0 :
						 sc->lead),
					p->scx.dsq_vtime)))
			break;
		if (sc->have_prev && vtime_before(sc->v, p->scx.dsq_vtime) &&
		    !lat_leads(p))
			continue;
		if (!runs_here(p, sc->cpu))
			continue;
		if (held_elsewhere(p, sc->cpu, sc->have_prev, sc->v)) {
			sc->held = true;
			continue;
		}
		*vt = p->scx.dsq_vtime;
		found = !take || vp_dsq_move(&it, p, VP_DSQ_LOCAL, 0);
		break;
	}
	bpf_iter_scx_dsq_destroy(&it);
	return found;
}

enum vp_due {
	VP_DUE_TAKEN,		/* a task due here moved to the local DSQ */
	VP_DUE_PREV,		/* its own queues wait, nothing due before prev */
	VP_DUE_NONE,		/* nothing due here in its own queues */
};

/*
 * What this PU runs next from its own two queues, its CPU's and its
 * LLC's: of their first tasks due here (due_in()), the earlier; @prev,
 * whose slice ran out, if it is runnable and nothing is due before it.
 * @prev's vtime counts the charge ops.stopping will add for the run so
 * far (vtime_charge()).  That prev runs on while it is earliest is vtime
 * fairness: without it, a task could never run two slices in a row while
 * others waited, and a group of weight 300 with one thread got one slice
 * in two beside four threads of a group of weight 100, not three in four
 * (scx_weight measured 0.98x for 3x).
 */
static enum vp_due take_due(s32 cpu, struct task_struct *prev)
{
	const struct vp_scx_pu *pu = pu_of(cpu);
	struct vp_due_scan sc = { .cpu = cpu };
	u64 cq, lq, cv = 0, lv = 0, first, other, now;
	struct vp_task *t;
	bool c, l;

	if (!pu || !pu->valid)
		return VP_DUE_NONE;
	cq = VP_SCX_DSQ_CPU(cpu);
	lq = VP_SCX_DSQ_LLC(pu->llc_dom);
	if (!scx_bpf_dsq_nr_queued(cq) && !scx_bpf_dsq_nr_queued(lq))
		return VP_DUE_NONE;
	if (prev && (prev->scx.flags & VP_TASK_QUEUED)) {
		sc.have_prev = true;
		sc.v = prev->scx.dsq_vtime;
		t = bpf_task_storage_get(&vp_task_store, prev, 0, 0);
		now = bpf_ktime_get_ns();
		if (t && t->ran_at && now > t->ran_at)
			sc.v += vtime_charge(prev, t, now - t->ran_at);
		sc.prev_latency = t && t->latency;
		sc.lead = *(volatile __u64 *)&vp_lat_lead_ns;
	}
	c = due_in(cq, &sc, false, &cv);
	l = due_in(lq, &sc, false, &lv);
	if (c || l) {
		first = c && (!l || vtime_before(cv, lv)) ? cq : lq;
		other = first == cq ? lq : cq;
		/* the queues may have moved since: their first due task now */
		if (due_in(first, &sc, true, &cv) ||
		    ((first == cq ? l : c) && due_in(other, &sc, true, &cv))) {
			if (sc.have_prev && vtime_before(sc.v, cv))
				stat_inc(VP_SCX_LAT_FIRST);
			return VP_DUE_TAKEN;
		}
	}
	if (!sc.have_prev)
		return VP_DUE_NONE;
	if (sc.held && !c && !l)
		stat_inc(VP_SCX_RESUME_HELD);
	return VP_DUE_PREV;
}

/*
 * @prev's slice ran out (6.12 balance_one() calls ops.dispatch only then,
 * or when prev is not runnable).  A task of this PU's own queues due
 * before a runnable @prev goes first (take_due()); else a runnable @prev
 * runs on.  With nothing queued of its own, a PU about to idle, or whose
 * runnable @prev has nothing to wait for here, takes any task it may
 * run (take_any(), which passes over nothing: a task held for another
 * PU is taken rather than idle); with none, a runnable @prev gets a new
 * slice and runs on: balance_one() keeps a prev with slice left after
 * ops.dispatch.
 * That is the keep path, here and not in ops.enqueue: SCX_ENQ_LAST
 * would send @prev through ops.enqueue while its PU goes idle, and leave
 * it there unless the scheduler kicks the PU (6.12 ext.c's comment on
 * SCX_ENQ_LAST), also when the queue holds only tasks this PU may not
 * run.  The one exception is a lone host task HOST_PACK can move: its
 * slice stays at 0, so it comes back through enqueue_last().
 */
void VP_SCX_OP(vp_dispatch, s32 cpu, struct task_struct *prev)
{
	enum vp_due due;
	bool goes_on;
	struct vp_task *t;

	if (take_yield_target(cpu) || take_stranded(cpu))
		return;
	due = take_due(cpu, prev);
	if (due == VP_DUE_TAKEN)
		return;
	goes_on = due == VP_DUE_PREV;
	if (!goes_on && take_any(cpu))
		return;
	if (!prev || !(prev->scx.flags & VP_TASK_QUEUED))
		return;
	if (!goes_on && host_pack_move(prev, false) >= 0)
		return;
	stat_inc(VP_SCX_KEPT);
	prev->scx.slice = slice_for(cpu);
	t = bpf_task_storage_get(&vp_task_store, prev, 0, 0);
	if (t)
		t->slice_at = bpf_ktime_get_ns();
}

/*
 * The slice of the task running here ends early once it has run the
 * slice that fits the load now and others wait for this PU: the slice it
 * was given counted the waiters when it started (ops.running), and those
 * who came since would otherwise wait for it.
 */
void VP_SCX_OP(vp_tick, struct task_struct *p)
{
	u64 waiting = nr_waiting(scx_bpf_task_cpu(p));
	struct vp_task *t;

	if (!waiting)
		return;
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (!t || bpf_ktime_get_ns() - t->slice_at < slice_of(waiting))
		return;
	stat_inc(VP_SCX_SLICE_CUT);
	p->scx.slice = 0;
}

/* Whether @cpu's own queue holds a task that may run on another PU. */
static bool movable_queued(s32 cpu)
{
	struct task_struct *p;

	bpf_for_each(scx_dsq, p, VP_SCX_DSQ_CPU(cpu), 0) {
		if (p->nr_cpus_allowed > 1)
			return true;
	}
	return false;
}

/*
 * A higher class (RT, deadline, stop) took this PU: the tasks in its
 * local DSQ (prev, preempted with slice left, at the head: 6.12
 * put_prev_task_scx()) would wait for it to come back while other PUs
 * idle.  They go through ops.enqueue again (SCX_ENQ_REENQ), to their
 * queues, and an idle PU is kicked for them.  6.12 switch_class() calls
 * this once, when the PU leaves sched_ext for a higher class.
 */
void VP_SCX_OP(vp_cpu_release, s32 cpu, struct scx_cpu_release_args *args)
{
	const struct vp_scx_pu *pu = pu_of(cpu);
	const struct vp_scx_dom *d;
	u32 i, n, *rel = released_of(cpu), *crel;
	s32 c, busy = -1;

	vp_reenqueue_local();
	/*
	 * Its own queue waits for it too: mark it, for the PUs of its LLC
	 * (take_released()), and make one of them dispatch now.
	 */
	if (rel && !*rel) {
		*rel = 1;
		__sync_fetch_and_add(&nr_released, 1);
	}
	if (!pu || !pu->valid || !movable_queued(cpu) ||
	    !(d = dom_of(pu->llc_dom)))
		return;
	n = d->ncpus;
	bpf_for(i, 0, VP_SCX_DOM_CPUS) {
		if (i >= n)
			break;
		c = d->cpu[i];
		if (c == cpu)
			continue;
		/* an idle PU dispatches only when something wakes it */
		if (scx_bpf_test_and_clear_cpu_idle(c)) {
			stat_inc(VP_SCX_KICK_IDLE);
			scx_bpf_kick_cpu(c, VP_KICK_IDLE);
			return;
		}
		if (busy < 0 && !cpu_urgent(c) &&
		    (crel = released_of(c)) && !*crel)
			busy = c;
	}
	/*
	 * None idles: a busy one would take the task only at its slice's
	 * end, and single-threaded TCG stretched that past the RT task's
	 * 900 ms.  A preempt kick ends its slice now, and its dispatch
	 * takes the stranded task first (take_stranded()).  Not a PU that
	 * runs something urgent (a per-CPU kthread, a latency vCPU).
	 */
	if (busy >= 0) {
		stat_inc(VP_SCX_KICK_RELEASED);
		scx_bpf_kick_cpu(busy, VP_KICK_PREEMPT);
	}
}

/* Back from the higher class: its own queue is its own again. */
void VP_SCX_OP(vp_cpu_acquire, s32 cpu, struct scx_cpu_acquire_args *args)
{
	u32 *rel = released_of(cpu);

	if (rel && *rel) {
		*rel = 0;
		__sync_fetch_and_sub(&nr_released, 1);
	}
}

void VP_SCX_OP(vp_running, struct task_struct *p)
{
	u32 cpu = bpf_get_smp_processor_id();
	struct vp_cpu_run *r;
	struct vp_task *t;
	u32 *urgent;
	u64 now;

	/* racy across CPUs, and a lost update only delays vtime_now a bit */
	if (vtime_before(vtime_now, p->scx.dsq_vtime))
		vtime_now = p->scx.dsq_vtime;
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	r = bpf_map_lookup_elem(&vp_cpu_runs, &cpu);
	urgent = bpf_map_lookup_elem(&vp_cpu_urgent, &cpu);
	if (!t || !r || !urgent)
		return;
	/*
	 * Its slice is decided now, where it starts, from the waiters of
	 * this PU: the slice it was queued or dispatched with (VP_SLICE_MAX)
	 * counted no one.  A per-CPU kthread woken by enqueue_urgent() keeps
	 * its short one.
	 */
	*urgent = t->kthread_wake || t->latency;
	if (!t->kthread_wake)
		p->scx.slice = slice_for(cpu);
	t->kthread_wake = false;
	t->join_waker = false;
	t->resume_on = 0;
	now = bpf_ktime_get_ns();
	t->ran_at = now;
	t->slice_at = now;
	run_record_write(r, now, t->avg_run_ns, t->vcpu);
	/*
	 * A vCPU preempted inside its halt polls on where it runs again: a
	 * kernel that preempts at an interrupt's return (Debian's 7.3.4)
	 * takes its PU for a POLL_END wake-up without ending the poll, and
	 * KVM's loop, back on the PU, finds single_task_running() again.
	 * Its record, cleared by the claim and by ops.stopping, comes back,
	 * so the PU may take another wake-up; without this it stayed clear
	 * until the vCPU's next halt (scx_pollend saw both).  A vCPU woken
	 * from the sleep that ends a halt is stamped too, for the few
	 * microseconds before the exit probe clears it: a wake-up that
	 * claims it then waits behind a running vCPU, the race a claim
	 * already has with a poll that finds its own wake-up.
	 */
	if (t->in_halt)
		poll_stamp_here(now);
}

/*
 * The task running here enters (@in) or leaves kvm_vcpu_halt(), for
 * ops.running.  Every task has its storage under a full switch; one
 * without it is never marked.  A missed kretprobe keeps the mark until
 * the vCPU's next halt ends: its runs meanwhile are stamped as polls,
 * and a wake-up that claims one waits behind it, at most a slice, as
 * the stamp a missed kretprobe leaves already made it do.
 */
static void halt_mark(bool in)
{
	struct vp_task *t;

	t = bpf_task_storage_get(&vp_task_store, bpf_get_current_task_btf(),
				 0, 0);
	if (t)
		t->in_halt = in;
}

/* Whatever ran on this CPU no longer halt-polls. */
static void poll_end_here(void)
{
	u64 *since = cpu_poll_of(bpf_get_smp_processor_id());

	if (since && *since)
		*since = 0;
}

/*
 * The halt-poll probes, on KVM's generic halt (x86 HLT, arm64 WFI):
 * kvm_vcpu_halt() polls for up to the vCPU's halt_poll_ns before it
 * blocks.  Two pairs, of which the loader attaches one: a kprobe and
 * kretprobe first, fentry and fexit where kprobes are not built in.
 * Debian's 7.3.4 attaches the fentry pair without error and never runs
 * it (not in ftrace's enabled_functions, run_cnt 0 for 200 halts), where
 * a kprobe on the same function counts every halt; so fentry, though
 * cheaper, is only the fallback.  "?" leaves all four out of the load
 * unless the loader turns them on; no argument is read, so no KVM type
 * is needed.
 */
static void halt_begin(void)
{
	poll_stamp_here(bpf_ktime_get_ns());
	halt_mark(true);
	stat_inc(VP_SCX_HALT_SEEN);
}

static void halt_end(void)
{
	poll_end_here();
	halt_mark(false);
}

SEC("?kprobe/kvm_vcpu_halt")
int vp_halt_kprobe(void *ctx)
{
	halt_begin();
	return 0;
}

SEC("?kretprobe/kvm_vcpu_halt")
int vp_halt_kretprobe(void *ctx)
{
	halt_end();
	return 0;
}

SEC("?fentry/kvm_vcpu_halt")
int vp_halt_enter(u64 *ctx)
{
	halt_begin();
	return 0;
}

SEC("?fexit/kvm_vcpu_halt")
int vp_halt_exit(u64 *ctx)
{
	halt_end();
	return 0;
}

void VP_SCX_OP(vp_stopping, struct task_struct *p, bool runnable)
{
	u32 tid = p->pid;
	struct vp_task *t;
	u64 now;

	poll_end_here();
	t = bpf_task_storage_get(&vp_task_store, p, 0, 0);
	if (!t)
		return;
	now = bpf_ktime_get_ns();
	/*
	 * The time it ran, scaled by the inverse of its weight (nice) and
	 * by its cgroups' shares (vtime_charge()).  From
	 * the clock, not from what is left of its slice: slices differ
	 * (slice_for()), ops.tick may zero one, ops.dispatch renews them.
	 */
	if (t->ran_at && now > t->ran_at) {
		p->scx.dsq_vtime += vtime_charge(p, t, now - t->ran_at);
		t->avg_run_ns = (3 * t->avg_run_ns + (now - t->ran_at)) / 4;
	}
	if (!runnable && bpf_map_lookup_elem(&vp_vcpus, &tid))
		t->slept_at = now;
}

/* Every task's storage is made here, where allocating may sleep. */
s32 VP_SCX_OP(vp_init_task, struct task_struct *p,
		   struct scx_init_task_args *args)
{
	if (!bpf_task_storage_get(&vp_task_store, p, 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE))
		return -ENOMEM;
	return 0;
}

void VP_SCX_OP(vp_enable, struct task_struct *p)
{
	p->scx.dsq_vtime = vtime_now;
}

/*
 * Every queue is made here, where allocating may sleep: the shared one,
 * one per possible CPU and one per domain id (which of them are LLCs is
 * the daemon's to say, later).  -1: the queue's memory on any node.
 */
s32 VP_SCX_OP_SLEEPABLE(vp_init)
{
	u32 i, ncpus = scx_bpf_nr_cpu_ids();
	s32 err;

	if ((err = scx_bpf_create_dsq(VP_SCX_DSQ_SHARED, -1)))
		return err;
	bpf_for(i, 0, VP_SCX_MAX_CPUS) {
		if (i >= ncpus)
			break;
		if ((err = scx_bpf_create_dsq(VP_SCX_DSQ_CPU(i), -1)))
			return err;
	}
	bpf_for(i, 0, VP_SCX_MAX_DOMS) {
		if ((err = scx_bpf_create_dsq(VP_SCX_DSQ_LLC(i), -1)))
			return err;
	}
	return 0;
}

void VP_SCX_OP(vp_exit, struct scx_exit_info *ei)
{
	struct vp_scx_exit_rec *r = &vp_exit_rec;

	bpf_probe_read_kernel_str(r->reason, sizeof(r->reason), ei->reason);
	bpf_probe_read_kernel_str(r->msg, sizeof(r->msg), ei->msg);
	if (vp_exit_dump_len)
		bpf_probe_read_kernel_str(vp_exit_dump, vp_exit_dump_len,
					  ei->dump);
	r->exit_code = ei->exit_code;
	/* last, and a full barrier: a loader that sees kind sees the rest */
	__sync_lock_test_and_set(&r->kind, ei->kind);
}

/*
 * .flags is the loader's: it reads SCX_OPS_ENQ_LAST (ops.enqueue when the
 * last task of a PU runs out of slice, otherwise sched_ext refreshes its
 * slice and a lone host hog HOST_PACK would move never passes through
 * enqueue_last(); every other one vp_dispatch() keeps itself) and,
 * for partial mode, SCX_OPS_SWITCH_PARTIAL from the running kernel's BTF
 * (daemon/scx/scx_btf.c), so no flag this kernel does not know is set.
 */
VP_SCX_OPS_DEFINE(vcpuplace_ops,
	       .select_cpu	= (void *)vp_select_cpu,
	       .enqueue		= (void *)vp_enqueue,
	       .dispatch	= (void *)vp_dispatch,
	       .tick		= (void *)vp_tick,
	       .cpu_acquire	= (void *)vp_cpu_acquire,
	       .cpu_release	= (void *)vp_cpu_release,
	       .yield		= (void *)vp_yield,
	       .running		= (void *)vp_running,
	       .stopping	= (void *)vp_stopping,
	       .runnable	= (void *)vp_runnable,
	       .quiescent	= (void *)vp_quiescent,
	       .cgroup_init	= (void *)vp_cgroup_init,
	       .cgroup_exit	= (void *)vp_cgroup_exit,
	       .cgroup_set_weight = (void *)vp_cgroup_set_weight,
	       .enable		= (void *)vp_enable,
	       .init_task	= (void *)vp_init_task,
	       .init		= (void *)vp_init,
	       .exit		= (void *)vp_exit,
	       .name		= VP_SCX_NAME);
