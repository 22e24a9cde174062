/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The supervisor: the one place that creates, watches, stops and reaps
 * child processes.  Nothing here knows about measurement.
 *
 * Model: the supervising process is a child subreaper
 * (PR_SET_CHILD_SUBREAPER), so orphans of loads come back to it and are
 * reaped.  The terminating signals (core/signals.h) and CHLD are blocked
 * and read from a signalfd; the supervisor waits in one poll() over that
 * signalfd, one pidfd per live child, a timerfd armed for the caller's
 * deadline, and at most one caller fd (a ready pipe or a probe's result
 * pipe).  Signal handlers do no work:
 * there are none.
 *
 * Every child is spawned by ul_spawn(): own process group, PR_SET_PDEATHSIG
 * SIGKILL (checked against a parent that died before the prctl), default
 * signal dispositions and an empty mask, stray fds closed, optional
 * oom_score_adj, a process name "ul:NAME", then either a function whose
 * return value is passed to _exit() or an execv() of an argv vector.
 */
#ifndef UL_SUPERVISE_H
#define UL_SUPERVISE_H

#include "core/compat.h"
#include "core/clock.h"

#include <signal.h>
#include <sys/resource.h>
#include <sys/types.h>

#define UL_SUP_MAX_CHILDREN 600 /* fsbench clients (at most 512) + loads + monitors */
#define UL_SPAWN_MAX_FDS 8

struct ul_child {
	pid_t pid; /* also the process group id */
	int pidfd; /* -1 once reaped */
	char name[32];
	bool reaped;	  /* wait status below is valid */
	int wstatus;	  /* as from wait4() */
	bool needed_kill; /* SIGTERM was not enough within the grace period */
	struct rusage ru; /* of the child and its reaped descendants */
};

struct ul_sup {
	int sigfd, timerfd;
	sigset_t old_mask;				/* restored by ul_sup_fini() */
	struct ul_child *children[UL_SUP_MAX_CHILDREN]; /* live, registered children */
	size_t n_children;
	int interrupts;	 /* terminating signals received so far */
	int last_signal; /* the most recent of those */
	int reported;	 /* interrupts already returned by ul_sup_wait() */
};

typedef int (*ul_child_fn)(void *arg);

struct ul_spawn_opts {
	const char *name; /* short, for prctl(PR_SET_NAME, "ul:NAME") */
	ul_child_fn fn;	  /* run in the child, or NULL to exec argv */
	void *arg;
	char *const *argv;		/* argv[0] is the path; used when fn is NULL */
	int keep_fds[UL_SPAWN_MAX_FDS]; /* fds the child keeps open besides 0-2 */
	size_t n_keep_fds;
	int oom_score_adj; /* applied when set_oom_score_adj */
	bool set_oom_score_adj;
	bool stdout_to_null;	  /* redirect stdout and stderr to /dev/null */
	const char *cgroup_procs; /* if set, the child writes "0" to this
					  * cgroup.procs file before anything else
					  * and exits 126 if it cannot */
	int *report_pipe;	  /* if set, an int[2] that ul_spawn() fills
					  * with a new pipe before it forks (so the
					  * child finds it in its copy of memory):
					  * [0] the caller's read end (O_NONBLOCK,
					  * close-on-exec); [1] the child's write end
					  * (kept like keep_fds), closed and -1 in the
					  * caller once forked, so EOF on [0] means the
					  * child is gone.  Both -1 when ul_spawn()
					  * fails. */
};

enum ul_wait_result {
	UL_WAIT_READY = 0,    /* the caller's fd is readable (or hung up) */
	UL_WAIT_TIMEOUT,      /* the deadline passed */
	UL_WAIT_INTERRUPTED,  /* a terminating signal arrived (see interrupts) */
	UL_WAIT_CHILD_EXITED, /* a registered child exited; it is reaped and unregistered */
};

/* Become subreaper, block the signals, open signalfd and timerfd. */
int ul_sup_init(struct ul_sup *s) UL_MUST_CHECK;
/* Stop (TERM, 1 s grace, KILL) any child still registered, reap all, close
 * fds and restore the signal mask. */
void ul_sup_fini(struct ul_sup *s);

/* Fork a child as described above and register it.  `child` must stay valid
 * until the child is reaped.  Returns 0 or -errno (nothing left running). */
int ul_spawn(struct ul_sup *s, const struct ul_spawn_opts *o, struct ul_child *child) UL_MUST_CHECK;

/*
 * Wait for the first of: `fd` readable (fd may be -1), a registered child
 * exiting, a terminating signal, or `deadline` (absolute CLOCK_MONOTONIC ns;
 * 0 means none).  A child that exits is reaped (rusage recorded) and
 * returned in *exited (may be NULL if the caller does not care).  SIGCHLD
 * for unregistered orphans is handled internally by reaping them.
 *
 * An interrupt is never swallowed: one that arrived while the supervisor
 * waited for something else (stopping a child, reaping) is returned as
 * UL_WAIT_INTERRUPTED by the next call, before anything else.  Callers that
 * may have consumed that return without acting on it (a grace-period loop)
 * still see ul_sup_interrupted().
 */
