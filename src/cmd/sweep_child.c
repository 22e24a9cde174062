/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sweep's children and the signals that stop it (contract: sweep.h).
 * Every terminating signal of core/signals.h is a request to stop, as it
 * is for `run`: the sweep writes its settings back and exits 130, where
 * SIGUSR1 or SIGALRM by their default action would have ended it with the
 * settings changed.  The request is forwarded to the running child once,
 * as SIGINT (the child runs in its own process group, so a terminal's ^C
 * reaches it only through us).
 *
 * No request may fall between fork() and the wait: the terminating
 * signals (and SIGCHLD) stay blocked from before fork() and are taken only
 * inside sigsuspend(), after each look at the flag.  The child sets their
 * handlers back to the default before it unblocks them, so a request
 * forwarded before its exec() ends it, and exec() keeps nothing of ours.
 */
#include "core/compat.h"
#include "cmd/sweep.h"
#include "core/log.h"
#include "core/signals.h"

#include <errno.h>
#include <signal.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	/* Our own write past RLIMIT_FSIZE fails with EFBIG and says so. */
	if (!ul_signal_self_inflicted(sig, si->si_code, si->si_pid))
		stop_signal = sig;
}

/* A SIGCHLD handler, so that sigsuspend() returns when a child ends. */
static void on_child(int sig)
{
	(void)sig;
}

void sweep_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	ul_term_sigset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (ul_term_signal(sig))
			sigaction(sig, &sa, NULL);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_child;
	sa.sa_flags = SA_NOCLDSTOP;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGCHLD, &sa, NULL);
}

int sweep_stopped(void)
{
	return stop_signal;
}

/* In the child: our handlers back to the default, the mask back, exec. */
static void exec_child(const char *exe, char **argv, const sigset_t *mask)
{
	struct sigaction dfl;

	memset(&dfl, 0, sizeof(dfl));
	dfl.sa_handler = SIG_DFL;
	sigemptyset(&dfl.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		if (ul_term_signal(sig) || sig == SIGCHLD)
			sigaction(sig, &dfl, NULL);
	setpgid(0, 0);
	if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1)
		_exit(126);
	sigprocmask(SIG_SETMASK, mask, NULL);
	execv(exe, argv);
	_exit(127);
}

int sweep_run_child(const char *exe, char **argv)
{
	sigset_t block, old, wait_mask;
	bool forwarded = false;
	int status, ret = -1;
	pid_t pid;

	ul_term_sigset(&block);
	sigaddset(&block, SIGCHLD);
	sigprocmask(SIG_BLOCK, &block, &old);
	/* What sigsuspend() waits with: every one of them let in. */
	wait_mask = old;
	for (int sig = 1; sig < NSIG; sig++)
		if (sigismember(&block, sig))
			sigdelset(&wait_mask, sig);
	pid = fork();
	if (pid < 0) {
		ul_error_errno(errno, "sweep: cannot fork");
		goto out;
	}
	if (pid == 0)
		exec_child(exe, argv, &old);
	setpgid(pid, pid);
	for (;;) {
		pid_t r;

		if (stop_signal && !forwarded) {
			kill(pid, SIGINT);
			forwarded = true;
		}
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			ret = status;
			break;
		}
		if (r < 0 && errno != EINTR) {
			ul_error_errno(errno, "sweep: cannot wait for the run");
			break;
		}
		if (r == 0)
			sigsuspend(&wait_mask); /* returns once a handler ran */
	}
out:
	sigprocmask(SIG_SETMASK, &old, NULL);
	return ret;
}
