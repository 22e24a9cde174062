/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The engine's own paths under faults: the memory ceiling when
 * /proc/meminfo cannot be read (engine_run.c).
 */
#include "unit.h"
#include "core/sysinfo.h"
#include "engine/engine.h"

#include <stdint.h>
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

Suite *ul_test_suite_engine(void)
{
	Suite *s = suite_create("engine");
	TCase *tc = tcase_create("engine");

	tcase_add_test(tc, test_mem_ceiling_unread_meminfo);
	suite_add_tcase(s, tc);
	return s;
}
