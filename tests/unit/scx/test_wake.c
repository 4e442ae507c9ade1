/*
 * test_wake.c - the sched_ext scheduler's wake decision
 * (daemon/scx/vcpuplace_wake.h, the code vcpuplace.bpf.c compiles),
 * compiled here with plain-C accessors over crafted states of a
 * synthetic host: two packages, one LLC each, two clusters (L2) of four
 * SMT2 cores per LLC.  The tables are the daemon's own (scxfeed.c), the
 * accessors wakectx.c's.
 * Each test checks one rule's place in the order.
 */
#include <check.h>
#include <string.h>

#include "scx/scxfeed.h"
#include "../suites.h"
#include "../testutil.h"
#include "wakectx.h"

#include "scx/vcpuplace_wake.h"

#define SYNTH "pack:2 l3:1 l2:2 core:4 pu:2"

static struct tctx *
setup(void)
{
	struct tctx *c = tctx_new(load_synth(SYNTH));

	ck_assert_int_eq(c->t->npus, 32);
	return c;
}

static void
teardown(struct tctx *c)
{
	topo_free(c->t);
	tctx_free(c);
}

/* Dense PU @k of core @core (cores in dense order, 4 per cluster). */
static int
pu_of_core(const struct tctx *c, int core, int k)
{
	return c->t->core[core].first_pu + k;
}

static __s32
os(const struct tctx *c, int pu)
{
	return (__s32)c->t->pu[pu].os_index;
}

/* The vp_vcpus entry of a 2-vCPU VM homed on dense @home. */
static void
entry(const struct tctx *c, int home, enum vp_locality loc,
    struct vp_scx_vcpu *ret)
{
	struct vp_policy pol;
	struct scxfeed_vcpu_in in = {
		.policy = &pol, .nvcpus = 2, .home = home,
		.anchor = VP_PU_NONE, .short_sleep_ns = 50000,
	};

	policy_default(&pol);
	pol.smt = VP_SMT_PREFER_IDLE_CORE;
	pol.locality = loc;
	pol.cache_hot = true;
	scxfeed_vcpu(c->t, &in, ret);
}

/* Runs decide(); returns the dense PU, and in *@probes what it cost. */
static int
run_probes(struct tctx *c, const struct vp_scx_vcpu *v, int prev,
    enum vp_scx_vstat *why, bool *direct, __u32 *probes)
{
	struct wake w = { .c = c, .v = v, .prev = prev >= 0 ? os(c, prev) : -1 };
	__s32 cpu = decide(&w, why, direct);

	ck_assert_int_ge(w.probes, 1);
	*probes = w.probes;
	return tdense(c, cpu);
}

static int
run(struct tctx *c, const struct vp_scx_vcpu *v, int prev,
    enum vp_scx_vstat *why, bool *direct)
{
	__u32 probes;

	return run_probes(c, v, prev, why, direct, &probes);
}

/* Makes every PU of core @core busy (@k < 0) or only its PU @k. */
static void
busy(struct tctx *c, int core, int k)
{
	int i;

	for (i = 0; i < c->t->core[core].npus; i++)
		if (k < 0 || i == k)
			cpuset_set(&c->busy, pu_of_core(c, core, i));
}

/* Makes every PU busy. */
static void
all_busy(struct tctx *c)
{
	int core;

	for (core = 0; core < c->t->ncores; core++)
		busy(c, core, -1);
}

/* 1: the home first when its whole core is idle, not the cluster's first. */
START_TEST(test_home_whole_first)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 1, 0);

	entry(c, home, VP_LOC_ANY, &v);
	ck_assert_int_eq(run(c, &v, pu_of_core(c, 6, 0), &why, &direct), home);
	ck_assert_int_eq(why, VP_SCX_V_HOME);
	ck_assert(direct);
	teardown(c);
}
END_TEST

/*
 * 2: a home next to a busy sibling loses to a whole idle core of the
 * near domain (its cluster), even when the far domain has one earlier
 * in scan order.
 */
