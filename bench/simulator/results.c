/*
 * results.c - the sweep's figures as the tables read them: the mean over
 * seeds of one point, with min..max, and the file helpers every table
 * writer shares.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim.h"

static void
lo_hi(double v, double *lo, double *hi, bool first)
{
	if (first || v < *lo)
		*lo = v;
	if (first || v > *hi)
		*hi = v;
}

struct agg
results_find(const struct sweep *sw, int topo, int wl, int load, int strat,
    const char *variant)
{
	struct agg a = { 0 };
	int i;

	for (i = 0; i < sw->npt; i++) {
		const struct point *p = &sw->pt[i];
		const struct result *r = &sw->res[i];

		if (p->topo != topo || (int)p->wl != wl ||
		    p->load_pct != load || (int)p->strat != strat ||
		    strcmp(p->variant, variant) || !r->ok)
			continue;
		lo_hi(r->thr, &a.thr_lo, &a.thr_hi, !a.n);
		lo_hi(r->p99, &a.p99_lo, &a.p99_hi, !a.n);
		a.n++;
		a.thr += r->thr;
		a.p50 += r->p50;
		a.p99 += r->p99;
		a.probes += r->probes;
		a.bs += r->bs;
		a.xcl += r->xcl;
		a.xllc += r->xllc;
		a.mig += r->mig;
		a.bound += r->bound;
		a.poll_share += r->poll_share;
		a.lat_p99 += r->lat_p99;
		a.host_p99 += r->host_p99;
	}
	if (a.n) {
		a.thr /= a.n;
		a.p50 /= a.n;
		a.p99 /= a.n;
		a.probes /= a.n;
		a.bs /= a.n;
		a.xcl /= a.n;
		a.xllc /= a.n;
		a.mig /= a.n;
		a.bound /= a.n;
		a.poll_share /= a.n;
		a.lat_p99 /= a.n;
		a.host_p99 /= a.n;
	}
	return a;
}

double
results_ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

bool
results_pair_next(const struct sweep *sw, bool heldout, int load, int strat,
    const char *variant, struct results_pair *p)
{
	for (; p->t < sw->ntopo; p->t++, p->w = -1) {
		if (sw->topo[p->t].heldout != heldout)
			continue;
		while (++p->w < WL_COUNT) {
			p->stock = results_find(sw, p->t, p->w, load,
			    STRAT_STOCK, variant);
			p->a = strat == STRAT_STOCK ? p->stock :
			    results_find(sw, p->t, p->w, load, strat, variant);
			if (p->a.n && p->stock.n)
				return true;
		}
	}
	return false;
}

FILE *
results_open(const struct sweep *sw, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", sw->outdir, name);
	return fopen(path, "w");
}

int
results_plot(const struct sweep *sw, const char *name)
{
	char cmd[4096];

	snprintf(cmd, sizeof(cmd), "cd '%s/plots' && gnuplot '%s.gp'",
	    sw->outdir, name);
	return system(cmd) == 0 ? 0 : -1;
}
