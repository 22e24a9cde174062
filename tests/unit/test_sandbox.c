/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the memory sandbox: cgroup limits, kills and OOM counts,
 * swap files, and the journal that lets `underload cleanup` undo a kill -9.
 *
 * Every change a test makes is journalled in a per-test directory, and an
 * unchecked teardown (run by the runner after the forked test has died,
 * whether it passed or not) undoes it with ul_changes_cleanup() and then
 * sweeps by name with plain syscalls, so nothing is left behind even when
 * the code under test is wrong.  Tests needing root, a memory cgroup
 * controller or swap are only added where the facility exists; otherwise
 * "skip: ..." says why.
 */
#include "unit.h"
#include "proc/cgroup/cgroup.h"
#include "proc/changes.h"
#include "proc/cgroup/guard.h"
#include "proc/journal.h"
#include "proc/scratch.h"
#include "proc/swap.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define LIMIT_BYTES (16 * UL_MiB)
#define SWAP_BYTES (16 * UL_MiB)
#define CHILD_WAIT_S 30

/* snprintf into an array, failing the test if it does not fit. */
#define PATHF(buf, ...) ck_assert(snprintf(buf, sizeof(buf), __VA_ARGS__) < (int)sizeof(buf))

/* ---- per-test sandbox, owned by the runner process ------------------- */

static char base_dir[PATH_MAX];	   /* /var/tmp/underload-ut-XXXXXX: swap, scratch dirs */
static char journal_dir[PATH_MAX]; /* base_dir/journal: $UL_JOURNAL_DIR */
static char cg_marker[64];	   /* "underload-ut<runner pid>-": our cgroups' names */
static char run_uuid[40];	   /* the killed run's: its cgroup is underload-<uuid8> */
static pid_t runner_pid;

/* A cgroup name for this test run: "ut<runner pid>-<what>". */
static void cg_name(char *out, size_t len, const char *what)
{
	snprintf(out, len, "ut%d-%s", (int)runner_pid, what);
}

static void sandbox_setup(void)
{
	runner_pid = getpid();
	snprintf(cg_marker, sizeof(cg_marker), "underload-ut%d-", (int)runner_pid);
	snprintf(run_uuid, sizeof(run_uuid), "%08x-0000-4000-8000-000000000000",
		 (unsigned)runner_pid ^ 0xa5000000u);
	snprintf(base_dir, sizeof(base_dir), "/var/tmp/underload-ut-XXXXXX");
	if (!mkdtemp(base_dir)) {
		/* No /var/tmp: fall back for the tests that need no swap. */
		snprintf(base_dir, sizeof(base_dir), "/tmp/underload-ut-XXXXXX");
		if (!mkdtemp(base_dir))
			base_dir[0] = '\0';
	}
	if (!base_dir[0] ||
	    snprintf(journal_dir, sizeof(journal_dir), "%s/journal", base_dir) >=
		    (int)sizeof(journal_dir) ||
	    mkdir(journal_dir, 0700) < 0)
		journal_dir[0] = '\0';
	/* Never the real journal directory: without ours, journals fail to open. */
	setenv("UL_JOURNAL_DIR", journal_dir[0] ? journal_dir : "/nonexistent/underload-ut", 1);
}

/* nftw() takes no user pointer; these sweeps run in the runner only. */
static int sweep_cgroup(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	char procs[PATH_MAX], mine[32];
	FILE *f;
	int pid;

	(void)sb;

	snprintf(mine, sizeof(mine), "underload-%.8s", run_uuid);
	if (type != FTW_DP || (strncmp(path + ftw->base, cg_marker, strlen(cg_marker)) &&
			       strcmp(path + ftw->base, mine)))
		return 0;
	snprintf(procs, sizeof(procs), "%s/cgroup.procs", path);
	for (int i = 0; i < 500 && rmdir(path) < 0 && errno == EBUSY; i++) {
		f = fopen(procs, "re");
		if (!f)
			break;
		while (fscanf(f, "%d", &pid) == 1)
			if (pid > 1 && pid != getpid())
				kill(pid, SIGKILL);
		fclose(f);
		usleep(10000);
	}
	fprintf(stderr, "sandbox: teardown swept leftover cgroup %s\n", path);
	return 0;
}

static int sweep_file(const char *path, const struct stat *sb, int type, struct FTW *ftw)
{
	(void)sb;
	if (type == FTW_DP) {
		rmdir(path);
	} else {
		if (!strncmp(path + ftw->base, UL_SWAP_PREFIX, strlen(UL_SWAP_PREFIX)) &&
		    swapoff(path) == 0)
			fprintf(stderr, "sandbox: teardown swept active swap %s\n", path);
		unlink(path);
	}
	return 0;
}

