/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N1 connection handling: the entry points for uplink NAS, the integrity rule
 * of TS 24.501 4.4.4.3, message dispatch, deregistration (5.5.2), 5GMM status
 * (5.4.6 / 7), the N2 release of a UE and the timer give-up paths.
 */
#include <errno.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

#define AMF_5GMM_NO_SLICES 62

void amf_gmm_status_send(struct amf_ue *ue, uint8_t cause)
{
	struct nas_msg *m = &ue->amf->ntx;

	memset(m, 0, sizeof(*m));
	m->type = NAS_5GMM_STATUS;
	m->gmm_status.cause = cause;
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
}

static void ue_free_deferred(void *arg)
{
	struct amf_ue *ue = arg;

	if (ue->in_use && ue->reaping)
		amf_ue_free(ue);
}

void amf_ue_discard(struct amf_ue *ue)
{
	amf_tmr_stop_all(ue);
	amf_ue_unbind(ue);
	if (ue->reaping)
		return;
	ue->reaping = true;
	/* STYLE.md 8: never free inside the object's own callback. */
	if (ev_defer(ue->amf->loop, ue_free_deferred, ue) < 0)
		amf_ue_free(ue);
}

struct amf_ue *amf_ue_adopt(struct amf_ue *ue, struct amf_ue *old)
{
	struct amf_gnb *gnb = ue->gnb;
	uint32_t ran_id = ue->ran_ue_ngap_id;
	uint32_t tac = ue->tac;

	if (old == ue)
		return ue;
	if (old->gnb) {
		/* The UE left its old N2 connection without telling: drop it (TS 23.502 4.2.2.2.2). */
		if (old->gnb != gnb || old->ran_ue_ngap_id != ran_id)
			amf_ngap_release(old, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_RELEASE_5GC);
		amf_ue_unbind(old);
		old->release_pending = false;
		old->ics_sent = false;
		/* Its user planes pointed at the old connection (TS 23.502 4.2.6). */
		amf_sm_an_released(old, false);
	}
	amf_ue_unbind(ue);
	amf_ue_free(ue);
	amf_ue_bind(old, gnb, ran_id);
	old->tac = tac;
	old->sec_active = false;   /* a new NAS signalling connection (TS 24.501 4.4.4.3) */
	amf_tmr_stop(old, AMF_TMR_MOBILE_REACHABLE);
	amf_tmr_stop(old, AMF_TMR_IMPLICIT_DEREG);
	return old;
}

void amf_ue_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause)
{
	if (ue->gnb && !ue->release_pending)
		amf_ngap_release(ue, cause_group, cause);
	else if (!ue->gnb)
		amf_ue_an_released(ue);
}

void amf_ue_an_released(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;

	amf_ue_unbind(ue);
	ue->sec_active = false;
	ue->ics_sent = false;
	ue->release_pending = false;
	/* TS 23.502 4.2.6: user planes deactivated (association loss: sessions released). */
	amf_sm_an_released(ue, amf->an_lost);
	/* Procedures that need the connection end with it. */
	amf_tmr_stop(ue, AMF_T3560);
	amf_tmr_stop(ue, AMF_T3570);
	amf_tmr_stop(ue, AMF_T3555);
	if (ue->nssai_cuc_inflight) {
		/* TS 24.501 5.4.4.5 b): lower layer failure before COMPLETE: the allowed
		 * NSSAI is sent again on the next connection. */
		ue->nssai_cuc_inflight = false;
		ue->nssai_cuc_pending = true;
	}
	if (ue->state == AMF_GMM_REGISTERED && ue->reg_phase == AMF_REG_WAIT_COMPLETE) {
		/* TS 24.501 5.5.1.2.8: lower layer failure before COMPLETE; the new GUTI
		 * stays valid for us, the UE may use either. */
		amf_tmr_stop(ue, AMF_T3550);
		ue->reg_phase = AMF_REG_IDLE;
	}
	if (ue->state == AMF_GMM_REGISTERED) {
		/* CM-IDLE: TS 24.501 5.3.7 mobile reachable timer. */
		ue->proc = AMF_PROC_NONE;
		amf_tmr_start(ue, AMF_TMR_MOBILE_REACHABLE);
		amf_ue_log(LOGL_INFO, ue, "CM-IDLE");
		return;
	}
	if (ue->state == AMF_GMM_DEREGISTERED_INITIATED) {
		amf_tmr_stop(ue, AMF_T3522);
		amf_gmm_transition(ue, AMF_EV_T3522_GIVEUP, AMF_GMM_DEREGISTERED);
	}
	if (ue->state == AMF_GMM_COMMON_PROCEDURE_INITIATED)
		amf_gmm_transition(ue, AMF_EV_REG_REJECT, AMF_GMM_DEREGISTERED);
	amf_ue_log(LOGL_INFO, ue, "context removed");
	amf_ue_discard(ue);
}

