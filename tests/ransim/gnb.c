/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gNB: one SCTP association to each AMF of the set (common/sctp), NG Setup on
 * each (TS 38.413 8.7.1; with several AMFs the selection and failover are gnb_amf.c's),
 * then routing of UE-associated NGAP by RAN-UE-NGAP-ID to the UE state machines, and the
 * gNB's own answers: Initial Context Setup Response (8.3.1), UE Context Release Complete
 * (8.3.3); the modification procedures are gnb_mod.c's, the Xn handover gnb_xn.c's, the N2
 * handover gnb_n2ho.c's. Non-UE signalling uses stream 0, each UE a stream of 1..ostreams-1 (TS 38.412 7).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"
#include "testlib.h"

static void gnb_log(enum log_level lvl, const struct rs_gnb *g, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void gnb_log(enum log_level lvl, const struct rs_gnb *g, const char *fmt, ...)
{
	char obj[32];
	va_list ap;

	if (!log_enabled(lvl, "ransim"))
		return;
	snprintf(obj, sizeof(obj), "gnb=%u", g->idx);
	va_start(ap, fmt);
	log_vmsg(lvl, "ransim", obj, fmt, ap);
	va_end(ap);
}

void rs_uli(const struct ransim *rs, struct ngap_uli *uli)
{
	memset(uli, 0, sizeof(*uli));
	memcpy(uli->nr_cgi.plmn.v, rs->plmn, 3);
	uli->nr_cgi.cell_id = 0x10;
	memcpy(uli->tai.plmn.v, rs->plmn, 3);
	uli->tai.tac[0] = (uint8_t)(rs->cfg.tac >> 16);
	uli->tai.tac[1] = (uint8_t)(rs->cfg.tac >> 8);
	uli->tai.tac[2] = (uint8_t)rs->cfg.tac;
}

uint32_t rs_gnb_tac(const struct rs_gnb *g)
{
	const struct ransim_cfg *c = &g->rs->cfg;

	return g->idx < c->n_gnb_tacs ? c->gnb_tacs[g->idx] : c->tac;
}

void rs_gnb_uli(const struct rs_gnb *g, struct ngap_uli *uli)
{
	uint32_t tac = rs_gnb_tac(g);

	rs_uli(g->rs, uli);
	uli->nr_cgi.cell_id = 0x10 + g->idx;   /* one cell per gNB */
	uli->tai.tac[0] = (uint8_t)(tac >> 16);
	uli->tai.tac[1] = (uint8_t)(tac >> 8);
	uli->tai.tac[2] = (uint8_t)tac;
}

static int gnb_send(struct rs_n2 *l, uint16_t stream, const struct ngap_msg *m)
{
	struct rs_gnb *g = l->g;
	struct ransim *rs = g->rs;
	int n = ngap_encode(m, rs->ngap_buf, sizeof(rs->ngap_buf));

	if (n < 0) {
		gnb_log(LOGL_ERROR, g, "encoding %s failed: %d", ngap_msg_name(m->type, m->proc), n);
		return n;
	}
	if (!l->a || l->st == RS_GNB_DOWN)
		return -ENOTCONN;
	n = n2sctp_send(l->a, stream, N2SCTP_PPID_NGAP, rs->ngap_buf, (size_t)n) < 0 ? -EIO : n;
	if (n < 0)
		return n;
	rs->st.ngap_tx++;
	rs_count_ngap(rs, 0, rs->ngap_buf, (size_t)n);
	if (rs->pcap)
		pcapw_sctp(rs->pcap, g->local_ip, l->peer_ip, l->local_port, l->peer_port, stream,
			   N2SCTP_PPID_NGAP, rs->ngap_buf, (size_t)n);
	return 0;
}

static uint16_t ue_stream(const struct rs_n2 *l, const struct rs_ue *ue)
{
	return l->ostreams > 1 ? (uint16_t)(1 + ue->idx % (l->ostreams - 1u)) : 0;
}

/* On the association of the UE's AMF (its UE-associated logical NG connection). */
int rs_gnb_send_ue(struct rs_gnb *g, const struct rs_ue *ue, const struct ngap_msg *m)
{
	struct rs_n2 *l = &g->n2[ue->amf < g->rs->n_amfs ? ue->amf : 0];

	return gnb_send(l, ue_stream(l, ue), m);
}

/* The gNB's state from its associations' (struct rs_gnb). */
static void gnb_state_update(struct rs_gnb *g)
{
	unsigned i, ready = 0, pending = 0;

	if (g->rs->n_amfs == 1) {
		g->st = g->n2[0].st;
		return;
	}
	for (i = 0; i < g->rs->n_amfs; i++) {
		ready += g->n2[i].st == RS_GNB_READY;
		pending += g->n2[i].st == RS_GNB_CONNECTING || g->n2[i].st == RS_GNB_SETUP;
	}
	g->st = pending ? RS_GNB_SETUP : ready ? RS_GNB_READY : RS_GNB_DOWN;
}

static void ng_setup(struct rs_n2 *l)
{
	struct rs_gnb *g = l->g;
	struct ransim *rs = g->rs;
	struct ngap_msg *m = &rs->tx;
	struct ngap_ng_setup_request *r = &m->u.ng_setup_request;
	static const char name[] = "ransim";
	struct ngap_supported_ta *ta;

	memset(m, 0, sizeof(*m));
	m->type = NGAP_INITIATING;
	m->proc = NGAP_PROC_NG_SETUP;
	r->ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(r->ran_node_id.plmn.v, rs->plmn, 3);
	r->ran_node_id.id = g->gnb_id;
	r->ran_node_id.id_bits = 22;
	r->ran_node_name.p = (const uint8_t *)name;
	r->ran_node_name.len = sizeof(name) - 1;
	r->n_tas = 1;
	ta = &r->tas[0];
	ta->tac[0] = (uint8_t)(rs_gnb_tac(g) >> 16);
	ta->tac[1] = (uint8_t)(rs_gnb_tac(g) >> 8);
	ta->tac[2] = (uint8_t)rs_gnb_tac(g);
	ta->n_plmns = 1;
	memcpy(ta->plmns[0].plmn.v, rs->plmn, 3);
	ta->plmns[0].n_slices = 1;
	ta->plmns[0].slices[0].sst = rs->cfg.sst;
	if (rs->cfg.sd != 0xffffff) {
		ta->plmns[0].slices[0].has_sd = true;
		ta->plmns[0].slices[0].sd[0] = (uint8_t)(rs->cfg.sd >> 16);
		ta->plmns[0].slices[0].sd[1] = (uint8_t)(rs->cfg.sd >> 8);
		ta->plmns[0].slices[0].sd[2] = (uint8_t)rs->cfg.sd;
	}
	r->default_paging_drx = 1; /* v64 */
	l->t_setup = rs_now_ns();
	rs->st.started[RANSIM_P_NG_SETUP]++;
	l->st = RS_GNB_SETUP;
	gnb_state_update(g);
	if (gnb_send(l, 0, m) < 0)
		gnb_log(LOGL_ERROR, g, "NG Setup Request not sent");
}

/* Every unfinished UE of g fails with cause (the gNB is gone for good). */
static void fail_ues(struct rs_gnb *g, const char *cause)
{
	struct ransim *rs = g->rs;
	unsigned i;

	if (rs->cfg.passes > 1)
		rs->stopping = true;   /* later passes cannot run on this gNB */
	for (i = 0; i < rs->cfg.n_ues; i++) {
		struct rs_ue *ue = &rs->ues[i];

		if (ue->gnb != g || ue->finished)
			continue;
		rs_ue_fail(ue, cause);
		if (ue->started) {
			rs_ue_assoc_lost(ue);
		} else {
			/* never started: account it here so that the run ends */
			ue->started = true;
			ue->finished = true;
			ue->runs++;
			rs_ue_finished(ue);
		}
	}
}

static void on_up(struct n2sctp_assoc *a, const struct sockaddr *peer, socklen_t peerlen, void *arg)
{
	struct rs_n2 *l = arg;

	(void)peer;
	(void)peerlen;
	l->a = a;
	l->ostreams = n2sctp_assoc_ostreams(a);
	l->local_port = n2sctp_local_port(n2sctp_assoc_endpoint(a));
	gnb_log(LOGL_INFO, l->g, "association %u up, %u outbound streams", l->ai, l->ostreams);
	ng_setup(l);
}

struct rs_ue *rs_gnb_ue(struct rs_gnb *g, uint32_t ran_ue_id)
{
	struct ransim *rs = g->rs;

	struct rs_ue *ue = rs->adv ? rs_adv_forger(rs, g, ran_ue_id) : NULL;

	if (ue)
		return ue;
	ue = &rs->ues[ran_ue_id % rs->cfg.n_ues];
	/* the UE's logical NG connection is with one AMF: on another association it is unknown */
	if (ue->ran_id != ran_ue_id || ue->gnb != g || !ue->started || ue->amf != g->rx_amf) {
		gnb_log(LOGL_WARN, g, "PDU for unknown RAN-UE-NGAP-ID %u", ran_ue_id);
		rs_cause_add(rs, "unknown_ran_ue_id");
		return NULL;
	}
	return ue;
}

/* TS 38.413 8.7.3.2: an AMF CONFIGURATION UPDATE is acknowledged (the TNL association lists
 * we do not code are never sent to us). The AMF also uses one to ask whether this
 * association is still there when another claims our Global RAN Node ID (issue 31). */
static void on_amf_cfg_update(struct rs_n2 *l)
{
	struct ngap_msg *tx = &l->g->rs->tx;

	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_SUCCESSFUL;
	tx->proc = NGAP_PROC_AMF_CONFIGURATION_UPDATE;
	l->g->rs->st.amf_cfg_updates++;
	gnb_send(l, 0, tx);
}

static void on_ng_setup(struct rs_n2 *l, const struct ngap_ng_setup_response *r)
{
	struct rs_gnb *g = l->g;
	struct ransim *rs = g->rs;
	unsigned i;

	if (!r) {
		gnb_log(LOGL_ERROR, g, "NG Setup Failure (AMF %u)", l->ai);
		rs_cause_add(rs, "ng_setup_failure");
		l->st = RS_GNB_DOWN;
		gnb_state_update(g);
		if (g->st == RS_GNB_DOWN)
			fail_ues(g, "ng_setup_failure");
		else if (g->st == RS_GNB_READY)
			rs_schedule(rs);
		return;
	}
	rs->st.done[RANSIM_P_NG_SETUP]++;
	rs_lat_add(&rs->lat[RANSIM_P_NG_SETUP], (uint32_t)((rs_now_ns() - l->t_setup) / 1000));
	rs_gnb_amf_setup(l, r);
	l->st = RS_GNB_READY;
	gnb_state_update(g);
	gnb_log(LOGL_INFO, g, "NG Setup done (AMF %u)", l->ai);
	if (g->st != RS_GNB_READY)
		return;   /* another AMF's NG Setup is still outstanding: UEs start after it */
	/* UEs interrupted by a reconnect (drop_assoc) start again. */
	for (i = 0; i < rs->cfg.n_ues; i++)
		if (rs->ues[i].gnb == g && rs->ues[i].started && !rs->ues[i].finished && rs->ues[i].st == RS_UE_NULL)
			rs_ue_start(&rs->ues[i]);
	/* after a restart (rs_gnb_restart): each CM-IDLE UE with a session asks for its user
	 * plane back, TS 24.501 5.6.1.2 (uplink data pending for its PSI) */
	for (i = 0; i < rs->cfg.n_ues; i++) {
		struct rs_ue *ue = &rs->ues[i];

		if (ue->gnb == g && ue->restart_idle && ue->st == RS_UE_REGISTERED) {
			ue->restart_idle = false;
			ue->restart_wait = true;
			rs_sm_service_request(ue);
		}
	}
	rs_schedule(rs);
}

/* drop_assoc scenario: peek at a plain NAS message type (TS 24.501 9.7: octet 3). */
static bool is_plain_auth_request(const struct ngap_bytes *nas)
{
	return nas->len >= 3 && nas->p[0] == NAS_EPD_5GMM && (nas->p[1] & 0x0f) == 0 &&
	       nas->p[2] == NAS_AUTHENTICATION_REQUEST;
}

void rs_gnb_abort(struct rs_gnb *g)
{
	for (unsigned i = 0; i < RS_AMF_MAX; i++) {
		n2sctp_free(g->n2[i].ep);   /* aborts the association, no callbacks */
		g->n2[i].ep = NULL;
		g->n2[i].a = NULL;
		g->n2[i].st = RS_GNB_DOWN;
		g->sel.e[i].ready = false;
	}
	g->st = RS_GNB_DOWN;
}

void rs_gnb_shutdown(struct rs_gnb *g)
{
	for (unsigned i = 0; i < RS_AMF_MAX; i++) {
		struct rs_n2 *l = &g->n2[i];

		if (l->a && l->st != RS_GNB_DOWN) {
			l->st = RS_GNB_DOWN;
			g->sel.e[i].ready = false;
			n2sctp_shutdown(l->a);
			g->st = RS_GNB_DOWN;
		}
	}
}

static void reconnect_cb(void *arg)
{
	struct rs_gnb *g = arg;

	if (rs_gnb_connect(g) < 0) {
		rs_cause_add(g->rs, "reconnect_failed");
		fail_ues(g, "reconnect_failed");
	}
}

/* --restart-after: the gNB restarts. Its state machine: READY -> (ABORT of the association,
 * every UE context on it gone) DOWN -> CONNECTING -> SETUP (a fresh NG Setup) -> READY. For
 * the core this is the loss of the N2 association: an AN release of every UE on it, sessions
 * and addresses kept, user planes deactivated (TS 23.502 4.2.6, TS 23.527). Each UE that held
 * a PDU session is then CM-IDLE (REGISTERED, no N2 connection, no user plane) until the NG
 * Setup completes, when it sends a SERVICE REQUEST (on_ng_setup). Nothing allocated. */
void rs_gnb_restart(struct rs_gnb *g)
{
	struct ransim *rs = g->rs;
	unsigned i;

	gnb_log(LOGL_INFO, g, "restart: ABORT of the association, then a fresh NG Setup");
	rs->st.gnb_restarts++;
	rs_gnb_abort(g);
	for (i = 0; i < rs->cfg.n_ues; i++) {
		struct rs_ue *ue = &rs->ues[i];

		if (ue->gnb != g || ue->st != RS_UE_REGISTERED || !ue->sess_up || ue->fail[0])
			continue;
		ue->sess_up = false;         /* no uplink until the session is set up again */
		ue->n3_ul_teid = 0;          /* the restarted gNB forgot its tunnels */
		ue->has_amf_id = false;
		ue->restart_idle = true;
		rs->st.restart_ues++;
	}
	ev_defer(rs->loop, reconnect_cb, g);
}

void rs_gnb_drop(struct rs_gnb *g)
{
	struct ransim *rs = g->rs;
	unsigned i;

	gnb_log(LOGL_INFO, g, "dropping the association (ABORT) mid-registration");
	rs->st.assoc_drops++;
	rs_gnb_abort(g);
	for (i = 0; i < rs->cfg.n_ues; i++)
		if (rs->ues[i].gnb == g && rs->ues[i].started && !rs->ues[i].finished)
			rs_ue_reset(&rs->ues[i]);
	ev_defer(rs->loop, reconnect_cb, g);
}

static void on_dl_nas(struct rs_gnb *g, const struct ngap_downlink_nas_transport *d)
{
	struct rs_ue *ue = rs_gnb_ue(g, d->ran_ue_id);

	if (!ue)
		return;
	if (g->rs->amf_ids && (!ue->has_amf_id || ue->amf_ue_id != d->amf_ue_id) && !ue->forger)
		fprintf(g->rs->amf_ids, "%s %llu\n", ue->sim->supi, (unsigned long long)d->amf_ue_id);
	ue->amf_ue_id = d->amf_ue_id;
	ue->has_amf_id = true;
	if (g->rs->cfg.drop_assoc && !g->rs->dropped_once && is_plain_auth_request(&d->nas)) {
		g->rs->dropped_once = true;
		rs_gnb_drop(g);
		return;
	}
	rs_ue_nas_rx(ue, d->nas.p, d->nas.len);
}

/* TS 38.413 8.14.1: the gNB's optional UE Radio Capability Info Indication after ICS. */
static void radio_cap(struct rs_gnb *g, const struct rs_ue *ue)
{
	/* a minimal UERadioCapability (TS 38.331) stand-in: the AMF stores it opaquely */
	static const uint8_t cap[] = { 0x04, 0x00, 0x01, 0x00 };
	struct ngap_msg *m = &g->rs->tx;

	memset(m, 0, sizeof(*m));
	m->type = NGAP_INITIATING;
	m->proc = NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION;
	m->u.ue_radio_capability_info_indication.amf_ue_id = ue->amf_ue_id;
	m->u.ue_radio_capability_info_indication.ran_ue_id = ue->ran_id;
	m->u.ue_radio_capability_info_indication.ue_radio_capability.p = cap;
	m->u.ue_radio_capability_info_indication.ue_radio_capability.len = sizeof(cap);
	rs_gnb_send_ue(g, ue, m);
}

static void on_ics_request(struct rs_gnb *g, const struct ngap_initial_context_setup_request *r)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = rs_gnb_ue(g, r->ran_ue_id);
	struct ngap_msg *m = &rs->tx;
	struct ngap_initial_context_setup_response *rsp = &m->u.initial_context_setup_response;
	unsigned i;
	int n;

	if (!ue)
		return;
	ue->amf_ue_id = r->amf_ue_id;
	ue->has_amf_id = true;
	rs_ue_check_kgnb(ue, r->security_key);
	ue->as_caps = r->ue_sec_cap;   /* the AS context, handed to a target over Xn */
	if (r->has_ue_ambr)   /* TS 38.413 9.2.2.1 */
		rs_gnb_take_ue_ambr(ue, &r->ue_ambr);
	/* TS 38.413 8.3.1.2: the gNB answers once the UE context (and the PDU session
	 * resources of a service request, 19) are set up. */
	memset(m, 0, sizeof(*m));
	m->type = NGAP_SUCCESSFUL;
	m->proc = NGAP_PROC_INITIAL_CONTEXT_SETUP;
	rsp->amf_ue_id = ue->amf_ue_id;
	rsp->ran_ue_id = ue->ran_id;
	for (i = 0; i < r->n_sessions && i < 4; i++) {
		n = rs_sm_setup_item(ue, &r->sessions[i], rs->xfer_buf[i], sizeof(rs->xfer_buf[i]));
		if (n < 0)
			continue;
		rsp->setup[rsp->n_setup].id = r->sessions[i].id;
		rsp->setup[rsp->n_setup].transfer.p = rs->xfer_buf[i];
		rsp->setup[rsp->n_setup].transfer.len = (size_t)n;
		rsp->n_setup++;
	}
	rs_gnb_send_ue(g, ue, m);
	if (rs->cfg.radio_cap)
		radio_cap(g, ue);
	if (r->nas.len)
		rs_ue_nas_rx(ue, r->nas.p, r->nas.len);
}

/* 12-13: PDU Session Resource Setup Request (TS 38.413 8.2.1): answer, then the NAS to the UE. */
static void on_pdu_setup(struct rs_gnb *g, const struct ngap_pdu_session_resource_setup_request *r)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = rs_gnb_ue(g, r->ran_ue_id);
	struct ngap_msg *m = &rs->tx;
	struct ngap_pdu_session_resource_setup_response *rsp = &m->u.pdu_session_resource_setup_response;
	const struct ngap_bytes *nas = r->nas.len ? &r->nas : NULL;
	unsigned i;
	int n;

	if (!ue)
		return;
	ue->amf_ue_id = r->amf_ue_id;
	if (r->has_ue_ambr)   /* TS 38.413 9.2.1.1 */
		rs_gnb_take_ue_ambr(ue, &r->ue_ambr);
	memset(m, 0, sizeof(*m));
	m->type = NGAP_SUCCESSFUL;
	m->proc = NGAP_PROC_PDU_SESSION_RESOURCE_SETUP;
	rsp->amf_ue_id = ue->amf_ue_id;
	rsp->ran_ue_id = ue->ran_id;
	for (i = 0; i < r->n_sessions && i < 4; i++) {
		if (!nas && r->sessions[i].nas.len)
			nas = &r->sessions[i].nas;
		n = rs_sm_setup_item(ue, &r->sessions[i], rs->xfer_buf[i], sizeof(rs->xfer_buf[i]));
		if (n < 0)
			continue;
		rsp->setup[rsp->n_setup].id = r->sessions[i].id;
		rsp->setup[rsp->n_setup].transfer.p = rs->xfer_buf[i];
		rsp->setup[rsp->n_setup].transfer.len = (size_t)n;
		rsp->n_setup++;
	}
	rs_gnb_send_ue(g, ue, m);
	if (nas)
		rs_ue_nas_rx(ue, nas->p, nas->len);
	else
		rs_ue_fail(ue, "setup_request_without_nas");
}

