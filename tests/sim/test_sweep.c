/*
 * test_sweep.c - the sweep's own arithmetic, which the last line of
 * `make bench` rests on: where a curve crosses 1.0 (the break-even
 * migration cost) and which runs count against the bound; and the
 * poll_smt_weight curve: 0 to 1, each value reaching its run;
 * and the headroom figures of the last line (headroom.c): bound / stock,
 * best / stock and best / bound, the poll-hit share, and the latency
 * VMs' p99 ratio read from the mix runs only.
 */
#include <check.h>
#include <math.h>
#include <stdlib.h>

#include "../../bench/simulator/sim.h"

START_TEST(test_crossing_interpolates)
{
	static const double x[] = { 1, 2, 4, 7 };
	static const double g[] = { 1.10, 1.05, 0.99, 0.90 };

	/* 1.05 at 2, 0.99 at 4: 1.0 is 5/6 of the way, at 3.667 */
	ck_assert_double_eq_tol(curves_crossing(x, g, 4), 2 + 2.0 * 5 / 6,
	    1e-9);
}
END_TEST

START_TEST(test_crossing_out_of_range)
{
	static const double x[] = { 1, 2, 4 };
	static const double lost[] = { 0.98, 0.95, 0.90 };
	static const double never[] = { 1.20, 1.10, 1.01 };
	static const double touch[] = { 1.20, 1.00, 0.90 };

	ck_assert_double_eq(curves_crossing(x, lost, 3), 0);
	ck_assert_double_eq(curves_crossing(x, never, 3), 5);
	ck_assert_double_eq(curves_crossing(x, touch, 3), 2);
}
END_TEST

START_TEST(test_bound_violations)
{
	struct result res[] = {
		{ .ok = true, .thr = 10.0, .bound = 12.0 },	/* fine */
		{ .ok = true, .thr = 12.5, .bound = 12.0 },	/* above */
		{ .ok = true, .thr = 5.0, .bound = 0 },		/* no bound */
		{ .ok = false, .thr = 99.0, .bound = 1.0 },	/* failed run */
		{ .ok = true, .thr = 12.0, .bound = 12.0 },	/* equal: fine */
	};
	struct sweep sw = { .res = res, .npt = 5 };

	ck_assert_int_eq(summary_bound_violations(&sw), 2);
}
END_TEST

START_TEST(test_pollw_curve)
{
	struct point p = { .fam = FAM_POLLW, .warm_scale = -1 };
	struct run_opts o;
	int k;

	ck_assert_int_eq(pollw_curve.fam, FAM_POLLW);
	ck_assert_int_ge(pollw_curve.n, 3);
	ck_assert_double_eq(pollw_curve.x[0], 0);
	ck_assert_double_eq(pollw_curve.x[pollw_curve.n - 1], 1);
	for (k = 0; k < pollw_curve.n; k++) {
		p.poll_smt_weight = pollw_curve.x[k];
		points_opts(&p, &o);
		ck_assert_double_eq(o.p.poll_smt_weight, pollw_curve.x[k]);
	}
	/* another family keeps the default, 0.5 */
	p.fam = FAM_SMT;
	p.poll_smt_weight = 0;
	points_opts(&p, &o);
	ck_assert_double_eq(o.p.poll_smt_weight, 0.5);
}
END_TEST

/*
 * A sweep of one held-out topology, two workloads at 125 %: hackbench
 * with stock 10 cores (bound 40), scx 12, greedy 20; hogs with stock 30
 * (bound 33), scx 27.  Mix runs: stock's latency VMs 100 us, scx's 150.
 */
static const struct sweep_topo one_topo[] = { { "x.xml", "x", true } };
static struct point pts[] = {
	{ .wl = WL_HACKBENCH, .load_pct = 125, .strat = STRAT_STOCK,
	    .variant = "" },
	{ .wl = WL_HACKBENCH, .load_pct = 125, .strat = STRAT_SCX,
	    .variant = "" },
	{ .wl = WL_HACKBENCH, .load_pct = 125, .strat = STRAT_GREEDY,
	    .variant = "" },
	{ .wl = WL_HOGS, .load_pct = 125, .strat = STRAT_STOCK,
	    .variant = "" },
	{ .wl = WL_HOGS, .load_pct = 125, .strat = STRAT_SCX, .variant = "" },
	{ .wl = WL_HOGS, .load_pct = 125, .strat = STRAT_STOCK,
	    .variant = "mix", .fam = FAM_MIX },
	{ .wl = WL_HOGS, .load_pct = 125, .strat = STRAT_SCX,
	    .variant = "mix", .fam = FAM_MIX },
};
static struct result res[] = {
	{ .ok = true, .thr = 10, .bound = 40, .poll_share = 0.2,
	    .host_p99 = 100000 },
	{ .ok = true, .thr = 12, .bound = 40, .poll_share = 0.6,
	    .host_p99 = 800000 },
	{ .ok = true, .thr = 20, .bound = 40 },
	{ .ok = true, .thr = 30, .bound = 33, .poll_share = 0.4,
	    .host_p99 = 100000 },
	{ .ok = true, .thr = 27, .bound = 33, .poll_share = 0.2,
	    .host_p99 = 50000 },
	/* the mix runs' throughput is not the standard model's: unread */
	{ .ok = true, .thr = 99, .bound = 33, .lat_p99 = 100000 },
	{ .ok = true, .thr = 99, .bound = 33, .lat_p99 = 150000 },
};

