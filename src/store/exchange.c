/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The exchange format's writers: JSON (export, recovery files) and tidy CSV. */
#include "core/compat.h"
#include "core/escape.h"
#include "model/model_json.h"
#include "store/exchange.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * What the exchange format does differently from the report's "json": it
 * must round-trip, so big uint64 and infinities are written exactly, times
 * and flags as the integers they are, and reals with 17 digits.
 */
static const struct ul_json_style exchange_style = {
	.format = UL_JSON_EXCHANGE,
	.exact = true,
	.dump_flags = JSON_INDENT(1) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(17),
};

static json_t *x_run(const struct ul_run *run, bool *bad)
{
	json_t *o = ul_json_run(run, &exchange_style, bad), *cells = json_array();

	for (size_t i = 0; i < run->n_cells && cells && !*bad; i++)
		ul_json_push(cells, ul_json_cell(&run->cells[i], &exchange_style, bad), bad);
	/* Before the cells: a reader sees what the machine was, then what it measured. */
	if (run->fingerprint)
		ul_json_put(o, "fingerprint", json_incref(run->fingerprint), bad);
	ul_json_put(o, "cells", cells, bad);
	return o;
}

int ul_exchange_write_json(FILE *out, const struct ul_run *const *runs, size_t n)
{
	json_t *doc = json_object(), *arr = json_array();
	bool bad = false;
	int rc;

	ul_json_put(doc, "format", json_string(UL_EXCHANGE_FORMAT), &bad);
	ul_json_put(doc, "format_version", json_integer(UL_EXCHANGE_VERSION), &bad);
	for (size_t i = 0; i < n && arr && !bad; i++)
		ul_json_push(arr, x_run(runs[i], &bad), &bad);
	ul_json_put(doc, "runs", arr, &bad);
	if (bad) {
		json_decref(doc);
		return -ENOMEM;
	}
	rc = ul_json_dump(out, doc, &exchange_style);
	json_decref(doc);
	if (rc || fflush(out) || ferror(out))
		return -EIO;
	return 0;
}

/* The unit a series name's suffix gives ("delay_ns" -> "ns"), or "" for a
 * count (the man page's EXCHANGE FORMATS lists them). */
static const char *series_unit(const char *name)
{
	static const struct {
		const char *suffix, *unit;
	} units[] = {
		{ "_bytes_s", "B/s" }, { "_bps", "B/s" }, { "_ns", "ns" },	 { "_ps", "ps" },
		{ "_us", "us" },       { "_ms", "ms" },	  { "_bytes", "bytes" }, { "_kib", "KiB" },
		{ "_mib", "MiB" },     { "_kb", "kb" },	  { "_pages", "pages" }, { "_pct", "pct" },
	};
	size_t n = strlen(name);

	for (size_t i = 0; i < UL_ARRAY_SIZE(units); i++) {
		size_t k = strlen(units[i].suffix);

		if (n > k && !strcmp(name + n - k, units[i].suffix))
			return units[i].unit;
	}
	return "";
}

#define CSV(out, field, last) ul_csv_field((out), (field), sizeof(field), (last))

int ul_exchange_write_csv(FILE *out, const struct ul_run *const *runs, size_t n)
{
	int bad = 0;

	fputs("run_uuid,label,host,suite,test,probe,metric,unit,index,value\r\n", out);
	for (size_t r = 0; r < n && !bad; r++) {
		const struct ul_run *run = runs[r];

		for (size_t c = 0; c < run->n_cells && !bad; c++) {
			const struct ul_cell *cell = &run->cells[c];

			for (size_t s = 0; s < cell->n_series && !bad; s++) {
				const struct ul_series *ser = &cell->series[s];
				const char *unit = series_unit(ser->name);

				for (size_t i = 0; i < ser->n && !bad; i++) {
					bad |= CSV(out, run->uuid, false);
					bad |= CSV(out, run->label, false);
					bad |= CSV(out, run->host.hostname, false);
					bad |= CSV(out, cell->suite, false);
					bad |= CSV(out, cell->load, false);
					bad |= CSV(out, cell->probe, false);
					bad |= CSV(out, ser->name, false);
					bad |= ul_csv_field(out, unit, SIZE_MAX, false);
					fprintf(out, "%zu,%lld\r\n", i, (long long)ser->v[i]);
				}
			}
		}
	}
	if (bad || fflush(out) || ferror(out))
		return -EIO;
	return 0;
}
