/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One comparison row's verdict from its pooled points and replicate
 * values: which test it rests on (replicates, a learned between-run
 * variance, or within-run points alone), and how many replicates a side
 * a shift of the observed size needs.  Definitions: stats/replicate.h.
 */
#include "core/compat.h"
#include "stats/runcmp.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Slack so that p == alpha exactly counts as significant (as compare.c). */
#define P_SLACK 1e-9

const char *ul_runcmp_basis_name(enum ul_runcmp_basis b)
{
	switch (b) {
	case UL_BASIS_REPLICATES:
		return "replicates";
	case UL_BASIS_LEARNED:
		return "learned";
	case UL_BASIS_UNMEASURED:
		break;
	}
	return "points";
}

/* The call for a shift of this sign at this p, by the metric's direction. */
static enum ul_cmp_verdict call(double p, double shift, double alpha, enum ul_cmp_better better)
{
	if (!(p <= alpha * (1.0 + P_SLACK)) || shift == 0.0 || isnan(shift))
		return UL_VERDICT_NONE;
	return (better == UL_BETTER_HIGHER) == (shift > 0.0) ? UL_VERDICT_FASTER
							     : UL_VERDICT_SLOWER;
}

/* n, medians and change of the pooled points (rates: the total rates). */
static void describe(struct ul_cmp_result *r, const struct ul_runcmp_sides *s, bool count)
{
	double med[2];

	for (int i = 0; i < 2; i++) {
		med[i] = NAN;
		if (count && s->exposure[i] > 0.0) {
			med[i] = 100.0 * s->count[i] / s->exposure[i];
		} else if (s->pts[i].n) {
			ul_stats_sort(s->pts[i].v, s->pts[i].n);
			med[i] = ul_stats_median_sorted(s->pts[i].v, s->pts[i].n);
		}
	}
	r->n_base = s->pts[0].n;
	r->n_cand = s->pts[1].n;
	r->median_base = med[0];
	r->median_cand = med[1];
	r->mean_base = s->pts[0].n ? ul_stats_mean(s->pts[0].v, s->pts[0].n) : NAN;
	r->mean_cand = s->pts[1].n ? ul_stats_mean(s->pts[1].v, s->pts[1].n) : NAN;
	r->change_rel = med[0] != 0.0 && !isnan(med[0]) ? (med[1] - med[0]) / fabs(med[0]) : NAN;
}

/* The replicates of a history group's runs that did not crash, into p. */
static int settled_replicates(const struct ul_runcmp *c, const struct ul_runcmp_row *row,
			      const struct ul_runcmp_group *h, struct ul_runcmp_pooled *p)
{
	struct ul_runcmp_group settled = *h;
	const struct ul_run **runs = malloc((h->n_runs ? h->n_runs : 1) * sizeof(*runs));
	int rc;

	if (!runs)
		return -ENOMEM;
	settled.runs = runs;
	settled.n_runs = 0;
	for (size_t r = 0; r < h->n_runs; r++)
		if (h->runs[r]->status != UL_RUN_CRASHED)
			runs[settled.n_runs++] = h->runs[r];
	rc = ul_runcmp_replicates(&settled, row->metric, row->test, c->unit, p);
	free(runs);
	return rc;
}

/*
 * The between-run variance this row may learn: earlier repeated runs of
 * the same host and configuration, and a compared side of >= 2 replicates.
 * The history leaves crashed runs out: nobody named them, so nothing would
 * say their cells were pooled, and a machine about to go down is not the
 * run-to-run variation of a configuration.  (A compared side keeps a
 * crashed run's finished cells, and its rows say so: ul_runcmp_crash.)
 */
