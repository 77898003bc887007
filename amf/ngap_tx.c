/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N2 send side: encode into the AMF's one transmit buffer and hand the bytes to
 * the transport (which copies them), plus the UE-associated messages the NAS
 * procedures need.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/crypto/crypto.h"
#include "common/log.h"

int amf_ngap_send(struct amf *amf, uint32_t assoc, uint16_t stream, const struct ngap_msg *m)
{
	int n = ngap_encode(m, amf->txbuf, sizeof(amf->txbuf));

	if (n < 0) {
		log_error("amf", "assoc=%u encode %s failed rc=%d", assoc, ngap_msg_name(m->type, m->proc), n);
		return n;
	}
	amf->st.ngap_tx++;
	if (m->proc < AMF_NGAP_PROC_SLOTS && m->type < AMF_NGAP_PDU_TYPES)
		amf->ngap_msgs[m->proc][AMF_NGAP_TX][m->type]++;   /* by procedure (amf_ngap_msg_count) */
	return amf->ops.send(amf->ops.arg, assoc, stream, amf->txbuf, (size_t)n);
}

/* Start the next message in amf->tx: clear the header and only the union member about to be
 * filled. The union is as large as its largest member (16 KB); clearing all of it for every
 * message was a fifth of the core's instructions in the serial cycle (callgrind, cp-prof). */
static struct ngap_msg *tx_begin(struct amf *amf, uint8_t proc, size_t member)
{
	struct ngap_msg *tx = &amf->tx;

	memset(tx, 0, offsetof(struct ngap_msg, u) + member);
	tx->type = NGAP_INITIATING;
	tx->proc = proc;
	return tx;
}

