/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's arguments of a sweep (contract: sweep.h), read the way `run`
 * itself will read them: getopt_long against run's option table
 * (core/optparse.h's scan), so that "--lab", "--label=x", "-lx" or "-ql x"
 * are all --label, and "--di /x" is --dir.  A literal comparison of words
 * let every abbreviation through.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "cmd/sweep.h"
#include "core/log.h"
#include "core/optparse.h"
#include "model/suite.h"

#include <errno.h>
#include <string.h>

/* A suite the run's arguments name: --within-run needs its rounds, so a
 * suite without them is refused before the sweep writes a value (run
 * refuses it too; an unknown name is left to run's message). */
static int check_suite(const struct sweep *sw, const char *operand)
{
	const struct ul_suite *s = ul_suite_find(operand);

	if (sw->within_run && s && !ul_run_opt_reads(ul_run_own_opt("round-sysctl"), s->name))
		return ul_usage_error("sweep", "--within-run: the suite %s has no rounds", s->name);
	return 0;
}

/* One option of the run's arguments, by its full name, or an operand
 * (name NULL). */
static int check_one(void *arg, const struct ul_opt_group *g, const char *name, const char *value)
{
	struct sweep *sw = arg;

	(void)g;
	if (!name)
		return check_suite(sw, value);
	if (!strcmp(name, "label"))
		return ul_usage_error("sweep", "the sweep labels its runs: no --label");
	if (!strcmp(name, "round-sysctl"))
		return ul_usage_error("sweep", "--round-sysctl is the sweep's: use --within-run");
	for (size_t s = 0; s < sw->n_set; s++) {
		const struct setting *st = &sw->set[s];
		size_t len = strlen(st->name);

		if (!st->run_opt)
			continue;
		/* -o ITEM.NAME=V: the run's "option", whatever its spelling. */
		if (!strcmp(st->run_opt, "-o")) {
			if (!strcmp(name, "option") && value && !strncmp(value, st->name, len) &&
			    value[len] == '=')
				return ul_usage_error(
					"sweep", "-o %s is swept: not in the run's arguments too",
					st->name);
		} else if (!strcmp(name, st->run_opt + 2)) {
			return ul_usage_error("sweep",
					      "%s is swept: not in the run's arguments too",
					      st->run_opt);
		}
	}
	if (ul_decide_fixes_points(name))
		sw->points_given = true;
	if (!strcmp(name, "runs"))
		sw->runs_given = true;
	if (!strcmp(name, "db"))
		sw->db = value;
	else if (!strcmp(name, "dir"))
		sw->dir = value;
	return 0;
}

int sweep_check_run_args(struct sweep *sw)
{
	struct ul_opt_group groups[UL_OPT_GROUPS_MAX];
	size_t n;
	char err[256];
	int rc;

	if (sw->n_run_args < 1 || strcmp(sw->run_args[0], "run"))
		return ul_usage_error("sweep", "expected '-- run ARGS...' after the settings");
	n = ul_run_opt_groups(groups, UL_ARRAY_SIZE(groups));
	if (!n)
		return UL_EXIT_ERROR;
	rc = ul_opt_scan_argv(groups, n, sw->n_run_args, sw->run_args, check_one, sw, err,
			      sizeof(err));
	if (rc == -EINVAL)
		return ul_usage_error("sweep", "the run's arguments: %s", err);
	if (rc == -ENOMEM) {
		ul_oom();
		return UL_EXIT_ERROR;
	}
	return rc;
}
