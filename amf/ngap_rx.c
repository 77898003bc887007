/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N2 receive side: association state, the non-UE-associated procedures
 * (NG Setup, RAN Configuration Update, NG Reset, Error Indication; TS 38.413 8.7)
 * and the dispatch of UE-associated messages to their UE context.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/log.h"

static uint32_t tac24(const uint8_t t[3])
{
	return (uint32_t)t[0] << 16 | (uint32_t)t[1] << 8 | t[2];
}

static bool tac_served(const struct amf *amf, uint32_t tac)
{
	unsigned i;

	for (i = 0; i < amf->cfg.n_tacs; i++)
		if (amf->cfg.tacs[i] == tac)
			return true;
	return false;
}

static bool slice_served(const struct amf *amf, const struct ngap_snssai *s)
{
	uint32_t sd = s->has_sd ? (uint32_t)s->sd[0] << 16 | s->sd[1] << 8 | s->sd[2] : AMF_SD_NONE;
	unsigned i;

	for (i = 0; i < amf->cfg.n_slices; i++)
		if (amf->cfg.slices[i].sst == s->sst && amf->cfg.slices[i].sd == sd)
			return true;
	return false;
}

void amf_n2_assoc_up(struct amf *amf, uint32_t assoc, uint16_t in_streams, uint16_t out_streams)
{
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	if (gnb) /* restart reported as down+up normally; be safe */
		amf_n2_assoc_down(amf, assoc);
	gnb = amf_gnb_add(amf, assoc);
	if (!gnb) {
		log_warn("amf", "assoc=%u refused: max_gnbs=%u reached", assoc, amf->cfg.max_gnbs);
		if (amf->ops.close)
			amf->ops.close(amf->ops.arg, assoc);
		return;
	}
	gnb->out_streams = out_streams ? out_streams : 1;
	gnb->in_streams = in_streams;
	log_info("amf", "assoc=%u up streams=%u/%u", assoc, in_streams, out_streams);
}

int amf_n2_assoc_peer(struct amf *amf, uint32_t assoc, const struct sockaddr *peer, socklen_t len)
{
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	if (!gnb)
		return -ENOENT;
	if (!peer || len <= 0 || (size_t)len > sizeof(gnb->peer))
		return -EINVAL;
	memcpy(&gnb->peer, peer, (size_t)len);
	gnb->peer_len = (uint32_t)len;
	return 0;
}

/* Every UE bound to gnb loses its N2 connection (reset or association loss). */
static void gnb_release_all_ues(struct amf *amf, struct amf_gnb *gnb)
{
	/* N2 handovers this gNB is part of first (ngap_ho_exec.c): a source gone after the
	 * command leaves its UE waiting for the target's NOTIFY, not released */
	amf_ho_gnb_lost(amf, gnb);
	while (gnb->ue_head)
		amf_ue_an_released(gnb->ue_head);
}

void amf_n2_assoc_down(struct amf *amf, uint32_t assoc)
{
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);

	if (!gnb)
		return;
	log_info("amf", "assoc=%u down gnb=%s ues=%u", assoc, gnb->name, gnb->n_ues);
	/* TS 23.502 4.2.6 / TS 38.413 8.7.1: the NGAP UE associations of this gNB are gone;
	 * issue 6: with them every PDU session of those UEs (rules, addresses). */
	amf->an_lost = true;
	gnb_release_all_ues(amf, gnb);
	amf->an_lost = false;
	amf_gnb_del(amf, gnb);
}

static void fill_setup_response(struct amf *amf, struct ngap_ng_setup_response *r)
{
	unsigned i;

	r->amf_name.p = (const uint8_t *)amf->cfg.amf_name;
	r->amf_name.len = strlen(amf->cfg.amf_name);
	r->n_guamis = 1;
	memcpy(r->guamis[0].guami.plmn.v, amf->cfg.plmn, 3);
	r->guamis[0].guami.region = amf->cfg.amf_region_id;
	r->guamis[0].guami.set_id = amf->cfg.amf_set_id;
	r->guamis[0].guami.pointer = amf->cfg.amf_pointer;
	r->relative_capacity = amf->cfg.relative_capacity;
	r->n_plmns = 1;
	memcpy(r->plmns[0].plmn.v, amf->cfg.plmn, 3);
	r->plmns[0].n_slices = (uint8_t)amf->cfg.n_slices;
	for (i = 0; i < amf->cfg.n_slices; i++) {
		struct ngap_snssai *s = &r->plmns[0].slices[i];
		uint32_t sd = amf->cfg.slices[i].sd;

		s->sst = amf->cfg.slices[i].sst;
		s->has_sd = sd != AMF_SD_NONE;
		s->sd[0] = (uint8_t)(sd >> 16);
		s->sd[1] = (uint8_t)(sd >> 8);
		s->sd[2] = (uint8_t)sd;
	}
}