/* ---- deregistration (TS 24.501 5.5.2) ---- */
void amf_dereg_request(struct amf_ue *ue, const struct nas_deregistration_request *r)
{
	struct nas_msg *m = &ue->amf->ntx;
	bool switch_off = (r->dereg_type & 0x08) != 0;

	ue->amf->st.dereg_ue++;
	amf_tmr_stop_all(ue);
	if (amf_gmm_accepts(ue, AMF_EV_DEREG_UE))
		amf_gmm_transition(ue, AMF_EV_DEREG_UE, AMF_GMM_DEREGISTERED);
	ue->reg_phase = AMF_REG_IDLE;
	ue->proc = AMF_PROC_NONE;
	amf_ue_log(LOGL_INFO, ue, "UE-initiated deregistration switch_off=%d", switch_off);
	/* TS 24.501 5.5.2.2.2 / TS 23.502 4.2.2.3.2 step 2: every PDU session is released
	 * locally and its address returned. */
	amf_sm_detach(ue);
	/* TS 24.501 5.5.2.2.2: DEREGISTRATION ACCEPT unless switch off. */
	if (!switch_off) {
		memset(m, 0, sizeof(*m));
		m->type = NAS_DEREGISTRATION_ACCEPT_UE_ORIG;
		amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	}
	/* TS 24.501 5.5.2.2.2 / TS 23.502 4.2.2.3.2 step 5: release the N2 connection. */
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
}

int amf_deregister_supi(struct amf *amf, const char *supi, bool reregister)
{
	struct amf_ue *ue = amf_ue_by_supi(amf, supi);
	struct nas_msg *m = &amf->ntx;

	if (!ue || ue->reaping)
		return -ENOENT;
	amf->st.dereg_net++;
	if (!ue->gnb || ue->state != AMF_GMM_REGISTERED) {
		/* CM-IDLE (paging is not done here) or not registered: local deregistration. */
		amf_tmr_stop_all(ue);
		if (amf_gmm_accepts(ue, AMF_EV_IMPLICIT_DEREG))
			amf_gmm_transition(ue, AMF_EV_IMPLICIT_DEREG, AMF_GMM_DEREGISTERED);
		amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
		return 0;
	}
	/* TS 24.501 5.5.2.3.1 */
	memset(m, 0, sizeof(*m));
	m->type = NAS_DEREGISTRATION_REQUEST_UE_TERM;
	m->dereg_req.dereg_type = (uint8_t)((reregister ? 0x08 : 0) | 0x01);
	amf_gmm_transition(ue, AMF_EV_DEREG_NET, AMF_GMM_DEREGISTERED_INITIATED);
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_T3522);
	amf_tmr_start(ue, AMF_T3522);
	return 0;
}

static void dereg_accept_ue_term(struct amf_ue *ue)
{
	if (ue->state != AMF_GMM_DEREGISTERED_INITIATED) {
		amf_gmm_status_send(ue, NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE);
		return;
	}
	amf_tmr_stop(ue, AMF_T3522);
	amf_gmm_transition(ue, AMF_EV_DEREG_ACCEPT, AMF_GMM_DEREGISTERED);
	/* TS 24.501 5.5.2.3.2: sessions released locally. */
	amf_sm_detach(ue);
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
}

struct amf_ue *amf_ue_by_guti(struct amf *amf, const struct nas_guti *g)
{
	uint8_t plmn[3];
	struct nas_plmn p = g->plmn;
	struct amf_ue *ue;

	nas_plmn_enc(&p, plmn);
	if (memcmp(plmn, amf->cfg.plmn, 3) != 0 || g->amf_region_id != amf->cfg.amf_region_id ||
	    g->amf_set_id != amf->cfg.amf_set_id || g->amf_pointer != amf->cfg.amf_pointer)
		return NULL;
	ue = amf_ue_by_tmsi(amf, g->tmsi);
	return ue && !ue->reaping ? ue : NULL;
}

