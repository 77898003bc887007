/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Served slices changed live (amf_set_slices, as the web settings API does): registered
 * UEs whose allowed NSSAI changes are told by CONFIGURATION UPDATE COMMAND (TS 24.501
 * 5.4.4), decoded here with its MAC checked by the harness (sue_dl):
 *  - connected: at once, acknowledged (T3555 retransmits it), sessions on the removed
 *    slice released first with 5GSM cause #36 (TS 23.502 4.3.4.2, TS 24.501 6.3.3);
 *  - idle: sessions released locally (no allocation in amf_set_slices), the command after
 *    its next Service Request, and again after one when the connection went before COMPLETE;
 *  - a UE whose allowed NSSAI did not change gets nothing;
 *  - a registration after the change carries the new list, and no extra command follows;
 *  - nothing left to allow: "registration requested", the connection released on COMPLETE;
 *  - a slice added: a UE on the subscribed fallback gains it, a requesting one does not;
 *  - a subscription changed: amf_nssai_resync recomputes and tells.
 * Fixture (sm_fx.h): slices 1/010203 (SN1) and 2 (SN2) served; SUPI1 subscribed to both
 * (DNNs internet and ims), SUPI2 to SN1 only.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf_int.h"
#include "sm_fx.h"
#include "testlib.h"

static const struct amf_snssai ONLY_SN1[1] = { { 1, 0x010203 } };
static const struct amf_snssai ONLY_SN2[1] = { { 2, AMF_SD_NONE } };

/* SUPI1 registered asking for both slices (allowed: both). */
static void registered_two(struct sue *ue, uint32_t ran_id)
{
	sue_init(ue, "0000000001", ASSOC, ran_id);
	ue->requested.n = 2;
	ue->requested.s[1] = SN2;
	sue_register(&H, ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);
}

/* amf_set_slices and the AMF CONFIGURATION UPDATE to the one gNB. */
static void set_slices(const struct amf_snssai *s, unsigned n)
{
	assert_int_equal(amf_set_slices(H.amf, s, n), 1);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
}

/* A CONFIGURATION UPDATE COMMAND in a DL NAS transport with allowed NSSAI = SN1 only,
 * acknowledgement requested, no registration requested, nothing else. */
