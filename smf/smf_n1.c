/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * 5GSM from the UE: decode, the PDU session identity / PTI checks of
 * TS 24.501 7.3, the message checks of 7.4 / 7.5, the establishment checks
 * against the subscription (TS 24.501 6.4.1, TS 23.502 4.3.2.2.1), and the
 * dispatch of everything else to the state machine.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/qos.h"
#include "common/hash.h"
#include "smf/smf_int.h"
#include "udm/udm.h"

#define PTI_UNASSIGNED 0
#define PTI_RESERVED 255

/* What the establishment checks need of a subscription. */
struct sub_view {
	const struct udm_sub_data *d;   /* NULL: no UDM, everything configured is allowed */
	uint64_t ambr_ul, ambr_dl;
	uint8_t qi5, arp;
};

static void sub_view(const struct smf *smf, const struct smf_ue *ue, struct sub_view *v)
{
	v->d = smf->p.udm ? udm_get(smf->p.udm, ue->supi) : NULL;
	/* udm_start() fills unset fields with its network defaults, so these fall-backs only
	 * apply without a UDM or to entries made with udm_add(): the same values (udm.h). */
	v->ambr_ul = v->d && v->d->ambr_ul_bps ? v->d->ambr_ul_bps : UDM_DEFAULT_AMBR_BPS;
	v->ambr_dl = v->d && v->d->ambr_dl_bps ? v->d->ambr_dl_bps : UDM_DEFAULT_AMBR_BPS;
	v->qi5 = v->d && v->d->qi5 ? v->d->qi5 : UDM_DEFAULT_5QI;
	/* TS 23.501 5.7.2.2: ARP priority level 1..15 */
	v->arp = v->d && v->d->arp >= 1 && v->d->arp <= 15 ? v->d->arp : UDM_DEFAULT_ARP;
}

static bool serves_slice(const struct smf *smf, uint8_t sst, uint32_t sd)
{
	for (unsigned i = 0; i < smf->n_slices; i++) {
		const struct conf_slice *c = &smf->slices[i];
		if (c->sst == sst && (c->has_sd ? c->sd : UDM_SD_NONE) == sd)
			return true;
	}
	return false;
}

static uint32_t ngap_sd(const struct ngap_snssai *s)
{
	return s->has_sd ? (uint32_t)s->sd[0] << 16 | (uint32_t)s->sd[1] << 8 | s->sd[2] : UDM_SD_NONE;
}

static int check_slice(const struct smf *smf, const struct sub_view *v, uint8_t sst, uint32_t sd,
		       struct ngap_snssai *out);

/* S-NSSAI: the UE's; without one the first S-NSSAI of the UE's Allowed NSSAI (from the AMF) that
 * the UE is subscribed to and we serve (TS 23.502 4.3.2.2.1 step 1, TS 24.501 5.15.5.2.1); with no
 * Allowed NSSAI given, the subscription's first (the default S-NSSAI). 0 or a 5GSM cause. */
static int pick_slice(const struct smf *smf, const struct smf_ue *ue, const struct sub_view *v,
		      const struct nas_ul_nas_transport *ul, struct ngap_snssai *out)
{
	uint8_t sst;
	uint32_t sd;

	if (!ul->has_snssai && ue->n_allowed) {
		int first = 0;

		for (unsigned i = 0; i < ue->n_allowed; i++) {
			int rc = check_slice(smf, v, ue->allowed[i].sst, ngap_sd(&ue->allowed[i]), out);

			if (!rc)
				return 0;
			if (!first)
				first = rc;
		}
		return first;
	}
	if (ul->has_snssai) {
		sst = ul->snssai.sst;
		sd = ul->snssai.has_sd ? ul->snssai.sd : UDM_SD_NONE;
	} else if (v->d && v->d->n_slices) {
		sst = v->d->slices[0].sst;
		sd = v->d->slices[0].sd;
	} else if (smf->n_slices) {
		sst = smf->slices[0].sst;
		sd = smf->slices[0].has_sd ? smf->slices[0].sd : UDM_SD_NONE;
	} else {
		return NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED;
	}
	return check_slice(smf, v, sst, sd, out);
}

