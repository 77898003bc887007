/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gNB: the Xn handover between two gNBs of the same ransim (TS 23.502 4.9.1.2.2,
 * TS 38.300 9.2.3.2). The source hands the UE's AS context to the target over Xn (TS 38.423
 * HANDOVER REQUEST: the UE security capabilities of the ICS Request, {NCC, NH} for the
 * target's K_gNB, the UPF's UL tunnel and QoS flows of each session); that exchange is
 * internal here. The target, which has done NG Setup, then sends PATH SWITCH REQUEST
 * (TS 38.413 8.4.4.2): its own RAN UE NGAP ID, the source AMF UE NGAP ID, the user location
 * of its cell, the UE security capabilities, and one PDU Session Resource To Be Switched item
 * per session with a Path Switch Request Transfer (9.3.4.8) carrying the target's new DL
 * tunnel and the accepted QoS flow. From that moment the UE's uplink leaves through the
 * target (same UPF UL TEID) and downlink is taken on the target's TEID; the source still
 * counts what arrives on its old TEID (forwarded over Xn) until the UPF's End Marker
 * (TS 29.281 7.3.2, TS 23.501 5.8.2.9).
 *  - PATH SWITCH REQUEST ACKNOWLEDGE (8.4.4.2): the new AMF UE NGAP ID, {NCC, NH} (checked
 *    against the UE's own chain: NH = KDF(K_AMF, previous NH), TS 33.501 6.9.2.1.1, A.10),
 *    the UL tunnel of each Acknowledge Transfer (9.3.4.9) taken; the source forgets the UE
 *    (UE CONTEXT RELEASE over Xn, TS 38.423 8.2.7: no NGAP).
 *  - PATH SWITCH REQUEST FAILURE (8.4.4.3): the UE stays on its source as the AMF keeps it.
 * Scratch buffers only: nothing allocated.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

uint32_t rs_ue_dl_teid(const struct rs_ue *ue)
{
	return RS_GNB_DL_TEID_AT(ue->gnb->idx, ue->idx);
}

/* The serving gNB's DL tunnel: its N3 address, 32 or 128 bits (TS 38.414 5.1) */
void rs_ue_dl_tunnel(const struct rs_ue *ue, struct ngap_gtp_tunnel *t)
{
	uint32_t teid = rs_ue_dl_teid(ue);
	struct rs_n3_addr a;

	memset(t, 0, sizeof(*t));
	rs_gnb_n3_addr(ue->gnb, &a);
	rs_tla_put(&a, t);
	t->teid[0] = (uint8_t)(teid >> 24);
	t->teid[1] = (uint8_t)(teid >> 16);
	t->teid[2] = (uint8_t)(teid >> 8);
	t->teid[3] = (uint8_t)teid;
}

/* An Acknowledge that fails a check: the UE's failure, and counted even when the UE has
 * already finished its plan (sessions mode holds finished UEs). */
static void ps_error(struct rs_ue *ue, const char *cause)
{
	struct ransim *rs = ue->rs;

	rs->st.ps_errors++;
	if (ue->finished && !ue->fail[0])
		rs_cause_add(rs, cause);
	rs_ue_fail(ue, cause);
}

/* The Path Switch Request Transfer (TS 38.413 9.3.4.8): the target's DL tunnel for ue, the
 * QoS flow it accepted. Length or -errno. */
static int ps_transfer(const struct rs_ue *ue, uint8_t *out, size_t cap)
{
	struct ngap_path_switch_request_transfer t;

	memset(&t, 0, sizeof(t));
	rs_ue_dl_tunnel(ue, &t.dl_tunnel);
	t.n_flows = 1;
	t.qfis[0] = ue->qfi;
	return ngap_enc_path_switch_request_transfer(&t, out, cap);
}

/* The UE moves to target tg: PATH SWITCH REQUEST. 0 or -errno (the UE stays). */
static int path_switch(struct rs_ue *ue, struct rs_gnb *tg)
{
	struct ransim *rs = ue->rs;
	struct ngap_msg *m = &rs->tx;
	struct ngap_path_switch_request *r = &m->u.path_switch_request;
	struct rs_gnb *src = ue->gnb;
	int n, rc;

	ue->ho_src = src;
	ue->ho_src_ran_id = ue->ran_id;
	ue->ho_src_amf_id = ue->amf_ue_id;
	ue->gnb = tg;
	ue->ran_id += rs->cfg.n_ues;   /* the target's RAN UE NGAP ID (ran_id % n_ues = idx) */
	n = ps_transfer(ue, rs->xfer_buf[0], sizeof(rs->xfer_buf[0]));
	if (n < 0)
		goto back;
	memset(m, 0, sizeof(*m));
	m->type = NGAP_INITIATING;
	m->proc = NGAP_PROC_PATH_SWITCH_REQUEST;
	r->ran_ue_id = ue->ran_id;
	r->source_amf_ue_id = ue->ho_src_amf_id;
	rs_gnb_uli(tg, &r->uli);                  /* the target's cell and TAI */
	r->ue_sec_cap = ue->as_caps;               /* as the source gave them over Xn */
	r->n_sessions = 1;
	r->sessions[0].id = rs->cfg.psi;
	r->sessions[0].transfer.p = rs->xfer_buf[0];
	r->sessions[0].transfer.len = (size_t)n;
	rc = rs_gnb_send_ue(tg, ue, m);
	if (rc < 0) {
		n = rc;
		goto back;
	}
	ue->ho_pending = true;
	ue->dl_old_gnb = (int16_t)src->idx;
	rs->st.ps_sent++;
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "Xn handover gnb=%u -> gnb=%u: PATH SWITCH REQUEST", src->idx,
		tg->idx);
	return 0;
back:
	ue->gnb = src;
	ue->ran_id = ue->ho_src_ran_id;
	ue->ho_src = NULL;
	return n;
}

