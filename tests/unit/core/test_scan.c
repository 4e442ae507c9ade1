/*
 * test_scan.c - scan.c: the core-granule scan (cluster-first start,
 * SMT-aware priority, isolate), the linear reference scan, probe counts
 * and the features that switch the heuristics off.
 */
#include <check.h>

#include "../suites.h"
#include "../testutil.h"

static int scan(struct tview *tv, int llc, int from,
    const struct vp_cpuset *allowed, enum vp_smt smt, enum vp_reason *why)
{
	*why = VP_REASON_NONE;
	return scan_core(&tv->v, llc, from, allowed, smt, why);
}

/*
 * 128arm: the scan starts at the first PU of the origin's cluster, then
 * walks the LLC forward, wrapping; all PUs are equal SMT1 cores.
 */
START_TEST(test_scan_cluster_first)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("128arm-2pa2n8cluster4co.xml");
	const struct vp_llc *ll = &t->llc[1];
	const struct vp_cluster *k = &t->cluster[ll->first_cluster + 3];
	int from = k->first_pu + k->npus - 1;
	int lower = t->cluster[ll->first_cluster + 1].first_pu + 2;
	int higher = t->cluster[ll->first_cluster + 5].first_pu + 1;
	enum vp_reason why;
	struct tview tv;
	int pu;

	tview_init(&tv, t);
	tv.busy = t->all;
	cpuset_clear(&tv.busy, k->first_pu);
	cpuset_clear(&tv.busy, k->first_pu + 2);
	cpuset_clear(&tv.busy, lower);
	cpuset_clear(&tv.busy, higher);
	tview_sync(&tv);
	pu = scan(&tv, 1, from, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
	ck_assert_int_eq(pu, k->first_pu);
	ck_assert_int_eq(why, VP_REASON_IDLE_CORE);

	/* without an idle PU in its own cluster: the next cluster up */
	cpuset_set(&tv.busy, k->first_pu);
	cpuset_set(&tv.busy, k->first_pu + 2);
	tview_sync(&tv);
	pu = scan(&tv, 1, from, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
	ck_assert_int_eq(pu, higher);

	/* the start does not depend on where in the cluster @from is */
	cpuset_clear(&tv.busy, k->first_pu + 2);
	tview_sync(&tv);
	pu = scan(&tv, 1, k->first_pu, &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_eq(pu, k->first_pu + 2);
	pu = scan(&tv, 1, from, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
	ck_assert_int_eq(pu, k->first_pu + 2);
	tview_release(&tv);
}
END_TEST

START_TEST(test_scan_cluster_first_off)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("128arm-2pa2n8cluster4co.xml");
	const struct vp_llc *ll = &t->llc[1];
	const struct vp_cluster *k = &t->cluster[ll->first_cluster + 3];
	int from = k->first_pu + k->npus - 1;
	int lower = t->cluster[ll->first_cluster + 1].first_pu + 2;
	int higher = t->cluster[ll->first_cluster + 5].first_pu + 1;
	enum vp_reason why;
	struct tview tv;
	int pu;

	tview_init(&tv, t);
	tv.feat.on[VP_FEAT_CLUSTER_FIRST] = false;
	tv.busy = t->all;
	cpuset_clear(&tv.busy, k->first_pu);
	cpuset_clear(&tv.busy, lower);
	cpuset_clear(&tv.busy, higher);
	tview_sync(&tv);
	pu = scan(&tv, 1, from, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
	ck_assert_int_ne(pu, k->first_pu);
	ck_assert(pu == lower || pu == higher);
	tview_release(&tv);
}
END_TEST

/*
 * Property, fixed seed: with smt=prefer-idle-core no PU with a busy
 * sibling is picked while a core fully inside allowed & LLC is idle;
 * isolate only returns whole idle cores; every result is idle and
 * allowed; a scan fails only when the mask has nothing allowed.
 */
static const char *const prop_files[] = { "g4dnmetal.xml",
	"coral-lassen.xml", "knl-snc4-flat-hwloc1.xml",
	"Intel-RaptorLake-Corei7-1370P.xml",
	"AMD-1Ah-Zen5StrixPoint-RyzenAI9HX370.xml" };

START_TEST(test_scan_idle_core_property)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(prop_files[_i]);
	struct tview tv;
	struct rng r;
	int trial;

	tview_init(&tv, t);
	rng_seed(&r, 1234 + _i);
	for (trial = 0; trial < 400; trial++) {
		struct vp_cpuset allowed;
		int llc = rng_below(&r, t->nllcs);
		const struct vp_llc *ll = &t->llc[llc];
		int from = ll->first_pu + rng_below(&r, ll->npus);
		bool idle_core = false, any = false;
		enum vp_reason why;
		int pu, c;

		rng_set(&r, t, 20 + rng_below(&r, 80), &tv.busy);
		if (rng_below(&r, 2))
			allowed = t->all;
		else
			rng_set(&r, t, 60 + rng_below(&r, 40), &allowed);
		tview_sync(&tv);
		for (c = ll->first_core; c < ll->first_core + ll->ncores; c++)
			if (core_inside(t, &allowed, t->core[c].first_pu) &&
			    core_idle(t, &tv.busy, t->core[c].first_pu))
				idle_core = true;
		any = cpuset_next_and(&tv.idle.mask, &allowed, ll->first_pu,
		    ll->first_pu + ll->npus) != VP_PU_NONE;

		pu = scan(&tv, llc, from, &allowed, VP_SMT_PREFER_IDLE_CORE,
		    &why);
		ck_assert_msg(pu != VP_PU_NONE || !any,
		    "%s trial %d: missed an idle PU", prop_files[_i], trial);
		if (pu != VP_PU_NONE) {
			ck_assert(cpuset_test(&allowed, pu));
			ck_assert(!cpuset_test(&tv.busy, pu));
			ck_assert_int_eq(t->pu[pu].llc, llc);
			if (idle_core)
				ck_assert_msg(core_idle(t, &tv.busy, pu),
				    "%s trial %d: PU %d has a busy sibling "
				    "while a core is idle", prop_files[_i],
				    trial, pu);
			if (!core_idle(t, &tv.busy, pu))
				ck_assert_int_eq(why, VP_REASON_IDLE_SIBLING);
			if (why == VP_REASON_IDLE_CORE)
				ck_assert(core_idle(t, &tv.busy, pu));
			ck_assert(why == VP_REASON_IDLE_CORE ||
			    why == VP_REASON_IDLE_SIBLING);
		}

		tview_sync(&tv);
		pu = scan(&tv, llc, from, &allowed, VP_SMT_ISOLATE, &why);
		if (idle_core)
			ck_assert_int_ne(pu, VP_PU_NONE);
		if (pu != VP_PU_NONE) {
			ck_assert(cpuset_test(&allowed, pu));
			ck_assert_int_eq(t->pu[pu].llc, llc);
			ck_assert_msg(core_idle(t, &tv.busy, pu),
			    "%s trial %d: isolate gave a busy sibling",
			    prop_files[_i], trial);
			ck_assert_int_eq(why, VP_REASON_IDLE_CORE);
		}

		tview_sync(&tv);
		pu = scan(&tv, llc, from, &allowed, VP_SMT_ANY, &why);
		ck_assert(pu != VP_PU_NONE || !any);
		if (pu != VP_PU_NONE) {
			ck_assert(cpuset_test(&allowed, pu));
			ck_assert(!cpuset_test(&tv.busy, pu));
			ck_assert_int_eq(t->pu[pu].llc, llc);
		}
	}
	tview_release(&tv);
}
END_TEST

/* RaptorLake: idle P-core > idle E-core > idle sibling of a busy P. */
START_TEST(test_scan_hybrid_raptorlake)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	static const unsigned int froms[] = { 0, 8, 13, 19 };
	enum vp_reason why;
	struct tview tv;
	unsigned int i;
	int pu;

	tview_init(&tv, t);
	ck_assert_int_eq(t->nllcs, 1);
	for (i = 0; i < sizeof(froms) / sizeof(froms[0]); i++) {
		/* a whole idle P-core, an idle E-core, a half-busy P-core */
		tv.busy = t->all;
		cpuset_clear(&tv.busy, os2pu(t, 4));
		cpuset_clear(&tv.busy, os2pu(t, 5));
		cpuset_clear(&tv.busy, os2pu(t, 13));
		cpuset_clear(&tv.busy, os2pu(t, 8));
		tview_sync(&tv);
		pu = scan(&tv, 0, os2pu(t, froms[i]), &t->all,
		    VP_SMT_PREFER_IDLE_CORE, &why);
		ck_assert_msg(pu == os2pu(t, 4) || pu == os2pu(t, 5),
		    "from OS %u: got OS %u", froms[i],
		    pu == VP_PU_NONE ? 9999 : t->pu[pu].os_index);
		ck_assert_int_eq(why, VP_REASON_IDLE_CORE);

		/* no whole idle P-core: the E-core */
		cpuset_set(&tv.busy, os2pu(t, 5));
		tview_sync(&tv);
		pu = scan(&tv, 0, os2pu(t, froms[i]), &t->all,
		    VP_SMT_PREFER_IDLE_CORE, &why);
		ck_assert_int_eq(pu, os2pu(t, 13));
		ck_assert_int_eq(why, VP_REASON_IDLE_CORE);
	}
	tview_release(&tv);
}
END_TEST

/* All P-cores half busy, E-cores idle: an E-core wins (SMT_PRIO). */
START_TEST(test_scan_hybrid_half_busy_p)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	enum vp_reason why;
	struct tview tv;
	unsigned int os;
	int pu;

	tview_init(&tv, t);
	for (os = 1; os < 12; os += 2)
		cpuset_set(&tv.busy, os2pu(t, os));
	tview_sync(&tv);
	pu = scan(&tv, 0, os2pu(t, 0), &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_ne(pu, VP_PU_NONE);
	ck_assert_uint_ge(t->pu[pu].os_index, 12);
	ck_assert_int_eq(why, VP_REASON_IDLE_CORE);

	/* SMT_PRIO off: the plain priority of the P-core sibling wins */
	tv.feat.on[VP_FEAT_SMT_PRIO] = false;
	tview_sync(&tv);
	pu = scan(&tv, 0, os2pu(t, 0), &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_ne(pu, VP_PU_NONE);
	ck_assert_uint_lt(t->pu[pu].os_index, 12);
	ck_assert(!cpuset_test(&tv.busy, pu));
	tview_release(&tv);
}
END_TEST

/* gb10: the high-capacity kind wins whatever the origin. */
START_TEST(test_scan_hybrid_gb10)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("nvidia-dgx-gb10.xml");
	enum vp_reason why;
	struct tview tv;
	int l, pu;

	tview_init(&tv, t);
	for (l = 0; l < t->nllcs; l++) {
		const struct vp_llc *ll = &t->llc[l];
		int hi = VP_PU_NONE, lo = VP_PU_NONE, lo2 = VP_PU_NONE, p;

		/* the last fast PU, the first two slow ones */
		for (p = ll->first_pu; p < ll->first_pu + ll->npus; p++) {
			if (t->pu[p].prio == ll->max_prio)
				hi = p;
			else if (lo == VP_PU_NONE)
				lo = p;
			else if (lo2 == VP_PU_NONE)
				lo2 = p;
		}
		ck_assert_int_ne(hi, VP_PU_NONE);
		ck_assert_int_ne(lo2, VP_PU_NONE);
		tv.busy = t->all;
		cpuset_clear(&tv.busy, hi);
		cpuset_clear(&tv.busy, lo);
		cpuset_clear(&tv.busy, lo2);
		tview_sync(&tv);
		pu = scan(&tv, l, lo, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
		ck_assert_int_eq(pu, hi);
		pu = scan(&tv, l, hi, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
		ck_assert_int_eq(pu, hi);
		/* not allowed: the slow ones are next */
		{
			struct vp_cpuset a = t->all;

			cpuset_clear(&a, hi);
			pu = scan(&tv, l, lo, &a, VP_SMT_PREFER_IDLE_CORE,
			    &why);
			ck_assert(pu == lo || pu == lo2);
		}
	}
	tview_release(&tv);
}
END_TEST

/*
 * smt=any: the first idle PU in scan order, priority and SMT ignored.
 * RaptorLake from an E-core: the scan starts in the E-core cluster, so
 * an idle E-core comes before the idle P-core.
 */
START_TEST(test_scan_smt_any_first_idle)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	int from = os2pu(t, 12), e = os2pu(t, 14), p = os2pu(t, 4);
	enum vp_reason why;
	struct tview tv;
	int pu;

	/* the P-core is outside the walk from 12 to 14 */
	ck_assert(p < t->cluster[t->pu[from].cluster].first_pu);
	tview_init(&tv, t);
	tv.busy = t->all;
	cpuset_clear(&tv.busy, e);
	cpuset_clear(&tv.busy, p);
	cpuset_clear(&tv.busy, os2pu(t, 5));
	tview_sync(&tv);
	pu = scan(&tv, 0, from, &t->all, VP_SMT_ANY, &why);
	ck_assert_msg(pu == e, "smt=any picked OS %u, first idle is OS 14",
	    pu == VP_PU_NONE ? 9999 : t->pu[pu].os_index);
	/* prefer-idle-core does weigh: the whole idle P-core */
	tview_sync(&tv);
	pu = scan(&tv, 0, from, &t->all, VP_SMT_PREFER_IDLE_CORE, &why);
	ck_assert_int_eq(t->pu[pu].core, t->pu[p].core);
	tview_release(&tv);
}
END_TEST

/*
 * A clear has_idle_core hint promises that the LLC has no whole idle
 * core.  A scan that stops early at an idle sibling (smt=any) has not
 * seen the whole LLC, so it must not clear the hint; the next
 * prefer-idle-core scan still finds the idle core.
 */
START_TEST(test_scan_hint_survives_early_stop)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *ll = &t->llc[0];
	int y = t->core[ll->first_core + 1].first_pu;
	int x = t->core[ll->first_core + 9].first_pu;
	enum vp_reason why;
	struct tview tv;
	int pu;

	tview_init(&tv, t);
	tv.busy = t->all;
	cpuset_clear(&tv.busy, y);	/* its sibling y + 1 stays busy */
	cpuset_clear(&tv.busy, x);
	cpuset_clear(&tv.busy, x + 1);
	tview_sync(&tv);
	ck_assert(tv.idle.has_idle_core[0]);
	pu = scan(&tv, 0, ll->first_pu, &t->all, VP_SMT_ANY, &why);
	ck_assert(pu == y || pu == x || pu == x + 1);
	ck_assert_msg(tv.idle.has_idle_core[0],
	    "hint cleared while core of PU %d is idle", x);
	pu = scan(&tv, 0, ll->first_pu, &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_eq(t->pu[pu].core, t->pu[x].core);
	ck_assert_int_eq(why, VP_REASON_IDLE_CORE);
	tview_release(&tv);
}
END_TEST

/* smt=isolate: never a PU with a busy sibling, VP_PU_NONE instead. */
START_TEST(test_scan_isolate)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	const struct vp_llc *ll = &t->llc[3];
	enum vp_reason why;
	struct tview tv;
	int c, pu;

	tview_init(&tv, t);
	tv.busy = t->all;
	/* every core of the LLC has one busy PU and three idle */
	for (c = ll->first_core; c < ll->first_core + ll->ncores; c++) {
		int p;

		for (p = 1; p < t->core[c].npus; p++)
			cpuset_clear(&tv.busy, t->core[c].first_pu + p);
	}
	tview_sync(&tv);
	pu = scan(&tv, 3, ll->first_pu, &t->all, VP_SMT_ISOLATE, &why);
	ck_assert_int_eq(pu, VP_PU_NONE);
	tview_sync(&tv);
	pu = scan(&tv, 3, ll->first_pu, &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_ne(pu, VP_PU_NONE);
	ck_assert_int_eq(why, VP_REASON_IDLE_SIBLING);
	/* the last core goes fully idle */
	c = ll->first_core + ll->ncores - 1;
	cpuset_clear(&tv.busy, t->core[c].first_pu);
	tview_sync(&tv);
	pu = scan(&tv, 3, ll->first_pu, &t->all, VP_SMT_ISOLATE, &why);
	ck_assert_int_ne(pu, VP_PU_NONE);
	ck_assert_int_eq(t->pu[pu].core, c);
	ck_assert_int_eq(why, VP_REASON_IDLE_CORE);
	tview_release(&tv);
}
END_TEST

/* g4dnmetal LLC of OS 0: OS 0-23,48-71, siblings at +48. */
START_TEST(test_scan_linear)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	int llc = t->pu[os2pu(t, 0)].llc, target = os2pu(t, 5);
	struct vp_cpuset allowed;
	enum vp_reason why;
	struct tview tv;

	tview_init(&tv, t);
	tv.busy = t->all;
	tview_sync(&tv);
	ck_assert_int_eq(scan_linear(&tv.v, llc, target, &t->all, &why),
	    VP_PU_NONE);
	ck_assert_uint_ge(tv.v.probes, 47);

	cpuset_clear(&tv.busy, os2pu(t, 3));
	cpuset_clear(&tv.busy, os2pu(t, 60));
	tview_sync(&tv);
	tv.idle.has_idle_core[llc] = false;
	ck_assert_int_eq(scan_linear(&tv.v, llc, target, &t->all, &why),
	    os2pu(t, 60));
	/* OS 6..23, 48..60: 31 probes */
	ck_assert_uint_eq(tv.v.probes, 31);

	/* wrap: only OS 3 */
	cpuset_set(&tv.busy, os2pu(t, 60));
	tview_sync(&tv);
	tv.idle.has_idle_core[llc] = false;
	ck_assert_int_eq(scan_linear(&tv.v, llc, target, &t->all, &why),
	    os2pu(t, 3));

	/* OS order, not dense order: OS 10 before OS 60 */
	cpuset_clear(&tv.busy, os2pu(t, 60));
	cpuset_clear(&tv.busy, os2pu(t, 10));
	tview_sync(&tv);
	tv.idle.has_idle_core[llc] = false;
	ck_assert_int_eq(scan_linear(&tv.v, llc, target, &t->all, &why),
	    os2pu(t, 10));
	/* inside allowed only */
	allowed = t->all;
	cpuset_clear(&allowed, os2pu(t, 10));
	ck_assert_int_eq(scan_linear(&tv.v, llc, target, &allowed, &why),
	    os2pu(t, 60));
	/* another LLC's idle PU is never returned */
	cpuset_set(&tv.busy, os2pu(t, 3));
	cpuset_set(&tv.busy, os2pu(t, 10));
	cpuset_set(&tv.busy, os2pu(t, 60));
	cpuset_clear(&tv.busy, os2pu(t, 30));
	tview_sync(&tv);
	ck_assert_int_eq(scan_linear(&tv.v, llc, target, &t->all, &why),
	    VP_PU_NONE);
	tview_release(&tv);
}
END_TEST

START_TEST(test_scan_linear_idle_core_hint)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	int llc = t->pu[os2pu(t, 0)].llc, target = os2pu(t, 5), pu;
	enum vp_reason why;
	struct tview tv;

	tview_init(&tv, t);
	tv.busy = t->all;
	/* OS 10 idle (sibling 58 busy), core of OS 20 (20, 68) idle */
	cpuset_clear(&tv.busy, os2pu(t, 10));
	cpuset_clear(&tv.busy, os2pu(t, 20));
	cpuset_clear(&tv.busy, os2pu(t, 68));
	tview_sync(&tv);
	tv.idle.has_idle_core[llc] = true;
	pu = scan_linear(&tv.v, llc, target, &t->all, &why);
	ck_assert_int_eq(pu, os2pu(t, 20));
	tv.idle.has_idle_core[llc] = false;
	pu = scan_linear(&tv.v, llc, target, &t->all, &why);
	ck_assert_int_eq(pu, os2pu(t, 10));

	/* hint set but no idle core: the hint is cleared */
	cpuset_set(&tv.busy, os2pu(t, 68));
	tview_sync(&tv);
	tv.idle.has_idle_core[llc] = true;
	pu = scan_linear(&tv.v, llc, target, &t->all, &why);
	ck_assert(!tv.idle.has_idle_core[llc]);
	ck_assert(pu == VP_PU_NONE || !cpuset_test(&tv.busy, pu));
	tview_release(&tv);
}
END_TEST

