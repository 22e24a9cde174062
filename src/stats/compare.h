/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Comparing two sample sets: "is the candidate faster, slower, or is no
 * difference proven?"  The stable API that `underload compare` and the HTML
 * report both call; report/ only prints what it returns.
 *
 * Definitions (the man page repeats them):
 *  - shift = candidate - baseline.  With the Mann-Whitney test (default) it
 *    is the Hodges-Lehmann estimate, the median of the nb*nc differences
 *    c_j - b_i, and its CI is the distribution-free interval of order
 *    statistics of those differences [d(k), d(nb*nc-k+1)] where k is the
 *    largest rank with P(U <= k-1) <= alpha/2 (exact null distribution of U
 *    for small samples without ties, the normal approximation otherwise).
 *    With Welch's t it is the difference of means and its CI is
 *    diff +/- t(1-alpha/2, df) * se, df by Welch-Satterthwaite.
 *  - change_rel = (median_cand - median_base) / |median_base|; the CI is
 *    printed relative to the baseline's centre (median for Mann-Whitney,
 *    mean for Welch), so "+12.0% [+8.1%, +15.9%]" reads as one statement.
 *  - p is two-sided.  Mann-Whitney is exact (no ties, both n < 50), else the
 *    normal approximation with tie correction and continuity correction
 *    (as R's wilcox.test).
 *  - verdict: p < alpha gives "slower" or "faster" by the metric's
 *    direction and the sign of the effect (U above or below nb*nc/2, or the
 *    sign of the mean difference); otherwise "no difference proven".
 *  - need_per_side: when no difference is proven, the points per side a
 *    test at alpha with power 0.8 would need for a shift of the observed
 *    size (Noether's formula for Mann-Whitney, the normal formula for
 *    Welch), at least the smallest n for which the exact test can reach
 *    alpha at all.  0 when no shift was observed (nothing to size for).
 * Pure functions: no I/O, no global state.
 */
#ifndef UL_STATS_COMPARE_H
#define UL_STATS_COMPARE_H

#include "core/compat.h"

enum ul_cmp_test {
	UL_CMP_MWU = 0, /* Mann-Whitney U + Hodges-Lehmann shift (default) */
	UL_CMP_WELCH,	/* Welch's unequal-variances t */
};

/* Which way is better for a metric: latency-like or throughput-like. */
enum ul_cmp_better {
	UL_BETTER_LOWER = 0,
	UL_BETTER_HIGHER,
};

enum ul_cmp_verdict {
	UL_VERDICT_NONE = 0, /* "no difference proven" */
	UL_VERDICT_FASTER,   /* the candidate is better */
	UL_VERDICT_SLOWER,   /* the candidate is worse */
	/* The same calls resting on within-run points alone (one replicate a
	 * side, run-to-run variation not measured): stats/runcmp.c's rows
	 * only, never ul_stats_compare()'s. */
	UL_VERDICT_FASTER_UNCONFIRMED,
	UL_VERDICT_SLOWER_UNCONFIRMED,
	/* Equal within a margin (stats/tost.h), runcmp's rows with a margin
	 * only: both one-sided tests reject, whatever the test of a
	 * difference said (a shift smaller than the margin). */
	UL_VERDICT_EQUAL,
};

struct ul_cmp_opts {
	enum ul_cmp_test test;
	double alpha; /* two-sided level in (0, 0.5]; 0 means 0.05 */
	enum ul_cmp_better better;
	/* The equivalence margin relative to the baseline (0.05: +-5%) of
	 * stats/runcmp.h's rows (TOST); 0 = none.  ul_stats_compare()
	 * ignores it. */
	double margin_rel;
};

struct ul_cmp_result {
	enum ul_cmp_test test;
	double alpha;
	size_t n_base, n_cand;
	double median_base, median_cand;
	double mean_base, mean_cand;
	double change_rel;	   /* relative change of the median; NAN if the base median is 0 */
	double shift;		   /* cand - base: HL estimate or difference of means */
	bool has_ci;		   /* false when the samples are too small for a 1-alpha CI */
	double shift_lo, shift_hi; /* CI of shift */
	double ci_level;	   /* its coverage (exact for exact U, else 1 - alpha) */
	double ci_lo_rel, ci_hi_rel; /* the CI relative to the baseline's centre */
	double statistic;	     /* U of the candidate (pairs c > b, ties 1/2) or Welch's t */
	double df;		     /* Welch's degrees of freedom; 0 for Mann-Whitney */
	double p;		     /* two-sided p-value */
	bool exact;		     /* p from the exact null distribution */
	bool can_decide;	     /* false when no outcome of these n could reach alpha */
	enum ul_cmp_verdict verdict;
	size_t need_per_side; /* see above; 0 when decided or nothing to size for */
};

/*
 * Compare candidate `cand` against baseline `base` (any order, not
 * modified).  Needs nb >= 2 and nc >= 2 (-EDOM otherwise), finite values
 * (-EINVAL), and memory for sorted copies (-ENOMEM).  opts NULL = defaults.
 */
int ul_stats_compare(const double *base, size_t nb, const double *cand, size_t nc,
		     const struct ul_cmp_opts *opts, struct ul_cmp_result *out) UL_MUST_CHECK;

/* "faster", "slower", "no difference proven", "faster (unconfirmed)", "slower (unconfirmed)",
 * "equal". */
const char *ul_cmp_verdict_name(enum ul_cmp_verdict v);
/* "mwu", "welch"; parse returns -EINVAL for anything else. */
const char *ul_cmp_test_name(enum ul_cmp_test t);
int ul_cmp_test_parse(const char *name, enum ul_cmp_test *out);

/*
 * Holm's step-down correction of n p-values at family level alpha:
 * p_adj[i] (may be NULL) is the Holm-adjusted p-value, survive[i] (may be
 * NULL) says whether row i is still significant.  NAN p-values (rows that
 * were not tested) are skipped: they count neither as tests nor survivors.
 */
void ul_stats_holm(const double *p, size_t n, double alpha, double *p_adj, bool *survive);

/* --- building blocks, exposed for tests and other users --- */

/* Standard normal CDF and its inverse (p in (0, 1)). */
double ul_stats_norm_cdf(double x);
double ul_stats_norm_quantile(double p);
/* Student's t CDF with df > 0 (fractional df allowed) and its inverse. */
double ul_stats_t_cdf(double t, double df);
double ul_stats_t_quantile(double p, double df);
/* Regularised incomplete beta I_x(a, b). */
double ul_stats_ibeta(double x, double a, double b);

/*
 * P(U <= u) under H0 for sample sizes m, n without ties (exact), u may be
 * negative (0) or beyond m*n (1); NAN when m*n is too large (> 250000).
 */
double ul_stats_mwu_cdf(size_t m, size_t n, double u);
/*
 * The two-sided critical value of the exact test: the largest u with
 * P(U <= u) <= alpha/2 (reject when min(U, mn-U) <= u), or -1 when none.
 */
long ul_stats_mwu_critical(size_t m, size_t n, double alpha);
/*
 * k-th smallest (1-based) of the nb*nc differences c_j - b_i, for sorted
 * inputs, in O((nb+nc) log range) time and O(1) memory.
 */
double ul_stats_pairdiff_kth(const double *bs, size_t nb, const double *cs, size_t nc, uint64_t k);

#endif