static void sandbox_teardown(void)
{
	int n = 0;

	if (journal_dir[0] && base_dir[0]) {
		int rc = ul_changes_cleanup(journal_dir, NULL, &n);

		if (rc)
			fprintf(stderr, "sandbox: teardown journal cleanup: %s\n", strerror(-rc));
	}
	/* Belt and braces, independent of the code under test. */
	nftw("/sys/fs/cgroup", sweep_cgroup, 16, FTW_PHYS | FTW_DEPTH);
	if (base_dir[0])
		nftw(base_dir, sweep_file, 16, FTW_PHYS | FTW_DEPTH);
	unsetenv("UL_JOURNAL_DIR");
	base_dir[0] = journal_dir[0] = '\0';
}

/* ---- helpers -------------------------------------------------------- */

static bool read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return false;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return false;
	buf[n] = '\0';
	return true;
}

static uint64_t read_u64_file(const char *dir, const char *name)
{
	char p[PATH_MAX], buf[64];

	snprintf(p, sizeof(p), "%s/%s", dir, name);
	ck_assert_msg(read_small(p, buf, sizeof(buf)), "cannot read %s", p);
	return strtoull(buf, NULL, 10);
}

static bool write_str(const char *path, const char *s)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC);
	bool ok;

	if (fd < 0)
		return false;
	ok = write(fd, s, strlen(s)) == (ssize_t)strlen(s);
	close(fd);
	return ok;
}

static bool gone(const char *path)
{
	struct stat st;

	return lstat(path, &st) < 0 && errno == ENOENT;
}

/* The priority /proc/swaps shows for path, or INT_MIN when not listed. */
static int swaps_prio(const char *path)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128], name[PATH_MAX];
	int prio = INT_MIN, p;

	if (!f)
		return INT_MIN;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%4095s %*s %*s %*s %d", name, &p) == 2 && !strcmp(name, path))
			prio = p;
	fclose(f);
	return prio;
}

static bool swap_active(void)
{
	FILE *f = fopen("/proc/swaps", "re");
	char line[PATH_MAX + 128];
	int lines = 0;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		lines++;
	fclose(f);
	return lines > 1;
}

/* Wait for a child with a deadline; SIGKILL it and fail when it is exceeded. */
static int wait_child(pid_t pid)
{
	int status = 0;

	for (int i = 0; i < CHILD_WAIT_S * 100; i++) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			return status;
		ck_assert_msg(r == 0, "waitpid: %s", strerror(errno));
		usleep(10000);
	}
	kill(pid, SIGKILL);
	waitpid(pid, &status, 0);
	ck_abort_msg("child %d did not finish within %d s", (int)pid, CHILD_WAIT_S);
	return status;
}

static int count_journals(void)
{
	DIR *d = opendir(journal_dir);
	int n = 0;

	ck_assert_ptr_nonnull(d);
	for (struct dirent *e; (e = readdir(d));)
		n += strstr(e->d_name, ".journal") != NULL;
	closedir(d);
	return n;
}

static void open_journal(struct ul_journal *j)
{
	int rc = ul_journal_open(j);

	ck_assert_msg(rc == 0, "ul_journal_open: %s", strerror(-rc));
}

/* ---- cgroup --------------------------------------------------------- */

START_TEST(test_cgroup_limit_kill_destroy)
{
	struct ul_journal j;
	struct ul_cgroup cg;
	struct ul_cgroup_stats st;
	char name[64], why[256], buf[64], want[PATH_MAX], self[PATH_MAX];
	pid_t child;
	int rc, status;

	open_journal(&j);
	cg_name(name, sizeof(name), "limit");
	rc = ul_change_cgroup_create(&j, name, LIMIT_BYTES, UINT64_MAX, &cg, why, sizeof(why));
	ck_assert_msg(rc == 0, "create: %s: %s", strerror(-rc), why);
	ck_assert(cg.version == 1 || cg.version == 2);
	ck_assert_ptr_nonnull(strstr(cg.path, "/underload-ut"));
	PATHF(want, "%s/cgroup.procs", cg.path);
	ck_assert_str_eq(cg.procs, want);
	ck_assert_uint_eq(cg.limit_bytes, LIMIT_BYTES);
	if (cg.version == 2) {
		/* Throttle and reclaim at the limit, kill only well above it. */
		ck_assert_uint_eq(read_u64_file(cg.path, "memory.high"), LIMIT_BYTES);
		ck_assert_uint_eq(read_u64_file(cg.path, "memory.max"),
				  LIMIT_BYTES + UL_CGROUP_V2_HEADROOM(LIMIT_BYTES));
		ck_assert_uint_eq(cg.max_bytes, read_u64_file(cg.path, "memory.max"));
		ck_assert(!cg.oom_guarded);
	} else {
		char oom[256];

		PATHF(want, "%s/memory.oom_control", cg.path);
		ck_assert(read_small(want, oom, sizeof(oom)));
		ck_assert_msg(strstr(oom, "oom_kill_disable 1"), "%s", oom);
		ck_assert_uint_eq(read_u64_file(cg.path, "memory.limit_in_bytes"), LIMIT_BYTES);
		ck_assert_uint_eq(cg.max_bytes, LIMIT_BYTES);
		ck_assert(cg.oom_guarded);
	}
	ck_assert(!cg.swap_limited);
	/* The same name twice is refused, with a hint. */
	{
		struct ul_cgroup again;

		rc = ul_cgroup_create(name, LIMIT_BYTES, UINT64_MAX, &again, why, sizeof(why));
		ck_assert_int_eq(rc, -EEXIST);
		ck_assert_ptr_nonnull(strstr(why, "cleanup"));
	}

	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		for (;;)
			pause();
	}
	snprintf(buf, sizeof(buf), "%d", (int)child);
	ck_assert(write_str(cg.procs, buf));
	snprintf(self, sizeof(self), "/proc/%d/cgroup", (int)child);
	{
		char text[4096];

		ck_assert(read_small(self, text, sizeof(text)));
		ck_assert_msg(strstr(text, name), "child not in %s: %s", name, text);
	}
	ck_assert_int_eq(ul_cgroup_read(&cg, &st), 0);
	ck_assert(st.have & UL_CG_HAVE_CURRENT);
	ck_assert(st.have & UL_CG_HAVE_OOM_KILL);
	ck_assert_uint_eq(st.oom_kill, 0);

	PATHF(want, "%s", cg.path);
	ck_assert_int_eq(ul_cgroup_destroy(&cg), 0);
	status = wait_child(child);
	ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
	ck_assert_msg(gone(want), "%s still exists", want);
	ck_assert_str_eq(cg.path, "");
	ck_assert_int_eq(ul_cgroup_destroy(&cg), 0); /* idempotent */
	ck_assert_int_eq(ul_cgroup_destroy_path(want), 0);
	ck_assert_int_eq(ul_journal_done(&j, "cgroup", want), 0);
	ul_journal_finish(&j);
	ck_assert_int_eq(count_journals(), 0);
}
END_TEST

