/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The load registry, expanded from loads.def. */
#include "core/compat.h"
#include "load/load.h"

#include <string.h>

#define UL_LOAD(file, ident) extern const struct ul_load ul_load_##ident;
#include "load/loads.def"
#undef UL_LOAD

static const struct ul_load *const loads[] = {
#define UL_LOAD(file, ident) &ul_load_##ident,
#include "load/loads.def"
#undef UL_LOAD
	NULL,
};

size_t ul_load_count(void)
{
	return UL_ARRAY_SIZE(loads) - 1;
}

const struct ul_load *ul_load_at(size_t i)
{
	return i < ul_load_count() ? loads[i] : NULL;
}

const struct ul_load *ul_load_find(const char *name)
{
	for (size_t i = 0; i < ul_load_count(); i++)
		if (!strcmp(loads[i]->name, name))
			return loads[i];
	return NULL;
}
