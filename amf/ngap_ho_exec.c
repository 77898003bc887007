/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Intra-AMF N2 handover, execution and its ends (TS 23.502 4.9.1.3.3, 4.9.1.4; TS 38.413 8.4.3
 * Handover Notification, 8.4.5 Handover Cancellation, 8.4.6 / 8.4.7 RAN Status Transfer):
 * the leg (struct amf_ho) and its release, HANDOVER NOTIFY (the UE's N2 connection becomes the
 * target leg, the source's is released without touching the sessions), HANDOVER CANCEL, the
 * ho-prep / ho-overall guards, association losses, and a context that goes mid-handover.
 */
#include <errno.h>
#include <stddef.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

#define BIT(psi) ((uint16_t)(1u << (psi)))

/* ---- the leg ---- */

struct amf_ue *amf_ho_leg_by_id(struct amf *amf, const struct amf_gnb *gnb, uint64_t id)
{
	/* Legs are indexed by their ID (ue_store.c): one hash lookup. */
	struct amf_ue *ue = amf_ue_by_leg_id(amf, id);

	return ue && ue->in_use && ue->ho.leg_gnb == gnb ? ue : NULL;
}

void amf_ho_leg_set(struct amf_ue *ue, struct amf_gnb *gnb, uint64_t amf_id)
{
	struct amf *amf = ue->amf;
	uint64_t old = ue->ho.leg_gnb ? ue->ho.leg_amf_id : AMF_NIL64;

	if (!ue->ho.leg_gnb) {
		ue->ho.prev = NULL;
		ue->ho.next = amf->ho_head;
		if (amf->ho_head)
			amf->ho_head->ho.prev = ue;
		amf->ho_head = ue;
	}
	ue->ho.leg_gnb = gnb;
	ue->ho.leg_amf_id = amf_id;
	amf_ue_leg_reindex(ue, old);
	ue->ho.leg_ran_id = 0;
	ue->ho.leg_has_ran = false;
	/* UE-associated signalling on streams 1..n-1 (TS 38.412 7), as amf_ue_bind spreads it */
	ue->ho.leg_stream = gnb->out_streams > 1 ? (uint16_t)(1 + ue->idx % (gnb->out_streams - 1u)) : 0;
}

void amf_ho_leg_clear(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	uint64_t old = ue->ho.leg_amf_id;

	if (!ue->ho.leg_gnb)
		return;
	if (ue->ho.prev)
		ue->ho.prev->ho.next = ue->ho.next;
	else
		amf->ho_head = ue->ho.next;
	if (ue->ho.next)
		ue->ho.next->ho.prev = ue->ho.prev;
	ue->ho.next = ue->ho.prev = NULL;
	ue->ho.leg_gnb = NULL;
	ue->ho.leg_amf_id = AMF_NIL64;
	amf_ue_leg_reindex(ue, old);
	ue->ho.leg_has_ran = false;
}

int amf_ho_leg_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause_value)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx;
	struct ngap_ue_context_release_command *c;

	if (!ue->ho.leg_gnb)
		return -ENOTCONN;
	tx = amf_ho_tx(amf, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE, sizeof(*c));
	c = &tx->u.ue_context_release_command;
	/* TS 38.413 9.2.2.5: the AMF UE NGAP ID alone before the target gave its RAN UE NGAP ID */
	c->has_ran_ue_id = ue->ho.leg_has_ran;
	c->amf_ue_id = ue->ho.leg_amf_id;
	c->ran_ue_id = ue->ho.leg_ran_id;
	c->cause = (struct ngap_cause){ cause_group, cause_value };
	return amf_ngap_send(amf, ue->ho.leg_gnb->assoc, ue->ho.leg_stream, tx);
}

void amf_ho_sessions_cancel(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;

	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++)
		if ((ue->ho.prepared & BIT(psi)) && amf->smf && ue->sm)
			smf_ho_cancel(amf->smf, ue->sm, psi);   /* -ENOENT: released meanwhile */
	ue->ho.prepared = ue->ho.admitted = ue->ho.drop = 0;
}

/* The handover ends before NOTIFY: the SMF forgets it, the target's context is released. */
static void cancel(struct amf_ue *ue, uint8_t cause_value)
{
	amf_tmr_stop(ue, AMF_TMR_HO_PREP);
	amf_tmr_stop(ue, AMF_TMR_HO_OVERALL);
	amf_ho_sessions_cancel(ue);
	amf_ho_leg_release(ue, NGAP_CAUSE_RADIO_NETWORK, cause_value);
	ue->amf->st.ho_cancelled++;
}

