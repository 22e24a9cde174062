/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for what a task waited for (proc/taskstats.h), the switch of
 * delay accounting and its journal (proc/delayacct.h, proc/changes.h) and
 * the schedstat fallback (proc/schedstat.h), on children that burn CPU,
 * sleep, write to disk, and exit quickly.
 *
 * Needs root (CI is): a test whose facility is missing (no taskstats
 * family, no CAP_NET_ADMIN) prints "skip: ..." and passes.  Each test
 * leaves kernel.task_delayacct as it found it; the TCase's unchecked
 * teardown writes the value seen before the first test back as well, in
 * case a failing test exited before its own restore.
 */
#include "unit.h"
#include "proc/changes.h"
#include "proc/delayacct.h"
#include "proc/journal.h"
#include "proc/schedstat.h"
#include "proc/taskstats.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MS 1000000ull /* ns */

static int delayacct_before = -1;
static char base[PATH_MAX], jdir[PATH_MAX];

static void restore_delayacct(void)
{
	char why[256];

	if (delayacct_before >= 0 && ul_delayacct_read() != delayacct_before &&
	    ul_delayacct_write(delayacct_before, why, sizeof(why)))
		fprintf(stderr, "taskstats: cannot restore kernel.task_delayacct: %s\n", why);
}

static void suite_setup(void)
{
	delayacct_before = ul_delayacct_read();
}

static void suite_teardown(void)
{
	restore_delayacct();
}

