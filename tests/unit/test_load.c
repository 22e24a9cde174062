/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Load tests: every registered load is checked, started under a real
 * supervisor with tiny sizes, stopped, and must leave no process behind.
 */
#include "unit.h"

#include "core/clock.h"
#include "core/opt.h"
#include "load/load.h"
#include "proc/scratch.h"
#include "proc/supervise.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define READY_TIMEOUT_NS (5 * UL_NS_PER_SEC)
#define RUN_NS (300 * UL_NS_PER_MS)
#define GRACE_NS (1 * UL_NS_PER_SEC)

static struct ul_sup sup;
static char scratch[4096];

/*
 * The scratch directory belongs to the runner process (unchecked fixture):
 * a failed assertion ends a forked test with _exit(), skipping its
 * teardown, and the directory must still be removed.
 */
static void scratch_setup(void)
{
	ck_assert_int_eq(ul_scratch_create("/tmp", scratch, sizeof(scratch)), 0);
}

static void scratch_teardown(void)
{
	ck_assert_int_eq(ul_scratch_remove(scratch), 0);
}

/* The supervisor lives in each forked test. */
static void sup_setup(void)
{
	ck_assert_int_eq(ul_sup_init(&sup), 0);
}

static void sup_teardown(void)
{
	ul_sup_fini(&sup);
}

/* Tiny sizes so every load starts fast and uses almost nothing. */
static const struct {
	const char *load, *opt, *value;
} tiny[] = {
	{ "cpuload", "spinners", "2" },	     { "2ctx-mem", "footprint", "4M" },
	{ "8ctx-mem", "footprint", "4M" },   { "largewrite", "size", "8M" },
	{ "smallwrite", "files", "4" },	     { "smallwrite", "file-size", "64K" },
	{ "smallwrite", "sync-every", "4" }, { "spawnload", "max-children", "4" },
};

static void make_ctx(struct ul_load_ctx *ctx, const struct ul_load *load)
{
	char err[256];

	memset(ctx, 0, sizeof(*ctx));
	ctx->scratch_dir = scratch;
	ctx->self_exe = "/proc/self/exe";
	ctx->ncpu = 2;
	ctx->mem_budget_bytes = 64 * UL_MiB;
	ctx->mem_ceiling_bytes = 256 * UL_MiB;
	ctx->disk_reserve_bytes = 0;
	ctx->src_dir = UL_SOURCE_ROOT "/docs"; /* tar and ls loads: a tiny, stable tree */
	ul_opt_defaults(load->opts, ctx->opt);
	for (size_t i = 0; i < UL_ARRAY_SIZE(tiny); i++) {
		if (strcmp(tiny[i].load, load->name))
			continue;
		ck_assert_msg(ul_opt_set(load->opts, ctx->opt, tiny[i].opt, tiny[i].value, err,
					 sizeof(err)) == 0,
			      "%s.%s=%s: %s", load->name, tiny[i].opt, tiny[i].value, err);
	}
}

static bool is_kebab(const char *s)
{
	if (!s || !*s || *s == '-')
		return false;
	for (; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '-')
			return false;
	return true;
}

/* A member of process group `pgid` other than its leader, or 0. */
static pid_t find_group_member(pid_t pgid)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	ck_assert_ptr_nonnull(d);
	while (!found && (e = readdir(d))) {
		char path[300], buf[512], *p;
		int pid = atoi(e->d_name), pgrp = 0, ppid;
		char state;
		FILE *f;

		if (pid <= 0 || pid == pgid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p && sscanf(p + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid &&
		    state != 'Z')
			found = pid;
	}
	closedir(d);
	return found;
}

static bool group_gone(pid_t pgid)
{
	return kill(-pgid, 0) == -1 && errno == ESRCH;
}

