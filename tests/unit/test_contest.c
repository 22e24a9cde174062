/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * contest tests: the --job splitter and PATH search, the generated tree
 * (same seed same bytes, builds with make), every contest load's start,
 * counting, stop and CPU accounting, whole jobs through the engine (the
 * rusage of a CPU-burning child, a failing job), and the formats.
 */
#include "unit.h"

#include "core/clock.h"
#include "core/opt.h"
#include "core/optparse.h"
#include "core/sysinfo.h"
#include "engine/engine.h"
#include "engine/suites/contest/contest.h"
#include "engine/suites/contest/srctree.h"
#include "load/load.h"
#include "proc/scratch.h"
#include "proc/supervise.h"
#include "report/contest.h"
#include "report/format.h"
#include "store/store.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef UL_SOURCE_ROOT
#error "the test build must define UL_SOURCE_ROOT"
#endif
#define GOLDEN_DIR UL_SOURCE_ROOT "/tests/golden/"
#define MS UL_NS_PER_MS

/*
 * A CPU-burning job of a fraction of a second: a shell loop in a child
 * shell, then the shell's `times` (its own and its reaped children's user
 * and system time) appended to TIMES_FILE, to compare with what wait4 gave.
 */
#define BURN_LOOP "( i=0; while [ $i -lt 150000 ]; do i=$((i+1)); done )"
#define TIMES_FILE "times.txt"

static char dir[4096];

static void dir_create(void)
{
	ck_assert_int_eq(ul_scratch_create("/tmp", dir, sizeof(dir)), 0);
}

static void dir_remove(void)
{
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}

/* ---- splitting and finding the job ------------------------------------ */

static void check_split(const char *cmd, const char *const *want)
{
	char **argv = NULL, why[128] = "";
	size_t i;

	ck_assert_msg(ul_contest_split(cmd, &argv, why, sizeof(why)) == 0, "%s: %s", cmd, why);
	for (i = 0; want[i]; i++) {
		ck_assert_msg(argv[i] != NULL, "%s: word %zu missing", cmd, i);
		ck_assert_str_eq(argv[i], want[i]);
	}
	ck_assert_msg(argv[i] == NULL, "%s: extra word '%s'", cmd, argv[i]);
	free(argv);
}

START_TEST(test_split_words)
{
	check_split("make -j2", (const char *[]){ "make", "-j2", NULL });
	check_split("  sh  -c \"exit 1\"  ", (const char *[]){ "sh", "-c", "exit 1", NULL });
	check_split("sh -c 'echo \"$HOME\" *'",
		    (const char *[]){ "sh", "-c", "echo \"$HOME\" *", NULL });
	check_split("a\\ b \"x\\\"y\\\\z\\n\" ''",
		    (const char *[]){ "a b", "x\"y\\z\\n", "", NULL });
	check_split("pre'fix'\"ed\"\tnext", (const char *[]){ "prefixed", "next", NULL });
}
END_TEST

START_TEST(test_split_errors)
{
	static const char *const bad[] = { "", "   ", "sh -c 'open", "x \"y", "trailing\\" };
	char **argv = (char **)1, why[128];

	for (size_t i = 0; i < UL_ARRAY_SIZE(bad); i++) {
		why[0] = '\0';
		ck_assert_int_eq(ul_contest_split(bad[i], &argv, why, sizeof(why)), -EINVAL);
		ck_assert_ptr_null(argv);
		ck_assert_msg(why[0], "no reason for '%s'", bad[i]);
	}
}
END_TEST

START_TEST(test_which)
{
	char path[4096], script[4200], rel[64];
	struct stat st;
	int fd;

	snprintf(script, sizeof(script), "%s/plain.txt", dir);
	fd = open(script, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	ck_assert_int_ge(fd, 0);
	close(fd);

	ck_assert_int_eq(ul_contest_which("sh", NULL, path, sizeof(path)), 0);
	ck_assert_int_eq(path[0], '/');
	ck_assert_int_eq(stat(path, &st), 0);
	ck_assert_int_eq(access(path, X_OK), 0);
	ck_assert_int_eq(ul_contest_which("/nonexistent/prog", NULL, path, sizeof(path)), -ENOENT);
	ck_assert_int_eq(ul_contest_which("no-such-program-ul", NULL, path, sizeof(path)), -ENOENT);
	/* Found but not executable. */
	ck_assert_int_eq(ul_contest_which(script, NULL, path, sizeof(path)), -EACCES);
	/* A relative name with a slash is looked up in the job's directory. */
	snprintf(script, sizeof(script), "%s/build.sh", dir);
	fd = open(script, O_WRONLY | O_CREAT | O_TRUNC, 0755);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, "#!/bin/sh\n", 10), 10);
	close(fd);
	snprintf(rel, sizeof(rel), "./build.sh");
	ck_assert_int_eq(ul_contest_which(rel, dir, path, sizeof(path)), 0);
	ck_assert_str_eq(path, (snprintf(script, sizeof(script), "%s/./build.sh", dir), script));
	ck_assert_int_eq(ul_contest_which(rel, "/", path, sizeof(path)), -ENOENT);
}
END_TEST

START_TEST(test_loads_divisor)
{
	ck_assert_double_eq(ul_contest_loads_divisor("process_load"), 10000);
	ck_assert_double_eq(ul_contest_loads_divisor("mem_load"), 1000);
	ck_assert_double_eq(ul_contest_loads_divisor("io_load"), 100);
	ck_assert_double_eq(ul_contest_loads_divisor("read_load"), 100);
	ck_assert_double_eq(ul_contest_loads_divisor("tarc_load"), 1);
	ck_assert_double_eq(ul_contest_loads_divisor("lslr_load"), 1);
}
END_TEST

