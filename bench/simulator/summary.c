/*
 * summary.c - summary.md: every strategy against stock at each load, the
 * held-out set apart from the tuning set, the runs that beat the bound,
 * and the line `make bench` ends with:
 *
 *   heldout_scx_vs_stock_throughput_at_125=X heldout_p99_ratio_at_125=Y
 *   breakeven_migration_us=M bound_violations=K headroom_at_125=H
 *   poll_share_stock=A poll_share_scx=B latency_vm_p99_ratio_at_125=L
 *
 * X and Y are geometric means over every held-out topology and workload
 * at 125 % (each the mean of its 3 seeds); summary.md gives their range.
 * K counts the runs, of any strategy and family, whose throughput is
 * above bound.c's bound for the same run.  H is bound / stock over the
 * held-out pairs at 125 % (headroom.c; best / stock and best / bound
 * beside it in summary.md), A and B the mean share of wake-ups that were
 * halt-poll hits there, L scx's p99 over stock's for the latency-profile
 * VMs of the mix runs (FAM_MIX) only.
 */
#include <math.h>
#include <stdio.h>

#include "sim.h"

/* Strategies compared with stock, in table order. */
static const enum strategy cmp[] = {
	STRAT_PINNED, STRAT_DAEMON, STRAT_DAEMON_CORES, STRAT_SCX,
	STRAT_SIS_CORE, STRAT_GREEDY,
};
#define NCMP	((int)(sizeof(cmp) / sizeof(*cmp)))

/* Geometric mean and range of a strategy's ratio to stock. */
struct span {
	int n;
	double logsum, lo, hi;
};

static void
span_add(struct span *s, double r)
{
	if (r <= 0)
		return;
	if (!s->n || r < s->lo)
		s->lo = r;
	if (!s->n || r > s->hi)
		s->hi = r;
	s->n++;
	s->logsum += log(r);
}

static double
span_geo(const struct span *s)
{
	return s->n ? exp(s->logsum / s->n) : 0;
}

/* Ratios to stock over one set at @load: throughput (@p99 false) or p99;
 * @variant "" for the standard model. */
static struct span
variant_span(const struct sweep *sw, bool heldout, int load, int strat,
    bool p99, const char *variant)
{
	struct results_pair p = RESULTS_PAIR_START;
	struct span s = { 0 };

	while (results_pair_next(sw, heldout, load, strat, variant, &p))
		span_add(&s, p99 ? results_ratio(p.a.p99, p.stock.p99) :
		    results_ratio(p.a.thr, p.stock.thr));
	return s;
}

static struct span
set_span(const struct sweep *sw, bool heldout, int load, int strat, bool p99)
{
	return variant_span(sw, heldout, load, strat, p99, "");
}

/* Prints " geo (lo..hi) |", or " - |" when nothing was run. */
static void
print_span(FILE *f, const struct span *s)
{
	if (!s->n)
		fputs(" - |", f);
	else
		fprintf(f, " %.3f (%.3f..%.3f) |", span_geo(s), s->lo, s->hi);
}

/* A table's strategy columns, after its lead columns: their names, then
 * the separator row, which starts with @rule (the lead's alignment). */
static void
cmp_header(FILE *f, const char *rule)
{
	int k;

	for (k = 0; k < NCMP; k++)
		fprintf(f, " %s |", strategy_name(cmp[k]));
	fprintf(f, "\n%s", rule);
	for (k = 0; k < NCMP; k++)
		fputs("---|", f);
	fputc('\n', f);
}

/* With KVM's halt polling off, both sets at 125 %. */
static void
write_nopoll(const struct sweep *sw, FILE *f)
{
	int k, m, h;

	fprintf(f, "\n## KVM halt polling off (halt_poll_ns = 0), 125 %%\n\n"
	    "Geometric mean over topologies and workloads (min..max), "
	    "against stock with polling off too.\n\n| set | figure |");
	cmp_header(f, "|---|---|");
	for (h = 1; h >= 0; h--)
		for (m = 0; m < 2; m++) {
			fprintf(f, "| %s | %s |", h ? "held-out" : "tuning",
			    m ? "p99" : "throughput");
			for (k = 0; k < NCMP; k++) {
				struct span s = variant_span(sw, h, 125,
				    cmp[k], m, "nopoll");

				print_span(f, &s);
			}
			fputc('\n', f);
		}
}

/* Per load: each strategy's geometric mean ratio to stock and range. */
static void
write_set(const struct sweep *sw, FILE *f, bool heldout)
{
	const int *loads;
	int n, i, k, m;

	points_loads(heldout, &loads, &n);
	for (m = 0; m < 2; m++) {
		fprintf(f, "\n### %s against stock, geometric mean over "
		    "topologies and workloads (min..max)\n\n| load |%s",
		    m ? "p99 wake-to-run latency" : "Throughput",
		    m ? "" : " bound / stock | best / stock |");
		cmp_header(f, m ? "|---:|" : "|---:|---:|---:|");
		for (i = 0; i < n; i++) {
			fprintf(f, "| %d %% |", loads[i]);
			if (!m) {
				struct headroom h = headroom_of(sw, heldout,
				    loads[i], -1);

				fprintf(f, " %.3f | %.3f |", h.bound_stock,
				    h.best_stock);
			}
			for (k = 0; k < NCMP; k++) {
				struct span s = set_span(sw, heldout, loads[i],
				    cmp[k], m);

				print_span(f, &s);
			}
			fputc('\n', f);
		}
	}
}

