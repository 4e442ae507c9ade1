/*
 * rng.c - xoshiro256** (Blackman and Vigna, 2018) seeded by splitmix64.
 *
 * Our own generator, not rand(): the same seed gives the same event
 * stream on every libc, and every thread owns a stream, so a strategy's
 * choices cannot shift another thread's random draws.
 */
#include <math.h>

#include "sim.h"

static uint64_t
splitmix64(uint64_t *x)
{
	uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

void
rng_seed(struct rng *r, uint64_t seed)
{
	int i;

	for (i = 0; i < 4; i++)
		r->s[i] = splitmix64(&seed);
}

static inline uint64_t
rotl(uint64_t x, int k)
{
	return (x << k) | (x >> (64 - k));
}

uint64_t
rng_next(struct rng *r)
{
	uint64_t *s = r->s;
	uint64_t res = rotl(s[1] * 5, 7) * 9;
	uint64_t t = s[1] << 17;

	s[2] ^= s[0];
	s[3] ^= s[1];
	s[1] ^= s[2];
	s[0] ^= s[3];
	s[2] ^= t;
	s[3] = rotl(s[3], 45);
	return res;
}

uint64_t
rng_below(struct rng *r, uint64_t n)
{
	/* the modulo bias is below 2^-40 for the n we use (< 2^24) */
	return rng_next(r) % n;
}

uint64_t
rng_exp_ns(struct rng *r, double mean_ns)
{
	/* 53 random bits in (0, 1]: log() never sees 0 */
	double u = ((double)(rng_next(r) >> 11) + 1.0) / 9007199254740992.0;
	double v = -log(u) * mean_ns;

	return v < 1.0 ? 1 : (uint64_t)v;
}
