/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * After one boot of `underload vm`: the guest's runs into the host's
 * store, by the exchange format.  A boot that did not finish (a panic, a
 * hang, an unexpected end) leaves its run `running` in the guest's store:
 * it is marked crashed at the test the guest's journal last recorded, as
 * cleanup does for a machine that went down, with the console's tail; one
 * that ended before its run began (a kernel that panics on its way up)
 * gets its run made here, crashed with no test.
 * The run's fingerprint gains a "vm" section: the accelerator and the
 * VM's shape (what compare refuses to mix), the image, the boot.
 *
 * The guest is untrusted: its store is read from the host's copy (see
 * vm/guest_store.c), and only the run the host named for this boot (its
 * UUID, written to the share before the boot) under the kernel's label is
 * taken; any other run in the guest's store is refused with a warning, so
 * a guest cannot add runs to other labels or cells to the host's runs.
 */
#include "core/compat.h"
#include "cmd/cmd.h"
#include "cmd/vm.h"
#include "core/clock.h"
#include "core/escape.h"
#include "core/log.h"
#include "proc/changes.h"
#include "store/exchange.h"
#include "store/store.h"
#include "ul_config.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct crash_ctx {
	struct ul_store *st;
	int marked;
};

/* A run the guest's journal names: crashed where it last was. */
static int mark_one(void *arg, const char *uuid, const char *store_uri, const char *where)
{
	struct crash_ctx *c = arg;
	struct ul_cell at;
	int round;
	bool known = ul_cell_where_parse(where, &at, &round) == 0;

	(void)store_uri; /* the guest's path of the store we hold open */
	if (!c->st->ops->mark_crashed(c->st, uuid, known ? &at : NULL, NULL))
		c->marked++;
	return 0;
}

/* Mark the guest's unfinished runs crashed (by its journal, else where unknown). */
static void settle_crash(struct ul_store *st, const char *share)
{
	struct crash_ctx c = { .st = st };
	struct ul_run_summary *sum = NULL;
	char dir[PATH_MAX + 32];
	size_t n = 0;

	snprintf(dir, sizeof(dir), "%s/" UL_VM_JOURNAL_DIR, share);
	if (access(dir, F_OK) == 0)
		(void)ul_changes_crashed_runs(dir, mark_one, &c);
	if (st->ops->list_runs(st, &sum, &n))
		return;
	for (size_t i = 0; i < n; i++)
		if (sum[i].status == UL_RUN_RUNNING)
			(void)st->ops->mark_crashed(st, sum[i].uuid, NULL, NULL);
	free(sum);
}

/* The "vm" section of a run's fingerprint. */
static int stamp(struct ul_run *run, const struct ul_vm_boot *b, int boot_no, int n_boots)
{
	json_t *vm = json_object();
	char text[8192];
	int rc = 0;

	if (!vm)
		return -ENOMEM;
	if (!run->fingerprint && !(run->fingerprint = json_object())) {
		json_decref(vm);
		return -ENOMEM;
	}
	snprintf(text, sizeof(text), "%d of %d", boot_no, n_boots);
	rc |= json_object_set_new(vm, "accelerator", json_string(b->shape->accel));
	rc |= json_object_set_new(vm, "emulated",
				  json_string(strcmp(b->shape->accel, "tcg") ? "no" : "yes"));
	rc |= json_object_set_new(vm, "cpus", json_integer(b->shape->cpus));
	rc |= json_object_set_new(vm, "mem_mb",
				  json_integer((json_int_t)(b->shape->mem_bytes >> 20)));
	rc |= json_object_set_new(vm, "kernel_image", json_string(b->kernel->image));
	rc |= json_object_set_new(vm, "boot", json_string(text));
	snprintf(text, sizeof(text), "%.1f", b->wall_s); /* a double's 17 digits say nothing */
	rc |= json_object_set_new(vm, "boot_wall_s", json_string(text));
	rc |= json_object_set_new(vm, "end", json_string(ul_vm_end_name(b->end)));
	if (run->status == UL_RUN_CRASHED) {
		/* A panic's backtrace runs to some 50 lines after its first. */
		ul_vm_console_tail(b, 80, text, sizeof(text));
		rc |= json_object_set_new(vm, "console_tail", json_string(text));
	}
	rc |= json_object_set_new(run->fingerprint, "vm", vm);
	return rc ? -ENOMEM : 0;
}

