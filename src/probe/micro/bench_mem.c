/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Memory bandwidth and latency:
 *  - bcopy (libc): memcpy() of the bandwidth working set; bcopy (hand): a
 *    64-bit word copy loop; read: summing every word (four independent
 *    chains); write: storing every word.  All in ascending order: bw_mem's
 *    fwr stores each 512-byte block from its end down, an order that
 *    writes a sixth as fast at 64 MiB (the man page's Mem write line).
 *    Bandwidth counts the bytes copied / read / written once.
 *  - latency: a dependent-load chase through a random cyclic permutation
 *    of the 64-byte lines of a buffer (no stride a prefetcher could
 *    follow), for every power of two from 1 KiB to 4x the last-level
 *    cache (3 batches each: the curve), and with the full batch count at
 *    half of L1d, half of L2, half of the LLC and 4x the LLC: the L1, L2,
 *    L3 and main-memory figures.  Cache sizes come from sysfs.
 *  - lm-mem, the pattern of LMbench's table (lat_mem_rd's stride 128 that
 *    getsummary reads): each 128-byte step of the range points to the
 *    next, the last to the first; L1 at a 1 KiB range, L2 at 128 KiB and
 *    main memory at 4x the LLC (at least 8 MiB; lmbench takes its largest
 *    range, its $MB), 100 hops a loop pass as lat_mem_rd's.  A
 *    sequential stride the prefetchers follow: it answers a different
 *    question than the random chase above.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#define LINE 64
#define LM_STRIDE 128
#define CHASE_UNROLL 16
#define LM_CHASE_UNROLL 100 /* lat_mem_rd's HUNDRED */
#define CURVE_BATCHES 3

#if defined(__GNUC__) && !defined(__clang__)
/* Keep hand loops hand loops: GCC would turn them into memcpy/memset calls. */
#define UL_NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define UL_NO_LIBCALL
#endif

static volatile uint64_t mem_sink;

struct bw_state {
	size_t bytes;
	uint64_t *src, *dst;
};

static int copy_libc_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct bw_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		memcpy(st->dst, st->src, st->bytes);
		__asm__ volatile("" : : "r"(st->dst) : "memory");
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

UL_NO_LIBCALL static void copy_words(uint64_t *restrict d, const uint64_t *restrict s, size_t n)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		d[i] = s[i];
		d[i + 1] = s[i + 1];
		d[i + 2] = s[i + 2];
		d[i + 3] = s[i + 3];
		d[i + 4] = s[i + 4];
		d[i + 5] = s[i + 5];
		d[i + 6] = s[i + 6];
		d[i + 7] = s[i + 7];
	}
}

UL_NO_LIBCALL static void store_words(uint64_t *d, size_t n, uint64_t v)
{
	for (size_t i = 0; i + 8 <= n; i += 8) {
		d[i] = v;
		d[i + 1] = v;
		d[i + 2] = v;
		d[i + 3] = v;
		d[i + 4] = v;
		d[i + 5] = v;
		d[i + 6] = v;
		d[i + 7] = v;
	}
}

static int copy_hand_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct bw_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		copy_words(st->dst, st->src, st->bytes / 8);
		__asm__ volatile("" : : "r"(st->dst) : "memory");
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int read_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct bw_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++)
		mem_sink += ul_micro_sum(st->src, st->bytes);
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int write_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct bw_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		store_words(st->dst, st->bytes / 8, i);
		__asm__ volatile("" : : "r"(st->dst) : "memory");
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bw_bench(const struct ul_micro_env *env, struct ul_micro_out *out, ul_mh_batch_fn fn)
{
	struct bw_state st = { .bytes = (size_t)(env->bw_bytes / 64 * 64) };
	int rc = -ENOMEM;

	st.src = malloc(st.bytes);
	st.dst = malloc(st.bytes);
	if (st.src && st.dst) {
		memset(st.src, 3, st.bytes);
		memset(st.dst, 5, st.bytes);
		rc = ul_micro_simple(env, out, fn, &st, 1, (double)st.bytes);
	}
	free(st.src);
	free(st.dst);
	return rc;
}

