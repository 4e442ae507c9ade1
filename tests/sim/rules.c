/*
 * rules.c - the 6.12 wake and balance rules of bench/simulator, one
 * hand-built state each, checked on the decision the rule makes (so a
 * rule taken out fails here, whatever the figures do):
 *   prev         one probe when prev is idle (wake_affine + sis)
 *   wa_weight    wake_affine() weighs PELT load, not run counts
 *   wake_wide    a waker of many, and a wakee of many, go to prev
 *   newidle      avg_idle 200 us still pulls (max_newidle_lb_cost)
 *   nohz         the tick of a CPU with two threads kicks the ILB,
 *                which pulls the queued one onto an idle CPU
 *   active       two threads running on one core's siblings, nothing
 *                queued, every other core idle: the periodic balance
 *                fails to detach, and after cache_nice_tries + 2
 *                failures the stopper pushes one of them to an idle
 *                core (need_active_balance(), active_load_balance_cpu_stop())
 *   asym         (Raptor Lake, ITMT) one thread running on an E-core,
 *                every P-core idle: the busy CPU's tick kicks the ILB
 *                (nohz_balancer_kick()'s asym check) and an idle P-core
 *                takes the thread at once (group_asym_packing,
 *                asym_active_balance())
 *   halt_len     a vCPU woken 100 us into its halt, inside its 160 us
 *                poll window, but queued behind a thread with the CPU
 *                until the tick after that thread's 3 ms request (4 ms):
 *                its halt, as kvm_vcpu_halt() times it around
 *                kvm_vcpu_block(), lasted until it ran, beyond the
 *                200 us maximum, so the window shrinks to 80 us
 *   eevdf        (6.12 EEVDF, eevdf.c) a hog holds a PU from half a
 *                millisecond after a tick; a thread woken onto it a
 *                millisecond later with positive lag (owed 1 ms)
 *                preempts it at once (place_entity() puts it before V,
 *                the hog is no longer eligible: pick_eevdf() in
 *                check_preempt_wakeup_fair()); one with zero lag waits
 *                while the hog is eligible in the request it was picked
 *                with (RUN_TO_PARITY), until the tick after that request
 *                ran out (update_deadline() from entity_tick()), not its
 *                end 0.5 ms before; the tick after its own request gives
 *                the PU back; so does a new thread, whose first request
 *                is half a slice (PLACE_DEADLINE_INITIAL) and ends
 *                before the hog's.  With --model-eevdf 0 (the FIFO, fixed
 *                3 ms slices, no wakeup preemption) both wait out the
 *                hog's slice
 *   eevdf_pick   a PU whose thread halts takes the earliest eligible
 *                deadline of its queue (pick_eevdf()), not its head
 *   sis_core     SIS_CORE: an idle prev whose sibling is busy is kept
 *                aside while a whole idle core of the allowed set is
 *                in the mask; that core is claimed (its bits cleared),
 *                stale cores met on the way are dropped, and the next
 *                wake-up, finding no idle core left, takes its prev and
 *                leaves has_idle_cores set; with the feature off
 *                (daemon) prev wins
 *   sis_core_budget  the walk spends SIS_UTIL's nr_idle_scan per CPU
 *                probed: 1 cannot take a two-thread core, 2 can
 *   sis_core_stale   a stale bit on prev's core (its sibling busy) is
 *                probed, dropped, and the whole idle core taken
 *   sis_core_stock   with no idle CPU kept aside the wake-up is stock's:
 *                the same PU after the same probes as daemon
 *   dsq_lock     (sched_ext) each DSQ has its own lock: operations
 *                on two LLCs' queues, alternating every 100 ns, wait
 *                less than the same operations on one queue, and an
 *                LLC's queue taken from another package costs a
 *                remote line (6.12 struct scx_dispatch_q.lock)
 *   scx_queues   (sched_ext) a thread that may run on one PU alone waits
 *                in that PU's queue, others in their LLC's: a PU takes
 *                the earlier head of its own two queues, its own LLC's
 *                thread before an earlier one of another LLC, and
 *                another LLC's only when its own are empty (stolen)
 *   scx_local    (sched_ext) a thread whose slice runs out while
 *                another waits in its PU's local DSQ, the shared queue
 *                empty: the waiter runs (6.12 balance_one() takes the
 *                local DSQ first) and the thread goes through
 *                vp_enqueue() to the shared queue, not kept running
 *
 *   sim-rules TOPOLOGY.xml [HYBRID.xml]   (a 2-way SMT host, e.g.
 *       g4dnmetal.xml; a hybrid with SMT P-cores for asym, e.g.
 *       Intel-RaptorLake-Corei7-1370P.xml)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "host/hwtopo.h"
#include "../../bench/simulator/costs.h"
#include "../../bench/simulator/sim.h"

static int fails;

#define EXPECT(cond, ...) do {						\
	if (!(cond)) {							\
		printf("FAIL: " __VA_ARGS__);				\
		printf("\n");						\
		fails++;						\
	}								\
} while (0)

/* @host_tasks false: none at all (--host-tasks 0), for a rule whose
 * timing a per-CPU kthread's wake-up would shift */
