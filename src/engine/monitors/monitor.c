/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The monitor registry (monitors.def) and the calls suites make per cell. */
#include "core/compat.h"
#include "core/registry.h"
#include "engine/monitors/monitor.h"
#include "core/log.h"
#include "engine/engine.h"

#include <string.h>

#define UL_MONITOR(file, ident) extern const struct ul_monitor ul_monitor_##ident;
#include "engine/monitors/monitors.def"
#undef UL_MONITOR

static const struct ul_monitor *const monitors[] = {
#define UL_MONITOR(file, ident) &ul_monitor_##ident,
#include "engine/monitors/monitors.def"
#undef UL_MONITOR
	NULL,
};
/* Every monitor fits a run's struct ul_monitor_set (monitor.h). */
_Static_assert(UL_ARRAY_SIZE(monitors) - 1 <= UL_MAX_MONITORS,
	       "monitors.def lists more monitors than UL_MAX_MONITORS");

UL_REGISTRY_INDEX(struct ul_monitor, ul_monitor, monitors)

int ul_monitors_start(struct ul_engine *eng)
{
	struct ul_monitor_set *set = &eng->monitors;

	set->n = 0;
	for (size_t i = 0; i < ul_monitor_count(); i++) {
		const struct ul_monitor *m = monitors[i];
		void *state = NULL;
		int rc;

		if (m->enabled && !m->enabled(eng))
			continue;
		if (m->start) {
			rc = m->start(eng, &state);
			if (rc) {
				ul_error_errno(rc, "monitor '%s' did not start", m->name);
				ul_monitors_stop(eng);
				return rc;
			}
		}
		set->mon[set->n] = m;
		set->state[set->n++] = state;
	}
	return 0;
}

void ul_monitors_stop(struct ul_engine *eng)
{
	struct ul_monitor_set *set = &eng->monitors;

	while (set->n > 0) {
		set->n--;
		if (set->mon[set->n]->stop)
			set->mon[set->n]->stop(eng, set->state[set->n]);
	}
}

void ul_monitors_begin(struct ul_engine *eng, struct ul_cell *cell)
{
	struct ul_monitor_set *set = &eng->monitors;

	for (size_t i = 0; i < set->n; i++)
		if (set->mon[i]->cell_begin && set->mon[i]->cell_begin(eng, set->state[i], cell))
			ul_warning("monitor '%s' could not start recording cell '%s'",
				   set->mon[i]->name, cell->load);
}

void ul_monitors_end(struct ul_engine *eng, struct ul_cell *cell)
{
	struct ul_monitor_set *set = &eng->monitors;

	for (size_t i = 0; i < set->n; i++)
		if (set->mon[i]->cell_end && set->mon[i]->cell_end(eng, set->state[i], cell))
			ul_warning("monitor '%s' could not record cell '%s'", set->mon[i]->name,
				   cell->load);
}
