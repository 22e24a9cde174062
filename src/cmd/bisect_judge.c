/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bisect's judge (bisect.h): an A/B measured through `underload vm
 * --until-decided` (cmd/vm.c, with the step's label and command line) and
 * read back from the store by its labels, so that a re-run finds what an
 * earlier one measured.  The verdicts are the sequential A/B's
 * (stats/seqab.h), at the family-wise alpha of vm --until-decided.
 *
 * The test hook UL_TEST_BISECT_VM=CMD (a build with -Dtest_hooks=true)
 * stands in for vm: `sh -c CMD` with the A/B in its environment
 * (UL_BISECT_DB, UL_BISECT_LABEL_A/_B, UL_BISECT_IMAGE_A/_B and
 * UL_BISECT_APPEND_A/_B; A the base, B the step) stores runs under the
 * labels as it likes, so that the CLI tests drive bisect's judge, log,
 * resume and clean-up through every outcome without booting a VM.
 */
#include "cmd/bisect.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "cmd/decide.h"
#include "cmd/vm.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/log.h"
#include "core/sysinfo.h"
#include "core/testhook.h"
#include "stats/seqab.h"
#include "store/store.h"
#include "ul_config.h"

#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>

/* How many of the scope's finished runs carry `label`, and crashed of
 * them; their ids go to v->ids after the v->runs already there. */
static size_t count_label(const struct ul_cmd_scope *sc, const char *label, size_t *crashed,
			  struct ul_bisect_verdict *v)
{
	size_t n = 0;

	for (size_t i = 0; i < sc->n; i++)
		if (sc->sum[i].status != UL_RUN_RUNNING && !strcmp(sc->sum[i].label, label)) {
			if (v->runs + n < UL_ARRAY_SIZE(v->ids))
				v->ids[v->runs + n] = sc->sum[i].id;
			n++;
			*crashed += sc->sum[i].status == UL_RUN_CRASHED;
		}
	return n;
}

/* How the first of label's crashed runs ended, from the "vm" section of
 * its fingerprint (cmd/vm_collect.c): "panicked: Kernel panic - not
 * syncing: ..." (the console's last panic line), "hung"; "" for a run
 * vm did not make.  The console is the guest's: escaped. */
static void crash_of(struct ul_store *store, const struct ul_cmd_scope *sc, const char *label,
		     char *out, size_t len)
{
	static const char *const marks[] = { "Kernel panic - not syncing", "Oops: " };
	const char *uuid = NULL, *end, *tail, *panic = NULL;
	char line[160] = "";
	struct ul_run run;
	json_t *vm;

	out[0] = '\0';
	for (size_t i = 0; i < sc->n && !uuid; i++)
		if (sc->sum[i].status == UL_RUN_CRASHED && !strcmp(sc->sum[i].label, label))
			uuid = sc->sum[i].uuid;
	ul_run_init(&run);
	if (!uuid || store->ops->load_run(store, uuid, &run))
		goto out;
	vm = run.fingerprint ? json_object_get(run.fingerprint, "vm") : NULL;
	end = json_string_value(json_object_get(vm, "end"));
	tail = json_string_value(json_object_get(vm, "console_tail"));
	for (size_t i = 0; tail && i < UL_ARRAY_SIZE(marks); i++)
		for (const char *m = strstr(tail, marks[i]); m; m = strstr(m + 1, marks[i]))
			if (!panic || m > panic)
				panic = m;
	if (panic)
		snprintf(line, sizeof(line), "%.*s", (int)strcspn(panic, "\n"), panic);
	if (end)
		snprintf(out, len, "%s%s%s", ul_esc(end), line[0] ? ": " : "", ul_esc(line));
out:
	ul_run_release(&run);
}

/* The verdict from the rows: slower when any row is, decided when all are. */
static void from_rows(const struct ul_seqab *s, struct ul_bisect_verdict *v)
{
	const struct ul_seqab_row *shown = NULL;

	v->decided = s->n_rows && !s->open;
	for (size_t i = 0; i < s->n_rows; i++) {
		const struct ul_seqab_row *r = &s->rows[i];

		if (r->seq.verdict == UL_SEQ_ABOVE && !v->slower) {
			v->slower = true;
			shown = r;
		}
		if (r->seq.verdict == UL_SEQ_BELOW)
			v->faster = true;
		if (!shown && r->seq.verdict == UL_SEQ_OPEN)
			shown = r;
	}
	if (!shown && s->n_rows)
		shown = &s->rows[0];
	if (!shown) {
		snprintf(v->why, sizeof(v->why), "no test measured on both sides");
		return;
	}
	if (isfinite(shown->lo_pct))
		snprintf(v->why, sizeof(v->why),
			 "%s %s %s %+.1f%% [%+.1f%%, %+.1f%%] %s after %zu pair%s",
			 shown->metric->suite, shown->test, shown->metric->label, shown->change_pct,
			 shown->lo_pct, shown->hi_pct, ul_seqab_verdict_name(shown->seq.verdict),
			 s->pairs, s->pairs == 1 ? "" : "s");
	else
		snprintf(v->why, sizeof(v->why), "%s %s %s %+.1f%% unbounded, %s after %zu pair%s",
			 shown->metric->suite, shown->test, shown->metric->label, shown->change_pct,
			 ul_seqab_verdict_name(shown->seq.verdict), s->pairs,
			 s->pairs == 1 ? "" : "s");
}

int ul_bisect_read(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
		   struct ul_bisect_verdict *v)
{
	static struct ul_runcmp_metric metrics[UL_COMPARE_MAX_METRICS];
	struct ul_compare_state st = { 0 };
	struct ul_cmd_hosts no_hosts = { 0 };
	char *names[2] = { (char *)ab->labels[0], (char *)ab->labels[1] };
	/* vm --until-decided's plan (a pilot or not), for its own verdicts */
	const struct ul_decide_args da = { .until_decided = true,
					   .margin_centi = a->margin_centi,
					   .max_runs = a->max_runs };
	struct ul_seqab_opts o;
	struct ul_seqab s = { 0 };
	struct ul_store *store;
	size_t base_crashed = 0, cand_crashed = 0, n_base, n_cand;
	int ret;

	memset(v, 0, sizeof(*v));
	ul_decide_plan(&da, ul_vm_run_fixes_points(a->n_run_args, a->run_args) != 0, &o);
	/* The store exists: ul_cmd_bisect makes it before the first step. */
	ret = ul_cmd_open_store_settled(a->db_path, &store);
	if (ret)
		return ret;
	ret = ul_cmd_scope_open(store, &no_hosts, &st.sc);
	if (ret)
		goto out;
	n_base = count_label(&st.sc, ab->labels[0], &base_crashed, v);
	v->runs = n_base;
	n_cand = count_label(&st.sc, ab->labels[1], &cand_crashed, v);
	v->runs += n_cand;
	v->n_cand = n_cand;
	v->crashed = cand_crashed > 0;
	v->base_crashed = base_crashed > 0;
	if (!n_base || !n_cand)
		goto out;
	v->stored = true;
	if (v->crashed) {
		char how[160];

		crash_of(store, &st.sc, ab->labels[1], how, sizeof(how));
		snprintf(v->why, sizeof(v->why),
			 "%zu of its %zu boots crashed (%s%sshow --env: the console)", cand_crashed,
			 n_cand, how, how[0] ? "; " : "");
		goto out;
	}
	ret = ul_compare_select(&st, names, 2, names[0]);
	if (!ret && st.n_groups == 2) {
		size_t nm = ul_compare_pick_metrics(&st, NULL, metrics);

		if (ul_seqab_build(&st.groups[0], &st.groups[1], metrics, nm, &o, &s)) {
			ul_error("bisect: out of memory deciding the runs");
			ret = UL_EXIT_ERROR;
		} else {
			from_rows(&s, v);
		}
		ul_seqab_free(&s);
	}
out:
	ul_compare_state_free(&st);
	ul_store_close(store);
	return ret;
}

int ul_bisect_find_failed(const struct ul_bisect_args *a, const char *label, int64_t *id)
{
	struct ul_cmd_hosts no_hosts = { 0 };
	struct ul_cmd_scope sc = { 0 };
	struct ul_store *store;
	int ret;

	*id = 0;
	ret = ul_cmd_open_store_settled(a->db_path, &store);
	if (ret)
		return ret;
	ret = ul_cmd_scope_open(store, &no_hosts, &sc);
	for (size_t i = 0; !ret && i < sc.n && !*id; i++)
		if (sc.sum[i].status == UL_RUN_FAILED && !strcmp(sc.sum[i].label, label))
			*id = sc.sum[i].id;
	ul_cmd_scope_free(&sc);
	ul_store_close(store);
	return ret;
}

int ul_bisect_store_failed(const struct ul_bisect_args *a, const char *label, const char *what)
{
	struct ul_store *store;
	struct ul_run run;
	int ret = ul_cmd_open_store_rw(a->db_path, &store), rc;

	if (ret)
		return ret;
	ul_run_init(&run);
	rc = ul_run_new_uuid(&run);
	if (!rc)
		rc = ul_host_read(&run.host);
	if (rc) {
		ul_error_errno(rc, "bisect: cannot make the run of '%s'", label);
		ret = UL_EXIT_ERROR;
		goto out;
	}
	snprintf(run.label, sizeof(run.label), "%s", label);
	snprintf(run.tool_version, sizeof(run.tool_version), "%s", UL_VERSION);
	snprintf(run.argv, sizeof(run.argv), "%s", what);
	run.status = UL_RUN_FAILED;
	run.started_wall_ns = run.finished_wall_ns = ul_wall_ns();
	/* Stored failed from the start: no moment holds it running. */
	if (store->ops->begin_run(store, &run) || store->ops->finish_run(store, &run)) {
		ul_error("bisect: cannot store '%s': %s", label, store->err);
		ret = UL_EXIT_ERROR;
	}
out:
	ul_run_release(&run);
	ul_store_close(store);
	return ret;
}

int ul_bisect_set_aside(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
			const struct ul_bisect_verdict *v)
{
	const struct ul_cmd *relabel = ul_cmd_find("relabel");

	for (size_t i = 0; i < v->runs && i < UL_ARRAY_SIZE(v->ids); i++) {
		char id[32], label[160];
		char *argv[] = {
			(char *)"relabel", (char *)"--db", (char *)a->db_path, id, label, NULL
		};
		int rc;

		snprintf(id, sizeof(id), "%" PRId64, v->ids[i]);
		snprintf(label, sizeof(label), "%.100s~interrupted",
			 ab->labels[i < v->runs - (size_t)v->n_cand ? 0 : 1]);
		fflush(stdout);
		rc = relabel->fn(5, argv);
		if (rc)
			return rc;
	}
	return 0;
}

/* argv[*n], argv[*n + 1] = opt, value; *n moves past them. */
static void add_opt(char **argv, int *n, const char *opt, const char *value)
{
	argv[(*n)++] = (char *)opt;
	argv[(*n)++] = (char *)value;
}

/* UL_TEST_BISECT_VM's command in place of vm (above): 0 when it exits 0,
 * UL_EXIT_INTERRUPTED, else UL_EXIT_ERROR (a vm failing on the host's side). */
static int fake_vm(const char *cmd, const struct ul_bisect_args *a, const struct ul_bisect_ab *ab)
{
	char env[7][PATH_MAX + 64];
	const char *envp[8];
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)cmd, NULL };
	struct ul_bisect_exec x = {
		.what = "bisect: UL_TEST_BISECT_VM", .argv = argv, .env = envp, .out_fd = -1
	};
	const struct ul_bisect_kernel *k[2] = { &a->kernels[ab->base], &a->kernels[ab->cand] };
	int wstatus = 0, rc;

	snprintf(env[0], sizeof(env[0]), "UL_BISECT_DB=%s", a->db_path);
	for (int i = 0; i < 2; i++) {
		snprintf(env[1 + i], sizeof(env[0]), "UL_BISECT_LABEL_%c=%s", 'A' + i,
			 ab->labels[i]);
		snprintf(env[3 + i], sizeof(env[0]), "UL_BISECT_IMAGE_%c=%s", 'A' + i, k[i]->image);
		snprintf(env[5 + i], sizeof(env[0]), "UL_BISECT_APPEND_%c=%s", 'A' + i,
			 k[i]->append ? k[i]->append : "");
	}
	for (int i = 0; i < 7; i++)
		envp[i] = env[i];
	envp[7] = NULL;
	rc = ul_bisect_exec(&x, &wstatus);
	if (!rc && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0))
		rc = UL_EXIT_ERROR;
	return rc;
}

int ul_bisect_measure(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab)
{
	enum {
		FIXED = 22
	};
	char cpus[16], mem[32], hang[32], margin[32], max_runs[16], budget[32];
	char *argv[FIXED + 64 + 4];
	struct ul_vm_extra extra[2] = {
		{ ab->labels[0], a->kernels[ab->base].append },
		{ ab->labels[1], a->kernels[ab->cand].append },
	};
	const char *fake = ul_test_hook("UL_TEST_BISECT_VM");
	int n = 0;

	if (fake)
		return fake_vm(fake, a, ab);
	if (a->n_run_args > 64)
		return ul_usage_error("bisect", "at most 64 words after '--'");
	snprintf(cpus, sizeof(cpus), "%d", a->cpus);
	snprintf(mem, sizeof(mem), "%" PRId64, a->mem_bytes);
	snprintf(hang, sizeof(hang), "%" PRId64 "ns", a->hang_ns);
	snprintf(margin, sizeof(margin), "%.2f%%", (double)a->margin_centi / 100.0);
	snprintf(max_runs, sizeof(max_runs), "%d", a->max_runs);
	snprintf(budget, sizeof(budget), "%" PRId64 "ns", a->budget_ns);
	argv[n++] = (char *)"vm";
	add_opt(argv, &n, "--db", a->db_path);
	add_opt(argv, &n, "--label-from", "file");
	add_opt(argv, &n, "--cpus", cpus);
	add_opt(argv, &n, "--mem", mem);
	add_opt(argv, &n, "--hang-timeout", hang);
	add_opt(argv, &n, "--kernel", a->kernels[ab->base].image);
	add_opt(argv, &n, "--kernel", a->kernels[ab->cand].image);
	argv[n++] = (char *)"--until-decided";
	add_opt(argv, &n, "--margin", margin);
	add_opt(argv, &n, "--max-runs", max_runs);
	add_opt(argv, &n, "--budget", budget);
	argv[n++] = (char *)"--";
	for (int i = 0; i < a->n_run_args; i++)
		argv[n++] = a->run_args[i];
	argv[n] = NULL;
	fflush(stdout);
	return ul_cmd_vm_with(n, argv, extra, 2);
}
