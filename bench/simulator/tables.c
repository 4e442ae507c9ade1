/*
 * tables.c - the sweep's outputs: a markdown table per topology and
 * workload, throughput and p99 plots (gnuplot, PNG and SVG), the seed
 * comparison, the sensitivity table and the targets, in OUTDIR.  Every
 * figure is the mean of the seeds; spreads are min..max over seeds.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "sim.h"

struct agg {
	int n;
	double thr, thr_lo, thr_hi, p50, p99, p99_lo, p99_hi;
	double probes, bs, xcl, xllc, mig;
};

/* Mean over the seeds of one (topology, workload, load, strategy,
 * variant); n = 0 when no point matched. */
static struct agg
find(const struct sweep *sw, int topo, int wl, int load, int strat,
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
		if (!a.n || r->thr < a.thr_lo)
			a.thr_lo = r->thr;
		if (!a.n || r->thr > a.thr_hi)
			a.thr_hi = r->thr;
		if (!a.n || r->p99 < a.p99_lo)
			a.p99_lo = r->p99;
		if (!a.n || r->p99 > a.p99_hi)
			a.p99_hi = r->p99;
		a.n++;
		a.thr += r->thr;
		a.p50 += r->p50;
		a.p99 += r->p99;
		a.probes += r->probes;
		a.bs += r->bs;
		a.xcl += r->xcl;
		a.xllc += r->xllc;
		a.mig += r->mig;
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
	}
	return a;
}

/* The rows of every table and the lines of every plot. */
static const struct series {
	enum strategy strat;
	const char *variant;
	const char *label;
} series[] = {
	{ STRAT_STOCK, "", "stock" },
	{ STRAT_PINNED, "", "pinned" },
	{ STRAT_DAEMON, "", "daemon" },
	{ STRAT_SCX, "", "scx" },
	{ STRAT_GREEDY, "", "greedy" },
	{ STRAT_DAEMON, "loc=any", "daemon-any" },
	{ STRAT_SCX, "loc=any", "scx-any" },
};
#define NSERIES	((int)(sizeof(series) / sizeof(*series)))

/* "g4dnmetal.xml" -> "g4dnmetal" into @buf. */
static const char *
base(const char *name, char *buf, size_t len)
{
	const char *dot = strrchr(name, '.');
	size_t n = dot ? (size_t)(dot - name) : strlen(name);

	snprintf(buf, len, "%.*s", (int)(n < len ? n : len - 1), name);
	return buf;
}

static FILE *
open_out(const struct sweep *sw, const char *name)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", sw->outdir, name);
	return fopen(path, "w");
}

static void
write_table(const struct sweep *sw, int topo, int wl, FILE *f)
{
	int i, st;

	fprintf(f, "| load | strategy | throughput (cores) | min..max | "
	    "p50 us | p99 us | p99 min..max | probes/wake | "
	    "busy-sibling %% | x-cluster %% | x-LLC %% | migrations/s |\n"
	    "|---:|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|\n");
	for (i = 0; i < sw->nloads; i++)
		for (st = 0; st < NSERIES; st++) {
			struct agg a = find(sw, topo, wl, sw->loads[i],
			    series[st].strat, series[st].variant);

			if (!a.n)
				continue;
			fprintf(f, "| %d %% | %s | %.2f | %.2f..%.2f | %.1f | "
			    "%.1f | %.1f..%.1f | %.2f | %.1f | %.1f | %.1f | "
			    "%.0f |\n", sw->loads[i], series[st].label, a.thr,
			    a.thr_lo, a.thr_hi, a.p50 / 1e3, a.p99 / 1e3,
			    a.p99_lo / 1e3, a.p99_hi / 1e3, a.probes,
			    100 * a.bs, 100 * a.xcl, 100 * a.xllc, a.mig);
		}
}

