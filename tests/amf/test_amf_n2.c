/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AMF scenario tests of the N2 side (TS 38.413 8.7): NG Setup and its failures,
 * procedures before setup, malformed PDUs, RAN Configuration Update, NG Reset both
 * ways, Error Indication both ways, UE-associated ID checks, gNB-initiated UE
 * Context Release; and of the NAS paths that follow a release: CM-IDLE, periodic
 * registration over the stored security context, service request, T3550,
 * configuration update and the mobile reachable / implicit deregistration timers.
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

#define ASSOC 5

static struct h H;
static struct ngap_msg M;
static const uint8_t plmn00101[3] = { 0x00, 0xf1, 0x10 };

static int setup_plain(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	return 0;
}

static int setup(void **state)
{
	setup_plain(state);
	h_ng_setup(&H, ASSOC);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_fini(&H);
	return 0;
}

static void ng_setup_req(const uint8_t plmn[3], uint32_t tac, uint8_t sst, uint32_t sd)
{
	struct ngap_ng_setup_request *r = &M.u.ng_setup_request;

	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_NG_SETUP;
	r->ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(r->ran_node_id.plmn.v, plmn, 3);
	r->ran_node_id.id = 0x55;
	r->ran_node_id.id_bits = 22;
	r->n_tas = 1;
	r->tas[0].tac[2] = (uint8_t)tac;
	r->tas[0].n_plmns = 1;
	memcpy(r->tas[0].plmns[0].plmn.v, plmn, 3);
	r->tas[0].plmns[0].n_slices = 1;
	r->tas[0].plmns[0].slices[0].sst = sst;
	r->tas[0].plmns[0].slices[0].has_sd = sd != 0xffffff;
	r->tas[0].plmns[0].slices[0].sd[0] = (uint8_t)(sd >> 16);
	r->tas[0].plmns[0].slices[0].sd[1] = (uint8_t)(sd >> 8);
	r->tas[0].plmns[0].slices[0].sd[2] = (uint8_t)sd;
}

/* TS 38.413 8.7.1.3: another PLMN → NG SETUP FAILURE, misc/unknown-PLMN-or-SNPN, time to wait. */
static void test_ng_setup_fail_plmn(void **state)
{
	static const uint8_t other[3] = { 0x99, 0xf9, 0x07 };
	struct amf_stats st;

	(void)state;
	amf_n2_assoc_up(H.amf, ASSOC, 2, 2);
	ng_setup_req(other, 1, 1, 0x010203);
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(H.m.u.ng_setup_failure.cause.group, NGAP_CAUSE_MISC);
	assert_int_equal(H.m.u.ng_setup_failure.cause.value, 4);
	assert_true(H.m.u.ng_setup_failure.has_time_to_wait);
	assert_int_equal(H.m.u.ng_setup_failure.time_to_wait, H.cfg.ng_setup_time_to_wait);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.gnbs, 0);
}

/* A TAC we do not serve is the same failure. */
static void test_ng_setup_fail_tac(void **state)
{
	(void)state;
	amf_n2_assoc_up(H.amf, ASSOC, 2, 2);
	ng_setup_req(plmn00101, 77, 1, 0x010203);
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(H.m.u.ng_setup_failure.cause.group, NGAP_CAUSE_MISC);
}

/* Our PLMN and TAC but no common slice: radioNetwork/slice-not-supported. */
static void test_ng_setup_fail_slice(void **state)
{
	(void)state;
	amf_n2_assoc_up(H.amf, ASSOC, 2, 2);
	ng_setup_req(plmn00101, 1, 3, 0xffffff);
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(H.m.u.ng_setup_failure.cause.group, NGAP_CAUSE_RADIO_NETWORK);
	assert_int_equal(H.m.u.ng_setup_failure.cause.value, 39);
	/* The gNB may retry with a good configuration on the same association. */
	ng_setup_req(plmn00101, 1, 1, 0x010203);
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(H.m.u.ng_setup_response.n_plmns, 1);
	assert_int_equal(H.m.u.ng_setup_response.plmns[0].n_slices, 1);
}

/* TS 38.413 8.7.1.1: an InitialUEMessage before NG Setup gets an Error Indication. */
static void test_before_setup(void **state)
{
	struct sue ue;
	struct nas_msg m;
	struct amf_stats st;

	(void)state;
	amf_n2_assoc_up(H.amf, ASSOC, 2, 2);
	sue_init(&ue, "0000000001", ASSOC, 1);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_true(H.m.u.error_indication.has_cause);
	assert_int_equal(H.m.u.error_indication.cause.group, NGAP_CAUSE_PROTOCOL);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 0);
}

/* Garbage bytes: Error Indication with a protocol cause, counted, nothing else. */
static void test_garbage_pdu(void **state)
{
	static const uint8_t junk[] = { 0x00, 0x15, 0x00, 0x40, 0xff, 0xff };
	struct amf_stats st;

	(void)state;
	assert_true(amf_n2_rx(H.amf, ASSOC, 0, junk, sizeof(junk)) < 0);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_int_equal(H.m.u.error_indication.cause.group, NGAP_CAUSE_PROTOCOL);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ngap_rx_bad, 1);
	assert_int_equal(h_pending(&H), 0);
}

/* Error Indication from the gNB: logged, never answered (TS 38.413 8.7.5). */
static void test_error_indication_rx(void **state)
{
	(void)state;
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_ERROR_INDICATION;
	M.u.error_indication.has_cause = true;
	M.u.error_indication.cause.group = NGAP_CAUSE_PROTOCOL;
	M.u.error_indication.cause.value = 4;
	h_send(&H, ASSOC, 0, &M);
	assert_int_equal(h_pending(&H), 0);
}

