/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Mann-Whitney U (exact null distribution for small samples, normal
 * approximation with tie and continuity correction otherwise) and the
 * Hodges-Lehmann shift with its distribution-free interval.
 */
#include "core/compat.h"
#include "stats/compare.h"
#include "stats/rank.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

/* The exact law is tabulated up to this m*n (a 2 MB scratch array). */
#define UL_MWU_EXACT_CELLS 250000

/* Slack for comparing a computed tail with alpha (sums of doubles). */
#define UL_TAIL_SLACK 1e-9

/*
 * Counts of U = 0..m*n among the C(m+n, m) rankings: the coefficients of
 * the Gaussian binomial [m+n choose m]_q = prod_{i=1..m} (1-q^(n+i))/(1-q^i).
 * Each factor keeps the product a polynomial with non-negative integer
 * coefficients, and a low coefficient only ever depends on lower ones, so
 * the lower tail stays accurate to rounding even where the middle
 * coefficients exceed 2^53.  Fills f[0..m*n] (zeroed by the caller).
 */
static void mwu_counts(size_t m, size_t n, double *f)
{
	f[0] = 1.0;
	for (size_t i = 1; i <= m; i++) {
		/* times (1 - q^(n+i)), kept to degree i*n (the quotient's degree) */
		for (size_t j = i * n; j >= n + i && j > 0; j--)
			f[j] -= f[j - (n + i)];
		/* divided by (1 - q^i): prefix sums with stride i */
		for (size_t j = i; j <= i * n; j++)
			f[j] += f[j - i];
	}
}

/*
 * P(U <= u) for u = 0..m*n in a malloc'ed array (NULL: too large or no
 * memory).  Each tail is summed from its own end, where it is accurate.
 */
static double *mwu_cdf_table(size_t m, size_t n)
{
	size_t mn = m * n;
	double *f, *cdf, total = 0.0, acc = 0.0;

	if (mn > UL_MWU_EXACT_CELLS)
		return NULL;
	f = calloc(mn + 1, sizeof(*f));
	cdf = malloc((mn + 1) * sizeof(*cdf));
	if (!f || !cdf) {
		free(f);
		free(cdf);
		return NULL;
	}
	mwu_counts(m < n ? m : n, m < n ? n : m, f);
	for (size_t j = 0; j <= mn; j++)
		total += f[j];
	for (size_t j = 0; 2 * j <= mn; j++) {
		acc += f[j];
		cdf[j] = acc / total;
	}
	acc = 0.0;
	for (size_t j = mn; 2 * j > mn; j--) {
		cdf[j] = 1.0 - acc / total; /* P(U <= j) = 1 - P(U > j) */
		acc += f[j];
	}
	free(f);
	return cdf;
}

double ul_stats_mwu_cdf(size_t m, size_t n, double u)
{
	double *cdf, uf = floor(u + 1e-9), p;

	if (m == 0 || n == 0 || isnan(u) || m * n > UL_MWU_EXACT_CELLS)
		return NAN;
	if (uf < 0)
		return 0.0;
	if (uf >= (double)(m * n))
		return 1.0;
	cdf = mwu_cdf_table(m, n);
	if (!cdf)
		return NAN;
	p = cdf[(size_t)uf];
	free(cdf);
	return p;
}

long ul_stats_mwu_critical(size_t m, size_t n, double alpha)
{
	double *cdf = mwu_cdf_table(m, n);
	long crit = -1;

	if (!cdf)
		return -1;
	for (size_t u = 0; 2 * u <= m * n; u++) {
		if (cdf[u] > alpha / 2.0 * (1.0 + UL_TAIL_SLACK))
			break;
		crit = (long)u;
	}
	free(cdf);
	return crit;
}

/* Number of differences c_j - b_i <= d, for sorted b and c. */
static uint64_t pairdiff_count_le(const double *b, size_t nb, const double *c, size_t nc, double d)
{
	uint64_t cnt = 0;
	size_t j = 0;

	/* As b_i grows, c_j - b_i <= d holds for more j: one forward pointer. */
	for (size_t i = 0; i < nb; i++) {
		while (j < nc && c[j] - b[i] <= d)
			j++;
		cnt += j;
	}
	return cnt;
}

/*
 * Bisection on the value: keep count(lo) < k <= count(hi) until lo and hi
 * are adjacent doubles; every difference in (lo, hi] then equals hi.
 */
double ul_stats_pairdiff_kth(const double *b, size_t nb, const double *c, size_t nc, uint64_t k)
{
	double lo = c[0] - b[nb - 1], hi = c[nc - 1] - b[0];

	if (k == 0 || k > (uint64_t)nb * nc)
		return NAN;
	if (pairdiff_count_le(b, nb, c, nc, lo) >= k)
		return lo;
	for (;;) {
		double mid = lo + (hi - lo) / 2.0;

		if (mid <= lo || mid >= hi)
			return hi;
		if (pairdiff_count_le(b, nb, c, nc, mid) >= k)
			hi = mid;
		else
			lo = mid;
	}
}

