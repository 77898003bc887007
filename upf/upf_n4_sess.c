/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N4 sessions (TS 29.244 5.2, 7.5): establishment, modification, deletion
 * and the Session Report Request for downlink data (7.5.8).
 *
 * One PFCP session is one data path session with the same id; slots come
 * from a free list (O(1), returned on every failure path). Our UP SEID is
 * (tag << 32) | (id + 1), tag a random non-zero word drawn at each use (issue 31
 * point 6): never 0, not guessable from another session's, and a SEID of a deleted
 * session never reaches the session that reuses its slot (the tag differs). The
 * uplink TEID we allocate for CHOOSE (5.5.3) is random in 1..max_teid, the index
 * of the data path's uplink rule array (upf.h), and not held by another of our
 * sessions (a bitmap of the TEIDs in use, CP-chosen ones in that range included;
 * retried on collision). A CP-chosen TEID past max_teid is the data path's hash's
 * (upf.h ul_teid), never one we choose. Each association
 * holds at most sessions_per_peer sessions (cause 75 beyond, 8.2.1).
 * Session messages carry our SEID in the header; the response carries the
 * CP's (7.2.2.4.2), or 0 when the session is unknown.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

int n4_sess_init(struct upf_n4 *n)
{
	n->sess = calloc(n->p.max_sessions, sizeof(*n->sess));
	if (!n->sess)
		return -ENOMEM;
	n->free_head = N4_NONE;
	n->fresh = 0;
	n->w_head = n->w_cursor = N4_NONE;
	return 0;
}

/* A free slot: a released one first, else the next never used. N4_NONE: all in use. */
static uint32_t sess_take(struct upf_n4 *n)
{
	uint32_t id = n->free_head;

	if (id != N4_NONE)
		n->free_head = n->sess[id].next_free;
	else if (n->fresh < n->p.max_sessions)
		id = n->fresh++;
	return id;
}

static uint64_t up_seid(const struct upf_n4 *n, uint32_t id)
{
	return (uint64_t)n->sess[id].tag << 32 | (id + 1);
}

/* The bitmap covers 1..max_teid, the TEIDs we choose; a CP-chosen TEID past it lives in the
 * data path's hash (upf.h), which pdr_ul asks (upf_teid_taken). */
static bool teid_held(const struct upf_n4 *n, uint32_t t)
{
	return t <= n->p.max_teid && (n->teid_used[t / 64] >> (t % 64) & 1);
}

static void teid_mark(struct upf_n4 *n, uint32_t t, bool on)
{
	if (t > n->p.max_teid)
		return;
	if (on)
		n->teid_used[t / 64] |= 1ull << (t % 64);
	else
		n->teid_used[t / 64] &= ~(1ull << (t % 64));
}

/* A free uplink TEID in 1..max_teid, uniformly at random (5.5.3.1: the UP function
 * allocates; issue 31: not guessable). A few random draws find one unless the table is
 * almost full; then a scan from a random point. 0: none free. */
static uint32_t teid_choose(struct upf_n4 *n)
{
	uint32_t m = n->p.max_teid, t;

	for (int i = 0; i < 32; i++) {
		t = (uint32_t)(((uint64_t)n4_rand32(n) * m) >> 32) + 1;
		if (!teid_held(n, t))
			return t;
	}
	t = (uint32_t)(((uint64_t)n4_rand32(n) * m) >> 32);
	for (uint32_t k = 0; k < m; k++) {
		uint32_t c = (t + k) % m + 1;

		if (!teid_held(n, c))
			return c;
	}
	return 0;
}

/* The session our SEID names, if it belongs to this association */
static struct n4_sess *sess_find(struct upf_n4 *n, uint64_t seid, int peer, uint32_t *id)
{
	uint32_t i = (uint32_t)seid - 1;

	if ((uint32_t)seid == 0 || i >= n->p.max_sessions)
		return NULL;
	struct n4_sess *s = &n->sess[i];

