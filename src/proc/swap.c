/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Swap files for a run: check the filesystem and free space, allocate real
 * blocks, mkswap, swapon; and swapoff plus unlink afterwards.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "core/log.h"
#include "proc/scratch.h"
#include "proc/swap.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <linux/capability.h>
#include <linux/magic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/swap.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <sys/wait.h>
#include <unistd.h>

#define MKSWAP_TIMEOUT_NS (60 * UL_NS_PER_SEC)
#define NAME_TRIES 8

/* Not in every linux/magic.h. */
#define UL_ZFS_MAGIC 0x2fc12fc1
#define UL_NFS_MAGIC 0x6969
#define UL_CIFS_MAGIC 0xff534d42
#define UL_SMB2_MAGIC 0xfe534d42
#define UL_SMB_MAGIC 0x517b
#define UL_CEPH_MAGIC 0x00c36400
#define UL_V9FS_MAGIC 0x01021997
#define UL_FUSE_MAGIC 0x65735546
#define UL_AUFS_MAGIC 0x61756673
#define UL_SQUASHFS_MAGIC 0x73717368
#define UL_ECRYPTFS_MAGIC 0xf15f
#define UL_BCACHEFS_MAGIC 0xca451a4e

/* Why the filesystem cannot hold a swap file, or NULL if it may. */
static const char *fs_refusal(unsigned long type)
{
	static const struct {
		unsigned long magic;
		const char *why;
	} bad[] = {
		{ TMPFS_MAGIC, "tmpfs lives in memory (and swap)" },
		{ RAMFS_MAGIC, "ramfs lives in memory" },
		{ OVERLAYFS_SUPER_MAGIC, "overlayfs does not support swap files" },
		{ BTRFS_SUPER_MAGIC, "btrfs needs a nocow file" },
		{ UL_ZFS_MAGIC, "ZFS does not support swap files" },
		{ UL_NFS_MAGIC, "NFS swap files are not supported here" },
		{ UL_CIFS_MAGIC, "network filesystems (CIFS) cannot hold swap" },
		{ UL_SMB2_MAGIC, "network filesystems (SMB2) cannot hold swap" },
		{ UL_SMB_MAGIC, "network filesystems (SMB) cannot hold swap" },
		{ UL_CEPH_MAGIC, "network filesystems (Ceph) cannot hold swap" },
		{ UL_V9FS_MAGIC, "9p filesystems cannot hold swap" },
		{ UL_FUSE_MAGIC, "FUSE filesystems cannot hold swap" },
		{ UL_AUFS_MAGIC, "aufs does not support swap files" },
		{ UL_SQUASHFS_MAGIC, "squashfs is read-only" },
		{ UL_ECRYPTFS_MAGIC, "ecryptfs does not support swap files" },
		{ UL_BCACHEFS_MAGIC, "bcachefs does not support swap files" },
		{ PROC_SUPER_MAGIC, "not a disk filesystem (proc)" },
		{ SYSFS_MAGIC, "not a disk filesystem (sysfs)" },
		{ CGROUP_SUPER_MAGIC, "not a disk filesystem (cgroup)" },
		{ CGROUP2_SUPER_MAGIC, "not a disk filesystem (cgroup2)" },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(bad); i++)
		if (bad[i].magic == type)
			return bad[i].why;
	return NULL;
}

static const char *find_mkswap(void)
{
	static const char *const paths[] = { "/sbin/mkswap", "/usr/sbin/mkswap" };

	for (size_t i = 0; i < UL_ARRAY_SIZE(paths); i++)
		if (access(paths[i], X_OK) == 0)
			return paths[i];
	return NULL;
}

/*
 * Wait for our child pid until deadline, polling every 5 ms; past it,
 * SIGKILL and reap it.  0 with its wait status in *status, -ETIME at the
 * deadline, -ECHILD when it was reaped behind our back (SIGCHLD ignored),
 * or -errno.
 */
