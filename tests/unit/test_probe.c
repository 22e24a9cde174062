/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/probe: registry conformance (every probe starts, gives
 * samples and stops cleanly under a real supervisor) and the measure paths.
 */
#include "unit.h"
#include "core/clock.h"
#include "core/opt.h"
#include "engine/engine.h"
#include "engine/suites/resp/internal.h"
#include "probe/probe.h"
#include "proc/scratch.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define START_TIMEOUT_NS (5 * UL_NS_PER_SEC)
#define THINK_NS (10 * UL_NS_PER_MS)

/* Tiny settings per probe so the conformance loop stays fast; a probe
 * without an entry runs with its defaults. */
static const struct {
	const char *probe, *opt, *value;
} tiny_opts[] = {
	{ "resp", "working-set", "1M" },
	{ "resp", "files", "5" },
	{ "resp", "cpu-work", "100000" },
};

struct fixture {
	struct ul_sup sup;
	char scratch[4096];
	struct ul_probe_ctx ctx;
};

static const char *self_exe(void)
{
	const char *exe = getenv("UL_TEST_EXE");

	return exe && *exe ? exe : UL_BUILD_ROOT "/underload";
}

/*
 * A failed assertion _exit()s the forked test at once, so per-test scratch
 * dirs live under one suite directory that an unchecked fixture (run in the
 * runner process) creates before the tests and removes after them.
 */
static char suite_dir[4096];

static void suite_dir_create(void)
{
	ck_assert_int_eq(ul_scratch_create("/tmp", suite_dir, sizeof(suite_dir)), 0);
}

/* test_resp_fork_retried's pids cgroup, named after the suite directory. */
static void fork_cgroup_path(char *out, size_t len)
{
	snprintf(out, len, "/sys/fs/cgroup/pids/%s", strrchr(suite_dir, '/') + 1);
}

static void suite_dir_remove(void)
{
	char cg[4200];

	/* Gone unless that test failed: then wait for its probe to die. */
	fork_cgroup_path(cg, sizeof(cg));
	for (int i = 0; i < 50 && rmdir(cg) && errno == EBUSY; i++)
		usleep(100 * 1000);
	ck_assert_int_eq(ul_scratch_remove(suite_dir), 0);
}

static void fixture_init(struct fixture *f)
{
	ck_assert_int_eq(ul_scratch_create(suite_dir, f->scratch, sizeof(f->scratch)), 0);
	ck_assert_int_eq(ul_sup_init(&f->sup), 0);
	memset(&f->ctx, 0, sizeof(f->ctx));
	f->ctx.scratch_dir = f->scratch;
	f->ctx.self_exe = self_exe();
	f->ctx.ncpu = 1;
	f->ctx.mem_budget_bytes = 256 * UL_MiB;
}

/* Tear down and check that nothing is left: no child, no scratch dir. */
static void fixture_fini(struct fixture *f)
{
	struct stat st;

	ck_assert_uint_eq(f->sup.n_children, 0);
	ul_sup_fini(&f->sup);
	errno = 0;
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	ck_assert_int_eq(ul_scratch_remove(f->scratch), 0);
	ck_assert_int_ne(stat(f->scratch, &st), 0);
}

static void set_opt(const struct ul_probe *p, struct ul_probe_ctx *ctx, const char *name,
		    const char *value)
{
	char err[256] = "";

	ck_assert_msg(ul_opt_set(p->opts, ctx->opt, name, value, err, sizeof(err)) == 0,
		      "%s.%s=%s: %s", p->name, name, value, err);
}

static void tiny_ctx(const struct ul_probe *p, struct ul_probe_ctx *ctx)
{
	ul_opt_defaults(p->opts, ctx->opt);
	for (size_t i = 0; i < UL_ARRAY_SIZE(tiny_opts); i++)
		if (!strcmp(tiny_opts[i].probe, p->name))
			set_opt(p, ctx, tiny_opts[i].opt, tiny_opts[i].value);
}

