/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report opens with the verdict, as `underload compare` does: one
 * row per suite, test and label against the baseline with the change,
 * its interval, the verdict coloured, Holm, and what undermines the row
 * (disturbed or no-pressure cells, crashes) on it.  The rows are the
 * suites' verdict tables' own (ul_html_compare); the environment and the
 * plots follow.
 */
#include "core/compat.h"
#include "model/suite.h"
#include "report/compare.h"
#include "report/html/sections.h"

#include <errno.h>
#include <stdio.h>

/* The class of a verdict's cell (the page's style colours it). */
static const char *const tone_class[] = {
	[UL_TONE_PLAIN] = "",
	[UL_TONE_WORSE] = " class=\"worse\"",
	[UL_TONE_BETTER] = " class=\"better\"",
	[UL_TONE_CRASHED] = " class=\"crash\"",
};

static void summary_row(FILE *o, const struct ul_runcmp *c, const struct ul_runcmp_row *r)
{
	char ch[16], ci[40], verdict[96], holm[8], flags[256];

	ul_report_compare_change(ch, sizeof(ch), ci, sizeof(ci), r);
	ul_report_compare_verdict(verdict, sizeof(verdict), c, r);
	ul_report_compare_holm(holm, sizeof(holm), r);
	ul_report_compare_flags(flags, sizeof(flags), c, r);
	fputs("<tr><td>", o);
	ul_svg_escape(o, r->metric->suite, SIZE_MAX);
	fputc(' ', o);
	ul_svg_escape(o, r->metric->label, SIZE_MAX);
	fputs("</td><td>", o);
	ul_svg_escape(o, r->test, sizeof(r->test));
	fputs("</td><td>", o);
	ul_svg_escape(o, c->groups[r->cand].label, sizeof(c->groups[r->cand].label));
	fprintf(o, "</td><td>%s</td><td>%s</td><td%s>", ch, ci,
		tone_class[ul_report_compare_tone(r)]);
	ul_svg_escape(o, verdict, sizeof(verdict));
	fprintf(o, "</td><td>%s</td><td%s>", holm, flags[0] ? " class=\"flag\"" : "");
	ul_svg_escape(o, flags, sizeof(flags));
	fputs("</td></tr>\n", o);
}

void ul_html_summary(struct ul_hdoc *d)
{
	bool open = false;

	if (!d->html || d->err || d->n_labels < 2)
		return;
	for (size_t i = 0; i < ul_suite_count() && !d->err; i++) {
		struct ul_html_cmp x;
		int rc = ul_html_compare(d, ul_suite_at(i)->name, &x);

		if (rc < 0)
			d->err = rc;
		if (rc <= 0)
			continue;
		if (!open) {
			ul_hdoc_heading(d, 2, "summary", "Summary");
			fputs("<table class=\"summary\"><tr><th>metric</th><th>test</th>"
			      "<th>label</th><th>change</th><th>95% CI</th><th>verdict</th>"
			      "<th>Holm</th><th>flags</th></tr>\n",
			      d->html);
			open = true;
		}
		for (size_t k = 0; k < x.c.n_rows; k++)
			summary_row(d->html, &x.c, &x.c.rows[k]);
		ul_runcmp_free(&x.c);
	}
	if (open)
		fputs("</table>\n<p class=\"note\">Each label against the baseline: the change "
		      "of the median with the confidence interval of the shift, the two-sided "
		      "Mann-Whitney test at alpha 0.05 and Holm's correction over each suite's "
		      "tests; the suites' sections below show the details.</p>\n",
		      d->html);
}
