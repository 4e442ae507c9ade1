/*
 * test_schedfeat.c - schedfeat.c against sched/features in a mkdtemp
 * directory laid out like debugfs: absent, without SIS_CORE, with
 * NO_SIS_CORE (the series, default off), SIS_CORE, and unreadable.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <check.h>

#include "host/schedfeat.h"
#include "../suites.h"
#include "../testutil.h"

static char root[64];

static void
setup(void)
{
	strcpy(root, "/tmp/vp-schedfeat-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(root));
}

static void
teardown(void)
{
	sched_features_remove(root);
}

static const struct {
	const char *line;
	enum vp_sis_core want;
} parse_cases[] = {
	{ "GENTLE_FAIR_SLEEPERS START_DEBIT SIS_UTIL SIS_CORE \n",
	  VP_SIS_CORE_ON },
	{ "GENTLE_FAIR_SLEEPERS SIS_UTIL NO_SIS_CORE \n", VP_SIS_CORE_OFF },
	{ "SIS_CORE", VP_SIS_CORE_ON },
	{ "NO_SIS_CORE", VP_SIS_CORE_OFF },
	{ "\tNO_SIS_CORE\tSIS_UTIL", VP_SIS_CORE_OFF },
	{ "PLACE_LAG SIS_UTIL WARN_DOUBLE_CLOCK \n", VP_SIS_CORE_ABSENT },
	{ "NO_SIS_COREX SIS_CORE_X XSIS_CORE NO_NO_SIS_CORE \n",
	  VP_SIS_CORE_ABSENT },
	{ "", VP_SIS_CORE_ABSENT },
};

START_TEST(test_parse)
{
	char buf[128];

	snprintf(buf, sizeof(buf), "%s", parse_cases[_i].line);
	ck_assert_msg(schedfeat_parse(buf) == parse_cases[_i].want,
	    "'%s': want %s", parse_cases[_i].line,
	    schedfeat_sis_core_name(parse_cases[_i].want));
}
END_TEST

/* The file read from the tree, as the daemon reads it. */
static const struct {
	const char *line;		/* NULL: no sched/features */
	enum vp_sis_core want;
} read_cases[] = {
	{ NULL, VP_SIS_CORE_ABSENT },
	{ "PLACE_LAG SIS_UTIL WARN_DOUBLE_CLOCK\n", VP_SIS_CORE_ABSENT },
	{ "PLACE_LAG NO_SIS_CORE SIS_UTIL\n", VP_SIS_CORE_OFF },
	{ "PLACE_LAG SIS_CORE SIS_UTIL\n", VP_SIS_CORE_ON },
};

START_TEST(test_read)
{
	enum vp_sis_core s = VP_SIS_CORE_UNKNOWN;
	int before = open_fds();

	if (read_cases[_i].line)
		sched_features_put(root, read_cases[_i].line);
	ck_assert_int_eq(schedfeat_read(root, &s), 0);
	ck_assert_msg(s == read_cases[_i].want, "'%s': got %s",
	    read_cases[_i].line ? read_cases[_i].line : "(none)",
	    schedfeat_sis_core_name(s));
	ck_assert_int_eq(open_fds(), before);
}
END_TEST

/* No debugfs at all (not mounted), or a sched that is not a dir. */
START_TEST(test_read_no_debugfs)
{
	enum vp_sis_core s = VP_SIS_CORE_ON;
	char sched[80];
	FILE *f;

	ck_assert_int_eq(schedfeat_read("/nonexistent/debugfs", &s), 0);
	ck_assert_int_eq(s, VP_SIS_CORE_ABSENT);
	snprintf(sched, sizeof(sched), "%s/sched", root);
	f = fopen(sched, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	s = VP_SIS_CORE_ON;
	ck_assert_int_eq(schedfeat_read(root, &s), 0);
	ck_assert_int_eq(s, VP_SIS_CORE_ABSENT);
}
END_TEST

/*
 * There, but unreadable (lockdown gives EPERM; a directory, EISDIR, is
 * what even root cannot read): an error, the state untouched.
 */
START_TEST(test_read_unreadable)
{
	enum vp_sis_core s = VP_SIS_CORE_ON;
	int before = open_fds();

	sched_features_put(root, SCHED_FEATURES_UNREADABLE);
	ck_assert_int_eq(schedfeat_read(root, &s), -EISDIR);
	ck_assert_int_eq(s, VP_SIS_CORE_ON);
	ck_assert_int_eq(open_fds(), before);
}
END_TEST

START_TEST(test_read_root_too_long)
{
	enum vp_sis_core s = VP_SIS_CORE_OFF;
	char *big = malloc(PATH_MAX);

	ck_assert_ptr_nonnull(big);
	memset(big, 'a', PATH_MAX - 1);
	big[PATH_MAX - 1] = '\0';
	ck_assert_int_eq(schedfeat_read(big, &s), -ENAMETOOLONG);
	ck_assert_int_eq(s, VP_SIS_CORE_OFF);
	free(big);
}
END_TEST

START_TEST(test_names)
{
	ck_assert_str_eq(schedfeat_sis_core_name(VP_SIS_CORE_ABSENT), "absent");
	ck_assert_str_eq(schedfeat_sis_core_name(VP_SIS_CORE_UNKNOWN),
	    "unknown");
	ck_assert_str_eq(schedfeat_sis_core_name(VP_SIS_CORE_OFF), "off");
	ck_assert_str_eq(schedfeat_sis_core_name(VP_SIS_CORE_ON), "on");
}
END_TEST

Suite *
schedfeat_suite(void)
{
	Suite *s = suite_create("schedfeat");
	TCase *tc = tcase_create("schedfeat");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_add_loop_test(tc, test_parse, 0,
	    (int)(sizeof(parse_cases) / sizeof(parse_cases[0])));
	tcase_add_loop_test(tc, test_read, 0,
	    (int)(sizeof(read_cases) / sizeof(read_cases[0])));
	tcase_add_test(tc, test_read_no_debugfs);
	tcase_add_test(tc, test_read_unreadable);
	tcase_add_test(tc, test_read_root_too_long);
	tcase_add_test(tc, test_names);
	suite_add_tcase(s, tc);
	return s;
}
