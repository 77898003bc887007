/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * common/aper unit tests: each primitive against hand-derived X.691 ALIGNED encodings (the clause is
 * named in each test), decode of the same octets, fragmentation, and errors with their bit offsets.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/aper/aper.h"

static uint8_t buf[200000];
static uint8_t big[200000];

/* Encode with fn into buf and compare with the expected octets. */
#define EXPECT_ENC(w, exp) do { \
		static const uint8_t e_[] = exp; \
		assert_int_equal(aper_w_len(&(w)), sizeof(e_)); \
		assert_memory_equal(buf, e_, sizeof(e_)); \
	} while (0)
#define B(...) { __VA_ARGS__ }

static void test_cint(void **state)
{
	struct aper_w w;
	struct aper_r r;
	int64_t v;

	(void)state;
	/* 11.5.7.2 range <= 255: minimal bit-field, not aligned. (0..7) 5 then (0..1) 1 -> 101 1 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_cint(&w, 0, 7, false, 5);
	aper_put_cint(&w, 0, 1, false, 1);
	EXPECT_ENC(w, B(0xb0));
	/* 11.5.7.3 range 256: one aligned octet; range <= 64K: two aligned octets */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits(&w, 1, 1);
	aper_put_cint(&w, 0, 255, false, 0x80);
	aper_put_cint(&w, 1, 65536, false, 0x1235);
	EXPECT_ENC(w, B(0x80, 0x80, 0x12, 0x34));
	aper_r_init(&r, buf, 4);
	assert_int_equal(aper_get_bits(&r, 1, &(uint64_t){ 0 }), 0);
	assert_int_equal(aper_get_cint(&r, 0, 255, false, &v), 0);
	assert_int_equal(v, 0x80);
	assert_int_equal(aper_get_cint(&r, 1, 65536, false, &v), 0);
	assert_int_equal(v, 0x1235);
	/* 11.5.7.4 indefinite length: AMF-UE-NGAP-ID (0..2^40-1): 3-bit octet count, aligned value */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_cint(&w, 0, 1099511627775LL, false, 1099511627775LL);
	EXPECT_ENC(w, B(0x80, 0xff, 0xff, 0xff, 0xff, 0xff));
	aper_r_init(&r, buf, 6);
	assert_int_equal(aper_get_cint(&r, 0, 1099511627775LL, false, &v), 0);
	assert_int_equal(v, 1099511627775LL);
	/* RAN-UE-NGAP-ID (0..2^32-1) value 1: 2-bit count 0, one octet */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_cint(&w, 0, 4294967295LL, false, 1);
	EXPECT_ENC(w, B(0x00, 0x01));
	/* 12.1 extensible, value outside the root: bit 1 then unconstrained (0..63,...) 100 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_cint(&w, 0, 63, true, 100);
	EXPECT_ENC(w, B(0x80, 0x01, 0x64));
	aper_r_init(&r, buf, 3);
	assert_int_equal(aper_get_cint(&r, 0, 63, true, &v), 0);
	assert_int_equal(v, 100);
	/* inside the root: bit 0 + 6 bits */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_cint(&w, 0, 63, true, 63);
	EXPECT_ENC(w, B(0x7e));
	/* out of range on encode */
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_cint(&w, 1, 15, false, 16), -EINVAL);
	assert_int_equal(aper_w_len(&w), -EINVAL);
}

static void test_cint_errors(void **state)
{
	struct aper_r r;
	int64_t v;
	static const uint8_t over[] = { 0xf0 };   /* (0..9) takes 4 bits: 15 > 9 */
	static const uint8_t cnt5[] = { 0xa0, 0, 0, 0, 0, 0, 0 }; /* count 6 > 5 octets */

	(void)state;
	aper_r_init(&r, over, 1);
	assert_int_equal(aper_get_cint(&r, 0, 9, false, &v), -ERANGE);
	assert_int_equal(r.err_bit, 0); /* the start of the field */
	assert_non_null(r.why);
	/* sticky */
	assert_int_equal(aper_get_bits(&r, 1, &(uint64_t){ 0 }), -ERANGE);
	aper_r_init(&r, cnt5, sizeof(cnt5));
	assert_int_equal(aper_get_cint(&r, 0, 1099511627775LL, false, &v), -EBADMSG);
	aper_r_init(&r, over, 1);
	assert_int_equal(aper_get_cint(&r, 0, 65535, false, &v), -EBADMSG); /* truncated */
	assert_int_equal(r.err_bit, 0); /* where the 16-bit field starts */
}