/* 21-22: PDU Session Resource Release Command (TS 38.413 8.2.2): answer, then the NAS. The
 * same whether it answers the UE's PDU SESSION RELEASE REQUEST or the AMF releases on its own
 * (a network-requested release, TS 23.502 4.3.4.2): 8.2.2.2, the NG-RAN node releases the
 * resources of every listed session and lists each in the RESPONSE, then hands the NAS-PDU
 * (optional, 9.2.1.3) to the UE. The simulator's UEs hold only cfg.psi: another PSI, or none
 * at all, is the core's mistake and the UE's failure cause. */
static void on_pdu_release(struct rs_gnb *g, const struct ngap_pdu_session_resource_release_command *c)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = rs_gnb_ue(g, c->ran_ue_id);
	struct ngap_msg *m = &rs->tx;
	struct ngap_pdu_session_resource_release_response *rsp = &m->u.pdu_session_resource_release_response;
	struct ngap_release_response_transfer rt;
	unsigned i;
	int n;

	if (!ue)
		return;
	memset(&rt, 0, sizeof(rt));
	n = ngap_enc_release_response_transfer(&rt, rs->xfer_buf[0], sizeof(rs->xfer_buf[0]));
	memset(m, 0, sizeof(*m));
	m->type = NGAP_SUCCESSFUL;
	m->proc = NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE;
	rsp->amf_ue_id = c->amf_ue_id;
	rsp->ran_ue_id = ue->ran_id;
	for (i = 0; i < c->n_sessions && i < NGAP_MAX_PDU_SESSIONS && n > 0; i++) {
		rsp->sessions[i].id = c->sessions[i].id;
		rsp->sessions[i].transfer.p = rs->xfer_buf[0];
		rsp->sessions[i].transfer.len = (size_t)n;
		rsp->n_sessions++;
	}
	if (c->n_sessions == 0)
		rs_ue_fail(ue, "release_command_sessions");
	for (i = 0; i < c->n_sessions && i < NGAP_MAX_PDU_SESSIONS; i++) {
		if (c->sessions[i].id != rs->cfg.psi)
			rs_ue_fail(ue, "release_command_unknown_psi");
		else
			ue->n3_ul_teid = 0;   /* the tunnel is gone: no more uplink on it */
	}
	rs_gnb_send_ue(g, ue, m);
	/* without a NAS-PDU the 5GSM message comes (if at all) in a DL NAS TRANSPORT; a UE waiting
	 * for its release runs into its guard timer if it never does */
	if (c->nas.len)
		rs_ue_nas_rx(ue, c->nas.p, c->nas.len);
}