/* Served by the network and subscribed: 0 and *out, or #33. */
static int check_slice(const struct smf *smf, const struct sub_view *v, uint8_t sst, uint32_t sd,
		       struct ngap_snssai *out)
{
	if (!serves_slice(smf, sst, sd))
		return NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED;
	if (v->d && v->d->n_slices) {    /* none provisioned: the network's slices (udm defaults) */
		bool ok = false;
		for (unsigned i = 0; i < v->d->n_slices && !ok; i++)
			ok = v->d->slices[i].sst == sst && v->d->slices[i].sd == sd;
		if (!ok)
			return NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED;
	}
	memset(out, 0, sizeof(*out));
	out->sst = sst;
	if (sd != UDM_SD_NONE) {
		out->has_sd = true;
		out->sd[0] = (uint8_t)(sd >> 16);
		out->sd[1] = (uint8_t)(sd >> 8);
		out->sd[2] = (uint8_t)sd;
	}
	return 0;
}

/* DNN: the UE's or the subscription's first (default DNN). The index in smf->dnns, or -cause:
 * unknown to this network #27, not subscribed #33. */
static int pick_dnn(const struct smf *smf, const struct sub_view *v, const struct nas_ul_nas_transport *ul)
{
	char name[CONF_DNN_NAME + 8];
	int idx;

	if (ul->has_dnn) {
		if (nas_dnn_to_str(&ul->dnn, name, sizeof(name)) < 0)
			return -NAS_5GSM_MISSING_OR_UNKNOWN_DNN;
		idx = smf_dnn_find(smf->dnns, smf->n_dnns, name);
		if (idx < 0)
			return -NAS_5GSM_MISSING_OR_UNKNOWN_DNN;
		if (v->d && v->d->n_dnns) {
			for (unsigned i = 0; i < v->d->n_dnns; i++)
				if (v->d->dnns[i] && !strcasecmp(v->d->dnns[i], name))
					return idx;
			return -NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED;
		}
		return idx;
	}
	if (v->d && v->d->n_dnns) {
		idx = v->d->dnns[0] ? smf_dnn_find(smf->dnns, smf->n_dnns, v->d->dnns[0]) : -1;
		return idx < 0 ? -NAS_5GSM_MISSING_OR_UNKNOWN_DNN : idx;
	}
	return smf->n_dnns ? 0 : -NAS_5GSM_MISSING_OR_UNKNOWN_DNN;
}

static void reject(struct smf *smf, const struct smf_ue *ue, struct smf_out *out, const struct nas_msg *m,
		   uint8_t cause)
{
	char obj[48];

	smf->st.est_rejected++;
	smf->st.est_rej_cause[cause < SMF_CAUSE_SLOTS ? cause : 0]++;
	snprintf(obj, sizeof(obj), "ue=%s psi=%u", ue->supi, m->psi);
	log_msg(LOGL_INFO, MOD, obj, "pti=%u establishment rejected: #%u %s", m->pti, cause,
		nas_5gsm_cause_name(cause));
	smf_msg_est_reject(out, m->psi, m->pti, cause);
}

/* TS 24.501 7.3.2 a) and 7.3.1 a), and the request types offered: 0, or the 5GSM cause
 * of the reject. */
static uint8_t est_header_cause(const struct nas_ul_nas_transport *ul, const struct nas_msg *m)
{
	if (m->psi < SMF_PSI_MIN || m->psi > SMF_PSI_MAX || (ul->has_psi && ul->psi != m->psi))
		return NAS_5GSM_INVALID_PDU_SESSION_ID;
	if (m->pti == PTI_UNASSIGNED || m->pti == PTI_RESERVED)
		return NAS_5GSM_INVALID_PTI;
	if (ul->has_request_type && ul->request_type != NAS_REQ_INITIAL) {
		/* Handover of an existing session (from non-3GPP / EPS), emergency and MA
		 * sessions are not offered: there is no such session here. */
		return ul->request_type == NAS_REQ_EXISTING_PDU_SESSION ? NAS_5GSM_PDU_SESSION_DOES_NOT_EXIST
									 : NAS_5GSM_SERVICE_OPTION_NOT_SUPPORTED;
	}
	return 0;
}

