/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's per-suite sections: for every test, every raw sample in
 * time order, the empirical CDF and box plots, one colour per label (the
 * deadline suite draws its latency over time with the missed periods
 * marked instead of the plain scatter); the comparison against the
 * baseline; why the samples were slow (breakdown.c); contest's Time and
 * Loads per load.
 */
#include "core/compat.h"
#include "report/html/sections.h"
#include "report/plot.h"
#include "report/suites.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_NAMES 64

/* The values of one test, one group per label that has some. */
struct test_data {
	struct ul_chart_group g[UL_HTML_MAX_LABELS];
	double *v[UL_HTML_MAX_LABELS];
	size_t ng;
	const char *series, *unit;
	size_t bad; /* cells not OK */
};

static void test_data_free(struct test_data *t)
{
	for (size_t i = 0; i < UL_HTML_MAX_LABELS; i++)
		free(t->v[i]);
}

static int test_data_load(const struct ul_hdoc *d, const char *suite,
			  const struct ul_html_test *key, struct test_data *t)
{
	double max_abs = 0, div;

	memset(t, 0, sizeof(*t));
	t->series = "";
	for (size_t j = 0; j < d->n_labels; j++) {
		size_t n, bad;
		double *v;
		int rc = ul_hdoc_values(&d->labels[j], suite, key->load, key->probe, 1, &v, &n,
					&t->series, &bad);

		if (rc)
			return rc;
		t->bad += bad;
		if (!n)
			continue;
		for (size_t i = 0; i < n; i++)
			max_abs = fmax(max_abs, fabs(v[i]));
		t->v[t->ng] = v;
		t->g[t->ng] = (struct ul_chart_group){
			.name = d->labels[j].label, .colour = d->labels[j].colour, .v = v, .n = n
		};
		t->ng++;
	}
	t->unit = ul_plot_unit(t->series, max_abs, &div);
	for (size_t i = 0; i < t->ng; i++)
		for (size_t k = 0; k < t->g[i].n; k++)
			t->v[i][k] /= div;
	return 0;
}

/* The suite names of the runs, each once, in order of first appearance; at most MAX_NAMES. */
static size_t list_suites(const struct ul_hdoc *d, const char **out)
{
	size_t n = 0;

	for (size_t r = 0; r < d->n_runs; r++)
		for (size_t i = 0; i < d->runs[r]->n_cells; i++) {
			const char *name = d->runs[r]->cells[i].suite;
			size_t k;

			for (k = 0; k < n && strcmp(out[k], name); k++)
				;
			if (k == n && n < MAX_NAMES)
				out[n++] = name;
		}
	return n;
}

/* The (load, probe) tests of `suite`, each once, in order of first appearance. */
static size_t list_tests(const struct ul_hdoc *d, const char *suite, struct ul_html_test *out)
{
	size_t n = 0;
	bool probes = false, loads = false;

	for (size_t r = 0; r < d->n_runs; r++)
		for (size_t i = 0; i < d->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &d->runs[r]->cells[i];
			size_t k;

			if (strcmp(c->suite, suite))
				continue;
			for (k = 0; k < n && (strcmp(out[k].load, c->load) ||
					      strcmp(out[k].probe, c->probe));
			     k++)
				;
			if (k < n || n == MAX_NAMES)
				continue;
			out[n++] = (struct ul_html_test){ .load = c->load, .probe = c->probe };
			probes |= strcmp(out[0].probe, c->probe) != 0;
			loads |= strcmp(out[0].load, c->load) != 0;
		}
	for (size_t k = 0; k < n; k++)
		if (!probes)
			snprintf(out[k].name, sizeof(out[k].name), "%s", out[k].load);
		else if (!loads)
			snprintf(out[k].name, sizeof(out[k].name), "%s", out[k].probe);
		else
			snprintf(out[k].name, sizeof(out[k].name), "%s under %s", out[k].probe,
				 out[k].load);
	return n;
}

static void caption_counts(char *buf, size_t len, const struct test_data *t, const char *what)
{
	size_t o = (size_t)snprintf(buf, len, "%s; n =", what);

	for (size_t i = 0; i < t->ng && o < len; i++)
		o += (size_t)snprintf(buf + o, len - o, "%s %zu (%s)", i ? "," : "", t->g[i].n,
				      t->g[i].name);
	if (t->bad && o < len)
		snprintf(buf + o, len - o, "; %zu cell%s not OK (failed or interrupted) included",
			 t->bad, t->bad == 1 ? "" : "s");
}

