/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Intra-AMF N2 handover, preparation (TS 23.502 4.9.1.3.2; TS 38.413 8.4.1 Handover
 * Preparation, 8.4.2 Handover Resource Allocation): HANDOVER REQUIRED from the UE's serving
 * gNB, each listed session to the SMF (smf_ho_prepare), HANDOVER REQUEST to the target on a
 * new UE-associated connection (the leg, struct amf_ho) with the next {NCC, NH} of the UE's
 * chain (TS 33.501 6.9.2.3.3), and the target's answer: HANDOVER COMMAND to the source, or
 * HANDOVER PREPARATION FAILURE. The states are ho_fsm.c's; execution, cancel and losses are
 * in ngap_ho_exec.c.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

#define BIT(psi) ((uint16_t)(1u << (psi)))

static bool psi_ok(uint8_t psi)
{
	return psi >= SMF_PSI_MIN && psi <= SMF_PSI_MAX;
}

/* The SM transfer buffer of a session while a handover message is built (amf->ics_n2 is free
 * outside a service request): one slot per PSI. */
static uint8_t *slot(struct amf *amf, uint8_t psi)
{
	return amf->ics_n2[psi - SMF_PSI_MIN];
}

struct ngap_msg *amf_ho_tx(struct amf *amf, uint8_t type, uint8_t proc, size_t member)
{
	struct ngap_msg *tx = &amf->tx;

	memset(tx, 0, offsetof(struct ngap_msg, u) + member);
	tx->type = type;
	tx->proc = proc;
	return tx;
}

void amf_ho_prep_failure(struct amf_ue *ue, enum amf_ho_fail why, uint8_t group, uint8_t value)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx;
	struct ngap_handover_preparation_failure *f;
	uint64_t *ctr[] = { &amf->st.ho_prep_failed_target, &amf->st.ho_prep_failed_state,
			    &amf->st.ho_prep_failed_sessions, &amf->st.ho_prep_failed_refused,
			    &amf->st.ho_prep_failed_guard };

	amf->st.ho_prep_failed++;
	(*ctr[why])++;
	amf_ue_log(LOGL_INFO, ue, "HANDOVER PREPARATION FAILURE cause=%u/%u", group, value);
	if (!ue->gnb)
		return;
	tx = amf_ho_tx(amf, NGAP_UNSUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION, sizeof(*f));
	f = &tx->u.handover_preparation_failure;
	f->amf_ue_id = ue->amf_ue_ngap_id;
	f->ran_ue_id = ue->ran_ue_ngap_id;
	f->cause = (struct ngap_cause){ group, value };
	amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

/* TS 38.413 8.4.1.2: the target by its global gNB ID among the gNBs set up with us, in a TA it
 * announced. NULL with the cause to refuse with. */
static struct amf_gnb *find_target(struct amf *amf, const struct ngap_target_id *t, uint8_t *cause)
{
	const struct ngap_global_ran_node_id *id = &t->ran_node_id;
	uint32_t tac = (uint32_t)t->tai.tac[0] << 16 | (uint32_t)t->tai.tac[1] << 8 | t->tai.tac[2];

	for (uint32_t g = 0; g < amf->cfg.max_gnbs; g++) {
		struct amf_gnb *gnb = &amf->gnbs[g];

		if (!gnb->in_use || !gnb->setup_done || gnb->gnb_id != id->id || gnb->gnb_id_bits != id->id_bits ||
		    memcmp(gnb->plmn, id->plmn.v, 3) != 0)
			continue;
		/* the selected TAI must be one of ours the target serves */
		*cause = AMF_CAUSE_RN_HO_TARGET_NOT_ALLOWED;
		if (memcmp(t->tai.plmn.v, amf->cfg.plmn, 3) != 0)
			return NULL;
		for (unsigned i = 0; i < gnb->n_tacs; i++)
			if (gnb->tacs[i] == tac)
				return gnb;
		return NULL;
	}
	*cause = AMF_CAUSE_RN_UNKNOWN_TARGET_ID;
	return NULL;
}

bool amf_psi_listed_twice(const struct ngap_pdu_sess_item *l, unsigned n)
{
	uint32_t seen = 0;

	for (unsigned i = 0; i < n; i++) {
		uint32_t b = 1u << (l[i].id & 31);

		if (seen & b)
			return true;
		seen |= b;
	}
	return false;
}

