/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Unit tests of the AMF's internals: 5G-TMSI allocation (unique, not sequential),
 * the UE context store and its O(1) indexes, AMF UE NGAP ID generations, the GMM
 * transition table, and uplink NAS COUNT estimation across the 8-bit SQN wrap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf_int.h"
#include "harness.h"
#include "testlib.h"

static struct h H;

static int setup(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, 3);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_fini(&H);
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* 200000 allocations: all distinct, and consecutive values are not a counter. */
static void test_tmsi_unique(void **state)
{
	enum { N = 200000 };
	uint32_t *v = malloc(N * sizeof(*v));
	unsigned i, sequential = 0;

	(void)state;
	assert_non_null(v);
	for (i = 0; i < N; i++) {
		v[i] = amf_tmsi_alloc(H.amf);
		assert_true(v[i] != UINT32_MAX);
		if (i && (v[i] == v[i - 1] + 1))
			sequential++;
	}
	assert_true(sequential < 4);
	qsort(v, N, sizeof(*v), cmp_u32);
	for (i = 1; i < N; i++)
		assert_true(v[i] != v[i - 1]);
	free(v);
}

/* A 5G-TMSI in use by a context is never handed out again. */
static void test_tmsi_skips_used(void **state)
{
	struct amf_ue *ue = amf_ue_alloc(H.amf);
	uint32_t saved = H.amf->tmsi_ctr, t;

	(void)state;
	t = amf_tmsi_alloc(H.amf);
	amf_ue_set_tmsi(ue, t);
	H.amf->tmsi_ctr = saved;          /* as if the counter wrapped onto it */
	assert_true(amf_tmsi_alloc(H.amf) != t);
	assert_ptr_equal(amf_ue_by_tmsi(H.amf, t), ue);
	amf_ue_free(ue);
	assert_null(amf_ue_by_tmsi(H.amf, t));
}

/* Indexes: by (gNB, RAN ID), AMF ID, SUPI and TMSI, for the whole pool; a rebound
 * context gets a new AMF UE NGAP ID and the old one no longer matches. */
static void test_store_indexes(void **state)
{
	struct amf_gnb *gnb = amf_gnb_by_assoc(H.amf, 3);
	struct amf_ue *ues[64];
	char supi[24];
	uint64_t old_id;
	unsigned i;

	(void)state;
	assert_non_null(gnb);
	for (i = 0; i < H.cfg.max_ues; i++) {
		ues[i] = amf_ue_alloc(H.amf);
		assert_non_null(ues[i]);
		amf_ue_bind(ues[i], gnb, 1000 + i);
		snprintf(supi, sizeof(supi), "imsi-0010100000%05u", i);
		amf_ue_set_supi(ues[i], supi);
		amf_ue_set_tmsi(ues[i], 0xa0000000u + i);
	}
	assert_null(amf_ue_alloc(H.amf));     /* pool exhausted */
	assert_int_equal(gnb->n_ues, H.cfg.max_ues);
	for (i = 0; i < H.cfg.max_ues; i++) {
		snprintf(supi, sizeof(supi), "imsi-0010100000%05u", i);
		assert_ptr_equal(amf_ue_by_ran(H.amf, gnb, 1000 + i), ues[i]);
		assert_ptr_equal(amf_ue_by_amf_id(H.amf, ues[i]->amf_ue_ngap_id), ues[i]);
		assert_ptr_equal(amf_ue_by_supi(H.amf, supi), ues[i]);
		assert_ptr_equal(amf_ue_by_tmsi(H.amf, 0xa0000000u + i), ues[i]);
		assert_true(ues[i]->amf_ue_ngap_id <= AMF_UE_NGAP_ID_MAX);
	}
	old_id = ues[5]->amf_ue_ngap_id;
	amf_ue_bind(ues[5], gnb, 5555);
	assert_true(ues[5]->amf_ue_ngap_id != old_id);
	assert_null(amf_ue_by_amf_id(H.amf, old_id));
	assert_null(amf_ue_by_ran(H.amf, gnb, 1005));
	assert_ptr_equal(amf_ue_by_ran(H.amf, gnb, 5555), ues[5]);
	for (i = 0; i < H.cfg.max_ues; i++)
		amf_ue_free(ues[i]);
	assert_int_equal(gnb->n_ues, 0);
	assert_null(amf_ue_by_supi(H.amf, "imsi-001010000000005"));
	assert_non_null(amf_ue_alloc(H.amf));
}

/* The table refuses what TS 24.501 5.1.3.2.2 does not allow, and the dispatcher leaves the
 * state as it was: a fresh context (DEREGISTERED) takes no COMPLETE, no ACCEPT, no timer
 * give-up and no implicit deregistration. */
