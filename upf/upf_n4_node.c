/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N4 node procedures (TS 29.244 6.2, 7.4): heartbeat, and the association
 * state machine, one per CP Node ID:
 *
 *   state \ event   SETUP          UPDATE    RELEASE   SESSION   PEER_RESTART  SETUP_FOREIGN EXPIRE
 *   IDLE            setup -> ASSOC no_assoc  no_assoc  no_assoc  -             -             -
 *   ASSOCIATED      setup (re-     update    release   session   restart       refuse        expire
 *                   setup, purge)            -> IDLE             (purge)       (no change)   -> IDLE
 *
 * "no_assoc" answers Cause 72 No established PFCP Association (6.2.6.1: the
 * UP function accepts session messages, and association updates and releases
 * (6.2.6.3, 6.2.6.4), only from a CP function it has an association with).
 *
 * Issue 31: an association is bound to the source IP address its setup came from
 * (port-agnostic: TS 29.244 4.2.2 lets a CP send requests from any local port, and 6.4 has
 * the response go back to the request's source port, so the port names no association).
 * Every later message of that association must come from that address:
 *   - a Setup with its Node ID from another address is refused with Cause 64 "Request
 *     rejected" (6.2.6.2.2: a setup the UP function does not accept gets a rejection
 *     cause) and changes nothing; 6.2.6.2.2's "overwrite the existing association" applies
 *     to the bound address only (5.8.1: a Node ID that is an IP address means the CP
 *     exposes that one address for the association; the CP function restarted, or
 *     re-setup). A CP that really moved gets its slot back
 *     once the old association is released by heartbeat loss (EXPIRE);
 *   - Update / Release / session messages from another address are answered with Cause 72
 *     (the sender has no association with us, 6.2.6.1) and counted (rx_foreign);
 *   - a new Recovery Time Stamp in a Heartbeat Request is not believed on its own (UDP
 *     sources are easy to forge): our own Heartbeat Request, with a random sequence number,
 *     goes to the bound address and only its answer's Recovery Time Stamp purges (TS 23.007
 *     19A, TS 29.244 6.2.2);
 *   - one association per address: a Setup from a bound address with another Node ID
 *     replaces that association (the CP changed its Node ID: its old sessions are gone).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

#define STB(s) (1u << (s))

typedef enum n4_as_state (*as_action)(struct upf_n4 *n, int peer);

struct as_state_desc {
	const char *name;
	as_action on[N4_EV__MAX];   /* NULL: not taken in this state */
	uint32_t next;              /* STB() of the states an action may lead to */
};

static enum n4_as_state act_setup(struct upf_n4 *n, int peer);
static enum n4_as_state act_update(struct upf_n4 *n, int peer);
static enum n4_as_state act_release(struct upf_n4 *n, int peer);
static enum n4_as_state act_session(struct upf_n4 *n, int peer);
static enum n4_as_state act_no_assoc(struct upf_n4 *n, int peer);
static enum n4_as_state act_restart(struct upf_n4 *n, int peer);
static enum n4_as_state act_refuse(struct upf_n4 *n, int peer);
static enum n4_as_state act_expire(struct upf_n4 *n, int peer);

static const struct as_state_desc as_states[N4_AS__MAX] = {
	[N4_AS_IDLE] = { "IDLE",
		{ [N4_EV_SETUP] = act_setup, [N4_EV_UPDATE] = act_no_assoc,
		  [N4_EV_RELEASE] = act_no_assoc, [N4_EV_SESSION] = act_no_assoc },
		STB(N4_AS_IDLE) | STB(N4_AS_ASSOCIATED) },
	[N4_AS_ASSOCIATED] = { "ASSOCIATED",
		{ [N4_EV_SETUP] = act_setup, [N4_EV_UPDATE] = act_update,
		  [N4_EV_RELEASE] = act_release, [N4_EV_SESSION] = act_session,
		  [N4_EV_PEER_RESTART] = act_restart, [N4_EV_SETUP_FOREIGN] = act_refuse,
		  [N4_EV_EXPIRE] = act_expire },
		STB(N4_AS_IDLE) | STB(N4_AS_ASSOCIATED) },
};

