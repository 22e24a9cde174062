/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The hidden `underload __complete`: what shell completion needs, derived
 * from the same tables as --help and the man page.
 *
 *   underload __complete spec
 *	The completion spec, one tab-separated record a line, which
 *	tools/gen-completion embeds into the bash and zsh scripts at build
 *	time (completion/):
 *	  cmd   NAME  OPERANDS  WORDS  SUMMARY a command and what its operands are
 *	  opt   CMD   --LONG  -S  VALUE  WORDS  HELP
 *	                                       an option ("-" when no short name)
 *	  words NAME  W1 W2 ...                a word list VALUE/OPERANDS refer to
 *	VALUE (and OPERANDS) is one of: none (a flag), text (nothing to
 *	offer), file, dir, word (one of the list WORDS), list (a
 *	comma-separated list of WORDS), labels, runs, names (labels and runs),
 *	hosts (the hosts of the runs): read from the store when completing.  WORDS is "-" for kinds
 *	without a list.  OPERANDS is the kind of each operand in turn,
 *	comma-separated, the last one repeated ("runs,labels": RUN NEWLABEL).
 *
 *   underload __complete labels|runs|names|hosts [--db PATH|URL]
 *	The store's labels and/or runs (the 8-character UUID prefix `list`
 *	shows, and "last"), or its runs' hosts, one a line.  Opens the store read-only and only
 *	when its file exists: a TAB never creates or changes a database, and
 *	prints nothing (exit 0) when there is none or it cannot be read.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/optparse.h"
#include "load/load.h"
#include "model/suite.h"
#include "probe/deadline.h"
#include "probe/probe.h"
#include "report/format.h"
#include "store/store.h"

#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a command's operands are (commands not named take none). */
static const struct {
	const char *cmd, *kind, *words;
} operands[] = {
	{ "run", "word", "suites" },	   { "list", "word", "topics" },
	{ "show", "runs", "-" },	   { "vmstat", "runs", "-" },
	{ "compare", "names", "-" },	   { "report", "names", "-" },
	{ "export", "names", "-" },	   { "rm", "runs", "-" },
	{ "relabel", "runs,labels", "-" }, { "import", "file", "-" },
	{ "history", "labels", "-" },
};

/*
 * Options whose values the table's type does not say (a STRING or a
 * callback taking registered names, labels or a directory), by long name.
 * Every other value is derived from the option's type and metavariable.
 */
static const struct {
	const char *name, *kind, *words;
} named_values[] = {
	{ "format", "list", "formats" }, { "tests", "list", "tests" },
	{ "under", "list", "loads" },	 { "cell", "word", "tests" },
	{ "suite", "word", "suites" },	 { "deadline", "word", "deadlines" },
	{ "option", "word", "items" },	 { "label", "labels", "-" },
	{ "baseline", "names", "-" },	 { "dir", "dir", "-" },
	{ "host", "hosts", "-" },
};

/* An option's VALUE and WORDS (see the top of this file); a CHOICE's
 * words are printed as the list "CMD--NAME" first. */
static void value_kind(const char *cmd, const struct ul_opt *o, const char **kind,
		       const char **words, char *buf, size_t len)
{
	*words = "-";
	if (o->type == UL_OPT_FLAG) {
		*kind = "none";
		return;
	}
	if (o->type == UL_OPT_CHOICE) {
		snprintf(buf, len, "%s--%s", cmd, o->name);
		printf("words\t%s\t", buf);
		for (const char *p = o->arg; *p; p++)
			putchar(*p == '|' ? ' ' : *p);
		putchar('\n');
		*kind = "word";
		*words = buf;
		return;
	}
	for (size_t i = 0; i < UL_ARRAY_SIZE(named_values); i++)
		if (!strcmp(o->name, named_values[i].name) &&
		    (strcmp(o->name, "format") || !strcmp(o->arg, "LIST"))) {
			*kind = named_values[i].kind;
			*words = named_values[i].words;
			return;
		}
	if (o->type == UL_OPT_BOOL) {
		*kind = "word";
		*words = "bool";
	} else if (o->type == UL_OPT_DIR || (o->arg && strstr(o->arg, "DIR"))) {
		*kind = "dir";
	} else if (o->arg && (strstr(o->arg, "PATH") || strstr(o->arg, "FILE"))) {
		*kind = "file";
	} else {
		*kind = "text";
	}
}

