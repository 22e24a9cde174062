/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The start barrier: a "ready" pipe from child to supervisor and a "go"
 * pipe whose closing releases the child.
 */
#include "proc/barrier.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/*
 * The child's parent when it signalled ready.  A static is enough: the
 * barrier has one child, and each child process has its own copy.
 */
static pid_t barrier_parent;

static void barrier_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

/*
 * Close `fd` only if it still is the other end of the pipe `peer` belongs
 * to.  In a ul_spawn() child the parent's ends were normally closed by the
 * fd cleanup already, and their numbers may since have been reused by the
 * child's own files, which must not be closed by mistake.
 */
static void barrier_close_peer(int *fd, int peer)
{
	struct stat a, b;

	if (*fd >= 0 && peer >= 0 && fstat(*fd, &a) == 0 && fstat(peer, &b) == 0 &&
	    S_ISFIFO(a.st_mode) && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
		close(*fd);
	*fd = -1;
}

int ul_barrier_init(struct ul_barrier *b)
{
	int err;

	b->ready[0] = b->ready[1] = b->go[0] = b->go[1] = -1;
	/* CLOEXEC: an exec'd child keeps them only through keep_fds. */
	if (pipe2(b->ready, O_CLOEXEC) < 0) {
		err = -errno;
		b->ready[0] = b->ready[1] = -1;
		return err;
	}
	if (pipe2(b->go, O_CLOEXEC) < 0) {
		err = -errno;
		b->go[0] = b->go[1] = -1;
		ul_barrier_close(b);
		return err;
	}
	return 0;
}

void ul_barrier_parent_after_fork(struct ul_barrier *b)
{
	barrier_close_fd(&b->ready[1]);
	barrier_close_fd(&b->go[0]);
}

int ul_barrier_child_ready(struct ul_barrier *b)
{
	const char byte = 'r';
	struct timespec zero = { 0, 0 };
	sigset_t pipe_set, old;
	ssize_t n;
	int err = 0;

	barrier_close_peer(&b->ready[0], b->ready[1]);
	barrier_close_peer(&b->go[1], b->go[0]);
	if (b->ready[1] < 0)
		return -EBADF;
	barrier_parent = getppid();

	/*
	 * A supervisor that went away must give -EPIPE, not kill us with
	 * SIGPIPE: block it for the write and consume what the write raised.
	 */
	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	sigprocmask(SIG_BLOCK, &pipe_set, &old);
	do
		n = write(b->ready[1], &byte, 1);
	while (n < 0 && errno == EINTR);
	if (n < 0) {
		err = -errno;
		if (err == -EPIPE && !sigismember(&old, SIGPIPE))
			sigtimedwait(&pipe_set, NULL, &zero);
	}
	sigprocmask(SIG_SETMASK, &old, NULL);

	/* One-shot: not inherited by workers, and EOF follows the byte. */
	barrier_close_fd(&b->ready[1]);
	return err;
}

int ul_barrier_child_wait_go(struct ul_barrier *b)
{
	char buf[16];
	ssize_t n;

	if (b->go[0] < 0)
		return -EBADF;
	/* Bytes are not expected; only EOF (go[1] closed) releases us. */
	for (;;) {
		n = read(b->go[0], buf, sizeof(buf));
		if (n == 0)
			break;
		if (n < 0 && errno != EINTR)
			return -errno;
	}
	barrier_close_fd(&b->go[0]);
	/*
	 * A dead supervisor also closes go[1].  PR_SET_PDEATHSIG has then
	 * normally killed us already; otherwise we have been reparented.
	 */
	return barrier_parent && getppid() != barrier_parent ? -EPIPE : 0;
}

void ul_barrier_release(struct ul_barrier *b)
{
	barrier_close_fd(&b->go[1]);
}

void ul_barrier_close(struct ul_barrier *b)
{
	barrier_close_fd(&b->ready[0]);
	barrier_close_fd(&b->ready[1]);
	barrier_close_fd(&b->go[0]);
	barrier_close_fd(&b->go[1]);
}