static struct ul_running_probe *start(struct fixture *f, const struct ul_probe *p)
{
	struct ul_running_probe *rp = NULL;
	char why[512] = "";
	int rc = ul_probe_start(&f->sup, p, &f->ctx, START_TIMEOUT_NS, &rp, why, sizeof(why));

	ck_assert_msg(rc == 0, "probe '%s' did not start: %s (%d)", p->name, why, rc);
	ck_assert_ptr_nonnull(rp);
	return rp;
}

static const struct ul_probe *find(const char *name)
{
	const struct ul_probe *p = ul_probe_find(name);

	ck_assert_msg(p != NULL, "probe '%s' is not registered", name);
	return p;
}

static bool is_kebab(const char *s)
{
	if (!*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-'))
			return false;
	return s[-1] != '-';
}

START_TEST(test_registry)
{
	ck_assert_uint_ge(ul_probe_count(), 2);
	ck_assert_ptr_null(ul_probe_at(ul_probe_count()));
	ck_assert_ptr_null(ul_probe_find("no-such-probe"));
	for (size_t i = 0; i < ul_probe_count(); i++) {
		const struct ul_probe *p = ul_probe_at(i);
		size_t n = ul_opt_count(p->opts);
		int64_t v[UL_OPT_MAX];

		ck_assert_msg(p->name && is_kebab(p->name), "probe %zu: bad name", i);
		ck_assert_ptr_eq(ul_probe_find(p->name), p);
		for (size_t j = 0; j < i; j++)
			ck_assert_str_ne(ul_probe_at(j)->name, p->name);
		ck_assert_msg(p->summary && *p->summary, "%s: no summary", p->name);
		ck_assert_msg(p->unit && *p->unit, "%s: no unit", p->name);
		/* Each kind has the hooks its driver calls. */
		switch (p->kind) {
		case UL_PROBE_REPEAT:
			ck_assert_msg(p->sample != NULL, "%s: no sample()", p->name);
			ck_assert_msg(!p->whole && !p->periodic, "%s: another kind's ops", p->name);
			break;
		case UL_PROBE_MICRO:
			ck_assert_msg((p->batch != NULL) != (p->measure != NULL),
				      "%s: not exactly one of batch() and measure()", p->name);
			ck_assert_msg(p->group && *p->group, "%s: no group", p->name);
			break;
		case UL_PROBE_PERIODIC:
			ck_assert_msg(p->sample == NULL && p->batch == NULL && p->whole == NULL,
				      "%s: hooks its kind never calls", p->name);
			ck_assert_msg(p->periodic && p->periodic->start && p->periodic->measure &&
					      p->periodic->result && p->periodic->stop &&
					      p->periodic->child,
				      "%s: not all of its periodic ops", p->name);
			break;
		case UL_PROBE_WHOLE:
			ck_assert_msg(p->sample == NULL && p->batch == NULL && p->periodic == NULL,
				      "%s: hooks its kind never calls", p->name);
			/* A single run (run, result) or the group form, never both. */
			ck_assert_msg(p->whole && p->whole->series && p->whole->series[0],
				      "%s: no whole ops, or no series", p->name);
			if (p->whole->group)
				ck_assert_msg(
					!p->whole->run && !p->whole->result &&
						p->whole->group->plan && p->whole->group->child &&
						p->whole->group->phase && p->whole->group->result &&
						p->whole->group->child_name,
					"%s: group ops without plan, child, phase, result "
					"or child_name, or with run or result",
					p->name);
			else
				ck_assert_msg(p->whole->run && p->whole->result,
					      "%s: whole ops without run or result", p->name);
			break;
		default:
			ck_abort_msg("%s: unknown kind %d", p->name, (int)p->kind);
		}
		ck_assert_str_ne(ul_probe_kind_name(p->kind), "?");
		ck_assert_uint_le(n, UL_OPT_MAX);
		ul_opt_defaults(p->opts, v);
		for (size_t j = 0; j < n; j++) {
			const struct ul_opt *o = &p->opts[j];
			char buf[64], err[256];

			ck_assert_msg(is_kebab(o->name), "%s: bad option name '%s'", p->name,
				      o->name);
			ck_assert_msg(o->help && *o->help, "%s.%s: no help", p->name, o->name);
			ck_assert_msg(o->min <= o->def && o->def <= o->max,
				      "%s.%s: default out of range", p->name, o->name);
			ck_assert_int_eq(ul_opt_index(p->opts, o->name), (int)j);
			ck_assert_int_eq(v[j], o->def);
			/* The rendered default parses back to itself. */
			ul_opt_fmt(o, o->def, buf, sizeof(buf));
			ck_assert_msg(ul_opt_set(p->opts, v, o->name, buf, err, sizeof(err)) == 0,
				      "%s.%s: default '%s' does not parse: %s", p->name, o->name,
				      buf, err);
			ck_assert_int_eq(v[j], o->def);
		}
	}
}
END_TEST

/* Every registered probe: start, three samples after a think time, stop. */
START_TEST(test_conformance)
{
	for (size_t i = 0; i < ul_probe_count(); i++) {
		const struct ul_probe *p = ul_probe_at(i);
		struct ul_running_probe *rp;
		struct fixture f;
		pid_t pid;

		if (p->kind != UL_PROBE_REPEAT)
			continue; /* their own drivers test them */
		if (p->supported) {
			char why[256] = "";

			if (p->supported(why, sizeof(why)))
				continue;
		}
		fixture_init(&f);
		tiny_ctx(p, &f.ctx);
		rp = start(&f, p);
		pid = ul_probe_child(rp)->pid;
		ck_assert_int_gt(pid, 0);
		ck_assert_uint_eq(f.sup.n_children, 1);
		for (int k = 0; k < 3; k++) {
			ul_nsec t0 = ul_now_ns(), took;
			int64_t value = -1;
			int err = -1;
			struct ul_child *ex = (struct ul_child *)&f;
			enum ul_measure_result r;

			r = ul_probe_measure(&f.sup, rp, THINK_NS, t0 + 5 * UL_NS_PER_SEC, &value,
					     &err, &ex);
			took = ul_now_ns() - t0;
			ck_assert_msg(r == UL_MEASURE_OK, "%s: sample %d: result %d err %s",
				      p->name, k, r, strerror(err));
			ck_assert_int_eq(err, 0);
			ck_assert_ptr_null(ex);
			ck_assert_msg(value >= 0 && value < 2 * UL_NS_PER_SEC,
				      "%s: implausible sample %lld ns", p->name, (long long)value);
			if (strcmp(p->name, "null"))
				ck_assert_int_gt(value, 0);
			/* The think time was slept before the task, not skipped. */
			ck_assert_int_ge(took, THINK_NS + value);
		}
		ck_assert_int_eq(ul_probe_stop(&f.sup, rp, 2 * UL_NS_PER_SEC), 0);
		ck_assert_int_eq(kill(pid, 0), -1);
		fixture_fini(&f);
	}
}
END_TEST

/* Only repeat probes are started by ul_probe_start(): another kind is
 * refused with a reason, nothing spawned. */
START_TEST(test_start_refuses_other_kinds)
{
	const struct ul_probe *p = find("job");
	struct ul_running_probe *rp = NULL;
	struct fixture f;
	char why[256] = "";

	ck_assert_int_eq(p->kind, UL_PROBE_WHOLE);
	fixture_init(&f);
	ck_assert_int_eq(ul_probe_start(&f.sup, p, &f.ctx, START_TIMEOUT_NS, &rp, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_null(rp);
	ck_assert_ptr_nonnull(strstr(why, "not a repeat probe"));
	ck_assert_uint_eq(f.sup.n_children, 0);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_timeout_then_keep_waiting)
{
	struct fixture f;
	struct ul_running_probe *rp;
	int64_t value;
	int err;
	ul_nsec t0;

	fixture_init(&f);
	tiny_ctx(find("null"), &f.ctx);
	rp = start(&f, find("null"));
	/* The child sleeps 200 ms before answering: a 20 ms deadline fails. */
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 200 * UL_NS_PER_MS, t0 + 20 * UL_NS_PER_MS,
					  &value, &err, NULL),
			 UL_MEASURE_TIMEOUT);
	ck_assert_int_lt(ul_now_ns() - t0, 150 * UL_NS_PER_MS);
	/* A new request while one is outstanding is refused... */
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0, ul_now_ns() + UL_NS_PER_SEC, &value, &err,
					  NULL),
			 UL_MEASURE_FAILED);
	ck_assert_int_eq(err, EBUSY);
	/* ...but think < 0 collects the outstanding answer. */
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, -1, ul_now_ns() + 2 * UL_NS_PER_SEC, &value,
					  &err, NULL),
			 UL_MEASURE_OK);
	ck_assert_int_ge(ul_now_ns() - t0, 200 * UL_NS_PER_MS);
	/* Nothing outstanding now: there is nothing to keep waiting for. */
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, -1, ul_now_ns() + UL_NS_PER_SEC, &value, &err,
					  NULL),
			 UL_MEASURE_FAILED);
	ck_assert_int_eq(err, EINVAL);
	ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), 0);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_null_is_tiny)
{
	struct fixture f;
	struct ul_running_probe *rp;
	int64_t value, min = INT64_MAX;
	int err;

	fixture_init(&f);
	tiny_ctx(find("null"), &f.ctx);
	rp = start(&f, find("null"));
	for (int k = 0; k < 5; k++) {
		ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0, ul_now_ns() + UL_NS_PER_SEC,
						  &value, &err, NULL),
				 UL_MEASURE_OK);
		ck_assert_int_ge(value, 0);
		ck_assert_int_lt(value, 50 * UL_NS_PER_MS); /* even if preempted once */
		if (value < min)
			min = value;
	}
	ck_assert_int_lt(min, 100000); /* two clock reads: well under 100 us */
	ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), 0);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_resp_missing_exe_fails)
{
	const struct ul_probe *p = find("resp");
	struct fixture f;
	struct ul_running_probe *rp;
	int64_t value;
	int err;

	fixture_init(&f);
	tiny_ctx(p, &f.ctx);
	f.ctx.self_exe = "/nonexistent/underload-test/underload";
	rp = start(&f, p);
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0, ul_now_ns() + 5 * UL_NS_PER_SEC, &value,
					  &err, NULL),
			 UL_MEASURE_FAILED);
	ck_assert_int_eq(err, EIO);
	/* A failed sample leaves the probe usable and it still stops cleanly. */
	ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), 0);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_resp_setup_failure)
{
	const struct ul_probe *p = find("resp");
	struct ul_running_probe *rp = (struct ul_running_probe *)&rp;
	struct fixture f;
	char why[512] = "";
	int rc;

	fixture_init(&f);
	tiny_ctx(p, &f.ctx);
	f.ctx.scratch_dir = "/nonexistent/underload-test"; /* mkdir of its directory fails */
	rc = ul_probe_start(&f.sup, p, &f.ctx, START_TIMEOUT_NS, &rp, why, sizeof(why));
	ck_assert_int_eq(rc, -ENOENT);
	ck_assert_ptr_null(rp);
	ck_assert_msg(strstr(why, "resp") && strstr(why, "setup failed"), "why: %s", why);
	fixture_fini(&f);
}
END_TEST

