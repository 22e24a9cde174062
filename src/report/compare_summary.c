/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The verdict first: compare's summary, one line per comparison row above
 * the environment and the details, and the pieces of it the HTML report's
 * summary shares (the flags of a row, the tone of its verdict).
 */
#include "core/compat.h"
#include "core/escape.h"
#include "model/suite.h"
#include "report/compare.h"
#include "report/quantity.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

/* Terminal colours of the tones (SGR), and the reset. */
static const char *const tone_sgr[] = {
	[UL_TONE_PLAIN] = "",
	[UL_TONE_WORSE] = "\x1b[31m",
	[UL_TONE_BETTER] = "\x1b[32m",
	[UL_TONE_CRASHED] = "\x1b[1;31m",
};
#define SGR_RESET "\x1b[0m"

enum ul_report_tone ul_report_compare_tone(const struct ul_runcmp_row *r)
{
	if (r->crash[0].crashed || r->crash[1].crashed)
		return UL_TONE_CRASHED;
	if (!r->tested)
		return UL_TONE_PLAIN;
	switch (r->res.verdict) {
	case UL_VERDICT_SLOWER:
	case UL_VERDICT_SLOWER_UNCONFIRMED:
		return UL_TONE_WORSE;
	case UL_VERDICT_FASTER:
	case UL_VERDICT_FASTER_UNCONFIRMED:
		return UL_TONE_BETTER;
	default:
		return UL_TONE_PLAIN;
	}
}

/* Cells of one side's runs in the row's test carrying `flag`, and all of them. */
static void count_flag(const struct ul_runcmp_group *g, const struct ul_runcmp_row *r,
		       unsigned flag, size_t *flagged, size_t *cells)
{
	*flagged = *cells = 0;
	for (size_t k = 0; k < g->n_runs; k++)
		for (size_t i = 0; i < g->runs[k]->n_cells; i++) {
			const struct ul_cell *cell = &g->runs[k]->cells[i];

			if (strcmp(cell->suite, r->metric->suite) ||
			    strcmp(ul_suite_cell_test(cell), r->test))
				continue;
			(*cells)++;
			*flagged += (cell->flags & flag) != 0;
		}
}

/* Append "; "-separated. */
static void flag_add(char *buf, size_t len, const char *what, size_t base, size_t nb, size_t cand,
		     size_t nc)
{
	size_t off = strlen(buf);

	if (off < len)
		snprintf(buf + off, len - off, "%s%s (base %zu/%zu, cand %zu/%zu)", off ? "; " : "",
			 what, base, nb, cand, nc);
}

void ul_report_compare_flags(char *buf, size_t len, const struct ul_runcmp *c,
			     const struct ul_runcmp_row *r)
{
	size_t fb, nb, fc, nc;

	buf[0] = '\0';
	if (r->disturbed_base || r->disturbed_cand)
		flag_add(buf, len, "disturbed", r->disturbed_base, r->cells_base, r->disturbed_cand,
			 r->cells_cand);
	count_flag(&c->groups[0], r, UL_CELL_NO_PRESSURE, &fb, &nb);
	count_flag(&c->groups[r->cand], r, UL_CELL_NO_PRESSURE, &fc, &nc);
	if (fb || fc)
		flag_add(buf, len, "no-pressure", fb, nb, fc, nc);
	if (r->crash[0].crashed || r->crash[1].crashed)
		flag_add(buf, len, "crashed", r->crash[0].crashed, r->crash[0].reached,
			 r->crash[1].crashed, r->crash[1].reached);
	if (r->crash[0].pooled || r->crash[1].pooled) {
		size_t off = strlen(buf);

		if (off < len)
			snprintf(buf + off, len - off,
				 "%scells of crashed runs pooled (base %zu, cand %zu)",
				 off ? "; " : "", r->crash[0].pooled, r->crash[1].pooled);
	}
}

void ul_report_compare_holm(char *buf, size_t len, const struct ul_runcmp_row *r)
{
	enum ul_cmp_verdict v = r->res.verdict;

	snprintf(buf, len, "%s",
		 !r->tested || v == UL_VERDICT_NONE || v == UL_VERDICT_EQUAL ? "-"
		 : r->holm_survives					     ? "yes"
									     : "no");
}

static void fmt_pct(char *buf, size_t len, double r)
{
	if (isfinite(r))
		snprintf(buf, len, "%+.1f%%", r * 100.0);
	else
		snprintf(buf, len, "-");
}

void ul_report_compare_change(char *change, size_t change_len, char *ci, size_t ci_len,
			      const struct ul_runcmp_row *r)
{
	char lo[16], hi[16];

	fmt_pct(change, change_len, r->tested ? r->res.change_rel : NAN);
	if (!r->tested || !r->res.has_ci) {
		snprintf(ci, ci_len, "-");
		return;
	}
	fmt_pct(lo, sizeof(lo), r->res.ci_lo_rel);
	fmt_pct(hi, sizeof(hi), r->res.ci_hi_rel);
	snprintf(ci, ci_len, "[%s, %s]", lo, hi);
}

