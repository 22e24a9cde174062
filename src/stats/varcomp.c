/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Variance components of points in cells in runs, and the cheapest design
 * (stats/varcomp.h states the estimators and derives the design).
 */
#include "core/compat.h"
#include "stats/varcomp.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The 0.975 quantile of the standard normal: a 95% two-sided interval. */
#define Z_975 1.959963984540054

/* Sums gathered in one pass over the design (see varcomp.h for their use). */
struct sums {
	double ss1, ss2;  /* within cells; cell means within runs */
	size_t df1, df2;  /* their degrees of freedom */
	double h2_num;	  /* sum over runs of (k_r - 1) mean_j 1/n_j */
	double inv_k;	  /* sum over runs of 1/k_r */
	double inv_nk;	  /* sum over runs of sum_j (1/n_j) / k_r^2 */
	double *run_mean; /* one per run with data */
	size_t runs, cells, points;
};

static double cell_mean(const struct ul_varcomp_cell *c)
{
	double s = 0.0;

	for (size_t i = 0; i < c->n; i++)
		s += c->x[i];
	return s / (double)c->n;
}

/* One run: its cells' sums of squares, its mean of cell means. */
static void add_run(const struct ul_varcomp_run *r, struct sums *s)
{
	double sum_means = 0.0, sum_inv_n = 0.0, mean;
	size_t k = 0;

	for (size_t j = 0; j < r->n_cells; j++) {
		const struct ul_varcomp_cell *c = &r->cells[j];
		double m;

		if (!c->n)
			continue;
		m = cell_mean(c);
		for (size_t i = 0; i < c->n; i++)
			s->ss1 += (c->x[i] - m) * (c->x[i] - m);
		s->df1 += c->n - 1;
		s->points += c->n;
		sum_means += m;
		sum_inv_n += 1.0 / (double)c->n;
		k++;
	}
	if (!k)
		return;
	mean = sum_means / (double)k;
	for (size_t j = 0; j < r->n_cells; j++)
		if (r->cells[j].n) {
			double d = cell_mean(&r->cells[j]) - mean;

			s->ss2 += d * d;
		}
	s->df2 += k - 1;
	s->h2_num += (double)(k - 1) * sum_inv_n / (double)k;
	s->inv_k += 1.0 / (double)k;
	s->inv_nk += sum_inv_n / ((double)k * (double)k);
	s->run_mean[s->runs++] = mean;
	s->cells += k;
}

/* The components from the sums; negative ones reported as 0. */
static void components(const struct sums *s, struct ul_varcomp *out)
{
	double ss3 = 0.0, t[UL_VARCOMP_LEVELS], R = (double)s->runs;

	for (size_t r = 0; r < s->runs; r++)
		out->mean += s->run_mean[r] / R;
	for (size_t r = 0; r < s->runs; r++)
		ss3 += (s->run_mean[r] - out->mean) * (s->run_mean[r] - out->mean);
	out->df[UL_VARCOMP_POINTS] = s->df1;
	out->df[UL_VARCOMP_CELLS] = s->df2;
	out->df[UL_VARCOMP_RUNS] = s->runs - 1;
	out->s2[UL_VARCOMP_POINTS] = s->df1 ? s->ss1 / (double)s->df1 : NAN;
	out->s2[UL_VARCOMP_CELLS] = s->df2 ? s->ss2 / (double)s->df2 : NAN;
	out->s2[UL_VARCOMP_RUNS] = s->runs > 1 ? ss3 / (R - 1.0) : NAN;
	/* NAN propagates: a level without df leaves those above it unknown */
	t[UL_VARCOMP_POINTS] = out->s2[UL_VARCOMP_POINTS];
	t[UL_VARCOMP_CELLS] = out->s2[UL_VARCOMP_CELLS] -
			      (s->df2 ? s->h2_num / (double)s->df2 : NAN) * t[UL_VARCOMP_POINTS];
	t[UL_VARCOMP_RUNS] = out->s2[UL_VARCOMP_RUNS] - s->inv_k / R * t[UL_VARCOMP_CELLS] -
			     s->inv_nk / R * t[UL_VARCOMP_POINTS];
	for (int i = 0; i < UL_VARCOMP_LEVELS; i++) {
		out->truncated[i] = t[i] < 0.0;
		out->comp[i] = t[i] < 0.0 ? 0.0 : t[i];
	}
}