static void test_semi_unconstr_nsnn(void **state)
{
	struct aper_w w;
	struct aper_r r;
	int64_t v;
	uint64_t u;

	(void)state;
	/* 11.7 semi-constrained (lb 0) 256: length 2, 01 00 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_semi(&w, 0, 256);
	EXPECT_ENC(w, B(0x02, 0x01, 0x00));
	aper_r_init(&r, buf, 3);
	assert_int_equal(aper_get_semi(&r, 0, &v), 0);
	assert_int_equal(v, 256);
	/* 11.8 unconstrained: -1 -> 01 ff; 128 -> 02 00 80 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_unconstr(&w, -1);
	aper_put_unconstr(&w, 128);
	EXPECT_ENC(w, B(0x01, 0xff, 0x02, 0x00, 0x80));
	aper_r_init(&r, buf, 5);
	assert_int_equal(aper_get_unconstr(&r, &v), 0);
	assert_int_equal(v, -1);
	assert_int_equal(aper_get_unconstr(&r, &v), 0);
	assert_int_equal(v, 128);
	/* 11.6 normally small: 5 -> 0 000101; 100 -> 1, then semi-constrained 01 64 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_nsnn(&w, 5);
	EXPECT_ENC(w, B(0x0a));
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_nsnn(&w, 100);
	EXPECT_ENC(w, B(0x80, 0x01, 0x64));
	aper_r_init(&r, buf, 3);
	assert_int_equal(aper_get_nsnn(&r, &u), 0);
	assert_int_equal(u, 100);
}

static void test_lengths(void **state)
{
	struct aper_w w;
	struct aper_r r;
	size_t n;
	bool more;

	(void)state;
	/* 11.9.3.6/7 unbounded: 127 -> 7f, 128 -> 80 80, 16383 -> bf ff */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_len(&w, 0, APER_UNBOUNDED, 127);
	aper_put_len(&w, 0, APER_UNBOUNDED, 128);
	aper_put_len(&w, 0, APER_UNBOUNDED, 16383);
	EXPECT_ENC(w, B(0x7f, 0x80, 0x80, 0xbf, 0xff));
	aper_r_init(&r, buf, 5);
	aper_get_len(&r, 0, APER_UNBOUNDED, &n, &more);
	assert_int_equal(n, 127);
	aper_get_len(&r, 0, APER_UNBOUNDED, &n, &more);
	assert_int_equal(n, 128);
	aper_get_len(&r, 0, APER_UNBOUNDED, &n, &more);
	assert_int_equal(n, 16383);
	assert_false(more);
	assert_int_equal(r.err, 0);
	/* 11.9.4.1 ub < 64K: constrained number, e.g. SIZE(1..150) length 4 -> 8 bits 00000011 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_len(&w, 1, 150, 4);
	EXPECT_ENC(w, B(0x03));
	/* ub = 64K is not < 64K: unbounded form (maxnoofNGConnectionsToReset) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_count(&w, 1, 65536, 3);
	EXPECT_ENC(w, B(0x03));
	/* 16384 cannot go in one determinant */
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_len(&w, 0, APER_UNBOUNDED, 16384), -EINVAL);
	/* bad fragment header 0xc5 (m = 5) */
	static const uint8_t bad[] = { 0xc5 };
	aper_r_init(&r, bad, 1);
	assert_int_equal(aper_get_len(&r, 0, APER_UNBOUNDED, &n, &more), -EBADMSG);
	assert_int_equal(r.err_bit, 0);
	/* length above its constraint */
	static const uint8_t toolong[] = { 0xff };
	aper_r_init(&r, toolong, 1);
	assert_int_equal(aper_get_len(&r, 1, 150, &n, &more), -ERANGE);
}

static void check_frag(size_t n, const uint8_t *hdr, size_t nhdr, size_t first)
{
	struct aper_w w;
	struct aper_r r;
	size_t got;
	bool more;

	for (size_t i = 0; i < n; i++)
		big[i] = (uint8_t)(i * 7 + 3);
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_octets(&w, 0, APER_UNBOUNDED, false, big, n), 0);
	assert_memory_equal(buf, hdr, nhdr); /* first fragment header */
	/* decode by reference refuses fragments; the copying reader reassembles */
	aper_r_init(&r, buf, (size_t)aper_w_len(&w));
	{
		const uint8_t *p;
		size_t pn;

		assert_int_equal(aper_get_octets(&r, 0, APER_UNBOUNDED, false, &p, &pn), -ENOTSUP);
	}
	aper_r_init(&r, buf, (size_t)aper_w_len(&w));
	static uint8_t back[200000];
	assert_int_equal(aper_get_octets_copy(&r, 0, APER_UNBOUNDED, false, back, sizeof(back), &got), 0);
	assert_int_equal(got, n);
	assert_memory_equal(back, big, n);
	assert_int_equal(aper_r_left(&r), 0);
	/* the first length determinant announces `first` octets and more to come */
	aper_r_init(&r, buf, (size_t)aper_w_len(&w));
	aper_get_len(&r, 0, APER_UNBOUNDED, &got, &more);
	assert_int_equal(got, first);
	assert_true(more);
}