/* What the network and the subscription grant: a session more for this UE, its 5QI, the
 * slice (*snssai) and the DNN (*dnn, an index in smf->dnns). 0, or the 5GSM cause of the reject. */
static uint8_t est_grant(const struct smf *smf, const struct smf_ue *ue, const struct nas_ul_nas_transport *ul,
			 const struct nas_msg *m, struct sub_view *v, struct ngap_snssai *snssai, int *dnn)
{
	int rc;

	if (ue->n_sess >= smf->max_per_ue)
		return SMF_CAUSE_MAX_SESSIONS;
	sub_view(smf, ue, v);
	if (smf->p.udm && !v->d)
		return NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED;
	/* A GBR 5QI needs GFBR / MFBR (TS 23.501 5.7.2.5; TS 38.413 9.3.1.10: GBR QoS Flow Information
	 * is mandatory for it). The subscription carries none, so such a 5QI cannot be granted: refuse
	 * (#32 service option not supported) instead of sending the gNB a GBR flow without bit rates. */
	if (qos_5qi_is_gbr(v->qi5)) {
		char obj[48];

		snprintf(obj, sizeof(obj), "ue=%s psi=%u", ue->supi, m->psi);
		log_msg(LOGL_WARN, MOD, obj, "subscribed 5QI %u is GBR and the subscription has no GFBR/MFBR",
			v->qi5);
		return NAS_5GSM_SERVICE_OPTION_NOT_SUPPORTED;
	}
	rc = pick_slice(smf, ue, v, ul, snssai);
	if (rc)
		return (uint8_t)rc;
	*dnn = pick_dnn(smf, v, ul);
	return *dnn < 0 ? (uint8_t)-*dnn : 0;
}

/* TS 24.501 6.4.1.2 / 6.4.1.4.1, TS 23.501 5.8.2.2.1: the type granted (*type). Every DNN
 * has IPv4; one with a pool6 has IPv6 too. IPv4v6 is granted as asked there, and narrowed to
 * IPv4 with #50 (*pdu_cause) elsewhere; IPv6 alone is refused with #50 where the DNN has no
 * IPv6; no type asked: IPv4; non-IP types #28; SSC mode 1 only. 0, or the reject cause. */
static uint8_t est_type_cause(const struct smf *smf, int dnn, const struct nas_pdu_session_establishment_request *r,
			      uint8_t *type, uint8_t *pdu_cause)
{
	bool v6 = smf->pools6[dnn].size != 0;

	*pdu_cause = 0;
	*type = NAS_PDU_IPV4;
	if (r->has_pdu_session_type) {
		switch (r->pdu_session_type & 7) {
		case NAS_PDU_IPV4:
			break;
		case NAS_PDU_IPV4V6:
			if (v6)
				*type = NAS_PDU_IPV4V6;
			else
				*pdu_cause = NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED;
			break;
		case NAS_PDU_IPV6:
			if (!v6)
				return NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED;
			*type = NAS_PDU_IPV6;
			break;
		default:
			return NAS_5GSM_UNKNOWN_PDU_SESSION_TYPE;
		}
	}
	if (r->has_ssc_mode && (r->ssc_mode & 7) != NAS_SSC_MODE_1)
		return NAS_5GSM_NOT_SUPPORTED_SSC_MODE;
	return 0;
}

/* TS 24.501 9.11.4.10, TS 23.501 5.8.2.2.2: the interface identifier the UE builds its
 * link-local address from. Ours must differ from the UPF's router address (fe80::1, upf.h),
 * and a session's should not tell its slot: mixed from the slot and the clock. */
