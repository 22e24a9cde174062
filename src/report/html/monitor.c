/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's per-run monitor section: what the /proc sampler recorded
 * during every cell of a run, as time series over the whole run (swap in
 * and out, PSI some and full, the run queue, free memory, major faults)
 * with each cell drawn as a named band, so a spike can be tied to the
 * test that caused it.
 */
#include "core/compat.h"
#include "core/sysmon.h"
#include "report/common.h"
#include "report/html/sections.h"
#include "report/plot.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum mon_kind {
	MK_LEVEL,      /* the value as sampled */
	MK_KB_MIB,     /* a kB level shown in MiB */
	MK_RATE,       /* counter increase per second */
	MK_PAGES_MIBS, /* page counter increase as MiB/s */
	MK_PSI_PCT,    /* stall microseconds as % of the interval */
};

struct mon_line {
	const char *name;
	enum ul_sysmon_field field;
	enum mon_kind kind;
	int chart;
	bool dashed;
};

static const struct mon_line mon_lines[] = {
	{ "swap in", UL_SYSMON_PSWPIN, MK_PAGES_MIBS, 0, false },
	{ "swap out", UL_SYSMON_PSWPOUT, MK_PAGES_MIBS, 0, true },
	{ "memory some", UL_SYSMON_PSI_MEM_SOME_US, MK_PSI_PCT, 1, false },
	{ "memory full", UL_SYSMON_PSI_MEM_FULL_US, MK_PSI_PCT, 1, true },
	{ "io some", UL_SYSMON_PSI_IO_SOME_US, MK_PSI_PCT, 1, false },
	{ "io full", UL_SYSMON_PSI_IO_FULL_US, MK_PSI_PCT, 1, true },
	{ "cpu some", UL_SYSMON_PSI_CPU_SOME_US, MK_PSI_PCT, 1, false },
	{ "running", UL_SYSMON_PROCS_RUNNING, MK_LEVEL, 2, false },
	{ "blocked", UL_SYSMON_PROCS_BLOCKED, MK_LEVEL, 2, true },
	{ "MemFree", UL_SYSMON_MEM_FREE, MK_KB_MIB, 3, false },
	{ "MemAvailable", UL_SYSMON_MEM_AVAILABLE, MK_KB_MIB, 3, true },
	{ "major faults", UL_SYSMON_PGMAJFAULT, MK_RATE, 4, false },
};
#define N_LINES UL_ARRAY_SIZE(mon_lines)

static const struct {
	const char *slug, *title, *y_label;
} mon_charts[] = {
	{ "swap", "swap in and out", "MiB/s" },
	{ "psi", "pressure stall (PSI): share of time some or all tasks stalled", "% of time" },
	{ "runq", "run queue: runnable and blocked tasks", "tasks" },
	{ "mem", "free and available memory", "MiB" },
	{ "majflt", "major page faults", "faults/s" },
};

struct mon_data {
	double *x, *y[N_LINES];
	size_t n, cap;
	struct ul_chart_band *bands;
	char (*names)[2 * UL_NAME_LEN + 2];
	size_t n_bands;
};

static double line_value(const struct mon_line *l, const struct ul_series *s,
			 const struct ul_series *t, size_t i, double page_bytes)
{
	double dt, dv;

	if (!s)
		return NAN;
	if (l->kind == MK_LEVEL)
		return (double)s->v[i];
	if (l->kind == MK_KB_MIB)
		return (double)s->v[i] / 1024;
	if (!i)
		return NAN; /* a rate needs the previous sample of the same cell */
	/* Stored values are untrusted: differenced without signed overflow. */
	dt = ul_report_diff(t->v[i], t->v[i - 1]) / 1e9;
	dv = ul_report_diff(s->v[i], s->v[i - 1]);
	if (dt <= 0 || dv < 0)
		return NAN;
	if (l->kind == MK_PSI_PCT)
		return dv / 1e6 / dt * 100;
	if (l->kind == MK_PAGES_MIBS)
		return dv * page_bytes / (1024.0 * 1024) / dt;
	return dv / dt;
}

static int mon_grow(struct mon_data *m, size_t add)
{
	size_t cap = m->cap ? m->cap : 64;
	void *p;

	while (cap < m->n + add)
		cap *= 2;
	if (cap == m->cap)
		return 0;
	if (!(p = realloc(m->x, cap * sizeof(double))))
		return -ENOMEM;
	m->x = p;
	for (size_t k = 0; k < N_LINES; k++) {
		if (!(p = realloc(m->y[k], cap * sizeof(double))))
			return -ENOMEM;
		m->y[k] = p;
	}
	m->cap = cap;
	return 0;
}

