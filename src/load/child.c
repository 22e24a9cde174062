/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A load's own processes: the leader's life (prepare, ready, wait for go,
 * run), the workers it forks, and the helpers the loads use.  The
 * supervisor side (check, spawn, stop, reap) is load/load.c.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/clock.h"
#include "core/parse.h"
#include "load/internal.h"
#include "load/load.h"
#include "proc/barrier.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

int ul_load_fail(struct ul_load_ctx *ctx, int err)
{
	int none = 0;

	if (err && ctx->shared)
		atomic_compare_exchange_strong(&ctx->shared->failed_errno, &none, err);
	return err;
}

void ul_load_fmt_bytes(char *buf, size_t len, uint64_t bytes)
{
	static const char suffix[] = "KMGT";
	double v = (double)bytes;
	int i = -1;

	if (bytes < UL_MiB || bytes % UL_MiB == 0) {
		ul_fmt_size(buf, len, bytes);
		return;
	}
	while (v >= 1024.0 && i < 3) {
		v /= 1024.0;
		i++;
	}
	snprintf(buf, len, "%.1f%c", v, suffix[i]);
}

int ul_load_write_all(int fd, const void *buf, size_t len)
{
	return -ul_write_full(fd, buf, len);
}

/*
 * Workers: plain fork() children of the leader, so they share its process
 * group and die with it (SIGTERM to the group, or PDEATHSIG if the leader
 * is SIGKILLed alone).  A worker's exit status carries its errno.
 */
/*
 * The leader's wait while its workers work: until SIGTERM (the stop:
 * *stopping) or a worker's end, which is the load's failure (its exit
 * status as the errno, EPIPE when killed or exiting 0).  Reaped workers
 * are zeroed in pids[] and counted out of *live.  Returns the error or 0.
 */
static int watch_workers(const sigset_t *waitset, pid_t *pids, int n, int *live, bool *stopping)
{
	int err = 0;

	while (!err && !*stopping) {
		int st, sig = sigwaitinfo(waitset, NULL);
		pid_t pid;

		if (sig < 0) {
			if (errno == EINTR)
				continue;
			return errno;
		}
		if (sig == SIGTERM) {
			*stopping = true;
			/* Test seam: a signal to the supervisor while it stops a load (t0004). */
			ul_test_hold("UL_TEST_LOAD_STOP_HOLD");
			break;
		}
		while (!err && (pid = waitpid(-1, &st, WNOHANG)) != 0) {
			if (pid < 0) {
				if (errno == EINTR)
					continue;
				err = errno == ECHILD ? EPIPE : errno;
				break;
			}
			for (int i = 0; i < n; i++) {
				if (pids[i] != pid)
					continue;
				pids[i] = 0;
				(*live)--;
				if (WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM)
					*stopping = true; /* the group's stop reached it first */
				else if (WIFEXITED(st) && WEXITSTATUS(st))
					err = WEXITSTATUS(st);
				else
					err = EPIPE; /* killed, or exited 0 which it must not */
			}
		}
	}
	return err;
}

int ul_load_run_workers(struct ul_load_ctx *ctx, void *state, int n,
			int (*fn)(struct ul_load_ctx *ctx, void *state, int index))
{
	sigset_t waitset, old;
	pid_t *pids;
	int err = 0, live = 0;
	bool stopping = false;

	if (n <= 0 || !fn)
		return ul_load_fail(ctx, EINVAL);
	pids = calloc((size_t)n, sizeof(*pids));
	if (!pids)
		return ul_load_fail(ctx, ENOMEM);

	/*
	 * SIGTERM (the supervisor's stop) and SIGCHLD are taken synchronously,
	 * so that on a stop the leader kills and reaps its workers before it
	 * dies: their CPU time then reaches the leader's rusage (the load's
	 * LCPU%) instead of vanishing with orphans the supervisor reaps.
	 */
	sigemptyset(&waitset);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGCHLD);
	if (sigprocmask(SIG_BLOCK, &waitset, &old) < 0) {
		free(pids);
		return ul_load_fail(ctx, errno);
	}

	for (int i = 0; i < n; i++) {
		/* Orphaned workers must not outlive a SIGKILLed leader. */
		pid_t pid = ul_fork_child(&old, 0, EPIPE);

		if (pid < 0) {
			err = errno;
			goto out;
		}
		if (pid == 0) {
			int r = fn(ctx, state, i);

			if (r <= 0 || r > 255)
				r = EPIPE; /* fn must not return; still a failure */
			ul_load_fail(ctx, r);
			_exit(r);
		}
		pids[i] = pid;
		live++;
	}

	/* Work happens in the workers; wake only when one of them ends or we are stopped. */
	err = watch_workers(&waitset, pids, n, &live, &stopping);