static void
setup_with(struct sim *s, const struct vp_topo *t, enum strategy st,
    bool host_tasks)
{
	memset(s, 0, sizeof(*s));
	s->t = t;
	params_default(&s->p);
	if (!host_tasks)
		s->p.kthread_ns = s->p.vhost_ns = s->p.iothread_ns = 0;
	features_default(&s->feat);
	policy_default(&s->policy);
	s->strat = st;
	s->wl = WL_HACKBENCH;
	if (host_init(s) < 0 || workload_create(s, 200, 1) < 0 ||
	    strategy_setup(s) < 0) {
		printf("FAIL: setup\n");
		fails++;
	}
	s->now_ns = 1000000000;
}

static void
setup_as(struct sim *s, const struct vp_topo *t, enum strategy st)
{
	setup_with(s, t, st, true);
}

static void
setup(struct sim *s, const struct vp_topo *t)
{
	setup_as(s, t, STRAT_STOCK);
}

static void
teardown(struct sim *s)
{
	host_release(s);
	free(s->th);
	free(s->vm);
	free(s->allowed);
}

/* @thi runs on @pu with PELT load @load. */
static void
put_running(struct sim *s, int thi, int pu, double load)
{
	struct sim_thread *th = &s->th[thi];

	th->state = TH_RUNNING;
	th->pu = th->last_pu = pu;
	th->load = load;
	th->load_t_ns = s->now_ns;
	s->pu[pu].cur = thi;
	s->pu[pu].speed = 1;
	s->pu[pu].slice_end_ns = s->now_ns + s->p.slice_ns;
	/* EEVDF: picked now at V, a whole request ahead */
	th->vruntime = s->pu[pu].zero_vruntime;
	th->deadline = th->vruntime + (int64_t)s->p.slice_ns;
	th->protect = true;
	s->pu[pu].exec_start_ns = s->now_ns;
	cpuset_set(&s->busy, pu);
	cpuset_set(&s->running, pu);
}

/* @thi waits in @pu's (empty) queue. */
static void
put_queued(struct sim *s, int thi, int pu)
{
	struct sim_thread *th = &s->th[thi];

	th->state = TH_QUEUED;
	th->pu = pu;
	th->next = -1;
	th->vruntime = s->pu[pu].zero_vruntime;	/* EEVDF: placed at V */
	th->deadline = th->vruntime + (int64_t)s->p.slice_ns;
	s->pu[pu].head = s->pu[pu].tail = thi;
	s->pu[pu].nq = 1;
	balance_queued(s, pu);
}

/* Every PU busy with a sleeping-load-free filler, but @skip. */
static void
fill(struct sim *s, int first_th, int skip_a, int skip_b)
{
	int pu, k = first_th;

	for (pu = 0; pu < s->t->npus; pu++)
		if (pu != skip_a && pu != skip_b && k < s->nth)
			put_running(s, k++, pu, 0);
}

static void
test_prev(const struct vp_topo *t)
{
	struct sim s;
	unsigned long probes = 0;
	int pu;

	setup(&s, t);
	/* waker on PU 0, wakee 1 slept on PU 2 (same LLC), all else idle */
	put_running(&s, 0, 0, 512);
	s.th[1].last_pu = 2;
	pu = stock_select(&s, 1, 0, &probes);
	EXPECT(pu == 2 && probes == 1, "prev: PU %d, %lu probes "
	    "(want 2, 1)", pu, probes);
	teardown(&s);
}

static void
test_wa_weight(const struct vp_topo *t, bool wide)
{
	int this = 0, prev = 2, pu;
	unsigned long probes = 0;
	struct sim s;

	setup(&s, t);
	/* the waker's CPU carries little load, prev a heavy thread; both
	 * run one thread, so run counts tie and prev would win */
	put_running(&s, 0, this, 100);
	put_running(&s, 2, prev, 1024);
	s.th[1].last_pu = prev;
	s.th[1].load = 200;
	fill(&s, 3, this, prev);
	if (wide) {
		/* wake_wide(): slave >= llc_size, master >= slave * size */
		int f = t->llc[t->pu[this].llc].npus;

		s.th[0].wakee_flips = (unsigned int)(f * f + 1);
		s.th[0].flip_decay_ns = s.now_ns;
		s.th[0].last_wakee = 1;
		s.th[1].wakee_flips = (unsigned int)f;
	}
	pu = stock_select(&s, 1, this, &probes);
	if (wide)
		EXPECT(pu == prev, "wake_wide: PU %d, want prev %d", pu,
		    prev);
	else
		EXPECT(pu == this, "wa_weight: PU %d, want waker's %d", pu,
		    this);
	teardown(&s);
}