static void smf_iid(const struct smf *smf, struct smf_sess *s)
{
	uint32_t a = hash_mix32((uint32_t)(s - smf->sess) + 1), b = hash_mix32((uint32_t)ev_now_ns(smf->p.loop) ^ a);

	s->iid[0] = (uint8_t)(a >> 24) | 0x02;   /* never all zero, never ::1 */
	s->iid[1] = (uint8_t)(a >> 16);
	s->iid[2] = (uint8_t)(a >> 8);
	s->iid[3] = (uint8_t)a;
	s->iid[4] = (uint8_t)(b >> 24);
	s->iid[5] = (uint8_t)(b >> 16);
	s->iid[6] = (uint8_t)(b >> 8);
	s->iid[7] = (uint8_t)b;
}

/* The granted session: allocated with an address of its DNN's pool and started (the FSM
 * sends the accept and the N2 setup). 0 (accepted, or rejected in out) or -ENOSPC. */
static int est_start(struct smf *smf, struct smf_ue *ue, const struct nas_msg *m, const struct sub_view *v,
		     const struct ngap_snssai *snssai, int dnn, uint8_t type, uint8_t pdu_cause, struct smf_out *out)
{
	struct smf_ev_ctx c = { .out = out, .msg = m };
	struct smf_sess *s = smf_sess_alloc(smf, ue, m->psi);
	int rc;

	if (!s) {
		reject(smf, ue, out, m, NAS_5GSM_INSUFFICIENT_RESOURCES);
		return 0;
	}
	s->dnn = (uint8_t)dnn;
	if (smf->n_upfs) {   /* TS 23.501 6.3.3: a UPF for the DNN and slice, before anything is given out */
		int u = smf_upf_pick(smf, (unsigned)dnn, snssai);

		if (u < 0) {
			smf->st.upf_none_ready++;
			smf_slog(LOGL_WARN, smf, s, "no ready UPF serves dnn %s: #26, back-off %u s", smf->dnns[dnn].name,
				 smf->no_upf_backoff_s);
			smf_sess_free(smf, s);
			reject(smf, ue, out, m, NAS_5GSM_INSUFFICIENT_RESOURCES);
			/* TS 24.501 6.4.1.4.2: #26 with T3396, the UE waits before it asks again (a UPF
			 * being lost or restarting is not over in a few ms: no establishment loop) */
			if (smf->no_upf_backoff_s)
				smf_msg_est_reject_backoff(out, m->psi, m->pti, NAS_5GSM_INSUFFICIENT_RESOURCES,
							   smf->no_upf_backoff_s);
			return 0;
		}
		s->upf = (uint8_t)u;
	}
	s->pdu_type = NAS_PDU_IPV4;   /* until a /64 is held: smf_sess_free frees by type */
	if (type != NAS_PDU_IPV6) {
		s->ue_addr = smf_pool_alloc(&smf->pools[dnn]);
		if (!s->ue_addr) {
			smf_slog(LOGL_WARN, smf, s, "pool of dnn %s exhausted", smf->dnns[dnn].name);
			smf_sess_free(smf, s);
			reject(smf, ue, out, m, NAS_5GSM_INSUFFICIENT_RESOURCES);
			return 0;
		}
	}
	if (type != NAS_PDU_IPV4) {
		/* TS 23.501 5.8.2.2.1: a /64 of its own; the UE forms its addresses in it from the
		 * Router Advertisement, its link-local one from our interface identifier */
		if (smf_pool6_alloc(&smf->pools6[dnn], s->pfx6) < 0) {
			smf_slog(LOGL_WARN, smf, s, "pool6 of dnn %s exhausted", smf->dnns[dnn].name);
			smf_sess_free(smf, s);
			reject(smf, ue, out, m, NAS_5GSM_INSUFFICIENT_RESOURCES);
			return 0;
		}
		smf_iid(smf, s);
	}
	s->pdu_type = type;
	s->nat = smf->dnns[dnn].nat && s->ue_addr;   /* IPv4 only: NAT on N6 (upf.h) */
	s->pti = m->pti;
	s->snssai = *snssai;
	s->pdu_cause = pdu_cause;
	s->five_qi = v->qi5;
	s->arp = v->arp;
	s->ambr_ul = v->ambr_ul;
	s->ambr_dl = v->ambr_dl;
	s->est_flags = smf_msg_est_flags(m);
	rc = smf_fsm_dispatch(smf, s, SMF_EV_EST_REQ, &c);
	if (rc < 0) {
		/* rules refused by the UPF, or an encoding failure: nothing was sent */
		smf_sess_free(smf, s);
		out->n1_len = out->n2_len = 0;
		out->n2_proc = SMF_N2_NONE;
		if (rc == -ENOSPC)
			return rc;
		reject(smf, ue, out, m, NAS_5GSM_INSUFFICIENT_RESOURCES);
		return 0;
	}
	if (rc == SMF_ST_N4_PENDING) {
		/* TS 23.502 4.3.2.2.1 steps 10a/10b: the UE hears from us once the UPF answered
		 * (smf_upf_est_done) */
		smf_slog(LOGL_DEBUG, smf, s, "N4 Session Establishment sent, its answer awaited");
		return 0;
	}
	smf->st.est_accepted++;
	{
		uint8_t p16[16] = { 0 };
		char a6[INET6_ADDRSTRLEN] = "-";

		memcpy(p16, s->pfx6, 8);
		if (type != NAS_PDU_IPV4)
			inet_ntop(AF_INET6, p16, a6, sizeof(a6));
		smf_slog(LOGL_INFO, smf, s, "established dnn=%s addr=%u.%u.%u.%u prefix6=%s%s teid=%u%s",
			 smf->dnns[dnn].name, ((uint8_t *)&s->ue_addr)[0], ((uint8_t *)&s->ue_addr)[1],
			 ((uint8_t *)&s->ue_addr)[2], ((uint8_t *)&s->ue_addr)[3], a6, type != NAS_PDU_IPV4 ? "/64" : "",
			 s->teid, pdu_cause ? " (IPv4 only, #50)" : "");
	}
	return 0;
}

