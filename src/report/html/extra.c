/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Suite-specific pictures of the report: contest's Time and Loads per load
 * and label (the seed table as bars), and the deadline probe's latency
 * over time with its missed periods marked.
 */
#include "core/compat.h"
#include "report/common.h"
#include "report/html/sections.h"
#include "stats/stats.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_BARS 256

/* Mean, min and max of a contest quantity over a label's valid jobs of `load`. */
struct agg {
	size_t n;
	double sum, min, max;
};

static void agg_add(struct agg *a, double v)
{
	if (!a->n || v < a->min)
		a->min = v;
	if (!a->n || v > a->max)
		a->max = v;
	a->sum += v;
	a->n++;
}

/* Time in s (what = 0) or Loads (what = 1) of one label's jobs under `load`. */
static struct agg contest_agg(const struct ul_hlabel *l, const char *suite, const char *load,
			      int what)
{
	struct agg a = { 0 };

	for (size_t r = 0; r < l->n_runs; r++)
		for (size_t i = 0; i < l->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &l->runs[r]->cells[i];
			const struct ul_series *w = ul_cell_find_series(c, "wall_ns");
			double loads = 0;

			if (strcmp(c->suite, suite) || strcmp(c->load, load) ||
			    c->outcome != UL_CELL_OK || !w || !w->n)
				continue;
			ul_cell_metric(c, "loads", &loads);
			agg_add(&a, what ? loads : (double)w->v[0] / 1e9);
		}
	return a;
}

static void contest_chart(struct ul_hdoc *d, const char *suite, int what)
{
	struct ul_chart_bar *bars = calloc(MAX_BARS, sizeof(*bars));
	struct ul_chart_text tx = {
		.title = what ? "contest: Loads (the load's own work) per load and label"
			      : "contest: Time of the reference job per load and label",
		.x_label = what ? "Loads (mean over runs)" : "Time (s, mean over runs)",
	};
	size_t nb = 0;
	FILE *f;

	if (!bars) {
		d->err = -ENOMEM;
		return;
	}
	for (size_t r = 0; r < d->n_runs; r++)
		for (size_t i = 0; i < d->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &d->runs[r]->cells[i];
			bool dup = false;

			if (strcmp(c->suite, suite))
				continue;
			for (size_t k = 0; k < nb && !dup; k++)
				dup = !strcmp(bars[k].category, c->load);
			for (size_t j = 0; !dup && j < d->n_labels && nb < MAX_BARS; j++) {
				struct agg a = contest_agg(&d->labels[j], suite, c->load, what);

				if (!a.n)
					continue;
				bars[nb++] = (struct ul_chart_bar){
					.category = c->load,
					.group = d->labels[j].label,
					.colour = d->labels[j].colour,
					.value = a.sum / (double)a.n,
					.has_ci = a.n > 1,
					.lo = a.min,
					.hi = a.max,
				};
			}
		}
	if (nb) {
		f = ul_hdoc_figure_begin(d, suite, what ? "loads" : "time", "bars");
		ul_hdoc_figure_end(d, f, f ? ul_chart_bars(f, &tx, bars, nb, false, 0) : 0,
				   "Mean over each label's valid jobs; the whisker spans the "
				   "smallest and largest run when there are several.");
	}
	free(bars);
}

void ul_html_contest(struct ul_hdoc *d, const char *suite)
{
	contest_chart(d, suite, 0);
	contest_chart(d, suite, 1);
}

/*
 * Which periods of a deadline cell were missed, into miss[0..n-1].  With
 * the stall series (dl_stall_ns; < 0 marks a skipped period) this replays
 * the probe's own accounting (probe/deadline.h): period k, due at k*P,
 * starts when it is due or when the previous period's work ended, its work
 * ends W + stall later, and it is missed when that is after k*P + P.  Runs
 * stored before the stall series only have the latency: lat + W > P is a
 * certain miss, so the marks are then a lower bound (the caption says so).
 */
static void deadline_misses(const struct ul_series *lat, const struct ul_series *stall,
			    double work_ns, double period_ns, bool *miss)
{
	double prev_end = -INFINITY;

	for (size_t k = 0; k < lat->n; k++) {
		double due = (double)k * period_ns, end;

		if (!stall) {
			miss[k] = (double)lat->v[k] + work_ns > period_ns;
			continue;
		}
		if (stall->v[k] < 0) {
			miss[k] = true;
			continue;
		}
		end = fmax(due, prev_end) + work_ns + (double)stall->v[k];
		miss[k] = end > due + period_ns;
		prev_end = end;
	}
}

struct timeline {
	double *x, *y, *marks;
	size_t n, n_marks;
	bool exact;
};

/* One label's latency records of `load` over time (s) from the first period. */
static int timeline_load(const struct ul_hlabel *l, const char *suite, const char *load,
			 struct timeline *t)
{
	double t0 = 0;

