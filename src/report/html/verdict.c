/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's comparison of each label against the baseline, per suite
 * and test: the relative change of the median with its confidence interval
 * as bars, and a table with n, medians, p-value, verdict and Holm's
 * correction.  The rows are `underload compare`'s own (stats/runcmp.h:
 * same pooling, same fixed prefix of adaptively sampled cells, same test):
 * nothing is computed here, only drawn.
 */
#include "core/compat.h"
#include "model/suite.h"
#include "report/html/sections.h"
#include "report/plot.h"
#include "stats/runcmp.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void verdict_row(FILE *o, const struct ul_runcmp *c, const struct ul_runcmp_row *w)
{
	const struct ul_cmp_result *r = &w->res;
	double div;
	const char *unit = ul_plot_unit(w->metric->series,
					fmax(fabs(r->median_base), fabs(r->median_cand)), &div);

	fputs("<tr><td>", o);
	ul_svg_escape(o, w->test, sizeof(w->test));
	fputs("</td><td>", o);
	ul_svg_escape(o, c->groups[w->cand].label, sizeof(c->groups[w->cand].label));
	if (w->crash[0].crashed || w->crash[1].crashed) { /* the finding above any shift */
		fprintf(o,
			"</td><td colspan=\"9\" class=\"crash\">CRASHED: the candidate in %zu of "
			"%zu runs, the baseline in %zu of %zu (the machine went down in this test)",
			w->crash[1].crashed, w->crash[1].reached, w->crash[0].crashed,
			w->crash[0].reached);
		if (w->tested)
			fprintf(o, "; the other runs: %s", ul_cmp_verdict_name(r->verdict));
		fputs("</td></tr>\n", o);
		return;
	}
	if (!w->tested) {
		fputs("</td><td colspan=\"9\">", o);
		ul_svg_escape(o, w->why, sizeof(w->why));
		fputs("</td></tr>\n", o);
		return;
	}
	fprintf(o, "</td><td>%zu</td><td>%zu</td><td>%.3f %s</td><td>%.3f %s</td><td>%+.1f%%</td>",
		r->n_base, r->n_cand, r->median_base / div, unit, r->median_cand / div, unit,
		r->change_rel * 100);
	if (r->has_ci)
		fprintf(o, "<td>%+.1f%% .. %+.1f%%</td>", r->ci_lo_rel * 100, r->ci_hi_rel * 100);
	else
		fputs("<td>n too small</td>", o);
	fprintf(o, "<td>%.3g</td><td>%s", r->p, ul_cmp_verdict_name(r->verdict));
	if (r->need_per_side)
		fprintf(o, " (%s %zu replicates per side would show a shift this size)",
			w->need_floor ? "at least" : "about", r->need_per_side);
	fprintf(o, "</td><td>%s</td></tr>\n",
		r->verdict == UL_VERDICT_NONE ? ""
		: w->holm_survives	      ? "survives"
					      : "does not survive");
}

static void verdict_table(FILE *o, const struct ul_runcmp *c)
{
	bool prefix = false;

	fputs("<table class=\"verdicts\"><tr><th>test</th><th>label</th><th>n base</th>"
	      "<th>n</th><th>median base</th><th>median</th><th>change</th><th>95% CI</th>"
	      "<th>p</th><th>verdict</th><th>Holm</th></tr>\n",
	      o);
	for (size_t i = 0; i < c->n_rows; i++) {
		verdict_row(o, c, &c->rows[i]);
		prefix |= c->rows[i].prefix_base || c->rows[i].prefix_cand;
	}
	fputs("</table>\n", o);
	if (prefix)
		fputs("<p class=\"note\">Adaptively sampled cells enter the test with the points "
		      "taken before their stopping rule looked at the data (as in underload "
		      "compare); the plots below show every point.</p>\n",
		      o);
}

