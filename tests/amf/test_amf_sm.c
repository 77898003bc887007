/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AMF + SMF in process (sm_fx.h): issue 6's 27-message cycle message by message with exact
 * NGAP counts, every PDU decoded and every downlink NAS MAC checked on the UE side (harness
 * sue_dl); two DNNs and two slices; rejects (unknown DNN, unsubscribed slice, exhausted pool,
 * no PSI, no routing context); gNB association loss with active sessions; service request
 * for an unknown UE (#9); paging with T3513 repeats answered by a service request; PDU
 * session status sync in service request and registration updating.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "sm_fx.h"
#include "testlib.h"

/* Issue 6's cycle: exactly 17 gNB->AMF and 10 AMF->gNB NGAP messages. */
static void test_cycle_27(void **state)
{
	(void)state;
	sm_cycle_27();
}

static void test_two_dnns_two_slices(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	struct amf_ue_info info;
	uint32_t a1, a2;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 1);
	ue.requested.n = 2;
	ue.requested.s[1] = SN2;
	sue_register(&H, &ue, 2, 0);
	a1 = establish(&ue, 1, "internet", &SN1);
	a2 = establish(&ue, 2, "ims", &SN2);
	assert_int_equal(ntohl(a1) >> 16, 0x0a2d);
	assert_int_equal(ntohl(a2) >> 8, 0x0a2e00);   /* 10.46.0.0/29 */
	pool_used("internet", 1);
	pool_used("ims", 1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.psi_map, (1u << 1) | (1u << 2));
	/* Default DNN and slice when the UE names neither: the subscription's first. */
	{
		struct nas_msg gsm;

		est_req(&ue, 3, NULL, NULL);
		assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_SETUP);
		inner_gsm(&dl, 3, &gsm);
		assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
		gnb_setup_rsp(&ue, 3, 0x333);
		pool_used("internet", 2);
	}
	/* Deregistration: every session released locally, every address back. */
	sue_dereg(&H, &ue, 0x01);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	pool_used("internet", 0);
	pool_used("ims", 0);
	assert_int_equal(sessions(), 0);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
}

/* Rejects: unknown DNN (#27 from the SMF), DNN not subscribed (#33), slice not allowed
 * (#90 from the AMF, TS 24.501 5.4.5.2.5), exhausted pool (#26), no PSI (5GMM STATUS
 * #100), a 5GSM message for a PSI without routing context (#90). */
static void test_rejects(void **state)
{
	struct sue u1, u2;
	struct nas_msg dl, gsm;
	uint32_t used, size, i;

	(void)state;
	sue_init(&u1, "0000000001", ASSOC, 1);
	u1.requested.n = 2;
	u1.requested.s[1] = SN2;
	sue_register(&H, &u1, 2, 0);
	registered(&u2, "0000000002", 2);

	est_req(&u1, 1, "nope", &SN1);
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(gsm.pdu_est_rej.cause, NAS_5GSM_MISSING_OR_UNKNOWN_DNN);

	est_req(&u2, 1, "ims", &SN1);
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(gsm.pdu_est_rej.cause, NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED);

	/* u2 is subscribed to slice 1 only: slice 2 is not in its allowed NSSAI. */
	est_req(&u2, 2, "internet", &SN2);
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_DL_NAS_TRANSPORT);
	assert_true(dl.dl_nas.has_cause);
	assert_int_equal(dl.dl_nas.cause, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
	assert_int_equal(nas_decode(dl.dl_nas.payload.p, dl.dl_nas.payload.len, &gsm, NULL), 0);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_REQUEST);   /* echoed back */

	/* Exhaust the ims pool with u1, then one more: #26. */
	assert_int_equal(smf_pool_usage(S, "ims", &used, &size), 0);
	assert_true(size >= 1 && size < 14);
	for (i = 0; i < size; i++)
		establish(&u1, (uint8_t)(1 + i), "ims", &SN2);
	pool_used("ims", size);
	est_req(&u1, (uint8_t)(1 + size), "ims", &SN2);
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	inner_gsm(&dl, (uint8_t)(1 + size), &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(gsm.pdu_est_rej.cause, NAS_5GSM_INSUFFICIENT_RESOURCES);

	/* N1 SM without a PDU session ID: 5GMM STATUS #100 (TS 24.501 7.6.3). */
	memset(&gsm, 0, sizeof(gsm));
	gsm.type = NAS_PDU_SESSION_RELEASE_REQUEST;
	gsm.psi = 1;
	gsm.pti = 9;
	sm_ul(&u2, &gsm, false, 0, -1, NULL, NULL);
	sue_dl(&H, &u2, &dl);
	assert_int_equal(dl.type, NAS_5GMM_STATUS);
	assert_int_equal(dl.gmm_status.cause, NAS_5GMM_CONDITIONAL_IE_ERROR);
	/* Release request for a PSI u2 has no session on: no routing context, #90. */
	gsm_simple(&u2, NAS_PDU_SESSION_RELEASE_REQUEST, 5, 9);
	sue_dl(&H, &u2, &dl);
	assert_int_equal(dl.type, NAS_DL_NAS_TRANSPORT);
	assert_int_equal(dl.dl_nas.cause, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
	assert_int_equal(dl.dl_nas.psi, 5);
	assert_int_equal(h_pending(&H), 0);

	/* Deregistering u1 returns the whole pool. */
	sue_dereg(&H, &u1, 0x09);   /* switch off: no accept */
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &u1);
	pool_used("ims", 0);
	assert_int_equal(sessions(), 0);
}

