/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The run's fingerprint: what the machine was when a run started, as one
 * JSON object (jansson) stored beside the run, exported and imported with
 * it, printed by `show --env` and diffed by `compare`.
 *
 * The object has one member per source ("kernel", "sysctl", "cpu", ...),
 * each an object of facts.  Sources are listed once in sources.def; each
 * lives in its own file (fingerprint/NAME.c defines ul_fp_source_NAME).
 * How to add a fact: add a member in the source that reads it, and, when
 * it always differs between runs (a counter, a sample of activity) or is
 * the thing being compared (the kernel), a line in compare's rules
 * (fingerprint/diff.c).
 *
 * Contract: collecting never fails a run.  A fact that cannot be read is
 * recorded as the string "absent" (UL_FP_ABSENT); only an allocation
 * failure returns NULL.  No source may print, sleep or take more than a
 * few milliseconds: the whole collection stays well under 100 ms.
 */
#ifndef UL_FINGERPRINT_H
#define UL_FINGERPRINT_H

#include "core/compat.h"

#include <jansson.h>
#include <stdio.h>
#include <sys/types.h>

#define UL_FP_ABSENT "absent"

/* One process's share of the CPU over a window (doctor/procs.c measures it). */
struct ul_fp_busy {
	pid_t pid;
	char comm[32];
	double cpu_pct; /* of one CPU, over the window */
};

/* What a collection is given besides the machine itself. */
struct ul_fp_ctx {
	const char *dir;  /* --dir: its filesystem and device are described; NULL: none */
	const char *cpus; /* --cpus: the CPUs the scene ran on (cpu.cpus); NULL: all */
	/* The busiest other processes over the doctor's window, most first;
	 * NULL: not measured ("absent"). */
	const struct ul_fp_busy *busy;
	size_t n_busy;
};

struct ul_fp_source {
	const char *name; /* the member of the fingerprint object */
	/* Fill `obj` (an empty object) with this source's facts; -ENOMEM only. */
	int (*collect)(const struct ul_fp_ctx *ctx, json_t *obj);
};

size_t ul_fp_source_count(void);
const struct ul_fp_source *ul_fp_source_at(size_t i);

/* Every source's facts, in sources.def order; NULL only without memory. */
json_t *ul_fingerprint_collect(const struct ul_fp_ctx *ctx);

/*
 * The fingerprint for people (`show --env`): one "section.key: value" line
 * a fact, nested objects flattened with dots, arrays joined by ", ".
 * 0 or -EIO.  A run without one (stored before fingerprints) prints a note.
 */
int ul_fingerprint_print(FILE *out, const json_t *fp);

/* ---- helpers for the sources (fingerprint.c) ---- */

/* obj[key] = the file's first line (trailing blanks cut), or "absent"; -ENOMEM. */
int ul_fp_put_file(json_t *obj, const char *key, const char *path);
/* obj[key] = s, or "absent" when s is NULL; -ENOMEM. */
int ul_fp_put_str(json_t *obj, const char *key, const char *s);
/* obj[key] = v; -ENOMEM. */
int ul_fp_put_int(json_t *obj, const char *key, int64_t v);
/* The file's first line into buf (trailing blanks cut): 0 or -errno. */
int ul_fp_read_line(const char *path, char *buf, size_t len);

/* ---- parsers (fingerprint/parse.c), pure so the unit tests feed them text ---- */

/*
 * The timing options of a kernel config's text: every CONFIG_PREEMPT*,
 * CONFIG_HZ*, and the debug options of ul_fp_kconfig_debug[] into obj as
 * "CONFIG_X": "y" | "m" | value | "n" (a "# CONFIG_X is not set" line or
 * missing).  -ENOMEM.
 */
int ul_fp_kconfig_timing(const char *text, json_t *obj);
extern const char *const ul_fp_kconfig_debug[];

/* The word in brackets of a sysfs choice ("always [madvise] never" -> "madvise")
 * into buf; 0, or -EINVAL without one. */
int ul_fp_selected(const char *text, char *buf, size_t len);

/* The mount of device maj:min in /proc/self/mountinfo text whose mount point
 * is the longest prefix of `path`. */
struct ul_fp_mount {
	char point[256], fstype[64], source[128], options[512];
};
int ul_fp_mount_find(const char *mountinfo, unsigned maj, unsigned min, const char *path,
		     struct ul_fp_mount *out);

/* What systemd-detect-virt would print, from what the sources hold (any may
 * be NULL or ""): "none", a VM name ("kvm", "qemu", "vmware", "microsoft",
 * "xen", "oracle", "amazon", "vm-other") or a container ("docker", "podman",
 * "lxc", "systemd-nspawn", "wsl", "container-other").  A container wins. */
struct ul_fp_virt_inputs {
	const char *dmi_vendor;	  /* /sys/class/dmi/id/sys_vendor */
	const char *dmi_product;  /* /sys/class/dmi/id/product_name */
	const char *dmi_bios;	  /* /sys/class/dmi/id/bios_vendor */
	bool cpu_hypervisor;	  /* "hypervisor" in /proc/cpuinfo flags */
	const char *hv_type;	  /* /sys/hypervisor/type ("xen") */
	const char *pid1_environ; /* /proc/1/environ, NULs replaced by '\n' */
	bool dockerenv;		  /* /.dockerenv exists */
	bool containerenv;	  /* /run/.containerenv exists */
	const char *osrelease;	  /* /proc/sys/kernel/osrelease (WSL) */
};
const char *ul_fp_virt_detect(const struct ul_fp_virt_inputs *in);

/*
 * /proc/buddyinfo text: free pages per order summed over zones.  free[k]
 * counts blocks of order k; returns the number of orders seen (<= 16), or
 * -EINVAL.  ul_fp_frag_pct(): the share of free memory (in pages) held in
 * blocks smaller than 2^order pages, 0..100.
 */
int ul_fp_buddy_parse(const char *text, uint64_t free_blocks[16]);
double ul_fp_frag_pct(const uint64_t free_blocks[16], int n_orders, int order);

#endif
