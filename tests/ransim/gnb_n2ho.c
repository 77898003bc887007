/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gNB: the N2 handover between two gNBs of the same ransim (TS 23.502 4.9.1.3,
 * TS 38.413 8.4.1-8.4.3, 8.4.5-8.4.7), as TS 38.413 says the gNBs send it.
 *
 *  source                                   AMF                         target
 *  HANDOVER REQUIRED (8.4.1.2) ---------->
 *                                               ----------> HANDOVER REQUEST (8.4.2.2)
 *                                               <---------- HANDOVER REQUEST ACKNOWLEDGE
 *                                                           (or HANDOVER FAILURE, 8.4.2.3)
 *  <---------- HANDOVER COMMAND (or HANDOVER PREPARATION FAILURE, 8.4.1.3)
 *  UPLINK RAN STATUS TRANSFER (8.4.6) ---->
 *  DL G-PDUs (and the End Marker) on to     ----------> DOWNLINK RAN STATUS TRANSFER (8.4.7)
 *  the forwarding tunnel (TS 23.501 5.8.2.9)            the UE arrives: HANDOVER NOTIFY (8.4.3)
 *  <---------- UE CONTEXT RELEASE COMMAND (successful-handover) -> COMPLETE (8.3.3)
 *
 * --handover-mode n2: the source says DirectForwardingPathAvailability (Xn between the
 * gNBs), so the Handover Command Transfer's forwarding tunnel is the target's own; n2-indirect:
 * not said, the core gives a UPF forwarding tunnel (TS 23.502 4.9.1.3.2 step 9-11). The target
 * counts what arrives on its DL forwarding TEID. --handover-fail target: the target answers
 * HANDOVER FAILURE (no-radio-resources-available-in-target-cell); cancel: the source sends
 * HANDOVER CANCEL (8.4.5) once it has the command instead of letting the UE go, and the AMF
 * releases the target's context. Both leave the UE and its traffic on the source.
 *
 * Each UE's handover is one explicit state machine (a const table: the events a state takes
 * and the states its actions may lead to; one action per event returns the next state; one
 * dispatcher that logs and refuses the rest). Timers: TNGRELOCprep on the source until the
 * command (on expiry: HANDOVER CANCEL, 8.4.1.2), the UE's arrival after the DOWNLINK RAN
 * STATUS TRANSFER, TNGRELOCoverall until the source's release. Nothing allocated.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

#define EVB(e) (1u << (e))
#define STB(s) (1u << (s))

#define T_RELOC_PREP_MS 5000      /* TNGRELOCprep (TS 38.413 8.4.1.2), operator-set */
#define T_RELOC_OVERALL_MS 5000   /* TNGRELOCoverall */
#define T_ARRIVE_MS 20            /* the UE's radio handover after the DL RAN status */
#define T_ARRIVE_NO_STATUS_MS 500 /* ... when no DOWNLINK RAN STATUS TRANSFER comes (it is optional) */
#define CAUSE_RN_SUCCESSFUL_HO 2
#define CAUSE_RN_HO_CANCELLED 5
#define CAUSE_RN_TNGRELOCPREP_EXPIRY 10
#define CAUSE_RN_NO_RADIO_RESOURCES_TARGET 13
#define CAUSE_RN_HO_DESIRABLE_RADIO 16

enum n2ho_event {
	EV_START = 0, EV_HO_REQUEST, EV_HO_COMMAND, EV_PREP_FAILURE, EV_DL_STATUS, EV_ARRIVED,
	EV_SRC_RELEASE, EV_CANCEL_ACK, EV_TGT_RELEASE, EV_TIMER, EV_COUNT
};

struct n2ho_state_desc {
	const char *name;
	uint32_t events;   /* EVB() taken in this state */
	uint32_t next;     /* STB() an action may lead to */
};

static const struct n2ho_state_desc states[RS_N2HO_STATE_COUNT] = {
	[RS_N2HO_NONE] = { "NONE", EVB(EV_START), STB(RS_N2HO_PREP) | STB(RS_N2HO_NONE) },
	[RS_N2HO_PREP] = { "PREP",
		EVB(EV_HO_REQUEST) | EVB(EV_HO_COMMAND) | EVB(EV_PREP_FAILURE) | EVB(EV_TGT_RELEASE) | EVB(EV_TIMER),
		STB(RS_N2HO_PREP) | STB(RS_N2HO_EXEC) | STB(RS_N2HO_CANCELLING) | STB(RS_N2HO_NONE) },
	[RS_N2HO_EXEC] = { "EXEC", EVB(EV_DL_STATUS) | EVB(EV_TIMER), STB(RS_N2HO_ARRIVING) | STB(RS_N2HO_NOTIFIED) },
	[RS_N2HO_ARRIVING] = { "ARRIVING", EVB(EV_ARRIVED), STB(RS_N2HO_NOTIFIED) },
	[RS_N2HO_NOTIFIED] = { "NOTIFIED", EVB(EV_SRC_RELEASE) | EVB(EV_TIMER), STB(RS_N2HO_NONE) },
	[RS_N2HO_CANCELLING] = { "CANCELLING", EVB(EV_CANCEL_ACK) | EVB(EV_TGT_RELEASE) | EVB(EV_TIMER),
		STB(RS_N2HO_CANCEL_ACKED) | STB(RS_N2HO_CANCEL_TGT_GONE) | STB(RS_N2HO_NONE) },
	[RS_N2HO_CANCEL_ACKED] = { "CANCEL_ACKED", EVB(EV_TGT_RELEASE) | EVB(EV_TIMER), STB(RS_N2HO_NONE) },
	[RS_N2HO_CANCEL_TGT_GONE] = { "CANCEL_TGT_GONE", EVB(EV_CANCEL_ACK) | EVB(EV_TIMER), STB(RS_N2HO_NONE) },
};

