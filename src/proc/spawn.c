/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ul_spawn(): the one way underload creates a child process, in its own
 * process group, tied to the supervisor's life, with a clean signal and fd state.
 */
#include "core/file.h"
#include "core/log.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef SYS_pidfd_open
#define SYS_pidfd_open 434 /* the same on every architecture */
#endif

/*
 * Exit codes of a child that failed before running its function or
 * program.  127 is the shell's "command not found"; 126 (the shell's
 * "cannot execute") covers every other setup step, as cgroup.procs does in
 * the header's contract.  1 means the supervisor was already gone.
 */
#define SPAWN_EXIT_ORPHANED 1
#define SPAWN_EXIT_SETUP 126
#define SPAWN_EXIT_EXEC 127

/* Decimal without snprintf(), which may take locks a forked child cannot. */
static void spawn_itoa(int v, char *buf, size_t len)
{
	char tmp[16];
	unsigned int u = v < 0 ? 0u - (unsigned int)v : (unsigned int)v;
	size_t n = 0, i = 0;

	do
		tmp[n++] = (char)('0' + u % 10);
	while ((u /= 10) && n < sizeof(tmp));
	if (v < 0 && i + 1 < len)
		buf[i++] = '-';
	while (n && i + 1 < len)
		buf[i++] = tmp[--n];
	buf[i] = '\0';
}

static void spawn_close_range(unsigned int lo, unsigned int hi)
{
	struct rlimit rl;
	unsigned int max;

	if (lo > hi || close_range(lo, hi, 0) == 0)
		return;
	/* Old kernel: close one by one up to the fd limit. */
	max = 65536;
	if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && rl.rlim_cur < max)
		max = (unsigned int)rl.rlim_cur;
	for (unsigned int fd = lo; fd <= hi && fd < max; fd++)
		close((int)fd);
}

/* Close every fd >= 3 except keep[] (sorted ascending). */
static void spawn_close_strays(const int *keep, size_t n)
{
	unsigned int lo = 3;

	for (size_t i = 0; i < n; i++) {
		unsigned int k = (unsigned int)keep[i];

		if (k < lo)
			continue; /* 0-2, or a duplicate */
		if (k > lo)
			spawn_close_range(lo, k - 1);
		lo = k + 1;
	}
	spawn_close_range(lo, ~0u);
}

/* Every signal back to its default action (KILL, STOP and glibc's
 * internal signals refuse; that is fine). */
static void default_dispositions(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	for (int sig = 1; sig < NSIG; sig++)
		sigaction(sig, &sa, NULL);
}

pid_t ul_fork_child(const sigset_t *mask, unsigned flags, int fail_status)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	if (flags & UL_FORK_DEFAULT_SIGNALS)
		default_dispositions();
	/* If the parent died before the prctl() we were already reparented
	 * and the signal will never come: check. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(fail_status);
	if (mask)
		sigprocmask(SIG_SETMASK, mask, NULL);
	return 0;
}

/* The child side of ul_spawn(); never returns. */
static _Noreturn void spawn_child(const struct ul_spawn_opts *o, const int *keep, size_t nkeep,
				  const char *comm, pid_t sup_pid)
{
	sigset_t none;
	char buf[16];
	int fd;

	default_dispositions();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* The parent does the same; whichever runs first wins the race. */
	setpgid(0, 0);

	/*
	 * Die with the supervisor.  If it died before the prctl() we were
	 * already reparented and the signal will never come: check.
	 */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0)
		_exit(SPAWN_EXIT_SETUP);
	if (getppid() != sup_pid)
		_exit(SPAWN_EXIT_ORPHANED);

	/* Before anything else, so all the child's usage is charged there. */
	if (o->cgroup_procs && ul_write_file(o->cgroup_procs, "0") < 0)
		_exit(SPAWN_EXIT_SETUP);

	if (o->set_oom_score_adj) {
		spawn_itoa(o->oom_score_adj, buf, sizeof(buf));
		if (ul_write_file("/proc/self/oom_score_adj", buf) < 0)
			_exit(SPAWN_EXIT_SETUP);
	}

	if (o->stdout_to_null) {
		fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
		if (fd < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0)
			_exit(SPAWN_EXIT_SETUP);
		if (fd > STDERR_FILENO)
			close(fd);
	}

	spawn_close_strays(keep, nkeep);

	prctl(PR_SET_NAME, comm);

	if (o->fn)
		_exit(o->fn(o->arg));

	/* Kept fds must survive the exec, whatever flags they were made with. */
	for (size_t i = 0; i < nkeep; i++)
		fcntl(keep[i], F_SETFD, 0);
	execv(o->argv[0], o->argv);
	_exit(SPAWN_EXIT_EXEC);
}

