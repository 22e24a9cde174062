/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for fsbench: the dbench 4 loadfile parser against a small
 * hand-written trace (every operation kind, malformed lines), a replay of
 * it (outcomes that differ from the expected status are counted), the
 * byte accounting of a replay against the trace's own totals, the
 * built-in generator and the latency histogram; the fsbench probe's group
 * ops through the whole driver: one pass and a timed window recorded, a
 * wait cut by another child's exit resumed or cancelled, and a run failed
 * by the ready timeout, a full disk or a pass too long.
 */
#include "unit.h"
#include "dbench/loadfile.h"
#include "dbench/replay.h"
#include "core/clock.h"
#include "model/model.h"
#include "probe/fsbench.h"
#include "probe/probe.h"
#include "proc/supervise.h"
#include "model/suite.h"
#include "stats/runcmp.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* Every operation kind; the last three lines expect what will not happen. */
static const char hand_trace[] =
	"# a hand-written dbench 4 trace: every operation kind\n"
	"\n"
	"Deltree \"\\clients\\client1\" NT_STATUS_OK\n"
	"Mkdir \"\\clients\" NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\" 0x1 0x2 100 NT_STATUS_OK\n"
	"Close 100 NT_STATUS_OK\n"
	"Mkdir \"\\clients\\client1\\dir\" NT_STATUS_OK\n"
	"0.500 NTCreateX \"\\clients\\client1\\dir\\a.dat\" 0x40 0x2 7 NT_STATUS_OK\n"
	"WriteX 7 0 65536 65536 NT_STATUS_OK\n"
	"WriteX 7 65536 1000 1000 NT_STATUS_OK\n"
	"QUERY_FILE_INFORMATION 7 1004 NT_STATUS_OK\n"
	"SET_FILE_INFORMATION 7 1004 NT_STATUS_OK\n"
	"Flush 7 NT_STATUS_OK\n"
	"LockX 7 2147483538 1 NT_STATUS_OK\n"
	"UnlockX 7 2147483538 1 NT_STATUS_OK\n"
	"ReadX 7 0 4096 4096 NT_STATUS_OK\n"
	"ReadX 7 66000 1000 536 NT_STATUS_OK\n"
	"Close 7 0x00000000\n"
	"QUERY_PATH_INFORMATION \"\\clients\\client1\\dir\\a.dat\" 1004 NT_STATUS_OK\n"
	"QUERY_PATH_INFORMATION \"\\clients\\client1\\dir\\A.DAT\" 1004 "
	"NT_STATUS_OBJECT_NAME_NOT_FOUND\n"
	"QUERY_FS_INFORMATION 259 NT_STATUS_OK\n"
	"FIND_FIRST \"\\clients\\client1\\dir\\*\" 260 1366 0 NT_STATUS_OK\n"
	"Rename \"\\clients\\client1\\dir\\a.dat\" \"\\clients\\client1\\dir\\b.dat\" NT_STATUS_OK\n"
	"Unlink \"\\clients\\client1\\dir\\b.dat\" 0x6 NT_STATUS_OK\n"
	"Rmdir \"\\clients\\client1\\dir\" NT_STATUS_OK\n"
	"Sleep 1 NT_STATUS_OK\n"
	"QUERY_PATH_INFORMATION \"\\clients\\client1\\gone\" 1004 NT_STATUS_OK\n"
	"Unlink \"\\clients\\client1\\never\" 0x6 NT_STATUS_OK\n"
	"NTCreateX \"\\clients\\client1\\new.dat\" 0x40 0x2 8 NT_STATUS_OBJECT_NAME_COLLISION\n";

static char tmpdir[64];

static void make_tmpdir(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/ul-fsb.XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
	char path[128];
	int fd = open(tmpdir, O_RDONLY | O_DIRECTORY);

	ck_assert_int_ge(fd, 0);
	ul_fsb_remove_tree(fd, "clients");
	close(fd);
	snprintf(path, sizeof(path), "%s/trace.txt", tmpdir);
	unlink(path); /* absent when no trace was written */
	ck_assert_int_eq(rmdir(tmpdir), 0);
}