const char *amf_ue_not_movable(const struct amf_ue *ue)
{
	if (!amf_gmm_registered(ue))
		return "not registered (a registration or common procedure is running)";
	if (!ue->sec_active || !ue->ics_sent || !ue->nh_valid)
		return "no AS security context";
	if (ue->release_pending)
		return "its N2 connection is being released";
	return NULL;
}

/* Why this UE cannot be handed over now (TS 23.502 4.9.1.3.2 step 2), or NULL; *value is the
 * cause (protocol group unless *rn). */
static const char *cannot_hand_over(const struct amf_ue *ue, const struct ngap_handover_required *m, bool *rn,
				    uint8_t *value)
{
	const char *why = amf_ue_not_movable(ue);

	*rn = false;
	*value = AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE;
	if (why)
		return why;
	*rn = true;
	*value = AMF_CAUSE_RN_UNKNOWN_PDU_SESSION;
	if (!ue->amf->smf || !ue->sm || !m->n_sessions)
		return "no PDU session";
	*value = 28;   /* multiple-PDU-session-ID-instances; TS 38.413 8.4.1.4: the whole request fails */
	if (amf_psi_listed_twice(m->sessions, m->n_sessions))
		return "a PDU session ID listed twice";
	return NULL;
}

/* TS 38.413 9.3.1.54: the IMEISV (TS 23.003 6.2.2, 16 digits) with the last 4 digits of the
 * SNR (digits 11-14) set to all ones, one digit a nibble. */
static bool masked_imeisv(const struct amf_ue *ue, uint8_t out[8])
{
	for (unsigned i = 0; i < 16; i++) {
		char c = ue->imeisv[i];
		uint8_t d;

		if (c < '0' || c > '9')
			return false;
		d = i >= 10 && i <= 13 ? 0xf : (uint8_t)(c - '0');
		out[i / 2] = i % 2 ? (uint8_t)(out[i / 2] | d) : (uint8_t)(d << 4);
	}
	return true;
}

/* One listed session to the SMF: into the request (r->sessions) or left out (ue->ho.drop for a
 * slice the target does not serve, TS 23.502 4.9.1.3.2 step 4 / 4.9.1.2.2 step 1b). */
static void prepare_one(struct amf_ue *ue, const struct amf_gnb *tgt, const struct ngap_pdu_sess_item *it,
			bool direct, struct ngap_handover_request *r)
{
	struct amf *amf = ue->amf;
	struct ngap_ho_required_transfer rt;
	struct smf_sess_info si;
	struct smf_out o;
	struct ngap_pdu_sess_item *out;
	int rc;

	if (!psi_ok(it->id) || smf_sess_info(amf->smf, ue->sm, it->id, &si) < 0) {
		amf_ue_log(LOGL_INFO, ue, "handover: psi=%u unknown, left out", it->id);
		return;
	}
	if (!amf_gnb_has_slice(tgt, &si.snssai)) {
		amf_ue_log(LOGL_INFO, ue, "handover: psi=%u on S-NSSAI %u not served by the target: released after",
			   it->id, si.snssai.sst);
		ue->ho.drop |= BIT(it->id);
		return;
	}
	/* TS 38.413 9.3.4.13: the session's own DirectForwardingPathAvailability, else the message's */
	if (ngap_dec_ho_required_transfer(it->transfer.p, it->transfer.len, &rt, NULL) == 0 && rt.has_direct_forwarding)
		direct = true;
	smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), slot(amf, it->id), SMF_N2_MAX);
	rc = smf_ho_prepare(amf->smf, ue->sm, it->id, it->transfer.p, it->transfer.len, direct, &o);
	if (rc < 0 || o.n2_proc != SMF_N2_HO_REQUEST || r->n_sessions >= NGAP_MAX_PDU_SESSIONS) {
		amf_ue_log(LOGL_INFO, ue, "handover: psi=%u not prepared rc=%d", it->id, rc);
		if (rc == -EBADMSG)
			ue->ho.drop |= BIT(it->id);   /* its user plane cannot follow: released after */
		return;
	}
	ue->ho.prepared |= BIT(it->id);
	out = &r->sessions[r->n_sessions++];
	memset(out, 0, sizeof(*out));
	out->id = it->id;
	out->has_snssai = true;
	out->snssai = si.snssai;
	out->transfer.p = o.n2;
	out->transfer.len = o.n2_len;
}

