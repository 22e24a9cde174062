/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Kernels booted in a VM for `underload vm` (cmd/vm.c): the image's
 * release, the accelerator, the initramfs (busybox, the modules for virtio,
 * ext4 and 9p, the guest's init) and one boot of qemu watched to its end.
 * Nothing here knows of the store: cmd/vm_collect.c brings the runs back.
 *
 * A boot's directory holds: disk.img (the guest's /tmp and /var/tmp),
 * console.log (the serial console), share/ (a 9p share, read-write: the
 * run's id run-uuid written by the host before the boot, the guest's
 * store guest.db, its journal directory journal/, and "alive",
 * rewritten every 2 s by the guest while its kernel answers), and after
 * the boot guest.db: the host's copy of the guest's store.  Everything the
 * guest wrote is untrusted: the share maps the guest's symbolic links,
 * devices and modes to plain files (security_model=mapped-xattr), and
 * the host reads the store only as regular files it copies.
 */
#ifndef UL_VM_H
#define UL_VM_H

#include "core/compat.h"
#include "core/clock.h"

#include <limits.h>
#include <stddef.h>
#include <stdint.h>

struct ul_sup;
struct ul_journal;

/* Where the guest sees the share and what is in it. */
#define UL_VM_GUEST_SHARE "/run/underload-vm"
#define UL_VM_GUEST_DB "guest.db"
#define UL_VM_JOURNAL_DIR "journal"
/* The run's id the host made for the boot, written before it (a UUID and a newline). */
#define UL_VM_RUN_UUID_FILE "run-uuid"
/* The line the guest's init prints when `underload run` returned. */
#define UL_VM_DONE_MARK "UL-VM-RUN-DONE "
/* The line the guest's init prints before each step that may wait
 * ("ul-vm: init: mounting the share"): how far a stopped guest got. */
#define UL_VM_PHASE_MARK "ul-vm: init: "

struct ul_vm_kernel {
	const char *image;	  /* as given */
	char release[128];	  /* from the image's header; "" when unreadable */
	char label[128];	  /* the runs' label */
	char moddir[PATH_MAX];	  /* /lib/modules/RELEASE or --modules; "" = none */
	char initramfs[PATH_MAX]; /* built in the work directory */
	const char *append;	  /* extra kernel command-line words, or NULL */
};

struct ul_vm_shape {
	const char *accel; /* "kvm" or "tcg" */
	int cpus;
	uint64_t mem_bytes;
};

/* image.c: the release a bzImage names in its header ("6.1.0-18-amd64"),
 * its first word.  0, -errno, or -EINVAL when it is not a bzImage. */
int ul_vm_image_release(const char *image, char *out, size_t len);
/* Is the ELF file at path statically linked (no PT_INTERP)?  0 yes,
 * -ENOEXEC dynamic or not an ELF, -errno. */
int ul_vm_static_elf(const char *path);

/* accel.c: "kvm" when /dev/kvm creates a VM and a KVM guest under qemu
 * runs (its firmware speaks within seconds: under nested virtualisation
 * the device may work while qemu's guest exits or never runs), else "tcg"
 * with why in `why`.  An
 * interrupt during the probe is left for the caller's next wait. */
const char *ul_vm_accel(struct ul_sup *sup, const char *qemu, char *why, size_t len);

/* Where the guest has this program and its helpers (no leading '/'). */
#define UL_VM_GUEST_BIN "opt/underload"

/* A host file the guest gets in its initramfs: src at dst (relative to the
 * guest's root). */
struct ul_vm_file {
	char src[PATH_MAX];
	char dst[PATH_MAX];
};
struct ul_vm_files {
	struct ul_vm_file *v;
	size_t n;
};
/* guest_files.c: what the guest gets of the host, appended to f: exe as
 * UL_VM_GUEST_BIN/underload (UL_SELF_EXE: the running program, even
 * after a rebuild replaced its file), its helpers from dir (else the
 * installed ones), and the shared libraries (and loader) they need at
 * their own paths.  0 or -errno with why. */
