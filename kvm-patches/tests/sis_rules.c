// SPDX-License-Identifier: GPL-2.0
/*
 * sis_rules - kvm-test: one scenario per SIS_CORE rule that sis_wake and
 * sis_probe do not reach.  Each builds a state of the idle-core mask with
 * the test hook /sys/kernel/debug/sis_core (tests/sis_core_debugfs.c),
 * wakes one task whose previous CPU, allowed set and neighbours it chose,
 * and reads where the task ran and what the wake-up left in the mask.
 *
 *   allowed  the task was re-pinned while asleep, away from an idle core;
 *            the wake-up must not claim that core (it would stay hidden)
 *   walk     the walk of the idle cores must claim only allowed ones
 *   probe    a core whose bit is set but whose sibling is busy must be
 *            probed, not taken: the task goes to the whole idle core
 *   idle     a target that runs only a SCHED_IDLE task is taken at once,
 *            as stock does
 *   flag     a walk that finds no idle core must not clear
 *            has_idle_cores while a core the mask missed is idle
 *   budget   the walk spends SIS_UTIL's nr_idle_scan per CPU probed: with
 *            2, a stale core met first (1 probe) leaves too little to
 *            probe both threads of the idle core behind it; with 3 that
 *            core is claimed
 *   busy     a core whose CPU leaves idle loses its bits (the idle-exit
 *            hook), though no wake-up claimed or probed it
 *   claim    a claim takes the core's bits, and a second claim of the same
 *            core fails (through the hook's "claim N", which calls the
 *            patch's claim helper itself: the race of two wakers on two
 *            CPUs cannot be timed under TCG, see the rule)
 *   span     (run alone, "sis_rules span", in a boot with
 *            isolcpus=domain,N on one thread of a core) the mask holds no
 *            bit of a CPU outside the LLC domain, and the core's other
 *            thread still gets its bit
 *   cluster  (run alone, "sis_rules cluster", in a boot whose LLC holds two
 *            clusters of two cores, cores 0-1 and 2-3) the walk claims an
 *            idle core of the target's cluster before one of the other
 *            cluster that comes first in CPU order
 *
 * Time never decides a verdict.  A round is judged only when the CPUs its
 * verdict rests on did not switch tasks between the setup and the reading
 * (their sched_count in /proc/schedstat did not move), so nothing but the
 * woken task ran there.  For that to happen often enough, the rest of the
 * guest (movable tasks, IRQs, unbound workqueues) is kept on core 0's
 * first CPU while the rules run (sis_strays.h).  A rule fails at its
 * first judged round that breaks it, and also when fewer than MIN_JUDGED
 * of ROUNDS rounds (BUDGET_ROUNDS for budget) could be judged
 * (kvm-patches/mutants never counts that second kind of failure as a
 * kill).  "sis_rules RULE" runs one rule, none runs all but span and
 * cluster.
 * Last line: "sis_rules: PASS" or "sis_rules: FAIL <rule>: <why>".
 * Needs 4 cores of 2 threads; the main thread runs on core 0's first CPU,
 * a hog on its sibling, so core 0 never enters the mask.
 */
#include "sis_util.h"
#include "sis_strays.h"

#include <pthread.h>
#include <sys/resource.h>

#define HOOK		"/sys/kernel/debug/sis_core"
#define ROUNDS		120
/* budget's rounds count only while the LLC's periodic balance has not
 * rewritten the nr_idle_scan they set: in a full run 29 of 120 were */
#define BUDGET_ROUNDS	(3 * ROUNDS)
#define MIN_JUDGED	20
#define SETTLE_MS	20	/* after the wake-up, before the last reading */

static const char *rule;

/* The hook's reading. */
struct hook {
	cpu_set_t mask;
	int has_idle_cores, nr_idle_scan;
	cpu_set_t span;
};

static void
parse_cpulist(const char *s, cpu_set_t *set)
{
	int a, b, n;

	CPU_ZERO(set);
	while (sscanf(s, "%d%n", &a, &n) == 1) {
		s += n;
		b = a;
		if (*s == '-' && sscanf(s + 1, "%d%n", &b, &n) == 1)
			s += 1 + n;
		for (; a <= b && a < MAX_CPUS; a++)
			CPU_SET(a, set);
		if (*s != ',')
			break;
		s++;
	}
}

