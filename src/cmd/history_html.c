/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload report --history`: the history (cmd/history.h) as one
 * self-contained HTML page, one trend plot per suite, test and metric:
 * the points' medians with the run-to-run range (the smallest and largest
 * run median) as dashed lines, the segments between change points as
 * named bands and each change point as a red mark, then the change points'
 * numbers and the fingerprint facts that changed.
 */
#include "core/compat.h"
#include "cmd/history.h"
#include "report/plot.h"
#include "report/quantity.h"
#include "report/svg/svg.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static const char page_css[] =
	"body{font:14px/1.4 sans-serif;color:#222;max-width:1400px;margin:1em auto;padding:0 1em}"
	"h1{font-size:1.5em}h2{border-bottom:2px solid #888;margin-top:2em}"
	"figure{margin:.6em 0}figcaption{font-size:12px;color:#555}"
	"ul.facts{font-size:12px;margin:.2em 0 1em}";

static void esc(FILE *out, const char *s)
{
	ul_svg_escape(out, s, SIZE_MAX);
}

/* The bands: each segment between change points, named by its first and last key. */
static int row_bands(const struct ul_history *h, const struct ul_history_row *row,
		     struct ul_chart_band *bands, char (*names)[280], size_t *n)
{
	size_t start = 0;

	*n = 0;
	for (size_t k = 0; k <= row->n_cps; k++) {
		size_t end = k < row->n_cps ? row->cps[k].cp.pos : row->n; /* exclusive */

		snprintf(names[*n], sizeof(names[*n]), "%s .. %s", h->points[row->index[start]].key,
			 h->points[row->index[end - 1]].key);
		bands[*n] = (struct ul_chart_band){ .name = names[*n],
						    .x0 = (double)start - 0.5,
						    .x1 = (double)end - 0.5 };
		(*n)++;
		start = end;
	}
	return 0;
}

static int row_plot(FILE *out, const struct ul_history *h, const struct ul_history_row *row)
{
	struct ul_chart_band bands[UL_HISTORY_MAX_CP + 1];
	char names[UL_HISTORY_MAX_CP + 1][280];
	double *x = calloc(row->n + 1, sizeof(double)), *med = calloc(row->n + 1, sizeof(double));
	double *lo = calloc(row->n + 1, sizeof(double)), *hi = calloc(row->n + 1, sizeof(double));
	const char **keys = calloc(row->n + 1, sizeof(*keys)); /* each point's name */
	double marks[UL_HISTORY_MAX_CP];
	char title[256], ylab[64];
	const char *unit;
	double div, max_abs = 0;
	size_t n_bands;
	int rc = -ENOMEM;

	if (x && med && lo && hi && keys) {
		struct ul_chart_line lines[] = {
			{ "median of the run medians", ul_plot_colour(0), x, med, row->n, false },
			{ "smallest run median", ul_plot_colour(1), x, lo, row->n, true },
			{ "largest run median", ul_plot_colour(1), x, hi, row->n, true },
		};
		struct ul_chart_series s = { .lines = lines,
					     .n_lines = 3,
					     .bands = bands,
					     .marks = marks,
					     .n_marks = row->n_cps,
					     .x_names = keys,
					     .n_x_names = row->n };
		struct ul_chart_text t = { title,
					   h->order == UL_HISTORY_BY_KERNEL
						   ? "kernel release (the bands: the segments "
						     "between change points)"
						   : "label (the bands: the segments between "
						     "change points)",
					   ylab };

		/* In a unit people read (ms, not 170000000 ns), as the report's plots. */
		for (size_t k = 0; k < row->n; k++)
			max_abs = fmax(max_abs, fmax(fabs(row->lo[row->index[k]]),
						     fabs(row->hi[row->index[k]])));
		unit = ul_plot_unit(row->metric.series, max_abs, &div);
		for (size_t k = 0; k < row->n; k++) {
			size_t i = row->index[k];

			x[k] = (double)k;
			keys[k] = h->points[i].key;
			med[k] = row->median[i] / div;
			lo[k] = row->lo[i] / div;
			hi[k] = row->hi[i] / div;
		}
		for (size_t k = 0; k < row->n_cps; k++)
			marks[k] = (double)row->cps[k].cp.pos - 0.5;
		row_bands(h, row, bands, names, &n_bands);
		s.n_bands = n_bands;
		snprintf(title, sizeof(title), "%s %s, test %s", row->metric.suite,
			 row->metric.label, row->test);
		snprintf(ylab, sizeof(ylab), "%s (%s)", row->metric.label,
			 *unit ? unit : row->metric.unit);
		fputs("<figure>", out);
		rc = ul_chart_lines(out, &t, &s);
		fputs("<figcaption>One point per ", out);
		fputs(h->order == UL_HISTORY_BY_KERNEL ? "kernel" : "label", out);
		fputs(": the median of its runs' medians, the dashed lines the smallest and "
		      "largest run median; red marks under the plot are change points.</figcaption>"
		      "</figure>\n",
		      out);
	}
	free(keys);
	free(x);
	free(med);
	free(lo);
	free(hi);
	return rc;
}

static void row_changes(FILE *out, const struct ul_history *h, const struct ul_history_row *row)
{
	if (!row->n_cps) {
		fprintf(out, "<p>No change point (alpha %g).</p>\n", h->cp.alpha);
		return;
	}
	for (size_t k = 0; k < row->n_cps; k++) {
		const struct ul_history_cp *c = &row->cps[k];
		char d[48], lo[48], hi[48];

		fputs("<p>Change point between <b>", out);
		esc(out, h->points[row->index[c->cp.pos - 1]].key);
		fputs("</b> and <b>", out);
		esc(out, h->points[row->index[c->cp.pos]].key);
		ul_fmt_quantity(d, sizeof(d), c->cp.abs, row->metric.unit);
		fprintf(out, "</b>: %+.1f%% (%s%s", 100.0 * c->cp.rel, c->cp.abs > 0 ? "+" : "", d);
		if (c->cp.has_ci) {
			ul_fmt_quantity(lo, sizeof(lo), c->cp.lo, row->metric.unit);
			ul_fmt_quantity(hi, sizeof(hi), c->cp.hi, row->metric.unit);
			fprintf(out, ", shift %g%% CI %s .. %s", 100.0 * (1.0 - h->cp.alpha), lo,
				hi);
		}
		fprintf(out, "), p %.3g.</p>\n<ul class=\"facts\">", c->cp.p);
		for (size_t f = 0; f < c->n_facts; f++) {
			fputs("<li>", out);
			esc(out, c->facts[f].key);
			fputs(": ", out);
			esc(out, c->facts[f].before);
			fputs(" &rarr; ", out);
			esc(out, c->facts[f].after);
			fputs("</li>", out);
		}
		if (c->n_facts_all > c->n_facts)
			fprintf(out, "<li>... and %zu more</li>", c->n_facts_all - c->n_facts);
		if (!c->n_facts_all)
			fputs("<li>no fingerprint fact differs</li>", out);
		fputs("</ul>\n", out);
	}
}

int ul_history_html(FILE *out, const struct ul_history *h)
{
	int rc = 0;

	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>underload history: ",
	      out);
	esc(out, h->reference->host.hostname);
	fprintf(out, "</title>\n<style>%s</style></head><body>\n<h1>underload history of ",
		page_css);
	esc(out, h->reference->host.hostname);
	fprintf(out,
		"</h1>\n<p>%zu points by %s.  Change points: E-Divisive means (Matteson and "
		"James 2014), permutation test of %u shuffles, alpha %g.</p>\n",
		h->n_points,
		h->order == UL_HISTORY_BY_KERNEL  ? "kernel"
		: h->order == UL_HISTORY_BY_LABEL ? "label"
						  : "date",
		h->cp.permutations, h->cp.alpha);
	for (size_t i = 0; i < h->n_rows && !rc; i++) {
		const struct ul_history_row *row = &h->rows[i];

		fprintf(out, "<h2>%s %s, test ", row->metric.suite, row->metric.label);
		esc(out, row->test);
		fputs("</h2>\n", out);
		if (row->n < 2) {
			fputs("<p>Fewer than 2 points: nothing to plot.</p>\n", out);
			continue;
		}
		rc = row_plot(out, h, row);
		row_changes(out, h, row);
	}
	fputs("</body></html>\n", out);
	if (!rc && (fflush(out) || ferror(out)))
		rc = -EIO;
	return rc;
}
