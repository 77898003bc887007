/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Sessions over N4 (TS 29.244 7.5): upf_session_create / _modify / _remove on a PFCP peer.
 *
 * Each session slot holds what the SMF wants (want, r) and what the peer has (have, sent).
 * sess_sync() is the one place that decides the next request: Deletion when the peer has a
 * session the SMF no longer wants (removed, re-created, moved to another peer, lost),
 * Establishment when the SMF wants one the peer has not, Modification when the rules differ.
 * One request per session is in flight; what the SMF changes meanwhile goes in the next one
 * (coalesced), so a remove during an establishment deletes the session once it is answered,
 * and the slot can be created again at once: its establishment follows that deletion.
 *
 * The rule set is the usual SMF's (TS 23.502 4.3.2.2.1 step 10a), the one `solocore upf`
 * and any standard UPF take, in the shape Open5GS's SMF sends (issue 32: Open5GS's UPF binds
 * the UE address only with the PDN Type, and buffers the uplink without the interface types):
 *   PDN Type IPv4 / IPv6 / IPv4v6 from the session's addresses (7.5.2.1: C, a PDU session)
 *   PDR 1  uplink: Source Access + Source Interface Type N3 3GPP Access (8.2.118), F-TEID:
 *          CHOOSE (V4, CH, CHID 1: 8.2.3; the UPF allocates, 5.5.3.1) when the peer advertised
 *          FTUP (8.2.25) and the SMF takes the answer (on_est_done), the one allocated read
 *          from the Created PDR (7.5.3.2); else {upf_n4c_cp_teid, the peer's N3 address} (CP
 *          allocation), Network Instance (the DNN), UE IP address (source), Outer Header
 *          Removal GTP-U/UDP/IPv4, FAR 1, QER 1, URR 1
 *   PDR 2  downlink: Source Core + Source Interface Type N6, Network Instance (the DNN), UE
 *          IP address (destination), FAR 2, QER 1, URR 1
 *          (the UE IP address: IPv4 and / or the session's /64, 8.2.62)
 *   FAR 1  FORW to Core, Destination Interface Type N6;  FAR 2  FORW + Outer Header Creation
 *          to the gNB (GTP-U/UDP/IPv4, or /IPv6 for a gNB reached over IPv6), Destination
 *          Interface Type N3 3GPP Access, or BUFF | NOCP
 *   QER 1  gates open, MBR = session-AMBR (kbps), QFI;  URR 1  volume measurement
 * A modification updates FAR 2 and QER 1 (the tunnel, the state, the AMBR, the QFI), with
 * PFCPSMReq-Flags SNDEM when an active downlink moves to another gNB tunnel (8.2.31: End
 * Markers on the old one, TS 23.502 4.9.1.2.2 / 4.9.1.3.3); a change of TEID or UE address is
 * refused (-EOPNOTSUPP): the SMF keeps both for a session's life.
 *
 * CP SEID = generation << 32 | (id + 1): a report names its slot directly, and one for an
 * earlier session of the same slot is told apart.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include "common/log.h"
#include "upf/upf_n4c_int.h"

enum { PDR_UL = 1, PDR_DL = 2, FAR_UL = 1, FAR_DL = 2, QER_1 = 1, URR_1 = 1 };
/* The indirect forwarding tunnel's rules (TS 23.502 4.9.1.3.2 steps 9-10) */
enum { PDR_FWD = 3, FAR_FWD = 3 };
/* The CHOOSE ID of the uplink PDR (8.2.3: any value; one F-TEID for the PDRs that share it, as
 * Open5GS's SMF sends it), and of the forwarding PDR (its own F-TEID) */
enum { CHOOSE_ID_UL = 1, CHOOSE_ID_FWD = 2 };

int n4c_sess_init(struct upf_n4c *c)
{
	/* all zeros is a free slot: pages of slots never used are never touched */
	c->sess = calloc(c->p.max_sessions, sizeof(*c->sess));
	return c->sess ? 0 : -ENOMEM;
}

static uint64_t cp_seid(uint32_t gen, uint32_t id)
{
	return (uint64_t)gen << 32 | (id + 1);
}

static void lost(struct upf_n4c *c, uint32_t id, enum upf_lost_reason why)
{
	struct n4c_sess *s = &c->sess[id];
	struct upf_n4c_p *p = &c->peers[s->peer];

	if (!s->want || s->lost)
		return;
	s->lost = true;
	s->est_wait = false;   /* the SMF learns it here: no on_est_done after this */
	c->cnt[UPF_N4C_SESS_LOST]++;
	p->pp.on_session_lost(p->pp.cb_arg, id, why);
}

static void send_req(struct upf_n4c *c, uint32_t id, uint8_t kind, uint8_t peer)
{
	struct n4c_sess *s = &c->sess[id];
	uint32_t i = n4c_txn_new(c, kind, peer);

	if (i == N4C_NONE) {   /* cannot happen: the table holds one request per session */
		if (kind == TXN_DEL)
			s->have = false;
		else
			lost(c, id, UPF_LOST_TIMEOUT);
		return;
	}
	c->txn[i].sess = id;
	c->txn[i].gen = kind == TXN_EST ? s->gen : s->have_gen;
	c->txn[i].up_seid = s->up_seid;
	s->busy = i + 1;
	c->cnt[kind == TXN_EST ? UPF_N4C_EST : kind == TXN_MOD ? UPF_N4C_MOD : UPF_N4C_DEL]++;
	n4c_txn_send(c, i);
}

static bool rule_eq(const struct upf_session_rule *a, const struct upf_session_rule *b)
{
	return a->ul_teid == b->ul_teid && a->ue_addr == b->ue_addr && a->gnb_addr == b->gnb_addr &&
	       !memcmp(a->gnb_addr6, b->gnb_addr6, 16) && !memcmp(a->ue_prefix6, b->ue_prefix6, 8) &&
	       a->gnb_teid == b->gnb_teid && a->qfi == b->qfi && a->ambr_ul_bps == b->ambr_ul_bps &&
	       a->ambr_dl_bps == b->ambr_dl_bps && a->dl_state == b->dl_state;
}

/* TS 23.502 4.9.1.2.2 step 2 / 4.9.1.3.3 step 7 (and 4.9.1.2.3 for a new gNB on the same UPF):
 * an active downlink that goes to another gNB F-TEID. The UPF sends End Markers on the old
 * tunnel right after switching (TS 23.501 5.8.2.9, TS 29.281 7.3.2) when asked with SNDEM. From
 * or to BUFF there is no old path to end (the AN release already ended it). */
static bool tunnel_moved(const struct upf_session_rule *a, const struct upf_session_rule *b)
{
	return a->dl_state == UPF_DL_ACTIVE && b->dl_state == UPF_DL_ACTIVE &&
	       (a->gnb_teid != b->gnb_teid || a->gnb_addr != b->gnb_addr || memcmp(a->gnb_addr6, b->gnb_addr6, 16));
}

/* What the next modification does with the forwarding tunnel (N4C_FWD_*) */
static uint8_t fwd_op_of(const struct n4c_sess *s)
{
	if (s->fwd_want && !s->fwd_have)
		return N4C_FWD_CREATE;
	if (!s->fwd_want && s->fwd_have)
		return N4C_FWD_REMOVE;
	if (s->fwd_want && (s->fwd_addr != s->fwd_sent_addr || s->fwd_teid != s->fwd_sent_teid))
		return N4C_FWD_UPDATE;
	return N4C_FWD_NONE;
}

static void sess_sync(struct upf_n4c *c, uint32_t id)
{
	struct n4c_sess *s = &c->sess[id];
	bool current = s->want && !s->lost && s->have_peer == s->peer && s->have_gen == s->gen;

	if (s->busy)
		return;
	if (s->have && !current && c->peers[s->have_peer].st == AS_UNREACH) {
		/* its UPF is unreachable: the deletion waits for it (n4c_sess_peer_resume) unless
		 * the slot is wanted again meanwhile (on another UPF: this one takes no new
		 * sessions); then the old session is left to that UPF, its own loss of us purges it */
		if (!s->want || s->lost)
			return;
		s->have = false;
	}
	if (s->have && !current) {
		send_req(c, id, TXN_DEL, s->have_peer);
	} else if (!s->have && s->want && !s->lost) {
		if (c->peers[s->peer].st != AS_UP) {
			if (c->peers[s->peer].resetup)
				return;   /* held until the association is up again (n4c_sess_peer_resume) */
			lost(c, id, UPF_LOST_PEER);   /* it went down while a deletion went first */
			return;
		}
		s->sent = s->r;
		s->have_peer = s->peer;
		s->fwd_have = false;   /* a new session: a forwarding tunnel follows in a modification */
		s->fwd_sent_addr = s->fwd_sent_teid = 0;
		/* CHOOSE only when the SMF hears which F-TEID the UPF took (on_est_done) */
		s->choose = c->peers[s->peer].ftup && s->est_wait && s->r.ul_teid;
		send_req(c, id, TXN_EST, s->peer);
	} else if (s->have && (s->resync || !rule_eq(&s->sent, &s->r) || fwd_op_of(s))) {
		if (c->peers[s->peer].st == AS_UNREACH)
			return;   /* held until it answers again (n4c_sess_peer_resume) */
		/* a resync sends again what went unanswered: its SNDEM with it (the UPF may not
		 * have switched yet) */
		s->sndem = tunnel_moved(&s->sent, &s->r) || (s->resync && s->sndem);
		/* ... and what it did with the forwarding tunnel */
		s->fwd_op = fwd_op_of(s) ? fwd_op_of(s) : s->resync ? s->fwd_op : N4C_FWD_NONE;
		s->fwd_have = s->fwd_want;
		s->fwd_sent_addr = s->fwd_addr;
		s->fwd_sent_teid = s->fwd_teid;
		s->resync = false;
		s->sent = s->r;
		send_req(c, id, TXN_MOD, s->peer);
	}
}

/* ---- messages ---- */

static void ipv4(uint8_t *to, uint32_t a)
{
	memcpy(to, &a, 4);
}

static void pdr(struct pfcp_pdr *d, uint16_t id, uint8_t src_if, uint32_t far)
{
	memset(d, 0, sizeof(*d));
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_QER_ID |
		 PFCP_PDR_URR_ID;
	d->pdr_id = id;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF;
	d->pdi.src_if = src_if;
	d->far_id = far;
	d->n_qer = 1;
	d->qer_id[0] = QER_1;
	d->n_urr = 1;
	d->urr_id[0] = URR_1;
}

/* FAR 2 (Create FAR 7.5.2.3, or Update FAR 7.5.4.3: the same fields) */
static void far_dl(struct pfcp_far *f, const struct upf_session_rule *r)
{
	memset(f, 0, sizeof(*f));
	f->has = PFCP_FAR_ID | PFCP_FAR_APPLY;
	f->far_id = FAR_DL;
	if (r->dl_state == UPF_DL_BUFFER) {
		/* 5.2.3.1: buffer and notify the CP of the first packet (Downlink Data Report) */
		f->apply = PFCP_AA_BUFF | PFCP_AA_NOCP;
		return;
	}
	f->apply = PFCP_AA_FORW;
	f->has |= PFCP_FAR_FWD;
	f->fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC | PFCP_FWD_DEST_IF_TYPE;
	f->fwd.dest_if = PFCP_IF_ACCESS;
	f->fwd.dest_if_type = PFCP_IFT_N3_3GPP;   /* 8.2.118 */
	f->fwd.ohc.teid = r->gnb_teid;
	if (r->gnb_addr) {
		f->fwd.ohc.desc = PFCP_OHC_GTPU4;
		ipv4(f->fwd.ohc.ipv4, r->gnb_addr);
	} else {   /* 8.2.56: the gNB's tunnel is IPv6 (upf.h gnb_addr6) */
		f->fwd.ohc.desc = PFCP_OHC_GTPU6;
		memcpy(f->fwd.ohc.ipv6, r->gnb_addr6, 16);
	}
}

static bool has_prefix6(const struct upf_session_rule *r)
{
	static const uint8_t zero[8];

	return memcmp(r->ue_prefix6, zero, 8) != 0;
}

/* 8.2.62 UE IP Address: V4 with the address, V6 with the /64 (its first 8 octets, the rest
 * zero). A /64 is the clause's default: neither IPv6D (prefix delegation bits) nor IP6PL
 * (prefix length) is set. sd: destination (the downlink PDR), else source (uplink). */
static void ue_ip(struct pfcp_ue_ip *ip, const struct upf_session_rule *r, bool sd)
{
	memset(ip, 0, sizeof(*ip));
	ip->flags = sd ? PFCP_UEIP_SD : 0;
	if (r->ue_addr) {
		ip->flags |= PFCP_UEIP_V4;
		ipv4(ip->ipv4, r->ue_addr);
	}
	if (has_prefix6(r)) {
		ip->flags |= PFCP_UEIP_V6;
		memcpy(ip->ipv6, r->ue_prefix6, 8);
	}
}

static uint64_t kbps(uint64_t bps)
{
	return (bps + 999) / 1000;   /* 8.2.8: kbps; rounded up, never below what was granted */
}

static void qer(struct pfcp_qer *q, const struct upf_session_rule *r)
{
	memset(q, 0, sizeof(*q));
	q->has = PFCP_QER_ID | PFCP_QER_GATE;
	q->qer_id = QER_1;
	q->gate = PFCP_GATE_OPEN << 2 | PFCP_GATE_OPEN;
	if (r->ambr_ul_bps || r->ambr_dl_bps) {
		q->has |= PFCP_QER_MBR;
		q->mbr.ul = kbps(r->ambr_ul_bps);
		q->mbr.dl = kbps(r->ambr_dl_bps);
	}
	if (r->qfi) {
		q->has |= PFCP_QER_QFI;
		q->qfi = r->qfi;
	}
}

/* The DNN as the Network Instance of both PDRs (TS 29.244 8.2.4: "e.g. encoded as ...
 * an APN", TS 23.003 9.1: length-prefixed labels) into c->ni: the UPF picks its per-DNN policy
 * (NAT, upf_n4_rule.c) by it. false when there is none or it does not encode (an empty label,
 * over 63 octets a label or 100 in all): the UPF then goes by the UE address's pool. */
static bool ni_labels(struct upf_n4c *c, const char *dnn, struct pfcp_buf *out)
{
	size_t o = 0, n;

	if (!dnn || !*dnn)
		return false;
	for (const char *p = dnn;; p += n + 1) {
		const char *dot = strchr(p, '.');

		n = dot ? (size_t)(dot - p) : strlen(p);
		if (!n || n > 63 || o + 1 + n > sizeof(c->ni))
			return false;
		c->ni[o] = (uint8_t)n;
		memcpy(c->ni + o + 1, p, n);
		o += 1 + n;
		if (!dot)
			break;
	}
	out->p = c->ni;
	out->len = (uint16_t)o;
	return true;
}

/* 8.2.79 PDN Type: the session's families (upf.h: at least one of ue_addr and ue_prefix6) */
static uint8_t pdn_type(const struct upf_session_rule *r)
{
	if (r->ue_addr && has_prefix6(r))
		return PFCP_PDN_IPV4V6;
	return r->ue_addr ? PFCP_PDN_IPV4 : PFCP_PDN_IPV6;
}

static void build_est(struct upf_n4c *c, const struct upf_n4c_p *p, const struct upf_session_rule *r, uint64_t seid,
		      bool choose)
{
	struct pfcp_sess_est_req *e = &c->out.est;
	struct pfcp_buf ni;
	bool has_ni;

	memset(e, 0, sizeof(*e));
	c->out.h.type = PFCP_SESS_EST_REQ;
	c->out.h.seid = 0;   /* 7.2.2.4.2: no UP SEID yet */
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR | PFCP_SER_QER | PFCP_SER_URR |
		 PFCP_SER_PDN_TYPE;
	n4c_own_node_id(c, &e->node_id);
	e->cp_fseid.flags = PFCP_ADDR_V4;
	e->cp_fseid.seid = seid;
	ipv4(e->cp_fseid.ipv4, c->p.addr);
	e->pdn_type = pdn_type(r);
	has_ni = ni_labels(c, r->dnn, &ni);
	if (r->ul_teid) {
		struct pfcp_pdr *d = &e->pdr[e->n_pdr++];

		pdr(d, PDR_UL, PFCP_IF_ACCESS, FAR_UL);
		d->pdi.has |= PFCP_PDI_SRC_IF_TYPE;
		d->pdi.src_if_type = PFCP_IFT_N3_3GPP;
		d->has |= PFCP_PDR_OHR;
		d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
		d->pdi.has |= PFCP_PDI_F_TEID;
		if (choose) {   /* 8.2.3: V4 with CH, no TEID nor address: the UPF picks both */
			d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_CH | PFCP_FTEID_CHID;
			d->pdi.fteid.choose_id = CHOOSE_ID_UL;
		} else {
			d->pdi.fteid.flags = PFCP_FTEID_V4;
			d->pdi.fteid.teid = upf_n4c_cp_teid(c, r->ul_teid);
			ipv4(d->pdi.fteid.ipv4, p->pp.n3_addr);
		}
		d->pdi.has |= PFCP_PDI_UE_IP;
		ue_ip(&d->pdi.ue_ip, r, false);
		if (has_ni) {
			d->pdi.has |= PFCP_PDI_NI;
			d->pdi.ni = ni;
		}
		e->far[e->n_far++] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD,
						       .far_id = FAR_UL, .apply = PFCP_AA_FORW,
						       .fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_DEST_IF_TYPE,
								.dest_if = PFCP_IF_CORE, .dest_if_type = PFCP_IFT_N6 } };
	}
	pdr(&e->pdr[e->n_pdr], PDR_DL, PFCP_IF_CORE, FAR_DL);
	e->pdr[e->n_pdr].pdi.has |= PFCP_PDI_UE_IP | PFCP_PDI_SRC_IF_TYPE;
	e->pdr[e->n_pdr].pdi.src_if_type = PFCP_IFT_N6;
	ue_ip(&e->pdr[e->n_pdr].pdi.ue_ip, r, true);
	if (has_ni) {
		e->pdr[e->n_pdr].pdi.has |= PFCP_PDI_NI;
		e->pdr[e->n_pdr].pdi.ni = ni;
	}
	e->n_pdr++;
	far_dl(&e->far[e->n_far++], r);
	e->n_qer = 1;
	qer(&e->qer[0], r);
	e->n_urr = 1;
	e->urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS,
				       .urr_id = URR_1, .method = PFCP_MM_VOLUM };
}

