/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare's JSON and CSV: one row table (ROW_FIELDS) names every field of
 * a comparison row once, and both writers walk it, so a JSON row's members
 * are the CSV row's columns with the same values.
 */
#include "core/compat.h"
#include "report/compare.h"
#include "core/escape.h"
#include "report/compare_parts.h"
#include "report/json_write.h"
#include "report/quantity.h"
#include "stats/runcmp_parts.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int stream_status(FILE *out)
{
	return ferror(out) ? -EIO : 0;
}

/* ---- JSON ---- */

static json_t *jnum(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

/* A JSON string of stored text; invalid UTF-8 bytes become '?'. */
static json_t *jstr(const char *s)
{
	json_t *v = json_string(s);
	char *copy;
	size_t len;

	if (v)
		return v;
	len = strlen(s);
	copy = malloc(len + 1);
	if (!copy)
		return NULL;
	for (size_t i = 0; i <= len; i++)
		copy[i] = (unsigned char)s[i] < 0x80 ? s[i] : '?';
	v = json_string(copy);
	free(copy);
	return v;
}

static json_t *json_group(const struct ul_runcmp_group *g)
{
	json_t *runs = json_array();

	for (size_t r = 0; r < g->n_runs; r++)
		json_array_append_new(runs, json_pack("{s:I,s:s}", "id", (json_int_t)g->runs[r]->id,
						      "uuid", g->runs[r]->uuid));
	return json_pack("{s:o,s:o}", "label", jstr(g->label), "runs", runs);
}

/*
 * ---- The row table: every member of a JSON row and every CSV column ----
 *
 * One entry per field, in the CSV's column order (the first 40 are the
 * CSV's historical columns, the rest were JSON's alone): its name, type,
 * when the row has it, and its value.  JSON leaves a field out when the
 * row does not have it and writes a number that is not finite as null;
 * CSV writes both as an empty field.
 */
enum field_kind {
	F_STR,
	F_INT,
	F_NUM,
	F_BOOL
};
enum field_when {
	W_ALWAYS,
	W_TESTED,   /* the test ran */
	W_UNTESTED, /* why it did not */
	W_COUNT,    /* a count metric (exposure) */
	W_REP,	    /* tested on replicates or a learned variance */
	W_TOST,	    /* the equivalence test ran (--margin) */
	W_LEARNED,  /* tested on a learned variance */
};

struct field_value {
	const char *s;
	double d; /* F_INT, F_NUM, F_BOOL (0 or 1) */
};

/* X(name, kind, when, value): value sets v.s (F_STR) or v.d (others)
 * from c, r, x = &r->res and buf (len bytes of scratch). */
#define REL(v) ((v) / fabs(r->rep.mean_base))
#define ROW_FIELDS(X)                                                                              \
	X(suite, F_STR, W_ALWAYS, v.s = r->metric->suite)                                          \
	X(metric, F_STR, W_ALWAYS, v.s = r->metric->series)                                        \
	X(unit, F_STR, W_ALWAYS, v.s = r->metric->unit)                                            \
	X(test, F_STR, W_ALWAYS, v.s = r->test)                                                    \
	X(baseline, F_STR, W_ALWAYS, v.s = c->groups[0].label)                                     \
	X(candidate, F_STR, W_ALWAYS, v.s = c->groups[r->cand].label)                              \
	X(runs_base, F_INT, W_ALWAYS, v.d = (double)r->runs_base)                                  \
	X(runs_cand, F_INT, W_ALWAYS, v.d = (double)r->runs_cand)                                  \
	X(n_base, F_INT, W_TESTED, v.d = (double)x->n_base)                                        \
	X(n_cand, F_INT, W_TESTED, v.d = (double)x->n_cand)                                        \
	X(median_base, F_NUM, W_TESTED, v.d = x->median_base)                                      \
	X(median_cand, F_NUM, W_TESTED, v.d = x->median_cand)                                      \
	X(change_rel, F_NUM, W_TESTED, v.d = x->change_rel)                                        \
	X(shift, F_NUM, W_TESTED, v.d = x->shift)                                                  \
	X(shift_lo, F_NUM, W_TESTED, v.d = x->has_ci ? x->shift_lo : NAN)                          \
	X(shift_hi, F_NUM, W_TESTED, v.d = x->has_ci ? x->shift_hi : NAN)                          \
	X(ci_lo_rel, F_NUM, W_TESTED, v.d = x->ci_lo_rel)                                          \
	X(ci_hi_rel, F_NUM, W_TESTED, v.d = x->ci_hi_rel)                                          \
	X(ci_level, F_NUM, W_TESTED, v.d = x->ci_level)                                            \
	X(p, F_NUM, W_TESTED, v.d = x->p)                                                          \
	X(exact, F_BOOL, W_TESTED, v.d = x->exact)                                                 \
	X(verdict, F_STR, W_TESTED, v.s = ul_cmp_verdict_name(x->verdict))                         \
	X(p_holm, F_NUM, W_TESTED, v.d = r->p_holm)                                                \
	X(holm_survives, F_BOOL, W_TESTED, v.d = r->holm_survives)                                 \
	X(need_per_side, F_INT, W_TESTED, v.d = (double)x->need_per_side)                          \
	X(note, F_STR, W_ALWAYS, ul_report_compare_note(buf, len, c, r); v.s = buf)                \
	X(reps_base, F_INT, W_ALWAYS, v.d = (double)r->reps_base)                                  \
	X(reps_cand, F_INT, W_ALWAYS, v.d = (double)r->reps_cand)                                  \
	X(basis, F_STR, W_TESTED, v.s = ul_runcmp_basis_name(r->basis))                            \
	X(need_is_floor, F_BOOL, W_TESTED, v.d = r->need_floor)                                    \
	X(p_rate, F_NUM, W_COUNT, v.d = r->p_rate)                                                 \
	X(crashed_base, F_INT, W_ALWAYS, v.d = (double)r->crash[0].crashed)                        \
	X(reached_base, F_INT, W_ALWAYS, v.d = (double)r->crash[0].reached)                        \
	X(crashed_cand, F_INT, W_ALWAYS, v.d = (double)r->crash[1].crashed)                        \
	X(reached_cand, F_INT, W_ALWAYS, v.d = (double)r->crash[1].reached)                        \
	X(margin_rel, F_NUM, W_ALWAYS, v.d = c->opts.margin_rel > 0.0 ? c->opts.margin_rel : NAN)  \
	X(equivalent, F_BOOL, W_ALWAYS, v.d = x->verdict == UL_VERDICT_EQUAL)                      \
	X(tost_p, F_NUM, W_TOST, v.d = r->tost.p)                                                  \
	X(tost_lo_rel, F_NUM, W_TOST, v.d = REL(r->tost.lo))                                       \
	X(tost_hi_rel, F_NUM, W_TOST, v.d = REL(r->tost.hi))                                       \
	X(tested, F_BOOL, W_ALWAYS, v.d = r->tested)                                               \
	X(why, F_STR, W_UNTESTED, v.s = r->why)                                                    \
	X(outcome, F_STR, W_ALWAYS,                                                                \
	  v.s = (r->crash[0].crashed || r->crash[1].crashed) ? "crashed"                           \
		: r->tested				     ? "compared"                          \
							     : "not tested")                                                        \
	X(better, F_STR, W_ALWAYS,                                                                 \
	  v.s = r->metric->better == UL_BETTER_HIGHER ? "higher" : "lower")                        \
	X(prefix_base, F_INT, W_ALWAYS, v.d = (double)r->prefix_base)                              \
	X(prefix_cand, F_INT, W_ALWAYS, v.d = (double)r->prefix_cand)                              \
	X(cells_base, F_INT, W_ALWAYS, v.d = (double)r->cells_base)                                \
	X(cells_cand, F_INT, W_ALWAYS, v.d = (double)r->cells_cand)                                \
	X(disturbed_base, F_INT, W_ALWAYS, v.d = (double)r->disturbed_base)                        \
	X(disturbed_cand, F_INT, W_ALWAYS, v.d = (double)r->disturbed_cand)                        \
	X(p_runs_base, F_NUM, W_ALWAYS, v.d = r->p_runs_base)                                      \
	X(p_runs_cand, F_NUM, W_ALWAYS, v.d = r->p_runs_cand)                                      \
	X(pooled_crashed_base, F_INT, W_ALWAYS, v.d = (double)r->crash[0].pooled)                  \
	X(pooled_crashed_cand, F_INT, W_ALWAYS, v.d = (double)r->crash[1].pooled)                  \
	X(count_base, F_NUM, W_COUNT, v.d = r->count_base)                                         \
	X(exposure_base, F_NUM, W_COUNT, v.d = r->exposure_base)                                   \
	X(count_cand, F_NUM, W_COUNT, v.d = r->count_cand)                                         \
	X(exposure_cand, F_NUM, W_COUNT, v.d = r->exposure_cand)                                   \
	X(mean_base, F_NUM, W_TESTED, v.d = x->mean_base)                                          \
	X(mean_cand, F_NUM, W_TESTED, v.d = x->mean_cand)                                          \
	X(statistic, F_NUM, W_TESTED, v.d = x->statistic)                                          \
	X(can_decide, F_BOOL, W_TESTED, v.d = x->can_decide)                                       \
	X(df, F_NUM, W_TESTED, v.d = x->df)                                                        \
	X(has_ci, F_BOOL, W_TESTED, v.d = x->has_ci)                                               \
	X(rep_mean_base, F_NUM, W_REP, v.d = r->rep.mean_base)                                     \
	X(rep_mean_cand, F_NUM, W_REP, v.d = r->rep.mean_cand)                                     \
	X(rep_sd_base, F_NUM, W_REP, v.d = r->rep.sd_base)                                         \
	X(rep_sd_cand, F_NUM, W_REP, v.d = r->rep.sd_cand)                                         \
	X(verdict_difference, F_STR, W_TOST, v.s = ul_cmp_verdict_name(r->verdict_diff))           \
	X(tost_margin, F_NUM, W_TOST, v.d = r->tost.margin)                                        \
	X(tost_p_lower, F_NUM, W_TOST, v.d = r->tost.p_lower)                                      \
	X(tost_p_upper, F_NUM, W_TOST, v.d = r->tost.p_upper)                                      \
	X(learned_cv, F_NUM, W_LEARNED, v.d = r->learned_cv)                                       \
	X(learned_groups, F_INT, W_LEARNED, v.d = (double)r->learned_groups)

enum row_field {
#define AS_ENUM(name, kind, when, value) RF_##name,
	ROW_FIELDS(AS_ENUM)
#undef AS_ENUM
	RF_COUNT
};

static const struct {
	const char *name;
	enum field_kind kind;
	enum field_when when;
} row_fields[RF_COUNT] = {
#define AS_ENTRY(name, kind, when, value) { #name, kind, when },
	ROW_FIELDS(AS_ENTRY)
#undef AS_ENTRY
};

/* Does row r have field f? */
static bool field_present(enum row_field f, const struct ul_runcmp_row *r)
{
	switch (row_fields[f].when) {
	case W_ALWAYS:
		return true;
	case W_TESTED:
		return r->tested;
	case W_UNTESTED:
		return !r->tested;
	case W_COUNT:
		return r->metric->exposure;
	case W_REP:
		return r->tested && r->basis != UL_BASIS_UNMEASURED;
	case W_TOST:
		return r->tost_done;
	case W_LEARNED:
		return r->tested && r->basis == UL_BASIS_LEARNED;
	}
	return false;
}

/* Field f of row r; buf (len bytes) may hold its text. */
static struct field_value field_value(enum row_field f, const struct ul_runcmp *c,
				      const struct ul_runcmp_row *r, char *buf, size_t len)
{
	const struct ul_cmp_result *x = &r->res;
	struct field_value v = { NULL, NAN };

	switch (f) {
#define AS_CASE(name, kind, when, value)                                                           \
	case RF_##name:                                                                            \
		value;                                                                             \
		break;
		ROW_FIELDS(AS_CASE)
#undef AS_CASE
	case RF_COUNT:
		break;
	}
	return v;
}
#undef REL

static json_t *json_parts(const struct ul_runcmp *c, const struct ul_runcmp_row *r);

static json_t *json_row(const struct ul_runcmp *c, const struct ul_runcmp_row *r)
{
	json_t *o = json_object();
	char buf[512];

	for (int f = 0; f < RF_COUNT && o; f++) {
		struct field_value v;
		json_t *j;

		if (!field_present((enum row_field)f, r))
			continue;
		v = field_value((enum row_field)f, c, r, buf, sizeof(buf));
		switch (row_fields[f].kind) {
		case F_STR:
			j = jstr(v.s);
			break;
		case F_INT:
			j = json_integer((json_int_t)v.d);
			break;
		case F_BOOL:
			j = json_boolean(v.d != 0.0);
			break;
		default:
			j = jnum(v.d);
			break;
		}
		if (!j || json_object_set_new(o, row_fields[f].name, j)) {
			json_decref(o);
			return NULL;
		}
	}
	if (o && c->parts)
		json_object_set_new(o, "parts", json_parts(c, r));
	return o;
}

/* The rows of the delay's parts that explain r, each a row of its own
 * with the part's label, its share of r's shift and whether it carries
 * the change (stats/runcmp_parts.h). */
static json_t *json_parts(const struct ul_runcmp *c, const struct ul_runcmp_row *r)
{
	enum ul_breakdown_part carriers[UL_PART_COUNT];
	size_t n = ul_runcmp_parts_carriers(c->parts, r, carriers);
	json_t *a = json_array();

	for (int p = 0; p < UL_PART_COUNT && a; p++) {
		const struct ul_runcmp_row *pr = ul_runcmp_parts_row(c->parts, r, p);
		bool carries = false;
		json_t *o;

		if (!pr)
			continue;
		for (size_t i = 0; i < n; i++)
			carries |= carriers[i] == (enum ul_breakdown_part)p;
		o = json_row(&c->parts->cmp, pr);
		if (o)
			json_object_update_new(o, json_pack("{s:s,s:o,s:b}", "part",
							    ul_breakdown_parts[p].label, "share",
							    jnum(ul_runcmp_parts_share(r, pr)),
							    "carries", carries));
		json_array_append_new(a, o);
	}
	return a;
}

int ul_report_compare_json(FILE *out, const struct ul_runcmp *c)
{
	json_t *root, *groups = json_array(), *rows = json_array(), *env = json_array();

	for (size_t g = 0; g < c->n_groups; g++)
		json_array_append_new(groups, json_group(&c->groups[g]));
	for (size_t i = 0; i < c->n_rows; i++)
		json_array_append_new(rows, json_row(c, &c->rows[i]));
	for (size_t i = 0; i < c->n_env; i++) {
		json_t *vals = json_array();

		for (size_t g = 0; g < c->n_groups; g++)
			json_array_append_new(vals, jstr(c->env[i].value[g]));
		json_t *e = json_pack("{s:s,s:o,s:b,s:s,s:b}", "what", c->env[i].what, "values",
				      vals, "unfair", c->env[i].unfair, "kind",
				      ul_runcmp_env_kind_name(c->env[i].kind), "shown",
				      c->env[i].shown);

		if (e && c->env[i].note[0])
			json_object_set_new(e, "note", jstr(c->env[i].note));
		json_array_append_new(env, e);
	}
	root = json_pack("{s:s,s:i,s:s,s:f,s:o,s:s,s:o,s:o,s:o,s:I}", "format", "underload-compare",
			 "format_version", UL_REPORT_COMPARE_VERSION, "test",
			 ul_cmp_test_name(c->opts.test), "alpha", c->opts.alpha, "margin_rel",
			 c->opts.margin_rel > 0.0 ? json_real(c->opts.margin_rel) : json_null(),
			 "unit", c->unit == UL_RUNCMP_RUNS ? "run" : "point", "groups", groups,
			 "environment", env, "rows", rows, "unfair", (json_int_t)c->n_unfair);
	return ul_json_write(out, root);
}

/* ---- CSV ---- */

/* One row's CSV field f, empty when the row does not have it; never the
 * line's last (the parts' columns end it). */
static void csv_row_field(FILE *out, const struct ul_runcmp *c, const struct ul_runcmp_row *r,
			  int f)
{
	struct field_value v;
	char buf[512];

	if (!field_present((enum row_field)f, r)) {
		ul_csv_field(out, "", SIZE_MAX, false);
		return;
	}
	v = field_value((enum row_field)f, c, r, buf, sizeof(buf));
	switch (row_fields[f].kind) {
	case F_STR:
		ul_csv_field(out, v.s, SIZE_MAX, false);
		break;
	case F_BOOL:
		ul_csv_field(out, v.d != 0.0 ? "1" : "0", SIZE_MAX, false);
		break;
	default: /* counts print as integers: %.17g of a whole number */
		ul_csv_num(out, v.d, false);
		break;
	}
}

int ul_report_compare_csv(FILE *out, const struct ul_runcmp *c)
{
	for (int f = 0; f < RF_COUNT; f++)
		ul_csv_field(out, row_fields[f].name, SIZE_MAX, false);
	ul_report_compare_parts_csv_head(out); /* ends the line */
	for (size_t i = 0; i < c->n_rows; i++) {
		for (int f = 0; f < RF_COUNT; f++)
			csv_row_field(out, c, &c->rows[i], f);
		ul_report_compare_parts_csv_row(out, c, &c->rows[i]); /* ends the line */
	}
	return stream_status(out);
}
