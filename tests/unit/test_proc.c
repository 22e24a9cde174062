/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/proc: spawn, the supervisor's wait/stop/reap (orphans,
 * signals, deadlines, PDEATHSIG, fd hygiene), the start barrier and scratch dirs.
 */
#include "unit.h"
#include "proc/barrier.h"
#include "proc/scratch.h"
#include "proc/supervise.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define MS UL_NS_PER_MS
#define SEC UL_NS_PER_SEC

/* --- helpers ------------------------------------------------------------ */

/* Direct children of this process, found independently of supervise.c. */
static int count_children(void)
{
	char path[64], buf[512];
	const char *p;
	struct dirent *de;
	int n = 0, fd, ppid;
	ssize_t len;
	char state;
	DIR *d = opendir("/proc");

	ck_assert_ptr_nonnull(d);
	while ((de = readdir(d))) {
		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", atoi(de->d_name));
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		len = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		p = strrchr(buf, ')');
		if (p && sscanf(p + 1, " %c %d", &state, &ppid) == 2 && ppid == getpid())
			n++;
	}
	closedir(d);
	return n;
}

/* True once pid no longer exists at all (zombies still exist). */
static bool pid_gone(pid_t pid)
{
	return kill(pid, 0) < 0 && errno == ESRCH;
}

/* Wait (up to ms) until pid is a zombie: exited, not yet reaped. */
static bool wait_zombie(pid_t pid, int ms)
{
	char path[64], buf[512], *rp;
	ul_nsec until = ul_now_ns() + (ul_nsec)ms * MS;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	while (ul_now_ns() < until) {
		FILE *f = fopen(path, "r");
		size_t n = f ? fread(buf, 1, sizeof(buf) - 1, f) : 0;

		if (f)
			fclose(f);
		buf[n] = '\0';
		rp = strrchr(buf, ')');
		if (rp && rp[1] == ' ' && rp[2] == 'Z')
			return true;
		usleep(10000);
	}
	return false;
}

static ul_nsec after_ms(int ms)
{
	return ul_now_ns() + (ul_nsec)ms * MS;
}

/* Wait for the next registered child to exit; fail the test otherwise. */
static struct ul_child *expect_exit(struct ul_sup *s, int ms)
{
	struct ul_child *ex = NULL;
	enum ul_wait_result r = ul_sup_wait(s, -1, after_ms(ms), &ex);

	ck_assert_int_eq(r, UL_WAIT_CHILD_EXITED);
	ck_assert_ptr_nonnull(ex);
	ck_assert(ex->reaped);
	ck_assert_int_eq(ex->pidfd, -1);
	return ex;
}

/* Read exactly len bytes from fd, waiting through the supervisor. */
static void read_via_sup(struct ul_sup *s, int fd, void *buf, size_t len)
{
	size_t got = 0;
	ul_nsec deadline = after_ms(2000);

	while (got < len) {
		struct ul_child *ex;
		enum ul_wait_result r = ul_sup_wait(s, fd, deadline, &ex);
		ssize_t n;

		if (r == UL_WAIT_CHILD_EXITED)
			continue; /* a writer may exit right after writing */
		ck_assert_int_eq(r, UL_WAIT_READY);
		n = read(fd, (char *)buf + got, len - got);
		ck_assert_int_gt(n, 0);
		got += (size_t)n;
	}
}

static int exit_code(const struct ul_child *c)
{
	ck_assert_msg(WIFEXITED(c->wstatus), "child %s: wstatus %#x", c->name, c->wstatus);
	return WEXITSTATUS(c->wstatus);
}

static int term_signal(const struct ul_child *c)
{
	ck_assert_msg(WIFSIGNALED(c->wstatus), "child %s: wstatus %#x", c->name, c->wstatus);
	return WTERMSIG(c->wstatus);
}

/* --- child functions ---------------------------------------------------- */

static int fn_return_arg(void *arg)
{
	return (int)(intptr_t)arg;
}

/* Burns 50 ms of its own CPU time (not wall time: on a busy machine the
 * child may be preempted, and rusage counts only CPU). */
static int fn_spin_50ms(void *arg)
{
	struct timespec ts;

	(void)arg;
	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	while (ul_ts_to_ns(&ts) < 50 * MS);
	return 0;
}

static int fn_pause(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return 1;
}

/* Ignore SIGTERM, then say so through the pipe in *arg. */
static int fn_ignore_term(void *arg)
{
	int fd = *(int *)arg;

	signal(SIGTERM, SIG_IGN);
	if (write(fd, "x", 1) != 1)
		return 2;
	for (;;)
		pause();
	return 1;
}

/* --- spawn -------------------------------------------------------------- */

START_TEST(test_spawn_fn_exit_code)
{
	struct ul_spawn_opts o = { .name = "ret42", .fn = fn_return_arg, .arg = (void *)42 };
	struct ul_sup s;
	struct ul_child c, spin;
	struct ul_child *ex;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ck_assert_int_gt(c.pid, 1);
	ck_assert_int_ge(c.pidfd, 0);
	ck_assert_str_eq(c.name, "ret42");
	ck_assert_uint_eq(s.n_children, 1);

	ex = expect_exit(&s, 2000);
	ck_assert_ptr_eq(ex, &c);
	ck_assert_int_eq(exit_code(&c), 42);
	ck_assert(!c.needed_kill);
	ck_assert_uint_eq(s.n_children, 0);

	/* rusage comes with the status */
	o = (struct ul_spawn_opts){ .name = "spin", .fn = fn_spin_50ms };
	ck_assert_int_eq(ul_spawn(&s, &o, &spin), 0);
	ck_assert_ptr_eq(expect_exit(&s, 2000), &spin);
	ck_assert_int_eq(exit_code(&spin), 0);
	ck_assert_int_ge(spin.ru.ru_utime.tv_sec * 1000000 + spin.ru.ru_utime.tv_usec +
				 spin.ru.ru_stime.tv_sec * 1000000 + spin.ru.ru_stime.tv_usec,
			 20000);
	ul_sup_fini(&s);
	ck_assert_int_eq(count_children(), 0);
}
END_TEST

