/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The suites' report blocks, read from their descriptors (report/suites.h). */
#include "core/compat.h"
#include "model/suite.h"
#include "report/common.h"
#include "report/suites.h"

#include <string.h>

const struct ul_suite_report *ul_report_suite(const char *name)
{
	static const struct ul_suite_report none = { 0 };
	const struct ul_suite *suite = ul_suite_find(name);

	return suite && suite->report ? suite->report : &none;
}

unsigned ul_report_suite_flags(const char *name)
{
	return ul_report_suite(name)->flags;
}

bool ul_report_run_has_flag(const struct ul_run *run, unsigned flags)
{
	for (size_t i = 0; i < ul_suite_count(); i++) {
		const struct ul_suite *suite = ul_suite_at(i);

		if (suite->report && (suite->report->flags & flags) == flags &&
		    ul_report_run_has_suite(run, suite->name))
			return true;
	}
	return false;
}

static bool lists_format(const struct ul_suite *suite, const char *format)
{
	if ((suite->format && !strcmp(suite->format, format)) ||
	    (suite->compare_format && !strcmp(suite->compare_format, format)))
		return true;
	for (const char *const *f = suite->report ? suite->report->formats : NULL; f && *f; f++)
		if (!strcmp(*f, format))
			return true;
	return false;
}

const char *ul_report_format_suite(const char *format)
{
	for (size_t i = 0; i < ul_suite_count(); i++)
		if (lists_format(ul_suite_at(i), format))
			return ul_suite_at(i)->name;
	return "";
}
