/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "resp" probe: resp1's trivial interactive task (touch a working set,
 * run an `ls -l`-like program, a fixed bit of CPU work), timed whole.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/probe.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * The task stands for "uncover a window, type ls": after a think-time sleep
 * in which a memory-stressed kernel may have paged the session out, the
 * user's process needs its memory back, starts a small program that lists
 * a directory, and computes a little.  Every part is a fixed amount of
 * work, never calibrated per run, so samples compare across kernels and
 * settings on one machine.  On the development machine (AMD EPYC, 2 vCPU,
 * debugoptimized) an unloaded sample takes ~52 ms: ~50 ms of CPU work and
 * ~1.7 ms for touching the resident working set plus the fork/exec/list.
 */
enum {
	OPT_WORKING_SET,
	OPT_EXEC,
	OPT_FILES,
	OPT_CPU_WORK
};

#define RESP_CPU_WORK_DEF INT64_C(34000000)

static const struct ul_opt resp_opts[] = {
	[OPT_WORKING_SET] = { "working-set", UL_OPT_SIZE, 0, (int64_t)1 << 40, 32 * (int64_t)UL_MiB,
			      "memory the task writes, one byte a page, each sample (0 = none)" },
	[OPT_EXEC] = { "exec", UL_OPT_BOOL, 0, 1, 1,
		       "fork and exec a program that lists and lstat()s a directory, like ls -l" },
	[OPT_FILES] = { "files", UL_OPT_COUNT, 0, 100000, 100,
			"small files in the directory that program lists" },
	[OPT_CPU_WORK] = { "cpu-work", UL_OPT_COUNT, 0, INT64_C(10000000000), RESP_CPU_WORK_DEF,
			   "iterations of a fixed integer loop (0 = none)" },
	{ NULL, UL_OPT_COUNT, 0, 0, 0, NULL },
};

struct resp_state {
	unsigned char *ws; /* the working set, NULL when working-set is 0 */
	size_t ws_bytes;
	size_t page_bytes;
	unsigned char tick; /* changes each sample so every write dirties */
	char *argv_dir;	    /* the directory the exec'd program lists */
	char *argv[4];	    /* built once in setup: sample() must not allocate */
};

/* Keeps the CPU loop's result observable so it cannot be optimised away. */
static volatile uint64_t resp_sink;

/*
 * xorshift64: a serial dependency chain of shifts and xors, so the time
 * is set by the core's integer latency, not memory, and the compiler can
 * neither vectorise nor fold it.  ~1.5 ns per iteration on the development
 * machine.
 */
static void cpu_work(int64_t iters)
{
	uint64_t x = UINT64_C(0x9e3779b97f4a7c15);

	for (int64_t i = 0; i < iters; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
	}
	resp_sink = x;
}

/* Write one byte to every page, so pages swapped out must fault back in. */
static void touch_pages(struct resp_state *st)
{
	volatile unsigned char *p = st->ws;

	st->tick++;
	for (size_t off = 0; off < st->ws_bytes; off += st->page_bytes)
		p[off] = st->tick;
}

/*
 * fork(), again while the kernel says EAGAIN or ENOMEM, for up to
 * FORK_RETRY_NS: a memory cgroup at its limit can fail the fork's kernel
 * allocations for a moment while it reclaims (seen once in CI at 100% of
 * --mem-limit with swap), and a pids limit fails it until a process
 * exits.  The user's command would wait as well (a shell retries a fork),
 * so the wait is part of the sample.  The child's pid, or -1 with errno.
 */
#define FORK_RETRY_NS (2 * UL_NS_PER_SEC)
#define FORK_BACKOFF_MAX_NS (64 * UL_NS_PER_MS)

static pid_t fork_patiently(void)
{
	ul_nsec give_up = ul_now_ns() + FORK_RETRY_NS, backoff = UL_NS_PER_MS;
	pid_t pid;

	while ((pid = fork()) < 0 && (errno == EAGAIN || errno == ENOMEM) &&
	       ul_now_ns() < give_up) {
		struct timespec ts = { .tv_sec = (time_t)(backoff / UL_NS_PER_SEC),
				       .tv_nsec = (long)(backoff % UL_NS_PER_SEC) };
		int err = errno;

		nanosleep(&ts, NULL);
		errno = err;
		if (backoff < FORK_BACKOFF_MAX_NS)
			backoff *= 2;
	}
	return pid;
}

