/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The doctor's frequency check: a powersave governor, or a maximum
 * frequency set below what the CPU can do, makes timings depend on the
 * governor's mood or on a cap that another machine does not have.
 */
#include "core/compat.h"
#include "doctor/doctor.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_SYS "/sys/devices/system/cpu"

static bool read_cpu(int cpu, const char *file, char *buf, size_t len)
{
	char path[128];

	snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpufreq/%s", cpu, file);
	return !ul_fp_read_line(path, buf, len);
}

static void cpufreq(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		    struct ul_doctor_finding *f)
{
	char gov[64], cap[32], hw[32], first_gov[64] = "";
	int n = 0, powersave = 0, capped = -1;
	long cap_khz = 0, hw_khz = 0;

	(void)o;
	(void)s;
	for (int cpu = 0; cpu < 4096; cpu++) {
		char path[64];

		snprintf(path, sizeof(path), CPU_SYS "/cpu%d", cpu);
		if (access(path, F_OK))
			break;
		if (!read_cpu(cpu, "scaling_governor", gov, sizeof(gov)))
			continue;
		if (!n++)
			snprintf(first_gov, sizeof(first_gov), "%s", gov);
		powersave += !strcmp(gov, "powersave");
		if (capped < 0 && read_cpu(cpu, "scaling_max_freq", cap, sizeof(cap)) &&
		    read_cpu(cpu, "cpuinfo_max_freq", hw, sizeof(hw)) && atol(cap) < atol(hw)) {
			capped = cpu;
			cap_khz = atol(cap);
			hw_khz = atol(hw);
		}
	}
	if (!n) {
		snprintf(f->what, sizeof(f->what),
			 "no cpufreq here (a VM or a fixed clock): the frequency is not this "
			 "kernel's to set");
		return;
	}
	if (powersave || capped >= 0) {
		f->severity = UL_DOCTOR_WARN;
		if (capped >= 0)
			snprintf(f->what, sizeof(f->what),
				 "cpu%d's frequency is capped at %ld MHz of %ld MHz%s", capped,
				 cap_khz / 1000, hw_khz / 1000,
				 powersave ? ", with the powersave governor" : "");
		else
			snprintf(f->what, sizeof(f->what),
				 "%d of %d CPUs run the powersave governor", powersave, n);
		snprintf(f->todo, sizeof(f->todo),
			 "set the performance governor and lift the cap (cpupower frequency-set "
			 "-g performance -u max)");
		return;
	}
	snprintf(f->what, sizeof(f->what), "governor %s, no frequency cap", first_gov);
}

const struct ul_doctor_check ul_doctor_check_cpufreq = { "cpufreq", cpufreq };
