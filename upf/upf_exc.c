/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_exc.c - the exception path in user space:
 *   - the GTP-U socket (<n3_addr>:2152): Echo Request -> Echo Response
 *     (TS 29.281 7.2.2), G-PDU with an unknown TEID -> Error Indication
 *     (TS 29.281 7.3.1), rate limited; G-PDUs and End Markers on an indirect forwarding
 *     tunnel the program could not relay itself are relayed here; everything else counted;
 *   - the exception ring: downlink packets of idle sessions (buffered, bounded
 *     per session and in total, control plane notified once) and downlink
 *     packets whose next hop has no neighbour entry yet (sent through the
 *     kernel, which resolves it).
 * Buffers come from a pool allocated at upf_open(); nothing here allocates.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#include <bpf/libbpf.h>

#include "common/ev.h"
#include "common/log.h"
#include "upf/upf_int.h"
#include "upf/upf.skel.h"

#define MOD "upf"

/* TS 29.281 8.2 Recovery, 8.3 TEID Data I, 8.4 GTP-U Peer Address. */
#define IE_RECOVERY 14
#define IE_TEID_DATA_I 16
#define IE_PEER_ADDR 133
/* TS 29.281 5.2.2.1 UDP Port extension header. */
#define EXT_UDP_PORT 0x40

/* port in host order: 2152 for requests and G-PDUs,
 * the request's source port for responses (TS 29.281 4.4.2). */
static int send_to(struct upf *u, uint32_t addr, uint16_t port, const struct iovec *iov, int n)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(port),
				  .sin_addr.s_addr = addr };
	struct msghdr m = { .msg_name = &to, .msg_namelen = sizeof(to),
			    .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };

	return sendmsg(u->sock, &m, MSG_DONTWAIT) < 0 ? -errno : 0;
}

int upf_exc_send_dl(struct upf *u, const struct upf_session_rule *r, const uint8_t *pkt, size_t len)
{
	/* Same header as the XDP program: TS 29.281 5.1 with the DL PDU
	 * Session Container of TS 38.415 5.5.2.1. */
	uint8_t h[16] = { 0x34, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, UPF_GTP_EXT_PDU_SESSION,
			  1, 0x00, (uint8_t)(r->qfi & 0x3f), 0 };
	uint32_t teid = htonl(r->gnb_teid);
	struct iovec iov[2] = { { h, sizeof(h) }, { (void *)pkt, len } };

	h[2] = (uint8_t)((len + 8) >> 8);
	h[3] = (uint8_t)(len + 8);
	memcpy(h + 4, &teid, 4);
	return send_to(u, r->gnb_addr, UPF_GTPU_PORT, iov, 2);
}

int upf_exc_end_marker(struct upf *u, const struct upf_session_rule *r)
{
	/* TS 29.281 7.3.2 / 5.1: type 254, no payload, the tunnel's TEID; TS 38.415 5.5.2.1
	 * (DL PDU Session Information, the flow's QFI) as on the G-PDUs of that tunnel. */
	uint8_t h[16] = { 0x34, UPF_GTP_END_MARKER, 0, 8, 0, 0, 0, 0, 0, 0, 0, UPF_GTP_EXT_PDU_SESSION,
			  1, 0x00, (uint8_t)(r->qfi & 0x3f), 0 };
	uint32_t teid = htonl(r->gnb_teid);
	struct iovec iov = { h, sizeof(h) };

	memcpy(h + 4, &teid, 4);
	return send_to(u, r->gnb_addr, UPF_GTPU_PORT, &iov, 1);
}

/* ---- buffering ---- */

static void notify_queue(struct upf *u, uint32_t id)
{
	struct upf_sess *s = &u->sess[id];

	if (s->notified || s->notify_queued)
		return;
	s->notify_queued = true;
	s->notify_next = u->notify_head;
	u->notify_head = id;
}

/* Callbacks run after the ring is consumed, never inside it, so the control
 * plane may modify the session from on_dl_data(). */
static void notify_run(struct upf *u)
{
	while (u->notify_head != UPF_NONE) {
		uint32_t id = u->notify_head;
		struct upf_sess *s = &u->sess[id];

		u->notify_head = s->notify_next;
		s->notify_queued = false;
		if (!s->used || s->r.dl_state != UPF_DL_BUFFER || s->notified)
			continue;
		s->notified = true;
		log_info(MOD, "session=%u: downlink data while idle, buffered=%u", id, s->buf_count);
		if (u->p.on_dl_data)
			u->p.on_dl_data(u->p.cb_arg, id);
	}
}

/* Downlink that leaves from user space (the next hop had no neighbour entry,
 * or it waited in a buffer) counts in the session's downlink like what the
 * XDP program forwards: one packet, the inner IP packet's bytes. */
