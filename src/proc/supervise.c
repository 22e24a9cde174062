/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's one event loop: signals from a signalfd, child pidfds, a
 * timerfd deadline and one caller fd; stopping process groups; reaping orphans.
 */
#include "proc/supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* How long SIGKILL may take before a leader is declared unkillable (-ETIME). */
#define SUP_KILL_WAIT_NS (10 * UL_NS_PER_SEC)
/* ul_sup_fini(): grace for each registered child, and the overall bound. */
#define SUP_FINI_GRACE_NS (1 * UL_NS_PER_SEC)
#define SUP_FINI_DEADLINE_NS (3 * UL_NS_PER_SEC)
/* ul_sup_reap_all() with deadline 0: every wait has a deadline. */
#define SUP_REAP_DEFAULT_NS (5 * UL_NS_PER_SEC)
/*
 * Re-check interval while waiting for processes we cannot hold a pidfd on
 * (group members, orphans): SIGCHLD wakes us earlier for our own children,
 * this only bounds how late we notice a group member that is not.
 */
#define SUP_RECHECK_NS (20 * UL_NS_PER_MS)

static void sup_sigset(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGCHLD);
}

static bool sup_is_registered(const struct ul_sup *s, const struct ul_child *c)
{
	for (size_t i = 0; i < s->n_children; i++)
		if (s->children[i] == c)
			return true;
	return false;
}

static bool sup_pid_registered(const struct ul_sup *s, pid_t pid)
{
	for (size_t i = 0; i < s->n_children; i++)
		if (s->children[i]->pid == pid)
			return true;
	return false;
}

static void sup_unregister(struct ul_sup *s, struct ul_child *c)
{
	for (size_t i = 0; i < s->n_children; i++) {
		if (s->children[i] != c)
			continue;
		memmove(&s->children[i], &s->children[i + 1],
			(s->n_children - i - 1) * sizeof(s->children[0]));
		s->n_children--;
		s->children[s->n_children] = NULL;
		return;
	}
}

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
	char path[64], buf[512];
	const char *p;
	struct dirent *de;
	pid_t self = getpid();
	ssize_t len;
	DIR *d;
	int fd, n = 0, pid, ppid;
	char state;

	d = opendir("/proc");
	if (!d)
		return -errno;
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		pid = atoi(de->d_name);
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue; /* exited meanwhile */
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		/* "pid (comm) state ppid ...": comm may hold spaces and ')' */
		p = strrchr(buf, ')');
		if (!p || sscanf(p + 1, " %c %d", &state, &ppid) != 2 || ppid != self)
			continue;
		fn(s, (pid_t)pid, arg);
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
	if (!sup_pid_registered(s, pid))
		while (waitpid(pid, NULL, WNOHANG) < 0 && errno == EINTR)
			;
}

/*
 * Reap every exited child that is not registered: orphans adopted as
 * subreaper and leftover group members.  Registered children are never
 * reaped here (their status and rusage belong to their ul_child), so the
 * fast path peeks with WNOWAIT; when a registered zombie heads the kernel's
 * list it hides everything behind it, and we go through the children one
 * by one instead.
 */
static void sup_reap_orphans(struct ul_sup *s)
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
		if (sup_pid_registered(s, si.si_pid))
			break;
		sup_reap_if_orphan(s, si.si_pid, NULL);
	}
	sup_for_each_child(s, sup_reap_if_orphan, NULL);
}

/*
 * Read every queued signal: count interrupts, reap orphans on SIGCHLD.
 * Standard signals coalesce, so two SIGINTs queued before one read count
 * once.  Returns true if an interrupt arrived.
 */
static bool sup_drain_signals(struct ul_sup *s)
{
	struct signalfd_siginfo si[8];
	bool intr = false, chld = false;
	ssize_t n;

	if (s->sigfd < 0)
		return false;
	for (;;) {
		n = read(s->sigfd, si, sizeof(si));
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		for (size_t i = 0; i < (size_t)n / sizeof(si[0]); i++) {
			switch (si[i].ssi_signo) {
			case SIGCHLD:
				chld = true;
				break;
			case SIGINT:
			case SIGTERM:
			case SIGHUP:
				s->interrupts++;
				s->last_signal = (int)si[i].ssi_signo;
				intr = true;
				break;
			default:
				break;
			}
		}
	}
	if (chld)
		sup_reap_orphans(s);
	return intr;
}

