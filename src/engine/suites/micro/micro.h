/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The micro suite's settings and its run (engine/suites/micro/micro.c). */
#ifndef UL_ENGINE_MICRO_H
#define UL_ENGINE_MICRO_H

#include "core/compat.h"

struct ul_engine;
struct ul_suite;

/* The micro suite's options of `underload run`, validated. */
struct ul_micro_suite_opts {
	bool pinned;	      /* --cpu-pin given: the placements' first CPU */
	int cpu;	      /* its CPU, online */
	int64_t batches;      /* --batches; 0 = the profile's (11, --quick 5) */
	int64_t min_batch_ns; /* --min-batch; 0 = the profile's (100ms, --quick 10ms) */
};

/* Run the tests --tests selects (all when none) under each --under load
 * in turn; an enum ul_engine_result. */
int ul_micro_suite_run(struct ul_engine *eng, const struct ul_suite *suite,
		       const struct ul_micro_suite_opts *o);

#endif
