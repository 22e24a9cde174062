/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The deadline monitor: one periodic probe for the whole run (--deadline
 * PROFILE), whose periods are cut into cells at their boundaries.  The
 * probe's ops do the work (probe/deadline_ops.c); the monitor picks the
 * profile, says what went wrong and when the probe died.  engine/deadline.h
 * says what each cell gets.  Its options (--deadline, --deadline-rt) are
 * its descriptor's table: run shows them among its own.
 */
#include "core/compat.h"
#include "engine/deadline.h"
#include "core/log.h"
#include "core/opt.h"
#include "engine/engine.h"
#include "probe/deadline.h"
#include "probe/probe.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* --deadline and --deadline-rt, as parsed; all zero is neither given. */
struct dl_opts {
	struct ul_deadline_spec spec; /* --deadline PROFILE; period_ns 0 = none given */
	bool off;		      /* --deadline none: not even mtest's default probe */
	bool rt;		      /* --deadline-rt: SCHED_FIFO when permitted */
};

/* The run's options, or the defaults when they were not parsed. */
static const struct dl_opts *dl_opts_of(const struct ul_engine *eng)
{
	static const struct dl_opts defaults;
	const struct dl_opts *o = ul_engine_monitor_opts(eng, &ul_monitor_deadline);

	return o ? o : &defaults;
}

static int set_deadline(void *base, const char *arg, char *err, size_t errlen)
{
	struct dl_opts *o = base;
	char why[160];

	o->off = !strcmp(arg, "none");
	memset(&o->spec, 0, sizeof(o->spec));
	if (o->off)
		return 0;
	if (ul_deadline_parse(arg, &o->spec, why, sizeof(why))) {
		memset(&o->spec, 0, sizeof(o->spec));
		snprintf(err, errlen, "invalid value '%s' for --deadline: %s", arg, why);
		return -EINVAL;
	}
	return 0;
}

static const struct ul_opt dl_opt_table[] = {
	{ "deadline", UL_OPT_CALL, .arg = "PROFILE", .set = set_deadline,
	  .def_text = "none; audio for mtest and the deadline suite",
	  .help = "a periodic deadline probe alongside: audio (20 Hz, 5%), video (60 Hz, 40%), "
		  "audio-50hz (50 Hz, 5%), PERIOD:WORK (e.g. 10ms:2ms or 20ms:5%) or none",
	  .man = "Each period it wakes at an absolute time and must do its CPU work before\n"
		 "the next; every wake-up latency, missed deadline, the longest stall and\n"
		 "the share of desired CPU are recorded.\n.B none\n"
		 "also turns off the audio probe mtest runs by default." },
	{ "deadline-rt", UL_OPT_FLAG, 0, 1, 0, UL_OPT_AT(struct dl_opts, rt),
	  .help = "run that probe SCHED_FIFO when permitted", .flags = UL_OPTF_NO_DEFAULT,
	  .man = "With\n.B \\-\\-deadline none\nthere is no such probe: refused with exit 2,\n"
		 "as is\n.B \\-\\-deadline none\nwith the deadline suite.",
	  .used_by = UL_OPT_SOME_SUITES, .used_with = "deadline" },
	{ NULL },
};

/* --deadline none removes the probe that --deadline-rt would make
 * real-time and that a suite measuring the deadline probe measures: with
 * either it would be accepted and then ignored. */
static int dl_check_opts(const void *opts, const struct ul_suite *const *suites, size_t n_suites,
			 char *err, size_t errlen)
{
	const struct dl_opts *o = opts;

	if (!o->off)
		return 0;
	if (o->rt) {
		snprintf(err, errlen,
			 "--deadline-rt needs a deadline probe, and "
			 "--deadline none runs none");
		return -EINVAL;
	}
	for (size_t k = 0; k < n_suites; k++)
		if (ul_probe_find(suites[k]->probe) == ul_probe_find("deadline")) {
			snprintf(err, errlen,
				 "--deadline none: the %s suite measures the deadline probe; give "
				 "it a PROFILE or leave --deadline out",
				 suites[k]->name);
			return -EINVAL;
		}
	return 0;
}

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
	const struct dl_opts *o = dl_opts_of(eng);

	return o->spec.period_ns > 0 && !o->off && !run_measures_deadline(eng);
}

/* --deadline's profile, or audio when none was given (mtest's default). */
static void spec_from_opts(const struct dl_opts *o, struct ul_deadline_spec *spec)
{
	char err[128];

	if (o->spec.period_ns > 0)
		*spec = o->spec;
	else if (ul_deadline_parse("audio", spec, err, sizeof(err)))
		UL_BUG("the audio profile does not parse: %s", err);
	spec->rt = o->rt;
}

static int dl_start(struct ul_engine *eng, void **state)
{
	struct ul_deadline_spec spec;
	struct ul_probe_ctx ctx;
	struct dl_mon *m;
	char why[256];
	int rc;

	spec_from_opts(dl_opts_of(eng), &spec);
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

bool ul_engine_deadline_off(const struct ul_engine *eng)
{
	return dl_opts_of(eng)->off;
}

struct ul_child *ul_engine_deadline_child(void *state)
{
	const struct dl_mon *m = state;

	return m ? m->probe->periodic->child(m->run) : NULL;
}

const struct ul_monitor ul_monitor_deadline = {
	.name = "deadline",
	.summary = "a periodic deadline probe (--deadline audio|video|PERIOD:WORK) alongside",
	.opts = dl_opt_table,
	.opts_size = sizeof(struct dl_opts),
	.check_opts = dl_check_opts,
	.enabled = dl_enabled,
	.start = dl_start,
	.stop = dl_stop,
	.cell_begin = dl_cell_begin,
	.cell_end = dl_cell_end,
};
