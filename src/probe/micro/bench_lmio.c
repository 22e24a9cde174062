/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LMbench's definitions of the select and file reread columns (see
 * bench_lm.c for the others), read from lmbench3's source, never copied:
 *  - lm-select (lat_select -n 100 tcp): one connected loopback TCP socket
 *    dup()ed to 100 descriptors, select() for writing with a zero timeout,
 *    every descriptor ready.  As lat_select, nfds is 100 (not the highest
 *    + 1), so only the dups below descriptor 100 are examined (95 of them
 *    in a plain lat_select; metric "select_fds" says how many here).  The
 *    native lat-select polls 100 listening sockets for reading, none
 *    ready;
 *  - lm-file-rd (bw_file_rd io_only, the "read bandwidth" getsummary takes
 *    for File reread): lseek to 0, read() the whole cached file in 64 KiB
 *    chunks, summing every word of each chunk (bread).  The native
 *    bw-file-rd only copies (pread, data unread).
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/select.h>
#include <sys/socket.h>
#include <unistd.h>

#define LM_SELECT_FDS 100

static volatile uint64_t lmio_sink;

struct lm_select {
	int fd[LM_SELECT_FDS];
	int listener, peer;
	int examined; /* descriptors below nfds = LM_SELECT_FDS: all ready */
};

static int lm_select_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct lm_select *st = arg;
	fd_set all, wr;
	ul_nsec t0;

	FD_ZERO(&all);
	for (int i = 0; i < LM_SELECT_FDS; i++)
		FD_SET(st->fd[i], &all);
	t0 = ul_now_ns();
	for (uint64_t i = 0; i < iters; i++) {
		struct timeval tv = { 0, 0 };

		wr = all;
		if (select(LM_SELECT_FDS, NULL, &wr, NULL, &tv) != st->examined)
			return -EIO;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

/* A loopback connection: st->fd[0] the client end, connected; its peer
 * accepted and kept open (lat_select's server blocks in read()). */
static int lm_select_connect(struct lm_select *st)
{
	struct sockaddr_in sa = { .sin_family = AF_INET,
				  .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(sa);

	st->listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (st->listener < 0 || bind(st->listener, (struct sockaddr *)&sa, sizeof(sa)) ||
	    listen(st->listener, 1) || getsockname(st->listener, (struct sockaddr *)&sa, &len))
		return -errno;
	st->fd[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (st->fd[0] < 0 || connect(st->fd[0], (struct sockaddr *)&sa, sizeof(sa)))
		return -errno;
	st->peer = accept4(st->listener, NULL, NULL, SOCK_CLOEXEC);
	return st->peer < 0 ? -errno : 0;
}

static int bench_lm_select(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct lm_select st = { .listener = -1, .peer = -1 };
	int rc, n = 1;

	memset(st.fd, -1, sizeof(st.fd));
	rc = lm_select_connect(&st);
	for (; n < LM_SELECT_FDS && !rc; n++) {
		st.fd[n] = fcntl(st.fd[0], F_DUPFD_CLOEXEC, 0);
		rc = st.fd[n] < 0 ? -errno : 0;
	}
	for (int i = 0; i < LM_SELECT_FDS && !rc; i++) {
		if (st.fd[i] >= FD_SETSIZE)
			rc = -EMFILE;
		st.examined += st.fd[i] < LM_SELECT_FDS;
	}
	if (!rc)
		rc = ul_micro_simple(env, out, lm_select_batch, &st, 1, 0);
	if (!rc)
		rc = ul_micro_put_metric(out, "select_fds", st.examined);
	for (int i = 0; i < LM_SELECT_FDS; i++)
		if (st.fd[i] >= 0)
			close(st.fd[i]);
	if (st.peer >= 0)
		close(st.peer);
	if (st.listener >= 0)
		close(st.listener);
	return rc;
}

/* lm-file-rd, bw_file_rd's io_only (the "read bandwidth" getsummary reads
 * for File reread): lseek to 0, read() the whole file in LM_XFER chunks,
 * summing every word of each chunk as it arrives (bread). */
#define LM_XFER (64 * 1024)

struct lm_reread {
	int fd;
	size_t bytes;
	uint64_t *buf;
};

static int lm_file_rd_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct lm_reread *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		size_t done = 0;
		ssize_t n;

		if (lseek(st->fd, 0, SEEK_SET))
			return -errno;
		while ((n = read(st->fd, st->buf, LM_XFER)) > 0) {
			lmio_sink += ul_micro_sum(st->buf, (size_t)n);
			done += (size_t)n;
		}
		if (n < 0 || done != st->bytes)
			return n < 0 ? -errno : -EIO;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

/* The file: the bandwidth working set in whole chunks, cached (just written). */
static int bench_lm_file_rd(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct lm_reread st = { .fd = -1, .bytes = (size_t)(env->bw_bytes / LM_XFER * LM_XFER) };
	char path[4200];
	int rc;

	snprintf(path, sizeof(path), "%s/micro-lm-reread", env->scratch_dir);
	rc = ul_micro_make_file(path, st.bytes);
	if (!rc) {
		st.fd = open(path, O_RDONLY | O_CLOEXEC);
		rc = st.fd < 0 ? -errno : 0;
	}
	unlink(path);
	st.buf = rc ? NULL : malloc(LM_XFER);
	if (!rc && !st.buf)
		rc = -ENOMEM;
	if (!rc)
		rc = ul_micro_simple(env, out, lm_file_rd_batch, &st, 1, (double)st.bytes);
	if (!rc)
		rc = ul_micro_put_metric(out, "file_bytes", (double)st.bytes);
	if (!rc)
		rc = ul_micro_put_metric(out, "xfer_bytes", LM_XFER);
	free(st.buf);
	if (st.fd >= 0)
		close(st.fd);
	return rc;
}

UL_MICRO_LAT(lm_select, "lm-select", "proc",
	     "LMbench's select: select() for writing on 100 dups of a connected TCP socket",
	     bench_lm_select);
UL_MICRO_BW(lm_file_rd, "lm-file-rd", "bw",
	    "LMbench's file reread: read() the whole cached file in 64 KiB chunks, summing each",
	    bench_lm_file_rd);
