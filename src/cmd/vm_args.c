/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload vm -- run ARGS`: vm sets the guest's run's --label (from
 * --label-from) and its store itself, so ARGS must not.  `run` parses
 * with getopt_long, which takes any unambiguous abbreviation ("--lab",
 * "--d=x" when only --db starts so) and an option's value as the next
 * word: ARGS are read here by getopt_long against run's own options, as
 * run will read them, and not by their spelling.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/decide.h"
#include "cmd/vm.h"
#include "core/optparse.h"

#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

/* The options of run that vm sets itself. */
static const char *const vm_sets[] = { "label", "db" };

/* getopt_long's codes: CODE_BASE + the option's index in the flat table. */
#define CODE_BASE 0x1000

static bool vm_sets_it(const char *name)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(vm_sets); i++)
		if (!strcmp(name, vm_sets[i]))
			return true;
	return false;
}

/* The first of run's options in argv (as run reads them) that `wanted`
 * picks: 1 with *which its name, 0, or -ENOMEM. */
static int run_gives(int argc, char **argv, bool (*wanted)(const char *name), const char **which)
{
	struct ul_opt_group groups[UL_OPT_GROUPS_MAX];
	const struct ul_cmd *run = ul_cmd_find("run");
	size_t n_groups = run && run->opt_groups ? run->opt_groups(groups, UL_OPT_GROUPS_MAX) : 0;
	size_t n_opts = 0, nl = 0, ns = 0;
	struct option *longs;
	const struct ul_opt **opt;
	char **args, *shorts;
	int c, rc = 0;

	*which = NULL;
	for (size_t g = 0; g < n_groups; g++)
		for (size_t i = 0; groups[g].opts[i].name; i++)
			n_opts++;
	longs = calloc(n_opts + 2, sizeof(*longs));
	opt = calloc(n_opts + 1, sizeof(*opt));
	shorts = calloc(2 * n_opts + 4, 1);
	args = calloc((size_t)argc + 1, sizeof(*args)); /* getopt_long permutes its argv */
	if (!longs || !opt || !shorts || !args || !n_groups) {
		rc = -ENOMEM;
		goto out;
	}
	shorts[ns++] = ':'; /* quiet: what run refuses, run says */
	for (size_t g = 0; g < n_groups; g++)
		for (size_t i = 0; groups[g].opts[i].name; i++) {
			const struct ul_opt *o = &groups[g].opts[i];
			int has_arg = o->type == UL_OPT_FLAG ? no_argument : required_argument;

			opt[nl] = o;
			longs[nl] = (struct option){ o->name, has_arg, NULL, CODE_BASE + (int)nl };
			nl++;
			if (o->short_name) {
				shorts[ns++] = o->short_name;
				if (has_arg == required_argument)
					shorts[ns++] = ':';
			}
		}
	longs[nl] = (struct option){ "help", no_argument, NULL, 'h' };
	memcpy(args, argv, (size_t)argc * sizeof(*args));
	opterr = 0;
	optind = 0;
	while ((c = getopt_long(argc, args, shorts, longs, NULL)) != -1)
		if (c >= CODE_BASE && wanted(opt[c - CODE_BASE]->name)) {
			*which = opt[c - CODE_BASE]->name;
			rc = 1;
			break;
		}
	opterr = 1;
	optind = 0;
out:
	free(longs);
	free(opt);
	free(shorts);
	free(args);
	return rc;
}

int ul_vm_run_sets_own(int argc, char **argv, const char **which)
{
	return run_gives(argc, argv, vm_sets_it, which);
}

int ul_vm_run_fixes_points(int argc, char **argv)
{
	const char *which;

	return run_gives(argc, argv, ul_decide_fixes_points, &which);
}
