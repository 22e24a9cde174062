/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Local communication, latency and bandwidth, each against a helper
 * process forked for the measurement (dies with the probe child):
 *  - latency: round trip of one byte over a pipe pair, an AF_UNIX stream
 *    socketpair and TCP on loopback, of 4 bytes over loopback UDP (as
 *    lmbench's lat_tcp and lat_udp); TCP connect: socket + SO_REUSEADDR +
 *    connect + close against a server that accepts, reads the EOF and
 *    closes (lat_connect's): the client's closes leave TIME_WAIT sockets
 *    (the kernel's, gone after 60 s; loopback reuses their ports), and
 *    their pile-up is part of what lat_connect times.  Every listener's
 *    backlog is SOMAXCONN: lat_connect's 100 overflows when its client
 *    outruns accept(), and a connect whose SYN was dropped waits the 1 s
 *    retransmit; these connects never wait (t0505);
 *  - each in two placements, two probes (NAME-1cpu, NAME-2cpu): client
 *    and helper on one CPU, or on two (ul_micro_ends in bench.h), with
 *    the metrics that say where both ran;
 *  - bandwidth: the client asks for iters x 64 KiB, the server writes them
 *    in 64 KiB writes, the client reads them all; one request per batch,
 *    so no buffered data is counted in a batch it was not sent for;
 *  - lm-bw-tcp, LMbench's TCP bandwidth (the bw_tcp -m 10M that getsummary
 *    takes, its largest message): the same with 10 MiB writes and reads
 *    and 1 MiB socket buffers asked for on both ends (SOCKBUF; the kernel
 *    caps them at its net.core.[rw]mem_max).  Every bandwidth buffer
 *    starts on a page, as bw_tcp's (page_buf).  Every byte read is counted
 *    (bw_tcp counts 10 MiB a message and drops what its last read() of
 *    each returned beyond that: t0505).  Before timing it streams on the
 *    connection for bw_tcp's warm-up (its -W default, 7.5 s, in every
 *    profile: --quick does not shorten bw_tcp's either), as benchmp does:
 *    under BBR a connection that has streamed that long is ~1.2x slower
 *    than a fresh one.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#define BW_CHUNK (64 * 1024)
#define LM_BW_XFER (10 * 1024 * 1024) /* lmbench's "10M": bytes() counts 2^20 */
#define LM_SOCKBUF (1024 * 1024)
#define LM_BW_WARMUP_NS (7500 * UL_NS_PER_MS) /* bw_tcp's -W default (LONGER) */
#define UDP_MSG 4			      /* lat_udp's message: an int sequence number */

enum chan_kind {
	CHAN_PIPE,
	CHAN_UNIX,
	CHAN_UDP,
	CHAN_TCP
};

/* The client's ends and the helper; the helper got its own ends. */
struct chan {
	int rfd, wfd; /* client reads from rfd, writes to wfd (may be equal) */
	pid_t pid;
	char *buf;
	size_t msg;		    /* latency: bytes of a message */
	size_t xfer;		    /* bandwidth: bytes a read or write asks for */
	struct ul_micro_ends *ends; /* where client (0) and helper (1) run */
};

static void chan_close(struct chan *c)
{
	ul_micro_reap(c->pid);
	ul_micro_ends_free(c->ends);
	if (c->rfd >= 0)
		close(c->rfd);
	if (c->wfd >= 0 && c->wfd != c->rfd)
		close(c->wfd);
	free(c->buf);
}

/* A zeroed buffer starting on a page, as lmbench's valloc() gives its
 * bandwidth programs theirs; NULL when out of memory.  The kernel's copy
 * into a buffer 16 bytes past a page (malloc's, at 10 MiB) costs more a
 * byte: bw_tcp's receive copy (_copy_to_iter) took 7 to 48% more CPU
 * with malloc()ed buffers in four paired perf profiles here. */
static char *page_buf(size_t bytes)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = NULL;

	if (posix_memalign(&p, page > 0 ? (size_t)page : 4096, bytes))
		return NULL;
	return memset(p, 0, bytes);
}

static int loopback_socket(int type, struct sockaddr_in *sa)
{
	socklen_t len = sizeof(*sa);
	int fd = socket(AF_INET, type | SOCK_CLOEXEC, 0);

	memset(sa, 0, sizeof(*sa));
	sa->sin_family = AF_INET;
	sa->sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (fd < 0)
		return -errno;
	if (bind(fd, (struct sockaddr *)sa, sizeof(*sa)) ||
	    getsockname(fd, (struct sockaddr *)sa, &len) ||
	    (type == SOCK_STREAM && listen(fd, SOMAXCONN))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Echo (msg > 0) or bulk-send in xfer-byte writes (msg == 0) until the
 * client goes away. */
static void serve(int rfd, int wfd, size_t msg, size_t xfer, bool udp)
{
	char *buf = page_buf(xfer);
	struct sockaddr_in peer;
	socklen_t plen;

	if (!buf)
		_exit(1);
	memset(buf, 'x', xfer);
	for (;;) {
		uint64_t want;

		if (udp) {
			plen = sizeof(peer);
			ssize_t n = recvfrom(rfd, buf, msg, 0, (struct sockaddr *)&peer, &plen);

			if (n <= 0 ||
			    sendto(wfd, buf, (size_t)n, 0, (struct sockaddr *)&peer, plen) != n)
				_exit(0);
		} else if (msg) {
			if (ul_read_full(rfd, buf, msg) || ul_write_full(wfd, buf, msg))
				_exit(0);
		} else {
			if (ul_read_full(rfd, &want, sizeof(want)))
				_exit(0);
			for (uint64_t sent = 0; sent < want; sent += xfer)
				if (ul_write_full(wfd, buf, xfer))
					_exit(0);
		}
	}
}

static void lm_sockbuf(int fd);

/* A connected TCP socket; lm_buffers: lmbench's socket buffers asked for
 * before the connect, as its tcp_connect() does (they set the window). */
static int tcp_connect(const struct sockaddr_in *sa, bool lm_buffers)
{
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -errno;
	if (lm_buffers)
		lm_sockbuf(fd);
	if (connect(fd, (const struct sockaddr *)sa, sizeof(*sa))) {
		int err = -errno;

		close(fd);
		return err;
	}
	return fd;
}

/* Ask for LM_SOCKBUF-byte socket buffers, halving until the kernel takes
 * the size (lmbench's sock_optimize): lm-bw-tcp's listener and client,
 * before the connection exists. */
static void lm_sockbuf(int fd)
{
	static const int opts[] = { SO_RCVBUF, SO_SNDBUF };

	for (size_t i = 0; i < UL_ARRAY_SIZE(opts); i++)
		for (int size = LM_SOCKBUF; size >= 4096; size >>= 1)
			if (!setsockopt(fd, SOL_SOCKET, opts[i], &size, sizeof(size)))
				break;
}

/* Pin the client and fork the helper for kind where place puts them; the
 * helper's ends are closed in the client.  c->xfer is set before: the
 * bandwidth's read and write size (LM_BW_XFER: with lmbench's buffers). */
static int chan_open(struct chan *c, enum chan_kind kind, size_t msg,
		     const struct ul_micro_env *env, enum ul_micro_place place)
{
	int a[2] = { -1, -1 }, b[2] = { -1, -1 }, lfd = -1;
	size_t xfer = c->xfer ? c->xfer : BW_CHUNK;
	struct sockaddr_in sa;
	int rc = 0;

	memset(c, 0, sizeof(*c));
	c->rfd = c->wfd = -1;
	c->xfer = xfer;
	c->msg = msg;
	c->buf = page_buf(xfer);
	if (!c->buf)
		return -ENOMEM;
	c->ends = ul_micro_ends_new(env, place);
	if (!c->ends)
		return -errno;
	if (kind == CHAN_PIPE)
		rc = pipe2(a, O_CLOEXEC) || pipe2(b, O_CLOEXEC) ? -errno : 0;
	else if (kind == CHAN_UNIX)
		rc = socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, a) ? -errno : 0;
	else
		rc = lfd = loopback_socket(kind == CHAN_UDP ? SOCK_DGRAM : SOCK_STREAM, &sa);
	if (rc < 0)
		goto out;
	if (kind == CHAN_TCP && xfer == LM_BW_XFER)
		lm_sockbuf(lfd); /* before the connect: the accepted socket inherits them */
	c->pid = ul_micro_fork_end(c->ends, 1);
	if (c->pid == 0) {
		if (kind == CHAN_PIPE)
			serve(a[0], b[1], msg, xfer, false);
		if (kind == CHAN_UNIX)
			serve(a[1], a[1], msg, xfer, false);
		if (kind == CHAN_UDP)
			serve(lfd, lfd, msg, xfer, true);
		int s = accept(lfd, NULL, NULL);

		if (s < 0)
			_exit(1);
		serve(s, s, msg, xfer, false);
	}
	if (c->pid < 0) {
		rc = -errno;
		goto out;
	}
	if (kind == CHAN_PIPE) {
		c->wfd = a[1], c->rfd = b[0];
		a[1] = b[0] = -1;
	} else if (kind == CHAN_UNIX) {
		c->rfd = c->wfd = a[0];
		a[0] = -1;
	} else if (kind == CHAN_UDP) {
		c->rfd = c->wfd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
		rc = c->rfd < 0 || connect(c->rfd, (struct sockaddr *)&sa, sizeof(sa)) ? -errno : 0;
	} else {
		c->rfd = c->wfd = rc = tcp_connect(&sa, xfer == LM_BW_XFER);
		rc = rc < 0 ? rc : 0;
	}
out:
	for (int i = 0; i < 2; i++) {
		if (a[i] >= 0)
			close(a[i]);
		if (b[i] >= 0)
			close(b[i]);
	}
	if (lfd >= 0)
		close(lfd);
	return rc;
}

static int rtt_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct chan *c = arg;
	ssize_t msg = (ssize_t)c->msg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		if (write(c->wfd, c->buf, c->msg) != msg || read(c->rfd, c->buf, c->msg) != msg)
			return -EIO;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bw_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct chan *c = arg;
	uint64_t want = iters * c->xfer, got = 0;
	ul_nsec t0 = ul_now_ns();
	int rc = ul_write_full(c->wfd, &want, sizeof(want));

	while (!rc && got < want) {
		ssize_t n = read(c->rfd, c->buf, c->xfer);

		if (n < 0 && errno == EINTR)
			continue;
		rc = n < 0 ? -errno : n == 0 ? -EPIPE : 0;
		got += n > 0 ? (uint64_t)n : 0;
	}
	*elapsed = ul_now_ns() - t0;
	return rc;
}

/* Stream on c, untimed, for ns: bw_tcp's warm-up.  0 or -errno. */
static int bw_warm_up(struct chan *c, int64_t ns)
{
	ul_nsec end = ul_now_ns() + ns;
	int64_t elapsed;
	int rc = 0;

	while (!rc && ul_now_ns() < end)
		rc = bw_batch(c, 1, &elapsed);
	return rc;
}

/* xfer: a bandwidth test's read and write size (0: BW_CHUNK). */
static int chan_bench(const struct ul_micro_env *env, struct ul_micro_out *out, enum chan_kind kind,
		      bool bw, size_t xfer, enum ul_micro_place place)
{
	struct chan c = { .xfer = xfer };
	size_t msg = bw ? 0 : kind == CHAN_UDP ? UDP_MSG : 1;
	int64_t warm_ns = xfer == LM_BW_XFER ? LM_BW_WARMUP_NS : 0;
	int rc = chan_open(&c, kind, msg, env, place);

	if (!rc && warm_ns)
		rc = bw_warm_up(&c, warm_ns);
	if (!rc)
		rc = ul_micro_simple(env, out, bw ? bw_batch : rtt_batch, &c, 1,
				     bw ? (double)c.xfer : 0);
	if (!rc && warm_ns)
		rc = ul_micro_put_metric(out, "warmup_ns", (double)warm_ns);
	if (!rc)
		rc = ul_micro_put_metric(out, bw ? "xfer_bytes" : "msg_bytes",
					 (double)(bw ? c.xfer : c.msg));
	if (!rc)
		rc = ul_micro_put_ends(out, c.ends, 2);
	chan_close(&c);
	return rc;
}

struct conn_state {
	struct sockaddr_in sa;
};

static int connect_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct conn_state *st = arg;
	const int one = 1;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

		if (fd < 0)
			return -errno;
		if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
		    connect(fd, (const struct sockaddr *)&st->sa, sizeof(st->sa))) {
			int err = -errno;

			close(fd);
			return err;
		}
		close(fd);
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int connect_bench(const struct ul_micro_env *env, struct ul_micro_out *out,
			 enum ul_micro_place place)
{
	struct conn_state st;
	struct ul_micro_ends *ends = ul_micro_ends_new(env, place);
	int lfd = ends ? loopback_socket(SOCK_STREAM, &st.sa) : -errno;
	pid_t pid;
	int rc;

