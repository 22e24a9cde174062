/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LMbench's process creation (lat_proc): fork, fork+execve and fork +
 * /bin/sh -c from a small process with a small target.  The probe execs
 * the underload-forker helper (forker_main.c: libc and the harness only)
 * with an empty environment and reads its records back; the helper
 * execs underload-hello (hello.c), LMbench's /tmp/hello.  Both are
 * looked for next to this program (a build tree), then in
 * UL_LIBEXEC_DIR (an installation).
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/selfexe.h"
#include "probe/micro/bench.h"
#include "ul_config.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The helper modes, in enum ul_micro_proc_how's order. */
static const char *const forker_hows[] = { "fork", "exec", "sh" };

/* The path of helper NAME: beside self_exe, else in UL_LIBEXEC_DIR.  A
 * self_exe of UL_SELF_EXE (its file was replaced since the run started)
 * stands for the directory the program was started from. */
static int helper_path(const char *self_exe, const char *name, char *buf, size_t len)
{
	const char *slash = self_exe ? strrchr(self_exe, '/') : NULL;
	char dir[PATH_MAX] = "";

	if (self_exe && !strcmp(self_exe, UL_SELF_EXE)) {
		if (ul_self_dir(dir, sizeof(dir)))
			dir[0] = '\0'; /* then only the installed helpers */
	} else if (slash) {
		snprintf(dir, sizeof(dir), "%.*s", (int)(slash - self_exe), self_exe);
	}
	if (dir[0] && snprintf(buf, len, "%s/%s", dir, name) < (int)len && !access(buf, X_OK))
		return 0;
	if (snprintf(buf, len, "%s/%s", UL_LIBEXEC_DIR, name) < (int)len && !access(buf, X_OK))
		return 0;
	return -ENOENT;
}

/* Read the forker's records from fd until EOF into out; 0 or -errno. */
static int read_records(int fd, struct ul_micro_out *out)
{
	int32_t head[2];
	int rc = ul_read_full(fd, head, sizeof(head));

	if (rc)
		return rc == -EPIPE ? -EPROTO : rc; /* died before reporting */
	if (head[0])
		return -head[0];
	if (head[1] < 0 || (size_t)head[1] + out->n > UL_MICRO_MAX_RECS)
		return -EPROTO;
	rc = ul_read_full(fd, &out->rec[out->n], (size_t)head[1] * sizeof(out->rec[0]));
	if (rc)
		return -EPROTO;
	for (int32_t i = 0; i < head[1]; i++) {
		struct ul_micro_rec *r = &out->rec[out->n + (size_t)i];

		r->name[sizeof(r->name) - 1] = 0;
		if (r->n < 0 || r->n > UL_MH_MAX_BATCHES)
			return -EPROTO;
	}
	out->n += (size_t)head[1];
	return 0;
}

/* Exec the forker with an empty environment, collect its records. */
static int forker_run(const struct ul_micro_env *env, struct ul_micro_out *out,
		      enum ul_micro_proc_how how)
{
	char forker[PATH_MAX], target[PATH_MAX], fd_s[16], batches_s[16], min_s[32];
	char *argv[] = { (char *)"underload-forker",
			 (char *)forker_hows[how],
			 target,
			 fd_s,
			 batches_s,
			 min_s,
			 NULL };
	char *const no_env[] = { NULL };
	int p[2], status, rc;
	pid_t pid;

	if (helper_path(env->self_exe, "underload-forker", forker, sizeof(forker)) ||
	    helper_path(env->self_exe, "underload-hello", target, sizeof(target)))
		return -ENOENT;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	snprintf(fd_s, sizeof(fd_s), "%d", p[1]);
	snprintf(batches_s, sizeof(batches_s), "%d", env->mh.batches);
	snprintf(min_s, sizeof(min_s), "%lld", (long long)env->mh.min_batch_ns);
	pid = ul_micro_fork(-1);
	if (pid == 0) {
		/* The write end crosses the exec; the read end does not. */
		if (fcntl(p[1], F_SETFD, 0) == 0)
			execve(forker, argv, no_env);
		_exit(127);
	}
	close(p[1]);
	rc = pid < 0 ? -errno : read_records(p[0], out);
	close(p[0]);
	while (pid > 0 && waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!rc && pid > 0 && (!WIFEXITED(status) || WEXITSTATUS(status)))
		rc = -ECHILD;
	return rc;
}

static int bench_lm_fork(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return forker_run(env, out, UL_MICRO_FORK);
}

static int bench_lm_exec(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return forker_run(env, out, UL_MICRO_EXEC);
}

static int bench_lm_sh(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return forker_run(env, out, UL_MICRO_SH);
}

UL_MICRO_LAT(lm_fork, "lm-fork", "proc",
	     "LMbench's fork: from the small underload-forker, child exits, waitpid",
	     bench_lm_fork);
UL_MICRO_LAT(lm_exec, "lm-exec", "proc",
	     "LMbench's exec: underload-forker forks, child execs underload-hello, empty env",
	     bench_lm_exec);
UL_MICRO_LAT(lm_sh, "lm-sh", "proc",
	     "LMbench's sh: underload-forker forks, child runs sh -c underload-hello, empty env",
	     bench_lm_sh);
