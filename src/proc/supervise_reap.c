/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's ending of processes and of itself (contracts:
 * supervise.h and supervise_impl.h): stopping a child's process group
 * (SIGTERM, grace, SIGKILL, the group's stragglers), the final reap of
 * everything that is left, and ul_sup_fini().  The top of proc/supervise:
 * it waits through the event loop (supervise.c) and reaps through the
 * registry (supervise_children.c); neither calls back up here.
 */
#include "proc/supervise_impl.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long SIGKILL may take before a leader is declared unkillable (-ETIME). */
#define SUP_KILL_WAIT_NS (10 * UL_NS_PER_SEC)
/* ul_sup_fini(): the overall bound of its final reap. */
#define SUP_FINI_DEADLINE_NS (3 * UL_NS_PER_SEC)
/* ul_sup_reap_all(): grace for each registered child. */
#define SUP_FINI_GRACE_NS (1 * UL_NS_PER_SEC)
/* ul_sup_reap_all() with deadline 0: every wait has a deadline. */
#define SUP_REAP_DEFAULT_NS (5 * UL_NS_PER_SEC)
/*
 * Re-check interval while waiting for processes we cannot hold a pidfd on
 * (group members, orphans): SIGCHLD wakes us earlier for our own children,
 * this only bounds how late we notice a group member that is not.
 */
#define SUP_RECHECK_NS (20 * UL_NS_PER_MS)

/*
 * Signal the child's process group.  Falls back to the leader alone when
 * the group is gone (the child may have moved itself with setsid()).  Safe
 * from pid reuse: the leader is our unreaped child, so its pid, and with
 * it the group id, stays ours until we reap it.
 */
static void sup_signal_group(const struct ul_child *c, int sig)
{
	if (killpg(c->pid, sig) < 0 && errno == ESRCH)
		kill(c->pid, sig);
}

/*
 * After the leader is reaped, wait (bounded) until every member of its
 * group that got SIGKILL has gone, reaping those that came back to us as
 * orphans.  Signal 0 only probes, so a reused group id cannot be harmed.
 * ESRCH means the group is empty; EPERM (a member that exec'd something
 * setuid) means waiting cannot help either.
 */
static void sup_reap_group(struct ul_sup *s, pid_t pgid, ul_nsec until)
{
	ul_nsec next;

	for (;;) {
		ul_sup_reap_orphans(s);
		if (killpg(pgid, 0) < 0)
			return;
		if (ul_now_ns() >= until)
			return;
		next = ul_now_ns() + SUP_RECHECK_NS;
		ul_sup_wait_fd(s, -1, next < until ? next : until, false);
	}
}

int ul_sup_stop(struct ul_sup *s, struct ul_child *c, ul_nsec grace_ns)
{
	bool exited = false;
	ul_nsec until;

	if (c->reaped)
		return 0;
	if (!ul_sup_registered(s, c))
		return -EINVAL;
	/* stress-ng's guard: never kill(-1)/init, never our own group. */
	if (c->pid <= 1 || c->pid == getpid() || c->pid == getpgrp())
		return -EINVAL;

	sup_signal_group(c, SIGTERM);
	/* A stopped process acts on SIGTERM only once continued. */
	sup_signal_group(c, SIGCONT);
	/* With no grace this still notices a leader that had exited already. */
	exited = ul_sup_wait_fd(s, c->pidfd, ul_now_ns() + (grace_ns > 0 ? grace_ns : 0), true);
	if (!exited)
		c->needed_kill = true;

	/*
	 * SIGKILL the group even when the leader went quietly: workers it left
	 * behind must not outlive the load.  Done before reaping the leader,
	 * whose zombie keeps the group id from being reused.
	 */
	sup_signal_group(c, SIGKILL);
	until = ul_now_ns() + SUP_KILL_WAIT_NS;
	if (!exited && !ul_sup_wait_fd(s, c->pidfd, until, false))
		return -ETIME;
	if (ul_sup_reap_child(s, c, 0) != 1)
		return -ETIME;

	sup_reap_group(s, c->pid, until);
	return 0;
}

static void sup_kill_stray(struct ul_sup *s, pid_t pid, void *arg)
{
	int *n = arg;

	if (ul_sup_pid_registered(s, pid))
		return;
	/* Our unreaped child: the pid cannot have been reused. */
	kill(pid, SIGKILL);
	(*n)++;
}

void ul_sup_reap_all(struct ul_sup *s, ul_nsec deadline)
{
	size_t i = 0;

	if (deadline <= 0)
		deadline = ul_now_ns() + SUP_REAP_DEFAULT_NS;

	/* Registered children first, each with what is left of the time. */
	while (i < s->n_children) {
		struct ul_child *c = s->children[i];
		ul_nsec grace = (deadline - ul_now_ns()) / 2;

		if (grace > SUP_FINI_GRACE_NS)
			grace = SUP_FINI_GRACE_NS;
		if (grace < 0 || ul_sup_aborting(s))
			grace = 0;
		if (ul_sup_stop(s, c, grace) != 0 || ul_sup_registered(s, c))
			i++; /* unkillable: leave it registered, go on */
	}

	/*
	 * Then everything else: orphans that left their group, descendants of
	 * those (they come back to us as each generation dies).  SIGKILL,
	 * reap, repeat until no unregistered child is left or time is up.
	 */
	for (;;) {
		ul_nsec next;
		int strays = 0;

		ul_sup_reap_orphans(s);
		if (ul_sup_for_each_child(s, sup_kill_stray, &strays) < 0) {
			siginfo_t si;

			/* Cannot list children: all we can do is wait for exits. */
			memset(&si, 0, sizeof(si));
			if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0 &&
			    errno == ECHILD)
				return;
			strays = 1;
		}
		if (strays == 0 || ul_now_ns() >= deadline)
			return;
		next = ul_now_ns() + SUP_RECHECK_NS;
		ul_sup_wait_fd(s, -1, next < deadline ? next : deadline, false);
	}
}

void ul_sup_fini(struct ul_sup *s)
{
	if (s->sigfd < 0 && s->timerfd < 0)
		return; /* never initialised, or already finished */

	ul_sup_reap_all(s, ul_now_ns() + SUP_FINI_DEADLINE_NS);

	/* Children that even SIGKILL did not end: give up on them. */
	while (s->n_children) {
		struct ul_child *c = s->children[0];

		if (c->pidfd >= 0)
			close(c->pidfd);
		c->pidfd = -1;
		ul_sup_unregister(s, c);
	}

	/*
	 * Consume what is queued so that restoring the mask does not deliver
	 * an interrupt we have already been told about; it is counted in
	 * s->interrupts for the caller's exit code.
	 */
	(void)ul_sup_check_signals(s);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->timerfd >= 0)
		close(s->timerfd);
	s->sigfd = -1;
	s->timerfd = -1;
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}
