/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for crash-aware journals: where journals live (a directory a
 * reboot keeps), the boot id that makes a journal of an earlier boot stale
 * whatever its pid, the "at" records that say where a run was, cleanup
 * marking such a run crashed (not interrupted), and the store's crashed
 * status with the cell of the test the machine went down in; compare's
 * rows count crashed runs per side and test, a crash-only test still gets
 * its row, and the variance learned from history leaves crashed runs out.
 *
 * Each test has its own directory (/tmp/ul-test-crash-XXXXXX) and journal
 * directory ($UL_JOURNAL_DIR); UL_TEST_BOOT_ID stands in for the boot id.
 * A build without test hooks ignores it: there the tests that need another
 * boot say they skip, and test_boot_id checks the hook is ignored.
 */
#include "unit.h"
#include "model/model.h"
#include "core/procstat.h"
#include "proc/changes.h"
#include "proc/journal.h"
#include "proc/journal_parse.h"
#include "stats/runcmp.h"
#include "store/store.h"
#include "ul_config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define UUID_A "0badc0de-0000-4000-8000-00000000000a"
#define NOBODY 65534

static char jdir[PATH_MAX];

static void setup(void)
{
	ul_unit_dir_make("crash");
	ul_unit_path(jdir, sizeof(jdir), "journal");
	ck_assert_int_eq(mkdir(jdir, 0700), 0);
	setenv("UL_JOURNAL_DIR", jdir, 1);
	setenv("UL_TEST_BOOT_ID", "boot-a", 1);
}

static void teardown(void)
{
	unsetenv("UL_JOURNAL_DIR");
	unsetenv("UL_TEST_BOOT_ID");
	ul_unit_dir_remove();
}

static int stale_count(void)
{
	int n = -1;

	ck_assert_int_eq(ul_journal_stale(jdir, &n), 0);
	return n;
}

