/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the exchange format (store/exchange*.c) and for escaping
 * (core/escape.c): exact round trips, the writer and the reader walking the
 * same field table (model/model_json.c), hostile documents refused with the
 * place named, CSV quoting, control characters never printed raw.
 */
#include "unit.h"
#include "core/escape.h"
#include "model/model_json.h"
#include "store/exchange.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void push(struct ul_series *s, int64_t v)
{
	ck_assert_int_eq(ul_series_push(s, v), 0);
}

/*
 * A run with edge values everywhere JSON could lose them.  Its label holds
 * control characters (what a printer must escape); importable_run() gives
 * it one import accepts (the label check of run and relabel).
 */
static void edge_run(struct ul_run *run)
{
	struct ul_cell *c;
	struct ul_series *s;

	ul_run_init(run);
	ck_assert_int_eq(ul_run_new_uuid(run), 0);
	snprintf(run->label, sizeof(run->label), "lab\"el\n\x1b[2J, \xc3\xa9");
	snprintf(run->tool_version, sizeof(run->tool_version), "0.1.0");
	snprintf(run->argv, sizeof(run->argv), "underload run 'x y'");
	snprintf(run->suites, sizeof(run->suites), "resp,contest");
	run->status = UL_RUN_PARTIAL;
	run->started_wall_ns = INT64_MIN + 1;
	run->finished_wall_ns = INT64_MAX;
	snprintf(run->host.hostname, sizeof(run->host.hostname), "h");
	run->host.ncpu = 3;
	run->host.mem_total_bytes = UINT64_MAX;
	run->params.swap_bytes = (uint64_t)INT64_MAX + 1;
	run->params.interval_ns = 1;
	c = ul_run_add_cell(run);
	snprintf(c->suite, sizeof(c->suite), "resp");
	snprintf(c->load, sizeof(c->load), "noload");
	snprintf(c->probe, sizeof(c->probe), "resp");
	snprintf(c->load_unit, sizeof(c->load_unit), "MiB written");
	c->outcome = UL_CELL_LOAD_DIED;
	c->flags = 0xffffffffu;
	c->load_units = UINT64_MAX;
	snprintf(c->note, sizeof(c->note), "a,b\r\n\"c\"");
	s = ul_cell_series(c, "delay_ns");
	push(s, INT64_MIN);
	push(s, INT64_MAX);
	push(s, 0);
	ck_assert_ptr_nonnull(ul_cell_series(c, "empty"));
	ck_assert_int_eq(ul_cell_set_metric(c, "third", 1.0 / 3.0), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "nan", NAN), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "pinf", INFINITY), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "ninf", -INFINITY), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "tiny", 4.9e-324), 0);
	c = ul_run_add_cell(run);
	c->seq = 7;
	snprintf(c->suite, sizeof(c->suite), "contest");
	snprintf(c->load, sizeof(c->load), "io_load");
	snprintf(c->probe, sizeof(c->probe), "job");
}

static void importable_run(struct ul_run *run)
{
	edge_run(run);
	snprintf(run->label, sizeof(run->label), "lab\"el\\, \xc3\xa9");
}

static char *to_json(const struct ul_run *run, size_t *len)
{
	const struct ul_run *one[1] = { run };
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ul_exchange_write_json(f, one, 1), 0);
	fclose(f);
	return buf;
}

