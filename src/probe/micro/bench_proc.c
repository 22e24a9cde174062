/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Processor and processes: null call, null I/O, stat, open/close, select
 * on 100 TCP sockets, signal install and delivery, fork, fork+exec and
 * fork + /bin/sh -c.  Each is a plain loop timed whole by the harness.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#define SELECT_FDS 100

extern char **environ;

static int bench_null_batch(void *st, uint64_t iters, int64_t *elapsed)
{
	ul_nsec t0 = ul_now_ns();

	(void)st;
	for (uint64_t i = 0; i < iters; i++)
		getppid();
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bench_null(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return ul_micro_simple(env, out, bench_null_batch, NULL, 1, 0);
}

struct io_state {
	int zero, null;
};

/* One 1-byte read of /dev/zero and one 1-byte write to /dev/null: their mean. */
static int bench_nullio_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct io_state *st = arg;
	char c = 0;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		if (read(st->zero, &c, 1) != 1 || write(st->null, &c, 1) != 1)
			return -EIO;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bench_nullio(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct io_state st = { .zero = open("/dev/zero", O_RDONLY | O_CLOEXEC),
			       .null = open("/dev/null", O_WRONLY | O_CLOEXEC) };
	int rc = -errno;

	if (st.zero >= 0 && st.null >= 0)
		rc = ul_micro_simple(env, out, bench_nullio_batch, &st, 2, 0);
	if (st.zero >= 0)
		close(st.zero);
	if (st.null >= 0)
		close(st.null);
	return rc;
}

struct path_state {
	char path[4096];
};

static int bench_stat_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct path_state *st = arg;
	struct stat sb;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++)
		if (stat(st->path, &sb))
			return -errno;
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bench_openclose_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct path_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		int fd = open(st->path, O_RDONLY);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int path_bench(const struct ul_micro_env *env, struct ul_micro_out *out, ul_mh_batch_fn fn)
{
	struct path_state st;
	int rc;

	snprintf(st.path, sizeof(st.path), "%s/micro-stat", env->scratch_dir);
	rc = ul_micro_make_file(st.path, 1);
	if (!rc)
		rc = ul_micro_simple(env, out, fn, &st, 1, 0);
	unlink(st.path);
	return rc;
}

static int bench_stat(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return path_bench(env, out, bench_stat_batch);
}

static int bench_openclose(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return path_bench(env, out, bench_openclose_batch);
}

struct select_state {
	int fd[SELECT_FDS];
	int maxfd;
};

static int bench_select_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct select_state *st = arg;
	fd_set all, rd;
	ul_nsec t0;

	FD_ZERO(&all);
	for (int i = 0; i < SELECT_FDS; i++)
		FD_SET(st->fd[i], &all);
	t0 = ul_now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		struct timeval tv = { 0, 0 };

		rd = all;
		if (select(st->maxfd + 1, &rd, NULL, NULL, &tv) < 0)
			return -errno;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

/* select() with a zero timeout on 100 listening loopback TCP sockets. */
static int bench_select(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct select_state st = { .maxfd = -1 };
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	int rc = 0, n = 0;

	for (; n < SELECT_FDS && !rc; n++) {
		st.fd[n] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
		if (st.fd[n] < 0 || st.fd[n] >= FD_SETSIZE ||
		    bind(st.fd[n], (struct sockaddr *)&sa, sizeof(sa)) || listen(st.fd[n], 1))
			rc = st.fd[n] >= FD_SETSIZE ? -EMFILE : -errno;
		if (st.fd[n] > st.maxfd)
			st.maxfd = st.fd[n];
	}
	if (!rc)
		rc = ul_micro_simple(env, out, bench_select_batch, &st, 1, 0);
	for (int i = 0; i < n; i++)
		if (st.fd[i] >= 0)
			close(st.fd[i]);
	return rc;
}

static volatile sig_atomic_t caught;

static void on_usr1(int sig)
{
	(void)sig;
	caught++;
}

static int bench_siginst_batch(void *st, uint64_t iters, int64_t *elapsed)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	ul_nsec t0 = ul_now_ns();

	(void)st;
	sigemptyset(&sa.sa_mask);
	for (uint64_t i = 0; i < iters; i++)
		if (sigaction(SIGUSR1, &sa, &old))
			return -errno;
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bench_siginst(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	int rc = ul_micro_simple(env, out, bench_siginst_batch, NULL, 1, 0);

	signal(SIGUSR1, SIG_DFL);
	return rc;
}

/* kill(self, SIGUSR1): delivery and return from a handler. */
static int bench_sighndl_batch(void *st, uint64_t iters, int64_t *elapsed)
{
	pid_t me = getpid();
	ul_nsec t0 = ul_now_ns();

	(void)st;
	caught = 0;
	for (uint64_t i = 0; i < iters; i++)
		kill(me, SIGUSR1);
	*elapsed = ul_now_ns() - t0;
	return (uint64_t)caught == iters ? 0 : -EIO;
}

static int bench_sighndl(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct sigaction sa = { .sa_handler = on_usr1 };
	int rc;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	rc = ul_micro_simple(env, out, bench_sighndl_batch, NULL, 1, 0);
	signal(SIGUSR1, SIG_DFL);
	return rc;
}

/* The native fork family: from the probe child, /bin/true, its environment. */
static int proc_bench(const struct ul_micro_env *env, struct ul_micro_out *out,
		      enum ul_micro_proc_how how)
{
	struct ul_micro_proc p = { .how = how, .target = "/bin/true", .envp = environ };

	return ul_micro_simple(env, out, ul_micro_proc_batch, &p, 1, 0);
}

static int bench_fork(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return proc_bench(env, out, UL_MICRO_FORK);
}

static int bench_exec(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return proc_bench(env, out, UL_MICRO_EXEC);
}

static int bench_sh(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return proc_bench(env, out, UL_MICRO_SH);
}

UL_MICRO_LAT(lat_null, "lat-null", "proc", "null call: getppid()", bench_null);
UL_MICRO_LAT(lat_nullio, "lat-nullio", "proc",
	     "null I/O: mean of a 1-byte read of /dev/zero and write to /dev/null", bench_nullio);
UL_MICRO_LAT(lat_stat, "lat-stat", "proc", "stat() of a scratch file", bench_stat);
UL_MICRO_LAT(lat_openclose, "lat-openclose", "proc", "open()+close() of a scratch file",
	     bench_openclose);
UL_MICRO_LAT(lat_select, "lat-select", "proc",
	     "select() on 100 listening TCP sockets, zero timeout", bench_select);
UL_MICRO_LAT(lat_siginst, "lat-siginst", "proc", "signal install: sigaction(SIGUSR1)",
	     bench_siginst);
UL_MICRO_LAT(lat_sighndl, "lat-sighndl", "proc",
	     "signal handler: kill(self, SIGUSR1) delivered to a handler", bench_sighndl);
UL_MICRO_LAT(lat_fork, "lat-fork", "proc", "fork, child _exit(0), waitpid", bench_fork);
UL_MICRO_LAT(lat_exec, "lat-exec", "proc", "fork, child execs /bin/true, waitpid", bench_exec);
UL_MICRO_LAT(lat_sh, "lat-sh", "proc", "fork, child runs /bin/sh -c /bin/true, waitpid", bench_sh);
