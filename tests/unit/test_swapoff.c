/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ul_swap_destroy() against the ways swapoff(2) fails while the file is
 * still a swap area (proc/swapoff.c): pages of another process whose
 * memory cgroup is full (ENOMEM), a caught signal (EINTR), and another
 * swapoff of the same file under way (EINVAL).  Each needs root, swap files in /var/tmp and a
 * memory cgroup, and no other swap area active (the children's pages
 * would spill into it); otherwise "skip: ..." says why.
 *
 * The "other process" is a child in a cgroup made as another run's
 * --mem-limit makes it (ul_cgroup_create), its pages pushed into our swap
 * file by the limit.  The teardown, run by the runner after the forked
 * test died whether it passed or not, kills it, swaps off and removes
 * whatever is left by name, with plain syscalls.
 */
#include "unit.h"
#include "core/clock.h"
#include "proc/cgroup/cgroup.h"
#include "proc/swap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define CG_LIMIT (16 * UL_MiB)
#define SWAP_SIZE (256 * UL_MiB)
#define PATIENCE (30 * UL_NS_PER_SEC)

static char dir[PATH_MAX]; /* /var/tmp/ul-swapoff-XXXXXX */
static char cg_name[32];   /* so-<runner pid>: underload-so-<pid> */
static const char uuid[] = "5a5a5a5a-0000-4000-8000-000000000001";

static void fixture_setup(void)
{
	snprintf(cg_name, sizeof(cg_name), "so-%d", (int)getpid());
	snprintf(dir, sizeof(dir), "/var/tmp/ul-swapoff-XXXXXX");
	if (!mkdtemp(dir))
		dir[0] = '\0';
}

/* Whatever a failed test left: its cgroup (processes killed), swap files. */
static void fixture_teardown(void)
{
	struct ul_cgroup cg;
	char why[256];
	DIR *d;

	if (ul_cgroup_plan(cg_name, &cg, why, sizeof(why)) == 0 && access(cg.path, F_OK) == 0 &&
	    ul_cgroup_destroy(&cg))
		fprintf(stderr, "swapoff: teardown could not remove %s\n", cg.path);
	d = dir[0] ? opendir(dir) : NULL;
	for (struct dirent *e; d && (e = readdir(d));) {
		char p[PATH_MAX * 2];

		if (e->d_name[0] == '.')
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, e->d_name);
		for (int i = 0; i < 100 && swapoff(p) < 0 && errno != EINVAL; i++)
			usleep(100000);
		unlink(p);
	}
	if (d)
		closedir(d);
	if (dir[0])
		rmdir(dir);
}

/* The KiB /proc/swaps shows used in path, or -1 when it is not listed. */
static long swaps_used(const char *path)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128], name[PATH_MAX];
	long used = -1, u;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%4095s %*s %*s %ld", name, &u) == 2 && !strcmp(name, path))
			used = u;
	fclose(f);
	return used;
}

static void make_swap(char *path, size_t len)
{
	char why[256];
	int rc = ul_swap_create(dir, SWAP_SIZE, 32767, uuid, path, len, why, sizeof(why));

	ck_assert_msg(rc == 0, "swap: %s: %s", strerror(-rc), why);
}

/* Does /proc/swaps list any swap area (besides our own: more than one)? */
static bool other_swap_areas(void)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128];
	int lines = 0;

	while (f && fgets(line, sizeof(line), f))
		lines++;
	if (f)
		fclose(f);
	return lines > 1;
}

/*
 * A child in cgroup cg that touches `bytes` (most of them pushed into swap
 * by the cgroup's limit), says so on a pipe, then lives hold_ms more.
 */