static const char *const ev_names[EV_COUNT] = {
	"START", "HO_REQUEST", "HO_COMMAND", "PREP_FAILURE", "DL_STATUS", "ARRIVED", "SRC_RELEASE",
	"CANCEL_ACK", "TGT_RELEASE", "TIMER",
};

const char *rs_n2ho_state_name(unsigned st)
{
	return st < RS_N2HO_STATE_COUNT ? states[st].name : "?";
}

const char *rs_ho_mode_name(enum ransim_ho_mode m)
{
	return m == RANSIM_HO_N2 ? "n2" : m == RANSIM_HO_N2_INDIRECT ? "n2-indirect" : "xn";
}

/* A check that failed: counted, the UE's failure (also once its plan finished: sessions
 * mode holds finished UEs). */
static void n2_error(struct rs_ue *ue, const char *cause)
{
	ue->rs->st.n2ho_errors++;
	if (ue->finished && !ue->fail[0])
		rs_cause_add(ue->rs, cause);
	rs_ue_fail(ue, cause);
}

static void teid_put(uint8_t t[4], uint32_t v)
{
	t[0] = (uint8_t)(v >> 24);
	t[1] = (uint8_t)(v >> 16);
	t[2] = (uint8_t)(v >> 8);
	t[3] = (uint8_t)v;
}

static uint32_t teid_get(const uint8_t t[4])
{
	return (uint32_t)t[0] << 24 | (uint32_t)t[1] << 16 | (uint32_t)t[2] << 8 | t[3];
}

/* gNB g's N3 end of a tunnel with TEID teid: 32 or 128 bits (TS 38.414 5.1). */
static void gnb_tunnel(const struct rs_gnb *g, uint32_t teid, struct ngap_gtp_tunnel *t)
{
	struct rs_n3_addr a;

	memset(t, 0, sizeof(*t));
	rs_gnb_n3_addr(g, &a);
	rs_tla_put(&a, t);
	teid_put(t->teid, teid);
}

static void msg_init(struct ngap_msg *m, uint8_t type, uint8_t proc)
{
	memset(m, 0, sizeof(*m));
	m->type = type;
	m->proc = proc;
}

/* ---- source: HANDOVER REQUIRED (TS 38.413 8.4.1.2, 9.2.3.1) ---- */

static int ho_required(struct rs_ue *ue, struct rs_gnb *tg)
{
	struct ransim *rs = ue->rs;
	struct ngap_msg *m = &rs->tx;
	struct ngap_handover_required *r = &m->u.handover_required;
	struct ngap_ho_required_transfer xt = { .has_direct_forwarding = rs->cfg.handover_mode == RANSIM_HO_N2 };
	struct rs_s2t s = { .ue_idx = ue->idx, .psi = rs->cfg.psi, .qfi = ue->qfi, .dl_forwarding = true,
			    .source_cell = 0x10 + ue->gnb->idx, .target_cell = 0x10 + tg->idx, .time_in_cell_s = 1 };
	int nx, nc;

	memcpy(s.plmn, rs->plmn, 3);
	nx = ngap_enc_ho_required_transfer(&xt, rs->xfer_buf[0], sizeof(rs->xfer_buf[0]));
	nc = rs_enc_s2t_container(&s, rs->xfer_buf[1], sizeof(rs->xfer_buf[1]));
	if (nx < 0 || nc < 0)
		return nx < 0 ? nx : nc;
	msg_init(m, NGAP_INITIATING, NGAP_PROC_HANDOVER_PREPARATION);
	r->amf_ue_id = ue->amf_ue_id;
	r->ran_ue_id = ue->ran_id;
	r->handover_type = NGAP_HO_INTRA_5GS;
	r->cause.group = NGAP_CAUSE_RADIO_NETWORK;
	r->cause.value = CAUSE_RN_HO_DESIRABLE_RADIO;
	r->target.ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(r->target.ran_node_id.plmn.v, rs->plmn, 3);
	r->target.ran_node_id.id = tg->gnb_id;
	r->target.ran_node_id.id_bits = 22;
	memcpy(r->target.tai.plmn.v, rs->plmn, 3);   /* the target's selected TAI (9.3.1.25) */
	r->target.tai.tac[0] = (uint8_t)(rs_gnb_tac(tg) >> 16);
	r->target.tai.tac[1] = (uint8_t)(rs_gnb_tac(tg) >> 8);
	r->target.tai.tac[2] = (uint8_t)rs_gnb_tac(tg);
	/* 9.2.3.1: DirectForwardingPathAvailability when an Xn path to the target exists */
	r->has_direct_forwarding = xt.has_direct_forwarding;
	r->n_sessions = 1;
	r->sessions[0].id = rs->cfg.psi;
	r->sessions[0].transfer.p = rs->xfer_buf[0];
	r->sessions[0].transfer.len = (size_t)nx;
	r->source_to_target.p = rs->xfer_buf[1];
	r->source_to_target.len = (size_t)nc;
	return rs_gnb_send_ue(ue->gnb, ue, m);
}