/* RAN Configuration Update: acknowledged; a TA list with nothing of ours fails. */
static void test_ran_config_update(void **state)
{
	struct ngap_ran_configuration_update *u = &M.u.ran_configuration_update;

	(void)state;
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_RAN_CONFIGURATION_UPDATE;
	u->has_default_paging_drx = true;
	u->default_paging_drx = 2;
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_RAN_CONFIGURATION_UPDATE);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_RAN_CONFIGURATION_UPDATE;
	u->n_tas = 1;
	u->tas[0].tac[2] = 99;
	u->tas[0].n_plmns = 1;
	memcpy(u->tas[0].plmns[0].plmn.v, plmn00101, 3);
	u->tas[0].plmns[0].n_slices = 1;
	u->tas[0].plmns[0].slices[0].sst = 1;
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_RAN_CONFIGURATION_UPDATE);
	assert_true(H.m.u.ran_configuration_update_failure.has_time_to_wait);
}

static void registered_ue(struct sue *ue)
{
	sue_init(ue, "0000000001", ASSOC, 42);
	sue_register(&H, ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);
}

/* The gNB's UE CONTEXT RELEASE REQUEST, cause user-inactivity (TS 38.413 8.3.2). */
static void release_request(const struct sue *ue)
{
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST;
	M.u.ue_context_release_request.amf_ue_id = ue->amf_id;
	M.u.ue_context_release_request.ran_ue_id = ue->ran_id;
	M.u.ue_context_release_request.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 20 };
	h_send(&H, ASSOC, 1, &M);
}

/* NG Reset from the gNB (whole interface): acknowledged, every UE loses its N2 link. */
static void test_ng_reset_from_gnb(void **state)
{
	struct sue ue;
	struct amf_ue_info info;

	(void)state;
	registered_ue(&ue);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_NG_RESET;
	M.u.ng_reset.cause.group = NGAP_CAUSE_MISC;
	M.u.ng_reset.cause.value = 3;
	M.u.ng_reset.reset_all = true;
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_RESET);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_true(info.amf_ue_ngap_id == UINT64_MAX);
}

/* Partial NG Reset naming one UE: the list is echoed in the acknowledge. */
static void test_ng_reset_partial(void **state)
{
	struct sue ue;

	(void)state;
	registered_ue(&ue);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_NG_RESET;
	M.u.ng_reset.cause.group = NGAP_CAUSE_MISC;
	M.u.ng_reset.n_ues = 1;
	M.u.ng_reset.ues[0].has_amf_ue_id = true;
	M.u.ng_reset.ues[0].amf_ue_id = ue.amf_id;
	M.u.ng_reset.ues[0].has_ran_ue_id = true;
	M.u.ng_reset.ues[0].ran_ue_id = ue.ran_id;
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_RESET);
	assert_int_equal(H.m.u.ng_reset_ack.n_ues, 1);
	assert_int_equal(H.m.u.ng_reset_ack.ues[0].amf_ue_id, ue.amf_id);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
}

/* AMF-initiated NG Reset. */
static void test_ng_reset_from_amf(void **state)
{
	struct sue ue;

	(void)state;
	registered_ue(&ue);
	assert_int_equal(amf_n2_reset(H.amf, ASSOC), 0);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_NG_RESET);
	assert_true(H.m.u.ng_reset.reset_all);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_SUCCESSFUL;
	M.proc = NGAP_PROC_NG_RESET;
	h_send(&H, ASSOC, 0, &M);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_n2_reset(H.amf, 999), -ENOENT);
}

/* Uplink NAS naming an AMF UE NGAP ID we never gave, or a stale RAN ID: Error Indication. */
static void test_ue_id_checks(void **state)
{
	struct sue ue, ghost;
	struct nas_msg m;

	(void)state;
	registered_ue(&ue);
	memset(&m, 0, sizeof(m));
	m.type = NAS_5GMM_STATUS;
	m.gmm_status.cause = 111;
	ghost = ue;
	ghost.amf_id = ue.amf_id + (1ull << 20);   /* same pool slot, other generation */
	sue_ul(&H, &ghost, &m, NAS_SHT_INTEGRITY_CIPHERED);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_int_equal(H.m.u.error_indication.cause.group, NGAP_CAUSE_RADIO_NETWORK);
	assert_int_equal(H.m.u.error_indication.cause.value, 14);
	/* TS 38.413 8.7.4.2.2: and a partial NG Reset of the connection we cannot know */
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_NG_RESET);
	assert_false(H.m.u.ng_reset.reset_all);
	assert_int_equal(H.m.u.ng_reset.n_ues, 1);
	assert_true(H.m.u.ng_reset.ues[0].amf_ue_id == ghost.amf_id);
	assert_int_equal(H.m.u.ng_reset.ues[0].ran_ue_id, ghost.ran_id);
	/* the registered UE is not touched */
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 1);
	ghost = ue;
	ghost.ran_id = ue.ran_id + 1;
	sue_ul(&H, &ghost, &m, NAS_SHT_INTEGRITY_CIPHERED);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_int_equal(H.m.u.error_indication.cause.value, 15);
}

/* gNB-initiated release: UE CONTEXT RELEASE REQUEST → COMMAND (same cause) → COMPLETE →
 * CM-IDLE with the mobile reachable timer; on expiry the implicit deregistration timer, and
 * on its expiry the context goes (TS 24.501 5.3.7). */