/* TS 24.501 6.4.1.2 / 6.4.1.4: PDU SESSION ESTABLISHMENT REQUEST. Every check answers with
 * its 5GSM cause in a PDU SESSION ESTABLISHMENT REJECT (returns 0); -ENOSPC when out is
 * too small. */
static int est_request(struct smf *smf, struct smf_ue *ue, const struct nas_ul_nas_transport *ul,
		       const struct nas_msg *m, struct smf_out *out)
{
	struct smf_sess *s;
	struct sub_view v;
	struct ngap_snssai snssai;
	uint8_t cause, pdu_cause = 0, type = NAS_PDU_IPV4;
	int dnn = -1, rc;

	cause = est_header_cause(ul, m);
	if (cause) {
		reject(smf, ue, out, m, cause);
		return 0;
	}
	s = smf_sess_get(smf, ue, m->psi);
	if (s) {
		if ((s->state == SMF_ST_ACTIVE_PENDING || s->state == SMF_ST_N4_PENDING) && s->pti == m->pti) {
			/* the UE's retransmission (T3580): same answer, same session (none yet while the
			 * UPF has not answered: the accept follows its answer) */
			struct smf_ev_ctx c = { .out = out, .msg = m };

			rc = smf_fsm_dispatch(smf, s, SMF_EV_EST_REQ, &c);
			return rc < 0 ? rc : 0;
		}
		/* TS 24.501 6.4.1.2: an initial request for the PSI of an existing
		 * session: release the old one locally and go on with the new. */
		struct smf_ev_ctx l = { 0 };
		smf_slog(LOGL_INFO, smf, s, "new establishment on this PSI: local release of the old session");
		smf_fsm_dispatch(smf, s, SMF_EV_LOCAL_REL, &l);
	}
	cause = est_grant(smf, ue, ul, m, &v, &snssai, &dnn);
	if (!cause)
		cause = est_type_cause(smf, dnn, &m->pdu_est_req, &type, &pdu_cause);
	if (cause) {
		reject(smf, ue, out, m, cause);
		return 0;
	}
	return est_start(smf, ue, m, &v, &snssai, dnn, type, pdu_cause, out);
}

