/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The whole kind's driver (probe/whole.c) through the mtest01 probe's ops:
 * a run recorded, the counter reset between runs, a run past its deadline
 * stopped and reaped, a probe without ops refused; through the job probe's
 * (a shell script): the watch's progress tick, the grace of a stop at the
 * deadline, a run cancelled when another child (its load) died. */
#include "unit.h"
#include "core/clock.h"
#include "model/model.h"
#include "probe/job.h"
#include "probe/mtest01.h"
#include "probe/probe.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <time.h>
#include <unistd.h>
#include <sys/wait.h>

/* No child of the test process is left, running or zombie. */
static void assert_no_children(void)
{
	errno = 0;
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

static void mtest01_ctx(struct ul_probe_ctx *ctx, struct ul_mtest01_size *size)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->arg = size;
}

/* Two runs: each appends one value to every series, bytes = the target. */
START_TEST(test_whole_mtest01_runs)
{
	const struct ul_probe *probe = ul_probe_find("mtest01");
	struct ul_mtest01_size size = { .target = 2 * UL_MiB + 4321, .chunk = UL_MiB };
	struct ul_probe_ctx ctx;
	struct ul_whole_run *wr;
	struct ul_cell cell;
	struct ul_sup sup;

	ck_assert_ptr_nonnull(probe);
	ck_assert_ptr_nonnull(probe->whole);
	mtest01_ctx(&ctx, &size);
	memset(&cell, 0, sizeof(cell));
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_whole_start(probe, &ctx, &wr), 0);
	for (int run = 0; run < 2; run++) {
		struct ul_child *ex = NULL;
		int err = 0;

		ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns() + 20 * UL_NS_PER_SEC, &err,
						  &ex),
				 UL_MEASURE_OK);
		ck_assert_int_eq(ul_whole_result(wr, &cell), 0);
	}
	for (size_t i = 0; probe->whole->series[i]; i++) {
		const struct ul_series *s = ul_cell_find_series(&cell, probe->whole->series[i]);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->n, 2);
	}
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(ul_cell_find_series(&cell, UL_MTEST_BYTES_SERIES)->v[i],
				 (int64_t)size.target);
		ck_assert_int_eq(ul_cell_find_series(&cell, UL_MTEST_STATUS_SERIES)->v[i],
				 UL_MTEST_PASS);
		ck_assert_int_gt(ul_cell_find_series(&cell, probe->whole->series[0])->v[i], 0);
	}
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
	ul_cell_release(&cell);
	assert_no_children();
}
END_TEST

/* A run still going at its deadline is stopped and reaped: nothing to record. */
START_TEST(test_whole_deadline_stops_the_run)
{
	const struct ul_probe *probe = ul_probe_find("mtest01");
	struct ul_mtest01_size size = { .target = 256 * UL_MiB, .chunk = UL_MiB };
	struct ul_probe_ctx ctx;
	struct ul_whole_run *wr;
	struct ul_cell cell;
	struct ul_child *ex = NULL;
	struct ul_sup sup;
	int err = 0;

	mtest01_ctx(&ctx, &size);
	memset(&cell, 0, sizeof(cell));
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_whole_start(probe, &ctx, &wr), 0);
	/* A deadline already past: the child cannot have written 256 MiB. */
	ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns(), &err, &ex), UL_MEASURE_TIMEOUT);
	ck_assert_int_eq(ul_whole_result(wr, &cell), -EINVAL);
	ck_assert_ptr_null(ul_cell_find_series(&cell, UL_MTEST_BYTES_SERIES));
	assert_no_children();
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
	ul_cell_release(&cell);
}
END_TEST

/* A probe without whole ops (resp) is refused, and so is one without
 * what its suite gives it (job, mtest01, fsbench: ctx->arg). */
START_TEST(test_whole_needs_ops)
{
	const struct ul_probe *job = ul_probe_find("job"), *resp = ul_probe_find("resp");
	struct ul_probe_ctx ctx = { 0 };
	struct ul_whole_run *wr = (struct ul_whole_run *)&ctx;

	ck_assert_ptr_nonnull(job);
	ck_assert_ptr_nonnull(resp);
	ck_assert_int_eq(ul_whole_start(ul_probe_find("fsbench"), &ctx, &wr), -EINVAL);
	ck_assert_ptr_null(wr);
	ck_assert_int_eq(ul_whole_start(job, &ctx, &wr), -EINVAL);
	ck_assert_ptr_null(wr);
	ck_assert_int_eq(ul_whole_start(resp, &ctx, &wr), -EINVAL);
	/* mtest01 without its size from the suite */
	ck_assert_int_eq(ul_whole_start(ul_probe_find("mtest01"), &ctx, &wr), -EINVAL);
	ck_assert_ptr_null(wr);
}
END_TEST