static void test_fragmentation(void **state)
{
	(void)state;
	/* 11.9.3.8: 16384 -> c1, 16K octets, then a closing 00 */
	check_frag(16384, (const uint8_t[]){ 0xc1 }, 1, 16384);
	assert_int_equal(buf[1 + 16384], 0x00);
	/* 70000 -> c4 (64K), then 4464 = 0x1170 in the 2-octet form 91 70 */
	check_frag(70000, (const uint8_t[]){ 0xc4 }, 1, 65536);
	assert_int_equal(buf[1 + 65536], 0x91);
	assert_int_equal(buf[2 + 65536], 0x70);
	/* 3 * 16K + 5 -> c3 ... 05 */
	check_frag(3 * 16384 + 5, (const uint8_t[]){ 0xc3 }, 1, 3 * 16384);
	assert_int_equal(buf[1 + 3 * 16384], 0x05);
}

static void test_open_type_fragmented(void **state)
{
	struct aper_w w;
	struct aper_w w2;
	size_t mark;
	static uint8_t ref[200000];

	(void)state;
	/* an open type of 20000 octets built in place must equal aper_put_octets of the same content */
	for (size_t i = 0; i < 20000; i++)
		big[i] = (uint8_t)(i ^ (i >> 8));
	aper_w_init(&w, buf, sizeof(buf));
	aper_open_begin(&w, &mark);
	for (size_t i = 0; i < 20000; i++)
		aper_put_bits(&w, big[i], 8);
	assert_int_equal(aper_open_end(&w, mark), 0);
	aper_w_init(&w2, ref, sizeof(ref));
	aper_put_octets(&w2, 0, APER_UNBOUNDED, false, big, 20000);
	assert_int_equal(aper_w_len(&w), aper_w_len(&w2));
	assert_memory_equal(buf, ref, (size_t)aper_w_len(&w));
	/* short open type: length 1 octet, empty becomes one zero octet (11.2) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_open_begin(&w, &mark);
	aper_open_end(&w, mark);
	EXPECT_ENC(w, B(0x01, 0x00));
	/* no room (one length octet is reserved at the start, so two value octets need three) */
	aper_w_init(&w, buf, 2);
	aper_open_begin(&w, &mark);
	aper_put_bits(&w, 0xffff, 16);
	assert_int_equal(w.err, -ENOSPC);
}

/* Open types built in place at the length-determinant edges (11.9.3.6-8: 1 octet below 128, 2 below
 * 16K, fragments from 16K): identical to aper_put_octets of the same content, after a prefix of 0..7
 * bits (the value is aligned); read back by aper_get_open. The writer fits in a buffer of exactly
 * the encoding's size (the 2-octet form is moved up into it) and not in one octet less. */
static void test_open_type_lengths(void **state)
{
	static const size_t lens[] = {1, 2, 127, 128, 129, 16383, 16384, 16385};
	static uint8_t ref[20000];

	(void)state;
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		for (unsigned pre = 0; pre < 8; pre++) {
			size_t n = lens[k], mark, sn;
			struct aper_w w, w2;
			struct aper_r r, sub;
			uint64_t x;
			int len;

			for (size_t i = 0; i < n; i++)
				big[i] = (uint8_t)(i * 7 + k);
			aper_w_init(&w, buf, sizeof(buf));
			aper_put_bits(&w, 0x7f >> (7 - pre), pre);
			aper_open_begin(&w, &mark);
			for (size_t i = 0; i < n; i++)
				aper_put_bits(&w, big[i], 8);
			assert_int_equal(aper_open_end(&w, mark), 0);
			aper_w_init(&w2, ref, sizeof(ref));
			aper_put_bits(&w2, 0x7f >> (7 - pre), pre);
			aper_put_octets(&w2, 0, APER_UNBOUNDED, false, big, n);
			len = aper_w_len(&w);
			assert_int_equal(len, aper_w_len(&w2));
			assert_memory_equal(buf, ref, (size_t)len);
			if (n < APER_FRAG) {
				aper_r_init(&r, buf, (size_t)len);
				assert_int_equal(aper_get_bits(&r, pre, &x), 0);
				assert_int_equal(aper_get_open(&r, &sub), 0);
				assert_int_equal(sub.len, n);
				assert_memory_equal(sub.buf, big, n);
				assert_int_equal(sub.base, (size_t)(len - (int)n) * 8);
				assert_int_equal(aper_r_left(&r), 0);
				/* one octet short: truncated, reported at the length determinant */
				aper_r_init(&r, buf, (size_t)len - 1);
				aper_get_bits(&r, pre, &x);
				assert_int_equal(aper_get_open(&r, &sub), -EBADMSG);
				assert_int_equal(r.err_bit, (size_t)(pre ? 8 : 0));
			}
			/* exact capacity fits; one octet less does not */
			for (int extra = 0; extra >= -1; extra--) {
				size_t cap = (size_t)((int)len + extra);

				aper_w_init(&w, buf, cap);
				aper_put_bits(&w, 0, pre);
				aper_open_begin(&w, &mark);
				for (size_t i = 0; i < n; i++)
					aper_put_bits(&w, big[i], 8);
				sn = (size_t)aper_open_end(&w, mark);
				if (extra == 0)
					assert_int_equal(aper_w_len(&w), len);
				else
					assert_int_equal((int)sn, -ENOSPC);
			}
		}
	}
	/* a 2-octet length cut after its first octet; a fragment header; both are errors, not values */
	{
		static const uint8_t cut[] = {0x80}, frag[] = {0xc1, 0x00};
		struct aper_r r, sub;

		aper_r_init(&r, cut, sizeof(cut));
		assert_int_equal(aper_get_open(&r, &sub), -EBADMSG);
		assert_int_equal(r.err_bit, 8);
		aper_r_init(&r, frag, sizeof(frag));
		assert_int_equal(aper_get_open(&r, &sub), -ENOTSUP);
		assert_int_equal(r.err_bit, 0);
	}
}

