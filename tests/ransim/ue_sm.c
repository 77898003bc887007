/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim UE and gNB, session part of the 27-message cycle (issue 6): UE-requested PDU session
 * establishment and release (TS 24.501 6.4.1, 6.4.3) carried in UL / DL NAS Transport
 * (8.2.10, 8.2.11), the gNB's PDU session resource items (TS 38.413 8.2.1, 9.3.4.1/2), and the
 * Service Request from CM-IDLE (TS 24.501 5.6.1). The network's side of a session's end too:
 * a network-requested release (PTI 0, 6.3.3) is answered in any state where the session
 * exists, #39 "reactivation requested" brings the session back with a new establishment
 * (6.3.3.3, 6.4.1), and a session the network's PDU session status shows inactive is released
 * locally (5.6.1.4.1, 5.5.1.3.4). Every check failing is the UE's failure cause; the state
 * machine itself is the table in ue.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

/* Encode the 5GSM message rs->gsm and send it in an UL NAS Transport (TS 24.501 8.2.10). */
static int send_gsm(struct rs_ue *ue, bool initial_request)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *m = &rs->nas_tx;
	struct nas_err err;
	int n = nas_encode(&rs->gsm, rs->gsm_buf, sizeof(rs->gsm_buf), &err);

	if (n < 0) {
		rs_ue_fail(ue, "gsm_encode");
		return n;
	}
	memset(m, 0, sizeof(*m));
	m->type = NAS_UL_NAS_TRANSPORT;
	m->ul_nas.payload_type = NAS_PAYLOAD_N1_SM;
	m->ul_nas.payload = (struct nas_buf){ rs->gsm_buf, (uint16_t)n };
	m->ul_nas.has_psi = true;
	m->ul_nas.psi = rs->gsm.psi;
	if (initial_request) {
		m->ul_nas.has_request_type = true;
		m->ul_nas.request_type = 1;   /* 9.11.3.47: initial request */
		if (rs->cfg.dnn[0]) {
			int l = nas_dnn_enc(rs->cfg.dnn, rs->dnn_buf, sizeof(rs->dnn_buf));

			if (l < 0) {
				rs_ue_fail(ue, "dnn_encode");
				return l;
			}
			m->ul_nas.has_dnn = true;
			m->ul_nas.dnn = (struct nas_buf){ rs->dnn_buf, (uint16_t)l };
		}
		if (rs->cfg.pdu_snssai) {
			m->ul_nas.has_snssai = true;
			m->ul_nas.snssai.sst = rs->cfg.req_sst;
			if (rs->cfg.req_sd != 0xffffff) {
				m->ul_nas.snssai.has_sd = 1;
				m->ul_nas.snssai.sd = rs->cfg.req_sd;
			}
		}
	}
	return rs_ue_send_nas(ue, m, NAS_SHT_INTEGRITY_CIPHERED, false, false);
}

static void gsm_init(struct rs_ue *ue, uint8_t type)
{
	struct nas_msg *g = &ue->rs->gsm;

	memset(g, 0, sizeof(*g));
	g->type = type;
	g->psi = ue->rs->cfg.psi;
	/* TS 24.501 9.6: a PTI 1..254 per UE-requested procedure */
	ue->pti = (uint8_t)(ue->pti % 254 + 1);
	g->pti = ue->pti;
}

/* 11: PDU Session Establishment Request, cfg.pdu_type (IPv4v6), SSC mode 1 (TS 24.501 6.4.1.2). */
enum rs_ue_state rs_sm_establish(struct rs_ue *ue)
{
	static const uint8_t imr[2] = { 0xff, 0xff };  /* 9.11.4.7: full data rate */
	struct nas_msg *g = &ue->rs->gsm;

