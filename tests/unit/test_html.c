/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Unit tests for the HTML/SVG report (report/html/html.h) on a synthetic model
 * of two labels: the whole page against tests/golden/report-synthetic.html
 * (UPDATE_GOLDEN=1 rewrites it; review the diff), a hostile label drawn as
 * text everywhere, and the same figures written as separate SVG files;
 * the breakdown of the delay ("why was it slow") drawn for the runs that
 * have one, the others named only when some do.
 */
#include "unit.h"
#include "core/sysmon.h"
#include "model/breakdown.h"
#include "model/model.h"
#include "report/breakdown.h"
#include "report/html/html.h"
#include "report/quantity.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef UL_SOURCE_ROOT
#error "the test build must define UL_SOURCE_ROOT"
#endif
#define GOLDEN UL_SOURCE_ROOT "/tests/golden/report-synthetic.html"
#define HOSTILE "<script>alert(1)</script>"

static void push_all(struct ul_cell *c, const char *name, const int64_t *v, size_t n)
{
	struct ul_series *s = ul_cell_series(c, name);

	ck_assert_ptr_nonnull(s);
	for (size_t i = 0; i < n; i++)
		ck_assert_int_eq(ul_series_push(s, v[i]), 0);
}

static struct ul_cell *add_cell(struct ul_run *r, const char *suite, const char *load)
{
	struct ul_cell *c = ul_run_add_cell(r);

	ck_assert_ptr_nonnull(c);
	snprintf(c->suite, sizeof(c->suite), "%s", suite);
	snprintf(c->load, sizeof(c->load), "%s", load);
	snprintf(c->probe, sizeof(c->probe), "%s", suite);
	return c;
}

/* Four sampler records 1 s apart from t0 (monotonic ns): swap, PSI, run queue, memory. */
static void add_monitor(struct ul_cell *c, int64_t t0, int64_t k)
{
	int64_t t[4], fl[4], in[4], psi[4], run[4], fr[4];

	for (int i = 0; i < 4; i++) {
		t[i] = t0 + i * 1000000000LL;
		fl[i] = 0x7f | (i == 0 || i == 3 ? UL_SYSMON_BOUNDARY : 0);
		in[i] = 1000 + i * i * 256 * k; /* pages */
		psi[i] = i * 250000 * k;	/* 25% of each second stalled */
		run[i] = 1 + i;
		fr[i] = 2048000 - i * 10240 * k; /* kB */
	}
	push_all(c, UL_SYSMON_SERIES_T, t, 4);
	push_all(c, UL_SYSMON_SERIES_FLAGS, fl, 4);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_PSWPIN), in, 4);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_PSI_MEM_SOME_US), psi, 4);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_PROCS_RUNNING), run, 4);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_MEM_FREE), fr, 4);
	ck_assert_int_eq(ul_cell_set_metric(c, "mon_page_bytes", 4096), 0);
}