/* TS 38.413 8.14.1 (issue 14 item 7): the UE radio capability of a UE RADIO CAPABILITY
 * INFO INDICATION is kept and given back: in the PAGING (UE Radio Capability for Paging) and
 * in the INITIAL CONTEXT SETUP REQUEST of the next connection. */
static void test_radio_capability_kept(void **state)
{
	struct sue u;
	struct nas_msg dl;
	static struct ngap_msg g;
	static const uint8_t cap[] = { 0x04, 0x81, 0x20, 0x0c, 0x11, 0x22, 0x33 };
	static uint8_t pcap[64];
	static const uint8_t nrp[] = { 0xaa, 0xbb };
	uint32_t sid;
	int pn;

	(void)state;
	registered(&u, "0000000001", 1);
	establish(&u, 1, "internet", &SN1);
	pn = ngap_enc_ue_radio_cap_paging((struct ngap_bytes){ nrp, sizeof(nrp) }, (struct ngap_bytes){ NULL, 0 },
					  pcap, sizeof(pcap));
	assert_true(pn > 0);
	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION;
	g.u.ue_radio_capability_info_indication.amf_ue_id = u.amf_id;
	g.u.ue_radio_capability_info_indication.ran_ue_id = u.ran_id;
	g.u.ue_radio_capability_info_indication.ue_radio_capability = (struct ngap_bytes){ cap, sizeof(cap) };
	g.u.ue_radio_capability_info_indication.ue_radio_capability_for_paging = (struct ngap_bytes){ pcap, (size_t)pn };
	h_send(&H, ASSOC, 1, &g);
	assert_int_equal(h_pending(&H), 0);
	gnb_release_req(&u);
	sid = session_id_of(&u, 1);
	smf_upf_dl_data(S, sid);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	assert_int_equal(H.m.u.paging.ue_radio_capability_for_paging.len, (size_t)pn);
	assert_memory_equal(H.m.u.paging.ue_radio_capability_for_paging.p, pcap, (size_t)pn);
	service_req(&u, 9, false, 0, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &u, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(H.m.u.initial_context_setup_request.ue_radio_capability.len, sizeof(cap));
	assert_memory_equal(H.m.u.initial_context_setup_request.ue_radio_capability.p, cap, sizeof(cap));
}

/* TS 38.413 8.2.5 (issue 14 item 7): PDU SESSION RESOURCE MODIFY INDICATION with a new
 * DL tunnel -> the SMF moves the downlink, and the AMF answers MODIFY CONFIRM listing the
 * session as modified (no Error Indication). A NOTIFY releasing the session -> the network
 * releases it (PDU SESSION RELEASE COMMAND to the UE). */
static void test_modify_indication_and_notify(void **state)
{
	struct sue u;
	struct smf_sess_info si;
	struct ngap_modify_indication_transfer t;
	static uint8_t tr[256];
	struct nas_msg dl, gsm;
	int n;

	(void)state;
	registered(&u, "0000000001", 1);
	establish(&u, 1, "internet", &SN1);
	memset(&t, 0, sizeof(t));
	t.dl_tunnel.addr_bits = 32;
	memcpy(t.dl_tunnel.addr, &(uint32_t){ ip4("192.0.2.9") }, 4);
	t.dl_tunnel.teid[3] = 0x77;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_modify_indication_transfer(&t, tr, sizeof(tr));
	assert_true(n > 0);
	memset(&H.m, 0, sizeof(H.m));
	{
		static struct ngap_msg g;

		memset(&g, 0, sizeof(g));
		g.type = NGAP_INITIATING;
		g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION;
		g.u.pdu_session_resource_modify_indication.amf_ue_id = u.amf_id;
		g.u.pdu_session_resource_modify_indication.ran_ue_id = u.ran_id;
		g.u.pdu_session_resource_modify_indication.n_sessions = 1;
		g.u.pdu_session_resource_modify_indication.sessions[0].id = 1;
		g.u.pdu_session_resource_modify_indication.sessions[0].transfer.p = tr;
		g.u.pdu_session_resource_modify_indication.sessions[0].transfer.len = (size_t)n;
		h_send(&H, ASSOC, 1, &g);
	}
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION);
	assert_int_equal(H.m.u.pdu_session_resource_modify_confirm.n_modified, 1);
	assert_int_equal(H.m.u.pdu_session_resource_modify_confirm.modified[0].id, 1);
	sess(&u, 1, &si);
	assert_int_equal(si.gnb_teid, 0x77);
	{
		static struct ngap_msg g;
		static uint8_t rel[64];
		struct ngap_notify_released_transfer rt = { .cause = { NGAP_CAUSE_RADIO_NETWORK, 0 } };
		int rn = ngap_enc_notify_released_transfer(&rt, rel, sizeof(rel));

		assert_true(rn > 0);
		memset(&g, 0, sizeof(g));
		g.type = NGAP_INITIATING;
		g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_NOTIFY;
		g.u.pdu_session_resource_notify.amf_ue_id = u.amf_id;
		g.u.pdu_session_resource_notify.ran_ue_id = u.ran_id;
		g.u.pdu_session_resource_notify.n_released = 1;
		g.u.pdu_session_resource_notify.released[0].id = 1;
		g.u.pdu_session_resource_notify.released[0].transfer.p = rel;
		g.u.pdu_session_resource_notify.released[0].transfer.len = (size_t)rn;
		h_send(&H, ASSOC, 1, &g);
	}
	sue_dl(&H, &u, &dl);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
}

