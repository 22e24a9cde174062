/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline monitor: one periodic probe for the whole run (--deadline
 * PROFILE), whose periods are cut into cells at their boundaries.  The
 * probe's ops do the work (probe/deadline_ops.c); the monitor picks the
 * profile, says what went wrong and when the probe died.  engine/deadline.h
 * says what each cell gets.
 */
#include "core/compat.h"
#include "engine/deadline.h"
#include "core/log.h"
#include "engine/engine.h"
#include "probe/deadline.h"
#include "probe/probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The periodic probe the monitor runs, and its state. */
struct dl_mon {
	const struct ul_probe *probe;
	void *run;
	bool warned_dead;
};

/* Whether suite `name` is one of the run's. */
static bool run_has_suite(const struct ul_engine *eng, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = eng->run->suites; (p = strstr(p, name)); p += n)
		if ((p == eng->run->suites || p[-1] == ',') && (p[n] == ',' || p[n] == '\0'))
			return true;
	return false;
}

/* Whether one of the run's suites measures with the monitor's probe (the
 * deadline suite): it drives that probe itself. */
static bool run_measures_deadline(const struct ul_engine *eng)
{
	const struct ul_probe *dl = ul_probe_find("deadline");

	for (size_t i = 0; i < ul_suite_count(); i++) {
		const struct ul_suite *suite = ul_suite_at(i);

		if (ul_probe_find(suite->probe) == dl && run_has_suite(eng, suite->name))
			return true;
	}
	return false;
}

static bool dl_enabled(const struct ul_engine *eng)
{
	return eng->cfg->deadline_period_ns > 0 && !eng->cfg->deadline_off &&
	       !run_measures_deadline(eng);
}

/* --deadline's profile, or audio when none was given (mtest's default). */
static void spec_from_cfg(const struct ul_engine_config *cfg, struct ul_deadline_spec *spec)
{
	char err[128];

	memset(spec, 0, sizeof(*spec));
	if (cfg->deadline_period_ns > 0) {
		snprintf(spec->name, sizeof(spec->name), "%s",
			 cfg->deadline_profile[0] ? cfg->deadline_profile : "custom");
		spec->period_ns = cfg->deadline_period_ns;
		spec->work_ns = cfg->deadline_work_ns;
	} else if (ul_deadline_parse("audio", spec, err, sizeof(err))) {
		UL_BUG("the audio profile does not parse: %s", err);
	}
	spec->rt = cfg->deadline_rt;
}

static int dl_start(struct ul_engine *eng, void **state)
{
	struct ul_deadline_spec spec;
	struct ul_probe_ctx ctx;
	struct dl_mon *m;
	char why[256];
	int rc;

	spec_from_cfg(eng->cfg, &spec);
	m = calloc(1, sizeof(*m));
	if (!m)
		return -ENOMEM;
	m->probe = ul_probe_find("deadline");
	if (!m->probe || !m->probe->periodic)
		UL_BUG("the deadline probe is not registered with its periodic ops");
	ul_engine_probe_ctx(eng, m->probe, &ctx);
	ctx.arg = &spec;
	rc = m->probe->periodic->start(&eng->sup, &ctx, eng->cfg->ready_timeout_ns, &m->run, why,
				       sizeof(why));
	if (rc) {
		free(m);
		if (rc != -EINTR)
			ul_error("%s", why);
		return rc;
	}
	if (why[0])
		ul_warning("%s", why);
	*state = m;
	return 0;
}

static void dl_stop(struct ul_engine *eng, void *state)
{
	struct dl_mon *m = state;

	m->probe->periodic->stop(&eng->sup, m->run);
	free(m);
}

static int dl_cell_begin(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct dl_mon *m = state;

	(void)eng;
	(void)cell;
	m->probe->periodic->measure(m->run);
	return 0;
}

static int dl_cell_end(struct ul_engine *eng, void *state, struct ul_cell *cell)
{
	struct dl_mon *m = state;
	int rc = m->probe->periodic->result(m->run, cell);

	(void)eng;
	if (m->probe->periodic->child(m->run)->reaped && !m->warned_dead) {
		m->warned_dead = true;
		ul_warning("the deadline probe died during cell '%s/%s'; later cells have no "
			   "deadline records",
			   cell->suite, cell->load);
	}
	return rc;
}

void *ul_engine_deadline_state(const struct ul_engine *eng)
{
	for (size_t i = 0; i < eng->monitors.n; i++)
		if (eng->monitors.mon[i] == &ul_monitor_deadline)
			return eng->monitors.state[i];
	return NULL;
}

struct ul_child *ul_engine_deadline_child(void *state)
{
	const struct dl_mon *m = state;

	return m ? m->probe->periodic->child(m->run) : NULL;
}

const struct ul_monitor ul_monitor_deadline = {
	.name = "deadline",
	.summary = "a periodic deadline probe (--deadline audio|video|PERIOD:WORK) alongside",
	.enabled = dl_enabled,
	.start = dl_start,
	.stop = dl_stop,
	.cell_begin = dl_cell_begin,
	.cell_end = dl_cell_end,
};
