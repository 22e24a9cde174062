/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The history of one configuration (cmd/history.h): runs chosen and
 * grouped into points, the series of each suite, test and metric, its
 * change points, and the fingerprint facts that changed at each.
 */
#include "core/compat.h"
#include "cmd/history.h"
#include "cmd/compare.h"
#include "core/log.h"
#include "fingerprint/diff.h"
#include "model/suite.h"
#include "stats/stats.h"
#include "store/store.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The kernel release a run was measured on ("?" for runs without a fingerprint). */
static const char *run_release(const struct ul_run *r)
{
	const char *rel = json_string_value(
		json_object_get(json_object_get(r->fingerprint, "kernel"), "release"));

	return rel ? rel : "?";
}

static bool label_wanted(char *const *labels, size_t n, const char *label, size_t *at)
{
	if (!n) {
		*at = 0;
		return true;
	}
	for (size_t i = 0; i < n; i++)
		if (!strcmp(labels[i], label)) {
			*at = i;
			return true;
		}
	return false;
}

/* Load the scope's finished runs of the wanted labels, newest first. */
static int load_runs(const struct ul_cmd_scope *sc, char *const *labels, size_t n_labels,
		     struct ul_history *h)
{
	size_t at;

	h->loaded = calloc(sc->n ? sc->n : 1, sizeof(*h->loaded));
	if (!h->loaded)
		return -ENOMEM;
	for (size_t i = 0; i < sc->n; i++) {
		if (sc->sum[i].status == UL_RUN_RUNNING ||
		    !label_wanted(labels, n_labels, sc->sum[i].label, &at))
			continue;
		if (ul_cmd_load_run(sc->st, sc->sum[i].uuid, &h->loaded[h->n_loaded])) {
			ul_run_release(&h->loaded[h->n_loaded]);
			return -EIO;
		}
		h->n_loaded++;
	}
	return h->n_loaded ? 0 : -ENOENT;
}

static const char *point_key(const struct ul_history *h, const struct ul_run *r)
{
	return h->order == UL_HISTORY_BY_KERNEL ? run_release(r) : r->label;
}

/* The point of key, added (empty) when new; NULL without memory. */
static struct ul_history_point *point_of(struct ul_history *h, const char *key)
{
	struct ul_history_point *p;

	for (size_t i = 0; i < h->n_points; i++)
		if (!strcmp(h->points[i].key, key))
			return &h->points[i];
	p = &h->points[h->n_points];
	memset(p, 0, sizeof(*p));
	snprintf(p->key, sizeof(p->key), "%s", key);
	p->runs = calloc(h->n_loaded, sizeof(*p->runs));
	if (!p->runs)
		return NULL;
	h->n_points++;
	return p;
}

/* The labels given, for sorting points by them (qsort_r's context). */
struct label_order {
	char *const *labels;
	size_t n;
};

static int by_version(const void *a, const void *b, void *ctx)
{
	(void)ctx;
	return strverscmp(((const struct ul_history_point *)a)->key,
			  ((const struct ul_history_point *)b)->key);
}

static int by_date(const void *a, const void *b, void *ctx)
{
	int64_t x = ((const struct ul_history_point *)a)->first_ns;
	int64_t y = ((const struct ul_history_point *)b)->first_ns;

	(void)ctx;
	return (x > y) - (x < y);
}

/* Labels in the order given, then (none given) by date. */
static int by_label(const void *a, const void *b, void *ctx)
{
	const struct label_order *lo = ctx;
	size_t x = SIZE_MAX, y = SIZE_MAX;

	if (lo->n) {
		label_wanted(lo->labels, lo->n, ((const struct ul_history_point *)a)->key, &x);
		label_wanted(lo->labels, lo->n, ((const struct ul_history_point *)b)->key, &y);
	}
	return x != y ? (x > y) - (x < y) : by_date(a, b, ctx);
}

