/*
 * points.c - which points `make bench` runs, and on which set.
 *
 * Two sets (bench/README.md, "Tuning set and held-out set"):
 *
 *   tuning     g4dnmetal and Kunpeng 920, seeds 1..3.  Every rule of the
 *              placement core and of the scheduler was looked at on these
 *              runs; their figures say how well the rules fit what they
 *              were fitted to, nothing more.
 *   held-out   every other shipped topology with SMT or a cluster level,
 *              seeds 101..103, which no one looked at while writing a
 *              rule.  The headline comes from this set only.
 *
 * nvidia-dgx-gb10 (no SMT, one core per cluster) and nothing else is left
 * out: it has neither of the two things the wake rules act on.
 *
 * Families of points on top of the standard model:
 *   seed checks the feature each seed (doc/seeds.md) introduced, turned off
 *   cluster     seed 003 again with cheaper cluster lines (no published
 *               per-cluster latency was found: it is swept, not set)
 *   smt curve   SMT yield 0.5..0.9, every SMT topology, 125 %
 *   migration   the whole cost of a vCPU migration, 1..20 us, every
 *               topology, 125 %
 *   bpf step    what one CPU looked at costs the scx scan, 2..50 ns
 *               (scx only: stock does not run BPF), every topology, 125 %
 *   no polling  KVM's halt_poll_ns = 0 (an operator setting), every
 *               topology and workload, 125 %: the cost that weighs most
 *   poll weight what a halt-polling SMT sibling takes of its core
 *               (poll_smt_weight, unmeasured), 0..1, every SMT
 *               topology, 125 %
 *   kick        what sched_ext's kick of an idle CPU costs before the
 *               CPU leaves its C-state (no published figure), 0..4 us,
 *               scx only, every topology, 125 %
 *   mix         every workload at 125 % with VMs alternating between
 *               the latency and the balanced profile (--vm-mix): each
 *               class's own p99 and throughput, so that the
 *               latency profile's promise is checked on its own VMs
 *
 * A partial sweep runs only the points of some strategies and families:
 * VP_SWEEP_STRATS=stock,sis-core VP_SWEEP_FAMILIES=standard,nopoll.  It
 * is for re-running one changed strategy on a busy machine; its tables
 * lack every other row (bench/splice_results.py puts them together).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static const struct sweep_topo topos[] = {
	{ "g4dnmetal.xml", "g4dnmetal", false },	/* 2 x 24C/48T CLX */
	{ "128arm-2pa2n8cluster4co.xml", "kunpeng920", false },
	{ "epyc-corona.xml", "epyc-corona", true },	/* Zen 2, 3-core CCX */
	{ "coral-lassen.xml", "power9-lassen", true },	/* SMT4, core pairs */
	{ "knl-snc4-flat-hwloc1.xml", "knl", true },	/* SMT4, 2-core tiles */
	{ "memorysidecaches.xml", "memsidecache", true },	/* 2 x 20C/40T */
	{ "Intel-RaptorLake-Corei7-1370P.xml", "raptorlake", true },
	{ "AMD-1Ah-Zen5StrixPoint-RyzenAI9HX370.xml", "strixpoint", true },
};
#define NTOPOS	((int)(sizeof(topos) / sizeof(*topos)))

#define NELEM(a)	((int)(sizeof(a) / sizeof(*(a))))

static const int tune_loads[] = { 25, 50, 75, 100, 125, 150, 200 };
static const int heldout_loads[] = { 50, 100, 125, 150 };
const double cluster_curve[] = { 5, 10 };
const int ncluster_curve = NELEM(cluster_curve);

#define NSEEDS		3
#define TUNE_SEED0	1
#define HELDOUT_SEED0	101

