/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The journal of system changes: a pure durable log.  It knows nothing of
 * what the changes are; proc/changes.c writes the entries before making
 * each change and decides how to undo them.
 *
 * One file per supervisor, DIR/<pid>.journal, in the first usable of
 * $UL_JOURNAL_DIR (tests alone), then a directory a reboot keeps:
 * /var/lib/underload/journal for root, $XDG_STATE_HOME/underload/journal
 * or ~/.local/state/underload/journal for a user; then, as fallbacks and
 * where older versions wrote them (still read and cleaned),
 * /run/underload, $XDG_RUNTIME_DIR/underload and /tmp/underload-<uid>.
 * The file starts with "underload-journal 1 <pid> <starttime> <boot id>"
 * and then holds lines "<kind> <arg>" (appended with O_APPEND
 * and fsync'd before the change), "done <kind> <arg>" (undone, or never
 * made), "retired <kind> <arg>" (could not be undone: reported once and
 * never retried), "failed <kind> <arg>" (one failed attempt) and "at
 * <arg>" (where the run is now, for a crash report; the latest counts).
 * A done or retired line settles the latest matching pending entry.  A
 * line counts only with its newline, so a torn last line is ignored; a
 * writer that fails mid-line truncates back to the last one.
 *
 * Trust: a journal is read only when its directory and the file are ours
 * and closed to others (owner us, no group/other permissions, not a
 * symlink, the file a regular file with one link), reached through the
 * directory's fd.  Anything else is skipped, as if absent.
 *
 * A journal is stale when it was written in another boot (its boot id is
 * not /proc/sys/kernel/random/boot_id, or $UL_TEST_BOOT_ID in a test build): pids
 * mean nothing across a reboot.  Within this boot (or without a boot id,
 * from an older version) it is stale when its pid is dead: kill(pid, 0)
 * says ESRCH, or the process has another start time (the pid was reused),
 * or, without a start time, /proc/pid/comm is not "underload".  The owner holds no lock
 * (a child that inherited the fd would make a dead run look alive);
 * readers flock a journal while they work on it, so two never undo the
 * same one.
 */
#ifndef UL_JOURNAL_H
#define UL_JOURNAL_H

#include "core/compat.h"

#include <limits.h>

#define UL_JOURNAL_BOOT_LEN 40 /* a boot id (36 characters) and its NUL */

struct ul_journal {
	int fd; /* -1 when closed */
	char path[PATH_MAX];
	uint64_t size_bytes; /* length up to the last complete line */
	/* A failed append's part-line could not be cut off: another line
	 * would glue onto it and be lost, so none is written (-EIO). */
	bool torn;
};

/* Create our journal with its header, durably: DIR/<pid>.journal, or
 * DIR/<pid>.K.journal while an older one of that pid awaits cleanup.
 * 0 or -errno (of the last directory tried). */
int ul_journal_open(struct ul_journal *j) UL_MUST_CHECK;
/*
 * Record "<kind> <arg>" durably; call it before making the change, and do
 * not make the change if it fails.  kind: a word of [a-z0-9_-] other than
 * done, retired and failed; arg: no newline.  0, -EINVAL, -EBADF (not
 * open) or the write/fsync error.
 */
int ul_journal_add(struct ul_journal *j, const char *kind, const char *arg) UL_MUST_CHECK;
/* Record where the run is now ("at <arg>"; arg: no newline), for the
 * report of a crash; not a change, nothing to undo.  0 or -errno. */
int ul_journal_at(struct ul_journal *j, const char *arg);
/* Record that the change was undone (or never happened). */
int ul_journal_done(struct ul_journal *j, const char *kind, const char *arg);
/* Record that the change cannot be undone and must not be tried again. */
int ul_journal_retire(struct ul_journal *j, const char *kind, const char *arg);
/* Record one failed attempt to undo it. */
int ul_journal_failed(struct ul_journal *j, const char *kind, const char *arg);
/* Close; the file is removed when nothing is pending, else kept for
 * `underload cleanup`.  Safe to call twice. */
void ul_journal_finish(struct ul_journal *j);

enum ul_journal_state {
	UL_JOURNAL_PENDING,
	UL_JOURNAL_DONE,
	UL_JOURNAL_RETIRED
};

struct ul_journal_entry {
	const char *kind, *arg;
	enum ul_journal_state state;
	int failures; /* "failed" lines for it so far */
};

/* What a reader learns of a stale journal besides its entries. */
struct ul_journal_info {
	bool other_boot;   /* written in another boot: the machine went down under it */
	const char *where; /* its latest "at" record, NULL if none */
};

/*
 * Called for one stale, trusted, locked journal with its entries, oldest
 * first.  j is open for appending done/retired/failed lines (j->fd is -1
 * when it cannot be written).  The visitor sets e[i].state for what it
 * settled; the journal is deleted when nothing is left pending.  Returns 0
 * or an error that ul_journal_visit_stale() passes on (the first one).
 */
typedef int (*ul_journal_visit_fn)(void *arg, struct ul_journal *j, struct ul_journal_entry *e,
				   size_t n, const struct ul_journal_info *info);
/* Visit every stale journal in dir (NULL: all the default directories). */
int ul_journal_visit_stale(const char *dir, ul_journal_visit_fn fn, void *arg) UL_MUST_CHECK;
/* The same, reading only: j->fd is -1, the visitor settles nothing and no
 * journal is changed or deleted (for a command that only looks). */
int ul_journal_read_stale(const char *dir, ul_journal_visit_fn fn, void *arg) UL_MUST_CHECK;
/* How many stale journals with something pending are in dir (NULL: the
 * default directories): for the "run 'underload cleanup'" hint. */
int ul_journal_stale(const char *dir, int *n) UL_MUST_CHECK;
/* This boot's id (UL_TEST_BOOT_ID when set, in a build with test hooks): 0, or -errno
 * with out "" (then only pids tell a stale journal). */
int ul_journal_boot_id(char out[UL_JOURNAL_BOOT_LEN]);
/* Is a journal of journal_boot from another boot than current_boot?
 * False when either is unknown (""). */
bool ul_journal_other_boot(const char *journal_boot, const char *current_boot);

#endif