/*
 * SIS_CORE off: the candidates are every PU of the LLC, not the idle
 * mask, so a stale (empty) mask hides nothing; the choice rules stay.
 */
START_TEST(test_scan_sis_core_off)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"coral-lassen.xml", "Intel-RaptorLake-Corei7-1370P.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct tview on, off;
	struct rng r;
	int trial;

	tview_init(&on, t);
	tview_init(&off, t);
	off.feat.on[VP_FEAT_SIS_CORE] = false;
	rng_seed(&r, 77 + _i);
	for (trial = 0; trial < 200; trial++) {
		int llc = rng_below(&r, t->nllcs), c;
		const struct vp_llc *ll = &t->llc[llc];
		int from = ll->first_pu + rng_below(&r, ll->npus);
		bool idle = false, idle_core = false;
		enum vp_reason why;
		int pa, pb;

		/* the masks know nothing: everything went idle unseen */
		on.busy = t->all;
		off.busy = t->all;
		tview_sync(&on);
		tview_sync(&off);
		rng_set(&r, t, 40 + rng_below(&r, 60), &on.busy);
		off.busy = on.busy;
		on.idle.has_idle_core[llc] = true;
		off.idle.has_idle_core[llc] = true;
		for (c = ll->first_core; c < ll->first_core + ll->ncores; c++)
			idle_core |= core_idle(t, &off.busy,
			    t->core[c].first_pu);
		idle = cpuset_count_range(&off.busy, ll->first_pu, ll->npus) <
		    ll->npus;

		pa = scan(&on, llc, from, &t->all, VP_SMT_PREFER_IDLE_CORE,
		    &why);
		ck_assert_int_eq(pa, VP_PU_NONE);
		ck_assert_uint_eq(on.v.probes, 0);
		pb = scan(&off, llc, from, &t->all, VP_SMT_PREFER_IDLE_CORE,
		    &why);
		ck_assert(idle == (pb != VP_PU_NONE));
		if (pb == VP_PU_NONE)
			continue;
		ck_assert(!cpuset_test(&off.busy, pb));
		ck_assert_int_eq(t->pu[pb].llc, llc);
		if (idle_core)
			ck_assert_msg(core_idle(t, &off.busy, pb),
			    "%s trial %d: busy sibling with an idle core",
			    files[_i], trial);
		ck_assert(why == (core_idle(t, &off.busy, pb) ?
		    VP_REASON_IDLE_CORE : VP_REASON_IDLE_SIBLING));
	}
	tview_release(&on);
	tview_release(&off);
}
END_TEST