/* FAR 3, the forwarding tunnel's: FORW to the target gNB's DL forwarding F-TEID (TS 38.413
 * 9.3.4.11), Destination Interface Access, Type N3 for data forwarding (8.2.118); DROP while
 * the target is not known yet (the F-TEID asked for at the preparation, upf.h) */
static void far_fwd(struct pfcp_far *f, const struct n4c_sess *s)
{
	memset(f, 0, sizeof(*f));
	f->has = PFCP_FAR_ID | PFCP_FAR_APPLY;
	f->far_id = FAR_FWD;
	if (!s->fwd_sent_addr) {
		f->apply = PFCP_AA_DROP;
		return;
	}
	f->apply = PFCP_AA_FORW;
	f->has |= PFCP_FAR_FWD;
	f->fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC | PFCP_FWD_DEST_IF_TYPE;
	f->fwd.dest_if = PFCP_IF_ACCESS;
	f->fwd.dest_if_type = PFCP_IFT_N3_FWD;
	f->fwd.ohc.desc = PFCP_OHC_GTPU4;
	f->fwd.ohc.teid = s->fwd_sent_teid;
	ipv4(f->fwd.ohc.ipv4, s->fwd_sent_addr);
}

/* TS 23.502 4.9.1.3.2 steps 9-10 / 4.9.1.3.3 step 21a: the indirect forwarding tunnel in the
 * modification: PDR 3 (Source Access, Type N3 for data forwarding, its own F-TEID: CHOOSE with
 * CHOOSE ID 2 when the UPF allocates, else ours; Outer Header Removal GTP-U/UDP/IPv4) with
 * FAR 3 created, FAR 3 updated to the target, or both removed. */
