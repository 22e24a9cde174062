/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * LMbench's own definitions of columns where underload's native
 * measurement (its "lat-" twin) does different work; the lmbench2 format
 * shows these.  Each says what lmbench3's program does (read from its
 * source, never copied):
 *  - lm-stat / lm-openclose: stat / open+close of a 1-component path
 *    (fstatat / openat on the scratch directory's fd), not a long one;
 *  - lm-sighndl: kill(me, SIGUSR1) caught by a handler, less the median
 *    cost of kill(me, 0) measured apart (lat_sig's "catch" less "send":
 *    lat_sig subtracts the median its repetitions report);
 *  - lm-mmap: mmap 8 MiB of a file read-write and shared, write a byte
 *    every 16 KiB of its first tenth (52 writes, write faults; a kernel
 *    with large page-cache folios maps a folio a fault), munmap (lat_mmap);
 *    the file written as lmbench's script writes it (8 KiB writes, fsync:
 *    ul_micro_make_lm_file), so its folios are as small as lmbench's;
 *  - lm-pagefault: touch every 4 KiB page of a mapped 8 MiB cached file in
 *    a random order, munmap, mmap again; less the munmap+mmap cost
 *    measured apart (its median batch); divided by the pages touched,
 *    faulted or not (the kernel's fault-around maps up to 16 pages a
 *    fault: lat_pagefault);
 *  - lm-protfault: a write to a read-only shared file mapping, SIGSEGV to
 *    a handler that returns (the write faults again), less lat_sig's
 *    catch cost (kill(me, SIGUSR1) caught less kill(me, 0), the median
 *    batch of each) (lat_sig prot).
 * The costs lm-pagefault and lm-protfault subtract are medians because
 * lmbench's are: benchmp reports the median of its repetitions, and
 * lat_pagefault and lat_sig subtract one such figure from another.  The
 * net is a small difference of two large figures (a prot fault about 0.8
 * us of a 4 us gross), so the fastest base batch would shift it far.
 * Metrics "minflt_per_op" (rusage minor faults per reported operation, over
 * the timed loops) show which work each did.  lm-select and lm-file-rd are
 * in bench_lmio.c.
 */
#include "core/compat.h"
#include "core/clock.h"
#include "probe/micro/bench.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <unistd.h>

#define LM_FILE "XXX" /* the 1-component name, as lmbench's /tmp/XXX */
#define LM_MAP_BYTES (8 * UL_MiB)
#define LM_MMAP_STRIDE (16 * 1024)
#define LM_PAGE 4096

static volatile uint64_t lm_sink;

static long minflt_now(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return ru.ru_minflt;
}

struct short_path {
	int dirfd;
};

static int lm_stat_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct short_path *st = arg;
	struct stat sb;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++)
		if (fstatat(st->dirfd, LM_FILE, &sb, 0))
			return -errno;
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int lm_openclose_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct short_path *st = arg;
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		int fd = openat(st->dirfd, LM_FILE, O_RDONLY);

		if (fd < 0)
			return -errno;
		close(fd);
	}
	*elapsed = ul_now_ns() - t0;
	return 0;
}

static int short_path_bench(const struct ul_micro_env *env, struct ul_micro_out *out,
			    ul_mh_batch_fn fn)
{
	struct short_path st = { .dirfd = open(env->scratch_dir,
					       O_RDONLY | O_DIRECTORY | O_CLOEXEC) };
	char path[4200];
	int rc;

	if (st.dirfd < 0)
		return -errno;
	snprintf(path, sizeof(path), "%s/%s", env->scratch_dir, LM_FILE);
	rc = ul_micro_make_file(path, 1);
	if (!rc)
		rc = ul_micro_simple(env, out, fn, &st, 1, 0);
	unlink(path);
	close(st.dirfd);
	return rc;
}

static int bench_lm_stat(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return short_path_bench(env, out, lm_stat_batch);
}

static int bench_lm_openclose(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	return short_path_bench(env, out, lm_openclose_batch);
}

static volatile sig_atomic_t lm_caught;

static void lm_on_usr1(int sig)
{
	(void)sig;
	lm_caught++;
}

/* kill(me, sig) iters times: 0 (the sending alone) or SIGUSR1 (caught). */
static int lm_kill_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	int sig = *(const int *)arg;
	pid_t me = getpid();
	ul_nsec t0 = ul_now_ns();

	lm_caught = 0;
	for (uint64_t i = 0; i < iters; i++)
		kill(me, sig);
	*elapsed = ul_now_ns() - t0;
	return !sig || (uint64_t)lm_caught == iters ? 0 : -EIO;
}