/* The CPU part is fixed work: more iterations must take visibly longer. */
START_TEST(test_resp_cpu_work_counts)
{
	const struct ul_probe *p = find("resp");
	int64_t small = INT64_MAX, large = INT64_MAX;
	struct fixture f;
	struct ul_running_probe *rp;

	for (int pass = 0; pass < 2; pass++) {
		fixture_init(&f);
		tiny_ctx(p, &f.ctx);
		set_opt(p, &f.ctx, "exec", "no");
		set_opt(p, &f.ctx, "working-set", "0");
		set_opt(p, &f.ctx, "cpu-work", pass ? "30000000" : "1000");
		rp = start(&f, p);
		for (int k = 0; k < 2; k++) {
			int64_t value, *best = pass ? &large : &small;
			int err;

			ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0,
							  ul_now_ns() + UL_NS_PER_SEC, &value, &err,
							  NULL),
					 UL_MEASURE_OK);
			if (value < *best)
				*best = value;
		}
		ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), 0);
		fixture_fini(&f);
	}
	ck_assert_msg(large > 2 * UL_NS_PER_MS && large > 20 * small, "small %lld large %lld",
		      (long long)small, (long long)large);
}
END_TEST

static int exit_at_once(void *arg)
{
	(void)arg;
	return 3;
}