static int wait_until(pid_t pid, ul_nsec deadline, int *status)
{
	for (;;) {
		pid_t r = waitpid(pid, status, WNOHANG);

		if (r == pid)
			return 0;
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (ul_now_ns() > deadline) {
			kill(pid, SIGKILL);
			while (waitpid(pid, status, 0) < 0 && errno == EINTR)
				;
			return -ETIME;
		}
		usleep(5000);
	}
}

/*
 * Run mkswap on path, output to /dev/null, with a timeout.  proc/ has no
 * supervisor here, so this is a minimal private spawn: the child dies with
 * us (PDEATHSIG), gets default signals and an empty mask, and only
 * async-signal-safe calls run between fork and exec.
 */
static int run_mkswap(const char *mkswap, const char *path, char *why, size_t whylen)
{
	char arg0[] = "mkswap";
	char *argv[] = { arg0, (char *)path, NULL };
	pid_t parent = getpid(), pid;
	ul_nsec deadline = ul_now_ns() + MKSWAP_TIMEOUT_NS;
	int status = 0, rc;

	pid = fork();
	if (pid < 0) {
		int err = -errno;

		ul_whyf(why, whylen, "cannot fork for mkswap: %s", strerror(-err));
		return err;
	}
	if (pid == 0) {
		sigset_t none;
		int fd;

		prctl(PR_SET_PDEATHSIG, SIGKILL);
		if (getppid() != parent)
			_exit(127);
		for (int sig = 1; sig < NSIG; sig++)
			signal(sig, SIG_DFL);
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		fd = open("/dev/null", O_RDWR);
		if (fd < 0)
			_exit(127);
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
#ifdef SYS_close_range
		if (syscall(SYS_close_range, 3U, ~0U, 0U) < 0)
#endif
			for (int i = 3; i < 1024; i++)
				close(i);
		execv(mkswap, argv);
		_exit(127);
	}
	rc = wait_until(pid, deadline, &status);
	if (rc == -ECHILD)
		return 0; /* SIGCHLD ignored: reaped for us; swapon checks the result. */
	if (rc == -ETIME)
		ul_whyf(why, whylen, "%s %s timed out", mkswap, path);
	if (rc)
		return rc;
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	if (WIFEXITED(status))
		ul_whyf(why, whylen, "%s %s failed with exit status %d", mkswap, path,
			WEXITSTATUS(status));
	else
		ul_whyf(why, whylen, "%s %s was killed by signal %d", mkswap, path,
			WIFSIGNALED(status) ? WTERMSIG(status) : 0);
	return -EIO;
}

/*
 * Only where mkswap is missing: the version-1 header mkswap writes, in the
 * first page, with the "SWAPSPACE2" magic at its end.
 */
static int write_header(int fd, uint64_t size_bytes, char *why, size_t whylen)
{
	long page = sysconf(_SC_PAGESIZE);
	struct {
		uint32_t version, last_page, nr_badpages;
		unsigned char uuid[16];
		char volume[16];
	} info = { .version = 1 };
	char *buf;
	ssize_t n;

	if (page < 4096)
		page = 4096;
	buf = calloc(1, (size_t)page);
	if (!buf)
		return -ENOMEM;
	info.last_page = (uint32_t)(size_bytes / (uint64_t)page - 1);
	if (getrandom(info.uuid, sizeof(info.uuid), 0) != (ssize_t)sizeof(info.uuid))
		memset(info.uuid, 0x5a, sizeof(info.uuid));
	info.uuid[6] = (unsigned char)((info.uuid[6] & 0x0f) | 0x40); /* version 4 */
	info.uuid[8] = (unsigned char)((info.uuid[8] & 0x3f) | 0x80);
	memcpy(buf + 1024, &info, sizeof(info));
	memcpy(buf + page - 10, "SWAPSPACE2", 10);
	n = pwrite(fd, buf, (size_t)page, 0);
	free(buf);
	if (n != page) {
		int err = n < 0 ? -errno : -EIO;

		ul_whyf(why, whylen, "cannot write the swap header: %s", strerror(-err));
		return err;
	}
	return 0;
}

