/*
 * test_hwtopo.c - the sysfs number parser behind the live host's PU
 * priorities (cpuinfo_max_freq, CPPC highest_perf).
 */
#include <check.h>

#include "host/hwtopo.h"
#include "../suites.h"

START_TEST(test_sysfs_ulong)
{
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("3000000\n"), 3000000);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("255"), 255);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("<unsupported>\n"), 0);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong(""), 0);
	/* found by tests/fuzz/fz_sysfs_ulong: both were ULONG_MAX */
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong("-1\n"), 0);
	ck_assert_uint_eq(hwtopo_parse_sysfs_ulong(
	    "99999999999999999999999\n"), 0);
}
END_TEST

Suite *
hwtopo_suite(void)
{
	Suite *s = suite_create("hwtopo");
	TCase *tc = tcase_create("sysfs");

	tcase_add_test(tc, test_sysfs_ulong);
	suite_add_tcase(s, tc);
	return s;
}