static void test_bool_enum_choice(void **state)
{
	struct aper_w w;
	struct aper_r r;
	unsigned v;
	bool b;

	(void)state;
	/* 12 BOOLEAN one bit; 14 ENUMERATED(3 root, ...) value 4 = extension index 1: 1 + nsnn 0000001 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bool(&w, true);
	aper_put_enum(&w, 3, true, 4);
	EXPECT_ENC(w, B(0xc0, 0x80));
	aper_r_init(&r, buf, 2);
	aper_get_bool(&r, &b);
	assert_true(b);
	assert_int_equal(aper_get_enum(&r, 3, true, &v), 0);
	assert_int_equal(v, 4);
	/* root value 2 of (3, ...): 0 10 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_enum(&w, 3, true, 2);
	EXPECT_ENC(w, B(0x40));
	/* not extensible: value beyond the root is an encoder error, a decoder range error */
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_enum(&w, 3, false, 3), -EINVAL);
	static const uint8_t three[] = { 0xc0 };
	aper_r_init(&r, three, 1);
	assert_int_equal(aper_get_enum(&r, 3, false, &v), -ERANGE);
	/* 23 CHOICE with extension marker: NGAP-PDU successfulOutcome = 0 01 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_choice(&w, 3, true, 1);
	EXPECT_ENC(w, B(0x20));
	/* CHOICE of one alternative without marker: no bits at all */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_choice(&w, 1, false, 0);
	assert_int_equal(aper_w_len(&w), 0);
}

static void test_bitstring(void **state)
{
	struct aper_w w;
	struct aper_r r;
	uint64_t v;
	uint8_t out[32];
	size_t n;

	(void)state;
	/* 16.9 fixed <= 16 bits, not aligned: a bit, then AMFSetID (10 bits) 0x3ff */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits(&w, 1, 1);
	aper_put_bits_fixed(&w, 10, false, 0x3ff);
	EXPECT_ENC(w, B(0xff, 0xe0));
	aper_r_init(&r, buf, 2);
	aper_get_bits(&r, 1, &v);
	assert_int_equal(aper_get_bits_fixed(&r, 10, false, &v), 0);
	assert_int_equal(v, 0x3ff);
	/* 16.10 fixed 17..64K bits: aligned (36-bit NR cell id after one bit) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits(&w, 1, 1);
	aper_put_bits_fixed(&w, 36, false, 0x123456789ULL);
	EXPECT_ENC(w, B(0x80, 0x12, 0x34, 0x56, 0x78, 0x90));
	/* 16.11 variable (22..32): 4-bit length, then aligned bits: gNB-ID 32 bits = 1 */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bitstr(&w, 22, 32, false, (const uint8_t[]){ 0, 0, 0, 1 }, 32);
	EXPECT_ENC(w, B(0xa0, 0x00, 0x00, 0x00, 0x01));
	aper_r_init(&r, buf, 5);
	assert_int_equal(aper_get_bitstr(&r, 22, 32, false, out, sizeof(out), &n), 0);
	assert_int_equal(n, 32);
	/* (SIZE(16, ...)) value of 16 bits: ext bit 0, then 16 bits (not aligned) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits_fixed(&w, 16, true, 0xe000);
	EXPECT_ENC(w, B(0x70, 0x00, 0x00));
	/* SIZE(1..160, ...) 32 bits: ext 0, 8-bit length 31, aligned */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bitstr(&w, 1, 160, true, (const uint8_t[]){ 10, 0, 0, 1 }, 32);
	EXPECT_ENC(w, B(0x0f, 0x80, 0x0a, 0x00, 0x00, 0x01));
	/* too long for the caller's buffer */
	aper_r_init(&r, buf, 6);
	assert_int_equal(aper_get_bitstr(&r, 1, 160, true, out, 2, &n), -E2BIG);
}

