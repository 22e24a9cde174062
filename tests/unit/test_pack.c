/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * The packed form of a series (store/series_pack.c): the bytes are
 * little-endian on every host, a round trip keeps every value including
 * the extremes, and a length that is not whole values is refused; the
 * series grows through the model's one reserve.
 */
#include "unit.h"
#include "store/series_pack.h"

#include <errno.h>
#include <stdlib.h>

START_TEST(test_pack_is_little_endian)
{
	const int64_t v[] = { 0x0102030405060708LL, -2 };
	unsigned char b[16];
	const unsigned char want[16] = { 8,    7,    6,	   5,	 4,    3,    2,	   1,
					 0xfe, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	ck_assert_uint_eq(ul_series_packed_len(2), sizeof(b));
	ul_series_pack(v, 2, b);
	ck_assert_mem_eq(b, want, sizeof(b));
}
END_TEST

START_TEST(test_pack_round_trip_appends)
{
	const int64_t v[] = { INT64_MIN, -1, 0, 1, INT64_MAX, 123456789 };
	unsigned char b[sizeof(v)];
	struct ul_series s = { .name = "delay_ns" };

	ul_series_pack(v, 6, b);
	ck_assert_int_eq(ul_series_unpack(b, sizeof(b), &s), 0);
	ck_assert_int_eq(ul_series_unpack(b, 8, &s), 0); /* appends */
	ck_assert_uint_eq(s.n, 7);
	for (size_t i = 0; i < 6; i++)
		ck_assert(s.v[i] == v[i]);
	ck_assert(s.v[6] == INT64_MIN);
	ck_assert_str_eq(s.name, "delay_ns");
	free(s.v);
}
END_TEST

START_TEST(test_unpack_refuses_partial_value)
{
	unsigned char b[12] = { 0 };
	struct ul_series s = { 0 };

	ck_assert_int_eq(ul_series_unpack(b, sizeof(b), &s), -EINVAL);
	ck_assert_uint_eq(s.n, 0);
	ck_assert_ptr_null(s.v);
	ck_assert_int_eq(ul_series_unpack(b, 0, &s), 0);
	ck_assert_uint_eq(s.n, 0);
	free(s.v);
}
END_TEST

/* The one growth of a series (model): pushes and an unpack share it. */
START_TEST(test_series_reserve)
{
	struct ul_series s = { 0 };

	ck_assert_int_eq(ul_series_reserve(&s, 0), 0);
	ck_assert_ptr_null(s.v);
	ck_assert_int_eq(ul_series_push(&s, 7), 0);
	ck_assert_uint_eq(s.cap, 16);
	ck_assert_int_eq(ul_series_reserve(&s, 17), 0);
	ck_assert_uint_eq(s.cap, 32); /* doubles when that is enough */
	ck_assert_int_eq(ul_series_reserve(&s, 100), 0);
	ck_assert_uint_eq(s.cap, 100); /* else exactly what is needed */
	ck_assert_int_eq(ul_series_reserve(&s, SIZE_MAX / 4), -ENOMEM);
	ck_assert_uint_eq(s.cap, 100);
	ck_assert_uint_eq(s.n, 1);
	ck_assert(s.v[0] == 7);
	free(s.v);
}
END_TEST

Suite *ul_test_suite_pack(void)
{
	Suite *s = suite_create("pack");
	TCase *tc = tcase_create("pack");

	tcase_add_test(tc, test_pack_is_little_endian);
	tcase_add_test(tc, test_pack_round_trip_appends);
	tcase_add_test(tc, test_unpack_refuses_partial_value);
	tcase_add_test(tc, test_series_reserve);
	suite_add_tcase(s, tc);
	return s;
}