/* ---- the generated tree ----------------------------------------------- */

/* Concatenate every file of a tree, in sorted path order, into a buffer. */
struct blob {
	char *buf;
	size_t len, files;
};

static void slurp_tree(const char *root, const char *rel, struct blob *b)
{
	char path[4096];
	struct dirent **ents;
	int n;

	snprintf(path, sizeof(path), "%s%s%s", root, *rel ? "/" : "", rel);
	n = scandir(path, &ents, NULL, alphasort);
	ck_assert_msg(n >= 0, "scandir %s", path);
	for (int i = 0; i < n; i++) {
		char sub[4096], full[8300];
		struct stat st;

		if (ents[i]->d_name[0] == '.') {
			free(ents[i]);
			continue;
		}
		snprintf(sub, sizeof(sub), "%s%s%s", rel, *rel ? "/" : "", ents[i]->d_name);
		snprintf(full, sizeof(full), "%s/%s", root, sub);
		ck_assert_int_eq(lstat(full, &st), 0);
		if (S_ISDIR(st.st_mode)) {
			slurp_tree(root, sub, b);
		} else {
			FILE *f = fopen(full, "rb");
			size_t add = strlen(sub) + 1 + (size_t)st.st_size;

			ck_assert_ptr_nonnull(f);
			b->buf = realloc(b->buf, b->len + add + 1);
			ck_assert_ptr_nonnull(b->buf);
			memcpy(b->buf + b->len, sub, strlen(sub) + 1);
			b->len += strlen(sub) + 1;
			ck_assert_uint_eq(fread(b->buf + b->len, 1, (size_t)st.st_size, f),
					  (size_t)st.st_size);
			b->len += (size_t)st.st_size;
			b->files++;
			fclose(f);
		}
		free(ents[i]);
	}
	free(ents);
}

static void tiny_spec(struct ul_srctree_spec *s)
{
	ul_srctree_spec_quick(s);
	s->units = 3;
	s->funcs = 2;
	s->headers = 2;
	s->dirs = 2;
}

START_TEST(test_srctree_deterministic)
{
	struct ul_srctree_spec spec;
	struct blob a = { 0 }, b = { 0 }, c = { 0 };
	char p1[4200], p2[4200], p3[4200];
	uint64_t bytes1 = 0, bytes2 = 0, bytes3 = 0;

	ul_srctree_spec_quick(&spec);
	spec.units = 10;
	snprintf(p1, sizeof(p1), "%s/t1", dir);
	snprintf(p2, sizeof(p2), "%s/t2", dir);
	snprintf(p3, sizeof(p3), "%s/t3", dir);
	ck_assert_int_eq(ul_srctree_generate(p1, &spec, &bytes1), 0);
	ck_assert_int_eq(ul_srctree_generate(p2, &spec, &bytes2), 0);
	spec.seed++;
	ck_assert_int_eq(ul_srctree_generate(p3, &spec, &bytes3), 0);
	slurp_tree(p1, "", &a);
	slurp_tree(p2, "", &b);
	slurp_tree(p3, "", &c);
	/* units + headers + entries.h + main.c + Makefile */
	ck_assert_uint_eq(a.files, 10 + spec.headers + 3);
	ck_assert_uint_eq(a.len, b.len);
	ck_assert_msg(memcmp(a.buf, b.buf, a.len) == 0, "same seed, different trees");
	ck_assert_uint_eq(bytes1, bytes2);
	ck_assert_uint_eq(c.files, a.files);
	ck_assert_msg(a.len != c.len || memcmp(a.buf, c.buf, a.len) != 0,
		      "different seeds, same tree");
	/* The reported size is the contents' size (names are not counted). */
	{
		uint64_t names = 0;

		for (size_t off = 0, k = 0; k < a.files; k++) {
			size_t nl = strlen(a.buf + off) + 1;
			struct stat st;
			char full[8300];

			snprintf(full, sizeof(full), "%s/%s", p1, a.buf + off);
			ck_assert_int_eq(stat(full, &st), 0);
			names += nl;
			off += nl + (size_t)st.st_size;
		}
		ck_assert_uint_eq(bytes1 + names, a.len);
	}
	/* An existing directory is refused, not merged into. */
	ck_assert_int_eq(ul_srctree_generate(p1, &spec, NULL), -EEXIST);
	spec.units = 0;
	ck_assert_int_eq(ul_srctree_generate(p3, &spec, NULL), -EINVAL);
	free(a.buf);
	free(b.buf);
	free(c.buf);
}
END_TEST

/* Run argv in cwd with output to /dev/null; its exit status. */
static int run_in(const char *cwd, char *const argv[])
{
	pid_t pid = fork();
	int st;

	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);

		if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || chdir(cwd) < 0)
			_exit(126);
		execv(argv[0], argv);
		_exit(127);
	}
	ck_assert_int_eq(waitpid(pid, &st, 0), pid);
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
}

START_TEST(test_srctree_builds)
{
	struct ul_srctree_spec spec;
	char tree[4200], make[4096], app[4300], obj[4300];
	char *build[] = { make, (char *)"-j2", NULL }, *clean[] = { make, (char *)"clean", NULL };
	char *run_app[] = { app, NULL };

	if (ul_contest_which("make", NULL, make, sizeof(make)) ||
	    ul_contest_which("cc", NULL, obj, sizeof(obj))) {
		fprintf(stderr, "contest: no make or cc in PATH, build test skipped\n");
		return;
	}
	tiny_spec(&spec);
	snprintf(tree, sizeof(tree), "%s/build", dir);
	ck_assert_int_eq(ul_srctree_generate(tree, &spec, NULL), 0);
	ck_assert_int_eq(run_in(tree, build), 0);
	snprintf(app, sizeof(app), "%s/app", tree);
	snprintf(obj, sizeof(obj), "%s/src/d001/u00001.o", tree);
	ck_assert_int_eq(access(app, X_OK), 0);
	ck_assert_int_eq(access(obj, F_OK), 0);
	ck_assert_int_eq(run_in(tree, run_app), 0);
	ck_assert_int_eq(run_in(tree, clean), 0);
	ck_assert_int_eq(access(app, F_OK), -1);
	ck_assert_int_eq(access(obj, F_OK), -1);
}
END_TEST