static int a_start(struct rs_ue *ue, const void *arg)
{
	struct rs_n2ho *h = &ue->n2;
	struct rs_gnb *tg = (struct rs_gnb *)arg;
	int rc;

	h->src = ue->gnb;
	h->tgt = tg;
	h->src_ran_id = ue->ran_id;
	h->src_amf_id = ue->amf_ue_id;
	h->tgt_ctx = false;
	/* a forwarding of an earlier handover whose End Marker never came ends here */
	h->fwd_on = false;
	rc = ho_required(ue, tg);
	if (rc < 0)
		return RS_N2HO_NONE;
	ue->rs->st.n2ho_required++;
	h->attempts++;
	ev_timer_start(ue->rs->loop, &h->timer, T_RELOC_PREP_MS);
	return RS_N2HO_PREP;
}

/* ---- target: HANDOVER REQUEST -> ACKNOWLEDGE or FAILURE (8.4.2) ---- */

/* HANDOVER FAILURE (9.2.3.6): the target allocated no context. */
static void ho_failure(struct rs_gnb *g, const struct rs_ue *ue, uint64_t amf_ue_id, uint8_t cause)
{
	struct ngap_msg *m = &g->rs->tx;

	msg_init(m, NGAP_UNSUCCESSFUL, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION);
	m->u.handover_failure.amf_ue_id = amf_ue_id;
	m->u.handover_failure.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	m->u.handover_failure.cause.value = cause;
	if (ue)
		rs_gnb_send_ue(g, ue, m);
	else
		rs_gnb_send_ue(g, &g->rs->ues[0], m);
	g->rs->st.n2ho_failures_sent++;
}

/* The UE's own chain stepped (on copies) to the network's NCC: the NH must be the one the
 * target got (TS 33.501 6.9.2.3.3: the AMF sends a fresh {NH, NCC} for N2 handover). */
static bool chain_matches(const struct rs_ue *ue, const struct ngap_security_context *sc)
{
	uint8_t ncc = ue->ncc, nh[32];

	memcpy(nh, ue->nh, 32);
	return rs_nh_step(ue->kamf, &ncc, nh, sc->ncc) == 0 && memcmp(nh, sc->nh, 32) == 0;
}

/* The session's Handover Request Transfer (a Setup Request Transfer, 9.3.4.1): the UPF's UL
 * tunnel for the target and the QoS flow. 0, -EAFNOSUPPORT (no UPF address of the target's N3
 * family, TS 38.414 5.1) or -EBADMSG. */
static int take_request_transfer(struct rs_ue *ue, const struct ngap_handover_request *r)
{
	struct ngap_setup_request_transfer t;
	int rc;

	if (r->n_sessions != 1 || r->sessions[0].id != ue->rs->cfg.psi ||
	    ngap_dec_setup_request_transfer(r->sessions[0].transfer.p, r->sessions[0].transfer.len, &t, NULL) < 0 ||
	    !t.n_flows)
		return -EBADMSG;
	rc = rs_tla_get(&t.ul_tunnel, rs_n3_family(ue->rs), &ue->n2.tgt_upf_addr);
	if (rc < 0)
		return rc == -EAFNOSUPPORT ? rc : -EBADMSG;
	ue->n2.tgt_ul_teid = teid_get(t.ul_tunnel.teid);
	if (t.flows[0].qfi != ue->qfi)
		return -EBADMSG;
	return 0;
}

static int ho_request_ack(struct rs_ue *ue, const struct ngap_handover_request *r)
{
	struct ransim *rs = ue->rs;
	struct rs_gnb *tg = ue->n2.tgt;
	struct ngap_msg *m = &rs->tx;
	struct ngap_handover_request_ack *k = &m->u.handover_request_ack;
	struct ngap_ho_request_ack_transfer t;
	int nx, nc;

	/* 9.3.4.11: our DL tunnel, a DL forwarding tunnel (the source proposed forwarding in
	 * the container, 8.4.2.2) and the flow with dataForwardingAccepted */
	memset(&t, 0, sizeof(t));
	gnb_tunnel(tg, RS_GNB_DL_TEID_AT(tg->idx, ue->idx), &t.dl_tunnel);
	t.has_dl_forwarding = true;
	gnb_tunnel(tg, RS_GNB_FWD_TEID_AT(tg->idx, ue->idx), &t.dl_forwarding);
	t.n_flows = 1;
	t.flows[0].qfi = ue->qfi;
	t.flows[0].forwarding_accepted = true;
	nx = ngap_enc_ho_request_ack_transfer(&t, rs->xfer_buf[0], sizeof(rs->xfer_buf[0]));
	nc = rs_enc_t2s_container((uint8_t)ue->handovers, rs->xfer_buf[1], sizeof(rs->xfer_buf[1]));
	if (nx < 0 || nc < 0)
		return nx < 0 ? nx : nc;
	msg_init(m, NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION);
	k->amf_ue_id = r->amf_ue_id;
	k->ran_ue_id = ue->n2.tgt_ran_id;
	k->n_admitted = 1;
	k->admitted[0].id = rs->cfg.psi;
	k->admitted[0].transfer.p = rs->xfer_buf[0];
	k->admitted[0].transfer.len = (size_t)nx;
	k->target_to_source.p = rs->xfer_buf[1];
	k->target_to_source.len = (size_t)nc;
	return rs_gnb_send_ue(tg, ue, m);
}