static const char *const ev_names[N4_EV__MAX] = {
	[N4_EV_SETUP] = "SETUP", [N4_EV_UPDATE] = "UPDATE", [N4_EV_RELEASE] = "RELEASE",
	[N4_EV_SESSION] = "SESSION", [N4_EV_PEER_RESTART] = "PEER_RESTART",
	[N4_EV_SETUP_FOREIGN] = "SETUP_FOREIGN", [N4_EV_EXPIRE] = "EXPIRE",
};

static bool node_eq(const struct pfcp_node_id *a, const struct pfcp_node_id *b)
{
	if (a->type != b->type)
		return false;
	if (a->type == PFCP_NODE_IPV4)
		return !memcmp(a->addr, b->addr, 4);
	if (a->type == PFCP_NODE_IPV6)
		return !memcmp(a->addr, b->addr, 16);
	return a->fqdn.len == b->fqdn.len && !memcmp(a->fqdn.p, b->fqdn.p, a->fqdn.len);
}

int n4_peer_find(const struct upf_n4 *n, const struct pfcp_node_id *id)
{
	for (int i = 0; i < UPF_N4_PEER_MAX; i++)
		if (n->peers[i].state == N4_AS_ASSOCIATED && node_eq(&n->peers[i].node, id))
			return i;
	return -1;
}

int n4_peer_by_addr(const struct upf_n4 *n, uint32_t addr)
{
	for (int i = 0; i < UPF_N4_PEER_MAX; i++)
		if (n->peers[i].state == N4_AS_ASSOCIATED && n->peers[i].addr == addr)
			return i;
	return -1;
}

/* One dispatcher: refuses what the table does not allow, logs each transition. */
static void as_dispatch(struct upf_n4 *n, int peer, enum n4_as_event ev)
{
	enum n4_as_state st = peer >= 0 ? n->peers[peer].state : N4_AS_IDLE;
	as_action a = as_states[st].on[ev];
	enum n4_as_state next;

	if (!a) {
		log_warn(N4_MOD, "assoc{%s}: event %s not allowed", as_states[st].name, ev_names[ev]);
		return;
	}
	next = a(n, peer);
	if (!(as_states[st].next & STB(next))) {
		log_error(N4_MOD, "assoc{%s}: %s led to %s, not allowed", as_states[st].name, ev_names[ev],
			  as_states[next].name);
		return;
	}
	if (next != st)
		log_info(N4_MOD, "assoc %08x {%s} -%s-> {%s}", ntohl(ev == N4_EV_EXPIRE ? 0 : n->from_addr),
			 as_states[st].name, ev_names[ev], as_states[next].name);
}

/* The node response to n->in with our Node ID and this cause (7.4.4) */
static void node_rsp(struct upf_n4 *n, uint8_t cause)
{
	n4_rsp_init(n, n->in.h.type + 1, 0);
	memset(&n->out.node, 0, sizeof(n->out.node));
	n->out.node.has = PFCP_N_NODE_ID | PFCP_N_CAUSE;
	n4_own_node_id(n, &n->out.node.node_id);
	n->out.node.cause = cause;
	if (n->in.h.type == PFCP_ASSOC_SETUP_REQ) {   /* 7.4.4.2: mandatory in every Setup Response */
		n->out.node.has |= PFCP_N_RECOVERY;
		n->out.node.recovery = n->recovery;
	}
}

