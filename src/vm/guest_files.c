/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * What the guest gets of the host: this program and its helpers (in
 * UL_VM_GUEST_BIN of the initramfs) and the shared libraries they load, at
 * their own paths.  Nothing else of the host's filesystem: the guest is
 * untrusted.  The libraries are those the dynamic loader itself lists
 * (LD_TRACE_LOADED_OBJECTS=1, as ldd does; only for a dynamic ELF, which
 * the loader then does not run): its own path included.
 */
#include "core/compat.h"
#include "ul_config.h"
#include "vm/vm.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

/* The helpers the micro suite execs beside this program (probe/micro/forker.c). */
static const char *const helpers[] = { "underload-forker", "underload-hello" };

#define MAX_TRACE (64 * 1024)

/* Add src at dst (relative to the guest's root) unless dst is there: 0 or -ENOMEM. */
static int add(struct ul_vm_files *f, const char *src, const char *dst)
{
	struct ul_vm_file *v;

	for (size_t i = 0; i < f->n; i++)
		if (!strcmp(f->v[i].dst, dst))
			return 0;
	v = realloc(f->v, (f->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	f->v = v;
	snprintf(v[f->n].src, sizeof(v[f->n].src), "%s", src);
	snprintf(v[f->n].dst, sizeof(v[f->n].dst), "%s", dst);
	f->n++;
	return 0;
}

/* The dynamic loader's list of prog's libraries into buf: 0, or -errno. */
static int trace(const char *prog, char *buf, size_t len)
{
	char *const argv[] = { (char *)prog, NULL };
	char *const envp[] = { (char *)"LD_TRACE_LOADED_OBJECTS=1", NULL };
	int pipefd[2], status, rc = 0;
	size_t n = 0;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC) < 0)
		return -errno;
	pid = fork();
	if (pid < 0) {
		rc = -errno;
		close(pipefd[0]);
		close(pipefd[1]);
		return rc;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(pipefd[1], STDOUT_FILENO) < 0)
			_exit(127);
		execve(prog, argv, envp);
		_exit(127);
	}
	close(pipefd[1]);
	for (;;) {
		ssize_t k = read(pipefd[0], buf + n, len - 1 - n);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			break;
		n += (size_t)k;
		if (n == len - 1)
			break;
	}
	buf[n] = '\0';
	close(pipefd[0]);
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -errno;
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0 || n == len - 1)
		rc = -EIO;
	return rc;
}

/* Add the libraries the loader lists for prog ("lib => /path (addr)", and
 * its own "/path (addr)"), each at its path. */
static int add_libraries(struct ul_vm_files *f, const char *prog, char *why, size_t len)
{
	char *buf = malloc(MAX_TRACE), *save = NULL;
	int rc = buf ? trace(prog, buf, MAX_TRACE) : -ENOMEM;

	if (rc) {
		snprintf(why, len, "cannot list the libraries of %s: %s", prog, strerror(-rc));
		free(buf);
		return rc;
	}
	for (char *l = strtok_r(buf, "\n", &save); l && !rc; l = strtok_r(NULL, "\n", &save)) {
		char *arrow = strstr(l, " => "), *path = arrow ? arrow + 4 : l + strspn(l, " \t");

		if (!strncmp(path, "not found", 9)) {
			snprintf(why, len, "%s needs %.*s, which is not found", prog,
				 (int)(arrow - l), l + strspn(l, " \t"));
			rc = -ENOENT;
			break;
		}
		if (path[0] != '/')
			continue; /* the vDSO */
		path[strcspn(path, " ")] = '\0';
		rc = add(f, path, path + 1);
	}
	free(buf);
	return rc;
}

int ul_vm_guest_files(const char *exe, const char *dir, struct ul_vm_files *f, char *why,
		      size_t len)
{
	size_t n_progs;
	int rc = add(f, exe, UL_VM_GUEST_BIN "/underload");

	for (size_t i = 0; i < UL_ARRAY_SIZE(helpers) && !rc; i++) {
		char src[PATH_MAX], dst[64];

		snprintf(dst, sizeof(dst), UL_VM_GUEST_BIN "/%s", helpers[i]);
		snprintf(src, sizeof(src), "%s/%s", dir, helpers[i]);
		if (access(src, X_OK) < 0)
			snprintf(src, sizeof(src), "%s/%s", UL_LIBEXEC_DIR, helpers[i]);
		if (access(src, X_OK) == 0)
			rc = add(f, src, dst);
	}
	n_progs = f->n;
	for (size_t i = 0; i < n_progs && !rc; i++) {
		char prog[PATH_MAX]; /* f->v moves as libraries are added */

		int elf;

		snprintf(prog, sizeof(prog), "%s", f->v[i].src);
		elf = ul_vm_static_elf(prog);
		if (elf == -ENOEXEC)
			rc = add_libraries(f, prog, why, len);
		else if (elf) {
			snprintf(why, len, "cannot read %s: %s", prog, strerror(-elf));
			rc = elf;
		}
	}
	if (rc == -ENOMEM)
		snprintf(why, len, "%s", strerror(ENOMEM));
	return rc;
}

void ul_vm_files_free(struct ul_vm_files *f)
{
	free(f->v);
	f->v = NULL;
	f->n = 0;
}