static void
test_newidle(const struct vp_topo *t)
{
	struct sim s;
	int a = 0, b = 2, i;

	setup(&s, t);
	put_running(&s, 0, b, 1024);
	put_queued(&s, 1, b);
	cpuset_set(&s.busy, b);
	/* below the old 500 us gate, above any domain's probe cost */
	s.pu[a].avg_idle_ns = 200000;
	for (i = 0; i < 16 && s.pu[a].cur < 0; i++)
		balance_newidle(&s, a);
	EXPECT(s.pu[a].cur == 1, "newidle: PU %d runs %d, want 1", a,
	    s.pu[a].cur);
	teardown(&s);
}

static void
test_nohz(const struct vp_topo *t)
{
	struct sim s;
	int b = 2;

	setup(&s, t);
	balance_start(&s);
	put_running(&s, 0, b, 1024);
	put_queued(&s, 1, b);
	/* newidle off: every idle PU's avg_idle below any cost */
	balance_event(&s, 0);
	EXPECT(s.pu[b].nq == 0 && s.th[1].state == TH_RUNNING &&
	    s.th[1].pu != b, "nohz: queued thread still on PU %d (nq %d)",
	    s.th[1].pu, s.pu[b].nq);
	teardown(&s);
}

static void
test_active(const struct vp_topo *t)
{
	const struct vp_core *c = &t->core[0];
	struct sim s;
	int i, a = c->first_pu, b = c->first_pu + 1;

	setup(&s, t);
	balance_start(&s);
	put_running(&s, 0, a, 1024);
	put_running(&s, 1, b, 1024);
	for (i = 0; i < 100 && s.pu[a].cur >= 0 && s.pu[b].cur >= 0; i++) {
		s.now_ns += 4000000;	/* a jiffy */
		balance_event(&s, 0);
	}
	/* one of them left, and runs on another core */
	EXPECT((s.pu[a].cur < 0) != (s.pu[b].cur < 0) &&
	    s.th[s.pu[a].cur < 0 ? 0 : 1].state == TH_RUNNING &&
	    t->pu[s.th[s.pu[a].cur < 0 ? 0 : 1].pu].core != 0,
	    "active: after %d jiffies both threads still on core 0 "
	    "(PUs %d, %d run %d, %d)", i, a, b, s.pu[a].cur, s.pu[b].cur);
	teardown(&s);
}

static void
test_asym(const struct vp_topo *t)
{
	struct sim s;
	int i, e = -1, th = 0;

	for (i = 0; i < t->npus && e < 0; i++)
		if (t->pu[i].prio < t->pu[0].prio)
			e = i;	/* the first E-core */
	setup(&s, t);
	balance_start(&s);
	put_running(&s, th, e, 1024);
	for (i = 0; i < 100 && s.th[th].pu == e; i++) {
		s.now_ns += 4000000;	/* a jiffy */
		balance_event(&s, 0);
	}
	EXPECT(s.th[th].state == TH_RUNNING &&
	    t->pu[s.th[th].pu].prio == t->pu[0].prio,
	    "asym: after %d jiffies the thread runs on PU %d (prio %u), "
	    "want a P-core", i, s.th[th].pu, t->pu[s.th[th].pu].prio);
	teardown(&s);
}

static void
test_halt_len(const struct vp_topo *t)
{
	struct sim s;
	int pu = 4, a = 0, b = 1;
	uint64_t t0;

	setup(&s, t);
	/* both may run on @pu only; a holds it with 10 ms of work */
	cpuset_zero(&s.allowed[s.th[a].allowed]);
	cpuset_set(&s.allowed[s.th[a].allowed], pu);
	s.allowed[s.th[b].allowed] = s.allowed[s.th[a].allowed];
	s.th[a].last_pu = s.th[b].last_pu = pu;
	t0 = s.now_ns;
	host_burst(&s, a, 10000000);
	host_wake(&s, a, VP_PU_NONE);
	host_advance(&s, t0 + 1000);
	/* b halted at t0, not polling, its window grown to 160 us */
	s.th[b].sleep_t_ns = t0;
	s.th[b].poll_win_ns = 160000;
	host_advance(&s, t0 + 100000);
	host_burst(&s, b, 1000000);
	host_wake(&s, b, VP_PU_NONE);
	EXPECT(s.th[b].state != TH_RUNNING, "halt_len: b ran at once");
	/* a's request ran out at about t0 + 3 ms; the next tick is 4 ms */
	host_advance(&s, t0 + 4500000);
	EXPECT(s.th[b].state == TH_RUNNING && s.th[b].poll_win_ns == 80000,
	    "halt_len: b %s, window %llu ns (want running, 80000: the halt "
	    "runs until the vCPU runs)", s.th[b].state == TH_RUNNING ?
	    "running" : "not running",
	    (unsigned long long)s.th[b].poll_win_ns);
	teardown(&s);
}

