/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Strict parsing of the numbers users type: sizes ("64M", powers of 1024),
 * durations ("500ms", "2s", "1m"), counts and percentages.  Each function
 * rejects empty input, trailing junk, signs, overflow and values outside
 * [min, max], returning 0 or a negative errno (-EINVAL malformed, -ERANGE
 * out of range).  No printing here: callers name the option in the message.
 */
#ifndef UL_PARSE_H
#define UL_PARSE_H

#include "core/compat.h"

/* "4096", "4k", "64M", "1G", "2T" (case-insensitive, optional "iB"/"B"). */
int ul_parse_size(const char *s, uint64_t min, uint64_t max, uint64_t *out) UL_MUST_CHECK;
/* "250ms", "20s", "2m", "1h", "500us", "100ns"; a bare number means seconds. */
int ul_parse_duration_ns(const char *s, int64_t min, int64_t max, int64_t *out) UL_MUST_CHECK;
/* A plain decimal non-negative integer. */
int ul_parse_count(const char *s, int64_t min, int64_t max, int64_t *out) UL_MUST_CHECK;
/* "5", "5%", "12.5%": hundredths of a percent in *out (12.5% -> 1250). */
int ul_parse_pct(const char *s, int64_t min_centi, int64_t max_centi, int64_t *out) UL_MUST_CHECK;

/* Human renderings for help and messages: "64M", "20s", "250ms". */
void ul_fmt_size(char *buf, size_t len, uint64_t bytes);
void ul_fmt_duration(char *buf, size_t len, int64_t ns);

#endif