static void test_octets_strings(void **state)
{
	struct aper_w w;
	struct aper_r r;
	const uint8_t *p;
	size_t n;
	uint8_t c;

	(void)state;
	/* 17.6 fixed <= 2 octets: not aligned (S-NSSAI sST after 3 preamble bits) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits(&w, 0, 3);
	aper_put_octets(&w, 1, 1, false, (const uint8_t[]){ 0xff }, 1);
	EXPECT_ENC(w, B(0x1f, 0xe0));
	aper_r_init(&r, buf, 2);
	aper_get_bits(&r, 3, &(uint64_t){ 0 });
	assert_int_equal(aper_get_octets(&r, 1, 1, false, &p, &n), -ENOTSUP); /* cannot point at it */
	aper_r_init(&r, buf, 2);
	aper_get_bits(&r, 3, &(uint64_t){ 0 });
	assert_int_equal(aper_get_octets_copy(&r, 1, 1, false, &c, 1, &n), 0);
	assert_int_equal(c, 0xff);
	/* 17.7 fixed 3 octets: aligned (PLMN) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits(&w, 0, 1);
	aper_put_octets(&w, 3, 3, false, (const uint8_t[]){ 0x00, 0xf1, 0x10 }, 3);
	EXPECT_ENC(w, B(0x00, 0x00, 0xf1, 0x10));
	/* 17.8 unbounded: length then aligned octets, by reference into the input */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_bits(&w, 1, 1);
	aper_put_octets(&w, 0, APER_UNBOUNDED, false, (const uint8_t[]){ 0x7e, 0x00 }, 2);
	EXPECT_ENC(w, B(0x80, 0x02, 0x7e, 0x00));
	aper_r_init(&r, buf, 4);
	aper_get_bits(&r, 1, &(uint64_t){ 0 });
	assert_int_equal(aper_get_octets(&r, 0, APER_UNBOUNDED, false, &p, &n), 0);
	assert_ptr_equal(p, buf + 2);
	assert_int_equal(n, 2);
	/* 30 PrintableString (SIZE(1..150, ...)) "gnb1": ext 0, 8-bit length 3, aligned chars */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_string(&w, APER_PRINTABLE, 1, 150, true, (const uint8_t *)"gnb1", 4);
	EXPECT_ENC(w, B(0x01, 0x80, 'g', 'n', 'b', '1'));
	aper_r_init(&r, buf, 6);
	assert_int_equal(aper_get_string(&r, APER_PRINTABLE, 1, 150, true, &p, &n), 0);
	assert_int_equal(n, 4);
	assert_memory_equal(p, "gnb1", 4);
	/* alphabet: '@' is not printable; it is visible */
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_string(&w, APER_PRINTABLE, 1, 150, true, (const uint8_t *)"a@b", 3), -EINVAL);
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_string(&w, APER_VISIBLE, 1, 150, true, (const uint8_t *)"a@b", 3), 0);
	aper_r_init(&r, buf, (size_t)aper_w_len(&w));
	assert_int_equal(aper_get_string(&r, APER_PRINTABLE, 1, 150, true, &p, &n), -EBADMSG);
	assert_int_equal(r.err_bit, 24); /* the offending character */
	/* NUL is in no alphabet here */
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_string(&w, APER_PRINTABLE, 1, 150, true, (const uint8_t *)"a\0b", 3), -EINVAL);
	/* empty string where SIZE(1..) is required */
	aper_w_init(&w, buf, sizeof(buf));
	assert_int_equal(aper_put_string(&w, APER_PRINTABLE, 1, 150, false, (const uint8_t *)"", 0), -EINVAL);
	/* 30.6 UTF8String: unconstrained length in octets */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_utf8(&w, (const uint8_t *)"\xc3\xa9", 2);
	EXPECT_ENC(w, B(0x02, 0xc3, 0xa9));
	aper_r_init(&r, buf, 3);
	assert_int_equal(aper_get_utf8(&r, &p, &n), 0);
	assert_int_equal(n, 2);
}