START_TEST(test_spawn_exec)
{
	static const struct {
		const char *path;
		int code;
	} cases[] = {
		{ "/bin/true", 0 },
		{ "/bin/false", 1 },
		{ "/nonexistent/underload-test", 127 },
	};
	struct ul_sup s;
	struct ul_child c;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	for (size_t i = 0; i < UL_ARRAY_SIZE(cases); i++) {
		char *argv[] = { (char *)cases[i].path, NULL };
		struct ul_spawn_opts o = { .name = "exec", .argv = argv };

		ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
		ck_assert_msg(exit_code(&c) == cases[i].code, "%s: exit %d, want %d", cases[i].path,
			      exit_code(&c), cases[i].code);
	}

	/* a cgroup.procs that cannot be written: 126 before running anything */
	{
		char *argv[] = { (char *)"/bin/true", NULL };
		struct ul_spawn_opts o = { .name = "cg",
					   .argv = argv,
					   .cgroup_procs = "/nonexistent/cgroup.procs" };

		ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
		ck_assert_int_eq(exit_code(&c), 126);
	}
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_spawn_bad_args)
{
	struct ul_spawn_opts none = { .name = "none" };
	struct ul_spawn_opts badfd = {
		.name = "badfd", .fn = fn_return_arg, .keep_fds = { 987 }, .n_keep_fds = 1
	};
	struct ul_spawn_opts toomany = { .name = "many",
					 .fn = fn_return_arg,
					 .n_keep_fds = UL_SPAWN_MAX_FDS + 1 };
	struct ul_sup s;
	struct ul_child c;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_spawn(&s, &none, &c), -EINVAL);
	ck_assert_int_eq(ul_spawn(&s, &badfd, &c), -EBADF);
	ck_assert_int_eq(ul_spawn(&s, &toomany, &c), -EINVAL);
	ck_assert_uint_eq(s.n_children, 0);
	ck_assert_int_eq(count_children(), 0);
	ul_sup_fini(&s);
}
END_TEST

/* Report 'r' on the report pipe if its write end is close-on-exec, 'x' if not. */
static int fn_report(void *arg)
{
	const int *p = arg; /* our copy: p[1] was set before the fork */
	int fl = fcntl(p[1], F_GETFD);
	char b = fl >= 0 && (fl & FD_CLOEXEC) ? 'r' : 'x';

	return write(p[1], &b, 1) == 1 ? 0 : 2;
}

/* The report pipe, ul_spawn_wait_ready() and ul_spawn_not_ready() together. */
START_TEST(test_spawn_report_pipe)
{
	int p[2] = { 77, 77 };
	struct ul_spawn_opts o = { .name = "report", .fn = fn_report, .arg = p, .report_pipe = p };
	struct ul_spawn_opts bad = { .name = "bad",
				     .fn = fn_report,
				     .arg = p,
				     .report_pipe = p,
				     .keep_fds = { 987 },
				     .n_keep_fds = 1 };
	struct ul_sup s;
	struct ul_child c;
	unsigned char byte = 0;
	char why[160];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ck_assert_int_ge(p[0], 0);
	ck_assert_int_eq(p[1], -1); /* only the child holds the write end */
	ck_assert(fcntl(p[0], F_GETFL) & O_NONBLOCK);
	ck_assert(fcntl(p[0], F_GETFD) & FD_CLOEXEC);
	ck_assert_int_eq(ul_spawn_wait_ready(&s, &c, p[0], after_ms(5000), &byte), 0);
	ck_assert_int_eq(byte, 'r');
	if (!c.reaped) /* else it exited first and the wait took its byte then */
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
	ck_assert_int_eq(exit_code(&c), 0);
	ck_assert_int_eq(read(p[0], &byte, 1), 0); /* EOF: the child's end is gone */
	close(p[0]);

	/* a child that exits without reporting, said by ul_spawn_not_ready() */
	o = (struct ul_spawn_opts){
		.name = "ret3", .fn = fn_return_arg, .arg = (void *)3, .report_pipe = p
	};
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ck_assert_int_eq(ul_spawn_wait_ready(&s, &c, p[0], after_ms(5000), &byte), -ECHILD);
	ck_assert_int_eq(ul_spawn_not_ready(&s, &c, -ECHILD, "child 'ret3'", 5 * SEC, why,
					    sizeof(why)),
			 -ECHILD);
	ck_assert_str_eq(why, "child 'ret3' ended before it was ready (exit status 3)");
	close(p[0]);

	/* one that never reports: a timeout, and the child is left to the caller */
	o = (struct ul_spawn_opts){ .name = "pause", .fn = fn_pause, .report_pipe = p };
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ck_assert_int_eq(ul_spawn_wait_ready(&s, &c, p[0], after_ms(50), &byte), -ETIMEDOUT);
	ck_assert_int_eq(ul_spawn_not_ready(&s, &c, -ETIMEDOUT, "child 'pause'", 50 * MS, why,
					    sizeof(why)),
			 -ETIMEDOUT);
	ck_assert_str_eq(why, "child 'pause' was not ready within 50 ms");
	ck_assert(!c.reaped);
	ck_assert_int_eq(ul_sup_stop(&s, &c, 0), 0);
	close(p[0]);

	/* a refused spawn leaves no pipe open */
	ck_assert_int_eq(ul_spawn(&s, &bad, &c), -EBADF);
	ck_assert_int_eq(p[0], -1);
	ck_assert_int_eq(p[1], -1);
	ck_assert_uint_eq(s.n_children, 0);
	ul_sup_fini(&s);
	ck_assert_int_eq(count_children(), 0);
}
END_TEST

struct env_arg {
	pid_t parent;
	int kept, stray;
};