static int bench_bcopy(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return bw_bench(env, out, copy_libc_batch);
}

static int bench_fcp(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return bw_bench(env, out, copy_hand_batch);
}

static int bench_mem_rd(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return bw_bench(env, out, read_batch);
}

static int bench_mem_wr(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return bw_bench(env, out, write_batch);
}

struct chase {
	char *buf;
	size_t cap;    /* bytes mapped */
	size_t *order; /* scratch for the permutation */
	void **start;
	uint64_t rng;
	bool stride; /* LMbench's sequential stride, not a random cycle */
};

static uint64_t xorshift(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

/* Link the first `bytes` of the buffer in steps of LM_STRIDE, in order. */
static void stride_build(struct chase *c, size_t bytes)
{
	size_t n = bytes / LM_STRIDE;

	for (size_t i = 0; i < n; i++)
		*(void **)(c->buf + i * LM_STRIDE) = c->buf + (i + 1) % n * LM_STRIDE;
	c->start = (void **)c->buf;
}

/* Link the lines of the first `bytes` of the buffer in a random cycle. */
static void chase_build(struct chase *c, size_t bytes)
{
	size_t n = bytes / LINE;

	for (size_t i = 0; i < n; i++)
		c->order[i] = i;
	for (size_t i = n - 1; i > 0; i--) {
		size_t j = (size_t)(xorshift(&c->rng) % (i + 1)), t = c->order[i];

		c->order[i] = c->order[j];
		c->order[j] = t;
	}
	for (size_t i = 0; i < n; i++)
		*(void **)(c->buf + c->order[i] * LINE) = c->buf + c->order[(i + 1) % n] * LINE;
	c->start = (void **)(c->buf + c->order[0] * LINE);
}

static int chase_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct chase *c = arg;
	void **p = c->start;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
#define HOP p = (void **)*p;
		HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP
#undef HOP
	}
	*elapsed = ul_now_ns() - t0;
	c->start = p;
	mem_sink += (uintptr_t)p;
	return 0;
}

/*
 * lm-mem's chase: 100 hops a loop pass, as lat_mem_rd's (HUNDRED).  The
 * unrolling is part of what it measures: each load instruction sees a
 * stride of 100 x 128 bytes, beyond what a per-instruction stride
 * prefetcher follows (2 KiB), while a 16-hop loop shows each one 2 KiB
 * and lets it fetch ahead into L1: at 128 KiB on this machine's EPYC,
 * 2.0 ns a load with 16 hops, 5.8 ns with 100 (the L2 latency).
 */
static int lm_chase_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct chase *c = arg;
	void **p = c->start;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
#define HOP p = (void **)*p;
#define HOP10 HOP HOP HOP HOP HOP HOP HOP HOP HOP HOP
		HOP10 HOP10 HOP10 HOP10 HOP10 HOP10 HOP10 HOP10 HOP10 HOP10
#undef HOP10
#undef HOP
	}
	*elapsed = ul_now_ns() - t0;
	c->start = p;
	mem_sink += (uintptr_t)p;
	return 0;
}

static int chase_at(const struct ul_micro_env *env, struct chase *c, size_t bytes, int batches,
		    struct ul_micro_out *out, const char *name)
{
	struct ul_mh_opts mh = env->mh;
	struct ul_mh_result r;
	int64_t v[UL_MH_MAX_BATCHES];
	int rc;

	if (bytes < 2 * LINE || bytes > c->cap)
		return 0;
	mh.batches = batches < mh.batches ? batches : mh.batches;
	if (c->stride)
		stride_build(c, bytes);
	else
		chase_build(c, bytes);
	rc = ul_mh_run(&mh, c->stride ? lm_chase_batch : chase_batch, c, &r);
	if (rc)
		return rc;
	for (int i = 0; i < r.n; i++)
		v[i] = (int64_t)(r.iter_ns[i] * 1000.0 /
					 (c->stride ? LM_CHASE_UNROLL : CHASE_UNROLL) +
				 0.5);
	return ul_micro_put_series(out, name, v, r.n);
}

