/*
 * test_cpuset.c - cpuset.c: bit operations, counts and searches, with
 * the word boundaries and the last bit of VP_MAX_PUS.
 */
#include <check.h>

#include "../suites.h"
#include "core/vcpuplace.h"

static const int edges[] = { 0, 1, 62, 63, 64, 65, 127, 128,
	VP_MAX_PUS - 65, VP_MAX_PUS - 64, VP_MAX_PUS - 2, VP_MAX_PUS - 1 };
#define NEDGES ((int)(sizeof(edges) / sizeof(edges[0])))

START_TEST(test_cpuset_zero_empty)
{
	struct vp_cpuset s;
	int i;

	for (i = 0; i < VP_CPUSET_WORDS; i++)
		s.w[i] = ~0ULL;
	cpuset_zero(&s);
	ck_assert(cpuset_empty(&s));
	ck_assert_int_eq(cpuset_count(&s), 0);
	ck_assert_int_eq(cpuset_first(&s), VP_PU_NONE);
	ck_assert_int_eq(cpuset_next(&s, 0, VP_MAX_PUS), VP_PU_NONE);
}
END_TEST

/* Each edge bit alone: set, test, count, first, next, clear. */
START_TEST(test_cpuset_edge_bits)
{
	int b = edges[_i], j;
	struct vp_cpuset s;

	cpuset_zero(&s);
	cpuset_set(&s, b);
	ck_assert(!cpuset_empty(&s));
	ck_assert(cpuset_test(&s, b));
	for (j = 0; j < NEDGES; j++)
		if (edges[j] != b)
			ck_assert(!cpuset_test(&s, edges[j]));
	ck_assert_int_eq(cpuset_count(&s), 1);
	ck_assert_int_eq(cpuset_first(&s), b);
	ck_assert_int_eq(cpuset_next(&s, 0, VP_MAX_PUS), b);
	ck_assert_int_eq(cpuset_next(&s, b, VP_MAX_PUS), b);
	ck_assert_int_eq(cpuset_next(&s, b, b + 1), b);
	ck_assert_int_eq(cpuset_next(&s, b, b), VP_PU_NONE);
	ck_assert_int_eq(cpuset_next(&s, 0, b), VP_PU_NONE);
	ck_assert_int_eq(cpuset_next(&s, b + 1, VP_MAX_PUS), VP_PU_NONE);
	ck_assert_int_eq(cpuset_count_range(&s, b, 1), 1);
	ck_assert_int_eq(cpuset_count_range(&s, 0, b), 0);
	ck_assert_int_eq(cpuset_count_range(&s, 0, VP_MAX_PUS), 1);
	ck_assert(cpuset_intersects_range(&s, b, 1));
	ck_assert(!cpuset_intersects_range(&s, 0, b));
	ck_assert(!cpuset_intersects_range(&s, b + 1, VP_MAX_PUS - b - 1));
	cpuset_clear(&s, b);
	ck_assert(cpuset_empty(&s));
	ck_assert(!cpuset_test(&s, b));
}
END_TEST

/* set_range against bit-by-bit sets, across word boundaries. */
START_TEST(test_cpuset_set_range)
{
	static const int r[][2] = { { 0, 1 }, { 0, 64 }, { 1, 63 },
		{ 63, 2 }, { 60, 70 }, { 64, 64 }, { 0, VP_MAX_PUS },
		{ VP_MAX_PUS - 1, 1 }, { VP_MAX_PUS - 130, 130 },
		{ 100, 0 }, { 5, 1000 } };
	unsigned int k;

	for (k = 0; k < sizeof(r) / sizeof(r[0]); k++) {
		struct vp_cpuset a, b;
		int i;

		cpuset_zero(&a);
		cpuset_zero(&b);
		cpuset_set_range(&a, r[k][0], r[k][1]);
		for (i = r[k][0]; i < r[k][0] + r[k][1]; i++)
			cpuset_set(&b, i);
		ck_assert_msg(cpuset_equal(&a, &b), "range %d+%d", r[k][0],
		    r[k][1]);
		ck_assert_int_eq(cpuset_count(&a), r[k][1]);
		ck_assert_int_eq(cpuset_count_range(&a, r[k][0], r[k][1]),
		    r[k][1]);
		if (r[k][0] > 0)
			ck_assert(!cpuset_test(&a, r[k][0] - 1));
		if (r[k][0] + r[k][1] < VP_MAX_PUS)
			ck_assert(!cpuset_test(&a, r[k][0] + r[k][1]));
	}
}
END_TEST

START_TEST(test_cpuset_count_range)
{
	struct vp_cpuset s;
	int i, n;

	cpuset_zero(&s);
	for (i = 0; i < VP_MAX_PUS; i += 3)
		cpuset_set(&s, i);
	ck_assert_int_eq(cpuset_count(&s), (VP_MAX_PUS + 2) / 3);
	for (i = 0; i < 200; i++) {
		int first = (i * 37) % VP_MAX_PUS, count = (i * 91) % 300, j;

		if (first + count > VP_MAX_PUS)
			count = VP_MAX_PUS - first;
		n = 0;
		for (j = first; j < first + count; j++)
			n += j % 3 == 0;
		ck_assert_int_eq(cpuset_count_range(&s, first, count), n);
		ck_assert(cpuset_intersects_range(&s, first, count) == (n > 0));
	}
	ck_assert_int_eq(cpuset_count_range(&s, 1, 2), 0);
	ck_assert(!cpuset_intersects_range(&s, 1, 2));
	ck_assert_int_eq(cpuset_count_range(&s, 0, 0), 0);
}
END_TEST

