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
	amf_ho_abort(old);   /* the UE left its connection: an N2 handover running ends */
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

/* TS 23.502 4.2.2.2.2: ue has authenticated (security mode complete); the context its
 * SUPI had so far is replaced by it. ue keeps its N2 connection (and its AMF UE NGAP ID,
 * which the gNB already has) and its new security context; it takes from the old one
 * what outlives a registration: the PDU sessions, the 5G-GUTI the UE may still use
 * (valid until REGISTRATION COMPLETE), downlink data waiting. The old context's own
 * N2 connection, if any, is released; then it is freed. */
void amf_ue_supersede(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct amf_ue *old = amf_ue_by_supi(amf, ue->supi);

	if (old && old != ue && !old->reaping) {
		amf_ue_log(LOGL_INFO, old, "replaced by authenticated ue=%u", ue->idx);
		amf_ho_abort(old);   /* before its sessions move: the SMF ends their handover */
		amf_tmr_stop_all(old);
		if (old->gnb) {
			if (!old->release_pending)
				amf_ngap_release(old, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_RELEASE_5GC);
			amf_ue_unbind(old);
			amf_sm_an_released(old, false);
		}
		if (old->sm) {
			ue->sm = old->sm;
			old->sm = NULL;
			if (amf->smf)
				smf_ue_set_cookie(amf->smf, ue->sm, ue);
		}
		ue->dl_pending = old->dl_pending;
		if (old->tmsi_indexed && !ue->tmsi_indexed)
			amf_ue_take_tmsi(ue, old);
		amf_ue_free(old);
	}
	amf_ue_set_supi(ue, ue->supi);   /* indexed from now on */
	ue->ident_by_guti = false;
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
	amf_gmm_dispatch(ue, AMF_EV_AN_REL, NULL);
}

/* The N2 connection is gone (release complete, NG reset, association loss). */
int amf_a_an_rel(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	struct amf *amf = ue->amf;
	bool authenticated = ue->supi_indexed && amf_gmm_main(ue) != AMF_GMM_DEREGISTERED &&
			     amf_gmm_main(ue) != AMF_GMM_DEREGISTERED_INITIATED;

	(void)c;
	amf_ho_an_released(ue);   /* an N2 handover running ends (ngap_ho_exec.c) */
	amf_ue_unbind(ue);
	ue->sec_active = false;
	ue->ics_sent = false;
	ue->release_pending = false;
	ue->paged = false;
	/* TS 23.502 4.2.6 / TS 23.527: an AN release, whatever ended the N2 connection (a
	 * release, an NG Reset, the loss of the gNB's association): the sessions stay with
	 * their addresses, their user planes are deactivated (downlink buffered), and the
	 * next service request, on any gNB, re-establishes them. */
	if (amf->an_lost)
		amf_ue_log(LOGL_INFO, ue, "N2 association lost: AN release, sessions kept");
	amf_sm_an_released(ue, false);
	/* Procedures that need the connection end with it. */
	amf_tmr_stop(ue, AMF_T3560);
	amf_tmr_stop(ue, AMF_T3570);
	amf_tmr_stop(ue, AMF_T3555);
	amf_tmr_stop(ue, AMF_T3522);
	amf_tmr_stop(ue, AMF_TMR_RELEASE_GUARD);
	if (ue->nssai_cuc_inflight) {
		/* TS 24.501 5.4.4.5 b): lower layer failure before COMPLETE: the allowed
		 * NSSAI is sent again on the next connection. */
		ue->nssai_cuc_inflight = false;
		ue->nssai_cuc_pending = true;
	}
	ue->has_pending_tmsi = false;
	/* TS 24.501 5.5.1.2.8: lower layer failure before REGISTRATION COMPLETE; the new
	 * 5G-GUTI stays valid for us, the UE may use either. */
	amf_tmr_stop(ue, AMF_T3550);
	if (amf_gmm_registered(ue) || (ue->parent == AMF_PARENT_SVC && authenticated)) {
		/* CM-IDLE: TS 24.501 5.3.7 mobile reachable timer. */
		amf_tmr_start(ue, AMF_TMR_MOBILE_REACHABLE);
		amf_ue_log(LOGL_INFO, ue, "CM-IDLE");
		return AMF_GS_REGISTERED;
	}
	amf_ue_log(LOGL_INFO, ue, "context removed");
	amf_ue_discard(ue);
	return AMF_GS_DEREGISTERED;
}