static void test_gnb_release_and_implicit_dereg(void **state)
{
	struct sue ue;
	struct amf_ue_info info;
	struct amf_stats st;

	(void)state;
	registered_ue(&ue);
	release_request(&ue);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(H.m.u.ue_context_release_command.cause.value, 20);
	sue_release_complete(&H, &ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	/* Timers in seconds in the config; 0 s here so the loop expires them at once. */
	{
		uint64_t end = ev_update_now(H.loop) + 3000000000ull;

		while (amf_ue_info_by_supi(H.amf, ue.supi, &info) == 0 && ev_update_now(H.loop) < end)
			ev_run_once(H.loop, 5);
	}
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), -ENOENT);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.implicit_dereg, 1);
	assert_int_equal(st.ues, 0);
}

static int setup_zero_reach(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	cfg.mobile_reachable_s = 0;
	cfg.implicit_dereg_s = 0;
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC);
	return 0;
}

/* Back from CM-IDLE with an integrity-protected periodic registration carrying the
 * 5G-GUTI: accepted without AKA or SMC, COUNTs continue, a new GUTI is given. */
static void gnb_releases(struct sue *ue)
{
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST;
	M.u.ue_context_release_request.amf_ue_id = ue->amf_id;
	M.u.ue_context_release_request.ran_ue_id = ue->ran_id;
	M.u.ue_context_release_request.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	M.u.ue_context_release_request.cause.value = 20;   /* user-inactivity */
	h_send(&H, ASSOC, 1, &M);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, ue);
}

/* Back from CM-IDLE with the 5G-GUTI, integrity protected with the stored context:
 * periodic (3) then mobility (2) registration updating are accepted without AKA or SMC,
 * COUNTs continue, a new GUTI each time. Then a SERVICE REQUEST (5G-S-TMSI) is accepted
 * with an Initial Context Setup whose K_gNB uses the service request's uplink COUNT. */
static void test_periodic_registration(void **state)
{
	static const uint8_t types[2] = { 0x03, 0x02 };
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_stats st;
	struct amf_ue_info info;
	uint8_t kgnb[32];
	uint32_t old_tmsi, count;
	unsigned k;

	(void)state;
	registered_ue(&ue);
	for (k = 0; k < 2; k++) {
		old_tmsi = ue.guti.guti.tmsi;
		assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
		assert_int_equal(info.tmsi, old_tmsi);
		gnb_releases(&ue);
		ue.ran_id = 77 + k;   /* new connection, new RAN UE NGAP ID */
		sue_reg_req(&ue, &m, true);
		m.reg_req.reg_type = types[k];
		sue_initial(&H, &ue, &m, NAS_SHT_INTEGRITY);
		assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
		assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
		assert_true(dl.reg_acc.guti.guti.tmsi != old_tmsi);
		ue.guti = dl.reg_acc.guti;
		memset(&m, 0, sizeof(m));
		m.type = NAS_REGISTRATION_COMPLETE;
		sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
		assert_int_equal(h_pending(&H), 0);
		assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
		assert_int_equal(info.state, AMF_GMM_REGISTERED);
		assert_int_equal(info.ran_ue_ngap_id, 77 + k);
		assert_int_equal(info.tmsi, ue.guti.guti.tmsi);
	}
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.auth_ok, 1);          /* only the first registration authenticated */
	assert_int_equal(st.reg_accepted, 3);
	/* Service request from CM-IDLE. */
	gnb_releases(&ue);
	ue.ran_id = 90;
	memset(&m, 0, sizeof(m));
	m.type = NAS_SERVICE_REQUEST;
	m.svc_req.ngksi = ue.ngksi;
	m.svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	m.svc_req.s_tmsi.guti.amf_set_id = H.cfg.amf_set_id;
	m.svc_req.s_tmsi.guti.amf_pointer = H.cfg.amf_pointer;
	m.svc_req.s_tmsi.guti.tmsi = ue.guti.guti.tmsi;
	count = ue.ul;
	sue_initial(&H, &ue, &m, NAS_SHT_INTEGRITY);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(crypto_kdf_kgnb(ue.kamf, count, CRYPTO_ACCESS_3GPP, kgnb), 0);
	assert_memory_equal(H.m.u.initial_context_setup_request.security_key, kgnb, 32);
}

/* DEREGISTRATION REQUEST (normal) as the first message of a new connection from CM-IDLE:
 * the stored context is found by its 5G-GUTI, ACCEPT is sent, and the context goes. */
static void test_dereg_from_idle(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_ue_info info;

	(void)state;
	registered_ue(&ue);
	gnb_releases(&ue);
	ue.ran_id = 55;
	memset(&m, 0, sizeof(m));
	m.type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	m.dereg_req.dereg_type = 0x01;
	m.dereg_req.ngksi = ue.ngksi;
	m.dereg_req.mobile_id = ue.guti;
	sue_initial(&H, &ue, &m, NAS_SHT_INTEGRITY);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	assert_int_equal(ue.last_sht, NAS_SHT_INTEGRITY_CIPHERED);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), -ENOENT);
}

/* Without an SMF wired in, a PDU SESSION ESTABLISHMENT REQUEST in UL NAS TRANSPORT comes
 * back in DL NAS TRANSPORT with #90 "payload was not forwarded" (TS 24.501 5.4.5.2.5). */
