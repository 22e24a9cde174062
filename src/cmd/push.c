/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload push [RUN|LABEL]... --to URI`: copy runs from the local store
 * into another (a fleet's PostgreSQL database, or another SQLite file).
 * Each run goes in a transaction of its own through the target's import,
 * which adds only what the target lacks: pushing twice changes nothing,
 * and a push cut off halfway completes on the next try (the runs it
 * finished stay, the one it was in was rolled back whole).
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "store/store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char push_help[] =
	"Copy stored runs, every raw sample included, oldest first, into the store\n"
	"URI names (postgresql://..., or a path).  Each argument is a run (numeric\n"
	"id, UUID, unique UUID prefix or 'last') or a label (every run with that\n"
	"label); without one, every run.  A run already there only gains what it\n"
	"lacks: pushing again changes nothing, and an interrupted push completes.\n"
	"\n";

struct push_args {
	const char *db, *to;
};

static const struct ul_opt push_opts[] = {
	UL_CMD_OPT_DB(struct push_args),
	{ "to", UL_OPT_STRING, .arg = "URI", UL_OPT_AT(struct push_args, to),
	  .flags = UL_OPTF_REQUIRED,
	  .help = "the store to copy into: postgresql://HOST/DB, postgresql:///DB?host=DIR, "
		  "postgresql:///?service=NAME or a path (required)" },
	{ NULL },
};

extern const struct ul_cmd ul_cmd_desc_push;

/* chosen[k] for each run of all[] an argument names (every run without one). */
static int choose(const struct ul_cmd_scope *sc, bool *chosen, char **args, int n)
{
	const struct ul_run_summary *all = sc->all;
	size_t n_all = sc->n_all;

	for (int i = 0; i < n; i++) {
		struct ul_cmd_named nm;
		int ret = ul_cmd_name(sc, "push", args[i], &nm);

		if (ret)
			return ret;
		for (size_t k = 0; k < n_all; k++)
			chosen[k] |= nm.is_label ? !strcmp(all[k].label, nm.label)
						 : !strcmp(all[k].uuid, nm.run.uuid);
	}
	for (size_t k = 0; k < n_all && !n; k++)
		chosen[k] = true;
	return UL_EXIT_OK;
}

/* One run, loaded from src and imported into dst in its own transaction. */
static int push_one(struct ul_store *src, struct ul_store *dst, const char *uuid, size_t *added)
{
	struct ul_run run;
	size_t one = 0;
	int ret = ul_cmd_load_run(src, uuid, &run);

	if (!ret && dst->ops->import_runs(dst, &run, 1, &one)) {
		ul_error("cannot push run %s: %s", uuid, dst->err);
		ret = UL_EXIT_ERROR;
	}
	*added += one;
	ul_run_release(&run);
	return ret;
}

/* The chosen runs, oldest first (so the target keeps their order). */
static int push_chosen(struct ul_store *src, const char *to, const struct ul_run_summary *all,
		       const bool *chosen, size_t n_all)
{
	struct ul_store *dst;
	size_t pushed = 0, added = 0;
	int ret = ul_cmd_open_store_rw(to, &dst);

	for (size_t k = n_all; !ret && k-- > 0;)
		if (chosen[k] && !(ret = push_one(src, dst, all[k].uuid, &added)))
			pushed++;
	if (dst)
		printf("%zu run%s pushed, %zu added or completed there\n", pushed,
		       pushed == 1 ? "" : "s", added);
	ul_store_close(dst);
	return ret;
}

static int do_push(const char *db_opt, const char *to, char **args, int nargs)
{
	struct ul_cmd_scope sc; /* every host's runs */
	struct ul_store *src;
	bool *chosen = NULL;
	int ret = ul_cmd_open_store(db_opt, &src);

	if (ret)
		return ret;
	ret = ul_cmd_scope_open(src, NULL, &sc);
	chosen = calloc(sc.n_all ? sc.n_all : 1, sizeof(*chosen));
	if (!ret)
		ret = chosen ? choose(&sc, chosen, args, nargs) : (ul_oom(), UL_EXIT_ERROR);
	if (!ret)
		ret = push_chosen(src, to, sc.all, chosen, sc.n_all);
	free(chosen);
	ul_cmd_scope_free(&sc);
	ul_store_close(src);
	return ret;
}

int ul_cmd_push(int argc, char **argv);
int ul_cmd_push(int argc, char **argv)
{
	struct push_args a;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_push, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (!a.to || !*a.to)
		return ul_usage_error("push", "--to URI is required");
	return do_push(a.db, a.to, argv + first, argc - first);
}

const struct ul_cmd ul_cmd_desc_push = {
	.name = "push",
	.summary = "copy stored runs into another store (a fleet's PostgreSQL database)",
	.operands = "[RUN|LABEL]...",
	.help = push_help,
	.opts = push_opts,
	.fn = ul_cmd_push,
};
