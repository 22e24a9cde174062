/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running a load, the supervisor side: check, spawn behind the start
 * barrier, stop and reap the whole group.  What runs in the load's own
 * processes is load/child.c.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "load/internal.h"
#include "load/load.h"
#include "core/procstat.h"
#include "proc/barrier.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Grace given to a load that failed to start before it is SIGKILLed. */
#define START_FAIL_GRACE_NS (1 * UL_NS_PER_SEC)
/* How long ul_load_stop() sweeps stragglers of a load that died by itself. */
#define GROUP_REAP_NS (5 * UL_NS_PER_SEC)

/*
 * One started load.  `child` is registered with the supervisor from
 * ul_spawn() until it is reaped, so this struct must not move or be freed
 * in between: it is heap-allocated and only freed once the leader is
 * reaped.  `ctx` is the copy the child runs with (check() may have
 * resolved "auto" options in it).
 */
struct ul_running_load {
	struct ul_child child;
	const struct ul_load *load;
	struct ul_load_ctx ctx;
	struct ul_load_shared *shared; /* MAP_SHARED, also ctx.shared */
	struct ul_barrier barrier;
	ul_nsec go_ns;		       /* when "go" was released */
	int64_t go_user_ns, go_sys_ns; /* the leader's CPU (own + reaped) at go: set-up */
};

/*
 * CPU used so far by process `pid` and the children it reaped (utime +
 * cutime, stime + cstime from /proc/PID/stat, clock ticks).  Zeros when it
 * cannot be read: the set-up time is then counted as load, never the reverse.
 */
static void read_cpu_ns(pid_t pid, int64_t *user_ns, int64_t *sys_ns)
{
	long hz = sysconf(_SC_CLK_TCK);
	struct ul_procstat ps;

	*user_ns = 0;
	*sys_ns = 0;
	if (hz <= 0 || ul_procstat_read(pid, &ps))
		return;
	*user_ns = (int64_t)ps.user_ticks * (UL_NS_PER_SEC / hz);
	*sys_ns = (int64_t)ps.sys_ticks * (UL_NS_PER_SEC / hz);
}

/* Undo ul_load_start()'s allocations.  Only once the leader is reaped. */
static void rl_free(struct ul_running_load *rl)
{
	if (rl->shared)
		munmap(rl->shared, sizeof(*rl->shared));
	ul_barrier_close(&rl->barrier);
	free(rl);
}

/*
 * A start failed after the spawn: stop the leader's group and free rl.  If
 * even SIGKILL could not get the leader reaped, its record stays registered
 * with the supervisor, so rl is deliberately leaked rather than freed under it.
 */
static void abandon_start(struct ul_sup *sup, struct ul_running_load *rl, ul_nsec grace_ns)
{
	if (!rl->child.reaped && ul_sup_stop(sup, &rl->child, grace_ns) < 0) {
		ul_barrier_close(&rl->barrier);
		return;
	}
	rl_free(rl);
}

/* The leader exited (or closed its end) without reporting ready: reap it
 * and say why.  Frees rl unless it could not be reaped. */
static int start_died(struct ul_sup *sup, struct ul_running_load *rl, char *why, size_t len)
{
	const struct ul_load *load = rl->load;
	char how[64];
	int r;

	if (!rl->child.reaped && ul_sup_stop(sup, &rl->child, START_FAIL_GRACE_NS) < 0) {
		snprintf(why, len, "load '%s' failed to start and could not be reaped", load->name);
		ul_barrier_close(&rl->barrier);
		return -ETIME; /* rl stays allocated: still registered */
	}
	ul_child_describe(&rl->child, how, sizeof(how));
	r = atomic_load(&rl->shared->failed_errno);
	if (r)
		snprintf(why, len, "load '%s' exited before it was ready (%s): %s", load->name, how,
			 strerror(r));
	else
		snprintf(why, len, "load '%s' exited before it was ready (%s)", load->name, how);
	rl_free(rl);
	return r ? -r : -ECHILD;
}

/* The leader's entry from ul_spawn(). */
static int load_child_main(void *arg)
{
	struct ul_running_load *rl = arg;

	return ul_load_leader_main(rl->load, &rl->ctx, &rl->barrier);
}

/*
 * The running load's record before the spawn: check() (which may resolve
 * "auto" options in the copy of ctx), the shared counters, the barrier.
 * NULL with the reason in why and *err set.
 */