static int a_ho_request(struct rs_ue *ue, const void *arg)
{
	const struct ngap_handover_request *r = arg;
	struct rs_n2ho *h = &ue->n2;
	struct ransim *rs = ue->rs;
	int rc;

	rs->st.n2ho_requests++;
	if (rs->cfg.handover_fail == RANSIM_HO_FAIL_TARGET) {
		ho_failure(h->tgt, ue, r->amf_ue_id, CAUSE_RN_NO_RADIO_RESOURCES_TARGET);
		return RS_N2HO_PREP;
	}
	rc = r->handover_type != NGAP_HO_INTRA_5GS ? -EBADMSG : take_request_transfer(ue, r);
	if (rc < 0) {
		n2_error(ue, rc == -EAFNOSUPPORT ? "n2ho_request_n3_family" : "n2ho_request_sessions");
		ho_failure(h->tgt, ue, r->amf_ue_id, NGAP_CAUSE_RN_UNSPECIFIED);
		return RS_N2HO_PREP;
	}
	/* the {NCC, NH} for the target's K_gNB (9.3.1.88), kept for the UE's arrival */
	h->sc = r->security_context;
	rs->st.n2ho_ncc_last = r->security_context.ncc;
	if (!chain_matches(ue, &r->security_context))
		n2_error(ue, "n2ho_request_nh_mismatch");
	h->tgt_ran_id = ue->ran_id + rs->cfg.n_ues;   /* ran_id % n_ues = idx, as for Xn */
	h->tgt_amf_id = r->amf_ue_id;
	h->tgt_ctx = true;
	if (ho_request_ack(ue, r) < 0) {
		h->tgt_ctx = false;
		n2_error(ue, "n2ho_request_ack_not_sent");
		return RS_N2HO_PREP;
	}
	h->tgt_fwd_gnb = (int16_t)(h->tgt->idx + 1);   /* its DL forwarding TEID is live */
	rs->st.n2ho_request_acks++;
	return RS_N2HO_PREP;
}

/* ---- source: HANDOVER COMMAND (8.4.1.2) ---- */

/* The Handover Command Transfer (9.3.4.10): the DL forwarding tunnel, the target's own
 * (direct) or the UPF's (indirect). */
static void take_command_transfer(struct rs_ue *ue, const struct ngap_handover_command *c)
{
	struct ransim *rs = ue->rs;
	struct rs_n2ho *h = &ue->n2;
	struct ngap_ho_command_transfer t;
	struct rs_n3_addr own;
	unsigned i;
	int rc;

	for (i = 0; i < c->n_sessions && c->sessions[i].id != rs->cfg.psi; i++)
		;
	if (i == c->n_sessions ||
	    ngap_dec_ho_command_transfer(c->sessions[i].transfer.p, c->sessions[i].transfer.len, &t, NULL) < 0) {
		n2_error(ue, "n2ho_command_transfer");
		return;
	}
	if (!t.has_dl_forwarding) {
		rs->st.n2ho_fwd_none++;
		return;
	}
	/* the source sends on its own N3 socket: an address of its family (TS 38.414 5.1) */
	rc = rs_tla_get(&t.dl_forwarding, rs_n3_family(rs), &h->fwd_addr);
	if (rc < 0) {
		n2_error(ue, rc == -EAFNOSUPPORT ? "n2ho_command_n3_family" : "n2ho_command_fwd_addr");
		return;
	}
	h->fwd_teid = teid_get(t.dl_forwarding.teid);
	h->fwd_src = (uint8_t)h->src->idx;
	h->fwd_on = true;
	rs_gnb_n3_addr(h->tgt, &own);
	if (rs_n3_addr_eq(&own, &h->fwd_addr) && h->fwd_teid == RS_GNB_FWD_TEID_AT(h->tgt->idx, ue->idx))
		rs->st.n2ho_fwd_direct++;
	else
		rs->st.n2ho_fwd_indirect++;
}

/* UPLINK RAN STATUS TRANSFER (8.4.6): DRB 1's PDCP COUNTs, the container kept so that the
 * target can check the AMF relayed it unchanged. */
static int ul_ran_status(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	struct ngap_msg *m = &rs->tx;
	int n = rs_enc_ran_status((uint32_t)rs->n3[ue->gnb->idx].ul_packets, (uint32_t)rs->n3[ue->gnb->idx].dl_packets,
				  ue->n2.status, sizeof(ue->n2.status));

	if (n < 0)
		return n;
	ue->n2.status_len = (uint8_t)n;
	msg_init(m, NGAP_INITIATING, NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER);
	m->u.uplink_ran_status_transfer.amf_ue_id = ue->amf_ue_id;
	m->u.uplink_ran_status_transfer.ran_ue_id = ue->ran_id;
	m->u.uplink_ran_status_transfer.container.p = ue->n2.status;
	m->u.uplink_ran_status_transfer.container.len = (size_t)n;
	return rs_gnb_send_ue(ue->gnb, ue, m);
}

/* HANDOVER CANCEL (8.4.5.2) for the source's context. */
static int ho_cancel(struct rs_ue *ue, uint8_t cause)
{
	struct ngap_msg *m = &ue->rs->tx;

	msg_init(m, NGAP_INITIATING, NGAP_PROC_HANDOVER_CANCEL);
	m->u.handover_cancel.amf_ue_id = ue->amf_ue_id;
	m->u.handover_cancel.ran_ue_id = ue->ran_id;
	m->u.handover_cancel.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	m->u.handover_cancel.cause.value = cause;
	ue->rs->st.n2ho_cancels++;
	return rs_gnb_send_ue(ue->gnb, ue, m);
}