/* A load dying is reported while the sample stays outstanding. */
START_TEST(test_other_child_exit)
{
	struct fixture f;
	struct ul_running_probe *rp;
	struct ul_child other = { 0 }, *ex = NULL;
	struct ul_spawn_opts so = { .name = "dies", .fn = exit_at_once };
	int64_t value;
	int err;

	fixture_init(&f);
	tiny_ctx(find("null"), &f.ctx);
	rp = start(&f, find("null"));
	ck_assert_int_eq(ul_spawn(&f.sup, &so, &other), 0);
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 300 * UL_NS_PER_MS,
					  ul_now_ns() + 2 * UL_NS_PER_SEC, &value, &err, &ex),
			 UL_MEASURE_CHILD_EXITED);
	ck_assert_ptr_eq(ex, &other);
	ck_assert(other.reaped);
	ck_assert(WIFEXITED(other.wstatus) && WEXITSTATUS(other.wstatus) == 3);
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, -1, ul_now_ns() + 2 * UL_NS_PER_SEC, &value,
					  &err, &ex),
			 UL_MEASURE_OK);
	ck_assert_ptr_null(ex);
	ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), 0);
	fixture_fini(&f);
}
END_TEST

/* The probe child itself dying is a failed measurement, not a hang. */
START_TEST(test_probe_child_dies)
{
	struct fixture f;
	struct ul_running_probe *rp;
	int64_t value;
	int err;

	fixture_init(&f);
	tiny_ctx(find("null"), &f.ctx);
	rp = start(&f, find("null"));
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 500 * UL_NS_PER_MS,
					  ul_now_ns() + 20 * UL_NS_PER_MS, &value, &err, NULL),
			 UL_MEASURE_TIMEOUT);
	ck_assert_int_eq(kill(ul_probe_child(rp)->pid, SIGKILL), 0);
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, -1, ul_now_ns() + 2 * UL_NS_PER_SEC, &value,
					  &err, NULL),
			 UL_MEASURE_FAILED);
	ck_assert_int_eq(err, ECHILD);
	/* Later requests fail at once instead of writing to a dead pipe. */
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0, ul_now_ns() + 2 * UL_NS_PER_SEC, &value,
					  &err, NULL),
			 UL_MEASURE_FAILED);
	ck_assert_int_eq(err, ECHILD);
	/* It did not end cleanly, and stop says so. */
	ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), -ECHILD);
	fixture_fini(&f);
}
END_TEST

