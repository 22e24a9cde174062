/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The whole kind's driver (probe/whole.c) through the mtest01 probe's ops:
 * a run recorded, the counter reset between runs, a run past its deadline
 * stopped and reaped, a probe without ops refused. */
#include "unit.h"
#include "core/clock.h"
#include "model/model.h"
#include "probe/mtest01.h"
#include "probe/probe.h"
#include "proc/supervise.h"

#include <errno.h>
#include <sys/wait.h>

/* No child of the test process is left, running or zombie. */
static void assert_no_children(void)
{
	errno = 0;
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
}

static void mtest01_ctx(struct ul_probe_ctx *ctx, struct ul_mtest01_size *size)
{
	memset(ctx, 0, sizeof(*ctx));
	ctx->arg = size;
}

/* Two runs: each appends one value to every series, bytes = the target. */
START_TEST(test_whole_mtest01_runs)
{
	const struct ul_probe *probe = ul_probe_find("mtest01");
	struct ul_mtest01_size size = { .target = 2 * UL_MiB + 4321, .chunk = UL_MiB };
	struct ul_probe_ctx ctx;
	struct ul_whole_run *wr;
	struct ul_cell cell;
	struct ul_sup sup;

	ck_assert_ptr_nonnull(probe);
	ck_assert_ptr_nonnull(probe->whole);
	mtest01_ctx(&ctx, &size);
	memset(&cell, 0, sizeof(cell));
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_whole_start(probe, &ctx, &wr), 0);
	for (int run = 0; run < 2; run++) {
		struct ul_child *ex = NULL;
		int err = 0;

		ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns() + 20 * UL_NS_PER_SEC, &err,
						  &ex),
				 UL_MEASURE_OK);
		ck_assert_int_eq(ul_whole_result(wr, &cell), 0);
	}
	for (size_t i = 0; probe->whole->series[i]; i++) {
		const struct ul_series *s = ul_cell_find_series(&cell, probe->whole->series[i]);

		ck_assert_ptr_nonnull(s);
		ck_assert_uint_eq(s->n, 2);
	}
	for (size_t i = 0; i < 2; i++) {
		ck_assert_int_eq(ul_cell_find_series(&cell, UL_MTEST_BYTES_SERIES)->v[i],
				 (int64_t)size.target);
		ck_assert_int_eq(ul_cell_find_series(&cell, UL_MTEST_STATUS_SERIES)->v[i],
				 UL_MTEST_PASS);
		ck_assert_int_gt(ul_cell_find_series(&cell, probe->whole->series[0])->v[i], 0);
	}
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
	ul_cell_release(&cell);
	assert_no_children();
}
END_TEST

/* A run still going at its deadline is stopped and reaped: nothing to record. */
START_TEST(test_whole_deadline_stops_the_run)
{
	const struct ul_probe *probe = ul_probe_find("mtest01");
	struct ul_mtest01_size size = { .target = 256 * UL_MiB, .chunk = UL_MiB };
	struct ul_probe_ctx ctx;
	struct ul_whole_run *wr;
	struct ul_cell cell;
	struct ul_child *ex = NULL;
	struct ul_sup sup;
	int err = 0;

	mtest01_ctx(&ctx, &size);
	memset(&cell, 0, sizeof(cell));
	ck_assert_int_eq(ul_sup_init(&sup), 0);
	ck_assert_int_eq(ul_whole_start(probe, &ctx, &wr), 0);
	/* A deadline already past: the child cannot have written 256 MiB. */
	ck_assert_int_eq(ul_whole_measure(&sup, wr, ul_now_ns(), &err, &ex), UL_MEASURE_TIMEOUT);
	ck_assert_int_eq(ul_whole_result(wr, &cell), -EINVAL);
	ck_assert_ptr_null(ul_cell_find_series(&cell, UL_MTEST_BYTES_SERIES));
	assert_no_children();
	ul_whole_stop(&sup, wr);
	ul_sup_fini(&sup);
	ul_cell_release(&cell);
}
END_TEST

/* A whole probe its suite still runs has no ops: the driver refuses it. */
START_TEST(test_whole_needs_ops)
{
	const struct ul_probe *job = ul_probe_find("job"), *resp = ul_probe_find("resp");
	struct ul_probe_ctx ctx = { 0 };
	struct ul_whole_run *wr = (struct ul_whole_run *)&ctx;

	ck_assert_ptr_nonnull(job);
	ck_assert_ptr_nonnull(resp);
	ck_assert_int_eq(ul_whole_start(job, &ctx, &wr), -EINVAL);
	ck_assert_ptr_null(wr);
	ck_assert_int_eq(ul_whole_start(resp, &ctx, &wr), -EINVAL);
	/* mtest01 without its size from the suite */
	ck_assert_int_eq(ul_whole_start(ul_probe_find("mtest01"), &ctx, &wr), -EINVAL);
	ck_assert_ptr_null(wr);
}
END_TEST

Suite *ul_test_suite_whole(void)
{
	Suite *s = suite_create("whole");
	TCase *tc = tcase_create("whole");

	tcase_set_timeout(tc, 30);
	tcase_add_test(tc, test_whole_mtest01_runs);
	tcase_add_test(tc, test_whole_deadline_stops_the_run);
	tcase_add_test(tc, test_whole_needs_ops);
	suite_add_tcase(s, tc);
	return s;
}
