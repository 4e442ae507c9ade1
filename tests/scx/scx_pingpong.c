/*
 * scx_pingpong.c - where do vCPU-like wake-ups land, under CFS and under
 * the vcpuplace scheduler, in the same boot?  (Run by tests/scx/boot.sh
 * inside the QEMU guest.)
 *
 * Pairs of threads play futex ping-pong: the one woken works about 1 ms,
 * wakes its partner, and keeps working about 100 us before it sleeps, so
 * the partner cannot simply take the waker's core.  H unpinned CPU hogs
 * run beside them (H = 0, 2, 3).  At every wake-up the wakee reads, from
 * /proc, where every other test thread is runnable now (state R and the
 * CPU it is on: the kernel's own view, not one the threads keep
 * themselves, which goes stale whenever a thread is moved while it does
 * not run), and judges where it landed:
 *   busy sibling while an idle core existed: a sibling of its CPU had a
 *     test thread, and some core had none on any of its PUs;
 *   idle core: no sibling of its CPU had one.
 * The same code measures both schedulers; the first WARM_MS of each run
 * are not counted.  Under vcpuplace the pairs are managed vCPUs: each pair
 * is a VM of two vCPUs, homed by the placement core's planner on the
 * guest's own topology, and fed to the scheduler as the daemon feeds it
 * (scx/scxfeed.c).  The scheduler's own per-vCPU counters give the
 * decision-time share (a busy sibling chosen while the idle-core mask
 * showed a whole idle core) and the share woken on their home.
 *
 * It also runs the partial-switch variant at H = 2 and a starvation check
 * (a CPU hog and a vCPU pinned to one PU, full and partial switch).
 *
 * Arguments (all optional): RUN_MS ROUNDS FEATURES (enum vp_scx_feature
 * bits for the vcpuplace runs, for ablations).
 *
 * The last line:
 *   scx_busy_sibling_pct=x cfs_busy_sibling_pct=y scx_idle_core_pct=a
 *   cfs_idle_core_pct=b decision_busy_sibling_pct=d home_pct=h
 *   ejections_unexpected=n
 * at H = 2, and before it "scx_pingpong: PASS" or "scx_pingpong: FAIL ...".
 * Targets: d < 1, x <= y / 2, a > b, n = 0.
 */
#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <pthread.h>
#include <sched.h>
#include <stdarg.h>
#include <stdatomic.h>
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

#define MAX_CPUS	64
#define MAX_PAIRS	16
#define MAX_HOGS	8
#define WORK_NS		1000000ULL	/* the wakee's work */
#define TAIL_NS		100000ULL	/* the waker's work after the wake */

static unsigned int run_ms = 2500, warm_ms = 500;
static int rounds = 3;
/* the rule switches of the vcpuplace runs: the defaults, or an ablation */
static uint32_t features = VP_SCX_FEAT_DEFAULT;

static struct vp_topo *topo;
static int ncpu;
static int core_of[MAX_CPUS];		/* dense core index of each OS CPU */

static atomic_int stop, counting;

/*
 * Every test thread's /proc/self/task/TID/stat, opened once per run and
 * re-read with pread(): procfs makes the text afresh at offset 0.
 */
#define MAX_THREADS (2 * MAX_PAIRS + MAX_HOGS)
static int watch_fd[MAX_THREADS], watch_tid[MAX_THREADS], nwatch;

static void
watch(int tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", tid);
	watch_fd[nwatch] = open(path, O_RDONLY | O_CLOEXEC);
	if (watch_fd[nwatch] < 0)
		fail("%s: %s", path, strerror(errno));
	watch_tid[nwatch++] = tid;
}

static void
unwatch_all(void)
{
	while (nwatch > 0)
		close(watch_fd[--nwatch]);
}

/*
 * The CPU watched thread @i is runnable on, or -1 when it sleeps: field
 * 3 (state) and field 39 (processor) of its stat; the name (field 2) may
 * hold spaces, so fields are counted after its closing parenthesis.
 */
