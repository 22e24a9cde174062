/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Small helpers shared by the report formats: finding a cell's baseline,
 * its primary series, and ending a write with the stream's error state.
 * Static inline so the formats stay self-contained files in formats.def.
 */
#ifndef UL_REPORT_COMMON_H
#define UL_REPORT_COMMON_H

#include "core/compat.h"
#include "core/escape.h"
#include "model/model.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

/* The load name of every suite's baseline cell. */
#define UL_REPORT_BASELINE_LOAD "noload"

/* later - earlier as a double, without signed overflow: stored values are
 * untrusted (a crafted database may hold INT64_MIN next to INT64_MAX). */
static inline double ul_report_diff(int64_t later, int64_t earlier)
{
	if (later >= earlier)
		return (double)((uint64_t)later - (uint64_t)earlier);
	return -(double)((uint64_t)earlier - (uint64_t)later);
}

/* The primary measurement of a cell (series[0] by the model's contract), or NULL. */
static inline const struct ul_series *ul_report_primary(const struct ul_cell *cell)
{
	return cell->n_series ? &cell->series[0] : NULL;
}

/*
 * The baseline a cell is compared with: the first "noload" cell of `suite`
 * (and of `probe`, unless probe is NULL) in replicate round `round`
 * (ul_cell_round; 0 = any round) whose outcome is OK and whose series
 * `series` (the primary series when NULL) has samples.  A failed or empty
 * baseline is no baseline: ratios against it would mean nothing.  With
 * --runs each round is a replicate of the whole suite, so a cell's ratio
 * divides by the noload of its own round.
 */
static inline const struct ul_cell *ul_report_baseline_in(const struct ul_run *run,
							  const char *suite, const char *probe,
							  const char *series, int round)
{
	for (size_t i = 0; i < run->n_cells; i++) {
		const struct ul_cell *c = &run->cells[i];
		const struct ul_series *s;

		if (c->outcome != UL_CELL_OK || strcmp(c->load, UL_REPORT_BASELINE_LOAD) ||
		    strcmp(c->suite, suite) || (probe && strcmp(c->probe, probe)) ||
		    (round && ul_cell_round(c) != round))
			continue;
		s = series ? ul_cell_find_series(c, series) : ul_report_primary(c);
		if (s && s->n)
			return c;
	}
	return NULL;
}

/* The same in any round: the first usable noload cell. */
static inline const struct ul_cell *ul_report_baseline(const struct ul_run *run, const char *suite,
						       const char *probe, const char *series)
{
	return ul_report_baseline_in(run, suite, probe, series, 0);
}

/* Does the run hold replicates of `suite` (a cell of round 2 or more,
 * --runs)?  Its formats then name each row's round. */
static inline bool ul_report_has_rounds(const struct ul_run *run, const char *suite)
{
	for (size_t i = 0; i < run->n_cells; i++)
		if (!strcmp(run->cells[i].suite, suite) && ul_cell_round(&run->cells[i]) > 1)
			return true;
	return false;
}

/* A row's name: `name`, or "NAME #R" (R = the cell's round) when `rounds`. */
static inline const char *ul_report_round_name(char *buf, size_t len, const char *name,
					       const struct ul_cell *c, bool rounds)
{
	if (rounds)
		snprintf(buf, len, "%.*s #%d", UL_NAME_LEN - 1, name, ul_cell_round(c));
	else
		snprintf(buf, len, "%.*s", UL_NAME_LEN - 1, name);
	return buf;
}

/*
 * For tables of replicates: is cells[j] the first cell of its test (suite,
 * load, probe) in the run?  A table lists such a cell, then the later
 * cells of the same test (its other rounds), so a test's replicates stand
 * together while the run measured them interleaved.
 */
static inline bool ul_report_same_test(const struct ul_cell *a, const struct ul_cell *b)
{
	return !strcmp(a->suite, b->suite) && !strcmp(a->load, b->load) &&
	       !strcmp(a->probe, b->probe);
}

static inline bool ul_report_first_of_test(const struct ul_run *run, size_t j)
{
	for (size_t i = 0; i < j; i++)
		if (ul_report_same_test(&run->cells[i], &run->cells[j]))
			return false;
	return true;
}

/* The user-facing name of one enum ul_cell_flags bit, or NULL for an unknown bit. */
static inline const char *ul_report_flag_name(unsigned flag)
{
	switch (flag) {
	case UL_CELL_NOISY:
		return "noisy";
	case UL_CELL_LOAD_KILLED:
		return "load-killed";
	case UL_CELL_DISTURBED:
		return "disturbed";
	case UL_CELL_NO_PRESSURE:
		return "no-pressure";
	default:
		return NULL;
	}
}

/*
 * Writes at most `cap` bytes of `s` (a fixed model array, maybe unterminated)
 * with control characters escaped (core/escape.h: \n, \x1b, \u009b ...),
 * so a label or a note from a child can neither drive the terminal nor
 * break a one-record-per-line layout.
 */
static inline void ul_report_put_clean(FILE *out, const char *s, size_t cap)
{
	(void)ul_fput_escaped(out, s, cap);
}

/*
 * Formats a wall-clock time in ns since the epoch as ISO-8601 UTC with whole
 * seconds ("2024-01-02T03:04:05Z"), the precision people read; the ns value
 * itself is what machines get.  Returns buf ("" if the time cannot be shown).
 */
static inline char *ul_report_iso8601(char *buf, size_t len, int64_t wall_ns)
{
	int64_t sec = wall_ns / UL_NS_PER_SEC;
	time_t t;
	struct tm tm;

	if (wall_ns % UL_NS_PER_SEC < 0)
		sec--; /* floor, so times before 1970 land in the right second */
	t = (time_t)sec;
	if (!len)
		return buf;
	buf[0] = '\0';
	if (gmtime_r(&t, &tm))
		strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

/* True when `suite` is one of the run's comma-separated suites. */
static inline bool ul_report_run_has_suite(const struct ul_run *run, const char *suite)
{
	size_t n = strlen(suite);

	for (const char *p = run->suites; *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);

		if (len == n && !strncmp(p, suite, n))
			return true;
		if (!comma)
			break;
		p = comma + 1;
	}
	return false;
}

/*
 * Ends a format's output: flushes so a full disk or closed pipe shows up
 * now rather than at fclose() time, then reports the stream's error
 * indicator as -EIO (the contract of ul_format.write_run).
 */
static inline int ul_report_finish(FILE *out)
{
	if (fflush(out) != 0 || ferror(out))
		return -EIO;
	return 0;
}

#endif
