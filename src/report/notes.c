/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Notes under a suite's table (see notes.h).
 */
#include "report/notes.h"
#include "report/common.h"

#include <string.h>

static double foreign_pct(const struct ul_cell *c)
{
	double v;

	return ul_cell_metric(c, "foreign_cpu_pct", &v) ? v : 0.0;
}

void ul_report_baseline_warning(FILE *out, const struct ul_run *run, const char *suite)
{
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (strcmp(c->suite, suite) || strcmp(c->load, "noload") ||
		    !(c->flags & UL_CELL_DISTURBED))
			continue;
		fprintf(out,
			"warning: the noload baseline was disturbed: %.1f%% of a CPU was used "
			"outside the run while it was measured; every ratio divides by it\n",
			foreign_pct(c));
		return;
	}
}

void ul_report_disturbed_notes(FILE *out, const struct ul_run *run, const char *suite)
{
	ul_report_baseline_warning(out, run, suite);
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (strcmp(c->suite, suite) || !(c->flags & UL_CELL_DISTURBED))
			continue;
		fputs("disturbed: ", out);
		ul_report_put_clean(out, c->load, sizeof(c->load));
		fprintf(out, " (%.1f%% of a CPU used outside the run)\n", foreign_pct(c));
	}
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];

		if (strcmp(c->suite, suite) || !(c->flags & UL_CELL_NO_PRESSURE))
			continue;
		fputs("no-pressure: ", out);
		ul_report_put_clean(out, c->load, sizeof(c->load));
		fputs(": ", out);
		ul_report_put_clean(out, c->note, sizeof(c->note));
		fputc('\n', out);
	}
}
