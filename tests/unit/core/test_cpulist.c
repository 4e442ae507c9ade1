/*
 * test_cpulist.c - cpulist.c: parsing and formatting kernel CPU lists in
 * OS numbers, errors, holes and a 4096-PU round trip.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <check.h>

#include "host/hwtopo.h"
#include "../suites.h"
#include "../testutil.h"

/* Parses @text; on success checks it against the OS numbers in @os. */
static void expect_parse(const struct vp_topo *t, const char *text,
    const unsigned int *os, int n)
{
	struct vp_cpuset s, want;
	int i, r;

	cpuset_zero(&want);
	for (i = 0; i < n; i++)
		cpuset_set(&want, os2pu(t, os[i]));
	r = cpulist_parse(t, text, &s);
	ck_assert_msg(r == 0, "parse '%s' = %d", text, r);
	ck_assert_msg(cpuset_equal(&s, &want), "parse '%s'", text);
}

/* A failed parse returns @err and leaves *ret byte for byte untouched. */
static void expect_fail(const struct vp_topo *t, const char *text, int err)
{
	struct vp_cpuset s, copy;
	int r;

	memset(&s, 0xa5, sizeof(s));
	copy = s;
	r = cpulist_parse(t, text, &s);
	ck_assert_msg(r == err, "parse '%s' = %d, want %d", text, r, err);
	ck_assert_msg(memcmp(&s, &copy, sizeof(s)) == 0,
	    "parse '%s' touched *ret on failure", text);
}

START_TEST(test_cpulist_parse_ok)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	static const unsigned int a[] = { 0, 1, 2, 3, 8, 10, 11 };
	static const unsigned int b[] = { 95 };
	static const unsigned int c[] = { 0, 48 };
	static const unsigned int d[] = { 5 };

	expect_parse(t, "0-3,8,10-11", a, 7);
	expect_parse(t, "10-11,8,0-3", a, 7);
	expect_parse(t, "0-2,1-3,8,10,11,11", a, 7);
	expect_parse(t, "95", b, 1);
	expect_parse(t, "48,0", c, 2);
	expect_parse(t, "5-5", d, 1);
}
END_TEST

START_TEST(test_cpulist_parse_all)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_cpuset s;

	ck_assert_int_eq(cpulist_parse(t, "0-95", &s), 0);
	ck_assert(cpuset_equal(&s, &t->all));
	ck_assert_int_eq(cpuset_count(&s), 96);
}
END_TEST

START_TEST(test_cpulist_parse_errors)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");

	expect_fail(t, "", -EINVAL);
	expect_fail(t, "1-", -EINVAL);
	expect_fail(t, "-1", -EINVAL);
	expect_fail(t, "3-1", -EINVAL);
	expect_fail(t, "a", -EINVAL);
	expect_fail(t, "1,,2", -EINVAL);
	expect_fail(t, ",1", -EINVAL);
	expect_fail(t, "1-2-3", -EINVAL);
	expect_fail(t, "1x", -EINVAL);
	expect_fail(t, "0-3,8zz", -EINVAL);
	expect_fail(t, "1 2", -EINVAL);
	expect_fail(t, "0-3,5-4", -EINVAL);
	expect_fail(t, "99999999999", -ERANGE);
	expect_fail(t, "99999999999999999999999", -ERANGE);
	expect_fail(t, "65536", -ERANGE);
	expect_fail(t, "0-70000", -ERANGE);
	/* valid numbers that are not CPUs of this model */
	expect_fail(t, "96", -ENOENT);
	expect_fail(t, "65535", -ENOENT);
	/* the valid prefix must not leak into *ret */
	expect_fail(t, "0-3,96", -ENOENT);
	expect_fail(t, "0-3,a", -EINVAL);
}
END_TEST

/* coral-lassen: OS 0-7 and 88-95 are reserved by a cgroup, absent. */
START_TEST(test_cpulist_holes)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("coral-lassen.xml");
	struct vp_cpuset s;
	char buf[64];

	expect_fail(t, "0", -ENOENT);
	expect_fail(t, "7", -ENOENT);
	expect_fail(t, "88-95", -ENOENT);
	expect_fail(t, "0-8", -ENOENT);
	expect_fail(t, "80-90", -ENOENT);
	ck_assert_int_eq(cpulist_parse(t, "8-87,96-175", &s), 0);
	ck_assert(cpuset_equal(&s, &t->all));
	ck_assert_int_eq(cpulist_format(t, &t->all, buf, sizeof(buf)),
	    (int)strlen("8-87,96-175"));
	ck_assert_str_eq(buf, "8-87,96-175");
}
END_TEST

