/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Command-line options from ul_opt tables: getopt_long's table, strict
 * parsing into the caller's structs, --help and the man page's OPTIONS
 * sections, all derived from one description.  A command parses its own
 * table plus, for `run`, one group per suite (shown under its heading).
 * Nothing here prints except the help and man renderers, to the FILE given.
 */
#ifndef UL_OPTPARSE_H
#define UL_OPTPARSE_H

#include "core/compat.h"
#include "core/opt.h"

#include <stdio.h>

#define UL_OPT_GROUP_MAX 64 /* options in one table: `given` is a bit set */
#define UL_OPT_GROUPS_MAX 16

/* One table and the struct its UL_OPT_AT offsets point into. */
struct ul_opt_group {
	const char *heading;	   /* NULL: the command's own; else "contest suite" */
	const char *intro;	   /* words after the heading in --help, may be NULL */
	const struct ul_opt *opts; /* NULL-name terminated */
	void *base;		   /* where values are stored */
	uint64_t given;		   /* out: bit i set when opts[i] was on the command line */
};

/* Store every default of `opts` into `base` (def, or def_str for strings). */
void ul_opt_apply_defaults(const struct ul_opt *opts, void *base);

/* Outcome of ul_opt_parse_argv() besides 0. */
#define UL_OPT_PARSE_HELP 1 /* -h/--help was given: print the help, exit 0 */

/*
 * Parse argv[1..] against the groups with getopt_long (-h/--help are
 * implicit; a long name must be unique across groups).  Defaults are NOT
 * applied here (ul_opt_apply_defaults first).  On return *operands is the
 * index of the first operand.  Returns 0, UL_OPT_PARSE_HELP, or -EINVAL /
 * -ERANGE with one line in err naming the option and the accepted values.
 */
int ul_opt_parse_argv(struct ul_opt_group *groups, size_t n, int argc, char **argv, int *operands,
		      char *err, size_t errlen);

/*
 * Each option of argv[1..] as getopt_long resolves it against the groups,
 * storing nothing: an abbreviation ("--lab" for --label), "--label=X",
 * "-lX" and a cluster ("-ql X") all come out as the option's full name,
 * so a caller that must refuse an option of another command's table
 * (sweep, vm: run's --label) cannot be fooled.  fn gets the group (NULL
 * for -h/--help, named "help") and the option's argument (NULL without);
 * then each operand, in order, with g and name NULL (value: the operand);
 * a nonzero return stops the scan and is returned.  argv is not
 * permuted.  0, fn's return, -ENOMEM, or -EINVAL with err naming an
 * option that getopt_long refuses (unknown, ambiguous, missing value).
 */
typedef int (*ul_opt_scan_fn)(void *arg, const struct ul_opt_group *g, const char *name,
			      const char *value);
int ul_opt_scan_argv(const struct ul_opt_group *groups, size_t n, int argc, char **argv,
		     ul_opt_scan_fn fn, void *arg, char *err, size_t errlen) UL_MUST_CHECK;

/* True when the option `name` of this group was given. */
bool ul_opt_given(const struct ul_opt_group *g, const char *name);
/* The long names of a group's options that were given, "--job, --lead-time". */
void ul_opt_given_names(const struct ul_opt_group *g, char *buf, size_t len);

/*
 * The usage line of --help: `prefix` ("usage: underload rm"), then every
 * option of the groups on line `form` (UL_OPT_FORM(k); 0: every option)
 * ("[--db PATH|URL]", see UL_OPTF_REQUIRED and UL_OPTF_REPEATS), then
 * `operands` ("RUN...", may be NULL), wrapped at 79 columns under the
 * first option.
 */
void ul_opt_print_usage(FILE *out, const char *prefix, const struct ul_opt_group *groups, size_t n,
			unsigned form, const char *operands);
/* The same usage line as the man page's SYNOPSIS: `command` bold
 * (".B underload rm"), each option and operand a troff line, then ".br". */
void ul_opt_print_man_usage(FILE *out, const char *command, const struct ul_opt_group *groups,
			    size_t n, unsigned form, const char *operands);
/* The usage lines the groups' options name (their `form` bits, OR'ed);
 * 0 when they name none: one line. */
unsigned ul_opt_usage_forms(const struct ul_opt_group *groups, size_t n);
/* The options part of --help: each group under its heading. */
void ul_opt_print_help(FILE *out, const struct ul_opt_group *groups, size_t n);
/* One more line in the same layout: ("-h, --help", "this help"). */
void ul_opt_print_help_line(FILE *out, const char *left, const char *help);
/* The same as man page troff: .TP entries, a .SS per group with a heading. */
void ul_opt_print_man(FILE *out, const struct ul_opt_group *groups, size_t n);
/* Load or probe options (`-o ITEM.NAME=VALUE`) as man page .TP entries. */
void ul_opt_print_man_values(FILE *out, const char *item, const struct ul_opt *opts);

#endif