#define MS	1000000ull

/*
 * eevdf's state: a hog (thread 0, 50 ms of work) on @pu from 0.5 ms
 * after a tick; thread 1 (as much work, lag @lag_ns; a new task unless
 * @placed) woken onto the same PU 1 ms later.  Both may run on @pu only.
 * Returns the tick.
 */
static uint64_t
eevdf_hog(struct sim *s, const struct vp_topo *t, int pu, bool on,
    int64_t lag_ns, bool placed)
{
	int a = 0, b = 1;
	uint64_t t0;

	setup(s, t);
	s->p.eevdf = on;
	t0 = s->now_ns;
	cpuset_zero(&s->allowed[s->th[a].allowed]);
	cpuset_set(&s->allowed[s->th[a].allowed], pu);
	s->allowed[s->th[b].allowed] = s->allowed[s->th[a].allowed];
	s->th[a].last_pu = s->th[b].last_pu = pu;
	s->th[a].placed = true;	/* no new task: a whole 3 ms request */
	host_advance(s, t0 + MS / 2);
	host_burst(s, a, 50 * MS);
	host_wake(s, a, VP_PU_NONE);
	host_advance(s, t0 + 3 * MS / 2);
	s->th[b].vlag = lag_ns;
	s->th[b].placed = placed;
	host_burst(s, b, 50 * MS);
	host_wake(s, b, VP_PU_NONE);
	return t0;
}

static void
test_eevdf(const struct vp_topo *t)
{
	struct sim s;
	int pu = 4, a = 0, b = 1, on;
	uint64_t t0;

	for (on = 0; on < 2; on++) {
		/* owed 1 ms: at once, or (FIFO) not before a's slice ends */
		t0 = eevdf_hog(&s, t, pu, on, (int64_t)MS, true);
		EXPECT(t0 % s.p.jiffy_ns == 0, "eevdf: T0 not a tick");
		host_advance(&s, t0 + 16 * MS / 10);
		if (on)
			EXPECT(s.pu[pu].cur == b && s.th[a].state == TH_QUEUED,
			    "eevdf: a wakee owed 1 ms did not preempt the hog "
			    "(PU %d runs %d at +0.1 ms)", pu, s.pu[pu].cur);
		else
			EXPECT(s.pu[pu].cur == a, "eevdf off: a wakee "
			    "preempted the hog (PU %d runs %d)", pu,
			    s.pu[pu].cur);
		teardown(&s);
		/* owed nothing: the tick after a's request, or (FIFO) a's
		 * slice end, 0.5 ms before */
		t0 = eevdf_hog(&s, t, pu, on, 0, true);
		host_advance(&s, t0 + 39 * MS / 10);
		if (!on) {
			EXPECT(s.pu[pu].cur == b, "eevdf off: the wakee not "
			    "running 3.4 ms after the hog started (PU %d runs "
			    "%d)", pu, s.pu[pu].cur);
			teardown(&s);
			continue;
		}
		EXPECT(s.pu[pu].cur == a, "eevdf: a zero-lag wakee took the "
		    "PU before the tick after the hog's request (PU %d runs "
		    "%d at +3.9 ms)", pu, s.pu[pu].cur);
		host_advance(&s, t0 + 4 * MS + 1);
		EXPECT(s.pu[pu].cur == b && s.th[b].ss_since_ns == t0 + 4 * MS,
		    "eevdf: the wakee did not start at the tick, +4 ms (PU %d "
		    "runs %d, since +%lld ns)", pu, s.pu[pu].cur,
		    (long long)(s.th[b].ss_since_ns - t0));
		host_advance(&s, t0 + 8 * MS + 1);
		EXPECT(s.pu[pu].cur == a && s.th[a].ss_since_ns == t0 + 8 * MS,
		    "eevdf: the hog not back at the tick after the wakee's "
		    "request, +8 ms (PU %d runs %d, since +%lld ns)", pu,
		    s.pu[pu].cur, (long long)(s.th[a].ss_since_ns - t0));
		teardown(&s);
		/* a new task: half a request (PLACE_DEADLINE_INITIAL), its
		 * deadline before the hog's, still waits: RUN_TO_PARITY */
		t0 = eevdf_hog(&s, t, pu, on, 0, false);
		host_advance(&s, t0 + 39 * MS / 10);
		EXPECT(s.pu[pu].cur == a, "eevdf: a new task preempted the "
		    "hog inside its request (PU %d runs %d at +3.9 ms)", pu,
		    s.pu[pu].cur);
		teardown(&s);
	}
}

