/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Output formats: pure functions of the model.  A format never sees
 * processes or the store; it writes one run to a FILE and returns 0 or a
 * negative errno (-EIO when the stream reported an error).
 *
 * How to add a format: copy report/text.c, rename its descriptor
 * `ul_format_NAME`, add a line to formats.def, add a golden file under
 * tests/golden/ and a case to tests/unit/test_report.c.
 *
 * Versioned seed formats (resp1) are frozen: a change makes a new name.
 */
#ifndef UL_FORMAT_H
#define UL_FORMAT_H

#include "core/compat.h"
#include "model/model.h"

#include <stdio.h>

/* Settings of a report over several runs (`underload compare`). */
struct ul_report_opts {
	const char *
		baseline; /* label whose noload mean divides every ratio; NULL = each label's own */
};

struct ul_format {
	const char *name;    /* "resp1", "text", "json" */
	const char *summary; /* one line for `underload list formats` */
	int version;	     /* format_version, bumped on any change of output */
	int (*write_run)(FILE *out, const struct ul_run *run);
	/*
	 * Optional: one report over several runs (the contest table of every
	 * label, `underload compare`).  `runs` come in any order and the
	 * format orders them; opts may be NULL.  Same return contract as
	 * write_run.  NULL = this format prints one run at a time.
	 */
	int (*write_runs)(FILE *out, const struct ul_run *const *runs, size_t n,
			  const struct ul_report_opts *opts);
};

const struct ul_format *ul_format_find(const char *name);
/* Every format's name, ", "-separated, cut to fit len. */
void ul_format_names(char *buf, size_t len);
size_t ul_format_count(void);
const struct ul_format *ul_format_at(size_t i);

#endif