static int
runnable_on(int i)
{
	char buf[512], *p, *save = NULL, *tok;
	ssize_t n = pread(watch_fd[i], buf, sizeof(buf) - 1, 0);
	int field;

	if (n <= 0)
		return -1;
	buf[n] = '\0';
	p = strrchr(buf, ')');
	if (!p || p[1] != ' ' || p[2] != 'R')
		return -1;
	for (field = 3, tok = strtok_r(p + 2, " ", &save); tok;
	    field++, tok = strtok_r(NULL, " ", &save))
		if (field == 39)
			return atoi(tok);
	return -1;
}

struct tally {
	atomic_ulong wakes, busy_sib_idle_core, idle_core;
};

struct pair {
	atomic_int turn;	/* the futex word: whose turn it is, 0 or 1 */
	int tid[2];
	struct tally *tally;
};

struct hog {
	pthread_t thread;
};

static int
cur_cpu(void)
{
	int c = sched_getcpu();

	return c >= 0 && c < ncpu ? c : 0;
}

/* Spins for @ns: work, as far as the scheduler can tell. */
static void
work(uint64_t ns)
{
	uint64_t t0 = now_ns();

	while (now_ns() - t0 < ns)
		;
}

/* The wakee @self, just landed on @cpu: what does it see? */
static void
judge(struct tally *tl, int self, int cpu)
{
	const struct vp_core *c = &topo->core[core_of[cpu]];
	bool busy[MAX_CPUS] = { false }, sib_busy = false, idle_core = false;
	int i, k, pu, on;

	for (i = 0; i < nwatch; i++)
		if (watch_tid[i] != self && (on = runnable_on(i)) >= 0 &&
		    on < ncpu)
			busy[on] = true;
	for (pu = c->first_pu; pu < c->first_pu + c->npus; pu++) {
		int os = (int)topo->pu[pu].os_index;

		if (os != cpu && busy[os])
			sib_busy = true;
	}
	for (k = 0; k < topo->ncores && !idle_core; k++) {
		const struct vp_core *o = &topo->core[k];
		bool all_free = k != core_of[cpu];

		for (pu = o->first_pu; pu < o->first_pu + o->npus; pu++)
			if (busy[topo->pu[pu].os_index])
				all_free = false;
		idle_core = all_free;
	}
	atomic_fetch_add(&tl->wakes, 1);
	if (!sib_busy)
		atomic_fetch_add(&tl->idle_core, 1);
	else if (idle_core)
		atomic_fetch_add(&tl->busy_sib_idle_core, 1);
}