START_TEST(test_lsdir)
{
	char dir[4200], path[4300];
	char *ok[] = { (char *)"underload", (char *)"__lsdir", dir, NULL };
	char *missing[] = { (char *)"underload", (char *)"__lsdir", (char *)"/nonexistent/ul-lsdir",
			    NULL };
	char *wrong[] = { (char *)"underload", (char *)"lsdir", dir, NULL };
	int fd;

	snprintf(dir, sizeof(dir), "%s/lsdir", suite_dir);
	ck_assert_int_eq(mkdir(dir, 0700), 0);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0600);
		ck_assert_int_ge(fd, 0);
		close(fd);
	}
	snprintf(path, sizeof(path), "%s/link", dir);
	ck_assert_int_eq(symlink("/nonexistent/target", path), 0); /* lstat, not stat */
	ck_assert_int_eq(ul_probe_lsdir_main(3, ok), 0);
	ck_assert_int_eq(ul_probe_lsdir_main(3, missing), 1);
	ck_assert_int_eq(ul_probe_lsdir_main(3, wrong), 1);
	ck_assert_int_eq(ul_probe_lsdir_main(2, ok), 1);
	unlink(path);
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/f%d", dir, i);
		ck_assert_int_eq(unlink(path), 0);
	}
	ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* A child that exits after arg milliseconds. */