static struct ul_running_load *rl_new(const struct ul_load *load, const struct ul_load_ctx *ctx,
				      char *why, size_t len, int *err)
{
	struct ul_running_load *rl;
	char reason[256] = "";
	int r;

	rl = calloc(1, sizeof(*rl));
	if (!rl) {
		snprintf(why, len, "load '%s': " UL_OOM_TEXT, load->name);
		*err = -ENOMEM;
		return NULL;
	}
	rl->load = load;
	rl->ctx = *ctx;
	rl->ctx.shared = NULL; /* check() runs without counters */
	rl->child.pidfd = -1;
	rl->barrier = (struct ul_barrier){ { -1, -1 }, { -1, -1 } };

	if (load->check) {
		r = load->check(&rl->ctx, reason, sizeof(reason));
		if (r) {
			snprintf(why, len, "load '%s': %s", load->name, reason);
			free(rl);
			*err = r < 0 ? r : -EINVAL;
			return NULL;
		}
	}

	rl->shared = mmap(NULL, sizeof(*rl->shared), PROT_READ | PROT_WRITE,
			  MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (rl->shared == MAP_FAILED) {
		r = -errno;
		rl->shared = NULL;
		snprintf(why, len, "load '%s': cannot map its counters: %s", load->name,
			 strerror(-r));
		free(rl);
		*err = r;
		return NULL;
	}
	atomic_init(&rl->shared->units, 0);
	atomic_init(&rl->shared->failed_errno, 0);
	rl->ctx.shared = rl->shared;

	r = ul_barrier_init(&rl->barrier);
	if (r) {
		snprintf(why, len, "load '%s': cannot create its start barrier: %s", load->name,
			 strerror(-r));
		rl_free(rl);
		*err = r;
		return NULL;
	}

	return rl;
}

int ul_load_start(struct ul_sup *sup, const struct ul_load *load, const struct ul_load_ctx *ctx,
		  int64_t ready_timeout_ns, struct ul_running_load **out, char *why, size_t len)
{
	struct ul_running_load *rl;
	struct ul_spawn_opts o;
	char reason[256] = "", buf[64];
	unsigned char byte;
	int r;

	*out = NULL;
	if (len)
		why[0] = '\0';
	if (!load || !load->run || !ctx || ready_timeout_ns <= 0) {
		snprintf(why, len, "load '%s': invalid start request", load ? load->name : "?");
		return -EINVAL;
	}
	if (load->supported) {
		r = load->supported(reason, sizeof(reason));
		if (r) {
			snprintf(why, len, "load '%s' cannot run here: %s", load->name, reason);
			return r < 0 ? r : -ENOTSUP;
		}
	}

	rl = rl_new(load, ctx, why, len, &r);
	if (!rl)
		return r;
	memset(&o, 0, sizeof(o));
	o.name = load->name;
	o.fn = load_child_main;
	o.arg = rl;
	/* All four ends: the child's barrier calls close the supervisor's
	 * ends themselves, which must not hit fds prepare() reused. */
	o.keep_fds[0] = rl->barrier.ready[0];
	o.keep_fds[1] = rl->barrier.ready[1];
	o.keep_fds[2] = rl->barrier.go[0];
	o.keep_fds[3] = rl->barrier.go[1];
	o.n_keep_fds = 4;
	o.set_oom_score_adj = load->flags & UL_LOAD_MEMORY;
	o.oom_score_adj = 1000;
	o.stdout_to_null = true;
	o.cgroup_procs = ctx->cgroup_procs; /* the run's memory cgroup, if any */

	r = ul_spawn(sup, &o, &rl->child);
	if (r) {
		snprintf(why, len, "cannot start load '%s': %s", load->name, strerror(-r));
		rl_free(rl);
		return r;
	}
	ul_barrier_parent_after_fork(&rl->barrier);

	r = ul_spawn_wait_ready(sup, &rl->child, rl->barrier.ready[0],
				ul_now_ns() + ready_timeout_ns, &byte);
	if (r == -ETIMEDOUT) {
		ul_fmt_duration(buf, sizeof(buf), ready_timeout_ns);
		snprintf(why, len, "load '%s' did not become ready within %s", load->name, buf);
		abandon_start(sup, rl, START_FAIL_GRACE_NS);
		return -ETIMEDOUT;
	}
	if (r == -EINTR) {
		snprintf(why, len, "interrupted while starting load '%s'", load->name);
		abandon_start(sup, rl, ul_sup_aborting(sup) ? 0 : START_FAIL_GRACE_NS);
		return -EINTR;
	}
	if (r)
		return start_died(sup, rl, why, len);
	/* The leader is blocked on "go": its CPU so far is set-up, not load. */
	read_cpu_ns(rl->child.pid, &rl->go_user_ns, &rl->go_sys_ns);
	rl->go_ns = ul_now_ns();
	ul_barrier_release(&rl->barrier);
	ul_barrier_close(&rl->barrier);
	*out = rl;
	return 0;
}

struct ul_child *ul_load_child(struct ul_running_load *rl)
{
	return &rl->child;
}

uint64_t ul_load_units(const struct ul_running_load *rl)
{
	return atomic_load_explicit(&rl->shared->units, memory_order_relaxed);
}

int ul_load_failed_errno(const struct ul_running_load *rl)
{
	return atomic_load(&rl->shared->failed_errno);
}

/* Has the leader exited on its own (a zombie not yet noticed)?  Does not reap. */
static bool leader_exited(const struct ul_child *c)
{
	siginfo_t si;

	memset(&si, 0, sizeof(si));
	if (waitid(P_PID, (id_t)c->pid, &si, WEXITED | WNOHANG | WNOWAIT) < 0)
		return false;
	return si.si_pid == c->pid;
}

/*
 * The leader died before the stop (and was reaped by ul_sup_wait()), so
 * ul_sup_stop() will not sweep its group: do it here.  Workers die with
 * the leader (PDEATHSIG) and short-lived children (spawnload's) exit on
 * their own; as orphans they come back to the subreaping supervisor.
 * Only a group that still has members is signalled, and a group id stays
 * attached to its members, so this cannot hit a reused id.
 */
static void sweep_group(pid_t pgid)
{
	ul_nsec deadline = ul_now_ns() + GROUP_REAP_NS;
	const struct timespec tick = { 0, 1000 * 1000 };

	if (pgid <= 1 || pgid == getpgrp())
		return;
	for (;;) {
		if (killpg(pgid, 0) < 0 && errno == ESRCH)
			return;
		killpg(pgid, SIGKILL);
		/* waitpid(-pgid) reaps only members of that group. */
		while (waitpid(-pgid, NULL, WNOHANG) > 0)
			;
		if (ul_now_ns() >= deadline)
			return;
		nanosleep(&tick, NULL);
	}
}

/*
 * Returns 0 when the load ran until stopped, or when its death was already
 * reported to the caller (ul_sup_wait() returned UL_WAIT_CHILD_EXITED for
 * it, so ul_load_child(rl)->reaped is set).  Returns -ECHILD when the
 * leader had exited unnoticed before the stop: a death the caller has not
 * seen yet, which must flag the cell.  -ETIME when the leader could not be
 * reaped; then rl is not freed, as the supervisor still holds its record.
 */
int ul_load_stop(struct ul_sup *sup, struct ul_running_load *rl, int64_t grace_ns, uint64_t *units,
		 bool *needed_kill)
{
	return ul_load_stop_usage(sup, rl, grace_ns, units, needed_kill, NULL);
}

int ul_load_stop_usage(struct ul_sup *sup, struct ul_running_load *rl, int64_t grace_ns,
		       uint64_t *units, bool *needed_kill, struct ul_load_usage *usage)
{
	bool noticed = rl->child.reaped;
	bool unnoticed = !noticed && leader_exited(&rl->child);
	int r = 0;

	/* ul_sup_stop() signals the whole group and waits until it is empty. */
	if (!noticed)
		r = ul_sup_stop(sup, &rl->child, grace_ns);
	else
		sweep_group(rl->child.pid);
	if (units)
		*units = atomic_load(&rl->shared->units);
	if (needed_kill)
		*needed_kill = rl->child.needed_kill;
	if (usage) {
		memset(usage, 0, sizeof(*usage));
		usage->valid = rl->child.reaped;
		if (usage->valid) {
			bool precise = rl->shared->setup_valid, at_stop = rl->shared->stop_valid;

			usage->user_ns = (at_stop ? rl->shared->stop_user_ns
						  : ul_tv_to_ns(&rl->child.ru.ru_utime)) -
					 (precise ? rl->shared->setup_user_ns : rl->go_user_ns);
			usage->sys_ns = (at_stop ? rl->shared->stop_sys_ns
						 : ul_tv_to_ns(&rl->child.ru.ru_stime)) -
					(precise ? rl->shared->setup_sys_ns : rl->go_sys_ns);
			/* Tick-rounded set-up vs exact rusage: never below zero. */
			usage->user_ns = usage->user_ns > 0 ? usage->user_ns : 0;
			usage->sys_ns = usage->sys_ns > 0 ? usage->sys_ns : 0;
			usage->ran_ns = ul_now_ns() - rl->go_ns;
		}
	}
	if (r < 0)
		return r;
	rl_free(rl);
	return unnoticed ? -ECHILD : 0;
}
