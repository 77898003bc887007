/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The N4 client's internals, shared by upf_n4c.c (endpoint, transactions, associations) and
 * upf_n4c_sess.c (sessions). */
#ifndef SOLOCORE_UPF_UPF_N4C_INT_H
#define SOLOCORE_UPF_UPF_N4C_INT_H

#include "common/ev.h"
#include "common/pfcp/pfcp.h"
#include "upf/upf_int.h"

#define N4C_MOD "n4c"
#define N4C_NONE UINT32_MAX
#define N4C_DUP_RING 32      /* requests of a peer remembered for duplicate detection */

/* What a transaction is for: how to build its bytes again (a retransmission is the same
 * message with the same sequence number, TS 29.244 6.4) and what its answer means. */
enum n4c_txn_kind { TXN_FREE = 0, TXN_SETUP, TXN_HB, TXN_RELEASE, TXN_EST, TXN_MOD, TXN_DEL };

struct n4c_txn {
	uint8_t kind;
	uint8_t peer;
	uint8_t tries;           /* retransmissions so far */
	uint32_t seq;
	uint32_t sess;           /* session id (EST / MOD / DEL) */
	uint32_t gen;            /* generation of the session the request was for */
	uint64_t up_seid;        /* MOD / DEL: the UPF's SEID */
	uint64_t due_ns;
	uint32_t prev, next;     /* retransmission FIFO (every request shares T1) */
};

/* A session, as the SMF wants it (want, r) and as the peer has it (have, sent): the one
 * function n4c_sess_sync() sends what makes the second the first, one request at a time. */
struct n4c_sess {
	uint8_t peer;            /* index of the peer of want */
	uint8_t have_peer;       /* ... and of have (they differ while a session moves) */
	bool want;               /* between upf_session_create and _remove */
	bool have;               /* established on the peer (up_seid valid) */
	bool lost;               /* on_session_lost called for this generation */
	bool est_wait;           /* on_est_done owed for this generation (upf_session_pending) */
	bool choose;             /* the establishment sent asks the UPF for the F-TEID (CH) */
	/* a modification went unanswered while the peer was unreachable: it may or may not hold
	 * it, so it is sent again (the same Update FAR / QER, idempotent) when the peer is back */
	bool resync;
	/* the modification being sent moves an active downlink tunnel: PFCPSMReq-Flags SNDEM
	 * (TS 29.244 8.2.31, 7.5.4.1), the UPF ends the old path with End Markers */
	bool sndem;
	/* The indirect forwarding tunnel (TS 23.502 4.9.1.3.2 steps 9-10, 4.9.1.3.3 step 21a):
	 * fwd_want between upf_fwd_prepare / _create and _remove, its target (fwd_addr / fwd_teid,
	 * the target gNB's DL forwarding F-TEID; addr 0: not known yet, the FAR DROPs); fwd_have
	 * and fwd_sent_*: what the peer has or is being sent; fwd_op: what the modification in
	 * flight does with it (N4C_FWD_*, for its retransmissions); fwd_up_*: its F-TEID on the
	 * UPF (the Created PDR's after a CHOOSE, or ours; teid valid when fwd_up_addr != 0). */
	bool fwd_want, fwd_have;
	uint8_t fwd_op;
	uint32_t fwd_addr, fwd_teid, fwd_sent_addr, fwd_sent_teid;
	uint32_t fwd_up_addr, fwd_up_teid;
	uint32_t busy;           /* transaction index + 1 in flight; 0: none */
	uint32_t gen;            /* generation of want, bumped by each create */
	uint32_t have_gen;       /* generation the peer's session was established for */
	uint64_t up_seid;
	struct upf_session_rule r;       /* wanted */
	struct upf_session_rule sent;    /* what the peer has, or is being sent */
	struct upf_session_stats st;     /* volumes of the last Usage Report */
};

/* AS_UNREACH: heartbeats unanswered (a path failure, TS 29.244 6.2.2), the association and
 * its sessions kept; heartbeats go on; requests are held until the peer answers again. */
enum n4c_as_state { AS_IDLE = 0, AS_SETUP, AS_UP, AS_UNREACH, AS__N };

/* A peer UPF; struct upf's `remote` points here. */
struct upf_n4c_p {
	bool used;
	struct upf_n4c_peer pp;
	char name[32];
	struct upf_n4c *c;
	struct upf *u;           /* what the SMF holds */
	uint8_t idx;
	enum n4c_as_state st;    /* written by n4c_as_dispatch() only */
	uint32_t recovery;       /* the peer's Recovery Time Stamp of this association */
	bool ftup;               /* it advertised FTUP (8.2.25): it allocates F-TEIDs (CHOOSE) */
	uint32_t hb_txn;         /* heartbeat in flight, N4C_NONE: none */
	uint32_t setup_txn;      /* our Association Setup Request in flight */
	const char *why;         /* of the last AE_LOST / AE_RESTART, for the log */
	/* set up again after Cause 72 (issue 31): meanwhile the peer counts as ready, new
	 * establishments (and the one that got 72) are held and sent once it is up */
	bool resetup;
	uint32_t nsess;
	struct ev_timer timer;   /* heartbeat period, or the setup retry */
	struct ev_timer path_timer;   /* AS_UNREACH: path_release_ms, then its sessions go */
	bool path_released;      /* ... and it expired: the SMF released them */
	struct { uint64_t seid; uint32_t seq; uint8_t type; } dup[N4C_DUP_RING];
	uint8_t dup_next;
};

/* TS 23.003 9.1: an APN (the Network Instance we send, TS 29.244 8.2.4) is at most 100 octets */
#define UPF_N4C_NI_MAX 100

