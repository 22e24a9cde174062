/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * /proc/PID/stat, the fields underload needs: state, parent, process
 * group, flags and CPU time.
 * Parsing is pure (tests feed it lines); reading walks /proc once.
 */
#ifndef UL_PROCSTAT_H
#define UL_PROCSTAT_H

#include "core/compat.h"

#include <sys/types.h>

#define UL_PF_KTHREAD 0x00200000u /* include/linux/sched.h: a kernel thread */

struct ul_procstat {
	pid_t pid, ppid;
	pid_t pgrp;	     /* its process group */
	char state;	     /* R, S, D, Z (a zombie: dead, not yet reaped), ... */
	unsigned flags;	     /* PF_* */
	uint64_t user_ticks; /* utime + cutime, clock ticks */
	uint64_t sys_ticks;  /* stime + cstime, clock ticks */
	uint64_t cpu_ticks;  /* user_ticks + sys_ticks */
	uint64_t own_ticks;  /* utime + stime: its own CPU, without its children's */
	uint64_t starttime;  /* ticks after boot: tells a reused pid apart */
};

/*
 * Parse one /proc/PID/stat line.  The command (field 2) may hold spaces and
 * parentheses, so fields are counted after its last ')'.  0, or -EINVAL.
 * cpu_ticks includes the children this process has reaped (cutime/cstime),
 * so the CPU of short-lived children stays with whoever waited for them.
 */
int ul_procstat_parse(const char *line, struct ul_procstat *ps);

/* The line of one process: 0, -errno (-ENOENT once it is gone) or -EINVAL. */
int ul_procstat_read(pid_t pid, struct ul_procstat *ps);

/*
 * Every process now, sorted by pid, in *out (malloc'd, caller frees);
 * processes that vanish while being read are skipped.  0 or -errno.
 */
int ul_procstat_all(struct ul_procstat **out, size_t *n);

/* The entry of `pid` in a sorted array, or NULL. */
const struct ul_procstat *ul_procstat_find(const struct ul_procstat *all, size_t n, pid_t pid);

/*
 * Marks in_tree[i] for `root` and every descendant of it (by ppid) in a
 * sorted array; returns how many were marked.
 */
size_t ul_procstat_tree(const struct ul_procstat *all, size_t n, pid_t root, bool *in_tree);

#endif
