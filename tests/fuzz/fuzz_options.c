/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: the option value parsers.  The input, as text, goes to
 * each number parser of core/parse.c (sizes, durations, counts,
 * percentages) with a random range taken from its first bytes, and to the
 * --deadline profile parser; a value accepted must lie in its range.
 * Then the input's lines are the arguments of `underload run` (one a
 * line, e.g. "--interval=2s", "-o", "cpuload.procs=3"), parsed with run's
 * and every suite's option tables as cmd/run.c does, lists (--under,
 * --format, -o ITEM.NAME=VALUE) included; each suite then checks its
 * options.  A plain `run` parsed next must see no option at all.
 */
#include "fuzz.h"
#include "cmd/run.h"
#include "core/parse.h"
#include "model/suite.h"
#include "probe/deadline.h"

#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ARGS 32

/* Two bounds from the input's first 16 bytes (if any), lower first. */
static void bounds(const uint8_t *data, size_t size, int64_t *lo, int64_t *hi)
{
	uint64_t a = 0, b = UINT64_MAX;

	if (size >= 16) {
		memcpy(&a, data, 8);
		memcpy(&b, data + 8, 8);
	}
	a >>= 1, b >>= 1; /* non-negative as int64_t */
	*lo = (int64_t)(a < b ? a : b);
	*hi = (int64_t)(a < b ? b : a);
}

static void check_numbers(const char *text, int64_t lo, int64_t hi)
{
	struct ul_deadline_spec spec;
	char err[256];
	uint64_t u;
	int64_t v;

	if (!ul_parse_size(text, (uint64_t)lo, (uint64_t)hi, &u) &&
	    (u < (uint64_t)lo || u > (uint64_t)hi))
		ul_fuzz_fail("size '%s' -> %llu outside %lld..%lld", text, (unsigned long long)u,
			     (long long)lo, (long long)hi);
	if (!ul_parse_duration_ns(text, lo, hi, &v) && (v < lo || v > hi))
		ul_fuzz_fail("duration '%s' -> %lld outside the range", text, (long long)v);
	if (!ul_parse_count(text, lo, hi, &v) && (v < lo || v > hi))
		ul_fuzz_fail("count '%s' -> %lld outside the range", text, (long long)v);
	if (!ul_parse_pct(text, lo, hi, &v) && (v < lo || v > hi))
		ul_fuzz_fail("percentage '%s' -> %lld outside the range", text, (long long)v);
	if (!ul_deadline_parse(text, &spec, err, sizeof(err)) &&
	    (spec.work_ns <= 0 || spec.work_ns >= spec.period_ns))
		ul_fuzz_fail("deadline '%s' -> period %lld work %lld", text,
			     (long long)spec.period_ns, (long long)spec.work_ns);
}

/* The lines of text as `run`'s arguments, parsed and checked as cmd/run.c does. */
static void check_run_argv(char *text)
{
	struct run_args a;
	static char run[] = "run";
	char *argv[MAX_ARGS + 2] = { run }, err[512], *save = NULL;
	int argc = 1, first;

	for (char *tok = strtok_r(text, "\n", &save); tok && argc <= MAX_ARGS;
	     tok = strtok_r(NULL, "\n", &save))
		argv[argc++] = tok;
	if (ul_run_args_init(&a))
		ul_fuzz_fail("cannot set run's defaults");
	err[0] = '\0';
	int rc = ul_opt_parse_argv(a.groups, a.n_groups, argc, argv, &first, err, sizeof(err));

	if (rc < 0 && !*err)
		ul_fuzz_fail("arguments refused (%d) without a reason", rc);
	if (!rc) {
		if (first < 1 || first > argc)
			ul_fuzz_fail("first operand %d of %d arguments", first, argc);
		for (size_t i = 0; i < ul_suite_count() && i < UL_MAX_SUITES; i++) {
			const struct ul_suite *s = ul_suite_at(i);

			/* fsbench's check reads --loadfile: a path such as /dev/zero
			 * or a FIFO would stall the fuzzer; fuzz_loadfile covers
			 * the parser. */
			if (s->check_opts && a.suite_opts[i] && strcmp(s->name, "fsbench"))
				(void)s->check_opts(a.suite_opts[i], err, sizeof(err));
		}
	}
	ul_run_args_release(&a);
}

/* A parse after any other sees only its own arguments: plain `run`. */
static void check_fresh_parse(void)
{
	static char run[] = "run";
	char *argv[] = { run, NULL }, err[512];
	struct run_args a;
	int first = 0, rc;

	if (ul_run_args_init(&a))
		ul_fuzz_fail("cannot set run's defaults");
	rc = ul_opt_parse_argv(a.groups, a.n_groups, 1, argv, &first, err, sizeof(err));
	if (rc || first != 1)
		ul_fuzz_fail("plain 'run' after other arguments: %d, first operand %d", rc, first);
	for (size_t gi = 0; gi < a.n_groups; gi++)
		if (a.groups[gi].given)
			ul_fuzz_fail("plain 'run' after other arguments gave options of group %zu",
				     gi);
	ul_run_args_release(&a);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = ul_fuzz_cstr(data, size);
	int64_t lo, hi;

	opterr = 0; /* getopt's own messages: the program words the error itself */
	bounds(data, size, &lo, &hi);
	check_numbers(text, 0, INT64_MAX);
	check_numbers(text, lo, hi);
	if (size > 16)
		check_numbers(text + 16, lo, hi);
	check_run_argv(text);
	check_fresh_parse();
	free(text);
	return 0;
}