/* The source went after the command and the UE never came: no N2 connection is left (TS 23.502
 * 4.2.6, an AN release: the sessions stay with their user plane down). */
static void no_connection_left(struct amf_ue *ue)
{
	if (ue->ho.src_gone && !ue->gnb) {
		ue->ho.src_gone = false;
		amf_ue_an_released(ue);
	}
}

/* ---- actions ---- */

/* PREPARING / PREPARED x CANCEL (TS 38.413 8.4.5.2, TS 23.502 4.9.1.4). */
int amf_ho_a_cancel(struct amf_ue *ue, const void *arg)
{
	amf_ue_log(LOGL_INFO, ue, "HANDOVER CANCEL from the source");
	cancel(ue, AMF_CAUSE_RN_HO_CANCELLED);
	return amf_ho_a_cancel_ack_only(ue, arg);
}

/* TS 38.413 8.4.5.2: HANDOVER CANCEL ACKNOWLEDGE on the connection the cancel came on (the
 * procedure has no failure: nothing left to cancel is acknowledged too). */
int amf_ho_a_cancel_ack_only(struct amf_ue *ue, const void *arg)
{
	const struct ngap_handover_cancel *m = arg;
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = amf_ho_tx(amf, NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_CANCEL, sizeof(tx->u.handover_cancel_ack));

	tx->u.handover_cancel_ack.amf_ue_id = m->amf_ue_id;
	tx->u.handover_cancel_ack.ran_ue_id = m->ran_ue_id;
	amf_ngap_send(amf, amf->cur_assoc, amf->cur_stream, tx);
	return ue->ho.state == AMF_HO_COMPLETING ? AMF_HO_COMPLETING : AMF_HO_NONE;
}

/* PREPARED x UL_STATUS (TS 38.413 8.4.6 / 8.4.7): the container to the target, as it came. */
int amf_ho_a_ul_status(struct amf_ue *ue, const void *arg)
{
	const struct ngap_ran_status_transfer *m = arg;
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = amf_ho_tx(amf, NGAP_INITIATING, NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER,
				       sizeof(tx->u.downlink_ran_status_transfer));

	tx->u.downlink_ran_status_transfer.amf_ue_id = ue->ho.leg_amf_id;
	tx->u.downlink_ran_status_transfer.ran_ue_id = ue->ho.leg_ran_id;
	tx->u.downlink_ran_status_transfer.container = m->container;
	amf_ngap_send(amf, ue->ho.leg_gnb->assoc, ue->ho.leg_stream, tx);
	return AMF_HO_PREPARED;
}

int amf_ho_a_ignore(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ue_log(LOGL_DEBUG, ue, "handover message ignored in %s", amf_ho_state_name(ue->ho.state));
	return ue->ho.state;
}

/* The sessions left out (slice) or refused by the target: their user plane pointed at the
 * source, which is gone; released by the network over the target (TS 23.502 4.9.1.3.3,
 * 4.9.1.2.2 step 1b). */
static void release_left_out(struct amf_ue *ue, uint16_t drop)
{
	static const struct ngap_cause slice = { NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_SLICE_NOT_SUPPORTED };
	struct amf *amf = ue->amf;

	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		struct smf_out o;

		if (!(drop & BIT(psi)))
			continue;
		smf_out_init(&o, amf->so_n1, sizeof(amf->so_n1), amf->so_n2, sizeof(amf->so_n2));
		if (smf_path_switch_drop(amf->smf, ue->sm, psi, &slice, &o) == 0)
			smf_release(amf->smf, ue->sm, psi, NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE);
	}
}

/* TS 23.502 4.9.1.3.3 step 7: the UE's connection is the target leg (its AMF UE NGAP ID is the
 * one the target got in HANDOVER REQUEST); the source's becomes the leg. */
