/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The model as JSON (jansson), described once.  Every scalar field of a
 * run, its host, its params and a cell is one row of a table below (key,
 * kind, place in the struct, accepted range).  Two documents are written
 * from these tables: the exchange format (store/exchange.c: export, import,
 * recovery files) and the report format "json" (report/json.c); the
 * exchange reader (store/exchange_read.c) walks the same tables.  Each
 * format adds its own envelope (and the report its summaries) and states
 * in one struct ul_json_style how it differs from the other.  The exchange
 * fields are the whole stored record: the SQLite store's run and cell
 * columns follow them too (store/sqlite_int.h), so a new model field is
 * one row here, its column name there and a schema migration.
 *
 * Strings come from the model's fixed arrays (maybe unterminated); bytes
 * that are not UTF-8 make the string's non-ASCII bytes '?'.  Builders never
 * fail half-way silently: an allocation failure sets *bad, and callers
 * check it once when the document is complete.
 */
#ifndef UL_MODEL_JSON_H
#define UL_MODEL_JSON_H

#include "core/compat.h"
#include "model/model.h"

#include <jansson.h>
#include <stdio.h>

/* Which documents write a field (struct ul_json_field.in, style.format). */
enum {
	UL_JSON_EXCHANGE = 1 << 0,
	UL_JSON_REPORT = 1 << 1,
	UL_JSON_BOTH = 3
};

enum ul_json_kind {
	UL_JSON_STR,	    /* char[size] */
	UL_JSON_LIST,	    /* char[size] holding comma-separated names */
	UL_JSON_INT,	    /* int, in [min, max] */
	UL_JSON_I64,	    /* int64_t, in [min, max] */
	UL_JSON_WALL_NS,    /* int64_t ns since the epoch */
	UL_JSON_U64,	    /* uint64_t */
	UL_JSON_FLAGS,	    /* unsigned, enum ul_cell_flags */
	UL_JSON_RUN_STATUS, /* enum ul_run_status, by name */
	UL_JSON_OUTCOME,    /* enum ul_cell_outcome, by name */
	UL_JSON_OBJECT,	    /* a struct of its own, described by `sub` */
};

struct ul_json_table;

struct ul_json_field {
	const char *key;
	enum ul_json_kind kind;
	unsigned in; /* UL_JSON_EXCHANGE | UL_JSON_REPORT: the documents holding it */
	size_t off, size;
	int64_t min, max;		 /* INT, I64, WALL_NS, FLAGS: accepted when read */
	const char *text_key;		 /* WALL_NS: key of the time as text (style.time_text) */
	const struct ul_json_table *sub; /* OBJECT */
};

struct ul_json_table {
	const struct ul_json_field *fields;
	size_t n;
};

/* A run's scalar fields with its host and params (not its cells), and a
 * cell's (not its series and metrics), in document order. */
extern const struct ul_json_table ul_json_run_table, ul_json_cell_table;

/* How one document writes what the tables describe. */
struct ul_json_style {
	unsigned format; /* UL_JSON_EXCHANGE or UL_JSON_REPORT: the fields written */
	/* Exact for a round trip: a uint64 above INT64_MAX as a decimal string,
	 * +-infinity as "inf"/"-inf".  Otherwise those become a real and null.
	 * NaN is null either way. */
	bool exact;
	bool zero_time_null;  /* a wall time of 0 (never) as null */
	bool lists_as_arrays; /* LIST fields as arrays of names, not the string */
	bool names_as_keys;   /* series {name: [...]}, metrics {name: v}; else [{name, ...}] */
	/* Flags as an array of these names ("bitN" for a bit without one);
	 * NULL: flags as one integer. */
	const char *(*flag_name)(unsigned flag);
	/* Writes a wall time as text into buf (and returns buf); NULL: a field's
	 * text_key is not written. */
	char *(*time_text)(char *buf, size_t len, int64_t wall_ns);
	size_t dump_flags; /* json_dumpf flags (indentation, key order, precision) */
};

/* Whether the field is one of the integer kinds (INT, I64, WALL_NS, U64, FLAGS). */
bool ul_json_is_int(const struct ul_json_field *f);
/* An integer field of `base` as int64 (a U64 as the int64 with its bits), and back. */
int64_t ul_json_get_int(const struct ul_json_field *f, const void *base);
void ul_json_set_int(const struct ul_json_field *f, void *base, int64_t v);

/* The fields of `base` the table describes, as an object. */
json_t *ul_json_fields(const void *base, const struct ul_json_table *t,
		       const struct ul_json_style *st, bool *bad);
/* The run's fields, host and params; the caller adds its cells where it wants them. */
json_t *ul_json_run(const struct ul_run *run, const struct ul_json_style *st, bool *bad);
/* The cell's fields, then "series" and "metrics". */
json_t *ul_json_cell(const struct ul_cell *c, const struct ul_json_style *st, bool *bad);

/* A string from a fixed model array of cap bytes (NUL not required). */
json_t *ul_json_str(const char *s, size_t cap);
#define UL_JSON_STR(field) ul_json_str((field), sizeof(field))
json_t *ul_json_u64(uint64_t v, const struct ul_json_style *st);
json_t *ul_json_real(double v, const struct ul_json_style *st);
/* obj[key] = v, taking the reference; a NULL v or obj sets *bad. */
void ul_json_put(json_t *obj, const char *key, json_t *v, bool *bad);
/* Appends v to arr, taking the reference; a NULL v or arr sets *bad. */
void ul_json_push(json_t *arr, json_t *v, bool *bad);
/* Writes doc with st->dump_flags and a newline; 0 or -EIO. */
int ul_json_dump(FILE *out, const json_t *doc, const struct ul_json_style *st);

#endif
