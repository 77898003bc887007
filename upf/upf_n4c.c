/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF's N4 client (TS 29.244): one UDP endpoint for every peer UPF, the transactions of
 * our requests (sequence numbers, T1 / N1 retransmission with the same bytes, 6.4), and the
 * requests a UPF sends us; what they mean for the association of the peer (6.2.6, heartbeats
 * 6.2.2, restarts by Recovery Time Stamp TS 23.007 19A) goes to its state table in
 * upf_n4c_assoc.c. The sessions themselves are upf_n4c_sess.c.
 *
 * The transaction table is indexed by sequence number & mask and holds no bytes: a request
 * is built again from what it was for (the session's sent rule, the UP SEID) when it goes
 * again, which gives the same message. Every request waits T1, so the retransmission queue
 * is one FIFO under one timer.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/hash.h"
#include "common/log.h"
#include "upf/upf_n4.h"   /* UPF_N4_RCVBUF */
#include "upf/upf_n4c_int.h"

#define NTP_UNIX_OFFSET 2208988800u   /* RFC 5905 */
#define DEF_T1_MS 3000                /* TS 29.244 6.4: operator settings, the usual values */
#define DEF_N1 3
#define DEF_HB_MS 5000
#define DEF_PATH_RELEASE_MS 60000     /* as solocore upf's upf.n4_release_timer */
#define RX_BATCH 64

static const char *const cnt_name[UPF_N4C__MAX] = {
	[UPF_N4C_TX] = "tx", [UPF_N4C_TX_FAILED] = "tx_failed", [UPF_N4C_RX] = "rx",
	[UPF_N4C_RX_BAD] = "rx_bad", [UPF_N4C_RX_STALE] = "rx_stale", [UPF_N4C_RX_DUP] = "rx_dup",
	[UPF_N4C_RETX] = "retx", [UPF_N4C_TIMEOUT] = "timeout", [UPF_N4C_EST] = "est",
	[UPF_N4C_MOD] = "mod", [UPF_N4C_DEL] = "del", [UPF_N4C_REFUSED] = "refused",
	[UPF_N4C_REPORT] = "report", [UPF_N4C_DL_DATA] = "dl_data", [UPF_N4C_ASSOC_UP] = "assoc_up",
	[UPF_N4C_PEER_LOST] = "peer_lost", [UPF_N4C_SESS_LOST] = "sess_lost",
	[UPF_N4C_EST_OK] = "est_ok", [UPF_N4C_DEL_OK] = "del_ok", [UPF_N4C_PEER_RESUMED] = "peer_resumed",
};

const char *upf_n4c_counter_name(unsigned idx)
{
	return idx < UPF_N4C__MAX ? cnt_name[idx] : NULL;
}

int upf_n4c_counters_get(const struct upf_n4c *c, uint64_t *out, size_t n)
{
	if (!c || n < UPF_N4C__MAX)
		return -EINVAL;
	memcpy(out, c->cnt, sizeof(c->cnt));
	return 0;
}

int upf_n4c_fd(const struct upf_n4c *c)
{
	return c ? c->fd : -1;
}

uint64_t n4c_now_ns(const struct upf_n4c *c)
{
	return ev_now_ns(c->p.loop);
}

void n4c_own_node_id(const struct upf_n4c *c, struct pfcp_node_id *id)
{
	memset(id, 0, sizeof(*id));
	id->type = PFCP_NODE_IPV4;
	memcpy(id->addr, &c->p.addr, 4);
}

const char *n4c_peer_str(const struct upf_n4c_p *p, char *b, size_t n)
{
	char a[INET_ADDRSTRLEN];

	inet_ntop(AF_INET, &p->pp.addr, a, sizeof(a));
	snprintf(b, n, "%s (%s)", p->name, a);
	return b;
}

static int send_to(struct upf_n4c *c, uint32_t addr, uint16_t port)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };
	int len = pfcp_encode(&c->out, c->obuf, sizeof(c->obuf));

	if (len < 0) {
		c->cnt[UPF_N4C_TX_FAILED]++;
		log_error(N4C_MOD, "cannot encode %s: %s", pfcp_msg_name(c->out.h.type), strerror(-len));
		return len;
	}
	c->cnt[UPF_N4C_TX]++;
	if (c->p.no_socket) {
		c->p.send(c->p.send_arg, addr, port, c->obuf, (size_t)len);
		return len;
	}
	if (sendto(c->fd, c->obuf, (size_t)len, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof(to)) < 0) {
		c->cnt[UPF_N4C_TX_FAILED]++;
		return -errno;
	}
	return len;
}

