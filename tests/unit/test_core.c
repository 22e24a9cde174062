/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for src/core: strict parsing of sizes, durations, counts and
 * percentages, declarative option tables, and /proc/meminfo parsing.
 */
#include "unit.h"
#include "core/file.h"
#include "core/opt.h"
#include "core/optparse.h"
#include "core/parse.h"
#include "core/sysinfo.h"
#include "core/procstat.h"
#include <unistd.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>

#define NS_S UL_NS_PER_SEC
#define NS_MS UL_NS_PER_MS

/* Every parser must leave *out alone on failure. */
#define SENTINEL 0x5a5a5a5a

static int size_rc(const char *s, uint64_t min, uint64_t max, uint64_t *v)
{
	*v = SENTINEL;
	return ul_parse_size(s, min, max, v);
}

START_TEST(test_parse_size_ok)
{
	static const struct {
		const char *s;
		uint64_t want;
	} ok[] = {
		{ "0", 0 },	 { "4096", 4096 },	  { "4k", 4096 },
		{ "4K", 4096 },	 { "4KiB", 4096 },	  { "4kb", 4096 },
		{ "7b", 7 },	 { "64M", 64 * UL_MiB },  { "1.5G", 1536 * UL_MiB },
		{ "0.5k", 512 }, { "2T", 2048 * UL_GiB }, { "18446744073709551615", UINT64_MAX },
	};
	uint64_t v;

	for (size_t i = 0; i < UL_ARRAY_SIZE(ok); i++) {
		int rc = size_rc(ok[i].s, 0, UINT64_MAX, &v);

		ck_assert_msg(rc == 0 && v == ok[i].want, "'%s': rc=%d v=%llu want %llu", ok[i].s,
			      rc, (unsigned long long)v, (unsigned long long)ok[i].want);
	}
}
END_TEST

START_TEST(test_parse_size_bad)
{
	static const struct {
		const char *s;
		int rc;
	} bad[] = {
		{ "12XB", -EINVAL },
		{ "1e99", -EINVAL },
		{ "-5", -EINVAL },
		{ "+5", -EINVAL },
		{ "", -EINVAL },
		{ " 5", -EINVAL },
		{ "5 ", -EINVAL },
		{ "k", -EINVAL },
		{ "4kk", -EINVAL },
		{ "4iB", -EINVAL },
		{ "1.", -EINVAL },
		{ ".5k", -EINVAL },
		{ "1.5", -EINVAL }, /* fractional bytes */
		{ "0x10", -EINVAL },
		{ "18446744073709551616", -ERANGE },
		{ "99999999999999999999999", -ERANGE },
		{ "99999999999999999999999x", -EINVAL }, /* junk is reported first */
		{ "16777216T", -ERANGE },		 /* 2^64 */
		{ "17179869184G", -ERANGE },
	};
	uint64_t v;

	for (size_t i = 0; i < UL_ARRAY_SIZE(bad); i++) {
		int rc = size_rc(bad[i].s, 0, UINT64_MAX, &v);

		ck_assert_msg(rc == bad[i].rc, "'%s': rc=%d want %d", bad[i].s, rc, bad[i].rc);
		ck_assert_uint_eq(v, SENTINEL);
	}
	ck_assert_int_eq(ul_parse_size(NULL, 0, 1, &v), -EINVAL);
	/* Range limits are inclusive. */
	ck_assert_int_eq(size_rc("0", 1, 100, &v), -ERANGE);
	ck_assert_uint_eq(v, SENTINEL);
	ck_assert_int_eq(size_rc("1", 1, 4096, &v), 0);
	ck_assert_int_eq(size_rc("4k", 1, 4096, &v), 0);
	ck_assert_int_eq(size_rc("4097", 1, 4096, &v), -ERANGE);
}
END_TEST

static int dur_rc(const char *s, int64_t *v)
{
	*v = SENTINEL;
	return ul_parse_duration_ns(s, 0, INT64_MAX, v);
}