	ue->sess_tried = true;
	gsm_init(ue, NAS_PDU_SESSION_ESTABLISHMENT_REQUEST);
	g->pdu_est_req.integrity_max_rate = (struct nas_buf){ imr, 2 };
	g->pdu_est_req.has_pdu_session_type = true;
	g->pdu_est_req.pdu_session_type = ue->rs->cfg.pdu_type ? ue->rs->cfg.pdu_type : NAS_PDU_IPV4V6;
	g->pdu_est_req.has_ssc_mode = true;
	g->pdu_est_req.ssc_mode = 1;
	rs_proc_start(ue, RANSIM_P_PDU_EST);
	send_gsm(ue, true);
	return RS_UE_WAIT_PDU_ACCEPT;
}

/* 20: PDU Session Release Request (TS 24.501 6.4.3.2). */
enum rs_ue_state rs_sm_release(struct rs_ue *ue)
{
	struct nas_msg *g = &ue->rs->gsm;

	ue->rel_tried = true;
	gsm_init(ue, NAS_PDU_SESSION_RELEASE_REQUEST);
	g->pdu_rel_req.has_cause = true;
	g->pdu_rel_req.cause = NAS_5GSM_REGULAR_DEACTIVATION;
	rs_proc_start(ue, RANSIM_P_PDU_REL);
	send_gsm(ue, false);
	return RS_UE_WAIT_PDU_REL;
}

/* TS 24.501 4.4.6, 8.2.16: a UE with a valid 5G NAS security context sends only the
 * cleartext IEs (ngKSI, service type, 5G-S-TMSI) in the clear; the entire SERVICE REQUEST
 * (with uplink data status, PDU session status, allowed PDU session status) goes in the
 * NAS message container IE, ciphered with the current context: NEA, the COUNT of this
 * SERVICE REQUEST, BEARER 1, direction uplink (TS 33.501 6.4.4). The outer message is
 * then integrity protected only. `--svc-ies-clear` keeps the old, non-compliant form. */
static int svc_container(struct rs_ue *ue, struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	int n = nas_encode(m, rs->svc_cont, sizeof(rs->svc_cont), NULL);

	if (n < 0)
		return n;
	if (ue->nea && crypto_nea(ue->nea, ue->kenc, ue->ul_count, RS_NAS_BEARER, CRYPTO_DIR_UPLINK,
				  rs->svc_cont, rs->svc_cont, (size_t)n * 8) < 0)
		return -EINVAL;
	m->svc_req.has_ul_data_status = false;
	m->svc_req.has_pdu_session_status = false;
	m->svc_req.has_allowed_pdu_session_status = false;
	m->svc_req.has_nas_container = true;
	m->svc_req.nas_container.p = rs->svc_cont;
	m->svc_req.nas_container.len = (uint16_t)n;
	return 0;
}

/* The UE holds its PDU session (5GSM PDU SESSION ACTIVE): up, or kept across a gNB restart
 * until its SERVICE ACCEPT (the user plane is gone, the session is not). */
static bool sess_held(const struct rs_ue *ue)
{
	return ue->sess_up || ue->restart_wait;
}

