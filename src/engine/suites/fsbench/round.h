/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * One round of the fsbench suite (engine/suites/fsbench/round.c): clients are
 * supervised children (ul_spawn: own process group, PDEATHSIG), started
 * behind one barrier (a ready pipe they all write, a go pipe whose EOF
 * releases them together) and driven by a phase word in shared memory.
 * Each client removes its own directory when it stops; whatever a killed
 * client leaves is removed with the run's scratch directory.
 */
#ifndef UL_ENGINE_FSBENCH_ROUND_H
#define UL_ENGINE_FSBENCH_ROUND_H

#include "core/compat.h"
#include "dbench/replay.h"

struct ul_engine;
struct ul_child;

struct ul_fsb_round_cfg {
	const struct ul_fsb_trace *trace;
	int root_fd; /* the suite's directory; clients work in clients/clientN */
	int clients;
	bool once;		     /* one pass, no warm-up */
	int64_t duration_ns;	     /* measured window when !once */
	int64_t warmup_ns;	     /* uncounted, before it */
	struct ul_child *load_child; /* the cell's load, to notice its death; may be NULL */
};

enum ul_fsb_round_outcome {
	UL_FSB_ROUND_OK = 0,
	UL_FSB_ROUND_CLIENT_FAILED, /* a client could not start or ended early (note) */
	UL_FSB_ROUND_LOAD_DIED,	    /* the cell's load exited (note: how) */
	UL_FSB_ROUND_TIMEOUT,	    /* one pass longer than --sample-timeout */
	UL_FSB_ROUND_INTERRUPTED,
};

struct ul_fsb_round {
	enum ul_fsb_round_outcome outcome;
	char note[200];
	bool disk_full;		   /* a client ran out of space (or into the reserve) */
	int64_t elapsed_ns;	   /* the measured window */
	struct ul_fsb_stats total; /* all clients merged */
	uint64_t *client_ops;	   /* [clients], caller-allocated */
	int64_t *client_finish_ns; /* [clients], caller-allocated */
};

/* Run one round.  0 (see out->outcome), or -errno when it could not be set
 * up at all (out of memory, no pipes).  Every client is gone on return. */
int ul_fsb_round_run(struct ul_engine *eng, const struct ul_fsb_round_cfg *cfg,
		     struct ul_fsb_round *out) UL_MUST_CHECK;

#endif