/* The crashed cell says what the console said. */
static void note_panic(struct ul_run *run, const struct ul_vm_boot *b)
{
	char panic[160];

	ul_vm_console_panic(b, panic, sizeof(panic));
	if (!panic[0] && b->end == UL_VM_END_HUNG)
		snprintf(panic, sizeof(panic), "silent for %.0f s, the VM was stopped as hung",
			 (double)b->hang_ns / UL_NS_PER_SEC);
	else if (!panic[0])
		snprintf(panic, sizeof(panic), "the VM %s", ul_vm_end_name(b->end));
	for (size_t i = 0; i < run->n_cells; i++) {
		struct ul_cell *c = &run->cells[i];
		size_t l = strlen(c->note);

		if (c->outcome == UL_CELL_CRASHED)
			snprintf(c->note + l, sizeof(c->note) - l, "%sconsole: %s", l ? "; " : "",
				 panic);
	}
}

/* Is the guest's run s the one this boot was to make?  Else a warning
 * (the first few of them; *refused counts them all). */
static bool wanted(const struct ul_run_summary *s, const struct ul_vm_boot *b, int boot_no,
		   size_t *refused)
{
	bool ours = !strcmp(s->uuid, b->run_uuid);

	if (ours && !strcmp(s->label, b->kernel->label))
		return true;
	if (++*refused <= 3)
		ul_warning("vm: boot %d: run %s (label '%s') in the guest's store refused: %s",
			   boot_no, ul_esc(s->uuid), ul_esc(s->label),
			   ours ? "not under the kernel's label" : "not the run this boot started");
	return false;
}

/* The run this boot started (b->run_uuid, under the kernel's label),
 * stamped, into *out (*n = 1), or none (*n = 0); other runs refused. */
static int load_ours(struct ul_store *st, const struct ul_vm_boot *b, int boot_no, int n_boots,
		     struct ul_run **out, size_t *n)
{
	struct ul_run_summary *sum = NULL;
	struct ul_run *run;
	size_t n_sum = 0, refused = 0;
	int rc = st->ops->list_runs(st, &sum, &n_sum);

	*n = 0;
	if (rc)
		return rc;
	run = calloc(1, sizeof(*run));
	if (!run) {
		free(sum);
		return -ENOMEM;
	}
	ul_run_init(run);
	*out = run;
	for (size_t i = 0; i < n_sum && !rc; i++) {
		if (!wanted(&sum[i], b, boot_no, &refused) || *n)
			continue;
		rc = st->ops->load_run(st, sum[i].uuid, run);
		*n = 1;
		/* load_run() resolves a reference: what it loaded is checked again. */
		if (!rc &&
		    (strcmp(run->uuid, b->run_uuid) || strcmp(run->label, b->kernel->label))) {
			ul_warning(
				"vm: boot %d: the guest's store gave another run for %s: refused",
				boot_no, b->run_uuid);
			*n = 0;
			break;
		}
		if (!rc && run->status == UL_RUN_CRASHED)
			note_panic(run, b);
		if (!rc)
			rc = stamp(run, b, boot_no, n_boots);
	}
	if (refused > 3)
		ul_warning("vm: boot %d: %zu runs in the guest's store refused in all", boot_no,
			   refused);
	free(sum);
	return rc;
}

/* The run of a boot whose guest ended before its run began, so stored
 * nothing: made here, crashed with no test, into *out (*n = 1), so that
 * the crash is an outcome in the host's store as a later one is (vm
 * --until-decided pairs it, bisect reads it back), not a warning that a
 * re-run cannot see.  Its host is the guest as far as the host knows it:
 * the image's release, the VM's shape, the nodename of a kernel nobody
 * named; the console's tail is in its fingerprint (stamp). */
static int crashed_before_run(const struct ul_vm_boot *b, int boot_no, int n_boots,
			      struct ul_run **out, size_t *n)
{
	struct ul_run *run = calloc(1, sizeof(*run));
	int64_t now = ul_wall_ns();

