/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload compare`: what differs between the compared runs besides the
 * thing compared (kernel, CPU, memory, options, and every fact of their
 * fingerprints), and the pooled run the seed formats print for a label of
 * several runs.
 */
#include "core/compat.h"
#include "cmd/compare.h"
#include "core/parse.h"
#include "fingerprint/diff.h"
#include "probe/probe.h"
#include "report/replicate.h"

#include <errno.h>
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Is `what` (a property or a fingerprint key) one of expect's
 * comma-separated fnmatch(3) patterns (NULL: none)? */
static bool expected(const char *expect, const char *what)
{
	char copy[1024], *save = NULL, *tok;

	if (!expect)
		return false;
	snprintf(copy, sizeof(copy), "%s", expect);
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
		if (!fnmatch(tok, what, 0))
			return true;
	return false;
}

/* Bytes as "1.0 GiB", 0 as "none". */
static void fmt_bytes(char *buf, size_t len, uint64_t b)
{
	if (!b)
		snprintf(buf, len, "none");
	else
		snprintf(buf, len, "%.1f MiB", (double)b / (1024.0 * 1024.0));
}

/*
 * The -o ITEM.NAME=VALUE settings of a stored command line whose ITEM is
 * (want_probe) or is not a probe, sorted as given, space-separated.
 * Accepts "-o X", "-oX", "--option X" and "--option=X".
 */
static void item_options(const char *argv, bool want_probe, char *buf, size_t len)
{
	char copy[1024], *save = NULL, *tok, *val;
	bool next = false;
	size_t off = 0;

	buf[0] = '\0';
	snprintf(copy, sizeof(copy), "%s", argv);
	for (tok = strtok_r(copy, " ", &save); tok; tok = strtok_r(NULL, " ", &save)) {
		char item[64];
		const char *dot;

		val = NULL;
		if (next)
			val = tok;
		else if (!strncmp(tok, "--option=", 9))
			val = tok + 9;
		else if (!strncmp(tok, "-o", 2) && tok[2])
			val = tok + 2;
		next = !strcmp(tok, "-o") || !strcmp(tok, "--option");
		if (!val || !(dot = strchr(val, '.')) || (size_t)(dot - val) >= sizeof(item))
			continue;
		snprintf(item, sizeof(item), "%.*s", (int)(dot - val), val);
		if ((ul_probe_find(item) != NULL) != want_probe || off >= len)
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " " : "", val);
	}
	if (!buf[0])
		snprintf(buf, len, "(defaults)");
}

enum prop_kind {
	P_RELEASE,
	P_VERSION,
	P_HOST,
	P_CPUS,
	P_MODEL,
	P_MEM,
	P_SWAP,
	P_LIMIT,
	P_BUDGET,
	P_RUNSWAP,
	P_TOOL,
	P_INTERVAL,
	P_POINTS,
	P_PROBE,
	P_LOAD,
};

static const struct prop {
	const char *what;
	enum prop_kind kind;
	bool unfair; /* a difference makes the comparison unfair */
	bool in_fp;  /* the fingerprint says it too: left out when every run has one */
	enum ul_runcmp_env_kind env_kind; /* the kernel is compared; the rest: settings */
} props[] = {
	{ "kernel release", P_RELEASE, false, true, UL_ENV_COMPARED },
	{ "kernel version", P_VERSION, false, true, UL_ENV_COMPARED },
	{ "host", P_HOST, false, false },
	{ "CPU count", P_CPUS, false, false },
	{ "CPU model", P_MODEL, false, true },
	{ "memory", P_MEM, false, true },
	{ "swap", P_SWAP, false, true },
	{ "memory limit", P_LIMIT, true, false },
	{ "memory budget", P_BUDGET, true, false },
	{ "swap file", P_RUNSWAP, false, false },
	{ "tool version", P_TOOL, true, false },
	{ "interval", P_INTERVAL, false, false },
	{ "points", P_POINTS, false, false },
	{ "probe options", P_PROBE, true, false },
	{ "load options", P_LOAD, false, false },
};

/* Copy s into b[l], cut to fit (text for people: a cut value still reads). */
static void put(char *b, size_t l, const char *s)
{
	size_t n = strnlen(s, l - 1);

	memcpy(b, s, n);
	b[n] = '\0';
}

/* A property of one run as text. */
static void prop_value(enum prop_kind k, const struct ul_run *r, char *b, size_t l)
{
	switch (k) {
	case P_RELEASE:
		put(b, l, r->host.kernel_release);
		break;
	case P_VERSION:
		put(b, l, r->host.kernel_version);
		break;
	case P_HOST:
		put(b, l, r->host.hostname);
		break;
	case P_CPUS:
		snprintf(b, l, "%d", r->host.ncpu);
		break;
	case P_MODEL:
		put(b, l, r->host.cpu_model);
		break;
	case P_MEM:
		fmt_bytes(b, l, r->host.mem_total_bytes);
		break;
	case P_SWAP:
		fmt_bytes(b, l, r->host.swap_total_bytes);
		break;
	case P_LIMIT:
		fmt_bytes(b, l, r->params.mem_limit_bytes);
		break;
	case P_BUDGET:
		fmt_bytes(b, l, r->params.mem_budget_bytes);
		break;
	case P_RUNSWAP:
		fmt_bytes(b, l, r->params.swap_bytes);
		break;
	case P_TOOL:
		put(b, l, r->tool_version);
		break;
	case P_INTERVAL:
		ul_fmt_duration(b, l, r->params.interval_ns);
		break;
	case P_POINTS:
		snprintf(b, l, "%d-%d, CI target %.2f%%", r->params.min_points,
			 r->params.max_points, (double)r->params.ci_target_centi / 100.0);
		break;
	case P_PROBE:
	case P_LOAD:
		item_options(r->argv, k == P_PROBE, b, l);
		break;
	}
}

/* The value of a property for a group: its runs' values, distinct ones joined by " | ". */
static void group_value(const struct ul_runcmp_group *g, enum prop_kind k, char *buf, size_t len)
{
	char one[160];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t r = 0; r < g->n_runs && off < len; r++) {
		prop_value(k, g->runs[r], one, sizeof(one));
		if (r && strstr(buf, one))
			continue;
		if (off) {
			put(buf + off, len - off, " | ");
			off = strlen(buf);
		}
		put(buf + off, len - off, one);
		off = strlen(buf);
	}
}

/* How many of the compared runs there are, and how many have a fingerprint. */
static void count_fingerprints(const struct ul_runcmp *c, size_t *runs, size_t *with)
{
	*runs = *with = 0;
	for (size_t g = 0; g < c->n_groups; g++)
		for (size_t r = 0; r < c->groups[g].n_runs; r++) {
			(*runs)++;
			*with += c->groups[g].runs[r]->fingerprint != NULL;
		}
}

/* Append `one` to a group's value unless it is there already (" | " between). */
static void add_distinct(char *buf, size_t len, const char *one)
{
	size_t off = strlen(buf);

	if (off && strstr(buf, one))
		return;
	if (off) {
		put(buf + off, len - off, " | ");
		off = strlen(buf);
	}
	put(buf + off, len - off, one);
}

/* A fingerprint class as the kind of an environment difference. */
static enum ul_runcmp_env_kind fp_kind(const char *key)
{
	switch (ul_fp_classify(key)) {
	case UL_FP_EXPECTED:
		return UL_ENV_COMPARED;
	case UL_FP_VOLATILE:
		return UL_ENV_STATE;
	case UL_FP_UNFAIR:
		break;
	}
	return UL_ENV_SETTING;
}

/*
 * Does run's value of the state `key` cross a threshold that changes what
 * the run measured?  Then note says which, and where:
 *  - memory.available_kb below the run's memory budget when that is a
 *    --mem-limit (below MemTotal): its memory loads and mtest were sized
 *    for memory the machine could not give without reclaiming it (page
 *    cache, swap).  The default budget, MemTotal, is never available, so
 *    a threshold there would trip on every run; the doctor's memory
 *    checks speak for the whole machine;
 *  - a doctor finding (doctor.*) at warn or blocker level: the doctor
 *    judged the machine doubtful or unfit for measuring at that moment.
 * Every other state (uptime, load average, page cache, top processes,
 * free blocks ...) differs between any two runs and is shown by --env all.
 */
static bool state_matters(const char *key, const char *value, const struct ul_run *run,
			  const char *label, char *note, size_t len)
{
	uint64_t budget = run->params.mem_budget_bytes;

	if (!strcmp(key, "memory.available_kb")) {
		char *end;
		unsigned long long kb;

		errno = 0;
		kb = strtoull(value, &end, 10);
		if (errno || end == value || *end || !budget ||
		    budget >= run->host.mem_total_bytes || kb * 1024 >= budget)
			return false;
		snprintf(note, len, "below the memory budget (%llu MiB) in '%s'",
			 (unsigned long long)(budget >> 20), label);
		return true;
	}
	if (!strncmp(key, "doctor.", 7) &&
	    (!strncmp(value, "warn:", 5) || !strncmp(value, "blocker:", 8))) {
		snprintf(note, len, "a doctor %.*s in '%s'", (int)strcspn(value, ":"), value,
			 label);
		return true;
	}
	return false;
}

/*
 * The fact `key` across every run (flat[i]: run i's flat fingerprint, in
 * group order): listed when any two runs differ, unfair when its class
 * says so and the values differ in what decides fairness; shown by
 * default unless it is a state no run's value of which matters.
 */
static int fingerprint_fact(struct ul_runcmp *c, json_t *const *flat, const char *key,
			    const char *expect)
{
	struct ul_runcmp_env e;
	char first[512], fair[512];
	bool differ = false, unfair = false;
	size_t i = 0;

	memset(&e, 0, sizeof(e));
	put(e.what, sizeof(e.what), key);
	e.kind = fp_kind(key);
	e.shown = e.kind != UL_ENV_STATE;
	for (size_t g = 0; g < c->n_groups; g++)
		for (size_t r = 0; r < c->groups[g].n_runs; r++, i++) {
			const char *v = json_string_value(json_object_get(flat[i], key));

			v = v ? v : "(not recorded)";
			add_distinct(e.value[g], sizeof(e.value[g]), v);
			if (e.kind == UL_ENV_STATE && !e.shown)
				e.shown = state_matters(key, v, c->groups[g].runs[r],
							c->groups[g].label, e.note, sizeof(e.note));
			ul_fp_fair_value(key, v, fair, sizeof(fair));
			if (!i)
				snprintf(first, sizeof(first), "%s", fair);
			unfair |= strcmp(first, fair) != 0;
			differ |= strstr(e.value[g], " | ") ||
				  (g && strcmp(e.value[g], e.value[0]));
		}
	if (!differ)
		return 0;
	e.unfair = unfair && ul_fp_classify(key) == UL_FP_UNFAIR && !expected(expect, key);
	e.shown |= e.unfair;
	return ul_runcmp_add_env(c, &e);
}

/* Every fact of the runs' fingerprints that differs between them. */
static int fingerprint_env(struct ul_runcmp *c, size_t n_runs, const char *expect)
{
	json_t **flat = calloc(n_runs, sizeof(*flat)), *keys = json_object(), *v;
	const char *key;
	size_t i = 0;
	int rc = flat && keys ? 0 : -ENOMEM;

	for (size_t g = 0; !rc && g < c->n_groups; g++)
		for (size_t r = 0; !rc && r < c->groups[g].n_runs; r++, i++) {
			flat[i] = ul_fp_flatten(c->groups[g].runs[r]->fingerprint);
			rc = flat[i] ? json_object_update_missing(keys, flat[i]) : -ENOMEM;
		}
	json_object_foreach (keys, key, v) {
		if (rc)
			break;
		rc = fingerprint_fact(c, flat, key, expect) ? -ENOMEM : 0;
	}
	for (i = 0; flat && i < n_runs; i++)
		json_decref(flat[i]);
	free(flat);
	json_decref(keys);
	return rc ? -ENOMEM : 0;
}

/*
 * Is the run of this host and configuration, whatever its kernel?  Where
 * compare learns the run-to-run variance of a configuration.
 */
bool ul_compare_same_config(const struct ul_run *a, const struct ul_run *b)
{
	/* what shapes the measurement, not what is being compared (kernel) */
	static const enum prop_kind same[] = { P_HOST,	  P_CPUS,     P_MODEL,	P_LIMIT, P_BUDGET,
					       P_RUNSWAP, P_INTERVAL, P_POINTS, P_PROBE, P_LOAD };
	char va[256], vb[256];

	for (size_t i = 0; i < UL_ARRAY_SIZE(same); i++) {
		prop_value(same[i], a, va, sizeof(va));
		prop_value(same[i], b, vb, sizeof(vb));
		if (strcmp(va, vb))
			return false;
	}
	return true;
}

/* The bytes one mtest01 run of a group allocated: the median of each
 * cell's mtest01 bytes series (only the mtest suite measures with that
 * probe), distinct values joined by " | ". */
static void mtest_bytes(const struct ul_runcmp_group *g, char *buf, size_t len)
{
	char one[32];

	buf[0] = '\0';
	for (size_t r = 0; r < g->n_runs; r++)
		for (size_t i = 0; i < g->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &g->runs[r]->cells[i];
			const struct ul_series *s = ul_cell_find_series(c, "mtest_bytes");

			if (c->outcome != UL_CELL_OK || !s || !s->n)
				continue;
			fmt_bytes(one, sizeof(one), (uint64_t)s->v[s->n / 2]);
			add_distinct(buf, len, one);
		}
}

/* Dilger's "not an equal test": mtest sides that allocated different
 * amounts are listed, unfair. */
static int mtest_bytes_env(struct ul_runcmp *c)
{
	struct ul_runcmp_env e;
	bool differ = false;

	memset(&e, 0, sizeof(e));
	snprintf(e.what, sizeof(e.what), "mtest bytes allocated");
	for (size_t g = 0; g < c->n_groups; g++) {
		mtest_bytes(&c->groups[g], e.value[g], sizeof(e.value[g]));
		if (!e.value[g][0])
			return 0; /* a side without mtest: nothing to compare */
		differ |= strstr(e.value[g], " | ") || (g && strcmp(e.value[g], e.value[0]));
	}
	e.unfair = e.shown = true;
	return differ ? ul_runcmp_add_env(c, &e) : 0;
}

int ul_compare_env(struct ul_runcmp *c, const char *expect)
{
	size_t n_runs, with;

	count_fingerprints(c, &n_runs, &with);
	for (size_t i = 0; i < UL_ARRAY_SIZE(props); i++) {
		struct ul_runcmp_env e;
		bool differ = false;

		if (props[i].in_fp && with == n_runs)
			continue;
		memset(&e, 0, sizeof(e));
		snprintf(e.what, sizeof(e.what), "%s", props[i].what);
		for (size_t g = 0; g < c->n_groups; g++) {
			group_value(&c->groups[g], props[i].kind, e.value[g], sizeof(e.value[g]));
			differ |= strstr(e.value[g], " | ") != NULL ||
				  (g && strcmp(e.value[g], e.value[0]));
		}
		if (!differ)
			continue;
		e.unfair = props[i].unfair && !expected(expect, props[i].what);
		e.kind = props[i].env_kind;
		e.shown = true;
		if (ul_runcmp_add_env(c, &e))
			return -ENOMEM;
	}
	if (mtest_bytes_env(c))
		return -ENOMEM;
	if (with == n_runs)
		return fingerprint_env(c, n_runs, expect);
	if (with) { /* some runs predate fingerprints: there is nothing to set against */
		struct ul_runcmp_env e;

		memset(&e, 0, sizeof(e));
		e.shown = true;
		snprintf(e.what, sizeof(e.what), "fingerprint");
		for (size_t g = 0; g < c->n_groups; g++)
			for (size_t r = 0; r < c->groups[g].n_runs; r++)
				add_distinct(e.value[g], sizeof(e.value[g]),
					     c->groups[g].runs[r]->fingerprint ? "recorded"
									       : "not recorded");
		return ul_runcmp_add_env(c, &e);
	}
	return 0;
}

/* Deep copy of a cell's results into a new cell of `out`. */
static int copy_cell(struct ul_run *out, const struct ul_cell *c)
{
	struct ul_cell *n = ul_run_add_cell(out);
	int seq;

	if (!n)
		return -ENOMEM;
	seq = n->seq;
	memcpy(n, c, sizeof(*n));
	n->seq = seq;
	n->series = NULL;
	n->n_series = 0;
	n->metrics = NULL;
	n->n_metrics = 0;
	for (size_t m = 0; m < c->n_metrics; m++)
		if (ul_cell_set_metric(n, c->metrics[m].name, c->metrics[m].value))
			return -ENOMEM;
	return 0;
}

/* Append every series of c to the same-named series of n. */
static int append_series(struct ul_cell *n, const struct ul_cell *c)
{
	for (size_t s = 0; s < c->n_series; s++) {
		struct ul_series *dst = ul_cell_series(n, c->series[s].name);

		if (!dst)
			return -ENOMEM;
		for (size_t i = 0; i < c->series[s].n; i++)
			if (ul_series_push(dst, c->series[s].v[i]))
				return -ENOMEM;
	}
	return 0;
}

int ul_compare_pool_run(const struct ul_runcmp_group *g, const char *suite, struct ul_run *out)
{
	const struct ul_run *head = g->runs[0];

	ul_run_init(out);
	out->id = head->id;
	memcpy(out->uuid, head->uuid, sizeof(out->uuid));
	/* the group's name: across hosts LABEL@HOST, which the tables then show */
	snprintf(out->label, sizeof(out->label), "%s", g->label);
	memcpy(out->tool_version, head->tool_version, sizeof(out->tool_version));
	memcpy(out->argv, head->argv, sizeof(out->argv));
	snprintf(out->suites, sizeof(out->suites), "%s", suite);
	out->status = head->status;
	out->started_wall_ns = head->started_wall_ns;
	out->finished_wall_ns = head->finished_wall_ns;
	out->host = head->host;
	out->params = head->params;
	for (size_t r = 0; r < g->n_runs; r++) {
		for (size_t i = 0; i < g->runs[r]->n_cells; i++) {
			const struct ul_cell *c = &g->runs[r]->cells[i];
			struct ul_cell *n = NULL;
			bool fresh;

			if (strcmp(c->suite, suite))
				continue;
			for (size_t j = 0; j < out->n_cells && !n; j++)
				if (!strcmp(out->cells[j].load, c->load) &&
				    !strcmp(out->cells[j].probe, c->probe))
					n = &out->cells[j];
			fresh = !n;
			if (fresh) {
				if (copy_cell(out, c))
					return -ENOMEM;
				n = &out->cells[out->n_cells - 1];
			} else if (n->outcome == UL_CELL_OK && c->outcome != UL_CELL_OK) {
				continue; /* a failed cell adds nothing to a valid one */
			}
			/* a further replicate: its counts (dropouts ...) pooled too */
			if (append_series(n, c) || (!fresh && ul_report_pool_metrics(n, c)))
				return -ENOMEM;
		}
	}
	return 0;
}
