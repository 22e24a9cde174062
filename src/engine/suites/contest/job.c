/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite's job runner: the job and its preparation resolved
 * (--job, or make in the generated tree), run as the job probe
 * (probe/job.c: in their directory, their output to a log whose tail is
 * quoted when they fail) by the whole driver while the load is watched,
 * and the page cache synced and dropped before each job.
 * engine/suites/contest/contest.c drives the cells.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/suites/contest/internal.h"
#include "probe/job.h"
#include "probe/probe.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/*
 * The last `lines` non-empty lines of a log, joined by " | " into buf (""
 * when the log is empty or unreadable).  Only the last 4 KiB are read.
 */
void ul_contest_log_tail(const char *path, int lines, char *buf, size_t len)
{
	char data[4096];
	ssize_t n = 0;
	off_t size;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	char *starts[16];
	int k = 0;

	buf[0] = '\0';
	if (fd < 0)
		return;
	size = lseek(fd, 0, SEEK_END);
	if (size > 0)
		n = pread(fd, data, sizeof(data) - 1,
			  size > (off_t)sizeof(data) - 1 ? size - (off_t)sizeof(data) + 1 : 0);
	close(fd);
	if (n <= 0)
		return;
	data[n] = '\0';
	if (lines > (int)UL_ARRAY_SIZE(starts))
		lines = (int)UL_ARRAY_SIZE(starts);
	/* Walk backwards collecting line starts; blank lines are skipped. */
	for (char *e = data + n; e > data && k < lines;) {
		char *s = e;

		while (s > data && s[-1] != '\n')
			s--;
		if (e > s && e[-1] == '\n')
			e[-1] = '\0';
		if (*s)
			starts[k++] = s;
		e = s > data ? s - 1 : data;
		if (s > data)
			*e = '\0';
		if (s == data)
			break;
	}
	for (int i = k - 1; i >= 0; i--) {
		size_t used = strlen(buf);

		snprintf(buf + used, len - used, "%s%s", used ? " | " : "", starts[i]);
	}
}

/* Set the cell's note; a long reason is cut at the note's size (it is for people). */
void ul_contest_note(struct ul_cell *cell, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cell->note, sizeof(cell->note), fmt, ap);
	va_end(ap);
}

/* A cell's private directory; its name carries the scratch prefix so it can be removed. */
int ul_contest_cell_dir(const struct ul_engine *eng, const struct ul_cell *cell, char *buf,
			size_t len)
{
	int n = snprintf(buf, len, "%s/" UL_SCRATCH_PREFIX "cell-%d", eng->scratch, cell->seq);

	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	return mkdir(buf, 0700) < 0 ? -errno : 0;
}

/*
 * sync(), then, as root and unless told not to, drop clean page cache,
 * dentries and inodes, so every job starts from the disk as contest's
 * flushed runs did.  Returns whether the caches were dropped.
 */
bool ul_contest_flush_caches(struct contest *ct)
{
	static const char three[] = "3\n";
	int fd, err = 0;

	sync();
	if (!ct->drop_caches)
		return false;
	fd = open("/proc/sys/vm/drop_caches", O_WRONLY | O_CLOEXEC);
	if (fd < 0 || write(fd, three, sizeof(three) - 1) != (ssize_t)(sizeof(three) - 1))
		err = errno ? errno : EIO;
	if (fd >= 0)
		close(fd);
	if (!err)
		return true;
	if (!ct->drop_warned) {
		ul_engine_progress_done(ct->eng);
		ul_warning("contest: cannot drop the page cache (%s): jobs start with a warm cache",
			   strerror(err));
		ct->drop_warned = true;
	}
	ct->drop_caches = false;
	return false;
}

/* The progress line of a running job, refreshed by the whole driver's
 * tick, which also takes the exit records of the job's tree so far. */
struct job_progress {
	const struct ul_engine *eng;
	const char *prog, *left;
	struct ul_breakdown_rec *why; /* NULL: the parts are not recorded */
};

static void job_progress_tick(void *arg, int64_t ran_ns)
{
	const struct job_progress *p = arg;
	char ran[32];

	ul_breakdown_poll(p->why);
	ul_fmt_duration(ran, sizeof(ran), ran_ns / UL_NS_PER_SEC * UL_NS_PER_SEC);
	ul_engine_progress(p->eng, "%s: job running %s%s", p->prog, ran, p->left);
}