static int setup_nea2(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	memcpy(cfg.ciph_prio, (uint8_t[]){ 2, 0, 1, 3 }, 4);
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC);
	return 0;
}

static void test_ul_nas_transport_not_forwarded(void **state)
{
	static const uint8_t sm[] = { 0x2e, 0x01, 0x01, 0xc1, 0xff, 0xff, 0x91 };
	struct sue ue;
	struct nas_msg m, dl;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 42);
	sue_register(&H, &ue, 2, H.cfg.ciph_prio[0]);
	memset(&m, 0, sizeof(m));
	m.type = NAS_UL_NAS_TRANSPORT;
	m.ul_nas.payload_type = 1;
	m.ul_nas.payload.p = sm;
	m.ul_nas.payload.len = sizeof(sm);
	m.ul_nas.has_psi = true;
	m.ul_nas.psi = 1;
	m.ul_nas.has_request_type = true;
	m.ul_nas.request_type = 1;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DL_NAS_TRANSPORT);
	assert_int_equal(dl.dl_nas.payload_type, 1);
	assert_true(dl.dl_nas.has_cause);
	assert_int_equal(dl.dl_nas.cause, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
	assert_true(dl.dl_nas.has_psi);
	assert_int_equal(dl.dl_nas.psi, 1);
	assert_int_equal(dl.dl_nas.payload.len, sizeof(sm));
	assert_memory_equal(dl.dl_nas.payload.p, sm, sizeof(sm));
}

static int setup_two_slices(void **state)
{
	static const char *const dnn = "internet";
	struct amf_cfg cfg;
	struct udm_sub_in in;

	(void)state;
	h_cfg(&cfg);
	memcpy(cfg.ciph_prio, (uint8_t[]){ 2, 0, 1, 3 }, 4);
	cfg.slices[1] = (struct amf_snssai){ .sst = 1, .sd = 0x000042 };
	cfg.n_slices = 2;
	h_init(&H, &cfg);
	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "imsi-001010000000001");
	in.data.n_slices = 2;
	in.data.slices[0] = (struct udm_snssai){ 1, 0x010203 };
	in.data.slices[1] = (struct udm_snssai){ 1, 0x000042 };
	in.data.n_dnns = 1;
	in.data.dnns[0] = dnn;
	memcpy(in.k, h_k1, 16);
	memcpy(in.opc, h_opc1, 16);
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	assert_int_equal(udm_add(H.udm, &in), 0);
	h_ng_setup(&H, ASSOC);
	return 0;
}

/* TS 24.501 4.4.6 b): from CM-IDLE with a context, the whole REGISTRATION REQUEST rides
 * ciphered (NEA2) in the NAS message container; its requested NSSAI (the second slice)
 * is the one the AMF uses. */
static void test_initial_nas_container(void **state)
{
	static uint8_t container[512];
	struct nas_msg m, full, dl;
	struct nas_err err;
	struct sue ue;
	int n;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 42);
	sue_register(&H, &ue, 2, 2);
	gnb_releases(&ue);
	ue.ran_id = 43;
	ue.requested.s[0].sd = 0x000042;
	sue_reg_req(&ue, &full, true);
	full.reg_req.reg_type = 0x02;
	n = nas_encode(&full, container, sizeof(container), &err);
	assert_true(n > 0);
	/* Ciphered with the COUNT the outer message will carry. */
	assert_int_equal(crypto_nea(ue.nea, ue.kenc, ue.ul, 1, CRYPTO_DIR_UPLINK, container, container,
				    (size_t)n * 8), 0);
	sue_reg_req(&ue, &m, true);
	m.reg_req.reg_type = 0x02;
	m.reg_req.has_requested_nssai = false;   /* not a cleartext IE */
	m.reg_req.has_nas_container = true;
	m.reg_req.nas_container.p = container;
	m.reg_req.nas_container.len = (uint16_t)n;
	sue_initial(&H, &ue, &m, NAS_SHT_INTEGRITY);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	assert_int_equal(dl.reg_acc.allowed_nssai.n, 1);
	assert_int_equal(dl.reg_acc.allowed_nssai.s[0].sd, 0x000042);
}

/* SERVICE REQUEST with a 5G-S-TMSI nobody has: SERVICE REJECT #9 and release. */
static void test_service_request_unknown(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 3);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SERVICE_REQUEST;
	m.svc_req.ngksi = 0;
	m.svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	m.svc_req.s_tmsi.guti.amf_set_id = H.cfg.amf_set_id;
	m.svc_req.s_tmsi.guti.amf_pointer = H.cfg.amf_pointer;
	m.svc_req.s_tmsi.guti.tmsi = 0xdeadbeef;
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_SERVICE_REJECT);
	assert_int_equal(dl.svc_rej.cause, NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
}

/* T3550: REGISTRATION ACCEPT retransmitted (DownlinkNASTransport, fresh COUNT), then
 * the procedure is aborted and the connection released; the UE stays registered. */
static void test_t3550(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_ue_info info;
	struct amf_stats st;
	int i;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 42);
	sue_to_smc(&H, &ue, &dl);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	for (i = 0; i < 4; i++) {
		h_run_until_tx(&H, 2000);
		assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
		assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	}
	h_run_until_tx(&H, 2000);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.t3550_expired, 5);
	sue_release_complete(&H, &ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
}

static int setup_names(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	snprintf(cfg.network_full_name, sizeof(cfg.network_full_name), "Solocore Lab");
	snprintf(cfg.network_short_name, sizeof(cfg.network_short_name), "SOLO");
	cfg.send_tz = true;
	cfg.tz_quarters = 4;   /* UTC+1 */
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC);
	return 0;
}