/* Formatting is in OS order with ranges, whatever the dense order. */
START_TEST(test_cpulist_format)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_cpuset s;
	char buf[128];
	int r;

	cpuset_zero(&s);
	r = cpulist_format(t, &s, buf, sizeof(buf));
	ck_assert_int_eq(r, 0);
	ck_assert_str_eq(buf, "");

	/* dense 0 and its sibling: OS 0 and 48, not "0-1" */
	cpuset_zero(&s);
	topo_add_core(t, os2pu(t, 0), &s);
	r = cpulist_format(t, &s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0,48");
	ck_assert_int_eq(r, 4);

	cpuset_zero(&s);
	topo_add_package(t, os2pu(t, 0), &s);
	r = cpulist_format(t, &s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-23,48-71");
	ck_assert_int_eq(r, (int)strlen(buf));

	cpuset_zero(&s);
	os_range(t, &s, 0, 3);
	os_range(t, &s, 8, 8);
	os_range(t, &s, 10, 11);
	os_range(t, &s, 95, 95);
	r = cpulist_format(t, &s, buf, sizeof(buf));
	ck_assert_str_eq(buf, "0-3,8,10-11,95");
	ck_assert_int_eq(r, (int)strlen(buf));
}
END_TEST

START_TEST(test_cpulist_format_nospc)
{
	_cleanup_topo_ struct vp_topo *t = load_topo("g4dnmetal.xml");
	struct vp_cpuset s;
	const char *want = "0-3,8,10-11";
	size_t n = strlen(want);
	char buf[64];

	ck_assert_int_eq(cpulist_parse(t, want, &s), 0);
	ck_assert_int_eq(cpulist_format(t, &s, buf, n + 1), (int)n);
	ck_assert_str_eq(buf, want);
	ck_assert_int_eq(cpulist_format(t, &s, buf, n), -ENOSPC);
	ck_assert_int_eq(cpulist_format(t, &s, buf, 1), -ENOSPC);
	ck_assert_int_eq(cpulist_format(t, &s, buf, 0), -ENOSPC);
	cpuset_zero(&s);
	ck_assert_int_eq(cpulist_format(t, &s, buf, 0), -ENOSPC);
	ck_assert_int_eq(cpulist_format(t, &s, buf, 1), 0);
}
END_TEST

/* parse(format(s)) == s for random sets on every real topology. */
START_TEST(test_cpulist_roundtrip)
{
	_cleanup_topo_ struct vp_topo *t = load_topo(test_topo_files[_i]);
	static char buf[8 * 8192];
	struct rng r;
	int k;

	rng_seed(&r, 0xc0ffee + _i);
	for (k = 0; k < 50; k++) {
		struct vp_cpuset s, back;
		int n;

		rng_set(&r, t, k * 2, &s);
		n = cpulist_format(t, &s, buf, sizeof(buf));
		ck_assert_int_ge(n, 0);
		ck_assert_int_eq(n, (int)strlen(buf));
		if (cpuset_empty(&s))
			continue;
		ck_assert_int_eq(cpulist_parse(t, buf, &back), 0);
		ck_assert_msg(cpuset_equal(&s, &back), "round trip '%s'", buf);
	}
}
END_TEST

/* Capacity: 4096 PUs from a synthetic topology. */
START_TEST(test_cpulist_4096)
{
	_cleanup_topo_ struct vp_topo *t =
	    load_synth("pack:4 l3:2 core:256 pu:2");
	struct vp_cpuset s;
	char buf[64];

	ck_assert_int_eq(t->npus, 4096);
	ck_assert_int_eq(cpulist_parse(t, "0-4095", &s), 0);
	ck_assert_int_eq(cpuset_count(&s), 4096);
	ck_assert(cpuset_equal(&s, &t->all));
	ck_assert_int_eq(cpulist_format(t, &s, buf, sizeof(buf)), 6);
	ck_assert_str_eq(buf, "0-4095");
	expect_fail(t, "4096", -ENOENT);
	ck_assert_int_eq(cpulist_parse(t, "4095", &s), 0);
	ck_assert_int_eq(cpuset_count(&s), 1);
	ck_assert_int_eq(cpulist_format(t, &s, buf, sizeof(buf)), 4);
	ck_assert_str_eq(buf, "4095");
}
END_TEST

Suite *cpulist_suite(void)
{
	Suite *s = suite_create("cpulist");
	TCase *tc = tcase_create("core");

	tcase_add_test(tc, test_cpulist_parse_ok);
	tcase_add_test(tc, test_cpulist_parse_all);
	tcase_add_test(tc, test_cpulist_parse_errors);
	tcase_add_test(tc, test_cpulist_holes);
	tcase_add_test(tc, test_cpulist_format);
	tcase_add_test(tc, test_cpulist_format_nospc);
	tcase_add_loop_test(tc, test_cpulist_roundtrip, 0, test_ntopo);
	tcase_add_test(tc, test_cpulist_4096);
	suite_add_tcase(s, tc);
	return s;
}