START_TEST(test_half_home_loses_to_near_core)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 5, 0), pu;

	busy(c, 5, 1);			/* home's sibling */
	busy(c, 4, -1);			/* cluster 1: cores 4..7 */
	entry(c, home, VP_LOC_ANY, &v);
	ck_assert_uint_ne(v.near_dom, v.far_dom);
	pu = run(c, &v, home, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_IDLE_CORE);
	ck_assert_int_eq(c->t->pu[pu].cluster, c->t->pu[home].cluster);
	ck_assert(core_idle(c->t, &c->busy, pu) == false);	/* claimed */
	ck_assert_int_ne(c->t->pu[pu].core, 5);
	teardown(c);
}
END_TEST

/* 2': the near domain has none: a whole core of the far one (the LLC). */
START_TEST(test_half_home_loses_to_far_core)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 5, 0), pu;

	busy(c, 5, 1);
	busy(c, 4, 0);
	busy(c, 6, 1);
	busy(c, 7, 0);
	entry(c, home, VP_LOC_ANY, &v);
	pu = run(c, &v, home, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_IDLE_CORE);
	ck_assert_int_eq(c->t->pu[pu].llc, c->t->pu[home].llc);
	ck_assert_int_ne(c->t->pu[pu].cluster, c->t->pu[home].cluster);
	teardown(c);
}
END_TEST

/*
 * SMT priority (rule 3 without SIS_CORE): an idle PU of a whole idle
 * core scores its core's priority, a PU next to a busy sibling half of
 * it, so the whole core wins though it comes later in the scan.
 */
START_TEST(test_smt_prio)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int c2, pu, whole = pu_of_core(c, 3, 0);

	c->feat &= ~VP_SCX_FEAT_SIS_CORE;
	entry(c, pu_of_core(c, 0, 0), VP_LOC_ANY, &v);
	v.home = -1;			/* no home: rule 3's scan decides */
	for (c2 = 0; c2 < 8; c2++)
		if (c2 != 3)
			busy(c, c2, 1);
	pu = run(c, &v, -1, &why, &direct);
	ck_assert_int_eq(pu, whole);
	ck_assert_int_eq(why, VP_SCX_V_IDLE_SIBLING);	/* rule 3's label */
	teardown(c);
}
END_TEST

/*
 * SOON_IDLE: among idle PUs of equal score, the one whose busy sibling
 * should idle soonest (its usual run nearly done).
 */
/*
 * A vCPU with no home, its entry at core 0, and rule 3's ground: the
 * second PU of cores 0-7 busy, each with a task 1 ms from its usual end.
 */
static void
busy_siblings(struct tctx *c, struct vp_scx_vcpu *v)
{
	int c2;

	entry(c, pu_of_core(c, 0, 0), VP_LOC_ANY, v);
	v->home = -1;
	for (c2 = 0; c2 < 8; c2++) {
		busy(c, c2, 1);
		c->runs[pu_of_core(c, c2, 1)].since = c->now;
		c->runs[pu_of_core(c, c2, 1)].expect_ns = 1000000;
	}
}

START_TEST(test_soon_idle)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int pu;

	busy_siblings(c, &v);
	/* every busy sibling's task has 1 ms left, but core 6's, which is
	 * 10 us from its usual end */
	c->runs[pu_of_core(c, 6, 1)].since = c->now - 990000;
	pu = run(c, &v, -1, &why, &direct);
	ck_assert_int_eq(pu, pu_of_core(c, 6, 0));
	ck_assert_int_eq(why, VP_SCX_V_IDLE_SIBLING);
	teardown(c);
}
END_TEST

/*
 * Between equals, prev first, even beside a sibling that idles later;
 * with SOON_IDLE off, the first in scan order, as before.
 */
START_TEST(test_idle_pu_prev_first)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int prev = pu_of_core(c, 3, 0);

	busy_siblings(c, &v);
	/* core 6's sibling idles in 10 us, prev's in 1 ms */
	c->runs[pu_of_core(c, 6, 1)].since = c->now - 990000;
	ck_assert_int_eq(run(c, &v, prev, &why, &direct), prev);
	ck_assert_int_eq(why, VP_SCX_V_IDLE_SIBLING);
	teardown(c);

	c = setup();
	busy_siblings(c, &v);
	c->feat &= ~VP_SCX_FEAT_SOON_IDLE;
	ck_assert_int_eq(run(c, &v, prev, &why, &direct), pu_of_core(c, 0, 0));
	teardown(c);
}
END_TEST