/* The job probe as `sh -c SCRIPT` in the test's directory, output to job.log. */
struct sh_job {
	char log[128];
	char *argv[4];
	struct ul_job_spec spec;
	struct ul_probe_ctx ctx;
};

static void sh_job(struct sh_job *j, const char *script)
{
	ul_unit_path(j->log, sizeof(j->log), "job.log");
	j->argv[0] = (char *)"sh";
	j->argv[1] = (char *)"-c";
	j->argv[2] = (char *)script;
	j->argv[3] = NULL;
	j->spec = (struct ul_job_spec){
		.path = "/bin/sh", .argv = j->argv, .dir = ul_unit_dir, .log = j->log
	};
	memset(&j->ctx, 0, sizeof(j->ctx));
	j->ctx.arg = &j->spec;
}

/* The log's text (NUL-terminated, "" if unreadable). */
static void read_log(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n = fd >= 0 ? read(fd, buf, len - 1) : 0;

	buf[n > 0 ? n : 0] = '\0';
	if (fd >= 0)
		close(fd);
}

/* It says it is ready (its TERM trap set), then waits to be stopped; a
 * SIGTERM lets it write "term" 0.2 s later, if the grace lets it live. */
static const char trap_script[] =
	"trap 'sleep 0.2; echo term; exit 0' TERM; echo ready; while :; do sleep 0.05; done";

struct ticks {
	int n;
	int64_t last_ns;
	bool increasing;
};

static void count_tick(void *arg, int64_t ran_ns)
{
	struct ticks *t = arg;

	if (t->n && ran_ns < t->last_ns)
		t->increasing = false;
	t->n++;
	t->last_ns = ran_ns;
}

/* The watch's tick comes at the start and about every tick_ns, with the
 * time since the spawn; the ticks do not end the run early. */
START_TEST(test_whole_tick)
{
	struct ticks t = { .increasing = true };
	const struct ul_whole_watch watch = { .tick_ns = 100 * UL_NS_PER_MS,
					      .tick = count_tick,
					      .arg = &t };
	const struct ul_child *run;
	struct ul_whole_run *wr;
	struct ul_child *ex = NULL;
	struct ul_cell cell;
	struct ul_sup sup;
	struct sh_job j;
	int64_t elapsed = 0;
	int err = 0;

	sh_job(&j, "sleep 0.45");
	memset(&cell, 0, sizeof(cell));
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_whole_start(ul_probe_find("job"), &j.ctx, &wr), 0);
	ul_whole_set_watch(wr, &watch);
	ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns() + 20 * UL_NS_PER_SEC, &err, &ex),
			 UL_MEASURE_OK);
	run = ul_whole_child(wr, &elapsed);
	ck_assert_ptr_nonnull(run);
	ck_assert(WIFEXITED(run->wstatus) && WEXITSTATUS(run->wstatus) == 0);
	ck_assert_int_ge(elapsed, 450 * UL_NS_PER_MS);
	/* 0, 100, ..., 400 ms: five, fewer when the machine is slow; never
	 * more than one at the start and one a tick_ns of the child's life
	 * (a busy machine stretches "sleep 0.45" itself: bound by elapsed). */
	ck_assert_int_ge(t.n, 3);
	ck_assert_int_le(t.n, elapsed / watch.tick_ns + 2);
	ck_assert(t.increasing);
	ck_assert_int_ge(t.last_ns, 200 * UL_NS_PER_MS);
	ck_assert_int_le(t.last_ns, elapsed);
	ck_assert(!ul_whole_unkillable(wr));
	ck_assert_int_eq(ul_whole_result(wr, &cell), 0);
	ck_assert_int_eq(ul_cell_find_series(&cell, "wall_ns")->v[0], elapsed);
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
	ul_cell_release(&cell);
	assert_no_children();
}
END_TEST