/* TS 38.413 9.2.3.4: everything but the sessions. 0 or -errno (no NH). */
static int request_ies(struct amf_ue *ue, const struct ngap_handover_required *m, struct ngap_handover_request *r)
{
	struct amf *amf = ue->amf;

	r->amf_ue_id = ue->ho.leg_amf_id;
	r->handover_type = m->handover_type;
	r->cause = m->cause;
	/* TS 23.501 5.7.2.6: the subscribed UE-AMBR, as in the Initial Context Setup */
	r->ue_ambr.ul = ue->ue_ambr_ul;
	r->ue_ambr.dl = ue->ue_ambr_dl;
	amf_as_sec_caps(ue, &r->ue_sec_cap);
	for (unsigned i = 0; i < ue->allowed.n && i < NGAP_MAX_SLICES; i++) {
		uint32_t sd = ue->allowed.s[i].sd;

		r->allowed_nssai[i] = (struct ngap_snssai){ .sst = ue->allowed.s[i].sst, .has_sd = sd != AMF_SD_NONE,
							    .sd = { (uint8_t)(sd >> 16), (uint8_t)(sd >> 8), (uint8_t)sd } };
		r->n_allowed_nssai++;
	}
	r->has_masked_imeisv = masked_imeisv(ue, r->masked_imeisv);
	r->source_to_target = m->source_to_target;   /* transparent: copied as it came */
	memcpy(r->guami.plmn.v, amf->cfg.plmn, 3);
	r->guami.region = amf->cfg.amf_region_id;
	r->guami.set_id = amf->cfg.amf_set_id;
	r->guami.pointer = amf->cfg.amf_pointer;
	/* TS 33.501 6.9.2.3.3: a fresh NH and NCC + 1 for the target's K_gNB */
	return amf_as_nh_next(ue, &r->security_context);
}

/* The SMF forgets the sessions it prepared (nothing was sent). */
static int give_up(struct amf_ue *ue, enum amf_ho_fail why, uint8_t group, uint8_t value)
{
	amf_ho_sessions_cancel(ue);
	amf_ho_leg_clear(ue);
	amf_ho_prep_failure(ue, why, group, value);
	return AMF_HO_NONE;
}

/* NONE x REQUIRED (TS 23.502 4.9.1.3.2 steps 1-5, TS 38.413 8.4.1.2 / 8.4.2.2). */
int amf_ho_a_required(struct amf_ue *ue, const void *arg)
{
	const struct ngap_handover_required *m = arg;
	struct amf *amf = ue->amf;
	struct ngap_msg *tx;
	struct ngap_handover_request *r;
	struct amf_gnb *tgt;
	const char *why;
	uint8_t value;
	bool rn;
	int rc;

	amf_ho_leg_clear(ue);   /* a leg released before is forgotten */
	ue->ho.prepared = ue->ho.admitted = ue->ho.drop = 0;
	ue->ho.src_gone = false;
	why = cannot_hand_over(ue, m, &rn, &value);
	if (why) {
		amf_ue_log(LOGL_WARN, ue, "HANDOVER REQUIRED refused: %s", why);
		amf_ho_prep_failure(ue, AMF_HO_FAIL_STATE, rn ? NGAP_CAUSE_RADIO_NETWORK : NGAP_CAUSE_PROTOCOL, value);
		return AMF_HO_NONE;
	}
	/* TS 23.502 4.9.1.3: this AMF does intra-5GS handovers only (no N26 to an MME) */
	tgt = m->handover_type == NGAP_HO_INTRA_5GS ? find_target(amf, &m->target, &value) : NULL;
	if (m->handover_type != NGAP_HO_INTRA_5GS)
		value = AMF_CAUSE_RN_HO_TARGET_NOT_ALLOWED;
	if (!tgt) {
		amf_ue_log(LOGL_WARN, ue, "HANDOVER REQUIRED type=%u to gnb-id=%x: no such target here",
			   m->handover_type, m->target.ran_node_id.id);
		amf_ho_prep_failure(ue, AMF_HO_FAIL_TARGET, NGAP_CAUSE_RADIO_NETWORK, value);
		return AMF_HO_NONE;
	}
	ue->ho.handover_type = m->handover_type;
	ue->ho.cause = m->cause;
	tx = amf_ho_tx(amf, NGAP_INITIATING, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION, sizeof(*r));
	r = &tx->u.handover_request;
	for (unsigned i = 0; i < m->n_sessions; i++)
		prepare_one(ue, tgt, &m->sessions[i], m->has_direct_forwarding, r);
	if (!r->n_sessions) {
		/* nothing the target could take: every one on a slice it lacks, or none preparable */
		value = ue->ho.drop && !ue->ho.prepared ? AMF_CAUSE_RN_SLICE_NOT_SUPPORTED : AMF_CAUSE_RN_HO_FAIL_TARGET;
		ue->ho.drop = 0;
		return give_up(ue, AMF_HO_FAIL_SESSIONS, NGAP_CAUSE_RADIO_NETWORK, value);
	}
	amf_ho_leg_set(ue, tgt, amf_ue_ngap_id_new(ue));
	rc = request_ies(ue, m, r);
	if (rc == 0)
		rc = amf_ngap_send(amf, tgt->assoc, ue->ho.leg_stream, tx);
	explicit_bzero(&r->security_context, sizeof(r->security_context));
	if (rc < 0) {
		amf_ue_log(LOGL_ERROR, ue, "HANDOVER REQUEST not sent rc=%d", rc);
		ue->ho.drop = 0;
		return give_up(ue, AMF_HO_FAIL_STATE, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_UNSPECIFIED);
	}
	amf_tmr_start(ue, AMF_TMR_HO_PREP);
	amf_ue_log(LOGL_INFO, ue, "HANDOVER REQUEST to assoc=%u amf-ue=%llu: %u sessions, ncc=%u", tgt->assoc,
		   (unsigned long long)ue->ho.leg_amf_id, r->n_sessions, ue->ncc);
	return AMF_HO_PREPARING;
}