/* ---- deregistration (TS 24.501 5.5.2) ---- */
static int dereg_now(struct amf_ue *ue, uint8_t dereg_type)
{
	struct nas_msg *m = &ue->amf->ntx;
	bool switch_off = (dereg_type & 0x08) != 0;

	ue->amf->st.dereg_ue++;
	amf_tmr_stop_all(ue);
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
	return AMF_GS_DEREGISTERED;
}

/* Unknown UE, or nothing to deregister: answered and released (TS 24.501 5.5.2.2.2);
 * no context is touched. */
static int dereg_unknown(struct amf_ue *ue, uint8_t dereg_type)
{
	struct nas_msg *m = &ue->amf->ntx;

	if (!(dereg_type & 0x08)) {
		memset(m, 0, sizeof(*m));
		m->type = NAS_DEREGISTRATION_ACCEPT_UE_ORIG;
		amf_nas_send(ue, m, AMF_NAS_PLAIN, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	}
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
	return AMF_GS_DEREGISTERED;
}

int amf_a_dereg_req(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_deregistration_request *r = &c->msg->dereg_req;
	const struct amf_ue *named = c->named;

	if (!c->initial || ue->initial_ok)
		return dereg_now(ue, r->dereg_type);   /* verified with this context */
	if (!named || !named->supi_indexed)
		return dereg_unknown(ue, r->dereg_type);
	if (r->dereg_type & 0x08) {
		/* TS 24.501 4.4.4.3: a switch-off that fails the integrity check cannot be
		 * authenticated (the UE is gone): it must not deregister anyone. */
		ue->amf->st.nas_mac_fail++;
		amf_ue_log(LOGL_WARN, ue, "switch-off for ue=%u not integrity verified: ignored", named->idx);
		amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
		return AMF_GS_DEREGISTERED;
	}
	/* TS 24.501 4.4.4.3, TS 23.502 4.2.2.3.2 step 1a: authenticate before processing it
	 * further; this context carries it, the named one is not touched until then. */
	amf_ue_log(LOGL_INFO, ue, "deregistration for ue=%u not integrity verified: authenticating",
		   named->idx);
	amf_ue_set_supi_pending(ue, named->supi);
	ue->ident_by_guti = true;
	/* The security mode needs the UE's security capabilities, which a deregistration
	 * does not carry: those the network holds (replayed in the SECURITY MODE COMMAND,
	 * where the UE checks them, TS 33.501 6.7.2). */
	ue->sec_cap = named->sec_cap;
	memcpy(ue->ue_sec_cap, named->ue_sec_cap, sizeof(ue->ue_sec_cap));
	ue->ue_sec_cap_len = named->ue_sec_cap_len;
	ue->ue_sec_cap_valid = named->ue_sec_cap_valid;
	ue->ue_ngksi = r->ngksi & 0x07;
	ue->parent = AMF_PARENT_DEREG;
	ue->dereg_type = r->dereg_type;
	ue->auth_done = false;
	ue->smc_done = false;
	ue->auth_resyncs = 0;
	return amf_auth_start(ue);
}

/* The deregistration that waited for authentication (ue->parent AMF_PARENT_DEREG):
 * this context has replaced the old one; the UE proved who it is. */
int amf_dereg_authenticated(struct amf_ue *ue)
{
	return dereg_now(ue, ue->dereg_type);
}

/* Network deregistration without the UE's answer: sessions released locally, the N2
 * connection released (the context goes with it) or, without one, the context now. */
static void dereg_local(struct amf_ue *ue)
{
	amf_ue_log(LOGL_INFO, ue, "deregistered locally");
	amf_tmr_stop_all(ue);
	amf_sm_detach(ue);
	if (ue->gnb)
		amf_ngap_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
	else
		amf_ue_discard(ue);
}

int amf_deregister_supi(struct amf *amf, const char *supi, bool reregister)
{
	struct amf_ue *ue = amf_ue_by_supi(amf, supi);
	struct amf_gmm_ctx c = { .arg = reregister };

	if (!ue || ue->reaping)
		return -ENOENT;
	amf->st.dereg_net++;
	if (!amf_gmm_accepts(ue, AMF_EV_NET_DEREG)) {
		/* A procedure of the UE's is running (or none registered): local. */
		dereg_local(ue);
		return 0;
	}
	return amf_gmm_dispatch(ue, AMF_EV_NET_DEREG, &c);
}

int amf_a_net_dereg(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	struct nas_msg *m = &ue->amf->ntx;

	if (!ue->gnb && (ue->net_dereg_pending & 4)) {
		/* The paging for it got no answer: deregistered locally. */
		ue->net_dereg_pending = 0;
		dereg_local(ue);
		return AMF_GS_DEREGISTERED;
	}
	if (!ue->gnb) {
		/* TS 24.501 5.5.2.3.1 / TS 23.502 4.2.2.3.3: a CM-IDLE UE is paged first; the
		 * request goes out once it is connected (amf_nas_ics_result), and a paging
		 * that gets no answer ends in a local deregistration (amf_on_t3513). */
		ue->net_dereg_pending = (uint8_t)(1 | (c->arg ? 2 : 0));
		amf_sm_page(ue);
		return AMF_GS_REGISTERED;
	}
	ue->net_dereg_pending = 0;
	amf_tmr_stop(ue, AMF_T3550);
	amf_tmr_stop(ue, AMF_T3555);
	/* TS 24.501 5.5.2.3.1 */
	memset(m, 0, sizeof(*m));
	m->type = NAS_DEREGISTRATION_REQUEST_UE_TERM;
	/* TS 24.501 9.11.3.20, network to UE: bit 3 "re-registration required" (bit 4,
	 * switch off, is the UE's), access type 3GPP. */
	m->dereg_req.dereg_type = (uint8_t)((c->arg ? 0x04 : 0) | 0x01);
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_T3522);
	amf_tmr_start(ue, AMF_T3522);
	return AMF_GS_DEREG_INIT;
}

