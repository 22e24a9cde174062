/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside the contest suite: its state, shared by the cell driver
 * (engine/suites/contest/contest.c) and the job runner (engine/suites/contest/job.c).
 */
#ifndef UL_ENGINE_CONTEST_INT_H
#define UL_ENGINE_CONTEST_INT_H

#include "core/compat.h"
#include "engine/breakdown_record.h"
#include "engine/engine.h"
#include "engine/suites/contest/contest.h"
#include "engine/suites/contest/srctree.h"

#include <limits.h>

/* The untimed preparation (make clean) must not take long. */
#define CONTEST_PREP_TIMEOUT_NS (10 * 60 * UL_NS_PER_SEC)
/* How often the wait for a job wakes up to refresh the progress line. */
#define CONTEST_TICK_NS (1 * UL_NS_PER_SEC)
/* Lines of a failed job's output quoted in the error. */
#define CONTEST_LOG_TAIL 4

/* A command the suite runs: the job or its preparation. */
struct command {
	char **argv;	     /* from ul_contest_split() or static; argv[0] as typed */
	bool argv_owned;     /* free(argv) when done */
	char path[PATH_MAX]; /* resolved argv[0] */
	const char *text;    /* as the user wrote it, for messages */
};

struct contest {
	struct ul_engine *eng;
	struct ul_contest_opts o;
	struct command job, prep;
	bool have_prep;
	char job_dir[PATH_MAX];
	char tree[PATH_MAX]; /* the generated tree, "" if none */
	struct ul_srctree_spec spec;
	uint64_t tree_bytes;
	char make_jobs[16];
	char *make_argv[3], *clean_argv[3];
	int runs;
	bool drop_caches, drop_warned;
	size_t cells_done, cells_total;
	int jobs_run;	    /* jobs that ran to an exit, successful or not */
	int64_t job_ns_sum; /* of successful jobs, for the time-left estimate */
	int jobs_ok;
	struct ul_breakdown_rec *why; /* the jobs' parts (NULL: none recorded) */
};

enum run_result {
	RUN_EXITED, /* the command ran to its exit: see *wstatus */
	RUN_SPAWN_FAILED,
	RUN_TIMEOUT,	 /* stopped at the deadline */
	RUN_LOAD_DIED,	 /* the load died first; the command was stopped */
	RUN_INTERRUPTED, /* a terminating signal; the command was stopped */
	RUN_UNKILLABLE,	 /* could not be reaped even by SIGKILL */
};

/* --- the job runner (engine/suites/contest/job.c) --- */

/* The last `lines` non-empty lines of a log, joined by " | " ("" if none). */
void ul_contest_log_tail(const char *path, int lines, char *buf, size_t len);
/* Set the cell's note; a long reason is cut at the note's size. */
void ul_contest_note(struct ul_cell *cell, const char *fmt, ...) UL_PRINTF(2, 3);
/* A cell's private directory under the scratch directory; 0 or -errno. */
int ul_contest_cell_dir(const struct ul_engine *eng, const struct ul_cell *cell, char *buf,
			size_t len);
/* sync(), and as root (unless told not to) drop the page cache; whether it was dropped. */
bool ul_contest_flush_caches(struct contest *ct);
/*
 * Run `cmd` in `dir` with its output to `log` as the job probe (the whole
 * driver, probe/whole.c) and wait for it until `timeout_ns`, watching
 * `load_child` (may be NULL).  On return it is reaped (except
 * RUN_UNKILLABLE) and *result holds its rusage; *elapsed_ns is spawn to
 * reap.  `prog` (may be NULL) and `left` make the progress line.  why
 * (may be NULL: the preparation) gets the parts of the command's whole
 * process tree when it ran to its exit (engine/breakdown_record.h).
 */
enum run_result ul_contest_run_command(struct contest *ct, const struct command *cmd,
				       const char *dir, const char *log, int64_t timeout_ns,
				       struct ul_child *load_child, const char *prog,
				       const char *left, struct ul_child *result,
				       int64_t *elapsed_ns, int *spawn_err,
				       struct ul_breakdown_sample *why);
/* The untimed preparation before a job; 0, or -1 after filling the cell's failure. */
int ul_contest_run_prep(struct contest *ct, struct ul_cell *cell, const char *dir, int *result);
/* The default job (make -jNCPU in the generated tree) or --job, resolved;
 * 0 or -1 after printing why. */
int ul_contest_default_job(struct contest *ct);
int ul_contest_user_job(struct contest *ct);

#endif