static void move_to_target(struct amf_ue *ue, const struct ngap_handover_notify *m)
{
	struct amf_gnb *tgt = ue->ho.leg_gnb, *src = ue->gnb;
	uint64_t tgt_id = ue->ho.leg_amf_id, src_id = ue->amf_ue_ngap_id;
	uint32_t tgt_ran = ue->ho.leg_ran_id, src_ran = ue->ran_ue_ngap_id;
	uint16_t tgt_stream = ue->ho.leg_stream, src_stream = ue->stream;
	struct amf_ue *stale = amf_ue_by_ran(ue->amf, tgt, tgt_ran);

	if (stale && stale != ue)
		amf_ue_an_released(stale);   /* the target reused the ID: its old connection is gone */
	amf_ho_leg_clear(ue);
	amf_ue_bind_id(ue, tgt, tgt_ran, tgt_id);
	ue->stream = tgt_stream;
	ue->ics_sent = true;             /* the AS security context came with HANDOVER REQUEST */
	ue->tac = (uint32_t)m->uli.tai.tac[0] << 16 | (uint32_t)m->uli.tai.tac[1] << 8 | m->uli.tai.tac[2];
	ue->nr_cell_id_hi = (uint32_t)(m->uli.nr_cgi.cell_id >> 32);
	ue->nr_cell_id_lo = (uint32_t)m->uli.nr_cgi.cell_id;
	if (src) {
		amf_ho_leg_set(ue, src, src_id);
		ue->ho.leg_ran_id = src_ran;
		ue->ho.leg_has_ran = true;
		ue->ho.leg_stream = src_stream;
	}
}

/* PREPARED x NOTIFY (TS 38.413 8.4.3.2; TS 23.502 4.9.1.3.3 steps 7-21). */
int amf_ho_a_notify(struct amf_ue *ue, const void *arg)
{
	const struct ngap_handover_notify *m = arg;
	struct amf *amf = ue->amf;
	uint16_t drop = ue->ho.drop;

	amf_tmr_stop(ue, AMF_TMR_HO_OVERALL);
	move_to_target(ue, m);
	ue->ho.src_gone = false;
	ue->ho.drop = 0;
	amf->st.ho_notified++;
	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++)
		if ((ue->ho.admitted & BIT(psi)) && smf_ho_complete(amf->smf, ue->sm, psi) < 0)
			amf_ue_log(LOGL_INFO, ue, "handover: psi=%u not completed (released meanwhile)", psi);
	amf_ue_log(LOGL_INFO, ue, "HANDOVER NOTIFY: on assoc=%u amf-ue=%llu", ue->gnb->assoc,
		   (unsigned long long)ue->amf_ue_ngap_id);
	if (!ue->ho.leg_gnb) {
		/* the source is gone already: nothing to release, no forwarding left to end */
		for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++)
			if (ue->ho.admitted & BIT(psi))
				smf_ho_end(amf->smf, ue->sm, psi);
		ue->ho.prepared = ue->ho.admitted = 0;
		release_left_out(ue, drop);
		return AMF_HO_NONE;
	}
	/* step 21a: the source's context goes; its RELEASE COMPLETE frees the leg only */
	amf_ho_leg_release(ue, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_SUCCESSFUL_HO);
	amf_tmr_start(ue, AMF_TMR_HO_OVERALL);
	release_left_out(ue, drop);
	return AMF_HO_COMPLETING;
}

/* NONE x NOTIFY: the UE reached a target whose handover had ended: that context is released
 * (TS 38.413 8.3.3); the UE re-establishes on a cell that knows it. */
int amf_ho_a_late_notify(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ue_log(LOGL_INFO, ue, "HANDOVER NOTIFY after the handover ended: target released");
	amf_ho_leg_release(ue, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_CANCELLED);
	return AMF_HO_NONE;
}

/* PREPARING x GUARD (ho-prep, TS 23.502 4.9.1.3.2): no answer from the target. The leg stays
 * known: a late acknowledge gets its release (amf_ho_a_late_ack). */
int amf_ho_a_prep_guard(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ho_sessions_cancel(ue);
	amf_ho_prep_failure(ue, AMF_HO_FAIL_GUARD, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_FAIL_TARGET);
	return AMF_HO_NONE;
}

/* PREPARED x GUARD (ho-overall): no NOTIFY. Cancelled as by the source (TS 23.502 4.9.1.4). */
int amf_ho_a_overall_guard(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	cancel(ue, AMF_CAUSE_RN_HO_CANCELLED);
	no_connection_left(ue);
	return AMF_HO_NONE;
}

/* PREPARING x SRC_LOST: nobody waits for the answer. */
int amf_ho_a_src_lost(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	cancel(ue, AMF_CAUSE_RN_HO_CANCELLED);
	return AMF_HO_NONE;
}

