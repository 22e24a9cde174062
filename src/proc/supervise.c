/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor's one event loop and its setup: signals from a
 * signalfd, child pidfds, a timerfd deadline and one caller fd.  It stands
 * on the registry of children (supervise_children.c); stopping process
 * groups and the final reap (supervise_reap.c) stand on it.
 */
#include "proc/supervise_impl.h"
#include "core/signals.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/signalfd.h>
#include <sys/timerfd.h>
#include <sys/wait.h>
#include <unistd.h>

/* The signalfd's signals: the terminating ones (core/signals.h) and CHLD. */
static void sup_sigset(sigset_t *set)
{
	ul_term_sigset(set);
	sigaddset(set, SIGCHLD);
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
			int sig = (int)si[i].ssi_signo;

			if (sig == SIGCHLD) {
				chld = true;
			} else if (ul_term_signal(sig) &&
				   !ul_signal_self_inflicted(sig, si[i].ssi_code,
							     (pid_t)si[i].ssi_pid)) {
				s->interrupts++;
				s->last_signal = sig;
				intr = true;
			}
		}
	}
	if (chld)
		ul_sup_reap_orphans(s);
	return intr;
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

bool ul_sup_wait_fd(struct ul_sup *s, int fd, ul_nsec until, bool abortable)
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
	size_t nfds, first, npolled;		      /* first: pfd index of polled[0] */
	int fd_idx;				      /* pfd index of the caller's fd, or -1 */
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
		if (r->pfd[r->first + i].revents &&
		    ul_sup_reap_child(s, r->polled[i], WNOHANG) == 1)
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

int ul_sup_block_signals(sigset_t *old)
{
	sigset_t set;

	ul_term_sigset(&set);
	return sigprocmask(SIG_BLOCK, &set, old) < 0 ? -errno : 0;
}

int ul_sup_take_signals(void)
{
	const struct timespec zero = { 0, 0 };
	sigset_t set;
	siginfo_t si;
	int n = 0;

	ul_term_sigset(&set);
	/* Standard signals coalesce: at most one of each is pending. */
	while (sigtimedwait(&set, &si, &zero) > 0)
		if (!ul_signal_self_inflicted(si.si_signo, si.si_code, si.si_pid))
			n++;
	return n;
}

int ul_sup_unblock_signals(const sigset_t *old)
{
	int n = ul_sup_take_signals();

	sigprocmask(SIG_SETMASK, old, NULL);
	return n;
}
