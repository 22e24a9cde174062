/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * File and VM latencies and the file reread bandwidths, all in the
 * probe's scratch directory:
 *  - 0K/10K create: creat + write(size) + close, timed; delete: unlink,
 *    timed (the other half of each pair runs untimed); at most 1000
 *    files a batch, as LMbench's passes, and for deletes no more than
 *    twice the minimum batch time of untimed creates allows, even if a
 *    batch is then shorter than the minimum batch time.  lat_fs's layout:
 *    each batch in a fresh directory tree (made and removed untimed),
 *    FS_DIR_FILES entries a directory (so 1000 files are 10 directories
 *    of 100), decimal names, files made and removed from the last down;
 *  - mmap latency: mmap of an 8 MiB cached file, read one byte every
 *    160 KiB (lat-mmap's stride), munmap;
 *  - protection fault: a write to a read-only page, SIGSEGV to a handler
 *    that siglongjmp()s back (no sigreturn): fault and delivery whole
 *    (LMbench's figure, net of a signal's delivery, is lm-protfault);
 *  - page fault: read one byte every 64 KiB of a mapped cached file (so
 *    each touch faults, fault-around maps up to 16 pages), remapping at
 *    the end, its cost shared by the touches: the time of one fault
 *    (metric "minflt_per_op" ~1; LMbench's per-page figure is lm-pagefault);
 *  - file reread: pread() of 64 KiB chunks of a cached file, the data
 *    not read (the copy alone; LMbench's reread also sums it: lm-file-rd);
 *    mmap reread: summing 64 KiB chunks of the same file mapped once.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define CHUNK (64 * 1024)
#define MMAP_LAT_BYTES (8 * UL_MiB)
#define MMAP_LAT_STRIDE (160 * 1024)
#define PF_STRIDE (64 * 1024)
#define FS_FILES_MAX 1000
#define FS_DIR_FILES 100 /* lat_fs's -n: entries of a directory */

static volatile uint64_t fs_sink;

struct fs_state {
	char dir[4096]; /* the tree's root */
	size_t size;	/* bytes written into each created file */
	bool time_delete;
	char *data;
};

/* Directory levels below the root for n files, as lat_fs's setup_names:
 * 0 up to FS_DIR_FILES files, 1 up to FS_DIR_FILES^2, ... */
static int tree_depth(uint64_t n)
{
	uint64_t dirs = (n + FS_DIR_FILES - 1) / FS_DIR_FILES;
	int depth = 0;

	for (; dirs > 1; depth++)
		dirs = (dirs + FS_DIR_FILES - 1) / FS_DIR_FILES;
	return depth;
}

/* FS_DIR_FILES to the power k: the entries under a directory k levels up. */
static uint64_t tree_span(int k)
{
	uint64_t span = 1;

	while (k-- > 0)
		span *= FS_DIR_FILES;
	return span;
}

/* Path of entry i at `levels` levels below the root: its base-100 digits
 * ("ROOT/3/7" for file 307 of a 1-level tree). */
static void tree_name(char *buf, size_t len, const char *root, uint64_t i, int levels)
{
	int at = snprintf(buf, len, "%s", root);

	for (int l = levels; l >= 0 && at > 0 && (size_t)at < len; l--)
		at += snprintf(buf + at, len - (size_t)at, "/%llu",
			       (unsigned long long)(i / tree_span(l) % FS_DIR_FILES));
}

/* Make (or, remove = true, remove) the root and the directories a tree of
 * n files needs, deepest last (or first). */
static int tree_dirs(const struct fs_state *st, uint64_t n, bool remove)
{
	int depth = tree_depth(n), rc = 0;
	char path[4200];

	if (!remove && mkdir(st->dir, 0700))
		return -errno;
	for (int l = remove ? depth - 1 : 0; l >= 0 && l < depth; l += remove ? -1 : 1) {
		uint64_t files_per = tree_span(depth - l); /* under one directory of level l */

		for (uint64_t d = 0; d * files_per < n; d++) {
			tree_name(path, sizeof(path), st->dir, d, l);
			if ((remove ? rmdir(path) : mkdir(path, 0700)) && !rc)
				rc = -errno;
		}
	}
	if (remove && rmdir(st->dir) && !rc)
		rc = -errno;
	return rc;
}

static int create_files(struct fs_state *st, uint64_t n)
{
	int depth = tree_depth(n);
	char path[4200];

	for (uint64_t i = n; i-- > 0;) {
		int fd;

		tree_name(path, sizeof(path), st->dir, i, depth);
		fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (fd < 0)
			return -errno;
		if (st->size && write(fd, st->data, st->size) != (ssize_t)st->size) {
			close(fd);
			return -EIO;
		}
		close(fd);
	}
	return 0;
}

static int delete_files(struct fs_state *st, uint64_t n)
{
	int depth = tree_depth(n), rc = 0;
	char path[4200];

	for (uint64_t i = n; i-- > 0;) {
		tree_name(path, sizeof(path), st->dir, i, depth);
		if (unlink(path) && !rc)
			rc = -errno;
	}
	return rc;
}

static int fs_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct fs_state *st = arg;
	ul_nsec t0, t1;
	int rc = tree_dirs(st, iters, false);

	t0 = ul_now_ns();
	rc = rc ? rc : create_files(st, iters);
	t1 = ul_now_ns();
	if (rc) {
		delete_files(st, iters);
		tree_dirs(st, iters, true);
		return rc;
	}
	rc = delete_files(st, iters);
	*elapsed = st->time_delete ? ul_now_ns() - t1 : t1 - t0;
	if (!rc)
		rc = tree_dirs(st, iters, true);
	return rc;
}

/*
 * Files a batch may hold: LMbench's 1000 a pass, and for delete batches no
 * more than the untimed creates fit in twice the minimum batch time (on a
 * busy disk a create took milliseconds and 14 batches of 1000 took a
 * minute).  Probes the create cost with 8 files.
 */
static uint64_t fs_max_files(struct fs_state *st, const struct ul_micro_env *env)
{
	bool del = st->time_delete;
	int64_t created = 0;
	uint64_t n;

	st->time_delete = false;
	if (fs_batch(st, 8, &created) || created <= 0)
		created = 8;
	st->time_delete = del;
	if (!del)
		return FS_FILES_MAX;
	n = (uint64_t)(2 * env->mh.min_batch_ns / (created / 8 > 0 ? created / 8 : 1));
	return n < 8 ? 8 : n > FS_FILES_MAX ? FS_FILES_MAX : n;
}

static int fs_bench(const struct ul_micro_env *env, struct ul_micro_out *out, size_t size, bool del)
{
	struct fs_state st = { .size = size, .time_delete = del };
	struct ul_micro_env e = *env;
	int rc;

	snprintf(st.dir, sizeof(st.dir), "%s/micro-fs", env->scratch_dir);
	st.data = calloc(1, size ? size : 1);
	if (!st.data)
		return -ENOMEM;
	e.mh.max_iters = fs_max_files(&st, env);
	rc = ul_micro_simple(&e, out, fs_batch, &st, 1, 0);
	if (!rc)
		rc = ul_micro_put_metric(out, "dir_files", FS_DIR_FILES);
	free(st.data);
	return rc;
}

static int bench_create0k(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return fs_bench(env, out, 0, false);
}

static int bench_delete0k(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return fs_bench(env, out, 0, true);
}

static int bench_create10k(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return fs_bench(env, out, 10 * 1024, false);
}

static int bench_delete10k(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return fs_bench(env, out, 10 * 1024, true);
}

/* A cached scratch file of `bytes`, open read-only in *fd. */
struct map_state {
	int fd;
	size_t bytes;
	char *map;  /* NULL when not mapped */
	size_t pos; /* page-fault position, mmap-reread offset */
	char *buf;
	long minflt;	/* page fault: minor faults during the batches */
	uint64_t iters; /* and their iterations */
};

static long minflt_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

static int map_open(struct map_state *st, const struct ul_micro_env *env, const char *name,
		    size_t bytes)
{
	char path[4200];
	int rc;

	memset(st, 0, sizeof(*st));
	st->bytes = bytes;
	snprintf(path, sizeof(path), "%s/%s", env->scratch_dir, name);
	rc = ul_micro_make_file(path, bytes);
	st->fd = rc ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (!rc && st->fd < 0)
		rc = -errno;
	unlink(path);
	st->buf = malloc(CHUNK);
	if (!rc && !st->buf)
		rc = -ENOMEM;
	return rc;
}

static void map_close(struct map_state *st)
{
	if (st->map)
		munmap(st->map, st->bytes);
	if (st->fd >= 0)
		close(st->fd);
	free(st->buf);
}

static int mmap_lat_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct map_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		char *m = mmap(NULL, st->bytes, PROT_READ, MAP_SHARED, st->fd, 0);

		if (m == MAP_FAILED)
			return -errno;
		for (size_t off = 0; off < st->bytes; off += MMAP_LAT_STRIDE)
			fs_sink += (unsigned char)m[off];
		munmap(m, st->bytes);
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bench_mmap(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct map_state st;
	int rc = map_open(&st, env, "micro-mmap", MMAP_LAT_BYTES);

	if (!rc)
		rc = ul_micro_simple(env, out, mmap_lat_batch, &st, 1, 0);
	map_close(&st);
	return rc;
}

static int pf_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct map_state *st = arg;
	long f0 = minflt_now();
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		if (!st->map || st->pos >= st->bytes) {
			if (st->map)
				munmap(st->map, st->bytes);
			st->map = mmap(NULL, st->bytes, PROT_READ, MAP_SHARED, st->fd, 0);
			if (st->map == MAP_FAILED) {
				st->map = NULL;
				return -errno;
			}
			st->pos = 0;
		}
		fs_sink += (unsigned char)st->map[st->pos];
		st->pos += PF_STRIDE;
	}
	*elapsed = ul_now_ns() - t0;
	st->minflt += minflt_now() - f0;
	st->iters += iters;
	return 0;
}

