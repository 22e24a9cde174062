/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The terminating signals (see signals.h). */
#include "core/compat.h"
#include "core/signals.h"

#include <string.h>
#include <unistd.h>

/* The terminating signals; the real-time ones are a range below. */
static const int term_signals[] = {
	SIGHUP,	   SIGINT,  SIGQUIT, SIGTERM, SIGUSR1, SIGUSR2, SIGALRM,
	SIGVTALRM, SIGPROF, SIGXCPU, SIGXFSZ, SIGPWR,  SIGIO,	SIGSTKFLT,
};

/*
 * SIGXFSZ outside the regions that block it: the one our own write past
 * RLIMIT_FSIZE raised is dropped (that write fails with EFBIG and says
 * so); one sent to us ends us by its default action, as before.
 */
static void on_xfsz(int sig, siginfo_t *si, void *uctx)
{
	(void)uctx;
	if (ul_signal_self_inflicted(sig, si->si_code, si->si_pid))
		return;
	signal(sig, SIG_DFL);
	raise(sig); /* delivered once this handler returns */
}

/* SIGHUP when it was ignored as we started (nohup): it stays ignored,
 * never blocked and read as a request to stop.  SIGINT and SIGQUIT, which
 * a shell ignores in its background jobs, stay ours: kill -INT of a run's
 * pid still ends it. */
static sigset_t ignored_at_start;

void ul_signals_init(void)
{
	struct sigaction sa;

	sigemptyset(&ignored_at_start);
	if (!sigaction(SIGHUP, NULL, &sa) && sa.sa_handler == SIG_IGN)
		sigaddset(&ignored_at_start, SIGHUP);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_IGN;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGPIPE, &sa, NULL);
	sa.sa_sigaction = on_xfsz;
	sa.sa_flags = SA_SIGINFO | SA_RESTART;
	sigaction(SIGXFSZ, &sa, NULL);
}

bool ul_term_signal(int sig)
{
	/* SIGRTMIN is above the ones glibc keeps for itself. */
	if (sig >= SIGRTMIN && sig <= SIGRTMAX)
		return true;
	for (size_t i = 0; i < UL_ARRAY_SIZE(term_signals); i++)
		if (term_signals[i] == sig)
			return !sigismember(&ignored_at_start, sig);
	return false;
}

void ul_term_sigset(sigset_t *set)
{
	sigemptyset(set);
	for (size_t i = 0; i < UL_ARRAY_SIZE(term_signals); i++)
		if (!sigismember(&ignored_at_start, term_signals[i]))
			sigaddset(set, term_signals[i]);
	for (int sig = SIGRTMIN; sig <= SIGRTMAX; sig++)
		sigaddset(set, sig);
}

bool ul_signal_self_inflicted(int sig, int code, pid_t sender)
{
	/* The kernel sends it as from ourselves: SI_USER with our own pid. */
	return sig == SIGXFSZ && code == SI_USER && sender == getpid();
}
