/*
 * scx_join.c - JOIN_WAKER in a booted kernel, and a joined wake-up whose
 * PU an RT task takes (run by tests/scx/boot.sh inside the QEMU guest, as
 * root).
 *
 * A VM of two vCPUs plays futex ping-pong: the vCPU woken works WORK_US,
 * wakes its partner, works TAIL_US more and sleeps.  A SCHED_EXT spinner
 * pinned to each PU leaves nothing idle, so each wake-up is JOIN_WAKER's
 * (both usual runs are short): the partner queues in the waker's PU's own
 * queue, behind the waker's tail.
 *  1. joins: over JOIN_MS, at least half of the pair's wake-ups joined
 *     their waker (the scheduler's per-vCPU counters), and the pair kept
 *     playing: the rule works in the kernel, not only in the simulator.
 *  2. RT: the vCPU that has just woken its partner wakes a SCHED_FIFO
 *     thread pinned to its own PU, which holds that PU for RT_MS.  A
 *     partner queued in that PU's own queue must start within WAIT_MAX_MS:
 *     taken by another PU of the LLC (taken_released), which nothing
 *     idle leaves to a busy PU kicked at once (kick_released), not left
 *     there until the RT task ends (6.12's scx_bpf_reenqueue_local() in
 *     ops.cpu_release reaches the local DSQ only).  NTRIG takeovers whose
 *     wake-up joined (its counter read before and after it) are judged,
 *     out of MAX_TRIG at most.
 *
 * The last line is "scx_join: PASS" or "scx_join: FAIL <reason>".
 */
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "scx/scx.h"
#include "scx/scxfeed.h"
#include "guest_topo.h"
#include "guest_util.h"

#define MAX_CPUS	64
#define WORK_US		5
#define TAIL_US		15
#define JOIN_MS		1000
/*
 * JOIN_WAKER's bound for this test (scx_join_run_set()), above any run
 * the pair makes here: a round takes 400-700 us under QEMU TCG, and
 * single-threaded TCG, serving 8 guest CPUs from one host thread, can
 * stretch one run to several milliseconds of guest time (7.3.4 measured
 * one wake-up in eight over 2 ms).  A host's tbench burst takes 10-20 us
 * against the 60 us bound.
 */
#define JOIN_RUN_TCG_NS	50000000ULL
#define NTRIG		5
#define MAX_TRIG	20
/* under RT throttling's 950 ms a second, which would let it run anyway */
#define RT_MS		900
/*
 * A PU of the LLC takes the partner at one of its next dispatches, each
 * within a slice (5 ms at most) of guest time; single-threaded TCG
 * stretched that to 1.3-130 ms over 14 boots (a guest CPU waits for the
 * one host thread).  Stranded, it waits RT_MS.
 */
#define WAIT_MAX_MS	(RT_MS / 3)

static struct vp_topo *topo;
static int ncpu;
static atomic_int stop;

struct spinner {
	pthread_t thread;
	int cpu;
	atomic_int tid;
};

/* The SCHED_FIFO thread of one PU: asleep until its go word is set. */
struct rt_thread {
	pthread_t thread;
	atomic_int go;
};

static struct spinner spinners[MAX_CPUS];
static struct rt_thread rts[MAX_CPUS];

/* The pair: whose turn it is (0 or 1), each one's tid and rounds. */
static atomic_int turn;
static atomic_int player_tid[2];
static atomic_ulong rounds;
/* the trigger: asked by main, taken by the next waker */
static atomic_int trig_asked;
/* when the waker that took it woke its partner (0: none pending) */
static atomic_ullong trig_woke_ns;
static atomic_int trig_cpu;
static atomic_int trig_done;	/* takeovers whose RT thread was woken */
static uint64_t waits_ns[MAX_TRIG];
static bool joined[MAX_TRIG];	/* that wake-up joined (counters) */
static atomic_int nwaits;
static struct scx_sched *sched;

static long
futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

static void
work_us(uint64_t us)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < us * 1000)
		;
}

