// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * The sequential A/B of two labels (seqab.h): rows, pairs, verdicts.
 */
#include "stats/seqab.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A row being built: its differences, grown as pairs are read. */
struct draft {
	struct ul_seqab_row row;
	double *d;
};

struct drafts {
	struct draft *v;
	size_t n, cap;
};

static void drafts_free(struct drafts *ds)
{
	for (size_t i = 0; i < ds->n; i++)
		free(ds->v[i].d);
	free(ds->v);
	memset(ds, 0, sizeof(*ds));
}

/* The draft of metric m and test, added when absent; NULL on -ENOMEM. */
static struct draft *draft_of(struct drafts *ds, const struct ul_runcmp_metric *m, const char *test)
{
	for (size_t i = 0; i < ds->n; i++)
		if (ds->v[i].row.metric == m && !strcmp(ds->v[i].row.test, test))
			return &ds->v[i];
	if (ds->n == ds->cap) {
		size_t cap = ds->cap ? 2 * ds->cap : 16;
		struct draft *nv = realloc(ds->v, cap * sizeof(*nv));

		if (!nv)
			return NULL;
		ds->v = nv;
		ds->cap = cap;
	}
	memset(&ds->v[ds->n], 0, sizeof(ds->v[ds->n]));
	ds->v[ds->n].row.metric = m;
	snprintf(ds->v[ds->n].row.test, sizeof(ds->v[ds->n].row.test), "%s", test);
	return &ds->v[ds->n++];
}

/* Every (metric, test) the runs hold, oldest run first: 0 or -ENOMEM. */
static int find_rows(const struct ul_runcmp_group *g, const struct ul_runcmp_metric *metrics,
		     size_t n_metrics, struct drafts *ds)
{
	for (size_t r = g->n_runs; r-- > 0;)
		for (size_t i = 0; i < g->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &g->runs[r]->cells[i];

			for (size_t k = 0; k < n_metrics; k++)
				if (!metrics[k].exposure && !strcmp(c->suite, metrics[k].suite) &&
				    ul_runcmp_cell_has(c, &metrics[k]) &&
				    !draft_of(ds, &metrics[k], c->load))
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

/* The row's differences, pair by pair: 0 or -ENOMEM. */
static int read_pairs(const struct ul_runcmp_group *a, const struct ul_runcmp_group *b,
		      size_t pairs, struct draft *dr)
{
	const struct ul_runcmp_metric *m = dr->row.metric;

	dr->d = malloc((pairs ? pairs : 1) * sizeof(*dr->d));
	if (!dr->d)
		return -ENOMEM;
	for (size_t i = 0; i < pairs; i++) {
		double va, vb, d;

		if (run_value(a, a->runs[a->n_runs - 1 - i], m, dr->row.test, &va) ||
		    run_value(b, b->runs[b->n_runs - 1 - i], m, dr->row.test, &vb))
			return -ENOMEM;
		if (!(va > 0 && vb > 0))
			continue;
		d = log(vb / va);
		dr->d[dr->row.pairs++] = m->better == UL_BETTER_HIGHER ? -d : d;
	}
	return 0;
}

/* The row's sequence, verdict and estimate at the family's per-row alpha. */
static void decide(const struct ul_seqab *s, struct draft *dr)
{
	struct ul_seqab_row *r = &dr->row;
	double margin = log1p(s->opts.margin_pct / 100.0);

	/* Options are checked before: ul_seq_update() cannot fail here. */
	if (ul_seq_update(dr->d, r->pairs, s->row_alpha, s->opts.rho, margin, &r->seq))
		r->seq.verdict = UL_SEQ_OPEN;
	r->change_pct = expm1(r->seq.mean) * 100.0;
	r->lo_pct = isfinite(r->seq.lo) ? expm1(r->seq.lo) * 100.0 : -INFINITY;
	r->hi_pct = isfinite(r->seq.hi) ? expm1(r->seq.hi) * 100.0 : INFINITY;
	r->needed = r->seq.verdict != UL_SEQ_OPEN ? r->pairs
		    : r->pairs >= 2 ? ul_seq_needed(r->seq.mean, r->seq.sd, margin, s->row_alpha,
						    s->opts.rho, UL_SEQAB_NEED_MAX)
				    : 0;
}

int ul_seqab_build(const struct ul_runcmp_group *a, const struct ul_runcmp_group *b,
		   const struct ul_runcmp_metric *metrics, size_t n_metrics,
		   const struct ul_seqab_opts *opts, struct ul_seqab *out)
{
	struct drafts ds = { 0 };
	int rc;

	memset(out, 0, sizeof(*out));
	out->opts = *opts;
	if (!out->opts.rho)
		out->opts.rho = UL_SEQ_RHO_DEFAULT;
	if (!(out->opts.alpha > 0 && out->opts.alpha < 1) || !(out->opts.rho > 0) ||
	    !(out->opts.margin_pct >= 0))
		return -EINVAL;
	out->pairs = a->n_runs < b->n_runs ? a->n_runs : b->n_runs;
	rc = find_rows(a, metrics, n_metrics, &ds);
	if (!rc)
		rc = find_rows(b, metrics, n_metrics, &ds);
	for (size_t i = 0; !rc && i < ds.n; i++)
		rc = read_pairs(a, b, out->pairs, &ds.v[i]);
	if (!rc && ds.n)
		out->rows = malloc(ds.n * sizeof(*out->rows));
	if (!rc && ds.n && !out->rows)
		rc = -ENOMEM;
	if (rc) {
		drafts_free(&ds);
		return rc;
	}
	out->n_rows = ds.n;
	out->row_alpha = out->opts.alpha / (double)(ds.n ? ds.n : 1);
	for (size_t i = 0; i < ds.n; i++) {
		decide(out, &ds.v[i]);
		out->rows[i] = ds.v[i].row;
		out->open += out->rows[i].seq.verdict == UL_SEQ_OPEN;
	}
	drafts_free(&ds);
	return 0;
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
