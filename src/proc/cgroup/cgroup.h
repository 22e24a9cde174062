/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * proc/cgroup/: the run's memory cgroup, one front (cgroup.c, this
 * header) over two back ends (v1.c, v2.c; their contract: backend.h),
 * its removal (destroy.c) and the v1 OOM guard (guard.h).  Only this
 * header and guard.h are for use outside the folder.
 *
 * The run's memory cgroup: a limit that replaces the ancestors' mem=96m
 * reboot, with the usage, peak and OOM-kill counts read back afterwards.
 *
 * cgroup v2 is used when a v2 hierarchy offers the memory controller, else
 * the v1 memory hierarchy.  Both are found in /proc/self/mountinfo, never
 * assumed.  The cgroup is made below the caller's own cgroup when possible
 * (so limits above it still bind), named "underload-NAME".
 *
 * The limit is the memory the loads are meant to press against, so it must
 * make the kernel reclaim and swap, not kill.  A hard limit alone kills now
 * and then although swap is free: when reclaim finds nothing to free at the
 * moment of a charge (pages still under writeback to swap, swap-in racing
 * reclaim), the charge fails and the OOM killer runs.  So:
 *  - v2: memory.high is the limit (above it the kernel throttles the task
 *    and reclaims, never kills) and memory.max, the hard limit, lies
 *    UL_CGROUP_V2_HEADROOM above it, for a load that outruns reclaim;
 *  - v1 has no memory.high: the OOM killer is disabled in the group, so a
 *    failed charge makes the faulting task wait until memory is freed, and
 *    a guard outside (guard.h) wakes such waiters to retry and ends
 *    a real deadlock (no memory + swap left) by enabling the killer.
 * An OOM kill is still a result to report, never a hang.
 */
#ifndef UL_CGROUP_H
#define UL_CGROUP_H

#include "core/compat.h"

#include <limits.h>
#include <sys/types.h>

#define UL_CGROUP_PREFIX "underload-"

struct ul_cgroup {
	char path[PATH_MAX];  /* the cgroup directory; "" once destroyed */
	char procs[PATH_MAX]; /* its cgroup.procs: for ul_spawn_opts.cgroup_procs */
	int version;	      /* 1 or 2 */
	uint64_t limit_bytes; /* as read back (page-rounded); UINT64_MAX = none:
				 * v2 memory.high, v1 memory.limit_in_bytes */
	uint64_t max_bytes;   /* the hard limit: v2 memory.max, v1 = limit_bytes */
	uint64_t memsw_bytes; /* v1 memory.memsw.limit_in_bytes; UINT64_MAX = none */
	bool oom_guarded;     /* v1: OOM killer disabled here, a guard must run */
	bool swap_limited;    /* a swap limit is in force (v2 swap.max, v1 memsw) */
};

/* Which fields of struct ul_cgroup_stats were available on this kernel. */
enum ul_cgroup_have {
	UL_CG_HAVE_CURRENT = 1u << 0,
	UL_CG_HAVE_PEAK = 1u << 1,
	UL_CG_HAVE_SWAP = 1u << 2,
	UL_CG_HAVE_LIMIT_HITS = 1u << 3,
	UL_CG_HAVE_OOM = 1u << 4,
	UL_CG_HAVE_OOM_KILL = 1u << 5,
	UL_CG_HAVE_UNDER_OOM = 1u << 6,
	UL_CG_HAVE_PGMAJFAULT = 1u << 7,
	UL_CG_HAVE_PSWPIN = 1u << 8,
	UL_CG_HAVE_PSWPOUT = 1u << 9,
	UL_CG_HAVE_HIGH = 1u << 10,
};