START_TEST(test_cgroup_swap_limit)
{
	struct ul_journal j;
	struct ul_cgroup cg;
	char name[64], why[256], want[PATH_MAX];
	int rc;

	open_journal(&j);
	cg_name(name, sizeof(name), "swaplim");
	rc = ul_change_cgroup_create(&j, name, LIMIT_BYTES, 8 * UL_MiB, &cg, why, sizeof(why));
	ck_assert_msg(rc == 0, "create: %s: %s", strerror(-rc), why);
	ck_assert(cg.swap_limited);
	if (cg.version == 2)
		ck_assert_uint_eq(read_u64_file(cg.path, "memory.swap.max"), 8 * UL_MiB);
	else
		ck_assert_uint_eq(read_u64_file(cg.path, "memory.memsw.limit_in_bytes"),
				  LIMIT_BYTES + 8 * UL_MiB);
	if (cg.version == 1)
		ck_assert_uint_eq(cg.memsw_bytes, LIMIT_BYTES + 8 * UL_MiB);
	PATHF(want, "%s", cg.path);
	/* Undo through the journal, as the engine does. */
	ck_assert_int_eq(ul_change_undo(&j, "cgroup", want), 0);
	ck_assert(gone(want));
	ul_journal_finish(&j);
	ck_assert_int_eq(count_journals(), 0);
}
END_TEST