static int a_ho_command(struct rs_ue *ue, const void *arg)
{
	const struct ngap_handover_command *c = arg;
	struct ransim *rs = ue->rs;

	rs->st.n2ho_commands++;
	if (c->handover_type != NGAP_HO_INTRA_5GS || !c->target_to_source.len || c->n_release)
		n2_error(ue, "n2ho_command_content");
	if (rs->cfg.handover_fail == RANSIM_HO_FAIL_CANCEL) {
		/* the UE does not go (8.4.5.1: the source cancels an ongoing handover) */
		RS_HO_NOTE(rs, ue, RS_HO_EV_FAILED, ue->gnb->idx);   /* solocore-load handover */
		ho_cancel(ue, CAUSE_RN_HO_CANCELLED);
		ev_timer_start(rs->loop, &ue->n2.timer, T_RELOC_OVERALL_MS);
		return RS_N2HO_CANCELLING;
	}
	RS_HO_NOTE(rs, ue, RS_HO_EV_PREPARED, ue->gnb->idx);   /* solocore-load handover */
	take_command_transfer(ue, c);
	if (ul_ran_status(ue) < 0)
		n2_error(ue, "n2ho_ul_status_not_sent");
	else
		rs->st.n2ho_ul_status++;
	/* TNGRELOCoverall runs from here; the UE leaves for the target (TS 38.300 9.2.3.2.1) */
	ev_timer_start(rs->loop, &ue->n2.timer, T_ARRIVE_NO_STATUS_MS);
	return RS_N2HO_EXEC;
}

static int a_prep_failure(struct rs_ue *ue, const void *arg)
{
	const struct ngap_handover_preparation_failure *f = arg;

	/* 8.4.1.3: the handover did not happen; the UE stays on the source as it was */
	ue->rs->st.n2ho_prep_failures++;
	ue->rs->st.n2ho_prep_fail_cause = (uint64_t)f->cause.group << 8 | f->cause.value;
	RS_HO_NOTE(ue->rs, ue, RS_HO_EV_FAILED, ue->gnb->idx);   /* solocore-load handover */
	ue->n2.src = ue->n2.tgt = NULL;
	return RS_N2HO_NONE;
}

static int a_prep_timer(struct rs_ue *ue, const void *arg)
{
	(void)arg;
	/* TNGRELOCprep expired (8.4.1.2): cancel the preparation */
	rs_cause_add(ue->rs, "n2ho_tngrelocprep_expiry");
	RS_HO_NOTE(ue->rs, ue, RS_HO_EV_FAILED, ue->gnb->idx);   /* solocore-load handover */
	ho_cancel(ue, CAUSE_RN_TNGRELOCPREP_EXPIRY);
	ev_timer_start(ue->rs->loop, &ue->n2.timer, T_RELOC_OVERALL_MS);
	return RS_N2HO_CANCELLING;
}

/* ---- target: DOWNLINK RAN STATUS TRANSFER (8.4.7), the UE's arrival, HANDOVER NOTIFY (8.4.3) ---- */

static int a_dl_status(struct rs_ue *ue, const void *arg)
{
	const struct ngap_ran_status_transfer *t = arg;

	ue->rs->st.n2ho_dl_status++;
	/* the AMF relays the container as the source made it (TS 38.413 9.3.1.31) */
	if (t->container.len != ue->n2.status_len || memcmp(t->container.p, ue->n2.status, ue->n2.status_len))
		n2_error(ue, "n2ho_dl_status_changed");
	ev_timer_start(ue->rs->loop, &ue->n2.timer, T_ARRIVE_MS);
	return RS_N2HO_ARRIVING;
}

static int ho_notify(struct rs_ue *ue)
{
	struct ngap_msg *m = &ue->rs->tx;
	struct ngap_handover_notify *n = &m->u.handover_notify;

	msg_init(m, NGAP_INITIATING, NGAP_PROC_HANDOVER_NOTIFICATION);
	n->amf_ue_id = ue->n2.tgt_amf_id;
	n->ran_ue_id = ue->n2.tgt_ran_id;
	rs_gnb_uli(ue->n2.tgt, &n->uli);   /* the target's cell and TAI */
	return rs_gnb_send_ue(ue->n2.tgt, ue, m);
}

static int a_arrived(struct rs_ue *ue, const void *arg)
{
	struct rs_n2ho *h = &ue->n2;
	struct ransim *rs = ue->rs;

	if (arg)   /* the timer without a DOWNLINK RAN STATUS TRANSFER */
		rs_cause_add(rs, "n2ho_no_dl_status");
	/* the UE derives the target's K_gNB from {NCC, NH} (TS 33.501 6.9.2.3.3, A.10) */
	if (rs_nh_step(ue->kamf, &ue->ncc, ue->nh, h->sc.ncc) < 0 || memcmp(ue->nh, h->sc.nh, 32))
		n2_error(ue, "n2ho_nh_mismatch");
	if (ho_notify(ue) < 0) {
		n2_error(ue, "n2ho_notify_not_sent");
		RS_HO_NOTE(rs, ue, RS_HO_EV_FAILED, h->tgt->idx);   /* solocore-load handover */
		return RS_N2HO_NOTIFIED;
	}
	rs->st.n2ho_notify++;
	RS_HO_NOTE(rs, ue, ue->fail[0] ? RS_HO_EV_FAILED : RS_HO_EV_DONE, h->tgt->idx);
	/* the UE is the target's from now on: uplink through it on the Handover Request's UL
	 * tunnel, downlink on its TEID once the SMF switched; the old path ends with an End
	 * Marker at the source (TS 23.501 5.8.2.9) */
	ue->gnb = h->tgt;
	ue->ran_id = h->tgt_ran_id;
	ue->amf_ue_id = h->tgt_amf_id;
	ue->n3_ul_teid = h->tgt_ul_teid;
	ue->n3_upf_addr = h->tgt_upf_addr;
	ue->dl_old_gnb = (int16_t)h->src->idx;
	ue->handovers++;
	ev_timer_start(rs->loop, &h->timer, T_RELOC_OVERALL_MS);
	/* TS 23.502 4.9.1.3.3 step 5 / TS 24.501 5.5.1.3.2 a): a TA outside the UE's list */
	if (!ue->fail[0])
		rs_ue_cell_changed(ue, h->tgt);
	return RS_N2HO_NOTIFIED;
}

