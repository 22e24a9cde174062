/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The HTML report's page: head and style, the runs grouped by label, the
 * figures (in the page or one SVG file each) and the format descriptor.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/html/doc.h"
#include "report/plot.h"

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
	"svg{max-width:100%;height:auto}.swatch{display:inline-block;width:.8em;height:.8em;"
	"margin-right:.3em}.note{color:#555;font-size:12px}"
	"@media print{body{max-width:none}h2{break-before:auto}a{color:inherit}}";

void ul_hdoc_heading(struct ul_hdoc *d, int level, const char *id, const char *text)
{
	if (!d->html || d->err)
		return;
	fprintf(d->html, "<h%d", level);
	if (id) {
		fputs(" id=\"", d->html);
		ul_svg_escape(d->html, id, SIZE_MAX);
		fputc('"', d->html);
	}
	fputc('>', d->html);
	ul_svg_escape(d->html, text, SIZE_MAX);
	fprintf(d->html, "</h%d>\n", level);
}

/* Appends a cleaned slug part: [a-z0-9.] kept, anything else one '-'. */
static void slug_part(char *buf, size_t len, const char *s)
{
	size_t o = strlen(buf);

	if (o && o + 1 < len)
		buf[o++] = '-';
	for (; s && *s && o + 1 < len; s++) {
		char c = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : *s;

		if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || (c == '.' && o))
			buf[o++] = c;
		else if (o && buf[o - 1] != '-')
			buf[o++] = '-';
	}
	buf[o] = '\0';
}

FILE *ul_hdoc_figure_begin(struct ul_hdoc *d, const char *a, const char *b, const char *c)
{
	char slug[160];
	FILE *f;

	if (d->err)
		return NULL;
	snprintf(slug, sizeof(slug), "%02u", ++d->n_figures);
	slug_part(slug, sizeof(slug), a);
	slug_part(slug, sizeof(slug), b);
	slug_part(slug, sizeof(slug), c);
	if (d->html) {
		fprintf(d->html, "<figure id=\"f%s\">\n", slug);
		return d->html;
	}
	f = d->sink->open(d->sink->ctx, slug);
	if (!f)
		d->err = errno ? -errno : -EIO;
	return f;
}

void ul_hdoc_figure_end(struct ul_hdoc *d, FILE *f, int rc, const char *caption)
{
	if (!f)
		return;
	if (rc == -EINVAL && d->html) { /* nothing to draw: say so instead of a picture */
		fputs("<p class=\"note\">no data</p>", d->html);
		rc = 0;
	}
	if (rc && !d->err)
		d->err = rc;
	if (d->html) {
		fputs("<figcaption>", d->html);
		ul_svg_escape(d->html, caption ? caption : "", SIZE_MAX);
		fputs("</figcaption></figure>\n", d->html);
		return;
	}
	rc = d->sink->close(d->sink->ctx, f);
	if (rc && !d->err)
		d->err = rc;
}

int ul_hdoc_values(const struct ul_hlabel *l, const char *suite, const char *load,
		   const char *probe, double div, double **out, size_t *n, const char **series,
		   size_t *bad)
{
	size_t total = 0, k = 0;

	*out = NULL;
	*n = 0;
	*bad = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t r = 0; r < l->n_runs; r++)
			for (size_t i = 0; i < l->runs[r]->n_cells; i++) {
				const struct ul_cell *c = &l->runs[r]->cells[i];
				const struct ul_series *s = ul_report_primary(c);

				if (strcmp(c->suite, suite) || strcmp(c->load, load) || !s ||
				    (probe && strcmp(c->probe, probe)))
					continue;
				if (!pass) {
					total += s->n;
					*bad += c->outcome != UL_CELL_OK;
					*series = s->name;
					continue;
				}
				for (size_t j = 0; j < s->n; j++)
					(*out)[k++] = (double)s->v[j] / div;
			}
		if (!pass) {
			if (!total)
				return 0;
			*out = malloc(total * sizeof(**out));
			if (!*out)
				return -ENOMEM;
		}
	}
	*n = k;
	return 0;
}

/* Groups the runs by label in the order given; -E2BIG beyond UL_HTML_MAX_LABELS. */
static int group_labels(struct ul_hdoc *d, const struct ul_report_opts *opts)
{
	for (size_t i = 0; i < d->n_runs; i++) {
		size_t j;

		for (j = 0; j < d->n_labels; j++)
			if (!strcmp(d->labels[j].label, d->runs[i]->label))
				break;
		if (j == d->n_labels) {
			if (j == UL_HTML_MAX_LABELS)
				return -E2BIG;
			d->labels[j].label = d->runs[i]->label;
			d->labels[j].colour = ul_plot_colour(j);
			d->labels[j].runs = calloc(d->n_runs, sizeof(*d->labels[j].runs));
			if (!d->labels[j].runs)
				return -ENOMEM;
			d->n_labels++;
		}
		d->labels[j].runs[d->labels[j].n_runs++] = d->runs[i];
	}
	for (size_t j = 0; opts && opts->baseline && j < d->n_labels; j++)
		if (!strcmp(d->labels[j].label, opts->baseline))
			d->baseline = j;
	return 0;
}

static void free_labels(struct ul_hdoc *d)
{
	for (size_t j = 0; j < d->n_labels; j++)
		free(d->labels[j].runs);
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
		fprintf(o, "<span class=\"swatch\" style=\"background:%s\"></span>",
			d->labels[j].colour);
		ul_svg_escape(o, d->labels[j].label, SIZE_MAX);
		fprintf(o, " (%zu run%s%s) &nbsp; ", d->labels[j].n_runs,
			d->labels[j].n_runs == 1 ? "" : "s, samples pooled",
			j == d->baseline && d->n_labels > 1 ? ", baseline" : "");
	}
	fputs("</p>\n", o);
}

static int walk(struct ul_hdoc *d, const struct ul_report_opts *opts)
{
	int rc;

	if (!d->n_runs)
		return -EINVAL;
	rc = group_labels(d, opts);
	if (rc) {
		free_labels(d);
		return rc;
	}
	if (d->html)
		page_head(d);
	ul_html_environment(d);
	ul_html_suites(d);
	ul_html_monitors(d);
	if (d->html)
		fputs("</body></html>\n", d->html);
	free_labels(d);
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
