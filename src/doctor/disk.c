/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The doctor's disk check: free space under --dir.  Disk loads always
 * leave run's --disk-reserve (1 GiB by default) free, so below that they
 * cannot write at all; below a few GiB they write smaller files than the
 * seeds did.
 */
#include "core/compat.h"
#include "doctor/doctor.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/statvfs.h>

#define DISK_BLOCKER_BYTES (1ull << 30)
#define DISK_WARN_BYTES (4ull << 30)

static void disk(const struct ul_doctor_opts *o, const struct ul_doctor_sample *s,
		 struct ul_doctor_finding *f)
{
	struct statvfs v;
	uint64_t avail;

	(void)s;
	if (!o->dir) {
		snprintf(f->what, sizeof(f->what), "no --dir to check");
		return;
	}
	if (statvfs(o->dir, &v)) {
		f->severity = UL_DOCTOR_BLOCKER;
		snprintf(f->what, sizeof(f->what), "cannot check %.200s: %s", o->dir,
			 strerror(errno));
		snprintf(f->todo, sizeof(f->todo), "give --dir a directory that exists");
		return;
	}
	avail = (uint64_t)v.f_bavail * v.f_frsize;
	snprintf(f->what, sizeof(f->what), "%.1f GiB free under %.200s",
		 (double)avail / (double)(1ull << 30), o->dir);
	if (avail >= DISK_WARN_BYTES)
		return;
	f->severity = avail < DISK_BLOCKER_BYTES ? UL_DOCTOR_BLOCKER : UL_DOCTOR_WARN;
	snprintf(f->todo, sizeof(f->todo),
		 "free space there or point --dir at a larger filesystem: disk loads keep "
		 "--disk-reserve free");
}

const struct ul_doctor_check ul_doctor_check_disk = { "disk", disk };