/* How the driver's wait ended, in the runner's words (the run stopped). */
static enum run_result run_result_of(enum ul_measure_result mr)
{
	switch (mr) {
	case UL_MEASURE_OK:
		return RUN_EXITED;
	case UL_MEASURE_FAILED:
		return RUN_SPAWN_FAILED;
	case UL_MEASURE_TIMEOUT:
		return RUN_TIMEOUT;
	case UL_MEASURE_INTERRUPTED:
		return RUN_INTERRUPTED;
	case UL_MEASURE_CHILD_EXITED:
		break;
	}
	return RUN_LOAD_DIED;
}

/*
 * Run `cmd` as the job probe (probe/job.c) through the whole driver and
 * wait for it until `timeout_ns`, watching `load_child` (may be NULL):
 * its death stops the command.  On return the command is reaped (except
 * RUN_UNKILLABLE, where its record stays with the supervisor) and *child
 * holds its rusage; *elapsed_ns is spawn to reap.  `prog` (may be NULL)
 * and `left` make the progress line, refreshed every second.
 */
enum run_result ul_contest_run_command(struct contest *ct, const struct command *cmd,
				       const char *dir, const char *log, int64_t timeout_ns,
				       struct ul_child *load_child, const char *prog,
				       const char *left, struct ul_child *result,
				       int64_t *elapsed_ns, int *spawn_err,
				       struct ul_breakdown_sample *why)
{
	struct ul_engine *eng = ct->eng;
	const struct ul_job_spec spec = {
		.path = cmd->path, .argv = cmd->argv, .dir = dir, .log = log
	};
	/* The job is what the memory limit is about, like resp's probe. */
	const struct ul_probe_ctx ctx = { .arg = &spec,
					  .cgroup_procs = eng->have_cgroup ? eng->cgroup.procs
									   : NULL };
	const struct job_progress jp = {
		.eng = eng, .prog = prog, .left = left, .why = why ? ct->why : NULL
	};
	const struct ul_whole_watch watch = { .tick_ns = prog ? CONTEST_TICK_NS : 0,
					      .tick = job_progress_tick,
					      .arg = (void *)&jp,
					      .grace_ns = ul_engine_stop_grace(eng) };
	ul_nsec deadline = ul_now_ns() + timeout_ns;
	struct ul_whole_run *wr;
	struct ul_child *ex = NULL;
	enum ul_measure_result mr;
	enum run_result rr;

	*elapsed_ns = 0;
	*spawn_err = ul_whole_start(ul_probe_find("job"), &ctx, &wr);
	if (*spawn_err)
		return RUN_SPAWN_FAILED;
	ul_whole_set_watch(wr, &watch);
	if (why) {
		why->read = false;
		ul_breakdown_begin_life(ct->why); /* the command's tree is forked from now */
	}
	mr = ul_whole_measure(&eng->sup, wr, deadline, spawn_err, &ex);
	while (mr == UL_MEASURE_CHILD_EXITED && ex != load_child)
		mr = ul_whole_wait(&eng->sup, wr, deadline, &ex); /* not ours: a monitor's */
	if (mr == UL_MEASURE_CHILD_EXITED)
		ul_whole_cancel(&eng->sup, wr);
	rr = ul_whole_unkillable(wr) ? RUN_UNKILLABLE : run_result_of(mr);
	if (rr == RUN_EXITED) {
		*result = *ul_whole_child(wr, elapsed_ns);
		if (why)
			ul_breakdown_end_life(ct->why, result, *elapsed_ns, why);
	}
	ul_whole_stop(&eng->sup, wr);
	return rr;
}

