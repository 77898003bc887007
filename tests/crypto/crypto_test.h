/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Small helpers shared by the crypto tests (vector loading with a clear failure message). */
#ifndef SOLOCORE_TESTS_CRYPTO_TEST_H
#define SOLOCORE_TESTS_CRYPTO_TEST_H

#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "testlib.h"

/* Open a vector file or fail the test. */
static inline struct tv_file *ct_open(const char *name)
{
	struct tv_file *f = tv_open(name);

	if (!f)
		fail_msg("cannot open vector file %s", name);
	return f;
}

/* Hex field of exactly want octets (want 0 = any length >= 0); returns the length. */
static inline int ct_hex(const struct tv_file *f, int sec, const char *key, uint8_t *out,
			 size_t cap, int want)
{
	int n = tv_hex(f, sec, key, out, cap);

	if (n < 0 || (want && n != want))
		fail_msg("[%s] %s: bad or missing hex (got %d, want %d)", tv_section_name(f, sec), key,
			 n, want);
	return n;
}

static inline unsigned long ct_num(const struct tv_file *f, int sec, const char *key, int base)
{
	const char *v = tv_get(f, sec, key);
	char *end;
	unsigned long n;

	if (!v)
		fail_msg("[%s] %s missing", tv_section_name(f, sec), key);
	n = strtoul(v, &end, base);
	if (end == v)
		fail_msg("[%s] %s: not a number: %s", tv_section_name(f, sec), key, v);
	return n;
}

static inline const char *ct_str(const struct tv_file *f, int sec, const char *key)
{
	const char *v = tv_get(f, sec, key);

	if (!v)
		fail_msg("[%s] %s missing", tv_section_name(f, sec), key);
	return v;
}

static inline int ct_sec(const struct tv_file *f, const char *name)
{
	int s = tv_find(f, name);

	if (s < 0)
		fail_msg("section [%s] missing", name);
	return s;
}

/* Compare the first bits bits of a and b (MSB first). */
static inline void ct_bits_equal(const uint8_t *a, const uint8_t *b, size_t bits, const char *what)
{
	size_t n = bits / 8;

	if (memcmp(a, b, n))
		fail_msg("%s: octets differ", what);
	if (bits % 8) {
		uint8_t m = (uint8_t)(0xff00u >> (bits % 8));

		if ((a[n] ^ b[n]) & m)
			fail_msg("%s: last partial octet differs", what);
	}
}

#define CT_MEM(a, b, n, what)                                                                      \
	do {                                                                                       \
		if (memcmp((a), (b), (n)))                                                          \
			fail_msg("%s mismatch", (what));                                           \
	} while (0)

#endif
