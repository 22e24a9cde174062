/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The suite registry, expanded from suites.def. */
#include "core/compat.h"
#include "engine/engine.h"

#include <string.h>

#define UL_SUITE(file, ident) extern const struct ul_suite ul_suite_##ident;
#include "engine/suites.def"
#undef UL_SUITE

static const struct ul_suite *const suites[] = {
#define UL_SUITE(file, ident) &ul_suite_##ident,
#include "engine/suites.def"
#undef UL_SUITE
	NULL,
};

size_t ul_suite_count(void)
{
	return UL_ARRAY_SIZE(suites) - 1;
}

const struct ul_suite *ul_suite_at(size_t i)
{
	return i < ul_suite_count() ? suites[i] : NULL;
}

const struct ul_suite *ul_suite_find(const char *name)
{
	for (size_t i = 0; i < ul_suite_count(); i++)
		if (!strcmp(suites[i]->name, name))
			return suites[i];
	return NULL;
}

bool ul_suite_has_test(const struct ul_suite *suite, const char *name)
{
	for (size_t i = 0; suite->default_tests[i]; i++)
		if (!strcmp(suite->default_tests[i], name))
			return true;
	return false;
}

size_t ul_suite_tests(const struct ul_suite *suite, const struct ul_engine_config *cfg,
		      const char *tests[UL_MAX_TESTS])
{
	size_t n = 0;

	if (cfg->n_tests) {
		for (size_t i = 0; i < cfg->n_tests; i++)
			if (ul_suite_has_test(suite, cfg->tests[i]))
				tests[n++] = cfg->tests[i];
		return n;
	}
	for (size_t i = 0; suite->default_tests[i] && n < UL_MAX_TESTS; i++)
		tests[n++] = suite->default_tests[i];
	return n;
}
