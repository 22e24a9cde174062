/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline probe's periodic ops (probe.h: struct ul_periodic_ops): one
 * running probe whose periods are cut into cells at measure() and
 * result().  What a cell gets: series dl_lat_ns and dl_stall_ns (every
 * period's, synthetic records included) and the dl_* metrics listed in
 * engine/deadline.h.  The mechanism itself is probe/deadline.c.
 */
#include "core/compat.h"
#include "probe/deadline.h"
#include "probe/probe.h"
#include "proc/supervise.h"
#include "stats/stats.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Seconds of periods the record ring holds: cells are cut well within. */
#define DL_RING_SECONDS 3600

/* A started probe and where the current cell began. */
struct dl_run {
	struct ul_deadline *d;
	struct ul_deadline_snap begin;
	bool begun;
};

static int dl_start(struct ul_sup *sup, const struct ul_probe_ctx *ctx, int64_t ready_timeout_ns,
		    void **state, char *why, size_t len)
{
	const struct ul_deadline_spec *spec = ctx->arg;
	struct dl_run *r = calloc(1, sizeof(*r));
	int rc, refused = 0;

	if (!r)
		return -ENOMEM;
	rc = ul_deadline_start(sup, spec, ctx->cgroup_procs, DL_RING_SECONDS, ready_timeout_ns,
			       &r->d, why, len);
	if (rc) {
		free(r);
		return rc;
	}
	why[0] = '\0';
	if (spec->rt && !ul_deadline_is_rt(r->d, &refused))
		snprintf(why, len,
			 "--deadline-rt: SCHED_FIFO was refused (%s); the %s probe runs at normal "
			 "priority and the results say so (dl_rt = 0)",
			 strerror(refused), spec->name);
	*state = r;
	return 0;
}

static void dl_measure(void *state)
{
	struct dl_run *r = state;

	ul_deadline_snapshot(r->d, &r->begin);
	r->begun = true;
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

/* The records [a, b) as series dl_lat_ns and dl_stall_ns (-ENOMEM when
 * they could not be kept), and the latency metrics (*summary_rc). */
static int records(struct dl_run *r, struct ul_cell *cell, const struct ul_deadline_snap *a,
		   const struct ul_deadline_snap *b, uint64_t *lost, int *summary_rc)
{
	uint64_t want = b->recs - a->recs;
	struct ul_deadline_rec *recs = NULL;
	struct ul_series *s, *st;
	size_t n = 0;
	int rc = 0;

	if (want) {
		recs = malloc(want * sizeof(*recs));
		if (!recs)
			return -ENOMEM;
		n = ul_deadline_records(r->d, a->recs, b->recs, recs, lost);
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
	*summary_rc = latency_metrics(cell, recs, n);
	free(recs);
	return 0;
}

static int dl_result(void *state, struct ul_cell *cell)
{
	struct dl_run *r = state;
	const struct ul_deadline_spec *spec = ul_deadline_spec_of(r->d);
	struct ul_deadline_snap a = r->begin, b;
	uint64_t lost = 0, periods;
	int rc = 0, refused = 0;
	bool dead = ul_deadline_child(r->d)->reaped;

	if (!r->begun)
		return 0;
	r->begun = false;
	ul_deadline_snapshot(r->d, &b);
	if (records(r, cell, &a, &b, &lost, &rc))
		return -ENOMEM;
	periods = b.periods - a.periods;
	rc |= ul_cell_set_metric(cell, "dl_period_ns", (double)spec->period_ns);
	rc |= ul_cell_set_metric(cell, "dl_work_ns", (double)spec->work_ns);
	rc |= ul_cell_set_metric(cell, "dl_profile", profile_code(spec->name));
	rc |= ul_cell_set_metric(cell, "dl_rt", ul_deadline_is_rt(r->d, &refused) ? 1 : 0);
	if (spec->rt)
		rc |= ul_cell_set_metric(cell, "dl_rt_errno", refused);
	rc |= ul_cell_set_metric(cell, "dl_locked", ul_deadline_locked(r->d) ? 1 : 0);
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
	return rc ? -ENOMEM : 0;
}

static int dl_stop(struct ul_sup *sup, void *state)
{
	struct dl_run *r = state;
	int rc = ul_deadline_stop(sup, r->d, 0);

	/* -ETIME: its child record stays registered inside r->d, which
	 * ul_deadline_stop() leaked on purpose; r itself is ours to free. */
	free(r);
	return rc;
}

static struct ul_child *dl_child(void *state)
{
	return ul_deadline_child(((struct dl_run *)state)->d);
}

const struct ul_periodic_ops ul_deadline_periodic_ops = {
	.start = dl_start,
	.measure = dl_measure,
	.result = dl_result,
	.stop = dl_stop,
	.child = dl_child,
};