static struct hook
hook_read(void)
{
	char buf[512], list[256], *p;
	struct hook h;

	read_file(HOOK, buf, sizeof(buf));
	CPU_ZERO(&h.mask);
	h.has_idle_cores = h.nr_idle_scan = -1;
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n")) {
		if (sscanf(p, "mask %255s", list) == 1)
			parse_cpulist(list, &h.mask);
		else if (sscanf(p, "span %255s", list) == 1)
			parse_cpulist(list, &h.span);
		else if (sscanf(p, "has_idle_cores %d", &h.has_idle_cores) != 1)
			sscanf(p, "nr_idle_scan %d", &h.nr_idle_scan);
	}
	if (h.has_idle_cores < 0 || h.nr_idle_scan < 0)
		fail("%s: cannot read %s", rule, HOOK);
	return h;
}

static void
hook_write(const char *fmt, int arg)
{
	char line[32];

	snprintf(line, sizeof(line), fmt, arg);
	write_file(HOOK, line);
}

/* "claim N" through the hook: 1 if the claim took the core, 0 if not. */
static int
hook_claim(int cpu)
{
	char line[32];
	int fd, ok;

	snprintf(line, sizeof(line), "claim %d", cpu);
	fd = open(HOOK, O_WRONLY);
	if (fd < 0)
		fail("%s: %s: %s", rule, HOOK, strerror(errno));
	ok = write(fd, line, strlen(line)) == (ssize_t)strlen(line);
	if (!ok && errno != EBUSY)
		fail("%s: %s: %s: %s", rule, HOOK, line, strerror(errno));
	close(fd);
	return ok;
}

/* sched_count of every CPU, from /proc/schedstat. */
struct counts {
	unsigned long long n[MAX_CPUS];
};

static struct counts
sched_counts(void)
{
	unsigned long long yld, legacy, count;
	char buf[16384], *p;
	struct counts c;
	int cpu;

	memset(&c, 0, sizeof(c));
	read_file("/proc/schedstat", buf, sizeof(buf));
	for (p = strtok(buf, "\n"); p; p = strtok(NULL, "\n"))
		if (sscanf(p, "cpu%d %llu %llu %llu", &cpu, &yld, &legacy,
			   &count) == 4 && cpu >= 0 && cpu < MAX_CPUS)
			c.n[cpu] = count;
	return c;
}

/* Per CPU, the rounds of this rule it left unjudged by moving. */
static int moved[MAX_CPUS];

/* Did every CPU of @set keep still between @a and @b? */
static int
quiet(const struct counts *a, const struct counts *b, const cpu_set_t *set)
{
	int cpu, still = 1;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (CPU_ISSET(cpu, set) && a->n[cpu] != b->n[cpu]) {
			moved[cpu]++;
			still = 0;
		}
	return still;
}

/* Hogs: a busy loop pinned to one CPU, SCHED_OTHER or SCHED_IDLE. */
static atomic_int hogs_stop;
static pthread_t hog_th[MAX_CPUS];
static int nhogs;

struct hog_arg {
	int cpu, sched_idle;
	atomic_int there;	/* it runs on @cpu, pinned */
};

static void *
hog_main(void *arg)
{
	struct hog_arg *h = arg;
	struct sched_param sp = { 0 };

	pin_self(NULL, h->cpu);
	if (h->sched_idle && sched_setscheduler(0, SCHED_IDLE, &sp))
		fail("%s: SCHED_IDLE: %s", rule, strerror(errno));
	while (!atomic_load(&hogs_stop))
		atomic_store(&h->there, sched_getcpu() == h->cpu);
	return NULL;
}

/*
 * A new thread first runs where fork balancing put it, maybe on a CPU a
 * rule wants idle, and only then pins itself: hog() returns once the hog
 * runs on its own CPU, so that no round starts with it elsewhere.
 */
static void
hog(int cpu, int sched_idle)
{
	static struct hog_arg args[MAX_CPUS];
	struct hog_arg *h = &args[nhogs];

	h->cpu = cpu;
	h->sched_idle = sched_idle;
	atomic_store(&h->there, 0);
	if (pthread_create(&hog_th[nhogs], NULL, hog_main, h))
		fail("pthread_create");
	nhogs++;
	while (!atomic_load(&h->there))
		sleep_ms(1);
}