static long
futex(atomic_int *uaddr, int op, int val)
{
	return syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

struct player {
	pthread_t thread;
	struct pair *pair;
	int role;
};

static void *
player_main(void *arg)
{
	struct player *pl = arg;
	struct pair *p = pl->pair;
	int me = pl->role;

	p->tid[me] = (int)syscall(SYS_gettid);
	for (;;) {
		while (atomic_load(&p->turn) != me && !atomic_load(&stop))
			futex(&p->turn, FUTEX_WAIT_PRIVATE, 1 - me);
		if (atomic_load(&stop))
			break;
		if (atomic_load(&counting))
			judge(p->tally, p->tid[me], cur_cpu());
		work(WORK_NS);
		atomic_store(&p->turn, 1 - me);
		futex(&p->turn, FUTEX_WAKE_PRIVATE, 1);
		work(TAIL_NS);
	}
	/* the partner may be waiting for a turn that never comes */
	atomic_store(&p->turn, 1 - me);
	futex(&p->turn, FUTEX_WAKE_PRIVATE, 1);
	return NULL;
}

/* Each hog's tid, for /proc. */
static atomic_int hog_tid[MAX_HOGS];

static void *
hog_main(void *arg)
{
	atomic_int *tid = arg;

	atomic_store(tid, (int)syscall(SYS_gettid));
	while (!atomic_load(&stop))
		;
	return NULL;
}

enum sched_kind { SCHED_CFS, SCHED_SCX, SCHED_SCX_PARTIAL };
static const char *const sched_names[] = { "cfs", "scx", "scx-partial" };

/* Counts of one run, or of several added up. */
struct result {
	unsigned long wakes, busy_sib, idle_core;	/* measured in user space */
	unsigned long decisions, decision_busy_sib, home;	/* the scheduler's */
};

static void
result_add(struct result *sum, const struct result *r)
{
	sum->wakes += r->wakes;
	sum->busy_sib += r->busy_sib;
	sum->idle_core += r->idle_core;
	sum->decisions += r->decisions;
	sum->decision_busy_sib += r->decision_busy_sib;
	sum->home += r->home;
}

static int npairs;
static int ejections_unexpected;

/*
 * Homes from the placement core: each pair a VM of two vCPUs, planned
 * around the PUs busy with host work (@nhogs hogs), as the daemon plans
 * around what its load sampler saw busy outside the VMs.
 */
static void
plan_homes(int homes[][2], struct vp_cpuset allowed[][2], int nhogs)
{
	struct vp_cpuset busy;
	int i;

	cpuset_zero(&busy);
	/* the hogs are watched after the pairs */
	for (i = 2 * npairs; i < 2 * npairs + nhogs && i < nwatch; i++) {
		int os = runnable_on(i), pu;

		pu = os >= 0 ? topo_pu_of_os(topo, (unsigned int)os) : VP_PU_NONE;
		if (pu != VP_PU_NONE)
			cpuset_set(&busy, pu);
	}
	plan_vms(topo, npairs, 2, &busy, &homes[0][0], &allowed[0][0]);
}

/*
 * The plan's allowed set as the thread's affinity: what the daemon does
 * through libvirt (virDomainPinVcpuFlags), and the set the scheduler
 * takes as the vCPU's allowed set (p->cpus_ptr).
 */
static void
pin_thread(int tid, const struct vp_cpuset *allowed)
{
	cpu_set_t set;
	int pu;

	CPU_ZERO(&set);
	for (pu = 0; pu < topo->npus; pu++)
		if (cpuset_test(allowed, pu))
			CPU_SET(topo->pu[pu].os_index, &set);
	if (sched_setaffinity(tid, sizeof(set), &set))
		fail("sched_setaffinity(%d): %s", tid, strerror(errno));
}

/* Registers the pairs' threads as managed vCPUs, as the daemon would. */
static void
feed_pairs(struct scx_sched *s, struct pair *pairs, int homes[][2],
    struct vp_cpuset allowed[][2])
{
	struct vp_policy pol;
	struct vp_scx_vcpu e;
	int i, r, err;

	policy_default(&pol);
	for (i = 0; i < npairs; i++)
		for (r = 0; r < 2; r++) {
			const struct scxfeed_vcpu_in in = {
				.policy = &pol, .nvcpus = 2,
				.home = homes[i][r], .anchor = VP_PU_NONE,
				.vm = i, .vcpu = r,
			};

			scxfeed_vcpu(topo, &in, &e);
			pin_thread(pairs[i].tid[r], &allowed[i][r]);
			err = scx_vcpu_set(s, pairs[i].tid[r], &e);
			if (!err)
				err = set_ext(pairs[i].tid[r], true);
			if (err)
				fail("registering tid %d: %s",
				    pairs[i].tid[r], strerror(-err));
		}
}

static void
vstats_sum(struct scx_sched *s, struct pair *pairs,
    struct vp_scx_vcpu_stats *ret)
{
	struct vp_scx_vcpu_stats one;
	int i, r, k;

	memset(ret, 0, sizeof(*ret));
	for (i = 0; i < npairs; i++)
		for (r = 0; r < 2; r++) {
			if (scx_vcpu_stats_read(s, pairs[i].tid[r], &one))
				fail("reading the counters of tid %d",
				    pairs[i].tid[r]);
			for (k = 0; k < VP_SCX_VSTAT_NR; k++)
				ret->n[k] += one.n[k];
		}
}

static double
pct(unsigned long part, unsigned long whole)
{
	return whole ? 100.0 * (double)part / (double)whole : 0.0;
}

static bool
target(const char *what, bool met)
{
	if (!met)
		printf("scx_pingpong: target missed: %s\n", what);
	return met;
}

/* Fails unless the scheduler is still loaded (no ejection mid-run). */
static void
check_alive(struct scx_sched *s, const char *when)
{
	struct scx_exit ex;

	if (s && scx_exited(s) && scx_exit_read(s, &ex) == 0) {
		ejections_unexpected++;
		fail("ejected %s: kind %d, %s (%s)", when, ex.kind, ex.reason,
		    ex.msg);
	}
}

static void
result_print(const char *what, enum sched_kind kind, int nhogs,
    const struct result *r)
{
	printf("scx_pingpong: %s sched=%s hogs=%d wakes=%lu "
	    "busy_sibling_pct=%.1f idle_core_pct=%.1f", what,
	    sched_names[kind], nhogs, r->wakes, pct(r->busy_sib, r->wakes),
	    pct(r->idle_core, r->wakes));
	if (r->decisions)
		printf(" decision_busy_sibling_pct=%.2f home_pct=%.1f",
		    pct(r->decision_busy_sib, r->decisions),
		    pct(r->home, r->decisions));
	printf("\n");
}

#define DELTA(k) ((unsigned long long)(v1.n[k] - v0.n[k]))

static struct result
run(enum sched_kind kind, int nhogs)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	struct pair pairs[MAX_PAIRS];
	struct player players[MAX_PAIRS][2];
	struct hog hogs[MAX_HOGS];
	struct tally tl = { 0 };
	struct vp_scx_vcpu_stats v0, v1;
	int homes[MAX_PAIRS][2];
	static struct vp_cpuset allowed[MAX_PAIRS][2];
	struct result res = { 0 };
	int i, r, err;

	memset(pairs, 0, sizeof(pairs));
	atomic_store(&stop, 0);
	atomic_store(&counting, 0);
	if (kind != SCHED_CFS) {
		err = scx_load(&s, kind == SCHED_SCX_PARTIAL ?
		    SCX_LOAD_PARTIAL : 0);
		if (err)
			fail("scx_load: %s", strerror(-err));
		err = scxfeed_topology(s, topo, 0, NULL);
		if (err)
			fail("scxfeed_topology: %s", strerror(-err));
		scx_features_set(s, features);
		plan_homes(homes, allowed, 0);
	}
	for (i = 0; i < npairs; i++) {
		pairs[i].tally = &tl;
		atomic_store(&pairs[i].turn, 2);	/* nobody yet */
		for (r = 0; r < 2; r++) {
			players[i][r].pair = &pairs[i];
			players[i][r].role = r;
			if (pthread_create(&players[i][r].thread, NULL,
			    player_main, &players[i][r]))
				fail("pthread_create");
		}
	}
	for (i = 0; i < npairs; i++)
		while (!pairs[i].tid[0] || !pairs[i].tid[1])
			sleep_ms(1);
	if (s)
		feed_pairs(s, pairs, homes, allowed);
	for (i = 0; i < nhogs; i++)
		atomic_store(&hog_tid[i], 0);
	for (i = 0; i < nhogs; i++)
		if (pthread_create(&hogs[i].thread, NULL, hog_main, &hog_tid[i]))
			fail("pthread_create");
	for (i = 0; i < npairs; i++) {
		watch(pairs[i].tid[0]);
		watch(pairs[i].tid[1]);
	}
	for (i = 0; i < nhogs; i++) {
		while (!atomic_load(&hog_tid[i]))
			sleep_ms(1);
		watch(atomic_load(&hog_tid[i]));
	}
	for (i = 0; i < npairs; i++) {
		atomic_store(&pairs[i].turn, 0);
		futex(&pairs[i].turn, FUTEX_WAKE_PRIVATE, 2);
	}
	sleep_ms(warm_ms / 2);
	/* the daemon's next tick: a plan that knows where the hogs run */
	if (s) {
		plan_homes(homes, allowed, nhogs);
		feed_pairs(s, pairs, homes, allowed);
	}
	sleep_ms(warm_ms / 2);
	if (s)
		vstats_sum(s, pairs, &v0);
	atomic_store(&counting, 1);
	sleep_ms(run_ms);
	atomic_store(&counting, 0);
	if (s)
		vstats_sum(s, pairs, &v1);
	check_alive(s, "during the run");
	atomic_store(&stop, 1);
	for (i = 0; i < npairs; i++) {
		atomic_store(&pairs[i].turn, 0);
		futex(&pairs[i].turn, FUTEX_WAKE_PRIVATE, 2);
	}
	for (i = 0; i < npairs; i++)
		for (r = 0; r < 2; r++)
			pthread_join(players[i][r].thread, NULL);
	for (i = 0; i < nhogs; i++)
		pthread_join(hogs[i].thread, NULL);
	unwatch_all();
	res.wakes = atomic_load(&tl.wakes);
	res.busy_sib = atomic_load(&tl.busy_sib_idle_core);
	res.idle_core = atomic_load(&tl.idle_core);
	if (s) {
		res.decisions = v1.n[VP_SCX_V_WAKEUP] - v0.n[VP_SCX_V_WAKEUP];
		res.decision_busy_sib = v1.n[VP_SCX_V_SMT_BUSY_IDLE_CORE] -
		    v0.n[VP_SCX_V_SMT_BUSY_IDLE_CORE];
		res.home = v1.n[VP_SCX_V_HOME] - v0.n[VP_SCX_V_HOME];
		printf("scx_pingpong: %s hogs=%d decisions=%lu home=%llu "
		    "idle_core=%llu idle_sibling=%llu prev=%llu queued=%llu "
		    "smt_busy=%llu smt_busy_idle_core=%llu probes=%llu\n",
		    sched_names[kind], nhogs, res.decisions,
		    DELTA(VP_SCX_V_HOME), DELTA(VP_SCX_V_IDLE_CORE),
		    DELTA(VP_SCX_V_IDLE_SIBLING), DELTA(VP_SCX_V_PREV),
		    DELTA(VP_SCX_V_QUEUED), DELTA(VP_SCX_V_SMT_BUSY),
		    DELTA(VP_SCX_V_SMT_BUSY_IDLE_CORE), DELTA(VP_SCX_V_PROBES));
		scx_detach(s);
	}
	result_print("run", kind, nhogs, &res);
	if (res.wakes < 50)
		fail("only %lu wake-ups counted in %u ms", res.wakes, run_ms);
	return res;
}

