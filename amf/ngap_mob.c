/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N2 mobility: the intra-AMF Xn handover (TS 23.502 4.9.1.2.2). The target gNB's PATH
 * SWITCH REQUEST (TS 38.413 8.4.4) names the UE by its AMF UE NGAP ID at the source; each
 * PDU session's Path Switch Request Transfer goes to the SMF (smf_path_switch: the UPF's
 * downlink follows), and the answer is PATH SWITCH REQUEST ACKNOWLEDGE with the next
 * {NCC, NH} (as_sec.c) or PATH SWITCH REQUEST FAILURE when no session was switched
 * (8.4.4.3). The UE's N2 connection moves to the target (amf_ue_bind: a fresh AMF UE NGAP
 * ID) only with the acknowledge; the source hears nothing from the AMF (it releases over
 * Xn). Sessions on a slice the target does not support are released (step 1b).
 *
 * Not here yet (issue 17, later steps): N2 handover, End Markers, indirect forwarding.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

/* One answer being built: the items point into amf->ics_n2 (free outside a service
 * request), one slot per listed session. */
struct ps_ans {
	struct ngap_pdu_sess_item sw[SMF_PSI_MAX], rel[SMF_PSI_MAX];
	uint8_t n_sw, n_rel;
	uint16_t drop;          /* PSIs on a slice the target does not support (step 1b) */
};

bool amf_gnb_has_slice(const struct amf_gnb *gnb, const struct ngap_snssai *s)
{
	uint32_t sd = s->has_sd ? (uint32_t)s->sd[0] << 16 | (uint32_t)s->sd[1] << 8 | s->sd[2] : AMF_SD_NONE;

	for (unsigned i = 0; i < gnb->n_slices; i++)
		if (gnb->slices[i].sst == s->sst && gnb->slices[i].sd == sd)
			return true;
	return false;
}

static void item(struct ngap_pdu_sess_item *it, uint8_t psi, const uint8_t *tr, size_t len)
{
	memset(it, 0, sizeof(*it));
	it->id = psi;
	it->transfer.p = tr;
	it->transfer.len = len;
}

/* A session the AMF answers for itself (the SMF is not asked): Path Switch Request
 * Unsuccessful Transfer (TS 38.413 9.3.4.15) with cause, in slot k. */
static void rel_local(struct amf *amf, struct ps_ans *a, unsigned k, uint8_t psi, uint8_t group, uint8_t value)
{
	struct ngap_cause_transfer t = { .cause = { group, value } };
	int n = ngap_enc_cause_transfer(&t, amf->ics_n2[k], SMF_N2_MAX);

	if (n > 0 && a->n_rel < SMF_PSI_MAX)
		item(&a->rel[a->n_rel++], psi, amf->ics_n2[k], (size_t)n);
}

/* The SMF's answer in slot k, as a switched or a released item. */
static void from_smf(struct ps_ans *a, const struct smf_out *o, int rc, uint8_t psi)
{
	if (rc == 0 && o->n2_proc == SMF_N2_PATH_SWITCH_ACK && a->n_sw < SMF_PSI_MAX)
		item(&a->sw[a->n_sw++], psi, o->n2, o->n2_len);
	else if (o->n2_proc == SMF_N2_PATH_SWITCH_FAILED && a->n_rel < SMF_PSI_MAX)
		item(&a->rel[a->n_rel++], psi, o->n2, o->n2_len);
}

/* Each to-be-switched session: to the SMF, or kept back for its slice (released once the
 * UE is on the target). */
static void switch_sessions(struct amf_ue *ue, struct amf_gnb *gnb, const struct ngap_path_switch_request *rq,
			    struct ps_ans *a)
{
	struct amf *amf = ue->amf;
	unsigned i;

	for (i = 0; i < rq->n_sessions && i < SMF_PSI_MAX; i++) {
		const struct ngap_pdu_sess_item *it = &rq->sessions[i];
		struct smf_sess_info si;
		struct smf_out o;
		int rc;

		if (smf_sess_info(amf->smf, ue->sm, it->id, &si) == 0 && !amf_gnb_has_slice(gnb, &si.snssai)) {
			amf_ue_log(LOGL_INFO, ue, "psi=%u on S-NSSAI %u not supported by the target: released",
				   it->id, si.snssai.sst);
			a->drop |= (uint16_t)(1u << it->id);
			continue;
		}
		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), amf->ics_n2[i], SMF_N2_MAX);
		rc = smf_path_switch(amf->smf, ue->sm, it->id, it->transfer.p, it->transfer.len, &o);
		if (rc < 0)
			amf_ue_log(LOGL_INFO, ue, "psi=%u not switched rc=%d", it->id, rc);
		from_smf(a, &o, rc, it->id);
	}
}

