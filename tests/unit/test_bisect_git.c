/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * bisect --git's tree and builds (src/cmd/bisect_git.c, bisect_exec.c) on
 * a four-commit git tree made here, with a fake build command: the range
 * is the good commit and good..bad oldest first, named by short hash;
 * bad ranges are usage errors; a commit that builds yields its image and
 * --append-file's words, one whose build fails is unbuildable with the
 * build's status, and neither is built twice; the work directory goes
 * with ul_bisect_git_finish() and leaves no journal.  ul_bisect_exec()
 * runs a program in its directory with its environment and output.
 */
#include "unit.h"
#include "cmd/bisect.h"
#include "cmd/cmd.h"

#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char repo[256], jdir[256];

/* sh -c cmd, which must succeed. */
static void sh(const char *cmd)
{
	int rc = system(cmd);

	ck_assert_msg(rc == 0, "'%s': status %d", cmd, rc);
}

/* Commit N's file "n" holds N; commit 3's build fails. */
static void setup(void)
{
	char cmd[1024];

	ul_unit_dir_make("bisect-git");
	ul_unit_path(jdir, sizeof(jdir), "journal");
	ck_assert_int_eq(mkdir(jdir, 0700), 0);
	setenv("UL_JOURNAL_DIR", jdir, 1);
	ul_unit_path(repo, sizeof(repo), "repo");
	snprintf(cmd, sizeof(cmd),
		 "set -e; git init -q '%s'; cd '%s'; for i in 1 2 3 4; do echo $i >n; git add n; "
		 "git -c user.name=t -c user.email=t@t commit -q -m \"commit $i\"; done",
		 repo, repo);
	sh(cmd);
}

static void teardown(void)
{
	unsetenv("UL_JOURNAL_DIR");
	ul_unit_dir_remove();
}

/* The arguments of `bisect --git repo --good good --bad bad`. */
static void args_of(struct ul_bisect_args *a, const char *good, const char *bad)
{
	memset(a, 0, sizeof(*a));
	a->kernels = a->list;
	a->name = "bisect";
	a->git_dir = repo;
	a->good = good;
	a->bad = bad;
}

/* `git rev-parse rev` in the repo into out[41]. */
static void rev_parse(const char *rev, char out[41])
{
	char cmd[PATH_MAX + 64];
	FILE *p;

	snprintf(cmd, sizeof(cmd), "git -C '%s' rev-parse '%s'", repo, rev);
	p = popen(cmd, "r");
	ck_assert_ptr_nonnull(p);
	ck_assert_ptr_nonnull(fgets(out, 41, p));
	pclose(p);
}

START_TEST(test_bisect_git_range)
{
	struct ul_bisect_args a;
	char hash[41];

	args_of(&a, "HEAD~3", "HEAD");
	ck_assert_int_eq(ul_bisect_git_range(&a), 0);
	ck_assert_int_eq(a.n_kernels, 4);
	for (int i = 0; i < 4; i++) {
		char rev[16], subject[16];

		snprintf(rev, sizeof(rev), "HEAD~%d", 3 - i);
		rev_parse(rev, hash);
		ck_assert_str_eq(a.kernels[i].commit, hash);
		ck_assert_int_eq(strlen(a.kernels[i].file), 12);
		ck_assert(!strncmp(a.kernels[i].file, hash, 12));
		snprintf(subject, sizeof(subject), "commit %d", i + 1);
		ck_assert_str_eq(a.kernels[i].subject, subject);
		ck_assert_ptr_null(a.kernels[i].image);
	}
	free(a.kernels);

	args_of(&a, "HEAD", "HEAD~2");
	ck_assert_int_eq(ul_bisect_git_range(&a), UL_EXIT_USAGE); /* good after bad */
	args_of(&a, "HEAD", "HEAD");
	ck_assert_int_eq(ul_bisect_git_range(&a), UL_EXIT_USAGE); /* one commit */
	free(a.kernels != a.list ? a.kernels : NULL);
	args_of(&a, "no-such-rev", "HEAD");
	ck_assert_int_eq(ul_bisect_git_range(&a), UL_EXIT_USAGE);
}
END_TEST

/* The whole of file path (at most 255 bytes) into out. */
static void slurp(const char *path, char *out, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	ck_assert_int_ge(fd, 0);
	n = read(fd, out, len - 1);
	close(fd);
	ck_assert_int_ge(n, 0);
	out[n] = '\0';
}