START_TEST(test_cgroup_refusals)
{
	struct ul_cgroup cg;
	char why[256], p[PATH_MAX];

	ck_assert_int_eq(ul_cgroup_create("", 0, UINT64_MAX, &cg, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(ul_cgroup_create("a/b", 0, UINT64_MAX, &cg, why, sizeof(why)), -EINVAL);
	ck_assert_int_eq(ul_cgroup_create("..", 0, UINT64_MAX, &cg, why, sizeof(why)), -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "bad cgroup name"));
	/* destroy_path only removes our own cgroups. */
	ck_assert_int_eq(ul_cgroup_destroy_path("/sys/fs/cgroup/memory"), -EINVAL);
	ck_assert_int_eq(ul_cgroup_destroy_path("relative/underload-x"), -EINVAL);
	PATHF(p, "%s/underload-notacgroup", base_dir);
	ck_assert_int_eq(mkdir(p, 0700), 0);
	ck_assert_int_eq(ul_cgroup_destroy_path(p), -EINVAL);
	ck_assert(!gone(p));
	ck_assert_int_eq(rmdir(p), 0);
	/* Missing: nothing to do. */
	ck_assert_int_eq(ul_cgroup_destroy_path(p), 0);
}
END_TEST

static bool under_oom(const struct ul_cgroup *cg)
{
	char buf[256];

	return ul_cgroup_ctl_read(cg, "memory.oom_control", buf, sizeof(buf)) > 0 &&
	       strstr(buf, "under_oom 1");
}

/*
 * v1 without the OOM killer: the child (more than limit + swap) must wait
 * at the limit, not die; the guard nudges it while the grace runs, and
 * after the grace enables the killer, which kills it; once nobody waits
 * the killer is disabled again.  The guard's clock is faked past the grace.
 */
static int guard_until_rescued(const struct ul_cgroup *cg, pid_t child)
{
	struct ul_cgroup_guard g;
	ul_nsec t = ul_now_ns(), deadline = t + CHILD_WAIT_S * UL_NS_PER_SEC;
	char oom[256];
	int status;

	ul_cgroup_guard_init(&g);
	while (!under_oom(cg)) {
		ck_assert_msg(ul_now_ns() < deadline, "the child never waited at the limit");
		ck_assert_msg(waitpid(child, &status, WNOHANG) == 0,
			      "the child ended (status 0x%x) instead of waiting at the limit",
			      status);
		usleep(10000);
	}
	/* Within the grace: waiters are woken to retry, nobody is killed. */
	for (int i = 0; i < 5; i++) {
		ck_assert_int_eq(ul_cgroup_guard_step(cg, &g, t), 0);
		t += UL_CGROUP_GUARD_NUDGE_NS;
		usleep(20000);
	}
	ck_assert_uint_ge(g.st.nudges, 1);
	ck_assert_uint_eq(g.st.rescues, 0);
	ck_assert_int_eq(waitpid(child, &status, WNOHANG), 0);
	/* Past the grace: the killer is enabled. */
	while (g.st.rescues == 0) {
		ck_assert_msg(ul_now_ns() < deadline, "no rescue");
		t += UL_CGROUP_GUARD_GRACE_NS;
		ck_assert_int_eq(ul_cgroup_guard_step(cg, &g, t), 0);
		usleep(20000);
	}
	ck_assert_uint_eq(g.st.rescues, 1);
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	/* Nobody waits any more: two clear polls end the stall, the killer is off. */
	for (int i = 0; i < 2; i++) {
		t += UL_CGROUP_GUARD_POLL_NS;
		ck_assert_int_eq(ul_cgroup_guard_step(cg, &g, t), 0);
	}
	ck_assert_uint_eq(g.st.stalls, 1);
	ck_assert_uint_ge(g.st.longest_stall_ns, UL_CGROUP_GUARD_GRACE_NS);
	ck_assert(!g.killer_on);
	ck_assert_int_gt(ul_cgroup_ctl_read(cg, "memory.oom_control", oom, sizeof(oom)), 0);
	ck_assert_msg(strstr(oom, "oom_kill_disable 1"), "%s", oom);
	return status;
}

START_TEST(test_cgroup_oom_kill)
{
	struct ul_journal j;
	struct ul_cgroup cg;
	struct ul_cgroup_stats st;
	char name[64], why[256], want[PATH_MAX];
	pid_t child;
	int rc, status;

	open_journal(&j);
	cg_name(name, sizeof(name), "oom");
	/* No swap for the group, so 64 MiB in 16 MiB must end in an OOM kill. */
	rc = ul_change_cgroup_create(&j, name, LIMIT_BYTES, 0, &cg, why, sizeof(why));
	if (rc == -ENOTSUP && !swap_active())
		rc = ul_change_cgroup_create(&j, name, LIMIT_BYTES, UINT64_MAX, &cg, why,
					     sizeof(why));
	ck_assert_msg(rc == 0, "create: %s: %s", strerror(-rc), why);
	/* v2: above memory.high a task without swap is throttled (seconds per
	 * fault under TCG) before it reaches memory.max; this test is about
	 * the kill at the hard limit, so the throttle is lifted. */
	if (cg.version == 2)
		ck_assert_int_eq(ul_cgroup_ctl_write(&cg, "memory.high", "max"), 0);

	child = fork();
	ck_assert_int_ge(child, 0);
	if (child == 0) {
		/* As ul_spawn() does: join the cgroup first. */
		size_t len = 64 * UL_MiB;
		char *p;

		if (!write_str(cg.procs, "0"))
			_exit(126);
		p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED)
			_exit(125);
		for (size_t off = 0; off < len; off += 4096)
			p[off] = 1;
		_exit(0);
	}
	status = cg.oom_guarded ? guard_until_rescued(&cg, child) : wait_child(child);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "child was not OOM-killed: status 0x%x", status);
	ck_assert_int_eq(ul_cgroup_read(&cg, &st), 0);
	ck_assert(st.have & UL_CG_HAVE_OOM_KILL);
	ck_assert_uint_ge(st.oom_kill, 1);
	ck_assert(st.have & UL_CG_HAVE_PEAK);
	ck_assert_uint_gt(st.peak_bytes, LIMIT_BYTES / 2);
	ck_assert_uint_le(st.peak_bytes, cg.max_bytes);
	ck_assert(st.have & UL_CG_HAVE_LIMIT_HITS);
	/* v1 failcnt stays 0 on some 6.x kernels; v2's "max" event is reliable. */
	if (cg.version == 2)
		ck_assert_uint_ge(st.limit_hits, 1);
	if (st.have & UL_CG_HAVE_OOM)
		ck_assert_uint_ge(st.oom, 1);

	PATHF(want, "%s", cg.path);
	ck_assert_int_eq(ul_cgroup_destroy(&cg), 0);
	ck_assert(gone(want));
	ck_assert_int_eq(ul_journal_done(&j, "cgroup", want), 0);
	ul_journal_finish(&j);
}
END_TEST

