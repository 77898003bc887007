/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AMF scenario tests: registration with 5G-AKA and security mode, the rejects
 * of issue 5 item 3, resynchronisation, identification, integrity failures,
 * timers, deregistration and association loss. The test plays gNB and UE.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "harness.h"

#define ASSOC_A 7
#define ASSOC_B 9

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
	h_add_sub(&H, "imsi-001010000000009", 2, 0x000001, 0);  /* slice the AMF does not serve */
	h_ng_setup(&H, ASSOC_A);
	return 0;
}

static int setup_nea2(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	memcpy(cfg.ciph_prio, (uint8_t[]){ 2, 0, 1, 3 }, 4);
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC_A);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_fini(&H);
	return 0;
}

static void expect_registered(const char *supi, uint8_t nia, uint8_t nea)
{
	struct amf_ue_info info;

	assert_int_equal(amf_ue_info_by_supi(H.amf, supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_true(info.sec_active);
	assert_true(info.has_guti);
	assert_int_equal(info.nia, nia);
	assert_int_equal(info.nea, nea);
}

/* Registration with the default priority lists: NIA2 / NEA0 (issue 5 defaults). */
static void test_register_nia2_nea0(void **state)
{
	struct sue ue;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);   /* no CUC: no network name configured */
	expect_registered(ue.supi, 2, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.reg_accepted, 1);
	assert_int_equal(st.auth_ok, 1);
	assert_int_equal(st.smc_ok, 1);
	assert_int_equal(st.registered, 1);
	assert_int_equal(st.connected, 1);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_A), 1);
}

/* Ciphering on: NEA2 first in the list; every downlink after SMC is ciphered
 * and the harness deciphers and checks the MAC. */
static void test_register_nia2_nea2(void **state)
{
	struct sue ue;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 2);
	expect_registered(ue.supi, 2, 2);
}

/* NIA1/NEA1 and NIA3/NEA3 selected when the UE supports only those. */
static void test_register_snow_zuc(void **state)
{
	struct sue a, b;

	(void)state;
	sue_init(&a, "0000000001", ASSOC_A, 100);
	a.ia = 0x40;   /* IA1 only */
	a.ea = 0x40;   /* EA1 only */
	sue_register(&H, &a, 1, 1);
	expect_registered(a.supi, 1, 1);
	sue_init(&b, "0000000002", ASSOC_A, 101);
	b.ia = 0x10;   /* IA3 */
	b.ea = 0x10;   /* EA3 */
	sue_register(&H, &b, 3, 3);
	expect_registered(b.supi, 3, 3);
}

/* Unknown subscriber: #7 (TS 24.501 5.5.1.2.5; see nas_auth.c for the choice). */
static void test_reject_unknown_subscriber(void **state)
{
	struct sue ue;
	struct nas_msg m;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000777", ASSOC_A, 100);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_expect_reg_reject(&H, &ue, NAS_5GMM_5GS_SERVICES_NOT_ALLOWED);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.reg_rejected, 1);
	assert_int_equal(st.ues, 0);
}

/* SUCI of another PLMN: #11. */
static void test_reject_plmn(void **state)
{
	struct sue ue;
	struct nas_msg m;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.mcc = 999;
	ue.mnc = 70;
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_expect_reg_reject(&H, &ue, NAS_5GMM_PLMN_NOT_ALLOWED);
}

/* The cell's TAC was dropped from the served list after the gNB's NG Setup (settings API,
 * amf_set_tacs): #12 before any authentication vector is spent. */
static void test_reject_tac_not_served(void **state)
{
	static const uint32_t other[] = { 2 };
	struct sue ue;
	struct nas_msg m;
	struct amf_stats st;

	(void)state;
	assert_int_equal(amf_set_tacs(H.amf, other, 1), 0);
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_expect_reg_reject(&H, &ue, NAS_5GMM_TA_NOT_ALLOWED);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.reg_rejected, 1);
	assert_int_equal(st.auth_ok, 0);
	assert_int_equal(st.registered, 0);
}