/* At 125 %: one row per topology and workload of the set. */
static void
write_points(const struct sweep *sw, FILE *f, bool heldout)
{
	int t, w, k;

	fprintf(f, "\n### Each topology and workload at 125 %%: throughput "
	    "ratio to stock / p99 ratio to stock\n\n| topology | workload "
	    "| stock (cores) | bound | bound / stock | best / bound |");
	cmp_header(f, "|---|---|---:|---:|---:|---:|");
	for (t = 0; t < sw->ntopo; t++) {
		if (sw->topo[t].heldout != heldout)
			continue;
		for (w = 0; w < WL_COUNT; w++) {
			struct agg b = results_find(sw, t, w, 125,
			    STRAT_STOCK, "");

			struct headroom h = headroom_pair(sw, t, w, 125);

			fprintf(f, "| %s | %s | %.2f | %.2f | %.3f | %.3f |",
			    sw->topo[t].label, workload_name(w), b.thr,
			    b.bound, h.bound_stock, h.best_bound);
			for (k = 0; k < NCMP; k++) {
				struct agg a = results_find(sw, t, w, 125,
				    cmp[k], "");

				if (!a.n)
					fputs(" - |", f);
				else
					fprintf(f, " %.3f / %.2f |",
					    results_ratio(a.thr, b.thr),
					    results_ratio(a.p99, b.p99));
			}
			fputc('\n', f);
		}
	}
}

static bool
above_bound(const struct result *r)
{
	return r->ok && r->bound > 0 && r->thr > r->bound * (1 + 1e-9);
}

int
summary_bound_violations(const struct sweep *sw)
{
	int i, k = 0;

	/* a run without a bound cannot be checked: it counts as a
	 * violation rather than let a missing bound pass */
	for (i = 0; i < sw->npt; i++)
		if (above_bound(&sw->res[i]) ||
		    (sw->res[i].ok && sw->res[i].bound <= 0))
			k++;
	return k;
}

/* Every run above its bound, listed. */
static void
write_bound_check(const struct sweep *sw, FILE *f)
{
	int i, k = 0, nb = 0;

	fprintf(f, "\n## Runs above the bound\n\n| topology | workload | "
	    "load | strategy | variant | seed | throughput | bound |\n"
	    "|---|---|---:|---|---|---:|---:|---:|\n");
	for (i = 0; i < sw->npt; i++) {
		const struct point *p = &sw->pt[i];
		const struct result *r = &sw->res[i];

		if (!r->ok)
			continue;
		if (r->bound > 0)
			nb++;
		if (!above_bound(r))
			continue;
		k++;
		fprintf(f, "| %s | %s | %d %% | %s | %s | %llu | %.3f | "
		    "%.3f |\n", sw->topo[p->topo].label, workload_name(p->wl),
		    p->load_pct, strategy_name(p->strat), p->variant,
		    (unsigned long long)p->seed, r->thr, r->bound);
	}
	fprintf(f, "\n%d of %d runs above their bound (%d runs had one).\n",
	    k, sw->npt, nb);
}

/*
 * Per workload at each load of the set: the bound's headroom over stock,
 * what the best strategy reached, and so how tight the bound is at least
 * (headroom.c).
 */
static void
write_headroom(const struct sweep *sw, FILE *f, bool heldout)
{
	const int *loads;
	int n, i, w;

	points_loads(heldout, &loads, &n);
	fprintf(f, "\n### Headroom: bound / stock, best / stock, best / bound "
	    "(%s set)\n\nThe true headroom lies between best / stock (some "
	    "strategy reached it) and bound / stock (none can pass it).\n\n"
	    "| workload |", heldout ? "held-out" : "tuning");
	for (i = 0; i < n; i++)
		fprintf(f, " %d %% |", loads[i]);
	fputs("\n|---|", f);
	for (i = 0; i < n; i++)
		fputs("---|", f);
	fputc('\n', f);
	for (w = -1; w < WL_COUNT; w++) {
		fprintf(f, "| %s |", w < 0 ? "all" : workload_name(w));
		for (i = 0; i < n; i++) {
			struct headroom h = headroom_of(sw, heldout, loads[i],
			    w);

			if (!h.n)
				fputs(" - |", f);
			else
				fprintf(f, " %.3f / %.3f / %.3f |",
				    h.bound_stock, h.best_stock, h.best_bound);
		}
		fputc('\n', f);
	}
}