/*
 * Starvation: a CPU hog (CFS, or plain SCHED_NORMAL under a full switch)
 * and a managed vCPU, both pinned to one PU, both always runnable.
 * Returns the vCPU's share of that PU over RUN, in percent.
 */
static void *
spin_main(void *arg)
{
	int *tid = arg;

	*tid = (int)syscall(SYS_gettid);
	while (!atomic_load(&stop))
		;
	return NULL;
}

static double
starve_share(enum sched_kind kind)
{
	_cleanup_scx_ struct scx_sched *s = NULL;
	pthread_t th[2];
	int tid[2] = { 0, 0 }, i, err;
	struct timespec a, b;
	clockid_t clk;
	cpu_set_t one;
	double share;
	uint64_t t0;

	atomic_store(&stop, 0);
	if (kind != SCHED_CFS) {
		err = scx_load(&s, kind == SCHED_SCX_PARTIAL ?
		    SCX_LOAD_PARTIAL : 0);
		if (err)
			fail("scx_load: %s", strerror(-err));
	}
	CPU_ZERO(&one);
	CPU_SET(ncpu - 1, &one);
	for (i = 0; i < 2; i++) {
		if (pthread_create(&th[i], NULL, spin_main, &tid[i]))
			fail("pthread_create");
		while (!tid[i])
			sleep_ms(1);
		if (sched_setaffinity(tid[i], sizeof(one), &one))
			fail("sched_setaffinity: %s", strerror(errno));
	}
	/* th[0] is the vCPU: SCHED_EXT; th[1] the host hog: SCHED_NORMAL */
	err = set_ext(tid[0], true);
	if (err && kind != SCHED_CFS)
		fail("SCHED_EXT: %s", strerror(-err));
	if (pthread_getcpuclockid(th[0], &clk))
		fail("pthread_getcpuclockid");
	sleep_ms(200);
	clock_gettime(clk, &a);
	t0 = now_ns();
	sleep_ms(2000);
	clock_gettime(clk, &b);
	share = 100.0 * ((double)(b.tv_sec - a.tv_sec) * 1e9 +
	    (double)(b.tv_nsec - a.tv_nsec)) / (double)(now_ns() - t0);
	check_alive(s, "during the starvation check");
	atomic_store(&stop, 1);
	for (i = 0; i < 2; i++)
		pthread_join(th[i], NULL);
	printf("scx_pingpong: STARVE sched=%s vcpu_share_pct=%.1f\n",
	    sched_names[kind], share);
	return share;
}

