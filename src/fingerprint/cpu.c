/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "cpu": model, microcode, online CPUs, SMT, the
 * frequency governor and limits (of each CPU, joined when they differ),
 * isolated CPUs and the vulnerability mitigations.
 */
#include "core/compat.h"
#include "fingerprint/fingerprint.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CPU_SYS "/sys/devices/system/cpu"

/* "model name" and "microcode" of the first CPU in /proc/cpuinfo. */
static int put_cpuinfo(json_t *obj)
{
	char line[512], model[256] = "", micro[64] = "";
	FILE *f = fopen("/proc/cpuinfo", "re");

	while (f && fgets(line, sizeof(line), f) && !(model[0] && micro[0])) {
		char *colon = strchr(line, ':');
		char *dst = NULL;
		size_t len = 0;

		if (!colon)
			continue;
		if (!model[0] && !strncmp(line, "model name", 10)) {
			dst = model;
			len = sizeof(model);
		} else if (!micro[0] && !strncmp(line, "microcode", 9)) {
			dst = micro;
			len = sizeof(micro);
		}
		if (dst) {
			colon += 1 + strspn(colon + 1, " \t");
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(dst, len, "%s", colon);
		}
	}
	if (f)
		fclose(f);
	return ul_fp_put_str(obj, "model", model[0] ? model : NULL) ||
			       ul_fp_put_str(obj, "microcode", micro[0] ? micro : NULL)
		       ? -ENOMEM
		       : 0;
}

/*
 * obj[key] = cpufreq/FILE of every online CPU: one value when they agree,
 * "cpu0=A cpu1=B ..." when not, "absent" without cpufreq.
 */
static int put_per_cpu(json_t *obj, const char *key, const char *file)
{
	char all[1024] = "", first[128] = "";
	size_t off = 0;
	bool same = true;
	int ncpu = 0;

	for (int cpu = 0; cpu < 4096; cpu++) {
		char path[128], v[128];

		snprintf(path, sizeof(path), CPU_SYS "/cpu%d/cpufreq/%s", cpu, file);
		if (ul_fp_read_line(path, v, sizeof(v))) {
			snprintf(path, sizeof(path), CPU_SYS "/cpu%d", cpu);
			if (access(path, F_OK))
				break; /* no more CPUs */
			continue;
		}
		if (!ncpu++)
			snprintf(first, sizeof(first), "%s", v);
		same &= !strcmp(first, v);
		if (off < sizeof(all))
			off += (size_t)snprintf(all + off, sizeof(all) - off, "%scpu%d=%s",
						off ? " " : "", cpu, v);
	}
	return ul_fp_put_str(obj, key, !ncpu ? NULL : same ? first : all);
}

static int no_dots(const struct dirent *e)
{
	return e->d_name[0] != '.';
}

/* Every vulnerabilities/ file as "name": "state", sorted by name. */
static int put_vulnerabilities(json_t *obj)
{
	struct dirent **names = NULL;
	int n = scandir(CPU_SYS "/vulnerabilities", &names, no_dots, alphasort);
	json_t *v = n >= 0 ? json_object() : json_string(UL_FP_ABSENT);
	int rc = v ? 0 : -ENOMEM;

	for (int i = 0; i < n; i++) {
		char path[512];

		snprintf(path, sizeof(path), CPU_SYS "/vulnerabilities/%s", names[i]->d_name);
		if (!rc)
			rc = ul_fp_put_file(v, names[i]->d_name, path);
		free(names[i]);
	}
	free(names);
	if (rc) {
		json_decref(v);
		return rc;
	}
	return json_object_set_new(obj, "vulnerabilities", v) ? -ENOMEM : 0;
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	/* The CPUs the run's scene was given (run --cpus), "all" without. */
	if (put_cpuinfo(obj) || ul_fp_put_str(obj, "cpus", ctx->cpus ? ctx->cpus : "all") ||
	    ul_fp_put_file(obj, "online", CPU_SYS "/online") ||
	    ul_fp_put_file(obj, "isolated", CPU_SYS "/isolated") ||
	    ul_fp_put_file(obj, "smt_control", CPU_SYS "/smt/control") ||
	    ul_fp_put_file(obj, "smt_active", CPU_SYS "/smt/active") ||
	    put_per_cpu(obj, "governor", "scaling_governor") ||
	    put_per_cpu(obj, "driver", "scaling_driver") ||
	    put_per_cpu(obj, "min_freq_khz", "scaling_min_freq") ||
	    put_per_cpu(obj, "max_freq_khz", "scaling_max_freq") ||
	    put_per_cpu(obj, "hw_max_freq_khz", "cpuinfo_max_freq") ||
	    ul_fp_put_file(obj, "boost", CPU_SYS "/cpufreq/boost") ||
	    ul_fp_put_file(obj, "intel_no_turbo", CPU_SYS "/intel_pstate/no_turbo"))
		return -ENOMEM;
	return put_vulnerabilities(obj);
}

const struct ul_fp_source ul_fp_source_cpu = {
	.name = "cpu",
	.collect = collect,
};
