/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the paths and the table of system changes: a --dir other
 * users could tamper with is refused, files are opened and trees removed
 * without following symlinks (also while another user races them), and
 * cleanup retires what it cannot undo instead of retrying it forever; a
 * journalled process group is killed whole, also once its leader is gone.
 *
 * Everything lives in one private directory per test (/tmp/ul-chg-XXXXXX)
 * with its own journal directory ($UL_JOURNAL_DIR), removed afterwards.
 */
#include "unit.h"
#include "proc/changes.h"
#include "proc/journal.h"
#include "proc/pgroup.h"
#include "proc/scratch.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOBODY 65534
#define PATHF(buf, ...) ck_assert(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

static char base[PATH_MAX], jdir[PATH_MAX];

static void setup(void)
{
	snprintf(base, sizeof(base), "/tmp/ul-chg-XXXXXX");
	ck_assert_ptr_nonnull(mkdtemp(base));
	PATHF(jdir, "%s/journal", base);
	ck_assert_int_eq(mkdir(jdir, 0700), 0);
	setenv("UL_JOURNAL_DIR", jdir, 1);
}

static void teardown(void)
{
	char cmd[PATH_MAX + 32];

	unsetenv("UL_JOURNAL_DIR");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	if (base[0] && system(cmd) != 0)
		fprintf(stderr, "changes: cannot remove %s\n", base);
}

static void write_text(const char *path, const char *text, mode_t mode)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

static bool exists(const char *path)
{
	struct stat st;

	return lstat(path, &st) == 0;
}

/* ---- the --dir parent ------------------------------------------------- */

START_TEST(test_parent_refusals)
{
	char d[PATH_MAX], sub[PATH_MAX], out[PATH_MAX], why[512];

	PATHF(d, "%s/open", base);
	ck_assert_int_eq(mkdir(d, 0700), 0);
	ck_assert_int_eq(chmod(d, 0777), 0);
	ck_assert_int_eq(ul_scratch_check_parent(d, NULL, 0, why, sizeof(why)), -EPERM);
	ck_assert_ptr_nonnull(strstr(why, "without the sticky bit"));
	ck_assert_int_eq(ul_scratch_create(d, out, sizeof(out)), -EPERM);
	PATHF(sub, "%s/sub", d);
	ck_assert_int_eq(mkdir(sub, 0755), 0);
	ck_assert_int_eq(ul_scratch_check_parent(sub, NULL, 0, why, sizeof(why)), -EPERM);
	ck_assert_int_eq(chmod(d, 01777), 0);
	ck_assert_int_eq(ul_scratch_check_parent(d, NULL, 0, why, sizeof(why)), 0);
	ck_assert_int_eq(ul_scratch_check_parent(sub, NULL, 0, why, sizeof(why)), 0);
	ck_assert_int_eq(chmod(d, 0770), 0);
	ck_assert_int_eq(ul_scratch_check_parent(d, NULL, 0, why, sizeof(why)), -EPERM);
	ck_assert_int_eq(chmod(d, 0755), 0);
	if (geteuid() == 0) {
		ck_assert_int_eq(chown(d, NOBODY, NOBODY), 0);
		ck_assert_int_eq(ul_scratch_check_parent(d, NULL, 0, why, sizeof(why)), -EPERM);
		ck_assert_ptr_nonnull(strstr(why, "owned by another user"));
	}
	/* a symlink to a safe directory is judged by what it resolves to */
	PATHF(sub, "%s/link", base);
	ck_assert_int_eq(symlink(base, sub), 0);
	ck_assert_int_eq(ul_scratch_check_parent(sub, out, sizeof(out), why, sizeof(why)), 0);
	ck_assert_str_eq(out, base);
}
END_TEST

/* ---- opening files in the scratch directory --------------------------- */