START_TEST(test_parse_duration)
{
	static const struct {
		const char *s;
		int64_t want;
	} ok[] = {
		{ "250ms", 250 * NS_MS },
		{ "20s", 20 * NS_S },
		{ "2m", 120 * NS_S },
		{ "2min", 120 * NS_S },
		{ "1h", 3600 * NS_S },
		{ "1.5s", 1500 * NS_MS },
		{ "5", 5 * NS_S },
		{ "0.25", 250 * NS_MS },
		{ "500us", 500000 },
		{ "100ns", 100 },
		{ "0", 0 },
		{ "9223372036ns", 9223372036 },
		{ "9223372036854775807ns", INT64_MAX },
	};
	static const struct {
		const char *s;
		int rc;
	} bad[] = {
		{ "10x", -EINVAL },
		{ "ms", -EINVAL },
		{ "", -EINVAL },
		{ "-1s", -EINVAL },
		{ "1 s", -EINVAL },
		{ "1S", -EINVAL },
		{ "1.5.s", -EINVAL },
		{ "1e3ms", -EINVAL },
		{ "2mm", -EINVAL },
		{ "10000000000s", -ERANGE }, /* 1e19 ns > INT64_MAX */
		{ "9999999999h", -ERANGE },
		{ "9223372036854775808ns", -ERANGE },
		{ "99999999999999999999999ns", -ERANGE },
	};
	int64_t v;

	for (size_t i = 0; i < UL_ARRAY_SIZE(ok); i++) {
		int rc = dur_rc(ok[i].s, &v);

		ck_assert_msg(rc == 0 && v == ok[i].want, "'%s': rc=%d v=%lld want %lld", ok[i].s,
			      rc, (long long)v, (long long)ok[i].want);
	}
	for (size_t i = 0; i < UL_ARRAY_SIZE(bad); i++) {
		int rc = dur_rc(bad[i].s, &v);

		ck_assert_msg(rc == bad[i].rc, "'%s': rc=%d want %d", bad[i].s, rc, bad[i].rc);
		ck_assert_int_eq(v, SENTINEL);
	}
	ck_assert_int_eq(ul_parse_duration_ns("1s", NS_MS, 10 * NS_S, &v), 0);
	ck_assert_int_eq(v, NS_S);
	ck_assert_int_eq(ul_parse_duration_ns("999us", NS_MS, 10 * NS_S, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_duration_ns("11s", NS_MS, 10 * NS_S, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_duration_ns(NULL, 0, 1, &v), -EINVAL);
}
END_TEST

START_TEST(test_parse_count)
{
	int64_t v = 0;

	ck_assert_int_eq(ul_parse_count("0", 0, 10, &v), 0);
	ck_assert_int_eq(v, 0);
	ck_assert_int_eq(ul_parse_count("42", 0, 100, &v), 0);
	ck_assert_int_eq(v, 42);
	ck_assert_int_eq(ul_parse_count("007", 0, 100, &v), 0);
	ck_assert_int_eq(v, 7);
	ck_assert_int_eq(ul_parse_count("9223372036854775807", 0, INT64_MAX, &v), 0);
	ck_assert_int_eq(v, INT64_MAX);
	v = SENTINEL;
	ck_assert_int_eq(ul_parse_count("1.5", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_count("12k", 0, 100000, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_count("-1", -10, 100, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_count("", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_count("4 ", 0, 100, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_count("101", 0, 100, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_count("0", 1, 100, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_count("9223372036854775808", 0, INT64_MAX, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_count("123456789012345678901234", 0, INT64_MAX, &v), -ERANGE);
	ck_assert_int_eq(v, SENTINEL);
}
END_TEST

START_TEST(test_parse_pct)
{
	int64_t v = 0;

	ck_assert_int_eq(ul_parse_pct("12.5%", 0, 10000, &v), 0);
	ck_assert_int_eq(v, 1250);
	ck_assert_int_eq(ul_parse_pct("5", 0, 10000, &v), 0);
	ck_assert_int_eq(v, 500);
	ck_assert_int_eq(ul_parse_pct("5%", 0, 10000, &v), 0);
	ck_assert_int_eq(v, 500);
	ck_assert_int_eq(ul_parse_pct("0.05%", 0, 10000, &v), 0);
	ck_assert_int_eq(v, 5);
	ck_assert_int_eq(ul_parse_pct("100%", 0, 10000, &v), 0);
	ck_assert_int_eq(v, 10000);
	v = SENTINEL;
	ck_assert_int_eq(ul_parse_pct("100.01%", 0, 10000, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_pct("0%", 1, 10000, &v), -ERANGE);
	ck_assert_int_eq(ul_parse_pct("%", 0, 10000, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_pct("5%%", 0, 10000, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_pct("-5%", 0, 10000, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_pct("5 %", 0, 10000, &v), -EINVAL);
	ck_assert_int_eq(ul_parse_pct("five", 0, 10000, &v), -EINVAL);
	ck_assert_int_eq(v, SENTINEL);
}
END_TEST

START_TEST(test_fmt)
{
	char buf[32];

	ul_fmt_size(buf, sizeof(buf), 0);
	ck_assert_str_eq(buf, "0");
	ul_fmt_size(buf, sizeof(buf), 4096);
	ck_assert_str_eq(buf, "4K");
	ul_fmt_size(buf, sizeof(buf), 1536);
	ck_assert_str_eq(buf, "1536");
	ul_fmt_size(buf, sizeof(buf), 64 * UL_MiB);
	ck_assert_str_eq(buf, "64M");
	ul_fmt_size(buf, sizeof(buf), 1536 * UL_MiB);
	ck_assert_str_eq(buf, "1536M");
	ul_fmt_size(buf, sizeof(buf), 2048 * UL_GiB * 1024);
	ck_assert_str_eq(buf, "2048T");

	ul_fmt_duration(buf, sizeof(buf), 0);
	ck_assert_str_eq(buf, "0s");
	ul_fmt_duration(buf, sizeof(buf), 250 * NS_MS);
	ck_assert_str_eq(buf, "250ms");
	ul_fmt_duration(buf, sizeof(buf), 20 * NS_S);
	ck_assert_str_eq(buf, "20s");
	ul_fmt_duration(buf, sizeof(buf), 90 * NS_S);
	ck_assert_str_eq(buf, "90s");
	ul_fmt_duration(buf, sizeof(buf), 120 * NS_S);
	ck_assert_str_eq(buf, "2m");
	ul_fmt_duration(buf, sizeof(buf), 7200 * NS_S);
	ck_assert_str_eq(buf, "2h");
	ul_fmt_duration(buf, sizeof(buf), 1500);
	ck_assert_str_eq(buf, "1500ns");
	ul_fmt_duration(buf, sizeof(buf), 500000);
	ck_assert_str_eq(buf, "500us");
}
END_TEST

static const struct ul_opt test_opts[] = {
	{ "size", UL_OPT_SIZE, 4096, INT64_C(1) << 30, 64 << 20, "bytes to touch" },
	{ "think", UL_OPT_DURATION, NS_MS, 60 * NS_S, 250 * NS_MS, "sleep between samples" },
	{ "share", UL_OPT_PCT, 100, 10000, 9000, "share of the budget" },
	{ "sync", UL_OPT_BOOL, 0, 1, 1, "fsync after each write" },
	{ "workers", UL_OPT_COUNT, 0, 64, 0, "worker processes, 0 = one per CPU" },
	{ NULL, 0, 0, 0, 0, NULL },
};

START_TEST(test_opt_table)
{
	int64_t v[UL_OPT_MAX];

	ck_assert_uint_eq(ul_opt_count(test_opts), 5);
	ck_assert_uint_eq(ul_opt_count(NULL), 0);
	ck_assert_int_eq(ul_opt_index(test_opts, "size"), 0);
	ck_assert_int_eq(ul_opt_index(test_opts, "workers"), 4);
	ck_assert_int_eq(ul_opt_index(test_opts, "nope"), -1);
	ck_assert_int_eq(ul_opt_index(test_opts, "siz"), -1);

	for (size_t i = 0; i < UL_OPT_MAX; i++)
		v[i] = -7;
	ul_opt_defaults(test_opts, v);
	ck_assert_int_eq(v[0], 64 << 20);
	ck_assert_int_eq(v[1], 250 * NS_MS);
	ck_assert_int_eq(v[2], 9000);
	ck_assert_int_eq(v[3], 1);
	ck_assert_int_eq(v[4], 0);
	for (size_t i = 5; i < UL_OPT_MAX; i++)
		ck_assert_int_eq(v[i], 0); /* unused slots are zeroed */

	ck_assert_str_eq(ul_opt_type_name(UL_OPT_SIZE), "size");
	ck_assert_str_eq(ul_opt_type_name(UL_OPT_DURATION), "duration");
	ck_assert_str_eq(ul_opt_type_name(UL_OPT_PCT), "percent");
	ck_assert_str_eq(ul_opt_type_name(UL_OPT_BOOL), "bool");
	ck_assert_str_eq(ul_opt_type_name(UL_OPT_COUNT), "count");
}
END_TEST

START_TEST(test_opt_set)
{
	int64_t v[UL_OPT_MAX];
	char err[256];

	ul_opt_defaults(test_opts, v);
	err[0] = '\0';
	ck_assert_int_eq(ul_opt_set(test_opts, v, "size", "1M", err, sizeof(err)), 0);
	ck_assert_int_eq(v[0], 1 << 20);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "think", "2s", err, sizeof(err)), 0);
	ck_assert_int_eq(v[1], 2 * NS_S);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "share", "12.5%", err, sizeof(err)), 0);
	ck_assert_int_eq(v[2], 1250);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "sync", "no", err, sizeof(err)), 0);
	ck_assert_int_eq(v[3], 0);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "sync", "true", err, sizeof(err)), 0);
	ck_assert_int_eq(v[3], 1);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "workers", "8", err, sizeof(err)), 0);
	ck_assert_int_eq(v[4], 8);
	/* Setting one option leaves the others alone. */
	ck_assert_int_eq(v[0], 1 << 20);
	ck_assert_int_eq(v[1], 2 * NS_S);
}
END_TEST

START_TEST(test_opt_errors)
{
	int64_t v[UL_OPT_MAX], before[UL_OPT_MAX];
	char err[256];

	ul_opt_defaults(test_opts, v);
	memcpy(before, v, sizeof(v));

	ck_assert_int_eq(ul_opt_set(test_opts, v, "bogus", "1", err, sizeof(err)), -ENOENT);
	ck_assert_msg(strstr(err, "bogus"), "%s", err);

	ck_assert_int_eq(ul_opt_set(test_opts, v, "size", "1k", err, sizeof(err)), -ERANGE);
	ck_assert_msg(strstr(err, "'size'") && strstr(err, "4K") && strstr(err, "1G") &&
			      strstr(err, "out-of-range"),
		      "%s", err);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "size", "lots", err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "invalid") && strstr(err, "'lots'") && strstr(err, "4K"), "%s",
		      err);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "think", "2h", err, sizeof(err)), -ERANGE);
	ck_assert_msg(strstr(err, "1ms") && strstr(err, "1m") && strstr(err, "duration"), "%s",
		      err);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "share", "0.5%", err, sizeof(err)), -ERANGE);
	ck_assert_msg(strstr(err, "1%") && strstr(err, "100%"), "%s", err);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "sync", "maybe", err, sizeof(err)), -EINVAL);
	ck_assert_msg(strstr(err, "yes or no") && strstr(err, "'sync'"), "%s", err);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "workers", "65", err, sizeof(err)), -ERANGE);
	ck_assert_msg(strstr(err, "from 0 to 64"), "%s", err);
	ck_assert_int_eq(ul_opt_set(test_opts, v, "workers", "-1", err, sizeof(err)), -EINVAL);

	/* Failed sets change nothing. */
	for (size_t i = 0; i < UL_OPT_MAX; i++)
		ck_assert_int_eq(v[i], before[i]);
}
END_TEST