static void test_sequence(void **state)
{
	struct aper_w w;
	struct aper_r r, sub;
	uint32_t mask;
	bool ext;
	size_t mark;

	(void)state;
	/* 19 preamble: ext bit, optional bitmap (bit i = optional i) */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_seq(&w, true, 3, 0x5);
	EXPECT_ENC(w, B(0x50));
	aper_r_init(&r, buf, 1);
	assert_int_equal(aper_get_seq(&r, true, 3, &ext, &mask), 0);
	assert_false(ext);
	assert_int_equal(mask, 0x5);
	/* extension additions (19.7-19.9): ext bit 1, nsnn(count-1 = 1), bitmap 11, two open types */
	static const uint8_t addl[] = { 0x81, 0xc0, 0x01, 0xaa, 0x02, 0xbb, 0xcc, 0x5a };
	aper_r_init(&r, addl, sizeof(addl));
	aper_get_seq(&r, true, 0, &ext, &mask);
	assert_true(ext);
	/* after the root (nothing here) the additions follow */
	assert_int_equal(aper_skip_seq_ext(&r), 0);
	assert_int_equal(r.pos, 7 * 8);
	/* SEQUENCE OF count and open type */
	aper_w_init(&w, buf, sizeof(buf));
	aper_put_count(&w, 0, 65535, 2);
	aper_open_begin(&w, &mark);
	aper_put_bits(&w, 0xab, 8);
	aper_open_end(&w, mark);
	EXPECT_ENC(w, B(0x00, 0x02, 0x01, 0xab));
	aper_r_init(&r, buf, 4);
	size_t n;
	aper_get_count(&r, 0, 65535, &n);
	assert_int_equal(n, 2);
	assert_int_equal(aper_get_open(&r, &sub), 0);
	assert_int_equal(sub.len, 1);
	assert_int_equal(sub.buf[0], 0xab);
	assert_int_equal(sub.base, 24);
	/* an error inside the sub-reader reports the absolute offset */
	int64_t v;
	aper_get_cint(&sub, 0, 65535, false, &v);
	assert_int_equal(sub.err, -EBADMSG);
	assert_int_equal(sub.err_bit, 24);
	assert_int_equal(aper_r_take(&r, &sub), -EBADMSG);
	assert_int_equal(r.err_bit, 24);
	/* open type longer than the input */
	static const uint8_t shortot[] = { 0x05, 0x01 };
	aper_r_init(&r, shortot, 2);
	assert_int_equal(aper_get_open(&r, &sub), -EBADMSG);
	assert_int_equal(r.err_bit, 0); /* at its length determinant */
}

static void test_writer_full(void **state)
{
	struct aper_w w;
	uint8_t small[2];

	(void)state;
	aper_w_init(&w, small, sizeof(small));
	aper_put_bits(&w, 0xffff, 16);
	assert_int_equal(aper_put_bits(&w, 1, 1), -ENOSPC);
	assert_int_equal(aper_w_len(&w), -ENOSPC);
	aper_w_init(&w, small, sizeof(small));
	assert_int_equal(aper_put_octets(&w, 0, APER_UNBOUNDED, false, (const uint8_t *)"abc", 3), -ENOSPC);
}

/* The word-at-a-time bit reader and writer against a one-bit-at-a-time reference: every start
 * offset 0..15 (unaligned ones included) and every width 1..64 (57/58 is where a field stops
 * fitting in 8 octets and is split), with an all-ones and a patterned value, read with the field at
 * the end of the input and with input after it; the writer must leave
 * the bits around the field as a bitwise writer would (earlier ones kept, later ones zero) and must
 * not touch octets past the field. */
static void ref_put(uint8_t *b, size_t pos, uint64_t v, unsigned n)
{
	for (unsigned i = 0; i < n; i++, pos++) {
		unsigned bit = (unsigned)(v >> (n - 1 - i)) & 1;

		if (!(pos & 7))
			b[pos >> 3] = 0;
		b[pos >> 3] |= (uint8_t)(bit << (7 - (pos & 7)));
	}
}

