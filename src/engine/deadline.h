/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline probe inside the engine: the "deadline" monitor (one probe
 * for the whole run, its periods cut into cells) that --deadline runs
 * alongside any suite, and which the deadline and mtest suites drive
 * themselves through the same hooks.
 *
 * What it records per cell: series dl_lat_ns (every period's wake-up
 * latency in order, synthetic coordinated-omission records included) and
 * metrics dl_period_ns, dl_work_ns, dl_profile (1 audio, 2 video, 0
 * custom), dl_rt (SCHED_FIFO obtained), dl_rt_errno (why it was refused),
 * dl_periods, dl_met, dl_missed, dl_met_pct, dl_cpu_pct (share of desired
 * CPU), dl_lat_mean_ns, dl_lat_sd_ns, dl_lat_p99_ns, dl_lat_max_ns,
 * dl_max_stall_ns, dl_synthetic, dl_lost, dl_died.
 */
#ifndef UL_ENGINE_DEADLINE_H
#define UL_ENGINE_DEADLINE_H

#include "core/compat.h"
#include "engine/monitors/monitor.h"

struct ul_engine;

extern const struct ul_monitor ul_monitor_deadline;

/* The state of the deadline monitor if it runs in this engine, else NULL. */
void *ul_engine_deadline_state(const struct ul_engine *eng);
/* --deadline none: no deadline probe at all, not even mtest's default. */
bool ul_engine_deadline_off(const struct ul_engine *eng);
/* The probe's child record (to tell its death from a load's), or NULL. */
struct ul_child *ul_engine_deadline_child(void *state);

#endif