START_TEST(test_descriptors)
{
	const struct ul_load *load = ul_load_at((size_t)_i);

	ck_assert_ptr_nonnull(load);
	{
		/* contest's loads keep the seed's names (process_load): '_' as '-' */
		char name[64];

		snprintf(name, sizeof(name), "%s", load->name);
		for (char *p = name; *p; p++)
			*p = *p == '_' ? '-' : *p;
		ck_assert_msg(is_kebab(name), "bad load name '%s'", load->name);
	}
	ck_assert_ptr_eq(ul_load_find(load->name), load);
	for (size_t j = 0; j < ul_load_count(); j++)
		if (j != (size_t)_i)
			ck_assert_str_ne(ul_load_at(j)->name, load->name);
	ck_assert_msg(load->summary && *load->summary, "%s: no summary", load->name);
	ck_assert_msg(load->unit && *load->unit, "%s: no unit", load->name);
	ck_assert_msg(load->run != NULL, "%s: no run()", load->name);
	ck_assert_uint_le(ul_opt_count(load->opts), UL_OPT_MAX);
	for (size_t j = 0; j < ul_opt_count(load->opts); j++) {
		const struct ul_opt *o = &load->opts[j];
		char buf[64];

		ck_assert_msg(is_kebab(o->name), "%s: bad option name '%s'", load->name, o->name);
		ck_assert_msg(ul_opt_index(load->opts, o->name) == (int)j, "%s.%s: duplicate",
			      load->name, o->name);
		ck_assert_msg(o->min <= o->def && o->def <= o->max, "%s.%s: default out of range",
			      load->name, o->name);
		ck_assert_msg(o->help && *o->help, "%s.%s: no help", load->name, o->name);
		ul_opt_fmt(o, o->def, buf, sizeof(buf));
		ck_assert_msg(*buf, "%s.%s: default renders empty", load->name, o->name);
	}
}
END_TEST

/* Start, run ~300 ms under supervision, stop: work was done, nothing is left. */
START_TEST(test_start_stop)
{
	const struct ul_load *load = ul_load_at((size_t)_i);
	struct ul_running_load *rl = NULL;
	struct ul_child *exited = NULL;
	struct ul_load_ctx ctx;
	char why[512];
	uint64_t units = 0;
	bool needed_kill = true;
	enum ul_wait_result w;
	pid_t pgid;
	int r;

	make_ctx(&ctx, load);
	r = ul_load_start(&sup, load, &ctx, READY_TIMEOUT_NS, &rl, why, sizeof(why));
	ck_assert_msg(r == 0, "%s: start: %d %s", load->name, r, why);
	ck_assert_ptr_nonnull(rl);
	pgid = ul_load_child(rl)->pid;
	ck_assert_int_gt(pgid, 1);

	/* The load must survive its run: a death here is a CHILD_EXITED. */
	w = ul_sup_wait(&sup, -1, ul_now_ns() + RUN_NS, &exited);
	ck_assert_msg(w == UL_WAIT_TIMEOUT, "%s: wait returned %d (status 0x%x)", load->name,
		      (int)w, exited ? (unsigned)exited->wstatus : 0u);

	r = ul_load_stop(&sup, rl, GRACE_NS, &units, &needed_kill);
	ck_assert_msg(r == 0, "%s: stop returned %d", load->name, r);
	ck_assert_msg(!needed_kill, "%s: SIGTERM was not enough", load->name);
	if (strcmp(load->name, "noload"))
		ck_assert_msg(units > 0, "%s: no %s done in %lld ms", load->name, load->unit,
			      (long long)(RUN_NS / UL_NS_PER_MS));
	ck_assert_msg(group_gone(pgid), "%s: process group %d survived", load->name, (int)pgid);
	ck_assert_uint_eq(sup.n_children, 0);
}
END_TEST

/* check() refuses an explicit footprint above the ceiling, naming both. */
START_TEST(test_refuse_footprint)
{
	const struct ul_load *load = ul_load_find("8ctx-mem");
	struct ul_running_load *rl = NULL;
	struct ul_load_ctx ctx;
	char why[512], err[128];
	int r;

	ck_assert_ptr_nonnull(load);
	make_ctx(&ctx, load);
	ck_assert_int_eq(ul_opt_set(load->opts, ctx.opt, "footprint", "512M", err, sizeof(err)), 0);
	r = ul_load_start(&sup, load, &ctx, READY_TIMEOUT_NS, &rl, why, sizeof(why));
	ck_assert_int_eq(r, -E2BIG);
	ck_assert_ptr_null(rl);
	ck_assert_msg(strstr(why, "8ctx-mem") && strstr(why, "512M") && strstr(why, "256M"),
		      "reason: %s", why);
	ck_assert_uint_eq(sup.n_children, 0);
}
END_TEST