static void expect_cuc_sn1(struct sue *ue)
{
	struct nas_msg dl;

	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(ue->last_sht, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_true(dl.cuc.has_cfg_update_ind);
	assert_int_equal(dl.cuc.cfg_update_ind, 0x01);   /* 9.11.3.18: ACK, not RED */
	assert_true(dl.cuc.has_allowed_nssai);
	assert_int_equal(dl.cuc.allowed_nssai.n, 1);
	assert_int_equal(dl.cuc.allowed_nssai.s[0].sst, 1);
	assert_true(dl.cuc.allowed_nssai.s[0].has_sd);
	assert_int_equal(dl.cuc.allowed_nssai.s[0].sd, 0x010203);
	assert_false(dl.cuc.has_guti);
	assert_false(dl.cuc.has_full_name);
}

static void cuc_complete(struct sue *ue)
{
	struct nas_msg m;

	memset(&m, 0, sizeof(m));
	m.type = NAS_CONFIGURATION_UPDATE_COMPLETE;
	sue_ul(&H, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
}

/* The gNB and the UE complete a network-requested release of psi. */
static void complete_release(struct sue *ue, uint8_t psi)
{
	gnb_release_rsp(ue, psi);
	gsm_simple(ue, NAS_PDU_SESSION_RELEASE_COMPLETE, psi, 0);
}

/* Connected UE with sessions on both slices; slice 2 removed: the session on it released
 * with #36, then the command with the new allowed NSSAI; unanswered, T3555 sends it again;
 * COMPLETE ends it. SUPI2 (connected, SN1 only) gets nothing. */
static void test_connected(void **state)
{
	struct sue u1, u2;
	struct nas_msg dl, gsm;
	struct smf_sess_info si;

	(void)state;
	registered_two(&u1, 1);
	registered(&u2, "0000000002", 2);
	establish(&u1, 1, "internet", &SN1);
	establish(&u1, 2, "ims", &SN2);
	pool_used("ims", 1);

	set_slices(ONLY_SN1, 1);
	/* TS 24.501 6.3.3.2: PDU SESSION RELEASE COMMAND in a PDU Session Resource Release. */
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	inner_gsm(&dl, 2, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(gsm.pdu_rel_cmd.cause, NAS_5GSM_REGULAR_DEACTIVATION);
	assert_int_equal(H.m.u.pdu_session_resource_release_command.n_sessions, 1);
	assert_int_equal(H.m.u.pdu_session_resource_release_command.sessions[0].id, 2);
	expect_cuc_sn1(&u1);
	/* Nothing for SUPI2: its allowed NSSAI (SN1) did not change. */
	assert_int_equal(h_pending(&H), 0);

	complete_release(&u1, 2);
	pool_used("ims", 0);
	assert_int_equal(sessions(), 1);
	sess(&u1, 1, &si);   /* the session on SN1 stays */
	assert_int_equal(si.state, SMF_ST_ACTIVE);

	/* T3555 (20 ms in tests): the same command again, freshly protected. */
	h_run_until_tx(&H, 2000);
	expect_cuc_sn1(&u1);
	cuc_complete(&u1);
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);   /* acknowledged: no more retransmissions */

	/* A session request on the removed slice is not forwarded any more (#90). */
	est_req(&u1, 3, "ims", &SN2);
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_DL_NAS_TRANSPORT);
	assert_true(dl.dl_nas.has_cause);
	assert_int_equal(dl.dl_nas.cause, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
}

/* Idle UE: its session on the removed slice released locally at once, nothing sent; after
 * its Service Request (and the Initial Context Setup) the command goes out. */
static void test_idle_then_service_request(void **state)
{
	struct sue u1;
	struct nas_msg dl;
	static const uint8_t one = 1;

	(void)state;
	registered_two(&u1, 1);
	establish(&u1, 1, "internet", &SN1);
	establish(&u1, 2, "ims", &SN2);
	gnb_release_req(&u1);

	/* The walk, the local session release and the gNB's update allocate nothing. */
	nomalloc_begin();
	assert_int_equal(amf_set_slices(H.amf, ONLY_SN1, 1), 1);
	assert_int_equal(nomalloc_end(), 0);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	assert_int_equal(h_pending(&H), 0);   /* CM-IDLE: no paging for it */
	pool_used("ims", 0);
	assert_int_equal(sessions(), 1);

	service_req(&u1, 3, true, 1u << 1, true, (1u << 1) | (1u << 2));
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(dl.svc_acc.pdu_session_status, 1u << 1);   /* PSI 2 gone */
	assert_int_equal(h_pending(&H), 0);   /* the command waits for the context setup */
	ics_rsp(&u1, 1, &one);
	expect_cuc_sn1(&u1);
	cuc_complete(&u1);
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);
}

/* The connection goes before the UE answers (TS 24.501 5.4.4.5 b): the command goes out
 * again after the next Service Request. */
static void test_lost_before_complete(void **state)
{
	struct sue u1;
	struct nas_msg dl;

	(void)state;
	registered_two(&u1, 1);
	set_slices(ONLY_SN1, 1);
	expect_cuc_sn1(&u1);
	gnb_release_req(&u1);
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);   /* T3555 stopped with the connection */
	service_req(&u1, 3, false, 0, false, 0);
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	ics_rsp(&u1, 0, NULL);
	expect_cuc_sn1(&u1);
	cuc_complete(&u1);
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);
}

/* Idle UE, then a periodic registration: the accept carries the new list and no command
 * follows the COMPLETE (the mark is cleared by the accept). */