/* SIS_CACHE: a short sleeper goes back to its idle prev before rule 2. */
START_TEST(test_cache_hot_prev)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 1, 0), prev = pu_of_core(c, 10, 1);

	busy(c, 1, -1);			/* home's core all busy */
	entry(c, home, VP_LOC_ANY, &v);
	c->slept_at = c->now - 20000;	/* 20 us < 50 us */
	ck_assert_int_eq(run(c, &v, prev, &why, &direct), prev);
	ck_assert_int_eq(why, VP_SCX_V_CACHE_HOT);
	teardown(c);
	/* and not after a long sleep: the near cluster's idle core */
	c = setup();
	busy(c, 1, -1);
	entry(c, home, VP_LOC_ANY, &v);
	c->slept_at = c->now - 200000;
	ck_assert_int_eq(c->t->pu[run(c, &v, prev, &why, &direct)].cluster,
	    c->t->pu[home].cluster);
	teardown(c);
}
END_TEST

/*
 * STAY_FAR_DOM: locality llc and the home LLC all busy: the shared
 * queue, though the other package idles; with locality any, the other
 * package.
 */
START_TEST(test_stay_far_dom)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 2, 0), pu, c2;

	for (c2 = 0; c2 < 8; c2++)
		busy(c, c2, -1);
	entry(c, home, VP_LOC_LLC, &v);
	ck_assert(v.flags & VP_SCX_F_STAY_FAR_DOM);
	pu = run(c, &v, home, &why, &direct);
	ck_assert(!direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	ck_assert_int_eq(pu, home);
	entry(c, home, VP_LOC_ANY, &v);
	pu = run(c, &v, home, &why, &direct);
	ck_assert(direct);
	ck_assert_int_ne(c->t->pu[pu].llc, c->t->pu[home].llc);
	teardown(c);
}
END_TEST

/*
 * Nothing idle, re-pinned while asleep away from prev and home: the
 * queued fallback names a CPU of the allowed set, never one outside.
 */
START_TEST(test_queued_inside_allowed)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 2, 0), pu;

	all_busy(c);
	cpuset_zero(&c->allowed);
	cpuset_set(&c->allowed, pu_of_core(c, 13, 1));
	cpuset_set(&c->allowed, pu_of_core(c, 14, 0));
	entry(c, home, VP_LOC_ANY, &v);
	pu = run(c, &v, pu_of_core(c, 2, 1), &why, &direct);
	ck_assert(!direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	ck_assert(pu >= 0 && cpuset_test(&c->allowed, pu));
	teardown(c);
}
END_TEST

/*
 * 6 (POLL_END): nothing idle, so a PU whose vCPU halt-polls: prev, then
 * the rest of prev's cluster (its SMT siblings included), then home, then
 * the near domain before the far one; never beyond the far domain nor
 * outside the allowed set; each poll taken once.
 */
static int
poll_case(struct tctx *c, const struct vp_scx_vcpu *v, int prev,
    enum vp_scx_vstat *why, bool *direct)
{
	all_busy(c);
	return run(c, v, prev, why, direct);
}

