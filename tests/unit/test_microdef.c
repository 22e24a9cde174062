/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the micro measurements measure: LMbench's definitions (the "lm-"
 * probes the lmbench2 format shows) against underload's native ones,
 * pinned by what the kernel counted (minor faults per operation) and by
 * the records each probe leaves; the probe each lmbench2 column shows; and
 * the placement of multi-process tests, as their ends saw it.
 */
#include "unit.h"
#include "core/clock.h"
#include "model/suite.h"
#include "probe/micro/bench.h"
#include "probe/probe.h"
#include "proc/scratch.h"
#include "report/lmbench2.h"
#include "stats/stats.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char def_dir[4096];

static void def_dir_create(void)
{
	ck_assert_int_eq(ul_scratch_create("/tmp", def_dir, sizeof(def_dir)), 0);
}

static void def_dir_remove(void)
{
	ck_assert_int_eq(ul_scratch_remove(def_dir), 0);
}

static const char *self_exe(void)
{
	const char *exe = getenv("UL_TEST_EXE");

	return exe && *exe ? exe : UL_BUILD_ROOT "/underload";
}

/* The small profile of these tests. */
static void small_env(struct ul_micro_env *env)
{
	ul_micro_env_init(env, def_dir, true);
	env->mh.min_batch_ns = 5 * UL_NS_PER_MS;
	env->mh.batches = 3;
	env->llc_bytes = 2 * UL_MiB;
	env->self_exe = self_exe();
}

/* Run probe `name` in this process (Check forks each test) with env; its
 * records. */
static struct ul_micro_out *measure_in(const char *name, const struct ul_micro_env *env)
{
	struct ul_micro_out *out = calloc(1, sizeof(*out));
	const struct ul_probe *p = ul_probe_find(name);

	ck_assert_ptr_nonnull(out);
	ck_assert_ptr_nonnull(p);
	ck_assert_int_eq(p->measure(env, out), 0);
	return out;
}

static struct ul_micro_out *measure(const char *name)
{
	struct ul_micro_env env;

	small_env(&env);
	return measure_in(name, &env);
}

