/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The probe registry, expanded from probes.def. */
#include "core/compat.h"
#include "core/registry.h"
#include "probe/probe.h"

#define UL_PROBE(file, ident) extern const struct ul_probe ul_probe_##ident;
#include "probe/probes.def"
#undef UL_PROBE

static const struct ul_probe *const probes[] = {
#define UL_PROBE(file, ident) &ul_probe_##ident,
#include "probe/probes.def"
#undef UL_PROBE
	NULL,
};

UL_REGISTRY_LOOKUPS(struct ul_probe, ul_probe, probes)

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