static void *
spinner_main(void *arg)
{
	struct spinner *sp = arg;

	if (pin_self(sp->cpu) != 0)
		return NULL;
	atomic_store(&sp->tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&stop))
		;
	return NULL;
}

static void *
rt_main(void *arg)
{
	struct rt_thread *r = arg;

	while (!atomic_load(&stop)) {
		if (!atomic_load(&r->go)) {
			futex(&r->go, FUTEX_WAIT_PRIVATE, 0);
			continue;
		}
		work_us((uint64_t)RT_MS * 1000);
		atomic_store(&r->go, 0);
	}
	return NULL;
}

/* vCPU @i's JOIN_WAKER wake-ups so far. */
static uint64_t
joins_of(int i)
{
	struct vp_scx_vcpu_stats v;

	if (scx_vcpu_stats_read(sched, atomic_load(&player_tid[i]), &v))
		fail("reading vCPU %d's counters", i);
	return v.n[VP_SCX_V_JOIN_WAKER];
}

/* Gives the turn to the partner of @me and wakes it. */
static void
pass_turn(int me)
{
	atomic_store(&turn, 1 - me);
	futex(&turn, FUTEX_WAKE_PRIVATE, 1);
}

/*
 * A takeover, by the player that took main's request a round before
 * (armed, the partner's join count then in @j0): wake the partner, see
 * whether that wake-up joined, and wake the RT thread of this PU, where
 * a joined partner now waits.  The counters are read after a wake-up,
 * never between the request and it, so the reading is no part of the run
 * that wake-up judges.
 */
static void
take_over_now(int me, uint64_t j0)
{
	int k = atomic_load(&nwaits), cpu;

	atomic_store(&trig_woke_ns, now_ns());
	pass_turn(me);
	if (k < MAX_TRIG)
		joined[k] = joins_of(1 - me) > j0;
	/* its RT thread preempts this waker at once */
	cpu = sched_getcpu();
	atomic_store(&trig_cpu, cpu);
	if (cpu >= 0 && cpu < ncpu) {
		atomic_store(&rts[cpu].go, 1);
		futex(&rts[cpu].go, FUTEX_WAKE_PRIVATE, 1);
	}
	atomic_store(&trig_done, k + 1);
}

static void *
player_main(void *arg)
{
	int me = (int)(long)arg, t, k;
	uint64_t woke, j0 = 0;
	bool armed = false;

	atomic_store(&player_tid[me], (int)syscall(SYS_gettid));
	/* wait for main's first turn: it comes after the vCPU entries */
	while (!atomic_load(&stop)) {
		t = atomic_load(&turn);
		if (t != me) {
			futex(&turn, FUTEX_WAIT_PRIVATE, t);
			continue;
		}
		woke = atomic_exchange(&trig_woke_ns, 0);
		if (woke) {
			k = atomic_fetch_add(&nwaits, 1);
			if (k < MAX_TRIG)
				waits_ns[k] = now_ns() - woke;
		}
		atomic_fetch_add(&rounds, 1);
		work_us(WORK_US);
		if (armed) {
			armed = false;
			take_over_now(me, j0);
		} else {
			pass_turn(me);
			/* the partner's next wake-up is the takeover's */
			if (atomic_exchange(&trig_asked, 0)) {
				j0 = joins_of(1 - me);
				armed = true;
			}
		}
		work_us(TAIL_US);
	}
	return NULL;
}

/* The pair as the daemon feeds a VM of two vCPUs: homes on PUs 0 and 1. */
static void
feed_pair(struct scx_sched *s)
{
	struct vp_policy pol;
	int i, err;

	policy_default(&pol);
	for (i = 0; i < 2; i++) {
		struct vp_scx_vcpu e;
		const struct scxfeed_vcpu_in in = {
			.policy = &pol, .nvcpus = 2, .home = i,
			.anchor = VP_PU_NONE, .vm = 0, .vcpu = i,
		};

		scxfeed_vcpu(topo, &in, &e);
		err = scx_vcpu_set(s, atomic_load(&player_tid[i]), &e);
		if (err)
			fail("scx_vcpu_set: %s", strerror(-err));
	}
}

