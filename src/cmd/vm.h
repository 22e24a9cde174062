/* SPDX-License-Identifier: GPL-2.0-or-later */
/* `underload vm` (cmd/vm.c) and what it shares with cmd/vm_collect.c and compare. */
#ifndef UL_CMD_VM_H
#define UL_CMD_VM_H

#include "core/compat.h"
#include "vm/vm.h"

#include <stddef.h>

struct ul_store;
struct ul_runcmp_group;

/*
 * Bring boot boot_no (of n_boots) into the host's store `host`: mark the
 * guest's unfinished run crashed (its journal says where), stamp every run's
 * fingerprint with "vm" (and a crashed one's with the console's tail),
 * export them to the boot's directory and import that file.  0 with
 * *added set, or -1 after printing why.
 */
int ul_cmd_vm_collect(struct ul_store *host, const struct ul_vm_boot *b, int boot_no, int n_boots,
		      size_t *added);

/*
 * Does `run ARGS` (argv[0] = "run") give an option vm sets itself
 * (--label, --db), as run's getopt_long would read it: an abbreviation
 * ("--lab"), "--db=PATH", not an option's value ("--job --label")?  1 with
 * *which its name, 0, or -ENOMEM (vm_args.c).
 */
int ul_vm_run_sets_own(int argc, char **argv, const char **which);

/*
 * Does `run ARGS` (argv[0] = "run") fix its points a cell (decide.h's
 * ul_decide_fixes_points), as run reads it?  1, 0, or -ENOMEM (vm_args.c).
 * When it does not, --until-decided's pilot designs them.
 */
int ul_vm_run_fixes_points(int argc, char **argv);

/*
 * The guest's /env (guest-init.sh sources it): its run's label, and its
 * arguments (set --), `--min-points points --max-points points` after
 * them when points > 0 (--until-decided's design).  0, or -1 after saying
 * that they do not fit in len.
 */
int ul_vm_guest_env(const char *label, char **run_args, int n_args, int points, char *buf,
		    size_t len);

/*
 * Kernel k's initramfs at k->initramfs (ul_vm_initramfs(): busybox, the
 * files, k's modules), made again over an old one, its /env
 * ul_vm_guest_env()'s for k's label, run_args and points: what
 * --until-decided does before the next boot once the pilot has designed
 * the points.  0, or -1 after saying why.
 */
int ul_vm_kernel_initramfs(const struct ul_vm_kernel *k, const char *busybox, char **run_args,
			   int n_args, int points, const struct ul_vm_files *files);

/*
 * `underload vm ARGS` (argv[0] = "vm") with, for its i-th --kernel (i <
 * n_extra), the runs' label and extra kernel command-line words that
 * extra[i] sets (a NULL member: vm's own choice, none): how `underload
 * bisect` (cmd/bisect.c) boots its steps.  Returns vm's exit code.
 */
struct ul_vm_extra {
	const char *label, *append;
};
int ul_cmd_vm_with(int argc, char **argv, const struct ul_vm_extra *extra, int n_extra);

/*
 * compare's rule for runs made in VMs (cmd/compare_vm.c): runs of another
 * accelerator or VM shape (or one on the machine itself against one in a
 * VM) are not compared: prints why and returns UL_EXIT_USAGE.  Runs under
 * TCG are flagged emulated (on stdout when text, else on stderr).
 * Otherwise 0.
 */
int ul_compare_vm_check(const struct ul_runcmp_group *groups, size_t n_groups, bool text);

#endif