#define BIT(s)		(1u << (s))
#define ALL_STRATS	((1u << STRAT_COUNT) - 1)
#define CURVE_STRATS	(BIT(STRAT_STOCK) | BIT(STRAT_SCX))
#define NOPOLL_STRATS	(HELDOUT_STRATS & ~BIT(STRAT_GREEDY))
/* pinned is a baseline for the tuning set only: it never wins there */
#define HELDOUT_STRATS	(ALL_STRATS & ~BIT(STRAT_PINNED))
/* the greedy heuristic has no profiles of its own to keep */
#define MIX_STRATS	(NOPOLL_STRATS)
#define MIX_PROFILES	"latency,balanced"

static const double smt_x[] = { 0.5, 0.6, 0.7, 0.8, 0.9 };
static const double migration_x[] = { 1, 2, 4, 7, 10, 15, 20 };
static const double bpf_x[] = { 2, 10, 20, 50 };
/* 0: PAUSE leaves the core to the sibling; 1: as a thread at work */
static const double pollw_x[] = { 0, 0.25, 0.5, 0.75, 1 };
/* 0: a free kick, as the older model had it; 1 us: the model's */
static const double kick_x[] = { 0, 250, 1000, 4000 };

const struct curve smt_curve = {
	FAM_SMT, "SMT yield", "smt=%.2f", smt_x, NELEM(smt_x),
	CURVE_STRATS, true,
};
const struct curve migration_curve = {
	FAM_MIGRATION, "migration cost (us)", "migr=%gus", migration_x,
	NELEM(migration_x), CURVE_STRATS, false,
};
/* stock runs no BPF: curves.c reads stock's standard run against it */
const struct curve pollw_curve = {
	FAM_POLLW, "polling sibling weight", "pollw=%.2f", pollw_x,
	NELEM(pollw_x), CURVE_STRATS, true,
};
const struct curve kick_curve = {
	FAM_KICK, "scx kick (ns)", "kick=%gns", kick_x, NELEM(kick_x),
	BIT(STRAT_SCX), false,
};
const struct curve bpf_curve = {
	FAM_BPF, "scx scan step (ns)", "bpf=%gns", bpf_x, NELEM(bpf_x),
	BIT(STRAT_SCX), false,
};

void
curve_tag(const struct curve *c, int k, char *buf, size_t len)
{
	snprintf(buf, len, c->fmt, c->x[k]);
}

void
cluster_tag(double ns, bool off, char *buf, size_t len)
{
	snprintf(buf, len, off ? "cluster=%g,-CLUSTER_FIRST" : "cluster=%g",
	    ns);
}

void
points_loads(bool heldout, const int **ret, int *n)
{
	*ret = heldout ? heldout_loads : tune_loads;
	*n = heldout ? NELEM(heldout_loads) : NELEM(tune_loads);
}

static const char *const family_names[] = {
	[FAM_STANDARD] = "standard", [FAM_SEED] = "seed",
	[FAM_CLUSTER] = "cluster", [FAM_SMT] = "smt",
	[FAM_MIGRATION] = "migration", [FAM_BPF] = "bpf",
	[FAM_NOPOLL] = "nopoll", [FAM_POLLW] = "pollw", [FAM_MIX] = "mix",
	[FAM_KICK] = "kick",
};

/* Is @name in the comma list of environment variable @var (unset:
 * everything is)? */
static bool
listed(const char *var, const char *name)
{
	const char *p = getenv(var);
	size_t n = strlen(name), k;

	if (!p || !*p)
		return true;
	while (*p) {
		k = strcspn(p, ",");
		if (k == n && !strncmp(p, name, n))
			return true;
		p += k + (p[k] == ',');
	}
	return false;
}

struct plist {
	struct point *pt;
	int n, cap;
	int err;
};

static void
add(struct plist *l, const struct point *p)
{
	if (!listed("VP_SWEEP_STRATS", strategy_name(p->strat)) ||
	    !listed("VP_SWEEP_FAMILIES", family_names[p->fam]))
		return;
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 4096;
		struct point *np = realloc(l->pt, cap * sizeof(*np));

		if (!np) {
			l->err = -ENOMEM;
			return;
		}
		l->pt = np;
		l->cap = cap;
	}
	l->pt[l->n++] = *p;
}