/* ---- the loads -------------------------------------------------------- */

static const char *const new_loads[] = {
	"process_load", "io_load", "mem_load", "tarc_load", "tarx_load", "read_load", "lslr_load",
};

/* Tiny sizes; the tar and ls loads read a generated tree of three units. */
static void tiny_ctx(struct ul_load_ctx *ctx, const struct ul_load *load, const char *tree)
{
	char err[128];

	memset(ctx, 0, sizeof(*ctx));
	ctx->scratch_dir = dir;
	ctx->self_exe = "/proc/self/exe";
	ctx->ncpu = 2;
	ctx->mem_budget_bytes = 16 * UL_MiB;
	ctx->mem_ceiling_bytes = 64 * UL_MiB;
	ctx->disk_reserve_bytes = 0;
	ctx->src_dir = tree;
	ul_opt_defaults(load->opts, ctx->opt);
	if (!strcmp(load->name, "process_load"))
		ck_assert_int_eq(ul_opt_set(load->opts, ctx->opt, "procs", "4", err, sizeof(err)),
				 0);
}

static bool group_gone(pid_t pgid)
{
	return kill(-pgid, 0) == -1 && errno == ESRCH;
}

/*
 * Start, let it work, stop: units counted, the load's CPU accounted (its
 * workers' and commands' too), consistent with how long it ran, nothing
 * left behind.
 */
START_TEST(test_load_cycle)
{
	const char *name = new_loads[_i];
	const struct ul_load *load = ul_load_find(name);
	struct ul_srctree_spec spec;
	struct ul_running_load *rl = NULL;
	struct ul_child *exited = NULL;
	struct ul_load_usage lu;
	struct ul_load_ctx ctx;
	struct ul_sup sup;
	char why[512], tree[4200], scratch[4096];
	uint64_t units = 0;
	bool killed = true;
	int64_t cpu;
	pid_t pgid;

	ck_assert_msg(load != NULL, "load '%s' is not registered", name);
	tiny_spec(&spec);
	snprintf(tree, sizeof(tree), "%s/tree-%s", dir, name);
	ck_assert_int_eq(ul_srctree_generate(tree, &spec, NULL), 0);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	/* Its own directory, removed after it as the engine does: loads own no cleanup. */
	ck_assert_int_eq(ul_scratch_create(dir, scratch, sizeof(scratch)), 0);
	tiny_ctx(&ctx, load, tree);
	ctx.scratch_dir = scratch;
	ck_assert_msg(ul_load_start(&sup, load, &ctx, 10 * UL_NS_PER_SEC, &rl, why, sizeof(why)) ==
			      0,
		      "%s: %s", name, why);
	pgid = ul_load_child(rl)->pid;
	/* Half a second, and until it has done some work (at most 20 s):
	 * the test is about counting, not speed. */
	for (ul_nsec t0 = ul_now_ns(); (ul_load_units(rl) < 2 || ul_now_ns() < t0 + 500 * MS) &&
				       ul_now_ns() < t0 + 20 * UL_NS_PER_SEC;)
		ck_assert_int_eq(ul_sup_wait(&sup, -1, ul_now_ns() + 50 * MS, &exited),
				 UL_WAIT_TIMEOUT);
	ck_assert_int_eq(ul_load_failed_errno(rl), 0);
	ck_assert_int_eq(ul_load_stop_usage(&sup, rl, UL_NS_PER_SEC, &units, &killed, &lu), 0);
	ck_assert_msg(units >= 2, "%s: %llu %s", name, (unsigned long long)units, load->unit);
	ck_assert_msg(!killed, "%s needed SIGKILL", name);
	ck_assert(lu.valid);
	ck_assert_int_gt(lu.ran_ns, 0);
	cpu = lu.user_ns + lu.sys_ns;
	ck_assert_msg(cpu > 0, "%s: no CPU time accounted", name);
	/* CPU cannot exceed the time it ran on every CPU (plus tick rounding). */
	ck_assert_msg(cpu <= lu.ran_ns * sysconf(_SC_NPROCESSORS_ONLN) + 50 * MS,
		      "%s: %lld ns CPU in %lld ns", name, (long long)cpu, (long long)lu.ran_ns);
	ck_assert_msg(group_gone(pgid), "%s: its process group survived", name);
	ck_assert_uint_eq(sup.n_children, 0);
	ul_sup_fini(&sup);
	ck_assert_int_eq(ul_scratch_remove(scratch), 0);
}
END_TEST

/* CPU time (utime + stime, ns) of the live members of process group pgid, from /proc. */
static int64_t group_cpu_ns(pid_t pgid)
{
	long hz = sysconf(_SC_CLK_TCK);
	DIR *d = opendir("/proc");
	struct dirent *e;
	int64_t ticks = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d))) {
		char path[300], buf[1024], *p;
		unsigned long ut, st;
		int pgrp;
		FILE *f;

		if (atoi(e->d_name) <= 0)
			continue;
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		p = fgets(buf, sizeof(buf), f) ? strrchr(buf, ')') : NULL;
		fclose(f);
		if (p &&
		    sscanf(p + 1, " %*c %*d %d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &pgrp, &ut,
			   &st) == 3 &&
		    pgrp == pgid)
			ticks += (int64_t)(ut + st);
	}
	closedir(d);
	return ticks * (UL_NS_PER_SEC / hz);
}