	if (lfd < 0) {
		ul_micro_ends_free(ends);
		return lfd;
	}
	pid = ul_micro_fork_end(ends, 1);
	if (pid == 0) {
		for (;;) {
			int s = accept(lfd, NULL, NULL);
			char c;

			if (s >= 0 && read(s, &c, 1) != 0)
				_exit(0); /* data or an error: not a client of ours */
			if (s >= 0)
				close(s);
			else if (errno != EINTR && errno != ECONNABORTED)
				_exit(0);
		}
	}
	rc = pid < 0 ? -errno : ul_micro_simple(env, out, connect_batch, &st, 1, 0);
	if (!rc)
		rc = ul_micro_put_ends(out, ends, 2);
	ul_micro_reap(pid);
	close(lfd);
	ul_micro_ends_free(ends);
	return rc;
}

/* Two probes of one test, "NAME-1cpu" and "NAME-2cpu" (ul_micro_ends). */
#define CHAN_PROBES(ident, name_, group_, summary_, call_, MACRO)                                  \
	static int bench_##ident##_1cpu(const struct ul_micro_env *env, struct ul_micro_out *out)  \
	{                                                                                          \
		return call_(UL_PLACE_ONE_CPU);                                                    \
	}                                                                                          \
	static int bench_##ident##_2cpu(const struct ul_micro_env *env, struct ul_micro_out *out)  \
	{                                                                                          \
		return call_(UL_PLACE_TWO_CPUS);                                                   \
	}                                                                                          \
	MACRO(ident##_1cpu, name_ "-1cpu", group_, summary_ ", both ends on one CPU",              \
	      bench_##ident##_1cpu);                                                               \
	MACRO(ident##_2cpu, name_ "-2cpu", group_, summary_ ", ends on two CPUs",                  \
	      bench_##ident##_2cpu)

#define LAT_PIPE(p) chan_bench(env, out, CHAN_PIPE, false, 0, p)
#define LAT_UNIX(p) chan_bench(env, out, CHAN_UNIX, false, 0, p)
#define LAT_UDP(p) chan_bench(env, out, CHAN_UDP, false, 0, p)
#define LAT_TCP(p) chan_bench(env, out, CHAN_TCP, false, 0, p)
#define LAT_CONNECT(p) connect_bench(env, out, p)
#define BW_PIPE(p) chan_bench(env, out, CHAN_PIPE, true, 0, p)
#define BW_UNIX(p) chan_bench(env, out, CHAN_UNIX, true, 0, p)
#define BW_TCP(p) chan_bench(env, out, CHAN_TCP, true, 0, p)
#define LM_BW_TCP(p) chan_bench(env, out, CHAN_TCP, true, LM_BW_XFER, p)

CHAN_PROBES(lat_pipe, "lat-pipe", "lat", "round trip of one byte over a pair of pipes", LAT_PIPE,
	    UL_MICRO_LAT);
CHAN_PROBES(lat_unix, "lat-unix", "lat", "round trip of one byte over an AF_UNIX socketpair",
	    LAT_UNIX, UL_MICRO_LAT);
CHAN_PROBES(lat_udp, "lat-udp", "lat", "round trip of 4 bytes over loopback UDP", LAT_UDP,
	    UL_MICRO_LAT);
CHAN_PROBES(lat_tcp, "lat-tcp", "lat", "round trip of one byte over loopback TCP", LAT_TCP,
	    UL_MICRO_LAT);
CHAN_PROBES(lat_connect, "lat-connect", "lat", "TCP socket+connect+close, loopback", LAT_CONNECT,
	    UL_MICRO_LAT);
CHAN_PROBES(bw_pipe, "bw-pipe", "bw", "pipe bandwidth, 64 KiB writes", BW_PIPE, UL_MICRO_BW);
CHAN_PROBES(bw_unix, "bw-unix", "bw", "AF_UNIX stream bandwidth, 64 KiB writes", BW_UNIX,
	    UL_MICRO_BW);
CHAN_PROBES(bw_tcp, "bw-tcp", "bw", "loopback TCP bandwidth, 64 KiB writes", BW_TCP, UL_MICRO_BW);
CHAN_PROBES(lm_bw_tcp, "lm-bw-tcp", "bw",
	    "LMbench's TCP bandwidth: 10 MiB writes and reads, 1 MiB socket buffers", LM_BW_TCP,
	    UL_MICRO_BW);