int amf_ngap_dl_nas(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx;

	if (!ue->gnb)
		return -ENOTCONN;
	tx = tx_begin(amf, NGAP_PROC_DOWNLINK_NAS_TRANSPORT, sizeof(tx->u.downlink_nas_transport));
	tx->u.downlink_nas_transport.amf_ue_id = ue->amf_ue_ngap_id;
	tx->u.downlink_nas_transport.ran_ue_id = ue->ran_ue_ngap_id;
	tx->u.downlink_nas_transport.nas.p = nas;
	tx->u.downlink_nas_transport.nas.len = len;
	return amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

static void snssai_to_ngap(const struct amf_snssai *in, struct ngap_snssai *out)
{
	out->sst = in->sst;
	out->has_sd = in->sd != AMF_SD_NONE;
	out->sd[0] = (uint8_t)(in->sd >> 16);
	out->sd[1] = (uint8_t)(in->sd >> 8);
	out->sd[2] = (uint8_t)in->sd;
}

/* TS 23.501 5.7.2.6: the UE-AMBR the RAN enforces over the UE's non-GBR flows, the
 * subscribed one as the UDM resolves it (amf_ue_ambr_refresh). False before the first. */
static bool ue_ambr(const struct amf_ue *ue, struct ngap_ambr *out)
{
	if (!ue->ue_ambr_ul && !ue->ue_ambr_dl)
		return false;
	out->ul = ue->ue_ambr_ul;
	out->dl = ue->ue_ambr_dl;
	return true;
}

int amf_ngap_ue_ctx_mod(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	struct ngap_ue_context_modification_request *r = &tx->u.ue_context_modification_request;

	if (!ue->gnb)
		return -ENOTCONN;
	/* TS 38.413 8.3.4.2: a new UE-AMBR for a UE the gNB has a context for */
	tx_begin(amf, NGAP_PROC_UE_CONTEXT_MODIFICATION, sizeof(*r));
	r->amf_ue_id = ue->amf_ue_ngap_id;
	r->ran_ue_id = ue->ran_ue_ngap_id;
	r->has_ue_ambr = ue_ambr(ue, &r->ue_ambr);
	return amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

int amf_ngap_ics_request(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	struct ngap_initial_context_setup_request *r = &tx->u.initial_context_setup_request;
	unsigned i;
	int rc;

	if (!ue->gnb)
		return -ENOTCONN;
	tx_begin(amf, NGAP_PROC_INITIAL_CONTEXT_SETUP, sizeof(*r));
	r->amf_ue_id = ue->amf_ue_ngap_id;
	r->ran_ue_id = ue->ran_ue_ngap_id;
	memcpy(r->guami.plmn.v, amf->cfg.plmn, 3);
	r->guami.region = amf->cfg.amf_region_id;
	r->guami.set_id = amf->cfg.amf_set_id;
	r->guami.pointer = amf->cfg.amf_pointer;
	r->n_allowed_nssai = ue->allowed.n;
	for (i = 0; i < ue->allowed.n; i++)
		snssai_to_ngap(&ue->allowed.s[i], &r->allowed_nssai[i]);
	/* TS 38.413 9.3.1.86 from the UE's NAS capabilities (TS 33.501 6.7.2). */
	amf_as_sec_caps(ue, &r->ue_sec_cap);
	/* K_gNB (TS 33.501 A.9) and the start of the NH chain (6.9.2.1.1): as_sec.c */
	rc = amf_as_kgnb(ue, r->security_key);
	if (rc < 0)
		return rc;
	if (nas) {
		r->nas.p = nas;
		r->nas.len = len;
	}
	/* TS 38.413 8.3.1.2 / TS 23.502 4.2.3.2 step 12: sessions reactivated by a service
	 * request ride in PDUSessionResourceSetupListCxtReq (items prepared by nas_sm.c). */
	r->n_sessions = amf->n_ics_items;
	for (i = 0; i < amf->n_ics_items; i++)
		r->sessions[i] = amf->ics_items[i];
	amf->n_ics_items = 0;
	if (ue->radio_cap_len) {
		/* TS 38.413 9.2.2.1: the capability the gNB gave us, so it need not ask the UE */
		r->ue_radio_capability.p = ue->radio_cap;
		r->ue_radio_capability.len = ue->radio_cap_len;
	}
	/* TS 38.413 9.2.2.1: UE Aggregate Maximum Bit Rate is conditional on the PDU session
	 * list; the subscription always has one (own, policy or network default), so the
	 * gNB gets it every time. */
	r->has_ue_ambr = ue_ambr(ue, &r->ue_ambr);
	rc = amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
	explicit_bzero(r->security_key, sizeof(r->security_key));
	if (rc == 0)
		ue->ics_sent = true;
	return rc;
}

static void snssai_copy(const struct ngap_snssai *in, struct ngap_snssai *out)
{
	*out = *in;
}

int amf_ngap_sm(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	const struct smf_out *o = amf->sm_cur;
	struct ngap_pdu_sess_item *it;

	if (!ue->gnb)
		return -ENOTCONN;
	if (!o)
		return -EINVAL;
	switch (o->n2_proc) {
	case SMF_N2_SETUP: {
		/* TS 38.413 8.2.1.2: the NAS-PDU (PDU SESSION ESTABLISHMENT ACCEPT) is per item. */
		struct ngap_pdu_session_resource_setup_request *r = &tx->u.pdu_session_resource_setup_request;

		tx_begin(amf, NGAP_PROC_PDU_SESSION_RESOURCE_SETUP, sizeof(*r));
		r->amf_ue_id = ue->amf_ue_ngap_id;
		r->ran_ue_id = ue->ran_ue_ngap_id;
		r->n_sessions = 1;
		it = &r->sessions[0];
		it->has_snssai = true;
		snssai_copy(&o->snssai, &it->snssai);
		/* TS 38.413 9.2.1.1: the UE-AMBR, for a gNB that has none yet for the UE */
		r->has_ue_ambr = ue_ambr(ue, &r->ue_ambr);
		break;
	}
	case SMF_N2_RELEASE: {
		/* TS 38.413 8.2.2.2: the NAS-PDU (PDU SESSION RELEASE COMMAND) is message level. */
		struct ngap_pdu_session_resource_release_command *r =
			&tx->u.pdu_session_resource_release_command;

		tx_begin(amf, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE, sizeof(*r));
		r->amf_ue_id = ue->amf_ue_ngap_id;
		r->ran_ue_id = ue->ran_ue_ngap_id;
		if (nas) {
			r->nas.p = nas;
			r->nas.len = len;
			nas = NULL;
		}
		r->n_sessions = 1;
		it = &r->sessions[0];
		break;
	}
	case SMF_N2_MODIFY: {
		struct ngap_pdu_session_resource_modify_request *r = &tx->u.pdu_session_resource_modify_request;

		tx_begin(amf, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY, sizeof(*r));
		r->amf_ue_id = ue->amf_ue_ngap_id;
		r->ran_ue_id = ue->ran_ue_ngap_id;
		r->n_sessions = 1;
		it = &r->sessions[0];
		break;
	}
	default:
		return -EINVAL;
	}
	it->id = o->psi;
	it->transfer.p = o->n2;
	it->transfer.len = o->n2_len;
	if (nas) {
		it->nas.p = nas;
		it->nas.len = len;
	}
	return amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

int amf_ngap_paging(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	struct ngap_paging *p = &tx->u.paging;
	uint32_t g, tacs[NGAP_MAX_TAI_PAGING];
	unsigned i, n_tacs;
	int n = 0;

	tx_begin(amf, NGAP_PROC_PAGING, sizeof(*p));
	/* TS 38.413 9.3.3.20: 5G-S-TMSI = AMF Set ID, AMF Pointer, 5G-TMSI. */
	p->ue_paging_id.set_id = amf->cfg.amf_set_id;
	p->ue_paging_id.pointer = amf->cfg.amf_pointer;
	p->ue_paging_id.tmsi[0] = (uint8_t)(ue->tmsi >> 24);
	p->ue_paging_id.tmsi[1] = (uint8_t)(ue->tmsi >> 16);
	p->ue_paging_id.tmsi[2] = (uint8_t)(ue->tmsi >> 8);
	p->ue_paging_id.tmsi[3] = (uint8_t)ue->tmsi;
	if (ue->radio_pcap_len) {
		/* TS 38.413 9.2.4.1: UE Radio Capability for Paging, as the gNB gave it */
		p->ue_radio_capability_for_paging.p = ue->radio_cap + ue->radio_cap_len;
		p->ue_radio_capability_for_paging.len = ue->radio_pcap_len;
	}
	/* TS 23.502 4.2.3.3 step 4b: the TAI list of the UE's last registration: its
	 * registration area (reg_area.c). */
	n_tacs = amf_ra_tacs(amf, ue->ra, tacs, NGAP_MAX_TAI_PAGING);
	for (i = 0; i < n_tacs; i++) {
		memcpy(p->tais[i].plmn.v, amf->cfg.plmn, 3);
		p->tais[i].tac[0] = (uint8_t)(tacs[i] >> 16);
		p->tais[i].tac[1] = (uint8_t)(tacs[i] >> 8);
		p->tais[i].tac[2] = (uint8_t)tacs[i];
	}
	p->n_tais = (uint8_t)i;
	/* Every gNB that announced one of those TACs in NG Setup (non-UE stream 0). */
	for (g = 0; g < amf->cfg.max_gnbs; g++) {
		struct amf_gnb *gnb = &amf->gnbs[g];

		if (!gnb->in_use || !gnb->setup_done || !amf_ra_gnb_in(gnb, tacs, n_tacs))
			continue;
		if (amf_ngap_send(amf, gnb->assoc, 0, tx) == 0) {
			amf->st.paging_sent++;
			n++;
		}
	}
	return n;
}

int amf_ngap_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause_value)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx;

	if (!ue->gnb)
		return -ENOTCONN;
	tx = tx_begin(amf, NGAP_PROC_UE_CONTEXT_RELEASE, sizeof(tx->u.ue_context_release_command));
	tx->u.ue_context_release_command.has_ran_ue_id = true;
	tx->u.ue_context_release_command.amf_ue_id = ue->amf_ue_ngap_id;
	tx->u.ue_context_release_command.ran_ue_id = ue->ran_ue_ngap_id;
	tx->u.ue_context_release_command.cause = (struct ngap_cause){ cause_group, cause_value };
	ue->release_pending = true;
	amf_tmr_start(ue, AMF_TMR_RELEASE_GUARD);
	return amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

int amf_ngap_error_ind(struct amf *amf, uint32_t assoc, uint16_t stream, const uint64_t *amf_ue_id,
		       const uint32_t *ran_ue_id, uint8_t cause_group, uint8_t cause_value,
		       const struct ngap_crit_diag *diag)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_error_indication *e = &tx->u.error_indication;

	tx_begin(amf, NGAP_PROC_ERROR_INDICATION, sizeof(*e));
	/* TS 38.413 9.2.7.1: both UE IDs or none. */
	if (amf_ue_id && ran_ue_id && *amf_ue_id <= AMF_UE_NGAP_ID_MAX) {
		e->has_amf_ue_id = true;
		e->amf_ue_id = *amf_ue_id;
		e->has_ran_ue_id = true;
		e->ran_ue_id = *ran_ue_id;
	}
	e->has_cause = true;
	e->cause = (struct ngap_cause){ cause_group, cause_value };
	if (diag && (diag->has_proc || diag->n_ies)) {
		e->has_crit_diag = true;
		e->crit_diag = *diag;
	}
	return amf_ngap_send(amf, assoc, stream, tx);
}
