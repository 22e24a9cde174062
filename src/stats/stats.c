/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Summaries of raw samples: median, type-7 quantiles, two-pass S.D., deviant
 * mean and the distribution-free CI of the median; see stats.h.  No I/O.
 */
#include "core/compat.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The confidence level of ul_summary's CI. */
#define UL_STATS_CI_CONF 0.95

/*
 * Slack when comparing a computed binomial tail with alpha: the tail is a
 * sum of exp()s carrying ~1e-15 relative error, so a level chosen to equal
 * a tail exactly (conf = 1 - 2/64 for n = 6) must not flip the verdict.
 */
#define UL_STATS_TAIL_SLACK 1e-9

double ul_stats_mean(const double *x, size_t n)
{
	double sum = 0.0, corr = 0.0, mean;

	if (n == 0)
		return NAN;
	for (size_t i = 0; i < n; i++)
		sum += x[i];
	mean = sum / (double)n;
	/* Second pass: add back the rounding error of the first (cheap and exact enough). */
	for (size_t i = 0; i < n; i++)
		corr += x[i] - mean;
	return mean + corr / (double)n;
}

double ul_stats_sd(const double *x, size_t n)
{
	double mean, ss = 0.0, s = 0.0, var;

	if (n < 2)
		return 0.0;
	mean = ul_stats_mean(x, n);
	/* Corrected two-pass (Chan, Golub & LeVeque): sum d^2 - (sum d)^2 / n. */
	for (size_t i = 0; i < n; i++) {
		double d = x[i] - mean;

		ss += d * d;
		s += d;
	}
	var = (ss - s * s / (double)n) / (double)(n - 1);
	return var > 0.0 ? sqrt(var) : 0.0;
}

double ul_stats_quantile_sorted(const double *sorted, size_t n, double p)
{
	double h, fl;
	size_t lo;

	if (n == 0 || isnan(p))
		return NAN;
	if (p <= 0.0)
		return sorted[0];
	if (p >= 1.0)
		return sorted[n - 1];
	h = (double)(n - 1) * p;
	fl = floor(h);
	lo = (size_t)fl;
	if (lo + 1 >= n)
		return sorted[n - 1];
	return sorted[lo] + (h - fl) * (sorted[lo + 1] - sorted[lo]);
}

double ul_stats_median_sorted(const double *sorted, size_t n)
{
	if (n == 0)
		return NAN;
	if (n % 2)
		return sorted[n / 2];
	/* Mean of the middle two, written so it cannot overflow for huge values. */
	return sorted[n / 2 - 1] + (sorted[n / 2] - sorted[n / 2 - 1]) / 2.0;
}

/*
 * Stirling's series error log(x!) - log(sqrt(2 pi x) (x/e)^x), for x > 35
 * (Loader 2000, as in R's dbinom).
 */
static double stirlerr(double x)
{
	const double s0 = 1.0 / 12, s1 = 1.0 / 360, s2 = 1.0 / 1260, s3 = 1.0 / 1680;
	double xx = x * x;

	return (s0 - (s1 - (s2 - s3 / xx) / xx) / xx) / x;
}

/* Deviance term x log(x/m) + m - x, written to keep its small value accurate. */
static double bd0(double x, double m)
{
	return x * log1p((x - m) / m) - (x - m);
}

/*
 * log P(Binomial(n, 1/2) = x) by Loader's saddle-point form, for x and n - x
 * above 35.  Unlike lgamma(n + 1) - ..., which carries an absolute error of
 * one ulp of log(n!) (~1e-2 at n = 2^40), every term here is small.
 */
static double log_pmf_half(double n, double x)
{
	double y = n - x, m = n / 2.0;

	return stirlerr(n) - stirlerr(x) - stirlerr(y) - bd0(x, m) - bd0(y, m) +
	       0.5 * log(n / (2.0 * M_PI * x * y));
}

/*
 * Ranks are found by walking the Binomial(n, 1/2) pmf upwards in log space
 * (no underflow for any n).  Below n/2 - 10 sqrt(n) the lower tail is under
 * exp(-200) by Hoeffding's bound, far below any alpha a caller asks for, so
 * the walk starts there: the cost is O(sqrt(n)) rather than O(n).
 */
