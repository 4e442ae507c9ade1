/*
 * balance.c - Linux 6.12's load balance (kernel/sched/fair.c), as far
 * as it changes which thread runs where: newidle balance when a PU goes
 * idle, and the periodic balance of the scheduler tick.  Only queued
 * threads move (no active balance); the pulled thread is the one that
 * waited longest, as detach_tasks() takes the tail of cfs_tasks.
 *
 * Each PU has its sched domains, bottom up, as build_sched_domains()
 * makes them and degenerates the ones that add no CPU: SMT, cluster
 * (when sched_cluster_active), the LLC (MC), the package (PKG, when it
 * holds more than one LLC) and the machine (NUMA, with two packages).
 */
#include <errno.h>
#include <stdlib.h>

#include "sim.h"

#define MAX_LEVELS	5

/* The kernel's struct sched_domain, per PU and level. */
struct sd {
	int first, n;		/* span: a range of dense PU indices */
	uint64_t max_cost_ns;	/* max_newidle_lb_cost */
	uint64_t last_decay_ns;	/* last_decay_max_lb_cost */
	/* NI_RANDOM: newidle_call, newidle_success, newidle_ratio */
	unsigned int ni_call, ni_success, ni_ratio;
};

struct sim_balance {
	struct sd *sd;		/* [npus * MAX_LEVELS] */
	int *nlev;		/* [npus] */
	bool overloaded;	/* rq->rd->overloaded */
	uint64_t rng;		/* sched_rng() of NI_RANDOM */
};

static struct sd *
sd_of(const struct sim *s, int pu, int lev)
{
	return &s->bal->sd[pu * MAX_LEVELS + lev];
}

/* Span of the package that holds @llc: its LLCs are contiguous. */
static void
package_span(const struct vp_topo *t, int llc, int *first, int *n)
{
	int pkg = t->llc[llc].package, i;

	*first = -1;
	*n = 0;
	for (i = 0; i < t->nllcs; i++) {
		if (t->llc[i].package != pkg)
			continue;
		if (*first < 0)
			*first = t->llc[i].first_pu;
		*n += t->llc[i].npus;
	}
}

static void
add_level(struct sim *s, int pu, int first, int n)
{
	int k = s->bal->nlev[pu];
	struct sd *d;

	/* sd_degenerate(): a level with the span of its child is dropped */
	if (n <= 1 || (k && sd_of(s, pu, k - 1)->n >= n) || k == MAX_LEVELS)
		return;
	d = sd_of(s, pu, k);
	d->first = first;
	d->n = n;
	/* sd_init(): newidle_call 512, newidle_success 256, ratio 512 */
	d->ni_call = 512;
	d->ni_success = 256;
	d->ni_ratio = 512;
	s->bal->nlev[pu] = k + 1;
}

int
balance_init(struct sim *s)
{
	const struct vp_topo *t = s->t;
	struct sim_balance *b = calloc(1, sizeof(*b));
	int pu, first, n;

	if (!b)
		return -ENOMEM;
	s->bal = b;
	b->sd = calloc((size_t)t->npus * MAX_LEVELS, sizeof(*b->sd));
	b->nlev = calloc(t->npus, sizeof(*b->nlev));
	if (!b->sd || !b->nlev)
		return -ENOMEM;
	b->rng = 0x9e3779b97f4a7c15ull;
	for (pu = 0; pu < t->npus; pu++) {
		const struct vp_pu *p = &t->pu[pu];
		const struct vp_core *c = &t->core[p->core];
		const struct vp_cluster *cl = &t->cluster[p->cluster];
		const struct vp_llc *l = &t->llc[p->llc];

		add_level(s, pu, c->first_pu, c->npus);
		if (s->cluster_active)
			add_level(s, pu, cl->first_pu, cl->npus);
		add_level(s, pu, l->first_pu, l->npus);
		package_span(t, p->llc, &first, &n);
		add_level(s, pu, first, n);
		add_level(s, pu, 0, t->npus);
	}
	return 0;
}

void
balance_release(struct sim *s)
{
	if (!s->bal)
		return;
	free(s->bal->sd);
	free(s->bal->nlev);
	free(s->bal);
	s->bal = NULL;
}

void
balance_queued(struct sim *s, int pu)
{
	/* add_nr_running(): a second runnable task sets rd->overloaded */
	if (host_nr(s, pu) >= 2)
		s->bal->overloaded = true;
}

/*
 * The first queued thread on @src that may run on @pu, or -1.  The
 * head waited longest, so it goes first, as the kernel's detach_tasks()
 * walks the tail of cfs_tasks, the least recently run.
 */
static int
pullable(const struct sim *s, int src, int pu)
{
	int i;

	for (i = s->pu[src].head; i >= 0; i = s->th[i].next)
		if (cpuset_test(&s->allowed[s->th[i].allowed], pu))
			return i;
	return -1;
}

/* The PU in [first, first + n) with the longest queue we can pull. */
static int
find_busiest(const struct sim *s, int pu, int first, int n, int *ret_th)
{
	int src, best = -1, best_nq = 0, thi;

	for (src = first; src < first + n; src++) {
		if (src == pu || s->pu[src].nq <= best_nq)
			continue;
		thi = pullable(s, src, pu);
		if (thi < 0 || !strategy_may_pull(s, src, thi, pu))
			continue;
		best = src;
		best_nq = s->pu[src].nq;
		*ret_th = thi;
	}
	return best;
}

