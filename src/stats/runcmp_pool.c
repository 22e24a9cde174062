/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The values a side brings to a comparison row: every point of its cells
 * (ul_runcmp_pool), one median per run (ul_runcmp_pool_runs) or per
 * replicate cell (ul_runcmp_replicates), a count metric's totals, and
 * the crashes of a side in a test (ul_runcmp_crashes).
 * Its own file so that runcmp.c (rows, Holm) and runcmp_verdict.c (the
 * verdict, which also pools the history it learns from) both use it and
 * neither calls the other back.
 */
#include "core/compat.h"
#include "stats/runcmp.h"
#include "model/suite.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Append n values of s (its first `take`) to the growing array. */
static int push_values(double **v, size_t *n, size_t *cap, const int64_t *x, size_t take)
{
	if (*n + take > *cap) {
		size_t nc = (*cap ? *cap : 64);
		double *nv;

		while (nc < *n + take)
			nc *= 2;
		nv = realloc(*v, nc * sizeof(*nv));
		if (!nv)
			return -ENOMEM;
		*v = nv;
		*cap = nc;
	}
	for (size_t i = 0; i < take; i++)
		(*v)[(*n)++] = (double)x[i];
	return 0;
}

/* How many values of m cell c holds: the hook's, or the series'; 0 when
 * none (and for a count metric, which has one rate per cell: count_of()). */
static size_t cell_values(const struct ul_cell *c, const struct ul_runcmp_metric *m)
{
	const struct ul_series *s;

	if (m->exposure)
		return 0;
	if (m->values)
		return m->values(c, m->src, NULL, 0);
	s = ul_cell_find_series(c, m->series);
	return s && s->v ? s->n : 0;
}

/* Append the first `take` values of m in cell c (take <= cell_values()). */
static int push_cell_values(const struct ul_cell *c, const struct ul_runcmp_metric *m, size_t take,
			    double **v, size_t *n, size_t *cap)
{
	int64_t *derived;
	size_t got;
	int rc;

	if (!m->values)
		return push_values(v, n, cap, ul_cell_find_series(c, m->series)->v, take);
	derived = malloc(take * sizeof(*derived));
	if (!derived)
		return -ENOMEM;
	got = m->values(c, m->src, derived, take); /* the same cell: the same count */
	rc = push_values(v, n, cap, derived, got < take ? got : take);
	free(derived);
	return rc;
}

/* A count metric's count and exposure in cell c; false unless both are
 * there and the exposure is positive. */
static bool count_of(const struct ul_cell *c, const struct ul_runcmp_metric *m, double *count,
		     double *exposure)
{
	return m->exposure && ul_cell_metric(c, m->series, count) &&
	       ul_cell_metric(c, m->exposure, exposure) && *exposure > 0.0 && *count >= 0.0;
}

/* Does cell c hold values of m? */
bool ul_runcmp_cell_has(const struct ul_cell *c, const struct ul_runcmp_metric *m)
{
	double n, t;

	return m->exposure ? count_of(c, m, &n, &t) : cell_values(c, m) > 0;
}

/* Append one value to the growing array. */
static int push_one(double **v, size_t *n, size_t *cap, double x)
{
	int64_t dummy = 0;
	int rc = push_values(v, n, cap, &dummy, 1);

	if (!rc)
		(*v)[*n - 1] = x;
	return rc;
}

/* The points of cell c for m: its (fixed-prefix) values, or its rate in
 * percent for a count metric; appended to v.  Sets *prefix when cut. */
static int cell_points(const struct ul_cell *c, const struct ul_runcmp_metric *m, double **v,
		       size_t *n, size_t *cap, size_t *prefix)
{
	double fixed, count, exposure;
	size_t take;

	if (m->exposure)
		return count_of(c, m, &count, &exposure)
			       ? push_one(v, n, cap, 100.0 * count / exposure)
			       : 0;
	take = cell_values(c, m);
	if (!take)
		return 0;
	if (ul_cell_metric(c, UL_RUNCMP_FIXED_N, &fixed) && fixed >= 1 && fixed < (double)take) {
		take = (size_t)fixed;
		if (take > *prefix)
			*prefix = take;
	}
	return push_cell_values(c, m, take, v, n, cap);
}

/* Is c an ok cell of m's suite and this test with values of m? */
static bool cell_counts(const struct ul_cell *c, const struct ul_runcmp_metric *m, const char *test)
{
	return c->outcome == UL_CELL_OK && !strcmp(c->suite, m->suite) &&
	       !strcmp(ul_suite_cell_test(c), test) && ul_runcmp_cell_has(c, m);
}