static void fwd_build(struct upf_n4c *c, const struct n4c_sess *s)
{
	struct pfcp_sess_mod_req *m = &c->out.mod;
	struct pfcp_pdr *d;

	switch (s->fwd_op) {
	case N4C_FWD_CREATE:
		d = &m->pdr[m->n_pdr++];
		memset(d, 0, sizeof(*d));
		d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_OHR;
		d->pdr_id = PDR_FWD;
		d->precedence = 255;
		d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_SRC_IF_TYPE | PFCP_PDI_F_TEID;
		d->pdi.src_if = PFCP_IF_ACCESS;
		d->pdi.src_if_type = PFCP_IFT_N3_FWD;
		if (!s->fwd_up_addr) {   /* 8.2.3: the UPF picks; answered in a Created PDR */
			d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_CH | PFCP_FTEID_CHID;
			d->pdi.fteid.choose_id = CHOOSE_ID_FWD;
		} else {
			d->pdi.fteid.flags = PFCP_FTEID_V4;
			d->pdi.fteid.teid = s->fwd_up_teid;
			ipv4(d->pdi.fteid.ipv4, s->fwd_up_addr);
		}
		d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
		d->far_id = FAR_FWD;
		m->has |= PFCP_SMR_PDR | PFCP_SMR_FAR;
		far_fwd(&m->far[m->n_far++], s);
		break;
	case N4C_FWD_UPDATE:
		m->has |= PFCP_SMR_UPD_FAR;
		far_fwd(&m->upd_far[m->n_upd_far++], s);
		break;
	case N4C_FWD_REMOVE:
		m->has |= PFCP_SMR_RM_PDR | PFCP_SMR_RM_FAR;
		m->rm_pdr[m->n_rm_pdr++] = (struct pfcp_rm){ .has = PFCP_RM_ID, .id = PDR_FWD };
		m->rm_far[m->n_rm_far++] = (struct pfcp_rm){ .has = PFCP_RM_ID, .id = FAR_FWD };
		break;
	}
}

