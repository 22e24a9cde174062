/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Reading a journal file back; the format and contracts: journal_parse.h. */
#include "proc/journal_parse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_JOURNAL_BYTES (4 * UL_MiB)

void ul_journal_parsed_free(struct ul_journal_parsed *p)
{
	free(p->buf);
	free(p->e);
	memset(p, 0, sizeof(*p));
}

/* A "done|retired|failed KIND ARG" line: applies to the latest matching pending entry. */
static void settle(struct ul_journal_parsed *p, const char *what, char *rest)
{
	char *sp = strchr(rest, ' ');

	if (!sp)
		return;
	*sp = '\0';
	for (size_t i = p->n; i-- > 0;) {
		struct ul_journal_entry *e = &p->e[i];

		if (e->state != UL_JOURNAL_PENDING || strcmp(e->kind, rest) ||
		    strcmp(e->arg, sp + 1))
			continue;
		if (!strcmp(what, "done"))
			e->state = UL_JOURNAL_DONE;
		else if (!strcmp(what, "retired"))
			e->state = UL_JOURNAL_RETIRED;
		else
			e->failures++;
		return;
	}
}

/*
 * Read the whole journal into p->buf, NUL-terminated and cut after its
 * last newline (a torn last line, from a crash mid-append, is dropped);
 * p->good_bytes is what is kept.  0, -EFBIG, -ENOMEM, -EINVAL (not one
 * complete line) or -errno; p->buf may be set on failure.
 */
static int read_lines(int fd, struct ul_journal_parsed *p)
{
	struct stat st;
	size_t got = 0;
	char *end;

	if (fstat(fd, &st) < 0)
		return -errno;
	if (st.st_size > (off_t)MAX_JOURNAL_BYTES)
		return -EFBIG;
	p->buf = malloc((size_t)st.st_size + 1);
	if (!p->buf)
		return -ENOMEM;
	while (got < (size_t)st.st_size) {
		ssize_t n = pread(fd, p->buf + got, (size_t)st.st_size - got, (off_t)got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	p->buf[got] = '\0';
	end = memrchr(p->buf, '\n', got);
	if (!end)
		return -EINVAL;
	p->good_bytes = (size_t)(end - p->buf) + 1;
	end[1] = '\0';
	return 0;
}

/* The header line "underload-journal 1 PID START [BOOT]" into p->pid,
 * p->start and p->boot ("" without one); -EINVAL when it is not one. */
static int parse_header(const char *line, struct ul_journal_parsed *p)
{
	char boot[UL_JOURNAL_BOOT_LEN + 1] = "";
	uint64_t start;
	int pid, n;

	if (strncmp(line, UL_JOURNAL_HEADER, strlen(UL_JOURNAL_HEADER)))
		return -EINVAL;
	n = sscanf(line + strlen(UL_JOURNAL_HEADER), "%d %" SCNu64 " %40s", &pid, &start, boot);
	if (n < 2)
		return -EINVAL;
	n = snprintf(p->boot, sizeof(p->boot), "%s", boot);
	if (n < 0 || (size_t)n >= sizeof(p->boot))
		return -EINVAL; /* longer than a boot id */
	p->pid = pid;
	p->start = start;
	return 0;
}

/* Append a pending entry (kind and arg point into p->buf); 0 or -ENOMEM. */
static int add_entry(struct ul_journal_parsed *p, size_t *cap, const char *kind, const char *arg)
{
	if (p->n == *cap) {
		size_t ncap = *cap ? *cap * 2 : 16;
		struct ul_journal_entry *ne = realloc(p->e, ncap * sizeof(*ne));

		if (!ne)
			return -ENOMEM;
		p->e = ne;
		*cap = ncap;
	}
	p->e[p->n++] = (struct ul_journal_entry){ .kind = kind, .arg = arg };
	return 0;
}

/*
 * The record lines from line on, each ending in a newline: "KIND ARG"
 * adds a pending entry, "done|retired|failed KIND ARG" settles one, "at
 * ARG" says where the run is; a line without a space is no record and
 * skipped.  0 or -ENOMEM.
 */
static int parse_records(char *line, struct ul_journal_parsed *p)
{
	size_t cap = 0;

	for (char *end; *line; line = end + 1) {
		char *sp;
		int rc;

		end = strchr(line, '\n');
		if (!end)
			break;
		*end = '\0';
		sp = strchr(line, ' ');
		if (!sp)
			continue;
		*sp = '\0';
		if (!strcmp(line, "done") || !strcmp(line, "retired") || !strcmp(line, "failed")) {
			settle(p, line, sp + 1);
			continue;
		}
		if (!strcmp(line, "at")) {
			p->where = sp + 1;
			continue;
		}
		rc = add_entry(p, &cap, line, sp + 1);
		if (rc)
			return rc;
	}
	return 0;
}

int ul_journal_parse(int fd, struct ul_journal_parsed *p)
{
	char *end = NULL;
	int rc;

	memset(p, 0, sizeof(*p));
	rc = read_lines(fd, p);
	if (!rc) {
		end = strchr(p->buf, '\n'); /* read_lines() left at least one */
		*end = '\0';
		rc = parse_header(p->buf, p);
	}
	if (!rc)
		rc = parse_records(end + 1, p);
	if (rc)
		ul_journal_parsed_free(p);
	return rc;
}

size_t ul_journal_pending(const struct ul_journal_parsed *p)
{
	size_t n = 0;

	for (size_t i = 0; i < p->n; i++)
		n += p->e[i].state == UL_JOURNAL_PENDING;
	return n;
}
