/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The dbench 4 loadfile parser: strict, one clear error naming the file,
 * the line and what was expected (dbench itself skips what it cannot read).
 */
#include "core/compat.h"
#include "core/log.h"
#include "dbench/loadfile.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_TOKENS 12
#define MAX_LINE 4096

static const char *const kind_names[UL_FSB_N_KINDS] = {
#define UL_FSB_OP(ident, name, args) name,
#include "dbench/ops.def"
#undef UL_FSB_OP
};

static const char *const kind_args[UL_FSB_N_KINDS] = {
#define UL_FSB_OP(ident, name, args) args,
#include "dbench/ops.def"
#undef UL_FSB_OP
};

const char *ul_fsb_kind_name(enum ul_fsb_kind k)
{
	return (unsigned)k < UL_FSB_N_KINDS ? kind_names[k] : "?";
}

int ul_fsb_kind_find(const char *name)
{
	for (int i = 0; i < UL_FSB_N_KINDS; i++)
		if (!strcasecmp(kind_names[i], name))
			return i;
	return -1;
}

void ul_fsb_trace_init(struct ul_fsb_trace *t)
{
	memset(t, 0, sizeof(*t));
}

void ul_fsb_trace_free(struct ul_fsb_trace *t)
{
	free(t->ops);
	free(t->pool);
	ul_fsb_trace_init(t);
}

/* Append a string to the pool; its offset in *off.  Offset 0 is "". */
static int pool_add(struct ul_fsb_trace *t, const char *s, size_t len, uint32_t *off)
{
	if (!t->pool_len) {
		t->pool = malloc(4096);
		if (!t->pool)
			return -ENOMEM;
		t->pool_cap = 4096;
		t->pool[0] = '\0';
		t->pool_len = 1;
	}
	if (t->pool_len + len + 1 > UINT32_MAX)
		return -E2BIG;
	if (t->pool_len + len + 1 > t->pool_cap) {
		size_t cap = t->pool_cap * 2 + len + 1;
		char *p = realloc(t->pool, cap);

		if (!p)
			return -ENOMEM;
		t->pool = p;
		t->pool_cap = cap;
	}
	memcpy(t->pool + t->pool_len, s, len);
	t->pool[t->pool_len + len] = '\0';
	*off = (uint32_t)t->pool_len;
	t->pool_len += len + 1;
	return 0;
}

static struct ul_fsb_op *op_add(struct ul_fsb_trace *t)
{
	if (t->n == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 1024;
		struct ul_fsb_op *p = realloc(t->ops, cap * sizeof(*p));

		if (!p)
			return NULL;
		t->ops = p;
		t->cap = cap;
	}
	memset(&t->ops[t->n], 0, sizeof(t->ops[0]));
	return &t->ops[t->n++];
}

/* Split a line into blank-separated tokens; "..." is one token (quotes
 * dropped).  Returns the count, -E2BIG for too many, -EINVAL for an
 * unterminated quote.  Tokens point into buf, which is modified. */
static int tokenize(char *buf, char *tok[MAX_TOKENS])
{
	int n = 0;
	char *p = buf;

	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\r')
			p++;
		if (!*p)
			return n;
		if (n == MAX_TOKENS)
			return -E2BIG;
		if (*p == '"') {
			char *end = strchr(p + 1, '"');

			if (!end)
				return -EINVAL;
			*end = '\0';
			tok[n++] = p + 1;
			p = end + 1;
			continue;
		}
		tok[n++] = p;
		while (*p && *p != ' ' && *p != '\t' && *p != '\r')
			p++;
		if (*p)
			*p++ = '\0';
	}
}

static bool parse_num(const char *s, int64_t *out)
{
	char *end;

	errno = 0;
	*out = strtoll(s, &end, 0);
	return *s && !*end && !errno;
}

/* Normalise a loadfile path in place: `\` -> `/`, leading slashes and
 * empty components dropped; refuse `..`.  "" stands for the client root. */
