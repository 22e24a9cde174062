/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The measured window, the same for every suite: the suite's untimed
 * preparation, the load started, a lead time with the load watched, the
 * monitors on, the load's work counted around the suite's measure, the
 * monitors off, the load stopped.  engine.h (struct ul_engine_window)
 * gives the order and what each hook may do.
 */
#include "core/compat.h"
#include "core/log.h"
#include "engine/engine.h"
#include "engine/monitors/monitor.h"
#include "load/load.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* "ENOMEM" for messages that give the cause a load recorded. */
static const char *errno_name(int err)
{
	const char *name = strerrorname_np(err);

	return name ? name : "unknown errno";
}

void ul_engine_load_died(struct ul_cell *cell, const char *when, struct ul_running_load *rl)
{
	int err = ul_load_failed_errno(rl);
	char how[96];

	ul_child_describe(ul_load_child(rl), how, sizeof(how));
	cell->outcome = UL_CELL_LOAD_DIED;
	if (err)
		snprintf(cell->note, sizeof(cell->note), "load '%s' died %s (%s): %s (%s)",
			 cell->load, when, how, strerror(err), errno_name(err));
	else
		snprintf(cell->note, sizeof(cell->note), "load '%s' died %s (%s)", cell->load, when,
			 how);
}

/*
 * Start the cell's load with the run's settings and the window's.  Returns
 * UL_ENGINE_OK with *rl set; UL_ENGINE_OK with *rl NULL when the load did
 * not start (cell load-failed, reason printed and in the note);
 * UL_ENGINE_ERROR when the run itself is out of file descriptors (cell
 * interrupted: the run stops, no test failed); or UL_ENGINE_INTERRUPTED
 * (cell interrupted).
 */
static int start_load(struct ul_engine *eng, struct ul_cell *cell, const struct ul_load *load,
		      const struct ul_engine_window *w, struct ul_running_load **rl)
{
	int64_t ready_ns = w->ready_timeout_ns ? w->ready_timeout_ns : eng->cfg->ready_timeout_ns;
	struct ul_load_ctx ctx;
	char why[sizeof(cell->note)];
	int rc;

	*rl = NULL;
	/* An interrupt some earlier wait consumed still ends the run here. */
	if (ul_sup_interrupted(&eng->sup)) {
		cell->outcome = UL_CELL_INTERRUPTED;
		snprintf(cell->note, sizeof(cell->note), "interrupted before the load started");
		return UL_ENGINE_INTERRUPTED;
	}
	ul_engine_test_load_ctx(eng, cell->suite, load, &ctx);
	if (w->load_ctx)
		w->load_ctx(w->arg, load, &ctx);
	rc = ul_load_start(&eng->sup, load, &ctx, ready_ns, rl, why, sizeof(why));
	if (rc == -EINTR) {
		*rl = NULL;
		cell->outcome = UL_CELL_INTERRUPTED;
		snprintf(cell->note, sizeof(cell->note), "interrupted while starting the load");
		return UL_ENGINE_INTERRUPTED;
	}
	if (rc == -EMFILE || rc == -ENFILE) {
		/* ulimit -n, or the system's table: an error of the run. */
		cell->outcome = UL_CELL_INTERRUPTED;
		snprintf(cell->note, sizeof(cell->note), "%s", why);
		ul_engine_progress_done(eng);
		ul_error("%s; the run stops (out of file descriptors: see ulimit -n)", why);
		return UL_ENGINE_ERROR;
	}
	if (rc) {
		*rl = NULL;
		cell->outcome = UL_CELL_LOAD_FAILED;
		snprintf(cell->note, sizeof(cell->note), "%s", why);
		ul_engine_progress_done(eng);
		ul_error("%s", why); /* names the load already */
	}
	return UL_ENGINE_OK;
}

/*
 * The lead time: the load runs, watched, before the measure.  UL_ENGINE_OK
 * with *died false to go on; UL_ENGINE_OK with *died true when the load
 * died (cell load-died); UL_ENGINE_INTERRUPTED (cell interrupted).
 */
static int lead_time(struct ul_engine *eng, struct ul_cell *cell, const struct ul_engine_window *w,
		     struct ul_running_load *rl, bool *died)
{
	const char *what = w->what ? w->what : "the measurement";
	ul_nsec until = ul_now_ns() + w->lead_ns;
	char when[64];

	*died = false;
	while (ul_now_ns() < until) {
		struct ul_child *exited = NULL;
		enum ul_wait_result r = ul_sup_wait(&eng->sup, -1, until, &exited);

		if (r == UL_WAIT_INTERRUPTED) {
			cell->outcome = UL_CELL_INTERRUPTED;
			snprintf(cell->note, sizeof(cell->note), "interrupted before %s started",
				 what);
			return UL_ENGINE_INTERRUPTED;
		}
		if (r == UL_WAIT_CHILD_EXITED && exited == ul_load_child(rl)) {
			snprintf(when, sizeof(when), "before %s started", what);
			ul_engine_load_died(cell, when, rl);
			*died = true;
			return UL_ENGINE_OK;
		}
	}
	return UL_ENGINE_OK;
}