/* PREPARING / PREPARED / COMPLETING x REQUIRED: one handover at a time (TS 23.502 4.9.1.3.2). */
int amf_ho_a_busy(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ue_log(LOGL_WARN, ue, "HANDOVER REQUIRED while a handover runs: refused");
	amf_ho_prep_failure(ue, AMF_HO_FAIL_STATE, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE);
	return ue->ho.state;
}

/* One ToReleaseListHOCmd item: the SMF's Handover Preparation Unsuccessful Transfer, or ours
 * with cause (TS 38.413 9.3.4.18) when the SMF gave none (a session released meanwhile). */
static void to_release(struct amf *amf, struct ngap_handover_command *c, uint8_t psi, const struct smf_out *o,
		       uint8_t value)
{
	struct ngap_pdu_sess_item *it;
	struct ngap_cause_transfer t = { .cause = { NGAP_CAUSE_RADIO_NETWORK, value } };
	int n = 0;

	if (c->n_release >= NGAP_MAX_PDU_SESSIONS)
		return;
	it = &c->release[c->n_release];
	memset(it, 0, sizeof(*it));
	it->id = psi;
	if (o && o->n2_proc == SMF_N2_HO_PREP_FAILED && o->n2_len) {
		it->transfer.p = o->n2;
		it->transfer.len = o->n2_len;
	} else if ((n = ngap_enc_cause_transfer(&t, slot(amf, psi), SMF_N2_MAX)) > 0) {
		it->transfer.p = slot(amf, psi);
		it->transfer.len = (size_t)n;
	} else {
		return;
	}
	c->n_release++;
}

