/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The test behind compare's verdict: replicates (cells of one test, or
 * runs with --per-run) are the unit of observation, because runs differ
 * from each other by more than the points of one run do (drift, page
 * placement, caches, a reboot), and a test on pooled points treats that
 * between-run part of the variance as if it were not there.
 *
 * Definitions (the man page, COMPARE, repeats them):
 *  - each replicate is summarised by one value, the median of its points
 *    (a rate for a count metric); its variance across replicates is
 *    sigma_between^2 + (the within-run variance of that median), so a test
 *    on these values accounts for both sources without modelling either
 *    (the "summary statistics" approach to nested data; for a balanced
 *    design of normal data it is the exact mixed-model test of the shift);
 *  - with >= 2 replicates per side: Welch's t on those values (unequal
 *    variances, Welch-Satterthwaite df).  A rank test could not decide at
 *    all with 3 v 3 (Mann-Whitney's smallest two-sided p is 0.1);
 *  - a side with one replicate: the relative between-replicate variance
 *    (cv^2 = var / mean^2) learned from earlier repeated runs, pooled with
 *    weights df = k - 1 per group of k replicates: se^2 = cv^2 (mb^2/nb +
 *    mc^2/nc), Student's t with the pooled df;
 *  - replicates needed: the smallest n per side with
 *    n >= (t(1-alpha/2, 2n-2) + t(0.8, 2n-2))^2 (sb^2 + sc^2) / shift^2,
 *    the normal power formula with t quantiles (power 0.8), at least 2,
 *    at most UL_REP_NEED_MAX.
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_REPLICATE_H
#define UL_STATS_REPLICATE_H

#include "core/compat.h"

/* The cap of "replicates needed": beyond it the shift is not worth chasing. */
#define UL_REP_NEED_MAX 1000
/* Replicates per side recommended when run-to-run variation is unknown:
 * the fewest with which Welch's t has df >= ~4 and one odd run shows. */
#define UL_REP_MIN_ADVISED 3

/* A relative between-replicate variance learned from groups of replicates. */
struct ul_rep_var {
	double ss;     /* sum over groups of (k - 1) cv^2 */
	double df;     /* sum over groups of (k - 1) */
	size_t groups; /* groups that contributed */
};

/* Add a group of n replicate values (n >= 2 and a positive mean, else nothing). */
void ul_rep_var_add(struct ul_rep_var *v, const double *x, size_t n);
/* The pooled cv^2, NAN when nothing was added. */
double ul_rep_var_cv2(const struct ul_rep_var *v);

struct ul_rep_result {
	size_t n_base, n_cand;	     /* replicates */
	double mean_base, mean_cand; /* of the replicate values */
	double sd_base, sd_cand;     /* between-replicate S.D. (learned: cv x mean) */
	double shift;		     /* mean_cand - mean_base */
	double shift_lo, shift_hi;   /* its 1-alpha CI */
	double se;		     /* the standard error of shift */
	double t, df, p;	     /* two-sided */
	size_t need_per_side;	     /* replicates per side for power 0.8; 0 = no shift */
};

/* Welch on replicate values, nb, nc >= 2: 0 or -EDOM. */
int ul_rep_welch(const double *b, size_t nb, const double *c, size_t nc, double alpha,
		 struct ul_rep_result *out) UL_MUST_CHECK;
/* With a learned variance (df > 0), nb, nc >= 1: 0 or -EDOM. */
int ul_rep_learned(const double *b, size_t nb, const double *c, size_t nc,
		   const struct ul_rep_var *v, double alpha,
		   struct ul_rep_result *out) UL_MUST_CHECK;
/* Replicates per side for power 0.8 at alpha (see above); 0 when shift is 0. */
size_t ul_rep_needed(double sd_base, double sd_cand, double shift, double alpha);

/*
 * Exact conditional test of two Poisson rates: x_b events in exposure t_b
 * against x_c in t_c.  Given the total, x_c ~ Binomial(x_b + x_c,
 * t_c / (t_b + t_c)) under equal rates; p is two-sided, the probability
 * of outcomes no likelier than the observed (as R's binom.test / poisson.test).
 * 1 when there are no events at all.  t_b, t_c > 0.
 */
double ul_rate_test_p(double x_b, double t_b, double x_c, double t_c);

#endif
