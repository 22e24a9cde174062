/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the exchange reader (`underload import`, recovery files).
 * The input is a JSON document.  One the reader accepts is imported into
 * a fresh in-memory store twice (the second import must change nothing),
 * every run is loaded back, exported again (CSV, then JSON), and the JSON
 * must be accepted by the reader: a run exported and imported is the
 * same run.
 */
#include "fuzz.h"
#include "store/exchange.h"
#include "store/store.h"

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>

/* Export the runs and read the export back: it must be accepted, as many runs. */
static void check_reexport(const struct ul_run *runs, size_t n)
{
	const struct ul_run **ptrs = calloc(n ? n : 1, sizeof(*ptrs));
	struct ul_run *again = NULL;
	char *buf = NULL, why[512];
	size_t len = 0, n2 = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!ptrs || !f)
		ul_fuzz_fail("out of memory");
	for (size_t i = 0; i < n; i++)
		ptrs[i] = &runs[i];
	if (ul_exchange_write_csv(f, ptrs, n))
		ul_fuzz_fail("cannot export %zu stored runs as CSV", n);
	fclose(f);
	free(buf);
	buf = NULL;
	f = open_memstream(&buf, &len);
	if (!f)
		ul_fuzz_fail("out of memory");
	if (ul_exchange_write_json(f, ptrs, n))
		ul_fuzz_fail("cannot export %zu stored runs", n);
	fclose(f);
	if (ul_exchange_read_json(buf, len, &again, &n2, why, sizeof(why)))
		ul_fuzz_fail("the export of stored runs is refused: %s", why);
	if (n2 != n)
		ul_fuzz_fail("exported %zu runs, read back %zu", n, n2);
	ul_exchange_free(again, n2);
	free(buf);
	free(ptrs);
}

/* Load every stored run (as `show` and `export` do) and re-export them. */
static void check_stored(struct ul_store *st)
{
	struct ul_run_summary *sum = NULL;
	struct ul_run *runs;
	size_t n = 0;

	if (st->ops->list_runs(st, &sum, &n))
		ul_fuzz_fail("cannot list imported runs: %s", st->err);
	runs = calloc(n ? n : 1, sizeof(*runs));
	if (!runs)
		ul_fuzz_fail("out of memory");
	for (size_t i = 0; i < n; i++) {
		ul_run_init(&runs[i]);
		if (st->ops->load_run(st, sum[i].uuid, &runs[i]))
			ul_fuzz_fail("cannot load imported run %s: %s", sum[i].uuid, st->err);
	}
	check_reexport(runs, n);
	for (size_t i = 0; i < n; i++)
		ul_run_release(&runs[i]);
	free(runs);
	free(sum);
}

static void import_into_memory(const struct ul_run *runs, size_t n)
{
	struct ul_store *st;
	char err[512];
	size_t added = 0;

	if (ul_store_open(":memory:", &st, err, sizeof(err)))
		ul_fuzz_fail("cannot open an in-memory store: %s", err);
	if (!st->ops->import_runs(st, runs, n, &added)) {
		if (st->ops->import_runs(st, runs, n, &added))
			ul_fuzz_fail("a second import of the same runs fails: %s", st->err);
		if (added)
			ul_fuzz_fail("a second import of the same runs changed %zu", added);
		check_stored(st);
	}
	ul_store_close(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct ul_run *runs = NULL;
	size_t n = 0;
	char why[512];

	json_object_seed(1); /* the same hash order every time: reproducible */
	if (ul_exchange_read_json((const char *)data, size, &runs, &n, why, sizeof(why)))
		return 0;
	import_into_memory(runs, n);
	ul_exchange_free(runs, n);
	return 0;
}
