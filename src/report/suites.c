/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The flags column of report/suites.def, by the suite's name. */
#include "core/compat.h"
#include "report/suites.h"

#include <string.h>

static const struct {
	const char *name;
	unsigned flags;
} report_suites[] = {
#define UL_REPORT_SUITE(suite, text_group, text_cell, html_intro, html_test, fl) { #suite, fl },
#include "report/suites.def"
#undef UL_REPORT_SUITE
};

unsigned ul_report_suite_flags(const char *name)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(report_suites); i++)
		if (!strcmp(report_suites[i].name, name))
			return report_suites[i].flags;
	return 0;
}
