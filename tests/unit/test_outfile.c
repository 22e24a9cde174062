/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for cmd/outfile.h: the store is never an output, a new file
 * is written whole, a FIFO nobody reads fails at once, and a terminating
 * signal in the middle of a write removes the temporary.
 */
#include "unit.h"
#include "cmd/outfile.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void setup(void)
{
	ul_unit_dir_make("outfile");
}

static void teardown(void)
{
	ul_unit_dir_remove();
}

static int write_hello(FILE *f, const void *arg)
{
	(void)arg;
	return fputs("hello\n", f) < 0 ? -EIO : 0;
}

/* Writes a little, then is told to stop (as by a user's kill) before it ends. */
static int write_then_signal(FILE *f, const void *arg)
{
	fputs("half of it", f);
	fflush(f);
	raise(*(const int *)arg);
	return 0;
}

static size_t entries(void)
{
	DIR *d = opendir(ul_unit_dir);
	struct dirent *e;
	size_t n = 0;

	ck_assert_ptr_nonnull(d);
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

START_TEST(store_refused)
{
	char db[128], wal[128], other[128];
	struct stat st;
	FILE *f;

	ul_unit_path(db, sizeof(db), "results.db");
	ul_unit_path(wal, sizeof(wal), "results.db-wal");
	ul_unit_path(other, sizeof(other), "other.json");
	f = fopen(db, "w");
	ck_assert_ptr_nonnull(f);
	fclose(f);
	ul_outfile_protect(db);
	ck_assert_int_eq(ul_outfile_check(db), -1);
	ck_assert_int_eq(ul_outfile_write(db, write_hello, NULL), -1);
	ck_assert_int_eq(ul_outfile_check(wal), -1); /* not there: refused by name */
	ck_assert_int_eq(ul_outfile_check(other), 0);
	ck_assert_int_eq(ul_outfile_write(other, write_hello, NULL), 0);
	ck_assert_int_eq(stat(db, &st), 0);
	ck_assert_int_eq(st.st_size, 0); /* the store was left alone */
}
END_TEST

START_TEST(fifo_without_reader)
{
	char fifo[128];

	ul_unit_path(fifo, sizeof(fifo), "fifo");
	ck_assert_int_eq(mkfifo(fifo, 0600), 0);
	/* Would block forever without O_NONBLOCK; the test's timeout says so. */
	ck_assert_int_eq(ul_outfile_write(fifo, write_hello, NULL), -1);
}
END_TEST

START_TEST(signal_removes_temporary)
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP, SIGUSR1, SIGALRM };

	for (size_t i = 0; i < UL_ARRAY_SIZE(sigs); i++) {
		char out[128];
		int status;
		pid_t pid;

		ul_unit_path(out, sizeof(out), "out.json");
		pid = fork();
		ck_assert_int_ge(pid, 0);
		if (pid == 0) {
			signal(sigs[i], SIG_DFL);
			ul_outfile_write(out, write_then_signal, &sigs[i]);
			_exit(0); /* not reached: the signal ends the child */
		}
		ck_assert_int_eq(waitpid(pid, &status, 0), pid);
		ck_assert(WIFSIGNALED(status) && WTERMSIG(status) == sigs[i]);
		ck_assert_uint_eq(entries(), 0); /* neither the temporary nor out.json */
	}
}
END_TEST

Suite *ul_test_suite_outfile(void)
{
	Suite *s = suite_create("outfile");
	TCase *tc = tcase_create("outfile");

	tcase_add_checked_fixture(tc, setup, teardown);
	tcase_set_timeout(tc, 10);
	tcase_add_test(tc, store_refused);
	tcase_add_test(tc, fifo_without_reader);
	tcase_add_test(tc, signal_removes_temporary);
	suite_add_tcase(s, tc);
	return s;
}