	if (!s->used || s->tag != (uint32_t)(seid >> 32) || s->peer != peer)
		return NULL;
	*id = i;
	return s;
}

uint64_t n4_sess_cp_seid(struct upf_n4 *n, uint64_t seid)
{
	uint32_t id;
	int peer = n4_peer_by_addr(n, n->from_addr);
	const struct n4_sess *s = peer >= 0 ? sess_find(n, seid, peer, &id) : NULL;

	return s ? s->cp_seid : 0;
}

static void sess_free(struct upf_n4 *n, uint32_t id)
{
	struct n4_sess *s = &n->sess[id];
	uint32_t tag = s->tag;

	if (s->used) {
		n->peers[s->peer].n_sess--;
		n->n_sess--;
		if (s->r.ul_teid)
			teid_mark(n, s->r.ul_teid, false);
	}
	n4_urr_unwatch(n, id);
	memset(s, 0, sizeof(*s));
	s->tag = tag;
	s->next_free = n->free_head;
	n->free_head = id;
}

static void sess_rsp(struct upf_n4 *n, uint64_t seid, uint8_t cause, uint16_t offending);

/* A refusal of a rule: 7.5.3.1 / 7.5.5.1, the Failed Rule ID with cause 73 (8.2.80) */
static void sess_rsp_rule(struct upf_n4 *n, uint64_t seid, uint8_t cause, uint16_t offending,
			  const struct n4_sess *t)
{
	sess_rsp(n, seid, cause, offending);
	if (cause == PFCP_CAUSE_RULE_FAILURE && t->failed) {
		n->out.rsp.has |= PFCP_SRSP_FAILED_RULE;
		n->out.rsp.failed_rule = t->fail;
	}
}

static void sess_rsp(struct upf_n4 *n, uint64_t seid, uint8_t cause, uint16_t offending)
{
	n4_rsp_init(n, n->in.h.type + 1, seid);
	n->out.rsp.has = PFCP_SRSP_CAUSE | (offending ? PFCP_SRSP_OFFENDING : 0);
	n->out.rsp.cause = cause;
	n->out.rsp.offending_ie = offending;
	if (n->in.h.type == PFCP_SESS_EST_REQ) {
		n->out.rsp.has |= PFCP_SRSP_NODE_ID;
		n4_own_node_id(n, &n->out.rsp.node_id);
	}
	if (cause != PFCP_CAUSE_ACCEPTED)
		n->cnt[UPF_N4_SESS_REJECTED]++;
}

/* A data path refusal as a PFCP cause (8.2.1) */
static uint8_t upf_cause(int rc, uint16_t *off)
{
	switch (rc) {
	case -EADDRINUSE:   /* the TEID or the UE address is another session's */
	case -ERANGE:
		*off = PFCP_IE_CREATE_PDR;
		return PFCP_CAUSE_RULE_FAILURE;
	case -EINVAL:
		*off = PFCP_IE_CREATE_FAR;
		return PFCP_CAUSE_RULE_FAILURE;
	case -ENOSPC:       /* no entry left for a CP-chosen TEID past max_teid (upf.h max_cp_teids) */
		*off = PFCP_IE_F_TEID;
		return PFCP_CAUSE_NO_RESOURCES;
	default:
		return PFCP_CAUSE_SYSTEM_FAILURE;
	}
}

static void created(struct upf_n4 *n, uint16_t pdr_id, uint8_t families, uint32_t teid)
{
	struct pfcp_created_pdr *c = &n->out.rsp.created[n->out.rsp.n_created++];

	n->out.rsp.has |= PFCP_SRSP_CREATED_PDR;
	c->has = PFCP_CPDR_ID | PFCP_CPDR_F_TEID;
	c->pdr_id = pdr_id;
	c->fteid.flags = families;
	c->fteid.teid = teid;
	if (families & PFCP_FTEID_V4)
		memcpy(c->fteid.ipv4, &n->p.n3_addr, 4);
	if (families & PFCP_FTEID_V6)
		memcpy(c->fteid.ipv6, n->p.n3_addr6, 16);
}

