/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The text of a comparison of stored runs (stats/runcmp.h): what is
 * compared, the environment differences, and one row per test with n,
 * medians, the relative change, its CI, p, the verdict, Holm and a note.
 * The summary above it: compare_summary.c; JSON and CSV: compare_data.c.
 */
#include "core/compat.h"
#include "report/compare.h"
#include "core/escape.h"
#include "report/compare_parts.h"
#include "report/notes.h"
#include "report/quantity.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A stored string made safe for a terminal (core/escape.h). */
static void clean(char *buf, size_t len, const char *s)
{
	ul_escape(buf, len, s, strlen(s));
}

static void fmt_pct(char *buf, size_t len, double r)
{
	if (isfinite(r))
		snprintf(buf, len, "%+.1f%%", r * 100.0);
	else
		snprintf(buf, len, "-");
}

static void fmt_p(char *buf, size_t len, double p)
{
	if (!isfinite(p))
		snprintf(buf, len, "-");
	else if (p < 0.0001)
		snprintf(buf, len, "<0.0001");
	else
		snprintf(buf, len, "%.4f", p);
}

#define PLUSMINUS "\xc2\xb1" /* ± in UTF-8 */

static int stream_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

/* "'B' (run 4)", "'B' (2 runs pooled: 5, 4)": run ids, newest first; then
 * what became of them: "'B' (2 runs pooled: 5, 4; 2 boots, 1 crashed)" */
static void describe_group(FILE *out, const struct ul_runcmp_group *g)
{
	char lab[160], outcome[96];

	clean(lab, sizeof(lab), g->label);
	ul_report_runs_outcome(g->runs, g->n_runs, outcome, sizeof(outcome));
	if (g->n_runs == 1)
		fprintf(out, "'%s' (run ", lab);
	else
		fprintf(out, "'%s' (%zu runs pooled: ", lab, g->n_runs);
	for (size_t r = 0; r < g->n_runs; r++)
		fprintf(out, "%s%lld", r ? ", " : "", (long long)g->runs[r]->id);
	fprintf(out, "%s%s)", outcome[0] ? "; " : "", outcome);
}

int ul_report_compare_group_line(FILE *out, const struct ul_runcmp_group *g)
{
	fprintf(out, "\nlabel ");
	describe_group(out, g);
	fprintf(out, "\n");
	return stream_status(out);
}

/* Print `s` left-aligned in `width` terminal columns (UTF-8 labels). */
static void pad(FILE *out, const char *s, size_t width)
{
	size_t cols = ul_fmt_columns(s);

	fprintf(out, "%s%*s", s, cols < width ? (int)(width - cols) : 0, "");
}

/*
 * The environment differences: the shown ones (or all), one line a group,
 * in columns as wide as the widest property and label, so values of any
 * width start in one column; "(unfair)" and a state's note end the
 * baseline's line.
 */
static void env_lines(FILE *out, const struct ul_runcmp *c, bool all)
{
	char lab[160], val[200], note[256];
	size_t what_w = 0, lab_w = 0;

	for (size_t i = 0; i < c->n_env; i++)
		if (all || c->env[i].shown) {
			clean(val, sizeof(val), c->env[i].what);
			if (ul_fmt_columns(val) > what_w)
				what_w = ul_fmt_columns(val);
		}
	for (size_t g = 0; g < c->n_groups; g++) {
		clean(lab, sizeof(lab), c->groups[g].label);
		if (ul_fmt_columns(lab) > lab_w)
			lab_w = ul_fmt_columns(lab);
	}
	for (size_t i = 0; i < c->n_env; i++) {
		const struct ul_runcmp_env *e = &c->env[i];

		if (!all && !e->shown)
			continue;
		clean(note, sizeof(note), e->note);
		for (size_t g = 0; g < c->n_groups; g++) {
			clean(lab, sizeof(lab), c->groups[g].label);
			clean(val, sizeof(val), e->value[g]);
			fprintf(out, "  ");
			pad(out, g ? "" : e->what, what_w);
			fprintf(out, "  ");
			pad(out, lab, lab_w);
			fprintf(out, "  %s%s%s%s%s\n", val,
				g == 0 && e->unfair ? "   (unfair)" : "",
				g == 0 && note[0] ? "   (" : "", g == 0 ? note : "",
				g == 0 && note[0] ? ")" : "");
		}
	}
}

