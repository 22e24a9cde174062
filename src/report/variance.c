/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `compare --variance` (report/variance.h): gathers each label's points
 * cell by cell and run by run, has stats/varcomp.c estimate the components
 * and the cheapest design, and prints them.
 *
 * The costs of one repetition at each level, in ns, each beyond the
 * levels below (medians over the label's cells and runs):
 *   a point: the run's interval (the think time before each point), plus
 *     the median point when the metric is a time (unit "ns");
 *   a round: a cell's wall time (finished - started) minus its points';
 *   a run: the run's wall time minus all its cells' (set-up, cleanup).
 * Without an interval and a metric in ns, a point costs its cell's wall
 * time over its points and a round nothing beyond.  Negative remainders
 * (clocks, a point cost estimated high) are 0.
 */
#include "core/compat.h"
#include "report/variance.h"
#include "core/escape.h"
#include "model/suite.h"
#include "report/json_write.h"
#include "report/quantity.h"
#include "stats/stats.h"
#include "stats/varcomp.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define NS_PER_S 1e9

/* One label's one test of one metric: what was measured and what it says. */
struct var_row {
	const struct ul_runcmp_group *g;
	const struct ul_runcmp_metric *m;
	const char *test;
	bool boots; /* every run an `underload vm` boot */
	struct ul_varcomp v;
	double cost[UL_VARCOMP_LEVELS]; /* ns */
	bool designed;
	struct ul_varcomp_design d;
	const char *why; /* no design: why */
};

/* A growing list of doubles. */
struct dvec {
	double *v;
	size_t n, cap;
};

static int dvec_push(struct dvec *d, double x)
{
	if (d->n == d->cap) {
		size_t nc = d->cap ? 2 * d->cap : 16;
		double *nv = realloc(d->v, nc * sizeof(*nv));

		if (!nv)
			return -ENOMEM;
		d->v = nv;
		d->cap = nc;
	}
	d->v[d->n++] = x;
	return 0;
}

/* The median of d (sorted in place); NAN when empty. */
static double dvec_median(struct dvec *d)
{
	if (!d->n)
		return NAN;
	ul_stats_sort(d->v, d->n);
	return ul_stats_median_sorted(d->v, d->n);
}

static bool cell_of(const struct ul_cell *c, const struct ul_runcmp_metric *m, const char *test)
{
	return c->outcome == UL_CELL_OK && !strcmp(c->suite, m->suite) &&
	       !strcmp(ul_suite_cell_test(c), test) && ul_runcmp_cell_has(c, m);
}

/* The points of one cell as compare tests them (fixed prefix and the
 * suite's hook): ul_runcmp_pool over a one-run, one-cell view. */
static int cell_points(const struct ul_cell *c, const struct ul_runcmp_metric *m, const char *test,
		       struct ul_runcmp_pooled *out)
{
	struct ul_run view = { .n_cells = 1 }; /* only cells and n_cells are read */
	const struct ul_run *one = &view;
	struct ul_runcmp_group g = { .runs = &one, .n_runs = 1 };

	view.cells = (struct ul_cell *)(uintptr_t)c; /* read only */
	return ul_runcmp_pool(&g, m, test, out);
}

/* Everything the rows of one label and test need, gathered once. */
struct gathered {
	struct ul_varcomp_run *runs;
	struct ul_varcomp_cell *cells; /* all runs' cells, in order */
	double **owned;		       /* each cell's malloc'ed points */
	size_t n_cells;
	struct dvec interval, cell_ns, cell_points, run_extra, all_points;
};

static void gathered_free(struct gathered *ga)
{
	for (size_t i = 0; i < ga->n_cells; i++)
		free(ga->owned[i]);
	free(ga->owned);
	free(ga->cells);
	free(ga->runs);
	free(ga->interval.v);
	free(ga->cell_ns.v);
	free(ga->cell_points.v);
	free(ga->run_extra.v);
	free(ga->all_points.v);
}

static size_t max_cells(const struct ul_runcmp_group *g)
{
	size_t n = 0;

	for (size_t r = 0; r < g->n_runs; r++)
		n += g->runs[r]->n_cells;
	return n ? n : 1;
}

/* A run's wall time beyond all its cells', when both are known. */
static int run_extra(const struct ul_run *run, struct dvec *out)
{
	double cells = 0.0;

	if (run->started_wall_ns <= 0 || run->finished_wall_ns <= run->started_wall_ns)
		return 0;
	for (size_t i = 0; i < run->n_cells; i++)
		if (run->cells[i].finished_wall_ns > run->cells[i].started_wall_ns)
			cells += (double)(run->cells[i].finished_wall_ns -
					  run->cells[i].started_wall_ns);
	return dvec_push(out, (double)(run->finished_wall_ns - run->started_wall_ns) - cells);
}

static int gather_cell(const struct ul_cell *c, const struct ul_runcmp_metric *m, const char *test,
		       struct gathered *ga)
{
	struct ul_runcmp_pooled p;
	int rc = cell_points(c, m, test, &p);

	if (rc || !p.n) {
		free(p.v);
		return rc;
	}
	ga->owned[ga->n_cells] = p.v;
	ga->cells[ga->n_cells++] = (struct ul_varcomp_cell){ .x = p.v, .n = p.n };
	for (size_t i = 0; i < p.n && !rc; i++)
		rc = dvec_push(&ga->all_points, p.v[i]);
	if (!rc && c->finished_wall_ns > c->started_wall_ns) {
		rc = dvec_push(&ga->cell_ns, (double)(c->finished_wall_ns - c->started_wall_ns));
		if (!rc)
			rc = dvec_push(&ga->cell_points, (double)p.n);
	}
	return rc;
}

static int gather(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		  const char *test, struct gathered *ga)
{
	size_t room = max_cells(g);
	int rc = 0;

	memset(ga, 0, sizeof(*ga));
	ga->runs = calloc(g->n_runs ? g->n_runs : 1, sizeof(*ga->runs));
	ga->cells = calloc(room, sizeof(*ga->cells));
	ga->owned = calloc(room, sizeof(*ga->owned));
	if (!ga->runs || !ga->cells || !ga->owned)
		return -ENOMEM;
	for (size_t r = 0; r < g->n_runs && !rc; r++) {
		const struct ul_run *run = g->runs[r];
		size_t first = ga->n_cells;

		for (size_t i = 0; i < run->n_cells && !rc; i++)
			if (cell_of(&run->cells[i], m, test))
				rc = gather_cell(&run->cells[i], m, test, ga);
		if (rc || ga->n_cells == first)
			continue;
		ga->runs[r] = (struct ul_varcomp_run){ .cells = ga->cells + first,
						       .n_cells = ga->n_cells - first };
		rc = dvec_push(&ga->interval, (double)run->params.interval_ns);
		if (!rc)
			rc = run_extra(run, &ga->run_extra);
	}
	return rc;
}

static double at_least_0(double x)
{
	return isfinite(x) && x > 0.0 ? x : 0.0;
}

/* The costs of one repetition at each level (see the head comment). */
static void costs(struct gathered *ga, const struct ul_runcmp_metric *m, double cost[])
{
	double point = at_least_0(dvec_median(&ga->interval)), per_cell, points;

	if (!strcmp(m->unit, "ns"))
		point += at_least_0(dvec_median(&ga->all_points));
	per_cell = dvec_median(&ga->cell_ns);
	points = dvec_median(&ga->cell_points);
	if (!(point > 0.0) && points > 0.0)
		point = at_least_0(per_cell / points);
	cost[UL_VARCOMP_POINTS] = point;
	cost[UL_VARCOMP_CELLS] = at_least_0(per_cell - points * point);
	cost[UL_VARCOMP_RUNS] = at_least_0(dvec_median(&ga->run_extra));
}

static bool all_in_vm(const struct ul_runcmp_group *g)
{
	for (size_t r = 0; r < g->n_runs; r++)
		if (!ul_run_in_vm(g->runs[r]))
			return false;
	return g->n_runs > 0;
}

static int build_row(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		     const char *test, double precision, struct var_row *row)
{
	struct gathered ga;
	int rc;

	memset(row, 0, sizeof(*row));
	row->g = g;
	row->m = m;
	row->test = test;
	row->boots = all_in_vm(g);
	rc = gather(g, m, test, &ga);
	if (!rc)
		rc = ul_varcomp_estimate(ga.runs, g->n_runs, &row->v);
	if (!rc) {
		costs(&ga, m, row->cost);
		if (!isfinite(row->v.comp[UL_VARCOMP_RUNS]))
			row->why = row->v.runs < 2 ? "one run: run 2 or more (of the label)"
				   : !isfinite(row->v.comp[UL_VARCOMP_CELLS])
					   ? "one round a run: run with --runs 2 or more"
					   : "one point a cell";
		else
			row->designed = !ul_varcomp_design(row->v.comp, row->cost, row->v.mean,
							   precision, &row->d);
		if (!row->why && !row->designed)
			row->why = "the mean is 0";
	}
	gathered_free(&ga);
	return rc == -EINVAL ? 0 : rc; /* -EINVAL: no points (cannot be: cell_of) */
}

int ul_variance_of(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
		   const char *test, double precision, struct ul_variance_of *out)
{
	struct var_row row;
	int rc = build_row(g, m, test, precision, &row);

	memset(out, 0, sizeof(*out));
	if (rc)
		return rc;
	out->v = row.v;
	memcpy(out->cost, row.cost, sizeof(out->cost));
	out->boots = row.boots;
	out->designed = row.designed;
	out->d = row.d;
	if (!row.designed && row.v.runs >= 2 && row.v.cells == row.v.runs && row.v.points &&
	    isfinite(row.v.s2[UL_VARCOMP_POINTS]) && isfinite(row.v.s2[UL_VARCOMP_RUNS])) {
		/* one cell a run: E[S3^2] = s3 + s2 + s1 mean(1/n), n taken as
		 * the mean points a cell (balanced) */
		double t3 = row.v.s2[UL_VARCOMP_RUNS] - row.v.s2[UL_VARCOMP_POINTS] *
								(double)row.v.cells /
								(double)row.v.points;

		out->merged = true;
		out->v.comp[UL_VARCOMP_POINTS] = row.v.s2[UL_VARCOMP_POINTS];
		out->v.comp[UL_VARCOMP_CELLS] = 0.0;
		out->v.truncated[UL_VARCOMP_RUNS] = t3 < 0.0;
		out->v.comp[UL_VARCOMP_RUNS] = t3 < 0.0 ? 0.0 : t3;
		out->designed =
			!ul_varcomp_design(out->v.comp, out->cost, out->v.mean, precision, &out->d);
	}
	return 0;
}

/* ---- text ---- */

/* "12.3% (40%)", "0%* (0%)" (truncated at 0), "-". */
static void fmt_level(char *buf, size_t len, const struct ul_varcomp *v, enum ul_varcomp_level l)
{
	double cv = ul_varcomp_cv(v, l);

	if (!isfinite(cv))
		snprintf(buf, len, "-");
	else if (isfinite(v->share[l]))
		snprintf(buf, len, "%.3g%%%s (%.0f%%)", 100.0 * cv, v->truncated[l] ? "*" : "",
			 100.0 * v->share[l]);
	else
		snprintf(buf, len, "%.3g%%%s", 100.0 * cv, v->truncated[l] ? "*" : "");
}

static void text_head(FILE *out, double precision, bool boots)
{
	fprintf(out,
		"\nvariance components (raw scale; the S.D. of each level as a CV of the mean, "
		"and in parentheses its share of the variance of the mean as measured; * an "
		"estimate below 0, shown as 0) and the cheapest design for a 95%% CI of "
		"+-%g%% of the mean (Kalibera and Jones 2013):\n",
		precision * 100.0);
	if (boots)
		fprintf(out, "(runs made by 'underload vm' are boots: 'runs' is between boots)\n");
	fprintf(out, "%-12s %-16s %4s %5s %6s %12s %14s %14s %14s %-26s %s\n", "test", "label",
		"runs", "cells", "points", "mean", "points CV", "rounds CV", "runs CV",
		"design pts x cells x runs", "machine time");
}

static void text_row(FILE *out, const struct var_row *r)
{
	char mean[24], lv[UL_VARCOMP_LEVELS][40], design[48], when[48];

	ul_fmt_quantity(mean, sizeof(mean), r->v.mean, r->m->unit);
	for (int l = 0; l < UL_VARCOMP_LEVELS; l++)
		fmt_level(lv[l], sizeof(lv[l]), &r->v, (enum ul_varcomp_level)l);
	if (r->designed) {
		snprintf(design, sizeof(design), "%zu x %zu x %zu%s", r->d.reps[UL_VARCOMP_POINTS],
			 r->d.reps[UL_VARCOMP_CELLS], r->d.reps[UL_VARCOMP_RUNS],
			 r->d.capped[0] || r->d.capped[1] || r->d.capped[2] ? " (capped)" : "");
		snprintf(when, sizeof(when), "%.3g s", r->d.cost / NS_PER_S);
	} else {
		snprintf(design, sizeof(design), "-");
		snprintf(when, sizeof(when), "(%s)", r->why ? r->why : "-");
	}
	fprintf(out, "%-12s %-16s %4zu %5zu %6zu %*s %14s %14s %14s %-26s %s\n", ul_esc(r->test),
		ul_esc(r->g->label), r->v.runs, r->v.cells, r->v.points, ul_fmt_width(mean, 12),
		mean, lv[0], lv[1], lv[2], design, when);
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A JSON string of stored text; invalid UTF-8 bytes become '?' (as
 * compare's JSON). */
static json_t *jstr(const char *s)
{
	json_t *v = json_string(s);
	char *copy;

	if (v || !(copy = strdup(s)))
		return v;
	for (char *c = copy; *c; c++)
		if ((unsigned char)*c >= 0x80)
			*c = '?';
	v = json_string(copy);
	free(copy);
	return v;
}

static json_t *json_level(const struct var_row *r, enum ul_varcomp_level l)
{
	return json_pack("{s:o,s:o,s:o,s:o,s:I,s:b,s:o}", "variance", jnum(r->v.comp[l]), "cv",
			 jnum(ul_varcomp_cv(&r->v, l)), "share", jnum(r->v.share[l]), "s2",
			 jnum(r->v.s2[l]), "df", (json_int_t)r->v.df[l], "truncated",
			 r->v.truncated[l], "cost_s", jnum(r->cost[l] / NS_PER_S));
}

static json_t *json_row(const struct var_row *r, double precision)
{
	/* counts n_*; the levels, as compare --variance's text names them */
	json_t *var = json_pack("{s:s,s:b,s:I,s:I,s:I,s:o,s:o,s:o,s:o,s:f}", "scale", "raw",
				"boots", r->boots, "n_runs", (json_int_t)r->v.runs, "n_cells",
				(json_int_t)r->v.cells, "n_points", (json_int_t)r->v.points, "mean",
				jnum(r->v.mean), "points", json_level(r, UL_VARCOMP_POINTS),
				"rounds", json_level(r, UL_VARCOMP_CELLS), "runs",
				json_level(r, UL_VARCOMP_RUNS), "precision", precision);

	if (!var)
		return NULL;
	if (r->designed)
		json_object_set_new(var, "design",
				    json_pack("{s:I,s:I,s:I,s:b,s:o,s:o}", "points_per_cell",
					      (json_int_t)r->d.reps[UL_VARCOMP_POINTS],
					      "cells_per_run",
					      (json_int_t)r->d.reps[UL_VARCOMP_CELLS], "runs",
					      (json_int_t)r->d.reps[UL_VARCOMP_RUNS], "capped",
					      r->d.capped[0] || r->d.capped[1] || r->d.capped[2],
					      "machine_time_s", jnum(r->d.cost / NS_PER_S),
					      "half_width_rel", jnum(r->d.half_width_rel)));
	else
		json_object_set_new(var, "design", json_null());
	if (r->why)
		json_object_set_new(var, "why", json_string(r->why));
	return json_pack("{s:o,s:s,s:s,s:s,s:o,s:o}", "label", jstr(r->g->label), "suite",
			 r->m->suite, "metric", r->m->series, "unit", r->m->unit, "test",
			 jstr(r->test), "variance", var);
}

/* ---- CSV ---- */

static const char *const csv_head[] = {
	"label",
	"suite",
	"metric",
	"unit",
	"test",
	"runs",
	"cells",
	"points",
	"mean",
	"var_points",
	"cv_points",
	"share_points",
	"var_rounds",
	"cv_rounds",
	"share_rounds",
	"var_runs",
	"cv_runs",
	"share_runs",
	"cost_point_s",
	"cost_round_s",
	"cost_run_s",
	"precision",
	"design_points_per_cell",
	"design_cells_per_run",
	"design_runs",
	"design_machine_time_s",
	"boots",
};

static void csv_row(FILE *out, const struct var_row *r, double precision)
{
	ul_csv_field(out, r->g->label, SIZE_MAX, false);
	ul_csv_field(out, r->m->suite, SIZE_MAX, false);
	ul_csv_field(out, r->m->series, SIZE_MAX, false);
	ul_csv_field(out, r->m->unit, SIZE_MAX, false);
	ul_csv_field(out, r->test, SIZE_MAX, false);
	ul_csv_num(out, (double)r->v.runs, false);
	ul_csv_num(out, (double)r->v.cells, false);
	ul_csv_num(out, (double)r->v.points, false);
	ul_csv_num(out, r->v.mean, false);
	for (int l = 0; l < UL_VARCOMP_LEVELS; l++) {
		ul_csv_num(out, r->v.comp[l], false);
		ul_csv_num(out, ul_varcomp_cv(&r->v, (enum ul_varcomp_level)l), false);
		ul_csv_num(out, r->v.share[l], false);
	}
	for (int l = 0; l < UL_VARCOMP_LEVELS; l++)
		ul_csv_num(out, r->cost[l] / NS_PER_S, false);
	ul_csv_num(out, precision, false);
	for (int l = 0; l < UL_VARCOMP_LEVELS; l++)
		ul_csv_num(out, r->designed ? (double)r->d.reps[l] : NAN, false);
	ul_csv_num(out, r->designed ? r->d.cost / NS_PER_S : NAN, false);
	ul_csv_field(out, r->boots ? "1" : "0", SIZE_MAX, true);
}

/* ---- the rows ---- */

/* The tests of m's suite in g's cells, first seen first: *n of them. */
static const char **tests_of(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *m,
			     size_t *n)
{
	const char **t = calloc(max_cells(g), sizeof(*t));

	*n = 0;
	if (!t)
		return NULL;
	for (size_t r = 0; r < g->n_runs; r++)
		for (size_t i = 0; i < g->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &g->runs[r]->cells[i];
			const char *name = ul_suite_cell_test(c);
			bool seen = false;

			if (c->outcome != UL_CELL_OK || strcmp(c->suite, m->suite) ||
			    !ul_runcmp_cell_has(c, m))
				continue;
			for (size_t k = 0; k < *n && !seen; k++)
				seen = !strcmp(t[k], name);
			if (!seen)
				t[(*n)++] = name;
		}
	return t;
}

/* Is any group's every run an `underload vm` boot? */
static bool any_boots(const struct ul_runcmp_group *groups, size_t n_groups)
{
	for (size_t g = 0; g < n_groups; g++)
		if (groups[g].n_runs && all_in_vm(&groups[g]))
			return true;
	return false;
}

int ul_report_variance(FILE *out, const struct ul_runcmp_group *groups, size_t n_groups,
		       const struct ul_runcmp_metric *metrics, size_t n_metrics, double precision,
		       const char *format)
{
	bool json = !strcmp(format, "json"), csv = !strcmp(format, "csv");
	json_t *rows = json ? json_array() : NULL;
	int rc = json && !rows ? -ENOMEM : 0;

	if (csv)
		for (size_t i = 0; i < UL_ARRAY_SIZE(csv_head); i++)
			ul_csv_field(out, csv_head[i], SIZE_MAX, i + 1 == UL_ARRAY_SIZE(csv_head));
	for (size_t mi = 0; mi < n_metrics && !rc; mi++) {
		const struct ul_runcmp_metric *m = &metrics[mi];

		if (m->exposure) /* one rate per cell: no points within a cell */
			continue;
		if (!json && !csv) {
			fprintf(out, "\n%s %s (%s)", m->suite, m->label, m->unit);
			text_head(out, precision, any_boots(groups, n_groups));
		}
		for (size_t g = 0; g < n_groups && !rc; g++) {
			size_t n_tests;
			const char **tests = tests_of(&groups[g], m, &n_tests);

			if (!tests)
				rc = -ENOMEM;
			for (size_t t = 0; t < n_tests && !rc; t++) {
				struct var_row row;

				rc = build_row(&groups[g], m, tests[t], precision, &row);
				if (rc)
					break;
				if (json)
					rc = json_array_append_new(rows, json_row(&row, precision))
						     ? -ENOMEM
						     : 0;
				else if (csv)
					csv_row(out, &row, precision);
				else
					text_row(out, &row);
			}
			free(tests);
		}
	}
	if (json && !rc) {
		json_t *root = json_pack("{s:s,s:i,s:f,s:s,s:o}", "format",
					 "underload-compare-variance", "format_version",
					 UL_REPORT_VARIANCE_VERSION, "precision", precision,
					 "estimator",
					 "nested method of moments (Kalibera-Jones 2013)", "rows",
					 json_incref(rows));

		rc = ul_json_write(out, root);
	}
	json_decref(rows);
	return rc ? rc : ferror(out) ? -EIO : 0;
}