static void est_accept(struct upf_n4 *n, uint32_t id, bool choose)
{
	struct n4_sess *s = &n->sess[id];
	struct pfcp_sess_rsp *r = &n->out.rsp;

	sess_rsp(n, s->cp_seid, PFCP_CAUSE_ACCEPTED, 0);
	r->has |= PFCP_SRSP_F_SEID;
	r->up_fseid.flags = PFCP_ADDR_V4;
	r->up_fseid.seid = up_seid(n, id);
	memcpy(r->up_fseid.ipv4, &n->p.addr, 4);
	if (choose) {
		/* 7.5.3.2: Created PDR with the F-TEID the UP function allocated; 8.2.3: the
		 * families it has of those asked; the up2cp PDR shares it (same CHOOSE ID) */
		created(n, s->ul_pdr, s->fteid_flags, s->r.ul_teid);
		if (s->up2cp_pdr)
			created(n, s->up2cp_pdr, s->fteid_flags, s->r.ul_teid);
		/* issue 32: the further uplink PDRs on that CHOOSE ID (upf_n4_sdf.c) too */
		for (unsigned i = 0; i < n->in.est.n_pdr; i++)
			if (n4_sdf_chooses(s, &n->in.est.pdr[i]))
				created(n, n->in.est.pdr[i].pdr_id, s->fteid_flags, s->r.ul_teid);
	}
	if (s->cp2up_pdr)
		created(n, s->cp2up_pdr, s->cp2up_families, n4_cp2up_teid(n, id));
	n->cnt[UPF_N4_SESS_EST]++;
}

/* TS 29.244 7.5.2 / 5.2: all rules accepted or none installed */
static void sess_est(struct upf_n4 *n, int peer)
{
	const struct pfcp_sess_est_req *e = &n->in.est;
	uint64_t cp_seid = e->cp_fseid.seid;
	uint16_t off = 0;
	bool choose;
	uint32_t id;
	int rc;

	if (n->free_head == N4_NONE && n->fresh >= n->p.max_sessions) {
		log_rl(LOGL_WARN, N4_MOD, NULL, "session establishment: all %u sessions in use", n->p.max_sessions);
		sess_rsp(n, cp_seid, PFCP_CAUSE_NO_RESOURCES, 0);
		return;
	}
	if (n->peers[peer].n_sess >= n->p.sessions_per_peer) {
		/* issue 31 point 5: one association (a stranger's, or a runaway CP) cannot take
		 * the whole table; 8.2.1 cause 75 to it, the others go on */
		log_rl(LOGL_WARN, N4_MOD, NULL, "session establishment from %s: its %u sessions are its quota "
		       "(upf.n4_sessions_per_peer)", inet_ntoa((struct in_addr){ n->from_addr }), n->peers[peer].n_sess);
		n->cnt[UPF_N4_SESS_QUOTA]++;
		sess_rsp(n, cp_seid, PFCP_CAUSE_NO_RESOURCES, 0);
		return;
	}
	id = sess_take(n);
	struct n4_sess *s = &n->sess[id];
	uint32_t tag;

	do   /* never 0, never the slot's previous one: a stale SEID finds nothing */
		tag = n4_rand32(n);
	while (!tag || tag == s->tag);
	s->tag = tag;
	rc = n4_rules_from_est(n, e, s, &choose, &off);
	if (!rc && choose && !(s->r.ul_teid = teid_choose(n)))
		rc = PFCP_CAUSE_NO_RESOURCES;
	if (!rc && !choose && s->r.ul_teid && teid_held(n, s->r.ul_teid)) {
		/* the CP's own F-TEID (5.5.3.1) is one of our sessions' */
		log_rl(LOGL_WARN, N4_MOD, NULL, "session establishment: uplink TEID 0x%x in use", s->r.ul_teid);
		rc = PFCP_CAUSE_RULE_FAILURE;
		off = PFCP_IE_CREATE_PDR;
	}
	if (!rc && n->p.upf && (rc = upf_session_create(n->p.upf, id, &s->r)) < 0) {
		log_rl(LOGL_WARN, N4_MOD, NULL, "session establishment: data path refused: %s", strerror(-rc));
		rc = upf_cause(rc, &off);
	}
	/* issue 32: the uplink PDRs with selecting SDF filters (upf_n4_sdf.c) */
	if (!rc && n->p.upf && (rc = n4_sdf_install(n, e, s, id, &off)))
		upf_session_remove(n->p.upf, id);
	if (rc) {
		struct n4_sess t = *s;

		if (off == PFCP_IE_CREATE_PDR && !t.failed)   /* the data path's refusal: TEID or UE address */
			n4_fail_rule(&t, PFCP_RULE_PDR, rc == PFCP_CAUSE_RULE_FAILURE && s->r.ul_teid &&
				     teid_held(n, s->r.ul_teid) ? s->ul_pdr : s->dl_pdr);
		sess_free(n, id);
		sess_rsp_rule(n, cp_seid, (uint8_t)rc, off, &t);
		return;
	}
	s->used = true;
	if (s->r.ul_teid)
		teid_mark(n, s->r.ul_teid, true);
	s->peer = (uint8_t)peer;
	s->cp_seid = cp_seid;
	memcpy(&s->cp_addr, e->cp_fseid.ipv4, 4);
	n->peers[peer].n_sess++;
	n->n_sess++;
	n4_urr_start(n, s, id);
	n4_urr_watch(n, id);
	est_accept(n, id, choose);
}

