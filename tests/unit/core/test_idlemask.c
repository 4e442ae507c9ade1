/*
 * test_idlemask.c - idlemask.c and its use by scan_core(): the SIS_CORE
 * core-granule rules, rebuilds, false positives and fail-prone scans.
 */
#include <check.h>

#include "../suites.h"
#include "../testutil.h"

/* At most one PU per core in the mask (the core granule). */
static void check_granule(const struct vp_topo *t,
    const struct vp_idlemask *m)
{
	int c;

	for (c = 0; c < t->ncores; c++)
		ck_assert_int_le(cpuset_count_range(&m->mask,
		    t->core[c].first_pu, t->core[c].npus), 1);
	ck_assert_int_eq(cpuset_count_range(&m->mask, t->npus,
	    VP_MAX_PUS - t->npus), 0);
}

START_TEST(test_idlemask_init)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_idlemask m;
	int l;

	ck_assert_int_eq(idlemask_init(&m, t), 0);
	ck_assert(cpuset_empty(&m.mask));
	ck_assert(cpuset_empty(&m.fail_prone));
	ck_assert_int_eq(m.nllcs, t->nllcs);
	ck_assert_ptr_nonnull(m.has_idle_core);
	for (l = 0; l < m.nllcs; l++)
		ck_assert(!m.has_idle_core[l]);
	idlemask_release(&m);
	idlemask_release(&m);	/* a released mask is accepted */
}
END_TEST

/* A PU joins only without a sibling in the mask; the hint comes last. */
static void check_pu_idle(const struct vp_topo *t)
{
	struct vp_idlemask m;
	struct vp_cpuset busy;
	const struct vp_core *c = &t->core[t->ncores / 2 + 1];
	int l = c->llc, k, first = c->first_pu + c->npus - 1;

	ck_assert_int_ge(c->npus, 2);
	ck_assert_int_eq(idlemask_init(&m, t), 0);
	busy = t->all;
	/* the last PU of the core goes idle first */
	cpuset_clear(&busy, first);
	idlemask_pu_idle(&m, t, first, &busy);
	ck_assert(cpuset_test(&m.mask, first));
	ck_assert_int_eq(cpuset_count(&m.mask), 1);
	ck_assert(!m.has_idle_core[l]);
	/* the others follow: none joins, the hint comes with the last */
	for (k = 0; k < c->npus - 1; k++) {
		int pu = c->first_pu + k;

		cpuset_clear(&busy, pu);
		idlemask_pu_idle(&m, t, pu, &busy);
		ck_assert(!cpuset_test(&m.mask, pu));
		ck_assert(cpuset_test(&m.mask, first));
		ck_assert_int_eq(cpuset_count(&m.mask), 1);
		ck_assert(m.has_idle_core[l] == (k == c->npus - 2));
	}
	for (k = 0; k < t->nllcs; k++)
		if (k != l)
			ck_assert(!m.has_idle_core[k]);
	check_granule(t, &m);
	idlemask_release(&m);
}

/* SMT2 and SMT4 on real machines. */
START_TEST(test_idlemask_pu_idle)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"coral-lassen.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);

	check_pu_idle(t);
}
END_TEST

/* SMT8 (POWER8/9 shape, on no real file here): synthetic. */
START_TEST(test_idlemask_pu_idle_smt8)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_synth("pack:1 l3:1 core:4 pu:8");

	ck_assert_int_eq(t->max_smt, 8);
	check_pu_idle(t);
}
END_TEST

/* SMT1: every idle PU is a whole idle core. */
START_TEST(test_idlemask_pu_idle_smt1)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("128arm-2pa2n8cluster4co.xml");
	struct vp_idlemask m;
	struct vp_cpuset busy = t->all;
	int pu = t->llc[2].first_pu + 5;

	ck_assert_int_eq(idlemask_init(&m, t), 0);
	cpuset_clear(&busy, pu);
	idlemask_pu_idle(&m, t, pu, &busy);
	ck_assert(cpuset_test(&m.mask, pu));
	ck_assert(m.has_idle_core[2]);
	ck_assert(!m.has_idle_core[0]);
	idlemask_release(&m);
}
END_TEST

/* Rebuild: one PU per core with an idle PU, its first idle PU. */
START_TEST(test_idlemask_rebuild)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"coral-lassen.xml", "Intel-RaptorLake-Corei7-1370P.xml",
		"knl-snc4-flat-hwloc1.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_idlemask m;
	struct rng r;
	int k;

	ck_assert_int_eq(idlemask_init(&m, t), 0);
	rng_seed(&r, 42 + _i);
	for (k = 0; k < 40; k++) {
		struct vp_cpuset busy, want;
		bool idle_core[64] = { false };
		int c, l;

		rng_set(&r, t, k * 100 / 40, &busy);
		cpuset_zero(&want);
		for (c = 0; c < t->ncores; c++) {
			const struct vp_core *co = &t->core[c];
			int pu = cpuset_next(&t->all, co->first_pu,
			    co->first_pu + co->npus);

			while (pu != VP_PU_NONE && cpuset_test(&busy, pu))
				pu = cpuset_next(&t->all, pu + 1,
				    co->first_pu + co->npus);
			if (pu != VP_PU_NONE)
				cpuset_set(&want, pu);
			if (!cpuset_intersects_range(&busy, co->first_pu,
			    co->npus) && co->llc < 64)
				idle_core[co->llc] = true;
		}
		idlemask_rebuild(&m, t, &busy);
		ck_assert_msg(cpuset_equal(&m.mask, &want),
		    "%s: rebuild %d", files[_i], k);
		check_granule(t, &m);
		for (l = 0; l < t->nllcs && l < 64; l++)
			if (idle_core[l])
				ck_assert(m.has_idle_core[l]);
	}
	idlemask_release(&m);
}
END_TEST

