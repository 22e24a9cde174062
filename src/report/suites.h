/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What report shows of each suite beyond the generic tables and plots:
 * the table report/suites.def, keyed by the suite's name, so generic code
 * (the text format, the page) never compares suite names.  The hooks of a
 * suite are expanded where they are called (text.c, html/suite.c); its
 * flags are read here.
 */
#ifndef UL_REPORT_SUITES_H
#define UL_REPORT_SUITES_H

#include "core/compat.h"

enum ul_report_suite_flag {
	/* The page draws no time-order scatter of its samples: its probe
	 * plots them itself (the deadline periods). */
	UL_RS_NO_SCATTER = 1u << 0,
	/* The suite prints the deadline probe in its own block, so the
	 * per-cell monitor lines leave it out. */
	UL_RS_OWN_DEADLINE = 1u << 1,
};

/* The flags of suite `name` (0 for a suite without a line). */
unsigned ul_report_suite_flags(const char *name);

#endif