/* @thi may run on @pu only. */
static void
pin(struct sim *s, int thi, int pu)
{
	cpuset_zero(&s->allowed[s->th[thi].allowed]);
	cpuset_set(&s->allowed[s->th[thi].allowed], pu);
	s->th[thi].last_pu = pu;
}

/* @thi waits at the tail of @pu's queue at vruntime @v_ns, a request
 * ahead of it. */
static void
queue_at(struct sim *s, int thi, int pu, int64_t v_ns)
{
	s->th[thi].vruntime = v_ns;
	s->th[thi].deadline = v_ns + (int64_t)s->p.slice_ns;
	host_rq_link(s, pu, thi);
}

/*
 * eevdf_pick: a thread (0) runs 1 ms on @pu and halts; queued behind it,
 * first x, 4 ms of vruntime ahead of where it started (not eligible),
 * then y, 1 ms behind (eligible), each with 1 ms of work.  The PU takes
 * y, the earliest eligible deadline (pick_eevdf()), not the queue's
 * head x.
 */
static void
test_eevdf_pick(const struct vp_topo *t)
{
	struct sim s;
	int pu = 4, a = 0, x = 4, y = 8;
	int64_t v;
	uint64_t t0;

	setup(&s, t);
	s.wl = WL_HOGS;		/* a halts on a timer: no message sent */
	t0 = s.now_ns;
	pin(&s, a, pu);
	pin(&s, x, pu);
	pin(&s, y, pu);
	host_burst(&s, a, MS);
	host_wake(&s, a, VP_PU_NONE);
	host_advance(&s, t0 + MS / 2);
	v = s.th[a].vruntime;
	queue_at(&s, x, pu, v + 4 * (int64_t)MS);
	queue_at(&s, y, pu, v - (int64_t)MS);
	host_burst(&s, x, MS);
	host_burst(&s, y, MS);
	host_advance(&s, t0 + 3 * MS / 2);
	EXPECT(s.pu[pu].cur == y && s.th[x].state == TH_QUEUED,
	    "eevdf_pick: PU %d runs %d after the halt, want %d (the earliest "
	    "eligible deadline), not the queue's head %d", pu, s.pu[pu].cur,
	    y, x);
	teardown(&s);
}

/* The mean cost of @n operations, every 100 ns, alternating between
 * DSQs @a and @b, done by PUs @pa and @pb. */
static double
dsq_ops_ns(struct sim *s, int a, int pa, int b, int pb, int n)
{
	double sum = 0;
	int i;

	for (i = 0; i < n; i++) {
		s->now_ns += 100;
		sum += costs_dsq_op(s, i % 2 ? b : a, i % 2 ? pb : pa, 0);
	}
	return sum / n;
}

static void
test_dsq_lock(const struct vp_topo *t)
{
	struct sim s;
	int p0 = t->llc[0].first_pu, p1, other_pkg = -1;
	double one, two, local, remote;

	if (t->nllcs < 2) {
		printf("FAIL: dsq_lock needs a host with 2 LLCs\n");
		fails++;
		return;
	}
	p1 = t->llc[1].first_pu;
	setup_as(&s, t, STRAT_SCX);
	one = dsq_ops_ns(&s, costs_dsq_llc(0), p0, costs_dsq_llc(0), p0 + 1,
	    2000);
	teardown(&s);
	setup_as(&s, t, STRAT_SCX);
	two = dsq_ops_ns(&s, costs_dsq_llc(0), p0, costs_dsq_llc(1), p1,
	    2000);
	teardown(&s);
	EXPECT(two < one * 0.9, "dsq_lock: two queues' ops cost %.1f ns, "
	    "one queue's %.1f (want less: a lock each)", two, one);
	/* an op on LLC 0's queue, from LLC 0 and from the other package */
	for (int l = 0; l < t->nllcs; l++)
		if (t->llc[l].package != t->llc[0].package)
			other_pkg = t->llc[l].first_pu;
	if (other_pkg < 0)
		return;
	setup_as(&s, t, STRAT_SCX);
	s.now_ns += 1000000;
	local = costs_dsq_op(&s, costs_dsq_llc(0), p0, 0);
	s.now_ns += 1000000;
	remote = costs_dsq_op(&s, costs_dsq_llc(0), other_pkg, 0);
	/* at least half the gap between a remote and an in-LLC line */
	EXPECT(remote > local + (s.p.line_ns[2] - s.p.probe_ns) / 2,
	    "dsq_lock: LLC 0's queue costs %.1f ns from another package, "
	    "%.1f from its own LLC (want a remote line more)", remote, local);
	teardown(&s);
}