START_TEST(test_opt_fmt_roundtrip)
{
	static const int64_t vals[][4] = {
		/* size, duration, pct, count */
		{ 4096, NS_MS, 100, 0 },
		{ 64 << 20, 250 * NS_MS, 9000, 8 },
		{ 768 << 20, 1500 * NS_MS, 1250, 64 },
		{ 5000, 45 * NS_S, 150, 17 },
		{ INT64_C(1) << 30, 60 * NS_S, 10000, 1 },
	};
	static const size_t idx[4] = { 0, 1, 2, 4 };
	int64_t v[UL_OPT_MAX];
	char buf[64], err[256];

	ul_opt_fmt(&test_opts[2], 1250, buf, sizeof(buf));
	ck_assert_str_eq(buf, "12.50%");
	ul_opt_fmt(&test_opts[2], 9000, buf, sizeof(buf));
	ck_assert_str_eq(buf, "90%");
	ul_opt_fmt(&test_opts[3], 1, buf, sizeof(buf));
	ck_assert_str_eq(buf, "yes");
	ul_opt_fmt(&test_opts[3], 0, buf, sizeof(buf));
	ck_assert_str_eq(buf, "no");
	ul_opt_fmt(&test_opts[0], 64 << 20, buf, sizeof(buf));
	ck_assert_str_eq(buf, "64M");

	for (size_t r = 0; r < UL_ARRAY_SIZE(vals); r++) {
		for (size_t c = 0; c < 4; c++) {
			const struct ul_opt *o = &test_opts[idx[c]];
			int rc;

			ul_opt_defaults(test_opts, v);
			ul_opt_fmt(o, vals[r][c], buf, sizeof(buf));
			rc = ul_opt_set(test_opts, v, o->name, buf, err, sizeof(err));
			ck_assert_msg(rc == 0 && v[idx[c]] == vals[r][c],
				      "%s=%lld rendered '%s' parsed back rc=%d as %lld", o->name,
				      (long long)vals[r][c], buf, rc, (long long)v[idx[c]]);
		}
	}
	for (int64_t b = 0; b <= 1; b++) {
		ul_opt_fmt(&test_opts[3], b, buf, sizeof(buf));
		ul_opt_defaults(test_opts, v);
		v[3] = !b;
		ck_assert_int_eq(ul_opt_set(test_opts, v, "sync", buf, err, sizeof(err)), 0);
		ck_assert_int_eq(v[3], b);
	}
}
END_TEST

