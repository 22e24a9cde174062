/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The installed suite registry, and lookups in a suite's tests and
 * metrics.  The list itself is the engine's (engine/suites/registry.c).
 */
#include "core/compat.h"
#include "core/registry.h"
#include "model/suite.h"
#include "model/model.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct ul_suite *const *installed;
static size_t n_installed; /* counted once, at the install */

void ul_suites_install(const struct ul_suite *const *list)
{
	size_t n = 0;

	while (list[n])
		n++;
	installed = list;
	n_installed = n;
}

/* How many are installed; none is a bug of the program's start (see suite.h). */
static size_t installed_count(void)
{
	if (!installed) {
		fputs("underload: bug: suite lookup before ul_suites_install()\n", stderr);
		abort();
	}
	return n_installed;
}

UL_REGISTRY_LIST_LOOKUPS(struct ul_suite, ul_suite, installed, installed_count())
UL_REGISTRY_NAMES(struct ul_suite, ul_suite)

size_t ul_suite_index(const struct ul_suite *suite)
{
	size_t n = ul_suite_count();

	for (size_t i = 0; i < n; i++)
		if (installed[i] == suite)
			return i;
	return SIZE_MAX; /* not registered: a bug the caller reports */
}

const char *ul_suite_cell_test(const struct ul_cell *cell)
{
	const struct ul_suite *suite = ul_suite_find(cell->suite);

	return suite && suite->tests && suite->tests[0].load && suite->tests[0].name ? cell->probe
										     : cell->load;
}

size_t ul_suite_n_tests(const struct ul_suite *suite)
{
	size_t n = 0;

	while (suite->tests && suite->tests[n].load)
		n++;
	return n;
}

const char *ul_suite_test_name(const struct ul_suite_test *t)
{
	return t->name ? t->name : t->load;
}

/* a[0..alen) equals b, '_' and '-' being the same character. */
static bool same_name(const char *a, size_t alen, const char *b)
{
	size_t i = 0;

	for (; i < alen && b[i]; i++)
		if (a[i] != b[i] && !((a[i] == '_' || a[i] == '-') && (b[i] == '_' || b[i] == '-')))
			return false;
	return i == alen && !b[i];
}

bool ul_suite_test_matches(const struct ul_suite_test *t, const char *name)
{
	const char *g = t->groups;

	if (same_name(ul_suite_test_name(t), strlen(ul_suite_test_name(t)), name))
		return true;
	while (g && *g) {
		size_t len = strcspn(g, ",");

		if (same_name(g, len, name))
			return true;
		g += len + (g[len] == ',');
	}
	return false;
}

int ul_suite_test_index(const struct ul_suite *suite, const char *name)
{
	for (size_t i = 0; suite->tests && suite->tests[i].load; i++)
		if (ul_suite_test_matches(&suite->tests[i], name))
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