/* Idle @pu pulls from the busiest PU of [first, first + n). */
static bool
pull_one(struct sim *s, int pu, int first, int n, double cost_ns)
{
	int src, thi = -1;

	src = find_busiest(s, pu, first, n, &thi);
	if (src < 0)
		return false;
	host_pull(s, src, thi, pu, cost_ns);
	return true;
}

/*
 * update_newidle_cost(): a new maximum is taken at once; otherwise the
 * maximum decays by 253/256 (~1 %) once per second (HZ jiffies).
 */
static void
update_newidle_cost(struct sim *s, struct sd *d, uint64_t cost_ns)
{
	if (cost_ns > d->max_cost_ns) {
		d->max_cost_ns = cost_ns;
		d->last_decay_ns = s->now_ns;
	} else if (s->now_ns > d->last_decay_ns + 1000000000ull) {
		d->max_cost_ns = d->max_cost_ns * 253 / 256;
		d->last_decay_ns = s->now_ns;
	}
}

/* update_newidle_stats(): NI_RANDOM's success ratio, per 1024 calls. */
static void
update_newidle_stats(struct sd *d, unsigned int success)
{
	d->ni_call++;
	d->ni_success += success;
	if (d->ni_call >= 1024) {
		d->ni_ratio = d->ni_success;
		d->ni_call /= 2;
		d->ni_success /= 2;
	}
}

static unsigned int
sched_rng(struct sim_balance *b)
{
	/* xorshift64: the kernel's is a per-CPU prandom; any will do */
	b->rng ^= b->rng << 13;
	b->rng ^= b->rng >> 7;
	b->rng ^= b->rng << 17;
	return (unsigned int)(b->rng >> 32);
}

/*
 * sched_balance_newidle() of 6.12 (Debian 6.12.117, which has the
 * NI_RANDOM backport): nothing while rd->overloaded is clear or while
 * avg_idle is below the lowest domain's max_newidle_lb_cost; then
 * bottom up, stop where avg_idle < curr_cost + max_newidle_lb_cost,
 * run a domain with probability (1 + newidle_ratio) / 1024, and stop
 * at the first pull.  A domain's cost is one runqueue read per CPU of
 * its span (update_sg_lb_stats() reads each) at the probe cost; it
 * delays the pulled thread, since the idle CPU spends it first.
 */
void
balance_newidle(struct sim *s, int pu)
{
	struct sim_pu *p = &s->pu[pu];
	struct sim_balance *b = s->bal;
	uint64_t curr_cost = 0, cost;
	unsigned int weight;
	int lev;
	bool pulled;

	if (!host_idle(s, pu))
		return;		/* this_rq->ttwu_pending */
	if (s->strat == STRAT_GREEDY) {
		/* the oracle, knowing the future, always pulls */
		const struct vp_llc *l = &s->t->llc[s->t->pu[pu].llc];

		if (!pull_one(s, pu, l->first_pu, l->npus, 0))
			pull_one(s, pu, 0, s->t->npus, 0);
		return;
	}
	if (!b->nlev[pu] || !b->overloaded ||
	    p->avg_idle_ns < sd_of(s, pu, 0)->max_cost_ns)
		return;
	for (lev = 0; lev < b->nlev[pu]; lev++) {
		struct sd *d = sd_of(s, pu, lev);

		if (p->avg_idle_ns < curr_cost + d->max_cost_ns)
			break;
		weight = 1 + d->ni_ratio;
		if (sched_rng(b) % 1024 > weight) {
			update_newidle_stats(d, 0);
			continue;
		}
		weight = (1024 + weight / 2) / weight;
		cost = (uint64_t)d->n * s->p.probe_ns;
		curr_cost += cost;
		pulled = pull_one(s, pu, d->first, d->n, (double)curr_cost);
		update_newidle_stats(d, weight * pulled);
		update_newidle_cost(s, d, cost);
		if (pulled)
			break;
	}
}

/*
 * Periodic idle balance of one LLC.  sd_init() gives a domain a
 * balance interval of its weight in ms (48 ms for a 48-CPU LLC); idle
 * CPUs balance at that interval, so each idle PU pulls once per period.
 */
void
balance_event(struct sim *s, int llc)
{
	const struct vp_llc *l = &s->t->llc[llc];
	int pu;

	for (pu = l->first_pu; pu < l->first_pu + l->npus; pu++)
		if (host_idle(s, pu) && !pull_one(s, pu, l->first_pu,
		    l->npus, 0))
			pull_one(s, pu, 0, s->t->npus, 0);
	s->bal->overloaded = false;
	for (pu = 0; pu < s->t->npus && !s->bal->overloaded; pu++)
		balance_queued(s, pu);
	if (evq_push(&s->q, s->now_ns + (uint64_t)l->npus * 1000000,
	    EV_BALANCE, llc, 0) < 0)
		s->errors++;
}

void
balance_start(struct sim *s)
{
	int i;

	for (i = 0; i < s->t->nllcs; i++)
		if (evq_push(&s->q, (uint64_t)s->t->llc[i].npus * 1000000,
		    EV_BALANCE, i, 0) < 0)
			s->errors++;
}