static void count_dl(struct upf_sess *s, const uint8_t *pkt, uint32_t len)
{
	uint32_t ilen = len >= 4 ? (uint32_t)pkt[2] << 8 | pkt[3] : 0;   /* IPv4 total length */

	s->base[1][0]++;
	s->base[1][1] += ilen && ilen <= len ? ilen : len;
}

static void buffer_pkt(struct upf *u, uint32_t id, const uint8_t *pkt, uint32_t len)
{
	struct upf_sess *s = &u->sess[id];
	uint32_t b = u->buf_free;

	if (s->buf_count >= u->p.buffer_per_session || b == UPF_NONE) {
		UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		return;
	}
	u->buf_free = u->bufs[b].next;
	u->bufs[b].next = UPF_NONE;
	u->bufs[b].len = len;
	memcpy(u->bufs[b].data, pkt, len);
	if (s->buf_tail == UPF_NONE)
		s->buf_head = b;
	else
		u->bufs[s->buf_tail].next = b;
	s->buf_tail = b;
	s->buf_count++;
}

static void buffers_free(struct upf *u, uint32_t id, bool send)
{
	struct upf_sess *s = &u->sess[id];

	while (s->buf_head != UPF_NONE) {
		uint32_t b = s->buf_head;

		s->buf_head = u->bufs[b].next;
		if (send && upf_exc_send_dl(u, &s->r, u->bufs[b].data, u->bufs[b].len) == 0) {
			UPF_USTAT(u, UPF_STAT_BUF_RELEASED)++;
			count_dl(s, u->bufs[b].data, u->bufs[b].len);
		} else
			UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		u->bufs[b].next = u->buf_free;
		u->buf_free = b;
	}
	s->buf_tail = UPF_NONE;
	s->buf_count = 0;
}

void upf_exc_release(struct upf *u, uint32_t id)
{
	uint32_t n = u->sess[id].buf_count;

	buffers_free(u, id, true);
	if (n)
		log_info(MOD, "session=%u: released %u buffered downlink packets", id, n);
}

void upf_exc_flush(struct upf *u, uint32_t id)
{
	buffers_free(u, id, false);
}

static int on_ring(void *ctx, void *data, size_t size)
{
	struct upf *u = ctx;
	const struct upf_exc_hdr *h = data;
	const uint8_t *pkt = (const uint8_t *)(h + 1);
	struct upf_sess *s;

	if (size < sizeof(*h) || h->len > size - sizeof(*h) || h->len > UPF_EXC_MAX_PKT ||
	    h->sess_id >= u->p.max_sessions) {
		UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		return 0;
	}
	s = &u->sess[h->sess_id];
	/* The session may have been removed or moved since the program saw it. */
	if (!s->used || s->r.ue_addr != h->ue_addr) {
		UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		return 0;
	}
	if (s->r.dl_state == UPF_DL_ACTIVE) {
		if (upf_exc_send_dl(u, &s->r, pkt, h->len) == 0) {
			UPF_USTAT(u, UPF_STAT_NEXTHOP_SENT)++;
			count_dl(s, pkt, h->len);
		} else
			UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		return 0;
	}
	buffer_pkt(u, h->sess_id, pkt, h->len);
	notify_queue(u, h->sess_id);
	return 0;
}

int upf_exc_drain(struct upf *u)
{
	int n;

	if (u->in_ring)
		return 0;
	u->in_ring = true;
	n = ring_buffer__consume(u->rb);
	u->in_ring = false;
	notify_run(u);
	return n;
}

/* ---- GTP-U socket ---- */

/* Indirect forwarding (TS 23.502 4.9.1.3.3) for what the XDP program handed to the kernel
 * (no neighbour entry yet, an outer fragment reassembled, or no program attached): the same
 * relay as fwd_relay() in upf.bpf.c, the GTP-U message unchanged but for the TEID, sent from
 * <n3_addr>:2152 so the kernel resolves the neighbour. false: no tunnel for this TEID. */
static bool fwd_sock(struct upf *u, uint8_t *m, uint32_t from)
{
	uint32_t teid = ((uint32_t)m[4] << 24) | ((uint32_t)m[5] << 16) | ((uint32_t)m[6] << 8) | m[7];
	size_t n = 8u + (((size_t)m[2] << 8) | m[3]);   /* checked against len by the caller */
	struct upf_fwd_rule f;
	struct iovec iov = { m, n };

	if (upf_fwd_lookup(u, teid, &f))
		return false;
	/* Our own relay coming back (a target on a local address): never relayed twice. */
	if (from == u->p.n3_addr) {
		UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
		return true;
	}
	memcpy(m + 4, &f.peer_teid, 4);
	if (send_to(u, f.peer_addr, UPF_GTPU_PORT, &iov, 1) == 0) {
		UPF_USTAT(u, UPF_STAT_FWD_SENT)++;
		UPF_USTAT(u, UPF_STAT_FWD_SENT_BYTES) += n;
	} else {
		UPF_USTAT(u, UPF_STAT_FWD_SEND_FAILED)++;
	}
	return true;
}

