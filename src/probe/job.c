/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The "job" probe: a reference job timed end to end (contest's compile, or
 * the command --job names), with wait4() rusage: series wall_ns, user_ns,
 * sys_ns (probe/job.h).  A whole probe with its own ops: the whole driver
 * (probe/whole.c) spawns, waits and stops its runs; the contest suite
 * resolves the command and words what a run that did not end means.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "model/model.h"
#include "probe/job.h"
#include "probe/probe.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *const series_names[] = { "wall_ns", "user_ns", "sys_ns", NULL };

static int job_start(const struct ul_probe_ctx *ctx, void **state)
{
	(void)state;
	return ctx->arg ? 0 : -EINVAL; /* the suite names the command */
}

/*
 * The run's child, after ul_spawn()'s set-up: stdout and stderr to the
 * log (read back when the job fails), stdin from /dev/null, the job's
 * directory, then exec.  Failures are written to the log and end the child
 * with the shell's codes.
 */
static int job_run(const struct ul_probe_ctx *ctx, void *state)
{
	const struct ul_job_spec *x = ctx->arg;
	int fd = open(x->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

	(void)state;
	if (fd < 0 || in < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0 ||
	    dup2(in, STDIN_FILENO) < 0)
		return UL_JOB_CANNOT_ENTER;
	if (chdir(x->dir) < 0) {
		dprintf(STDERR_FILENO, "underload: cannot enter '%s': %s\n", x->dir,
			strerror(errno));
		return UL_JOB_CANNOT_ENTER;
	}
	execv(x->path, x->argv);
	dprintf(STDERR_FILENO, "underload: cannot execute '%s': %s\n", x->path, strerror(errno));
	return UL_JOB_CANNOT_EXEC;
}

int ul_job_result(const struct ul_child *run, int64_t elapsed_ns, struct ul_cell *cell)
{
	int64_t v[] = { elapsed_ns, ul_tv_to_ns(&run->ru.ru_utime),
			ul_tv_to_ns(&run->ru.ru_stime) };
	int rc = 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(v); i++) {
		struct ul_series *s = ul_cell_series(cell, series_names[i]);

		rc |= s ? ul_series_push(s, v[i]) : -ENOMEM;
	}
	return rc ? -ENOMEM : 0;
}

static int job_result(const struct ul_probe_ctx *ctx, void *state, const struct ul_child *run,
		      int64_t elapsed_ns, struct ul_cell *cell)
{
	(void)ctx;
	(void)state;
	return ul_job_result(run, elapsed_ns, cell);
}

static const struct ul_whole_ops job_ops = {
	.start = job_start,
	.run = job_run,
	.result = job_result,
	.series = series_names,
};

const struct ul_probe ul_probe_job = {
	.name = "job",
	.summary = "a reference job (make -jNCPU of a generated tree, or --job) timed whole",
	.unit = "ns",
	.kind = UL_PROBE_WHOLE,
	.direction = UL_LOWER_IS_BETTER,
	.whole = &job_ops,
};