/*
 * process_load's work happens in its ring workers, not in the leader: the
 * leader must reap them on SIGTERM for their CPU to count.  What the
 * workers had used just before the stop (read from /proc, whatever the
 * machine's load) must be in the load's usage after it.
 */
START_TEST(test_workers_cpu_counted)
{
	const struct ul_load *load = ul_load_find("process_load");
	struct ul_running_load *rl = NULL;
	struct ul_child *exited = NULL;
	struct ul_load_usage lu;
	struct ul_load_ctx ctx;
	struct ul_sup sup;
	char why[256];
	int64_t before = 0;
	ul_nsec t0;
	pid_t pgid;

	ck_assert_ptr_nonnull(load);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	tiny_ctx(&ctx, load, NULL);
	ck_assert_int_eq(ul_load_start(&sup, load, &ctx, 10 * UL_NS_PER_SEC, &rl, why, sizeof(why)),
			 0);
	pgid = ul_load_child(rl)->pid;
	/* Until the workers have used a measurable amount (ticks are 10 ms). */
	for (t0 = ul_now_ns(); before < 200 * MS && ul_now_ns() < t0 + 30 * UL_NS_PER_SEC;) {
		ck_assert_int_eq(ul_sup_wait(&sup, -1, ul_now_ns() + 100 * MS, &exited),
				 UL_WAIT_TIMEOUT);
		before = group_cpu_ns(pgid);
	}
	ck_assert_int_ge(before, 200 * MS);
	ck_assert_int_eq(ul_load_stop_usage(&sup, rl, UL_NS_PER_SEC, NULL, NULL, &lu), 0);
	/* 4 live processes, each rounded down by up to a tick. */
	ck_assert_msg(lu.user_ns + lu.sys_ns >= before - 50 * MS,
		      "workers' CPU lost: %lld ns user+sys, the group had used %lld ns",
		      (long long)(lu.user_ns + lu.sys_ns), (long long)before);
	ul_sup_fini(&sup);
}
END_TEST

/*
 * The leader's exit is not load work: it unmaps the address space it
 * inherited from the supervisor, which cost noload's LCPU% 3 ms of sys
 * under ASan and 10 ms in one CI run.  Here the supervisor holds 512 MiB
 * of touched memory, so that exit costs tens of ms of sys time; noload,
 * which only sleeps in pause() after "go", must still count (almost) none.
 */