static enum n4_as_state act_no_assoc(struct upf_n4 *n, int peer)
{
	(void)peer;
	n->cnt[UPF_N4_NO_ASSOC]++;
	log_rl(LOGL_INFO, N4_MOD, NULL, "%s from %08x without a PFCP association: cause 72",
	       pfcp_msg_name(n->in.h.type), ntohl(n->from_addr));
	if (pfcp_msg_is_session(n->in.h.type) == 1) {
		n4_rsp_init(n, n->in.h.type + 1, 0);   /* 7.2.2.4.2: their SEID is unknown to us */
		n->out.rsp.has = PFCP_SRSP_CAUSE;
		n->out.rsp.cause = PFCP_CAUSE_NO_ASSOCIATION;
		if (n->in.h.type == PFCP_SESS_EST_REQ) {
			n->out.rsp.has |= PFCP_SRSP_NODE_ID;
			n4_own_node_id(n, &n->out.rsp.node_id);
		}
	} else {
		node_rsp(n, PFCP_CAUSE_NO_ASSOCIATION);
	}
	return N4_AS_IDLE;
}

/* UP Function Features (8.2.25): FTUP (octet 5 bit 5: the UP allocates
 * F-TEIDs, we do with CHOOSE), EMPU (octet 6 bit 1: the UP sends End Markers). */
static const uint8_t up_features[2] = { 0x10, 0x01 };

/* TS 29.244 6.2.6.2: a new association, or (6.2.6.2.2) a setup for a Node ID
 * already associated, which replaces it; without PFCP Session Retention
 * Information (not supported) the old association's sessions are deleted. */
static enum n4_as_state act_setup(struct upf_n4 *n, int peer)
{
	const struct pfcp_node_msg *q = &n->in.node;
	struct n4_peer *p;

	if (peer < 0) {
		for (int i = 0; i < UPF_N4_PEER_MAX && peer < 0; i++)
			if (n->peers[i].state == N4_AS_IDLE)
				peer = i;
		if (peer < 0) {
			log_rl(LOGL_WARN, N4_MOD, NULL, "association setup from %s refused: %d associations already",
			       inet_ntoa((struct in_addr){ n->from_addr }), UPF_N4_PEER_MAX);
			n->cnt[UPF_N4_ASSOC_REFUSED]++;
			node_rsp(n, PFCP_CAUSE_NO_RESOURCES);
			return N4_AS_IDLE;
		}
		n->n_assoc++;
		n4_txn_clear_peer(n, peer);
	} else {
		log_info(N4_MOD, "association setup for an associated Node ID (recovery %u -> %u): "
			 "%u sessions deleted", n->peers[peer].recovery, q->recovery, n->peers[peer].n_sess);
		n4_sess_purge_peer(n, peer);
		/* a restarted CP counts from 1 again: its old answers must not be replayed */
		n4_txn_clear_peer(n, peer);
	}
	p = &n->peers[peer];
	p->state = N4_AS_ASSOCIATED;
	p->node = q->node_id;
	if (q->node_id.type == PFCP_NODE_FQDN) {
		p->node.fqdn.len = q->node_id.fqdn.len < sizeof(p->fqdn) ? q->node_id.fqdn.len : sizeof(p->fqdn);
		memcpy(p->fqdn, q->node_id.fqdn.p, p->node.fqdn.len);
		p->node.fqdn.p = p->fqdn;
	}
	p->addr = n->from_addr;
	p->port = n->from_port;
	p->recovery = q->recovery;
	/* heartbeats start over: the first a period after this setup */
	p->hb_seq = 0;
	p->hb_tries = 0;
	p->unreachable = false;
	p->restart_check = false;
	p->hb_next_ns = 0;
	n->cnt[UPF_N4_ASSOC_SETUP]++;
	node_rsp(n, PFCP_CAUSE_ACCEPTED);
	n->out.node.has |= PFCP_N_UP_FEATURES;
	n->out.node.up_features = (struct pfcp_buf){ up_features, sizeof(up_features) };
	return N4_AS_ASSOCIATED;
}

/* TS 29.244 6.2.6.3: nothing of the CP's update changes what we do (its CP
 * features are not used); accepted. */
static enum n4_as_state act_update(struct upf_n4 *n, int peer)
{
	(void)peer;
	n->cnt[UPF_N4_ASSOC_UPDATE]++;
	node_rsp(n, PFCP_CAUSE_ACCEPTED);
	n->out.node.has |= PFCP_N_UP_FEATURES;
	n->out.node.up_features = (struct pfcp_buf){ up_features, sizeof(up_features) };
	return N4_AS_ASSOCIATED;
}

