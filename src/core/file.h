/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small files read and written whole: control files of the kernel
 * (cgroup, /proc/self/oom_score_adj ...).  Lower-layer helpers: they
 * return -errno and never print.
 */
#ifndef UL_FILE_H
#define UL_FILE_H

#include "core/compat.h"

#include <sys/types.h>

/*
 * Write text to an existing file in one write(), as control files want
 * (a value split over two writes is two values), retried on EINTR.  0, or
 * -errno: -EIO for a short write, and an error the kernel reports only at
 * close() (cgroup writes do).  Async-signal-safe (open, write, close; no
 * stdio, no malloc), so a forked child may call it before exec.
 */
int ul_write_file(const char *path, const char *text);

/* Read a small file into buf, at most len - 1 bytes, NUL-terminated;
 * bytes read, or -errno (buf's contents are then undefined). */
ssize_t ul_read_file(const char *path, char *buf, size_t len);

/*
 * Read exactly len bytes from fd (a pipe, a socket, a file), retried on
 * EINTR and short reads: 0; -EPIPE at end of file, even mid-way; or -errno.
 * Async-signal-safe.
 */
int ul_read_full(int fd, void *buf, size_t len);

/*
 * Write exactly len bytes to a blocking fd, retried on EINTR and short
 * writes: 0, or -errno (-EIO if write() returns 0, so it never spins).
 * Async-signal-safe.
 */
int ul_write_full(int fd, const void *buf, size_t len);

/* "dir/name" into out: 0, or -ENAMETOOLONG when it does not fit. */
int ul_path_join(char *out, size_t len, const char *dir, const char *name);

/*
 * A test seam: when the environment variable env_name names a file, create
 * that file (exclusively, never through a symlink) and sleep 2 s, so that a
 * test which waits for the file can send a signal at exactly this point.
 * Does nothing when the variable is unset or empty, and in a build without
 * test hooks (core/testhook.h).
 */
void ul_test_hold(const char *env_name);

#endif
