/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The result data model: a run, its cells, their raw samples and metrics.
 * Plain structs and allocation helpers only: no I/O, no printing.  The
 * engine fills it, the store saves and reloads it, report/ renders it.
 *
 * Ownership: a run owns its cells; a cell owns its series and metrics.
 * Strings are fixed arrays so a run can be copied field by field.
 */
#ifndef UL_MODEL_H
#define UL_MODEL_H

#include "core/compat.h"
#include "core/sysinfo.h"

#define UL_NAME_LEN 48

struct json_t; /* jansson's; the fingerprint (fingerprint/fingerprint.h) */

enum ul_run_status {
	UL_RUN_RUNNING = 0, /* started, not finished (or the supervisor was killed) */
	UL_RUN_COMPLETE,    /* every planned cell was attempted */
	UL_RUN_INTERRUPTED, /* SIGINT/SIGTERM/SIGHUP stopped it; finished cells are kept */
	UL_RUN_FAILED,	    /* an error stopped it before any cell was stored */
	UL_RUN_PARTIAL,	    /* an error stopped it after some cells were stored */
	UL_RUN_CRASHED,	    /* the machine went down under it (its boot ended): a result */
	UL_RUN_UNKNOWN,	    /* read back: a status this program does not know; never stored */
};

enum ul_cell_outcome {
	UL_CELL_OK = 0,
	UL_CELL_LOAD_FAILED,  /* the load did not start (refused, exec error, no ready) */
	UL_CELL_LOAD_DIED,    /* the load exited while it should have been running */
	UL_CELL_PROBE_FAILED, /* the probe failed, died or missed its deadline */
	UL_CELL_INTERRUPTED,  /* the run was interrupted during this cell */
	UL_CELL_CRASHED,      /* the machine went down during this cell: nothing measured */
};

enum ul_cell_flags {
	UL_CELL_NOISY = 1 << 0,	      /* median CI wider than the target at max points */
	UL_CELL_LOAD_KILLED = 1 << 1, /* the load ignored SIGTERM and needed SIGKILL */
	UL_CELL_DISTURBED = 1 << 2,   /* CPU used outside the run above 5% of a CPU */
	UL_CELL_NO_PRESSURE = 1 << 3, /* a memory load paged nothing: measured no pressure */
};

/* One named series of raw int64 values (ns for times) in sampling order. */
struct ul_series {
	char name[UL_NAME_LEN]; /* "delay_ns" for the resp probe */
	int64_t *v;
	size_t n, cap;
};

/* Which way a measurement improves: compare's verdict depends on it. */
enum ul_direction {
	UL_LOWER_IS_BETTER = 0, /* latencies, elapsed times */
	UL_HIGHER_IS_BETTER,	/* throughputs, deadlines met */
};

/* A named scalar recorded for a cell (load work units, faults, ...). */
struct ul_metric {
	char name[UL_NAME_LEN]; /* snake_case with unit suffix: "load_units", "probe_majflt" */
	double value;
};

struct ul_cell {
	char suite[UL_NAME_LEN]; /* "resp" */
	char load[UL_NAME_LEN];	 /* "cpuload"; "noload" for the baseline */
	char probe[UL_NAME_LEN]; /* "resp" */
	int seq;		 /* position in the run, 0-based */
	enum ul_cell_outcome outcome;
	unsigned flags;		     /* enum ul_cell_flags */
	char note[256];		     /* why the outcome is not OK, for people */
	char load_unit[UL_NAME_LEN]; /* what load_units counts: "writes", "forks" ... */
	uint64_t load_units;	     /* the load's own work done while measured */
	int64_t started_wall_ns, finished_wall_ns;
	struct ul_series *series; /* series[0] is the primary measurement */
	size_t n_series;
	struct ul_metric *metrics;
	size_t n_metrics;
	/* Room allocated, for the model's helpers (0: unknown, e.g. an array
	 * another module sized exactly; the helpers then reallocate). */
	size_t cap_series, cap_metrics;
};

/* Parameters of a run that formats need (the resp1 header line, ratios). */
struct ul_run_params {
	int64_t interval_ns; /* think time before each resp sample */
	int min_points, max_points;
	int64_t ci_target_centi;   /* median 95% CI half-width target, 1/100 % of median */
	uint64_t mem_budget_bytes; /* what memory loads size against */
	uint64_t mem_limit_bytes;  /* --mem-limit, 0 = none */
	uint64_t swap_bytes;	   /* --swap, 0 = none */
};

struct ul_run {
	int64_t id; /* store row id, 0 until stored */
	char uuid[37];
	char label[128];
	char tool_version[32];
	char argv[1024];  /* the command line, words joined by single spaces */
	char suites[128]; /* comma-separated suite names */
	enum ul_run_status status;
	int64_t started_wall_ns, finished_wall_ns;
	struct ul_host host;
	struct ul_run_params params;
	/* What the machine was at the start (fingerprint/fingerprint.h): a JSON
	 * object the run owns one reference to; NULL for runs stored before
	 * underload recorded one.  A copy of the struct shares it: only the
	 * owner releases. */
	struct json_t *fingerprint;
	struct ul_cell *cells;
	size_t n_cells, cap_cells;
};

/* Lightweight row for `underload list`. */
struct ul_run_summary {
	int64_t id;
	char uuid[37];
	char label[128];
	char hostname[256];
	char suites[128];
	enum ul_run_status status;
	int64_t started_wall_ns;
	int n_cells;
};

void ul_run_init(struct ul_run *run);
/* Frees everything the run owns and re-initialises it. */
void ul_run_release(struct ul_run *run);
/* Appends a zeroed cell (seq set); NULL on allocation failure.  Pointers to
 * earlier cells may move. */