/* Subscribed only to a slice the AMF does not serve: #62 after security (protected reject). */
static void test_reject_no_slice(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;

	(void)state;
	sue_init(&ue, "0000000009", ASSOC_A, 100);
	sue_to_smc(&H, &ue, &dl);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(ue.last_sht, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(dl.type, NAS_REGISTRATION_REJECT);
	assert_int_equal(dl.reg_rej.cause, 62);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
}

/* The UE finds AUTN's MAC wrong (different K): AUTHENTICATION FAILURE #20 →
 * AUTHENTICATION REJECT and release with cause nas/authentication-failure. */
static void test_auth_mac_failure(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	uint8_t res[16], auts[14];
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.k[0] ^= 1;
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), -EBADMSG);
	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_FAILURE;
	m.auth_fail.cause = NAS_5GMM_MAC_FAILURE;
	sue_ul(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REJECT);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(H.m.u.ue_context_release_command.cause.group, NGAP_CAUSE_NAS);
	assert_int_equal(H.m.u.ue_context_release_command.cause.value, 1);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.auth_mac_fail, 1);
	assert_int_equal(st.auth_reject, 1);
	sue_release_complete(&H, &ue);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 0);
}

/* #71 ngKSI already in use: a new AUTHENTICATION REQUEST with another ngKSI, which then works. */
static void test_auth_ngksi_in_use(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	uint8_t res[16], auts[14], first;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	first = dl.auth_req.ngksi & 7;
	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_FAILURE;
	m.auth_fail.cause = NAS_5GMM_NGKSI_ALREADY_IN_USE;
	sue_ul(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_true((dl.auth_req.ngksi & 7) != first);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), 0);
	sue_auth_resp(&H, &ue, res);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_SECURITY_MODE_COMMAND);
	assert_int_equal(dl.smc.ngksi & 7, ue.ngksi);
}

/* A wrong RES* (HRES* mismatch) is also rejected. */
static void test_auth_wrong_res(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	uint8_t res[16], auts[14];

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), 0);
	res[5] ^= 0xff;
	sue_auth_resp(&H, &ue, res);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REJECT);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
}

/* UE offers only NIA0 while the AMF allows NIA2,NIA1,NIA3: #23, before any AKA (no vector
 * spent: the subscriber's SQN is unchanged). */
static void test_reject_no_common_alg(void **state)
{
	struct sue ue;
	struct nas_msg m;
	struct amf_stats st;
	uint64_t sqn = 1;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.ia = 0x80;   /* IA0 only */
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_expect_reg_reject(&H, &ue, NAS_5GMM_UE_SECURITY_CAP_MISMATCH);
	assert_int_equal(udm_get_sqn(H.udm, ue.supi, &sqn), 0);
	assert_int_equal(sqn, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.auth_ok, 0);
}

static int setup_no_nia0(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	memcpy(cfg.integ_prio, (uint8_t[]){ 2, 1, 3 }, 3);
	cfg.n_integ = 3;
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC_A);
	return 0;
}

/* The UE answers SECURITY MODE COMMAND with SECURITY MODE REJECT: procedure aborted,
 * connection released, context gone. */
static void test_smc_reject(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_to_smc(&H, &ue, &dl);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_REJECT;
	m.smc_rej.cause = NAS_5GMM_UE_SECURITY_CAP_MISMATCH;
	sue_ul(&H, &ue, &m, NAS_SHT_PLAIN);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.smc_reject, 1);
	assert_int_equal(st.ues, 0);
}

/* USIM ahead of the network: synch failure with AUTS, resync in the ARPF, fresh vector,
 * registration completes, and the HE's SQN moved past the USIM's. */
static void test_resync(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	uint8_t res[16], auts[14];
	uint64_t sqn_he = 0, sqn_ue = 0;
	struct amf_stats st;
	unsigned i;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	/* The USIM has seen SEQ 5000 in every IND slot (another network, a lost db write). */
	for (i = 0; i < CRYPTO_SQN_IND_COUNT; i++) {
		sqn_ue = (5000ull << 5) | i;
		crypto_usim_sqn_accept(&ue.usim, sqn_ue);
	}
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), -ESTALE);
	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_FAILURE;
	m.auth_fail.cause = NAS_5GMM_SYNCH_FAILURE;
	m.auth_fail.has_auts = true;
	m.auth_fail.auts.p = auts;
	m.auth_fail.auts.len = 14;
	sue_ul(&H, &ue, &m, NAS_SHT_PLAIN);
	/* A fresh AUTHENTICATION REQUEST that the USIM accepts. */
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), 0);
	assert_int_equal(udm_get_sqn(H.udm, ue.supi, &sqn_he), 0);
	assert_true((sqn_he >> 5) > (sqn_ue >> 5));
	sue_auth_resp(&H, &ue, res);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_SECURITY_MODE_COMMAND);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.auth_sync_fail, 1);
	assert_int_equal(st.auth_ok, 1);
}