/* The load's work is counted from here (engine.h: the measured window). */
static void work_begin(struct ul_engine *eng, const struct ul_running_load *rl)
{
	eng->work_units_at_begin = ul_load_units(rl);
	eng->work_begin_ns = ul_now_ns();
}

/* Sets cell->load_units to the work done since work_begin, and the metrics
 * measured_ns and load_units_per_s. */
static void work_end(struct ul_engine *eng, struct ul_cell *cell, const struct ul_running_load *rl)
{
	uint64_t now_units = ul_load_units(rl);
	int64_t window_ns = ul_now_ns() - eng->work_begin_ns;

	cell->load_units =
		now_units >= eng->work_units_at_begin ? now_units - eng->work_units_at_begin : 0;
	if (ul_cell_set_metric(cell, "measured_ns", (double)window_ns) ||
	    (window_ns > 0 &&
	     ul_cell_set_metric(cell, "load_units_per_s",
				(double)cell->load_units * 1e9 / (double)window_ns)))
		ul_warning(UL_OOM_TEXT " recording the work of load '%s'", cell->load);
}

/*
 * Stop the cell's load, record its units (all of them as load_units_total;
 * as cell->load_units too when no window counted them) and whether it
 * needed SIGKILL; w->usage gets its CPU.  A load found dead at the stop
 * marks an ok cell load-died.  UL_ENGINE_OK, or UL_ENGINE_ERROR when it
 * could not be stopped (printed).
 */
static int stop_load(struct ul_engine *eng, struct ul_cell *cell, const struct ul_engine_window *w,
		     struct ul_running_load *rl)
{
	int err = ul_load_failed_errno(rl); /* valid until the stop */
	bool needed_kill = false;
	uint64_t total = 0;
	double window_ns;
	int rc = ul_load_stop_usage(&eng->sup, rl, ul_engine_stop_grace(eng), &total, &needed_kill,
				    w->usage);

	if (!ul_cell_metric(cell, "measured_ns", &window_ns))
		cell->load_units = total;
	if (ul_cell_set_metric(cell, "load_units_total", (double)total))
		ul_warning(UL_OOM_TEXT " recording the work of load '%s'", cell->load);
	if (needed_kill)
		cell->flags |= UL_CELL_LOAD_KILLED;
	if (rc == -ECHILD) {
		/* It exited after the measure without anybody noticing: it
		 * may have been dead for part of it. */
		if (cell->outcome == UL_CELL_OK) {
			cell->outcome = UL_CELL_LOAD_DIED;
			snprintf(cell->note, sizeof(cell->note),
				 "load '%s' had died when it was stopped%s%s%s%s%s", cell->load,
				 err ? ": " : "", err ? strerror(err) : "", err ? " (" : "",
				 err ? errno_name(err) : "", err ? ")" : "");
		}
		return UL_ENGINE_OK;
	}
	if (rc) {
		ul_engine_progress_done(eng);
		ul_error_errno(rc, "load '%s' could not be stopped", cell->load);
		return UL_ENGINE_ERROR;
	}
	return UL_ENGINE_OK;
}

/* The part with the load running (or none): lead, monitors, hooks, count. */
static int measure_loaded(struct ul_engine *eng, struct ul_cell *cell,
			  const struct ul_engine_window *w, struct ul_running_load *rl)
{
	bool died = false;
	int result = UL_ENGINE_OK;

	ul_monitors_begin(eng, cell);
	if (rl && w->lead_ns > 0)
		result = lead_time(eng, cell, w, rl, &died);
	if (result == UL_ENGINE_OK && !died) {
		if (w->begin)
			w->begin(w->arg, cell);
		if (rl)
			work_begin(eng, rl);
		result = w->measure(w->arg, cell, rl);
		if (rl)
			work_end(eng, cell, rl);
		if (w->end)
			result = w->end(w->arg, cell, result);
	}
	ul_monitors_end(eng, cell);
	return result;
}

int ul_engine_measure_cell(struct ul_engine *eng, struct ul_cell *cell, const struct ul_load *load,
			   const struct ul_engine_window *w)
{
	struct ul_running_load *rl = NULL;
	int result = w->prepare ? w->prepare(w->arg, cell) : UL_ENGINE_OK;
	int stopped;

	if (result != UL_ENGINE_OK || cell->outcome != UL_CELL_OK)
		return result;
	if (load) {
		result = start_load(eng, cell, load, w, &rl);
		if (!rl)
			return result;
	}
	result = measure_loaded(eng, cell, w, rl);
	if (!rl)
		return result;
	stopped = stop_load(eng, cell, w, rl);
	if (result == UL_ENGINE_OK)
		result = stopped;
	return w->stopped ? w->stopped(w->arg, cell, result) : result;
}
