/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The top of the HTML report (contract: html.h): the page's head and
 * style, the walk over its sections (sections.h) into one page or one
 * SVG file per figure (doc.c), and the format descriptor.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/html/doc.h"
#include "report/html/sections.h"
#include "report/notes.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static const char html_css[] =
	"body{font:14px/1.4 sans-serif;color:#222;max-width:1400px;margin:1em auto;padding:0 1em}"
	"h1{font-size:1.5em}h2{border-bottom:2px solid #888;margin-top:2em}"
	"h3{margin-top:1.5em}figure{margin:.6em 0;display:inline-block;vertical-align:top;"
	"break-inside:avoid;page-break-inside:avoid}"
	"figcaption{font-size:12px;color:#555;max-width:440px}"
	"table{border-collapse:collapse;font-size:12px;margin:.5em 0}"
	"td,th{border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top}"
	"tr.diff td,tr.diff th{background:#fff3b0}tr.diff th::after{content:\" \\2260\"}"
	"tr.warn td,tr.warn th{background:#fdd}"
	"svg{max-width:100%;height:auto}.swatch{display:inline-block;width:.8em;height:.8em;"
	"margin-right:.3em}.note{color:#555;font-size:12px}"
	".crash{background:#b00;color:#fff;padding:.4em .8em;font-weight:bold}"
	"td.worse{color:#b00;font-weight:bold}td.better{color:#070;font-weight:bold}"
	"td.flag{background:#fff3b0}"
	"@media print{body{max-width:none}h2{break-before:auto}a{color:inherit}}";

/* At the top, one line per run whose machine went down under it: a
 * kernel that dies under a test is the finding above every plot. */
static void crash_banner(struct ul_hdoc *d)
{
	char where[256];
	bool in_test;

	for (size_t j = 0; j < d->n_labels; j++)
		for (size_t r = 0; r < d->labels[j].n_runs; r++) {
			const struct ul_run *run = d->labels[j].runs[r];

			if (run->status != UL_RUN_CRASHED)
				continue;
			in_test = ul_run_crash_where(run, where, sizeof(where)) >= 0;
			if (!in_test)
				(void)ul_run_crash_phrase(run, where, sizeof(where));
			fputs("<p class=\"crash\">CRASHED: ", d->html);
			ul_svg_escape(d->html, d->labels[j].label, SIZE_MAX);
			fprintf(d->html, ", run %.8s: the machine went down %s", run->uuid,
				in_test ? "during " : "");
			ul_svg_escape(d->html, where, SIZE_MAX);
			fputs(in_test ? " (a kernel crash, hang or reboot); that test has no "
					"measurement</p>\n"
				      : " (a kernel crash, hang or reboot)</p>\n",
			      d->html);
		}
}

static void page_head(struct ul_hdoc *d)
{
	FILE *o = d->html;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>"
	      "underload report: ",
	      o);
	for (size_t j = 0; j < d->n_labels; j++) {
		fputs(j ? ", " : "", o);
		ul_svg_escape(o, d->labels[j].label, SIZE_MAX);
	}
	fprintf(o, "</title>\n<style>%s</style></head><body>\n<h1>underload report</h1>\n<p>",
		html_css);
	for (size_t j = 0; j < d->n_labels; j++) {
		char outcome[96];

		ul_report_runs_outcome(d->labels[j].runs, d->labels[j].n_runs, outcome,
				       sizeof(outcome));
		fprintf(o, "<span class=\"swatch\" style=\"background:%s\"></span>",
			d->labels[j].colour);
		ul_svg_escape(o, d->labels[j].label, SIZE_MAX);
		fprintf(o, " (%zu run%s%s%s%s) &nbsp; ", d->labels[j].n_runs,
			d->labels[j].n_runs == 1 ? "" : "s, samples pooled", outcome[0] ? "; " : "",
			outcome, j == d->baseline && d->n_labels > 1 ? ", baseline" : "");
	}
	fputs("</p>\n", o);
	crash_banner(d);
}

static int walk(struct ul_hdoc *d, const struct ul_report_opts *opts)
{
	int rc;

	if (!d->n_runs)
		return -EINVAL;
	rc = ul_hdoc_group_labels(d, opts);
	if (rc) {
		ul_hdoc_free_labels(d);
		return rc;
	}
	if (d->html)
		page_head(d);
	ul_html_summary(d); /* the verdict first, then what might explain it */
	ul_html_environment(d);
	ul_html_suites(d);
	ul_html_monitors(d);
	if (d->html)
		fputs("</body></html>\n", d->html);
	ul_hdoc_free_labels(d);
	if (d->err)
		return d->err;
	return d->html ? ul_report_finish(d->html) : 0;
}

int ul_report_html(FILE *out, const struct ul_run *const *runs, size_t n,
		   const struct ul_report_opts *opts)
{
	struct ul_hdoc d = { .runs = runs, .n_runs = n, .html = out };

	return walk(&d, opts);
}

int ul_report_svgs(const struct ul_run *const *runs, size_t n, const struct ul_report_opts *opts,
		   const struct ul_report_sink *sink)
{
	struct ul_hdoc d = { .runs = runs, .n_runs = n, .sink = sink };

	return walk(&d, opts);
}

static int html_write_run(FILE *out, const struct ul_run *run)
{
	const struct ul_run *one[1] = { run };

	return ul_report_html(out, one, 1, NULL);
}

const struct ul_format ul_format_html = {
	.name = "html",
	.summary = "one self-contained HTML page of SVG plots: every sample, CDFs, boxes, monitors",
	.version = 1,
	.write_run = html_write_run,
	.write_runs = ul_report_html,
};
