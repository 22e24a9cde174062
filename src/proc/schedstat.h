/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The fallback without delay accounting: /proc/PID/schedstat, which the
 * scheduler keeps whatever kernel.task_delayacct says (CONFIG_SCHED_INFO,
 * on in every distribution kernel): on-CPU time and run-queue wait of one
 * task (a thread: /proc/PID/task/TID/schedstat), in nanoseconds since it
 * started, and how many times it was given a CPU.  Missing against
 * taskstats (proc/taskstats.h): block I/O, swap-in, reclaim, thrashing,
 * compaction, write-protect copy and IRQ delays (UL_SCHEDSTAT_MISSING
 * names them), the task's dead children (a task reads its own threads
 * only: /proc/PID/schedstat is the main thread's), and any task already
 * gone (nothing can be read after it exits).
 */
#ifndef UL_SCHEDSTAT_H
#define UL_SCHEDSTAT_H

#include "core/compat.h"

#include <stdint.h>
#include <sys/types.h>

#define UL_SCHEDSTAT_MISSING                                                                       \
	"block I/O, swap-in, reclaim, thrashing, compaction, write-protect copy and IRQ delays, "  \
	"and the task's exited children"

struct ul_schedstat {
	uint64_t cpu_ns;  /* on-CPU time */
	uint64_t runq_ns; /* time runnable, waiting on a run queue */
	uint64_t slices;  /* times it was given a CPU */
};

/* The schedstat of pid: 0, -ESRCH when it is gone, -ENOENT when the
 * kernel keeps no schedstat, -EINVAL when the file is not three integers. */
int ul_schedstat_read(pid_t pid, struct ul_schedstat *out) UL_MUST_CHECK;

#endif
