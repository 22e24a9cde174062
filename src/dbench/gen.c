/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The built-in trace for machines without Debian's dbench: a fixed-seed
 * sequence of office-application sessions with client.txt's operation mix
 * (see loadfile.h).  Deterministic: the same sessions give the same ops.
 */
#include "core/compat.h"
#include "dbench/loadfile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#define GEN_DIRS 8
#define GEN_DOCS 4 /* per directory */
#define PIECE (64 * 1024)
#define OPEN_DIR 0x1   /* create_options FILE_DIRECTORY_FILE */
#define OPEN_FILE 0x40 /* FILE_NON_DIRECTORY_FILE */
#define DISP_OPEN 1
#define DISP_CREATE 2
#define DISP_OVERWRITE_IF 5

struct gen {
	struct ul_fsb_trace *t;
	uint64_t rng;
	uint32_t doc_size[GEN_DIRS][GEN_DOCS]; /* 0 = absent */
	int64_t handle;
	int rc;
};

static uint64_t rnd(struct gen *g, uint64_t n)
{
	g->rng ^= g->rng >> 12;
	g->rng ^= g->rng << 25;
	g->rng ^= g->rng >> 27;
	return (g->rng * UINT64_C(2685821657736338717)) % n;
}

/* Emit one line through the parser, so generated and loaded traces are
 * the same thing. */
static void emit(struct gen *g, const char *fmt, ...) UL_PRINTF(2, 3);
static void emit(struct gen *g, const char *fmt, ...)
{
	char line[512], err[256];
	va_list ap;

	if (g->rc)
		return;
	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	g->rc = ul_fsb_trace_parse_line(g->t, line, 0, err, sizeof(err));
}

#define ROOT "\\clients\\client1\\~dmtmp"

static void setup_tree(struct gen *g)
{
	emit(g, "Deltree \"\\clients\\client1\" NT_STATUS_OK");
	emit(g, "Mkdir \"\\clients\" NT_STATUS_OK");
	emit(g, "NTCreateX \"\\clients\\client1\" 0x1 0x2 1 NT_STATUS_OK");
	emit(g, "Close 1 NT_STATUS_OK");
	emit(g, "NTCreateX \"" ROOT "\" 0x1 0x2 1 NT_STATUS_OK");
	emit(g, "Close 1 NT_STATUS_OK");
	for (int d = 0; d < GEN_DIRS; d++) {
		emit(g, "NTCreateX \"" ROOT "\\APP%d\" 0x1 0x2 1 NT_STATUS_OK", d);
		emit(g, "Close 1 NT_STATUS_OK");
	}
}

/* Look around as an application does before opening a document. */
static void browse(struct gen *g, int d, int doc)
{
	emit(g, "QUERY_PATH_INFORMATION \"" ROOT "\\APP%d\" 1004 NT_STATUS_OK", d);
	emit(g, "FIND_FIRST \"" ROOT "\\APP%d\\*\" 260 1366 0 NT_STATUS_OK", d);
	emit(g, "QUERY_FS_INFORMATION 259 NT_STATUS_OK");
	emit(g, "FIND_FIRST \"" ROOT "\\<.JNK\" 260 1366 0 NT_STATUS_NO_SUCH_FILE");
	emit(g,
	     "QUERY_PATH_INFORMATION \"" ROOT "\\APP%d\\DOC%d.BAK\" 1004 "
	     "NT_STATUS_OBJECT_NAME_NOT_FOUND",
	     d, doc);
	emit(g,
	     "NTCreateX \"" ROOT "\\APP%d\\mixfile\" 0x40 0x1 9 "
	     "NT_STATUS_OBJECT_NAME_NOT_FOUND",
	     d);
	emit(g, "QUERY_PATH_INFORMATION \"" ROOT "\\APP%d\\DOC%d.DAT\" 1004 %s", d, doc,
	     g->doc_size[d][doc] ? "NT_STATUS_OK" : "NT_STATUS_OBJECT_NAME_NOT_FOUND");
}

