/*
 * test_procstat.c - procstat.c: fields counted after the last ')', so a
 * comm with spaces and parentheses does not shift them; numbers refused
 * when cut short or signed; this thread's start time read from /proc.
 */
#include <errno.h>
#include <stdint.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <check.h>

#include "host/procstat.h"
#include "../suites.h"

/* A vCPU thread's stat line, with a comm written to look like fields. */
static const char line[] =
    "4242 (CPU 0/KVM) 1 2 (x)) S 1 4242 4242 0 -1 4194560 900 0 0 0 "
    "170 40 0 0 20 0 34 0 987654 123456789 2000 18446744073709551615 1 1 "
    "0 0 0 0 0 4096 0 0 0 0 17 3 0 0 0 0 0\n";

START_TEST(test_fields_after_last_paren)
{
	uint64_t v;

	ck_assert_int_eq(procstat_parse_u64(line, PROCSTAT_START_TIME, &v), 0);
	ck_assert_uint_eq(v, 987654);
	ck_assert_int_eq(procstat_parse_u64(line, PROCSTAT_PROCESSOR, &v), 0);
	ck_assert_uint_eq(v, 3);
	/* field 4, the parent: the first number after the state */
	ck_assert_int_eq(procstat_parse_u64(line, 4, &v), 0);
	ck_assert_uint_eq(v, 1);
	/* field 3 is the state, not a number */
	ck_assert_int_eq(procstat_parse_u64(line, 3, &v), -EINVAL);
	/* field 7, the tty: -1 is no number of ours */
	ck_assert_int_eq(procstat_parse_u64(line, 8, &v), -EINVAL);
}
END_TEST

START_TEST(test_short_and_bad_lines)
{
	uint64_t v = 5;

	ck_assert_ptr_null(procstat_field("no parenthesis 1 2 3", 4));
	ck_assert_ptr_null(procstat_field(line, 2));
	ck_assert_int_eq(procstat_parse_u64("1 (a) S 1 2", PROCSTAT_START_TIME,
	    &v), -EINVAL);
	/* a number cut by the end of a read, then garbage */
	ck_assert_int_eq(procstat_parse_u64("1 (a) S 12x", 4, &v), -EINVAL);
	ck_assert_int_eq(procstat_parse_u64("1 (a) S 99999999999999999999",
	    4, &v), -EINVAL);
	ck_assert_uint_eq(v, 5);	/* not written on failure */
}
END_TEST

START_TEST(test_read_own_start)
{
	int tid = (int)syscall(SYS_gettid);
	uint64_t a = 0, b = 0;

	ck_assert_int_eq(procstat_read_u64(getpid(), tid, PROCSTAT_START_TIME,
	    &a), 0);
	ck_assert_uint_gt(a, 0);
	ck_assert_int_eq(procstat_read_u64(getpid(), tid, PROCSTAT_START_TIME,
	    &b), 0);
	ck_assert_uint_eq(a, b);
	ck_assert_int_eq(procstat_read_u64(getpid(), -1, PROCSTAT_START_TIME,
	    &a), -ESRCH);
}
END_TEST

Suite *
procstat_suite(void)
{
	Suite *s = suite_create("procstat");
	TCase *tc = tcase_create("fields");

	tcase_add_test(tc, test_fields_after_last_paren);
	tcase_add_test(tc, test_short_and_bad_lines);
	tcase_add_test(tc, test_read_own_start);
	suite_add_tcase(s, tc);
	return s;
}
