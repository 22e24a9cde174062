/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Reading and parsing the /proc counters of a system sample.  The parsers
 * take the kernel's text as it is and never allocate, so the sampler child
 * can call them every 100 ms for hours.
 */
#include "core/compat.h"
#include "core/sysmon.h"
#include "core/clock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Large enough for /proc/stat of a big machine (its intr line grows with
 * the number of interrupts, a cpu line per CPU). */
#define SYSMON_BUF_LEN (512 * 1024)

static const char *const field_names[] = {
#define UL_SYSMON_NAME(id, name, src) UL_SYSMON_SERIES_PREFIX name,
	UL_SYSMON_FIELDS(UL_SYSMON_NAME)
#undef UL_SYSMON_NAME
};

static const char *const src_paths[UL_SYSMON_NSRC] = {
	[UL_SYSMON_STAT] = "/proc/stat",
	[UL_SYSMON_VMSTAT] = "/proc/vmstat",
	[UL_SYSMON_MEMINFO] = "/proc/meminfo",
	[UL_SYSMON_LOADAVG] = "/proc/loadavg",
	[UL_SYSMON_PSI_CPU] = "/proc/pressure/cpu",
	[UL_SYSMON_PSI_MEMORY] = "/proc/pressure/memory",
	[UL_SYSMON_PSI_IO] = "/proc/pressure/io",
};

const char *ul_sysmon_series_name(enum ul_sysmon_field f)
{
	return (unsigned)f < UL_SYSMON_NFIELDS ? field_names[f] : NULL;
}

/* --- parsing --- */

/* Unsigned decimal at *p (leading blanks skipped); advances *p.  False if
 * there is no digit.  Saturates instead of wrapping. */
static bool parse_u64(const char **p, uint64_t *out)
{
	const char *s = *p;
	uint64_t v = 0;

	while (*s == ' ' || *s == '\t')
		s++;
	if (*s < '0' || *s > '9')
		return false;
	for (; *s >= '0' && *s <= '9'; s++) {
		unsigned d = (unsigned)(*s - '0');

		v = v > (UINT64_MAX - d) / 10 ? UINT64_MAX : v * 10 + d;
	}
	*p = s;
	*out = v;
	return true;
}

/* "12.34" as 1234: a fixed-point number with at most two decimals kept
 * (more are truncated), as /proc/loadavg and PSI print them. */
static bool parse_centi(const char **p, uint64_t *out)
{
	uint64_t whole, frac = 0;
	int digits = 0;
	const char *s;

	if (!parse_u64(p, &whole))
		return false;
	s = *p;
	if (*s == '.') {
		for (s++; *s >= '0' && *s <= '9'; s++)
			if (digits < 2) {
				frac = frac * 10 + (uint64_t)(*s - '0');
				digits++;
			}
		if (digits == 1)
			frac *= 10;
	}
	*p = s;
	*out = whole * 100 + frac;
	return true;
}

/* The start of the line after p, or NULL at the end of the text. */
static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* True when line starts with key followed by a blank or ':'; *rest after it. */
static bool line_key(const char *line, const char *key, const char **rest)
{
	size_t n = strlen(key);

	if (strncmp(line, key, n) || (line[n] != ' ' && line[n] != ':' && line[n] != '\t'))
		return false;
	*rest = line + n + (line[n] == ':');
	return true;
}

