/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * "Why was it slow" in the report (sections.h): each test's delay split
 * into its parts (model/breakdown.def), drawn as one stacked bar per label
 * of the medians `show --format breakdown` takes (report/breakdown.h), and
 * each label's samples' parts stacked in time order.  A label's cells of
 * a test that have a breakdown are pooled in run order, as the page pools
 * a label's samples; its cells without one (a run recorded before the
 * breakdown existed) are left out, and the runs without any are named in
 * one line when other runs of the suite have one.  Every value in ms.
 */
#include "core/compat.h"
#include "report/breakdown.h"
#include "report/common.h"
#include "report/html/sections.h"
#include "report/quantity.h"
#include "report/replicate.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The delay the parts split and the parts are in ns (report/breakdown.h),
 * whatever the unit of the cell's sample series; the charts draw ms. */
#define NS_PER_MS 1e6

/* One colour per part on every chart of the page, indexed by enum ul_breakdown_part. */
static const char *const part_colour[] = {
	[UL_PART_ONCPU] = "#0072b2",   [UL_PART_RUNQ] = "#d55e00",    [UL_PART_BLKIO] = "#009e73",
	[UL_PART_SWAPIN] = "#cc79a7",  [UL_PART_RECLAIM] = "#e69f00", [UL_PART_THRASH] = "#882255",
	[UL_PART_COMPACT] = "#56b4e9", [UL_PART_OTHER] = "#bbbbbb",
};
static_assert(UL_ARRAY_SIZE(part_colour) == UL_PART_COUNT,
	      "a part added to model/breakdown.def needs its colour here");

/* The registry's parts as the charts take them; names has UL_PART_COUNT rooms. */
static struct ul_chart_parts chart_parts(const char **names)
{
	for (int p = 0; p < UL_PART_COUNT; p++)
		names[p] = ul_breakdown_parts[p].label;
	return (struct ul_chart_parts){ .names = names,
					.colours = part_colour,
					.n = UL_PART_COUNT };
}

/*
 * The cells of `test` in l's runs that have a breakdown, pooled in run
 * order into *into (ul_cell_release() it in every case); into has no
 * series when there are none.  0 or -ENOMEM.
 */
static int label_test_cell(const struct ul_hlabel *l, const char *suite,
			   const struct ul_html_test *test, struct ul_cell *into)
{
	int err = 0;

	memset(into, 0, sizeof(*into));
	for (size_t r = 0; r < l->n_runs && !err; r++)
		for (size_t i = 0; i < l->runs[r]->n_cells && !err; i++) {
			const struct ul_cell *c = &l->runs[r]->cells[i];

			if (!strcmp(c->suite, suite) && !strcmp(c->load, test->load) &&
			    !strcmp(c->probe, test->probe) && ul_breakdown_has(c))
				err = ul_report_pool_cell(into, c);
		}
	return err;
}

/* Does the run have a cell of the suite with samples (*measured), and one
 * with a breakdown (the return)? */
static bool run_has_breakdown(const struct ul_run *run, const char *suite, bool *measured)
{
	bool has = false;

	*measured = false;
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		const struct ul_series *s = ul_report_primary(c);

		if (strcmp(c->suite, suite) || !s || !s->n)
			continue;
		*measured = true;
		has |= ul_breakdown_has(c);
	}
	return has;
}

/* The line naming the runs of the suite without a breakdown, when others have one. */
static void missing_line(struct ul_hdoc *d, const char *suite)
{
	size_t with = 0, without = 0;
	bool measured;

	for (size_t j = 0; j < d->n_labels; j++)
		for (size_t r = 0; r < d->labels[j].n_runs; r++) {
			bool has = run_has_breakdown(d->labels[j].runs[r], suite, &measured);

			with += has;
			without += measured && !has;
		}
	if (!with || !without || !d->html || d->err)
		return;
	fputs("<p class=\"note\">No breakdown of the delay (recorded without one) in: ", d->html);
	for (size_t j = 0, k = 0; j < d->n_labels; j++)
		for (size_t r = 0; r < d->labels[j].n_runs; r++) {
			const struct ul_run *run = d->labels[j].runs[r];

			if (run_has_breakdown(run, suite, &measured) || !measured)
				continue;
			fputs(k++ ? "; " : "", d->html);
			ul_svg_escape(d->html, d->labels[j].label, SIZE_MAX);
			fprintf(d->html, ", run %.8s", run->uuid);
		}
	fputs(".</p>\n", d->html);
}

/* "on-CPU, run queue, ..., other": the parts in stacking order. */
static void part_list(char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int p = 0; p < UL_PART_COUNT && o < len; p++)
		o += (size_t)snprintf(buf + o, len - o, "%s%s", p ? ", " : "",
				      ul_breakdown_parts[p].label);
}

/* The stacked bar of each test and label into b (v: UL_PART_COUNT values
 * each, notes 32 bytes each); the count, or -ENOMEM. */
