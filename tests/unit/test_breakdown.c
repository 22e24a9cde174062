/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the recorder of a sample's parts (engine/breakdown_record.h):
 * the clamping arithmetic, samples pushed later and kept only aligned, a
 * whole life read from exit records (root only), its on-CPU part at least
 * its root's rusage (short lives' records fall short), and delay accounting
 * shared by two runs at once (the second neither switches it off under
 * the first nor leaves it on).
 * The sharing test needs root and kernel.task_delayacct; without them it
 * prints "skip: ..." and passes, and it leaves the switch as it found it.
 */
#include "unit.h"
#include "engine/breakdown_record.h"
#include "model/model.h"
#include "proc/delayacct.h"
#include "proc/journal.h"
#include "proc/supervise.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void clamp(int64_t wall, const int64_t raw[UL_PART_COUNT], int64_t out[UL_PART_COUNT])
{
	bool have[UL_PART_COUNT];

	for (int p = 0; p < UL_PART_COUNT; p++)
		have[p] = true;
	ul_breakdown_clamp(wall, raw, have, out);
}

static int64_t sum(const int64_t v[UL_PART_COUNT])
{
	int64_t s = 0;

	for (int p = 0; p < UL_PART_COUNT; p++)
		s += v[p];
	return s;
}

/* Parts inside the wall time pass unchanged; other is the rest. */
START_TEST(test_clamp_fits)
{
	int64_t raw[UL_PART_COUNT] = {
		[UL_PART_ONCPU] = 50, [UL_PART_RUNQ] = 30, [UL_PART_SWAPIN] = 5, [UL_PART_OTHER] = 999
	};
	int64_t out[UL_PART_COUNT];

	clamp(100, raw, out);
	ck_assert_int_eq(out[UL_PART_ONCPU], 50);
	ck_assert_int_eq(out[UL_PART_RUNQ], 30);
	ck_assert_int_eq(out[UL_PART_SWAPIN], 5);
	ck_assert_int_eq(out[UL_PART_BLKIO], 0);
	ck_assert_int_eq(out[UL_PART_OTHER], 15); /* raw other is ignored */
	ck_assert_int_eq(sum(out), 100);
}
END_TEST

/* Overlapping counters (thrashing is also swap-in) are cut in the
 * registry's order so the sum is the wall time, other 0, none negative. */
START_TEST(test_clamp_overlap)
{
	int64_t raw[UL_PART_COUNT] = {
		[UL_PART_ONCPU] = 40, [UL_PART_RUNQ] = 30, [UL_PART_SWAPIN] = 20, [UL_PART_THRASH] = 20
	};
	int64_t out[UL_PART_COUNT];

	clamp(100, raw, out);
	ck_assert_int_eq(out[UL_PART_ONCPU], 40);
	ck_assert_int_eq(out[UL_PART_RUNQ], 30);
	ck_assert_int_eq(out[UL_PART_SWAPIN], 20);
	ck_assert_int_eq(out[UL_PART_THRASH], 10);
	ck_assert_int_eq(out[UL_PART_OTHER], 0);
	ck_assert_int_eq(sum(out), 100);
	/* On-CPU alone above the wall time (counted around the sample). */
	memset(raw, 0, sizeof(raw));
	raw[UL_PART_ONCPU] = 120;
	raw[UL_PART_RUNQ] = 7;
	clamp(100, raw, out);
	ck_assert_int_eq(out[UL_PART_ONCPU], 100);
	ck_assert_int_eq(out[UL_PART_RUNQ], 0);
	ck_assert_int_eq(out[UL_PART_OTHER], 0);
}
END_TEST

/* Negative counters (a wrapped difference) count as 0; a negative or zero
 * wall time leaves every part 0; parts not counted stay 0. */
START_TEST(test_clamp_edges)
{
	int64_t raw[UL_PART_COUNT] = {
		[UL_PART_ONCPU] = -5, [UL_PART_RUNQ] = 10, [UL_PART_BLKIO] = 10
	};
	bool have[UL_PART_COUNT] = { [UL_PART_ONCPU] = true, [UL_PART_RUNQ] = true };
	int64_t out[UL_PART_COUNT];

	ul_breakdown_clamp(100, raw, have, out);
	ck_assert_int_eq(out[UL_PART_ONCPU], 0);
	ck_assert_int_eq(out[UL_PART_RUNQ], 10);
	ck_assert_int_eq(out[UL_PART_BLKIO], 0); /* not counted */
	ck_assert_int_eq(out[UL_PART_OTHER], 90);
	clamp(-1, raw, out);
	for (int p = 0; p < UL_PART_COUNT; p++)
		ck_assert_int_eq(out[p], 0);
}
END_TEST

