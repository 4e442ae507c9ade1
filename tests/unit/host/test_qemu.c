/*
 * test_qemu.c - QEMU's pidfile and vCPU threads, found by name.  The
 * threads are real: this process starts some named as QEMU names its
 * vCPU threads ("CPU N/TCG") and some that are not vCPUs.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <check.h>

#include "host/qemu.h"
#include "../suites.h"

#define NTHREADS	4

static pthread_barrier_t named, done;
static int tids[8];

struct worker {
	int slot;
	const char *name;
};

static void *
worker(void *arg)
{
	const struct worker *w = arg;

	tids[w->slot] = (int)syscall(SYS_gettid);
	pthread_setname_np(pthread_self(), w->name);
	pthread_barrier_wait(&named);
	pthread_barrier_wait(&done);
	return NULL;
}

START_TEST(test_vcpu_tids_by_name)
{
	/* vCPUs 2 and 0 (out of order), an I/O thread, a too-high vCPU */
	static const struct worker w[NTHREADS] = {
		{ 0, "CPU 2/TCG" }, { 1, "IO iothread0" }, { 2, "CPU 0/KVM" },
		{ 3, "CPU 9/KVM" },
	};
	pthread_t th[NTHREADS];
	int got[4], i, n;

	pthread_barrier_init(&named, NULL, NTHREADS + 1);
	pthread_barrier_init(&done, NULL, NTHREADS + 1);
	for (i = 0; i < NTHREADS; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker,
		    (void *)&w[i]), 0);
	pthread_barrier_wait(&named);
	memset(got, 0x7f, sizeof(got));
	n = qemu_vcpu_tids(getpid(), 4, got);
	pthread_barrier_wait(&done);
	for (i = 0; i < NTHREADS; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(got[0], tids[2]);
	ck_assert_int_eq(got[1], 0);	/* no thread named for vCPU 1 */
	ck_assert_int_eq(got[2], tids[0]);
	ck_assert_int_eq(got[3], 0);	/* "CPU 9" is past nvcpus: ignored */
	ck_assert_int_eq(qemu_vcpu_tids(0, 4, got), -ESRCH);
}
END_TEST

/*
 * Names QEMU did not write: a second thread renamed "CPU 1/TCG" makes
 * vCPU 1 unknowable (QEMU_TID_AMBIGUOUS, not counted), and names that
 * only sscanf would read as vCPUs ("CPU +2/", "CPU 03/") are none.
 */
START_TEST(test_vcpu_tids_not_qemus)
{
	static const struct worker w[] = {
		{ 0, "CPU 1/TCG" }, { 1, "CPU 0/TCG" }, { 2, "CPU 1/TCG" },
		{ 3, "CPU +2/TCG" }, { 4, "CPU 03/TCG" }, { 5, "CPU 2" },
	};
	enum { N = sizeof(w) / sizeof(w[0]) };
	pthread_t th[N];
	int got[4], i, n;

	pthread_barrier_init(&named, NULL, N + 1);
	pthread_barrier_init(&done, NULL, N + 1);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(pthread_create(&th[i], NULL, worker,
		    (void *)&w[i]), 0);
	pthread_barrier_wait(&named);
	n = qemu_vcpu_tids(getpid(), 4, got);
	pthread_barrier_wait(&done);
	for (i = 0; i < N; i++)
		pthread_join(th[i], NULL);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(got[0], tids[1]);
	ck_assert_int_eq(got[1], QEMU_TID_AMBIGUOUS);
	ck_assert_int_eq(got[2], 0);
	ck_assert_int_eq(got[3], 0);
}
END_TEST

START_TEST(test_pidfile)
{
	char dir[] = "/tmp/vp-qemu-XXXXXX", path[64];
	FILE *f;

	ck_assert_ptr_nonnull(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/web 1.pid", dir);
	f = fopen(path, "w");
	fputs("4242\n", f);
	fclose(f);
	ck_assert_int_eq(qemu_pid(dir, "web 1"), 4242);
	ck_assert_int_eq(qemu_pid(dir, "nosuch"), 0);
	f = fopen(path, "w");
	fputs("garbage\n", f);
	fclose(f);
	ck_assert_int_eq(qemu_pid(dir, "web 1"), 0);
	f = fopen(path, "w");
	fputs("-5\n", f);
	fclose(f);
	ck_assert_int_eq(qemu_pid(dir, "web 1"), 0);
	unlink(path);
	/* libvirt 9.0 escapes the name for XML in the pidfile's name */
	snprintf(path, sizeof(path), "%s/w &quot;1&quot; &amp;&apos;.pid",
	    dir);
	f = fopen(path, "w");
	fputs("4343\n", f);
	fclose(f);
	ck_assert_int_eq(qemu_pid(dir, "w \"1\" &'"), 4343);
	unlink(path);
	rmdir(dir);
}
END_TEST

/* Found by tests/fuzz/fz_qemu_comm and fz_qemu_pidfile (regress/). */
START_TEST(test_comm_strict)
{
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU 3/KVM"), 3);
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU 0/TCG"), 0);
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU 1S/KV]"), -1);
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU 4294967296/KVM"), -1);
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU -1/KVM"), -1);
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU +2/KVM"), -1);
	ck_assert_int_eq(qemu_vcpu_of_comm("CPU 2"), -1);
	ck_assert_int_eq(qemu_vcpu_of_comm("IO mon_iothread"), -1);
}
END_TEST

START_TEST(test_pidfile_text_strict)
{
	ck_assert_int_eq(qemu_parse_pid("4242\n"), 4242);
	ck_assert_int_eq(qemu_parse_pid("4242"), 4242);
	ck_assert_int_eq(qemu_parse_pid("4294967297\n"), 0);	/* not init */
	ck_assert_int_eq(qemu_parse_pid("22222222222222222"), 0);
	ck_assert_int_eq(qemu_parse_pid("12ab"), 0);
	ck_assert_int_eq(qemu_parse_pid(""), 0);
}
END_TEST

Suite *
qemu_suite(void)
{
	Suite *s = suite_create("qemu");
	TCase *tc = tcase_create("threads");

	tcase_add_test(tc, test_vcpu_tids_by_name);
	tcase_add_test(tc, test_pidfile);
	tcase_add_test(tc, test_comm_strict);
	tcase_add_test(tc, test_pidfile_text_strict);
	tcase_add_test(tc, test_vcpu_tids_not_qemus);
	suite_add_tcase(s, tc);
	return s;
}