START_TEST(test_leader_exit_not_counted)
{
	const size_t big = (size_t)512 << 20;
	const struct ul_load *load = ul_load_find("noload");
	struct ul_running_load *rl = NULL;
	struct ul_child *exited = NULL;
	struct ul_load_usage lu;
	struct ul_load_ctx ctx;
	struct ul_sup sup;
	char why[256];
	char *mem;

	ck_assert_ptr_nonnull(load);
	mem = mmap(NULL, big, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert_ptr_ne(mem, MAP_FAILED);
	memset(mem, 1, big);
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	tiny_ctx(&ctx, load, NULL);
	ck_assert_int_eq(ul_load_start(&sup, load, &ctx, 10 * UL_NS_PER_SEC, &rl, why, sizeof(why)),
			 0);
	ck_assert_int_eq(ul_sup_wait(&sup, -1, ul_now_ns() + 100 * MS, &exited), UL_WAIT_TIMEOUT);
	ck_assert_int_eq(ul_load_stop_usage(&sup, rl, UL_NS_PER_SEC, NULL, NULL, &lu), 0);
	ck_assert(lu.valid);
	/* CPU time, not wall time: a busy machine does not raise it. */
	ck_assert_msg(lu.user_ns + lu.sys_ns < 2 * MS,
		      "noload counted %lld ns user, %lld ns sys: its exit's teardown",
		      (long long)lu.user_ns, (long long)lu.sys_ns);
	ul_sup_fini(&sup);
	munmap(mem, big);
}
END_TEST

/* The tar loads refuse to run without a tree rather than measure nothing. */
START_TEST(test_tar_needs_tree)
{
	const struct ul_load *load = ul_load_find("tarc_load");
	struct ul_load_ctx ctx;
	char why[256] = "";

	ck_assert_ptr_nonnull(load);
	tiny_ctx(&ctx, load, NULL);
	ck_assert_int_eq(load->check(&ctx, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "tree"));
	ctx.src_dir = "/nonexistent";
	ck_assert_int_eq(load->check(&ctx, why, sizeof(why)), -ENOTDIR);
	/* A tree that cannot fit above the disk reserve is refused, not shrunk. */
	ctx.src_dir = UL_SOURCE_ROOT "/src";
	ctx.disk_reserve_bytes = UINT64_MAX / 2;
	ck_assert_int_eq(load->check(&ctx, why, sizeof(why)), -ENOSPC);
	ck_assert_ptr_nonnull(strstr(why, "reserve"));
}
END_TEST

/* ---- whole jobs through the engine ------------------------------------ */

static struct ul_engine_config cfg;
static struct ul_contest_opts copts;

static void engine_cfg(const char *job, const char *const *tests, size_t ntests, int runs)
{
	static char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	ck_assert_int_gt(n, 0);
	exe[n] = '\0';
	memset(&cfg, 0, sizeof(cfg));
	memset(&copts, 0, sizeof(copts));
	ul_opt_apply_defaults(ul_contest_opt_table, &copts);
	copts.job = job;
	copts.lead_ns = 100 * MS;
	copts.no_drop_caches = true;
	cfg.suite_opts[ul_suite_index(ul_suite_find("contest"))] = &copts;
	cfg.scratch_parent = dir;
	cfg.self_exe = exe;
	cfg.sample_timeout_ns = 60 * UL_NS_PER_SEC;
	cfg.ready_timeout_ns = 10 * UL_NS_PER_SEC;
	cfg.stop_grace_ns = UL_NS_PER_SEC;
	cfg.disk_reserve_bytes = 0;
	cfg.runs = runs;
	for (size_t i = 0; i < ntests; i++)
		cfg.tests[i] = tests[i];
	cfg.n_tests = ntests;
	for (size_t i = 0; i < ul_load_count(); i++)
		ul_opt_defaults(ul_load_at(i)->opts, cfg.load_opt[i]);
	setenv("UL_JOURNAL_DIR", dir, 1);
}

/* --quick (a footprint cap) caps the files sized by the budget as it caps
 * memory loads: largewrite, io_load and read_load see a 512M budget. */
START_TEST(test_quick_caps_budget_sized_files)
{
	struct ul_engine eng;
	struct ul_run run;
	struct ul_load_ctx ctx;
	const char *names[] = { "largewrite", "io_load", "read_load", "8ctx-mem" };

	engine_cfg("true", NULL, 0, 1);
	ul_run_init(&run);
	run.host.ncpu = 2;
	run.params.mem_budget_bytes = 24 * UL_GiB;
	memset(&eng, 0, sizeof(eng));
	eng.cfg = &cfg;
	eng.run = &run;
	eng.mem_ceiling_bytes = 20 * UL_GiB;
	for (size_t i = 0; i < UL_ARRAY_SIZE(names); i++) {
		const struct ul_load *load = ul_load_find(names[i]);

		ck_assert_ptr_nonnull(load);
		cfg.mem_footprint_cap_bytes = 0;
		ul_engine_load_ctx(&eng, load, &ctx);
		ck_assert_uint_eq(ctx.mem_budget_bytes, 24 * UL_GiB);
		ck_assert_uint_eq(ctx.mem_ceiling_bytes, 20 * UL_GiB);
		cfg.mem_footprint_cap_bytes = 512 * UL_MiB;
		ul_engine_load_ctx(&eng, load, &ctx);
		ck_assert_uint_eq(ctx.mem_budget_bytes, 512 * UL_MiB);
		ck_assert_uint_eq(ctx.mem_ceiling_bytes, 512 * UL_MiB);
	}
	/* a budget below the cap (a --mem-limit) is left alone */
	run.params.mem_budget_bytes = 256 * UL_MiB;
	ul_engine_load_ctx(&eng, ul_load_find("largewrite"), &ctx);
	ck_assert_uint_eq(ctx.mem_budget_bytes, 256 * UL_MiB);
	ul_run_release(&run);
}
END_TEST

static void set_load_opt(const char *load, const char *opt, const char *val)
{
	char err[128];

	for (size_t i = 0; i < ul_load_count(); i++)
		if (!strcmp(ul_load_at(i)->name, load)) {
			const struct ul_load *l = ul_load_at(i);

			ck_assert_int_eq(ul_opt_set(l->opts, cfg.load_opt[i], opt, val, err,
						    sizeof(err)),
					 0);
			return;
		}
	ck_abort_msg("no load %s", load);
}

/* Runs the contest suite into a fresh store; returns the engine's result. */
static int engine_run(struct ul_run *run, struct ul_store **store)
{
	const struct ul_suite *suites[1] = { ul_suite_find("contest") };
	char db[4200], err[256];

	ck_assert_ptr_nonnull(suites[0]);
	snprintf(db, sizeof(db), "%s/results.db", dir);
	unlink(db);
	ck_assert_int_eq(ul_store_open(db, store, err, sizeof(err)), 0);
	ul_run_init(run);
	ck_assert_int_eq(ul_run_new_uuid(run), 0);
	ck_assert_int_eq(ul_host_read(&run->host), 0);
	snprintf(run->label, sizeof(run->label), "unit");
	snprintf(run->suites, sizeof(run->suites), "contest");
	run->params.mem_budget_bytes = 16 * UL_MiB;
	return ul_engine_run(&cfg, *store, run, suites, 1);
}

/* Nothing of the run's scratch directory may be left in `dir`. */
static void no_scratch_left(void)
{
	DIR *d = opendir(dir);
	struct dirent *e;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		ck_assert_msg(strncmp(e->d_name, UL_SCRATCH_PREFIX, strlen(UL_SCRATCH_PREFIX)),
			      "scratch directory %s left behind", e->d_name);
	closedir(d);
}

/* Reads the next `times` report: this shell's, then its children's, user and sys. */
static bool read_times(FILE *f, int64_t *user_ns, int64_t *sys_ns)
{
	int m[4];
	double sec[4];

	if (fscanf(f, " %dm%lfs %dm%lfs %dm%lfs %dm%lfs", &m[0], &sec[0], &m[1], &sec[1], &m[2],
		   &sec[2], &m[3], &sec[3]) != 8)
		return false;
	*user_ns = (int64_t)(((m[0] + m[2]) * 60 + sec[0] + sec[2]) * 1e9);
	*sys_ns = (int64_t)(((m[1] + m[3]) * 60 + sec[1] + sec[3]) * 1e9);
	return true;
}

/*
 * A CPU-burning job under noload and process_load, two interleaved rounds:
 * four cells in order.  The job's user and sys (wait4 of its whole tree)
 * match what the shell itself reported for itself and the child that did
 * the work, to the clock tick; user + sys never exceeds wall x CPUs; CPU%
 * is computed from them; the load's LCPU% and Loads are recorded.
 */
START_TEST(test_engine_job_rusage)
{
	static const char *const tests[] = { "noload", "process_load" };
	static const char *const order[] = { "noload", "process_load", "noload", "process_load" };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	char job[8400], times_path[4200];
	struct ul_store *store;
	struct ul_run run;
	FILE *times;

	snprintf(times_path, sizeof(times_path), "%s/" TIMES_FILE, dir);
	unlink(times_path);
	snprintf(job, sizeof(job), "/bin/sh -c '" BURN_LOOP "; times >> %s'", times_path);
	engine_cfg(job, tests, 2, 2);
	set_load_opt("process_load", "procs", "4");
	ck_assert_int_eq(engine_run(&run, &store), UL_ENGINE_OK);
	ck_assert_uint_eq(run.n_cells, 4);
	times = fopen(times_path, "r");
	ck_assert_ptr_nonnull(times);
	for (size_t i = 0; i < 4; i++) {
		const struct ul_cell *c = &run.cells[i];
		const struct ul_series *w = ul_cell_find_series(c, "wall_ns");
		const struct ul_series *u = ul_cell_find_series(c, "user_ns");
		const struct ul_series *s = ul_cell_find_series(c, "sys_ns");
		double cpu, lcpu, loads, round;
		int64_t t_user, t_sys;

		ck_assert_str_eq(c->suite, "contest");
		ck_assert_str_eq(c->probe, "job");
		ck_assert_str_eq(c->load, order[i]);
		ck_assert_msg(c->outcome == UL_CELL_OK, "%s: %s", c->load, c->note);
		ck_assert_str_eq(c->series[0].name, "wall_ns");
		ck_assert(w && u && s && w->n == 1 && u->n == 1 && s->n == 1);
		ck_assert_int_gt(w->v[0], 0);
		ck_assert_int_gt(u->v[0], 0);
		ck_assert(read_times(times, &t_user, &t_sys));
		/* `times` counts clock ticks (10 ms): a tick per figure, and the exit. */
		ck_assert_msg(llabs(u->v[0] - t_user) <= 30 * MS &&
				      llabs(s->v[0] - t_sys) <= 30 * MS,
			      "%s: wait4 user %lld sys %lld, the shell said %lld %lld", c->load,
			      (long long)u->v[0], (long long)s->v[0], (long long)t_user,
			      (long long)t_sys);
		ck_assert_msg(u->v[0] + s->v[0] <= w->v[0] * ncpu + 10 * MS, "%s: CPU above wall",
			      c->load);
		ck_assert(ul_cell_metric(c, "cpu_pct", &cpu));
		ck_assert_double_eq_tol(cpu, (double)(u->v[0] + s->v[0]) * 100 / (double)w->v[0],
					1e-9);
		ck_assert(ul_cell_metric(c, "round", &round));
		ck_assert_double_eq(round, (double)(i / 2 + 1));
		ck_assert(ul_cell_metric(c, "loads", &loads));
		ck_assert_double_eq_tol(
			loads, (double)c->load_units / ul_contest_loads_divisor(c->load), 1e-9);
		ck_assert(ul_cell_metric(c, "load_cpu_pct", &lcpu));
		if (!strcmp(c->load, "process_load")) {
			ck_assert_uint_gt(c->load_units, 0);
			ck_assert_double_gt(lcpu, 0);
		} else {
			ck_assert_uint_eq(c->load_units, 0);
		}
		ck_assert_double_le(lcpu, 100.0 * (double)ncpu + 5);
	}
	fclose(times);
	unlink(times_path);
	ul_run_release(&run);
	ul_store_close(store);
	no_scratch_left();
}
END_TEST

/* A failing first job stops the suite with an error and a probe-failed cell that says why. */
START_TEST(test_engine_job_fails)
{
	static const char *const tests[] = { "noload", "process_load" };
	struct ul_store *store;
	struct ul_run run;

	engine_cfg("sh -c 'echo early; echo boom; echo; echo bang >&2; exit 3'", tests, 2, 1);
	ck_assert_int_eq(engine_run(&run, &store), UL_ENGINE_ERROR);
	ck_assert_uint_eq(run.n_cells, 1);
	ck_assert_int_eq(run.cells[0].outcome, UL_CELL_PROBE_FAILED);
	/* The status and the job's last lines of output (blank lines skipped), in order. */
	ck_assert_msg(strstr(run.cells[0].note, "failed (exit status 3): early | boom | bang"),
		      "note: %s", run.cells[0].note);
	ck_assert_uint_eq(run.cells[0].series[0].n, 0); /* no time that could pass for a result */
	ck_assert_int_eq(run.status, UL_RUN_FAILED);
	ul_run_release(&run);
	ul_store_close(store);
	no_scratch_left();
}
END_TEST

/* A job that cannot be found fails before any cell. */
START_TEST(test_engine_job_missing)
{
	static const char *const tests[] = { "noload" };
	struct ul_store *store;
	struct ul_run run;

	engine_cfg("/nonexistent/build --all", tests, 1, 1);
	ck_assert_int_eq(engine_run(&run, &store), UL_ENGINE_ERROR);
	ck_assert_uint_eq(run.n_cells, 0);
	ul_run_release(&run);
	ul_store_close(store);
	no_scratch_left();
}
END_TEST

/* ---- formats ---------------------------------------------------------- */

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long size;

	ck_assert_msg(f != NULL, "cannot open %s", path);
	ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
	size = ftell(f);
	rewind(f);
	buf = calloc(1, (size_t)size + 1);
	ck_assert_ptr_nonnull(buf);
	ck_assert_uint_eq(fread(buf, 1, (size_t)size, f), (size_t)size);
	fclose(f);
	return buf;
}

