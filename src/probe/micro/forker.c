/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LMbench's process creation (lat_proc): fork, fork+execve and fork +
 * /bin/sh -c from a small process.  The probe child is a fork of the
 * supervisor (its heap, its mappings), which makes fork dearer; so these
 * probes exec a fresh copy of this program in a hidden mode,
 * `underload __micro-forker HOW FD BATCHES MIN_BATCH_NS`, with an empty
 * environment.  It times the loop with the harness and writes its records
 * to FD:
 *  - fork: fork, the child _exit(0)s, waitpid;
 *  - exec: fork, the child execve()s /bin/true (libc only, as lmbench's
 *    "hello") with argv {"/bin/true"} and an empty environment, waitpid;
 *  - sh: the same through /bin/sh -c /bin/true.
 * Metrics: "forker_vm_kib" (its VmSize), "forker_maps" (lines of its
 * /proc/self/maps) and "target_env_n" (entries of the environment it
 * passes on: 0) say which process forked and what the target got.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/file.h"
#include "core/parse.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define FORKER_MODE "__micro-forker"

extern char **environ;

/* The modes, in enum ul_micro_proc_how's order. */
static const char *const forker_hows[] = { "fork", "exec", "sh" };

/* VmSize in KiB and the number of mappings of this process. */
static void self_size(double *vm_kib, double *maps)
{
	char line[512];
	FILE *f = fopen("/proc/self/status", "re");
	long kib = 0, n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		n += strchr(line, '\n') != NULL;
	if (f)
		fclose(f);
	*vm_kib = (double)kib;
	*maps = (double)n;
}

static int forker_measure(enum ul_micro_proc_how how, int batches, int64_t min_batch_ns,
			  struct ul_micro_out *out)
{
	struct ul_micro_env env = { .mh = { .min_batch_ns = min_batch_ns, .batches = batches } };
	double vm, maps, env_n = 0;
	int rc;

	self_size(&vm, &maps);
	for (char **e = environ; e && *e; e++)
		env_n++;
	rc = ul_micro_simple(&env, out, ul_micro_proc_batch, &how, 1, 0);
	if (!rc)
		rc = ul_micro_put_metric(out, "forker_vm_kib", vm);
	if (!rc)
		rc = ul_micro_put_metric(out, "forker_maps", maps);
	if (!rc)
		rc = ul_micro_put_metric(out, "target_env_n", env_n);
	return rc;
}

int ul_micro_forker_main(int argc, char **argv)
{
	struct ul_micro_out *out;
	int64_t fd, batches, min_batch;
	int32_t head[2] = { EINVAL, 0 };
	int how = -1, rc;

	for (int i = 0; argc == 6 && i < (int)UL_ARRAY_SIZE(forker_hows); i++)
		if (!strcmp(argv[2], forker_hows[i]))
			how = i;
	if (how < 0 || ul_parse_count(argv[3], 0, 1 << 20, &fd) ||
	    ul_parse_count(argv[4], 1, UL_MH_MAX_BATCHES, &batches) ||
	    ul_parse_count(argv[5], 1, INT64_MAX / 2, &min_batch))
		return 2;
	out = calloc(1, sizeof(*out));
	if (out)
		head[0] =
			-forker_measure((enum ul_micro_proc_how)how, (int)batches, min_batch, out);
	else
		head[0] = ENOMEM;
	head[1] = head[0] ? 0 : (int32_t)out->n;
	rc = ul_write_full((int)fd, head, sizeof(head)) ||
	     (head[1] && ul_write_full((int)fd, out->rec, (size_t)head[1] * sizeof(out->rec[0])));
	free(out);
	return rc ? 1 : 0;
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
	char fd_s[16], batches_s[16], min_s[32];
	char *argv[] = { (char *)"underload",
			 (char *)FORKER_MODE,
			 (char *)forker_hows[how],
			 fd_s,
			 batches_s,
			 min_s,
			 NULL };
	char *const no_env[] = { NULL };
	int p[2], status, rc;
	pid_t pid;

	if (!env->self_exe)
		return -ENOEXEC;
	if (pipe2(p, O_CLOEXEC))
		return -errno;
	snprintf(fd_s, sizeof(fd_s), "%d", p[1]);
	snprintf(batches_s, sizeof(batches_s), "%d", env->mh.batches);
	snprintf(min_s, sizeof(min_s), "%lld", (long long)env->mh.min_batch_ns);
	pid = ul_micro_fork(-1);
	if (pid == 0) {
		/* The write end crosses the exec; the read end does not. */
		if (fcntl(p[1], F_SETFD, 0) == 0)
			execve(env->self_exe, argv, no_env);
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
	     "LMbench's fork: from a small fresh process, child _exit(0), waitpid", bench_lm_fork);
UL_MICRO_LAT(lm_exec, "lm-exec", "proc",
	     "LMbench's exec: a small process forks, child execs /bin/true, empty environment",
	     bench_lm_exec);
UL_MICRO_LAT(lm_sh, "lm-sh", "proc",
	     "LMbench's sh: a small process forks, child runs /bin/sh -c /bin/true, empty env",
	     bench_lm_sh);
