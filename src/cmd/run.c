/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload run [SUITE...]`: parse and validate every option up front
 * (bad input never starts a load), open the store, hand a validated
 * configuration to the engine, then print the stored run.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/sysinfo.h"
#include "cmd/contest_opts.h"
#include "engine/engine.h"
#include "load/load.h"
#include "probe/deadline.h"
#include "probe/probe.h"
#include "report/format.h"
#include "store/store.h"
#include "ul_config.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define DEFAULT_SCRATCH_PARENT "/var/tmp"

static const char run_help[] =
	"usage: underload run [options] [SUITE...]\n"
	"\n"
	"Run suites (default: resp) and store every raw sample.\n"
	"\n"
	"  --label TEXT           name for this kernel/setting (default: uname -r)\n"
	"  --db PATH              results database (default: $XDG_DATA_HOME/underload/results.db)\n"
	"  --format LIST          outputs, e.g. text,resp1,json=FILE (default: each suite's\n"
	"                         seed table, then text: resp1,text for resp)\n"
	"  --tests LIST           only these tests (loads), e.g. noload,cpuload\n"
	"  --interval DURATION    think time before each sample (default: 20s)\n"
	"  --min-points N         fewest samples per test (default: 5)\n"
	"  --max-points N         most samples per test (default: 20)\n"
	"  --ci-target PCT        stop early once the median's 95% CI half-width is within\n"
	"                         PCT of the median (default: 10%)\n"
	"  --sample-timeout DUR   a sample taking longer fails its test (default: 10m)\n"
	"  --dir PATH             parent of the private scratch directory (default: /var/tmp)\n"
	"  --disk-reserve SIZE    free space disk loads always leave (default: 1G)\n"
	"  --mem-limit SIZE       run probe and loads in a memory cgroup of this size; it\n"
	"                         becomes the memory budget loads size against (default: none,\n"
	"                         the budget is MemTotal)\n"
	"  --swap SIZE            a swap file of this size for the run, in the scratch\n"
	"                         directory, at priority 32767; removed at the end\n"
	"  --monitor-interval DUR  /proc sampler period, 0 = off (default: 1s)\n"
	"  --deadline PROFILE     a periodic deadline probe alongside: audio (20 Hz, 5%),\n"
	"                         video (60 Hz, 40%), audio-50hz (50 Hz, 5%),\n"
	"                         PERIOD:WORK (e.g. 10ms:2ms or 20ms:5%) or none\n"
	"                         (default: none; audio for mtest and the deadline suite)\n"
	"  --deadline-rt          run that probe SCHED_FIFO when permitted\n"
	"  --runs N               mtest runs (default: 10); contest rounds (default: 1)\n"
	"  --mtest-target PCT|SIZE  what each mtest run allocates: a share of budget +\n"
	"                         free swap, or a size (default: 80%)\n"
	"  --mtest-chunk SIZE     mtest's allocation size (default: 1M)\n"
	"  -o, --option ITEM.NAME=VALUE\n"
	"                         set a load or probe option (see 'underload list loads -v')\n"
	"  --quick                short profile: --interval 1s --min-points 5 --max-points 8,\n"
	"                         memory loads and budget-sized files capped at 512M\n"
	"                         (explicit --interval and --*-points win)\n"
	"  --progress, --no-progress  progress on stderr (default: when stderr is a terminal)\n"
	UL_CONTEST_HELP
	"  -h, --help             this help\n"
	"\n"
	"Exit status: 0 ok, 1 error, 2 bad usage, 3 nothing could run here,\n"
	"4 finished but some test failed (load died, probe failed), 130 interrupted.\n";

enum {
	OPT_LABEL = 256,
	OPT_DB,
	OPT_FORMAT,
	OPT_TESTS,
	OPT_INTERVAL,
	OPT_MIN_POINTS,
	OPT_MAX_POINTS,
	OPT_CI_TARGET,
	OPT_SAMPLE_TIMEOUT,
	OPT_DIR,
	OPT_DISK_RESERVE,
	OPT_MEM_LIMIT,
	OPT_SWAP,
	OPT_MONITOR_INTERVAL,
	OPT_DEADLINE,
	OPT_DEADLINE_RT,
	OPT_RUNS,
	OPT_MTEST_TARGET,
	OPT_MTEST_CHUNK,
	OPT_QUICK,
	OPT_PROGRESS,
	OPT_NO_PROGRESS,
};

static const struct option run_options[] = {
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "db", required_argument, NULL, OPT_DB },
	{ "format", required_argument, NULL, OPT_FORMAT },
	{ "tests", required_argument, NULL, OPT_TESTS },
	{ "interval", required_argument, NULL, OPT_INTERVAL },
	{ "min-points", required_argument, NULL, OPT_MIN_POINTS },
	{ "max-points", required_argument, NULL, OPT_MAX_POINTS },
	{ "ci-target", required_argument, NULL, OPT_CI_TARGET },
	{ "sample-timeout", required_argument, NULL, OPT_SAMPLE_TIMEOUT },
	{ "dir", required_argument, NULL, OPT_DIR },
	{ "disk-reserve", required_argument, NULL, OPT_DISK_RESERVE },
	{ "mem-limit", required_argument, NULL, OPT_MEM_LIMIT },
	{ "swap", required_argument, NULL, OPT_SWAP },
	{ "option", required_argument, NULL, 'o' },
	{ "monitor-interval", required_argument, NULL, OPT_MONITOR_INTERVAL },
	{ "deadline", required_argument, NULL, OPT_DEADLINE },
	{ "deadline-rt", no_argument, NULL, OPT_DEADLINE_RT },
	{ "runs", required_argument, NULL, OPT_RUNS },
	{ "mtest-target", required_argument, NULL, OPT_MTEST_TARGET },
	{ "mtest-chunk", required_argument, NULL, OPT_MTEST_CHUNK },
	{ "quick", no_argument, NULL, OPT_QUICK },
	{ "progress", no_argument, NULL, OPT_PROGRESS },
	{ "no-progress", no_argument, NULL, OPT_NO_PROGRESS },
	UL_CONTEST_LONG_OPTIONS
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct run_args {
	const char *label, *db, *formats, *tests, *dir;
	bool quick;
	int progress; /* -1 auto */
	bool set_interval, set_min, set_max;
	struct ul_engine_config cfg;
	struct ul_contest_opts contest;
	const struct ul_suite *suites[16];
	size_t n_suites;
	char tests_buf[1024];
};

/* MemTotal, the largest sensible --mem-limit (1T if unreadable). */
static uint64_t mem_total(void)
{
	struct ul_meminfo mi;

	return ul_meminfo_read(&mi) == 0 ? mi.total : UL_GiB * 1024;
}

static int bad_value(const char *opt, const char *val, int rc, const char *accepted)
{
	return ul_usage_error("run", "%s value '%s' for %s: expected %s",
			      rc == -ERANGE ? "out-of-range" : "invalid", val, opt, accepted);
}

/* Options of the monitors and of the mtest and deadline suites. */
static int set_monitor_option(int c, const char *arg, struct ul_engine_config *cfg)
{
	struct ul_deadline_spec spec;
	char err[160];
	uint64_t size;
	int64_t v;
	int rc;

	switch (c) {
	case OPT_MONITOR_INTERVAL:
		rc = ul_parse_duration_ns(arg, 0, 3600 * UL_NS_PER_SEC, &v);
		if (rc || (v > 0 && v < 10 * UL_NS_PER_MS))
			return bad_value("--monitor-interval", arg, rc ? rc : -ERANGE,
					 "0 (off) or a duration from 10ms to 1h");
		cfg->monitor_interval_ns = v;
		return 0;
	case OPT_DEADLINE:
		cfg->deadline_off = !strcmp(arg, "none");
		cfg->deadline_period_ns = cfg->deadline_work_ns = 0;
		if (cfg->deadline_off)
			return 0;
		rc = ul_deadline_parse(arg, &spec, err, sizeof(err));
		if (rc)
			return ul_usage_error("run", "invalid value '%s' for --deadline: %s", arg, err);
		cfg->deadline_period_ns = spec.period_ns;
		cfg->deadline_work_ns = spec.work_ns;
		snprintf(cfg->deadline_profile, sizeof(cfg->deadline_profile), "%s", spec.name);
		return 0;
	case OPT_DEADLINE_RT:
		cfg->deadline_rt = true;
		return 0;
	case OPT_RUNS:
		rc = ul_parse_count(arg, 1, 10000, &v);
		if (rc)
			return bad_value("--runs", arg, rc, "a count from 1 to 10000");
		cfg->mtest_runs = (int)v;
		return 0;
	case OPT_MTEST_TARGET:
		cfg->mtest_target_centi = 0;
		cfg->mtest_target_bytes = 0;
		if (*arg && arg[strlen(arg) - 1] == '%')
			rc = ul_parse_pct(arg, 1, 10000, &cfg->mtest_target_centi);
		else
			rc = ul_parse_size(arg, 4 * UL_KiB, UL_GiB * 1024 * 1024, &cfg->mtest_target_bytes);
		if (rc)
			return bad_value("--mtest-target", arg, rc,
					 "a share from 0.01% to 100% or a size from 4K to 1P");
		return 0;
	case OPT_MTEST_CHUNK:
		rc = ul_parse_size(arg, 4 * UL_KiB, UL_GiB, &size);
		if (rc)
			return bad_value("--mtest-chunk", arg, rc, "a size from 4K to 1G");
		cfg->mtest_chunk_bytes = size;
		return 0;
	}
	UL_BUG("option %d is not a monitor option", c);
}

/* -o ITEM.NAME=VALUE against the load and probe option tables. */
static int set_item_option(struct run_args *a, const char *arg)
{
	char item[64], name[64];
	const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');
	char err[256];
	int rc;

	if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1 ||
	    (size_t)(dot - arg) >= sizeof(item) || (size_t)(eq - dot - 1) >= sizeof(name))
		return ul_usage_error("run", "malformed -o '%s': expected ITEM.NAME=VALUE", arg);
	snprintf(item, sizeof(item), "%.*s", (int)(dot - arg), arg);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - dot - 1), dot + 1);
	for (size_t i = 0; i < ul_load_count(); i++) {
		const struct ul_load *l = ul_load_at(i);

		if (strcmp(l->name, item))
			continue;
		rc = ul_opt_set(l->opts, a->cfg.load_opt[i], name, eq + 1, err, sizeof(err));
		if (rc)
			return ul_usage_error("run", "load '%s': %s", item, err);
		return 0;
	}
	for (size_t i = 0; i < ul_probe_count(); i++) {
		const struct ul_probe *p = ul_probe_at(i);

		if (strcmp(p->name, item))
			continue;
		rc = ul_opt_set(p->opts, a->cfg.probe_opt[i], name, eq + 1, err, sizeof(err));
		if (rc)
			return ul_usage_error("run", "probe '%s': %s", item, err);
		return 0;
	}
	return ul_usage_error("run", "unknown load or probe '%s' in -o (see 'underload list loads')",
			      item);
}

static void suite_names(char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < ul_suite_count() && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? ", " : "",
					ul_suite_at(i)->name);
}

/* Split --tests and check each name belongs to a selected suite. */
static int parse_tests(struct run_args *a)
{
	char *save = NULL, *tok;

	snprintf(a->tests_buf, sizeof(a->tests_buf), "%s", a->tests);
	for (tok = strtok_r(a->tests_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool known = false;

		for (size_t s = 0; s < a->n_suites; s++)
			known |= ul_suite_has_test(a->suites[s], tok);
		for (size_t i = 0; i < a->cfg.n_tests; i++)
			if (!strcmp(a->cfg.tests[i], tok))
				return ul_usage_error("run", "test '%s' named twice in --tests", tok);
		if (!known) {
			char names[512];
			size_t off = 0;

			names[0] = '\0';
			for (size_t s = 0; s < a->n_suites; s++)
				for (size_t i = 0; a->suites[s]->default_tests[i]; i++)
					off += (size_t)snprintf(names + off, sizeof(names) - off,
								"%s%s", off ? ", " : "",
								a->suites[s]->default_tests[i]);
			return ul_usage_error("run", "unknown test '%s' in --tests (accepted: %s)",
					      tok, names);
		}
		if (a->cfg.n_tests == UL_MAX_TESTS)
			return ul_usage_error("run", "too many tests in --tests");
		a->cfg.tests[a->cfg.n_tests++] = tok;
	}
	if (!a->cfg.n_tests)
		return ul_usage_error("run", "--tests needs at least one test");
	return 0;
}

static int check_dir(const char *dir)
{
	struct stat st;

	if (stat(dir, &st))
		return ul_usage_error("run", "--dir '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ul_usage_error("run", "--dir '%s': not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return ul_usage_error("run", "--dir '%s': not writable: %s", dir, strerror(errno));
	return 0;
}

static void set_defaults(struct run_args *a)
{
	memset(a, 0, sizeof(*a));
	ul_contest_opts_init(&a->contest);
	a->cfg.contest = &a->contest;
	a->dir = DEFAULT_SCRATCH_PARENT;
	a->progress = -1;
	a->cfg.interval_ns = 20 * UL_NS_PER_SEC;
	a->cfg.min_points = 5;
	a->cfg.max_points = 20;
	a->cfg.ci_target_centi = 1000;
	a->cfg.sample_timeout_ns = 600 * UL_NS_PER_SEC;
	a->cfg.ready_timeout_ns = 60 * UL_NS_PER_SEC;
	a->cfg.stop_grace_ns = 5 * UL_NS_PER_SEC;
	a->cfg.disk_reserve_bytes = UL_GiB;
	a->cfg.swap_priority = 32767; /* used before any swap the host has */
	a->cfg.monitor_interval_ns = UL_NS_PER_SEC;
	for (size_t i = 0; i < ul_load_count(); i++)
		ul_opt_defaults(ul_load_at(i)->opts, a->cfg.load_opt[i]);
	for (size_t i = 0; i < ul_probe_count(); i++)
		ul_opt_defaults(ul_probe_at(i)->opts, a->cfg.probe_opt[i]);
}

static int parse_args(int argc, char **argv, struct run_args *a)
{
	int c, rc;
	int64_t v;
	uint64_t size;

	set_defaults(a);
	optind = 1;
	while ((c = getopt_long(argc, argv, "ho:", run_options, NULL)) != -1) {
		switch (c) {
		case OPT_LABEL:
			if (!*optarg || strlen(optarg) >= sizeof(((struct ul_run *)0)->label))
				return ul_usage_error("run", "--label must be 1 to 127 characters");
			a->label = optarg;
			break;
		case OPT_DB:
			a->db = optarg;
			break;
		case OPT_FORMAT:
			a->formats = optarg;
			break;
		case OPT_TESTS:
			a->tests = optarg;
			break;
		case OPT_INTERVAL:
			rc = ul_parse_duration_ns(optarg, 0, 3600 * UL_NS_PER_SEC, &a->cfg.interval_ns);
			if (rc)
				return bad_value("--interval", optarg, rc, "a duration from 0s to 1h");
			a->set_interval = true;
			break;
		case OPT_MIN_POINTS:
		case OPT_MAX_POINTS:
			rc = ul_parse_count(optarg, 1, 100000, &v);
			if (rc)
				return bad_value(c == OPT_MIN_POINTS ? "--min-points" : "--max-points",
						 optarg, rc, "a count from 1 to 100000");
			if (c == OPT_MIN_POINTS) {
				a->cfg.min_points = (int)v;
				a->set_min = true;
			} else {
				a->cfg.max_points = (int)v;
				a->set_max = true;
			}
			break;
		case OPT_CI_TARGET:
			rc = ul_parse_pct(optarg, 1, 10000, &a->cfg.ci_target_centi);
			if (rc)
				return bad_value("--ci-target", optarg, rc, "a percentage from 0.01% to 100%");
			break;
		case OPT_SAMPLE_TIMEOUT:
			rc = ul_parse_duration_ns(optarg, UL_NS_PER_MS, 24 * 3600 * UL_NS_PER_SEC,
						  &a->cfg.sample_timeout_ns);
			if (rc)
				return bad_value("--sample-timeout", optarg, rc,
						 "a duration from 1ms to 24h");
			break;
		case OPT_DIR:
			a->dir = optarg;
			break;
		case OPT_DISK_RESERVE:
			rc = ul_parse_size(optarg, 0, UL_GiB * 1024 * 1024, &size);
			if (rc)
				return bad_value("--disk-reserve", optarg, rc, "a size from 0 to 1P");
			a->cfg.disk_reserve_bytes = size;
			break;
		case OPT_MEM_LIMIT:
			rc = ul_parse_size(optarg, 16 * UL_MiB, mem_total(), &size);
			if (rc)
				return bad_value("--mem-limit", optarg, rc,
						 "a size from 16M to MemTotal (e.g. 256M)");
			a->cfg.mem_limit_bytes = size;
			break;
		case OPT_SWAP:
			rc = ul_parse_size(optarg, UL_MiB, UL_GiB * 1024, &size);
			if (rc)
				return bad_value("--swap", optarg, rc, "a size from 1M to 1T (e.g. 512M)");
			a->cfg.swap_bytes = size;
			break;
		case 'o':
			rc = set_item_option(a, optarg);
			if (rc)
				return rc;
			break;
		case OPT_MONITOR_INTERVAL:
		case OPT_DEADLINE:
		case OPT_DEADLINE_RT:
		case OPT_RUNS:
		case OPT_MTEST_TARGET:
		case OPT_MTEST_CHUNK:
			rc = set_monitor_option(c, optarg, &a->cfg);
			if (rc)
				return rc;
			break;
		case OPT_QUICK:
			a->quick = true;
			break;
		case OPT_PROGRESS:
			a->progress = 1;
			break;
		case OPT_NO_PROGRESS:
			a->progress = 0;
			break;
		case 'h':
			fputs(run_help, stdout);
			return -2;
		default:
			if (ul_contest_is_opt(c)) {
				rc = ul_contest_parse_opt(c, optarg, &a->contest);
				if (rc)
					return rc;
				break;
			}
			return ul_usage_error("run", "unknown option");
		}
	}
	if (a->quick) {
		if (!a->set_interval)
			a->cfg.interval_ns = UL_NS_PER_SEC;
		if (!a->set_min)
			a->cfg.min_points = 5;
		if (!a->set_max)
			a->cfg.max_points = 8;
		a->cfg.mem_footprint_cap_bytes = 512 * UL_MiB;
		a->contest.quick = true;
	}
	if (a->set_max && !a->set_min && a->cfg.min_points > a->cfg.max_points)
		a->cfg.min_points = a->cfg.max_points;
	if (!a->set_max && a->cfg.max_points < a->cfg.min_points)
		a->cfg.max_points = a->cfg.min_points;
	if (a->cfg.max_points < a->cfg.min_points)
		return ul_usage_error("run", "--max-points (%d) is below --min-points (%d)",
				      a->cfg.max_points, a->cfg.min_points);
	for (int i = optind; i < argc; i++) {
		const struct ul_suite *s = ul_suite_find(argv[i]);
		char names[256];

		if (!s) {
			suite_names(names, sizeof(names));
			return ul_usage_error("run", "unknown suite '%s' (known: %s)", argv[i], names);
		}
		for (size_t j = 0; j < a->n_suites; j++)
			if (a->suites[j] == s)
				return ul_usage_error("run", "suite '%s' named twice", argv[i]);
		if (a->n_suites == UL_ARRAY_SIZE(a->suites))
			return ul_usage_error("run", "too many suites");
		a->suites[a->n_suites++] = s;
	}
	if (!a->n_suites)
		a->suites[a->n_suites++] = ul_suite_find("resp");
	{
		bool contest = false;

		for (size_t i = 0; i < a->n_suites; i++)
			contest |= !strcmp(a->suites[i]->name, "contest");
		rc = ul_contest_check_opts(&a->contest, contest);
		if (rc)
			return rc;
	}
	if (a->tests && (rc = parse_tests(a)))
		return rc;
	rc = check_dir(a->dir);
	if (rc)
		return rc;
	a->cfg.scratch_parent = a->dir;
	a->cfg.progress = a->progress < 0 ? isatty(STDERR_FILENO) : a->progress;
	return 0;
}

static void join_argv(int argc, char **argv, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	off += (size_t)snprintf(buf, len, "underload");
	for (int i = 0; i < argc && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, " %s", argv[i]);
}

static void join_suites(const struct run_args *a, char *buf, size_t len)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t i = 0; i < a->n_suites && off < len; i++)
		off += (size_t)snprintf(buf + off, len - off, "%s%s", i ? "," : "",
					a->suites[i]->name);
}

static int fill_run(const struct run_args *a, int argc, char **argv, struct ul_run *run)
{
	int rc;

	ul_run_init(run);
	rc = ul_run_new_uuid(run);
	if (rc)
		return ul_error_errno(rc, "cannot make a run id");
	rc = ul_host_read(&run->host);
	if (rc)
		return ul_error_errno(rc, "cannot read host facts from /proc");
	snprintf(run->label, sizeof(run->label), "%s", a->label ? a->label : run->host.kernel_release);
	snprintf(run->tool_version, sizeof(run->tool_version), "%s", UL_VERSION);
	join_argv(argc, argv, run->argv, sizeof(run->argv));
	join_suites(a, run->suites, sizeof(run->suites));
	run->params.interval_ns = a->cfg.interval_ns;
	run->params.min_points = a->cfg.min_points;
	run->params.max_points = a->cfg.max_points;
	run->params.ci_target_centi = a->cfg.ci_target_centi;
	run->params.mem_limit_bytes = a->cfg.mem_limit_bytes;
	run->params.swap_bytes = a->cfg.swap_bytes;
	/* The budget memory loads size against: the cgroup limit replaces
	 * the ancestors' mem=96m reboot. */
	run->params.mem_budget_bytes =
		a->cfg.mem_limit_bytes ? a->cfg.mem_limit_bytes : run->host.mem_total_bytes;
	return 0;
}

static int self_exe(char *buf, size_t len)
{
	ssize_t n = readlink("/proc/self/exe", buf, len - 1);

	if (n < 0)
		return ul_error_errno(errno, "cannot find this program's path in /proc/self/exe");
	buf[n] = '\0';
	return 0;
}

static int exit_code(int result)
{
	switch (result) {
	case UL_ENGINE_OK:
		return UL_EXIT_OK;
	case UL_ENGINE_REFUSED:
		return UL_EXIT_USAGE;
	case UL_ENGINE_UNSUPPORTED:
		return UL_EXIT_UNSUPPORTED;
	case UL_ENGINE_FLAGGED:
		return UL_EXIT_FLAGGED;
	case UL_ENGINE_INTERRUPTED:
		return UL_EXIT_INTERRUPTED;
	default:
		return UL_EXIT_ERROR;
	}
}

int ul_cmd_run(int argc, char **argv);
int ul_cmd_run(int argc, char **argv)
{
	static char db_abs[PATH_MAX];
	static struct run_args a; /* large: per-item option arrays */
	struct ul_outputs outs;
	struct ul_store *store = NULL;
	struct ul_run run, stored;
	char db[PATH_MAX], exe[PATH_MAX];
	char ref[32];
	int rc, result;

	rc = parse_args(argc, argv, &a);
	if (rc == -2)
		return UL_EXIT_OK;
	if (rc)
		return UL_EXIT_USAGE;
	if (!a.formats) {
		static char defaults[256];
		char suites[128];

		join_suites(&a, suites, sizeof(suites));
		ul_default_formats(suites, defaults, sizeof(defaults));
		a.formats = defaults;
	}
	if (ul_outputs_parse("run", a.formats, &outs))
		return UL_EXIT_USAGE;
	/* Resolve --db now: a bad one must fail before anything else is done. */
	if (ul_cmd_db_path(a.db, db, sizeof(db)) || self_exe(exe, sizeof(exe)))
		return UL_EXIT_ERROR;
	a.cfg.self_exe = exe;
	if (fill_run(&a, argc - 1, argv + 1, &run))
		return UL_EXIT_ERROR;
	/* db is resolved and not empty, so this only opens it. */
	if (ul_cmd_open_store_rw(db, &store))
		return UL_EXIT_ERROR;
	/* Absolute, for the journal: `cleanup` may run from anywhere. */
	if (strstr(db, "://"))
		a.cfg.store_uri = db;
	else if (realpath(db, db_abs))
		a.cfg.store_uri = db_abs;
	result = ul_engine_run(&a.cfg, store, &run, a.suites, a.n_suites);
	/* Print what the store holds, so `show` reprints exactly this. */
	if (run.id > 0) {
		snprintf(ref, sizeof(ref), "%lld", (long long)run.id);
		ul_run_init(&stored);
		rc = store->ops->load_run(store, ref, &stored);
		if (rc) {
			ul_error("cannot read run %s back: %s", run.uuid, store->err);
			result = UL_ENGINE_ERROR;
		} else {
			if (ul_outputs_write(&outs, &stored))
				result = UL_ENGINE_ERROR;
			ul_run_release(&stored);
		}
	}
	if (run.id > 0 && run.status == UL_RUN_INTERRUPTED)
		ul_note("run %s interrupted; its finished tests are stored", run.uuid);
	ul_run_release(&run);
	ul_store_close(store);
	return exit_code(result);
}

const struct ul_cmd ul_cmd_desc_run = {
	.name = "run",
	.summary = "run suites under load and store the results",
	.help = run_help,
	.fn = ul_cmd_run,
};