/* The data path's rule of session id from s->r to t->r. TEID, UE address, /64 and NAT are fixed
 * for a data path session's life (upf.h), and only its removal drops what it buffered: a
 * modification that changes those (Remove / Create PDR) or drops the buffer (DROBU, 8.2.31,
 * on leaving BUFF) rebuilds it, the old one put back if the new one is refused. A rebuilt
 * session's counters start again: the URRs' measurements are carried over (n4_urr_rebase). */
static int dp_modify(struct upf_n4 *n, uint32_t id, struct n4_sess *s, struct n4_sess *t)
{
	const struct upf_session_rule *a = &s->r, *b = &t->r;
	bool drobu = (n->in.mod.has & PFCP_SMR_FLAGS) && (n->in.mod.flags & PFCP_SMF_DROBU) &&
		     a->dl_state == UPF_DL_BUFFER && b->dl_state == UPF_DL_ACTIVE;
	struct upf_session_stats before, after;
	int rc;

	if (!n->p.upf || !memcmp(a, b, sizeof(*a)))
		return 0;
	if (!drobu && a->ul_teid == b->ul_teid && a->ue_addr == b->ue_addr && a->nat == b->nat &&
	    !memcmp(a->ue_prefix6, b->ue_prefix6, 8))
		return upf_session_modify(n->p.upf, id, b);
	if (upf_session_stats(n->p.upf, id, &before) < 0)
		memset(&before, 0, sizeof(before));
	upf_session_remove(n->p.upf, id);
	rc = upf_session_create(n->p.upf, id, b);
	if (rc < 0) {
		if (upf_session_create(n->p.upf, id, a) < 0)
			log_rl(LOGL_ERROR, N4_MOD, NULL, "session %u: its old rule could not be put back", id);
		if (upf_session_stats(n->p.upf, id, &after) < 0)
			memset(&after, 0, sizeof(after));
		n4_urr_rebase(s, &before, &after);
		return rc;
	}
	if (upf_session_stats(n->p.upf, id, &after) < 0)
		memset(&after, 0, sizeof(after));
	n4_urr_rebase(s, &before, &after);
	n4_urr_rebase(t, &before, &after);
	return 0;
}

/* TS 29.244 7.5.4: the rule changes on a copy of the session (upf_n4_mod.c), then the data
 * path (dp_modify; it sends the End Marker when an active downlink tunnel moves, TS 23.501
 * 5.8.2.9, TS 29.281 7.3.2: with SNDEM, 8.2.31, and without); kept only if all was accepted. */
