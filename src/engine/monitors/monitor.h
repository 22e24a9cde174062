/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * engine/monitors/: the monitors, one file each (memory.c, sampler.c,
 * deadline.c, disturb.c), their registry (monitors.def, expanded in
 * monitor.c) and this contract.  A monitor is engine code: it runs in the
 * supervisor beside every suite's measured window, which no suite owns.
 *
 * Monitors: things recorded for every cell of every suite while it is
 * measured (memory pressure reached, /proc samplers, a deadline probe
 * running alongside).  The measured window (engine/window.c, which every
 * suite goes through) calls ul_monitors_begin() once the cell's load is
 * running and ul_monitors_end() before the load is stopped; each enabled
 * monitor adds series and metrics to the cell.
 *
 * How to add a monitor: write engine/monitors/NAME.c defining
 * `const struct ul_monitor ul_monitor_NAME`, add `UL_MONITOR(NAME, NAME)`
 * to monitors.def.  Its options of `underload run`, if any, are its
 * descriptor's table (no field of the run's config, no line of
 * cmd/run_opts.c).  Hooks run in the supervisor; they must not block
 * for long (the probe is waiting) and never print except through ul_error.
 */
#ifndef UL_MONITOR_H
#define UL_MONITOR_H

#include "core/compat.h"
#include "core/opt.h"
#include "model/model.h"

struct ul_engine;
struct ul_suite;

struct ul_monitor {
	const char *name;
	const char *summary;
	/* Its options of `underload run`, shown among run's own where
	 * cmd/run_opts.c places the monitors' (in the registry's order):
	 * parsed into opts_size zeroed bytes that the engine hands over with
	 * ul_engine_monitor_opts().  An option only some suites read has
	 * used_by UL_OPT_SOME_SUITES, as in run's table.  NULL = none. */
	const struct ul_opt *opts;
	size_t opts_size;
	/* After parsing, with the run's suites: refuse options that would be
	 * accepted and then ignored.  0, or -EINVAL with one line in err.
	 * NULL = nothing to check. */
	int (*check_opts)(const void *opts, const struct ul_suite *const *suites, size_t n_suites,
			  char *err, size_t errlen);
	/* Whether this monitor runs in this engine (options, facilities). */
	bool (*enabled)(const struct ul_engine *eng);
	/* Run start/end: start helper processes, allocate state.  NULL = none.
	 * A failure (negative errno) fails the run before any cell. */
	int (*start)(struct ul_engine *eng, void **state);
	void (*stop)(struct ul_engine *eng, void *state);
	/* Cell start/end.  end() records into the cell; 0 or negative errno. */
	int (*cell_begin)(struct ul_engine *eng, void *state, struct ul_cell *cell);
	int (*cell_end)(struct ul_engine *eng, void *state, struct ul_cell *cell);
};

#define UL_MAX_MONITORS 16

/* Per-run monitor state, kept in struct ul_engine. */
struct ul_monitor_set {
	const struct ul_monitor *mon[UL_MAX_MONITORS];
	void *state[UL_MAX_MONITORS];
	size_t n;
};

int ul_monitors_start(struct ul_engine *eng) UL_MUST_CHECK;
void ul_monitors_stop(struct ul_engine *eng);
void ul_monitors_begin(struct ul_engine *eng, struct ul_cell *cell);
void ul_monitors_end(struct ul_engine *eng, struct ul_cell *cell);

size_t ul_monitor_count(void);
const struct ul_monitor *ul_monitor_at(size_t i);

#endif