static const char meminfo_sample[] = "MemTotal:        8052732 kB\n"
				     "MemFree:          512344 kB\n"
				     "MemAvailable:    4096000 kB\n"
				     "Buffers:          123456 kB\n"
				     "Cached:          3000000 kB\n"
				     "SwapCached:          1000 kB\n"
				     "Active:          2000000 kB\n"
				     "SwapTotal:       2097148 kB\n"
				     "SwapFree:        2000000 kB\n"
				     "HugePages_Total:       0\n";

START_TEST(test_meminfo_parse)
{
	struct ul_meminfo mi;

	ck_assert_int_eq(ul_meminfo_parse(meminfo_sample, &mi), 0);
	ck_assert_uint_eq(mi.total, UINT64_C(8052732) * 1024);
	ck_assert_uint_eq(mi.free, UINT64_C(512344) * 1024);
	ck_assert_uint_eq(mi.available, UINT64_C(4096000) * 1024);
	/* "Cached" must not match the "SwapCached" line (see also the old sample). */
	ck_assert_uint_eq(mi.cached, UINT64_C(3000000) * 1024);
	ck_assert_uint_eq(mi.swap_total, UINT64_C(2097148) * 1024);
	ck_assert_uint_eq(mi.swap_free, UINT64_C(2000000) * 1024);
}
END_TEST

START_TEST(test_meminfo_parse_old_and_bad)
{
	/* Pre-3.14 kernels have no MemAvailable: free + cached stands in. */
	static const char old[] = "MemTotal:  1000 kB\nMemFree:  100 kB\nSwapCached:  7 kB\n"
				  "Cached:  300 kB\nSwapTotal:  0 kB\nSwapFree:  0 kB\n";
	static const char no_swapfree[] = "MemTotal:  1000 kB\nMemFree:  100 kB\n"
					  "SwapTotal:  0 kB\n";
	static const char garbled[] = "MemTotal: lots\nMemFree:  100 kB\nSwapTotal:  0 kB\n"
				      "SwapFree:  0 kB\n";
	struct ul_meminfo mi;

	ck_assert_int_eq(ul_meminfo_parse(old, &mi), 0);
	ck_assert_uint_eq(mi.cached, 300 * 1024);
	ck_assert_uint_eq(mi.available, 400 * 1024);
	ck_assert_uint_eq(mi.swap_total, 0);
	ck_assert_int_eq(ul_meminfo_parse(no_swapfree, &mi), -EINVAL);
	ck_assert_int_eq(ul_meminfo_parse(garbled, &mi), -EINVAL);
	ck_assert_int_eq(ul_meminfo_parse("", &mi), -EINVAL);
}
END_TEST