static struct sweep
small_sweep(void)
{
	struct sweep sw = { .topo = one_topo, .ntopo = 1, .pt = pts,
	    .res = res, .npt = (int)(sizeof(pts) / sizeof(*pts)) };

	return sw;
}

START_TEST(test_headroom_pair)
{
	struct sweep sw = small_sweep();
	struct headroom h = headroom_pair(&sw, 0, WL_HACKBENCH, 125);

	ck_assert_int_eq(h.n, 1);
	ck_assert_double_eq_tol(h.bound_stock, 4.0, 1e-9);
	/* greedy's 20 is the best reached, not scx's 12 */
	ck_assert_double_eq_tol(h.best_stock, 2.0, 1e-9);
	ck_assert_double_eq_tol(h.best_bound, 0.5, 1e-9);
	/* hogs: stock's own 30 is the best; the mix's 99 is not read */
	h = headroom_pair(&sw, 0, WL_HOGS, 125);
	ck_assert_double_eq_tol(h.best_stock, 1.0, 1e-9);
	ck_assert_double_eq_tol(h.bound_stock, 1.1, 1e-9);
	h = headroom_pair(&sw, 0, WL_TBENCH, 125);
	ck_assert_int_eq(h.n, 0);
}
END_TEST

START_TEST(test_headroom_set)
{
	struct sweep sw = small_sweep();
	struct headroom h = headroom_of(&sw, true, 125, -1);

	ck_assert_int_eq(h.n, 2);
	/* geometric means of 4.0 and 1.1, of 2.0 and 1.0 */
	ck_assert_double_eq_tol(h.bound_stock, sqrt(4.0 * 1.1), 1e-9);
	ck_assert_double_eq_tol(h.best_stock, sqrt(2.0), 1e-9);
	/* the tuning set has no topology here */
	ck_assert_int_eq(headroom_of(&sw, false, 125, -1).n, 0);
}
END_TEST

START_TEST(test_headroom_poll_and_latency)
{
	struct sweep sw = small_sweep();

	ck_assert_double_eq_tol(headroom_poll_share(&sw, true, 125,
	    STRAT_STOCK), 0.3, 1e-9);
	ck_assert_double_eq_tol(headroom_poll_share(&sw, true, 125,
	    STRAT_SCX), 0.4, 1e-9);
	ck_assert_double_eq_tol(headroom_latency_vm_ratio(&sw, true, 125,
	    STRAT_SCX), 1.5, 1e-9);
	/* host tasks: 8x on hackbench, 0.5x on hogs: a mean of 2 */
	ck_assert_double_eq_tol(headroom_host_p99_ratio(&sw, true, 125,
	    STRAT_SCX), 2.0, 1e-9);
	/* no mix run of daemon: no figure, not a ratio of zeros */
	ck_assert_double_eq(headroom_latency_vm_ratio(&sw, true, 125,
	    STRAT_DAEMON), 0);
}
END_TEST

START_TEST(test_kick_curve)
{
	struct point p = { .fam = FAM_KICK, .warm_scale = -1,
	    .poll_smt_weight = -1 };
	struct run_opts o;
	int k;

	/* from a free kick (the older model's) to 4 us */
	ck_assert_double_eq(kick_curve.x[0], 0);
	ck_assert_double_ge(kick_curve.x[kick_curve.n - 1], 4000);
	for (k = 0; k < kick_curve.n; k++) {
		p.scx_kick_ns = kick_curve.x[k];
		points_opts(&p, &o);
		ck_assert_uint_eq(o.p.scx_kick_ns,
		    (uint64_t)kick_curve.x[k]);
	}
	/* another family keeps the model's 1 us */
	p.fam = FAM_BPF;
	p.scx_kick_ns = 0;
	points_opts(&p, &o);
	ck_assert_uint_eq(o.p.scx_kick_ns, 1000);
}
END_TEST

int
main(void)
{
	Suite *s = suite_create("sweep");
	TCase *tc = tcase_create("arith");
	SRunner *sr;
	int failed;

	tcase_add_test(tc, test_crossing_interpolates);
	tcase_add_test(tc, test_crossing_out_of_range);
	tcase_add_test(tc, test_bound_violations);
	tcase_add_test(tc, test_pollw_curve);
	tcase_add_test(tc, test_kick_curve);
	tcase_add_test(tc, test_headroom_pair);
	tcase_add_test(tc, test_headroom_set);
	tcase_add_test(tc, test_headroom_poll_and_latency);
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
