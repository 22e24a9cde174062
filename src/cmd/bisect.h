/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload bisect` (cmd/bisect.c), its judge (cmd/bisect_judge.c), its
 * git tree (cmd/bisect_git.c) and its child processes (cmd/bisect_exec.c). */
#ifndef UL_CMD_BISECT_H
#define UL_CMD_BISECT_H

#include "cmd/bisect_logic.h"
#include "core/compat.h"
#include "proc/journal.h"

#include <limits.h>
#include <stdint.h>

#define UL_BISECT_MAX_STEPS 64 /* --kernel options (a git range has no bound) */

struct ul_bisect_kernel {
	const char *image;  /* as given; a commit's: its build's copy, NULL until built */
	const char *append; /* extra kernel command-line words, or NULL */
	char file[96];	    /* the image's file name, or the commit's short hash: in labels */
	/* --git only: */
	char commit[41];		 /* the commit's full hash */
	char subject[80];		 /* its subject line, for the log */
	bool unbuildable;		 /* its build failed (why says how): the step is skipped */
	char why[160];			 /* "the build exited with exit status 2" */
	char image_path[PATH_MAX + 128]; /* what image points to */
	char append_words[1024];	 /* what append points to */
};

/* --git's work: a clone of the tree in a journalled scratch directory,
 * made at the first build (bisect_git.c). */
struct ul_bisect_git {
	struct ul_journal journal;
	char work[PATH_MAX];	 /* the scratch directory, "" until made */
	char tree[PATH_MAX + 8]; /* work/tree, the clone the commits are checked out in */
};

/* What the command was given (bisect.c's option table). */
struct ul_bisect_args {
	const char *db, *name;
	struct ul_bisect_kernel list[UL_BISECT_MAX_STEPS]; /* --kernel's */
	struct ul_bisect_kernel *kernels; /* the steps: list, or --git's range (malloc'ed) */
	int n_kernels;
	/* --git DIR --good REV --bad REV --build CMD [--image PATH] [--append-file PATH] */
	const char *git_dir, *good, *bad, *build, *image, *append_file;
	struct ul_bisect_git *git; /* --git's work, NULL with --kernel */
	int cpus, max_runs;
	int64_t mem_bytes, hang_ns, budget_ns, margin_centi;
	bool no_confirm;
	char **run_args; /* "run", ARGS... */
	int n_run_args;
	char db_path[4096];
};

/* One A/B of the sequence: `cand` judged against `base` (0-based kernels),
 * under these labels. */
struct ul_bisect_ab {
	int base, cand;
	char labels[2][128]; /* base's, cand's */
};

/* How an A/B came out. */
struct ul_bisect_verdict {
	bool stored;	   /* both labels hold runs (measured now or before) */
	bool slower;	   /* some test slower than the base */
	bool faster;	   /* some test faster than the base */
	bool decided;	   /* every test decided */
	bool crashed;	   /* some run of cand crashed */
	bool base_crashed; /* some run of base crashed */
	bool unbuildable;  /* --git: cand's commit does not build (why says how) */
	size_t runs;	   /* both sides together */
	size_t n_cand;	   /* of them, cand's */
	int64_t ids[128];  /* their ids, base's first (the first 128) */
	char why[256];	   /* "resp spawnload delay +25.1% [+9.0%, +43.6%] slower" */
};

/* Read the A/B's stored runs back and decide them (0, or an exit code
 * after printing why; no runs: stored false). */
int ul_bisect_read(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
		   struct ul_bisect_verdict *v);
/* The id of a failed run stored under label (a commit that did not build,
 * ul_bisect_store_failed), 0 when none: 0 or an exit code. */
int ul_bisect_find_failed(const struct ul_bisect_args *a, const char *label, int64_t *id);
/* A run with no test, status failed, stored under label, `what` as its
 * command line: how bisect stores a commit that does not build, so that a
 * re-run skips it without building it again.  0 or an exit code. */
int ul_bisect_store_failed(const struct ul_bisect_args *a, const char *label, const char *what);
/* An interrupted A/B's runs relabelled LABEL~interrupted, so that the
 * A/B measured afresh pairs only its own: 0 or relabel's exit code. */
int ul_bisect_set_aside(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
			const struct ul_bisect_verdict *v);
/* Boot the A/B through vm --until-decided: vm's exit code. */
int ul_bisect_measure(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab);

/* The range good..bad of --git (first-parent, oldest first, after the good
 * commit itself) into a->kernels, each named by its short hash: 0, or an
 * exit code after printing why. */
int ul_bisect_git_range(struct ul_bisect_args *a);
/* Build kernel k (a commit of the range) unless built already: checked
 * out in the work directory (made and journalled at the first build),
 * the build command run there, its image (and --append-file's words)
 * kept.  0 with k->image set, or with k->unbuildable and k->why when the
 * build failed or made no image; else an exit code after printing why
 * (the host's fault: git, the work directory; or interrupted). */
int ul_bisect_git_build(const struct ul_bisect_args *a, struct ul_bisect_kernel *k);
/* The work directory removed (`underload cleanup` does it after a kill -9)
 * and the journal closed. */
void ul_bisect_git_finish(struct ul_bisect_git *g);

/* A program bisect runs (git, the build command), supervised. */
struct ul_bisect_exec {
	const char *what;	    /* who says what went wrong: "bisect: git" */
	char *const *argv;	    /* argv[0] is looked up on PATH */
	const char *dir;	    /* its working directory, or NULL: ours */
	const char *const *env;	    /* "NAME=VALUE" added to its environment, NULL-ended, or NULL */
	int out_fd;		    /* its stdout, or -1: ours */
	bool err_too;		    /* its stderr to out_fd as well */
	struct ul_journal *journal; /* journals its process group, or NULL */
};
/* Run it to its end: 0 with its wait status, UL_EXIT_INTERRUPTED (Ctrl-C or
 * SIGTERM: it is stopped, its whole process group and any process it
 * left behind), or UL_EXIT_ERROR after printing why it could not start.
 * With a journal its process group is journalled (proc/pgroup.h) while it
 * runs, so that `underload cleanup` kills what it started after a kill -9
 * of bisect; a group that cannot be journalled is stopped (UL_EXIT_ERROR). */
int ul_bisect_exec(const struct ul_bisect_exec *x, int *wstatus);

#endif