/* With a network name and time zone configured, REGISTRATION COMPLETE is followed by a
 * CONFIGURATION UPDATE COMMAND asking for acknowledgement (T3555), then COMPLETE. */
static void test_configuration_update(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 42);
	sue_register(&H, &ue, 2, 0);
	/* sue_register answered the command (harness.c); its content: */
	assert_int_equal(H.n_cuc, 1);
	dl = H.cuc;
	assert_true(dl.cuc.has_cfg_update_ind);
	assert_int_equal(dl.cuc.cfg_update_ind & 1, 1);
	assert_true(dl.cuc.has_full_name);
	assert_true(dl.cuc.has_short_name);
	assert_true(dl.cuc.has_local_time_zone);
	assert_int_equal(dl.cuc.local_time_zone, 0x40);
	(void)m;
	/* T3555 stopped: nothing is retransmitted. */
	h_run_until_tx(&H, 100);
	assert_int_equal(h_pending(&H), 0);
}

/* Association restart while a UE is connected; the new association gets a fresh gNB. */
static void test_assoc_restart(void **state)
{
	struct sue ue;
	struct amf_stats st;

	(void)state;
	registered_ue(&ue);
	amf_n2_assoc_down(H.amf, ASSOC);
	h_ng_setup(&H, ASSOC);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.gnbs, 1);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	/* A second NG Setup on a live association also drops its UE connections. */
	sue_init(&ue, "0000000001", ASSOC, 43);
	sue_register(&H, &ue, 2, 0);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 1);
	ng_setup_req(plmn00101, 1, 1, 0x010203);
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.gnbs, 1);
}

/* A message the state does not expect gets 5GMM STATUS #98 (TS 24.501 7.4); nothing changes. */
static void test_gmm_status_unexpected(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	static const uint8_t res[16];
	struct amf_ue_info info;

	(void)state;
	registered_ue(&ue);
	memset(&m, 0, sizeof(m));
	m.type = NAS_AUTHENTICATION_RESPONSE;
	m.auth_resp.has_res_star = true;
	m.auth_resp.res_star.p = res;
	m.auth_resp.res_star.len = 16;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_5GMM_STATUS);
	assert_int_equal(dl.gmm_status.cause, NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
}

static void expire_n(struct sue *ue, uint8_t type, int n)
{
	struct nas_msg dl;
	int i;

	for (i = 0; i < n; i++) {
		h_run_until_tx(&H, 2000);
		sue_dl(&H, ue, &dl);
		assert_int_equal(dl.type, type);
	}
	h_run_until_tx(&H, 2000);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
}

/* T3570: IDENTITY REQUEST four more times, then abort and release; the context goes. */
static void test_t3570_giveup(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 8);
	ue.has_guti = true;
	ue.guti.type = NAS_MOBID_5G_GUTI;
	ue.guti.guti.plmn.mcc = 1;
	ue.guti.guti.plmn.mnc = 1;
	ue.guti.guti.amf_region_id = H.cfg.amf_region_id;
	ue.guti.guti.amf_set_id = H.cfg.amf_set_id;
	ue.guti.guti.tmsi = 0x0badf00d;
	sue_reg_req(&ue, &m, true);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_IDENTITY_REQUEST);
	expire_n(&ue, NAS_IDENTITY_REQUEST, 4);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.t3570_expired, 5);
	sue_release_complete(&H, &ue);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 0);
}

/* T3522: DEREGISTRATION REQUEST four more times, then the UE is deregistered anyway. */
static void test_t3522_giveup(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	struct amf_ue_info info;

	(void)state;
	registered_ue(&ue);
	assert_int_equal(amf_deregister_supi(H.amf, ue.supi, true), 0);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_REQUEST_UE_TERM);
	assert_int_equal(dl.dereg_req.dereg_type & 0x0c, 0x04);   /* re-registration required, TS 24.501 9.11.3.20 */
	expire_n(&ue, NAS_DEREGISTRATION_REQUEST_UE_TERM, 4);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_DEREGISTERED);
	sue_release_complete(&H, &ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), -ENOENT);
	assert_int_equal(amf_deregister_supi(H.amf, ue.supi, false), -ENOENT);
}

/* Untrusted input: random NAS PDUs (some with a valid 5GMM header) in InitialUEMessage and
 * in UplinkNASTransport of a registered UE. No crash, no context leak, and the registered
 * UE is unchanged (protected garbage fails integrity; plain garbage is discarded). */