	*n = 0;
	if (!run)
		return -ENOMEM;
	ul_run_init(run);
	*out = run;
	*n = 1;
	snprintf(run->uuid, sizeof(run->uuid), "%.36s", b->run_uuid);
	snprintf(run->label, sizeof(run->label), "%s", b->kernel->label);
	snprintf(run->tool_version, sizeof(run->tool_version), "%s", UL_VERSION);
	run->status = UL_RUN_CRASHED;
	run->started_wall_ns = now - (int64_t)(b->wall_s * (double)UL_NS_PER_SEC);
	run->finished_wall_ns = now;
	snprintf(run->host.hostname, sizeof(run->host.hostname), "(none)");
	snprintf(run->host.kernel_release, sizeof(run->host.kernel_release), "%s",
		 b->kernel->release);
	snprintf(run->host.arch, sizeof(run->host.arch), "x86_64");
	run->host.ncpu = b->shape->cpus;
	run->host.mem_total_bytes = b->shape->mem_bytes;
	return stamp(run, b, boot_no, n_boots);
}

static int export_to(const char *path, struct ul_run *runs, size_t n)
{
	const struct ul_run **p = calloc(n ? n : 1, sizeof(*p));
	FILE *f;
	int rc;

	if (!p)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		p[i] = &runs[n - 1 - i]; /* oldest first */
	f = fopen(path, "wxe");
	rc = f ? ul_exchange_write_json(f, (const struct ul_run *const *)p, n) : -errno;
	if (f && fclose(f) && !rc)
		rc = -EIO;
	free(p);
	return rc;
}

/* The run the guest stored (its store's copy at db), settled when the
 * boot did not finish, into *runs (*n = 1), or none (*n = 0, said): 0, or
 * an error after saying why. */
static int from_guest_store(const char *db, const char *share, const struct ul_vm_boot *b,
			    int boot_no, int n_boots, struct ul_run **runs, size_t *n)
{
	struct ul_store *st = NULL;
	char err[512];
	int rc;

	/* What the guest left is its own doing: that boot's run is lost, the
	 * next boot goes on. */
	if (ul_store_open(db, &st, err, sizeof(err))) {
		ul_warning("vm: boot %d: cannot open the guest's store: %s", boot_no, err);
		return 0;
	}
	if (b->end != UL_VM_END_DONE)
		settle_crash(st, share);
	rc = load_ours(st, b, boot_no, n_boots, runs, n);
	if (rc)
		ul_error("vm: boot %d: cannot read the guest's run: %s", boot_no,
			 rc == -ENOMEM ? strerror(ENOMEM) : st->err);
	ul_store_close(st);
	if (!rc && !*n)
		ul_warning("vm: boot %d: the guest's store holds no run %s under '%s'", boot_no,
			   b->run_uuid, ul_esc(b->kernel->label));
	return rc;
}

int ul_cmd_vm_collect(struct ul_store *host, const struct ul_vm_boot *b, int boot_no, int n_boots,
		      size_t *added)
{
	char share[PATH_MAX + 16], db[PATH_MAX + 32], exp[PATH_MAX + 32], err[512];
	struct ul_run *runs = NULL;
	size_t n = 0;
	int rc;

	*added = 0;
	snprintf(share, sizeof(share), "%s/share", b->dir);
	snprintf(exp, sizeof(exp), "%s/export.json", b->dir);
	rc = ul_vm_guest_store_copy(b->dir, db, sizeof(db), err, sizeof(err));
	if (rc == -ENOENT && b->end == UL_VM_END_DONE) {
		ul_warning("vm: boot %d stored no run (the guest finished before its run began)",
			   boot_no);
		return 0;
	}
	if (rc == -ENOENT) {
		printf("vm: boot %d: the guest %s before its run began: its run is stored as "
		       "crashed, with no test\n",
		       boot_no, ul_vm_end_name(b->end));
		rc = crashed_before_run(b, boot_no, n_boots, &runs, &n);
		if (rc)
			ul_error_errno(rc, "vm: boot %d: cannot make its crashed run", boot_no);
	} else if (rc) {
		ul_warning("vm: boot %d: the guest's store refused: %s", boot_no, err);
		return 0;
	} else {
		rc = from_guest_store(db, share, b, boot_no, n_boots, &runs, &n);
	}
	if (!rc && n && (rc = export_to(exp, runs, n)) != 0)
		ul_error_errno(rc, "vm: boot %d: cannot write %s", boot_no, exp);
	if (runs)
		ul_exchange_free(runs, 1);
	if (rc)
		return -1;
	return n ? ul_cmd_import_file(host, exp, added) : 0;
}
