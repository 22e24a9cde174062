/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Running a repeat probe: the generic probe child main (setup, ready, then
 * think-sleep/sample/reply per request) and its supervisor-side driver.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/clock.h"
#include "probe/probe.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/*
 * Wire protocol, both directions over pipes (so every message is far below
 * PIPE_BUF and each write is atomic; readers still handle short reads):
 *  child -> supervisor, once: one byte, 0 = ready, else the errno (1..255)
 *	that setup() failed with, after which the child exits 1;
 *  supervisor -> child, per sample: int64_t think_ns (>= 0);
 *  child -> supervisor, per sample: struct probe_reply.
 * The child exits 0 after teardown() when the request pipe reaches EOF.
 */
struct probe_reply {
	int64_t value_ns;
	int32_t err; /* 0, or the positive errno sample() returned */
	int32_t pad; /* explicit, so the whole struct is defined bytes */
};

struct ul_running_probe {
	const struct ul_probe *probe;
	struct ul_probe_ctx ctx; /* the child's copy; strings stay the caller's */
	struct ul_child child;	 /* registered with the supervisor until reaped */
	int req_fd;		 /* write end of the request pipe, -1 once closed */
	int child_req_fd;	 /* its read end, the child's; open only across ul_spawn() */
	int rep[2];		 /* the result pipe, ul_spawn()'s report pipe: [0] our
				  * end (O_NONBLOCK), [1] the child's */
	bool outstanding;	 /* a request was sent and its reply not yet read */
	bool dead;		 /* the result pipe hit EOF: the child is gone */
	size_t got;		 /* bytes of the current reply read so far */
	union {
		struct probe_reply r;
		unsigned char b[sizeof(struct probe_reply)];
	} reply;
};

/* --- the probe child --- */

/* Relative monotonic sleep; a signal restarts it for the remaining time. */
static void think(int64_t ns)
{
	struct timespec req = ul_ns_to_ts(ns), rem;

	while (clock_nanosleep(CLOCK_MONOTONIC, 0, &req, &rem) == EINTR)
		req = rem;
}

static int probe_child_main(void *arg)
{
	struct ul_running_probe *rp = arg; /* our copy of the parent's memory */
	const struct ul_probe *probe = rp->probe;
	/* Both close-on-exec: whatever sample() execs does not hold them. */
	int req = rp->child_req_fd, rep = rp->rep[1];
	void *state = NULL;
	unsigned char ready = 0;
	int rc = 0;

	if (probe->setup)
		rc = probe->setup(&rp->ctx, &state);
	if (rc) {
		rc = rc < 0 ? -rc : rc;
		ready = (unsigned char)(rc > 255 ? 255 : rc);
		(void)ul_write_full(rep, &ready, 1);
		return 1;
	}
	if (ul_write_full(rep, &ready, 1))
		return 1;

	for (;;) {
		struct probe_reply reply = { 0 };
		int64_t think_ns;

		rc = ul_read_full(req, &think_ns, sizeof(think_ns));
		if (rc == -EPIPE) {
			rc = 0; /* end of file: the normal stop */
			break;
		}
		if (rc)
			break; /* an error ends us too, with exit status 1 */
		if (think_ns > 0)
			think(think_ns);
		reply.err = probe->sample(&rp->ctx, state, &reply.value_ns);
		if (reply.err < 0)
			reply.err = -reply.err;
		if (ul_write_full(rep, &reply, sizeof(reply))) {
			rc = -EPIPE;
			break;
		}
	}
	if (probe->teardown)
		probe->teardown(&rp->ctx, state);
	return rc < 0 ? 1 : 0;
}

/* --- supervisor side --- */

static void close_fd(int *fd)
{
	if (*fd >= 0) {
		close(*fd);
		*fd = -1;
	}
}

static void free_rp(struct ul_running_probe *rp)
{
	close_fd(&rp->req_fd);
	close_fd(&rp->child_req_fd);
	close_fd(&rp->rep[0]);
	close_fd(&rp->rep[1]);
	free(rp);
}

/*
 * Read what is available of the reply (the fd is non-blocking).  1 when it
 * is complete, 0 when more is to come, -ECHILD on EOF, -errno on error.
 */
static int read_reply(struct ul_running_probe *rp)
{
	while (rp->got < sizeof(rp->reply)) {
		ssize_t n = read(rp->rep[0], rp->reply.b + rp->got, sizeof(rp->reply) - rp->got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			if (errno == EAGAIN)
				return 0;
			return -errno;
		}
		if (n == 0) {
			rp->dead = true;
			return -ECHILD;
		}
		rp->got += (size_t)n;
	}
	rp->got = 0;
	rp->outstanding = false;
	return 1;
}

/*
 * Write the request without being killed by SIGPIPE if the child is gone:
 * block SIGPIPE around the write and consume the one it raised, unless one
 * was already pending (then it is not ours to take).
 */