/* The step 1b sessions, once a path switch goes ahead: user plane down and released. */
static void drop_sessions(struct amf_ue *ue, const struct ngap_path_switch_request *rq, struct ps_ans *a)
{
	struct amf *amf = ue->amf;
	const struct ngap_cause slice = { NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_SLICE_NOT_SUPPORTED };
	unsigned i;

	for (i = 0; i < rq->n_sessions && i < SMF_PSI_MAX; i++) {
		struct smf_out o;
		uint8_t psi = rq->sessions[i].id;

		if (!(a->drop & (1u << psi)))
			continue;
		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), amf->ics_n2[i], SMF_N2_MAX);
		from_smf(a, &o, smf_path_switch_drop(amf->smf, ue->sm, psi, &slice, &o), psi);
	}
	/* TS 23.502 4.9.1.2.2 step 2: sessions the target failed to set up keep no user plane. */
	for (i = 0; i < rq->n_failed; i++) {
		struct smf_out o;

		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), amf->so_n2, sizeof(amf->so_n2));
		smf_path_switch_drop(amf->smf, ue->sm, rq->failed[i].id, &slice, &o);
	}
}

/* TS 38.413 8.4.4.3: nothing switched. The UE stays where it was. */
static void send_failure(struct amf *amf, struct amf_gnb *gnb, uint64_t amf_id, uint32_t ran_id,
			 const struct ps_ans *a)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_path_switch_request_failure *f = &tx->u.path_switch_request_failure;

	memset(tx, 0, offsetof(struct ngap_msg, u) + sizeof(*f));
	tx->type = NGAP_UNSUCCESSFUL;
	tx->proc = NGAP_PROC_PATH_SWITCH_REQUEST;
	f->amf_ue_id = amf_id;
	f->ran_ue_id = ran_id;
	f->n_released = a->n_rel;
	memcpy(f->released, a->rel, a->n_rel * sizeof(a->rel[0]));
	amf_ngap_send(amf, gnb->assoc, amf->cur_stream, tx);
}

/* Every listed session released by the AMF itself (the UE cannot switch at all). */
static void refuse(struct amf *amf, struct amf_gnb *gnb, const struct amf_ue *ue,
		   const struct ngap_path_switch_request *rq, const char *why)
{
	struct ps_ans a;
	unsigned i;

	memset(&a, 0, sizeof(a));
	amf_ue_log(LOGL_WARN, ue, "path switch from assoc=%u refused: %s", gnb->assoc, why);
	for (i = 0; i < rq->n_sessions && i < SMF_PSI_MAX; i++)
		rel_local(amf, &a, i, rq->sessions[i].id, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE);
	send_failure(amf, gnb, ue->amf_ue_ngap_id, rq->ran_ue_id, &a);
}

/* TS 33.501 6.7.3.1: the capabilities the target got from the source must be ours; a
 * mismatch is logged and ours go in the acknowledge. */
static bool caps_mismatch(const struct amf_ue *ue, const struct ngap_ue_sec_cap *got, struct ngap_ue_sec_cap *ours)
{
	amf_as_sec_caps(ue, ours);
	if (got->nr_enc == ours->nr_enc && got->nr_int == ours->nr_int && got->eutra_enc == ours->eutra_enc &&
	    got->eutra_int == ours->eutra_int)
		return false;
	amf_ue_log(LOGL_WARN, ue, "path switch: UE security capabilities from the target (nr %04x/%04x) are "
		   "not ours (nr %04x/%04x): ours sent", got->nr_enc, got->nr_int, ours->nr_enc, ours->nr_int);
	return true;
}

/* The UE's N2 connection is the target's now (TS 23.502 4.9.1.2.2 step 3). */
static void move_to(struct amf_ue *ue, struct amf_gnb *gnb, const struct ngap_path_switch_request *rq)
{
	struct amf_ue *stale = amf_ue_by_ran(ue->amf, gnb, rq->ran_ue_id);

	if (stale && stale != ue)
		amf_ue_an_released(stale);   /* the target reused the ID: its old connection is gone */
	amf_ue_bind(ue, gnb, rq->ran_ue_id);
	ue->ics_sent = true;                 /* the AS security context came over Xn */
	ue->tac = (uint32_t)rq->uli.tai.tac[0] << 16 | (uint32_t)rq->uli.tai.tac[1] << 8 | rq->uli.tai.tac[2];
	ue->nr_cell_id_hi = (uint32_t)(rq->uli.nr_cgi.cell_id >> 32);
	ue->nr_cell_id_lo = (uint32_t)rq->uli.nr_cgi.cell_id;
}