static int a_exec_timer(struct rs_ue *ue, const void *arg)
{
	(void)arg;
	return a_arrived(ue, ue);
}

/* ---- release of the source (8.3.3, successful-handover) and of the target (cancel) ---- */

static int a_src_release(struct rs_ue *ue, const void *arg)
{
	const struct ngap_ue_context_release_command *c = arg;

	if (c->cause.group != NGAP_CAUSE_RADIO_NETWORK || c->cause.value != CAUSE_RN_SUCCESSFUL_HO)
		n2_error(ue, "n2ho_src_release_cause");
	ue->rs->st.n2ho_src_released++;
	if (!ue->fail[0])
		ue->rs->st.n2ho_done++;
	/* the source's context is gone; forwarding goes on until the End Marker (TS 38.300 9.2.3.2.1) */
	ue->n2.src = ue->n2.tgt = NULL;
	return RS_N2HO_NONE;
}

static int a_overall_timer(struct rs_ue *ue, const void *arg)
{
	(void)arg;
	/* TNGRELOCoverall: no release of the source came; the source forgets the UE */
	n2_error(ue, "n2ho_tngrelocoverall_expiry");
	ue->n2.src = ue->n2.tgt = NULL;
	return RS_N2HO_NONE;
}

static int a_cancel_ack(struct rs_ue *ue, const void *arg)
{
	(void)arg;
	ue->rs->st.n2ho_cancel_acks++;
	return ue->n2.tgt_ctx ? RS_N2HO_CANCEL_ACKED : RS_N2HO_NONE;
}

static int a_tgt_release(struct rs_ue *ue, const void *arg)
{
	(void)arg;
	ue->n2.tgt_ctx = false;
	ue->rs->st.n2ho_tgt_released++;
	if (ue->n2.st == RS_N2HO_PREP)
		return RS_N2HO_PREP;
	return ue->n2.st == RS_N2HO_CANCELLING ? RS_N2HO_CANCEL_TGT_GONE : RS_N2HO_NONE;
}

static int a_timer(struct rs_ue *ue, const void *arg)
{
	switch (ue->n2.st) {
	case RS_N2HO_PREP:
		return a_prep_timer(ue, arg);
	case RS_N2HO_EXEC:
		return a_exec_timer(ue, arg);
	case RS_N2HO_NOTIFIED:
		return a_overall_timer(ue, arg);
	default:
		/* a cancel not acknowledged, or a target never released */
		n2_error(ue, "n2ho_cancel_unanswered");
		ue->n2.tgt_ctx = false;
		return RS_N2HO_NONE;
	}
}

typedef int (*n2ho_action)(struct rs_ue *ue, const void *arg);
static const n2ho_action actions[EV_COUNT] = {
	[EV_START] = a_start, [EV_HO_REQUEST] = a_ho_request, [EV_HO_COMMAND] = a_ho_command,
	[EV_PREP_FAILURE] = a_prep_failure, [EV_DL_STATUS] = a_dl_status, [EV_ARRIVED] = a_arrived,
	[EV_SRC_RELEASE] = a_src_release, [EV_CANCEL_ACK] = a_cancel_ack, [EV_TGT_RELEASE] = a_tgt_release,
	[EV_TIMER] = a_timer,
};

/* The one dispatcher: refuses an event the state does not take (logged, counted), runs the
 * action, checks the transition against the table, logs it. */
static void dispatch(struct rs_ue *ue, enum n2ho_event ev, const void *arg)
{
	struct rs_n2ho *h = &ue->n2;
	unsigned from = h->st;
	int to;

	if (!(states[from].events & EVB(ev))) {
		log_msg(LOGL_INFO, "ransim", ue->sim->supi, "n2ho{%s}: event %s not allowed", states[from].name,
			ev_names[ev]);
		ue->rs->st.n2ho_unexpected++;
		return;
	}
	ev_timer_stop(ue->rs->loop, &h->timer);
	to = actions[ev](ue, arg);
	if (to < 0 || to >= RS_N2HO_STATE_COUNT || !(states[from].next & STB(to))) {
		log_msg(LOGL_ERROR, "ransim", ue->sim->supi, "n2ho{%s}: event %s: transition to %d not allowed",
			states[from].name, ev_names[ev], to);
		return;
	}
	h->st = (uint8_t)to;
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "n2ho{%s}: %s -> %s", states[from].name, ev_names[ev],
		states[to].name);
}

static void timer_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct rs_ue *ue = t->arg;

	(void)loop;
	dispatch(ue, ue->n2.st == RS_N2HO_ARRIVING ? EV_ARRIVED : EV_TIMER, NULL);
}

int rs_n2ho_ue(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	struct rs_gnb *tg = &rs->gnbs[(ue->gnb->idx + 1) % rs->cfg.n_gnbs];

	/* CM-CONNECTED with the user plane up, no handover running */
	if (rs->cfg.n_gnbs < 2 || ue->st != RS_UE_REGISTERED || !ue->sess_up || !ue->n3_ul_teid ||
	    !ue->has_amf_id || ue->ho_pending || ue->fail[0] || !ue->nh_valid || ue->n2.st != RS_N2HO_NONE ||
	    tg->st != RS_GNB_READY || ue->gnb->st != RS_GNB_READY)
		return -EAGAIN;
	if (!ue->n2.timer_init) {
		ev_timer_init(&ue->n2.timer, timer_cb, ue);
		ue->n2.timer_init = true;
	}
	dispatch(ue, EV_START, tg);
	return ue->n2.st == RS_N2HO_PREP ? 0 : -EIO;
}