START_TEST(test_meminfo_read_live)
{
	struct ul_meminfo mi;

	/* The running system: only sanity, never exact values. */
	ck_assert_int_eq(ul_meminfo_read(&mi), 0);
	ck_assert(mi.total > 0);
	ck_assert(mi.free <= mi.total);
	ck_assert(mi.available <= mi.total);
	ck_assert(mi.swap_free <= mi.swap_total);
}
END_TEST

/* ---- command-line options from a table (core/optparse.h) ---------------- */

struct cli {
	const char *name, *dir;
	int count;
	int64_t wait_ns;
	uint64_t size;
	bool flag;
	int mode; /* -1 auto */
	int calls;
};

static int cli_set(void *base, const char *arg, char *err, size_t errlen)
{
	struct cli *c = base;

	if (strcmp(arg, "ok")) {
		snprintf(err, errlen, "invalid value '%s' for --call: expected ok", arg);
		return -EINVAL;
	}
	c->calls++;
	return 0;
}

#define C(m) UL_OPT_AT(struct cli, m)
static const struct ul_opt cli_opts[] = {
	{ "name", UL_OPT_STRING, 0, 8, .arg = "TEXT", C(name), .def_str = "dflt",
	  .help = "a name" },
	{ "dir", UL_OPT_DIR, .arg = "DIR", C(dir), .help = "a directory" },
	{ "count", UL_OPT_COUNT, 1, 10, 3, "a count", .short_name = 'c', .arg = "N", C(count) },
	{ "wait", UL_OPT_DURATION, 10 * UL_NS_PER_MS, UL_NS_PER_SEC, 500 * UL_NS_PER_MS, "a wait",
	  .arg = "DUR", C(wait_ns), .flags = UL_OPTF_ZERO_OFF },
	{ "size", UL_OPT_SIZE, 0, UL_GiB, UL_MiB, "a size", .arg = "SIZE", C(size) },
	{ "flag", UL_OPT_FLAG, 0, 1, 0, C(flag), .help = "a flag" },
	{ "on", UL_OPT_FLAG, 0, 1, -1, C(mode), .help = "mode on", .def_text = "auto" },
	{ "off", UL_OPT_FLAG, 0, 0, -1, C(mode), .help = "mode off" },
	{ "call", UL_OPT_CALL, .arg = "X", .set = cli_set, .help = "a callback" },
	{ NULL },
};

static int cli_parse(struct cli *c, struct ul_opt_group *g, char **argv, int *first, char *err,
		     size_t len)
{
	int argc = 0;

	while (argv[argc])
		argc++;
	memset(c, 0, sizeof(*c));
	ul_opt_apply_defaults(cli_opts, c);
	*g = (struct ul_opt_group){ .opts = cli_opts, .base = c };
	return ul_opt_parse_argv(g, 1, argc, argv, first, err, len);
}

START_TEST(test_optparse)
{
	char a[][16] = { "x",	   "--name", "abc",	  "-c",	    "7",
			 "--wait", "0",	     "--size=2M", "--flag", "--off",
			 "--call", "ok",     "--dir",	  "/",	    "operand" };
	char h[][4] = { "x", "-h" };
	char *ok_argv[UL_ARRAY_SIZE(a) + 1] = { NULL }, *help_argv[] = { h[0], h[1], NULL };
	struct ul_opt_group g;
	struct cli c;
	char err[256];
	int first = 0;

	for (size_t i = 0; i < UL_ARRAY_SIZE(a); i++)
		ok_argv[i] = a[i];
	ck_assert_int_eq(cli_parse(&c, &g, help_argv, &first, err, sizeof(err)), UL_OPT_PARSE_HELP);
	/* Defaults from the table. */
	ck_assert_str_eq(c.name, "dflt");
	ck_assert_int_eq(c.count, 3);
	ck_assert_int_eq(c.wait_ns, 500 * UL_NS_PER_MS);
	ck_assert_uint_eq(c.size, UL_MiB);
	ck_assert_int_eq(c.mode, -1);
	ck_assert(!c.flag);

	ck_assert_int_eq(cli_parse(&c, &g, ok_argv, &first, err, sizeof(err)), 0);
	ck_assert_str_eq(c.name, "abc");
	ck_assert_str_eq(c.dir, "/");
	ck_assert_int_eq(c.count, 7);
	ck_assert_int_eq(c.wait_ns, 0); /* 0 = off besides 10ms..1s */
	ck_assert_uint_eq(c.size, 2 * UL_MiB);
	ck_assert(c.flag);
	ck_assert_int_eq(c.mode, 0);
	ck_assert_int_eq(c.calls, 1);
	ck_assert_int_eq(first, 14);
	ck_assert(ul_opt_given(&g, "count"));
	ck_assert(!ul_opt_given(&g, "on"));
	ul_opt_given_names(&g, err, sizeof(err));
	ck_assert_str_eq(err, "--name, --dir, --count, --wait, --size, --flag, --off, --call");
}
END_TEST