static int normalise_path(char *s, size_t *len)
{
	char *w = s;

	for (char *r = s; *r; r++)
		if (*r == '\\')
			*r = '/';
	for (char *r = s; *r;) {
		size_t n;

		while (*r == '/')
			r++;
		n = strcspn(r, "/");
		if (!n)
			break;
		if (n == 2 && r[0] == '.' && r[1] == '.')
			return -EINVAL;
		if (w != s)
			*w++ = '/';
		memmove(w, r, n);
		w += n;
		r += n;
	}
	*w = '\0';
	*len = (size_t)(w - s);
	return 0;
}

/* Offset of a whole path component "client1", or UL_FSB_NO_SUB. */
static uint16_t find_sub(const char *s)
{
	for (const char *p = s; (p = strstr(p, "client1")); p++)
		if ((p == s || p[-1] == '/') && (p[7] == '/' || p[7] == '\0'))
			return p - s < UL_FSB_NO_SUB ? (uint16_t)(p - s) : UL_FSB_NO_SUB;
	return UL_FSB_NO_SUB;
}

static bool is_status(const char *s)
{
	return !strncmp(s, "NT_STATUS_", 10) || !strncmp(s, "0x", 2);
}

static bool status_ok(const char *s)
{
	if (!strcmp(s, "NT_STATUS_OK"))
		return true;
	return !strncmp(s, "0x", 2) && strtoul(s, NULL, 16) == 0;
}

#define FAIL(...) (snprintf(err, errlen, "%s:%u: " __VA_ARGS__), -EINVAL)

/* Fill op's arguments from tok[0..n) per its kind's spec. */
static int parse_args(struct ul_fsb_trace *t, struct ul_fsb_op *op, char **tok, int n,
		      unsigned line, char *err, size_t errlen)
{
	const char *spec = kind_args[op->kind], *name = kind_names[op->kind];
	int np = 0, nn = 0;

	if (n != (int)strlen(spec))
		return FAIL("%s: expected %zu argument%s (%s) then a status, got %d", t->source,
			    line, name, strlen(spec), strlen(spec) == 1 ? "" : "s", spec, n);
	for (int i = 0; i < n; i++) {
		if (spec[i] == 'P') {
			size_t len;
			int rc;

			if (normalise_path(tok[i], &len))
				return FAIL("%s: path '%s' leaves its directory ('..')", t->source,
					    line, name, tok[i]);
			op->sub[np] = find_sub(tok[i]);
			rc = pool_add(t, tok[i], len, &op->path[np]);
			if (rc) {
				snprintf(err, errlen, "%s:%u: %s", t->source, line, strerror(-rc));
				return rc;
			}
			np++;
		} else if (!parse_num(tok[i], &op->arg[nn++])) {
			return FAIL("%s: expected a number for argument %d, got '%s'", t->source,
				    line, name, i + 1, tok[i]);
		}
	}
	for (; np < 2; np++)
		op->sub[np] = UL_FSB_NO_SUB;
	return 0;
}

