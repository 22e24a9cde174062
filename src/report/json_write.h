/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * How the report writers (compare, compare --variance, history) end a
 * JSON document: one call that writes it as they all do and says whether
 * the stream took it.
 */
#ifndef UL_REPORT_JSON_WRITE_H
#define UL_REPORT_JSON_WRITE_H

#include "core/compat.h"

#include <jansson.h>
#include <stdio.h>

/*
 * Write `root` to out, indented by two, keys in the order they were set,
 * then a newline, and flush (report/common.h's ul_report_finish).  Takes
 * the reference to root, written or not: a NULL root (a json_pack or
 * json_object that failed) is -ENOMEM.  0, -ENOMEM, or -EIO when the
 * stream failed (a write, the flush, or an earlier write to it).
 */
int ul_json_write(FILE *out, json_t *root);

#endif