/* A fixed cost measured apart, recorded with the result as series NAME. */
struct lm_base {
	const char *name;
	const struct ul_mh_result *r;
};

/* Series "op_ps": each gross batch less base_ns, per nops (never below 0);
 * then the gross series per op as "gross_ps", each base's series, and
 * metric "base_ns" (what was subtracted from each iteration). */
static int put_net(struct ul_micro_out *out, const struct ul_mh_result *gross, double base_ns,
		   int nops, const struct lm_base *bases, int n_bases)
{
	int64_t v[UL_MH_MAX_BATCHES], g[UL_MH_MAX_BATCHES], b[UL_MH_MAX_BATCHES];
	int rc;

	for (int i = 0; i < gross->n; i++) {
		v[i] = llround(ul_micro_net_ns(gross->iter_ns[i], base_ns, nops) * 1000.0);
		g[i] = llround(gross->iter_ns[i] * 1000.0 / nops);
	}
	rc = ul_micro_put_series(out, "op_ps", v, gross->n);
	if (!rc)
		rc = ul_micro_put_series(out, "batch_ns", gross->elapsed_ns, gross->n);
	if (!rc)
		rc = ul_micro_put_series(out, "preempted_n", gross->preempted, gross->n);
	if (!rc)
		rc = ul_micro_put_series(out, "gross_ps", g, gross->n);
	for (int k = 0; k < n_bases && !rc; k++) {
		for (int i = 0; i < bases[k].r->n; i++)
			b[i] = llround(bases[k].r->iter_ns[i] * 1000.0);
		rc = ul_micro_put_series(out, bases[k].name, b, bases[k].r->n);
	}
	if (!rc)
		rc = ul_micro_put_metric(out, "base_ns", base_ns);
	if (!rc)
		rc = ul_micro_put_metric(out, "iters_per_batch", (double)gross->iters);
	if (!rc)
		rc = ul_micro_put_metric(out, "clock_overhead_ns", gross->clock_ns);
	return rc;
}

/* lat_sig's "send" (kill(me, 0)) and "catch" (kill(me, SIGUSR1) caught by
 * a handler that returns), each calibrated and timed by the harness. */
static int lm_send_catch(const struct ul_micro_env *env, struct ul_mh_result *send,
			 struct ul_mh_result *caught)
{
	struct sigaction sa = { .sa_handler = lm_on_usr1 };
	int sig = 0, rc;

	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGUSR1, &sa, NULL))
		return -errno;
	rc = ul_mh_run(&env->mh, lm_kill_batch, &sig, send);
	sig = SIGUSR1;
	if (!rc)
		rc = ul_mh_run(&env->mh, lm_kill_batch, &sig, caught);
	signal(SIGUSR1, SIG_DFL);
	return rc;
}

static int bench_lm_sighndl(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct ul_mh_result gross, base;
	int rc = lm_send_catch(env, &base, &gross);

	if (rc)
		return rc;
	return put_net(out, &gross, ul_mh_median_iter_ns(&base), 1,
		       (const struct lm_base[]){ { "kill0_ps", &base } }, 1);
}

/*
 * lm-protfault, lat_sig's "prot": a write to a page of a file mapped
 * read-only and shared raises SIGSEGV; the handler returns, so the write
 * runs again and faults again.  The iters-th catch leaves with siglongjmp
 * (once a batch; it restores the signal mask sigsetjmp saved).
 */
static sigjmp_buf lm_prot_jmp;
static volatile uint64_t lm_prot_caught, lm_prot_n;

static void lm_on_prot(int sig)
{
	(void)sig;
	if (++lm_prot_caught >= lm_prot_n)
		siglongjmp(lm_prot_jmp, 1);
}

static int lm_prot_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	volatile char *where = arg;
	volatile ul_nsec t0 = 0;

	lm_prot_caught = 0;
	lm_prot_n = iters;
	if (!sigsetjmp(lm_prot_jmp, 1)) {
		t0 = ul_now_ns();
		*where = 1; /* faults until the handler jumps back */
		return -EIO;
	}
	*elapsed = ul_now_ns() - t0;
	return lm_prot_caught == iters ? 0 : -EIO;
}

/* Map LM_PAGE bytes of a scratch file read-only and shared into *where, as
 * lat_sig maps the first page of its file; catch SIGSEGV and SIGBUS (the
 * actions they had in old).  0 or -errno. */
