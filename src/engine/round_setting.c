/* SPDX-License-Identifier: GPL-2.0-or-later */
/* A sysctl alternated between rounds (contract: round_setting.h). */
#include "core/compat.h"
#include "engine/round_setting.h"
#include "engine/engine.h"
#include "proc/sysctl.h"

#include <stdio.h>

int ul_engine_round_side(int round)
{
	return ((round + 1) / 2) % 2;
}

int ul_engine_round_setting(const struct ul_engine_config *cfg, int round)
{
	const char *value;
	char why[256];

	if (!cfg->round_sysctl[0])
		return UL_ENGINE_OK;
	value = cfg->round_values[ul_engine_round_side(round)];
	if (ul_sysctl_write(cfg->round_sysctl, value, why, sizeof(why)))
		return ul_engine_fail("round %d: %s", round + 1, why);
	return UL_ENGINE_OK;
}