static void status(struct smf *smf, const struct smf_ue *ue, struct smf_out *out, uint8_t psi, uint8_t pti,
		   uint8_t cause)
{
	char obj[48];

	smf->st.gsm_status_tx++;
	snprintf(obj, sizeof(obj), "ue=%s psi=%u", ue->supi, psi);
	log_msg(LOGL_INFO, MOD, obj, "pti=%u 5GSM status #%u %s", pti, cause, nas_5gsm_cause_name(cause));
	smf_msg_status(out, psi, pti, cause);
}

/* TS 24.501 6.4.2.3 / 6.4.2.4: the UE's requested QoS rules and QoS flow descriptions are checked
 * against what this network grants: the default QoS rule and the default QoS flow with the
 * subscribed 5QI (no PCF, no other flows). 0: grantable (nothing new asked, or the default rule /
 * flow restated unchanged); else the reject cause. */
static int mod_qos_check(const struct nas_pdu_session_modification_request *r, uint8_t five_qi)
{
	static struct nas_qos_rules rules; /* control thread only; too large for the stack's liking */
	static struct nas_qos_flows flows;
	struct nas_err err;

	if (r->has_qos_rules) {
		if (nas_qos_rules_dec(r->qos_rules.p, r->qos_rules.len, &rules, &err) < 0 || !rules.n)
			return SMF_CAUSE_QOS_SYNTAX;
		for (unsigned i = 0; i < rules.n; i++) {
			const struct nas_qos_rule *q = &rules.r[i];

			if (q->op == NAS_QOS_RULE_DELETE && q->id == SMF_QOS_RULE_DEFAULT)
				return SMF_CAUSE_QOS_SEMANTIC; /* 6.4.2.4: deleting the default QoS rule */
			if (q->op < NAS_QOS_RULE_CREATE || q->op > NAS_QOS_RULE_NO_FILTER_CHANGE)
				return SMF_CAUSE_QOS_SYNTAX;
			if (q->op == NAS_QOS_RULE_NO_FILTER_CHANGE && q->id == SMF_QOS_RULE_DEFAULT &&
			    (!q->has_prec_qfi || q->qfi == SMF_QFI_DEFAULT))
				continue;       /* the default rule as it is */
			return SMF_CAUSE_QOS_NOT_ACCEPTED; /* a new or changed rule: not authorized */
		}
	}
	if (r->has_qos_flows) {
		if (nas_qos_flows_dec(r->qos_flows.p, r->qos_flows.len, &flows, &err) < 0 || !flows.n)
			return SMF_CAUSE_QOS_SYNTAX;
		for (unsigned i = 0; i < flows.n; i++) {
			const struct nas_qos_flow *f = &flows.f[i];

			if (f->qfi != SMF_QFI_DEFAULT || f->op != 3 /* modify */)
				return SMF_CAUSE_QOS_NOT_ACCEPTED;
			for (unsigned k = 0; k < f->n; k++) {
				const struct nas_qos_param *p = &f->p[k];

				if (p->id != NAS_QOS_P_5QI || p->v.len != 1 || p->v.p[0] != five_qi)
					return SMF_CAUSE_QOS_NOT_ACCEPTED; /* another 5QI, or bit rates */
			}
		}
	}
	return 0;
}

/* TS 24.501 6.4.2: UE-requested PDU session modification. What is grantable is accepted with a
 * PDU SESSION MODIFICATION COMMAND (the UE's PTI) carrying the session-AMBR the subscription grants
 * now (so a changed policy reaches the UE here too); the rest is rejected with its cause. */
static int mod_request(struct smf *smf, struct smf_ue *ue, struct smf_sess *s, const struct nas_msg *m,
		       struct smf_out *out)
{
	struct smf_ev_ctx c = { .out = out, .msg = m };
	struct sub_view v;
	int cause, rc;

