/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The command registry, expanded from commands.def, and the shared usage error. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define UL_CMD(file, ident) extern const struct ul_cmd ul_cmd_desc_##ident;
#include "cmd/commands.def"
#undef UL_CMD

static const struct ul_cmd *const cmds[] = {
#define UL_CMD(file, ident) &ul_cmd_desc_##ident,
#include "cmd/commands.def"
#undef UL_CMD
	NULL,
};

size_t ul_cmd_count(void)
{
	return UL_ARRAY_SIZE(cmds) - 1;
}

const struct ul_cmd *ul_cmd_at(size_t i)
{
	return i < ul_cmd_count() ? cmds[i] : NULL;
}

const struct ul_cmd *ul_cmd_find(const char *name)
{
	for (size_t i = 0; i < ul_cmd_count(); i++)
		if (!strcmp(cmds[i]->name, name))
			return cmds[i];
	return NULL;
}

int ul_usage_error(const char *cmd, const char *fmt, ...)
{
	va_list ap;

	/* One line, naming the command so scripts' logs say where it came from. */
	va_start(ap, fmt);
	ul_vusage(cmd, fmt, ap);
	va_end(ap);
	return UL_EXIT_USAGE;
}