/* Every seed of the @mask strategies of one point, from its set. */
static void
add_all(struct plist *l, struct point p, unsigned int mask)
{
	uint64_t seed0 = topos[p.topo].heldout ? HELDOUT_SEED0 : TUNE_SEED0;
	int st, sd;

	for (st = 0; st < STRAT_COUNT; st++) {
		if (!(mask & BIT(st)))
			continue;
		for (sd = 0; sd < NSEEDS; sd++) {
			p.strat = st;
			p.seed = seed0 + (uint64_t)sd;
			add(l, &p);
		}
	}
}

/* A variant name that lives as long as the program. */
static const char *
keep(const char *buf)
{
	char *s = strdup(buf);

	return s ? s : "?";
}

static bool
has_smt(const struct vp_topo *t)
{
	int c;

	for (c = 0; c < t->ncores; c++)
		if (t->core[c].npus > 1)
			return true;
	return false;
}

static void
add_standard(struct plist *l, int t)
{
	const int *loads;
	struct point p = { .topo = t, .variant = "", .warm_scale = -1 };
	int w, i, n;

	points_loads(topos[t].heldout, &loads, &n);

	for (w = 0; w < WL_COUNT; w++)
		for (i = 0; i < n; i++) {
			struct point f;

			p.wl = w;
			p.load_pct = loads[i];
			add_all(l, p, topos[t].heldout ? HELDOUT_STRATS :
			    ALL_STRATS);
			if (topos[t].heldout)
				continue;
			if (w != WL_HACKBENCH && w != WL_TBENCH)
				continue;
			/* seed 000 on g4dnmetal, seed 003 on Kunpeng 920 */
			f = p;
			f.fam = FAM_SEED;
			f.feature_off = t == 0 ? "SIS_CORE" : "CLUSTER_FIRST";
			f.variant = t == 0 ? "-SIS_CORE" : "-CLUSTER_FIRST";
			add_all(l, f, t == 0 ? BIT(STRAT_SCX) :
			    BIT(STRAT_STOCK) | BIT(STRAT_SCX));
		}
}

/* Seed 003 again with each cheaper cluster line, CLUSTER_FIRST on/off. */
static void
add_cluster(struct plist *l, int t)
{
	struct point p = { .topo = t, .warm_scale = -1, .fam = FAM_CLUSTER };
	const int *loads;
	char buf[64];
	int w, i, k, n;

	points_loads(false, &loads, &n);
	for (k = 0; k < ncluster_curve; k++)
		for (w = WL_HACKBENCH; w <= WL_TBENCH; w++)
			for (i = 0; i < n; i++) {
				p.wl = w;
				p.load_pct = loads[i];
				p.cluster_line_ns = cluster_curve[k];
				p.feature_off = NULL;
				cluster_tag(cluster_curve[k], false, buf,
				    sizeof(buf));
				p.variant = keep(buf);
				add_all(l, p, BIT(STRAT_STOCK));
				p.feature_off = "CLUSTER_FIRST";
				cluster_tag(cluster_curve[k], true, buf,
				    sizeof(buf));
				p.variant = keep(buf);
				add_all(l, p, BIT(STRAT_STOCK));
			}
}

/* The curves at 125 %, hackbench and tbench: the knob at each value. */
static void
add_curves(struct plist *l, int t, bool smt)
{
	static const struct curve *const all[] = {
		&smt_curve, &migration_curve, &bpf_curve, &pollw_curve,
		&kick_curve,
	};
	char buf[64];
	int w, c, k;

	for (w = WL_HACKBENCH; w <= WL_TBENCH; w++)
		for (c = 0; c < NELEM(all); c++)
			for (k = 0; !(all[c]->smt_only && !smt) &&
			    k < all[c]->n; k++) {
				struct point p = { .topo = t, .wl = w,
				    .warm_scale = -1, .load_pct = 125,
				    .fam = all[c]->fam,
				    .poll_smt_weight = -1, .scx_kick_ns = -1 };

				if (all[c]->fam == FAM_SMT)
					p.smt_yield = all[c]->x[k];
				else if (all[c]->fam == FAM_MIGRATION)
					p.migration_us = all[c]->x[k];
				else if (all[c]->fam == FAM_POLLW)
					p.poll_smt_weight = all[c]->x[k];
				else if (all[c]->fam == FAM_KICK)
					p.scx_kick_ns = all[c]->x[k];
				else
					p.bpf_step_ns = all[c]->x[k];
				curve_tag(all[c], k, buf, sizeof(buf));
				p.variant = keep(buf);
				add_all(l, p, all[c]->strats);
			}
}