/* Remember a slice the gNB supports in one of our TAs (observation API), once. */
static void gnb_note_slice(struct amf_gnb *gnb, const struct ngap_snssai *ns)
{
	uint32_t sd = ns->has_sd ? (uint32_t)ns->sd[0] << 16 | (uint32_t)ns->sd[1] << 8 | ns->sd[2]
				 : AMF_SD_NONE;
	unsigned i;

	for (i = 0; i < gnb->n_slices; i++)
		if (gnb->slices[i].sst == ns->sst && gnb->slices[i].sd == sd)
			return;
	if (gnb->n_slices < AMF_GNB_SLICE_MAX)
		gnb->slices[gnb->n_slices++] = (struct amf_snssai){ ns->sst, sd };
}

struct ta_check {
	bool plmn_ok, tac_ok, slice_ok;
};

/* One (TA, broadcast PLMN, slice) of the gNB's list. */
static void ta_note(struct amf *amf, struct amf_gnb *gnb, struct ta_check *k, uint32_t tac,
		    const struct ngap_plmn *plmn, const struct ngap_snssai *slice)
{
	unsigned i;

	if (memcmp(plmn->v, amf->cfg.plmn, 3) != 0)
		return;
	k->plmn_ok = true;
	if (!tac_served(amf, tac))
		return;
	k->tac_ok = true;
	if (slice) {
		if (slice_served(amf, slice))
			k->slice_ok = true;
		gnb_note_slice(gnb, slice);
	}
	for (i = 0; i < gnb->n_tacs; i++)
		if (gnb->tacs[i] == tac)
			return;
	/* Only TACs we serve are kept: at most amf.tacs of them (<= AMF_GNB_TAC_MAX). */
	if (gnb->n_tacs < AMF_GNB_TAC_MAX)
		gnb->tacs[gnb->n_tacs++] = tac;
}

/* TS 38.413 8.7.1: accept when at least one supported TA is in our PLMN with a TAC we
 * serve and a slice we serve. The whole list (up to maxnoofTACs 256 x maxnoofBPLMNs 12 x
 * maxnoofSliceItems 1024) is walked from its octets, without a copy. Returns 0 or fills
 * the failure cause. */
static int check_tas(struct amf *amf, struct amf_gnb *gnb, uint8_t n_tas,
		     const struct ngap_supported_ta *tas, struct ngap_bytes raw, struct ngap_cause *cause)
{
	struct ta_check k = { false, false, false };
	unsigned i, j, m;

	gnb->n_tacs = 0;
	gnb->n_slices = 0;
	if (raw.len) {
		struct ngap_ta_iter it;
		struct ngap_ta_entry e;
		int rc = ngap_ta_iter_init(&it, raw);

		while (rc >= 0 && (rc = ngap_ta_iter_next(&it, &e)) > 0)
			ta_note(amf, gnb, &k, tac24(e.tac), &e.plmn, &e.slice);
	} else {
		for (i = 0; i < n_tas; i++)
			for (j = 0; j < tas[i].n_plmns; j++) {
				ta_note(amf, gnb, &k, tac24(tas[i].tac), &tas[i].plmns[j].plmn, NULL);
				for (m = 0; m < tas[i].plmns[j].n_slices; m++)
					ta_note(amf, gnb, &k, tac24(tas[i].tac), &tas[i].plmns[j].plmn,
						&tas[i].plmns[j].slices[m]);
			}
	}
	if (!k.plmn_ok || !k.tac_ok) {
		/* No tracking area of ours: the gNB serves another network. */
		*cause = (struct ngap_cause){ NGAP_CAUSE_MISC, AMF_CAUSE_MISC_UNKNOWN_PLMN };
		return -EINVAL;
	}
	if (!k.slice_ok) {
		*cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_SLICE_NOT_SUPPORTED };
		return -EINVAL;
	}
	return 0;
}

