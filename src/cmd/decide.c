/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Run until decided (decide.h): the blocks, the look after every pair,
 * the stopping rule and the result.
 */
#include "cmd/decide.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/verdict_opts.h"
#include "core/escape.h"
#include "core/clock.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/testhook.h"
#include "report/variance.h"
#include "store/store.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The family-wise error rate of the sequence's calls. */
#define DECIDE_ALPHA 0.05
/* The pairs run as the user's runs are before the points a cell are
 * designed (3 runs a side: 2 degrees of freedom between runs), and the
 * bounds of the designed points. */
#define DECIDE_PILOT_PAIRS 3
/*
 * Of DECIDE_ALPHA, what the pilot's own sequence spends (stats/seqab.h:
 * the sequence restarts after the pilot, the parts' alphas summing to
 * alpha).  None: after n values the sequence of stats/seq.h is bounded
 * only when alpha > (rho / (rho + n))^((n - 1) / 2) (seq.c's closed
 * form: n > q (rho + n)), at n = 3 and rho 0.25 alpha > 1/13 = 7.7%,
 * above the whole family's 5%.  Any alpha given to the pilot's 3 pairs
 * would be lost; all of it goes to the sequence after them.
 */
#define DECIDE_PILOT_ALPHA 0.0
/* The fewest pairs after which the sequence after the pilot can be bounded
 * (one test, alpha 0.05: (rho / (rho + n))^((n - 1) / 2) < alpha first at
 * n = 4, 0.0143); a --max-runs without room for them and the pilot's gets
 * no pilot, which could only leave every test open. */
#define DECIDE_AFTER_PAIRS_MIN 4
#define DECIDE_POINTS_MIN 3
#define DECIDE_POINTS_MAX 100

bool ul_decide_fixes_points(const char *name)
{
	static const char *const fix[] = { "min-points", "max-points", "quick" };

	for (size_t i = 0; i < UL_ARRAY_SIZE(fix); i++)
		if (!strcmp(name, fix[i]))
			return true;
	return false;
}

void ul_decide_plan(const struct ul_decide_args *a, bool points_given, struct ul_seqab_opts *o)
{
	bool room = !a->max_runs ||
		    a->max_runs >= 2 * (DECIDE_PILOT_PAIRS + DECIDE_AFTER_PAIRS_MIN);

	*o = (struct ul_seqab_opts){ .alpha = DECIDE_ALPHA,
				     .margin_pct = (double)a->margin_centi / 100.0,
				     .pilot_pairs = !points_given && room ? DECIDE_PILOT_PAIRS : 0,
				     .pilot_alpha = DECIDE_PILOT_ALPHA };
}

int ul_decide_check(const char *cmd, const struct ul_decide_args *a, size_t n_sides)
{
	if (!a->until_decided && (a->max_runs || a->budget_ns))
		return ul_usage_error(cmd, "--max-runs and --budget go with --until-decided");
	if (a->until_decided && n_sides != 2)
		return ul_usage_error(cmd,
				      "--until-decided compares two sides: %zu given (one setting "
				      "with two values, or two kernels)",
				      n_sides);
	return UL_EXIT_OK;
}

/*
 * What the looks keep between pairs: the pairs' differences (so a look
 * reads only the runs of the pairs not yet added) and the metrics the rows
 * point into (merged as suites appear, never moved).
 */
struct looks {
	struct ul_runcmp_metric metrics[UL_COMPARE_MAX_METRICS];
	size_t n_metrics;
	struct ul_seqab_acc acc;
};

/* Add the metrics of the suites of runs a and b that are not there yet. */
static void merge_metrics(struct looks *lk, const char *const labels[2], const struct ul_run *a,
			  const struct ul_run *b)
{
	static struct ul_compare_state st; /* large: only its groups are used */
	struct ul_runcmp_metric found[UL_COMPARE_MAX_METRICS];
	const struct ul_run *ra[1] = { a }, *rb[1] = { b };
	size_t n;

	memset(&st, 0, sizeof(st));
	st.groups[0] = (struct ul_runcmp_group){ .runs = ra, .n_runs = 1 };
	st.groups[1] = (struct ul_runcmp_group){ .runs = rb, .n_runs = 1 };
	snprintf(st.groups[0].label, sizeof(st.groups[0].label), "%s", labels[0]);
	snprintf(st.groups[1].label, sizeof(st.groups[1].label), "%s", labels[1]);
	st.n_groups = 2;
	n = ul_compare_pick_metrics(&st, NULL, found);
	for (size_t i = 0; i < n; i++) {
		size_t k = 0;

		while (k < lk->n_metrics && lk->metrics[k].src != found[i].src)
			k++;
		if (k == lk->n_metrics && k < UL_COMPARE_MAX_METRICS)
			lk->metrics[lk->n_metrics++] = found[i];
	}
}

