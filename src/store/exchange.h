/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The exchange format: whole runs as JSON, for `underload export`,
 * `underload import` and the recovery file a run writes when its database
 * refuses cells.  Also the tidy CSV export (one row per raw sample).
 *
 * JSON document (format "underload-export", format_version 1), keys in
 * this order, indented by 1:
 *   {"format", "format_version", "runs": [run, ...]}
 *   run:  uuid, label, status, tool_version, argv, suites, started_ns,
 *         finished_ns, host {hostname, kernel_release, kernel_version, arch,
 *         cpu_model, ncpu, mem_total_bytes, swap_total_bytes}, params
 *         {interval_ns, min_points, max_points, ci_target_centi,
 *         mem_budget_bytes, mem_limit_bytes, swap_bytes}, cells [cell, ...]
 *   cell: seq, suite, load, probe, outcome, flags (the bit set as an
 *         integer), note, load_unit, load_units, started_ns, finished_ns,
 *         series [{name, values [int, ...]}], metrics [{name, value}]
 * Unsigned 64-bit values above INT64_MAX are written as decimal strings;
 * a metric that is NaN is null, an infinite one "inf" or "-inf"; every
 * other number is exact (reals with 17 significant digits), so a run
 * exported and imported is the same run.
 *
 * The fields are described once, in model/model_json.h (shared with the
 * report's "json" format); this file adds the envelope and the cells.
 *
 * Reading is strict: unknown format or version, a missing or mistyped key,
 * a string longer than the model's field, a number out of range, a
 * malformed name (ul_run_validate), a file over UL_EXCHANGE_MAX_BYTES or
 * one whose parse would take over UL_EXCHANGE_MAX_TREE_BYTES is refused
 * with one line saying where.  Time is linear in the file (names are
 * checked by sorting: O(n log n)).
 */
#ifndef UL_STORE_EXCHANGE_H
#define UL_STORE_EXCHANGE_H

#include "core/compat.h"
#include "model/model.h"

#include <stdio.h>

#define UL_EXCHANGE_FORMAT "underload-export"
#define UL_EXCHANGE_VERSION 1
/* Largest file import reads (export fewer runs per file beyond it). */
#define UL_EXCHANGE_MAX_BYTES (64 * UL_MiB)
/*
 * Most memory the parsed JSON tree of one document may take: 8 times the
 * file cap.  An export (indented, ~10 bytes a value) takes 3-5 times its
 * size; a document of tiny values that would take more is refused, so
 * import's memory is bounded by the cap (tree + file + the runs read).
 */
#define UL_EXCHANGE_MAX_TREE_BYTES (8 * UL_EXCHANGE_MAX_BYTES)

/* Write the runs as one JSON document; 0 or a negative errno. */
int ul_exchange_write_json(FILE *out, const struct ul_run *const *runs, size_t n);
/* Write the runs' raw samples as RFC 4180 CSV with a header line, every
 * stored string escaped (ul_csv_field): no control character is written raw. */
int ul_exchange_write_csv(FILE *out, const struct ul_run *const *runs, size_t n);
/*
 * Parse a document of len bytes.  On success *runs (n of them, each to be
 * ul_run_release()d, then the array freed) hold the runs with id 0.  On
 * failure returns -EINVAL (or -ENOMEM) with `why` filled.
 */
int ul_exchange_read_json(const char *buf, size_t len, struct ul_run **runs, size_t *n, char *why,
			  size_t whylen);
/* Release what ul_exchange_read_json() returned. */
void ul_exchange_free(struct ul_run *runs, size_t n);

#endif