/* Write `text` as tmpdir/trace.txt and return its path (static buffer). */
static const char *write_trace(const char *text)
{
	static char path[128];
	FILE *f;

	snprintf(path, sizeof(path), "%s/trace.txt", tmpdir);
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(fputs(text, f) >= 0, 1);
	ck_assert_int_eq(fclose(f), 0);
	return path;
}

START_TEST(test_parse_every_kind)
{
	struct ul_fsb_trace t;
	struct ul_fsb_totals tot;
	char err[256] = "";
	const struct ul_fsb_op *op;

	make_tmpdir();
	ul_fsb_trace_init(&t);
	ck_assert_int_eq(ul_fsb_trace_load(&t, write_trace(hand_trace), err, sizeof(err)), 0);
	ck_assert_uint_eq(t.n, 27);
	ul_fsb_trace_totals(&t, &tot);
	for (int k = 0; k < UL_FSB_N_KINDS; k++)
		ck_assert_msg(tot.ops[k] > 0, "no %s in the hand trace", ul_fsb_kind_name(k));
	ck_assert_uint_eq(tot.read_bytes, 4096 + 536);
	ck_assert_uint_eq(tot.write_bytes, 65536 + 1000);
	ck_assert_uint_eq(t.max_io_bytes, 65536);

	op = &t.ops[0]; /* Deltree, line 3 (comment and blank skipped) */
	ck_assert_int_eq(op->kind, UL_FSB_DELTREE);
	ck_assert_uint_eq(op->line, 3);
	ck_assert_str_eq(ul_fsb_path(&t, op->path[0]), "clients/client1");
	ck_assert_uint_eq(op->sub[0], 8);
	op = &t.ops[5]; /* the timestamped NTCreateX */
	ck_assert_int_eq(op->kind, UL_FSB_NTCREATEX);
	ck_assert_str_eq(ul_fsb_path(&t, op->path[0]), "clients/client1/dir/a.dat");
	ck_assert_int_eq(op->arg[0], 0x40);
	ck_assert_int_eq(op->arg[1], 2);
	ck_assert_int_eq(op->arg[2], 7);
	ck_assert(op->expect_ok);
	op = &t.ops[11]; /* LockX: an offset beyond 2^31 - 1 fits */
	ck_assert_int_eq(op->kind, UL_FSB_LOCKX);
	ck_assert_int_eq(op->arg[1], 2147483538);
	op = &t.ops[15]; /* Close with a 0x status: success */
	ck_assert_int_eq(op->kind, UL_FSB_CLOSE);
	ck_assert(op->expect_ok);
	op = &t.ops[17];
	ck_assert(!op->expect_ok);
	op = &t.ops[20]; /* Rename: two paths */
	ck_assert_str_eq(ul_fsb_path(&t, op->path[1]), "clients/client1/dir/b.dat");
	ck_assert_uint_eq(op->sub[1], 8);
	ck_assert_int_eq(t.ops[2].sub[0], 8);
	ck_assert_int_eq(t.ops[1].sub[0], UL_FSB_NO_SUB); /* "clients" alone */
	ul_fsb_trace_free(&t);
	remove_tmpdir();
}
END_TEST

static const struct {
	const char *line, *expect;
} bad_lines[] = {
	{ "Frobnicate 1 NT_STATUS_OK", "unknown operation 'Frobnicate'" },
	{ "Close 7", "expected a status" },
	{ "Close 7 8 NT_STATUS_OK", "Close: expected 1 argument (N) then a status, got 2" },
	{ "WriteX 7 0 x 4096 NT_STATUS_OK", "expected a number for argument 3, got 'x'" },
	{ "Unlink \"\\clients\\..\\..\\etc\\passwd\" 0x6 NT_STATUS_OK", "leaves its directory" },
	{ "SMBopenX \"\\x\" NT_STATUS_OK", "dbench 1 operation" },
	{ "Mkdir \"\\clients NT_STATUS_OK", "unterminated quote" },
	{ "ReadX 7 0 999999999 1 NT_STATUS_OK", "size of 0..16M" },
	{ "1.5", "expected an operation after the time" },
};

