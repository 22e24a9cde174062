/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload compare`: what differs between the compared runs besides the
 * thing compared (kernel, CPU, memory, options), and the pooled run the
 * seed formats print for a label of several runs.
 */
#include "core/compat.h"
#include "cmd/compare.h"
#include "core/parse.h"
#include "probe/probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* One property: its text per run. */
typedef void (*prop_fn)(const struct ul_run *run, char *buf, size_t len);

static void p_release(const struct ul_run *r, char *b, size_t l) { snprintf(b, l, "%s", r->host.kernel_release); }
static void p_version(const struct ul_run *r, char *b, size_t l) { snprintf(b, l, "%s", r->host.kernel_version); }
static void p_host(const struct ul_run *r, char *b, size_t l) { snprintf(b, l, "%s", r->host.hostname); }
static void p_cpus(const struct ul_run *r, char *b, size_t l) { snprintf(b, l, "%d", r->host.ncpu); }
static void p_model(const struct ul_run *r, char *b, size_t l) { snprintf(b, l, "%s", r->host.cpu_model); }
static void p_mem(const struct ul_run *r, char *b, size_t l) { fmt_bytes(b, l, r->host.mem_total_bytes); }
static void p_swap(const struct ul_run *r, char *b, size_t l) { fmt_bytes(b, l, r->host.swap_total_bytes); }
static void p_limit(const struct ul_run *r, char *b, size_t l) { fmt_bytes(b, l, r->params.mem_limit_bytes); }
static void p_budget(const struct ul_run *r, char *b, size_t l) { fmt_bytes(b, l, r->params.mem_budget_bytes); }
static void p_runswap(const struct ul_run *r, char *b, size_t l) { fmt_bytes(b, l, r->params.swap_bytes); }
static void p_tool(const struct ul_run *r, char *b, size_t l) { snprintf(b, l, "%s", r->tool_version); }
static void p_probe(const struct ul_run *r, char *b, size_t l) { item_options(r->argv, true, b, l); }
static void p_load(const struct ul_run *r, char *b, size_t l) { item_options(r->argv, false, b, l); }

static void p_interval(const struct ul_run *r, char *b, size_t l)
{
	ul_fmt_duration(b, l, r->params.interval_ns);
}

static void p_points(const struct ul_run *r, char *b, size_t l)
{
	snprintf(b, l, "%d-%d, CI target %.2f%%", r->params.min_points, r->params.max_points,
		 (double)r->params.ci_target_centi / 100.0);
}

static const struct prop {
	const char *what;
	prop_fn fn;
	bool unfair; /* a difference makes the comparison unfair */
} props[] = {
	{ "kernel release", p_release, false },	 { "kernel version", p_version, false },
	{ "host", p_host, false },		 { "CPU count", p_cpus, false },
	{ "CPU model", p_model, false },	 { "memory", p_mem, false },
	{ "swap", p_swap, false },		 { "memory limit", p_limit, true },
	{ "memory budget", p_budget, true },	 { "swap file", p_runswap, false },
	{ "tool version", p_tool, true },	 { "interval", p_interval, false },
	{ "points", p_points, false },		 { "probe options", p_probe, true },
	{ "load options", p_load, false },
};

/* The value of a property for a group: its runs' values, distinct ones joined by " | ". */
static void group_value(const struct ul_runcmp_group *g, prop_fn fn, char *buf, size_t len)
{
	char one[160];
	size_t off = 0;

	buf[0] = '\0';
	for (size_t r = 0; r < g->n_runs && off < len; r++) {
		fn(g->runs[r], one, sizeof(one));
		if (r && strstr(buf, one))
			continue;
		off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? " | " : "", one);
	}
}

int ul_compare_env(struct ul_runcmp *c)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(props); i++) {
		struct ul_runcmp_env e;
		bool differ = false;

		memset(&e, 0, sizeof(e));
		snprintf(e.what, sizeof(e.what), "%s", props[i].what);
		for (size_t g = 0; g < c->n_groups; g++) {
			group_value(&c->groups[g], props[i].fn, e.value[g], sizeof(e.value[g]));
			differ |= strstr(e.value[g], " | ") != NULL ||
				  (g && strcmp(e.value[g], e.value[0]));
		}
		if (!differ)
			continue;
		e.unfair = props[i].unfair;
		if (ul_runcmp_add_env(c, &e))
			return -ENOMEM;
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
	memcpy(out->label, head->label, sizeof(out->label));
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

			if (strcmp(c->suite, suite))
				continue;
			for (size_t j = 0; j < out->n_cells && !n; j++)
				if (!strcmp(out->cells[j].load, c->load) &&
				    !strcmp(out->cells[j].probe, c->probe))
					n = &out->cells[j];
			if (!n) {
				if (copy_cell(out, c))
					return -ENOMEM;
				n = &out->cells[out->n_cells - 1];
			} else if (n->outcome == UL_CELL_OK && c->outcome != UL_CELL_OK) {
				continue; /* a failed cell adds nothing to a valid one */
			}
			if (append_series(n, c))
				return -ENOMEM;
		}
	}
	return 0;
}
