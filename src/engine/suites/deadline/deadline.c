/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline suite: interbench's question asked of the resp loads.  One
 * periodic probe (--deadline profile, audio by default) runs while each
 * load runs in turn for --interval x --min-points; per load it records
 * every wake-up latency, the deadlines met and the share of desired CPU.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/breakdown_record.h"
#include "engine/deadline.h"
#include "engine/engine.h"
#include "load/load.h"
#include "report/html/sections.h"
#include "report/monitors.h"
#include "report/suites.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* Per test: every period's wake-up latency, and the share of deadlines met. */
static const struct ul_suite_metric deadline_metrics[] = {
	{ .series = "dl_lat_ns", .label = "latency", .unit = "ns", .direction = UL_LOWER_IS_BETTER },
	{ .series = "dl_missed",
	  .label = "missed periods",
	  .unit = "%",
	  .direction = UL_LOWER_IS_BETTER,
	  .exposure = "dl_periods" },
	{ NULL },
};

/* Shortest measuring time of a test, whatever --interval says. */
#define DEADLINE_MIN_TEST_NS (200 * UL_NS_PER_MS)

struct dl_suite {
	struct ul_engine *eng;
	void *probe;		    /* the deadline monitor's state, NULL until (re)started */
	struct ul_engine_step step; /* the cell being measured, for progress */
	/* The probe's parts per cell, not per period: a period's would have
	 * to be read by the probe itself between its wake-ups (taskstats
	 * needs a netlink query, schedstat has no delays), which is the very
	 * path it measures; the supervisor cannot tell periods apart. */
	struct ul_breakdown_rec *why; /* NULL: none recorded */
	ul_nsec why_t0;		      /* when the cell's window opened */
};

static int64_t test_duration(const struct ul_engine_config *cfg)
{
	int64_t d = cfg->interval_ns * cfg->min_points;

	return d < DEADLINE_MIN_TEST_NS ? DEADLINE_MIN_TEST_NS : d;
}

static int start_probe(struct dl_suite *st)
{
	int rc = ul_monitor_deadline.start(st->eng, &st->probe);

	if (rc) {
		st->probe = NULL;
		return rc == -EINTR ? UL_ENGINE_INTERRUPTED : UL_ENGINE_ERROR;
	}
	st->eng->probe_pid = ul_engine_deadline_child(st->probe)->pid;
	return UL_ENGINE_OK;
}

static void stop_probe(struct dl_suite *st)
{
	if (st->probe)
		ul_monitor_deadline.stop(st->eng, st->probe);
	st->probe = NULL;
	st->eng->probe_pid = 0;
}

/* Let the load run for the test's time; sets the cell's outcome (a
 * ul_engine_window, like the two below). */
static int measure(void *arg, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct dl_suite *st = arg;
	struct ul_engine *eng = st->eng;
	ul_nsec start = ul_now_ns(), end = start + test_duration(eng->cfg);
	struct ul_child *probe = ul_engine_deadline_child(st->probe);
	char how[96], left[32], name[160];

	for (;;) {
		struct ul_child *ex = NULL;
		ul_nsec now = ul_now_ns(), step = now + UL_NS_PER_SEC;

		if (now >= end)
			return UL_ENGINE_OK;
		ul_fmt_duration(left, sizeof(left), (end - now) / UL_NS_PER_SEC * UL_NS_PER_SEC);
		ul_engine_step_name(name, sizeof(name), "deadline", &st->step);
		ul_engine_progress(eng, "%s: ~%s left", name, left);
		switch (ul_sup_wait(&eng->sup, -1, step < end ? step : end, &ex)) {
		case UL_WAIT_READY:
		case UL_WAIT_TIMEOUT:
			break;
		case UL_WAIT_INTERRUPTED:
			cell->outcome = UL_CELL_INTERRUPTED;
			snprintf(cell->note, sizeof(cell->note), "interrupted while measured");
			return UL_ENGINE_INTERRUPTED;
		case UL_WAIT_CHILD_EXITED:
			if (rl && ex == ul_load_child(rl)) {
				ul_engine_load_died(cell, "while measured", rl);
				return UL_ENGINE_OK;
			}
			if (ex == probe) {
				ul_child_describe(ex, how, sizeof(how));
				cell->outcome = UL_CELL_PROBE_FAILED;
				snprintf(cell->note, sizeof(cell->note),
					 "the deadline probe died while measured (%s)", how);
				return UL_ENGINE_OK;
			}
			break; /* a monitor's child or an orphan: its owner notices */
		}
	}
}

