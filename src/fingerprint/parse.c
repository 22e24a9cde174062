/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The fingerprint's parsers: pure functions of the text a source read. */
#include "core/compat.h"
#include "fingerprint/fingerprint.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Debug options that slow a kernel down measurably (seed 004), and the tick
 * modes, which change timer-driven latencies as HZ does. */
const char *const ul_fp_kconfig_debug[] = {
	"CONFIG_LOCKDEP",
	"CONFIG_PROVE_LOCKING",
	"CONFIG_DEBUG_LOCK_ALLOC",
	"CONFIG_LOCK_STAT",
	"CONFIG_KASAN",
	"CONFIG_KCSAN",
	"CONFIG_KMSAN",
	"CONFIG_UBSAN",
	"CONFIG_DEBUG_KMEMLEAK",
	"CONFIG_DEBUG_PAGEALLOC",
	"CONFIG_DEBUG_VM",
	"CONFIG_DEBUG_OBJECTS",
	"CONFIG_DEBUG_ATOMIC_SLEEP",
	"CONFIG_DEBUG_PREEMPT",
	"CONFIG_DEBUG_SPINLOCK",
	"CONFIG_DEBUG_MUTEXES",
	"CONFIG_SLUB_DEBUG_ON",
	"CONFIG_PAGE_POISONING",
	"CONFIG_KFENCE",
	"CONFIG_FTRACE",
	"CONFIG_SCHED_DEBUG",
	"CONFIG_NO_HZ_IDLE",
	"CONFIG_NO_HZ_FULL",
	NULL,
};

static bool is_debug(const char *name, size_t len)
{
	for (size_t i = 0; ul_fp_kconfig_debug[i]; i++)
		if (strlen(ul_fp_kconfig_debug[i]) == len &&
		    !strncmp(ul_fp_kconfig_debug[i], name, len))
			return true;
	return false;
}

static bool is_timing(const char *name, size_t len)
{
	return (len >= 14 && !strncmp(name, "CONFIG_PREEMPT", 14)) ||
	       (len >= 9 && !strncmp(name, "CONFIG_HZ", 9)) || is_debug(name, len);
}

/* One line: "CONFIG_X=v" or "# CONFIG_X is not set" -> name, value. */
static bool config_line(const char *p, size_t n, const char **name, size_t *nlen, const char **val,
			size_t *vlen)
{
	const char *eq;

	if (n > 2 && !strncmp(p, "# CONFIG_", 9)) {
		const char *end = memchr(p + 2, ' ', n - 2);

		if (!end || (size_t)(p + n - end) != 11 || strncmp(end, " is not set", 11))
			return false;
		*name = p + 2;
		*nlen = (size_t)(end - *name);
		*val = "n";
		*vlen = 1;
		return true;
	}
	if (n < 8 || strncmp(p, "CONFIG_", 7) || !(eq = memchr(p, '=', n)))
		return false;
	*name = p;
	*nlen = (size_t)(eq - p);
	*val = eq + 1;
	*vlen = n - *nlen - 1;
	if (*vlen >= 2 && (*val)[0] == '"' && (*val)[*vlen - 1] == '"') {
		(*val)++;
		*vlen -= 2;
	}
	return true;
}

int ul_fp_kconfig_timing(const char *text, json_t *obj)
{
	for (const char *p = text; *p;) {
		size_t n = strcspn(p, "\n"), nlen, vlen;
		const char *name, *val;

		if (config_line(p, n, &name, &nlen, &val, &vlen) && nlen < 64 &&
		    is_timing(name, nlen)) {
			char key[64];

			memcpy(key, name, nlen);
			key[nlen] = '\0';
			if (json_object_set_new(obj, key, json_stringn(val, vlen)))
				return -ENOMEM;
		}
		p += n;
		if (*p)
			p++;
	}
	/* A debug option the config does not mention is off. */
	for (size_t i = 0; ul_fp_kconfig_debug[i]; i++)
		if (!json_object_get(obj, ul_fp_kconfig_debug[i]) &&
		    json_object_set_new(obj, ul_fp_kconfig_debug[i], json_string("n")))
			return -ENOMEM;
	return 0;
}

int ul_fp_selected(const char *text, char *buf, size_t len)
{
	const char *open = strchr(text, '['), *close;

	if (!open || !(close = strchr(open, ']')) || close == open + 1)
		return -EINVAL;
	snprintf(buf, len, "%.*s", (int)(close - open - 1), open + 1);
	return 0;
}

/* A mountinfo path with its octal escapes (\040 for a blank) decoded in place. */
static void unescape(char *s)
{
	char *w = s;

	for (char *r = s; *r; r++) {
		if (r[0] == '\\' && r[1] >= '0' && r[1] <= '3' && r[2] >= '0' && r[2] <= '7' &&
		    r[3] >= '0' && r[3] <= '7') {
			*w++ = (char)((r[1] - '0') * 64 + (r[2] - '0') * 8 + (r[3] - '0'));
			r += 3;
		} else {
			*w++ = *r;
		}
	}
	*w = '\0';
}

/* Is mount point `mp` a prefix of path at a '/' boundary? */
static size_t covers(const char *mp, const char *path)
{
	size_t n = strlen(mp);

	if (!strcmp(mp, "/"))
		return 1;
	return !strncmp(mp, path, n) && (path[n] == '/' || !path[n]) ? n : 0;
}

