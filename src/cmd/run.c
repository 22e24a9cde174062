/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload run [SUITE...]`: parse and validate every option up front
 * (bad input never starts a load), open the store, hand a validated
 * configuration to the engine, then print the stored run.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/run.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/optparse.h"
#include "core/parse.h"
#include "core/selfexe.h"
#include "core/sysinfo.h"
#include "doctor/doctor.h"
#include "engine/engine.h"
#include "fingerprint/fingerprint.h"
#include "load/load.h"
#include "probe/probe.h"
#include "proc/cgroup/cgroup.h"
#include "proc/scratch.h"
#include "proc/settings_lock.h"
#include "proc/swap.h"
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

static const char run_usage[] = "Run suites (default: resp) and store every raw sample.\n"
				"\n";

static const char run_epilog[] =
	"\n"
	"Exit status: 0 ok, 1 error, 2 bad usage (or --strict and a doctor's blocker),\n"
	"3 nothing could run here,\n"
	"4 finished but some test failed (load died, probe failed), 130 interrupted.\n";

/* Split --tests and check each name belongs to a selected suite. */
static int parse_tests(struct run_args *a)
{
	char *save = NULL, *tok;

	snprintf(a->tests_buf, sizeof(a->tests_buf), "%s", a->tests);
	for (tok = strtok_r(a->tests_buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		bool known = false;

		for (size_t s = 0; s < a->n_suites; s++)
			known |= ul_suite_accepts_test(a->suites[s], tok);
		for (size_t i = 0; i < a->cfg.n_tests; i++)
			if (!strcmp(a->cfg.tests[i], tok))
				return ul_usage_error("run", "test '%s' named twice in --tests",
						      tok);
		if (!known) {
			char names[2048];
			size_t off = 0;

			names[0] = '\0';
			for (size_t s = 0; s < a->n_suites; s++)
				for (size_t i = 0;
				     a->suites[s]->tests[i].load && off < sizeof(names); i++)
					off += (size_t)snprintf(
						names + off, sizeof(names) - off, "%s%s",
						off ? ", " : "",
						ul_suite_test_name(&a->suites[s]->tests[i]));
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
	char why[512];

	if (stat(dir, &st))
		return ul_usage_error("run", "--dir '%s': %s", dir, strerror(errno));
	if (!S_ISDIR(st.st_mode))
		return ul_usage_error("run", "--dir '%s': not a directory", dir);
	if (access(dir, W_OK | X_OK))
		return ul_usage_error("run", "--dir '%s': not writable: %s", dir, strerror(errno));
	/* One another user could rename entries in is bad input too. */
	if (ul_scratch_check_parent(dir, NULL, 0, why, sizeof(why)))
		return ul_usage_error("run", "--dir '%s': cannot create a scratch directory: %s",
				      dir, why);
	return 0;
}

/* --swap and --mem-limit need privileges: refused before anything is made
 * (a swap file would otherwise be written whole before swapon refuses). */
static int check_privileges(const struct run_args *a)
{
	char why[512];

	if (a->cfg.swap_bytes && ul_swap_permitted(why, sizeof(why)))
		return ul_usage_error("run", "--swap: %s", why);
	if (a->cfg.mem_limit_bytes && ul_cgroup_permitted(why, sizeof(why)))
		return ul_usage_error("run", "--mem-limit: %s", why);
	return 0;
}

/* --quick, and --min-points/--max-points against each other. */
static int settle_points(struct run_args *a)
{
	bool set_min = ul_run_opt_given(a, "min-points"),
	     set_max = ul_run_opt_given(a, "max-points");

	if (a->quick) {
		if (!ul_run_opt_given(a, "interval"))
			a->cfg.interval_ns = UL_NS_PER_SEC;
		if (!set_min)
			a->cfg.min_points = 5;
		if (!set_max)
			a->cfg.max_points = 8;
		a->cfg.mem_footprint_cap_bytes = 512 * UL_MiB;
		a->cfg.quick = true;
	}
	if (set_max && !set_min && a->cfg.min_points > a->cfg.max_points)
		a->cfg.min_points = a->cfg.max_points;
	if (!set_max && a->cfg.max_points < a->cfg.min_points)
		a->cfg.max_points = a->cfg.min_points;
	if (a->cfg.max_points < a->cfg.min_points)
		return ul_usage_error("run", "--max-points (%d) is below --min-points (%d)",
				      a->cfg.max_points, a->cfg.min_points);
	return 0;
}

static int select_suites(struct run_args *a, int argc, char **argv, int first)
{
	for (int i = first; i < argc; i++) {
		const struct ul_suite *s = ul_suite_find(argv[i]);
		char names[256];

		if (!s) {
			ul_suite_names(names, sizeof(names));
			return ul_usage_error("run", "unknown suite '%s' (known: %s)", argv[i],
					      names);
		}
		for (size_t j = 0; j < a->n_suites; j++)
			if (a->suites[j] == s)
				return ul_usage_error("run", "suite '%s' named twice", argv[i]);
		if (a->n_suites == UL_ARRAY_SIZE(a->suites))
			return ul_usage_error("run", "too many suites");
		a->suites[a->n_suites++] = s;
	}
	if (!a->n_suites) /* the default: suites.def's first (resp) */
		a->suites[a->n_suites++] = ul_suite_at(0);
	return 0;
}

/* Each suite's options: given without the suite is a usage error; a
 * selected suite checks them across each other. */
static int check_suite_opts(const struct run_args *a)
{
	for (size_t gi = a->n_own_groups; gi < a->n_groups; gi++) {
		const struct ul_suite *s = NULL;
		char err[512];

		for (size_t i = 0; i < ul_suite_count(); i++)
			if (ul_suite_at(i)->opts == a->groups[gi].opts)
				s = ul_suite_at(i);
		bool selected = false;

		for (size_t i = 0; i < a->n_suites; i++)
			selected |= a->suites[i] == s;
		if (!selected && a->groups[gi].given) {
			ul_opt_given_names(&a->groups[gi], err, sizeof(err));
			return ul_usage_error("run",
					      "%s options (%s) need the %s suite: "
					      "underload run %s",
					      s->name, err, s->name, s->name);
		}
		if (selected && s->check_opts &&
		    s->check_opts(a->suite_opts[ul_suite_index(s)], err, sizeof(err)))
			return ul_usage_error("run", "%s", err);
	}
	return 0;
}

/* run's own options that only some suites read (their table's used_by):
 * given with none of those suites selected is a usage error, never
 * accepted and then ignored. */
static int check_unused_opts(const struct run_args *a)
{
	for (size_t gi = 0; gi < a->n_own_groups; gi++) {
		const struct ul_opt_group *g = &a->groups[gi];

		for (size_t i = 0; g->opts[i].name; i++) {
			const struct ul_opt *o = &g->opts[i];
			char sel[256];
			size_t off = 0;
			bool used = false;

			if (!(g->given & (UINT64_C(1) << i)))
				continue;
			for (size_t k = 0; k < a->n_suites; k++) {
				used |= ul_run_opt_reads(o, a->suites[k]->name);
				off += (size_t)snprintf(sel + off, sizeof(sel) - off, "%s%s",
							k ? "," : "", a->suites[k]->name);
			}
			if (o->used_with)
				used |= ul_run_opt_given(a, o->used_with);
			if (!used)
				return ul_usage_error(
					"run",
					"--%s is not used by the suite%s %s: only %s read it%s%s",
					o->name, a->n_suites == 1 ? "" : "s", sel, o->used_by,
					o->used_with ? ", or any suite with --" : "",
					o->used_with ? o->used_with : "");
		}
	}
	return 0;
}

/* Marks the registry index of the load or probe `name` in `used`. */
static void mark_used(bool used[UL_MAX_ITEMS], const char *name, bool probe)
{
	size_t n = probe ? ul_probe_count() : ul_load_count();

	for (size_t i = 0; name && i < n && i < UL_MAX_ITEMS; i++)
		if (!strcmp(probe ? ul_probe_at(i)->name : ul_load_at(i)->name, name))
			used[i] = true;
}

/* -o ITEM.NAME=VALUE names a load or probe of a selected suite (any of
 * its tests, whatever --tests picks: a set of -o kept for every test of a
 * suite is a profile, not a mistake), one --tests named for a suite that
 * takes any load, or a load of --under.  -o for another suite's load or
 * probe is a usage error, never accepted and then ignored. */
static int check_item_opts(const struct run_args *a)
{
	bool load_used[UL_MAX_ITEMS] = { false }, probe_used[UL_MAX_ITEMS] = { false };
	const char *const *under;
	size_t n_under = ul_engine_under(&a->cfg, &under);

	for (size_t k = 0; k < a->n_suites; k++) {
		const struct ul_suite *s = a->suites[k];

		mark_used(probe_used, s->probe, true);
		for (const struct ul_suite_test *t = s->tests; t->load; t++) {
			mark_used(load_used, t->load, false);
			mark_used(probe_used, ul_suite_test_probe(s, t), true);
		}
		for (size_t i = 0; s->tests_any_load && i < a->cfg.n_tests; i++)
			mark_used(load_used, a->cfg.tests[i], false);
	}
	for (size_t i = 0; i < n_under; i++)
		mark_used(load_used, under[i], false);
	for (size_t i = 0; i < ul_load_count() && i < UL_MAX_ITEMS; i++)
		if (a->load_opt_given[i] && !load_used[i])
			return ul_usage_error("run",
					      "-o %s.*: no selected suite runs the load '%s' "
					      "(see 'underload list suites -v')",
					      ul_load_at(i)->name, ul_load_at(i)->name);
	for (size_t i = 0; i < ul_probe_count() && i < UL_MAX_ITEMS; i++)
		if (a->probe_opt_given[i] && !probe_used[i])
			return ul_usage_error("run",
					      "-o %s.*: no selected suite measures with the probe "
					      "'%s' (see 'underload list suites -v')",
					      ul_probe_at(i)->name, ul_probe_at(i)->name);
	return 0;
}

/* Each monitor's options against each other and the selected suites
 * (its check_opts). */
static int check_monitor_opts(const struct run_args *a)
{
	char err[512];

	for (size_t i = 0; i < ul_monitor_count() && i < UL_MAX_MONITORS; i++) {
		const struct ul_monitor *m = ul_monitor_at(i);

		if (m->check_opts &&
		    m->check_opts(a->monitor_opts[i], a->suites, a->n_suites, err, sizeof(err)))
			return ul_usage_error("run", "%s", err);
	}
	return 0;
}

/* --round-sysctl (engine/round_setting.h): every selected suite alternates
 * it (a suite without rounds would measure under whatever value was
 * last), whole A B B A blocks, and a sweep holding the settings lock that
 * journalled the original (nobody else writes it back). */
static int check_round_sysctl(const struct run_args *a)
{
	const struct ul_opt *o = ul_run_own_opt("round-sysctl");
	char why[256];
	int fd = -1, rc;

	if (!a->cfg.round_sysctl[0])
		return 0;
	for (size_t k = 0; k < a->n_suites; k++)
		if (!ul_run_opt_reads(o, a->suites[k]->name))
			return ul_usage_error("run", "--round-sysctl: the suite %s has no rounds",
					      a->suites[k]->name);
	if (a->cfg.runs <= 0 || a->cfg.runs % 4)
		return ul_usage_error("run", "--round-sysctl needs --runs a multiple of 4 "
					     "(whole A B B A blocks)");
	rc = ul_settings_lock(&fd, why, sizeof(why));
	if (rc == -EWOULDBLOCK)
		return 0;
	if (!rc)
		close(fd);
	return ul_usage_error("run", "--round-sysctl is passed by 'underload sweep --within-run', "
				     "which journals the original: use that");
}

extern const struct ul_cmd ul_cmd_desc_run;

static int parse_args(int argc, char **argv, struct run_args *a)
{
	char err[512];
	int first, rc;

	if (ul_run_args_init(a))
		return UL_EXIT_ERROR;
	rc = ul_opt_parse_argv(a->groups, a->n_groups, argc, argv, &first, err, sizeof(err));
	if (rc == UL_OPT_PARSE_HELP) {
		ul_cmd_print_help(&ul_cmd_desc_run, stdout);
		return UL_CMD_HELP_SHOWN;
	}
	if (rc)
		return ul_usage_error("run", "%s", err);
	if ((rc = settle_points(a)) || (rc = select_suites(a, argc, argv, first)) ||
	    (rc = check_suite_opts(a)) || (rc = check_unused_opts(a)))
		return rc;
	if ((a->tests && (rc = parse_tests(a))) || (rc = check_item_opts(a)) ||
	    (rc = check_monitor_opts(a)) || (rc = check_round_sysctl(a)))
		return rc;
	rc = check_dir(a->dir);
	if (!rc)
		rc = check_privileges(a);
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

/*
 * The doctor's look at the machine before anything starts (a short
 * window: UL_DOCTOR_RUN_WINDOW_NS).  Its findings are stored with the run;
 * with --strict a blocker, or a machine it cannot examine, refuses the run.
 * Returns 0 (r->n is 0 when it could not look), or an exit code, printed.
 */
static int examine(const struct run_args *a, struct ul_doctor_report *r)
{
	struct ul_doctor_opts o = { .dir = a->dir,
				    .window_ns = UL_DOCTOR_RUN_WINDOW_NS,
				    .swap_planned = a->cfg.swap_bytes > 0 };
	int rc = ul_doctor_run(&o, r);

	if (rc) {
		memset(r, 0, sizeof(*r));
		if (!a->strict)
			return 0;
		ul_error_errno(rc, "run --strict: cannot examine the machine");
		return UL_EXIT_USAGE;
	}
	if (!a->strict || r->worst < UL_DOCTOR_BLOCKER)
		return 0;
	ul_error("run --strict: underload doctor finds this machine not ready to measure:");
	for (size_t i = 0; i < r->n; i++) {
		char text[600];

		if (r->f[i].severity < UL_DOCTOR_WARN)
			continue;
		ul_doctor_finding_text(&r->f[i], text, sizeof(text));
		fprintf(stderr, "  %s %s\n", r->f[i].check, text);
	}
	return UL_EXIT_USAGE;
}

/* The run's fingerprint, with the doctor's findings and busiest processes. */
static int fingerprint(const struct run_args *a, const struct ul_doctor_report *doc,
		       struct ul_run *run)
{
	struct ul_fp_ctx ctx = { .dir = a->dir, .cpus = a->cfg.cpus[0] ? a->cfg.cpus : NULL };
	json_t *findings = doc->n ? ul_doctor_json(doc) : json_string(UL_FP_ABSENT);

	if (doc->n) {
		ctx.busy = doc->sample.busy;
		ctx.n_busy = doc->sample.n_busy;
	}
	run->fingerprint = ul_fingerprint_collect(&ctx);
	if (!run->fingerprint) {
		json_decref(findings);
		return ul_error_errno(-ENOMEM, "cannot record the machine's fingerprint");
	}
	if (json_object_set_new(run->fingerprint, "doctor", findings))
		return ul_error_errno(-ENOMEM, "cannot record the machine's fingerprint");
	return 0;
}

static int fill_run(const struct run_args *a, const struct ul_doctor_report *doc, int argc,
		    char **argv, struct ul_run *run)
{
	const char *vm_uuid = getenv("UL_VM_RUN_UUID");
	int rc;

	ul_run_init(run);
	rc = ul_run_new_uuid(run);
	if (rc)
		return ul_error_errno(rc, "cannot make a run id");
	/* In a guest of `underload vm`: the id the host made for this boot,
	 * the only run it will take back (cmd/vm_collect.c). */
	if (vm_uuid && *vm_uuid && !ul_uuid_valid(vm_uuid))
		return ul_error("UL_VM_RUN_UUID '%s' is not a UUID", ul_esc(vm_uuid));
	if (vm_uuid && *vm_uuid)
		snprintf(run->uuid, sizeof(run->uuid), "%s", vm_uuid);
	rc = ul_host_read(&run->host);
	if (rc)
		return ul_error_errno(rc, "cannot read host facts from /proc");
	/* --cpus: the run is an N-CPU run (headers, loads sized per CPU). */
	if (a->cfg.cpus[0])
		run->host.ncpu = CPU_COUNT(&a->cfg.cpu_set);
	rc = fingerprint(a, doc, run);
	if (rc)
		return rc;
	snprintf(run->label, sizeof(run->label), "%s",
		 a->label ? a->label : run->host.kernel_release);
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
	run->params.mem_budget_bytes = a->cfg.mem_limit_bytes ? a->cfg.mem_limit_bytes
							      : run->host.mem_total_bytes;
	return 0;
}

/* What resp execs as its lister: this program (core/selfexe.h). */
static int self_exe(char *buf, size_t len)
{
	int rc = ul_self_exe(buf, len);

	return rc ? ul_error_errno(rc, "cannot find this program in " UL_SELF_EXE) : 0;
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
	static struct ul_doctor_report doctor;
	struct ul_outputs outs;
	struct ul_store *store = NULL;
	struct ul_run run, stored;
	char db[PATH_MAX], exe[PATH_MAX];
	char ref[32];
	int rc, result;

	rc = parse_args(argc, argv, &a);
	if (rc == UL_CMD_HELP_SHOWN)
		return UL_EXIT_OK;
	if (rc)
		return rc; /* an exit code, the error printed */
	if (!a.formats) {
		static char defaults[256];
		char suites[128];

		join_suites(&a, suites, sizeof(suites));
		ul_default_formats(suites, defaults, sizeof(defaults));
		a.formats = defaults;
	}
	/* Resolve --db now: a bad one must fail before anything else is done,
	 * and no output file may be the store (ul_cmd_db_path()). */
	rc = ul_cmd_db_path(a.db, db, sizeof(db));
	if (rc)
		return rc;
	if (ul_outputs_parse("run", a.formats, &outs))
		return UL_EXIT_USAGE;
	if (self_exe(exe, sizeof(exe)))
		return UL_EXIT_ERROR;
	a.cfg.self_exe = exe;
	rc = examine(&a, &doctor);
	if (rc)
		return rc;
	if (fill_run(&a, &doctor, argc - 1, argv + 1, &run)) {
		ul_run_release(&run); /* what was filled in before the error */
		return UL_EXIT_ERROR;
	}
	/* db is resolved and not empty, so this only opens it. */
	rc = ul_cmd_open_store_rw(db, &store);
	if (rc) {
		ul_run_release(&run); /* its fingerprint */
		return rc;
	}
	/* Absolute, for the journal: `cleanup` may run from anywhere. */
	if (strstr(db, "://"))
		a.cfg.store_uri = db;
	else if (realpath(db, db_abs))
		a.cfg.store_uri = db_abs;
	ul_cmd_import_recovery(store, db);
	result = ul_engine_run(&a.cfg, store, &run, a.suites, a.n_suites);
	/* Print what the store holds, so `show` reprints exactly this. */
	if (run.id > 0) {
		snprintf(ref, sizeof(ref), "%lld", (long long)run.id);
		ul_run_init(&stored);
		rc = store->ops->load_run(store, ref, &stored);
		if (rc && result != UL_ENGINE_ERROR) {
			ul_error("cannot read run %s back: %s", run.uuid, store->err);
			result = UL_ENGINE_ERROR;
		} else {
			/* A store that already failed the run (a server gone away:
			 * the error said where the run is kept) gives it as measured. */
			if (ul_outputs_write(&outs, rc ? &run : &stored))
				result = UL_ENGINE_ERROR;
			if (!rc)
				ul_run_release(&stored);
		}
	}
	if (run.id > 0 && run.status == UL_RUN_INTERRUPTED)
		ul_note("run %s interrupted; its finished tests are stored", run.uuid);
	ul_run_release(&run);
	ul_store_close(store);
	ul_run_args_release(&a);
	return exit_code(result);
}

const struct ul_cmd ul_cmd_desc_run = {
	.name = "run",
	.summary = "run suites under load and store the results",
	.operands = "[SUITE...]",
	.help = run_usage,
	.opt_groups = ul_run_opt_groups,
	.epilog = run_epilog,
	.fn = ul_cmd_run,
};