/* @thi may run anywhere (@pin < 0) or on @pin alone, and waits in the
 * queue select_cpu's choice @pu gives it. */
static void
scx_queue_at(struct sim *s, int thi, int pu, int pin)
{
	struct vp_cpuset *a = &s->allowed[s->th[thi].allowed];
	int i;

	cpuset_zero(a);
	for (i = 0; i < s->t->npus; i++)
		if (pin < 0 || i == pin)
			cpuset_set(a, i);
	s->th[thi].state = TH_WAKING;
	s->th[thi].pu = pu;
	s->th[thi].waker_pu = -1;
	(void)scx_enqueue(s, thi);
}

static void
test_scx_queues(const struct vp_topo *t)
{
	struct sim s;
	int p0 = t->llc[0].first_pu, p1 = t->llc[1].first_pu, got;
	/* each thread in its own VM, so each has its own allowed set */
	int a = 0, b = -1, c = -1, i;

	setup_as(&s, t, STRAT_SCX);
	for (i = 1; i < s.nth; i++) {
		if (s.th[i].allowed == s.th[a].allowed)
			continue;
		if (b < 0)
			b = i;
		else if (s.th[i].allowed != s.th[b].allowed) {
			c = i;
			break;
		}
	}
	if (b < 0 || c < 0) {
		printf("FAIL: scx_queues: three allowed sets needed\n");
		fails++;
		teardown(&s);
		return;
	}
	/* a waits in LLC 1's queue, b (later) in LLC 0's: a PU of LLC 0
	 * takes b, its own LLC's, though a is earlier */
	scx_queue_at(&s, a, p1, -1);
	scx_queue_at(&s, b, p0, -1);
	got = scx_consume(&s, p0 + 1);
	EXPECT(got == b, "scx_queues: PU %d of LLC 0 took %d, want %d of its "
	    "own LLC's queue (not %d of LLC 1's)", p0 + 1, got, b, a);
	/* its own queues empty: it takes LLC 1's (stolen) */
	got = scx_consume(&s, p0 + 1);
	EXPECT(got == a, "scx_queues: PU %d with nothing of its own took "
	    "%d, want %d from LLC 1's queue", p0 + 1, got, a);
	/* c pinned to p0 waits in p0's queue; b (later) in LLC 0's: p0
	 * takes c first, another PU of LLC 0 never takes c */
	scx_queue_at(&s, c, p0, p0);
	scx_queue_at(&s, b, p0, -1);
	got = scx_consume(&s, p0 + 1);
	EXPECT(got == b, "scx_queues: PU %d took %d, want %d (%d waits in "
	    "PU %d's own queue)", p0 + 1, got, b, c, p0);
	scx_queue_at(&s, b, p0, -1);
	got = scx_consume(&s, p0);
	EXPECT(got == c, "scx_queues: PU %d took %d, want %d of its own "
	    "queue, whose head is earlier", p0, got, c);
	got = scx_consume(&s, p0);
	EXPECT(got == b, "scx_queues: PU %d took %d, then want %d", p0, got,
	    b);
	teardown(&s);
}

static void
test_scx_local(const struct vp_topo *t)
{
	struct sim s;
	int pu = 4, a = 0, b = 1;
	uint64_t t0, now;

	setup_with(&s, t, STRAT_SCX, false);
	/* a may run on @pu only, with 50 ms of work: it takes idle @pu */
	cpuset_zero(&s.allowed[s.th[a].allowed]);
	cpuset_set(&s.allowed[s.th[a].allowed], pu);
	s.th[a].last_pu = pu;
	t0 = s.now_ns;
	host_burst(&s, a, 50000000);
	host_wake(&s, a, VP_PU_NONE);
	host_advance(&s, t0 + 1000000);
	EXPECT(s.pu[pu].cur == a, "scx_local: a not running on its PU");
	/* b in @pu's local DSQ (a direct dispatch that found it taken) */
	put_queued(&s, b, pu);
	s.th[b].last_pu = pu;
	host_burst(&s, b, 50000000);
	/* a's slice ends (the tick cuts it: b waits); nothing in the shared
	 * queue.  Stepped to that moment, not to a fixed time: the two then
	 * take turns */
	for (now = t0 + 1000000; s.pu[pu].cur == a && now < t0 + 30000000;
	    now += 100000)
		host_advance(&s, now);
	EXPECT(s.pu[pu].cur == b && s.th[a].state == TH_WAKING &&
	    scx_rq_waiting(&s, pu), "scx_local: at a's slice end %d runs, "
	    "a %s (want b running, a in the shared queue for PU %d)",
	    s.pu[pu].cur, scx_rq_waiting(&s, pu) ? "in the shared queue" :
	    "not in the shared queue", pu);
	teardown(&s);
}