/*
 * Reap a registered child; 1 reaped (recorded, pidfd closed, unregistered),
 * 0 still running (only with WNOHANG).
 */
static int sup_reap_child(struct ul_sup *s, struct ul_child *c, int flags)
{
	struct rusage ru;
	pid_t r;
	int st = 0;

	memset(&ru, 0, sizeof(ru));
	do
		r = wait4(c->pid, &st, flags, &ru);
	while (r < 0 && errno == EINTR);
	if (r == 0)
		return 0;
	if (r < 0) {
		/*
		 * ECHILD: somebody reaped it behind our back (a waitpid(-1) outside
		 * the supervisor).  The status is lost; record exit code 255 so it
		 * never passes for success.
		 */
		st = W_EXITCODE(255, 0);
		memset(&ru, 0, sizeof(ru));
	}
	c->wstatus = st;
	c->ru = ru;
	c->reaped = true;
	if (c->pidfd >= 0)
		close(c->pidfd);
	c->pidfd = -1;
	sup_unregister(s, c);
	return 1;
}

static int sup_timeout_ms(ul_nsec until)
{
	ul_nsec left = until - ul_now_ns();

	if (left <= 0)
		return 0;
	if (left > (ul_nsec)INT32_MAX * UL_NS_PER_MS)
		return INT32_MAX;
	return (int)((left + UL_NS_PER_MS - 1) / UL_NS_PER_MS);
}

/*
 * Sleep until fd (may be -1) is readable or `until` passes, servicing the
 * signalfd meanwhile (interrupts are counted, orphans reaped).  With
 * abortable, a second interrupt ends the wait early.  Returns true when fd
 * became readable.
 */
static bool sup_wait_fd(struct ul_sup *s, int fd, ul_nsec until, bool abortable)
{
	struct pollfd pfd[2] = { { .fd = s->sigfd, .events = POLLIN },
				 { .fd = fd, .events = POLLIN } };
	int r, timeout_ms;

	for (;;) {
		/* Poll at least once, so an fd that is ready already is seen. */
		timeout_ms = abortable && ul_sup_aborting(s) ? 0 : sup_timeout_ms(until);
		r = poll(pfd, 2, timeout_ms);
		if (r < 0 && errno != EINTR)
			return false;
		if (r > 0 && pfd[1].revents)
			return true;
		if (r > 0 && pfd[0].revents)
			sup_drain_signals(s);
		if ((abortable && ul_sup_aborting(s)) || ul_now_ns() >= until)
			return false;
	}
}

int ul_sup_init(struct ul_sup *s)
{
	struct sigaction sa;
	sigset_t set;
	int err;

	memset(s, 0, sizeof(*s));
	s->sigfd = -1;
	s->timerfd = -1;

	/*
	 * With SIGCHLD ignored or SA_NOCLDWAIT the kernel reaps children
	 * itself and wait4() would lose their status and rusage.  Not undone
	 * by ul_sup_fini(): there is nowhere to keep the old action.
	 */
	if (sigaction(SIGCHLD, NULL, &sa) == 0) {
		if (!(sa.sa_flags & SA_SIGINFO) && sa.sa_handler == SIG_IGN) {
			sa.sa_handler = SIG_DFL;
			sa.sa_flags = 0;
			sigaction(SIGCHLD, &sa, NULL);
		} else if (sa.sa_flags & SA_NOCLDWAIT) {
			sa.sa_flags &= ~SA_NOCLDWAIT;
			sigaction(SIGCHLD, &sa, NULL);
		}
	}

	if (prctl(PR_SET_CHILD_SUBREAPER, 1) < 0)
		return -errno;
	sup_sigset(&set);
	if (sigprocmask(SIG_BLOCK, &set, &s->old_mask) < 0) {
		err = -errno;
		goto fail_subreaper;
	}
	s->sigfd = signalfd(-1, &set, SFD_NONBLOCK | SFD_CLOEXEC);
	if (s->sigfd < 0) {
		err = -errno;
		goto fail_mask;
	}
	s->timerfd = timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
	if (s->timerfd < 0) {
		err = -errno;
		goto fail_sigfd;
	}
	return 0;

fail_sigfd:
	close(s->sigfd);
	s->sigfd = -1;
fail_mask:
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
fail_subreaper:
	prctl(PR_SET_CHILD_SUBREAPER, 0);
	return err;
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
		sup_unregister(s, c);
	}

	/*
	 * Consume what is queued so that restoring the mask does not deliver
	 * an interrupt we have already been told about; it is counted in
	 * s->interrupts for the caller's exit code.
	 */
	sup_drain_signals(s);
	if (s->sigfd >= 0)
		close(s->sigfd);
	if (s->timerfd >= 0)
		close(s->timerfd);
	s->sigfd = -1;
	s->timerfd = -1;
	sigprocmask(SIG_SETMASK, &s->old_mask, NULL);
	prctl(PR_SET_CHILD_SUBREAPER, 0);
}

