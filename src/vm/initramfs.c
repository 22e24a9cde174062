/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The guest's initramfs, written as a newc cpio archive (the format the
 * kernel unpacks; its layout: Documentation/driver-api/early-userspace/
 * buffer-format.rst): busybox, the init, its environment, this program
 * with its helpers and libraries (vm/guest_files.c) and the modules
 * for the virtio disk, ext4 and 9p with their dependencies (modules.dep),
 * dependencies first.  A module modules.dep does not list is taken as
 * built in (a bare bzImage).
 */
#include "core/compat.h"
#include "vm/vm.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* What the guest's init mounts, in load order (each after its dependencies). */
static const char *const wanted[] = { "virtio_pci", "virtio_blk",   "crc32c_generic",
				      "ext4",	    "9pnet_virtio", "9p" };

#define MAX_MODULES 64

struct cpio {
	FILE *f;
	unsigned ino;
	uint64_t off;
};

static int put(struct cpio *c, const void *p, size_t n)
{
	static const char zeros[4];

	if (n && fwrite(p, 1, n, c->f) != n)
		return -EIO;
	c->off += n;
	if (c->off % 4) {
		size_t pad = 4 - c->off % 4;

		if (fwrite(zeros, 1, pad, c->f) != pad)
			return -EIO;
		c->off += pad;
	}
	return 0;
}

/* One entry: a header, its name and its data, each padded to 4 bytes. */
static int entry(struct cpio *c, const char *name, unsigned mode, unsigned rmaj, unsigned rmin,
		 const void *data, size_t len)
{
	char hdr[160]; /* 110 bytes: every field fits its 8 hex digits (32 bits) */
	size_t nlen = strlen(name) + 1;
	int rc;

	if (len > UINT32_MAX)
		return -EFBIG;
	snprintf(hdr, sizeof(hdr), "070701%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X%08X",
		 c->ino++, mode, 0u, 0u, 1u, 0u, (unsigned)len, 0u, 0u, rmaj, rmin, (unsigned)nlen,
		 0u);
	if (fwrite(hdr, 1, 110, c->f) != 110)
		return -EIO;
	c->off += 110;
	rc = put(c, name, nlen);
	return rc ? rc : put(c, data, len);
}

/* A whole file into a malloc'd buffer (NUL-terminated); 0 or -errno. */
static int read_all(const char *path, char **out, size_t *len)
{
	FILE *f = fopen(path, "rbe");
	char *buf = NULL;
	size_t cap = 0, n = 0;
	int rc = 0;

	if (!f)
		return -errno;
	for (;;) {
		if (n + 65536 + 1 > cap) {
			char *nb = realloc(buf, cap = (cap ? cap * 2 : 1 << 20));

			if (!nb) {
				rc = -ENOMEM;
				break;
			}
			buf = nb;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);

		n += got;
		if (got == 0) {
			rc = ferror(f) ? -EIO : 0;
			break;
		}
	}
	fclose(f);
	if (rc) {
		free(buf);
		return rc;
	}
	buf[n] = '\0';
	*out = buf;
	*len = n;
	return 0;
}

static int file_entry(struct cpio *c, const char *name, unsigned mode, const char *path)
{
	char *buf = NULL;
	size_t len = 0;
	int rc = read_all(path, &buf, &len);

	if (!rc)
		rc = entry(c, name, S_IFREG | mode, 0, 0, buf, len);
	free(buf);
	return rc;
}

/* The modules.dep line of module `name` (its path ends in /NAME.ko*). */
static char *dep_line(char *dep, const char *name)
{
	char pat[80];
	size_t pl = (size_t)snprintf(pat, sizeof(pat), "/%s.ko", name);

	for (char *l = dep; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		char *colon = strchr(l, ':'), *p;

		if (!colon || (strchr(l, '\n') && colon > strchr(l, '\n')))
			continue;
		for (p = l; p + pl <= colon; p++)
			if (!strncmp(p, pat, pl) && (p + pl == colon || p[pl] == '.'))
				return l;
	}
	return NULL;
}

struct mods {
	char *path[MAX_MODULES]; /* relative to moddir, malloc'd */
	size_t n;
};

/* Add the module whose modules.dep path is rel, its dependencies first. */
static int add_module(char *dep, struct mods *m, const char *rel, size_t rlen, int depth)
{
	char *line, *p, *end, name[80];
	const char *base;

	for (size_t i = 0; i < m->n; i++)
		if (strlen(m->path[i]) == rlen && !strncmp(m->path[i], rel, rlen))
			return 0;
	if (depth > 16 || m->n >= MAX_MODULES)
		return -E2BIG;
	base = memrchr(rel, '/', rlen);
	base = base ? base + 1 : rel;
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(base, "."), base);
	line = dep_line(dep, name);
	if (line) {
		end = line + strcspn(line, "\n");
		for (p = strchr(line, ':') + 1; p < end;) {
			size_t n;

			p += strspn(p, " ");
			n = strcspn(p, " \n");
			if (n && add_module(dep, m, p, n, depth + 1))
				return -E2BIG;
			p += n;
		}
	}
	m->path[m->n] = strndup(rel, rlen);
	return m->path[m->n++] ? 0 : -ENOMEM;
}

