/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the dbench 4 loadfile parser of fsbench (--loadfile).  The
 * input is a loadfile; each line goes through ul_fsb_trace_parse_line() as
 * ul_fsb_trace_load() does, then the trace's totals are summed and every
 * operation's paths are checked against the parser's contract.
 */
#include "fuzz.h"
#include "dbench/loadfile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Paths lie inside the pool, never hold `..` as a component, and a
 * `client1` offset points at "client1" inside its path. */
static void check_trace(const struct ul_fsb_trace *t)
{
	struct ul_fsb_totals tot;

	ul_fsb_trace_totals(t, &tot);
	for (size_t i = 0; i < t->n; i++) {
		const struct ul_fsb_op *op = &t->ops[i];

		if (op->kind >= UL_FSB_N_KINDS)
			ul_fuzz_fail("op %zu: kind %u", i, op->kind);
		for (int p = 0; p < 2; p++) {
			const char *path;
			size_t len;

			if (!op->path[p])
				continue; /* no path */
			if (op->path[p] >= t->pool_len)
				ul_fuzz_fail("op %zu: path offset %u past the pool", i,
					     op->path[p]);
			path = ul_fsb_path(t, op->path[p]);
			len = strlen(path);
			if (!strcmp(path, "..") || !strncmp(path, "../", 3) ||
			    strstr(path, "/../") || (len >= 3 && !strcmp(path + len - 3, "/..")))
				ul_fuzz_fail("op %zu: path '%s' leaves the directory", i, path);
			if (op->sub[p] != UL_FSB_NO_SUB &&
			    (op->sub[p] + strlen("client1") > len ||
			     memcmp(path + op->sub[p], "client1", strlen("client1"))))
				ul_fuzz_fail("op %zu: client1 offset %u in '%s'", i, op->sub[p],
					     path);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ul_fsb_trace t;
	char err[512], *text = ul_fuzz_cstr(data, size), *line = text, *nl;
	unsigned no = 0;
	int rc = 0;

	ul_fsb_trace_init(&t);
	snprintf(t.source, sizeof(t.source), "fuzz.txt");
	for (; !rc && line; line = nl ? nl + 1 : NULL) {
		nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		err[0] = '\0';
		rc = ul_fsb_trace_parse_line(&t, line, ++no, err, sizeof(err));
		if (rc && !*err)
			ul_fuzz_fail("line %u refused (%d) without a reason", no, rc);
	}
	if (!rc)
		check_trace(&t);
	ul_fsb_trace_free(&t);
	free(text);
	return 0;
}