int n4c_send_out(struct upf_n4c *c, const struct upf_n4c_p *p)
{
	return send_to(c, p->pp.addr, p->pp.port);
}

/* TS 29.244 4.2.2: a response goes to the IP address and port the request came from (a UPF
 * may send its requests from any port, not only 8805) */
int n4c_send_reply(struct upf_n4c *c)
{
	return send_to(c, c->from_addr, c->from_port);
}

/* ---- transactions (TS 29.244 6.4) ---- */

static void fifo_unlink(struct upf_n4c *c, uint32_t i)
{
	struct n4c_txn *t = &c->txn[i];

	if (t->prev != N4C_NONE)
		c->txn[t->prev].next = t->next;
	else if (c->fifo_head == i)
		c->fifo_head = t->next;
	else
		return;   /* not queued */
	if (t->next != N4C_NONE)
		c->txn[t->next].prev = t->prev;
	else
		c->fifo_tail = t->prev;
	t->prev = t->next = N4C_NONE;
}

static void fifo_append(struct upf_n4c *c, uint32_t i)
{
	struct n4c_txn *t = &c->txn[i];

	t->prev = c->fifo_tail;
	t->next = N4C_NONE;
	if (c->fifo_tail != N4C_NONE)
		c->txn[c->fifo_tail].next = i;
	else
		c->fifo_head = i;
	c->fifo_tail = i;
}

uint32_t n4c_txn_new(struct upf_n4c *c, uint8_t kind, uint8_t peer)
{
	/* 7.2.2.2: a new sequence number per request; the table is at least as large as what
	 * can be in flight (one request per session, two per peer), so this finds a slot. */
	for (uint32_t k = 0; k <= c->txn_mask; k++) {
		uint32_t seq = c->next_seq;
		struct n4c_txn *t = &c->txn[seq & c->txn_mask];

		c->next_seq = seq >= PFCP_SEQ_MAX ? 1 : seq + 1;
		if (t->kind != TXN_FREE)
			continue;
		*t = (struct n4c_txn){ .kind = kind, .peer = peer, .seq = seq, .sess = N4C_NONE,
				       .prev = N4C_NONE, .next = N4C_NONE };
		return seq & c->txn_mask;
	}
	c->cnt[UPF_N4C_TX_FAILED]++;
	log_error(N4C_MOD, "transaction table full");
	return N4C_NONE;
}

void n4c_txn_free(struct upf_n4c *c, uint32_t i)
{
	if (i == N4C_NONE || c->txn[i].kind == TXN_FREE)
		return;
	fifo_unlink(c, i);
	c->txn[i].kind = TXN_FREE;
}

static void build_node(struct upf_n4c *c, uint8_t type, uint32_t has)
{
	memset(&c->out.h, 0, sizeof(c->out.h));
	memset(&c->out.node, 0, sizeof(c->out.node));
	c->out.h.type = type;
	c->out.node.has = has;
	n4c_own_node_id(c, &c->out.node.node_id);
	c->out.node.recovery = c->recovery;
}

void n4c_txn_send(struct upf_n4c *c, uint32_t i)
{
	struct n4c_txn *t = &c->txn[i];
	int rc = 0;

	switch (t->kind) {
	case TXN_SETUP:   /* 7.4.4.1 */
		build_node(c, PFCP_ASSOC_SETUP_REQ, PFCP_N_NODE_ID | PFCP_N_RECOVERY);
		break;
	case TXN_HB:      /* 7.4.2.1 */
		build_node(c, PFCP_HEARTBEAT_REQ, PFCP_N_RECOVERY);
		break;
	case TXN_RELEASE: /* 7.4.4.5 */
		build_node(c, PFCP_ASSOC_RELEASE_REQ, PFCP_N_NODE_ID);
		break;
	default:
		rc = n4c_sess_build(c, t);
	}
	if (rc == 0) {
		c->out.h.seq = t->seq;
		n4c_send_out(c, &c->peers[t->peer]);
	}
	fifo_unlink(c, i);
	t->due_ns = n4c_now_ns(c) + (uint64_t)c->p.t1_ms * 1000000u;
	fifo_append(c, i);
	if (!ev_timer_pending(&c->retx))
		ev_timer_start(c->p.loop, &c->retx, c->p.t1_ms);
}