/* A hog that says when it runs on its CPU: busy's, started each round. */
static atomic_int spinner_cpu = -1, spinner_stop;

static void *
spinner_main(void *arg)
{
	int cpu = *(int *)arg;

	pin_self(NULL, cpu);
	while (!atomic_load(&spinner_stop))
		atomic_store(&spinner_cpu, sched_getcpu());
	return NULL;
}

static void
hogs_end(void)
{
	int i;

	atomic_store(&hogs_stop, 1);
	for (i = 0; i < nhogs; i++)
		pthread_join(hog_th[i], NULL);
	nhogs = 0;
	atomic_store(&hogs_stop, 0);
}

/*
 * The woken task.  Each round it is first put to sleep on @sleep_cpu with
 * the allowed set @allowed (by itself if @allowed holds @sleep_cpu, so it
 * does not move; else by the main thread once it sleeps, which leaves it
 * on @sleep_cpu as a re-pin of a sleeping vCPU does), then woken once; it
 * reports the CPU it woke on and sleeps there until the next round.
 */
static struct {
	atomic_int turn;	/* 0: main's, 1: the wakee's */
	atomic_int stop;
	atomic_int tid;
	int prepare;		/* this turn: go to sleep_cpu */
	int sleep_cpu;
	cpu_set_t allowed;
	int ran_on;
} wk;

/*
 * The wakee's wait has no timeout (await_turn()'s would do): a timeout
 * wakes it on its own, on a CPU of the scheduler's choosing, between the
 * main thread's reading of where it sleeps and the wake-up under test, or
 * while the mask is half built.  The main thread sets wk.stop and passes
 * the turn to end it.
 */
static int
wakee_wait(void)
{
	int t;

	while ((t = atomic_load(&wk.turn)) != 1)
		futex(&wk.turn, FUTEX_WAIT_PRIVATE, t, NULL);
	return atomic_load(&wk.stop) ? -1 : 0;
}

static void *
wakee_main(void *arg)
{
	(void)arg;
	atomic_store(&wk.tid, (int)syscall(SYS_gettid));
	while (wakee_wait() >= 0) {
		wk.ran_on = sched_getcpu();
		if (wk.prepare) {
			pin_self(NULL, wk.sleep_cpu);
			if (CPU_ISSET(wk.sleep_cpu, &wk.allowed))
				pin_self(&wk.allowed, -1);
		}
		pass_turn(&wk.turn, 0);
	}
	return NULL;
}

/* Waits until the wakee sleeps; returns the CPU it sleeps on. */
static int
wakee_asleep(void)
{
	char path[64], buf[1024], *p, state;
	int i, cpu = -1;

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat",
		 atomic_load(&wk.tid));
	for (;;) {
		read_file(path, buf, sizeof(buf));
		/* after "(comm) ": state is field 3, processor field 39 */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 2, "%c", &state) != 1)
			fail("%s: %s unreadable", rule, path);
		/* p + 1 is the space before field 3 */
		for (i = 3, p++; i < 39 && p; i++)
			p = strchr(p + 1, ' ');
		if (!p || sscanf(p + 1, "%d", &cpu) != 1)
			fail("%s: %s: no processor field", rule, path);
		if (state == 'S')
			return cpu;
		sleep_ms(1);
	}
}

static void
wakee_turn(void)
{
	const atomic_int never = 0;

	pass_turn(&wk.turn, 1);
	if (await_turn(&wk.turn, 0, &never) < 0)
		fail("%s: wakee lost", rule);
}

/*
 * The mask state a round starts from: only the cores of the CPUs in
 * set[] (as their idle entries would set them), and has_idle_cores
 * forced to 1 if @flag.
 */
struct mask_state {
	int set[2], nset, flag;
	int scan;		/* > 0: nr_idle_scan set to it */
};

static void
mask_build(const struct mask_state *m)
{
	int i;

	hook_write("clear", 0);
	for (i = 0; i < m->nset; i++)
		hook_write("set %d", m->set[i]);
	if (m->flag)
		hook_write("flag %d", 1);
	if (m->scan)
		hook_write("scan %d", m->scan);
}

/*
 * One round: the wakee goes to sleep on @sleep_cpu with @allowed, the
 * mask is built as @m says, the wakee is woken (the placement runs here,
 * in this thread's futex_wake), and the readings are taken: @c0 just
 * before the mask is built, @h right after the wakee reported, @c1
 * SETTLE_MS later.
 */