/* One summary line's fields as printed, and the columns they fill. */
enum summary_col {
	COL_WHAT,
	COL_TEST,
	COL_LAB,
	COL_CHANGE,
	COL_CI,
	COL_VERDICT,
	COL_HOLM,
	N_COLS
};
struct summary_fields {
	char what[96], test[64], lab[64], change[16], ci[40], verdict[96], holm[8], flags[256];
	enum ul_report_tone tone;
};
static const char *const col_head[N_COLS] = { "metric",		 "test",    "candidate", "change",
					      "CI of the shift", "verdict", "Holm" };
/* The narrowest each column is, so that short rows keep one layout. */
static const size_t col_min[N_COLS] = { 16, 12, 16, 8, 19, 20, 4 };

static void summary_fields(struct summary_fields *f, const struct ul_runcmp *c,
			   const struct ul_runcmp_row *r)
{
	f->tone = ul_report_compare_tone(r);
	snprintf(f->what, sizeof(f->what), "%s %s", r->metric->suite, r->metric->label);
	ul_escape(f->test, sizeof(f->test), r->test, strlen(r->test));
	ul_escape(f->lab, sizeof(f->lab), c->groups[r->cand].label,
		  strlen(c->groups[r->cand].label));
	ul_report_compare_change(f->change, sizeof(f->change), f->ci, sizeof(f->ci), r);
	ul_report_compare_verdict(f->verdict, sizeof(f->verdict), c, r);
	ul_report_compare_holm(f->holm, sizeof(f->holm), r);
	ul_report_compare_flags(f->flags, sizeof(f->flags), c, r);
}

static const char *field(const struct summary_fields *f, enum summary_col col)
{
	const char *const v[N_COLS] = { f->what, f->test,    f->lab, f->change,
					f->ci,	 f->verdict, f->holm };

	return v[col];
}

/* Each column as wide as its widest field or heading (in terminal columns,
 * not bytes), at least col_min: a long label never shifts the columns
 * after it out from under their headings. */
static void column_widths(int width[N_COLS], const struct ul_runcmp *c)
{
	struct summary_fields f;

	for (int k = 0; k < N_COLS; k++) {
		size_t w = ul_fmt_columns(col_head[k]);

		width[k] = (int)(w > col_min[k] ? w : col_min[k]);
	}
	for (size_t i = 0; i < c->n_rows; i++) {
		summary_fields(&f, c, &c->rows[i]);
		for (int k = 0; k < N_COLS; k++) {
			size_t w = ul_fmt_columns(field(&f, (enum summary_col)k));

			if (w > (size_t)width[k])
				width[k] = (int)w;
		}
	}
}

static void summary_line(FILE *out, const struct ul_runcmp *c, const struct ul_runcmp_row *r,
			 const int width[N_COLS], bool colour)
{
	struct summary_fields f;

	summary_fields(&f, c, r);
	fprintf(out, "  %-*s %-*s %-*s %*s %-*s %s%-*s%s %-*s %s\n",
		ul_fmt_width(f.what, width[COL_WHAT]), f.what,
		ul_fmt_width(f.test, width[COL_TEST]), f.test, ul_fmt_width(f.lab, width[COL_LAB]),
		f.lab, width[COL_CHANGE], f.change, ul_fmt_width(f.ci, width[COL_CI]), f.ci,
		colour ? tone_sgr[f.tone] : "", ul_fmt_width(f.verdict, width[COL_VERDICT]),
		f.verdict, colour && f.tone != UL_TONE_PLAIN ? SGR_RESET : "", width[COL_HOLM],
		f.holm, f.flags);
}

int ul_report_compare_summary(FILE *out, const struct ul_runcmp *c, bool colour)
{
	int w[N_COLS];

	if (!c->n_rows)
		return 0;
	column_widths(w, c);
	fprintf(out, "summary: each candidate against '");
	(void)ul_fput_escaped(out, c->groups[0].label, SIZE_MAX);
	fprintf(out, "', alpha %g, Holm over each suite's tests (details below)\n", c->opts.alpha);
	fprintf(out, "  %-*s %-*s %-*s %*s %-*s %-*s %-*s %s\n", w[COL_WHAT], col_head[COL_WHAT],
		w[COL_TEST], col_head[COL_TEST], w[COL_LAB], col_head[COL_LAB], w[COL_CHANGE],
		col_head[COL_CHANGE], w[COL_CI], col_head[COL_CI], w[COL_VERDICT],
		col_head[COL_VERDICT], w[COL_HOLM], col_head[COL_HOLM], "flags");
	for (size_t i = 0; i < c->n_rows; i++)
		summary_line(out, c, &c->rows[i], w, colour);
	return ferror(out) ? -EIO : 0;
}
