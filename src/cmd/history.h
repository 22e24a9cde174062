/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload history` (cmd/history*.c): the runs of one configuration
 * across kernels (or labels, or dates), and per suite, test and metric
 * the series of replicate medians with the change points found in it
 * (stats/changepoint.h).  ul_history_build() is what other code calls.
 */
#ifndef UL_CMD_HISTORY_H
#define UL_CMD_HISTORY_H

#include "core/compat.h"
#include "cmd/cmd.h"
#include "stats/changepoint.h"
#include "stats/runcmp.h"

#include <stdio.h>

enum ul_history_order {
	UL_HISTORY_BY_KERNEL, /* one point per kernel release, version-sorted */
	UL_HISTORY_BY_LABEL,  /* one point per label, in the order given */
	UL_HISTORY_BY_DATE,   /* one point per label, by its first run's start */
};

/* One point of the history: the runs of one kernel (or label). */
struct ul_history_point {
	char key[128];		    /* the kernel release, or the label */
	const struct ul_run **runs; /* newest first */
	size_t n_runs;
	int64_t first_ns, last_ns; /* the runs' starts */
};

/* A fingerprint fact that differs between two neighbouring points. */
struct ul_history_fact {
	char key[128];
	char before[160], after[160];
};

#define UL_HISTORY_MAX_CP 16
#define UL_HISTORY_MAX_FACTS 24

/* A change point of a row, between points pos - 1 and pos. */
struct ul_history_cp {
	struct ul_changepoint cp;
	struct ul_history_fact facts[UL_HISTORY_MAX_FACTS];
	size_t n_facts, n_facts_all; /* shown, and how many differ in all */
};

/* One suite, test and metric: its series and change points. */
struct ul_history_row {
	struct ul_runcmp_metric metric;
	char test[UL_NAME_LEN];
	/* per point (index into the history's points): the median of its
	 * runs' medians, the smallest and largest run median, runs counted;
	 * n_runs 0 = the point has no value of this test (left out) */
	double *median, *lo, *hi;
	size_t *n_runs;
	size_t *index; /* the points with a value, in order: the series */
	size_t n;      /* its length */
	struct ul_history_cp cps[UL_HISTORY_MAX_CP];
	size_t n_cps; /* cp.pos indexes the series; index[] names the point */
};

struct ul_history {
	enum ul_history_order order;
	struct ul_cp_opts cp;
	struct ul_history_point *points;
	size_t n_points;
	struct ul_history_row *rows;
	size_t n_rows;
	const struct ul_run *reference; /* the configuration's: the newest run */
	size_t n_other_config;		/* runs of the scope left out: another configuration */
	struct ul_run *loaded;		/* owned */
	size_t n_loaded;
};

/*
 * The history of the finished runs of `sc` (labels[n_labels], when any,
 * naming the labels to take, in their order for UL_HISTORY_BY_LABEL),
 * suite `suite` alone unless NULL: the runs measured in the configuration
 * of the newest of them (ul_compare_same_config), grouped into points by
 * `order`, each suite's metrics and tests as rows with their change
 * points (`cp`).  0, -ENOENT when no run is left, -EIO (the store failed:
 * its error printed) or -ENOMEM.  Free it with ul_history_free().
 */
int ul_history_build(const struct ul_cmd_scope *sc, char *const *labels, size_t n_labels,
		     const char *suite, enum ul_history_order order, const struct ul_cp_opts *cp,
		     struct ul_history *out);
void ul_history_free(struct ul_history *h);

/* The outputs (cmd/history_out.c): 0 or -errno of the write. */
int ul_history_text(FILE *out, const struct ul_history *h);
int ul_history_json(FILE *out, const struct ul_history *h);
int ul_history_csv(FILE *out, const struct ul_history *h);
/* `report --history`'s page: one trend plot per row, change points marked
 * (cmd/history_html.c); 0 or -errno. */
int ul_history_html(FILE *out, const struct ul_history *h);

#endif
