/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_exc.c - the exception path in user space:
 *   - the GTP-U socket (<n3_addr>:2152): Echo Request -> Echo Response
 *     (TS 29.281 7.2.2), G-PDU with an unknown TEID -> Error Indication
 *     (TS 29.281 7.3.1), rate limited; G-PDUs and End Markers on an indirect forwarding
 *     tunnel the program could not relay itself are relayed here; everything else counted;
 *   - the exception ring: downlink packets of idle sessions, IPv4 or IPv6 (buffered, bounded
 *     per session and in total, control plane notified once), downlink
 *     packets whose next hop has no neighbour entry yet (sent through the
 *     kernel, which resolves it), and ICMPv6 Router Solicitations from UEs, answered with a
 *     Router Advertisement of the session's /64 in its downlink tunnel (RFC 4861 6.2.6,
 *     TS 23.501 5.8.2.2.2), and ICMP errors to the NAT address about translated packets,
 *     translated back (upf_nat.c) and sent down the UE's tunnel.
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

/* A GTP-U peer as the sockets see it: IPv4 (v4 != 0) or IPv6 (TS 29.281 4.4.2); port in host
 * order: 2152 for requests and G-PDUs, the request's source port for responses. */
struct gtp_peer {
	uint32_t v4;
	uint8_t v6[16];
	uint16_t port;
};

static int send_to(struct upf *u, const struct gtp_peer *to, const struct iovec *iov, int n)
{
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(to->port), .sin_addr.s_addr = to->v4 };
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(to->port) };
	struct msghdr m = { .msg_name = &a4, .msg_namelen = sizeof(a4),
			    .msg_iov = (struct iovec *)iov, .msg_iovlen = (size_t)n };
	int fd = u->sock;

	if (!to->v4) {
		/* The kernel fills the UDP checksum IPv6 requires (RFC 8200 8.1). */
		if (u->sock6 < 0 || !upf_addr6_set(to->v6))
			return -EAFNOSUPPORT;
		memcpy(&a6.sin6_addr, to->v6, 16);
		m.msg_name = &a6;
		m.msg_namelen = sizeof(a6);
		fd = u->sock6;
	}
	return sendmsg(fd, &m, MSG_DONTWAIT) < 0 ? -errno : 0;
}

/* The gNB end of a session's downlink tunnel. */
static struct gtp_peer rule_peer(const struct upf_session_rule *r)
{
	struct gtp_peer p = { .v4 = r->gnb_addr, .port = UPF_GTPU_PORT };

	if (!r->gnb_addr)
		memcpy(p.v6, r->gnb_addr6, 16);
	return p;
}

int upf_exc_send_dl(struct upf *u, const struct upf_session_rule *r, const uint8_t *pkt, size_t len)
{
	/* Same header as the XDP program: TS 29.281 5.1 with the DL PDU
	 * Session Container of TS 38.415 5.5.2.1. */
	uint8_t h[16] = { 0x34, 0xff, 0, 0, 0, 0, 0, 0, 0, 0, 0, UPF_GTP_EXT_PDU_SESSION,
			  1, 0x00, (uint8_t)(r->qfi & 0x3f), 0 };
	uint32_t teid = htonl(r->gnb_teid);
	struct iovec iov[2] = { { h, sizeof(h) }, { (void *)pkt, len } };
	struct gtp_peer to = rule_peer(r);

	h[2] = (uint8_t)((len + 8) >> 8);
	h[3] = (uint8_t)(len + 8);
	memcpy(h + 4, &teid, 4);
	return send_to(u, &to, iov, 2);
}