int ul_vm_guest_files(const char *exe, const char *dir, struct ul_vm_files *f, char *why,
		      size_t len);
void ul_vm_files_free(struct ul_vm_files *f);

/* initramfs.c: write the initramfs (newc cpio) to `out`: busybox, the
 * guest's init, `env` as /env (shell assignments the init sources), the
 * files (with their directories), and the modules of moddir ("" = none)
 * the guest needs, dependencies first.  0 or -errno with why. */
int ul_vm_initramfs(const char *out, const char *busybox, const char *moddir, const char *env,
		    const struct ul_vm_files *files, char *why, size_t len);

/* guest_init.c: the guest's /init (busybox sh). */
extern const char ul_vm_guest_init[];

enum ul_vm_end {
	UL_VM_END_DONE,	       /* the guest's run returned (guest_status) */
	UL_VM_END_PANIC,       /* the console shows a panic */
	UL_VM_END_HUNG,	       /* no sign of life for hang_ns: the watchdog stopped it */
	UL_VM_END_LOST,	       /* qemu ended without a panic line or the run's end */
	UL_VM_END_INTERRUPTED, /* a terminating signal: qemu was stopped */
};

/* One boot (boot.c). */
struct ul_vm_boot {
	const struct ul_vm_kernel *kernel;
	const struct ul_vm_shape *shape;
	char dir[PATH_MAX];	    /* the boot's directory, made by the caller */
	ul_nsec hang_ns;	    /* the watchdog's bound */
	const char *qemu, *mkfs;    /* the programs */
	struct ul_journal *journal; /* qemu's pid is journalled there (proc/qemu.h) */
	const char *cmdline_extra;  /* appended to the kernel's command line, or NULL */
	char run_uuid[40];	    /* the guest's run's id, made by the host (share/run-uuid;
				     * the only run taken back: cmd/vm_collect.c) */
	/* results */
	enum ul_vm_end end;
	int guest_status; /* UL_VM_END_DONE: the guest's `underload run` exit status */
	double wall_s;
	double qemu_cpu_s; /* the CPU time qemu used (user and system), last read while it ran */
};
/* Boot it and watch it to its end (see enum ul_vm_end): 0, or -errno
 * with why when qemu could not be started or the disk not made. */
int ul_vm_boot_run(struct ul_sup *sup, struct ul_vm_boot *b, char *why, size_t len);
/* The console (console.c) is the guest's: untrusted bytes.  What these
 * read of it is valid UTF-8, a byte outside a valid sequence read as '?'. */
/* The last `max_lines` lines of the boot's console (CRs removed) into
 * out, at most len - 1 bytes never cut inside a character; "" when there
 * is none. */
void ul_vm_console_tail(const struct ul_vm_boot *b, int max_lines, char *out, size_t len);
/* The console's last line that names a panic/oops, or "" (into out). */
void ul_vm_console_panic(const struct ul_vm_boot *b, char *out, size_t len);
/* Make the n bytes at s valid UTF-8 in place: each byte that is not part
 * of a valid sequence becomes '?'; s[n] (which must exist) becomes NUL. */
void ul_vm_text_clean(char *s, size_t n);
/* guest_store.c: copy the guest's store (share/guest.db, and its -wal and
 * -journal when present) into the boot's directory as guest.db, each
 * opened in the directory without following a link and only when it is a
 * regular file; the copy's path into `copy`.  0; -ENOENT when the guest
 * stored nothing; else -errno with why (a link: -ELOOP; not a regular
 * file: -EINVAL). */
int ul_vm_guest_store_copy(const char *boot_dir, char *copy, size_t len, char *why, size_t whylen);
/* How far the guest got, from its console and share, for a boot that did
 * not finish: "the guest's init was mounting the share", "the kernel
 * never reached the guest's init (the console is empty)"...  Into out. */
void ul_vm_boot_phase(const struct ul_vm_boot *b, char *out, size_t len);
/* Human name of an end ("finished", "panicked"...). */
const char *ul_vm_end_name(enum ul_vm_end e);

#endif
