/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the load implementations in this directory only; the
 * engine uses load.h.  Defined in load/child.c.
 */
#ifndef UL_LOAD_INTERNAL_H
#define UL_LOAD_INTERNAL_H

#include "core/compat.h"
#include "load/load.h"

/* Add work done; callable from any process of the load (ctx->shared is MAP_SHARED). */
static inline void ul_load_add_units(struct ul_load_ctx *ctx, uint64_t n)
{
	atomic_fetch_add_explicit(&ctx->shared->units, n, memory_order_relaxed);
}

/*
 * Remember `err` (positive errno) as the load's first error unless one is
 * already recorded, and return it, so hooks can write `return ul_load_fail(ctx, errno);`.
 * Also used for errors a load survives (largewrite's ENOSPC) so the report
 * can say what the load ran into.
 */
int ul_load_fail(struct ul_load_ctx *ctx, int err);

/* A size for a reason string: "64M" when exact, else "80.3G"-style. */
void ul_load_fmt_bytes(char *buf, size_t len, uint64_t bytes);

/* xorshift64*: cheap, good enough to scatter write offsets.  *s must not be 0. */
static inline uint64_t ul_load_rand(uint64_t *s)
{
	*s ^= *s >> 12;
	*s ^= *s << 25;
	*s ^= *s >> 27;
	return *s * UINT64_C(2685821657736338717);
}

struct ul_barrier;
/*
 * The leader child (load/child.c): prepare, report ready, wait for go,
 * run.  Its return value is the exit status: 0 is never returned, because
 * a load only ends on failure (or by a signal from the supervisor).
 */
int ul_load_leader_main(const struct ul_load *load, struct ul_load_ctx *ctx,
			struct ul_barrier *barrier);

/*
 * After taking the supervisor's SIGTERM synchronously (sigwaitinfo) and
 * reaping what it must: die of it, as an unhandled one would have.  In the
 * leader it first records its CPU (own and reaped children) into the
 * shared page, so LCPU% ends there and not after the exit's teardown.
 * SIGTERM is raised with its default action; while the caller still
 * blocks it, it ends the process when the caller restores its mask.
 */
void ul_load_die_of_stop(void);

/* write() all of buf, retrying short writes and EINTR; 0 or a positive errno. */
int ul_load_write_all(int fd, const void *buf, size_t len);

#endif