static int send_request(int fd, int64_t think_ns)
{
	sigset_t pipe_set, old, pending;
	bool was_pending;
	int rc;

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigpending(&pending);
	was_pending = sigismember(&pending, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	rc = ul_write_full(fd, &think_ns, sizeof(think_ns));
	if (rc == -EPIPE && !was_pending) {
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipe_set, NULL, &zero) < 0 && errno == EINTR)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	return rc;
}

/*
 * Stop and reap the child of a probe that never became ready, and free rp.
 * If even SIGKILL did not get it reaped the child record must outlive us
 * (the supervisor still points at it), so rp is deliberately leaked.
 */
static void abort_start(struct ul_sup *sup, struct ul_running_probe *rp)
{
	ul_nsec grace = ul_sup_aborting(sup) ? 0 : UL_NS_PER_SEC / 2;

	close_fd(&rp->req_fd);
	if (!rp->child.reaped && ul_sup_stop(sup, &rp->child, grace) == -ETIME) {
		close_fd(&rp->rep[0]);
		return;
	}
	free_rp(rp);
}

/* Can `probe` be started (a repeat probe, supported here, a timeout
 * given)?  0, or -errno with the reason in `why`. */
static int probe_startable(const struct ul_probe *probe, int64_t ready_timeout_ns, char *why,
			   size_t len)
{
	char reason[160] = "";
	int rc;

	if (probe->kind != UL_PROBE_REPEAT || !probe->sample) {
		snprintf(why, len, "probe '%s' is not a repeat probe", probe->name);
		return -EINVAL;
	}
	if (ready_timeout_ns <= 0) {
		snprintf(why, len, "probe '%s': no ready timeout given", probe->name);
		return -EINVAL;
	}
	rc = probe->supported ? probe->supported(reason, sizeof(reason)) : 0;
	if (rc) {
		snprintf(why, len, "probe '%s' cannot run here: %s", probe->name, reason);
		return rc < 0 ? rc : -rc;
	}
	return 0;
}

/*
 * Fill the new (zeroed) rp, make its request pipe and spawn its child with
 * the result pipe as ul_spawn()'s report pipe; afterwards only the child
 * holds its ends, so EOF means what it says.  0 or -errno (free_rp(rp)
 * then closes what is open).
 */
static int spawn_probe(struct ul_sup *sup, struct ul_running_probe *rp,
		       const struct ul_probe *probe, const struct ul_probe_ctx *ctx)
{
	struct ul_spawn_opts so = { .name = probe->name, .fn = probe_child_main, .arg = rp };
	int req[2], rc;

	rp->probe = probe;
	rp->ctx = *ctx;
	rp->req_fd = rp->child_req_fd = rp->rep[0] = rp->rep[1] = -1;
	rp->child.pidfd = -1;
	if (pipe2(req, O_CLOEXEC))
		return -errno;
	rp->child_req_fd = req[0];
	rp->req_fd = req[1];
	so.keep_fds[0] = rp->child_req_fd;
	so.n_keep_fds = 1;
	so.report_pipe = rp->rep;
	so.cgroup_procs = ctx->cgroup_procs;
	rc = ul_spawn(sup, &so, &rp->child);
	if (!rc)
		close_fd(&rp->child_req_fd);
	return rc;
}

int ul_probe_start(struct ul_sup *sup, const struct ul_probe *probe, const struct ul_probe_ctx *ctx,
		   int64_t ready_timeout_ns, struct ul_running_probe **out, char *why, size_t len)
{
	struct ul_running_probe *rp;
	unsigned char ready;
	char what[96];
	int rc;

	*out = NULL;
	rc = probe_startable(probe, ready_timeout_ns, why, len);
	if (rc)
		return rc;
	rp = calloc(1, sizeof(*rp));
	if (!rp) {
		snprintf(why, len, "probe '%s': %s", probe->name, strerror(ENOMEM));
		return -ENOMEM;
	}
	rc = spawn_probe(sup, rp, probe, ctx);
	if (rc) {
		snprintf(why, len, "probe '%s': cannot start: %s", probe->name, strerror(-rc));
		free_rp(rp);
		return rc;
	}

	rc = ul_spawn_wait_ready(sup, &rp->child, rp->rep[0], ul_now_ns() + ready_timeout_ns,
				 &ready);
	if (!rc && ready == 0) {
		*out = rp;
		return 0;
	}
	if (!rc) {
		snprintf(why, len, "probe '%s': setup failed: %s", probe->name, strerror(ready));
		rc = -(int)ready;
	} else {
		snprintf(what, sizeof(what), "probe '%s'", probe->name);
		rc = ul_spawn_not_ready(sup, &rp->child, rc, what, ready_timeout_ns, why, len);
	}
	abort_start(sup, rp);
	return rc;
}

/*
 * Send a request for a sample after think_ns, or with think_ns < 0 keep
 * waiting for the outstanding one.  0, or the errno ul_probe_measure()
 * fails with: ECHILD (the child is gone), EBUSY (a request is outstanding:
 * its late reply would be taken for the new one's), EINVAL (nothing to
 * keep waiting for) or the write's.
 */
