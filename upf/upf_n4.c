/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The N4 server's socket, transaction layer and error answers (TS 29.244 6.4,
 * 7.2, 7.6); the node procedures are in upf_n4_node.c, the sessions in
 * upf_n4_sess.c and upf_n4_rule.c.
 *
 * One datagram may hold several messages (FO flag, 7.2.2.1): each is handled
 * and answered on its own. A request is looked up in the transaction cache
 * first (a duplicate gets the saved response, 6.4: "the receiver shall
 * retransmit the response"), then decoded into n->in; its answer is built in
 * n->out, encoded, sent and saved.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "common/ev.h"
#include "common/hash.h"
#include "common/log.h"
#include "upf/upf_n4_int.h"

static const char *const cnt_names[UPF_N4__MAX] = {
	[UPF_N4_RX] = "rx", [UPF_N4_TX] = "tx", [UPF_N4_RX_DUP] = "rx_duplicate",
	[UPF_N4_RX_BAD] = "rx_malformed", [UPF_N4_RX_DROPPED] = "rx_dropped",
	[UPF_N4_RX_STALE_RSP] = "rx_stale_response", [UPF_N4_VERSION_NOT_SUPP] = "version_not_supported",
	[UPF_N4_NO_ASSOC] = "no_association", [UPF_N4_HEARTBEAT] = "heartbeat",
	[UPF_N4_ASSOC_SETUP] = "assoc_setup", [UPF_N4_ASSOC_UPDATE] = "assoc_update",
	[UPF_N4_ASSOC_RELEASE] = "assoc_release", [UPF_N4_SESS_EST] = "sess_established",
	[UPF_N4_SESS_MOD] = "sess_modified", [UPF_N4_SESS_DEL] = "sess_deleted",
	[UPF_N4_SESS_REJECTED] = "sess_rejected", [UPF_N4_SESS_PURGED] = "sess_purged",
	[UPF_N4_REPORT_SENT] = "report_sent", [UPF_N4_REPORT_RSP] = "report_answered",
	[UPF_N4_TX_FAILED] = "tx_failed", [UPF_N4_TXN_UNCACHED] = "txn_uncached",
	[UPF_N4_REPORT_RETX] = "report_retransmitted", [UPF_N4_REPORT_TIMEOUT] = "report_timeout",
	[UPF_N4_HB_SENT] = "heartbeat_sent", [UPF_N4_HB_ANSWERED] = "heartbeat_answered",
	[UPF_N4_CP_UNREACHABLE] = "cp_unreachable", [UPF_N4_RX_NOT_ALLOWED] = "rx_not_allowed",
	[UPF_N4_FOREIGN] = "rx_foreign", [UPF_N4_ASSOC_REFUSED] = "assoc_refused",
	[UPF_N4_ASSOC_EXPIRED] = "assoc_expired", [UPF_N4_RESTART_UNCONFIRMED] = "restart_unconfirmed",
	[UPF_N4_SESS_QUOTA] = "sess_quota",
};

const char *upf_n4_counter_name(unsigned idx)
{
	return idx < UPF_N4__MAX ? cnt_names[idx] : NULL;
}

int upf_n4_counters(const struct upf_n4 *n, uint64_t *out, size_t cnt)
{
	if (!n || !out || cnt < UPF_N4__MAX)
		return -EINVAL;
	memcpy(out, n->cnt, sizeof(n->cnt));
	return 0;
}

uint32_t upf_n4_sessions(const struct upf_n4 *n)
{
	return n ? n->n_sess : 0;
}

uint32_t upf_n4_associations(const struct upf_n4 *n)
{
	return n ? n->n_assoc : 0;
}

int upf_n4_fd(const struct upf_n4 *n)
{
	return n ? n->fd : -1;
}

uint64_t n4_now_ns(const struct upf_n4 *n)
{
	struct timespec ts;

	if (n->p.loop)
		return ev_now_ns(n->p.loop);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Issue 31 point 6: SEIDs, TEIDs and our heartbeat sequence numbers must not be guessable, so
 * they come from the kernel's CSPRNG, N4_RND_BATCH words per call (no syscall per session). */
uint32_t n4_rand32(struct upf_n4 *n)
{
	if (!n->rnd_left) {
		if (getrandom(n->rnd, sizeof(n->rnd), 0) != (ssize_t)sizeof(n->rnd)) {
			/* only with a broken kernel: still distinct, no longer secret; said loudly */
			log_rl(LOGL_ERROR, N4_MOD, NULL, "getrandom failed (%s): SEIDs / TEIDs from the clock",
			       strerror(errno));
			for (unsigned i = 0; i < N4_RND_BATCH; i++)
				n->rnd[i] = hash_fnv1a(&(uint64_t){ n4_now_ns(n) + i }, sizeof(uint64_t));
		}
		n->rnd_left = N4_RND_BATCH;
	}
	return n->rnd[--n->rnd_left];
}

void n4_own_node_id(const struct upf_n4 *n, struct pfcp_node_id *id)
{
	memset(id, 0, sizeof(*id));
	id->type = PFCP_NODE_IPV4;
	memcpy(id->addr, &n->p.addr, 4);
}

/* A response to n->in: same sequence number (7.2.2.2), body cleared. */
void n4_rsp_init(struct upf_n4 *n, uint8_t type, uint64_t seid)
{
	memset(&n->out.h, 0, sizeof(n->out.h));
	n->out.h.type = type;
	n->out.h.seq = n->in.h.seq;
	n->out.h.seid = seid;
	memset(&n->out.rsp, 0, sizeof(n->out.rsp));
}

static void send_raw(struct upf_n4 *n, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = addr };

	n->cnt[UPF_N4_TX]++;
	if (n->p.send) {
		n->p.send(n->p.send_arg, addr, port, b, len);
		return;
	}
	if (n->fd < 0 || sendto(n->fd, b, len, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof(to)) < 0)
		n->cnt[UPF_N4_TX_FAILED]++;
}

/* ---- transaction cache (TS 29.244 6.4) ---- */

/* Issue 31 point 7: the region of the association bound to the sender's address (its own
 * N4_TXN_PER_PEER entries, indexed by sequence number: a CP's consecutive requests never share
 * one), or the shared region of senders without an association. Another peer's traffic lands
 * in its own region or the shared one, so it cannot evict an association's answers within
 * the retransmission window (6.4). */
static struct n4_txn *txn_slot(struct upf_n4 *n, uint32_t addr, uint16_t port, uint32_t seq)
{
	int peer = n4_peer_by_addr(n, addr);
	uint32_t h = seq;

	if (peer < 0) {
		peer = UPF_N4_PEER_MAX;
		h ^= (ntohl(addr) * 2654435761u) ^ ((uint32_t)port << 11);
	}
	return &n->txn[(size_t)peer * N4_TXN_PER_PEER + (h & (N4_TXN_PER_PEER - 1))];
}

void n4_txn_clear_peer(struct upf_n4 *n, int peer)
{
	for (size_t i = 0; i < N4_TXN_PER_PEER; i++)
		n->txn[(size_t)peer * N4_TXN_PER_PEER + i].len = 0;
}

static bool txn_replay(struct upf_n4 *n, uint8_t type, uint32_t seq)
{
	struct n4_txn *t = txn_slot(n, n->from_addr, n->from_port, seq);

	/* The same number with other bytes is a new request: a CP function that restarted
	 * and counts from 1 again (its Association Setup has another Recovery Time Stamp). */
	if (!t->len || t->addr != n->from_addr || t->port != n->from_port || t->seq != seq ||
	    t->type != type || t->req_hash != n->in_hash ||
	    n4_now_ns(n) - t->at_ns > (uint64_t)UPF_N4_TXN_KEEP_MS * 1000000u)
		return false;
	n->cnt[UPF_N4_RX_DUP]++;
	send_raw(n, n->from_addr, n->from_port, t->rsp, t->len);
	return true;
}

static void txn_save(struct upf_n4 *n, const uint8_t *rsp, size_t len)
{
	struct n4_txn *t = txn_slot(n, n->from_addr, n->from_port, n->in.h.seq);

	if (len > sizeof(t->rsp)) {
		n->cnt[UPF_N4_TXN_UNCACHED]++;
		t->len = 0;
		return;
	}
	t->addr = n->from_addr;
	t->port = n->from_port;
	t->seq = n->in.h.seq;
	t->req_hash = n->in_hash;
	t->type = n->in.h.type;
	t->at_ns = n4_now_ns(n);
	t->len = (uint16_t)len;
	memcpy(t->rsp, rsp, len);
}

int n4_send_out(struct upf_n4 *n, uint32_t addr, uint16_t port)
{
	int len = pfcp_encode(&n->out, n->obuf, sizeof(n->obuf));

	if (len < 0) {
		n->cnt[UPF_N4_TX_FAILED]++;
		log_error(N4_MOD, "cannot encode %s: %s", pfcp_msg_name(n->out.h.type), strerror(-len));
		return len;
	}
	send_raw(n, addr, port, n->obuf, (size_t)len);
	return len;
}

/* The answer to the request in n->in: sent to its sender and kept for duplicates. A
 * Heartbeat is not kept: executing it again changes nothing, and a flood of them must not
 * take room (issue 31 point 7). */
static void answer(struct upf_n4 *n)
{
	int len = n4_send_out(n, n->from_addr, n->from_port);

	if (len > 0 && n->in.h.type != PFCP_HEARTBEAT_REQ)
		txn_save(n, n->obuf, (size_t)len);
}

/* ---- errors (7.6) ---- */

/* A request pfcp_decode() refused (only its header is valid): answer with the
 * response type, the cause pfcp_err_cause() gives and the Offending IE. */
static void answer_decode_error(struct upf_n4 *n, int rc, const struct pfcp_err *e)
{
	uint8_t cause = (uint8_t)pfcp_err_cause(rc);
	uint8_t t = n->in.h.type;

	log_rl(LOGL_INFO, N4_MOD, NULL, "%s from %08x seq=%u refused: %s (IE %u in %u), cause %u",
	       pfcp_msg_name(t), ntohl(n->from_addr), n->in.h.seq, e->reason ? e->reason : "?", e->ie,
	       e->parent, cause);
	/* 7.2.2.4.2: the CP's SEID of the session the header names, else 0 */
	n4_rsp_init(n, t + 1, pfcp_msg_is_session(t) == 1 && t != PFCP_SESS_EST_REQ ?
			      n4_sess_cp_seid(n, n->in.h.seid) : 0);
	if (t == PFCP_HEARTBEAT_REQ || !cause) {
		n->cnt[UPF_N4_RX_DROPPED]++;   /* the Heartbeat Response has no Cause */
		return;
	}
	n->cnt[UPF_N4_RX_BAD]++;
	if (t == PFCP_SESS_REPORT_REQ) {
		n->out.rep_rsp.has = PFCP_SRRSP_CAUSE | (e->ie ? PFCP_SRRSP_OFFENDING : 0);
		n->out.rep_rsp.cause = cause;
		n->out.rep_rsp.offending_ie = e->ie;
	} else if (pfcp_msg_is_session(t) == 1) {
		n->out.rsp.has = PFCP_SRSP_CAUSE | (e->ie ? PFCP_SRSP_OFFENDING : 0);
		n->out.rsp.cause = cause;
		n->out.rsp.offending_ie = e->ie;
		if (t == PFCP_SESS_EST_REQ) {
			n->out.rsp.has |= PFCP_SRSP_NODE_ID;
			n4_own_node_id(n, &n->out.rsp.node_id);
		}
	} else {
		memset(&n->out.node, 0, sizeof(n->out.node));
		n->out.node.has = PFCP_N_NODE_ID | PFCP_N_CAUSE | PFCP_N_RECOVERY |
				  (e->ie ? PFCP_N_OFFENDING : 0);
		n4_own_node_id(n, &n->out.node.node_id);
		n->out.node.cause = cause;
		n->out.node.recovery = n->recovery;
		n->out.node.offending_ie = e->ie;
	}
	answer(n);
}

static bool is_request(uint8_t t)
{
	switch (t) {
	case PFCP_HEARTBEAT_REQ: case PFCP_ASSOC_SETUP_REQ: case PFCP_ASSOC_UPDATE_REQ:
	case PFCP_ASSOC_RELEASE_REQ: case PFCP_NODE_REPORT_REQ: case PFCP_SESS_EST_REQ:
	case PFCP_SESS_MOD_REQ: case PFCP_SESS_DEL_REQ: case PFCP_SESS_REPORT_REQ:
		return true;
	default:
		return false;
	}
}

/* A response to one of our requests (we send Session Report Requests only) */
static void rx_response(struct upf_n4 *n, int rc)
{
	if (rc < 0) {
		n->cnt[UPF_N4_RX_DROPPED]++;
		return;
	}
	if (n->in.h.type == PFCP_SESS_REPORT_RSP) {
		n4_report_rsp(n);
		return;
	}
	if (n->in.h.type == PFCP_HEARTBEAT_RSP) {
		n4_heartbeat_rsp(n);
		return;
	}
	n->cnt[UPF_N4_RX_STALE_RSP]++;   /* we never sent that request */
}

/* One message at buf; returns the bytes it used, or 0 to stop at this datagram. */
static size_t rx_one(struct upf_n4 *n, const uint8_t *buf, size_t len)
{
	struct pfcp_err e = { 0 };
	int rc;

	/* 7.2.2.1: version and type are in the first two octets, the sequence
	 * number at 4 + (S ? 8 : 0). Without a whole header there is no
	 * sequence number to answer with: dropped. A duplicate is found before
	 * any decoding. */
	size_t o = len && (buf[0] & 1) ? 12 : 4;

	if (len < o + 4) {
		n->cnt[UPF_N4_RX_DROPPED]++;
		return 0;
	}
	n->in_hash = hash_fnv1a(buf, (size_t)4 + (buf[2] << 8 | buf[3]) < len ? (size_t)4 + (buf[2] << 8 | buf[3]) : len);
	if ((buf[0] >> 5) == PFCP_VERSION && is_request(buf[1]) && buf[1] != PFCP_HEARTBEAT_REQ &&
	    txn_replay(n, buf[1], (uint32_t)buf[o] << 16 | buf[o + 1] << 8 | buf[o + 2]))
		return 0;
	rc = pfcp_decode(buf, len, &n->in, &e);
	if (rc == -EPROTONOSUPPORT) {
		/* 7.4.4.7: the header alone, with our version and their sequence number */
		n4_rsp_init(n, PFCP_VERSION_NOT_SUPPORTED_RSP, 0);
		n->cnt[UPF_N4_VERSION_NOT_SUPP]++;
		n4_send_out(n, n->from_addr, n->from_port);
		return 0;
	}
	if (rc == -ENOMSG) {
		n->cnt[UPF_N4_RX_DROPPED]++;      /* 7.6: unknown message type, or no header */
		return 0;
	}
	if (!is_request(n->in.h.type)) {
		rx_response(n, rc);
		return rc > 0 && n->in.h.fo ? (size_t)rc : 0;
	}
	if (rc < 0) {
		answer_decode_error(n, rc, &e);
		return 0;
	}
	if (pfcp_msg_is_session(n->in.h.type) == 1)
		n4_session_dispatch(n);
	else
		n4_node_rx(n);
	if (n->out.h.type)
		answer(n);
	return n->in.h.fo ? (size_t)rc : 0;
}

/* upf.n4_peers (issue 31 point 2): none configured, or the sender inside one */
static bool allowed(const struct upf_n4 *n, uint32_t addr)
{
	if (!n->p.n_allow)
		return true;
	for (unsigned i = 0; i < n->p.n_allow; i++) {
		uint32_t mask = n->allow[i].plen ? htonl(~0u << (32 - n->allow[i].plen)) : 0;

		if (((addr ^ n->allow[i].addr) & mask) == 0)
			return true;
	}
	return false;
}

void upf_n4_input(struct upf_n4 *n, uint32_t addr, uint16_t port, const uint8_t *buf, size_t len)
{
	size_t used;

	n->cnt[UPF_N4_RX]++;
	if (!allowed(n, addr)) {
		n->cnt[UPF_N4_RX_NOT_ALLOWED]++;
		log_rl(LOGL_WARN, N4_MOD, NULL, "PFCP from %s:%u, not in upf.n4_peers: dropped",
		       inet_ntoa((struct in_addr){ addr }), port);
		return;
	}
	n->from_addr = addr;
	n->from_port = port;
	while (len > 0) {
		n->out.h.type = 0;   /* set by a handler that answers */
		used = rx_one(n, buf, len);
		if (!used || used > len)
			break;
		buf += used;
		len -= used;
	}
}

int upf_n4_process(struct upf_n4 *n)
{
	static uint8_t buf[PFCP_MSG_MAX_LEN];   /* the control thread's only */
	int handled = 0;

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t r = recvfrom(n->fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);

		if (r < 0)
			return errno == EAGAIN || errno == EWOULDBLOCK ? handled : (handled ? handled : -errno);
		if (fl < sizeof(from) || from.sin_family != AF_INET)
			continue;
		upf_n4_input(n, from.sin_addr.s_addr, ntohs(from.sin_port), buf, (size_t)r);
		handled++;
	}
}