START_TEST(test_cpuset_logic)
{
	struct vp_cpuset a, b, d, e;
	int i;

	cpuset_zero(&a);
	cpuset_zero(&b);
	for (i = 0; i < VP_MAX_PUS; i++) {
		if (i % 2 == 0)
			cpuset_set(&a, i);
		if (i % 3 == 0)
			cpuset_set(&b, i);
	}
	ck_assert(cpuset_intersects(&a, &b));
	cpuset_and(&d, &a, &b);
	cpuset_or(&e, &a, &b);
	for (i = 0; i < VP_MAX_PUS; i++) {
		ck_assert(cpuset_test(&d, i) == (i % 6 == 0));
		ck_assert(cpuset_test(&e, i) == (i % 2 == 0 || i % 3 == 0));
	}
	cpuset_andnot(&d, &a, &b);
	for (i = 0; i < VP_MAX_PUS; i++)
		ck_assert(cpuset_test(&d, i) == (i % 2 == 0 && i % 3 != 0));
	ck_assert(!cpuset_intersects(&d, &b));
	ck_assert(!cpuset_equal(&a, &b));
	e = a;
	ck_assert(cpuset_equal(&a, &e));
	cpuset_clear(&e, VP_MAX_PUS - 2);
	ck_assert(!cpuset_equal(&a, &e));
	/* dst may alias a source */
	cpuset_and(&a, &a, &b);
	for (i = 0; i < VP_MAX_PUS; i++)
		ck_assert(cpuset_test(&a, i) == (i % 6 == 0));
	/* only the last bit in common */
	cpuset_zero(&a);
	cpuset_zero(&b);
	cpuset_set_range(&a, 0, VP_MAX_PUS - 1);
	ck_assert(!cpuset_intersects(&a, &b));
	cpuset_set(&b, VP_MAX_PUS - 1);
	ck_assert(!cpuset_intersects(&a, &b));
	cpuset_set(&a, VP_MAX_PUS - 1);
	ck_assert(cpuset_intersects(&a, &b));
}
END_TEST

START_TEST(test_cpuset_next_and)
{
	struct vp_cpuset a, b;

	cpuset_zero(&a);
	cpuset_zero(&b);
	cpuset_set(&a, 3);
	cpuset_set(&a, 64);
	cpuset_set(&a, 200);
	cpuset_set(&a, VP_MAX_PUS - 1);
	cpuset_set(&b, 4);
	cpuset_set(&b, 64);
	cpuset_set(&b, VP_MAX_PUS - 1);
	ck_assert_int_eq(cpuset_next_and(&a, &b, 0, VP_MAX_PUS), 64);
	ck_assert_int_eq(cpuset_next_and(&a, &b, 64, VP_MAX_PUS), 64);
	ck_assert_int_eq(cpuset_next_and(&a, &b, 65, VP_MAX_PUS),
	    VP_MAX_PUS - 1);
	ck_assert_int_eq(cpuset_next_and(&a, &b, 65, VP_MAX_PUS - 1),
	    VP_PU_NONE);
	ck_assert_int_eq(cpuset_next_and(&a, &b, 0, 64), VP_PU_NONE);
	ck_assert_int_eq(cpuset_next(&a, 4, 200), 64);
	ck_assert_int_eq(cpuset_next(&a, 65, 200), VP_PU_NONE);
	ck_assert_int_eq(cpuset_next(&a, 65, 201), 200);
	ck_assert_int_eq(cpuset_next(&a, 201, VP_MAX_PUS), VP_MAX_PUS - 1);
}
END_TEST

START_TEST(test_cpuset_for_each)
{
	struct vp_cpuset s;
	int pu, n = 0, last = -1;

	cpuset_zero(&s);
	cpuset_set(&s, 0);
	cpuset_set(&s, 63);
	cpuset_set(&s, 64);
	cpuset_set(&s, 4000);
	cpuset_set(&s, VP_MAX_PUS - 1);
	cpuset_for_each(pu, &s, VP_MAX_PUS) {
		ck_assert(cpuset_test(&s, pu));
		ck_assert_int_gt(pu, last);
		last = pu;
		n++;
	}
	ck_assert_int_eq(n, 5);
	ck_assert_int_eq(last, VP_MAX_PUS - 1);
	n = 0;
	cpuset_for_each(pu, &s, 4000)
		n++;
	ck_assert_int_eq(n, 3);
}
END_TEST

Suite *cpuset_suite(void)
{
	Suite *s = suite_create("cpuset");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cpuset_zero_empty);
	tcase_add_loop_test(tc, test_cpuset_edge_bits, 0, NEDGES);
	tcase_add_test(tc, test_cpuset_set_range);
	tcase_add_test(tc, test_cpuset_count_range);
	tcase_add_test(tc, test_cpuset_logic);
	tcase_add_test(tc, test_cpuset_next_and);
	tcase_add_test(tc, test_cpuset_for_each);
	suite_add_tcase(s, tc);
	return s;
}