START_TEST(test_poll_end)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	/*
	 * home in cluster 1 (cores 4-7), prev in cluster 0 (cores 0-3): the
	 * LLC's scan order has cluster 0 first, so only the near-first rule
	 * puts @near before @far, for a prev of another LLC (@gone: the
	 * plan moved the VM); for prev in cluster 0, @far is in prev's
	 * cluster, and so is @sib, prev's SMT sibling
	 */
	int home = pu_of_core(c, 5, 0), prev = pu_of_core(c, 1, 1);
	int near = pu_of_core(c, 7, 1), far = pu_of_core(c, 2, 0);
	int sib = pu_of_core(c, 1, 0), gone = pu_of_core(c, 13, 1);
	int other_llc = pu_of_core(c, 9, 0), pu;

	entry(c, home, VP_LOC_LLC, &v);
	ck_assert_uint_ne(v.near_dom, v.far_dom);
	/* nothing polls: queued */
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert(!direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	/* polls in the far domain and in another LLC: the far one */
	cpuset_set(&c->polling, far);
	cpuset_set(&c->polling, other_llc);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert(direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	ck_assert_int_eq(pu, far);
	/* taken once: the next wake-up does not get it, nor the other LLC */
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	/* the near domain (home's cluster) before the far one */
	cpuset_set(&c->polling, far);
	cpuset_set(&c->polling, near);
	pu = poll_case(c, &v, gone, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	ck_assert_int_eq(pu, near);
	/* home before the near domain's others */
	cpuset_set(&c->polling, near);
	cpuset_set(&c->polling, home);
	pu = poll_case(c, &v, gone, &why, &direct);
	ck_assert_int_eq(pu, home);
	/* prev's cluster before home: @far, though first in scan order */
	cpuset_set(&c->polling, home);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(pu, far);
	/* prev's SMT sibling too */
	cpuset_set(&c->polling, sib);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(pu, sib);
	/* prev before everything */
	cpuset_set(&c->polling, sib);
	cpuset_set(&c->polling, prev);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(pu, prev);
	/* not outside the allowed set */
	cpuset_zero(&c->polling);
	cpuset_set(&c->polling, far);
	cpuset_clear(&c->allowed, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	/* and not with the feature off */
	cpuset_set(&c->allowed, far);
	c->feat &= ~VP_SCX_FEAT_POLL_END;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	ck_assert(cpuset_test(&c->polling, far));
	teardown(c);
}
END_TEST

/*
 * 6's scans probe no PU twice: prev, then prev's cluster, then home,
 * then the near and far domains, each PU's poll record read once, with
 * home inside prev's cluster or outside it, and prev in either domain.
 */
START_TEST(test_poll_end_probes_once)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	/* home 5.0; prev in home's cluster (4.1), in another (1.1), home */
	const int homes[] = { pu_of_core(c, 5, 0) };
	const int prevs[] = { pu_of_core(c, 4, 1), pu_of_core(c, 1, 1),
	    pu_of_core(c, 5, 0), pu_of_core(c, 13, 1) };
	size_t i;
	int pu, k;

	entry(c, homes[0], VP_LOC_LLC, &v);
	for (i = 0; i < sizeof(prevs) / sizeof(prevs[0]); i++) {
		memset(c->poll_probes, 0,
		    (size_t)c->t->npus * sizeof(*c->poll_probes));
		pu = poll_case(c, &v, prevs[i], &why, &direct);
		ck_assert_int_eq(why, VP_SCX_V_QUEUED);
		(void)pu;
		for (k = 0; k < c->t->npus; k++)
			ck_assert_msg(c->poll_probes[k] <= 1,
			    "prev %d: PU %d probed %u times", prevs[i], k,
			    c->poll_probes[k]);
		/* and every PU of the LLC was probed */
		ck_assert_uint_eq(c->poll_probes[homes[0]], 1);
		ck_assert_uint_eq(c->poll_probes[pu_of_core(c, 0, 0)], 1);
	}
	teardown(c);
}
END_TEST

/*
 * 7 (STAY_PREV): nothing idle nor polling, so the vCPU waits on prev's
 * runqueue when prev's task, a vCPU, should stop within the shortest
 * slice by its usual run; not behind another waiter, not past a task's
 * usual run, not behind a host task, not outside the allowed set, and
 * after the polls of rule 6.
 */
START_TEST(test_stay_prev)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 5, 0), prev = pu_of_core(c, 1, 1);
	int far = pu_of_core(c, 2, 0), pu;
	struct vp_cpu_run *r = &c->runs[prev];

	entry(c, home, VP_LOC_LLC, &v);
	/* prev's vCPU has run 10 us of its usual 50 us */
	r->vcpu = true;
	r->since = c->now - 10000;
	r->expect_ns = 50000;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert(direct);
	ck_assert_int_eq(why, VP_SCX_V_STAY_PREV);
	ck_assert_int_eq(pu, prev);
	/* one waits there now: the next one is queued */
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert(!direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	cpuset_zero(&c->waiting);
	/* its task should run on for longer than the bound: queued */
	r->expect_ns = 10000 + VP_SCX_STAY_PREV_NS + 1;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	/* exactly the bound still waits there */
	r->expect_ns = 10000 + VP_SCX_STAY_PREV_NS;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_STAY_PREV);
	cpuset_zero(&c->waiting);
	/* at or past its usual run: no telling when it stops */
	r->expect_ns = 10000;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	r->expect_ns = 5000;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	/* a host task's record: not counted on */
	r->expect_ns = 50000;
	r->vcpu = false;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	r->vcpu = true;
	/* a poll to end comes first */
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	ck_assert_int_eq(pu, far);
	ck_assert(!cpuset_test(&c->waiting, prev));
	/* not outside the allowed set */
	cpuset_clear(&c->allowed, prev);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	ck_assert(cpuset_test(&c->allowed, pu));
	cpuset_set(&c->allowed, prev);
	/* and not with the feature off */
	c->feat &= ~VP_SCX_FEAT_STAY_PREV;
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	teardown(c);
}
END_TEST