enum ul_wait_result ul_sup_wait(struct ul_sup *s, int fd, ul_nsec deadline,
				struct ul_child **exited);

/*
 * Stop a child's whole process group: SIGTERM, wait up to grace_ns, SIGKILL
 * the group if the leader is still alive, then reap the leader.  Never
 * signals pid <= 1 or our own group.  Returns 0, or -ETIME if even SIGKILL
 * did not let the leader be reaped within 10 s (then it stays registered).
 */
int ul_sup_stop(struct ul_sup *s, struct ul_child *c, ul_nsec grace_ns);

/*
 * fork() for the helpers of a supervised child (a load's workers, a
 * program it execs, mkswap): the child gets PR_SET_PDEATHSIG SIGKILL with
 * its parent re-checked, so it never outlives the process that forked it,
 * then the signal mask *mask (NULL: unchanged); with UL_FORK_DEFAULT_SIGNALS
 * every disposition is reset first.  It stays in the parent's process
 * group (stopped with it).  Returns as fork() does; a child whose set-up
 * fails exits with fail_status.  ul_spawn() is for the supervisor's own
 * children.
 */
enum ul_fork_flags {
	UL_FORK_DEFAULT_SIGNALS = 1 << 0,
};
pid_t ul_fork_child(const sigset_t *mask, unsigned flags, int fail_status);

/*
 * After ul_spawn(): wait until `child` reports ready by writing one byte
 * on `fd` (non-blocking or not), or ends, or `deadline` (monotonic ns)
 * passes.  Other children's exits are recorded in their own records for
 * their owners.  0 with the byte in *byte; -ECHILD when the child closed
 * fd or exited first (the caller stops and describes it); -ETIMEDOUT;
 * -EINTR when a terminating signal arrived; another -errno from read().
 */
int ul_spawn_wait_ready(struct ul_sup *s, struct ul_child *child, int fd, ul_nsec deadline,
			unsigned char *byte) UL_MUST_CHECK;

/*
 * After ul_spawn_wait_ready() failed with rc: say why in `why`, naming the
 * child `what` (e.g. "probe 'lsdir'"): "WHAT was not ready within N ms"
 * for -ETIMEDOUT (timeout_ns: the wait's length), "WHAT: interrupted while
 * starting" for -EINTR, otherwise "WHAT ended before it was ready (exit
 * status 1)" once the child is stopped (half a second's grace) and reaped
 * so that its end can be told.  Returns rc; the caller still stops a child
 * that is not reaped and frees what it owns.
 */
int ul_spawn_not_ready(struct ul_sup *s, struct ul_child *child, int rc, const char *what,
		       ul_nsec timeout_ns, char *why, size_t len);

/* How a process ended, for messages: "exit status 1", "killed by signal 9
 * (Killed)", or "wait status 0x..." for anything else. */
void ul_wstatus_describe(int wstatus, char *buf, size_t len);
/* The same for a child record; "status unknown" when it was not reaped. */
void ul_child_describe(const struct ul_child *c, char *buf, size_t len);

/* Reap every remaining descendant (orphans included) until ECHILD or the
 * deadline; registered children are stopped first. */
void ul_sup_reap_all(struct ul_sup *s, ul_nsec deadline);

/*
 * Read the signals queued so far without waiting (for long work done
 * outside ul_sup_wait(): generating files, swapoff); true once any
 * interrupt has arrived.
 */
bool ul_sup_check_signals(struct ul_sup *s);

/*
 * Keep the terminating signals blocked across a region that outlives the
 * supervisor (a run's teardown after ul_sup_fini()), so that a signal
 * arriving there is not acted on by its default disposition (which would
 * kill us half-way through undoing system changes).  ul_sup_unblock_signals()
 * consumes those that arrived meanwhile, restores *old and returns how many
 * interrupts it consumed (the caller counts them like any other).
 */
int ul_sup_block_signals(sigset_t *old) UL_MUST_CHECK;
/* Consume pending terminating signals while they are blocked; how many there were. */
int ul_sup_take_signals(void);
int ul_sup_unblock_signals(const sigset_t *old);

/* True once an interrupt arrived (sticky: the run must stop). */
static inline bool ul_sup_interrupted(const struct ul_sup *s)
{
	return s->interrupts > 0;
}

/* True once a second interrupt arrived: callers skip grace periods. */
static inline bool ul_sup_aborting(const struct ul_sup *s)
{
	return s->interrupts >= 2;
}

#endif
