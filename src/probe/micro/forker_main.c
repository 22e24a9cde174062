/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * underload-forker: the small process LMbench's process creation
 * (lat_proc) forks from.  The probe child is a fork of the supervisor
 * (its heap, its mappings, its libraries), which makes fork dearer; this
 * helper links libc and the timing harness only, and underload execs it
 * with an empty environment:
 *   underload-forker fork|exec|sh TARGET FD BATCHES MIN_BATCH_NS
 * It times fork + exit(), fork + execve(TARGET) or fork + /bin/sh -c
 * TARGET (each child with stdout closed and an empty environment, as
 * lat_proc's) with the harness and writes to FD a header {-errno or 0,
 * record count} and the records.  Metrics: "forker_vm_kib" (its VmSize),
 * "forker_maps" (lines of its /proc/self/maps) and "target_env_n"
 * (entries of the environment it passes on: 0) say which process forked
 * and what the target got.  Exit 0, 1 when FD failed, 2 for bad arguments.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/parse.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern char **environ;

/* The modes, in enum ul_micro_proc_how's order. */
static const char *const forker_hows[] = { "fork", "exec", "sh" };

/* VmSize in KiB and the number of mappings of this process. */
static void self_size(double *vm_kib, double *maps)
{
	char line[512];
	FILE *f = fopen("/proc/self/status", "re");
	long kib = 0, n = 0;

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "VmSize: %ld kB", &kib) == 1)
			break;
	if (f)
		fclose(f);
	f = fopen("/proc/self/maps", "re");
	while (f && fgets(line, sizeof(line), f))
		n += strchr(line, '\n') != NULL;
	if (f)
		fclose(f);
	*vm_kib = (double)kib;
	*maps = (double)n;
}

static int forker_measure(struct ul_micro_proc *p, int batches, int64_t min_batch_ns,
			  struct ul_micro_out *out)
{
	struct ul_micro_env env = { .mh = { .min_batch_ns = min_batch_ns, .batches = batches } };
	double vm, maps, env_n = 0;
	int rc;

	self_size(&vm, &maps);
	for (char *const *e = p->envp; e && *e; e++)
		env_n++;
	rc = ul_micro_simple(&env, out, ul_micro_proc_batch, p, 1, 0);
	if (!rc)
		rc = ul_micro_put_metric(out, "forker_vm_kib", vm);
	if (!rc)
		rc = ul_micro_put_metric(out, "forker_maps", maps);
	if (!rc)
		rc = ul_micro_put_metric(out, "target_env_n", env_n);
	return rc;
}

int main(int argc, char **argv)
{
	struct ul_micro_proc p = { .how = UL_MICRO_FORK, .envp = environ, .as_lat_proc = true };
	struct ul_micro_out *out;
	int64_t fd, batches, min_batch;
	int32_t head[2] = { EINVAL, 0 };
	int how = -1, rc;

	for (int i = 0; argc == 6 && i < (int)UL_ARRAY_SIZE(forker_hows); i++)
		if (!strcmp(argv[1], forker_hows[i]))
			how = i;
	if (how < 0 || argv[2][0] != '/' || ul_parse_count(argv[3], 0, 1 << 20, &fd) ||
	    ul_parse_count(argv[4], 1, UL_MH_MAX_BATCHES, &batches) ||
	    ul_parse_count(argv[5], 1, INT64_MAX / 2, &min_batch))
		return 2;
	p.how = (enum ul_micro_proc_how)how;
	p.target = argv[2];
	out = calloc(1, sizeof(*out));
	if (out)
		head[0] = -forker_measure(&p, (int)batches, min_batch, out);
	else
		head[0] = ENOMEM;
	head[1] = head[0] ? 0 : (int32_t)out->n;
	rc = ul_write_full((int)fd, head, sizeof(head)) ||
	     (head[1] && ul_write_full((int)fd, out->rec, (size_t)head[1] * sizeof(out->rec[0])));
	free(out);
	return rc ? 1 : 0;
}