START_TEST(test_parse_malformed)
{
	struct ul_fsb_trace t;
	char err[256], text[512], want[64];
	const char *path;

	make_tmpdir();
	for (size_t i = 0; i < UL_ARRAY_SIZE(bad_lines); i++) {
		/* Two good lines first: the error must name line 3. */
		snprintf(text, sizeof(text), "Mkdir \"\\clients\" NT_STATUS_OK\n# ok\n%s\n",
			 bad_lines[i].line);
		path = write_trace(text);
		ul_fsb_trace_init(&t);
		err[0] = '\0';
		ck_assert_int_eq(ul_fsb_trace_load(&t, path, err, sizeof(err)), -EINVAL);
		snprintf(want, sizeof(want), "%s:3: ", path);
		ck_assert_msg(!strncmp(err, want, strlen(want)), "'%s' lacks '%s'", err, want);
		ck_assert_msg(strstr(err, bad_lines[i].expect), "'%s' lacks '%s'", err,
			      bad_lines[i].expect);
		ul_fsb_trace_free(&t);
	}
	ul_fsb_trace_init(&t);
	ck_assert_int_eq(ul_fsb_trace_load(&t, write_trace("# nothing\n"), err, sizeof(err)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(err, "no operation"));
	ul_fsb_trace_free(&t);
	ck_assert_int_eq(ul_fsb_trace_load(&t, "/nonexistent/client.txt", err, sizeof(err)),
			 -ENOENT);
	ck_assert_ptr_nonnull(strstr(err, "/nonexistent/client.txt"));
	ul_fsb_trace_free(&t);
	remove_tmpdir();
}
END_TEST

/* Only a regular file is read: a FIFO would block forever, /dev/zero is a
 * line without end (both were accepted as a --loadfile). */
START_TEST(test_fsb_loadfile_not_regular)
{
	struct ul_fsb_trace t;
	char err[512], fifo[128];

	make_tmpdir();
	snprintf(fifo, sizeof(fifo), "%s/fifo", tmpdir);
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	ul_fsb_trace_init(&t);
	ck_assert_int_eq(ul_fsb_trace_load(&t, fifo, err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "not a regular file") && strstr(err, fifo), "%s", err);
	ck_assert_int_eq(unlink(fifo), 0);
	ck_assert_int_eq(ul_fsb_trace_load(&t, "/dev/zero", err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "not a regular file"), "%s", err);
	ck_assert_int_eq(ul_fsb_trace_load(&t, tmpdir, err, sizeof(err)), -EISDIR);
	ck_assert_int_eq(t.n, 0);
	ul_fsb_trace_free(&t);
	remove_tmpdir();
}
END_TEST

/* Replay a trace once with one in-process client in tmpdir. */
static void replay_once(const struct ul_fsb_trace *t, struct ul_fsb_stats *st, int index)
{
	struct ul_fsb_client c;
	_Atomic int phase = UL_FSB_MEASURE;
	int root = open(tmpdir, O_RDONLY | O_DIRECTORY);

	ck_assert_int_ge(root, 0);
	ck_assert_int_eq(ul_fsb_client_init(&c, t, root, index, 1, 0), 0);
	c.stats = st;
	ck_assert_int_eq(ul_fsb_client_run(&c, &phase, true, 0), 0);
	ul_fsb_client_cleanup(&c);
	ul_fsb_client_fini(&c);
	close(root);
}

START_TEST(test_replay_mismatches_and_bytes)
{
	struct ul_fsb_trace t;
	struct ul_fsb_stats *st = calloc(1, sizeof(*st));
	char err[256], dir[128];
	struct stat sb;

	ck_assert_ptr_nonnull(st);
	make_tmpdir();
	ul_fsb_trace_init(&t);
	ck_assert_int_eq(ul_fsb_trace_load(&t, write_trace(hand_trace), err, sizeof(err)), 0);
	replay_once(&t, st, 2); /* client3: `client1` in paths becomes client3 */
	ck_assert_uint_eq(st->passes, 1);
	ck_assert_uint_eq(st->ops, t.n);
	ck_assert_uint_eq(st->mismatches, 3);
	ck_assert_uint_eq(st->op[UL_FSB_QUERY_PATH_INFORMATION].mismatches, 1);
	ck_assert_uint_eq(st->op[UL_FSB_UNLINK].mismatches, 1);
	ck_assert_uint_eq(st->op[UL_FSB_NTCREATEX].mismatches, 1);
	/* Bytes really moved: the short read at EOF counts 536, not 1000. */
	ck_assert_uint_eq(st->read_bytes, 4096 + 536);
	ck_assert_uint_eq(st->write_bytes, 65536 + 1000);
	ck_assert_uint_eq(st->op[UL_FSB_WRITEX].count, 2);
	ck_assert_uint_eq(st->op[UL_FSB_READX].count, 2);
	ck_assert_uint_ge(st->op[UL_FSB_SLEEP].sum_ns, 1000);
	/* The cleanup removed the client's directory, not the shared clients/:
	 * a client a pass behind may have made it and not yet its own under it
	 * (it then failed every op, which t0404-fsbench saw once in a while). */
	snprintf(dir, sizeof(dir), "%s/clients/client3", tmpdir);
	ck_assert_int_eq(stat(dir, &sb), -1);
	snprintf(dir, sizeof(dir), "%s/clients", tmpdir);
	ck_assert_int_eq(stat(dir, &sb), 0);
	free(st);
	ul_fsb_trace_free(&t);
	remove_tmpdir();
}
END_TEST

START_TEST(test_builtin_trace)
{
	struct ul_fsb_trace a, b;
	struct ul_fsb_totals tot;
	struct ul_fsb_stats *st = calloc(1, sizeof(*st));
	uint64_t n;

	ck_assert_ptr_nonnull(st);
	ul_fsb_trace_init(&a);
	ul_fsb_trace_init(&b);
	ck_assert_int_eq(ul_fsb_trace_generate(&a, 200), 0);
	ck_assert_int_eq(ul_fsb_trace_generate(&b, 200), 0);
	/* Deterministic: the same operations every time. */
	ck_assert_uint_eq(a.n, b.n);
	ck_assert_int_eq(memcmp(a.ops, b.ops, a.n * sizeof(a.ops[0])), 0);
	ck_assert_int_eq(memcmp(a.pool, b.pool, a.pool_len), 0);
	ul_fsb_trace_totals(&a, &tot);
	n = a.n;
	/* The documented mix: reads lead, then opens and name look-ups. */
	ck_assert_uint_gt(tot.ops[UL_FSB_READX] * 100, 15 * n);
	ck_assert_uint_gt(tot.ops[UL_FSB_NTCREATEX] * 100, 10 * n);
	ck_assert_uint_gt(tot.ops[UL_FSB_QUERY_PATH_INFORMATION] * 100, 10 * n);
	ck_assert_uint_gt(tot.read_bytes, tot.write_bytes);
	/* Byte accounting of a whole pass: what was moved is what the trace says. */
	make_tmpdir();
	replay_once(&a, st, 0);
	ck_assert_uint_eq(st->mismatches, 0);
	ck_assert_uint_eq(st->ops, a.n);
	ck_assert_uint_eq(st->read_bytes, tot.read_bytes);
	ck_assert_uint_eq(st->write_bytes, tot.write_bytes);
	free(st);
	ul_fsb_trace_free(&a);
	ul_fsb_trace_free(&b);
	remove_tmpdir();
}
END_TEST

/* The fsbench probe over a trace (NULL: a small generated one), its
 * clients in tmpdir, run by the whole driver under a supervisor. */
struct fsb_probe {
	struct ul_fsb_trace t;
	struct ul_fsbench_spec spec;
	struct ul_probe_ctx ctx;
	struct ul_whole_run *wr;
	struct ul_cell cell;
	struct ul_sup sup;
	struct ul_child *exited; /* another child, when a wait says so */
};

/* One run of the probe, by ul_whole_measure(). */
static enum ul_measure_result measure(struct fsb_probe *p)
{
	int err = 0;

	return ul_whole_measure(&p->sup, p->wr, 0, &err, &p->exited);
}

static void probe_up(struct fsb_probe *p, const char *text, int clients, int64_t window_ns)
{
	char err[256];

	memset(p, 0, sizeof(*p));
	make_tmpdir();
	ul_fsb_trace_init(&p->t);
	if (text)
		ck_assert_int_eq(ul_fsb_trace_load(&p->t, write_trace(text), err, sizeof(err)), 0);
	else
		ck_assert_int_eq(ul_fsb_trace_generate(&p->t, 50), 0);
	p->spec = (struct ul_fsbench_spec){
		.trace = &p->t,
		.root_fd = open(tmpdir, O_RDONLY | O_DIRECTORY | O_CLOEXEC),
		.clients = clients,
		.once = window_ns == 0,
		.duration_ns = window_ns,
		.ready_ns = 10 * UL_NS_PER_SEC,
		.pass_ns = 20 * UL_NS_PER_SEC,
	};
	ck_assert_int_ge(p->spec.root_fd, 0);
	p->ctx.arg = &p->spec;
	ck_assert_int_eq(ul_sup_init(&p->sup), 0);
	ck_assert_int_eq(ul_whole_start(ul_probe_find("fsbench"), &p->ctx, &p->wr), 0);
}

/* Everything released; no child of the test is left, running or zombie. */
static void probe_down(struct fsb_probe *p)
{
	ul_whole_stop(&p->sup, p->wr);
	ul_sup_fini(&p->sup);
	ul_cell_release(&p->cell);
	close(p->spec.root_fd);
	ul_fsb_trace_free(&p->t);
	errno = 0;
	ck_assert_int_eq(waitpid(-1, NULL, WNOHANG), -1);
	ck_assert_int_eq(errno, ECHILD);
	remove_tmpdir();
}

/* ended() removed what the clients left. */
static void assert_clients_gone(void)
{
	char dir[128];
	struct stat sb;

	snprintf(dir, sizeof(dir), "%s/clients", tmpdir);
	ck_assert_int_eq(stat(dir, &sb), -1);
}

static const struct ul_series *series(const struct fsb_probe *p, const char *name)
{
	const struct ul_series *s = ul_cell_find_series(&p->cell, name);

	ck_assert_msg(s != NULL, "no series %s", name);
	return s;
}

/* One pass, twice: each round appends its own values (the bytes the trace
 * moves x clients, every client's end), timed from go to the last end. */
START_TEST(test_fsbench_probe_pass)
{
	struct fsb_probe p;
	struct ul_fsb_totals tot;

	probe_up(&p, hand_trace, 2, 0);
	ul_fsb_trace_totals(&p.t, &tot);
	ck_assert_int_eq(ul_fsbench_make_series(&p.cell, &tot), 0);
	for (int round = 0; round < 2; round++) {
		ck_assert_int_eq(measure(&p), UL_MEASURE_OK);
		ck_assert_str_eq(ul_whole_note(p.wr), "");
		ck_assert_ptr_null(ul_whole_child(p.wr, &(int64_t){ 0 }));
		ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), 0);
		assert_clients_gone();
	}
	for (int i = 0; i < 2; i++) {
		const struct ul_series *fin = series(&p, "fsbench_client_finish_ns");
		int64_t last = fin->v[2 * i] > fin->v[2 * i + 1] ? fin->v[2 * i]
								 : fin->v[2 * i + 1];

		ck_assert_int_eq(series(&p, "fsbench_write_bytes")->v[i], 2 * (65536 + 1000));
		ck_assert_int_eq(series(&p, "fsbench_read_bytes")->v[i], 2 * (4096 + 536));
		ck_assert_int_eq(series(&p, "fsbench_mismatches")->v[i], 2 * 3);
		ck_assert_int_eq(series(&p, "fsbench_ops")->v[i], 2 * 27);
		ck_assert_int_eq(series(&p, "fsop_WriteX_count")->v[i], 2 * 2);
		ck_assert_int_gt(last, 0);
		ck_assert_int_eq(series(&p, "fsbench_elapsed_ns")->v[i], last);
		ck_assert_int_gt(series(&p, UL_FSB_S_THROUGHPUT)->v[i], 0);
	}
	ck_assert_uint_eq(series(&p, "fsbench_client_ops")->n, 4);
	/* the storage order: the primary first */
	ck_assert_str_eq(p.cell.series[0].name, UL_FSB_S_THROUGHPUT);
	probe_down(&p);
}
END_TEST