/* The ids of label's runs of this sequence (finished, started at or after
 * `since`), oldest first, into ids[] (the caller frees it): their count. */
static size_t sequence_runs(const struct ul_cmd_scope *sc, const char *label, int64_t since,
			    int64_t *ids)
{
	size_t n = 0;

	/* sc->sum is newest first */
	for (size_t i = sc->n; i-- > 0;)
		if (ul_cmd_label_has_run(&sc->sum[i], label, NULL) &&
		    sc->sum[i].started_wall_ns >= since)
			ids[n++] = sc->sum[i].id;
	return n;
}

/* Load run `id` into *run: 0, or an exit code after printing why. */
static int load(struct ul_store *store, int64_t id, struct ul_run *run)
{
	char ref[32];
	int ret;

	snprintf(ref, sizeof(ref), "%lld", (long long)id);

	memset(run, 0, sizeof(*run));
	ret = ul_cmd_load_run(store, ref, run);
	if (ret)
		ul_run_release(run);
	return ret;
}

/* Add pair k (the k-th run of each side) to the looks; an exit code. */
static int add_pair(const struct ul_decide *d, struct ul_store *store, struct looks *lk,
		    const int64_t id[2])
{
	struct ul_run run[2];
	struct ul_runcmp_group g[2] = { { .n_runs = 1 }, { .n_runs = 1 } };
	int ret = load(store, id[0], &run[0]);

	if (ret)
		return ret;
	ret = load(store, id[1], &run[1]);
	if (ret) {
		ul_run_release(&run[0]);
		return ret;
	}
	for (int i = 0; i < 2; i++)
		snprintf(g[i].label, sizeof(g[i].label), "%s", d->labels[i]);
	merge_metrics(lk, d->labels, &run[0], &run[1]);
	if (ul_seqab_add_pair(&lk->acc, &g[0], &run[0], &g[1], &run[1], lk->metrics,
			      lk->n_metrics)) {
		ul_error("%s: out of memory deciding the runs", d->cmd);
		ret = UL_EXIT_ERROR;
	}
	ul_run_release(&run[0]);
	ul_run_release(&run[1]);
	return ret;
}

/*
 * The sequence's pairs not yet read added to `lk`, and all of them decided
 * into *out: 0, or an exit code after printing why.  Only the new pairs'
 * runs are loaded (the store's list of runs is read whole: summaries).
 * The test hook UL_TEST_DECIDE_READS says on stderr how many runs a look
 * loaded (t0116: two, whatever the pair).
 */
static int look(const struct ul_decide *d, const struct ul_seqab_opts *o, int64_t since,
		struct looks *lk, struct ul_seqab *out)
{
	struct ul_cmd_hosts no_hosts = { 0 };
	struct ul_cmd_scope sc = { 0 };
	int64_t *ids[2] = { NULL, NULL };
	size_t n[2] = { 0, 0 }, reads = 0;
	struct ul_store *store;
	int ret = ul_cmd_open_store_settled(d->db, &store);

