/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim gtpu: uplink G-PDUs paced over the UEs with a session, downlink counted (gtpu.h). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "common/ev.h"
#include "common/log.h"
#include "gtpu.h"
#include "rs_int.h"

#define BATCH 64                   /* packets per sendmmsg() / recvmmsg() */
#define TICK_NS 1000000ull         /* pacing period */
#define RX_BUF 2048
/* TS 29.281 5.1: 8 octets, then (E set) sequence number, N-PDU number, next extension type;
 * TS 38.415 5.5.2.2 in a PDU Session Container (TS 29.281 5.2.2.7): 4 octets. */
#define GTP_HDR 16
#define GTP_FLAGS_E 0x34           /* version 1, PT 1 (GTP), E */
#define GTP_GPDU 255
#define GTP_ERR_IND 26
#define GTP_END_MARKER 254         /* TS 29.281 7.3.2 */
#define GTP_EXT_PDU_SESSION 0x85
#define UDP_SPORT 40000

/* A peer's N3 socket address, of the socket's family */
union rs_sa {
	struct sockaddr sa;
	struct sockaddr_in v4;
	struct sockaddr_in6 v6;
};

struct rs_gtpu {
	struct ransim *rs;
	struct rs_gtpu_cfg cfg;
	int family;                /* of the socket: cfg.gnb_n3's (TS 38.414 5.1) */
	int fd;
	struct ev_timer tick;
	bool stopped;
	uint64_t t_last;           /* last credit update (ns) */
	uint64_t t_first, t_stop;  /* first G-PDU sent, rs_gtpu_stop() (ns; 0: not yet) */
	double credit;             /* packets due and not yet sent */
	uint32_t cursor;           /* next UE index to consider (round robin) */
	uint16_t ip_id;
	struct rs_gtpu_stats st;
	/* uplink batch, built in place */
	uint8_t *tx;               /* BATCH * (GTP_HDR + size) */
	union rs_sa tx_to[BATCH];  /* family and port set once; the address per packet */
	struct iovec tx_iov[BATCH];
	struct mmsghdr tx_msg[BATCH];
	uint32_t tx_ue[BATCH];     /* the UE of each slot (per-gNB counters) */
	/* downlink batch */
	uint8_t *rx;               /* BATCH * RX_BUF */
	struct iovec rx_iov[BATCH];
	struct mmsghdr rx_msg[BATCH];
	union rs_sa rx_from[BATCH];  /* each datagram's sender: where an Error Indication goes */
};

int rs_n3_addr_parse(const char *s, struct rs_n3_addr *out)
{
	memset(out, 0, sizeof(*out));
	if (inet_pton(AF_INET, s, out->a) == 1)
		out->family = AF_INET;
	else if (inet_pton(AF_INET6, s, out->a) == 1)
		out->family = AF_INET6;
	else
		return -EINVAL;
	return 0;
}

const char *rs_n3_addr_str(const struct rs_n3_addr *a, char *buf, size_t cap)
{
	if (!a->family || !inet_ntop(a->family, a->a, buf, (socklen_t)cap))
		snprintf(buf, cap, "-");
	return buf;
}

static size_t n3_len(int family)
{
	return family == AF_INET6 ? 16 : 4;
}

bool rs_n3_addr_eq(const struct rs_n3_addr *a, const struct rs_n3_addr *b)
{
	return a->family == b->family && !memcmp(a->a, b->a, n3_len(a->family));
}

static bool all_zero(const uint8_t *p, size_t n)
{
	while (n--)
		if (*p++)
			return false;
	return true;
}

int rs_n3_family(const struct ransim *rs)
{
	return rs->gnb_n3_addr.family ? rs->gnb_n3_addr.family : AF_INET;
}

void rs_gnb_n3_addr(const struct rs_gnb *g, struct rs_n3_addr *out)
{
	uint32_t a = htonl(g->local_ip);

	if (g->rs->gnb_n3_addr.family) {
		*out = g->rs->gnb_n3_addr;
		return;
	}
	memset(out, 0, sizeof(*out));
	out->family = AF_INET;
	memcpy(out->a, &a, 4);
}

/* TS 38.414 5.1: the gNB has one N3 address, IPv4 (32 bits) or IPv6 (128); it never offers both */
void rs_tla_put(const struct rs_n3_addr *a, struct ngap_gtp_tunnel *t)
{
	size_t n = n3_len(a->family);

	memset(t->addr, 0, sizeof(t->addr));
	memcpy(t->addr, a->a, n);
	t->addr_bits = (uint8_t)(n * 8);
}

