/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Subcommands (git's builtin pattern).  How to add one: write
 * cmd/NAME.c with `int ul_cmd_NAME(int argc, char **argv)` and a
 * descriptor `const struct ul_cmd ul_cmd_desc_NAME` whose `opts` table
 * (core/opt.h) describes its options once: parse them with
 * ul_cmd_parse(), and --help and the man page's options come from the
 * table (regenerate with docs/update-man); add `UL_CMD(NAME, NAME)` to
 * cmd/commands.def, a line under COMMANDS in docs/underload.1 and a CLI
 * test.  Commands return an exit code (enum ul_exit); only main() exits.
 */
#ifndef UL_CMD_H
#define UL_CMD_H

#include "core/compat.h"
#include "core/opt.h"
#include "core/optparse.h"
#include "model/model.h"

#include <stdio.h>

/* Exit codes, documented in the man page. */
enum ul_exit {
	UL_EXIT_OK = 0,
	UL_EXIT_ERROR = 1,
	UL_EXIT_USAGE = 2,
	UL_EXIT_UNSUPPORTED = 3,
	UL_EXIT_FLAGGED = 4,
	UL_EXIT_GATE = 5, /* compare --fail-on: a row's verdict is the one named */
	UL_EXIT_INTERRUPTED = 130,
};

struct ul_cmd {
	const char *name;
	const char *summary; /* one line for `underload --help` */
	/* --help: the usage line, generated from `opts` and ending in
	 * `operands` ("RUN...", NULL = none), then `help` (what it does),
	 * then the options of `opts`, then `epilog`. */
	const char *operands;
	const char *help;
	const struct ul_opt *opts; /* NULL-name terminated; NULL = help says all */
	const char *epilog;
	/* Instead of `opts` when the options are several tables (run: the
	 * suites' own): fills at most `max` groups, returns how many. */
	size_t (*opt_groups)(struct ul_opt_group *groups, size_t max);
	int (*fn)(int argc, char **argv);
};

const struct ul_cmd *ul_cmd_find(const char *name);
/* Print a command's --help (see struct ul_cmd). */
void ul_cmd_print_help(const struct ul_cmd *cmd, FILE *out);
/* The hidden `underload __man-options [NAME...]`: the man page's
 * generated blocks, as docs/underload.1 holds them: each command's
 * OPTIONS ("run"), the items' -o options ("item") and the SYNOPSIS's
 * usage lines ("usage"); every block without NAME. */
int ul_cmd_man_options(int argc, char **argv);
/*
 * Parse argv against cmd->opts into `base` (defaults applied first).  On
 * return *operands is the index of the first operand.  Returns 0,
 * UL_CMD_HELP_SHOWN when --help was printed (the command then exits
 * UL_EXIT_OK), or UL_EXIT_USAGE after printing the usage error.
 */
#define UL_CMD_HELP_SHOWN (-2)
int ul_cmd_parse(const struct ul_cmd *cmd, void *base, int argc, char **argv, int *operands);
size_t ul_cmd_count(void);
const struct ul_cmd *ul_cmd_at(size_t i);
/* The option groups of a command: its one table, or its opt_groups();
 * fills at most `max`, returns how many. */
size_t ul_cmd_opt_groups(const struct ul_cmd *cmd, struct ul_opt_group *groups, size_t max);
/* The hidden `underload __complete spec|labels|runs|names` (cmd/complete.c). */
int ul_cmd_complete(int argc, char **argv);
/* `underload --version`: version, commit, stores, suites, formats, build (cmd/version.c). */
int ul_print_version(FILE *out);

/* The --db option of every command that opens the store: one entry of its
 * table, stored in `type`'s `db` member (const char *; NULL = default). */
#define UL_CMD_OPT_DB(type)                                                                          \
	{                                                                                            \
		"db", UL_OPT_STRING,                                                                 \
			.arg = "PATH|URL", UL_OPT_AT(type, db),                                      \
			.help = "results store: a SQLite file, or a postgresql:// URL",              \
			.def_text = "$UNDERLOAD_DB, else $XDG_DATA_HOME/underload/results.db",       \
			.man = "Without XDG_DATA_HOME:\n.IR ~/.local/share/underload/results.db .\n" \
			       "A URL names a PostgreSQL store (see STORE); UNDERLOAD_DB takes "     \
			       "the same values (see ENVIRONMENT)."                                  \
	}

/* The whole table of a command whose only option is --db (import, relabel). */
struct ul_cmd_db_args {
	const char *db;
};
extern const struct ul_opt ul_cmd_db_opts[];

/* Shared by commands: a usage error ("usage error: ..." + hint), returns UL_EXIT_USAGE. */
int ul_usage_error(const char *cmd, const char *fmt, ...) UL_PRINTF(2, 3);

/* --- output formats (cmd/output.c) --- */
#define UL_MAX_OUTPUTS 8
struct ul_output {
	const struct ul_format *format;
	const char *path; /* NULL = stdout */
};
struct ul_outputs {
	struct ul_output out[UL_MAX_OUTPUTS];
	size_t n;
	char spec[2048]; /* the parsed copy the paths point into */
};
/* Parse "text,resp1,json=FILE"; on error prints a usage error and returns -1. */
int ul_outputs_parse(const char *cmd, const char *spec, struct ul_outputs *outs);
/*
 * The default outputs for a run of these suites (comma-separated names):
 * each suite's seed-layout format, then "text".  `run` and `show` both use
 * it, so `show` reprints exactly what `run` printed.
 */
void ul_default_formats(const char *suites, char *buf, size_t len);
/* Write the run in every format; files by the rules of cmd/outfile.h.
 * Returns 0 or -1 after printing the error. */
int ul_outputs_write(const struct ul_outputs *outs, const struct ul_run *run);
/*
 * Did a write to stdout fail because its reader went away (`| head`)?  A
 * pipe or socket whose other end is closed polls as an error.  Such a
 * failure ends the output without a message: the reader asked for no
 * more.  The command still exits 1 (SIGPIPE is ignored, core/signals.h).
 */
bool ul_stdout_gone(void);
/* Check stdout for write errors before exiting (git style); 0 or -1.
 * The error is printed unless ul_stdout_gone(). */
int ul_stdout_close(void);

/* Longest label a run can carry (the model's field less its NUL). */
#define UL_LABEL_MAX_BYTES ((int)sizeof(((struct ul_run *)0)->label) - 1)
/* Check a label given by a user: 1..UL_LABEL_MAX_BYTES bytes of UTF-8, no
 * control character.  Prints a usage error naming `what` and returns
 * UL_EXIT_USAGE, or returns 0. */
int ul_label_check(const char *cmd, const char *what, const char *label);

/* --- the store location options shared by commands (cmd/output.c) --- */
struct ul_store;
/* Resolve --db (NULL = default path) and register it as never an output
 * file (ul_outfile_protect()): 0, or UL_EXIT_USAGE after printing why (an
 * empty --db; no --db, UNDERLOAD_DB, XDG_DATA_HOME or HOME). */
int ul_cmd_db_path(const char *db_opt, char *buf, size_t len);
/*
 * Resolve --db as ul_cmd_db_path() does (an already resolved path passes
 * through unchanged) and open that store for reading: it must exist and
 * is never created or changed.  Returns UL_EXIT_OK with *out set (the
 * caller closes it with ul_store_close()), or after printing why, with *out
 * NULL, UL_EXIT_USAGE for no location (see ul_cmd_db_path()) or a bad
 * UNDERLOAD_DB_WAIT, UL_EXIT_ERROR for a store that cannot be opened.
 */
int ul_cmd_open_store(const char *db_opt, struct ul_store **out);
/* The same for commands that show results (list, show, compare, report):
 * runs of this store whose machine went down under them are marked crashed
 * first (ul_cmd_settle_crashed), so that none is read as still running. */
int ul_cmd_open_store_settled(const char *db_opt, struct ul_store **out);
/* The same for commands that write (run, import, rm, relabel): the store is
 * created if absent; UNDERLOAD_DB_WAIT sets how long a write waits for a
 * lock; the store's note (journal mode fallback) is printed. */
int ul_cmd_open_store_rw(const char *db_opt, struct ul_store **out);
/*
 * Runs of this store whose machine went down under them (cmd/crashed.c):
 * every pending run of a journal of another boot that names the store db
 * is marked crashed at the test and round it was in, with a note for
 * each.  st: the command's store open for writing, or NULL to open one
 * only when there is a run to mark (list).  Problems are warnings.
 */
void ul_cmd_settle_crashed(const char *db, struct ul_store *st);
/* cleanup's hook: mark run uuid crashed in store_uri (opened here) at
 * `where` (a journal "at" record, may be NULL), saying so on stdout; the
 * store's answer (-ENOENT, -EALREADY, or -EIO with why). */
int ul_cmd_mark_crashed(const char *store_uri, const char *uuid, const char *where, char *why,
			size_t len);
/* Where the stored run uuid crashed, as the words after "crashed"
 * (model.h: ul_run_crash_phrase); the store's answer. */
int ul_cmd_crash_where(struct ul_store *st, const char *uuid, char *out, size_t len);
/*
 * ul_run_init() `run`, then load the stored run `ref` names (an id, a UUID or
 * a unique prefix, or "last") into it.  Returns UL_EXIT_OK, or after printing
 * the store's error UL_EXIT_USAGE if no run matches (-ENOENT) and
 * UL_EXIT_ERROR otherwise.  The caller ul_run_release()s `run` either way.
 */
int ul_cmd_load_run(struct ul_store *st, const char *ref, struct ul_run *run);
/* The same for a run's summary only (id, UUID, label...): rm, relabel. */
int ul_cmd_find_run(struct ul_store *st, const char *ref, struct ul_run_summary *out);
/* The exit code of a store's answer about a run (0 or -errno; its error is
 * printed): UL_EXIT_USAGE for no such run (-ENOENT) or a reference that
 * cannot name one (-EINVAL), else UL_EXIT_ERROR. */
int ul_cmd_run_exit(const struct ul_store *st, int rc);
/*
 * --host H of the commands that read runs (list, show, compare, export,
 * report): only runs made on host H; repeated, on any of them (compare
 * then puts each label of each host side by side).  One entry of a
 * command's table, collected into `type`'s `member`, a struct ul_cmd_hosts.
 */
#define UL_CMD_MAX_HOSTS 8
struct ul_cmd_hosts {
	const char *name[UL_CMD_MAX_HOSTS];
	size_t n; /* 0: every host */
};
int ul_cmd_hosts_add(void *hosts, const char *arg, char *err, size_t errlen);
#define UL_CMD_OPT_HOST(type, member, what)                                                        \
	{                                                                                          \
		"host", UL_OPT_CALL,                                                               \
			.arg = "H", UL_OPT_AT(type, member), .set = ul_cmd_hosts_add,              \
			.def_text = "every host", .flags = UL_OPTF_REPEATS,                        \
			.help = "only runs made on host H (as list shows it); repeated, any of "   \
				"them" what                                                        \
	}
/* Is `hostname` one of `h` (always, when h names none)? */
bool ul_cmd_hosts_has(const struct ul_cmd_hosts *h, const char *hostname);

/*
 * The runs a command's RUN|LABEL arguments resolve among (cmd/names.c):
 * the store's runs, and of them those of the --host hosts (all of them
 * without --host), newest first.  Every command resolves its arguments
 * against one scope, so that a label, a run and 'last' mean the same with
 * --host in each.
 */
struct ul_cmd_scope {
	struct ul_store *st;
	const struct ul_cmd_hosts *hosts;
	struct ul_run_summary *all; /* list_runs: every run, newest first */
	size_t n_all;
	struct ul_run_summary *sum; /* those of the hosts, newest first */
	size_t n;
};
/* List the store's runs into `sc`: UL_EXIT_OK, or UL_EXIT_ERROR after
 * printing why.  Free it with ul_cmd_scope_free() either way. */
int ul_cmd_scope_open(struct ul_store *st, const struct ul_cmd_hosts *hosts,
		      struct ul_cmd_scope *sc);
void ul_cmd_scope_free(struct ul_cmd_scope *sc);
/* "host 'H'" or "hosts 'H1', 'H2'" for messages; "" without --host. */
const char *ul_cmd_scope_hosts_text(const struct ul_cmd_scope *sc, char *buf, size_t len);
/* With --host, a scope with no run is a usage error saying so (a host
 * misspelt); UL_EXIT_OK otherwise. */
int ul_cmd_scope_check_any(const struct ul_cmd_scope *sc, const char *cmd);
/*
 * The run `ref` names (an id, a UUID or a unique prefix, 'last', each may
 * be written run:REF) among the scope's runs: 'last' is the newest run of
 * the hosts, and a run of another host is refused, naming both hosts.
 * UL_EXIT_OK, or after printing why UL_EXIT_USAGE (no such run) or
 * UL_EXIT_ERROR (the store failed).
 */
int ul_cmd_scope_find_run(const struct ul_cmd_scope *sc, const char *cmd, const char *ref,
			  struct ul_run_summary *out);
/*
 * A NAME that may be a label or a run (compare, report, export, push), by
 * the one rule: "label:X" is the label X, "run:X" the run reference X (id,
 * UUID, UUID prefix, 'last'); a plain name is the label or the run it
 * names, and one that names both is refused as ambiguous.  Both are looked
 * for in the scope only: a label none of the hosts' runs has is an error
 * naming the label and the hosts.  Returns UL_EXIT_OK with *out filled, or
 * prints why and returns UL_EXIT_USAGE (no such label or run, ambiguous)
 * or UL_EXIT_ERROR (the store failed).
 */
struct ul_cmd_named {
	bool is_label;
	const char *label;	   /* is_label: the label (inside the name given) */
	struct ul_run_summary run; /* !is_label: the run */
};
int ul_cmd_name(const struct ul_cmd_scope *sc, const char *cmd, const char *name,
		struct ul_cmd_named *out);
/* A name meant as a label only (report --baseline): without its "label:" prefix, if any. */
const char *ul_cmd_label_name(const char *name);
/*
 * Is `s` one of the runs a LABEL names in compare and report: a finished
 * run (any status but running, crashed too) labelled `label`, and of
 * `host` unless that is NULL?  A label names every such run, pooled.
 */
bool ul_cmd_label_has_run(const struct ul_run_summary *s, const char *label, const char *host);

/*
 * Import one exchange-format file into `st` in one transaction (cmd/import.c):
 * returns 0 with *added_runs (may be NULL) set, or -1 after printing one line
 * saying why nothing was imported.
 */
int ul_cmd_import_file(struct ul_store *st, const char *path, size_t *added_runs);
/*
 * Before a run: import (then remove) the recovery files earlier runs left
 * beside the database at db_path ("DB.recovery-UUID.json").  Only files of
 * ours are read (owner our euid, not group/other-writable, a regular file,
 * no symlink followed); any other name or file is left in place with one
 * warning naming it.  The file of a run deleted since is removed unloaded.
 */
void ul_cmd_import_recovery(struct ul_store *st, const char *db_path);

#endif