/* TS 23.502 4.3.2.2.1 step 1 (issue 14 item 8): a PDU session request without an
 * S-NSSAI gets the default from the UE's Allowed NSSAI (here only slice 2, what the UE
 * requested), not the subscription's first slice (1/010203). */
static void test_default_snssai_from_allowed(void **state)
{
	struct sue u;
	struct smf_sess_info si;

	(void)state;
	sue_init(&u, "0000000001", ASSOC, 1);
	u.requested.n = 1;
	u.requested.s[0] = SN2;
	sue_register(&H, &u, 2, 0);
	assert_int_equal(h_pending(&H), 0);
	establish(&u, 1, "internet", NULL);
	sess(&u, 1, &si);
	assert_int_equal(si.snssai.sst, 2);
}

/* TS 23.502 4.2.6 / TS 23.527 (issue 14 item 1; issue 6 asked for the opposite, the
 * specification wins): a gNB association lost while sessions are active is an AN release.
 * The sessions and their addresses stay, their user planes are deactivated; the gNB comes
 * back and u1's service request re-establishes them on the same addresses. */
static void test_gnb_loss_with_sessions(void **state)
{
	struct sue u1, u2;
	struct nas_msg dl;
	struct amf_ue_info info;
	struct smf_sess_info si;
	struct smf_stats st;
	uint32_t a1, a2;
	static const uint8_t both[2] = { 1, 2 };

	(void)state;
	registered(&u1, "0000000001", 1);
	registered(&u2, "0000000002", 2);
	a1 = establish(&u1, 1, "internet", &SN1);
	a2 = establish(&u1, 2, "ims", &SN1);
	establish(&u2, 1, "internet", &SN1);
	pool_used("internet", 2);
	pool_used("ims", 1);
	amf_n2_assoc_down(H.amf, ASSOC);
	assert_int_equal(sessions(), 3);
	pool_used("internet", 2);
	pool_used("ims", 1);
	smf_get_stats(S, &st);
	assert_int_equal(st.rel_local, 0);
	sess(&u1, 1, &si);
	assert_false(si.up_active);
	assert_int_equal(amf_ue_info_by_supi(H.amf, u1.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_int_equal(info.psi_map, (1u << 1) | (1u << 2));
	assert_int_equal(info.amf_ue_ngap_id, UINT64_MAX);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	/* The gNB comes back (a new NG Setup); u1's service request brings both back. */
	h_ng_setup(&H, ASSOC);
	service_req(&u1, 3, true, (1u << 1) | (1u << 2), true, (1u << 1) | (1u << 2));
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(dl.svc_acc.pdu_session_status, (1u << 1) | (1u << 2));
	assert_int_equal(dl.svc_acc.reactivation_result, 0);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 2);
	/* TS 38.413 9.2.2.1: UE-AMBR comes with the PDU session list (issue 14 item 3) */
	assert_true(H.m.u.initial_context_setup_request.has_ue_ambr);
	assert_true(H.m.u.initial_context_setup_request.ue_ambr.dl > 0);
	ics_rsp(&u1, 2, both);
	sess(&u1, 1, &si);
	assert_true(si.up_active);
	assert_int_equal(si.ue_addr, a1);
	sess(&u1, 2, &si);
	assert_true(si.up_active);
	assert_int_equal(si.ue_addr, a2);
}

/* A service request for a UE the AMF does not know: SERVICE REJECT #9 and release. */
static void test_service_request_unknown(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000009", ASSOC, 9);
	memset(&m, 0, sizeof(m));
	m.type = NAS_SERVICE_REQUEST;
	m.svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	m.svc_req.s_tmsi.guti.amf_set_id = H.cfg.amf_set_id;
	m.svc_req.s_tmsi.guti.amf_pointer = H.cfg.amf_pointer;
	m.svc_req.s_tmsi.guti.tmsi = 0x12345678;
	m.svc_req.has_ul_data_status = true;
	m.svc_req.ul_data_status = 1u << 1;
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_SERVICE_REJECT);
	assert_int_equal(dl.svc_rej.cause, NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.service_rej, 1);
	assert_int_equal(st.ues, 0);
}