static int send_ack(struct amf_ue *ue, const struct ngap_path_switch_request *rq, const struct ps_ans *a)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	struct ngap_path_switch_request_ack *k = &tx->u.path_switch_request_ack;
	int rc;

	memset(tx, 0, offsetof(struct ngap_msg, u) + sizeof(*k));
	tx->type = NGAP_SUCCESSFUL;
	tx->proc = NGAP_PROC_PATH_SWITCH_REQUEST;
	k->has_ue_sec_cap = caps_mismatch(ue, &rq->ue_sec_cap, &k->ue_sec_cap);
	rc = amf_as_nh_next(ue, &k->security_context);
	if (rc < 0)
		return rc;
	k->n_switched = a->n_sw;
	memcpy(k->switched, a->sw, a->n_sw * sizeof(a->sw[0]));
	k->n_released = a->n_rel;
	memcpy(k->released, a->rel, a->n_rel * sizeof(a->rel[0]));
	/* TS 38.413 9.2.3.9: the Allowed NSSAI is mandatory */
	for (unsigned i = 0; i < ue->allowed.n && i < NGAP_MAX_SLICES; i++) {
		uint32_t sd = ue->allowed.s[i].sd;

		k->allowed_nssai[i] = (struct ngap_snssai){ .sst = ue->allowed.s[i].sst, .has_sd = sd != AMF_SD_NONE,
							    .sd = { (uint8_t)(sd >> 16), (uint8_t)(sd >> 8), (uint8_t)sd } };
		k->n_allowed_nssai++;
	}
	k->amf_ue_id = ue->amf_ue_ngap_id;
	k->ran_ue_id = ue->ran_ue_ngap_id;
	rc = amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
	explicit_bzero(&k->security_context, sizeof(k->security_context));
	amf_ue_log(LOGL_INFO, ue, "path switch to assoc=%u: %u switched, %u released, ncc=%u", ue->gnb->assoc,
		   a->n_sw, a->n_rel, ue->ncc);
	return rc;
}

/* Why this UE cannot switch now, or NULL. */
static const char *cannot_switch(const struct amf_ue *ue, const struct ngap_path_switch_request *rq)
{
	const char *why = amf_ue_not_movable(ue);

	if (why)
		return why;
	if (!ue->amf->smf || !ue->sm)
		return "no PDU session";
	if (amf_psi_listed_twice(rq->sessions, rq->n_sessions))   /* TS 38.413 8.4.4.4 */
		return "a PDU session ID listed twice";
	return NULL;
}

void amf_ngap_path_switch(struct amf *amf, struct amf_gnb *gnb, const struct ngap_path_switch_request *rq)
{
	uint64_t src = rq->source_amf_ue_id;
	uint32_t ran = rq->ran_ue_id;
	struct amf_ue *ue = amf_ue_by_amf_id(amf, src);
	const char *why;
	struct ps_ans a;
	uint16_t drop;
	unsigned psi, i;

	if (!ue || !ue->gnb) {
		/* TS 38.413 10.6: an unknown (or CM-IDLE) source AMF UE NGAP ID */
		amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &src, &ran, NGAP_CAUSE_RADIO_NETWORK,
				   AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID, NULL);
		return;
	}
	why = cannot_switch(ue, rq);
	if (why) {
		refuse(amf, gnb, ue, rq, why);
		return;
	}
	memset(&a, 0, sizeof(a));
	switch_sessions(ue, gnb, rq, &a);
	if (!a.n_sw) {
		/* every session kept back for its slice is listed too (its slot is free); none
		 * was touched */
		for (i = 0; i < rq->n_sessions && i < SMF_PSI_MAX; i++)
			if (a.drop & (1u << rq->sessions[i].id))
				rel_local(amf, &a, i, rq->sessions[i].id, NGAP_CAUSE_RADIO_NETWORK,
					  AMF_CAUSE_RN_SLICE_NOT_SUPPORTED);
		amf_ue_log(LOGL_INFO, ue, "path switch from assoc=%u: no session switched", gnb->assoc);
		send_failure(amf, gnb, ue->amf_ue_ngap_id, ran, &a);
		return;
	}
	drop_sessions(ue, rq, &a);
	drop = a.drop;
	move_to(ue, gnb, rq);
	if (send_ack(ue, rq, &a) < 0)
		amf_ue_log(LOGL_ERROR, ue, "PATH SWITCH REQUEST ACKNOWLEDGE not sent");
	/* Step 1b: released by the network now that the UE is reachable on the target (the N1
	 * PDU SESSION RELEASE COMMAND; the target holds no resources for it). */
	for (psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++)
		if (drop & (1u << psi))
			smf_release(amf->smf, ue->sm, (uint8_t)psi, NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE);
}