struct round {
	struct counts c0, c1;
	struct hook h;
	int ran_on;
	int asleep_where_set;	/* the wakee slept on @sleep_cpu */
};

/* Rounds of this rule whose wakee fell asleep elsewhere than set. */
static int misplaced;

static struct round
wake_round(int sleep_cpu, const cpu_set_t *allowed,
	   const struct mask_state *m)
{
	struct round r;
	int cpu;

	wk.prepare = 1;
	wk.sleep_cpu = sleep_cpu;
	wk.allowed = *allowed;
	wakee_turn();
	cpu = wakee_asleep();
	/*
	 * "S" shows before the sleeper's CPU has switched to idle, which
	 * moves its sched_count: give it time to, or the round is not
	 * judged.  Only how many rounds are judged depends on this.
	 */
	sleep_ms(SETTLE_MS);
	/* moved before it slept (a wake-up beside it, then an idle pull):
	 * the round goes on but is not judged */
	r.asleep_where_set = cpu == sleep_cpu;
	misplaced += !r.asleep_where_set;
	if (!CPU_ISSET(sleep_cpu, allowed) &&
	    sched_setaffinity(atomic_load(&wk.tid), sizeof(*allowed), allowed))
		fail("%s: re-pin: %s", rule, strerror(errno));

	wk.prepare = 0;
	r.c0 = sched_counts();
	mask_build(m);
	wakee_turn();
	r.ran_on = wk.ran_on;
	r.h = hook_read();
	sleep_ms(SETTLE_MS);
	r.c1 = sched_counts();
	if (!CPU_ISSET(r.ran_on, allowed))
		fail("%s: the wakee ran on CPU %d, outside its allowed set",
		     rule, r.ran_on);
	return r;
}

/* The cores: 0 the main thread's, then H, Z and Y as each rule names. */
#define C(core, t)	core_cpu[core][t]
enum { CORE_MAIN, CORE_H, CORE_Z, CORE_Y };

static cpu_set_t
set_of(int n, ...)
{
	cpu_set_t s;
	va_list ap;

	CPU_ZERO(&s);
	va_start(ap, n);
	while (n--)
		CPU_SET(va_arg(ap, int), &s);
	va_end(ap);
	return s;
}

static cpu_set_t
core_set(int core)
{
	return set_of(2, C(core, 0), C(core, 1));
}

static int
core_in(const cpu_set_t *mask, int core)
{
	return CPU_ISSET(C(core, 0), mask) && CPU_ISSET(C(core, 1), mask);
}

static int judged;

static void
judge(int ok, const char *why, int cpu)
{
	judged++;
	if (!ok)
		fail("%s: %s (CPU %d)", rule, why, cpu);
}

/* allowed: core Y idle, its bits set; the wakee slept on Y's first CPU and
 * was re-pinned to cores H and Z.  Judged when Y kept still. */
static void
rule_allowed(int round)
{
	const struct mask_state m = { .set = { C(CORE_Y, 0) }, .nset = 1 };
	cpu_set_t allowed = set_of(4, C(CORE_H, 0), C(CORE_H, 1),
				   C(CORE_Z, 0), C(CORE_Z, 1));
	cpu_set_t y = core_set(CORE_Y);
	struct round r = wake_round(C(CORE_Y, 0), &allowed, &m);

	(void)round;
	if (!r.asleep_where_set)
		return;
	if (quiet(&r.c0, &r.c1, &y))
		judge(core_in(&r.h.mask, CORE_Y),
		      "an idle core the task may not run on was claimed",
		      C(CORE_Y, 0));
}

/* walk: a hog on H's first CPU; the wakee slept on H's second, may run
 * there or on core Y; Z and Y idle with their bits set, Z first in the
 * walk's order.  Judged when Z kept still: it keeps its bits. */
static void
rule_walk(int round)
{
	const struct mask_state m = { .set = { C(CORE_Z, 0), C(CORE_Y, 0) },
				      .nset = 2 };
	cpu_set_t allowed = set_of(3, C(CORE_H, 1), C(CORE_Y, 0), C(CORE_Y, 1));
	cpu_set_t z = core_set(CORE_Z);
	struct round r;

	if (!round)
		hog(C(CORE_H, 0), 0);
	r = wake_round(C(CORE_H, 1), &allowed, &m);
	if (!r.asleep_where_set)
		return;
	if (quiet(&r.c0, &r.c1, &z))
		judge(core_in(&r.h.mask, CORE_Z),
		      "the walk claimed an idle core outside the allowed set",
		      C(CORE_Z, 0));
}

