/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's own paths under faults: the memory ceiling when
 * /proc/meminfo cannot be read (engine_run.c); a cell that cannot be made
 * whole for want of memory is taken back (engine.c).
 */
#include "unit.h"
#include "core/sysinfo.h"
#include "engine/engine.h"
#include "load/load.h"

#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
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

Suite *ul_test_suite_engine(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_mem_ceiling_unread_meminfo);
	tcase_add_test(tc, test_half_made_cell_taken_back);
	suite_add_tcase(s, tc);
	return s;
}
