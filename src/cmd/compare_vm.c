/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * compare and runs made in VMs (`underload vm`): a VM's accelerator and
 * shape change every timing, so runs of another accelerator or shape, or a
 * VM's run against the machine's own, are refused rather than warned
 * about; runs under TCG (an emulated CPU) are flagged emulated.  What a
 * run was is its fingerprint's "vm" section (cmd/vm_collect.c).
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/vm.h"
#include "core/escape.h"
#include "core/log.h"
#include "stats/runcmp.h"

#include <jansson.h>
#include <stdio.h>
#include <string.h>

/* "tcg, 2 CPUs, 1024 MiB", or the machine itself. */
static void shape_of(const struct ul_run *run, char *out, size_t len)
{
	const json_t *vm = run->fingerprint ? json_object_get(run->fingerprint, "vm") : NULL;

	if (!json_is_object(vm)) {
		snprintf(out, len, "on the machine itself (no VM)");
		return;
	}
	snprintf(out, len, "in a VM: %s, %lld CPUs, %lld MiB",
		 json_is_string(json_object_get(vm, "accelerator"))
			 ? json_string_value(json_object_get(vm, "accelerator"))
			 : "?",
		 (long long)json_integer_value(json_object_get(vm, "cpus")),
		 (long long)json_integer_value(json_object_get(vm, "mem_mb")));
}

int ul_compare_vm_check(const struct ul_runcmp_group *groups, size_t n_groups, bool text)
{
	char first[160] = "", shape[160];
	const char *first_label = NULL;

	for (size_t g = 0; g < n_groups; g++)
		for (size_t r = 0; r < groups[g].n_runs; r++) {
			shape_of(groups[g].runs[r], shape, sizeof(shape));
			if (!first_label) {
				snprintf(first, sizeof(first), "%s", shape);
				first_label = groups[g].label;
			} else if (strcmp(first, shape)) {
				ul_error(
					"compare: label '%s' has a run %s, label '%s' one %s: runs "
					"of another accelerator or VM shape are not comparable",
					ul_esc(first_label), first, ul_esc(groups[g].label), shape);
				return UL_EXIT_USAGE;
			}
		}
	for (size_t g = 0; g < n_groups; g++) {
		size_t n = 0;

		for (size_t r = 0; r < groups[g].n_runs; r++)
			n += ul_run_emulated(groups[g].runs[r]);
		if (n && text)
			printf("emulated: label '%s': %zu run%s under TCG (an emulated CPU): its "
			       "timings are not comparable with bare metal or KVM\n",
			       ul_esc(groups[g].label), n, n == 1 ? "" : "s");
		else if (n)
			ul_warning("label '%s': %zu run%s emulated (TCG)", ul_esc(groups[g].label),
				   n, n == 1 ? "" : "s");
	}
	return 0;
}
