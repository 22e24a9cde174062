/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * `underload __lsdir DIR`: the small program the resp probe execs.  It does
 * the file-system part of `ls -l` (readdir, lstat each entry) silently.
 */
#include "core/compat.h"
#include "probe/probe.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>

/*
 * Exit status is the whole interface: 0 when every entry was listed and
 * lstat()ed, 1 otherwise.  Nothing is printed, even on error, so the timed
 * task never waits on a terminal or a pipe.
 */
int ul_probe_lsdir_main(int argc, char **argv)
{
	struct dirent *de;
	int rc = 0;
	DIR *d;

	if (argc != 3 || strcmp(argv[1], "__lsdir"))
		return 1;
	d = opendir(argv[2]);
	if (!d)
		return 1;
	for (;;) {
		struct stat st;

		errno = 0;
		de = readdir(d);
		if (!de) {
			if (errno)
				rc = 1;
			break;
		}
		/* ls -l without -a shows neither. */
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			rc = 1;
	}
	if (closedir(d))
		rc = 1;
	return rc;
}