/* Check the child's starting state; returns the number of the first failed check. */
static int fn_check_env(void *arg)
{
	const struct env_arg *a = arg;
	struct sigaction sa;
	struct stat st_out, st_null;
	sigset_t mask;
	char name[17] = "", buf[32];
	struct dirent *de;
	int sig = 0, fd, extra = 0;
	ssize_t n;
	DIR *d;

	if (getpgrp() != getpid())
		return 1;
	if (getppid() != a->parent)
		return 2;
	if (sigaction(SIGUSR1, NULL, &sa) < 0 || sa.sa_handler != SIG_DFL)
		return 3;
	if (sigprocmask(SIG_BLOCK, NULL, &mask) < 0 || sigismember(&mask, SIGUSR2) ||
	    sigismember(&mask, SIGINT) || sigismember(&mask, SIGCHLD) ||
	    sigismember(&mask, SIGTERM))
		return 4;
	if (prctl(PR_GET_PDEATHSIG, &sig) < 0 || sig != SIGKILL)
		return 5;
	if (prctl(PR_GET_NAME, name) < 0 || strcmp(name, "ul:envcheck") != 0)
		return 6;
	fd = open("/proc/self/oom_score_adj", O_RDONLY);
	if (fd < 0)
		return 7;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0 || (buf[n] = '\0', atoi(buf) != 700))
		return 8;
	if (fstat(STDOUT_FILENO, &st_out) < 0 || stat("/dev/null", &st_null) < 0 ||
	    !S_ISCHR(st_out.st_mode) || st_out.st_rdev != st_null.st_rdev)
		return 9;
	if (fstat(STDERR_FILENO, &st_out) < 0 || st_out.st_rdev != st_null.st_rdev)
		return 10;
	if (fcntl(a->kept, F_GETFD) < 0)
		return 11;
	if (fcntl(a->stray, F_GETFD) >= 0)
		return 12;
	/* nothing else open: only 0-2, the kept fd and this listing's own fd */
	d = opendir("/proc/self/fd");
	if (!d)
		return 13;
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		fd = atoi(de->d_name);
		if (fd > 2 && fd != a->kept && fd != dirfd(d))
			extra++;
	}
	closedir(d);
	if (extra)
		return 14;
	return 0;
}

START_TEST(test_spawn_child_environment)
{
	struct env_arg a = { .parent = getpid() };
	struct ul_spawn_opts o = { .name = "envcheck",
				   .fn = fn_check_env,
				   .arg = &a,
				   .set_oom_score_adj = true,
				   .oom_score_adj = 700,
				   .stdout_to_null = true,
				   .n_keep_fds = 1 };
	struct ul_sup s;
	struct ul_child c;
	sigset_t usr2;
	int p[2];

	/* state the child must not inherit */
	signal(SIGUSR1, SIG_IGN);
	sigemptyset(&usr2);
	sigaddset(&usr2, SIGUSR2);
	sigprocmask(SIG_BLOCK, &usr2, NULL);
	ck_assert_int_eq(pipe(p), 0); /* no CLOEXEC: only ul_spawn can close them */
	a.stray = p[0];
	a.kept = p[1];
	o.keep_fds[0] = p[1];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
	ck_assert_msg(exit_code(&c) == 0, "child environment check %d failed", exit_code(&c));
	ul_sup_fini(&s);
	close(p[0]);
	close(p[1]);
}
END_TEST

START_TEST(test_spawn_exec_fd_hygiene)
{
	struct ul_sup s;
	struct ul_child c;
	char kept_path[64], stray_path[64];
	char *argv_kept[] = { (char *)"/usr/bin/test", (char *)"-e", kept_path, NULL };
	char *argv_stray[] = { (char *)"/usr/bin/test", (char *)"-e", stray_path, NULL };
	int kept, stray, null = open("/dev/null", O_RDONLY | O_CLOEXEC);

	/* high numbers that the exec'd program will not reuse for itself */
	ck_assert_int_ge(null, 0);
	kept = fcntl(null, F_DUPFD_CLOEXEC, 40); /* CLOEXEC: kept anyway */
	stray = fcntl(null, F_DUPFD, 50);	 /* no CLOEXEC: closed anyway */
	close(null);
	ck_assert_int_ge(kept, 40);
	ck_assert_int_ge(stray, 50);
	snprintf(kept_path, sizeof(kept_path), "/proc/self/fd/%d", kept);
	snprintf(stray_path, sizeof(stray_path), "/proc/self/fd/%d", stray);

	ck_assert_int_eq(ul_sup_init(&s), 0);
	{
		struct ul_spawn_opts o = {
			.name = "kept", .argv = argv_kept, .keep_fds = { kept }, .n_keep_fds = 1
		};

		ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
		ck_assert_int_eq(exit_code(&c), 0);
	}
	{
		struct ul_spawn_opts o = {
			.name = "stray", .argv = argv_stray, .keep_fds = { kept }, .n_keep_fds = 1
		};

		ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
		ck_assert_int_eq(exit_code(&c), 1);
	}
	ul_sup_fini(&s);
	close(kept);
	close(stray);
}
END_TEST

/* --- barrier ------------------------------------------------------------ */

static int fn_barrier(void *arg)
{
	struct ul_barrier *b = arg;
	int fds[24];

	/*
	 * ul_spawn closed the parent's ends; take every low fd number so that
	 * theirs are reused by files ul_barrier_child_ready() must not close.
	 */
	for (size_t i = 0; i < UL_ARRAY_SIZE(fds); i++)
		fds[i] = open("/dev/null", O_RDONLY);
	if (fcntl(b->ready[0], F_GETFD) < 0 || fcntl(b->go[1], F_GETFD) < 0)
		return 13; /* the test did not set up what it meant to */
	if (ul_barrier_child_ready(b) != 0)
		return 10;
	for (size_t i = 0; i < UL_ARRAY_SIZE(fds); i++)
		if (fcntl(fds[i], F_GETFD) < 0)
			return 11;
	if (ul_barrier_child_wait_go(b) != 0)
		return 12;
	return 7;
}