/* The probe's window opens inside the monitors' one. */
static void probe_begin(void *arg, struct ul_cell *cell)
{
	struct dl_suite *st = arg;

	ul_monitor_deadline.cell_begin(st->eng, st->probe, cell);
	ul_breakdown_begin_alone(st->why, ul_engine_deadline_child(st->probe)->pid);
	st->why_t0 = ul_now_ns();
}

/* The probe's series first: it is this suite's primary one. */
static int probe_end(void *arg, struct ul_cell *cell, int result)
{
	struct dl_suite *st = arg;

	if (ul_monitor_deadline.cell_end(st->eng, st->probe, cell))
		ul_warning("cannot record the deadline probe of cell '%s'", cell->load);
	if (ul_breakdown_end_wall(st->why, cell, (int64_t)(ul_now_ns() - st->why_t0)))
		return ul_engine_oom();
	return result;
}

/* One cell: the load `load` in the round of `step` (for ul_engine_each_test). */
static int run_test(void *arg, const struct ul_load *load, const struct ul_engine_step *step)
{
	struct dl_suite *st = arg;
	struct ul_engine *eng = st->eng;
	const struct ul_engine_window w = {
		.begin = probe_begin, .measure = measure, .end = probe_end, .arg = st
	};
	struct ul_cell *cell;
	int result;

	st->step = *step;
	if (!st->probe) {
		result = start_probe(st);
		if (result != UL_ENGINE_OK)
			return result;
	}
	cell = ul_engine_begin_cell(eng, "deadline", load, "deadline", &st->step, "starting load");
	if (!cell)
		return UL_ENGINE_ERROR;
	result = ul_engine_measure_cell(eng, cell, load, &w);
	ul_breakdown_cell_end(st->why, cell, 1); /* one window, in why_wall_ns */
	/* A dead probe is replaced for the next test. */
	if (st->probe && ul_engine_deadline_child(st->probe)->reaped)
		stop_probe(st);
	return ul_engine_end_cell(eng, cell, result, NULL);
}

static int deadline_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	struct dl_suite st = { .eng = eng };
	int result;

	/* Delay accounting on before the probe starts: it counts from then on. */
	st.why = ul_breakdown_open(eng->journal.fd >= 0 ? &eng->journal : NULL, eng->cfg->cpus);
	result = ul_engine_each_test(eng, suite, run_test, &st);
	stop_probe(&st);
	ul_breakdown_close(st.why, eng->journal.fd >= 0 ? &eng->journal : NULL);
	return result;
}

/* What report shows of it beyond the generic tables (report/suites.h):
 * its table of periods, its timeline on the page instead of a scatter. */
static const struct ul_suite_report deadline_report = {
	.text_group = ul_report_deadline_table,
	.html_test = ul_html_deadline,
	.flags = UL_RS_NO_SCATTER | UL_RS_OWN_DEADLINE | UL_RS_SAMPLING,
};

const struct ul_suite ul_suite_deadline = {
	.name = "deadline",
	.summary = "a periodic deadline task (audio, 20 Hz, by default) under each resp load",
	.probe = "deadline",
	.tests = ul_resp_tests, /* the resp loads, in the seed's order */
	.run_opts = "interval,min-points,disk-reserve,deadline-rt,round-sysctl",
	.tests_any_load = true,
	.metrics = deadline_metrics,
	.format = "deadline",
	.run = deadline_run,
	.report = &deadline_report,
};