static void ng_setup(struct amf *amf, struct amf_gnb *gnb, const struct ngap_ng_setup_request *rq)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_cause cause;
	size_t nl = rq->ran_node_name.len < sizeof(gnb->name) - 1 ? rq->ran_node_name.len
								 : sizeof(gnb->name) - 1;

	int guard;

	/* TS 38.413 8.7.1.1: NG Setup erases existing application level configuration
	 * data; UE-associated connections of this gNB do not survive it. */
	if (gnb->setup_done)
		gnb_release_all_ues(amf, gnb);
	/* Who may set up, and with which Global RAN Node ID (ngap_guard.c, issue 31): checked
	 * before anything of the request is taken. */
	guard = amf_ng_setup_guard(amf, gnb, &rq->ran_node_id);
	if (guard < 0) {
		if (gnb->setup_done && amf->st.gnbs)
			amf->st.gnbs--;
		gnb->setup_done = false;
		memset(tx, 0, sizeof(*tx));
		tx->type = NGAP_UNSUCCESSFUL;
		tx->proc = NGAP_PROC_NG_SETUP;
		tx->u.ng_setup_failure.cause = (struct ngap_cause){ NGAP_CAUSE_MISC, AMF_CAUSE_MISC_UNSPECIFIED };
		/* TS 38.413 8.7.1.3: the gNB waits at least this long before it tries again */
		tx->u.ng_setup_failure.has_time_to_wait = true;
		tx->u.ng_setup_failure.time_to_wait = amf->cfg.ng_setup_time_to_wait;
		amf_ngap_send(amf, gnb->assoc, 0, tx);
		/* not allowed: nothing more to hear from it (a graceful close: the failure is
		 * delivered before the SHUTDOWN, RFC 9260 9.2) */
		if (guard == -EACCES && amf->ops.shutdown)
			amf->ops.shutdown(amf->ops.arg, gnb->assoc);
		else if (guard == -EACCES && amf->ops.close)
			amf->ops.close(amf->ops.arg, gnb->assoc);
		return;
	}
	memcpy(gnb->name, rq->ran_node_name.p ? (const char *)rq->ran_node_name.p : "", nl);
	gnb->name[nl] = '\0';
	memcpy(gnb->plmn, rq->ran_node_id.plmn.v, 3);
	gnb->gnb_id = rq->ran_node_id.id;
	gnb->gnb_id_bits = rq->ran_node_id.id_bits;
	gnb->paging_drx = rq->default_paging_drx;
	memset(tx, 0, sizeof(*tx));
	tx->proc = NGAP_PROC_NG_SETUP;
	if (check_tas(amf, gnb, rq->n_tas, rq->tas, rq->tas_raw, &cause) < 0) {
		tx->type = NGAP_UNSUCCESSFUL;
		tx->u.ng_setup_failure.cause = cause;
		/* TS 38.413 8.7.1.3: time to wait before the gNB retries. */
		tx->u.ng_setup_failure.has_time_to_wait = true;
		tx->u.ng_setup_failure.time_to_wait = amf->cfg.ng_setup_time_to_wait;
		log_warn("amf", "assoc=%u NG Setup Failure gnb-id=%x cause=%u/%u", gnb->assoc,
			 gnb->gnb_id, cause.group, cause.value);
		if (gnb->setup_done && amf->st.gnbs)
			amf->st.gnbs--;
		gnb->setup_done = false;
		amf_ngap_send(amf, gnb->assoc, 0, tx);
		return;
	}
	tx->type = NGAP_SUCCESSFUL;
	fill_setup_response(amf, &tx->u.ng_setup_response);
	if (!gnb->setup_done)
		amf->st.gnbs++;
	gnb->setup_done = true;
	{
		char ids[32];

		/* gnb= in n2.allowed_gnbs' notation, to copy into the configuration */
		amf_gnb_id_str(&rq->ran_node_id, ids, sizeof(ids));
		log_info("amf", "assoc=%u NG Setup gnb-id=%x gnb=%s name=%s tacs=%u", gnb->assoc, gnb->gnb_id, ids,
			 gnb->name, gnb->n_tacs);
	}
	amf_ngap_send(amf, gnb->assoc, 0, tx);
}

static void ran_config_update(struct amf *amf, struct amf_gnb *gnb,
			      const struct ngap_ran_configuration_update *rq)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_cause cause;

	memset(tx, 0, sizeof(*tx));
	tx->proc = NGAP_PROC_RAN_CONFIGURATION_UPDATE;
	/* TS 38.413 8.7.2: the supported TA list, when present, replaces the old one. */
	if ((rq->n_tas || rq->tas_raw.len) && check_tas(amf, gnb, rq->n_tas, rq->tas, rq->tas_raw, &cause) < 0) {
		tx->type = NGAP_UNSUCCESSFUL;
		tx->u.ran_configuration_update_failure.cause = cause;
		tx->u.ran_configuration_update_failure.has_time_to_wait = true;
		tx->u.ran_configuration_update_failure.time_to_wait = amf->cfg.ng_setup_time_to_wait;
		amf_ngap_send(amf, gnb->assoc, 0, tx);
		return;
	}
	if (rq->ran_node_name.len) {
		size_t nl = rq->ran_node_name.len < sizeof(gnb->name) - 1 ? rq->ran_node_name.len
									 : sizeof(gnb->name) - 1;
		memcpy(gnb->name, rq->ran_node_name.p, nl);
		gnb->name[nl] = '\0';
	}
	if (rq->has_default_paging_drx)
		gnb->paging_drx = rq->default_paging_drx;
	tx->type = NGAP_SUCCESSFUL;
	amf_ngap_send(amf, gnb->assoc, 0, tx);
}