/* ---- swap ----------------------------------------------------------- */

START_TEST(test_swap_create_destroy)
{
	struct ul_journal j;
	char path[PATH_MAX], why[256], prefix[PATH_MAX];
	struct stat st;
	int rc;

	open_journal(&j);
	rc = ul_change_swap_create(&j, base_dir, SWAP_BYTES, 7, run_uuid, path, sizeof(path), why,
				   sizeof(why));
	ck_assert_msg(rc == 0, "swap create: %s: %s", strerror(-rc), why);
	PATHF(prefix, "%s/" UL_SWAP_PREFIX, base_dir);
	ck_assert_int_eq(strncmp(path, prefix, strlen(prefix)), 0);
	ck_assert_int_eq(lstat(path, &st), 0);
	ck_assert(S_ISREG(st.st_mode));
	ck_assert_uint_eq(st.st_mode & 0777, 0600);
	ck_assert_uint_eq((uint64_t)st.st_size, SWAP_BYTES);
	ck_assert_uint_ge((uint64_t)st.st_blocks * 512, SWAP_BYTES); /* no holes */
	ck_assert_int_eq(swaps_prio(path), 7);

	ck_assert_int_eq(ul_swap_destroy(path), 0);
	ck_assert_int_eq(swaps_prio(path), INT_MIN);
	ck_assert(gone(path));
	ck_assert_int_eq(ul_swap_destroy(path), 0); /* idempotent */
	ck_assert_int_eq(ul_journal_done(&j, "swap", path), 0);
	ul_journal_finish(&j);
	ck_assert_int_eq(count_journals(), 0);
}
END_TEST

static bool no_swap_file_in(const char *dir)
{
	DIR *d = opendir(dir);
	bool none = true;

	if (!d)
		return true;
	for (struct dirent *e; (e = readdir(d));)
		if (!strncmp(e->d_name, UL_SWAP_PREFIX, strlen(UL_SWAP_PREFIX)))
			none = false;
	closedir(d);
	return none;
}

START_TEST(test_swap_refused_tmpfs)
{
	char path[PATH_MAX] = "x", why[256] = "";
	int rc;

	rc = ul_swap_create("/dev/shm", SWAP_BYTES, -1, run_uuid, path, sizeof(path), why,
			    sizeof(why));
	ck_assert_int_eq(rc, -EOPNOTSUPP);
	ck_assert_msg(strstr(why, "tmpfs"), "reason: %s", why);
	ck_assert_str_eq(path, "");
	ck_assert(no_swap_file_in("/dev/shm"));
}
END_TEST

START_TEST(test_swap_refused_size)
{
	char path[PATH_MAX], why[256];
	struct statfs sfs;
	uint64_t avail;

	ck_assert_int_eq(ul_swap_create(base_dir, 4096, -1, run_uuid, path, sizeof(path), why,
					sizeof(why)),
			 -EINVAL);
	ck_assert_ptr_nonnull(strstr(why, "minimum"));
	ck_assert_int_eq(statfs(base_dir, &sfs), 0);
	avail = (uint64_t)sfs.f_bavail * (uint64_t)sfs.f_bsize;
	/* Fits the free space but not the 1 GiB reserve. */
	ck_assert_int_eq(ul_swap_create(base_dir,
					avail > UL_GiB ? avail - UL_GiB / 2 : UL_SWAP_MIN_BYTES, -1,
					run_uuid, path, sizeof(path), why, sizeof(why)),
			 -ENOSPC);
	ck_assert_ptr_nonnull(strstr(why, "reserve"));
	ck_assert(no_swap_file_in(base_dir));
	ck_assert_int_eq(ul_swap_destroy("/etc/passwd"), -EINVAL);
	ck_assert_int_eq(ul_swap_destroy(""), -EINVAL);
}
END_TEST

/* ---- journal -------------------------------------------------------- */

static char *slurp(const char *path)
{
	static char buf[8192];

	ck_assert_msg(read_small(path, buf, sizeof(buf)), "cannot read %s", path);
	return buf;
}

