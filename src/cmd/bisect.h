/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload bisect` (cmd/bisect.c) and its judge (cmd/bisect_judge.c). */
#ifndef UL_CMD_BISECT_H
#define UL_CMD_BISECT_H

#include "cmd/bisect_logic.h"
#include "core/compat.h"

#include <stdint.h>

#define UL_BISECT_MAX_STEPS 64

struct ul_bisect_kernel {
	const char *image;  /* as given */
	const char *append; /* extra kernel command-line words, or NULL */
	char file[96];	    /* the image's file name, in labels */
};

/* What the command was given (bisect.c's option table). */
struct ul_bisect_args {
	const char *db, *name;
	struct ul_bisect_kernel kernels[UL_BISECT_MAX_STEPS];
	int n_kernels;
	int cpus, max_runs;
	int64_t mem_bytes, hang_ns, budget_ns, margin_centi;
	bool no_confirm;
	char **run_args; /* "run", ARGS... */
	int n_run_args;
	char db_path[4096];
};

/* One A/B of the sequence: `cand` judged against `base` (0-based kernels),
 * under these labels. */
struct ul_bisect_ab {
	int base, cand;
	char labels[2][128]; /* base's, cand's */
};

/* How an A/B came out. */
struct ul_bisect_verdict {
	bool stored;	   /* both labels hold runs (measured now or before) */
	bool slower;	   /* some test slower than the base */
	bool faster;	   /* some test faster than the base */
	bool decided;	   /* every test decided */
	bool crashed;	   /* some run of cand crashed */
	bool base_crashed; /* some run of base crashed */
	size_t runs;	   /* both sides together */
	size_t n_cand;	   /* of them, cand's */
	int64_t ids[128];  /* their ids, base's first (the first 128) */
	char why[256];	   /* "resp spawnload delay +25.1% [+9.0%, +43.6%] slower" */
};

/* Read the A/B's stored runs back and decide them (0, or an exit code
 * after printing why; no runs: stored false). */
int ul_bisect_read(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
		   struct ul_bisect_verdict *v);
/* An interrupted A/B's runs relabelled LABEL~interrupted, so that the
 * A/B measured afresh pairs only its own: 0 or relabel's exit code. */
int ul_bisect_set_aside(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab,
			const struct ul_bisect_verdict *v);
/* Boot the A/B through vm --until-decided: vm's exit code. */
int ul_bisect_measure(const struct ul_bisect_args *a, const struct ul_bisect_ab *ab);

#endif
