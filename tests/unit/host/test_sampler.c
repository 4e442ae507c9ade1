/*
 * test_sampler.c - the /proc parsers behind the sampler, on texts the
 * kernel writes and on the ones tests/fuzz/ found wrong (regress/).
 */
#include <errno.h>
#include <stdio.h>

#include <check.h>

#include "host/sampler.h"
#include "../suites.h"

START_TEST(test_stat_line)
{
	uint64_t busy, total;
	unsigned int cpu;

	ck_assert_int_eq(sampler_parse_stat_line("cpu3 10 1 5 100 2 0 3 0 "
	    "0 0\n", &cpu, &busy, &total), 0);
	ck_assert_uint_eq(cpu, 3);
	ck_assert_uint_eq(total, 121);
	ck_assert_uint_eq(busy, 19);
	ck_assert_int_eq(sampler_parse_stat_line("cpu3 10 1\n", &cpu, &busy,
	    &total), -EINVAL);
}
END_TEST

START_TEST(test_schedstat)
{
	struct vp_thread_sample t = { 0, 0, -1 };

	ck_assert_int_eq(sampler_parse_schedstat("1000 200 7\n", &t), 0);
	ck_assert_uint_eq(t.run_ns, 1000);
	ck_assert_uint_eq(t.wait_ns, 200);
	ck_assert_int_eq(sampler_parse_schedstat("1000\n", &t), -EINVAL);
}
END_TEST

/* 52 fields; comm holds a space and a ')'; field 39 is @cpu. */
static void
stat_text(char *buf, size_t len, const char *cpu)
{
	int n, i;

	n = snprintf(buf, len, "4242 (CPU 0/KVM) x) S");
	for (i = 4; i <= 52; i++)
		n += snprintf(buf + n, len - n, " %s", i == 39 ? cpu : "1");
}

START_TEST(test_last_cpu)
{
	char buf[512];

	stat_text(buf, sizeof(buf), "7");
	ck_assert_int_eq(sampler_parse_last_cpu(buf), 7);
	/* found by tests/fuzz/fz_task_stat: atoi() wrapped and went negative */
	stat_text(buf, sizeof(buf), "4294967296");
	ck_assert_int_eq(sampler_parse_last_cpu(buf), -1);
	stat_text(buf, sizeof(buf), "-5");
	ck_assert_int_eq(sampler_parse_last_cpu(buf), -1);
	ck_assert_int_eq(sampler_parse_last_cpu("4242 (short) S 1 2"), -1);
	ck_assert_int_eq(sampler_parse_last_cpu("no paren"), -1);
}
END_TEST

Suite *
sampler_suite(void)
{
	Suite *s = suite_create("sampler");
	TCase *tc = tcase_create("parse");

	tcase_add_test(tc, test_stat_line);
	tcase_add_test(tc, test_schedstat);
	tcase_add_test(tc, test_last_cpu);
	suite_add_tcase(s, tc);
	return s;
}