static void test_registration_after_change(void **state)
{
	struct sue u1;
	struct nas_msg m, dl;

	(void)state;
	registered_two(&u1, 1);
	gnb_release_req(&u1);
	set_slices(ONLY_SN1, 1);
	assert_int_equal(h_pending(&H), 0);

	u1.ran_id = 4;
	sue_reg_req(&u1, &m, true);
	m.reg_req.reg_type = 0x03;   /* periodic registration updating */
	sue_initial(&H, &u1, &m, NAS_SHT_INTEGRITY);
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	assert_true(dl.reg_acc.has_allowed_nssai);
	assert_int_equal(dl.reg_acc.allowed_nssai.n, 1);
	assert_int_equal(dl.reg_acc.allowed_nssai.s[0].sst, 1);
	assert_int_equal(H.m.u.initial_context_setup_request.n_allowed_nssai, 1);
	u1.guti = dl.reg_acc.guti;
	ics_rsp(&u1, 0, NULL);
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(&H, &u1, &m, NAS_SHT_INTEGRITY_CIPHERED);
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);
}

/* A new registration after the change (initial): allowed NSSAI from the new list, the
 * usual command after an initial registration only (no NSSAI in it). */
static void test_new_registration(void **state)
{
	struct sue u1;

	(void)state;
	set_slices(ONLY_SN1, 1);
	sue_init(&u1, "0000000001", ASSOC, 1);
	u1.requested.n = 1;   /* SN1: sue_register checks the accept has exactly it */
	sue_register(&H, &u1, 2, 0);
	assert_int_equal(H.n_cuc, 1);
	assert_false(H.cuc.cuc.has_allowed_nssai);
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);
}

/* Nothing left to allow (SUPI2 subscribes SN1, only SN2 served): no Allowed NSSAI IE can
 * say so, "registration requested" does; COMPLETE releases the connection. */
static void test_nothing_left(void **state)
{
	struct sue u2;
	struct nas_msg dl;

	(void)state;
	registered(&u2, "0000000002", 2);
	set_slices(ONLY_SN2, 1);
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_int_equal(dl.cuc.cfg_update_ind, 0x03);   /* ACK | RED */
	assert_false(dl.cuc.has_allowed_nssai);
	cuc_complete(&u2);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &u2);
	assert_int_equal(h_pending(&H), 0);
}

/* A slice added: a UE that requested nothing has the subscribed S-NSSAIs we serve
 * (TS 23.501 5.15.5.2.1) and gains it; a UE that requested only SN1 keeps its list. */
static void test_added_slice(void **state)
{
	struct sue u1, u2;
	struct nas_msg dl;

	(void)state;
	set_slices(ONLY_SN1, 1);
	sue_init(&u1, "0000000001", ASSOC, 1);
	u1.requested.n = 0;   /* allowed: subscribed ∩ served = SN1 */
	sue_register(&H, &u1, 2, 0);
	registered(&u2, "0000000002", 2);
	set_slices((const struct amf_snssai[]){ { 1, 0x010203 }, { 2, AMF_SD_NONE } }, 2);
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_int_equal(dl.cuc.cfg_update_ind, 0x01);
	assert_int_equal(dl.cuc.allowed_nssai.n, 2);
	assert_int_equal(dl.cuc.allowed_nssai.s[0].sst, 1);
	assert_int_equal(dl.cuc.allowed_nssai.s[1].sst, 2);
	assert_false(dl.cuc.allowed_nssai.s[1].has_sd);
	assert_int_equal(h_pending(&H), 0);   /* nothing for SUPI2 */
	cuc_complete(&u1);
	/* Slice 2 usable now: a session on it is forwarded and accepted. */
	establish(&u1, 1, "ims", &SN2);
	assert_int_equal(h_pending(&H), 0);
}

/* Subscription changed (SUPI2 now also on slice 2; it requested nothing, so it has the
 * subscribed S-NSSAIs we serve): amf_nssai_resync tells it, with the new list. */
static void test_resync_subscription(void **state)
{
	struct sue u2;
	struct nas_msg dl;

	(void)state;
	sue_init(&u2, "0000000002", ASSOC, 2);
	u2.requested.n = 0;
	sue_register(&H, &u2, 2, 0);
	assert_int_equal(amf_nssai_resync(H.amf), 0);   /* nothing changed yet */
	assert_int_equal(h_pending(&H), 0);
	add_sub(SUPI2, true);
	assert_int_equal(amf_nssai_resync(H.amf), 1);
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_int_equal(dl.cuc.allowed_nssai.n, 2);
	assert_int_equal(dl.cuc.allowed_nssai.s[1].sst, 2);
	cuc_complete(&u2);
	assert_int_equal(h_pending(&H), 0);
}