/* How many files the journal directory holds. */
static int journals(void)
{
	DIR *d = opendir(jdir);
	struct dirent *e;
	int n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

START_TEST(test_bisect_git_build)
{
	static struct ul_bisect_git g;
	struct ul_bisect_args a;
	char build[PATH_MAX * 2], builds[PATH_MAX], buf[256], work[PATH_MAX];

	args_of(&a, "HEAD~3", "HEAD");
	ck_assert_int_eq(ul_bisect_git_range(&a), 0);
	memset(&g, 0, sizeof(g));
	g.journal.fd = -1;
	a.git = &g;
	ul_unit_path(builds, sizeof(builds), "builds");
	/* The fake builder: counts its builds, fails for commit 3. */
	snprintf(build, sizeof(build),
		 "echo \"$UL_BISECT_COMMIT\" >>'%s'; n=$(cat n); [ $n != 3 ] || { echo broken; "
		 "exit 2; }; echo \"image $n\" >img; printf 'ul_n=%%s\\n\\n' $n >cmdline",
		 builds);
	a.build = build;
	a.image = "img";
	a.append_file = "cmdline";

	ck_assert_int_eq(ul_bisect_git_build(&a, &a.kernels[1]), 0);
	ck_assert(!a.kernels[1].unbuildable);
	ck_assert_ptr_nonnull(a.kernels[1].image);
	slurp(a.kernels[1].image, buf, sizeof(buf));
	ck_assert_str_eq(buf, "image 2\n");
	ck_assert_str_eq(a.kernels[1].append, "ul_n=2");
	snprintf(work, sizeof(work), "%s", g.work);
	ck_assert(!strncmp(work, "/var/tmp/underload-", 19));
	ck_assert_int_eq(journals(), 1);

	ck_assert_int_eq(ul_bisect_git_build(&a, &a.kernels[2]), 0);
	ck_assert(a.kernels[2].unbuildable);
	ck_assert_ptr_null(a.kernels[2].image);
	ck_assert_str_eq(a.kernels[2].why, "the build ended with exit status 2");

	/* Neither is built again; the other commits build in the same clone. */
	ck_assert_int_eq(ul_bisect_git_build(&a, &a.kernels[1]), 0);
	ck_assert_int_eq(ul_bisect_git_build(&a, &a.kernels[2]), 0);
	ck_assert_int_eq(ul_bisect_git_build(&a, &a.kernels[0]), 0);
	slurp(a.kernels[0].image, buf, sizeof(buf));
	ck_assert_str_eq(buf, "image 1\n");
	slurp(builds, buf, sizeof(buf));
	ck_assert_int_eq(strlen(buf), 3 * 41);
	ck_assert(!strncmp(buf + 41, a.kernels[2].commit, 40));

	ul_bisect_git_finish(&g);
	ck_assert_int_eq(access(work, F_OK), -1);
	ck_assert_int_eq(journals(), 0);
	free(a.kernels);
}
END_TEST

START_TEST(test_bisect_exec)
{
	char *argv[] = { (char *)"sh", (char *)"-c",
			 (char *)"echo \"$UL_X $(pwd)\"; echo oops >&2; exit 3", NULL };
	const char *env[] = { "UL_X=y", NULL };
	struct ul_bisect_exec x = {
		.what = "test", .argv = argv, .dir = "/", .env = env, .err_too = true
	};
	char out[64] = "";
	int wstatus = 0;

	x.out_fd = memfd_create("out", MFD_CLOEXEC);
	ck_assert_int_ge(x.out_fd, 0);
	ck_assert_int_eq(ul_bisect_exec(&x, &wstatus), 0);
	ck_assert(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 3);
	ck_assert_int_gt(pread(x.out_fd, out, sizeof(out) - 1, 0), 0);
	ck_assert_str_eq(out, "y /\noops\n");
	close(x.out_fd);
	ck_assert_ptr_null(getenv("UL_X")); /* the child's, not ours */
}
END_TEST

Suite *ul_test_suite_bisect_git(void)
{
	Suite *s = suite_create("bisect_git");
	TCase *tc = tcase_create("bisect_git");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 60);
	tcase_add_test(tc, test_bisect_git_range);
	tcase_add_test(tc, test_bisect_git_build);
	tcase_add_test(tc, test_bisect_exec);
	suite_add_tcase(s, tc);
	return s;
}