static void test_garbage_nas(void **state)
{
	struct sue ue, junk;
	struct amf_ue_info before, after;
	struct amf_stats st;
	uint8_t nas[96];
	unsigned seed = 12345, i, j, n;

	(void)state;
	registered_ue(&ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &before), 0);
	for (i = 0; i < 3000; i++) {
		n = 1 + rand_r(&seed) % sizeof(nas);
		for (j = 0; j < n; j++)
			nas[j] = (uint8_t)rand_r(&seed);
		if (i & 1) {
			nas[0] = 0x7e;
			if (n > 1)
				nas[1] = (uint8_t)(rand_r(&seed) % 5);
			if (n > 2 && (nas[1] == 0))
				nas[2] = (uint8_t)(0x41 + rand_r(&seed) % 0x28);
		}
		memset(&M, 0, sizeof(M));
		M.type = NGAP_INITIATING;
		if (i % 3 == 0) {
			M.proc = NGAP_PROC_UPLINK_NAS_TRANSPORT;
			M.u.uplink_nas_transport.amf_ue_id = ue.amf_id;
			M.u.uplink_nas_transport.ran_ue_id = ue.ran_id;
			M.u.uplink_nas_transport.nas.p = nas;
			M.u.uplink_nas_transport.nas.len = n;
			M.u.uplink_nas_transport.uli.tai.tac[2] = 1;
		} else {
			sue_init(&junk, "0000000002", ASSOC, 1000 + i);
			M.proc = NGAP_PROC_INITIAL_UE_MESSAGE;
			M.u.initial_ue_message.ran_ue_id = junk.ran_id;
			M.u.initial_ue_message.nas.p = nas;
			M.u.initial_ue_message.nas.len = n;
			M.u.initial_ue_message.uli.tai.tac[2] = 1;
		}
		h_send(&H, ASSOC, 1, &M);
		/* Answer whatever the AMF sent: release commands get their complete. */
		while (h_pop(&H)) {
			if (H.m.type == NGAP_INITIATING && H.m.proc == NGAP_PROC_UE_CONTEXT_RELEASE) {
				junk.amf_id = H.m.u.ue_context_release_command.amf_ue_id;
				junk.ran_id = H.m.u.ue_context_release_command.ran_ue_id;
				sue_release_complete(&H, &junk);
			}
		}
	}
	ev_run_once(H.loop, 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &after), 0);
	assert_int_equal(after.state, AMF_GMM_REGISTERED);
	assert_int_equal(after.ul_count, before.ul_count);
	assert_int_equal(after.amf_ue_ngap_id, before.amf_ue_ngap_id);
	amf_get_stats(H.amf, &st);
	assert_true(st.nas_mac_fail + st.nas_dropped > 0);
	/* Contexts opened by garbage are either released (freed) or waiting for an answer
	 * they will never get (at most a handful, bounded by the pool). */
	assert_true(st.ues < H.cfg.max_ues);
}

/* GUTI reallocation (TS 24.501 5.4.4): CONFIGURATION UPDATE COMMAND with a new 5G-GUTI;
 * the AMF switches to it on COMPLETE. Without an answer (T3555 x5) the old one stays. */
static void test_guti_reallocation(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_ue_info info;
	uint32_t old = 0, fresh;
	int i;

	(void)state;
	registered_ue(&ue);
	old = ue.guti.guti.tmsi;
	assert_int_equal(amf_guti_reallocate(H.amf, ue.supi), 0);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_true(dl.cuc.has_guti);
	fresh = dl.cuc.guti.guti.tmsi;
	assert_true(fresh != old);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.tmsi, old);
	memset(&m, 0, sizeof(m));
	m.type = NAS_CONFIGURATION_UPDATE_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.tmsi, fresh);
	/* A second reallocation left unanswered: retransmitted, then abandoned. */
	assert_int_equal(amf_guti_reallocate(H.amf, ue.supi), 0);
	sue_dl(&H, &ue, &dl);
	for (i = 0; i < 4; i++) {
		h_run_until_tx(&H, 2000);
		sue_dl(&H, &ue, &dl);
		assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	}
	{
		uint64_t end = ev_update_now(H.loop) + 200000000ull;

		while (ev_update_now(H.loop) < end)
			ev_run_once(H.loop, 5);
	}
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.tmsi, fresh);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_int_equal(amf_guti_reallocate(H.amf, "imsi-001019999999999"), -ENOENT);
}

/* INITIAL CONTEXT SETUP FAILURE: the AMF releases the UE (TS 38.413 8.3.1.3). */
static void test_ics_failure(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 42);
	sue_to_smc(&H, &ue, &dl);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SECURITY_MODE_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_UNSUCCESSFUL;
	M.proc = NGAP_PROC_INITIAL_CONTEXT_SETUP;
	M.u.initial_context_setup_failure.amf_ue_id = ue.amf_id;
	M.u.initial_context_setup_failure.ran_ue_id = ue.ran_id;
	M.u.initial_context_setup_failure.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	M.u.initial_context_setup_failure.cause.value = 0;
	h_send(&H, ASSOC, 1, &M);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
}

/* TS 38.413 8.7.4.2.2 with maxnoofNGConnectionsToReset 65536 (issue 14 item 6): a partial
 * NG Reset listing 40 connections (more than the decoded array's 32), ours at 35: that UE
 * goes CM-IDLE and the acknowledge echoes all 40. */
static void test_ng_reset_partial_long(void **state)
{
	static struct ngap_ue_assoc l[40];
	static uint8_t raw[2048];
	struct sue ue;
	struct amf_ue_info info;
	int n;

	(void)state;
	registered_ue(&ue);
	for (unsigned i = 0; i < 40; i++) {
		l[i] = (struct ngap_ue_assoc){ .has_ran_ue_id = true, .ran_ue_id = 5000 + i };
	}
	l[35] = (struct ngap_ue_assoc){ .has_amf_ue_id = true, .amf_ue_id = ue.amf_id,
					.has_ran_ue_id = true, .ran_ue_id = ue.ran_id };
	n = ngap_enc_ue_assoc_list(l, 40, raw, sizeof(raw));
	assert_true(n > 0);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_NG_RESET;
	M.u.ng_reset.cause = (struct ngap_cause){ NGAP_CAUSE_MISC, 5 };
	M.u.ng_reset.ues_raw.p = raw;
	M.u.ng_reset.ues_raw.len = (size_t)n;
	h_send(&H, ASSOC, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_RESET);
	assert_int_equal(H.m.u.ng_reset_ack.total_ues, 40);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
}