int ul_report_compare_header(FILE *out, const struct ul_runcmp *c, bool all)
{
	size_t shown = 0;

	fprintf(out, "baseline ");
	describe_group(out, &c->groups[0]);
	fprintf(out, "\n");
	for (size_t g = 1; g < c->n_groups; g++) {
		fprintf(out, "candidate ");
		describe_group(out, &c->groups[g]);
		fprintf(out, "\n");
	}
	for (size_t i = 0; i < c->n_env; i++)
		shown += all || c->env[i].shown;
	if (!c->n_env) {
		fprintf(out, "environment: no differences between the compared runs\n");
		return stream_status(out);
	}
	if (!shown)
		fprintf(out,
			"environment: no differences in settings, hardware or kernel (%zu of the "
			"moment, such as uptime and load: --env all)\n",
			c->n_env);
	else if (shown < c->n_env)
		fprintf(out,
			"environment differences (%zu more of the moment, such as uptime and load: "
			"--env all):\n",
			c->n_env - shown);
	else
		fprintf(out, "environment differences:\n");
	env_lines(out, c, all);
	for (size_t i = 0; i < c->n_env; i++)
		if (c->env[i].unfair)
			fprintf(out,
				"warning: unfair comparison: %s differ between the compared "
				"runs\n",
				c->env[i].what);
	return stream_status(out);
}

/* Append to a note, "; "-separated. */
UL_PRINTF(3, 4) static void note_add(char *buf, size_t len, const char *fmt, ...)
{
	size_t off = strlen(buf);
	va_list ap;

	if (off + 2 >= len)
		return;
	if (off)
		off += (size_t)snprintf(buf + off, len - off, "; ");
	va_start(ap, fmt);
	vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
}

/* What the verdict rests on, in words (the man page's COMPARE says more). */
static void basis_note(char *buf, size_t len, const struct ul_runcmp_row *r)
{
	size_t have = r->reps_base < r->reps_cand ? r->reps_base : r->reps_cand;
	size_t need = r->res.need_per_side;

	switch (r->basis) {
	case UL_BASIS_REPLICATES:
		note_add(buf, len, "run-to-run S.D. %.2g%% base, %.2g%% cand",
			 100.0 * r->rep.sd_base / fabs(r->rep.mean_base),
			 100.0 * r->rep.sd_cand / fabs(r->rep.mean_cand));
		if (r->res.verdict == UL_VERDICT_NONE && need > have)
			note_add(buf, len,
				 "a shift this size needs ~%zu replicates/side (%zu more)", need,
				 need - have);
		break;
	case UL_BASIS_LEARNED:
		note_add(buf, len,
			 "%zu v %zu replicates: run-to-run S.D. %.2g%% learned from %zu label%s "
			 "with replicates (df %.0f)",
			 r->reps_base, r->reps_cand, 100.0 * r->learned_cv, r->learned_groups,
			 r->learned_groups == 1 ? "" : "s", r->rep.df);
		break;
	case UL_BASIS_UNMEASURED:
		if (!r->res.can_decide && r->need_points)
			note_add(buf, len, "too few points for any verdict: ~%zu/side needed",
				 r->need_points);
		note_add(
			buf, len,
			"run-to-run variation not measured (%zu v %zu replicates): run %zu or more "
			"per side (--runs)",
			r->reps_base, r->reps_cand,
			need > UL_REP_MIN_ADVISED ? need : (size_t)UL_REP_MIN_ADVISED);
		break;
	}
}

/* The margin as people write it: "5", "2.5". */
static void fmt_margin(char *buf, size_t len, double margin_rel)
{
	snprintf(buf, len, "%g", margin_rel * 100.0);
}

