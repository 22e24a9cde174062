/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The load registry, expanded from loads.def. */
#include "core/compat.h"
#include "core/registry.h"
#include "load/load.h"

#define UL_LOAD(file, ident) extern const struct ul_load ul_load_##ident;
#include "load/loads.def"
#undef UL_LOAD

static const struct ul_load *const loads[] = {
#define UL_LOAD(file, ident) &ul_load_##ident,
#include "load/loads.def"
#undef UL_LOAD
	NULL,
};

UL_REGISTRY_LOOKUPS(struct ul_load, ul_load, loads)