/* TS 38.413 8.3.3 (issue 14 item 6): a UE CONTEXT RELEASE COMMAND the gNB never
 * completes does not keep the N2 connection for ever: after the guard the UE is CM-IDLE,
 * still registered. */
static void test_release_guard(void **state)
{
	struct sue ue;
	struct amf_ue_info info;
	unsigned i;

	(void)state;
	registered_ue(&ue);
	release_request(&ue);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.cm, AMF_CM_CONNECTED);
	for (i = 0; i < 50 && info.cm == AMF_CM_CONNECTED; i++) {
		ev_run_once(H.loop, 10);
		assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	}
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
}

/* TS 38.413 8.7.5 / 10.6: a UE-associated ERROR INDICATION saying the gNB does not know
 * the UE ends the AMF's side of the connection (CM-IDLE, still registered); another
 * cause gets a UE CONTEXT RELEASE COMMAND. */
static void test_error_indication_ue(void **state)
{
	struct sue ue;
	struct amf_ue_info info;

	(void)state;
	registered_ue(&ue);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_ERROR_INDICATION;
	M.u.error_indication.has_amf_ue_id = true;
	M.u.error_indication.amf_ue_id = ue.amf_id;
	M.u.error_indication.has_ran_ue_id = true;
	M.u.error_indication.ran_ue_id = ue.ran_id;
	M.u.error_indication.has_cause = true;
	M.u.error_indication.cause = (struct ngap_cause){ NGAP_CAUSE_PROTOCOL, 4 };
	h_send(&H, ASSOC, 1, &M);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	/* back, then the gNB says it does not know it */
	sue_init(&ue, "0000000001", ASSOC, 43);
	sue_register(&H, &ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);
	M.u.error_indication.amf_ue_id = ue.amf_id;
	M.u.error_indication.ran_ue_id = ue.ran_id;
	M.u.error_indication.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 14 };
	h_send(&H, ASSOC, 1, &M);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.cm, AMF_CM_IDLE);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
}

/* TS 38.413 9.3.1.x maxnoofTACs 256 (issue 14 item 6): an NG Setup listing 40 TAs of
 * another PLMN's and ours only as the 30th is accepted -- the whole list is walked, not
 * the first 16 the decoded arrays hold -- and paging reaches that gNB for TAC 1. */
static void test_ng_setup_many_tas(void **state)
{
	static struct ngap_ta_entry e[40];
	static uint8_t raw[4096];
	static const uint8_t other[3] = { 0x21, 0xf3, 0x54 }, ours[3] = { 0x00, 0xf1, 0x10 };
	int n;

	(void)state;
	for (unsigned i = 0; i < 40; i++) {
		memset(&e[i], 0, sizeof(e[i]));
		e[i].ta_idx = (uint16_t)i;
		e[i].tac[2] = (uint8_t)(i + 10);
		memcpy(e[i].plmn.v, other, 3);
		e[i].slice.sst = 1;
	}
	e[29].tac[2] = 1;
	memcpy(e[29].plmn.v, ours, 3);
	e[29].slice.has_sd = true;
	e[29].slice.sd[0] = 0x01;
	e[29].slice.sd[1] = 0x02;
	e[29].slice.sd[2] = 0x03;
	n = ngap_enc_ta_list(e, 40, raw, sizeof(raw));
	assert_true(n > 0);
	amf_n2_assoc_up(H.amf, 9, 16, 16);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_NG_SETUP;
	M.u.ng_setup_request.ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(M.u.ng_setup_request.ran_node_id.plmn.v, ours, 3);
	M.u.ng_setup_request.ran_node_id.id = 0x999;
	M.u.ng_setup_request.ran_node_id.id_bits = 22;
	M.u.ng_setup_request.tas_raw.p = raw;
	M.u.ng_setup_request.tas_raw.len = (size_t)n;
	M.u.ng_setup_request.default_paging_drx = 1;
	h_send(&H, 9, 0, &M);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
}

/* A second InitialUEMessage on a RAN UE NGAP ID still in use replaces the old connection;
 * UE Radio Capability Info Indication is accepted silently. */
static void test_duplicate_initial(void **state)
{
	struct sue ue, again;
	struct nas_msg m, dl;
	struct amf_stats st;

	(void)state;
	registered_ue(&ue);
	memset(&M, 0, sizeof(M));
	M.type = NGAP_INITIATING;
	M.proc = NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION;
	M.u.ue_radio_capability_info_indication.amf_ue_id = ue.amf_id;
	M.u.ue_radio_capability_info_indication.ran_ue_id = ue.ran_id;
	M.u.ue_radio_capability_info_indication.ue_radio_capability.p = (const uint8_t *)"\x01\x02";
	M.u.ue_radio_capability_info_indication.ue_radio_capability.len = 2;
	h_send(&H, ASSOC, 1, &M);
	assert_int_equal(h_pending(&H), 0);
	sue_init(&again, "0000000001", ASSOC, ue.ran_id);
	sue_reg_req(&again, &m, false);
	sue_initial(&H, &again, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &again, &dl);
	assert_int_equal(dl.type, NAS_AUTHENTICATION_REQUEST);
	assert_true(again.amf_id != ue.amf_id);
	/* The plain REGISTRATION REQUEST (a SUCI proves nothing) runs in a context of its
	 * own; the registered one, now CM-IDLE, stays until the new one has authenticated
	 * (TS 23.502 4.2.2.2.2, TS 24.501 4.4.4.3). */
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ues, 2);
	assert_int_equal(st.registered, 1);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 1);
}