/* TS 38.414 5.1 / TS 38.413 9.3.2.4: 32 bits IPv4, 128 bits IPv6, 160 bits IPv4 then IPv6 */
int rs_tla_get(const struct ngap_gtp_tunnel *t, int fam, struct rs_n3_addr *out)
{
	const uint8_t *v4 = NULL, *v6 = NULL, *p;

	memset(out, 0, sizeof(*out));
	switch (t->addr_bits) {
	case 32: v4 = t->addr; break;
	case 128: v6 = t->addr; break;
	case 160: v4 = t->addr; v6 = t->addr + 4; break;
	default: return -EINVAL;
	}
	p = fam == AF_INET6 ? v6 : fam == AF_INET ? v4 : NULL;
	if (!p)
		return -EAFNOSUPPORT;   /* a real gNB of that family could not reach it */
	if (all_zero(p, n3_len(fam)))
		return -EINVAL;
	out->family = fam;
	memcpy(out->a, p, n3_len(fam));
	return 0;
}

/* *s to addr:2152; the family must be the socket's. Its length, or -EAFNOSUPPORT. */
static int sa_set(union rs_sa *s, int family, const struct rs_n3_addr *addr)
{
	if (addr->family != family)
		return -EAFNOSUPPORT;
	if (family == AF_INET6) {
		s->v6.sin6_family = AF_INET6;
		s->v6.sin6_port = htons(RS_GTPU_PORT);
		memcpy(&s->v6.sin6_addr, addr->a, 16);
		return (int)sizeof(s->v6);
	}
	s->v4.sin_family = AF_INET;
	s->v4.sin_port = htons(RS_GTPU_PORT);
	memcpy(&s->v4.sin_addr, addr->a, 4);
	return (int)sizeof(s->v4);
}