START_TEST(test_round_trip_exact)
{
	struct ul_run run, *back;
	size_t len, len2, n;
	char why[256] = "", *json, *json2;

	importable_run(&run);
	json = to_json(&run, &len);
	ck_assert_msg(ul_exchange_read_json(json, len, &back, &n, why, sizeof(why)) == 0, "%s",
		      why);
	ck_assert_uint_eq(n, 1);
	ck_assert_str_eq(back[0].label, run.label);
	ck_assert_uint_eq(back[0].host.mem_total_bytes, UINT64_MAX);
	ck_assert_uint_eq(back[0].params.swap_bytes, (uint64_t)INT64_MAX + 1);
	ck_assert_int_eq(back[0].started_wall_ns, INT64_MIN + 1);
	ck_assert_int_eq(back[0].status, UL_RUN_PARTIAL);
	ck_assert_uint_eq(back[0].cells[0].load_units, UINT64_MAX);
	ck_assert_uint_eq(back[0].cells[0].flags, 0xffffffffu);
	ck_assert_int_eq(back[0].cells[0].series[0].v[0], INT64_MIN);
	ck_assert_uint_eq(back[0].cells[0].n_series, 2);
	ck_assert_uint_eq(back[0].cells[0].series[1].n, 0);
	ck_assert(isnan(back[0].cells[0].metrics[1].value));
	ck_assert(isinf(back[0].cells[0].metrics[3].value) &&
		  back[0].cells[0].metrics[3].value < 0);
	ck_assert(back[0].cells[0].metrics[0].value == 1.0 / 3.0);
	ck_assert(back[0].cells[0].metrics[4].value == 4.9e-324);
	ck_assert_int_eq(back[0].cells[1].seq, 7);
	/* Written again, byte for byte the same document. */
	json2 = to_json(&back[0], &len2);
	ck_assert_uint_eq(len, len2);
	ck_assert(!memcmp(json, json2, len));
	ul_exchange_free(back, n);
	free(json);
	free(json2);
	ul_run_release(&run);
}
END_TEST

/* The object at path ("runs", "0", "host" ...) of a document. */
static json_t *locate(json_t *doc, const char *const *path, size_t depth)
{
	for (size_t i = 0; i < depth && doc; i++)
		doc = json_is_array(doc) ? json_array_get(doc, strtoul(path[i], NULL, 10))
					 : json_object_get(doc, path[i]);
	ck_assert_ptr_nonnull(doc);
	return doc;
}

/*
 * The object at path holds the table's exchange fields in table order, then
 * `next` (NULL: nothing); without any one of them the document is refused
 * with that key named.
 */
static void check_table(const char *json, const char *const *path, size_t depth,
			const struct ul_json_table *t, const char *next)
{
	json_t *doc = json_loads(json, 0, NULL), *o = locate(doc, path, depth), *cut;
	void *it = json_object_iter(o);
	const char *sub_path[8];

	for (size_t i = 0; i < t->n; i++) {
		const struct ul_json_field *f = &t->fields[i];
		struct ul_run *back = NULL;
		char why[256] = "", want[64], *text;
		size_t n = 0;

		if (!(f->in & UL_JSON_EXCHANGE))
			continue;
		ck_assert_msg(it && !strcmp(json_object_iter_key(it), f->key), "%s expected",
			      f->key);
		if (f->kind == UL_JSON_OBJECT) {
			ck_assert_uint_lt(depth, UL_ARRAY_SIZE(sub_path));
			memcpy(sub_path, path, depth * sizeof(*path));
			sub_path[depth] = f->key;
			check_table(json, sub_path, depth + 1, f->sub, NULL);
		}
		it = json_object_iter_next(o, it);
		cut = json_deep_copy(doc);
		ck_assert_int_eq(json_object_del(locate(cut, path, depth), f->key), 0);
		text = json_dumps(cut, 0);
		ck_assert_int_eq(ul_exchange_read_json(text, strlen(text), &back, &n, why,
						       sizeof(why)),
				 -EINVAL);
		snprintf(want, sizeof(want), ".%s: missing", f->key);
		ck_assert_msg(strstr(why, want), "without %s: %s", f->key, why);
		ck_assert_ptr_null(back);
		free(text);
		json_decref(cut);
	}
	if (next)
		ck_assert_str_eq(it ? json_object_iter_key(it) : "(end)", next);
	else
		ck_assert_ptr_null(it);
	json_decref(doc);
}

