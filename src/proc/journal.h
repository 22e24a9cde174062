/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal of system changes (scratch dirs, cgroups, swap files, sysctls),
 * written before each change so `underload cleanup` can undo a killed run's.
 *
 * One file per supervisor, DIR/<pid>.journal, in the first usable of
 * $UL_JOURNAL_DIR (tests), /run/underload, $XDG_RUNTIME_DIR/underload and
 * /tmp/underload-<uid>; the directory is 0700 and must be ours.  The file
 * starts with "underload-journal 1 <pid> <starttime>" and then holds lines
 * "<kind> <arg>" (appended with O_APPEND and fsync'd before the change) and
 * "done <kind> <arg>" (after undoing it; it cancels the latest matching
 * entry).  A line counts only with its newline, so a torn last line is
 * ignored; a writer that fails mid-line truncates back to the last one.
 *
 * A journal is stale when its pid is dead: kill(pid, 0) says ESRCH, or
 * the process has another start time (the pid was reused), or, without a
 * start time, /proc/pid/comm is not "underload".  The owner holds no lock
 * (a child that inherited the fd would make a dead run look alive); cleanups
 * flock a journal while they work on it, so two never undo the same one.
 */
#ifndef UL_JOURNAL_H
#define UL_JOURNAL_H

#include "core/compat.h"

#include <limits.h>

#define UL_JOURNAL_SCRATCH "scratch" /* arg: a ul_scratch_create() directory */
#define UL_JOURNAL_CGROUP "cgroup"   /* arg: a ul_cgroup directory */
#define UL_JOURNAL_SWAP "swap"	     /* arg: a ul_swap_create() file */
#define UL_JOURNAL_SYSCTL "sysctl"   /* arg: "NAME OLDVALUE", NAME as vm.swappiness */

struct ul_journal {
	int fd;			/* -1 when closed */
	char path[PATH_MAX];
	uint64_t size_bytes;	/* length up to the last complete line */
};

/* Create our journal with its header, durably: DIR/<pid>.journal, or
 * DIR/<pid>.K.journal while an older one of that pid awaits cleanup.
 * 0 or -errno (of the last directory tried). */
int ul_journal_open(struct ul_journal *j) UL_MUST_CHECK;
/*
 * Record "<kind> <arg>" durably; call it before making the change, and do
 * not make the change if it fails.  kind: a word other than "done"; arg: no
 * newline.  0, -EINVAL, -EBADF (not open) or the write/fsync error.
 */
int ul_journal_add(struct ul_journal *j, const char *kind, const char *arg) UL_MUST_CHECK;
/* Record that the change was undone (or never happened). */
int ul_journal_done(struct ul_journal *j, const char *kind, const char *arg);
/*
 * Undo one change of a known kind (ul_swap_destroy, ul_cgroup_destroy_path,
 * ul_scratch_remove, writing the old sysctl value back) and, on success,
 * record it done in j (may be NULL).  0 also when it was already undone.
 */
int ul_journal_undo(struct ul_journal *j, const char *kind, const char *arg);
/* Close; the file is removed when every entry is done, else kept for
 * `underload cleanup`.  Safe to call twice. */
void ul_journal_finish(struct ul_journal *j);

typedef void (*ul_journal_report_fn)(void *arg, const char *kind, const char *what, int rc);

/*
 * Undo every not-done entry of every stale journal in dir (NULL: all the
 * default directories), newest first, reporting each with its result; a
 * journal is deleted once all its entries are done.  Journals or
 * directories not owned by us are skipped.  *n_undone (may be NULL) counts
 * successful undos.  0, or the first error.
 */
int ul_journal_cleanup(const char *dir, ul_journal_report_fn report, void *arg,
		       int *n_undone) UL_MUST_CHECK;
/* How many stale journals with something left to undo are in dir (NULL:
 * the default directories): for the "run 'underload cleanup'" hint. */
int ul_journal_stale(const char *dir, int *n) UL_MUST_CHECK;

#endif
