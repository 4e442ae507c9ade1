/*
 * test_sweep.c - the sweep's own arithmetic, which the last line of
 * `make bench` rests on: where a curve crosses 1.0 (the break-even
 * migration cost) and which runs count against the bound; and the
 * poll_smt_weight curve (issue 24): 0 to 1, each value reaching its run.
 */
#include <check.h>
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
	suite_add_tcase(s, tc);
	sr = srunner_create(s);
	srunner_run_all(sr, CK_NORMAL);
	failed = srunner_ntests_failed(sr);
	srunner_free(sr);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