/*
 * LLC_FIRST: a far domain wider than prev's LLC (here a VM of six vCPUs
 * on LLCs of four cores, widened to the package) is scanned in prev's
 * LLC first, by rules 2, 3 and 6 alike; the far domain's own order
 * (LLC 0 first) with the feature off, or with prev outside the allowed
 * set.
 */
#define SYNTH_SMALL_LLC "pack:1 l3:2 l2:2 core:2 pu:2"

START_TEST(test_llc_first)
{
	struct tctx *c = tctx_new(load_synth(SYNTH_SMALL_LLC));
	struct vp_policy pol;
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	/* home in LLC 0 (cores 0-3), prev in LLC 1 (cores 4-7) */
	int home = pu_of_core(c, 1, 0), prev = pu_of_core(c, 5, 0);
	int core0 = 2, core1 = 6, pu;
	struct scxfeed_vcpu_in in = {
		.policy = &pol, .nvcpus = 6, .home = home,
		.anchor = VP_PU_NONE, .short_sleep_ns = 50000,
	};

	ck_assert_int_eq(c->t->npus, 16);
	policy_default(&pol);
	pol.smt = VP_SMT_PREFER_IDLE_CORE;
	pol.locality = VP_LOC_LLC;
	scxfeed_vcpu(c->t, &in, &v);
	ck_assert_uint_ne(v.far_dom, c->pus[os(c, prev)].llc_dom);
	ck_assert_uint_gt(c->doms[v.far_dom].ncpus,
	    c->doms[c->pus[os(c, prev)].llc_dom].ncpus);
	/* 2: whole idle cores in both LLCs, home's and prev's busy */
	all_busy(c);
	cpuset_clear(&c->busy, pu_of_core(c, core0, 0));
	cpuset_clear(&c->busy, pu_of_core(c, core0, 1));
	cpuset_clear(&c->busy, pu_of_core(c, core1, 0));
	cpuset_clear(&c->busy, pu_of_core(c, core1, 1));
	pu = run(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_IDLE_CORE);
	ck_assert_int_eq(c->t->pu[pu].core, core1);
	/* off: the far domain's order, LLC 0 first */
	cpuset_clear(&c->busy, pu);
	c->feat &= ~VP_SCX_FEAT_LLC_FIRST;
	pu = run(c, &v, prev, &why, &direct);
	ck_assert_int_eq(c->t->pu[pu].core, core0);
	c->feat |= VP_SCX_FEAT_LLC_FIRST;
	/* 3: one idle PU beside a busy sibling in each LLC */
	all_busy(c);
	cpuset_clear(&c->busy, pu_of_core(c, core0, 1));
	cpuset_clear(&c->busy, pu_of_core(c, core1, 1));
	pu = run(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_IDLE_SIBLING);
	ck_assert_int_eq(pu, pu_of_core(c, core1, 1));
	/* 6: nothing idle, a poll in each LLC */
	all_busy(c);
	cpuset_set(&c->polling, pu_of_core(c, core0, 0));
	cpuset_set(&c->polling, pu_of_core(c, core1, 0));
	pu = run(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	ck_assert_int_eq(pu, pu_of_core(c, core1, 0));
	/* prev outside the allowed set: the far domain's order */
	cpuset_set(&c->polling, pu_of_core(c, core1, 0));
	cpuset_clear(&c->allowed, prev);
	pu = run(c, &v, prev, &why, &direct);
	ck_assert_int_eq(pu, pu_of_core(c, core0, 0));
	teardown(c);
}
END_TEST

/*
 * 8 (JOIN_WAKER): nothing idle, and a vCPU of its VM woke it from its
 * own PU: when both usually run short, the wake-up queues on the
 * waker's PU (not directly: behind the waker), before a poll is ended
 * elsewhere (a claimed poll is no longer one: set again each time); not
 * for a long-running wakee or waker, not for a host task's record, not
 * outside the allowed set, not with the feature off, and never while
 * something idles.
 */
START_TEST(test_join_waker)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 5, 0), prev = pu_of_core(c, 1, 1);
	int waker = pu_of_core(c, 3, 0), far = pu_of_core(c, 2, 0), pu;
	struct vp_cpu_run *r = &c->runs[waker];

	entry(c, home, VP_LOC_LLC, &v);
	c->waker = (__s32)c->t->pu[waker].os_index;
	c->avg_run = 15000;
	r->vcpu = true;
	r->since = c->now - 10000;
	r->expect_ns = 20000;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert(!direct);
	ck_assert_int_eq(why, VP_SCX_V_JOIN_WAKER);
	ck_assert_int_eq(pu, waker);
	/* the bound itself still joins; past it, the poll is ended */
	c->avg_run = VP_SCX_JOIN_RUN_NS;
	r->expect_ns = VP_SCX_JOIN_RUN_NS;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_JOIN_WAKER);
	c->avg_run = VP_SCX_JOIN_RUN_NS + 1;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	ck_assert_int_eq(pu, far);
	c->avg_run = 15000;
	/* a waker that runs long, or whose run is unknown */
	r->expect_ns = VP_SCX_JOIN_RUN_NS + 1;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	r->expect_ns = 0;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	r->expect_ns = 20000;
	/* a wakee with no run yet */
	c->avg_run = 0;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	c->avg_run = 15000;
	/* a host task's record there */
	r->vcpu = false;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	r->vcpu = true;
	/* not woken by a vCPU of its VM */
	c->waker = -1;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	c->waker = (__s32)c->t->pu[waker].os_index;
	/* not outside the allowed set */
	cpuset_clear(&c->allowed, waker);
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	cpuset_set(&c->allowed, waker);
	/* not with the feature off */
	c->feat &= ~VP_SCX_FEAT_JOIN_WAKER;
	cpuset_set(&c->polling, far);
	pu = poll_case(c, &v, prev, &why, &direct);
	ck_assert_int_eq(why, VP_SCX_V_POLL_END);
	c->feat |= VP_SCX_FEAT_JOIN_WAKER;
	/* something idles: the idle rules decide, not this one */
	all_busy(c);
	cpuset_clear(&c->busy, prev);
	pu = run(c, &v, prev, &why, &direct);
	ck_assert(direct);
	ck_assert_int_ne(why, VP_SCX_V_JOIN_WAKER);
	teardown(c);
}
END_TEST