static int bench_pagefault(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct map_state st;
	int rc = map_open(&st, env, "micro-pagefault", env->quick ? 16 * UL_MiB : 64 * UL_MiB);

	if (!rc)
		rc = ul_micro_simple(env, out, pf_batch, &st, 1, 0);
	if (!rc)
		rc = ul_micro_put_metric(out, "minflt_per_op",
					 (double)st.minflt / (double)(st.iters ? st.iters : 1));
	map_close(&st);
	return rc;
}

static sigjmp_buf prot_jmp;

static void on_segv(int sig)
{
	(void)sig;
	siglongjmp(prot_jmp, 1);
}

static int prot_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	volatile char *page = arg;
	volatile uint64_t i = 0;
	ul_nsec t0 = ul_now_ns();

	sigsetjmp(prot_jmp, 0);
	while (i < iters) {
		i++;
		*page = 1; /* faults: the handler jumps back to sigsetjmp */
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int bench_protfault(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct sigaction sa = { .sa_handler = on_segv, .sa_flags = SA_NODEFER }, old_segv;
	long pg = sysconf(_SC_PAGESIZE);
	char *page = mmap(NULL, (size_t)pg, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	int rc;

	if (page == MAP_FAILED)
		return -errno;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, &old_segv)) {
		munmap(page, (size_t)pg);
		return -errno;
	}
	rc = ul_micro_simple(env, out, prot_batch, page, 1, 0);
	sigaction(SIGSEGV, &old_segv, NULL);
	munmap(page, (size_t)pg);
	return rc;
}