int rs_gnb_release_request(struct rs_gnb *g, const struct rs_ue *ue)
{
	struct ngap_msg *m = &g->rs->tx;

	memset(m, 0, sizeof(*m));
	m->type = NGAP_INITIATING;
	m->proc = NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST;
	m->u.ue_context_release_request.amf_ue_id = ue->amf_ue_id;
	m->u.ue_context_release_request.ran_ue_id = ue->ran_id;
	m->u.ue_context_release_request.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	m->u.ue_context_release_request.cause.value = NGAP_CAUSE_RN_USER_INACTIVITY;
	if (ue->sess_up) {
		/* TS 38.413 9.2.2.4: the sessions with active resources */
		m->u.ue_context_release_request.n_sessions = 1;
		m->u.ue_context_release_request.session_ids[0] = g->rs->cfg.psi;
	}
	return rs_gnb_send_ue(g, ue, m);
}

static void on_release_cmd(struct rs_gnb *g, const struct ngap_ue_context_release_command *c)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = NULL;
	struct ngap_msg *m = &rs->tx;
	unsigned i;

	if (rs_n2ho_release_cmd(g, c))
		return;   /* a context of an N2 handover (gnb_n2ho.c) */
	if (c->has_ran_ue_id) {
		ue = rs_gnb_ue(g, c->ran_ue_id);
	} else {
		for (i = 0; i < rs->cfg.n_ues; i++)
			if (rs->ues[i].gnb == g && rs->ues[i].amf == g->rx_amf && rs->ues[i].has_amf_id &&
			    rs->ues[i].amf_ue_id == c->amf_ue_id)
				ue = &rs->ues[i];
	}
	if (!ue)
		return;
	/* TS 38.413 8.3.3.2 */
	memset(m, 0, sizeof(*m));
	m->type = NGAP_SUCCESSFUL;
	m->proc = NGAP_PROC_UE_CONTEXT_RELEASE;
	m->u.ue_context_release_complete.amf_ue_id = c->amf_ue_id;
	m->u.ue_context_release_complete.ran_ue_id = ue->ran_id;
	rs_gnb_send_ue(g, ue, m);
	if (ue->forger) {
		rs_adv_forger_release(ue);
		return;
	}
	if (rs->adv)
		rs_adv_victim_release(ue);
	rs_ue_release_cmd(ue);
}