static void sess_mod(struct upf_n4 *n, struct n4_sess *s, uint32_t id)
{
	struct n4_sess t = *s;
	uint16_t off = 0;
	bool choose = false, fwd_choose;
	/* the forwarding tunnel's rules first, taken out of the message (upf_n4_fwd.c) */
	int rc = n4_fwd_take(n, &n->in.mod, id, &t, &fwd_choose, &off);

	if (!rc)
		rc = n4_rules_update(n, &n->in.mod, &t, &choose, &off);

	if (!rc && choose && !(t.r.ul_teid = teid_choose(n)))
		rc = PFCP_CAUSE_NO_RESOURCES;
	if (!rc && !choose && t.r.ul_teid && t.r.ul_teid != s->r.ul_teid && teid_held(n, t.r.ul_teid)) {
		log_rl(LOGL_WARN, N4_MOD, NULL, "session modification: uplink TEID 0x%x in use", t.r.ul_teid);
		n4_fail_rule(&t, PFCP_RULE_PDR, t.ul_pdr);
		rc = PFCP_CAUSE_RULE_FAILURE;
		off = PFCP_IE_CREATE_PDR;
	}
	if (!rc && (rc = dp_modify(n, id, s, &t)) < 0) {
		log_rl(LOGL_WARN, N4_MOD, NULL, "session modification: data path refused: %s", strerror(-rc));
		rc = upf_cause(rc, &off);
		off = off ? (n->in.mod.n_pdr ? PFCP_IE_CREATE_PDR : PFCP_IE_UPDATE_FAR) : 0;
	}
	/* checked by n4_fwd_take (target, one per session): not refused here in practice */
	if (!rc && n4_fwd_apply(n, id, s, &t) < 0) {
		rc = PFCP_CAUSE_RULE_FAILURE;
		off = PFCP_IE_CREATE_FAR;
	}
	if (rc) {
		sess_rsp_rule(n, s->cp_seid, (uint8_t)rc, off, &t);
		return;
	}
	if (t.r.ul_teid != s->r.ul_teid) {
		if (s->r.ul_teid)
			teid_mark(n, s->r.ul_teid, false);
		if (t.r.ul_teid)
			teid_mark(n, t.r.ul_teid, true);
	}
	if (n->in.mod.has & PFCP_SMR_F_SEID)   /* 7.5.4.1: the CP's new F-SEID */
		t.cp_seid = n->in.mod.cp_fseid.seid;
	t.failed = false;
	sess_rsp(n, t.cp_seid, PFCP_CAUSE_ACCEPTED, 0);
	if (choose)   /* 7.5.5.1: Created PDR, the F-TEID we allocated */
		created(n, t.ul_pdr, t.fteid_flags, t.r.ul_teid);
	if (fwd_choose)   /* ... and the forwarding tunnel's */
		created(n, t.fwd_pdr, PFCP_FTEID_V4, UPF_FWD_TEID(id));
	/* 7.5.5.2: Usage Reports of the URRs queried or removed */
	n4_urr_mod_reports(n, &n->in.mod, s, &t, id);
	t.watched = s->watched;   /* the list's links are the slot's, not the copy's */
	t.w_next = s->w_next;
	t.w_prev = s->w_prev;
	*s = t;
	n4_urr_watch(n, id);
	n->cnt[UPF_N4_SESS_MOD]++;
}

static void sess_del(struct upf_n4 *n, struct n4_sess *s, uint32_t id)
{
	sess_rsp(n, s->cp_seid, PFCP_CAUSE_ACCEPTED, 0);
	n4_urr_final(n, s, id);   /* 7.5.7.2, TERMR */
	if (n->p.upf)
		upf_session_remove(n->p.upf, id);
	sess_free(n, id);
	n->cnt[UPF_N4_SESS_DEL]++;
}