	if (ret)
		return ret;
	ret = ul_cmd_scope_open(store, &no_hosts, &sc);
	for (int i = 0; i < 2 && !ret; i++) {
		ids[i] = calloc(sc.n ? sc.n : 1, sizeof(*ids[i]));
		if (!ids[i]) {
			ul_oom();
			ret = UL_EXIT_ERROR;
		} else {
			n[i] = sequence_runs(&sc, d->labels[i], since, ids[i]);
		}
	}
	if (!ret && (!n[0] || !n[1])) {
		ul_error("%s: the store holds runs of %d of the two labels", d->cmd,
			 !!n[0] + !!n[1]);
		ret = UL_EXIT_ERROR;
	}
	for (size_t k = lk->acc.pairs; !ret && k < n[0] && k < n[1]; k++, reads += 2)
		ret = add_pair(d, store, lk, (const int64_t[2]){ ids[0][k], ids[1][k] });
	if (!ret && ul_test_hook("UL_TEST_DECIDE_READS"))
		fprintf(stderr, "%s: look %zu loaded %zu runs\n", d->cmd, lk->acc.pairs, reads);
	if (!ret && ul_seqab_decide(&lk->acc, o, out)) {
		ul_error("%s: out of memory deciding the runs", d->cmd);
		ret = UL_EXIT_ERROR;
	}
	free(ids[0]);
	free(ids[1]);
	ul_cmd_scope_free(&sc);
	ul_store_close(store);
	return ret;
}

/* Every run of the sequence loaded into st's two groups, A first (once
 * each: for the pilot's design and the notes).  An exit code; the caller
 * frees st and closes *store either way. */
static int load_sequence(const struct ul_decide *d, int64_t since, struct ul_compare_state *st,
			 struct ul_store **store)
{
	static struct ul_cmd_hosts no_hosts;
	char *names[2] = { (char *)d->labels[0], (char *)d->labels[1] };
	int ret = ul_cmd_open_store_settled(d->db, store);

	if (ret)
		return ret;
	ret = ul_cmd_scope_open(*store, &no_hosts, &st->sc);
	if (!ret)
		ret = ul_compare_select(st, names, 2, names[0]);
	if (!ret && st->n_groups != 2) {
		ul_error("%s: the store holds runs of %zu of the two labels", d->cmd, st->n_groups);
		ret = UL_EXIT_ERROR;
	}
	for (size_t g = 0; !ret && g < 2; g++) {
		struct ul_runcmp_group *gr = &st->groups[g];
		size_t k = 0;

		for (size_t r = 0; r < gr->n_runs; r++)
			if (gr->runs[r]->started_wall_ns >= since)
				gr->runs[k++] = gr->runs[r];
		gr->n_runs = k;
	}
	return ret;
}

/* The open rows' designs over both sides (report/variance.h), their
 * points a cell at most: 0 when no row could be designed. */
static size_t designed_points(const struct ul_decide *d, const struct ul_compare_state *st,
			      const struct ul_seqab *s)
{
	size_t points = 0;

	for (size_t i = 0; i < s->n_rows; i++)
		for (size_t g = 0; g < 2 && s->rows[i].seq.verdict == UL_SEQ_OPEN; g++) {
			struct ul_variance_of v;

			if (ul_variance_of(&st->groups[g], s->rows[i].metric, s->rows[i].test,
					   (double)d->a.margin_centi / 1e4, &v) == 0 &&
			    v.designed && v.d.reps[UL_VARCOMP_POINTS] > points)
				points = v.d.reps[UL_VARCOMP_POINTS];
		}
	return points;
}

/* After the pilot: the points a cell the later runs take (set_points),
 * said on stderr.  An exit code. */
static int design(const struct ul_decide *d, int64_t since, const struct ul_seqab *s)
{
	struct ul_compare_state *st = calloc(1, sizeof(*st));
	struct ul_store *store = NULL;
	size_t points = 0, clipped;
	int ret;

	if (!st) {
		ul_oom();
		return UL_EXIT_ERROR;
	}
	ret = load_sequence(d, since, st, &store);
	if (!ret)
		points = designed_points(d, st, s);
	ul_compare_state_free(st);
	free(st);
	if (store)
		ul_store_close(store);
	if (ret)
		return ret;
	if (!points) {
		fprintf(stderr,
			"%s: after the pilot of %d pairs: no design (the components are unknown); "
			"the points stay the run's\n",
			d->cmd, DECIDE_PILOT_PAIRS);
		return UL_EXIT_OK;
	}
	clipped = points < DECIDE_POINTS_MIN   ? DECIDE_POINTS_MIN
		  : points > DECIDE_POINTS_MAX ? DECIDE_POINTS_MAX
					       : points;
	fprintf(stderr,
		"%s: after the pilot of %d pairs: %zu points a cell from now on, the cheapest "
		"design for the components so far (Kalibera and Jones 2013)",
		d->cmd, DECIDE_PILOT_PAIRS, clipped);
	if (clipped != points)
		fprintf(stderr, "; it asked for %zu, kept within %d..%d", points, DECIDE_POINTS_MIN,
			DECIDE_POINTS_MAX);
	fputc('\n', stderr);
	points = clipped;
	d->set_points(d->ctx, (int)points);
	return UL_EXIT_OK;
}

