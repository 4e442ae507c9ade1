/*
 * tables.c - one markdown table and two plots (throughput, p99; gnuplot,
 * PNG and SVG) per topology and workload, for both sets, in OUTDIR.
 * Every figure is the mean of the seeds; spreads are min..max.  Then the
 * other writers (summary.c, curves.c, seeds.c); the summary's line is
 * printed last.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim.h"

/* The rows of every table and the lines of every plot. */
static const struct series {
	enum strategy strat;
	const char *variant;
	const char *label;
} series[] = {
	{ STRAT_STOCK, "", "stock" },
	{ STRAT_PINNED, "", "pinned" },
	{ STRAT_DAEMON, "", "daemon" },
	{ STRAT_DAEMON_CORES, "", "daemon-cores" },
	{ STRAT_SCX, "", "scx" },
	{ STRAT_SIS_CORE, "", "sis-core" },
	{ STRAT_GREEDY, "", "greedy" },
};
#define NSERIES	((int)(sizeof(series) / sizeof(*series)))

static void
write_table(const struct sweep *sw, int topo, int wl, FILE *f)
{
	const int *loads;
	int i, st, n;

	points_loads(sw->topo[topo].heldout, &loads, &n);
	fprintf(f, "| load | strategy | throughput (cores) | min..max | "
	    "bound | p50 us | p99 us | p99 min..max | probes/wake | "
	    "busy-sibling %% | x-cluster %% | x-LLC %% | migrations/s |\n"
	    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
	    "---:|\n");
	for (i = 0; i < n; i++)
		for (st = 0; st < NSERIES; st++) {
			struct agg a = results_find(sw, topo, wl, loads[i],
			    series[st].strat, series[st].variant);

			if (!a.n)
				continue;
			fprintf(f, "| %d %% | %s | %.2f | %.2f..%.2f | %.2f | "
			    "%.1f | %.1f | %.1f..%.1f | %.2f | %.1f | %.1f | "
			    "%.1f | %.0f |\n", loads[i], series[st].label,
			    a.thr, a.thr_lo, a.thr_hi, a.bound, a.p50 / 1e3,
			    a.p99 / 1e3, a.p99_lo / 1e3, a.p99_hi / 1e3,
			    a.probes, 100 * a.bs, 100 * a.xcl, 100 * a.xllc,
			    a.mig);
		}
}

/* One .dat row per load: per series thr, lo, hi, p99 us, lo, hi. */
static int
write_plot(const struct sweep *sw, int topo, int wl, const char *name)
{
	const int *loads;
	char path[4096];
	FILE *f;
	int i, st, n;

	points_loads(sw->topo[topo].heldout, &loads, &n);
	snprintf(path, sizeof(path), "%s/plots/%s.dat", sw->outdir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	for (i = 0; i < n; i++) {
		fprintf(f, "%d", loads[i]);
		for (st = 0; st < NSERIES; st++) {
			struct agg a = results_find(sw, topo, wl, loads[i],
			    series[st].strat, series[st].variant);

			/* a missing series is NaN, which gnuplot skips; a
			 * zero latency plots at 10 ns (log scale) */
			if (!a.n)
				fputs(" NaN NaN NaN NaN NaN NaN", f);
			else
				fprintf(f, " %.4f %.4f %.4f %.4f %.4f %.4f",
				    a.thr, a.thr_lo, a.thr_hi,
				    a.p99 / 1e3 + 0.01, a.p99_lo / 1e3 + 0.01,
				    a.p99_hi / 1e3 + 0.01);
		}
		fputc('\n', f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/plots/%s.gp", sw->outdir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	fputs("names = '", f);
	for (st = 0; st < NSERIES; st++)
		fprintf(f, "%s%s", st ? " " : "", series[st].label);
	fprintf(f, "'\nset grid\nset key top left\n"
	    "set xlabel 'load (%% of cores)'\n"
	    "set title '%s: throughput (mean, min..max of the seeds)'\n"
	    "set ylabel 'useful work (cores)'\n"
	    "set terminal svg size 900,560\n"
	    "set output '%s-throughput.svg'\n"
	    "plot for [s=0:%d] '%s.dat' using 1:(column(2+6*s)):"
	    "(column(3+6*s)):(column(4+6*s)) with yerrorlines "
	    "title word(names, s+1)\n"
	    "set title '%s: p99 wake-to-run latency'\n"
	    "set ylabel 'p99 (us, log)'\nset logscale y\n"
	    "set output '%s-p99.svg'\n"
	    "plot for [s=0:%d] '%s.dat' using 1:(column(5+6*s)):"
	    "(column(6+6*s)):(column(7+6*s)) with yerrorlines "
	    "title word(names, s+1)\n", name, name, NSERIES - 1, name, name,
	    name, NSERIES - 1, name);
	fclose(f);
	return results_plot(sw, name);
}

int
tables_write(const struct sweep *sw)
{
	char name[512], path[4096], fname[600];
	FILE *f;
	int t, w, r = 0;

	snprintf(path, sizeof(path), "%s/plots", sw->outdir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -1;
	for (t = 0; t < sw->ntopo; t++)
		for (w = 0; w < WL_COUNT; w++) {
			snprintf(name, sizeof(name), "%s-%s",
			    sw->topo[t].label, workload_name(w));
			snprintf(fname, sizeof(fname), "%s.md", name);
			if (!(f = results_open(sw, fname)))
				return -1;
			fprintf(f, "# %s (%s), %s\n\n%s set.  Mean of 3 "
			    "seeds.  Throughput: useful work in cores; bound: "
			    "bound.c's upper bound; latencies in us.\n\n",
			    sw->topo[t].label, sw->topo[t].file,
			    workload_name(w), sw->topo[t].heldout ?
			    "Held-out" : "Tuning");
			write_table(sw, t, w, f);
			fclose(f);
			r |= write_plot(sw, t, w, name);
		}
	r |= seeds_write(sw);
	r |= curves_write(sw);
	/* last: it prints the line `make bench` ends with */
	r |= summary_write(sw);
	return r ? -1 : 0;
}
