/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The qemu process of `underload vm`, as a journalled change (kind "qemu",
 * arg "PID STARTTIME"): it dies with its parent (PR_SET_PDEATHSIG), and
 * cleanup kills one that a kill -9 left behind anyway, after checking it
 * is that process (start time) and a qemu (its name).
 */
#ifndef UL_PROC_QEMU_H
#define UL_PROC_QEMU_H

#include "core/compat.h"

#include <sys/types.h>

struct ul_journal;

/* Journal "qemu PID STARTTIME" for the qemu just spawned (arg receives
 * it, for ul_change_undo() or ul_journal_done()); 0 or -errno. */
int ul_change_qemu_started(struct ul_journal *j, pid_t pid, char *arg, size_t len) UL_MUST_CHECK;
/* Is arg's process still that qemu?  0 yes, -ENOENT gone, -EINVAL a
 * malformed arg, -EPERM another process now holds the pid. */
int ul_qemu_is_ours(const char *arg);
/* SIGKILL it when it is ours (ul_qemu_is_ours()); 0 when it is gone. */
int ul_qemu_kill(const char *arg);

#endif