static void reset_one(struct amf *amf, struct amf_gnb *gnb, const struct ngap_ue_assoc *ua)
{
	struct amf_ue *ue = NULL;

	if (ua->has_amf_ue_id)
		ue = amf_ue_by_amf_id(amf, ua->amf_ue_id);
	if (!ue && ua->has_ran_ue_id)
		ue = amf_ue_by_ran(amf, gnb, ua->ran_ue_id);
	if (ue && ue->gnb == gnb)
		amf_ue_an_released(ue);
}

static void ng_reset(struct amf *amf, struct amf_gnb *gnb, const struct ngap_ng_reset *rq)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_ng_reset_ack *ack = &tx->u.ng_reset_ack;
	unsigned i;

	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_SUCCESSFUL;
	tx->proc = NGAP_PROC_NG_RESET;
	log_info("amf", "assoc=%u NG Reset from gNB all=%d n=%u", gnb->assoc, rq->reset_all, rq->n_ues);
	if (rq->reset_all) {
		/* TS 38.413 8.7.4.2.2: release every UE-associated logical NG-connection. */
		gnb_release_all_ues(amf, gnb);
	} else if (rq->ues_raw.len) {
		/* The whole list (up to maxnoofNGConnectionsToReset 65536), walked from its
		 * octets and echoed as received (8.7.4.2.2). */
		struct ngap_ue_assoc_iter it;
		struct ngap_ue_assoc ua;
		int rc = ngap_ue_assoc_iter_init(&it, rq->ues_raw);

		while (rc >= 0 && (rc = ngap_ue_assoc_iter_next(&it, &ua)) > 0)
			reset_one(amf, gnb, &ua);
		ack->ues_raw = rq->ues_raw;
		ack->total_ues = rq->total_ues;
	} else {
		ack->n_ues = rq->n_ues;
		for (i = 0; i < rq->n_ues; i++) {
			ack->ues[i] = rq->ues[i];
			reset_one(amf, gnb, &rq->ues[i]);
		}
	}
	amf_ngap_send(amf, gnb->assoc, 0, tx);
}

int amf_n2_reset(struct amf *amf, uint32_t assoc)
{
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);
	struct ngap_msg *tx = &amf->tx;

	if (!gnb || !gnb->setup_done)
		return -ENOENT;
	/* TS 38.413 8.7.4.2.1: AMF-initiated reset of the whole NG interface. */
	gnb_release_all_ues(amf, gnb);
	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_NG_RESET;
	tx->u.ng_reset.cause = (struct ngap_cause){ NGAP_CAUSE_MISC, AMF_CAUSE_MISC_UNSPECIFIED };
	tx->u.ng_reset.reset_all = true;
	return amf_ngap_send(amf, assoc, 0, tx);
}

static void error_indication(struct amf *amf, struct amf_gnb *gnb, const struct ngap_error_indication *e)
{
	struct amf_ue *ue;

	/* TS 38.413 8.7.5: informational; the procedure it refers to handles its own failure. */
	log_rl(LOGL_WARN, "amf", NULL, "assoc=%u Error Indication amf-ue=%lld ran-ue=%lld cause=%d/%d",
	       gnb->assoc, e->has_amf_ue_id ? (long long)e->amf_ue_id : -1LL,
	       e->has_ran_ue_id ? (long long)e->ran_ue_id : -1LL,
	       e->has_cause ? e->cause.group : -1, e->has_cause ? e->cause.value : -1);
	if (!e->has_amf_ue_id)
		return;
	ue = amf_ue_by_amf_id(amf, e->amf_ue_id);
	if (!ue || ue->gnb != gnb || (e->has_ran_ue_id && e->ran_ue_id != ue->ran_ue_ngap_id))
		return;
	/* TS 38.413 8.7.5 / 10.6: the gNB has no (or another) context for this UE, or the
	 * connection's signalling failed: the connection is cleaned up. An unknown or
	 * inconsistent ID means the gNB holds nothing to release. */
	if (ue->release_pending ||
	    (e->has_cause && e->cause.group == NGAP_CAUSE_RADIO_NETWORK &&
	     (e->cause.value == AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID ||
	      e->cause.value == AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID))) {
		amf_ue_an_released(ue);
		return;
	}
	amf_ngap_release(ue, NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_UNSPECIFIED);
}

