/* SPDX-License-Identifier: GPL-2.0-or-later */
#include "core/compat.h"
#include "report/compare_parts.h"
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