/* Downlink data for an idle UE: PAGING to the gNB with the UE's 5G-S-TMSI and our TAI,
 * repeated on T3513; the service request (mobile terminated, no uplink data status)
 * reactivates the session with the data, paging stops, the user plane is active again. */
static void test_paging(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	struct amf_ue_info info;
	struct amf_stats st;
	struct smf_sess_info si;
	uint8_t one = 1;
	uint32_t sid;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	sid = session_id_of(&ue, 1);
	gnb_release_req(&ue);
	smf_upf_dl_data(S, sid);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	assert_int_equal(H.cur.stream, 0);
	assert_int_equal(H.m.u.paging.ue_paging_id.set_id, H.cfg.amf_set_id);
	assert_int_equal((uint32_t)H.m.u.paging.ue_paging_id.tmsi[0] << 24 |
			 (uint32_t)H.m.u.paging.ue_paging_id.tmsi[1] << 16 |
			 (uint32_t)H.m.u.paging.ue_paging_id.tmsi[2] << 8 | H.m.u.paging.ue_paging_id.tmsi[3],
			 ue.guti.guti.tmsi);
	assert_int_equal(H.m.u.paging.n_tais, 1);
	assert_int_equal(H.m.u.paging.tais[0].tac[2], 1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_true(info.paging);
	/* More downlink data while paging: no second PAGING before T3513. */
	smf_upf_dl_data(S, sid);
	assert_int_equal(h_pending(&H), 0);
	/* T3513 expiry: PAGING again. */
	h_run_until_tx(&H, 2000);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	/* The UE answers. */
	service_req(&ue, 4, false, 0, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(dl.svc_acc.pdu_session_status, 1u << 1);
	assert_false(dl.svc_acc.has_reactivation_result);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 1);
	assert_int_equal(H.m.u.initial_context_setup_request.sessions[0].id, 1);
	ics_rsp(&ue, 1, &one);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_false(info.paging);
	sess(&ue, 1, &si);
	assert_true(si.up_active);   /* downlink forwarded again, no longer buffered */
	/* TS 33.501 6.12.3: the paged 5G-S-TMSI was broadcast; a new 5G-GUTI follows by
	 * CONFIGURATION UPDATE COMMAND, in use once acknowledged. */
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_true(dl.cuc.has_guti);
	assert_true(dl.cuc.guti.guti.tmsi != ue.guti.guti.tmsi);
	{
		struct nas_msg cpl = { .type = NAS_CONFIGURATION_UPDATE_COMPLETE };
		uint32_t tmsi = dl.cuc.guti.guti.tmsi;

		sue_ul(&H, &ue, &cpl, NAS_SHT_INTEGRITY_CIPHERED);
		assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
		assert_int_equal(info.tmsi, tmsi);
	}
	/* No further paging once answered. */
	h_run_until_tx(&H, 100);
	assert_int_equal(h_pending(&H), 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.paging_sent, 2);
	assert_int_equal(st.paging_gave_up, 0);
}

/* Paging unanswered: four repeats, then the AMF gives up. */
static void test_paging_gives_up(void **state)
{
	struct sue ue;
	struct amf_stats st;
	int i;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	gnb_release_req(&ue);
	smf_upf_dl_data(S, session_id_of(&ue, 1));
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	for (i = 0; i < 4; i++) {
		h_run_until_tx(&H, 2000);
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	}
	h_run_until_tx(&H, 200);
	assert_int_equal(h_pending(&H), 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.paging_sent, 5);
	assert_int_equal(st.paging_gave_up, 1);
}

/* The UE's PDU session status omits a session: released locally (TS 24.501 5.6.1.4.1). */
static void test_service_status_sync(void **state)
{
	struct sue ue;
	struct nas_msg dl;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	establish(&ue, 2, "internet", &SN1);
	gnb_release_req(&ue);
	pool_used("internet", 2);
	service_req(&ue, 5, true, 1u << 2, true, 1u << 2);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.svc_acc.pdu_session_status, 1u << 2);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 1);
	assert_int_equal(H.m.u.initial_context_setup_request.sessions[0].id, 2);
	pool_used("internet", 1);
}

