/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Declarative option tables: defaults, lookup, strict parsing, rendering. */
#include "core/compat.h"
#include "core/opt.h"
#include "core/parse.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

size_t ul_opt_count(const struct ul_opt *opts)
{
	size_t n = 0;

	while (opts && opts[n].name)
		n++;
	return n;
}

void ul_opt_defaults(const struct ul_opt *opts, int64_t values[UL_OPT_MAX])
{
	size_t n = ul_opt_count(opts);

	memset(values, 0, sizeof(int64_t) * UL_OPT_MAX);
	for (size_t i = 0; i < n && i < UL_OPT_MAX; i++)
		values[i] = opts[i].def;
}

int ul_opt_index(const struct ul_opt *opts, const char *name)
{
	for (size_t i = 0; opts && opts[i].name; i++)
		if (!strcmp(opts[i].name, name))
			return (int)i;
	return -1;
}

const char *ul_opt_type_name(enum ul_opt_type type)
{
	switch (type) {
	case UL_OPT_COUNT:
		return "count";
	case UL_OPT_SIZE:
		return "size";
	case UL_OPT_DURATION:
		return "duration";
	case UL_OPT_PCT:
		return "percent";
	case UL_OPT_BOOL:
		return "bool";
	case UL_OPT_STRING:
		return "string";
	case UL_OPT_DIR:
		return "dir";
	case UL_OPT_FLAG:
		return "flag";
	case UL_OPT_CALL:
		return "text";
	case UL_OPT_CHOICE:
		return "choice";
	}
	return "?";
}

void ul_opt_fmt(const struct ul_opt *opt, int64_t value, char *buf, size_t len)
{
	switch (opt->type) {
	case UL_OPT_SIZE:
		ul_fmt_size(buf, len, (uint64_t)value);
		break;
	case UL_OPT_DURATION:
		ul_fmt_duration(buf, len, value);
		break;
	case UL_OPT_PCT:
		if (value % 100)
			snprintf(buf, len, "%lld.%02lld%%", (long long)(value / 100),
				 (long long)(value % 100));
		else
			snprintf(buf, len, "%lld%%", (long long)(value / 100));
		break;
	case UL_OPT_BOOL:
		snprintf(buf, len, "%s", value ? "yes" : "no");
		break;
	case UL_OPT_COUNT:
	default:
		snprintf(buf, len, "%lld", (long long)value);
		break;
	}
}

/* The noun of a range in messages: "a duration from 0s to 1h". */
static const char *range_noun(enum ul_opt_type type)
{
	return type == UL_OPT_PCT ? "percentage" : ul_opt_type_name(type);
}

static int parse_typed(const struct ul_opt *o, const char *text, int64_t *out)
{
	uint64_t size;
	int rc = -EINVAL;

	switch (o->type) {
	case UL_OPT_SIZE:
		rc = ul_parse_size(text, (uint64_t)o->min, (uint64_t)o->max, &size);
		if (!rc)
			*out = (int64_t)size;
		return rc;
	case UL_OPT_DURATION:
		return ul_parse_duration_ns(text, o->min, o->max, out);
	case UL_OPT_PCT:
		return ul_parse_pct(text, o->min, o->max, out);
	case UL_OPT_BOOL:
		if (!strcmp(text, "yes") || !strcmp(text, "1") || !strcmp(text, "true"))
			*out = 1;
		else if (!strcmp(text, "no") || !strcmp(text, "0") || !strcmp(text, "false"))
			*out = 0;
		else
			return -EINVAL;
		return 0;
	case UL_OPT_COUNT:
		return ul_parse_count(text, o->min, o->max, out);
	default:
		return rc;
	}
}

int ul_opt_parse_value(const struct ul_opt *o, const char *what, const char *text, int64_t *out,
		       char *err, size_t errlen)
{
	char lo[32], hi[32], accepted[160];
	int rc = parse_typed(o, text, out);

	/* "0 means off" options: 0 in any spelling the type accepts. */
	if (rc && (o->flags & UL_OPTF_ZERO_OFF)) {
		struct ul_opt wide = *o;

		wide.min = 0;
		if (!parse_typed(&wide, text, out) && *out == 0)
			return 0;
	}
	if (!rc)
		return 0;
	if (o->type == UL_OPT_BOOL) {
		snprintf(err, errlen, "invalid value '%s' for %s: expected yes or no", text, what);
		return rc;
	}
	ul_opt_fmt(o, o->min, lo, sizeof(lo));
	ul_opt_fmt(o, o->max, hi, sizeof(hi));
	if (o->accepted)
		snprintf(accepted, sizeof(accepted), "%s", o->accepted);
	else
		snprintf(accepted, sizeof(accepted), "%sa %s from %s to %s",
			 o->flags & UL_OPTF_ZERO_OFF ? "0 (off) or " : "", range_noun(o->type), lo,
			 hi);
	snprintf(err, errlen, "%s value '%s' for %s: expected %s",
		 rc == -ERANGE ? "out-of-range" : "invalid", text, what, accepted);
	return rc;
}

int ul_opt_set(const struct ul_opt *opts, int64_t values[UL_OPT_MAX], const char *name,
	       const char *text, char *err, size_t errlen)
{
	int i = ul_opt_index(opts, name);
	char what[80];

	if (i < 0) {
		snprintf(err, errlen, "unknown option '%s'", name);
		return -ENOENT;
	}
	snprintf(what, sizeof(what), "'%s'", name);
	return ul_opt_parse_value(&opts[i], what, text, &values[i], err, errlen);
}