	memset(t, 0, sizeof(*t));
	t->exact = true;
	for (size_t r = 0; r < l->n_runs; r++)
		for (size_t i = 0; i < l->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &l->runs[r]->cells[i];
			const struct ul_series *lat = ul_cell_find_series(c, "dl_lat_ns");
			const struct ul_series *st = ul_cell_find_series(c, "dl_stall_ns");
			double p = 0, w = 0;
			void *nx, *ny, *nm;
			bool *miss;

			if (strcmp(c->suite, suite) || strcmp(c->load, load) || !lat || !lat->n ||
			    !ul_cell_metric(c, "dl_period_ns", &p) || p <= 0)
				continue;
			ul_cell_metric(c, "dl_work_ns", &w);
			if (st && st->n != lat->n)
				st = NULL;
			t->exact &= st != NULL;
			nx = realloc(t->x, (t->n + lat->n) * sizeof(double));
			ny = nx ? realloc(t->y, (t->n + lat->n) * sizeof(double)) : NULL;
			nm = ny ? realloc(t->marks, (t->n_marks + lat->n) * sizeof(double)) : NULL;
			if (nx)
				t->x = nx;
			if (ny)
				t->y = ny;
			if (!nm)
				return -ENOMEM;
			t->marks = nm;
			miss = calloc(lat->n, sizeof(*miss));
			if (!miss)
				return -ENOMEM;
			deadline_misses(lat, st, w, p, miss);
			for (size_t k = 0; k < lat->n; k++) {
				t->x[t->n] = t0 + (double)k * p / 1e9;
				t->y[t->n++] = (double)lat->v[k] / 1e6;
				if (miss[k])
					t->marks[t->n_marks++] = t0 + (double)k * p / 1e9;
			}
			free(miss);
			t0 += (double)lat->n * p / 1e9;
		}
	return 0;
}

void ul_html_deadline(struct ul_hdoc *d, const char *suite, const char *load)
{
	for (size_t j = 0; j < d->n_labels && !d->err; j++) {
		struct timeline t;
		char title[256], cap[256];
		struct ul_chart_line line = { .name = d->labels[j].label,
					      .colour = d->labels[j].colour };
		struct ul_chart_series s = { .lines = &line, .n_lines = 1 };
		struct ul_chart_text tx = { .title = title,
					    .x_label = "time in the test (s)",
					    .y_label = "wake-up latency (ms)" };
		int rc = timeline_load(&d->labels[j], suite, load, &t);
		FILE *f;

		if (!rc && t.n) {
			line.x = t.x;
			line.y = t.y;
			line.n = t.n;
			s.marks = t.marks;
			s.n_marks = t.n_marks;
			snprintf(title, sizeof(title), "%s %s: latency over time, %s", suite, load,
				 d->labels[j].label);
			snprintf(
				cap, sizeof(cap),
				"Every period's wake-up latency; red ticks: %zu missed period%s%s.",
				t.n_marks, t.n_marks == 1 ? "" : "s",
				t.exact ? "" : " (at least: this run did not record stalls)");
			f = ul_hdoc_figure_begin(d, suite, load, d->labels[j].label);
			ul_hdoc_figure_end(d, f, f ? ul_chart_lines(f, &tx, &s) : 0, cap);
		}
		if (rc)
			d->err = rc;
		free(t.x);
		free(t.y);
		free(t.marks);
	}
}

/* Median of n int64 values (n > 0) via the stats definition; NAN without memory. */
static double median_of(const int64_t *v, size_t n)
{
	struct ul_summary s;

	return ul_stats_summarize_i64(v, n, &s) ? NAN : s.median;
}

struct curve {
	double *x, *y; /* KiB, ns */
	size_t n;
};

/* One label's lat_mem curve: series "curve_<KiB>k_ps", batches in ps per load. */
static int curve_load(const struct ul_hlabel *l, const char *suite, const char *load,
		      const char *probe, struct curve *cv)
{
	memset(cv, 0, sizeof(*cv));
	for (size_t r = 0; r < l->n_runs && !cv->n; r++)
		for (size_t i = 0; i < l->runs[r]->n_cells && !cv->n; i++) {
			const struct ul_cell *c = &l->runs[r]->cells[i];

			if (strcmp(c->suite, suite) || strcmp(c->load, load) ||
			    strcmp(c->probe, probe) || c->outcome != UL_CELL_OK)
				continue;
			/* an earlier run's cell of it may have had no curve */
			free(cv->x);
			free(cv->y);
			cv->x = calloc(c->n_series + 1, sizeof(double));
			cv->y = calloc(c->n_series + 1, sizeof(double));
			if (!cv->x || !cv->y)
				return -ENOMEM;
			for (size_t k = 0; k < c->n_series; k++) {
				const struct ul_series *s = &c->series[k];
				unsigned long kib;
				char tail[8];

				if (sscanf(s->name, "curve_%luk_p%7s", &kib, tail) != 2 ||
				    strcmp(tail, "s") || !s->n)
					continue;
				cv->x[cv->n] = (double)kib;
				cv->y[cv->n++] = median_of(s->v, s->n) / 1000;
			}
		}
	return 0;
}

void ul_html_micro_curve(struct ul_hdoc *d, const char *suite, const char *load, const char *probe)
{
	struct ul_chart_line lines[UL_HTML_MAX_LABELS];
	struct curve cv[UL_HTML_MAX_LABELS];
	struct ul_chart_series s = { .lines = lines, .log_x = true, .log_y = true, .height = 220 };
	struct ul_chart_text tx = { .title = "memory latency against working-set size",
				    .x_label = "working set (KiB)",
				    .y_label = "ns per load (median of batches)" };
	FILE *f;

	for (size_t j = 0; j < d->n_labels; j++) {
		int rc = curve_load(&d->labels[j], suite, load, probe, &cv[j]);

		if (rc)
			d->err = rc;
		else if (cv[j].n)
			lines[s.n_lines++] = (struct ul_chart_line){
				.name = d->labels[j].label,
				.colour = d->labels[j].colour,
				.x = cv[j].x,
				.y = cv[j].y,
				.n = cv[j].n,
			};
	}
	if (s.n_lines && !d->err) {
		f = ul_hdoc_figure_begin(d, suite, probe, "curve");
		ul_hdoc_figure_end(d, f, f ? ul_chart_lines(f, &tx, &s) : 0,
				   "Random-order pointer chase over working sets of growing size: "
				   "the steps are the caches (lat_mem, as LMbench's lat_mem_rd).");
	}
	for (size_t j = 0; j < d->n_labels; j++) {
		free(cv[j].x);
		free(cv[j].y);
	}
}