static void service_request(struct rs_ue *ue, bool known)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *m = &rs->nas_tx;
	uint16_t bit = sess_held(ue) ? (uint16_t)(1u << rs->cfg.psi) : 0;

	ue->has_amf_id = false;
	ue->ran_id += rs->cfg.n_ues;   /* a new N2 connection, a new RAN-UE-NGAP-ID */
	memset(m, 0, sizeof(*m));
	m->type = NAS_SERVICE_REQUEST;
	m->svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	if (known) {
		/* TS 24.501 5.6.1.2: data pending for PSI: service type "data", uplink data
		 * status and PDU session status name the session to reactivate. Without a
		 * session (a #39 re-establishment pending) only signalling is pending: service
		 * type "signalling", no uplink data status, a PDU session status of none. */
		m->svc_req.ngksi = ue->ngksi;
		m->svc_req.service_type = bit ? 1 : 0;
		m->svc_req.s_tmsi.guti = ue->guti;
		m->svc_req.has_ul_data_status = bit != 0;
		m->svc_req.ul_data_status = bit;
		m->svc_req.has_pdu_session_status = true;
		m->svc_req.pdu_session_status = bit;
	} else {
		/* a 5G-S-TMSI this AMF never assigned (amf_set_id/pointer of its own config are
		 * unknown to us: an unassigned TMSI is enough for 5.6.1.5 cause #9) */
		m->svc_req.ngksi = 7;
		m->svc_req.service_type = 0;  /* signalling */
		m->svc_req.s_tmsi.guti.amf_set_id = 1;
		m->svc_req.s_tmsi.guti.amf_pointer = 0;
		m->svc_req.s_tmsi.guti.tmsi = 0xdead0000u | (ue->idx & 0xffff);
	}
	if (known && ue->sec && !rs->cfg.svc_ies_clear && svc_container(ue, m) < 0) {
		rs_ue_fail(ue, "nas_encode");
		return;
	}
	rs_proc_start(ue, RANSIM_P_SERVICE);
	rs_ue_set_state(ue, RS_UE_WAIT_SVC_ACCEPT);
	/* 4.4.6: integrity protected with the current context (security header type 1); only
	 * the NAS message container inside is ciphered */
	rs_ue_send_nas(ue, m, known ? NAS_SHT_INTEGRITY : NAS_SHT_PLAIN, true, false);
}

void rs_sm_service_request(struct rs_ue *ue)
{
	service_request(ue, true);
}

void rs_sm_unknown_service(struct rs_ue *ue)
{
	service_request(ue, false);
}

void rs_sm_local_release(struct rs_ue *ue)
{
	ue->sess_up = false;
	ue->restart_wait = false;
	ue->n3_ul_teid = 0;        /* no user plane without the session */
	ue->rs->st.pdu_local_released++;
	log_msg(LOGL_INFO, "ransim", ue->sim->supi, "PSI %u inactive in the network: released locally",
		ue->rs->cfg.psi);
}

enum rs_ue_state rs_sm_on_svc_accept(struct rs_ue *ue, const struct nas_msg *m)
{
	uint16_t bit = (uint16_t)(1u << ue->rs->cfg.psi);
	bool held = sess_held(ue);

	rs_proc_done(ue, RANSIM_P_SERVICE);
	ue->rs->st.service_accepts++;
	/* TS 24.501 5.6.1.4.1: the AMF answers the PDU session status of the request with its
	 * own; a session the UE holds that the network shows inactive is released locally
	 * (then its reactivation result bit is the expected one). One the network still has
	 * must have its user plane back. */
	if (held && !m->svc_acc.has_pdu_session_status) {
		rs_ue_fail(ue, "svc_accept_session_status");
	} else if (held && !(m->svc_acc.pdu_session_status & bit)) {
		rs_sm_local_release(ue);
	} else if (held && m->svc_acc.has_reactivation_result && (m->svc_acc.reactivation_result & bit)) {
		rs_ue_fail(ue, "svc_accept_reactivation");
	}
	if (ue->restart_wait) {
		/* after a gNB restart: the ICS Request carrying this accept set the session up */
		ue->restart_wait = false;
		if (!ue->fail[0] && ue->n3_ul_teid) {
			ue->sess_up = true;
			ue->rs->st.restart_svc_ok++;
		}
		return rs_sm_reestablish_due(ue, RS_UE_REGISTERED);
	}
	return rs_ue_next_step(ue);
}

enum rs_ue_state rs_sm_on_svc_reject(struct rs_ue *ue, const struct nas_msg *m)
{
	char cause[32];

	ue->rs->st.service_rejects++;
	snprintf(cause, sizeof(cause), "svc_reject_%u", m->svc_rej.cause);
	rs_ue_fail(ue, cause);
	return RS_UE_WAIT_RELEASE;
}

/* The session-AMBR the UE holds, in bit/s (TS 24.501 9.11.4.14 units are kbps multiples). */
static void take_sess_ambr(struct rs_ue *ue, const struct nas_session_ambr *a)
{
	ue->qos.sess_ambr_ul = nas_ambr_kbps(a->ul_unit, a->ul) * 1000;
	ue->qos.sess_ambr_dl = nas_ambr_kbps(a->dl_unit, a->dl) * 1000;
}