int n4c_sess_build(struct upf_n4c *c, const struct n4c_txn *t)
{
	const struct n4c_sess *s = &c->sess[t->sess];

	memset(&c->out.h, 0, sizeof(c->out.h));
	switch (t->kind) {
	case TXN_EST:
		build_est(c, &c->peers[t->peer], &s->sent, cp_seid(t->gen, t->sess), s->choose);
		return 0;
	case TXN_MOD:   /* 7.5.4 */
		c->out.h.type = PFCP_SESS_MOD_REQ;
		c->out.h.seid = t->up_seid;
		memset(&c->out.mod, 0, sizeof(c->out.mod));
		c->out.mod.has = PFCP_SMR_UPD_FAR | PFCP_SMR_UPD_QER;
		c->out.mod.n_upd_far = 1;
		far_dl(&c->out.mod.upd_far[0], &s->sent);
		c->out.mod.n_upd_qer = 1;
		qer(&c->out.mod.upd_qer[0], &s->sent);
		if (s->sndem) {   /* 7.5.4.1 PFCPSMReq-Flags, 8.2.31 SNDEM */
			c->out.mod.has |= PFCP_SMR_FLAGS;
			c->out.mod.flags = PFCP_SMF_SNDEM;
		}
		fwd_build(c, s);
		return 0;
	case TXN_DEL:   /* 7.5.6: no IE */
		c->out.h.type = PFCP_SESS_DEL_REQ;
		c->out.h.seid = t->up_seid;
		return 0;
	}
	return -ENOENT;
}

static void usage(struct n4c_sess *s, const struct pfcp_usage_report *ur, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		const struct pfcp_volume *v = &ur[i].volume;

		if (!(ur[i].has & PFCP_UR_VOLUME))
			continue;
		s->st.ul_bytes += v->ul;
		s->st.dl_bytes += v->dl;
		s->st.ul_pkts += v->ul_pkts;
		s->st.dl_pkts += v->dl_pkts;
	}
}

