/*
 * strategy.c - the strategies: who may run where (allowed sets, homes)
 * and the wake-up decision each one makes.  Each is code that runs
 * somewhere, except greedy.
 *
 *   stock      Linux 6.12's wake path on the whole host (stock.c)
 *   pinned     each vCPU on one PU, as `virsh vcpupin` in CPU order
 *   daemon     the planner's homes and allowed sets (plan.c, the real
 *              one) with the stock wake path inside them
 *   daemon-cores  the daemon's plan, then each tick a whole core for
 *              each busy vCPU from schedstat deltas (coregrant.c of the
 *              core, strategy_cores.c), the stock wake path inside
 *   greedy     sees everything, probes nothing: a reference heuristic,
 *              not a bound (bound.c computes the bound)
 *   scx        the same plan fed to the sched_ext scheduler, whose own
 *              wake decision and shared queue run (strategy_scx.c)
 *   sis-core   the same plan with the SIS_CORE kernel patch on the
 *              stock wake path (stock.c, sis_core.c); no wake hint
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"
#include "costs.h"

static const char *const names[STRAT_COUNT] = {
	[STRAT_STOCK] = "stock", [STRAT_PINNED] = "pinned",
	[STRAT_DAEMON] = "daemon", [STRAT_DAEMON_CORES] = "daemon-cores",
	[STRAT_SCX] = "scx", [STRAT_SIS_CORE] = "sis-core",
	[STRAT_GREEDY] = "greedy",
};

const char *
strategy_name(enum strategy st)
{
	return (unsigned int)st < STRAT_COUNT ? names[st] : "?";
}

int
strategy_lookup(const char *name)
{
	int i;

	for (i = 0; i < STRAT_COUNT; i++)
		if (!strcmp(name, names[i]))
			return i;
	return -EINVAL;
}

/* Pinned: the one PU it may use; the kernel does not even look. */
static int
pinned_select(struct sim *s, int thi, int waker_pu, unsigned long *probes)
{
	(void)waker_pu;
	(void)probes;
	return cpuset_first(&s->allowed[s->th[thi].allowed]);
}

/* Work left on @pu's running thread, settled to now. */
static double
greedy_left_ns(const struct sim *s, int pu)
{
	const struct sim_pu *p = &s->pu[pu];
	const struct sim_thread *c = &s->th[p->cur];
	double left = c->over_ns + c->work_ns -
	    (double)(s->now_ns - p->settled_ns) * p->speed;

	return left > 0 ? left / p->speed : 0;
}

/*
 * How long a newcomer would wait on @pu: the running thread keeps the
 * PU to the end of its burst or slice (RUN_TO_PARITY), then each queued
 * thread runs a burst or a slice, whichever ends first.
 */
static double
greedy_wait_ns(const struct sim *s, int pu)
{
	const struct sim_pu *p = &s->pu[pu];
	double w = 0, sl, left;
	int i;

	if (p->cur >= 0) {
		left = greedy_left_ns(s, pu);
		sl = (double)(p->slice_end_ns - s->now_ns);
		w += left < sl ? left : sl;
	}
	for (i = p->head; i >= 0; i = s->th[i].next) {
		left = (s->th[i].over_ns + s->th[i].work_ns) / p->speed;
		w += left < (double)s->p.slice_ns ? left : (double)s->p.slice_ns;
	}
	return w;
}

/*
 * The time @th loses by waking on @pu, knowing everything: the wait,
 * the warm-up of its own lines and of the message, and what sharing a
 * core costs it and its running siblings.
 */
static double
greedy_cost_ns(const struct sim *s, int thi, int pu, int waker_pu)
{
	const struct sim_thread *th = &s->th[thi];
	const struct vp_core *c = &s->t->core[s->t->pu[pu].core];
	int k = cpuset_count_range(&s->running, c->first_pu, c->npus) -
	    cpuset_test(&s->running, pu);
	double cost = greedy_wait_ns(s, pu), w = th->work_ns;

	/* the move as the host charges it (costs.c), and the C-state an
	 * idle PU must leave first */
	cost += costs_migration_ns(s, th->last_pu, pu);
	if (host_idle(s, pu))
		cost += costs_cstate_exit_ns(s, pu);
	cost += host_refetch_ns(s, s->p.msg_lines,
	    host_distance(s->t, waker_pu, pu));
	/* own slowdown, and about as much again for each busy sibling */
	if (k > 0)
		cost += (1 + k) * (w / host_speed_with(s, pu, k + 1) -
		    w / host_speed_with(s, pu, 1));
	return cost;
}

