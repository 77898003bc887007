/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AMF + SMF in process (smf over a NULL upf: no user plane, addresses and TEIDs still
 * allocated): issue 6's 27-message cycle message by message with exact NGAP counts, every
 * PDU decoded and every downlink NAS MAC checked on the UE side (harness sue_dl); two DNNs
 * and two slices; rejects (unknown DNN, unsubscribed slice, exhausted pool, no PSI, no
 * routing context); gNB association loss with active sessions; service request for an
 * unknown UE (#9); paging with T3513 repeats answered by a service request.
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

#include "common/conf.h"
#include "harness.h"
#include "smf/smf.h"
#include "testlib.h"

#ifndef TSHARK
#define TSHARK "/nonexistent/tshark"
#endif

#define ASSOC 7
#define N3_ADDR "192.0.2.1"
#define GNB_ADDR "192.0.2.2"
#define SUPI1 "imsi-001010000000001"   /* slices 1/010203 and 2; DNNs internet, ims */
#define SUPI2 "imsi-001010000000002"   /* slice 1/010203; DNN internet */

static struct h H;
static struct conf C;
static struct smf *S;

static uint32_t ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void add_sub(const char *supi, bool two)
{
	struct udm_sub_in in;

	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "%s", supi);
	in.data.slices[0] = (struct udm_snssai){ 1, 0x010203 };
	in.data.n_slices = 1;
	in.data.dnns[0] = "internet";
	in.data.n_dnns = 1;
	if (two) {
		in.data.slices[1] = (struct udm_snssai){ 2, AMF_SD_NONE };
		in.data.n_slices = 2;
		in.data.dnns[1] = "ims";
		in.data.n_dnns = 2;
	}
	memcpy(in.k, h_k1, 16);
	memcpy(in.opc, h_opc1, 16);
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	assert_int_equal(udm_add(H.udm, &in), 0);
}

static int setup(void **state)
{
	struct amf_cfg cfg;
	struct smf_params p;
	int err = 0;

	(void)state;
	h_cfg(&cfg);
	assert_true(cfg.cuc_after_reg);   /* the default: CUC after every initial registration */
	cfg.slices[1] = (struct amf_snssai){ 2, AMF_SD_NONE };
	cfg.n_slices = 2;
	cfg.t3513_ms = 20;
	h_init(&H, &cfg);
	add_sub(SUPI1, true);
	add_sub(SUPI2, false);

	assert_int_equal(conf_defaults(&C), 0);
	C.n_dnns = 2;
	snprintf(C.dnns[0].name, sizeof(C.dnns[0].name), "internet");
	snprintf(C.dnns[0].pool, sizeof(C.dnns[0].pool), "10.45.0.0/16");
	snprintf(C.dnns[1].name, sizeof(C.dnns[1].name), "ims");
	snprintf(C.dnns[1].pool, sizeof(C.dnns[1].pool), "10.46.0.0/29");
	C.n_slices = 2;
	C.slices[0] = (struct conf_slice){ 1, true, 0x010203 };
	C.slices[1] = (struct conf_slice){ 2, false, 0 };
	memset(&p, 0, sizeof(p));
	p.conf = &C;
	p.loop = H.loop;
	p.udm = H.udm;
	p.upf = NULL;
	p.n3_addr = ip4(N3_ADDR);
	p.max_sessions = 64;
	p.max_ues = 64;
	p.t3591_ms = 20;
	p.t3592_ms = 20;
	amf_smf_ops(H.amf, &p.ops);
	S = smf_new(&p, &err);
	assert_non_null(S);
	amf_set_smf(H.amf, S);
	h_ng_setup(&H, ASSOC);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	/* amf.h: the AMF first, then the SMF, with no loop iteration in between. */
	amf_free(H.amf);
	H.amf = NULL;
	smf_free(S);
	S = NULL;
	h_fini(&H);
	return 0;
}

static void pool_used(const char *dnn, uint32_t want)
{
	uint32_t used = 99, size = 0;

	assert_int_equal(smf_pool_usage(S, dnn, &used, &size), 0);
	assert_int_equal(used, want);
}

static uint64_t sessions(void)
{
	struct smf_stats st;

	smf_get_stats(S, &st);
	return st.sessions;
}