/* PREPARED x SRC_LOST: the UE has its command and may reach the target (TS 23.502 4.9.1.3.3):
 * the source connection goes without an AN release (the sessions keep their user plane), and
 * NOTIFY or ho-overall decides. */
int amf_ho_a_src_gone(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ue_log(LOGL_INFO, ue, "handover: the source's association is gone, NOTIFY awaited");
	amf_ue_unbind(ue);
	ue->ho.src_gone = true;
	return AMF_HO_PREPARED;
}

/* PREPARING / PREPARED x TGT_LOST: the target holds nothing now. */
int amf_ho_a_tgt_lost(struct amf_ue *ue, const void *arg)
{
	bool preparing = ue->ho.state == AMF_HO_PREPARING;

	(void)arg;
	amf_tmr_stop(ue, AMF_TMR_HO_PREP);
	amf_tmr_stop(ue, AMF_TMR_HO_OVERALL);
	amf_ho_sessions_cancel(ue);
	amf_ho_leg_clear(ue);
	ue->amf->st.ho_cancelled++;
	if (preparing)
		amf_ho_prep_failure(ue, AMF_HO_FAIL_REFUSED, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_HO_FAIL_TARGET);
	no_connection_left(ue);
	return AMF_HO_NONE;
}

/* PREPARING / PREPARED x AN_REL / ABORT: the UE's connection or context goes first. */
int amf_ho_a_abandon(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ue_log(LOGL_INFO, ue, "handover abandoned: the UE's connection or context goes");
	cancel(ue, AMF_CAUSE_RN_HO_CANCELLED);
	return AMF_HO_NONE;
}

/* COMPLETING x REL_DONE / GUARD / SRC_LOST / ABORT: the source's context is gone (TS 23.502
 * 4.9.1.3.3 step 21a); forwarding tunnels end (smf_ho_end). The sessions stay on the target. */
int amf_ho_a_src_released(struct amf_ue *ue, const void *arg)
{
	struct amf *amf = ue->amf;

	(void)arg;
	amf_tmr_stop(ue, AMF_TMR_HO_OVERALL);
	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++)
		if ((ue->ho.admitted & BIT(psi)) && amf->smf && ue->sm)
			smf_ho_end(amf->smf, ue->sm, psi);
	ue->ho.prepared = ue->ho.admitted = 0;
	amf_ho_leg_clear(ue);
	return AMF_HO_NONE;
}

int amf_ho_a_forget_leg(struct amf_ue *ue, const void *arg)
{
	(void)arg;
	amf_ho_leg_clear(ue);
	return AMF_HO_NONE;
}

/* ---- hooks ---- */

void amf_on_ho_guard(struct amf_ue *ue)
{
	ue->amf->st.ho_guard_expired++;
	amf_ho_dispatch(ue, AMF_HO_EV_GUARD, NULL);
}

void amf_ho_an_released(struct amf_ue *ue)
{
	if (ue->ho.state != AMF_HO_NONE && !ue->ho.in_fsm)
		amf_ho_dispatch(ue, AMF_HO_EV_AN_REL, NULL);
}

void amf_ho_abort(struct amf_ue *ue)
{
	if ((ue->ho.state != AMF_HO_NONE || ue->ho.leg_gnb) && !ue->ho.in_fsm)
		amf_ho_dispatch(ue, AMF_HO_EV_ABORT, NULL);
}

void amf_ho_gnb_lost(struct amf *amf, struct amf_gnb *gnb)
{
	struct amf_ue *ue = amf->ho_head, *next;

	for (; ue; ue = next) {
		next = ue->ho.next;
		if (ue->ho.leg_gnb == gnb)
			amf_ho_dispatch(ue, ue->ho.state == AMF_HO_COMPLETING ? AMF_HO_EV_SRC_LOST : AMF_HO_EV_TGT_LOST,
					NULL);
		else if (ue->gnb == gnb && (ue->ho.state == AMF_HO_PREPARING || ue->ho.state == AMF_HO_PREPARED))
			amf_ho_dispatch(ue, AMF_HO_EV_SRC_LOST, NULL);
	}
}

bool amf_ngap_ho_leg_released(struct amf *amf, struct amf_gnb *gnb, uint64_t amf_ue_id)
{
	struct amf_ue *ue = amf_ho_leg_by_id(amf, gnb, amf_ue_id);

	if (!ue)
		return false;
	/* a RELEASE COMPLETE on a leg nobody released (the target's before NOTIFY): counted only */
	if (amf_ho_dispatch(ue, AMF_HO_EV_REL_DONE, NULL) == -EPERM)
		amf->st.ho_refused++;
	return true;
}

