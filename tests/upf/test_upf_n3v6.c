/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Outer IPv6 on N3 (issue 19 item 2; TS 29.281 4.4.2, TS 38.414 5.1: GTP-U over UDP over IPv4
 * or IPv6): the XDP program on crafted frames through BPF_PROG_TEST_RUN, and the IPv6 GTP-U
 * socket over loopback. A private network namespace (tn_fib_setup) plus IPv6 on n3:
 *   n3 2001:db8:3::1/64 (upf_params.n3_addr6)  gNB 2001:db8:3::2 = 02:00:00:00:03:02
 *   lo 2001:db8:7::2 (a gNB the exception path reaches: the test's IPv6 GTP-U socket)
 *   n6 198.51.100.1, 2001:db8:6::1 (as test_upf_xdp.c), pool 172.16.0.0/16, pool6 2001:db8:100::/48.
 * The outer UDP checksum, mandatory over IPv6 (RFC 8200 8.1), is what the program derives from
 * the inner headers (upf.bpf.c inner_sum): every frame it builds is checked here against a full
 * sum over the datagram, and again by tshark with checksum validation at the end (argv: tshark,
 * output directory; without them that check is skipped and says so). Needs root; 77 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <linux/bpf.h>

#include "upf/upf.h"
#include "testlib.h"
#include "pkt.h"
#include "netns.h"

static const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
static const uint8_t GNB_MAC[6] = { 2, 0, 0, 0, 3, 2 };
static const uint8_t N6_MAC[6] = { 2, 0, 0, 0, 6, 1 };
static const uint8_t DN_MAC[6] = { 2, 0, 0, 0, 6, 2 };
#define N3_ADDR "192.0.2.1"
#define N3_ADDR6 "2001:db8:3::1"
#define GNB6 "2001:db8:3::2"
#define GNB6_LOCAL "2001:db8:7::2"
#define POOL6 "2001:db8:100::"

static int n3_ifindex, n6_ifindex;
static const char *tshark_path;
static char pcap_path[512];
static struct pcapw *W;
static int pcap_frames, pcap_v6_dl;

struct fx {
	struct upf *u;
	int sock6;           /* test gNB on [GNB6_LOCAL]:2152 */
	int sock4;           /* test gNB on 127.0.0.2:2152 */
};

struct run {
	uint32_t action;
	uint8_t out[2048];
	uint32_t out_len;
};

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void in6(const char *s, uint8_t out[16])
{
	assert_int_equal(pkt_in6(s, out), 0);
}

static struct fx *fx_open(int with_n3v6)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .ue_pool6_plen = 48, .max_sessions = 64, .err_ind_per_s = 100,
	};
	struct sockaddr_in6 a6 = { .sin6_family = AF_INET6, .sin6_port = htons(2152) };
	struct sockaddr_in a4 = { .sin_family = AF_INET, .sin_port = htons(2152), .sin_addr.s_addr = ip("127.0.0.2") };
	int one = 1;

	assert_non_null(f);
	in6(POOL6, p.ue_pool6);
	if (with_n3v6)
		in6(N3_ADDR6, p.n3_addr6);
	assert_int_equal(upf_open(&p, &f->u), 0);
	in6(GNB6_LOCAL, a6.sin6_addr.s6_addr);
	f->sock6 = socket(AF_INET6, SOCK_DGRAM, 0);
	f->sock4 = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(f->sock6 >= 0 && f->sock4 >= 0);
	setsockopt(f->sock6, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	setsockopt(f->sock4, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	assert_int_equal(bind(f->sock6, (struct sockaddr *)&a6, sizeof(a6)), 0);
	assert_int_equal(bind(f->sock4, (struct sockaddr *)&a4, sizeof(a4)), 0);
	return f;
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	if (f) {
		upf_close(f->u);
		close(f->sock6);
		close(f->sock4);
		free(f);
	}
	*state = NULL;
	return 0;
}

static void xdp_run(struct fx *f, int ifindex, const uint8_t *frame, size_t len, struct run *r)
{
	int v;

	r->out_len = sizeof(r->out);
	v = tn_xdp_run(upf_prog_fd(f->u), ifindex, frame, len, r->out, &r->out_len);
	assert_true(v >= 0);
	r->action = (uint32_t)v;
}

static uint64_t cnt(struct fx *f, unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(f->u, c, UPF_STAT__MAX), 0);
	return c[idx];
}