/* The bars of the tested rows; returns how many. */
static size_t verdict_bars(const struct ul_hdoc *d, const struct ul_runcmp *c,
			   const size_t *label_of, struct ul_chart_bar *bars)
{
	size_t n = 0;

	for (size_t i = 0; i < c->n_rows; i++) {
		const struct ul_runcmp_row *w = &c->rows[i];
		const struct ul_hlabel *l = &d->labels[label_of[w->cand]];

		if (!w->tested)
			continue;
		bars[n++] = (struct ul_chart_bar){
			.category = w->test,
			.group = l->label,
			.colour = l->colour,
			.value = w->res.change_rel * 100,
			.has_ci = w->res.has_ci,
			.lo = w->res.ci_lo_rel * 100,
			.hi = w->res.ci_hi_rel * 100,
			.note = ul_cmp_verdict_name(w->res.verdict),
		};
	}
	return n;
}

static void draw(struct ul_hdoc *d, const char *suite, const struct ul_runcmp *c,
		 const size_t *label_of)
{
	struct ul_chart_bar *bars = calloc(c->n_rows + 1, sizeof(*bars));
	char title[256];
	struct ul_chart_text tx = { .title = title, .x_label = "change of the median (%)" };
	size_t nb;
	FILE *f;

	if (!bars) {
		d->err = -ENOMEM;
		return;
	}
	nb = verdict_bars(d, c, label_of, bars);
	snprintf(title, sizeof(title), "%s: each label against %s", suite,
		 d->labels[d->baseline].label);
	if (nb) {
		f = ul_hdoc_figure_begin(d, suite, "versus", "baseline");
		ul_hdoc_figure_end(
			d, f, f ? ul_chart_bars(f, &tx, bars, nb, true, 0) : 0,
			"Relative change of the median against the baseline label, with "
			"the 95% confidence interval of the Hodges-Lehmann shift; verdict "
			"of the two-sided Mann-Whitney test at alpha 0.05, as underload "
			"compare gives it.");
	}
	if (d->html)
		verdict_table(d->html, c);
	free(bars);
}

int ul_html_compare(const struct ul_hdoc *d, const char *suite, struct ul_html_cmp *x)
{
	const struct ul_suite *su = ul_suite_find(suite);
	struct ul_cmp_opts o = { .test = UL_CMP_MWU, .alpha = 0.05 };
	size_t n = 0;
	int rc;

	/* Only a metric the suite declares has a direction to judge by. */
	if (d->n_labels < 2 || !su || !su->metrics || !su->metrics[0].series)
		return 0;
	x->m = (struct ul_runcmp_metric){
		suite,
		su->metrics[0].series,
		su->metrics[0].label,
		su->metrics[0].unit,
		su->metrics[0].direction == UL_HIGHER_IS_BETTER ? UL_BETTER_HIGHER
								: UL_BETTER_LOWER,
	};
	for (size_t k = 0; k < d->n_labels; k++) { /* the baseline first */
		size_t j = k == 0 ? d->baseline : k <= d->baseline ? k - 1 : k;

		memset(&x->g[n], 0, sizeof(x->g[n]));
		snprintf(x->g[n].label, sizeof(x->g[n].label), "%s", d->labels[j].label);
		x->g[n].runs = d->labels[j].runs;
		x->g[n].n_runs = d->labels[j].n_runs;
		x->label_of[n++] = j;
	}
	rc = ul_runcmp_build(x->g, n, &x->m, 1, &o, &x->c);
	if (rc)
		return rc;
	if (x->c.n_rows)
		return 1;
	ul_runcmp_free(&x->c);
	return 0;
}

void ul_html_verdicts(struct ul_hdoc *d, const char *suite)
{
	struct ul_html_cmp x;
	int rc;

	if (d->err)
		return;
	rc = ul_html_compare(d, suite, &x);
	if (rc < 0)
		d->err = rc;
	if (rc <= 0)
		return;
	draw(d, suite, &x.c, x.label_of);
	ul_runcmp_free(&x.c);
}