int ul_stats_median_ci_ranks(size_t n, double conf, size_t *lo, size_t *hi, double *coverage)
{
	double alpha, lp, tail = 0.0, best_tail = 0.0, dn = (double)n;
	size_t i0 = 0, best = 0, kmax;

	if (!(conf > 0.0 && conf < 1.0))
		return -EINVAL;
	if (n == 0)
		return -EDOM;
	alpha = (1.0 - conf) / 2.0;
	if (n > 1000) {
		double start = dn / 2.0 - 10.0 * sqrt(dn);

		i0 = start > 0.0 ? (size_t)start : 0;
	}
	/* For n > 1000, i0 > 180 and n - i0 > 500: log_pmf_half()'s domain. */
	lp = i0 ? log_pmf_half(dn, (double)i0) : -dn * M_LN2;
	kmax = (n + 1) / 2; /* keeps lo <= hi */
	/* Invariant: at the top of the loop, lp = log P(B = k - 1) and tail = P(B < k - 1). */
	for (size_t k = i0 + 1; k <= kmax; k++) {
		double next = tail + exp(lp);

		if (next > alpha * (1.0 + UL_STATS_TAIL_SLACK))
			break;
		tail = next;
		best = k;
		best_tail = tail;
		lp += log((dn - (double)(k - 1)) / (double)k);
	}
	if (!best)
		return -EDOM;
	*lo = best;
	*hi = n - best + 1;
	if (coverage)
		*coverage = 1.0 - 2.0 * best_tail;
	return 0;
}

double ul_stats_ci_rel_halfwidth(const struct ul_summary *s)
{
	if (!s->has_ci || s->median == 0.0 || isnan(s->median))
		return INFINITY;
	return (s->ci_hi - s->ci_lo) / 2.0 / fabs(s->median);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

void ul_stats_sort(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
}

/* Summarise an owned scratch copy `v` (sorted here). */
static int summarize_owned(double *v, size_t n, struct ul_summary *out)
{
	struct ul_summary s = { .n = n };
	double sum = 0.0;
	size_t cnt = 0, lo, hi;

	/* A NaN has no place in an order; an infinity makes every moment meaningless. */
	for (size_t i = 0; i < n; i++)
		if (!isfinite(v[i]))
			return -EINVAL;
	ul_stats_sort(v, n);
	s.min = v[0];
	s.max = v[n - 1];
	s.median = ul_stats_median_sorted(v, n);
	s.mean = ul_stats_mean(v, n);
	s.sd = ul_stats_sd(v, n);
	s.p10 = ul_stats_quantile_sorted(v, n, 0.10);
	s.p90 = ul_stats_quantile_sorted(v, n, 0.90);

	/* Davidsen's deviant mean: points with |x - mean| <= S.D., inclusive. */
	for (size_t i = 0; i < n; i++) {
		if (fabs(v[i] - s.mean) <= s.sd) {
			sum += v[i];
			cnt++;
		}
	}
	s.dev_mean = (s.sd == 0.0 || cnt == 0) ? s.mean : sum / (double)cnt;

	if (ul_stats_median_ci_ranks(n, UL_STATS_CI_CONF, &lo, &hi, &s.ci_level) == 0) {
		s.has_ci = true;
		s.ci_lo = v[lo - 1];
		s.ci_hi = v[hi - 1];
	}
	*out = s;
	return 0;
}

int ul_stats_summarize(const double *x, size_t n, struct ul_summary *out)
{
	double *v;
	int rc;

	if (n == 0)
		return -EINVAL;
	if (n > SIZE_MAX / sizeof(*v))
		return -ENOMEM;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, x, n * sizeof(*v));
	rc = summarize_owned(v, n, out);
	free(v);
	return rc;
}

int ul_stats_summarize_i64(const int64_t *x, size_t n, struct ul_summary *out)
{
	double *v;
	int rc;

	if (n == 0)
		return -EINVAL;
	if (n > SIZE_MAX / sizeof(*v))
		return -ENOMEM;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	/* Exact up to 2^53 ns (104 days), far beyond any one sample. */
	for (size_t i = 0; i < n; i++)
		v[i] = (double)x[i];
	rc = summarize_owned(v, n, out);
	free(v);
	return rc;
}