/* Untrusted N2: mutated copies of valid PDUs (registration flow, NG Setup, resets) fed to the
 * AMF. No crash (ASan/UBSan builds run this), answers are valid NGAP, and afterwards the
 * AMF still registers a UE on a fresh gNB. */
static void test_mutated_ngap(void **state)
{
	enum { NSEED = 8 };
	static uint8_t seeds[NSEED][512];
	static size_t seed_len[NSEED];
	struct h_pdu *p;
	struct sue ue;
	struct nas_msg m;
	unsigned seed = 777, i, k, nseeds = 0;
	uint8_t buf[512];

	(void)state;
	/* Seeds: the gNB->AMF PDUs of a registration, captured by re-encoding what we send. */
	sue_init(&ue, "0000000001", ASSOC, 5);
	sue_reg_req(&ue, &m, false);
	{
		struct nas_err err;
		static uint8_t nas[256];
		int n = nas_encode(&m, nas, sizeof(nas), &err);

		memset(&M, 0, sizeof(M));
		M.type = NGAP_INITIATING;
		M.proc = NGAP_PROC_INITIAL_UE_MESSAGE;
		M.u.initial_ue_message.ran_ue_id = 5;
		M.u.initial_ue_message.nas.p = nas;
		M.u.initial_ue_message.nas.len = (size_t)n;
		M.u.initial_ue_message.uli.tai.tac[2] = 1;
		seed_len[nseeds] = (size_t)ngap_encode(&M, seeds[nseeds], sizeof(seeds[0]));
		nseeds++;
		ng_setup_req(plmn00101, 1, 1, 0x010203);
		seed_len[nseeds] = (size_t)ngap_encode(&M, seeds[nseeds], sizeof(seeds[0]));
		nseeds++;
		memset(&M, 0, sizeof(M));
		M.type = NGAP_INITIATING;
		M.proc = NGAP_PROC_NG_RESET;
		M.u.ng_reset.n_ues = 2;
		M.u.ng_reset.ues[0].has_amf_ue_id = true;
		M.u.ng_reset.ues[1].has_ran_ue_id = true;
		seed_len[nseeds] = (size_t)ngap_encode(&M, seeds[nseeds], sizeof(seeds[0]));
		nseeds++;
	}
	/* And every PDU the AMF sends during a registration, reflected back at it. */
	registered_ue(&ue);
	for (i = 0; i < nseeds; i++)
		assert_true(seed_len[i] > 0 && seed_len[i] < sizeof(seeds[0]));
	for (i = 0; i < 4000; i++) {
		k = rand_r(&seed) % nseeds;
		memcpy(buf, seeds[k], seed_len[k]);
		{
			unsigned flips = 1 + rand_r(&seed) % 4, f;
			size_t len = seed_len[k];

			for (f = 0; f < flips; f++)
				buf[rand_r(&seed) % len] ^= (uint8_t)(1u << (rand_r(&seed) % 8));
			if (rand_r(&seed) % 4 == 0)
				len = 1 + rand_r(&seed) % len;
			amf_n2_rx(H.amf, ASSOC, (uint16_t)(rand_r(&seed) % 3), buf, len);
		}
		while (H.q_len) {
			p = &H.q[H.q_head];
			/* What the AMF answers must itself decode. */
			assert_true(h_pop(&H));
			(void)p;
		}
		ev_run_once(H.loop, 0);
	}
	while (h_pop(&H))
		;
	/* Still alive and correct (another subscriber: re-registering 0001 would, rightly,
	 * release its old connection on ASSOC first). */
	h_add_sub(&H, "imsi-001010000000002", 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC + 1);
	sue_init(&ue, "0000000002", ASSOC + 1, 9999);
	sue_register(&H, &ue, 2, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ng_setup_fail_plmn, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(test_ng_setup_fail_tac, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(test_ng_setup_fail_slice, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(test_before_setup, setup_plain, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_pdu, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_indication_rx, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ran_config_update, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ng_reset_from_gnb, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ng_reset_partial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ng_reset_from_amf, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ue_id_checks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gnb_release_and_implicit_dereg, setup_zero_reach, teardown),
		cmocka_unit_test_setup_teardown(test_periodic_registration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_request_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_dereg_from_idle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_initial_nas_container, setup_two_slices, teardown),
		cmocka_unit_test_setup_teardown(test_ul_nas_transport_not_forwarded, setup, teardown),
		/* Ciphered (NEA2): the echoed payload comes from the deciphered uplink buffer. */
		cmocka_unit_test_setup_teardown(test_ul_nas_transport_not_forwarded, setup_nea2, teardown),
		cmocka_unit_test_setup_teardown(test_t3550, setup, teardown),
		cmocka_unit_test_setup_teardown(test_configuration_update, setup_names, teardown),
		cmocka_unit_test_setup_teardown(test_assoc_restart, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gmm_status_unexpected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_t3570_giveup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_t3522_giveup, setup, teardown),
		cmocka_unit_test_setup_teardown(test_garbage_nas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_guti_reallocation, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ics_failure, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_initial, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ng_setup_many_tas, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_guard, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ng_reset_partial_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_error_indication_ue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mutated_ngap, setup, teardown),
	};

	return cmocka_run_group_tests_name("amf_n2", tests, NULL, NULL);
}