/* ---- the retransmission timer ---- */

/* The slot is free before the session code runs: what it sends next may take it. */
static void sess_done(struct upf_n4c *c, uint32_t i, bool rsp)
{
	struct n4c_txn t = c->txn[i];

	n4c_txn_free(c, i);
	n4c_sess_done(c, &t, i, rsp);
}

static void txn_timeout(struct upf_n4c *c, uint32_t i)
{
	struct n4c_txn *t = &c->txn[i];
	struct upf_n4c_p *p = &c->peers[t->peer];

	c->cnt[UPF_N4C_TIMEOUT]++;
	switch (t->kind) {
	case TXN_SETUP:
		n4c_txn_free(c, i);
		p->setup_txn = N4C_NONE;
		n4c_as_dispatch(c, p, AE_SETUP_FAIL);
		break;
	case TXN_HB:
		n4c_txn_free(c, i);
		p->hb_txn = N4C_NONE;
		p->why = "no heartbeat answer";
		n4c_as_dispatch(c, p, AE_PATH_FAIL);   /* nothing in AS_UNREACH: still unreachable */
		break;
	case TXN_RELEASE:
		n4c_txn_free(c, i);
		break;
	default:
		sess_done(c, i, false);
	}
}

static void on_retx(struct ev_loop *loop, struct ev_timer *tm)
{
	struct upf_n4c *c = tm->arg;
	uint64_t now = ev_now_ns(loop);
	uint32_t i;

	while ((i = c->fifo_head) != N4C_NONE && c->txn[i].due_ns <= now) {
		if (c->txn[i].tries < c->p.n1) {
			c->txn[i].tries++;
			c->cnt[UPF_N4C_RETX]++;
			n4c_txn_send(c, i);
			continue;
		}
		txn_timeout(c, i);
	}
	if ((i = c->fifo_head) != N4C_NONE)
		ev_timer_start_ns(loop, &c->retx, c->txn[i].due_ns - now);
}

/* ---- what comes in ---- */

/* The peer at addr:port, else (port_any) the peer at addr from another port, *exact false */
static struct upf_n4c_p *peer_by_addr(struct upf_n4c *c, uint32_t addr, uint16_t port, bool *exact)
{
	struct upf_n4c_p *any = NULL;

	for (unsigned i = 0; i < UPF_N4C_PEER_MAX; i++) {
		if (!c->peers[i].used || c->peers[i].pp.addr != addr)
			continue;
		if (c->peers[i].pp.port == port) {
			*exact = true;
			return &c->peers[i];
		}
		any = any ? any : &c->peers[i];
	}
	*exact = false;
	return any;
}

static uint8_t rsp_type(uint8_t kind)
{
	static const uint8_t t[] = { [TXN_SETUP] = PFCP_ASSOC_SETUP_RSP, [TXN_HB] = PFCP_HEARTBEAT_RSP,
				     [TXN_RELEASE] = PFCP_ASSOC_RELEASE_RSP, [TXN_EST] = PFCP_SESS_EST_RSP,
				     [TXN_MOD] = PFCP_SESS_MOD_RSP, [TXN_DEL] = PFCP_SESS_DEL_RSP };

	return kind < sizeof(t) ? t[kind] : 0;
}

