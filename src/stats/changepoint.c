/* SPDX-License-Identifier: GPL-2.0-or-later */
/* E-Divisive means with a permutation test: see stats/changepoint.h. */
#include "core/compat.h"
#include "stats/changepoint.h"
#include "stats/rank.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* splitmix64 (Steele, Lea and Flood 2014): small, seeded, good enough to shuffle. */
static uint64_t cp_rand(uint64_t *state)
{
	uint64_t z = (*state += UINT64_C(0x9e3779b97f4a7c15));

	z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
	z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
	return z ^ (z >> 31);
}

/* Fisher-Yates with an index from the top 53 bits (bias below 2^-40 for our n). */
static void cp_shuffle(double *v, size_t n, uint64_t *state)
{
	for (size_t i = n; i > 1; i--) {
		size_t j = (size_t)((double)(cp_rand(state) >> 11) * 0x1.0p-53 * (double)i);
		double t;

		if (j >= i)
			j = i - 1;
		t = v[i - 1];
		v[i - 1] = v[j];
		v[j] = t;
	}
}

/*
 * Q for every split, moving one value at a time from the right side to the
 * left: the sums of distances within the left side (wl), within the right
 * (wr) and between them (b) change by that value's distances to each side,
 * so all splits cost O(n^2) together.
 */
double ul_cp_best_split(const double *x, size_t n, size_t min_size, size_t *tau)
{
	double wl = 0.0, wr = 0.0, b = 0.0, best = -INFINITY;

	*tau = 0;
	if (min_size < 1)
		min_size = 1;
	if (n < 2 * min_size)
		return 0.0;
	for (size_t i = 0; i < n; i++)
		for (size_t j = i + 1; j < n; j++)
			wr += fabs(x[i] - x[j]);
	for (size_t t = 0; t + 1 < n; t++) {
		double to_left = 0.0, to_right = 0.0, m, k, q;

		for (size_t i = 0; i < t; i++)
			to_left += fabs(x[i] - x[t]);
		for (size_t j = t + 1; j < n; j++)
			to_right += fabs(x[t] - x[j]);
		wl += to_left;
		wr -= to_right;
		b += to_right - to_left;
		m = (double)(t + 1);
		k = (double)(n - t - 1);
		if (t + 1 < min_size || n - t - 1 < min_size)
			continue;
		q = 2.0 * b / (m * k);
		if (m >= 2.0)
			q -= wl / (m * (m - 1.0) / 2.0);
		if (k >= 2.0)
			q -= wr / (k * (k - 1.0) / 2.0);
		q *= m * k / (m + k);
		if (q > best) {
			best = q;
			*tau = t + 1;
		}
	}
	return best;
}

struct cp_search {
	const double *x;
	const struct ul_cp_opts *o;
	uint64_t rng;
	double *scratch; /* n values to shuffle */
	struct ul_changepoint *out;
	size_t max, n;
};

/* The permutation test of segment x[s..e)'s best split, whose Q is q. */
static double cp_p_value(struct cp_search *cs, size_t s, size_t e, double q)
{
	size_t len = e - s, as_large = 0, tau;
	/* floating-point sums of the same distances in another order */
	double tol = 1e-9 * fabs(q);

	memcpy(cs->scratch, cs->x + s, len * sizeof(double));
	for (unsigned r = 0; r < cs->o->permutations; r++) {
		cp_shuffle(cs->scratch, len, &cs->rng);
		if (ul_cp_best_split(cs->scratch, len, cs->o->min_size, &tau) >= q - tol)
			as_large++;
	}
	return (1.0 + (double)as_large) / (1.0 + (double)cs->o->permutations);
}

/* Binary segmentation of x[s..e): the change point, then each side. */
static void cp_search_segment(struct cp_search *cs, size_t s, size_t e)
{
	size_t tau;
	double q, p;

	if (cs->n >= cs->max || e - s < 2 * cs->o->min_size)
		return;
	q = ul_cp_best_split(cs->x + s, e - s, cs->o->min_size, &tau);
	if (!tau || !(q > 0.0))
		return;
	p = cp_p_value(cs, s, e, q);
	if (p > cs->o->alpha)
		return;
	cs->out[cs->n++] = (struct ul_changepoint){ .pos = s + tau, .q = q, .p = p };
	cp_search_segment(cs, s, s + tau);
	cp_search_segment(cs, s + tau, e);
}

static int cp_by_pos(const void *a, const void *b)
{
	size_t pa = ((const struct ul_changepoint *)a)->pos;
	size_t pb = ((const struct ul_changepoint *)b)->pos;

	return (pa > pb) - (pa < pb);
}

/* The medians, the change and its interval between segments x[s..m) and x[m..e). */
static int cp_describe(const double *x, size_t s, size_t m, size_t e, double alpha, double *buf,
		       struct ul_changepoint *cp)
{
	double *before = buf, *after = buf + (m - s);
	struct ul_mwu mwu;
	struct ul_hl hl;
	int rc;

	memcpy(before, x + s, (m - s) * sizeof(double));
	memcpy(after, x + m, (e - m) * sizeof(double));
	ul_stats_sort(before, m - s);
	ul_stats_sort(after, e - m);
	cp->before = ul_stats_median_sorted(before, m - s);
	cp->after = ul_stats_median_sorted(after, e - m);
	cp->abs = cp->after - cp->before;
	cp->rel = cp->before != 0.0 ? cp->abs / fabs(cp->before) : NAN;
	rc = ul_mwu_test(before, m - s, after, e - m, &mwu);
	if (!rc)
		rc = ul_hl_shift(before, m - s, after, e - m, alpha, &mwu, &hl);
	if (rc)
		return rc;
	cp->has_ci = hl.has_ci;
	cp->lo = hl.has_ci ? hl.lo : NAN;
	cp->hi = hl.has_ci ? hl.hi : NAN;
	return 0;
}

int ul_changepoints(const double *x, size_t n, const struct ul_cp_opts *o,
		    struct ul_changepoint *out, size_t max, size_t *n_out)
{
	struct cp_search cs = { .x = x, .o = o, .out = out, .max = max };
	int rc = 0;

	*n_out = 0;
	if (!(o->alpha > 0.0) || o->alpha > 0.5 || !o->permutations || !o->min_size)
		return -EINVAL;
	if (n < 2 * o->min_size || !max)
		return 0;
	cs.scratch = malloc(n * sizeof(double));
	if (!cs.scratch)
		return -ENOMEM;
	cs.rng = o->seed;
	cp_search_segment(&cs, 0, n);
	qsort(out, cs.n, sizeof(*out), cp_by_pos);
	for (size_t i = 0; i < cs.n && !rc; i++) {
		size_t s = i ? out[i - 1].pos : 0;
		size_t e = i + 1 < cs.n ? out[i + 1].pos : n;

		rc = cp_describe(x, s, out[i].pos, e, o->alpha, cs.scratch, &out[i]);
	}
	free(cs.scratch);
	if (rc)
		return rc;
	*n_out = cs.n;
	return 0;
}
