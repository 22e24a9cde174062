/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Messages for the user, git style: "error: what failed: why".  Only the
 * upper layers (engine/, cmd/, main.c) print; lower layers return -errno.
 * ul_error() returns -1 so callers can write `return ul_error(...)`.
 */
#ifndef UL_LOG_H
#define UL_LOG_H

#include "core/compat.h"

#include <stdarg.h>

int ul_error(const char *fmt, ...) UL_PRINTF(1, 2);
/* Like ul_error() with ": strerror(err)" appended; err is a positive or negative errno. */
int ul_error_errno(int err, const char *fmt, ...) UL_PRINTF(2, 3);
/* ul_error_errno() from a va_list (err 0: no strerror part); returns -1. */
int ul_verror(int err, const char *fmt, va_list ap) UL_PRINTF(2, 0);
/* The one wording of running out of memory, for messages and reasons. */
#define UL_OOM_TEXT "out of memory"
/* The out-of-memory path of the upper layers: print "error: out of
 * memory" and return -1 (as ul_error()); lower layers return -ENOMEM. */
int ul_oom(void);
void ul_warning(const char *fmt, ...) UL_PRINTF(1, 2);
/* Informational line on stderr ("note: ..."), e.g. the cleanup hint. */
void ul_note(const char *fmt, ...) UL_PRINTF(1, 2);
/* "error: underload CMD: message" with the same escaping and length cap
 * as ul_error(); for cmd/'s usage errors. */
void ul_vusage(const char *cmd, const char *fmt, va_list ap) UL_PRINTF(2, 0);
/* A broken invariant: print and abort.  Never for bad input. */
_Noreturn void ul_bug(const char *file, int line, const char *fmt, ...) UL_PRINTF(3, 4);
#define UL_BUG(...) ul_bug(__FILE__, __LINE__, __VA_ARGS__)

/*
 * Format a reason into a caller's "why" buffer (lower layers explain a
 * -errno this way, the upper layer prints it).  A NULL why or a zero len
 * is allowed and does nothing; the text is cut to len - 1 bytes.  Prints
 * nothing.
 */
void ul_whyf(char *why, size_t len, const char *fmt, ...) UL_PRINTF(3, 4);
/* ul_whyf with a va_list, for a caller that is variadic itself. */
void ul_vwhyf(char *why, size_t len, const char *fmt, va_list ap) UL_PRINTF(3, 0);

#endif