/* The 1 - 2 alpha interval of the TOST, relative: "[-1.2%, +3.4%]". */
static void fmt_tost_ci(char *buf, size_t len, const struct ul_runcmp_row *r)
{
	char lo[16], hi[16];
	double centre = fabs(r->rep.mean_base);

	fmt_pct(lo, sizeof(lo), r->tost.lo / centre);
	fmt_pct(hi, sizeof(hi), r->tost.hi / centre);
	snprintf(buf, len, "[%s, %s]", lo, hi);
}

/* What the equivalence test found (--margin), in words. */
static void tost_note(char *buf, size_t len, const struct ul_runcmp *c,
		      const struct ul_runcmp_row *r)
{
	char m[16], ci[40];
	double level = 100.0 * (1.0 - 2.0 * c->opts.alpha);

	if (!(c->opts.margin_rel > 0.0))
		return;
	fmt_margin(m, sizeof(m), c->opts.margin_rel);
	if (!r->tost_done) {
		note_add(buf, len, "no equivalence test: %s",
			 r->basis == UL_BASIS_UNMEASURED ? "run-to-run variation not measured"
							 : "the baseline's mean is 0");
		return;
	}
	fmt_tost_ci(ci, sizeof(ci), r);
	if (r->tost.equivalent)
		note_add(buf, len, "TOST p %.2g: the %g%% CI %s lies within " PLUSMINUS "%s%%",
			 r->tost.p, level, ci, m);
	else
		note_add(buf, len,
			 "not shown equal within " PLUSMINUS "%s%%: TOST p %.2g, %g%% CI %s", m,
			 r->tost.p, level, ci);
	if (r->tost.equivalent && r->verdict_diff != UL_VERDICT_NONE)
		note_add(buf, len, "it differs from 0 too (p %.2g), by less than the margin",
			 r->res.p);
}

/* Did a side crash in the row's test? */
static bool row_crashed(const struct ul_runcmp_row *r)
{
	return r->crash[0].crashed || r->crash[1].crashed;
}

/* The verdict column (compare.h): a kernel that went down under a test
 * is the finding above any shift. */
void ul_report_compare_verdict(char *buf, size_t len, const struct ul_runcmp *c,
			       const struct ul_runcmp_row *r)
{
	const struct ul_runcmp_crash *b = &r->crash[0], *k = &r->crash[1];

	if (k->crashed && b->crashed)
		snprintf(buf, len, "CRASHED %zu/%zu, base %zu/%zu", k->crashed, k->reached,
			 b->crashed, b->reached);
	else if (k->crashed)
		snprintf(buf, len, "CRASHED in %zu of %zu", k->crashed, k->reached);
	else if (b->crashed)
		snprintf(buf, len, "BASE CRASHED %zu of %zu", b->crashed, b->reached);
	else if (r->tested && r->res.verdict == UL_VERDICT_EQUAL)
		snprintf(buf, len, "equal within " PLUSMINUS "%g%%", c->opts.margin_rel * 100.0);
	else
		snprintf(buf, len, "%s", r->tested ? ul_cmp_verdict_name(r->res.verdict) : "-");
}

/* What crashed runs did to the row: where a side went down, and the
 * finished cells of crashed runs it pools (never silently). */
static void crash_note(char *buf, size_t len, const struct ul_runcmp_row *r)
{
	static const char *const side[2] = { "baseline", "candidate" };

	for (int i = 0; i < 2; i++)
		if (r->crash[i].crashed)
			note_add(buf, len, "%s crashed here in %zu of %zu runs (nothing measured)",
				 side[i], r->crash[i].crashed, r->crash[i].reached);
	if (row_crashed(r) && r->tested)
		note_add(buf, len, "the other runs: %s", ul_cmp_verdict_name(r->res.verdict));
	for (int i = 0; i < 2; i++)
		if (r->crash[i].pooled)
			note_add(buf, len, "%s pools the finished cells of %zu crashed run%s",
				 side[i], r->crash[i].pooled, r->crash[i].pooled == 1 ? "" : "s");
}

