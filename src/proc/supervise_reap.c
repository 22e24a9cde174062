/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's ending of processes (contracts: supervise.h and
 * supervise_impl.h): listing our direct children, reaping orphans that
 * came back to us as subreaper, stopping a child's process group
 * (SIGTERM, grace, SIGKILL, the group's stragglers) and the final reap of
 * everything that is left.
 */
#include "core/procstat.h"
#include "proc/supervise_impl.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long SIGKILL may take before a leader is declared unkillable (-ETIME). */
#define SUP_KILL_WAIT_NS (10 * UL_NS_PER_SEC)
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
 * Call fn(s, pid) for every direct child of this process, registered or
 * not; returns how many there were, or -errno if they cannot be listed.
 * /proc/self/task/TID/children needs CONFIG_PROC_CHILDREN; without it we
 * scan /proc/PID/stat for our pid as parent (slower, same answer).
 */
typedef void (*sup_child_fn)(struct ul_sup *s, pid_t pid, void *arg);

static int sup_children_from_tasks(struct ul_sup *s, sup_child_fn fn, void *arg)
{
	char path[64];
	struct dirent *de;
	DIR *d;
	FILE *f;
	int pid, n = 0, files = 0;

	d = opendir("/proc/self/task");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%d/children", atoi(de->d_name));
		f = fopen(path, "re");
		if (!f)
			continue; /* a thread that just ended, or no such file at all */
		files++;
		while (fscanf(f, "%d", &pid) == 1) {
			fn(s, pid, arg);
			n++;
		}
		fclose(f);
	}
	closedir(d);
	return files ? n : -ENOENT;
}

static int sup_children_from_stat(struct ul_sup *s, sup_child_fn fn, void *arg)
{
	struct ul_procstat ps;
	struct dirent *de;
	pid_t self = getpid();
	DIR *d;
	int n = 0;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		/* Gone meanwhile, or not ours. */
		if (ul_procstat_read((pid_t)atoi(de->d_name), &ps) || ps.ppid != self)
			continue;
		fn(s, ps.pid, arg);
		n++;
	}
	closedir(d);
	return n;
}

static int sup_for_each_child(struct ul_sup *s, sup_child_fn fn, void *arg)
{
	int n = sup_children_from_tasks(s, fn, arg);

	return n >= 0 ? n : sup_children_from_stat(s, fn, arg);
}

static void sup_reap_if_orphan(struct ul_sup *s, pid_t pid, void *arg)
{
	(void)arg;
	if (!ul_sup_pid_registered(s, pid))
		while (waitpid(pid, NULL, WNOHANG) < 0 && errno == EINTR)
			;
}

/*
 * The fast path peeks with WNOWAIT; when a registered zombie heads the
 * kernel's list it hides everything behind it, and we go through the
 * children one by one instead.
 */
void ul_sup_reap_orphans(struct ul_sup *s)
{
	siginfo_t si;

	for (;;) {
		memset(&si, 0, sizeof(si));
		if (waitid(P_ALL, 0, &si, WEXITED | WNOHANG | WNOWAIT) < 0) {
			if (errno == EINTR)
				continue;
			return; /* ECHILD: no children at all */
		}
		if (si.si_pid == 0)
			return; /* nobody has exited */
		if (ul_sup_pid_registered(s, si.si_pid))
			break;
		sup_reap_if_orphan(s, si.si_pid, NULL);
	}
	sup_for_each_child(s, sup_reap_if_orphan, NULL);
}

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
		if (sup_for_each_child(s, sup_kill_stray, &strays) < 0) {
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