/* Another child that exits in 150 ms, the test's stand-in for a load. */
static int exit_soon(void *arg)
{
	struct timespec ts = { 0, 150 * 1000 * 1000 };

	(void)arg;
	nanosleep(&ts, NULL);
	return 3;
}

static void spawn_other(struct ul_sup *sup, struct ul_child *other)
{
	struct ul_spawn_opts so = { .name = "other", .fn = exit_soon };

	*other = (struct ul_child){ .pidfd = -1 };
	ck_assert_int_eq(ul_spawn(sup, &so, other), 0);
}

/* A warm-up and a window: another child's exit cuts the wait, which then
 * resumes where it stood; the window is measured, the warm-up not.  Cut
 * again and cancelled: every client stopped, nothing to record. */
START_TEST(test_fsbench_probe_window_resumes)
{
	const int64_t window = 400 * UL_NS_PER_MS;
	struct fsb_probe p;
	struct ul_child other;
	int64_t elapsed;

	probe_up(&p, NULL, 2, window);
	p.spec.warmup_ns = 100 * UL_NS_PER_MS;
	spawn_other(&p.sup, &other);
	ck_assert_int_eq(measure(&p), UL_MEASURE_CHILD_EXITED);
	ck_assert_ptr_eq(p.exited, &other);
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), -EINVAL); /* still going */
	ck_assert_int_eq(ul_whole_wait(&p.sup, p.wr, 0, &p.exited), UL_MEASURE_OK);
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), 0);
	elapsed = series(&p, "fsbench_elapsed_ns")->v[0];
	ck_assert_int_ge(elapsed, window);
	ck_assert_int_lt(elapsed, window + 300 * UL_NS_PER_MS);
	ck_assert_int_gt(series(&p, "fsbench_client_min_ops")->v[0], 0);
	ck_assert_int_gt(series(&p, UL_FSB_S_THROUGHPUT)->v[0], 0);
	assert_clients_gone();

	spawn_other(&p.sup, &other);
	ck_assert_int_eq(measure(&p), UL_MEASURE_CHILD_EXITED);
	ck_assert_int_eq(ul_whole_cancel(&p.sup, p.wr), 0);
	ck_assert(!ul_whole_unkillable(p.wr));
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), -EINVAL);
	ck_assert_uint_eq(series(&p, "fsbench_elapsed_ns")->n, 1);
	assert_clients_gone();
	probe_down(&p);
}
END_TEST