int amf_a_dereg_acc(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	amf_tmr_stop(ue, AMF_T3522);
	/* TS 24.501 5.5.2.3.2: sessions released locally. */
	amf_sm_detach(ue);
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
	return AMF_GS_DEREGISTERED;
}

int amf_a_t3522(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	/* TS 24.501 5.5.2.3.5 a): abort and consider the UE deregistered. */
	amf_sm_detach(ue);
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_DEREGISTER);
	return AMF_GS_DEREGISTERED;
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

/* ---- service request (TS 24.501 5.6.1) ---- */
static int svc_reject(struct amf_ue *ue, uint8_t cause)
{
	struct nas_msg *m = &ue->amf->ntx;

	ue->amf->st.service_rej++;
	memset(m, 0, sizeof(*m));
	m->type = NAS_SERVICE_REJECT;
	m->svc_rej.cause = cause;
	amf_nas_send(ue, m, ue->sec_active ? AMF_NAS_AUTO : AMF_NAS_PLAIN, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_NORMAL_RELEASE);
	return (int)ue->state;
}

/* TS 24.501 5.6.1.4.1 / TS 23.502 4.2.3.2: the accept; from CM-IDLE in the Initial
 * Context Setup Request, which carries the PDU Session Resource Setup list of the
 * sessions to reactivate; in 5GMM-CONNECTED by DL NAS transport after the PDU Session
 * Resource Setup Requests of those sessions. */
int amf_service_accept(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;
	struct nas_service_request r = {
		.has_ul_data_status = ue->svc_has_uds, .ul_data_status = ue->svc_uds,
		.has_pdu_session_status = ue->svc_has_pss, .pdu_session_status = ue->svc_pss,
	};

	memset(m, 0, sizeof(*m));
	m->type = NAS_SERVICE_ACCEPT;
	if (ue->ics_sent) {
		amf_sm_service_connected(ue, &r, &m->svc_acc);
		amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	} else {
		amf_sm_service(ue, &r, &m->svc_acc);
		amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_ICS, AMF_TMR_COUNT);
		amf->n_ics_items = 0;
	}
	return AMF_GS_REGISTERED;
}

/* The IEs of a SERVICE REQUEST the accept needs: TS 24.501 4.4.6, a UE with a valid
 * context puts the non-cleartext ones (uplink data status, PDU session status, allowed
 * PDU session status) in the NAS message container, ciphered with the COUNT of the
 * SERVICE REQUEST itself. */
static void svc_take(struct amf_ue *ue, const struct nas_service_request *r)
{
	const struct nas_service_request *in = &ue->amf->nrx2.svc_req;

	if (!r->has_nas_container || amf_nas_container_open(ue, &r->nas_container, NAS_SERVICE_REQUEST) < 0)
		in = r;
	ue->svc_has_uds = in->has_ul_data_status;
	ue->svc_uds = in->ul_data_status;
	ue->svc_has_pss = in->has_pdu_session_status;
	ue->svc_pss = in->pdu_session_status;
}