static void print_opts(const char *cmd, const struct ul_opt_group *g, size_t n)
{
	for (size_t gi = 0; gi < n; gi++)
		for (const struct ul_opt *o = g[gi].opts; o && o->name; o++) {
			const char *kind, *words;
			char buf[96];

			value_kind(cmd, o, &kind, &words, buf, sizeof(buf));
			printf("opt\t%s\t--%s\t", cmd, o->name);
			if (o->short_name)
				printf("-%c", o->short_name);
			else
				putchar('-');
			printf("\t%s\t%s\t%s\n", kind, words, o->help);
		}
}

/* A word list: `names` items of a registry, each once. */
static void print_words(const char *list, const char *const *names, size_t n)
{
	printf("words\t%s\t", list);
	for (size_t i = 0; i < n; i++) {
		bool seen = false;

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(names[i], names[j]);
		if (!seen)
			printf("%s%s", i ? " " : "", names[i]);
	}
	putchar('\n');
}

/* --tests: every suite's test names and group names, and every load. */
static void print_tests(void)
{
	const char *names[512];
	static char groups[4096];
	size_t n = 0, off = 0;

	for (size_t i = 0; i < ul_suite_count(); i++)
		for (const struct ul_suite_test *t = ul_suite_at(i)->tests; t->load; t++) {
			if (n < UL_ARRAY_SIZE(names))
				names[n++] = ul_suite_test_name(t);
			for (const char *g = t->groups; g && *g && off < sizeof(groups);) {
				size_t w = strcspn(g, ",");

				if (n < UL_ARRAY_SIZE(names) && off + w + 1 < sizeof(groups)) {
					names[n++] = memcpy(groups + off, g, w);
					groups[off + w] = '\0';
					off += w + 1;
				}
				g += w + (g[w] == ',');
			}
		}
	for (size_t i = 0; i < ul_load_count() && n < UL_ARRAY_SIZE(names); i++)
		names[n++] = ul_load_at(i)->name;
	print_words("tests", names, n);
}

/* -o ITEM.NAME=: every load's and probe's option, "resp.working-set=". */
static void print_items(void)
{
	printf("words\titems\t");
	for (size_t i = 0; i < ul_load_count(); i++)
		for (const struct ul_opt *o = ul_load_at(i)->opts; o && o->name; o++)
			printf("%s.%s= ", ul_load_at(i)->name, o->name);
	for (size_t i = 0; i < ul_probe_count(); i++)
		for (const struct ul_opt *o = ul_probe_at(i)->opts; o && o->name; o++)
			printf("%s.%s= ", ul_probe_at(i)->name, o->name);
	putchar('\n');
}