START_TEST(test_journal_add_done_finish)
{
	struct ul_journal j, j2;
	char want[PATH_MAX], other[PATH_MAX], head[64];
	const char *text;
	int n = -1;

	open_journal(&j);
	PATHF(want, "%s/%d.journal", journal_dir, (int)getpid());
	ck_assert_str_eq(j.path, want);
	ck_assert_int_eq(ul_journal_add(&j, "scratch", "/var/tmp/underload-aaa"), 0);
	ck_assert_int_eq(ul_journal_add(&j, "cgroup", "/sys/fs/cgroup/x/underload-b c"), 0);
	ck_assert_int_eq(ul_journal_done(&j, "scratch", "/var/tmp/underload-aaa"), 0);
	ck_assert_int_eq(ul_journal_add(&j, "done", "x"), -EINVAL);
	ck_assert_int_eq(ul_journal_add(&j, "Bad Kind", "x"), -EINVAL);
	ck_assert_int_eq(ul_journal_add(&j, "scratch", "two\nlines"), -EINVAL);
	ck_assert_int_eq(ul_journal_add(&j, "scratch", ""), -EINVAL);

	text = slurp(want);
	snprintf(head, sizeof(head), "underload-journal 1 %d ", (int)getpid());
	ck_assert_int_eq(strncmp(text, head, strlen(head)), 0);
	ck_assert_ptr_nonnull(strstr(text, "\nscratch /var/tmp/underload-aaa\n"
					   "cgroup /sys/fs/cgroup/x/underload-b c\n"
					   "done scratch /var/tmp/underload-aaa\n"));
	ck_assert_ptr_null(strstr(text, "two"));

	/* Its owner lives: not stale, and cleanup leaves it alone. */
	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(ul_changes_cleanup(journal_dir, NULL, &n), 0);
	ck_assert_int_eq(n, 0);

	/* Something is pending: finish keeps the file. */
	ul_journal_finish(&j);
	ul_journal_finish(&j); /* twice is fine */
	ck_assert(!gone(want));
	ck_assert_int_eq(ul_journal_add(&j, "scratch", "/x/underload-y"), -EBADF);
	/* Our pid still runs with the same start time: still not stale. */
	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert_int_eq(ul_changes_cleanup(journal_dir, NULL, &n), 0);
	ck_assert_int_eq(n, 0);
	ck_assert(!gone(want));

	/* A new journal of the same pid leaves the old one for cleanup. */
	open_journal(&j2);
	PATHF(other, "%s/%d.1.journal", journal_dir, (int)getpid());
	ck_assert_str_eq(j2.path, other);
	ck_assert_ptr_nonnull(strstr(slurp(want), "cgroup /sys/fs/cgroup/x/underload-b c\n"));
	ck_assert_int_eq(ul_journal_add(&j2, "swap", "/var/tmp/underload-swap-q"), 0);
	ck_assert_int_eq(ul_journal_done(&j2, "swap", "/var/tmp/underload-swap-q"), 0);
	ul_journal_finish(&j2);
	ck_assert(gone(other));
	ck_assert_int_eq(count_journals(), 1);
	ck_assert_int_eq(unlink(want), 0);
	ck_assert_int_eq(count_journals(), 0);
}
END_TEST

struct report_log {
	int calls;
	char kinds[8][16];
	char args[8][PATH_MAX];
	int rcs[8];
};

static void log_report(void *arg, const char *kind, const char *what, int rc, const char *why,
		       bool retired)
{
	struct report_log *log = arg;

	(void)why;
	(void)retired;
	if (log->calls < 8) {
		snprintf(log->kinds[log->calls], sizeof(log->kinds[0]), "%s", kind);
		snprintf(log->args[log->calls], sizeof(log->args[0]), "%s", what);
		log->rcs[log->calls] = rc;
	}
	log->calls++;
}

static void write_file(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);

	ck_assert_int_ge(fd, 0);
	ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
	close(fd);
}

START_TEST(test_journal_dead_pid_torn_line)
{
	char a[PATH_MAX], b[PATH_MAX], c[PATH_MAX], jpath[PATH_MAX], text[4 * PATH_MAX + 256];
	struct report_log log = { 0 };
	struct ul_changes_hooks hooks = { .report = log_report };
	int n = -1;

	/* 999999999 is above any pid_max: never alive. */
	ck_assert_int_eq(ul_scratch_create(base_dir, a, sizeof(a)), 0);
	ck_assert_int_eq(ul_scratch_create(base_dir, b, sizeof(b)), 0);
	ck_assert_int_eq(ul_scratch_create(base_dir, c, sizeof(c)), 0);
	PATHF(jpath, "%s/999999999.journal", journal_dir);
	/* b was undone already; c's line is torn (no newline): neither is touched. */
	snprintf(text, sizeof(text),
		 "underload-journal 1 999999999 0\n"
		 "scratch %s\n"
		 "scratch %s\n"
		 "garbage-without-space\n"
		 "done scratch %s\n"
		 "scratch %s",
		 a, b, b, c);
	write_file(jpath, text);

	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 1);
	hooks.arg = &log;
	ck_assert_int_eq(ul_changes_cleanup(journal_dir, &hooks, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(log.calls, 1);
	ck_assert_str_eq(log.kinds[0], "scratch");
	ck_assert_str_eq(log.args[0], a);
	ck_assert_int_eq(log.rcs[0], 0);
	ck_assert(gone(a));
	ck_assert(!gone(b));
	ck_assert(!gone(c));
	ck_assert(gone(jpath));
	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 0);

	/* An unknown kind is reported and the journal kept for a newer version;
	 * the undo after that failure is still recorded, after the torn tail
	 * has been cut off. */
	snprintf(text, sizeof(text),
		 "underload-journal 1 999999999 0\n"
		 "scratch %s\n"
		 "future-kind something\n"
		 "scratch /torn/und",
		 b);
	write_file(jpath, text);
	memset(&log, 0, sizeof(log));
	ck_assert_int_eq(ul_changes_cleanup(journal_dir, &hooks, &n), -EOPNOTSUPP);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(log.calls, 2);
	ck_assert_str_eq(log.kinds[0], "future-kind"); /* newest first */
	ck_assert_int_eq(log.rcs[0], -EOPNOTSUPP);
	ck_assert_str_eq(log.args[1], b);
	ck_assert_int_eq(log.rcs[1], 0);
	ck_assert(gone(b));
	snprintf(text, sizeof(text),
		 "future-kind something\nfailed future-kind something\ndone scratch %s\n", b);
	ck_assert_ptr_nonnull(strstr(slurp(jpath), text));
	ck_assert_ptr_null(strstr(slurp(jpath), "/torn/"));
	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(unlink(jpath), 0);
	ck_assert_int_eq(ul_scratch_remove(c), 0);
}
END_TEST

