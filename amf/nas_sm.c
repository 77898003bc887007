/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Session management glue between the AMF and smf/ (smf/smf.h):
 *  - UL NAS TRANSPORT of N1 SM information to the SMF and its TS 24.501 5.4.5.2.5
 *    network-side checks; the SMF's answer as DL NAS TRANSPORT and/or the NGAP PDU
 *    Session Resource Setup / Release / Modify Request (TS 38.413 8.2);
 *  - SM transfers of the gNB's responses back to the SMF;
 *  - user-plane deactivation on AN release, reactivation by service request
 *    (TS 23.502 4.2.3.2, 4.2.6; TS 24.501 5.6.1.4);
 *  - paging with T3513 when the SMF reports downlink data for a CM-IDLE UE
 *    (TS 23.502 4.2.3.3, TS 24.501 5.6.2.2.1).
 */
#include <errno.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

/* Paging repetitions after the first PAGING before giving up (operator choice;
 * TS 23.502 4.2.3.3 leaves the strategy to the AMF). */
#define AMF_PAGING_MAX_RETX 4

/* TS 24.501 9.11.3.47 Request type. */
#define REQ_INITIAL 1
#define REQ_INITIAL_EMERGENCY 3

static void so_init(struct amf *amf)
{
	smf_out_init(&amf->so, amf->so_n1, sizeof(amf->so_n1), amf->so_n2, sizeof(amf->so_n2));
}

/* The UE's SMF handle, attached on first use (a UE with a SUPI, i.e. registered). */
static struct smf_ue *sm_of(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	int rc;

	if (!amf->smf || !ue->has_supi || !ue->supi_indexed)
		return NULL;   /* sessions only for an authenticated context */
	if (!ue->sm) {
		rc = smf_ue_attach(amf->smf, ue->supi, ue, &ue->sm);
		if (rc < 0) {
			amf_ue_log(LOGL_WARN, ue, "smf attach failed rc=%d", rc);
			ue->sm = NULL;
		}
		amf_sm_allowed_sync(ue);
	}
	return ue->sm;
}

/* TS 23.502 4.3.2.2.1 step 1: the SMF picks the default S-NSSAI of a request without
 * one from the UE's allowed NSSAI (issue 14 item 8), so it gets every change of it. */
void amf_sm_allowed_sync(struct amf_ue *ue)
{
	struct ngap_snssai n[AMF_MAX_NSSAI];
	unsigned i;

	if (!ue->sm || !ue->amf->smf)
		return;
	for (i = 0; i < ue->allowed.n && i < AMF_MAX_NSSAI; i++) {
		memset(&n[i], 0, sizeof(n[i]));
		n[i].sst = ue->allowed.s[i].sst;
		n[i].has_sd = ue->allowed.s[i].sd != AMF_SD_NONE;
		n[i].sd[0] = (uint8_t)(ue->allowed.s[i].sd >> 16);
		n[i].sd[1] = (uint8_t)(ue->allowed.s[i].sd >> 8);
		n[i].sd[2] = (uint8_t)ue->allowed.s[i].sd;
	}
	smf_ue_set_allowed_nssai(ue->amf->smf, ue->sm, n, i);
}

/* Send what the SMF asked for (smf.h "Calling convention"). 0, -EAGAIN or -errno. */
static int sm_send(struct amf_ue *ue, const struct smf_out *o)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;
	int rc;

	if (o->n2_proc == SMF_N2_NONE && !o->n1_len)
		return 0;
	if (!ue->gnb || ue->release_pending || !ue->sec_active)
		return -EAGAIN;
	if (o->n1_len) {
		/* TS 24.501 8.2.11: DL NAS TRANSPORT, payload container type N1 SM. */
		memset(m, 0, sizeof(*m));
		m->type = NAS_DL_NAS_TRANSPORT;
		m->dl_nas.payload_type = NAS_PAYLOAD_N1_SM;
		m->dl_nas.payload.p = o->n1;
		m->dl_nas.payload.len = (uint16_t)o->n1_len;
		m->dl_nas.has_psi = true;
		m->dl_nas.psi = o->psi;
	}
	if (o->n2_proc == SMF_N2_NONE)
		return amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	amf->sm_cur = o;
	if (o->n1_len)
		rc = amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_SM, AMF_TMR_COUNT);
	else
		rc = amf_ngap_sm(ue, NULL, 0);
	amf->sm_cur = NULL;
	return rc;
}

