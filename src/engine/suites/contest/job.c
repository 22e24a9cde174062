/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite's job runner: the job and its preparation resolved
 * (--job, or make in the generated tree), spawned in their directory with
 * their output to a log (whose tail is quoted when they fail), timed whole
 * while the load is watched, and the page cache synced and dropped before
 * each job.  engine/suites/contest/contest.c drives the cells.
 */
#include "core/compat.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/suites/contest/internal.h"
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

/* What the forked child does before exec: a directory, a log, no stdin. */
struct exec_spec {
	const struct command *cmd;
	const char *dir;
	const char *log;
};

/*
 * The job's child, after ul_spawn()'s set-up: stdout and stderr to the
 * log (read back when the job fails), stdin from /dev/null, the job's
 * directory, then exec.  Failures are written to the log and end the child
 * with the shell's codes (126 cannot enter / open, 127 cannot execute).
 */
static int exec_child(void *arg)
{
	const struct exec_spec *x = arg;
	int fd = open(x->log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int in = open("/dev/null", O_RDONLY | O_CLOEXEC);

	if (fd < 0 || in < 0 || dup2(fd, STDOUT_FILENO) < 0 || dup2(fd, STDERR_FILENO) < 0 ||
	    dup2(in, STDIN_FILENO) < 0)
		return 126;
	if (chdir(x->dir) < 0) {
		dprintf(STDERR_FILENO, "underload: cannot enter '%s': %s\n", x->dir,
			strerror(errno));
		return 126;
	}
	execv(x->cmd->path, x->cmd->argv);
	dprintf(STDERR_FILENO, "underload: cannot execute '%s': %s\n", x->cmd->path,
		strerror(errno));
	return 127;
}

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
		n = pread(fd, data, sizeof(data) - 1, size > (off_t)sizeof(data) - 1 ?
							    size - (off_t)sizeof(data) + 1 : 0);
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
int ul_contest_cell_dir(const struct ul_engine *eng, const struct ul_cell *cell, char *buf, size_t len)
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

/*
 * Spawn `cmd` and wait for it until `timeout_ns`, watching `load_child`
 * (may be NULL).  On return the command is reaped (except RUN_UNKILLABLE,
 * where its heap record stays with the supervisor) and *child holds its
 * rusage; *elapsed_ns is fork to reap.  `prog` (may be NULL) and `left`
 * make the progress line, refreshed every second.
 */
enum run_result ul_contest_run_command(struct contest *ct, const struct command *cmd, const char *dir,
				   const char *log, int64_t timeout_ns, struct ul_child *load_child,
				   const char *prog, const char *left, struct ul_child *result,
				   int64_t *elapsed_ns, int *spawn_err)
{
	struct ul_engine *eng = ct->eng;
	struct exec_spec x = { .cmd = cmd, .dir = dir, .log = log };
	struct ul_spawn_opts so;
	struct ul_child *c = calloc(1, sizeof(*c));
	enum run_result rr = RUN_EXITED;
	ul_nsec t0, deadline;
	char ran[32];

	*elapsed_ns = 0;
	if (!c) {
		*spawn_err = -ENOMEM;
		return RUN_SPAWN_FAILED;
	}
	memset(&so, 0, sizeof(so));
	so.name = "job";
	so.fn = exec_child;
	so.arg = &x;
	/* The job is what the memory limit is about, like resp's probe. */
	so.cgroup_procs = eng->have_cgroup ? eng->cgroup.procs : NULL;
	t0 = ul_now_ns();
	*spawn_err = ul_spawn(&eng->sup, &so, c);
	if (*spawn_err) {
		free(c);
		return RUN_SPAWN_FAILED;
	}
	deadline = t0 + timeout_ns;
	while (!c->reaped) {
		struct ul_child *exited = NULL;
		ul_nsec now = ul_now_ns(), wake = now + CONTEST_TICK_NS;
		enum ul_wait_result w;

		if (prog) {
			ul_fmt_duration(ran, sizeof(ran),
					(now - t0) / UL_NS_PER_SEC * UL_NS_PER_SEC);
			ul_engine_progress(eng, "%s: job running %s%s", prog, ran, left);
		}
		w = ul_sup_wait(&eng->sup, -1, wake < deadline ? wake : deadline, &exited);
		if (w == UL_WAIT_CHILD_EXITED && exited == c)
			break;
		if (w == UL_WAIT_CHILD_EXITED && load_child && exited == load_child) {
			rr = RUN_LOAD_DIED;
			break;
		}
		if (w == UL_WAIT_INTERRUPTED) {
			rr = RUN_INTERRUPTED;
			break;
		}
		if (w == UL_WAIT_TIMEOUT && ul_now_ns() >= deadline) {
			rr = RUN_TIMEOUT;
			break;
		}
	}
	*elapsed_ns = ul_now_ns() - t0;
	if (!c->reaped && ul_sup_stop(&eng->sup, c, ul_engine_stop_grace(eng)) < 0)
		return RUN_UNKILLABLE; /* c stays registered: deliberately not freed */
	*result = *c;
	free(c);
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
	rr = ul_contest_run_command(ct, &ct->prep, ct->job_dir, log, CONTEST_PREP_TIMEOUT_NS, NULL, NULL, "",
			 &c, &ns, &err);
	if (rr == RUN_EXITED && WIFEXITED(c.wstatus) && WEXITSTATUS(c.wstatus) == 0)
		return 0;
	cell->outcome = rr == RUN_INTERRUPTED ? UL_CELL_INTERRUPTED : UL_CELL_PROBE_FAILED;
	if (rr == RUN_EXITED) {
		ul_wstatus_describe(c.wstatus, how, sizeof(how));
		ul_contest_log_tail(log, 2, tail, sizeof(tail));
		ul_contest_note(cell, "job preparation '%s' failed (%s)%s%s",
			 ct->prep.text, how, *tail ? ": " : "", tail);
	} else if (rr == RUN_SPAWN_FAILED) {
		ul_contest_note(cell, "cannot start job preparation '%s': %s",
			 ct->prep.text, strerror(-err));
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
		ul_error("contest: %s '%s': cannot execute '%s': %s", what, cmd->text,
			 cmd->argv[0], r == -ENOENT && !strchr(cmd->argv[0], '/') ?
					       "not found in PATH" : strerror(-r));
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