/* probe: a hog on H's first CPU, H's bits set all the same (stale); Y idle
 * with its bits set.  The wakee slept on H's second CPU and may run there
 * or on Y.  Judged when it stacked on H although Y kept still, i.e. stayed
 * idle, and the SIS_UTIL budget allowed a probe of Y. */
static void
rule_probe(int round)
{
	const struct mask_state m = { .set = { C(CORE_H, 0), C(CORE_Y, 0) },
				      .nset = 2 };
	cpu_set_t allowed = set_of(3, C(CORE_H, 1), C(CORE_Y, 0), C(CORE_Y, 1));
	cpu_set_t y = core_set(CORE_Y);
	struct round r;

	if (!round)
		hog(C(CORE_H, 0), 0);
	r = wake_round(C(CORE_H, 1), &allowed, &m);
	if (!r.asleep_where_set)
		return;
	if (r.ran_on != C(CORE_H, 1))
		judged++;
	else if (quiet(&r.c0, &r.c1, &y) && r.h.nr_idle_scan >= 4)
		judge(0, "took a core on a stale bit, beside a busy sibling, "
		      "while a whole core was idle", r.ran_on);
}

/* idle: a SCHED_IDLE hog on H's second CPU, where the wakee slept; Y idle
 * with its bits set.  The wakee must wake on H's second CPU, as stock;
 * judged when it did not although that CPU ran nothing else. */
static void
rule_idle(int round)
{
	const struct mask_state m = { .set = { C(CORE_Y, 0) }, .nset = 1 };
	cpu_set_t allowed = set_of(3, C(CORE_H, 1), C(CORE_Y, 0), C(CORE_Y, 1));
	cpu_set_t x = set_of(1, C(CORE_H, 1));
	struct round r;

	if (!round)
		hog(C(CORE_H, 1), 1);
	r = wake_round(C(CORE_H, 1), &allowed, &m);
	if (!r.asleep_where_set)
		return;
	if (r.ran_on == C(CORE_H, 1))
		judged++;
	else if (quiet(&r.c0, &r.c1, &x))
		judge(0, "a CPU that runs only SCHED_IDLE tasks was passed "
		      "over", C(CORE_H, 1));
}

/* flag: hogs on H's and Z's first CPUs; Z's bits set (stale), Y idle but
 * not in the mask, has_idle_cores 1.  The wakee slept on H's second CPU and
 * may run on H's second CPU or on Z: the walk finds Z busy and nothing
 * else.  Judged when no CPU but the main thread's and the wakee's moved:
 * has_idle_cores must still be 1, since Y is idle. */
static void
rule_flag(int round)
{
	const struct mask_state m = { .set = { C(CORE_Z, 0) }, .nset = 1,
				      .flag = 1 };
	cpu_set_t allowed = set_of(3, C(CORE_H, 1), C(CORE_Z, 0), C(CORE_Z, 1));
	cpu_set_t others;
	struct round r;
	int cpu;

	if (!round) {
		hog(C(CORE_H, 0), 0);
		hog(C(CORE_Z, 0), 0);
	}
	r = wake_round(C(CORE_H, 1), &allowed, &m);
	if (!r.asleep_where_set)
		return;
	CPU_ZERO(&others);
	for (cpu = 0; cpu < ncpus; cpu++)
		if (cpu != C(CORE_MAIN, 0) && cpu != r.ran_on)
			CPU_SET(cpu, &others);
	if (quiet(&r.c0, &r.c1, &others) && r.h.nr_idle_scan > 0)
		judge(r.h.has_idle_cores == 1,
		      "a walk that found no idle core cleared has_idle_cores "
		      "while a core was idle", C(CORE_Y, 0));
}

/* budget: hogs on H's and Z's first CPUs; Z's bits set (stale) and Y's,
 * both cores allowed.  The wakee slept on H's second CPU, beside its hog:
 * kept aside, then the walk from it meets Z first (its first CPU busy:
 * one probe, the core dropped) and Y next (two probes).  nr_idle_scan 2
 * must stop before Y is claimed, 3 must claim it.  Judged when Y kept
 * still (but for the wakee, where it ran there) and the budget the hook
 * set was still there after the wake-up (the LLC's periodic balance
 * rewrites it).  Each budget needs its own share of judged rounds: 3
 * shows that the scenario reaches Y at all. */
