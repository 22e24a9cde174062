/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload history`: the runs of one configuration across kernels, per
 * suite, test and metric the series of replicate medians and its change
 * points (cmd/history_build.c finds them, cmd/history_out.c prints).
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/history.h"
#include "cmd/verdict_opts.h"
#include "core/escape.h"
#include "core/log.h"
#include "model/suite.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char history_help[] =
	"The runs of one configuration (the host and settings of the newest run: CPUs,\n"
	"memory limit and budget, swap, interval, points, probe and load options; the\n"
	"kernel free to differ), one point per kernel release (version order), or per\n"
	"label (--order label: in the order the LABELs are given; date: by the label's\n"
	"first run).  Per suite, test and metric: each point's median of its runs'\n"
	"medians with the range of those run medians, and the change points of that\n"
	"series by E-Divisive means (Matteson and James 2014) with a permutation test,\n"
	"each with the change (median after against median before), the interval of the\n"
	"shift, its p-value and the fingerprint facts (kernel, config, sysctls,\n"
	"microcode ...) that differ between the two points.  With LABELs, only their\n"
	"runs.  See HISTORY in underload(1).\n"
	"\n";

struct history_args {
	const char *db;
	const char *suite;
	const char *order;
	const char *format;
	int64_t permutations;
	struct ul_cmd_hosts hosts;
	double alpha;
};

static int set_alpha(void *base, const char *arg, char *err, size_t errlen)
{
	return ul_parse_alpha("--alpha", arg, &((struct history_args *)base)->alpha, err, errlen);
}

#define A(member) UL_OPT_AT(struct history_args, member)
static const struct ul_opt history_opts[] = {
	{ "order", UL_OPT_CHOICE, .arg = "kernel|label|date", A(order), .def_str = "kernel",
	  .help = "one point per kernel release in version order (sort -V), or per label in "
		  "the order the LABELs are given (label) or of their first runs (date)" },
	{ "suite", UL_OPT_CALL, .arg = "NAME", A(suite), .set = ul_opt_set_suite,
	  .help = "only this suite" },
	{ "alpha", UL_OPT_CALL, .arg = "A", .set = set_alpha, .def_text = "0.05",
	  .help = "significance level of each change point's permutation test, 0 < A <= 0.5; "
		  "a series without a change reports one with probability at most A" },
	{ "permutations", UL_OPT_COUNT, 19, 100000, 999, .arg = "N", A(permutations),
	  .help = "shuffles of each permutation test (seeded: the same store gives the same "
		  "answer); the smallest p is 1/(N+1)" },
	UL_CMD_OPT_HOST(struct history_args, hosts, ""),
	{ "format", UL_OPT_CHOICE, .arg = "text|json|csv", A(format), .def_str = "text",
	  .help = "a table per test with its change points (text), or every number, for "
		  "machines (json, csv: one line per test and point)" },
	UL_CMD_OPT_DB(struct history_args),
	{ NULL },
};
#undef A

extern const struct ul_cmd ul_cmd_desc_history;

static enum ul_history_order order_of(const char *name)
{
	return !strcmp(name, "label")  ? UL_HISTORY_BY_LABEL
	       : !strcmp(name, "date") ? UL_HISTORY_BY_DATE
				       : UL_HISTORY_BY_KERNEL;
}

static int print_history(const struct ul_history *h, const char *format)
{
	int rc = !strcmp(format, "json")  ? ul_history_json(stdout, h)
		 : !strcmp(format, "csv") ? ul_history_csv(stdout, h)
					  : ul_history_text(stdout, h);

	if (rc && !ul_stdout_gone())
		ul_error("cannot write the history to standard output: %s", strerror(-rc));
	return rc ? UL_EXIT_ERROR : UL_EXIT_OK;
}

/* Every LABEL names a label of the scope's runs. */
static int check_labels(const struct ul_cmd_scope *sc, char **labels, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		bool found = false;

		for (size_t r = 0; r < sc->n && !found; r++)
			found = ul_cmd_label_has_run(&sc->sum[r], labels[i], NULL);
		if (!found)
			return ul_usage_error("history", "no finished run is labelled '%s'",
					      ul_esc(labels[i]));
	}
	return UL_EXIT_OK;
}

int ul_cmd_history(int argc, char **argv);
int ul_cmd_history(int argc, char **argv)
{
	struct history_args a = { .alpha = 0.05 };
	struct ul_cp_opts cp = UL_CP_OPTS_DEFAULT;
	struct ul_cmd_scope sc;
	struct ul_history h;
	struct ul_store *st;
	int first, rc = ul_cmd_parse(&ul_cmd_desc_history, &a, argc, argv, &first);

	if (rc)
		return rc == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : rc;
	rc = ul_cmd_open_store_settled(a.db, &st);
	if (rc)
		return rc;
	rc = ul_cmd_scope_open(st, &a.hosts, &sc);
	if (!rc)
		rc = ul_cmd_scope_check_any(&sc, "history");
	if (!rc)
		rc = check_labels(&sc, argv + first, (size_t)(argc - first));
	if (rc) {
		ul_cmd_scope_free(&sc);
		ul_store_close(st);
		return rc;
	}
	cp.alpha = a.alpha;
	cp.permutations = (unsigned)a.permutations;
	switch (ul_history_build(&sc, argv + first, (size_t)(argc - first), a.suite,
				 order_of(a.order), &cp, &h)) {
	case 0:
		rc = print_history(&h, a.format);
		break;
	case -ENOENT:
		ul_error("history: no finished run to read");
		rc = UL_EXIT_USAGE;
		break;
	case -EIO:
		rc = UL_EXIT_ERROR; /* the store's error is printed */
		break;
	default:
		ul_oom();
		rc = UL_EXIT_ERROR;
	}
	ul_history_free(&h);
	ul_cmd_scope_free(&sc);
	ul_store_close(st);
	return rc;
}

const struct ul_cmd ul_cmd_desc_history = {
	.name = "history",
	.summary = "the runs of one configuration across kernels, with change points",
	.operands = "[LABEL]...",
	.help = history_help,
	.opts = history_opts,
	.fn = ul_cmd_history,
};
