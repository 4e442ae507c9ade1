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
 *  2. RT takeover: a SCHED_EXT spinner runs on PU 1 (pinned there, then
 *     allowed everywhere), and a SCHED_FIFO spinner pinned to PU 1 takes
 *     that PU for 1 s.  The SCHED_EXT one, preempted into PU 1's local
 *     DSQ, must run elsewhere: at least 50 % of that second (one 20 ms
 *     slice of delay would leave 98 %; stranded until the RT task ends
 *     it gets what RT throttling leaves, about 5 %), and halfway through
 *     not on PU 1.
 *  3. pinned vCPU: a managed vCPU pinned to PU 2 spins (pinned, it woke
 *     without ops.select_cpu); a host thread works and sleeps 1 ms,
 *     everything else idle.  HOST_PACK must not take the vCPU for host
 *     work: the host thread may wake on the vCPU's SMT sibling in at most
 *     a tenth of its rounds (it would be packed there nearly always).
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

#include "scx/scx.h"
#include "scx/scxfeed.h"
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


static struct vp_topo *topo;

struct spinner {
	pthread_t thread;
	int cpu;		/* pinned here, -1: not pinned */
	bool sleeper;		/* works 1 ms, sleeps 1 ms instead */
	int watch_cpu;		/* a sleeper counts its rounds run here */
	unsigned long rounds, rounds_on_watch;
	volatile int tid;
	volatile int go, stop;
	/* over [go, stop seen]: CPU time and wall time, ns */
	uint64_t cpu_ns, wall_ns;
};

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
	/*
	 * One more sleep after go: go is set only once the loader has
	 * written everything it writes (the pinned vCPU's vp_vcpus entry),
	 * so this wake-up is sure to pass ops.enqueue with it in place.
	 * Without it a thread that sees go without sleeping again (the
	 * guest's vCPU preempted by the host between the check and the
	 * sleep) spins on as host work for the whole test.
	 */
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
		sp->rounds++;
		if (sched_getcpu() == sp->watch_cpu)
			sp->rounds_on_watch++;
	}
	sp->cpu_ns = thread_cpu_ns() - c0;
	sp->wall_ns = now_ns() - w0;
	return NULL;
}