static void pcap_eth(const uint8_t *frame, size_t len)
{
	if (!W)
		return;
	assert_int_equal(pcapw_upper(W, "eth_withoutfcs", frame, len), 0);
	pcap_frames++;
}

/* A session: UE 172.16.0.<n> and /64 2001:db8:100:<n>::, TEID n, gNB at gnb6 (or gnb4). */
static struct upf_session_rule rule(unsigned n, const char *gnb6, uint32_t gnb4, uint32_t gnb_teid)
{
	struct upf_session_rule r = { .ul_teid = n, .gnb_addr = gnb4, .gnb_teid = gnb_teid, .qfi = 9,
				      .dl_state = UPF_DL_ACTIVE };
	char a[64];

	snprintf(a, sizeof(a), "172.16.0.%u", n);
	r.ue_addr = ip(a);
	snprintf(a, sizeof(a), "2001:db8:100:%x::", n);
	{
		uint8_t p[16];

		in6(a, p);
		memcpy(r.ue_prefix6, p, 8);
	}
	if (gnb6)
		in6(gnb6, r.gnb_addr6);
	return r;
}

/* Eth / IPv6 gNB -> us / UDP 2152 / the GTP-U message, with its UDP checksum. */
static size_t ul_frame6(uint8_t *b, const char *src, const char *dst, const uint8_t *gtp, size_t gl)
{
	uint8_t s6[16], d6[16];

	in6(src, s6);
	in6(dst, d6);
	return pkt_gtpu6_frame(b, N3_MAC, GNB_MAC, s6, d6, gtp, gl);
}

/* The downlink the program built toward an IPv6 gNB: Ethernet to its neighbour, IPv6 from our N3
 * address, UDP 2152 with a checksum a full sum confirms, GTP-U G-PDU with the DL PDU Session
 * Container (TS 38.415 5.5.2.1, QFI 9), the inner packet unchanged. */
static void check_dl6(const struct run *r, const uint8_t *inner, size_t ilen, uint32_t gnb_teid)
{
	const uint8_t *o = r->out + PKT_ETH, *u = o + PKT_IP6, *g = u + PKT_UDP;
	uint8_t s6[16], d6[16];

	in6(N3_ADDR6, s6);
	in6(GNB6, d6);
	assert_int_equal(r->action, XDP_REDIRECT);
	assert_int_equal(r->out_len, PKT_ETH + PKT_IP6 + PKT_UDP + 16 + ilen);
	assert_memory_equal(r->out, GNB_MAC, 6);
	assert_memory_equal(r->out + 6, N3_MAC, 6);
	assert_int_equal(r->out[12] << 8 | r->out[13], 0x86dd);
	assert_int_equal(o[0], 0x60);
	assert_int_equal(o[1] & 0xf0, 0);                           /* traffic class 0 */
	assert_true((o[1] & 0x0f) | o[2] | o[3]);                   /* RFC 6437 3: a hashed flow's label */
	assert_int_equal(o[4] << 8 | o[5], PKT_UDP + 16 + ilen);
	assert_int_equal(o[6], 17);
	assert_int_equal(o[7], 64);
	assert_memory_equal(o + 8, s6, 16);
	assert_memory_equal(o + 24, d6, 16);
	assert_int_equal(u[0] << 8 | u[1], 2152);
	assert_int_equal(u[2] << 8 | u[3], 2152);
	assert_int_equal(u[4] << 8 | u[5], PKT_UDP + 16 + ilen);
	assert_true(u[6] | u[7]);                                   /* RFC 8200 8.1: never 0 */
	assert_int_equal(pkt_csum6(s6, d6, 17, u, PKT_UDP + 16 + ilen), 0);
	assert_int_equal(g[0], 0x34);
	assert_int_equal(g[1], 0xff);
	assert_int_equal(g[2] << 8 | g[3], 8 + ilen);
	assert_int_equal(pkt_rd32(g + 4), gnb_teid);
	assert_int_equal(g[11], 0x85);
	assert_int_equal(g[14], 9);
	assert_memory_equal(g + 16, inner, ilen);
	pcap_eth(r->out, r->out_len);
	pcap_v6_dl++;
}