/* 7.5.3.2: the F-TEID the UPF allocated for our CHOOSE, from the Created PDR of the uplink
 * PDR (IPv4: the SMF's N3 side of a PFCP peer is IPv4). false when there is none. */
static bool created_fteid(const struct pfcp_sess_rsp *r, uint16_t pdr, uint32_t *teid, uint32_t *addr)
{
	for (unsigned k = 0; k < r->n_created && (r->has & PFCP_SRSP_CREATED_PDR); k++) {
		const struct pfcp_created_pdr *cp = &r->created[k];

		if (cp->pdr_id != pdr || !(cp->has & PFCP_CPDR_F_TEID) || (cp->fteid.flags & PFCP_FTEID_CH) ||
		    !(cp->fteid.flags & PFCP_FTEID_V4) || !cp->fteid.teid)
			continue;
		*teid = cp->fteid.teid;
		memcpy(addr, cp->fteid.ipv4, 4);
		return *addr != 0;
	}
	return false;
}

/* The establishment of t (its session's current generation) is answered (c->in) or not: tell
 * the SMF (on_est_done), or as before issue 32 without one (on_session_lost when it failed).
 * Accepted, the F-TEID is the one of the Created PDR (CHOOSE) or ours; from now on the rule's
 * ul_teid is that one (upf_n4c_sess_modify compares against it). */
static void est_answered(struct upf_n4c *c, const struct n4c_txn *t, enum upf_est_status st)
{
	struct n4c_sess *s = &c->sess[t->sess];
	struct upf_n4c_p *p = &c->peers[t->peer];
	struct upf_est_result res = { .status = st, .cause = c->in.rsp.cause };
	char a[INET_ADDRSTRLEN];

	if (st == UPF_EST_TIMEOUT)
		res.cause = 0;
	if (!s->est_wait) {
		if (st != UPF_EST_OK)
			lost(c, t->sess, st == UPF_EST_TIMEOUT ? UPF_LOST_TIMEOUT : UPF_LOST_REFUSED);
		return;
	}
	if (st == UPF_EST_OK && s->sent.ul_teid) {
		if (!s->choose) {
			res.ul_teid = upf_n4c_cp_teid(c, s->sent.ul_teid);
			res.n3_addr = p->pp.n3_addr;
		} else if (!created_fteid(&c->in.rsp, PDR_UL, &res.ul_teid, &res.n3_addr)) {
			/* 7.5.3.2: a UP function that allocated an F-TEID returns it in a Created PDR */
			inet_ntop(AF_INET, &p->pp.addr, a, sizeof(a));
			log_rl(LOGL_WARN, N4C_MOD, NULL, "%s (%s): establishment accepted without the uplink PDR's "
			       "F-TEID in a Created PDR (CHOOSE asked): refused, the session deleted", p->name, a);
			res.status = UPF_EST_REFUSED;
		}
		if (res.status == UPF_EST_OK)
			s->r.ul_teid = s->sent.ul_teid = res.ul_teid;
	}
	s->est_wait = false;
	if (res.status != UPF_EST_OK)
		s->lost = true;   /* never sent again: the SMF removes it (upf.h on_est_done) */
	p->pp.on_est_done(p->pp.cb_arg, t->sess, &res);
}

/* The accepted modification's forwarding tunnel: the F-TEID the UPF chose (7.5.5.1 Created
 * PDR); one accepted without it is not usable: removed again, the handover goes without. */
static void fwd_answered(struct upf_n4c *c, const struct n4c_txn *t, struct n4c_sess *s)
{
	if (s->fwd_op == N4C_FWD_REMOVE && !s->fwd_want)
		s->fwd_up_addr = s->fwd_up_teid = 0;
	if (s->fwd_op == N4C_FWD_CREATE && !s->fwd_up_addr && s->fwd_want &&
	    !created_fteid(&c->in.rsp, PDR_FWD, &s->fwd_up_teid, &s->fwd_up_addr)) {
		log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: session %u: forwarding PDR accepted without its F-TEID in a "
		       "Created PDR (CHOOSE asked): removed", c->peers[t->peer].name, t->sess);
		s->fwd_want = false;
		s->fwd_addr = s->fwd_teid = 0;
	}
	s->fwd_op = N4C_FWD_NONE;
}