/* PDU Session Establishment Accept (TS 24.501 8.3.2): address, QoS rules, session-AMBR. */
static void check_accept(struct rs_ue *ue, const struct nas_pdu_session_establishment_accept *a)
{
	struct nas_qos_rules *qr = &ue->rs->qos_rules;
	struct nas_err err;
	unsigned i;
	bool dflt = false;

	uint8_t asked = ue->rs->cfg.pdu_type ? ue->rs->cfg.pdu_type : NAS_PDU_IPV4V6;
	uint8_t got = a->pdu_session_type & 7;

	/* TS 24.501 6.4.1.3: IPv4 or IPv6 asked is granted as asked; IPv4v6 may come back as
	 * one family, then with #50 (IPv4 only allowed) or #51 (IPv6 only allowed). The PDU
	 * address is of the granted type (9.11.4.10). */
	if (got != asked && !(asked == NAS_PDU_IPV4V6 && (got == NAS_PDU_IPV4 || got == NAS_PDU_IPV6)))
		rs_ue_fail(ue, "accept_session_type");
	if (got != asked && (!a->has_cause || a->cause != (got == NAS_PDU_IPV4 ? 50 : 51)))
		rs_ue_fail(ue, "accept_narrowed_without_cause");
	if (!a->has_pdu_address || a->pdu_address.type != got) {
		rs_ue_fail(ue, "accept_pdu_address");
		return;
	}
	ue->sess_type = got;
	ue->has_addr6 = ue->rs_sent = false;   /* a new session: a new /64 from a new RA */
	ue->rs_count = 0;
	ue->ue_addr = 0;
	if (got != NAS_PDU_IPV6) {
		memcpy(&ue->ue_addr, a->pdu_address.ipv4, 4);
		if (ue->ue_addr == 0)
			rs_ue_fail(ue, "accept_addr_zero");
	}
	if (got != NAS_PDU_IPV4) {
		memcpy(ue->iid6, a->pdu_address.ipv6_iid, 8);
		if (!memcmp(ue->iid6, "\0\0\0\0\0\0\0\0", 8))
			rs_ue_fail(ue, "accept_iid_zero");
		ue->rs->st.pdu_ipv6++;
	}
	if (got != asked)
		ue->rs->st.pdu_type_narrowed++;
	/* 9.11.4.13: at least the default QoS rule, on the flow the gNB was asked to set up */
	if (nas_qos_rules_dec(a->qos_rules.p, a->qos_rules.len, qr, &err) < 0 || qr->n == 0) {
		rs_ue_fail(ue, "accept_qos_rules");
		return;
	}
	for (i = 0; i < qr->n; i++)
		if (qr->r[i].dqr && qr->r[i].has_prec_qfi && qr->r[i].qfi == ue->qfi)
			dflt = true;
	if (!dflt)
		rs_ue_fail(ue, "accept_no_default_rule");
	/* 9.11.4.14: both directions present */
	if (!a->ambr.dl_unit || !a->ambr.dl || !a->ambr.ul_unit || !a->ambr.ul)
		rs_ue_fail(ue, "accept_ambr");
	take_sess_ambr(ue, &a->ambr);
}

/* TS 24.501 6.3.2.3: a PDU SESSION MODIFICATION COMMAND for our active session: the new
 * session-AMBR (if present) is the one in force from now on; answer PDU SESSION
 * MODIFICATION COMPLETE with the command's PTI (0 for a network-requested modification,
 * 9.6), integrity protected and ciphered in an UL NAS TRANSPORT like every 5GSM message.
 * Without an active session of that PSI: COMMAND REJECT #43 (6.3.2.4, 8.3.11). */