static void setup(void)
{
	restore_delayacct(); /* a test that failed before its own restore */
	snprintf(base, sizeof(base), "/tmp/ul-ts-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	ck_assert(snprintf(jdir, sizeof(jdir), "%s/journal", base) < (int)sizeof(jdir));
	ck_assert_int_eq(mkdir(jdir, 0700), 0);
	setenv("UL_JOURNAL_DIR", jdir, 1);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 32];

	restore_delayacct();
	unsetenv("UL_JOURNAL_DIR");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (base[0] && system(cmd) != 0)
		fprintf(stderr, "taskstats: cannot remove %s\n", base);
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Spend ns of CPU time (however long another task makes that take). */
static void burn(uint64_t ns)
{
	uint64_t end = cpu_ns() + ns;

	while (cpu_ns() < end)
		;
}

static void pin_cpu0(void)
{
	cpu_set_t set;

	CPU_ZERO(&set);
	CPU_SET(0, &set);
	ck_assert_int_eq(sched_setaffinity(0, sizeof(set), &set), 0);
}

/* A child's pid, the pipe that starts it and the one it says done on. */
struct kid {
	pid_t pid;
	int go, done;
};

/* A child that burns ms of CPU (pinned to CPU 0 if pinned) or sleeps for
 * ms once started, says done, then waits for SIGKILL. */
static struct kid child(bool busy, bool pinned, unsigned ms)
{
	int go[2], done[2];
	struct kid k;

	ck_assert_int_eq(pipe2(go, O_CLOEXEC), 0);
	ck_assert_int_eq(pipe2(done, O_CLOEXEC), 0);
	k.pid = fork();
	ck_assert_int_ge(k.pid, 0);
	if (k.pid == 0) {
		char c;

		if (pinned)
			pin_cpu0();
		if (read(go[0], &c, 1) != 1)
			_exit(1);
		if (busy)
			burn(ms * MS);
		else
			usleep(ms * 1000);
		if (write(done[1], "d", 1) != 1)
			_exit(1);
		pause();
		_exit(0);
	}
	close(go[0]);
	close(done[1]);
	k.go = go[1];
	k.done = done[0];
	return k;
}

static void start(struct kid *k)
{
	ck_assert_int_eq(write(k->go, "g", 1), 1);
	close(k->go);
}

static void await(struct kid *k)
{
	char c;

	ck_assert_int_eq(read(k->done, &c, 1), 1);
	close(k->done);
}

static void reap(pid_t pid)
{
	kill(pid, SIGKILL);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
}

/* The connection, or NULL after a printed skip (no family, no permission). */
static struct ul_taskstats_conn *open_or_skip(const char *test)
{
	struct ul_taskstats_conn *c = NULL;
	char why[256] = "";
	int rc = ul_taskstats_open(&c, why, sizeof(why));

	if (rc == -ENOENT || rc == -EPERM || rc == -EACCES) {
		fprintf(stderr, "skip: taskstats/%s: %s\n", test, why);
		return NULL;
	}
	ck_assert_msg(rc == 0, "%s", why);
	return c;
}

static void query(struct ul_taskstats_conn *c, pid_t pid, struct ul_taskstats *ts)
{
	char why[256] = "";
	int rc = ul_taskstats_query(c, pid, false, ts, why, sizeof(why));

	ck_assert_msg(rc == 0, "%s", why);
	ck_assert_int_eq(ts->pid, pid);
}

/* Delay accounting on through the journal (it must be there to switch). */
static bool switch_on(struct ul_journal *j)
{
	char why[256] = "";
	bool changed = true;

	ck_assert_int_eq(ul_journal_open(j), 0);
	ck_assert_msg(ul_change_delayacct_on(j, &changed, why, sizeof(why)) == 0, "%s", why);
	ck_assert_int_eq(ul_delayacct_read(), 1);
	return changed;
}

static void switch_back(struct ul_journal *j, bool changed)
{
	if (changed)
		ck_assert_int_eq(ul_change_undo(j, "delayacct", "0"), 0);
	ul_journal_finish(j);
	ck_assert_int_eq(ul_delayacct_read(), delayacct_before);
}

/* A busy child's CPU time grows by about the time it burnt; a sleeping
 * child's hardly does; a task that is gone is -ESRCH. */
START_TEST(test_query_cpu_time)
{
	struct ul_taskstats_conn *c = open_or_skip("query");
	struct ul_taskstats a, b;
	struct kid busy, idle;
	char why[256];

	if (!c)
		return;
	busy = child(true, false, 300);
	idle = child(false, false, 300);
	query(c, busy.pid, &a);
	ck_assert_uint_ge(a.version, 1);
	start(&busy);
	start(&idle);
	await(&busy);
	await(&idle);
	query(c, busy.pid, &b);
	ck_assert_int_eq(b.counting, ul_delayacct_read() == 1);
	/* 300 ms burnt; the fallback (no delay accounting) counts in ticks. */
	ck_assert_msg(b.cpu_ns >= a.cpu_ns + 200 * MS, "busy: %llu -> %llu ns",
		      (unsigned long long)a.cpu_ns, (unsigned long long)b.cpu_ns);
	query(c, idle.pid, &b);
	ck_assert_msg(b.cpu_ns < 50 * MS, "idle: %llu ns", (unsigned long long)b.cpu_ns);
	reap(busy.pid);
	reap(idle.pid);
	ck_assert_int_eq(ul_taskstats_query(c, busy.pid, false, &b, why, sizeof(why)), -ESRCH);
	ck_assert_ptr_nonnull(strstr(why, "taskstats of task"));
	ul_taskstats_close(c);
}
END_TEST

/* With delay accounting on, two busy children pinned to one CPU each wait
 * on the run queue for a good part of the time the other runs; the record
 * says the delays are there, and names every delay its version has. */
START_TEST(test_runq_delay_pinned)
{
	struct ul_taskstats_conn *c = open_or_skip("runq");
	struct ul_taskstats ts[2];
	struct ul_journal j;
	struct kid k[2];
	bool changed;

	if (!c)
		return;
	changed = switch_on(&j);
	for (int i = 0; i < 2; i++)
		k[i] = child(true, true, 300);
	start(&k[0]);
	start(&k[1]);
	await(&k[0]);
	await(&k[1]);
	for (int i = 0; i < 2; i++) {
		query(c, k[i].pid, &ts[i]);
		ck_assert(ts[i].sched && ts[i].counting);
		ck_assert(ts[i].have & (1u << UL_DELAY_RUNQ));
		for (int d = 0; d < UL_DELAY_N; d++)
			ck_assert_int_eq(!!(ts[i].have & (1u << d)),
					 ts[i].version >= ul_delay_since(d));
		/* Each burnt 300 ms on a CPU it shared with the other for
		 * most of that time: it waited for about as long. */
		ck_assert_msg(ts[i].delay_ns[UL_DELAY_RUNQ] >= 100 * MS, "run queue %llu ns",
			      (unsigned long long)ts[i].delay_ns[UL_DELAY_RUNQ]);
		ck_assert_uint_gt(ts[i].count[UL_DELAY_RUNQ], 0);
		ck_assert_msg(ts[i].cpu_ns >= 300 * MS, "on-CPU %llu ns",
			      (unsigned long long)ts[i].cpu_ns);
		reap(k[i].pid);
	}
	ul_taskstats_close(c);
	switch_back(&j, changed);
}
END_TEST

/* With delay accounting on, a child that writes and fsyncs a file on a
 * block device waits for block I/O. */
START_TEST(test_blkio_delay)
{
	struct ul_taskstats_conn *c = open_or_skip("blkio");
	struct ul_taskstats ts;
	struct ul_journal j;
	char path[PATH_MAX + 8];
	int status;
	pid_t pid;
	bool changed;

	if (!c)
		return;
	changed = switch_on(&j);
	snprintf(path, sizeof(path), "%s/data", base);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		static char buf[1 << 16];
		int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

		for (int i = 0; fd >= 0 && i < 32; i++)
			if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf) || fsync(fd))
				_exit(1);
		pause();
		_exit(fd < 0);
	}
	/* Until the child is done writing (a file of 2 MiB), at most 20 s. */
	for (int i = 0; i < 2000; i++) {
		struct stat st;

		if (stat(path, &st) == 0 && st.st_size == 32 << 16)
			break;
		ck_assert_int_eq(waitpid(pid, &status, WNOHANG), 0);
		usleep(10 * 1000);
	}
	usleep(100 * 1000); /* its last fsync */
	query(c, pid, &ts);
	ck_assert(ts.counting);
	ck_assert_uint_gt(ts.count[UL_DELAY_BLKIO], 0);
	ck_assert_uint_gt(ts.delay_ns[UL_DELAY_BLKIO], 0);
	reap(pid);
	ul_taskstats_close(c);
	switch_back(&j, changed);
}
END_TEST