/* "12.3%", "0%*" (an estimate below 0), "-" */
static void fmt_cv(const struct ul_varcomp *v, enum ul_varcomp_level l, char *buf, size_t len)
{
	double cv = ul_varcomp_cv(v, l);

	if (isfinite(cv))
		snprintf(buf, len, "%.3g%%%s", 100.0 * cv, v->truncated[l] ? "*" : "");
	else
		snprintf(buf, len, "-");
}

/* One row's note of one side: its components and design. */
static void note_row(const struct ul_decide *d, const struct ul_runcmp_group *g,
		     const struct ul_seqab_row *r, const struct ul_variance_of *v)
{
	char cv[UL_VARCOMP_LEVELS][32];

	for (int l = 0; l < UL_VARCOMP_LEVELS; l++)
		fmt_cv(&v->v, (enum ul_varcomp_level)l, cv[l], sizeof(cv[l]));
	printf("  %s %s %s '%s': within a cell %s, between rounds %s, between %s %s",
	       r->metric->suite, r->test, r->metric->label, ul_esc(g->label), cv[UL_VARCOMP_POINTS],
	       v->merged ? "(one a run: with the runs)" : cv[UL_VARCOMP_CELLS],
	       v->boots ? "boots" : "runs", cv[UL_VARCOMP_RUNS]);
	if (v->designed)
		printf("; cheapest design for +-%.4g%%: %zu point%s a round, %zu round%s a run, "
		       "%zu %s%s\n",
		       (double)d->a.margin_centi / 100.0, v->d.reps[UL_VARCOMP_POINTS],
		       v->d.reps[UL_VARCOMP_POINTS] == 1 ? "" : "s", v->d.reps[UL_VARCOMP_CELLS],
		       v->d.reps[UL_VARCOMP_CELLS] == 1 ? "" : "s", v->d.reps[UL_VARCOMP_RUNS],
		       v->boots ? "boot" : "run", v->d.reps[UL_VARCOMP_RUNS] == 1 ? "" : "s");
	else
		printf("\n");
}

/* The notes after the result (stdout): every row's variance components
 * on each side, from the sequence's runs loaded once.  An exit code. */
static int notes(const struct ul_decide *d, int64_t since, const struct ul_seqab *s)
{
	struct ul_compare_state *st = calloc(1, sizeof(*st));
	struct ul_store *store = NULL;
	int ret;

	if (!st) {
		ul_oom();
		return UL_EXIT_ERROR;
	}
	ret = load_sequence(d, since, st, &store);
	if (!ret && s->n_rows)
		printf("variance components (the S.D. of each level as a CV of the mean; * an "
		       "estimate below 0, shown as 0):\n");
	for (size_t i = 0; !ret && i < s->n_rows; i++)
		for (size_t g = 0; !ret && g < 2; g++) {
			struct ul_variance_of v;

			if (ul_variance_of(&st->groups[g], s->rows[i].metric, s->rows[i].test,
					   (double)d->a.margin_centi / 1e4, &v)) {
				ul_oom();
				ret = UL_EXIT_ERROR;
			} else {
				note_row(d, &st->groups[g], &s->rows[i], &v);
			}
		}
	ul_compare_state_free(st);
	free(st);
	if (store)
		ul_store_close(store);
	return ret;
}

/* "resp spawnload delay" */
static void row_name(const struct ul_seqab_row *r, char *buf, size_t len)
{
	snprintf(buf, len, "%s %s %s", r->metric->suite, r->test, r->metric->label);
}