/* Offsets in the first page of a version-1 swap header (struct swap_header). */
#define SWAP_UUID_OFF 1036
#define SWAP_LABEL_OFF 1052
#define SWAP_LABEL "underload"

/* "xxxxxxxx-xxxx-..." to 16 bytes; false if it is not a UUID. */
static bool uuid_bytes(const char *text, unsigned char out[16])
{
	size_t n = 0;

	for (const char *c = text; *c && n < 32; c++) {
		int v;

		if (*c == '-')
			continue;
		if (*c >= '0' && *c <= '9')
			v = *c - '0';
		else if (*c >= 'a' && *c <= 'f')
			v = *c - 'a' + 10;
		else if (*c >= 'A' && *c <= 'F')
			v = *c - 'A' + 10;
		else
			return false;
		if (n % 2 == 0)
			out[n / 2] = (unsigned char)(v << 4);
		else
			out[n / 2] |= (unsigned char)v;
		n++;
	}
	return n == 32;
}

/* Our label and the run's UUID in the header, so cleanup can tell the file is ours. */
static int stamp_header(int fd, const char *run_uuid, char *why, size_t whylen)
{
	unsigned char uuid[16];
	char label[16] = SWAP_LABEL;

	if (!uuid_bytes(run_uuid, uuid)) {
		ul_whyf(why, whylen, "bad run UUID '%s'", run_uuid);
		return -EINVAL;
	}
	if (pwrite(fd, uuid, sizeof(uuid), SWAP_UUID_OFF) != (ssize_t)sizeof(uuid) ||
	    pwrite(fd, label, sizeof(label), SWAP_LABEL_OFF) != (ssize_t)sizeof(label)) {
		int err = -errno;

		ul_whyf(why, whylen, "cannot label the swap header: %s", strerror(-err));
		return err ? err : -EIO;
	}
	return 0;
}

int ul_swap_is_ours(const char *path, const char *run_uuid)
{
	unsigned char want[16], page[65536];
	struct stat st;
	ssize_t n;
	int fd, rc = 0;
	bool magic = false;

	if (run_uuid && !uuid_bytes(run_uuid, want))
		return -EINVAL;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK);
	if (fd < 0)
		return errno == ENOENT ? -ENOENT : errno == ELOOP ? -ELOOP : -errno;
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid() ||
	    st.st_nlink != 1) {
		close(fd);
		return -EPERM;
	}
	n = pread(fd, page, sizeof(page), 0);
	close(fd);
	if (n < 4096)
		return -EPERM;
	/* The magic ends the first page, whatever the page size was. */
	for (size_t ps = 4096; ps <= (size_t)n && !magic; ps *= 2)
		magic = !memcmp(page + ps - 10, "SWAPSPACE2", 10);
	if (!magic || (run_uuid && (memcmp(page + SWAP_UUID_OFF, want, sizeof(want)) ||
				    strncmp((const char *)page + SWAP_LABEL_OFF, SWAP_LABEL, 16))))
		rc = -EPERM;
	return rc;
}

/* Real blocks: swapon refuses files with holes. */
static int allocate(int fd, uint64_t size_bytes, const char *path, char *why, size_t whylen)
{
	static const size_t chunk = 1024 * 1024;
	char *zeros;
	uint64_t off = 0;

	if (fallocate(fd, 0, 0, (off_t)size_bytes) == 0)
		return 0;
	if (errno != EOPNOTSUPP && errno != ENOSYS) {
		int err = -errno;

		ul_whyf(why, whylen, "cannot allocate %" PRIu64 " bytes for %s: %s", size_bytes,
			path, strerror(-err));
		return err;
	}
	zeros = calloc(1, chunk);
	if (!zeros)
		return -ENOMEM;
	while (off < size_bytes) {
		size_t want = size_bytes - off < chunk ? (size_t)(size_bytes - off) : chunk;
		ssize_t n = pwrite(fd, zeros, want, (off_t)off);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int err = n < 0 ? -errno : -EIO;

			free(zeros);
			ul_whyf(why, whylen, "cannot write %s: %s", path, strerror(-err));
			return err;
		}
		off += (uint64_t)n;
	}
	free(zeros);
	return 0;
}