/* Starts @n threads as @sp describes, each in SCHED_EXT. */
static void
spinners_start(struct spinner *sp, int n)
{
	int i;

	for (i = 0; i < n; i++)
		if (pthread_create(&sp[i].thread, NULL, spinner_main,
		    &sp[i]) != 0)
			fail("pthread_create");
	for (i = 0; i < n; i++) {
		while (!sp[i].tid)
			sleep_ms(1);
		ext_or_fail(sp[i].tid);
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

#define RT_RUN_MS 1000
#define RT_MIN_PCT 50.0
#define RT_CPU 1

/* The SCHED_FIFO hog of step 2 and what it saw of the SCHED_EXT one. */
struct rt_hog {
	pthread_t thread;
	clockid_t victim_clock;	/* the SCHED_EXT spinner's CPU clock */
	int err;		/* not SCHED_FIFO after all: EPERM; 0: ran */
	uint64_t victim_ns, wall_ns;
	int victim_tid;
	int rt_cpu_mid, victim_cpu_mid;	/* where both ran halfway */
};

static int last_cpu_of(int tid);

static uint64_t
clock_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static void *
rt_main(void *arg)
{
	struct rt_hog *h = arg;
	uint64_t v0, w0;

	if (sched_getscheduler(0) != SCHED_FIFO) {
		h->err = EPERM;
		return NULL;
	}
	v0 = clock_ns(h->victim_clock);
	w0 = now_ns();
	while (now_ns() - w0 < (uint64_t)RT_RUN_MS * 500000ull)
		;
	h->rt_cpu_mid = sched_getcpu();
	h->victim_cpu_mid = last_cpu_of(h->victim_tid);
	while (now_ns() - w0 < (uint64_t)RT_RUN_MS * 1000000ull)
		;
	h->victim_ns = clock_ns(h->victim_clock) - v0;
	h->wall_ns = now_ns() - w0;
	return NULL;
}

/* The PU thread @tid last ran on (field 39 of /proc/self/task/TID/stat). */
static int
last_cpu_of(int tid)
{
	char path[64], buf[1024], *p;
	int field, cpu = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (fgets(buf, sizeof(buf), f) && (p = strrchr(buf, ')'))) {
		/* field 3 follows ") " */
		for (field = 3, p += 2; *p && field < 39; p++)
			if (*p == ' ')
				field++;
		cpu = atoi(p);
	}
	fclose(f);
	return cpu;
}

/* Step 2: a PU taken by RT does not hold the SCHED_EXT task it ran. */
static void
rt_test(void)
{
	struct spinner sp = { .cpu = RT_CPU };
	struct rt_hog h = { 0 };
	cpu_set_t all;
	double pct;
	int i, n = (int)sysconf(_SC_NPROCESSORS_ONLN), cpu;

	spinners_start(&sp, 1);
	sp.go = 1;
	sleep_ms(200);
	if (last_cpu_of(sp.tid) != RT_CPU)
		fail("rt: the spinner pinned to PU %d runs on PU %d", RT_CPU,
		    last_cpu_of(sp.tid));
	/* allowed everywhere, it runs on where it is */
	CPU_ZERO(&all);
	for (i = 0; i < n; i++)
		CPU_SET(i, &all);
	if (sched_setaffinity(sp.tid, sizeof(all), &all) != 0)
		fail("rt: sched_setaffinity: %s", strerror(errno));
	sleep_ms(100);
	if (pthread_getcpuclockid(sp.thread, &h.victim_clock) != 0)
		fail("rt: pthread_getcpuclockid");
	h.victim_tid = sp.tid;
	rt_thread_start(&h.thread, RT_CPU, rt_main, &h, "rt");
	pthread_join(h.thread, NULL);
	cpu = last_cpu_of(sp.tid);
	spinners_join(&sp, 1);
	if (h.err)
		fail("rt: the SCHED_FIFO thread's setup: %s", strerror(h.err));
	pct = h.wall_ns ? 100.0 * (double)h.victim_ns / (double)h.wall_ns :
	    0.0;
	printf("scx_progress: rt: a SCHED_FIFO spinner took PU %d for %d ms: "
	    "the SCHED_EXT spinner it preempted ran %.1f %% of that time, "
	    "last on PU %d; halfway the RT one ran on PU %d, the other on "
	    "PU %d\n", RT_CPU, RT_RUN_MS, pct, cpu, h.rt_cpu_mid,
	    h.victim_cpu_mid);
	if (h.rt_cpu_mid != RT_CPU)
		fail("rt: the SCHED_FIFO spinner ran on PU %d, not %d",
		    h.rt_cpu_mid, RT_CPU);
	if (pct < RT_MIN_PCT)
		fail("rt: preempted by a SCHED_FIFO task, the SCHED_EXT "
		    "spinner ran %.1f %% of %d ms (want >= %.0f %%): stranded "
		    "in PU %d's local DSQ", pct, RT_RUN_MS, RT_MIN_PCT, RT_CPU);
	/*
	 * Where it was halfway, while the RT task held PU 1: after the RT
	 * task ends, PU 1 is free and the spinner may go back to it at any
	 * time, so where it ran last says nothing (it failed so once).
	 */
	if (h.victim_cpu_mid == RT_CPU)
		fail("rt: halfway, the SCHED_EXT spinner was still on PU %d",
		    RT_CPU);
}

#define PIN_CPU 2
#define PIN_RUN_MS 1000

/* The OS CPU of @cpu's first SMT sibling, or -1. */
static int
sibling_of(int cpu)
{
	const struct vp_core *c;
	int pu, i;

	if (cpu < 0 || (unsigned int)cpu >= topo->os_limit ||
	    topo->os_to_pu[cpu] == VP_PU_NONE)
		return -1;
	pu = topo->os_to_pu[cpu];
	c = &topo->core[topo->pu[pu].core];
	for (i = c->first_pu; i < c->first_pu + c->npus; i++)
		if (i != pu)
			return (int)topo->pu[i].os_index;
	return -1;
}

/* Step 3: a vCPU pinned to one PU is a vCPU, not host work. */
static void
pinned_vcpu_test(struct scx_sched *s)
{
	struct spinner sp[2] = {
		/* the vCPU: it spins once started, but wakes from its wait
		 * for go after it is registered, so enqueue can see it */
		{ .cpu = PIN_CPU, .watch_cpu = -1 },
		/* the host thread */
		{ .cpu = -1, .sleeper = true, .watch_cpu = sibling_of(PIN_CPU) },
	};
	struct scxfeed_vcpu_in in = { .nvcpus = 1, .anchor = VP_PU_NONE };
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	unsigned long rounds, beside;
	int err;

	if (sp[1].watch_cpu < 0)
		fail("pinned: PU %d has no SMT sibling", PIN_CPU);
	spinners_start(sp, 2);
	policy_default(&pol);
	in.policy = &pol;
	in.home = topo->os_to_pu[PIN_CPU];
	scxfeed_vcpu(topo, &in, &e);
	err = scx_vcpu_set(s, sp[0].tid, &e);
	if (err)
		fail("pinned: scx_vcpu_set: %s", strerror(-err));
	sp[0].go = sp[1].go = 1;
	sleep_ms(PIN_RUN_MS);
	spinners_join(sp, 2);
	expect_loaded(s, "pinned");
	rounds = sp[1].rounds;
	beside = sp[1].rounds_on_watch;
	printf("scx_progress: pinned: a managed vCPU spinning pinned to PU %d, "
	    "a host sleeper: %lu of its %lu rounds in %d ms on PU %d, the "
	    "vCPU's sibling\n", PIN_CPU, beside, rounds, PIN_RUN_MS,
	    sp[1].watch_cpu);
	if (rounds < 50)
		fail("pinned: the host sleeper ran only %lu rounds", rounds);
	if (beside * 10 > rounds)
		fail("pinned: the host sleeper woke beside the pinned vCPU in "
		    "%lu of %lu rounds: HOST_PACK took the vCPU for host work",
		    beside, rounds);
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_progress";
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	s = load_described(topo);
	keep_test(s);
	rt_test();
	expect_loaded(s, "rt");
	pinned_vcpu_test(s);
	stats_print(s);
	scx_detach(s);
	printf("scx_progress: PASS\n");
	return 0;
}
