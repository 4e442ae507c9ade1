/*
 * sweep.c - the sweep behind `make bench`: running its points
 * (points.c) in @jobs worker processes, and reading their JSON back.
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
#include "host/policy_xml.h"
#include "sim.h"
#include "costs.h"

/* Worker @k of @jobs: its share of the points, one line each. */
static int
worker(const struct sweep *sw, int k, int jobs)
{
	char path[4096];
	FILE *out;
	int i, errors;

	snprintf(path, sizeof(path), "%s/raw/part-%d.txt", sw->outdir, k);
	if (!(out = fopen(path, "w")))
		return 1;
	for (i = k; i < sw->npt; i += jobs) {
		const struct point *p = &sw->pt[i];
		struct run_cfg c = {
			.topology = sw->topo[p->topo].file, .wl = p->wl,
			.load_pct = p->load_pct, .strat = p->strat,
			.seed = p->seed, .variant = p->variant,
		};
		struct run_opts o;
		char *line;

		points_opts(p, &o);
		o.profiles = sw->profiles;
		o.p.cpu = sw->cpu[p->topo].model;
		o.p.l1d_bytes = sw->cpu[p->topo].l1d_bytes;
		o.p.l2_bytes = sw->cpu[p->topo].l2_bytes;
		o.p.l2_shared = sw->cpu[p->topo].l2_shared;
		line = run_point(sw->t[p->topo], &c, &o, &errors);
		if (line)
			fprintf(out, "%d\t%s\n", i, line);
		free(line);
	}
	return fclose(out) ? 1 : 0;
}

static double
get_d(json_object *o, const char *k)
{
	json_object *v;

	return json_object_object_get_ex(o, k, &v) ?
	    json_object_get_double(v) : 0;
}

/* The p99 of the VMs of class "latency" in @o's vm_classes, or 0. */
static double
latency_class_p99(json_object *o)
{
	json_object *a, *c, *name;
	size_t i;

	if (!json_object_object_get_ex(o, "vm_classes", &a) ||
	    !json_object_is_type(a, json_type_array))
		return 0;
	for (i = 0; i < json_object_array_length(a); i++) {
		c = json_object_array_get_idx(a, i);
		if (json_object_object_get_ex(c, "class", &name) &&
		    !strcmp(json_object_get_string(name), "latency"))
			return get_d(c, "p99_ns");
	}
	return 0;
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
		.poll_share = get_d(o, "poll_share"),
		.lat_p99 = latency_class_p99(o),
		.host_p99 = get_d(o, "host_p99_ns"),
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

/* Loads every topology of the sweep into sw->t; 0 or -1. */
static int
load_topos(struct sweep *sw, const char *topodir)
{
	char path[4096];
	int i;

	sw->t = calloc(sw->ntopo, sizeof(*sw->t));
	sw->cpu = calloc(sw->ntopo, sizeof(*sw->cpu));
	if (!sw->t || !sw->cpu)
		return -1;
	for (i = 0; i < sw->ntopo; i++) {
		struct sweep_cpu *c = &sw->cpu[i];

		snprintf(path, sizeof(path), "%s/%s", topodir,
		    sw->topo[i].file);
		if (hwtopo_load_xml(path, &sw->t[i], NULL, 0) < 0) {
			fprintf(stderr, "sweep: cannot load %s\n", path);
			return -1;
		}
		/* the CPU model and caches behind the costs (cpus.c) */
		c->model = cpus_identify(path, &c->l1d_bytes, &c->l2_bytes,
		    &c->l2_shared);
	}
	return 0;
}

static void
free_topos(struct sweep *sw)
{
	int i;

	for (i = 0; sw->t && i < sw->ntopo; i++)
		topo_free(sw->t[i]);
	free(sw->t);
	free(sw->cpu);
}

int
sweep_main(const char *topodir, const char *outdir, int jobs,
    const char *profiles_dir)
{
	struct sweep sw = { .outdir = outdir };
	struct vp_profiles *pr = NULL;
	char err[1024] = "";
	char path[4096];
	struct timespec t0, t1;
	int k, st, got, r = -1, failed = 0;
	pid_t *pids = calloc(jobs, sizeof(*pids));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	snprintf(path, sizeof(path), "%s/raw", outdir);
	points_topos(&sw);
	/* the profiles FAM_MIX's VMs take (policies/ of the checkout) */
	if (profiles_load(profiles_dir, &pr, err, sizeof(err)) < 0) {
		fprintf(stderr, "sweep: profiles in %s: %s\n", profiles_dir,
		    err);
		goto out;
	}
	sw.profiles = pr;
	if (!pids || load_topos(&sw, topodir) < 0 || points_build(&sw) < 0 ||
	    !(sw.res = calloc(sw.npt, sizeof(*sw.res))) ||
	    (mkdir(outdir, 0755) < 0 && errno != EEXIST) ||
	    (mkdir(path, 0755) < 0 && errno != EEXIST)) {
		fprintf(stderr, "sweep: setup failed\n");
		goto out;
	}
	fprintf(stderr, "sweep: %d points, %d workers\n", sw.npt, jobs);
	fflush(NULL);
	for (k = 0; k < jobs; k++) {
		pids[k] = fork();
		if (pids[k] == 0)
			_exit(worker(&sw, k, jobs));
		if (pids[k] < 0)
			failed++;
	}
	for (k = 0; k < jobs; k++)
		if (pids[k] > 0 && (waitpid(pids[k], &st, 0) < 0 ||
		    !WIFEXITED(st) || WEXITSTATUS(st)))
			failed++;
	got = collect(&sw, jobs);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "sweep: %d of %d points in %.0f s%s\n", got, sw.npt,
	    (double)(t1.tv_sec - t0.tv_sec), failed ? ", a worker failed" :
	    "");
	r = got == sw.npt && !failed ? tables_write(&sw) : -1;
out:
	profiles_free(pr);
	free(sw.res);
	free(sw.pt);
	free_topos(&sw);
	free(pids);
	return r;
}
