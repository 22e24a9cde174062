/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * sweep --within-run (contract: sweep.h): what it takes, its one run of
 * 4 x --repeat rounds (the sysctl journalled and set to A first, as for
 * whole runs, then written by the engine before each round), and that
 * run split into one run a side.  Each side's run is the whole run's metadata with a new UUID,
 * the side's label, the cells whose metric "setting" names that side
 * (engine/round_setting.h), and a fingerprint whose sysctl is the side's
 * value (the whole run's recorded the value at its start).  The two are
 * imported in one transaction, then the whole run is deleted, so the store
 * holds what a sweep of whole runs leaves: one run a label, which compare
 * reads unchanged.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/sweep.h"
#include "core/log.h"
#include "engine/round_setting.h"
#include "store/store.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

void sweep_split_free(struct ul_run side[2])
{
	for (int s = 0; s < 2; s++) {
		free(side[s].cells); /* the cells' contents are the whole run's */
		json_decref(side[s].fingerprint);
		memset(&side[s], 0, sizeof(side[s]));
	}
}

/* A deep copy of fp whose "sysctl" member has name = value; NULL without
 * memory.  A run without a fingerprint gets none. */
static json_t *side_fingerprint(const json_t *fp, const char *name, const char *value, bool *oom)
{
	json_t *copy, *sysctl;

	if (!fp)
		return NULL;
	copy = json_deep_copy(fp);
	sysctl = copy ? json_object_get(copy, "sysctl") : NULL;
	if (!copy || (sysctl && json_object_set_new(sysctl, name, json_string(value)))) {
		json_decref(copy);
		*oom = true;
		return NULL;
	}
	return copy;
}

int sweep_split_run(const struct ul_run *run, const char *sysctl, const char *const values[2],
		    const char *const labels[2], struct ul_run side[2])
{
	bool oom = false;

	memset(side, 0, 2 * sizeof(*side));
	for (int s = 0; s < 2; s++) {
		side[s] = *run;
		side[s].id = 0;
		side[s].cells = NULL;
		side[s].n_cells = side[s].cap_cells = 0;
		side[s].fingerprint = NULL;
		snprintf(side[s].label, sizeof(side[s].label), "%s", labels[s]);
		if (ul_run_new_uuid(&side[s]))
			goto fail;
		side[s].fingerprint = side_fingerprint(run->fingerprint, sysctl, values[s], &oom);
		if (oom ||
		    (run->n_cells && !(side[s].cells = calloc(run->n_cells, sizeof(*run->cells)))))
			goto fail;
		side[s].cap_cells = run->n_cells;
	}
	for (size_t i = 0; i < run->n_cells; i++) {
		double v;

		if (!ul_cell_metric(&run->cells[i], UL_CELL_SETTING, &v) || (v != 1 && v != 2)) {
			sweep_split_free(side);
			return -EINVAL;
		}
		side[(int)v - 1].cells[side[(int)v - 1].n_cells++] = run->cells[i];
	}
	return 0;
fail:
	sweep_split_free(side);
	return -ENOMEM;
}

/* The newest run labelled `label`: its UUID into uuid; 0 or -errno. */
static int find_newest(struct ul_store *st, const char *label, char uuid[37])
{
	struct ul_run_summary *runs = NULL;
	size_t n = 0;
	int rc = st->ops->list_runs(st, &runs, &n);

	for (size_t i = 0; !rc && i < n; i++)
		if (!strcmp(runs[i].label, label)) {
			memcpy(uuid, runs[i].uuid, 37);
			free(runs);
			return 0;
		}
	free(runs);
	return rc ? rc : -ENOENT;
}

/* The newest stored run labelled whole_label replaced by its two sides,
 * labelled sw->labels[0] and [1].  0 or UL_EXIT_ERROR after printing why. */
static int split_stored(struct sweep *sw, const char *whole_label)
{
	const struct setting *set = &sw->set[0];
	const char *const labels[2] = { sw->labels[0], sw->labels[1] };
	struct ul_store *st = NULL;
	struct ul_run whole, side[2];
	char uuid[37];
	int rc = ul_cmd_open_store_rw(sw->db, &st);

	if (rc)
		return UL_EXIT_ERROR;
	ul_run_init(&whole);
	rc = find_newest(st, whole_label, uuid);
	if (!rc)
		rc = st->ops->load_run(st, uuid, &whole);
	if (!rc) {
		rc = sweep_split_run(&whole, set->name, set->values, labels, side);
		if (rc == -EINVAL)
			snprintf(st->err, sizeof(st->err), "a cell has no setting metric");
	}
	if (!rc) {
		rc = st->ops->import_runs(st, side, 2, NULL);
		sweep_split_free(side);
	}
	if (!rc)
		rc = st->ops->delete_run(st, uuid);
	if (rc)
		ul_error("sweep: cannot split the run '%s' into one run a setting: %s", whole_label,
			 rc == -ENOENT ? "not found" : st->err);
	ul_run_release(&whole);
	ul_store_close(st);
	return rc ? UL_EXIT_ERROR : 0;
}

/* --within-run: the one run's label, "NAME=A,B within one run". */
static void whole_label(const struct sweep *sw, char *buf, size_t len)
{
	snprintf(buf, len, "%s=%s,%s within one run", sw->set[0].name, sw->set[0].values[0],
		 sw->set[0].values[1]);
}

int sweep_within_run(struct sweep *sw)
{
	static char runs[16], round_sysctl[160], label[128]; /* until exec */
	char *argv[256];
	size_t n = 0;
	int st, code;

	whole_label(sw, label, sizeof(label));
	snprintf(runs, sizeof(runs), "%d", 4 * sw->repeat);
	snprintf(round_sysctl, sizeof(round_sysctl), "%s=%s,%s", sw->set[0].name,
		 sw->set[0].values[0], sw->set[0].values[1]);
	argv[n++] = (char *)"underload";
	for (int i = 0; i < sw->n_run_args && n + 8 < UL_ARRAY_SIZE(argv); i++)
		argv[n++] = sw->run_args[i];
	argv[n++] = (char *)"--label";
	argv[n++] = label;
	argv[n++] = (char *)"--runs";
	argv[n++] = runs;
	argv[n++] = (char *)"--round-sysctl";
	argv[n++] = round_sysctl;
	argv[n] = NULL;
	fprintf(stderr, "sweep: one run of %s rounds, %s alternating A B B A\n", runs,
		round_sysctl);
	if (sweep_stopped())
		return UL_EXIT_INTERRUPTED;
	if (sweep_apply(sw, 0))
		return UL_EXIT_ERROR;
	st = sweep_run_child(sw->exe, argv);
	if (st < 0)
		return UL_EXIT_ERROR;
	code = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	if (sweep_stopped() || code == UL_EXIT_INTERRUPTED)
		return UL_EXIT_INTERRUPTED;
	if (code == UL_EXIT_USAGE)
		return UL_EXIT_USAGE; /* run said why (sweep_args.c refuses a suite without rounds first) */
	if (code != UL_EXIT_OK && code != UL_EXIT_FLAGGED) {
		ul_error("sweep: the run %s failed (exit %d)", label, code);
		return UL_EXIT_ERROR;
	}
	return split_stored(sw, label) ? UL_EXIT_ERROR : code;
}

int sweep_within_check(const struct sweep *sw)
{
	const struct setting *st = &sw->set[0];

	if (sw->n_set != 1 || !st->kind || strcmp(st->kind, "sysctl") || st->n_values != 2)
		return ul_usage_error("sweep", "--within-run alternates one sysctl's two values: "
					       "NAME=A,B and nothing else");
	if (sw->decide.until_decided)
		return ul_usage_error("sweep", "--within-run makes one run: no --until-decided");
	if (sw->runs_given)
		return ul_usage_error("sweep", "--within-run chooses the rounds (4 a --repeat): "
					       "no --runs in the run's arguments");
	return 0;
}
