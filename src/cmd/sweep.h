/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside `underload sweep` (cmd/sweep.c: the command, its parsing and its
 * flow): the run's arguments checked against run's own option table
 * (sweep_args.c), the system settings journalled, set and written back
 * under the settings lock (sweep_settings.c), and the child processes and
 * signals (sweep_child.c); --within-run in sweep_within.c.
 */
#ifndef UL_CMD_SWEEP_H
#define UL_CMD_SWEEP_H

#include "core/compat.h"
#include "cmd/decide.h"
#include "model/model.h"
#include "proc/iosched.h"
#include "proc/journal.h"

#include <limits.h>

#define SWEEP_MAX_SETTINGS 4
#define SWEEP_MAX_VALUES 16
#define SWEEP_MAX_RUNS 64 /* combinations */

struct setting {
	char name[64];	     /* "vm.swappiness", "iosched", "cpus", "mem-limit", "resp.cpu-work" */
	const char *run_opt; /* "--cpus" or "-o" for a run argument; NULL for a system setting */
	const char *kind;    /* the journal kind of a system setting: "sysctl", "iosched" */
	char disk[UL_IOSCHED_NAME_MAX]; /* iosched: the disk under the run's --dir */
	char expect[96];		/* compare --expect patterns for it */
	char buf[512];
	const char *values[SWEEP_MAX_VALUES];
	size_t n_values;
	char saved[160]; /* "NAME ORIGINAL" once journalled, "" before */
};

struct sweep {
	struct setting set[SWEEP_MAX_SETTINGS];
	size_t n_set, n_combos;
	int repeat;
	struct ul_decide_args decide;
	char **run_args; /* "run" ARGS... */
	int n_run_args;
	const char *db;	 /* the runs' --db, for compare */
	const char *dir; /* the runs' --dir, for iosched */
	/* --min-points, --max-points or --quick in the run's arguments: the
	 * user's points, which --until-decided's design leaves alone */
	bool points_given;
	int points; /* > 0: --until-decided's designed points a cell */
	/* --within-run: one run whose rounds alternate the one sysctl's two
	 * values (engine/round_setting.h), split afterwards (sweep_within.c) */
	bool within_run;
	bool runs_given; /* --runs in the run's arguments */
	/* What the runs exec: UL_SELF_EXE, the running program, not its path
	 * (a rebuild during a long sweep replaces or deletes that file). */
	const char *exe;
	struct ul_journal journal;
	int lock_fd; /* the settings lock (proc/settings_lock.h), -1 when not held */
	char labels[SWEEP_MAX_RUNS][128];
};

/* sweep_args.c: "run" first; no --label (any spelling getopt_long takes
 * for it) nor a swept run option; --db and --dir remembered.  0 or
 * UL_EXIT_USAGE after printing why. */
int sweep_check_run_args(struct sweep *sw);

/* sweep_settings.c.  Does the sweep change a system setting? */
bool sweep_changes_system(const struct sweep *sw);
/* Before anything changes: the settings lock, the settings left behind
 * by a killed sweep written back, each setting checked writable, the
 * disk of iosched found.  0, or an exit code after printing why. */
int sweep_prepare(struct sweep *sw);
/* Combination k's system settings, each journalled before its first
 * change and read back after each write.  0 or -1 after printing why. */
int sweep_apply(struct sweep *sw, size_t k);
/* Every system setting back to its original, in reverse order; 0 or -1. */
int sweep_restore(struct sweep *sw);
/* The value index of setting s in combination k (mixed radix, first fastest). */
size_t sweep_value_of(const struct sweep *sw, size_t k, size_t s);

/* sweep_within.c.  --within-run's conditions (one sysctl, two values,
 * no --until-decided, no --runs in the run's arguments): 0, or
 * UL_EXIT_USAGE after printing why. */
int sweep_within_check(const struct sweep *sw);
/* Its one run, the sysctl journalled and set first (sweep_apply), then
 * split into one run a value: UL_EXIT_OK, UL_EXIT_FLAGGED, or the
 * failure (UL_EXIT_USAGE when run refused its arguments and said why). */
int sweep_within_run(struct sweep *sw);
/* The run `run` of --within-run split by its cells' metric "setting"
 * into side[0] (1: A) and side[1] (2: B), each with a new UUID,
 * labels[s], and a fingerprint whose sysctl `sysctl` reads values[s].  The sides share the cells' contents with run: free them
 * with sweep_split_free() before run is released.  0, -EINVAL when a
 * cell has no such metric, -ENOMEM. */
int sweep_split_run(const struct ul_run *run, const char *sysctl, const char *const values[2],
		    const char *const labels[2], struct ul_run side[2]);
void sweep_split_free(struct ul_run side[2]);

/* sweep_child.c.  Catch every terminating signal (core/signals.h) as a
 * request to stop: sweep_stopped() then names it. */
void sweep_catch_signals(void);
int sweep_stopped(void);
/* Run exe with argv in a child of its own process group that dies with
 * us; its wait status, or -1 after printing why.  A stop requested at any
 * time before it ends, even between fork() and the wait, is forwarded to
 * it once as SIGINT. */
int sweep_run_child(const char *exe, char **argv);

#endif
