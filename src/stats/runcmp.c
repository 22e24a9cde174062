/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stored runs -> comparison rows: pooling per label, the fixed prefix of
 * adaptively sampled cells, one ul_stats_compare() per row, Holm per suite.
 */
#include "core/compat.h"
#include "stats/runcmp.h"
#include "model/suite.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
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

/* The values of m in cell c: the hook's, or the series'; 0 when none (and
 * for a count metric, which has one rate per cell: count_of()). */
static size_t cell_values(const struct ul_cell *c, const struct ul_runcmp_metric *m,
			  const int64_t **v)
{
	const struct ul_series *s;

	*v = NULL;
	if (m->exposure)
		return 0;
	if (m->values)
		return m->values(c, m->src, v);
	s = ul_cell_find_series(c, m->series);
	*v = s ? s->v : NULL;
	return s ? s->n : 0;
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
static bool cell_has(const struct ul_cell *c, const struct ul_runcmp_metric *m)
{
	const int64_t *x;
	double n, t;

	return m->exposure ? count_of(c, m, &n, &t) : cell_values(c, m, &x) && x;
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
	const int64_t *x = NULL;
	double fixed, count, exposure;
	size_t take;

	if (m->exposure)
		return count_of(c, m, &count, &exposure)
			       ? push_one(v, n, cap, 100.0 * count / exposure)
			       : 0;
	take = cell_values(c, m, &x);
	if (!take || !x)
		return 0;
	if (ul_cell_metric(c, UL_RUNCMP_FIXED_N, &fixed) && fixed >= 1 && fixed < (double)take) {
		take = (size_t)fixed;
		if (take > *prefix)
			*prefix = take;
	}
	return push_values(v, n, cap, x, take);
}

/* Is c an ok cell of m's suite and this test with values of m? */
static bool cell_counts(const struct ul_cell *c, const struct ul_runcmp_metric *m, const char *test)
{
	return c->outcome == UL_CELL_OK && !strcmp(c->suite, m->suite) &&
	       !strcmp(ul_suite_cell_test(c), test) && cell_has(c, m);
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

/* Does any group have a cell (suite, test)? */
static bool test_seen_before(const struct ul_runcmp_row *rows, size_t n_rows,
			     const struct ul_runcmp_metric *m, const char *test)
{
	for (size_t i = 0; i < n_rows; i++)
		if (rows[i].metric == m && !strcmp(rows[i].test, test))
			return true;
	return false;
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

/* p of the group's newest run against its other runs for (m, test); NAN if untestable. */
static int runs_agree(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		      const char *test, const struct ul_cmp_opts *opts, double *p)
{
	struct ul_runcmp_group newest = *g, rest = *g;
	struct ul_runcmp_pooled a = { 0 }, b = { 0 };
	struct ul_cmp_result r;
	int rc;

	*p = NAN;
	if (g->n_runs < 2)
		return 0;
	newest.n_runs = 1;
	rest.runs = g->runs + 1;
	rest.n_runs = g->n_runs - 1;
	rc = ul_runcmp_pool(&newest, m, test, &a);
	if (!rc)
		rc = ul_runcmp_pool(&rest, m, test, &b);
	if (!rc && a.n >= 2 && b.n >= 2 && !ul_stats_compare(a.v, a.n, b.v, b.n, opts, &r))
		*p = r.p;
	free(a.v);
	free(b.v);
	return rc;
}

/* A count metric's totals over the group's ok cells of test. */
static void count_totals(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
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

static int compare_row(const struct ul_runcmp *cmp, struct ul_runcmp_row *row)
{
	const struct ul_runcmp_group *side[2] = { &cmp->groups[0], &cmp->groups[row->cand] };
	/* the run-wide options with the row's own direction: a throughput
	 * that grows is "faster" (the metric says which way is better) */
	struct ul_cmp_opts opts = cmp->opts;
	struct ul_runcmp_sides s;
	int rc = 0;

	memset(&s, 0, sizeof(s));
	opts.better = row->metric->better;
	row->p_holm = NAN;
	row->p_runs_base = row->p_runs_cand = NAN;
	for (int i = 0; i < 2 && !rc; i++) {
		rc = ul_runcmp_pool(side[i], row->metric, row->test, &s.pts[i]);
		if (!rc)
			rc = ul_runcmp_replicates(side[i], row->metric, row->test, cmp->unit,
						  &s.rep[i]);
		count_totals(side[i], row->metric, row->test, &s.count[i], &s.exposure[i]);
	}
	row->runs_base = s.pts[0].runs;
	row->runs_cand = s.pts[1].runs;
	row->prefix_base = s.pts[0].prefix;
	row->prefix_cand = s.pts[1].prefix;
	row->cells_base = s.pts[0].cells;
	row->cells_cand = s.pts[1].cells;
	row->disturbed_base = s.pts[0].disturbed;
	row->disturbed_cand = s.pts[1].disturbed;
	if (!rc)
		rc = ul_runcmp_decide(cmp, row, &s);
	if (!rc && row->tested && !row->metric->exposure && cmp->unit == UL_RUNCMP_POINTS) {
		rc = runs_agree(side[0], row->metric, row->test, &opts, &row->p_runs_base);
		if (!rc)
			rc = runs_agree(side[1], row->metric, row->test, &opts, &row->p_runs_cand);
	}
	for (int i = 0; i < 2; i++) {
		free(s.pts[i].v);
		free(s.rep[i].v);
	}
	return rc;
}

/* Holm within each suite: the rows of one suite are one family. */
static int holm_per_suite(struct ul_runcmp *c)
{
	double *p = malloc((c->n_rows ? c->n_rows : 1) * sizeof(*p));
	double *adj = malloc((c->n_rows ? c->n_rows : 1) * sizeof(*adj));
	bool *keep = malloc((c->n_rows ? c->n_rows : 1) * sizeof(*keep));

	if (!p || !adj || !keep) {
		free(p);
		free(adj);
		free(keep);
		return -ENOMEM;
	}
	for (size_t i = 0; i < c->n_rows; i++) {
		const char *suite = c->rows[i].metric->suite;

		if (i && !strcmp(c->rows[i - 1].metric->suite, suite))
			continue; /* rows of a suite are contiguous: done at its first */
		for (size_t j = 0; j < c->n_rows; j++)
			p[j] = c->rows[j].tested && !strcmp(c->rows[j].metric->suite, suite)
				       ? c->rows[j].res.p
				       : NAN;
		ul_stats_holm(p, c->n_rows, c->opts.alpha, adj, keep);
		for (size_t j = 0; j < c->n_rows; j++) {
			if (isnan(p[j]))
				continue;
			c->rows[j].p_holm = adj[j];
			c->rows[j].holm_survives = keep[j] &&
						   c->rows[j].res.verdict != UL_VERDICT_NONE;
		}
	}
	free(p);
	free(adj);
	free(keep);
	return 0;
}

/* Add rows for every candidate for (m, test). */
static int add_test_rows(struct ul_runcmp *c, size_t *cap, const struct ul_runcmp_metric *m,
			 const char *test)
{
	for (size_t g = 1; g < c->n_groups; g++) {
		struct ul_runcmp_row *row;

		if (c->n_rows == *cap) {
			size_t ncap = *cap ? *cap * 2 : 16;
			struct ul_runcmp_row *nr = realloc(c->rows, ncap * sizeof(*nr));

			if (!nr)
				return -ENOMEM;
			c->rows = nr;
			*cap = ncap;
		}
		row = &c->rows[c->n_rows++];
		memset(row, 0, sizeof(*row));
		row->metric = m;
		snprintf(row->test, sizeof(row->test), "%s", test);
		row->cand = g;
		if (compare_row(c, row))
			return -ENOMEM;
	}
	return 0;
}

/* Rows of one metric: every test of its suite seen in any group, first seen first. */
static int add_metric_rows(struct ul_runcmp *c, size_t *cap, const struct ul_runcmp_metric *m)
{
	for (size_t g = 0; g < c->n_groups; g++)
		for (size_t r = 0; r < c->groups[g].n_runs; r++) {
			const struct ul_run *run = c->groups[g].runs[r];

			for (size_t i = 0; i < run->n_cells; i++) {
				const struct ul_cell *cell = &run->cells[i];

				if (strcmp(cell->suite, m->suite) || !cell_has(cell, m) ||
				    test_seen_before(c->rows, c->n_rows, m,
						     ul_suite_cell_test(cell)))
					continue;
				if (add_test_rows(c, cap, m, ul_suite_cell_test(cell)))
					return -ENOMEM;
			}
		}
	return 0;
}

int ul_runcmp_build(const struct ul_runcmp_group *groups, size_t n_groups,
		    const struct ul_runcmp_metric *metrics, size_t n_metrics,
		    const struct ul_cmp_opts *opts, struct ul_runcmp *out)
{
	return ul_runcmp_build_unit(groups, n_groups, metrics, n_metrics, opts, UL_RUNCMP_POINTS,
				    out);
}

int ul_runcmp_build_unit(const struct ul_runcmp_group *groups, size_t n_groups,
			 const struct ul_runcmp_metric *metrics, size_t n_metrics,
			 const struct ul_cmp_opts *opts, enum ul_runcmp_unit unit,
			 struct ul_runcmp *out)
{
	return ul_runcmp_build_hist(groups, n_groups, metrics, n_metrics, opts, unit, NULL, 0, out);
}

int ul_runcmp_build_hist(const struct ul_runcmp_group *groups, size_t n_groups,
			 const struct ul_runcmp_metric *metrics, size_t n_metrics,
			 const struct ul_cmp_opts *opts, enum ul_runcmp_unit unit,
			 const struct ul_runcmp_group *history, size_t n_history,
			 struct ul_runcmp *out)
{
	size_t cap = 0;

	memset(out, 0, sizeof(*out));
	if (n_groups < 2 || n_groups > UL_RUNCMP_MAX_GROUPS)
		return -EINVAL;
	out->history = history;
	out->n_history = n_history;
	out->opts = *opts;
	out->unit = unit;
	if (!(out->opts.alpha > 0.0))
		out->opts.alpha = 0.05;
	out->groups = groups;
	out->n_groups = n_groups;
	for (size_t m = 0; m < n_metrics; m++) {
		if (add_metric_rows(out, &cap, &metrics[m])) {
			ul_runcmp_free(out);
			return -ENOMEM;
		}
	}
	if (holm_per_suite(out)) {
		ul_runcmp_free(out);
		return -ENOMEM;
	}
	return 0;
}

int ul_runcmp_add_env(struct ul_runcmp *c, const struct ul_runcmp_env *e)
{
	struct ul_runcmp_env *ne = realloc(c->env, (c->n_env + 1) * sizeof(*ne));

	if (!ne)
		return -ENOMEM;
	c->env = ne;
	c->env[c->n_env++] = *e;
	c->n_unfair += e->unfair;
	return 0;
}

void ul_runcmp_free(struct ul_runcmp *c)
{
	free(c->rows);
	free(c->env);
	memset(c, 0, sizeof(*c));
}