static void rx_rsp(struct upf_n4c *c, struct upf_n4c_p *p)
{
	uint32_t i = c->in.h.seq & c->txn_mask;
	struct n4c_txn *t = &c->txn[i];
	char b[64];

	/* 7.2.2.2: the response carries our request's sequence number; anything else is late
	 * (answered already, given up) or not ours */
	if (t->kind == TXN_FREE || t->seq != c->in.h.seq || t->peer != p->idx || rsp_type(t->kind) != c->in.h.type) {
		c->cnt[UPF_N4C_RX_STALE]++;
		return;
	}
	/* TS 29.244 6.2.6.1 / 8.2.1: Cause 72 "No established PFCP Association": the UPF holds no
	 * association with us (it restarted, released it, or gave it up after heartbeat loss) and
	 * none of our sessions. Issue 31: the association is down; its sessions are lost (the SMF
	 * releases them with 5GSM #39, TS 23.527 4.4) and the setup starts again at once, so the
	 * next request works instead of failing until a restart. The request in flight is freed
	 * with the peer's other transactions (n4c_sess_peer_lost). */
	if (t->kind >= TXN_EST && (p->st == AS_UP || p->st == AS_UNREACH) && (c->in.rsp.has & PFCP_SRSP_CAUSE) &&
	    c->in.rsp.cause == PFCP_CAUSE_NO_ASSOCIATION) {
		n4c_txn_free(c, i);
		p->why = "the UPF has no association with us (cause 72)";
		n4c_as_dispatch(c, p, AE_NO_ASSOC);
		return;
	}
	switch (t->kind) {
	case TXN_SETUP:
		n4c_txn_free(c, i);
		p->setup_txn = N4C_NONE;
		if ((c->in.node.has & PFCP_N_CAUSE) && c->in.node.cause == PFCP_CAUSE_ACCEPTED) {
			n4c_as_dispatch(c, p, AE_SETUP_OK);
		} else {
			log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: association setup refused: cause %u %s",
			       n4c_peer_str(p, b, sizeof(b)), c->in.node.cause, pfcp_cause_name(c->in.node.cause));
			n4c_as_dispatch(c, p, AE_SETUP_FAIL);
		}
		break;
	case TXN_HB:
		n4c_txn_free(c, i);
		p->hb_txn = N4C_NONE;
		/* TS 23.007 19A: another Recovery Time Stamp, the peer restarted */
		if ((c->in.node.has & PFCP_N_RECOVERY) && c->in.node.recovery != p->recovery) {
			p->why = "restarted: new recovery time stamp";
			n4c_as_dispatch(c, p, AE_RESTART);
		} else {   /* the same stamp: if it was unreachable, it is back with our sessions */
			n4c_as_dispatch(c, p, AE_RESUME);
		}
		break;
	case TXN_RELEASE:
		n4c_txn_free(c, i);
		break;
	default:
		sess_done(c, i, true);
	}
}

static void node_answer(struct upf_n4c *c, uint8_t type, uint32_t has)
{
	build_node(c, type, has);
	c->out.h.seq = c->in.h.seq;
	c->out.node.cause = PFCP_CAUSE_ACCEPTED;
	n4c_send_reply(c);
}

static void rx_req(struct upf_n4c *c, struct upf_n4c_p *p)
{
	bool restart;

	switch (c->in.h.type) {
	case PFCP_HEARTBEAT_REQ:   /* 7.4.2.2: our Recovery Time Stamp */
		restart = (p->st == AS_UP || p->st == AS_UNREACH) && (c->in.node.has & PFCP_N_RECOVERY) &&
			  c->in.node.recovery != p->recovery;
		node_answer(c, PFCP_HEARTBEAT_RSP, PFCP_N_RECOVERY);
		if (restart) {
			p->why = "restarted: new recovery time stamp";
			n4c_as_dispatch(c, p, AE_RESTART);
		} else {   /* its own heartbeat, same stamp: the path is back (6.2.2) */
			n4c_as_dispatch(c, p, AE_RESUME);
		}
		break;
	case PFCP_ASSOC_SETUP_REQ: /* 6.2.6.2.2: set up by the UPF */
		node_answer(c, PFCP_ASSOC_SETUP_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE | PFCP_N_RECOVERY);
		n4c_as_dispatch(c, p, AE_THEIR_SETUP);
		break;
	case PFCP_ASSOC_UPDATE_REQ:
		node_answer(c, PFCP_ASSOC_UPDATE_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE);
		break;
	case PFCP_ASSOC_RELEASE_REQ: /* 6.2.8.2 */
		node_answer(c, PFCP_ASSOC_RELEASE_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE);
		n4c_as_dispatch(c, p, AE_RELEASED);
		break;
	case PFCP_NODE_REPORT_REQ:   /* 7.4.5: e.g. a user plane path failure; logged */
		log_rl(LOGL_WARN, N4C_MOD, NULL, "%s: node report type %u", p->name, c->in.node.report_type);
		node_answer(c, PFCP_NODE_REPORT_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE);
		break;
	case PFCP_SESS_REPORT_REQ:
		n4c_sess_report(c, p);
		break;
	default:   /* a request a UPF does not send (a session establishment ...): not answered */
		c->cnt[UPF_N4C_RX_BAD]++;
	}
}