/* The warm-up is not counted: 50 ms steps, 300 ms of warm-up, a 200 ms
 * window: about 4 steps counted (10 if the warm-up were). */
START_TEST(test_fsbench_probe_warmup_uncounted)
{
	struct fsb_probe p;

	probe_up(&p, "Sleep 50000 NT_STATUS_OK\n", 1, 200 * UL_NS_PER_MS);
	p.spec.warmup_ns = 300 * UL_NS_PER_MS;
	ck_assert_int_eq(measure(&p), UL_MEASURE_OK);
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), 0);
	ck_assert_int_ge(series(&p, "fsbench_ops")->v[0], 2);
	ck_assert_int_le(series(&p, "fsbench_ops")->v[0], 6);
	probe_down(&p);
}
END_TEST

/* Runs that fail: the clients not ready in time, one out of space (the
 * probe's why()), a pass longer than pass_ns; each leaves nothing. */
START_TEST(test_fsbench_probe_failures)
{
	struct fsb_probe p;

	probe_up(&p, NULL, 2, 5 * UL_NS_PER_SEC);
	p.spec.ready_ns = 1;
	ck_assert_int_eq(measure(&p), UL_MEASURE_FAILED);
	ck_assert_str_eq(ul_whole_note(p.wr), "2 of 2 clients were not ready in time");
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), -EINVAL);
	assert_clients_gone();

	p.spec.ready_ns = 10 * UL_NS_PER_SEC;
	p.spec.disk_reserve_bytes = UINT64_MAX / 4;
	ck_assert_int_eq(measure(&p), UL_MEASURE_FAILED);
	ck_assert_msg(strstr(ul_whole_note(p.wr), "free space fell below --disk-reserve during"),
		      "%s", ul_whole_note(p.wr));
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), -EINVAL);
	assert_clients_gone();
	probe_down(&p);

	probe_up(&p, "Sleep 5000000 NT_STATUS_OK\n", 1, 0);
	p.spec.pass_ns = 200 * UL_NS_PER_MS;
	ck_assert_int_eq(measure(&p), UL_MEASURE_TIMEOUT);
	ck_assert_int_eq(ul_whole_result(p.wr, &p.cell), -EINVAL);
	probe_down(&p);
}
END_TEST