START_TEST(test_barrier_ready_go)
{
	struct ul_barrier b;
	struct ul_spawn_opts o = { .name = "barrier", .fn = fn_barrier, .arg = &b, .n_keep_fds = 2 };
	struct ul_sup s;
	struct ul_child c, *ex;
	char byte;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_barrier_init(&b), 0);
	o.keep_fds[0] = b.ready[1];
	o.keep_fds[1] = b.go[0];
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ul_barrier_parent_after_fork(&b);
	ck_assert_int_eq(b.ready[1], -1);
	ck_assert_int_eq(b.go[0], -1);

	ck_assert_int_eq(ul_sup_wait(&s, b.ready[0], after_ms(2000), &ex), UL_WAIT_READY);
	ck_assert_int_eq(read(b.ready[0], &byte, 1), 1);

	/* held at the barrier until released */
	ck_assert_int_eq(ul_sup_wait(&s, -1, after_ms(100), &ex), UL_WAIT_TIMEOUT);
	ck_assert(!c.reaped);

	ul_barrier_release(&b);
	ck_assert_int_eq(b.go[1], -1);
	ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
	ck_assert_msg(exit_code(&c) == 7, "barrier child exit %d", exit_code(&c));
	ul_barrier_close(&b);
	ck_assert_int_eq(b.ready[0], -1);
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_barrier_child_dies_before_ready)
{
	struct ul_barrier b;
	struct ul_spawn_opts o = {
		.name = "early", .fn = fn_return_arg, .arg = (void *)3, .n_keep_fds = 2
	};
	struct ul_sup s;
	struct ul_child c, *ex;
	enum ul_wait_result r;
	bool exited = false;
	char byte;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_barrier_init(&b), 0);
	o.keep_fds[0] = b.ready[1];
	o.keep_fds[1] = b.go[0];
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ul_barrier_parent_after_fork(&b);

	/* the supervisor learns it from the pidfd and from EOF, never hangs */
	while ((r = ul_sup_wait(&s, b.ready[0], after_ms(2000), &ex)) == UL_WAIT_CHILD_EXITED)
		exited = true;
	ck_assert_int_eq(r, UL_WAIT_READY);
	ck_assert_int_eq(read(b.ready[0], &byte, 1), 0);
	if (!exited)
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
	ck_assert_int_eq(exit_code(&c), 3);
	ul_barrier_close(&b);
	ul_sup_fini(&s);
}
END_TEST

/* --- wait: deadlines, readiness, signals -------------------------------- */

START_TEST(test_wait_timeout)
{
	struct ul_sup s;
	struct ul_child *ex = (struct ul_child *)&ex;
	ul_nsec t0, dt;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_wait(&s, -1, t0 + 100 * MS, &ex), UL_WAIT_TIMEOUT);
	dt = ul_now_ns() - t0;
	ck_assert_int_ge(dt, 100 * MS);
	ck_assert_int_lt(dt, 1 * SEC);
	ck_assert_ptr_null(ex);

	/* a deadline already past returns at once */
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_wait(&s, -1, t0 - 1, NULL), UL_WAIT_TIMEOUT);
	ck_assert_int_lt(ul_now_ns() - t0, 500 * MS);

	/* a silent fd times out; a readable one is READY at once */
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ck_assert_int_eq(ul_sup_wait(&s, p[0], after_ms(50), NULL), UL_WAIT_TIMEOUT);
	ck_assert_int_eq(write(p[1], "x", 1), 1);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_wait(&s, p[0], after_ms(2000), NULL), UL_WAIT_READY);
	ck_assert_int_lt(ul_now_ns() - t0, 500 * MS);
	close(p[0]);
	close(p[1]);
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_wait_interrupted)
{
	struct ul_sup s;
	sigset_t before, after;
	int reaper = -1;

	sigprocmask(SIG_BLOCK, NULL, &before);
	ck_assert(!sigismember(&before, SIGINT));
	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(prctl(PR_GET_CHILD_SUBREAPER, &reaper), 0);
	ck_assert_int_eq(reaper, 1);

	ck_assert_int_eq(kill(getpid(), SIGINT), 0);
	ck_assert_int_eq(ul_sup_wait(&s, -1, after_ms(2000), NULL), UL_WAIT_INTERRUPTED);
	ck_assert_int_eq(s.interrupts, 1);
	ck_assert_int_eq(s.last_signal, SIGINT);
	ck_assert(!ul_sup_aborting(&s));

	ck_assert_int_eq(kill(getpid(), SIGTERM), 0);
	ck_assert_int_eq(ul_sup_wait(&s, -1, after_ms(2000), NULL), UL_WAIT_INTERRUPTED);
	ck_assert_int_eq(s.interrupts, 2);
	ck_assert_int_eq(s.last_signal, SIGTERM);
	ck_assert(ul_sup_aborting(&s));

	/* one still queued at fini is counted, not delivered (it would kill us) */
	ck_assert_int_eq(kill(getpid(), SIGHUP), 0);
	ul_sup_fini(&s);
	ck_assert_int_eq(s.interrupts, 3);
	ck_assert_int_eq(s.last_signal, SIGHUP);
	ul_sup_fini(&s); /* idempotent */

	sigprocmask(SIG_BLOCK, NULL, &after);
	ck_assert_int_eq(sigismember(&after, SIGINT), sigismember(&before, SIGINT));
	ck_assert_int_eq(sigismember(&after, SIGCHLD), sigismember(&before, SIGCHLD));
	ck_assert_int_eq(prctl(PR_GET_CHILD_SUBREAPER, &reaper), 0);
	ck_assert_int_eq(reaper, 0);
}
END_TEST

/* --- stop --------------------------------------------------------------- */

