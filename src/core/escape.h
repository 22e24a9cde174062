/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Escaping of untrusted strings (labels, notes, host names, arguments) for
 * a terminal or a one-record-per-line layout.  Every command prints stored
 * or user-given strings through here, so a label cannot clear the screen,
 * retitle the terminal or split a record over two lines.
 */
#ifndef UL_ESCAPE_H
#define UL_ESCAPE_H

#include "core/compat.h"

#include <stdio.h>

/*
 * Copy at most `cap` bytes of `s` (it stops at a NUL) into buf as text that
 * holds no control character: \n \r \t \\ and other C0 bytes and DEL as
 * "\n" "\r" "\t" "\\" "\xNN"; a byte that is not part of valid UTF-8 as
 * "\xNN"; C1 controls (U+0080..U+009F) and the bidirectional overrides
 * (U+202A..U+202E, U+2066..U+2069) as "\uNNNN".  Other valid UTF-8 passes
 * through.  Like snprintf: the result is always terminated (when len > 0),
 * never split inside an escape or a character, and the return value is
 * the length the whole escaped text needs.
 */
size_t ul_escape(char *buf, size_t len, const char *s, size_t cap);

/* ul_escape() into one of four rotating static buffers of 1 KiB (truncated
 * with "..."): up to four uses in one printf; not thread-safe. */
const char *ul_esc(const char *s);

/* Write s escaped to `out`; returns 0 or -EIO from the stream. */
int ul_fput_escaped(FILE *out, const char *s, size_t cap);

/*
 * Write at most `cap` bytes of `s` as one CSV field (RFC 4180), then ","
 * or, when `last`, the record's "\r\n".  The text is ul_escape()d first,
 * so a stored control character never reaches a spreadsheet raw: a newline
 * is the two characters \n, ESC is \x1b, a backslash is doubled (one
 * escape form for every command's CSV).  The field is then quoted when it
 * holds a comma or a double quote, a quote doubled inside.  Returns 0 or
 * -EIO (-ENOMEM) from the stream.
 */
int ul_csv_field(FILE *out, const char *s, size_t cap, bool last);

/* Length of the valid UTF-8 sequence at s[0..avail) (1..4), or 0 if the
 * bytes there are not valid UTF-8 (overlong, surrogate, > U+10FFFF, cut). */
size_t ul_utf8_len(const unsigned char *s, size_t avail);

/*
 * Copy at most `cap` bytes of `s` (it stops at a NUL; NULL is "") into buf
 * of `size` (> 0) bytes as valid UTF-8: a byte that is not part of a valid
 * sequence becomes '?', and truncation never cuts a character.  Control
 * characters stay (printers escape them).  For text read from a store,
 * which is untrusted: JSON and terminals need UTF-8.
 */
void ul_utf8_copy(char *buf, size_t size, const char *s, size_t cap);

/* Number of characters of s if it is valid UTF-8, or -1 if it is not. */
long ul_utf8_count(const char *s, size_t cap);

/*
 * The one check of a name people read (a run label, from `run --label`,
 * `relabel` or an imported file): 1..max bytes of valid UTF-8 without a
 * control character (C0, DEL or C1).  Returns 0, or -EINVAL with `why`
 * (for "WHAT must be ..." messages: it starts with a verb) filled.
 */
int ul_text_check(const char *s, size_t max, char *why, size_t whylen);

#endif
