// SPDX-License-Identifier: GPL-2.0
/*
 * sis_cost - kvm-test: what SIS_CORE's bookkeeping costs, counted, at one
 * wake-up rate, SIS_CORE off against on in one boot.  Under TCG there are
 * no cache-line timings to read, so this counts calls, not cycles:
 *
 *   placements    select_task_rq_fair() calls
 *   probes        available_idle_cpu() calls, per placement
 *   idle entries  __update_idle_core() calls: at each idle entry of an SMT
 *                 CPU, SIS_CORE or not
 *   idle exits    __update_busy_core() calls: at each idle exit, SIS_CORE
 *                 on only
 *   mask writes   calls of sis_core_set(), sis_core_drop() and
 *                 sis_core_claim(), when the build left them out of line;
 *                 each is at most one locked read-modify-write per sibling
 *                 of the mask's line, and only when a bit changes
 *
 * The load: one thread per core plus one, unpinned, each sleeping SLEEP_US
 * and then working WORK_US in a loop: the wake-up rate is set by the
 * sleeps, not by the placements.  Runs of RUN_S or more (until
 * MIN_PLACEMENTS: run_until()): off, on, on, off.
 * Fails if a run has fewer than MIN_PLACEMENTS placements, or if with
 * SIS_CORE off __update_busy_core() or a mask write was called at all:
 * the feature off must cost no hook call.  Everything else is reported.
 */
#include "sis_util.h"

#include <pthread.h>

#define SLEEP_US	2000
#define WORK_US		200
#define WARM_MS		300
#define RUN_S		5
#define MIN_PLACEMENTS	1000
#define CAP_S		(10 * RUN_S)	/* run_until() */

static const char *const funcs[] = {
	"select_task_rq_fair", "available_idle_cpu", "__update_idle_core",
	"__update_busy_core", "sis_core_set", "sis_core_drop",
	"sis_core_claim",
};
#define NFUNCS		(int)(sizeof(funcs) / sizeof(funcs[0]))
enum { PLACE, PROBE, IDLE_IN, IDLE_OUT, SET, DROP, CLAIM };

static int present[NFUNCS];
static atomic_int stop;

/* Is @func a symbol of its own in /proc/kallsyms? */
static int
out_of_line(const char *func)
{
	char line[256], name[128];
	FILE *f = fopen("/proc/kallsyms", "r");
	int found = 0;

	if (!f)
		fail("/proc/kallsyms: %s", strerror(errno));
	while (!found && fgets(line, sizeof(line), f))
		found = sscanf(line, "%*s %*s %127s", name) == 1 &&
			!strcmp(name, func);
	fclose(f);
	return found;
}

static void *
worker(void *arg)
{
	struct timespec ts = { 0, SLEEP_US * 1000L };
	uint64_t end;

	(void)arg;
	while (!atomic_load(&stop)) {
		nanosleep(&ts, NULL);
		end = now_ns() + WORK_US * 1000ULL;
		while (now_ns() < end)
			;
	}
	return NULL;
}

static void
counts(uint64_t *c)
{
	int i;

	for (i = 0; i < NFUNCS; i++)
		c[i] = present[i] ? kprobe_hits(funcs[i]) : 0;
}

/* run_until()'s test: MIN_PLACEMENTS since the counts at @arg. */
static int
enough_placements(void *arg)
{
	const uint64_t *c0 = arg;
	uint64_t c[NFUNCS];

	counts(c);
	return c[PLACE] - c0[PLACE] >= MIN_PLACEMENTS;
}

struct result {
	double wakeups_s, probes, in, out, writes;	/* per placement */
	uint64_t placements, out_calls, write_calls;
};

static struct result
run(int on)
{
	pthread_t th[MAX_CPUS];
	uint64_t c0[NFUNCS], c1[NFUNCS], t0, t1;
	int i, n = ncores + 1;
	struct result r;
	double p;

	set_sis_core(on);
	atomic_store(&stop, 0);
	for (i = 0; i < n; i++)
		if (pthread_create(&th[i], NULL, worker, NULL))
			fail("pthread_create");
	sleep_ms(WARM_MS);
	counts(c0);
	t0 = now_ns();
	run_until(RUN_S, CAP_S, enough_placements, c0);
	counts(c1);
	t1 = now_ns();
	atomic_store(&stop, 1);
	for (i = 0; i < n; i++)
		pthread_join(th[i], NULL);

	r.placements = c1[PLACE] - c0[PLACE];
	p = r.placements ? (double)r.placements : 1;
	r.wakeups_s = r.placements / ((t1 - t0) / 1e9);
	r.probes = (c1[PROBE] - c0[PROBE]) / p;
	r.in = (c1[IDLE_IN] - c0[IDLE_IN]) / p;
	r.out_calls = c1[IDLE_OUT] - c0[IDLE_OUT];
	r.out = r.out_calls / p;
	r.write_calls = (c1[SET] - c0[SET]) + (c1[DROP] - c0[DROP]) +
			(c1[CLAIM] - c0[CLAIM]);
	r.writes = r.write_calls / p;
	printf("sis_cost: RESULT sis_core=%s cpus=%d threads=%d "
	       "placements=%llu placements_per_s=%.0f probes=%.3f "
	       "idle_entries=%.3f idle_exits=%.3f mask_writes=%.3f "
	       "(per placement; set %llu drop %llu claim %llu calls)\n",
	       on ? "on" : "off", ncpus, n, (unsigned long long)r.placements,
	       r.wakeups_s, r.probes, r.in, r.out, r.writes,
	       (unsigned long long)(c1[SET] - c0[SET]),
	       (unsigned long long)(c1[DROP] - c0[DROP]),
	       (unsigned long long)(c1[CLAIM] - c0[CLAIM]));
	if (r.placements < MIN_PLACEMENTS)
		fail("sis_core=%s: %llu placements, want %d", on ? "on" : "off",
		     (unsigned long long)r.placements, MIN_PLACEMENTS);
	if (!on && (r.out_calls || r.write_calls))
		fail("SIS_CORE off, yet %llu idle-exit hook calls and %llu "
		     "mask writes", (unsigned long long)r.out_calls,
		     (unsigned long long)r.write_calls);
	return r;
}

int
main(void)
{
	int i, order[] = { 0, 1, 1, 0 };

	test_name = "sis_cost";
	setvbuf(stdout, NULL, _IOLBF, 0);
	read_topology();
	write_file(TRACEFS "/tracing_on", "0");
	for (i = 0; i < NFUNCS; i++) {
		present[i] = out_of_line(funcs[i]);
		if (present[i])
			kprobe_add(funcs[i], funcs[i], "common_pid < 0");
		else
			printf("sis_cost: %s is inlined: not counted\n",
			       funcs[i]);
	}
	if (!present[PLACE] || !present[PROBE] || !present[IDLE_IN] ||
	    !present[IDLE_OUT])
		fail("a hook or the wake path has no symbol of its own");
	for (i = 0; i < 4; i++)
		run(order[i]);
	set_sis_core(0);
	printf("sis_cost: PASS\n");
	return 0;
}