/* Spawn fn_ignore_term and wait until it ignores SIGTERM. */
static void spawn_term_ignorer(struct ul_sup *s, struct ul_child *c, int p[2])
{
	struct ul_spawn_opts o = {
		.name = "noterm", .fn = fn_ignore_term, .arg = &p[1], .n_keep_fds = 1
	};
	char byte;

	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	o.keep_fds[0] = p[1];
	ck_assert_int_eq(ul_spawn(s, &o, c), 0);
	read_via_sup(s, p[0], &byte, 1);
	close(p[0]);
	close(p[1]);
}

START_TEST(test_stop_escalates_to_kill)
{
	struct ul_sup s;
	struct ul_child c;
	ul_nsec t0, dt;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	spawn_term_ignorer(&s, &c, p);

	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_stop(&s, &c, 100 * MS), 0);
	dt = ul_now_ns() - t0;
	ck_assert_int_ge(dt, 100 * MS);
	ck_assert_int_lt(dt, 2 * SEC);
	ck_assert(c.reaped);
	ck_assert(c.needed_kill);
	ck_assert_int_eq(term_signal(&c), SIGKILL);
	ck_assert_int_eq(c.pidfd, -1);
	ck_assert_uint_eq(s.n_children, 0);
	ck_assert(pid_gone(c.pid));
	ck_assert_int_eq(ul_sup_stop(&s, &c, 0), 0); /* already reaped: nothing to do */
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_stop_graceful)
{
	struct ul_spawn_opts o = { .name = "pause", .fn = fn_pause };
	struct ul_sup s;
	struct ul_child c;
	ul_nsec t0;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_stop(&s, &c, 2 * SEC), 0);
	ck_assert_int_lt(ul_now_ns() - t0, 1500 * MS);
	ck_assert(!c.needed_kill);
	ck_assert_int_eq(term_signal(&c), SIGTERM);
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_stop_exited_or_stopped)
{
	struct ul_spawn_opts ret = { .name = "ret5", .fn = fn_return_arg, .arg = (void *)5 };
	struct ul_spawn_opts o = { .name = "pause", .fn = fn_pause };
	struct ul_sup s;
	struct ul_child c;
	struct pollfd pfd;
	siginfo_t si;
	ul_nsec t0;

	ck_assert_int_eq(ul_sup_init(&s), 0);

	/* exited before the stop, not yet collected: no grace, yet no kill */
	ck_assert_int_eq(ul_spawn(&s, &ret, &c), 0);
	pfd = (struct pollfd){ .fd = c.pidfd, .events = POLLIN };
	ck_assert_int_eq(poll(&pfd, 1, 2000), 1);
	ck_assert_int_eq(ul_sup_stop(&s, &c, 0), 0);
	ck_assert(!c.needed_kill);
	ck_assert_int_eq(exit_code(&c), 5);

	/* a stopped child still gets to act on SIGTERM */
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ck_assert_int_eq(kill(c.pid, SIGSTOP), 0);
	memset(&si, 0, sizeof(si));
	ck_assert_int_eq(waitid(P_PID, (id_t)c.pid, &si, WSTOPPED | WNOWAIT), 0);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_stop(&s, &c, 2 * SEC), 0);
	ck_assert_int_lt(ul_now_ns() - t0, 1500 * MS);
	ck_assert(!c.needed_kill);
	ck_assert_int_eq(term_signal(&c), SIGTERM);
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_stop_interrupt_during_grace)
{
	struct ul_sup s;
	struct ul_child c;
	ul_nsec t0;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);

	/* one interrupt during stop: counted, the stop goes on */
	spawn_term_ignorer(&s, &c, p);
	ck_assert_int_eq(kill(getpid(), SIGINT), 0);
	ck_assert_int_eq(ul_sup_stop(&s, &c, 100 * MS), 0);
	ck_assert_int_eq(s.interrupts, 1);
	ck_assert_int_eq(s.last_signal, SIGINT);
	ck_assert(c.needed_kill);
	ck_assert_int_eq(term_signal(&c), SIGKILL);
	/* and the next wait reports it (it is never swallowed) */
	ck_assert_int_eq(ul_sup_wait(&s, -1, after_ms(2000), NULL), UL_WAIT_INTERRUPTED);

	/* aborting (second interrupt): the grace period is skipped */
	spawn_term_ignorer(&s, &c, p);
	ck_assert_int_eq(kill(getpid(), SIGINT), 0);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_stop(&s, &c, 3 * SEC), 0);
	ck_assert_int_lt(ul_now_ns() - t0, 1 * SEC);
	ck_assert_int_eq(s.interrupts, 2);
	ck_assert(c.needed_kill);
	ul_sup_fini(&s);
}
END_TEST

/* An interrupt that came during a stop is reported by the next wait. */
START_TEST(test_interrupt_during_stop_not_lost)
{
	struct ul_sup s;
	struct ul_child c;
	ul_nsec t0;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert(!ul_sup_interrupted(&s));
	spawn_term_ignorer(&s, &c, p);
	ck_assert_int_eq(kill(getpid(), SIGTERM), 0);
	ck_assert_int_eq(ul_sup_stop(&s, &c, 100 * MS), 0);
	ck_assert_int_eq(s.interrupts, 1);
	ck_assert(ul_sup_interrupted(&s));
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_sup_wait(&s, -1, after_ms(2000), NULL), UL_WAIT_INTERRUPTED);
	ck_assert_int_lt(ul_now_ns() - t0, 100 * MS);
	/* Reported once: the next wait waits again. */
	ck_assert_int_eq(ul_sup_wait(&s, -1, after_ms(50), NULL), UL_WAIT_TIMEOUT);
	ck_assert(ul_sup_interrupted(&s));
	/* Queued and read without waiting. */
	ck_assert_int_eq(kill(getpid(), SIGINT), 0);
	ck_assert(ul_sup_check_signals(&s));
	ck_assert_int_eq(s.interrupts, 2);
	ul_sup_fini(&s);
}
END_TEST