/* The reserve's budget: half a client's share of the headroom, and a look
 * before every write once that is less than one write. */
START_TEST(test_write_budget)
{
	const uint64_t MiB = 1024 * 1024, write = 64 * 1024;

	ck_assert_uint_eq(ul_fsb_write_budget(10 * MiB, 2 * MiB, 2, write), 2 * MiB);
	ck_assert_uint_eq(ul_fsb_write_budget(10 * MiB, 2 * MiB, 1, write), 4 * MiB);
	ck_assert_uint_eq(ul_fsb_write_budget(10 * MiB, 2 * MiB, 8, write), MiB / 2);
	/* Every client writing its budget from one look stays above the reserve. */
	for (int n = 1; n <= 64; n++)
		ck_assert_uint_le(n * ul_fsb_write_budget(103 * MiB + 7, 3 * MiB, n, write),
				  50 * MiB + 3);
	/* Less than one write each: look before every write. */
	ck_assert_uint_eq(ul_fsb_write_budget(2 * MiB + 4 * write, 2 * MiB, 2, write), write);
	ck_assert_uint_eq(ul_fsb_write_budget(2 * MiB + 4 * write - 1, 2 * MiB, 2, write), 0);
	ck_assert_uint_eq(ul_fsb_write_budget(2 * MiB + write, 2 * MiB, 1, write), 0);
	/* No headroom, or below the reserve. */
	ck_assert_uint_eq(ul_fsb_write_budget(2 * MiB, 2 * MiB, 1, write), 0);
	ck_assert_uint_eq(ul_fsb_write_budget(MiB, 2 * MiB, 1, write), 0);
	ck_assert_uint_eq(ul_fsb_write_budget(UINT64_MAX, 0, 1, 1), UINT64_MAX / 2);
}
END_TEST

