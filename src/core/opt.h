/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Declarative options: a table of struct ul_opt describes each option once
 * (name, type, range, default, help) and everything else is derived from
 * it.  Two uses share the type:
 *
 *  - load and probe options (`-o ITEM.NAME=VALUE`, `list loads -v`, the
 *    echo of effective settings into results): values live in an int64_t
 *    array in table order: sizes in bytes, durations in ns, percentages in
 *    hundredths, bools 0/1;
 *  - command-line options of commands and suites (core/optparse.c):
 *    getopt_long's table, --help and the man page's OPTIONS sections are
 *    built from the same entries, whose values are stored at an offsetof
 *    target in the caller's struct (UL_OPT_AT) or handed to a callback.
 *
 * How to add an option to a command: one entry in its table (see
 * cmd/run_opts.c or cmd/compare.c), one field in its struct;
 * `tests/cli/t0006-options.sh` then checks --help and the man page
 * (regenerate docs/underload.1's generated sections with docs/update-man).
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
	/* Command-line options only: */
	UL_OPT_STRING, /* const char *, as given; max > 0 bounds its length in bytes */
	UL_OPT_DIR,    /* const char * naming an existing directory (checked at parse) */
	UL_OPT_FLAG,   /* no argument: stores `max` (write 0, 1, 0 for a plain flag) */
	UL_OPT_CALL,   /* `set` parses the argument */
	UL_OPT_CHOICE, /* const char *: one of the '|'-separated words of `arg` ("json|csv") */
};

enum ul_opt_flags {
	UL_OPTF_ZERO_OFF = 1 << 0,   /* 0 is accepted besides min..max (it means "off") */
	UL_OPTF_NO_DEFAULT = 1 << 1, /* --help shows no default (it depends on others) */
	/* How the usage line shows it (the command, not the parser, checks): */
	UL_OPTF_REQUIRED = 1 << 2, /* "--to URI", not "[--to URI]" */
	UL_OPTF_REPEATS = 1 << 3,  /* "[--host H]...": given again, it adds */
};

struct ul_opt {
	const char *name; /* kebab-case, unique within its table (the long option) */
	enum ul_opt_type type;
	int64_t min, max, def; /* def may be 0 meaning "auto" when help says so */
	const char *help;      /* one line, says what 0/auto means if allowed */
	/* --- command-line options only (zero in load and probe tables) --- */
	char short_name;      /* 'o' for -o, 0 = none */
	const char *arg;      /* metavariable in --help: "DURATION"; NULL = none (FLAG) */
	const char *def_str;  /* default value of a STRING or DIR option */
	const char *def_text; /* how --help words the default when def/def_str do not
			       * say it ("uname -r") */
	const char *accepted; /* "a size from 16M to MemTotal": errors when min..max
			       * do not say it (a bound known only at run time) */
	const char *man;      /* troff for the man page after `help`; NULL = none */
	size_t off, size;     /* the target in the caller's struct: UL_OPT_AT() */
	/* UL_OPT_CALL: parse `arg` into the struct at `base` (the option's
	 * UL_OPT_AT target when it has one: zeroed before parsing, so a
	 * repeated option can collect its arguments there); 0, or -EINVAL /
	 * -ERANGE with a message naming the option in err. */
	int (*set)(void *base, const char *arg, char *err, size_t errlen);
	unsigned flags; /* enum ul_opt_flags */
	/* `run`'s own options only: the suites that read it, "resp,deadline";
	 * NULL = every suite.  run refuses it when no selected suite is here.
	 * Declared as UL_OPT_SOME_SUITES: run fills it from the suites that
	 * list the option in their descriptor's run_opts (model/suite.h). */
	const char *used_by;
	/* With used_by: another option of `run` that, when given, makes every
	 * suite read this one too (--deadline-rt with --deadline). */
	const char *used_with;
	/* A command with several usage lines (bisect --kernel or --git): the
	 * lines this option is on, a bit set of UL_OPT_FORM(k); 0 = on every
	 * line.  With UL_OPTF_REQUIRED it is required on those lines. */
	unsigned form;
};

/* Usage line k (from 0) of a command whose options set `form`. */
#define UL_OPT_FORM(k) (1u << (k))

/* used_by as declared: the suites that list the option say so. */
#define UL_OPT_SOME_SUITES ""

/* The target of a command-line option: a member of `type`. */
#define UL_OPT_AT(type, member) .off = offsetof(type, member), .size = sizeof(((type *)0)->member)

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
/*
 * Parse `text` as a value of o's type and range (COUNT, SIZE, DURATION,
 * PCT, BOOL) into *out.  0, -EINVAL or -ERANGE; `what` names the option in
 * the message left in err ("--interval" or "'files'").
 */
int ul_opt_parse_value(const struct ul_opt *o, const char *what, const char *text, int64_t *out,
		       char *err, size_t errlen);

#endif
