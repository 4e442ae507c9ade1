/*
 * balance.c - Linux 6.12's load balance (kernel/sched/fair.c), as far
 * as it changes which thread runs where: newidle balance when a PU goes
 * idle, and the periodic balance of the scheduler tick.  Queued threads
 * are pulled, the one that waited longest first, as detach_tasks() takes
 * the tail of cfs_tasks; a running thread moves only by active balance
 * (active.c's rules, kicked from balance_rq() here).
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
	uint64_t last_balance_ns;	/* last_balance */
	unsigned int interval_ms;	/* balance_interval */
	/* NI_RANDOM: newidle_call, newidle_success, newidle_ratio */
	unsigned int ni_call, ni_success, ni_ratio;
	unsigned int nr_balance_failed;
};

struct sim_balance {
	struct sd *sd;		/* [npus * MAX_LEVELS] */
	int *nlev;		/* [npus] */
	uint64_t *next_balance_ns;	/* [npus]: rq->next_balance */
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
	d->interval_ms = n;	/* sd_init(): balance_interval = sd_weight */
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
	b->next_balance_ns = calloc(t->npus, sizeof(*b->next_balance_ns));
	if (!b->sd || !b->nlev || !b->next_balance_ns)
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
	free(s->bal->next_balance_ns);
	free(s->bal);
	s->bal = NULL;
}

int
balance_nlevels(const struct sim *s, int pu)
{
	return s->bal->nlev[pu];
}

void
balance_span(const struct sim *s, int pu, int lev, int *first, int *n)
{
	const struct sd *d = sd_of(s, pu, lev);

	*first = d->first;
	*n = d->n;
}

void
balance_group(const struct sim *s, int i, int parent_n, int *first, int *n)
{
	int lev;

	*first = i;
	*n = 1;
	for (lev = 0; lev < s->bal->nlev[i]; lev++) {
		const struct sd *d = sd_of(s, i, lev);

		if (d->n >= parent_n)
			break;
		*first = d->first;
		*n = d->n;
	}
}

void
balance_queued(struct sim *s, int pu)
{
	/* add_nr_running(): a second runnable task sets rd->overloaded */
	if (host_nr(s, pu) >= 2)
		s->bal->overloaded = true;
}

/* update_sd_lb_stats() at the top level (no parent), whatever the
 * balance type: rd->overloaded is whether any CPU has two tasks now. */
static void
refresh_overloaded(struct sim *s)
{
	int i;

	s->bal->overloaded = false;
	for (i = 0; i < s->t->npus && !s->bal->overloaded; i++)
		balance_queued(s, i);
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

static uint64_t balance_interval_ns(const struct sim *s, const struct sd *d,
    bool busy);

/* update_next_balance() in newidle: the level's idle interval pulls
 * rq->next_balance in, so a CPU that idles is balanced at that rate */
static void
newidle_next_balance(struct sim *s, int pu, int lev)
{
	struct sd *d = sd_of(s, pu, lev);
	uint64_t next = d->last_balance_ns + balance_interval_ns(s, d, false);

	if (next < s->bal->next_balance_ns[pu])
		s->bal->next_balance_ns[pu] = next;
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
		/* greedy, knowing the future, always pulls */
		const struct vp_llc *l = &s->t->llc[s->t->pu[pu].llc];

		if (!pull_one(s, pu, l->first_pu, l->npus, 0))
			pull_one(s, pu, 0, s->t->npus, 0);
		return;
	}
	if (!b->nlev[pu])
		return;
	if (!b->overloaded ||
	    p->avg_idle_ns < sd_of(s, pu, 0)->max_cost_ns) {
		newidle_next_balance(s, pu, 0);
		return;
	}
	for (lev = 0; lev < b->nlev[pu]; lev++) {
		struct sd *d = sd_of(s, pu, lev);

		newidle_next_balance(s, pu, lev);
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
		if (lev == b->nlev[pu] - 1)
			refresh_overloaded(s);
		update_newidle_stats(d, weight * pulled);
		update_newidle_cost(s, d, cost);
		if (pulled)
			break;
	}
}

/* The tick (params.c jiffy_ns: HZ = 250, 4 ms), and HZ from it. */
#define JIFFY_NS(s)	((s)->p.jiffy_ns)
#define HZ(s)		(1000000000ull / (s)->p.jiffy_ns)
/* sd_init(): busy_factor 16 */
#define BUSY_FACTOR	16

/*
 * get_sd_balance_interval(): balance_interval ms (sd_weight, doubled
 * while balanced, up to 2 * sd_weight), times busy_factor when busy,
 * in jiffies, one less when busy, clamped to [1, HZ * ncpus / 10].
 */
