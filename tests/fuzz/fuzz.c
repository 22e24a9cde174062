/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Helpers shared by the fuzz targets (fuzz.h). */
#include "fuzz.h"
#include "engine/engine.h"
#include "model/suite.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static char fuzz_dir[4096];

/* libFuzzer calls it once before the first input: the program's start. */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	ul_suites_install(ul_engine_suites);
	return 0;
}

char *ul_fuzz_cstr(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);

	if (!s)
		ul_fuzz_fail("out of memory");
	memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* Remove the directory's entries (files only: the targets make no subdirectory). */
static void remove_dir(void)
{
	DIR *d = opendir(fuzz_dir);
	struct dirent *de;

	if (d) {
		while ((de = readdir(d)))
			if (strcmp(de->d_name, ".") && strcmp(de->d_name, ".."))
				unlinkat(dirfd(d), de->d_name, 0);
		closedir(d);
	}
	rmdir(fuzz_dir);
}

const char *ul_fuzz_dir(void)
{
	const char *tmp = getenv("TMPDIR");

	if (*fuzz_dir)
		return fuzz_dir;
	snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/ul-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(fuzz_dir))
		ul_fuzz_fail("cannot make a directory under '%s'", tmp && *tmp ? tmp : "/tmp");
	atexit(remove_dir);
	return fuzz_dir;
}

void ul_fuzz_fail(const char *fmt, ...)
{
	va_list ap;

	fputs("fuzz: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	abort();
}
