/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The document the HTML report writes (contracts: doc.h): the runs
 * grouped by label, headings, figures in the page or one SVG file each
 * from the caller's sink, and a label's values of a (suite, load, probe).
 * The sections and the page's top (page.c) write through it; it calls
 * none of them.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/html/doc.h"
#include "report/plot.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* The contracts of the ul_hdoc_ functions: doc.h. */
int ul_hdoc_group_labels(struct ul_hdoc *d, const struct ul_report_opts *opts)
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

void ul_hdoc_free_labels(struct ul_hdoc *d)
{
	for (size_t j = 0; j < d->n_labels; j++)
		free(d->labels[j].runs);
}

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
