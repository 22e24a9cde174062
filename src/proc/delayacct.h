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
 *
 * Runs at the same time share it through two flock(2)s on files in
 * /run/underload, which the kernel drops at exit, also by kill -9:
 * UL_DELAYACCT_LOCK, held shared by each run that uses delay accounting
 * for its life, and UL_DELAYACCT_SWITCH, held alone only for a moment by
 * whoever reads, switches or restores it, and holding the mark ("0": an
 * underload run switched it on, 0 is the value to restore).  A run that
 * finds it off switches it on and marks it; one that finds it on and
 * marked journals its own "delayacct 0" without writing, so each live run
 * that relies on underload's switch has an entry.  Switching it off (the
 * undo, by a run at its end or by `underload cleanup`) tries
 * UL_DELAYACCT_LOCK alone without waiting: while another run holds it
 * shared the undo is -EBUSY and the entry waits for the last run (whose
 * own undo switches it off) or a later cleanup, so no run ever loses
 * delay accounting under it.  Found on and unmarked (the admin's):
 * nothing is journalled and nothing is ever switched off.
 */
#ifndef UL_DELAYACCT_H
#define UL_DELAYACCT_H

#include "core/compat.h"

#include <stdbool.h>
#include <stddef.h>

#define UL_DELAYACCT_PATH "/proc/sys/kernel/task_delayacct"

#define UL_DELAYACCT_LOCK "/run/underload/delayacct.lock"
#define UL_DELAYACCT_SWITCH "/run/underload/delayacct.switch"

/* One of the two lock files, opened (its directory made root's, 0700, when
 * missing): an fd (close-on-exec), or -errno with why. */
int ul_delayacct_lock_open(const char *path, char *why, size_t len);
/* flock(2) fd with how (LOCK_SH, LOCK_EX, | LOCK_NB), retried after a
 * signal: 0 or -errno (-EWOULDBLOCK: held by another). */
int ul_delayacct_flock(int fd, int how);
/* Is the mark (underload switched it on) in the switch file fd? */
bool ul_delayacct_marked(int fd);
/* Write (mark true) or clear the mark: 0 or -errno. */
int ul_delayacct_mark(int fd, bool mark);

/* 1 on, 0 off, or -ENOENT (a kernel without it), -errno. */
int ul_delayacct_read(void);
/* Write on (0 or 1) and read it back: 0, or -errno with why. */
int ul_delayacct_write(int on, char *why, size_t len) UL_MUST_CHECK;
/* A journal entry's argument: 0 when it is "0" and the switch is here;
 * -ENOENT when this kernel has none (nothing to undo); -EAGAIN when
 * /proc/sys cannot be seen (later); -EPERM when it is anything else. */
int ul_delayacct_entry_check(const char *arg, char *why, size_t len);
/* Switch it off again unless another run holds the lock (-EBUSY, kept for
 * later): 0, or -errno with why (-EROFS: later). */
int ul_delayacct_entry_undo(const char *arg, char *why, size_t len);

#endif