START_TEST(test_openat_nofollow)
{
	char dir[PATH_MAX], target[PATH_MAX], link[PATH_MAX + 16], buf[16] = "";
	int fd;

	ck_assert_int_eq(ul_scratch_create(base, dir, sizeof(dir)), 0);
	PATHF(target, "%s/target", base);
	write_text(target, "keep", 0600);
	PATHF(link, "%s/largewrite", dir);
	ck_assert_int_eq(symlink(target, link), 0);
	fd = ul_scratch_openat(dir, "largewrite", O_WRONLY | O_CREAT | O_TRUNC, 0600);
	ck_assert_int_eq(fd, -ELOOP);
	fd = open(target, O_RDONLY | O_CLOEXEC);
	ck_assert_int_eq(read(fd, buf, sizeof(buf) - 1), 4);
	close(fd);
	ck_assert_str_eq(buf, "keep");
	ck_assert_int_eq(ul_scratch_openat(dir, "../x", O_RDONLY, 0), -EINVAL);
	ck_assert_int_eq(ul_scratch_openat(dir, "..", O_RDONLY, 0), -EINVAL);
	/* a scratch directory open to others is not used */
	ck_assert_int_eq(chmod(dir, 0755), 0);
	ck_assert_int_eq(ul_scratch_openat(dir, "f", O_WRONLY | O_CREAT, 0600), -EPERM);
	ck_assert_int_eq(chmod(dir, 0700), 0);
	fd = ul_scratch_openat(dir, "f", O_WRONLY | O_CREAT | O_EXCL, 0600);
	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(ul_scratch_unlinkat(dir, "f"), 0);
	/* a symlinked intermediate directory is not followed */
	PATHF(link, "%s/via", base);
	ck_assert_int_eq(symlink(dir, link), 0);
	ck_assert_int_eq(ul_scratch_openat(link, "g", O_WRONLY | O_CREAT, 0600), -ELOOP);
	ck_assert_int_eq(ul_scratch_remove(dir), 0);
}
END_TEST

/* ---- removal against a racing user ------------------------------------ */

#define RACE_DIRS 64

/* The other user: swap each of its directories for a symlink to canary. */
static void racer(const char *w, const char *canary)
{
	char d[PATH_MAX + 16], moved[PATH_MAX + 32];

	if (setgroups(0, NULL) || setgid(NOBODY) || setuid(NOBODY))
		_exit(1);
	for (;;) {
		for (int i = 0; i < RACE_DIRS; i++) {
			snprintf(d, sizeof(d), "%s/d%d", w, i);
			snprintf(moved, sizeof(moved), "%s/m%d", w, i);
			if (rename(d, moved) == 0)
				(void)symlink(canary, d);
		}
	}
}

START_TEST(test_remove_races_nonroot_symlinks)
{
	char tree[PATH_MAX], w[PATH_MAX + 8], canary[PATH_MAX], p[PATH_MAX + 64];
	struct stat before, after;
	pid_t pid;
	int status, rc;

	if (geteuid() != 0) {
		fprintf(stderr, "skip: changes/race: needs root to act as another user\n");
		return;
	}
	ck_assert_int_eq(chmod(base, 0711), 0);
	PATHF(canary, "%s/canary", base);
	ck_assert_int_eq(mkdir(canary, 0755), 0);
	for (int i = 0; i < 8; i++) {
		PATHF(p, "%s/keep%d", canary, i);
		write_text(p, "keep", 0644);
	}
	ck_assert_int_eq(stat(canary, &before), 0);
	/* A tree root removes, with a part the other user may write in. */
	PATHF(tree, "%s/" UL_SCRATCH_PREFIX "race", base);
	ck_assert_int_eq(mkdir(tree, 0711), 0);
	PATHF(w, "%s/w", tree);
	ck_assert_int_eq(mkdir(w, 0755), 0);
	for (int i = 0; i < RACE_DIRS; i++) {
		PATHF(p, "%s/d%d", w, i);
		ck_assert_int_eq(mkdir(p, 0755), 0);
		for (int k = 0; k < 16; k++) {
			char f[PATH_MAX + 96];

			PATHF(f, "%s/f%d", p, k);
			write_text(f, "x", 0644);
			ck_assert_int_eq(chown(f, NOBODY, NOBODY), 0);
		}
		ck_assert_int_eq(chown(p, NOBODY, NOBODY), 0);
	}
	ck_assert_int_eq(chown(w, NOBODY, NOBODY), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0)
		racer(w, canary);
	usleep(20000);
	/* Directories owned by the other user are theirs: removal may fail
	 * (EPERM is not what matters); following their symlinks must not happen. */
	for (int round = 0; round < 20 && exists(tree); round++)
		rc = ul_scratch_remove(tree);
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	rc = ul_scratch_remove(tree);
	ck_assert_msg(rc == 0 || rc == -ENOENT, "final removal: %s", strerror(-rc));
	for (int i = 0; i < 8; i++) {
		PATHF(p, "%s/keep%d", canary, i);
		ck_assert_msg(exists(p), "%s was removed through a symlink", p);
	}
	ck_assert_int_eq(stat(canary, &after), 0);
	ck_assert_uint_eq(after.st_mode, before.st_mode); /* never chmod'ed */
	ck_assert_uint_eq(after.st_uid, 0);
	ck_assert(!exists(tree));
}
END_TEST