/* A parse refused inside a cluster of short options leaves nothing behind
 * for the next parse (found by tests/fuzz/fuzz_options: glibc kept its
 * place in the first argv, "c7", and read it again, freed by then). */
START_TEST(test_optparse_again_after_cluster)
{
	char a[][8] = { "x", "-Zc7" }, b[][4] = { "x" };
	char *bad_argv[] = { a[0], a[1], NULL }, *ok_argv[] = { b[0], NULL };
	struct ul_opt_group g;
	struct cli c;
	char err[256];
	int first = 0;

	ck_assert_int_eq(cli_parse(&c, &g, bad_argv, &first, err, sizeof(err)), -EINVAL);
	ck_assert_int_eq(cli_parse(&c, &g, ok_argv, &first, err, sizeof(err)), 0);
	ck_assert_int_eq(c.count, 3);
	ck_assert(!ul_opt_given(&g, "count"));
	ck_assert_int_eq(first, 1);
}
END_TEST

START_TEST(test_optparse_errors)
{
	static const struct {
		const char *arg, *val, *msg;
	} bad[] = {
		{ "--count", "11",
		  "out-of-range value '11' for --count: expected a count from 1 to 10" },
		{ "--count", "x", "invalid value 'x' for --count: expected a count from 1 to 10" },
		{ "--wait", "5ms",
		  "out-of-range value '5ms' for --wait: expected 0 (off) or a duration from 10ms to 1s" },
		{ "--name", "123456789", "--name must be 1 to 8 bytes (9 given)" },
		{ "--name", "", "--name must be 1 to 8 bytes (0 given)" },
		/* four characters but nine bytes: the limit counts bytes */
		{ "--name", "\xc3\xa9\xc3\xa9\xc3\xa9\xe2\x82\xac",
		  "--name must be 1 to 8 bytes (9 given)" },
		{ "--name",
		  "a\xff"
		  "b",
		  "--name is not valid UTF-8" },
		{ "--name", "a\033]0;x\a", "--name may not contain control characters" },
		{ "--dir", "/nonexistent-ul",
		  "--dir '/nonexistent-ul': No such file or directory" },
		{ "--dir", "/etc/hostname", "--dir '/etc/hostname': not a directory" },
		{ "--call", "no", "invalid value 'no' for --call: expected ok" },
	};

	for (size_t i = 0; i < UL_ARRAY_SIZE(bad); i++) {
		char x[] = "x", arg[32], val[32];
		char *argv[] = { x, arg, val, NULL };
		struct ul_opt_group g;
		struct cli c;
		char err[256] = "";
		int first;

		snprintf(arg, sizeof(arg), "%s", bad[i].arg);
		snprintf(val, sizeof(val), "%s", bad[i].val);
		ck_assert_int_lt(cli_parse(&c, &g, argv, &first, err, sizeof(err)), 0);
		ck_assert_str_eq(err, bad[i].msg);
	}
}
END_TEST

START_TEST(test_optparse_help_and_man)
{
	struct ul_opt_group g = { .heading = "things", .opts = cli_opts };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ul_opt_print_help(f, &g, 1);
	ul_opt_print_man(f, &g, 1);
	ul_opt_print_man_usage(f, "underload x", &g, 1, 0, "[RUN]... -- run ARGS...");
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_ptr_nonnull(strstr(buf, "things:\n"));
	ck_assert_ptr_nonnull(strstr(buf, "  -c, --count N          a count (default: 3)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "  --wait DUR             a wait (default: 500ms)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "  --on                   mode on (default: auto)\n"));
	ck_assert_ptr_nonnull(strstr(buf, "  --name TEXT            a name (default: dflt)\n"));
	ck_assert_ptr_nonnull(strstr(buf, ".SS things\n"));
	ck_assert_ptr_nonnull(strstr(buf,
				     ".TP\n.BI \\-c \"\\fR, \\fP\" \\-\\-count \" N\"\nA count "
				     "(default: 3).\n"));
	ck_assert_ptr_nonnull(strstr(buf, ".TP\n.B \\-\\-flag\nA flag.\n"));
	/* The SYNOPSIS line: options bold, metavariables italic, an option
	 * and its value never apart; the operands one word a line. */
	ck_assert_ptr_nonnull(
		strstr(buf, ".B underload x\n\\%[\\fB\\-\\-name\\fR\\ \\fITEXT\\fR]\\&\n"));
	ck_assert_ptr_nonnull(
		strstr(buf, "\\%[\\fB\\-c\\fR|\\fB\\-\\-count\\fR\\ \\fIN\\fR]\\&\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\\%[\\fB\\-\\-flag\\fR]\\&\n"));
	ck_assert_ptr_nonnull(strstr(buf, "\\%[\\fIRUN\\fR]...\\&\n\\%\\fB\\-\\-\\fR\\&\n"
					  "\\%\\fBrun\\fR\\&\n\\%\\fIARGS\\fR...\\&\n.br\n"));
	free(buf);
}
END_TEST

