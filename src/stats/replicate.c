/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Replicate-level tests (see replicate.h for the definitions): Welch on
 * replicate summaries, the t test with a learned between-run variance,
 * the replicates a shift needs, and the exact conditional rate test.
 */
#include "core/compat.h"
#include "stats/replicate.h"
#include "stats/compare.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <string.h>

/* Power asked of "replicates needed" (as stats/compare.c asks of points). */
#define UL_REP_POWER 0.8

void ul_rep_var_add(struct ul_rep_var *v, const double *x, size_t n)
{
	double mean, sd;

	if (n < 2)
		return;
	mean = ul_stats_mean(x, n);
	sd = ul_stats_sd(x, n);
	if (!(mean > 0.0) || !isfinite(sd))
		return;
	v->ss += (double)(n - 1) * (sd / mean) * (sd / mean);
	v->df += (double)(n - 1);
	v->groups++;
}

double ul_rep_var_cv2(const struct ul_rep_var *v)
{
	return v->df > 0.0 ? v->ss / v->df : NAN;
}

size_t ul_rep_needed(double sd_base, double sd_cand, double shift, double alpha)
{
	double var = sd_base * sd_base + sd_cand * sd_cand;

	if (!(fabs(shift) > 0.0))
		return 0;
	for (size_t n = 2; n <= UL_REP_NEED_MAX; n++) {
		double df = (double)(2 * n - 2);
		double z = ul_stats_t_quantile(1.0 - alpha / 2.0, df) +
			   ul_stats_t_quantile(UL_REP_POWER, df);

		if ((double)n >= z * z * var / (shift * shift))
			return n;
	}
	return UL_REP_NEED_MAX;
}

/* p, CI and t of a shift with standard error se and df; the verdict is the caller's. */
static void t_result(double shift, double se, double df, double alpha, struct ul_rep_result *r)
{
	double q;

	r->shift = shift;
	r->se = se;
	r->df = df;
	if (se == 0.0) { /* no spread: equal means prove nothing, unequal ones everything */
		r->t = shift == 0.0 ? 0.0 : copysign(INFINITY, shift);
		r->p = shift == 0.0 ? 1.0 : 0.0;
		r->shift_lo = r->shift_hi = shift;
		return;
	}
	r->t = shift / se;
	r->p = fmin(1.0, 2.0 * ul_stats_t_cdf(-fabs(r->t), df));
	q = ul_stats_t_quantile(1.0 - alpha / 2.0, df);
	r->shift_lo = shift - q * se;
	r->shift_hi = shift + q * se;
}

int ul_rep_welch(const double *b, size_t nb, const double *c, size_t nc, double alpha,
		 struct ul_rep_result *r)
{
	double vb, vc, se;

	if (nb < 2 || nc < 2)
		return -EDOM;
	memset(r, 0, sizeof(*r));
	r->n_base = nb;
	r->n_cand = nc;
	r->mean_base = ul_stats_mean(b, nb);
	r->mean_cand = ul_stats_mean(c, nc);
	r->sd_base = ul_stats_sd(b, nb);
	r->sd_cand = ul_stats_sd(c, nc);
	vb = r->sd_base * r->sd_base / (double)nb;
	vc = r->sd_cand * r->sd_cand / (double)nc;
	se = sqrt(vb + vc);
	t_result(r->mean_cand - r->mean_base, se,
		 se == 0.0 ? (double)(nb + nc - 2)
			   : (vb + vc) * (vb + vc) /
				     (vb * vb / (double)(nb - 1) + vc * vc / (double)(nc - 1)),
		 alpha, r);
	r->need_per_side = ul_rep_needed(r->sd_base, r->sd_cand, r->shift, alpha);
	return 0;
}

int ul_rep_learned(const double *b, size_t nb, const double *c, size_t nc,
		   const struct ul_rep_var *v, double alpha, struct ul_rep_result *r)
{
	double cv;

	if (nb < 1 || nc < 1 || !(v->df > 0.0))
		return -EDOM;
	memset(r, 0, sizeof(*r));
	cv = sqrt(ul_rep_var_cv2(v));
	r->n_base = nb;
	r->n_cand = nc;
	r->mean_base = ul_stats_mean(b, nb);
	r->mean_cand = ul_stats_mean(c, nc);
	r->sd_base = cv * fabs(r->mean_base);
	r->sd_cand = cv * fabs(r->mean_cand);
	t_result(r->mean_cand - r->mean_base,
		 sqrt(r->sd_base * r->sd_base / (double)nb + r->sd_cand * r->sd_cand / (double)nc),
		 v->df, alpha, r);
	r->need_per_side = ul_rep_needed(r->sd_base, r->sd_cand, r->shift, alpha);
	return 0;
}

/* log of the Binomial(n, q) probability of k. */
static double log_binom_pmf(double k, double n, double q)
{
	double lq = q > 0.0 ? log(q) : -INFINITY, lr = q < 1.0 ? log1p(-q) : -INFINITY;

	return lgamma(n + 1.0) - lgamma(k + 1.0) - lgamma(n - k + 1.0) + (k > 0.0 ? k * lq : 0.0) +
	       (n - k > 0.0 ? (n - k) * lr : 0.0);
}

double ul_rate_test_p(double x_b, double t_b, double x_c, double t_c)
{
	double n = x_b + x_c, q = t_c / (t_b + t_c), lobs, p = 0.0;

	if (!(n > 0.0))
		return 1.0;
	/* relative tolerance for "no likelier than observed", as R's 1 + 1e-7 */
	lobs = log_binom_pmf(x_c, n, q) + log1p(1e-7);
	for (double k = 0.0; k <= n; k++) {
		double l = log_binom_pmf(k, n, q);

		if (l <= lobs)
			p += exp(l);
	}
	return fmin(1.0, p);
}
