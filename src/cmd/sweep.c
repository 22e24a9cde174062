/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload sweep SETTING=V1,V2... [--repeat N] -- run ARGS...`: one run
 * per combination of the settings' values, interleaved over repetitions
 * (A B A B), each labelled by its setting ("vm.swappiness=10"), then the
 * comparison of those labels with the swept settings as the expected
 * difference.
 *
 * Each run is a child `underload run ARGS --label LABEL` with the setting
 * applied: a sysctl (proc/sysctl.h's allow-list) or the I/O scheduler of
 * --dir's disk (proc/iosched.h, setting "iosched") is journalled with its
 * original value before it first changes (proc/changes.h, kinds "sysctl"
 * and "iosched") and written back at the end, on a failed run and on
 * SIGINT/SIGTERM/SIGHUP; after a kill -9 of the sweep, `underload cleanup`
 * writes it back.  cpus and mem-limit become the run's --cpus/--mem-limit.
 * The child runs in its own process group, so a signal reaches it once,
 * forwarded by the sweep, and dies with SIGTERM should the sweep die first.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "cmd/run.h"
#include "cmd/decide.h"
#include "proc/changes.h"
#include "proc/iosched.h"
#include "proc/journal.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#define SWEEP_MAX_SETTINGS 4
#define SWEEP_MAX_VALUES 16
#define SWEEP_MAX_RUNS 64 /* combinations */
/* One sweep of system settings at a time: a second would save the first's
 * value as the original and, ending last, leave it behind.  The lock is an
 * abstract unix socket name, bound by one process at a time and released
 * by the kernel when it exits, even by kill -9: no file to leave behind. */
#define SWEEP_LOCK "underload-sweep"

static const char sweep_help[] =
	"usage: underload sweep SETTING=V1,V2,... [SETTING=...] [-o ITEM.NAME=V1,V2,...]\n"
	"                       [--repeat N | --until-decided] -- run ARGS...\n"
	"\n"
	"One run per combination of the settings' values, interleaved over the\n"
	"repetitions (A B A B), each labelled by its setting (vm.swappiness=10), then\n"
	"the comparison of those labels, the swept settings being the expected\n"
	"difference.  SETTING is a sysctl of the allow-list (vm.swappiness,\n"
	"vm.dirty_ratio, vm.dirty_background_ratio, vm.dirty_expire_centisecs,\n"
	"vm.dirty_writeback_centisecs, vm.vfs_cache_pressure, vm.min_free_kbytes,\n"
	"vm.watermark_scale_factor, vm.page-cluster, kernel.sched_*), integer values;\n"
	"iosched, the I/O scheduler of the disk under the run's --dir (the names its\n"
	"/sys/block/DISK/queue/scheduler offers: none, mq-deadline, bfq, kyber);\n"
	"or cpus or mem-limit, which become the run's --cpus and --mem-limit (a value\n"
	"holds no comma: a CPU list in a sweep is a range, 0-1); or with -o a load's or\n"
	"probe's option (-o resp.cpu-work=34000000,37400000), which becomes the run's -o.\n"
	"A value given twice is an A/A: the second's runs are labelled VALUE#2.  Every\n"
	"sysctl and\n"
	"scheduler is journalled before it changes and written back at the end, after\n"
	"a failed run, on SIGINT or SIGTERM, and by 'underload cleanup' after a kill\n"
	"-9.  The sweep stops at the first run that fails (exit other than 0 or 4).\n"
	"\n"
	"With --until-decided (two combinations), the runs go in pairs A B, B A, ...\n"
	"until every test is slower, faster or equal within --margin, by an\n"
	"anytime-valid confidence sequence on the paired run medians, or until\n"
	"--max-runs or --budget; see underload(1), \"UNTIL DECIDED\".\n"
	"\n";

static const char sweep_epilog[] =
	"\n"
	"Exit status: compare's (0, or 2 with --strict on an unfair difference), 1 a run\n"
	"or a restore failed, 2 bad usage, 4 some run finished flagged, 5 --fail-on\n"
	"matched, 130 interrupted.\n";

extern const struct ul_cmd ul_cmd_desc_sweep;

/* The -o settings, as given (ITEM.NAME=V1,V2,...). */
struct item_settings {
	const char *arg[SWEEP_MAX_SETTINGS];
	size_t n;
};

struct sweep_args {
	int repeat;
	struct item_settings items;
	struct ul_decide_args decide;
};

/* -o ITEM.NAME=V1,V2,...: collected; parse_item_setting() checks each. */
static int collect_item(void *base, const char *arg, char *err, size_t errlen)
{
	struct item_settings *it = base;

	if (it->n == SWEEP_MAX_SETTINGS) {
		snprintf(err, errlen, "at most %d -o settings", SWEEP_MAX_SETTINGS);
		return -ERANGE;
	}
	it->arg[it->n++] = arg;
	return 0;
}

#define A(member) UL_OPT_AT(struct sweep_args, member)
static const struct ul_opt sweep_opts[] = {
	{ "repeat", UL_OPT_COUNT, 1, 1000, 1, "runs of each combination, interleaved", .arg = "N",
	  A(repeat) },
	{ "option", UL_OPT_CALL, .short_name = 'o', .arg = "ITEM.NAME=V1,V2,...", A(items),
	  .set = collect_item, .help = "sweep a load's or probe's option (the run's -o)" },
	UL_DECIDE_OPTS(struct sweep_args, decide),
	{ NULL },
};
#undef A

struct setting {
	char name[64];	     /* "vm.swappiness", "iosched", "cpus", "mem-limit", "resp.cpu-work" */
	const char *run_opt; /* "--cpus" or "-o" for a run argument; NULL for a system setting */
	const char *kind;    /* the journal kind of a system setting: "sysctl", "iosched" */
	char disk[UL_IOSCHED_NAME_MAX]; /* iosched: the disk under the run's --dir */
	char expect[96];		/* compare --expect patterns for it */
	char buf[512];
	const char *values[SWEEP_MAX_VALUES];
	size_t n_values;
	char saved[160]; /* "NAME ORIGINAL" once journalled, "" before */
};

struct sweep {
	struct setting set[SWEEP_MAX_SETTINGS];
	size_t n_set, n_combos;
	int repeat;
	struct ul_decide_args decide;
	char **run_args; /* "run" ARGS... */
	int n_run_args;
	const char *db;	 /* the runs' --db, for compare */
	const char *dir; /* the runs' --dir, for iosched */
	char exe[PATH_MAX];
	struct ul_journal journal;
	char labels[SWEEP_MAX_RUNS][128];
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

/* The run options a setting becomes, and what compare may see differ. */
static const struct run_setting {
	const char *name, *run_opt, *expect;
} run_settings[] = {
	{ "cpus", "--cpus", "cpu.cpus,CPU count" },
	{ "mem-limit", "--mem-limit", "memory limit,memory budget" },
};

/* "NAME=V1,V2" into s; UL_EXIT_USAGE after printing why. */
static int parse_setting(const char *arg, struct setting *s)
{
	const char *eq = strchr(arg, '=');
	const struct run_setting *known = NULL;
	char *save = NULL, *tok, list[512];

	memset(s, 0, sizeof(*s));
	if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof(s->name) ||
	    strlen(eq) >= sizeof(s->buf))
		return ul_usage_error("sweep", "'%s' is not SETTING=V1,V2,...", arg);
	snprintf(s->name, sizeof(s->name), "%.*s", (int)(eq - arg), arg);
	for (size_t i = 0; i < UL_ARRAY_SIZE(run_settings); i++)
		if (!strcmp(s->name, run_settings[i].name))
			known = &run_settings[i];
	/* Copied after the loop: gcc 12's -Warray-bounds, with the sanitizers
	 * on, mistook a copy inside it for one out of bounds. */
	if (known) {
		s->run_opt = known->run_opt;
		snprintf(s->expect, sizeof(s->expect), "%s", known->expect);
	}
	if (!s->run_opt && !strcmp(s->name, "iosched")) {
		s->kind = "iosched";
		snprintf(s->expect, sizeof(s->expect), "storage.io_scheduler");
	} else if (!s->run_opt) {
		s->kind = "sysctl";
		if (!ul_sysctl_allowed(s->name)) {
			ul_sysctl_allow_list(list, sizeof(list));
			return ul_usage_error("sweep",
					      "'%s' is not a setting a sweep may change (sysctls: "
					      "%s, where present; or iosched, cpus, mem-limit)",
					      s->name, list);
		}
		/* From arg, not s->name: gcc 12's -Wrestrict, once run_decided()
		 * changed what is inlined, took the two members for one object. */
		snprintf(s->expect, sizeof(s->expect), "sysctl.%.*s", (int)(eq - arg), arg);
	}
	snprintf(s->buf, sizeof(s->buf), "%s", eq + 1);
	for (tok = strtok_r(s->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->n_values == SWEEP_MAX_VALUES)
			return ul_usage_error("sweep", "at most %d values for %s", SWEEP_MAX_VALUES,
					      s->name);
		if (s->kind && !strcmp(s->kind, "sysctl") && !ul_sysctl_value_ok(tok))
			return ul_usage_error("sweep", "%s=%s: a sysctl value must be an integer",
					      s->name, tok);
		if (s->kind && !strcmp(s->kind, "iosched") && !ul_iosched_name_ok(tok))
			return ul_usage_error("sweep", "iosched=%s: not a scheduler name", tok);
		s->values[s->n_values++] = tok;
	}
	if (!s->n_values)
		return ul_usage_error("sweep", "%s: no value", s->name);
	return 0;
}

/* -o's "ITEM.NAME=V1,V2" into s, each value checked as run would check
 * it; UL_EXIT_USAGE after printing why. */
static int parse_item_setting(const char *arg, struct setting *s)
{
	const char *eq = strchr(arg, '=');
	char *save = NULL, *tok, one[256], why[256];

	memset(s, 0, sizeof(*s));
	if (!eq || eq == arg || !memchr(arg, '.', (size_t)(eq - arg)) ||
	    (size_t)(eq - arg) >= sizeof(s->name) || strlen(eq) >= sizeof(s->buf))
		return ul_usage_error("sweep", "-o '%s' is not ITEM.NAME=V1,V2,...", arg);
	snprintf(s->name, sizeof(s->name), "%.*s", (int)(eq - arg), arg);
	s->run_opt = "-o";
	snprintf(s->expect, sizeof(s->expect), "probe options,load options");
	snprintf(s->buf, sizeof(s->buf), "%s", eq + 1);
	for (tok = strtok_r(s->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->n_values == SWEEP_MAX_VALUES)
			return ul_usage_error("sweep", "at most %d values for %s", SWEEP_MAX_VALUES,
					      s->name);
		snprintf(one, sizeof(one), "%s=%s", s->name, tok);
		if (ul_run_item_option_check(one, why, sizeof(why)))
			return ul_usage_error("sweep", "-o %s", why);
		s->values[s->n_values++] = tok;
	}
	if (!s->n_values)
		return ul_usage_error("sweep", "%s: no value", s->name);
	return 0;
}

/* Does run argument i set the -o option `name` (-o NAME=, -oNAME=,
 * --option NAME=, --option=NAME=)? */
static bool sets_item(char **args, int n, int i, const char *name)
{
	size_t len = strlen(name);
	const char *v = NULL;

	if ((!strcmp(args[i], "-o") || !strcmp(args[i], "--option")) && i + 1 < n)
		v = args[i + 1];
	else if (!strncmp(args[i], "--option=", 9))
		v = args[i] + 9;
	else if (!strncmp(args[i], "-o", 2) && args[i][2])
		v = args[i] + 2;
	return v && !strncmp(v, name, len) && v[len] == '=';
}

/* The run arguments: "run" first; --label and the swept options are the
 * sweep's; --db is remembered for compare. */
static int check_run_args(struct sweep *sw)
{
	if (sw->n_run_args < 1 || strcmp(sw->run_args[0], "run"))
		return ul_usage_error("sweep", "expected '-- run ARGS...' after the settings");
	for (int i = 1; i < sw->n_run_args; i++) {
		const char *a = sw->run_args[i];

		if (!strcmp(a, "--label") || !strncmp(a, "--label=", 8) || !strncmp(a, "-l", 2))
			return ul_usage_error("sweep", "the sweep labels its runs: no --label");
		for (size_t s = 0; s < sw->n_set; s++)
			if (sw->set[s].run_opt && !strcmp(sw->set[s].run_opt, "-o")) {
				if (sets_item(sw->run_args, sw->n_run_args, i, sw->set[s].name))
					return ul_usage_error("sweep",
							      "-o %s is swept: not in the run's "
							      "arguments too",
							      sw->set[s].name);
			} else if (sw->set[s].run_opt &&
				   !strncmp(a, sw->set[s].run_opt, strlen(sw->set[s].run_opt)))
				return ul_usage_error("sweep",
						      "%s is swept: not in the run's "
						      "arguments too",
						      sw->set[s].run_opt);
		if (!strcmp(a, "--db") && i + 1 < sw->n_run_args)
			sw->db = sw->run_args[i + 1];
		else if (!strncmp(a, "--db=", 5))
			sw->db = a + 5;
		else if (!strcmp(a, "--dir") && i + 1 < sw->n_run_args)
			sw->dir = sw->run_args[i + 1];
		else if (!strncmp(a, "--dir=", 6))
			sw->dir = a + 6;
	}
	return 0;
}

/* The value index of setting s in combination k (mixed radix, first fastest). */
static size_t value_of(const struct sweep *sw, size_t k, size_t s)
{
	for (size_t i = 0; i < s; i++)
		k /= sw->set[i].n_values;
	return k % sw->set[s].n_values;
}

/* A combination whose label an earlier one has (a value given twice: an
 * A/A) is labelled LABEL#2, LABEL#3 ..., as vm labels an image given twice.
 * 0, or -1 when that does not fit. */
static int repeat_label(struct sweep *sw, size_t k)
{
	size_t same = 0, len = strlen(sw->labels[k]);

	for (size_t j = 0; j < k; j++)
		same += !strncmp(sw->labels[j], sw->labels[k], len) &&
			(sw->labels[j][len] == '\0' || sw->labels[j][len] == '#');
	if (!same)
		return 0;
	if (len + 12 > sizeof(sw->labels[k]))
		return -1;
	snprintf(sw->labels[k] + len, sizeof(sw->labels[k]) - len, "#%zu", same + 1);
	return 0;
}

static int plan(struct sweep *sw)
{
	sw->n_combos = 1;
	for (size_t s = 0; s < sw->n_set; s++) {
		sw->n_combos *= sw->set[s].n_values;
		if (sw->n_combos > SWEEP_MAX_RUNS)
			return ul_usage_error("sweep", "more than %d combinations", SWEEP_MAX_RUNS);
	}
	for (size_t k = 0; k < sw->n_combos; k++) {
		size_t off = 0;

		for (size_t s = 0; s < sw->n_set; s++) {
			const struct setting *st = &sw->set[s];

			off += (size_t)snprintf(sw->labels[k] + off, sizeof(sw->labels[k]) - off,
						"%s%s=%s", s ? "," : "", st->name,
						st->values[value_of(sw, k, s)]);
			if (off >= sizeof(sw->labels[k]))
				return ul_usage_error("sweep", "label of combination %zu too long",
						      k + 1);
		}
		if (repeat_label(sw, k))
			return ul_usage_error("sweep", "label of combination %zu too long", k + 1);
		if (ul_label_check("sweep", "label", sw->labels[k]))
			return UL_EXIT_USAGE;
	}
	return 0;
}

/* The disk whose scheduler iosched sets: the one under the runs' --dir,
 * which must offer every value.  0, UL_EXIT_USAGE or UL_EXIT_ERROR. */
static int find_disk(struct sweep *sw, struct setting *st)
{
	const char *dir = sw->dir ? sw->dir : UL_RUN_DEFAULT_DIR;
	char why[512], cur[UL_IOSCHED_NAME_MAX], offered[256];

	if (ul_iosched_disk(dir, st->disk, sizeof(st->disk), why, sizeof(why)))
		return ul_error("sweep: iosched: %s", why), UL_EXIT_ERROR;
	if (ul_iosched_read(st->disk, cur, sizeof(cur), offered, sizeof(offered)))
		return ul_error("sweep: iosched: cannot read the scheduler of %s", st->disk),
		       UL_EXIT_ERROR;
	for (size_t v = 0; v < st->n_values; v++)
		if (!ul_iosched_offered(st->disk, st->values[v]))
			return ul_usage_error("sweep", "iosched=%s: %s (under %s) offers only: %s",
					      st->values[v], st->disk, dir, offered);
	fprintf(stderr, "sweep: iosched is the scheduler of %s (under %s), now %s\n", st->disk, dir,
		cur);
	return 0;
}

/* Read, journal and set one system setting (st->saved is set once saved). */
static int set_one(struct sweep *sw, struct setting *st, const char *v)
{
	bool io = !strcmp(st->kind, "iosched");
	char why[256];
	int rc;

	if (!st->saved[0]) {
		rc = io ? ul_change_iosched_save(&sw->journal, st->disk, st->saved,
						 sizeof(st->saved), why, sizeof(why))
			: ul_change_sysctl_save(&sw->journal, st->name, st->saved,
						sizeof(st->saved), why, sizeof(why));
		if (rc) {
			st->saved[0] = '\0';
			return ul_error("sweep: %s", why);
		}
	}
	rc = io ? ul_iosched_write(st->disk, v) : ul_sysctl_write(st->name, v);
	if (rc)
		return ul_error_errno(rc, "sweep: cannot set %s%s%s to %s", st->name,
				      io ? " of " : "", io ? st->disk : "", v);
	return 0;
}

/* Combination k's system settings, each journalled before its first change. */
static int apply(struct sweep *sw, size_t k)
{
	for (size_t s = 0; s < sw->n_set; s++)
		if (sw->set[s].kind &&
		    set_one(sw, &sw->set[s], sw->set[s].values[value_of(sw, k, s)]))
			return -1;
	return 0;
}

/* Every system setting back to its original, in reverse order; 0 or -1. */
static int restore(struct sweep *sw)
{
	int ret = 0;

	for (size_t s = sw->n_set; s-- > 0;) {
		struct setting *st = &sw->set[s];
		int rc;

		if (!st->saved[0])
			continue;
		rc = ul_change_undo(&sw->journal, st->kind, st->saved);
		if (rc) {
			ret = ul_error_errno(
				rc, "sweep: cannot restore %s %s (run 'underload cleanup')",
				st->kind, st->saved);
			continue;
		}
		fprintf(stderr, "sweep: %s%s%s restored to %s\n", st->name,
			st->disk[0] ? " of " : "", st->disk, strchr(st->saved, ' ') + 1);
		st->saved[0] = '\0';
	}
	return ret;
}

/* Run argv in a child of its own process group that dies with us; its
 * wait status, or -1.  A signal we catch is forwarded to it once. */
static int run_child(const struct sweep *sw, char **argv)
{
	pid_t pid = fork();
	int status;
	bool forwarded = false;

	if (pid < 0)
		return ul_error_errno(errno, "sweep: cannot fork");
	if (pid == 0) {
		setpgid(0, 0);
		if (prctl(PR_SET_PDEATHSIG, SIGTERM) < 0 || getppid() == 1)
			_exit(126);
		execv(sw->exe, argv);
		_exit(127);
	}
	setpgid(pid, pid);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR)
			return ul_error_errno(errno, "sweep: cannot wait for the run");
		if (stop_signal && !forwarded) {
			kill(pid, SIGINT);
			forwarded = true;
		}
	}
	return status;
}

/* argv for combination k: run ARGS --label L [--cpus V ...]; NULL-terminated. */
static char **child_argv(const struct sweep *sw, size_t k, char **out, size_t max)
{
	size_t n = 0;

	out[n++] = (char *)"underload";
	for (int i = 0; i < sw->n_run_args && n + 2 * sw->n_set + 4 < max; i++)
		out[n++] = sw->run_args[i];
	out[n++] = (char *)"--label";
	out[n++] = (char *)sw->labels[k];
	static char item_arg[SWEEP_MAX_SETTINGS][320]; /* -o's NAME=VALUE, until exec */

	for (size_t s = 0; s < sw->n_set; s++)
		if (sw->set[s].run_opt) {
			const char *v = sw->set[s].values[value_of(sw, k, s)];

			out[n++] = (char *)sw->set[s].run_opt;
			if (!strcmp(sw->set[s].run_opt, "-o")) {
				snprintf(item_arg[s], sizeof(item_arg[s]), "%s=%s", sw->set[s].name,
					 v);
				v = item_arg[s];
			}
			out[n++] = (char *)v;
		}
	out[n] = NULL;
	return out;
}

/* One run of combination k, its settings applied: UL_EXIT_OK,
 * UL_EXIT_FLAGGED, or the failure (UL_EXIT_INTERRUPTED, UL_EXIT_ERROR). */
static int run_combo(struct sweep *sw, size_t k)
{
	char *argv[256];
	int st, code;

	if (stop_signal)
		return UL_EXIT_INTERRUPTED;
	if (apply(sw, k))
		return UL_EXIT_ERROR;
	st = run_child(sw, child_argv(sw, k, argv, UL_ARRAY_SIZE(argv)));
	if (st < 0)
		return UL_EXIT_ERROR;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (stop_signal || code == UL_EXIT_INTERRUPTED)
		return UL_EXIT_INTERRUPTED;
	if (code != UL_EXIT_OK && code != UL_EXIT_FLAGGED) {
		ul_error("sweep: the run %s failed (exit %d): the sweep stops", sw->labels[k],
			 code);
		return UL_EXIT_ERROR;
	}
	return code;
}

/* Every run, interleaved: UL_EXIT_OK, UL_EXIT_FLAGGED, or the failure. */
static int run_all(struct sweep *sw)
{
	int ret = UL_EXIT_OK;

	for (int r = 0; r < sw->repeat; r++)
		for (size_t k = 0; k < sw->n_combos; k++) {
			int code;

			fprintf(stderr, "sweep: round %d/%d, run %zu/%zu: %s\n", r + 1, sw->repeat,
				k + 1, sw->n_combos, sw->labels[k]);
			code = run_combo(sw, k);
			if (code == UL_EXIT_FLAGGED)
				ret = UL_EXIT_FLAGGED;
			else if (code != UL_EXIT_OK)
				return code;
		}
	return ret;
}

/* --until-decided: one run of side 0 or 1 (decide.h's run_side). */
static int decide_side(void *ctx, int side)
{
	struct sweep *sw = ctx;

	fprintf(stderr, "sweep: run: %s\n", sw->labels[side]);
	return run_combo(sw, (size_t)side);
}

/* --until-decided: pairs until every test is decided (cmd/decide.h). */
static int run_decided(struct sweep *sw)
{
	struct ul_decide d = { .cmd = "sweep",
			       .db = sw->db,
			       .labels = { sw->labels[0], sw->labels[1] },
			       .a = sw->decide,
			       .run_side = decide_side,
			       .ctx = sw };

	return ul_decide_run(&d);
}

/* compare LABEL... --expect PATTERNS [--db DB]: its exit code. */
static int compare(struct sweep *sw)
{
	char *argv[SWEEP_MAX_RUNS + 8], expect[512];
	size_t n = 0, off = 0;
	int st;

	argv[n++] = (char *)"underload";
	argv[n++] = (char *)"compare";
	for (size_t k = 0; k < sw->n_combos; k++)
		argv[n++] = sw->labels[k];
	for (size_t s = 0; s < sw->n_set && off < sizeof(expect); s++)
		off += (size_t)snprintf(expect + off, sizeof(expect) - off, "%s%s", s ? "," : "",
					sw->set[s].expect);
	argv[n++] = (char *)"--expect";
	argv[n++] = expect;
	if (sw->decide.fail_on) {
		argv[n++] = (char *)"--fail-on";
		argv[n++] = (char *)sw->decide.fail_on;
	}
	if (sw->db) {
		argv[n++] = (char *)"--db";
		argv[n++] = (char *)sw->db;
	}
	argv[n] = NULL;
	fflush(stdout);
	st = run_child(sw, argv);
	if (st < 0)
		return UL_EXIT_ERROR;
	return WIFEXITED(st) ? WEXITSTATUS(st) : UL_EXIT_ERROR;
}

/* The machine-wide sweep lock when system settings are swept (held until
 * exit, never inherited by the runs): an abstract socket name, which the
 * kernel lets one socket of the network namespace bind.  0, or
 * UL_EXIT_ERROR after printing why. */
static int lock_settings(const struct sweep *sw)
{
	struct sockaddr_un addr;
	bool any = false;
	int fd;

	for (size_t s = 0; s < sw->n_set; s++)
		any |= sw->set[s].kind != NULL;
	if (!any)
		return 0;
	memset(&addr, 0, sizeof(addr));
	addr.sun_family = AF_UNIX;
	memcpy(addr.sun_path + 1, SWEEP_LOCK, strlen(SWEEP_LOCK)); /* sun_path[0] = 0: abstract */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return ul_error_errno(errno, "sweep: cannot make the sweep lock"), UL_EXIT_ERROR;
	if (bind(fd, (struct sockaddr *)&addr,
		 (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(SWEEP_LOCK))) <
	    0) {
		int err = errno;

		close(fd);
		if (err != EADDRINUSE)
			return ul_error_errno(err, "sweep: cannot take the sweep lock"),
			       UL_EXIT_ERROR;
		return ul_error("sweep: another sweep is changing system settings (the lock "
				"@%s is held); one at a time, or the second would restore the "
				"first's values",
				SWEEP_LOCK),
		       UL_EXIT_ERROR;
	}
	return 0; /* the socket stays open: the lock ends with this process */
}

/* SIGINT, SIGTERM and SIGHUP stop the sweep (handled, not fatal). */
static void catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
}

static int parse(struct sweep *sw, int argc, char **argv)
{
	struct sweep_args a;
	int dd = 0, first, rc;

	for (int i = 1; i < argc && !dd; i++)
		if (!strcmp(argv[i], "--"))
			dd = i;
	if (!dd && argc > 1 && strcmp(argv[1], "-h") && strcmp(argv[1], "--help"))
		return ul_usage_error("sweep", "expected '-- run ARGS...' after the settings");
	rc = ul_cmd_parse(&ul_cmd_desc_sweep, &a, dd ? dd : argc, argv, &first);
	if (rc)
		return rc;
	if (!dd)
		return ul_usage_error("sweep", "expected '-- run ARGS...' after the settings");
	sw->repeat = a.repeat;
	sw->decide = a.decide;
	for (int i = first; i < dd; i++) {
		if (sw->n_set == SWEEP_MAX_SETTINGS)
			return ul_usage_error("sweep", "at most %d settings", SWEEP_MAX_SETTINGS);
		rc = parse_setting(argv[i], &sw->set[sw->n_set++]);
		if (rc)
			return rc;
		for (size_t s = 0; s + 1 < sw->n_set; s++)
			if (!strcmp(sw->set[s].name, sw->set[sw->n_set - 1].name))
				return ul_usage_error("sweep", "%s named twice", argv[i]);
	}
	for (size_t i = 0; i < a.items.n; i++) {
		if (sw->n_set == SWEEP_MAX_SETTINGS)
			return ul_usage_error("sweep", "at most %d settings", SWEEP_MAX_SETTINGS);
		rc = parse_item_setting(a.items.arg[i], &sw->set[sw->n_set++]);
		if (rc)
			return rc;
		for (size_t s = 0; s + 1 < sw->n_set; s++)
			if (!strcmp(sw->set[s].name, sw->set[sw->n_set - 1].name))
				return ul_usage_error("sweep", "%s named twice",
						      sw->set[sw->n_set - 1].name);
	}
	if (!sw->n_set)
		return ul_usage_error("sweep", "no SETTING=V1,V2,... given");
	sw->run_args = argv + dd + 1;
	sw->n_run_args = argc - dd - 1;
	if ((rc = check_run_args(sw)) || (rc = plan(sw)) ||
	    (rc = ul_decide_check("sweep", &sw->decide, sw->n_combos)))
		return rc;
	if (sw->decide.until_decided && sw->repeat != 1)
		return ul_usage_error("sweep", "--until-decided chooses the runs: no --repeat");
	return 0;
}

int ul_cmd_sweep(int argc, char **argv);
int ul_cmd_sweep(int argc, char **argv)
{
	static struct sweep sw;
	ssize_t n;
	int rc, ret;

	memset(&sw, 0, sizeof(sw));
	sw.journal.fd = -1;
	rc = parse(&sw, argc, argv);
	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : rc;
	n = readlink("/proc/self/exe", sw.exe, sizeof(sw.exe) - 1);
	if (n < 0)
		return ul_error_errno(errno, "cannot find this program's path"), UL_EXIT_ERROR;
	sw.exe[n] = '\0';
	if (lock_settings(&sw))
		return UL_EXIT_ERROR;
	for (size_t s = 0; s < sw.n_set; s++)
		if (sw.set[s].kind && !strcmp(sw.set[s].kind, "iosched") &&
		    (rc = find_disk(&sw, &sw.set[s])))
			return rc;
	rc = ul_journal_open(&sw.journal);
	if (rc) {
		ul_error_errno(rc, "sweep: cannot open the journal of system changes");
		return UL_EXIT_ERROR;
	}
	catch_signals();
	ret = sw.decide.until_decided ? run_decided(&sw) : run_all(&sw);
	if (restore(&sw))
		ret = UL_EXIT_ERROR;
	ul_journal_finish(&sw.journal);
	if (ret == UL_EXIT_INTERRUPTED)
		ul_note("sweep interrupted; every setting is restored");
	if (ret != UL_EXIT_OK && ret != UL_EXIT_FLAGGED)
		return ret;
	if (sw.decide.until_decided)
		return ret; /* its result is printed; compare LABELS shows the rest */
	rc = compare(&sw);
	return rc == UL_EXIT_OK ? ret : rc;
}

const struct ul_cmd ul_cmd_desc_sweep = {
	.name = "sweep",
	.summary = "runs over settings (sysctls, iosched, cpus, mem-limit), restored, then compare",
	.help = sweep_help,
	.opts = sweep_opts,
	.epilog = sweep_epilog,
	.fn = ul_cmd_sweep,
};