struct seen {
	pid_t want;
	int n;
	struct ul_taskstats rec;
};

static void collect(void *arg, const struct ul_taskstats *rec)
{
	struct seen *s = arg;

	if (rec->pid == s->want && !rec->group) {
		s->rec = *rec;
		s->n++;
	}
}

/* A grandchild that lived a few milliseconds and was reaped by its own
 * parent: its exit record reaches a listener on every online CPU. */
START_TEST(test_exit_record_of_grandchild)
{
	struct ul_taskstats_listener *l = NULL;
	struct seen s = { 0 };
	char why[256] = "";
	unsigned lost = 0;
	int fds[2], rc;
	pid_t pid;

	rc = ul_taskstats_listen(NULL, &l, why, sizeof(why));
	if (rc == -ENOENT || rc == -EPERM || rc == -EACCES) {
		fprintf(stderr, "skip: taskstats/exit records: %s\n", why);
		return;
	}
	ck_assert_msg(rc == 0, "%s", why);
	ck_assert_int_ge(ul_taskstats_listener_fd(l), 0);
	ck_assert_int_ge(ul_taskstats_drain(l, collect, &s, &lost), 0); /* never blocks */
	ck_assert_int_eq(pipe(fds), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		pid_t g = fork();

		if (g == 0) {
			burn(20 * MS);
			_exit(7);
		}
		if (g < 0 || waitpid(g, NULL, 0) != g || write(fds[1], &g, sizeof(g)) != sizeof(g))
			_exit(1);
		_exit(0);
	}
	close(fds[1]);
	ck_assert_int_eq(read(fds[0], &s.want, sizeof(s.want)), (ssize_t)sizeof(s.want));
	close(fds[0]);
	ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
	/* The kernel sends the record in do_exit(), before the parent can
	 * reap: it is queued already. */
	ck_assert_int_gt(ul_taskstats_drain(l, collect, &s, &lost), 0);
	ck_assert_int_eq(lost, 0);
	ck_assert_int_eq(s.n, 1);
	ck_assert_uint_eq(s.rec.exitcode, 7 << 8);
	ck_assert_msg(s.rec.cpu_ns >= 10 * MS || !s.rec.sched, "on-CPU %llu ns",
		      (unsigned long long)s.rec.cpu_ns);
	ck_assert_uint_gt(s.rec.elapsed_us, 10000);
	ul_taskstats_unlisten(l);
}
END_TEST

/* Switched on through the journal only when off, back to 0 at the end;
 * left alone when it was on. */
START_TEST(test_delayacct_journalled)
{
	struct ul_journal j;
	char why[256];
	bool changed;

	if (ul_delayacct_read() == -ENOENT) {
		fprintf(stderr, "skip: taskstats/delayacct: no %s\n", UL_DELAYACCT_PATH);
		return;
	}
	ck_assert_int_eq(ul_delayacct_write(0, why, sizeof(why)), 0);
	ck_assert_int_eq(ul_change_delayacct_on(NULL, &changed, why, sizeof(why)), -EBADF);
	ck_assert_int_eq(ul_delayacct_read(), 0);
	ck_assert(switch_on(&j));
	ck_assert_int_eq(ul_change_undo(&j, "delayacct", "0"), 0);
	ck_assert_int_eq(ul_delayacct_read(), 0);
	ul_journal_finish(&j);
	ck_assert_int_eq(access(j.path, F_OK), -1); /* settled: nothing pending */

	ck_assert_int_eq(ul_delayacct_write(1, why, sizeof(why)), 0);
	ck_assert(!switch_on(&j));
	ul_journal_finish(&j);
	ck_assert_int_eq(ul_delayacct_read(), 1); /* on before: left on */
	ck_assert_int_eq(access(j.path, F_OK), -1);
	restore_delayacct();
}
END_TEST