/*
 * A client stops at the reserve having written little more than the
 * headroom it found: the reserve is checked by bytes, not every 64 writes
 * (64 writes of 64 KiB went 4 MiB past it).  tmpdir's file system is
 * shared: the bound leaves 1 MiB for others' frees meanwhile.
 */
START_TEST(test_reserve_checked_by_bytes)
{
	const uint64_t MiB = 1024 * 1024, headroom = 2 * MiB;
	struct ul_fsb_stats *st = calloc(1, sizeof(*st));
	char text[128], err[256];
	struct ul_fsb_client c;
	struct ul_fsb_trace t;
	struct statvfs sv;
	_Atomic int phase = UL_FSB_MEASURE;
	int root;

	ck_assert_ptr_nonnull(st);
	make_tmpdir();
	root = open(tmpdir, O_RDONLY | O_DIRECTORY);
	ck_assert_int_ge(root, 0);
	ul_fsb_trace_init(&t);
	ck_assert_int_eq(ul_fsb_trace_parse_line(&t, "Mkdir \"\\clients\" NT_STATUS_OK", 1, err,
						 sizeof(err)),
			 0);
	ck_assert_int_eq(ul_fsb_trace_parse_line(&t,
						 "NTCreateX \"\\clients\\client1\" 0x1 0x2 100 "
						 "NT_STATUS_OK",
						 2, err, sizeof(err)),
			 0);
	ck_assert_int_eq(ul_fsb_trace_parse_line(&t,
						 "NTCreateX \"\\clients\\client1\\a.dat\" 0x40 "
						 "0x2 7 NT_STATUS_OK",
						 3, err, sizeof(err)),
			 0);
	for (unsigned i = 0; i < 128; i++) { /* 8 MiB */
		snprintf(text, sizeof(text), "WriteX 7 %u 65536 65536 NT_STATUS_OK", i * 65536);
		ck_assert_msg(ul_fsb_trace_parse_line(&t, text, 4 + i, err, sizeof(err)) == 0, "%s",
			      err);
	}
	ck_assert_int_eq(fstatvfs(root, &sv), 0);
	ck_assert_uint_gt((uint64_t)sv.f_bavail * sv.f_frsize, 2 * headroom);
	ck_assert_int_eq(ul_fsb_client_init(&c, &t, root, 0, 1,
					    (uint64_t)sv.f_bavail * sv.f_frsize - headroom),
			 0);
	c.stats = st;
	ck_assert_int_eq(ul_fsb_client_run(&c, &phase, false, 0), -ENOSPC);
	ck_assert(st->reserve_hit);
	ck_assert_uint_ge(st->write_bytes, headroom / 2);
	ck_assert_msg(st->write_bytes <= headroom + MiB, "wrote %llu bytes past a %llu headroom",
		      (unsigned long long)st->write_bytes, (unsigned long long)headroom);
	ul_fsb_client_cleanup(&c);
	ul_fsb_client_fini(&c);
	close(root);
	ul_fsb_trace_free(&t);
	free(st);
	remove_tmpdir();
}
END_TEST