	if (m->pti == PTI_UNASSIGNED || m->pti == PTI_RESERVED) {
		smf_msg_mod_reject(out, m->psi, m->pti, NAS_5GSM_INVALID_PTI);
		return 0;
	}
	if (s->state != SMF_ST_ACTIVE) {
		/* another procedure runs on the session (TS 24.501 6.4.2.5 collisions: the network's
		 * goes on); the UE may ask again */
		smf_slog(LOGL_INFO, smf, s, "modification request while busy: rejected #%u",
			 NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED);
		smf_msg_mod_reject(out, m->psi, m->pti, NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED);
		return 0;
	}
	cause = mod_qos_check(&m->pdu_mod_req, s->five_qi);
	if (cause) {
		smf->st.mod_failed++;
		smf_slog(LOGL_INFO, smf, s, "pti=%u modification request rejected: #%d", m->pti, cause);
		smf_msg_mod_reject(out, m->psi, m->pti, (uint8_t)cause);
		return 0;
	}
	sub_view(smf, ue, &v);
	s->new_ambr_ul = v.ambr_ul;
	s->new_ambr_dl = v.ambr_dl;
	rc = smf_fsm_dispatch(smf, s, SMF_EV_NET_MOD, &c);
	if (rc < 0) {
		out->n1_len = out->n2_len = 0;
		out->n2_proc = SMF_N2_NONE;
		if (rc == -ENOSPC)
			return rc;
		smf_msg_mod_reject(out, m->psi, m->pti, NAS_5GSM_INSUFFICIENT_RESOURCES);
		return 0;
	}
	smf_slog(LOGL_INFO, smf, s, "pti=%u modification request accepted: ambr ul=%llu dl=%llu", m->pti,
		 (unsigned long long)s->new_ambr_ul, (unsigned long long)s->new_ambr_dl);
	return 0;
}

/* A 5GSM message for an existing or missing session, other than establishment. */
static int sm_other(struct smf *smf, struct smf_ue *ue, const struct nas_msg *m, struct smf_out *out)
{
	bool psi_ok = m->psi >= SMF_PSI_MIN && m->psi <= SMF_PSI_MAX;
	struct smf_sess *s = psi_ok ? smf_sess_get(smf, ue, m->psi) : NULL;
	struct smf_ev_ctx c = { .out = out, .msg = m };
	enum smf_event ev;
	int rc;

	switch (m->type) {
	case NAS_PDU_SESSION_RELEASE_REQUEST:
		/* TS 24.501 7.3.2: unassigned / reserved PSI or no such session: #43 */
		if (!s) {
			smf_msg_rel_reject(out, m->psi, m->pti, NAS_5GSM_INVALID_PDU_SESSION_ID);
			return 0;
		}
		if (m->pti == PTI_UNASSIGNED || m->pti == PTI_RESERVED) {
			smf_msg_rel_reject(out, m->psi, m->pti, NAS_5GSM_INVALID_PTI);
			return 0;
		}
		ev = SMF_EV_REL_REQ;
		break;
	case NAS_PDU_SESSION_MODIFICATION_REQUEST:
		if (!psi_ok) {
			smf_msg_mod_reject(out, m->psi, m->pti, NAS_5GSM_INVALID_PDU_SESSION_ID);
			return 0;
		}
		if (!s) {
			smf_msg_mod_reject(out, m->psi, m->pti, NAS_5GSM_PDU_SESSION_DOES_NOT_EXIST);
			return 0;
		}
		return mod_request(smf, ue, s, m, out);
	case NAS_PDU_SESSION_RELEASE_COMPLETE:
		ev = SMF_EV_REL_CPL;
		break;
	case NAS_PDU_SESSION_MODIFICATION_COMPLETE:
		ev = SMF_EV_MOD_CPL;
		break;
	case NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT:
		ev = SMF_EV_MOD_CMD_REJ;
		break;
	case NAS_5GSM_STATUS:
		/* TS 24.501 6.5.3: #43 the UE has no such session: release it locally;
		 * other causes abort the procedure that is running. */
		smf->st.gsm_status_rx++;
		if (!s)
			return 0;
		ev = m->gsm_status.cause == NAS_5GSM_INVALID_PDU_SESSION_ID ? SMF_EV_LOCAL_REL : SMF_EV_STATUS_ABORT;
		if (ev == SMF_EV_STATUS_ABORT && s->state != SMF_ST_MODIFICATION_PENDING &&
		    s->state != SMF_ST_INACTIVE_PENDING)
			return 0;
		smf_fsm_dispatch(smf, s, ev, &c);
		return 0;
	default:
		/* TS 24.501 7.4: a network-to-UE message type from the UE */
		status(smf, ue, out, m->psi, m->pti, NAS_5GSM_MSG_TYPE_NON_EXISTENT);
		return 0;
	}
	if (!psi_ok) {
		smf->st.n1_ignored++;     /* TS 24.501 7.3.2: ignored */
		return 0;
	}
	if (!s) {
		status(smf, ue, out, m->psi, m->pti, NAS_5GSM_INVALID_PDU_SESSION_ID);
		return 0;
	}
	if ((ev == SMF_EV_REL_CPL || ev == SMF_EV_MOD_CPL || ev == SMF_EV_MOD_CMD_REJ) && m->pti != s->pti &&
	    (s->state == SMF_ST_INACTIVE_PENDING || s->state == SMF_ST_MODIFICATION_PENDING)) {
		/* TS 24.501 7.3.1: a PTI that matches no procedure in progress: #81 */
		status(smf, ue, out, m->psi, m->pti, NAS_5GSM_INVALID_PTI);
		return 0;
	}
	rc = smf_fsm_dispatch(smf, s, ev, &c);
	if (rc == -EPROTO) {
		/* TS 24.501 7.4: message not compatible with the protocol state */
		status(smf, ue, out, m->psi, m->pti, NAS_5GSM_MSG_TYPE_NOT_COMPATIBLE);
		return 0;
	}
	return rc == -ENOSPC ? rc : 0;
}