void ul_report_compare_note(char *buf, size_t len, const struct ul_runcmp *c,
			    const struct ul_runcmp_row *r)
{
	buf[0] = '\0';
	crash_note(buf, len, r);
	if (!r->tested) { /* a crash said it already */
		if (!row_crashed(r))
			note_add(buf, len, "not tested: %s", r->why);
		return;
	}
	tost_note(buf, len, c, r);
	basis_note(buf, len, r);
	if (r->metric->exposure)
		note_add(buf, len, "%.0f of %.0f base, %.0f of %.0f cand (rate test p %.2g)",
			 r->count_base, r->exposure_base, r->count_cand, r->exposure_cand,
			 r->p_rate);
	for (int side = 0; side < 2; side++) {
		double pr = side ? r->p_runs_cand : r->p_runs_base;

		if (!isnan(pr) && pr <= r->res.alpha)
			note_add(buf, len, "runs of the %s differ among themselves (p %.2g)",
				 side ? "candidate" : "baseline", pr);
	}
	if (r->disturbed_base || r->disturbed_cand)
		note_add(buf, len, "disturbed cells: base %zu/%zu, cand %zu/%zu", r->disturbed_base,
			 r->cells_base, r->disturbed_cand, r->cells_cand);
	{ /* last, after what the verdict rests on: the delay's parts that carried
	   * the change (report/compare_parts.h) */
		char why[256];

		ul_report_compare_parts_note(why, sizeof(why), c, r);
		if (why[0])
			note_add(buf, len, "%s", why);
	}
}

/* Replicates a side the observed shift needs: "4", ">=3" (a floor), "-"
 * (also for an equal row: a shift inside the margin is not worth chasing). */
static void fmt_need(char *buf, size_t len, const struct ul_runcmp_row *r)
{
	size_t n = r->res.need_per_side;

	if (!n || r->res.verdict == UL_VERDICT_EQUAL)
		snprintf(buf, len, "-");
	else if (n >= UL_REP_NEED_MAX)
		snprintf(buf, len, ">%d", UL_REP_NEED_MAX - 1);
	else
		snprintf(buf, len, "%s%zu", r->need_floor ? ">=" : "", n);
}

static void table_head(FILE *out, const struct ul_runcmp *c, const struct ul_runcmp_metric *m,
		       size_t n_tested)
{
	const struct ul_runcmp_row *first = NULL;

	for (size_t i = 0; i < c->n_rows && !first; i++)
		if (c->rows[i].metric == m && (c->rows[i].prefix_base || c->rows[i].prefix_cand))
			first = &c->rows[i];
	fprintf(out,
		"\n%s %s (%s, %s is better): verdict by replicates (cells%s), %g%% CI of the "
		"shift, alpha %g, Holm over %zu test%s\n",
		m->suite, m->label, m->unit, m->better == UL_BETTER_HIGHER ? "higher" : "lower",
		c->unit == UL_RUNCMP_RUNS ? "; --per-run: runs" : "", (1.0 - c->opts.alpha) * 100.0,
		c->opts.alpha, n_tested, n_tested == 1 ? "" : "s");
	fprintf(out, "(points: %s; a row's test is in its 'by' column)\n",
		m->exposure		       ? "an exact conditional rate test of the counts"
		: c->opts.test == UL_CMP_WELCH ? "Welch's t (difference of means)"
					       : "Mann-Whitney U (Hodges-Lehmann shift)");
	if (c->opts.margin_rel > 0.0)
		fprintf(out,
			"(equivalence: two one-sided tests at alpha %g, margin " PLUSMINUS
			"%g%% of the baseline: equal when the %g%% CI of the shift lies inside it)\n",
			c->opts.alpha, c->opts.margin_rel * 100.0,
			100.0 * (1.0 - 2.0 * c->opts.alpha));
	if (first)
		fprintf(out,
			"(adaptively sampled cells: only the first %zu points of each run, "
			"fixed before the stopping rule, are tested)\n",
			first->prefix_base > first->prefix_cand ? first->prefix_base
								: first->prefix_cand);
	fprintf(out, "%-12s %-16s %5s %6s %6s %12s %12s %8s %-19s %8s %-20s %-4s %5s %-10s %s\n",
		"test", "candidate", "reps", "n base", "n cand", "median base", "median cand",
		"change", "CI of the shift", "p", "verdict", "Holm", "need", "by", "note");
}