START_TEST(test_one_table_both_ways)
{
	static const char *const run_path[] = { "runs", "0" };
	static const char *const cell_path[] = { "runs", "0", "cells", "0" };
	struct ul_run run;
	size_t len;
	char *json;

	importable_run(&run);
	json = to_json(&run, &len);
	check_table(json, run_path, 2, &ul_json_run_table, "cells");
	check_table(json, cell_path, 4, &ul_json_cell_table, "series");
	free(json);
	ul_run_release(&run);
}
END_TEST

/* Each hostile document is refused with its place named, nothing returned. */
START_TEST(test_hostile_documents)
{
	static const struct {
		const char *doc, *why;
	} cases[] = {
		{ "", "line 1" },
		{ "[]", "expected a JSON object" },
		{ "{\"format\":\"underload-results\",\"format_version\":1,\"runs\":[]}",
		  "format is not" },
		{ "{\"format\":\"underload-export\",\"format_version\":2,\"runs\":[]}",
		  "format_version other than 1 is not supported" },
		{ "{\"format\":\"underload-export\",\"format_version\":1}", "runs: missing" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"runs\":{}}",
		  "expected an array" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"runs\":[5]}",
		  "runs[0]: expected an object" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"runs\":[{\"uuid\":1}]}",
		  "runs[0].uuid: expected a string" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"format\":\"x\",\"runs\":[]}",
		  "duplicate" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"runs\":[],\"x\":99999999999999999999}",
		  "too big" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"runs\":[],\"x\":1e999}",
		  "overflow" },
		{ "{\"format\":\"underload-export\",\"format_version\":1,\"runs\":[", "line 1" },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(cases); i++) {
		struct ul_run *runs = (struct ul_run *)1;
		char why[256] = "";
		size_t n = 9;

		ck_assert_int_eq(ul_exchange_read_json(cases[i].doc, strlen(cases[i].doc), &runs,
						       &n, why, sizeof(why)),
				 -EINVAL);
		ck_assert_msg(strstr(why, cases[i].why), "case %zu: '%s' lacks '%s'", i, why,
			      cases[i].why);
		ck_assert_msg(why[0] != ':', "case %zu: '%s' names an empty place", i, why);
		ck_assert_ptr_null(runs);
		ck_assert_uint_eq(n, 0);
	}
}
END_TEST

/* Edits of a valid document deep inside a cell. */
START_TEST(test_hostile_fields)
{
	static const struct {
		const char *from, *to, *why;
	} edits[] = {
		{ "\"seq\": 7", "\"seq\": -1", "cells[1].seq: out of range" },
		{ "\"outcome\": \"load-died\"", "\"outcome\": \"exploded\"", "unknown outcome" },
		{ "\"load\": \"io_load\"", "\"load\": \"io load\\u001b\"", "not a valid name" },
		{ "\"status\": \"partial\"", "\"status\": \"unknown\"", "unknown status" },
		{ "\"ncpu\": 3", "\"ncpu\": 3.5", "runs[0].host.ncpu: expected an integer" },
		{ "\"seq\": 7", "\"seq\": 0", "cell number used twice" },
		{ "\"name\": \"empty\"", "\"name\": \"delay_ns\"", "used twice" },
		{ "\"hostname\": \"h\"", "\"hostname\": \"h\\u0000x\"", "is not allowed" },
		/* the label check of run and relabel: empty, newline, ESC, C1, DEL */
		{ "\"label\": \"lab", "\"label\": \"\", \"x\": \"", "runs[0].label: must be 1 to" },
		{ "\"label\": \"lab", "\"label\": \"\\nlab",
		  "runs[0].label: may not contain control" },
		{ "\"label\": \"lab", "\"label\": \"\\u001blab", "runs[0].label: may not contain" },
		{ "\"label\": \"lab", "\"label\": \"\\u009blab", "runs[0].label: may not contain" },
		{ "\"label\": \"lab", "\"label\": \"\\u007flab", "runs[0].label: may not contain" },
	};
	struct ul_run run;
	size_t len;
	char *json;

	importable_run(&run);
	json = to_json(&run, &len);
	for (size_t i = 0; i < UL_ARRAY_SIZE(edits); i++) {
		char *at = strstr(json, edits[i].from), *doc, why[256] = "";
		struct ul_run *runs = NULL;
		size_t n = 0, dlen;

		ck_assert_msg(at, "edit %zu: '%s' not in the document", i, edits[i].from);
		dlen = len - strlen(edits[i].from) + strlen(edits[i].to);
		doc = malloc(dlen + 1);
		snprintf(doc, dlen + 1, "%.*s%s%s", (int)(at - json), json, edits[i].to,
			 at + strlen(edits[i].from));
		ck_assert_int_eq(ul_exchange_read_json(doc, dlen, &runs, &n, why, sizeof(why)),
				 -EINVAL);
		ck_assert_msg(strstr(why, edits[i].why), "edit %zu: '%s' lacks '%s'", i, why,
			      edits[i].why);
		ck_assert_ptr_null(runs);
		free(doc);
	}
	free(json);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_too_big)
{
	char why[128] = "";
	struct ul_run *runs = NULL;
	size_t n = 0;

	/* The size check comes before the parser looks at a byte. */
	ck_assert_int_eq(ul_exchange_read_json("{}", UL_EXCHANGE_MAX_BYTES + 1, &runs, &n, why,
					       sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "larger than 64 MiB"));
}
END_TEST

