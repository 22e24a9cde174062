/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The sequential A/B of two labels (seqab.h): rows, pairs, verdicts, and
 * the sequence's restart after a pilot.
 */
#include "stats/seqab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row being built: its differences, grown as pairs are added, and the
 * pair each came from (0 the first: whether it is the pilot's). */
struct ul_seqab_draft {
	struct ul_seqab_row row;
	double *d;
	size_t *pair_no;
	size_t cap;
};

void ul_seqab_acc_free(struct ul_seqab_acc *acc)
{
	for (size_t i = 0; i < acc->n_rows; i++) {
		free(acc->rows[i].d);
		free(acc->rows[i].pair_no);
	}
	free(acc->rows);
	memset(acc, 0, sizeof(*acc));
}

/* The draft of metric m and test, added when absent; NULL on -ENOMEM. */
static struct ul_seqab_draft *draft_of(struct ul_seqab_acc *acc, const struct ul_runcmp_metric *m,
				       const char *test)
{
	struct ul_seqab_draft *dr;

	for (size_t i = 0; i < acc->n_rows; i++)
		if (acc->rows[i].row.metric == m && !strcmp(acc->rows[i].row.test, test))
			return &acc->rows[i];
	if (acc->n_rows == acc->cap) {
		size_t cap = acc->cap ? 2 * acc->cap : 16;
		struct ul_seqab_draft *nv = realloc(acc->rows, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		acc->rows = nv;
		acc->cap = cap;
	}
	dr = &acc->rows[acc->n_rows++];
	memset(dr, 0, sizeof(*dr));
	dr->row.metric = m;
	snprintf(dr->row.test, sizeof(dr->row.test), "%s", test);
	return dr;
}

/* Every (metric, test) one run holds: 0 or -ENOMEM. */
static int find_rows(const struct ul_run *run, const struct ul_runcmp_metric *metrics,
		     size_t n_metrics, struct ul_seqab_acc *acc)
{
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		for (size_t k = 0; k < n_metrics; k++)
			if (!metrics[k].exposure && !strcmp(c->suite, metrics[k].suite) &&
			    ul_runcmp_cell_has(c, &metrics[k]) &&
			    !draft_of(acc, &metrics[k], c->load))
				return -ENOMEM;
	}
	return 0;
}

/* The median of one run's values of m in test: > 0, or 0 when it has none. */
static int run_value(const struct ul_runcmp_group *g, const struct ul_run *run,
		     const struct ul_runcmp_metric *m, const char *test, double *out)
{
	struct ul_runcmp_group one = *g;
	struct ul_runcmp_pooled p;

	one.runs = &run;
	one.n_runs = 1;
	*out = 0;
	if (ul_runcmp_pool_runs(&one, m, test, &p))
		return -ENOMEM;
	if (p.n == 1 && p.v[0] > 0)
		*out = p.v[0];
	free(p.v);
	return 0;
}

/* Room for one more difference in the row: 0 or -ENOMEM (the row as before). */
static int grow(struct ul_seqab_draft *dr)
{
	size_t cap = dr->cap ? 2 * dr->cap : 16;
	double *nd;
	size_t *np;

	if (dr->row.pairs < dr->cap)
		return 0;
	nd = realloc(dr->d, cap * sizeof(*nd));
	if (!nd)
		return -ENOMEM;
	dr->d = nd;
	np = realloc(dr->pair_no, cap * sizeof(*np));
	if (!np)
		return -ENOMEM;
	dr->pair_no = np;
	dr->cap = cap;
	return 0;
}

/* The row's difference in pair pair_no (a, b), appended when both runs
 * have the test: 0 or -ENOMEM. */
static int add_difference(struct ul_seqab_draft *dr, size_t pair_no,
			  const struct ul_runcmp_group *ga, const struct ul_run *a,
			  const struct ul_runcmp_group *gb, const struct ul_run *b)
{
	const struct ul_runcmp_metric *m = dr->row.metric;
	double va, vb, d;

	if (run_value(ga, a, m, dr->row.test, &va) || run_value(gb, b, m, dr->row.test, &vb))
		return -ENOMEM;
	if (!(va > 0 && vb > 0))
		return 0;
	if (grow(dr))
		return -ENOMEM;
	d = log(vb / va);
	dr->pair_no[dr->row.pairs] = pair_no;
	dr->d[dr->row.pairs++] = m->better == UL_BETTER_HIGHER ? -d : d;
	return 0;
}

int ul_seqab_add_pair(struct ul_seqab_acc *acc, const struct ul_runcmp_group *ga,
		      const struct ul_run *a, const struct ul_runcmp_group *gb,
		      const struct ul_run *b, const struct ul_runcmp_metric *metrics,
		      size_t n_metrics)
{
	int rc = find_rows(a, metrics, n_metrics, acc);

	if (!rc)
		rc = find_rows(b, metrics, n_metrics, acc);
	for (size_t i = 0; !rc && i < acc->n_rows; i++)
		rc = add_difference(&acc->rows[i], acc->pairs, ga, a, gb, b);
	if (rc) /* drop this pair's differences: the rows stay as before it */
		for (size_t i = 0; i < acc->n_rows; i++)
			if (acc->rows[i].row.pairs > acc->pairs)
				acc->rows[i].row.pairs = acc->pairs;
	if (!rc)
		acc->pairs++;
	return rc;
}

/* One part's sequence at alpha; a part without alpha bounds nothing (its
 * mean and S.D. are still given). */
static int part_update(const double *d, size_t n, double alpha, double rho, double margin,
		       struct ul_seq_state *out)
{
	int rc;

	if (alpha > 0)
		return ul_seq_update(d, n, alpha, rho, margin, out);
	rc = ul_seq_update(d, n, 0.5, rho, margin, out); /* any alpha: for the mean and S.D. */
	out->half = INFINITY;
	out->lo = -INFINITY;
	out->hi = INFINITY;
	out->verdict = UL_SEQ_OPEN;
	return rc;
}

int ul_seqab_sequence(const double *d, size_t n, size_t n_pilot, double alpha_pilot,
		      double alpha_after, double rho, double margin, struct ul_seq_state *out,
		      enum ul_seqab_part *part)
{
	struct ul_seq_state pilot;
	int rc;

	if (!(alpha_pilot >= 0 && alpha_pilot < 1) || n_pilot > n)
		return -EINVAL;
	/* The restart: the part after the pilot knows nothing of its values. */
	rc = part_update(d + n_pilot, n - n_pilot, alpha_after, rho, margin, out);
	*part = UL_SEQAB_AFTER;
	if (rc || !n_pilot)
		return rc;
	rc = part_update(d, n_pilot, alpha_pilot, rho, margin, &pilot);
	if (!rc && (n == n_pilot || (isinf(out->half) && isfinite(pilot.half)))) {
		*out = pilot;
		*part = UL_SEQAB_PILOT;
	}
	return rc;
}

/* The row's sequence, verdict and estimate at the family's per-row alphas. */
static void decide(const struct ul_seqab *s, const struct ul_seqab_draft *dr,
		   struct ul_seqab_row *r)
{
	double margin = log1p(s->opts.margin_pct / 100.0);
	size_t before, more;

	*r = dr->row;
	r->pilot_n = 0;
	while (r->pilot_n < r->pairs && dr->pair_no[r->pilot_n] < s->opts.pilot_pairs)
		r->pilot_n++;
	/* Options are checked before: the sequence cannot fail here. */
	if (ul_seqab_sequence(dr->d, r->pairs, r->pilot_n, s->part_alpha[UL_SEQAB_PILOT],
			      s->part_alpha[UL_SEQAB_AFTER], s->opts.rho, margin, &r->seq,
			      &r->part))
		r->seq.verdict = UL_SEQ_OPEN;
	r->change_pct = expm1(r->seq.mean) * 100.0;
	r->lo_pct = isfinite(r->seq.lo) ? expm1(r->seq.lo) * 100.0 : -INFINITY;
	r->hi_pct = isfinite(r->seq.hi) ? expm1(r->seq.hi) * 100.0 : INFINITY;
	if (r->seq.verdict != UL_SEQ_OPEN) {
		r->needed = r->pairs;
		return;
	}
	/* The part after the pilot decides (with no pilot: the one part), at
	 * today's S.D. (in the pilot: the pilot's, a guess), after the pairs
	 * that are not its own. */
	before = r->pairs > r->pilot_n ? r->pilot_n : s->opts.pilot_pairs;
	more = r->seq.n >= 2 ? ul_seq_needed(r->seq.mean, r->seq.sd, margin,
					     s->part_alpha[UL_SEQAB_AFTER], s->opts.rho,
					     UL_SEQAB_NEED_MAX)
			     : 0;
	r->needed = more ? before + more : 0;
}

int ul_seqab_decide(const struct ul_seqab_acc *acc, const struct ul_seqab_opts *opts,
		    struct ul_seqab *out)
{
	memset(out, 0, sizeof(*out));
	out->opts = *opts;
	if (!out->opts.rho)
		out->opts.rho = UL_SEQ_RHO_DEFAULT;
	if (!(out->opts.alpha > 0 && out->opts.alpha < 1) || !(out->opts.rho > 0) ||
	    !(out->opts.margin_pct >= 0) ||
	    !(out->opts.pilot_alpha >= 0 && out->opts.pilot_alpha < out->opts.alpha))
		return -EINVAL;
	out->pairs = acc->pairs;
	if (acc->n_rows) {
		out->rows = malloc(acc->n_rows * sizeof(*out->rows));
		if (!out->rows)
			return -ENOMEM;
	}
	out->n_rows = acc->n_rows;
	out->row_alpha = out->opts.alpha / (double)(acc->n_rows ? acc->n_rows : 1);
	/* The union bound over the parts: their alphas sum to the row's. */
	if (out->opts.pilot_pairs)
		out->part_alpha[UL_SEQAB_PILOT] =
			out->opts.pilot_alpha / (double)(acc->n_rows ? acc->n_rows : 1);
	out->part_alpha[UL_SEQAB_AFTER] = out->row_alpha - out->part_alpha[UL_SEQAB_PILOT];
	for (size_t i = 0; i < acc->n_rows; i++) {
		decide(out, &acc->rows[i], &out->rows[i]);
		out->open += out->rows[i].seq.verdict == UL_SEQ_OPEN;
	}
	return 0;
}

int ul_seqab_build(const struct ul_runcmp_group *a, const struct ul_runcmp_group *b,
		   const struct ul_runcmp_metric *metrics, size_t n_metrics,
		   const struct ul_seqab_opts *opts, struct ul_seqab *out)
{
	struct ul_seqab_acc acc = { 0 };
	size_t pairs = a->n_runs < b->n_runs ? a->n_runs : b->n_runs;
	int rc = 0;

	memset(out, 0, sizeof(*out));
	/* The rows of every run, a's oldest first, then b's; then the pairs. */
	for (size_t r = a->n_runs; !rc && r-- > 0;)
		rc = find_rows(a->runs[r], metrics, n_metrics, &acc);
	for (size_t r = b->n_runs; !rc && r-- > 0;)
		rc = find_rows(b->runs[r], metrics, n_metrics, &acc);
	for (size_t i = 0; !rc && i < pairs; i++)
		rc = ul_seqab_add_pair(&acc, a, a->runs[a->n_runs - 1 - i], b,
				       b->runs[b->n_runs - 1 - i], metrics, n_metrics);
	if (!rc)
		rc = ul_seqab_decide(&acc, opts, out);
	ul_seqab_acc_free(&acc);
	return rc;
}

void ul_seqab_free(struct ul_seqab *s)
{
	free(s->rows);
	memset(s, 0, sizeof(*s));
}

const char *ul_seqab_verdict_name(enum ul_seq_verdict v)
{
	static const char *const names[] = { "open", "slower", "faster", "equal" };

	return (unsigned)v < UL_ARRAY_SIZE(names) ? names[v] : "?";
}

double ul_seqab_detectable_pct(const struct ul_seqab *s)
{
	double widest = 0;

	for (size_t i = 0; i < s->n_rows; i++)
		if (s->rows[i].seq.half > widest)
			widest = s->rows[i].seq.half;
	return isfinite(widest) ? expm1(widest) * 100.0 : INFINITY;
}