static int begin_request(struct ul_running_probe *rp, int64_t think_ns)
{
	int rc;

	if (think_ns < 0)
		return rp->outstanding ? 0 : EINVAL;
	if (rp->dead || rp->child.reaped)
		return ECHILD;
	if (rp->outstanding)
		return EBUSY;
	rc = send_request(rp->req_fd, think_ns);
	if (rc)
		return rc == -EPIPE ? ECHILD : -rc;
	rp->outstanding = true;
	rp->got = 0;
	return 0;
}

/* A complete reply as the measurement's result. */
static enum ul_measure_result take_reply(const struct ul_running_probe *rp, int64_t *value_ns,
					 int *err)
{
	if (rp->reply.r.err) {
		*err = rp->reply.r.err;
		return UL_MEASURE_FAILED;
	}
	*value_ns = rp->reply.r.value_ns;
	return UL_MEASURE_OK;
}

/*
 * Besides the header's contract: deadline 0 means none; *value_ns is set
 * only for UL_MEASURE_OK (0 otherwise); *err is 0 unless FAILED, where it
 * is sample()'s errno, ECHILD (the probe child is gone), EBUSY (a new
 * request while one is outstanding) or EINVAL (think_ns < 0 with nothing
 * outstanding).  After a TIMEOUT the request stays outstanding too.
 */
enum ul_measure_result ul_probe_measure(struct ul_sup *sup, struct ul_running_probe *rp,
					int64_t think_ns, int64_t deadline, int64_t *value_ns,
					int *err, struct ul_child **exited)
{
	*value_ns = 0;
	if (exited)
		*exited = NULL;
	*err = begin_request(rp, think_ns);
	if (*err)
		return UL_MEASURE_FAILED;

	for (;;) {
		struct ul_child *ex = NULL;
		int rc;

		if (rp->dead) {
			*err = ECHILD;
			return UL_MEASURE_FAILED;
		}
		switch (ul_sup_wait(sup, rp->rep[0], deadline, &ex)) {
		case UL_WAIT_READY:
			rc = read_reply(rp);
			if (rc == 0)
				continue;
			if (rc < 0) {
				*err = -rc;
				return UL_MEASURE_FAILED;
			}
			return take_reply(rp, value_ns, err);
		case UL_WAIT_TIMEOUT:
			return UL_MEASURE_TIMEOUT;
		case UL_WAIT_INTERRUPTED:
			return UL_MEASURE_INTERRUPTED;
		case UL_WAIT_CHILD_EXITED:
			if (ex != &rp->child) {
				if (exited)
					*exited = ex;
				return UL_MEASURE_CHILD_EXITED;
			}
			/* Our own child: a reply it wrote before dying is still
			 * in the pipe; otherwise the read ends in EOF. */
			rc = read_reply(rp);
			rp->dead = true;
			if (rc == 1)
				return take_reply(rp, value_ns, err);
			*err = ECHILD;
			return UL_MEASURE_FAILED;
		}
	}
}

struct ul_child *ul_probe_child(struct ul_running_probe *rp)
{
	return &rp->child;
}

/*
 * Returns 0 when the child tore down and exited 0 within the grace period;
 * -ECHILD when it had died, failed or had to be killed (it is reaped all
 * the same); -ETIME when not even SIGKILL got it reaped, in which case its
 * record stays registered and rp is leaked on purpose (see abort_start).
 * Other children exiting meanwhile are left in their own records.
 */
int ul_probe_stop(struct ul_sup *sup, struct ul_running_probe *rp, int64_t grace_ns)
{
	ul_nsec deadline = ul_now_ns() + (grace_ns > 0 ? grace_ns : 0);
	int rc = 0;

	/* EOF on its request pipe asks the child to tear down and exit 0. */
	close_fd(&rp->req_fd);
	while (!rp->child.reaped && grace_ns > 0 && !ul_sup_aborting(sup)) {
		struct ul_child *ex = NULL;
		enum ul_wait_result w = ul_sup_wait(sup, -1, deadline, &ex);

		if (w == UL_WAIT_TIMEOUT)
			break;
		/* Another child exiting is recorded in its own ul_child (reaped,
		 * wstatus) for its owner; an interrupt only shortens the grace
		 * once it is the second one (ul_sup_aborting). */
	}
	if (!rp->child.reaped) {
		rc = ul_sup_stop(sup, &rp->child, 0);
		if (rc == -ETIME) {
			/* Still registered: the record must stay valid, so rp
			 * is leaked on purpose (ul_sup_fini reaps it later). */
			close_fd(&rp->rep[0]);
			return rc;
		}
		if (!rc)
			rc = -ECHILD; /* it did not finish on its own */
	} else if (!WIFEXITED(rp->child.wstatus) || WEXITSTATUS(rp->child.wstatus)) {
		rc = -ECHILD;
	}
	free_rp(rp);
	return rc;
}