/* UL NAS TRANSPORT carrying a 5GSM message (N1 SM information). */
static void sm_ul(struct sue *ue, const struct nas_msg *gsm, bool has_psi, uint8_t psi, int req_type,
		  const char *dnn, const struct nas_snssai *sn)
{
	static uint8_t pl[512], dn[64];
	struct nas_msg m;
	struct nas_err err;
	int n = nas_encode(gsm, pl, sizeof(pl), &err);

	assert_true(n > 0);
	memset(&m, 0, sizeof(m));
	m.type = NAS_UL_NAS_TRANSPORT;
	m.ul_nas.payload_type = NAS_PAYLOAD_N1_SM;
	m.ul_nas.payload = (struct nas_buf){ pl, (uint16_t)n };
	m.ul_nas.has_psi = has_psi;
	m.ul_nas.psi = psi;
	if (req_type >= 0) {
		m.ul_nas.has_request_type = true;
		m.ul_nas.request_type = (uint8_t)req_type;
	}
	if (dnn) {
		int l = nas_dnn_enc(dnn, dn, sizeof(dn));

		assert_true(l > 0);
		m.ul_nas.has_dnn = true;
		m.ul_nas.dnn = (struct nas_buf){ dn, (uint16_t)l };
	}
	if (sn) {
		m.ul_nas.has_snssai = true;
		m.ul_nas.snssai = *sn;
	}
	sue_ul(&H, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
}

static void est_req(struct sue *ue, uint8_t psi, const char *dnn, const struct nas_snssai *sn)
{
	static const uint8_t imr[2] = { 0xff, 0xff };
	struct nas_msg g;

	memset(&g, 0, sizeof(g));
	g.type = NAS_PDU_SESSION_ESTABLISHMENT_REQUEST;
	g.psi = psi;
	g.pti = (uint8_t)(psi + 10);
	g.pdu_est_req.integrity_max_rate = (struct nas_buf){ imr, 2 };
	g.pdu_est_req.has_pdu_session_type = true;
	g.pdu_est_req.pdu_session_type = NAS_PDU_IPV4;
	sm_ul(ue, &g, true, psi, 1 /* initial request */, dnn, sn);
}

static void gsm_simple(struct sue *ue, uint8_t type, uint8_t psi, uint8_t pti)
{
	struct nas_msg g;

	memset(&g, 0, sizeof(g));
	g.type = type;
	g.psi = psi;
	g.pti = pti;
	sm_ul(ue, &g, true, psi, -1, NULL, NULL);
}

/* The DL NAS TRANSPORT (N1 SM) just popped by sue_dl: decode the 5GSM message. */
static void inner_gsm(const struct nas_msg *dl, uint8_t psi, struct nas_msg *gsm)
{
	struct nas_err err;

	assert_int_equal(dl->type, NAS_DL_NAS_TRANSPORT);
	assert_int_equal(dl->dl_nas.payload_type, NAS_PAYLOAD_N1_SM);
	assert_true(dl->dl_nas.has_psi);
	assert_int_equal(dl->dl_nas.psi, psi);
	assert_int_equal(nas_decode(dl->dl_nas.payload.p, dl->dl_nas.payload.len, gsm, &err), 0);
	assert_int_equal(gsm->psi, psi);
}

static size_t setup_rsp_transfer(uint8_t *buf, size_t cap, uint32_t teid)
{
	struct ngap_setup_response_transfer t;
	uint32_t a = ip4(GNB_ADDR);
	int n;

	memset(&t, 0, sizeof(t));
	memcpy(t.dl_tunnel.addr, &a, 4);
	t.dl_tunnel.addr_bits = 32;
	t.dl_tunnel.teid[0] = (uint8_t)(teid >> 24);
	t.dl_tunnel.teid[1] = (uint8_t)(teid >> 16);
	t.dl_tunnel.teid[2] = (uint8_t)(teid >> 8);
	t.dl_tunnel.teid[3] = (uint8_t)teid;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_setup_response_transfer(&t, buf, cap);
	assert_true(n > 0);
	return (size_t)n;
}

/* PDU SESSION RESOURCE SETUP RESPONSE for psi. */
static void gnb_setup_rsp(struct sue *ue, uint8_t psi, uint32_t teid)
{
	static struct ngap_msg g;
	static uint8_t tr[128];

	memset(&g, 0, sizeof(g));
	g.type = NGAP_SUCCESSFUL;
	g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_SETUP;
	g.u.pdu_session_resource_setup_response.amf_ue_id = ue->amf_id;
	g.u.pdu_session_resource_setup_response.ran_ue_id = ue->ran_id;
	g.u.pdu_session_resource_setup_response.n_setup = 1;
	g.u.pdu_session_resource_setup_response.setup[0].id = psi;
	g.u.pdu_session_resource_setup_response.setup[0].transfer.p = tr;
	g.u.pdu_session_resource_setup_response.setup[0].transfer.len = setup_rsp_transfer(tr, sizeof(tr), teid);
	h_send(&H, ue->assoc, 1, &g);
}

static void sess(const struct sue *ue, uint8_t psi, struct smf_sess_info *si);

/* Establish psi: request, check the Setup Request (accept inside), answer it. Returns the
 * UE address (network order). */
static uint32_t establish(struct sue *ue, uint8_t psi, const char *dnn, const struct nas_snssai *sn)
{
	struct nas_msg dl, gsm;
	struct ngap_setup_request_transfer t;
	struct smf_sess_info si;
	uint32_t addr;

	est_req(ue, psi, dnn, sn);
	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_SETUP);
	assert_int_equal(ue->last_sht, NAS_SHT_INTEGRITY_CIPHERED);
	inner_gsm(&dl, psi, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_true(gsm.pdu_est_acc.has_pdu_address);
	memcpy(&addr, gsm.pdu_est_acc.pdu_address.ipv4, 4);
	/* The NGAP item: PSI, S-NSSAI, and a Setup Request Transfer towards our N3 address. */
	assert_int_equal(H.m.u.pdu_session_resource_setup_request.n_sessions, 1);
	assert_int_equal(H.m.u.pdu_session_resource_setup_request.sessions[0].id, psi);
	assert_true(H.m.u.pdu_session_resource_setup_request.sessions[0].has_snssai);
	assert_int_equal(ngap_dec_setup_request_transfer(H.m.u.pdu_session_resource_setup_request.sessions[0].transfer.p,
							 H.m.u.pdu_session_resource_setup_request.sessions[0].transfer.len,
							 &t, NULL), 0);
	assert_int_equal(t.ul_tunnel.addr_bits, 32);
	assert_memory_equal(t.ul_tunnel.addr, &(uint32_t){ ip4(N3_ADDR) }, 4);
	assert_int_equal(t.n_flows, 1);
	if (sn) {
		assert_int_equal(H.m.u.pdu_session_resource_setup_request.sessions[0].snssai.sst, sn->sst);
		assert_int_equal(H.m.u.pdu_session_resource_setup_request.sessions[0].snssai.has_sd, sn->has_sd);
	}
	gnb_setup_rsp(ue, psi, 0x100u + psi);
	assert_int_equal(h_pending(&H), 0);
	sess(ue, psi, &si);
	assert_int_equal(si.state, SMF_ST_ACTIVE);
	assert_true(si.up_active);
	assert_int_equal(si.ue_addr, addr);
	assert_int_equal(si.gnb_teid, 0x100u + psi);
	return addr;
}

/* Session info through the SMF handle the AMF attached for the UE. */
static void sess(const struct sue *ue, uint8_t psi, struct smf_sess_info *si)
{
	struct amf_ue_info info;

	assert_int_equal(amf_ue_info_by_supi(H.amf, ue->supi, &info), 0);
	assert_non_null(info.sm);
	assert_int_equal(smf_sess_info(S, info.sm, psi, si), 0);
}

static uint32_t session_id_of(const struct sue *ue, uint8_t psi)
{
	struct smf_sess_info si;

	sess(ue, psi, &si);
	return si.session_id;
}

static void registered(struct sue *ue, const char *msin, uint32_t ran_id)
{
	sue_init(ue, msin, ASSOC, ran_id);
	sue_register(&H, ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);
}

static void gnb_release_req(struct sue *ue)
{
	static struct ngap_msg g;

	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST;
	g.u.ue_context_release_request.amf_ue_id = ue->amf_id;
	g.u.ue_context_release_request.ran_ue_id = ue->ran_id;
	g.u.ue_context_release_request.n_sessions = 1;
	g.u.ue_context_release_request.session_ids[0] = 1;
	g.u.ue_context_release_request.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 20 };
	h_send(&H, ue->assoc, 1, &g);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, ue);
}