static void
rule_budget(int round)
{
	static int judged_at[2];
	const int scan = 2 + (round & 1);
	const struct mask_state m = { .set = { C(CORE_Z, 0), C(CORE_Y, 0) },
				      .nset = 2, .scan = scan };
	cpu_set_t allowed = set_of(5, C(CORE_H, 1), C(CORE_Z, 0), C(CORE_Z, 1),
				   C(CORE_Y, 0), C(CORE_Y, 1));
	cpu_set_t y = core_set(CORE_Y);
	struct round r;

	if (!round) {
		hog(C(CORE_H, 0), 0);
		hog(C(CORE_Z, 0), 0);
		judged_at[0] = judged_at[1] = 0;
	}
	r = wake_round(C(CORE_H, 1), &allowed, &m);
	CPU_CLR(r.ran_on, &y);
	if (r.asleep_where_set && r.h.nr_idle_scan == scan &&
	    quiet(&r.c0, &r.c1, &y)) {
		judged_at[scan - 2]++;
		if (scan == 2)
			judge(r.ran_on == C(CORE_H, 1) &&
			      core_in(&r.h.mask, CORE_Y),
			      "nr_idle_scan 2: the walk claimed the idle core "
			      "behind a stale one (the budget is spent per CPU "
			      "probed)", r.ran_on);
		else	/* its bits come back when the wakee sleeps there */
			judge(core_of[r.ran_on] == CORE_Y,
			      "nr_idle_scan 3: the idle core behind a stale one "
			      "was not claimed", r.ran_on);
	}
	if (round == BUDGET_ROUNDS - 1 &&
	    (judged_at[0] < MIN_JUDGED / 2 || judged_at[1] < MIN_JUDGED / 2))
		fail("budget: %d and %d rounds judged with nr_idle_scan 2 and "
		     "3, want %d each", judged_at[0], judged_at[1],
		     MIN_JUDGED / 2);
}

/*
 * busy: Y idle, its bits set by the hook, then a hog started on Y's first
 * CPU.  Once the hog runs there, Y must have lost its bits: that CPU left
 * idle.  Nothing else takes them here: the hog reaches Y by its own
 * affinity change, not through select_idle_sibling(), and no other task
 * may run on Y.  Judged when Y kept still from the set to the hog's start,
 * so that the bits were there to lose.
 */
static void
rule_busy(int round)
{
	cpu_set_t y = core_set(CORE_Y);
	int cpu = C(CORE_Y, 0);
	struct counts c0, c1;
	pthread_t th;
	struct hook h;

	(void)round;
	c0 = sched_counts();
	hook_write("clear", 0);
	hook_write("set %d", cpu);
	h = hook_read();
	c1 = sched_counts();
	atomic_store(&spinner_cpu, -1);
	atomic_store(&spinner_stop, 0);
	if (pthread_create(&th, NULL, spinner_main, &cpu))
		fail("pthread_create");
	while (atomic_load(&spinner_cpu) != cpu)
		sleep_ms(1);
	if (core_in(&h.mask, CORE_Y) && quiet(&c0, &c1, &y)) {
		h = hook_read();
		judge(!CPU_ISSET(C(CORE_Y, 0), &h.mask) &&
		      !CPU_ISSET(C(CORE_Y, 1), &h.mask),
		      "a core kept its bits while one of its CPUs ran a task",
		      cpu);
	}
	atomic_store(&spinner_stop, 1);
	pthread_join(th, NULL);
}

/*
 * claim: Y idle, its bits set; two claims of Y through the hook.  The
 * first must take the core (true, and the bits gone), the second must
 * fail.  Judged when Y kept still from the set to the last claim (an idle
 * entry there could set the bits again).  This tests what a claim leaves
 * behind, as two wake-ups one after the other would see it; that two
 * claims on two CPUs at once cannot both win rests on the claim being one
 * atomic test-and-clear of one bit, which single-threaded TCG cannot race.
 */