/* A resp, deadline and contest run; `k` scales the delays (k = 2: twice as slow). */
static void make_run(struct ul_run *r, const char *label, int64_t k, int id)
{
	static const int64_t base[8] = { 52, 55, 53, 61, 54, 52, 57, 90 };
	int64_t v[8], lat[10], stall[10], wall[1] = { 60000000000LL * k };
	struct ul_cell *c;

	ul_run_init(r);
	r->id = id;
	snprintf(r->uuid, sizeof(r->uuid), "0000000%d-0000-4000-8000-000000000000", id);
	snprintf(r->label, sizeof(r->label), "%s", label);
	snprintf(r->tool_version, sizeof(r->tool_version), "0.1.0");
	snprintf(r->argv, sizeof(r->argv), "underload run --label %s", label);
	snprintf(r->suites, sizeof(r->suites), "resp,deadline,micro,contest");
	r->status = UL_RUN_COMPLETE;
	r->started_wall_ns = 1700000000000000000LL + id * 1000000000LL;
	snprintf(r->host.hostname, sizeof(r->host.hostname), "host \"&\"");
	snprintf(r->host.kernel_release, sizeof(r->host.kernel_release), "6.1.%d", id);
	snprintf(r->host.cpu_model, sizeof(r->host.cpu_model), "Synthetic CPU");
	r->host.ncpu = 2;
	r->host.mem_total_bytes = 1ULL << 34;
	r->params.interval_ns = 1000000000;
	r->params.min_points = 5;
	r->params.max_points = 8;
	r->params.mem_limit_bytes = id == 1 ? 0 : 256ULL << 20;
	for (const char *const *load = (const char *const[]){ "noload", "cpuload", NULL }; *load;
	     load++) {
		c = add_cell(r, "resp", *load);
		for (int i = 0; i < 8; i++)
			v[i] = base[i] * k * 1000000 * (**load == 'c' ? 2 : 1);
		push_all(c, "delay_ns", v, 8);
		add_monitor(c, (int64_t)c->seq * 5000000000LL, k);
	}
	c = add_cell(r, "deadline", "noload");
	for (int i = 0; i < 10; i++) {
		lat[i] = (i == 4 ? 25000000 : 100000 * (i + 1)) * k;
		/* waiting to run counts as stall: period 4 ends late; 6 was skipped */
		stall[i] = i == 6 ? -1 : lat[i];
	}
	push_all(c, "dl_lat_ns", lat, 10);
	push_all(c, "dl_stall_ns", stall, 10);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_period_ns", 20000000), 0);
	ck_assert_int_eq(ul_cell_set_metric(c, "dl_work_ns", 1000000), 0);
	/* micro: two probes under one load; lat_mem's curve steps at 32K and 1M */
	c = add_cell(r, "micro", "noload");
	snprintf(c->probe, sizeof(c->probe), "lat_mem");
	for (int64_t kib = 1; kib <= 4096; kib *= 4) {
		char name[UL_NAME_LEN];
		int64_t ps[3] = { 1000, 1100, 1200 };

		for (int i = 0; i < 3; i++)
			ps[i] *= (kib < 32 ? 1 : kib < 1024 ? 4 : 60) * k;
		snprintf(name, sizeof(name), "curve_%lldk_ps", (long long)kib);
		push_all(c, name, ps, 3);
	}
	c = add_cell(r, "micro", "noload");
	snprintf(c->probe, sizeof(c->probe), "bw_mem_rd");
	for (int i = 0; i < 8; i++)
		v[i] = 5000000000LL / k + i * 10000000;
	push_all(c, "bw_bytes_s", v, 8);
	c = add_cell(r, "contest", "noload");
	c->probe[0] = '\0';
	snprintf(c->probe, sizeof(c->probe), "job");
	push_all(c, "wall_ns", wall, 1);
	ck_assert_int_eq(ul_cell_set_metric(c, "loads", 10.0 * (double)k), 0);
}

/*
 * A breakdown of every resp sample (model/breakdown.def): on-CPU 30%, run
 * queue 10% (50% under cpuload), with delay accounting also I/O 10%,
 * reclaim 2% and a swap-in of 5% in the last two samples; other the rest.
 * Without delay accounting only the parts counted without it.
 */
static void add_why(struct ul_run *r, bool delayacct)
{
	for (size_t i = 0; i < r->n_cells; i++) {
		struct ul_cell *c = &r->cells[i];
		int64_t part[UL_PART_COUNT][8] = { { 0 } };
		size_t n = c->series[0].n;

		if (strcmp(c->suite, "resp"))
			continue;
		ck_assert_uint_le(n, 8);
		for (size_t j = 0; j < n; j++) {
			int64_t v = c->series[0].v[j], sum = 0;

			part[UL_PART_ONCPU][j] = v * 3 / 10;
			part[UL_PART_RUNQ][j] = c->load[0] == 'c' ? v / 2 : v / 10;
			if (delayacct) {
				part[UL_PART_BLKIO][j] = v / 10;
				part[UL_PART_RECLAIM][j] = v / 50;
				part[UL_PART_SWAPIN][j] = j >= 6 ? v / 20 : 0;
			}
			for (int p = 0; p < UL_PART_OTHER; p++)
				sum += part[p][j];
			part[UL_PART_OTHER][j] = v - sum;
		}
		for (int p = 0; p < UL_PART_COUNT; p++)
			if (delayacct || !ul_breakdown_parts[p].needs_delayacct)
				push_all(c, ul_breakdown_parts[p].series, part[p], n);
	}
}

/* Is the median delay of run->cells[i], as show --format breakdown
 * computes it, the number after a bar of the page? */
static bool page_has_total(const char *page, const struct ul_run *run, size_t i)
{
	struct ul_breakdown_medians m;
	char q[32], want[48];

	ck_assert_int_eq(ul_breakdown_medians(&run->cells[i], &m), 0);
	snprintf(want, sizeof(want), ">%s</text>",
		 ul_fmt_quantity(q, sizeof(q), m.delay, ul_series_unit("delay_ns")));
	return strstr(page, want) != NULL;
}

