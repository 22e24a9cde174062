/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guard of a v1 memory cgroup whose OOM killer is disabled
 * (ul_cgroup.oom_guarded).  There a charge that reclaim cannot satisfy
 * does not kill: the faulting task sleeps in the kernel
 * (mem_cgroup_oom_synchronize, "under_oom 1") until the kernel wakes the
 * group's waiters, which it does only when memory is uncharged (freed)
 * in the group or a limit is raised.  Swapping out does not uncharge that
 * way, so a lone load waiting at the limit would sleep for ever although
 * reclaim would now succeed.  The guard, a process outside the group,
 * polls under_oom and:
 *  - while tasks wait, wakes them every UL_CGROUP_GUARD_NUDGE_NS by raising
 *    the limit one page and restoring it: they retry the charge, reclaim
 *    again (the writeback that blocked it has usually finished) and go on;
 *  - when tasks have waited UL_CGROUP_GUARD_GRACE_NS without a break (two
 *    polls in a row seeing nobody waiting), the
 *    group is truly out of memory + swap: it enables the OOM killer, which
 *    kills as a v1 group without the guard would (and is reported as such),
 *    and disables it again once nobody waits.
 * ul_cgroup_guard_step() is one poll; the caller runs it every
 * UL_CGROUP_GUARD_POLL_NS from a process outside the group.
 */
#ifndef UL_CGROUP_GUARD_H
#define UL_CGROUP_GUARD_H

#include "core/compat.h"
#include "core/clock.h"
#include "proc/cgroup/cgroup.h"

#define UL_CGROUP_GUARD_POLL_NS (20 * UL_NS_PER_MS)
#define UL_CGROUP_GUARD_NUDGE_NS (100 * UL_NS_PER_MS)
#define UL_CGROUP_GUARD_GRACE_NS (10 * UL_NS_PER_SEC)

/* Counts since ul_cgroup_guard_init(); only ever grow. */
struct ul_cgroup_guard_stats {
	uint64_t stalls;	   /* episodes with tasks waiting at the limit */
	uint64_t stall_ns;	   /* their total length (as polled) */
	uint64_t longest_stall_ns; /* the longest of them */
	uint64_t nudges;	   /* wake-ups of waiting tasks */
	uint64_t rescues;	   /* times the OOM killer had to be enabled */
};

struct ul_cgroup_guard {
	struct ul_cgroup_guard_stats st;
	ul_nsec stalled_since_ns; /* 0: nobody waits */
	ul_nsec clear_since_ns;	  /* first of the polls that saw nobody waiting */
	ul_nsec last_nudge_ns;
	bool restore_pending; /* a raised limit still to be put back */
	bool killer_on;	      /* the OOM killer is enabled by a rescue */
};

void ul_cgroup_guard_init(struct ul_cgroup_guard *g);
/* One poll at time now_ns.  0, or -errno when the group could not be read
 * (gone: -ENOENT).  Never blocks beyond the kernel's own reclaim when it
 * restores a limit. */
int ul_cgroup_guard_step(const struct ul_cgroup *cg, struct ul_cgroup_guard *g, ul_nsec now_ns);

#endif
