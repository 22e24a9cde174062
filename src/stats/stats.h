/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Summaries of raw samples.  Definitions live here and nowhere else:
 *  - median of an even count is the mean of the two middle values;
 *  - sample S.D. divides by n-1 and is computed in two passes;
 *  - percentiles use linear interpolation between order statistics
 *    (Hyndman & Fan type 7, the default of R and NumPy):
 *    h = (n-1)p, q = x[floor h] + (h - floor h)(x[floor h + 1] - x[floor h]);
 *  - the "deviant mean" (Davidsen) is the mean of the points within one
 *    S.D. of the mean (inclusive); equal to the mean when S.D. is 0;
 *  - the 95% confidence interval of the median is distribution-free: the
 *    order statistics x(k) and x(n-k+1) with the largest k such that
 *    P(Binomial(n, 1/2) < k) <= 0.025; it exists only for n >= 6.
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_H
#define UL_STATS_H

#include "core/compat.h"

struct ul_summary {
	size_t n;
	double min, max, median, mean;
	double sd; /* sample S.D. (n-1); 0 when n < 2 */
	double p10, p90;
	double dev_mean;     /* Davidsen's deviant mean */
	bool has_ci;	     /* false when n < 6 */
	double ci_lo, ci_hi; /* 95% CI of the median */
	double ci_level;     /* the exact coverage of [ci_lo, ci_hi], e.g. 0.969 */
};

/* Summarise n values (any order, not modified).  -EINVAL for n == 0,
 * -ENOMEM when the scratch copy cannot be allocated. */
int ul_stats_summarize(const double *x, size_t n, struct ul_summary *out) UL_MUST_CHECK;
/* Same for int64 samples (e.g. ns). */
int ul_stats_summarize_i64(const int64_t *x, size_t n, struct ul_summary *out) UL_MUST_CHECK;

double ul_stats_mean(const double *x, size_t n);
/* Sample S.D. with n-1, two-pass; 0 for n < 2. */
double ul_stats_sd(const double *x, size_t n);
/* Sort v ascending in place (v holds no NaN). */
void ul_stats_sort(double *v, size_t n);
/* Type-7 quantile of sorted data, p in [0, 1]. */
double ul_stats_quantile_sorted(const double *sorted, size_t n, double p);
double ul_stats_median_sorted(const double *sorted, size_t n);
/* 1-based order-statistic ranks (lo, hi) of the distribution-free CI of the
 * median at `conf` (e.g. 0.95) and its exact coverage; -EDOM when n is too
 * small for any interval to reach conf. */
int ul_stats_median_ci_ranks(size_t n, double conf, size_t *lo, size_t *hi, double *coverage);

/* Relative half-width of the median CI: (ci_hi - ci_lo) / 2 / |median|;
 * +inf when there is no CI or the median is 0. */
double ul_stats_ci_rel_halfwidth(const struct ul_summary *s);

#endif
