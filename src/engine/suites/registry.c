/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The suite registry, expanded from suites.def (one folder a line), and
 * which of a suite's tests a run asks for.  The program installs the list
 * at start (ul_suites_install() in model/suite.h), where the lookups by
 * name live, so report/ and stats/ read a suite's data (its tests' order,
 * its metrics) without depending on the engine.
 */
#include "core/compat.h"
#include "engine/engine.h"
#include "load/load.h"

#include <string.h>

#define UL_SUITE(file, ident) extern const struct ul_suite ul_suite_##ident;
#include "engine/suites/suites.def"
#undef UL_SUITE

const struct ul_suite *const ul_engine_suites[] = {
#define UL_SUITE(file, ident) &ul_suite_##ident,
#include "engine/suites/suites.def"
#undef UL_SUITE
	NULL,
};
/* Each suite has its slot in the UL_MAX_SUITES arrays (engine.h, cmd/run.h). */
_Static_assert(UL_ARRAY_SIZE(ul_engine_suites) - 1 <= UL_MAX_SUITES,
	       "suites.def lists more suites than UL_MAX_SUITES");

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