void rs_sm_on_mod_command(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *g = &rs->gsm;
	const struct nas_pdu_session_modification_command *c = &g->pdu_mod_cmd;
	uint8_t pti = g->pti, psi = g->psi;
	bool ok = ue->sess_up && psi == rs->cfg.psi;

	if (ok && c->has_ambr) {
		if (!c->ambr.dl_unit || !c->ambr.ul_unit)
			rs_ue_fail(ue, "mod_command_ambr");
		take_sess_ambr(ue, &c->ambr);
		rs->st.sess_ambr_ul_last = ue->qos.sess_ambr_ul;
		rs->st.sess_ambr_dl_last = ue->qos.sess_ambr_dl;
	}
	memset(g, 0, sizeof(*g));
	g->psi = psi;
	g->pti = pti;
	if (ok) {
		g->type = NAS_PDU_SESSION_MODIFICATION_COMPLETE;
		ue->qos.pdu_mods++;
		rs->st.pdu_mod_commands++;
	} else {
		g->type = NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT;
		g->pdu_mod_cmd_rej.cause = NAS_5GSM_INVALID_PDU_SESSION_ID;
		rs->st.pdu_mod_rejected++;
	}
	send_gsm(ue, false);
}

enum rs_ue_state rs_sm_on_dl_nas(struct rs_ue *ue, const struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *g = &rs->gsm;
	struct nas_err err;
	char cause[32];

	if (ue->st == RS_UE_WAIT_PDU_ACCEPT && m->dl_nas.has_cause) {
		/* TS 24.501 5.4.5.3.3: the AMF could not forward our 5GSM message (no SMF, slice
		 * not allowed ...) and returns it with a 5GMM cause */
		rs->st.pdu_rejected++;
		snprintf(cause, sizeof(cause), "pdu_not_forwarded_%u", m->dl_nas.cause);
		rs_ue_fail(ue, cause);
		return rs_ue_next_step(ue);
	}
	if (m->dl_nas.payload_type != NAS_PAYLOAD_N1_SM || !m->dl_nas.has_psi ||
	    nas_decode(m->dl_nas.payload.p, m->dl_nas.payload.len, g, &err) < 0 || g->psi != m->dl_nas.psi) {
		rs_ue_fail(ue, "dl_nas_transport_bad");
		return ue->st;
	}
	if (g->type == NAS_PDU_SESSION_MODIFICATION_COMMAND) {
		/* network-requested (TS 24.501 6.3.2), in whatever state the UE's plan is; a PSI
		 * the UE does not hold gets its COMMAND REJECT there */
		rs_sm_on_mod_command(ue);
		return ue->st;
	}
	if (g->psi != rs->cfg.psi) {
		rs_ue_fail(ue, "dl_nas_transport_bad");
		return ue->st;
	}
	if (ue->st == RS_UE_WAIT_PDU_ACCEPT && g->type == NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT) {
		rs_proc_done(ue, RANSIM_P_PDU_EST);
		if (g->pti != ue->pti)
			rs_ue_fail(ue, "accept_pti");
		check_accept(ue, &g->pdu_est_acc);
		ue->sess_up = true;
		if (!ue->fail[0])
			rs->st.pdu_established++;
		if (ue->reest && !ue->fail[0])
			rs->st.pdu_reestablished++;
		if (ue->fo_sess_pending && !ue->fail[0])
			rs->fo_sess_back++;   /* the session again after an AMF failover (ue_fo.c) */
		ue->fo_sess_pending = false;
		ue->reest = false;
		return rs_ue_next_step(ue);
	}
	if (ue->st == RS_UE_WAIT_PDU_ACCEPT && g->type == NAS_PDU_SESSION_ESTABLISHMENT_REJECT) {
		rs->st.pdu_rejected++;
		ue->reest = false;
		snprintf(cause, sizeof(cause), "pdu_reject_%u", g->pdu_est_rej.cause);
		rs_ue_fail(ue, cause);
		return rs_ue_next_step(ue);
	}
	if (g->type == NAS_PDU_SESSION_RELEASE_COMMAND)
		return rs_sm_on_release_command(ue);
	snprintf(cause, sizeof(cause), "unexpected_gsm_%u", g->type);
	rs_ue_fail(ue, cause);
	return ue->st;
}

