/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite's options and the helpers it shares with cmd/ and the
 * tests: splitting a --job command into an argv vector, finding a program
 * in PATH, and the Loads divisors of the seed's table.
 */
#ifndef UL_CONTEST_H
#define UL_CONTEST_H

#include "core/compat.h"
#include "core/opt.h"

#define UL_CONTEST_DEFAULT_LEAD_NS (3 * UL_NS_PER_SEC)
#define UL_CONTEST_DEFAULT_JOB_TIMEOUT_NS (3600 * UL_NS_PER_SEC)

/* What `underload run contest` was told: the suite's option table
 * (engine/suites/contest/opts.c) fills it, defaults included. */
struct ul_contest_opts {
	const char *job;	/* --job 'CMD ARGS'; NULL = make -jNCPU of the generated tree */
	const char *job_dir;	/* --job-dir: where the job runs and what the tar loads
				 * archive; NULL = the generated tree (or, with --job, the
				 * current directory, and the tar loads use the generated tree) */
	const char *job_prep;	/* --job-prep 'CMD': untimed, before each job, in the job's
				 * directory; NULL = `make clean` for the generated tree, none
				 * for --job */
	const char *lslr_dir;	/* --lslr-dir; NULL = lslr_load's default, /usr */
	int64_t lead_ns;	/* --lead-time: load start -> job start */
	int64_t job_timeout_ns; /* --job-timeout */
	bool no_drop_caches;	/* --no-drop-caches */
	unsigned tree_units;	/* --tree-units; 0 = by --quick, else the reference size */
	uint64_t tree_seed;	/* --tree-seed */
};

/* The contest suite's option table and its check across options. */
extern const struct ul_opt ul_contest_opt_table[];
int ul_contest_check_opts(const void *opts, char *err, size_t errlen);

/*
 * Split a command line into a NULL-terminated argv vector, without a shell:
 * words are separated by blanks; '...' quotes literally, "..." quotes with
 * backslash escaping only \" \\ \$ \`, a backslash outside quotes escapes
 * the next character.  Nothing is expanded (no variables, globs, ~).  *argv
 * is one allocation: free(*argv) releases it.  0, -ENOMEM, or -EINVAL with
 * the reason in why (empty command, unterminated quote, trailing backslash).
 */
int ul_contest_split(const char *cmd, char ***argv, char *why, size_t len) UL_MUST_CHECK;

/*
 * Find the program a job's argv[0] names, as execvp() would: a name with a
 * slash is taken relative to `dir` (NULL: the current directory), a bare
 * name is searched in $PATH (default "/usr/local/bin:/usr/bin:/bin").  The
 * result is an absolute path to an executable regular file.  0, -ENOENT,
 * -EACCES (found but not executable), -ENAMETOOLONG.
 */
int ul_contest_which(const char *name, const char *dir, char *out, size_t len) UL_MUST_CHECK;

/*
 * The divisor that turns a load's raw units into the seed's "Loads" column
 * (Con Kolivas, 6 Oct 2002): process_load hops / 10000, mem_load block
 * passes / 1000, io_load MiB written / 100; read_load MiB read / 100 (ours,
 * by analogy with io_load); completed archives, extractions and listings
 * are counted as they are (1).  noload has 0 units.
 */
double ul_contest_loads_divisor(const char *load);

#endif
