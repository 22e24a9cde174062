/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The suite registry, expanded from engine/suites.def, and lookups in a suite's tests. */
#include "core/compat.h"
#include "model/suite.h"

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

size_t ul_suite_index(const struct ul_suite *suite)
{
	for (size_t i = 0; i < ul_suite_count(); i++)
		if (suites[i] == suite)
			return i;
	return SIZE_MAX; /* not registered: a bug the caller reports */
}

size_t ul_suite_n_tests(const struct ul_suite *suite)
{
	size_t n = 0;

	while (suite->tests && suite->tests[n].load)
		n++;
	return n;
}

int ul_suite_test_index(const struct ul_suite *suite, const char *name)
{
	for (size_t i = 0; suite->tests && suite->tests[i].load; i++)
		if (!strcmp(suite->tests[i].load, name))
			return (int)i;
	return -1;
}

const struct ul_suite_test *ul_suite_test(const struct ul_suite *suite, const char *name)
{
	int i = ul_suite_test_index(suite, name);

	return i < 0 ? NULL : &suite->tests[i];
}

bool ul_suite_has_test(const struct ul_suite *suite, const char *name)
{
	return ul_suite_test_index(suite, name) >= 0;
}

const char *ul_suite_test_probe(const struct ul_suite *suite, const struct ul_suite_test *t)
{
	return t->probe ? t->probe : suite->probe;
}

const struct ul_suite_metric *ul_suite_metric(const struct ul_suite *suite, const char *series)
{
	for (size_t i = 0; suite->metrics && suite->metrics[i].series; i++)
		if (!strcmp(suite->metrics[i].series, series))
			return &suite->metrics[i];
	return NULL;
}
