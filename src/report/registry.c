/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The format registry, expanded from formats.def. */
#include "core/compat.h"
#include "report/format.h"

#include <string.h>

#define UL_FORMAT(file, ident) extern const struct ul_format ul_format_##ident;
#include "report/formats.def"
#undef UL_FORMAT

static const struct ul_format *const formats[] = {
#define UL_FORMAT(file, ident) &ul_format_##ident,
#include "report/formats.def"
#undef UL_FORMAT
	NULL,
};

size_t ul_format_count(void)
{
	return UL_ARRAY_SIZE(formats) - 1;
}

const struct ul_format *ul_format_at(size_t i)
{
	return i < ul_format_count() ? formats[i] : NULL;
}

const struct ul_format *ul_format_find(const char *name)
{
	for (size_t i = 0; i < ul_format_count(); i++)
		if (!strcmp(formats[i]->name, name))
			return formats[i];
	return NULL;
}