int
main(int argc, char **argv)
{
	static const int hogs_list[] = { 0, 2, 3 };
	struct result cfs[3], scx[3], one;
	double full_share;
	bool ok = true;
	int i, k, err;

	setvbuf(stdout, NULL, _IOLBF, 0);
	test_name = "scx_pingpong";
	if (argc > 1)
		run_ms = (unsigned int)atoi(argv[1]);
	if (argc > 2)
		rounds = atoi(argv[2]);
	if (argc > 3)
		features = (uint32_t)strtoul(argv[3], NULL, 0);
	err = guest_topo_load(&topo);
	if (err)
		fail("guest topology: %s", strerror(-err));
	ncpu = topo->npus;
	if (ncpu > MAX_CPUS)
		fail("%d CPUs, more than %d", ncpu, MAX_CPUS);
	for (i = 0; i < topo->npus; i++)
		core_of[topo->pu[i].os_index] = topo->pu[i].core;
	/* half the cores in pairs: 2 pairs on 4 cores x 2 threads */
	npairs = topo->ncores / 2 > 0 ? topo->ncores / 2 : 1;
	if (npairs > MAX_PAIRS)
		npairs = MAX_PAIRS;
	printf("scx_pingpong: %d CPUs, %d cores, %d pairs, %d rounds of %u ms "
	    "per run after %u ms of warm-up, features %#x\n", ncpu,
	    topo->ncores, npairs, rounds, run_ms, warm_ms, features);
	/*
	 * Rounds, CFS and vcpuplace interleaved, so a drift in the guest's
	 * speed hits both alike; each round starts its hogs afresh, so one
	 * lucky or unlucky first placement of the hogs does not decide.
	 */
	memset(cfs, 0, sizeof(cfs));
	memset(scx, 0, sizeof(scx));
	for (i = 0; i < 3; i++) {
		for (k = 0; k < rounds; k++) {
			one = run(SCHED_CFS, hogs_list[i]);
			result_add(&cfs[i], &one);
			one = run(SCHED_SCX, hogs_list[i]);
			result_add(&scx[i], &one);
		}
		result_print("RESULT", SCHED_CFS, hogs_list[i], &cfs[i]);
		result_print("RESULT", SCHED_SCX, hogs_list[i], &scx[i]);
	}
	one = run(SCHED_SCX_PARTIAL, 2);
	result_print("RESULT", SCHED_SCX_PARTIAL, 2, &one);
	(void)starve_share(SCHED_CFS);
	full_share = starve_share(SCHED_SCX);
	(void)starve_share(SCHED_SCX_PARTIAL);

	/* the verdict, at H = 2 (index 1) */
	ok = target("decision_busy_sibling_pct < 1",
	    pct(scx[1].decision_busy_sib, scx[1].decisions) < 1.0) && ok;
	ok = target("scx_busy_sibling_pct <= cfs_busy_sibling_pct / 2",
	    pct(scx[1].busy_sib, scx[1].wakes) <=
	    pct(cfs[1].busy_sib, cfs[1].wakes) / 2) && ok;
	ok = target("scx_idle_core_pct > cfs_idle_core_pct",
	    pct(scx[1].idle_core, scx[1].wakes) >
	    pct(cfs[1].idle_core, cfs[1].wakes)) && ok;
	/* full switch: the hog and the vCPU share the PU fairly */
	ok = target("a vCPU pinned with a hog gets >= 25 % of its PU",
	    full_share >= 25.0) && ok;
	printf("scx_pingpong: %s\n", ok ? "PASS" : "FAIL targets missed");
	printf("scx_busy_sibling_pct=%.1f cfs_busy_sibling_pct=%.1f "
	    "scx_idle_core_pct=%.1f cfs_idle_core_pct=%.1f "
	    "decision_busy_sibling_pct=%.2f home_pct=%.1f "
	    "ejections_unexpected=%d\n", pct(scx[1].busy_sib, scx[1].wakes),
	    pct(cfs[1].busy_sib, cfs[1].wakes),
	    pct(scx[1].idle_core, scx[1].wakes),
	    pct(cfs[1].idle_core, cfs[1].wakes),
	    pct(scx[1].decision_busy_sib, scx[1].decisions),
	    pct(scx[1].home, scx[1].decisions), ejections_unexpected);
	topo_free(topo);
	return ok ? 0 : 1;
}