static uint16_t ip_csum(const uint8_t *h)
{
	uint32_t s = 0;

	for (int i = 0; i < 20; i += 2)
		s += (uint32_t)h[i] << 8 | h[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* RFC 8200 8.1 / RFC 4443 2.3: the upper-layer checksum over the IPv6 pseudo-header */
static uint16_t csum6(const uint8_t src[16], const uint8_t dst[16], uint8_t nh, const uint8_t *m, size_t len)
{
	uint32_t s = 0;

	for (int i = 0; i < 16; i += 2)
		s += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	s += (uint32_t)(len >> 16) + (uint32_t)(len & 0xffff) + nh;
	for (size_t i = 0; i + 1 < len; i += 2)
		s += (uint32_t)(m[i] << 8 | m[i + 1]);
	if (len & 1)
		s += (uint32_t)m[len - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)~s;
}

/* GTP-U header with the UL PDU Session Container (TS 29.281 5.1, TS 38.415 5.5.2.2) for an
 * inner packet of len octets */
static void gtp_hdr(uint8_t *p, uint32_t teid, uint8_t qfi, size_t len)
{
	memset(p, 0, GTP_HDR);
	p[0] = GTP_FLAGS_E;
	p[1] = GTP_GPDU;
	p[2] = (uint8_t)((len + 8) >> 8);
	p[3] = (uint8_t)(len + 8);
	p[4] = (uint8_t)(teid >> 24);
	p[5] = (uint8_t)(teid >> 16);
	p[6] = (uint8_t)(teid >> 8);
	p[7] = (uint8_t)teid;
	p[11] = GTP_EXT_PDU_SESSION;
	p[12] = 1;
	p[13] = 0x10;
	p[14] = qfi & 0x3f;
}

static void ip6_hdr(uint8_t *ip, const uint8_t src[16], const uint8_t dst[16], uint8_t nh, uint8_t hop, size_t plen)
{
	memset(ip, 0, 8);
	ip[0] = 0x60;
	ip[4] = (uint8_t)(plen >> 8);
	ip[5] = (uint8_t)plen;
	ip[6] = nh;
	ip[7] = hop;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
}

/* RFC 4861 4.1, 6.3.7: a Router Solicitation from the UE's link-local address fe80::IID
 * (TS 23.501 5.8.2.2.2: the IID of its PDU address) to all-routers, without a source
 * link-layer address option (a GTP tunnel has no link layer). */
static void send_rs(struct rs_gtpu *g, struct rs_ue *ue)
{
	static const uint8_t all_routers[16] = { 0xff, 0x02, [15] = 0x02 };
	uint8_t pkt[GTP_HDR + 48], src[16] = { 0xfe, 0x80 }, *ip = pkt + GTP_HDR, *icmp = ip + 40;
	uint16_t c;

	memcpy(src + 8, ue->iid6, 8);
	gtp_hdr(pkt, ue->n3_ul_teid, ue->qfi, 48);
	ip6_hdr(ip, src, all_routers, 58, 255, 8);
	memset(icmp, 0, 8);
	icmp[0] = 133;
	c = csum6(src, all_routers, 58, icmp, 8);
	icmp[2] = (uint8_t)(c >> 8);
	icmp[3] = (uint8_t)c;
	ue->rs_sent = true;
	ue->rs_count++;
	ue->rs_ns = ev_now_ns(g->rs->loop);
	if (rs_gtpu_send(g->rs, &ue->n3_upf_addr, pkt, sizeof(pkt)) == 0)
		g->st.rs_sent++;
}

/* RFC 4861 4.2, 4.6.2, 6.3.4: a Router Advertisement for ue (from a link-local router address,
 * hop limit 255, valid checksum) with a Prefix Information option of a /64 with A set: the
 * UE's address is that prefix and its IID. 0, or -EINVAL (counted ra_bad). */
static int take_ra(struct rs_gtpu *g, struct rs_ue *ue, const uint8_t *ip, size_t len)
{
	size_t plen = (size_t)ip[4] << 8 | ip[5], o;
	const uint8_t *icmp = ip + 40;

	if (len < 40 + 16 || plen + 40 > len || plen < 16 || ip[7] != 255 || ip[8] != 0xfe || (ip[9] & 0xc0) != 0x80 ||
	    csum6(ip + 8, ip + 24, 58, icmp, plen) != 0 || icmp[1] != 0)
		goto bad;
	for (o = 16; o + 2 <= plen; o += (size_t)icmp[o + 1] * 8) {
		const uint8_t *opt = icmp + o;

		if (!opt[1] || o + (size_t)opt[1] * 8 > plen)
			goto bad;
		if (opt[0] == 3 && opt[1] == 4 && opt[2] == 64 && (opt[3] & 0x40)) {   /* PIO, /64, A */
			memcpy(ue->addr6, opt + 16, 8);
			memcpy(ue->addr6 + 8, ue->iid6, 8);
			ue->has_addr6 = true;
			g->st.ra_received++;
			return 0;
		}
	}
bad:
	g->st.ra_bad++;
	return -EINVAL;
}

/* The fixed parts of every slot: GTP-U header with the container, inner IPv4/UDP. */
static void slot_template(struct rs_gtpu *g, uint8_t *p)
{
	uint16_t size = g->cfg.size;
	uint8_t *ip = p + GTP_HDR, *udp = ip + 20;

	memset(p, 0, GTP_HDR + size);
	p[0] = GTP_FLAGS_E;
	p[1] = GTP_GPDU;
	/* length: everything after the first 8 octets (TS 29.281 5.1) */
	p[2] = (uint8_t)((size + 8) >> 8);
	p[3] = (uint8_t)(size + 8);
	p[11] = GTP_EXT_PDU_SESSION;
	p[12] = 1;                 /* container length, 4-octet units */
	p[13] = 0x10;              /* PDU type 1: UL PDU SESSION INFORMATION */
	p[15] = 0;                 /* no further extension header */
	ip[0] = 0x45;
	ip[2] = (uint8_t)(size >> 8);
	ip[3] = (uint8_t)size;
	ip[6] = 0x40;              /* DF */
	ip[8] = 64;
	ip[9] = IPPROTO_UDP;
	udp[0] = UDP_SPORT >> 8;
	udp[1] = UDP_SPORT & 0xff;
	udp[2] = (uint8_t)(g->cfg.dst_port >> 8);
	udp[3] = (uint8_t)g->cfg.dst_port;
	udp[4] = (uint8_t)((size - 20) >> 8);
	udp[5] = (uint8_t)(size - 20);
	/* UDP checksum 0: none (RFC 768, IPv4) */
}

/* An IPv6/UDP G-PDU in slot i for ue, from its address to dst6; the UDP checksum is
 * mandatory over IPv6 (RFC 8200 8.1). The slot is an IPv4 one again next time. */
static void slot_fill6(struct rs_gtpu *g, unsigned i, const struct rs_ue *ue)
{
	uint16_t size = g->cfg.size, c;
	uint8_t *p = g->tx + (size_t)i * (GTP_HDR + size), *ip = p + GTP_HDR, *udp = ip + 40;

	gtp_hdr(p, ue->n3_ul_teid, ue->qfi, size);
	ip6_hdr(ip, ue->addr6, g->cfg.dst6, IPPROTO_UDP, 64, (size_t)size - 40);
	memset(udp, 0, (size_t)size - 40);
	udp[0] = UDP_SPORT >> 8;
	udp[1] = UDP_SPORT & 0xff;
	udp[2] = (uint8_t)(g->cfg.dst_port >> 8);
	udp[3] = (uint8_t)g->cfg.dst_port;
	udp[4] = (uint8_t)((size - 40) >> 8);
	udp[5] = (uint8_t)(size - 40);
	c = csum6(ue->addr6, g->cfg.dst6, IPPROTO_UDP, udp, (size_t)size - 40);
	if (!c)
		c = 0xffff;
	udp[6] = (uint8_t)(c >> 8);
	udp[7] = (uint8_t)c;
	sa_set(&g->tx_to[i], g->family, &ue->n3_upf_addr);   /* ue_ready(): of the family */
}

/* The inner IPv4 destination for ue: --traffic-dst, else the UPF's N3 address when that is
 * IPv4 (0: none, over IPv6 N3 without --traffic-dst). */
static uint32_t inner_dst4(const struct rs_gtpu *g, const struct rs_ue *ue)
{
	uint32_t a = 0;

	if (g->cfg.dst)
		return g->cfg.dst;
	if (ue->n3_upf_addr.family == AF_INET)
		memcpy(&a, ue->n3_upf_addr.a, 4);
	return a;
}

/* Fill slot i for ue; the variable fields only. */
static void slot_fill(struct rs_gtpu *g, unsigned i, const struct rs_ue *ue)
{
	uint8_t *p = g->tx + (size_t)i * (GTP_HDR + g->cfg.size), *ip = p + GTP_HDR;
	uint32_t teid = ue->n3_ul_teid, dst = inner_dst4(g, ue);

	if ((ip[0] >> 4) != 4)
		slot_template(g, p);   /* it carried IPv6 last time */

	p[4] = (uint8_t)(teid >> 24);
	p[5] = (uint8_t)(teid >> 16);
	p[6] = (uint8_t)(teid >> 8);
	p[7] = (uint8_t)teid;
	p[14] = ue->qfi & 0x3f;
	g->ip_id++;
	ip[4] = (uint8_t)(g->ip_id >> 8);
	ip[5] = (uint8_t)g->ip_id;
	memcpy(ip + 12, &ue->ue_addr, 4);
	memcpy(ip + 16, &dst, 4);
	ip[10] = ip[11] = 0;
	{
		uint16_t c = ip_csum(ip);

		ip[10] = (uint8_t)(c >> 8);
		ip[11] = (uint8_t)c;
	}
	sa_set(&g->tx_to[i], g->family, &ue->n3_upf_addr);
}

static bool ue_v6(const struct rs_gtpu *g, const struct rs_ue *ue)
{
	return g->cfg.has_dst6 && (ue->sess_type == 2 || ue->sess_type == 3);   /* IPv6, IPv4v6 */
}

/* A tunnel this socket can send on: the UPF's address of the gNB's N3 family (rs_tla_get) */
static bool ue_tunnel(const struct rs_gtpu *g, const struct rs_ue *ue)
{
	return ue->sess_up && ue->n3_ul_teid && ue->n3_upf_addr.family == g->family;
}

static bool ue_ready(const struct rs_gtpu *g, const struct rs_ue *ue)
{
	return ue_tunnel(g, ue) && (ue_v6(g, ue) ? ue->has_addr6 : ue->ue_addr != 0 && inner_dst4(g, ue) != 0);
}

/* Up to n packets, round robin over the UEs with a session. Returns the number sent or
 * dropped by a send error, 0 when the socket buffer is full, -ENOENT without a UE to send for. */
static int send_batch(struct rs_gtpu *g, unsigned n)
{
	struct ransim *rs = g->rs;
	unsigned i = 0, seen = 0, n_ues = rs->cfg.n_ues;
	int rc;

	while (i < n && seen < n_ues) {
		struct rs_ue *ue = &rs->ues[g->cursor];

		g->cursor = (g->cursor + 1) % n_ues;
		/* its address comes with the answer; no answer: again after RTR_SOLICITATION_INTERVAL
		 * (4 s), at most MAX_RTR_SOLICITATIONS (3) in all (RFC 4861 6.3.7, 10) */
		if (ue_v6(g, ue) && ue_tunnel(g, ue) && !ue->has_addr6 &&
		    (!ue->rs_sent || (ue->rs_count < 3 && ev_now_ns(rs->loop) - ue->rs_ns >= 4000000000ull)))
			send_rs(g, ue);
		if (!ue_ready(g, ue)) {
			seen++;
			continue;
		}
		seen = 0;
		g->tx_ue[i] = ue->idx;
		if (ue_v6(g, ue)) {
			slot_fill6(g, i++, ue);
			g->st.ul6_packets++;
		} else {
			slot_fill(g, i++, ue);
		}
	}
	if (!i)
		return -ENOENT;
	rc = sendmmsg(g->fd, g->tx_msg, i, MSG_DONTWAIT);
	if (rc < 0) {
		if (errno == EAGAIN || errno == EWOULDBLOCK || errno == ENOBUFS) {
			g->st.ul_no_buffer += i;
			return 0;
		}
		g->st.ul_send_errors += i;   /* dropped, not retried */
		return (int)i;
	}
	if (!g->t_first && rc > 0)
		g->t_first = ev_now_ns(rs->loop);
	g->st.ul_packets += (unsigned)rc;
	for (int j = 0; j < rc; j++) {
		const struct rs_ue *ue = &rs->ues[g->tx_ue[j]];

		/* the uplink leaves through the UE's serving gNB (the target once it asked) */
		rs->n3[ue->gnb->idx].ul_packets++;
		if (ue->handovers)
			rs->st.ul_after_ho++;
		RS_HO_NOTE(rs, ue, RS_HO_EV_UL, ue->gnb->idx);
	}
	g->st.ul_bytes += (uint64_t)rc * g->cfg.size;
	if ((unsigned)rc < i)
		g->st.ul_no_buffer += i - (unsigned)rc;
	return rc;
}

static void on_tick(struct ev_loop *loop, struct ev_timer *t)
{
	struct rs_gtpu *g = t->arg;
	uint64_t now = ev_now_ns(loop);
	double cap = g->cfg.pps / 10.0 + BATCH;
	unsigned want;
	int sent;

	if (g->stopped)
		return;
	if (g->cfg.secs && g->t_first && now - g->t_first >= (uint64_t)g->cfg.secs * 1000000000ull) {
		g->stopped = true;   /* --traffic-secs: done; downlink still counted */
		g->t_stop = now;
		return;
	}
	g->credit += (double)(now - g->t_last) * g->cfg.pps / 1e9;
	g->t_last = now;
	/* a stall (a busy loop, a full buffer) does not turn into a burst above 100 ms of traffic */
	if (g->credit > cap)
		g->credit = cap;
	while (g->credit >= 1.0) {
		want = g->credit >= BATCH ? BATCH : (unsigned)g->credit;
		sent = send_batch(g, want);
		if (sent < 0) {
			g->credit = 0;   /* no UE with a session: nothing owed */
			break;
		}
		g->credit -= sent;
		if ((unsigned)sent < want)
			break;
	}
	ev_timer_start_ns(loop, &g->tick, TICK_NS);
}

/* A DL TEID of ours: the gNB and UE it was given for (RS_GNB_DL_TEID_AT), else -1. */
static int teid_ue(const struct ransim *rs, uint32_t teid, unsigned *gnb)
{
	uint32_t idx = teid - RS_GNB_DL_TEID(0);

	if ((teid & 0xf0000000u) != RS_GNB_DL_TEID(0))
		return -1;
	*gnb = 0;
	if (rs->cfg.n_gnbs > 1) {
		*gnb = idx >> RS_TEID_UE_BITS;
		idx &= (1u << RS_TEID_UE_BITS) - 1;
	}
	return idx < rs->cfg.n_ues && *gnb < rs->cfg.n_gnbs ? (int)idx : -1;
}

/* End Marker on gNB gi's TEID of ue (TS 29.281 7.3.2): the old path of a path switch ends. */
static void end_marker(struct ransim *rs, struct rs_ue *ue, unsigned gi)
{
	rs->n3[gi].end_markers++;
	if (ue->dl_old_gnb == (int)gi && ue->gnb->idx != gi) {
		ue->dl_old_gnb = -1;   /* nothing more to forward: the source is done */
		rs->st.end_markers++;
	} else {
		rs->st.end_markers_other++;
	}
}

/* A G-PDU or End Marker on target gNB gi's DL forwarding TEID of a UE (TS 23.501 5.8.2.9):
 * counted for the handover; a G-PDU for the UE is downlink it gets once it arrived. */
static void err_ind_send(struct rs_gtpu *g, uint32_t teid, const union rs_sa *from);

static void fwd_rx(struct rs_gtpu *g, const uint8_t *p, size_t off, size_t len, uint32_t teid,
		   const union rs_sa *from)
{
	struct ransim *rs = g->rs;
	uint32_t idx = teid & ((1u << RS_TEID_UE_BITS) - 1);
	unsigned gi = (teid >> RS_TEID_UE_BITS) & 0x3f;
	const struct rs_ue *ue;

	if (!rs_n2ho_fwd_arrived(rs, idx, gi, p[1] == GTP_END_MARKER)) {
		g->st.dl_unknown_teid++;
		if (p[1] == GTP_GPDU)
			err_ind_send(g, teid, from);
		return;
	}
	if (p[1] != GTP_GPDU)
		return;
	ue = &rs->ues[idx];
	if (len - off < 20 || (p[off] >> 4) != 4 || memcmp(p + off + 16, &ue->ue_addr, 4)) {
		g->st.dl_bad_inner++;
		return;
	}
	g->st.dl_packets++;
	g->st.dl_bytes += len - off;
	rs->n3[gi].dl_packets++;
	RS_HO_NOTE(rs, ue, RS_HO_EV_DL, gi);   /* downlink through the target, forwarded */
}

int rs_gtpu_send(struct ransim *rs, const struct rs_n3_addr *addr, const uint8_t *p, size_t len)
{
	union rs_sa to;
	int n;

	if (!rs->gtpu)
		return -ENOTCONN;
	memset(&to, 0, sizeof(to));
	n = sa_set(&to, rs->gtpu->family, addr);
	if (n < 0)
		return n;
	return sendto(rs->gtpu->fd, p, len, MSG_DONTWAIT, &to.sa, (socklen_t)n) < 0 ? -errno : 0;
}

/* TS 29.281 7.3.1: a G-PDU on a TEID we hold no context for is answered with an Error
 * Indication to its sender's port 2152 (4.4.2): TEID 0, S set (sequence 0), TEID Data I (8.3) =
 * the G-PDU's TEID, GTP-U Peer Address (8.4) = the address it was sent to, our N3 address. As a
 * compliant gNB does (rs_gtpu_cfg.no_err_ind turns it off). Not rate limited: ransim sends one
 * for each such G-PDU, counted (err_ind_sent). */
static void err_ind_send(struct rs_gtpu *g, uint32_t teid, const union rs_sa *from)
{
	const struct rs_n3_addr *me = &g->cfg.gnb_n3;
	size_t alen = me->family == AF_INET6 ? 16 : 4, len = 12 + 5 + 3 + alen;
	uint8_t m[12 + 5 + 3 + 16] = { 0x32, GTP_ERR_IND, 0, (uint8_t)(len - 8), 0, 0, 0, 0, 0, 0, 0, 0,
				       16, (uint8_t)(teid >> 24), (uint8_t)(teid >> 16), (uint8_t)(teid >> 8),
				       (uint8_t)teid, 133, 0, (uint8_t)alen };
	union rs_sa to = *from;
	socklen_t tl = from->sa.sa_family == AF_INET6 ? sizeof(to.v6) : sizeof(to.v4);

	if (g->cfg.no_err_ind || (from->sa.sa_family != AF_INET && from->sa.sa_family != AF_INET6))
		return;
	memcpy(m + 20, me->a, alen);
	if (from->sa.sa_family == AF_INET6)
		to.v6.sin6_port = htons(RS_GTPU_PORT);
	else
		to.v4.sin_port = htons(RS_GTPU_PORT);
	if (sendto(g->fd, m, len, MSG_DONTWAIT, &to.sa, tl) == (ssize_t)len)
		g->st.err_ind_sent++;
}

/* One downlink datagram (TS 29.281 5.1, 5.2) from from. */
static void rx_one(struct rs_gtpu *g, uint8_t *p, size_t len, const union rs_sa *from)
{
	struct ransim *rs = g->rs;
	size_t off = 8, inner;
	uint32_t teid;
	unsigned gi;
	struct rs_ue *ue;
	uint8_t next;
	int idx;

	if (len < 8 || (p[0] & 0xf0) != 0x30 || (size_t)(p[2] << 8 | p[3]) != len - 8) {
		g->st.dl_other++;
		return;
	}
	if (p[1] == GTP_ERR_IND) {
		g->st.dl_err_ind++;
		return;
	}
	if (p[1] != GTP_GPDU && p[1] != GTP_END_MARKER) {
		g->st.dl_other++;
		return;
	}
	if (p[0] & 0x07) {
		if (len < 12) {
			g->st.dl_other++;
			return;
		}
		next = (p[0] & 0x04) ? p[11] : 0;
		off = 12;
		while (next) {
			size_t elen = (size_t)(off < len ? p[off] : 0) * 4;

			if (!elen || off + elen > len) {
				g->st.dl_other++;
				return;
			}
			next = p[off + elen - 1];
			off += elen;
		}
	}
	inner = len - off;
	teid = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];
	if ((teid & 0xf0000000u) == RS_GNB_FWD_TEID_BASE) {
		fwd_rx(g, p, off, len, teid, from);   /* a target's DL forwarding TEID (N2 handover) */
		return;
	}
	idx = teid_ue(rs, teid, &gi);
	ue = idx >= 0 ? &rs->ues[idx] : NULL;
	/* N2 handover: the source sends it on to the forwarding tunnel (gnb_n2ho.c) */
	if (ue && rs_n2ho_src_forward(rs, ue, gi, p, len, p[1] == GTP_END_MARKER))
		return;
	if (ue && p[1] == GTP_END_MARKER) {
		end_marker(rs, ue, gi);
		return;
	}
	/* on the serving gNB's TEID, or the source's until its End Marker (forwarded over Xn) */
	if (!ue || !ue->sess_up || (ue->gnb->idx != gi && ue->dl_old_gnb != (int)gi) || p[1] != GTP_GPDU) {
		g->st.dl_unknown_teid++;
		if (p[1] == GTP_GPDU)
			err_ind_send(g, teid, from);
		return;
	}
	if (inner >= 40 && (p[off] >> 4) == 6) {
		const uint8_t *ip = p + off;

		/* ICMPv6 Router Advertisement (RFC 4861 4.2) to the UE's link-local or all-nodes */
		if (ip[6] == 58 && inner >= 41 && ip[40] == 134) {
			take_ra(g, ue, ip, inner);
			return;
		}
		if (!ue->has_addr6 || memcmp(ip + 24, ue->addr6, 16)) {
			g->st.dl_bad_inner++;
			return;
		}
		g->st.dl6_packets++;
	} else if (inner < 20 || (p[off] >> 4) != 4 || memcmp(p + off + 16, &ue->ue_addr, 4)) {
		g->st.dl_bad_inner++;
		return;
	}
	g->st.dl_packets++;
	g->st.dl_bytes += inner;
	rs->n3[gi].dl_packets++;
	if (ue->handovers && ue->gnb->idx == gi)
		rs->st.dl_after_ho++;
	RS_HO_NOTE(rs, ue, RS_HO_EV_DL, gi);
}

static void on_rx(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct rs_gtpu *g = arg;
	int n, i;

	(void)loop;
	(void)events;
	for (;;) {
		for (i = 0; i < BATCH; i++) {
			g->rx_msg[i].msg_len = 0;
			g->rx_msg[i].msg_hdr.msg_namelen = sizeof(g->rx_from[i]);
		}
		n = recvmmsg(fd, g->rx_msg, BATCH, MSG_DONTWAIT, NULL);
		if (n <= 0)
			return;
		for (i = 0; i < n; i++)
			rx_one(g, g->rx + (size_t)i * RX_BUF, g->rx_msg[i].msg_len, &g->rx_from[i]);
		if (n < BATCH)
			return;
	}
}

/* The N3 socket on gnb_n3:2152: AF_INET, or AF_INET6 taking IPv6 only (an IPv4 peer of a
 * dual-stack socket would be a v4-mapped address no TransportLayerAddress names). The UDP
 * checksum over IPv6 is mandatory (RFC 8200 8.1): the kernel computes it. fd or -errno. */
static int n3_socket(const struct rs_n3_addr *a)
{
	union rs_sa sa;
	int fd, one = 1, buf = 4 << 20, n, rc;

	memset(&sa, 0, sizeof(sa));
	n = sa_set(&sa, a->family, a);
	fd = socket(a->family, SOCK_DGRAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	if (a->family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one)) < 0)
		goto fail;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buf, sizeof(buf));
	setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buf, sizeof(buf));
	if (bind(fd, &sa.sa, (socklen_t)n) < 0)
		goto fail;
	return fd;