/* One row per set of a p99 ratio to stock at 125 %. */
static void
write_p99_rows(const struct sweep *sw, FILE *f,
    double (*ratio)(const struct sweep *, bool, int, int))
{
	int k, h;

	cmp_header(f, "|---|");
	for (h = 1; h >= 0; h--) {
		fprintf(f, "| %s |", h ? "held-out" : "tuning");
		for (k = 0; k < NCMP; k++) {
			double r = ratio(sw, h, 125, cmp[k]);

			if (r > 0)
				fprintf(f, " %.3f |", r);
			else
				fputs(" - |", f);
		}
		fputc('\n', f);
	}
}

/* The mix runs: latency-profile VMs' p99 against stock's; and the host
 * tasks' own p99 against stock's in the standard runs. */
static void
write_mix(const struct sweep *sw, FILE *f)
{
	fprintf(f, "\n## VMs of two profiles (latency, balanced), 125 %%\n\n"
	    "p99 of the latency-profile VMs only, over stock's on the same "
	    "seeds; geometric mean over topologies and workloads.\n\n"
	    "| set |");
	write_p99_rows(sw, f, headroom_latency_vm_ratio);
	fprintf(f, "\n## Host tasks (per-CPU kthreads, vhost, QEMU I/O "
	    "threads), 125 %%\n\np99 of the host tasks' wake-ups, over "
	    "stock's on the same seeds; geometric mean over topologies and "
	    "workloads.\n\n| set |");
	write_p99_rows(sw, f, headroom_host_p99_ratio);
}

/* Runs where another strategy beat the greedy heuristic, counted. */
static void
write_greedy_beaten(const struct sweep *sw, FILE *f)
{
	int i, j, n = 0, runs = 0;

	for (i = 0; i < sw->npt; i++) {
		const struct point *g = &sw->pt[i];

		if (g->strat != STRAT_GREEDY || g->fam != FAM_STANDARD)
			continue;
		runs++;
		for (j = 0; j < sw->npt; j++) {
			const struct point *p = &sw->pt[j];

			if (p->topo == g->topo && p->wl == g->wl &&
			    p->load_pct == g->load_pct &&
			    p->seed == g->seed && p->fam == FAM_STANDARD &&
			    p->strat != STRAT_GREEDY &&
			    sw->res[j].thr > sw->res[i].thr) {
				n++;
				break;
			}
		}
	}
	fprintf(f, "\nThe greedy heuristic (not a bound) was beaten by some "
	    "strategy in %d of its %d runs.\n", n, runs);
}

int
summary_write(const struct sweep *sw)
{
	struct span thr = set_span(sw, true, 125, STRAT_SCX, false);
	struct span p99 = set_span(sw, true, 125, STRAT_SCX, true);
	struct headroom room = headroom_of(sw, true, 125, -1);
	double be = curves_breakeven(sw);
	double lo = migration_curve.x[0];
	double hi = migration_curve.x[migration_curve.n - 1];
	FILE *f = results_open(sw, "summary.md");
	int k;

	if (!f)
		return -1;
	fprintf(f, "# Summary\n\nRatios to stock on the same seeds.  "
	    "Held-out: topologies and seeds no rule was tuned on.\n\n"
	    "## Held-out set\n");
	write_set(sw, f, true);
	write_headroom(sw, f, true);
	write_points(sw, f, true);
	fprintf(f, "\n## Tuning set (g4dnmetal, Kunpeng 920)\n");
	write_set(sw, f, false);
	write_headroom(sw, f, false);
	write_points(sw, f, false);
	write_nopoll(sw, f);
	write_mix(sw, f);
	write_bound_check(sw, f);
	k = summary_bound_violations(sw);
	write_greedy_beaten(sw, f);
	fprintf(f, "\nHeadline: held-out scx/stock throughput at 125 %% "
	    "%.3f (range %.3f..%.3f over %d topology-workload pairs), p99 "
	    "ratio %.3f (%.3f..%.3f); headroom (bound / stock) %.3f, of "
	    "which the best strategy reached %.3f.\n", span_geo(&thr),
	    thr.lo, thr.hi, thr.n, span_geo(&p99), p99.lo, p99.hi,
	    room.bound_stock, room.best_stock);
	fclose(f);
	printf("bench: tables and plots in %s/\n", sw->outdir);
	printf("heldout_scx_vs_stock_throughput_at_125=%.3f "
	    "heldout_p99_ratio_at_125=%.3f breakeven_migration_us=%s%.1f "
	    "bound_violations=%d headroom_at_125=%.3f poll_share_stock=%.3f "
	    "poll_share_scx=%.3f latency_vm_p99_ratio_at_125=%.3f\n",
	    span_geo(&thr), span_geo(&p99),
	    be < lo ? "<" : be > hi ? ">" : "",
	    be < lo ? lo : be > hi ? hi : be, k, room.bound_stock,
	    headroom_poll_share(sw, true, 125, STRAT_STOCK),
	    headroom_poll_share(sw, true, 125, STRAT_SCX),
	    headroom_latency_vm_ratio(sw, true, 125, STRAT_SCX));
	fflush(stdout);
	return 0;
}