/* The distribution plots of one test (`test`: its name for people). */
static void test_plots(struct ul_hdoc *d, const char *suite, const char *test,
		       const struct test_data *t)
{
	char title[256], ylab[96], cap[1024];
	struct ul_chart_text tx = { .title = title, .y_label = ylab };
	FILE *f;

	/* "delay_ns" in ms reads "delay (ms)": the unit suffix gives way to the display unit. */
	snprintf(ylab, sizeof(ylab), "%.*s%s%s%s", (int)ul_plot_unit_stem(t->series), t->series,
		 *t->unit ? " (" : "", t->unit, *t->unit ? ")" : "");
	if (!(ul_report_suite_flags(suite) & UL_RS_NO_SCATTER)) {
		snprintf(title, sizeof(title), "%s %s: every sample in time order", suite, test);
		tx.x_label = "sample (in time order)";
		caption_counts(cap, sizeof(cap), t,
			       "Every raw sample, one dot each (long series "
			       "keep each pixel column's smallest and largest)");
		f = ul_hdoc_figure_begin(d, suite, test, "scatter");
		ul_hdoc_figure_end(d, f, f ? ul_chart_scatter(f, &tx, t->g, t->ng) : 0, cap);
	}
	snprintf(title, sizeof(title), "%s %s: empirical CDF", suite, test);
	tx.x_label = ylab;
	tx.y_label = "fraction of samples \xe2\x89\xa4 x";
	caption_counts(cap, sizeof(cap), t,
		       "Share of samples at or below each value (log x when "
		       "the values span two decades)");
	f = ul_hdoc_figure_begin(d, suite, test, "cdf");
	ul_hdoc_figure_end(d, f, f ? ul_chart_cdf(f, &tx, t->g, t->ng) : 0, cap);

	snprintf(title, sizeof(title), "%s %s: box plots", suite, test);
	tx.x_label = "";
	tx.y_label = ylab;
	caption_counts(cap, sizeof(cap), t,
		       "Median, quartiles, whiskers at 1.5 IQR, points "
		       "beyond them");
	f = ul_hdoc_figure_begin(d, suite, test, "box");
	ul_hdoc_figure_end(d, f, f ? ul_chart_box(f, &tx, t->g, t->ng) : 0, cap);
}

/* A crash is a result of the test: one note per crashed cell, by label. */
static void crash_notes(struct ul_hdoc *d, const char *suite, const struct ul_html_test *key)
{
	for (size_t j = 0; j < d->n_labels && d->html && !d->err; j++)
		for (size_t r = 0; r < d->labels[j].n_runs; r++) {
			const struct ul_run *run = d->labels[j].runs[r];

			for (size_t i = 0; i < run->n_cells; i++) {
				const struct ul_cell *c = &run->cells[i];

				if (c->outcome != UL_CELL_CRASHED || strcmp(c->suite, suite) ||
				    strcmp(c->load, key->load) || strcmp(c->probe, key->probe))
					continue;
				fputs("<p class=\"note\">crashed: ", d->html);
				ul_svg_escape(d->html, d->labels[j].label, SIZE_MAX);
				fprintf(d->html, ", run %.8s, round %d: ", run->uuid,
					ul_run_cell_round(run, i));
				ul_svg_escape(d->html, c->note, SIZE_MAX);
				fputs("</p>\n", d->html);
			}
		}
}

static void suite_section(struct ul_hdoc *d, const char *suite)
{
	const struct ul_suite_report *hs = ul_report_suite(suite);
	struct ul_html_test *tests = calloc(MAX_NAMES, sizeof(*tests));
	char title[160];
	size_t n = tests ? list_tests(d, suite, tests) : 0;

	snprintf(title, sizeof(title), "Suite %s", suite);
	ul_hdoc_heading(d, 2, suite, title);
	if (hs->html_intro)
		hs->html_intro(d, suite);
	ul_html_verdicts(d, suite);
	if (!tests)
		d->err = -ENOMEM;
	ul_html_breakdown(d, suite, tests, n);
	for (size_t k = 0; k < n && !d->err; k++) {
		struct test_data t;
		int rc = test_data_load(d, suite, &tests[k], &t);

		snprintf(title, sizeof(title), "%s \xc2\xb7 %s", suite, tests[k].name);
		ul_hdoc_heading(d, 3, NULL, title);
		crash_notes(d, suite, &tests[k]);
		if (rc) {
			d->err = rc;
		} else if (t.ng) {
			if (hs->html_test)
				hs->html_test(d, suite, tests[k].load);
			ul_html_micro_curve(d, suite, tests[k].load, tests[k].probe);
			test_plots(d, suite, tests[k].name, &t);
			ul_html_breakdown_samples(d, suite, &tests[k]);
		}
		test_data_free(&t);
	}
	free(tests);
}

void ul_html_suites(struct ul_hdoc *d)
{
	const char *suites[MAX_NAMES];
	size_t n = list_suites(d, suites);

	for (size_t k = 0; k < n && !d->err; k++)
		suite_section(d, suites[k]);
}