/* fork + execv + wait4 the lister: 0, EIO on a non-zero exit, or errno. */
static int run_lister(const struct ul_probe_ctx *ctx, struct resp_state *st)
{
	int status;
	pid_t pid, w;

	pid = fork_patiently();
	if (pid < 0)
		return errno;
	if (pid == 0) {
		execv(ctx->self_exe, st->argv);
		_exit(127);
	}
	do
		w = wait4(pid, &status, 0, NULL);
	while (w < 0 && errno == EINTR);
	if (w < 0)
		return errno;
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : EIO;
}

static int make_files(const char *dir, int64_t n)
{
	/* Roughly what a small text file in a home directory holds. */
	static const char body[] = "underload resp probe: a small file for the lister to lstat\n";
	int dfd, rc = 0;

	if (mkdir(dir, 0700))
		return errno;
	dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno;
	for (int64_t i = 0; i < n && !rc; i++) {
		char name[32];
		int fd;

		snprintf(name, sizeof(name), "file%06lld", (long long)i);
		fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd < 0) {
			rc = errno;
			break;
		}
		if (write(fd, body, sizeof(body) - 1) != (ssize_t)(sizeof(body) - 1))
			rc = errno ? errno : EIO;
		if (close(fd) && !rc)
			rc = errno;
	}
	close(dfd);
	return rc;
}

static void resp_teardown(struct ul_probe_ctx *ctx, void *state)
{
	struct resp_state *st = state;

	(void)ctx;
	if (!st)
		return;
	if (st->ws)
		munmap(st->ws, st->ws_bytes);
	/* The files stay: the supervisor removes the scratch directory. */
	free(st->argv_dir);
	free(st);
}

static int resp_setup(struct ul_probe_ctx *ctx, void **state)
{
	struct resp_state *st = calloc(1, sizeof(*st));
	long pg = sysconf(_SC_PAGESIZE);
	int rc;

	if (!st)
		return ENOMEM;
	st->page_bytes = pg > 0 ? (size_t)pg : 4096;
	st->ws_bytes = (size_t)ctx->opt[OPT_WORKING_SET];
	/* Touching more than the run's memory budget would only measure the OOM killer. */
	if (ctx->mem_budget_bytes && st->ws_bytes > ctx->mem_budget_bytes) {
		st->ws_bytes = 0;
		rc = E2BIG;
		goto fail;
	}
	if (st->ws_bytes) {
		void *p = mmap(NULL, st->ws_bytes, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

		if (p == MAP_FAILED) {
			rc = errno;
			st->ws_bytes = 0;
			goto fail;
		}
		st->ws = p;
		/*
		 * The lister is forked from us: without this every fork would
		 * write-protect the set for copy-on-write and the next touch
		 * would take a fault per page even on an idle system.  Only
		 * pages the kernel took away should cost a fault.
		 */
		if (madvise(p, st->ws_bytes, MADV_DONTFORK)) {
			rc = errno;
			goto fail;
		}
		touch_pages(st); /* resident before the first think time */
	}
	if (ctx->opt[OPT_EXEC]) {
		if (!ctx->self_exe || !ctx->scratch_dir) {
			rc = EINVAL;
			goto fail;
		}
		/* Per-pid name: two resp probes may share a scratch dir. */
		if (asprintf(&st->argv_dir, "%s/resp-%ld", ctx->scratch_dir, (long)getpid()) < 0) {
			st->argv_dir = NULL;
			rc = ENOMEM;
			goto fail;
		}
		rc = make_files(st->argv_dir, ctx->opt[OPT_FILES]);
		if (rc)
			goto fail;
		st->argv[0] = (char *)"underload";
		st->argv[1] = (char *)"__lsdir";
		st->argv[2] = st->argv_dir;
		st->argv[3] = NULL;
	}
	*state = st;
	return 0;
fail:
	resp_teardown(ctx, st);
	return rc;
}

static int resp_sample(struct ul_probe_ctx *ctx, void *state, int64_t *out_ns)
{
	struct resp_state *st = state;
	ul_nsec t0 = ul_now_ns();
	int rc = 0;

	if (st->ws)
		touch_pages(st);
	if (ctx->opt[OPT_EXEC])
		rc = run_lister(ctx, st);
	if (!rc)
		cpu_work(ctx->opt[OPT_CPU_WORK]);
	*out_ns = ul_now_ns() - t0;
	return rc;
}

const struct ul_probe ul_probe_resp = {
	.name = "resp",
	.summary = "resp1's trivial task: touch a working set, exec an ls -l, fixed CPU work",
	.unit = "ns",
	.opts = resp_opts,
	.kind = UL_PROBE_REPEAT,
	.supported = NULL,
	.setup = resp_setup,
	.sample = resp_sample,
	.teardown = resp_teardown,
};