static pid_t hog(const struct ul_cgroup *cg, size_t bytes, int hold_ms)
{
	struct pollfd pfd;
	int p[2];
	char c = 0, self[32];
	pid_t pid;

	ck_assert_int_eq(pipe(p), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (pid == 0) {
		int fd = open(cg->procs, O_WRONLY | O_CLOEXEC);
		char *m;

		snprintf(self, sizeof(self), "%d", (int)getpid());
		if (fd < 0 || write(fd, self, strlen(self)) < 0)
			_exit(2);
		close(fd);
		m = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (m == MAP_FAILED)
			_exit(3);
		for (size_t i = 0; i < bytes; i += 4096)
			m[i] = (char)(i / 4096 + 1);
		if (write(p[1], "r", 1) != 1)
			_exit(4);
		usleep((useconds_t)hold_ms * 1000);
		_exit(0);
	}
	close(p[1]);
	pfd = (struct pollfd){ .fd = p[0], .events = POLLIN };
	if (!(poll(&pfd, 1, 60000) == 1 && read(p[0], &c, 1) == 1 && c == 'r')) {
		int status = 0;
		pid_t w = waitpid(pid, &status, WNOHANG);
		char how[64];

		if (w == 0)
			snprintf(how, sizeof(how), "still touching after 60 s");
		else if (w > 0 && WIFEXITED(status))
			snprintf(how, sizeof(how), "exit %d (2 cgroup, 3 mmap, 4 pipe)",
				 WEXITSTATUS(status));
		else
			snprintf(how, sizeof(how), "wait status %#x", status);
		/* Say why: a concurrent run's swap area (these tests need none
		 * but ours, checked when the suite starts) takes pages round-robin,
		 * and its swapoff can stall our child at its limit. */
		ck_abort_msg("the child did not fill its memory: %s; other swap areas: %s", how,
			     other_swap_areas() ? "active now (a concurrent run's --swap?)"
						: "none");
	}
	close(p[0]);
	return pid;
}

static int reap(pid_t pid)
{
	int status = -1;

	for (int i = 0; i < 6000 && waitpid(pid, &status, WNOHANG) == 0; i++)
		usleep(10000);
	return status;
}

static void make_cgroup(struct ul_cgroup *cg)
{
	char why[256];
	int rc = ul_cgroup_create(cg_name, CG_LIMIT, UINT64_MAX, cg, why, sizeof(why));

	ck_assert_msg(rc == 0, "cgroup: %s: %s", strerror(-rc), why);
}

/*
 * Pages of a process whose cgroup is at its limit (OOM killer off on
 * cgroup v1) sit in our swap file: swapoff fails with ENOMEM until that
 * process ends.  Kill trial 57 of issue 18 was this; the file used to be
 * left on, and swapoff reported as failed at once.
 */
START_TEST(test_swapoff_waits_for_full_cgroup)
{
	struct ul_cgroup cg;
	char path[PATH_MAX];
	pid_t child;
	int rc, status;

	make_swap(path, sizeof(path));
	make_cgroup(&cg);
	child = hog(&cg, 4 * CG_LIMIT, 1500);
	ck_assert_msg(swaps_used(path) > 0, "the child's pages are not in %s", path);
	rc = ul_swap_destroy_within(path, PATIENCE);
	ck_assert_msg(rc == 0, "ul_swap_destroy: %s", strerror(-rc));
	ck_assert_int_eq(swaps_used(path), -1);
	ck_assert_int_eq(access(path, F_OK), -1);
	status = reap(child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "child status %#x", status);
	ck_assert_int_eq(ul_cgroup_destroy(&cg), 0);
}
END_TEST

/* Lift the cgroup's limit, so swapoff can bring its pages back. */
static void unlimit(const struct ul_cgroup *cg)
{
	if (cg->version == 1) {
		ck_assert_int_eq(ul_cgroup_ctl_write(cg, "memory.limit_in_bytes", "-1"), 0);
	} else {
		ck_assert_int_eq(ul_cgroup_ctl_write(cg, "memory.max", "max"), 0);
		ck_assert_int_eq(ul_cgroup_ctl_write(cg, "memory.high", "max"), 0);
	}
}

/*
 * Another swapoff of the file is under way (slow: 200 MiB to read back):
 * ours gets EINVAL, as for a file that is no swap area, while the file is
 * still one.  It used to unlink at once (EPERM on an active swap file).
 */
START_TEST(test_swapoff_waits_for_another_swapoff)
{
	struct ul_cgroup cg;
	char path[PATH_MAX];
	pid_t child, other;
	int rc, status;

	make_swap(path, sizeof(path));
	make_cgroup(&cg);
	child = hog(&cg, 13 * CG_LIMIT, 60000);
	ck_assert_msg(swaps_used(path) > 100 * 1024, "%ld KiB in %s", swaps_used(path), path);
	unlimit(&cg);
	other = fork();
	ck_assert_int_ge(other, 0);
	if (other == 0)
		_exit(swapoff(path) == 0 ? 0 : errno);
	usleep(200000);
	ck_assert_msg(swaps_used(path) > 0, "the other swapoff ended too soon to overlap");
	rc = ul_swap_destroy_within(path, PATIENCE);
	ck_assert_msg(rc == 0, "ul_swap_destroy: %s", strerror(-rc));
	ck_assert_int_eq(swaps_used(path), -1);
	ck_assert_int_eq(access(path, F_OK), -1);
	status = reap(other);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "other swapoff: %#x", status);
	kill(child, SIGKILL);
	reap(child);
	ck_assert_int_eq(ul_cgroup_destroy(&cg), 0);
}
END_TEST

