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