out:
	/* Only unreaped children are signalled: their pids cannot be reused. */
	for (int i = 0; i < n; i++)
		if (pids[i] > 0)
			kill(pids[i], SIGKILL);
	for (int i = 0; i < n && live > 0; i++) {
		if (pids[i] <= 0)
			continue;
		while (waitpid(pids[i], NULL, 0) < 0 && errno == EINTR)
			;
		live--;
	}
	free(pids);
	if (stopping && !err) {
		ul_load_die_of_stop();
		sigprocmask(SIG_SETMASK, &old, NULL);
		return EINTR; /* not reached: SIGTERM's default action ends us */
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ul_load_fail(ctx, err ? err : EPIPE);
}

/* The calling process's CPU, own and reaped children, in ns; false on error. */
static bool read_own_cpu(int64_t *user_ns, int64_t *sys_ns)
{
	struct rusage self, children;

	if (getrusage(RUSAGE_SELF, &self) || getrusage(RUSAGE_CHILDREN, &children))
		return false;
	*user_ns = ul_tv_to_ns(&self.ru_utime) + ul_tv_to_ns(&children.ru_utime);
	*sys_ns = ul_tv_to_ns(&self.ru_stime) + ul_tv_to_ns(&children.ru_stime);
	return true;
}

/*
 * In the leader at "go": its CPU so far (own and reaped children, as the
 * wait4() rusage at the end will count them) is set-up, not load work.
 * Recorded here with getrusage()'s precision; /proc's clock ticks would
 * round a few ms of set-up into the load's LCPU% of a short job.
 */
static void record_setup_cpu(struct ul_load_shared *shared)
{
	int64_t user, sys;

	if (!read_own_cpu(&user, &sys))
		return;
	shared->setup_user_ns = user;
	shared->setup_sys_ns = sys;
	shared->setup_valid = true;
}

/* Set in the leader at "go", for note_stop_cpu(). */
static struct ul_load_shared *leader_shared;
static pid_t leader_pid;

/* In the leader, as it takes the stop: its CPU into the shared page.  A
 * no-op in any other process (workers inherit the leader's handler).
 * Async-signal-safe. */
static void note_stop_cpu(void)
{
	int saved = errno;
	int64_t user, sys;

	if (leader_shared && getpid() == leader_pid && read_own_cpu(&user, &sys)) {
		leader_shared->stop_user_ns = user;
		leader_shared->stop_sys_ns = sys;
		leader_shared->stop_valid = true;
	}
	errno = saved;
}

/*
 * For loads that leave SIGTERM to its default action (noload's pause(),
 * the CPU loops): note the CPU, then die of the signal as before
 * (SA_RESETHAND restores the default; SA_NODEFER lets raise() deliver it).
 */
static void stop_handler(int sig)
{
	note_stop_cpu();
	raise(sig);
}

void ul_load_die_of_stop(void)
{
	note_stop_cpu();
	signal(SIGTERM, SIG_DFL);
	raise(SIGTERM);
}

/* From "go": the leader's SIGTERM notes its CPU before it kills it. */
static void note_stop_cpu_on_sigterm(struct ul_load_shared *shared)
{
	struct sigaction sa = { .sa_handler = stop_handler, .sa_flags = SA_RESETHAND | SA_NODEFER };

	leader_shared = shared;
	leader_pid = getpid();
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
}

/*
 * The leader child: prepare, report ready, wait for go, run.  Its return
 * value is the exit status: 0 is never returned, because a load only ends
 * on failure (or by a signal from the supervisor).
 */
int ul_load_leader_main(const struct ul_load *load, struct ul_load_ctx *ctx,
			struct ul_barrier *barrier)
{
	void *state = NULL;
	int err;

	if (load->prepare) {
		err = load->prepare(ctx, &state);
		if (err) {
			ul_load_fail(ctx, err < 0 ? -err : err);
			return 1;
		}
	}
	if (ul_barrier_child_ready(barrier) || ul_barrier_child_wait_go(barrier))
		return 1; /* the supervisor went away */
	/* Workers forked by run() must not hold the barrier's pipes. */
	ul_barrier_close(barrier);
	record_setup_cpu(ctx->shared);
	note_stop_cpu_on_sigterm(ctx->shared);

	err = load->run(ctx, state);
	ul_load_fail(ctx, err > 0 ? err : EPROTO);
	return 1;
}