/* "+9.8% [+4.1%, +15.9%]", an unbounded end as "inf" */
static void row_interval(const struct ul_seqab_row *r, char *buf, size_t len)
{
	if (!r->pairs)
		snprintf(buf, len, "no pair");
	else if (isfinite(r->lo_pct))
		snprintf(buf, len, "%+.1f%% [%+.1f%%, %+.1f%%]", r->change_pct, r->lo_pct,
			 r->hi_pct);
	else
		snprintf(buf, len, "%+.1f%% [unbounded]", r->change_pct);
}

/* The progress line after a look: decided rows, the least decided open
 * row, and the pairs that the S.D.s so far say are still needed. */
static void progress(const struct ul_decide *d, const struct ul_seqab *s)
{
	const struct ul_seqab_row *worst = NULL;
	size_t more = 0;
	bool beyond = false;
	char name[3 * UL_NAME_LEN], iv[96];

	for (size_t i = 0; i < s->n_rows; i++) {
		const struct ul_seqab_row *r = &s->rows[i];

		if (r->seq.verdict != UL_SEQ_OPEN)
			continue;
		if (!worst || r->seq.half > worst->seq.half)
			worst = r;
		if (!r->needed)
			beyond = true;
		else if (r->needed > s->pairs && r->needed - s->pairs > more)
			more = r->needed - s->pairs;
	}
	fprintf(stderr, "%s: pair %zu%s: %zu of %zu tests decided", d->cmd, s->pairs,
		s->pairs <= s->opts.pilot_pairs ? " (the pilot's)" : "", s->n_rows - s->open,
		s->n_rows);
	if (worst) {
		row_name(worst, name, sizeof(name));
		row_interval(worst, iv, sizeof(iv));
		fprintf(stderr, "; least decided: %s %s", name, iv);
		if (s->pairs < 2)
			fprintf(stderr, "; pairs still needed: known after 2");
		else if (beyond)
			fprintf(stderr, "; at this spread over %d pairs in all", UL_SEQAB_NEED_MAX);
		else
			fprintf(stderr, "; about %zu more pair%s", more ? more : 1,
				more == 1 ? "" : "s");
	}
	fputc('\n', stderr);
}

/* The result table (stdout). */
static void result(const struct ul_decide *d, const struct ul_seqab *s, size_t runs,
		   int64_t took_ns, const char *why_stopped)
{
	char took[64], name[3 * UL_NAME_LEN], iv[96];
	int w = 4;

	/* Rounded to the second: ul_fmt_duration() gives a value exactly. */
	ul_fmt_duration(took, sizeof(took), took_ns / UL_NS_PER_SEC * UL_NS_PER_SEC);
	printf("until decided: '%s' against '%s' (the baseline): %s after %zu pair%s (%zu runs, "
	       "%s)\n",
	       d->labels[1], d->labels[0], why_stopped, s->pairs, s->pairs == 1 ? "" : "s", runs,
	       took);
	printf("anytime-valid %.0f%% intervals of the change (alpha %.2f over %zu test%s); equal "
	       "means within +-%.4g%%\n",
	       100 * (1 - s->opts.alpha), s->opts.alpha, s->n_rows, s->n_rows == 1 ? "" : "s",
	       s->opts.margin_pct);
	if (s->opts.pilot_pairs)
		printf("the first %zu pairs are the pilot's, which designs the points a cell: the "
		       "sequence restarts after them (alpha %.2g in the pilot, %.2g after it)\n",
		       s->opts.pilot_pairs, s->opts.pilot_alpha,
		       s->opts.alpha - s->opts.pilot_alpha);
	for (size_t i = 0; i < s->n_rows; i++) {
		row_name(&s->rows[i], name, sizeof(name));
		if ((int)strlen(name) > w)
			w = (int)strlen(name);
	}
	printf("%-*s  %-32s  %s\n", w, "test", "change [interval]", "verdict");
	for (size_t i = 0; i < s->n_rows; i++) {
		const struct ul_seqab_row *r = &s->rows[i];

		row_name(r, name, sizeof(name));
		row_interval(r, iv, sizeof(iv));
		printf("%-*s  %-32s  %s\n", w, name, iv, ul_seqab_verdict_name(r->seq.verdict));
	}
	if (s->open) {
		double det = ul_seqab_detectable_pct(s);

		if (isfinite(det))
			printf("%zu test%s open: these runs could tell a change of about +-%.1f%% "
			       "from none\n",
			       s->open, s->open == 1 ? "" : "s", det);
		else
			printf("%zu test%s open: too few pairs to bound a change\n", s->open,
			       s->open == 1 ? "" : "s");
	}
}