/* Registration with a 5G-GUTI the AMF does not know → IDENTITY REQUEST (SUCI), T3570. */
static void test_unknown_guti_identity(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	uint8_t res[16], auts[14];

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.has_guti = true;
	ue.guti.type = NAS_MOBID_5G_GUTI;
	ue.guti.guti.plmn.mcc = 1;
	ue.guti.guti.plmn.mnc = 1;
	ue.guti.guti.amf_region_id = H.cfg.amf_region_id;
	ue.guti.guti.amf_set_id = H.cfg.amf_set_id;
	ue.guti.guti.amf_pointer = H.cfg.amf_pointer;
	ue.guti.guti.tmsi = 0x12345678;
	sue_reg_req(&ue, &m, true);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_IDENTITY_REQUEST);
	assert_int_equal(dl.id_req.identity_type, NAS_MOBID_SUCI);
	/* Answer with the SUCI; authentication follows. */
	sue_reg_req(&ue, &m, false);
	{
		struct nas_msg r;

		memset(&r, 0, sizeof(r));
		r.type = NAS_IDENTITY_RESPONSE;
		r.id_resp.mobile_id = m.reg_req.mobile_id;
		sue_ul(&H, &ue, &r, NAS_SHT_PLAIN);
	}
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_int_equal(sue_aka(&H, &ue, &dl, res, auts), 0);
}

/* After registration, an uplink message with a bad MAC is discarded and counted;
 * nothing is sent, state and uplink COUNT do not change (TS 24.501 4.4.4.3). */
static void test_bad_uplink_mac(void **state)
{
	struct sue ue;
	struct nas_msg m;
	struct amf_ue_info before, after;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &before), 0);
	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	m.dereg_req.dereg_type = 0x01;
	m.dereg_req.ngksi = ue.ngksi;
	m.dereg_req.mobile_id = ue.guti;
	sue_ul_badmac(&H, &ue, &m);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &after), 0);
	assert_int_equal(after.state, AMF_GMM_REGISTERED);
	assert_int_equal(after.ul_count, before.ul_count);
	assert_int_equal(after.dl_count, before.dl_count);
	assert_int_equal(after.nas_mac_fail, 1);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.nas_mac_fail, 1);
	/* The same message with a good MAC is then processed. */
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	{
		struct nas_msg dl;

		sue_dl(&H, &ue, &dl);
		assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	}
}

/* A plain (unprotected) message after security activation is discarded too. */
static void test_plain_after_security(void **state)
{
	struct sue ue;
	struct nas_msg m;
	struct amf_stats st0, st1;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 0);
	amf_get_stats(H.amf, &st0);
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_PLAIN);
	assert_int_equal(h_pending(&H), 0);
	amf_get_stats(H.amf, &st1);
	assert_int_equal(st1.nas_mac_fail, st0.nas_mac_fail + 1);
}

/* T3560: four retransmissions of AUTHENTICATION REQUEST, then give up and release. */
static void test_t3560_retx_giveup(void **state)
{
	struct sue ue;
	struct nas_msg m, dl, first;
	struct amf_stats st;
	int i;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &first);
	assert_int_equal(first.type, NAS_AUTHENTICATION_REQUEST);
	for (i = 0; i < 4; i++) {
		h_run_until_tx(&H, 2000);
		sue_dl(&H, &ue, &dl);
		assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
		/* The same challenge is retransmitted (TS 24.501 5.4.1.3.7 b). */
		assert_memory_equal(dl.auth_req.rand.p, first.auth_req.rand.p, 16);
	}
	h_run_until_tx(&H, 2000);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.t3560_expired, 5);
	sue_release_complete(&H, &ue);
	ev_run_once(H.loop, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 0);
}

/* T3560 on SECURITY MODE COMMAND: a retransmission is still verifiable by the UE. */
static void test_t3560_smc_retx(void **state)
{
	struct sue ue;
	struct nas_msg dl;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_to_smc(&H, &ue, &dl);
	h_run_until_tx(&H, 2000);
	sue_dl(&H, &ue, &dl);    /* MAC verified inside with the (new) count */
	assert_int_equal(dl.type, NAS_SECURITY_MODE_COMMAND);
	assert_int_equal(ue.last_sht, NAS_SHT_INTEGRITY_NEW_CTX);
}

