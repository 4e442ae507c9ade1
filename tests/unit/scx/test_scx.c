/*
 * test_scx.c - scx.c and the loader's stand-in, scx_stub.c, as the normal
 * build links them: the loader refuses cleanly, so a daemon on a host without
 * the BPF build stays in affinity-only mode.  The real loader is tested by
 * `make scx-test` in a kernel with sched_ext (tests/scx/).
 */
#include <errno.h>
#include <sched.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include <check.h>

#include "host/procstat.h"
#include "scx/scx.h"
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

/* This thread as the daemon would have read it. */
static struct scx_thread
self_thread(void)
{
	struct scx_thread t = { getpid(), (int)syscall(SYS_gettid), 0 };

	ck_assert_int_eq(procstat_read_u64(t.pid, t.tid, PROCSTAT_START_TIME,
	    &t.start), 0);
	return t;
}

static int
policy_of(int tid)
{
	return (int)syscall(SYS_sched_getscheduler, tid);
}

/* Back to SCHED_OTHER works on any kernel; SCHED_EXT only with sched_ext. */
START_TEST(test_task_set_ext)
{
	struct scx_thread t = self_thread(), bad = { -1, -1, 0 };
	int err;

	ck_assert_int_eq(scx_task_set_ext(&t, false), 0);
	err = scx_task_set_ext(&t, true);
	if (access("/sys/kernel/sched_ext/state", R_OK) != 0)
		ck_assert_int_eq(err, -EINVAL);
	else
		ck_assert_int_eq(err, 0);
	ck_assert_int_eq(scx_task_set_ext(&t, false), 0);
	ck_assert_int_eq(policy_of(t.tid), SCHED_OTHER);
	ck_assert_int_eq(scx_task_set_ext(&bad, false), -ESRCH);
}
END_TEST

/*
 * A tid whose start time is not the one read is another thread: nothing
 * is done to it.  Run in SCHED_IDLE (any thread may choose it) so that a
 * move back to SCHED_OTHER, were it made, would show.
 */
START_TEST(test_task_set_ext_other_thread)
{
	struct scx_thread t = self_thread();
	struct sched_param sp = { 0 };

	ck_assert_int_eq(sched_setscheduler(0, SCHED_IDLE, &sp), 0);
	t.start++;
	ck_assert_int_eq(scx_task_set_ext(&t, true), -ESRCH);
	ck_assert_int_eq(scx_task_set_ext(&t, false), -ESRCH);
	ck_assert_int_eq(policy_of(t.tid), SCHED_IDLE);
	ck_assert_int_eq(sched_setscheduler(0, SCHED_OTHER, &sp), 0);
}
END_TEST

/*
 * A class the thread chose is kept both ways: SCHED_IDLE and SCHED_BATCH
 * (as libvirt's <vcpusched> sets them), and SCHED_FIFO where this test
 * may set it (root, or RLIMIT_RTPRIO).
 */
START_TEST(test_task_set_ext_keeps_own_class)
{
	static const int classes[] = { SCHED_IDLE, SCHED_BATCH, SCHED_FIFO };
	struct scx_thread t = self_thread();
	struct sched_param sp = { 0 }, none = { 0 };
	size_t i;

	for (i = 0; i < sizeof(classes) / sizeof(classes[0]); i++) {
		sp.sched_priority = classes[i] == SCHED_FIFO ? 1 : 0;
		if (sched_setscheduler(0, classes[i], &sp) < 0) {
			ck_assert_int_eq(classes[i], SCHED_FIFO);
			continue;
		}
		ck_assert_int_eq(scx_task_set_ext(&t, true), SCX_OWN_CLASS);
		ck_assert_int_eq(policy_of(t.tid), classes[i]);
		ck_assert_int_eq(scx_task_set_ext(&t, false), SCX_OWN_CLASS);
		ck_assert_int_eq(policy_of(t.tid), classes[i]);
		ck_assert_int_eq(sched_setscheduler(0, SCHED_OTHER, &none), 0);
	}
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
	tcase_add_test(tc, test_task_set_ext_other_thread);
	tcase_add_test(tc, test_task_set_ext_keeps_own_class);
	suite_add_tcase(s, tc);
	return s;
}