static bool is_response(uint8_t t)
{
	return t == PFCP_HEARTBEAT_RSP || t == PFCP_ASSOC_SETUP_RSP || t == PFCP_ASSOC_UPDATE_RSP ||
	       t == PFCP_ASSOC_RELEASE_RSP || t == PFCP_NODE_REPORT_RSP || t == PFCP_SESS_EST_RSP ||
	       t == PFCP_SESS_MOD_RSP || t == PFCP_SESS_DEL_RSP || t == PFCP_SESS_REPORT_RSP ||
	       t == PFCP_VERSION_NOT_SUPPORTED_RSP;
}

/* A request we cannot decode: the answer 7.6 asks for where the message has one with a Cause */
static void answer_error(struct upf_n4c *c, int rc, const struct pfcp_err *e)
{
	uint8_t cause = (uint8_t)pfcp_err_cause(rc);

	if (!cause)
		return;
	if (c->in.h.type == PFCP_SESS_REPORT_REQ) {
		memset(&c->out.h, 0, sizeof(c->out.h));
		memset(&c->out.rep_rsp, 0, sizeof(c->out.rep_rsp));
		c->out.h.type = PFCP_SESS_REPORT_RSP;
		c->out.h.seq = c->in.h.seq;
		c->out.rep_rsp.has = PFCP_SRRSP_CAUSE | (e->ie ? PFCP_SRRSP_OFFENDING : 0);
		c->out.rep_rsp.cause = cause;
		c->out.rep_rsp.offending_ie = e->ie;
		n4c_send_reply(c);
	} else if (c->in.h.type == PFCP_ASSOC_SETUP_REQ || c->in.h.type == PFCP_ASSOC_RELEASE_REQ ||
		   c->in.h.type == PFCP_NODE_REPORT_REQ || c->in.h.type == PFCP_ASSOC_UPDATE_REQ) {
		/* 7.4.4.2: the Setup Response carries our Recovery Time Stamp, whatever its cause */
		build_node(c, c->in.h.type + 1, PFCP_N_NODE_ID | PFCP_N_CAUSE | (e->ie ? PFCP_N_OFFENDING : 0) |
			   (c->in.h.type == PFCP_ASSOC_SETUP_REQ ? PFCP_N_RECOVERY : 0));
		c->out.h.seq = c->in.h.seq;
		c->out.node.cause = cause;
		c->out.node.offending_ie = e->ie;
		n4c_send_reply(c);
	}
}