/* The runs of the newest run's configuration, grouped into sorted points. */
static int group_points(struct ul_history *h, char *const *labels, size_t n_labels)
{
	h->reference = &h->loaded[0];
	h->points = calloc(h->n_loaded, sizeof(*h->points));
	if (!h->points)
		return -ENOMEM;
	for (size_t i = 0; i < h->n_loaded; i++) {
		const struct ul_run *r = &h->loaded[i];
		struct ul_history_point *p;

		if (!ul_compare_same_config(r, h->reference)) {
			h->n_other_config++;
			continue;
		}
		p = point_of(h, point_key(h, r));
		if (!p)
			return -ENOMEM;
		if (!p->n_runs || r->started_wall_ns < p->first_ns)
			p->first_ns = r->started_wall_ns;
		if (!p->n_runs || r->started_wall_ns > p->last_ns)
			p->last_ns = r->started_wall_ns;
		p->runs[p->n_runs++] = r;
	}
	qsort_r(h->points, h->n_points, sizeof(*h->points),
		h->order == UL_HISTORY_BY_KERNEL  ? by_version
		: h->order == UL_HISTORY_BY_LABEL ? by_label
						  : by_date,
		&(struct label_order){ labels, n_labels });
	return 0;
}

/* A fact of the fingerprint's flat form: copy, cut to the field. */
static void fact_put(char *buf, size_t len, const json_t *flat, const char *key)
{
	const char *v = json_string_value(json_object_get(flat, key));

	snprintf(buf, len, "%s", v ? v : "(none)");
}

static void fact_add(struct ul_history_cp *c, const char *key, const json_t *before,
		     const json_t *after)
{
	struct ul_history_fact *f;

	c->n_facts_all++;
	if (c->n_facts == UL_HISTORY_MAX_FACTS)
		return;
	f = &c->facts[c->n_facts++];
	snprintf(f->key, sizeof(f->key), "%s", key);
	fact_put(f->before, sizeof(f->before), before, key);
	fact_put(f->after, sizeof(f->after), after, key);
}

/* Is `key` a setting or the kernel, not a moment (uptime, load, free memory)? */
static bool fact_matters(const char *key, const json_t *a, const json_t *b)
{
	const char *va = json_string_value(json_object_get(a, key));
	const char *vb = json_string_value(json_object_get(b, key));
	char fa[512], fb[512];

	if (ul_fp_classify(key) == UL_FP_VOLATILE)
		return false;
	if (!va || !vb)
		return va != vb;
	ul_fp_fair_value(key, va, fa, sizeof(fa));
	ul_fp_fair_value(key, vb, fb, sizeof(fb));
	return strcmp(fa, fb) != 0;
}

/* The facts that differ between the newest runs of two points: 0 or -ENOMEM. */
static int cp_facts(const struct ul_history_point *pb, const struct ul_history_point *pa,
		    struct ul_history_cp *c)
{
	json_t *before = ul_fp_flatten(pb->runs[0]->fingerprint);
	json_t *after = ul_fp_flatten(pa->runs[0]->fingerprint);
	const char *key;
	json_t *v;

	if (!before || !after) {
		json_decref(before);
		json_decref(after);
		return -ENOMEM;
	}
	json_object_foreach (after, key, v)
		if (fact_matters(key, before, after))
			fact_add(c, key, before, after);
	json_object_foreach (before, key, v)
		if (!json_object_get(after, key) && fact_matters(key, before, after))
			fact_add(c, key, before, after);
	json_decref(before);
	json_decref(after);
	return 0;
}

/* The row's points: the median of each point's run medians, and its range. */
static int row_series(const struct ul_history *h, struct ul_history_row *row)
{
	size_t n = h->n_points;

	row->median = calloc(n, sizeof(double));
	row->lo = calloc(n, sizeof(double));
	row->hi = calloc(n, sizeof(double));
	row->n_runs = calloc(n, sizeof(size_t));
	row->index = calloc(n, sizeof(size_t));
	if (!row->median || !row->lo || !row->hi || !row->n_runs || !row->index)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		const struct ul_history_point *p = &h->points[i];
		struct ul_runcmp_group g = { .runs = p->runs, .n_runs = p->n_runs };
		struct ul_runcmp_pooled med;

		if (ul_runcmp_pool_runs(&g, &row->metric, row->test, &med))
			return -ENOMEM;
		if (med.n) {
			ul_stats_sort(med.v, med.n);
			row->median[i] = ul_stats_median_sorted(med.v, med.n);
			row->lo[i] = med.v[0];
			row->hi[i] = med.v[med.n - 1];
			row->n_runs[i] = med.n;
			row->index[row->n++] = i;
		}
		free(med.v);
	}
	return 0;
}