/* ---- retiring --------------------------------------------------------- */

static int calls;

static int mark_fails(void *arg, const char *store, const char *uuid, char *why, size_t len)
{
	(void)arg;
	(void)store;
	(void)uuid;
	calls++;
	snprintf(why, len, "the store is locked");
	return -EIO;
}

static int stale_count(void)
{
	int n = -1;

	ck_assert_int_eq(ul_journal_stale(jdir, &n), 0);
	return n;
}

START_TEST(test_failing_undo_is_retired)
{
	const struct ul_changes_hooks hooks = { .mark_interrupted = mark_fails };
	char j[PATH_MAX + 32];
	int n = 0;

	PATHF(j, "%s/999999999.journal", jdir);
	write_text(j,
		   "underload-journal 1 999999999 0\n"
		   "run 0badc0de-0000-4000-8000-000000000000 /x/results.db\n",
		   0600);
	for (int attempt = 1; attempt < UL_CHANGES_MAX_TRIES; attempt++) {
		ck_assert_int_eq(ul_changes_cleanup(jdir, &hooks, &n), -EIO);
		ck_assert_int_eq(calls, attempt);
		ck_assert_int_eq(stale_count(), 1); /* kept for another try */
	}
	ck_assert_int_eq(ul_changes_cleanup(jdir, &hooks, &n), -EIO);
	ck_assert_int_eq(calls, UL_CHANGES_MAX_TRIES);
	ck_assert(!exists(j)); /* retired: nothing pending, the journal goes */
	ck_assert_int_eq(ul_changes_cleanup(jdir, &hooks, &n), 0);
	ck_assert_int_eq(calls, UL_CHANGES_MAX_TRIES);
	ck_assert_int_eq(n, 0);
}
END_TEST

static int mark_busy(void *arg, const char *store, const char *uuid, char *why, size_t len)
{
	(void)arg;
	(void)store;
	(void)uuid;
	(void)why;
	(void)len;
	calls++;
	return -EBUSY;
}

/* Still in use (a swap file whose pages do not fit in memory yet): kept
 * pending for the next cleanup however often it is tried, never retired. */
START_TEST(test_busy_undo_is_kept)
{
	const struct ul_changes_hooks hooks = { .mark_interrupted = mark_busy };
	char j[PATH_MAX + 32];
	int n = 0;

	PATHF(j, "%s/999999998.journal", jdir);
	write_text(j,
		   "underload-journal 1 999999998 0\n"
		   "run 0badc0de-0000-4000-8000-000000000001 /x/results.db\n",
		   0600);
	for (int attempt = 1; attempt <= 2 * UL_CHANGES_MAX_TRIES; attempt++) {
		ck_assert_int_eq(ul_changes_cleanup(jdir, &hooks, &n), -EBUSY);
		ck_assert_int_eq(calls, attempt);
		ck_assert_int_eq(stale_count(), 1);
	}
	ck_assert(exists(j));
}
END_TEST

