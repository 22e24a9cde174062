/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Stored runs -> comparison rows: the values of each side (runcmp_pool.c),
 * the fixed prefix of adaptively sampled cells, one ul_stats_compare() per
 * row, Holm per suite.
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

/* Does any group have a cell (suite, test)? */
static bool test_seen_before(const struct ul_runcmp_row *rows, size_t n_rows,
			     const struct ul_runcmp_metric *m, const char *test)
{
	for (size_t i = 0; i < n_rows; i++)
		if (rows[i].metric == m && !strcmp(rows[i].test, test))
			return true;
	return false;
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
		ul_runcmp_count_totals(side[i], row->metric, row->test, &s.count[i],
				       &s.exposure[i]);
		ul_runcmp_crashes(side[i], row->metric->suite, row->test, &row->crash[i]);
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
	if (!rc && !row->tested && (row->crash[0].crashed || row->crash[1].crashed))
		snprintf(row->why, sizeof(row->why), "%s",
			 !row->crash[1].crashed	 ? "the baseline crashed here: nothing measured"
			 : row->crash[0].crashed ? "the baseline and the candidate crashed here: "
						   "nothing measured"
						 : "the candidate crashed here: nothing measured");
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
						   c->rows[j].verdict_diff != UL_VERDICT_NONE;
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

/* Rows of one metric: every test of its suite seen in any group, first
 * seen first; the suite's first metric (`primary`) also gets a row for a
 * test seen only crashed, which has no values of any metric: a crash is
 * the row's outcome, never a row left out. */
static int add_metric_rows(struct ul_runcmp *c, size_t *cap, const struct ul_runcmp_metric *m,
			   bool primary)
{
	for (size_t g = 0; g < c->n_groups; g++)
		for (size_t r = 0; r < c->groups[g].n_runs; r++) {
			const struct ul_run *run = c->groups[g].runs[r];

			for (size_t i = 0; i < run->n_cells; i++) {
				const struct ul_cell *cell = &run->cells[i];

				if (strcmp(cell->suite, m->suite) ||
				    !(ul_runcmp_cell_has(cell, m) ||
				      (primary && cell->outcome == UL_CELL_CRASHED)) ||
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
		bool primary = !m || strcmp(metrics[m - 1].suite, metrics[m].suite);

		if (add_metric_rows(out, &cap, &metrics[m], primary)) {
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

const char *ul_runcmp_env_kind_name(enum ul_runcmp_env_kind k)
{
	switch (k) {
	case UL_ENV_COMPARED:
		return "compared";
	case UL_ENV_STATE:
		return "state";
	case UL_ENV_SETTING:
		break;
	}
	return "setting";
}

void ul_runcmp_free(struct ul_runcmp *c)
{
	free(c->rows);
	free(c->env);
	memset(c, 0, sizeof(*c));
}