bool amf_initial_verify(struct amf_ue *ue, const uint8_t *raw, size_t raw_len)
{
	struct amf_nas_in in;

	if (!raw || !ue->sec_ctx || amf_nas_unwrap(ue, raw, raw_len, &in) < 0 || !in.integrity_ok)
		return false;
	amf_nas_count_accept(ue, &in);
	ue->sec_active = true;
	return true;
}

void amf_dereg_initial(struct amf_ue *ue, const struct nas_deregistration_request *r,
		       const struct amf_nas_in *in, const uint8_t *raw, size_t raw_len)
{
	struct amf_ue *old = NULL;
	uint8_t dtype = r->dereg_type;
	struct nas_msg *m = &ue->amf->ntx;

	(void)in;
	if (r->mobile_id.type == NAS_MOBID_5G_GUTI)
		old = amf_ue_by_guti(ue->amf, &r->mobile_id.guti);
	if (!old) {
		/* Unknown UE: nothing to deregister; answer and release (TS 24.501 5.5.2.2.2). */
		if (!(dtype & 0x08)) {
			memset(m, 0, sizeof(*m));
			m->type = NAS_DEREGISTRATION_ACCEPT_UE_ORIG;
			amf_nas_send(ue, m, AMF_NAS_PLAIN, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
		}
		amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
		return;
	}
	ue = amf_ue_adopt(ue, old);
	/* TS 24.501 4.4.4.3: processed even when the check fails (no secure exchange yet).
	 * r still points into the (unciphered) initial message: verification does not decode. */
	if (!amf_initial_verify(ue, raw, raw_len))
		amf_ue_log(LOGL_INFO, ue, "deregistration request not integrity protected");
	amf_dereg_request(ue, r);
}

void amf_service_request(struct amf_ue *ue, const struct nas_service_request *r,
			 const struct amf_nas_in *in, const uint8_t *raw, size_t raw_len)
{
	struct amf_ue *old = NULL;
	struct nas_msg *m = &ue->amf->ntx;

	(void)in;
	ue->amf->st.service_req++;
	if (r->s_tmsi.type == NAS_MOBID_5G_S_TMSI) {
		struct amf_ue *c = amf_ue_by_tmsi(ue->amf, r->s_tmsi.guti.tmsi);

		if (c && !c->reaping && c->state == AMF_GMM_REGISTERED &&
		    r->s_tmsi.guti.amf_set_id == ue->amf->cfg.amf_set_id &&
		    r->s_tmsi.guti.amf_pointer == ue->amf->cfg.amf_pointer)
			old = c;
	}
	if (old) {
		ue = amf_ue_adopt(ue, old);
		if (amf_initial_verify(ue, raw, raw_len)) {
			/* TS 24.501 5.6.1.4.1 / TS 23.502 4.2.3.2: accept in the Initial Context
			 * Setup Request, which carries the PDU Session Resource Setup list of the
			 * sessions to reactivate; PDU session status and reactivation result. */
			amf_gmm_transition(ue, AMF_EV_SERVICE_REQ, AMF_GMM_REGISTERED);
			memset(m, 0, sizeof(*m));
			m->type = NAS_SERVICE_ACCEPT;
			amf_sm_service(ue, r, &m->svc_acc);
			amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_ICS, AMF_TMR_COUNT);
			ue->amf->n_ics_items = 0;
			return;
		}
	}
	/* TS 24.501 5.6.1.5: #9 when the network cannot derive the UE's identity. */
	ue->amf->st.service_rej++;
	memset(m, 0, sizeof(*m));
	m->type = NAS_SERVICE_REJECT;
	m->svc_rej.cause = NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED;
	amf_nas_send(ue, m, AMF_NAS_PLAIN, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_NORMAL_RELEASE);
}

/* ---- timer give-up paths ---- */
void amf_on_t3550_giveup(struct amf_ue *ue)
{
	/* TS 24.501 5.5.1.2.8 c): abort, both GUTIs stay valid, release the connection. */
	ue->reg_phase = AMF_REG_IDLE;
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
}