/* The UE context of a UE-associated message, checking both IDs (TS 38.413 10.6). */
static void reset_stale(struct amf *amf, struct amf_gnb *gnb, uint64_t amf_id, uint32_t ran_id)
{
	struct ngap_msg *tx = &amf->tx;

	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_NG_RESET;
	tx->u.ng_reset.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID };
	tx->u.ng_reset.n_ues = 1;
	tx->u.ng_reset.ues[0] = (struct ngap_ue_assoc){ .has_amf_ue_id = true, .amf_ue_id = amf_id,
							.has_ran_ue_id = true, .ran_ue_id = ran_id };
	amf_ngap_send(amf, gnb->assoc, 0, tx);
}

static struct amf_ue *ue_of(struct amf *amf, struct amf_gnb *gnb, uint64_t amf_id, uint32_t ran_id)
{
	struct amf_ue *ue = amf_ue_by_amf_id(amf, amf_id);

	if (!ue || ue->gnb != gnb) {
		amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &amf_id, &ran_id,
				   NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_UNKNOWN_LOCAL_UE_ID, NULL);
		/* TS 38.413 8.7.4.2.2: the gNB holds a UE-associated connection we cannot
		 * know (say, from before an AMF restart): reset that connection. */
		reset_stale(amf, gnb, amf_id, ran_id);
		return NULL;
	}
	if (ue->ran_ue_ngap_id != ran_id) {
		amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, &amf_id, &ran_id,
				   NGAP_CAUSE_RADIO_NETWORK, AMF_CAUSE_RN_INCONSISTENT_REMOTE_UE_ID, NULL);
		return NULL;
	}
	return ue;
}

static void initial_ue_message(struct amf *amf, struct amf_gnb *gnb, const struct ngap_initial_ue_message *m)
{
	struct amf_ue *ue = amf_ue_by_ran(amf, gnb, m->ran_ue_id);

	if (ue) {
		/* A second InitialUEMessage on the same RAN UE NGAP ID: the gNB lost the
		 * old connection; drop the old association (TS 38.413 10.6). */
		amf_ue_an_released(ue);
	}
	ue = amf_ue_alloc(amf);
	if (!ue) {
		log_rl(LOGL_WARN, "amf", NULL, "assoc=%u no UE context free (max_ues=%u)", gnb->assoc,
		       amf->cfg.max_ues);
		return;
	}
	amf_ue_bind(ue, gnb, m->ran_ue_id);
	ue->tac = tac24(m->uli.tai.tac);
	ue->nr_cell_id_hi = (uint32_t)(m->uli.nr_cgi.cell_id >> 32);
	ue->nr_cell_id_lo = (uint32_t)m->uli.nr_cgi.cell_id;
	amf_nas_rx_initial(ue, m->nas.p, m->nas.len);
}

static void ue_release_request(struct amf *amf, struct amf_gnb *gnb,
			       const struct ngap_ue_context_release_request *m)
{
	struct amf_ue *ue = ue_of(amf, gnb, m->amf_ue_id, m->ran_ue_id);

	if (!ue)
		return;
	/* TS 23.502 4.9.1.4: a release asked for during an N2 handover cancels it */
	amf_ho_an_released(ue);
	/* TS 38.413 8.3.2: answered with UE CONTEXT RELEASE COMMAND. */
	amf_ngap_release(ue, m->cause.group, m->cause.value);
}

static void ue_release_complete(struct amf *amf, struct amf_gnb *gnb,
				const struct ngap_ue_context_release_complete *m)
{
	struct amf_ue *ue;

	/* a handover leg (the target's after a cancel, the source's after NOTIFY): that leg only */
	if (amf_ngap_ho_leg_released(amf, gnb, m->amf_ue_id))
		return;
	ue = amf_ue_by_amf_id(amf, m->amf_ue_id);
	if (!ue || ue->gnb != gnb)
		return;   /* already gone: nothing to release */
	amf_ue_an_released(ue);
}