int smf_n1_rx(struct smf *smf, struct smf_ue *ue, const struct nas_ul_nas_transport *ul, struct smf_out *out)
{
	struct nas_msg m;
	struct nas_err err;
	const uint8_t *p = ul->payload.p;
	size_t len = ul->payload.len;
	int rc;

	out->n1_len = out->n2_len = 0;
	out->n2_proc = SMF_N2_NONE;
	out->psi = 0;
	if (!ue || !ue->in_use || ul->payload_type != NAS_PAYLOAD_N1_SM)
		return -EINVAL;
	if (out->n1_cap < SMF_N1_MAX || out->n2_cap < SMF_N2_MAX)
		return -ENOSPC;
	/* TS 24.501 7.2: too short for the 5GSM header: ignored */
	if (len < 4 || p[0] != NAS_EPD_5GSM) {
		smf->st.n1_ignored++;
		return 0;
	}
	/* TS 24.501 7.5 / TS 24.007 11.4.2: a UE of a later release may send longer IEs, and a
	 * malformed optional IE is treated as absent rather than failing the message. */
	rc = nas_decode_ex(p, len, &m, &err, NAS_DEC_LENIENT);
	if (rc == 0 && err.ignored)
		log_msg(LOGL_DEBUG, MOD, NULL, "ue=%s psi=%u %s: %u malformed optional IE(s) ignored, first %s at %zu: %s",
			ue->supi, m.psi, nas_msg_name(m.type), err.ignored, err.ie ? err.ie : "?", err.off,
			err.reason ? err.reason : "");
	if (rc == -ENOMSG) {
		status(smf, ue, out, p[1], p[2], NAS_5GSM_MSG_TYPE_NON_EXISTENT);
		return 0;
	}
	if (rc < 0) {
		/* TS 24.501 7.5: a mandatory IE missing or wrong */
		log_msg(LOGL_INFO, MOD, NULL, "ue=%s psi=%u 5GSM decode failed at %zu: %s", ue->supi, p[1],
			err.off, err.reason ? err.reason : "?");
		if (p[3] == NAS_PDU_SESSION_ESTABLISHMENT_REQUEST) {
			m.psi = p[1];
			m.pti = p[2];
			reject(smf, ue, out, &m, NAS_5GSM_INVALID_MANDATORY_INFO);
		} else {
			status(smf, ue, out, p[1], p[2], NAS_5GSM_INVALID_MANDATORY_INFO);
		}
		return 0;
	}
	if (m.type == NAS_PDU_SESSION_ESTABLISHMENT_REQUEST)
		return est_request(smf, ue, ul, &m, out);
	return sm_other(smf, ue, &m, out);
}