static void on_data(struct n2sctp_assoc *a, uint16_t stream, uint32_t ppid, const uint8_t *buf, size_t len,
		    void *arg)
{
	struct rs_n2 *l = arg;
	struct rs_gnb *g = l->g;
	struct ransim *rs = g->rs;
	struct ngap_msg *m = &rs->rx;
	struct ngap_dec_info info;
	int rc;

	(void)a;
	g->rx_amf = l->ai;
	rs->st.ngap_rx++;
	rs_count_ngap(rs, 1, buf, len);
	if (rs->pcap)
		pcapw_sctp(rs->pcap, l->peer_ip, g->local_ip, l->peer_port, l->local_port, stream, ppid, buf, len);
	memset(&info, 0, sizeof(info));
	rc = ngap_decode(buf, len, m, &info);
	if (rc < 0) {
		gnb_log(LOGL_WARN, g, "undecodable NGAP PDU (%d: %s)", rc, info.why ? info.why : "-");
		rs_cause_add(rs, "ngap_undecodable");
		return;
	}
	/* TS 38.412 7: stream 0 carries only non-UE-associated signalling, and it all. */
	if ((stream == 0) != (m->proc == NGAP_PROC_NG_SETUP || m->proc == NGAP_PROC_NG_RESET ||
			      m->proc == NGAP_PROC_AMF_CONFIGURATION_UPDATE ||
			      m->proc == NGAP_PROC_RAN_CONFIGURATION_UPDATE ||
			      (m->proc == NGAP_PROC_ERROR_INDICATION && stream == 0))) {
		gnb_log(LOGL_WARN, g, "%s on stream %u", ngap_msg_name(m->type, m->proc), stream);
		rs->st.stream_violations++;
	}
	if (rs_guess_answer(g, m))
		return;   /* --ps-guess (n2_guess.c) */
	if (m->type == NGAP_SUCCESSFUL && m->proc == NGAP_PROC_NG_SETUP)
		on_ng_setup(l, &m->u.ng_setup_response);
	else if (m->type == NGAP_UNSUCCESSFUL && m->proc == NGAP_PROC_NG_SETUP)
		on_ng_setup(l, NULL);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_DOWNLINK_NAS_TRANSPORT)
		on_dl_nas(g, &m->u.downlink_nas_transport);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_INITIAL_CONTEXT_SETUP)
		on_ics_request(g, &m->u.initial_context_setup_request);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_PDU_SESSION_RESOURCE_SETUP)
		on_pdu_setup(g, &m->u.pdu_session_resource_setup_request);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE)
		on_pdu_release(g, &m->u.pdu_session_resource_release_command);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_UE_CONTEXT_RELEASE)
		on_release_cmd(g, &m->u.ue_context_release_command);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_UE_CONTEXT_MODIFICATION)
		rs_gnb_ue_ctx_mod(g, &m->u.ue_context_modification_request);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY)
		rs_gnb_pdu_modify(g, &m->u.pdu_session_resource_modify_request);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_AMF_CONFIGURATION_UPDATE)
		on_amf_cfg_update(l);
	else if (m->type == NGAP_SUCCESSFUL && m->proc == NGAP_PROC_PATH_SWITCH_REQUEST)
		rs_gnb_ps_ack(g, &m->u.path_switch_request_ack);
	else if (m->type == NGAP_UNSUCCESSFUL && m->proc == NGAP_PROC_PATH_SWITCH_REQUEST)
		rs_gnb_ps_failure(g, &m->u.path_switch_request_failure);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION)
		rs_gnb_ho_request(g, &m->u.handover_request);
	else if (m->type == NGAP_SUCCESSFUL && m->proc == NGAP_PROC_HANDOVER_PREPARATION)
		rs_gnb_ho_command(g, &m->u.handover_command);
	else if (m->type == NGAP_UNSUCCESSFUL && m->proc == NGAP_PROC_HANDOVER_PREPARATION)
		rs_gnb_ho_prep_failure(g, &m->u.handover_preparation_failure);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER)
		rs_gnb_dl_ran_status(g, &m->u.downlink_ran_status_transfer);
	else if (m->type == NGAP_SUCCESSFUL && m->proc == NGAP_PROC_HANDOVER_CANCEL)
		rs_gnb_ho_cancel_ack(g, &m->u.handover_cancel_ack);
	else if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_ERROR_INDICATION) {
		gnb_log(LOGL_WARN, g, "Error Indication cause %u/%u", m->u.error_indication.cause.group,
			m->u.error_indication.cause.value);
		rs_cause_add(rs, "error_indication");
	} else {
		gnb_log(LOGL_INFO, g, "ignored %s", ngap_msg_name(m->type, m->proc));
	}
}

