/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload doctor`: what on this machine would ruin a comparison now. */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "core/log.h"
#include "doctor/doctor.h"

#include <stdio.h>

static const char doctor_help[] =
	"Check the machine for what ruins a comparison: other busy processes, steal\n"
	"time, a noisy clock, a powersave governor or frequency cap, no swap, a large\n"
	"dirty page cache, fragmentation, little free disk under --dir.  One line a\n"
	"finding: severity (info, warn, blocker), check, what was seen; what to do.\n"
	"\n";

static const char doctor_epilog[] =
	"\n"
	"Exit status: 0 nothing worse than info, 1 error, 2 bad usage, 3 a blocker\n"
	"(run --strict would refuse to start), 4 warnings but no blocker.\n";

struct doctor_args {
	const char *dir;
	int64_t window_ns;
};

#define A(member) UL_OPT_AT(struct doctor_args, member)
static const struct ul_opt doctor_opts[] = {
	/* The default of run's --dir. */
	{ "dir", UL_OPT_STRING, .arg = "PATH", A(dir), .def_str = "/var/tmp",
	  .help = "the directory whose free space is checked (run's --dir)" },
	{ "window", UL_OPT_DURATION, 100 * UL_NS_PER_MS, 60 * UL_NS_PER_SEC, UL_DOCTOR_WINDOW_NS,
	  "how long the CPU, steal and clock are watched", .arg = "DUR", A(window_ns) },
	{ NULL },
};
#undef A

extern const struct ul_cmd ul_cmd_desc_doctor;

int ul_cmd_doctor(int argc, char **argv);
int ul_cmd_doctor(int argc, char **argv)
{
	struct doctor_args a;
	struct ul_doctor_report r;
	struct ul_doctor_opts o;
	int first, ret;

	ret = ul_cmd_parse(&ul_cmd_desc_doctor, &a, argc, argv, &first);
	if (ret)
		return ret == UL_CMD_HELP_SHOWN ? UL_EXIT_OK : ret;
	if (first != argc)
		return ul_usage_error("doctor", "unexpected argument '%s'", argv[first]);
	o = (struct ul_doctor_opts){ .dir = a.dir, .window_ns = a.window_ns };
	ret = ul_doctor_run(&o, &r);
	if (ret) {
		ul_error_errno(ret, "cannot examine the machine");
		return UL_EXIT_ERROR;
	}
	if (ul_doctor_print(stdout, &r))
		return UL_EXIT_ERROR;
	return r.worst == UL_DOCTOR_BLOCKER ? UL_EXIT_UNSUPPORTED
	       : r.worst == UL_DOCTOR_WARN  ? UL_EXIT_FLAGGED
					    : UL_EXIT_OK;
}

const struct ul_cmd ul_cmd_desc_doctor = {
	.name = "doctor",
	.summary = "check the machine for what would ruin a comparison",
	.help = doctor_help,
	.opts = doctor_opts,
	.epilog = doctor_epilog,
	.fn = ul_cmd_doctor,
};