#define REGISTRY_WORDS(list, prefix)                                                               \
	do {                                                                                       \
		const char *names_[256];                                                           \
		size_t n_ = 0;                                                                     \
		for (; n_ < prefix##_count() && n_ < UL_ARRAY_SIZE(names_); n_++)                  \
			names_[n_] = prefix##_at(n_)->name;                                        \
		print_words(list, names_, n_);                                                     \
	} while (0)

static void print_lists(void)
{
	const char *deadlines[UL_ARRAY_SIZE(ul_deadline_profiles) + 1];

	REGISTRY_WORDS("formats", ul_format);
	REGISTRY_WORDS("loads", ul_load);
	REGISTRY_WORDS("probes", ul_probe);
	REGISTRY_WORDS("suites", ul_suite);
	print_tests();
	print_items();
	for (size_t i = 0; i < UL_ARRAY_SIZE(ul_deadline_profiles); i++)
		deadlines[i] = ul_deadline_profiles[i].name;
	deadlines[UL_ARRAY_SIZE(ul_deadline_profiles)] = "none";
	print_words("deadlines", deadlines, UL_ARRAY_SIZE(deadlines));
	print_words("topics", (const char *[]){ "runs", "loads", "probes", "suites", "formats" },
		    5);
	print_words("bool", (const char *[]){ "yes", "no" }, 2);
}

static int print_spec(void)
{
	print_lists();
	for (size_t i = 0; i < ul_cmd_count(); i++) {
		const struct ul_cmd *cmd = ul_cmd_at(i);
		struct ul_opt_group g[UL_OPT_GROUPS_MAX];
		const char *kind = "none", *words = "-";

		for (size_t k = 0; k < UL_ARRAY_SIZE(operands); k++)
			if (!strcmp(operands[k].cmd, cmd->name)) {
				kind = operands[k].kind;
				words = operands[k].words;
			}
		printf("cmd\t%s\t%s\t%s\t%s\n", cmd->name, kind, words, cmd->summary);
		print_opts(cmd->name, g, ul_cmd_opt_groups(cmd, g, UL_ARRAY_SIZE(g)));
	}
	return UL_EXIT_OK;
}

/* A name a shell can offer as it is: printable, no control character. */
static bool offerable(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20 || *s == 0x7f)
			return false;
	return true;
}

/* Each offerable string at `off` in the summaries once, one a line. */
static void print_distinct(const struct ul_run_summary *sum, size_t n, size_t off)
{
	for (size_t i = 0; i < n; i++) {
		const char *s = (const char *)&sum[i] + off;
		bool seen = !offerable(s);

		for (size_t j = 0; j < i && !seen; j++)
			seen = !strcmp(s, (const char *)&sum[j] + off);
		if (!seen)
			printf("%s\n", s);
	}
}

/* The store's labels and/or runs, or hosts; silent when there is no store to read. */
static int print_names(const char *what, const char *db)
{
	struct ul_store_config cfg = { .flags = UL_STORE_READ, .busy_wait_ms = 200 };
	char path[4096], err[512];
	struct ul_run_summary *sum = NULL;
	struct ul_store *st;
	size_t n = 0;

	if (db ? (size_t)snprintf(path, sizeof(path), "%s", db) >= sizeof(path)
	       : ul_store_default_path(path, sizeof(path)) < 0)
		return UL_EXIT_OK;
	/* Another scheme is a server: never contacted from a TAB. */
	if (strstr(path, "://") || access(strncmp(path, "sqlite:", 7) ? path : path + 7, R_OK) < 0)
		return UL_EXIT_OK;
	if (ul_store_open_cfg(path, &cfg, &st, err, sizeof(err)))
		return UL_EXIT_OK;
	if (!st->ops->list_runs(st, &sum, &n)) {
		bool hosts = !strcmp(what, "hosts");
		bool labels = !hosts && strcmp(what, "runs"),
		     runs = !hosts && strcmp(what, "labels");

		if (hosts)
			print_distinct(sum, n, offsetof(struct ul_run_summary, hostname));
		if (labels)
			print_distinct(sum, n, offsetof(struct ul_run_summary, label));
		for (size_t i = 0; runs && i < n; i++)
			printf("%.8s\n", sum[i].uuid);
		if (runs && n)
			printf("last\n");
	}
	free(sum);
	ul_store_close(st);
	return UL_EXIT_OK;
}

int ul_cmd_complete(int argc, char **argv)
{
	const char *db = NULL;

	if (argc == 2 && !strcmp(argv[1], "spec"))
		return print_spec();
	if (argc == 4 && !strcmp(argv[2], "--db"))
		db = argv[3];
	else if (argc != 2)
		return UL_EXIT_USAGE;
	if (!strcmp(argv[1], "labels") || !strcmp(argv[1], "runs") || !strcmp(argv[1], "names") ||
	    !strcmp(argv[1], "hosts"))
		return print_names(argv[1], db);
	return UL_EXIT_USAGE;
}