/* The admitted list (TS 23.502 4.9.1.3.2 steps 9-11): each to smf_ho_admitted. */
static void take_admitted(struct amf_ue *ue, const struct ngap_handover_request_ack *k, struct ngap_handover_command *c,
			  uint16_t *listed)
{
	struct amf *amf = ue->amf;

	for (unsigned i = 0; i < k->n_admitted; i++) {
		uint8_t psi = k->admitted[i].id;
		struct smf_out o;
		int rc;

		if (!psi_ok(psi) || !(ue->ho.prepared & BIT(psi)) || (*listed & BIT(psi)))
			continue;   /* not asked for, or listed twice: ignored */
		*listed |= BIT(psi);
		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), slot(amf, psi), SMF_N2_MAX);
		rc = smf_ho_admitted(amf->smf, ue->sm, psi, k->admitted[i].transfer.p, k->admitted[i].transfer.len, &o);
		if (rc == 0 && o.n2_proc == SMF_N2_HO_COMMAND && c->n_sessions < NGAP_MAX_PDU_SESSIONS) {
			struct ngap_pdu_sess_item *it = &c->sessions[c->n_sessions++];

			memset(it, 0, sizeof(*it));
			it->id = psi;
			it->transfer.p = o.n2;
			it->transfer.len = o.n2_len;
			ue->ho.admitted |= BIT(psi);
			continue;
		}
		/* -ENOENT: released meanwhile; otherwise it stays on the source and goes after */
		amf_ue_log(LOGL_INFO, ue, "handover: psi=%u admitted by the target, not by the SMF rc=%d", psi, rc);
		to_release(amf, c, psi, &o, AMF_CAUSE_RN_UNKNOWN_PDU_SESSION);
		if (rc != -ENOENT)
			ue->ho.drop |= BIT(psi);
	}
}

/* The target's refusals and the prepared sessions it did not list (smf_ho_not_admitted), then
 * those left out for their slice. */
static void take_refused(struct amf_ue *ue, const struct ngap_handover_request_ack *k, struct ngap_handover_command *c,
			 uint16_t done)
{
	static const struct ngap_cause unlisted = { NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_FAIL_TARGET };
	struct amf *amf = ue->amf;
	struct smf_out o;
	int rc;

	for (unsigned i = 0; i < k->n_failed; i++) {
		uint8_t psi = k->failed[i].id;

		if (!psi_ok(psi) || !(ue->ho.prepared & BIT(psi)) || (done & BIT(psi)))
			continue;
		done |= BIT(psi);
		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), slot(amf, psi), SMF_N2_MAX);
		rc = smf_ho_not_admitted(amf->smf, ue->sm, psi, k->failed[i].transfer.p, k->failed[i].transfer.len,
					 &unlisted, &o);
		to_release(amf, c, psi, rc == 0 ? &o : NULL, AMF_CAUSE_RN_UNKNOWN_PDU_SESSION);
		if (rc != -ENOENT)
			ue->ho.drop |= BIT(psi);
	}
	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		if ((ue->ho.prepared & BIT(psi)) && !(done & BIT(psi))) {
			smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), slot(amf, psi), SMF_N2_MAX);
			rc = smf_ho_not_admitted(amf->smf, ue->sm, psi, NULL, 0, &unlisted, &o);
			to_release(amf, c, psi, rc == 0 ? &o : NULL, AMF_CAUSE_RN_HO_FAIL_TARGET);
			if (rc != -ENOENT)
				ue->ho.drop |= BIT(psi);
		} else if ((ue->ho.drop & BIT(psi)) && !(ue->ho.prepared & BIT(psi)) && !(done & BIT(psi))) {
			to_release(amf, c, psi, NULL, AMF_CAUSE_RN_SLICE_NOT_SUPPORTED);
		}
	}
	ue->ho.prepared = ue->ho.admitted;   /* the others left the handover */
}

/* PREPARING x REQ_ACK (TS 38.413 8.4.2.2, 8.4.1.2; TS 23.502 4.9.1.3.2 steps 9-12). */
int amf_ho_a_req_ack(struct amf_ue *ue, const void *arg)
{
	const struct ngap_handover_request_ack *k = arg;
	struct amf *amf = ue->amf;
	struct ngap_msg *tx;
	struct ngap_handover_command *c;
	uint16_t listed = 0;

	amf_tmr_stop(ue, AMF_TMR_HO_PREP);
	ue->ho.leg_ran_id = k->ran_ue_id;
	ue->ho.leg_has_ran = true;
	tx = amf_ho_tx(amf, NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION, sizeof(*c));
	c = &tx->u.handover_command;
	take_admitted(ue, k, c, &listed);
	take_refused(ue, k, c, listed);
	if (!ue->ho.admitted) {
		/* 8.4.1.3: nothing the target took; its context is released */
		amf_ho_leg_release(ue, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_CANCELLED);
		ue->ho.drop = 0;
		amf_ho_prep_failure(ue, AMF_HO_FAIL_SESSIONS, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_FAIL_TARGET);
		return AMF_HO_NONE;
	}
	c->amf_ue_id = ue->amf_ue_ngap_id;
	c->ran_ue_id = ue->ran_ue_ngap_id;
	c->handover_type = ue->ho.handover_type;
	c->target_to_source = k->target_to_source;   /* transparent: copied as it came */
	if (ue->gnb && amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx) == 0)
		amf->st.ho_commands++;
	amf_tmr_start(ue, AMF_TMR_HO_OVERALL);
	amf_ue_log(LOGL_INFO, ue, "HANDOVER COMMAND: %u sessions, %u to release", c->n_sessions, c->n_release);
	return AMF_HO_PREPARED;
}