static void dispatch_initiating(struct amf *amf, struct amf_gnb *gnb, struct ngap_msg *m)
{
	struct amf_ue *ue;

	switch (m->proc) {
	case NGAP_PROC_NG_SETUP:
		ng_setup(amf, gnb, &m->u.ng_setup_request);
		return;
	case NGAP_PROC_ERROR_INDICATION:
		error_indication(amf, gnb, &m->u.error_indication);
		return;
	default:
		break;
	}
	if (!gnb->setup_done) {
		/* TS 38.413 8.7.1.1: nothing else before NG Setup. */
		amf_ngap_error_ind(amf, gnb->assoc, amf->cur_stream, NULL, NULL, NGAP_CAUSE_PROTOCOL,
				   AMF_CAUSE_PROT_NOT_COMPATIBLE_STATE, NULL);
		return;
	}
	switch (m->proc) {
	case NGAP_PROC_RAN_CONFIGURATION_UPDATE:
		ran_config_update(amf, gnb, &m->u.ran_configuration_update);
		break;
	case NGAP_PROC_NG_RESET:
		ng_reset(amf, gnb, &m->u.ng_reset);
		break;
	case NGAP_PROC_INITIAL_UE_MESSAGE:
		initial_ue_message(amf, gnb, &m->u.initial_ue_message);
		break;
	case NGAP_PROC_UPLINK_NAS_TRANSPORT:
		ue = ue_of(amf, gnb, m->u.uplink_nas_transport.amf_ue_id, m->u.uplink_nas_transport.ran_ue_id);
		if (ue) {
			ue->tac = tac24(m->u.uplink_nas_transport.uli.tai.tac);
			amf_nas_rx(ue, m->u.uplink_nas_transport.nas.p, m->u.uplink_nas_transport.nas.len);
		}
		break;
	case NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST:
		ue_release_request(amf, gnb, &m->u.ue_context_release_request);
		break;
	case NGAP_PROC_NAS_NON_DELIVERY_INDICATION:
		log_rl(LOGL_INFO, "amf", NULL, "assoc=%u NAS non delivery amf-ue=%llu", gnb->assoc,
		       (unsigned long long)m->u.nas_non_delivery_indication.amf_ue_id);
		break;
	case NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION: {
		const struct ngap_ue_radio_capability_info_indication *ri =
			&m->u.ue_radio_capability_info_indication;

		ue = ue_of(amf, gnb, ri->amf_ue_id, ri->ran_ue_id);
		/* TS 38.413 8.14.1 / TS 23.502 5.2.2.2.x: the AMF stores it for the next
		 * Initial Context Setup and for paging. */
		if (ue && amf_ue_radio_cap_set(ue, ri->ue_radio_capability, ri->ue_radio_capability_for_paging) < 0)
			amf_ue_log(LOGL_WARN, ue, "UE radio capability of %zu bytes not kept",
				   ri->ue_radio_capability.len);
		break;
	}
	case NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION:
		ue = ue_of(amf, gnb, m->u.pdu_session_resource_modify_indication.amf_ue_id,
			   m->u.pdu_session_resource_modify_indication.ran_ue_id);
		if (ue)
			amf_sm_modify_ind(ue, &m->u.pdu_session_resource_modify_indication);
		break;
	case NGAP_PROC_PATH_SWITCH_REQUEST:
		amf_ngap_path_switch(amf, gnb, &m->u.path_switch_request);   /* ngap_mob.c */
		break;
	/* N2 handover (TS 38.413 8.4.1, 8.4.3, 8.4.5, 8.4.6): ngap_ho.c, ngap_ho_exec.c */
	case NGAP_PROC_HANDOVER_PREPARATION:
		amf_ngap_ho_required(amf, gnb, &m->u.handover_required);
		break;
	case NGAP_PROC_HANDOVER_NOTIFICATION:
		amf_ngap_ho_notify(amf, gnb, &m->u.handover_notify);
		break;
	case NGAP_PROC_HANDOVER_CANCEL:
		amf_ngap_ho_cancel(amf, gnb, &m->u.handover_cancel);
		break;
	case NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER:
		amf_ngap_ul_ran_status(amf, gnb, &m->u.uplink_ran_status_transfer);
		break;
	case NGAP_PROC_PDU_SESSION_RESOURCE_NOTIFY:
		ue = ue_of(amf, gnb, m->u.pdu_session_resource_notify.amf_ue_id,
			   m->u.pdu_session_resource_notify.ran_ue_id);
		if (ue)
			amf_sm_notify(ue, &m->u.pdu_session_resource_notify);
		break;
	default:
		log_rl(LOGL_INFO, "amf", NULL, "assoc=%u %s not handled", gnb->assoc,
		       ngap_msg_name(m->type, m->proc));
		break;
	}
}

/* One SM transfer to the SMF per session the gNB lists (TS 38.413 8.3.1.2, 8.2.1.2, 8.2.2.2,
 * 8.2.3.2); nothing without a UE. */
static void sm_n2_list(struct amf_ue *ue, const struct ngap_pdu_sess_item *l, unsigned n, enum smf_n2_msg kind)
{
	for (unsigned i = 0; ue && i < n; i++)
		amf_sm_n2(ue, l[i].id, kind, &l[i].transfer);
}