static int find_modules(const char *moddir, struct mods *m, char *why, size_t len)
{
	char path[PATH_MAX + 16], *dep = NULL;
	size_t dlen;
	int rc;

	snprintf(path, sizeof(path), "%s/modules.dep", moddir);
	rc = read_all(path, &dep, &dlen);
	if (rc) {
		snprintf(why, len, "cannot read %s: %s", path, strerror(-rc));
		return rc;
	}
	for (size_t i = 0; i < UL_ARRAY_SIZE(wanted) && !rc; i++) {
		char *line = dep_line(dep, wanted[i]);

		if (line) /* else built in */
			rc = add_module(dep, m, line, strcspn(line, ":"), 0);
	}
	free(dep);
	if (rc)
		snprintf(why, len, "%s: cannot list the modules to load: %s", moddir,
			 strerror(-rc));
	return rc;
}

static int write_modules(struct cpio *c, const char *moddir, const struct mods *m, char *why,
			 size_t len)
{
	char src[PATH_MAX * 2], name[PATH_MAX];

	for (size_t i = 0; i < m->n; i++) {
		const char *base = strrchr(m->path[i], '/');
		int rc;

		snprintf(src, sizeof(src), "%s/%s", moddir, m->path[i]);
		snprintf(name, sizeof(name), "mod/%02zu-%s", i, base ? base + 1 : m->path[i]);
		rc = file_entry(c, name, 0644, src);
		if (rc) {
			snprintf(why, len, "cannot read %s: %s", src, strerror(-rc));
			return rc;
		}
	}
	return 0;
}

#define MAX_DIRS 64

/* Each file with the directories above it (each once): 0 or -errno with why. */
static int write_files(struct cpio *c, const struct ul_vm_files *files, char *why, size_t len)
{
	char *dirs[MAX_DIRS];
	size_t n_dirs = 0;
	int rc = 0;

	for (size_t i = 0; files && i < files->n && !rc; i++) {
		const char *dst = files->v[i].dst;

		for (const char *s = strchr(dst, '/'); s && !rc; s = strchr(s + 1, '/')) {
			char *d = strndup(dst, (size_t)(s - dst));
			bool seen = false;

			for (size_t k = 0; d && k < n_dirs && !seen; k++)
				seen = !strcmp(dirs[k], d);
			if (!d || seen || n_dirs == MAX_DIRS) {
				rc = !d ? -ENOMEM : seen ? 0 : -E2BIG;
				free(d);
				continue;
			}
			dirs[n_dirs++] = d;
			rc = entry(c, d, S_IFDIR | 0755, 0, 0, NULL, 0);
		}
		if (!rc) {
			rc = file_entry(c, dst, 0755, files->v[i].src);
			if (rc)
				snprintf(why, len, "cannot read %s: %s", files->v[i].src,
					 strerror(-rc));
		} else {
			snprintf(why, len, "cannot write the initramfs: %s", strerror(-rc));
		}
	}
	for (size_t k = 0; k < n_dirs; k++)
		free(dirs[k]);
	return rc;
}

static int write_all(struct cpio *c, const char *busybox, const char *moddir, const struct mods *m,
		     const char *env, const struct ul_vm_files *files, char *why, size_t len)
{
	static const char *const dirs[] = {
		"bin", "dev", "proc", "sys", "tmp", "var", "run", "mod"
	};
	int rc = 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(dirs) && !rc; i++)
		rc = entry(c, dirs[i], S_IFDIR | 0755, 0, 0, NULL, 0);
	if (!rc)
		rc = entry(c, "dev/console", S_IFCHR | 0600, 5, 1, NULL, 0);
	if (!rc)
		rc = entry(c, "init", S_IFREG | 0755, 0, 0, ul_vm_guest_init,
			   strlen(ul_vm_guest_init));
	if (!rc)
		rc = entry(c, "env", S_IFREG | 0644, 0, 0, env, strlen(env));
	if (rc) {
		snprintf(why, len, "cannot write the initramfs: %s", strerror(-rc));
		return rc;
	}
	rc = file_entry(c, "bin/busybox", 0755, busybox);
	if (rc) {
		snprintf(why, len, "cannot read %s: %s", busybox, strerror(-rc));
		return rc;
	}
	rc = write_files(c, files, why, len);
	if (!rc)
		rc = write_modules(c, moddir, m, why, len);
	if (!rc)
		rc = entry(c, "TRAILER!!!", 0, 0, 0, NULL, 0);
	return rc;
}

int ul_vm_initramfs(const char *out, const char *busybox, const char *moddir, const char *env,
		    const struct ul_vm_files *files, char *why, size_t len)
{
	struct mods m = { .n = 0 };
	struct cpio c = { .ino = 1 };
	int rc = moddir[0] ? find_modules(moddir, &m, why, len) : 0;

	if (!rc) {
		c.f = fopen(out, "wbxe");
		if (!c.f) {
			rc = -errno;
			snprintf(why, len, "cannot create %s: %s", out, strerror(errno));
		}
	}
	if (!rc)
		rc = write_all(&c, busybox, moddir, &m, env, files, why, len);
	if (c.f && fclose(c.f) && !rc) {
		rc = -EIO;
		snprintf(why, len, "cannot write %s", out);
	}
	for (size_t i = 0; i < m.n; i++)
		free(m.path[i]);
	return rc;
}
