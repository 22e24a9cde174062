/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The lmbench2 layout, as pure functions of plain rows, so the seed's own
 * numbers can be fed to it in tests: LMbench 2.0's six-table summary
 * (seed-systems.md section 5.4), titled as underload's micro summary.
 * The numbers are underload's; they are never LMbench results.
 */
#ifndef UL_REPORT_LMBENCH2_H
#define UL_REPORT_LMBENCH2_H

#include "core/compat.h"

#include <stdio.h>

/* Every value cell of the summary, table by table (the 2p/0K column of the
 * latency table repeats UL_LM2_CTX_2P0K). */
enum ul_lm2_col {
	UL_LM2_NULL_CALL,
	UL_LM2_NULL_IO,
	UL_LM2_STAT,
	UL_LM2_OPEN_CLOSE,
	UL_LM2_SELECT_TCP,
	UL_LM2_SIG_INST,
	UL_LM2_SIG_HNDL,
	UL_LM2_FORK,
	UL_LM2_EXEC,
	UL_LM2_SH,
	UL_LM2_CTX_2P0K,
	UL_LM2_CTX_2P16K,
	UL_LM2_CTX_2P64K,
	UL_LM2_CTX_8P16K,
	UL_LM2_CTX_8P64K,
	UL_LM2_CTX_16P16K,
	UL_LM2_CTX_16P64K,
	UL_LM2_LAT_PIPE,
	UL_LM2_LAT_UNIX,
	UL_LM2_LAT_UDP,
	UL_LM2_LAT_RPC_UDP,
	UL_LM2_LAT_TCP,
	UL_LM2_LAT_RPC_TCP,
	UL_LM2_LAT_CONNECT,
	UL_LM2_CREATE_0K,
	UL_LM2_DELETE_0K,
	UL_LM2_CREATE_10K,
	UL_LM2_DELETE_10K,
	UL_LM2_MMAP,
	UL_LM2_PROT_FAULT,
	UL_LM2_PAGE_FAULT,
	UL_LM2_BW_PIPE,
	UL_LM2_BW_UNIX,
	UL_LM2_BW_TCP,
	UL_LM2_BW_FILE,
	UL_LM2_BW_MMAP,
	UL_LM2_BW_BCOPY_LIBC,
	UL_LM2_BW_BCOPY_HAND,
	UL_LM2_BW_MEM_READ,
	UL_LM2_BW_MEM_WRITE,
	UL_LM2_L1,
	UL_LM2_L2,
	UL_LM2_MAIN,
	UL_LM2_NCOLS,
};

/*
 * A column a micro test fills: its value is the test's series `series`,
 * the median of the batches (the memory table: their minimum), in the
 * column's unit.  A test lists its columns in its row of the suite's
 * table (format_row of struct ul_suite_test, engine/suites/micro/),
 * ending with { UL_LM2_NCOLS }: the layout reads them from there.
 */
struct ul_lm2_source {
	enum ul_lm2_col col;
	const char *series; /* "op_ps", "bw_bytes_s", "l1_ps" */
};

/* One row of every table: one run.  A value <= 0 (or NaN) prints blank.
 * Times in microseconds, latencies of the memory table in nanoseconds,
 * bandwidths in MB/s (10^6 bytes, as lmbench3 counts them). */
struct ul_lm2_row {
	char host[256];
	char os[128];
	char desc[192];
	double mhz;
	double v[UL_LM2_NCOLS];
};

/*
 * LMbench3 getsummary's num(): blank for <= 0; >= 1e7 as %.1f of v/1e6 cut
 * to width-1 plus "M"; >= 1e4 the same with v/1e3 and "K"; >= 10 as %.1f
 * right-justified and cut to width; < 0.001 as %width.(width-6)e;
 * otherwise %width.(width-2)f.  buf gets exactly what it prints.
 */
void ul_lm2_num(char *buf, size_t len, double v, int width);

/* The whole summary for rows[0..n), in order; a table shows the rows with
 * a value in it and is left out when none has; 0 or -EIO. */
int ul_lm2_write(FILE *out, const struct ul_lm2_row *rows, size_t n);

/* The micro probe (and in *series, its series) a column shows, from the
 * suite's tests' rows; NULL for the RPC columns, which stay blank. */
const char *ul_lm2_source(enum ul_lm2_col col, const char **series);

#endif
