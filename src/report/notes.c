/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Notes under a suite's table, and what became of a label's runs (see
 * notes.h).
 */
#include "report/notes.h"
#include "report/common.h"

#include <stdio.h>
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

void ul_report_runs_outcome(const struct ul_run *const *runs, size_t n, char *out, size_t len)
{
	size_t crashed = 0, boots = 0, emulated = 0;

	for (size_t i = 0; i < n; i++) {
		crashed += runs[i]->status == UL_RUN_CRASHED;
		boots += ul_run_in_vm(runs[i]);
		emulated += ul_run_emulated(runs[i]);
	}
	out[0] = '\0';
	if (n && boots == n)
		snprintf(out, len, "%zu boot%s, %zu crashed%s", n, n == 1 ? "" : "s", crashed,
			 emulated ? ", emulated (TCG)" : "");
	else if (crashed)
		snprintf(out, len, "%zu of %zu crashed", crashed, n);
}
