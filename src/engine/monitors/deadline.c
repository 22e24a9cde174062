/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline monitor: one periodic probe for the whole run (--deadline
 * PROFILE), whose periods are cut into cells at their boundaries; see
 * engine/deadline.h for what each cell gets.
 */
#include "core/compat.h"
#include "engine/deadline.h"
#include "core/log.h"
#include "engine/engine.h"
#include "probe/deadline.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds of periods the record ring holds: cells are cut well within. */
#define DL_RING_SECONDS 3600

struct dl_mon {
	struct ul_deadline *d;
	struct ul_deadline_snap begin;
	bool begun;
	bool warned_dead;
};

/* Whether the run includes the deadline suite, which drives its own probe. */
static bool run_has_suite(const struct ul_engine *eng, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = eng->run->suites; (p = strstr(p, name)); p += n)
		if ((p == eng->run->suites || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

static bool dl_enabled(const struct ul_engine *eng)
{
	return eng->cfg->deadline_period_ns > 0 && !eng->cfg->deadline_off &&
	       !run_has_suite(eng, "deadline");
}

/* --deadline's profile, or audio when none was given (mtest's default). */
static void spec_from_cfg(const struct ul_engine_config *cfg, struct ul_deadline_spec *spec)
{
	char err[128];

	memset(spec, 0, sizeof(*spec));
	if (cfg->deadline_period_ns > 0) {
		snprintf(spec->name, sizeof(spec->name), "%s",
			 cfg->deadline_profile[0] ? cfg->deadline_profile : "custom");
		spec->period_ns = cfg->deadline_period_ns;
		spec->work_ns = cfg->deadline_work_ns;
	} else if (ul_deadline_parse("audio", spec, err, sizeof(err))) {
		UL_BUG("the audio profile does not parse: %s", err);
	}
	spec->rt = cfg->deadline_rt;
}

static int dl_start(struct ul_engine *eng, void **state)
{
	struct ul_deadline_spec spec;
	struct dl_mon *m;
	char why[256];
	int rc, refused = 0;

	spec_from_cfg(eng->cfg, &spec);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	rc = ul_deadline_start(&eng->sup, &spec, eng->have_cgroup ? eng->cgroup.procs : NULL,
			       DL_RING_SECONDS, eng->cfg->ready_timeout_ns, &m->d, why,
			       sizeof(why));
	if (rc) {
		free(m);
		if (rc != -EINTR)
			ul_error("%s", why);
		return rc;
	}
	if (spec.rt && !ul_deadline_is_rt(m->d, &refused))
		ul_warning(
			"--deadline-rt: SCHED_FIFO was refused (%s); the %s probe runs at normal "
			"priority and the results say so (dl_rt = 0)",
			strerror(refused), spec.name);
	*state = m;
	return 0;
}

static void dl_stop(struct ul_engine *eng, void *state)
{
	struct dl_mon *m = state;

	if (ul_deadline_stop(&eng->sup, m->d, 0) == -ETIME)
		return; /* its child record stays registered: leaked on purpose */
	free(m);
}

static int dl_cell_begin(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct dl_mon *m = state;

	(void)eng;
	(void)cell;
	ul_deadline_snapshot(m->d, &m->begin);
	m->begun = true;
	return 0;
}

/* The stored "dl_profile": a named profile's index + 1, 0 for PERIOD:WORK. */
static int profile_code(const char *name)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(ul_deadline_profiles); i++)
		if (!strcmp(name, ul_deadline_profiles[i].name))
			return (int)i + 1;
	return 0;
}

/* Latency summary of the cell's records into metrics. */
static int latency_metrics(struct ul_cell *cell, const struct ul_deadline_rec *r, size_t n)
{
	double *v;
	int64_t max_stall = 0;
	int rc = 0;

	if (!n) /* no period ended in the cell: no latency, and no stall seen */
		return ul_cell_set_metric(cell, "dl_max_stall_ns", 0);
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		v[i] = (double)r[i].lat_ns;
		if (r[i].stall_ns > max_stall)
			max_stall = r[i].stall_ns;
	}
	ul_stats_sort(v, n);
	rc |= ul_cell_set_metric(cell, "dl_lat_mean_ns", ul_stats_mean(v, n));
	rc |= ul_cell_set_metric(cell, "dl_lat_sd_ns", ul_stats_sd(v, n));
	rc |= ul_cell_set_metric(cell, "dl_lat_p99_ns", ul_stats_quantile_sorted(v, n, 0.99));
	rc |= ul_cell_set_metric(cell, "dl_lat_max_ns", v[n - 1]);
	rc |= ul_cell_set_metric(cell, "dl_max_stall_ns", (double)max_stall);
	free(v);
	return rc ? -ENOMEM : 0;
}