static void peer_free(struct upf_n4 *n, int peer)
{
	n4_sess_purge_peer(n, peer);
	memset(&n->peers[peer], 0, sizeof(n->peers[peer]));
	n4_txn_clear_peer(n, peer);
	n->n_assoc--;
}

/* TS 29.244 6.2.6.4: the UP function deletes the association's sessions locally. */
static enum n4_as_state act_release(struct upf_n4 *n, int peer)
{
	peer_free(n, peer);
	n->cnt[UPF_N4_ASSOC_RELEASE]++;
	node_rsp(n, PFCP_CAUSE_ACCEPTED);
	return N4_AS_IDLE;
}

/* Issue 31: a Setup for a Node ID associated from another address. 6.2.6.2.2 would overwrite
 * the association, which would let anyone who knows (or guesses) an SMF's Node ID delete its
 * sessions with one datagram; the UP function may refuse a setup (6.2.6.2.2, 8.2.1: "Request
 * rejected"), and does: the association and its sessions stay as they are. */
static enum n4_as_state act_refuse(struct upf_n4 *n, int peer)
{
	char bound[INET_ADDRSTRLEN];

	n->cnt[UPF_N4_ASSOC_REFUSED]++;
	n->cnt[UPF_N4_FOREIGN]++;
	inet_ntop(AF_INET, &n->peers[peer].addr, bound, sizeof(bound));
	log_rl(LOGL_WARN, N4_MOD, NULL, "association setup from %s refused (cause 64): its Node ID is associated "
	       "from %s", inet_ntoa((struct in_addr){ n->from_addr }), bound);
	node_rsp(n, PFCP_CAUSE_REJECTED);
	return N4_AS_ASSOCIATED;
}

/* No heartbeat answered for release_ms after N1 retransmissions (6.2.2): the CP function is
 * gone (or the setup was a stranger's that never answers). The UP function releases the
 * association (6.2.6.4 on its own side) so the slot and the sessions' resources are free. */
static enum n4_as_state act_expire(struct upf_n4 *n, int peer)
{
	log_warn(N4_MOD, "peer %08x: unreachable for %u ms: association released, %u sessions deleted",
		 ntohl(n->peers[peer].addr), n->p.release_ms, n->peers[peer].n_sess);
	peer_free(n, peer);
	n->cnt[UPF_N4_ASSOC_EXPIRED]++;
	return N4_AS_IDLE;
}

void n4_peer_expire(struct upf_n4 *n, int peer)
{
	as_dispatch(n, peer, N4_EV_EXPIRE);
}

static enum n4_as_state act_session(struct upf_n4 *n, int peer)
{
	n4_sess_rx(n, peer);
	return N4_AS_ASSOCIATED;
}

/* A session message: the association it belongs to, then the table. */
void n4_session_dispatch(struct upf_n4 *n)
{
	int peer = n->in.h.type == PFCP_SESS_EST_REQ ? n4_peer_find(n, &n->in.est.node_id)
						    : n4_peer_by_addr(n, n->from_addr);

	if (peer >= 0 && n->peers[peer].addr != n->from_addr) {
		n->cnt[UPF_N4_FOREIGN]++;   /* another CP's Node ID in an establishment: cause 72 */
		peer = -1;
	}
	as_dispatch(n, peer, N4_EV_SESSION);
}

/* TS 23.007 19A (PFCP restoration), TS 29.244 6.2.2: a CP function whose
 * Recovery Time Stamp changed has restarted and lost its sessions: ours of
 * that association are deleted (the association stays; a new Setup follows).
 * Only from the answer to our own heartbeat (n4_heartbeat_rsp). */
static enum n4_as_state act_restart(struct upf_n4 *n, int peer)
{
	log_info(N4_MOD, "peer %08x restarted (recovery %u -> %u): %u sessions deleted", ntohl(n->from_addr),
		 n->peers[peer].recovery, n->in.node.recovery, n->peers[peer].n_sess);
	n4_sess_purge_peer(n, peer);
	n4_txn_clear_peer(n, peer);
	n->peers[peer].recovery = n->in.node.recovery;
	return N4_AS_ASSOCIATED;
}