/*
 * One LLC of g4dnmetal all busy but for core X (PUs a, b), with the
 * mask rebuilt while a was idle, then a busy.  Returns a.
 */
static int setup_fp(struct tview *tv, int llc)
{
	const struct vp_topo *t = tv->v.topo;
	const struct vp_core *x = &t->core[t->llc[llc].first_core + 7];
	int a = x->first_pu;

	tv->busy = t->all;
	cpuset_clear(&tv->busy, a);
	tview_sync(tv);
	ck_assert(cpuset_test(&tv->idle.mask, a));
	/* a goes busy and b idle behind the mask's back */
	cpuset_set(&tv->busy, a);
	return a;
}

START_TEST(test_idlemask_false_positive_dropped)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct tview tv;
	enum vp_reason why = VP_REASON_NONE;
	int a, from, pu;

	tview_init(&tv, t);
	a = setup_fp(&tv, 0);
	from = t->llc[0].first_pu + 20;
	pu = scan_core(&tv.v, 0, from, &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	ck_assert_int_eq(pu, VP_PU_NONE);
	ck_assert(!cpuset_test(&tv.idle.mask, a));
	ck_assert_int_ge(tv.v.probes, 1);
	/* the failed scan marks its origin fail-prone */
	ck_assert(cpuset_test(&tv.idle.fail_prone, from));
	tview_release(&tv);
}
END_TEST

/*
 * The mask holds a false positive a whose sibling b is idle (a true
 * negative).  A scan from a PU that is not fail-prone misses b; a scan
 * from a fail-prone PU probes a's siblings and finds it.
 */
static int fp_scan(bool make_fail_prone, bool feature, int *ret_b,
    struct vp_cpuset *ret_fail_prone)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct tview tv;
	enum vp_reason why = VP_REASON_NONE;
	int from, a, pu;

	tview_init(&tv, t);
	tv.feat.on[VP_FEAT_FAIL_PRONE] = feature;
	from = t->llc[0].first_pu + 30;
	tv.busy = t->all;
	tview_sync(&tv);
	if (make_fail_prone) {
		/* everything busy: the scan from @from fails */
		pu = scan_core(&tv.v, 0, from, &t->all,
		    VP_SMT_PREFER_IDLE_CORE, &why);
		ck_assert_int_eq(pu, VP_PU_NONE);
		if (feature)
			ck_assert(cpuset_test(&tv.idle.fail_prone, from));
	}
	/* a and b go idle, a enters the mask, then a goes busy */
	a = t->llc[0].first_pu + 14;
	ck_assert_int_eq(t->pu[a + 1].core, t->pu[a].core);
	cpuset_clear(&tv.busy, a);
	idlemask_pu_idle(&tv.idle, t, a, &tv.busy);
	cpuset_clear(&tv.busy, a + 1);
	idlemask_pu_idle(&tv.idle, t, a + 1, &tv.busy);
	ck_assert(cpuset_test(&tv.idle.mask, a));
	ck_assert(!cpuset_test(&tv.idle.mask, a + 1));
	cpuset_set(&tv.busy, a);
	pu = scan_core(&tv.v, 0, from, &t->all, VP_SMT_PREFER_IDLE_CORE,
	    &why);
	if (pu != VP_PU_NONE) {
		ck_assert(!cpuset_test(&tv.busy, pu));
		ck_assert_int_eq(why, VP_REASON_IDLE_SIBLING);
	}
	*ret_b = a + 1;
	*ret_fail_prone = tv.idle.fail_prone;
	tview_release(&tv);
	return pu;
}

START_TEST(test_idlemask_fail_prone_finds_sibling)
{
	struct vp_cpuset fp;
	int b, pu;

	pu = fp_scan(true, true, &b, &fp);
	ck_assert_int_eq(pu, b);
	/* the successful scan clears the origin's fail-prone bit */
	ck_assert(cpuset_empty(&fp));
}
END_TEST

START_TEST(test_idlemask_not_fail_prone_misses)
{
	struct vp_cpuset fp;
	int b, pu;

	pu = fp_scan(false, true, &b, &fp);
	ck_assert_int_eq(pu, VP_PU_NONE);
	ck_assert_int_eq(cpuset_count(&fp), 1);
}
END_TEST

START_TEST(test_idlemask_fail_prone_feature_off)
{
	struct vp_cpuset fp;
	int b, pu;

	pu = fp_scan(true, false, &b, &fp);
	ck_assert_int_eq(pu, VP_PU_NONE);
}
END_TEST

Suite *idlemask_suite(void)
{
	Suite *s = suite_create("idlemask");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_idlemask_init);
	tcase_add_loop_test(tc, test_idlemask_pu_idle, 0, 2);
	tcase_add_test(tc, test_idlemask_pu_idle_smt8);
	tcase_add_test(tc, test_idlemask_pu_idle_smt1);
	tcase_add_loop_test(tc, test_idlemask_rebuild, 0, 4);
	tcase_add_test(tc, test_idlemask_false_positive_dropped);
	tcase_add_test(tc, test_idlemask_fail_prone_finds_sibling);
	tcase_add_test(tc, test_idlemask_not_fail_prone_misses);
	tcase_add_test(tc, test_idlemask_fail_prone_feature_off);
	suite_add_tcase(s, tc);
	return s;
}
