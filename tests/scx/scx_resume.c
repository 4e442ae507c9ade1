/*
 * scx_resume.c - RESUME_PREV under daemon/scx/vcpuplace.bpf.c (run by
 * tests/scx/boot.sh inside the QEMU guest, as root): a task whose slice
 * ended while others waited resumes on the PU it ran on, and the other
 * PUs pass it over while their own task is less than a slice ahead of
 * it (held_elsewhere()).
 *
 * One more spinner than the guest has PUs, none pinned, so one of them
 * always waits in the queue.  Each counts the times it found itself on
 * another CPU than the last time it looked (sched_getcpu() in its loop:
 * every migration, whatever the kernel counts).  Two runs of RUN_MS,
 * RESUME_PREV on, then off (scx_features_set()), with the bound on a
 * held task's lag raised (LAG_TCG_NS):
 *
 *  - on, slice ends keep their spinner while an earlier one waits for its
 *    own PU: the scheduler counts them (resume_held);
 *  - on, the spinners migrate at most a MIN_RATIO-th as often as off,
 *    where each slice end hands its PU to the queue's head, so the waiter
 *    moves to whichever PU's slice ends first.
 *
 * Both are counts of events, not times, so TCG's pace does not decide
 * them.  The last line is "scx_resume: PASS" or "scx_resume: FAIL
 * <reason>".
 */
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scx/scx.h"
#include "scx/scxfeed.h"
#include "guest_topo.h"
#include "guest_util.h"

#define RUN_MS		3000
#define MAX_SPINNERS	65
/*
 * The bound on how far behind a held task may fall, for this test
 * (scx_resume_lag_set()): VP_SCX_RESUME_LAG_NS is two slices of 5 ms, but
 * under QEMU TCG a slice runs 30 ms and more before its tick comes (the
 * guest's 8 vCPUs take turns on one host thread), so nearly every held
 * task would pass the bound by its PU's next slice end, and the test
 * would show the bound instead of the rule.  The bound itself is the
 * simulator's to judge (tests/sim/scx.sh).
 */
#define LAG_TCG_NS	1000000000ULL
/*
 * Off, the waiter moves at nearly every slice end that finds it earliest;
 * on, hardly ever.  Seen in 3 s: on 0-2, off 704-722 (Debian's 7.3.4,
 * HZ 250) and 2899-2941 (the 6.12 test kernel, HZ 1000); with the rule
 * deleted, 2813 and 2744.  4 leaves room.
 */
#define MIN_RATIO	4


static struct vp_topo *topo;

struct spinner {
	pthread_t thread;
	volatile int ready, stop;
	unsigned long moves;
};

static void *
spinner_main(void *arg)
{
	struct spinner *sp = arg;
	int cpu, last = -1;

	/* itself, so that it is a sched_ext task before it spins */
	ext_or_fail((int)syscall(SYS_gettid));
	sp->ready = 1;
	while (!sp->stop) {
		cpu = sched_getcpu();
		if (cpu != last && last >= 0)
			sp->moves++;
		last = cpu;
	}
	return NULL;
}

/*
 * One run of @n spinners for RUN_MS with @features: their migrations in
 * all; *@held: the scheduler's resume_held over the run.
 */
static unsigned long
run(struct scx_sched *s, const char *name, int n, uint32_t features,
    uint64_t *held)
{
	static struct spinner sp[MAX_SPINNERS];
	uint64_t st0[VP_SCX_STAT_NR], st1[VP_SCX_STAT_NR];
	unsigned long moves = 0;
	int i;

	memset(sp, 0, sizeof(sp));
	scx_features_set(s, features);
	for (i = 0; i < n; i++)
		if (pthread_create(&sp[i].thread, NULL, spinner_main,
		    &sp[i]) != 0)
			fail("pthread_create");
	for (i = 0; i < n; i++)
		while (!sp[i].ready)
			sleep_ms(1);
	/* the first moves spread them over the PUs: not counted */
	sleep_ms(200);
	for (i = 0; i < n; i++)
		moves -= sp[i].moves;
	if (scx_stats_read(s, st0) != 0)
		fail("reading counters");
	sleep_ms(RUN_MS);
	for (i = 0; i < n; i++)
		moves += sp[i].moves;
	if (scx_stats_read(s, st1) != 0)
		fail("reading counters");
	for (i = 0; i < VP_SCX_STAT_NR; i++)
		st1[i] -= st0[i];
	*held = st1[VP_SCX_RESUME_HELD];
	counters_print(st1);
	for (i = 0; i < n; i++)
		sp[i].stop = 1;
	for (i = 0; i < n; i++)
		pthread_join(sp[i].thread, NULL);
	expect_loaded(s, name);
	printf("scx_resume: %s: %d spinners on %d PUs, %lu migrations in "
	    "%d ms; %llu slice ends held their spinner for a waiter's own "
	    "PU\n", name, n, n - 1, moves, RUN_MS,
	    (unsigned long long)*held);
	return moves;
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	unsigned long on, off;
	uint64_t held, held_off;
	long ncpus;
	int n;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_resume";
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	ncpus = sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpus < 2 || ncpus >= MAX_SPINNERS)
		fail("the test needs 2 to %d PUs, not %ld", MAX_SPINNERS - 1,
		    ncpus);
	n = (int)ncpus + 1;
	s = load_described(topo);
	scx_resume_lag_set(s, LAG_TCG_NS);
	on = run(s, "on", n, VP_SCX_FEAT_DEFAULT, &held);
	off = run(s, "off", n, VP_SCX_FEAT_DEFAULT &
	    ~VP_SCX_FEAT_RESUME_PREV, &held_off);
	scx_features_set(s, VP_SCX_FEAT_DEFAULT);
	scx_resume_lag_set(s, VP_SCX_RESUME_LAG_NS);
	if (!held)
		fail("on: no slice end held its spinner for a waiter's own PU "
		    "(resume_held 0)");
	if (held_off)
		fail("off: %llu slice ends held their spinner with RESUME_PREV "
		    "off", (unsigned long long)held_off);
	if (!off)
		fail("off: the waiting spinner never moved: nothing to compare");
	if (on * MIN_RATIO > off)
		fail("%lu migrations with RESUME_PREV, %lu without: not %dx "
		    "fewer", on, off, MIN_RATIO);
	stats_print(s);
	scx_detach(s);
	printf("scx_resume: PASS\n");
	return 0;
}