/* Blocked around a teardown: counted, never delivered. */
START_TEST(test_block_signals_counts)
{
	sigset_t old, now;

	ck_assert_int_eq(ul_sup_block_signals(&old), 0);
	ck_assert_int_eq(kill(getpid(), SIGINT), 0);
	ck_assert_int_eq(kill(getpid(), SIGHUP), 0);
	ck_assert_int_eq(ul_sup_unblock_signals(&old), 2);
	sigprocmask(SIG_BLOCK, NULL, &now);
	ck_assert_int_eq(sigismember(&now, SIGINT), sigismember(&old, SIGINT));
}
END_TEST

START_TEST(test_stop_refuses_bad_pids)
{
	struct ul_sup s;
	struct ul_child fake = { .pid = 1, .pidfd = -1 };

	ck_assert_int_eq(ul_sup_init(&s), 0);
	/* not registered */
	ck_assert_int_eq(ul_sup_stop(&s, &fake, 0), -EINVAL);
	/* registered but init, or our own group: never signalled */
	s.children[s.n_children++] = &fake;
	ck_assert_int_eq(ul_sup_stop(&s, &fake, 0), -EINVAL);
	fake.pid = getpgrp();
	ck_assert_int_eq(ul_sup_stop(&s, &fake, 0), -EINVAL);
	fake.pid = getpid();
	ck_assert_int_eq(ul_sup_stop(&s, &fake, 0), -EINVAL);
	s.n_children = 0;
	s.children[0] = NULL;
	ul_sup_fini(&s);
}
END_TEST

/* Leader: two workers in its group, one ignoring SIGTERM; pids sent back. */
static int fn_worker_leader(void *arg)
{
	int fd = *(int *)arg;

	for (int i = 0; i < 2; i++) {
		pid_t pid = fork();

		if (pid < 0)
			return 2;
		if (pid == 0) {
			pid_t self = getpid();

			if (i == 1)
				signal(SIGTERM, SIG_IGN);
			if (write(fd, &self, sizeof(self)) != sizeof(self))
				_exit(3);
			for (;;)
				pause();
		}
	}
	for (;;)
		pause();
	return 1;
}

START_TEST(test_stop_kills_group_leftovers)
{
	struct ul_spawn_opts o = { .name = "leader", .fn = fn_worker_leader, .n_keep_fds = 1 };
	struct ul_sup s;
	struct ul_child c;
	pid_t workers[2];
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	o.arg = &p[1];
	o.keep_fds[0] = p[1];
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	read_via_sup(&s, p[0], workers, sizeof(workers));
	ck_assert_int_eq(getpgid(workers[0]), c.pid);
	ck_assert_int_eq(getpgid(workers[1]), c.pid);

	ck_assert_int_eq(ul_sup_stop(&s, &c, 1 * SEC), 0);
	ck_assert(!c.needed_kill); /* the leader went on SIGTERM ... */
	ck_assert_int_eq(term_signal(&c), SIGTERM);
	ck_assert(pid_gone(workers[0])); /* ... and nothing of its group is left */
	ck_assert(pid_gone(workers[1]));
	ck_assert_int_eq(count_children(), 0);
	close(p[0]);
	close(p[1]);
	ul_sup_fini(&s);
}
END_TEST

/* --- orphans and reaping ------------------------------------------------ */

/* Fork a grandchild that leaves the group and lives on; send its pid. */
static int fn_leave_orphan(void *arg)
{
	int fd = *(int *)arg;
	pid_t pid = fork();

	if (pid < 0)
		return 2;
	if (pid == 0) {
		pid_t self = getpid();

		setpgid(0, 0); /* out of reach of the group's SIGKILL */
		prctl(PR_SET_PDEATHSIG, 0);
		if (write(fd, &self, sizeof(self)) != sizeof(self))
			_exit(3);
		for (;;)
			pause();
	}
	return 0;
}

START_TEST(test_reap_all_kills_orphans)
{
	struct ul_spawn_opts o = { .name = "orphaner", .fn = fn_leave_orphan, .n_keep_fds = 1 };
	struct ul_sup s;
	struct ul_child c;
	pid_t grandchild;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	o.arg = &p[1];
	o.keep_fds[0] = p[1];
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	read_via_sup(&s, p[0], &grandchild, sizeof(grandchild));
	if (!c.reaped)
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
	ck_assert_int_eq(exit_code(&c), 0);

	/* adopted by us, the subreaper, and still alive */
	ck_assert(!pid_gone(grandchild));
	ck_assert_int_eq(count_children(), 1);

	ul_sup_reap_all(&s, after_ms(2000));
	ck_assert(pid_gone(grandchild));
	ck_assert_int_eq(count_children(), 0);
	close(p[0]);
	close(p[1]);
	ul_sup_fini(&s);
}
END_TEST

/* Fork a grandchild that sends its pid and exits by itself. */
static int fn_orphan_exits(void *arg)
{
	int fd = *(int *)arg;
	pid_t pid = fork();

	if (pid < 0)
		return 2;
	if (pid == 0) {
		pid_t self = getpid();

		if (write(fd, &self, sizeof(self)) != sizeof(self))
			_exit(3);
		usleep(20000);
		_exit(0);
	}
	return 0;
}

/*
 * The orphan's zombie sits behind a registered zombie in the kernel's
 * child list: it must be reaped anyway, and the registered children must
 * still be reported with their own status.
 */
