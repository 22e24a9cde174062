/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Allocation and naming helpers for the result model; no I/O but getrandom. */
#include "core/compat.h"
#include "model/model.h"

#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

void ul_run_init(struct ul_run *run)
{
	memset(run, 0, sizeof(*run));
}

void ul_cell_release(struct ul_cell *cell)
{
	for (size_t i = 0; i < cell->n_series; i++)
		free(cell->series[i].v);
	free(cell->series);
	free(cell->metrics);
	cell->series = NULL;
	cell->metrics = NULL;
	cell->n_series = cell->n_metrics = 0;
	cell->cap_series = cell->cap_metrics = 0;
}

void ul_run_release(struct ul_run *run)
{
	for (size_t i = 0; i < run->n_cells; i++)
		ul_cell_release(&run->cells[i]);
	free(run->cells);
	json_decref(run->fingerprint);
	ul_run_init(run);
}

struct ul_cell *ul_run_add_cell(struct ul_run *run)
{
	struct ul_cell *c;

	if (run->n_cells == run->cap_cells) {
		size_t cap = run->cap_cells ? run->cap_cells * 2 : 8;
		struct ul_cell *nc = realloc(run->cells, cap * sizeof(*nc));

		if (!nc)
			return NULL;
		run->cells = nc;
		run->cap_cells = cap;
	}
	c = &run->cells[run->n_cells];
	memset(c, 0, sizeof(*c));
	c->seq = (int)run->n_cells++;
	return c;
}

int ul_run_new_uuid(struct ul_run *run)
{
	unsigned char b[16];

	if (getrandom(b, sizeof(b), 0) != (ssize_t)sizeof(b))
		return -EIO;
	b[6] = (unsigned char)((b[6] & 0x0f) | 0x40);
	b[8] = (unsigned char)((b[8] & 0x3f) | 0x80);
	snprintf(run->uuid, sizeof(run->uuid),
		 "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", b[0], b[1],
		 b[2], b[3], b[4], b[5], b[6], b[7], b[8], b[9], b[10], b[11], b[12], b[13], b[14],
		 b[15]);
	return 0;
}