fail:
	rc = -errno;
	close(fd);
	return rc;
}

struct rs_gtpu *rs_gtpu_new(struct ransim *rs, const struct rs_gtpu_cfg *cfg, int *err)
{
	const struct rs_n3_addr *a = &cfg->gnb_n3;
	struct rs_gtpu *g;
	unsigned i;
	int n;

	*err = -EINVAL;
	if (cfg->size < RS_GTPU_MIN_SIZE || cfg->size > RS_GTPU_MAX_SIZE ||
	    (a->family != AF_INET && a->family != AF_INET6) || all_zero(a->a, n3_len(a->family)) ||
	    (cfg->has_dst6 && cfg->size < 48))   /* IPv6 + UDP headers */
		return NULL;
	*err = -ENOMEM;
	g = calloc(1, sizeof(*g));
	if (!g)
		return NULL;
	g->rs = rs;
	g->cfg = *cfg;
	g->family = a->family;
	g->fd = -1;
	g->tx = malloc((size_t)BATCH * (GTP_HDR + cfg->size));
	g->rx = malloc((size_t)BATCH * RX_BUF);
	if (!g->tx || !g->rx)
		goto fail;
	for (i = 0; i < BATCH; i++) {
		uint8_t *p = g->tx + (size_t)i * (GTP_HDR + cfg->size);

		slot_template(g, p);
		n = sa_set(&g->tx_to[i], g->family, a);   /* the address is the UE's, per packet */
		g->tx_iov[i] = (struct iovec){ p, (size_t)GTP_HDR + cfg->size };
		g->tx_msg[i].msg_hdr = (struct msghdr){ .msg_name = &g->tx_to[i], .msg_namelen = (socklen_t)n,
							.msg_iov = &g->tx_iov[i], .msg_iovlen = 1 };
		g->rx_iov[i] = (struct iovec){ g->rx + (size_t)i * RX_BUF, RX_BUF };
		g->rx_msg[i].msg_hdr = (struct msghdr){ .msg_name = &g->rx_from[i], .msg_iov = &g->rx_iov[i],
							.msg_iovlen = 1 };
	}
	g->fd = n3_socket(a);
	if (g->fd < 0) {
		*err = g->fd;
		goto fail;
	}
	*err = ev_fd_add(rs->loop, g->fd, EV_READ, on_rx, g);
	if (*err < 0)
		goto fail;
	ev_timer_init(&g->tick, on_tick, g);
	g->t_last = ev_update_now(rs->loop);
	if (cfg->pps) {
		*err = ev_timer_start_ns(rs->loop, &g->tick, TICK_NS);
		if (*err < 0) {
			ev_fd_del(rs->loop, g->fd);
			goto fail;
		}
	}
	rs->gnb_n3_addr = *a;
	rs->gtpu = g;
	*err = 0;
	return g;
fail:
	if (g->fd >= 0)
		close(g->fd);
	free(g->tx);
	free(g->rx);
	free(g);
	return NULL;
}