static int chase_all(const struct ul_micro_env *env, struct chase *c, struct ul_micro_out *out)
{
	const struct {
		const char *name;
		uint64_t bytes;
	} points[] = {
		{ "l1_ps", env->l1d_bytes / 2 },
		{ "l2_ps", env->l2_bytes / 2 },
		{ "l3_ps", env->llc_bytes > env->l2_bytes ? env->llc_bytes / 2 : 0 },
		{ "main_ps", env->llc_bytes * 4 },
	};
	int rc = 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(points) && !rc; i++)
		rc = chase_at(env, c, (size_t)points[i].bytes, env->mh.batches, out,
			      points[i].name);
	for (size_t bytes = 1024; bytes <= c->cap && !rc; bytes *= 2) {
		char name[UL_MICRO_NAME_LEN];

		snprintf(name, sizeof(name), "curve_%zuk_ps", bytes / 1024);
		rc = chase_at(env, c, bytes, CURVE_BATCHES, out, name);
	}
	if (!rc)
		rc = ul_micro_put_metric(out, "l1d_bytes", (double)env->l1d_bytes);
	if (!rc)
		rc = ul_micro_put_metric(out, "l2_bytes", (double)env->l2_bytes);
	if (!rc)
		rc = ul_micro_put_metric(out, "llc_bytes", (double)env->llc_bytes);
	return rc;
}

static int bench_lat_mem(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct chase c = { .cap = (size_t)env->llc_bytes * 4, .rng = 0x9e3779b97f4a7c15ull };
	int rc;

	c.buf = mmap(NULL, c.cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c.buf == MAP_FAILED)
		return -errno;
	c.order = malloc(c.cap / LINE * sizeof(*c.order));
	rc = c.order ? chase_all(env, &c, out) : -ENOMEM;
	free(c.order);
	munmap(c.buf, c.cap);
	return rc;
}

static int bench_lm_mem(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	uint64_t main_bytes = env->llc_bytes * 4 > 8 * UL_MiB ? env->llc_bytes * 4 : 8 * UL_MiB;
	struct chase c = { .cap = (size_t)main_bytes, .stride = true };
	int rc;

	c.buf = mmap(NULL, c.cap, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c.buf == MAP_FAILED)
		return -errno;
	rc = chase_at(env, &c, 1024, env->mh.batches, out, "l1_ps");
	if (!rc)
		rc = chase_at(env, &c, 128 * 1024, env->mh.batches, out, "l2_ps");
	if (!rc)
		rc = chase_at(env, &c, c.cap, env->mh.batches, out, "main_ps");
	if (!rc)
		rc = ul_micro_put_metric(out, "stride_bytes", LM_STRIDE);
	if (!rc)
		rc = ul_micro_put_metric(out, "hops_per_pass", LM_CHASE_UNROLL);
	if (!rc)
		rc = ul_micro_put_metric(out, "main_range_bytes", (double)c.cap);
	munmap(c.buf, c.cap);
	return rc;
}

UL_MICRO_BW(bw_bcopy, "bw-bcopy", "bw", "memcpy() of the bandwidth working set", bench_bcopy);
UL_MICRO_BW(bw_fcp, "bw-fcp", "bw", "hand-written 64-bit word copy loop", bench_fcp);
UL_MICRO_BW(bw_mem_rd, "bw-mem-rd", "bw", "memory read: summing every 64-bit word", bench_mem_rd);
UL_MICRO_BW(bw_mem_wr, "bw-mem-wr", "bw", "memory write: storing every 64-bit word", bench_mem_wr);
UL_MICRO_LAT(lat_mem, "lat-mem", "mem",
	     "random-order pointer chase: L1, L2, L3, main memory and the whole curve",
	     bench_lat_mem);
UL_MICRO_LAT(lm_mem, "lm-mem", "mem",
	     "LMbench's memory latency: stride-128 chase at 1 KiB, 128 KiB, main memory",
	     bench_lm_mem);
