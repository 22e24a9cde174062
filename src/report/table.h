/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one aligner of the project's tables for people: the text format's
 * groups, contest's native table and `list`.  A table is built row by row
 * (row 0 is usually the titles), then printed with every column as wide
 * as its widest cell:
 *
 *	M␠cell0␠␠cell1␠␠...␠␠cellN
 *
 * M␠ is there when the table has a marker column: the row's marker
 * character (a space unless set, e.g. '!' for a flagged cell) and a blank;
 * without one a line starts with its first cell.  Columns are two spaces
 * apart, a left column is padded on
 * the right and a right column on the left, and a left last column is not
 * padded, so no line ends in blanks.  A cell never set prints as empty.
 *
 * Building never fails halfway: an allocation failure is remembered and
 * returned by ul_table_print(), which then prints nothing.
 */
#ifndef UL_REPORT_TABLE_H
#define UL_REPORT_TABLE_H

#include "core/compat.h"

#include <stdio.h>

struct ul_table {
	size_t ncols;
	const bool *left; /* ncols flags: left-aligned text, else right-aligned */
	size_t rows, cap;
	char **cell; /* rows * ncols strings, NULL where never set */
	char *mark;  /* a marker character per row */
	bool marked; /* print the marker column */
	int err;     /* the first failure (-ENOMEM), 0 if none */
};

/* An empty table of `ncols` columns aligned as `left` says (kept, not
 * copied), with or without the marker column. */
void ul_table_init(struct ul_table *t, size_t ncols, const bool *left, bool marked);

/* Appends a row marked `mark` and returns its index (SIZE_MAX on failure:
 * later calls on that row do nothing). */
size_t ul_table_add_row(struct ul_table *t, char mark);

/* Appends a row of ncols titles; returns its index like ul_table_add_row. */
size_t ul_table_add_titles(struct ul_table *t, const char *const *titles);

/* Sets a cell from a printf format, replacing what it held. */
void ul_table_set(struct ul_table *t, size_t row, size_t col, const char *fmt, ...) UL_PRINTF(4, 5);

/* Sets a cell to at most `cap` bytes of `s` with control characters shown
 * as spaces: for names read from a store, which must not break a line. */
void ul_table_set_clean(struct ul_table *t, size_t row, size_t col, const char *s, size_t cap);

/* Prints every row; 0, the remembered failure, or -EIO when `out` failed. */
int ul_table_print(FILE *out, const struct ul_table *t);

void ul_table_free(struct ul_table *t);

#endif
