/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The gNB's AMF selection (amf_sel.c) on its own: the AMF serving the UE's GUAMI, another
 * AMF of the same set when that one is gone (TS 23.501 5.21.2.1), the weighting by Relative
 * AMF Capacity for a UE without a 5G-S-TMSI (6.3.5 case 1), any AMF for a GUAMI of a set the
 * gNB has none of (6.3.5 case 2), and nothing when no AMF is ready.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "tests/ransim/amf_sel.h"

/* PLMN 001/01 (TS 24.008 10.5.1.13 coding), region 0xca, set 0x3fe, pointer p */
static struct ngap_guami guami(uint16_t set, uint8_t pointer)
{
	struct ngap_guami g = { .plmn = { .v = { 0x00, 0xf1, 0x10 } }, .region = 0xca, .set_id = set,
				.pointer = pointer };

	return g;
}

/* AMFs 0..n-1: set 0x3fe (pointer i + 1) for the first `same` of them, set 0x001 after */
static void mkset(struct rs_amf_set *s, unsigned n, unsigned same, const uint8_t *cap)
{
	memset(s, 0, sizeof(*s));
	s->n = n;
	for (unsigned i = 0; i < n; i++) {
		s->e[i].ready = true;
		s->e[i].capacity = cap[i];
		s->e[i].n_guamis = 1;
		s->e[i].guamis[0] = guami(i < same ? 0x3fe : 0x001, (uint8_t)(i + 1));
	}
}

static void test_guami_match(void **state)
{
	static const uint8_t cap[] = { 10, 255, 10 };
	struct rs_amf_set s;
	struct ngap_guami g = guami(0x3fe, 3);
	enum rs_amf_how how = RS_SEL_HOW_COUNT;

	(void)state;
	mkset(&s, 3, 3, cap);
	/* the UE's pointer wins over capacity, every time, and spends no credit */
	for (int i = 0; i < 5; i++) {
		assert_int_equal(rs_amf_select(&s, &g, &how), 2);
		assert_int_equal(how, RS_SEL_GUAMI);
	}
	assert_int_equal(s.e[0].credit, 0);
	assert_int_equal(s.e[1].credit, 0);
	/* a second GUAMI served by AMF 0 is matched too */
	s.e[0].guamis[1] = guami(0x3fe, 9);
	s.e[0].n_guamis = 2;
	g = guami(0x3fe, 9);
	assert_int_equal(rs_amf_select(&s, &g, &how), 0);
	assert_int_equal(how, RS_SEL_GUAMI);
	/* another PLMN with the same region/set/pointer is not the same AMF: any by capacity */
	g = guami(0x3fe, 3);
	g.plmn.v[0] = 0x10;
	assert_int_equal(rs_amf_select(&s, &g, &how), 1);
	assert_int_equal(how, RS_SEL_ANY);
}

static void test_same_set_fallback(void **state)
{
	static const uint8_t cap[] = { 50, 100, 200, 255 };
	struct rs_amf_set s;
	struct ngap_guami g = guami(0x3fe, 1);
	enum rs_amf_how how;
	unsigned hits[4] = { 0 };

	(void)state;
	/* AMFs 0..2 of the UE's set, AMF 3 (the largest) of another */
	mkset(&s, 4, 3, cap);
	s.e[0].ready = false;   /* the UE's AMF is gone */
	for (int i = 0; i < 30; i++) {
		int k = rs_amf_select(&s, &g, &how);

		assert_true(k == 1 || k == 2);
		assert_int_equal(how, RS_SEL_SET);
		hits[k]++;
	}
	/* among the set by capacity 100:200, never the other set's AMF 3 */
	assert_int_equal(hits[1], 10);
	assert_int_equal(hits[2], 20);
	assert_int_equal(hits[3], 0);
	/* the whole set gone: any AMF (here only AMF 3) */
	s.e[1].ready = s.e[2].ready = false;
	assert_int_equal(rs_amf_select(&s, &g, &how), 3);
	assert_int_equal(how, RS_SEL_ANY);
	/* the UE's AMF back: chosen by GUAMI again */
	s.e[0].ready = true;
	assert_int_equal(rs_amf_select(&s, &g, &how), 0);
	assert_int_equal(how, RS_SEL_GUAMI);
}

