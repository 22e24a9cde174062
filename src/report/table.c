/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The aligned table for people (report/table.h). */
#include "core/compat.h"
#include "report/table.h"
#include "report/quantity.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void ul_table_init(struct ul_table *t, size_t ncols, const bool *left, bool marked)
{
	*t = (struct ul_table){ .ncols = ncols, .left = left, .marked = marked };
}

size_t ul_table_add_row(struct ul_table *t, char mark)
{
	if (t->err)
		return SIZE_MAX;
	if (t->rows == t->cap) {
		size_t cap = t->cap ? 2 * t->cap : 16;
		char **cell = realloc(t->cell, cap * t->ncols * sizeof(*cell));
		char *marks;

		if (!cell) {
			t->err = -ENOMEM;
			return SIZE_MAX;
		}
		t->cell = cell;
		marks = realloc(t->mark, cap);
		if (!marks) {
			t->err = -ENOMEM;
			return SIZE_MAX;
		}
		t->mark = marks;
		t->cap = cap;
	}
	memset(&t->cell[t->rows * t->ncols], 0, t->ncols * sizeof(*t->cell));
	t->mark[t->rows] = mark;
	return t->rows++;
}

size_t ul_table_add_titles(struct ul_table *t, const char *const *titles)
{
	size_t row = ul_table_add_row(t, ' ');

	for (size_t c = 0; c < t->ncols; c++)
		ul_table_set(t, row, c, "%s", titles[c]);
	return row;
}

static char **cell_at(struct ul_table *t, size_t row, size_t col)
{
	return row < t->rows && col < t->ncols ? &t->cell[row * t->ncols + col] : NULL;
}

void ul_table_set(struct ul_table *t, size_t row, size_t col, const char *fmt, ...)
{
	char **cell = cell_at(t, row, col);
	char *s;
	va_list ap;
	int n;

	if (!cell)
		return;
	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0) {
		t->err = -ENOMEM;
		return;
	}
	free(*cell);
	*cell = s;
}

void ul_table_set_clean(struct ul_table *t, size_t row, size_t col, const char *s, size_t cap)
{
	size_t len = strnlen(s, cap);
	char **cell;

	ul_table_set(t, row, col, "%.*s", (int)len, s);
	cell = cell_at(t, row, col);
	if (!cell || !*cell)
		return;
	for (char *p = *cell; *p; p++)
		if ((unsigned char)*p < 0x20 || *p == 0x7f)
			*p = ' ';
}

static const char *text_at(const struct ul_table *t, size_t row, size_t col)
{
	const char *s = t->cell[row * t->ncols + col];

	return s ? s : "";
}

int ul_table_print(FILE *out, const struct ul_table *t)
{
	size_t *width;

	if (t->err)
		return t->err;
	width = calloc(t->ncols ? t->ncols : 1, sizeof(*width));
	if (!width)
		return -ENOMEM;
	for (size_t r = 0; r < t->rows; r++)
		for (size_t c = 0; c < t->ncols; c++) {
			size_t len = ul_fmt_columns(text_at(t, r, c));

			if (len > width[c])
				width[c] = len;
		}
	for (size_t r = 0; r < t->rows; r++) {
		if (t->marked)
			fprintf(out, "%c ", t->mark[r]);
		for (size_t c = 0; c < t->ncols; c++) {
			const char *s = text_at(t, r, c);
			int w = (int)width[c];

			if (c == t->ncols - 1 && t->left[c] && !*s)
				break; /* an empty last cell: no trailing blanks */
			if (c)
				fputs("  ", out);
			if (!t->left[c])
				fprintf(out, "%*s", ul_fmt_width(s, w), s);
			else if (c == t->ncols - 1)
				fputs(s, out); /* no trailing blanks */
			else
				fprintf(out, "%-*s", ul_fmt_width(s, w), s);
		}
		fputc('\n', out);
	}
	free(width);
	return ferror(out) ? -EIO : 0;
}

void ul_table_free(struct ul_table *t)
{
	for (size_t i = 0; i < t->rows * t->ncols; i++)
		free(t->cell[i]);
	free(t->cell);
	free(t->mark);
	*t = (struct ul_table){ 0 };
}