static int row_changepoints(const struct ul_history *h, struct ul_history_row *row)
{
	struct ul_changepoint cps[UL_HISTORY_MAX_CP];
	double *x = malloc((row->n ? row->n : 1) * sizeof(double));
	size_t n_cps = 0;
	int rc;

	if (!x)
		return -ENOMEM;
	for (size_t i = 0; i < row->n; i++)
		x[i] = row->median[row->index[i]];
	rc = ul_changepoints(x, row->n, &h->cp, cps, UL_HISTORY_MAX_CP, &n_cps);
	free(x);
	for (size_t i = 0; i < n_cps && !rc; i++) {
		struct ul_history_cp *c = &row->cps[row->n_cps++];

		c->cp = cps[i];
		rc = cp_facts(&h->points[row->index[cps[i].pos - 1]],
			      &h->points[row->index[cps[i].pos]], c);
	}
	return rc;
}

/* Is `test` of `suite` already a row for metric m? */
static bool row_known(const struct ul_history *h, const struct ul_runcmp_metric *m,
		      const char *test)
{
	for (size_t i = 0; i < h->n_rows; i++)
		if (h->rows[i].metric.src == m->src && !strcmp(h->rows[i].test, test))
			return true;
	return false;
}

/* One row per metric of each suite and test the points' runs hold. */
static int build_rows(struct ul_history *h, const char *only)
{
	size_t cap = 0;

	for (size_t s = 0; s < ul_suite_count(); s++) {
		const struct ul_suite *suite = ul_suite_at(s);

		if ((only && strcmp(only, suite->name)) || !suite->metrics)
			continue;
		for (const struct ul_suite_metric *sm = suite->metrics; sm->series; sm++) {
			struct ul_runcmp_metric m = {
				.suite = suite->name,
				.series = sm->series,
				.label = sm->label,
				.unit = sm->unit,
				.better = sm->direction == UL_HIGHER_IS_BETTER ? UL_BETTER_HIGHER
									       : UL_BETTER_LOWER,
				.values = suite->metric_values,
				.src = sm,
				.exposure = sm->exposure,
			};

			if (m.exposure)
				continue; /* a count's rate: no replicate median to plot */
			for (size_t p = 0; p < h->n_points; p++)
				for (size_t r = 0; r < h->points[p].n_runs; r++)
					for (size_t c = 0; c < h->points[p].runs[r]->n_cells; c++) {
						const struct ul_cell *cell =
							&h->points[p].runs[r]->cells[c];
						const char *test = ul_suite_cell_test(cell);
						struct ul_history_row *row;

						if (cell->outcome != UL_CELL_OK ||
						    strcmp(cell->suite, suite->name) ||
						    !ul_runcmp_cell_has(cell, &m) ||
						    row_known(h, &m, test))
							continue;
						if (h->n_rows == cap) {
							size_t nc = cap ? 2 * cap : 8;
							void *nr =
								realloc(h->rows, nc * sizeof(*row));

							if (!nr)
								return -ENOMEM;
							h->rows = nr;
							cap = nc;
						}
						row = &h->rows[h->n_rows++];
						memset(row, 0, sizeof(*row));
						row->metric = m;
						snprintf(row->test, sizeof(row->test), "%s", test);
					}
		}
	}
	return 0;
}

int ul_history_build(const struct ul_cmd_scope *sc, char *const *labels, size_t n_labels,
		     const char *suite, enum ul_history_order order, const struct ul_cp_opts *cp,
		     struct ul_history *out)
{
	int rc;

	memset(out, 0, sizeof(*out));
	out->order = order;
	out->cp = *cp;
	rc = load_runs(sc, labels, n_labels, out);
	if (!rc)
		rc = group_points(out, labels, n_labels);
	if (!rc)
		rc = build_rows(out, suite);
	for (size_t i = 0; i < out->n_rows && !rc; i++) {
		rc = row_series(out, &out->rows[i]);
		if (!rc)
			rc = row_changepoints(out, &out->rows[i]);
	}
	return rc;
}

void ul_history_free(struct ul_history *h)
{
	for (size_t i = 0; i < h->n_rows; i++) {
		free(h->rows[i].median);
		free(h->rows[i].lo);
		free(h->rows[i].hi);
		free(h->rows[i].n_runs);
		free(h->rows[i].index);
	}
	free(h->rows);
	for (size_t i = 0; i < h->n_points; i++)
		free(h->points[i].runs);
	free(h->points);
	for (size_t i = 0; i < h->n_loaded; i++)
		ul_run_release(&h->loaded[i]);
	free(h->loaded);
	memset(h, 0, sizeof(*h));
}