static int learn(const struct ul_runcmp *c, const struct ul_runcmp_row *row,
		 const struct ul_runcmp_sides *s, struct ul_rep_var *v)
{
	memset(v, 0, sizeof(*v));
	for (int i = 0; i < 2; i++)
		ul_rep_var_add(v, s->rep[i].v, s->rep[i].n);
	for (size_t h = 0; h < c->n_history; h++) {
		struct ul_runcmp_pooled p;
		int rc = settled_replicates(c, row, &c->history[h], &p);

		if (rc)
			return rc;
		ul_rep_var_add(v, p.v, p.n);
		free(p.v);
	}
	return 0;
}

/* The result of a replicate-level test into the row. */
static void from_replicates(struct ul_runcmp_row *row, const struct ul_rep_result *rep,
			    double alpha, double p_extra)
{
	struct ul_cmp_result *r = &row->res;
	double centre = fabs(rep->mean_base);

	row->rep = *rep;
	r->shift = rep->shift;
	r->has_ci = isfinite(rep->shift_lo) && isfinite(rep->shift_hi);
	r->shift_lo = rep->shift_lo;
	r->shift_hi = rep->shift_hi;
	r->ci_level = 1.0 - alpha;
	r->ci_lo_rel = r->has_ci && centre > 0.0 ? rep->shift_lo / centre : NAN;
	r->ci_hi_rel = r->has_ci && centre > 0.0 ? rep->shift_hi / centre : NAN;
	r->statistic = rep->t;
	r->df = rep->df;
	r->p = fmax(rep->p, p_extra);
	r->exact = false;
	r->can_decide = true;
	r->verdict = call(r->p, rep->shift, alpha, row->metric->better);
	r->need_per_side = rep->need_per_side;
}

/* No run-to-run variance known: the within-run call, marked unconfirmed,
 * and a lower bound of the replicates needed (the within-run variance of
 * a replicate's value is part of its between-run variance). */
static void unmeasured(struct ul_runcmp_row *row, double alpha)
{
	struct ul_cmp_result *r = &row->res;
	double z = ul_stats_norm_quantile(1.0 - alpha / 2.0), half;
	size_t need = 0;

	row->basis = UL_BASIS_UNMEASURED;
	row->need_floor = true;
	row->need_points = r->need_per_side;
	if (r->verdict == UL_VERDICT_FASTER)
		r->verdict = UL_VERDICT_FASTER_UNCONFIRMED;
	else if (r->verdict == UL_VERDICT_SLOWER)
		r->verdict = UL_VERDICT_SLOWER_UNCONFIRMED;
	if (r->has_ci && r->shift != 0.0) {
		half = (r->shift_hi - r->shift_lo) / (2.0 * z) / sqrt(2.0);
		need = ul_rep_needed(half, half, r->shift, alpha);
	}
	r->need_per_side = r->shift != 0.0 && need < UL_REP_MIN_ADVISED ? UL_REP_MIN_ADVISED : need;
}

/* Within-run points: Mann-Whitney or Welch on them, or the rate test. */
static int points_test(const struct ul_runcmp *c, struct ul_runcmp_row *row,
		       const struct ul_runcmp_sides *s, bool count)
{
	struct ul_cmp_opts opts = c->opts;
	const struct ul_runcmp_pooled *b = &s->pts[0], *k = &s->pts[1];
	int rc;

	opts.better = row->metric->better;
	if (count) {
		row->res.p = row->p_rate;
		row->res.shift = row->res.median_cand - row->res.median_base;
		row->res.can_decide = true;
		row->res.verdict = call(row->res.p, row->res.shift, opts.alpha, opts.better);
		return 0;
	}
	rc = ul_stats_compare(b->v, b->n, k->v, k->n, &opts, &row->res);
	if (rc == -EINVAL || rc == -EDOM) {
		snprintf(row->why, sizeof(row->why), "samples cannot be compared (%s)",
			 strerror(-rc));
		row->tested = false;
		return 0;
	}
	return rc;
}

