/*
 * run.c - one point: a topology, a workload at a load, a strategy and
 * a seed, from setup to its JSON line.  Everything a run owns is freed
 * here; the topology is the caller's.
 */
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void
sim_free(struct sim *s)
{
	host_release(s);
	classes_release(s);
	scx_release(s);
	cores_release(s);
	workload_release(s);
	free(s->th);
	free(s->vm);
	free(s->allowed);
}

char *
run_point(const struct vp_topo *t, const struct run_cfg *c,
    const struct run_opts *o, int *ret_errors)
{
	struct sim s;
	char *line = NULL;

	memset(&s, 0, sizeof(s));
	s.t = t;
	s.p = o->p;
	s.feat = o->feat;
	s.strat = c->strat;
	s.wl = c->wl;
	s.check = o->check;
	s.policy = o->policy;
	if (host_init(&s) < 0 || workload_create(&s, c->load_pct, c->seed) < 0 ||
	    classes_setup(&s, o) < 0 || strategy_setup(&s) < 0) {
		s.errors++;
		goto out;
	}
	s.bound = bound_compute(&s);
	if (host_run(&s) < 0 && !s.errors)
		s.errors++;
	line = report_json(&s, c);
out:
	*ret_errors = s.errors;
	sim_free(&s);
	return line;
}
