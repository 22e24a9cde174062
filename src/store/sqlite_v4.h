/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Schema version 4 of the SQLite store (sqlite.c's migration list): each
 * series is one packed BLOB (store/series_pack.h: n int64 values as 8n
 * little-endian bytes) in series.packed instead of n rows of `samples`, so
 * a series is written and read in one statement and takes 8 bytes a value.
 *
 * The migration packs every series with ul_pack_samples(series_id, idx,
 * value), an aggregate the store registers on its own connection only for
 * this (sqlite_series.c): it fails the migration, which then changes
 * nothing, when a series' indices are not 0, 1, 2 ... or a value is not an
 * integer, so nothing is lost or reordered.  series.n is kept as it was.
 *
 * The view cell_samples keeps its columns (run_id, seq, suite, load, probe,
 * series, idx, value): one row per sample, decoded in plain SQL so the
 * sqlite3 shell and any SQLite library read it without our functions.  A
 * recursive CTE halves each BLOB (at a whole value) until the parts are
 * single values, carrying each part's byte offset: O(n log n) bytes copied,
 * where cutting one value at a time out of the whole BLOB would read all
 * of it per value (quadratic: minutes for a series of 1M).  Each value is
 * its 8 bytes as 16 hex digits, least significant byte first, put together
 * with shifts (SQLite's << wraps in 64 bits, so the top byte gives the
 * sign).  It splits every series of the store before the outer query
 * filters, so over millions of samples it takes seconds; a BLOB that is
 * not a whole number of values shows no rows (the program refuses it).
 */
#ifndef UL_STORE_SQLITE_V4_H
#define UL_STORE_SQLITE_V4_H

/* Hex digit P (1-based) of the value part.bytes as a number 0..15. */
#define V4_NIBBLE(p) "(instr('0123456789ABCDEF', substr(hex(part.bytes), " #p ", 1)) - 1)"
/* The byte of digits P, Q, shifted to bit SHIFT. */
#define V4_BYTE(p, q, shift) "(((" V4_NIBBLE(p) " << 4) | " V4_NIBBLE(q) ") << " #shift ")"
/* The int64 whose 8 little-endian bytes are part.bytes: its low and high halves. */
#define V4_LOW                                                                                     \
	V4_BYTE(1, 2, 0) " | " V4_BYTE(3, 4, 8) " | " V4_BYTE(5, 6, 16) " | " V4_BYTE(7, 8, 24)
#define V4_HIGH                                                                                    \
	V4_BYTE(9, 10, 32)                                                                         \
	" | " V4_BYTE(11, 12, 40) " | " V4_BYTE(13, 14, 48) " | " V4_BYTE(15, 16, 56)
#define V4_DECODE "(" V4_LOW " | " V4_HIGH ")"

#define V4_CELL_SAMPLES_VIEW                                                                       \
	"CREATE VIEW cell_samples AS"                                                              \
	" WITH RECURSIVE part (series_id, off, bytes) AS ("                                        \
	"  SELECT id, 0, packed FROM series"                                                       \
	"   WHERE length(packed) >= 8 AND length(packed) % 8 = 0"                                  \
	"  UNION ALL SELECT p.series_id, p.off + k.second * (length(p.bytes) / 16 * 8),"           \
	"   CASE k.second WHEN 0 THEN substr(p.bytes, 1, length(p.bytes) / 16 * 8)"                \
	"    ELSE substr(p.bytes, length(p.bytes) / 16 * 8 + 1) END"                               \
	"   FROM part p JOIN (SELECT 0 AS second UNION ALL SELECT 1) k"                            \
	"   WHERE length(p.bytes) > 8)"                                                            \
	" SELECT c.run_id, c.seq, c.suite, c.load, c.probe, s.name AS series,"                     \
	"  part.off / 8 AS idx, " V4_DECODE " AS value"                                            \
	" FROM part JOIN series s ON s.id = part.series_id JOIN cells c ON c.id = s.cell_id"       \
	" WHERE length(part.bytes) = 8;"

#define SCHEMA_V4                                                                                  \
	"DROP VIEW IF EXISTS cell_samples;"                                                        \
	"ALTER TABLE series ADD COLUMN packed BLOB NOT NULL DEFAULT x'';"                          \
	"UPDATE series SET packed = (SELECT ul_pack_samples(x.series_id, x.idx, x.value)"          \
	" FROM samples x WHERE x.series_id = series.id);"                                          \
	"DROP TABLE samples;" V4_CELL_SAMPLES_VIEW

#endif