static int dl_cell_end(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct dl_mon *m = state;
	const struct ul_deadline_spec *spec = ul_deadline_spec_of(m->d);
	struct ul_deadline_snap a = m->begin, b;
	struct ul_deadline_rec *recs = NULL;
	struct ul_series *s, *st;
	uint64_t lost = 0, periods, want;
	size_t n = 0;
	int rc = 0, refused = 0;
	bool dead = ul_deadline_child(m->d)->reaped;

	(void)eng;
	if (!m->begun)
		return 0;
	m->begun = false;
	ul_deadline_snapshot(m->d, &b);
	want = b.recs - a.recs;
	if (want) {
		recs = malloc(want * sizeof(*recs));
		if (!recs)
			return -ENOMEM;
		n = ul_deadline_records(m->d, a.recs, b.recs, recs, &lost);
	}
	s = ul_cell_series(cell, "dl_lat_ns");
	for (size_t i = 0; s && i < n && !rc; i++)
		rc = ul_series_push(s, recs[i].lat_ns);
	/* Each period's stall too (< 0: a skipped period): with it a report
	 * knows exactly which periods missed (lat + work + stall > period). */
	st = s && !rc ? ul_cell_series(cell, "dl_stall_ns") : NULL;
	for (size_t i = 0; st && i < n && !rc; i++)
		rc = ul_series_push(st, recs[i].stall_ns);
	if (!s || !st || rc) {
		free(recs);
		return -ENOMEM;
	}
	rc |= latency_metrics(cell, recs, n);
	free(recs);

	periods = b.periods - a.periods;
	rc |= ul_cell_set_metric(cell, "dl_period_ns", (double)spec->period_ns);
	rc |= ul_cell_set_metric(cell, "dl_work_ns", (double)spec->work_ns);
	rc |= ul_cell_set_metric(cell, "dl_profile", profile_code(spec->name));
	rc |= ul_cell_set_metric(cell, "dl_rt", ul_deadline_is_rt(m->d, &refused) ? 1 : 0);
	if (spec->rt)
		rc |= ul_cell_set_metric(cell, "dl_rt_errno", refused);
	rc |= ul_cell_set_metric(cell, "dl_locked", ul_deadline_locked(m->d) ? 1 : 0);
	rc |= ul_cell_set_metric(cell, "dl_periods", (double)periods);
	rc |= ul_cell_set_metric(cell, "dl_met", (double)(b.met - a.met));
	rc |= ul_cell_set_metric(cell, "dl_missed", (double)(b.missed - a.missed));
	rc |= ul_cell_set_metric(cell, "dl_synthetic", (double)(b.synthetic - a.synthetic));
	rc |= ul_cell_set_metric(cell, "dl_lost", (double)lost);
	rc |= ul_cell_set_metric(cell, "dl_died", dead ? 1 : 0);
	if (periods) {
		rc |= ul_cell_set_metric(cell, "dl_met_pct",
					 100.0 * (double)(b.met - a.met) / (double)periods);
		rc |= ul_cell_set_metric(cell, "dl_cpu_pct",
					 100.0 * (double)(b.served - a.served) / (double)periods);
	}
	if (dead && !m->warned_dead) {
		m->warned_dead = true;
		ul_warning("the deadline probe died during cell '%s/%s'; later cells have no "
			   "deadline records", cell->suite, cell->load);
	}
	return rc ? -ENOMEM : 0;
}

void *ul_engine_deadline_state(const struct ul_engine *eng)
{
	for (size_t i = 0; i < eng->monitors.n; i++)
		if (eng->monitors.mon[i] == &ul_monitor_deadline)
			return eng->monitors.state[i];
	return NULL;
}

struct ul_child *ul_engine_deadline_child(void *state)
{
	return state ? ul_deadline_child(((struct dl_mon *)state)->d) : NULL;
}

const struct ul_monitor ul_monitor_deadline = {
	.name = "deadline",
	.summary = "a periodic deadline probe (--deadline audio|video|PERIOD:WORK) alongside",
	.enabled = dl_enabled,
	.start = dl_start,
	.stop = dl_stop,
	.cell_begin = dl_cell_begin,
	.cell_end = dl_cell_end,
};