static void
rule_claim(int round)
{
	cpu_set_t y = core_set(CORE_Y);
	int first, second;
	struct counts c0, c1;
	struct hook h;

	(void)round;
	c0 = sched_counts();
	hook_write("clear", 0);
	hook_write("set %d", C(CORE_Y, 0));
	first = hook_claim(C(CORE_Y, 1));
	h = hook_read();
	second = hook_claim(C(CORE_Y, 0));
	c1 = sched_counts();
	if (!quiet(&c0, &c1, &y))
		return;
	if (!first)
		judge(0, "a claim of a whole idle core in the mask failed",
		      C(CORE_Y, 1));
	else if (CPU_ISSET(C(CORE_Y, 0), &h.mask) ||
		 CPU_ISSET(C(CORE_Y, 1), &h.mask))
		judge(0, "a claimed core kept its bits", C(CORE_Y, 0));
	else
		judge(!second, "a core was claimed twice", C(CORE_Y, 0));
}

/*
 * cluster: the LLC holds two clusters, cores MAIN and H in one, Z and Y in
 * the other.  A hog on Y's first CPU; the wakee slept on Y's second, may
 * run there or on H or Z; H and Z idle with their bits set.  The walk
 * starts after the target, Y's second CPU, the last of the LLC, so in CPU
 * order H comes first; in the target's cluster first, Z does.  The wakee
 * must run on Z.  Judged when H and Z kept still but for the wakee, so
 * that both were there to take, and the wakee left Y: with a budget under
 * 2 (the hook sets 8, the LLC's balance may have rewritten it) no core is
 * claimed, whichever the order.
 */
static void
rule_cluster(int round)
{
	const struct mask_state m = { .set = { C(CORE_H, 0), C(CORE_Z, 0) },
				      .nset = 2, .scan = 8 };
	cpu_set_t allowed = set_of(5, C(CORE_Y, 1), C(CORE_H, 0), C(CORE_H, 1),
				   C(CORE_Z, 0), C(CORE_Z, 1));
	cpu_set_t hz = set_of(4, C(CORE_H, 0), C(CORE_H, 1),
			      C(CORE_Z, 0), C(CORE_Z, 1));
	struct round r;

	if (!round)
		hog(C(CORE_Y, 0), 0);
	r = wake_round(C(CORE_Y, 1), &allowed, &m);
	CPU_CLR(r.ran_on, &hz);
	/* on Y: the budget, rewritten since, was too small to claim a core */
	if (!r.asleep_where_set || r.ran_on == C(CORE_Y, 1) ||
	    !quiet(&r.c0, &r.c1, &hz))
		return;
	judge(core_of[r.ran_on] == CORE_Z,
	      "the walk did not take the idle core of the target's cluster "
	      "first", r.ran_on);
}

/* The cluster of each CPU, as the first CPU of its cluster_cpus_list. */
static int
cluster_of(int cpu)
{
	char path[96], buf[64];
	int first;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/cpu/cpu%d/topology/cluster_cpus_list",
		 cpu);
	read_file(path, buf, sizeof(buf));
	if (sscanf(buf, "%d", &first) != 1)
		fail("cluster: %s: %s", path, buf);
	return first;
}

static void
check_clusters(void)
{
	int a = cluster_of(C(CORE_MAIN, 0)), b = cluster_of(C(CORE_Z, 0));

	if (cluster_of(C(CORE_H, 0)) != a || cluster_of(C(CORE_Y, 0)) != b ||
	    a == b)
		fail("cluster: want cores 0-1 and 2-3 in two clusters of one "
		     "LLC (QEMU -smp ...,modules=2 with L2 per module)");
	printf("sis_rules: clusters from CPU %d and CPU %d\n", a, b);
}

/*
 * span: CPU @iso is outside every domain (isolcpus=domain,@iso), its
 * sibling is in the LLC.  The sibling runs the wakee, which then sleeps:
 * the core turns whole idle.  The mask must never hold @iso, and holds the
 * sibling when the core kept still since.
 */
static int span_iso = -1;