/* Downlink in outer IPv6 with the UDP checksum derived in XDP from the inner headers, for each
 * kind of inner packet it can sum: IPv4 UDP, TCP (even and odd lengths), ICMP, IPv4 options,
 * IPv6 UDP. */
static void t_dl_encap6(void **state)
{
	struct fx *f = fx_open(1);
	struct upf_session_rule r = rule(5, GNB6, 0, 0xabc);
	uint8_t frame[2048], inner[1600], data[64], ue6[16], dn6[16];
	struct upf_session_stats st;
	struct run out;
	size_t il, len;
	unsigned n = 0;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 3, &r), 0);
	for (size_t pl = 0; pl < 4; pl++) {
		il = pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.5"), 9, 40000, 40 + pl, 1);
		len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
		xdp_run(f, n6_ifindex, frame, len, &out);
		check_dl6(&out, inner, il, 0xabc);
		n++;
		il = pkt_inner_tcp(inner, ip("1.1.1.1"), ip("172.16.0.5"), 443, 50000, 0x18, 77, 1001 + pl);
		len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
		xdp_run(f, n6_ifindex, frame, len, &out);
		check_dl6(&out, inner, il, 0xabc);
		n++;
	}
	memset(data, 0x5a, sizeof(data));
	il = pkt_icmp4(inner, ip("9.9.9.9"), ip("172.16.0.5"), 0, 0, 0x1234, 7, data, 37);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	check_dl6(&out, inner, il, 0xabc);
	n++;
	/* IPv4 options (ihl 6: one NOP word): the header still sums to zero with its checksum. */
	il = pkt_inner_tcp(inner, ip("1.1.1.1"), ip("172.16.0.5"), 443, 50000, 0x10, 78, 100);
	memmove(inner + 24, inner + 20, il - 20);
	memset(inner + 20, 1, 4);
	inner[0] = 0x46;
	inner[2] = (uint8_t)((il + 4) >> 8);
	inner[3] = (uint8_t)(il + 4);
	inner[10] = inner[11] = 0;
	{
		uint16_t c = pkt_csum(inner, 24);

		inner[10] = (uint8_t)(c >> 8);
		inner[11] = (uint8_t)c;
	}
	il += 4;
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	check_dl6(&out, inner, il, 0xabc);
	n++;
	in6("2001:db8:100:5::77", ue6);
	in6("2001:db8:6::2", dn6);
	for (size_t pl = 0; pl < 2; pl++) {
		il = pkt_inner_udp6(inner, dn6, ue6, PKT_IP6 + PKT_UDP + 31 + pl);
		len = pkt_ip6_frame(frame, N6_MAC, DN_MAC, inner, il);
		xdp_run(f, n6_ifindex, frame, len, &out);
		check_dl6(&out, inner, il, 0xabc);
		n++;
	}
	assert_int_equal(cnt(f, UPF_CNT_DL_N3V6), n);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD) + cnt(f, UPF_CNT_DL6_FWD), n);
	assert_int_equal(cnt(f, UPF_CNT_DL6_FWD), 2);
	assert_int_equal(cnt(f, UPF_CNT_DL_N3V6_USER), 0);
	assert_int_equal(upf_session_stats(f->u, 3, &st), 0);
	assert_int_equal(st.dl_pkts, n);
}