struct upf_n4c {
	struct upf_n4c_params p;
	int fd;
	uint32_t recovery;
	struct upf_n4c_p peers[UPF_N4C_PEER_MAX];
	struct n4c_sess *sess;   /* max_sessions */
	struct n4c_txn *txn;     /* txn_mask + 1, indexed by seq & txn_mask */
	uint32_t txn_mask;
	uint32_t next_seq;
	uint32_t fifo_head, fifo_tail;
	struct ev_timer retx;
	/* the message being decoded and the one being built (16.5 KB each: not on the stack) */
	struct pfcp_msg in, out;
	uint8_t obuf[4096];
	uint8_t ni[UPF_N4C_NI_MAX];   /* the Network Instance of the message being built */
	uint32_t from_addr;      /* source of the datagram being handled */
	uint16_t from_port;
	uint64_t cnt[UPF_N4C__MAX];
};

enum { N4C_FWD_NONE = 0, N4C_FWD_CREATE, N4C_FWD_UPDATE, N4C_FWD_REMOVE };

/* upf_n4c_sess.c: upf.h's forwarding tunnel calls for a PFCP peer (upf_fwd.c) */
int upf_n4c_fwd_prepare(struct upf *u, uint32_t id);
int upf_n4c_fwd_create(struct upf *u, uint32_t id, uint32_t peer_addr, uint32_t peer_teid);
int upf_n4c_fwd_remove(struct upf *u, uint32_t id);
int upf_n4c_fwd_tunnel(struct upf *u, uint32_t id, uint32_t *addr, uint32_t *teid);

/* upf_n4c.c */
uint64_t n4c_now_ns(const struct upf_n4c *c);
/* A new request of this kind to peer: a transaction index, or N4C_NONE when the table is
 * full (counted TX_FAILED). The caller fills sess / gen / up_seid, then n4c_txn_send(). */
uint32_t n4c_txn_new(struct upf_n4c *c, uint8_t kind, uint8_t peer);
/* Build (n4c_sess_build or the node builders) and send transaction i; first send and
 * retransmissions alike. */
void n4c_txn_send(struct upf_n4c *c, uint32_t i);
void n4c_txn_free(struct upf_n4c *c, uint32_t i);
void n4c_own_node_id(const struct upf_n4c *c, struct pfcp_node_id *id);
int n4c_send_out(struct upf_n4c *c, const struct upf_n4c_p *p);
/* c->out, the answer to the request being handled, to where that request came from: its
 * source address and port (TS 29.244 4.2.2), c->from_addr / c->from_port */
int n4c_send_reply(struct upf_n4c *c);

/* A string naming peer p for logs: "name (address)" in b */
const char *n4c_peer_str(const struct upf_n4c_p *p, char *b, size_t n);

/* upf_n4c_assoc.c: the association of each peer (TS 29.244 6.2.6) as one state table */
enum n4c_as_event {
	AE_START, AE_SETUP_OK, AE_SETUP_FAIL,
	AE_PATH_FAIL,        /* heartbeat unanswered after N1 retransmissions (6.2.2) */
	AE_RESUME,           /* a heartbeat (request or answer) with this association's stamp */
	AE_PATH_EXPIRED,     /* unreachable for path_release_ms */
	AE_NO_ASSOC,         /* Cause 72 to a session request (6.2.6.1) */
	AE_RESTART,          /* another Recovery Time Stamp (TS 23.007 19A) */
	AE_RELEASED, AE_THEIR_SETUP, AE__N
};
/* The one writer of p->st: runs the action of (p->st, ev), nothing when there is none (a late
 * answer, a timer of an earlier state). */
void n4c_as_dispatch(struct upf_n4c *c, struct upf_n4c_p *p, enum n4c_as_event ev);
/* A new peer's timers (heartbeat / setup retry, path release), then its association setup. */
void n4c_as_init(struct upf_n4c_p *p);

/* upf_n4c_sess.c */
int n4c_sess_init(struct upf_n4c *c);
/* Fill c->out with the session request of transaction t. 0 or -ENOENT (nothing to send). */
int n4c_sess_build(struct upf_n4c *c, const struct n4c_txn *t);
/* The answer (c->in) to transaction t (a copy: slot i is already free), or its timeout
 * (rsp false). */
void n4c_sess_done(struct upf_n4c *c, const struct n4c_txn *t, uint32_t i, bool rsp);
/* Session Report Request (c->in) from peer p: answered, then on_dl_data. */
void n4c_sess_report(struct upf_n4c *c, struct upf_n4c_p *p);
/* Peer p lost its sessions (or is being removed: notify false): forget them. */
void n4c_sess_peer_lost(struct upf_n4c *c, struct upf_n4c_p *p, bool notify);
/* The UP Function Features of the Association Setup (c->in, request or response) of peer p:
 * FTUP, TS 29.244 8.2.25 (n4c_sess_build asks for CHOOSE then). */
void n4c_sess_features(struct upf_n4c *c, struct upf_n4c_p *p);
/* Peer p is up again after a re-setup, or reachable again (same Recovery Time Stamp): send
 * what was held meanwhile (establishments, modifications, deletions). */
void n4c_sess_peer_resume(struct upf_n4c *c, struct upf_n4c_p *p);
/* Peer p stayed unreachable path_release_ms: the SMF is told its sessions are lost; what the
 * peer may still hold stays recorded (have), deleted if it answers again with the same
 * Recovery Time Stamp. */
void n4c_sess_peer_expire(struct upf_n4c *c, struct upf_n4c_p *p);

#endif