/* The pair's per-vCPU counters, summed: wake-ups and joins. */
static void
pair_stats(struct scx_sched *s, uint64_t *ret_wakeups, uint64_t *ret_joins)
{
	struct vp_scx_vcpu_stats v;
	int i;

	*ret_wakeups = *ret_joins = 0;
	for (i = 0; i < 2; i++) {
		if (scx_vcpu_stats_read(s, atomic_load(&player_tid[i]), &v))
			fail("reading vCPU %d's counters", i);
		*ret_wakeups += v.n[VP_SCX_V_WAKEUP];
		*ret_joins += v.n[VP_SCX_V_JOIN_WAKER];
	}
}

/* The pair's per-vCPU counters, each by name. */
static void
vstats_print(struct scx_sched *s)
{
	static const char *const names[VP_SCX_VSTAT_NR] = VP_SCX_VSTAT_NAMES;
	struct vp_scx_vcpu_stats v;
	int i, k;

	for (i = 0; i < 2; i++) {
		if (scx_vcpu_stats_read(s, atomic_load(&player_tid[i]), &v))
			fail("reading vCPU %d's counters", i);
		printf("scx_join: vCPU %d:", i);
		for (k = 0; k < VP_SCX_VSTAT_NR; k++)
			printf(" %s=%llu", names[k],
			    (unsigned long long)v.n[k]);
		printf("\n");
	}
}

/* Step 1: with nothing idle, the pair's wake-ups join their waker. */
static void
join_test(struct scx_sched *s)
{
	uint64_t w0, j0, w1, j1;
	unsigned long r0 = atomic_load(&rounds);

	pair_stats(s, &w0, &j0);
	sleep_ms(JOIN_MS);
	pair_stats(s, &w1, &j1);
	vstats_print(s);
	printf("scx_join: joins: %d PUs each with a pinned spinner, a pair "
	    "of vCPUs in ping-pong: %lu rounds in %d ms, %llu of %llu "
	    "wake-ups joined the waker\n", ncpu,
	    atomic_load(&rounds) - r0, JOIN_MS,
	    (unsigned long long)(j1 - j0), (unsigned long long)(w1 - w0));
	if (atomic_load(&rounds) - r0 < 10)
		fail("joins: the pair played only %lu rounds in %d ms",
		    atomic_load(&rounds) - r0, JOIN_MS);
	if ((j1 - j0) * 2 < w1 - w0)
		fail("joins: %llu of %llu wake-ups joined their waker, want at "
		    "least half: nothing was idle and both runs are short",
		    (unsigned long long)(j1 - j0),
		    (unsigned long long)(w1 - w0));
}

/*
 * One takeover: the next waker wakes the RT thread of its PU.  Returns
 * once the partner has run again and that RT thread is done.
 */
static void
take_over(int i)
{
	long t0 = now_ms();
	int k;

	atomic_store(&trig_asked, 1);
	/* the wait is recorded when the partner runs again */
	while (atomic_load(&nwaits) <= i || atomic_load(&trig_done) <= i) {
		if (now_ms() - t0 > 10L * RT_MS)
			fail("rt: takeover %d: the partner never ran again in "
			    "%d ms", i, 10 * RT_MS);
		sleep_ms(5);
	}
	k = atomic_load(&trig_cpu);
	while (k >= 0 && k < ncpu && atomic_load(&rts[k].go))
		sleep_ms(5);
	sleep_ms(50);
}

/*
 * Step 2: an RT task takes the PU a joined wake-up waits on.  Only the
 * takeovers whose wake-up joined are judged (a few queue in the LLC's
 * queue instead, where any PU takes them): NTRIG of them, out of at most
 * MAX_TRIG.
 */