/* One .dat row per load: per strategy thr, lo, hi, p99 us, lo, hi. */
static int
write_plot(const struct sweep *sw, int topo, int wl, const char *name)
{
	char path[4096];
	FILE *f;
	int i, st;

	snprintf(path, sizeof(path), "%s/plots/%s.dat", sw->outdir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	for (i = 0; i < sw->nloads; i++) {
		fprintf(f, "%d", sw->loads[i]);
		for (st = 0; st < NSERIES; st++) {
			struct agg a = find(sw, topo, wl, sw->loads[i],
			    series[st].strat, series[st].variant);

			/* log scale: a zero latency plots at 10 ns */
			fprintf(f, " %.4f %.4f %.4f %.4f %.4f %.4f", a.thr,
			    a.thr_lo, a.thr_hi, a.p99 / 1e3 + 0.01,
			    a.p99_lo / 1e3 + 0.01, a.p99_hi / 1e3 + 0.01);
		}
		fputc('\n', f);
	}
	fclose(f);
	snprintf(path, sizeof(path), "%s/plots/%s.gp", sw->outdir, name);
	if (!(f = fopen(path, "w")))
		return -1;
	fprintf(f, "names = 'stock pinned daemon vcpuplace oracle "
	    "daemon-any vcpuplace-any'\n"
	    "set grid\nset key top left\nset xlabel 'load (%% of cores)'\n"
	    "set title '%s: throughput (mean, min..max of 3 seeds)'\n"
	    "set ylabel 'useful work (cores)'\n"
	    "set terminal pngcairo size 800,500\n"
	    "set output '%s-throughput.png'\n"
	    "plot for [s=0:6] '%s.dat' using 1:(column(2+6*s)):"
	    "(column(3+6*s)):(column(4+6*s)) with yerrorlines "
	    "title word(names, s+1)\n"
	    "set terminal svg size 800,500\nset output '%s-throughput.svg'\n"
	    "replot\n"
	    "set title '%s: p99 wake-to-run latency'\n"
	    "set ylabel 'p99 (us, log)'\nset logscale y\n"
	    "set terminal pngcairo size 800,500\nset output '%s-p99.png'\n"
	    "plot for [s=0:6] '%s.dat' using 1:(column(5+6*s)):"
	    "(column(6+6*s)):(column(7+6*s)) with yerrorlines "
	    "title word(names, s+1)\n"
	    "set terminal svg size 800,500\nset output '%s-p99.svg'\n"
	    "replot\n", name, name, name, name, name, name, name, name);
	fclose(f);
	snprintf(path, sizeof(path), "cd '%s/plots' && gnuplot '%s.gp'",
	    sw->outdir, name);
	return system(path) == 0 ? 0 : -1;
}

static double
ratio(double a, double b)
{
	return b > 0 ? a / b : 0;
}

/* The targets at 100..150 % and the probe target at 90 %. */
static void
write_targets(const struct sweep *sw, FILE *f, const char *variant)
{
	static const int at[] = { 100, 125, 150 };
	char b[256];
	int t, w, i;

	fprintf(f, "## Targets: vcpuplace%s%s against stock and oracle\n\n",
	    variant[0] ? " " : "", variant);
	fprintf(f, "Targets: throughput >= 1.15 x stock, p99 <= 0.70 x stock, "
	    "throughput >= 0.95 x oracle.\n\n"
	    "| topology | workload | load | thr vcpuplace/stock | "
	    "p99 vcpuplace/stock | thr vcpuplace/oracle | met |\n"
	    "|---|---|---:|---:|---:|---:|---|\n");
	for (t = 0; t < sw->ntopo; t++)
		for (w = 0; w < WL_COUNT; w++)
			for (i = 0; i < 3; i++) {
				struct agg s = find(sw, t, w, at[i], STRAT_STOCK, "");
				struct agg v = find(sw, t, w, at[i],
				    STRAT_SCX, variant);
				struct agg o = find(sw, t, w, at[i], STRAT_GREEDY,
				    "");
				double rt = ratio(v.thr, s.thr);
				double rp = ratio(v.p99, s.p99);
				double ro = ratio(v.thr, o.thr);

				fprintf(f, "| %s | %s | %d %% | %.3f | %.3f | "
				    "%.3f | %s |\n", base(sw->topo[t], b,
				    sizeof(b)), workload_name(w), at[i], rt, rp,
				    ro, rt >= 1.15 && rp <= 0.70 && ro >= 0.95 ?
				    "yes" : "no");
			}
	fprintf(f, "\n## Probes per wake-up at 90 %% load, vcpuplace%s%s "
	    "(target: <= 1/4 of stock)\n\n", variant[0] ? " " : "", variant);
	fprintf(f, "| topology | workload | stock | vcpuplace | ratio | met |\n"
	    "|---|---|---:|---:|---:|---|\n");
	for (t = 0; t < sw->ntopo; t++)
		for (w = 0; w < WL_COUNT; w++) {
			struct agg s = find(sw, t, w, 90, STRAT_STOCK, "");
			struct agg v = find(sw, t, w, 90, STRAT_SCX,
			    variant);
			double r = ratio(v.probes, s.probes);

			fprintf(f, "| %s | %s | %.2f | %.2f | %.3f | %s |\n",
			    base(sw->topo[t], b, sizeof(b)), workload_name(w),
			    s.probes, v.probes, r, r <= 0.25 ? "yes" : "no");
		}
}

/*
 * Runs that beat their declared bound (bound.c), any strategy, model or
 * variant; the bound is a proof, so any such run is a bug.  Returns the
 * count.
 */
static int
write_bound_check(const struct sweep *sw, FILE *f)
{
	char b[256];
	int i, n = 0;

	fprintf(f, "\n## Bound violations (throughput above bound.c's "
	    "bound)\n\n| topology | workload | load | seed | strategy | "
	    "variant | thr | bound |\n|---|---|---:|---:|---|---|---:|---:|\n");
	for (i = 0; i < sw->npt; i++) {
		const struct point *p = &sw->pt[i];
		const struct result *r = &sw->res[i];

		if (!r->ok || r->thr <= r->bound * (1 + 1e-9))
			continue;
		n++;
		fprintf(f, "| %s | %s | %d %% | %llu | %s | %s | %.3f | %.3f "
		    "|\n", base(sw->topo[p->topo], b, sizeof(b)),
		    workload_name(p->wl), p->load_pct,
		    (unsigned long long)p->seed, strategy_name(p->strat),
		    p->variant, r->thr, r->bound);
	}
	fprintf(f, "\n%d run(s) beat the bound.\n", n);
	return n;
}

/* Throughput change of @a over @b, in percent. */
static double
gain(struct agg a, struct agg b)
{
	return b.thr > 0 ? 100 * (a.thr / b.thr - 1) : 0;
}

static void
write_seeds(const struct sweep *sw, FILE *f)
{
	int t, w, i;

	fprintf(f, "# Seed comparison: throughput change, %% (mean of 3 "
	    "seeds)\n\n");
	for (t = 0; t < sw->ntopo; t++) {
		const char *feat = t == 0 ? "-SIS_CORE" : "-CLUSTER_FIRST";

		fprintf(f, "## %s, %s (seed %s)\n\n| load | workload | "
		    "vcpuplace vs stock | vcpuplace: %s on vs off | "
		    "stock: %s on vs off |\n|---:|---|---:|---:|---:|\n",
		    sw->topo[t], feat + 1, t == 0 ? "000" : "003", feat + 1,
		    feat + 1);
		for (w = 0; w < 2; w++)
			for (i = 0; i < sw->nloads; i++) {
				int l = sw->loads[i];
				struct agg s = find(sw, t, w, l, STRAT_STOCK, "");
				struct agg v = find(sw, t, w, l, STRAT_SCX,
				    "");
				struct agg voff = find(sw, t, w, l,
				    STRAT_SCX, feat);
				struct agg soff = find(sw, t, w, l, STRAT_STOCK,
				    feat);

				fprintf(f, "| %d %% | %s | %+.1f | %+.1f | ", l,
				    workload_name(w), gain(v, s), gain(v, voff));
				/* the stock model has a cluster pass to turn
				 * off, but no SIS_CORE */
				if (soff.n)
					fprintf(f, "%+.1f |\n", gain(s, soff));
				else
					fprintf(f, "n/a |\n");
			}
		fputc('\n', f);
	}
}

static void
write_sensitivity(const struct sweep *sw, FILE *f)
{
	static const char *const vars[] = { "", "smt=0.55", "smt=0.75",
	    "warm=0", "warm=0.5", "warm=2" };
	int t, k;

	fprintf(f, "# Sensitivity: hackbench at 125 %% (mean of 3 seeds)\n\n"
	    "Default: smt_yield 0.65, warm_scale 1.\n\n"
	    "| topology | variant | stock | vcpuplace | oracle | "
	    "thr vcpuplace/stock | p99 vcpuplace/stock |\n"
	    "|---|---|---:|---:|---:|---:|---:|\n");
	for (t = 0; t < sw->ntopo; t++)
		for (k = 0; k < 6; k++) {
			struct agg s = find(sw, t, WL_HACKBENCH, 125,
			    STRAT_STOCK, vars[k]);
			struct agg v = find(sw, t, WL_HACKBENCH, 125,
			    STRAT_SCX, vars[k]);
			struct agg o = find(sw, t, WL_HACKBENCH, 125,
			    STRAT_GREEDY, vars[k]);

			if (!s.n)
				continue;
			fprintf(f, "| %s | %s | %.2f | %.2f | %.2f | %.3f | "
			    "%.3f |\n", sw->topo[t], vars[k][0] ? vars[k] :
			    "default", s.thr, v.thr, o.thr, ratio(v.thr, s.thr),
			    ratio(v.p99, s.p99));
		}
}

int
tables_write(const struct sweep *sw)
{
	char name[512], b[256], path[4096], fname[600];
	struct agg s, v;
	FILE *f;
	int t, w, r = 0, nviol;

	snprintf(path, sizeof(path), "%s/plots", sw->outdir);
	if (mkdir(path, 0755) < 0 && errno != EEXIST)
		return -1;
	for (t = 0; t < sw->ntopo; t++)
		for (w = 0; w < WL_COUNT; w++) {
			snprintf(name, sizeof(name), "%s-%s",
			    base(sw->topo[t], b, sizeof(b)), workload_name(w));
			snprintf(fname, sizeof(fname), "%s.md", name);
			if (!(f = open_out(sw, fname)))
				return -1;
			fprintf(f, "# %s, %s\n\nMean of %d seeds.  Throughput: "
			    "useful work in cores; latencies in us.\n\n",
			    sw->topo[t], workload_name(w), sw->nseeds);
			write_table(sw, t, w, f);
			fclose(f);
			r |= write_plot(sw, t, w, name);
		}
	if (!(f = open_out(sw, "summary.md")))
		return -1;
	write_targets(sw, f, "");
	fputc('\n', f);
	write_targets(sw, f, "loc=any");
	nviol = write_bound_check(sw, f);
	fclose(f);
	if (!(f = open_out(sw, "seeds.md")))
		return -1;
	write_seeds(sw, f);
	fclose(f);
	if (!(f = open_out(sw, "sensitivity.md")))
		return -1;
	write_sensitivity(sw, f);
	fclose(f);
	printf("bench: tables and plots in %s/\n", sw->outdir);
	s = find(sw, 0, WL_HACKBENCH, 125, STRAT_STOCK, "");
	v = find(sw, 0, WL_HACKBENCH, 125, STRAT_SCX, "");
	printf("vcpuplace_vs_stock_throughput_at_125=%.3f "
	    "p99_ratio_at_125=%.3f bound_violations=%d\n",
	    ratio(v.thr, s.thr), ratio(v.p99, s.p99), nviol);
	fflush(stdout);
	return r;
}