int ul_fsb_trace_parse_line(struct ul_fsb_trace *t, const char *text, unsigned line, char *err,
			    size_t errlen)
{
	char buf[MAX_LINE], *tok[MAX_TOKENS];
	struct ul_fsb_op *op;
	int n, kind, first = 0, rc;

	if (strlen(text) >= sizeof(buf))
		return FAIL("line longer than %d characters", t->source, line, MAX_LINE - 1);
	strcpy(buf, text);
	n = tokenize(buf, tok);
	if (n == -EINVAL)
		return FAIL("unterminated quote", t->source, line);
	if (n < 0)
		return FAIL("more than %d fields", t->source, line, MAX_TOKENS);
	if (n == 0 || tok[0][0] == '#')
		return 0;
	if (isdigit((unsigned char)tok[0][0]))
		first = 1; /* a dbench 4 timestamp: replay does not wait for it */
	if (first >= n)
		return FAIL("expected an operation after the time", t->source, line);
	if (!strncmp(tok[first], "SMB", 3))
		return FAIL("'%s' is a dbench 1 operation: expected a dbench 4 loadfile", t->source,
			    line, tok[first]);
	kind = ul_fsb_kind_find(tok[first]);
	if (kind < 0)
		return FAIL("unknown operation '%s' (expected NTCreateX, Close, ReadX, WriteX, "
			    "... as in dbench 4)",
			    t->source, line, tok[first]);
	if (n - first < 2 || !is_status(tok[n - 1]))
		return FAIL("%s: expected a status (NT_STATUS_... or 0x...) at the end, got '%s'",
			    t->source, line, kind_names[kind], tok[n - 1]);
	op = op_add(t);
	if (!op) {
		snprintf(err, errlen, "%s:%u: " UL_OOM_TEXT, t->source, line);
		return -ENOMEM;
	}
	op->kind = (uint8_t)kind;
	op->line = line;
	op->expect_ok = status_ok(tok[n - 1]);
	rc = parse_args(t, op, tok + first + 1, n - first - 2, line, err, errlen);
	if (rc) {
		t->n--;
		return rc;
	}
	if ((kind == UL_FSB_READX || kind == UL_FSB_WRITEX) &&
	    (op->arg[1] < 0 || op->arg[2] < 0 || op->arg[2] > 16 * (int64_t)UL_MiB)) {
		t->n--;
		return FAIL("%s: expected an offset >= 0 and a size of 0..16M, got %lld and %lld",
			    t->source, line, kind_names[kind], (long long)op->arg[1],
			    (long long)op->arg[2]);
	}
	if ((kind == UL_FSB_READX || kind == UL_FSB_WRITEX) && (size_t)op->arg[2] > t->max_io_bytes)
		t->max_io_bytes = (size_t)op->arg[2];
	return 0;
}

/*
 * The loadfile opened for reading: a regular file only.  A FIFO would block
 * the open (or the read) forever and /dev/zero is an endless line, so
 * anything else is refused, without blocking on the open.
 */
static FILE *open_regular(const char *path, int *rc)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat sb;
	FILE *f;

	if (fd < 0) {
		*rc = -errno;
		return NULL;
	}
	if (fstat(fd, &sb)) {
		*rc = -errno;
		close(fd);
		return NULL;
	}
	if (!S_ISREG(sb.st_mode)) {
		*rc = S_ISDIR(sb.st_mode) ? -EISDIR : -EINVAL;
		close(fd);
		return NULL;
	}
	if (fcntl(fd, F_SETFL, 0) || !(f = fdopen(fd, "r"))) {
		*rc = -errno;
		close(fd);
		return NULL;
	}
	return f;
}

int ul_fsb_trace_load(struct ul_fsb_trace *t, const char *path, char *err, size_t errlen)
{
	char *line = NULL;
	size_t cap = 0;
	unsigned no = 0;
	ssize_t len;
	int rc = 0;
	FILE *f = open_regular(path, &rc);

	snprintf(t->source, sizeof(t->source), "%s", path);
	if (!f) {
		snprintf(err, errlen, "cannot read loadfile '%s': %s", path,
			 rc == -EINVAL ? "not a regular file" : strerror(-rc));
		return rc;
	}
	while (!rc && (len = getline(&line, &cap, f)) >= 0) {
		no++;
		if (len && line[len - 1] == '\n')
			line[len - 1] = '\0';
		rc = ul_fsb_trace_parse_line(t, line, no, err, errlen);
	}
	if (!rc && ferror(f)) {
		rc = -EIO;
		snprintf(err, errlen, "cannot read loadfile '%s': %s", path, strerror(EIO));
	}
	free(line);
	fclose(f);
	if (!rc && !t->n) {
		rc = -EINVAL;
		snprintf(err, errlen,
			 "%s: no operation in the loadfile (expected dbench 4 lines "
			 "such as 'NTCreateX \"\\\\file\" 0x0 0x2 1 NT_STATUS_OK')",
			 path);
	}
	return rc;
}

void ul_fsb_trace_totals(const struct ul_fsb_trace *t, struct ul_fsb_totals *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < t->n; i++) {
		const struct ul_fsb_op *op = &t->ops[i];

		out->ops[op->kind]++;
		if (!op->expect_ok)
			continue;
		if (op->kind == UL_FSB_READX)
			out->read_bytes += (uint64_t)op->arg[3];
		else if (op->kind == UL_FSB_WRITEX)
			out->write_bytes += (uint64_t)op->arg[3];
	}
}