/* Open the document for its attributes, then read `pieces` of it. */
static void read_doc(struct gen *g, int d, int doc, uint32_t pieces)
{
	int64_t h = ++g->handle;
	uint32_t size = g->doc_size[d][doc];

	emit(g, "NTCreateX \"" ROOT "\\APP%d\\DOC%d.DAT\" 0x0 0x1 %lld NT_STATUS_OK", d, doc,
	     (long long)h);
	emit(g, "QUERY_FILE_INFORMATION %lld 1004 NT_STATUS_OK", (long long)h);
	emit(g, "Close %lld NT_STATUS_OK", (long long)h);
	h = ++g->handle;
	emit(g, "NTCreateX \"" ROOT "\\APP%d\\DOC%d.DAT\" 0x40 0x1 %lld NT_STATUS_OK", d, doc,
	     (long long)h);
	for (uint32_t i = 0; i < pieces; i++) {
		uint32_t off = (i * PIECE) % size, len = size - off < PIECE ? size - off : PIECE;

		emit(g, "ReadX %lld %u %u %u NT_STATUS_OK", (long long)h, off, len, len);
	}
	if (rnd(g, 10) == 0) {
		emit(g, "LockX %lld 2147483538 1 NT_STATUS_OK", (long long)h);
		emit(g, "UnlockX %lld 2147483538 1 NT_STATUS_OK", (long long)h);
	}
	emit(g, "Close %lld NT_STATUS_OK", (long long)h);
}

/* Save through a temporary file renamed over the document. */
static void save_doc(struct gen *g, int d, int doc, uint32_t size)
{
	int64_t h = ++g->handle;
	uint32_t off;

	emit(g, "NTCreateX \"" ROOT "\\APP%d\\~TMP%d.TMP\" 0x40 0x%x %lld NT_STATUS_OK", d, doc,
	     DISP_OVERWRITE_IF, (long long)h);
	emit(g, "QUERY_FILE_INFORMATION %lld 1004 NT_STATUS_OK", (long long)h);
	for (off = 0; off < size; off += PIECE) {
		uint32_t len = size - off < PIECE ? size - off : PIECE;

		emit(g, "WriteX %lld %u %u %u NT_STATUS_OK", (long long)h, off, len, len);
	}
	emit(g, "SET_FILE_INFORMATION %lld 1004 NT_STATUS_OK", (long long)h);
	if (rnd(g, 2) == 0)
		emit(g, "Flush %lld NT_STATUS_OK", (long long)h);
	emit(g, "Close %lld NT_STATUS_OK", (long long)h);
	if (g->doc_size[d][doc])
		emit(g, "Unlink \"" ROOT "\\APP%d\\DOC%d.DAT\" 0x6 NT_STATUS_OK", d, doc);
	emit(g,
	     "Rename \"" ROOT "\\APP%d\\~TMP%d.TMP\" \"" ROOT "\\APP%d\\DOC%d.DAT\" "
	     "NT_STATUS_OK",
	     d, doc, d, doc);
	emit(g, "QUERY_PATH_INFORMATION \"" ROOT "\\APP%d\\DOC%d.DAT\" 1004 NT_STATUS_OK", d, doc);
	g->doc_size[d][doc] = size;
}

static void session(struct gen *g)
{
	int d = (int)rnd(g, GEN_DIRS), doc = (int)rnd(g, GEN_DOCS);
	uint32_t size = (uint32_t)(PIECE * (1 + rnd(g, 8)) - rnd(g, 2) * rnd(g, PIECE));

	browse(g, d, doc);
	if (g->doc_size[d][doc]) {
		uint32_t pieces = (g->doc_size[d][doc] + PIECE - 1) / PIECE;

		read_doc(g, d, doc, pieces + pieces / 2);
	}
	if (!g->doc_size[d][doc] || rnd(g, 2) == 0)
		save_doc(g, d, doc, size);
	else
		emit(g, "QUERY_PATH_INFORMATION \"" ROOT "\\APP%d\" 1004 NT_STATUS_OK", d);
	if (rnd(g, 20) == 0 && g->doc_size[d][doc]) { /* a user deletes a document */
		emit(g, "Unlink \"" ROOT "\\APP%d\\DOC%d.DAT\" 0x6 NT_STATUS_OK", d, doc);
		g->doc_size[d][doc] = 0;
	}
}

int ul_fsb_trace_generate(struct ul_fsb_trace *t, unsigned sessions)
{
	struct gen g = { .t = t, .rng = UINT64_C(0x9e3779b97f4a7c15) };

	snprintf(t->source, sizeof(t->source), "built-in");
	setup_tree(&g);
	for (unsigned i = 0; i < sessions && !g.rc; i++)
		session(&g);
	return g.rc ? -ENOMEM : 0;
}