static void on_down(struct n2sctp_assoc *a, enum n2sctp_down_reason reason, void *arg)
{
	struct rs_n2 *l = arg;
	struct rs_gnb *g = l->g;
	char cause[32];

	(void)a;
	l->a = NULL;
	if (l->st == RS_GNB_DOWN)
		return;
	l->st = RS_GNB_DOWN;
	g->sel.e[l->ai].ready = false;
	gnb_state_update(g);
	gnb_log(LOGL_INFO, g, "association %u down: %s", l->ai, n2sctp_down_reason_name(reason));
	if (g->st != RS_GNB_DOWN) {
		/* other AMFs of the set are still there: the UEs go on through them (and UEs
		 * waiting for this AMF's NG Setup start without it) */
		rs_gnb_amf_lost(l);
		if (g->st == RS_GNB_READY)
			rs_schedule(g->rs);
		return;
	}
	snprintf(cause, sizeof(cause), "assoc_%s", n2sctp_down_reason_name(reason));
	fail_ues(g, cause);
}

static int n2_connect(struct rs_n2 *l, const struct sockaddr_in *local)
{
	struct rs_gnb *g = l->g;
	struct ransim *rs = g->rs;
	struct n2sctp_cbs cbs = { .up = on_up, .data = on_data, .down = on_down, .arg = l };
	struct sockaddr_in peer = { .sin_family = AF_INET };
	struct n2sctp_cfg sc = rs->cfg.sctp;
	int rc;

	sc.udp_peer_port = rs->amfs[l->ai].udp_peer_port;   /* each AMF its own (usrsctp UDP) */
	if (inet_pton(AF_INET, rs->amfs[l->ai].addr, &peer.sin_addr) != 1)
		return -EINVAL;
	l->peer_port = rs->amfs[l->ai].port;
	peer.sin_port = htons(l->peer_port);
	l->peer_ip = ntohl(peer.sin_addr.s_addr);
	l->st = RS_GNB_CONNECTING;
	rc = n2sctp_connect(rs->loop, &sc, local ? (const struct sockaddr *)local : NULL,
			    local ? sizeof(*local) : 0, (struct sockaddr *)&peer, sizeof(peer), &cbs, &l->ep);
	if (rc < 0) {
		l->st = RS_GNB_DOWN;
		gnb_log(LOGL_ERROR, g, "connect to %s:%u failed: %s", rs->amfs[l->ai].addr, l->peer_port,
			strerror(-rc));
	}
	return rc;
}

int rs_gnb_connect(struct rs_gnb *g)
{
	struct ransim *rs = g->rs;
	struct sockaddr_in local = { .sin_family = AF_INET };
	unsigned i, up = 0;
	int rc = 0, r;

	g->gnb_id = (rs->cfg.gnb_id_base ? rs->cfg.gnb_id_base : 0x100) + g->idx;
	if (rs->cfg.local_addr[0]) {
		if (inet_pton(AF_INET, rs->cfg.local_addr, &local.sin_addr) != 1)
			return -EINVAL;
		g->local_ip = ntohl(local.sin_addr.s_addr);
	} else {
		g->local_ip = 0x7f000002u + g->idx;  /* only used to label the pcap */
	}
	for (i = 0; i < rs->n_amfs; i++) {
		g->n2[i].g = g;
		g->n2[i].ai = i;
		r = n2_connect(&g->n2[i], rs->cfg.local_addr[0] ? &local : NULL);
		if (r < 0)
			rc = r;
		else
			up++;
	}
	gnb_state_update(g);
	/* one AMF: its error; several: an error only when none could be reached */
	return rs->n_amfs == 1 || !up ? rc : 0;
}