static void test_bits_offsets(void **state)
{
	static const uint64_t vals[] = {~UINT64_C(0), UINT64_C(0xa5c3f00f96e1d2b4), 0, 1};

	(void)state;
	for (unsigned off = 0; off < 16; off++) {
		for (unsigned n = 1; n <= 64; n++) {
			for (size_t k = 0; k < sizeof(vals) / sizeof(vals[0]); k++) {
				uint8_t got[24], want[24];
				uint64_t mask = n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << n) - 1, v, x;
				struct aper_w w;
				struct aper_r r;

				memset(got, 0xee, sizeof(got));
				memset(want, 0xee, sizeof(want));
				aper_w_init(&w, got, sizeof(got));
				assert_int_equal(aper_put_bits(&w, UINT64_C(0x5555) >> (16 - off), off), 0);
				ref_put(want, 0, UINT64_C(0x5555) >> (16 - off), off);
				assert_int_equal(aper_put_bits(&w, vals[k], n), 0);
				ref_put(want, off, vals[k], n);
				assert_int_equal(w.pos, off + n);
				assert_memory_equal(got, want, sizeof(got)); /* incl. the untouched 0xee tail */
				aper_r_init(&r, got, (off + n + 7) / 8);
				assert_int_equal(aper_get_bits(&r, off, &x), 0);
				assert_int_equal(aper_get_bits(&r, n, &v), 0);
				assert_true(v == (vals[k] & mask));
				assert_int_equal(r.pos, off + n);
				assert_int_equal(aper_get_bits(&r, 8, &x), -EBADMSG); /* past the end */
				/* the same with input after the field (the reader's word-load path) */
				aper_r_init(&r, got, sizeof(got));
				assert_int_equal(aper_get_bits(&r, off, &x), 0);
				assert_int_equal(aper_get_bits(&r, n, &v), 0);
				assert_true(v == (vals[k] & mask));
			}
		}
	}
}

/* SEQUENCE preambles (19.1-19.3) of 0..32 optional fields, with and without the extension bit, at
 * every bit offset: optional field i is the i-th bit after the extension bit (checked one bit at a
 * time), and reads back to the same mask; cut short, the error is at the bit where input ends. */
static void test_seq_preamble_widths(void **state)
{
	(void)state;
	for (unsigned nopt = 0; nopt <= 32; nopt++) {
		for (unsigned ext = 0; ext < 2; ext++) {
			for (unsigned off = 0; off < 8; off++) {
				uint32_t mask = (uint32_t)(UINT64_C(0x9e3779b97f4a7c15) >> (nopt + off)), got;
				uint8_t b[8] = {0};
				struct aper_w w;
				struct aper_r r;
				uint64_t x;
				bool e;

				if (nopt < 32)
					mask &= (UINT32_C(1) << nopt) - 1;
				aper_w_init(&w, b, sizeof(b));
				aper_put_bits(&w, 0, off);
				assert_int_equal(aper_put_seq(&w, ext, nopt, mask), 0);
				assert_int_equal(w.pos, off + ext + nopt);
				aper_r_init(&r, b, sizeof(b));
				aper_get_bits(&r, off + ext, &x);
				assert_true(x == 0); /* prefix zero, extension bit 0 (we send no additions) */
				for (unsigned i = 0; i < nopt; i++) {
					assert_int_equal(aper_get_bits(&r, 1, &x), 0);
					assert_int_equal((unsigned)x, (mask >> i) & 1);
				}
				/* read back, and with the extension bit set by hand */
				if (ext)
					b[off / 8] |= (uint8_t)(0x80 >> (off % 8));
				aper_r_init(&r, b, (off + ext + nopt + 7) / 8);
				aper_get_bits(&r, off, &x);
				assert_int_equal(aper_get_seq(&r, ext, nopt, &e, &got), 0);
				assert_true(got == mask);
				assert_int_equal(e, (bool)ext);
				assert_int_equal(r.pos, off + ext + nopt);
				if (off + ext + nopt >= 8 && (off + ext + nopt) % 8) {
					/* input ends before the last optional bits: error where the field that
					 * does not fit starts (the optional bits, after the extension bit) */
					size_t have = (off + ext + nopt) / 8;

					aper_r_init(&r, b, have);
					aper_get_bits(&r, off, &x);
					if (have * 8 >= off + ext) {
						assert_int_equal(aper_get_seq(&r, ext, nopt, &e, &got), -EBADMSG);
						assert_int_equal(r.err_bit, off + ext);
						assert_int_equal(e, (bool)ext);
					}
				}
			}
		}
	}
}

/* Fixed-size BIT STRINGs as numbers (1..64 bits) and fixed-size OCTET STRINGs (3..9 octets), the
 * writers' and readers' direct paths against the general BIT/OCTET STRING ones, after 0..7 prefix
 * bits (16.9/16.10: aligned only above 16 bits; 17.7: fixed 3+ octets aligned), and truncated. */
