/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The latency histogram (contract: hist.h). */
#include "stats/hist.h"

#define HIST_EXACT 64
#define HIST_SUB_BITS 5
#define HIST_SUB (1u << HIST_SUB_BITS)

unsigned ul_hist_bucket(uint64_t ns)
{
	unsigned msb, b;

	if (ns < HIST_EXACT)
		return (unsigned)ns;
	msb = 63u - (unsigned)__builtin_clzll(ns); /* >= 6 */
	b = HIST_EXACT + (msb - 6) * HIST_SUB +
	    (unsigned)((ns >> (msb - HIST_SUB_BITS)) & (HIST_SUB - 1));
	return b < UL_HIST_N ? b : UL_HIST_N - 1;
}

uint64_t ul_hist_value(unsigned b)
{
	unsigned msb, sub;
	uint64_t lo, width;

	if (b < HIST_EXACT)
		return b;
	msb = (b - HIST_EXACT) / HIST_SUB + 6;
	sub = (b - HIST_EXACT) % HIST_SUB;
	width = UINT64_C(1) << (msb - HIST_SUB_BITS);
	lo = (UINT64_C(1) << msb) + sub * width;
	return lo + width / 2;
}

uint64_t ul_hist_quantile(const uint32_t *hist, uint64_t count, double p)
{
	uint64_t rank, seen = 0;

	if (!count)
		return 0;
	/* The value of the ceil(p * count)-th smallest sample (nearest rank). */
	rank = (uint64_t)(p * (double)count + 0.999999);
	if (rank < 1)
		rank = 1;
	if (rank > count)
		rank = count;
	for (unsigned b = 0; b < UL_HIST_N; b++) {
		seen += hist[b];
		if (seen >= rank)
			return ul_hist_value(b);
	}
	return ul_hist_value(UL_HIST_N - 1);
}
