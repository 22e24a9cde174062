/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * dbench/: the dbench 4 trace library: a trace parsed from a loadfile or
 * generated (loadfile.c, gen.c; the operations: ops.def), replayed by one
 * client against a local file system (replay.h: replay.c, client.c).  It
 * is a folder of its own, below the three that use it: the fsbench load
 * (load/fsbench.c) replays it as background load, the fsbench suite
 * (engine/suites/fsbench/) measures its replay, and the report prints a
 * trace's summary (report/dbench.c, report/fsbench.c).  It knows nothing
 * of them: no engine, model or store.
 *
 * fsbench traces: a dbench 4 loadfile parsed into an array of operations,
 * or the built-in generator's deterministic NetBench-like trace.
 *
 * Loadfile syntax (dbench 4, as Debian's /usr/share/dbench/client.txt):
 * one operation a line, `[TIME] NAME ARGS... STATUS`, tokens separated by
 * blanks, a path in double quotes with `\` separators; `#` starts a
 * comment line, blank lines are skipped.  TIME, when present, is ignored:
 * like dbench 4.0 we replay as fast as the file system allows.  STATUS is
 * NT_STATUS_xxx or a hex code (0x0 means success); an operation succeeds
 * or fails as its status expects, and a differing outcome is counted.
 * Paths become relative to the client's directory (leading `\` dropped,
 * `\` -> `/`); a path component `client1` is replaced by the client's own
 * name at replay, as dbench does.  `..` components are refused so no
 * operation can leave the scratch directory.
 */
#ifndef UL_FSB_LOADFILE_H
#define UL_FSB_LOADFILE_H

#include "core/compat.h"

enum ul_fsb_kind {
#define UL_FSB_OP(ident, name, args) UL_FSB_##ident,
#include "dbench/ops.def"
#undef UL_FSB_OP
	UL_FSB_N_KINDS
};

/* Debian's dbench package installs this loadfile; used when present. */
#define UL_FSB_DEFAULT_LOADFILE "/usr/share/dbench/client.txt"
/* Clients of one replay (each its own directory clients/clientN). */
#define UL_FSB_MAX_CLIENTS 512

/* struct ul_fsb_op keeps its kind in a byte. */
_Static_assert(UL_FSB_N_KINDS <= 256, "ops.def lists more kinds than a uint8_t holds");

#define UL_FSB_NO_SUB UINT16_MAX /* path has no `client1` component */

struct ul_fsb_op {
	uint32_t path[2]; /* offsets into the trace's string pool; 0 = none */
	uint16_t sub[2];  /* offset of `client1` in each path, or UL_FSB_NO_SUB */
	uint32_t line;	  /* 1-based line in the loadfile (0 for generated ops) */
	uint8_t kind;	  /* enum ul_fsb_kind */
	bool expect_ok;	  /* status NT_STATUS_OK / 0x0 */
	int64_t arg[4];	  /* the numbers, in the order of ops.def's args */
};

struct ul_fsb_trace {
	struct ul_fsb_op *ops;
	size_t n, cap;
	char *pool; /* NUL-terminated paths; pool[0] = "" */
	size_t pool_len, pool_cap;
	char source[256];    /* the loadfile path or "built-in" */
	size_t max_io_bytes; /* largest ReadX/WriteX size: the client's buffer */
};

/* Per-pass totals the trace itself declares (ReadX/WriteX ret sizes of
 * operations expected to succeed), and its operation counts. */
struct ul_fsb_totals {
	uint64_t read_bytes, write_bytes;
	uint64_t ops[UL_FSB_N_KINDS];
};

const char *ul_fsb_kind_name(enum ul_fsb_kind k);
/* The kind called `name` (case-insensitive, as dbench), or -1. */
int ul_fsb_kind_find(const char *name);

void ul_fsb_trace_init(struct ul_fsb_trace *t);
void ul_fsb_trace_free(struct ul_fsb_trace *t);
static inline const char *ul_fsb_path(const struct ul_fsb_trace *t, uint32_t off)
{
	return t->pool + off;
}

/*
 * Parse a loadfile.  0, or -errno with a one-line reason in err that names
 * the file, the line and what was expected ("client.txt:12: WriteX: expected
 * a number for argument 3, got 'x'"); -ENOENT/-EACCES... when it cannot be
 * read; -EINVAL for malformed content, also for a file with no operation,
 * and for a path that is not a regular file (a FIFO would block, /dev/zero
 * never ends a line), refused without blocking.
 */
int ul_fsb_trace_load(struct ul_fsb_trace *t, const char *path, char *err,
		      size_t errlen) UL_MUST_CHECK;
/* Parse one line (no newline) as line `line_no` of `source`; blank and
 * comment lines add nothing.  Same errors as ul_fsb_trace_load(). */
int ul_fsb_trace_parse_line(struct ul_fsb_trace *t, const char *text, unsigned line_no, char *err,
			    size_t errlen) UL_MUST_CHECK;

/*
 * The built-in trace: `sessions` office-application sessions (open or
 * create a document, write it in 64 KiB pieces, read it back, look
 * names up, list directories, query the file system, set attributes,
 * flush, lock a byte, save through a temporary file and rename, delete),
 * drawn from a fixed xorshift seed so every run and every kernel gets the
 * same operations.  The mix is close to client.txt's (in parentheses): per
 * 400 sessions 9752 ops, 24% ReadX (27), 14% NTCreateX (17), 16%
 * QUERY_PATH_INFORMATION (16), 9% Close (13), 10% WriteX (9), 8%
 * FIND_FIRST (6), 2% Unlink (3), 4% QUERY_FS_INFORMATION (3), 6%
 * QUERY_FILE_INFORMATION (3), 2% SET_FILE_INFORMATION (1), 1% Flush (1),
 * 2% Rename (1), 0.3% each LockX and UnlockX (0.06); it reads 2.4 bytes
 * per byte written (client.txt 1.45) and expects every status it meets.
 * -ENOMEM on allocation failure.
 */
int ul_fsb_trace_generate(struct ul_fsb_trace *t, unsigned sessions) UL_MUST_CHECK;
#define UL_FSB_GEN_SESSIONS 400 /* the default pass: 9752 ops, 147 MB read, 62 MB written */

/* Sum what one pass of the trace declares. */
void ul_fsb_trace_totals(const struct ul_fsb_trace *t, struct ul_fsb_totals *out);

#endif
