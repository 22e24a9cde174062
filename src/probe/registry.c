/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe registry, expanded from probes.def. */
#include "core/compat.h"
#include "probe/probe.h"

#include <string.h>

#define UL_PROBE(file, ident) extern const struct ul_probe ul_probe_##ident;
#include "probe/probes.def"
#undef UL_PROBE

static const struct ul_probe *const probes[] = {
#define UL_PROBE(file, ident) &ul_probe_##ident,
#include "probe/probes.def"
#undef UL_PROBE
	NULL,
};

size_t ul_probe_count(void)
{
	return UL_ARRAY_SIZE(probes) - 1;
}

const struct ul_probe *ul_probe_at(size_t i)
{
	return i < ul_probe_count() ? probes[i] : NULL;
}

const struct ul_probe *ul_probe_find(const char *name)
{
	for (size_t i = 0; i < ul_probe_count(); i++)
		if (!strcmp(probes[i]->name, name))
			return probes[i];
	return NULL;
}

const char *ul_probe_kind_name(enum ul_probe_kind kind)
{
	switch (kind) {
	case UL_PROBE_REPEAT:
		return "repeat";
	case UL_PROBE_PERIODIC:
		return "periodic";
	case UL_PROBE_WHOLE:
		return "whole";
	case UL_PROBE_MICRO:
		return "micro";
	}
	return "?";
}
