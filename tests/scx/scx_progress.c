/*
 * scx_progress.c - every runnable SCHED_EXT task keeps making progress
 * under daemon/scx/vcpuplace.bpf.c (run by tests/scx/boot.sh inside the
 * QEMU guest, as root), where an earlier version of the scheduler let
 * tasks wait with a PU for them idle:
 *
 *  1. keep: one spinner pinned to each PU, and a thread pinned to PU 0
 *     that works 1 ms and sleeps 1 ms, so the shared queue nearly always
 *     holds a task that only PU 0 may run.  For 5 s, each spinner of the
 *     other PUs must run at least 90 % of the wall time: at each slice end
 *     it finds nothing it may run in the queue and must keep its PU, not
 *     be left in the queue while its PU idles.
 *
 * The last line is "scx_progress: PASS" or "scx_progress: FAIL <reason>".
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "host/scx.h"
#include "host/scxfeed.h"
#include "guest_topo.h"
#include "guest_util.h"

#define KEEP_RUN_MS 5000
/*
 * A PU's only task of its own runs (almost) all along.  The issue asked
 * 99 %; under QEMU TCG (Debian's 7.3.4, 8 PUs) the fixed scheduler gave
 * 95.8-99.5 % (the guest's own kernel work on each PU counts against the
 * spinner), the stalling one 1.9-31.9 %: 90 % tells them apart with room.
 */
#define KEEP_MIN_PCT 90.0

static const char *const stat_names[] = VP_SCX_STAT_NAMES;

static struct vp_topo *topo;

struct spinner {
	pthread_t thread;
	int cpu;		/* pinned here, -1: not pinned */
	bool sleeper;		/* works 1 ms, sleeps 1 ms instead */
	volatile int tid;
	volatile int go, stop;
	/* over [go, stop seen]: CPU time and wall time, ns */
	uint64_t cpu_ns, wall_ns;
};

static uint64_t
thread_cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int
pin_self(int cpu)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

static void *
spinner_main(void *arg)
{
	struct spinner *sp = arg;
	uint64_t c0, w0;
	long t;

	if (sp->cpu >= 0 && pin_self(sp->cpu) != 0)
		return NULL;
	sp->tid = (int)syscall(SYS_gettid);
	while (!sp->go)
		sleep_ms(1);
	c0 = thread_cpu_ns();
	w0 = now_ns();
	while (!sp->stop) {
		if (!sp->sleeper)
			continue;
		t = now_ms();
		while (now_ms() - t < 1 && !sp->stop)
			;
		sleep_ms(1);
	}
	sp->cpu_ns = thread_cpu_ns() - c0;
	sp->wall_ns = now_ns() - w0;
	return NULL;
}

/* Starts @n threads as @sp describes, each in SCHED_EXT. */
static void
spinners_start(struct spinner *sp, int n)
{
	int i, err;

	for (i = 0; i < n; i++)
		if (pthread_create(&sp[i].thread, NULL, spinner_main,
		    &sp[i]) != 0)
			fail("pthread_create");
	for (i = 0; i < n; i++) {
		while (!sp[i].tid)
			sleep_ms(1);
		err = scx_task_set_ext(sp[i].tid, true);
		if (err)
			fail("moving tid %d to SCHED_EXT: %s", sp[i].tid,
			    strerror(-err));
	}
}

static void
spinners_join(struct spinner *sp, int n)
{
	int i;

	for (i = 0; i < n; i++)
		sp[i].stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(sp[i].thread, NULL);
}

static double
pct_of(const struct spinner *sp)
{
	return sp->wall_ns ? 100.0 * (double)sp->cpu_ns /
	    (double)sp->wall_ns : 0.0;
}

static void
stats_print(struct scx_sched *s)
{
	uint64_t st[VP_SCX_STAT_NR];
	int i;

	if (scx_stats_read(s, st) != 0)
		fail("reading counters");
	printf("scx_progress: counters");
	for (i = 0; i < VP_SCX_STAT_NR; i++)
		printf(" %s=%llu", stat_names[i], (unsigned long long)st[i]);
	printf("\n");
}

static void
expect_loaded(struct scx_sched *s, const char *when)
{
	struct scx_exit ex;

	if (scx_exited(s) && scx_exit_read(s, &ex) == 0)
		fail("%s: ejected: kind %d, %s (%s)", when, ex.kind,
		    ex.reason, ex.msg);
}

/* Step 1: a PU's own spinner keeps it while the queue holds others'. */
static void
keep_test(struct scx_sched *s)
{
	int n = (int)sysconf(_SC_NPROCESSORS_ONLN), i, low = 0;
	struct spinner *sp = calloc(n + 1, sizeof(*sp));
	double pct, min = 100.0;

	if (!sp)
		fail("calloc");
	if (n < 2)
		fail("%d PUs: the test needs two", n);
	for (i = 0; i < n; i++)
		sp[i].cpu = i;
	sp[n].cpu = 0;
	sp[n].sleeper = true;
	spinners_start(sp, n + 1);
	for (i = 0; i <= n; i++)
		sp[i].go = 1;
	sleep_ms(KEEP_RUN_MS);
	spinners_join(sp, n + 1);
	expect_loaded(s, "keep");
	printf("scx_progress: keep: %d spinners pinned one per PU for %d ms, "
	    "a 1 ms sleeper on PU 0; run time %% of wall:", n, KEEP_RUN_MS);
	for (i = 0; i <= n; i++)
		printf(" %s%d=%.1f", i == n ? "sleeper" : "pu", sp[i].cpu,
		    pct_of(&sp[i]));
	printf("\n");
	/* PU 0's spinner shares its PU with the sleeper: not counted */
	for (i = 1; i < n; i++) {
		pct = pct_of(&sp[i]);
		if (pct < min)
			min = pct;
		if (pct < KEEP_MIN_PCT)
			low++;
	}
	free(sp);
	if (low)
		fail("keep: %d of %d spinners alone on their PU ran less than "
		    "%.0f %% of the time (lowest %.1f %%)", low, n - 1,
		    KEEP_MIN_PCT, min);
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	int err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_progress";
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	err = scx_load(&s, 0);
	if (err)
		fail("scx_load: %s", strerror(-err));
	err = scxfeed_topology(s, topo, 0, NULL);
	if (err)
		fail("scxfeed_topology: %s", strerror(-err));
	keep_test(s);
	stats_print(s);
	scx_detach(s);
	printf("scx_progress: PASS\n");
	return 0;
}