static void random_name(char *out, size_t len)
{
	static const char set[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[6];
	char suffix[7];

	if (getrandom(r, sizeof(r), GRND_NONBLOCK) != (ssize_t)sizeof(r)) {
		uint64_t x = (uint64_t)ul_now_ns() ^ ((uint64_t)getpid() << 20);

		for (size_t i = 0; i < sizeof(r); i++, x >>= 7)
			r[i] = (unsigned char)x;
	}
	for (size_t i = 0; i < sizeof(r); i++)
		suffix[i] = set[r[i] % (sizeof(set) - 1)];
	suffix[6] = '\0';
	snprintf(out, len, UL_SWAP_PREFIX "%s", suffix);
}

int ul_swap_permitted(char *why, size_t whylen)
{
	struct __user_cap_header_struct head = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];

	memset(data, 0, sizeof(data));
	/* No capget() (a seccomp filter, an old kernel): let swapon decide. */
	if (syscall(SYS_capget, &head, data) < 0)
		return 0;
	if (data[CAP_TO_INDEX(CAP_SYS_ADMIN)].effective & CAP_TO_MASK(CAP_SYS_ADMIN))
		return 0;
	ul_whyf(why, whylen, "swapon needs CAP_SYS_ADMIN (run as root)");
	return -EPERM;
}

/* Check everything that can be checked before touching the disk. */
static int preflight(const char *dir, uint64_t size_bytes, int priority, char *why, size_t whylen)
{
	struct statfs sfs;
	const char *refusal;
	uint64_t avail;

	if (size_bytes < UL_SWAP_MIN_BYTES) {
		ul_whyf(why, whylen,
			"swap size %" PRIu64 " is below the minimum of %" PRIu64 " bytes",
			size_bytes, (uint64_t)UL_SWAP_MIN_BYTES);
		return -EINVAL;
	}
	if (priority > 32767) {
		ul_whyf(why, whylen, "swap priority %d is above 32767", priority);
		return -EINVAL;
	}
	if (statfs(dir, &sfs) < 0) {
		int err = -errno;

		ul_whyf(why, whylen, "cannot use %s: %s", dir, strerror(-err));
		return err;
	}
	refusal = fs_refusal((unsigned long)sfs.f_type);
	if (refusal) {
		ul_whyf(why, whylen, "%s cannot hold a swap file: %s", dir, refusal);
		return -EOPNOTSUPP;
	}
	avail = (uint64_t)sfs.f_bavail * (uint64_t)sfs.f_bsize;
	if (avail < UL_SWAP_RESERVE_BYTES || size_bytes > avail - UL_SWAP_RESERVE_BYTES) {
		ul_whyf(why, whylen,
			"%s has %" PRIu64 " MiB free: not enough for %" PRIu64
			" MiB of swap plus a %" PRIu64 " MiB reserve",
			dir, avail / UL_MiB, size_bytes / UL_MiB,
			(uint64_t)UL_SWAP_RESERVE_BYTES / UL_MiB);
		return -ENOSPC;
	}
	return 0;
}

