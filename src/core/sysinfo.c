/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Host fingerprint and memory figures from uname(2) and /proc. */
#include "core/compat.h"
#include "core/sysinfo.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

int ul_online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	return n > 0 ? (int)n : 1;
}

static int meminfo_field(const char *text, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, klen) && p[klen] == ':') {
			unsigned long long kb;

			if (sscanf(p + klen + 1, " %llu", &kb) != 1)
				return -EINVAL;
			*out = (uint64_t)kb * 1024;
			return 0;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return -EINVAL;
}

int ul_meminfo_parse(const char *text, struct ul_meminfo *mi)
{
	memset(mi, 0, sizeof(*mi));
	if (meminfo_field(text, "MemTotal", &mi->total) ||
	    meminfo_field(text, "MemFree", &mi->free) ||
	    meminfo_field(text, "SwapTotal", &mi->swap_total) ||
	    meminfo_field(text, "SwapFree", &mi->swap_free))
		return -EINVAL;
	if (meminfo_field(text, "Cached", &mi->cached))
		mi->cached = 0;
	if (meminfo_field(text, "MemAvailable", &mi->available))
		mi->available = mi->free + mi->cached;
	return 0;
}

int ul_meminfo_read(struct ul_meminfo *mi)
{
	char buf[8192];
	size_t n;
	FILE *f = fopen("/proc/meminfo", "re");

	if (!f)
		return -errno;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = '\0';
	return ul_meminfo_parse(buf, mi);
}

static void read_cpu_model(char *out, size_t len)
{
	char line[512];
	FILE *f = fopen("/proc/cpuinfo", "re");

	snprintf(out, len, "unknown");
	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		char *colon = strchr(line, ':');

		if (!strncmp(line, "model name", 10) && colon) {
			colon++;
			while (*colon == ' ' || *colon == '\t')
				colon++;
			colon[strcspn(colon, "\n")] = '\0';
			snprintf(out, len, "%s", colon);
			break;
		}
	}
	fclose(f);
}

int ul_host_read(struct ul_host *host)
{
	struct utsname u;
	struct ul_meminfo mi;
	int rc;

	memset(host, 0, sizeof(*host));
	if (uname(&u))
		return -errno;
	snprintf(host->hostname, sizeof(host->hostname), "%s", u.nodename);
	snprintf(host->kernel_release, sizeof(host->kernel_release), "%s", u.release);
	snprintf(host->kernel_version, sizeof(host->kernel_version), "%s", u.version);
	snprintf(host->arch, sizeof(host->arch), "%s", u.machine);
	read_cpu_model(host->cpu_model, sizeof(host->cpu_model));
	host->ncpu = ul_online_cpus();
	rc = ul_meminfo_read(&mi);
	if (rc)
		return rc;
	host->mem_total_bytes = mi.total;
	host->swap_total_bytes = mi.swap_total;
	return 0;
}