/* U of c (pairs c > b plus half the ties) and the tie term sum(t^3 - t). */
static void mwu_u(const double *b, size_t nb, const double *c, size_t nc, double *u, double *tie3)
{
	size_t i = 0, j = 0;
	double uu = 0.0, t3 = 0.0;

	/* Merge walk over the runs of equal values in the pooled sample. */
	while (i < nb || j < nc) {
		double v = (j >= nc || (i < nb && b[i] <= c[j])) ? b[i] : c[j];
		size_t tb = 0, tc = 0;

		while (i < nb && b[i] == v)
			i++, tb++;
		while (j < nc && c[j] == v)
			j++, tc++;
		/* the tc candidates at v beat the i - tb baselines below v, tie tb */
		uu += (double)tc * ((double)(i - tb) + (double)tb / 2.0);
		if (tb + tc > 1) {
			double t = (double)(tb + tc);

			t3 += t * t * t - t;
		}
	}
	*u = uu;
	*tie3 = t3;
}

int ul_mwu_test(const double *b, size_t nb, const double *c, size_t nc, struct ul_mwu *out)
{
	double mn = (double)nb * (double)nc, nn = (double)(nb + nc), u, tie3, mean = mn / 2.0;

	mwu_u(b, nb, c, nc, &u, &tie3);
	out->u = u;
	out->ties = tie3 > 0.0;
	out->sd = sqrt(mn / 12.0 * ((nn + 1.0) - tie3 / (nn * (nn - 1.0))));
	out->exact = !out->ties && nb < UL_MWU_EXACT_MAX && nc < UL_MWU_EXACT_MAX;
	if (out->exact) {
		double lo = ul_stats_mwu_cdf(nb, nc, fmin(u, mn - u));

		if (isnan(lo))
			return -ENOMEM;
		out->p = fmin(1.0, 2.0 * lo);
		out->p_min = fmin(1.0, 2.0 * ul_stats_mwu_cdf(nb, nc, 0));
		return 0;
	}
	if (out->sd <= 0.0) { /* every value tied: no evidence either way */
		out->p = 1.0;
		out->p_min = 1.0;
		return 0;
	}
	{
		double z = (fabs(u - mean) - 0.5) / out->sd;
		double zmax = (mean - 0.5) / out->sd;

		out->p = fmin(1.0, 2.0 * ul_stats_norm_cdf(-fmax(z, 0.0)));
		out->p_min = fmin(1.0, 2.0 * ul_stats_norm_cdf(-fmax(zmax, 0.0)));
	}
	return 0;
}

/* The CI rank k: the largest k >= 1 with P(U <= k-1) <= alpha/2; 0 if none. */
static uint64_t hl_rank(size_t nb, size_t nc, double alpha, const struct ul_mwu *mwu,
			double *coverage)
{
	double mn = (double)nb * (double)nc;
	uint64_t k = 0;

	if (mwu->exact) {
		double *cdf = mwu_cdf_table(nb, nc), tail = 0.0;

		if (!cdf)
			return 0;
		for (uint64_t kk = 1; 2 * (kk - 1) <= (uint64_t)mn; kk++) {
			if (cdf[kk - 1] > alpha / 2.0 * (1.0 + UL_TAIL_SLACK))
				break;
			k = kk;
			tail = cdf[kk - 1];
		}
		free(cdf);
		*coverage = 1.0 - 2.0 * tail;
		return k;
	}
	{
		double z = ul_stats_norm_quantile(1.0 - alpha / 2.0);
		double kf = floor(mn / 2.0 - z * mwu->sd);

		*coverage = 1.0 - alpha;
		return kf >= 1.0 ? (uint64_t)kf : 0;
	}
}

int ul_hl_shift(const double *b, size_t nb, const double *c, size_t nc, double alpha,
		const struct ul_mwu *mwu, struct ul_hl *out)
{
	uint64_t n = (uint64_t)nb * nc, k;

	if (n % 2)
		out->est = ul_stats_pairdiff_kth(b, nb, c, nc, n / 2 + 1);
	else
		out->est = (ul_stats_pairdiff_kth(b, nb, c, nc, n / 2) +
			    ul_stats_pairdiff_kth(b, nb, c, nc, n / 2 + 1)) /
			   2.0;
	k = hl_rank(nb, nc, alpha, mwu, &out->coverage);
	out->has_ci = k >= 1 && k <= n - k + 1;
	if (out->has_ci) {
		out->lo = ul_stats_pairdiff_kth(b, nb, c, nc, k);
		out->hi = ul_stats_pairdiff_kth(b, nb, c, nc, n - k + 1);
	} else {
		out->lo = out->hi = NAN;
		out->coverage = NAN;
	}
	return 0;
}