static int parse_stat(const char *text, struct ul_sysmon_sample *s)
{
	static const enum ul_sysmon_field cpu_fields[] = {
		UL_SYSMON_CPU_USER,	  UL_SYSMON_CPU_NICE,	UL_SYSMON_CPU_SYSTEM,
		UL_SYSMON_CPU_IDLE,	  UL_SYSMON_CPU_IOWAIT, UL_SYSMON_CPU_IRQ,
		UL_SYSMON_CPU_SOFTIRQ,	  UL_SYSMON_CPU_STEAL,	UL_SYSMON_CPU_GUEST,
		UL_SYSMON_CPU_GUEST_NICE,
	};
	bool cpu = false;

	for (const char *l = text; l && *l; l = next_line(l)) {
		const char *r;

		if (line_key(l, "cpu", &r)) {
			/* Older kernels print fewer columns: the rest stay 0. */
			for (size_t i = 0; i < UL_ARRAY_SIZE(cpu_fields); i++)
				if (!parse_u64(&r, &s->v[cpu_fields[i]]))
					s->v[cpu_fields[i]] = 0;
			cpu = true;
		} else if (line_key(l, "intr", &r)) {
			(void)parse_u64(&r, &s->v[UL_SYSMON_INTR]);
		} else if (line_key(l, "ctxt", &r)) {
			(void)parse_u64(&r, &s->v[UL_SYSMON_CTXT]);
		} else if (line_key(l, "procs_running", &r)) {
			(void)parse_u64(&r, &s->v[UL_SYSMON_PROCS_RUNNING]);
		} else if (line_key(l, "procs_blocked", &r)) {
			(void)parse_u64(&r, &s->v[UL_SYSMON_PROCS_BLOCKED]);
		}
	}
	return cpu ? 0 : -EINVAL;
}

struct keyed {
	const char *key;
	enum ul_sysmon_field field;
};

/* "key value" lines (vmstat) or "Key:   value kB" lines (meminfo). */
static int parse_keyed(const char *text, const struct keyed *keys, size_t n,
		       struct ul_sysmon_sample *s)
{
	size_t found = 0;

	for (const char *l = text; l && *l && found < n; l = next_line(l))
		for (size_t i = 0; i < n; i++) {
			const char *r;

			if (line_key(l, keys[i].key, &r) && parse_u64(&r, &s->v[keys[i].field])) {
				found++;
				break;
			}
		}
	return found ? 0 : -EINVAL;
}

static int parse_vmstat(const char *text, struct ul_sysmon_sample *s)
{
	static const struct keyed keys[] = {
		{ "pswpin", UL_SYSMON_PSWPIN },		{ "pswpout", UL_SYSMON_PSWPOUT },
		{ "pgpgin", UL_SYSMON_PGPGIN },		{ "pgpgout", UL_SYSMON_PGPGOUT },
		{ "pgmajfault", UL_SYSMON_PGMAJFAULT }, { "pgfault", UL_SYSMON_PGFAULT },
	};

	return parse_keyed(text, keys, UL_ARRAY_SIZE(keys), s);
}

static int parse_meminfo(const char *text, struct ul_sysmon_sample *s)
{
	static const struct keyed keys[] = {
		{ "MemTotal", UL_SYSMON_MEM_TOTAL },
		{ "MemFree", UL_SYSMON_MEM_FREE },
		{ "MemAvailable", UL_SYSMON_MEM_AVAILABLE },
		{ "Buffers", UL_SYSMON_BUFFERS },
		{ "Cached", UL_SYSMON_CACHED },
		{ "SReclaimable", UL_SYSMON_SRECLAIMABLE },
		{ "SwapTotal", UL_SYSMON_SWAP_TOTAL },
		{ "SwapFree", UL_SYSMON_SWAP_FREE },
	};

	return parse_keyed(text, keys, UL_ARRAY_SIZE(keys), s);
}

/* "0.52 0.58 0.59 3/467 12345" */
static int parse_loadavg(const char *text, struct ul_sysmon_sample *s)
{
	const char *p = text;

	if (!parse_centi(&p, &s->v[UL_SYSMON_LOAD1]) || !parse_centi(&p, &s->v[UL_SYSMON_LOAD5]) ||
	    !parse_centi(&p, &s->v[UL_SYSMON_LOAD15]) ||
	    !parse_u64(&p, &s->v[UL_SYSMON_NR_RUNNING]) || *p != '/')
		return -EINVAL;
	p++;
	if (!parse_u64(&p, &s->v[UL_SYSMON_NR_THREADS]))
		return -EINVAL;
	return 0;
}

/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=4706" and a "full" line
 * (absent for cpu before 5.13, where it stays 0). */
