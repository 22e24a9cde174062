/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The taskstats reader (contract: taskstats.h): queries and exit-record
 * listeners over generic netlink with libnl-genl-3.  The kernel's struct
 * taskstats only grows at its end, so a record is read field by field at
 * the offsets of this machine's <linux/taskstats.h>, each field only
 * when the record's version carries it and its payload covers it.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/log.h"
#include "proc/delayacct.h"
#include "proc/taskstats.h"

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <linux/taskstats.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/netlink.h>

/* Version 14 added irq_count and irq_delay_total right after
 * wpcopy_delay_total; a header older than that does not name them. */
#if TASKSTATS_VERSION >= 14
#define IRQ_COUNT_OFF offsetof(struct taskstats, irq_count)
#define IRQ_TOTAL_OFF offsetof(struct taskstats, irq_delay_total)
#else
#define IRQ_COUNT_OFF (offsetof(struct taskstats, wpcopy_delay_total) + 8)
#define IRQ_TOTAL_OFF (IRQ_COUNT_OFF + 8)
#endif

static const struct delay_field {
	const char *key, *name;
	unsigned since;
	size_t count_off, total_off;
} fields[UL_DELAY_N] = {
#define F(d, key, name, since, f)                                                                  \
	[d] = { key, name, since, offsetof(struct taskstats, f##_count),                           \
		offsetof(struct taskstats, f##_delay_total) }
	F(UL_DELAY_RUNQ, "runq", "run queue", 1, cpu),
	F(UL_DELAY_BLKIO, "blkio", "block I/O", 1, blkio),
	F(UL_DELAY_SWAPIN, "swapin", "swap-in", 1, swapin),
	F(UL_DELAY_RECLAIM, "reclaim", "reclaim", 7, freepages),
	F(UL_DELAY_THRASHING, "thrashing", "thrashing", 9, thrashing),
	F(UL_DELAY_COMPACT, "compact", "compaction", 11, compact),
	F(UL_DELAY_WPCOPY, "wpcopy", "write-protect copy", 13, wpcopy),
#undef F
	[UL_DELAY_IRQ] = { "irq", "IRQ", 14, IRQ_COUNT_OFF, IRQ_TOTAL_OFF },
};

const char *ul_delay_key(enum ul_delay d)
{
	return (unsigned)d < UL_DELAY_N ? fields[d].key : "?";
}

const char *ul_delay_name(enum ul_delay d)
{
	return (unsigned)d < UL_DELAY_N ? fields[d].name : "?";
}

unsigned ul_delay_since(enum ul_delay d)
{
	return (unsigned)d < UL_DELAY_N ? fields[d].since : 0;
}

/* libnl's error codes back to errno, as far as they name one. */
static int nl_errno(int nle)
{
	switch (nle < 0 ? -nle : nle) {
	case NLE_PERM:
		return -EPERM;
	case NLE_NOACCESS:
		return -EACCES;
	case NLE_OBJ_NOTFOUND:
		return -ENOENT;
	case NLE_INVAL:
	case NLE_RANGE:
		return -EINVAL;
	case NLE_NOMEM:
		return -ENOMEM;
	case NLE_AGAIN:
		return -EAGAIN;
	case NLE_BUSY:
		return -EBUSY;
	default:
		return -EIO;
	}
}

/* A u64 of the record at off when the payload covers it, else 0. */
static uint64_t field_u64(const unsigned char *p, size_t len, size_t off)
{
	uint64_t v = 0;

	if (off + sizeof(v) <= len)
		memcpy(&v, p + off, sizeof(v));
	return v;
}

static uint32_t field_u32(const unsigned char *p, size_t len, size_t off)
{
	uint32_t v = 0;

	if (off + sizeof(v) <= len)
		memcpy(&v, p + off, sizeof(v));
	return v;
}

static void decode(const unsigned char *p, size_t len, struct ul_taskstats *out)
{
	uint16_t version = 0;
	uint64_t run_virtual, cpu_time_us;

	if (len >= sizeof(version))
		memcpy(&version, p, sizeof(version));
	out->version = version;
	for (int d = 0; d < UL_DELAY_N; d++) {
		if (version < fields[d].since || fields[d].total_off + 8 > len)
			continue;
		out->have |= 1u << d;
		out->count[d] = field_u64(p, len, fields[d].count_off);
		out->delay_ns[d] = field_u64(p, len, fields[d].total_off);
	}
	/* The scheduler's part (sum_exec_runtime, run_delay, pcount): a task
	 * that exists has been given a CPU, so zeros mean it was left empty. */
	run_virtual = field_u64(p, len, offsetof(struct taskstats, cpu_run_virtual_total));
	out->sched = run_virtual > 0 || out->count[UL_DELAY_RUNQ] > 0;
	cpu_time_us = field_u64(p, len, offsetof(struct taskstats, ac_utime)) +
		      field_u64(p, len, offsetof(struct taskstats, ac_stime));
	out->cpu_ns = out->sched ? run_virtual : cpu_time_us * 1000;
	out->elapsed_us = field_u64(p, len, offsetof(struct taskstats, ac_etime));
	out->exitcode = field_u32(p, len, offsetof(struct taskstats, ac_exitcode));
	out->ppid = (pid_t)field_u32(p, len, offsetof(struct taskstats, ac_ppid));
	if (version >= 12)
		out->tgid = (pid_t)field_u32(p, len, offsetof(struct taskstats, ac_tgid));
}

/* One TASKSTATS_TYPE_AGGR_PID / _AGGR_TGID attribute into out: 0 or -EINVAL. */
static int parse_aggr(struct nlattr *aggr, bool group, struct ul_taskstats *out)
{
	struct nlattr *tb[TASKSTATS_TYPE_MAX + 1];
	int id_type = group ? TASKSTATS_TYPE_TGID : TASKSTATS_TYPE_PID;

	if (nla_parse_nested(tb, TASKSTATS_TYPE_MAX, aggr, NULL) < 0 || !tb[id_type] ||
	    !tb[TASKSTATS_TYPE_STATS])
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	out->pid = (pid_t)nla_get_u32(tb[id_type]);
	out->group = group;
	decode(nla_data(tb[TASKSTATS_TYPE_STATS]), (size_t)nla_len(tb[TASKSTATS_TYPE_STATS]), out);
	if (group)
		out->tgid = out->pid;
	return 0;
}

/* Each record of one message, to fn; counting: kernel.task_delayacct's state. */
static int parse_msg(struct nl_msg *msg, bool counting, ul_taskstats_fn fn, void *arg)
{
	struct nlattr *tb[TASKSTATS_TYPE_MAX + 1];
	struct ul_taskstats rec;
	int n = 0;

	if (genlmsg_parse(nlmsg_hdr(msg), 0, tb, TASKSTATS_TYPE_MAX, NULL) < 0)
		return -EINVAL;
	if (tb[TASKSTATS_TYPE_AGGR_PID] && !parse_aggr(tb[TASKSTATS_TYPE_AGGR_PID], false, &rec)) {
		rec.counting = counting;
		fn(arg, &rec);
		n++;
	}
	if (tb[TASKSTATS_TYPE_AGGR_TGID] && !parse_aggr(tb[TASKSTATS_TYPE_AGGR_TGID], true, &rec)) {
		rec.counting = counting;
		fn(arg, &rec);
		n++;
	}
	return n;
}

/* A generic netlink socket and the TASKSTATS family's id. */
static int connect_family(struct nl_sock **sk, int *family, char *why, size_t len)
{
	struct timeval tv = { .tv_sec = 2 };
	int rc;

	*sk = nl_socket_alloc();
	if (!*sk) {
		ul_whyf(why, len, "cannot allocate a netlink socket");
		return -ENOMEM;
	}
	rc = genl_connect(*sk);
	if (rc < 0) {
		ul_whyf(why, len, "cannot open a generic netlink socket: %s", nl_geterror(rc));
		goto fail;
	}
	/* Never wait for ever on a kernel that does not answer. */
	(void)setsockopt(nl_socket_get_fd(*sk), SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	rc = genl_ctrl_resolve(*sk, TASKSTATS_GENL_NAME);
	if (rc < 0) {
		ul_whyf(why, len, "no taskstats family (a kernel without CONFIG_TASKSTATS?): %s",
			nl_geterror(rc));
		goto fail;
	}
	*family = rc;
	return 0;
fail:
	nl_socket_free(*sk);
	*sk = NULL;
	return nl_errno(rc);
}

/* A TASKSTATS_CMD_GET request with attribute attr. */
static struct nl_msg *request(int family)
{
	struct nl_msg *msg = nlmsg_alloc();

	if (msg && !genlmsg_put(msg, NL_AUTO_PORT, NL_AUTO_SEQ, family, 0, 0, TASKSTATS_CMD_GET,
				TASKSTATS_GENL_VERSION)) {
		nlmsg_free(msg);
		msg = NULL;
	}
	return msg;
}

/* What one exchange collected: the kernel's errno, its ack, the records. */
struct exchange {
	int err;
	bool acked, counting;
	ul_taskstats_fn fn;
	void *arg;
};

static int on_error(struct sockaddr_nl *who, struct nlmsgerr *e, void *arg)
{
	struct exchange *x = arg;

	(void)who;
	x->err = e->error < 0 ? e->error : -e->error;
	return NL_STOP;
}

static int on_ack(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;

	(void)msg;
	x->acked = true;
	return NL_STOP;
}

static int on_valid(struct nl_msg *msg, void *arg)
{
	struct exchange *x = arg;

	if (x->fn)
		(void)parse_msg(msg, x->counting, x->fn, x->arg);
	return NL_OK;
}

/* Send msg (freed) with an ack asked for; hand the replies to fn until the
 * ack or the kernel's error: 0 or -errno. */
static int transact(struct nl_sock *sk, struct nl_msg *msg, ul_taskstats_fn fn, void *arg)
{
	struct exchange x = { .fn = fn, .arg = arg, .counting = ul_delayacct_read() == 1 };
	struct nl_cb *cb = nl_cb_alloc(NL_CB_DEFAULT);
	int rc;

	if (!cb) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	nl_cb_err(cb, NL_CB_CUSTOM, on_error, &x);
	nl_cb_set(cb, NL_CB_ACK, NL_CB_CUSTOM, on_ack, &x);
	nl_cb_set(cb, NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	rc = nl_send_auto(sk, msg);
	nlmsg_free(msg);
	while (rc >= 0 && !x.err && !x.acked)
		rc = nl_recvmsgs(sk, cb);
	nl_cb_put(cb);
	if (x.err)
		return x.err;
	return rc < 0 ? nl_errno(rc) : 0;
}

/* ---- queries ------------------------------------------------------------ */

struct ul_taskstats_conn {
	struct nl_sock *sk;
	int family;
};

int ul_taskstats_open(struct ul_taskstats_conn **out, char *why, size_t len)
{
	struct ul_taskstats_conn *c = calloc(1, sizeof(*c));
	int rc;

	*out = NULL;
	if (!c)
		return -ENOMEM;
	rc = connect_family(&c->sk, &c->family, why, len);
	if (rc) {
		free(c);
		return rc;
	}
	*out = c;
	return 0;
}

void ul_taskstats_close(struct ul_taskstats_conn *c)
{
	if (!c)
		return;
	nl_socket_free(c->sk);
	free(c);
}

struct one {
	struct ul_taskstats *out;
	bool got;
};

static void take_one(void *arg, const struct ul_taskstats *rec)
{
	struct one *o = arg;

	if (!o->got)
		*o->out = *rec;
	o->got = true;
}

int ul_taskstats_query(struct ul_taskstats_conn *c, pid_t id, bool tgid, struct ul_taskstats *out,
		       char *why, size_t len)
{
	struct nl_msg *msg = request(c->family);
	struct one o = { .out = out };
	int rc;

	if (!msg || nla_put_u32(msg, tgid ? TASKSTATS_CMD_ATTR_TGID : TASKSTATS_CMD_ATTR_PID,
				(uint32_t)id) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	rc = transact(c->sk, msg, take_one, &o);
	if (!rc && !o.got)
		rc = -ENODATA;
	if (rc)
		ul_whyf(why, len, "taskstats of %s %d: %s", tgid ? "thread group" : "task", (int)id,
			rc == -ENODATA ? "the kernel sent no record" : strerror(-rc));
	return rc;
}

/* ---- exit records ----------------------------------------------------------- */

struct ul_taskstats_listener {
	struct nl_sock *sk;
	int family;
	char cpumask[256];
};

/* Register (or deregister) sk for the exits on cpumask: 0 or -errno. */
static int set_cpumask(struct nl_sock *sk, int family, const char *cpumask, bool on)
{
	struct nl_msg *msg = request(family);

	if (!msg || nla_put_string(msg,
				   on ? TASKSTATS_CMD_ATTR_REGISTER_CPUMASK
				      : TASKSTATS_CMD_ATTR_DEREGISTER_CPUMASK,
				   cpumask) < 0) {
		nlmsg_free(msg);
		return -ENOMEM;
	}
	return transact(sk, msg, NULL, NULL);
}

int ul_taskstats_listen(const char *cpumask, struct ul_taskstats_listener **out, char *why,
			size_t len)
{
	struct ul_taskstats_listener *l = calloc(1, sizeof(*l));
	ssize_t n;
	int rc;

	*out = NULL;
	if (!l)
		return -ENOMEM;
	if (cpumask)
		snprintf(l->cpumask, sizeof(l->cpumask), "%s", cpumask);
	else {
		n = ul_read_file("/sys/devices/system/cpu/online", l->cpumask, sizeof(l->cpumask));
		if (n < 0) {
			ul_whyf(why, len, "cannot read the online CPUs: %s", strerror((int)-n));
			free(l);
			return (int)n;
		}
		l->cpumask[strcspn(l->cpumask, "\n")] = '\0';
	}
	rc = connect_family(&l->sk, &l->family, why, len);
	if (rc) {
		free(l);
		return rc;
	}
	/* Exits come in bursts (a make -j, a fork storm): room for many. */
	(void)nl_socket_set_buffer_size(l->sk, 4 << 20, 0);
	rc = set_cpumask(l->sk, l->family, l->cpumask, true);
	if (rc) {
		ul_whyf(why, len, "cannot register for the exits on CPUs %s: %s", l->cpumask,
			strerror(-rc));
		nl_socket_free(l->sk);
		free(l);
		return rc;
	}
	/* Drained without waiting (ul_taskstats_drain() reads the records
	 * itself: they come unasked, with sequence numbers of their own). */
	rc = nl_socket_set_nonblocking(l->sk);
	if (rc < 0) {
		ul_taskstats_unlisten(l);
		ul_whyf(why, len, "cannot make the listener non-blocking: %s", nl_geterror(rc));
		return nl_errno(rc);
	}
	*out = l;
	return 0;
}

int ul_taskstats_listener_fd(const struct ul_taskstats_listener *l)
{
	return nl_socket_get_fd(l->sk);
}

int ul_taskstats_drain(struct ul_taskstats_listener *l, ul_taskstats_fn fn, void *arg,
		       unsigned *lost)
{
	bool counting = ul_delayacct_read() == 1;
	int total = 0;

	for (;;) {
		unsigned char *buf = NULL;
		struct sockaddr_nl who;
		int n = nl_recv(l->sk, &who, &buf, NULL);

		if (n == 0 || n == -NLE_AGAIN)
			break;
		if (n == -NLE_NOMEM && errno == ENOBUFS) {
			if (lost)
				++*lost;
			continue;
		}
		if (n < 0)
			return nl_errno(n);
		for (struct nlmsghdr *h = (struct nlmsghdr *)buf; nlmsg_ok(h, n);
		     h = nlmsg_next(h, &n)) {
			struct nl_msg *msg = nlmsg_convert(h);
			int k;

			if (!msg)
				continue;
			k = h->nlmsg_type == l->family ? parse_msg(msg, counting, fn, arg) : 0;
			nlmsg_free(msg);
			total += k > 0 ? k : 0;
		}
		free(buf);
	}
	return total;
}

void ul_taskstats_unlisten(struct ul_taskstats_listener *l)
{
	int fd, fl;

	if (!l)
		return;
	/* The socket's close would drop the registration too; saying so
	 * spares the kernel a failed send per exit until it notices.  Its
	 * ack is awaited (the records before it are passed over). */
	fd = nl_socket_get_fd(l->sk);
	fl = fcntl(fd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
	(void)set_cpumask(l->sk, l->family, l->cpumask, false);
	nl_socket_free(l->sk);
	free(l);
}
