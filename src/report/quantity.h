/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Numbers people read: a measured value in its series' unit, scaled to a
 * prefix and printed with 4 significant digits (1.000 ms ... 999.9 ms).
 *   ns, ps  -> ns, µs, ms or s (ps below 1 ns)
 *   B/s     -> MB/s, decimal (10^6 bytes per second, as LMbench and dbench)
 *   others  -> as recorded, "%.4g UNIT" (counts stay counts)
 * Used by compare's table and the native text format; the seed layouts
 * (resp1, contest, lmbench2, dbench, mtest) keep their own fixed formats.
 */
#ifndef UL_REPORT_QUANTITY_H
#define UL_REPORT_QUANTITY_H

#include <stddef.h>
#include <stdio.h>

/* The unit a stored series is recorded in, from its name's suffix:
 * "ns" (_ns), "ps" (_ps), "B/s" (_bps, _bytes_s); NULL for anything else. */
const char *ul_series_unit(const char *series);

/*
 * Writes `v` (recorded in `unit`, which may be NULL) to buf as
 * "485.4 ns", "1.000 µs", "59.99 s", "1038 MB/s", "-2.500 ms" or, for a
 * unit without prefixes, "%.4g UNIT".  0 is "0 ns"; NaN and infinities
 * are "-".  The prefix is chosen after rounding to 4 significant digits,
 * so 999.96 ns reads "1.000 µs", never "1000 ns".  Returns buf.
 */
char *ul_fmt_quantity(char *buf, size_t len, double v, const char *unit);

/* How ul_fmt_quantity shows values of `unit`, for a table's title:
 * "ns, µs, ms or s", "MB/s (10^6 bytes/s)", or `unit` itself (NULL:
 * "as recorded"). */
const char *ul_fmt_unit_note(const char *unit);

/* The printf field width that pads `s` to `width` columns: µs is two
 * bytes but one column (UTF-8 continuation bytes take no column). */
int ul_fmt_width(const char *s, int width);

/* The columns `s` takes on a terminal (its UTF-8 code points). */
size_t ul_fmt_columns(const char *s);

/* A number as one CSV field (ul_csv_field): every digit that round-trips
 * (%.17g), empty when not finite. */
void ul_csv_num(FILE *out, double v, bool last);

#endif