static void service_req(struct sue *ue, uint32_t ran_id, bool has_uds, uint16_t uds, bool has_pss, uint16_t pss)
{
	struct nas_msg m;

	ue->ran_id = ran_id;
	memset(&m, 0, sizeof(m));
	m.type = NAS_SERVICE_REQUEST;
	m.svc_req.ngksi = ue->ngksi;
	m.svc_req.service_type = has_uds ? 1 /* data */ : 2 /* mobile terminated services */;
	m.svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	m.svc_req.s_tmsi.guti.amf_set_id = H.cfg.amf_set_id;
	m.svc_req.s_tmsi.guti.amf_pointer = H.cfg.amf_pointer;
	m.svc_req.s_tmsi.guti.tmsi = ue->guti.guti.tmsi;
	m.svc_req.has_ul_data_status = has_uds;
	m.svc_req.ul_data_status = uds;
	m.svc_req.has_pdu_session_status = has_pss;
	m.svc_req.pdu_session_status = pss;
	sue_initial(&H, ue, &m, NAS_SHT_INTEGRITY);
}

static void ics_rsp(struct sue *ue, uint8_t n, const uint8_t *psis)
{
	static struct ngap_msg g;
	static uint8_t tr[4][128];
	uint8_t i;

	memset(&g, 0, sizeof(g));
	g.type = NGAP_SUCCESSFUL;
	g.proc = NGAP_PROC_INITIAL_CONTEXT_SETUP;
	g.u.initial_context_setup_response.amf_ue_id = ue->amf_id;
	g.u.initial_context_setup_response.ran_ue_id = ue->ran_id;
	g.u.initial_context_setup_response.n_setup = n;
	for (i = 0; i < n; i++) {
		g.u.initial_context_setup_response.setup[i].id = psis[i];
		g.u.initial_context_setup_response.setup[i].transfer.p = tr[i];
		g.u.initial_context_setup_response.setup[i].transfer.len =
			setup_rsp_transfer(tr[i], sizeof(tr[i]), 0x200u + psis[i]);
	}
	h_send(&H, ue->assoc, 1, &g);
}

