/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Fixture for the AMF + SMF session tests (see sm_fx.h). */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "sm_fx.h"

struct h H;
struct conf C;
struct smf *S;

uint32_t ip4(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

void add_sub(const char *supi, bool two)
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

void (*sm_fx_cfg_hook)(struct amf_cfg *cfg);

int setup(void **state)
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
	if (sm_fx_cfg_hook)
		sm_fx_cfg_hook(&cfg);
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

int teardown(void **state)
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

void pool_used(const char *dnn, uint32_t want)
{
	uint32_t used = 99, size = 0;

	assert_int_equal(smf_pool_usage(S, dnn, &used, &size), 0);
	assert_int_equal(used, want);
}

uint64_t sessions(void)
{
	struct smf_stats st;

	smf_get_stats(S, &st);
	return st.sessions;
}

/* UL NAS TRANSPORT carrying a 5GSM message (N1 SM information). */
void sm_ul(struct sue *ue, const struct nas_msg *gsm, bool has_psi, uint8_t psi, int req_type,
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

void est_req(struct sue *ue, uint8_t psi, const char *dnn, const struct nas_snssai *sn)
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

void gsm_simple(struct sue *ue, uint8_t type, uint8_t psi, uint8_t pti)
{
	struct nas_msg g;

	memset(&g, 0, sizeof(g));
	g.type = type;
	g.psi = psi;
	g.pti = pti;
	sm_ul(ue, &g, true, psi, -1, NULL, NULL);
}

/* The DL NAS TRANSPORT (N1 SM) just popped by sue_dl: decode the 5GSM message. */
void inner_gsm(const struct nas_msg *dl, uint8_t psi, struct nas_msg *gsm)
{
	struct nas_err err;

	assert_int_equal(dl->type, NAS_DL_NAS_TRANSPORT);
	assert_int_equal(dl->dl_nas.payload_type, NAS_PAYLOAD_N1_SM);
	assert_true(dl->dl_nas.has_psi);
	assert_int_equal(dl->dl_nas.psi, psi);
	assert_int_equal(nas_decode(dl->dl_nas.payload.p, dl->dl_nas.payload.len, gsm, &err), 0);
	assert_int_equal(gsm->psi, psi);
}

size_t setup_rsp_transfer(uint8_t *buf, size_t cap, uint32_t teid)
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
void gnb_setup_rsp(struct sue *ue, uint8_t psi, uint32_t teid)
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

/* Establish psi: request, check the Setup Request (accept inside), answer it. Returns the
 * UE address (network order). */
uint32_t establish(struct sue *ue, uint8_t psi, const char *dnn, const struct nas_snssai *sn)
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
void sess(const struct sue *ue, uint8_t psi, struct smf_sess_info *si)
{
	struct amf_ue_info info;

	assert_int_equal(amf_ue_info_by_supi(H.amf, ue->supi, &info), 0);
	assert_non_null(info.sm);
	assert_int_equal(smf_sess_info(S, info.sm, psi, si), 0);
}

uint32_t session_id_of(const struct sue *ue, uint8_t psi)
{
	struct smf_sess_info si;

	sess(ue, psi, &si);
	return si.session_id;
}

void registered(struct sue *ue, const char *msin, uint32_t ran_id)
{
	sue_init(ue, msin, ASSOC, ran_id);
	sue_register(&H, ue, 2, 0);
	assert_int_equal(h_pending(&H), 0);
}

void gnb_release_req(struct sue *ue)
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

void service_req(struct sue *ue, uint32_t ran_id, bool has_uds, uint16_t uds, bool has_pss, uint16_t pss)
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

void ics_rsp(struct sue *ue, uint8_t n, const uint8_t *psis)
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

const struct nas_snssai SN1 = { .sst = 1, .has_sd = 1, .sd = 0x010203 };
const struct nas_snssai SN2 = { .sst = 2 };

/* The gNB's PDU SESSION RESOURCE RELEASE RESPONSE for psi (one session, empty transfer). */
void gnb_release_rsp(struct sue *ue, uint8_t psi)
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

/* UE-requested release of psi: request, Release Command (N2 + N1), response, complete. */
void release_session(struct sue *ue, uint8_t psi)
{
	struct nas_msg dl, gsm;

	gsm_simple(ue, NAS_PDU_SESSION_RELEASE_REQUEST, psi, 5);
	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	inner_gsm(&dl, psi, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(H.m.u.pdu_session_resource_release_command.n_sessions, 1);
	assert_int_equal(H.m.u.pdu_session_resource_release_command.sessions[0].id, psi);
	gnb_release_rsp(ue, psi);
	gsm_simple(ue, NAS_PDU_SESSION_RELEASE_COMPLETE, psi, 5);
}

/* Issue 6's cycle: exactly 17 gNB->AMF and 10 AMF->gNB NGAP messages. */
void sm_cycle_27(void)
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
