/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/compat.h"
#include "report/compare_parts.h"
#include "core/escape.h"
#include "report/quantity.h"
#include "stats/runcmp_parts.h"

#include <math.h>
#include <stdio.h>

/* A shift with its sign and unit: "+35.20 ms", "-2.000 ms". */
static const char *signed_quantity(char *buf, size_t len, double v, const char *unit)
{
	buf[0] = v >= 0 ? '+' : '-';
	ul_fmt_quantity(buf + 1, len - 1, fabs(v), unit);
	return buf;
}

void ul_report_compare_parts_note(char *buf, size_t len, const struct ul_runcmp *c,
				  const struct ul_runcmp_row *r)
{
	enum ul_breakdown_part carriers[UL_PART_COUNT];
	size_t n = c->parts ? ul_runcmp_parts_carriers(c->parts, r, carriers) : 0;
	const char *unit = r->metric->unit;
	size_t used;
	char q[40];

	buf[0] = '\0';
	if (!n)
		return;
	used = (size_t)snprintf(buf, len, "%s %s:", ul_cmp_verdict_name(r->res.verdict),
				signed_quantity(q, sizeof(q), r->res.shift, unit));
	for (size_t i = 0; i < n && used < len; i++) {
		const struct ul_runcmp_row *pr = ul_runcmp_parts_row(c->parts, r, carriers[i]);
		double share = ul_runcmp_parts_share(r, pr);

		used += (size_t)snprintf(buf + used, len - used, "%s %s %s", i ? "," : "",
					 ul_breakdown_parts[carriers[i]].label,
					 signed_quantity(q, sizeof(q), pr->res.shift, unit));
		if (share >= UL_PARTS_SHOW_SHARE && used < len)
			used += (size_t)snprintf(buf + used, len - used, " (%.0f%%)", share * 100);
	}
}

static const char *const csv_suffix[] = { "shift", "p", "verdict", "share" };

void ul_report_compare_parts_csv_head(FILE *out)
{
	for (int p = 0; p < UL_PART_COUNT; p++)
		for (size_t k = 0; k < UL_ARRAY_SIZE(csv_suffix); k++) {
			char name[64];

			snprintf(name, sizeof(name), "%s_%s", ul_breakdown_parts[p].series,
				 csv_suffix[k]);
			ul_csv_field(out, name, SIZE_MAX,
				     p + 1 == UL_PART_COUNT && k + 1 == UL_ARRAY_SIZE(csv_suffix));
		}
}

static const char *csv_num(char *buf, size_t len, double v)
{
	if (isfinite(v))
		snprintf(buf, len, "%.17g", v);
	else
		buf[0] = '\0';
	return buf;
}

void ul_report_compare_parts_csv_row(FILE *out, const struct ul_runcmp *c,
				     const struct ul_runcmp_row *r)
{
	for (int p = 0; p < UL_PART_COUNT; p++) {
		const struct ul_runcmp_row *pr =
			c->parts ? ul_runcmp_parts_row(c->parts, r, (enum ul_breakdown_part)p)
				 : NULL;
		bool t = pr && pr->tested;
		char shift[40], pv[40], share[40];

		ul_csv_field(out, csv_num(shift, sizeof(shift), t ? pr->res.shift : NAN), SIZE_MAX,
			     false);
		ul_csv_field(out, csv_num(pv, sizeof(pv), t ? pr->res.p : NAN), SIZE_MAX, false);
		ul_csv_field(out, t ? ul_cmp_verdict_name(pr->res.verdict) : "", SIZE_MAX, false);
		ul_csv_field(out,
			     csv_num(share, sizeof(share), t ? ul_runcmp_parts_share(r, pr) : NAN),
			     SIZE_MAX, p + 1 == UL_PART_COUNT);
	}
}
