/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gNB: the network's QoS changes for a UE it holds a context for. A subscription or
 * policy change reaches a connected UE as
 *  - UE CONTEXT MODIFICATION REQUEST with the new UE-AMBR (TS 38.413 8.3.4): the gNB takes
 *    it and answers UE CONTEXT MODIFICATION RESPONSE (8.3.4.2);
 *  - PDU SESSION RESOURCE MODIFY REQUEST (8.2.3) with, per session, a Modify Request Transfer
 *    (9.3.4.3: the new session-AMBR) and the NAS-PDU of the SMF's PDU SESSION MODIFICATION
 *    COMMAND (TS 24.501 6.3.2.2): the gNB takes the transfer, answers PDU SESSION RESOURCE
 *    MODIFY RESPONSE with a Modify Response Transfer per session it holds (9.3.4.4) and a
 *    Modify Unsuccessful Transfer for any other (unknown PDU session ID), and hands the
 *    NAS-PDU to the UE (ue_sm.c answers it).
 * Scratch buffers only (rs->tx, rs->xfer_buf): nothing allocated.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

/* TS 38.413 9.3.1.2 CauseRadioNetwork: unknown-PDU-session-ID */
#define RS_CAUSE_RN_UNKNOWN_PDU_SESSION_ID 26

void rs_gnb_take_ue_ambr(struct rs_ue *ue, const struct ngap_ambr *a)
{
	ue->qos.ue_ambr_ul = a->ul;
	ue->qos.ue_ambr_dl = a->dl;
}

void rs_gnb_ue_ctx_mod(struct rs_gnb *g, const struct ngap_ue_context_modification_request *r)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = rs_gnb_ue(g, r->ran_ue_id);
	struct ngap_msg *m = &rs->tx;

	if (!ue)
		return;
	if (r->amf_ue_id != ue->amf_ue_id)
		rs_ue_fail(ue, "ue_ctx_mod_amf_ue_id");
	/* 8.3.4.2: the UE-AMBR IE replaces the one the gNB holds; the other IEs we are not sent
	 * (a security key would be a key change, not our case: counted as a failure) */
	if (r->has_ue_ambr) {
		rs_gnb_take_ue_ambr(ue, &r->ue_ambr);
		rs->st.ue_ambr_ul_last = r->ue_ambr.ul;
		rs->st.ue_ambr_dl_last = r->ue_ambr.dl;
	}
	if (r->has_security_key)
		rs_ue_fail(ue, "ue_ctx_mod_security_key");
	ue->qos.ue_ctx_mods++;
	rs->st.ue_ctx_mods++;
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "UE CONTEXT MODIFICATION: UE-AMBR ul=%llu dl=%llu",
		(unsigned long long)ue->qos.ue_ambr_ul, (unsigned long long)ue->qos.ue_ambr_dl);
	memset(m, 0, sizeof(*m));
	m->type = NGAP_SUCCESSFUL;
	m->proc = NGAP_PROC_UE_CONTEXT_MODIFICATION;
	m->u.ue_context_modification_response.amf_ue_id = r->amf_ue_id;
	m->u.ue_context_modification_response.ran_ue_id = ue->ran_id;
	rs_gnb_send_ue(g, ue, m);
}

/* One item of the Modify Request: the Modify Response Transfer into out (length), or -errno
 * when the gNB does not hold that session (the caller lists it as failed). */
static int modify_item(struct rs_ue *ue, const struct ngap_pdu_sess_item *it, uint8_t *out, size_t cap)
{
	struct ngap_modify_request_transfer t;
	struct ngap_modify_response_transfer rt;

	if (it->id != ue->rs->cfg.psi || !ue->sess_up)
		return -ENOENT;
	if (ngap_dec_modify_request_transfer(it->transfer.p, it->transfer.len, &t, NULL) < 0) {
		rs_ue_fail(ue, "modify_transfer_undecodable");
		return -EBADMSG;
	}
	if (t.has_session_ambr) {
		/* 9.3.4.3: the session-AMBR the gNB applies to the session's non-GBR flows */
		ue->qos.n2_ambr_ul = t.session_ambr.ul;
		ue->qos.n2_ambr_dl = t.session_ambr.dl;
	}
	/* 9.3.4.4: tunnels unchanged, the flows asked to be added or modified confirmed */
	memset(&rt, 0, sizeof(rt));
	for (unsigned i = 0; i < t.n_flows && i < NGAP_MAX_QOS_FLOWS; i++)
		rt.qfis[rt.n_flows++] = t.flows[i].qfi;
	return ngap_enc_modify_response_transfer(&rt, out, cap);
}

/* 9.3.4.x PDU Session Resource Modify Unsuccessful Transfer: SEQUENCE { cause, criticality
 * diagnostics OPTIONAL, extensions OPTIONAL, ... }, the same encoding as the Setup
 * Unsuccessful Transfer (9.3.4.16), whose encoder common/ngap has. */
static int unsuccessful(uint8_t *out, size_t cap)
{
	struct ngap_setup_unsuccessful_transfer u;

	memset(&u, 0, sizeof(u));
	u.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	u.cause.value = RS_CAUSE_RN_UNKNOWN_PDU_SESSION_ID;
	return ngap_enc_setup_unsuccessful_transfer(&u, out, cap);
}

void rs_gnb_pdu_modify(struct rs_gnb *g, const struct ngap_pdu_session_resource_modify_request *r)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = rs_gnb_ue(g, r->ran_ue_id);
	struct ngap_msg *m = &rs->tx;
	struct ngap_pdu_session_resource_modify_response *rsp = &m->u.pdu_session_resource_modify_response;
	const struct ngap_bytes *nas[NGAP_MAX_PDU_SESSIONS];
	unsigned i, n_nas = 0, cap = sizeof(rs->xfer_buf) / sizeof(rs->xfer_buf[0]);
	int n;

	if (!ue)
		return;
	rs->st.pdu_mod_requests++;
	memset(m, 0, sizeof(*m));
	m->type = NGAP_SUCCESSFUL;
	m->proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY;
	rsp->amf_ue_id = r->amf_ue_id;
	rsp->ran_ue_id = ue->ran_id;
	for (i = 0; i < r->n_sessions && i < cap; i++) {
		const struct ngap_pdu_sess_item *it = &r->sessions[i];
		struct ngap_pdu_sess_item *o;

		n = modify_item(ue, it, rs->xfer_buf[i], sizeof(rs->xfer_buf[i]));
		if (n >= 0) {
			o = &rsp->modified[rsp->n_modified++];
			if (it->nas.len)
				nas[n_nas++] = &it->nas;
		} else {
			n = unsuccessful(rs->xfer_buf[i], sizeof(rs->xfer_buf[i]));
			o = &rsp->failed[rsp->n_failed++];
		}
		if (n < 0) {
			rs_ue_fail(ue, "modify_rsp_transfer_encode");
			return;
		}
		o->id = it->id;
		o->transfer.p = rs->xfer_buf[i];
		o->transfer.len = (size_t)n;
	}
	if (r->n_sessions > cap)
		rs_ue_fail(ue, "modify_request_sessions");
	rs_gnb_send_ue(g, ue, m);
	/* 8.2.3.2: the NAS-PDU of each session modified goes to the UE; its answer (the
	 * COMPLETE in an UPLINK NAS TRANSPORT) follows this RESPONSE, as the SMF expects it */
	for (i = 0; i < n_nas; i++)
		rs_ue_nas_rx(ue, nas[i]->p, nas[i]->len);
}
