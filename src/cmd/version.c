/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload --version`: the version, the commit it was built from and what
 * is built in (stores, suites, formats, sanitizers), one item a line, so a
 * result can be tied to the exact program that made it.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "model/suite.h"
#include "report/format.h"
#include "ul_config.h"
#include "ul_version.h"

#include <stdio.h>
#include <string.h>

/* Every store backend, from the same list the store registry expands. */
static const char stores[] = ""
#define UL_STORE(file, ident) " " #ident
#include "store/stores.def"
#undef UL_STORE
	;

int ul_print_version(FILE *out)
{
	fprintf(out, "underload %s", UL_VERSION);
	/* Outside a git checkout vcs_tag falls back to the version itself. */
	if (strcmp(UL_VCS_TAG, UL_VERSION))
		fprintf(out, " (git %s)", UL_VCS_TAG);
	fprintf(out, "\nstores:%s\nsuites:", stores);
	for (size_t i = 0; i < ul_suite_count(); i++)
		fprintf(out, " %s", ul_suite_at(i)->name);
	fputs("\nformats:", out);
	for (size_t i = 0; i < ul_format_count(); i++)
		fprintf(out, " %s", ul_format_at(i)->name);
	fprintf(out, "\nbuild: %s, sanitizers: %s\n", UL_BUILDTYPE, UL_SANITIZE);
	/* A test build obeys UL_TEST_* (core/testhook.h); a release never. */
	fprintf(out, "test hooks: %s\n", UL_TEST_HOOKS ? "yes" : "no");
	return 0;
}
