/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Turning a swap file of ours off for good: swapoff(2) until /proc/swaps
 * no longer lists the file, then unlink.
 *
 * swapoff's error alone does not say whether the file is still a swap
 * area (mm/swapfile.c):
 *  - ENOMEM: every page in the file is read back and charged to the
 *    memory cgroup of the process it belongs to.  Other processes' pages
 *    land in our file too (areas of one priority are used round-robin;
 *    every --swap file has 32767).  If such a cgroup is at its limit with
 *    no other swap to reclaim into (underload's own cgroup-v1 --mem-limit
 *    turns its OOM killer off), the charge fails, swapoff puts the area
 *    back and fails, and keeps failing until that process frees memory
 *    or ends.  An OOM kill it triggers in such a cgroup can fail it once.
 *  - EINTR: a signal arriving (unblocked) while swapoff runs fails it
 *    once it has gone over the file, the area put back.  A blocked signal
 *    (a run's teardown blocks them) does not.
 *  - EINVAL: not a swap area, or one whose swapoff (by anyone) is under
 *    way: the kernel cannot tell us which.
 * So the file counts as off only when /proc/swaps no longer lists it, by
 * inode as well as by path (the kernel prints the path it resolved).
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/log.h"
#include "proc/swap.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <time.h>
#include <unistd.h>

#define SWAPS "/proc/swaps"
#define RETRY_FIRST_NS (10 * UL_NS_PER_MS)
#define RETRY_MAX_NS (500 * UL_NS_PER_MS)
/* A wait this long or an error other than EINTR is worth a note. */
#define NOTE_AFTER_NS UL_NS_PER_SEC

/* The kernel escapes ' ', '\t', '\n' and '\\' in /proc/swaps as \ooo. */
static void unescape(char *s)
{
	char *out = s;

	for (; *s; s++, out++) {
		if (s[0] == '\\' && s[1] >= '0' && s[1] <= '3' && s[2] >= '0' && s[2] <= '7' &&
		    s[3] >= '0' && s[3] <= '7') {
			*out = (char)((s[1] - '0') * 64 + (s[2] - '0') * 8 + (s[3] - '0'));
			s += 3;
		} else {
			*out = *s;
		}
	}
	*out = '\0';
}

/*
 * Does /proc/swaps list path (by name, or as the inode id names when id is
 * not NULL)?  1 yes, 0 no, -errno when it cannot be read.
 */
static int swaps_lists(const char *path, const struct stat *id)
{
	char line[PATH_MAX + 128], name[PATH_MAX + 1];
	FILE *f = fopen(SWAPS, "re");
	int listed = 0;

	if (!f)
		return -errno;
	while (!listed && fgets(line, sizeof(line), f)) {
		struct stat st;

		if (sscanf(line, "%4096s", name) != 1 || name[0] != '/')
			continue; /* the header */
		unescape(name);
		listed = !strcmp(name, path) ||
			 (id && stat(name, &st) == 0 && st.st_dev == id->st_dev &&
			  st.st_ino == id->st_ino);
	}
	fclose(f);
	return listed;
}

/* Errors after which another swapoff may succeed (see the top). */
static bool worth_retrying(int err)
{
	return err == -ENOMEM || err == -EINTR || err == -EBUSY || err == -EAGAIN || err == -EINVAL;
}

/* What an error of a swapoff that left the file on most likely means. */
static const char *cause(int err)
{
	switch (err) {
	case -ENOMEM:
		return "pages of a process whose memory cgroup is full are in it";
	case -EINVAL:
		return "another swapoff of it is under way";
	case -EINTR:
		return "a signal interrupted it";
	default:
		return "still in use";
	}
}

static void pause_ns(ul_nsec ns)
{
	struct timespec ts = ul_ns_to_ts(ns);

	/* A handled signal cuts it short: the next swapoff comes sooner. */
	(void)nanosleep(&ts, NULL);
}

/*
 * swapoff until the file is no longer a swap area.  0 once /proc/swaps
 * does not list it; -EBUSY while it still does at the deadline; another
 * -errno from swapoff that no retry can change (EPERM).
 */
static int swap_off(const char *path, ul_nsec patience)
{
	ul_nsec start = ul_now_ns(), delay = RETRY_FIRST_NS;
	struct stat id;
	bool have_id = lstat(path, &id) == 0, noted = false;

	for (;;) {
		int err = swapoff(path) < 0 ? -errno : 0;
		int listed = swaps_lists(path, have_id ? &id : NULL);
		ul_nsec waited = ul_now_ns() - start;

		if (listed == 0)
			return 0;
		if (listed < 0) /* no /proc/swaps to ask: the errno is all we have */
			return err == 0 || err == -EINVAL || err == -ENOENT ? 0 : err;
		if (err && !worth_retrying(err))
			return err;
		if (waited >= patience) {
			ul_warning("swap file %s is still in use after %.0f s (swapoff: %s)", path,
				   (double)waited / UL_NS_PER_SEC, strerror(err ? -err : EBUSY));
			return -EBUSY;
		}
		if (!noted && (waited >= NOTE_AFTER_NS || (err && err != -EINTR))) {
			ul_note("swap file %s: swapoff: %s (%s); retrying for up to %.0f s", path,
				strerror(err ? -err : EBUSY), cause(err),
				(double)patience / UL_NS_PER_SEC);
			noted = true;
		}
		pause_ns(delay);
		delay = delay * 2 > RETRY_MAX_NS ? RETRY_MAX_NS : delay * 2;
	}
}

int ul_swap_destroy_within(const char *path, ul_nsec patience)
{
	const char *base;
	int rc;

	if (!path || !path[0])
		return -EINVAL;
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	if (strncmp(base, UL_SWAP_PREFIX, strlen(UL_SWAP_PREFIX)))
		return -EINVAL;
	rc = swap_off(path, patience);
	if (rc)
		return rc;
	if (unlink(path) < 0 && errno != ENOENT)
		return -errno;
	return 0;
}

int ul_swap_destroy(const char *path)
{
	return ul_swap_destroy_within(path, UL_SWAP_OFF_PATIENCE_NS);
}