struct ul_cgroup_stats {
	unsigned have;		  /* enum ul_cgroup_have bits; absent fields are 0 */
	uint64_t current_bytes;	  /* v2 memory.current, v1 memory.usage_in_bytes */
	uint64_t peak_bytes;	  /* v2 memory.peak (5.19+), v1 memory.max_usage_in_bytes */
	uint64_t swap_bytes;	  /* v2 memory.swap.current, v1 memory.stat total_swap */
	uint64_t limit_hits;	  /* v2 memory.events "max", v1 memory[.memsw].failcnt
				 * (which some 6.x kernels leave at 0) */
	uint64_t oom;		  /* v2 memory.events "oom" (v1 has no such count) */
	uint64_t high_events;	  /* v2 memory.events "high": throttled above memory.high */
	uint64_t oom_kill;	  /* v2 memory.events, v1 memory.oom_control (4.13+) */
	bool under_oom;		  /* v1 memory.oom_control only */
	uint64_t pgmajfault;	  /* memory.stat: v2 pgmajfault, v1 total_pgmajfault */
	uint64_t pswpin, pswpout; /* v2 memory.stat on newer kernels; never v1 */
};

/* v2: memory.max = limit + max(limit / 4, 16 MiB). */
#define UL_CGROUP_V2_HEADROOM(limit) ((limit) / 4 > (16u << 20) ? (limit) / 4 : (16u << 20))

/*
 * Create the cgroup "underload-NAME" (NAME: 1-64 of [A-Za-z0-9._-]) with a
 * memory limit of limit_bytes (UINT64_MAX: none; see above for how it is
 * applied on v1 and v2) and, when swap_limit_bytes
 * is not UINT64_MAX, at most that much swap beyond it (v2 memory.swap.max;
 * v1 memory.memsw.limit_in_bytes = limit + swap, set after the limit).
 * On v2 this may enable "+memory" in an ancestor's cgroup.subtree_control,
 * which is not undone (it only makes the controller available).
 * Returns 0, or -errno with a reason in why: -ENOTSUP no memory controller
 * (or a swap limit asked for without swap accounting), -EEXIST the cgroup
 * exists already (a previous run's: 'underload cleanup'), -EACCES, -EINVAL.
 * Nothing is left behind on failure.
 */
int ul_cgroup_create(const char *name, uint64_t limit_bytes, uint64_t swap_limit_bytes,
		     struct ul_cgroup *out, char *why, size_t len) UL_MUST_CHECK;
/* May this process create the run's cgroup (write access to the parent
 * ul_cgroup_plan() picks)?  0 (also when there is no parent to check:
 * ul_cgroup_create() then says why), or -EACCES with a reason in why.
 * Nothing is made. */
int ul_cgroup_permitted(char *why, size_t len) UL_MUST_CHECK;
/* ul_cgroup_create() in two steps, so the path can be journalled before
 * the cgroup exists: plan fills out (path, procs, version) and checks the
 * name; make creates it with the limits (-EEXIST: not ours, leave it).
 * Nothing here writes a journal (proc/changes.c does). */
int ul_cgroup_plan(const char *name, struct ul_cgroup *out, char *why, size_t len) UL_MUST_CHECK;
int ul_cgroup_make(struct ul_cgroup *cg, uint64_t limit_bytes, uint64_t swap_limit_bytes, char *why,
		   size_t len) UL_MUST_CHECK;

/* Read or write one control file of the group (NAME: e.g. "memory.oom_control");
 * bytes read / 0, or -errno.  Writes are one write(), as the kernel wants. */
ssize_t ul_cgroup_ctl_read(const struct ul_cgroup *cg, const char *name, char *buf, size_t len);
int ul_cgroup_ctl_write(const struct ul_cgroup *cg, const char *name, const char *val);

/* Read the counters.  0 if at least the current usage could be read. */
int ul_cgroup_read(const struct ul_cgroup *cg, struct ul_cgroup_stats *st) UL_MUST_CHECK;

/*
 * SIGKILL every process in the cgroup (and any child cgroup) until it is
 * empty, then rmdir it; within a deadline of 5 s.  Our own process is never
 * signalled.  Idempotent: 0 when already gone (path becomes "").  -EBUSY if
 * it could not be emptied or removed in time.
 */
int ul_cgroup_destroy(struct ul_cgroup *cg);
/* The same for a path from a journal.  Refuses (-EINVAL) a path whose last
 * component does not start with "underload-" or that is not on a cgroup
 * filesystem; 0 if it does not exist. */
int ul_cgroup_destroy_path(const char *path);

#endif