/* TS 24.501 5.4.5.2.5: the 5GSM message goes back to the UE, not forwarded, with cause. */
static void not_forwarded(struct amf_ue *ue, const struct nas_ul_nas_transport *t, uint8_t cause)
{
	struct nas_msg *m = &ue->amf->ntx;

	ue->amf->st.sm_not_forwarded++;
	amf_ue_log(LOGL_INFO, ue, "UL NAS transport type %u psi=%d not forwarded #%u", t->payload_type,
		   t->has_psi ? t->psi : -1, cause);
	memset(m, 0, sizeof(*m));
	m->type = NAS_DL_NAS_TRANSPORT;
	m->dl_nas.payload_type = t->payload_type;
	m->dl_nas.payload = t->payload;
	if (t->has_psi) {
		m->dl_nas.has_psi = true;
		m->dl_nas.psi = t->psi;
	}
	m->dl_nas.has_cause = true;
	m->dl_nas.cause = cause;
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
}

static bool snssai_allowed(const struct amf_ue *ue, const struct nas_snssai *s)
{
	uint32_t sd = s->has_sd ? s->sd : AMF_SD_NONE;
	unsigned i;

	for (i = 0; i < ue->allowed.n; i++)
		if (ue->allowed.s[i].sst == s->sst && ue->allowed.s[i].sd == sd)
			return true;
	return false;
}