/* The outer flow label (RFC 8200 3: the low 20 bits of the first word) of a downlink in r. */
static uint32_t dl6_label(const struct run *r)
{
	const uint8_t *o = r->out + PKT_ETH;

	return (uint32_t)(o[1] & 0x0f) << 16 | (uint32_t)o[2] << 8 | o[3];
}

/* Outer flow label (RFC 6437 3, RFC 6438 4): from the inner flow (addresses, protocol, ports),
 * never 0, the same for every packet of one inner flow, and another for other flows. Several
 * inner flows, each sent twice with other contents (length, sequence, flags, ICMP identifier):
 * the two labels equal; the flows' labels all different (the hash is not keyed: the same
 * labels on every run). */
static void t_flow_label(void **state)
{
	struct fx *f = fx_open(1);
	struct upf_session_rule r = rule(5, GNB6, 0, 0xabc);
	uint8_t frame[2048], inner[1600], data[16], ue6[16], dn6[16];
	uint32_t lab[8][2];
	struct run out;
	size_t il, len;
	unsigned nf = 0;

	*state = f;
	memset(data, 0x33, sizeof(data));
	in6("2001:db8:100:5::77", ue6);
	assert_int_equal(upf_session_create(f->u, 3, &r), 0);
	for (int k = 0; k < 2; k++) {
		nf = 0;
#define SEND(il_) do { \
		il = (il_); \
		len = (inner[0] >> 4) == 6 ? pkt_ip6_frame(frame, N6_MAC, DN_MAC, inner, il) : \
					      pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il); \
		xdp_run(f, n6_ifindex, frame, len, &out); \
		check_dl6(&out, inner, il, 0xabc); \
		lab[nf++][k] = dl6_label(&out); \
	} while (0)
		SEND(pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.5"), 9, 40000, 40 + k, 1));
		SEND(pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.5"), 10, 40000, 40 + k, 1));  /* port */
		SEND(pkt_inner_udp4(inner, ip("8.8.4.4"), ip("172.16.0.5"), 9, 40000, 40 + k, 1));   /* address */
		SEND(pkt_inner_tcp(inner, ip("8.8.8.8"), ip("172.16.0.5"), 9, 40000, k ? 0x10 : 0x02, 7 + k, 0));
		SEND(pkt_icmp4(inner, ip("8.8.8.8"), ip("172.16.0.5"), 0, 0, (uint16_t)(0x100 + k), 1, data, 8));
		in6("2001:db8:6::2", dn6);
		SEND(pkt_inner_udp6(inner, dn6, ue6, PKT_IP6 + PKT_UDP + 20 + k));
		in6("2001:db8:6::3", dn6);
		SEND(pkt_inner_udp6(inner, dn6, ue6, PKT_IP6 + PKT_UDP + 20 + k));
#undef SEND
	}
	for (unsigned i = 0; i < nf; i++) {
		assert_int_not_equal(lab[i][0], 0);
		assert_int_equal(lab[i][0], lab[i][1]);
		for (unsigned j = 0; j < i; j++)
			assert_int_not_equal(lab[i][0], lab[j][0]);
	}
	assert_int_equal(cnt(f, UPF_CNT_DL_N3V6), 2 * nf);
}

/* Receive one GTP-U message on fd within 2 s (the UPF's loop run meanwhile). */
static int recv_gtp(struct fx *f, int fd, uint8_t *b, size_t n)
{
	for (int i = 0; i < 200; i++) {
		ssize_t k = recv(fd, b, n, MSG_DONTWAIT);

		if (k >= 0)
			return (int)k;
		upf_process(f->u);
		usleep(10000);
	}
	return -1;
}

/* What the program cannot sum (inner UDP without a checksum, a fragment, another protocol) or
 * has no neighbour for goes to user space, which sends it on the IPv6 GTP-U socket: the kernel
 * computes the checksum and the test gNB's IPv6 socket, which drops a bad one, receives it. */
