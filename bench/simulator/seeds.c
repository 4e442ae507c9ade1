/*
 * seeds.c - seeds.md: each seed's feature turned off in the same model,
 * to set beside the figures the seed published (bench/README.md):
 *
 *   seed 000  SIS_CORE, in scx's wake path, on g4dnmetal (the seed's
 *             Xeon 8260 is the same 2 x 24C/48T class)
 *   seed 003  the cluster pass, in the stock model and in scx, on
 *             Kunpeng 920, at the default cluster line cost and at each
 *             cheaper one of the cluster curve
 *
 * Throughput change in %, mean of 3 seeds.
 */
#include <stdio.h>

#include "sim.h"

/* Throughput change of @a over @b, in percent; NaN prints as n/a. */
static void
print_gain(FILE *f, struct agg a, struct agg b)
{
	if (!a.n || !b.n || b.thr <= 0)
		fputs(" n/a |", f);
	else
		fprintf(f, " %+.1f |", 100 * (a.thr / b.thr - 1));
}

static void
seed000(const struct sweep *sw, FILE *f)
{
	const int *loads;
	int w, i, n;

	points_loads(false, &loads, &n);
	fprintf(f, "## Seed 000: SIS_CORE on g4dnmetal\n\n| load | workload "
	    "| scx vs stock | scx: SIS_CORE on vs off |\n|---:|---|---:|"
	    "---:|\n");
	for (w = WL_HACKBENCH; w <= WL_TBENCH; w++)
		for (i = 0; i < n; i++) {
			int l = loads[i];

			fprintf(f, "| %d %% | %s |", l, workload_name(w));
			print_gain(f, results_find(sw, 0, w, l, STRAT_SCX, ""),
			    results_find(sw, 0, w, l, STRAT_STOCK, ""));
			print_gain(f, results_find(sw, 0, w, l, STRAT_SCX, ""),
			    results_find(sw, 0, w, l, STRAT_SCX,
			    "-SIS_CORE"));
			fputc('\n', f);
		}
}

static void
seed003(const struct sweep *sw, FILE *f)
{
	char on[64], off[64];
	const int *loads;
	int w, i, k, n;

	points_loads(false, &loads, &n);
	fprintf(f, "\n## Seed 003: the cluster pass on Kunpeng 920\n\n"
	    "Stock with the cluster pass on vs off, at the model's cluster "
	    "line cost and at cheaper ones (ns per line; no published "
	    "figure, see bench/README.md); and scx's CLUSTER_FIRST.\n\n"
	    "| load | workload | stock, default |");
	for (k = 0; k < ncluster_curve; k++)
		fprintf(f, " stock, %g ns |", cluster_curve[k]);
	fputs(" scx |\n|---:|---|---:|", f);
	for (k = 0; k <= ncluster_curve; k++)
		fputs("---:|", f);
	fputc('\n', f);
	for (w = WL_HACKBENCH; w <= WL_TBENCH; w++)
		for (i = 0; i < n; i++) {
			int l = loads[i];

			fprintf(f, "| %d %% | %s |", l, workload_name(w));
			print_gain(f, results_find(sw, 1, w, l, STRAT_STOCK,
			    ""), results_find(sw, 1, w, l, STRAT_STOCK,
			    "-CLUSTER_FIRST"));
			for (k = 0; k < ncluster_curve; k++) {
				cluster_tag(cluster_curve[k], false, on,
				    sizeof(on));
				cluster_tag(cluster_curve[k], true, off,
				    sizeof(off));
				print_gain(f, results_find(sw, 1, w, l,
				    STRAT_STOCK, on), results_find(sw, 1, w, l,
				    STRAT_STOCK, off));
			}
			print_gain(f, results_find(sw, 1, w, l, STRAT_SCX, ""),
			    results_find(sw, 1, w, l, STRAT_SCX,
			    "-CLUSTER_FIRST"));
			fputc('\n', f);
		}
}

int
seeds_write(const struct sweep *sw)
{
	FILE *f = results_open(sw, "seeds.md");

	if (!f)
		return -1;
	fprintf(f, "# Seed comparison: throughput change, %% (mean of 3 "
	    "seeds)\n\n");
	seed000(sw, f);
	seed003(sw, f);
	fclose(f);
	return 0;
}
