/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * This program's own executable, for what execs or copies it (resp's
 * lister, a sweep's runs, the initramfs of `vm` and `bisect`).  A sweep
 * or a bisect lasts hours, and a rebuild meanwhile replaces the file its
 * path names (or deletes it): the path then names another program, or
 * none, and /proc/self/exe's link reads "PATH (deleted)".  Opening or
 * exec'ing "/proc/self/exe" itself reaches the running file whatever
 * happened to its name, from this process or a child forked from it.
 * Lower-layer helpers: -errno, never print.
 */
#ifndef UL_CORE_SELFEXE_H
#define UL_CORE_SELFEXE_H

#include "core/compat.h"

#include <stddef.h>

/* Opens, and (in a process forked from us) execs, the running program. */
#define UL_SELF_EXE "/proc/self/exe"

/*
 * A path that execs this very program into buf: its own path while that
 * still names the running file (what was measured so far: a plain path),
 * else UL_SELF_EXE (replaced or deleted since it started).  0, or -errno
 * (-ENAMETOOLONG: buf is too small).
 */
int ul_self_exe(char *buf, size_t len);

/*
 * The directory the program was started from, where its helpers are
 * (underload-forker, underload-hello), into buf: from /proc/self/exe's
 * link, " (deleted)" taken off.  0, or -errno.
 */
int ul_self_dir(char *buf, size_t len);

#endif
