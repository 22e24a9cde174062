/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "mtest01" probe: LTP mtest01 -p80 -w, one allocate-and-touch child
 * timed end to end (probe/mtest01.h).  A whole probe with its own ops: the
 * whole driver (probe/whole.c) spawns, waits and stops its runs; the mtest
 * suite sizes them and says what a run that did not end means.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "model/model.h"
#include "probe/mtest01.h"
#include "probe/probe.h"
#include "proc/supervise.h"

#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>

/* The series of one run, in storage order; [0] is the cell's primary. */
enum {
	S_ELAPSED,
	S_BYTES,
	S_USER,
	S_SYS,
	S_CPU,
	S_MAJFLT,
	S_MINFLT,
	S_STATUS,
	S_N
};
static const char *const series_names[S_N + 1] = {
	"mtest_elapsed_ns", UL_MTEST_BYTES_SERIES, "mtest_user_ns", "mtest_sys_ns",
	"mtest_cpu_centi",  "mtest_majflt",	   "mtest_minflt",  UL_MTEST_STATUS_SERIES,
};

/* Where the chunks are chained, so no compiler may drop the writes. */
static void *volatile mtest_sink;

int ul_mtest_child_main(void *arg)
{
	const struct ul_mtest_child *c = arg;
	uint64_t done = 0;

	while (done < c->target) {
		uint64_t left = c->target - done;
		size_t want = (size_t)(left < c->chunk ? left : c->chunk);
		char *p = malloc(want);

		if (!p)
			return UL_MTEST_ALLOC_FAILED;
		/* mtest01 -w writes every byte; that touches every page. */
		memset(p, 'a', want);
		if (want >= sizeof(void *))
			memcpy(p, (void *const *)&mtest_sink, sizeof(void *));
		mtest_sink = p;
		done += want;
		atomic_store_explicit(c->bytes, done, memory_order_relaxed);
	}
	return UL_MTEST_PASS;
}

/* The runs' shared state: the byte counter the child publishes. */
static int mtest01_start(const struct ul_probe_ctx *ctx, void **state)
{
	_Atomic uint64_t *bytes;

	if (!ctx->arg)
		return -EINVAL; /* the suite sizes every run */
	bytes = mmap(NULL, sizeof(*bytes), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1,
		     0);
	if (bytes == MAP_FAILED)
		return -errno;
	*state = (void *)bytes;
	return 0;
}

/* In the run's child: the counter from 0, then mtest01's work. */
static int mtest01_run(const struct ul_probe_ctx *ctx, void *state)
{
	const struct ul_mtest01_size *size = ctx->arg;
	struct ul_mtest_child c = { .target = size->target, .chunk = size->chunk, .bytes = state };

	atomic_store(c.bytes, 0);
	return ul_mtest_child_main(&c);
}

static enum ul_mtest_status classify(const struct ul_child *c)
{
	if (WIFEXITED(c->wstatus)) {
		switch (WEXITSTATUS(c->wstatus)) {
		case UL_MTEST_PASS:
			return UL_MTEST_PASS;
		case UL_MTEST_ALLOC_FAILED:
			return UL_MTEST_ALLOC_FAILED;
		default:
			return UL_MTEST_FAILED;
		}
	}
	if (WIFSIGNALED(c->wstatus) && WTERMSIG(c->wstatus) == SIGKILL)
		return UL_MTEST_KILLED;
	return UL_MTEST_FAILED;
}

/* One ended run's values, pushed onto the series (made in order at the cell's start). */
static int mtest01_result(const struct ul_probe_ctx *ctx, void *state, const struct ul_child *run,
			  int64_t elapsed_ns, struct ul_cell *cell)
{
	_Atomic uint64_t *bytes = state;
	int64_t v[S_N], cpu_ns;
	int rc = 0;

	(void)ctx;
	v[S_ELAPSED] = elapsed_ns;
	v[S_BYTES] = (int64_t)atomic_load(bytes);
	v[S_USER] = ul_tv_to_ns(&run->ru.ru_utime);
	v[S_SYS] = ul_tv_to_ns(&run->ru.ru_stime);
	cpu_ns = v[S_USER] + v[S_SYS];
	/* GNU time's %P: (user + sys) / elapsed, here in hundredths. */
	v[S_CPU] = v[S_ELAPSED] > 0
			   ? (int64_t)((double)cpu_ns * 10000.0 / (double)v[S_ELAPSED] + 0.5)
			   : 0;
	v[S_MAJFLT] = run->ru.ru_majflt;
	v[S_MINFLT] = run->ru.ru_minflt;
	v[S_STATUS] = classify(run);
	atomic_store(bytes, 0); /* the next run counts from 0 */
	for (int i = 0; i < S_N; i++)
		rc |= ul_series_push(ul_cell_series(cell, series_names[i]), v[i]);
	return rc ? -ENOMEM : 0;
}

static void mtest01_stop(void *state)
{
	if (state)
		munmap(state, sizeof(_Atomic uint64_t));
}

static const struct ul_whole_ops mtest01_ops = {
	.start = mtest01_start,
	.run = mtest01_run,
	.result = mtest01_result,
	.stop = mtest01_stop,
	.series = series_names,
	.oom_first = true,
};

const struct ul_probe ul_probe_mtest01 = {
	.name = "mtest01",
	.summary = "allocates and writes a share of memory + swap, timed whole (LTP mtest01 -w)",
	.unit = "ns",
	.kind = UL_PROBE_WHOLE,
	.direction = UL_LOWER_IS_BETTER,
	.whole = &mtest01_ops,
};
