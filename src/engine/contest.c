/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite: Con Kolivas's kernel-compile-under-load benchmark.  A
 * reference job (by default a generated C tree built with make) is timed
 * whole under each of eight loads, in interleaved rounds.
 *
 * One cell per job: suite "contest", the load's name, probe "job".  Series
 * wall_ns, user_ns, sys_ns hold the job's elapsed time and the CPU of its
 * whole process tree (wait4 rusage: make and every compiler it reaped);
 * metrics hold CPU%, the load's LCPU% and Loads (see store_results()).
 *
 * Per cell: run the preparation (make clean), sync and (as root) drop the
 * page cache, start the load (it gets a private directory removed after
 * the cell), wait the lead time, run and time the job, stop the load.  A
 * load that fails to start or dies before the job ends invalidates the
 * cell (contest's known bug was to report such a run as loaded).  A job
 * that fails is recorded as probe-failed; when the very first job fails
 * the job itself is broken and the suite stops.
 */
#include "core/compat.h"
#include "engine/contest.h"
#include "core/log.h"
#include "core/parse.h"
#include "engine/engine.h"
#include "engine/srctree.h"
#include "load/load.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

/* Kolivas's loads in the seed's order of blocks. */
static const struct ul_suite_test contest_tests[] = {
	{ .load = "noload" },	 { .load = "process_load" }, { .load = "io_load" },
	{ .load = "mem_load" },	 { .load = "tarc_load" },    { .load = "tarx_load" },
	{ .load = "read_load" }, { .load = "lslr_load" },    { NULL },
};

static const struct ul_suite_metric contest_metrics[] = {
	{ .series = "wall_ns", .label = "Time", .unit = "ns", .direction = UL_LOWER_IS_BETTER },
	{ NULL },
};

/*
 * Loads may take long to be ready: read_load writes a budget-sized file
 * and tarx_load archives the tree in prepare(), at disk speed (24 GiB at
 * 300 MB/s is 80 s).  Set-up is not measured, so a generous bound only
 * delays the diagnosis of a load that hangs.
 */
#define CONTEST_READY_TIMEOUT_NS (30 * 60 * UL_NS_PER_SEC)
/* The untimed preparation (make clean) must not take long. */
#define CONTEST_PREP_TIMEOUT_NS (10 * 60 * UL_NS_PER_SEC)
/* How often the wait for a job wakes up to refresh the progress line. */
#define CONTEST_TICK_NS (1 * UL_NS_PER_SEC)
/* Lines of a failed job's output quoted in the error. */
#define CONTEST_LOG_TAIL 4

double ul_contest_loads_divisor(const char *load)
{
	static const struct {
		const char *load;
		double divisor;
	} table[] = {
		{ "process_load", 10000.0 },
		{ "mem_load", 1000.0 },
		{ "io_load", 100.0 },
		{ "read_load", 100.0 },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(table); i++)
		if (!strcmp(table[i].load, load))
			return table[i].divisor;
	return 1.0;
}

/* A command the suite runs: the job or its preparation. */
struct command {
	char **argv;	     /* from ul_contest_split() or static; argv[0] as typed */
	bool argv_owned;     /* free(argv) when done */
	char path[PATH_MAX]; /* resolved argv[0] */
	const char *text;    /* as the user wrote it, for messages */
};

struct contest {
	struct ul_engine *eng;
	struct ul_contest_opts o;
	struct command job, prep;
	bool have_prep;
	char job_dir[PATH_MAX];
	char tree[PATH_MAX]; /* the generated tree, "" if none */
	struct ul_srctree_spec spec;
	uint64_t tree_bytes;
	char make_jobs[16];
	char *make_argv[3], *clean_argv[3];
	int runs;
	bool drop_caches, drop_warned;
	size_t cells_done, cells_total;
	int jobs_run;	    /* jobs that ran to an exit, successful or not */
	int64_t job_ns_sum; /* of successful jobs, for the time-left estimate */
	int jobs_ok;
};

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
static void log_tail(const char *path, int lines, char *buf, size_t len)
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
static void set_note(struct ul_cell *cell, const char *fmt, ...) UL_PRINTF(2, 3);
static void set_note(struct ul_cell *cell, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cell->note, sizeof(cell->note), fmt, ap);
	va_end(ap);
}