/* A run killed with -9 after switching it on: cleanup switches it off;
 * an entry asking for any other value is refused and retired. */
START_TEST(test_delayacct_cleanup_after_kill)
{
	char why[256], path[PATH_MAX + 32];
	int status, n = -1;
	pid_t pid;

	if (ul_delayacct_read() == -ENOENT) {
		fprintf(stderr, "skip: taskstats/delayacct: no %s\n", UL_DELAYACCT_PATH);
		return;
	}
	ck_assert_int_eq(ul_delayacct_write(0, why, sizeof(why)), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		struct ul_journal j;
		bool changed = false;

		if (ul_journal_open(&j) || ul_change_delayacct_on(&j, &changed, why, sizeof(why)) ||
		    !changed)
			_exit(1);
		kill(getpid(), SIGKILL);
		_exit(2);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_int_eq(ul_delayacct_read(), 1);
	ck_assert_int_eq(ul_changes_cleanup(jdir, NULL, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(ul_delayacct_read(), 0);

	/* A forged entry: never written, retired. */
	snprintf(path, sizeof(path), "%s/999999997.journal", jdir);
	{
		static const char forged[] = "underload-journal 1 999999997 0\ndelayacct 1\n";
		int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

		ck_assert_int_ge(fd, 0);
		ck_assert_int_eq(write(fd, forged, strlen(forged)), (ssize_t)strlen(forged));
		close(fd);
	}
	ck_assert_int_eq(ul_changes_cleanup(jdir, NULL, &n), -EPERM);
	ck_assert_int_eq(ul_delayacct_read(), 0);
	ck_assert_int_eq(ul_delayacct_entry_check("1", why, sizeof(why)), -EPERM);
	restore_delayacct();
}
END_TEST

/* Without delay accounting: on-CPU time grows for a busy child, the run
 * queue wait of two busy children pinned to one CPU grows, and a reaped
 * child is -ESRCH. */
START_TEST(test_schedstat_fallback)
{
	struct ul_schedstat a, b;
	struct kid k[2];

	for (int i = 0; i < 2; i++)
		k[i] = child(true, true, 300);
	if (ul_schedstat_read(k[0].pid, &a) == -ENOENT) {
		fprintf(stderr, "skip: taskstats/schedstat: this kernel keeps none\n");
		reap(k[0].pid);
		reap(k[1].pid);
		return;
	}
	ck_assert_int_eq(ul_schedstat_read(k[0].pid, &a), 0);
	start(&k[0]);
	start(&k[1]);
	await(&k[0]);
	await(&k[1]);
	for (int i = 0; i < 2; i++) {
		ck_assert_int_eq(ul_schedstat_read(k[i].pid, &b), 0);
		if (i == 0)
			ck_assert_uint_ge(b.cpu_ns, a.cpu_ns + 300 * MS);
		ck_assert_msg(b.runq_ns >= 100 * MS, "run queue %llu ns",
			      (unsigned long long)b.runq_ns);
		ck_assert_uint_gt(b.slices, 1);
		reap(k[i].pid);
	}
	ck_assert_int_eq(ul_schedstat_read(k[0].pid, &b), -ESRCH);
	ck_assert_ptr_nonnull(strstr(UL_SCHEDSTAT_MISSING, "block I/O"));
}
END_TEST

START_TEST(test_delay_names)
{
	for (int d = 0; d < UL_DELAY_N; d++) {
		ck_assert_str_ne(ul_delay_key(d), "?");
		ck_assert_str_ne(ul_delay_name(d), "?");
		ck_assert_uint_ge(ul_delay_since(d), 1);
	}
	ck_assert_str_eq(ul_delay_key(UL_DELAY_RUNQ), "runq");
	ck_assert_uint_eq(ul_delay_since(UL_DELAY_IRQ), 14);
	ck_assert_str_eq(ul_delay_key(UL_DELAY_N), "?");
}
END_TEST

Suite *ul_test_suite_taskstats(void)
{
	Suite *s = suite_create("taskstats");
	TCase *tc = tcase_create("taskstats");

	tcase_add_unchecked_fixture(tc, suite_setup, suite_teardown);
	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_delay_names);
	tcase_add_test(tc, test_query_cpu_time);
	tcase_add_test(tc, test_runq_delay_pinned);
	tcase_add_test(tc, test_blkio_delay);
	tcase_add_test(tc, test_exit_record_of_grandchild);
	tcase_add_test(tc, test_delayacct_journalled);
	tcase_add_test(tc, test_delayacct_cleanup_after_kill);
	tcase_add_test(tc, test_schedstat_fallback);
	suite_add_tcase(s, tc);
	return s;
}
