/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Declarative options for loads and probes.  A table of struct ul_opt
 * describes each option once (type, range, default, help); from it come
 * parsing of `-o ITEM.NAME=VALUE`, `list loads -v` and the echo of effective
 * settings into results.  Values live in an int64_t array in table order:
 * sizes in bytes, durations in ns, percentages in hundredths, bools 0/1.
 */
#ifndef UL_OPT_H
#define UL_OPT_H

#include "core/compat.h"

#define UL_OPT_MAX 8 /* most options any one load or probe may declare */

enum ul_opt_type {
	UL_OPT_COUNT,	 /* plain integer */
	UL_OPT_SIZE,	 /* bytes, "64M" */
	UL_OPT_DURATION, /* ns, "250ms" */
	UL_OPT_PCT,	 /* hundredths of a percent, "90%" */
	UL_OPT_BOOL,	 /* 0 or 1: "yes"/"no"/"1"/"0" */
};

struct ul_opt {
	const char *name; /* kebab-case, unique within its table */
	enum ul_opt_type type;
	int64_t min, max, def; /* def may be 0 meaning "auto" when help says so */
	const char *help;      /* one line, says what 0/auto means if allowed */
};

/* Number of entries in a table ending with a NULL name. */
size_t ul_opt_count(const struct ul_opt *opts);
void ul_opt_defaults(const struct ul_opt *opts, int64_t values[UL_OPT_MAX]);
/* Index of `name` in the table, or -1. */
int ul_opt_index(const struct ul_opt *opts, const char *name);
/*
 * Parse `text` for option `name` into values[].  Returns 0, -ENOENT for an
 * unknown name, -EINVAL malformed, -ERANGE out of range; on error `err`
 * holds a message naming the accepted range (no "error:" prefix).
 */
int ul_opt_set(const struct ul_opt *opts, int64_t values[UL_OPT_MAX], const char *name,
	       const char *text, char *err, size_t errlen);
/* Render a value of the option's type ("64M", "20s", "90%", "yes", "8"). */
void ul_opt_fmt(const struct ul_opt *opt, int64_t value, char *buf, size_t len);
const char *ul_opt_type_name(enum ul_opt_type type);

#endif