static int file_rd_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct map_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		if (pread(st->fd, st->buf, CHUNK, (off_t)st->pos) != CHUNK)
			return -EIO;
		fs_sink += (unsigned char)st->buf[0];
		st->pos = st->pos + CHUNK >= st->bytes ? 0 : st->pos + CHUNK;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int mmap_rd_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct map_state *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		fs_sink += ul_micro_sum(st->map + st->pos, CHUNK);
		st->pos = st->pos + CHUNK >= st->bytes ? 0 : st->pos + CHUNK;
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int reread_bench(const struct ul_micro_env *env, struct ul_micro_out *out, bool mapped)
{
	struct map_state st;
	size_t bytes = (size_t)(env->bw_bytes / CHUNK * CHUNK);
	int rc = map_open(&st, env, "micro-reread", bytes);

	if (!rc && mapped) {
		st.map = mmap(NULL, st.bytes, PROT_READ, MAP_SHARED, st.fd, 0);
		if (st.map == MAP_FAILED) {
			st.map = NULL;
			rc = -errno;
		}
	}
	if (!rc)
		rc = ul_micro_simple(env, out, mapped ? mmap_rd_batch : file_rd_batch, &st, 1,
				     CHUNK);
	map_close(&st);
	return rc;
}

static int bench_file_rd(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return reread_bench(env, out, false);
}

static int bench_mmap_rd(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return reread_bench(env, out, true);
}

UL_MICRO_LAT(lat_create0k, "lat-create0k", "file", "create (creat+close) of an empty file",
	     bench_create0k);
UL_MICRO_LAT(lat_delete0k, "lat-delete0k", "file", "unlink of an empty file", bench_delete0k);
UL_MICRO_LAT(lat_create10k, "lat-create10k", "file", "create (creat+write 10 KiB+close) of a file",
	     bench_create10k);
UL_MICRO_LAT(lat_delete10k, "lat-delete10k", "file", "unlink of a 10 KiB file", bench_delete10k);
UL_MICRO_LAT(lat_mmap, "lat-mmap", "file",
	     "mmap 8 MiB of a cached file, read a byte every 160 KiB, munmap", bench_mmap);
UL_MICRO_LAT(lat_protfault, "lat-protfault", "file",
	     "write to a read-only page, SIGSEGV handler siglongjmp()s back", bench_protfault);
UL_MICRO_LAT(lat_pagefault, "lat-pagefault", "file",
	     "read fault on a mapped cached file, one touch every 64 KiB", bench_pagefault);
UL_MICRO_BW(bw_file_rd, "bw-file-rd", "bw", "reread of a cached file, pread 64 KiB chunks",
	    bench_file_rd);
UL_MICRO_BW(bw_mmap_rd, "bw-mmap-rd", "bw",
	    "reread of a cached file mapped once, summing 64 KiB chunks", bench_mmap_rd);
