/*
 * test_prio.c - prio.c: SMT-aware priority scores and sibling probes.
 */
#include <check.h>

#include "../suites.h"
#include "../testutil.h"

/* Score = core prio / (1 + busy siblings), for every k on SMT2/SMT4. */
START_TEST(test_prio_score_divides)
{
	static const char *const files[] = { "g4dnmetal.xml",
		"coral-lassen.xml", "knl-snc4-flat-hwloc1.xml",
		"Intel-RaptorLake-Corei7-1370P.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct tview tv;
	int c;

	tview_init(&tv, t);
	for (c = 0; c < t->ncores; c += 3) {
		const struct vp_core *co = &t->core[c];
		int pu = co->first_pu, k, j;
		unsigned int p = t->pu[pu].prio;

		for (k = 0; k < co->npus; k++) {
			unsigned long before;

			cpuset_zero(&tv.busy);
			/* k siblings busy; pu itself busy does not count */
			for (j = 1; j <= k && j < co->npus; j++)
				cpuset_set(&tv.busy, pu + j);
			if (k == co->npus - 1)
				cpuset_set(&tv.busy, pu);
			before = tv.v.probes;
			ck_assert_int_eq(prio_busy_siblings(&tv.v, pu), k);
			ck_assert_uint_eq(tv.v.probes - before,
			    (unsigned long)(co->npus - 1));
			ck_assert_uint_eq(prio_score(&tv.v, pu), p / (1 + k));
		}
	}
	tview_release(&tv);
}
END_TEST

/* A sibling's point of view: the last PU with the first one busy. */
START_TEST(test_prio_score_sibling)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	struct tview tv;
	const struct vp_core *co = &t->core[5];
	int last = co->first_pu + co->npus - 1;
	unsigned int p = t->pu[last].prio;

	tview_init(&tv, t);
	cpuset_set(&tv.busy, co->first_pu);
	ck_assert_int_eq(prio_busy_siblings(&tv.v, last), 1);
	ck_assert_uint_eq(prio_score(&tv.v, last), p / 2);
	/* a busy PU of another core is not a sibling */
	cpuset_set(&tv.busy, co->first_pu + co->npus);
	ck_assert_int_eq(prio_busy_siblings(&tv.v, last), 1);
	cpuset_set(&tv.busy, co->first_pu + 1);
	ck_assert_uint_eq(prio_score(&tv.v, last), p / 3);
	tview_release(&tv);
}
END_TEST

/* SMT_PRIO off: the plain core priority, without probing siblings. */
START_TEST(test_prio_score_feature_off)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct tview tv;
	int pu = t->core[3].first_pu;

	tview_init(&tv, t);
	tv.feat.on[VP_FEAT_SMT_PRIO] = false;
	cpuset_set(&tv.busy, pu + 1);
	tv.v.probes = 0;
	ck_assert_uint_eq(prio_score(&tv.v, pu), t->pu[pu].prio);
	ck_assert_uint_eq(tv.v.probes, 0);
	tview_release(&tv);
}
END_TEST

/* SMT1 cores: nothing to probe, the score is the priority. */
START_TEST(test_prio_score_smt1)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("nvidia-dgx-gb10.xml");
	struct tview tv;
	int pu;

	tview_init(&tv, t);
	tv.busy = t->all;
	for (pu = 0; pu < t->npus; pu++) {
		ck_assert_int_eq(prio_busy_siblings(&tv.v, pu), 0);
		ck_assert_uint_eq(prio_score(&tv.v, pu), t->pu[pu].prio);
	}
	ck_assert_uint_eq(tv.v.probes, 0);
	tview_release(&tv);
}
END_TEST

/*
 * Hybrid RaptorLake: idle P-core > idle E-core > idle sibling of a busy
 * P-core, as scores (the seed's N*P, N*P/2 ordering).
 */
START_TEST(test_prio_score_hybrid)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_topo("Intel-RaptorLake-Corei7-1370P.xml");
	struct tview tv;
	int p0 = os2pu(t, 0), p2 = os2pu(t, 2), e = os2pu(t, 12);
	unsigned int sp, se, ss;

	tview_init(&tv, t);
	cpuset_set(&tv.busy, os2pu(t, 3));
	sp = prio_score(&tv.v, p0);
	se = prio_score(&tv.v, e);
	ss = prio_score(&tv.v, p2);
	ck_assert_uint_gt(sp, se);
	ck_assert_uint_gt(se, ss);
	tview_release(&tv);
}
END_TEST

Suite *prio_suite(void)
{
	Suite *s = suite_create("prio");
	TCase *tc = tcase_create("core");

	tcase_add_loop_test(tc, test_prio_score_divides, 0, 4);
	tcase_add_test(tc, test_prio_score_sibling);
	tcase_add_test(tc, test_prio_score_feature_off);
	tcase_add_test(tc, test_prio_score_smt1);
	tcase_add_test(tc, test_prio_score_hybrid);
	suite_add_tcase(s, tc);
	return s;
}