int amf_a_svc_req(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_service_request *r = &c->msg->svc_req;
	struct amf *amf = ue->amf;

	amf->st.service_req++;
	if (c->initial && !ue->initial_ok) {
		/* TS 24.501 4.4.4.3, 5.6.1.5: unknown, or not verified with the context its
		 * 5G-S-TMSI names (which stays exactly as it was): #9, the UE registers. */
		if (c->named)
			amf_ue_log(LOGL_WARN, ue, "service request for ue=%u not integrity verified: #9",
				   c->named->idx);
		return svc_reject(ue, NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED);
	}
	svc_take(ue, r);
	/* TS 33.501 6.12.3: a paging response gets a new 5G-GUTI (after the ICS). */
	ue->paged = c->initial && ev_timer_pending(&ue->tmr[AMF_T3513]);
	if (amf_counts_near_wrap(ue)) {
		/* TS 33.501 6.4.3.1: a new K_AMF before the NAS COUNT wraps; the accept
		 * follows the security mode (amf_reg_continue). */
		amf_ue_log(LOGL_INFO, ue, "NAS COUNT near wrap: re-authenticating");
		ue->parent = AMF_PARENT_SVC;
		ue->auth_done = false;
		ue->smc_done = false;
		ue->auth_resyncs = 0;
		return amf_auth_start(ue);
	}
	return amf_service_accept(ue);
}

