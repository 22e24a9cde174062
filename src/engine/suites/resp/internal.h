/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the resp suite: its state and the sampling of one cell, shared by
 * the driver (engine/suites/resp/resp.c) and its unit test (test_probe.c).
 */
#ifndef UL_ENGINE_RESP_INT_H
#define UL_ENGINE_RESP_INT_H

#include "core/compat.h"
#include "engine/breakdown_record.h"
#include "engine/engine.h"

struct resp_state {
	struct ul_engine *eng;
	const struct ul_probe *probe;
	struct ul_running_probe *rp;
	/* Measured for the ETA: wall time of the points and tests so far. */
	int64_t point_ns_sum, test_extra_ns_sum;
	size_t points_done, tests_done;
	struct ul_engine_step step;   /* the cell being measured */
	struct ul_breakdown_rec *why; /* each sample's parts (NULL: none recorded) */
};

/*
 * Sample the probe st->rp while `rl` runs (NULL: no load) until the cell
 * has enough points (a ul_engine_window's measure; arg is the resp_state).
 * Every sample has one deadline, fixed when it is asked for: think time
 * plus --sample-timeout; other children exiting meanwhile do not move it.
 * Fills the cell's outcome; a probe that fails or answers too late is
 * stopped (st->rp NULL).  Returns an engine result.
 */
int ul_resp_sample_cell(void *arg, struct ul_cell *cell, struct ul_running_load *rl);

#endif
