/*
 * sweep.c - the standard sweep behind `make bench`: which points run,
 * running them in @jobs worker processes, and reading their JSON back.
 *
 *   standard     2 topologies x 5 workloads x 8 loads x 5 strategies
 *                x 3 seeds
 *   loc=any      daemon and vcpuplace with every VM's locality "any":
 *                the planner's homes, the whole host allowed
 *   seed checks  the feature each seed introduced, turned off: SIS_CORE
 *                on g4dnmetal (seed 000), CLUSTER_FIRST on Kunpeng 920
 *                (seed 003), hackbench and tbench, every load
 *   sensitivity  SMT yield and cache warm-up cost, hackbench at 125 %
 *
 * Workers write "index<TAB>json" lines to OUTDIR/raw/part-K.txt; the
 * parent parses them with json-c, so a crashed worker shows as missing
 * points rather than as a wrong table.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "host/hwtopo.h"
#include "sim.h"

static const char *const topos[] = {
	"g4dnmetal.xml",			/* 2 x 24C/48T Cascade Lake */
	"128arm-2pa2n8cluster4co.xml",		/* Kunpeng 920, clusters */
};
static const int loads[] = { 25, 50, 75, 90, 100, 125, 150, 200 };
#define NSEEDS	3

struct plist {
	struct point *pt;
	int n, cap;
};

static int
add(struct plist *l, const struct point *p)
{
	if (l->n == l->cap) {
		int cap = l->cap ? 2 * l->cap : 1024;
		struct point *np = realloc(l->pt, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		l->pt = np;
		l->cap = cap;
	}
	l->pt[l->n++] = *p;
	return 0;
}

#define ALL_STRATS	((1u << STRAT_COUNT) - 1)
#define SOME_STRATS	(1u << STRAT_STOCK | 1u << STRAT_SCX | \
			 1u << STRAT_GREEDY)
#define PLAN_STRATS	(1u << STRAT_DAEMON | 1u << STRAT_SCX)

/* Every seed of the @mask strategies of one point. */
static int
add_all(struct plist *l, struct point p, unsigned int mask)
{
	int st, sd, r;

	for (st = 0; st < STRAT_COUNT; st++) {
		if (!(mask & 1u << st))
			continue;
		for (sd = 1; sd <= NSEEDS; sd++) {
			p.strat = st;
			p.seed = (uint64_t)sd;
			if ((r = add(l, &p)) < 0)
				return r;
		}
	}
	return 0;
}

static int
build_points(struct plist *l)
{
	static const double smt[] = { 0.55, 0.75 };
	static const double warm[] = { 0, 0.5, 2 };
	static const char *const smt_tag[] = { "smt=0.55", "smt=0.75" };
	static const char *const warm_tag[] = { "warm=0", "warm=0.5",
	    "warm=2" };
	struct point p = { .variant = "", .warm_scale = -1 };
	int t, w, i, k, r = 0;

	for (t = 0; t < 2; t++)
		for (w = 0; w < WL_COUNT; w++)
			for (i = 0; i < (int)(sizeof(loads) / sizeof(*loads));
			    i++) {
				struct point q = p, f;

				q.topo = t;
				q.wl = w;
				q.load_pct = loads[i];
				r |= add_all(l, q, ALL_STRATS);
				f = q;
				f.locality = "any";
				f.variant = "loc=any";
				r |= add_all(l, f, PLAN_STRATS);
				if (w != WL_HACKBENCH && w != WL_TBENCH)
					continue;
				f = q;
				f.feature_off = t == 0 ? "SIS_CORE" :
				    "CLUSTER_FIRST";
				f.variant = t == 0 ? "-SIS_CORE" :
				    "-CLUSTER_FIRST";
				r |= add_all(l, f, t == 0 ? 1u << STRAT_SCX :
				    SOME_STRATS);
			}
	for (t = 0; t < 2; t++) {
		struct point q = p;

		q.topo = t;
		q.wl = WL_HACKBENCH;
		q.load_pct = 125;
		for (k = 0; k < 3; k++) {
			q.variant = warm_tag[k];
			q.warm_scale = warm[k];
			r |= add_all(l, q, SOME_STRATS);
		}
		q.warm_scale = -1;
		for (k = 0; t == 0 && k < 2; k++) {
			q.variant = smt_tag[k];
			q.smt_yield = smt[k];
			r |= add_all(l, q, SOME_STRATS);
		}
	}
	return r ? -ENOMEM : 0;
}

static void
opts_for(const struct point *p, struct run_opts *o)
{
	memset(o, 0, sizeof(*o));
	params_default(&o->p);
	features_default(&o->feat);
	policy_default(&o->policy);
	if (p->locality &&
	    policy_set_field(&o->policy, "locality", p->locality) < 0)
		abort();	/* a typo in build_points() */
	if (p->smt_yield > 0)
		o->p.smt_yield = p->smt_yield;
	if (p->warm_scale >= 0)
		o->p.warm_scale = p->warm_scale;
	if (p->feature_off)
		o->feat.on[features_lookup(p->feature_off)] = false;
}

