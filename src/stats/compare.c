/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Two sample sets -> shift, CI, p-value and verdict (see compare.h for the
 * definitions), Holm's correction, and the sample size a shift of the
 * observed size would need.
 */
#include "core/compat.h"
#include "stats/compare.h"
#include "stats/rank.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Power asked of the "points needed" estimate. */
#define UL_CMP_POWER 0.8
/* Slack so that p == alpha exactly (exact tables) counts as significant. */
#define UL_CMP_P_SLACK 1e-9

const char *ul_cmp_verdict_name(enum ul_cmp_verdict v)
{
	switch (v) {
	case UL_VERDICT_FASTER:
		return "faster";
	case UL_VERDICT_SLOWER:
		return "slower";
	case UL_VERDICT_FASTER_UNCONFIRMED:
		return "faster (unconfirmed)";
	case UL_VERDICT_SLOWER_UNCONFIRMED:
		return "slower (unconfirmed)";
	case UL_VERDICT_EQUAL:
		return "equal";
	case UL_VERDICT_NONE:
		break;
	}
	return "no difference proven";
}

const char *ul_cmp_test_name(enum ul_cmp_test t)
{
	return t == UL_CMP_WELCH ? "welch" : "mwu";
}

int ul_cmp_test_parse(const char *name, enum ul_cmp_test *out)
{
	if (!strcmp(name, "mwu"))
		*out = UL_CMP_MWU;
	else if (!strcmp(name, "welch"))
		*out = UL_CMP_WELCH;
	else
		return -EINVAL;
	return 0;
}

static bool significant(double p, double alpha)
{
	return p <= alpha * (1.0 + UL_CMP_P_SLACK);
}

/* Smallest n per side for which the exact test can reach alpha at all. */
static size_t min_decidable_n(double alpha)
{
	for (size_t n = 2; n < UL_MWU_EXACT_MAX; n++)
		if (significant(2.0 * ul_stats_mwu_cdf(n, n, 0), alpha))
			return n;
	return 2;
}

/* Points per side for power UL_CMP_POWER at alpha, for an effect `es` in z units per point. */
static size_t points_for(double alpha, double z_per_sqrt_n)
{
	double z = ul_stats_norm_quantile(1.0 - alpha / 2.0) + ul_stats_norm_quantile(UL_CMP_POWER);
	double n;

	if (!(z_per_sqrt_n > 0.0))
		return 0;
	n = ceil(z * z / (z_per_sqrt_n * z_per_sqrt_n));
	if (n > 1e9)
		n = 1e9;
	return (size_t)n;
}

static int compare_mwu(const double *b, size_t nb, const double *c, size_t nc, double alpha,
		       struct ul_cmp_result *r, double *effect)
{
	struct ul_mwu m;
	struct ul_hl hl;
	double pshift;
	int rc = ul_mwu_test(b, nb, c, nc, &m);

	if (rc)
		return rc;
	rc = ul_hl_shift(b, nb, c, nc, alpha, &m, &hl);
	if (rc)
		return rc;
	r->statistic = m.u;
	r->p = m.p;
	r->exact = m.exact;
	r->can_decide = significant(m.p_min, alpha);
	r->shift = hl.est;
	r->has_ci = hl.has_ci;
	r->shift_lo = hl.lo;
	r->shift_hi = hl.hi;
	r->ci_level = hl.coverage;
	*effect = m.u - (double)nb * (double)nc / 2.0;
	/* Noether: n per side = (z_a + z_b)^2 / (6 (P(C > B) - 1/2)^2). */
	pshift = m.u / ((double)nb * (double)nc) - 0.5;
	r->need_per_side = points_for(alpha, sqrt(6.0) * fabs(pshift));
	return 0;
}

static void compare_welch(const double *b, size_t nb, const double *c, size_t nc, double alpha,
			  struct ul_cmp_result *r, double *effect)
{
	double sb = ul_stats_sd(b, nb), sc = ul_stats_sd(c, nc);
	double vb = sb * sb / (double)nb, vc = sc * sc / (double)nc;
	double se = sqrt(vb + vc), d = r->mean_cand - r->mean_base, q;

	r->shift = d;
	r->exact = false;
	r->can_decide = true;
	*effect = d;
	if (se == 0.0) { /* no spread at all: equal means prove nothing, unequal ones everything */
		r->df = (double)(nb + nc - 2);
		r->statistic = d == 0.0 ? 0.0 : copysign(INFINITY, d);
		r->p = d == 0.0 ? 1.0 : 0.0;
		r->has_ci = true;
		r->shift_lo = r->shift_hi = d;
		r->ci_level = 1.0 - alpha;
		r->need_per_side = 0;
		return;
	}
	r->df = (vb + vc) * (vb + vc) / (vb * vb / (double)(nb - 1) + vc * vc / (double)(nc - 1));
	r->statistic = d / se;
	r->p = fmin(1.0, 2.0 * ul_stats_t_cdf(-fabs(r->statistic), r->df));
	q = ul_stats_t_quantile(1.0 - alpha / 2.0, r->df);
	r->has_ci = true;
	r->shift_lo = d - q * se;
	r->shift_hi = d + q * se;
	r->ci_level = 1.0 - alpha;
	/* n per side = (z_a + z_b)^2 (sb^2 + sc^2) / d^2 */
	r->need_per_side = points_for(alpha, fabs(d) / sqrt(sb * sb + sc * sc));
}