/* Every workload at 125 % with KVM's halt polling off. */
static void
add_nopoll(struct plist *l, int t)
{
	struct point p = { .topo = t, .warm_scale = -1, .load_pct = 125,
	    .fam = FAM_NOPOLL, .variant = "nopoll", .no_poll = true };
	int w;

	for (w = 0; w < WL_COUNT; w++) {
		p.wl = w;
		add_all(l, p, NOPOLL_STRATS);
	}
}

/* Every workload at 125 % with VMs of two profiles. */
static void
add_mix(struct plist *l, int t)
{
	struct point p = { .topo = t, .warm_scale = -1, .load_pct = 125,
	    .fam = FAM_MIX, .variant = "mix", .poll_smt_weight = -1,
	    .vm_mix = MIX_PROFILES };
	int w;

	for (w = 0; w < WL_COUNT; w++) {
		p.wl = w;
		add_all(l, p, MIX_STRATS);
	}
}

void
points_topos(struct sweep *sw)
{
	sw->topo = topos;
	sw->ntopo = NTOPOS;
}

int
points_build(struct sweep *sw)
{
	struct plist l = { NULL, 0, 0, 0 };
	int t;

	for (t = 0; t < NTOPOS; t++)
		add_standard(&l, t);
	add_cluster(&l, 1);
	for (t = 0; t < NTOPOS; t++) {
		add_curves(&l, t, has_smt(sw->t[t]));
		add_nopoll(&l, t);
		add_mix(&l, t);
	}
	if (l.err) {
		free(l.pt);
		return l.err;
	}
	sw->pt = l.pt;
	sw->npt = l.n;
	return 0;
}

void
points_opts(const struct point *p, struct run_opts *o)
{
	const char *env;

	memset(o, 0, sizeof(*o));
	params_default(&o->p);
	features_default(&o->feat);
	policy_default(&o->policy);
	if (p->locality &&
	    policy_set_field(&o->policy, "locality", p->locality) < 0)
		abort();	/* a typo in this file */
	if (p->smt_yield > 0)
		o->p.smt_yield = p->smt_yield;
	if (p->warm_scale >= 0)
		o->p.warm_scale = p->warm_scale;
	if (p->migration_us > 0)
		o->p.migration_us = p->migration_us;
	if (p->cluster_line_ns > 0)
		o->p.line_ns[0] = p->cluster_line_ns;
	if (p->bpf_step_ns > 0)
		o->p.bpf_step_ns = (uint64_t)p->bpf_step_ns;
	if (p->no_poll)
		o->p.halt_poll_ns = 0;
	if (p->fam == FAM_POLLW && p->poll_smt_weight >= 0)
		o->p.poll_smt_weight = p->poll_smt_weight;
	if (p->fam == FAM_KICK && p->scx_kick_ns >= 0)
		o->p.scx_kick_ns = (uint64_t)p->scx_kick_ns;
	if (p->feature_off)
		o->feat.on[features_lookup(p->feature_off)] = false;
	o->vm_mix = p->vm_mix;
	/* a rehearsal of the whole pipeline in a minute: short runs */
	if ((env = getenv("VP_SWEEP_MEASURE_MS")) && atoi(env) > 0) {
		o->p.measure_ns = (uint64_t)atoi(env) * 1000000;
		o->p.warmup_ns = o->p.measure_ns / 4;
	}
}