/* ---- entry points from ngap_rx.c ---- */

static void refuse(struct amf *amf, struct amf_gnb *gnb, uint64_t aid, uint32_t rid, uint8_t group, uint8_t value)
{
	amf->st.ho_refused++;
	amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &aid, &rid, group, value, NULL);
}

/* TS 38.413 10.6: the UE whose own connection on gnb this is (both IDs), else NULL. */
static struct amf_ue *serving(struct amf *amf, struct amf_gnb *gnb, uint64_t aid, uint32_t rid, bool *bad_ran)
{
	struct amf_ue *ue = amf_ue_by_amf_id(amf, aid);

	*bad_ran = ue && ue->gnb == gnb && ue->ran_ue_ngap_id != rid;
	return ue && ue->gnb == gnb && !*bad_ran ? ue : NULL;
}

void amf_ngap_ho_notify(struct amf *amf, struct amf_gnb *gnb, const struct ngap_handover_notify *m)
{
	struct amf_ue *ue = amf_ho_leg_by_id(amf, gnb, m->amf_ue_id);
	bool bad_ran = ue && ue->ho.leg_has_ran && ue->ho.leg_ran_id != m->ran_ue_id;

	if (ue && ue->ho.state != AMF_HO_COMPLETING && !bad_ran) {
		/* before the acknowledge the target has no RAN UE NGAP ID to name: not compatible */
		if (!ue->ho.leg_has_ran || amf_ho_dispatch(ue, AMF_HO_EV_NOTIFY, m) == -EPERM)
			refuse(amf, gnb, m->amf_ue_id, m->ran_ue_id, NGAP_CAUSE_PROTOCOL,
			       AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE);
		return;
	}
	/* a second NOTIFY on what is the UE's own connection now: nothing to do */
	ue = ue ? NULL : serving(amf, gnb, m->amf_ue_id, m->ran_ue_id, &bad_ran);
	if (ue && ue->ho.state == AMF_HO_COMPLETING) {
		amf_ho_dispatch(ue, AMF_HO_EV_NOTIFY, m);
		return;
	}
	refuse(amf, gnb, m->amf_ue_id, m->ran_ue_id, NGAP_CAUSE_RADIO_NETWORK,
	       bad_ran ? AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID : AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID);
}

void amf_ngap_ho_cancel(struct amf *amf, struct amf_gnb *gnb, const struct ngap_handover_cancel *m)
{
	bool bad_ran;
	struct amf_ue *ue = serving(amf, gnb, m->amf_ue_id, m->ran_ue_id, &bad_ran);

	if (!ue && !bad_ran) {
		/* after NOTIFY the source names its own (now the leg's) connection */
		ue = amf_ho_leg_by_id(amf, gnb, m->amf_ue_id);
		if (ue && (ue->ho.state != AMF_HO_COMPLETING || ue->ho.leg_ran_id != m->ran_ue_id)) {
			bad_ran = ue->ho.leg_ran_id != m->ran_ue_id;
			ue = NULL;
		}
	}
	if (!ue) {
		refuse(amf, gnb, m->amf_ue_id, m->ran_ue_id, NGAP_CAUSE_RADIO_NETWORK,
		       bad_ran ? AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID : AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID);
		return;
	}
	amf_ho_dispatch(ue, AMF_HO_EV_CANCEL, m);
}

void amf_ngap_ul_ran_status(struct amf *amf, struct amf_gnb *gnb, const struct ngap_ran_status_transfer *m)
{
	bool bad_ran;
	struct amf_ue *ue = serving(amf, gnb, m->amf_ue_id, m->ran_ue_id, &bad_ran);

	if (!ue) {
		refuse(amf, gnb, m->amf_ue_id, m->ran_ue_id, NGAP_CAUSE_RADIO_NETWORK,
		       bad_ran ? AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID : AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID);
		return;
	}
	/* 8.4.6.2: only between the command and the UE's arrival */
	if (amf_ho_dispatch(ue, AMF_HO_EV_UL_STATUS, m) == -EPERM)
		refuse(amf, gnb, m->amf_ue_id, m->ran_ue_id, NGAP_CAUSE_PROTOCOL, AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE);
}
