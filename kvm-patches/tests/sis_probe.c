// SPDX-License-Identifier: GPL-2.0
/*
 * sis_probe - kvm-test: what SIS_CORE costs pinned tasks where the idle
 * scan runs, in idle probes per placement, off against on in one boot.
 *
 * A busy LLC: a hog pinned on the first CPU of every core but the last.
 * The last core is idle but for a ticker pinned on its first CPU, which
 * runs TICK_US every millisecond, as a housekeeping CPU might: the core
 * keeps turning idle again, so its bits keep coming back into the idle
 * mask.  No other thread may run there: an idle core open to nobody,
 * which a scan that ignored the allowed set would probe again and again.  PAIRS futex ping-pong pairs, every thread
 * pinned to the hogs' siblings (fewer CPUs than threads), so the target
 * and the previous CPU are often busy and select_idle_cpu() runs.
 *
 * kprobe events count calls of available_idle_cpu(), the probe of one
 * CPU, and of select_task_rq_fair(), one placement, and apart the probes
 * of the ticker's core made from other CPUs ("far" probes: the ticker's
 * own idle entries look at its sibling, in both modes).  Runs of RUN_S or
 * more (until MIN_PLACEMENTS: run_until()): off, on, on, off.
 * Fails (last line "sis_probe: FAIL <why>") if a run has fewer than
 * MIN_PLACEMENTS placements; if the mean probes per placement with
 * SIS_CORE on exceed those with it off by more than SLACK_PCT %, about
 * the spread of two runs of one mode seen on this test; or if with it on the
 * far probes per placement exceed those with it off by more than
 * FAR_SLACK: the walk of the idle cores must not look at a core that no
 * allowed set holds.
 */
#include "sis_util.h"

#include <pthread.h>

#define PAIRS		2
#define WORK_US		1000
#define WARM_MS		500
#define RUN_S		8
#define MIN_PLACEMENTS	1000
#define CAP_S		(10 * RUN_S)	/* run_until() */
/*
 * Two runs of one mode in one boot have differed by up to 19 % (the
 * ticker and TCG's round robin make the mix of wake-up paths vary), and
 * the means of on and off by -11 % to +13 %.  The far probes below are
 * the tight check; this one catches a walk that costs more everywhere.
 */
#define SLACK_PCT	20.0
#define TICK_US		50
#define FAR_SLACK	0.05	/* far probes per placement */

static atomic_int stop;
static cpu_set_t hog_sibs;

struct player {
	atomic_int *turn;
	int me;
};

static void
spin_us(unsigned int us)
{
	uint64_t end = now_ns() + us * 1000ULL;

	while (now_ns() < end)
		;
}

static void *
player_main(void *arg)
{
	struct player *pl = arg;

	pin_self(&hog_sibs, -1);
	while (await_turn(pl->turn, pl->me, &stop) >= 0) {
		spin_us(WORK_US);
		pass_turn(pl->turn, !pl->me);
	}
	return NULL;
}

static void *
ticker_main(void *arg)
{
	pin_self(NULL, (int)(long)arg);
	while (!atomic_load(&stop)) {
		sleep_ms(1);
		spin_us(TICK_US);
	}
	return NULL;
}

static void *
hog_main(void *arg)
{
	pin_self(NULL, (int)(long)arg);
	while (!atomic_load(&stop))
		;
	return NULL;
}

struct result {
	double per, far_per;
};

/* run_until()'s test: MIN_PLACEMENTS since the count at @arg. */
static int
enough_placements(void *arg)
{
	const struct probe_count *c0 = arg;

	return probe_count().placements - c0->placements >= MIN_PLACEMENTS;
}

static struct result
run(int on)
{
	pthread_t th[2 * PAIRS + MAX_CPUS + 1];
	struct player pl[2 * PAIRS];
	atomic_int turns[PAIRS];
	struct probe_count c0, c1;
	uint64_t placements, far;
	struct result r;
	int i, n = 0;

	set_sis_core(on);
	atomic_store(&stop, 0);
	for (i = 0; i < ncores - 1; i++)
		if (pthread_create(&th[n++], NULL, hog_main,
				   (void *)(long)core_cpu[i][0]))
			fail("pthread_create");
	if (pthread_create(&th[n++], NULL, ticker_main,
			   (void *)(long)core_cpu[ncores - 1][0]))
		fail("pthread_create");
	for (i = 0; i < 2 * PAIRS; i++) {
		atomic_store(&turns[i / 2], 0);
		pl[i].turn = &turns[i / 2];
		pl[i].me = i % 2;
		if (pthread_create(&th[n++], NULL, player_main, &pl[i]))
			fail("pthread_create");
	}
	sleep_ms(WARM_MS);
	far_probes_reset();
	c0 = probe_count();
	run_until(RUN_S, CAP_S, enough_placements, &c0);
	c1 = probe_count();
	far = far_probes();
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);

	r.per = probes_per_placement(c0, c1, &placements);
	r.far_per = placements ? (double)far / placements : 0;
	printf("sis_probe: RESULT sis_core=%s placements=%llu probes=%llu "
	       "probes_per_placement=%.3f far_probes=%llu "
	       "far_probes_per_placement=%.3f\n", on ? "on" : "off",
	       (unsigned long long)placements,
	       (unsigned long long)(c1.probes - c0.probes), r.per,
	       (unsigned long long)far, r.far_per);
	fflush(stdout);
	if (placements < MIN_PLACEMENTS)
		fail("sis_core=%s: %llu placements, want %d", on ? "on" : "off",
		     (unsigned long long)placements, MIN_PLACEMENTS);
	return r;
}

static void
add(struct result *sum, struct result r)
{
	sum->per += r.per / 2;
	sum->far_per += r.far_per / 2;
}

int
main(void)
{
	struct result off = { 0, 0 }, on = { 0, 0 };
	int i;

	test_name = "sis_probe";
	setvbuf(stdout, NULL, _IOLBF, 0);
	read_topology();
	CPU_ZERO(&hog_sibs);
	for (i = 0; i < ncores - 1; i++)
		CPU_SET(core_cpu[i][1], &hog_sibs);
	probes_setup();
	far_probes_setup(core_cpu[ncores - 1][0], core_cpu[ncores - 1][1]);
	add(&off, run(0));
	add(&on, run(1));
	add(&on, run(1));
	add(&off, run(0));
	set_sis_core(0);
	printf("sis_probe: RESULT mean probes_per_placement off=%.3f on=%.3f "
	       "far_probes_per_placement off=%.3f on=%.3f\n", off.per, on.per,
	       off.far_per, on.far_per);
	if (on.per > off.per * (1 + SLACK_PCT / 100))
		fail("SIS_CORE on probes %.3f CPUs per placement, off %.3f: "
		     "more than %.0f %% above", on.per, off.per, SLACK_PCT);
	if (on.far_per > off.far_per + FAR_SLACK)
		fail("SIS_CORE on probes the core no allowed set holds %.3f "
		     "times per placement, off %.3f", on.far_per, off.far_per);
	printf("sis_probe: PASS\n");
	return 0;
}
