/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The report writers' JSON document, written out (report/json_write.h). */
#include "core/compat.h"
#include "report/json_write.h"
#include "report/common.h"

#include <errno.h>

int ul_json_write(FILE *out, json_t *root)
{
	int rc;

	if (!root)
		return -ENOMEM;
	if (json_dumpf(root, out, JSON_INDENT(2) | JSON_PRESERVE_ORDER) || fputc('\n', out) == EOF)
		rc = -EIO;
	else
		rc = ul_report_finish(out);
	json_decref(root);
	return rc;
}