static int lm_prot_setup(const struct ul_micro_env *env, char **where, struct sigaction old[2])
{
	struct sigaction sa = { .sa_handler = lm_on_prot };
	char path[4200];
	int fd, rc;

	snprintf(path, sizeof(path), "%s/micro-lm-prot", env->scratch_dir);
	rc = ul_micro_make_file(path, LM_PAGE);
	fd = rc ? -1 : open(path, O_RDONLY | O_CLOEXEC);
	if (!rc && fd < 0)
		rc = -errno;
	unlink(path);
	*where = rc ? MAP_FAILED : mmap(NULL, LM_PAGE, PROT_READ, MAP_SHARED, fd, 0);
	if (!rc && *where == MAP_FAILED)
		rc = -errno;
	if (fd >= 0)
		close(fd);
	sigemptyset(&sa.sa_mask);
	if (!rc && sigaction(SIGSEGV, &sa, &old[0]))
		rc = -errno;
	else if (!rc && sigaction(SIGBUS, &sa, &old[1])) {
		rc = -errno;
		sigaction(SIGSEGV, &old[0], NULL);
	}
	if (rc && *where != MAP_FAILED)
		munmap(*where, LM_PAGE);
	return rc;
}

/* The faults less lat_sig's catch (the median catch less the median send,
 * as lat_sig subtracts): what is left is the fault's own cost beyond an
 * ordinary signal delivery. */
static int bench_lm_protfault(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct ul_mh_result gross, send, caught;
	struct sigaction old[2];
	double catch_ns;
	char *where;
	int rc = lm_prot_setup(env, &where, old);

	if (rc)
		return rc;
	rc = lm_send_catch(env, &send, &caught);
	if (!rc)
		rc = ul_mh_run(&env->mh, lm_prot_batch, where, &gross);
	sigaction(SIGSEGV, &old[0], NULL);
	sigaction(SIGBUS, &old[1], NULL);
	munmap(where, LM_PAGE);
	if (rc)
		return rc;
	catch_ns = ul_micro_net_ns(ul_mh_median_iter_ns(&caught), ul_mh_median_iter_ns(&send), 1);
	return put_net(out, &gross, catch_ns, 1,
		       (const struct lm_base[]){ { "catch_ps", &caught }, { "kill0_ps", &send } },
		       2);
}

/* A cached scratch file of LM_MAP_BYTES written as lmbench's $FILE, open
 * read-write (unlinked). */
struct lm_map {
	int fd;
	char *map;
	size_t *order; /* page offsets in a random order (lm-pagefault) */
	size_t npages;
	bool touch;	/* lm-pagefault: touch the pages (else only remap) */
	long minflt;	/* minor faults during the batches */
	uint64_t iters; /* iterations of the batches */
};

static int lm_map_open(struct lm_map *st, const struct ul_micro_env *env)
{
	char path[4200];
	int rc;

	memset(st, 0, sizeof(*st));
	st->npages = LM_MAP_BYTES / LM_PAGE;
	snprintf(path, sizeof(path), "%s/micro-lm-map", env->scratch_dir);
	rc = ul_micro_make_lm_file(path, LM_MAP_BYTES);
	st->fd = rc ? -1 : open(path, O_RDWR | O_CLOEXEC);
	if (!rc && st->fd < 0)
		rc = -errno;
	unlink(path);
	return rc;
}

static void lm_map_close(struct lm_map *st)
{
	if (st->map)
		munmap(st->map, LM_MAP_BYTES);
	if (st->fd >= 0)
		close(st->fd);
	free(st->order);
}

static int lm_mmap_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct lm_map *st = arg;
	long f0 = minflt_now();
	ul_nsec t0 = ul_now_ns();

	for (uint64_t i = 0; i < iters; i++) {
		char *m = mmap(NULL, LM_MAP_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, st->fd, 0);

		if (m == MAP_FAILED)
			return -errno;
		for (size_t off = 0; off < LM_MAP_BYTES / 10; off += LM_MMAP_STRIDE)
			m[off] = (char)(LM_MAP_BYTES & 0xff);
		munmap(m, LM_MAP_BYTES);
	}
	*elapsed = ul_now_ns() - t0;
	st->minflt += minflt_now() - f0;
	st->iters += iters;
	return 0;
}