/* The store the journal names is gone: nothing to repair. */
static int mark_none(void *arg, const char *store, const char *uuid, char *why, size_t len)
{
	(void)arg;
	(void)store;
	(void)uuid;
	(void)why;
	(void)len;
	return -ENOENT;
}

/*
 * A run killed with SIGKILL after making a scratch dir, a cgroup with a
 * process in it and an active swap file: cleanup undoes all three, newest
 * first, and removes the journal.
 */
START_TEST(test_journal_cleanup_killed_run)
{
	struct report_log log = { 0 };
	struct ul_changes_hooks hooks = { .mark_interrupted = mark_none,
					  .report = log_report,
					  .arg = &log };
	char paths[3][PATH_MAX];
	int fds[2], n = -1, status;
	pid_t run;

	ck_assert_int_eq(pipe(fds), 0);
	run = fork();
	ck_assert_int_ge(run, 0);
	if (run == 0) {
		struct ul_journal j;
		struct ul_cgroup cg;
		char why[256], name[64], out[3][PATH_MAX], pidbuf[32];
		pid_t load;

		close(fds[0]);
		memset(out, 0, sizeof(out));
		if (ul_journal_open(&j) || ul_change_run_begin(&j, run_uuid, "/nonexistent/x.db") ||
		    ul_change_scratch_create(&j, base_dir, out[0], sizeof(out[0]), why,
					     sizeof(why)))
			_exit(2);
		snprintf(name, sizeof(name), "%.8s", run_uuid);
		if (ul_change_cgroup_create(&j, name, LIMIT_BYTES, UINT64_MAX, &cg, why,
					    sizeof(why)))
			_exit(3);
		snprintf(out[1], sizeof(out[1]), "%s", cg.path);
		load = fork();
		if (load == 0) {
			close(j.fd); /* as ul_spawn() closes stray fds */
			for (;;)
				pause();
		}
		snprintf(pidbuf, sizeof(pidbuf), "%d", (int)load);
		if (load < 0 || !write_str(cg.procs, pidbuf))
			_exit(4);
		if (ul_change_swap_create(&j, base_dir, SWAP_BYTES, -1, run_uuid, out[2],
					  sizeof(out[2]), why, sizeof(why)))
			_exit(5);
		if (write(fds[1], out, sizeof(out)) != (ssize_t)sizeof(out))
			_exit(6);
		kill(getpid(), SIGKILL);
		_exit(7);
	}
	close(fds[1]);
	status = wait_child(run);
	ck_assert_msg(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL,
		      "the run failed before its kill: status 0x%x", status);
	ck_assert_int_eq(read(fds[0], paths, sizeof(paths)), (ssize_t)sizeof(paths));
	close(fds[0]);
	ck_assert(!gone(paths[0]));
	ck_assert(!gone(paths[1]));
	ck_assert_int_ne(swaps_prio(paths[2]), INT_MIN);

	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 1);
	ck_assert_int_eq(ul_changes_cleanup(journal_dir, &hooks, &n), 0);
	ck_assert_int_eq(n, 4);
	ck_assert_int_eq(log.calls, 4);
	ck_assert_str_eq(log.kinds[0], "swap");
	ck_assert_str_eq(log.args[0], paths[2]);
	ck_assert_str_eq(log.kinds[1], "cgroup");
	ck_assert_str_eq(log.args[1], paths[1]);
	ck_assert_str_eq(log.kinds[2], "scratch");
	ck_assert_str_eq(log.args[2], paths[0]);
	ck_assert_str_eq(log.kinds[3], "run"); /* the store is gone: nothing to repair */
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(log.rcs[i], 0);
	for (int i = 0; i < 3; i++)
		ck_assert_msg(gone(paths[i]), "%s still exists", paths[i]);
	ck_assert_int_eq(swaps_prio(paths[2]), INT_MIN);
	ck_assert_int_eq(count_journals(), 0);
	ck_assert_int_eq(ul_journal_stale(journal_dir, &n), 0);
	ck_assert_int_eq(n, 0);
}
END_TEST