/* Appends a cell's samples (x in s from t0) and its band; cells without samples add nothing. */
static int mon_add_cell(struct mon_data *m, const struct ul_run *run, const struct ul_cell *c,
			int64_t t0)
{
	const struct ul_series *t = ul_cell_find_series(c, UL_SYSMON_SERIES_T);
	const struct ul_series *s[N_LINES];
	double page = 4096;
	size_t b = m->n_bands;

	if (!t || t->n < 2)
		return 0;
	ul_cell_metric(c, "mon_page_bytes", &page);
	for (size_t k = 0; k < N_LINES; k++) {
		s[k] = ul_cell_find_series(c, ul_sysmon_series_name(mon_lines[k].field));
		if (s[k] && s[k]->n != t->n)
			s[k] = NULL;
	}
	if (mon_grow(m, t->n))
		return -ENOMEM;
	for (size_t i = 0; i < t->n; i++, m->n++) {
		m->x[m->n] = ul_report_diff(t->v[i], t0) / 1e9;
		for (size_t k = 0; k < N_LINES; k++)
			m->y[k][m->n] = line_value(&mon_lines[k], s[k], t, i, page);
	}
	m->bands[b].x0 = ul_report_diff(t->v[0], t0) / 1e9;
	m->bands[b].x1 = ul_report_diff(t->v[t->n - 1], t0) / 1e9;
	if (strchr(run->suites, ','))
		snprintf(m->names[b], sizeof(m->names[b]), "%s:%s", c->suite, c->load);
	else
		snprintf(m->names[b], sizeof(m->names[b]), "%s", c->load);
	m->bands[b].name = m->names[b];
	m->n_bands++;
	return 0;
}

static void mon_free(struct mon_data *m)
{
	free(m->x);
	for (size_t k = 0; k < N_LINES; k++)
		free(m->y[k]);
	free(m->bands);
	free(m->names);
}

static int mon_load(struct mon_data *m, const struct ul_run *run)
{
	int64_t t0 = INT64_MAX;

	memset(m, 0, sizeof(*m));
	m->bands = calloc(run->n_cells + 1, sizeof(*m->bands));
	m->names = calloc(run->n_cells + 1, sizeof(*m->names));
	if (!m->bands || !m->names)
		return -ENOMEM;
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_series *t = ul_cell_find_series(&run->cells[i], UL_SYSMON_SERIES_T);

		if (t && t->n && t->v[0] < t0)
			t0 = t->v[0];
	}
	for (size_t i = 0; i < run->n_cells; i++)
		if (mon_add_cell(m, run, &run->cells[i], t0))
			return -ENOMEM;
	return 0;
}

static void mon_run(struct ul_hdoc *d, const struct ul_run *run)
{
	struct mon_data m;
	char head[256], title[320], slug[64];
	int rc = mon_load(&m, run);

	if (rc || !m.n) {
		if (rc)
			d->err = rc;
		mon_free(&m);
		return;
	}
	snprintf(head, sizeof(head), "Monitors of run %lld (%.8s), label %s", (long long)run->id,
		 run->uuid, run->label);
	ul_hdoc_heading(d, 3, NULL, head);
	snprintf(slug, sizeof(slug), "run%lld", (long long)run->id);
	for (int ch = 0; ch < (int)UL_ARRAY_SIZE(mon_charts) && !d->err; ch++) {
		struct ul_chart_line lines[N_LINES];
		struct ul_chart_series s = {
			.lines = lines, .bands = m.bands, .n_bands = m.n_bands, .height = 110
		};
		struct ul_chart_text tx = { .title = title,
					    .x_label = "time in the run (s)",
					    .y_label = mon_charts[ch].y_label };
		FILE *f;

		for (size_t k = 0; k < N_LINES; k++) {
			size_t i = s.n_lines;

			if (mon_lines[k].chart != ch)
				continue;
			lines[i] = (struct ul_chart_line){
				.name = mon_lines[k].name,
				.colour = ul_plot_colour(i),
				.x = m.x,
				.y = m.y[k],
				.n = m.n,
				.dashed = mon_lines[k].dashed,
			};
			s.n_lines = i + 1;
		}
		snprintf(title, sizeof(title), "%s: %s", run->label, mon_charts[ch].title);
		f = ul_hdoc_figure_begin(d, slug, "mon", mon_charts[ch].slug);
		ul_hdoc_figure_end(d, f, f ? ul_chart_lines(f, &tx, &s) : 0,
				   ch ? NULL
				      : "Shaded bands are the run's tests, in order; rates "
					"are over each sampler interval.");
	}
	mon_free(&m);
}

void ul_html_monitors(struct ul_hdoc *d)
{
	ul_hdoc_heading(d, 2, "monitors", "Monitors per run");
	for (size_t r = 0; r < d->n_runs && !d->err; r++)
		mon_run(d, d->runs[r]);
}