static void table_row(FILE *out, const struct ul_runcmp *c, const struct ul_runcmp_row *r)
{
	char lab[64], test[64], mb[24], mc[24], ch[16], lo[16], hi[16], ci[40], p[16], note[512];
	char reps[24], need[16], verdict[96];
	const struct ul_cmp_result *x = &r->res;

	clean(lab, sizeof(lab), c->groups[r->cand].label);
	clean(test, sizeof(test), r->test);
	ul_report_compare_note(note, sizeof(note), c, r);
	snprintf(reps, sizeof(reps), "%zu/%zu", r->reps_base, r->reps_cand);
	ul_report_compare_verdict(verdict, sizeof(verdict), c, r);
	if (!r->tested) {
		fprintf(out,
			"%-12s %-16s %5s %6s %6s %12s %12s %8s %-19s %8s %-20s %-4s %5s %-10s %s\n",
			test, lab, reps, "-", "-", "-", "-", "-", "-", "-", verdict, "-", "-", "-",
			note);
		return;
	}
	ul_fmt_quantity(mb, sizeof(mb), x->median_base, r->metric->unit);
	ul_fmt_quantity(mc, sizeof(mc), x->median_cand, r->metric->unit);
	fmt_pct(ch, sizeof(ch), x->change_rel);
	fmt_pct(lo, sizeof(lo), x->ci_lo_rel);
	fmt_pct(hi, sizeof(hi), x->ci_hi_rel);
	if (x->has_ci)
		snprintf(ci, sizeof(ci), "[%s, %s]", lo, hi);
	else
		snprintf(ci, sizeof(ci), "-");
	fmt_p(p, sizeof(p), x->p);
	fmt_need(need, sizeof(need), r);
	fprintf(out, "%-12s %-16s %5s %6zu %6zu %*s %*s %8s %-19s %8s %-*s %-4s %5s %-10s %s\n",
		test, lab, reps, x->n_base, x->n_cand, ul_fmt_width(mb, 12), mb,
		ul_fmt_width(mc, 12), mc, ch, ci, p, ul_fmt_width(verdict, 20), verdict,
		x->verdict == UL_VERDICT_NONE || x->verdict == UL_VERDICT_EQUAL ? "-"
		: r->holm_survives						? "yes"
										: "no",
		need, ul_runcmp_basis_name(r->basis), note);
}

/* After a suite's table: a warning when cells it compared were disturbed. */
static void disturbed_warning(FILE *out, const struct ul_runcmp *c, const char *suite)
{
	size_t cells = 0, disturbed = 0;

	for (size_t i = 0; i < c->n_rows; i++) {
		const struct ul_runcmp_row *r = &c->rows[i];

		if (strcmp(r->metric->suite, suite) || !r->tested)
			continue;
		/* the baseline's cells are in every row: count them once per test */
		if (r->cand == 1) {
			cells += r->cells_base;
			disturbed += r->disturbed_base;
		}
		cells += r->cells_cand;
		disturbed += r->disturbed_cand;
	}
	if (disturbed)
		fprintf(out,
			"warning: %zu of %zu compared cells were disturbed (CPU used outside "
			"the run): the machine's other work varies between runs and can make "
			"a difference or hide one\n",
			disturbed, cells);
}

int ul_report_compare_table(FILE *out, const struct ul_runcmp *c, const char *suite)
{
	const struct ul_runcmp_metric *m = NULL;

	for (size_t i = 0; i < c->n_rows; i++) {
		const struct ul_runcmp_row *r = &c->rows[i];

		if (strcmp(r->metric->suite, suite))
			continue;
		if (r->metric != m) {
			size_t n_tested = 0;

			m = r->metric;
			for (size_t j = 0; j < c->n_rows; j++)
				n_tested += c->rows[j].tested &&
					    !strcmp(c->rows[j].metric->suite, suite);
			table_head(out, c, m, n_tested);
		}
		table_row(out, c, r);
	}
	disturbed_warning(out, c, suite);
	return stream_status(out);
}
