/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "job" probe (probe/job.c): one program exec'd in a directory with
 * its output to a log, timed whole by the whole driver (probe/whole.c).
 * Its suite (contest) resolves the program and gives it as ctx->arg.
 */
#ifndef UL_PROBE_JOB_H
#define UL_PROBE_JOB_H

#include "core/compat.h"

struct ul_cell;
struct ul_child;

/* What one run execs; ctx->arg of the job probe. */
struct ul_job_spec {
	const char *path;  /* resolved program */
	char *const *argv; /* argv[0] as the user typed it */
	const char *dir;   /* where it runs */
	const char *log;   /* its stdout and stderr, truncated first */
};

/* The run's exit codes when it cannot start (the shell's): cannot enter
 * the directory or open the log, cannot execute the program. */
#define UL_JOB_CANNOT_ENTER 126
#define UL_JOB_CANNOT_EXEC 127

/* One ended run onto the cell's series wall_ns, user_ns, sys_ns (the
 * job probe's ul_whole_ops.result).  0 or -ENOMEM. */
int ul_job_result(const struct ul_child *run, int64_t elapsed_ns, struct ul_cell *cell);

#endif
