/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's cpuset (`run --cpus LIST`): the measured scene runs on those
 * CPUs only, so a 1-CPU run needs no reboot into a UP kernel.
 *
 * Where the cpuset controller lives decides how (cpuset.c):
 *  - cgroup v1 (its own hierarchy, fstype "cgroup" with "cpuset"): a group
 *    "underload-NAME" below our own cpuset cgroup, with cpuset.cpus = LIST
 *    and cpuset.mems copied from the parent (v1 refuses tasks without);
 *  - cgroup v2 with the cpuset controller: the same group in the unified
 *    hierarchy, or, when the run's memory cgroup is a v2 group (a process
 *    is in one v2 group only), cpuset.cpus is set in that group itself
 *    (and the engine pins the supervisor by affinity, so its children that
 *    stay outside the group, the sampler, keep to the CPUs too).
 * The supervisor moves itself into a group of its own making (its children,
 * loads and probes, inherit it; those that join the v1 memory group keep
 * it, the memory hierarchy being another one) and back out before the group
 * is removed.  The group is a `cgroup` change of proc/changes.h, journalled
 * before it exists, so `underload cleanup` removes it after a kill -9.
 * Without any cpuset controller the caller pins by sched_setaffinity(),
 * which children inherit but may change: ul_cpus_pin().
 */
#ifndef UL_CPUSET_H
#define UL_CPUSET_H

#include "core/compat.h"
#include "proc/cgroup/cgroup.h"

#include <limits.h>
#include <sched.h>

struct ul_cpuset {
	char path[PATH_MAX]; /* the group the scene runs in; "" when none */
	char home[PATH_MAX]; /* cgroup.procs of our cgroup before we entered; "" when not in */
	int version;	     /* 1 or 2 */
	bool shared;	     /* v2: path is the run's memory cgroup, not a group of ours */
};

/*
 * Parse a CPU list ("0", "0-2,5") into set and its canonical spelling
 * ("0-2,5") into canon.  Every CPU must be one this process may run on.
 * Returns how many CPUs, or -EINVAL with a reason in why.
 */
int ul_cpus_parse(const char *list, cpu_set_t *set, char *canon, size_t len, char *why,
		  size_t wlen) UL_MUST_CHECK;

/*
 * Plan the group "underload-NAME" (mem: the run's memory cgroup, or NULL):
 * fills path, version and shared.  0; -ENOENT when no cpuset controller is
 * mounted (the caller then pins by affinity); another -errno with a reason.
 */
int ul_cpuset_plan(const char *name, const struct ul_cgroup *mem, struct ul_cpuset *cs, char *why,
		   size_t len) UL_MUST_CHECK;
/* Make the planned group (shared: enable cpuset in the memory group) with
 * cpuset.cpus = cpus.  0, or -errno with a reason; nothing left on failure
 * (-EEXIST: a group not ours, left alone). */
int ul_cpuset_make(struct ul_cpuset *cs, const char *cpus, char *why, size_t len) UL_MUST_CHECK;
/* Move this process into the group (not for a shared one, which the
 * scene's processes join by themselves).  0, or -errno with a reason. */
int ul_cpuset_enter(struct ul_cpuset *cs, char *why, size_t len) UL_MUST_CHECK;
/* Move this process back where it was; 0 also when it never entered. */
int ul_cpuset_leave(struct ul_cpuset *cs);

/* The fallback: pin this process (and so the children it starts after) to
 * set, saving its affinity in saved; 0 or -errno. */
int ul_cpus_pin(const cpu_set_t *set, cpu_set_t *saved) UL_MUST_CHECK;

#endif
