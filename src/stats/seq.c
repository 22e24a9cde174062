/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The confidence sequence of seq.h.  Its interval in closed form: with
 * d = mean - mu0 and ss = sum (d_i - mean)^2, S1 = n d and S2 = ss + n d^2,
 * so X = S1^2 / ((rho + n) S2) = n^2 d^2 / ((rho + n)(ss + n d^2)), and
 *
 *	E_n(mu0) < 1/alpha  <=>  X < q,  q = 1 - (alpha sqrt(rho / (rho + n)))^(2/n)
 *			    <=>  d^2 (n^2 - q n (rho + n)) < q (rho + n) ss.
 *
 * When n <= q (rho + n) every mu0 is inside (the interval is unbounded);
 * otherwise |d| < sqrt(q (rho + n) ss / (n (n - q (rho + n)))).
 */
#include "stats/seq.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>

double ul_seq_evalue(size_t n, double s1, double s2, double rho)
{
	double dn = (double)n;
	double x = s1 * s1 / ((rho + dn) * s2);

	return sqrt(rho / (rho + dn)) * pow(1.0 - x, -dn / 2.0);
}

double ul_seq_halfwidth(size_t n, double ss, double alpha, double rho)
{
	double dn = (double)n, q, room;

	if (n < 2)
		return INFINITY;
	/* log1p/expm1: q is tiny for large n, where 1 - c would cancel. */
	q = -expm1(2.0 / dn * (log(alpha) + 0.5 * log(rho / (rho + dn))));
	room = dn - q * (rho + dn);
	if (room <= 0)
		return INFINITY;
	return sqrt(q * (rho + dn) * ss / (dn * room));
}

int ul_seq_update(const double *d, size_t n, double alpha, double rho, double margin,
		  struct ul_seq_state *out)
{
	double ss = 0;

	if (!(alpha > 0 && alpha < 1) || !(rho > 0))
		return -EINVAL;
	out->n = n;
	out->mean = n ? ul_stats_mean(d, n) : 0;
	out->sd = ul_stats_sd(d, n);
	for (size_t i = 0; i < n; i++)
		ss += (d[i] - out->mean) * (d[i] - out->mean);
	out->half = ul_seq_halfwidth(n, ss, alpha, rho);
	out->lo = out->mean - out->half;
	out->hi = out->mean + out->half;
	if (out->lo > 0)
		out->verdict = UL_SEQ_ABOVE;
	else if (out->hi < 0)
		out->verdict = UL_SEQ_BELOW;
	else if (margin > 0 && out->lo > -margin && out->hi < margin)
		out->verdict = UL_SEQ_WITHIN;
	else
		out->verdict = UL_SEQ_OPEN;
	return 0;
}

/* The least n <= max_n whose half-width, with ss = (n - 1) sd^2, is below
 * target; 0 when none. */
static size_t first_below(double target, double sd, double alpha, double rho, size_t max_n)
{
	if (!(target > 0))
		return 0;
	for (size_t n = 2; n <= max_n; n++)
		if (ul_seq_halfwidth(n, (double)(n - 1) * sd * sd, alpha, rho) < target)
			return n;
	return 0;
}

size_t ul_seq_needed(double mean, double sd, double margin, double alpha, double rho, size_t max_n)
{
	size_t change = first_below(fabs(mean), sd, alpha, rho, max_n);
	size_t equal = margin > 0 ? first_below(margin - fabs(mean), sd, alpha, rho, max_n) : 0;

	if (!change || !equal)
		return change ? change : equal;
	return change < equal ? change : equal;
}

const char *ul_seq_verdict_name(enum ul_seq_verdict v)
{
	static const char *const names[] = { "open", "above", "below", "within" };

	return (unsigned)v < UL_ARRAY_SIZE(names) ? names[v] : "?";
}