static int exit_after_ms(void *arg)
{
	usleep((useconds_t)(intptr_t)arg * 1000);
	return 0;
}

/*
 * resp's sample has one deadline, fixed when the sample is asked for: a
 * hung probe fails after --sample-timeout even while unrelated children
 * keep exiting (each used to push the deadline back by a whole timeout).
 */
START_TEST(test_resp_sample_deadline_fixed)
{
	enum {
		TIMEOUT_MS = 300,
		EXITS = 6,
		EVERY_MS = 150
	};
	struct ul_engine_config cfg = { .sample_timeout_ns = TIMEOUT_MS * UL_NS_PER_MS,
					.min_points = 1,
					.max_points = 1 };
	struct ul_engine eng = { .cfg = &cfg };
	struct resp_state st = { .eng = &eng, .step = { .n = 1, .rounds = 1 } };
	struct ul_child others[EXITS] = { 0 }, *ex;
	struct ul_cell cell = { 0 };
	struct ul_probe_ctx ctx = { 0 };
	char scratch[4096], why[512] = "";
	int64_t elapsed_ms;
	ul_nsec t0;

	ck_assert_int_eq(ul_scratch_create(suite_dir, scratch, sizeof(scratch)), 0);
	ck_assert_int_eq(ul_sup_init(&eng.sup), 0);
	ctx.scratch_dir = scratch;
	ctx.self_exe = self_exe();
	ctx.ncpu = 1;
	tiny_ctx(find("null"), &ctx);
	ck_assert_msg(ul_probe_start(&eng.sup, find("null"), &ctx, START_TIMEOUT_NS, &st.rp, why,
				     sizeof(why)) == 0,
		      "%s", why);
	ck_assert_int_eq(kill(ul_probe_child(st.rp)->pid, SIGSTOP), 0); /* it hangs */
	for (int i = 0; i < EXITS; i++) {
		struct ul_spawn_opts so = { .name = "exits",
					    .fn = exit_after_ms,
					    .arg = (void *)(intptr_t)((i + 1) * EVERY_MS) };

		ck_assert_int_eq(ul_spawn(&eng.sup, &so, &others[i]), 0);
	}
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_resp_sample_cell(&st, &cell, NULL), UL_ENGINE_OK);
	elapsed_ms = (int64_t)(ul_now_ns() - t0) / UL_NS_PER_MS;
	ck_assert_int_eq(cell.outcome, UL_CELL_PROBE_FAILED);
	ck_assert_msg(strstr(cell.note, "no answer within"), "%s", cell.note);
	ck_assert_ptr_null(st.rp);
	/* Not TIMEOUT + EXITS * EVERY_MS (1.2 s): the deadline did not move. */
	ck_assert_int_ge(elapsed_ms, TIMEOUT_MS - 10);
	ck_assert_msg(elapsed_ms < TIMEOUT_MS + 2 * EVERY_MS, "waited %lld ms",
		      (long long)elapsed_ms);
	while (eng.sup.n_children)
		ck_assert_int_eq(ul_sup_wait(&eng.sup, -1, ul_now_ns() + 2 * UL_NS_PER_SEC, &ex),
				 UL_WAIT_CHILD_EXITED);
	ul_cell_release(&cell);
	ul_sup_fini(&eng.sup);
	ck_assert_int_eq(ul_scratch_remove(scratch), 0);
}
END_TEST

/* Write s to the file at path; 0 or -errno. */
static int put(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc = 0;

	if (fd < 0)
		return -errno;
	if (write(fd, s, strlen(s)) != (ssize_t)strlen(s))
		rc = -errno;
	close(fd);
	return rc;
}

/* After 300 ms, lift the pids limit in file arg; NULL when it did. */
static void *lift_later(void *arg)
{
	usleep(300 * 1000);
	return put(arg, "max") ? arg : NULL;
}