/* 23 / TS 24.501 6.3.3.3, 6.4.3.3: PDU SESSION RELEASE COMPLETE with the Command's PTI. */
static void release_complete(struct rs_ue *ue, uint8_t pti)
{
	struct nas_msg *g = &ue->rs->gsm;

	memset(g, 0, sizeof(*g));
	g->type = NAS_PDU_SESSION_RELEASE_COMPLETE;
	g->psi = ue->rs->cfg.psi;
	g->pti = pti;
	send_gsm(ue, false);
}

enum rs_ue_state rs_sm_on_release_command(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	const struct nas_msg *g = &rs->gsm;
	uint8_t pti = g->pti, cause = g->pdu_rel_cmd.cause;
	bool ue_req = ue->st == RS_UE_WAIT_PDU_REL;

	if (ue_req && pti != 0) {
		/* the answer to our PDU SESSION RELEASE REQUEST (6.4.3.3) */
		rs_proc_done(ue, RANSIM_P_PDU_REL);
		if (pti != ue->pti)
			rs_ue_fail(ue, "release_pti");
		release_complete(ue, pti);
		ue->sess_up = false;
		rs->st.pdu_released++;
		return rs_ue_next_step(ue);
	}
	if (pti != 0) {
		/* 9.6: a PTI names a UE-requested procedure, and none is running */
		rs_ue_fail(ue, "release_pti");
		return ue->st;
	}
	/* TS 24.501 6.3.3.2: PTI 0 "no procedure transaction identity assigned", a
	 * network-requested release. It is taken in whatever state the UE's plan is; crossing
	 * our own release request it wins (6.4.3.5 b: the UE-requested procedure is aborted). */
	if (!sess_held(ue) && !ue_req) {
		/* nothing to release here: still complete (the network's view must end the same),
		 * but the core released a session this UE never had or already gave up */
		rs_ue_fail(ue, "release_command_inactive");
		release_complete(ue, pti);
		return ue->st;
	}
	if (ue_req)
		rs_proc_done(ue, RANSIM_P_PDU_REL);
	release_complete(ue, pti);
	ue->sess_up = false;
	ue->restart_wait = false;
	ue->n3_ul_teid = 0;
	rs->st.pdu_released++;
	rs->st.pdu_net_released++;
	if (cause == NAS_5GSM_REACTIVATION_REQUESTED) {
		/* 6.3.3.3: the UE should re-initiate the establishment (6.4.1) for the same PDU
		 * session type, SSC mode, DNN and S-NSSAI once the release is complete */
		rs->st.pdu_net_released_39++;
		ue->reest_pending = true;
	}
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "network released PSI %u, 5GSM cause #%u", rs->cfg.psi, cause);
	if (ue_req)
		return rs_ue_next_step(ue);
	/* in the middle of another procedure (going idle, deregistering, reactivating) the
	 * re-establishment waits for the plan's next step (rs_ue_next_step runs it first) */
	return ue->st == RS_UE_REGISTERED ? rs_sm_reestablish_due(ue, ue->st) : ue->st;
}

enum rs_ue_state rs_sm_reestablish_due(struct rs_ue *ue, enum rs_ue_state st)
{
	/* not in the middle of a mobility registration: its ACCEPT comes first (ue_mob.c) */
	if (!ue->reest_pending || ue->sess_up || ue->fail[0] || ue->dereg_sent || ue->mob_reg_pending)
		return st;
	ue->reest_pending = false;
	ue->reest = true;
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "#39: PDU session %u established again", ue->rs->cfg.psi);
	return rs_sm_establish(ue);
}

/* ---- the harness's idle / service request of one UE (ransim.h) ---- */