/* UE-initiated deregistration (normal): ACCEPT, release, context removed. */
static void test_ue_dereg(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	struct amf_ue_info info;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 0);
	sue_dereg(&H, &ue, 0x01);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(H.m.u.ue_context_release_command.cause.group, NGAP_CAUSE_NAS);
	assert_int_equal(H.m.u.ue_context_release_command.cause.value, 2);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_DEREGISTERED);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.connected, 1);
	sue_release_complete(&H, &ue);
	ev_run_once(H.loop, 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), -ENOENT);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.connected, 0);
	assert_int_equal(st.dereg_ue, 1);
	assert_int_equal(st.registered, 0);
	assert_int_equal(st.ues, 0);
}

/* Switch-off: no ACCEPT, only the release. */
static void test_ue_dereg_switch_off(void **state)
{
	struct sue ue;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 0);
	sue_dereg(&H, &ue, 0x09);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(h_pending(&H), 0);
}

/* Network-initiated deregistration: REQUEST, T3522 retransmission, ACCEPT, release. */
static void test_net_dereg(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_ue_info info;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 0);
	assert_int_equal(amf_deregister_supi(H.amf, ue.supi, false), 0);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_REQUEST_UE_TERM);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_DEREGISTERED_INITIATED);
	h_run_until_tx(&H, 2000);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_REQUEST_UE_TERM);
	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_ACCEPT_UE_TERM;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_DEREGISTERED);
}

/* gNB A's association goes: its UEs lose N2 (registered → CM-IDLE, others removed);
 * gNB B's UE is untouched. */
static void test_assoc_loss(void **state)
{
	struct sue a1, a2, b1;
	struct nas_msg m, dl;
	struct amf_ue_info info;
	struct amf_stats st;

	(void)state;
	h_ng_setup(&H, ASSOC_B);
	sue_init(&a1, "0000000001", ASSOC_A, 100);
	sue_register(&H, &a1, 2, 0);
	sue_init(&b1, "0000000003", ASSOC_B, 100);   /* same RAN UE NGAP ID, other gNB */
	sue_register(&H, &b1, 2, 0);
	/* a2 is mid-registration on A (waiting for its authentication response). */
	sue_init(&a2, "0000000002", ASSOC_A, 101);
	sue_reg_req(&a2, &m, false);
	sue_initial(&H, &a2, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &a2, &dl);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_A), 2);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_B), 1);

	amf_n2_assoc_down(H.amf, ASSOC_A);
	ev_run_once(H.loop, 0);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_A), 0);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_B), 1);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, a1.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_true(info.amf_ue_ngap_id == UINT64_MAX);
	assert_int_equal(amf_ue_info_by_supi(H.amf, a2.supi, &info), -ENOENT);
	assert_int_equal(amf_ue_info_by_supi(H.amf, b1.supi, &info), 0);
	assert_int_equal(info.assoc, ASSOC_B);
	assert_true(info.amf_ue_ngap_id != UINT64_MAX);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.gnbs, 1);
	assert_int_equal(st.ues, 2);
	/* B's UE still works: deregister it. */
	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	m.dereg_req.dereg_type = 0x01;
	m.dereg_req.mobile_id = b1.guti;
	sue_ul(&H, &b1, &m, NAS_SHT_INTEGRITY_CIPHERED);
	sue_dl(&H, &b1, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_register_nia2_nea0, setup, teardown),
		cmocka_unit_test_setup_teardown(test_register_nia2_nea2, setup_nea2, teardown),
		cmocka_unit_test_setup_teardown(test_register_snow_zuc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_unknown_subscriber, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_plmn, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_no_slice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_tac_not_served, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_mac_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_wrong_res, setup, teardown),
		cmocka_unit_test_setup_teardown(test_auth_ngksi_in_use, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_no_common_alg, setup_no_nia0, teardown),
		cmocka_unit_test_setup_teardown(test_smc_reject, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_guti_identity, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_uplink_mac, setup, teardown),
		cmocka_unit_test_setup_teardown(test_plain_after_security, setup, teardown),
		cmocka_unit_test_setup_teardown(test_t3560_retx_giveup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_t3560_smc_retx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ue_dereg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ue_dereg_switch_off, setup, teardown),
		cmocka_unit_test_setup_teardown(test_net_dereg, setup, teardown),
		cmocka_unit_test_setup_teardown(test_assoc_loss, setup, teardown),
	};

	return cmocka_run_group_tests_name("amf_reg", tests, NULL, NULL);
}
