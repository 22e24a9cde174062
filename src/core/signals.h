/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one table of how underload treats signals sent to it, for every
 * command that has something to undo when it is told to stop (a run's
 * loads, swap file and cgroup; an output file's temporary).
 *
 * Terminating signals: every catchable signal whose default action ends
 * the process and that comes from outside (HUP INT QUIT TERM USR1 USR2
 * ALRM VTALRM PROF XCPU XFSZ PWR IO STKFLT and the real-time signals).
 * While a run measures or tears down, each ends it like SIGTERM: what it
 * made is undone, exit 130.  Elsewhere (before a run, after its teardown,
 * other commands) each keeps its default action, exit 128 + N, once a
 * command's own temporary files are removed (cmd/outfile.c).
 * Not among them: the faults (SEGV BUS FPE ILL TRAP SYS ABRT), which are
 * this program's own bugs and stay fatal, and KILL and STOP, which cannot
 * be caught (after a kill -9, `underload cleanup` undoes what a run left).
 *
 * SIGPIPE is ignored from the start (ul_signals_init()): a closed pipe or
 * socket is EPIPE, an error the writer reports, never a silent death.
 * A SIGXFSZ raised by our own write past RLIMIT_FSIZE is never an
 * interrupt nor a death (ul_signal_self_inflicted()): the write fails with
 * EFBIG and says so.  Outside the regions that block the terminating
 * signals, ul_signals_init()'s handler drops that one and lets any other
 * SIGXFSZ end us by its default action, like the other signals there.
 *
 * Usage: block ul_term_sigset() and read it from a signalfd or
 * sigtimedwait() (the supervisor does), or install a handler on each
 * signal s for which ul_term_signal(s) is true (1 <= s < NSIG).
 */
#ifndef UL_SIGNALS_H
#define UL_SIGNALS_H

#include "core/compat.h"

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* At process start, before anything else: SIGPIPE ignored, SIGXFSZ
 * handled as above; SIGHUP, when whoever started us ignored it (nohup),
 * is no longer one of ours: it stays ignored. */
void ul_signals_init(void);

/* Is sig one of the terminating signals above (and not ignored at start)? */
bool ul_term_signal(int sig);

/* Every terminating signal but those ignored at start (empties *set first). */
void ul_term_sigset(sigset_t *set);

/*
 * A delivered signal (its number, si_code and si_pid) that our own write
 * raised, not somebody asking us to stop: SIGXFSZ sent by the kernel to
 * this process when a write passed RLIMIT_FSIZE (that write failed with
 * EFBIG).  Async-signal-safe.
 */
bool ul_signal_self_inflicted(int sig, int code, pid_t sender);

#endif