/*
 * Hint clear (no whole idle core in the LLC): the first idle candidate
 * of the best priority wins without probing siblings, one probe.
 */
START_TEST(test_scan_no_idle_core_hint)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	const struct vp_llc *ll = &t->llc[1];
	enum vp_reason why;
	struct tview tv;
	int pu, c;

	tview_init(&tv, t);
	tv.busy = t->all;
	for (c = 3; c < ll->ncores; c += 5)
		cpuset_clear(&tv.busy, t->core[ll->first_core + c].first_pu +
		    1);
	tview_sync(&tv);
	tv.idle.has_idle_core[1] = false;
	pu = scan(&tv, 1, ll->first_pu, &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_eq(pu, t->core[ll->first_core + 3].first_pu + 1);
	ck_assert_int_eq(why, VP_REASON_IDLE_SIBLING);
	ck_assert_uint_eq(tv.v.probes, 1);
	tview_release(&tv);
}
END_TEST

/*
 * Probe counts at 90% busy on g4dnmetal, many seeded trials: the core
 * scan probes fewer PUs in total than the linear scan, and finds an idle
 * PU exactly when the linear scan does.
 */
START_TEST(test_scan_probe_counts)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	unsigned long pcore = 0, plin = 0;
	struct tview a, b;
	struct rng r;
	int trial;

	tview_init(&a, t);
	tview_init(&b, t);
	rng_seed(&r, 90);
	for (trial = 0; trial < 2000; trial++) {
		int llc = rng_below(&r, t->nllcs);
		int from = t->llc[llc].first_pu +
		    rng_below(&r, t->llc[llc].npus);
		enum vp_reason wa, wb;
		int pa, pb;

		rng_set(&r, t, 90, &a.busy);
		b.busy = a.busy;
		tview_sync(&a);
		tview_sync(&b);
		pa = scan_core(&a.v, llc, from, &t->all,
		    VP_SMT_PREFER_IDLE_CORE, &wa);
		pb = scan_linear(&b.v, llc, from, &t->all, &wb);
		ck_assert((pa == VP_PU_NONE) == (pb == VP_PU_NONE));
		pcore += a.v.probes;
		plin += b.v.probes;
	}
	ck_assert_msg(pcore < plin, "core scan %lu probes, linear %lu",
	    pcore, plin);
	tview_release(&a);
	tview_release(&b);
}
END_TEST

Suite *scan_suite(void)
{
	Suite *s = suite_create("scan");
	TCase *tc = tcase_create("core");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_scan_cluster_first);
	tcase_add_test(tc, test_scan_cluster_first_off);
	tcase_add_loop_test(tc, test_scan_idle_core_property, 0,
	    sizeof(prop_files) / sizeof(prop_files[0]));
	tcase_add_test(tc, test_scan_hybrid_raptorlake);
	tcase_add_test(tc, test_scan_hybrid_half_busy_p);
	tcase_add_test(tc, test_scan_hybrid_gb10);
	tcase_add_test(tc, test_scan_smt_any_first_idle);
	tcase_add_test(tc, test_scan_hint_survives_early_stop);
	tcase_add_test(tc, test_scan_isolate);
	tcase_add_test(tc, test_scan_linear);
	tcase_add_test(tc, test_scan_linear_idle_core_hint);
	tcase_add_loop_test(tc, test_scan_sis_core_off, 0, 3);
	tcase_add_test(tc, test_scan_no_idle_core_hint);
	tcase_add_test(tc, test_scan_probe_counts);
	suite_add_tcase(s, tc);
	return s;
}