static void echo_response(struct upf *u, const uint8_t *req, size_t len, uint32_t from, uint16_t sport)
{
	/* TS 29.281 7.2.2: same sequence number, Recovery IE with value 0. */
	uint8_t r[14] = { 0x32, UPF_GTP_ECHO_RSP, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, IE_RECOVERY, 0 };
	struct iovec iov = { r, sizeof(r) };

	if ((req[0] & 0x07) && len >= 12) {
		r[8] = req[8];
		r[9] = req[9];
	}
	if (send_to(u, from, sport, &iov, 1) == 0)
		UPF_USTAT(u, UPF_STAT_ECHO_RSP_SENT)++;
}

static bool err_ind_allowed(struct upf *u)
{
	uint64_t now = upf_mono_ns();
	double burst = u->p.err_ind_per_s;

	u->ei_tokens += (double)(now - u->ei_last_ns) * u->p.err_ind_per_s / 1e9;
	if (u->ei_last_ns == 0 || u->ei_tokens > burst)
		u->ei_tokens = burst;
	u->ei_last_ns = now;
	if (u->ei_tokens < 1.0)
		return false;
	u->ei_tokens -= 1.0;
	return true;
}

static void error_indication(struct upf *u, const uint8_t *gpdu, uint32_t from, uint16_t sport)
{
	/* TS 29.281 7.3.1: TEID 0, S=1; TEID Data I = the unknown TEID, GTP-U
	 * Peer Address = the address it was sent to (ours); the UDP Port
	 * extension header (5.2.2.1) carries the G-PDU's source port. */
	uint8_t m[8 + 4 + 4 + 5 + 7] = {
		0x36, UPF_GTP_ERR_IND, 0, 4 + 4 + 5 + 7, 0, 0, 0, 0,
		0, 0, 0, EXT_UDP_PORT,
		1, (uint8_t)(sport >> 8), (uint8_t)sport, 0,
		IE_TEID_DATA_I, gpdu[4], gpdu[5], gpdu[6], gpdu[7],
		IE_PEER_ADDR, 0, 4, 0, 0, 0, 0,
	};
	struct iovec iov = { m, sizeof(m) };

	memcpy(m + 24, &u->p.n3_addr, 4);
	if (!err_ind_allowed(u)) {
		UPF_USTAT(u, UPF_STAT_ERR_IND_LIMITED)++;
		return;
	}
	/* TS 29.281 4.4.2: Error Indication to the user plane port. */
	if (send_to(u, from, UPF_GTPU_PORT, &iov, 1) == 0)
		UPF_USTAT(u, UPF_STAT_ERR_IND_SENT)++;
}

/* TS 29.281 7.3.1: a peer does not know the TEID we sent to. Hand TEID Data I
 * and the GTP-U Peer Address to the control plane, which owns the sessions. */
static void err_ind_rx(struct upf *u, const uint8_t *m, size_t len, uint32_t from)
{
	size_t end = 8 + (((size_t)m[2] << 8) | m[3]), off = 8;
	uint32_t teid = 0, peer = from;
	bool have_teid = false;
	uint8_t next = 0;

	if (end > len)
		end = len;
	if (m[0] & 0x07) {
		if (off + 4 > end)
			goto bad;
		next = (m[0] & 0x04) ? m[off + 3] : 0;
		off += 4;
	}
	for (int i = 0; next && i < 8; i++) {           /* extension headers (5.2) */
		size_t el;

		if (off >= end)
			goto bad;
		el = (size_t)m[off] * 4;
		if (!el || off + el > end)
			goto bad;
		next = m[off + el - 1];
		off += el;
	}
	if (next)
		goto bad;
	while (off < end) {
		uint8_t t = m[off];

		if (t == IE_TEID_DATA_I && off + 5 <= end) {
			teid = (uint32_t)m[off + 1] << 24 | (uint32_t)m[off + 2] << 16 |
			       (uint32_t)m[off + 3] << 8 | m[off + 4];
			have_teid = true;
			off += 5;
		} else if (t == IE_RECOVERY && off + 2 <= end) {
			off += 2;
		} else if (t >= 128 && off + 3 <= end) {        /* TLV IEs (8.1) */
			size_t l = ((size_t)m[off + 1] << 8) | m[off + 2];

			if (off + 3 + l > end)
				goto bad;
			if (t == IE_PEER_ADDR && l == 4)
				memcpy(&peer, m + off + 3, 4);
			off += 3 + l;
		} else {
			break;
		}
	}
	if (!have_teid)
		goto bad;
	log_rl(LOGL_WARN, MOD, NULL, "Error Indication from peer: teid=0x%x unknown there", teid);
	if (u->p.on_err_ind)
		u->p.on_err_ind(u->p.cb_arg, peer, teid);
	return;
bad:
	UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
}