unsigned rs_n2ho_round(struct ransim *rs)
{
	unsigned i, sent = 0;

	for (i = 0; i < rs->cfg.n_ues; i++)
		if (rs_n2ho_ue(&rs->ues[i]) == 0)
			sent++;
	return sent;
}

/* ---- NGAP routing (gnb.c) ---- */

/* ERROR INDICATION (TS 38.413 8.7.5, 10.6): a UE-associated message for a local UE NGAP ID
 * the gNB does not hold, with the IDs as received, cause unknown-local-UE-NGAP-ID. */
static void error_indication(struct rs_gnb *g, uint64_t amf_ue_id, uint32_t ran_id)
{
	struct ngap_msg *m = &g->rs->tx;
	struct ngap_error_indication *e = &m->u.error_indication;

	msg_init(m, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	e->has_amf_ue_id = e->has_ran_ue_id = e->has_cause = true;
	e->amf_ue_id = amf_ue_id;
	e->ran_ue_id = ran_id;
	e->cause.group = NGAP_CAUSE_RADIO_NETWORK;
	e->cause.value = NGAP_CAUSE_RN_UNKNOWN_LOCAL_UE_NGAP_ID;
	rs_gnb_send_ue(g, &g->rs->ues[ran_id % g->rs->cfg.n_ues], m);
}

/* The UE whose handover context on g holds ran_id (and amf_ue_id): the source's (src) or
 * the target's; else NULL, answered with an ERROR INDICATION and counted, nothing changed. */
static struct rs_ue *ho_ue(struct rs_gnb *g, uint64_t amf_ue_id, uint32_t ran_id, bool src)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = &rs->ues[ran_id % rs->cfg.n_ues];
	const struct rs_n2ho *h = &ue->n2;

	if (h->st != RS_N2HO_NONE &&
	    (src ? h->src == g && h->src_ran_id == ran_id && h->src_amf_id == amf_ue_id
		 : h->tgt == g && h->tgt_ctx && h->tgt_ran_id == ran_id && h->tgt_amf_id == amf_ue_id))
		return ue;
	rs_cause_add(rs, "n2ho_unknown_ue_ngap_id");
	rs->st.n2ho_unexpected++;
	error_indication(g, amf_ue_id, ran_id);
	return NULL;
}

void rs_gnb_ho_request(struct rs_gnb *g, const struct ngap_handover_request *r)
{
	struct ransim *rs = g->rs;
	int idx = rs_dec_s2t_ue(r->source_to_target.p, r->source_to_target.len);
	struct rs_ue *ue = idx >= 0 && (unsigned)idx < rs->cfg.n_ues ? &rs->ues[idx] : NULL;

	if (!ue || ue->n2.st != RS_N2HO_PREP || ue->n2.tgt != g || ue->n2.tgt_ctx) {
		/* a container we cannot place: no context, HANDOVER FAILURE (8.4.2.3) */
		rs_cause_add(rs, "n2ho_request_unknown_ue");
		ho_failure(g, NULL, r->amf_ue_id, NGAP_CAUSE_RN_UNSPECIFIED);
		return;
	}
	dispatch(ue, EV_HO_REQUEST, r);
}

void rs_gnb_ho_command(struct rs_gnb *g, const struct ngap_handover_command *c)
{
	struct rs_ue *ue = ho_ue(g, c->amf_ue_id, c->ran_ue_id, true);

	if (ue)
		dispatch(ue, EV_HO_COMMAND, c);
}

void rs_gnb_ho_prep_failure(struct rs_gnb *g, const struct ngap_handover_preparation_failure *f)
{
	struct rs_ue *ue = ho_ue(g, f->amf_ue_id, f->ran_ue_id, true);

	if (ue)
		dispatch(ue, EV_PREP_FAILURE, f);
}

void rs_gnb_dl_ran_status(struct rs_gnb *g, const struct ngap_ran_status_transfer *t)
{
	struct rs_ue *ue = ho_ue(g, t->amf_ue_id, t->ran_ue_id, false);

	if (ue)
		dispatch(ue, EV_DL_STATUS, t);
}

void rs_gnb_ho_cancel_ack(struct rs_gnb *g, const struct ngap_handover_cancel_ack *k)
{
	struct rs_ue *ue = ho_ue(g, k->amf_ue_id, k->ran_ue_id, true);

	if (ue)
		dispatch(ue, EV_CANCEL_ACK, k);
}

/* The handover context c names on g, if any: source after the notify or in a cancel, or
 * the target's context before the notify. */
static struct rs_ue *release_ue(struct rs_gnb *g, const struct ngap_ue_context_release_command *c, bool *src)
{
	struct ransim *rs = g->rs;
	unsigned i;

	for (i = 0; i < rs->cfg.n_ues; i++) {
		struct rs_ue *ue = &rs->ues[i];
		const struct rs_n2ho *h = &ue->n2;

		if (h->st == RS_N2HO_NONE)
			continue;
		if (c->has_ran_ue_id && ue->idx != c->ran_ue_id % rs->cfg.n_ues)
			continue;
		if (h->tgt == g && h->tgt_ctx && h->st != RS_N2HO_NOTIFIED &&
		    (c->has_ran_ue_id ? h->tgt_ran_id == c->ran_ue_id : h->tgt_amf_id == c->amf_ue_id)) {
			*src = false;
			return ue;
		}
		if (h->src == g && h->st == RS_N2HO_NOTIFIED &&
		    (c->has_ran_ue_id ? h->src_ran_id == c->ran_ue_id : h->src_amf_id == c->amf_ue_id)) {
			*src = true;
			return ue;
		}
	}
	return NULL;
}