static void on_usr1(int sig)
{
	(void)sig;
}

/*
 * A signal that a handler catches arrives while swapoff goes over the
 * pages of two processes: swapoff stops after the first and fails with
 * EINTR, the file still on.  It used to be reported as a failure.
 */
START_TEST(test_swapoff_retries_after_signal)
{
	struct sigaction sa = { .sa_handler = on_usr1 }, old;
	struct ul_cgroup cg;
	char path[PATH_MAX];
	pid_t a, b, signaller, self = getpid();
	int rc;

	make_swap(path, sizeof(path));
	make_cgroup(&cg);
	a = hog(&cg, 6 * CG_LIMIT, 60000);
	b = hog(&cg, 6 * CG_LIMIT, 60000);
	ck_assert_msg(swaps_used(path) > 100 * 1024, "%ld KiB in %s", swaps_used(path), path);
	unlimit(&cg);
	ck_assert_int_eq(sigaction(SIGUSR1, &sa, &old), 0); /* no SA_RESTART */
	signaller = fork();
	ck_assert_int_ge(signaller, 0);
	if (signaller == 0) {
		usleep(300000);
		kill(self, SIGUSR1);
		_exit(0);
	}
	rc = ul_swap_destroy_within(path, PATIENCE);
	ck_assert_msg(rc == 0, "ul_swap_destroy: %s", strerror(-rc));
	ck_assert_int_eq(swaps_used(path), -1);
	ck_assert_int_eq(access(path, F_OK), -1);
	sigaction(SIGUSR1, &old, NULL);
	reap(signaller);
	kill(a, SIGKILL);
	kill(b, SIGKILL);
	reap(a);
	reap(b);
	ck_assert_int_eq(ul_cgroup_destroy(&cg), 0);
}
END_TEST

/* NULL when the tests can run, else why not. */
static const char *missing(void)
{
	struct statfs sfs;
	struct ul_cgroup cg;
	char why[256];
	static char reason[300];

	if (geteuid() != 0)
		return "not root";
	if (access("/proc/swaps", F_OK))
		return "kernel without swap (no /proc/swaps)";
	if (statfs("/var/tmp", &sfs) || sfs.f_type == TMPFS_MAGIC ||
	    sfs.f_type == OVERLAYFS_SUPER_MAGIC || sfs.f_type == BTRFS_SUPER_MAGIC)
		return "/var/tmp cannot hold a swap file";
	if ((uint64_t)sfs.f_bavail * (uint64_t)sfs.f_bsize < UL_GiB + 2 * SWAP_SIZE)
		return "/var/tmp has too little free space";
	/* The children's pages would spill into any other swap area (every
	 * --swap file has priority 32767, used round-robin), stalling the
	 * swapoff of a concurrent run's file, and ours would not get them. */
	if (other_swap_areas())
		return "other swap areas are active (a concurrent run's --swap?): the tests' "
		       "pages would spill into them";
	if (ul_cgroup_permitted(why, sizeof(why)) ||
	    ul_cgroup_plan("so-probe", &cg, why, sizeof(why))) {
		snprintf(reason, sizeof(reason), "no memory cgroup: %s", why);
		return reason;
	}
	return NULL;
}

Suite *ul_test_suite_swapoff(void)
{
	Suite *s = suite_create("swapoff");
	const char *why = missing();
	TCase *tc;

	if (why) {
		fprintf(stderr, "skip: swapoff/*: %s\n", why);
		return s;
	}
	tc = tcase_create("full-cgroup");
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 90);
	tcase_add_test(tc, test_swapoff_waits_for_full_cgroup);
	suite_add_tcase(s, tc);
	tc = tcase_create("signal");
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_swapoff_retries_after_signal);
	suite_add_tcase(s, tc);
	tc = tcase_create("another-swapoff");
	tcase_add_unchecked_fixture(tc, fixture_setup, fixture_teardown);
	tcase_set_timeout(tc, 120);
	tcase_add_test(tc, test_swapoff_waits_for_another_swapoff);
	suite_add_tcase(s, tc);
	return s;
}
