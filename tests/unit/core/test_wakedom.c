/*
 * test_wakedom.c - wake domains widen only where the LLC is too small to
 * give each vCPU a core: on KNL (an LLC is one tile: 2 cores of 4
 * threads) and POWER9 lassen (an L3 per core pair, SMT4), and not on a
 * host whose LLC is wide (g4dn.metal: 24 cores per L3).
 */
#include <check.h>

#include "core/vcpuplace.h"
#include "../suites.h"
#include "../testutil.h"

/* Every PU's domain at every level holds the PU and has >= 1 core. */
START_TEST(test_domains_hold_their_pus)
{
	static const char *const files[] = { "knl-snc4-flat-hwloc1.xml",
		"coral-lassen.xml", "g4dnmetal.xml" };
	_cleanup_topo_ struct vp_topo *t = load_topo(files[_i]);
	struct vp_cpuset s;
	enum vp_level l;
	int pu;

	for (l = 0; l < VP_LEVEL_COUNT; l++) {
		ck_assert_int_gt(wakedom_count(t, l), 0);
		for (pu = 0; pu < t->npus; pu += 7) {
			int i = wakedom_index(t, pu, l);

			ck_assert_int_ge(i, 0);
			ck_assert_int_lt(i, wakedom_count(t, l));
			wakedom_pus(t, l, i, &s);
			ck_assert(cpuset_test(&s, pu));
			ck_assert_int_ge(wakedom_ncores(t, l, i), 1);
		}
	}
}
END_TEST

/* The level chosen is the first with enough cores, and never narrower. */
static void
check_widen(const struct vp_topo *t, int pu, enum vp_level from, int ncores)
{
	enum vp_level got = wakedom_widen(t, pu, from, ncores), l;

	ck_assert_int_ge(got, from);
	for (l = from; l < got; l++)
		ck_assert_int_lt(wakedom_ncores(t, l, wakedom_index(t, pu, l)),
		    ncores);
	if (got < VP_LEVEL_PACKAGE)
		ck_assert_int_ge(wakedom_ncores(t, got,
		    wakedom_index(t, pu, got)), ncores);
}

START_TEST(test_knl_tile_widens)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("knl-snc4-flat-hwloc1.xml");
	int llc = t->pu[0].llc;

	/* the premise: a KNL LLC (L2 tile) is two cores */
	ck_assert_int_eq(t->llc[llc].ncores, 2);
	/* a 2-vCPU VM fits its tile: no widening */
	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 2), VP_LEVEL_LLC);
	/* a 4-vCPU VM does not: the SNC4 node (a quadrant, 16-18 cores) */
	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 4), VP_LEVEL_NODE);
	/* more than a quadrant: the package */
	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 40),
	    VP_LEVEL_PACKAGE);
	check_widen(t, 0, VP_LEVEL_CLUSTER, 4);
	check_widen(t, t->npus - 1, VP_LEVEL_LLC, 20);
}
END_TEST

START_TEST(test_lassen_core_pair_widens)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	int llc = t->pu[0].llc;

	ck_assert_int_eq(t->llc[llc].ncores, 2);
	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 3),
	    VP_LEVEL_NODE);
	check_widen(t, 0, VP_LEVEL_CLUSTER, 3);
}
END_TEST

START_TEST(test_wide_llc_stays)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");

	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 8), VP_LEVEL_LLC);
	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 24), VP_LEVEL_LLC);
	/* 25 cores is more than one g4dn.metal socket: the package will not
	 * do either, and the package is the widest level */
	ck_assert_int_eq(wakedom_widen(t, 0, VP_LEVEL_LLC, 25),
	    VP_LEVEL_PACKAGE);
}
END_TEST

Suite *
wakedom_suite(void)
{
	Suite *s = suite_create("wakedom");
	TCase *tc = tcase_create("widen");

	tcase_add_loop_test(tc, test_domains_hold_their_pus, 0, 3);
	tcase_add_test(tc, test_knl_tile_widens);
	tcase_add_test(tc, test_lassen_core_pair_widens);
	tcase_add_test(tc, test_wide_llc_stays);
	suite_add_tcase(s, tc);
	return s;
}
