/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Helpers shared by the micro benchmarks: helper processes tied to the
 * probe child, full reads and writes, a summing loop, scratch files and
 * the cache sizes from sysfs.
 */
#include "core/compat.h"
#include "core/file.h"
#include "probe/micro/bench.h"
#include "proc/supervise.h"

#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

int ul_micro_pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set) ? -errno : 0;
}

pid_t ul_micro_fork(int cpu)
{
	/* The helper dies with the probe child, whatever kills it. */
	pid_t pid = ul_fork_child(NULL, 0, 1);

	if (pid == 0)
		ul_micro_pin(cpu);
	return pid;
}

uint64_t ul_micro_affinity(void)
{
	cpu_set_t set;
	uint64_t bits = 0;

	if (sched_getaffinity(0, sizeof(set), &set))
		return 0;
	for (int c = 0; c < 64; c++)
		if (CPU_ISSET(c, &set))
			bits |= UINT64_C(1) << c;
	return bits;
}

int ul_micro_next_cpu(int after)
{
	cpu_set_t set;

	if (sched_getaffinity(0, sizeof(set), &set))
		return -1;
	for (int c = after + 1; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &set))
			return c;
	for (int c = 0; c < after; c++)
		if (CPU_ISSET(c, &set))
			return c;
	return -1;
}

bool ul_micro_needs_two_cpus(const char *probe_name)
{
	size_t n = strlen(probe_name);

	return n >= 5 && !strcmp(probe_name + n - 5, "-2cpu");
}

int ul_micro_end_cpu(const struct ul_micro_ends *e, int i)
{
	return e->place == UL_PLACE_TWO_CPUS && i % 2 ? e->cpu[1] : e->cpu[0];
}

/* Record where end i is: its affinity and the CPU it runs on. */
static void ends_record(struct ul_micro_ends *e, int i)
{
	e->mask[i] = ul_micro_affinity();
	e->ran_on[i] = sched_getcpu();
}

struct ul_micro_ends *ul_micro_ends_new(const struct ul_micro_env *env, enum ul_micro_place place)
{
	struct ul_micro_ends *e;
	int rc;

	if (env->place_cpu[0] < 0 || (place == UL_PLACE_TWO_CPUS && env->place_cpu[1] < 0)) {
		errno = ENODEV;
		return NULL;
	}
	e = mmap(NULL, sizeof(*e), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (e == MAP_FAILED)
		return NULL;
	e->place = place;
	e->cpu[0] = env->place_cpu[0];
	e->cpu[1] = env->place_cpu[1];
	rc = ul_micro_pin(e->cpu[0]);
	if (rc) {
		munmap(e, sizeof(*e));
		errno = -rc;
		return NULL;
	}
	ends_record(e, 0);
	return e;
}

void ul_micro_ends_free(struct ul_micro_ends *e)
{
	if (e)
		munmap(e, sizeof(*e));
}

pid_t ul_micro_fork_end(struct ul_micro_ends *e, int i)
{
	pid_t pid;

	if (i < 1 || i >= UL_MICRO_MAX_ENDS) {
		errno = EINVAL;
		return -1;
	}
	pid = ul_micro_fork(ul_micro_end_cpu(e, i));
	if (pid == 0)
		ends_record(e, i);
	return pid;
}

int ul_micro_put_ends(struct ul_micro_out *out, const struct ul_micro_ends *e, int n)
{
	uint64_t peers = 0;
	int rc;

	for (int i = 1; i < n && i < UL_MICRO_MAX_ENDS; i++)
		peers |= e->mask[i];
	rc = ul_micro_put_metric(out, "place_cpus", (double)e->place);
	if (!rc)
		rc = ul_micro_put_metric(out, "place_cpu0", e->cpu[0]);
	if (!rc && e->place == UL_PLACE_TWO_CPUS)
		rc = ul_micro_put_metric(out, "place_cpu1", e->cpu[1]);
	if (!rc)
		rc = ul_micro_put_metric(out, "affinity_self", (double)e->mask[0]);
	if (!rc)
		rc = ul_micro_put_metric(out, "affinity_peers", (double)peers);
	if (!rc)
		rc = ul_micro_put_metric(out, "ran_on_self", e->ran_on[0]);
	if (!rc && n == 2)
		rc = ul_micro_put_metric(out, "ran_on_peer", e->ran_on[1]);
	return rc;
}

void ul_micro_reap(pid_t pid)
{
	if (pid <= 0)
		return;
	kill(pid, SIGKILL);
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
		;
}

uint64_t ul_micro_sum(const void *buf, size_t bytes)
{
	const uint64_t *w = buf;
	uint64_t s0 = 0, s1 = 0, s2 = 0, s3 = 0;
	size_t n = bytes / 8, i = 0;

	for (; i + 4 <= n; i += 4) {
		s0 += w[i];
		s1 += w[i + 1];
		s2 += w[i + 2];
		s3 += w[i + 3];
	}
	for (; i < n; i++)
		s0 += w[i];
	return s0 + s1 + s2 + s3;
}

static int make_file(const char *path, uint64_t bytes, size_t chunk, bool sync)
{
	char buf[64 * 1024];
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0)
		return -errno;
	for (size_t i = 0; i < sizeof(buf); i++)
		buf[i] = (char)(i * 7 + 1);
	while (bytes && !rc) {
		size_t n = bytes < chunk ? (size_t)bytes : chunk;

		rc = ul_write_full(fd, buf, n);
		bytes -= n;
	}
	if (sync && !rc && fsync(fd))
		rc = -errno;
	if (close(fd) && !rc)
		rc = -errno;
	return rc;
}