/* The arguments ul_spawn() refuses before touching anything: 0 or -errno. */
static int spawn_check(const struct ul_sup *s, const struct ul_spawn_opts *o,
		       const struct ul_child *child)
{
	if (!s || !o || !child || s->sigfd < 0)
		return -EINVAL;
	if (!o->fn && (!o->argv || !o->argv[0]))
		return -EINVAL;
	if (o->n_keep_fds > UL_SPAWN_MAX_FDS)
		return -EINVAL;
	if (s->n_children >= UL_SUP_MAX_CHILDREN)
		return -EAGAIN;
	return 0;
}

/*
 * keep[] = o->keep_fds plus the report pipe's write end (o->report_pipe
 * already made), sorted ascending as spawn_close_strays() walks the gaps
 * in order.  Returns how many, or -EBADF for an fd that is not open.
 */
static int spawn_sort_keep(const struct ul_spawn_opts *o, int *keep)
{
	size_t n = o->n_keep_fds + (o->report_pipe ? 1 : 0);

	for (size_t i = 0; i < n; i++) {
		int fd = i < o->n_keep_fds ? o->keep_fds[i] : o->report_pipe[1];
		size_t j = i;

		if (fd < 0 || fcntl(fd, F_GETFD) < 0)
			return -EBADF;
		while (j > 0 && keep[j - 1] > fd) { /* insertion sort */
			keep[j] = keep[j - 1];
			j--;
		}
		keep[j] = fd;
	}
	return (int)n;
}

/* Close both ends of p (an int[2]) that are open and mark them -1. */
static void spawn_close_pipe(int *p)
{
	for (int i = 0; i < 2; i++) {
		if (p[i] >= 0)
			close(p[i]);
		p[i] = -1;
	}
}

/* o->report_pipe as the header describes it, before the fork: 0 or -errno. */
static int spawn_open_report(int *p)
{
	int err;

	p[0] = p[1] = -1;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	/* Non-blocking: a partial report never blocks the supervisor. */
	if (fcntl(p[0], F_SETFL, O_NONBLOCK) == 0)
		return 0;
	err = -errno;
	spawn_close_pipe(p);
	return err;
}

/*
 * Parent side, just after fork() with every signal blocked: make the
 * child's process group exist, take its pidfd and register it.  On error
 * nothing is left running (the child is killed and reaped); -errno.
 */
static int spawn_register(struct ul_sup *s, struct ul_child *child, pid_t pid)
{
	int pidfd, err;

	/*
	 * Make the group exist before we return, so ul_sup_stop() can always
	 * signal it.  EACCES (the child already exec'd) and ESRCH (it already
	 * exited) mean the child did it itself or no longer needs it.
	 */
	setpgid(pid, pid);

	pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
	if (pidfd < 0) {
		err = -errno;
		/* Nothing left running: the child may already have forked. */
		killpg(pid, SIGKILL);
		kill(pid, SIGKILL);
		while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
			;
		return err;
	}
	child->pid = pid;
	child->pidfd = pidfd;
	s->children[s->n_children++] = child;
	return 0;
}