static int parse_psi(const char *text, enum ul_sysmon_field some_avg10, struct ul_sysmon_sample *s)
{
	bool some = false;

	for (const char *l = text; l && *l; l = next_line(l)) {
		enum ul_sysmon_field avg10, total;
		const char *r, *q;

		if (line_key(l, "some", &r)) {
			avg10 = some_avg10;
		} else if (line_key(l, "full", &r)) {
			avg10 = some_avg10 + 2;
		} else {
			continue;
		}
		total = avg10 + 1;
		q = strstr(r, "avg10=");
		if (!q || (q += 6, !parse_centi(&q, &s->v[avg10])))
			return -EINVAL;
		q = strstr(r, "total=");
		if (!q || (q += 6, !parse_u64(&q, &s->v[total])))
			return -EINVAL;
		some |= avg10 == some_avg10;
	}
	return some ? 0 : -EINVAL;
}

int ul_sysmon_parse(enum ul_sysmon_src src, const char *text, struct ul_sysmon_sample *s)
{
	switch (src) {
	case UL_SYSMON_STAT:
		return parse_stat(text, s);
	case UL_SYSMON_VMSTAT:
		return parse_vmstat(text, s);
	case UL_SYSMON_MEMINFO:
		return parse_meminfo(text, s);
	case UL_SYSMON_LOADAVG:
		return parse_loadavg(text, s);
	case UL_SYSMON_PSI_CPU:
		return parse_psi(text, UL_SYSMON_PSI_CPU_SOME_AVG10, s);
	case UL_SYSMON_PSI_MEMORY:
		return parse_psi(text, UL_SYSMON_PSI_MEM_SOME_AVG10, s);
	case UL_SYSMON_PSI_IO:
		return parse_psi(text, UL_SYSMON_PSI_IO_SOME_AVG10, s);
	case UL_SYSMON_NSRC:
		break;
	}
	return -EINVAL;
}

/* --- reading --- */

int ul_sysmon_open(struct ul_sysmon *m)
{
	m->buf = NULL;
	m->buf_len = 0;
	for (int i = 0; i < UL_SYSMON_NSRC; i++)
		m->fd[i] = open(src_paths[i], O_RDONLY | O_CLOEXEC);
	if (m->fd[UL_SYSMON_STAT] < 0) {
		int err = -errno;

		ul_sysmon_close(m);
		return err;
	}
	m->buf_len = SYSMON_BUF_LEN;
	m->buf = malloc(m->buf_len);
	if (!m->buf) {
		ul_sysmon_close(m);
		return -ENOMEM;
	}
	return 0;
}

/*
 * Read a whole /proc file from offset 0 into the buffer (NUL-terminated).
 * pread() at 0 makes seq_file regenerate the text, so the fd is reused
 * from sample to sample without reopening.  0 or -errno.
 */
static int read_src(struct ul_sysmon *m, int fd)
{
	size_t got = 0;

	for (;;) {
		ssize_t n = pread(fd, m->buf + got, m->buf_len - 1 - got, (off_t)got);

		if (n < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		if (n == 0 || (got += (size_t)n) >= m->buf_len - 1)
			break; /* EOF, or a file larger than the buffer: parse what fits */
	}
	m->buf[got] = '\0';
	return 0;
}

uint32_t ul_sysmon_read(struct ul_sysmon *m, struct ul_sysmon_sample *s)
{
	memset(s, 0, sizeof(*s));
	s->t_ns = ul_now_ns();
	for (int i = 0; i < UL_SYSMON_NSRC; i++) {
		if (m->fd[i] < 0 || read_src(m, m->fd[i]))
			continue;
		if (ul_sysmon_parse((enum ul_sysmon_src)i, m->buf, s) == 0)
			s->have |= 1u << i;
	}
	return s->have;
}

void ul_sysmon_close(struct ul_sysmon *m)
{
	for (int i = 0; i < UL_SYSMON_NSRC; i++) {
		if (m->fd[i] >= 0)
			close(m->fd[i]);
		m->fd[i] = -1;
	}
	free(m->buf);
	m->buf = NULL;
	m->buf_len = 0;
}