void upf_n4c_input(struct upf_n4c *c, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len)
{
	bool exact;
	struct upf_n4c_p *p = peer_by_addr(c, addr, port, &exact);
	size_t off = 0;

	c->cnt[UPF_N4C_RX]++;
	if (!p) {   /* not a peer of ours: nothing it says is trusted or answered */
		c->cnt[UPF_N4C_RX_BAD]++;
		log_rl(LOGL_INFO, N4C_MOD, NULL, "PFCP from %s:%u, not a configured UPF: dropped",
		       inet_ntoa((struct in_addr){ addr }), port);
		return;
	}
	c->from_addr = addr;
	c->from_port = port;
	while (off < len) {
		struct pfcp_err e = { 0 };
		int rc;

		/* TS 29.244 4.2.2: a UPF's requests may come from any of its ports (answered there),
		 * but the response to one of ours comes from where we sent it (8805 or the
		 * configured port) */
		if (!exact && len - off >= 2 && is_response(buf[off + 1])) {
			c->cnt[UPF_N4C_RX_BAD]++;
			log_rl(LOGL_INFO, N4C_MOD, NULL, "%s: %s from port %u, not the UPF's %u: dropped", p->name,
			       pfcp_msg_name(buf[off + 1]), port, p->pp.port);
			return;
		}
		rc = pfcp_decode(buf + off, len - off, &c->in, &e);

		if (rc < 0) {
			c->cnt[UPF_N4C_RX_BAD]++;
			log_rl(LOGL_INFO, N4C_MOD, NULL, "%s: bad %s: %s (%s)", p->name, pfcp_msg_name(c->in.h.type),
			       e.reason ? e.reason : "?", strerror(-rc));
			if (!is_response(c->in.h.type))
				answer_error(c, rc, &e);
			return;
		}
		if (is_response(c->in.h.type))
			rx_rsp(c, p);
		else
			rx_req(c, p);
		if (!c->in.h.fo)
			return;
		off += (size_t)rc;
	}
}

static void on_readable(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	static uint8_t buf[PFCP_MSG_MAX_LEN];   /* the control thread's only */
	struct upf_n4c *c = arg;

	(void)loop;
	(void)events;
	for (int k = 0; k < RX_BATCH; k++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);

		if (n < 0)
			return;
		upf_n4c_input(c, from.sin_addr.s_addr, ntohs(from.sin_port), buf, (size_t)n);
	}
}

static int open_socket(struct upf_n4c *c)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(c->p.port), .sin_addr.s_addr = c->p.addr };
	int one = 1;

	c->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->fd < 0)
		return -errno;
	setsockopt(c->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* the answers to a burst of requests arrive together (see UPF_N4_RCVBUF) */
	if (setsockopt(c->fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ UPF_N4_RCVBUF }, sizeof(int)) < 0)
		setsockopt(c->fd, SOL_SOCKET, SO_RCVBUF, &(int){ UPF_N4_RCVBUF }, sizeof(int));
	if (bind(c->fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int rc = -errno;

		log_error(N4C_MOD, "bind %s:%u: %s", inet_ntoa(a.sin_addr), c->p.port, strerror(-rc));
		return rc;
	}
	return ev_fd_add(c->p.loop, c->fd, EV_READ, on_readable, c);
}

int upf_n4c_open(const struct upf_n4c_params *p, struct upf_n4c **out)
{
	struct upf_n4c *c;
	uint32_t want, size = 64;
	int rc;

	*out = NULL;
	if (!p || !p->loop || !p->addr || !p->max_sessions || p->max_sessions > PFCP_SEQ_MAX / 2 ||
	    (p->no_socket && !p->send))
		return -EINVAL;
	c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->p = *p;
	c->fd = -1;
	if (!c->p.port)
		c->p.port = PFCP_PORT;
	if (!c->p.t1_ms)
		c->p.t1_ms = DEF_T1_MS;
	if (!c->p.n1)
		c->p.n1 = DEF_N1;
	if (!c->p.heartbeat_ms)
		c->p.heartbeat_ms = DEF_HB_MS;
	if (!c->p.path_release_ms)
		c->p.path_release_ms = DEF_PATH_RELEASE_MS;
	c->recovery = p->recovery_ts ? p->recovery_ts : (uint32_t)(time(NULL) + NTP_UNIX_OFFSET);
	/* A restarted SMF must not reuse the numbers of its last life while the UPF still
	 * remembers them (6.4 duplicate detection): start somewhere else each time. */
	c->next_seq = hash_mix32(c->recovery ^ (uint32_t)ev_update_now(p->loop)) & PFCP_SEQ_MAX;
	if (!c->next_seq)
		c->next_seq = 1;
	c->fifo_head = c->fifo_tail = N4C_NONE;
	want = p->max_sessions + 2 * UPF_N4C_PEER_MAX + 16;
	while (size < want)
		size <<= 1;
	c->txn_mask = size - 1;
	c->txn = calloc(size, sizeof(*c->txn));
	ev_timer_init(&c->retx, on_retx, c);
	rc = c->txn ? n4c_sess_init(c) : -ENOMEM;
	if (!rc && !p->no_socket)
		rc = open_socket(c);
	if (rc) {
		upf_n4c_close(c);
		return rc;
	}
	log_info(N4C_MOD, "PFCP client on %s:%u, recovery time stamp %u", inet_ntoa((struct in_addr){ p->addr }),
		 c->p.port, c->recovery);
	*out = c;
	return 0;
}