/*
 * --fail-on: the rows whose verdict is the one the gate names (changed:
 * slower or faster), named on stderr as compare's gate names them.  The
 * count of such rows.
 */
static size_t gate_rows(const struct ul_decide *d, const struct ul_seqab *s)
{
	struct ul_fail_on gate = ul_fail_on_parse(d->a.fail_on);
	size_t n = 0;

	for (size_t i = 0; i < s->n_rows; i++) {
		const struct ul_seqab_row *r = &s->rows[i];
		enum ul_seq_verdict v = r->seq.verdict;

		if (!ul_fail_on_trips(gate, v == UL_SEQ_ABOVE, v == UL_SEQ_BELOW))
			continue;
		ul_error("%s --fail-on %s: %s %s %s: '%s' is %s than '%s'", d->cmd, d->a.fail_on,
			 r->metric->suite, r->metric->label, ul_esc(r->test), ul_esc(d->labels[1]),
			 ul_seqab_verdict_name(v), ul_esc(d->labels[0]));
		n++;
	}
	return n;
}

/* One block: both sides, in the order of block `b` (A B, then B A, ...). */
static int block(const struct ul_decide *d, size_t b, bool *flagged)
{
	for (int i = 0; i < 2; i++) {
		int side = (int)(b % 2) ^ i;
		int rc = d->run_side(d->ctx, side);

		if (rc == UL_EXIT_FLAGGED)
			*flagged = true;
		else if (rc != UL_EXIT_OK)
			return rc;
	}
	return UL_EXIT_OK;
}

/* The pairs, the looks and the result, the looks' state in lk. */
static int sequence(const struct ul_decide *d, struct looks *lk)
{
	int64_t since = ul_wall_ns();
	ul_nsec t0 = ul_now_ns();
	struct ul_seqab s = { 0 };
	const char *why = "budget reached";
	bool flagged = false;
	size_t runs = 0;
	struct ul_seqab_opts plan;
	int rc;

	ul_decide_plan(&d->a, !d->set_points, &plan);

	for (size_t b = 0;; b++) {
		ul_nsec spent = ul_now_ns() - t0;

		if (d->a.max_runs && runs + 2 > (size_t)d->a.max_runs)
			break;
		/* A pair takes about what the pairs so far took on average. */
		if (d->a.budget_ns && b && spent + spent / (ul_nsec)b > d->a.budget_ns)
			break;
		rc = block(d, b, &flagged);
		if (rc) {
			/* The last look's intervals are still valid: say them. */
			if (s.n_rows)
				result(d, &s, runs, (int64_t)(ul_now_ns() - t0),
				       rc == UL_EXIT_INTERRUPTED ? "interrupted" : "a run failed");
			ul_seqab_free(&s);
			return rc;
		}
		runs += 2;
		ul_seqab_free(&s);
		rc = look(d, &plan, since, lk, &s);
		if (rc)
			return rc;
		progress(d, &s);
		if (s.n_rows && !s.open) {
			why = "decided";
			break;
		}
		if (plan.pilot_pairs && b + 1 == plan.pilot_pairs) {
			rc = design(d, since, &s);
			if (rc) {
				ul_seqab_free(&s);
				return rc;
			}
		}
	}
	fflush(stderr);
	result(d, &s, runs, (int64_t)(ul_now_ns() - t0), why);
	rc = notes(d, since, &s);
	if (rc) {
		ul_seqab_free(&s);
		return rc;
	}
	rc = gate_rows(d, &s) ? UL_EXIT_GATE : flagged ? UL_EXIT_FLAGGED : UL_EXIT_OK;
	ul_seqab_free(&s);
	return rc;
}

int ul_decide_run(const struct ul_decide *d)
{
	struct looks *lk = calloc(1, sizeof(*lk));
	int rc;

	if (!lk) {
		ul_oom();
		return UL_EXIT_ERROR;
	}
	rc = sequence(d, lk);
	ul_seqab_acc_free(&lk->acc);
	free(lk);
	return rc;
}
