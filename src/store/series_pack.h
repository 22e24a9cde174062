/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The packed form of a series, shared by every store backend: n int64
 * values as 8n bytes, each value little-endian, in sampling order.  SQLite
 * keeps it in a BLOB, PostgreSQL in a bytea, so a series is one value
 * read or written in one statement whatever its length, and the bytes are
 * the same on every host whatever its byte order.
 */
#ifndef UL_STORE_SERIES_PACK_H
#define UL_STORE_SERIES_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "core/compat.h"
#include "model/model.h"

/* Bytes that n values take packed. */
static inline size_t ul_series_packed_len(size_t n)
{
	return n * sizeof(int64_t);
}

/* Packs v[0..n) into out, which holds ul_series_packed_len(n) bytes. */
void ul_series_pack(const int64_t *v, size_t n, unsigned char *out);

/*
 * Appends the len packed bytes at blob to s (s's name is left alone).
 * -EINVAL when len is not a whole number of values, -ENOMEM when s cannot
 * grow; s is unchanged on error.
 */
int ul_series_unpack(const void *blob, size_t len, struct ul_series *s) UL_MUST_CHECK;

#endif
