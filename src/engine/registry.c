/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Which of a suite's tests a run asks for (the registry itself: model/suite.c). */
#include "core/compat.h"
#include "engine/engine.h"
#include "load/load.h"

#include <string.h>

bool ul_suite_accepts_test(const struct ul_suite *suite, const char *name)
{
	return ul_suite_has_test(suite, name) || (suite->tests_any_load && ul_load_find(name));
}

size_t ul_suite_tests(const struct ul_suite *suite, const struct ul_engine_config *cfg,
		      const char *tests[UL_MAX_TESTS])
{
	size_t n = 0;

	if (cfg->n_tests) {
		for (size_t i = 0; i < cfg->n_tests; i++)
			if (ul_suite_accepts_test(suite, cfg->tests[i]))
				tests[n++] = cfg->tests[i];
		return n;
	}
	for (size_t i = 0; suite->tests[i].load && n < UL_MAX_TESTS; i++)
		tests[n++] = ul_suite_test_name(&suite->tests[i]);
	return n;
}