/* One UE's Xn handover to the next gNB: 0 once its PATH SWITCH REQUEST went out, -EAGAIN when
 * it cannot move now, else -errno. */
static int xn_handover_ue(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	struct rs_gnb *tg = &rs->gnbs[(ue->gnb->idx + 1) % rs->cfg.n_gnbs];

	/* CM-CONNECTED with the user plane up and an AS security context to hand over */
	if (rs->cfg.n_gnbs < 2 || ue->st != RS_UE_REGISTERED || !ue->sess_up || !ue->n3_ul_teid ||
	    !ue->has_amf_id || ue->ho_pending || ue->fail[0] || !ue->nh_valid || tg->st != RS_GNB_READY ||
	    ue->gnb->st != RS_GNB_READY)
		return -EAGAIN;
	return path_switch(ue, tg);
}

unsigned ransim_handover(struct ransim *rs)
{
	unsigned i, sent = 0;

	if (rs->cfg.n_gnbs < 2)
		return 0;
	if (rs->cfg.handover_mode != RANSIM_HO_XN)
		return rs_n2ho_round(rs);   /* gnb_n2ho.c */
	for (i = 0; i < rs->cfg.n_ues; i++)
		if (xn_handover_ue(&rs->ues[i]) == 0)
			sent++;
	return sent;
}

int ransim_handover_ue(struct ransim *rs, unsigned idx)
{
	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	if (rs->cfg.handover_mode != RANSIM_HO_XN)
		return rs_n2ho_ue(&rs->ues[idx]);   /* gnb_n2ho.c */
	return xn_handover_ue(&rs->ues[idx]);
}

int rs_nh_step(const uint8_t kamf[32], uint8_t *ncc, uint8_t nh[32], uint8_t want)
{
	unsigned steps = 0;

	while (*ncc != want && steps++ < 8) {
		if (crypto_kdf_nh(kamf, nh, nh) < 0)
			return -EIO;
		*ncc = (uint8_t)((*ncc + 1) & 7);
	}
	return *ncc == want ? 0 : -ERANGE;
}

/* The UE's vertical key derivation (TS 33.501 6.9.2.1.1, A.10): step its NH chain up to the
 * network's NCC; the NH must be the one the target got. */
static bool nh_matches(struct rs_ue *ue, const struct ngap_security_context *sc)
{
	return rs_nh_step(ue->kamf, &ue->ncc, ue->nh, sc->ncc) == 0 && memcmp(ue->nh, sc->nh, 32) == 0;
}

/* The session's Path Switch Request Acknowledge Transfer (9.3.4.9): the UL tunnel, if given. */
static void take_ack_transfer(struct rs_ue *ue, const struct ngap_pdu_sess_item *it)
{
	struct ngap_path_switch_request_ack_transfer t;
	struct rs_n3_addr addr;
	uint32_t teid;
	int rc;

	if (it->id != ue->rs->cfg.psi || ngap_dec_path_switch_request_ack_transfer(it->transfer.p, it->transfer.len,
										     &t, NULL) < 0) {
		ps_error(ue, "ps_ack_transfer");
		return;
	}
	if (!t.has_ul_tunnel)
		return;
	/* TS 38.414 5.1: the UPF's address of the target's N3 family */
	rc = rs_tla_get(&t.ul_tunnel, rs_n3_family(ue->rs), &addr);
	if (rc < 0) {
		ps_error(ue, rc == -EAFNOSUPPORT ? "ps_ack_n3_family" : "ps_ack_n3_addr");
		return;
	}
	teid = (uint32_t)t.ul_tunnel.teid[0] << 24 | (uint32_t)t.ul_tunnel.teid[1] << 16 |
	       (uint32_t)t.ul_tunnel.teid[2] << 8 | t.ul_tunnel.teid[3];
	if (!rs_n3_addr_eq(&addr, &ue->n3_upf_addr) || teid != ue->n3_ul_teid)
		log_msg(LOGL_INFO, "ransim", ue->sim->supi, "path switch: new UL tunnel TEID 0x%08x", teid);
	ue->n3_upf_addr = addr;
	ue->n3_ul_teid = teid;
}