/*
 * Arm the timerfd for an absolute deadline (0 or less: disarm).
 * Re-arming also clears expirations left over from an earlier wait.
 * False when there is no usable timerfd: poll()'s timeout must do.
 */
static bool sup_arm_timer(struct ul_sup *s, ul_nsec deadline)
{
	struct itimerspec its;

	memset(&its, 0, sizeof(its));
	if (deadline > 0)
		its.it_value = ul_ns_to_ts(deadline);
	return s->timerfd >= 0 && timerfd_settime(s->timerfd, TFD_TIMER_ABSTIME, &its, NULL) == 0;
}

/* Consume the timerfd's expirations (EAGAIN: already consumed). */
static void sup_drain_timer(struct ul_sup *s)
{
	uint64_t ticks;

	if (read(s->timerfd, &ticks, sizeof(ticks)) < 0) {
		/* nothing to do */
	}
}

/* The fds of one ul_sup_wait() round, in pfd: the signalfd, the timerfd,
 * the caller's fd, then the registered children's pidfds. */
struct sup_round {
	struct pollfd pfd[3 + UL_SUP_MAX_CHILDREN];
	struct ul_child *polled[UL_SUP_MAX_CHILDREN]; /* children, as polled */
	size_t nfds, first, npolled; /* first: pfd index of polled[0] */
	int fd_idx;		     /* pfd index of the caller's fd, or -1 */
};

static void sup_round_fill(struct ul_sup *s, struct sup_round *r, int fd, bool timer_ok)
{
	r->pfd[0] = (struct pollfd){ .fd = s->sigfd, .events = POLLIN };
	r->pfd[1] = (struct pollfd){ .fd = timer_ok ? s->timerfd : -1, .events = POLLIN };
	r->nfds = 2;
	r->fd_idx = -1;
	if (fd >= 0) {
		r->fd_idx = (int)r->nfds;
		r->pfd[r->nfds++] = (struct pollfd){ .fd = fd, .events = POLLIN };
	}
	r->first = r->nfds;
	r->npolled = s->n_children;
	for (size_t i = 0; i < r->npolled; i++) {
		r->polled[i] = s->children[i];
		r->pfd[r->nfds++] = (struct pollfd){ .fd = r->polled[i]->pidfd, .events = POLLIN };
	}
}

/* Reap the first polled child whose pidfd fired and has exited; it, or NULL. */
static struct ul_child *sup_round_reap(struct ul_sup *s, const struct sup_round *r)
{
	for (size_t i = 0; i < r->npolled; i++)
		if (r->pfd[r->first + i].revents && sup_reap_child(s, r->polled[i], WNOHANG) == 1)
			return r->polled[i];
	return NULL;
}

enum ul_wait_result ul_sup_wait(struct ul_sup *s, int fd, ul_nsec deadline,
				struct ul_child **exited)
{
	struct sup_round r;
	struct ul_child *c;
	bool timer_ok;
	int n;