static const struct nas_snssai SN1 = { .sst = 1, .has_sd = 1, .sd = 0x010203 };
static const struct nas_snssai SN2 = { .sst = 2 };

/* UE-requested release of psi: request, Release Command (N2 + N1), response, complete. */
static void release_session(struct sue *ue, uint8_t psi)
{
	struct nas_msg dl, gsm;

	gsm_simple(ue, NAS_PDU_SESSION_RELEASE_REQUEST, psi, 5);
	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	inner_gsm(&dl, psi, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(H.m.u.pdu_session_resource_release_command.n_sessions, 1);
	assert_int_equal(H.m.u.pdu_session_resource_release_command.sessions[0].id, psi);
	{
		static struct ngap_msg g;
		static uint8_t tr[16];
		struct ngap_release_response_transfer rt = { 0 };
		int n = ngap_enc_release_response_transfer(&rt, tr, sizeof(tr));

		assert_true(n > 0);
		memset(&g, 0, sizeof(g));
		g.type = NGAP_SUCCESSFUL;
		g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE;
		g.u.pdu_session_resource_release_response.amf_ue_id = ue->amf_id;
		g.u.pdu_session_resource_release_response.ran_ue_id = ue->ran_id;
		g.u.pdu_session_resource_release_response.n_sessions = 1;
		g.u.pdu_session_resource_release_response.sessions[0].id = psi;
		g.u.pdu_session_resource_release_response.sessions[0].transfer.p = tr;
		g.u.pdu_session_resource_release_response.sessions[0].transfer.len = (size_t)n;
		h_send(&H, ue->assoc, 1, &g);
	}
	gsm_simple(ue, NAS_PDU_SESSION_RELEASE_COMPLETE, psi, 5);
}

/* Issue 6's cycle: exactly 17 gNB->AMF and 10 AMF->gNB NGAP messages. */
static void test_cycle_27(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	struct amf_ue_info info;
	struct ngap_setup_request_transfer t;
	struct smf_stats st;
	struct amf_stats ast;
	unsigned up0 = H.n_up, down0 = H.n_down;
	uint8_t kgnb[32];
	uint32_t count, addr;
	uint8_t one = 1;

	(void)state;
	/* 1-10: registration, then the CONFIGURATION UPDATE COMMAND (default) and COMPLETE. */
	registered(&ue, "0000000001", 1);
	assert_int_equal(H.n_up - up0, 6);
	assert_int_equal(H.n_down - down0, 4);
	assert_int_equal(H.n_cuc, 1);
	assert_true(H.cuc.cuc.has_full_name);        /* amf_name */
	assert_true(H.cuc.cuc.has_local_time_zone);  /* UTC */
	assert_int_equal(H.cuc.cuc.local_time_zone, 0);
	/* 11-13: PDU session establishment. */
	addr = establish(&ue, 1, "internet", &SN1);
	assert_int_equal(ntohl(addr) >> 16, 0x0a2d);   /* 10.45/16 */
	pool_used("internet", 1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.psi_map, 1u << 1);
	/* 14-16: the gNB releases the UE context: user plane deactivated, session kept. */
	gnb_release_req(&ue);
	smf_get_stats(S, &st);
	assert_int_equal(st.up_deactivated, 1);
	assert_int_equal(st.sessions, 1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_int_equal(info.amf_ue_ngap_id, UINT64_MAX);
	/* 17-19: service request with uplink data for PSI 1: ICS with the session item. */
	count = ue.ul;
	service_req(&ue, 2, true, 1u << 1, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_true(dl.svc_acc.has_pdu_session_status);
	assert_int_equal(dl.svc_acc.pdu_session_status, 1u << 1);
	assert_true(dl.svc_acc.has_reactivation_result);
	assert_int_equal(dl.svc_acc.reactivation_result, 0);
	assert_int_equal(crypto_kdf_kgnb(ue.kamf, count, CRYPTO_ACCESS_3GPP, kgnb), 0);
	assert_memory_equal(H.m.u.initial_context_setup_request.security_key, kgnb, 32);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 1);
	assert_int_equal(H.m.u.initial_context_setup_request.sessions[0].id, 1);
	assert_true(H.m.u.initial_context_setup_request.sessions[0].has_snssai);
	assert_int_equal(ngap_dec_setup_request_transfer(H.m.u.initial_context_setup_request.sessions[0].transfer.p,
							 H.m.u.initial_context_setup_request.sessions[0].transfer.len,
							 &t, NULL), 0);
	assert_memory_equal(t.ul_tunnel.addr, &(uint32_t){ ip4(N3_ADDR) }, 4);
	ics_rsp(&ue, 1, &one);
	smf_get_stats(S, &st);
	assert_int_equal(st.up_reactivated, 1);
	assert_int_equal(h_pending(&H), 0);
	/* 20-23: UE-requested release. */
	release_session(&ue, 1);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(sessions(), 0);
	pool_used("internet", 0);
	/* 24-27: UE-originating deregistration. */
	sue_dereg(&H, &ue, 0x01);
	sue_dl(&H, &ue, &dl);
	assert_int_equal(dl.type, NAS_DEREGISTRATION_ACCEPT_UE_ORIG);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	assert_int_equal(h_pending(&H), 0);
	/* The cycle on the wire: 17 up, 10 down. */
	assert_int_equal(H.n_up - up0, 17);
	assert_int_equal(H.n_down - down0, 10);
	amf_get_stats(H.amf, &ast);
	assert_int_equal(ast.ues, 0);
	assert_int_equal(ast.sm_forwarded, 3);
	assert_int_equal(ast.service_req, 1);
	smf_get_stats(S, &st);
	assert_int_equal(st.est_accepted, 1);
	assert_int_equal(st.rel_ue, 1);
	assert_int_equal(st.sessions, 0);
}

/* Two DNNs on two slices for one UE; deregistration returns both addresses. */
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

/* Issue 6: a gNB association lost while sessions are active: every session released (no
 * rule, no address, no session context left); the UEs are CM-IDLE and learn it from the
 * PDU session status of their next service request. */
static void test_gnb_loss_with_sessions(void **state)
{
	struct sue u1, u2;
	struct nas_msg dl;
	struct amf_ue_info info;
	struct smf_stats st;

	(void)state;
	registered(&u1, "0000000001", 1);
	registered(&u2, "0000000002", 2);
	establish(&u1, 1, "internet", &SN1);
	establish(&u1, 2, "ims", &SN1);
	establish(&u2, 1, "internet", &SN1);
	pool_used("internet", 2);
	pool_used("ims", 1);
	amf_n2_assoc_down(H.amf, ASSOC);
	assert_int_equal(sessions(), 0);
	pool_used("internet", 0);
	pool_used("ims", 0);
	smf_get_stats(S, &st);
	assert_int_equal(st.rel_local, 3);
	assert_int_equal(amf_ue_info_by_supi(H.amf, u1.supi, &info), 0);
	assert_int_equal(info.psi_map, 0);
	assert_int_equal(info.amf_ue_ngap_id, UINT64_MAX);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	/* The gNB comes back; u1's service request learns that no session is left. */
	h_ng_setup(&H, ASSOC);
	service_req(&u1, 3, true, 1u << 1, true, (1u << 1) | (1u << 2));
	assert_int_equal(sue_dl(&H, &u1, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	assert_int_equal(dl.svc_acc.pdu_session_status, 0);
	assert_int_equal(dl.svc_acc.reactivation_result, 1u << 1);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 0);
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
static void test_network_modify_release(void **state)
{
	struct sue ue;
	struct nas_msg dl, gsm;
	struct amf_ue_info info;
	struct smf_sess_info si;
	struct smf_stats st;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	establish(&ue, 2, "internet", &SN1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(smf_modify_ambr(S, info.sm, 1, 5000000, 9000000), 0);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_MODIFICATION_COMMAND);
	assert_true(gsm.pdu_mod_cmd.has_ambr);
	assert_int_equal(H.m.u.pdu_session_resource_modify_request.n_sessions, 1);
	assert_int_equal(H.m.u.pdu_session_resource_modify_request.sessions[0].id, 1);
	{
		static struct ngap_msg g;
		static uint8_t tr[32];
		struct ngap_modify_response_transfer mt;
		int n;

		memset(&mt, 0, sizeof(mt));
		n = ngap_enc_modify_response_transfer(&mt, tr, sizeof(tr));
		assert_true(n > 0);
		memset(&g, 0, sizeof(g));
		g.type = NGAP_SUCCESSFUL;
		g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY;
		g.u.pdu_session_resource_modify_response.amf_ue_id = ue.amf_id;
		g.u.pdu_session_resource_modify_response.ran_ue_id = ue.ran_id;
		g.u.pdu_session_resource_modify_response.n_modified = 1;
		g.u.pdu_session_resource_modify_response.modified[0].id = 1;
		g.u.pdu_session_resource_modify_response.modified[0].transfer.p = tr;
		g.u.pdu_session_resource_modify_response.modified[0].transfer.len = (size_t)n;
		h_send(&H, ue.assoc, 1, &g);
	}
	gsm_simple(&ue, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, gsm.pti);
	assert_int_equal(h_pending(&H), 0);
	sess(&ue, 1, &si);
	assert_int_equal(si.state, SMF_ST_ACTIVE);
	assert_int_equal(si.ambr_dl_bps, 9000000);
	smf_get_stats(S, &st);
	assert_int_equal(st.mod_ok, 1);

	/* Network-requested release of PSI 1 (#36 regular deactivation). */
	assert_int_equal(smf_release(S, info.sm, 1, 36), 0);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(gsm.pdu_rel_cmd.cause, 36);

	/* PSI 2 released while the UE is idle: no message, released locally. */
	gnb_release_req(&ue);
	assert_int_equal(smf_release(S, info.sm, 2, 36), 0);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.psi_map & (1u << 2), 0);
}

/* Garbage from the gNB and the UE on the session paths: mutated PDU Session Resource
 * Setup Responses (transfer bytes included) and random 5GSM payloads in protected UL NAS
 * TRANSPORTs (200). Nothing crashes, no address leaks, and a session still works afterwards. */
static void test_session_garbage(void **state)
{
	struct sue ue;
	struct nas_msg dl, m;
	static uint8_t good[512], buf[512], pl[64];
	static struct ngap_msg g;
	static uint8_t tr[128];
	uint32_t rnd = 12345, used, size;
	int n, i, j;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	memset(&g, 0, sizeof(g));
	g.type = NGAP_SUCCESSFUL;
	g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_SETUP;
	g.u.pdu_session_resource_setup_response.amf_ue_id = ue.amf_id;
	g.u.pdu_session_resource_setup_response.ran_ue_id = ue.ran_id;
	g.u.pdu_session_resource_setup_response.n_setup = 1;
	g.u.pdu_session_resource_setup_response.setup[0].id = 1;
	g.u.pdu_session_resource_setup_response.setup[0].transfer.p = tr;
	g.u.pdu_session_resource_setup_response.setup[0].transfer.len = setup_rsp_transfer(tr, sizeof(tr), 7);
	n = ngap_encode(&g, good, sizeof(good));
	assert_true(n > 0);
	for (i = 0; i < 3000; i++) {
		memcpy(buf, good, (size_t)n);
		for (j = 0; j < 1 + i % 4; j++) {
			rnd = rnd * 1103515245u + 12345u;
			buf[(rnd >> 8) % (uint32_t)n] ^= (uint8_t)(1u << ((rnd >> 4) & 7));
		}
		amf_n2_rx(H.amf, ASSOC, 1, buf, (size_t)n);
		while (h_pop(&H))
			;
	}
	/* 200: the harness's UE reads the downlink COUNT from its 8-bit SQN (< 256 messages). */
	for (i = 0; i < 200; i++) {
		for (j = 0; j < (int)sizeof(pl); j++) {
			rnd = rnd * 1103515245u + 12345u;
			pl[j] = (uint8_t)(rnd >> 16);
		}
		pl[0] = NAS_EPD_5GSM;
		pl[1] = (uint8_t)(1 + i % 15);
		memset(&m, 0, sizeof(m));
		m.type = NAS_UL_NAS_TRANSPORT;
		m.ul_nas.payload_type = NAS_PAYLOAD_N1_SM;
		m.ul_nas.payload = (struct nas_buf){ pl, (uint16_t)(4 + i % 60) };
		m.ul_nas.has_psi = true;
		m.ul_nas.psi = pl[1];
		if (i & 1) {
			m.ul_nas.has_request_type = true;
			m.ul_nas.request_type = 1;
		}
		sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
		while (h_pending(&H))
			sue_dl(&H, &ue, &dl);   /* whatever comes back carries a valid MAC */
	}
	/* Sessions may have been touched; release all by deregistration: nothing left. */
	sue_dereg(&H, &ue, 0x09);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	assert_int_equal(sessions(), 0);
	assert_int_equal(smf_pool_usage(S, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	/* A fresh registration and session work. */
	registered(&ue, "0000000002", 9);
	establish(&ue, 1, "internet", &SN1);
	pool_used("internet", 1);
}

/* No allocator call from our code (amf, smf, ausf, udm, codecs) during a whole cycle of a
 * second UE, after the first warmed the timer heap and the deferred-call ring. */
static void test_no_alloc_cycle(void **state)
{
	struct sue u2;
	struct nas_msg dl;
	uint8_t one = 1;
	unsigned n;

	test_cycle_27(state);
	{
		void *volatile p;   /* control: the wrapper sees this executable's allocations */

		nomalloc_begin();
		p = malloc(16);
		free(p);
		assert_int_equal(nomalloc_end(), 1);
	}
	sue_init(&u2, "0000000002", ASSOC, 20);
	nomalloc_begin();
	sue_register(&H, &u2, 2, 0);
	establish(&u2, 1, "internet", &SN1);
	gnb_release_req(&u2);
	service_req(&u2, 21, true, 1u << 1, true, 1u << 1);
	sue_dl(&H, &u2, &dl);
	ics_rsp(&u2, 1, &one);
	release_session(&u2, 1);
	sue_dereg(&H, &u2, 0x01);
	sue_dl(&H, &u2, &dl);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &u2);
	n = nomalloc_end();
	assert_int_equal(n, 0);
	assert_int_equal(sessions(), 0);
}

static unsigned count_lines(const char *cmd)
{
	char line[512];
	unsigned n = 0;
	FILE *p = popen(cmd, "r");

	assert_non_null(p);
	while (fgets(line, sizeof(line), p)) {
		fprintf(stderr, "tshark: %s", line);
		n++;
	}
	pclose(p);
	return n;
}

/* The cycle, a #90 not-forwarded answer and a paging round written to a pcap (NEA0, so
 * the NAS is readable) and decoded by tshark: every frame NGAP, none malformed. */
static void test_tshark(void **state)
{
	static const char *const names[] = { "PDUSessionResourceSetupRequest", "PDUSessionResourceReleaseCommand",
					     "Paging", "PDU session establishment accept",
					     "PDU session release command", "Configuration update command" };
	char path[] = "/tmp/solocore-amf-sm-XXXXXX.pcap", cmd[1024];
	struct sue u2;
	struct nas_msg dl;
	uint8_t one = 1;
	unsigned i;
	int fd;

	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	H.pcap = pcapw_open(path, PCAPW_SCTP_IPV4);
	assert_non_null(H.pcap);
	test_cycle_27(state);
	registered(&u2, "0000000002", 2);
	est_req(&u2, 2, "internet", &SN2);   /* slice not allowed: #90 */
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	establish(&u2, 1, "internet", &SN1);
	gnb_release_req(&u2);
	smf_upf_dl_data(S, session_id_of(&u2, 1));
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	service_req(&u2, 3, false, 0, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	ics_rsp(&u2, 1, &one);
	assert_int_equal(pcapw_close(H.pcap), 0);
	H.pcap = NULL;

	snprintf(cmd, sizeof(cmd), "%s -n -r %s 2>/dev/null", TSHARK, path);
	assert_true(count_lines(cmd) >= 27 + 14);
	snprintf(cmd, sizeof(cmd), "%s -n -r %s -Y '!ngap' 2>/dev/null", TSHARK, path);
	assert_int_equal(count_lines(cmd), 0);
	snprintf(cmd, sizeof(cmd),
		 "%s -n -r %s -o nas-5gs.null_decipher:TRUE -Y '_ws.malformed || _ws.expert.severity >= \"Error\"' 2>/dev/null", TSHARK, path);
	assert_int_equal(count_lines(cmd), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(cmd, sizeof(cmd), "%s -n -r %s -o nas-5gs.null_decipher:TRUE -V 2>/dev/null | grep -m1 -i '%s'", TSHARK, path, names[i]);
		assert_int_equal(count_lines(cmd), 1);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_cycle_27, setup, teardown),
		cmocka_unit_test_setup_teardown(test_two_dnns_two_slices, setup, teardown),
		cmocka_unit_test_setup_teardown(test_rejects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gnb_loss_with_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_request_unknown, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paging, setup, teardown),
		cmocka_unit_test_setup_teardown(test_paging_gives_up, setup, teardown),
		cmocka_unit_test_setup_teardown(test_service_status_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_registration_status_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_alloc_cycle, setup, teardown),
		cmocka_unit_test_setup_teardown(test_network_modify_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_garbage, setup, teardown),
	};
	const struct CMUnitTest tshark_tests[] = {
		cmocka_unit_test_setup_teardown(test_tshark, setup, teardown),
	};

#ifdef AMF_SM_TSHARK
	/* Built a second time as amf_sm_tshark: only the tshark check, SKIP without tshark. */
	(void)tests;
	if (access(TSHARK, X_OK) != 0) {
		printf("SKIP: tshark not available (%s)\n", TSHARK);
		return 77;
	}
	return cmocka_run_group_tests_name("amf_sm_tshark", tshark_tests, NULL, NULL);
#else
	(void)tshark_tests;

	return cmocka_run_group_tests(tests, NULL, NULL);
#endif
}