/* auto footprint: 110% of the budget, capped at the ceiling. */
START_TEST(test_footprint_auto)
{
	const struct ul_load *load = ul_load_find("2ctx-mem");
	struct ul_load_ctx ctx;
	char why[256];

	ck_assert_ptr_nonnull(load);
	make_ctx(&ctx, load);
	ctx.opt[0] = 0;
	ck_assert_int_eq(load->check(&ctx, why, sizeof(why)), 0);
	ck_assert_int_eq(ctx.opt[0], (int64_t)(64 * UL_MiB + 64 * UL_MiB / 10));
	ctx.opt[0] = 0;
	ctx.mem_budget_bytes = 1 * UL_GiB;
	ck_assert_int_eq(load->check(&ctx, why, sizeof(why)), 0);
	ck_assert_int_eq(ctx.opt[0], (int64_t)(256 * UL_MiB));
}
END_TEST

/* largewrite: an explicit size above free disk minus reserve is refused. */
START_TEST(test_refuse_disk)
{
	const struct ul_load *load = ul_load_find("largewrite");
	struct ul_running_load *rl = NULL;
	struct ul_load_ctx ctx;
	char why[512];
	int r;

	ck_assert_ptr_nonnull(load);
	make_ctx(&ctx, load);
	ctx.disk_reserve_bytes = UINT64_C(1) << 62;
	r = ul_load_start(&sup, load, &ctx, READY_TIMEOUT_NS, &rl, why, sizeof(why));
	ck_assert_int_eq(r, -ENOSPC);
	ck_assert_msg(strstr(why, "free") && strstr(why, "reserve"), "reason: %s", why);
	ck_assert_uint_eq(sup.n_children, 0);
}
END_TEST

/* --- loads that misbehave on purpose --- */

static int fake_unsupported(char *why, size_t len)
{
	snprintf(why, len, "not on Tuesdays");
	return -ENOTSUP;
}

static int fake_prepare_fails(struct ul_load_ctx *ctx, void **state)
{
	(void)ctx;
	(void)state;
	return ENOSPC;
}

static int fake_prepare_hangs(struct ul_load_ctx *ctx, void **state)
{
	(void)ctx;
	(void)state;
	for (;;)
		pause();
	return 0;
}

static int fake_run(struct ul_load_ctx *ctx, void *state)
{
	(void)ctx;
	(void)state;
	for (;;)
		pause();
	return EINTR;
}

static const struct ul_load fake_base = {
	.name = "fake",
	.summary = "test",
	.unit = "units",
	.run = fake_run,
};

static int start_fake(const struct ul_load *load, int64_t timeout_ns, char *why, size_t len)
{
	struct ul_running_load *rl = NULL;
	struct ul_load_ctx ctx;
	int r;

	make_ctx(&ctx, load);
	r = ul_load_start(&sup, load, &ctx, timeout_ns, &rl, why, len);
	ck_assert_ptr_null(rl);
	ck_assert_uint_eq(sup.n_children, 0);
	/* Nothing left running, not even a zombie. */
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	return r;
}

START_TEST(test_unsupported)
{
	struct ul_load load = fake_base;
	char why[256];

	load.supported = fake_unsupported;
	ck_assert_int_eq(start_fake(&load, READY_TIMEOUT_NS, why, sizeof(why)), -ENOTSUP);
	ck_assert_msg(strstr(why, "fake") && strstr(why, "not on Tuesdays"), "reason: %s", why);
}
END_TEST

START_TEST(test_prepare_fails)
{
	struct ul_load load = fake_base;
	char why[256];

	load.prepare = fake_prepare_fails;
	ck_assert_int_eq(start_fake(&load, READY_TIMEOUT_NS, why, sizeof(why)), -ENOSPC);
	ck_assert_msg(strstr(why, "load 'fake' exited before it was ready (exit status 1)"),
		      "reason: %s", why);
}
END_TEST

START_TEST(test_ready_timeout)
{
	struct ul_load load = fake_base;
	char why[256];

	load.prepare = fake_prepare_hangs;
	ck_assert_int_eq(start_fake(&load, 100 * UL_NS_PER_MS, why, sizeof(why)), -ETIMEDOUT);
	ck_assert_msg(strstr(why, "load 'fake' did not become ready within 100ms"), "reason: %s",
		      why);
}
END_TEST

/* An interrupt (queued before the start) ends the ready wait: -EINTR, nothing left. */
START_TEST(test_ready_interrupted)
{
	struct ul_load load = fake_base;
	char why[256];

	load.prepare = fake_prepare_hangs;
	ck_assert_int_eq(raise(SIGINT), 0); /* blocked by ul_sup_init(): read by its signalfd */
	ck_assert_int_eq(start_fake(&load, READY_TIMEOUT_NS, why, sizeof(why)), -EINTR);
	ck_assert_msg(strstr(why, "interrupted") && strstr(why, "fake"), "reason: %s", why);
	ck_assert_int_eq(sup.interrupts, 1);
}
END_TEST