int upf_exc_sock_rx(struct upf *u)
{
	uint8_t buf[2048];
	int n = 0;

	for (; n < 64; n++) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t len = recvfrom(u->sock, buf, sizeof(buf), MSG_DONTWAIT,
				       (struct sockaddr *)&from, &fl);

		if (len < 0)
			break;
		/* TS 29.281 5.1: version 1, PT 1, and a length that fits. */
		if (len < 8 || (buf[0] & 0xf0) != 0x30 || (size_t)len < 8u + ((buf[2] << 8) | buf[3])) {
			UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
			continue;
		}
		switch (buf[1]) {
		case UPF_GTP_ECHO_REQ:
			echo_response(u, buf, (size_t)len, from.sin_addr.s_addr, ntohs(from.sin_port));
			break;
		case UPF_GTP_GPDU: {
			uint32_t teid = ((uint32_t)buf[4] << 24) | ((uint32_t)buf[5] << 16) |
					((uint32_t)buf[6] << 8) | buf[7];

			if (fwd_sock(u, buf, from.sin_addr.s_addr))
				break;
			if (teid && teid < u->ul_n && upf_ul_valid(u, teid)) {
				/* A known TEID reaches the socket only as a
				 * reassembled outer fragment: not forwarded. */
				UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
				break;
			}
			log_rl(LOGL_INFO, MOD, NULL, "G-PDU with unknown teid=0x%x", teid);
			error_indication(u, buf, from.sin_addr.s_addr, ntohs(from.sin_port));
			break;
		}
		case UPF_GTP_ERR_IND:
			err_ind_rx(u, buf, (size_t)len, from.sin_addr.s_addr);
			break;
		case UPF_GTP_END_MARKER:
			/* TS 29.281 7.3.2: relayed on a forwarding tunnel; on any other it only ends
			 * a path (the program counts and drops those). */
			fwd_sock(u, buf, from.sin_addr.s_addr);
			break;
		default:
			break;
		}
	}
	return n;
}

int upf_process(struct upf *u)
{
	if (u->remote)
		return 0;   /* the endpoint serves its socket on the loop */
	int a = upf_exc_sock_rx(u);

	if (upf_mono_ns() - u->nh_last_ns >= UPF_NH_REVALIDATE_MS * 1000000ull)
		upf_nexthop_flush(u);
	int b = upf_exc_drain(u);

	if (b < 0)
		return b;
	return a + b;
}

int upf_fds(const struct upf *u, int fds[2])
{
	if (u->remote)
		return 0;
	fds[0] = u->sock;
	fds[1] = u->ring_fd;
	return 2;
}

static void on_fd(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	upf_process(arg);
}

int upf_exc_open(struct upf *u)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(UPF_GTPU_PORT),
				 .sin_addr.s_addr = u->p.n3_addr };
	int one = 1, rc;

	u->sock = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->sock < 0)
		return -errno;
	/* The N3 address may be configured after we start. */
	setsockopt(u->sock, IPPROTO_IP, IP_FREEBIND, &one, sizeof(one));
	setsockopt(u->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(u->sock, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = -errno;
		log_error(MOD, "bind to GTP-U port %d failed: %s", UPF_GTPU_PORT, strerror(-rc));
		return rc;
	}
	u->rb = ring_buffer__new(bpf_map__fd(u->skel->maps.exc_ring), on_ring, u, NULL);
	if (!u->rb)
		return -errno ? -errno : -ENOMEM;
	u->ring_fd = ring_buffer__epoll_fd(u->rb);
	if (u->p.loop) {
		rc = ev_fd_add(u->p.loop, u->sock, EV_READ, on_fd, u);
		if (!rc)
			rc = ev_fd_add(u->p.loop, u->ring_fd, EV_READ, on_fd, u);
		if (rc)
			return rc;
	}
	return 0;
}

void upf_exc_close(struct upf *u)
{
	if (u->p.loop) {
		if (u->sock >= 0)
			ev_fd_del(u->p.loop, u->sock);
		if (u->ring_fd >= 0)
			ev_fd_del(u->p.loop, u->ring_fd);
	}
	ring_buffer__free(u->rb);
	u->rb = NULL;
	u->ring_fd = -1;
	if (u->sock >= 0)
		close(u->sock);
	u->sock = -1;
}
