/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Change points in the mean of a short series: E-Divisive means (D. S.
 * Matteson and N. A. James, "A nonparametric approach for multiple change
 * point analysis of multivariate data", JASA 109(505), 2014), the method
 * of Apache Otava (Hunter) and of MongoDB's performance CI.
 *
 * The statistic of a split of x[s..e) at tau (left L = x[s..tau), right
 * R = x[tau..e), sizes m and k) is the scaled energy distance, with the
 * exponent 1 of the distance (any change in distribution that moves the
 * mean is seen; nothing is assumed of its shape):
 *
 *   Q(tau) = m k / (m + k) * ( 2/(m k) sum |l - r|
 *                              - 1/C(m,2) sum_{i<j} |l_i - l_j|
 *                              - 1/C(k,2) sum_{i<j} |r_i - r_j| ),
 *
 * and the candidate of a segment is the tau of the largest Q with both
 * sides at least min_size long.  Its significance is a permutation test:
 * the segment's values are shuffled `permutations` times (a seeded
 * splitmix64 generator, so a result is reproducible), the largest Q of
 * each shuffle computed, and p = (1 + #{shuffles with Q >= observed}) /
 * (1 + permutations): under no change the values are exchangeable and
 * P(p <= alpha) <= alpha exactly.
 *
 * Several change points: binary segmentation by recursion.  The whole
 * series is tested first; when its candidate has p <= alpha it is a change
 * point and each side is searched the same way, until no segment holds a
 * significant one.  A series with no change therefore reports one with
 * probability at most alpha (only the first test can start the search).
 * (Matteson and James grow the segmentation one point at a time over all
 * segments; the recursion finds the same points on series with clear
 * steps and is simpler to state.)
 *
 * Each change point is then described between its neighbours: `before`
 * is the median of the segment ending at it, `after` that of the segment
 * starting at it (the segments between the found change points), the
 * change is after - before (absolute) and over |before| (relative), and
 * its interval is the distribution-free 1 - alpha confidence interval of
 * the Hodges-Lehmann shift between the two segments (inverting the
 * Mann-Whitney test, exact for small segments: stats/rank.h); with
 * segments too short for that level there is none (has_ci false).
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_CHANGEPOINT_H
#define UL_STATS_CHANGEPOINT_H

#include "core/compat.h"

#include <stdint.h>

struct ul_cp_opts {
	double alpha;	       /* significance of each test, (0, 0.5] */
	unsigned permutations; /* shuffles of the permutation test, >= 1 */
	uint64_t seed;	       /* of the shuffles */
	size_t min_size;       /* the shortest segment, >= 1 (2 is usual) */
};

/* The defaults: alpha 0.05, 999 permutations, seed 1, min_size 2. */
#define UL_CP_OPTS_DEFAULT ((struct ul_cp_opts){ 0.05, 999, 1, 2 })

struct ul_changepoint {
	size_t pos;	      /* index of the first value after the change */
	double q;	      /* the statistic Q at pos, in its segment */
	double p;	      /* the permutation test's p-value */
	double before, after; /* medians of the segments either side */
	double abs, rel;      /* after - before; over |before| (NaN when 0) */
	bool has_ci;
	double lo, hi; /* the 1 - alpha interval of the shift */
};

/*
 * The change points of x[n] (no NaN), in order of position, into out
 * (room for `max`; the search stops when it is full) and *n_out.
 * 0, -EINVAL for bad options, or -ENOMEM.
 */
int ul_changepoints(const double *x, size_t n, const struct ul_cp_opts *o,
		    struct ul_changepoint *out, size_t max, size_t *n_out) UL_MUST_CHECK;

/* The largest Q of x[n] over splits with both sides >= min_size, and its
 * position (*tau); 0 with *tau = 0 when n < 2 min_size. */
double ul_cp_best_split(const double *x, size_t n, size_t min_size, size_t *tau);

#endif
