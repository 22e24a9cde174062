/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * A sysctl alternated between the rounds of one run: `underload sweep
 * NAME=A,B --within-run` passes `run --round-sysctl NAME=A,B`, and before
 * each round of ul_engine_each_test the engine writes that round's value,
 * in the order A B B A A B B A ... (balanced: a slow drift of the machine
 * lands on both values alike).  Each cell records its round's value as the
 * metric UL_CELL_SETTING: 1 for A, 2 for B.  Whether that makes the S.D.
 * of the A-B difference smaller than alternating whole runs was measured
 * twice with bench/round-alternation.sh, with opposite answers for some
 * tests (underload(1), SWEEP): it is a choice, not the default.
 *
 * The run only writes: the sweep that started it holds the settings lock
 * (proc/settings_lock.h), journalled the original before the run started
 * and writes it back after the run ends however it ends (and `underload
 * cleanup` after a kill -9 of both).  run refuses the option when nobody
 * holds the lock.
 */
#ifndef UL_ENGINE_ROUND_SETTING_H
#define UL_ENGINE_ROUND_SETTING_H

#include "core/compat.h"

struct ul_engine_config;

/* The metric of a cell measured with a round setting: 1 (A) or 2 (B). */
#define UL_CELL_SETTING "setting"

/* The side (0: A, 1: B) of round `round` (0-based): A B B A A B B A ... */
int ul_engine_round_side(int round);
/* Before round `round`: write the round's value of cfg's round sysctl,
 * if it has one.  UL_ENGINE_OK, or UL_ENGINE_ERROR after printing why. */
int ul_engine_round_setting(const struct ul_engine_config *cfg, int round);

#endif