struct ul_cell *ul_run_add_cell(struct ul_run *run);
/* Fills run->uuid with a random version-4 UUID. */
int ul_run_new_uuid(struct ul_run *run) UL_MUST_CHECK;
/*
 * The one form a UUID (or a UUID prefix) takes in the store: lowercase.
 * RFC 4122 says UUIDs compare case-insensitively; storing and looking up
 * one form makes "the same run" a plain string equality everywhere.
 * Lowercases ASCII letters in place; returns s.
 */
char *ul_uuid_canon(char *s);
/* Is s a UUID in the 8-4-4-4-12 hex form (any case)? */
bool ul_uuid_valid(const char *s);

/* Series named `name`, created (empty) if absent; NULL on allocation failure. */
struct ul_series *ul_cell_series(struct ul_cell *cell, const char *name);
/* A new empty series appended without looking for the name (a reader that
 * checks names once, at the end: ul_run_validate); NULL without memory. */
struct ul_series *ul_cell_add_series(struct ul_cell *cell, const char *name);
/* A metric appended without looking for the name; -ENOMEM on failure. */
int ul_cell_add_metric(struct ul_cell *cell, const char *name, double value) UL_MUST_CHECK;
/* The series named `name` or NULL; never creates. */
const struct ul_series *ul_cell_find_series(const struct ul_cell *cell, const char *name);
/* Appends v, growing s geometrically; -ENOMEM (s unchanged) on failure. */
int ul_series_push(struct ul_series *s, int64_t v) UL_MUST_CHECK;
/* Room for at least `need` values without another realloc: the capacity
 * at least doubles (16 at first), so pushes one by one cost O(1) each and
 * a reader that knows its count grows once.  -ENOMEM, s unchanged. */
int ul_series_reserve(struct ul_series *s, size_t need) UL_MUST_CHECK;
/* Sets (or replaces) a metric; -ENOMEM on failure. */
int ul_cell_set_metric(struct ul_cell *cell, const char *name, double value) UL_MUST_CHECK;
/* Looks a metric up; returns false when absent. */
bool ul_cell_metric(const struct ul_cell *cell, const char *name, double *value);
void ul_cell_release(struct ul_cell *cell);

/*
 * The replicate round of a cell, 1-based: with --runs N a suite measures
 * each of its tests once per round, rounds one after the other, and every
 * cell records its round as this metric (every suite; mtest and fsbench
 * since they stopped keeping their runs inside one cell, one value per
 * run in its series).  ul_cell_round() gives it, 1 when the cell has none
 * (a cell stored before rounds were recorded).
 */
#define UL_CELL_ROUND "round"
int ul_cell_round(const struct ul_cell *cell);

/*
 * Check a run read from outside (a database file, an import): every name
 * (suite, load, probe, series, metric, suites list) is 1..47 printable
 * ASCII bytes without blanks (the load unit may hold blanks), the UUID has
 * the 8-4-4-4-12 hex form, status and outcomes are known, counts are in
 * range, seq numbers are unique, and so are series and metric names within
 * a cell.  Time O(n log n) in the number of cells, series and metrics.
 * Free text (label, note, host strings) may hold anything; it is escaped
 * when printed.  Returns 0, or -EINVAL (-ENOMEM) with `why` saying what.
 */
int ul_run_validate(const struct ul_run *run, char *why, size_t len);

const char *ul_run_status_name(enum ul_run_status s);
int ul_run_status_parse(const char *name, enum ul_run_status *out);
const char *ul_cell_outcome_name(enum ul_cell_outcome o);
int ul_cell_outcome_parse(const char *name, enum ul_cell_outcome *out);

/*
 * Where a run is, as its journal records it at each cell's start ("at"
 * records) so that a crash can be reported at its test: "SEQ ROUND
 * STARTED_NS SUITE LOAD PROBE", round 1-based (the cell's replicate).
 * Format: 0 or -ENAMETOOLONG.  Parse: into a cell of outcome crashed
 * (seq, names, start and end at the start, a note naming the round), 0
 * or -EINVAL for text that is not one; the cell owns nothing.
 */
int ul_cell_where_format(const struct ul_cell *cell, int round, char *out, size_t len);
int ul_cell_where_parse(const char *text, struct ul_cell *out, int *round);
/* The 1-based round of run->cells[i]: 1 + the earlier cells of its test. */
int ul_run_cell_round(const struct ul_run *run, size_t i);
/* "resp 2ctx-mem (probe resp), round 1": where a crashed run was, into out. */
void ul_cell_where_describe(const struct ul_cell *cell, int round, char *out, size_t len);
/*
 * Where a run crashed: the index of its first cell of outcome crashed, its
 * description into out (ul_cell_where_describe); -1 and "an unknown test"
 * when it has none (a run marked crashed whose journal recorded no test).
 */
long ul_run_crash_where(const struct ul_run *run, char *out, size_t len);
/*
 * The same, as the words after "crashed": "in resp 2ctx-mem (probe resp),
 * round 1"; for a run without a crashed cell whose tests all ended (its
 * machine went down in its teardown, or between two tests) "after its last
 * test (resp smallwrite (probe resp), round 1) ended, in its teardown or
 * before another began"; "in an unknown test" for one without a test.
 * Returns what ul_run_crash_where() does.
 */
long ul_run_crash_phrase(const struct ul_run *run, char *out, size_t len);
/* Was the run made in a VM by `underload vm` (its fingerprint has a "vm"
 * section, cmd/vm_collect.c)?  And under TCG, an emulated CPU? */
bool ul_run_in_vm(const struct ul_run *run);
bool ul_run_emulated(const struct ul_run *run);

#endif