/*
 * A wake-up that finds nothing idle in its allowed set looks at no PU
 * for the idle rules (one test of the masks), and one with no whole idle
 * core does not walk the domains for one: the same decisions, at a
 * fraction of the cost on a busy host, where wake-ups are most frequent.
 */
START_TEST(test_busy_host_no_scan)
{
	struct tctx *c = setup();
	struct vp_scx_vcpu v;
	enum vp_scx_vstat why;
	bool direct;
	int home = pu_of_core(c, 5, 0), prev = pu_of_core(c, 1, 1);
	int half = pu_of_core(c, 6, 1), pu;
	__u32 probes;

	entry(c, home, VP_LOC_LLC, &v);
	c->feat &= ~(VP_SCX_FEAT_POLL_END | VP_SCX_FEAT_STAY_PREV);
	all_busy(c);
	pu = run_probes(c, &v, prev, &why, &direct, &probes);
	ck_assert_int_eq(why, VP_SCX_V_QUEUED);
	ck_assert(pu >= 0 && cpuset_test(&c->allowed, pu));
	ck_assert_uint_le(probes, 1);
	/* one PU idles, beside a busy sibling: found without a core walk */
	cpuset_clear(&c->busy, half);
	pu = run_probes(c, &v, prev, &why, &direct, &probes);
	ck_assert(direct);
	ck_assert_int_eq(pu, half);
	ck_assert_uint_le(probes, c->doms[v.far_dom].ncpus + 4);
	teardown(c);
}
END_TEST