/* More registered UEs than one step of the walk (AMF_NSSAI_STEP): amf_set_slices handles the
 * first step's slots at once and the rest on later loop passes, so a live slice change at
 * 10^6 UEs never holds signalling for the whole walk (issue 15). The UEs are idle (their gNB's
 * association went: an AN release), so each is only marked for its CONFIGURATION UPDATE
 * COMMAND at its next service request; the marks are counted in the store. Before, every UE
 * was done inside amf_set_slices. */
#define N_WALK (AMF_NSSAI_STEP + 100)

static struct h HW;

static int walk_setup(void **state)
{
	struct amf_cfg cfg;

	(void)state;
	h_cfg(&cfg);
	cfg.slices[1] = (struct amf_snssai){ 2, AMF_SD_NONE };
	cfg.n_slices = 2;
	cfg.max_ues = N_WALK + 16;
	h_init(&HW, &cfg);
	h_ng_setup(&HW, ASSOC);
	return 0;
}

static int walk_teardown(void **state)
{
	(void)state;
	h_fini(&HW);
	return 0;
}

static unsigned marked(void)
{
	unsigned n = 0;

	for (uint32_t i = 0; i < HW.amf->ues_hw; i++)
		n += HW.amf->ues[i].in_use && HW.amf->ues[i].nssai_cuc_pending;
	return n;
}

static void test_walk_in_steps(void **state)
{
	static struct sue ue;
	struct udm_sub_in in;
	char msin[11];
	unsigned passes = 0;

	(void)state;
	for (unsigned i = 0; i < N_WALK; i++) {
		snprintf(msin, sizeof(msin), "%010u", 100000 + i);
		memset(&in, 0, sizeof(in));
		snprintf(in.data.supi, sizeof(in.data.supi), "imsi-00101%s", msin);
		in.data.slices[0] = (struct udm_snssai){ 1, 0x010203 };
		in.data.slices[1] = (struct udm_snssai){ 2, AMF_SD_NONE };
		in.data.n_slices = 2;
		memcpy(in.k, h_k1, 16);
		memcpy(in.opc, h_opc1, 16);
		in.op_is_opc = true;
		in.amf[0] = 0x80;
		assert_int_equal(udm_add(HW.udm, &in), 0);
		sue_init(&ue, msin, ASSOC, 1000 + i);
		ue.requested.n = 2;
		ue.requested.s[1] = SN2;
		sue_register(&HW, &ue, 2, 0);
		assert_int_equal(h_pending(&HW), 0);
	}
	amf_n2_assoc_down(HW.amf, ASSOC);   /* every UE CM-IDLE, registered */
	assert_int_equal(marked(), 0);
	assert_true(amf_set_slices(HW.amf, ONLY_SN1, 1) >= 0);
	assert_int_equal(marked(), AMF_NSSAI_STEP);   /* the first step only */
	while (marked() < N_WALK) {
		assert_true(ev_run_once(HW.loop, 10) >= 0);
		assert_true(++passes <= 10);
	}
	print_message("%u UEs re-evaluated: %u at once, the rest in %u more loop pass(es)\n", N_WALK,
		      AMF_NSSAI_STEP, passes);
	assert_int_equal(passes, 1);
	assert_false(HW.amf->nssai_walk.running);
	assert_int_equal(h_pending(&HW), 0);   /* idle: nothing sent, all marked */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_connected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_idle_then_service_request, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_before_complete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registration_after_change, setup, teardown),
		cmocka_unit_test_setup_teardown(test_new_registration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nothing_left, setup, teardown),
		cmocka_unit_test_setup_teardown(test_added_slice, setup, teardown),
		cmocka_unit_test_setup_teardown(test_resync_subscription, setup, teardown),
		cmocka_unit_test_setup_teardown(test_walk_in_steps, walk_setup, walk_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
