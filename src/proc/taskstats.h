/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a task waited for, from the kernel's taskstats interface (generic
 * netlink family "TASKSTATS", through libnl-genl-3): the delay accounting
 * counters of one task or thread group (a query), and the records the
 * kernel sends when tasks exit on a set of CPUs (a listener), so that
 * children too short-lived to be queried are counted.
 *
 * Units: every *_ns is nanoseconds, cumulative over the task's life (a
 * thread group's: over its threads, live and dead).  The counters
 * (Documentation/accounting/delay-accounting.rst, taskstats.rst,
 * taskstats-struct.rst):
 *   UL_DELAY_RUNQ      waiting for a CPU while runnable (the run queue)
 *   UL_DELAY_BLKIO     waiting for synchronous block I/O to complete
 *   UL_DELAY_SWAPIN    waiting for a page to be swapped in
 *   UL_DELAY_RECLAIM   in direct memory reclaim ("freepages")
 *   UL_DELAY_THRASHING waiting for a page evicted shortly before (thrashing)
 *   UL_DELAY_COMPACT   in direct memory compaction
 *   UL_DELAY_WPCOPY    copying a write-protected page (copy on write)
 *   UL_DELAY_IRQ       IRQ and softirq time taken out of the task's run
 * They may overlap (a thrashing wait is also a swap-in or block I/O wait;
 * a swap-in may include its block I/O), so a breakdown that adds them
 * must clamp the sum to the wall time.  Each counter exists from a version
 * of struct taskstats on (ul_delay_since(): thrashing 9, compaction 11,
 * write-protect copy 13, IRQ 14); an older kernel's record leaves it out
 * of `have`, at 0.
 *
 * Without delay accounting (kernel.task_delayacct=0) the kernel still
 * fills the run-queue delay and the scheduler's on-CPU time where it keeps
 * them for every task (this machine's 6.18 does; `sched` says so), but
 * counts no other delay: `counting` is false and those delays are 0
 * meaning "not counted", not "no wait".  Where it fills none of the delay
 * part (an older kernel, one without CONFIG_TASK_DELAY_ACCT) `sched` is
 * false, every delay says nothing, and cpu_ns falls back to user + system
 * time (microseconds, sampled at the tick: coarse for short tasks);
 * proc/schedstat.h gives on-CPU time and the run-queue wait then.
 * Switching it on (proc/delayacct.h) counts only from then on: switch it
 * on before the measured task starts.
 *
 * Both need CAP_NET_ADMIN (the kernel's TASKSTATS_CMD_GET is an admin
 * command) and, for a listener, the initial user and PID namespaces.  A
 * listener's registration belongs to its socket: the kernel drops it when
 * the socket closes, also by kill -9, so it is no system change to
 * journal.
 */
#ifndef UL_TASKSTATS_H
#define UL_TASKSTATS_H

#include "core/compat.h"

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

enum ul_delay {
	UL_DELAY_RUNQ,
	UL_DELAY_BLKIO,
	UL_DELAY_SWAPIN,
	UL_DELAY_RECLAIM,
	UL_DELAY_THRASHING,
	UL_DELAY_COMPACT,
	UL_DELAY_WPCOPY,
	UL_DELAY_IRQ,
	UL_DELAY_N
};

/* A short key ("runq", "blkio", "swapin", "reclaim", "thrashing",
 * "compact", "wpcopy", "irq") and a name for people ("run queue", ...). */
const char *ul_delay_key(enum ul_delay d);
const char *ul_delay_name(enum ul_delay d);
/* The struct taskstats version that first carries d. */
unsigned ul_delay_since(enum ul_delay d);

struct ul_taskstats {
	pid_t pid;	  /* the task's (a query by tgid: the tgid) */
	pid_t tgid;	  /* its thread group (0 before version 12) */
	pid_t ppid;	  /* its parent when the record was made (ac_ppid) */
	bool group;	  /* a thread group's sum (a query by tgid, an exit record of a group) */
	unsigned version; /* of the kernel's struct taskstats */
	bool sched;	  /* the run-queue delay and cpu_ns are the scheduler's (above) */
	bool counting;	  /* kernel.task_delayacct was on when read: the other delays count */
	unsigned have;	  /* bit 1u << d for each delay this version carries */
	uint64_t delay_ns[UL_DELAY_N];
	uint64_t count[UL_DELAY_N]; /* how many waits delay_ns adds up */
	/* On-CPU time: the scheduler's with sched, else user + system time. */
	uint64_t cpu_ns;
	uint64_t elapsed_us; /* since the task started (µs, the kernel's unit) */
	uint32_t exitcode;   /* of an exit record (the kernel's encoding) */
};

/* A socket for queries: 0 and *out, or -errno with why (-ENOENT: no
 * TASKSTATS family, a kernel without CONFIG_TASKSTATS). */
struct ul_taskstats_conn;
int ul_taskstats_open(struct ul_taskstats_conn **out, char *why, size_t len) UL_MUST_CHECK;
void ul_taskstats_close(struct ul_taskstats_conn *c);
/*
 * The counters of task pid (tgid false) or of the thread group tgid
 * (true) now: 0, or -ESRCH (no such task), -EPERM (no CAP_NET_ADMIN),
 * -errno with why.
 */
int ul_taskstats_query(struct ul_taskstats_conn *c, pid_t id, bool tgid, struct ul_taskstats *out,
		       char *why, size_t len) UL_MUST_CHECK;

/*
 * A listener for the exit records of the tasks that exit on the CPUs of
 * cpumask ("0-3,6", the kernel's cpulist format; NULL: every online
 * CPU).  0, or -EPERM (no CAP_NET_ADMIN), -EINVAL (not the initial
 * namespaces, or a CPU not possible), -ENOENT (no family), -errno.
 * The kernel sends one record per exiting task (group false) and, when a
 * thread group with several threads ends, one for the group (group true:
 * its threads' sum, which the per-task records already counted).
 */
struct ul_taskstats_listener;
int ul_taskstats_listen(const char *cpumask, struct ul_taskstats_listener **out, char *why,
			size_t len) UL_MUST_CHECK;
/* Its file descriptor, readable when records are pending (for poll). */
int ul_taskstats_listener_fd(const struct ul_taskstats_listener *l);
typedef void (*ul_taskstats_fn)(void *arg, const struct ul_taskstats *rec);
/*
 * Hand every pending record to fn without blocking: the number handed,
 * or -errno.  *lost (may be NULL) grows by one each time the socket's
 * buffer overflowed and records were dropped (the kernel cannot say how
 * many).
 */
int ul_taskstats_drain(struct ul_taskstats_listener *l, ul_taskstats_fn fn, void *arg,
		       unsigned *lost);
/* Deregister, close and free (NULL: nothing). */
void ul_taskstats_unlisten(struct ul_taskstats_listener *l);

#endif