static void t_dl_user6(void **state)
{
	struct fx *f = fx_open(1);
	struct upf_session_rule a = rule(6, GNB6, 0, 0x600);
	struct upf_session_rule b = rule(7, GNB6_LOCAL, 0, 0x700);
	uint8_t frame[2048], inner[1600], got[2048];
	struct run out;
	size_t il, len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 6, &a), 0);
	assert_int_equal(upf_session_create(f->u, 7, &b), 0);
	/* UDP checksum 0 (allowed over IPv4, RFC 768) */
	il = pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.6"), 9, 40000, 100, 0);
	assert_int_equal(inner[26] | inner[27], 0);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DL_N3V6_USER), 1);
	/* a fragment (MF set) */
	il = pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.6"), 9, 40000, 100, 1);
	inner[6] = 0x20;
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	/* GRE (47) */
	il = pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.6"), 9, 40000, 100, 1);
	inner[9] = 47;
	inner[10] = inner[11] = 0;
	{
		uint16_t c = pkt_csum(inner, 20);

		inner[10] = (uint8_t)(c >> 8);
		inner[11] = (uint8_t)c;
	}
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DL_N3V6_USER), 3);
	/* The three leave through the socket toward GNB6 (on n3, not ours to receive); the
	 * socket path to a gNB we can listen as: GNB6_LOCAL, a local address (the program's
	 * lookup says not forwarded: no neighbour to use, user space sends it). */
	while (upf_process(f->u) > 0)
		;
	assert_int_equal(cnt(f, UPF_STAT_NEXTHOP_SENT), 3);
	il = pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.7"), 9, 40000, 333, 0);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	il = pkt_inner_udp4(inner, ip("8.8.8.8"), ip("172.16.0.7"), 9, 40000, 334, 1);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, il);
	xdp_run(f, n6_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DL_NEXTHOP), 1);
	for (int k = 0; k < 2; k++) {
		int n = recv_gtp(f, f->sock6, got, sizeof(got));

		assert_int_equal(n, 16 + PKT_IP + PKT_UDP + 333 + k);
		assert_int_equal(got[1], 0xff);
		assert_int_equal(pkt_rd32(got + 4), 0x700);
		assert_int_equal(got[14], 9);
	}
	assert_int_equal(cnt(f, UPF_STAT_NEXTHOP_SENT), 5);
}

/* Uplink G-PDUs in outer IPv6 to our N3 IPv6: decapsulated like outer IPv4 (inner IPv4 and
 * IPv6), counted apart; not to our address, not UDP 2152, behind a fragment header or with a
 * bad length: not ours / the kernel's / dropped. */