static void write_journal(const char *name, const char *text)
{
	char path[PATH_MAX];
	int fd;

	ck_assert(snprintf(path, sizeof(path), "%s/%s", jdir, name) < (int)sizeof(path));
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

/* Whether this build obeys UL_TEST_BOOT_ID (-Dtest_hooks=true); else
 * says that test skips. */
static bool boot_hook(const char *test)
{
	if (UL_TEST_HOOKS)
		return true;
	fprintf(stderr,
		"skip: crash/%s: another boot needs UL_TEST_BOOT_ID, which only a "
		"build with -Dtest_hooks=true obeys\n",
		test);
	return false;
}

START_TEST(test_boot_id)
{
	char a[UL_JOURNAL_BOOT_LEN], b[UL_JOURNAL_BOOT_LEN];

	ck_assert_int_eq(ul_journal_boot_id(a), 0);
	if (UL_TEST_HOOKS) {
		ck_assert_str_eq(a, "boot-a");
		setenv("UL_TEST_BOOT_ID", "two words", 1);
		ck_assert_int_eq(ul_journal_boot_id(a), -EINVAL);
		ck_assert_str_eq(a, "");
	} else {
		ck_assert_uint_eq(strlen(a), 36); /* the kernel's, whatever the hook says */
	}
	unsetenv("UL_TEST_BOOT_ID");
	/* The kernel's: a UUID, the same on every read within a boot. */
	ck_assert_int_eq(ul_journal_boot_id(a), 0);
	ck_assert_int_eq(ul_journal_boot_id(b), 0);
	ck_assert_uint_eq(strlen(a), 36);
	ck_assert_str_eq(a, b);
	ck_assert(ul_journal_other_boot("x", "y"));
	ck_assert(!ul_journal_other_boot("x", "x"));
	ck_assert(!ul_journal_other_boot("", "y")); /* an older journal: pids decide */
	ck_assert(!ul_journal_other_boot("x", "")); /* this boot unknown: pids decide */
}
END_TEST

/* Our own live journal: alive in its boot, stale in any other. */
START_TEST(test_other_boot_is_stale_whatever_the_pid)
{
	struct ul_journal j;
	char head[256];
	ssize_t n;
	int fd;

	if (!boot_hook("other_boot_is_stale_whatever_the_pid"))
		return;

	ck_assert_int_eq(ul_journal_open(&j), 0);
	ck_assert_int_eq(ul_journal_add(&j, "scratch", "/nonexistent/underload-XXXXXX"), 0);
	fd = open(j.path, O_RDONLY | O_CLOEXEC);
	ck_assert_int_ge(fd, 0);
	n = read(fd, head, sizeof(head) - 1);
	close(fd);
	ck_assert_int_gt(n, 0);
	head[n] = '\0';
	ck_assert_msg(strstr(head, " boot-a\n") != NULL, "header: %s", head);
	ck_assert_int_eq(stale_count(), 0); /* we are alive, in this boot */
	setenv("UL_TEST_BOOT_ID", "boot-b", 1);
	ck_assert_int_eq(stale_count(), 1); /* a reboot later: our pid means nothing */
	setenv("UL_TEST_BOOT_ID", "boot-a", 1);
	ck_assert_int_eq(ul_journal_done(&j, "scratch", "/nonexistent/underload-XXXXXX"), 0);
	ul_journal_finish(&j);
}
END_TEST

/* A journal of an older version (no boot id) is judged by its pid only. */
START_TEST(test_old_journal_by_pid)
{
	struct ul_procstat ps;
	char text[256];

	if (!boot_hook("old_journal_by_pid"))
		return;

	ck_assert_int_eq(ul_procstat_read(getpid(), &ps), 0);
	setenv("UL_TEST_BOOT_ID", "boot-b", 1);
	snprintf(text, sizeof(text),
		 "underload-journal 1 %d %" PRIu64 "\nscratch /nonexistent/underload-YYYYYY\n",
		 (int)getpid(), ps.starttime);
	write_journal("1.journal", text); /* our live pid: alive, whatever the boot */
	write_journal("999999999.journal",
		      "underload-journal 1 999999999 0\nscratch /nonexistent/underload-ZZZZZZ\n");
	ck_assert_int_eq(stale_count(), 1);
	/* The same live pid with a boot id of another boot: stale. */
	snprintf(text, sizeof(text),
		 "underload-journal 1 %d %" PRIu64 " boot-a\nscratch /nonexistent/underload-Y\n",
		 (int)getpid(), ps.starttime);
	write_journal("1.journal", text);
	ck_assert_int_eq(stale_count(), 2);
}
END_TEST

struct seen {
	int calls;
	char uuid[40], store[PATH_MAX], where[256];
};

static int remember(void *arg, const char *uuid, const char *store, const char *where)
{
	struct seen *s = arg;

	s->calls++;
	snprintf(s->uuid, sizeof(s->uuid), "%s", uuid);
	snprintf(s->store, sizeof(s->store), "%s", store);
	snprintf(s->where, sizeof(s->where), "%s", where ? where : "(none)");
	return 0;
}

/* "at" records: the latest is where the run was; only for another boot. */
START_TEST(test_at_records_and_crashed_runs)
{
	struct ul_journal j;
	struct seen s = { 0 };

	if (!boot_hook("at_records_and_crashed_runs"))
		return;

	ck_assert_int_eq(ul_journal_open(&j), 0);
	ck_assert_int_eq(ul_journal_add(&j, "at", "x"), -EINVAL); /* not a change */
	ck_assert_int_eq(ul_journal_at(&j, "two\nlines"), -EINVAL);
	ck_assert_int_eq(ul_change_run_begin(&j, UUID_A, "/x/results.db"), 0);
	ck_assert_int_eq(ul_journal_at(&j, "0 1 100 resp noload resp"), 0);
	ck_assert_int_eq(ul_journal_at(&j, "1 1 200 resp 2ctx-mem resp"), 0);
	ck_assert_int_eq(ul_changes_crashed_runs(jdir, remember, &s), 0);
	ck_assert_int_eq(s.calls, 0); /* alive, this boot */
	setenv("UL_TEST_BOOT_ID", "boot-b", 1);
	ck_assert_int_eq(ul_changes_crashed_runs(jdir, remember, &s), 0);
	ck_assert_int_eq(s.calls, 1);
	ck_assert_str_eq(s.uuid, UUID_A);
	ck_assert_str_eq(s.store, "/x/results.db");
	ck_assert_str_eq(s.where, "1 1 200 resp 2ctx-mem resp");
	ck_assert_int_eq(stale_count(), 1); /* reading changed nothing */
	/* A run whose status was stored is no crashed run. */
	ck_assert_int_eq(ul_change_run_end(&j, UUID_A, "/x/results.db"), 0);
	ck_assert_int_eq(ul_changes_crashed_runs(jdir, remember, &s), 0);
	ck_assert_int_eq(s.calls, 1);
	setenv("UL_TEST_BOOT_ID", "boot-a", 1);
	ul_journal_finish(&j);
	ck_assert(access(j.path, F_OK) < 0); /* nothing pending: gone */
}
END_TEST

static int interrupted, crashed;
static char crashed_where[256];

static int mark_interrupted(void *arg, const char *store, const char *uuid, char *why, size_t len)
{
	(void)arg, (void)store, (void)uuid, (void)why, (void)len;
	interrupted++;
	return 0;
}

static int mark_crashed(void *arg, const char *store, const char *uuid, const char *where,
			char *why, size_t len)
{
	(void)arg, (void)store, (void)uuid, (void)why, (void)len;
	crashed++;
	snprintf(crashed_where, sizeof(crashed_where), "%s", where ? where : "(none)");
	return 0;
}

/* cleanup: a dead run of this boot is interrupted, one of another boot crashed. */
START_TEST(test_cleanup_marks_crashed)
{
	const struct ul_changes_hooks hooks = { .mark_interrupted = mark_interrupted,
						.mark_crashed = mark_crashed };
	int n = 0;

	if (!boot_hook("cleanup_marks_crashed"))
		return;

	interrupted = crashed = 0;
	write_journal("999999998.journal", "underload-journal 1 999999998 0 boot-a\n"
					   "run " UUID_A " /x/a.db\n");
	write_journal("999999999.journal", "underload-journal 1 999999999 0 boot-old\n"
					   "run " UUID_A " /x/b.db\n"
					   "at 3 2 300 contest mem_load job\n"
					   "at 4 2 400 contest tarc_load job\n");
	ck_assert_int_eq(ul_changes_cleanup(jdir, &hooks, &n), 0);
	ck_assert_int_eq(n, 2);
	ck_assert_int_eq(interrupted, 1);
	ck_assert_int_eq(crashed, 1);
	ck_assert_str_eq(crashed_where, "4 2 400 contest tarc_load job");
	ck_assert_int_eq(stale_count(), 0);
}
END_TEST

/* Where journals live without $UL_JOURNAL_DIR: a place a reboot keeps. */
START_TEST(test_durable_dirs)
{
	char dirs[UL_JOURNAL_MAX_DIRS][PATH_MAX], home[PATH_MAX];
	int n, status;
	pid_t pid;

	unsetenv("UL_JOURNAL_DIR");
	n = ul_journal_dirs(dirs);
	ck_assert_int_ge(n, 3);
	ck_assert_str_eq(dirs[0], geteuid() == 0 ? "/var/lib/underload/journal" : dirs[0]);
	ck_assert_str_eq(dirs[1], "/run/underload"); /* still read: older leftovers */
	if (geteuid() != 0)
		return;
	/* A user's: under $XDG_STATE_HOME, else ~/.local/state, made 0700. */
	ul_unit_path(home, sizeof(home), "home");
	ck_assert_int_eq(mkdir(home, 0700), 0);
	ck_assert_int_eq(chown(home, NOBODY, NOBODY), 0);
	ck_assert_int_eq(chmod(ul_unit_dir, 0711), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		char d[UL_JOURNAL_MAX_DIRS][PATH_MAX], want[PATH_MAX + 64];
		struct ul_journal j;
		struct stat st;
		bool good;

		if (setgid(NOBODY) || setuid(NOBODY))
			_exit(2);
		setenv("HOME", home, 1);
		setenv("XDG_STATE_HOME", "/state", 1);
		ul_journal_dirs(d);
		good = !strcmp(d[0], "/state/underload/journal");
		unsetenv("XDG_STATE_HOME");
		ul_journal_dirs(d);
		snprintf(want, sizeof(want), "%s/.local/state/underload/journal", home);
		good = good && !strcmp(d[0], want);
		good = good && ul_journal_open(&j) == 0 && !strncmp(j.path, want, strlen(want)) &&
		       stat(want, &st) == 0 && (st.st_mode & 0777) == 0700;
		ul_journal_finish(&j);
		_exit(good ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_int_eq(chmod(ul_unit_dir, 0700), 0);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "status %d", status);
}
END_TEST

START_TEST(test_where_text)
{
	struct ul_cell c = { .seq = 7, .started_wall_ns = 123 }, back;
	char text[256];
	int round = 0;

	snprintf(c.suite, sizeof(c.suite), "micro");
	snprintf(c.load, sizeof(c.load), "noload");
	snprintf(c.probe, sizeof(c.probe), "lat-null");
	ck_assert_int_eq(ul_cell_where_format(&c, 2, text, sizeof(text)), 0);
	ck_assert_str_eq(text, "7 2 123 micro noload lat-null");
	ck_assert_int_eq(ul_cell_where_parse(text, &back, &round), 0);
	ck_assert_int_eq(round, 2);
	ck_assert_int_eq(back.seq, 7);
	ck_assert_int_eq(back.outcome, UL_CELL_CRASHED);
	ck_assert_str_eq(back.probe, "lat-null");
	ck_assert_int_eq(back.started_wall_ns, 123);
	ck_assert_ptr_nonnull(strstr(back.note, "round 2"));
	ck_assert_int_eq(ul_cell_where_format(&c, 0, text, sizeof(text)), -EINVAL);
	ck_assert_int_eq(ul_cell_where_parse("7 2 123 micro noload", &back, &round), -EINVAL);
	ck_assert_int_eq(ul_cell_where_parse("7 2 123 a b c d", &back, &round), -EINVAL);
	ck_assert_int_eq(ul_cell_where_parse("-1 2 123 a b c", &back, &round), -EINVAL);
	ck_assert_int_eq(ul_cell_where_parse(NULL, &back, &round), -EINVAL);
}
END_TEST

static void add_cell(struct ul_run *run, const char *load, int64_t start)
{
	struct ul_cell *c = ul_run_add_cell(run);

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "resp");
	snprintf(c->load, sizeof(c->load), "%s", load);
	snprintf(c->probe, sizeof(c->probe), "resp");
	snprintf(c->load_unit, sizeof(c->load_unit), "units");
	c->started_wall_ns = start;
	c->finished_wall_ns = start + 10;
}

/* The store: crashed, with a cell of outcome crashed where it was. */
START_TEST(test_store_mark_crashed)
{
	struct ul_run run, back;
	struct ul_cell at, dup;
	struct ul_store *st;
	char path[PATH_MAX];
	int64_t end = 0;
	int round;

	ul_unit_path(path, sizeof(path), "crash.db");
	st = ul_unit_store_open(path);
	ul_run_init(&run);
	ck_assert_int_eq(ul_run_new_uuid(&run), 0);
	snprintf(run.label, sizeof(run.label), "k");
	snprintf(run.suites, sizeof(run.suites), "resp");
	run.started_wall_ns = 1000;
	ck_assert_int_eq(st->ops->begin_run(st, &run), 0);
	add_cell(&run, "noload", 2000);
	add_cell(&run, "cpuload", 3000); /* begun, never stored: the machine went down */
	ck_assert_int_eq(ul_run_cell_round(&run, 1), 1);
	ck_assert_int_eq(st->ops->add_cell(st, &run, &run.cells[0]), 0);
	ck_assert_int_eq(ul_cell_where_parse("1 1 3000 resp cpuload resp", &at, &round), 0);
	ck_assert_int_eq(ul_cell_where_parse("0 1 2000 resp noload resp", &dup, &round), 0);
	dup.outcome = UL_CELL_OK;
	ck_assert_int_eq(st->ops->mark_crashed(st, run.uuid, &dup, NULL), -EINVAL);
	ck_assert_msg(st->ops->mark_crashed(st, run.uuid, &at, &end) == 0, "%s", st->err);
	ck_assert_int_eq(end, 3000); /* the crashed cell's start, after noload's end */
	ck_assert_int_eq(st->ops->mark_crashed(st, run.uuid, &at, NULL), -EALREADY);
	ck_assert_int_eq(st->ops->mark_interrupted(st, run.uuid, NULL), -EALREADY);
	ck_assert_int_eq(st->ops->load_run(st, run.uuid, &back), 0);
	ck_assert_int_eq(back.status, UL_RUN_CRASHED);
	ck_assert_uint_eq(back.n_cells, 2);
	ck_assert_int_eq(back.cells[1].outcome, UL_CELL_CRASHED);
	ck_assert_str_eq(back.cells[1].load, "cpuload");
	ul_run_release(&back);
	ck_assert_int_eq(
		ul_unit_sql_int(path, "SELECT count(*) FROM runs WHERE status = 'crashed'"), 1);
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

/* Where a loaded run crashed: its crashed cell, or none; and in words. */
START_TEST(test_run_crash_where)
{
	struct ul_run run;
	char where[256];

	ul_run_init(&run);
	ck_assert_int_eq(ul_run_crash_phrase(&run, where, sizeof(where)), -1);
	ck_assert_str_eq(where, "in an unknown test");
	add_cell(&run, "noload", 1);
	add_cell(&run, "2ctx-mem", 2);
	ck_assert_int_eq(ul_run_crash_where(&run, where, sizeof(where)), -1);
	ck_assert_str_eq(where, "an unknown test");
	/* Every test stored as it ended: the machine went down after them. */
	ck_assert_int_eq(ul_run_crash_phrase(&run, where, sizeof(where)), -1);
	ck_assert_str_eq(where, "after its last test (resp 2ctx-mem (probe resp), round 1) ended, "
				"in its teardown or before another began");
	add_cell(&run, "noload", 3);
	add_cell(&run, "2ctx-mem", 4);
	run.cells[3].outcome = UL_CELL_CRASHED;
	ck_assert_int_eq(ul_run_crash_where(&run, where, sizeof(where)), 3);
	ck_assert_str_eq(where, "resp 2ctx-mem (probe resp), round 2");
	ck_assert_int_eq(ul_run_crash_phrase(&run, where, sizeof(where)), 3);
	ck_assert_str_eq(where, "in resp 2ctx-mem (probe resp), round 2");
	ul_run_release(&run);
}
END_TEST

static const struct ul_runcmp_metric delay = { "resp", "delay_ns", "delay", "ns", UL_BETTER_LOWER };

/* A resp run: for each load of `loads` ("noload,2ctx-mem!" with '!' for a
 * cell of outcome crashed) a cell of 10 points around level (1% noise,
 * deterministic); a run with a crashed cell has the status crashed. */
static void resp_run(struct ul_run *run, int64_t id, const char *label, const char *loads,
		     double level)
{
	char list[128], *save = NULL;

	ul_run_init(run);
	run->id = id;
	run->status = UL_RUN_COMPLETE;
	snprintf(run->label, sizeof(run->label), "%s", label);
	snprintf(list, sizeof(list), "%s", loads);
	for (char *w = strtok_r(list, ",", &save); w; w = strtok_r(NULL, ",", &save)) {
		size_t n = strlen(w);
		bool dies = w[n - 1] == '!';
		struct ul_cell *c;

		w[n - dies] = '\0';
		add_cell(run, w, 100 * id);
		c = &run->cells[run->n_cells - 1];
		if (dies) {
			c->outcome = UL_CELL_CRASHED;
			run->status = UL_RUN_CRASHED;
			continue;
		}
		struct ul_series *s = ul_cell_series(c, "delay_ns");

		ck_assert_ptr_nonnull(s);
		for (int i = 0; i < 10; i++)
			ck_assert_int_eq(
				ul_series_push(s, (int64_t)(level * (1.0 + 0.01 * (i % 5 - 2) +
								     1e-4 * (double)id))),
				0);
	}
}

/* The row of test in c, or fail. */
static const struct ul_runcmp_row *row_of(const struct ul_runcmp *c, const char *test)
{
	for (size_t i = 0; i < c->n_rows; i++)
		if (!strcmp(c->rows[i].test, test))
			return &c->rows[i];
	ck_abort_msg("no row for %s", test);
	return NULL;
}

/* compare counts, per side and test, the runs that reached the test and
 * those that crashed in it, and the crashed runs whose finished cells it
 * pools; a test that only crashed still has its row, untested, saying so. */
START_TEST(test_compare_counts_crashes)
{
	struct ul_run a[2], b[3];
	const struct ul_run *pa[] = { &a[0], &a[1] }, *pb[] = { &b[0], &b[1], &b[2] };
	const struct ul_runcmp_group g[2] = {
		{ .label = "a", .runs = pa, .n_runs = 2 },
		{ .label = "b", .runs = pb, .n_runs = 3 },
	};
	struct ul_cmp_opts o = { .alpha = 0.05 };
	const struct ul_runcmp_row *r;
	struct ul_runcmp c;

	resp_run(&a[0], 1, "a", "noload,2ctx-mem,8ctx-mem!", 1e6);
	resp_run(&a[1], 2, "a", "noload,2ctx-mem", 1e6);
	resp_run(&b[0], 3, "b", "noload,2ctx-mem!", 1e6);
	resp_run(&b[1], 4, "b", "noload,2ctx-mem", 1e6);
	resp_run(&b[2], 5, "b", "noload,2ctx-mem,8ctx-mem!", 1e6);
	ck_assert_int_eq(ul_runcmp_build(g, 2, &delay, 1, &o, &c), 0);
	ck_assert_uint_eq(c.n_rows, 3);
	r = row_of(&c, "noload");
	ck_assert(r->tested);
	ck_assert_uint_eq(r->crash[0].crashed + r->crash[1].crashed, 0);
	ck_assert_uint_eq(r->crash[0].reached, 2);
	ck_assert_uint_eq(r->crash[1].reached, 3);
	ck_assert_uint_eq(r->crash[0].pooled, 1); /* a[0] crashed later, in 8ctx-mem */
	ck_assert_uint_eq(r->crash[1].pooled, 2);
	ck_assert_uint_eq(r->cells_cand, 3); /* pooled, and said so */
	r = row_of(&c, "2ctx-mem");
	ck_assert(r->tested); /* on the runs that measured it */
	ck_assert_uint_eq(r->crash[1].crashed, 1);
	ck_assert_uint_eq(r->crash[1].reached, 3);
	ck_assert_uint_eq(r->crash[1].pooled, 1); /* b[2] */
	ck_assert_uint_eq(r->cells_cand, 2);
	ck_assert_uint_eq(r->crash[0].crashed, 0);
	r = row_of(&c, "8ctx-mem"); /* only ever crashed: a row all the same */
	ck_assert(!r->tested);
	ck_assert_uint_eq(r->crash[0].crashed, 1);
	ck_assert_uint_eq(r->crash[0].reached, 1);
	ck_assert_uint_eq(r->crash[1].crashed, 1);
	ck_assert_uint_eq(r->crash[1].reached, 1);
	ck_assert_ptr_nonnull(strstr(r->why, "baseline and the candidate"));
	ck_assert_ptr_nonnull(strstr(r->why, "crashed"));
	ul_runcmp_free(&c);
	for (int i = 0; i < 2; i++)
		ul_run_release(&a[i]);
	for (int i = 0; i < 3; i++)
		ul_run_release(&b[i]);
}
END_TEST

/* The variance learned from history leaves crashed runs out: a history of
 * two runs teaches it; the same two with one crashed (after finishing the
 * test) teach nothing, and the row's call stays unconfirmed. */
START_TEST(test_history_leaves_crashed_out)
{
	struct ul_run h[2], a, b;
	const struct ul_run *ph[] = { &h[0], &h[1] }, *pa[] = { &a }, *pb[] = { &b };
	const struct ul_runcmp_group hist = { .label = "h", .runs = ph, .n_runs = 2 };
	const struct ul_runcmp_group g[2] = {
		{ .label = "a", .runs = pa, .n_runs = 1 },
		{ .label = "b", .runs = pb, .n_runs = 1 },
	};
	struct ul_cmp_opts o = { .alpha = 0.05 };
	struct ul_runcmp c;

	resp_run(&h[0], 1, "h", "noload", 1e6);
	resp_run(&h[1], 2, "h", "noload,2ctx-mem!", 1.02e6);
	resp_run(&a, 3, "a", "noload", 1e6);
	resp_run(&b, 4, "b", "noload", 1.5e6);
	ck_assert_int_eq(ul_runcmp_build_hist(g, 2, &delay, 1, &o, UL_RUNCMP_POINTS, &hist, 1, &c),
			 0);
	ck_assert_int_eq(row_of(&c, "noload")->basis, UL_BASIS_UNMEASURED);
	ck_assert_int_eq(row_of(&c, "noload")->res.verdict, UL_VERDICT_SLOWER_UNCONFIRMED);
	ul_runcmp_free(&c);
	h[1].status = UL_RUN_COMPLETE; /* the same cells, not crashed: learned */
	ck_assert_int_eq(ul_runcmp_build_hist(g, 2, &delay, 1, &o, UL_RUNCMP_POINTS, &hist, 1, &c),
			 0);
	ck_assert_int_eq(row_of(&c, "noload")->basis, UL_BASIS_LEARNED);
	ck_assert_uint_eq(row_of(&c, "noload")->learned_groups, 1);
	ul_runcmp_free(&c);
	for (int i = 0; i < 2; i++)
		ul_run_release(&h[i]);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

/*
 * A failed append whose part-line cannot be cut off (ftruncate refused)
 * stops the journal: a later line would glue onto the part-line and the
 * parser would drop both.  A full non-blocking pipe stands in for such a
 * file: the write fails with EAGAIN and a pipe cannot be truncated.
 */
START_TEST(test_torn_line_stops_the_journal)
{
	struct ul_journal j = { .fd = -1 };
	char fill[4096];
	int p[2];

	memset(fill, 'x', sizeof(fill));
	ck_assert_int_eq(pipe2(p, O_NONBLOCK | O_CLOEXEC), 0);
	while (write(p[1], fill, sizeof(fill)) > 0)
		;
	while (write(p[1], fill, 1) == 1)
		;
	j.fd = p[1];
	ck_assert_int_eq(ul_journal_add(&j, "swap", "/x"), -EAGAIN);
	while (read(p[0], fill, sizeof(fill)) > 0)
		;
	ck_assert_int_eq(ul_journal_add(&j, "swap", "/y"), -EIO);
	ck_assert_int_lt(read(p[0], fill, 1), 0); /* nothing of it written */
	close(p[0]);
	close(p[1]);
}
END_TEST

Suite *ul_test_suite_crash(void)
{
	Suite *s = suite_create("crash");
	TCase *tc = tcase_create("journal");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_boot_id);
	tcase_add_test(tc, test_other_boot_is_stale_whatever_the_pid);
	tcase_add_test(tc, test_old_journal_by_pid);
	tcase_add_test(tc, test_at_records_and_crashed_runs);
	tcase_add_test(tc, test_cleanup_marks_crashed);
	tcase_add_test(tc, test_durable_dirs);
	tcase_add_test(tc, test_where_text);
	tcase_add_test(tc, test_store_mark_crashed);
	tcase_add_test(tc, test_run_crash_where);
	tcase_add_test(tc, test_compare_counts_crashes);
	tcase_add_test(tc, test_history_leaves_crashed_out);
	tcase_add_test(tc, test_torn_line_stops_the_journal);
	suite_add_tcase(s, tc);
	return s;
}