/*
 * A fork the kernel refuses for a while (a pids limit here; a memory
 * cgroup at its limit in a sandboxed run) is retried inside the sample:
 * the sample succeeds once the limit lifts and includes the wait, and a
 * limit that never lifts fails it with the kernel's error after the retry
 * window.  Needs root and cgroup v1's pids hierarchy.
 */
START_TEST(test_resp_fork_retried)
{
	const char *root = "/sys/fs/cgroup/pids";
	const struct ul_probe *p = find("resp");
	char cg[4200], file[4300], pid[32];
	struct fixture f;
	struct ul_running_probe *rp;
	ul_nsec t0;
	int64_t value;
	pthread_t lifter;
	void *lifted;
	int err;

	snprintf(file, sizeof(file), "%s/cgroup.procs", root);
	if (geteuid() != 0 || access(file, W_OK)) {
		fprintf(stderr, "skip: probe/resp_fork_retried: needs root and %s\n", root);
		return;
	}
	fork_cgroup_path(cg, sizeof(cg));
	ck_assert_int_eq(mkdir(cg, 0700), 0);
	fixture_init(&f);
	tiny_ctx(p, &f.ctx);
	rp = start(&f, p);
	snprintf(pid, sizeof(pid), "%d", (int)ul_probe_child(rp)->pid);
	snprintf(file, sizeof(file), "%s/cgroup.procs", cg);
	ck_assert_int_eq(put(file, pid), 0);
	snprintf(file, sizeof(file), "%s/pids.max", cg);
	ck_assert_int_eq(put(file, "1"), 0); /* the probe alone: its fork fails */
	/* A thread, not a child: the supervisor would reap a child. */
	ck_assert_int_eq(pthread_create(&lifter, NULL, lift_later, file), 0);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0, t0 + 10 * UL_NS_PER_SEC, &value, &err,
					  NULL),
			 UL_MEASURE_OK);
	ck_assert_int_eq(pthread_join(lifter, &lifted), 0);
	ck_assert_ptr_null(lifted);
	ck_assert_msg(value >= 250 * UL_NS_PER_MS, "the sample took %lld ns", (long long)value);
	/* A limit that stays: the error stands after the retry window. */
	ck_assert_int_eq(put(file, "1"), 0);
	t0 = ul_now_ns();
	ck_assert_int_eq(ul_probe_measure(&f.sup, rp, 0, t0 + 10 * UL_NS_PER_SEC, &value, &err,
					  NULL),
			 UL_MEASURE_FAILED);
	ck_assert_int_eq(err, EAGAIN);
	ck_assert_int_ge(ul_now_ns() - t0, 2 * UL_NS_PER_SEC - 100 * UL_NS_PER_MS);
	ck_assert_int_eq(put(file, "max"), 0);
	ck_assert_int_eq(ul_probe_stop(&f.sup, rp, UL_NS_PER_SEC), 0);
	fixture_fini(&f);
	ck_assert_int_eq(rmdir(cg), 0);
}
END_TEST

Suite *ul_test_suite_probe(void)
{
	Suite *s = suite_create("probe");
	TCase *tc = tcase_create("probe");

	tcase_set_timeout(tc, 20);
	tcase_add_unchecked_fixture(tc, suite_dir_create, suite_dir_remove);
	tcase_add_test(tc, test_registry);
	tcase_add_test(tc, test_conformance);
	tcase_add_test(tc, test_start_refuses_other_kinds);
	tcase_add_test(tc, test_timeout_then_keep_waiting);
	tcase_add_test(tc, test_null_is_tiny);
	tcase_add_test(tc, test_resp_missing_exe_fails);
	tcase_add_test(tc, test_resp_setup_failure);
	tcase_add_test(tc, test_resp_cpu_work_counts);
	tcase_add_test(tc, test_resp_fork_retried);
	tcase_add_test(tc, test_other_child_exit);
	tcase_add_test(tc, test_probe_child_dies);
	tcase_add_test(tc, test_resp_sample_deadline_fixed);
	tcase_add_test(tc, test_lsdir);
	suite_add_tcase(s, tc);
	return s;
}