void amf_on_t3560_giveup(struct amf_ue *ue)
{
	/* TS 24.501 5.4.1.3.7 b) / 5.4.2.7 b): abort the procedure and release. */
	amf_reg_abort(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
}

void amf_on_t3570_giveup(struct amf_ue *ue)
{
	/* TS 24.501 5.4.3.7 b) */
	amf_reg_abort(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
}

void amf_on_t3522_giveup(struct amf_ue *ue)
{
	/* TS 24.501 5.5.2.3.5 a): abort and consider the UE deregistered. */
	amf_gmm_transition(ue, AMF_EV_T3522_GIVEUP, AMF_GMM_DEREGISTERED);
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
}

void amf_on_t3555_giveup(struct amf_ue *ue)
{
	/* TS 24.501 5.4.4.5 a): abort the configuration update. The old 5G-GUTI stays the
	 * one we index (the spec lets both be valid; the UE re-registers with either). */
	ue->has_pending_tmsi = false;
	if (ue->nssai_cuc_inflight) {
		/* The allowed NSSAI is still owed: sent again on the next connection. */
		ue->nssai_cuc_inflight = false;
		ue->nssai_cuc_pending = true;
	}
	amf_ue_log(LOGL_INFO, ue, "configuration update aborted");
}

void amf_on_mobile_reachable(struct amf_ue *ue)
{
	/* TS 24.501 5.3.7: start the implicit de-registration timer. */
	amf_tmr_start(ue, AMF_TMR_IMPLICIT_DEREG);
}

void amf_on_implicit_dereg(struct amf_ue *ue)
{
	/* TS 24.501 5.3.7: implicitly deregister; the context goes. */
	ue->amf->st.implicit_dereg++;
	amf_gmm_transition(ue, AMF_EV_IMPLICIT_DEREG, AMF_GMM_DEREGISTERED);
	amf_ue_discard(ue);
}

/* ---- uplink dispatch ---- */

/* TS 24.501 4.4.4.3: messages the AMF processes without integrity protection
 * (before the secure exchange is established on this connection). */
static bool allowed_unprotected(uint8_t type)
{
	switch (type) {
	case NAS_REGISTRATION_REQUEST:
	case NAS_IDENTITY_RESPONSE:       /* only with a SUCI: checked in its handler */
	case NAS_AUTHENTICATION_RESPONSE:
	case NAS_AUTHENTICATION_FAILURE:
	case NAS_SECURITY_MODE_REJECT:
	case NAS_DEREGISTRATION_REQUEST_UE_ORIG:
	case NAS_DEREGISTRATION_ACCEPT_UE_TERM:
	case NAS_SERVICE_REQUEST:
		return true;
	default:
		return false;
	}
}

static void dispatch(struct amf_ue *ue, const struct nas_msg *m, const struct amf_nas_in *in)
{
	switch (m->type) {
	case NAS_REGISTRATION_REQUEST:
		amf_reg_request(ue, &m->reg_req, in, NULL, 0, false);
		break;
	case NAS_REGISTRATION_COMPLETE:
		amf_reg_complete(ue);
		break;
	case NAS_IDENTITY_RESPONSE:
		amf_ident_response(ue, &m->id_resp);
		break;
	case NAS_AUTHENTICATION_RESPONSE:
		amf_auth_response(ue, &m->auth_resp);
		break;
	case NAS_AUTHENTICATION_FAILURE:
		amf_auth_failure(ue, &m->auth_fail);
		break;
	case NAS_SECURITY_MODE_COMPLETE:
		amf_smc_complete(ue, &m->smc_cpl);
		break;
	case NAS_SECURITY_MODE_REJECT:
		amf_smc_reject(ue, &m->smc_rej);
		break;
	case NAS_DEREGISTRATION_REQUEST_UE_ORIG:
		amf_dereg_request(ue, &m->dereg_req);
		break;
	case NAS_DEREGISTRATION_ACCEPT_UE_TERM:
		dereg_accept_ue_term(ue);
		break;
	case NAS_CONFIGURATION_UPDATE_COMPLETE:
		amf_cfg_update_complete(ue);
		break;
	case NAS_5GMM_STATUS:
		/* TS 24.501 5.4.6: informational; no state change. */
		amf_ue_log(LOGL_INFO, ue, "5GMM status from UE cause=%u (%s)", m->gmm_status.cause,
			   nas_5gmm_cause_name(m->gmm_status.cause));
		break;
	case NAS_UL_NAS_TRANSPORT:
		/* TS 24.501 5.4.5.2: N1 SM to the SMF (nas_sm.c). */
		amf_sm_ul_nas_transport(ue, &m->ul_nas);
		break;
	default:
		/* TS 24.501 7.4: known but not expected here. */
		amf_gmm_status_send(ue, NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE);
		break;
	}
}

static void nas_rx(struct amf_ue *ue, const uint8_t *buf, size_t len, bool initial)
{
	struct amf *amf = ue->amf;
	struct amf_nas_in in;
	struct nas_err err;
	int rc;

	rc = amf_nas_unwrap(ue, buf, len, &in);
	if (rc < 0) {
		amf->st.nas_dropped++;
		amf_ue_log(LOGL_WARN, ue, "undecodable NAS framing rc=%d: dropped", rc);
		if (initial)
			amf_ue_release(ue, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_UNSPECIFIED);
		return;
	}
	if (ue->sec_active && !in.integrity_ok) {
		/* TS 24.501 4.4.4.3: after secure exchange is established every message
		 * must pass the integrity check; failing ones are discarded, and the
		 * context (COUNT, state) is left as it was. */
		amf->st.nas_mac_fail++;
		ue->nas_mac_fail++;
		log_rl(LOGL_WARN, "amf", ue->logpfx, "uplink NAS failed integrity check (sht=%u): discarded",
		       in.sht);
		return;
	}
	if (in.integrity_ok)
		amf_nas_count_accept(ue, &in);
	if ((in.sht == NAS_SHT_INTEGRITY_CIPHERED || in.sht == NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX) &&
	    !in.integrity_ok) {
		/* Ciphered but unverifiable: we cannot read it. */
		amf->st.nas_dropped++;
		if (ue->sec_ctx) {
			amf->st.nas_mac_fail++;
			ue->nas_mac_fail++;
		}
		amf_ue_log(LOGL_WARN, ue, "ciphered NAS without a matching context: dropped");
		if (initial)
			amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
		return;
	}
	rc = amf_nas_decode_ul(ue, in.msg, in.len, &amf->nrx, &err);
	if (rc < 0) {
		amf->st.nas_dropped++;
		amf_ue_log(LOGL_WARN, ue, "bad NAS message rc=%d %s", rc, err.reason ? err.reason : "");
		/* TS 24.501 7.2 / 7.3: unknown type → #97, malformed mandatory IE → #96. */
		if (!initial)
			amf_gmm_status_send(ue, rc == -ENOMSG ? NAS_5GMM_MSG_TYPE_NON_EXISTENT
							       : NAS_5GMM_INVALID_MANDATORY_INFO);
		else
			amf_ue_release(ue, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_UNSPECIFIED);
		return;
	}
	if (amf->nrx.epd != NAS_EPD_5GMM) {
		amf->st.nas_dropped++;
		return;
	}
	if (!in.integrity_ok && !allowed_unprotected(amf->nrx.type)) {
		/* TS 24.501 4.4.4.3: not processed before security is established. */
		amf->st.nas_dropped++;
		amf_ue_log(LOGL_WARN, ue, "unprotected %s discarded", nas_msg_name(amf->nrx.type));
		return;
	}
	amf_ue_log(LOGL_DEBUG, ue, "rx %s sht=%u count=%u", nas_msg_name(amf->nrx.type), in.sht, in.count);
	if (initial) {
		switch (amf->nrx.type) {
		case NAS_REGISTRATION_REQUEST:
			amf_reg_request(ue, &amf->nrx.reg_req, &in, buf, len, true);
			return;
		case NAS_DEREGISTRATION_REQUEST_UE_ORIG:
			amf_dereg_initial(ue, &amf->nrx.dereg_req, &in, buf, len);
			return;
		case NAS_SERVICE_REQUEST:
			amf_service_request(ue, &amf->nrx.svc_req, &in, buf, len);
			return;
		default:
			/* TS 24.501 4.4.6: other messages cannot open a connection. */
			amf->st.nas_dropped++;
			amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
			return;
		}
	}
	dispatch(ue, &amf->nrx, &in);
}

void amf_nas_rx_initial(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	nas_rx(ue, nas, len, true);
}

void amf_nas_rx(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	nas_rx(ue, nas, len, false);
}

void amf_nas_ics_result(struct amf_ue *ue, bool ok)
{
	if (!ok) {
		/* TS 38.413 8.3.1.3: the RAN could not set up the context; release. */
		amf_ue_log(LOGL_WARN, ue, "Initial Context Setup failed");
		ue->ics_sent = false;
		amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
		return;
	}
	/* A service request brought an idle UE back whose allowed NSSAI changed meanwhile
	 * (amf_nssai_refresh): TS 24.501 5.4.4 now that the connection is up. */
	amf_nssai_cuc_try(ue);
}