void n4_sess_rx(struct upf_n4 *n, int peer)
{
	struct n4_sess *s;
	uint32_t id = 0;

	if (n->in.h.type == PFCP_SESS_EST_REQ) {
		sess_est(n, peer);
		return;
	}
	if (n->in.h.type == PFCP_SESS_REPORT_REQ) {
		/* a UP-to-CP message (7.5.8): not ours to answer otherwise */
		n4_rsp_init(n, PFCP_SESS_REPORT_RSP, 0);
		n->out.rep_rsp.has = PFCP_SRRSP_CAUSE;
		n->out.rep_rsp.cause = PFCP_CAUSE_REJECTED;
		return;
	}
	s = sess_find(n, n->in.h.seid, peer, &id);
	if (!s) {
		log_rl(LOGL_INFO, N4_MOD, NULL, "%s for unknown SEID 0x%llx: cause 65", pfcp_msg_name(n->in.h.type),
		       (unsigned long long)n->in.h.seid);
		sess_rsp(n, 0, PFCP_CAUSE_SESSION_NOT_FOUND, 0);
		return;
	}
	if (n->in.h.type == PFCP_SESS_MOD_REQ)
		sess_mod(n, s, id);
	else
		sess_del(n, s, id);
}

/* TS 29.244 6.2.6.2.2 / 6.2.6.4: the association's sessions deleted locally */
void n4_sess_purge_peer(struct upf_n4 *n, int peer)
{
	for (uint32_t i = 0; i < n->p.max_sessions && n->peers[peer].n_sess; i++) {
		if (!n->sess[i].used || n->sess[i].peer != peer)
			continue;
		if (n->p.upf)
			upf_session_remove(n->p.upf, i);
		sess_free(n, i);
		n->cnt[UPF_N4_SESS_PURGED]++;
	}
}

/* ---- Session Report (7.5.8, 7.5.9) ---- */

/* A Session Report Request with a Downlink Data Report for session id (7.5.8.2), sequence seq */
static int report_send(struct upf_n4 *n, const struct n4_sess *s, uint32_t seq)
{
	memset(&n->out.h, 0, sizeof(n->out.h));
	n->out.h.type = PFCP_SESS_REPORT_REQ;
	n->out.h.seid = s->cp_seid;
	n->out.h.seq = seq;
	memset(&n->out.rep, 0, sizeof(n->out.rep));
	n->out.rep.has = PFCP_SRR_TYPE | PFCP_SRR_DL_REPORT;
	n->out.rep.type = PFCP_RPT_DLDR;
	n->out.rep.dl.has = PFCP_DLDR_PDR_ID;
	n->out.rep.dl.n_pdr = 1;
	n->out.rep.dl.pdr_id[0] = s->dl_pdr;
	/* 4.2.2: requests go to the peer's port 8805 */
	return n4_send_out(n, n->peers[s->peer].addr, PFCP_PORT);
}

/* n->out.rep is a Session Report Request on session id: header, send, and track it for the
 * retransmissions of 6.4 (keep: its bytes, re-sent as they were) */
int n4_report_track(struct upf_n4 *n, struct n4_sess *s, uint32_t id, uint32_t seq, bool keep)
{
	struct n4_report *q;
	int len;

	memset(&n->out.h, 0, sizeof(n->out.h));
	n->out.h.type = PFCP_SESS_REPORT_REQ;
	n->out.h.seid = s->cp_seid;
	n->out.h.seq = seq;
	len = n4_send_out(n, n->peers[s->peer].addr, PFCP_PORT);   /* 4.2.2: to port 8805 */
	if (len < 0)
		return len;
	q = &n->reports[seq % N4_REPORT_MAX];
	q->seq = seq;
	q->sess = id;
	q->addr = n->peers[s->peer].addr;
	q->cp_seid = s->cp_seid;
	q->at_ns = n4_now_ns(n);
	q->tries = 0;
	q->len = 0;
	if (keep && (size_t)len <= sizeof(q->bytes)) {
		memcpy(q->bytes, n->obuf, (size_t)len);
		q->len = (uint16_t)len;
	}
	n->cnt[UPF_N4_REPORT_SENT]++;
	return len;
}