static void on_readable(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	upf_n4_process(arg);
}

static int open_socket(struct upf_n4 *n)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(n->p.port),
				 .sin_addr.s_addr = n->p.addr };
	int one = 1;

	n->fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (n->fd < 0)
		return -errno;
	setsockopt(n->fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	/* An SMF keeps many requests in flight; with the default buffer (about 70 datagrams
	 * once an XDP program on the interface inflates each one's truesize) a burst of 256 is
	 * cut short and waits T1 for its retransmission (tests/bench/upf/bench-pfcp). */
	if (setsockopt(n->fd, SOL_SOCKET, SO_RCVBUFFORCE, &(int){ UPF_N4_RCVBUF }, sizeof(int)) < 0)
		setsockopt(n->fd, SOL_SOCKET, SO_RCVBUF, &(int){ UPF_N4_RCVBUF }, sizeof(int));
	if (bind(n->fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		int rc = -errno;

		log_error(N4_MOD, "bind %s:%u: %s", inet_ntoa(a.sin_addr), n->p.port, strerror(-rc));
		return rc;
	}
	return n->p.loop ? ev_fd_add(n->p.loop, n->fd, EV_READ, on_readable, n) : 0;
}

/* T1 / 4: a request goes again between T1 and 1.25 T1 after it was sent */
static uint32_t retx_period_ms(const struct upf_n4 *n)
{
	return n->p.t1_ms >= 40 ? n->p.t1_ms / 4 : 10;
}

static void on_retx_timer(struct ev_loop *loop, struct ev_timer *t)
{
	struct upf_n4 *n = t->arg;

	upf_n4_tick(n, ev_now_ns(loop));
	if (ev_timer_start(loop, &n->retx_timer, retx_period_ms(n)) < 0)
		log_error(N4_MOD, "cannot restart the retransmission timer");
}

int upf_n4_open(const struct upf_n4_params *p, struct upf_n4 **out)
{
	struct upf_n4 *n;
	int rc;

	*out = NULL;
	if (!p || !p->max_sessions || p->max_teid < p->max_sessions || (p->no_socket && !p->send) ||
	    p->ue_pool6_plen > 64 || (p->n_dnns && !p->dnns) || p->n_allow > UPF_N4_ALLOW_MAX ||
	    (p->n_allow && !p->allow) || p->max_teid == UINT32_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < p->n_allow; i++)
		if (p->allow[i].plen > 32)
			return -EINVAL;
	n = calloc(1, sizeof(*n));
	if (!n)
		return -ENOMEM;
	n->p = *p;
	n->fd = -1;
	if (!n->p.port)
		n->p.port = PFCP_PORT;
	n->recovery = p->recovery_ts ? p->recovery_ts : (uint32_t)(time(NULL) + NTP_UNIX_OFFSET);
	n->next_seq = 1;
	if (!n->p.t1_ms)
		n->p.t1_ms = N4_T1_MS;
	if (!n->p.n1)
		n->p.n1 = N4_N1;
	if (!n->p.heartbeat_ms)
		n->p.heartbeat_ms = N4_HEARTBEAT_MS;
	if (!n->p.release_ms)
		n->p.release_ms = N4_RELEASE_MS;
	if (!n->p.sessions_per_peer)
		n->p.sessions_per_peer = p->max_sessions > 1 ? p->max_sessions / 2 : 1;
	if (p->n_allow)
		memcpy(n->allow, p->allow, p->n_allow * sizeof(*p->allow));
	n->p.allow = NULL;
	/* pages are touched only where used: 17 regions x 1024 x ~540 bytes reserved */
	n->txn = calloc(N4_TXN_SLOTS, sizeof(*n->txn));
	n->teid_used = calloc(((size_t)p->max_teid + 64) / 64, sizeof(uint64_t));
	rc = n->txn && n->teid_used ? n4_sess_init(n) : -ENOMEM;
	if (!rc && !p->no_socket)
		rc = open_socket(n);
	if (!rc && p->loop) {
		ev_timer_init(&n->retx_timer, on_retx_timer, n);
		rc = ev_timer_start(p->loop, &n->retx_timer, retx_period_ms(n));
	}
	if (rc) {
		upf_n4_close(n);
		return rc;
	}
	log_info(N4_MOD, "PFCP on %s:%u, %u sessions, recovery time stamp %u", inet_ntoa((struct in_addr){ p->addr }),
		 n->p.port, p->max_sessions, n->recovery);
	*out = n;
	return 0;
}

void upf_n4_close(struct upf_n4 *n)
{
	if (!n)
		return;
	if (n->p.loop)
		ev_timer_stop(n->p.loop, &n->retx_timer);
	if (n->fd >= 0) {
		if (n->p.loop)
			ev_fd_del(n->p.loop, n->fd);
		close(n->fd);
	}
	free(n->sess);
	free(n->txn);
	free(n->teid_used);
	free(n);
}
