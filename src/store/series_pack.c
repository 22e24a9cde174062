/* SPDX-License-Identifier: GPL-2.0-or-later */
/* The packed form of a series (series_pack.h): little-endian int64s. */
#include "store/series_pack.h"

#include <endian.h>
#include <errno.h>
#include <string.h>

void ul_series_pack(const int64_t *v, size_t n, unsigned char *out)
{
	for (size_t i = 0; i < n; i++) {
		uint64_t le = htole64((uint64_t)v[i]);

		memcpy(out + i * sizeof(le), &le, sizeof(le));
	}
}

int ul_series_unpack(const void *blob, size_t len, struct ul_series *s)
{
	const unsigned char *p = blob;
	size_t n = len / sizeof(uint64_t);

	if (len % sizeof(uint64_t))
		return -EINVAL;
	if (n > SIZE_MAX / sizeof(int64_t) - s->n)
		return -ENOMEM;
	int r = ul_series_reserve(s, s->n + n);

	if (r)
		return r;
	for (size_t i = 0; i < n; i++) {
		uint64_t le;

		memcpy(&le, p + i * sizeof(le), sizeof(le));
		s->v[s->n++] = (int64_t)le64toh(le);
	}
	return 0;
}