/* PREPARING x REQ_FAIL (TS 38.413 8.4.2.3, 8.4.1.3): the target holds nothing; the source gets
 * the target's cause. */
int amf_ho_a_req_fail(struct amf_ue *ue, const void *arg)
{
	const struct ngap_handover_failure *f = arg;

	amf_tmr_stop(ue, AMF_TMR_HO_PREP);
	ue->ho.drop = 0;
	return give_up(ue, AMF_HO_FAIL_REFUSED, f->cause.group, f->cause.value);
}

/* NONE x REQ_ACK: the target answers a handover that ended (cancel, ho-prep): its new context is
 * released (TS 38.413 8.3.3), the leg kept until the RELEASE COMPLETE. */
int amf_ho_a_late_ack(struct amf_ue *ue, const void *arg)
{
	const struct ngap_handover_request_ack *k = arg;

	ue->ho.leg_ran_id = k->ran_ue_id;
	ue->ho.leg_has_ran = true;
	amf_ue_log(LOGL_INFO, ue, "HANDOVER REQUEST ACKNOWLEDGE after the handover ended: target released");
	amf_ho_leg_release(ue, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_CANCELLED);
	return AMF_HO_NONE;
}

/* ---- entry points from ngap_rx.c ---- */

void amf_ngap_ho_required(struct amf *amf, struct amf_gnb *gnb, const struct ngap_handover_required *m)
{
	struct amf_ue *ue = amf_ue_by_amf_id(amf, m->amf_ue_id);
	uint64_t aid = m->amf_ue_id;
	uint32_t rid = m->ran_ue_id;

	/* TS 38.413 10.6: only the UE's own connection on its serving gNB asks; anything else
	 * changes nothing */
	if (!ue || ue->gnb != gnb || ue->ran_ue_ngap_id != m->ran_ue_id) {
		amf->st.ho_refused++;
		amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &aid, &rid, NGAP_CAUSE_RADIO_NETWORK,
				   ue && ue->gnb == gnb ? AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID
							: AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID, NULL);
		return;
	}
	amf->st.ho_required++;
	amf_ho_dispatch(ue, AMF_HO_EV_REQUIRED, m);
}

void amf_ngap_ho_request_outcome(struct amf *amf, struct amf_gnb *gnb, const struct ngap_msg *m)
{
	bool ok = m->type == NGAP_SUCCESSFUL;
	uint64_t aid = ok ? m->u.handover_request_ack.amf_ue_id : m->u.handover_failure.amf_ue_id;
	uint32_t rid = ok ? m->u.handover_request_ack.ran_ue_id : 0;
	struct amf_ue *ue = amf_ho_leg_by_id(amf, gnb, aid);
	int rc;

	if (!ue || (ok && ue->ho.leg_has_ran && ue->ho.leg_ran_id != rid)) {
		amf->st.ho_refused++;
		log_rl(LOGL_WARN, "amf", NULL, "assoc=%u handover %s for amf-ue=%llu: no such handover", gnb->assoc,
		       ok ? "acknowledge" : "failure", (unsigned long long)aid);
		/* TS 38.413 10.6; a HANDOVER FAILURE carries no RAN UE NGAP ID to name */
		if (ok)
			amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &aid, &rid, NGAP_CAUSE_RADIO_NETWORK,
					   ue ? AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID : AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID,
					   NULL);
		return;
	}
	rc = amf_ho_dispatch(ue, ok ? AMF_HO_EV_REQ_ACK : AMF_HO_EV_REQ_FAIL,
			     ok ? (const void *)&m->u.handover_request_ack : (const void *)&m->u.handover_failure);
	if (rc == -EPERM)
		amf->st.ho_refused++;
	if (rc == -EPERM && ok)
		amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &aid, &rid, NGAP_CAUSE_PROTOCOL,
				   AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE, NULL);
}