static void
rt_test(struct scx_sched *s)
{
	uint64_t st0[VP_SCX_STAT_NR], st1[VP_SCX_STAT_NR], worst = 0;
	int i, njoined = 0;

	if (scx_stats_read(s, st0))
		fail("reading the scheduler's counters");
	for (i = 0; i < MAX_TRIG && njoined < NTRIG; i++) {
		take_over(i);
		njoined += joined[i];
	}
	if (scx_stats_read(s, st1))
		fail("reading the scheduler's counters");
	printf("scx_join: rt: %d times a SCHED_FIFO thread took the PU of the "
	    "vCPU that had just woken its partner, for %d ms; the partner's "
	    "waits (ms, * joined):", i, RT_MS);
	for (int k = 0; k < i; k++) {
		printf(" %.1f%s", (double)waits_ns[k] / 1e6,
		    joined[k] ? "*" : "");
		if (joined[k] && waits_ns[k] > worst)
			worst = waits_ns[k];
	}
	printf("; taken_released %llu, kick_released %llu\n",
	    (unsigned long long)
	    (st1[VP_SCX_TAKEN_RELEASED] - st0[VP_SCX_TAKEN_RELEASED]),
	    (unsigned long long)
	    (st1[VP_SCX_KICK_RELEASED] - st0[VP_SCX_KICK_RELEASED]));
	if (njoined < NTRIG)
		fail("rt: %d of %d takeovers came after a joined wake-up, want "
		    "%d", njoined, i, NTRIG);
	if (worst > (uint64_t)WAIT_MAX_MS * 1000000ull)
		fail("rt: a joined wake-up waited %.1f ms (want <= %d ms) while "
		    "a SCHED_FIFO thread held its PU for %d ms: stranded in "
		    "that PU's own queue", (double)worst / 1e6, WAIT_MAX_MS,
		    RT_MS);
	if (st1[VP_SCX_TAKEN_RELEASED] == st0[VP_SCX_TAKEN_RELEASED])
		fail("rt: no PU took a task from the queue of a PU the "
		    "SCHED_FIFO thread held (taken_released)");
	/* every PU runs a spinner: none idles, so a busy one is kicked */
	if (st1[VP_SCX_KICK_RELEASED] == st0[VP_SCX_KICK_RELEASED])
		fail("rt: no busy PU was kicked for the queue of a PU the "
		    "SCHED_FIFO thread held (kick_released)");
}

int
main(void)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	pthread_t players[2];
	int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_join";
	if (guest_topo_load(&topo))
		fail("cannot read the guest's topology");
	ncpu = (int)sysconf(_SC_NPROCESSORS_ONLN);
	if (ncpu < 2 || ncpu > MAX_CPUS)
		fail("%d CPUs: want 2 to %d", ncpu, MAX_CPUS);
	sched = s = load_described(topo);
	scx_join_run_set(s, JOIN_RUN_TCG_NS);
	for (i = 0; i < ncpu; i++) {
		rt_thread_start(&rts[i].thread, i, rt_main, &rts[i], "rt");
		spinners[i].cpu = i;
		if (pthread_create(&spinners[i].thread, NULL, spinner_main,
		    &spinners[i]) != 0)
			fail("pthread_create");
	}
	/* nobody's turn until both are vCPUs */
	atomic_store(&turn, 2);
	for (i = 0; i < 2; i++)
		if (pthread_create(&players[i], NULL, player_main,
		    (void *)(long)i) != 0)
			fail("pthread_create");
	for (i = 0; i < ncpu; i++) {
		while (!atomic_load(&spinners[i].tid))
			sleep_ms(1);
		ext_or_fail(atomic_load(&spinners[i].tid));
	}
	for (i = 0; i < 2; i++) {
		while (!atomic_load(&player_tid[i]))
			sleep_ms(1);
		ext_or_fail(atomic_load(&player_tid[i]));
	}
	feed_pair(s);
	atomic_store(&turn, 0);
	futex(&turn, FUTEX_WAKE_PRIVATE, 2);
	sleep_ms(200);
	join_test(s);
	rt_test(s);
	expect_loaded(s, "after the RT takeovers");
	stats_print(s);
	atomic_store(&stop, 1);
	/* the players sleep on turn, the RT threads on go: exit() ends all */
	scx_detach(s);
	printf("scx_join: PASS\n");
	exit(0);
}
