/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The format registry, expanded from formats.def. */
#include "core/compat.h"
#include "core/registry.h"
#include "report/format.h"

#define UL_FORMAT(file, ident) extern const struct ul_format ul_format_##ident;
#include "report/formats.def"
#undef UL_FORMAT

static const struct ul_format *const formats[] = {
#define UL_FORMAT(file, ident) &ul_format_##ident,
#include "report/formats.def"
#undef UL_FORMAT
	NULL,
};

UL_REGISTRY_LOOKUPS(struct ul_format, ul_format, formats)
UL_REGISTRY_NAMES(struct ul_format, ul_format)