static void ics_outcome(struct amf *amf, struct amf_gnb *gnb, const struct ngap_msg *m)
{
	struct amf_ue *ue;

	if (m->type == NGAP_SUCCESSFUL) {
		const struct ngap_initial_context_setup_response *r = &m->u.initial_context_setup_response;

		ue = ue_of(amf, gnb, r->amf_ue_id, r->ran_ue_id);
		if (!ue)
			return;
		sm_n2_list(ue, r->setup, r->n_setup, SMF_N2_SETUP_RSP);
		sm_n2_list(ue, r->failed, r->n_failed, SMF_N2_SETUP_FAIL);
		amf_nas_ics_result(ue, true);
	} else {
		const struct ngap_initial_context_setup_failure *f = &m->u.initial_context_setup_failure;

		ue = ue_of(amf, gnb, f->amf_ue_id, f->ran_ue_id);
		if (!ue)
			return;
		sm_n2_list(ue, f->failed, f->n_failed, SMF_N2_SETUP_FAIL);
		amf_nas_ics_result(ue, false);
	}
}

/* Answers that change nothing here: logged. */
static void outcome_logged(const struct amf_gnb *gnb, const struct ngap_msg *m)
{
	switch (m->proc) {
	case NGAP_PROC_UE_CONTEXT_MODIFICATION:
		/* TS 38.413 8.3.4.3: a refusal leaves the gNB on the UE-AMBR it had; the next
		 * Initial Context Setup carries the new one. Nothing else was asked. */
		if (m->type == NGAP_SUCCESSFUL) {
			log_debug("amf", "assoc=%u UE Context Modification acknowledged", gnb->assoc);
		} else {
			const struct ngap_ue_context_modification_failure *f =
				&m->u.ue_context_modification_failure;

			log_warn("amf", "assoc=%u gNB refused the UE Context Modification (new UE-AMBR) "
				 "amf_ue_id=%llu cause=%u/%u", gnb->assoc, (unsigned long long)f->amf_ue_id,
				 f->cause.group, f->cause.value);
		}
		break;
	case NGAP_PROC_NG_RESET:
		log_info("amf", "assoc=%u NG Reset acknowledged", gnb->assoc);
		break;
	case NGAP_PROC_AMF_CONFIGURATION_UPDATE:
		/* TS 38.413 8.7.3: the answer to the PLMN support list sent after a live slice
		 * change (amf_set_slices). A refusal leaves the gNB on the list of its NG Setup;
		 * we do not repeat (8.7.3.3 Time to Wait only bounds a retry) and say so. */
		if (m->type == NGAP_SUCCESSFUL) {
			log_debug("amf", "assoc=%u AMF Configuration Update acknowledged", gnb->assoc);
		} else {
			const struct ngap_amf_configuration_update_failure *f =
				&m->u.amf_configuration_update_failure;

			log_warn("amf", "assoc=%u gNB refused the AMF Configuration Update cause=%u/%u: it "
				 "keeps the slices of its NG Setup until it sets up again", gnb->assoc,
				 f->cause.group, f->cause.value);
		}
		break;
	default:
		log_rl(LOGL_INFO, "amf", NULL, "assoc=%u %s not handled", gnb->assoc,
		       ngap_msg_name(m->type, m->proc));
		break;
	}
}

/* The gNB's answers to PDU Session Resource Setup / Release / Modify (successful outcomes:
 * these procedures have no other). */
static void sess_outcome(struct amf *amf, struct amf_gnb *gnb, const struct ngap_msg *m)
{
	struct amf_ue *ue;

	switch (m->proc) {
	case NGAP_PROC_PDU_SESSION_RESOURCE_SETUP: {
		const struct ngap_pdu_session_resource_setup_response *r = &m->u.pdu_session_resource_setup_response;

		ue = ue_of(amf, gnb, r->amf_ue_id, r->ran_ue_id);
		sm_n2_list(ue, r->setup, r->n_setup, SMF_N2_SETUP_RSP);
		sm_n2_list(ue, r->failed, r->n_failed, SMF_N2_SETUP_FAIL);
		break;
	}
	case NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE: {
		const struct ngap_pdu_session_resource_release_response *r =
			&m->u.pdu_session_resource_release_response;

		ue = ue_of(amf, gnb, r->amf_ue_id, r->ran_ue_id);
		sm_n2_list(ue, r->sessions, r->n_sessions, SMF_N2_RELEASE_RSP);
		break;
	}
	default: { /* NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY */
		const struct ngap_pdu_session_resource_modify_response *r = &m->u.pdu_session_resource_modify_response;

		ue = ue_of(amf, gnb, r->amf_ue_id, r->ran_ue_id);
		sm_n2_list(ue, r->modified, r->n_modified, SMF_N2_MODIFY_RSP);
		sm_n2_list(ue, r->failed, r->n_failed, SMF_N2_MODIFY_FAIL);
		break;
	}
	}
}

