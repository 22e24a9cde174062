/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload history`'s outputs: text, JSON and CSV (cmd/history.h). */
#include "core/compat.h"
#include "cmd/history.h"
#include "core/escape.h"
#include "report/common.h"
#include "report/json_write.h"
#include "report/quantity.h"
#include "report/table.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The JSON's format_version: bump on an incompatible change. */
#define UL_HISTORY_FORMAT_VERSION 1

static const char *order_name(enum ul_history_order o)
{
	return o == UL_HISTORY_BY_KERNEL ? "kernel" : o == UL_HISTORY_BY_LABEL ? "label" : "date";
}

/* The change point of the row whose new segment starts at point i, or NULL. */
static const struct ul_history_cp *cp_at(const struct ul_history_row *row, size_t i)
{
	for (size_t k = 0; k < row->n_cps; k++)
		if (row->index[row->cps[k].cp.pos] == i)
			return &row->cps[k];
	return NULL;
}

/* ---- text ---- */

enum {
	COL_POINT,
	COL_RUNS,
	COL_MEDIAN,
	COL_RANGE,
	COL_CHANGE,
	N_COLS
};

static void print_cp(FILE *out, const struct ul_history *h, const struct ul_history_row *row,
		     const struct ul_history_cp *c)
{
	const char *unit = row->metric.unit;
	char d[48], lo[48], hi[48];

	ul_fmt_quantity(d, sizeof(d), c->cp.abs, unit);
	fprintf(out, "change point between %s and %s: %+.1f%% (%s%s",
		ul_esc(h->points[row->index[c->cp.pos - 1]].key),
		ul_esc(h->points[row->index[c->cp.pos]].key), 100.0 * c->cp.rel,
		c->cp.abs > 0 ? "+" : "", d);
	if (c->cp.has_ci) {
		ul_fmt_quantity(lo, sizeof(lo), c->cp.lo, unit);
		ul_fmt_quantity(hi, sizeof(hi), c->cp.hi, unit);
		fprintf(out, ", shift %g%% CI %s .. %s", 100.0 * (1.0 - h->cp.alpha), lo, hi);
	} else {
		fprintf(out, ", segments too short for a %g%% CI", 100.0 * (1.0 - h->cp.alpha));
	}
	fprintf(out, "), p %.3g\n", c->cp.p);
	for (size_t f = 0; f < c->n_facts; f++)
		fprintf(out, "  %s: %s -> %s\n", ul_esc(c->facts[f].key),
			ul_esc(c->facts[f].before), ul_esc(c->facts[f].after));
	if (c->n_facts_all > c->n_facts)
		fprintf(out, "  ... and %zu more facts differ (--format json lists them)\n",
			c->n_facts_all - c->n_facts);
	if (!c->n_facts_all)
		fputs("  no fingerprint fact differs: the same kernel and settings\n", out);
}

static int print_row(FILE *out, const struct ul_history *h, const struct ul_history_row *row)
{
	static const char *const titles[N_COLS] = { "point", "runs", "median", "run range",
						    "change" };
	static const bool left[N_COLS] = { [COL_POINT] = true, [COL_RANGE] = true };
	struct ul_table t;
	int rc;

	fprintf(out, "\n%s %s, test %s (%s is better)\n", row->metric.suite, row->metric.label,
		row->test, row->metric.better == UL_BETTER_HIGHER ? "higher" : "lower");
	ul_table_init(&t, N_COLS, left, false);
	ul_table_add_titles(&t, titles);
	for (size_t k = 0; k < row->n; k++) {
		size_t i = row->index[k], r = ul_table_add_row(&t, ' ');
		const struct ul_history_cp *c = cp_at(row, i);
		char m[48], lo[48], hi[48];

		ul_fmt_quantity(m, sizeof(m), row->median[i], row->metric.unit);
		ul_fmt_quantity(lo, sizeof(lo), row->lo[i], row->metric.unit);
		ul_fmt_quantity(hi, sizeof(hi), row->hi[i], row->metric.unit);
		ul_table_set(&t, r, COL_POINT, "%s", ul_esc(h->points[i].key));
		ul_table_set(&t, r, COL_RUNS, "%zu", row->n_runs[i]);
		ul_table_set(&t, r, COL_MEDIAN, "%s", m);
		ul_table_set(&t, r, COL_RANGE, "%s .. %s", lo, hi);
		if (c)
			ul_table_set(&t, r, COL_CHANGE, "%+.1f%% <- p %.3g", 100.0 * c->cp.rel,
				     c->cp.p);
		else
			ul_table_set(&t, r, COL_CHANGE, "%s", "");
	}
	rc = ul_table_print(out, &t);
	ul_table_free(&t);
	if (rc)
		return rc;
	if (row->n < 2 * h->cp.min_size)
		fprintf(out, "too few points (%zu) to look for a change point: %zu or more\n",
			row->n, 2 * h->cp.min_size);
	else if (!row->n_cps)
		fprintf(out, "no change point (alpha %g)\n", h->cp.alpha);
	for (size_t k = 0; k < row->n_cps; k++)
		print_cp(out, h, row, &row->cps[k]);
	return 0;
}

int ul_history_text(FILE *out, const struct ul_history *h)
{
	size_t runs = 0;
	int rc = 0;

	for (size_t i = 0; i < h->n_points; i++)
		runs += h->points[i].n_runs;
	fprintf(out, "history of host '%s': %zu point%s by %s, %zu run%s",
		ul_esc(h->reference->host.hostname), h->n_points, h->n_points == 1 ? "" : "s",
		order_name(h->order), runs, runs == 1 ? "" : "s");
	if (h->n_other_config)
		fprintf(out, " (%zu run%s of other configurations left out)", h->n_other_config,
			h->n_other_config == 1 ? "" : "s");
	fprintf(out,
		"\nchange points: E-Divisive means (Matteson and James 2014), permutation test "
		"of %u shuffles, alpha %g\n",
		h->cp.permutations, h->cp.alpha);
	for (size_t i = 0; i < h->n_rows && !rc; i++)
		rc = print_row(out, h, &h->rows[i]);
	return rc ? rc : ul_report_finish(out);
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

static json_t *json_cp(const struct ul_history *h, const struct ul_history_row *row,
		       const struct ul_history_cp *c)
{
	json_t *facts = json_array();

	for (size_t f = 0; facts && f < c->n_facts; f++)
		json_array_append_new(facts,
				      json_pack("{s:s,s:s,s:s}", "key", c->facts[f].key, "before",
						c->facts[f].before, "after", c->facts[f].after));
	return json_pack("{s:s,s:s,s:I,s:o,s:o,s:o,s:o,s:o,s:o,s:f,s:f,s:o,s:I}", "before_point",
			 h->points[row->index[c->cp.pos - 1]].key, "after_point",
			 h->points[row->index[c->cp.pos]].key, "position", (json_int_t)c->cp.pos,
			 "median_before", jnum(c->cp.before), "median_after", jnum(c->cp.after),
			 "change", jnum(c->cp.abs), "change_rel", jnum(c->cp.rel), "shift_lo",
			 c->cp.has_ci ? jnum(c->cp.lo) : json_null(), "shift_hi",
			 c->cp.has_ci ? jnum(c->cp.hi) : json_null(), "p", c->cp.p, "statistic",
			 c->cp.q, "facts", facts, "facts_total", (json_int_t)c->n_facts_all);
}

static json_t *json_row(const struct ul_history *h, const struct ul_history_row *row)
{
	json_t *series = json_array(), *cps = json_array();

	for (size_t k = 0; series && k < row->n; k++) {
		size_t i = row->index[k];

		json_array_append_new(series,
				      json_pack("{s:s,s:I,s:f,s:f,s:f}", "point", h->points[i].key,
						"runs", (json_int_t)row->n_runs[i], "median",
						row->median[i], "run_min", row->lo[i], "run_max",
						row->hi[i]));
	}
	for (size_t k = 0; cps && k < row->n_cps; k++)
		json_array_append_new(cps, json_cp(h, row, &row->cps[k]));
	return json_pack("{s:s,s:s,s:s,s:s,s:s,s:s,s:o,s:o}", "suite", row->metric.suite, "metric",
			 row->metric.series, "label", row->metric.label, "unit", row->metric.unit,
			 "better", row->metric.better == UL_BETTER_HIGHER ? "higher" : "lower",
			 "test", row->test, "series", series, "change_points", cps);
}

int ul_history_json(FILE *out, const struct ul_history *h)
{
	json_t *points = json_array(), *rows = json_array(), *root;

	for (size_t i = 0; points && i < h->n_points; i++) {
		json_t *uuids = json_array();

		for (size_t r = 0; uuids && r < h->points[i].n_runs; r++)
			json_array_append_new(uuids, json_string(h->points[i].runs[r]->uuid));
		json_array_append_new(
			points, json_pack("{s:s,s:I,s:I,s:o}", "key", h->points[i].key, "first_ns",
					  (json_int_t)h->points[i].first_ns, "last_ns",
					  (json_int_t)h->points[i].last_ns, "runs", uuids));
	}
	for (size_t i = 0; rows && i < h->n_rows; i++)
		json_array_append_new(rows, json_row(h, &h->rows[i]));
	root = json_pack("{s:s,s:i,s:s,s:s,s:s,s:f,s:i,s:I,s:i,s:I,s:o,s:o}", "format",
			 "underload-history", "format_version", UL_HISTORY_FORMAT_VERSION, "host",
			 h->reference->host.hostname, "order", order_name(h->order), "method",
			 "e-divisive-means", "alpha", h->cp.alpha, "permutations",
			 (int)h->cp.permutations, "seed", (json_int_t)h->cp.seed, "min_size",
			 (int)h->cp.min_size, "other_config_runs", (json_int_t)h->n_other_config,
			 "points", points, "rows", rows);
	return ul_json_write(out, root);
}

/* ---- CSV: one line per row and point ---- */

static void csv_facts(FILE *out, const struct ul_history_cp *c)
{
	char buf[4096] = "";
	size_t off = 0;

	for (size_t f = 0; c && f < c->n_facts && off < sizeof(buf); f++)
		off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%s: %s -> %s",
					f ? "; " : "", c->facts[f].key, c->facts[f].before,
					c->facts[f].after);
	ul_csv_field(out, buf, SIZE_MAX, true);
}

int ul_history_csv(FILE *out, const struct ul_history *h)
{
	static const char *const head[] = {
		"suite",    "metric",	"unit",	   "test",	   "point",  "runs",
		"median",   "run_min",	"run_max", "change_point", "change", "change_rel",
		"shift_lo", "shift_hi", "p",	   "facts",
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(head); i++)
		ul_csv_field(out, head[i], SIZE_MAX, i + 1 == UL_ARRAY_SIZE(head));
	for (size_t r = 0; r < h->n_rows; r++) {
		const struct ul_history_row *row = &h->rows[r];

		for (size_t k = 0; k < row->n; k++) {
			size_t i = row->index[k];
			const struct ul_history_cp *c = cp_at(row, i);

			ul_csv_field(out, row->metric.suite, SIZE_MAX, false);
			ul_csv_field(out, row->metric.series, SIZE_MAX, false);
			ul_csv_field(out, row->metric.unit, SIZE_MAX, false);
			ul_csv_field(out, row->test, SIZE_MAX, false);
			ul_csv_field(out, h->points[i].key, SIZE_MAX, false);
			fprintf(out, "%zu,", row->n_runs[i]);
			ul_csv_num(out, row->median[i], false);
			ul_csv_num(out, row->lo[i], false);
			ul_csv_num(out, row->hi[i], false);
			fputs(c ? "1," : "0,", out);
			ul_csv_num(out, c ? c->cp.abs : NAN, false);
			ul_csv_num(out, c ? c->cp.rel : NAN, false);
			ul_csv_num(out, c && c->cp.has_ci ? c->cp.lo : NAN, false);
			ul_csv_num(out, c && c->cp.has_ci ? c->cp.hi : NAN, false);
			ul_csv_num(out, c ? c->cp.p : NAN, false);
			csv_facts(out, c);
		}
	}
	return ul_report_finish(out);
}