/* The untimed preparation before a job; 0, or -1 after filling the cell's failure. */
int ul_contest_run_prep(struct contest *ct, struct ul_cell *cell, const char *dir, int *result)
{
	struct ul_engine *eng = ct->eng;
	struct ul_child c;
	char log[PATH_MAX + 16], how[96], tail[160];
	int64_t ns;
	int err = 0;
	enum run_result rr;

	snprintf(log, sizeof(log), "%s/prep.log", dir);
	rr = ul_contest_run_command(ct, &ct->prep, ct->job_dir, log, CONTEST_PREP_TIMEOUT_NS, NULL,
				    NULL, "", &c, &ns, &err, NULL);
	if (rr == RUN_EXITED && WIFEXITED(c.wstatus) && WEXITSTATUS(c.wstatus) == 0)
		return 0;
	cell->outcome = rr == RUN_INTERRUPTED ? UL_CELL_INTERRUPTED : UL_CELL_PROBE_FAILED;
	if (rr == RUN_EXITED) {
		ul_wstatus_describe(c.wstatus, how, sizeof(how));
		ul_contest_log_tail(log, 2, tail, sizeof(tail));
		ul_contest_note(cell, "job preparation '%s' failed (%s)%s%s", ct->prep.text, how,
				*tail ? ": " : "", tail);
	} else if (rr == RUN_SPAWN_FAILED) {
		ul_contest_note(cell, "cannot start job preparation '%s': %s", ct->prep.text,
				strerror(-err));
	} else if (rr == RUN_INTERRUPTED) {
		ul_contest_note(cell, "interrupted during job preparation");
	} else {
		snprintf(cell->note, sizeof(cell->note),
			 "job preparation '%s' did not finish within 10m", ct->prep.text);
	}
	*result = rr == RUN_INTERRUPTED ? UL_ENGINE_INTERRUPTED : UL_ENGINE_ERROR;
	if (rr != RUN_INTERRUPTED) {
		ul_engine_progress_done(eng);
		ul_error("contest: %s", cell->note);
	}
	return -1;
}

/* Resolve a command's program; prints the error.  `what` is "job" or "job preparation". */
static int resolve(struct command *cmd, const char *dir, const char *what)
{
	int r = ul_contest_which(cmd->argv[0], dir, cmd->path, sizeof(cmd->path));

	if (r) {
		ul_error("contest: %s '%s': cannot execute '%s': %s", what, cmd->text, cmd->argv[0],
			 r == -ENOENT && !strchr(cmd->argv[0], '/') ? "not found in PATH"
								    : strerror(-r));
		return -1;
	}
	return 0;
}

static int split_command(struct command *cmd, const char *text, const char *what)
{
	char why[128];
	int r = ul_contest_split(text, &cmd->argv, why, sizeof(why));

	cmd->text = text;
	cmd->argv_owned = r == 0;
	if (r == -ENOMEM)
		return ul_oom();
	if (r)
		return ul_error("contest: %s '%s': %s", what, text, why);
	return 0;
}

/* The default job: make -jNCPU in the generated tree, `make clean` before each. */
int ul_contest_default_job(struct contest *ct)
{
	char cc[PATH_MAX];
	int ncpu = ct->eng->run->host.ncpu > 0 ? ct->eng->run->host.ncpu : 1;

	snprintf(ct->make_jobs, sizeof(ct->make_jobs), "-j%d", ncpu);
	ct->make_argv[0] = (char *)"make";
	ct->make_argv[1] = ct->make_jobs;
	ct->make_argv[2] = NULL;
	ct->clean_argv[0] = (char *)"make";
	ct->clean_argv[1] = (char *)"clean";
	ct->clean_argv[2] = NULL;
	ct->job.argv = ct->make_argv;
	ct->job.text = "make -jNCPU (the generated tree)";
	ct->prep.argv = ct->clean_argv;
	ct->prep.text = "make clean";
	ct->have_prep = true;
	if (resolve(&ct->job, NULL, "job") || resolve(&ct->prep, NULL, "job preparation"))
		return -1;
	/* make would only say "cc: No such file" on the first job. */
	if (ul_contest_which("cc", NULL, cc, sizeof(cc))) {
		ul_error("contest: the default job needs a C compiler as 'cc' in PATH "
			 "(or give --job)");
		return -1;
	}
	snprintf(ct->job_dir, sizeof(ct->job_dir), "%s", ct->tree);
	return 0;
}

int ul_contest_user_job(struct contest *ct)
{
	if (ct->o.job_dir) {
		if (!realpath(ct->o.job_dir, ct->job_dir))
			return ul_error_errno(errno, "contest: --job-dir '%s'", ct->o.job_dir);
	} else if (!getcwd(ct->job_dir, sizeof(ct->job_dir))) {
		return ul_error_errno(errno, "contest: cannot find the current directory");
	}
	if (split_command(&ct->job, ct->o.job, "job") || resolve(&ct->job, ct->job_dir, "job"))
		return -1;
	if (ct->o.job_prep) {
		if (split_command(&ct->prep, ct->o.job_prep, "job preparation") ||
		    resolve(&ct->prep, ct->job_dir, "job preparation"))
			return -1;
		ct->have_prep = true;
	}
	return 0;
}