static uint64_t
balance_interval_ns(const struct sim *s, const struct sd *d, bool busy)
{
	uint64_t ms = d->interval_ms * (busy ? BUSY_FACTOR : 1);
	uint64_t j = (ms * HZ(s) + 999) / 1000, max = HZ(s) *
	    s->t->npus / 10;

	if (busy)
		j--;
	if (j < 1)
		j = 1;
	if (j > max)
		j = max;
	return j * JIFFY_NS(s);
}

static bool
core_idle(const struct sim *s, int pu)
{
	return host_core_idle(s, pu);
}

/*
 * should_we_balance() for the tick's balance: in the local group (the
 * child domain's span), only the first idle CPU on an idle core, else
 * the first idle CPU, else the group's first CPU balances this level.
 */
static bool
should_we_balance(const struct sim *s, int pu, int lev)
{
	int first, n, i, idle_smt = -1;

	if (lev == 0)
		return true;	/* the SMT level's groups are single CPUs */
	first = sd_of(s, pu, lev - 1)->first;
	n = sd_of(s, pu, lev - 1)->n;
	for (i = first; i < first + n; i++) {
		if (!host_idle(s, i))
			continue;
		if (s->t->max_smt > 1 && !core_idle(s, i)) {
			if (idle_smt < 0)
				idle_smt = i;
			continue;
		}
		return i == pu;
	}
	if (idle_smt >= 0)
		return idle_smt == pu;
	return first == pu;
}

/* sd_init(): cache_nice_tries 0 at SMT, 2 at NUMA, 1 elsewhere */
static unsigned int
cache_nice_tries(const struct sim *s, const struct sd *d, int lev)
{
	if (lev == 0 && s->t->core[s->t->pu[d->first].core].npus == d->n)
		return 0;
	return d->n == s->t->npus && s->t->npackages > 1 ? 2 : 1;
}

/*
 * sched_balance_rq() at one level, reduced to its effect here: an idle
 * CPU pulls one queued thread from the busiest runqueue; a busy one
 * pulls only when that runqueue has two more runnable threads.  The
 * top level refreshes rd->overloaded (update_sd_lb_stats()).
 */
static bool
balance_rq(struct sim *s, int pu, int lev)
{
	struct sd *d = sd_of(s, pu, lev);
	int src, thi = -1;
	bool found;

	src = find_busiest(s, pu, d->first, d->n, &thi);
	found = src >= 0 && (host_idle(s, pu) ||
	    host_nr(s, src) >= host_nr(s, pu) + 2);
	if (found) {
		host_pull(s, src, thi, pu, 0);
		d->nr_balance_failed = 0;
	} else if (host_idle(s, pu) &&
	    (src = active_asym_src(s, pu, d->first, d->n)) >= 0) {
		/* group_asym_packing: asym_active_balance() needs no
		 * failures; the stopper pushes at once */
		found = true;
		host_push_running(s, src, pu, (double)s->p.stopper_ns);
		d->nr_balance_failed = 0;
	} else if (lev > 0 && host_idle(s, pu) &&
	    (src = active_imbalance(s, pu, d->first, d->n, lev)) != -1) {
		/*
		 * Imbalanced, and nothing could be detached: a failure
		 * (periodic balance only).  need_active_balance() ->
		 * imbalanced_active_balance(): migrate_task and
		 * nr_balance_failed > cache_nice_tries + 2 kicks the
		 * stopper; then nr_balance_failed = cache_nice_tries + 1.
		 * Unbalanced either way: the interval is reset.
		 */
		unsigned int tries = cache_nice_tries(s, d, lev);

		found = true;
		if (src >= 0 && ++d->nr_balance_failed > tries + 2) {
			host_push_running(s, src, pu, (double)s->p.stopper_ns);
			d->nr_balance_failed = tries + 1;
		}
	} else {
		d->nr_balance_failed = 0;	/* out_balanced */
	}
	/* unbalanced: min_interval; balanced: double, to max_interval */
	if (found)
		d->interval_ms = d->n;
	else if (d->interval_ms < 2 * (unsigned int)d->n)
		d->interval_ms *= 2;
	if (lev == s->bal->nlev[pu] - 1)
		refresh_overloaded(s);
	return found;
}

