/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Parsing and validating the contest options of `underload run`: bad
 * input (a job that cannot be found, a missing directory, a range) is a
 * usage error before anything runs.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/contest_opts.h"
#include "core/parse.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int bad(const char *opt, const char *val, int rc, const char *accepted)
{
	return ul_usage_error("run", "%s value '%s' for %s: expected %s",
			      rc == -ERANGE ? "out-of-range" : "invalid", val, opt, accepted);
}

static int need_dir(const char *opt, const char *dir)
{
	struct stat st;

	if (stat(dir, &st) < 0)
		return ul_usage_error("run", "%s '%s': %s", opt, dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ul_usage_error("run", "%s '%s': not a directory", opt, dir);
	return 0;
}

int ul_contest_parse_opt(int c, const char *arg, struct ul_contest_opts *o)
{
	int64_t v;
	int rc;

	switch (c) {
	case UL_CONTEST_OPT_JOB:
		o->job = arg;
		return 0;
	case UL_CONTEST_OPT_JOB_DIR:
		o->job_dir = arg;
		return need_dir("--job-dir", arg);
	case UL_CONTEST_OPT_JOB_PREP:
		o->job_prep = arg;
		return 0;
	case UL_CONTEST_OPT_JOB_TIMEOUT:
		rc = ul_parse_duration_ns(arg, UL_NS_PER_SEC, 7 * 24 * 3600 * UL_NS_PER_SEC,
					  &o->job_timeout_ns);
		return rc ? bad("--job-timeout", arg, rc, "a duration from 1s to 7 days") : 0;
	case UL_CONTEST_OPT_LEAD_TIME:
		rc = ul_parse_duration_ns(arg, 0, 600 * UL_NS_PER_SEC, &o->lead_ns);
		return rc ? bad("--lead-time", arg, rc, "a duration from 0s to 10m") : 0;
	case UL_CONTEST_OPT_NO_DROP_CACHES:
		o->no_drop_caches = true;
		return 0;
	case UL_CONTEST_OPT_LSLR_DIR:
		o->lslr_dir = arg;
		return need_dir("--lslr-dir", arg);
	case UL_CONTEST_OPT_TREE_UNITS:
		rc = ul_parse_count(arg, 1, 100000, &v);
		if (rc)
			return bad("--tree-units", arg, rc, "a count from 1 to 100000");
		o->tree_units = (unsigned)v;
		return 0;
	case UL_CONTEST_OPT_TREE_SEED:
		rc = ul_parse_count(arg, 0, INT64_MAX, &v);
		if (rc)
			return bad("--tree-seed", arg, rc, "a count from 0 to 2^63-1");
		o->tree_seed = (uint64_t)v;
		o->set_tree_seed = true;
		return 0;
	default:
		return ul_usage_error("run", "unknown option");
	}
}

/* A command's words and program; usage error when either is wrong. */
static int check_command(const char *opt, const char *cmd, const char *dir)
{
	char **argv = NULL, why[128], path[PATH_MAX];
	int rc = ul_contest_split(cmd, &argv, why, sizeof(why));

	if (rc == -ENOMEM)
		return ul_usage_error("run", "out of memory");
	if (rc)
		return ul_usage_error("run", "%s '%s': %s", opt, cmd, why);
	rc = ul_contest_which(argv[0], dir, path, sizeof(path));
	if (rc)
		rc = ul_usage_error("run", "%s '%s': cannot execute '%s': %s", opt, cmd, argv[0],
				    rc == -ENOENT && !strchr(argv[0], '/') ? "not found in PATH"
									    : strerror(-rc));
	free(argv);
	return rc;
}

int ul_contest_check_opts(const struct ul_contest_opts *o, bool selected)
{
	bool any = o->job || o->job_dir || o->job_prep || o->job_timeout_ns || o->lead_ns >= 0 ||
		   o->no_drop_caches || o->lslr_dir || o->tree_units || o->set_tree_seed;
	int rc;

	if (any && !selected)
		return ul_usage_error("run", "contest options (--job, --lead-time ...) need the "
					     "contest suite: underload run contest");
	if (!o->job && (o->job_dir || o->job_prep))
		return ul_usage_error("run", "%s needs --job (the generated tree has its own)",
				      o->job_dir ? "--job-dir" : "--job-prep");
	if (o->job && (rc = check_command("--job", o->job, o->job_dir)))
		return rc;
	if (o->job_prep && (rc = check_command("--job-prep", o->job_prep, o->job_dir)))
		return rc;
	return 0;
}
