/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The report's environment section: one column per run, one row per fact
 * (kernel, limits, swap, CPU, tool version, suite parameters, command
 * line, then each check of the doctor at the run's start); rows whose
 * values differ between runs are highlighted, since they may explain, or
 * invalidate, a difference in the results.
 */
#include "core/compat.h"
#include "doctor/doctor.h"
#include "report/common.h"
#include "report/html/sections.h"

#include <inttypes.h>
#include <string.h>

enum {
	ENV_LEN = 1100
};

/* Fills buf with the fact `row` of a run; returns the row's title, NULL past the last. */
static const char *env_fact(const struct ul_run *r, int row, char *buf, size_t len)
{
	const struct ul_run_params *p = &r->params;
	const struct ul_host *h = &r->host;

	buf[0] = '\0';
	switch (row) {
	case 0:
		snprintf(buf, len, "%s", r->label);
		return "label";
	case 1:
		snprintf(buf, len, "%" PRId64 " (%.8s)", r->id, r->uuid);
		return "run";
	case 2:
		ul_report_iso8601(buf, len, r->started_wall_ns);
		return "started (UTC)";
	case 3:
		snprintf(buf, len, "%s", ul_run_status_name(r->status));
		return "status";
	case 4:
		snprintf(buf, len, "%s", h->hostname);
		return "host";
	case 5:
		snprintf(buf, len, "%s", h->kernel_release);
		return "kernel release";
	case 6:
		snprintf(buf, len, "%s", h->kernel_version);
		return "kernel version";
	case 7:
		snprintf(buf, len, "%s", h->arch);
		return "architecture";
	case 8:
		snprintf(buf, len, "%d \xc3\x97 %s", h->ncpu, h->cpu_model);
		return "CPUs";
	case 9:
		snprintf(buf, len, "%" PRIu64 " MiB", h->mem_total_bytes >> 20);
		return "MemTotal";
	case 10:
		snprintf(buf, len, "%" PRIu64 " MiB", h->swap_total_bytes >> 20);
		return "SwapTotal";
	case 11:
		snprintf(buf, len, "%" PRIu64 " MiB", p->mem_budget_bytes >> 20);
		return "memory budget";
	case 12:
		if (p->mem_limit_bytes)
			snprintf(buf, len, "%" PRIu64 " MiB", p->mem_limit_bytes >> 20);
		else
			snprintf(buf, len, "none");
		return "--mem-limit";
	case 13:
		if (p->swap_bytes)
			snprintf(buf, len, "%" PRIu64 " MiB", p->swap_bytes >> 20);
		else
			snprintf(buf, len, "none");
		return "--swap";
	case 14:
		snprintf(buf, len, "%s", r->tool_version);
		return "tool version";
	case 15:
		snprintf(buf, len, "%s", r->suites);
		return "suites";
	case 16:
		snprintf(buf, len, "%.3f s, %d..%d points, CI target %.2f%%",
			 (double)p->interval_ns / 1e9, p->min_points, p->max_points,
			 (double)p->ci_target_centi / 100);
		return "sampling";
	case 17:
		snprintf(buf, len, "%s", r->argv);
		return "command line";
	default:
		return NULL;
	}
}

/* Rows that identify a run always differ: they are not highlighted. */
static bool env_identity(int row)
{
	return row <= 2;
}

/* The run's finding of doctor check `check`, or why there is none. */
static const char *doctor_fact(const struct ul_run *r, const char *check)
{
	const json_t *d = ul_doctor_stored(r->fingerprint);
	const char *text = json_string_value(json_object_get(d, check));

	return text ? text : d ? "not checked" : "not recorded";
}

/* One row a doctor check, its text per run; a warning or blocker in any run
 * highlights it.  None when no run recorded findings (stored before them). */
static void doctor_rows(struct ul_hdoc *d)
{
	FILE *o = d->html;
	bool any = false;

	for (size_t i = 0; i < d->n_runs; i++)
		any |= ul_doctor_stored(d->runs[i]->fingerprint) != NULL;
	for (size_t c = 0; any && c < ul_doctor_check_count(); c++) {
		const char *check = ul_doctor_check_at(c)->name;
		bool flagged = false;

		for (size_t i = 0; i < d->n_runs; i++)
			flagged |= ul_doctor_text_severity(doctor_fact(d->runs[i], check)) !=
				   UL_DOCTOR_INFO;
		fprintf(o, "<tr%s><th>doctor: %s</th>", flagged ? " class=\"warn\"" : "", check);
		for (size_t i = 0; i < d->n_runs; i++) {
			fputs("<td>", o);
			ul_svg_escape(o, doctor_fact(d->runs[i], check), SIZE_MAX);
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
}

void ul_html_environment(struct ul_hdoc *d)
{
	char a[ENV_LEN], b[ENV_LEN];
	const char *title;
	FILE *o = d->html;

	if (!o || d->err)
		return;
	ul_hdoc_heading(d, 2, "environment", "Environment");
	if (d->n_runs > 1)
		fputs("<p class=\"note\">Highlighted rows (\xe2\x89\xa0) differ between the runs.</p>\n",
		      o);
	fputs("<table class=\"env\">\n", o);
	for (int row = 0; (title = env_fact(d->runs[0], row, a, sizeof(a))); row++) {
		bool differ = false;

		for (size_t i = 1; i < d->n_runs && !env_identity(row); i++) {
			env_fact(d->runs[i], row, b, sizeof(b));
			differ |= strcmp(a, b) != 0;
		}
		fprintf(o, "<tr%s><th>%s</th>", differ ? " class=\"diff\"" : "", title);
		for (size_t i = 0; i < d->n_runs; i++) {
			env_fact(d->runs[i], row, b, sizeof(b));
			fputs("<td>", o);
			ul_svg_escape(o, b, sizeof(b));
			fputs("</td>", o);
		}
		fputs("</tr>\n", o);
	}
	doctor_rows(d);
	fputs("</table>\n", o);
}