int ul_spawn(struct ul_sup *s, const struct ul_spawn_opts *o, struct ul_child *child)
{
	int keep[UL_SPAWN_MAX_FDS + 1]; /* + the report pipe's write end */
	char comm[16];			/* TASK_COMM_LEN: longer names are truncated */
	const char *name;
	sigset_t all, old;
	pid_t sup_pid, pid;
	int nkeep, err;

	err = spawn_check(s, o, child);
	if (err)
		return err;
	/* Everything that may allocate or fail is done before the fork. */
	if (o->report_pipe && (err = spawn_open_report(o->report_pipe)))
		return err;
	nkeep = spawn_sort_keep(o, keep);
	if (nkeep < 0) {
		err = nkeep;
		goto fail;
	}
	name = o->name && o->name[0] ? o->name : "child";
	snprintf(comm, sizeof(comm), "ul:%s", name);

	memset(child, 0, sizeof(*child));
	child->pid = -1;
	child->pidfd = -1;
	snprintf(child->name, sizeof(child->name), "%s", name);

	/*
	 * No signal may run a handler in the child before its dispositions
	 * are reset, nor reach the parent between fork and registration.
	 */
	sigfillset(&all);
	if (sigprocmask(SIG_SETMASK, &all, &old) < 0) {
		err = -errno;
		goto fail;
	}
	sup_pid = getpid();
	pid = fork();
	if (pid == 0)
		spawn_child(o, keep, (size_t)nkeep, comm, sup_pid);
	err = pid < 0 ? -errno : spawn_register(s, child, pid);
	sigprocmask(SIG_SETMASK, &old, NULL);
	if (err)
		goto fail;
	if (o->report_pipe) {
		/* Only the child holds it now, so EOF means the child is gone. */
		close(o->report_pipe[1]);
		o->report_pipe[1] = -1;
	}
	return 0;
fail:
	if (o->report_pipe)
		spawn_close_pipe(o->report_pipe);
	return err;
}

void ul_wstatus_describe(int wstatus, char *buf, size_t len)
{
	if (WIFEXITED(wstatus))
		snprintf(buf, len, "exit status %d", WEXITSTATUS(wstatus));
	else if (WIFSIGNALED(wstatus))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(wstatus),
			 strsignal(WTERMSIG(wstatus)));
	else
		snprintf(buf, len, "wait status 0x%x", (unsigned)wstatus);
}

void ul_child_describe(const struct ul_child *c, char *buf, size_t len)
{
	if (c->reaped)
		ul_wstatus_describe(c->wstatus, buf, len);
	else
		snprintf(buf, len, "status unknown");
}

int ul_spawn_wait_ready(struct ul_sup *s, struct ul_child *child, int fd, ul_nsec deadline,
			unsigned char *byte)
{
	for (;;) {
		struct ul_child *exited = NULL;
		ssize_t n;

		switch (ul_sup_wait(s, fd, deadline, &exited)) {
		case UL_WAIT_READY:
			n = read(fd, byte, 1);
			if (n == 1)
				return 0;
			if (n < 0 && (errno == EINTR || errno == EAGAIN))
				continue;
			return n < 0 ? -errno : -ECHILD; /* EOF: it is gone or going */
		case UL_WAIT_CHILD_EXITED:
			if (exited != child)
				continue;
			/* It may have reported (a setup error byte) just before it
			 * exited: take what is in the pipe, without blocking. */
			if (poll(&(struct pollfd){ .fd = fd, .events = POLLIN }, 1, 0) == 1 &&
			    read(fd, byte, 1) == 1)
				return 0;
			return -ECHILD;
		case UL_WAIT_TIMEOUT:
			return -ETIMEDOUT;
		case UL_WAIT_INTERRUPTED:
		default:
			return -EINTR;
		}
	}
}

int ul_spawn_not_ready(struct ul_sup *s, struct ul_child *child, int rc, const char *what,
		       ul_nsec timeout_ns, char *why, size_t len)
{
	char how[96];

	if (rc == -ETIMEDOUT) {
		ul_whyf(why, len, "%s was not ready within %lld ms", what,
			(long long)(timeout_ns / UL_NS_PER_MS));
	} else if (rc == -EINTR) {
		ul_whyf(why, len, "%s: interrupted while starting", what);
	} else {
		/* It died during set-up; reap it to say how. */
		if (!child->reaped)
			(void)ul_sup_stop(s, child, UL_NS_PER_SEC / 2);
		ul_child_describe(child, how, sizeof(how));
		ul_whyf(why, len, "%s ended before it was ready (%s)", what, how);
	}
	return rc;
}
