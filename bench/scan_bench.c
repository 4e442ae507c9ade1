/*
 * scan_bench.c - PUs probed and nanoseconds per decision for the
 * core-granule scan (scan_core) against the reference linear scan
 * (scan_linear), on the largest topology in a folder, at 0..100 % of
 * PUs busy.  Both run in the same process on the same seeded states;
 * the linear scan is the baseline every ratio divides by.
 *
 *   bench-scan DIR [TRIALS]
 *
 * Last line: probes_ratio_at_90=<linear/core>.
 */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "host/hwtopo.h"

#define NSTATES	256	/* distinct busy states per load level */

/* One seeded state: the truth and the exact idle mask built from it. */
struct state {
	struct vp_cpuset busy;
	struct vp_idlemask idle;
	int target;
};

/* xorshift64*: deterministic across runs and libcs. */
static uint64_t
rnd(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

static void
make_state(const struct vp_topo *t, int nbusy, uint64_t *seed,
    struct state *st)
{
	int *perm = malloc(t->npus * sizeof(*perm));
	int i, j, tmp;

	for (i = 0; i < t->npus; i++)
		perm[i] = i;
	for (i = t->npus - 1; i > 0; i--) {
		j = (int)(rnd(seed) % (uint64_t)(i + 1));
		tmp = perm[i];
		perm[i] = perm[j];
		perm[j] = tmp;
	}
	cpuset_zero(&st->busy);
	for (i = 0; i < nbusy; i++)
		cpuset_set(&st->busy, perm[i]);
	free(perm);
	if (idlemask_init(&st->idle, t) < 0)
		exit(1);
	idlemask_rebuild(&st->idle, t, &st->busy);
	st->target = (int)(rnd(seed) % (uint64_t)t->npus);
}

/*
 * One wake-up with the whole machine allowed: the target's LLC first,
 * then the others in index order, as both scans would be driven.
 */
static int
decide(struct vp_view *v, int target, bool core)
{
	const struct vp_topo *t = v->topo;
	int k, llc, pu, first = t->pu[target].llc;
	enum vp_reason why;

	for (k = 0; k < t->nllcs; k++) {
		llc = (first + k) % t->nllcs;
		pu = core ? scan_core(v, llc, k ? VP_PU_NONE : target, &t->all,
		    VP_SMT_PREFER_IDLE_CORE, &why) :
		    scan_linear(v, llc, k ? VP_PU_NONE : target, &t->all, &why);
		if (pu != VP_PU_NONE)
			return pu;
	}
	return VP_PU_NONE;
}

static double
now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

struct result {
	double probes;
	double ns;
};

/*
 * Runs @trials decisions over the states; each decision starts from the
 * state's pristine mask (scans edit masks), and the cost of restoring it
 * is measured alone and subtracted.
 */
static struct result
run(const struct vp_topo *t, struct state *st, int trials, int mode)
{
	const struct vp_features *f;
	static struct vp_features feat;
	struct vp_idlemask work;
	struct result res = { 0, 0 };
	double t0;
	int i, sink = 0;

	features_default(&feat);
	f = &feat;
	if (idlemask_init(&work, t) < 0)
		exit(1);
	t0 = now_ns();
	for (i = 0; i < trials; i++) {
		struct state *s = &st[i % NSTATES];
		struct vp_view v = {
			.topo = t, .idle = &work, .busy = &s->busy, .feat = f,
		};

		work.mask = s->idle.mask;
		memcpy(work.has_idle_core, s->idle.has_idle_core, t->nllcs);
		cpuset_zero(&work.fail_prone);
		if (mode >= 0)
			sink += decide(&v, s->target, mode == 1);
		res.probes += v.probes;
	}
	res.ns = now_ns() - t0;
	idlemask_release(&work);
	if (sink == 42)
		fputc(' ', stderr);	/* keeps the calls from being elided */
	res.probes /= trials;
	return res;
}

/* The topology file with the most PUs in @dir. */
static int
pick_largest(const char *dir, char *path, size_t len, struct vp_topo **ret)
{
	struct vp_topo *best = NULL, *t;
	struct dirent *e;
	char p[4096];
	DIR *d;

	if (!(d = opendir(dir)))
		return -errno;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);

		if (n < 5 || strcmp(e->d_name + n - 4, ".xml"))
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		if (hwtopo_load_xml(p, &t, NULL, 0) < 0)
			continue;
		if (!best || t->npus > best->npus) {
			topo_free(best);
			best = t;
			snprintf(path, len, "%s", e->d_name);
		} else {
			topo_free(t);
		}
	}
	closedir(d);
	if (!best)
		return -ENOENT;
	*ret = best;
	return 0;
}

int
main(int argc, char **argv)
{
	static const int levels[] = { 0, 50, 75, 90, 95, 100 };
	struct state *st;
	struct vp_topo *t;
	char name[256];
	double ratio90 = 0;
	int trials, li, i;

	if (argc < 2) {
		fprintf(stderr, "usage: bench-scan DIR [TRIALS]\n");
		return 2;
	}
	trials = argc > 2 ? atoi(argv[2]) : 200000;
	if (pick_largest(argv[1], name, sizeof(name), &t) < 0) {
		fprintf(stderr, "bench-scan: no topology in %s\n", argv[1]);
		return 1;
	}
	st = calloc(NSTATES, sizeof(*st));
	printf("topology %s: %d PUs, %d cores, %d LLCs, SMT%d; %d decisions "
	    "per level, whole machine allowed\n\n", name, t->npus, t->ncores,
	    t->nllcs, t->max_smt, trials);
	printf("| busy %% | linear probes | core probes | probes linear/core "
	    "| linear ns | core ns | ns linear/core |\n");
	printf("|---:|---:|---:|---:|---:|---:|---:|\n");
	for (li = 0; li < (int)(sizeof(levels) / sizeof(levels[0])); li++) {
		uint64_t seed = 0x9e3779b97f4a7c15ULL + levels[li];
		struct result base, lin, core;

		for (i = 0; i < NSTATES; i++)
			make_state(t, (t->npus * levels[li] + 50) / 100, &seed,
			    &st[i]);
		base = run(t, st, trials, -1);
		lin = run(t, st, trials, 0);
		core = run(t, st, trials, 1);
		lin.ns = (lin.ns - base.ns) / trials;
		core.ns = (core.ns - base.ns) / trials;
		printf("| %d | %.2f | %.2f | ", levels[li], lin.probes,
		    core.probes);
		/* at 100 % the idle mask is empty: the core scan probes 0 */
		if (core.probes > 0)
			printf("%.2f", lin.probes / core.probes);
		else
			printf("no probes");
		printf(" | %.1f | %.1f | %.2f |\n", lin.ns, core.ns,
		    core.ns > 0 ? lin.ns / core.ns : 0.0);
		if (levels[li] == 90)
			ratio90 = core.probes > 0 ? lin.probes / core.probes : 0;
		for (i = 0; i < NSTATES; i++)
			idlemask_release(&st[i].idle);
	}
	free(st);
	topo_free(t);
	printf("\nprobes_ratio_at_90=%.2f\n", ratio90);
	return 0;
}