/* A cell fsbench/noload of one round: `ops` operations in `elapsed_ns`. */
static void ops_cell(struct ul_run *run, int64_t ops, int64_t elapsed_ns)
{
	struct ul_cell *c = ul_run_add_cell(run);

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "fsbench");
	snprintf(c->load, sizeof(c->load), "noload");
	snprintf(c->probe, sizeof(c->probe), "fsbench");
	ck_assert_int_eq(ul_series_push(ul_cell_series(c, "fsbench_ops"), ops), 0);
	ck_assert_int_eq(ul_series_push(ul_cell_series(c, "fsbench_elapsed_ns"), elapsed_ns), 0);
}

/* compare's ops/s: a round of no elapsed time has no rate (not 0 ops/s),
 * and each call writes where its caller says. */
START_TEST(test_fsbench_ops_per_s_no_made_up_rate)
{
	const struct ul_suite *suite = ul_suite_find("fsbench");
	const struct ul_suite_metric *src = &suite->metrics[1];
	struct ul_runcmp_metric m = { .suite = "fsbench",
				      .series = src->series,
				      .values = suite->metric_values,
				      .src = src };
	struct ul_run run;
	const struct ul_run *runs[1] = { &run };
	struct ul_runcmp_group g = { .label = "a", .runs = runs, .n_runs = 1 };
	struct ul_runcmp_pooled out;

	ck_assert_str_eq(src->series, "fsbench_ops_per_s");
	ul_run_init(&run);
	ops_cell(&run, 500, UL_NS_PER_SEC);
	ops_cell(&run, 0, 0); /* a zero-length round */
	ops_cell(&run, 300, UL_NS_PER_SEC / 2);
	ck_assert(ul_runcmp_cell_has(&run.cells[0], &m));
	ck_assert(!ul_runcmp_cell_has(&run.cells[1], &m));
	ck_assert_int_eq(ul_runcmp_pool(&g, &m, "noload", &out), 0);
	ck_assert_uint_eq(out.n, 2);
	ck_assert_uint_eq(out.cells, 2);
	ck_assert(out.v[0] == 500.0 && out.v[1] == 600.0);
	free(out.v);
	ul_run_release(&run);
}
END_TEST

Suite *ul_test_suite_fsbench(void)
{
	Suite *s = suite_create("fsbench");
	TCase *tc = tcase_create("fsbench");
	TCase *probe = tcase_create("probe");

	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parse_every_kind);
	tcase_add_test(tc, test_parse_malformed);
	tcase_add_test(tc, test_fsb_loadfile_not_regular);
	tcase_add_test(tc, test_replay_mismatches_and_bytes);
	tcase_add_test(tc, test_builtin_trace);
	tcase_add_test(tc, test_fsbench_ops_per_s_no_made_up_rate);
	tcase_add_test(tc, test_write_budget);
	tcase_add_test(tc, test_reserve_checked_by_bytes);
	suite_add_tcase(s, tc);
	tcase_set_timeout(probe, 60);
	tcase_add_test(probe, test_fsbench_probe_pass);
	tcase_add_test(probe, test_fsbench_probe_window_resumes);
	tcase_add_test(probe, test_fsbench_probe_warmup_uncounted);
	tcase_add_test(probe, test_fsbench_probe_failures);
	suite_add_tcase(s, probe);
	return s;
}
