/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload report`: one self-contained HTML page (or one SVG file per
 * plot) of the stored runs named by label or run reference.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/history.h"
#include "cmd/outfile.h"
#include "core/log.h"
#include "report/html/html.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char report_help[] =
	"Write the pictures of stored runs: for every suite and test, every raw sample\n"
	"in time order, the empirical CDF and box plots, one colour per label; the\n"
	"change of each label against the baseline with its 95% CI and verdict;\n"
	"contest's Time and Loads, the deadline probe's latency over time with missed\n"
	"periods marked, micro's memory latency against working-set size; per run, the\n"
	"monitors' time series with the tests marked; the environment of the runs with\n"
	"their differences highlighted.\n"
	"\n"
	"A LABEL names every finished run of that label (crashed ones too), as compare\n"
	"does; a RUN is an id, a UUID (or a unique prefix of one) or 'last'; a name that\n"
	"is both is refused: write label:NAME or run:NAME.  Several runs of one label\n"
	"pool their samples.  No argument: every label so, oldest label first.  The\n"
	"first label is the baseline.\n"
	"With --host, labels, runs and 'last' are those of that host's runs.\n"
	"\n";

struct rep_args {
	const char *db, *output, *format, *baseline;
	struct ul_cmd_hosts hosts;
	bool svg;
	bool history; /* --history: the history's page instead */
	char **refs;
	size_t n_refs;
};

#define A(member) UL_OPT_AT(struct rep_args, member)

static const struct ul_opt report_opts[] = {
	{ "output", UL_OPT_STRING, .short_name = 'o', .arg = "PATH", A(output),
	  .def_text = "standard output (html)",
	  .help = "the page to write (html), or the directory for one NN-suite-test-kind.svg "
		  "file per plot (svg: created if missing; required)" },
	{ "format", UL_OPT_CHOICE, .arg = "html|svg", A(format), .def_str = "html",
	  .help = "one self-contained HTML page, or one SVG file per plot" },
	{ "baseline", UL_OPT_STRING, 0, 127, .arg = "LABEL", A(baseline),
	  .def_text = "the first label", .help = "the label the others are compared with" },
	{ "history", UL_OPT_FLAG, 0, 1, 0, A(history),
	  .help = "instead, the page of `underload history` (kernel order, the LABELs' runs "
		  "only when named): one trend plot per test with its change points marked" },
	UL_CMD_OPT_HOST(struct rep_args, hosts, ": LABEL and RUN name runs of them"),
	UL_CMD_OPT_DB(struct rep_args),
	{ NULL },
};

extern const struct ul_cmd ul_cmd_desc_report;

/* 0, or an exit code (UL_EXIT_USAGE, or -1 after --help). */
static int parse_args(int argc, char **argv, struct rep_args *a)
{
	int first, rc;

	memset(a, 0, sizeof(*a));
	rc = ul_cmd_parse(&ul_cmd_desc_report, a, argc, argv, &first);
	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? -1 : rc;
	a->svg = !strcmp(a->format, "svg");
	if (a->output && !*a->output)
		return ul_usage_error("report", "-o needs a path");
	if (a->svg && !a->output)
		return ul_usage_error("report", "--format svg needs -o DIRECTORY");
	if (a->history && (a->svg || a->baseline))
		return ul_usage_error("report", "--history writes one HTML page, with no baseline");
	a->refs = argv + first;
	a->n_refs = (size_t)(argc - first);
	if (a->baseline)
		a->baseline = ul_cmd_label_name(a->baseline); /* a label, "label:" or not */
	return 0;
}

/* Appends `id` to ids[0..*k) unless there: a run named twice is drawn once. */
static void add_id(int64_t *ids, size_t *k, int64_t id)
{
	for (size_t i = 0; i < *k; i++)
		if (ids[i] == id)
			return;
	ids[(*k)++] = id;
}

/*
 * Appends to ids every finished run labelled `label` (crashed ones too:
 * their finished cells are drawn, the crash is shown), oldest first, as
 * compare pools them (ul_cmd_label_has_run); sum is newest first.
 * Returns how many the label has.
 */
static size_t label_runs(const struct ul_run_summary *sum, size_t n, const char *label,
			 int64_t *ids, size_t *k)
{
	size_t found = 0;

	for (size_t i = n; i-- > 0;)
		if (ul_cmd_label_has_run(&sum[i], label, NULL)) {
			add_id(ids, k, sum[i].id);
			found++;
		}
	return found;
}

/* Every label's runs (label_runs()), the label with the oldest newest run first. */
static void default_refs(const struct ul_run_summary *sum, size_t n, int64_t *ids, size_t *k)
{
	for (size_t i = n; i-- > 0;) {
		bool newer = false;

		if (sum[i].status == UL_RUN_RUNNING)
			continue;
		for (size_t j = 0; j < i && !newer; j++)
			newer = ul_cmd_label_has_run(&sum[j], sum[i].label, NULL);
		if (!newer)
			(void)label_runs(sum, n, sum[i].label, ids, k);
	}
}

/* Loads the runs named (or the default ones) into *runs (calloc'ed, *nruns of them). */
static int load_runs(struct ul_store *st, const struct rep_args *a, struct ul_run **runs,
		     size_t *nruns)
{
	struct ul_cmd_scope sc;
	const struct ul_run_summary *sum;
	size_t n, k;
	int64_t *ids;
	int ret;

	*nruns = 0;
	ret = ul_cmd_scope_open(st, &a->hosts, &sc);
	if (ret) {
		ul_cmd_scope_free(&sc);
		return ret;
	}
	sum = sc.sum; /* the hosts' runs */
	n = sc.n;
	ret = ul_cmd_scope_check_any(&sc, "report");
	if (ret) {
		ul_cmd_scope_free(&sc);
		return ret;
	}
	/* each run once: at most the n listed, and one per name stored since */
	ids = calloc(n + a->n_refs + 1, sizeof(*ids));
	*runs = calloc(n + a->n_refs + 1, sizeof(**runs));
	if (!ids || !*runs) {
		ul_cmd_scope_free(&sc);
		free(ids);
		ul_oom();
		return UL_EXIT_ERROR;
	}
	k = 0;
	if (!a->n_refs)
		default_refs(sum, n, ids, &k);
	for (size_t i = 0; i < a->n_refs && ret == UL_EXIT_OK; i++) {
		struct ul_cmd_named nm;

		ret = ul_cmd_name(&sc, "report", a->refs[i], &nm);
		if (ret == UL_EXIT_OK && nm.is_label && !label_runs(sum, n, nm.label, ids, &k))
			ret = ul_usage_error("report", "label '%.64s' has no finished run",
					     nm.label);
		else if (ret == UL_EXIT_OK && !nm.is_label)
			add_id(ids, &k, nm.run.id);
	}
	for (size_t i = 0; i < k && ret == UL_EXIT_OK; i++) {
		struct ul_run *run = &(*runs)[(*nruns)++];
		char ref[32];

		snprintf(ref, sizeof(ref), "%lld", (long long)ids[i]);
		ret = ul_cmd_load_run(st, ref, run);
	}
	free(ids);
	if (ret == UL_EXIT_OK && !*nruns) {
		ul_error("no stored run to report on");
		ret = UL_EXIT_ERROR;
	}
	ul_cmd_scope_free(&sc);
	return ret;
}

/* --format svg: each figure is drawn into memory, then written as SLUG.svg
 * relative to the directory's descriptor (cmd/outfile.h). */
struct svg_dir {
	const char *dir;
	int dfd;
	char name[256];
	char *buf;
	size_t len, written;
};

static FILE *svg_open(void *ctx, const char *slug)
{
	struct svg_dir *s = ctx;

	snprintf(s->name, sizeof(s->name), "%s.svg", slug);
	s->buf = NULL;
	s->len = 0;
	return open_memstream(&s->buf, &s->len);
}

static int write_buffer(FILE *f, const void *arg)
{
	const struct svg_dir *s = arg;

	return fwrite(s->buf, 1, s->len, f) == s->len ? 0 : -EIO;
}

static int svg_close(void *ctx, FILE *f)
{
	struct svg_dir *s = ctx;
	int rc = fclose(f) ? -errno : 0;

	if (!rc && ul_outfile_write_at(s->dfd, s->dir, s->name, write_buffer, s))
		rc = -EIO; /* already said why */
	free(s->buf);
	s->buf = NULL;
	s->written += !rc;
	return rc;
}

struct html_job {
	const struct ul_run *const *runs;
	size_t n;
	const struct ul_report_opts *opts;
};

static int write_html(FILE *f, const void *arg)
{
	const struct html_job *j = arg;

	return ul_report_html(f, j->runs, j->n, j->opts);
}

/* dfd: the open -o directory of --format svg, else -1. */
static int write_report(const struct rep_args *a, int dfd, const struct ul_run *const *runs,
			size_t n)
{
	struct ul_report_opts ro = { .baseline = a->baseline };
	struct svg_dir sd = { .dir = a->output, .dfd = dfd };
	struct ul_report_sink sink = { svg_open, svg_close, &sd };
	struct html_job job = { runs, n, &ro };
	int rc;

	if (a->svg) {
		rc = ul_report_svgs(runs, n, &ro, &sink);
		if (rc && rc != -EIO)
			ul_error_errno(rc, "cannot write the plots into '%s'", a->output);
		else if (!rc)
			printf("%zu plots written to %s/\n", sd.written, a->output);
		return rc ? UL_EXIT_ERROR : UL_EXIT_OK;
	}
	if (!a->output || !strcmp(a->output, "-")) {
		rc = ul_report_html(stdout, runs, n, &ro);
		if (rc && !ul_stdout_gone())
			ul_error_errno(rc, "cannot write the report to standard output");
		return rc ? UL_EXIT_ERROR : UL_EXIT_OK;
	}
	return ul_outfile_write(a->output, write_html, &job) ? UL_EXIT_ERROR : UL_EXIT_OK;
}

static int write_history_page(FILE *f, const void *arg)
{
	return ul_history_html(f, arg);
}

/* --history: the history of the scope's runs (of the LABELs named) as a page. */
static int report_history(struct ul_store *st, const struct rep_args *a)
{
	struct ul_cp_opts cp = UL_CP_OPTS_DEFAULT;
	struct ul_cmd_scope sc;
	struct ul_history h;
	int rc = ul_cmd_scope_open(st, &a->hosts, &sc);

	for (size_t i = 0; i < a->n_refs; i++)
		a->refs[i] = (char *)ul_cmd_label_name(a->refs[i]);
	if (!rc)
		rc = ul_cmd_scope_check_any(&sc, "report");
	if (rc) {
		ul_cmd_scope_free(&sc);
		return rc;
	}
	rc = ul_history_build(&sc, a->refs, a->n_refs, NULL, UL_HISTORY_BY_KERNEL, &cp, &h);
	if (rc == -ENOENT)
		ul_error("report --history: no finished run to read");
	else if (rc == -ENOMEM)
		ul_oom();
	else if (!rc && (!a->output || !strcmp(a->output, "-"))) {
		rc = ul_history_html(stdout, &h);
		if (rc && !ul_stdout_gone())
			ul_error_errno(rc, "cannot write the report to standard output");
	} else if (!rc) {
		rc = ul_outfile_write(a->output, write_history_page, &h);
	}
	ul_history_free(&h);
	ul_cmd_scope_free(&sc);
	return rc ? UL_EXIT_ERROR : UL_EXIT_OK;
}

/* Refuse a bad -o before any work (the store is registered by then): the
 * page by the rules of every output file, the SVG directory opened (*dfd). */
static int check_output(const struct rep_args *a, int *dfd)
{
	*dfd = -1;
	if (a->svg)
		*dfd = ul_outfile_open_dir(a->output);
	else if (a->output && strcmp(a->output, "-") && ul_outfile_check(a->output))
		return UL_EXIT_USAGE;
	return a->svg && *dfd < 0 ? UL_EXIT_USAGE : UL_EXIT_OK;
}

int ul_cmd_report(int argc, char **argv);
int ul_cmd_report(int argc, char **argv)
{
	struct rep_args a;
	struct ul_store *st;
	struct ul_run *runs = NULL;
	const struct ul_run **ptrs = NULL;
	size_t n = 0;
	int dfd, ret = parse_args(argc, argv, &a);

	if (ret)
		return ret < 0 ? UL_EXIT_OK : ret;
	ret = ul_cmd_open_store_settled(a.db, &st);
	if (ret)
		return ret;
	ret = check_output(&a, &dfd);
	if (ret) {
		ul_store_close(st);
		return ret;
	}
	if (a.history) {
		ret = report_history(st, &a);
		ul_store_close(st);
		return ret;
	}
	ret = load_runs(st, &a, &runs, &n);
	ptrs = calloc(n + 1, sizeof(*ptrs));
	if (!ptrs && ret == UL_EXIT_OK) {
		ul_oom();
		ret = UL_EXIT_ERROR;
	}
	for (size_t i = 0; ptrs && i < n; i++)
		ptrs[i] = &runs[i];
	if (ret == UL_EXIT_OK && a.baseline) {
		bool found = false;

		for (size_t i = 0; i < n; i++)
			found |= !strcmp(runs[i].label, a.baseline);
		if (!found)
			ret = ul_usage_error("report",
					     "--baseline '%s': not a label of the runs "
					     "reported on",
					     a.baseline);
	}
	if (ret == UL_EXIT_OK)
		ret = write_report(&a, dfd, ptrs, n);
	if (dfd >= 0)
		close(dfd);
	for (size_t i = 0; i < n; i++)
		ul_run_release(&runs[i]);
	free(runs);
	free(ptrs);
	ul_store_close(st);
	return ret;
}

const struct ul_cmd ul_cmd_desc_report = {
	.name = "report",
	.summary = "an HTML page (or SVG files) of plots of stored runs, one colour per label",
	.operands = "[LABEL|RUN]...",
	.help = report_help,
	.opts = report_opts,
	.fn = ul_cmd_report,
};