/* Two runs at once: the first switches it on, the second shares it; the
 * first ending leaves it on for the second, whose end switches it off. */
START_TEST(test_delayacct_shared)
{
	char base[] = "/tmp/ul-bd-XXXXXX", jdir[PATH_MAX], why[256] = "";
	struct ul_journal j1, j2;
	struct ul_delayacct_hold a, b;
	int before = ul_delayacct_read();

	if (before < 0 || geteuid() != 0) {
		fprintf(stderr, "skip: breakdown: no writable %s\n", UL_DELAYACCT_PATH);
		return;
	}
	if (before == 1) {
		fprintf(stderr, "skip: breakdown: delay accounting is on already\n");
		return;
	}
	ck_assert_ptr_nonnull(mkdtemp(base));
	snprintf(jdir, sizeof(jdir), "%s/journal", base);
	ck_assert_int_eq(mkdir(jdir, 0700), 0);
	setenv("UL_JOURNAL_DIR", jdir, 1);
	ck_assert_int_eq(ul_journal_open(&j1), 0);
	ck_assert_int_eq(ul_journal_open(&j2), 0);

	ul_delayacct_hold_on(&j1, &a, why, sizeof(why));
	ck_assert_msg(a.counting && a.entry, "%s", why);
	ck_assert_int_eq(ul_delayacct_read(), 1);
	ul_delayacct_hold_on(&j2, &b, why, sizeof(why));
	ck_assert_msg(b.counting && b.entry, "the second run journals it too: %s", why);
	ul_delayacct_hold_off(&j1, &a);
	ck_assert_int_eq(ul_delayacct_read(), 1); /* the second still holds it */
	ul_delayacct_hold_off(&j2, &b);
	ck_assert_int_eq(ul_delayacct_read(), 0);
	/* Both journals settled: nothing for a cleanup. */
	ul_journal_finish(&j1);
	ul_journal_finish(&j2);
	ck_assert_int_eq(access(j1.path, F_OK), -1);
	ck_assert_int_eq(access(j2.path, F_OK), -1);
	unsetenv("UL_JOURNAL_DIR");
	rmdir(jdir);
	rmdir(base);
}
END_TEST

/* Samples pushed later: an unread one pushes nothing, and the cell's end
 * keeps the parts only when each is as long as the series they split. */
START_TEST(test_push_aligned)
{
	struct ul_cell cell = { 0 };
	struct ul_breakdown_sample s = { .read = true, .wall_ns = 100 }, unread = { 0 };
	const struct ul_series *w;

	for (int p = 0; p < UL_PART_COUNT; p++)
		s.have[p] = !ul_breakdown_parts[p].needs_delayacct;
	s.part[UL_PART_ONCPU] = 60;
	s.part[UL_PART_RUNQ] = 30;
	s.part[UL_PART_OTHER] = 10;
	ck_assert_int_eq(ul_breakdown_push(&cell, &s, true), 0);
	ck_assert_int_eq(ul_breakdown_push(&cell, &unread, true), 0);
	ck_assert_int_eq(ul_breakdown_push(&cell, &s, true), 0);
	w = ul_cell_find_series(&cell, UL_BREAKDOWN_WALL_SERIES);
	ck_assert(w && w->n == 2 && w->v[1] == 100);
	ck_assert_int_eq(ul_cell_find_series(&cell, "why_oncpu_ns")->v[1], 60);
	ck_assert_ptr_null(ul_cell_find_series(&cell, "why_blkio_ns")); /* not counted */
	ul_breakdown_cell_end(NULL, &cell, 2);
	ck_assert_ptr_nonnull(ul_cell_find_series(&cell, "why_runq_ns"));
	ul_breakdown_cell_end(NULL, &cell, 3); /* a sample was not read */
	ck_assert_ptr_null(ul_cell_find_series(&cell, "why_runq_ns"));
	ck_assert_ptr_null(ul_cell_find_series(&cell, UL_BREAKDOWN_WALL_SERIES));
	ul_cell_release(&cell);
}
END_TEST

/* Burn `ns` of this process's CPU time. */
static void burn(int64_t ns)
{
	struct timespec t;

	do
		clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
	while ((int64_t)t.tv_sec * 1000000000 + t.tv_nsec < ns);
}

/* A whole life: a child that only waits for the grandchild it forks,
 * which burns 50 ms of CPU; the child's tree is read from the exit
 * records, the grandchild's CPU counted, the parts within the wall time. */
