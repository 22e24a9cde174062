/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Where journals live and which boot they belong to (contracts in
 * journal.h and journal_parse.h): the directory list, its trust check,
 * and the boot id that makes a journal of an earlier boot stale.
 */
#include "core/compat.h"
#include "core/file.h"
#include "core/testhook.h"
#include "proc/journal_parse.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define BOOT_ID_FILE "/proc/sys/kernel/random/boot_id"

/* The durable directory: root's under /var/lib, a user's under the XDG
 * state directory; "" when HOME and XDG_STATE_HOME are both unusable. */
static void durable_dir(char out[PATH_MAX])
{
	const char *state = getenv("XDG_STATE_HOME");
	const char *home = getenv("HOME");

	out[0] = '\0';
	if (geteuid() == 0)
		snprintf(out, PATH_MAX, "/var/lib/underload/journal");
	else if (state && state[0] == '/')
		snprintf(out, PATH_MAX, "%s/underload/journal", state);
	else if (home && home[0] == '/')
		snprintf(out, PATH_MAX, "%s/.local/state/underload/journal", home);
}

int ul_journal_dirs(char dirs[UL_JOURNAL_MAX_DIRS][PATH_MAX])
{
	const char *env = getenv("UL_JOURNAL_DIR");
	const char *xdg = getenv("XDG_RUNTIME_DIR");
	int n = 0;

	if (env && env[0]) {
		snprintf(dirs[n++], PATH_MAX, "%s", env);
		return n;
	}
	durable_dir(dirs[n]);
	if (dirs[n][0])
		n++;
	/* Where earlier versions kept them (a reboot empties /run, but a
	 * leftover of this boot is still cleaned); also the fallbacks. */
	snprintf(dirs[n++], PATH_MAX, "/run/underload");
	if (xdg && xdg[0] == '/')
		snprintf(dirs[n++], PATH_MAX, "%s/underload", xdg);
	snprintf(dirs[n++], PATH_MAX, "/tmp/underload-%u", (unsigned)geteuid());
	return n;
}

/*
 * The missing parents of dir, each made 0700 (a user's ~/.local/state,
 * /var/lib/underload).  Existing ones are left as they are: only the
 * journal directory itself must be ours and closed (ul_journal_open_dir).
 */
static void make_parents(const char *dir)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s", dir);
	for (char *p = strchr(path + 1, '/'); p; p = strchr(p + 1, '/')) {
		*p = '\0';
		if (mkdir(path, 0700) < 0 && errno != EEXIST) {
			*p = '/';
			return; /* the final mkdir reports why */
		}
		*p = '/';
	}
}

int ul_journal_open_dir(const char *dir, bool create)
{
	struct stat st;
	int fd;

	if (create) {
		make_parents(dir);
		if (mkdir(dir, 0700) < 0 && errno != EEXIST)
			return -errno;
	}
	fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0)
		return errno == ELOOP || errno == ENOTDIR ? -EPERM : -errno;
	if (fstat(fd, &st) < 0 || st.st_uid != geteuid() || (st.st_mode & 077)) {
		close(fd);
		return -EPERM;
	}
	return fd;
}

/* A boot id as the kernel writes it, or a test's stand-in: 1..36 of
 * [0-9a-zA-Z-], so it is one word of the header line. */
static bool boot_id_ok(const char *s)
{
	size_t n = strlen(s);

	return n >= 1 && n < UL_JOURNAL_BOOT_LEN &&
	       strspn(s, "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ-") == n;
}

/* s into out when it is a boot id (boot_id_ok() bounds it, and the copy
 * checks it was not cut); -EINVAL when it is not one. */
static int copy_boot_id(char out[UL_JOURNAL_BOOT_LEN], const char *s)
{
	int n;

	if (!boot_id_ok(s))
		return -EINVAL;
	n = snprintf(out, UL_JOURNAL_BOOT_LEN, "%s", s);
	if (n < 0 || n >= UL_JOURNAL_BOOT_LEN) {
		out[0] = '\0';
		return -EINVAL;
	}
	return 0;
}

int ul_journal_boot_id(char out[UL_JOURNAL_BOOT_LEN])
{
	const char *test = ul_test_hook("UL_TEST_BOOT_ID");
	char buf[64];
	ssize_t n;

	out[0] = '\0';
	if (test)
		return copy_boot_id(out, test);
	n = ul_read_file(BOOT_ID_FILE, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	buf[strcspn(buf, "\n")] = '\0';
	return copy_boot_id(out, buf);
}

bool ul_journal_other_boot(const char *journal_boot, const char *current_boot)
{
	return journal_boot && journal_boot[0] && current_boot && current_boot[0] &&
	       strcmp(journal_boot, current_boot) != 0;
}
