/* SPDX-License-Identifier: GPL-2.0-or-later */
/* Control-character escaping and UTF-8 validation for untrusted strings. */
#include "core/compat.h"
#include "core/escape.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

size_t ul_utf8_len(const unsigned char *s, size_t avail)
{
	unsigned c = s[0];
	size_t n;
	unsigned cp;

	if (c < 0x80)
		return 1;
	if (c >= 0xc2 && c <= 0xdf)
		n = 2, cp = c & 0x1f;
	else if (c >= 0xe0 && c <= 0xef)
		n = 3, cp = c & 0x0f;
	else if (c >= 0xf0 && c <= 0xf4)
		n = 4, cp = c & 0x07;
	else
		return 0;
	if (avail < n)
		return 0;
	for (size_t i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		cp = cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, UTF-16 surrogates and code points past U+10FFFF. */
	if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)) ||
	    (cp >= 0xd800 && cp <= 0xdfff))
		return 0;
	return n;
}

/* The code point of a valid sequence of n bytes. */
static unsigned decode(const unsigned char *s, size_t n)
{
	static const unsigned char lead_mask[5] = { 0, 0x7f, 0x1f, 0x0f, 0x07 };
	unsigned cp = s[0] & lead_mask[n];

	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3f);
	return cp;
}

void ul_utf8_copy(char *buf, size_t size, const char *s, size_t cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t len = s ? strnlen(s, cap) : 0, out = 0;

	for (size_t k = 0; k < len;) {
		size_t n = ul_utf8_len(u + k, len - k);

		if (out + (n ? n : 1) >= size)
			break;
		if (n) {
			memcpy(buf + out, u + k, n);
			out += n;
			k += n;
		} else {
			buf[out++] = '?';
			k++;
		}
	}
	buf[out] = '\0';
}

long ul_utf8_count(const char *s, size_t cap)
{
	size_t len = strnlen(s, cap);
	long count = 0;

	for (size_t i = 0; i < len; count++) {
		size_t n = ul_utf8_len((const unsigned char *)s + i, len - i);

		if (!n)
			return -1;
		i += n;
	}
	return count;
}

int ul_text_check(const char *s, size_t max, char *why, size_t whylen)
{
	size_t len = strlen(s);

	if (!len || len > max) {
		snprintf(why, whylen, "must be 1 to %zu bytes (%zu given)", max, len);
		return -EINVAL;
	}
	for (size_t i = 0; i < len;) {
		size_t n = ul_utf8_len((const unsigned char *)s + i, len - i);
		unsigned cp = n ? decode((const unsigned char *)s + i, n) : 0;

		if (!n) {
			snprintf(why, whylen, "is not valid UTF-8");
			return -EINVAL;
		}
		if (cp < 0x20 || (cp >= 0x7f && cp < 0xa0)) {
			snprintf(why, whylen, "may not contain control characters");
			return -EINVAL;
		}
		i += n;
	}
	return 0;
}

static bool needs_u_escape(unsigned cp)
{
	return (cp >= 0x80 && cp <= 0x9f) || (cp >= 0x202a && cp <= 0x202e) ||
	       (cp >= 0x2066 && cp <= 0x2069);
}

/* The escape for one ASCII control byte or backslash into e (>= 5 bytes); its length. */
static size_t escape_ascii(unsigned char c, char *e)
{
	switch (c) {
	case '\n':
		return (size_t)snprintf(e, 5, "\\n");
	case '\r':
		return (size_t)snprintf(e, 5, "\\r");
	case '\t':
		return (size_t)snprintf(e, 5, "\\t");
	case '\\':
		return (size_t)snprintf(e, 5, "\\\\");
	default:
		return (size_t)snprintf(e, 5, "\\x%02x", c);
	}
}

size_t ul_escape(char *buf, size_t len, const char *s, size_t cap)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t slen = strnlen(s, cap), need = 0, out = 0;
	bool full = len == 0;

	for (size_t i = 0; i < slen;) {
		char e[8];
		const char *piece = e;
		size_t n = ul_utf8_len(u + i, slen - i), plen;

		if (n == 1 && (u[i] < 0x20 || u[i] == 0x7f || u[i] == '\\')) {
			plen = escape_ascii(u[i], e);
		} else if (n == 0) {
			plen = (size_t)snprintf(e, sizeof(e), "\\x%02x", u[i]);
			n = 1;
		} else if (needs_u_escape(decode(u + i, n))) {
			plen = (size_t)snprintf(e, sizeof(e), "\\u%04x", decode(u + i, n));
		} else {
			piece = s + i;
			plen = n;
		}
		i += n;
		need += plen;
		if (!full && out + plen < len) {
			memcpy(buf + out, piece, plen);
			out += plen;
		} else {
			full = true;
		}
	}
	if (len)
		buf[out] = '\0';
	return need;
}

const char *ul_esc(const char *s)
{
	static char bufs[4][1024];
	static unsigned next;
	char *buf = bufs[next++ % 4];

	if (ul_escape(buf, sizeof(bufs[0]), s, SIZE_MAX) >= sizeof(bufs[0]))
		memcpy(buf + sizeof(bufs[0]) - 4, "...", 4);
	return buf;
}

int ul_fput_escaped(FILE *out, const char *s, size_t cap)
{
	char small[512];
	size_t need = ul_escape(small, sizeof(small), s, cap);

	if (need < sizeof(small))
		return fputs(small, out) < 0 ? -EIO : 0;
	/* Long text: escape piece by piece so no allocation is needed. */
	for (size_t i = 0, len = strnlen(s, cap); i < len;) {
		size_t take = len - i < 64 ? len - i : 64;

		/* Do not cut a UTF-8 sequence: extend to its end (at most 3 bytes). */
		while (i + take < len && ((unsigned char)s[i + take] & 0xc0) == 0x80 && take < 68)
			take++;
		ul_escape(small, sizeof(small), s + i, take);
		if (fputs(small, out) < 0)
			return -EIO;
		i += take;
	}
	return 0;
}

int ul_csv_field(FILE *out, const char *s, size_t cap, bool last)
{
	char small[512], *text = small;
	size_t need = ul_escape(small, sizeof(small), s, cap);
	int bad = 0;

	if (need >= sizeof(small)) {
		text = malloc(need + 1);
		if (!text)
			return -ENOMEM;
		ul_escape(text, need + 1, s, cap);
	}
	if (strpbrk(text, ",\"")) {
		bad |= fputc('"', out) == EOF;
		for (const char *p = text; *p; p++)
			bad |= (*p == '"' && fputc('"', out) == EOF) || fputc(*p, out) == EOF;
		bad |= fputc('"', out) == EOF;
	} else {
		bad |= fputs(text, out) == EOF;
	}
	bad |= fputs(last ? "\r\n" : ",", out) == EOF;
	if (text != small)
		free(text);
	return bad ? -EIO : 0;
}
