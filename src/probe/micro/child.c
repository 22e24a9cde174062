/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running one micro benchmark in a supervised probe child: ul_spawn() it
 * (own process group, dies with the supervisor), let it measure, read its
 * records from a pipe.  Every helper process the benchmark forks (ring
 * members, servers) stays in the child's process group, so stopping the
 * child's group (SIGINT, a deadline) leaves nothing behind.
 *
 * Wire: the child writes struct micro_head {err, n} and then n records,
 * then exits 0; the supervisor reads until EOF.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/clock.h"
#include "probe/micro/bench.h"
#include "probe/micro/run.h"
#include "proc/supervise.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct micro_head {
	int32_t err; /* 0 or a positive errno from measure() */
	int32_t n;   /* records that follow */
};

struct micro_wire {
	struct micro_head head;
	struct ul_micro_rec rec[UL_MICRO_MAX_RECS];
};

struct ul_micro_job {
	const struct ul_probe *probe;
	struct ul_micro_env env;
	char scratch[4096];
	struct ul_child child;
	int rep[2]; /* ul_spawn()'s report pipe: [0] ours, non-blocking; [1] the
		     * child's, close-on-exec (lat-exec's execs do not hold it) */
	size_t got;
	struct micro_wire wire; /* the child's copy is its output buffer */
};

static int micro_child_main(void *arg)
{
	struct ul_micro_job *job = arg; /* our copy of the parent's memory */
	struct ul_micro_out *out = calloc(1, sizeof(*out));
	int fd = job->rep[1], rc;

	if (!out)
		return 1;
	rc = job->probe->measure(&job->env, out);
	job->wire.head.err = rc < 0 ? -rc : rc;
	job->wire.head.n = rc ? 0 : (int32_t)out->n;
	memcpy(job->wire.rec, out->rec, out->n * sizeof(out->rec[0]));
	rc = ul_write_full(fd, &job->wire,
			   sizeof(job->wire.head) +
				   (size_t)job->wire.head.n * sizeof(job->wire.rec[0]));
	return rc ? 1 : 0;
}

int ul_micro_job_start(struct ul_sup *sup, const struct ul_probe *probe,
		       const struct ul_micro_env *env, const char *cgroup_procs,
		       struct ul_micro_job **out)
{
	struct ul_micro_job *job;
	struct ul_spawn_opts so = { .name = probe->name, .fn = micro_child_main };
	int rc;

	*out = NULL;
	if (probe->kind != UL_PROBE_MICRO || !probe->measure)
		return -EINVAL;
	job = calloc(1, sizeof(*job));
	if (!job)
		return -ENOMEM;
	job->probe = probe;
	job->env = *env;
	snprintf(job->scratch, sizeof(job->scratch), "%s", env->scratch_dir);
	job->env.scratch_dir = job->scratch;
	job->child.pidfd = -1;
	so.arg = job;
	so.report_pipe = job->rep;
	so.cgroup_procs = cgroup_procs;
	rc = ul_spawn(sup, &so, &job->child);
	if (rc) {
		free(job); /* ul_spawn() closed the pipe */
		return rc;
	}
	*out = job;
	return 0;
}

struct ul_child *ul_micro_job_child(struct ul_micro_job *job)
{
	return &job->child;
}

/* Read what is there; 1 at EOF, 0 for more to come, -errno. */
static int job_read(struct ul_micro_job *job)
{
	char *buf = (char *)&job->wire;

	for (;;) {
		ssize_t n;

		if (job->got >= sizeof(job->wire))
			return -EPROTO;
		n = read(job->rep[0], buf + job->got, sizeof(job->wire) - job->got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			return errno == EAGAIN ? 0 : -errno;
		if (n == 0)
			return 1;
		job->got += (size_t)n;
	}
}

/* The records read, checked against their header. */
static int job_result(struct ul_micro_job *job, struct ul_micro_out *out, int *err)
{
	const struct micro_head *h = &job->wire.head;

	if (job->got < sizeof(*h) || h->n < 0 || h->n > UL_MICRO_MAX_RECS ||
	    job->got != sizeof(*h) + (size_t)h->n * sizeof(job->wire.rec[0])) {
		*err = EPROTO; /* died before or while reporting */
		return UL_MICRO_FAILED;
	}
	if (h->err) {
		*err = h->err;
		return UL_MICRO_FAILED;
	}
	out->n = (size_t)h->n;
	memcpy(out->rec, job->wire.rec, out->n * sizeof(out->rec[0]));
	for (size_t i = 0; i < out->n; i++) {
		struct ul_micro_rec *r = &out->rec[i];

		r->name[sizeof(r->name) - 1] = 0;
		if (r->n < 0 || r->n > UL_MH_MAX_BATCHES) {
			*err = EPROTO;
			return UL_MICRO_FAILED;
		}
	}
	return UL_MICRO_OK;
}

enum ul_micro_wait_result ul_micro_job_wait(struct ul_sup *sup, struct ul_micro_job *job,
					    ul_nsec deadline, struct ul_micro_out *out, int *err,
					    struct ul_child **exited)
{
	*err = 0;
	for (;;) {
		struct ul_child *ex = NULL;
		int rc = job_read(job);

		if (rc < 0) {
			*err = -rc;
			return UL_MICRO_FAILED;
		}
		if (rc == 1)
			return job_result(job, out, err);
		switch (ul_sup_wait(sup, job->rep[0], deadline, &ex)) {
		case UL_WAIT_READY:
			break;
		case UL_WAIT_TIMEOUT:
			return UL_MICRO_TIMEOUT;
		case UL_WAIT_INTERRUPTED:
			return UL_MICRO_INTERRUPTED;
		case UL_WAIT_CHILD_EXITED:
			if (ex == &job->child)
				break; /* its output is still in the pipe: read to EOF */
			*exited = ex;
			return UL_MICRO_CHILD_EXITED;
		}
	}
}

int ul_micro_job_stop(struct ul_sup *sup, struct ul_micro_job *job, ul_nsec grace_ns)
{
	int rc = 0;

	if (!job)
		return 0;
	if (!job->child.reaped)
		rc = ul_sup_stop(sup, &job->child, grace_ns);
	close(job->rep[0]);
	if (rc == -ETIME)
		return rc; /* the supervisor still points at job->child: leak it */
	free(job);
	return rc;
}
