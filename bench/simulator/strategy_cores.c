/*
 * strategy_cores.c - daemon-cores: what the daemon could do in userspace
 * on a stock kernel with affinity alone.  The planner's allowed sets
 * (plan.c, as for "daemon") are each vCPU's pool; at every tick
 * coregrant_plan() of the placement core gives each busy vCPU a whole
 * core of its pool and the others the pool without the granted cores.
 * The stock wake path (stock.c) places every wake-up inside the sets.
 *
 * What the strategy sees is what the daemon can read, over the last
 * tick only: each thread's /proc/<tid>/schedstat (time on a CPU, time
 * runnable but waiting, times it got a CPU; host.c keeps them as the
 * kernel does) and the CPU it last ran on (/proc/<tid>/stat field 39).
 * The time on a CPU includes the slice in progress, as the kernel's
 * sum_exec_runtime does once update_curr() has run; a wait in progress
 * is not counted, as sched_info_arrive() adds run_delay only when the
 * task gets the CPU (Linux 6.12 kernel/sched/stats.h).
 *
 * A new allowed set takes effect at the thread's next wake-up.  The
 * kernel applies sched_setaffinity() at once (affine_move_task() moves
 * a running or queued task off a CPU that left its mask); waiting for
 * the wake-up is later by at most one burst, and keeps a thread inside
 * its allowed set at every instant (check.c).
 *
 * The tick: the daemon's --tick accepts 50..60000 ms (vcpuplaced's
 * main.c; below 50 ms its pins dominate).  Grants need fresh figures, so
 * this mode runs at the shortest, 50 ms: a standard run (60 ms warm-up,
 * 240 ms measured) then re-plans at 50, 100, ... 250 ms, four times
 * inside the window.
 */
#include <errno.h>
#include <stdlib.h>

#include "core/coregrant.h"
#include "sim.h"

#define CORES_TICK_NS	50000000ull
/*
 * Busy: the VM's vCPUs ran more than 75 % of one CPU over the tick.  The
 * wait rule (waited more than this per time it got a CPU) is off in
 * effect: 10 ms is three slices.  No public source for either; three
 * settings were tried on g4dnmetal and 128arm only (bench/notes/
 * cores.md): per vCPU 50 % / 100 us, per VM 50 % / 100 us, and this
 * one, which lost least on the dense mix.  Range worth a sweep: 50..90 %.
 */
#define CORES_BUSY_PCT	75
#define CORES_WAIT_NS	10000000ull
/*
 * Grants go to a VM (round(its demand) cores shared by its vCPUs) rather
 * than to each vCPU: a client/server pair then shares one core's two
 * PUs and its wake-ups stay on the core, where the lines are.
 */
#define CORES_BY_VM	true

struct cores_state {
	struct vp_cpuset *pool;		/* [nth] the planner's sets */
	struct vp_cpuset *next;		/* [nth] applied at the next wake */
	struct vp_grant_stat *st;	/* [nth] deltas of the last tick */
	uint64_t *run, *wait, *slices;	/* [nth] schedstat at last tick */
	int *core;			/* [nth] granted core, or -1 */
	int *vm;			/* [nth] its VM: grants go by VM */
	struct vp_grant_cfg cfg;
	uint64_t last_ns;
	bool by_vm;			/* grants to VMs, not to vCPUs */
	select_fn inner;
};

/* Applies a pending set at the wake-up, then the stock wake path. */
static int
cores_select(struct sim *s, int thi, int waker_pu, unsigned long *probes)
{
	struct cores_state *c = s->cores;

	s->allowed[s->th[thi].allowed] = c->next[thi];
	return c->inner(s, thi, waker_pu, probes);
}

void
cores_release(struct sim *s)
{
	struct cores_state *c = s->cores;

	if (!c)
		return;
	free(c->pool);
	free(c->next);
	free(c->st);
	free(c->run);
	free(c->wait);
	free(c->slices);
	free(c->core);
	free(c->vm);
	free(c);
	s->cores = NULL;
}

int
cores_setup(struct sim *s)
{
	struct cores_state *c = calloc(1, sizeof(*c));
	int n = s->nth, i;

	if (!c)
		return -ENOMEM;
	s->cores = c;
	c->pool = calloc(n, sizeof(*c->pool));
	c->next = calloc(n, sizeof(*c->next));
	c->st = calloc(n, sizeof(*c->st));
	c->run = calloc(n, sizeof(*c->run));
	c->wait = calloc(n, sizeof(*c->wait));
	c->slices = calloc(n, sizeof(*c->slices));
	c->core = calloc(n, sizeof(*c->core));
	c->vm = calloc(n, sizeof(*c->vm));
	if (!c->pool || !c->next || !c->st || !c->run || !c->wait ||
	    !c->slices || !c->core || !c->vm)
		return -ENOMEM;		/* run.c frees through cores_release */
	for (i = 0; i < n; i++) {
		c->pool[i] = c->next[i] = s->allowed[s->th[i].allowed];
		c->core[i] = -1;
		c->vm[i] = s->th[i].vm;
	}
	s->p.tick_ns = CORES_TICK_NS;
	c->cfg.tick_ns = CORES_TICK_NS;
	c->cfg.busy_pct = CORES_BUSY_PCT;
	c->cfg.wait_ns = CORES_WAIT_NS;
	c->by_vm = CORES_BY_VM;
	c->inner = s->select;
	s->select = cores_select;
	return 0;
}

int
cores_granted(const struct sim *s)
{
	int i, n = 0;

	if (!s->cores)
		return -1;
	for (i = 0; i < s->nvcpu; i++)
		n += s->cores->core[i] >= 0;
	return n;
}

int
cores_tick(struct sim *s)
{
	struct cores_state *c = s->cores;
	int i, r;

	/* the daemon grants cores to vCPUs only, never to host tasks */
	for (i = 0; i < s->nvcpu; i++) {
		const struct sim_thread *th = &s->th[i];
		uint64_t run = th->ss_run_ns;

		if (th->state == TH_RUNNING)
			run += s->now_ns - th->ss_since_ns;
		c->st[i].run_ns = run - c->run[i];
		c->st[i].wait_ns = th->ss_wait_ns - c->wait[i];
		c->st[i].slices = th->ss_slices - c->slices[i];
		c->st[i].last_pu = th->last_pu;
		c->run[i] = run;
		c->wait[i] = th->ss_wait_ns;
		c->slices[i] = th->ss_slices;
	}
	c->cfg.tick_ns = s->now_ns - c->last_ns;
	c->last_ns = s->now_ns;
	r = coregrant_plan(s->t, &c->cfg, c->st, c->by_vm ? c->vm : NULL,
	    c->pool, s->nvcpu, c->core, c->next);
	return r < 0 ? r : 0;
}
