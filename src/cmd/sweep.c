/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload sweep SETTING=V1,V2... [-o ITEM.NAME=V1,V2...] [--repeat N |
 * --until-decided] -- run ARGS...`: one run
 * per combination of the settings' values, interleaved over repetitions
 * (A B A B), each labelled by its setting ("vm.swappiness=10"), then the
 * comparison of those labels with the swept settings as the expected
 * difference.
 *
 * Each run is a child `underload run ARGS --label LABEL` with the setting
 * applied: a sysctl (proc/sysctl.h's allow-list, within its bounds) or the
 * I/O scheduler of --dir's disk (proc/iosched.h, setting "iosched") is
 * journalled with its original value before it first changes
 * (proc/changes.h, kinds "sysctl" and "iosched"), read back after each
 * write, and written back at the end, on a failed run and on any
 * terminating signal; after a kill -9 of the sweep, `underload cleanup`,
 * or the next sweep, writes it back.  cpus and mem-limit become the run's
 * --cpus/--mem-limit, -o ITEM.NAME=V the run's -o.  With --within-run,
 * one run alternates one sysctl between its rounds (run --round-sysctl,
 * engine/round_setting.h) and is split afterwards (sweep_within.c).
 * Files: sweep_args.c (the run's arguments),
 * sweep_settings.c (the system settings, under the settings lock),
 * sweep_child.c (the children and the signals).
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/decide.h"
#include "cmd/run.h"
#include "cmd/sweep.h"
#include "core/log.h"
#include "core/selfexe.h"
#include "core/sysinfo.h"
#include "proc/changes.h"
#include "proc/iosched.h"
#include "proc/journal.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static const char sweep_help[] =
	"One run per combination of the settings' values, interleaved over the\n"
	"repetitions (A B A B), each labelled by its setting (vm.swappiness=10), then\n"
	"the comparison of those labels, the swept settings being the expected\n"
	"difference.  SETTING is a sysctl of the allow-list, each bounded so that no\n"
	"value can take the machine down (vm.swappiness 0-200, vm.dirty_ratio 5-90,\n"
	"vm.dirty_background_ratio 1-80, vm.dirty_expire_centisecs 100-360000,\n"
	"vm.dirty_writeback_centisecs 100-60000, vm.vfs_cache_pressure 10-1000,\n"
	"vm.min_free_kbytes 1024 to 5% of MemTotal and 1048576,\n"
	"vm.watermark_scale_factor 1-1000, vm.page-cluster 0-6,\n"
	"kernel.sched_autogroup_enabled, kernel.sched_child_runs_first and\n"
	"kernel.sched_schedstats 0-1, kernel.sched_cfs_bandwidth_slice_us\n"
	"1000-100000, kernel.sched_rr_timeslice_ms 1-1000), integer values written\n"
	"without leading zeros (the kernel reads 010 as octal 8); iosched, the I/O\n"
	"scheduler of the disk under the run's --dir (the names its\n"
	"/sys/block/DISK/queue/scheduler offers: none, mq-deadline, bfq, kyber);\n"
	"or cpus or mem-limit, which become the run's --cpus and --mem-limit (a value\n"
	"holds no comma: a CPU list in a sweep is a range, 0-1); or with -o a load's or\n"
	"probe's option (-o resp.cpu-work=34000000,37400000), which becomes the run's -o.\n"
	"A value given twice is an A/A: the second's runs are labelled VALUE#2.  Every\n"
	"sysctl and scheduler is journalled before it changes, read back after each\n"
	"write, and written back at the end, after a failed run, on a terminating\n"
	"signal (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGUSR1, ...), and by 'underload\n"
	"cleanup' or the next sweep after a kill -9.  The sweep stops at the first run\n"
	"that fails (exit other than 0 or 4).\n"
	"\n"
	"With --within-run (one sysctl, two values, resp or deadline), one run\n"
	"alternates the value between its rounds, A B B A, and is then split into one\n"
	"run a value, labelled as above; whether that beats alternated whole runs\n"
	"was not settled by two measurements: see underload(1), \"SWEEP\".\n"
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
	bool within_run;
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
	{ "within-run", UL_OPT_FLAG, 0, 1, 0, A(within_run),
	  .help = "one sysctl's two values alternated between the rounds of one run "
		  "(A B B A, 4 rounds a --repeat), then split into one run a value",
	  .man = "One sysctl with exactly two values (an A/A allowed), the suites with\n"
		 "rounds (resp, deadline), no \\-\\-runs in the run's arguments, no\n"
		 "\\-\\-until\\-decided; anything else is refused with exit 2.  See SWEEP." },
	{ "option", UL_OPT_CALL, .short_name = 'o', .arg = "ITEM.NAME=V1,V2,...", A(items),
	  .set = collect_item, .flags = UL_OPTF_REPEATS,
	  .help = "sweep a load's or probe's option (the run's -o)" },
	UL_DECIDE_OPTS(struct sweep_args, decide),
	{ NULL },
};
#undef A

/* The run options a setting becomes, and what compare may see differ. */
static const struct run_setting {
	const char *name, *run_opt, *expect;
} run_settings[] = {
	{ "cpus", "--cpus", "cpu.cpus,CPU count" },
	{ "mem-limit", "--mem-limit", "memory limit,memory budget" },
};

/* "NAME=V1,V2" into s, mem_total_kb the machine's MemTotal for the bounds
 * of sysctls (0: unknown); UL_EXIT_USAGE after printing why. */
static int parse_setting(const char *arg, uint64_t mem_total_kb, struct setting *s)
{
	const char *eq = strchr(arg, '=');
	const struct run_setting *known = NULL;
	char *save = NULL, *tok, list[512], why[256];

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
		if (!ul_sysctl_listed(s->name)) {
			ul_sysctl_allow_list(list, sizeof(list));
			return ul_usage_error("sweep",
					      "'%s' is not a setting a sweep may change (sysctls: "
					      "%s, where present; or iosched, cpus, mem-limit)",
					      s->name, list);
		}
		if (!ul_sysctl_allowed(s->name))
			return ul_usage_error("sweep", "%s: this kernel has no such sysctl",
					      s->name);
		/* From arg, not s->name: gcc 12's -Wrestrict, once run_decided()
		 * changed what is inlined, took the two members for one object. */
		snprintf(s->expect, sizeof(s->expect), "sysctl.%.*s", (int)(eq - arg), arg);
	}
	snprintf(s->buf, sizeof(s->buf), "%s", eq + 1);
	for (tok = strtok_r(s->buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		if (s->n_values == SWEEP_MAX_VALUES)
			return ul_usage_error("sweep", "at most %d values for %s", SWEEP_MAX_VALUES,
					      s->name);
		if (s->kind && !strcmp(s->kind, "sysctl") &&
		    ul_sysctl_value_check(s->name, tok, mem_total_kb, why, sizeof(why)))
			return ul_usage_error("sweep", "%s=%s: %s", s->name, tok, why);
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
						st->values[sweep_value_of(sw, k, s)]);
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

/* argv for combination k: run ARGS --label L [--cpus V ...]; NULL-terminated. */
static char **child_argv(const struct sweep *sw, size_t k, char **out, size_t max)
{
	size_t n = 0;

	out[n++] = (char *)"underload";
	static char points[16]; /* --until-decided's design, until exec */

	for (int i = 0; i < sw->n_run_args && n + 2 * sw->n_set + 8 < max; i++)
		out[n++] = sw->run_args[i];
	if (sw->points > 0) {
		snprintf(points, sizeof(points), "%d", sw->points);
		out[n++] = (char *)"--min-points";
		out[n++] = points;
		out[n++] = (char *)"--max-points";
		out[n++] = points;
	}
	out[n++] = (char *)"--label";
	out[n++] = (char *)sw->labels[k];
	static char item_arg[SWEEP_MAX_SETTINGS][320]; /* -o's NAME=VALUE, until exec */

	for (size_t s = 0; s < sw->n_set; s++)
		if (sw->set[s].run_opt) {
			const char *v = sw->set[s].values[sweep_value_of(sw, k, s)];

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

	if (sweep_stopped())
		return UL_EXIT_INTERRUPTED;
	if (sweep_apply(sw, k))
		return UL_EXIT_ERROR;
	st = sweep_run_child(sw->exe, child_argv(sw, k, argv, UL_ARRAY_SIZE(argv)));
	if (st < 0)
		return UL_EXIT_ERROR;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (sweep_stopped() || code == UL_EXIT_INTERRUPTED)
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

/* --until-decided: the later runs' points a cell (decide.h's set_points). */
static void decide_points(void *ctx, int points)
{
	((struct sweep *)ctx)->points = points;
}

/* --until-decided: pairs until every test is decided (cmd/decide.h). */
static int run_decided(struct sweep *sw)
{
	struct ul_decide d = { .cmd = "sweep",
			       .db = sw->db,
			       .labels = { sw->labels[0], sw->labels[1] },
			       .a = sw->decide,
			       .run_side = decide_side,
			       .set_points = sw->points_given ? NULL : decide_points,
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
	st = sweep_run_child(sw->exe, argv);
	if (st < 0)
		return UL_EXIT_ERROR;
	return WIFEXITED(st) ? WEXITSTATUS(st) : UL_EXIT_ERROR;
}

static int parse(struct sweep *sw, int argc, char **argv)
{
	struct sweep_args a;
	struct ul_meminfo mi;
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
	sw->within_run = a.within_run;
	/* Unknown memory bounds vm.min_free_kbytes to its minimum: safe. */
	if (ul_meminfo_read(&mi))
		mi.total = 0;
	for (int i = first; i < dd; i++) {
		if (sw->n_set == SWEEP_MAX_SETTINGS)
			return ul_usage_error("sweep", "at most %d settings", SWEEP_MAX_SETTINGS);
		rc = parse_setting(argv[i], mi.total / 1024, &sw->set[sw->n_set++]);
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
	if ((rc = sweep_check_run_args(sw)) || (rc = plan(sw)) ||
	    (rc = ul_decide_check("sweep", &sw->decide, sw->n_combos)))
		return rc;
	if (sw->decide.until_decided && sw->repeat != 1)
		return ul_usage_error("sweep", "--until-decided chooses the runs: no --repeat");
	return sw->within_run ? sweep_within_check(sw) : 0;
}

int ul_cmd_sweep(int argc, char **argv);
int ul_cmd_sweep(int argc, char **argv)
{
	static struct sweep sw;
	int rc, ret;

	memset(&sw, 0, sizeof(sw));
	sw.journal.fd = -1;
	sw.lock_fd = -1;
	sw.exe = UL_SELF_EXE;
	rc = parse(&sw, argc, argv);
	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : rc;
	sweep_catch_signals();
	rc = sweep_prepare(&sw);
	if (rc)
		return rc;
	rc = ul_journal_open(&sw.journal);
	if (rc) {
		ul_error_errno(rc, "sweep: cannot open the journal of system changes");
		return UL_EXIT_ERROR;
	}
	ret = sw.within_run		? sweep_within_run(&sw)
	      : sw.decide.until_decided ? run_decided(&sw)
					: run_all(&sw);
	if (sweep_restore(&sw))
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
	.operands = "SETTING=V1,V2,... [SETTING=...] -- run ARGS...",
	.help = sweep_help,
	.opts = sweep_opts,
	.epilog = sweep_epilog,
	.fn = ul_cmd_sweep,
};