static void t_ul_outer6(void **state)
{
	struct fx *f = fx_open(1);
	struct upf_session_rule r = rule(8, GNB6, 0, 0x800);
	uint8_t frame[2048], inner[1600], gtp[1700], s6[16], d6[16];
	struct upf_session_stats st;
	struct run out;
	size_t il, gl, len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 8, &r), 0);
	il = pkt_inner_udp4(inner, ip("172.16.0.8"), ip("8.8.8.8"), 40000, 9, 77, 1);
	gl = pkt_gpdu(gtp, 8, 9, 1, inner, il);
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	pcap_eth(frame, len);
	memset(frame + len, 0xee, 6);               /* link padding is not carried */
	xdp_run(f, n3_ifindex, frame, len + 6, &out);
	assert_int_equal(out.action, XDP_REDIRECT);
	assert_int_equal(out.out_len, PKT_ETH + il);
	assert_memory_equal(out.out, DN_MAC, 6);
	assert_memory_equal(out.out + 6, N6_MAC, 6);
	assert_int_equal(out.out[12] << 8 | out.out[13], 0x0800);   /* the inner family's */
	assert_memory_equal(out.out + PKT_ETH, inner, il);
	in6("2001:db8:100:8::1", s6);
	in6("2001:db8:6::2", d6);
	il = pkt_inner_udp6(inner, s6, d6, 120);
	gl = pkt_gpdu(gtp, 8, 9, 1, inner, il);
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	pcap_eth(frame, len);
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_REDIRECT);
	assert_int_equal(out.out[12] << 8 | out.out[13], 0x86dd);
	assert_memory_equal(out.out + PKT_ETH, inner, il);
	assert_int_equal(cnt(f, UPF_CNT_UL_N3V6), 2);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL6_FWD), 1);
	assert_int_equal(upf_session_stats(f->u, 8, &st), 0);
	assert_int_equal(st.ul_pkts, 2);
	/* anti-spoofing holds over IPv6 N3 as well */
	il = pkt_inner_udp4(inner, ip("172.16.0.9"), ip("8.8.8.8"), 40000, 9, 77, 1);
	gl = pkt_gpdu(gtp, 8, 9, 1, inner, il);
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_BAD_SRC), 1);
	/* UDP length beyond the IPv6 payload */
	il = pkt_inner_udp4(inner, ip("172.16.0.8"), ip("8.8.8.8"), 40000, 9, 77, 1);
	gl = pkt_gpdu(gtp, 8, 9, 1, inner, il);
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	frame[PKT_ETH + 5] -= 4;
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_MALFORMED), 1);
	/* to another IPv6 address (not pool6 either): the kernel's */
	len = ul_frame6(frame, GNB6, "2001:db8:3::99", gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	/* our address, another UDP port */
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	frame[PKT_ETH + PKT_IP6 + 3] = 0x69;
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	/* a fragment header (RFC 8200 4.5): reassembly is the kernel's */
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	frame[PKT_ETH + 6] = 44;
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_PASS_FRAG), 1);
	/* signalling and unknown TEIDs go to the socket, as over IPv4 */
	gl = pkt_gpdu(gtp, 33, 9, 1, inner, il);
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_UNKNOWN_TEID), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_N3V6), 2);
}

/* The IPv6 GTP-U socket: Echo Request -> Echo Response (TS 29.281 7.2.2); a G-PDU with an
 * unknown TEID -> Error Indication whose GTP-U Peer Address is our IPv6 (8.4: 16 octets). */
static void t_sock6(void **state)
{
	struct fx *f = fx_open(1);
	uint8_t echo[12] = { 0x32, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0x43, 0x21, 0, 0 };
	uint8_t got[256], gtp[256], inner[128], me[16];
	struct sockaddr_in6 to = { .sin6_family = AF_INET6, .sin6_port = htons(2152) };
	size_t il, gl;
	int n;

	*state = f;
	in6(N3_ADDR6, to.sin6_addr.s6_addr);
	in6(N3_ADDR6, me);
	assert_int_equal(sendto(f->sock6, echo, sizeof(echo), 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(echo));
	n = recv_gtp(f, f->sock6, got, sizeof(got));
	{
		const uint8_t want[14] = { 0x32, 0x02, 0x00, 0x06, 0, 0, 0, 0, 0x43, 0x21, 0, 0, 14, 0 };

		assert_int_equal(n, sizeof(want));
		assert_memory_equal(got, want, sizeof(want));
	}
	il = pkt_inner_udp(inner, ip("172.16.0.1"), ip("8.8.8.8"), 60);
	gl = pkt_gpdu(gtp, 0x4444, 1, 1, inner, il);
	assert_int_equal(sendto(f->sock6, gtp, gl, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl);
	n = recv_gtp(f, f->sock6, got, sizeof(got));
	/* TS 29.281 7.3.1: TEID 0, S=1, E=1 (UDP Port 5.2.2.1: 2152), TEID Data I 0x4444,
	 * GTP-U Peer Address (133) length 16. */
	assert_int_equal(n, 8 + 4 + 4 + 5 + 3 + 16);
	assert_int_equal(got[0], 0x36);
	assert_int_equal(got[1], 26);
	assert_int_equal(got[2] << 8 | got[3], n - 8);
	assert_int_equal(pkt_rd32(got + 4), 0);
	assert_int_equal(got[11], 0x40);
	assert_int_equal(got[13] << 8 | got[14], 2152);
	assert_int_equal(got[16], 16);
	assert_int_equal(pkt_rd32(got + 17), 0x4444);
	assert_int_equal(got[21], 133);
	assert_int_equal(got[22] << 8 | got[23], 16);
	assert_memory_equal(got + 24, me, 16);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_SENT), 1);
	assert_int_equal(cnt(f, UPF_STAT_ECHO_RSP_SENT), 1);
}