void upf_n4_dl_data(struct upf_n4 *n, uint32_t id)
{
	struct n4_sess *s;
	struct n4_report *q;
	uint32_t seq;

	if (!n || id >= n->p.max_sessions)
		return;
	s = &n->sess[id];
	/* 8.2.26: NOCP asks for a notification of the first buffered packet */
	if (!s->used || s->r.dl_state != UPF_DL_BUFFER || !s->nocp || s->reported)
		return;
	seq = n->next_seq;
	n->next_seq = n->next_seq >= PFCP_SEQ_MAX ? 1 : n->next_seq + 1;
	if (report_send(n, s, seq) < 0)
		return;
	q = &n->reports[seq % N4_REPORT_MAX];
	q->seq = seq;
	q->sess = id;
	q->addr = n->peers[s->peer].addr;
	q->cp_seid = s->cp_seid;
	q->at_ns = n4_now_ns(n);
	q->tries = 0;
	q->len = 0;
	s->reported = true;
	n->cnt[UPF_N4_REPORT_SENT]++;
}

/* TS 29.244 6.4: a request without an answer after T1 goes again, the same bytes and sequence
 * number, N1 times; then the CP is taken as not answering this one (the heartbeats tell whether
 * it is gone). At most N4_REPORT_MAX are outstanding: the scan is bounded. */
int upf_n4_tick(struct upf_n4 *n, uint64_t now_ns)
{
	uint64_t t1 = (uint64_t)n->p.t1_ms * 1000000u;
	int sent = n4_heartbeat_tick(n, now_ns);

	for (unsigned i = 0; i < N4_REPORT_MAX; i++) {
		struct n4_report *q = &n->reports[i];
		struct n4_sess *s;

		if (!q->seq || now_ns - q->at_ns < t1)
			continue;
		s = &n->sess[q->sess];
		/* the session went (deleted, purged) or its slot is someone else's now: nothing to report */
		if (!s->used || s->cp_seid != q->cp_seid || n->peers[s->peer].addr != q->addr) {
			q->seq = 0;
			continue;
		}
		if (q->tries >= n->p.n1) {
			log_rl(LOGL_WARN, N4_MOD, NULL, "session %u: Session Report Request seq %u unanswered after %u retransmissions",
			       q->sess, q->seq, q->tries);
			n->cnt[UPF_N4_REPORT_TIMEOUT]++;
			/* a later buffering period may report again (the data path notifies once per period) */
			if (!q->len)
				s->reported = false;
			q->seq = 0;
			continue;
		}
		if (q->len ? (pfcp_decode(q->bytes, q->len, &n->out, NULL) < 0 ||
			      n4_send_out(n, q->addr, PFCP_PORT) < 0) :
			     report_send(n, s, q->seq) < 0)
			continue;   /* counted as tx_failed; tried again at the next tick */
		q->tries++;
		q->at_ns = now_ns;
		n->cnt[UPF_N4_REPORT_RETX]++;
		sent++;
	}
	/* 5.2.2: threshold and periodic usage reports (after the retransmissions: a report sent
	 * now is not due again at once) */
	sent += n4_urr_tick(n, now_ns);
	return sent;
}

/* The CP's answer to our report: matched by sequence number (7.2.2.2) and sender */
void n4_report_rsp(struct upf_n4 *n)
{
	struct n4_report *q = &n->reports[n->in.h.seq % N4_REPORT_MAX];

	if (!n->in.h.seq || q->seq != n->in.h.seq || q->addr != n->from_addr) {
		n->cnt[UPF_N4_RX_STALE_RSP]++;
		return;
	}
	if (n->in.rep_rsp.cause != PFCP_CAUSE_ACCEPTED)
		log_rl(LOGL_INFO, N4_MOD, NULL, "session %u: report answered with cause %u (%s)", q->sess,
		       n->in.rep_rsp.cause, pfcp_cause_name(n->in.rep_rsp.cause));
	q->seq = 0;
	n->cnt[UPF_N4_REPORT_RSP]++;
}
