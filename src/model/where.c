/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where a run is: the text of a journal's "at" record, and the crashed
 * cell it becomes after the machine went down, and whether it ran in a VM
 * (contracts in model.h).
 */
#include "core/compat.h"
#include "model/model.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* A name as the model keeps it: 1..47 printable bytes, no blank. */
static bool word_ok(const char *s)
{
	size_t n = strlen(s);

	if (n == 0 || n >= UL_NAME_LEN)
		return false;
	for (; *s; s++)
		if (*s <= ' ' || *s > '~')
			return false;
	return true;
}

int ul_cell_where_format(const struct ul_cell *cell, int round, char *out, size_t len)
{
	int n;

	if (!word_ok(cell->suite) || !word_ok(cell->load) || !word_ok(cell->probe) || round < 1 ||
	    cell->seq < 0)
		return -EINVAL;
	n = snprintf(out, len, "%d %d %" PRId64 " %s %s %s", cell->seq, round,
		     cell->started_wall_ns, cell->suite, cell->load, cell->probe);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}

/* A word of "at" into a model name field: -EINVAL when it does not fit
 * (word_ok() bounds it; this keeps the copy from cutting one silently). */
static int copy_word(char dst[UL_NAME_LEN], const char *word)
{
	int n = snprintf(dst, UL_NAME_LEN, "%s", word);

	return n < 0 || n >= UL_NAME_LEN ? -EINVAL : 0;
}

int ul_cell_where_parse(const char *text, struct ul_cell *out, int *round)
{
	char suite[UL_NAME_LEN + 1], load[UL_NAME_LEN + 1], probe[UL_NAME_LEN + 1];
	int64_t started;
	int seq, r, end = 0;

	memset(out, 0, sizeof(*out));
	if (!text ||
	    sscanf(text, "%d %d %" SCNd64 " %48s %48s %48s%n", &seq, &r, &started, suite, load,
		   probe, &end) != 6 ||
	    text[end] || seq < 0 || r < 1 || started < 0 || !word_ok(suite) || !word_ok(load) ||
	    !word_ok(probe) || copy_word(out->suite, suite) || copy_word(out->load, load) ||
	    copy_word(out->probe, probe))
		return -EINVAL;
	out->seq = seq;
	out->outcome = UL_CELL_CRASHED;
	out->started_wall_ns = started;
	out->finished_wall_ns = started; /* its end is unknown: the machine went down */
	snprintf(out->note, sizeof(out->note),
		 "the machine went down during round %d of this test (a kernel crash, hang or "
		 "reboot); nothing of it was measured",
		 r);
	*round = r;
	return 0;
}

int ul_run_cell_round(const struct ul_run *run, size_t i)
{
	const struct ul_cell *c = &run->cells[i];
	int round = 1;

	for (size_t k = 0; k < i; k++)
		round += !strcmp(run->cells[k].suite, c->suite) &&
			 !strcmp(run->cells[k].load, c->load) &&
			 !strcmp(run->cells[k].probe, c->probe);
	return round;
}

void ul_cell_where_describe(const struct ul_cell *cell, int round, char *out, size_t len)
{
	snprintf(out, len, "%s %s (probe %s), round %d", cell->suite, cell->load, cell->probe,
		 round);
}

long ul_run_crash_where(const struct ul_run *run, char *out, size_t len)
{
	for (size_t i = 0; i < run->n_cells; i++)
		if (run->cells[i].outcome == UL_CELL_CRASHED) {
			ul_cell_where_describe(&run->cells[i], ul_run_cell_round(run, i), out, len);
			return (long)i;
		}
	snprintf(out, len, "an unknown test");
	return -1;
}

long ul_run_crash_phrase(const struct ul_run *run, char *out, size_t len)
{
	char where[192];
	long i = ul_run_crash_where(run, where, sizeof(where));
	size_t last;

	if (i >= 0 || !run->n_cells) {
		snprintf(out, len, "in %s", where);
		return i;
	}
	/* Its journal's last test is stored as it ended: the crash came later. */
	last = run->n_cells - 1;
	ul_cell_where_describe(&run->cells[last], ul_run_cell_round(run, last), where,
			       sizeof(where));
	snprintf(out, len,
		 "after its last test (%s) ended, in its teardown or before another began", where);
	return i;
}

bool ul_run_in_vm(const struct ul_run *run)
{
	return run->fingerprint && json_is_object(json_object_get(run->fingerprint, "vm"));
}

bool ul_run_emulated(const struct ul_run *run)
{
	const json_t *vm = run->fingerprint ? json_object_get(run->fingerprint, "vm") : NULL;
	const char *e = json_string_value(json_object_get(vm, "emulated"));

	return e && !strcmp(e, "yes");
}
