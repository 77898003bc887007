/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The observation API of amf.h for the web API: gNB walk (identity, state, TACs, slices),
 * UE walk with a resumable cursor (SUPI, 5G-GUTI, 5GMM / CM state, gNB, PDU sessions),
 * the counter table, and no allocator call from any of them.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"
#include "testlib.h"

#define ASSOC_A 7
#define ASSOC_B 9
#define ASSOC_C 11   /* SCTP up, no NG Setup */

static struct h H;

static int setup(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_add_sub(&H, "imsi-001010000000002", 1, 0x010203, 0);
	h_add_sub(&H, "imsi-001010000000003", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC_A);
	h_ng_setup(&H, ASSOC_B);
	amf_n2_assoc_up(H.amf, ASSOC_C, 2, 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_fini(&H);
	return 0;
}

struct gnb_seen {
	unsigned n, stop_after;
	struct amf_gnb_info g[4];
	char names[4][AMF_NAME_MAX];
};

static int gnb_cb(const struct amf_gnb_info *g, void *arg)
{
	struct gnb_seen *s = arg;

	if (s->n < 4) {
		s->g[s->n] = *g;
		snprintf(s->names[s->n], sizeof(s->names[0]), "%s", g->name);
	}
	s->n++;
	return s->stop_after && s->n == s->stop_after ? 42 : 0;
}

static const struct amf_gnb_info *find_gnb(const struct gnb_seen *s, uint32_t assoc)
{
	unsigned i;

	for (i = 0; i < s->n && i < 4; i++)
		if (s->g[i].assoc == assoc)
			return &s->g[i];
	return NULL;
}

/* Two set-up gNBs and one association without NG Setup: identity and configuration as
 * the NG Setup Request gave them; a callback's non-zero return stops the walk. */
static void test_gnb_walk(void **state)
{
	struct gnb_seen s;
	const struct amf_gnb_info *g;
	struct amf_gnb_info one;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(amf_gnb_walk(H.amf, gnb_cb, &s), 0);
	assert_int_equal(s.n, 3);
	g = find_gnb(&s, ASSOC_A);
	assert_non_null(g);
	assert_int_equal(g->state, AMF_GNB_READY);
	assert_string_equal(amf_gnb_state_name(g->state), "READY");
	assert_string_equal(s.names[g - s.g], "test-gnb");
	assert_int_equal(g->gnb_id, 0x100 + ASSOC_A);
	assert_int_equal(g->gnb_id_bits, 22);
	assert_memory_equal(g->plmn, H.cfg.plmn, 3);
	assert_null(g->peer);   /* in-process transport */
	assert_int_equal(g->peer_len, 0);
	assert_int_equal(g->n_tacs, 1);
	assert_int_equal(g->tacs[0], 1);
	assert_int_equal(g->n_slices, 1);
	assert_int_equal(g->slices[0].sst, 1);
	assert_int_equal(g->slices[0].sd, 0x010203);
	assert_int_equal(g->out_streams, 16);
	assert_int_equal(g->in_streams, 16);
	assert_int_equal(g->paging_drx, 1);
	assert_int_equal(g->n_ues, 0);
	g = find_gnb(&s, ASSOC_C);
	assert_non_null(g);
	assert_int_equal(g->state, AMF_GNB_CONNECTED);
	assert_string_equal(s.names[g - s.g], "");
	assert_int_equal(g->n_tacs, 0);
	assert_int_equal(g->in_streams, 2);
	assert_int_equal(g->out_streams, 3);

	memset(&s, 0, sizeof(s));
	s.stop_after = 2;
	assert_int_equal(amf_gnb_walk(H.amf, gnb_cb, &s), 42);
	assert_int_equal(s.n, 2);

	assert_int_equal(amf_gnb_info_by_assoc(H.amf, ASSOC_B, &one), 0);
	assert_int_equal(one.gnb_id, 0x100 + ASSOC_B);
	assert_int_equal(amf_gnb_info_by_assoc(H.amf, 1234, &one), -ENOENT);
	amf_n2_assoc_down(H.amf, ASSOC_C);
	memset(&s, 0, sizeof(s));
	assert_int_equal(amf_gnb_walk(H.amf, gnb_cb, &s), 0);
	assert_int_equal(s.n, 2);
}

struct ue_seen {
	unsigned n, stop_after;
	struct amf_ue_info u[8];
	char supi[8][24];
};

static int ue_cb(const struct amf_ue_info *u, void *arg)
{
	struct ue_seen *s = arg;

	if (s->n < 8) {
		s->u[s->n] = *u;
		snprintf(s->supi[s->n], sizeof(s->supi[0]), "%s", u->supi);
	}
	s->n++;
	return s->stop_after && s->n >= s->stop_after ? 1 : 0;
}

static int ue_count_cb(const struct amf_ue_info *u, void *arg)
{
	(void)u;
	(*(unsigned *)arg)++;
	return 0;
}

/* Three UEs (two registered through two gNBs, one waiting for authentication): the walk
 * reports each once with its states, gNB and GUTI; paged one UE at a time it resumes where
 * it stopped and ends with AMF_WALK_END. */
static void test_ue_walk(void **state)
{
	struct sue a, b, c;
	struct nas_msg m, dl;
	struct ue_seen s;
	uint32_t cursor = 0;
	unsigned i, pages = 0, total = 0, count = 0;
	char guti[64];
	bool seen_a = false, seen_b = false, seen_c = false;

	(void)state;
	sue_init(&a, "0000000001", ASSOC_A, 100);
	sue_register(&H, &a, 2, 0);
	sue_init(&b, "0000000002", ASSOC_B, 200);
	sue_register(&H, &b, 2, 0);
	sue_init(&c, "0000000003", ASSOC_A, 101);
	sue_reg_req(&c, &m, false);
	sue_initial(&H, &c, &m, NAS_SHT_PLAIN);
	assert_int_equal(sue_dl(&H, &c, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);

	memset(&s, 0, sizeof(s));
	assert_int_equal(amf_ue_walk(H.amf, NULL, 0, ue_cb, &s), 0);
	assert_int_equal(s.n, 3);
	for (i = 0; i < s.n; i++) {
		const struct amf_ue_info *u = &s.u[i];

		assert_int_equal(u->cm, AMF_CM_CONNECTED);
		if (strcmp(s.supi[i], a.supi) == 0 || strcmp(s.supi[i], b.supi) == 0) {
			bool is_a = strcmp(s.supi[i], a.supi) == 0;

			assert_int_equal(u->state, AMF_GMM_REGISTERED);
			assert_int_equal(u->assoc, is_a ? ASSOC_A : ASSOC_B);
			assert_true(u->has_guti);
			assert_int_equal(u->psi_map, 0);
			/* The GUTI string names the one the UE got in its Registration Accept. */
			assert_true(amf_guti_to_str(H.amf, u, guti, sizeof(guti)) > 0);
			assert_int_equal(strlen(guti), 5 + 6 + 8);
			assert_memory_equal(guti, "00101", 5);
			assert_int_equal(u->tmsi, (is_a ? &a : &b)->guti.guti.tmsi);
			if (is_a)
				seen_a = true;
			else
				seen_b = true;
		} else {
			assert_string_equal(s.supi[i], c.supi);
			assert_int_equal(u->state, AMF_GMM_COMMON_PROCEDURE_INITIATED);
			assert_false(u->has_guti);
			assert_int_equal(amf_guti_to_str(H.amf, u, guti, sizeof(guti)), -ENOENT);
			seen_c = true;
		}
	}
	assert_true(seen_a && seen_b && seen_c);
	assert_string_equal(amf_cm_state_name(AMF_CM_CONNECTED), "CM-CONNECTED");

	/* One UE per page. */
	while (cursor != AMF_WALK_END) {
		memset(&s, 0, sizeof(s));
		s.stop_after = 1;
		amf_ue_walk(H.amf, &cursor, 0, ue_cb, &s);
		total += s.n;
		pages++;
		assert_true(pages <= 4);
	}
	assert_int_equal(total, 3);
	assert_int_equal(pages, 4);   /* three stops, then the empty tail reaching the end */

	/* Deregistered UEs leave the walk. */
	sue_dereg(&H, &b, 0x01);
	sue_dl(&H, &b, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &b);
	ev_run_once(H.loop, 0);
	assert_int_equal(amf_ue_walk(H.amf, NULL, 0, ue_count_cb, &count), 0);
	assert_int_equal(count, 2);

	/* A budget bounds the slots one call looks at (a REST page over a sparse pool, issue
	 * 15): one slot a call, b's freed slot gives a call with nothing and a cursor to go on. */
	cursor = 0;
	total = 0;
	pages = 0;
	unsigned empty = 0;
	while (cursor != AMF_WALK_END) {
		memset(&s, 0, sizeof(s));
		s.stop_after = 100;
		assert_int_equal(amf_ue_walk(H.amf, &cursor, 1, ue_cb, &s), 0);
		assert_true(s.n <= 1);
		empty += s.n == 0 && cursor != AMF_WALK_END;
		total += s.n;
		assert_true(++pages <= 3);   /* the slots ever used: a, b, c */
	}
	assert_int_equal(total, 2);
	assert_int_equal(empty, 1);
}

static int nop_gnb(const struct amf_gnb_info *g, void *arg)
{
	(*(unsigned *)arg) += g->n_ues;
	return 0;
}

/* Walks, lookups and the counter table call no allocator. */
static void test_no_alloc(void **state)
{
	struct sue a;
	struct amf_ue_info info;
	struct amf_gnb_info gi;
	struct amf_stats st;
	const struct amf_stat_desc *d;
	unsigned n_ues = 0, count = 0, nd;
	uint32_t cursor = 0;
	char guti[64];

	(void)state;
	sue_init(&a, "0000000001", ASSOC_A, 100);
	sue_register(&H, &a, 2, 0);
	nomalloc_begin();
	assert_int_equal(amf_gnb_walk(H.amf, nop_gnb, &n_ues), 0);
	assert_int_equal(amf_ue_walk(H.amf, &cursor, 0, ue_count_cb, &count), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, a.supi, &info), 0);
	assert_true(amf_guti_to_str(H.amf, &info, guti, sizeof(guti)) > 0);
	assert_int_equal(amf_gnb_info_by_assoc(H.amf, ASSOC_A, &gi), 0);
	amf_get_stats(H.amf, &st);
	d = amf_stats_desc(&nd);
	assert_int_equal(nomalloc_end(), 0);
	{
		/* Control: the wrapper does count in this executable. */
		void *volatile p;

		nomalloc_begin();
		p = malloc(16);
		free(p);
		assert_int_equal(nomalloc_end(), 1);
	}
	assert_non_null(d);
	assert_int_equal(n_ues, 1);
	assert_int_equal(count, 1);
	assert_int_equal(cursor, AMF_WALK_END);
}

/* The counter table: one entry per field of struct amf_stats, distinct names and offsets,
 * values read through it equal the struct's. */
static void test_stats_desc(void **state)
{
	struct sue a;
	struct amf_stats st;
	const struct amf_stat_desc *d;
	unsigned n, i, j, gauges = 0;
	bool seen_reg = false;

	(void)state;
	sue_init(&a, "0000000001", ASSOC_A, 100);
	sue_register(&H, &a, 2, 0);
	amf_get_stats(H.amf, &st);
	d = amf_stats_desc(&n);
	assert_int_equal(n, sizeof(struct amf_stats) / sizeof(uint64_t));
	for (i = 0; i < n; i++) {
		uint64_t v;

		assert_true(d[i].off + sizeof(uint64_t) <= sizeof(st));
		assert_int_equal(d[i].off % sizeof(uint64_t), 0);
		assert_true(d[i].help && d[i].help[0]);
		for (j = 0; j < i; j++) {
			assert_int_not_equal(d[i].off, d[j].off);
			assert_string_not_equal(d[i].name, d[j].name);
		}
		memcpy(&v, (const uint8_t *)&st + d[i].off, sizeof(v));
		if (strcmp(d[i].name, "reg_accepted") == 0) {
			assert_int_equal(v, 1);
			assert_int_equal(v, st.reg_accepted);
			seen_reg = true;
		}
		if (strcmp(d[i].name, "registered") == 0)
			assert_true(d[i].gauge);
		gauges += d[i].gauge;
	}
	assert_true(seen_reg);
	assert_int_equal(gauges, 4);   /* gnbs, ues, registered, connected */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_gnb_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ue_walk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_alloc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stats_desc, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