char *ul_uuid_canon(char *s)
{
	for (char *p = s; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	return s;
}

const struct ul_series *ul_cell_find_series(const struct ul_cell *cell, const char *name)
{
	for (size_t i = 0; i < cell->n_series; i++)
		if (!strcmp(cell->series[i].name, name))
			return &cell->series[i];
	return NULL;
}

/*
 * Room for element n of an array of `size`-byte elements with *cap
 * allocated, growing geometrically (appending n elements costs O(n)).  A
 * NULL array or a cap below n + 1 (unknown: sized by other code) is
 * reallocated.  NULL (v kept) without memory.
 */
static void *grow(void *v, size_t n, size_t *cap, size_t size)
{
	size_t ncap = n < 4 ? 4 : n * 2;
	void *nv;

	if (v && n < *cap)
		return v;
	if (ncap > SIZE_MAX / size)
		return NULL;
	nv = realloc(v, ncap * size);
	if (nv)
		*cap = ncap;
	return nv;
}

struct ul_series *ul_cell_add_series(struct ul_cell *cell, const char *name)
{
	struct ul_series *ns = grow(cell->series, cell->n_series, &cell->cap_series, sizeof(*ns));

	if (!ns)
		return NULL;
	cell->series = ns;
	ns = &cell->series[cell->n_series++];
	memset(ns, 0, sizeof(*ns));
	snprintf(ns->name, sizeof(ns->name), "%s", name);
	return ns;
}

int ul_cell_add_metric(struct ul_cell *cell, const char *name, double value)
{
	struct ul_metric *nm =
		grow(cell->metrics, cell->n_metrics, &cell->cap_metrics, sizeof(*nm));

	if (!nm)
		return -ENOMEM;
	cell->metrics = nm;
	nm = &cell->metrics[cell->n_metrics++];
	snprintf(nm->name, sizeof(nm->name), "%s", name);
	nm->value = value;
	return 0;
}

struct ul_series *ul_cell_series(struct ul_cell *cell, const char *name)
{
	for (size_t i = 0; i < cell->n_series; i++)
		if (!strcmp(cell->series[i].name, name))
			return &cell->series[i];
	return ul_cell_add_series(cell, name);
}

int ul_series_reserve(struct ul_series *s, size_t need)
{
	const size_t most = SIZE_MAX / sizeof(*s->v);
	size_t cap = s->cap ? (s->cap < most / 2 ? s->cap * 2 : most) : 16;
	int64_t *nv;

	if (need <= s->cap)
		return 0;
	if (need > most)
		return -ENOMEM;
	if (cap < need)
		cap = need;
	nv = realloc(s->v, cap * sizeof(*nv));
	if (!nv)
		return -ENOMEM;
	s->v = nv;
	s->cap = cap;
	return 0;
}

int ul_series_push(struct ul_series *s, int64_t v)
{
	int r = ul_series_reserve(s, s->n + 1); /* n <= cap: no overflow */

	if (r)
		return r;
	s->v[s->n++] = v;
	return 0;
}

int ul_cell_set_metric(struct ul_cell *cell, const char *name, double value)
{
	for (size_t i = 0; i < cell->n_metrics; i++) {
		if (!strcmp(cell->metrics[i].name, name)) {
			cell->metrics[i].value = value;
			return 0;
		}
	}
	return ul_cell_add_metric(cell, name, value);
}

bool ul_cell_metric(const struct ul_cell *cell, const char *name, double *value)
{
	for (size_t i = 0; i < cell->n_metrics; i++) {
		if (!strcmp(cell->metrics[i].name, name)) {
			*value = cell->metrics[i].value;
			return true;
		}
	}
	return false;
}

int ul_cell_round(const struct ul_cell *cell)
{
	double r;

	if (!ul_cell_metric(cell, UL_CELL_ROUND, &r) || !(r >= 1) || r > INT_MAX)
		return 1;
	return (int)r;
}

static const char *const run_status_names[] = {
	[UL_RUN_RUNNING] = "running",	      [UL_RUN_COMPLETE] = "complete",
	[UL_RUN_INTERRUPTED] = "interrupted", [UL_RUN_FAILED] = "failed",
	[UL_RUN_PARTIAL] = "partial",	      [UL_RUN_CRASHED] = "crashed",
	[UL_RUN_UNKNOWN] = "unknown",
};

static const char *const cell_outcome_names[] = {
	[UL_CELL_OK] = "ok",
	[UL_CELL_LOAD_FAILED] = "load-failed",
	[UL_CELL_LOAD_DIED] = "load-died",
	[UL_CELL_PROBE_FAILED] = "probe-failed",
	[UL_CELL_INTERRUPTED] = "interrupted",
	[UL_CELL_CRASHED] = "crashed",
};

static int name_lookup(const char *const *names, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && !strcmp(names[i], name))
			return (int)i;
	return -EINVAL;
}

const char *ul_run_status_name(enum ul_run_status s)
{
	return (size_t)s < UL_ARRAY_SIZE(run_status_names) ? run_status_names[s] : "unknown";
}

int ul_run_status_parse(const char *name, enum ul_run_status *out)
{
	int i = name_lookup(run_status_names, UL_ARRAY_SIZE(run_status_names), name);

	if (i < 0 || i == UL_RUN_UNKNOWN)
		return -EINVAL;
	*out = (enum ul_run_status)i;
	return 0;
}

const char *ul_cell_outcome_name(enum ul_cell_outcome o)
{
	return (size_t)o < UL_ARRAY_SIZE(cell_outcome_names) ? cell_outcome_names[o] : "unknown";
}

int ul_cell_outcome_parse(const char *name, enum ul_cell_outcome *out)
{
	int i = name_lookup(cell_outcome_names, UL_ARRAY_SIZE(cell_outcome_names), name);

	if (i < 0)
		return i;
	*out = (enum ul_cell_outcome)i;
	return 0;
}

/* A registry name: printable ASCII, no blank; empty only when allowed. */
static bool name_ok(const char *s, size_t cap, bool may_be_empty)
{
	size_t len = strnlen(s, cap);

	if (len == cap || (!len && !may_be_empty))
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] <= 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

/* A unit ("MB written"): printable ASCII, single blanks allowed. */
static bool unit_ok(const char *s, size_t cap)
{
	size_t len = strnlen(s, cap);

	if (len == cap)
		return false;
	for (size_t i = 0; i < len; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] >= 0x7f)
			return false;
	return true;
}

bool ul_uuid_valid(const char *u)
{
	for (int i = 0; i < 36; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;
		char c = u[i];

		if (dash ? c != '-'
			 : !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') ||
			     (c >= 'A' && c <= 'F')))
			return false;
	}
	return u[36] == '\0';
}