/* Options on one usage line of two (bisect's --kernel or --git): each
 * line names its own and the shared ones, a required one bare. */
START_TEST(test_optparse_usage_forms)
{
	static const struct ul_opt two[] = {
		{ "list", UL_OPT_STRING, 64, .arg = "F",
		  .flags = UL_OPTF_REQUIRED | UL_OPTF_REPEATS, .form = UL_OPT_FORM(0),
		  .help = "a list" },
		{ "tree", UL_OPT_STRING, 64, .arg = "D", .flags = UL_OPTF_REQUIRED,
		  .form = UL_OPT_FORM(1), .help = "a tree" },
		{ "image", UL_OPT_STRING, 64, .arg = "P", .form = UL_OPT_FORM(1),
		  .help = "an image" },
		{ "both", UL_OPT_FLAG, 0, 1, 0, "either way" },
		{ NULL },
	};
	struct ul_opt_group g = { .opts = two };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_uint_eq(ul_opt_usage_forms(&g, 1), UL_OPT_FORM(0) | UL_OPT_FORM(1));
	ul_opt_print_usage(f, "usage: x", &g, 1, UL_OPT_FORM(0), "ARGS");
	ul_opt_print_usage(f, "   or: x", &g, 1, UL_OPT_FORM(1), "ARGS");
	ul_opt_print_usage(f, "all: x", &g, 1, 0, NULL);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_str_eq(buf, "usage: x --list F... [--both] ARGS\n"
			      "   or: x --tree D [--image P] [--both] ARGS\n"
			      "all: x --list F... --tree D [--image P] [--both]\n");
	free(buf);
	g.opts = cli_opts; /* a table without forms: one line */
	ck_assert_uint_eq(ul_opt_usage_forms(&g, 1), 0);
}
END_TEST

/* What ul_opt_scan_argv reports, in order: options by full name, then
 * the operands (name NULL), whatever their place in argv. */
static int scan_record(void *arg, const struct ul_opt_group *g, const char *name, const char *value)
{
	char *log = arg;
	size_t len = strlen(log);

	(void)g;
	snprintf(log + len, 256 - len, "%s%s=%s;", name ? "--" : "", name ? name : "",
		 value ? value : "");
	return value && !strcmp(value, "stop") ? 7 : 0;
}

START_TEST(test_optscan_operands)
{
	struct ul_opt_group g = { .opts = cli_opts };
	char a0[] = "x", a1[] = "one", a2[] = "--na=y", a3[] = "two", a4[] = "-c2", a5[] = "stop",
	     a6[] = "three";
	char *argv[] = { a0, a1, a2, a3, a4, a5, a6, NULL };
	char log[256] = "", err[128] = "";

	ck_assert_int_eq(ul_opt_scan_argv(&g, 1, 5, argv, scan_record, log, err, sizeof(err)), 0);
	ck_assert_str_eq(log, "--name=y;--count=2;=one;=two;");
	ck_assert_str_eq(argv[1], "one"); /* argv is not permuted */
	log[0] = '\0';
	/* fn's nonzero return stops the scan, at an operand too */
	ck_assert_int_eq(ul_opt_scan_argv(&g, 1, 7, argv, scan_record, log, err, sizeof(err)), 7);
	ck_assert_str_eq(log, "--name=y;--count=2;=one;=two;=stop;");
}
END_TEST

/* A command holding spaces and ") (" cannot shift the fields after it. */
START_TEST(test_procstat_parse)
{
	struct ul_procstat ps;
	const char *line = "4242 (evil) (name 9 9) S 17 4240 4239 0 -1 4194560 120 0 3 0 "
			   "150 25 7 3 20 0 1 0 98765 12345678 300 18446744073709551615\n";
	const char *kthread = "2 (kthreadd) S 0 0 0 0 -1 2129984 0 0 0 0 0 4 0 0 20 0 1 0 1 0 0";

	ck_assert_int_eq(ul_procstat_parse(line, &ps), 0);
	ck_assert_int_eq(ps.pid, 4242);
	ck_assert_int_eq(ps.ppid, 17);
	ck_assert_int_eq(ps.pgrp, 4240);
	ck_assert_int_eq(ps.state, 'S');
	ck_assert_uint_eq(ps.user_ticks, 150 + 7);
	ck_assert_uint_eq(ps.sys_ticks, 25 + 3);
	ck_assert_uint_eq(ps.cpu_ticks, 150 + 25 + 7 + 3);
	ck_assert_uint_eq(ps.starttime, 98765);
	ck_assert(!(ps.flags & UL_PF_KTHREAD));
	ck_assert_int_eq(ul_procstat_parse(kthread, &ps), 0);
	ck_assert(ps.flags & UL_PF_KTHREAD);
	ck_assert_uint_eq(ps.cpu_ticks, 4);
	ck_assert_int_eq(ul_procstat_parse("12 (short) S 1 2 3", &ps), -EINVAL);
	/* one process read by pid: ourselves, and a pid that cannot exist */
	ck_assert_int_eq(ul_procstat_read(getpid(), &ps), 0);
	ck_assert_int_eq(ps.pid, getpid());
	ck_assert_int_eq(ps.ppid, getppid());
	ck_assert_int_eq(ps.pgrp, getpgrp());
	ck_assert_int_eq(ul_procstat_read(INT32_MAX, &ps), -ENOENT);
	ck_assert_int_eq(ul_procstat_parse("no pid here", &ps), -EINVAL);
}
END_TEST