/* n identical jobs of one load: the means are exactly these numbers. */
static void add_jobs(struct ul_run *run, const char *load, int n, double time_s, double cpu,
		     double loads, double lcpu)
{
	for (int i = 0; i < n; i++) {
		struct ul_cell *c = ul_run_add_cell(run);
		int64_t wall = (int64_t)(time_s * 10 + 0.5) * (UL_NS_PER_SEC / 10);

		ck_assert_ptr_nonnull(c);
		snprintf(c->suite, sizeof(c->suite), "contest");
		snprintf(c->load, sizeof(c->load), "%s", load);
		snprintf(c->probe, sizeof(c->probe), "job");
		ck_assert_int_eq(ul_series_push(ul_cell_series(c, "wall_ns"), wall), 0);
		ck_assert_int_eq(ul_series_push(ul_cell_series(c, "user_ns"), wall / 2), 0);
		ck_assert_int_eq(ul_series_push(ul_cell_series(c, "sys_ns"), 0), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "cpu_pct", cpu), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "loads", loads), 0);
		ck_assert_int_eq(ul_cell_set_metric(c, "load_cpu_pct", lcpu), 0);
	}
}

static char *render_runs(const struct ul_run *const *runs, size_t n, const char *baseline)
{
	const struct ul_format *f = ul_format_find("contest");
	struct ul_report_opts o = { .baseline = baseline };
	char *buf = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert(f->write_runs != NULL);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(f->write_runs(out, runs, n, &o), 0);
	ck_assert_int_eq(fclose(out), 0);
	return buf;
}