/* Each level's part of the variance of the grand mean as measured. */
static void shares(const struct sums *s, struct ul_varcomp *out)
{
	double R = (double)s->runs, part[UL_VARCOMP_LEVELS], total;

	part[UL_VARCOMP_RUNS] = out->comp[UL_VARCOMP_RUNS] / R;
	part[UL_VARCOMP_CELLS] = out->comp[UL_VARCOMP_CELLS] * s->inv_k / (R * R);
	part[UL_VARCOMP_POINTS] = out->comp[UL_VARCOMP_POINTS] * s->inv_nk / (R * R);
	total = part[0] + part[1] + part[2];
	for (int i = 0; i < UL_VARCOMP_LEVELS; i++)
		out->share[i] = isfinite(total) && total > 0.0 ? part[i] / total : NAN;
}

int ul_varcomp_estimate(const struct ul_varcomp_run *runs, size_t n_runs, struct ul_varcomp *out)
{
	struct sums s = { 0 };

	memset(out, 0, sizeof(*out));
	s.run_mean = malloc((n_runs ? n_runs : 1) * sizeof(*s.run_mean));
	if (!s.run_mean)
		return -ENOMEM;
	for (size_t r = 0; r < n_runs; r++)
		add_run(&runs[r], &s);
	if (!s.runs) {
		free(s.run_mean);
		return -EINVAL;
	}
	out->runs = s.runs;
	out->cells = s.cells;
	out->points = s.points;
	components(&s, out);
	shares(&s, out);
	free(s.run_mean);
	return 0;
}

double ul_varcomp_cv(const struct ul_varcomp *v, enum ul_varcomp_level level)
{
	return sqrt(v->comp[level]) / fabs(v->mean);
}

/* ceil(x), at least 1, at most UL_VARCOMP_REPS_MAX (*capped then). */
static size_t reps_of(double x, bool *capped)
{
	double r = ceil(x);

	*capped = !(r < (double)UL_VARCOMP_REPS_MAX); /* also +inf */
	if (*capped)
		return UL_VARCOMP_REPS_MAX;
	return r < 1.0 ? 1 : (size_t)r;
}

int ul_varcomp_design(const double comp[UL_VARCOMP_LEVELS], const double cost[UL_VARCOMP_LEVELS],
		      double mean, double precision, struct ul_varcomp_design *out)
{
	int top = -1;
	double up_cost, var_unit = 0.0, per_unit = 1.0, v0;

	memset(out, 0, sizeof(*out));
	for (int i = 0; i < UL_VARCOMP_LEVELS; i++) {
		if (!(comp[i] >= 0.0) || !(cost[i] >= 0.0))
			return -EINVAL;
		if (comp[i] > 0.0)
			top = i;
		out->reps[i] = 1;
	}
	if (!(precision > 0.0) || !(fabs(mean) > 0.0) || !isfinite(mean))
		return -EINVAL;
	/* every level above top, and top's own count for now, is 1; walk down
	 * from top: up is the nearest level above with a component, its cost
	 * holding the zero levels merged into it */
	up_cost = top >= 0 ? cost[top] : 0.0;
	for (int i = top - 1, up = top; i >= 0; i--) {
		if (comp[i] == 0.0 && i > 0) {
			up_cost += cost[i]; /* one repetition of it per unit above */
			continue;
		}
		/* comp[i] == 0 here only for the points: one is enough */
		out->reps[i] = comp[i] == 0.0 ? 1
					      : reps_of(cost[i] > 0.0 ? sqrt(up_cost * comp[i] /
									     (cost[i] * comp[up]))
								      : INFINITY,
							&out->capped[i]);
		up = i;
		up_cost = cost[i];
	}
	/* the variance of one top-level unit's mean, then the top count */
	for (int i = top; i >= 0; i--) {
		var_unit += comp[i] / per_unit;
		if (i > 0)
			per_unit *= (double)out->reps[i - 1];
	}
	v0 = precision * fabs(mean) / Z_975;
	v0 *= v0;
	if (top >= 0)
		out->reps[top] = reps_of(var_unit / v0, &out->capped[top]);
	out->cost = 0.0;
	for (int i = 0; i < UL_VARCOMP_LEVELS; i++)
		out->cost = (double)out->reps[i] * (cost[i] + out->cost);
	out->half_width_rel =
		Z_975 * sqrt(var_unit / (double)out->reps[top >= 0 ? top : 0]) / fabs(mean);
	return 0;
}
