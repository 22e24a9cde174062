/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The one rule for a NAME that may be a label or a run (compare, report,
 * export): "label:X" is the label X, "run:X" the run reference X; a plain
 * name is whichever it names, and one that names both (a label "1" and
 * run 1, a label "last") is refused as ambiguous rather than guessed.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "store/store.h"

#include <errno.h>
#include <string.h>

#define LABEL_PREFIX "label:"
#define RUN_PREFIX "run:"

const char *ul_cmd_label_name(const char *name)
{
	return strncmp(name, LABEL_PREFIX, strlen(LABEL_PREFIX)) ? name
								 : name + strlen(LABEL_PREFIX);
}

static bool is_label(const struct ul_run_summary *sum, size_t n, const char *label)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(sum[i].label, label))
			return true;
	return false;
}

int ul_cmd_name(struct ul_store *st, const char *cmd, const struct ul_run_summary *sum, size_t n,
		const char *name, struct ul_cmd_named *out)
{
	bool want_label = !strncmp(name, LABEL_PREFIX, strlen(LABEL_PREFIX));
	bool want_run = !strncmp(name, RUN_PREFIX, strlen(RUN_PREFIX));
	const char *label = ul_cmd_label_name(name);
	bool a_label = !want_run && is_label(sum, n, label);
	int rc = -ENOENT;

	memset(out, 0, sizeof(*out));
	if (!want_label) {
		rc = st->ops->find_run(st, name, &out->run); /* the store reads "run:" too */
		if (rc && rc != -ENOENT && rc != -EINVAL)
			return ul_error("%s", st->err), UL_EXIT_ERROR;
	}
	if (!rc && a_label)
		return ul_usage_error(cmd,
				      "'%.64s' is both a label and a run: write '" LABEL_PREFIX
				      "%.64s' or '" RUN_PREFIX "%.64s'",
				      name, name, name);
	if (a_label) {
		out->is_label = true;
		out->label = label;
		return UL_EXIT_OK;
	}
	if (!rc)
		return UL_EXIT_OK;
	if (want_label)
		return ul_usage_error(cmd, "no stored run has the label '%.64s'", label);
	if (want_run)
		return ul_usage_error(cmd, "%s", st->err);
	return ul_usage_error(cmd, "'%.64s' is neither a label nor a run", name);
}