/*
 * A LOCAL_ON verdict must not move a migration-disabled task (6.12
 * task_can_run_on_remote_rq() ejects the scheduler).  BPF programs run
 * with one migrate_disable() of their own in current, so for current a
 * count of 1 is the program's, and only more holds it; for another task
 * any count does.
 */
START_TEST(test_migration_held)
{
	ck_assert(!vpw_migration_held(0, false));
	ck_assert(vpw_migration_held(1, false));
	ck_assert(vpw_migration_held(3, false));
	ck_assert(!vpw_migration_held(0, true));
	ck_assert(!vpw_migration_held(1, true));
	ck_assert(vpw_migration_held(2, true));
}
END_TEST

/*
 * A run record stamped after the waker's now (note_claim() on another
 * CPU, racing): the task there has just started, so its whole usual run
 * is left, not none (the unsigned now - since would wrap).
 */
START_TEST(test_busy_rest_since_after_now)
{
	struct tctx *c = setup();
	struct wake w = { .c = c };
	int pu = pu_of_core(c, 3, 0), sib = pu_of_core(c, 3, 1);

	busy(c, 3, 1);
	c->runs[sib].since = c->now + 5000;
	c->runs[sib].expect_ns = 1000000;
	ck_assert_uint_eq(busy_rest_ns(&w, &c->pus[os(c, pu)]), 1000000);
	/* and an ordinary record: 1 ms usual, 400 us run, 600 us left */
	c->runs[sib].since = c->now - 400000;
	ck_assert_uint_eq(busy_rest_ns(&w, &c->pus[os(c, pu)]), 600000);
	teardown(c);
}
END_TEST

Suite *
scxwake_suite(void)
{
	Suite *s = suite_create("scxwake");
	TCase *tt = tcase_create("order");

	tcase_add_test(tt, test_home_whole_first);
	tcase_add_test(tt, test_half_home_loses_to_near_core);
	tcase_add_test(tt, test_half_home_loses_to_far_core);
	tcase_add_test(tt, test_smt_prio);
	tcase_add_test(tt, test_soon_idle);
	tcase_add_test(tt, test_idle_pu_prev_first);
	tcase_add_test(tt, test_cache_hot_prev);
	tcase_add_test(tt, test_stay_far_dom);
	tcase_add_test(tt, test_queued_inside_allowed);
	tcase_add_test(tt, test_poll_end);
	tcase_add_test(tt, test_poll_end_probes_once);
	tcase_add_test(tt, test_stay_prev);
	tcase_add_test(tt, test_join_waker);
	tcase_add_test(tt, test_llc_first);
	tcase_add_test(tt, test_busy_host_no_scan);
	tcase_add_test(tt, test_migration_held);
	tcase_add_test(tt, test_busy_rest_since_after_now);
	suite_add_tcase(s, tt);
	return s;
}