static long fill_stacks(const struct ul_hdoc *d, const char *suite,
			const struct ul_html_test *tests, size_t n, struct ul_chart_stack *b,
			double *v, char (*notes)[32])
{
	size_t nb = 0;

	for (size_t k = 0; k < n; k++)
		for (size_t j = 0; j < d->n_labels; j++) {
			struct ul_breakdown_medians m;
			struct ul_cell pooled;
			int rc = label_test_cell(&d->labels[j], suite, &tests[k], &pooled);

			if (!rc)
				rc = ul_breakdown_medians(&pooled, &m); /* 1: no breakdown */
			ul_cell_release(&pooled);
			if (rc < 0)
				return rc;
			if (rc)
				continue;
			for (int p = 0; p < UL_PART_COUNT; p++)
				v[nb * UL_PART_COUNT + p] = m.counted[p] ? m.part[p] / NS_PER_MS
									 : NAN;
			ul_fmt_quantity(notes[nb], sizeof(notes[nb]), m.delay, "ns");
			b[nb] = (struct ul_chart_stack){
				.category = tests[k].name,
				.group = d->labels[j].label,
				.v = &v[nb * UL_PART_COUNT],
				.total = m.delay / NS_PER_MS,
				.note = notes[nb],
			};
			nb++;
		}
	return (long)nb;
}

void ul_html_breakdown(struct ul_hdoc *d, const char *suite, const struct ul_html_test *tests,
		       size_t n)
{
	size_t cap = n * d->n_labels;
	struct ul_chart_stack *b = calloc(cap ? cap : 1, sizeof(*b));
	double *v = calloc((cap ? cap : 1) * UL_PART_COUNT, sizeof(*v));
	char(*notes)[32] = calloc(cap ? cap : 1, sizeof(*notes));
	const char *names[UL_PART_COUNT];
	struct ul_chart_parts parts = chart_parts(names);
	char title[160], list[160], cap_text[640];
	struct ul_chart_text tx = { .title = title, .x_label = "ms" };
	long nb = b && v && notes ? fill_stacks(d, suite, tests, n, b, v, notes) : -ENOMEM;
	FILE *f;

	if (nb < 0 && !d->err)
		d->err = (int)nb;
	if (nb > 0 && !d->err) {
		snprintf(title, sizeof(title), "%s \xc2\xb7 why it was slow", suite);
		ul_hdoc_heading(d, 3, NULL, title);
		missing_line(d, suite);
		snprintf(title, sizeof(title), "%s: why it was slow, the median of each part",
			 suite);
		part_list(list, sizeof(list));
		snprintf(cap_text, sizeof(cap_text),
			 "Each bar: the median of each part of a label's samples of the test, "
			 "laid end to end (%s); the black tick and the number after the bar: "
			 "the median delay, as underload show --format breakdown prints it. "
			 "Each part is its own median, so the parts need not add up to the "
			 "tick. A part without a segment in a bar has a median of 0 there, or "
			 "was not counted (delay accounting was off: show prints n/c).",
			 list);
		f = ul_hdoc_figure_begin(d, suite, "why", "stacks");
		ul_hdoc_figure_end(d, f, f ? ul_chart_stacks(f, &tx, &parts, b, (size_t)nb) : 0,
				   cap_text);
	}
	free(b);
	free(v);
	free(notes);
}

/*
 * The parts of each sample of one label's pooled cell c (with a
 * breakdown), stacked.  The parts' series are as long as one another
 * (ul_breakdown_series), so their count is taken from one of them, never
 * from the sample series: a breakdown may split other wholes than the
 * samples (a client's life, a cell's window).  A cell of one such
 * whole gets no chart: its bar says it all.
 */
static int samples_chart(struct ul_hdoc *d, const char *suite, const struct ul_html_test *test,
			 const struct ul_hlabel *l, const struct ul_cell *c)
{
	const char *names[UL_PART_COUNT];
	struct ul_chart_parts parts = chart_parts(names);
	double *v[UL_PART_COUNT] = { NULL };
	size_t n = ul_breakdown_series(c, UL_PART_ONCPU)->n;
	char title[320], cap[256], slug[160];
	struct ul_chart_text tx = { .title = title,
				    .x_label = "sample (in time order)",
				    .y_label = "ms" };
	int err = 0;
	FILE *f;

	if (n < 2)
		return 0; /* one whole (a deadline cell's window): the bar above is all of it */
	for (int p = 0; p < UL_PART_COUNT && !err; p++) {
		const struct ul_series *s = ul_breakdown_series(c, (enum ul_breakdown_part)p);

		if (!s)
			continue;
		v[p] = malloc(n * sizeof(**v));
		if (!v[p]) {
			err = -ENOMEM;
			break;
		}
		for (size_t i = 0; i < n; i++)
			v[p][i] = (double)s->v[i] / NS_PER_MS;
	}
	if (!err) {
		snprintf(title, sizeof(title), "%s %s, %s: each sample's parts", suite, test->name,
			 l->label);
		snprintf(cap, sizeof(cap),
			 "The parts of each of %zu samples, stacked as in the bars above "
			 "(long series: each pixel column the mean of its samples)",
			 n);
		snprintf(slug, sizeof(slug), "parts %s", l->label); /* one figure per label */
		f = ul_hdoc_figure_begin(d, suite, test->name, slug);
		ul_hdoc_figure_end(
			d, f, f ? ul_chart_strata(f, &tx, &parts, (const double *const *)v, n) : 0,
			cap);
	}
	for (int p = 0; p < UL_PART_COUNT; p++)
		free(v[p]);
	return err;
}

void ul_html_breakdown_samples(struct ul_hdoc *d, const char *suite,
			       const struct ul_html_test *test)
{
	for (size_t j = 0; j < d->n_labels && !d->err; j++) {
		struct ul_cell pooled;
		int rc = label_test_cell(&d->labels[j], suite, test, &pooled);

		if (!rc && ul_breakdown_has(&pooled))
			rc = samples_chart(d, suite, test, &d->labels[j], &pooled);
		ul_cell_release(&pooled);
		if (rc)
			d->err = rc;
	}
}