void n4c_sess_done(struct upf_n4c *c, const struct n4c_txn *t, uint32_t i, bool rsp)
{
	struct n4c_sess *s = &c->sess[t->sess];
	const struct pfcp_sess_rsp *r = &c->in.rsp;
	bool ok = rsp && (r->has & PFCP_SRSP_CAUSE) && r->cause == PFCP_CAUSE_ACCEPTED;
	bool current = s->want && t->gen == s->gen;
	char a[INET_ADDRSTRLEN];

	if (s->busy != i + 1)
		return;   /* the peer was lost meanwhile */
	s->busy = 0;
	if (!ok)
		log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: session %u %s %s%s%s%s", c->peers[t->peer].name, t->sess,
		       t->kind == TXN_EST ? "establishment" : t->kind == TXN_MOD ? "modification" : "deletion",
		       rsp ? "refused: " : "not answered", rsp ? pfcp_cause_name(r->cause) : "",
		       rsp && r->offending_ie ? ", offending IE " : "",
		       rsp && r->offending_ie ? pfcp_ie_name(r->offending_ie) : "");
	if (rsp && !ok)
		c->cnt[UPF_N4C_REFUSED]++;
	switch (t->kind) {
	case TXN_EST:
		/* 7.2.2.4.2: the answer's header SEID is our CP SEID (0 only when the UPF could not
		 * read it); another is not this session's answer: a refusal, and what the UPF holds
		 * under it is deleted (the sequence number alone matched it, rx_rsp) */
		if (rsp && c->in.h.seid && c->in.h.seid != cp_seid(t->gen, t->sess)) {
			log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: session %u establishment answered with SEID 0x%llx, "
			       "ours is 0x%llx: taken as a refusal", c->peers[t->peer].name, t->sess,
			       (unsigned long long)c->in.h.seid, (unsigned long long)cp_seid(t->gen, t->sess));
			c->cnt[UPF_N4C_REFUSED]++;
			if (ok && (r->has & PFCP_SRSP_F_SEID)) {
				s->have = true;
				s->have_gen = t->gen;
				s->up_seid = r->up_fseid.seid;
			}
			if (current)
				est_answered(c, t, UPF_EST_REFUSED);
			break;
		}
		if (ok && (r->has & PFCP_SRSP_F_SEID)) {
			c->cnt[UPF_N4C_EST_OK]++;
			s->have = true;
			s->have_gen = t->gen;
			s->up_seid = r->up_fseid.seid;
			if (current)
				est_answered(c, t, UPF_EST_OK);
		} else if (ok) {   /* 7.5.3.1: the UP F-SEID is mandatory when accepted */
			inet_ntop(AF_INET, &c->peers[t->peer].pp.addr, a, sizeof(a));
			log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: accepted establishment without UP F-SEID", a);
			if (current)
				est_answered(c, t, UPF_EST_REFUSED);
		} else if (current) {
			/* no answer: the UPF may hold it, but without its SEID we cannot delete it */
			est_answered(c, t, !rsp ? UPF_EST_TIMEOUT :
					   r->cause == PFCP_CAUSE_NO_RESOURCES || r->cause == PFCP_CAUSE_CONGESTION ?
					   UPF_EST_NO_RESOURCES : UPF_EST_REFUSED);
		}
		break;
	case TXN_MOD:
		if (ok) {
			usage(s, r->usage, r->n_usage);
			fwd_answered(c, t, s);
			break;
		}
		if (rsp && s->fwd_op != N4C_FWD_NONE && r->cause != PFCP_CAUSE_SESSION_NOT_FOUND) {
			/* 7.5.5: refused, the UPF keeps the earlier rules: the handover goes on without
			 * forwarding (smf_ho.c), the session stays; its rules are sent again */
			log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: session %u: forwarding tunnel refused, none used",
			       c->peers[t->peer].name, t->sess);
			s->fwd_want = s->fwd_have = false;
			s->fwd_addr = s->fwd_teid = s->fwd_up_addr = s->fwd_up_teid = 0;
			s->fwd_op = N4C_FWD_NONE;
			s->resync = true;
			break;
		}
		if (!rsp && c->peers[t->peer].st == AS_UNREACH) {
			/* a path failure, not a refusal: sent again when it answers (TS 29.244 6.2.2) */
			s->resync = true;
			break;
		}
		/* 7.5.5: refused, the UPF keeps the earlier rules; 65 or no answer: it has none */
		if (!rsp || r->cause == PFCP_CAUSE_SESSION_NOT_FOUND)
			s->have = false;
		lost(c, t->sess, rsp ? UPF_LOST_REFUSED : UPF_LOST_TIMEOUT);
		break;
	case TXN_DEL:
		if (ok)
			c->cnt[UPF_N4C_DEL_OK]++;
		if (!rsp && c->peers[t->peer].st == AS_UNREACH)
			break;   /* still held there: sent again when it answers */
		s->have = false;
		break;
	}
	sess_sync(c, t->sess);
}

void n4c_sess_report(struct upf_n4c *c, struct upf_n4c_p *p)
{
	uint64_t seid = c->in.h.seid;
	uint32_t id = (uint32_t)seid - 1, gen = (uint32_t)(seid >> 32);
	struct n4c_sess *s = id < c->p.max_sessions ? &c->sess[id] : NULL;
	const struct pfcp_sess_report_req *q = &c->in.rep;
	bool dl, known = s && s->have && s->have_peer == p->idx && s->have_gen == gen;
	uint8_t cause = known ? PFCP_CAUSE_ACCEPTED : PFCP_CAUSE_SESSION_NOT_FOUND;
	bool dup = false, erir;

	/* a retransmission of a report we answered: the same answer, no second notification */
	for (unsigned k = 0; k < N4C_DUP_RING; k++)
		if (p->dup[k].seq == c->in.h.seq && p->dup[k].type == PFCP_SESS_REPORT_REQ && p->dup[k].seid == seid)
			dup = true;
	memset(&c->out.h, 0, sizeof(c->out.h));
	memset(&c->out.rep_rsp, 0, sizeof(c->out.rep_rsp));
	c->out.h.type = PFCP_SESS_REPORT_RSP;
	c->out.h.seq = c->in.h.seq;
	c->out.h.seid = known ? s->up_seid : 0;   /* 7.2.2.4.2 */
	c->out.rep_rsp.has = PFCP_SRRSP_CAUSE;
	/* 7.5.8.1: the Error Indication Report is present when the Report Type says ERIR */
	if (known && (q->type & PFCP_RPT_ERIR) && !(q->has & PFCP_SRR_ERR_IND)) {
		cause = PFCP_CAUSE_CONDITIONAL_IE_MISSING;
		c->out.rep_rsp.has |= PFCP_SRRSP_OFFENDING;
		c->out.rep_rsp.offending_ie = PFCP_IE_ERR_IND_REPORT;
	}
	c->out.rep_rsp.cause = cause;
	dl = known && !dup && (q->type & PFCP_RPT_DLDR) && s->want && !s->lost && s->gen == gen;
	erir = cause == PFCP_CAUSE_ACCEPTED && !dup && (q->type & PFCP_RPT_ERIR) && s->want && !s->lost &&
	       s->gen == gen;
	if (known && !dup && (q->type & PFCP_RPT_USAR))
		usage(s, q->usage, q->n_usage);
	if (dup) {
		c->cnt[UPF_N4C_RX_DUP]++;
	} else {
		c->cnt[UPF_N4C_REPORT]++;
		p->dup[p->dup_next] = (typeof(p->dup[0])){ .seq = c->in.h.seq, .type = PFCP_SESS_REPORT_REQ, .seid = seid };
		p->dup_next = (uint8_t)((p->dup_next + 1) % N4C_DUP_RING);
	}
	n4c_send_reply(c);   /* 4.2.2: to the request's source port */
	/* after the answer: the SMF may send a request of its own from here */
	if (dl) {
		c->cnt[UPF_N4C_DL_DATA]++;
		p->pp.on_dl_data(p->pp.cb_arg, id);
	}
	/* TS 29.244 5.10: the gNB lost the tunnel of each Remote F-TEID; the SMF reacts (TS 23.527
	 * 5.3: user plane deactivated, a Session Modification to BUFF / NOCP follows) */
	for (unsigned k = 0; erir && p->pp.on_err_ind && k < q->err_ind.n_fteid; k++) {
		const struct pfcp_fteid *f = &q->err_ind.fteid[k];
		struct upf_err_ind ei = { .session_id = id, .teid = f->teid };

		if (f->flags & PFCP_FTEID_V4)
			memcpy(&ei.addr, f->ipv4, 4);
		else if (f->flags & PFCP_FTEID_V6)
			memcpy(ei.addr6, f->ipv6, 16);
		else
			continue;
		p->pp.on_err_ind(p->pp.cb_arg, &ei);
	}
}