static void test_gmm_table(void **state)
{
	struct amf_ue *ue = amf_ue_alloc(H.amf);
	static const enum amf_gmm_event refused[] = {
		AMF_EV_REG_CPL, AMF_EV_DEREG_ACC, AMF_EV_CUC_CPL, AMF_EV_AUTH_RSP, AMF_EV_SMC_CPL,
		AMF_EV_UL_NAS, AMF_EV_T3550, AMF_EV_T3560, AMF_EV_T3522, AMF_EV_IMPLICIT,
		AMF_EV_NET_DEREG, AMF_EV_CUC_START,
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		assert_false(amf_gmm_accepts(ue, refused[i]));
		assert_int_equal(amf_gmm_dispatch(ue, refused[i], NULL), -EPERM);
		assert_int_equal(ue->state, AMF_GS_DEREGISTERED);
	}
	assert_true(amf_gmm_accepts(ue, AMF_EV_REG_REQ));
	assert_int_equal(amf_gmm_dispatch(ue, AMF_EV_COUNT, NULL), -EINVAL);
	assert_string_equal(amf_gmm_state_name(AMF_GMM_DEREGISTERED_INITIATED), "DEREGISTERED-INITIATED");
	assert_string_equal(amf_gmm_sub_name(AMF_GS_WAIT_COMPLETE), "WAIT-COMPLETE");
	amf_ue_free(ue);
}

/* Issue 14 item 9: the built-in ciphering order is NEA2, NEA1, NEA3, NEA0 (as conf's). */
static void test_default_ciphering_order(void **state)
{
	struct amf_cfg c;

	(void)state;
	amf_cfg_default(&c);
	assert_int_equal(c.n_ciph, 4);
	assert_memory_equal(c.ciph_prio, ((uint8_t[]){ 2, 1, 3, 0 }), 4);
}

/* TS 24.501 5.3.7: the mobile reachable timer runs 4 minutes (the configured margin) past
 * the T3512 on the wire: 54 min is sent as GPRS timer 3 "1 hour" (units of 1 h), so the
 * UE's periodic update comes after 60 min and the timer must be 64 min, not 58. */
static void test_mobile_reachable_from_wire(void **state)
{
	struct amf_ue *ue = amf_ue_alloc(H.amf);
	uint64_t now, ms;

	(void)state;
	assert_int_equal(nas_gprs_timer3_secs(nas_gprs_timer3_enc(54 * 60)), 3600);
	H.amf->cfg.t3512_s = 54 * 60;
	H.amf->cfg.mobile_reachable_s = 54 * 60 + 240;
	now = ev_update_now(H.loop);
	amf_tmr_start(ue, AMF_TMR_MOBILE_REACHABLE);
	ms = (ue->tmr[AMF_TMR_MOBILE_REACHABLE].when_ns - now) / 1000000;
	assert_true(ms >= 3840ull * 1000 - 1000 && ms <= 3840ull * 1000 + 1000);
	amf_tmr_stop(ue, AMF_TMR_MOBILE_REACHABLE);
	amf_ue_free(ue);
}

/* 300 protected uplink messages: the AMF's COUNT follows across the SQN wrap
 * (overflow counter estimated, TS 24.501 4.4.3.1) and none fails integrity. */
static void test_ul_count_overflow(void **state)
{
	struct sue ue;
	struct nas_msg m;
	struct amf_ue_info info;
	int i;

	(void)state;
	sue_init(&ue, "0000000001", 3, 9);
	sue_register(&H, &ue, 2, 0);
	memset(&m, 0, sizeof(m));
	m.type = NAS_5GMM_STATUS;
	m.gmm_status.cause = NAS_5GMM_PROTOCOL_ERROR_UNSPECIFIED;
	for (i = 0; i < 300; i++)
		sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.nas_mac_fail, 0);
	assert_int_equal(info.ul_count, ue.ul - 1);
	assert_true(info.ul_count > 0xff);
	assert_int_equal(h_pending(&H), 0);
}

/* No allocator call from our code on the per-message paths: a full registration (AKA
 * through ausf/udm, SMC, ICS, complete) and a deregistration of a second UE, after a
 * first one warmed up the timer heap and the deferred-call ring. (OpenSSL's own
 * allocations inside libcrypto are not visible to the wrapper.) */
static void test_no_alloc_registration(void **state)
{
	struct sue a, b;
	struct nas_msg dl;
	unsigned n;

	(void)state;
	/* Control: the wrapper does see allocations made from this executable's objects. */
	{
		void *volatile p;

		nomalloc_begin();
		p = malloc(16);
		free(p);
		assert_int_equal(nomalloc_end(), 1);
	}
	h_add_sub(&H, "imsi-001010000000002", 1, 0x010203, 0);
	sue_init(&a, "0000000001", 3, 1);
	sue_register(&H, &a, 2, 0);
	sue_dereg(&H, &a, 0x01);
	sue_dl(&H, &a, &dl);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &a);

	sue_init(&b, "0000000002", 3, 2);
	nomalloc_begin();
	sue_register(&H, &b, 2, 0);
	sue_dereg(&H, &b, 0x01);
	sue_dl(&H, &b, &dl);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &b);
	n = nomalloc_end();
	assert_int_equal(n, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_tmsi_unique, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mobile_reachable_from_wire, setup, teardown),
		cmocka_unit_test(test_default_ciphering_order),
		cmocka_unit_test_setup_teardown(test_tmsi_skips_used, setup, teardown),
		cmocka_unit_test_setup_teardown(test_store_indexes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gmm_table, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ul_count_overflow, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_alloc_registration, setup, teardown),
	};

	return cmocka_run_group_tests_name("amf_store", tests, NULL, NULL);
}