int ul_runcmp_pool(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		   const char *test, struct ul_runcmp_pooled *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < g->n_runs; r++) {
		const struct ul_run *run = g->runs[r];
		bool used = false;

		for (size_t i = 0; i < run->n_cells; i++) {
			const struct ul_cell *c = &run->cells[i];

			if (!cell_counts(c, m, test))
				continue;
			if (cell_points(c, m, &out->v, &out->n, &cap, &out->prefix)) {
				free(out->v);
				out->v = NULL;
				return -ENOMEM;
			}
			used = true;
			out->cells++;
			out->disturbed += (c->flags & UL_CELL_DISTURBED) != 0;
		}
		out->runs += used;
	}
	return 0;
}

int ul_runcmp_replicates(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			 const char *test, enum ul_runcmp_unit unit, struct ul_runcmp_pooled *out)
{
	size_t cap = 0;

	if (unit == UL_RUNCMP_RUNS)
		return ul_runcmp_pool_runs(g, m, test, out);
	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < g->n_runs; r++) {
		const struct ul_run *run = g->runs[r];
		bool used = false;

		for (size_t i = 0; i < run->n_cells; i++) {
			const struct ul_cell *c = &run->cells[i];
			double *pv = NULL;
			size_t pn = 0, pcap = 0, prefix = 0;
			int rc;

			if (!cell_counts(c, m, test))
				continue;
			rc = cell_points(c, m, &pv, &pn, &pcap, &prefix);
			if (!rc && pn) {
				ul_stats_sort(pv, pn);
				rc = push_one(&out->v, &out->n, &cap,
					      ul_stats_median_sorted(pv, pn));
			}
			free(pv);
			if (rc) {
				free(out->v);
				out->v = NULL;
				return -ENOMEM;
			}
			used = true;
			out->cells++;
			out->disturbed += (c->flags & UL_CELL_DISTURBED) != 0;
			if (prefix > out->prefix)
				out->prefix = prefix;
		}
		out->runs += used;
	}
	return 0;
}

int ul_runcmp_pool_runs(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			const char *test, struct ul_runcmp_pooled *out)
{
	memset(out, 0, sizeof(*out));
	out->v = malloc((g->n_runs ? g->n_runs : 1) * sizeof(*out->v));
	if (!out->v)
		return -ENOMEM;
	for (size_t r = 0; r < g->n_runs; r++) {
		struct ul_runcmp_group one = *g;
		struct ul_runcmp_pooled p;

		one.runs = g->runs + r;
		one.n_runs = 1;
		if (ul_runcmp_pool(&one, m, test, &p)) {
			free(out->v);
			out->v = NULL;
			return -ENOMEM;
		}
		if (p.n) {
			ul_stats_sort(p.v, p.n);
			out->v[out->n++] = ul_stats_median_sorted(p.v, p.n);
			out->runs++;
			out->cells += p.cells;
			out->disturbed += p.disturbed;
			if (p.prefix > out->prefix)
				out->prefix = p.prefix;
		}
		free(p.v);
	}
	return 0;
}

/* A count metric's totals over the group's ok cells of test. */
void ul_runcmp_count_totals(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			    const char *test, double *count, double *exposure)
{
	*count = *exposure = 0.0;
	for (size_t r = 0; r < g->n_runs; r++)
		for (size_t i = 0; i < g->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &g->runs[r]->cells[i];
			double n, t;

			if (cell_counts(c, m, test) && count_of(c, m, &n, &t)) {
				*count += n;
				*exposure += t;
			}
		}
}

void ul_runcmp_crashes(const struct ul_runcmp_group *g, const char *suite, const char *test,
		       struct ul_runcmp_crash *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t r = 0; r < g->n_runs; r++) {
		const struct ul_run *run = g->runs[r];
		bool reached = false, crashed = false, ok = false;

		for (size_t i = 0; i < run->n_cells; i++) {
			const struct ul_cell *c = &run->cells[i];

			if (strcmp(c->suite, suite) || strcmp(ul_suite_cell_test(c), test))
				continue;
			reached = true;
			crashed |= c->outcome == UL_CELL_CRASHED;
			ok |= c->outcome == UL_CELL_OK;
		}
		out->reached += reached;
		out->crashed += crashed;
		out->pooled += ok && run->status == UL_RUN_CRASHED;
	}
}