static int make_swap(const char *path, int fd, uint64_t size_bytes, int priority,
		     const char *run_uuid, char *why, size_t whylen)
{
	const char *mkswap = find_mkswap();
	int flags = 0, rc;

	rc = allocate(fd, size_bytes, path, why, whylen);
	if (!rc && !mkswap)
		rc = write_header(fd, size_bytes, why, whylen);
	if (!rc && fsync(fd) < 0) {
		rc = -errno;
		ul_whyf(why, whylen, "cannot sync %s: %s", path, strerror(-rc));
	}
	if (rc)
		return rc;
	if (mkswap) {
		rc = run_mkswap(mkswap, path, why, whylen);
		if (rc)
			return rc;
	}
	rc = stamp_header(fd, run_uuid, why, whylen);
	if (!rc && fsync(fd) < 0) {
		rc = -errno;
		ul_whyf(why, whylen, "cannot sync %s: %s", path, strerror(-rc));
	}
	if (rc)
		return rc;
	if (priority >= 0)
		flags = SWAP_FLAG_PREFER |
			((priority << SWAP_FLAG_PRIO_SHIFT) & SWAP_FLAG_PRIO_MASK);
	if (swapon(path, flags) < 0) {
		rc = -errno;
		if (rc == -EINVAL)
			ul_whyf(why, whylen,
				"swapon %s: %s (the filesystem may not support swap "
				"files)",
				path, strerror(-rc));
		else if (rc == -EPERM)
			ul_whyf(why, whylen,
				"swapon %s: %s (needs CAP_SYS_ADMIN, or too many swap "
				"areas)",
				path, strerror(-rc));
		else
			ul_whyf(why, whylen, "swapon %s: %s", path, strerror(-rc));
		return rc;
	}
	return 0;
}

int ul_swap_plan(const char *dir, uint64_t *size_bytes, int priority, char *path_out, size_t len,
		 char *why, size_t whylen)
{
	long page = sysconf(_SC_PAGESIZE);
	char name[32];
	int rc, n;

	if (why && whylen)
		why[0] = '\0';
	if (path_out && len)
		path_out[0] = '\0';
	if (!dir || !dir[0] || !path_out || !size_bytes) {
		ul_whyf(why, whylen, "no directory for the swap file");
		return -EINVAL;
	}
	if (page > 0)
		*size_bytes -= *size_bytes % (uint64_t)page;
	rc = preflight(dir, *size_bytes, priority, why, whylen);
	if (rc)
		return rc;
	random_name(name, sizeof(name));
	n = snprintf(path_out, len, "%s/%s", dir, name);
	if (n < 0 || (size_t)n >= len) {
		path_out[0] = '\0';
		ul_whyf(why, whylen, "swap file path too long in %s", dir);
		return -ENAMETOOLONG;
	}
	return 0;
}

int ul_swap_make(const char *path, uint64_t size_bytes, int priority, const char *run_uuid,
		 char *why, size_t whylen)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	int fd, rc;

	if (!slash || slash == path || (size_t)(slash - path) >= sizeof(dir))
		return -EINVAL;
	snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path), path);
	/* Relative to the scratch directory's fd, never through a symlink. */
	fd = ul_scratch_openat(dir, slash + 1, O_WRONLY | O_CREAT | O_EXCL, 0600);
	if (fd < 0) {
		if (fd != -EEXIST)
			ul_whyf(why, whylen, "cannot create %s: %s", path, strerror(-fd));
		return fd;
	}
	/* mkswap warns about, and the kernel should not share, a readable swap file. */
	(void)fchmod(fd, 0600);
	rc = make_swap(path, fd, size_bytes, priority, run_uuid, why, whylen);
	close(fd);
	if (rc)
		(void)ul_scratch_unlinkat(dir, slash + 1);
	return rc;
}

int ul_swap_create(const char *dir, uint64_t size_bytes, int priority, const char *run_uuid,
		   char *path_out, size_t len, char *why, size_t whylen)
{
	int rc = -EEXIST;

	for (int tries = 0; rc == -EEXIST && tries < NAME_TRIES; tries++) {
		rc = ul_swap_plan(dir, &size_bytes, priority, path_out, len, why, whylen);
		if (!rc)
			rc = ul_swap_make(path_out, size_bytes, priority, run_uuid, why, whylen);
	}
	if (rc == -EEXIST)
		ul_whyf(why, whylen, "cannot find a free swap file name in %s", dir);
	if (rc && path_out && len)
		path_out[0] = '\0';
	return rc;
}
