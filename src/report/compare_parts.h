/* SPDX-License-Identifier: GPL-2.0-or-later */
/* compare's explanation of a change by the breakdown's parts (stats/runcmp_parts.h), as text. */
#ifndef UL_REPORT_COMPARE_PARTS_H
#define UL_REPORT_COMPARE_PARTS_H

#include "core/compat.h"
#include "stats/runcmp.h"

#include <stdio.h>

/* Least share of the change shown as "(N%)" beside a part. */
#define UL_PARTS_SHOW_SHARE 0.10

/*
 * "slower +38.10 ms: run queue +35.20 ms (92%), on-CPU +2.000 ms": the
 * row's verdict and shift, then the parts that carry it
 * (ul_runcmp_parts_carriers), each with its shift and, from
 * UL_PARTS_SHOW_SHARE up, its share of the row's shift.  Empty when the
 * comparison has no parts (c->parts NULL) or none carries the row's change.
 */
void ul_report_compare_parts_note(char *buf, size_t len, const struct ul_runcmp *c,
				  const struct ul_runcmp_row *r);

/*
 * compare's CSV columns of the parts, after the others: for each part
 * SERIES of the registry, SERIES_shift, SERIES_p, SERIES_verdict and
 * SERIES_share (of the row's shift), empty where the row has no such part
 * row or it was not tested; each call ends the line.
 */
void ul_report_compare_parts_csv_head(FILE *out);
void ul_report_compare_parts_csv_row(FILE *out, const struct ul_runcmp *c,
				     const struct ul_runcmp_row *r);

#endif
