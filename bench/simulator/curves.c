/*
 * curves.c - sensitivity.md and its plots: the throughput gain of scx
 * over stock against the SMT yield (0.5..0.9), the whole cost of a vCPU
 * migration (1..20 us), the BPF scan step and the weight of a polling
 * SMT sibling (0..1), hackbench and
 * tbench at 125 %, each topology on its own, and where each curve crosses
 * 1.0: the break-even point.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "sim.h"


/* Ratio of @strat to stock at value @k of @c; 0 when not run. */
static double
gain_at(const struct sweep *sw, const struct curve *c, int k, int topo,
    int wl, int strat)
{
	char v[64];
	struct agg a, b;

	curve_tag(c, k, v, sizeof(v));
	a = results_find(sw, topo, wl, 125, strat, v);
	b = results_find(sw, topo, wl, 125, STRAT_STOCK, v);
	/* a knob stock does not have (BPF): stock's standard run */
	if (!b.n)
		b = results_find(sw, topo, wl, 125, STRAT_STOCK, "");
	return a.n && b.n ? results_ratio(a.thr, b.thr) : 0;
}

/*
 * Where @g (over @x, @n values) first falls to 1.0 or below, linearly
 * interpolated; x[0] - 1 when it starts at or below 1, x[n-1] + 1 when it
 * never gets there.
 */
double
curves_crossing(const double *x, const double *g, int n)
{
	int k;

	if (n <= 0 || g[0] <= 1)
		return n > 0 ? x[0] - 1 : 0;
	for (k = 1; k < n; k++)
		if (g[k] <= 1)
			return x[k - 1] + (g[k - 1] - 1) / (g[k - 1] - g[k]) *
			    (x[k] - x[k - 1]);
	return x[n - 1] + 1;
}

/* The held-out set's geometric-mean curve of scx over stock. */
static void
heldout_curve(const struct sweep *sw, const struct curve *c, double *g)
{
	int k, t, w, n;
	double ls;

	for (k = 0; k < c->n; k++) {
		ls = 0;
		n = 0;
		for (t = 0; t < sw->ntopo; t++)
			for (w = WL_HACKBENCH; w <= WL_TBENCH; w++) {
				double r;

				if (!sw->topo[t].heldout)
					continue;
				r = gain_at(sw, c, k, t, w, STRAT_SCX);
				if (r > 0) {
					ls += log(r);
					n++;
				}
			}
		g[k] = n ? exp(ls / n) : 0;
	}
}

double
curves_breakeven(const struct sweep *sw)
{
	double g[32];

	heldout_curve(sw, &migration_curve, g);
	return curves_crossing(migration_curve.x, g, migration_curve.n);
}

static void
print_crossing(FILE *f, const struct curve *c, double x)
{
	int n = c->n;

	if (x < c->x[0])
		fprintf(f, "below %g", c->x[0]);
	else if (x > c->x[n - 1])
		fprintf(f, "none up to %g", c->x[n - 1]);
	else
		fprintf(f, "%.2f", x);
}

/* One table (and .dat file) of a curve for @strat; 0 or -1. */
static int
write_curve(const struct sweep *sw, FILE *f, const struct curve *c,
    int strat, const char *name)
{
	char path[4096], names[4096] = "";
	double g[32], gh[32];
	int t, w, k, n = c->n, blocks = 0;
	size_t len;
	FILE *d;

	snprintf(path, sizeof(path), "%s/plots/%s.dat", sw->outdir, name);
	if (!(d = fopen(path, "w")))
		return -1;
	fprintf(f, "\n## %s over stock against the %s, 125 %%\n\n"
	    "| topology | set | workload |", strategy_name(strat), c->what);
	for (k = 0; k < n; k++)
		fprintf(f, " %g |", c->x[k]);
	fputs(" break-even |\n|---|---|---|", f);
	for (k = 0; k <= n; k++)
		fputs("---:|", f);
	fputc('\n', f);
	for (t = 0; t < sw->ntopo; t++)
		for (w = WL_HACKBENCH; w <= WL_TBENCH; w++) {
			for (k = 0; k < n; k++)
				g[k] = gain_at(sw, c, k, t, w, strat);
			if (g[0] <= 0)
				continue;	/* no SMT: no yield curve */
			fprintf(f, "| %s | %s | %s |", sw->topo[t].label,
			    sw->topo[t].heldout ? "held-out" : "tuning",
			    workload_name(w));
			len = strlen(names);
			snprintf(names + len, sizeof(names) - len, "%s%s/%s",
			    blocks ? " " : "", sw->topo[t].label,
			    workload_name(w));
			blocks++;
			for (k = 0; k < n; k++) {
				fprintf(f, " %.3f |", g[k]);
				fprintf(d, "%g %.4f\n", c->x[k], g[k]);
			}
			fputc(' ', f);
			print_crossing(f, c, curves_crossing(c->x, g, n));
			fputs(" |\n", f);
			fputs("\n\n", d);
		}
	if (strat == STRAT_SCX) {
		heldout_curve(sw, c, gh);
		fputs("| **held-out, geometric mean** | | |", f);
		for (k = 0; k < n; k++)
			fprintf(f, " %.3f |", gh[k]);
		fputc(' ', f);
		print_crossing(f, c, curves_crossing(c->x, gh, n));
		fputs(" |\n", f);
	}
	fclose(d);
	snprintf(path, sizeof(path), "%s/plots/%s.gp", sw->outdir, name);
	if (!(d = fopen(path, "w")))
		return -1;
	fprintf(d, "names = '%s'\nset grid\nset key outside right\n"
	    "set xlabel '%s'\n"
	    "set ylabel '%s / stock throughput'\n"
	    "set title '%s over stock, hackbench and tbench at 125 %%'\n"
	    "set terminal svg size 1000,560\nset output '%s.svg'\n"
	    "plot for [i=0:%d] '%s.dat' index i using 1:2 with linespoints "
	    "title word(names, i+1), 1 with lines lw 2 lc 'black' "
	    "title 'break-even'\n",
	    names, c->what, strategy_name(strat), strategy_name(strat), name,
	    blocks - 1, name);
	fclose(d);
	return results_plot(sw, name);
}

int
curves_write(const struct sweep *sw)
{
	FILE *f = results_open(sw, "sensitivity.md");
	int r = 0;

	if (!f)
		return -1;
	fprintf(f, "# Sensitivity\n\nThroughput of a strategy over stock "
	    "on the same seeds (mean of 3), hackbench and tbench at 125 %%. "
	    "The migration cost is the whole cost of a vCPU starting on "
	    "another core of its LLC (other distances scale with it); the "
	    "model's own, sourced value is in bench/README.md.  Break-even: "
	    "where the curve first reaches 1.0.\n");
	r |= write_curve(sw, f, &smt_curve, STRAT_SCX, "sens-smt-scx");
	r |= write_curve(sw, f, &migration_curve, STRAT_SCX,
	    "sens-migration-scx");
	r |= write_curve(sw, f, &bpf_curve, STRAT_SCX, "sens-bpf-scx");
	r |= write_curve(sw, f, &pollw_curve, STRAT_SCX, "sens-pollw-scx");
	r |= write_curve(sw, f, &kick_curve, STRAT_SCX, "sens-kick-scx");
	fclose(f);
	return r;
}