static int bench_lm_mmap(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct lm_map st;
	int rc = lm_map_open(&st, env);

	if (!rc)
		rc = ul_micro_simple(env, out, lm_mmap_batch, &st, 1, 0);
	if (!rc)
		rc = ul_micro_put_metric(out, "minflt_per_op",
					 (double)st.minflt / (double)(st.iters ? st.iters : 1));
	if (!rc)
		rc = ul_micro_put_metric(
			out, "writes_per_op",
			(double)((LM_MAP_BYTES / 10 + LM_MMAP_STRIDE - 1) / LM_MMAP_STRIDE));
	lm_map_close(&st);
	return rc;
}

/* Map the file read-only and shared, as lat_pagefault (msync is a no-op
 * on Linux; lmbench calls it, so does this). */
static int lm_remap(struct lm_map *st)
{
	if (st->map)
		munmap(st->map, LM_MAP_BYTES);
	st->map = mmap(NULL, LM_MAP_BYTES, PROT_READ, MAP_SHARED, st->fd, 0);
	if (st->map == MAP_FAILED) {
		st->map = NULL;
		return -errno;
	}
	return msync(st->map, LM_MAP_BYTES, MS_INVALIDATE) ? -errno : 0;
}

static int lm_pf_batch(void *arg, uint64_t iters, int64_t *elapsed)
{
	struct lm_map *st = arg;
	long f0 = minflt_now();
	ul_nsec t0 = ul_now_ns();
	int rc = 0;

	for (uint64_t i = 0; i < iters && !rc; i++) {
		for (size_t p = 0; p < st->npages && st->touch; p++)
			lm_sink += (unsigned char)st->map[st->order[p]];
		rc = lm_remap(st);
	}
	*elapsed = ul_now_ns() - t0;
	st->minflt += st->touch ? minflt_now() - f0 : 0;
	st->iters += st->touch ? iters : 0;
	return rc;
}

static uint64_t lm_rand(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int bench_lm_pagefault(const struct ul_micro_env *env, struct ul_micro_out *out)
{
	struct ul_mh_result gross, base;
	struct lm_map st;
	uint64_t seed = 0x2545f4914f6cdd1dull;
	int rc = lm_map_open(&st, env);

	st.order = rc ? NULL : malloc(st.npages * sizeof(*st.order));
	if (!rc && !st.order)
		rc = -ENOMEM;
	for (size_t i = 0; !rc && i < st.npages; i++)
		st.order[i] = i * LM_PAGE;
	for (size_t i = st.npages - 1; !rc && i > 0; i--) {
		size_t j = (size_t)(lm_rand(&seed) % (i + 1)), t = st.order[i];

		st.order[i] = st.order[j];
		st.order[j] = t;
	}
	if (!rc)
		rc = lm_remap(&st);
	if (!rc)
		rc = ul_mh_run(&env->mh, lm_pf_batch, &st, &base);
	st.touch = true;
	if (!rc)
		rc = ul_mh_run(&env->mh, lm_pf_batch, &st, &gross);
	if (!rc)
		rc = put_net(out, &gross, ul_mh_median_iter_ns(&base), (int)st.npages,
			     (const struct lm_base[]){ { "remap_ps", &base } }, 1);
	if (!rc)
		rc = ul_micro_put_metric(out, "minflt_per_op",
					 (double)st.minflt /
						 ((double)st.iters * (double)st.npages));
	if (!rc)
		rc = ul_micro_put_metric(out, "pages_per_iter", (double)st.npages);
	lm_map_close(&st);
	return rc;
}

UL_MICRO_LAT(lm_stat, "lm-stat", "proc", "LMbench's stat: fstatat() of a 1-component name",
	     bench_lm_stat);
UL_MICRO_LAT(lm_openclose, "lm-openclose", "proc",
	     "LMbench's open/close: openat()+close() of a 1-component name", bench_lm_openclose);
UL_MICRO_LAT(lm_sighndl, "lm-sighndl", "proc",
	     "LMbench's signal handler: kill(self, SIGUSR1) caught, less kill(self, 0)",
	     bench_lm_sighndl);
UL_MICRO_LAT(lm_mmap, "lm-mmap", "file",
	     "LMbench's mmap: map 8 MiB shared read-write, write every 16 KiB of 1/10, munmap",
	     bench_lm_mmap);
UL_MICRO_LAT(lm_pagefault, "lm-pagefault", "file",
	     "LMbench's page fault: per 4 KiB page touched in random order, less the remap",
	     bench_lm_pagefault);
UL_MICRO_LAT(lm_protfault, "lm-protfault", "file",
	     "LMbench's prot fault: write faults on a read-only shared file page, less a signal",
	     bench_lm_protfault);
