/*
 * stats.c - the latency histogram.  Log-linear buckets, 16 per power of
 * two (about 6 % wide), like HdrHistogram at one significant digit and
 * a bit: enough to tell a 3 ms slice wait from a 30 us one, and the
 * quantiles do not depend on the order of the samples.  Only wake-ups
 * that went through a wake path are recorded: a halt-poll hit never
 * waited (the vCPU was still on its CPU) and is counted apart
 * (sim_stats.poll_hits), so the quantiles are those of the wake-ups
 * a VM waits for, not of a population mostly zeros.
 */
#include "sim.h"

static int
bucket_of(uint64_t ns)
{
	int e;

	if (ns < 16)
		return (int)ns;
	e = 63 - __builtin_clzll(ns);		/* 4.. */
	if (e > 46)
		return LAT_BUCKETS - 1;
	return (e - 3) * 16 + (int)((ns >> (e - 4)) & 15);
}

/* The lower edge of bucket @b, in ns. */
static double
bucket_low(int b)
{
	int e;

	if (b < 16)
		return b;
	e = b / 16 + 3;
	return (double)((UINT64_C(16) + (uint64_t)(b % 16)) << (e - 4));
}

void
stats_add_latency(struct sim_stats *s, uint64_t ns)
{
	s->lat[bucket_of(ns)]++;
	s->nlat++;
}

double
stats_quantile(const struct sim_stats *s, double q)
{
	return stats_quantile_with(s, q, 0);
}

double
stats_quantile_with(const struct sim_stats *s, double q, uint64_t nzero)
{
	uint64_t n = s->nlat + nzero, want, seen = nzero;
	int b;

	if (!n)
		return 0;
	want = (uint64_t)(q * (double)n);
	if (want >= n)
		want = n - 1;
	if (want < nzero)
		return 0;
	for (b = 0; b < LAT_BUCKETS; b++) {
		seen += s->lat[b];
		if (seen > want)	/* bucket middle: half a bucket error */
			return (bucket_low(b) + bucket_low(b + 1)) / 2;
	}
	return bucket_low(LAT_BUCKETS - 1);
}