/* Start cpuload and SIGKILL one of its workers behind its back. */
static struct ul_running_load *start_and_kill_worker(pid_t *pgid)
{
	const struct ul_load *load = ul_load_find("cpuload");
	struct ul_running_load *rl = NULL;
	struct ul_load_ctx ctx;
	ul_nsec deadline;
	char why[512];
	pid_t worker = 0;
	int r;

	ck_assert_ptr_nonnull(load);
	make_ctx(&ctx, load);
	r = ul_load_start(&sup, load, &ctx, READY_TIMEOUT_NS, &rl, why, sizeof(why));
	ck_assert_msg(r == 0, "start: %s", why);
	*pgid = ul_load_child(rl)->pid;

	deadline = ul_now_ns() + 2 * UL_NS_PER_SEC;
	while (!(worker = find_group_member(*pgid)) && ul_now_ns() < deadline)
		usleep(1000);
	ck_assert_int_gt(worker, 0);
	ck_assert_int_eq(kill(worker, SIGKILL), 0);
	return rl;
}

/*
 * The leader (in ul_load_run_workers) kills the other workers and exits
 * non-zero, which the supervisor sees as CHILD_EXITED; the stop that
 * follows has nothing new to report.
 */
START_TEST(test_worker_dies)
{
	struct ul_child *exited = NULL;
	struct ul_running_load *rl;
	pid_t pgid;

	rl = start_and_kill_worker(&pgid);
	ck_assert_int_eq(ul_sup_wait(&sup, -1, ul_now_ns() + 3 * UL_NS_PER_SEC, &exited),
			 UL_WAIT_CHILD_EXITED);
	ck_assert_ptr_eq(exited, ul_load_child(rl));
	ck_assert(WIFEXITED(exited->wstatus));
	ck_assert_int_ne(WEXITSTATUS(exited->wstatus), 0);

	ck_assert_int_eq(ul_load_stop(&sup, rl, GRACE_NS, NULL, NULL), 0);
	ck_assert(group_gone(pgid));
}
END_TEST

/* A death nobody waited for is reported by the stop itself. */
START_TEST(test_unnoticed_death)
{
	struct ul_running_load *rl;
	ul_nsec deadline;
	siginfo_t si;
	pid_t pgid;

	rl = start_and_kill_worker(&pgid);
	/* Wait for the leader to become a zombie without reaping it. */
	deadline = ul_now_ns() + 3 * UL_NS_PER_SEC;
	do {
		memset(&si, 0, sizeof(si));
		ck_assert_int_eq(waitid(P_PID, (id_t)pgid, &si, WEXITED | WNOHANG | WNOWAIT), 0);
	} while (si.si_pid != pgid && ul_now_ns() < deadline && usleep(1000) == 0);
	ck_assert_int_eq(si.si_pid, pgid);

	ck_assert_int_eq(ul_load_stop(&sup, rl, GRACE_NS, NULL, NULL), -ECHILD);
	ck_assert(group_gone(pgid));
}
END_TEST

Suite *ul_test_suite_load(void)
{
	Suite *s = suite_create("load");
	TCase *tc = tcase_create("registry");
	int n = (int)ul_load_count();

	tcase_add_loop_test(tc, test_descriptors, 0, n);
	suite_add_tcase(s, tc);

	tc = tcase_create("run");
	tcase_add_unchecked_fixture(tc, scratch_setup, scratch_teardown);
	tcase_add_checked_fixture(tc, sup_setup, sup_teardown);
	tcase_set_timeout(tc, 30);
	tcase_add_loop_test(tc, test_start_stop, 0, n);
	tcase_add_test(tc, test_refuse_footprint);
	tcase_add_test(tc, test_footprint_auto);
	tcase_add_test(tc, test_refuse_disk);
	tcase_add_test(tc, test_unsupported);
	tcase_add_test(tc, test_prepare_fails);
	tcase_add_test(tc, test_ready_timeout);
	tcase_add_test(tc, test_ready_interrupted);
	tcase_add_test(tc, test_worker_dies);
	tcase_add_test(tc, test_unnoticed_death);
	suite_add_tcase(s, tc);
	return s;
}