/*
 * Every PU of LLC 0 busy but @prev and the core @idle_core; @prev's
 * sibling busy.  The mask as a rebuild left it (every bit set), less
 * @prev's core, dropped when its sibling left idle.
 */
static void
sis_core_state(struct sim *s, int prev, int idle_core, int first_th)
{
	const struct vp_topo *t = s->t;
	const struct vp_llc *l = &t->llc[0];
	const struct vp_core *k = &t->core[t->pu[prev].core];
	int pu, th = first_th;

	for (pu = l->first_pu; pu < l->first_pu + l->npus; pu++)
		if (pu != prev && t->pu[pu].core != idle_core &&
		    th < s->nth)
			put_running(s, th++, pu, 0);
	EXPECT(th - first_th == l->npus - 1 - t->core[idle_core].npus,
	    "sis_core: %d fillers for %d PUs", th - first_th, l->npus);
	for (pu = k->first_pu; pu < k->first_pu + k->npus; pu++)
		cpuset_clear(&s->sis_idle_cores, pu);
}

static bool
core_in_mask(const struct sim *s, int core)
{
	const struct vp_core *k = &s->t->core[core];

	return cpuset_intersects_range(&s->sis_idle_cores, k->first_pu,
	    k->npus);
}

static void
test_sis_core(const struct vp_topo *t, enum strategy st)
{
	const struct vp_llc *l = &t->llc[0];
	int prev = l->first_pu, idle_core = l->first_core + l->ncores / 2;
	int prev2 = t->core[l->first_core + 1].first_pu, pu, pu2;
	unsigned long probes = 0;
	struct sim s;

	setup(&s, t);
	s.strat = st;
	/* wakee 0 slept on prev, wakee 1 on prev2, whose sibling is busy
	 * too; a timer wakes them (no waker: target = prev) */
	sis_core_state(&s, prev, idle_core, 2);
	cpuset_clear(&s.busy, prev2);
	cpuset_clear(&s.running, prev2);
	s.th[s.pu[prev2].cur].state = TH_SLEEP;
	s.pu[prev2].cur = -1;
	s.th[0].last_pu = prev;
	s.th[1].last_pu = prev2;
	pu = stock_select(&s, 0, VP_PU_NONE, &probes);
	if (st != STRAT_SIS_CORE) {
		EXPECT(pu == prev, "sis_core off: PU %d, want prev %d", pu,
		    prev);
		teardown(&s);
		return;
	}
	EXPECT(t->pu[pu].core == idle_core, "sis_core: PU %d (core %d), "
	    "want the idle core %d, not prev %d", pu, t->pu[pu].core,
	    idle_core, prev);
	EXPECT(!core_in_mask(&s, idle_core), "sis_core: core %d not "
	    "claimed", idle_core);
	EXPECT(!core_in_mask(&s, t->pu[prev2].core),
	    "sis_core: prev2's core, busy and met first, kept its bits");
	/* as host_wake() would: the claimed PU now has a wake-up in flight */
	cpuset_set(&s.busy, pu);
	pu2 = stock_select(&s, 1, VP_PU_NONE, &probes);
	EXPECT(pu2 == prev2, "sis_core: second wake-up on PU %d, want its "
	    "prev %d (no idle core left)", pu2, prev2);
	EXPECT(s.has_idle_cores[0], "sis_core: a miss in the mask cleared "
	    "has_idle_cores");
	teardown(&s);
}

/* The core met first by a walk from @prev: CPU-number order from prev + 1. */
static int
first_core_after(const struct vp_topo *t, int prev)
{
	const struct vp_llc *l = &t->llc[t->pu[prev].llc];
	int i, pu;

	for (i = 1; i < l->npus; i++) {
		pu = l->os_order[(t->pu_os_pos[prev] + i) % l->npus];
		if (t->pu[pu].core != t->pu[prev].core)
			return t->pu[pu].core;
	}
	return -1;
}

/*
 * sis_core_budget: prev idle beside a busy sibling, the first core of the
 * walk whole idle and in the mask.  SIS_UTIL's nr_idle_scan counts CPUs:
 * with 1 the walk cannot probe the core's two siblings and prev is taken,
 * the core left in the mask; with 2 the core is claimed.
 */