/*
 * Greedy: the allowed PU where the wake-up loses least, among the idle
 * PUs and its previous one; no probes.  With nothing idle it stays on
 * its previous PU: when every PU is busy a move cannot add throughput,
 * only warm-up, and idle balance (which greedy never gates) fills
 * any PU that empties.
 */
static int
greedy_select(struct sim *s, int thi, int waker_pu, unsigned long *probes)
{
	const struct vp_cpuset *a = &s->allowed[s->th[thi].allowed];
	int pu, best = VP_PU_NONE, prev = s->th[thi].last_pu;
	double best_cost = 0, c;

	(void)probes;
	if (prev >= 0 && cpuset_test(a, prev)) {
		best = prev;
		best_cost = greedy_cost_ns(s, thi, prev, waker_pu);
	}
	cpuset_for_each(pu, a, s->t->npus) {
		if (!host_idle(s, pu) || pu == prev)
			continue;
		c = greedy_cost_ns(s, thi, pu, waker_pu);
		if (best == VP_PU_NONE || c < best_cost) {
			best = pu;
			best_cost = c;
		}
	}
	return best != VP_PU_NONE ? best : cpuset_first(a);
}

bool
strategy_may_pull(const struct sim *s, int src, int thi, int pu)
{
	double wait, warm;

	if (s->strat != STRAT_GREEDY)
		return true;
	wait = greedy_left_ns(s, src);
	if (wait > (double)(s->pu[src].slice_end_ns - s->now_ns))
		wait = (double)(s->pu[src].slice_end_ns - s->now_ns);
	warm = costs_migration_ns(s, s->th[thi].last_pu, pu);
	return wait > warm;
}

/* PUs in OS-number order: how an admin's vcpupin goes. */
static int *
os_order(const struct vp_topo *t)
{
	int *o = malloc(t->npus * sizeof(*o));
	unsigned int os;
	int n = 0;

	if (!o)
		return NULL;
	for (os = 0; os < t->os_limit; os++)
		if (t->os_to_pu[os] != VP_PU_NONE)
			o[n++] = t->os_to_pu[os];
	return o;
}

/* Applies the planner's result; only to sleeping threads after t = 0,
 * since a new affinity takes effect at the next wake-up. */
static void
apply_plan(struct sim *s, const struct vp_plan *pl)
{
	int v, i;

	for (v = 0; v < s->nvm; v++) {
		const struct vp_vm_plan *vp = &pl->vm[v];

		for (i = 0; i < s->vm[v].n; i++) {
			struct sim_thread *th = &s->th[s->vm[v].first + i];

			if (s->now_ns && th->state != TH_SLEEP)
				continue;
			if (vp->error || !vp->vcpu) {
				th->home = VP_PU_NONE;
				s->allowed[th->allowed] = s->t->all;
				continue;
			}
			th->home = vp->vcpu[i].home;
			s->allowed[th->allowed] = vp->vcpu[i].allowed;
		}
	}
}

/* The planner, the daemon's own: every VM with its own policy
 * (classes.c: its profile, or the run's). */
static int
replan(struct sim *s)
{
	struct vp_vm_spec *specs = calloc(s->nvm, sizeof(*specs));
	struct vp_plan_input in = {
		.vms = specs, .nvms = s->nvm, .feat = &s->feat,
	};
	_cleanup_plan_ struct vp_plan *pl = NULL;
	int v, r;

	if (!specs)
		return -ENOMEM;
	for (v = 0; v < s->nvm; v++) {
		specs[v].name = "vm";
		specs[v].nvcpus = s->vm[v].n;
		specs[v].policy = s->vm[v].policy;
	}
	r = plan_compute(s->t, &in, &pl);
	free(specs);
	if (r < 0)
		return r;
	apply_plan(s, pl);
	return 0;
}

