/*
 * test_scx.c - scx.c as the normal build compiles it (without VP_HAVE_SCX):
 * the loader is a stub that refuses cleanly, so a daemon on a host without
 * the BPF build stays in affinity-only mode.  The real loader is tested by
 * `make scx-test` in a kernel with sched_ext (tests/scx/).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <check.h>

#include "host/scx.h"
#include "../suites.h"

START_TEST(test_stub_load_refuses)
{
	struct scx_sched *s = (struct scx_sched *)&s;	/* a canary */
	uint64_t st[VP_SCX_STAT_NR];
	struct scx_exit ex;

	ck_assert_int_eq(scx_load(&s, 0), -EOPNOTSUPP);
	/* ret_* is not clobbered on failure (CONTRIBUTING.md rule 7) */
	ck_assert_ptr_eq(s, (struct scx_sched *)&s);
	ck_assert_int_eq(scx_stats_read(NULL, st), -EOPNOTSUPP);
	ck_assert_int_eq(scx_exit_read(NULL, &ex), -EOPNOTSUPP);
	ck_assert(scx_exited(NULL));
	ck_assert_ptr_null(scx_exit_dump(NULL));
	scx_detach(NULL);
	scx_free(NULL);
}
END_TEST

START_TEST(test_state_read)
{
	char st[32];
	int err;

	ck_assert_int_eq(scx_state_read(NULL, st, 0), -EINVAL);
	err = scx_state_read(NULL, st, sizeof(st));
	if (access("/sys/kernel/sched_ext/state", R_OK) != 0) {
		ck_assert_int_eq(err, -ENOENT);
		return;
	}
	ck_assert_int_eq(err, 0);
	ck_assert_ptr_null(strchr(st, '\n'));
	ck_assert(strcmp(st, "enabled") == 0 || strcmp(st, "disabled") == 0 ||
	    strcmp(st, "enabling") == 0 || strcmp(st, "disabling") == 0);
}
END_TEST

/* Back to SCHED_OTHER works on any kernel; SCHED_EXT only with sched_ext. */
START_TEST(test_task_set_ext)
{
	int tid = (int)syscall(SYS_gettid);
	int err;

	ck_assert_int_eq(scx_task_set_ext(tid, false), 0);
	err = scx_task_set_ext(tid, true);
	if (access("/sys/kernel/sched_ext/state", R_OK) != 0)
		ck_assert_int_eq(err, -EINVAL);
	else
		ck_assert_int_eq(err, 0);
	ck_assert_int_eq(scx_task_set_ext(tid, false), 0);
	ck_assert_int_eq(scx_task_set_ext(-1, false), -EINVAL);
}
END_TEST

Suite *
scx_suite(void)
{
	Suite *s = suite_create("scx");
	TCase *tc = tcase_create("stubs");

	tcase_add_test(tc, test_stub_load_refuses);
	tcase_add_test(tc, test_state_read);
	tcase_add_test(tc, test_task_set_ext);
	suite_add_tcase(s, tc);
	return s;
}