/* Worker @k of @jobs: its share of the points, one line each. */
static int
worker(const struct sweep *sw, const char *topodir, int k, int jobs)
{
	struct vp_topo *t[2] = { NULL, NULL };
	char path[4096];
	FILE *out;
	int i, errors;

	snprintf(path, sizeof(path), "%s/raw/part-%d.txt", sw->outdir, k);
	if (!(out = fopen(path, "w")))
		return 1;
	for (i = 0; i < sw->ntopo; i++) {
		snprintf(path, sizeof(path), "%s/%s", topodir, sw->topo[i]);
		if (hwtopo_load_xml(path, &t[i]) < 0) {
			fprintf(stderr, "sweep: cannot load %s\n", path);
			return 1;
		}
	}
	for (i = k; i < sw->npt; i += jobs) {
		const struct point *p = &sw->pt[i];
		struct run_cfg c = {
			.topology = sw->topo[p->topo], .wl = p->wl,
			.load_pct = p->load_pct, .strat = p->strat,
			.seed = p->seed, .variant = p->variant,
		};
		struct run_opts o;
		char *line;

		opts_for(p, &o);
		line = run_point(t[p->topo], &c, &o, &errors);
		if (line)
			fprintf(out, "%d\t%s\n", i, line);
		free(line);
	}
	for (i = 0; i < sw->ntopo; i++)
		topo_free(t[i]);
	return fclose(out) ? 1 : 0;
}

static double
get_d(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ?
	    json_object_get_double(v) : 0;
}

/* Parses one "index<TAB>json" line into sw->res; the index or -1. */
static int
parse_line(struct sweep *sw, const char *line, const char **ret_json)
{
	json_object *o;
	char *tab;
	int idx;

	idx = (int)strtol(line, &tab, 10);
	if (*tab != '\t' || idx < 0 || idx >= sw->npt)
		return -1;
	if (!(o = json_tokener_parse(tab + 1)))
		return -1;
	sw->res[idx] = (struct result){
		.ok = get_d(o, "errors") == 0,
		.thr = get_d(o, "throughput"),
		.p50 = get_d(o, "p50_ns"),
		.p99 = get_d(o, "p99_ns"),
		.probes = get_d(o, "probes_per_wake"),
		.bs = get_d(o, "busy_sibling_share"),
		.xcl = get_d(o, "cross_cluster_share"),
		.xllc = get_d(o, "cross_llc_share"),
		.mig = get_d(o, "migrations_per_s"),
		.bound = get_d(o, "bound"),
	};
	json_object_put(o);
	*ret_json = tab + 1;
	return idx;
}

/* Writes the JSON lines, in point order, to OUTDIR/raw.jsonl. */
static void
write_raw(const struct sweep *sw, char **lines)
{
	char path[4096];
	FILE *all;
	int k;

	snprintf(path, sizeof(path), "%s/raw.jsonl", sw->outdir);
	if (!(all = fopen(path, "w")))
		return;
	for (k = 0; k < sw->npt; k++)
		if (lines[k])
			fputs(lines[k], all);
	fclose(all);
}

/* Reads the workers' lines into sw->res; returns the points read. */
static int
collect(struct sweep *sw, int jobs)
{
	char path[4096], *line = NULL;
	const char *json;
	size_t cap = 0;
	int k, idx, got = 0;
	char **lines = calloc(sw->npt, sizeof(*lines));
	FILE *in;

	if (!lines)
		return -ENOMEM;
	for (k = 0; k < jobs; k++) {
		snprintf(path, sizeof(path), "%s/raw/part-%d.txt",
		    sw->outdir, k);
		if (!(in = fopen(path, "r")))
			continue;
		while (getline(&line, &cap, in) > 0) {
			if ((idx = parse_line(sw, line, &json)) < 0)
				continue;
			free(lines[idx]);
			lines[idx] = strdup(json);
			got++;
		}
		fclose(in);
		unlink(path);
	}
	free(line);
	write_raw(sw, lines);
	for (k = 0; k < sw->npt; k++)
		free(lines[k]);
	free(lines);
	snprintf(path, sizeof(path), "%s/raw", sw->outdir);
	rmdir(path);
	return got;
}

int
sweep_main(const char *topodir, const char *outdir, int jobs)
{
	struct plist l = { NULL, 0, 0 };
	struct sweep sw = {
		.outdir = outdir, .topo = topos, .ntopo = 2,
		.loads = loads, .nloads = sizeof(loads) / sizeof(*loads),
		.nseeds = NSEEDS,
	};
	char path[4096];
	struct timespec t0, t1;
	int k, st, got, r, failed = 0;
	pid_t *pids = calloc(jobs, sizeof(*pids));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(path, sizeof(path), "%s/raw", outdir);
	if (!pids || build_points(&l) < 0 ||
	    (mkdir(outdir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(path, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, "sweep: setup failed\n");
		return -1;
	}
	sw.pt = l.pt;
	sw.npt = l.n;
	sw.res = calloc(l.n, sizeof(*sw.res));
	fprintf(stderr, "sweep: %d points, %d workers\n", l.n, jobs);
	fflush(NULL);
	for (k = 0; k < jobs; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			_exit(worker(&sw, topodir, k, jobs));
		if (pids[k] < 0)
			failed++;
	}
	for (k = 0; k < jobs; k++)
		if (pids[k] > 0 && (waitpid(pids[k], &st, 0) < 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st)))
			failed++;
	got = collect(&sw, jobs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "sweep: %d of %d points in %.0f s%s\n", got, l.n,
	    (double)(t1.tv_sec - t0.tv_sec), failed ? ", a worker failed" :
	    "");
	r = got == l.n && !failed ? tables_write(&sw) : -1;
	free(sw.res);
	free(l.pt);
	free(pids);
	return r;
}
