/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest suite's tables, shared by the formats that show contest
 * cells: the seed's block layout (format "contest") and the native table.
 */
#ifndef UL_REPORT_CONTEST_H
#define UL_REPORT_CONTEST_H

#include "core/compat.h"
#include "model/model.h"
#include "report/format.h"

#include <stdio.h>

/* True for the contest suite's job cells (suite "contest", probe "job"):
 * other cells, of any shape, are left to the generic tables. */
bool ul_report_is_contest(const struct ul_cell *cell);

/*
 * The native table of a run's contest cells (for the "text" format): per
 * load, the valid jobs' n, Time mean, S.D., min, max and the 95% CI of
 * the mean (Student's t), CPU%, Loads, the raw units, LCPU% and the ratio
 * to the run's noload mean; then the invalid jobs with their reasons, and what the monitors
 * recorded per job.  Prints nothing when the run has no contest cell.  0 or a negative errno.
 */
int ul_report_contest_text(FILE *out, const struct ul_run *run);

#endif
