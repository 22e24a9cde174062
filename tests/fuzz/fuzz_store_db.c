/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Fuzz target: a crafted database.  The input is written as a file in a
 * private directory and opened as a store the way `list` and `show` do
 * (read only): every run is listed, found and loaded.  The same file is
 * then opened for writing, as `run` and `import` would (the health check
 * and migration).  Nothing read may crash, hang or leak; the file and
 * SQLite's -wal/-shm/-journal are removed after each input.
 */
#include "fuzz.h"
#include "store/store.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void write_db(const char *path, const uint8_t *data, size_t size)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);

	if (fd < 0)
		ul_fuzz_fail("cannot create '%s'", path);
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);

		if (w <= 0)
			ul_fuzz_fail("cannot write '%s'", path);
		off += (size_t)w;
	}
	close(fd);
}

static void remove_db(const char *path)
{
	static const char *const tails[] = { "", "-wal", "-shm", "-journal" };
	char p[4200];

	for (size_t i = 0; i < sizeof(tails) / sizeof(tails[0]); i++) {
		snprintf(p, sizeof(p), "%s%s", path, tails[i]);
		unlink(p);
	}
}

/* Everything `list` and `show` read. */
static void read_all(struct ul_store *st)
{
	struct ul_run_summary *sum = NULL, one;
	size_t n = 0;

	if (st->ops->list_runs(st, &sum, &n))
		return;
	for (size_t i = 0; i < n; i++) {
		struct ul_run run;
		char ref[32];

		ul_run_init(&run);
		(void)st->ops->load_run(st, sum[i].uuid, &run);
		ul_run_release(&run);
		snprintf(ref, sizeof(ref), "%lld", (long long)sum[i].id);
		(void)st->ops->find_run(st, ref, &one);
	}
	free(sum);
	struct ul_run last;

	ul_run_init(&last);
	(void)st->ops->load_run(st, "last", &last);
	ul_run_release(&last);
}

static void open_and_read(const char *path, unsigned flags)
{
	struct ul_store_config cfg = { .flags = flags, .busy_wait_ms = 1 };
	struct ul_store *st;
	char err[512];

	if (ul_store_open_cfg(path, &cfg, &st, err, sizeof(err)))
		return;
	read_all(st);
	ul_store_close(st);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[4200];

	if (!*path)
		snprintf(path, sizeof(path), "%s/results.db", ul_fuzz_dir());
	write_db(path, data, size);
	open_and_read(path, UL_STORE_READ);
	remove_db(path);
	write_db(path, data, size);
	open_and_read(path, 0);
	remove_db(path);
	return 0;
}
