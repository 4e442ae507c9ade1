/* guest_util.c - see guest_util.h. */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "guest_util.h"
#include "scx/scxfeed.h"
#include "host/procstat.h"
#include "scx/scx.h"

const char *test_name = "scx_test";

void
fail(const char *fmt, ...)
{
	va_list ap;

	printf("%s: FAIL ", test_name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	exit(1);
}

uint64_t
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + (uint64_t)ts.tv_nsec;
}

int
pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

void
rt_thread_start(pthread_t *ret, int cpu, void *(*fn)(void *), void *arg,
    const char *what)
{
	struct sched_param sp = { .sched_priority = 10 };
	pthread_attr_t a;
	cpu_set_t one;

	CPU_ZERO(&one);
	CPU_SET(cpu, &one);
	if (pthread_attr_init(&a) != 0 ||
	    pthread_attr_setinheritsched(&a, PTHREAD_EXPLICIT_SCHED) != 0 ||
	    pthread_attr_setschedpolicy(&a, SCHED_FIFO) != 0 ||
	    pthread_attr_setschedparam(&a, &sp) != 0 ||
	    pthread_attr_setaffinity_np(&a, sizeof(one), &one) != 0)
		fail("%s: pthread attributes", what);
	if (pthread_create(ret, &a, fn, arg) != 0)
		fail("%s: pthread_create (SCHED_FIFO)", what);
	pthread_attr_destroy(&a);
}

void
ext_or_fail(int tid)
{
	int err = set_ext(tid, true);

	if (err)
		fail("moving tid %d to SCHED_EXT: %s", tid, strerror(-err));
}

struct scx_sched *
load_described(const struct vp_topo *t)
{
	struct scx_sched *s;
	int err = scx_load(&s, 0);

	if (err)
		fail("scx_load: %s", strerror(-err));
	if ((err = scxfeed_topology(s, t, 0, NULL)))
		fail("scxfeed_topology: %s", strerror(-err));
	return s;
}

void
expect_loaded(struct scx_sched *s, const char *when)
{
	struct scx_exit ex;

	if (scx_exited(s) && scx_exit_read(s, &ex) == 0)
		fail("%s: ejected: kind %d, %s (%s)", when, ex.kind,
		    ex.reason, ex.msg);
}

void
counters_print(const uint64_t st[VP_SCX_STAT_NR])
{
	static const char *const names[] = VP_SCX_STAT_NAMES;
	int i;

	printf("%s: counters", test_name);
	for (i = 0; i < VP_SCX_STAT_NR; i++)
		printf(" %s=%llu", names[i], (unsigned long long)st[i]);
	printf("\n");
}

void
stats_print(struct scx_sched *s)
{
	uint64_t st[VP_SCX_STAT_NR];

	if (scx_stats_read(s, st) != 0)
		fail("reading counters");
	counters_print(st);
}

long
now_ms(void)
{
	return (long)(now_ns() / 1000000ULL);
}

void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

void
plan_vms(const struct vp_topo *t, int nvms, int nvcpus,
    const struct vp_cpuset *busy, int *ret_homes,
    struct vp_cpuset *ret_allowed)
{
	struct vp_vm_spec *vms = calloc(nvms, sizeof(*vms));
	struct vp_plan_input in = { 0 };
	struct vp_features f;
	_cleanup_plan_ struct vp_plan *plan = NULL;
	int i, k, err;

	if (!vms)
		fail("calloc");
	features_default(&f);
	for (i = 0; i < nvms; i++) {
		vms[i].name = "vm";
		vms[i].nvcpus = nvcpus;
		policy_default(&vms[i].policy);
	}
	in.vms = vms;
	in.nvms = nvms;
	in.busy = busy;
	in.feat = &f;
	err = plan_compute(t, &in, &plan);
	if (err)
		fail("plan_compute: %s", strerror(-err));
	for (i = 0; i < nvms; i++) {
		if (plan->vm[i].error || !plan->vm[i].vcpu)
			fail("no plan for VM %d: %s", i,
			    strerror(-plan->vm[i].error));
		for (k = 0; k < nvcpus; k++) {
			ret_homes[i * nvcpus + k] = plan->vm[i].vcpu[k].home;
			if (ret_allowed)
				ret_allowed[i * nvcpus + k] =
				    plan->vm[i].vcpu[k].allowed;
		}
	}
	free(vms);
}

int
set_ext(int tid, bool ext)
{
	struct scx_thread t = { getpid(), tid, 0 };
	int r;

	if ((r = procstat_read_u64(t.pid, tid, PROCSTAT_START_TIME,
	    &t.start)) < 0)
		return r;
	return scx_task_set_ext(&t, ext);
}