/* Descendants are found whatever the pid order; others are not. */
START_TEST(test_procstat_tree)
{
	const struct ul_procstat all[] = {
		{ .pid = 1, .ppid = 0 },     { .pid = 5, .ppid = 900 }, { .pid = 7, .ppid = 1 },
		{ .pid = 40, .ppid = 5 },    { .pid = 41, .ppid = 7 },	{ .pid = 900, .ppid = 100 },
		{ .pid = 901, .ppid = 900 },
	};
	bool in[7];
	struct ul_procstat *live;
	size_t n;

	ck_assert_uint_eq(ul_procstat_tree(all, 7, 900, in), 4);
	ck_assert(in[1] && in[3] && in[5] && in[6]);
	ck_assert(!in[0] && !in[2] && !in[4]);
	ck_assert_ptr_null(ul_procstat_find(all, 7, 6));
	ck_assert_int_eq(ul_procstat_find(all, 7, 41)->ppid, 7);
	/* the live system: we are there, with our parent */
	ck_assert_int_eq(ul_procstat_all(&live, &n), 0);
	ck_assert_ptr_nonnull(ul_procstat_find(live, n, getpid()));
	ck_assert_int_eq(ul_procstat_find(live, n, getpid())->ppid, getppid());
	free(live);
}
END_TEST

/* Small files and full reads/writes (core/file.h), on a real pipe and file. */
START_TEST(test_file_helpers)
{
	char path[] = "/tmp/underload-ut-file-XXXXXX", buf[16];
	int fds[2], fd = mkstemp(path);

	ck_assert_int_ge(fd, 0);
	close(fd);
	ck_assert_int_eq(ul_write_file(path, "1234\n"), 0);
	ck_assert_int_eq(ul_read_file(path, buf, sizeof(buf)), 5);
	ck_assert_str_eq(buf, "1234\n");
	ck_assert_int_eq(ul_read_file(path, buf, 3), 2); /* cut to fit, NUL-terminated */
	ck_assert_str_eq(buf, "12");
	ck_assert_int_eq(unlink(path), 0);
	ck_assert_int_eq(ul_read_file(path, buf, sizeof(buf)), -ENOENT);
	ck_assert_int_eq(ul_write_file(path, "x"), -ENOENT); /* never creates */

	ck_assert_int_eq(pipe(fds), 0);
	ck_assert_int_eq(ul_write_full(fds[1], "abcdef", 6), 0);
	ck_assert_int_eq(ul_read_full(fds[0], buf, 4), 0);
	ck_assert_int_eq(memcmp(buf, "abcd", 4), 0);
	close(fds[1]);
	ck_assert_int_eq(ul_read_full(fds[0], buf, 4), -EPIPE); /* 2 bytes, then EOF */
	ck_assert_int_eq(pipe(fds + 0), 0);
	close(fds[0]);
	signal(SIGPIPE, SIG_IGN);
	ck_assert_int_eq(ul_write_full(fds[1], "x", 1), -EPIPE);
	signal(SIGPIPE, SIG_DFL);
	close(fds[1]);
}
END_TEST

Suite *ul_test_suite_core(void)
{
	Suite *s = suite_create("core");
	TCase *parse = tcase_create("parse");
	TCase *opt = tcase_create("opt");
	TCase *sys = tcase_create("sysinfo");

	tcase_add_test(parse, test_parse_size_ok);
	tcase_add_test(parse, test_parse_size_bad);
	tcase_add_test(parse, test_parse_duration);
	tcase_add_test(parse, test_parse_count);
	tcase_add_test(parse, test_parse_pct);
	tcase_add_test(parse, test_fmt);
	tcase_add_test(opt, test_opt_table);
	tcase_add_test(opt, test_opt_set);
	tcase_add_test(opt, test_opt_errors);
	tcase_add_test(opt, test_opt_fmt_roundtrip);
	tcase_add_test(opt, test_optparse);
	tcase_add_test(opt, test_optparse_errors);
	tcase_add_test(opt, test_optparse_again_after_cluster);
	tcase_add_test(opt, test_optparse_help_and_man);
	tcase_add_test(opt, test_optparse_usage_forms);
	tcase_add_test(opt, test_optscan_operands);
	tcase_add_test(sys, test_meminfo_parse);
	tcase_add_test(sys, test_meminfo_parse_old_and_bad);
	tcase_add_test(sys, test_meminfo_read_live);
	tcase_add_test(sys, test_procstat_parse);
	tcase_add_test(sys, test_procstat_tree);
	tcase_add_test(sys, test_file_helpers);
	suite_add_tcase(s, parse);
	suite_add_tcase(s, opt);
	suite_add_tcase(s, sys);
	return s;
}
