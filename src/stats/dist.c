/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Distribution functions for the comparison tests: the standard normal and
 * Student's t (any real df), with their inverses, computed in C (no table,
 * no external tool) and tested against ministat's table.
 */
#include "core/compat.h"
#include "stats/compare.h"

#include <float.h>
#include <math.h>

double ul_stats_norm_cdf(double x)
{
	return 0.5 * erfc(-x / M_SQRT2);
}

/*
 * Inverse of the normal CDF: a rough start (a logistic-like closed form,
 * good to ~1e-2), then Halley steps on the exact CDF from erfc(); three
 * steps reach full double precision from that start in (1e-300, 1 - 1e-16).
 */
double ul_stats_norm_quantile(double p)
{
	double x, q;

	if (isnan(p) || p < 0.0 || p > 1.0)
		return NAN;
	if (p == 0.0)
		return -INFINITY;
	if (p == 1.0)
		return INFINITY;
	q = p < 0.5 ? p : 1.0 - p;
	/* Tail start from sqrt(-2 log q), corrected (Abramowitz & Stegun 26.2.23). */
	{
		double t = sqrt(-2.0 * log(q));

		x = t - (2.515517 + 0.802853 * t + 0.010328 * t * t) /
				(1.0 + 1.432788 * t + 0.189269 * t * t + 0.001308 * t * t * t);
	}
	if (p < 0.5)
		x = -x;
	for (int i = 0; i < 4; i++) {
		double err = ul_stats_norm_cdf(x) - p;
		double pdf = exp(-0.5 * x * x) / sqrt(2.0 * M_PI);

		if (pdf <= 0.0)
			break;
		double u = err / pdf;

		x -= u / (1.0 + 0.5 * x * u); /* Halley */
	}
	return x;
}

/* Continued fraction of I_x(a, b) by the modified Lentz method (DLMF 8.17.22). */
static double ibeta_cf(double x, double a, double b)
{
	const double tiny = 1e-300;
	double c = 1.0, d = 1.0 - (a + b) * x / (a + 1.0), f;

	if (fabs(d) < tiny)
		d = tiny;
	d = 1.0 / d;
	f = d;
	for (int m = 1; m <= 1000; m++) {
		double dm = m, num, delta;

		/* even step: d_{2m} */
		num = dm * (b - dm) * x / ((a + 2 * dm - 1) * (a + 2 * dm));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = 1.0 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		f *= d * c;
		/* odd step: d_{2m+1} */
		num = -(a + dm) * (a + b + dm) * x / ((a + 2 * dm) * (a + 2 * dm + 1));
		d = 1.0 + num * d;
		d = fabs(d) < tiny ? 1.0 / tiny : 1.0 / d;
		c = 1.0 + num / c;
		if (fabs(c) < tiny)
			c = tiny;
		delta = d * c;
		f *= delta;
		if (fabs(delta - 1.0) < 1e-15)
			break;
	}
	return f;
}

double ul_stats_ibeta(double x, double a, double b)
{
	double lfront;

	if (isnan(x) || !(a > 0.0) || !(b > 0.0))
		return NAN;
	if (x <= 0.0)
		return 0.0;
	if (x >= 1.0)
		return 1.0;
	lfront = lgamma(a + b) - lgamma(a) - lgamma(b) + a * log(x) + b * log1p(-x);
	/* The fraction converges fast for x < (a+1)/(a+b+2); use symmetry beyond. */
	if (x < (a + 1.0) / (a + b + 2.0))
		return exp(lfront) * ibeta_cf(x, a, b) / a;
	return 1.0 - exp(lfront) * ibeta_cf(1.0 - x, b, a) / b;
}

double ul_stats_t_cdf(double t, double df)
{
	double tail;

	if (isnan(t) || !(df > 0.0))
		return NAN;
	if (isinf(t))
		return t > 0 ? 1.0 : 0.0;
	if (isinf(df))
		return ul_stats_norm_cdf(t);
	/* P(|T| > |t|) = I_{df/(df+t^2)}(df/2, 1/2) */
	tail = 0.5 * ul_stats_ibeta(df / (df + t * t), df / 2.0, 0.5);
	return t > 0 ? 1.0 - tail : tail;
}

/*
 * Inverse t CDF: bracket, then bisection to the last bit.  The CDF is
 * monotone and cheap; 200 halvings of a bracket found by doubling reach
 * adjacent doubles for any df, and robustness matters more than speed.
 */
double ul_stats_t_quantile(double p, double df)
{
	double lo, hi;

	if (isnan(p) || p < 0.0 || p > 1.0 || !(df > 0.0))
		return NAN;
	if (p == 0.0)
		return -INFINITY;
	if (p == 1.0)
		return INFINITY;
	if (p == 0.5)
		return 0.0;
	if (isinf(df))
		return ul_stats_norm_quantile(p);
	if (p < 0.5)
		return -ul_stats_t_quantile(1.0 - p, df);
	lo = 0.0;
	hi = 1.0;
	while (ul_stats_t_cdf(hi, df) < p && hi < 1e300)
		hi *= 2.0;
	for (int i = 0; i < 2000; i++) {
		double mid = lo + (hi - lo) / 2.0;

		if (mid <= lo || mid >= hi)
			break;
		if (ul_stats_t_cdf(mid, df) < p)
			lo = mid;
		else
			hi = mid;
	}
	return hi;
}