static void dispatch_outcome(struct amf *amf, struct amf_gnb *gnb, struct ngap_msg *m)
{
	switch (m->proc) {
	case NGAP_PROC_INITIAL_CONTEXT_SETUP:
		ics_outcome(amf, gnb, m);
		break;
	case NGAP_PROC_PDU_SESSION_RESOURCE_SETUP:
	case NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE:
	case NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY:
		if (m->type == NGAP_SUCCESSFUL)
			sess_outcome(amf, gnb, m);
		break;
	case NGAP_PROC_UE_CONTEXT_RELEASE:
		if (m->type == NGAP_SUCCESSFUL)
			ue_release_complete(amf, gnb, &m->u.ue_context_release_complete);
		break;
	case NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION:
		amf_ngap_ho_request_outcome(amf, gnb, m);   /* ngap_ho.c (TS 38.413 8.4.2) */
		break;
	default:
		outcome_logged(gnb, m);
		break;
	}
}

int amf_n2_rx(struct amf *amf, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len)
{
	struct amf_gnb *gnb = amf_gnb_by_assoc(amf, assoc);
	struct ngap_dec_info info;
	struct ngap_msg *m = &amf->rx;
	int rc;

	amf->st.ngap_rx++;
	if (!gnb) {
		amf_n2_assoc_up(amf, assoc, 1, 1);
		gnb = amf_gnb_by_assoc(amf, assoc);
		if (!gnb)
			return -ENOSPC;
	}
	if (gnb->probing)
		gnb->probe_heard = true;   /* it answers: it keeps its ID (ngap_guard.c) */
	amf->cur_assoc = assoc;
	amf->cur_stream = stream;
	memset(&info, 0, sizeof(info));
	/* Lists at the spec's maxima (an NG Reset of 65536 UEs) come as fragmented open
	 * types; they are joined into the AMF's scratch (2 x the largest N2 message). */
	rc = ngap_decode_scratch(buf, len, m, &info, amf->rx_scratch, sizeof(amf->rx_scratch));
	if (rc < 0 || info.action == NGAP_ACT_REJECT) {
		const uint64_t *aid = info.ue_ids_seen & 1 ? &info.amf_ue_id : NULL;
		const uint32_t *rid = info.ue_ids_seen & 2 ? &info.ran_ue_id : NULL;

		amf->st.ngap_rx_bad++;
		log_rl(LOGL_WARN, "amf", NULL, "assoc=%u bad NGAP rc=%d why=%s bit=%zu", assoc, rc,
		       info.why ? info.why : "-", info.err_bit);
		/* TS 38.413 10.3 / 10.4: transfer syntax errors and "reject" IEs get an Error
		 * Indication (we have no failure message for most procedures). An unknown
		 * procedure with criticality "ignore" is dropped silently. */
		if (rc == -ENOTSUP && info.action != NGAP_ACT_REJECT && info.action != NGAP_ACT_NOTIFY)
			return rc;
		if (rc == -EBADMSG || rc == -E2BIG)
			amf_ngap_error_ind(amf, assoc, stream, aid, rid, NGAP_CAUSE_PROTOCOL,
					   AMF_CAUSE_PROT_TRANSFER_SYNTAX, NULL);
		else
			amf_ngap_error_ind(amf, assoc, stream, aid, rid, NGAP_CAUSE_PROTOCOL,
					   AMF_CAUSE_PROT_ABSTRACT_REJECT, &info.diag);
		return rc < 0 ? rc : -EPROTO;
	}
	if (info.action == NGAP_ACT_NOTIFY)
		amf_ngap_error_ind(amf, assoc, stream, info.ue_ids_seen & 1 ? &info.amf_ue_id : NULL,
				   info.ue_ids_seen & 2 ? &info.ran_ue_id : NULL, NGAP_CAUSE_PROTOCOL,
				   2 /* abstract-syntax-error-ignore-and-notify */, &info.diag);
	if (m->proc < AMF_NGAP_PROC_SLOTS && m->type < AMF_NGAP_PDU_TYPES)
		amf->ngap_msgs[m->proc][AMF_NGAP_RX][m->type]++;   /* by procedure (amf_ngap_msg_count) */
	if (m->type == NGAP_INITIATING)
		dispatch_initiating(amf, gnb, m);
	else
		dispatch_outcome(amf, gnb, m);
	return 0;
}
