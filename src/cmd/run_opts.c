/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The options of `underload run`, described once: this table gives
 * getopt_long, --help and the man page's RUN OPTIONS; each suite's own
 * options come from its descriptor (model/suite.h) under its heading.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "core/log.h"
#include "core/parse.h"
#include "core/registry.h"
#include "core/sysinfo.h"
#include "engine/monitors/monitor.h"
#include "load/load.h"
#include "probe/probe.h"
#include "proc/cgroup/cpuset.h"
#include "proc/sysctl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* run's option groups, its own two parts, one per monitor with options
 * and one per suite, fit every array of UL_OPT_GROUPS_MAX groups (help,
 * the man page, the parser). */
_Static_assert(2
#define UL_SUITE UL_REGISTRY_ONE
#include "engine/suites/suites.def"
#undef UL_SUITE
#define UL_MONITOR UL_REGISTRY_ONE
#include "engine/monitors/monitors.def"
#undef UL_MONITOR
		       <= UL_OPT_GROUPS_MAX,
	       "suites.def and monitors.def list more than run's option groups hold");

/* --under LIST: registered loads, each once (the suites that take one). */
static int set_under(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_engine_config *cfg = &((struct run_args *)base)->cfg;
	char list[512], *save = NULL, *tok;

	if (strlen(arg) >= sizeof(list)) {
		snprintf(err, errlen, "--under: list too long");
		return -EINVAL;
	}
	snprintf(list, sizeof(list), "%s", arg);
	cfg->n_under = 0;
	for (tok = strtok_r(list, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		const struct ul_load *load = ul_load_find(tok);

		if (!load) {
			snprintf(err, errlen,
				 "unknown load '%.64s' in --under (see 'underload "
				 "list loads')",
				 tok);
			return -EINVAL;
		}
		for (size_t i = 0; i < cfg->n_under; i++)
			if (!strcmp(cfg->under[i], tok)) {
				snprintf(err, errlen, "load '%.64s' named twice in --under", tok);
				return -EINVAL;
			}
		if (cfg->n_under == UL_MAX_UNDER) {
			snprintf(err, errlen, "at most %d loads in --under", UL_MAX_UNDER);
			return -EINVAL;
		}
		cfg->under[cfg->n_under++] = load->name; /* the registry's, not the list's */
	}
	if (!cfg->n_under) {
		snprintf(err, errlen, "--under needs at least one load");
		return -EINVAL;
	}
	return 0;
}

/* MemTotal, the largest sensible --mem-limit (1T if unreadable). */
static uint64_t mem_total(void)
{
	struct ul_meminfo mi;

	return ul_meminfo_read(&mi) == 0 ? mi.total : UL_GiB * 1024;
}

/* --cpus LIST: CPUs this process may run on, kept in canonical form. */
static int set_cpus(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_engine_config *cfg = &((struct run_args *)base)->cfg;
	char why[256];
	int n = ul_cpus_parse(arg, &cfg->cpu_set, cfg->cpus, sizeof(cfg->cpus), why, sizeof(why));

	if (n < 0) {
		snprintf(err, errlen, "--cpus: %s", why);
		return n;
	}
	return 0;
}

/* --round-sysctl NAME=A,B: a listed sysctl present here and two values
 * within its bounds (proc/sysctl.h); run.c checks the rest. */
static int set_round_sysctl(void *base, const char *arg, char *err, size_t errlen)
{
	struct ul_engine_config *cfg = &((struct run_args *)base)->cfg;
	const char *eq = strchr(arg, '='), *comma = eq ? strchr(eq + 1, ',') : NULL;
	struct ul_meminfo mi;
	char why[256];

	if (!eq || !comma || strchr(comma + 1, ',') || eq == arg ||
	    (size_t)(eq - arg) >= sizeof(cfg->round_sysctl) ||
	    (size_t)(comma - eq - 1) >= sizeof(cfg->round_values[0]) ||
	    strlen(comma + 1) >= sizeof(cfg->round_values[1])) {
		snprintf(err, errlen, "--round-sysctl '%.64s' is not NAME=A,B", arg);
		return -EINVAL;
	}
	snprintf(cfg->round_sysctl, sizeof(cfg->round_sysctl), "%.*s", (int)(eq - arg), arg);
	snprintf(cfg->round_values[0], sizeof(cfg->round_values[0]), "%.*s", (int)(comma - eq - 1),
		 eq + 1);
	snprintf(cfg->round_values[1], sizeof(cfg->round_values[1]), "%s", comma + 1);
	if (!ul_sysctl_allowed(cfg->round_sysctl)) {
		snprintf(err, errlen, "--round-sysctl: %s is not a sysctl a sweep may change here",
			 cfg->round_sysctl);
		return -EINVAL;
	}
	/* Unknown memory bounds vm.min_free_kbytes to its minimum: safe. */
	if (ul_meminfo_read(&mi))
		mi.total = 0;
	for (int v = 0; v < 2; v++)
		if (ul_sysctl_value_check(cfg->round_sysctl, cfg->round_values[v], mi.total / 1024,
					  why, sizeof(why))) {
			snprintf(err, errlen, "--round-sysctl %s=%s: %s", cfg->round_sysctl,
				 cfg->round_values[v], why);
			return -EINVAL;
		}
	return 0;
}

static int set_mem_limit(void *base, const char *arg, char *err, size_t errlen)
{
	struct run_args *a = base;
	int rc = ul_parse_size(arg, 16 * UL_MiB, mem_total(), &a->cfg.mem_limit_bytes);

	if (rc)
		snprintf(err, errlen,
			 "%s value '%s' for --mem-limit: expected a size from 16M to MemTotal "
			 "(e.g. 256M)",
			 rc == -ERANGE ? "out-of-range" : "invalid", arg);
	return rc;
}

/* -o ITEM.NAME=VALUE against the load and probe option tables. */
static int set_item_option(void *base, const char *arg, char *err, size_t errlen)
{
	struct run_args *a = base;
	char item[64], name[64], why[256];
	const char *dot = strchr(arg, '.'), *eq = strchr(arg, '=');

	if (!dot || !eq || dot > eq || dot == arg || eq == dot + 1 ||
	    (size_t)(dot - arg) >= sizeof(item) || (size_t)(eq - dot - 1) >= sizeof(name)) {
		snprintf(err, errlen, "malformed -o '%s': expected ITEM.NAME=VALUE", arg);
		return -EINVAL;
	}
	snprintf(item, sizeof(item), "%.*s", (int)(dot - arg), arg);
	snprintf(name, sizeof(name), "%.*s", (int)(eq - dot - 1), dot + 1);
	for (size_t i = 0; i < ul_load_count(); i++) {
		const struct ul_load *l = ul_load_at(i);

		if (strcmp(l->name, item))
			continue;
		if (!ul_opt_set(l->opts, a->cfg.load_opt[i], name, eq + 1, why, sizeof(why))) {
			a->load_opt_given[i] = true;
			return 0;
		}
		snprintf(err, errlen, "load '%s': %s", item, why);
		return -EINVAL;
	}
	for (size_t i = 0; i < ul_probe_count(); i++) {
		const struct ul_probe *p = ul_probe_at(i);

		if (strcmp(p->name, item))
			continue;
		if (!ul_opt_set(p->opts, a->cfg.probe_opt[i], name, eq + 1, why, sizeof(why))) {
			a->probe_opt_given[i] = true;
			return 0;
		}
		snprintf(err, errlen, "probe '%s': %s", item, why);
		return -EINVAL;
	}
	snprintf(err, errlen, "unknown load or probe '%s' in -o (see 'underload list loads')",
		 item);
	return -EINVAL;
}

int ul_run_item_option_check(const char *arg, char *err, size_t errlen)
{
	static struct run_args scratch; /* large: its values are thrown away */

	memset(&scratch, 0, sizeof(scratch));
	return set_item_option(&scratch, arg, err, errlen);
}

#define A(member) UL_OPT_AT(struct run_args, member)

/* An option only some suites read: those whose descriptor lists it in
 * run_opts (model/suite.h); fill_run_opts() writes their names into its
 * used_by, in the registry's order. */
#define SOME_SUITES UL_OPT_SOME_SUITES

/* Where the monitors' own options (their descriptors' tables,
 * engine/monitors/monitor.h) come among run's: --help's order. */
#define MONITORS_OPTS                                                                              \
	{                                                                                          \
		.name = ""                                                                         \
	}

/* Every option of `run` but the suites' and monitors' own (their
 * tables), as declared; own_opts is what everyone reads. */
static const struct ul_opt run_opts_decl[] = {
	{ "label", UL_OPT_STRING, 0, 127, .arg = "TEXT", A(label), .def_text = "uname -r",
	  .help = "name for this kernel/setting" },
	UL_CMD_OPT_DB(struct run_args),
	{ "format", UL_OPT_STRING, .arg = "LIST", A(formats),
	  .help = "outputs, e.g. text,resp1,json=FILE",
	  .def_text = "each suite's seed table, then text: resp1,text for resp",
	  .man = "Each is a format name, optionally\n.BI = FILE\n"
		 "to write a file instead of standard output; see\n.BR \"underload list formats\" ." },
	{ "tests", UL_OPT_STRING, .arg = "LIST", A(tests),
	  .help = "only these tests (loads), e.g. noload,cpuload" },
	{ "interval", UL_OPT_DURATION, 0, 3600 * UL_NS_PER_SEC, 20 * UL_NS_PER_SEC,
	  "think time before each sample", .arg = "DURATION", A(cfg.interval_ns),
	  .man = "Durations take\n.BR ns \", \" us \", \" ms \", \" s \", \" m \", \" h ;\n"
		 "a bare number is seconds.",
	  .used_by = SOME_SUITES },
	{ "min-points", UL_OPT_COUNT, 1, 100000, 5,
	  "samples every test takes; compare tests only these", .arg = "N", A(cfg.min_points),
	  .man = "They are taken before the stopping rule looks at the data, so their number\n"
		 "is fixed in advance (see RESP STOPPING RULE).",
	  .used_by = SOME_SUITES },
	{ "max-points", UL_OPT_COUNT, 1, 100000, 20, "most samples per test", .arg = "N",
	  A(cfg.max_points),
	  .man = "Between min and max points a test takes one more point while the\n"
		 "distribution-free 95% confidence interval of the median is wider than\n"
		 "the target.  That interval needs 6 points, so with --min-points below 6\n"
		 "and --max-points above it a test takes at least 6.",
	  .used_by = SOME_SUITES },
	{ "ci-target", UL_OPT_PCT, 1, 10000, 1000,
	  "stop early once the median's 95% CI half-width is within PCT of the median",
	  .arg = "PCT", A(cfg.ci_target_centi),
	  .man = "A test still wider at max points is flagged noisy.", .used_by = SOME_SUITES },
	{ "sample-timeout", UL_OPT_DURATION, UL_NS_PER_MS, 24 * 3600 * UL_NS_PER_SEC,
	  600 * UL_NS_PER_SEC, "a sample taking longer fails its test", .arg = "DUR",
	  A(cfg.sample_timeout_ns), .used_by = SOME_SUITES },
	{ "dir", UL_OPT_STRING, .arg = "PATH", A(dir), .def_str = UL_RUN_DEFAULT_DIR,
	  .help = "parent of the private scratch directory",
	  .man = "It is removed at the end, after errors and after SIGINT/SIGTERM." },
	{ "disk-reserve", UL_OPT_SIZE, 0, UL_GiB * 1024 * 1024, UL_GiB,
	  "free space disk loads always leave", .arg = "SIZE", .accepted = "a size from 0 to 1P",
	  A(cfg.disk_reserve_bytes),
	  .man = "Sizes take\n.BR K \", \" M \", \" G \", \" T\n(powers of 1024).",
	  .used_by = SOME_SUITES },
	{ "mem-limit", UL_OPT_CALL, .arg = "SIZE", .set = set_mem_limit,
	  .def_text = "none, the budget is MemTotal",
	  .help = "run probe and loads in a memory cgroup of this size; it becomes the memory "
		  "budget loads size against",
	  .man = "cgroup v2\n.B memory.high\n(above it the kernel throttles and reclaims) with\n"
		 ".B memory.max\n25% (at least 16 MiB) higher, or the v1\n"
		 ".B memory.limit_in_bytes\nwhere v2 has no memory controller, with the group's "
		 "OOM killer\ndisabled and an OOM guard process outside the group that wakes tasks\n"
		 "waiting at the limit and, after 10 s of real deadlock, enables the killer;\n"
		 "the supervisor stays outside.  Loads swap at the limit instead of being\n"
		 "killed; an OOM kill that still happens is reported in the cell's note and\n"
		 ".BR oom_kills .\nA memory test that paged nothing (no major fault of the probe "
		 "or the\nrun's cgroup) is flagged\n.B no-pressure\nwith the reason and what to "
		 "run instead.  This replaces the ancestors'\nreboot with\n.BR mem=96m ." },
	{ "cpus", UL_OPT_CALL, .arg = "LIST", .set = set_cpus, .def_text = "all",
	  .help = "run probe and loads on these CPUs only (e.g. 0 or 0-1), in a cpuset; the "
		  "run counts as an N-CPU run",
	  .man = "The scene's processes run in a cpuset cgroup of those CPUs: the v1 cpuset\n"
		 "hierarchy, or cgroup v2 where it offers the cpuset controller (then the\n"
		 "run's memory cgroup, with\n.BR \\-\\-mem\\-limit ,\nis that cpuset).  "
		 "The group is journalled like the memory cgroup:\n"
		 ".B underload cleanup\nremoves it after a kill -9.  Where no cpuset "
		 "controller is mounted the run\nsays so and pins by CPU affinity instead, "
		 "which its processes inherit.\nThe run stores the list in its fingerprint\n"
		 ".RB ( cpu.cpus )\nand the CPU count as its own (the seed headers say\n"
		 ".BR \"Starting 1 CPU run\" );\nloads sized per CPU size to it.  Seed 000 "
		 "compared UP and SMP by\nrebooting; this needs none." },
	{ "swap", UL_OPT_SIZE, UL_MiB, UL_GiB * 1024, 0,
	  "a swap file of this size for the run, in the scratch directory, at priority 32767; "
	  "removed at the end",
	  .arg = "SIZE", .def_text = "none", .accepted = "a size from 1M to 1T (e.g. 512M)",
	  A(cfg.swap_bytes),
	  .man = "Refused on filesystems that cannot hold swap (tmpfs, btrfs, overlayfs,\n"
		 "network filesystems).  With\n.BR \\-\\-mem\\-limit ,\n"
		 "the cgroup may swap at most SIZE." },
	{ "monitor-interval", UL_OPT_DURATION, 10 * UL_NS_PER_MS, 3600 * UL_NS_PER_SEC,
	  UL_NS_PER_SEC, "/proc sampler period, 0 = off", .arg = "DUR", A(cfg.monitor_interval_ns),
	  .flags = UL_OPTF_ZERO_OFF,
	  .man = "The sampler records /proc/stat, /proc/vmstat, /proc/meminfo,\n"
		 "/proc/loadavg and /proc/pressure/* for every test; see\n"
		 ".BR \"underload vmstat\" ." },
	{ "under", UL_OPT_CALL, .arg = "LIST", .set = set_under, .def_text = "noload",
	  .help = "run fsbench and micro under each of these loads in turn, one cell each",
	  .used_by = SOME_SUITES },
	MONITORS_OPTS,
	{ "runs", UL_OPT_COUNT, 1, 10000, 0,
	  "replicate rounds: every test once per round, rounds interleaved, each cell its own "
	  "replicate (mtest: a run of mtest01 a round)",
	  .arg = "N", .def_text = "1; mtest 10", A(cfg.runs),
	  .man = "Every suite measures its tests in the order\n"
		 "A B C A B C (not A A B B C C), so slow drift of the machine does not\n"
		 "land on one test; each cell records its round as the metric\n"
		 ".BR round .\n"
		 "Runs differ from each other more than the points of one run do:\n"
		 "replicates are what lets compare see that (see REPLICATES and COMPARE)." },
	{ "round-sysctl", UL_OPT_CALL, .arg = "NAME=A,B", .set = set_round_sysctl,
	  .help = "sweep --within-run's: write the sysctl A or B before each round, A B B A",
	  .man = "Only\n.B underload sweep \\-\\-within\\-run\npasses it: the sweep holds the "
		 "settings lock,\njournals the original and writes it back; a run given it while "
		 "nobody\nholds that lock is refused with exit 2.  \\-\\-runs must be a multiple of 4\n"
		 "(whole A B B A blocks); each cell records its round's value as the metric\n"
		 ".B setting\n(1 for A, 2 for B).",
	  .used_by = SOME_SUITES },
	{ "option", UL_OPT_CALL, .short_name = 'o', .arg = "ITEM.NAME=VALUE",
	  .set = set_item_option,
	  .help = "set a load or probe option (see 'underload list loads -v')",
	  .man = "The load or probe must be one a selected suite runs (any of its tests,\n"
		 "whatever\n.B \\-\\-tests\npicks, or a load of\n.BR \\-\\-under );\n"
		 "another is refused with exit 2." },
	{ "quick", UL_OPT_FLAG, 0, 1, 0, A(quick), .flags = UL_OPTF_NO_DEFAULT,
	  .help = "short profile: --interval 1s --min-points 5 --max-points 8, memory loads "
		  "and budget-sized files capped at 512M (explicit --interval and --*-points "
		  "win)" },
	{ "strict", UL_OPT_FLAG, 0, 1, 0, A(strict),
	  .help = "refuse to start (exit 2) when 'underload doctor' finds a blocker: other busy "
		  "processes, steal, a noisy clock, no room under --dir" },
	{ "progress", UL_OPT_FLAG, 0, 1, -1, A(progress), .def_text = "when stderr is a terminal",
	  .help = "progress on stderr" },
	{ "no-progress", UL_OPT_FLAG, 0, 0, -1, A(progress), .flags = UL_OPTF_NO_DEFAULT,
	  .help = "no progress" },
	{ NULL },
};

/* run's own options as parsed and shown, in parts: run_opts_decl up to
 * MONITORS_OPTS, each monitor's table, the rest of run_opts_decl.  Each
 * part is a NULL-terminated copy in own_opts, its SOME_SUITES used_by
 * filled in own_by; own_mon[p] is the monitor of part p, NULL for run's.
 * Filled once (fill_run_opts). */
#define OWN_OPTS_MAX 128
static struct ul_opt own_opts[OWN_OPTS_MAX];
static char own_by[OWN_OPTS_MAX][UL_MAX_SUITES * (UL_NAME_LEN + 1)];
static const struct ul_opt *own_part[2 + UL_MAX_MONITORS];
static const struct ul_monitor *own_mon[2 + UL_MAX_MONITORS];
static size_t n_own_parts;
/* Every option of the parts, in --help's order. */
static const struct ul_opt *own_list[OWN_OPTS_MAX];
static size_t n_own;

/* Whether the comma-separated `list` holds `word`. */
static bool list_has(const char *list, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = list; p && (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Whether the suites' run_opts name only options marked SOME_SUITES. */
static void check_suites_run_opts(void)
{
	for (size_t k = 0; k < ul_suite_count(); k++) {
		const char *p = ul_suite_at(k)->run_opts;

		while (p && *p) {
			size_t len = strcspn(p, ",");
			bool known = false;

			for (size_t i = 0; i < n_own && !known; i++)
				known = own_list[i]->used_by && strlen(own_list[i]->name) == len &&
					!strncmp(own_list[i]->name, p, len);
			if (!known)
				UL_BUG("suite '%s': run_opts names '%.*s', not an option of run "
				       "marked SOME_SUITES",
				       ul_suite_at(k)->name, (int)len, p);
			p += len + (p[len] == ',');
		}
	}
}

/* Append to own_opts, from *at, a part: `from` up to its end or
 * MONITORS_OPTS, then a NULL entry. */
static void add_own_part(size_t *at, const struct ul_opt *from, const struct ul_monitor *mon)
{
	own_part[n_own_parts] = &own_opts[*at];
	own_mon[n_own_parts++] = mon;
	for (;; from++) {
		bool end = !from->name || !from->name[0];

		if (*at == OWN_OPTS_MAX)
			UL_BUG("run's own options and their parts' ends pass %d", OWN_OPTS_MAX);
		if (end) {
			own_opts[(*at)++] = (struct ul_opt){ NULL };
			return;
		}
		own_list[n_own++] = &own_opts[*at];
		own_opts[(*at)++] = *from;
	}
}

/* own_opts from run_opts_decl and the monitors' tables, each SOME_SUITES
 * option's used_by the suites that list it ("resp,deadline"); once. */
static void fill_run_opts(void)
{
	const struct ul_opt *rest = run_opts_decl;
	size_t at = 0;

	if (n_own_parts)
		return;
	add_own_part(&at, run_opts_decl, NULL);
	while (rest->name && rest->name[0])
		rest++;
	if (!rest->name)
		UL_BUG("run's table has no MONITORS_OPTS");
	for (size_t m = 0; m < ul_monitor_count(); m++)
		if (ul_monitor_at(m)->opts)
			add_own_part(&at, ul_monitor_at(m)->opts, ul_monitor_at(m));
	add_own_part(&at, rest + 1, NULL);
	check_suites_run_opts();
	for (size_t i = 0; i < at; i++) {
		struct ul_opt *o = &own_opts[i];
		char *by = own_by[i];
		size_t off = 0;

		if (!o->name || !o->used_by)
			continue;
		by[0] = '\0';
		for (size_t k = 0; k < ul_suite_count(); k++)
			if (list_has(ul_suite_at(k)->run_opts, o->name))
				off += (size_t)snprintf(by + off, sizeof(own_by[i]) - off, "%s%s",
							off ? "," : "", ul_suite_at(k)->name);
		if (!off)
			UL_BUG("run option --%s is marked SOME_SUITES but no suite reads it",
			       o->name);
		o->used_by = by;
	}
}

bool ul_run_opt_reads(const struct ul_opt *o, const char *suite)
{
	return !o->used_by || list_has(o->used_by, suite);
}

void ul_run_opts_list(FILE *out)
{
	fill_run_opts();
	for (size_t i = 0; i < n_own; i++) {
		const struct ul_opt *o = own_list[i];
		size_t n = 0;

		fprintf(out, "%s %s ", o->name, o->arg ? o->arg : "-");
		for (size_t k = 0; k < ul_suite_count(); k++)
			if (ul_run_opt_reads(o, ul_suite_at(k)->name))
				fprintf(out, "%s%s", n++ ? "," : "", ul_suite_at(k)->name);
		fprintf(out, "%s %s\n", n ? "" : "-", o->used_with ? o->used_with : "-");
	}
}

void ul_run_opts_read_by(const char *suite, char *buf, size_t len)
{
	size_t off = 0;

	fill_run_opts();
	buf[0] = '\0';
	for (size_t i = 0; i < n_own && off < len; i++)
		if (own_list[i]->used_by && ul_run_opt_reads(own_list[i], suite))
			off += (size_t)snprintf(buf + off, len - off, "%s--%s", off ? " " : "",
						own_list[i]->name);
}

const struct ul_opt *ul_run_own_opt(const char *name)
{
	fill_run_opts();
	for (size_t i = 0; i < n_own; i++)
		if (!strcmp(own_list[i]->name, name))
			return own_list[i];
	UL_BUG("run has no option --%s of its own", name);
}

bool ul_run_opt_given(const struct run_args *a, const char *name)
{
	for (size_t g = 0; g < a->n_own_groups; g++)
		if (ul_opt_given(&a->groups[g], name))
			return true;
	return false;
}

/* A monitor's struct, with its table's defaults, into its slot. */
static void *monitor_opts_of(struct run_args *a, const struct ul_monitor *m)
{
	for (size_t i = 0; i < ul_monitor_count() && i < UL_MAX_MONITORS; i++) {
		if (ul_monitor_at(i) != m)
			continue;
		a->monitor_opts[i] = calloc(1, m->opts_size);
		if (!a->monitor_opts[i])
			return NULL;
		ul_opt_apply_defaults(m->opts, a->monitor_opts[i]);
		a->cfg.monitor_opts[i] = a->monitor_opts[i];
		return a->monitor_opts[i];
	}
	UL_BUG("monitor '%s' is not registered", m->name);
}

/* The option groups of `run`: its own parts (each monitor's into its own
 * struct), then each suite's under its name.  Each suite's struct is
 * allocated with its table's defaults. */
static int build_groups(struct run_args *a)
{
	static char headings[UL_MAX_SUITES][64];

	for (size_t p = 0; p < n_own_parts; p++) {
		void *base = own_mon[p] ? monitor_opts_of(a, own_mon[p]) : a;

		if (!base)
			return ul_oom();
		a->groups[a->n_groups++] =
			(struct ul_opt_group){ .opts = own_part[p], .base = base };
	}
	a->n_own_groups = a->n_groups;
	for (size_t i = 0; i < ul_suite_count() && i < UL_MAX_SUITES; i++) {
		const struct ul_suite *s = ul_suite_at(i);

		if (!s->opts)
			continue;
		a->suite_opts[i] = calloc(1, s->opts_size);
		if (!a->suite_opts[i])
			return ul_oom();
		ul_opt_apply_defaults(s->opts, a->suite_opts[i]);
		a->cfg.suite_opts[i] = a->suite_opts[i];
		snprintf(headings[i], sizeof(headings[i]), "%s suite", s->name);
		a->groups[a->n_groups++] = (struct ul_opt_group){ .heading = headings[i],
								  .opts = s->opts,
								  .base = a->suite_opts[i] };
	}
	return 0;
}

/* Settings that are not options of the command line. */
int ul_run_args_init(struct run_args *a)
{
	memset(a, 0, sizeof(*a));
	fill_run_opts();
	for (size_t p = 0; p < n_own_parts; p++)
		if (!own_mon[p])
			ul_opt_apply_defaults(own_part[p], a);
	a->cfg.ready_timeout_ns = 60 * UL_NS_PER_SEC;
	a->cfg.stop_grace_ns = 5 * UL_NS_PER_SEC;
	a->cfg.swap_priority = 32767; /* used before any swap the host has */
	for (size_t i = 0; i < ul_load_count(); i++)
		ul_opt_defaults(ul_load_at(i)->opts, a->cfg.load_opt[i]);
	for (size_t i = 0; i < ul_probe_count(); i++)
		ul_opt_defaults(ul_probe_at(i)->opts, a->cfg.probe_opt[i]);
	return build_groups(a);
}

void ul_run_args_release(struct run_args *a)
{
	for (size_t i = 0; i < UL_MAX_SUITES; i++)
		free(a->suite_opts[i]);
	for (size_t i = 0; i < UL_MAX_MONITORS; i++)
		free(a->monitor_opts[i]);
}

size_t ul_run_opt_groups(struct ul_opt_group *groups, size_t max)
{
	static struct run_args a;
	size_t n = 0;

	if (!a.n_groups && ul_run_args_init(&a))
		return 0;
	for (; n < a.n_groups && n < max; n++)
		groups[n] = a.groups[n];
	return n;
}
