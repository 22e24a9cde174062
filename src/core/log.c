/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user-facing message helpers; stderr only, never stdout. */
#include "core/compat.h"
#include "core/escape.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Longest message printed whole; a longer one keeps its head and tail. */
#define MSG_MAX 1024
#define MSG_HEAD 700
#define MSG_TAIL 280

/* Move back to the start of a UTF-8 character. */
static size_t char_start(const char *s, size_t i)
{
	while (i > 0 && ((unsigned char)s[i] & 0xc0) == 0x80)
		i--;
	return i;
}

/*
 * Every message goes out as one line: the formatted text has its control
 * characters escaped (a label or argument may hold any byte) and, when
 * longer than MSG_MAX, its middle replaced by a count of what was left out,
 * so a 100 KB argument does not flood the terminal but the reason at the
 * end of the line stays.
 */
static void vreport(const char *prefix, const char *fmt, va_list ap, int err)
{
	static char fallback[4096];
	char small[2048], *raw = small, *esc;
	va_list ap2;
	int len;
	size_t n;

	va_copy(ap2, ap);
	len = vsnprintf(small, sizeof(small), fmt, ap);
	if (len >= (int)sizeof(small) && (raw = malloc((size_t)len + 1)))
		vsnprintf(raw, (size_t)len + 1, fmt, ap2);
	va_end(ap2);
	if (!raw)
		raw = small; /* out of memory: the first 2 KiB will do */
	n = ul_escape(NULL, 0, raw, SIZE_MAX);
	esc = malloc(n + 1);
	if (esc)
		ul_escape(esc, n + 1, raw, SIZE_MAX);
	else /* out of memory: the escaped head of the text will do */
		ul_escape(esc = fallback, sizeof(fallback), raw, SIZE_MAX), n = strlen(esc);
	if (n > MSG_MAX) {
		size_t head = char_start(esc, MSG_HEAD), tail = char_start(esc, n - MSG_TAIL);

		fprintf(stderr, "%s: %.*s[... %zu bytes left out ...]%s", prefix, (int)head, esc,
			tail - head, esc + tail);
	} else {
		fprintf(stderr, "%s: %s", prefix, esc);
	}
	if (err)
		fprintf(stderr, ": %s", strerror(err < 0 ? -err : err));
	fputc('\n', stderr);
	if (esc != fallback)
		free(esc);
	if (raw != small)
		free(raw);
}

void ul_vusage(const char *cmd, const char *fmt, va_list ap)
{
	char prefix[96];

	snprintf(prefix, sizeof(prefix), "error: underload %s", cmd);
	vreport(prefix, fmt, ap, 0);
}

int ul_verror(int err, const char *fmt, va_list ap)
{
	vreport("error", fmt, ap, err);
	return -1;
}

int ul_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap, 0);
	va_end(ap);
	return -1;
}

int ul_oom(void)
{
	return ul_error(UL_OOM_TEXT);
}

int ul_error_errno(int err, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap, err);
	va_end(ap);
	return -1;
}

void ul_warning(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("warning", fmt, ap, 0);
	va_end(ap);
}

void ul_note(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("note", fmt, ap, 0);
	va_end(ap);
}

void ul_vwhyf(char *why, size_t len, const char *fmt, va_list ap)
{
	if (why && len)
		vsnprintf(why, len, fmt, ap);
}

void ul_whyf(char *why, size_t len, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ul_vwhyf(why, len, fmt, ap);
	va_end(ap);
}

void ul_bug(const char *file, int line, const char *fmt, ...)
{
	va_list ap;

	fprintf(stderr, "BUG: %s:%d: ", file, line);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