	if (exited)
		*exited = NULL;
	/* One that came while we waited for something else (a stop, a reap). */
	if (s->interrupts > s->reported) {
		s->reported = s->interrupts;
		return UL_WAIT_INTERRUPTED;
	}
	timer_ok = sup_arm_timer(s, deadline);
	for (;;) {
		sup_round_fill(s, &r, fd, timer_ok);
		n = poll(r.pfd, r.nfds, timer_ok || deadline <= 0 ? -1 : sup_timeout_ms(deadline));
		if (n < 0) {
			if (errno == EINTR)
				continue;
			/* Cannot wait at all: make the caller give up as at a deadline. */
			return UL_WAIT_TIMEOUT;
		}
		/* Interrupts first: the user asked us to stop. */
		if (r.pfd[0].revents && sup_drain_signals(s)) {
			s->reported = s->interrupts;
			return UL_WAIT_INTERRUPTED;
		}
		/* Then exits, which say more than a readable pipe or the clock. */
		c = sup_round_reap(s, &r);
		if (c) {
			if (exited)
				*exited = c;
			return UL_WAIT_CHILD_EXITED;
		}
		/* POLLHUP/POLLERR/POLLNVAL too: the caller's read() tells which. */
		if (r.fd_idx >= 0 && r.pfd[r.fd_idx].revents)
			return UL_WAIT_READY;
		if (timer_ok && r.pfd[1].revents)
			sup_drain_timer(s);
		if (deadline > 0 && ul_now_ns() >= deadline)
			return UL_WAIT_TIMEOUT;
	}
}

bool ul_sup_check_signals(struct ul_sup *s)
{
	sup_drain_signals(s);
	return ul_sup_interrupted(s);
}

static void sup_interrupt_set(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
}

int ul_sup_block_signals(sigset_t *old)
{
	sigset_t set;

	sup_interrupt_set(&set);
	return sigprocmask(SIG_BLOCK, &set, old) < 0 ? -errno : 0;
}

int ul_sup_take_signals(void)
{
	const struct timespec zero = { 0, 0 };
	sigset_t set;
	int n = 0;

	sup_interrupt_set(&set);
	/* Standard signals coalesce: at most one of each is pending. */
	while (sigtimedwait(&set, NULL, &zero) > 0)
		n++;
	return n;
}

int ul_sup_unblock_signals(const sigset_t *old)
{
	int n = ul_sup_take_signals();

	sigprocmask(SIG_SETMASK, old, NULL);
	return n;
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
		sup_reap_orphans(s);
		if (killpg(pgid, 0) < 0)
			return;
		if (ul_now_ns() >= until)
			return;
		next = ul_now_ns() + SUP_RECHECK_NS;
		sup_wait_fd(s, -1, next < until ? next : until, false);
	}
}

int ul_sup_stop(struct ul_sup *s, struct ul_child *c, ul_nsec grace_ns)
{
	bool exited = false;
	ul_nsec until;

	if (c->reaped)
		return 0;
	if (!sup_is_registered(s, c))
		return -EINVAL;
	/* stress-ng's guard: never kill(-1)/init, never our own group. */
	if (c->pid <= 1 || c->pid == getpid() || c->pid == getpgrp())
		return -EINVAL;

	sup_signal_group(c, SIGTERM);
	/* A stopped process acts on SIGTERM only once continued. */
	sup_signal_group(c, SIGCONT);
	/* With no grace this still notices a leader that had exited already. */
	exited = sup_wait_fd(s, c->pidfd, ul_now_ns() + (grace_ns > 0 ? grace_ns : 0), true);
	if (!exited)
		c->needed_kill = true;

	/*
	 * SIGKILL the group even when the leader went quietly: workers it left
	 * behind must not outlive the load.  Done before reaping the leader,
	 * whose zombie keeps the group id from being reused.
	 */
	sup_signal_group(c, SIGKILL);
	until = ul_now_ns() + SUP_KILL_WAIT_NS;
	if (!exited && !sup_wait_fd(s, c->pidfd, until, false))
		return -ETIME;
	if (sup_reap_child(s, c, 0) != 1)
		return -ETIME;

	sup_reap_group(s, c->pid, until);
	return 0;
}

static void sup_kill_stray(struct ul_sup *s, pid_t pid, void *arg)
{
	int *n = arg;

	if (sup_pid_registered(s, pid))
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
		if (ul_sup_stop(s, c, grace) != 0 || sup_is_registered(s, c))
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

		sup_reap_orphans(s);
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
		sup_wait_fd(s, -1, next < deadline ? next : deadline, false);
	}
}