/* A session moving between an IPv4 and an IPv6 gNB (a handover across families): the End Marker
 * (TS 29.281 7.3.2) goes down the old tunnel in its own family. Rules naming an IPv6 gNB need
 * our N3 IPv6. Every counter has a name. */
static void t_families(void **state)
{
	struct fx *f = fx_open(1);
	struct upf_session_rule r4 = rule(9, NULL, ip("127.0.0.2"), 0x904);
	struct upf_session_rule r6 = rule(9, GNB6_LOCAL, 0, 0x906);
	struct upf_session_rule none = rule(9, NULL, 0, 0);
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = 16,
	};
	struct upf *u4 = NULL;
	uint8_t got[256];
	int n;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 9, &r4), 0);
	assert_int_equal(upf_session_modify(f->u, 9, &r6), 0);
	n = recv_gtp(f, f->sock4, got, sizeof(got));
	assert_int_equal(n, 16);
	assert_int_equal(got[1], 254);
	assert_int_equal(pkt_rd32(got + 4), 0x904);
	assert_int_equal(upf_session_modify(f->u, 9, &r4), 0);
	n = recv_gtp(f, f->sock6, got, sizeof(got));
	assert_int_equal(n, 16);
	assert_int_equal(got[1], 254);
	assert_int_equal(pkt_rd32(got + 4), 0x906);
	assert_int_equal(cnt(f, UPF_STAT_END_MARKER_SENT), 2);
	assert_int_equal(upf_session_modify(f->u, 9, &none), -EINVAL);   /* ACTIVE without a gNB */

	assert_int_equal(upf_open(&p, &u4), 0);
	r6.ue_addr = ip("172.16.0.1");
	memset(r6.ue_prefix6, 0, sizeof(r6.ue_prefix6));   /* u4 has no pool6 either */
	assert_int_equal(upf_session_create(u4, 1, &r6), -EAFNOSUPPORT);
	upf_close(u4);
	for (unsigned i = 0; i < UPF_STAT__MAX; i++)
		assert_non_null(upf_counter_name(i));
	assert_string_equal(upf_counter_name(UPF_CNT_DL_N3V6_USER), "dl_n3v6_user");
	assert_string_equal(upf_counter_name(UPF_CNT_NAT_FRAG_DL), "nat_frag_dl");
}

/* Without upf_params.n3_addr6 no IPv6 GTP-U socket exists and IPv6 to any address is not N3. */
static void t_off(void **state)
{
	struct fx *f = fx_open(0);
	struct upf_session_rule r = rule(10, NULL, ip("127.0.0.2"), 0xa00);
	uint8_t frame[2048], inner[256], gtp[300];
	int fds[UPF_MAX_FDS];
	struct run out;
	size_t il, gl, len;

	*state = f;
	assert_int_equal(upf_fds(f->u, fds), 2);
	assert_int_equal(upf_session_create(f->u, 10, &r), 0);
	il = pkt_inner_udp4(inner, ip("172.16.0.10"), ip("8.8.8.8"), 40000, 9, 77, 1);
	gl = pkt_gpdu(gtp, 10, 9, 1, inner, il);
	len = ul_frame6(frame, GNB6, N3_ADDR6, gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_UL_N3V6), 0);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 0);
}