void n4c_sess_peer_lost(struct upf_n4c *c, struct upf_n4c_p *p, bool notify)
{
	for (uint32_t id = 0; id < c->p.max_sessions; id++) {
		struct n4c_sess *s = &c->sess[id];
		bool mine = s->want && s->peer == p->idx;
		bool had = s->have && s->have_peer == p->idx;

		if (s->busy && c->txn[s->busy - 1].peer == p->idx) {
			n4c_txn_free(c, s->busy - 1);
			s->busy = 0;
		}
		if (had) {
			s->have = false;
			s->resync = false;
		}
		if (!mine)
			continue;
		if (notify && p->resetup && !had && !s->lost) {
			continue;   /* never installed there: established after the re-setup instead */
		} else if (notify) {
			lost(c, id, UPF_LOST_PEER);
		} else {   /* the peer is being removed: the SMF holds none of these any more */
			s->want = false;
			s->lost = false;
		}
	}
	if (!notify)
		p->nsess = 0;
}

void n4c_sess_peer_resume(struct upf_n4c *c, struct upf_n4c_p *p)
{
	/* a session it has and the SMF left alone is current: sess_sync sends nothing for it */
	for (uint32_t id = 0; id < c->p.max_sessions; id++) {
		struct n4c_sess *s = &c->sess[id];

		if (!s->busy && ((s->want && s->peer == p->idx) || (s->have && s->have_peer == p->idx)))
			sess_sync(c, id);
	}
}

void n4c_sess_peer_expire(struct upf_n4c *c, struct upf_n4c_p *p)
{
	for (uint32_t id = 0; id < c->p.max_sessions; id++)
		if (c->sess[id].want && c->sess[id].peer == p->idx)
			lost(c, id, UPF_LOST_PEER);   /* once: lost() skips those told already */
}

/* ---- the calls of upf.h ---- */

void n4c_sess_features(struct upf_n4c *c, struct upf_n4c_p *p)
{
	const struct pfcp_buf *f = &c->in.node.up_features;

	/* 8.2.25: octet 5 bit 5, the first octet of the bit string */
	p->ftup = (c->in.node.has & PFCP_N_UP_FEATURES) && f->len >= 1 && (f->p[0] & 0x10);
}

uint32_t upf_n4c_cp_teid(const struct upf_n4c *c, uint32_t ul_teid)
{
	unsigned bits = 32 - (unsigned)__builtin_clz(c->p.max_sessions);   /* id + 1 <= max_sessions */

	return bits >= 32 ? ul_teid : (uint32_t)(c->p.node_id << bits) | ul_teid;
}

bool upf_session_pending(const struct upf *u, uint32_t id)
{
	const struct upf_n4c_p *p = u ? u->remote : NULL;
	const struct n4c_sess *s;

	if (!p || id >= p->c->p.max_sessions)
		return false;
	s = &p->c->sess[id];
	return s->want && s->peer == p->idx && s->est_wait;
}

/* The slot of id, its rule checked (r non-NULL): 0 when it is this peer's session, -ENOENT
 * when not (*out set either way), -ERANGE / -EINVAL for a bad argument. */
static int slot_of(struct upf *u, uint32_t id, const struct upf_session_rule *r, struct n4c_sess **out)
{
	static const uint8_t zero16[16];
	struct upf_n4c_p *p = u->remote;
	struct n4c_sess *s;

	if (id >= p->c->p.max_sessions)
		return -ERANGE;
	if (r && ((!r->ue_addr && !has_prefix6(r)) || r->qfi > 63 ||
		  (r->dl_state == UPF_DL_ACTIVE && !r->gnb_addr && !memcmp(r->gnb_addr6, zero16, 16)) ||
		  (r->dl_state != UPF_DL_ACTIVE && r->dl_state != UPF_DL_BUFFER)))
		return -EINVAL;
	/* NAT over N4 is the UPF's own decision, by the DNN (upf_n4_rule.c): PFCP has no IE that
	 * asks a UPF for it, so a rule asking here would be silently lost. */
	if (r && r->nat)
		return -EOPNOTSUPP;
	*out = s = &p->c->sess[id];
	return s->want && s->peer == p->idx ? 0 : -ENOENT;
}

int upf_n4c_sess_create(struct upf *u, uint32_t id, const struct upf_session_rule *r)
{
	struct upf_n4c_p *p = u->remote;
	struct n4c_sess *s;
	int rc = slot_of(u, id, r, &s);

	if (rc != -ENOENT)
		return rc ? rc : -EEXIST;
	if (s->want)
		return -EEXIST;   /* another peer's */
	if (p->st != AS_UP && !p->resetup)
		return -ENOTCONN;
	s->want = true;
	s->lost = false;
	s->est_wait = p->pp.on_est_done != NULL;
	s->peer = p->idx;
	s->gen = s->gen == UINT32_MAX ? 1 : s->gen + 1;
	s->r = *r;
	memset(&s->st, 0, sizeof(s->st));
	s->fwd_want = false;
	s->fwd_addr = s->fwd_teid = s->fwd_up_addr = s->fwd_up_teid = 0;
	p->nsess++;
	sess_sync(p->c, id);
	return 0;
}