START_TEST(test_life_tree)
{
	struct ul_breakdown_rec *r;
	struct ul_breakdown_sample s, again, alive;
	struct timespec a, b;
	struct ul_child child = { 0 }, self = { .pid = getpid() };
	int64_t wall, total = 0;
	pid_t pid;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: breakdown: taskstats' exit records need root\n");
		return;
	}
	unsetenv("UL_BREAKDOWN");
	r = ul_breakdown_open(NULL, NULL);
	ck_assert_ptr_nonnull(r);
	ul_breakdown_begin_life(r);
	clock_gettime(CLOCK_MONOTONIC, &a);
	pid = fork();
	if (pid == 0) {
		pid_t g = fork();

		if (g == 0) {
			burn(50 * 1000000);
			_exit(0);
		}
		_exit(g > 0 && waitpid(g, NULL, 0) == g ? 0 : 1);
	}
	ck_assert_int_gt(pid, 0);
	child.pid = pid; /* read without its rusage: from the exit records */
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	clock_gettime(CLOCK_MONOTONIC, &b);
	wall = (int64_t)(b.tv_sec - a.tv_sec) * 1000000000 + (b.tv_nsec - a.tv_nsec);
	ul_breakdown_end_life(r, &child, wall, &s);
	ul_breakdown_end_life(r, &child, 0, &again);   /* its life as the kernel timed it */
	ul_breakdown_end_life(r, &self, wall, &alive); /* no exit record: not read */
	ul_breakdown_close(r, NULL);
	ck_assert_msg(s.read, "the child's tree was not read");
	ck_assert_int_ge(s.part[UL_PART_ONCPU], 45 * 1000000); /* the grandchild's */
	for (int p = 0; p < UL_PART_COUNT; p++) {
		ck_assert_int_ge(s.part[p], 0);
		total += s.part[p];
	}
	ck_assert_int_eq(total, wall);
	ck_assert(again.read && again.wall_ns > 45 * 1000000 && again.wall_ns <= wall);
	ck_assert(!alive.read);
}
END_TEST

/* Short lives, as a job's commands: a child that forks three grandchildren
 * burning 1 ms each (under a tick) and reaps them.  Their exit records
 * miss each task's last stretch on a CPU and its exit's teardown; the
 * sample's on-CPU part is at least the child's wait4() rusage, which has
 * them all. */
START_TEST(test_life_short)
{
	struct ul_breakdown_rec *r;
	struct ul_breakdown_sample s;
	struct ul_child child = { .reaped = true };
	int64_t ru_cpu, wall = 10 * 1000000000LL; /* room: on-CPU is not cut */
	int st;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: breakdown: taskstats' exit records need root\n");
		return;
	}
	unsetenv("UL_BREAKDOWN");
	r = ul_breakdown_open(NULL, NULL);
	ck_assert_ptr_nonnull(r);
	ul_breakdown_begin_life(r);
	child.pid = fork();
	if (child.pid == 0) {
		int ok = 0;

		for (int i = 0; i < 3; i++) {
			pid_t g = fork();

			if (g == 0) {
				burn(1000000);
				_exit(0);
			}
			ok += g > 0 && waitpid(g, NULL, 0) == g;
		}
		_exit(ok == 3 ? 0 : 1);
	}
	ck_assert_int_gt(child.pid, 0);
	ck_assert_int_eq(wait4(child.pid, &st, 0, &child.ru), child.pid);
	ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	ul_breakdown_end_life(r, &child, wall, &s);
	ul_breakdown_close(r, NULL);
	ru_cpu = ul_tv_to_ns(&child.ru.ru_utime) + ul_tv_to_ns(&child.ru.ru_stime);
	ck_assert_msg(s.read, "the child's tree was not read");
	ck_assert_int_ge(ru_cpu, 3 * 1000000); /* the grandchildren's, reaped */
	ck_assert_msg(s.part[UL_PART_ONCPU] >= ru_cpu, "on-CPU %lld ns, rusage %lld ns",
		      (long long)s.part[UL_PART_ONCPU], (long long)ru_cpu);
}
END_TEST

Suite *ul_test_suite_breakdown(void)
{
	Suite *s = suite_create("breakdown");
	TCase *tc = tcase_create("breakdown");

	tcase_add_test(tc, test_clamp_fits);
	tcase_add_test(tc, test_clamp_overlap);
	tcase_add_test(tc, test_clamp_edges);
	tcase_add_test(tc, test_delayacct_shared);
	tcase_add_test(tc, test_push_aligned);
	tcase_add_test(tc, test_life_tree);
	tcase_add_test(tc, test_life_short);
	suite_add_tcase(s, tc);
	return s;
}