static void
rule_span(int round)
{
	int sib = sibling_of(span_iso);
	cpu_set_t core = set_of(2, span_iso, sib);
	struct counts c0, c1;
	struct hook h;

	(void)round;
	/* the wakee runs on @sib, then sleeps there */
	wk.prepare = 1;
	wk.sleep_cpu = sib;
	wk.allowed = set_of(1, sib);
	wakee_turn();
	if (wakee_asleep() != sib)
		fail("span: the wakee did not sleep on CPU %d", sib);
	sleep_ms(SETTLE_MS);
	c0 = sched_counts();
	sleep_ms(SETTLE_MS);
	h = hook_read();
	c1 = sched_counts();
	if (CPU_ISSET(span_iso, &h.mask))
		judge(0, "the mask holds a CPU outside the LLC domain",
		      span_iso);
	if (quiet(&c0, &c1, &core))
		judge(CPU_ISSET(sib, &h.mask),
		      "a whole idle core split by the domain span is missing",
		      sib);
}

static void
run_rule(const char *name, void (*fn)(int), int rounds)
{
	int i;

	rule = name;
	judged = misplaced = 0;
	memset(moved, 0, sizeof(moved));
	for (i = 0; i < rounds; i++)
		fn(i);
	hogs_end();
	printf("sis_rules: RESULT %s rounds=%d judged=%d misplaced=%d moved:",
	       name, rounds, judged, misplaced);
	for (i = 0; i < ncpus; i++)
		printf(" %d", moved[i]);
	printf("\n");
	fflush(stdout);
	if (judged < MIN_JUDGED)
		fail("%s: %d of %d rounds judged, want %d", name, judged,
		     rounds, MIN_JUDGED);
}

static void
find_isolated(void)
{
	struct hook h = hook_read();
	int cpu;

	for (cpu = 0; cpu < ncpus; cpu++)
		if (!CPU_ISSET(cpu, &h.span))
			span_iso = cpu;
	if (span_iso < 0 || CPU_ISSET(sibling_of(span_iso), &h.span) == 0 ||
	    core_of[span_iso] == CORE_MAIN || core_of[span_iso] == CORE_H)
		fail("span: want one CPU of core 2 or 3 outside CPU 0's LLC "
		     "domain (isolcpus=domain,N)");
}

int
main(int argc, char **argv)
{
	static const struct {
		const char *name;
		void (*fn)(int);
		int rounds;
	} rules[] = {
		{ "allowed", rule_allowed, ROUNDS },
		{ "walk", rule_walk, ROUNDS },
		{ "probe", rule_probe, ROUNDS },
		{ "idle", rule_idle, ROUNDS },
		{ "flag", rule_flag, ROUNDS },
		{ "budget", rule_budget, BUDGET_ROUNDS },
		{ "busy", rule_busy, ROUNDS },
		{ "claim", rule_claim, ROUNDS },
	};
	const char *which = argc > 1 ? argv[1] : "";
	pthread_t wakee;
	unsigned int i;
	int ran = 0;

	test_name = "sis_rules";
	rule = "setup";
	setvbuf(stdout, NULL, _IOLBF, 0);
	read_topology();
	if (ncores < 4)
		fail("setup: %d cores, want 4", ncores);
	write_file("/proc/sys/kernel/sched_schedstats", "1");
	set_sis_core(1);
	pin_self(NULL, C(CORE_MAIN, 0));
	printf("sis_rules: %d tasks, the IRQs and the unbound workqueues "
	       "kept on CPU %d\n", strays_to(C(CORE_MAIN, 0)),
	       C(CORE_MAIN, 0));
	atexit(strays_back);	/* fail() too: the next test runs unbound */
	hog(C(CORE_MAIN, 1), 0);
	if (pthread_create(&wakee, NULL, wakee_main, NULL))
		fail("pthread_create");
	while (!atomic_load(&wk.tid))
		sleep_ms(1);

	if (!strcmp(which, "span")) {
		find_isolated();
		run_rule("span", rule_span, ROUNDS);
	} else if (!strcmp(which, "cluster")) {
		check_clusters();
		run_rule("cluster", rule_cluster, ROUNDS);
	} else {
		for (i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
			if (*which && strcmp(which, rules[i].name))
				continue;
			run_rule(rules[i].name, rules[i].fn, rules[i].rounds);
			hog(C(CORE_MAIN, 1), 0);
			ran++;
		}
		if (!ran)
			fail("setup: no rule %s", which);
	}
	atomic_store(&wk.stop, 1);
	pass_turn(&wk.turn, 1);
	pthread_join(wakee, NULL);
	hogs_end();
	set_sis_core(0);
	printf("sis_rules: PASS\n");
	return 0;
}