/* The test of a difference: the row's basis, shift, CI, p and call. */
static int decide_difference(const struct ul_runcmp *c, struct ul_runcmp_row *row,
			     const struct ul_runcmp_sides *s)
{
	bool count = row->metric->exposure != NULL;
	double alpha = c->opts.alpha, p_rate = NAN;
	const struct ul_runcmp_pooled *rb = &s->rep[0], *rc_ = &s->rep[1];
	struct ul_rep_result rep;
	struct ul_rep_var v;
	int rc;

	row->reps_base = rb->n;
	row->reps_cand = rc_->n;
	row->p_rate = NAN;
	if (count) {
		row->count_base = s->count[0];
		row->exposure_base = s->exposure[0];
		row->count_cand = s->count[1];
		row->exposure_cand = s->exposure[1];
		if (s->exposure[0] > 0.0 && s->exposure[1] > 0.0)
			p_rate = row->p_rate = ul_rate_test_p(s->count[0], s->exposure[0],
							      s->count[1], s->exposure[1]);
	}
	describe(&row->res, s, count);
	row->res.test = c->opts.test;
	row->res.alpha = alpha;
	row->tested = true;
	if (rb->n >= 2 && rc_->n >= 2) {
		row->basis = UL_BASIS_REPLICATES;
		rc = ul_rep_welch(rb->v, rb->n, rc_->v, rc_->n, alpha, &rep);
		if (rc) /* cannot happen: both sides have 2 */
			return rc;
		from_replicates(row, &rep, alpha, count ? p_rate : 0.0);
		return 0;
	}
	rc = learn(c, row, s, &v);
	if (rc)
		return rc;
	if (rb->n >= 1 && rc_->n >= 1 && v.df > 0.0 &&
	    !ul_rep_learned(rb->v, rb->n, rc_->v, rc_->n, &v, alpha, &rep)) {
		row->basis = UL_BASIS_LEARNED;
		row->learned_groups = v.groups;
		row->learned_cv = sqrt(ul_rep_var_cv2(&v));
		from_replicates(row, &rep, alpha, count ? p_rate : 0.0);
		return 0;
	}
	if (count ? isnan(p_rate) : s->pts[0].n < 2 || s->pts[1].n < 2) {
		size_t few = count ? 0 : s->pts[0].n < 2 ? s->pts[0].n : s->pts[1].n;
		bool base = count ? !(s->exposure[0] > 0.0) : s->pts[0].n < 2;

		row->tested = false;
		snprintf(row->why, sizeof(row->why), "%s has %zu valid point%s (%s needed)",
			 base ? "baseline" : "candidate", few, few == 1 ? "" : "s",
			 count ? "1" : "2");
		memset(&row->res, 0, sizeof(row->res));
		return 0;
	}
	rc = points_test(c, row, s, count);
	if (!rc && row->tested)
		unmeasured(row, alpha);
	return rc;
}

/*
 * With a margin: TOST on the replicate-level test's shift, standard error
 * and df, the margin relative to the baseline's replicate mean (the centre
 * the CI is printed against).  Within-run points alone never show
 * equivalence: their interval leaves out the run-to-run variation, so it
 * would be too narrow and "equal" too easy.
 */
static void equivalence(const struct ul_runcmp *c, struct ul_runcmp_row *row)
{
	double margin = c->opts.margin_rel * fabs(row->rep.mean_base);

	if (!(c->opts.margin_rel > 0.0) || !row->tested || row->basis == UL_BASIS_UNMEASURED ||
	    ul_tost_t(row->rep.shift, row->rep.se, row->rep.df, margin, c->opts.alpha, &row->tost))
		return;
	row->tost_done = true;
	if (row->tost.equivalent)
		row->res.verdict = UL_VERDICT_EQUAL;
}

int ul_runcmp_decide(const struct ul_runcmp *c, struct ul_runcmp_row *row,
		     const struct ul_runcmp_sides *s)
{
	int rc = decide_difference(c, row, s);

	row->verdict_diff = row->res.verdict;
	if (!rc)
		equivalence(c, row);
	return rc;
}
