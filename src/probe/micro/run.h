/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Supervisor side of a micro benchmark: spawn its probe child, wait for its
 * records, stop it.  The child and every helper it forks share one process
 * group, which ul_micro_job_stop() (and the supervisor on SIGINT) ends.
 */
#ifndef UL_MICRO_RUN_H
#define UL_MICRO_RUN_H

#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

struct ul_sup;
struct ul_child;
struct ul_micro_job;

enum ul_micro_wait_result {
	UL_MICRO_OK = 0,
	UL_MICRO_FAILED,       /* measure() failed (*err) or the child died (*err EPROTO) */
	UL_MICRO_TIMEOUT,      /* no result by the deadline */
	UL_MICRO_INTERRUPTED,  /* a terminating signal arrived */
	UL_MICRO_CHILD_EXITED, /* another supervised child (a load) exited: *exited */
};

/* Spawn the probe child running probe->measure(env); 0, -EINVAL for a
 * probe without measure(), or -errno. */
int ul_micro_job_start(struct ul_sup *sup, const struct ul_probe *probe,
		       const struct ul_micro_env *env, const char *cgroup_procs,
		       struct ul_micro_job **out);
/* Wait for the records until deadline (absolute monotonic ns).  After
 * UL_MICRO_CHILD_EXITED the caller may call again to keep waiting. */
enum ul_micro_wait_result ul_micro_job_wait(struct ul_sup *sup, struct ul_micro_job *job,
					    ul_nsec deadline, struct ul_micro_out *out, int *err,
					    struct ul_child **exited);
struct ul_child *ul_micro_job_child(struct ul_micro_job *job);
/* Stop the child's group if still running, reap it, free job. */
int ul_micro_job_stop(struct ul_sup *sup, struct ul_micro_job *job, ul_nsec grace_ns);

#endif
