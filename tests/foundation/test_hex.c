/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* common/hex.h: digits, decoding (good, odd length, bad digit, output too small), encoding. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "common/hex.h"

static void test_digit(void **state)
{
	(void)state;
	assert_int_equal(hex_digit('0'), 0);
	assert_int_equal(hex_digit('9'), 9);
	assert_int_equal(hex_digit('a'), 10);
	assert_int_equal(hex_digit('F'), 15);
	/* Neighbours of the ranges, and characters that |0x20 folds onto a letter's code. */
	static const char bad[] = "/:@G`g Zz\x01\x7f";
	for (size_t i = 0; i < sizeof(bad) - 1; i++)
		assert_int_equal(hex_digit((unsigned char)bad[i]), -1);
	assert_int_equal(hex_digit(0x80 | 'a'), -1);
	assert_int_equal(hex_digit(-1), -1);
	assert_int_equal(hex_char(10, false), 'a');
	assert_int_equal(hex_char(0x1b, true), 'B');
}

static void test_decode_good(void **state)
{
	uint8_t out[8];

	(void)state;
	memset(out, 0xee, sizeof(out));
	assert_int_equal(hex_decode(out, sizeof(out), "00a1FfC3", 8), 4);
	assert_memory_equal(out, "\x00\xa1\xff\xc3\xee", 5);
	assert_int_equal(hex_decode(out, 0, "", 0), 0);
	/* Exactly full. */
	assert_int_equal(hex_decode(out, 2, "1234", 4), 2);
	assert_memory_equal(out, "\x12\x34", 2);
	/* hexlen bounds what is read: the text after it is not looked at. */
	assert_int_equal(hex_decode(out, sizeof(out), "abZZ", 2), 1);
	assert_int_equal(out[0], 0xab);
}

static void test_decode_odd(void **state)
{
	uint8_t out[8];

	(void)state;
	assert_int_equal(hex_decode(out, sizeof(out), "abc", 3), -EINVAL);
	assert_int_equal(hex_decode(out, sizeof(out), "a", 1), -EINVAL);
}

static void test_decode_bad_digit(void **state)
{
	uint8_t out[8];

	(void)state;
	assert_int_equal(hex_decode(out, sizeof(out), "0g", 2), -EINVAL);
	assert_int_equal(hex_decode(out, sizeof(out), "g0", 2), -EINVAL);
	assert_int_equal(hex_decode(out, sizeof(out), "00 1", 4), -EINVAL);
	assert_int_equal(hex_decode(out, sizeof(out), "0x12", 4), -EINVAL);
	assert_int_equal(hex_decode(out, sizeof(out), "12\0" "3", 4), -EINVAL);
}

static void test_decode_overflow(void **state)
{
	uint8_t out[4] = { 1, 2, 3, 4 };

	(void)state;
	assert_int_equal(hex_decode(out, 2, "112233", 6), -ENOSPC);
	assert_int_equal(hex_decode(out, 0, "11", 2), -ENOSPC);
	/* Nothing written past outsz, nothing written at all when it does not fit. */
	assert_memory_equal(out, "\x01\x02\x03\x04", 4);
}

/* Exactly n bytes or nothing: what keys (16), SQN (6) and SD (3) need. */
static void test_decode_exact(void **state)
{
	uint8_t b[3] = { 0 };

	(void)state;
	assert_int_equal(hex_decode_exact(b, 3, "0aBcDe", 6), 0);
	assert_int_equal(b[0], 0x0a);
	assert_int_equal(b[1], 0xbc);
	assert_int_equal(b[2], 0xde);
	assert_int_equal(hex_decode_exact(b, 3, "0aBcD", 5), -EINVAL);      /* odd */
	assert_int_equal(hex_decode_exact(b, 3, "0aBc", 4), -EINVAL);       /* short */
	assert_int_equal(hex_decode_exact(b, 3, "0aBcDeF0", 8), -EINVAL);   /* long */
	assert_int_equal(hex_decode_exact(b, 3, "0aBcDg", 6), -EINVAL);     /* bad digit */
	assert_int_equal(hex_decode_exact(b, 0, "", 0), 0);
}

static void test_encode(void **state)
{
	static const uint8_t b[] = { 0x00, 0x9f, 0xa0, 0xff };
	char out[9];

	(void)state;
	assert_int_equal(hex_encode(out, sizeof(out), b, 4, false), 8);
	assert_string_equal(out, "009fa0ff");
	assert_int_equal(hex_encode(out, sizeof(out), b, 4, true), 8);
	assert_string_equal(out, "009FA0FF");
	assert_int_equal(hex_encode(out, 1, b, 0, false), 0);
	assert_string_equal(out, "");
	/* One byte short of the NUL: refused, out untouched. */
	memcpy(out, "xxxxxxxx", 9);
	assert_int_equal(hex_encode(out, 8, b, 4, false), -ENOSPC);
	assert_int_equal(hex_encode(out, 0, b, 0, false), -ENOSPC);
	assert_string_equal(out, "xxxxxxxx");
	/* Round trip. */
	uint8_t back[4];
	assert_int_equal(hex_encode(out, sizeof(out), b, 4, true), 8);
	assert_int_equal(hex_decode(back, sizeof(back), out, 8), 4);
	assert_memory_equal(back, b, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_digit),
		cmocka_unit_test(test_decode_good),
		cmocka_unit_test(test_decode_odd),
		cmocka_unit_test(test_decode_bad_digit),
		cmocka_unit_test(test_decode_exact),
		cmocka_unit_test(test_decode_overflow),
		cmocka_unit_test(test_encode),
	};
	return cmocka_run_group_tests_name("hex", tests, NULL, NULL);
}
