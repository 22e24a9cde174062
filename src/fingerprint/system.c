/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fingerprint source "system": the cgroup version and the virtualisation
 * (what systemd-detect-virt would say, from DMI, the CPU's hypervisor flag,
 * PID 1's environment and the files container engines leave at the root).
 */
#include "core/compat.h"
#include "core/file.h"
#include "fingerprint/fingerprint.h"

#include <errno.h>
#include <linux/magic.h>
#include <stdio.h>
#include <string.h>
#include <sys/vfs.h>
#include <unistd.h>

static const char *cgroup_version(void)
{
	struct statfs fs;

	if (statfs("/sys/fs/cgroup", &fs))
		return NULL;
	if (fs.f_type == CGROUP2_SUPER_MAGIC)
		return "2";
	if (!statfs("/sys/fs/cgroup/unified", &fs) && fs.f_type == CGROUP2_SUPER_MAGIC)
		return "1 (hybrid: v2 mounted at unified/)";
	return "1";
}

/* Does /proc/cpuinfo list the "hypervisor" flag? */
static bool cpu_hypervisor(void)
{
	char line[4096];
	FILE *f = fopen("/proc/cpuinfo", "re");
	bool found = false;

	while (f && !found && fgets(line, sizeof(line), f))
		if (!strncmp(line, "flags", 5))
			found = strstr(line, " hypervisor") != NULL;
	if (f)
		fclose(f);
	return found;
}

static const char *virt(void)
{
	char vendor[128] = "", product[128] = "", bios[128] = "", hv[64] = "", rel[256] = "";
	char env[4096] = "";
	ssize_t n = ul_read_file("/proc/1/environ", env, sizeof(env));
	struct ul_fp_virt_inputs in = {
		.dmi_vendor = vendor,
		.dmi_product = product,
		.dmi_bios = bios,
		.hv_type = hv,
		.pid1_environ = env,
		.osrelease = rel,
	};

	for (ssize_t i = 0; i < n; i++)
		if (!env[i])
			env[i] = '\n';
	if (n < 0)
		env[0] = '\0';
	(void)!ul_fp_read_line("/sys/class/dmi/id/sys_vendor", vendor, sizeof(vendor));
	(void)!ul_fp_read_line("/sys/class/dmi/id/product_name", product, sizeof(product));
	(void)!ul_fp_read_line("/sys/class/dmi/id/bios_vendor", bios, sizeof(bios));
	(void)!ul_fp_read_line("/sys/hypervisor/type", hv, sizeof(hv));
	(void)!ul_fp_read_line("/proc/sys/kernel/osrelease", rel, sizeof(rel));
	in.cpu_hypervisor = cpu_hypervisor();
	in.dockerenv = !access("/.dockerenv", F_OK);
	in.containerenv = !access("/run/.containerenv", F_OK);
	return ul_fp_virt_detect(&in);
}

static int collect(const struct ul_fp_ctx *ctx, json_t *obj)
{
	(void)ctx;
	return ul_fp_put_str(obj, "cgroup", cgroup_version()) ||
			       ul_fp_put_str(obj, "virtualization", virt())
		       ? -ENOMEM
		       : 0;
}

const struct ul_fp_source ul_fp_source_system = {
	.name = "system",
	.collect = collect,
};
