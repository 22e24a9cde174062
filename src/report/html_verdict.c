/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's comparison of each label against the baseline, per suite
 * and test: the relative change of the median with its confidence interval
 * as bars, and a table with n, medians, p-value, verdict and whether the
 * row survives Holm's correction over the suite's tests.  Every number
 * comes from stats/compare.h (ul_stats_compare); nothing is computed here.
 */
#include "core/compat.h"
#include "report/html_doc.h"
#include "report/plot.h"
#include "stats/compare.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct vrow {
	const char *load;
	size_t label;
	struct ul_cmp_result r;
	char note[64];
	const char *unit;
	double div;
};

/* Which way is better for a suite's primary series: all of today's are
 * times (lower is better); a rate ("_per_s") is better higher. */
static enum ul_cmp_better better_of(const char *series)
{
	size_t n = strlen(series);

	return n > 6 && !strcmp(series + n - 6, "_per_s") ? UL_BETTER_HIGHER : UL_BETTER_LOWER;
}

/* Compares every label with the baseline on `load`; appends rows; 0 or -ENOMEM. */
static int compare_load(const struct ul_hdoc *d, const char *suite, const char *load,
			struct vrow *rows, size_t *nrows)
{
	const struct ul_hlabel *b = &d->labels[d->baseline];
	const char *series = "";
	double *bv, *cv;
	size_t nb, nc, bad;
	int rc = ul_hdoc_values(b, suite, load, 1, &bv, &nb, &series, &bad);

	for (size_t j = 0; !rc && j < d->n_labels; j++) {
		struct ul_cmp_opts o = { .test = UL_CMP_MWU, .alpha = 0.05, .better = better_of(series) };
		struct vrow *v = &rows[*nrows];

		if (j == d->baseline)
			continue;
		rc = ul_hdoc_values(&d->labels[j], suite, load, 1, &cv, &nc, &series, &bad);
		if (rc)
			break;
		if (nb >= 2 && nc >= 2 && !ul_stats_compare(bv, nb, cv, nc, &o, &v->r)) {
			v->load = load;
			v->label = j;
			v->unit = ul_plot_unit(series, fmax(fabs(v->r.median_base),
							    fabs(v->r.median_cand)), &v->div);
			snprintf(v->note, sizeof(v->note), "%s", ul_cmp_verdict_name(v->r.verdict));
			(*nrows)++;
		}
		free(cv);
	}
	free(bv);
	return rc;
}

static void verdict_table(FILE *o, const struct ul_hdoc *d, const struct vrow *rows, size_t n,
			  const bool *survive)
{
	fputs("<table class=\"verdicts\"><tr><th>test</th><th>label</th><th>n base</th>"
	      "<th>n</th><th>median base</th><th>median</th><th>change</th><th>95% CI</th>"
	      "<th>p</th><th>verdict</th><th>Holm</th></tr>\n",
	      o);
	for (size_t i = 0; i < n; i++) {
		const struct ul_cmp_result *r = &rows[i].r;

		fputs("<tr><td>", o);
		ul_svg_escape(o, rows[i].load, SIZE_MAX);
		fputs("</td><td>", o);
		ul_svg_escape(o, d->labels[rows[i].label].label, SIZE_MAX);
		fprintf(o, "</td><td>%zu</td><td>%zu</td><td>%.3f %s</td><td>%.3f %s</td>"
			   "<td>%+.1f%%</td>",
			r->n_base, r->n_cand, r->median_base / rows[i].div, rows[i].unit,
			r->median_cand / rows[i].div, rows[i].unit, r->change_rel * 100);
		if (r->has_ci)
			fprintf(o, "<td>%+.1f%% .. %+.1f%%</td>", r->ci_lo_rel * 100,
				r->ci_hi_rel * 100);
		else
			fputs("<td>n too small</td>", o);
		fprintf(o, "<td>%.3g</td><td>%s", r->p, ul_cmp_verdict_name(r->verdict));
		if (r->need_per_side)
			fprintf(o, " (about %zu points per side would show a shift this size)",
				r->need_per_side);
		fprintf(o, "</td><td>%s</td></tr>\n",
			r->verdict == UL_VERDICT_NONE ? "" : survive[i] ? "survives" : "does not survive");
	}
	fputs("</table>\n", o);
}

void ul_html_verdicts(struct ul_hdoc *d, const char *suite, const char *const *loads,
		      size_t n_loads)
{
	size_t cap = n_loads * d->n_labels + 1, n = 0;
	struct vrow *rows;
	struct ul_chart_bar *bars;
	double *p;
	bool *survive;
	char title[256];
	struct ul_chart_text tx = { .title = title, .x_label = "change of the median (%)" };
	FILE *f;

	if (d->n_labels < 2 || d->err)
		return;
	rows = calloc(cap, sizeof(*rows));
	bars = calloc(cap, sizeof(*bars));
	p = calloc(cap, sizeof(*p));
	survive = calloc(cap, sizeof(*survive));
	for (size_t k = 0; rows && bars && p && survive && k < n_loads && !d->err; k++)
		d->err = compare_load(d, suite, loads[k], rows, &n);
	if (!rows || !bars || !p || !survive)
		d->err = -ENOMEM;
	if (n && !d->err) {
		for (size_t i = 0; i < n; i++) {
			const struct ul_cmp_result *r = &rows[i].r;

			p[i] = r->p;
			bars[i] = (struct ul_chart_bar){
				.category = rows[i].load, .group = d->labels[rows[i].label].label,
				.colour = d->labels[rows[i].label].colour, .value = r->change_rel * 100,
				.has_ci = r->has_ci, .lo = r->ci_lo_rel * 100, .hi = r->ci_hi_rel * 100,
				.note = rows[i].note,
			};
		}
		ul_stats_holm(p, n, 0.05, NULL, survive);
		snprintf(title, sizeof(title), "%s: each label against %s", suite,
			 d->labels[d->baseline].label);
		f = ul_hdoc_figure_begin(d, suite, "versus", "baseline");
		ul_hdoc_figure_end(d, f, f ? ul_chart_bars(f, &tx, bars, n, true, 0) : 0,
				   "Relative change of the median against the baseline label, with "
				   "the 95% confidence interval of the Hodges-Lehmann shift; verdict "
				   "of the two-sided Mann-Whitney test at alpha 0.05 (underload "
				   "compare's statistics).");
		if (d->html)
			verdict_table(d->html, d, rows, n, survive);
	}
	free(rows);
	free(bars);
	free(p);
	free(survive);
}