int upf_n4c_sess_modify(struct upf *u, uint32_t id, const struct upf_session_rule *r)
{
	struct n4c_sess *s;
	int rc = slot_of(u, id, r, &s);

	if (rc)
		return rc;
	if (s->lost)
		return -ENOTCONN;
	if (r->ul_teid != s->r.ul_teid || r->ue_addr != s->r.ue_addr || memcmp(r->ue_prefix6, s->r.ue_prefix6, 8))
		return -EOPNOTSUPP;
	s->r = *r;
	sess_sync(u->remote->c, id);
	return 0;
}

int upf_n4c_sess_remove(struct upf *u, uint32_t id)
{
	struct n4c_sess *s;
	int rc = slot_of(u, id, NULL, &s);

	if (rc)
		return rc;
	s->want = false;
	s->lost = false;
	s->est_wait = false;   /* a late answer is not the SMF's any more */
	u->remote->nsess--;
	sess_sync(u->remote->c, id);
	return 0;
}

int upf_n4c_sess_stats(struct upf *u, uint32_t id, struct upf_session_stats *out)
{
	struct n4c_sess *s;
	int rc = slot_of(u, id, NULL, &s);

	if (rc)
		return rc;
	*out = s->st;
	return 0;
}

/* ---- the indirect forwarding tunnel (upf.h upf_fwd_*) ---- */

int upf_n4c_fwd_prepare(struct upf *u, uint32_t id)
{
	struct upf_n4c_p *p = u->remote;
	struct n4c_sess *s;
	int rc = slot_of(u, id, NULL, &s);

	if (rc)
		return rc;
	if (s->lost)
		return -ENOTCONN;
	if (s->fwd_want)
		return -EEXIST;
	s->fwd_want = true;
	s->fwd_addr = s->fwd_teid = 0;
	s->fwd_up_addr = s->fwd_up_teid = 0;
	if (!p->ftup) {   /* 5.5.3.1: ours to allocate, unique per SMF node as the uplink's */
		s->fwd_up_teid = UPF_FWD_TEID_BIT | upf_n4c_cp_teid(p->c, id + 1);
		s->fwd_up_addr = p->pp.n3_addr;
	}
	sess_sync(p->c, id);
	return 0;
}

int upf_n4c_fwd_create(struct upf *u, uint32_t id, uint32_t peer_addr, uint32_t peer_teid)
{
	struct upf_n4c_p *p = u->remote;
	struct n4c_sess *s;
	int rc = slot_of(u, id, NULL, &s);

	if (rc)
		return rc;
	if (!peer_addr || peer_addr == p->pp.n3_addr)
		return -EINVAL;   /* as in process: no target, or a relay to itself */
	if (s->fwd_want && s->fwd_addr)
		return -EEXIST;
	if (!s->fwd_want && (rc = upf_n4c_fwd_prepare(u, id)))
		return rc;
	s->fwd_addr = peer_addr;
	s->fwd_teid = peer_teid;
	sess_sync(p->c, id);
	return 0;
}

int upf_n4c_fwd_remove(struct upf *u, uint32_t id)
{
	struct n4c_sess *s;
	int rc = slot_of(u, id, NULL, &s);

	if (rc)
		return rc;
	if (!s->fwd_want)
		return -ENOENT;
	s->fwd_want = false;
	s->fwd_addr = s->fwd_teid = 0;
	sess_sync(u->remote->c, id);
	return 0;
}

/* A Session Modification Response with Cause 1 (TS 29.244 7.2.2, 7.5.5: the header, then
 * TLV IEs; a bounded walk, nothing decoded beyond the Cause) */
static bool mod_accepted(const uint8_t *b, size_t n)
{
	size_t end, off = 16;   /* 7.2.2.1: version, S set (a SEID), type, length, SEID, sequence */

	if (n < 16 || b[0] >> 5 != 1 || !(b[0] & 1) || b[1] != PFCP_SESS_MOD_RSP)
		return false;
	end = 4 + ((size_t)b[2] << 8 | b[3]);
	if (end > n)
		return false;
	while (off + 4 <= end) {
		uint16_t type = (uint16_t)(b[off] << 8 | b[off + 1]), len = (uint16_t)(b[off + 2] << 8 | b[off + 3]);

		if (off + 4 + len > end)
			return false;
		if (type == PFCP_IE_CAUSE)
			return len >= 1 && b[off + 4] == PFCP_CAUSE_ACCEPTED;
		off += 4 + (size_t)len;
	}
	return false;
}

/* The Session Modification Responses with Cause 1 already in the socket, taken now in arrival
 * order up to the first datagram that is anything else (left to the loop). The SMF asks for
 * the forwarding tunnel's F-TEID at the Handover Required and needs it when it handles the
 * target's acknowledge (upf.h upf_fwd_prepare); measured in e2e pfcp-ho-n2-indirect, the
 * UPF's answer (0.1-0.5 ms) is often in the socket already then but behind the acknowledge in
 * the same loop turn. An accepted modification's answer calls nothing of the SMF (n4c_sess_done:
 * usage, the forwarding F-TEID, the next request), so this is safe inside an SMF action.
 * Never waits. */
static void take_mod_answers(struct upf_n4c *c)
{
	static uint8_t b[PFCP_MSG_MAX_LEN];   /* the control thread's only */

	for (int k = 0; c->fd >= 0 && k < 64; k++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(c->fd, b, sizeof(b), MSG_PEEK | MSG_DONTWAIT, (struct sockaddr *)&from, &fl);

		if (n < 0 || !mod_accepted(b, (size_t)n))
			return;
		fl = sizeof(from);
		n = recvfrom(c->fd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		if (n < 0)
			return;
		upf_n4c_input(c, from.sin_addr.s_addr, ntohs(from.sin_port), b, (size_t)n);
	}
}

int upf_n4c_fwd_tunnel(struct upf *u, uint32_t id, uint32_t *addr, uint32_t *teid)
{
	struct n4c_sess *s;
	int rc = slot_of(u, id, NULL, &s);

	if (rc)
		return rc;
	if (!s->fwd_want)
		return -ENOENT;
	if (!s->fwd_up_addr)
		take_mod_answers(u->remote->c);
	if (!s->fwd_up_addr)
		return -EINPROGRESS;   /* CHOOSE asked, not answered yet */
	*addr = s->fwd_up_addr;
	*teid = s->fwd_up_teid;
	return 0;
}
