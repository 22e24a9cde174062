/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The breakdown in show's JSON ("json" format, key "breakdown"): the same
 * rows as the breakdown table (report/breakdown.h), in the series' raw
 * unit (ns):
 *   [{suite, probe, load, series, n, median,
 *     parts: [{series, label, counted, median}]}]
 * one row per test with a breakdown in order of first appearance, its
 * replicates pooled; parts in the registry's order, a part delay
 * accounting did not count with counted false and median null.
 */
#include "core/compat.h"
#include "model/model_json.h"
#include "report/breakdown.h"
#include "report/common.h"
#include "report/replicate.h"

#include <errno.h>
#include <jansson.h>

static json_t *bj_parts(const struct ul_breakdown_medians *m, const struct ul_json_style *st,
			bool *bad)
{
	json_t *parts = json_array();

	for (int p = 0; p < UL_PART_COUNT && parts; p++) {
		json_t *o = json_object();

		ul_json_put(o, "series", json_string(ul_breakdown_parts[p].series), bad);
		ul_json_put(o, "label", json_string(ul_breakdown_parts[p].label), bad);
		ul_json_put(o, "counted", json_boolean(m->counted[p]), bad);
		ul_json_put(o, "median", m->counted[p] ? ul_json_real(m->part[p], st) : json_null(),
			    bad);
		ul_json_push(parts, o, bad);
	}
	return parts;
}

static json_t *bj_row(const struct ul_cell *c, const struct ul_breakdown_medians *m,
		      const struct ul_json_style *st, bool *bad)
{
	json_t *o = json_object();

	ul_json_put(o, "suite", UL_JSON_STR(c->suite), bad);
	ul_json_put(o, "probe", UL_JSON_STR(c->probe), bad);
	ul_json_put(o, "load", UL_JSON_STR(c->load), bad);
	ul_json_put(o, "series", UL_JSON_STR(ul_breakdown_wall(c)->name), bad);
	ul_json_put(o, "n", ul_json_u64(m->n, st), bad);
	ul_json_put(o, "median", ul_json_real(m->delay, st), bad);
	ul_json_put(o, "parts", bj_parts(m, st, bad), bad);
	return o;
}

int ul_breakdown_json(const struct ul_run *run, const struct ul_json_style *st, json_t **out)
{
	json_t *rows = json_array();
	bool bad = false;
	int err = 0;

	for (size_t j = 0; j < run->n_cells && rows && !err; j++) {
		struct ul_breakdown_medians m;
		struct ul_cell pooled;
		const struct ul_cell *c;

		if (!ul_report_first_of_test(run, j) || !ul_breakdown_has(&run->cells[j]))
			continue;
		c = ul_report_test_cell(run, j, &pooled, &err);
		if (!c)
			break;
		err = ul_breakdown_medians(c, &m);
		if (!err)
			ul_json_push(rows, bj_row(c, &m, st, &bad), &bad);
		err = err < 0 ? err : 0;
		ul_cell_release(&pooled);
	}
	if (!err && (bad || !rows))
		err = -ENOMEM;
	if (err) {
		json_decref(rows);
		rows = NULL;
	}
	*out = rows;
	return err;
}
