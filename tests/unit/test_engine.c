/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's own paths under faults: the memory ceiling when
 * /proc/meminfo cannot be read (engine_run.c); a cell that cannot be made
 * whole for want of memory is taken back (engine.c); a store that refuses
 * cells costs one try per commit (keep.c), and a wait for a locked store
 * ends when the run is interrupted.
 */
#include "unit.h"
#include "core/sysinfo.h"
#include "engine/engine.h"
#include "core/clock.h"
#include "load/load.h"
#include "store/store.h"

#include <dlfcn.h>
#include <errno.h>
#include <sqlite3.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MiB (1024 * 1024ULL)

/*
 * With --mem-limit and no --swap, an unread /proc/meminfo leaves the
 * swap allowance unknown: none is counted (it used to be SwapFree from
 * the struct the failed read never filled).  A read one counts its
 * SwapFree; --swap is the allowance whatever meminfo says.
 */
START_TEST(test_mem_ceiling_unread_meminfo)
{
	static struct ul_engine_config cfg;
	struct ul_meminfo mi = { .available = 8000 * MiB, .swap_free = 2000 * MiB };

	memset(&cfg, 0, sizeof(cfg));
	cfg.mem_limit_bytes = 512 * MiB;
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, true, 4096 * MiB, NULL), 512 * MiB);
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, false, 4096 * MiB, NULL), 2048 * MiB);
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, true, 4096 * MiB, &mi), 2512 * MiB);
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, false, 4096 * MiB, &mi), 9000 * MiB);
	cfg.swap_bytes = 256 * MiB;
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, true, 4096 * MiB, NULL), 768 * MiB);
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, true, 4096 * MiB, &mi), 768 * MiB);
	/* A limit above what the host gives does not raise the ceiling. */
	cfg.mem_limit_bytes = 64000 * MiB;
	ck_assert_uint_eq(ul_engine_mem_ceiling(&cfg, true, 4096 * MiB, NULL), 2048 * MiB);
}
END_TEST

/*
 * The allocation failure hook: this runner's realloc() (which the model's
 * growth of cells, series and metrics goes through) fails once
 * realloc_fails_in more calls have succeeded; -1, the default, never.
 * Each Check test runs in a forked child, so arming it touches no other.
 */
static int realloc_fails_in = -1;

void *realloc(void *p, size_t n)
{
	static void *(*next)(void *, size_t);

	if (!next) /* POSIX's way to a function from dlsym(), which -Wpedantic accepts */
		*(void **)&next = dlsym(RTLD_NEXT, "realloc");
	if (realloc_fails_in == 0) {
		realloc_fails_in = -1;
		errno = ENOMEM;
		return NULL;
	}
	if (realloc_fails_in > 0)
		realloc_fails_in--;
	return next(p, n);
}

/* An engine on an empty run, for the cell paths (no store, no journal). */
static void engine_on(struct ul_engine *eng, struct ul_run *run)
{
	static struct ul_engine_config cfg;

	memset(&cfg, 0, sizeof(cfg));
	memset(eng, 0, sizeof(*eng));
	ul_run_init(run);
	eng->cfg = &cfg;
	eng->run = run;
	eng->journal.fd = -1;
}

/* Out of memory for a cell's series or its round: nothing is appended,
 * nothing leaks, and the next cell takes the place. */
START_TEST(test_half_made_cell_taken_back)
{
	static const char *const series[] = { "a", "b", "c", NULL };
	const struct ul_engine_step step = { .n = 1, .rounds = 1, .test = "noload" };
	const struct ul_load *noload = ul_load_find("noload");
	struct ul_engine eng;
	struct ul_run run;
	struct ul_cell *c;

	ck_assert_ptr_nonnull(noload);
	engine_on(&eng, &run);
	/* The cells array, then series "a": its growth fails. */
	realloc_fails_in = 1;
	ck_assert_ptr_null(ul_engine_new_cell_named(&eng, "s", "l", "u", "p", series));
	ck_assert_uint_eq(run.n_cells, 0);
	/* The run's cells are there already; the round metric's growth fails. */
	realloc_fails_in = 0;
	ck_assert_ptr_null(ul_engine_begin_cell(&eng, "resp", noload, "resp", &step, "x"));
	ck_assert_uint_eq(run.n_cells, 0);
	c = ul_engine_new_cell_named(&eng, "s", "l", "u", "p", series);
	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(c->seq, 0);
	ck_assert_uint_eq(c->n_series, 3);
	ck_assert_uint_eq(run.n_cells, 1);
	ul_run_release(&run);
}
END_TEST

/* A store whose add_cell refuses while `locked`, counting its calls and
 * recording the order of the cells it stored. */
static struct {
	bool locked;
	int calls;
	int stored[16];
	int n_stored;
} fake;