/* Everything after the sorted copies exist. */
static int compare_sorted(const double *b, size_t nb, const double *c, size_t nc,
			  const struct ul_cmp_opts *o, struct ul_cmp_result *r)
{
	double alpha = o->alpha > 0.0 ? o->alpha : 0.05, effect = 0.0, centre;
	int rc = 0;

	memset(r, 0, sizeof(*r));
	r->test = o->test;
	r->alpha = alpha;
	r->n_base = nb;
	r->n_cand = nc;
	r->median_base = ul_stats_median_sorted(b, nb);
	r->median_cand = ul_stats_median_sorted(c, nc);
	r->mean_base = ul_stats_mean(b, nb);
	r->mean_cand = ul_stats_mean(c, nc);
	r->change_rel = r->median_base != 0.0
				? (r->median_cand - r->median_base) / fabs(r->median_base)
				: NAN;
	if (o->test == UL_CMP_WELCH)
		compare_welch(b, nb, c, nc, alpha, r, &effect);
	else
		rc = compare_mwu(b, nb, c, nc, alpha, r, &effect);
	if (rc)
		return rc;
	centre = o->test == UL_CMP_WELCH ? r->mean_base : r->median_base;
	r->ci_lo_rel = r->has_ci && centre != 0.0 ? r->shift_lo / fabs(centre) : NAN;
	r->ci_hi_rel = r->has_ci && centre != 0.0 ? r->shift_hi / fabs(centre) : NAN;
	r->verdict = UL_VERDICT_NONE;
	if (significant(r->p, alpha) && effect != 0.0) {
		bool higher = effect > 0.0;
		bool better = (o->better == UL_BETTER_HIGHER) == higher;

		r->verdict = better ? UL_VERDICT_FASTER : UL_VERDICT_SLOWER;
		r->need_per_side = 0;
	} else if (r->need_per_side && o->test == UL_CMP_MWU) {
		size_t floor_n = min_decidable_n(alpha);

		if (r->need_per_side < floor_n)
			r->need_per_side = floor_n;
	}
	return 0;
}

int ul_stats_compare(const double *base, size_t nb, const double *cand, size_t nc,
		     const struct ul_cmp_opts *opts, struct ul_cmp_result *out)
{
	static const struct ul_cmp_opts defaults = { .test = UL_CMP_MWU, .alpha = 0.05 };
	double *b, *c;
	int rc;

	if (!opts)
		opts = &defaults;
	if (nb < 2 || nc < 2)
		return -EDOM;
	if (!(opts->alpha >= 0.0 && opts->alpha <= 0.5))
		return -EINVAL;
	for (size_t i = 0; i < nb; i++)
		if (!isfinite(base[i]))
			return -EINVAL;
	for (size_t i = 0; i < nc; i++)
		if (!isfinite(cand[i]))
			return -EINVAL;
	if (nb > SIZE_MAX / sizeof(double) || nc > SIZE_MAX / sizeof(double))
		return -ENOMEM;
	b = malloc(nb * sizeof(*b));
	c = malloc(nc * sizeof(*c));
	if (!b || !c) {
		free(b);
		free(c);
		return -ENOMEM;
	}
	memcpy(b, base, nb * sizeof(*b));
	memcpy(c, cand, nc * sizeof(*c));
	ul_stats_sort(b, nb);
	ul_stats_sort(c, nc);
	rc = compare_sorted(b, nb, c, nc, opts, out);
	free(b);
	free(c);
	return rc;
}

void ul_stats_holm(const double *p, size_t n, double alpha, double *p_adj, bool *survive)
{
	size_t *idx = malloc((n ? n : 1) * sizeof(*idx)), m = 0;
	double running = 0.0;
	bool still = true;

	for (size_t i = 0; i < n; i++) {
		if (p_adj)
			p_adj[i] = NAN;
		if (survive)
			survive[i] = false;
	}
	if (!idx)
		return; /* nothing survives without the order: the conservative answer */
	for (size_t i = 0; i < n; i++)
		if (!isnan(p[i]))
			idx[m++] = i;
	/* insertion sort by p: n is the number of tests on a screen */
	for (size_t i = 1; i < m; i++)
		for (size_t j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			size_t t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (size_t r = 0; r < m; r++) {
		double adj = fmin(1.0, (double)(m - r) * p[idx[r]]);

		running = fmax(running, adj);
		still = still && significant(p[idx[r]], alpha / (double)(m - r));
		if (p_adj)
			p_adj[idx[r]] = running;
		if (survive)
			survive[idx[r]] = still;
	}
	free(idx);
}
