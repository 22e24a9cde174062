/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The boot's serial console (console.log), as the guest wrote it: untrusted
 * bytes.  What is read from it is valid UTF-8 (a byte that is not part of
 * a valid sequence becomes '?'), so it can be stored and exported as JSON,
 * and a tail is never cut inside a character.
 */
#include "core/compat.h"
#include "core/escape.h"
#include "vm/vm.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void ul_vm_text_clean(char *s, size_t n)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t out = 0;

	for (size_t k = 0; k < n;) {
		size_t len = ul_utf8_len(u + k, n - k);

		if (!len) {
			s[out++] = '?';
			k++;
			continue;
		}
		memmove(s + out, u + k, len);
		out += len;
		k += len;
	}
	s[out] = '\0';
}

/* The console's last 64 KiB, CRs and NULs removed, as valid UTF-8 (see
 * ul_vm_text_clean), into a malloc'd string ("" when none); NULL when out
 * of memory. */
static char *console_text(const struct ul_vm_boot *b)
{
	char p[PATH_MAX + 16];
	char *buf = malloc(65537);
	int fd;
	off_t end;
	ssize_t n = 0;
	size_t k = 0;

	if (!buf)
		return NULL;
	snprintf(p, sizeof(p), "%s/console.log", b->dir);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		end = lseek(fd, 0, SEEK_END);
		n = pread(fd, buf, 65536, end > 65536 ? end - 65536 : 0);
		close(fd);
	}
	for (ssize_t i = 0; i < n; i++)
		if (buf[i] != '\r' && buf[i] != '\0')
			buf[k++] = buf[i];
	ul_vm_text_clean(buf, k);
	return buf;
}

void ul_vm_console_tail(const struct ul_vm_boot *b, int max_lines, char *out, size_t len)
{
	char *t = console_text(b);
	size_t n;
	char *p;
	int lines = 0;

	out[0] = '\0';
	if (!t)
		return;
	n = strlen(t);
	while (n && t[n - 1] == '\n')
		t[--n] = '\0';
	for (p = t + n; p > t; p--)
		if (p[-1] == '\n' && ++lines >= max_lines)
			break;
	/* At most len - 1 bytes: the newest, from a character's first byte. */
	if (strlen(p) >= len)
		p += strlen(p) - (len - 1);
	while ((*p & 0xc0) == 0x80)
		p++;
	snprintf(out, len, "%s", p);
	free(t);
}

void ul_vm_console_panic(const struct ul_vm_boot *b, char *out, size_t len)
{
	static const char *const marks[] = { "Kernel panic - not syncing", "Oops: " };
	char *t = console_text(b), *line, *save = NULL;

	out[0] = '\0';
	if (!t)
		return;
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (size_t i = 0; i < UL_ARRAY_SIZE(marks); i++)
			if (strstr(line, marks[i])) {
				const char *s = strstr(line, marks[i]);

				snprintf(out, len, "%s", s);
			}
	free(t);
}

void ul_vm_boot_phase(const struct ul_vm_boot *b, char *out, size_t len)
{
	char *t = console_text(b), *line, *save = NULL;
	const char *step = NULL;
	bool spoke = false;

	if (!t) {
		snprintf(out, len, "unknown (out of memory)");
		return;
	}
	for (line = strtok_r(t, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		const char *m = strstr(line, UL_VM_PHASE_MARK);

		spoke = true;
		if (m)
			step = m + strlen(UL_VM_PHASE_MARK);
	}
	if (step)
		snprintf(out, len, "the guest's init was %.80s", step);
	else if (spoke)
		snprintf(out, len, "the kernel printed, but never reached the guest's init");
	else
		snprintf(out, len,
			 "the kernel never reached the guest's init (the console is empty)");
	free(t);
}