static void test_capacity_weighting(void **state)
{
	static const uint8_t cap2[] = { 200, 100 };
	static const uint8_t cap3[] = { 1, 1, 2 };
	static const uint8_t zero[] = { 0, 30 };
	static const uint8_t zeros[] = { 0, 0 };
	struct rs_amf_set s;
	enum rs_amf_how how;
	unsigned hits[3] = { 0 };
	int seq[6];

	(void)state;
	mkset(&s, 2, 2, cap2);
	/* 20 UEs without a 5G-S-TMSI over 200:100: 13 and 7 (the first cycle A B A) */
	for (int i = 0; i < 20; i++) {
		int k = rs_amf_select(&s, NULL, &how);

		assert_int_equal(how, RS_SEL_CAPACITY);
		assert_true(k == 0 || k == 1);
		hits[k]++;
		if (i < 6)
			seq[i] = k;
	}
	assert_int_equal(hits[0], 13);
	assert_int_equal(hits[1], 7);
	/* smooth: never two of the smaller one in a row, the pattern A B A repeats */
	assert_int_equal(seq[0], 0);
	assert_int_equal(seq[1], 1);
	assert_int_equal(seq[2], 0);
	assert_int_equal(seq[3], 0);
	assert_int_equal(seq[4], 1);
	assert_int_equal(seq[5], 0);
	/* 1:1:2 over 400: exactly 100, 100, 200 */
	mkset(&s, 3, 3, cap3);
	memset(hits, 0, sizeof(hits));
	for (int i = 0; i < 400; i++)
		hits[rs_amf_select(&s, NULL, &how)]++;
	assert_int_equal(hits[0], 100);
	assert_int_equal(hits[1], 100);
	assert_int_equal(hits[2], 200);
	/* capacity 0 takes no new UE while another has some ... */
	mkset(&s, 2, 2, zero);
	for (int i = 0; i < 10; i++)
		assert_int_equal(rs_amf_select(&s, NULL, &how), 1);
	/* ... but when all announce 0 they share equally */
	mkset(&s, 2, 2, zeros);
	memset(hits, 0, sizeof(hits));
	for (int i = 0; i < 10; i++)
		hits[rs_amf_select(&s, NULL, &how)]++;
	assert_int_equal(hits[0], 5);
	assert_int_equal(hits[1], 5);
	/* an AMF that is not ready is skipped, its share goes to the others */
	mkset(&s, 3, 3, cap3);
	s.e[2].ready = false;
	memset(hits, 0, sizeof(hits));
	for (int i = 0; i < 10; i++)
		hits[rs_amf_select(&s, NULL, &how)]++;
	assert_int_equal(hits[0], 5);
	assert_int_equal(hits[1], 5);
	assert_int_equal(hits[2], 0);
}

static void test_none_left(void **state)
{
	static const uint8_t cap[] = { 10, 10 };
	struct rs_amf_set s;
	struct ngap_guami g = guami(0x3fe, 1);
	enum rs_amf_how how;

	(void)state;
	mkset(&s, 2, 2, cap);
	s.e[0].ready = s.e[1].ready = false;
	assert_int_equal(rs_amf_select(&s, &g, &how), -ENOENT);
	assert_int_equal(rs_amf_select(&s, NULL, &how), -ENOENT);
	s.n = 0;
	assert_int_equal(rs_amf_select(&s, NULL, &how), -ENOENT);
	s.n = RS_AMF_MAX + 1;
	assert_int_equal(rs_amf_select(&s, NULL, &how), -EINVAL);
	/* GUAMI helpers: same set differs from equal */
	struct ngap_guami a = guami(0x3fe, 1), b = guami(0x3fe, 2), c = guami(0x3fd, 1);

	assert_true(rs_guami_same_set(&a, &b));
	assert_false(rs_guami_eq(&a, &b));
	assert_false(rs_guami_same_set(&a, &c));
	assert_string_equal(rs_amf_how_name(RS_SEL_SET), "set");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_guami_match),
		cmocka_unit_test(test_same_set_fallback),
		cmocka_unit_test(test_capacity_weighting),
		cmocka_unit_test(test_none_left),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