/* sched_balance_domains(): every due level, bottom up. */
static void
balance_domains(struct sim *s, int pu)
{
	struct sim_balance *b = s->bal;
	uint64_t next = s->now_ns + 60ull * 1000000000, iv;
	bool busy = !host_idle(s, pu), cont = true;
	int lev;

	for (lev = 0; lev < b->nlev[pu]; lev++) {
		struct sd *d = sd_of(s, pu, lev);

		update_newidle_cost(s, d, 0);
		if (!cont)
			continue;
		iv = balance_interval_ns(s, d, busy);
		if (s->now_ns >= d->last_balance_ns + iv) {
			cont = should_we_balance(s, pu, lev);
			if (cont && balance_rq(s, pu, lev))
				busy = !host_idle(s, pu);
			d->last_balance_ns = s->now_ns;
			iv = balance_interval_ns(s, d, busy);
		}
		if (d->last_balance_ns + iv < next)
			next = d->last_balance_ns + iv;
	}
	b->next_balance_ns[pu] = next;
}

/*
 * One jiffy.  A busy CPU's tick runs its own balance when due
 * (sched_balance_trigger()) and may kick the idle-load balancer
 * (nohz_balancer_kick(): a due idle CPU exists and this CPU has two
 * runnable threads, or its LLC two busy CPUs).  Idle CPUs have their
 * tick stopped; the ILB, the first idle CPU (find_new_ilb()), runs the
 * due balances of every idle CPU for them, itself last
 * (_nohz_idle_balance()), and stops when it got work itself.
 */
void
balance_event(struct sim *s, int arg)
{
	struct sim_balance *b = s->bal;
	const struct vp_topo *t = s->t;
	int pu, ilb = -1, i, l, nbusy;
	bool kick = false, due = false;

	(void)arg;
	/* sched_ext switches the whole system: no CFS balance at all, but
	 * the tick still calls ops.tick (6.12 sched_tick() ->
	 * task_tick_scx()) */
	if (s->strat == STRAT_SCX) {
		scx_tick(s);
		if (evq_push(&s->q, s->now_ns + JIFFY_NS(s), EV_BALANCE, 0,
		    0) < 0)
			s->errors++;
		return;
	}
	for (pu = 0; pu < t->npus; pu++)
		if (host_idle(s, pu)) {
			if (ilb < 0)
				ilb = pu;
			if (s->now_ns >= b->next_balance_ns[pu])
				due = true;
		}
	for (pu = 0; pu < t->npus; pu++) {
		if (host_idle(s, pu))
			continue;
		if (s->now_ns >= b->next_balance_ns[pu])
			balance_domains(s, pu);
		if (kick || !due || host_idle(s, pu))
			continue;
		if (host_nr(s, pu) >= 2) {
			kick = true;
			continue;
		}
		/* nohz_balancer_kick(): an idle CPU this one's asym
		 * packing prefers (ITMT) is worth a kick by itself */
		if (active_asym_kick(s, pu)) {
			kick = true;
			continue;
		}
		l = t->pu[pu].llc;
		nbusy = 0;
		for (i = t->llc[l].first_pu; i < t->llc[l].first_pu +
		    t->llc[l].npus; i++)
			nbusy += !host_idle(s, i);
		kick = nbusy > 1;	/* sds->nr_busy_cpus > 1 */
	}
	if (kick && ilb >= 0) {
		for (i = 1; i <= t->npus; i++) {
			pu = (ilb + i) % t->npus;
			if (!host_idle(s, pu) ||
			    s->now_ns < b->next_balance_ns[pu])
				continue;
			balance_domains(s, pu);
			if (pu != ilb && !host_idle(s, ilb))
				break;	/* need_resched() on the ILB */
		}
	}
	if (evq_push(&s->q, s->now_ns + JIFFY_NS(s), EV_BALANCE, 0, 0) < 0)
		s->errors++;
}

/*
 * The first tick.  6.12 starts every domain's last_balance at the same
 * jiffy and does not skew the tick (sched_skew_tick=0); CPUs drift
 * apart as they go idle and busy.  We start them staggered, each PU
 * one jiffy after the previous within the interval, as that drift
 * leaves them, rather than in lock step.
 */
void
balance_start(struct sim *s)
{
	int pu, lev;

	for (pu = 0; pu < s->t->npus; pu++)
		for (lev = 0; lev < s->bal->nlev[pu]; lev++) {
			struct sd *d = sd_of(s, pu, lev);
			uint64_t iv = balance_interval_ns(s, d, false);

			d->last_balance_ns = (pu * JIFFY_NS(s)) % iv;
			if (d->last_balance_ns + iv <
			    s->bal->next_balance_ns[pu] || !lev)
				s->bal->next_balance_ns[pu] =
				    d->last_balance_ns + iv;
		}
	if (evq_push(&s->q, JIFFY_NS(s), EV_BALANCE, 0, 0) < 0)
		s->errors++;
}
