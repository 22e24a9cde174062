/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Which runs `underload compare` compares, in which groups: the labels
 * and runs named (cmd/names.c's rule, in the --host scope), or every
 * label's newest run; with several --host, each label once per host
 * (group "LABEL@HOST"); and the history of earlier runs that teaches a
 * row with one replicate a side its run-to-run variance.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/compare.h"
#include "core/escape.h"
#include "core/log.h"
#include "store/store.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* At most this many earlier runs (newest first) are read to learn the
 * run-to-run variance of a configuration. */
#define CMP_HISTORY_RUNS UL_COMPARE_HISTORY_MAX

/* The loaded run with this id, loading it on first use; NULL after an error. */
static struct ul_run *get_run(struct ul_compare_state *st, int64_t id)
{
	struct ul_run **nl, *run;
	char ref[32];

	for (size_t i = 0; i < st->n_loaded; i++)
		if (st->loaded[i]->id == id)
			return st->loaded[i];
	nl = realloc(st->loaded, (st->n_loaded + 1) * sizeof(*nl));
	run = calloc(1, sizeof(*run));
	if (!nl || !run) {
		free(run);
		if (nl)
			st->loaded = nl;
		ul_oom();
		return NULL;
	}
	st->loaded = nl;
	snprintf(ref, sizeof(ref), "%lld", (long long)id);
	if (ul_cmd_load_run(st->sc.st, ref, run)) {
		ul_run_release(run);
		free(run);
		return NULL;
	}
	st->loaded[st->n_loaded++] = run;
	return run;
}

/* A group's name: the label, or across hosts "LABEL@HOST"; -1 after a
 * usage error when it does not fit a group's label. */
static int group_name(const struct ul_compare_state *st, const char *label, const char *host,
		      char *buf, size_t len)
{
	int n = st->cross_host ? snprintf(buf, len, "%s@%s", label, host)
			       : snprintf(buf, len, "%s", label);

	if (n < 0 || (size_t)n >= len) {
		ul_usage_error("compare",
			       "label '%.64s' on host '%.64s' is too long a name for a "
			       "group (at most %zu bytes together)",
			       label, host, len - 2);
		return -1;
	}
	return 0;
}

/* The group of `name`, created at the end (or the front) when absent; NULL when full. */
static struct ul_runcmp_group *group_of(struct ul_compare_state *st, const char *name, bool front)
{
	struct ul_runcmp_group *g;

	for (size_t i = 0; i < st->n_groups; i++)
		if (!strcmp(st->groups[i].label, name)) {
			if (front && i) { /* the baseline moves first */
				struct ul_runcmp_group t = st->groups[i];

				memmove(&st->groups[1], &st->groups[0], i * sizeof(t));
				st->groups[0] = t;
			}
			return &st->groups[front ? 0 : i];
		}
	if (st->n_groups == UL_RUNCMP_MAX_GROUPS)
		return NULL;
	if (front) {
		memmove(&st->groups[1], &st->groups[0], st->n_groups * sizeof(st->groups[0]));
		g = &st->groups[0];
	} else {
		g = &st->groups[st->n_groups];
	}
	st->n_groups++;
	memset(g, 0, sizeof(*g));
	snprintf(g->label, sizeof(g->label), "%s", name);
	return g;
}

static int group_add(struct ul_runcmp_group *g, const struct ul_run *run)
{
	const struct ul_run **nr;

	for (size_t i = 0; i < g->n_runs; i++)
		if (g->runs[i] == run)
			return 0;
	nr = realloc(g->runs, (g->n_runs + 1) * sizeof(*nr));
	if (!nr) {
		ul_oom();
		return -1;
	}
	g->runs = nr;
	/* newest first: the header of a pooled run comes from the newest */
	size_t at = 0;

	while (at < g->n_runs && g->runs[at]->started_wall_ns >= run->started_wall_ns)
		at++;
	memmove(&g->runs[at + 1], &g->runs[at], (g->n_runs - at) * sizeof(*nr));
	g->runs[at] = run;
	g->n_runs++;
	return 0;
}

/* Add one stored run to the group of its label (and host): an exit code. */
static int add_run(struct ul_compare_state *st, int64_t id, bool front)
{
	struct ul_run *run = get_run(st, id); /* loaded once */
	struct ul_runcmp_group *g;
	char name[sizeof(g->label)];

	if (!run)
		return UL_EXIT_ERROR;
	if (group_name(st, run->label, run->host.hostname, name, sizeof(name)))
		return UL_EXIT_USAGE;
	g = group_of(st, name, front);
	if (!g)
		return ul_usage_error("compare",
				      "at most %d groups (labels, or labels on hosts) "
				      "at once",
				      UL_RUNCMP_MAX_GROUPS);
	return group_add(g, run) ? UL_EXIT_ERROR : 0;
}

/* A label's finished runs of one host (any host: NULL), into their group. */
static int add_label(struct ul_compare_state *st, const char *label, const char *host, bool front)
{
	bool any = false;
	char hosts[512];
	int ret;

	for (size_t i = 0; i < st->sc.n; i++) {
		const struct ul_run_summary *s = &st->sc.sum[i];

		if (!ul_cmd_label_has_run(s, label, host))
			continue;
		any = true;
		ret = add_run(st, s->id, front);
		if (ret)
			return ret;
	}
	if (any)
		return 0;
	if (!host)
		return ul_usage_error("compare", "label '%.64s' has no finished run", label);
	ul_cmd_scope_hosts_text(&st->sc, hosts, sizeof(hosts));
	return ul_usage_error("compare",
			      "label '%.64s' has no finished run of host '%s' (compared "
			      "across %s)",
			      label, ul_esc(host), hosts);
}

/* Add the runs `name` stands for (a label's finished runs, on each host
 * when across hosts, or one run) to its groups. */
static int add_named(struct ul_compare_state *st, const char *name, bool front)
{
	const struct ul_cmd_hosts *h = st->sc.hosts;
	struct ul_cmd_named nm;
	int ret = ul_cmd_name(&st->sc, "compare", name, &nm);

	if (ret)
		return ret;
	if (!nm.is_label)
		return add_run(st, nm.run.id, front);
	if (!st->cross_host)
		return add_label(st, nm.label, NULL, front);
	/* the first host's group ends first when each moves to the front */
	for (size_t k = 0; k < h->n && !ret; k++)
		ret = add_label(st, nm.label, h->name[front ? h->n - 1 - k : k], front);
	return ret;
}

/* Is there a finished run of s's label (and host, across hosts) newer than s (at j > i)? */
static bool newer_exists(const struct ul_compare_state *st, size_t i)
{
	const struct ul_run_summary *s = &st->sc.sum[i];

	for (size_t j = 0; j < st->sc.n; j++) {
		const struct ul_run_summary *o = &st->sc.sum[j];

		if (j != i && o->status != UL_RUN_RUNNING && !strcmp(o->label, s->label) &&
		    (!st->cross_host || !strcmp(o->hostname, s->hostname)) &&
		    (o->started_wall_ns > s->started_wall_ns ||
		     (o->started_wall_ns == s->started_wall_ns && j > i)))
			return true;
	}
	return false;
}

/* No names: every label (on each host, across hosts), its newest run,
 * ordered oldest label first. */
static int add_defaults(struct ul_compare_state *st)
{
	int ret = ul_cmd_scope_check_any(&st->sc, "compare");

	for (size_t i = 0; i < st->sc.n && !ret; i++)
		if (st->sc.sum[i].status != UL_RUN_RUNNING && !newer_exists(st, i))
			ret = add_run(st, st->sc.sum[i].id, false);
	if (ret)
		return ret;
	/* oldest newest-run first: the first measured label is the baseline */
	for (size_t i = 1; i < st->n_groups; i++)
		for (size_t j = i; j > 0 && st->groups[j].runs[0]->started_wall_ns <
						    st->groups[j - 1].runs[0]->started_wall_ns;
		     j--) {
			struct ul_runcmp_group t = st->groups[j];

			st->groups[j] = st->groups[j - 1];
			st->groups[j - 1] = t;
		}
	return 0;
}

int ul_compare_select(struct ul_compare_state *st, char **names, size_t n_names,
		      const char *baseline)
{
	int rc = 0;

	for (size_t i = 0; i < n_names && !rc; i++)
		rc = add_named(st, names[i], false);
	if (!rc && !n_names)
		rc = add_defaults(st);
	if (!rc && baseline)
		rc = add_named(st, baseline, true);
	if (!rc && !st->n_groups) {
		ul_error("compare: no finished run stored%s", n_names ? " under those names" : "");
		rc = UL_EXIT_ERROR;
	}
	return rc;
}

/* Is the run with this id one of the compared groups'? */
static bool compared(const struct ul_compare_state *st, int64_t id)
{
	for (size_t g = 0; g < st->n_groups; g++)
		for (size_t r = 0; r < st->groups[g].n_runs; r++)
			if (st->groups[g].runs[r]->id == id)
				return true;
	return false;
}

static int by_label(const void *a, const void *b)
{
	const struct ul_run_summary *const *x = a, *const *y = b;

	return strcmp((*x)->label, (*y)->label);
}

/* What a summary may teach of a between-run variance (history_rank). */
enum hist_rank {
	HIST_NO = 0,  /* running, another host, or compared */
	HIST_ONE,     /* its label's only run: only its own cells (--runs N) may */
	HIST_REPEATED /* its label has other such runs */
};

/*
 * Rank every summary (`rank` indexed like st->sc.all).  A label of one run
 * teaches only through replicate cells of its own (--runs N), which most
 * such runs lack: ranking its runs after the repeated labels' keeps them
 * from pushing those out of the window of CMP_HISTORY_RUNS.  0 or -ENOMEM.
 */
static int history_rank(const struct ul_compare_state *st, enum hist_rank *rank)
{
	const char *host = st->groups[0].runs[0]->host.hostname;
	const struct ul_run_summary **c = calloc(st->sc.n_all ? st->sc.n_all : 1, sizeof(*c));
	size_t n = 0;

	if (!c)
		return -ENOMEM;
	for (size_t k = 0; k < st->sc.n_all; k++) {
		const struct ul_run_summary *s = &st->sc.all[k];

		if (s->status != UL_RUN_RUNNING && !strcmp(s->hostname, host) &&
		    !compared(st, s->id))
			c[n++] = s;
	}
	qsort(c, n, sizeof(*c), by_label);
	for (size_t i = 0, j; i < n; i = j) {
		for (j = i + 1; j < n && !strcmp(c[j]->label, c[i]->label); j++)
			;
		for (size_t k = i; k < j; k++)
			rank[c[k] - st->sc.all] = j - i >= 2 ? HIST_REPEATED : HIST_ONE;
	}
	free(c);
	return 0;
}

/* Add a loaded history run to its label's group. */
static int history_add(struct ul_compare_state *st, const struct ul_run *run)
{
	struct ul_runcmp_group *g = NULL;

	for (size_t h = 0; h < st->n_history && !g; h++)
		if (!strcmp(st->history[h].label, run->label))
			g = &st->history[h];
	if (!g) {
		g = &st->history[st->n_history++];
		memset(g, 0, sizeof(*g));
		snprintf(g->label, sizeof(g->label), "%s", run->label);
	}
	return group_add(g, run);
}

/*
 * At most CMP_HISTORY_RUNS read: the runs of repeated labels newest first,
 * then the other runs newest first (history_rank).
 */
int ul_compare_pick_history(struct ul_compare_state *st)
{
	const struct ul_run *base = st->groups[0].runs[0];
	enum hist_rank *rank = calloc(st->sc.n_all ? st->sc.n_all : 1, sizeof(*rank));
	size_t read = 0;
	int rc = UL_EXIT_OK;

	if (!rank || history_rank(st, rank)) {
		free(rank);
		ul_oom();
		return UL_EXIT_ERROR;
	}
	/* sc.all is newest first (the store lists runs so) */
	for (int want = HIST_REPEATED; want >= HIST_ONE; want--)
		for (size_t k = 0; k < st->sc.n_all && read < CMP_HISTORY_RUNS && !rc; k++) {
			struct ul_run *run;

			if (rank[k] != (enum hist_rank)want)
				continue;
			read++;
			run = get_run(st, st->sc.all[k].id);
			if (!run)
				rc = UL_EXIT_ERROR;
			else if (ul_compare_same_config(run, base) && history_add(st, run))
				rc = UL_EXIT_ERROR;
		}
	free(rank);
	return rc;
}

void ul_compare_state_free(struct ul_compare_state *st)
{
	for (size_t g = 0; g < st->n_groups; g++)
		free(st->groups[g].runs);
	for (size_t h = 0; h < st->n_history; h++)
		free(st->history[h].runs);
	for (size_t i = 0; i < st->n_loaded; i++) {
		ul_run_release(st->loaded[i]);
		free(st->loaded[i]);
	}
	free(st->loaded);
	ul_cmd_scope_free(&st->sc);
}