int ul_micro_make_file(const char *path, uint64_t bytes)
{
	return make_file(path, bytes, 64 * 1024, false);
}

int ul_micro_make_lm_file(const char *path, uint64_t bytes)
{
	return make_file(path, bytes, UL_MICRO_LM_FILE_CHUNK, true);
}

/* "32K" / "1024K" / "32M" from sysfs, in bytes; 0 when unreadable. */
static uint64_t read_cache_size(const char *dir)
{
	char path[256], buf[32];
	unsigned long long v = 0;
	char unit = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/size", dir);
	f = fopen(path, "re");
	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f) || sscanf(buf, "%llu%c", &v, &unit) < 1)
		v = 0;
	fclose(f);
	if (unit == 'K')
		v *= 1024;
	else if (unit == 'M')
		v *= 1024 * 1024;
	return v;
}

static int read_small_file(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	int ok;

	if (!f)
		return -errno;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok)
		return -EIO;
	buf[strcspn(buf, "\n")] = 0;
	return 0;
}

void ul_micro_cache_sizes(uint64_t *l1d, uint64_t *l2, uint64_t *llc)
{
	const char *base = "/sys/devices/system/cpu/cpu0/cache";

	*l1d = *l2 = *llc = 0;
	for (int i = 0; i < 8; i++) {
		char dir[128], path[160], type[32], level[8];
		uint64_t size;

		snprintf(dir, sizeof(dir), "%s/index%d", base, i);
		snprintf(path, sizeof(path), "%s/type", dir);
		if (read_small_file(path, type, sizeof(type)))
			break;
		snprintf(path, sizeof(path), "%s/level", dir);
		if (read_small_file(path, level, sizeof(level)) || !strcmp(type, "Instruction"))
			continue;
		size = read_cache_size(dir);
		if (level[0] == '1')
			*l1d = size;
		else if (level[0] == '2')
			*l2 = size;
		if (size > *llc)
			*llc = size;
	}
}

void ul_micro_env_init(struct ul_micro_env *env, const char *scratch_dir, bool quick)
{
	memset(env, 0, sizeof(*env));
	env->scratch_dir = scratch_dir;
	env->quick = quick;
	env->place_cpu[0] = ul_micro_next_cpu(-1);
	env->place_cpu[1] = env->place_cpu[0] < 0 ? -1 : ul_micro_next_cpu(env->place_cpu[0]);
	env->mh.min_batch_ns = quick ? UL_MICRO_QUICK_MIN_BATCH_NS : UL_MICRO_MIN_BATCH_NS;
	env->mh.batches = quick ? UL_MICRO_QUICK_BATCHES : UL_MICRO_BATCHES;
	ul_micro_cache_sizes(&env->l1d_bytes, &env->l2_bytes, &env->llc_bytes);
	if (!env->l1d_bytes)
		env->l1d_bytes = 32 * UL_KiB;
	if (!env->l2_bytes)
		env->l2_bytes = 512 * UL_KiB;
	if (env->llc_bytes < env->l2_bytes)
		env->llc_bytes = env->l2_bytes > 8 * UL_MiB ? env->l2_bytes : 8 * UL_MiB;
	env->bw_bytes = 2 * env->llc_bytes;
	if (env->bw_bytes < 8 * UL_MiB)
		env->bw_bytes = 8 * UL_MiB;
	if (env->bw_bytes > 256 * UL_MiB)
		env->bw_bytes = 256 * UL_MiB;
}

const char *const ul_micro_groups[UL_MT_COUNT] = {
	[UL_MT_PROC] = "proc", [UL_MT_CTX] = "ctx", [UL_MT_LAT] = "lat",
	[UL_MT_FS] = "file",   [UL_MT_BW] = "bw",   [UL_MT_MEM] = "mem",
};

int ul_micro_table_of(const char *group)
{
	for (int t = 0; t < UL_MT_COUNT; t++)
		if (group && !strcmp(group, ul_micro_groups[t]))
			return t;
	return -1;
}
