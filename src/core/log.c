/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The user-facing message helpers; stderr only, never stdout. */
#include "core/compat.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *ul_progname = "underload";

static void vreport(const char *prefix, const char *fmt, va_list ap, int err)
{
	char msg[2048];

	vsnprintf(msg, sizeof(msg), fmt, ap);
	if (err)
		fprintf(stderr, "%s: %s: %s\n", prefix, msg, strerror(err < 0 ? -err : err));
	else
		fprintf(stderr, "%s: %s\n", prefix, msg);
}

int ul_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vreport("error", fmt, ap, 0);
	va_end(ap);
	return -1;
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
