/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What a file is, read from its own header: a kernel image's release (the
 * x86 boot protocol's kernel_version string) and whether busybox is
 * static (the guest has no libc of its own before the host's root is up).
 */
#include "core/compat.h"
#include "vm/vm.h"

#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* x86 boot protocol: "HdrS" at 0x202; at 0x20e a 16-bit pointer to the
 * version string, relative to 0x200 (Documentation/arch/x86/boot.rst). */
#define HDR_MAGIC_OFF 0x202
#define HDR_VERSION_PTR_OFF 0x20e
#define HDR_BASE 0x200

int ul_vm_image_release(const char *image, char *out, size_t len)
{
	unsigned char hdr[0x210];
	char ver[256];
	int fd = open(image, O_RDONLY | O_CLOEXEC);
	ssize_t n;
	unsigned ptr;
	int rc = 0;

	out[0] = '\0';
	if (fd < 0)
		return -errno;
	n = pread(fd, hdr, sizeof(hdr), 0);
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr + HDR_MAGIC_OFF, "HdrS", 4)) {
		rc = n < 0 ? -errno : -EINVAL;
		goto out;
	}
	ptr = hdr[HDR_VERSION_PTR_OFF] | (unsigned)hdr[HDR_VERSION_PTR_OFF + 1] << 8;
	n = pread(fd, ver, sizeof(ver) - 1, (off_t)HDR_BASE + ptr);
	if (n <= 0) {
		rc = n < 0 ? -errno : -EINVAL;
		goto out;
	}
	ver[n] = '\0';
	ver[strcspn(ver, " \n")] = '\0';
	if (!ver[0] || strlen(ver) >= len) {
		rc = -EINVAL;
		goto out;
	}
	snprintf(out, len, "%s", ver);
out:
	close(fd);
	return rc;
}

int ul_vm_static_elf(const char *path)
{
	Elf64_Ehdr eh;
	Elf64_Phdr ph;
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (pread(fd, &eh, sizeof(eh), 0) != (ssize_t)sizeof(eh) ||
	    memcmp(eh.e_ident, ELFMAG, SELFMAG) || eh.e_ident[EI_CLASS] != ELFCLASS64) {
		rc = -ENOEXEC;
		goto out;
	}
	for (unsigned i = 0; i < eh.e_phnum; i++) {
		if (pread(fd, &ph, sizeof(ph),
			  (off_t)(eh.e_phoff + (uint64_t)i * eh.e_phentsize)) !=
		    (ssize_t)sizeof(ph)) {
			rc = -ENOEXEC;
			break;
		}
		if (ph.p_type == PT_INTERP) {
			rc = -ENOEXEC;
			break;
		}
	}
out:
	close(fd);
	return rc;
}