/*
 * Names are checked once per cell, by sorting: 200k series and 200k
 * metrics in one cell parse in well under a second (a lookup per name
 * among the earlier ones took minutes), and a name used twice is refused.
 */
START_TEST(test_many_names)
{
	const size_t n = 200000;
	struct ul_run run, *back = NULL;
	size_t len, count = 0;
	char why[256] = "", *json, *at;
	struct ul_cell *c;

	importable_run(&run);
	c = &run.cells[1];
	for (size_t i = 0; i < n; i++) {
		char name[32];

		snprintf(name, sizeof(name), "s%zu", i);
		ck_assert_ptr_nonnull(ul_cell_add_series(c, name));
		name[0] = 'm';
		ck_assert_int_eq(ul_cell_add_metric(c, name, (double)i), 0);
	}
	json = to_json(&run, &len);
	ck_assert_msg(ul_exchange_read_json(json, len, &back, &count, why, sizeof(why)) == 0, "%s",
		      why);
	ck_assert_uint_eq(back[0].cells[1].n_series, n);
	ck_assert_uint_eq(back[0].cells[1].n_metrics, n);
	ck_assert_str_eq(back[0].cells[1].metrics[n - 1].name, "m199999");
	ul_exchange_free(back, count);
	/* the last metric renamed to the first's name */
	at = strstr(json, "\"m199999\"");
	ck_assert_ptr_nonnull(at);
	memcpy(at, "\"m0\"     ", 9);
	ck_assert_int_eq(ul_exchange_read_json(json, len, &back, &count, why, sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "a metric name is used twice in the cell"));
	free(json);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_csv_quoting)
{
	const struct ul_run *one[1];
	struct ul_run run;
	char *buf = NULL;
	size_t len;
	FILE *f = open_memstream(&buf, &len);

	edge_run(&run);
	snprintf(run.host.hostname, sizeof(run.host.hostname), "x,\"y\"");
	one[0] = &run;
	ck_assert_int_eq(ul_exchange_write_csv(f, one, 1), 0);
	fclose(f);
	ck_assert_ptr_nonnull(strstr(buf, "run_uuid,label,host,suite,test,probe,metric,unit,index,"
					  "value\r\n"));
	/* label with a quote, a newline, an escape and a comma: the control
	 * characters escaped, then quoted with its quotes doubled */
	ck_assert_ptr_nonnull(strstr(buf,
				     ",\"lab\"\"el\\n\\x1b[2J, \xc3\xa9\",\"x,\"\"y\"\"\",resp,"
				     "noload,resp,delay_ns,ns,0,-9223372036854775808\r\n"));
	ck_assert_ptr_nonnull(strstr(buf, ",delay_ns,ns,1,9223372036854775807\r\n"));
	/* No raw control character but the CR LF that ends each record. */
	for (size_t i = 0; i < len; i++)
		ck_assert(((unsigned char)buf[i] >= 0x20 && buf[i] != 0x7f) ||
			  (buf[i] == '\r' && buf[i + 1] == '\n') ||
			  (buf[i] == '\n' && buf[i - 1] == '\r'));
	free(buf);
	ul_run_release(&run);
}
END_TEST