START_TEST(test_orphan_zombie_reaped_behind_registered)
{
	struct ul_spawn_opts oa = { .name = "a", .fn = fn_return_arg, .arg = (void *)3 };
	struct ul_spawn_opts ob = { .name = "b", .fn = fn_orphan_exits, .n_keep_fds = 1 };
	struct ul_sup s;
	struct ul_child a, b, *ex1, *ex2;
	pid_t grandchild;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	ob.arg = &p[1];
	ob.keep_fds[0] = p[1];
	ck_assert_int_eq(ul_spawn(&s, &oa, &a), 0);
	ck_assert_int_eq(ul_spawn(&s, &ob, &b), 0);
	ck_assert_int_eq(read(p[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	/* a, b and the orphan all exit (and stay zombies): wait for it rather
	 * than sleep a fixed time, which a busy machine can outlast. */
	ck_assert(wait_zombie(a.pid, 10000));
	ck_assert(wait_zombie(b.pid, 10000));
	ck_assert(wait_zombie(grandchild, 10000));
	ck_assert(!pid_gone(grandchild));

	ex1 = expect_exit(&s, 2000);
	ck_assert(pid_gone(grandchild));
	ex2 = expect_exit(&s, 2000);
	ck_assert(ex1 != ex2);
	ck_assert(a.reaped && b.reaped);
	ck_assert_int_eq(exit_code(&a), 3);
	ck_assert_int_eq(exit_code(&b), 0);
	ck_assert_int_eq(count_children(), 0);
	close(p[0]);
	close(p[1]);
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_reap_all_stops_registered)
{
	struct ul_spawn_opts o = { .name = "pause", .fn = fn_pause };
	struct ul_sup s;
	struct ul_child c[3];
	ul_nsec t0;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	for (size_t i = 0; i < UL_ARRAY_SIZE(c); i++)
		ck_assert_int_eq(ul_spawn(&s, &o, &c[i]), 0);
	ck_assert_int_eq(count_children(), 3);
	t0 = ul_now_ns();
	ul_sup_reap_all(&s, after_ms(3000));
	ck_assert_int_lt(ul_now_ns() - t0, 1500 * MS);
	ck_assert_uint_eq(s.n_children, 0);
	for (size_t i = 0; i < UL_ARRAY_SIZE(c); i++) {
		ck_assert(c[i].reaped);
		ck_assert_int_eq(term_signal(&c[i]), SIGTERM);
	}
	ck_assert_int_eq(count_children(), 0);
	ul_sup_fini(&s);
}
END_TEST

START_TEST(test_fini_stops_children)
{
	struct ul_spawn_opts o = { .name = "pause", .fn = fn_pause };
	struct ul_sup s;
	struct ul_child c;

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	ul_sup_fini(&s);
	ck_assert(c.reaped);
	ck_assert_int_eq(s.sigfd, -1);
	ck_assert_int_eq(count_children(), 0);
}
END_TEST

/* The middle process: its own supervisor, one leaf, then it dies. */
static int fn_middle(void *arg)
{
	struct ul_spawn_opts o = { .name = "leaf", .fn = fn_pause };
	int fd = *(int *)arg;
	struct ul_sup s;
	struct ul_child c;

	if (ul_sup_init(&s) != 0)
		return 20;
	if (ul_spawn(&s, &o, &c) != 0)
		return 21;
	if (write(fd, &c.pid, sizeof(c.pid)) != sizeof(c.pid))
		return 22;
	return 0; /* no ul_sup_fini(): only PR_SET_PDEATHSIG can end the leaf */
}

START_TEST(test_pdeathsig)
{
	struct ul_spawn_opts o = { .name = "middle", .fn = fn_middle, .n_keep_fds = 1 };
	struct ul_sup s;
	struct ul_child c;
	ul_nsec deadline;
	pid_t leaf;
	int p[2];

	ck_assert_int_eq(ul_sup_init(&s), 0);
	ck_assert_int_eq(pipe2(p, O_CLOEXEC), 0);
	o.arg = &p[1];
	o.keep_fds[0] = p[1];
	ck_assert_int_eq(ul_spawn(&s, &o, &c), 0);
	read_via_sup(&s, p[0], &leaf, sizeof(leaf));
	if (!c.reaped)
		ck_assert_ptr_eq(expect_exit(&s, 2000), &c);
	ck_assert_int_eq(exit_code(&c), 0);

	/* the leaf dies on its own and comes back to us as an orphan to reap */
	deadline = after_ms(2000);
	while (!pid_gone(leaf) && ul_now_ns() < deadline)
		ck_assert_int_ne(ul_sup_wait(&s, -1, after_ms(20), NULL), UL_WAIT_INTERRUPTED);
	ck_assert_msg(pid_gone(leaf), "leaf %d outlived its parent", (int)leaf);
	ck_assert_int_eq(count_children(), 0);
	close(p[0]);
	close(p[1]);
	ul_sup_fini(&s);
}
END_TEST

/* --- scratch ------------------------------------------------------------ */

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

START_TEST(test_scratch_create_remove)
{
	char dir[256], outside[256], path[512], target[512];
	struct stat st;

	ck_assert_int_eq(ul_scratch_create("/tmp/", dir, sizeof(dir)), 0);
	ck_assert_msg(strncmp(dir, "/tmp/" UL_SCRATCH_PREFIX, 15) == 0, "got %s", dir);
	ck_assert_int_eq(stat(dir, &st), 0);
	ck_assert(S_ISDIR(st.st_mode));
	ck_assert_int_eq(st.st_mode & 07777, 0700);

	/* something outside that links must not lead the removal to */
	ck_assert_int_eq(ul_scratch_create("/tmp", outside, sizeof(outside)), 0);
	snprintf(target, sizeof(target), "%s/target", outside);
	write_file(target, "keep me");

	snprintf(path, sizeof(path), "%s/a", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/a/b", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/a/b/c", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/a/b/c/file", dir);
	write_file(path, "data");
	snprintf(path, sizeof(path), "%s/a/filelink", dir);
	ck_assert_int_eq(symlink(target, path), 0);
	snprintf(path, sizeof(path), "%s/a/dirlink", dir);
	ck_assert_int_eq(symlink(outside, path), 0);
	snprintf(path, sizeof(path), "%s/dangling", dir);
	ck_assert_int_eq(symlink("/nonexistent/x", path), 0);
	/* a directory a load left unreadable and unwritable */
	snprintf(path, sizeof(path), "%s/locked", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/locked/file", dir);
	write_file(path, "data");
	snprintf(path, sizeof(path), "%s/locked", dir);
	ck_assert_int_eq(chmod(path, 0), 0);

	ck_assert_int_eq(ul_scratch_remove(dir), 0);
	ck_assert_int_eq(lstat(dir, &st), -1);
	ck_assert_int_eq(errno, ENOENT);
	ck_assert_int_eq(stat(target, &st), 0); /* survived */
	ck_assert_int_eq(st.st_size, 7);

	/* trailing slash accepted */
	snprintf(path, sizeof(path), "%s/", outside);
	ck_assert_int_eq(ul_scratch_remove(path), 0);
	ck_assert_int_eq(lstat(outside, &st), -1);
	ck_assert_int_eq(ul_scratch_remove(outside), -ENOENT);
}
END_TEST

/*
 * Every path handed to ul_scratch_remove() here lies inside a scratch dir
 * of this test: should the prefix guard ever break, the test fails without
 * taking anything else with it.
 */
START_TEST(test_scratch_refuses)
{
	char dir[256], path[512], link[300];
	struct stat st;

	ck_assert_int_eq(ul_scratch_remove(""), -EINVAL);
	ck_assert_int_eq(ul_scratch_remove(NULL), -EINVAL);

	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
	snprintf(path, sizeof(path), "%s/notours", dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(ul_scratch_remove(path), -EINVAL);
	ck_assert_int_eq(stat(path, &st), 0);
	/* the prefix alone, and a last component that only resolves to ours */
	snprintf(path, sizeof(path), "%s/" UL_SCRATCH_PREFIX, dir);
	ck_assert_int_eq(mkdir(path, 0700), 0);
	ck_assert_int_eq(ul_scratch_remove(path), -EINVAL);
	ck_assert_int_eq(stat(path, &st), 0);
	snprintf(path, sizeof(path), "%s/notours/..", dir);
	ck_assert_int_eq(ul_scratch_remove(path), -EINVAL);
	ck_assert_int_eq(stat(dir, &st), 0);

	/* a symlink with our prefix is not followed */
	snprintf(link, sizeof(link), "%s.link", dir);
	ck_assert_int_eq(symlink(dir, link), 0);
	ck_assert_int_eq(ul_scratch_remove(link), -ENOTDIR);
	snprintf(path, sizeof(path), "%s/notours", dir);
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(unlink(link), 0);

	ck_assert_int_eq(ul_scratch_remove(dir), 0);
	ck_assert_int_eq(lstat(dir, &st), -1);
}
END_TEST

START_TEST(test_scratch_create_errors)
{
	char dir[256], small[8], file[512];

	ck_assert_int_eq(ul_scratch_create("/nonexistent/underload-parent", dir, sizeof(dir)),
			 -ENOENT);
	ck_assert_int_eq(ul_scratch_create("/tmp", small, sizeof(small)), -ENAMETOOLONG);
	ck_assert_int_eq(ul_scratch_create("", dir, sizeof(dir)), -EINVAL);

	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
	snprintf(file, sizeof(file), "%s/file", dir);
	write_file(file, "x");
	ck_assert_int_eq(ul_scratch_create(file, small, sizeof(small)), -ENAMETOOLONG);
	{
		char out[600];

		ck_assert_int_eq(ul_scratch_create(file, out, sizeof(out)), -ENOTDIR);
	}
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}
END_TEST

START_TEST(test_fs_free_bytes)
{
	uint64_t free_bytes = 0;

	ck_assert_int_eq(ul_fs_free_bytes("/tmp", &free_bytes), 0);
	ck_assert_uint_gt(free_bytes, 0);
	ck_assert_int_eq(ul_fs_free_bytes("/nonexistent/x", &free_bytes), -ENOENT);
}
END_TEST

Suite *ul_test_suite_proc(void)
{
	Suite *s = suite_create("proc");
	TCase *tc;

	tc = tcase_create("spawn");
	tcase_add_test(tc, test_spawn_fn_exit_code);
	tcase_add_test(tc, test_spawn_exec);
	tcase_add_test(tc, test_spawn_bad_args);
	tcase_add_test(tc, test_spawn_report_pipe);
	tcase_add_test(tc, test_spawn_child_environment);
	tcase_add_test(tc, test_spawn_exec_fd_hygiene);
	suite_add_tcase(s, tc);

	tc = tcase_create("barrier");
	tcase_add_test(tc, test_barrier_ready_go);
	tcase_add_test(tc, test_barrier_child_dies_before_ready);
	suite_add_tcase(s, tc);

	tc = tcase_create("wait");
	tcase_add_test(tc, test_wait_timeout);
	tcase_add_test(tc, test_wait_interrupted);
	suite_add_tcase(s, tc);

	tc = tcase_create("stop");
	tcase_add_test(tc, test_stop_escalates_to_kill);
	tcase_add_test(tc, test_stop_graceful);
	tcase_add_test(tc, test_stop_exited_or_stopped);
	tcase_add_test(tc, test_stop_interrupt_during_grace);
	tcase_add_test(tc, test_interrupt_during_stop_not_lost);
	tcase_add_test(tc, test_block_signals_counts);
	tcase_add_test(tc, test_stop_refuses_bad_pids);
	tcase_add_test(tc, test_stop_kills_group_leftovers);
	suite_add_tcase(s, tc);

	tc = tcase_create("reap");
	tcase_add_test(tc, test_reap_all_kills_orphans);
	tcase_add_test(tc, test_orphan_zombie_reaped_behind_registered);
	tcase_add_test(tc, test_reap_all_stops_registered);
	tcase_add_test(tc, test_fini_stops_children);
	tcase_add_test(tc, test_pdeathsig);
	suite_add_tcase(s, tc);

	tc = tcase_create("scratch");
	tcase_add_test(tc, test_scratch_create_remove);
	tcase_add_test(tc, test_scratch_refuses);
	tcase_add_test(tc, test_scratch_create_errors);
	tcase_add_test(tc, test_fs_free_bytes);
	suite_add_tcase(s, tc);

	return s;
}
