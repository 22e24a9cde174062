/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The micro benchmarks in summary order (tables, then columns), from benches.def. */
#include "core/compat.h"
#include "probe/micro/micro.h"

#include <string.h>

#define UL_MICRO(file, ident) extern const struct ul_micro_bench ul_micro_##ident;
#include "probe/micro/benches.def"
#undef UL_MICRO

static const struct ul_micro_bench *const benches[] = {
#define UL_MICRO(file, ident) &ul_micro_##ident,
#include "probe/micro/benches.def"
#undef UL_MICRO
};

size_t ul_micro_bench_count(void)
{
	return UL_ARRAY_SIZE(benches);
}

const struct ul_micro_bench *ul_micro_bench_at(size_t i)
{
	return i < UL_ARRAY_SIZE(benches) ? benches[i] : NULL;
}

const struct ul_micro_bench *ul_micro_bench_find(const char *name)
{
	for (size_t i = 0; i < UL_ARRAY_SIZE(benches); i++)
		if (!strcmp(benches[i]->name, name))
			return benches[i];
	return NULL;
}
