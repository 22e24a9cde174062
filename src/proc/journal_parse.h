/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Inside proc/journal: reading a journal file back (journal_parse.c) for
 * journal.c's finish and stale-journal scan.  Not for use elsewhere.
 *
 * The file is a header line "underload-journal 1 PID START" (the writer's
 * pid and its start time, to tell a live owner from a reused pid), then
 * one line per record: "KIND ARG" (a change about to be made, pending),
 * or "done|retired|failed KIND ARG" (settling the latest matching pending
 * record).  A torn last line, from a crash mid-append, is ignored.
 */
#ifndef UL_JOURNAL_PARSE_H
#define UL_JOURNAL_PARSE_H

#include "proc/journal.h"

#include <sys/types.h>

#define UL_JOURNAL_HEADER "underload-journal 1 "

/* A parsed journal: the entries point into buf. */
struct ul_journal_parsed {
	char *buf;
	size_t good_bytes; /* up to the last newline */
	pid_t pid;
	uint64_t start;
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

#endif