static void
test_sis_core_budget(const struct vp_topo *t)
{
	const struct vp_llc *l = &t->llc[0];
	int prev = l->first_pu, idle_core = first_core_after(t, prev);
	int nr, pu;
	unsigned long probes = 0;
	struct sim s;

	for (nr = 1; nr <= 2; nr++) {
		setup(&s, t);
		s.strat = STRAT_SIS_CORE;
		sis_core_state(&s, prev, idle_core, 2);
		s.th[0].last_pu = prev;
		s.nr_idle_scan[0] = nr;
		pu = stock_select(&s, 0, VP_PU_NONE, &probes);
		if (nr == 1) {
			EXPECT(pu == prev && core_in_mask(&s, idle_core),
			    "sis_core_budget: nr_idle_scan 1 reached core %d "
			    "(PU %d, want prev %d): the budget is spent per "
			    "CPU", idle_core, pu, prev);
		} else {
			EXPECT(t->pu[pu].core == idle_core &&
			    !core_in_mask(&s, idle_core), "sis_core_budget: "
			    "nr_idle_scan 2: PU %d, want core %d claimed", pu,
			    idle_core);
		}
		teardown(&s);
	}
}

/*
 * sis_core_stale: as sis_core, but prev's core kept its bits although its
 * sibling is busy (stale).  The core is probed before it is claimed: the
 * busy sibling drops it, and the whole idle core is taken instead.
 */
static void
test_sis_core_stale(const struct vp_topo *t)
{
	const struct vp_llc *l = &t->llc[0];
	int prev = l->first_pu, idle_core = l->first_core + l->ncores / 2;
	const struct vp_core *k = &t->core[t->pu[prev].core];
	unsigned long probes = 0;
	struct sim s;
	int sb, pu;

	setup(&s, t);
	s.strat = STRAT_SIS_CORE;
	sis_core_state(&s, prev, idle_core, 2);
	for (sb = k->first_pu; sb < k->first_pu + k->npus; sb++)
		cpuset_set(&s.sis_idle_cores, sb);
	s.th[0].last_pu = prev;
	pu = stock_select(&s, 0, VP_PU_NONE, &probes);
	EXPECT(t->pu[pu].core == idle_core && !core_in_mask(&s, k - t->core),
	    "sis_core_stale: PU %d (core %d) on a stale bit, want the idle "
	    "core %d and prev's core dropped", pu, t->pu[pu].core, idle_core);
	teardown(&s);
}

/*
 * sis_core_stock: prev and its sibling busy, one whole idle core: no
 * idle CPU was kept aside, so SIS_CORE leaves the wake-up to the stock
 * path, which decides and probes exactly as with the feature off.
 */
static void
test_sis_core_stock(const struct vp_topo *t)
{
	const struct vp_llc *l = &t->llc[0];
	int prev = l->first_pu, idle_core = l->first_core + l->ncores / 2;
	int fillers = l->npus - 1 - t->core[idle_core].npus, pu[2];
	unsigned long probes[2] = { 0, 0 };
	enum strategy st[2] = { STRAT_DAEMON, STRAT_SIS_CORE };
	struct sim s;
	int i;

	for (i = 0; i < 2; i++) {
		setup(&s, t);
		s.strat = st[i];
		sis_core_state(&s, prev, idle_core, 2);
		put_running(&s, 2 + fillers, prev, 0);
		s.th[0].last_pu = prev;
		pu[i] = stock_select(&s, 0, VP_PU_NONE, &probes[i]);
		teardown(&s);
	}
	EXPECT(pu[1] == pu[0] && probes[1] == probes[0], "sis_core_stock: "
	    "nothing kept aside, yet PU %d after %lu probes, stock PU %d "
	    "after %lu", pu[1], probes[1], pu[0], probes[0]);
}

int
main(int argc, char **argv)
{
	struct vp_topo *t;

	if (argc < 2 || argc > 3 ||
	    hwtopo_load_xml(argv[1], &t, NULL, 0) < 0) {
		fprintf(stderr, "usage: sim-rules TOPOLOGY.xml [HYBRID.xml]\n");
		return 2;
	}
	test_prev(t);
	test_wa_weight(t, false);
	test_wa_weight(t, true);
	test_newidle(t);
	test_nohz(t);
	test_active(t);
	test_halt_len(t);
	test_eevdf(t);
	test_eevdf_pick(t);
	test_sis_core(t, STRAT_SIS_CORE);
	test_sis_core(t, STRAT_DAEMON);
	test_sis_core_budget(t);
	test_sis_core_stale(t);
	test_sis_core_stock(t);
	test_dsq_lock(t);
	test_scx_queues(t);
	test_scx_local(t);
	topo_free(t);
	if (argc == 3) {
		if (hwtopo_load_xml(argv[2], &t, NULL, 0) < 0) {
			fprintf(stderr, "sim-rules: cannot load %s\n", argv[2]);
			return 2;
		}
		test_asym(t);
		topo_free(t);
	}
	if (!fails)
		printf("check-sim: wake and balance rules hold\n");
	return fails ? 1 : 0;
}