static int fake_add_cell(struct ul_store *st, const struct ul_run *run, const struct ul_cell *cell)
{
	(void)run;
	fake.calls++;
	if (fake.locked) {
		snprintf(st->err, sizeof(st->err), "database is locked");
		return -EBUSY;
	}
	ck_assert_int_lt(fake.n_stored, 16);
	fake.stored[fake.n_stored++] = cell->seq;
	return 0;
}

static const struct ul_store_ops fake_ops = { .scheme = "fake", .add_cell = fake_add_cell };

/* Commit a new cell of the run; returns the store calls it cost. */
static int commit_new(struct ul_engine *eng)
{
	struct ul_cell *c = ul_run_add_cell(eng->run);
	int before = fake.calls;

	ck_assert_ptr_nonnull(c);
	ck_assert_int_eq(ul_engine_store_cell(eng, c), 0);
	return fake.calls - before;
}

/*
 * A locked store: each later commit tries the first kept cell once, and
 * no more (each try is a whole busy wait, 5 minutes by default: the
 * retries used to cost one per kept cell); once the store accepts cells,
 * every kept one goes in, in run order, before the new one.
 */
START_TEST(test_kept_cells_one_try_per_commit)
{
	struct ul_store store = { .ops = &fake_ops };
	struct ul_engine eng;
	struct ul_run run;

	engine_on(&eng, &run);
	eng.store = &store;
	memset(&fake, 0, sizeof(fake));
	fake.locked = true;
	for (int i = 0; i < 5; i++)
		ck_assert_int_eq(commit_new(&eng), 1);
	ck_assert_uint_eq(eng.n_kept, 5);
	fake.locked = false;
	ck_assert_int_eq(commit_new(&eng), 6);
	ck_assert_uint_eq(eng.n_kept, 0);
	ck_assert_int_eq(fake.n_stored, 6);
	for (int i = 0; i < 6; i++)
		ck_assert_int_eq(fake.stored[i], i);
	ck_assert_int_eq(ul_engine_keep_finish(&eng, true), 0);
	free(eng.kept);
	ul_run_release(&run);
}
END_TEST

static void dir_make(void)
{
	ul_unit_dir_make("engine");
}

/* The run's answer to "interrupted?": yes from 200 ms after t0 on. */
static bool interrupted_after_200ms(void *arg)
{
	return ul_now_ns() - *(const ul_nsec *)arg >= 200 * UL_NS_PER_MS;
}

/* A write waiting for a store another connection has locked ends as soon
 * as the store's user says the run is interrupted, not after the wait. */
START_TEST(test_locked_store_wait_interrupted)
{
	struct ul_store_config cfg = { .busy_wait_ms = 20000 };
	struct ul_store *st = NULL;
	struct ul_run run;
	char path[128], err[512];
	sqlite3 *other;
	ul_nsec t0;
	int64_t waited_ms;

	ul_unit_path(path, sizeof(path), "locked.db");
	ck_assert_msg(ul_store_open_cfg(path, &cfg, &st, err, sizeof(err)) == 0, "%s", err);
	ck_assert_int_eq(sqlite3_open(path, &other), SQLITE_OK);
	ck_assert_int_eq(sqlite3_exec(other, "BEGIN IMMEDIATE;", NULL, NULL, NULL), SQLITE_OK);
	ul_run_init(&run);
	ck_assert_int_eq(ul_run_new_uuid(&run), 0);
	snprintf(run.label, sizeof(run.label), "locked");
	t0 = ul_now_ns();
	st->interrupted = interrupted_after_200ms;
	st->interrupted_arg = &t0;
	ck_assert_int_eq(st->ops->begin_run(st, &run), -EBUSY);
	waited_ms = (int64_t)(ul_now_ns() - t0) / UL_NS_PER_MS;
	ck_assert_int_ge(waited_ms, 190);
	ck_assert_msg(waited_ms < 2000, "waited %lld ms", (long long)waited_ms);
	ck_assert_int_eq(sqlite3_exec(other, "ROLLBACK", NULL, NULL, NULL), SQLITE_OK);
	sqlite3_close(other);
	ul_store_close(st);
	ul_run_release(&run);
}
END_TEST

Suite *ul_test_suite_engine(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");
	TCase *store = tcase_create("store");

	tcase_add_test(tc, test_mem_ceiling_unread_meminfo);
	tcase_add_test(tc, test_half_made_cell_taken_back);
	tcase_add_test(tc, test_kept_cells_one_try_per_commit);
	suite_add_tcase(s, tc);
	tcase_add_checked_fixture(store, dir_make, ul_unit_dir_remove);
	tcase_add_test(store, test_locked_store_wait_interrupted);
	suite_add_tcase(s, store);
	return s;
}
