/*
 * report.c - one run's figures as one JSON line, built with json-c.
 * Times in ns, shares in 0..1, throughput in cores' worth of useful
 * work (useful ns done per simulated ns).
 */
#include <stdlib.h>
#include <string.h>

#include <json-c/json.h>

#include "sim.h"
#include "costs.h"

static void
add_d(json_object *o, const char *k, double v)
{
	json_object_object_add(o, k, json_object_new_double(v));
}

static double
share(uint64_t n, uint64_t of)
{
	return of ? (double)n / (double)of : 0;
}

/* Each VM class's own figures, as the whole run's are computed. */
static void
add_classes(json_object *o, const struct sim *s)
{
	json_object *a = json_object_new_array();
	int k, v;

	if (!a || !s->cls_st)
		return;
	for (k = 0; k < s->ncls; k++) {
		const struct sim_stats *st = &s->cls_st[k];
		json_object *c = json_object_new_object();
		int nvm = 0, nth = 0;

		if (!c)
			break;
		for (v = 0; v < s->nvm; v++)
			if (s->vm[v].cls == k) {
				nvm++;
				nth += s->vm[v].n;
			}
		json_object_object_add(c, "class",
		    json_object_new_string(s->cls_name[k]));
		json_object_object_add(c, "vms", json_object_new_int(nvm));
		json_object_object_add(c, "vcpus", json_object_new_int(nth));
		add_d(c, "throughput", st->useful_ns / (double)s->p.measure_ns);
		add_d(c, "p50_ns", stats_quantile(st, 0.50));
		add_d(c, "p99_ns", stats_quantile(st, 0.99));
		add_d(c, "p999_ns", stats_quantile(st, 0.999));
		add_d(c, "poll_share", share(st->poll_hits, st->wakes));
		json_object_array_add(a, c);
	}
	json_object_object_add(o, "vm_classes", a);
}

/*
 * The host tasks' own figures (hosttasks.c), for every strategy: their
 * share of the host's PU time, their wake-ups, the latency of those
 * wake-ups, and the share of their time from wake-up to the end of their
 * burst spent waiting for a PU.
 */
static void
add_host(json_object *o, const struct sim *s)
{
	const struct sim_stats *h = &s->host_st;
	double secs = (double)s->p.measure_ns / 1e9;
	double pu_ns = (double)s->p.measure_ns * s->t->npus;

	json_object_object_add(o, "host_tasks",
	    json_object_new_int(s->nth - s->nvcpu));
	add_d(o, "host_share", pu_ns > 0 ? s->host_run_ns / pu_ns : 0);
	add_d(o, "host_wakes_per_s", (double)h->wakes / secs);
	add_d(o, "host_p50_ns", stats_quantile(h, 0.50));
	add_d(o, "host_p99_ns", stats_quantile(h, 0.99));
	add_d(o, "host_wait_share", s->host_wait_ns + s->host_run_ns > 0 ?
	    s->host_wait_ns / (s->host_wait_ns + s->host_run_ns) : 0);
}

char *
report_json(const struct sim *s, const struct run_cfg *c)
{
	const struct sim_stats *st = &s->st;
	double secs = (double)s->p.measure_ns / 1e9;
	json_object *o = json_object_new_object();
	char *line;

	if (!o)
		return NULL;
	json_object_object_add(o, "topology",
	    json_object_new_string(c->topology));
	json_object_object_add(o, "workload",
	    json_object_new_string(workload_name(c->wl)));
	json_object_object_add(o, "load", json_object_new_int(c->load_pct));
	json_object_object_add(o, "strategy",
	    json_object_new_string(strategy_name(c->strat)));
	json_object_object_add(o, "seed", json_object_new_int64(
	    (int64_t)c->seed));
	json_object_object_add(o, "variant",
	    json_object_new_string(c->variant ? c->variant : ""));
	/* the cost table the run used: a CPU model's, or its family's */
	json_object_object_add(o, "cpu_table", json_object_new_string(
	    s->p.cpu ? s->p.cpu->name : cpu_models[ncpu_models - 1].name));
	json_object_object_add(o, "vms", json_object_new_int(s->nvm));
	json_object_object_add(o, "vcpus", json_object_new_int(s->nvcpu));
	add_d(o, "throughput", st->useful_ns / (double)s->p.measure_ns);
	add_d(o, "bound", s->bound);
	add_d(o, "overhead", st->overhead_ns / (double)s->p.measure_ns);
	/* over the wake-ups that waited (a poll hit did not: poll_share);
	 * *_all_ns count the poll hits as 0 ns, as the older model did */
	add_d(o, "p50_ns", stats_quantile(st, 0.50));
	add_d(o, "p99_ns", stats_quantile(st, 0.99));
	add_d(o, "p999_ns", stats_quantile(st, 0.999));
	add_d(o, "p50_all_ns", stats_quantile_with(st, 0.50, st->poll_hits));
	add_d(o, "p99_all_ns", stats_quantile_with(st, 0.99, st->poll_hits));
	add_d(o, "poll_share", share(st->poll_hits, st->wakes));
	if (s->wl == WL_SCHBENCH) {
		/* every request's wait from post to start, poll hits as
		 * 0 ns (workload.c) */
		add_d(o, "request_wait_p99_ns",
		    stats_quantile(&s->req_st, 0.99));
		add_d(o, "requests_per_s", (double)s->req_st.nlat / secs);
	}
	add_d(o, "probes_per_wake", share(st->probes, st->wakes));
	add_d(o, "busy_sibling_share", share(st->busy_sibling, st->wakes));
	add_d(o, "cross_cluster_share", share(st->cross_cluster, st->wakes));
	add_d(o, "cross_llc_share", share(st->cross_llc, st->wakes));
	add_d(o, "migrations_per_s", (double)st->migrations / secs);
	add_d(o, "wakes_per_s", (double)st->wakes / secs);
	/* the host costs (costs.c): each one's total in the measured time */
	add_d(o, "migr_cost_ns", st->migr_cost_ns);
	add_d(o, "cstate_ns", st->cstate_ns);
	add_d(o, "poll_ns", st->poll_ns);
	add_d(o, "idle_upkeep_ns", st->idle_upkeep_ns);
	add_d(o, "kick_ns", st->kick_ns);
	add_d(o, "dsq_lock_ns", st->dsq_lock_ns);
	add_d(o, "resched_ns", st->resched_ns);
	add_d(o, "poll_hit_share", share(st->poll_hits, st->wakes));
	add_classes(o, s);
	if (s->cores)
		json_object_object_add(o, "grants",
		    json_object_new_int(cores_granted(s)));
	add_host(o, s);
	json_object_object_add(o, "errors", json_object_new_int(s->errors));
	line = strdup(json_object_to_json_string_ext(o,
	    JSON_C_TO_STRING_PLAIN));
	json_object_put(o);
	return line;
}