void rs_gtpu_stop(struct rs_gtpu *g)
{
	if (!g || g->stopped)
		return;
	g->stopped = true;
	g->t_stop = ev_update_now(g->rs->loop);
	ev_timer_stop(g->rs->loop, &g->tick);
}

void rs_gtpu_drain(struct rs_gtpu *g, uint32_t quiet_ms, uint32_t max_ms)
{
	struct ev_loop *loop;
	uint64_t now, end, quiet_until, seen;

	if (!g)
		return;
	rs_gtpu_stop(g);
	loop = g->rs->loop;
	now = ev_update_now(loop);
	end = now + (uint64_t)max_ms * 1000000ull;
	quiet_until = now + (uint64_t)quiet_ms * 1000000ull;
	seen = g->st.dl_packets + g->st.dl_unknown_teid + g->st.dl_bad_inner + g->st.dl_other + g->st.dl_err_ind;
	/* Every uplink answered (the DN echoes): nothing is in flight any more. */
	while (now < end && now < quiet_until && g->st.dl_packets < g->st.ul_packets) {
		uint64_t n;

		ev_run_once(loop, 10);
		now = ev_update_now(loop);
		n = g->st.dl_packets + g->st.dl_unknown_teid + g->st.dl_bad_inner + g->st.dl_other + g->st.dl_err_ind;
		if (n != seen) {
			seen = n;
			quiet_until = now + (uint64_t)quiet_ms * 1000000ull;
		}
	}
}

void rs_gtpu_get_stats(const struct rs_gtpu *g, struct rs_gtpu_stats *out)
{
	uint64_t end = g->t_stop ? g->t_stop : ev_now_ns(g->rs->loop);

	*out = g->st;
	out->ul_seconds = g->t_first && end > g->t_first ? (double)(end - g->t_first) / 1e9 : 0;
}

void rs_gtpu_free(struct rs_gtpu *g)
{
	if (!g)
		return;
	rs_gtpu_stop(g);
	ev_fd_del(g->rs->loop, g->fd);
	close(g->fd);
	if (g->rs->gtpu == g)
		g->rs->gtpu = NULL;
	free(g->tx);
	free(g->rx);
	free(g);
}