int ransim_ue_idle(struct ransim *rs, unsigned idx)
{
	struct rs_ue *ue;

	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	ue = &rs->ues[idx];
	if (ue->st != RS_UE_REGISTERED || !ue->has_amf_id || ue->holding || ue->mob_reg_pending || ue->ho_pending ||
	    ue->n2.st || ue->cm_idle)
		return -EAGAIN;
	ue->idle_hold = true;
	if (rs_gnb_release_request(ue->gnb, ue) < 0) {
		ue->idle_hold = false;
		return -EIO;
	}
	rs_ue_set_state(ue, RS_UE_WAIT_IDLE);
	return 0;
}

int ransim_ue_service(struct ransim *rs, unsigned idx)
{
	struct rs_ue *ue;

	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	ue = &rs->ues[idx];
	if (ue->st != RS_UE_REGISTERED || !ue->cm_idle)
		return -EAGAIN;
	ue->cm_idle = false;
	rs_sm_service_request(ue);
	return 0;
}

int ransim_ue_session(const struct ransim *rs, unsigned idx)
{
	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	return sess_held(&rs->ues[idx]) ? 1 : 0;
}

const char *ransim_ue_failure(const struct ransim *rs, unsigned idx)
{
	return idx < rs->cfg.n_ues ? rs->ues[idx].fail : NULL;
}

/* gNB: one PDU session item (TS 38.413 9.3.4.1 in, 9.3.4.2 out). */
int rs_sm_setup_item(struct rs_ue *ue, const struct ngap_pdu_sess_item *it, uint8_t *out, size_t cap)
{
	struct ransim *rs = ue->rs;
	struct ngap_setup_request_transfer *t = &rs->xfer_req;
	struct ngap_setup_response_transfer *r = &rs->xfer_rsp;
	int n, rc;

	if (it->id != rs->cfg.psi)
		rs_ue_fail(ue, "setup_item_psi");
	if (ngap_dec_setup_request_transfer(it->transfer.p, it->transfer.len, t, NULL) < 0) {
		rs_ue_fail(ue, "setup_transfer_undecodable");
		return -EBADMSG;
	}
	/* the UPF's N3 end of the tunnel, a TEID, at least the default flow. The address: 32 bits
	 * IPv4, 128 IPv6, 160 both (TS 38.413 9.3.2.4, TS 38.414 5.1), the gNB taking the one of
	 * its own N3 family; none of that family: a real gNB could not use the tunnel. */
	rc = rs_tla_get(&t->ul_tunnel, rs_n3_family(rs), &ue->n3_upf_addr);
	if (rc < 0)
		rs_ue_fail(ue, rc == -EAFNOSUPPORT ? "setup_transfer_n3_family" : "setup_transfer_n3_addr");
	if (!(t->ul_tunnel.teid[0] | t->ul_tunnel.teid[1] | t->ul_tunnel.teid[2] | t->ul_tunnel.teid[3]))
		rs_ue_fail(ue, "setup_transfer_teid");
	if (t->n_flows == 0 || t->flows[0].qfi == 0 || t->flows[0].qfi > 63) {
		rs_ue_fail(ue, "setup_transfer_qfi");
		return -EBADMSG;
	}
	if (!t->has_session_ambr)
		rs_ue_fail(ue, "setup_transfer_ambr");
	ue->qos.n2_ambr_ul = t->session_ambr.ul;
	ue->qos.n2_ambr_dl = t->session_ambr.dl;
	ue->qfi = t->flows[0].qfi;
	/* the UPF's end of the N3 tunnel (ue->n3_upf_addr above), for the G-PDUs of gtpu.c */
	ue->n3_ul_teid = (uint32_t)t->ul_tunnel.teid[0] << 24 | (uint32_t)t->ul_tunnel.teid[1] << 16 |
			 (uint32_t)t->ul_tunnel.teid[2] << 8 | t->ul_tunnel.teid[3];
	memset(r, 0, sizeof(*r));
	rs_ue_dl_tunnel(ue, &r->dl_tunnel);
	r->n_flows = 1;
	r->qfis[0] = t->flows[0].qfi;
	n = ngap_enc_setup_response_transfer(r, out, cap);
	if (n < 0)
		rs_ue_fail(ue, "setup_rsp_transfer_encode");
	return n;
}