/* Best effort: one Association Release Request, no wait for its answer. */
static void release_once(struct upf_n4c *c, struct upf_n4c_p *p)
{
	uint32_t i;

	if (p->st != AS_UP || (i = n4c_txn_new(c, TXN_RELEASE, p->idx)) == N4C_NONE)
		return;
	build_node(c, PFCP_ASSOC_RELEASE_REQ, PFCP_N_NODE_ID);
	c->out.h.seq = c->txn[i].seq;
	n4c_send_out(c, p);
	c->txn[i].kind = TXN_FREE;
}

static void peer_remove(struct upf_n4c *c, struct upf_n4c_p *p)
{
	release_once(c, p);
	n4c_sess_peer_lost(c, p, false);
	for (uint32_t i = c->fifo_head, nx; i != N4C_NONE; i = nx) {
		nx = c->txn[i].next;
		if (c->txn[i].peer == p->idx)
			n4c_txn_free(c, i);
	}
	ev_timer_stop(c->p.loop, &p->timer);
	ev_timer_stop(c->p.loop, &p->path_timer);
	free(p->u);
	memset(p, 0, sizeof(*p));
}

void upf_n4c_close(struct upf_n4c *c)
{
	if (!c)
		return;
	for (unsigned i = 0; i < UPF_N4C_PEER_MAX; i++)
		if (c->peers[i].used)
			peer_remove(c, &c->peers[i]);
	ev_timer_stop(c->p.loop, &c->retx);
	if (c->fd >= 0) {
		ev_fd_del(c->p.loop, c->fd);
		close(c->fd);
	}
	free(c->sess);
	free(c->txn);
	free(c);
}

int upf_n4c_peer_add(struct upf_n4c *c, const struct upf_n4c_peer *pp, struct upf **out)
{
	struct upf_n4c_p *p = NULL;
	uint16_t port;

	*out = NULL;
	if (!c || !pp || !pp->addr || !pp->n3_addr || !pp->on_session_lost)
		return -EINVAL;
	port = pp->port ? pp->port : PFCP_PORT;
	for (unsigned i = 0; i < UPF_N4C_PEER_MAX; i++) {
		if (c->peers[i].used && c->peers[i].pp.addr == pp->addr && c->peers[i].pp.port == port)
			return -EEXIST;
		if (!c->peers[i].used && !p)
			p = &c->peers[i];
	}
	if (!p)
		return -ENOSPC;
	memset(p, 0, sizeof(*p));
	p->u = calloc(1, sizeof(*p->u));
	if (!p->u)
		return -ENOMEM;
	p->used = true;
	p->c = c;
	p->idx = (uint8_t)(p - c->peers);
	p->pp = *pp;
	p->pp.port = port;
	snprintf(p->name, sizeof(p->name), "%s", pp->name ? pp->name : "upf");
	p->pp.name = p->name;
	p->hb_txn = p->setup_txn = N4C_NONE;
	p->u->remote = p;
	n4c_as_init(p);
	*out = p->u;
	return 0;
}

void upf_n4c_peer_close(struct upf *u)
{
	peer_remove(u->remote->c, u->remote);
}

bool upf_n4c_ready(const struct upf *u)
{
	/* after Cause 72 the association is being set up again at once: sessions are held for
	 * it rather than refused (#26) for the few milliseconds that takes */
	return u->remote->st == AS_UP || u->remote->resetup;
}

uint32_t upf_n4c_n3_addr(const struct upf *u)
{
	return u->remote->pp.n3_addr;
}

int upf_n4c_counters(struct upf *u, uint64_t *out, size_t n)
{
	(void)u;
	if (n < UPF_STAT__MAX)
		return -EINVAL;
	memset(out, 0, UPF_STAT__MAX * sizeof(*out));
	return 0;
}