static int bad(char *why, size_t len, const char *what, int seq)
{
	if (seq < 0)
		snprintf(why, len, "%s", what);
	else
		snprintf(why, len, "cell %d: %s", seq, what);
	return -EINVAL;
}

static int cmp_name(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x > y) - (x < y);
}

/*
 * Is a name used twice among the n names at base, base + stride, ...?  By
 * sorting pointers to them: O(n log n) (a cell may hold a million series).
 * 1 or 0, or -ENOMEM.
 */
static int name_twice(const char *base, size_t n, size_t stride)
{
	const char **v;
	int twice = 0;

	if (n < 2)
		return 0;
	v = malloc(n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		v[i] = base + i * stride;
	qsort(v, n, sizeof(*v), cmp_name);
	for (size_t i = 1; i < n && !twice; i++)
		twice = !strcmp(v[i - 1], v[i]);
	free(v);
	return twice;
}

/* Is a cell number used twice (O(n log n))?  1 or 0, or -ENOMEM. */
static int seq_twice(const struct ul_run *run)
{
	int *v, twice = 0;

	if (run->n_cells < 2)
		return 0;
	v = malloc(run->n_cells * sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < run->n_cells; i++)
		v[i] = run->cells[i].seq;
	qsort(v, run->n_cells, sizeof(*v), cmp_int);
	for (size_t i = 1; i < run->n_cells && !twice; i++)
		twice = v[i - 1] == v[i];
	free(v);
	return twice;
}

static int cell_validate(const struct ul_cell *c, char *why, size_t len)
{
	int twice;

	if (!name_ok(c->suite, sizeof(c->suite), false) ||
	    !name_ok(c->load, sizeof(c->load), false) ||
	    !name_ok(c->probe, sizeof(c->probe), false))
		return bad(why, len, "suite, load or probe is not a valid name", c->seq);
	if (!unit_ok(c->load_unit, sizeof(c->load_unit)))
		return bad(why, len, "load unit is not a valid name", c->seq);
	if (!strcmp(ul_cell_outcome_name(c->outcome), "unknown"))
		return bad(why, len, "unknown outcome", c->seq);
	for (size_t i = 0; i < c->n_series; i++)
		if (!name_ok(c->series[i].name, sizeof(c->series[i].name), false))
			return bad(why, len, "a series name is not a valid name", c->seq);
	for (size_t i = 0; i < c->n_metrics; i++)
		if (!name_ok(c->metrics[i].name, sizeof(c->metrics[i].name), false))
			return bad(why, len, "a metric name is not a valid name", c->seq);
	twice = name_twice(c->n_series ? c->series[0].name : NULL, c->n_series, sizeof(*c->series));
	if (!twice)
		twice = name_twice(c->n_metrics ? c->metrics[0].name : NULL, c->n_metrics,
				   sizeof(*c->metrics)) *
			2;
	if (twice < 0) {
		bad(why, len, strerror(ENOMEM), c->seq);
		return -ENOMEM;
	}
	if (twice)
		return bad(why, len,
			   twice == 1 ? "a series name is used twice in the cell"
				      : "a metric name is used twice in the cell",
			   c->seq);
	return 0;
}

int ul_run_validate(const struct ul_run *run, char *why, size_t len)
{
	const struct ul_run_params *p = &run->params;
	size_t slen = strnlen(run->suites, sizeof(run->suites));
	int twice;

	if (!ul_uuid_valid(run->uuid))
		return bad(why, len, "the run UUID is malformed", -1);
	if ((unsigned)run->status > UL_RUN_UNKNOWN)
		return bad(why, len, "invalid run status", -1);
	if (slen == sizeof(run->suites) || !name_ok(run->suites, sizeof(run->suites), true))
		return bad(why, len, "the suites list is malformed", -1);
	if (run->host.ncpu < 0 || run->host.ncpu > 1 << 20 || p->min_points < 0 ||
	    p->max_points < 0 || p->interval_ns < 0 || p->ci_target_centi < 0)
		return bad(why, len, "a count or parameter is out of range", -1);
	for (size_t i = 0; i < run->n_cells; i++) {
		int r = cell_validate(&run->cells[i], why, len);

		if (r)
			return r;
		if (run->cells[i].seq < 0)
			return bad(why, len, "negative cell number", run->cells[i].seq);
	}
	twice = seq_twice(run);
	if (twice < 0) {
		bad(why, len, strerror(ENOMEM), -1);
		return -ENOMEM;
	}
	return twice ? bad(why, len, "cell number used twice", -1) : 0;
}