static void test_fixed_sizes(void **state)
{
	(void)state;
	for (unsigned pre = 0; pre < 8; pre++) {
		for (unsigned n = 1; n <= 64; n++) {
			uint64_t v = UINT64_C(0xfedcba9876543210) >> (64 - n), x, y;
			uint8_t a[16], b[16], bits[8];
			struct aper_w w, w2;
			struct aper_r r;
			size_t got;

			for (unsigned i = 0; i < 8; i++)
				bits[i] = (uint8_t)((n < 64 ? v << (64 - n) : v) >> (56 - 8 * i));
			aper_w_init(&w, a, sizeof(a));
			aper_w_init(&w2, b, sizeof(b));
			aper_put_bits(&w, 1, pre);
			aper_put_bits(&w2, 1, pre);
			assert_int_equal(aper_put_bits_fixed(&w, n, false, v), 0);
			assert_int_equal(aper_put_bitstr(&w2, n, n, false, bits, n), 0);
			assert_int_equal(w.pos, w2.pos);
			assert_memory_equal(a, b, (w.pos + 7) / 8);
			aper_r_init(&r, a, (w.pos + 7) / 8);
			aper_get_bits(&r, pre, &x);
			assert_int_equal(aper_get_bits_fixed(&r, n, false, &y), 0);
			assert_true(y == v);
			assert_int_equal(r.pos, w.pos);
			/* one octet short: the same error as the general reader */
			if (w.pos >= 8) {
				struct aper_r r2;
				uint8_t buf2[8];

				aper_r_init(&r, a, (w.pos + 7) / 8 - 1);
				aper_get_bits(&r, pre, &x);
				aper_r_init(&r2, a, (w.pos + 7) / 8 - 1);
				aper_get_bits(&r2, pre, &x);
				aper_get_bits_fixed(&r, n, false, &y);
				aper_get_bitstr(&r2, n, n, false, buf2, sizeof(buf2), &got);
				assert_int_equal(r.err, r2.err);
				assert_int_equal(r.err_bit, r2.err_bit);
				assert_string_equal(r.why, r2.why);
			}
		}
		for (size_t n = 3; n <= 9; n++) {
			static const uint8_t val[9] = {1, 2, 3, 4, 5, 6, 7, 8, 9};
			uint8_t a[16], out[9];
			const uint8_t *ref;
			struct aper_w w;
			struct aper_r r;
			size_t got;
			uint64_t x;

			aper_w_init(&w, a, sizeof(a));
			aper_put_bits(&w, 1, pre);
			assert_int_equal(aper_put_octets(&w, (int64_t)n, (int64_t)n, false, val, n), 0);
			assert_int_equal(w.pos, (pre ? 8 : 0) + n * 8); /* aligned, no length */
			assert_memory_equal(a + (pre ? 1 : 0), val, n);
			aper_r_init(&r, a, w.pos / 8);
			aper_get_bits(&r, pre, &x);
			assert_int_equal(aper_get_octets_copy(&r, (int64_t)n, (int64_t)n, false, out, n, &got), 0);
			assert_int_equal(got, n);
			assert_memory_equal(out, val, n);
			aper_r_init(&r, a, w.pos / 8); /* the by-reference reader agrees */
			aper_get_bits(&r, pre, &x);
			assert_int_equal(aper_get_octets(&r, (int64_t)n, (int64_t)n, false, &ref, &got), 0);
			assert_int_equal(got, n);
			assert_memory_equal(ref, val, n);
			/* too small a buffer, truncated input, no room */
			aper_r_init(&r, a, w.pos / 8);
			aper_get_bits(&r, pre, &x);
			assert_int_equal(aper_get_octets_copy(&r, (int64_t)n, (int64_t)n, false, out, n - 1, &got), -E2BIG);
			aper_r_init(&r, a, w.pos / 8 - 1);
			aper_get_bits(&r, pre, &x);
			assert_int_equal(aper_get_octets_copy(&r, (int64_t)n, (int64_t)n, false, out, n, &got), -EBADMSG);
			assert_int_equal(r.err_bit, pre ? 8 : 0);
			assert_int_equal(got, 0);
			aper_w_init(&w, a, (pre ? 1 : 0) + n - 1);
			aper_put_bits(&w, 1, pre);
			assert_int_equal(aper_put_octets(&w, (int64_t)n, (int64_t)n, false, val, n), -ENOSPC);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cint),
		cmocka_unit_test(test_cint_errors),
		cmocka_unit_test(test_semi_unconstr_nsnn),
		cmocka_unit_test(test_lengths),
		cmocka_unit_test(test_fragmentation),
		cmocka_unit_test(test_open_type_fragmented),
		cmocka_unit_test(test_bool_enum_choice),
		cmocka_unit_test(test_bitstring),
		cmocka_unit_test(test_octets_strings),
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_writer_full),
		cmocka_unit_test(test_bits_offsets),
		cmocka_unit_test(test_open_type_lengths),
		cmocka_unit_test(test_seq_preamble_widths),
		cmocka_unit_test(test_fixed_sizes),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
