/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Lines the formats print under a suite's table about cells whose numbers
 * are suspect for a reason the table cannot show (CPU used outside the run).
 */
#ifndef UL_REPORT_NOTES_H
#define UL_REPORT_NOTES_H

#include "core/compat.h"
#include "model/model.h"

#include <stdio.h>

/*
 * For the cells of `suite` flagged disturbed: first, when the suite's noload
 * baseline is one of them, a "warning: the noload baseline was disturbed
 * ..." line (every ratio divides by it); then one "disturbed: LOAD (N% of a
 * CPU used outside the run)" line per flagged cell; then one "no-pressure:
 * LOAD: NOTE" line per memory load that paged nothing (the note says why and
 * what to run instead).  Lines never begin with
 * a space, so a seed table extracted with grep '^ ' stays as it was.
 * Prints nothing when no cell is flagged.
 */
void ul_report_disturbed_notes(FILE *out, const struct ul_run *run, const char *suite);
/* Only the baseline warning line (for formats that mark cells themselves). */
void ul_report_baseline_warning(FILE *out, const struct ul_run *run, const char *suite);

/*
 * What became of a label's runs, for its line in a comparison's or a
 * report's head, into out: runs made by `underload vm` count as boots,
 * "2 boots, 1 crashed" (", emulated (TCG)" when any ran under TCG); other
 * runs "1 of 3 crashed" when any crashed; else "".
 */
void ul_report_runs_outcome(const struct ul_run *const *runs, size_t n, char *out, size_t len);

#endif
