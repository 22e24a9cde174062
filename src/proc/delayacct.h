/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The switch of delay accounting, kernel.task_delayacct (0 or 1; off by
 * default since Linux 5.14, Documentation/accounting/delay-accounting.rst),
 * which proc/taskstats.h needs for its delays.  A run switches it on only
 * if it is off, journalled first (proc/changes.h: kind "delayacct", whose
 * only argument is "0", the value written back), so that `underload
 * cleanup` switches it off again after a kill -9.  A kind of its own, not
 * "sysctl": that kind restores only the sweep's allow-list, which would
 * make delay accounting a setting a sweep varies under the run that
 * needs it; this one can write nothing but 0 to one file.
 */
#ifndef UL_DELAYACCT_H
#define UL_DELAYACCT_H

#include "core/compat.h"

#include <stddef.h>

#define UL_DELAYACCT_PATH "/proc/sys/kernel/task_delayacct"

/* 1 on, 0 off, or -ENOENT (a kernel without it), -errno. */
int ul_delayacct_read(void);
/* Write on (0 or 1) and read it back: 0, or -errno with why. */
int ul_delayacct_write(int on, char *why, size_t len) UL_MUST_CHECK;
/* A journal entry's argument: 0 when it is "0" and the switch is here;
 * -ENOENT when this kernel has none (nothing to undo); -EAGAIN when
 * /proc/sys cannot be seen (later); -EPERM when it is anything else. */
int ul_delayacct_entry_check(const char *arg, char *why, size_t len);
/* Switch it off again: 0, or -errno with why (-EROFS: later). */
int ul_delayacct_entry_undo(const char *arg, char *why, size_t len);

#endif
