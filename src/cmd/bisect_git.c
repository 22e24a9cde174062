/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload bisect --git DIR --good REV --bad REV --build CMD` (bisect.h):
 * the range is good and the commits of good..bad on bad's first-parent
 * line (git rev-list), oldest first.  A commit is built only when an A/B
 * that needs its kernel is measured (a re-run that finds its steps stored
 * builds nothing): checked out in a clone of DIR (git clone --shared, so
 * DIR itself gains nothing, not even a worktree entry) inside one
 * journalled scratch directory under /var/tmp, the build command run
 * there with UL_BISECT_COMMIT in its environment, and the image it made
 * copied beside the clone, where vm boots it.  The scratch directory goes
 * at the end, on an error or Ctrl-C, and with `underload cleanup` after a
 * kill -9.
 */
#include "core/compat.h"
#include "cmd/bisect.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "proc/changes.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define GIT_WORK_PARENT "/var/tmp"
#define GIT_SHORT_HASH 12
#define BUILD_TAIL_LINES 10

/* An anonymous file for a child's output: fd or -errno. */
static int output_file(void)
{
	int fd = memfd_create("bisect-output", MFD_CLOEXEC);

	return fd < 0 ? -errno : fd;
}

/* The whole of an output file, NUL-ended (malloc'ed), or NULL. */
static char *read_output(int fd)
{
	struct stat st;
	char *buf;
	ssize_t n;

	if (fstat(fd, &st) < 0 || !(buf = malloc((size_t)st.st_size + 1)))
		return NULL;
	n = pread(fd, buf, (size_t)st.st_size, 0);
	if (n < 0) {
		free(buf);
		return NULL;
	}
	buf[n] = '\0';
	return buf;
}

/* `git ARGS...` in dir (NULL: ours), its stdout into *out when out is not
 * NULL (malloc'ed): 0, 1 when git exited non-zero (it said why on
 * stderr), else an exit code after printing why. */
static int git(const char *dir, char **out, char *const *args)
{
	char *argv[16] = { (char *)"git" };
	struct ul_bisect_exec x = { .what = "bisect: git", .argv = argv, .dir = dir, .out_fd = -1 };
	int n = 1, wstatus = 0, rc;

	while (args[n - 1] && n < 15) {
		argv[n] = args[n - 1];
		n++;
	}
	argv[n] = NULL;
	if (out) {
		x.out_fd = output_file();
		if (x.out_fd < 0) {
			ul_error_errno(x.out_fd, "bisect: no file for git's output");
			return UL_EXIT_ERROR;
		}
	}
	rc = ul_bisect_exec(&x, &wstatus);
	if (!rc && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 127)
		rc = UL_EXIT_ERROR; /* it could not run: exec_child said why */
	else if (!rc && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0))
		rc = 1;
	if (out && !rc && !(*out = read_output(x.out_fd))) {
		ul_error("bisect: cannot read git's output");
		rc = UL_EXIT_ERROR;
	}
	if (x.out_fd >= 0)
		close(x.out_fd);
	return rc;
}

/* REV as a commit's full hash into out[41]: 0, or an exit code. */
static int resolve(const struct ul_bisect_args *a, const char *opt, const char *rev, char out[41])
{
	char spec[512], *hash = NULL;
	int rc;

	snprintf(spec, sizeof(spec), "%s^{commit}", rev);
	rc = git(a->git_dir, &hash,
		 (char *[]){ (char *)"rev-parse", (char *)"--verify", (char *)"--quiet",
			     (char *)"--end-of-options", spec, NULL });
	if (!rc && strspn(hash, "0123456789abcdef") != 40)
		rc = 1;
	if (rc == 1)
		rc = ul_usage_error("bisect", "%s '%s': no such commit in %s", opt, rev,
				    a->git_dir);
	if (!rc)
		snprintf(out, 41, "%.40s", hash);
	free(hash);
	return rc;
}

/* Step i of the range: its commit and (after a space) subject, one line. */
static void set_commit(struct ul_bisect_kernel *k, const char *line)
{
	memset(k, 0, sizeof(*k));
	snprintf(k->commit, sizeof(k->commit), "%.40s", line);
	snprintf(k->file, sizeof(k->file), "%.*s", GIT_SHORT_HASH, line);
	if (strlen(line) > 41)
		snprintf(k->subject, sizeof(k->subject), "%.79s", line + 41);
}

int ul_bisect_git_range(struct ul_bisect_args *a)
{
	char good[41] = "", bad[41] = "", range[100];
	char *list = NULL, *more = NULL, *all = NULL;
	size_t n = 0;
	int rc = resolve(a, "--good", a->good, good);

	if (!rc)
		rc = resolve(a, "--bad", a->bad, bad);
	if (!rc)
		rc = git(a->git_dir, NULL,
			 (char *[]){ (char *)"merge-base", (char *)"--is-ancestor", good, bad,
				     NULL });
	if (rc == 1)
		return ul_usage_error("bisect", "--good '%s' is not an ancestor of --bad '%s'",
				      a->good, a->bad);
	/* The good commit's line, then the range's (one output). */
	snprintf(range, sizeof(range), "%s..%s", good, bad);
	if (!rc)
		rc = git(a->git_dir, &list,
			 (char *[]){ (char *)"rev-list", (char *)"--no-walk",
				     (char *)"--no-commit-header", (char *)"--format=%H %s", good,
				     NULL });
	if (!rc)
		rc = git(a->git_dir, &more,
			 (char *[]){ (char *)"rev-list", (char *)"--first-parent",
				     (char *)"--reverse", (char *)"--no-commit-header",
				     (char *)"--format=%H %s", range, NULL });
	if (!rc && !(all = malloc(strlen(list) + strlen(more) + 1))) {
		ul_error("bisect: out of memory for git's output");
		rc = UL_EXIT_ERROR;
	}
	if (!rc) {
		strcpy(all, list);
		strcat(all, more);
	}
	free(list);
	free(more);
	list = all;
	if (rc == 1) {
		ul_error("bisect: git cannot list %s (above)", range);
		rc = UL_EXIT_ERROR;
	}
	if (rc)
		return rc;
	for (const char *p = list; *p; p++)
		n += *p == '\n';
	a->kernels = calloc(n, sizeof(*a->kernels));
	if (!a->kernels) {
		free(list);
		ul_error("bisect: out of memory for %zu commits", n);
		return UL_EXIT_ERROR;
	}
	a->n_kernels = 0;
	for (char *save = NULL, *line = strtok_r(list, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (strspn(line, "0123456789abcdef") == 40 && (size_t)a->n_kernels < n)
			set_commit(&a->kernels[a->n_kernels++], line);
	free(list);
	if (a->n_kernels < 1 || strcmp(a->kernels[0].commit, good)) {
		ul_error("bisect: git said no good commit %s, or no range %s", good, range);
		return UL_EXIT_ERROR;
	}
	if (a->n_kernels < 2)
		return ul_usage_error("bisect", "--good '%s' and --bad '%s' are the same commit",
				      a->good, a->bad);
	if (strcmp(a->kernels[a->n_kernels - 1].commit, bad)) {
		ul_error("bisect: git rev-list %s does not end at --bad", range);
		return UL_EXIT_ERROR;
	}
	return 0;
}

/* The work directory (journalled first) and the clone in it, once. */
static int make_work(const struct ul_bisect_args *a, struct ul_bisect_git *g)
{
	char why[512];
	int rc;

	if (g->work[0])
		return 0;
	rc = ul_journal_open(&g->journal);
	if (rc) {
		ul_error_errno(rc, "bisect: cannot open the journal of system changes");
		return UL_EXIT_ERROR;
	}
	if (ul_change_scratch_create(&g->journal, GIT_WORK_PARENT, g->work, sizeof(g->work), why,
				     sizeof(why))) {
		g->work[0] = '\0';
		ul_error("bisect: %s", why);
		return UL_EXIT_ERROR;
	}
	printf("bisect: working in %s\n", g->work);
	snprintf(g->tree, sizeof(g->tree), "%s/tree", g->work);
	rc = git(NULL, NULL,
		 (char *[]){ (char *)"clone", (char *)"--quiet", (char *)"--shared",
			     (char *)"--no-checkout", (char *)"--", (char *)a->git_dir, g->tree,
			     NULL });
	if (rc == 1) {
		ul_error("bisect: cannot clone %s into %s (above)", a->git_dir, g->tree);
		rc = UL_EXIT_ERROR;
	}
	return rc;
}

/* The build's last lines, each "bisect:   | LINE", on stderr. */
static void show_tail(int fd)
{
	char *log = read_output(fd), *p;
	int lines = 0;

	if (!log)
		return;
	p = log + strlen(log);
	while (p > log && p[-1] == '\n')
		*--p = '\0';
	while (p > log && lines < BUILD_TAIL_LINES)
		lines += *--p == '\n';
	for (char *save = NULL, *line = strtok_r(p, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		fprintf(stderr, "bisect:   | %s\n", line);
	free(log);
}

/* Run the build command in the checked-out tree: 0 (failed or not, in k),
 * or an exit code. */
static int run_build(const struct ul_bisect_args *a, struct ul_bisect_kernel *k)
{
	char commit_env[64];
	const char *env[] = { commit_env, NULL };
	char *argv[] = { (char *)"sh", (char *)"-c", (char *)a->build, NULL };
	struct ul_bisect_exec x = { .what = "bisect: the build",
				    .argv = argv,
				    .dir = a->git->tree,
				    .env = env,
				    .err_too = true,
				    .journal = &a->git->journal };
	char status[96];
	int wstatus = 0, rc;

	snprintf(commit_env, sizeof(commit_env), "UL_BISECT_COMMIT=%s", k->commit);
	x.out_fd = output_file();
	if (x.out_fd < 0) {
		ul_error_errno(x.out_fd, "bisect: no file for the build's output");
		return UL_EXIT_ERROR;
	}
	rc = ul_bisect_exec(&x, &wstatus);
	if (!rc && !(WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == 0)) {
		ul_wstatus_describe(wstatus, status, sizeof(status));
		snprintf(k->why, sizeof(k->why), "the build ended with %s", status);
		k->unbuildable = true;
		fprintf(stderr, "bisect: %s: %s; its last lines:\n", k->file, k->why);
		show_tail(x.out_fd);
	}
	close(x.out_fd);
	return rc;
}

/* tree/rel copied to dst: 0 or -errno (-ENOENT: the build made none). */
static int copy_file(const char *tree, const char *rel, const char *dst)
{
	char src[PATH_MAX * 2];
	char buf[1 << 16];
	int in, out, rc = 0;
	ssize_t n;

	snprintf(src, sizeof(src), "%s/%s", tree, rel);
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (out < 0) {
		rc = -errno;
		close(in);
		return rc;
	}
	while ((n = read(in, buf, sizeof(buf))) > 0)
		if (write(out, buf, (size_t)n) != n) {
			rc = -EIO;
			break;
		}
	if (n < 0)
		rc = -errno;
	close(in);
	if (close(out) < 0 && !rc)
		rc = -errno;
	return rc;
}

/* --append-file's words (its lines joined by spaces) into k, if the tree has it. */
static void read_append(const struct ul_bisect_args *a, struct ul_bisect_kernel *k)
{
	char path[PATH_MAX * 2];
	FILE *f;
	size_t n;

	if (!a->append_file)
		return;
	snprintf(path, sizeof(path), "%s/%s", a->git->tree, a->append_file);
	f = fopen(path, "re");
	if (!f)
		return;
	n = fread(k->append_words, 1, sizeof(k->append_words) - 1, f);
	fclose(f);
	k->append_words[n] = '\0';
	for (char *p = k->append_words; *p; p++)
		if (*p == '\n' || *p == '\t' || *p == '\r')
			*p = ' ';
	while (n && k->append_words[n - 1] == ' ')
		k->append_words[--n] = '\0';
	if (k->append_words[0])
		k->append = k->append_words;
}

int ul_bisect_git_build(const struct ul_bisect_args *a, struct ul_bisect_kernel *k)
{
	struct ul_bisect_git *g = a->git;
	int rc;

	if (k->image || k->unbuildable)
		return 0;
	rc = make_work(a, g);
	if (rc)
		return rc;
	printf("bisect: building %s '%s'\n", k->file, k->subject);
	fflush(stdout);
	rc = git(g->tree, NULL,
		 (char *[]){ (char *)"-c", (char *)"advice.detachedHead=false", (char *)"checkout",
			     (char *)"--quiet", (char *)"--force", (char *)"--detach", k->commit,
			     NULL });
	if (rc == 1) {
		ul_error("bisect: cannot check %s out in %s (above)", k->commit, g->tree);
		rc = UL_EXIT_ERROR;
	}
	if (!rc)
		rc = run_build(a, k);
	if (rc || k->unbuildable)
		return rc;
	snprintf(k->image_path, sizeof(k->image_path), "%s/%s.image", g->work, k->file);
	rc = copy_file(g->tree, a->image, k->image_path);
	if (rc == -ENOENT) {
		snprintf(k->why, sizeof(k->why), "the build made no %s", a->image);
		k->unbuildable = true;
		fprintf(stderr, "bisect: %s: %s\n", k->file, k->why);
		return 0;
	}
	if (rc) {
		ul_error_errno(rc, "bisect: cannot copy %s/%s to %s", g->tree, a->image,
			       k->image_path);
		return UL_EXIT_ERROR;
	}
	k->image = k->image_path;
	read_append(a, k);
	printf("bisect: built %s: %s%s%s\n", k->file, k->image, k->append ? " append=" : "",
	       k->append ? k->append : "");
	return 0;
}

void ul_bisect_git_finish(struct ul_bisect_git *g)
{
	if (g->work[0] && ul_change_undo(&g->journal, "scratch", g->work))
		ul_warning("bisect: cannot remove %s ('underload cleanup' will)", g->work);
	g->work[0] = '\0';
	ul_journal_finish(&g->journal);
}