/*
 * One mountinfo line: "ID PARENT MAJ:MIN ROOT POINT OPTS [TAGS...] - FSTYPE
 * SOURCE SUPEROPTS".  Fills out and returns the length of the match, 0 when
 * the line is another device's or does not cover path.
 */
static size_t mount_line(char *line, unsigned maj, unsigned min, const char *path,
			 struct ul_fp_mount *out)
{
	char point[256], opts[256], fstype[64], source[128], superopts[256];
	unsigned ma, mi;
	const char *dash = strstr(line, " - ");
	size_t match;

	if (!dash || sscanf(line, "%*u %*u %u:%u %*s %255s %255s", &ma, &mi, point, opts) != 4 ||
	    ma != maj || mi != min)
		return 0;
	if (sscanf(dash + 3, "%63s %127s %255s", fstype, source, superopts) != 3)
		return 0;
	unescape(point);
	match = covers(point, path);
	if (!match)
		return 0;
	snprintf(out->point, sizeof(out->point), "%s", point);
	snprintf(out->fstype, sizeof(out->fstype), "%s", fstype);
	snprintf(out->source, sizeof(out->source), "%s", source);
	snprintf(out->options, sizeof(out->options), "%s,%s", opts, superopts);
	return match;
}

int ul_fp_mount_find(const char *mountinfo, unsigned maj, unsigned min, const char *path,
		     struct ul_fp_mount *out)
{
	size_t best = 0;

	for (const char *p = mountinfo; *p;) {
		size_t n = strcspn(p, "\n"), m;
		char line[1024];
		struct ul_fp_mount one;

		if (n < sizeof(line)) {
			memcpy(line, p, n);
			line[n] = '\0';
			m = mount_line(line, maj, min, path, &one);
			if (m && m >= best) { /* a later mount over the same point wins */
				best = m;
				*out = one;
			}
		}
		p += n;
		if (*p)
			p++;
	}
	return best ? 0 : -ENOENT;
}

static bool has(const char *s, const char *word)
{
	return s && strcasestr(s, word);
}

/* A container, from what PID 1 and the root hold; NULL when none is seen. */
static const char *container(const struct ul_fp_virt_inputs *in)
{
	const char *env = in->pid1_environ;

	if (has(env, "container=podman") || in->containerenv)
		return "podman";
	if (has(env, "container=docker") || in->dockerenv)
		return "docker";
	if (has(env, "container=lxc"))
		return "lxc";
	if (has(env, "container=systemd-nspawn"))
		return "systemd-nspawn";
	if (has(in->osrelease, "microsoft") || has(in->osrelease, "WSL"))
		return "wsl";
	if (has(env, "container="))
		return "container-other";
	return NULL;
}

const char *ul_fp_virt_detect(const struct ul_fp_virt_inputs *in)
{
	static const struct {
		const char *word, *name;
	} dmi[] = {
		{ "KVM", "kvm" },	{ "QEMU", "qemu" },	      { "VMware", "vmware" },
		{ "VMW", "vmware" },	{ "innotek", "oracle" },      { "VirtualBox", "oracle" },
		{ "Xen", "xen" },	{ "Amazon EC2", "amazon" },   { "Microsoft", "microsoft" },
		{ "Bochs", "bochs" },	{ "Parallels", "parallels" }, { "Firecracker", "kvm" },
		{ "Google", "google" },
	};
	const char *c = container(in);

	if (c)
		return c;
	for (size_t i = 0; i < UL_ARRAY_SIZE(dmi); i++)
		if (has(in->dmi_vendor, dmi[i].word) || has(in->dmi_product, dmi[i].word) ||
		    has(in->dmi_bios, dmi[i].word))
			return dmi[i].name;
	if (has(in->hv_type, "xen"))
		return "xen";
	return in->cpu_hypervisor ? "vm-other" : "none";
}

int ul_fp_buddy_parse(const char *text, uint64_t free_blocks[16])
{
	int orders = -1;

	memset(free_blocks, 0, 16 * sizeof(free_blocks[0]));
	for (const char *p = text; *p;) {
		const char *zone = strstr(p, "zone");
		size_t n = strcspn(p, "\n");
		int k = 0;

		if (zone && zone < p + n) {
			const char *q = zone + 4;
			char *end;

			q += strspn(q, " ");
			q += strcspn(q, " "); /* the zone's name */
			for (; k < 16; k++) {
				unsigned long long v = strtoull(q, &end, 10);

				if (end == q || end > p + n)
					break;
				free_blocks[k] += v;
				q = end;
			}
			if (k > orders)
				orders = k;
		}
		p += n;
		if (*p)
			p++;
	}
	return orders > 0 ? orders : -EINVAL;
}

double ul_fp_frag_pct(const uint64_t free_blocks[16], int n_orders, int order)
{
	double total = 0, small = 0;

	for (int k = 0; k < n_orders && k < 16; k++) {
		double pages = (double)free_blocks[k] * (double)(1ull << k);

		total += pages;
		if (k < order)
			small += pages;
	}
	return total > 0 ? 100.0 * small / total : 0.0;
}
