/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The store's fault-injection seam (see fault.h). */
#include "core/compat.h"
#include "store/fault.h"
#include "core/testhook.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The ops that can be made to fail, by name. */
#define FAULT_OPS(X)                                                                               \
	X(begin_run)                                                                               \
	X(add_cell)                                                                                \
	X(finish_run)                                                                              \
	X(mark_interrupted)                                                                        \
	X(mark_crashed)                                                                            \
	X(list_runs)                                                                               \
	X(load_run)                                                                                \
	X(find_run)                                                                                \
	X(delete_run)                                                                              \
	X(relabel_run)                                                                             \
	X(import_runs)

enum fault_op {
#define X(name) F_##name,
	FAULT_OPS(X)
#undef X
	F_COUNT
};

static const char *const op_names[F_COUNT] = {
#define X(name) [F_##name] = #name,
	FAULT_OPS(X)
#undef X
};

struct ul_store_fault {
	const struct ul_store_ops *real;
	struct ul_store_ops wrapped;
	enum fault_op op;
	long from, count, calls;
	int err;
};

static const struct {
	const char *name;
	int err;
} errnames[] = {
	{ "ENOSPC", ENOSPC }, { "EBUSY", EBUSY },   { "EIO", EIO },
	{ "ESTALE", ESTALE }, { "EACCES", EACCES }, { "ENOMEM", ENOMEM },
};

/* Whether this call of `op` fails; fills err when it does. */
static int injected(struct ul_store *st, enum fault_op op)
{
	struct ul_store_fault *f = st->fault;

	if (f->op != op)
		return 0;
	f->calls++;
	if (f->calls < f->from || (f->count > 0 && f->calls >= f->from + f->count))
		return 0;
	snprintf(st->err, sizeof(st->err), "%s: %s (injected by UL_TEST_STORE_FAULT)", op_names[op],
		 strerror(f->err));
	return -f->err;
}

#define CHECK(st, name)                                                                            \
	do {                                                                                       \
		int r_ = injected((st), F_##name);                                                 \
		if (r_)                                                                            \
			return r_;                                                                 \
	} while (0)

static int w_begin_run(struct ul_store *st, struct ul_run *run)
{
	CHECK(st, begin_run);
	return st->fault->real->begin_run(st, run);
}

static int w_add_cell(struct ul_store *st, const struct ul_run *run, const struct ul_cell *cell)
{
	CHECK(st, add_cell);
	return st->fault->real->add_cell(st, run, cell);
}

static int w_finish_run(struct ul_store *st, const struct ul_run *run)
{
	CHECK(st, finish_run);
	return st->fault->real->finish_run(st, run);
}

static int w_mark_interrupted(struct ul_store *st, const char *uuid, int64_t *end)
{
	CHECK(st, mark_interrupted);
	return st->fault->real->mark_interrupted(st, uuid, end);
}

static int w_mark_crashed(struct ul_store *st, const char *uuid, const struct ul_cell *at,
			  int64_t *end)
{
	CHECK(st, mark_crashed);
	return st->fault->real->mark_crashed(st, uuid, at, end);
}

static int w_list_runs(struct ul_store *st, struct ul_run_summary **out, size_t *n)
{
	CHECK(st, list_runs);
	return st->fault->real->list_runs(st, out, n);
}

static int w_load_run(struct ul_store *st, const char *ref, struct ul_run *out)
{
	CHECK(st, load_run);
	return st->fault->real->load_run(st, ref, out);
}

static int w_find_run(struct ul_store *st, const char *ref, struct ul_run_summary *out)
{
	CHECK(st, find_run);
	return st->fault->real->find_run(st, ref, out);
}

static int w_delete_run(struct ul_store *st, const char *uuid)
{
	CHECK(st, delete_run);
	return st->fault->real->delete_run(st, uuid);
}

static int w_relabel_run(struct ul_store *st, const char *uuid, const char *label)
{
	CHECK(st, relabel_run);
	return st->fault->real->relabel_run(st, uuid, label);
}

static int w_import_runs(struct ul_store *st, const struct ul_run *runs, size_t n, size_t *inserted)
{
	CHECK(st, import_runs);
	return st->fault->real->import_runs(st, runs, n, inserted);
}

int ul_store_fault_set(struct ul_store *st, const char *op, long from, long count, int err)
{
	struct ul_store_fault *f;
	size_t i;

	for (i = 0; i < F_COUNT && strcmp(op_names[i], op); i++)
		;
	if (i == F_COUNT || from < 1 || count < 0 || err <= 0)
		return -EINVAL;
	ul_store_fault_disarm(st);
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->real = st->ops;
	f->wrapped = *st->ops;
	f->wrapped.begin_run = w_begin_run;
	f->wrapped.add_cell = w_add_cell;
	f->wrapped.finish_run = w_finish_run;
	f->wrapped.mark_interrupted = w_mark_interrupted;
	f->wrapped.mark_crashed = w_mark_crashed;
	f->wrapped.list_runs = w_list_runs;
	f->wrapped.load_run = w_load_run;
	f->wrapped.find_run = w_find_run;
	f->wrapped.delete_run = w_delete_run;
	f->wrapped.relabel_run = w_relabel_run;
	f->wrapped.import_runs = w_import_runs;
	f->op = (enum fault_op)i;
	f->from = from;
	f->count = count;
	f->err = err;
	st->fault = f;
	st->ops = &f->wrapped;
	return 0;
}

void ul_store_fault_arm(struct ul_store *st)
{
	const char *spec = ul_test_hook("UL_TEST_STORE_FAULT");
	char op[32], errname[16];
	long from = 0, count = 0;
	int err = 0;

	if (!spec)
		return;
	if (sscanf(spec, "%31[a-z_]:%ld:%15[A-Z]:%ld", op, &from, errname, &count) < 3)
		return;
	for (size_t i = 0; i < UL_ARRAY_SIZE(errnames); i++)
		if (!strcmp(errnames[i].name, errname))
			err = errnames[i].err;
	if (err)
		(void)ul_store_fault_set(st, op, from, count, err);
}

void ul_store_fault_disarm(struct ul_store *st)
{
	if (!st->fault)
		return;
	st->ops = st->fault->real;
	free(st->fault);
	st->fault = NULL;
}
