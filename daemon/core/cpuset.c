/*
 * cpuset.c - fixed-size bitmaps over dense PU indices.
 *
 * Searches work a 64-bit word at a time and stop at the caller's end
 * bound, so a scan of one LLC touches only that LLC's words, not all
 * VP_MAX_PUS bits.
 */
#include <string.h>

#include "core/vcpuplace.h"

#define WORD(pu)	((unsigned int)(pu) / 64)
#define BIT(pu)		(UINT64_C(1) << ((unsigned int)(pu) % 64))

/* Ignores indices outside the bitmap: a bad index must not corrupt it. */
static inline bool
in_range(int pu)
{
	return pu >= 0 && pu < VP_MAX_PUS;
}

void
cpuset_zero(struct vp_cpuset *s)
{
	memset(s, 0, sizeof(*s));
}

void
cpuset_set(struct vp_cpuset *s, int pu)
{
	if (in_range(pu))
		s->w[WORD(pu)] |= BIT(pu);
}

void
cpuset_clear(struct vp_cpuset *s, int pu)
{
	if (in_range(pu))
		s->w[WORD(pu)] &= ~BIT(pu);
}

bool
cpuset_test(const struct vp_cpuset *s, int pu)
{
	return in_range(pu) && (s->w[WORD(pu)] & BIT(pu));
}

/* Mask of the bits of word @wi that fall in [first, end). */
static uint64_t
range_mask(unsigned int wi, int first, int end)
{
	uint64_t m = ~UINT64_C(0);
	int lo = (int)wi * 64, hi = lo + 64;

	if (first > lo)
		m &= ~UINT64_C(0) << (first - lo);
	if (end < hi)
		m &= ~UINT64_C(0) >> (hi - end);
	return m;
}

/* Clamps [first, first + count) to the bitmap; false when empty. */
static bool
clamp(int *first, int *end, int count)
{
	*end = *first + count;
	if (*first < 0)
		*first = 0;
	if (*end > VP_MAX_PUS)
		*end = VP_MAX_PUS;
	return *first < *end;
}

void
cpuset_set_range(struct vp_cpuset *s, int first, int count)
{
	unsigned int wi;
	int end;

	if (!clamp(&first, &end, count))
		return;
	for (wi = WORD(first); wi <= WORD(end - 1); wi++)
		s->w[wi] |= range_mask(wi, first, end);
}

int
cpuset_count_range(const struct vp_cpuset *s, int first, int count)
{
	unsigned int wi;
	int end, n = 0;

	if (!clamp(&first, &end, count))
		return 0;
	for (wi = WORD(first); wi <= WORD(end - 1); wi++)
		n += __builtin_popcountll(s->w[wi] & range_mask(wi, first, end));
	return n;
}

bool
cpuset_intersects_range(const struct vp_cpuset *s, int first, int count)
{
	unsigned int wi;
	int end;

	if (!clamp(&first, &end, count))
		return false;
	for (wi = WORD(first); wi <= WORD(end - 1); wi++)
		if (s->w[wi] & range_mask(wi, first, end))
			return true;
	return false;
}

int
cpuset_count(const struct vp_cpuset *s)
{
	return cpuset_count_range(s, 0, VP_MAX_PUS);
}

bool
cpuset_empty(const struct vp_cpuset *s)
{
	return !cpuset_intersects_range(s, 0, VP_MAX_PUS);
}

bool
cpuset_equal(const struct vp_cpuset *a, const struct vp_cpuset *b)
{
	return memcmp(a->w, b->w, sizeof(a->w)) == 0;
}

bool
cpuset_intersects(const struct vp_cpuset *a, const struct vp_cpuset *b)
{
	int i;

	for (i = 0; i < VP_CPUSET_WORDS; i++)
		if (a->w[i] & b->w[i])
			return true;
	return false;
}

bool
cpuset_subset(const struct vp_cpuset *a, const struct vp_cpuset *b)
{
	int i;

	for (i = 0; i < VP_CPUSET_WORDS; i++)
		if (a->w[i] & ~b->w[i])
			return false;
	return true;
}

void
cpuset_and(struct vp_cpuset *dst, const struct vp_cpuset *a,
    const struct vp_cpuset *b)
{
	int i;

	for (i = 0; i < VP_CPUSET_WORDS; i++)
		dst->w[i] = a->w[i] & b->w[i];
}

void
cpuset_or(struct vp_cpuset *dst, const struct vp_cpuset *a,
    const struct vp_cpuset *b)
{
	int i;

	for (i = 0; i < VP_CPUSET_WORDS; i++)
		dst->w[i] = a->w[i] | b->w[i];
}

void
cpuset_andnot(struct vp_cpuset *dst, const struct vp_cpuset *a,
    const struct vp_cpuset *b)
{
	int i;

	for (i = 0; i < VP_CPUSET_WORDS; i++)
		dst->w[i] = a->w[i] & ~b->w[i];
}

int
cpuset_next_and(const struct vp_cpuset *a, const struct vp_cpuset *b,
    int from, int end)
{
	unsigned int wi;
	uint64_t bits;

	if (from < 0)
		from = 0;
	if (end > VP_MAX_PUS)
		end = VP_MAX_PUS;
	if (from >= end)
		return VP_PU_NONE;
	for (wi = WORD(from); wi <= WORD(end - 1); wi++) {
		bits = a->w[wi] & range_mask(wi, from, end);
		if (b)
			bits &= b->w[wi];
		if (bits)
			return (int)wi * 64 + __builtin_ctzll(bits);
	}
	return VP_PU_NONE;
}

int
cpuset_next(const struct vp_cpuset *s, int from, int end)
{
	return cpuset_next_and(s, NULL, from, end);
}

int
cpuset_first(const struct vp_cpuset *s)
{
	return cpuset_next(s, 0, VP_MAX_PUS);
}
