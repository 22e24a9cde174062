/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Opening an output file safely: the one way every command writes a file
 * it was told to (-o, --format X=FILE, report's SVG directory).  Run as
 * root in a shared /tmp, an output path is a name another user may have
 * planted something at, and a mistyped one may name the results database.
 *
 * The contract, for an output PATH (DIR/NAME):
 *  - It is never the store: the results database registered with
 *    ul_outfile_protect() (commands do it when they resolve --db) or its
 *    -wal, -shm or -journal file, by device and inode when the file exists
 *    and by directory (device and inode) and name when it does not, so a
 *    symlinked --db, a symlinked directory or a hard link do not hide it.
 *  - If NAME exists it is a regular file, a character device or a FIFO
 *    (not a symlink: name its target; not a directory, socket or block
 *    device) owned by us or by root: something another user planted is
 *    refused, never written to, opened or replaced.
 *  - A regular file or a new name is replaced atomically: a temporary
 *    in DIR (mode 0666 less the umask) is written, fsync'd, named
 *    NAME.tmpXXXXXX and renamed over NAME, then DIR is fsync'd, so readers
 *    see the old or the new file.  The temporary is an unnamed O_TMPFILE
 *    one until it is written, so even a kill -9 leaves nothing but in the
 *    moment between its link and its rename (a filesystem without
 *    O_TMPFILE gets a named one from the start).  While the temporary has
 *    a name, a terminating signal
 *    (core/signals.h) whose action is the default removes it (a handler
 *    that only calls unlinkat()) and then ends the process as it would
 *    have; a write error removes it too.
 *  - A character device or a FIFO is written in place (json=/dev/null),
 *    opened with O_NONBLOCK, cleared once open: a FIFO nobody reads is an
 *    error at once, never a hang.
 *  - A directory (report --format svg -o DIR) is created if missing, then
 *    opened with O_NOFOLLOW (a symlink is refused) and must be ours, or
 *    root's and writable by nobody else; its files are written relative
 *    to that descriptor (openat, renameat) by the rules above, so DIR
 *    cannot be swapped for a symlink between the check and the writes.
 *
 * Every function prints why it failed (naming PATH) and returns -1.
 */
#ifndef UL_OUTFILE_H
#define UL_OUTFILE_H

#include "core/compat.h"

#include <stdio.h>

/* Register the store at db_path (a --db value: a path or "sqlite:PATH";
 * another scheme is no local file) as never an output.  At most a few;
 * later ones beyond that are ignored. */
void ul_outfile_protect(const char *db_path);

/* Can PATH be written by the rules above?  Checked before any work, so a
 * bad path is refused before the first cell: 0, or -1 after printing why
 * (commands exit UL_EXIT_USAGE). */
int ul_outfile_check(const char *path);

/* Writes a file's contents to f: 0 or a negative errno. */
typedef int (*ul_outfile_writer)(FILE *f, const void *arg);

/* Write PATH with write(f, arg) by the rules above: 0 or -1 after printing why. */
int ul_outfile_write(const char *path, ul_outfile_writer write, const void *arg);

/* Create (if missing) and open the output directory PATH by the rules
 * above: a descriptor, or -1 after printing why. */
int ul_outfile_open_dir(const char *path);

/* Write NAME (no '/', not "." or "..") in the directory dfd opened by
 * ul_outfile_open_dir(); `shown` is DIR for messages.  0 or -1. */
int ul_outfile_write_at(int dfd, const char *shown, const char *name, ul_outfile_writer write,
			const void *arg);

#endif