int upf_exc_end_marker(struct upf *u, const struct upf_session_rule *r)
{
	/* TS 29.281 7.3.2 / 5.1: type 254, no payload, the tunnel's TEID; TS 38.415 5.5.2.1
	 * (DL PDU Session Information, the flow's QFI) as on the G-PDUs of that tunnel. */
	uint8_t h[16] = { 0x34, UPF_GTP_END_MARKER, 0, 8, 0, 0, 0, 0, 0, 0, 0, UPF_GTP_EXT_PDU_SESSION,
			  1, 0x00, (uint8_t)(r->qfi & 0x3f), 0 };
	uint32_t teid = htonl(r->gnb_teid);
	struct iovec iov = { h, sizeof(h) };
	struct gtp_peer to = rule_peer(r);

	memcpy(h + 4, &teid, 4);
	return send_to(u, &to, &iov, 1);
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

	if (len >= 40 && pkt[0] >> 4 == 6)   /* IPv6: header + payload length (RFC 8200 3) */
		ilen = 40 + ((uint32_t)pkt[4] << 8 | pkt[5]);

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

static void ra_owed(struct upf *u, uint32_t id);

void upf_exc_release(struct upf *u, uint32_t id)
{
	uint32_t n = u->sess[id].buf_count;

	ra_owed(u, id);   /* before the buffered packets: the UE's address comes first */
	buffers_free(u, id, true);
	if (n)
		log_info(MOD, "session=%u: released %u buffered downlink packets", id, n);
}

void upf_exc_flush(struct upf *u, uint32_t id)
{
	buffers_free(u, id, false);
}

/* Is this downlink packet (from the ring) still the session's: its IPv4 address, or its /64? */
static bool dl_for_session(const struct upf_sess *s, const struct upf_exc_hdr *h, const uint8_t *pkt)
{
	if (h->len >= 20 && pkt[0] >> 4 == 4)
		return s->r.ue_addr && s->r.ue_addr == h->ue_addr;
	if (h->len >= 40 && pkt[0] >> 4 == 6)
		return upf_prefix6_hi(s->r.ue_prefix6) && memcmp(pkt + 24, s->r.ue_prefix6, 8) == 0;
	return false;
}

/* ---- IPv6 Router Advertisement (RFC 4861, TS 23.501 5.8.2.2.2) ---- */

#define ICMP6_RS 133
#define ICMP6_RA 134
#define ND_OPT_SLLA 1          /* RFC 4861 4.6.1 */
#define ND_OPT_PREFIX 3        /* RFC 4861 4.6.2 */
/* RFC 4861 6.2.1: AdvDefaultLifetime at most 9000 s; we are the session's only router. */
#define RA_ROUTER_LIFETIME 9000
/* RFC 4861 10: MIN_DELAY_BETWEEN_RAS; a UE retransmits its RS every 4 s
 * (RTR_SOLICITATION_INTERVAL), so a lost RA is answered again at the next RS. */
#define RA_MIN_DELAY_NS (3ull * 1000000000ull)

/* Our link-local address on every PDU session's link, the RA's source (RFC 4861 4.2: a router
 * sends RAs from its link-local address). The link is point to point: no other router. */
static const uint8_t ra_src[16] = { 0xfe, 0x80, [15] = 1 };
static const uint8_t all_nodes[16] = { 0xff, 0x02, [15] = 1 };

/* ICMPv6 checksum (RFC 8200 8.1, RFC 4443 2.3): pseudo-header of src, dst, length and next
 * header 58, then the message. */
static uint16_t icmp6_csum(const uint8_t *src, const uint8_t *dst, const uint8_t *m, size_t len)
{
	uint32_t sum = (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff) + 58;

	for (int i = 0; i < 16; i += 2)
		sum += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	for (size_t i = 0; i + 1 < len; i += 2)
		sum += (uint32_t)(m[i] << 8 | m[i + 1]);
	if (len & 1)
		sum += (uint32_t)m[len - 1] << 8;
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	return (uint16_t)~sum;
}

/* The Router Advertisement (the IPv6 packet, UPF_RA_LEN bytes) of a session's /64 to dst. */
#define UPF_RA_LEN (40 + 16 + 32)
static size_t ra_build(uint8_t *o, const uint8_t prefix[8], const uint8_t dst[16])
{
	uint8_t *ra = o + 40, *pi = ra + 16;
	uint16_t c;

	memset(o, 0, UPF_RA_LEN);
	/* IPv6 header (RFC 8200 3): hop limit 255, which the UE checks (RFC 4861 6.1.2). */
	o[0] = 0x60;
	o[5] = UPF_RA_LEN - 40;
	o[6] = 58;
	o[7] = 255;
	memcpy(o + 8, ra_src, 16);
	memcpy(o + 24, dst, 16);
	/* RFC 4861 4.2: Cur Hop Limit 64; M=0, O=0 (TS 23.501 5.8.2.2.2: stateless, no DHCPv6 for
	 * the address; DNS comes in the PCO); Router Lifetime; Reachable Time and Retrans Timer 0
	 * (unspecified). */
	ra[0] = ICMP6_RA;
	ra[4] = 64;
	ra[6] = RA_ROUTER_LIFETIME >> 8;
	ra[7] = RA_ROUTER_LIFETIME & 0xff;
	/* RFC 4861 4.6.2 Prefix Information: the session's /64 (TS 23.501 5.8.2.2.2), A=1 so the UE
	 * forms its global address by SLAAC (RFC 4862 5.5.3) from the interface identifier the
	 * SMF gave it; L=0: the UE needs no on-link determination on a point-to-point link, all
	 * it sends goes to us. Lifetimes infinite (0xffffffff): the prefix is the session's for
	 * its whole life. */
	pi[0] = ND_OPT_PREFIX;
	pi[1] = 4;
	pi[2] = 64;
	pi[3] = 0x40;
	memset(pi + 4, 0xff, 8);
	memcpy(pi + 16, prefix, 8);
	c = icmp6_csum(ra_src, dst, ra, UPF_RA_LEN - 40);
	ra[2] = (uint8_t)(c >> 8);
	ra[3] = (uint8_t)c;
	return UPF_RA_LEN;
}

/* RFC 4861 6.1.1: hop limit 255, valid checksum, code 0, ICMP length >= 8, every option of
 * non-zero length, no source link-layer address option from the unspecified address. */
static bool rs_valid(const uint8_t *p, size_t len)
{
	size_t plen, off;
	bool unspec = true;

	if (len < 48 || p[0] >> 4 != 6 || p[6] != 58 || p[7] != 255)
		return false;
	plen = (size_t)p[4] << 8 | p[5];
	if (plen < 8 || 40 + plen > len)
		return false;
	if (p[40] != ICMP6_RS || p[41] != 0 || icmp6_csum(p + 8, p + 24, p + 40, plen) != 0)
		return false;
	for (int i = 0; i < 16; i++)
		unspec = unspec && p[8 + i] == 0;
	for (off = 8; off < plen; ) {
		size_t ol;

		if (off + 2 > plen)
			return false;
		ol = (size_t)p[40 + off + 1] * 8;
		if (!ol || off + ol > plen)
			return false;
		if (p[40 + off] == ND_OPT_SLLA && unspec)
			return false;
		off += ol;
	}
	return true;
}

void upf_exc_rs(struct upf *u, uint32_t id, const uint8_t *pkt, size_t len)
{
	struct upf_sess *s = id < u->p.max_sessions ? &u->sess[id] : NULL;
	uint8_t ra[UPF_RA_LEN];
	uint64_t now = upf_mono_ns();
	bool unspec = true;

	/* An RS for a session without a prefix (IPv4 only) is not answered. One whose downlink is
	 * not active yet (the UE can solicit before the gNB's tunnel reaches the UPF) is answered
	 * when it becomes active (TS 23.501 5.8.2.2.2: the RA follows the establishment). */
	if (!s || !s->used || !upf_prefix6_hi(s->r.ue_prefix6) || !rs_valid(pkt, len)) {
		UPF_USTAT(u, UPF_STAT_RS_DROPPED)++;
		return;
	}
	if (s->r.dl_state != UPF_DL_ACTIVE || !upf_rule_has_gnb(&s->r)) {
		s->ra_pending = true;
		return;
	}
	/* RFC 4861 6.2.6: RAs answering RSs are rate limited (MIN_DELAY_BETWEEN_RAS). */
	if (s->ra_last_ns && now - s->ra_last_ns < RA_MIN_DELAY_NS) {
		UPF_USTAT(u, UPF_STAT_RS_DROPPED)++;
		return;
	}
	for (int i = 0; i < 16; i++)
		unspec = unspec && pkt[8 + i] == 0;
	/* RFC 4861 6.2.6: unicast to the soliciting address, all-nodes if it was unspecified. */
	ra_build(ra, s->r.ue_prefix6, unspec ? all_nodes : pkt + 8);
	if (upf_exc_send_dl(u, &s->r, ra, sizeof(ra)) == 0) {
		s->ra_last_ns = now;
		UPF_USTAT(u, UPF_STAT_RA_SENT)++;
	} else {
		UPF_USTAT(u, UPF_STAT_RS_DROPPED)++;
	}
}

/* The RA an RS asked for while the downlink was not active, now that it is: to all-nodes
 * (RFC 4861 6.2.6 allows it; the UE takes it as the answer). */
static void ra_owed(struct upf *u, uint32_t id)
{
	struct upf_sess *s = &u->sess[id];
	uint8_t ra[UPF_RA_LEN];

	if (!s->ra_pending)
		return;
	s->ra_pending = false;
	if (!upf_prefix6_hi(s->r.ue_prefix6) || s->r.dl_state != UPF_DL_ACTIVE || !upf_rule_has_gnb(&s->r))
		return;
	ra_build(ra, s->r.ue_prefix6, all_nodes);
	if (upf_exc_send_dl(u, &s->r, ra, sizeof(ra)) == 0) {
		s->ra_last_ns = upf_mono_ns();
		UPF_USTAT(u, UPF_STAT_RA_SENT)++;
	} else {
		UPF_USTAT(u, UPF_STAT_RS_DROPPED)++;
	}
}

/* An ICMP error to nat_addr about a translated packet (RFC 5508 4): translated
 * back (upf_nat.c), then the UE's downlink like any other packet: sent down its tunnel, or
 * buffered while it is idle. */
static void nat_icmp_err(struct upf *u, const uint8_t *pkt, uint32_t len)
{
	uint8_t b[UPF_EXC_MAX_PKT];
	uint32_t ue = 0, id;
	struct upf_sess *s;
	int n;

	memcpy(b, pkt, len);
	n = upf_nat_icmp_err(u, b, len, &ue);
	if (n < 0 || upf_sess_by_ue(u, ue, &id)) {
		UPF_USTAT(u, UPF_STAT_NAT_ICMP_ERR_DROPPED)++;
		return;
	}
	s = &u->sess[id];
	if (s->r.dl_state == UPF_DL_ACTIVE) {
		if (upf_exc_send_dl(u, &s->r, b, (size_t)n) == 0) {
			UPF_USTAT(u, UPF_STAT_NAT_ICMP_ERR_SENT)++;
			count_dl(s, b, (uint32_t)n);
		} else {
			UPF_USTAT(u, UPF_STAT_NAT_ICMP_ERR_DROPPED)++;
		}
		return;
	}
	UPF_USTAT(u, UPF_STAT_NAT_ICMP_ERR_SENT)++;
	buffer_pkt(u, id, b, (uint32_t)n);
	notify_queue(u, id);
}

/* A translated uplink packet the program could not send (no neighbour entry for its next hop
 * yet). The kernel cannot forward it -- its source is now one of our addresses, a martian on
 * N3 -- but it sends it as ours: routed, the neighbour resolved, after which the program
 * sends the flow's packets itself. */
static void nat_ul_send(struct upf *u, const uint8_t *pkt, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET };

	if (u->raw < 0 || len < 20 || pkt[0] >> 4 != 4) {
		UPF_USTAT(u, UPF_STAT_NAT_UL_FAILED)++;
		return;
	}
	memcpy(&to.sin_addr.s_addr, pkt + 16, 4);
	if (sendto(u->raw, pkt, len, MSG_DONTWAIT, (struct sockaddr *)&to, sizeof(to)) < 0)
		UPF_USTAT(u, UPF_STAT_NAT_UL_FAILED)++;
	else
		UPF_USTAT(u, UPF_STAT_NAT_UL_SENT)++;
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
	if (h->reason == UPF_CNT_UL_RS) {
		upf_exc_rs(u, h->sess_id, pkt, h->len);
		return 0;
	}
	if (h->reason == UPF_CNT_UL_TO_CP) {   /* a PDR whose FAR goes to the CP (upf_sdf.c) */
		upf_sdf_to_cp(u, h->sess_id, h->ue_addr, pkt, h->len);
		return 0;
	}
	if (h->reason == UPF_CNT_NAT_ICMP_ERR) {
		nat_icmp_err(u, pkt, h->len);
		return 0;
	}
	if (h->reason == UPF_CNT_NAT_UL_KERNEL) {
		nat_ul_send(u, pkt, h->len);
		return 0;
	}
	s = &u->sess[h->sess_id];
	/* The session may have been removed or moved since the program saw it. */
	if (!s->used || !dl_for_session(s, h, pkt)) {
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
static bool fwd_sock(struct upf *u, uint8_t *m, const struct gtp_peer *from)
{
	uint32_t teid = ((uint32_t)m[4] << 24) | ((uint32_t)m[5] << 16) | ((uint32_t)m[6] << 8) | m[7];
	size_t n = 8u + (((size_t)m[2] << 8) | m[3]);   /* checked against len by the caller */
	struct upf_fwd_rule f;
	struct iovec iov = { m, n };
	struct gtp_peer to = { .port = UPF_GTPU_PORT };

	if (upf_fwd_lookup(u, teid, &f))
		return false;
	/* Our own relay coming back (a target on a local address): never relayed twice. */
	if (from->v4 && from->v4 == u->p.n3_addr) {
		UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
		return true;
	}
	/* The forwarding tunnels are IPv4 (upf_fwd_create): a source gNB on IPv6 reaches them here. */
	to.v4 = f.peer_addr;
	memcpy(m + 4, &f.peer_teid, 4);
	if (send_to(u, &to, &iov, 1) == 0) {
		UPF_USTAT(u, UPF_STAT_FWD_SENT)++;
		UPF_USTAT(u, UPF_STAT_FWD_SENT_BYTES) += n;
	} else {
		UPF_USTAT(u, UPF_STAT_FWD_SEND_FAILED)++;
	}
	return true;
}

static void echo_response(struct upf *u, const uint8_t *req, size_t len, const struct gtp_peer *from)
{
	/* TS 29.281 7.2.2: same sequence number, Recovery IE with value 0. */
	uint8_t r[14] = { 0x32, UPF_GTP_ECHO_RSP, 0, 6, 0, 0, 0, 0, 0, 0, 0, 0, IE_RECOVERY, 0 };
	struct iovec iov = { r, sizeof(r) };

	if ((req[0] & 0x07) && len >= 12) {
		r[8] = req[8];
		r[9] = req[9];
	}
	if (send_to(u, from, &iov, 1) == 0)
		UPF_USTAT(u, UPF_STAT_ECHO_RSP_SENT)++;
}

/* A token bucket of rate per_s, burst per_s (at least 1). */
static bool bucket_take(double *tokens, uint64_t *last_ns, uint32_t per_s)
{
	uint64_t now = upf_mono_ns();
	double burst = per_s;

	*tokens += (double)(now - *last_ns) * per_s / 1e9;
	if (*last_ns == 0 || *tokens > burst)
		*tokens = burst;
	*last_ns = now;
	if (*tokens < 1.0)
		return false;
	*tokens -= 1.0;
	return true;
}

static bool err_ind_allowed(struct upf *u)
{
	return bucket_take(&u->ei_tokens, &u->ei_last_ns, u->p.err_ind_per_s);
}

static void error_indication(struct upf *u, const uint8_t *gpdu, const struct gtp_peer *from)
{
	/* TS 29.281 7.3.1: TEID 0, S=1; TEID Data I = the unknown TEID, GTP-U
	 * Peer Address = the address it was sent to (ours, of the family it came in: 8.4 allows
	 * IPv4 or IPv6); the UDP Port extension header (5.2.2.1) carries the G-PDU's source port. */
	uint8_t m[8 + 4 + 4 + 5 + 3 + 16] = {
		0x36, UPF_GTP_ERR_IND, 0, 0, 0, 0, 0, 0,
		0, 0, 0, EXT_UDP_PORT,
		1, (uint8_t)(from->port >> 8), (uint8_t)from->port, 0,
		IE_TEID_DATA_I, gpdu[4], gpdu[5], gpdu[6], gpdu[7],
		IE_PEER_ADDR, 0, 4,
	};
	size_t alen = from->v4 ? 4 : 16;
	struct iovec iov = { m, 24 + alen };
	struct gtp_peer to = *from;

	if (from->v4)
		memcpy(m + 24, &u->p.n3_addr, 4);
	else
		memcpy(m + 24, u->p.n3_addr6, 16);
	m[23] = (uint8_t)alen;
	m[3] = (uint8_t)(4 + 4 + 5 + 3 + alen);
	if (!err_ind_allowed(u)) {
		UPF_USTAT(u, UPF_STAT_ERR_IND_LIMITED)++;
		return;
	}
	/* TS 29.281 4.4.2: Error Indication to the user plane port. */
	to.port = UPF_GTPU_PORT;
	if (send_to(u, &to, &iov, 1) == 0)
		UPF_USTAT(u, UPF_STAT_ERR_IND_SENT)++;
}

/* TS 29.281 7.3.1: a gNB does not know the TEID we sent to. Both IEs are mandatory (7.3.1
 * Table 7.3.1-1): TEID Data I (8.3) and GTP-U Peer Address (8.4, 4 or 16 octets), which name
 * the tunnel the G-PDU that caused it was sent on (its TEID and destination address): one of
 * our downlink tunnels. Parsed strictly; anything else is malformed (sock_bad). */
static int err_ind_parse(const uint8_t *m, size_t len, struct upf_err_ind *ei)
{
	size_t end = 8 + (((size_t)m[2] << 8) | m[3]), off = 8;
	bool have_teid = false, have_peer = false;
	uint8_t next = 0;

	if (end > len)
		return -EBADMSG;
	if (m[0] & 0x07) {
		if (off + 4 > end)
			return -EBADMSG;
		next = (m[0] & 0x04) ? m[off + 3] : 0;
		off += 4;
	}
	for (int i = 0; next && i < 8; i++) {           /* extension headers (5.2) */
		size_t el;

		if (off >= end)
			return -EBADMSG;
		el = (size_t)m[off] * 4;
		if (!el || off + el > end)
			return -EBADMSG;
		next = m[off + el - 1];
		off += el;
	}
	if (next)
		return -EBADMSG;
	while (off < end) {
		uint8_t t = m[off];

		if (t == IE_TEID_DATA_I) {
			if (off + 5 > end || have_teid)
				return -EBADMSG;
			ei->teid = (uint32_t)m[off + 1] << 24 | (uint32_t)m[off + 2] << 16 |
				   (uint32_t)m[off + 3] << 8 | m[off + 4];
			have_teid = true;
			off += 5;
		} else if (t == IE_RECOVERY) {
			if (off + 2 > end)
				return -EBADMSG;
			off += 2;
		} else if (t >= 128) {                           /* TLV IEs (8.1) */
			size_t l;

			if (off + 3 > end)
				return -EBADMSG;
			l = ((size_t)m[off + 1] << 8) | m[off + 2];
			if (off + 3 + l > end)
				return -EBADMSG;
			if (t == IE_PEER_ADDR) {
				if (have_peer || (l != 4 && l != 16))
					return -EBADMSG;
				if (l == 4)
					memcpy(&ei->addr, m + off + 3, 4);
				else
					memcpy(ei->addr6, m + off + 3, 16);
				have_peer = true;
			}
			off += 3 + l;                             /* Private Extension (8.6): skipped */
		} else {
			return -EBADMSG;                          /* an unknown TV IE: length unknown */
		}
	}
	if (!have_teid || !have_peer || (!ei->addr && !upf_addr6_set(ei->addr6)))
		return -EBADMSG;
	return 0;
}

/* An Error Indication from from: reported to the control plane only if it names exactly one of
 * our active downlink tunnels and comes from that tunnel's gNB address (anyone on N3 can send
 * one; the tunnel's gNB is the only one that may say it lost it). The data path is left as it
 * is: the control plane decides (TS 29.244 5.10, TS 23.527 5.3). */
static void err_ind_rx(struct upf *u, const uint8_t *m, size_t len, const struct gtp_peer *from)
{
	struct upf_err_ind ei = { 0 };
	int id;

	if (err_ind_parse(m, len, &ei) < 0) {
		UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
		return;
	}
	/* the sender must be the address the IE names (the tunnel's gNB): checked before the lookup */
	if (ei.addr ? from->v4 != ei.addr : (from->v4 || memcmp(from->v6, ei.addr6, 16) != 0)) {
		UPF_USTAT(u, UPF_STAT_ERR_IND_IGNORED)++;
		log_rl(LOGL_INFO, MOD, NULL, "Error Indication for teid=0x%x ignored: not from the tunnel's peer", ei.teid);
		return;
	}
	if (!bucket_take(&u->ei_rx_tokens, &u->ei_rx_last_ns, u->p.err_ind_per_s)) {
		UPF_USTAT(u, UPF_STAT_ERR_IND_RX_LIMITED)++;
		return;
	}
	id = upf_tidx_find(u, ei.addr, ei.addr6, ei.teid);   /* the index (upf_tidx.c) */
	if (id < 0) {
		UPF_USTAT(u, UPF_STAT_ERR_IND_IGNORED)++;
		log_rl(LOGL_INFO, MOD, NULL, "Error Indication for teid=0x%x ignored: no active downlink tunnel of ours", ei.teid);
		return;
	}
	ei.session_id = (uint32_t)id;
	UPF_USTAT(u, UPF_STAT_ERR_IND_REPORTED)++;
	log_rl(LOGL_WARN, MOD, NULL, "Error Indication: session %u's downlink tunnel teid=0x%x unknown at the gNB", ei.session_id, ei.teid);
	if (u->p.on_err_ind)
		u->p.on_err_ind(u->p.cb_arg, &ei);
}

/* One GTP-U socket (IPv4 or IPv6), up to a batch of datagrams. */
static int sock_rx(struct upf *u, int fd)
{
	uint8_t buf[2048];
	int n = 0;

	for (; fd >= 0 && n < 64; n++) {
		struct sockaddr_storage ss;
		socklen_t fl = sizeof(ss);
		ssize_t len = recvfrom(fd, buf, sizeof(buf), MSG_DONTWAIT, (struct sockaddr *)&ss, &fl);
		struct gtp_peer from = { 0 };

		if (len < 0)
			break;
		if (ss.ss_family == AF_INET6) {
			const struct sockaddr_in6 *a = (const void *)&ss;

			memcpy(from.v6, &a->sin6_addr, 16);
			from.port = ntohs(a->sin6_port);
		} else {
			const struct sockaddr_in *a = (const void *)&ss;

			from.v4 = a->sin_addr.s_addr;
			from.port = ntohs(a->sin_port);
		}
		/* TS 29.281 5.1: version 1, PT 1, and a length that fits. */
		if (len < 8 || (buf[0] & 0xf0) != 0x30 || (size_t)len < 8u + ((buf[2] << 8) | buf[3])) {
			UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
			continue;
		}
		switch (buf[1]) {
		case UPF_GTP_ECHO_REQ:
			echo_response(u, buf, (size_t)len, &from);
			break;
		case UPF_GTP_GPDU: {
			uint32_t teid = ((uint32_t)buf[4] << 24) | ((uint32_t)buf[5] << 16) |
					((uint32_t)buf[6] << 8) | buf[7];

			if (fwd_sock(u, buf, &from))
				break;
			if (teid && upf_ul_valid(u, teid)) {   /* direct or ul_teids (upf_ulx.c) */
				/* A known TEID reaches the socket only as a
				 * reassembled outer fragment: not forwarded. */
				UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
				break;
			}
			/* A session's cp2up TEID (upf_sdf.c): the CP's packet for the UE */
			if (upf_sdf_cp2up(u, teid, buf, (size_t)len, from.v4))
				break;
			log_rl(LOGL_INFO, MOD, NULL, "G-PDU with unknown teid=0x%x", teid);
			error_indication(u, buf, &from);
			break;
		}
		case UPF_GTP_ERR_IND:
			err_ind_rx(u, buf, (size_t)len, &from);
			break;
		case UPF_GTP_END_MARKER:
			/* TS 29.281 7.3.2: relayed on a forwarding tunnel; on any other it only ends
			 * a path (the program counts and drops those). */
			fwd_sock(u, buf, &from);
			break;
		default:
			break;
		}
	}
	return n;
}

int upf_exc_sock_rx(struct upf *u)
{
	return sock_rx(u, u->sock) + sock_rx(u, u->sock6);
}

int upf_process(struct upf *u)
{
	if (u->remote)
		return 0;   /* the endpoint serves its socket on the loop */
	int a = upf_exc_sock_rx(u);

	if (upf_mono_ns() - u->nh_last_ns >= UPF_NH_REVALIDATE_MS * 1000000ull)
		upf_nexthop_flush(u);
	upf_nat_tick(u);
	int b = upf_exc_drain(u);

	if (b < 0)
		return b;
	return a + b;
}

int upf_fds(const struct upf *u, int fds[UPF_MAX_FDS])
{
	if (u->remote)
		return 0;
	fds[0] = u->sock;
	fds[1] = u->ring_fd;
	if (u->sock6 < 0)
		return 2;
	fds[2] = u->sock6;
	return 3;
}

static void on_fd(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	(void)loop;
	(void)fd;
	(void)events;
	upf_process(arg);
}

/* [n3_addr6]:2152, IPv6 only (the IPv4 socket has the IPv4 side). Its datagrams keep the
 * kernel's automatic flow label (net.ipv6.auto_flowlabels: a hash of the socket's flow, RFC
 * 6437 3), not the per-inner-flow label the XDP downlink sets (upf.bpf.c flow_label): what goes
 * through here (buffered, unsummable, no neighbour yet) is rare, and a router only needs the
 * label to be stable per flow, not equal between the two paths. */
static int sock6_open(struct upf *u)
{
	struct sockaddr_in6 a = { .sin6_family = AF_INET6, .sin6_port = htons(UPF_GTPU_PORT) };
	int one = 1, rc;

	memcpy(&a.sin6_addr, u->p.n3_addr6, 16);
	u->sock6 = socket(AF_INET6, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (u->sock6 < 0)
		return -errno;
	setsockopt(u->sock6, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
	/* The N3 address may be configured after we start (and is tentative during DAD). */
	setsockopt(u->sock6, IPPROTO_IPV6, IPV6_FREEBIND, &one, sizeof(one));
	setsockopt(u->sock6, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(u->sock6, (struct sockaddr *)&a, sizeof(a)) < 0) {
		rc = -errno;
		log_error(MOD, "bind to the IPv6 GTP-U port %d failed: %s", UPF_GTPU_PORT, strerror(-rc));
		return rc;
	}
	return 0;
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
	if (upf_addr6_set(u->p.n3_addr6)) {
		rc = sock6_open(u);
		if (rc)
			return rc;
	}
	/* IPPROTO_RAW implies IP_HDRINCL: the translated packet goes out as it is */
	if (u->p.nat_addr) {
		u->raw = socket(AF_INET, SOCK_RAW | SOCK_NONBLOCK | SOCK_CLOEXEC, IPPROTO_RAW);
		if (u->raw < 0)
			return -errno;
	}
	u->rb = ring_buffer__new(bpf_map__fd(u->skel->maps.exc_ring), on_ring, u, NULL);
	if (!u->rb)
		return -errno ? -errno : -ENOMEM;
	u->ring_fd = ring_buffer__epoll_fd(u->rb);
	if (u->p.loop) {
		rc = ev_fd_add(u->p.loop, u->sock, EV_READ, on_fd, u);
		if (!rc)
			rc = ev_fd_add(u->p.loop, u->ring_fd, EV_READ, on_fd, u);
		if (!rc && u->sock6 >= 0)
			rc = ev_fd_add(u->p.loop, u->sock6, EV_READ, on_fd, u);
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
		if (u->sock6 >= 0)
			ev_fd_del(u->p.loop, u->sock6);
	}
	ring_buffer__free(u->rb);
	u->rb = NULL;
	u->ring_fd = -1;
	if (u->sock >= 0)
		close(u->sock);
	u->sock = -1;
	if (u->sock6 >= 0)
		close(u->sock6);
	u->sock6 = -1;
	if (u->raw >= 0)
		close(u->raw);
	u->raw = -1;
}