bool rs_n2ho_release_cmd(struct rs_gnb *g, const struct ngap_ue_context_release_command *c)
{
	struct ngap_msg *m = &g->rs->tx;
	struct rs_ue *ue;
	bool src = false;

	ue = release_ue(g, c, &src);
	if (!ue)
		return false;
	/* TS 38.413 8.3.3.2: the context released, COMPLETE with the pair of IDs */
	msg_init(m, NGAP_SUCCESSFUL, NGAP_PROC_UE_CONTEXT_RELEASE);
	m->u.ue_context_release_complete.amf_ue_id = src ? ue->n2.src_amf_id : ue->n2.tgt_amf_id;
	m->u.ue_context_release_complete.ran_ue_id = src ? ue->n2.src_ran_id : ue->n2.tgt_ran_id;
	rs_gnb_send_ue(g, ue, m);
	dispatch(ue, src ? EV_SRC_RELEASE : EV_TGT_RELEASE, c);
	return true;
}

/* ---- user plane (gtpu.c) ---- */

bool rs_n2ho_src_forward(struct ransim *rs, struct rs_ue *ue, unsigned gi, uint8_t *p, size_t len, bool end_marker)
{
	struct rs_n2ho *h = &ue->n2;

	if (!h->fwd_on || gi != h->fwd_src)
		return false;
	/* TS 23.501 5.8.2.9 / TS 38.300 9.2.3.2.1: the source sends the DL data, and the End
	 * Marker, on to the forwarding tunnel; the packet as it came, on the forwarding TEID */
	teid_put(p + 4, h->fwd_teid);
	if (rs_gtpu_send(rs, &h->fwd_addr, p, len) == 0) {
		if (end_marker)
			rs->st.n2ho_fwd_em_sent++;
		else
			rs->st.n2ho_fwd_sent++;
	}
	if (end_marker)
		h->fwd_on = false;   /* nothing follows the End Marker on the old path */
	return !end_marker;
}

bool rs_n2ho_fwd_arrived(struct ransim *rs, unsigned idx, unsigned gi, bool end_marker)
{
	struct rs_ue *ue = idx < rs->cfg.n_ues ? &rs->ues[idx] : NULL;

	/* the target's forwarding TEID is valid from its acknowledge on (and keeps taking what
	 * was in flight after the notify) */
	if (!ue || ue->n2.tgt_fwd_gnb != (int16_t)gi + 1) {
		rs->st.n2ho_fwd_unknown++;
		return false;
	}
	if (end_marker)
		rs->st.n2ho_fwd_em_rx++;
	else
		rs->st.n2ho_fwd_rx++;
	return true;
}

void rs_n2ho_free(struct ransim *rs)
{
	unsigned i;

	for (i = 0; i < rs->cfg.n_ues; i++)
		if (rs->ues[i].n2.timer_init)
			ev_timer_stop(rs->loop, &rs->ues[i].n2.timer);
}

int ransim_ue_n2ho(const struct ransim *rs, unsigned idx, unsigned *state, unsigned *gnb)
{
	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	*state = rs->ues[idx].n2.st;
	*gnb = rs->ues[idx].gnb->idx;
	return 0;
}

static int n2_check(const struct ransim_stats *s, enum ransim_ho_fail fail, char *why, size_t cap)
{
	unsigned long long n = s->n2ho_required;
	bool ok;

	if (fail == RANSIM_HO_FAIL_TARGET)
		ok = s->n2ho_prep_failures == n && s->n2ho_failures_sent == n && !s->n2ho_notify;
	else if (fail == RANSIM_HO_FAIL_CANCEL)
		ok = s->n2ho_cancel_acks == n && s->n2ho_tgt_released == n && !s->n2ho_notify;
	else
		ok = s->n2ho_done == n && s->n2ho_notify == n && s->n2ho_src_released == n;
	if (ok && n && !s->n2ho_errors && !s->n2ho_unexpected)
		return 0;
	snprintf(why, cap, "N2 handover: %llu required, %llu commands, %llu preparation failures, %llu notified, "
		 "%llu done, %llu cancel acknowledged, %llu targets released, %llu errors, %llu unexpected", n,
		 (unsigned long long)s->n2ho_commands, (unsigned long long)s->n2ho_prep_failures,
		 (unsigned long long)s->n2ho_notify, (unsigned long long)s->n2ho_done,
		 (unsigned long long)s->n2ho_cancel_acks, (unsigned long long)s->n2ho_tgt_released,
		 (unsigned long long)s->n2ho_errors, (unsigned long long)s->n2ho_unexpected);
	return -1;
}

int ransim_handover_check(const struct ransim *rs, char *why, size_t cap)
{
	const struct ransim_stats *s = &rs->st;

	if (rs->cfg.handover_mode != RANSIM_HO_XN)
		return n2_check(s, rs->cfg.handover_fail, why, cap);
	if (s->ps_sent && s->ps_acked == s->ps_sent && !s->ps_errors)
		return 0;
	snprintf(why, cap, "Xn handover: %llu path switches sent, %llu acknowledged, %llu failed, %llu errors",
		 (unsigned long long)s->ps_sent, (unsigned long long)s->ps_acked, (unsigned long long)s->ps_failed,
		 (unsigned long long)s->ps_errors);
	return -1;
}