/* ---- what this machine offers --------------------------------------- */

/* Independent of proc/cgroup/cgroup.c: a cgroup2 mount offering "memory", or a v1
 * mount with it.  NULL if available, else why not. */
static const char *no_memory_cgroup(void)
{
	FILE *f;
	char line[4096];
	const char *why = "no cgroup mount offers the memory controller";

	if (geteuid() != 0)
		return "not root";
	f = fopen("/proc/self/mountinfo", "re");
	if (!f)
		return "no /proc/self/mountinfo";
	while (fgets(line, sizeof(line), f)) {
		char point[PATH_MAX], fstype[64], super[1024], ctl[PATH_MAX + 32], buf[512];
		const char *sep = strstr(line, " - ");

		if (!sep || sscanf(line, "%*s %*s %*s %*s %4095s", point) != 1 ||
		    sscanf(sep + 3, "%63s %*s %1023s", fstype, super) != 2)
			continue;
		if (!strcmp(fstype, "cgroup") && strstr(super, "memory")) {
			why = NULL;
			break;
		}
		snprintf(ctl, sizeof(ctl), "%s/cgroup.controllers", point);
		if (!strcmp(fstype, "cgroup2") && read_small(ctl, buf, sizeof(buf)) &&
		    strstr(buf, "memory")) {
			why = NULL;
			break;
		}
	}
	fclose(f);
	return why;
}

static const char *no_swap_files(void)
{
	char status[4096];
	const char *cap;
	struct statfs sfs;

	if (geteuid() != 0)
		return "not root";
	if (access("/proc/swaps", F_OK))
		return "kernel without swap (no /proc/swaps)";
	if (read_small("/proc/self/status", status, sizeof(status)) &&
	    (cap = strstr(status, "CapEff:")) &&
	    !(strtoull(cap + strlen("CapEff:"), NULL, 16) & (1ULL << 21)))
		return "no CAP_SYS_ADMIN for swapon";
	if (statfs("/var/tmp", &sfs))
		return "no /var/tmp";
	if (sfs.f_type == TMPFS_MAGIC || sfs.f_type == OVERLAYFS_SUPER_MAGIC ||
	    sfs.f_type == BTRFS_SUPER_MAGIC || sfs.f_type == RAMFS_MAGIC)
		return "/var/tmp cannot hold a swap file";
	if ((uint64_t)sfs.f_bavail * (uint64_t)sfs.f_bsize < UL_GiB + 4 * SWAP_BYTES)
		return "/var/tmp has too little free space";
	return NULL;
}

static void skip(const char *test, const char *why)
{
	fprintf(stderr, "skip: sandbox/%s: %s\n", test, why);
}

/* One test per tcase, so the unchecked teardown runs after each. */
static void add(Suite *s, const char *name, const TTest *t, int timeout_s)
{
	TCase *tc = tcase_create(name);

	tcase_add_unchecked_fixture(tc, sandbox_setup, sandbox_teardown);
	tcase_set_timeout(tc, timeout_s);
	tcase_add_test(tc, t);
	suite_add_tcase(s, tc);
}

Suite *ul_test_suite_sandbox(void)
{
	Suite *s = suite_create("sandbox");
	const char *no_cg = no_memory_cgroup(), *no_swap = no_swap_files();
	struct statfs sfs;

	add(s, "journal", test_journal_add_done_finish, 10);
	add(s, "journal-torn", test_journal_dead_pid_torn_line, 10);
	add(s, "swap-size", test_swap_refused_size, 10);
	if (statfs("/dev/shm", &sfs) == 0 && sfs.f_type == TMPFS_MAGIC)
		add(s, "swap-tmpfs", test_swap_refused_tmpfs, 10);
	else
		skip("swap-tmpfs", "/dev/shm is not a tmpfs");
	if (!no_cg) {
		add(s, "cgroup", test_cgroup_limit_kill_destroy, 30);
		add(s, "cgroup-swap", test_cgroup_swap_limit, 30);
		add(s, "cgroup-refusals", test_cgroup_refusals, 10);
		add(s, "cgroup-oom", test_cgroup_oom_kill, 60);
	} else {
		skip("cgroup*", no_cg);
	}
	if (!no_swap)
		add(s, "swap", test_swap_create_destroy, 60);
	else
		skip("swap", no_swap);
	if (!no_cg && !no_swap)
		add(s, "cleanup", test_journal_cleanup_killed_run, 90);
	else
		skip("cleanup", no_cg ? no_cg : no_swap);
	return s;
}