static char *render_html(const struct ul_run *const *runs, size_t n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ul_report_html(f, runs, n, NULL), 0);
	ck_assert_int_eq(fclose(f), 0);
	ck_assert_uint_eq(strlen(buf), len);
	return buf;
}

static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;

	for (const char *p = hay; (p = strstr(p, needle)); p++)
		n++;
	return n;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	size_t len = 0, got;
	char chunk[65536];

	if (!f)
		return NULL;
	while ((got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		buf = realloc(buf, len + got + 1);
		ck_assert_ptr_nonnull(buf);
		memcpy(buf + len, chunk, got);
		len += got;
	}
	fclose(f);
	if (buf)
		buf[len] = '\0';
	return buf;
}

START_TEST(golden_page)
{
	struct ul_run a, b;
	const struct ul_run *runs[2] = { &a, &b };
	char *got, *want;

	make_run(&a, "A", 1, 1);
	make_run(&b, "B", 2, 2);
	add_why(&a, true);
	add_why(&b, false);
	got = render_html(runs, 2);
	if (getenv("UPDATE_GOLDEN")) {
		FILE *f = fopen(GOLDEN, "w");

		ck_assert_ptr_nonnull(f);
		fputs(got, f);
		ck_assert_int_eq(fclose(f), 0);
	}
	want = slurp(GOLDEN);
	ck_assert_msg(want != NULL, "cannot read " GOLDEN);
	if (strcmp(got, want)) {
		size_t i = 0, line = 1;

		while (got[i] && got[i] == want[i])
			line += got[i++] == '\n';
		ck_abort_msg("report differs from " GOLDEN " at line %zu, byte %zu: got '%.60s'",
			     line, i, got + i);
	}
	/* What the page must hold, independent of the exact bytes. */
	ck_assert_uint_eq(count(got, "<svg "), count(got, "<figure "));
	/* resp: 2 tests, micro 2, contest 1 (deadline draws timelines instead), 2 labels each */
	ck_assert_uint_eq(count(got, "class=\"ul-pts\""), 5 * 2);
	ck_assert_uint_eq(count(got, "class=\"ul-cdf\""), 6 * 2);
	ck_assert_uint_eq(count(got, "class=\"ul-box\""), 6 * 2);
	/* micro: tests named by probe, lat_mem's curve (a line per label) */
	ck_assert_ptr_nonnull(strstr(got, "<h3>micro \xc2\xb7 lat_mem</h3>"));
	ck_assert_ptr_nonnull(strstr(got, "<h3>micro \xc2\xb7 bw_mem_rd</h3>"));
	ck_assert_ptr_nonnull(strstr(got, "memory latency against working-set size"));
	ck_assert_ptr_nonnull(strstr(got, "bw (MB/s)"));
	ck_assert_uint_eq(count(got, "class=\"ul-miss\""), 2);	       /* one timeline per label */
	ck_assert_uint_eq(count(got, "class=\"ul-cell\""), 2 * 5 * 2); /* cells x charts x runs */
	/* contest Time and Loads for 2 labels; B against A on 3 tests (contest's n = 1 is too few) */
	ck_assert_uint_eq(count(got, "class=\"ul-bar\""), 2 * 2 + 3);
	ck_assert_uint_eq(count(got, "<table class=\"verdicts\">"), 3);
	ck_assert_ptr_nonnull(strstr(got, "baseline has 1 valid point (2 needed)")); /* contest */
	/* twice the delays: clear with resp's tight samples (n = 8), not with the
	 * deadline's wide ones (n = 10, p = 0.12), which says how many it would
	 * take; one run a side: the call is unconfirmed, run-to-run variation
	 * unmeasured, and the replicates needed are a floor */
	ck_assert_uint_eq(count(got, "<td>slower (unconfirmed) (at least 3 replicates per side "
				     "would show a shift this size)</td><td>survives"),
			  2);
	ck_assert_uint_eq(count(got, "<td>no difference proven (at least 5 replicates per side"),
			  1);
	ck_assert_ptr_nonnull(strstr(got, "<tr class=\"diff\"><th>kernel release"));
	ck_assert_ptr_null(strstr(got, "<tr class=\"diff\"><th>CPUs"));
	ck_assert_ptr_nonnull(strstr(got, "red ticks: 2 missed periods."));
	/* why it was slow: resp's stacked bars, a bar per test and label, the
	 * number after it the median delay as show --format breakdown has it;
	 * segments: A's non-zero medians (on-CPU, run queue, I/O, reclaim,
	 * other: the swap-in of 2 samples in 8 has a median of 0), B's three
	 * parts counted without delay accounting */
	ck_assert_uint_eq(count(got, "class=\"ul-chart ul-stacks\""), 1);
	ck_assert_uint_eq(count(got, "class=\"ul-total\""), 2 * 2);
	ck_assert_uint_eq(count(got, "class=\"ul-seg\""), 2 * (5 + 3));
	for (size_t i = 0; i < 2; i++) {
		ck_assert(page_has_total(got, &a, i));
		ck_assert(page_has_total(got, &b, i));
	}
	/* each sample's parts per test and label: A's 8 parts, B's 3 */
	ck_assert_uint_eq(count(got, "class=\"ul-chart ul-strata\""), 2 * 2);
	ck_assert_uint_eq(count(got, "class=\"ul-area\""), 2 * (8 + 3));
	ck_assert_ptr_null(strstr(got, "No breakdown"));
	free(got);
	free(want);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

START_TEST(hostile_label)
{
	struct ul_run a, b;
	const struct ul_run *runs[2] = { &a, &b };
	char *got;

	make_run(&a, "A", 1, 1);
	make_run(&b, HOSTILE, 2, 2);
	add_why(&b, true);
	snprintf(b.cells[0].load, sizeof(b.cells[0].load), "<b onmouseover='x'>");
	snprintf(b.host.cpu_model, sizeof(b.host.cpu_model), "\"><img src=x>");
	got = render_html(runs, 2);
	ck_assert_ptr_null(strstr(got, "<script"));
	ck_assert_ptr_null(strstr(got, "<b "));
	ck_assert_ptr_null(strstr(got, "<img"));
	ck_assert_ptr_nonnull(strstr(got, "&lt;script&gt;alert(1)&lt;/script&gt;"));
	ck_assert_ptr_nonnull(strstr(got, "&lt;b onmouseover=&#39;x&#39;&gt;"));
	ck_assert_ptr_nonnull(strstr(got, "Content-Security-Policy"));
	free(got);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

struct mem_sink {
	char *buf[64];
	size_t len[64], n, closed;
	char slugs[64][160];
};

static FILE *mem_open(void *ctx, const char *slug)
{
	struct mem_sink *m = ctx;

	ck_assert_uint_lt(m->n, 64);
	ck_assert_uint_eq(strspn(slug, "abcdefghijklmnopqrstuvwxyz0123456789-."), strlen(slug));
	snprintf(m->slugs[m->n], sizeof(m->slugs[0]), "%s", slug);
	return open_memstream(&m->buf[m->n], &m->len[m->n]);
}

static int mem_close(void *ctx, FILE *f)
{
	struct mem_sink *m = ctx;

	ck_assert_int_eq(fclose(f), 0);
	m->n++;
	m->closed++;
	return 0;
}

START_TEST(svg_files)
{
	struct ul_run a, b;
	const struct ul_run *runs[2] = { &a, &b };
	struct mem_sink m = { .n = 0 };
	struct ul_report_sink sink = { mem_open, mem_close, &m };
	char *page;

	make_run(&a, "A", 1, 1);
	make_run(&b, HOSTILE, 2, 2);
	add_why(&a, true);
	add_why(&b, true);
	ck_assert_int_eq(ul_report_svgs(runs, 2, NULL, &sink), 0);
	page = render_html(runs, 2);
	ck_assert_uint_eq(m.n, count(page, "<figure "));
	for (size_t i = 0; i < m.n; i++) {
		ck_assert_msg(!strncmp(m.buf[i], "<svg xmlns=\"http://www.w3.org/2000/svg\"", 39),
			      "%s does not start with <svg", m.slugs[i]);
		ck_assert_str_eq(m.buf[i] + m.len[i] - 7, "</svg>\n");
		ck_assert_uint_eq(count(m.buf[i], "<svg"), 1);
		ck_assert_ptr_null(strstr(m.buf[i], "<script"));
		free(m.buf[i]);
	}
	ck_assert_str_eq(m.slugs[0], "01-resp-versus-baseline");
	ck_assert_str_eq(m.slugs[1], "02-resp-why-stacks"); /* under the verdicts */
	ck_assert_str_eq(m.slugs[2], "03-resp-noload-scatter");
	/* after the box plots, one per label, named after it */
	ck_assert_str_eq(m.slugs[5], "06-resp-noload-parts-a");
	ck_assert_str_eq(m.slugs[6], "07-resp-noload-parts-script-alert-1-script-");
	free(page);
	ul_run_release(&a);
	ul_run_release(&b);
}
END_TEST

/* Runs without a breakdown: nothing about it when none has one; one line
 * naming them when others have one, their samples left out of the bars. */
START_TEST(breakdown_some_runs)
{
	struct ul_run a, a3, b;
	const struct ul_run *runs[3] = { &a, &a3, &b };
	char *page;

	make_run(&a, "A", 1, 1);
	make_run(&a3, "A", 3, 3);
	make_run(&b, "B", 2, 2);
	page = render_html(runs, 3);
	ck_assert_ptr_null(strstr(page, "ul-stacks"));
	ck_assert_ptr_null(strstr(page, "ul-strata"));
	ck_assert_ptr_null(strstr(page, "breakdown"));
	ck_assert_ptr_null(strstr(page, "why it was slow"));
	free(page);

	add_why(&a, true);
	add_why(&b, false);
	page = render_html(runs, 3);
	ck_assert_uint_eq(count(page, "<p class=\"note\">No breakdown"), 1);
	ck_assert_ptr_nonnull(strstr(page, "<p class=\"note\">No breakdown of the delay (recorded "
					   "without one) in: A, run 00000003.</p>"));
	/* A's bars are its run with one alone (a3 is three times as slow) */
	ck_assert_uint_eq(count(page, "class=\"ul-total\""), 2 * 2);
	ck_assert(page_has_total(page, &a, 0));
	ck_assert(page_has_total(page, &a, 1));
	ck_assert_uint_eq(count(page, "class=\"ul-chart ul-strata\""), 2 * 2);
	free(page);
	ul_run_release(&a);
	ul_run_release(&a3);
	ul_run_release(&b);
}
END_TEST

START_TEST(refusals)
{
	struct ul_run r[UL_HTML_MAX_LABELS + 1];
	const struct ul_run *p[UL_HTML_MAX_LABELS + 1];
	FILE *f = fopen("/dev/null", "w");

	ck_assert_ptr_nonnull(f);
	ck_assert_int_eq(ul_report_html(f, p, 0, NULL), -EINVAL);
	for (int i = 0; i <= UL_HTML_MAX_LABELS; i++) {
		char label[16];

		snprintf(label, sizeof(label), "L%d", i);
		ul_run_init(&r[i]);
		snprintf(r[i].label, sizeof(r[i].label), "%s", label);
		p[i] = &r[i];
	}
	ck_assert_int_eq(ul_report_html(f, p, UL_HTML_MAX_LABELS + 1, NULL), -E2BIG);
	ck_assert_int_eq(ul_report_html(f, p, UL_HTML_MAX_LABELS, NULL), 0); /* empty runs */
	fclose(f);
}
END_TEST

/* A crafted monitor series: INT64_MIN next to INT64_MAX in the times and a
 * counter, differenced without signed overflow (UBSan aborts the test on one). */
START_TEST(crafted_monitor)
{
	static const int64_t t[] = { INT64_MIN, INT64_MAX, 0, INT64_MIN, INT64_MAX };
	static const int64_t v[] = { INT64_MAX, INT64_MIN, INT64_MAX, 0, INT64_MIN };
	struct ul_run r;
	const struct ul_run *p[1] = { &r };
	struct ul_cell *c;
	char *page;

	ul_run_init(&r);
	snprintf(r.label, sizeof(r.label), "crafted");
	snprintf(r.suites, sizeof(r.suites), "resp");
	c = add_cell(&r, "resp", "noload");
	push_all(c, "delay_ns", v, 5);
	push_all(c, UL_SYSMON_SERIES_T, t, 5);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_PSWPIN), v, 5);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_PSI_MEM_SOME_US), v, 5);
	push_all(c, ul_sysmon_series_name(UL_SYSMON_PGMAJFAULT), v, 5);
	page = render_html(p, 1);
	ck_assert_ptr_nonnull(strstr(page, "</html>"));
	free(page);
	ul_run_release(&r);
}
END_TEST

Suite *ul_test_suite_html(void)
{
	Suite *s = suite_create("html");
	TCase *tc = tcase_create("html");

	tcase_add_test(tc, golden_page);
	tcase_add_test(tc, hostile_label);
	tcase_add_test(tc, svg_files);
	tcase_add_test(tc, breakdown_some_runs);
	tcase_add_test(tc, refusals);
	tcase_add_test(tc, crafted_monitor);
	suite_add_tcase(s, tc);
	return s;
}