/* Periodic registration updating with a PDU session status that omits PSI 2: released
 * locally, the accept's PDU session status says what the network still holds. */
static void test_registration_status_sync(void **state)
{
	struct sue ue;
	struct nas_msg m, dl;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	establish(&ue, 2, "internet", &SN1);
	gnb_release_req(&ue);
	ue.ran_id = 6;
	sue_reg_req(&ue, &m, true);
	m.reg_req.reg_type = 0x03;   /* periodic registration updating */
	m.reg_req.has_pdu_session_status = true;
	m.reg_req.pdu_session_status = 1u << 1;
	sue_initial(&H, &ue, &m, NAS_SHT_INTEGRITY);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	assert_true(dl.reg_acc.has_pdu_session_status);
	assert_int_equal(dl.reg_acc.pdu_session_status, 1u << 1);
	pool_used("internet", 1);
	ue.guti = dl.reg_acc.guti;
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	/* No CONFIGURATION UPDATE COMMAND after a registration updating (not initial). */
	assert_int_equal(h_pending(&H), 0);
}

/* SMF-initiated procedures through the AMF's ops.send: a session-AMBR modification (PDU
 * Session Resource Modify Request carrying the MODIFICATION COMMAND, then COMPLETE), a
 * network-requested release (Release Command with N2 + N1), and a release while the UE is
 * CM-IDLE (the AMF answers -EAGAIN: released locally). */
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cycle_27, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_dnns_two_slices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gnb_loss_with_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_default_snssai_from_allowed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_modify_indication_and_notify, setup, teardown),
		cmocka_unit_test_setup_teardown(test_radio_capability_kept, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_request_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paging_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_status_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registration_status_sync, setup, teardown),
	};

	return cmocka_run_group_tests_name("amf_sm", tests, NULL, NULL);
}