static int hb_send(struct upf_n4 *n, struct n4_peer *p);

/* A sequence number for our heartbeat: random (an off-path sender cannot answer it), 1..2^24-1 */
static uint32_t hb_seq_new(struct upf_n4 *n)
{
	uint32_t s;

	do
		s = n4_rand32(n) & PFCP_SEQ_MAX;
	while (!s);
	return s;
}

static void hb_start(struct upf_n4 *n, struct n4_peer *p, uint64_t now_ns)
{
	p->hb_seq = hb_seq_new(n);
	p->hb_tries = 0;
	p->hb_at_ns = now_ns;
	hb_send(n, p);
}

static void heartbeat(struct upf_n4 *n)
{
	int peer = n4_peer_by_addr(n, n->from_addr);

	/* TS 29.244 6.2.2 / 7.4.2: answered with or without an association */
	n->cnt[UPF_N4_HEARTBEAT]++;
	if (peer >= 0 && n->in.node.recovery != n->peers[peer].recovery && !n->peers[peer].restart_check) {
		struct n4_peer *p = &n->peers[peer];

		/* TS 23.007 19A says a new Recovery Time Stamp means a restart, but a forged datagram
		 * can carry one: ask the bound peer ourselves (issue 31 point 3). Sent before our
		 * response is built in n->out. */
		log_info(N4_MOD, "peer %08x: Heartbeat Request with recovery %u (ours: %u): asking it",
			 ntohl(p->addr), n->in.node.recovery, p->recovery);
		p->restart_check = true;
		if (!p->hb_seq)
			hb_start(n, p, n4_now_ns(n));
	}
	n4_rsp_init(n, PFCP_HEARTBEAT_RSP, 0);
	memset(&n->out.node, 0, sizeof(n->out.node));
	n->out.node.has = PFCP_N_RECOVERY;
	n->out.node.recovery = n->recovery;
}

/* ---- our heartbeats (TS 29.244 6.2.2, 7.4.2; 6.4 for the retransmissions) ---- */

static int hb_send(struct upf_n4 *n, struct n4_peer *p)
{
	memset(&n->out.h, 0, sizeof(n->out.h));
	n->out.h.type = PFCP_HEARTBEAT_REQ;
	n->out.h.seq = p->hb_seq;
	memset(&n->out.node, 0, sizeof(n->out.node));
	n->out.node.has = PFCP_N_RECOVERY;
	n->out.node.recovery = n->recovery;
	n->cnt[UPF_N4_HB_SENT]++;
	/* 4.2.2: requests go to the peer's port 8805 */
	return n4_send_out(n, p->addr, PFCP_PORT);
}

int n4_heartbeat_tick(struct upf_n4 *n, uint64_t now_ns)
{
	uint64_t t1 = (uint64_t)n->p.t1_ms * 1000000u, hb = (uint64_t)n->p.heartbeat_ms * 1000000u;
	int sent = 0;

	for (unsigned i = 0; i < UPF_N4_PEER_MAX; i++) {
		struct n4_peer *p = &n->peers[i];

		if (p->state != N4_AS_ASSOCIATED)
			continue;
		if (p->unreachable && now_ns - p->unreach_ns >= (uint64_t)n->p.release_ms * 1000000u) {
			n4_peer_expire(n, (int)i);
			continue;
		}
		if (p->hb_seq && now_ns - p->hb_at_ns >= t1) {
			if (p->hb_tries < n->p.n1) {
				p->hb_tries++;
				p->hb_at_ns = now_ns;
				sent += hb_send(n, p) >= 0;
				continue;
			}
			/* unanswered N1 + 1 times: the CP is not reachable now. Its sessions stay:
			 * the user plane needs no CP to forward, and a restarted CP is recognised by
			 * its Recovery Time Stamp (act_restart) when it comes back. */
			if (!p->unreachable) {
				log_warn(N4_MOD, "peer %08x: no answer to %u heartbeats: CP function unreachable "
					 "(%u sessions kept for %u ms)", ntohl(p->addr), p->hb_tries + 1u, p->n_sess,
					 n->p.release_ms);
				n->cnt[UPF_N4_CP_UNREACHABLE]++;
				p->unreach_ns = now_ns;
			}
			p->unreachable = true;
			p->restart_check = false;
			p->hb_seq = 0;
			p->hb_next_ns = now_ns + hb;
			continue;
		}
		if (p->hb_seq)
			continue;
		if (!p->hb_next_ns) {
			p->hb_next_ns = now_ns + hb;   /* the first one a period after the setup */
			continue;
		}
		if (now_ns < p->hb_next_ns)
			continue;
		hb_start(n, p, now_ns);
		sent++;
	}
	return sent;
}