/*
 * Seed 001's noload, process_load and io_load blocks from its own numbers.
 * Its ratios divide by one constant (67.17 s, seed-systems.md 2.4): here
 * that is a --baseline label whose noload job took 67.17 s, which adds its
 * row to the noload block.  The seed lists 2.4.19 first: newest run first.
 */
START_TEST(test_format_seed_golden)
{
	static const struct {
		const char *label;
		int n[3];
		double v[3][4]; /* noload, process_load, io_load: Time CPU% Loads LCPU% */
	} seed[] = {
		{ "2.4.19",
		  { 3, 3, 3 },
		  { { 67.7, 98, 0, 0 }, { 106.5, 59, 112, 43 }, { 492.6, 14, 38, 10 } } },
		{ "2.5.38",
		  { 3, 3, 1 },
		  { { 72.0, 93, 0, 0 }, { 89.5, 74, 34, 28 }, { 4000.0, 1, 500, 1 } } },
		{ "2.5.39",
		  { 2, 2, 2 },
		  { { 72.2, 93, 0, 0 }, { 91.2, 73, 36, 28 }, { 423.9, 18, 30, 11 } } },
		{ "2.5.40",
		  { 1, 2, 1 },
		  { { 72.5, 93, 0, 0 }, { 82.8, 80, 25, 23 }, { 315.7, 25, 22, 10 } } },
		{ "2.5.41",
		  { 1, 1, 2 },
		  { { 73.8, 93, 0, 0 }, { 91.1, 73, 38, 30 }, { 607.5, 13, 47, 12 } } },
		{ "2.5.41-mm1",
		  { 3, 3, 3 },
		  { { 73.3, 92, 0, 0 }, { 88.8, 75, 32, 27 }, { 307.7, 26, 18, 10 } } },
		{ "2.5.41-mm2",
		  { 2, 2, 3 },
		  { { 74.2, 92, 0, 0 }, { 91.7, 75, 37, 27 }, { 294.3, 26, 17, 10 } } },
	};
	static const char *const loads[3] = { "noload", "process_load", "io_load" };
	struct ul_run runs[UL_ARRAY_SIZE(seed) + 1];
	const struct ul_run *ptrs[UL_ARRAY_SIZE(seed) + 1];
	char *got, *want;
	size_t k = UL_ARRAY_SIZE(seed);

	for (size_t i = 0; i < k; i++) {
		ul_run_init(&runs[i]);
		snprintf(runs[i].label, sizeof(runs[i].label), "%s", seed[i].label);
		runs[i].started_wall_ns = (int64_t)(100 - i) * UL_NS_PER_SEC;
		for (int l = 0; l < 3; l++)
			add_jobs(&runs[i], loads[l], seed[i].n[l], seed[i].v[l][0], seed[i].v[l][1],
				 seed[i].v[l][2], seed[i].v[l][3]);
	}
	/* Pass the runs oldest first: the format orders them. */
	ul_run_init(&runs[k]);
	snprintf(runs[k].label, sizeof(runs[k].label), "2.4.19-min");
	runs[k].started_wall_ns = 1;
	ck_assert_int_eq(ul_series_push(ul_cell_series(ul_run_add_cell(&runs[k]), "wall_ns"),
					67170 * MS),
			 0);
	snprintf(runs[k].cells[0].suite, UL_NAME_LEN, "contest");
	snprintf(runs[k].cells[0].load, UL_NAME_LEN, "noload");
	snprintf(runs[k].cells[0].probe, UL_NAME_LEN, "job");
	ck_assert_int_eq(ul_cell_set_metric(&runs[k].cells[0], "cpu_pct", 98), 0);
	for (size_t i = 0; i <= k; i++)
		ptrs[i] = &runs[k - i];
	got = render_runs(ptrs, k + 1, "2.4.19-min");
	want = slurp(GOLDEN_DIR "contest-seed-2.5.41-mm2.txt");
	ck_assert_str_eq(got, want);
	free(got);
	free(want);
	for (size_t i = 0; i <= k; i++)
		ul_run_release(&runs[i]);
}
END_TEST

/*
 * One run: ratios against its own noload mean; invalid jobs are left out
 * of the rows and listed with their reason; a label with no valid job of
 * a load gets no row.
 */
