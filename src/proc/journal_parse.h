/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside proc/journal: reading a journal file back (journal_parse.c) for
 * journal.c's finish and stale-journal scan, and where journals live
 * (journal_dirs.c).  Not for use elsewhere.
 *
 * The file is a header line "underload-journal 1 PID START [BOOT]" (the
 * writer's pid and its start time, to tell a live owner from a reused
 * pid, and the boot it was written in; journals of older versions have
 * no BOOT), then one line per record: "KIND ARG" (a change about to be
 * made, pending), "done|retired|failed KIND ARG" (settling the latest
 * matching pending record), or "at ARG" (where the run is: the latest one
 * counts, it is no change).  A torn last line, from a crash mid-append,
 * is ignored.
 */
#ifndef UL_JOURNAL_PARSE_H
#define UL_JOURNAL_PARSE_H

#include "proc/journal.h"

#include <sys/types.h>

#define UL_JOURNAL_HEADER "underload-journal 1 "
#define UL_JOURNAL_MAX_DIRS 5

/* A parsed journal: the entries and where point into buf. */
struct ul_journal_parsed {
	char *buf;
	size_t good_bytes; /* up to the last newline */
	pid_t pid;
	uint64_t start;
	char boot[UL_JOURNAL_BOOT_LEN]; /* "" in a journal of an older version */
	const char *where;		/* the latest "at" record, NULL if none */
	struct ul_journal_entry *e;
	size_t n;
};

/*
 * Parse the journal open as fd (read with pread(), the offset is kept).
 * 0; -EINVAL when it is not a journal of ours (no valid header, not one
 * complete line); -EFBIG over 4 MiB; -ENOMEM; -errno.  p is empty on failure.
 */
int ul_journal_parse(int fd, struct ul_journal_parsed *p);
void ul_journal_parsed_free(struct ul_journal_parsed *p);
/* How many entries are still pending (neither done nor retired). */
size_t ul_journal_pending(const struct ul_journal_parsed *p);

/* The candidate directories, best first ($UL_JOURNAL_DIR alone if set):
 * the durable one (/var/lib/underload/journal for root, else
 * $XDG_STATE_HOME/underload/journal or ~/.local/state/underload/journal),
 * then where older versions kept them.  Returns how many. */
int ul_journal_dirs(char dirs[UL_JOURNAL_MAX_DIRS][PATH_MAX]);
/*
 * A journal directory must be ours and closed to others: a journal another
 * user can write into would let them have `underload cleanup` (run as root)
 * undo whatever they wrote.  create: make it (and missing parents, 0700).
 * Returns an fd of the directory (opened without following a symlink) or
 * -errno: -EPERM not ours or open to others.
 */
int ul_journal_open_dir(const char *dir, bool create);

#endif