/* The answer to our heartbeat: matched by sender and sequence number (7.2.2.2). Another
 * Recovery Time Stamp than the stored one: the CP restarted (TS 23.007 19A). */
void n4_heartbeat_rsp(struct upf_n4 *n)
{
	int peer = n4_peer_by_addr(n, n->from_addr);
	struct n4_peer *p = peer >= 0 ? &n->peers[peer] : NULL;

	if (!p || !p->hb_seq || n->in.h.seq != p->hb_seq) {
		n->cnt[UPF_N4_RX_STALE_RSP]++;
		return;
	}
	n->cnt[UPF_N4_HB_ANSWERED]++;
	p->hb_seq = 0;
	p->hb_next_ns = n4_now_ns(n) + (uint64_t)n->p.heartbeat_ms * 1000000u;
	if (p->unreachable)
		log_info(N4_MOD, "peer %08x: answers heartbeats again", ntohl(p->addr));
	p->unreachable = false;
	/* the answer to our own request, to the bound address, with our random sequence number:
	 * its Recovery Time Stamp is the peer's (6.2.2) */
	if ((n->in.node.has & PFCP_N_RECOVERY) && n->in.node.recovery != p->recovery) {
		p->restart_check = false;
		as_dispatch(n, peer, N4_EV_PEER_RESTART);
	} else if (p->restart_check) {
		p->restart_check = false;
		n->cnt[UPF_N4_RESTART_UNCONFIRMED]++;
		log_rl(LOGL_WARN, N4_MOD, NULL, "peer %08x: its heartbeat answer has recovery %u as before: the "
		       "other Recovery Time Stamp came from someone else, nothing purged", ntohl(p->addr), p->recovery);
	}
}

void n4_node_rx(struct upf_n4 *n)
{
	int peer;

	switch (n->in.h.type) {
	case PFCP_HEARTBEAT_REQ:
		heartbeat(n);
		return;
	case PFCP_ASSOC_SETUP_REQ:
		peer = n4_peer_find(n, &n->in.node.node_id);
		if (peer >= 0 && n->peers[peer].addr != n->from_addr) {
			as_dispatch(n, peer, N4_EV_SETUP_FOREIGN);
			return;
		}
		if (peer < 0)   /* one association per address: a new Node ID replaces it */
			peer = n4_peer_by_addr(n, n->from_addr);
		as_dispatch(n, peer, N4_EV_SETUP);
		return;
	case PFCP_ASSOC_UPDATE_REQ:
	case PFCP_ASSOC_RELEASE_REQ:
		peer = n4_peer_find(n, &n->in.node.node_id);
		if (peer >= 0 && n->peers[peer].addr != n->from_addr) {
			n->cnt[UPF_N4_FOREIGN]++;   /* the sender has no association: cause 72 */
			peer = -1;
		}
		as_dispatch(n, peer, n->in.h.type == PFCP_ASSOC_UPDATE_REQ ? N4_EV_UPDATE : N4_EV_RELEASE);
		return;
	default:
		/* Node Report Request: a UP-to-CP message (7.4.5.1); a CP sending
		 * one gets Request rejected. */
		node_rsp(n, PFCP_CAUSE_REJECTED);
		return;
	}
}