static int tshark_check(void)
{
	const char *ck = "-o udp.check_checksum:TRUE -o ip.check_checksum:TRUE -o tcp.check_checksum:TRUE ";
	char a[512];
	int bad = 0;

	if (!W) {
		fprintf(stderr, "upf_n3v6: tshark check SKIPPED (no tshark given)\n");
		return 0;
	}
	if (pcapw_close(W))
		return -1;
	W = NULL;
	fprintf(stderr, "upf_n3v6: %d frames (%d downlink in outer IPv6) in %s\n", pcap_frames, pcap_v6_dl,
		pcap_path);
#define TS(cond, what) do { if (!(cond)) { fprintf(stderr, "tshark check failed: %s\n", what); bad++; } } while (0)
	TS(tshark_expert(tshark_path, pcap_path, ck) == 0, "expert errors");
	snprintf(a, sizeof(a), "%s -Y _ws.malformed", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 0, "malformed");
	TS(tshark_lines(tshark_path, pcap_path, "", NULL) == pcap_frames, "frame count");
	snprintf(a, sizeof(a), "%s -Y 'udp.checksum.status == 0 || ip.checksum.status == 0 || tcp.checksum.status == 0'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 0, "bad checksums");
	snprintf(a, sizeof(a), "%s -Y 'ipv6.src == " N3_ADDR6 " && ipv6.dst == " GNB6 " && udp.port == 2152 && "
		 "udp.checksum.status == 1 && gtp.message == 255 && gtp.ext_hdr.pdu_ses_con.qos_flow_id == 9'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == pcap_v6_dl, "downlink in outer IPv6, checksum good");
	snprintf(a, sizeof(a), "%s -Y 'ipv6.src == " N3_ADDR6 " && ipv6.dst == " GNB6 " && gtp && ipv6.flow#1 != 0'", ck);   /* #1: the outer header */
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == pcap_v6_dl, "downlink in outer IPv6, flow label set");
	snprintf(a, sizeof(a), "%s -Y 'ipv6.src == " N3_ADDR6 " && gtp && (tcp.checksum.status == 1 || "
		 "(udp.checksum.status == 1 && ip.dst == 172.16.0.5) || icmp)'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) >= 9, "inner IPv4 decoded in the IPv6 tunnel");
	snprintf(a, sizeof(a), "%s -Y 'ipv6.dst == " N3_ADDR6 " && gtp.message == 255'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 2, "uplink in outer IPv6");
#undef TS
	return bad ? -1 : 0;
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_ifindex, &n6_ifindex))
		return -1;
	if (tn_sh("sysctl -qw net.ipv6.conf.all.forwarding=1 && "
		  "ip -6 addr add " N3_ADDR6 "/64 dev n3 nodad && "
		  "ip -6 neigh replace " GNB6 " lladdr 02:00:00:00:03:02 dev n3 nud permanent && "
		  "ip -6 addr add " GNB6_LOCAL "/128 dev lo nodad && "
		  "ip addr add 127.0.0.2/8 dev lo 2>/dev/null; "
		  "ip -6 addr add 2001:db8:6::1/64 dev n6 nodad && "
		  "ip -6 neigh replace 2001:db8:6::2 lladdr 02:00:00:00:06:02 dev n6 nud permanent && "
		  "ip -6 route add default via 2001:db8:6::2 dev n6"))
		return -1;
	if (tshark_path) {
		W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
		if (!W)
			return -1;
	}
	return 0;
}

static int group_teardown(void **state)
{
	(void)state;
	return tshark_check();
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_n3v6");

	if (rc)
		return rc;
	if (argc > 2 && tshark_require(argv[1], "decode the outer-IPv6 N3 frames") == 0) {
		tshark_path = argv[1];
		snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n3v6.pcap", argv[2]);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(t_dl_encap6, fx_teardown),
		cmocka_unit_test_teardown(t_flow_label, fx_teardown),
		cmocka_unit_test_teardown(t_dl_user6, fx_teardown),
		cmocka_unit_test_teardown(t_ul_outer6, fx_teardown),
		cmocka_unit_test_teardown(t_sock6, fx_teardown),
		cmocka_unit_test_teardown(t_families, fx_teardown),
		cmocka_unit_test_teardown(t_off, fx_teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