void amf_sm_ul_nas_transport(struct amf_ue *ue, const struct nas_ul_nas_transport *t)
{
	struct amf *amf = ue->amf;
	struct smf_ue *sm;
	bool est, initial;
	int rc;

	/* TS 24.501 5.4.5.2.5: SMS, LPP, SOR ... are not supported here: back with #90. */
	if (t->payload_type != NAS_PAYLOAD_N1_SM) {
		not_forwarded(ue, t, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
		return;
	}
	/* TS 24.501 8.2.10.2 / 7.6.3: the PDU session ID is required with N1 SM information;
	 * without it the message cannot be routed: conditional IE error. */
	if (!t->has_psi) {
		amf->st.sm_not_forwarded++;
		amf_gmm_status_send(ue, NAS_5GMM_CONDITIONAL_IE_ERROR);
		return;
	}
	est = t->payload.len >= 4 && t->payload.p[3] == NAS_PDU_SESSION_ESTABLISHMENT_REQUEST;
	initial = t->has_request_type ? (t->request_type == REQ_INITIAL || t->request_type == REQ_INITIAL_EMERGENCY)
				      : est;
	sm = sm_of(ue);
	if (!sm) {
		/* No SMF (or none can take the UE): TS 24.501 5.4.5.2.5 "unable to forward". */
		not_forwarded(ue, t, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
		return;
	}
	if (initial && t->has_snssai && !snssai_allowed(ue, &t->snssai)) {
		/* TS 24.501 5.4.5.2.5: S-NSSAI of an initial request not in the allowed NSSAI. */
		not_forwarded(ue, t, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
		return;
	}
	if (!initial && !(smf_ue_psi_map(sm) & (1u << (t->psi & 15)))) {
		/* TS 24.501 5.4.5.2.5: no PDU session routing context for this PSI. */
		not_forwarded(ue, t, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
		return;
	}
	so_init(amf);
	rc = smf_n1_rx(amf->smf, sm, t, &amf->so);
	if (rc < 0) {
		amf_ue_log(LOGL_WARN, ue, "smf_n1_rx rc=%d", rc);
		not_forwarded(ue, t, NAS_5GMM_PAYLOAD_NOT_FORWARDED);
		return;
	}
	amf->st.sm_forwarded++;
	rc = sm_send(ue, &amf->so);
	if (rc < 0)
		amf_ue_log(LOGL_WARN, ue, "SM answer not sent rc=%d", rc);
}

void amf_sm_n2(struct amf_ue *ue, uint8_t psi, enum smf_n2_msg kind, const struct ngap_bytes *transfer)
{
	struct amf *amf = ue->amf;
	int rc;

	if (!amf->smf || !ue->sm) {
		amf_ue_log(LOGL_INFO, ue, "SM transfer psi=%u kind=%d without a session: ignored", psi, kind);
		return;
	}
	so_init(amf);
	rc = smf_n2_rx(amf->smf, ue->sm, psi, kind, transfer->p, transfer->len, &amf->so);
	if (rc < 0) {
		amf_ue_log(LOGL_INFO, ue, "smf_n2_rx psi=%u kind=%d rc=%d", psi, kind, rc);
		return;
	}
	sm_send(ue, &amf->so);
}

/* TS 38.413 8.2.5 / TS 23.502 4.2.3.2 (Xn-less tunnel change): each session of the
 * indication goes to the SMF (new gNB tunnel, UPF rule updated) and the CONFIRM lists the
 * modified and the failed ones with their transfers. */
void amf_sm_modify_ind(struct amf_ue *ue, const struct ngap_pdu_session_resource_modify_indication *mi)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	struct ngap_pdu_session_resource_modify_confirm *cf = &tx->u.pdu_session_resource_modify_confirm;
	unsigned i;

	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_SUCCESSFUL;
	tx->proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION;
	cf->amf_ue_id = ue->amf_ue_ngap_id;
	cf->ran_ue_id = ue->ran_ue_ngap_id;
	for (i = 0; i < mi->n_sessions && i < SMF_PSI_MAX; i++) {
		const struct ngap_pdu_sess_item *it = &mi->sessions[i];
		struct ngap_pdu_sess_item *o;
		struct smf_out so;
		int rc = -ENOENT;

		smf_out_init(&so, amf->so_n1, sizeof(amf->so_n1), amf->ics_n2[i], SMF_N2_MAX);
		if (amf->smf && ue->sm)
			rc = smf_n2_rx(amf->smf, ue->sm, it->id, SMF_N2_MODIFY_IND, it->transfer.p,
				       it->transfer.len, &so);
		if (rc < 0 || !so.n2_len) {
			amf_ue_log(LOGL_INFO, ue, "modify indication psi=%u rc=%d: not confirmed", it->id, rc);
			continue;
		}
		o = so.n2_proc == SMF_N2_MODIFY_CONFIRM ? &cf->modified[cf->n_modified++]
							 : &cf->failed[cf->n_failed++];
		memset(o, 0, sizeof(*o));
		o->id = it->id;
		o->transfer.p = amf->ics_n2[i];
		o->transfer.len = so.n2_len;
	}
	amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

/* TS 38.413 8.2.4: QoS flows notified (logged), and sessions whose resources the NG-RAN
 * released: the network releases them (TS 23.502 4.3.4.2), the UE is told by N1. */
void amf_sm_notify(struct amf_ue *ue, const struct ngap_pdu_session_resource_notify *n)
{
	struct amf *amf = ue->amf;
	unsigned i;

	for (i = 0; i < n->n_notify; i++)
		amf_ue_log(LOGL_INFO, ue, "PDU session resource notify psi=%u", n->notify[i].id);
	for (i = 0; i < n->n_released; i++) {
		amf_ue_log(LOGL_INFO, ue, "NG-RAN released psi=%u: releasing the session", n->released[i].id);
		if (amf->smf && ue->sm)
			smf_release(amf->smf, ue->sm, n->released[i].id, NAS_5GSM_REGULAR_DEACTIVATION);
	}
}

void amf_paging_stop(struct amf_ue *ue)
{
	amf_tmr_stop(ue, AMF_T3513);
	ue->paging_retx = 0;
}

void amf_sm_detach(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	int n;

	amf_paging_stop(ue);
	ue->dl_pending = 0;
	if (!ue->sm)
		return;
	n = amf->smf ? smf_ue_detach(amf->smf, ue->sm) : 0;
	ue->sm = NULL;
	if (n > 0)
		amf_ue_log(LOGL_INFO, ue, "%d PDU session(s) released locally", n);
}

void amf_sm_an_released(struct amf_ue *ue, bool lost)
{
	struct amf *amf = ue->amf;

	amf->n_ics_items = 0;
	if (!ue->sm || !amf->smf)
		return;
	if (lost) {
		/* Issue 6: a gNB association lost while sessions are active leaves no rule,
		 * no address and no session context behind. */
		amf_sm_detach(ue);
		return;
	}
	/* TS 23.502 4.2.6 step 5: the user plane goes; the UPF buffers downlink. */
	smf_up_deactivate(amf->smf, ue->sm);
}

uint16_t amf_sm_status(struct amf_ue *ue, bool has, uint16_t ue_map)
{
	struct amf *amf = ue->amf;

	if (!amf->smf || !ue->sm)
		return 0;
	return has ? smf_ue_status_sync(amf->smf, ue->sm, ue_map) : smf_ue_psi_map(ue->sm);
}

void amf_sm_service(struct amf_ue *ue, const struct nas_service_request *r, struct nas_service_accept *a)
{
	struct amf *amf = ue->amf;
	uint16_t map, want, failed = 0;
	struct smf_out o;
	unsigned psi;
	int rc;

	amf->n_ics_items = 0;
	amf_paging_stop(ue);
	if (!amf->smf || !ue->sm) {
		/* No session: TS 24.501 5.6.1.4.1, all PSIs inactive. */
		a->has_pdu_session_status = r->has_pdu_session_status;
		a->pdu_session_status = 0;
		if (r->has_ul_data_status) {
			a->has_reactivation_result = true;
			a->reactivation_result = r->ul_data_status & 0xfffe;
		}
		ue->dl_pending = 0;
		return;
	}
	/* TS 24.501 5.6.1.4.1: sessions the UE no longer has are released locally. */
	map = amf_sm_status(ue, r->has_pdu_session_status, r->pdu_session_status);
	/* Re-establish the user plane of the sessions with uplink data and, for a paging
	 * response, those with downlink data waiting (TS 23.502 4.2.3.2 step 4). */
	want = (uint16_t)((r->has_ul_data_status ? r->ul_data_status : 0) | ue->dl_pending);
	for (psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		struct ngap_pdu_sess_item *it;

		if (!(want & (1u << psi)))
			continue;
		if (!(map & (1u << psi))) {
			failed |= (uint16_t)(1u << psi);
			continue;
		}
		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), amf->ics_n2[amf->n_ics_items], SMF_N2_MAX);
		rc = smf_up_reactivate(amf->smf, ue->sm, (uint8_t)psi, &o);
		if (rc == -EALREADY)
			continue;
		if (rc < 0 || o.n2_proc != SMF_N2_SETUP || !o.n2_len) {
			amf_ue_log(LOGL_INFO, ue, "reactivation psi=%u failed rc=%d", psi, rc);
			failed |= (uint16_t)(1u << psi);
			continue;
		}
		it = &amf->ics_items[amf->n_ics_items++];
		memset(it, 0, sizeof(*it));
		it->id = (uint8_t)psi;
		it->has_snssai = true;
		it->snssai = o.snssai;
		it->transfer.p = amf->ics_n2[amf->n_ics_items - 1];
		it->transfer.len = o.n2_len;
	}
	ue->dl_pending = 0;
	a->has_pdu_session_status = true;
	a->pdu_session_status = smf_ue_psi_map(ue->sm);
	/* TS 24.501 8.2.17.3: PDU session reactivation result when Uplink data status was sent;
	 * bit set = user-plane resources not re-established. */
	if (r->has_ul_data_status) {
		a->has_reactivation_result = true;
		a->reactivation_result = (uint16_t)(failed & r->ul_data_status);
	}
}

void amf_sm_service_connected(struct amf_ue *ue, const struct nas_service_request *r,
			      struct nas_service_accept *a)
{
	struct amf *amf = ue->amf;
	uint16_t map, want, failed = 0;
	unsigned psi;
	int rc;

	amf_paging_stop(ue);
	a->has_pdu_session_status = r->has_pdu_session_status;
	if (r->has_ul_data_status)
		a->has_reactivation_result = true;
	if (!amf->smf || !ue->sm) {
		a->reactivation_result = r->ul_data_status & 0xfffe;
		return;
	}
	/* TS 24.501 5.6.1.4.1 in 5GMM-CONNECTED: the same status sync and reactivation as
	 * from idle; the user planes come by PDU Session Resource Setup (TS 23.502 4.2.3.2
	 * step 12), one request per session, before the accept. */
	map = amf_sm_status(ue, r->has_pdu_session_status, r->pdu_session_status);
	want = r->has_ul_data_status ? r->ul_data_status : 0;
	for (psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		if (!(want & (1u << psi)))
			continue;
		if (!(map & (1u << psi))) {
			failed |= (uint16_t)(1u << psi);
			continue;
		}
		so_init(amf);
		rc = smf_up_reactivate(amf->smf, ue->sm, (uint8_t)psi, &amf->so);
		if (rc == -EALREADY)
			continue;   /* already active */
		if (rc < 0 || sm_send(ue, &amf->so) < 0)
			failed |= (uint16_t)(1u << psi);
	}
	a->has_pdu_session_status = true;
	a->pdu_session_status = smf_ue_psi_map(ue->sm);
	a->reactivation_result = (uint16_t)(failed & want);
}

/* TS 23.501 5.15.5.2.2, TS 23.502 4.3.4.2 (AMF-triggered, "S-NSSAI no longer available"):
 * the SMF releases the sessions of an S-NSSAI that left the allowed NSSAI. smf_release()
 * sends the PDU SESSION RELEASE COMMAND through cb_send() to a connected UE, or releases
 * locally when the UE is idle (the next service request's PDU session status tells it). */
unsigned amf_sm_release_disallowed(struct amf_ue *ue, uint8_t cause)
{
	struct amf *amf = ue->amf;
	struct smf_sess_info si;
	unsigned psi, i, n = 0;
	uint16_t map;

	if (!amf->smf || !ue->sm)
		return 0;
	map = smf_ue_psi_map(ue->sm);
	for (psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		uint32_t sd;
		bool ok = false;

		if (!(map & (1u << psi)) || smf_sess_info(amf->smf, ue->sm, (uint8_t)psi, &si) < 0)
			continue;
		if (si.state == SMF_ST_INACTIVE_PENDING || si.state == SMF_ST_INACTIVE)
			continue;   /* already being released */
		sd = si.snssai.has_sd ? (uint32_t)si.snssai.sd[0] << 16 | (uint32_t)si.snssai.sd[1] << 8 |
						si.snssai.sd[2]
				      : AMF_SD_NONE;
		for (i = 0; i < ue->allowed.n && !ok; i++)
			ok = ue->allowed.s[i].sst == si.snssai.sst && ue->allowed.s[i].sd == sd;
		if (ok)
			continue;
		amf_ue_log(LOGL_INFO, ue, "psi=%u on S-NSSAI %u/%06x no longer allowed: release #%u", psi,
			   si.snssai.sst, sd, cause);
		if (smf_release(amf->smf, ue->sm, (uint8_t)psi, cause) == 0)
			n++;
	}
	return n;
}

/* ---- downlink data for an idle UE: paging ---- */

static void page(struct amf_ue *ue)
{
	int n = amf_ngap_paging(ue);

	amf_ue_log(LOGL_INFO, ue, "paging tmsi=%08x gnbs=%d try=%u", ue->tmsi, n, ue->paging_retx + 1);
	amf_tmr_start(ue, AMF_T3513);
}

void amf_sm_page(struct amf_ue *ue)
{
	if (ev_timer_pending(&ue->tmr[AMF_T3513]))
		return;
	ue->paging_retx = 0;
	page(ue);
}

void amf_on_t3513(struct amf_ue *ue)
{
	if (ue->gnb || (!ue->dl_pending && !ue->net_dereg_pending) || !amf_gmm_registered(ue)) {
		ue->paging_retx = 0;
		return;
	}
	if (ue->paging_retx < AMF_PAGING_MAX_RETX) {
		ue->paging_retx++;
		page(ue);
		return;
	}
	/* TS 23.502 4.2.3.3: the UE did not answer; downlink stays buffered until it comes
	 * back (service request or registration) or the SMF gives up on the data. */
	ue->amf->st.paging_gave_up++;
	ue->paging_retx = 0;
	ue->dl_pending = 0;
	amf_ue_log(LOGL_INFO, ue, "paging gave up");
	if (ue->net_dereg_pending) {
		/* TS 23.502 4.2.2.3.3: unreachable: deregistered locally. */
		ue->net_dereg_pending |= 4;
		amf_gmm_dispatch(ue, AMF_EV_NET_DEREG, NULL);
	}
}

/* Downlink data for a connected UE: the user plane is re-established at once
 * (TS 23.502 4.2.3.3 step 3a, PDU Session Resource Setup). Deferred so the SMF is not
 * re-entered from its own callback. */
static void dl_connected_deferred(void *arg)
{
	struct amf_ue *ue = arg;
	struct amf *amf = ue->amf;
	uint16_t want = ue->dl_pending;
	unsigned psi;

	if (!ue->in_use || ue->reaping || !ue->gnb || !ue->sm || !amf->smf)
		return;
	ue->dl_pending = 0;
	for (psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		if (!(want & (1u << psi)))
			continue;
		so_init(amf);
		if (smf_up_reactivate(amf->smf, ue->sm, (uint8_t)psi, &amf->so) == 0)
			sm_send(ue, &amf->so);
	}
}

static int cb_send(void *arg, void *cookie, const struct smf_out *out)
{
	struct amf_ue *ue = cookie;

	(void)arg;
	if (!ue || !ue->in_use || ue->reaping)
		return -ENOENT;
	return sm_send(ue, out);
}

static void cb_dl_data(void *arg, void *cookie, uint8_t psi)
{
	struct amf *amf = arg;
	struct amf_ue *ue = cookie;

	if (!ue || !ue->in_use || ue->reaping || psi > SMF_PSI_MAX)
		return;
	if (ue->gnb && !ue->release_pending) {
		bool queued = ue->dl_pending != 0;

		ue->dl_pending |= (uint16_t)(1u << psi);
		if (!queued && ev_defer(amf->loop, dl_connected_deferred, ue) < 0)
			ue->dl_pending = 0;
		return;
	}
	if (!amf_gmm_registered(ue))
		return;
	ue->dl_pending |= (uint16_t)(1u << psi);
	if (ev_timer_pending(&ue->tmr[AMF_T3513]))
		return;   /* already paging: the service request will cover psi too */
	ue->paging_retx = 0;
	page(ue);
}

void amf_smf_ops(struct amf *amf, struct smf_amf_ops *ops)
{
	ops->send = cb_send;
	ops->dl_data = cb_dl_data;
	ops->arg = amf;
}

void amf_set_smf(struct amf *amf, struct smf *smf)
{
	amf->smf = smf;
}