static const struct ul_micro_rec *rec(const struct ul_micro_out *out, const char *name)
{
	for (size_t i = 0; i < out->n; i++)
		if (!strcmp(out->rec[i].name, name))
			return &out->rec[i];
	ck_abort_msg("no record %s", name);
	return NULL;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median of r's values, as lmbench's benchmp reports its repetitions. */
static double median_of(const struct ul_micro_rec *r)
{
	double v[UL_MH_MAX_BATCHES];

	ck_assert(r->n > 0 && r->n <= UL_MH_MAX_BATCHES);
	for (int i = 0; i < r->n; i++)
		v[i] = (double)r->v[i];
	qsort(v, (size_t)r->n, sizeof(v[0]), cmp_double);
	return ul_stats_median_sorted(v, (size_t)r->n);
}

/* Native page fault: one fault per reported operation.  LMbench's: the
 * time per 4 KiB page touched (2048 of an 8 MiB file), at most one fault
 * per page (fault-around makes it about 1/16), net of the remap's median
 * batch (lat_pagefault subtracts benchmp's median). */
START_TEST(test_pagefault_definitions)
{
	struct ul_micro_out *nat = measure("lat-pagefault"), *lm = measure("lm-pagefault");
	double nat_f = rec(nat, "minflt_per_op")->metric, lm_f = rec(lm, "minflt_per_op")->metric;
	const struct ul_micro_rec *op = rec(lm, "op_ps"), *gross = rec(lm, "gross_ps");
	double remap = median_of(rec(lm, "remap_ps"));

	ck_assert_msg(nat_f > 0.9 && nat_f < 1.1, "native faults per op %.3f", nat_f);
	ck_assert_msg(lm_f > 0 && lm_f <= 1.01, "lm faults per page %.3f", lm_f);
	ck_assert_double_eq(rec(lm, "pages_per_iter")->metric, 8 * UL_MiB / 4096);
	for (int i = 0; i < op->n; i++)
		ck_assert_msg(fabs((double)op->v[i] -
				   ul_micro_net_ns((double)gross->v[i] * 2048, remap, 2048)) <= 2,
			      "batch %d: %lld vs gross %lld, remap %.0f", i, (long long)op->v[i],
			      (long long)gross->v[i], remap);
	free(nat);
	free(lm);
}
END_TEST

/* LMbench's mmap: 52 writes a mapping (every 16 KiB of the first tenth
 * of 8 MiB), each faulting unless an earlier fault mapped its page: a
 * kernel with large page-cache folios maps a whole folio a fault (6.18 on
 * ext4: 13 faults).  No fault may go unmapped, none be extra. */
START_TEST(test_mmap_definition)
{
	struct ul_micro_out *lm = measure("lm-mmap");
	double f = rec(lm, "minflt_per_op")->metric;

	ck_assert_double_eq(rec(lm, "writes_per_op")->metric, 52);
	ck_assert_msg(f >= 1 && f <= 52.5, "faults per mmap %.2f", f);
	free(lm);
}
END_TEST

/* LMbench's signal handler: the catch less the median kill(me, 0), as
 * lat_sig subtracts the median of its send repetitions. */
START_TEST(test_sighndl_net_of_kill)
{
	struct ul_micro_out *lm = measure("lm-sighndl");
	const struct ul_micro_rec *op = rec(lm, "op_ps"), *gross = rec(lm, "gross_ps");
	double kill0 = median_of(rec(lm, "kill0_ps"));

	ck_assert(kill0 > 0);
	for (int i = 0; i < op->n; i++) {
		double want = (double)gross->v[i] - kill0;

		ck_assert_msg(fabs((double)op->v[i] - (want > 0 ? want : 0)) <= 2,
			      "batch %d: %lld, gross %lld, kill0 %.0f", i, (long long)op->v[i],
			      (long long)gross->v[i], kill0);
	}
	free(lm);
}
END_TEST

/* fork and exec from the small helper: it has an empty environment and
 * passes it on; it is underload-forker, not the prober. */
START_TEST(test_forker_small_and_empty)
{
	static const char *const names[] = { "lm-fork", "lm-exec", "lm-sh" };

	for (size_t i = 0; i < UL_ARRAY_SIZE(names); i++) {
		struct ul_micro_out *out = measure(names[i]);

		ck_assert_double_eq(rec(out, "target_env_n")->metric, 0);
		ck_assert(rec(out, "forker_maps")->metric > 0);
		ck_assert(rec(out, "forker_vm_kib")->metric > 0);
		ck_assert(rec(out, "op_ps")->n == 3);
		free(out);
	}
}
END_TEST

/* LMbench's memory table: stride 128, 100 hops a loop pass (a 16-hop
 * loop lets a per-instruction stride prefetcher in: L2 at 0.35 of
 * lat_mem_rd's), main memory at 4x the LLC. */
START_TEST(test_lm_mem_points)
{
	struct ul_micro_out *out = measure("lm-mem");

	ck_assert_double_eq(rec(out, "stride_bytes")->metric, 128);
	ck_assert_double_eq(rec(out, "hops_per_pass")->metric, 100);
	ck_assert_double_eq(rec(out, "main_range_bytes")->metric, 8 * UL_MiB);
	ck_assert_int_eq(rec(out, "l1_ps")->n, 3);
	ck_assert_int_eq(rec(out, "l2_ps")->n, 3);
	ck_assert_int_eq(rec(out, "main_ps")->n, 3);
	free(out);
}
END_TEST

/* LMbench's prot fault: the write faults less lat_sig's catch, which is
 * the median kill(me, SIGUSR1) caught less the median kill(me, 0) (benchmp
 * reports the median repetition; lat_sig subtracts those). */
START_TEST(test_protfault_net_of_catch)
{
	struct ul_micro_out *lm = measure("lm-protfault");
	const struct ul_micro_rec *op = rec(lm, "op_ps"), *gross = rec(lm, "gross_ps");
	double kill0 = median_of(rec(lm, "kill0_ps")), caught = median_of(rec(lm, "catch_ps"));
	double base_ps = rec(lm, "base_ns")->metric * 1000;

	ck_assert(kill0 > 0 && caught > 0);
	ck_assert_msg(fabs(base_ps - (caught > kill0 ? caught - kill0 : 0)) <= 2,
		      "subtracted %.0f ps, catch %.0f, kill0 %.0f", base_ps, caught, kill0);
	for (int i = 0; i < op->n; i++) {
		double want = (double)gross->v[i] - base_ps;

		ck_assert_msg(gross->v[i] > 0, "batch %d: no fault timed", i);
		ck_assert_msg(fabs((double)op->v[i] - (want > 0 ? want : 0)) <= 2,
			      "batch %d: %lld, gross %lld, catch %.0f", i, (long long)op->v[i],
			      (long long)gross->v[i], base_ps);
	}
	free(lm);
}
END_TEST

/* LMbench's select: 100 descriptors, nfds 100, so those below 100 (all
 * but the few the process had open) are examined; TCP bandwidth: 10 MiB transfers
 * (the native test's 64 KiB); file reread: the whole working set in
 * 64 KiB reads. */
START_TEST(test_lm_sizes)
{
	struct ul_micro_env env;
	struct ul_micro_out *sel = measure("lm-select"), *rd, *tcp, *nat;

	small_env(&env);
	rd = measure_in("lm-file-rd", &env);
	tcp = measure_in("lm-bw-tcp-1cpu", &env);
	nat = measure_in("bw-tcp-1cpu", &env);
	ck_assert(rec(sel, "select_fds")->metric >= 90 && rec(sel, "select_fds")->metric < 100);
	ck_assert_double_eq(rec(tcp, "xfer_bytes")->metric, 10 * 1024 * 1024);
	ck_assert_double_eq(rec(nat, "xfer_bytes")->metric, 64 * 1024);
	/* bw_tcp's warm-up before the timed batches, --quick (small_env) or
	 * not; the native test has none. */
	ck_assert_double_eq(rec(tcp, "warmup_ns")->metric, 7500 * UL_NS_PER_MS);
	for (size_t i = 0; i < nat->n; i++)
		ck_assert_str_ne(nat->rec[i].name, "warmup_ns");
	free(tcp);
	free(nat);
	ck_assert_double_eq(rec(rd, "xfer_bytes")->metric, 65536);
	ck_assert_double_eq(rec(rd, "file_bytes")->metric, (double)(env.bw_bytes / 65536 * 65536));
	ck_assert_int_eq(rec(rd, "bw_bytes_s")->n, 3);
	free(sel);
	free(rd);
}
END_TEST

static double metric(const struct ul_micro_out *out, const char *name)
{
	return rec(out, name)->metric;
}

/* Both placements of a pair and of a ring: each end's own affinity (read
 * by the end itself once pinned) and the CPU it ran on. */
START_TEST(test_placements)
{
	struct ul_micro_env env;
	struct ul_micro_out *one, *two, *ring;
	double a, b;

	/* Once, before the first test pins this process to its CPU. */
	small_env(&env);
	if (env.place_cpu[1] < 0) {
		ck_assert_int_ge(env.place_cpu[0], 0);
		return; /* one CPU: only the -1cpu placement exists */
	}
	a = (double)(UINT64_C(1) << env.place_cpu[0]);
	b = (double)(UINT64_C(1) << env.place_cpu[1]);
	one = measure_in("lat-pipe-1cpu", &env);
	ck_assert_double_eq(metric(one, "place_cpus"), 1);
	ck_assert_double_eq(metric(one, "affinity_self"), a);
	ck_assert_double_eq(metric(one, "affinity_peers"), a);
	ck_assert_double_eq(metric(one, "ran_on_self"), env.place_cpu[0]);
	ck_assert_double_eq(metric(one, "ran_on_peer"), env.place_cpu[0]);
	two = measure_in("lat-pipe-2cpu", &env);
	ck_assert_double_eq(metric(two, "place_cpus"), 2);
	ck_assert_double_eq(metric(two, "affinity_self"), a);
	ck_assert_double_eq(metric(two, "affinity_peers"), b);
	ck_assert_double_eq(metric(two, "ran_on_self"), env.place_cpu[0]);
	ck_assert_double_eq(metric(two, "ran_on_peer"), env.place_cpu[1]);
	/* A ring of 8 on two CPUs: the members alternate, the master's CPU
	 * among them. */
	ring = measure_in("ctx-8p16k-2cpu", &env);
	ck_assert_double_eq(metric(ring, "affinity_self"), a);
	ck_assert_double_eq(metric(ring, "affinity_peers"), a + b);
	free(one);
	free(two);
	free(ring);
}
END_TEST

/* The probe each column of the lmbench2 format shows: LMbench's
 * definition (an lm- probe) where the native test does other work, the
 * native one where it does LMbench's work, the -1cpu placement for two
 * processes; each a test of the micro suite.  Changing a column's source
 * is a change of its definition: change this table, the man page's
 * column list and the format's version with it. */
START_TEST(test_lm2_column_sources)
{
	static const char *const want[UL_LM2_NCOLS] = {
		[UL_LM2_NULL_CALL] = "lat-null",
		[UL_LM2_NULL_IO] = "lat-nullio",
		[UL_LM2_STAT] = "lm-stat",
		[UL_LM2_OPEN_CLOSE] = "lm-openclose",
		[UL_LM2_SELECT_TCP] = "lm-select",
		[UL_LM2_SIG_INST] = "lat-siginst",
		[UL_LM2_SIG_HNDL] = "lm-sighndl",
		[UL_LM2_FORK] = "lm-fork",
		[UL_LM2_EXEC] = "lm-exec",
		[UL_LM2_SH] = "lm-sh",
		[UL_LM2_CTX_2P0K] = "ctx-2p0k-1cpu",
		[UL_LM2_CTX_2P16K] = "ctx-2p16k-1cpu",
		[UL_LM2_CTX_2P64K] = "ctx-2p64k-1cpu",
		[UL_LM2_CTX_8P16K] = "ctx-8p16k-1cpu",
		[UL_LM2_CTX_8P64K] = "ctx-8p64k-1cpu",
		[UL_LM2_CTX_16P16K] = "ctx-16p16k-1cpu",
		[UL_LM2_CTX_16P64K] = "ctx-16p64k-1cpu",
		[UL_LM2_LAT_PIPE] = "lat-pipe-1cpu",
		[UL_LM2_LAT_UNIX] = "lat-unix-1cpu",
		[UL_LM2_LAT_UDP] = "lat-udp-1cpu",
		[UL_LM2_LAT_TCP] = "lat-tcp-1cpu",
		[UL_LM2_LAT_CONNECT] = "lat-connect-1cpu",
		[UL_LM2_CREATE_0K] = "lat-create0k",
		[UL_LM2_DELETE_0K] = "lat-delete0k",
		[UL_LM2_CREATE_10K] = "lat-create10k",
		[UL_LM2_DELETE_10K] = "lat-delete10k",
		[UL_LM2_MMAP] = "lm-mmap",
		[UL_LM2_PROT_FAULT] = "lm-protfault",
		[UL_LM2_PAGE_FAULT] = "lm-pagefault",
		[UL_LM2_BW_PIPE] = "bw-pipe-1cpu",
		[UL_LM2_BW_UNIX] = "bw-unix-1cpu",
		[UL_LM2_BW_TCP] = "lm-bw-tcp-1cpu",
		[UL_LM2_BW_FILE] = "lm-file-rd",
		[UL_LM2_BW_MMAP] = "bw-mmap-rd",
		[UL_LM2_BW_BCOPY_LIBC] = "bw-bcopy",
		[UL_LM2_BW_BCOPY_HAND] = "bw-fcp",
		[UL_LM2_BW_MEM_READ] = "bw-mem-rd",
		[UL_LM2_BW_MEM_WRITE] = "bw-mem-wr",
		[UL_LM2_L1] = "lm-mem",
		[UL_LM2_L2] = "lm-mem",
		[UL_LM2_MAIN] = "lm-mem",
	};
	const struct ul_suite *suite = ul_suite_find("micro");

	ck_assert_ptr_nonnull(suite);
	for (int c = 0; c < UL_LM2_NCOLS; c++) {
		const char *series = NULL, *probe = ul_lm2_source((enum ul_lm2_col)c, &series);
		bool in_suite = false;

		if (!want[c]) {
			ck_assert_msg(!probe, "column %d (RPC) has source %s", c, probe);
			continue;
		}
		ck_assert_msg(probe && !strcmp(probe, want[c]), "column %d: %s, want %s", c,
			      probe ? probe : "none", want[c]);
		ck_assert_ptr_nonnull(series);
		for (size_t i = 0; i < ul_suite_n_tests(suite); i++)
			in_suite = in_suite || !strcmp(suite->tests[i].probe, probe);
		ck_assert_msg(in_suite, "%s is not a test of the micro suite", probe);
	}
}
END_TEST

/* A test's row in the micro suite's table is the only place that says
 * which lmbench2 columns it fills: every column but the RPC ones is
 * filled by exactly one row, so none is left blank by a forgotten row or
 * taken from whichever of two rows comes first. */
START_TEST(test_lm2_one_row_per_column)
{
	const struct ul_suite *suite = ul_suite_find("micro");
	int rows[UL_LM2_NCOLS] = { 0 };

	ck_assert_ptr_nonnull(suite);
	for (size_t i = 0; i < ul_suite_n_tests(suite); i++)
		for (const struct ul_lm2_source *src = suite->tests[i].format_row;
		     src && src->col != UL_LM2_NCOLS; src++) {
			ck_assert_int_lt(src->col, UL_LM2_NCOLS);
			ck_assert_ptr_nonnull(src->series);
			rows[src->col]++;
		}
	for (int c = 0; c < UL_LM2_NCOLS; c++) {
		bool rpc = c == UL_LM2_LAT_RPC_UDP || c == UL_LM2_LAT_RPC_TCP;

		ck_assert_msg(rows[c] == (rpc ? 0 : 1), "column %d is filled by %d rows", c,
			      rows[c]);
	}
}
END_TEST

START_TEST(test_net_ns)
{
	ck_assert(fabs(ul_micro_net_ns(3000, 1000, 2048) - 2000.0 / 2048) < 1e-12);
	ck_assert(ul_micro_net_ns(1000, 3000, 1) == 0);
	ck_assert(ul_micro_net_ns(NAN, 0, 1) == 0);
	ck_assert(ul_micro_net_ns(10, 0, 0) == 0);
}
END_TEST

Suite *ul_test_suite_microdef(void)
{
	Suite *s = suite_create("microdef");
	TCase *tc = tcase_create("microdef");

	tcase_set_timeout(tc, 120);
	tcase_add_unchecked_fixture(tc, def_dir_create, def_dir_remove);
	tcase_add_test(tc, test_net_ns);
	tcase_add_test(tc, test_lm2_column_sources);
	tcase_add_test(tc, test_lm2_one_row_per_column);
	tcase_add_test(tc, test_pagefault_definitions);
	tcase_add_test(tc, test_mmap_definition);
	tcase_add_test(tc, test_sighndl_net_of_kill);
	tcase_add_test(tc, test_protfault_net_of_catch);
	tcase_add_test(tc, test_lm_sizes);
	tcase_add_test(tc, test_forker_small_and_empty);
	tcase_add_test(tc, test_lm_mem_points);
	tcase_add_test(tc, test_placements);
	suite_add_tcase(s, tc);
	return s;
}