/* The target's UE for a path switch answer, else NULL (counted). */
static struct rs_ue *ps_ue(struct rs_gnb *g, uint32_t ran_id)
{
	struct rs_ue *ue = rs_gnb_ue(g, ran_id);

	if (ue && !ue->ho_pending) {
		ps_error(ue, "ps_answer_unexpected");
		return NULL;
	}
	return ue;
}

void rs_gnb_ps_ack(struct rs_gnb *g, const struct ngap_path_switch_request_ack *k)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = ps_ue(g, k->ran_ue_id);
	unsigned i;

	if (!ue)
		return;
	ue->ho_pending = false;
	ue->amf_ue_id = k->amf_ue_id;   /* TS 38.413 8.4.4.2: the AMF UE NGAP ID from now on */
	if (k->has_ue_sec_cap) {
		/* TS 33.501 6.7.3.1: the AMF's copy wins */
		ue->as_caps = k->ue_sec_cap;
		rs->st.ps_caps_corrected++;
	}
	rs->st.ps_ncc_last = k->security_context.ncc;
	if (!nh_matches(ue, &k->security_context))
		ps_error(ue, "ps_ack_nh_mismatch");
	for (i = 0; i < k->n_switched; i++)
		take_ack_transfer(ue, &k->switched[i]);
	rs->st.ps_released += k->n_released;
	if (k->n_switched != 1 || k->n_released) {
		ue->sess_up = k->n_switched == 1;
		ps_error(ue, "ps_ack_sessions");
	}
	/* the source releases its context over Xn: nothing on N2 (TS 23.502 4.9.1.2.2 step 5) */
	ue->ho_src = NULL;
	rs->st.xn_src_released++;
	ue->handovers++;
	if (!ue->fail[0])
		rs->st.ps_acked++;
	RS_HO_NOTE(rs, ue, ue->fail[0] ? RS_HO_EV_FAILED : RS_HO_EV_DONE, g->idx);
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "PATH SWITCH REQUEST ACKNOWLEDGE on gnb=%u: ncc=%u amf_ue_id=%llu",
		g->idx, ue->ncc, (unsigned long long)ue->amf_ue_id);
	/* TS 23.502 4.9.1.2.2 step 4 / TS 24.501 5.5.1.3.2 a): a TA outside the UE's list */
	if (!ue->fail[0])
		rs_ue_cell_changed(ue, g);
}

void rs_gnb_ps_failure(struct rs_gnb *g, const struct ngap_path_switch_request_failure *f)
{
	struct ransim *rs = g->rs;
	struct rs_ue *ue = ps_ue(g, f->ran_ue_id);

	if (!ue)
		return;
	/* TS 38.413 8.4.4.3: nothing switched; the AMF keeps the UE on the source (the target
	 * drops it, the source still serves it) */
	rs->st.ps_failed++;
	rs_cause_add(rs, "path_switch_failure");
	RS_HO_NOTE(rs, ue, RS_HO_EV_FAILED, g->idx);
	ue->ho_pending = false;
	ue->gnb = ue->ho_src;
	ue->ran_id = ue->ho_src_ran_id;
	ue->amf_ue_id = ue->ho_src_amf_id;
	ue->ho_src = NULL;
	ue->dl_old_gnb = -1;
}

int ransim_ue_ho(const struct ransim *rs, unsigned idx, unsigned *gnb, uint32_t *dl_teid, unsigned *handovers,
		 unsigned *ncc)
{
	const struct rs_ue *ue;

	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	ue = &rs->ues[idx];
	*gnb = ue->gnb->idx;
	*dl_teid = rs_ue_dl_teid(ue);
	*handovers = ue->handovers;
	*ncc = ue->ncc;
	return 0;
}

int ransim_gnb_n3(const struct ransim *rs, unsigned g, uint64_t *ul, uint64_t *dl, uint64_t *end_markers)
{
	if (g >= rs->cfg.n_gnbs)
		return -ENOENT;
	*ul = rs->n3[g].ul_packets;
	*dl = rs->n3[g].dl_packets;
	*end_markers = rs->n3[g].end_markers;
	return 0;
}