/* A cell's private directory; its name carries the scratch prefix so it can be removed. */
static int cell_dir(const struct ul_engine *eng, const struct ul_cell *cell, char *buf, size_t len)
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
static bool flush_caches(struct contest *ct)
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

enum run_result {
	RUN_EXITED,	 /* the command ran to its exit: see *wstatus */
	RUN_SPAWN_FAILED,
	RUN_TIMEOUT,	 /* stopped at the deadline */
	RUN_LOAD_DIED,	 /* the load died first; the command was stopped */
	RUN_INTERRUPTED, /* INT/TERM/HUP; the command was stopped */
	RUN_UNKILLABLE,	 /* could not be reaped even by SIGKILL */
};

/*
 * Spawn `cmd` and wait for it until `timeout_ns`, watching `load_child`
 * (may be NULL).  On return the command is reaped (except RUN_UNKILLABLE,
 * where its heap record stays with the supervisor) and *child holds its
 * rusage; *elapsed_ns is fork to reap.  `prog` (may be NULL) and `left`
 * make the progress line, refreshed every second.
 */
static enum run_result run_command(struct contest *ct, const struct command *cmd, const char *dir,
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
static int run_prep(struct contest *ct, struct ul_cell *cell, const char *dir, int *result)
{
	struct ul_engine *eng = ct->eng;
	struct ul_child c;
	char log[PATH_MAX + 16], how[96], tail[160];
	int64_t ns;
	int err = 0;
	enum run_result rr;

	snprintf(log, sizeof(log), "%s/prep.log", dir);
	rr = run_command(ct, &ct->prep, ct->job_dir, log, CONTEST_PREP_TIMEOUT_NS, NULL, NULL, "",
			 &c, &ns, &err);
	if (rr == RUN_EXITED && WIFEXITED(c.wstatus) && WEXITSTATUS(c.wstatus) == 0)
		return 0;
	cell->outcome = rr == RUN_INTERRUPTED ? UL_CELL_INTERRUPTED : UL_CELL_PROBE_FAILED;
	if (rr == RUN_EXITED) {
		ul_wstatus_describe(c.wstatus, how, sizeof(how));
		log_tail(log, 2, tail, sizeof(tail));
		set_note(cell, "job preparation '%s' failed (%s)%s%s",
			 ct->prep.text, how, *tail ? ": " : "", tail);
	} else if (rr == RUN_SPAWN_FAILED) {
		set_note(cell, "cannot start job preparation '%s': %s",
			 ct->prep.text, strerror(-err));
	} else if (rr == RUN_INTERRUPTED) {
		set_note(cell, "interrupted during job preparation");
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

/* The load's context: its own directory, and the tree it reads. */
static void load_ctx(const struct contest *ct, const struct ul_load *load, const char *dir,
		     struct ul_load_ctx *ctx)
{
	ul_engine_load_ctx(ct->eng, load, ctx);
	ctx->scratch_dir = dir;
	if (!strcmp(load->name, "lslr_load"))
		ctx->src_dir = ct->o.lslr_dir;
	else if (ct->o.job_dir)
		ctx->src_dir = ct->job_dir; /* contest archived the tree it compiled */
	else
		ctx->src_dir = ct->tree[0] ? ct->tree : NULL;
}

static int set_metrics(struct ul_cell *cell, const char *const *names, const double *values,
		       size_t n)
{
	int rc = 0;

	for (size_t i = 0; i < n; i++)
		rc |= ul_cell_set_metric(cell, names[i], values[i]);
	return rc;
}

/*
 * A finished job's numbers.  CPU% = (user + sys) / wall x 100 as time(1)
 * prints it: up to 100 x CPUs for a parallel build.  LCPU% = the load's
 * CPU since it was released / how long it ran x 100, same scale; the load
 * runs the lead time and the stop longer than the job (contest's CPU% +
 * LCPU% can exceed 100).  Loads counts the load's work while the job ran
 * (cell->load_units, as Kolivas counted "MB written during the compile");
 * loads_total also counts the lead time and the stop.
 */
static int store_results(struct contest *ct, struct ul_cell *cell, const struct ul_child *job,
			 int64_t wall_ns, const struct ul_load_usage *lu, uint64_t total_units)
{
	int64_t user = ul_tv_to_ns(&job->ru.ru_utime), sys = ul_tv_to_ns(&job->ru.ru_stime);
	double div = ul_contest_loads_divisor(cell->load);
	static const char *const names[] = {
		"cpu_pct",    "loads",	   "loads_total", "loads_divisor",
		"job_majflt", "job_minflt", "job_nvcsw",   "job_nivcsw",
	};
	double values[] = {
		wall_ns > 0 ? (double)(user + sys) * 100.0 / (double)wall_ns : 0.0,
		(double)cell->load_units / div,
		(double)total_units / div,
		div,
		(double)job->ru.ru_majflt,
		(double)job->ru.ru_minflt,
		(double)job->ru.ru_nvcsw,
		(double)job->ru.ru_nivcsw,
	};
	struct ul_series *sw = ul_cell_series(cell, "wall_ns");
	struct ul_series *su = ul_cell_series(cell, "user_ns");
	struct ul_series *ss = ul_cell_series(cell, "sys_ns");
	int rc;

	if (!sw || !su || !ss)
		return -ENOMEM;
	rc = ul_series_push(sw, wall_ns);
	rc |= ul_series_push(su, user);
	rc |= ul_series_push(ss, sys);
	rc |= set_metrics(cell, names, values, UL_ARRAY_SIZE(values));
	if (lu->valid && lu->ran_ns > 0) {
		rc |= ul_cell_set_metric(cell, "load_cpu_pct",
					 (double)(lu->user_ns + lu->sys_ns) * 100.0 /
						 (double)lu->ran_ns);
		rc |= ul_cell_set_metric(cell, "load_user_ns", (double)lu->user_ns);
		rc |= ul_cell_set_metric(cell, "load_sys_ns", (double)lu->sys_ns);
		rc |= ul_cell_set_metric(cell, "load_ran_ns", (double)lu->ran_ns);
	}
	if (ul_cell_set_metric(cell, "load_units_total", (double)total_units))
		rc = -ENOMEM;
	ct->jobs_ok++;
	ct->job_ns_sum += wall_ns;
	return rc ? -ENOMEM : 0;
}

/* "~12m left" from the mean successful job so far; "" before the first. */
static void time_left(const struct contest *ct, char *buf, size_t len)
{
	int64_t per, left;
	char d[32];

	buf[0] = '\0';
	if (!ct->jobs_ok)
		return;
	per = ct->job_ns_sum / ct->jobs_ok + (ct->o.lead_ns > 0 ? ct->o.lead_ns : 0);
	left = per * (int64_t)(ct->cells_total - ct->cells_done);
	/* Whole minutes past two (an estimate), else tens of seconds. */
	if (left >= 120 * UL_NS_PER_SEC)
		left = left / (60 * UL_NS_PER_SEC) * (60 * UL_NS_PER_SEC);
	else
		left = left / (10 * UL_NS_PER_SEC) * (10 * UL_NS_PER_SEC);
	ul_fmt_duration(d, sizeof(d), left);
	snprintf(buf, len, ", ~%s left", d);
}

/* Fill the cell after the job ran; returns an engine result. */
static int job_outcome(struct contest *ct, struct ul_cell *cell, enum run_result rr,
		       const struct ul_child *job, int spawn_err, const char *log)
{
	struct ul_engine *eng = ct->eng;
	char how[96], tail[200], d[32];

	switch (rr) {
	case RUN_EXITED:
		ct->jobs_run++;
		if (WIFEXITED(job->wstatus) && WEXITSTATUS(job->wstatus) == 0)
			return UL_ENGINE_OK;
		ul_wstatus_describe(job->wstatus, how, sizeof(how));
		log_tail(log, CONTEST_LOG_TAIL, tail, sizeof(tail));
		cell->outcome = UL_CELL_PROBE_FAILED;
		set_note(cell, "job '%s' failed (%s)%s%s", ct->job.text,
			 how, *tail ? ": " : "", tail);
		ul_engine_progress_done(eng);
		ul_error("contest: under %s: %s", cell->load, cell->note);
		/* The first job of the suite failing means the job is broken, not loaded. */
		if (ct->jobs_run == 1) {
			ul_note("contest: stopping: the job must succeed once before loads "
				"are compared");
			return UL_ENGINE_ERROR;
		}
		return UL_ENGINE_OK;
	case RUN_SPAWN_FAILED:
		cell->outcome = UL_CELL_PROBE_FAILED;
		set_note(cell, "cannot start job '%s': %s", ct->job.text,
			 strerror(-spawn_err));
		ul_engine_progress_done(eng);
		ul_error("contest: %s", cell->note);
		return UL_ENGINE_ERROR;
	case RUN_TIMEOUT:
		ul_fmt_duration(d, sizeof(d), ct->o.job_timeout_ns);
		cell->outcome = UL_CELL_PROBE_FAILED;
		set_note(cell, "job '%s' did not finish within %s",
			 ct->job.text, d);
		ul_engine_progress_done(eng);
		ul_error("contest: under %s: %s", cell->load, cell->note);
		return UL_ENGINE_OK;
	case RUN_INTERRUPTED:
		cell->outcome = UL_CELL_INTERRUPTED;
		set_note(cell, "interrupted while the job ran");
		return UL_ENGINE_INTERRUPTED;
	case RUN_UNKILLABLE:
		cell->outcome = UL_CELL_PROBE_FAILED;
		set_note(cell, "the job could not be killed");
		ul_engine_progress_done(eng);
		ul_error("contest: %s", cell->note);
		return UL_ENGINE_ERROR;
	case RUN_LOAD_DIED:
		break; /* the caller words it: it knows the load */
	}
	return UL_ENGINE_OK;
}

/* Mark a load death, with the load's own error when it recorded one. */
static void load_died(struct ul_cell *cell, const char *when, const struct ul_child *lc, int err)
{
	char how[96];

	ul_wstatus_describe(lc->wstatus, how, sizeof(how));
	cell->outcome = UL_CELL_LOAD_DIED;
	set_note(cell, "load '%s' died %s (%s%s%s)", cell->load, when, how,
		 err ? ": " : "", err ? strerror(err) : "");
}

/* Wait the lead time with the load running; returns an engine result, or -1 if it died. */
static int lead_time(struct contest *ct, struct ul_cell *cell, struct ul_running_load *rl)
{
	struct ul_engine *eng = ct->eng;
	ul_nsec until = ul_now_ns() + ct->o.lead_ns;

	while (ul_now_ns() < until) {
		struct ul_child *exited = NULL;
		enum ul_wait_result w = ul_sup_wait(&eng->sup, -1, until, &exited);

		if (w == UL_WAIT_INTERRUPTED) {
			cell->outcome = UL_CELL_INTERRUPTED;
			set_note(cell, "interrupted before the job started");
			return UL_ENGINE_INTERRUPTED;
		}
		if (w == UL_WAIT_CHILD_EXITED && exited == ul_load_child(rl)) {
			load_died(cell, "before the job started", exited, ul_load_failed_errno(rl));
			return -1;
		}
	}
	return UL_ENGINE_OK;
}

static int run_cell(struct contest *ct, const struct ul_load *load, int round)
{
	struct ul_engine *eng = ct->eng;
	struct ul_running_load *rl = NULL;
	struct ul_load_usage lu = { 0 };
	struct ul_load_ctx ctx;
	struct ul_child job;
	struct ul_cell *cell;
	enum run_result rr = RUN_EXITED;
	char dir[PATH_MAX], log[PATH_MAX + 16], why[512], left[48], prog[160];
	uint64_t units = 0;
	int64_t wall = 0;
	bool needed_kill = false, dropped;
	int rc, err = 0, result = UL_ENGINE_OK, lead;

	cell = ul_run_add_cell(eng->run);
	if (!cell)
		return ul_error("out of memory"), UL_ENGINE_ERROR;
	snprintf(cell->suite, sizeof(cell->suite), "contest");
	snprintf(cell->load, sizeof(cell->load), "%s", load->name);
	snprintf(cell->probe, sizeof(cell->probe), "job");
	snprintf(cell->load_unit, sizeof(cell->load_unit), "%s", load->unit);
	cell->started_wall_ns = ul_wall_ns();
	/* series[0] is the primary measurement: created before any monitor adds its own. */
	if (!ul_cell_series(cell, "wall_ns") || !ul_cell_series(cell, "user_ns") ||
	    !ul_cell_series(cell, "sys_ns"))
		return ul_error("out of memory"), UL_ENGINE_ERROR;
	time_left(ct, left, sizeof(left));
	snprintf(prog, sizeof(prog), "[contest %zu/%zu] %s, round %d/%d", ct->cells_done + 1,
		 ct->cells_total, load->name, round + 1, ct->runs);

	rc = cell_dir(eng, cell, dir, sizeof(dir));
	if (rc) {
		ul_error_errno(rc, "contest: cannot create a directory in '%s'", eng->scratch);
		return UL_ENGINE_ERROR;
	}
	snprintf(log, sizeof(log), "%s/job.log", dir);

	if (ct->have_prep) {
		ul_engine_progress(eng, "%s: preparing the job%s", prog, left);
		if (run_prep(ct, cell, dir, &result))
			goto commit;
	}
	ul_engine_progress(eng, "%s: flushing caches, starting the load%s", prog, left);
	dropped = flush_caches(ct);

	load_ctx(ct, load, dir, &ctx);
	rc = ul_load_start(&eng->sup, load, &ctx, CONTEST_READY_TIMEOUT_NS, &rl, why, sizeof(why));
	if (rc == -EINTR) {
		cell->outcome = UL_CELL_INTERRUPTED;
		set_note(cell, "interrupted while starting the load");
		result = UL_ENGINE_INTERRUPTED;
		goto commit;
	}
	if (rc) {
		cell->outcome = UL_CELL_LOAD_FAILED;
		set_note(cell, "%s", why);
		ul_engine_progress_done(eng);
		ul_error("contest: %s", why);
		goto commit;
	}

	ul_monitors_begin(eng, cell);
	lead = lead_time(ct, cell, rl);
	if (lead == UL_ENGINE_OK) {
		struct ul_child *lc = ul_load_child(rl);

		ul_engine_work_begin(eng, rl);
		rr = run_command(ct, &ct->job, ct->job_dir, log, ct->o.job_timeout_ns, lc, prog,
				 left, &job, &wall, &err);
		ul_engine_work_end(eng, cell, rl);
		if (rr == RUN_LOAD_DIED)
			load_died(cell, "while the job ran", lc, ul_load_failed_errno(rl));
		else
			result = job_outcome(ct, cell, rr, &job, err, log);
	} else if (lead != -1) {
		result = lead;
	}
	ul_monitors_end(eng, cell);

	ul_engine_progress(eng, "%s: stopping the load", prog);
	err = ul_load_failed_errno(rl);
	rc = ul_load_stop_usage(&eng->sup, rl, ul_engine_stop_grace(eng), &units, &needed_kill, &lu);
	if (needed_kill)
		cell->flags |= UL_CELL_LOAD_KILLED;
	if (rc == -ECHILD && cell->outcome == UL_CELL_OK) {
		/* It exited after the job without anybody noticing: it may
		 * have been dead for part of the job. */
		cell->outcome = UL_CELL_LOAD_DIED;
		set_note(cell, "load '%s' had died when it was stopped%s%s",
			 load->name, err ? ": " : "", err ? strerror(err) : "");
	} else if (rc && rc != -ECHILD && result == UL_ENGINE_OK) {
		ul_engine_progress_done(eng);
		ul_error_errno(rc, "contest: load '%s' could not be stopped", load->name);
		result = UL_ENGINE_ERROR;
	}
	if (cell->outcome == UL_CELL_LOAD_DIED) {
		ul_engine_progress_done(eng);
		ul_error("contest: %s", cell->note);
	}
	if (cell->outcome == UL_CELL_OK && rr == RUN_EXITED &&
	    store_results(ct, cell, &job, wall, &lu, units)) {
		ul_error("out of memory");
		result = UL_ENGINE_ERROR;
	}
	if (ul_cell_set_metric(cell, "caches_dropped", dropped ? 1.0 : 0.0) ||
	    ul_cell_set_metric(cell, "round", round + 1) ||
	    ul_cell_set_metric(cell, "lead_ns", (double)ct->o.lead_ns)) {
		ul_error("out of memory");
		result = UL_ENGINE_ERROR;
	}

commit:
	if (ct->tree[0] && (ul_cell_set_metric(cell, "tree_bytes", (double)ct->tree_bytes) ||
			    ul_cell_set_metric(cell, "tree_seed", (double)ct->spec.seed) ||
			    ul_cell_set_metric(cell, "tree_units", ct->spec.units)))
		result = UL_ENGINE_ERROR;
	/* The load's files go now: the next load gets the whole disk reserve. */
	rc = ul_scratch_remove(dir);
	if (rc) {
		ul_error_errno(rc, "contest: cannot remove '%s'", dir);
		if (result == UL_ENGINE_OK)
			result = UL_ENGINE_ERROR;
	}
	ct->cells_done++;
	int committed = ul_engine_commit_cell(eng, cell);
	if (committed && result == UL_ENGINE_OK)
		result = committed;
	return result;
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
		return ul_error("out of memory");
	if (r)
		return ul_error("contest: %s '%s': %s", what, text, why);
	return 0;
}

static bool tar_selected(const char *const *tests, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(tests[i], "tarc_load") || !strcmp(tests[i], "tarx_load"))
			return true;
	return false;
}

/* Generate the reference tree into the scratch directory. */
static int make_tree(struct contest *ct)
{
	struct ul_engine *eng = ct->eng;
	int r;

	if (eng->cfg->quick)
		ul_srctree_spec_quick(&ct->spec);
	else
		ul_srctree_spec_default(&ct->spec);
	if (ct->o.tree_units)
		ct->spec.units = ct->o.tree_units;
	ct->spec.seed = ct->o.tree_seed;
	if ((size_t)snprintf(ct->tree, sizeof(ct->tree), "%s/tree", eng->scratch) >=
	    sizeof(ct->tree)) {
		ul_error("contest: the scratch directory's path is too long");
		return -1;
	}
	ul_engine_progress(eng, "[contest] generating the reference tree (%u units)",
			   ct->spec.units);
	r = ul_srctree_generate(ct->tree, &ct->spec, &ct->tree_bytes);
	if (r) {
		ul_engine_progress_done(eng);
		ul_error_errno(r, "contest: cannot generate the reference tree in '%s'", ct->tree);
		return -1;
	}
	return 0;
}

/* The default job: make -jNCPU in the generated tree, `make clean` before each. */
static int default_job(struct contest *ct)
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

static int user_job(struct contest *ct)
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

/* supported() and check() of every load with the context its cells will get. */
static int preflight(struct contest *ct, const char *const *tests, size_t n)
{
	int result = UL_ENGINE_OK;

	for (size_t i = 0; i < n; i++) {
		const struct ul_load *load = ul_load_find(tests[i]);
		struct ul_load_ctx ctx;
		char why[512] = "";

		if (!load)
			UL_BUG("contest test '%s' has no load", tests[i]);
		if (load->supported && load->supported(why, sizeof(why))) {
			ul_error("load '%s' cannot run here: %s", load->name, why);
			if (result == UL_ENGINE_OK)
				result = UL_ENGINE_UNSUPPORTED;
			continue;
		}
		load_ctx(ct, load, ct->eng->scratch, &ctx);
		if (load->check && load->check(&ctx, why, sizeof(why))) {
			ul_error("load '%s': %s", load->name, why);
			result = UL_ENGINE_REFUSED;
		}
	}
	return result;
}

/* The suite's state from its preflight to the end of its run (large:
 * paths); one contest runs at a time. */
static struct contest contest_state;

static void release(struct contest *ct)
{
	if (ct->job.argv_owned)
		free(ct->job.argv);
	if (ct->prep.argv_owned)
		free(ct->prep.argv);
	ct->job.argv_owned = ct->prep.argv_owned = false;
}

/*
 * Before any suite of the run starts: the generated tree (the tar loads
 * archive it and their check() measures it), the job and its preparation
 * resolved, every load's supported() and check().
 */
static int contest_preflight(struct ul_engine *eng, const struct ul_suite *suite)
{
	const struct ul_engine_config *cfg = eng->cfg;
	struct contest *ct = &contest_state;
	const char *tests[UL_MAX_TESTS];
	size_t n;

	release(ct);
	memset(ct, 0, sizeof(*ct));
	ct->eng = eng;
	ct->o = *(const struct ul_contest_opts *)ul_engine_suite_opts(eng, suite);
	/* --runs is shared with mtest (whose default differs): 0 = one round. */
	ct->runs = cfg->mtest_runs > 0 ? cfg->mtest_runs : 1;
	ct->drop_caches = !ct->o.no_drop_caches && geteuid() == 0;
	n = ul_suite_tests(suite, cfg, tests);
	if (!n)
		return UL_ENGINE_OK;
	if ((!ct->o.job || (!ct->o.job_dir && tar_selected(tests, n))) && make_tree(ct))
		return UL_ENGINE_ERROR;
	if (ct->o.job ? user_job(ct) : default_job(ct))
		return UL_ENGINE_ERROR;
	return preflight(ct, tests, n);
}

static int contest_run(struct ul_engine *eng, const struct ul_suite *suite)
{
	struct contest *ct = &contest_state;
	const char *tests[UL_MAX_TESTS];
	size_t n = ul_suite_tests(suite, eng->cfg, tests);
	int result = UL_ENGINE_OK;

	if (!n)
		return UL_ENGINE_OK;
	if (ct->eng != eng)
		UL_BUG("contest runs without its preflight");
	ct->cells_total = n * (size_t)ct->runs;
	/* Interleaved rounds (noload, process_load, ..., then again), so slow
	 * drift (thermal, background jobs) does not land on one load. */
	for (int r = 0; r < ct->runs && result == UL_ENGINE_OK; r++)
		for (size_t i = 0; i < n && result == UL_ENGINE_OK; i++)
			result = run_cell(ct, ul_load_find(tests[i]), r);
	ul_engine_progress_done(eng);
	release(ct);
	return result;
}

const struct ul_suite ul_suite_contest = {
	.name = "contest",
	.summary = "Kolivas's contest: a reference job (a compile) timed whole under eight loads",
	.probe = "job",
	.tests = contest_tests,
	.tests_any_load = true,
	.format = "contest",
	.opts = ul_contest_opt_table,
	.opts_size = sizeof(struct ul_contest_opts),
	.check_opts = ul_contest_check_opts,
	.preflight = contest_preflight,
	.run = contest_run,
	.metrics = contest_metrics,
};
