/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The contest reference job's source tree, generated from a seed: C units
 * in a few directories, shared headers, a main.c and a Makefile.
 *
 * Contract: the same spec gives the same bytes, file for file, on every
 * machine (no time, host, locale or randomness other than the seed); a
 * different seed gives different code of the same shape and about the same
 * size.  The tree builds with `make -jN` and the system's `cc` into one
 * program, `app`; `make clean` removes every product.
 *
 * Sizes (documented for users in --help and the man page):
 *  - default: 480 units of 14 functions (~800 lines each), 40 headers,
 *    about 8.5 MiB of C; about a minute of `make -j2` at -O2 on a current
 *    2-CPU x86 machine (about 2 CPU-minutes of cc);
 *  - quick: 24 units of 6 functions, 6 headers, a few seconds of make.
 */
#ifndef UL_SRCTREE_H
#define UL_SRCTREE_H

#include "core/compat.h"

#define UL_SRCTREE_DEFAULT_SEED 20021011 /* the date of the contest seed post */

struct ul_srctree_spec {
	uint64_t seed;
	unsigned units;	  /* translation units besides main.c, 1..100000 */
	unsigned funcs;	  /* functions per unit, 1..1000 */
	unsigned headers; /* shared headers, 1..10000 */
	unsigned dirs;	  /* directories the units are spread over, 1..1000 */
};

/* The reference size, and the small one (--quick, tests), both with the default seed. */
void ul_srctree_spec_default(struct ul_srctree_spec *spec);
void ul_srctree_spec_quick(struct ul_srctree_spec *spec);

/*
 * Create directory `dir` (which must not exist; its parent must) and write
 * the tree into it.  *bytes (may be NULL) gets the total size written.
 * Returns 0, -EINVAL for a spec out of range, or the -errno of the first
 * failing file operation (the partial tree is left for the caller's
 * scratch-directory removal).
 */
int ul_srctree_generate(const char *dir, const struct ul_srctree_spec *spec,
			uint64_t *bytes) UL_MUST_CHECK;

#endif