/* Where each thread may run, and its decision function. */
static int
setup_sets(struct sim *s, const int *o)
{
	int i, r;

	/* a host task takes the kernel's own wake path (stock.c; with
	 * SIS_CORE's rules under sis-core): the daemon strategies only
	 * change vCPUs' affinity; sched_ext's is its unmanaged path */
	s->select_host = s->strat == STRAT_SCX ? scx_select_host :
	    stock_select;
	switch (s->strat) {
	case STRAT_STOCK:
		s->select = stock_select;
		return 0;
	case STRAT_GREEDY:
		s->select = greedy_select;
		return 0;
	case STRAT_PINNED:
		s->select = pinned_select;
		for (i = 0; i < s->nvcpu; i++) {
			cpuset_zero(&s->allowed[i]);
			cpuset_set(&s->allowed[i], o[i % s->t->npus]);
		}
		return 0;
	case STRAT_SCX:
		s->select = scx_select;
		if ((r = replan(s)) < 0 || (r = scx_setup(s)) < 0)
			return r;
		for (i = 0; i < s->nth; i++)
			if (s->th[i].home != VP_PU_NONE)
				s->th[i].last_pu = s->th[i].home;
		return 0;
	case STRAT_DAEMON:
	case STRAT_DAEMON_CORES:	/* the planner's sets, then grants */
	case STRAT_SIS_CORE:	/* the daemon's plan, stock.c + sis_core.c */
		/* SIS_CORE's rules sit inside stock_select() */
		s->select = stock_select;
		if ((r = replan(s)) < 0)
			return r;
		for (i = 0; i < s->nth; i++)
			if (s->th[i].home != VP_PU_NONE)
				s->th[i].last_pu = s->th[i].home;
		return s->strat == STRAT_DAEMON_CORES ? cores_setup(s) : 0;
	default:
		return -EINVAL;
	}
}

/*
 * The vCPU threads as QEMU creates them at VM start: each VM's main
 * thread is forked (from where the previous VM's ran; the first from
 * PU 0, libvirtd's), then forks its vCPU threads one after another
 * while it runs, and every thread placed so far is runnable.  Each one
 * goes where 6.12's fork path puts it (fork.c), whatever the CPU
 * numbering; that is its prev at its first wake-up.
 */
static int
fork_threads(struct sim *s)
{
	int *nr = calloc(s->t->npus, sizeof(*nr));
	int v, i, parent = 0, qemu;

	if (!nr)
		return -ENOMEM;
	for (v = 0; v < s->nvm; v++) {
		qemu = fork_select(s, nr, parent);
		nr[qemu]++;
		for (i = 0; i < s->vm[v].n; i++) {
			int pu = fork_select(s, nr, qemu);

			s->th[s->vm[v].first + i].last_pu = pu;
			nr[pu]++;
		}
		/* the main thread sleeps in its loop once the vCPUs run;
		 * its vhost worker and I/O thread start where it is */
		for (i = s->nvcpu; i < s->nth; i++)
			if (s->th[i].vm == v)
				s->th[i].last_pu = qemu;
		nr[qemu]--;
		parent = qemu;
	}
	free(nr);
	return 0;
}

int
strategy_setup(struct sim *s)
{
	int *o = os_order(s->t);
	int i, r;

	s->nallowed = s->nth;
	s->allowed = calloc(s->nth, sizeof(*s->allowed));
	if (!o || !s->allowed) {
		free(o);
		return -ENOMEM;
	}
	for (i = 0; i < s->nth; i++) {
		struct sim_thread *th = &s->th[i];

		th->allowed = i;
		th->home = VP_PU_NONE;
		s->allowed[i] = s->t->all;
		th->recent_pu = VP_PU_NONE;
		th->last_wakee = -1;
	}
	if ((r = fork_threads(s)) < 0) {
		free(o);
		return r;
	}
	r = setup_sets(s, o);
	free(o);
	if (r == 0)
		hosttasks_allow(s);
	return r;
}

int
strategy_tick(struct sim *s)
{
	if (s->strat == STRAT_STOCK || s->strat == STRAT_PINNED ||
	    s->strat == STRAT_GREEDY)
		return 0;
	/* the VM set never changes in a run: the plan stays, grants move */
	if (s->strat == STRAT_DAEMON_CORES)
		return cores_tick(s);
	return replan(s);
}