/* ---- timer give-up paths ---- */
int amf_a_t3570(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	/* TS 24.501 5.4.3.7 b) */
	return amf_reg_abort(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
}

void amf_on_mobile_reachable(struct amf_ue *ue)
{
	/* TS 24.501 5.3.7: start the implicit de-registration timer. */
	amf_tmr_start(ue, AMF_TMR_IMPLICIT_DEREG);
}

void amf_on_release_guard(struct amf_ue *ue)
{
	/* The gNB never answered the UE CONTEXT RELEASE COMMAND: the N2 connection is
	 * considered gone (TS 38.413 8.3.3), exactly as if it had. */
	amf_ue_log(LOGL_WARN, ue, "no UE CONTEXT RELEASE COMPLETE: released locally");
	amf_ue_an_released(ue);
}

int amf_a_implicit(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	/* TS 24.501 5.3.7: implicitly deregister; the context goes. */
	ue->amf->st.implicit_dereg++;
	amf_ue_discard(ue);
	return AMF_GS_DEREGISTERED;
}

int amf_a_status(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	/* TS 24.501 5.4.6: informational; no state change. */
	amf_ue_log(LOGL_INFO, ue, "5GMM status from UE cause=%u (%s)", c->msg->gmm_status.cause,
		   nas_5gmm_cause_name(c->msg->gmm_status.cause));
	return (int)ue->state;
}

int amf_a_ul_nas(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	/* TS 24.501 5.4.5.2: N1 SM to the SMF (nas_sm.c). */
	amf_sm_ul_nas_transport(ue, &c->msg->ul_nas);
	return (int)ue->state;
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

/* The event of an uplink 5GMM message type; AMF_EV_COUNT for none. */
static enum amf_gmm_event event_of(uint8_t type)
{
	switch (type) {
	case NAS_REGISTRATION_REQUEST: return AMF_EV_REG_REQ;
	case NAS_REGISTRATION_COMPLETE: return AMF_EV_REG_CPL;
	case NAS_IDENTITY_RESPONSE: return AMF_EV_ID_RSP;
	case NAS_AUTHENTICATION_RESPONSE: return AMF_EV_AUTH_RSP;
	case NAS_AUTHENTICATION_FAILURE: return AMF_EV_AUTH_FAIL;
	case NAS_SECURITY_MODE_COMPLETE: return AMF_EV_SMC_CPL;
	case NAS_SECURITY_MODE_REJECT: return AMF_EV_SMC_REJ;
	case NAS_DEREGISTRATION_REQUEST_UE_ORIG: return AMF_EV_DEREG_REQ;
	case NAS_DEREGISTRATION_ACCEPT_UE_TERM: return AMF_EV_DEREG_ACC;
	case NAS_CONFIGURATION_UPDATE_COMPLETE: return AMF_EV_CUC_CPL;
	case NAS_SERVICE_REQUEST: return AMF_EV_SVC_REQ;
	case NAS_UL_NAS_TRANSPORT: return AMF_EV_UL_NAS;
	case NAS_5GMM_STATUS: return AMF_EV_STATUS;
	default: return AMF_EV_COUNT;
	}
}

/* The context an initial message names by its 5G-GUTI / 5G-S-TMSI. */
static struct amf_ue *named_by(struct amf *amf, const struct nas_msg *m)
{
	const struct nas_mobile_id *id = NULL;
	struct amf_ue *c;

	switch (m->type) {
	case NAS_REGISTRATION_REQUEST:
		id = &m->reg_req.mobile_id;
		break;
	case NAS_DEREGISTRATION_REQUEST_UE_ORIG:
		id = &m->dereg_req.mobile_id;
		break;
	case NAS_SERVICE_REQUEST:
		/* TS 24.501 9.11.3.4: the 5G-S-TMSI is AMF set, pointer and 5G-TMSI. */
		if (m->svc_req.s_tmsi.type != NAS_MOBID_5G_S_TMSI ||
		    m->svc_req.s_tmsi.guti.amf_set_id != amf->cfg.amf_set_id ||
		    m->svc_req.s_tmsi.guti.amf_pointer != amf->cfg.amf_pointer)
			return NULL;
		c = amf_ue_by_tmsi(amf, m->svc_req.s_tmsi.guti.tmsi);
		return c && !c->reaping ? c : NULL;
	default:
		return NULL;
	}
	return id->type == NAS_MOBID_5G_GUTI ? amf_ue_by_guti(amf, &id->guti) : NULL;
}

/* TS 24.501 4.4.4.3 and 4.4.6: an initial message is processed in the context it names
 * only when it passes the integrity check with that context's keys (a COUNT already
 * seen fails it: replays too); the check itself changes nothing. Then the new
 * connection moves to that context (amf_ue_adopt). Otherwise the message stays in the
 * context of its own connection (*named tells the actions whom it claimed to be). */
static struct amf_ue *initial_context(struct amf_ue *ue, enum amf_gmm_event ev, const uint8_t *raw,
				      size_t raw_len, struct amf_ue **named)
{
	struct amf_ue *old = named_by(ue->amf, &ue->amf->nrx);
	struct amf_nas_in in;

	*named = NULL;
	ue->initial_ok = false;
	if (!old || old == ue)
		return ue;
	if (!old->supi_indexed || !old->sec_ctx || amf_nas_unwrap(old, raw, raw_len, &in) < 0 ||
	    !in.integrity_ok || !amf_gmm_accepts(old, ev)) {
		if (old->sec_ctx && in.sht != NAS_SHT_PLAIN) {
			ue->amf->st.nas_mac_fail++;
			old->nas_mac_fail++;
		}
		*named = old;
		return ue;
	}
	ue = amf_ue_adopt(ue, old);
	amf_nas_count_accept(ue, &in);
	ue->sec_active = true;
	ue->initial_ok = true;
	return ue;
}

/* The security header undone and checked (TS 24.501 4.4.4.3). 0 when in holds a message this
 * context may read; else it is dropped and counted (an initial connection released): -errno. */
static int nas_rx_unwrap(struct amf_ue *ue, const uint8_t *buf, size_t len, bool initial, struct amf_nas_in *in)
{
	struct amf *amf = ue->amf;
	int rc = amf_nas_unwrap(ue, buf, len, in);

	if (rc < 0) {
		amf->st.nas_dropped++;
		amf_ue_log(LOGL_WARN, ue, "undecodable NAS framing rc=%d: dropped", rc);
		if (initial)
			amf_ue_release(ue, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_UNSPECIFIED);
		return rc;
	}
	if (ue->sec_active && !in->integrity_ok) {
		/* TS 24.501 4.4.4.3: after secure exchange is established every message
		 * must pass the integrity check; failing ones are discarded, and the
		 * context (COUNT, state) is left as it was. */
		amf->st.nas_mac_fail++;
		ue->nas_mac_fail++;
		log_rl(LOGL_WARN, "amf", amf_ue_logpfx(ue), "uplink NAS failed integrity check (sht=%u): discarded",
		       in->sht);
		return -EACCES;
	}
	if ((in->sht == NAS_SHT_INTEGRITY_CIPHERED || in->sht == NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX) &&
	    !in->integrity_ok) {
		/* Ciphered but unverifiable: we cannot read it. */
		amf->st.nas_dropped++;
		if (ue->sec_ctx) {
			amf->st.nas_mac_fail++;
			ue->nas_mac_fail++;
		}
		amf_ue_log(LOGL_WARN, ue, "ciphered NAS without a matching context: dropped");
		if (initial)
			amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
		return -EACCES;
	}
	return 0;
}

/* The plain message of in decoded into amf->nrx: 0 for a 5GMM message this state may process;
 * else it is dropped and counted, with the 5GMM STATUS or the release TS 24.501 7.2, 7.3 and
 * 4.4.4.3 ask for: -errno. */
static int nas_rx_decode(struct amf_ue *ue, const struct amf_nas_in *in, bool initial)
{
	struct amf *amf = ue->amf;
	struct nas_err err;
	int rc = amf_nas_decode_ul(ue, in->msg, in->len, &amf->nrx, &err);

	if (rc < 0) {
		amf->st.nas_dropped++;
		amf_ue_log(LOGL_WARN, ue, "bad NAS message rc=%d %s", rc, err.reason ? err.reason : "");
		/* TS 24.501 7.2 / 7.3: unknown type → #97, malformed mandatory IE → #96. */
		if (!initial)
			amf_gmm_status_send(ue, rc == -ENOMSG ? NAS_5GMM_MSG_TYPE_NON_EXISTENT
							       : NAS_5GMM_INVALID_MANDATORY_INFO);
		else
			amf_ue_release(ue, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_UNSPECIFIED);
		return rc;
	}
	if (amf->nrx.epd != NAS_EPD_5GMM) {
		amf->st.nas_dropped++;
		return -EPROTO;
	}
	if (!in->integrity_ok && !allowed_unprotected(amf->nrx.type)) {
		/* TS 24.501 4.4.4.3: not processed before security is established. */
		amf->st.nas_dropped++;
		amf_ue_log(LOGL_WARN, ue, "unprotected %s discarded", nas_msg_name(amf->nrx.type));
		return -EACCES;
	}
	return 0;
}

static void nas_rx(struct amf_ue *ue, const uint8_t *buf, size_t len, bool initial)
{
	struct amf *amf = ue->amf;
	struct amf_gmm_ctx c = { .initial = initial, .raw = buf, .raw_len = len };
	struct amf_nas_in in;
	enum amf_gmm_event ev;

	if (nas_rx_unwrap(ue, buf, len, initial, &in) < 0 || nas_rx_decode(ue, &in, initial) < 0)
		return;
	if (in.integrity_ok)
		amf_nas_count_accept(ue, &in);
	ev = event_of(amf->nrx.type);
	amf_ue_log(LOGL_DEBUG, ue, "rx %s sht=%u count=%u", nas_msg_name(amf->nrx.type), in.sht, in.count);
	if (initial) {
		if (ev != AMF_EV_REG_REQ && ev != AMF_EV_DEREG_REQ && ev != AMF_EV_SVC_REQ) {
			/* TS 24.501 4.4.6: other messages cannot open a connection. */
			amf->st.nas_dropped++;
			amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
			return;
		}
		/* The initial message was verified (if at all) by initial_context with the
		 * context it names, not by this fresh one. */
		ue = initial_context(ue, ev, buf, len, &c.named);
	}
	if (ev == AMF_EV_COUNT) {
		/* TS 24.501 7.4: known but not expected here. */
		amf_gmm_status_send(ue, NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE);
		return;
	}
	c.msg = &amf->nrx;
	c.in = &in;
	amf_gmm_dispatch(ue, ev, &c);
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
	if (ue->net_dereg_pending && ue->state == AMF_GS_REGISTERED) {
		/* The paging was for a network-initiated deregistration. */
		struct amf_gmm_ctx c = { .arg = (ue->net_dereg_pending & 2) != 0 };

		ue->paged = false;
		amf_gmm_dispatch(ue, AMF_EV_NET_DEREG, &c);
		return;
	}
	if (ue->paged && ue->state == AMF_GS_REGISTERED) {
		/* TS 33.501 6.12.3: after a service request that answered a paging, a new
		 * 5G-GUTI (the old one was broadcast in the paging). The pending allowed
		 * NSSAI, if any, rides along (cfg_update_send). */
		struct amf_gmm_ctx c = { .arg = AMF_CUC_NEW_GUTI };

		ue->paged = false;
		amf_gmm_dispatch(ue, AMF_EV_CUC_START, &c);
		return;
	}
	/* A service request brought an idle UE back whose allowed NSSAI changed meanwhile
	 * (amf_nssai_refresh): TS 24.501 5.4.4 now that the connection is up. */
	amf_nssai_cuc_try(ue);
}