START_TEST(test_escape)
{
	char buf[128];

	ul_escape(buf, sizeof(buf), "a\nb\tc\\d\x1b]0;t\a\x7f", SIZE_MAX);
	ck_assert_str_eq(buf, "a\\nb\\tc\\\\d\\x1b]0;t\\x07\\x7f");
	/* raw C1 byte (invalid UTF-8), C1 as UTF-8, a bidi override, valid é kept */
	ul_escape(buf, sizeof(buf),
		  "\x9b"
		  "2J \xc2\x9b \xe2\x80\xae \xc3\xa9",
		  SIZE_MAX);
	ck_assert_str_eq(buf, "\\x9b2J \\u009b \\u202e \xc3\xa9");
	/* overlong and surrogate encodings are not UTF-8 */
	ul_escape(buf, sizeof(buf), "\xc0\xaf\xed\xa0\x80", SIZE_MAX);
	ck_assert_str_eq(buf, "\\xc0\\xaf\\xed\\xa0\\x80");
	/* truncation never splits an escape; the return value is the full length */
	ck_assert_uint_eq(ul_escape(buf, 4, "\x1b\x1b", SIZE_MAX), 8);
	ck_assert_str_eq(buf, "");
	ck_assert_int_eq(ul_utf8_count("\xc3\xa9t\xc3\xa9", 16), 3);
	ck_assert_int_eq(ul_utf8_count("\xc3", 16), -1);
	/* a store's text: bad bytes become '?', a cut never splits a character */
	ul_utf8_copy(buf, sizeof(buf), "a\xff\xc3\xa9\n", SIZE_MAX);
	ck_assert_str_eq(buf, "a?\xc3\xa9\n");
	ul_utf8_copy(buf, 3, "a\xc3\xa9", SIZE_MAX);
	ck_assert_str_eq(buf, "a");
	ul_utf8_copy(buf, sizeof(buf), "abc\0def", 8);
	ck_assert_str_eq(buf, "abc");
	ul_utf8_copy(buf, sizeof(buf), "abcdef", 2);
	ck_assert_str_eq(buf, "ab");
	ul_utf8_copy(buf, sizeof(buf), NULL, 4);
	ck_assert_str_eq(buf, "");
}
END_TEST

Suite *ul_test_suite_exchange(void)
{
	Suite *s = suite_create("exchange");
	TCase *tc = tcase_create("exchange");

	/* test_many_names reads 200k series and metrics: a few seconds on a
	 * busy machine, more under ASan, where Check's default 4 s fired.  The
	 * bound only guards against a hang; the import's speed is measured in
	 * bench/import-scale.sh (a quadratic import took minutes here). */
	tcase_set_timeout(tc, 120);

	tcase_add_test(tc, test_round_trip_exact);
	tcase_add_test(tc, test_one_table_both_ways);
	tcase_add_test(tc, test_hostile_documents);
	tcase_add_test(tc, test_hostile_fields);
	tcase_add_test(tc, test_too_big);
	tcase_add_test(tc, test_many_names);
	tcase_add_test(tc, test_csv_quoting);
	tcase_add_test(tc, test_escape);
	suite_add_tcase(s, tc);
	return s;
}