START_TEST(test_format_own_baseline_and_invalid)
{
	const struct ul_format *f = ul_format_find("contest");
	struct ul_run run;
	struct ul_cell *bad;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	ul_run_init(&run);
	snprintf(run.label, sizeof(run.label), "6.1-test");
	add_jobs(&run, "noload", 1, 10.0, 180, 0, 0);
	add_jobs(&run, "noload", 1, 12.0, 170, 0, 0);
	add_jobs(&run, "io_load", 1, 33.0, 60, 12, 9);
	add_jobs(&run, "io_load", 1, 99.0, 10, 1, 1);
	bad = &run.cells[run.n_cells - 1];
	bad->outcome = UL_CELL_LOAD_DIED;
	snprintf(bad->note, sizeof(bad->note), "load 'io_load' died while the job ran");
	add_jobs(&run, "mem_load", 1, 50.0, 50, 5, 5);
	run.cells[run.n_cells - 1].outcome = UL_CELL_LOAD_FAILED;

	out = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(f->write_run(out, &run), 0);
	ck_assert_int_eq(fclose(out), 0);
	ck_assert_str_eq(buf, "noload:\n"
			      "Kernel [runs]\t\tTime\tCPU%\tLoads\tLCPU%\tRatio\n"
			      "6.1-test [2]\t\t11.0\t175\t0\t0\t1.00\n"
			      "\n"
			      "io_load:\n"
			      "Kernel [runs]\t\tTime\tCPU%\tLoads\tLCPU%\tRatio\n"
			      "6.1-test [1]\t\t33.0\t60\t12\t9\t3.00\n"
			      "\n"
			      "mem_load:\n"
			      "Kernel [runs]\t\tTime\tCPU%\tLoads\tLCPU%\tRatio\n"
			      "\n"
			      "Not counted:\n"
			      "  6.1-test io_load: load-died: "
			      "load 'io_load' died while the job ran\n"
			      "  6.1-test mem_load: load-failed\n");
	free(buf);
	ul_run_release(&run);
}
END_TEST

/* The native table: spread, and the 95% CI of the mean from Student's t. */
START_TEST(test_format_native)
{
	const struct ul_format *f = ul_format_find("text");
	struct ul_run run;
	char *buf = NULL;
	size_t len = 0;
	FILE *out;

	ul_run_init(&run);
	snprintf(run.label, sizeof(run.label), "native");
	add_jobs(&run, "noload", 1, 10.0, 100, 0, 0);
	add_jobs(&run, "noload", 1, 12.0, 100, 0, 0);
	add_jobs(&run, "noload", 1, 14.0, 100, 0, 0);
	add_jobs(&run, "io_load", 2, 24.0, 50, 3, 7);
	out = open_memstream(&buf, &len);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(f->write_run(out, &run), 0);
	ck_assert_int_eq(fclose(out), 0);
	/* mean 12, S.D. 2, t(0.975, 2) = 4.303: 12 -/+ 4.303 * 2 / sqrt(3) */
	ck_assert_msg(strstr(buf, "[7.03, 16.97]"), "%s", buf);
	ck_assert_msg(strstr(buf, "95% CI of mean"), "%s", buf);
	/* io_load: two equal jobs, S.D. 0, ratio 24 / 12 */
	ck_assert_msg(strstr(buf, "[24.00, 24.00]") && strstr(buf, "2.000"), "%s", buf);
	/* Per-job cells do not also appear as a generic per-cell table. */
	ck_assert_msg(!strstr(buf, "wall_ns"), "%s", buf);
	free(buf);
	ul_run_release(&run);
}
END_TEST

/* A format's write error reaches the caller. */
static ssize_t failing_write(void *c, const char *b, size_t n)
{
	(void)c;
	(void)b;
	(void)n;
	errno = ENOSPC;
	return -1;
}

START_TEST(test_format_eio)
{
	static const cookie_io_functions_t io = { .write = failing_write };
	const struct ul_format *f = ul_format_find("contest");
	struct ul_run run;
	FILE *out = fopencookie(NULL, "w", io);

	ul_run_init(&run);
	snprintf(run.label, sizeof(run.label), "eio");
	add_jobs(&run, "noload", 1, 10.0, 100, 0, 0);
	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(f->write_run(out, &run), -EIO);
	fclose(out);
	ul_run_release(&run);
}
END_TEST

Suite *ul_test_suite_contest(void)
{
	Suite *s = suite_create("contest");
	TCase *tc = tcase_create("contest");

	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, dir_create, dir_remove);
	tcase_add_test(tc, test_split_words);
	tcase_add_test(tc, test_split_errors);
	tcase_add_test(tc, test_which);
	tcase_add_test(tc, test_loads_divisor);
	tcase_add_test(tc, test_srctree_deterministic);
	tcase_add_test(tc, test_srctree_builds);
	tcase_add_loop_test(tc, test_load_cycle, 0, (int)UL_ARRAY_SIZE(new_loads));
	tcase_add_test(tc, test_workers_cpu_counted);
	tcase_add_test(tc, test_leader_exit_not_counted);
	tcase_add_test(tc, test_tar_needs_tree);
	tcase_add_test(tc, test_engine_job_rusage);
	tcase_add_test(tc, test_engine_job_fails);
	tcase_add_test(tc, test_engine_job_missing);
	tcase_add_test(tc, test_format_seed_golden);
	tcase_add_test(tc, test_format_own_baseline_and_invalid);
	tcase_add_test(tc, test_format_native);
	tcase_add_test(tc, test_format_eio);
	tcase_add_test(tc, test_quick_caps_budget_sized_files);
	suite_add_tcase(s, tc);
	return s;
}