START_TEST(test_run_entry_and_unknown)
{
	struct ul_journal jl;

	ck_assert_int_eq(ul_journal_open(&jl), 0);
	ck_assert_int_eq(ul_change_run_begin(&jl, "not-a-uuid", "/x.db"), -EINVAL);
	ck_assert_int_eq(ul_change_run_begin(&jl, "0badc0de-0000-4000-8000-000000000000", ""),
			 -EINVAL);
	ck_assert_int_eq(ul_change_run_begin(&jl, "0badc0de-0000-4000-8000-000000000000", "/x.db"),
			 0);
	ck_assert_int_eq(ul_change_run_end(&jl, "0badc0de-0000-4000-8000-000000000000", "/x.db"),
			 0);
	ck_assert_int_eq(ul_journal_add(&jl, "retired", "x"), -EINVAL);
	ck_assert_int_eq(ul_journal_add(&jl, "failed", "x"), -EINVAL);
	ck_assert(ul_change_known("swap") && ul_change_known("run") && !ul_change_known("x"));
	ck_assert_int_eq(ul_change_undo(NULL, "x", "y"), -EOPNOTSUPP);
	ul_journal_finish(&jl);
	ck_assert(!exists(jl.path)); /* nothing pending */
}
END_TEST

/*
 * A group whose leader died (as a build's shell dies with a killed bisect)
 * is still found and killed through its journal entry; a leader's pid
 * with another start time is another process, never ours.
 */
START_TEST(test_pgroup_outlives_leader)
{
	struct ul_journal j = { .fd = -1 };
	char arg[64], wrong[64];
	int ready[2], st;
	pid_t leader;
	unsigned long long start;

	ck_assert_int_eq(pipe(ready), 0);
	leader = fork();
	ck_assert_int_ge(leader, 0);
	if (leader == 0) {
		setpgid(0, 0);
		if (fork() == 0) { /* the member: runs on until killed */
			close(ready[0]);
			(void)!write(ready[1], "m", 1);
			for (;;)
				pause();
		}
		for (;;)
			pause();
	}
	close(ready[1]);
	ck_assert_int_eq(read(ready[0], &st, 1), 1); /* the member runs, in the group */
	close(ready[0]);
	ck_assert_int_eq(ul_journal_open(&j), 0);
	ck_assert_int_eq(ul_change_pgroup_started(&j, leader, arg, sizeof(arg)), 0);
	ck_assert_int_eq(ul_pgroup_alive(arg), 0);
	ck_assert_int_eq(sscanf(arg, "%*d %llu", &start), 1);
	PATHF(wrong, "%d %llu", (int)leader, start + 1);
	ck_assert_int_eq(ul_pgroup_alive(wrong), -ENOENT);
	ck_assert_int_eq(ul_pgroup_alive("1 0"), -EINVAL);
	ck_assert_int_eq(ul_pgroup_alive("12 x"), -EINVAL);
	/* the leader dies; its member does not */
	ck_assert_int_eq(kill(leader, SIGKILL), 0);
	ck_assert_int_eq(waitpid(leader, &st, 0), leader);
	ck_assert_int_eq(ul_pgroup_alive(arg), 0);
	ck_assert_int_eq(ul_change_undo(&j, "pgroup", arg), 0);
	ck_assert_int_eq(ul_pgroup_alive(arg), -ENOENT);
	ck_assert_int_eq(ul_pgroup_kill(arg), 0); /* gone: nothing to do */
	ul_journal_finish(&j);
	ck_assert(!exists(j.path)); /* the entry is done */
}
END_TEST

Suite *ul_test_suite_changes(void)
{
	Suite *s = suite_create("changes");
	TCase *tc = tcase_create("paths");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_parent_refusals);
	tcase_add_test(tc, test_openat_nofollow);
	tcase_add_test(tc, test_remove_races_nonroot_symlinks);
	tcase_add_test(tc, test_failing_undo_is_retired);
	tcase_add_test(tc, test_busy_undo_is_kept);
	tcase_add_test(tc, test_run_entry_and_unknown);
	tcase_add_test(tc, test_pgroup_outlives_leader);
	suite_add_tcase(s, tc);
	return s;
}