/* A run stopped at its deadline gets the watch's grace: SIGTERM first. */
START_TEST(test_whole_deadline_grace)
{
	const struct ul_whole_watch watch = { .grace_ns = 10 * UL_NS_PER_SEC };
	struct ul_whole_run *wr;
	struct ul_child *ex = NULL;
	struct sh_job j;
	struct ul_sup sup;
	char log[64];
	int64_t elapsed = 0;
	int err = 0;

	sh_job(&j, trap_script);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_whole_start(ul_probe_find("job"), &j.ctx, &wr), 0);
	ul_whole_set_watch(wr, &watch);
	ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns() + 2 * UL_NS_PER_SEC, &err, &ex),
			 UL_MEASURE_TIMEOUT);
	ck_assert(!ul_whole_unkillable(wr));
	ck_assert_ptr_null(ul_whole_child(wr, &elapsed));
	assert_no_children();
	read_log(j.log, log, sizeof(log));
	ck_assert_ptr_nonnull(strstr(log, "ready\n"));
	ck_assert_ptr_nonnull(
		strstr(log, "\nterm\n")); /* (sh may say the sleep was "Terminated") */
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
}
END_TEST

/* A stand-in load: it exits once the job has said it is ready. */
static int load_main(void *arg)
{
	const char *log = arg;
	char buf[64];

	for (int i = 0; i < 1000; i++) {
		struct timespec ts = { 0, 10 * 1000 * 1000 };

		read_log(log, buf, sizeof(buf));
		if (strstr(buf, "ready"))
			return 3;
		nanosleep(&ts, NULL);
	}
	return 4;
}

/* Another child's death is reported with the run going on; cancelling the
 * run then stops it with the grace and reaps it: nothing to record. */
START_TEST(test_whole_cancel_when_load_dies)
{
	const struct ul_whole_watch watch = { .grace_ns = 10 * UL_NS_PER_SEC };
	struct ul_child load = { .pidfd = -1 };
	struct ul_spawn_opts so = { .name = "load", .fn = load_main };
	struct ul_whole_run *wr;
	struct ul_child *ex = NULL;
	struct ul_cell cell;
	struct sh_job j;
	struct ul_sup sup;
	char log[64];
	int64_t elapsed = 0;
	int err = 0;

	sh_job(&j, trap_script);
	so.arg = j.log;
	memset(&cell, 0, sizeof(cell));
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_spawn(&sup, &so, &load), 0);
	ck_assert_int_eq(ul_whole_start(ul_probe_find("job"), &j.ctx, &wr), 0);
	ul_whole_set_watch(wr, &watch);
	ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns() + 20 * UL_NS_PER_SEC, &err, &ex),
			 UL_MEASURE_CHILD_EXITED);
	ck_assert_ptr_eq(ex, &load);
	ck_assert(WIFEXITED(load.wstatus) && WEXITSTATUS(load.wstatus) == 3);
	ck_assert_ptr_null(ul_whole_child(wr, &elapsed)); /* still going */
	ck_assert_int_eq(ul_whole_cancel(&sup, wr), 0);
	ck_assert(!ul_whole_unkillable(wr));
	ck_assert_int_eq(ul_whole_result(wr, &cell), -EINVAL);
	assert_no_children();
	read_log(j.log, log, sizeof(log));
	ck_assert_ptr_nonnull(strstr(log, "ready\n"));
	ck_assert_ptr_nonnull(
		strstr(log, "\nterm\n")); /* (sh may say the sleep was "Terminated") */
	ck_assert_int_eq(ul_whole_cancel(&sup, wr), 0); /* nothing going: nothing to do */
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
	ul_cell_release(&cell);
}
END_TEST

static void whole_dir_setup(void)
{
	ul_unit_dir_make("whole");
}

Suite *ul_test_suite_whole(void)
{
	Suite *s = suite_create("whole");
	TCase *tc = tcase_create("whole");
	TCase *watch = tcase_create("watch");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_whole_mtest01_runs);
	tcase_add_test(tc, test_whole_deadline_stops_the_run);
	tcase_add_test(tc, test_whole_needs_ops);
	suite_add_tcase(s, tc);
	tcase_set_timeout(watch, 60);
	tcase_add_checked_fixture(watch, whole_dir_setup, ul_unit_dir_remove);
	tcase_add_test(watch, test_whole_tick);
	tcase_add_test(watch, test_whole_deadline_grace);
	tcase_add_test(watch, test_whole_cancel_when_load_dies);
	suite_add_tcase(s, watch);
	return s;
}
