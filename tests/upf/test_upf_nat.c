/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NAT on N6 (issue 19 item 3, upf/README.md "NAT"): the XDP program on crafted frames through
 * BPF_PROG_TEST_RUN, in a private network namespace with the veths of tn_fib_setup():
 *   n3 192.0.2.1/24   gNB 192.0.2.2 (static neighbour)
 *   n6 198.51.100.1/24 = the NAT address, DN router 198.51.100.2, default route
 * UE pool 10.45.0.0/16; remote servers 203.0.113.x (behind the DN router). Every translated
 * frame is checked byte by byte against the packet built from scratch with the translated
 * addresses and ports (so the incremental checksums must equal full ones), and written to a
 * pcap that tshark decodes at the end with checksum validation on (argv: tshark, output dir).
 * Time for the idle sweep is driven through upf_nat_sweep(now) (upf/upf_int.h), no sleeping.
 * Needs root; skips with 77 otherwise.
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
#include "upf/upf_int.h"   /* upf_nat_sweep(): the test drives the sweep's clock */
#include "testlib.h"
#include "pkt.h"
#include "netns.h"

static const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
static const uint8_t GNB_MAC[6] = { 2, 0, 0, 0, 3, 2 };
static const uint8_t N6_MAC[6] = { 2, 0, 0, 0, 6, 1 };
static const uint8_t DN_MAC[6] = { 2, 0, 0, 0, 6, 2 };
#define N3_ADDR "192.0.2.1"
#define GNB_ADDR "192.0.2.2"
#define NAT_ADDR "198.51.100.1"
#define POOL "10.45.0.0"
#define RPORT 33333   /* the remote servers' UDP port (no tshark dissector on it) */
#define GTP_DL_HDR 16     /* GTP-U header + options + DL PDU Session Container */
#define ENCAP (PKT_ETH + PKT_IP + PKT_UDP + GTP_DL_HDR)

static int n3_if, n6_if;
static const char *tshark_path;
static char pcap_path[512];
static struct pcapw *W;
static int pcap_frames;

struct fx {
	struct upf *u;
	int sock;            /* test "gNB" on 127.0.0.2:2152 (exception path) */
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

static struct fx *F;

static uint32_t fx_quota;   /* nat_conns_per_session of the next fx_open_p */
static uint32_t fx_share;   /* nat_conns_per_remote of the next fx_open_p */

static struct fx *fx_open_p(uint16_t lo, uint16_t hi, uint32_t max_conns)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip(POOL), .ue_pool_plen = 16,
		.max_sessions = 64, .buffer_per_session = 4, .buffer_total = 16,
		.nat_addr = ip(NAT_ADDR), .nat_port_lo = lo, .nat_port_hi = hi, .nat_max_conns = max_conns,
		.nat_conns_per_session = fx_quota, .nat_conns_per_remote = fx_share,
	};

	assert_non_null(f);
	assert_int_equal(upf_open(&p, &f->u), 0);
	f->sock = tn_udp_bind(ip("127.0.0.2"), 2152);
	assert_true(f->sock >= 0);
	F = f;
	return f;
}

static struct fx *fx_open(void)
{
	return fx_open_p(0, 0, 0);
}

static int fx_teardown(void **state)
{
	(void)state;
	if (F) {
		upf_close(F->u);
		if (F->sock >= 0)
			close(F->sock);
		free(F);
	}
	F = NULL;
	return 0;
}

static void session(struct fx *f, uint32_t id, const char *ue, bool nat, const char *gnb)
{
	struct upf_session_rule r = {
		.ul_teid = id + 1, .ue_addr = ip(ue), .gnb_addr = ip(gnb), .gnb_teid = 0x100 + id, .qfi = 9,
		.nat = nat,
	};

	assert_int_equal(upf_session_create(f->u, id, &r), 0);
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

static void xdp(struct fx *f, int ifindex, const uint8_t *frame, size_t len, struct run *r)
{
	int v;

	r->out_len = sizeof(r->out);
	v = tn_xdp_run(upf_prog_fd(f->u), ifindex, frame, len, r->out, &r->out_len);
	assert_true(v >= 0);
	r->action = (uint32_t)v;
}

/* Uplink: the inner packet from session id's UE in a G-PDU; the verdict and output in r. */
static void ul(struct fx *f, uint32_t id, const uint8_t *inner, size_t len, struct run *r)
{
	uint8_t gtp[1600], frame[1700];
	size_t gl = pkt_gpdu(gtp, id + 1, 9, 1, inner, len);
	size_t fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);

	xdp(f, n3_if, frame, fl, r);
}

/* Downlink: an IPv4 packet from the DN router arriving on n6. */
static void dl(struct fx *f, const uint8_t *pkt, size_t len, struct run *r)
{
	uint8_t frame[1700];
	size_t fl = pkt_ip_frame(frame, N6_MAC, DN_MAC, pkt, len);

	xdp(f, n6_if, frame, fl, r);
	if (r->action == XDP_PASS) {
		/* Passed to the kernel as it came. */
		assert_int_equal(r->out_len, fl);
		assert_memory_equal(r->out, frame, fl);
	}
}

/* An uplink that must leave translated: redirected toward the DN router, the frame equal to
 * want_fn's packet with source NAT_ADDR and the port the program chose (returned, host order,
 * checked to be inside lo..hi). off_port: offset of the translated port / identifier. */
static uint16_t ul_nat_ok(struct run *r, const uint8_t *want, size_t len, size_t off_port, uint16_t lo,
			  uint16_t hi)
{
	uint8_t exp[1600];
	const uint8_t *o = r->out + PKT_ETH;
	uint16_t port;

	assert_int_equal(r->action, XDP_REDIRECT);
	assert_int_equal(r->out_len, PKT_ETH + len);
	assert_memory_equal(r->out, DN_MAC, 6);
	assert_memory_equal(r->out + 6, N6_MAC, 6);
	port = (uint16_t)(o[off_port] << 8 | o[off_port + 1]);
	assert_true(port >= lo && port <= hi);
	/* The packet as it must be: same bytes, source and port translated, every checksum
	 * computed from scratch. */
	memcpy(exp, want, len);
	memcpy(exp + 12, (uint32_t[]){ ip(NAT_ADDR) }, 4);
	exp[off_port] = (uint8_t)(port >> 8);
	exp[off_port + 1] = (uint8_t)port;
	exp[10] = exp[11] = 0;
	uint16_t c = pkt_csum(exp, 20);

	exp[10] = (uint8_t)(c >> 8);
	exp[11] = (uint8_t)c;
	if (!(exp[9] == 17 && want[20 + 6] == 0 && want[20 + 7] == 0))
		pkt_l4_csum4(exp);
	assert_memory_equal(o, exp, len);
	assert_true(pkt_csum4_ok(o, len));
	pcap_eth(r->out, r->out_len);
	return port;
}

/* A downlink that must reach the UE: encapsulated toward the gNB, the inner packet equal to
 * want (the reply with the UE's address and port, checksums from scratch). */
static void dl_nat_ok(struct run *r, const uint8_t *want, size_t len, uint32_t gnb_teid)
{
	assert_int_equal(r->action, XDP_REDIRECT);
	assert_int_equal(r->out_len, ENCAP + len);
	assert_memory_equal(r->out, GNB_MAC, 6);
	assert_int_equal(pkt_rd32(r->out + PKT_ETH + PKT_IP + PKT_UDP + 4), gnb_teid);
	assert_memory_equal(r->out + ENCAP, want, len);
	assert_true(pkt_csum4_ok(r->out + ENCAP, len));
	pcap_eth(r->out, r->out_len);
}

/* ---- UDP, TCP, ICMP echo: out and back ---- */

static void t_udp(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], q[1600];
	struct run r;
	size_t n;
	uint16_t port;

	(void)state;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 40000, RPORT, 37, 1);
	ul(f, 1, p, n, &r);
	port = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_UL), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 1);
	/* The same flow again: the same port, no new connection. */
	ul(f, 1, p, n, &r);
	assert_int_equal(ul_nat_ok(&r, p, n, 20, 1024, 65535), port);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 1);

	/* The answer to NAT_ADDR:port comes back to the UE's 40000. */
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, port, 61, 1);
	pkt_inner_udp4(p, ip("203.0.113.5"), ip("10.45.0.2"), RPORT, 40000, 61, 1);
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x101);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL), 1);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD), 1);

	/* UDP without a checksum (0, RFC 768) stays without one both ways. */
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 40001, RPORT, 20, 0);
	ul(f, 1, p, n, &r);
	port = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	assert_int_equal(r.out[PKT_ETH + 26], 0);
	assert_int_equal(r.out[PKT_ETH + 27], 0);
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, port, 20, 0);
	pkt_inner_udp4(p, ip("203.0.113.5"), ip("10.45.0.2"), RPORT, 40001, 20, 0);
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x101);

	/* Another remote port of the same server is another connection. */
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), 54, port, 20, 1);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL_NO_MATCH), 1);
}

static void t_tcp(void **state)
{
	struct fx *f = fx_open_p(20000, 20999, 0);
	uint8_t p[1600], q[1600];
	struct run r;
	size_t n;
	uint16_t port;

	(void)state;
	session(f, 2, "10.45.0.3", true, GNB_ADDR);
	n = pkt_inner_tcp(p, ip("10.45.0.3"), ip("203.0.113.80"), 51000, 443, 0x02, 1000, 0);
	ul(f, 2, p, n, &r);
	port = ul_nat_ok(&r, p, n, 20, 20000, 20999);
	/* SYN-ACK back, then data both ways. */
	n = pkt_inner_tcp(q, ip("203.0.113.80"), ip(NAT_ADDR), 443, port, 0x12, 5000, 0);
	pkt_inner_tcp(p, ip("203.0.113.80"), ip("10.45.0.3"), 443, 51000, 0x12, 5000, 0);
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x102);
	n = pkt_inner_tcp(p, ip("10.45.0.3"), ip("203.0.113.80"), 51000, 443, 0x18, 1001, 333);
	ul(f, 2, p, n, &r);
	assert_int_equal(ul_nat_ok(&r, p, n, 20, 20000, 20999), port);
	n = pkt_inner_tcp(q, ip("203.0.113.80"), ip(NAT_ADDR), 443, port, 0x18, 5001, 1200);
	pkt_inner_tcp(p, ip("203.0.113.80"), ip("10.45.0.3"), 443, 51000, 0x18, 5001, 1200);
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x102);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_UL), 2);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL), 2);
}

static void t_icmp(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], q[1600], data[32];
	struct run r;
	size_t n;
	uint16_t id;

	(void)state;
	for (int i = 0; i < 32; i++)
		data[i] = (uint8_t)(0x20 + i);
	session(f, 3, "10.45.0.4", true, GNB_ADDR);
	n = pkt_icmp4(p, ip("10.45.0.4"), ip("203.0.113.9"), 8, 0, 0x1234, 1, data, sizeof(data));
	ul(f, 3, p, n, &r);
	id = ul_nat_ok(&r, p, n, 24, 1024, 65535);
	n = pkt_icmp4(q, ip("203.0.113.9"), ip(NAT_ADDR), 0, 0, id, 1, data, sizeof(data));
	pkt_icmp4(p, ip("203.0.113.9"), ip("10.45.0.4"), 0, 0, 0x1234, 1, data, sizeof(data));
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x103);
	/* An echo reply or an error from the UE has no connection to follow: dropped. */
	n = pkt_icmp4(p, ip("10.45.0.4"), ip("203.0.113.9"), 0, 0, 7, 1, data, 8);
	ul(f, 3, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DROP_PROTO), 1);
	/* So is another protocol (GRE) of a NAT session. */
	n = pkt_ipv4(p, ip("10.45.0.4"), ip("203.0.113.9"), 47, 16);
	memset(p + n, 0, 16);
	ul(f, 3, p, n + 16, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DROP_PROTO), 2);
}

/* Two UEs, the same source port, the same server: two NAT ports, each answer to its UE. A
 * session without NAT in the same UPF keeps its address. */
static void t_two_ues_and_plain(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], q[1600];
	struct run r;
	size_t n;
	uint16_t pa, pb;

	(void)state;
	session(f, 4, "10.45.0.5", true, GNB_ADDR);
	session(f, 5, "10.45.0.6", true, GNB_ADDR);
	session(f, 6, "10.45.0.7", false, GNB_ADDR);
	n = pkt_inner_udp4(p, ip("10.45.0.5"), ip("203.0.113.5"), 5000, 5000, 10, 1);
	ul(f, 4, p, n, &r);
	pa = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_udp4(p, ip("10.45.0.6"), ip("203.0.113.5"), 5000, 5000, 10, 1);
	ul(f, 5, p, n, &r);
	pb = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	assert_int_not_equal(pa, pb);
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), 5000, pb, 10, 1);
	pkt_inner_udp4(p, ip("203.0.113.5"), ip("10.45.0.6"), 5000, 5000, 10, 1);
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x105);
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), 5000, pa, 10, 1);
	pkt_inner_udp4(p, ip("203.0.113.5"), ip("10.45.0.5"), 5000, 5000, 10, 1);
	dl(f, q, n, &r);
	dl_nat_ok(&r, p, n, 0x104);

	/* The plain session: its uplink leaves from the UE address, untouched; its answers to the
	 * UE address take the plain downlink; the same packet sent to NAT_ADDR is not its. */
	n = pkt_inner_udp4(p, ip("10.45.0.7"), ip("203.0.113.5"), 5000, 5000, 10, 1);
	ul(f, 6, p, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out_len, PKT_ETH + n);
	assert_memory_equal(r.out + PKT_ETH, p, n);
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip("10.45.0.7"), 5000, 5000, 10, 1);
	dl(f, q, n, &r);
	dl_nat_ok(&r, q, n, 0x106);
	if (pa != 5000 && pb != 5000) {
		n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), 5000, 5000, 10, 1);
		dl(f, q, n, &r);
		assert_int_equal(r.action, XDP_PASS);
	}
	assert_int_equal(cnt(f, UPF_CNT_NAT_UL), 2);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL), 2);
}

/* Traffic for the host itself (SSH to NAT_ADDR, a ping of it): passed, untouched, counted. */
static void t_unknown_dl(void **state)
{
	struct fx *f = fx_open();
	uint8_t q[1600];
	struct run r;
	size_t n;

	(void)state;
	n = pkt_inner_tcp(q, ip("203.0.113.1"), ip(NAT_ADDR), 50000, 22, 0x02, 1, 0);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_PASS);
	n = pkt_icmp4(q, ip("203.0.113.1"), ip(NAT_ADDR), 8, 0, 1, 1, (const uint8_t *)"ping", 4);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL_NO_MATCH), 2);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL), 0);
}

/* A table of 4 connections: the fifth is dropped and counted, the four keep working. A range
 * of 2 ports toward one server: the third UE finds none (pressure). */
static void t_full(void **state)
{
	struct fx *f = fx_open_p(0, 0, 4);
	uint8_t p[1600], q[1600];
	uint16_t port[4];
	struct run r;
	size_t n;

	(void)state;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	for (int i = 0; i < 4; i++) {
		n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), (uint16_t)(6000 + i), RPORT, 10, 1);
		ul(f, 1, p, n, &r);
		port[i] = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	}
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 6004, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_FULL), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 4);
	for (int i = 0; i < 4; i++) {
		n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, port[i], 10, 1);
		pkt_inner_udp4(p, ip("203.0.113.5"), ip("10.45.0.2"), RPORT, (uint16_t)(6000 + i), 10, 1);
		dl(f, q, n, &r);
		dl_nat_ok(&r, p, n, 0x101);
	}
	fx_teardown(NULL);

	f = fx_open_p(3000, 3001, 0);
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	session(f, 2, "10.45.0.3", true, GNB_ADDR);
	session(f, 3, "10.45.0.4", true, GNB_ADDR);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 7000, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	port[0] = ul_nat_ok(&r, p, n, 20, 3000, 3001);
	n = pkt_inner_udp4(p, ip("10.45.0.3"), ip("203.0.113.5"), 7000, RPORT, 10, 1);
	ul(f, 2, p, n, &r);
	port[1] = ul_nat_ok(&r, p, n, 20, 3000, 3001);
	assert_int_not_equal(port[0], port[1]);
	n = pkt_inner_udp4(p, ip("10.45.0.4"), ip("203.0.113.5"), 7000, RPORT, 10, 1);
	ul(f, 3, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_PRESSURE), 1);
	/* Another server: the ports are free toward it. */
	n = pkt_inner_udp4(p, ip("10.45.0.4"), ip("203.0.113.6"), 7000, RPORT, 10, 1);
	ul(f, 3, p, n, &r);
	ul_nat_ok(&r, p, n, 20, 3000, 3001);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 3);
}

/* The idle sweep: timeouts of upf/upf_nat.c, driven through upf_nat_sweep(now). */
static void t_expiry(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], q[1600];
	struct run r;
	size_t n;
	uint16_t pu, pa, pt;
	uint64_t t0;

	(void)state;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	t0 = upf_mono_ns();
	/* An unanswered UDP flow (30 s), an answered one (120 s), a TCP one with a FIN (240 s). */
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 8000, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	pu = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 8001, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	pa = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, pa, 10, 1);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	n = pkt_inner_tcp(p, ip("10.45.0.2"), ip("203.0.113.80"), 8002, 80, 0x02, 1, 0);
	ul(f, 1, p, n, &r);
	pt = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_tcp(q, ip("203.0.113.80"), ip(NAT_ADDR), 80, pt, 0x12, 1, 0);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	n = pkt_inner_tcp(q, ip("203.0.113.80"), ip(NAT_ADDR), 80, pt, 0x11, 2, 0);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 3);

	assert_int_equal(upf_nat_sweep(f->u, t0 + 10 * 1000000000ull), 3);
	assert_int_equal(cnt(f, UPF_STAT_NAT_EXPIRED), 0);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 32 * 1000000000ull), 3);
	assert_int_equal(cnt(f, UPF_STAT_NAT_EXPIRED), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 2);
	/* Its port is free again: the answer now finds nothing (the host's). */
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, pu, 10, 1);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 119 * 1000000000ull), 2);
	assert_int_equal(cnt(f, UPF_STAT_NAT_EXPIRED), 1);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 123 * 1000000000ull), 2);
	assert_int_equal(cnt(f, UPF_STAT_NAT_EXPIRED), 2);
	/* The TCP connection saw a FIN: transitory, 240 s, not the 2 h of an established one. */
	assert_int_equal(upf_nat_sweep(f->u, t0 + 238 * 1000000000ull), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_EXPIRED), 2);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 243 * 1000000000ull), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_EXPIRED), 3);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 0);
	/* The flow starts again: a new connection. */
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 8000, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	ul_nat_ok(&r, p, n, 20, 1024, 65535);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 4);
	/* An established TCP connection lives 2 h (RFC 5382 REQ-5: 2 h 4 min). */
	n = pkt_inner_tcp(p, ip("10.45.0.2"), ip("203.0.113.80"), 8003, 80, 0x02, 1, 0);
	ul(f, 1, p, n, &r);
	pt = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_tcp(q, ip("203.0.113.80"), ip(NAT_ADDR), 80, pt, 0x12, 1, 0);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	/* The real clock's sweep (upf_process -> upf_nat_tick, a pass every second): nothing is old
	 * enough in real time, so both stay. */
	usleep(1100 * 1000);
	for (int i = 0; i < 3; i++)
		assert_true(upf_process(f->u) >= 0);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 2);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 7200 * 1000000000ull), 2);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 1);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 7500 * 1000000000ull), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 0);
}

/* RFC 6888 REQ-4: nat_conns_per_session 3: a session's 4th connection is dropped and counted
 * while its 3 live ones keep working and another session is unaffected; one expiring gives its
 * place back; a removed session's id starts again with the whole share. */
/* n new UDP connections of session id (UE ue) from ports base.., each translated. */
static void udp_conns(struct fx *f, uint32_t id, const char *ue, uint16_t base, int n)
{
	uint8_t p[1600];
	struct run r;
	size_t len;

	for (int i = 0; i < n; i++) {
		len = pkt_inner_udp4(p, ip(ue), ip("203.0.113.5"), (uint16_t)(base + i), RPORT, 10, 1);
		ul(f, id, p, len, &r);
		ul_nat_ok(&r, p, len, 20, 1024, 65535);
	}
}

static void t_quota(void **state)
{
	struct fx *f;
	uint8_t p[1600];
	struct run r;
	size_t n;
	uint64_t t0;

	(void)state;
	fx_quota = 3;
	f = fx_open();
	fx_quota = 0;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	session(f, 2, "10.45.0.3", true, GNB_ADDR);
	t0 = upf_mono_ns();
	udp_conns(f, 1, "10.45.0.2", 8000, 3);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 8003, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_QUOTA), 1);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 3);
	udp_conns(f, 1, "10.45.0.2", 8001, 1);   /* a live one */
	udp_conns(f, 2, "10.45.0.3", 8000, 1);   /* another session */
	/* 31 s on, the unanswered ones (30 s) expire: room again. */
	assert_int_equal(upf_nat_sweep(f->u, t0 + 31 * 1000000000ull), 4);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 0);
	udp_conns(f, 1, "10.45.0.2", 8003, 3);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 8009, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_QUOTA), 2);
	/* Removed and created again under the same id: its share is whole. */
	assert_int_equal(upf_session_remove(f->u, 1), 0);
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	udp_conns(f, 1, "10.45.0.2", 9000, 3);
	assert_int_equal(cnt(f, UPF_CNT_NAT_QUOTA), 2);
}

/* Issue 31 point 5 (adversary; RFC 6888 REQ-4, RFC 6269): one UE must not starve the others of
 * NAT connections. With the defaults (nothing set: 1024 connections per session, 256 toward one
 * remote address:port) and a table of 4096, UE A opens new UDP flows as fast as it can:
 *   - toward one server it stops at the per-remote share (drop_nat_remote_share), and its flows
 *     toward other servers still work;
 *   - over all servers it stops at the per-session quota (drop_nat_quota);
 *   - UE B still gets new flows, toward that server too.
 * The shares come back when A's connections expire (the sweep gives each one back). Before the
 * limits had defaults, A filled the whole table and B got drop_nat_full. */
static uint32_t ul_try(struct fx *f, uint32_t id, const char *ue, const char *rem, uint16_t sport)
{
	uint8_t p[128];
	struct run r;
	size_t n = pkt_inner_udp4(p, ip(ue), ip(rem), sport, RPORT, 10, 1);

	ul(f, id, p, n, &r);
	return r.action;
}

/* New flows of session id from ports base.. toward rem until one is dropped (at most max): the
 * number that went out. */
static int flows_until_drop(struct fx *f, uint32_t id, const char *ue, const char *rem, uint16_t base, int max)
{
	int i;

	for (i = 0; i < max; i++)
		if (ul_try(f, id, ue, rem, (uint16_t)(base + i)) != XDP_REDIRECT)
			break;
	return i;
}

static void t_starve(void **state)
{
	struct fx *f = fx_open_p(0, 0, 4096);
	char rem[32];
	int n, total;
	uint64_t t0 = upf_mono_ns();

	(void)state;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);   /* A */
	session(f, 2, "10.45.0.3", true, GNB_ADDR);   /* B */
	n = flows_until_drop(f, 1, "10.45.0.2", "203.0.113.5", 10000, 4096);
	assert_int_equal(n, UPF_NAT_CONNS_PER_REMOTE);
	assert_int_equal(cnt(f, UPF_CNT_NAT_REMOTE_SHARE), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_QUOTA), 0);
	/* A's next flow there is dropped again; toward the same server on another port (another
	 * remote endpoint: ports of its own) and toward another server, A's flows go out. */
	assert_int_equal(ul_try(f, 1, "10.45.0.2", "203.0.113.5", 10000 + UPF_NAT_CONNS_PER_REMOTE), XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_REMOTE_SHARE), 2);
	{
		uint8_t p[128];
		struct run r;
		size_t len = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 10000, RPORT + 1, 10, 1);

		ul(f, 1, p, len, &r);
		ul_nat_ok(&r, p, len, 20, 1024, 65535);
	}
	assert_int_equal(ul_try(f, 1, "10.45.0.2", "203.0.113.6", 10000), XDP_REDIRECT);
	total = n + 2;
	/* Over more servers, up to the quota. */
	for (int s = 7; total < 4096 && s < 64; s++) {
		snprintf(rem, sizeof(rem), "203.0.113.%d", s);
		n = flows_until_drop(f, 1, "10.45.0.2", rem, 20000, UPF_NAT_CONNS_PER_REMOTE);
		total += n;
		if (n < (int)UPF_NAT_CONNS_PER_REMOTE)
			break;
	}
	assert_int_equal(total, UPF_NAT_CONNS_PER_SESSION);
	assert_int_equal(cnt(f, UPF_CNT_NAT_QUOTA), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_FULL), 0);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), UPF_NAT_CONNS_PER_SESSION);
	/* B is not starved: new flows, toward A's server as well. */
	assert_int_equal(flows_until_drop(f, 2, "10.45.0.3", "203.0.113.5", 10000, 8), 8);
	assert_int_equal(flows_until_drop(f, 2, "10.45.0.3", "203.0.113.99", 10000, 8), 8);
	assert_int_equal(cnt(f, UPF_CNT_NAT_FULL), 0);
	/* 31 s on, every unanswered flow (30 s) is gone and gave its places back. */
	assert_int_equal(upf_nat_sweep(f->u, t0 + 31 * 1000000000ull), UPF_NAT_CONNS_PER_SESSION + 16);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 0);
	n = flows_until_drop(f, 1, "10.45.0.2", "203.0.113.5", 30000, 4096);
	assert_int_equal(n, UPF_NAT_CONNS_PER_REMOTE);
	assert_int_equal(cnt(f, UPF_CNT_NAT_REMOTE_SHARE), 3);
}

/* The limits off, as an operator may choose (configuration 0 = UPF_NAT_UNLIMITED): one session
 * may take the whole table toward one server. */
static void t_limits_off(void **state)
{
	struct fx *f;

	(void)state;
	fx_quota = fx_share = UPF_NAT_UNLIMITED;
	f = fx_open_p(0, 0, 1024);
	fx_quota = fx_share = 0;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	assert_int_equal(flows_until_drop(f, 1, "10.45.0.2", "203.0.113.5", 10000, 2048), 1024);
	assert_int_equal(cnt(f, UPF_CNT_NAT_FULL), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_QUOTA), 0);
	assert_int_equal(cnt(f, UPF_CNT_NAT_REMOTE_SHARE), 0);
}

/* RFC 5508 4: a router's Destination Unreachable (and a Time Exceeded) about
 * a translated packet goes to the UE with the quoted packet as the UE sent it. */
static void t_icmp_err(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], q[1600], sent[1600], got[2048];
	struct run r;
	size_t n, qn;
	uint16_t port;
	ssize_t gl;

	(void)state;
	session(f, 1, "10.45.0.2", true, "127.0.0.2");
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 9000, 4444, 12, 1);
	ul(f, 1, p, n, &r);
	/* Routed via the DN: only the translation matters here. */
	assert_int_equal(r.action, XDP_REDIRECT);
	port = (uint16_t)(r.out[PKT_ETH + 20] << 8 | r.out[PKT_ETH + 21]);
	memcpy(sent, r.out + PKT_ETH, n);
	pcap_eth(r.out, r.out_len);

	for (int k = 0; k < 2; k++) {
		uint8_t type = k ? 11 : 3, code = k ? 0 : 3;

		qn = pkt_icmp4(q, ip(k ? "198.51.100.2" : "203.0.113.5"), ip(NAT_ADDR), type, code, 0, 0, sent, n);
		dl(f, q, qn, &r);
		assert_int_equal(r.action, XDP_DROP);
		assert_int_equal(cnt(f, UPF_CNT_NAT_ICMP_ERR), (uint64_t)k + 1);
		upf_process(f->u);
		assert_true(tn_wait_readable(f->sock, 2000));
		gl = recv(f->sock, got, sizeof(got), 0);
		assert_int_equal(gl, GTP_DL_HDR + qn);
		assert_int_equal(pkt_rd32(got + 4), 0x101);
		/* What the UE must see: the error to its address, quoting its own packet. */
		pkt_icmp4(q, ip(k ? "198.51.100.2" : "203.0.113.5"), ip("10.45.0.2"), type, code, 0, 0, p, n);
		assert_memory_equal(got + GTP_DL_HDR, q, qn);
		assert_true(pkt_csum4_ok(got + GTP_DL_HDR, qn));
		assert_true(pkt_csum4_ok(got + GTP_DL_HDR + 28, n));   /* the quoted UDP checksum too */
		assert_int_equal(cnt(f, UPF_STAT_NAT_ICMP_ERR_SENT), (uint64_t)k + 1);
		if (W) {
			uint8_t fr[800];
			size_t o = pkt_eth(fr, GNB_MAC, N3_MAC);

			o += pkt_ipv4(fr + o, ip(N3_ADDR), ip("127.0.0.2"), 17, PKT_UDP + (size_t)gl);
			o += pkt_udp(fr + o, 2152, 2152, (size_t)gl);
			memcpy(fr + o, got, (size_t)gl);
			pcap_eth(fr, o + (size_t)gl);
		}
	}
	/* An error quoting a packet that is not ours (another port): the host's. */
	sent[21] ^= 1;
	qn = pkt_icmp4(q, ip("203.0.113.5"), ip(NAT_ADDR), 3, 3, 0, 0, sent, n);
	dl(f, q, qn, &r);
	assert_int_equal(r.action, XDP_PASS);
	(void)port;
}

/* Fragment at byte offset off (a multiple of 8) of the whole IPv4 datagram d (header 20), with
 * its len bytes of L4 data and MF when more follow. */
static size_t frag4(uint8_t *o, const uint8_t *d, size_t dlen, size_t off, size_t len)
{
	bool mf = PKT_IP + off + len < dlen;
	uint16_t fo = (uint16_t)((mf ? 0x2000 : 0) | (off / 8)), c;

	memcpy(o, d, PKT_IP);
	memcpy(o + PKT_IP, d + PKT_IP + off, len);
	o[2] = (uint8_t)((PKT_IP + len) >> 8);
	o[3] = (uint8_t)(PKT_IP + len);
	o[6] = (uint8_t)(fo >> 8);
	o[7] = (uint8_t)fo;
	o[10] = o[11] = 0;
	c = pkt_csum(o, PKT_IP);
	o[10] = (uint8_t)(c >> 8);
	o[11] = (uint8_t)c;
	return PKT_IP + len;
}

/* The L4 data of fragment f (an IPv4 packet of len bytes, valid header checksum) copied into the
 * datagram being rebuilt in d at its offset; the offset returned, the header kept from offset 0. */
static size_t unfrag4(uint8_t *d, const uint8_t *f, size_t len)
{
	size_t off = (size_t)((f[6] & 0x1f) << 8 | f[7]) * 8;

	assert_true(pkt_csum(f, PKT_IP) == 0);   /* RFC 791: the header checksum holds */
	assert_true(off + len - PKT_IP <= 1400);
	if (!off)
		memcpy(d, f, PKT_IP);
	memcpy(d + PKT_IP + off, f + PKT_IP, len - PKT_IP);
	return off;
}

/* Fragments (RFC 791 2.3, RFC 6864 4.1; upf_nat.bpf.h "Fragments"): a UE's UDP datagram in two
 * fragments, the second first, leaves as two fragments from NAT_ADDR with one new ID that the
 * receiver reassembles into the datagram with the NAT port and a valid UDP checksum; another
 * UE's datagram with the same ID to the same remote gets another ID. The fragmented answer:
 * its later fragment before the first is the host's (XDP_PASS, pass_nat_frag); after the first
 * it follows it to the UE, and both rebuild the answer with the UE's address and port. */
static void t_frag(void **state)
{
	struct fx *f = fx_open();
	uint8_t d[1600], fr[2][1600], got[1600], q[1600], want[1600];
	size_t fl[2], dn;
	struct run r;
	uint16_t port, id6[2];

	(void)state;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	session(f, 2, "10.45.0.3", true, GNB_ADDR);
	dn = pkt_inner_udp4(d, ip("10.45.0.2"), ip("203.0.113.5"), 9000, RPORT, 992, 1);
	d[4] = 0x12;   /* ID 0x1234 */
	d[5] = 0x34;
	fl[0] = frag4(fr[0], d, dn, 0, 512);
	fl[1] = frag4(fr[1], d, dn, 512, dn - PKT_IP - 512);
	memset(got, 0, sizeof(got));
	for (int i = 1; i >= 0; i--) {
		ul(f, 1, fr[i], fl[i], &r);
		assert_int_equal(r.action, XDP_REDIRECT);
		assert_int_equal(r.out_len, PKT_ETH + fl[i]);
		assert_memory_equal(r.out + PKT_ETH + 12, (uint32_t[]){ ip(NAT_ADDR) }, 4);
		id6[i] = (uint16_t)(r.out[PKT_ETH + 4] << 8 | r.out[PKT_ETH + 5]);
		assert_int_equal(unfrag4(got, r.out + PKT_ETH, fl[i]), i ? 512 : 0);
		pcap_eth(r.out, r.out_len);
	}
	assert_int_equal(id6[0], id6[1]);
	assert_int_equal(cnt(f, UPF_CNT_NAT_FRAG_UL), 2);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 1);
	/* The receiver's reassembly: the whole datagram, translated, its UDP checksum right. */
	got[2] = (uint8_t)(dn >> 8);
	got[3] = (uint8_t)dn;
	got[6] = got[7] = 0;
	port = (uint16_t)(got[PKT_IP] << 8 | got[PKT_IP + 1]);
	memcpy(want, d, dn);
	memcpy(want + 12, (uint32_t[]){ ip(NAT_ADDR) }, 4);
	assert_memory_equal(got + 12, want + 12, 8);
	assert_memory_equal(got + PKT_IP + 2, want + PKT_IP + 2, 4);   /* the remote port, the length */
	assert_memory_equal(got + PKT_IP + PKT_UDP, want + PKT_IP + PKT_UDP, dn - PKT_IP - PKT_UDP);
	got[10] = got[11] = 0;
	uint16_t c = pkt_csum(got, PKT_IP);
	got[10] = (uint8_t)(c >> 8);
	got[11] = (uint8_t)c;
	assert_true(pkt_csum4_ok(got, dn));

	/* Another UE, the same ID, the same remote: another ID on N6. */
	d[12 + 3] = 3;
	d[10] = d[11] = 0;
	c = pkt_csum(d, PKT_IP);
	d[10] = (uint8_t)(c >> 8);
	d[11] = (uint8_t)c;
	fl[1] = frag4(fr[1], d, dn, 512, dn - PKT_IP - 512);
	ul(f, 2, fr[1], fl[1], &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_not_equal((uint16_t)(r.out[PKT_ETH + 4] << 8 | r.out[PKT_ETH + 5]), id6[0]);

	/* A protocol NAT does not follow is dropped, fragment or not. */
	fr[1][9] = 47;
	ul(f, 2, fr[1], fl[1], &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DROP_PROTO), 1);

	/* The answer, 2 fragments. */
	dn = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, port, 992, 1);
	q[4] = 0x77;
	q[5] = 0x01;
	fl[0] = frag4(fr[0], q, dn, 0, 512);
	fl[1] = frag4(fr[1], q, dn, 512, dn - PKT_IP - 512);
	dl(f, fr[1], fl[1], &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DL_FRAG), 1);
	memset(got, 0, sizeof(got));
	for (int i = 0; i < 2; i++) {
		dl(f, fr[i], fl[i], &r);
		assert_int_equal(r.action, XDP_REDIRECT);
		assert_int_equal(r.out_len, ENCAP + fl[i]);
		assert_int_equal(pkt_rd32(r.out + PKT_ETH + PKT_IP + PKT_UDP + 4), 0x101);
		assert_memory_equal(r.out + ENCAP + 16, (uint32_t[]){ ip("10.45.0.2") }, 4);
		unfrag4(got, r.out + ENCAP, fl[i]);
		pcap_eth(r.out, r.out_len);
	}
	assert_int_equal(cnt(f, UPF_CNT_NAT_FRAG_DL), 2);
	pkt_inner_udp4(want, ip("203.0.113.5"), ip("10.45.0.2"), RPORT, 9000, 992, 1);
	got[2] = (uint8_t)(dn >> 8);
	got[3] = (uint8_t)dn;
	got[6] = got[7] = 0;
	got[10] = got[11] = 0;
	c = pkt_csum(got, PKT_IP);
	got[10] = (uint8_t)(c >> 8);
	got[11] = (uint8_t)c;
	assert_memory_equal(got + 12, want + 12, dn - 12);
	assert_true(pkt_csum4_ok(got, dn));
}

/* upf_session_remove takes the session's connections with it. */
static void t_remove(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], q[1600];
	struct run r;
	size_t n;
	uint16_t pa;

	(void)state;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	session(f, 2, "10.45.0.3", true, GNB_ADDR);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 1000, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	pa = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_tcp(p, ip("10.45.0.2"), ip("203.0.113.5"), 1001, 80, 0x02, 1, 0);
	ul(f, 1, p, n, &r);
	ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_udp4(p, ip("10.45.0.3"), ip("203.0.113.5"), 1000, RPORT, 10, 1);
	ul(f, 2, p, n, &r);
	ul_nat_ok(&r, p, n, 20, 1024, 65535);
	assert_int_equal(upf_session_remove(f->u, 1), 0);
	assert_int_equal(cnt(f, UPF_STAT_NAT_REMOVED), 2);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 1);
	/* A new session on the same UE address gets nothing of the old one's. */
	session(f, 3, "10.45.0.2", true, GNB_ADDR);
	n = pkt_inner_udp4(q, ip("203.0.113.5"), ip(NAT_ADDR), RPORT, pa, 10, 1);
	dl(f, q, n, &r);
	assert_int_equal(r.action, XDP_PASS);
}

/* ---- Hairpinning (RFC 4787 6 REQ-9, RFC 5382 REQ-8, RFC 5508 REQ-7) ----
 * UE A (session 1, 10.45.0.2, TEID 0x101 toward the gNB) and UE B (session 2, 10.45.0.3, TEID
 * 0x102), both behind NAT_ADDR. B makes a mapping toward a server; A sends to NAT_ADDR and B's
 * mapped port: B's tunnel receives it from NAT_ADDR and A's mapped port (REQ-9 b), with every
 * checksum equal to a full recomputation (dl_nat_ok compares with the packet built from
 * scratch). */
#define HP_A "10.45.0.2"
#define HP_B "10.45.0.3"

/* The source port (or identifier at off) the hairpinned packet in r's tunnel carries. */
static uint16_t hp_port_of(const struct run *r, size_t off)
{
	const uint8_t *o = r->out + ENCAP;

	assert_true(r->out_len > ENCAP + off + 2);
	return (uint16_t)(o[off] << 8 | o[off + 1]);
}

static void t_hairpin_udp(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], want[1600];
	struct run r;
	size_t n;
	uint16_t pa, pb;

	(void)state;
	session(f, 1, HP_A, true, GNB_ADDR);
	session(f, 2, HP_B, true, GNB_ADDR);
	n = pkt_inner_udp4(p, ip(HP_B), ip("203.0.113.5"), 7000, RPORT, 40, 1);
	ul(f, 2, p, n, &r);
	pb = ul_nat_ok(&r, p, n, 20, 1024, 65535);

	/* A -> NAT_ADDR:pb reaches B:7000 from NAT_ADDR:pa, never N6. */
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6000, pb, 33, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	pa = hp_port_of(&r, 20);
	assert_true(pa >= 1024);
	pkt_inner_udp4(want, ip(NAT_ADDR), ip(HP_B), pa, 7000, 33, 1);
	dl_nat_ok(&r, want, n, 0x102);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 2);      /* A's mapping made on the way */
	assert_int_equal(cnt(f, UPF_CNT_NAT_UL), 2);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 1);       /* only B's first packet went out */

	/* B answers NAT_ADDR:pa: A receives it from NAT_ADDR:pb (B's one mapping, REQ-1 / 9 b). */
	n = pkt_inner_udp4(p, ip(HP_B), ip(NAT_ADDR), 7000, pa, 21, 1);
	ul(f, 2, p, n, &r);
	pkt_inner_udp4(want, ip(NAT_ADDR), ip(HP_A), pb, 6000, 21, 1);
	dl_nat_ok(&r, want, n, 0x101);
	/* Both ways again, now on the exact connections; without a UDP checksum it stays 0. */
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6000, pb, 17, 0);
	ul(f, 1, p, n, &r);
	pkt_inner_udp4(want, ip(NAT_ADDR), ip(HP_B), pa, 7000, 17, 0);
	dl_nat_ok(&r, want, n, 0x102);
	assert_int_equal(r.out[ENCAP + 26], 0);
	assert_int_equal(r.out[ENCAP + 27], 0);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 3);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 3);

	/* A to its own mapping (RFC 4787 REQ-9: "or of A itself"). */
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6000, pa, 12, 1);
	ul(f, 1, p, n, &r);
	pkt_inner_udp4(want, ip(NAT_ADDR), ip(HP_A), pa, 6000, 12, 1);
	dl_nat_ok(&r, want, n, 0x101);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 4);

	/* A port nobody holds (below the range: never handed out): dropped, counted, and no
	 * mapping made for A. */
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6001, 1000, 12, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN_NO_MAP), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 4);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 4);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD), 4);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 1);
	/* A fragment to NAT_ADDR is not hairpinned (no ports in the later ones). */
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6000, pb, 12, 1);
	p[6] = 0x20;   /* MF */
	p[10] = p[11] = 0;
	uint16_t c = pkt_csum(p, PKT_IP);

	p[10] = (uint8_t)(c >> 8);
	p[11] = (uint8_t)c;
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DROP_PROTO), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 4);
	/* A UDP header cut short (4 of its 8 octets): no port to look up, dropped as a bad inner
	 * packet before any mapping is looked at. */
	uint64_t inner0 = cnt(f, UPF_CNT_DROP_INNER);

	n = pkt_ipv4(p, ip(HP_A), ip(NAT_ADDR), 17, 4);
	memset(p + n, 0x11, 4);
	ul(f, 1, p, n + 4, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_INNER), inner0 + 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN_NO_MAP), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 4);
}

static void t_hairpin_tcp(void **state)
{
	struct fx *f = fx_open_p(20000, 20999, 0);
	uint8_t p[1600], want[1600];
	struct run r;
	size_t n;
	uint16_t pa, pb;

	(void)state;
	session(f, 1, HP_A, true, GNB_ADDR);
	session(f, 2, HP_B, true, GNB_ADDR);
	/* B listens behind a mapping it made toward a server (its SYN). */
	n = pkt_inner_tcp(p, ip(HP_B), ip("203.0.113.80"), 51000, 443, 0x02, 100, 0);
	ul(f, 2, p, n, &r);
	pb = ul_nat_ok(&r, p, n, 20, 20000, 20999);
	/* A's SYN to NAT_ADDR:pb, B's SYN-ACK, A's data. */
	n = pkt_inner_tcp(p, ip(HP_A), ip(NAT_ADDR), 52000, pb, 0x02, 7000, 0);
	ul(f, 1, p, n, &r);
	pa = hp_port_of(&r, 20);
	assert_true(pa >= 20000 && pa <= 20999);
	pkt_inner_tcp(want, ip(NAT_ADDR), ip(HP_B), pa, 51000, 0x02, 7000, 0);
	dl_nat_ok(&r, want, n, 0x102);
	n = pkt_inner_tcp(p, ip(HP_B), ip(NAT_ADDR), 51000, pa, 0x12, 9000, 0);
	ul(f, 2, p, n, &r);
	pkt_inner_tcp(want, ip(NAT_ADDR), ip(HP_A), pb, 52000, 0x12, 9000, 0);
	dl_nat_ok(&r, want, n, 0x101);
	n = pkt_inner_tcp(p, ip(HP_A), ip(NAT_ADDR), 52000, pb, 0x18, 7001, 501);
	ul(f, 1, p, n, &r);
	pkt_inner_tcp(want, ip(NAT_ADDR), ip(HP_B), pa, 51000, 0x18, 7001, 501);
	dl_nat_ok(&r, want, n, 0x102);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 3);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 3);
	/* A SYN to a port in the range that nobody holds. */
	n = pkt_inner_tcp(p, ip(HP_A), ip(NAT_ADDR), 52001, pb == 20999 ? 20998 : pb + 1, 0x02, 1, 0);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN_NO_MAP), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_NEW), 3);
}

static void t_hairpin_icmp(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600], want[1600], data[24];
	struct run r;
	size_t n;
	uint16_t ib;

	(void)state;
	for (int i = 0; i < 24; i++)
		data[i] = (uint8_t)(0x41 + i);
	session(f, 1, HP_A, true, GNB_ADDR);
	session(f, 2, HP_B, true, GNB_ADDR);
	n = pkt_icmp4(p, ip(HP_B), ip("203.0.113.9"), 8, 0, 0x4444, 1, data, sizeof(data));
	ul(f, 2, p, n, &r);
	ib = ul_nat_ok(&r, p, n, 24, 1024, 65535);
	/* A's echo request to NAT_ADDR with B's mapped identifier: B gets it from NAT_ADDR with
	 * its own identifier. */
	n = pkt_icmp4(p, ip(HP_A), ip(NAT_ADDR), 8, 0, ib, 5, data, sizeof(data));
	ul(f, 1, p, n, &r);
	pkt_icmp4(want, ip(NAT_ADDR), ip(HP_B), 8, 0, 0x4444, 5, data, sizeof(data));
	dl_nat_ok(&r, want, n, 0x102);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 1);
	/* An identifier nobody holds. */
	n = pkt_icmp4(p, ip(HP_A), ip(NAT_ADDR), 8, 0, 77, 5, data, sizeof(data));
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN_NO_MAP), 1);
	/* An echo reply to NAT_ADDR is no query to follow (as toward N6). */
	n = pkt_icmp4(p, ip(HP_B), ip(NAT_ADDR), 0, 0, 0x4444, 5, data, sizeof(data));
	ul(f, 2, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_DROP_PROTO), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 1);
}

/* The holder goes with its last connection: after the sweep removed B's mapping (30 s
 * unanswered UDP), NAT_ADDR:pb holds nothing; so does the mapping of a removed session. And a
 * holder whose session is idle has the hairpinned packet buffered, as any downlink. */
static void t_hairpin_gone(void **state)
{
	struct fx *f = fx_open();
	uint8_t p[1600];
	struct run r;
	size_t n;
	uint16_t pb, pc;
	uint64_t t0 = upf_mono_ns();

	(void)state;
	session(f, 1, HP_A, true, GNB_ADDR);
	session(f, 2, HP_B, true, GNB_ADDR);
	session(f, 3, "10.45.0.4", true, GNB_ADDR);
	n = pkt_inner_udp4(p, ip(HP_B), ip("203.0.113.5"), 7000, RPORT, 10, 1);
	ul(f, 2, p, n, &r);
	pb = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6000, pb, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 1);
	assert_int_equal(upf_nat_sweep(f->u, t0 + 40 * 1000000000ull), 2);
	assert_int_equal(cnt(f, UPF_STAT_NAT_ACTIVE), 0);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN_NO_MAP), 1);

	/* Session 3's mapping, then the session removed: its port holds nothing. */
	n = pkt_inner_udp4(p, ip("10.45.0.4"), ip("203.0.113.5"), 7100, RPORT, 10, 1);
	ul(f, 3, p, n, &r);
	pc = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6002, pc, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 2);
	assert_int_equal(upf_session_remove(f->u, 3), 0);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN_NO_MAP), 2);

	/* B idle (user plane deactivated): the hairpinned packet is buffered for it. */
	n = pkt_inner_udp4(p, ip(HP_B), ip("203.0.113.5"), 7000, RPORT, 10, 1);
	ul(f, 2, p, n, &r);
	pb = ul_nat_ok(&r, p, n, 20, 1024, 65535);
	struct upf_session_rule idle = {
		.ul_teid = 3, .ue_addr = ip(HP_B), .gnb_addr = ip(GNB_ADDR), .gnb_teid = 0x102, .qfi = 9,
		.nat = true, .dl_state = UPF_DL_BUFFER,
	};
	struct upf_session_stats st;

	assert_int_equal(upf_session_modify(f->u, 2, &idle), 0);
	n = pkt_inner_udp4(p, ip(HP_A), ip(NAT_ADDR), 6000, pb, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DL_BUFFERED), 1);
	assert_int_equal(cnt(f, UPF_CNT_NAT_HAIRPIN), 3);
	assert_true(upf_process(f->u) >= 1);   /* the ring read: buffered in user space */
	assert_int_equal(upf_session_stats(f->u, 2, &st), 0);
	assert_int_equal(st.buffered, 1);
	assert_int_equal(upf_session_stats(f->u, 1, &st), 0);
	assert_int_equal(st.ul_pkts, 3);    /* A's three hairpinned packets, none dropped as A's */
	assert_int_equal(st.ul_drops, 2);   /* the two without a holder */
}

static void t_api(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip(POOL), .ue_pool_plen = 16,
		.max_sessions = 16,
	};
	struct upf_session_rule rule = {
		.ul_teid = 1, .ue_addr = ip("10.45.0.2"), .gnb_addr = ip(GNB_ADDR), .gnb_teid = 1, .nat = true,
	};
	struct upf *u;

	(void)state;
	/* No NAT address: a rule asking NAT is refused. */
	assert_int_equal(upf_open(&p, &u), 0);
	assert_int_equal(upf_session_create(u, 0, &rule), -EINVAL);
	rule.nat = false;
	assert_int_equal(upf_session_create(u, 0, &rule), 0);
	upf_close(u);

	p.nat_addr = ip(NAT_ADDR);
	p.nat_port_lo = 2000;
	p.nat_port_hi = 1999;
	assert_int_equal(upf_open(&p, &u), -EINVAL);
	p.nat_port_lo = 0;
	p.nat_port_hi = 100;
	assert_int_equal(upf_open(&p, &u), -EINVAL);
	p.nat_port_lo = p.nat_port_hi = 0;
	p.nat_addr = ip("10.45.1.1");    /* inside the UE pool */
	assert_int_equal(upf_open(&p, &u), -EINVAL);
	p.nat_addr = ip(NAT_ADDR);
	p.nat_max_conns = 1u << 25;
	assert_int_equal(upf_open(&p, &u), -ERANGE);
	p.nat_max_conns = 0;
	assert_int_equal(upf_open(&p, &u), 0);
	/* NAT is fixed for the session's life. */
	rule.nat = true;
	assert_int_equal(upf_session_create(u, 0, &rule), 0);
	rule.nat = false;
	assert_int_equal(upf_session_modify(u, 0, &rule), -EINVAL);
	rule.nat = true;
	rule.gnb_teid = 2;
	assert_int_equal(upf_session_modify(u, 0, &rule), 0);
	assert_string_equal(upf_counter_name(UPF_CNT_NAT_FULL), "drop_nat_full");
	assert_string_equal(upf_counter_name(UPF_STAT_NAT_ACTIVE), "nat_active");
	/* Named in upf/upf.c counter_names (non-NULL checked first: a NULL would crash strcmp). */
	assert_non_null(upf_counter_name(UPF_CNT_NAT_HAIRPIN));
	assert_string_equal(upf_counter_name(UPF_CNT_NAT_HAIRPIN), "nat_hairpin");
	assert_non_null(upf_counter_name(UPF_CNT_NAT_HAIRPIN_NO_MAP));
	assert_string_equal(upf_counter_name(UPF_CNT_NAT_HAIRPIN_NO_MAP), "drop_nat_no_mapping");
	upf_close(u);
}

/* One interface for N3 and N6: the NAT address is the N3 address, whose UDP 2152 is GTP-U; that
 * port is never handed out (range 2152..2153: one port left). */
static void t_nat_on_n3(void **state)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct upf_params pa = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip(POOL), .ue_pool_plen = 16,
		.max_sessions = 16, .nat_addr = ip(N3_ADDR), .nat_port_lo = 2152, .nat_port_hi = 2153,
	};
	uint8_t p[1600];
	struct run r;
	size_t n;

	(void)state;
	assert_non_null(f);
	assert_int_equal(upf_open(&pa, &f->u), 0);
	f->sock = -1;
	F = f;
	session(f, 1, "10.45.0.2", true, GNB_ADDR);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 2152, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(pkt_rd32(r.out + PKT_ETH + 12), ntohl(ip(N3_ADDR)));
	assert_int_equal(r.out[PKT_ETH + 20] << 8 | r.out[PKT_ETH + 21], 2153);
	assert_true(pkt_csum4_ok(r.out + PKT_ETH, n));
	pcap_eth(r.out, r.out_len);
	n = pkt_inner_udp4(p, ip("10.45.0.2"), ip("203.0.113.5"), 2153, RPORT, 10, 1);
	ul(f, 1, p, n, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_NAT_PRESSURE), 1);
}

/* tshark reads every frame: nothing malformed, no error, every IPv4 / TCP / UDP / ICMP
 * checksum verified good (none bad), translated addresses where they belong. */
static int tshark_check(void)
{
	const char *ck = "-o ip.check_checksum:TRUE -o udp.check_checksum:TRUE -o tcp.check_checksum:TRUE ";
	char a[512];
	int bad = 0;

	if (!W) {
		fprintf(stderr, "upf_nat: tshark check SKIPPED (no tshark given)\n");
		return 0;
	}
	if (pcapw_close(W))
		return -1;
	W = NULL;
	fprintf(stderr, "upf_nat: %d frames in %s\n", pcap_frames, pcap_path);
#define TS(cond, what) do { if (!(cond)) { fprintf(stderr, "tshark check failed: %s\n", what); bad++; } } while (0)
	TS(tshark_expert(tshark_path, pcap_path, ck) == 0, "expert errors");
	snprintf(a, sizeof(a), "%s -Y _ws.malformed", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 0, "malformed");
	TS(tshark_lines(tshark_path, pcap_path, "", NULL) == pcap_frames, "frame count");
	snprintf(a, sizeof(a), "%s -Y 'ip.checksum.status == 0 || udp.checksum.status == 0 || "
		 "tcp.checksum.status == 0 || icmp.checksum.status == 0'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 0, "bad checksums");
	snprintf(a, sizeof(a), "%s -Y '!gtp && ip.src == " NAT_ADDR " && udp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) >= 10, "translated UDP uplink, checksum good");
	snprintf(a, sizeof(a), "%s -Y '!gtp && ip.src == " NAT_ADDR " && tcp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) >= 4, "translated TCP uplink, checksum good");
	snprintf(a, sizeof(a), "%s -Y '!gtp && ip.src == " NAT_ADDR " && icmp.type == 8 && icmp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 2, "translated echo request");
	/* Hairpinned (RFC 4787 REQ-9): inside GTP-U toward a UE, from NAT_ADDR, checksums good. */
	snprintf(a, sizeof(a), "%s -Y 'gtp && ip.src == " NAT_ADDR " && ip.dst == 10.45.0.0/16 && "
		 "udp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 3, "hairpinned UDP, checksum good");
	snprintf(a, sizeof(a), "%s -Y 'gtp && ip.src == " NAT_ADDR " && ip.dst == 10.45.0.0/16 && "
		 "tcp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 3, "hairpinned TCP, checksum good");
	snprintf(a, sizeof(a), "%s -Y 'gtp && ip.src == " NAT_ADDR " && ip.dst == 10.45.0.3 && icmp.type == 8 && "
		 "icmp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 1, "hairpinned echo request, checksum good");
	snprintf(a, sizeof(a), "%s -Y 'gtp && ip.dst == 10.45.0.0/16 && tcp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) >= 2, "TCP downlink to the UE in GTP-U");
	snprintf(a, sizeof(a), "%s -Y 'gtp && icmp.type == 0 && ip.dst == 10.45.0.4 && icmp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 1, "echo reply to the UE");
	snprintf(a, sizeof(a), "%s -Y 'gtp && (icmp.type == 3 || icmp.type == 11) && icmp.checksum.status == 1 && "
		 "ip.src == 10.45.0.2 && udp.srcport == 9000 && udp.checksum.status == 1'", ck);
	TS(tshark_lines(tshark_path, pcap_path, a, NULL) == 2, "ICMP errors translated back, quoted packet the UE's");
#undef TS
	return bad ? -1 : 0;
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
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
	int rc = tn_require_root_bpf("upf_nat");

	if (rc)
		return rc;
	if (argc > 2 && tshark_require(argv[1], "decode the NAT frames of the UPF") == 0) {
		tshark_path = argv[1];
		snprintf(pcap_path, sizeof(pcap_path), "%s/upf_nat.pcap", argv[2]);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(t_udp, fx_teardown),
		cmocka_unit_test_teardown(t_tcp, fx_teardown),
		cmocka_unit_test_teardown(t_icmp, fx_teardown),
		cmocka_unit_test_teardown(t_two_ues_and_plain, fx_teardown),
		cmocka_unit_test_teardown(t_unknown_dl, fx_teardown),
		cmocka_unit_test_teardown(t_full, fx_teardown),
		cmocka_unit_test_teardown(t_expiry, fx_teardown),
		cmocka_unit_test_teardown(t_icmp_err, fx_teardown),
		cmocka_unit_test_teardown(t_frag, fx_teardown),
		cmocka_unit_test_teardown(t_quota, fx_teardown),
		cmocka_unit_test_teardown(t_starve, fx_teardown),
		cmocka_unit_test_teardown(t_limits_off, fx_teardown),
		cmocka_unit_test_teardown(t_remove, fx_teardown),
		cmocka_unit_test_teardown(t_nat_on_n3, fx_teardown),
		cmocka_unit_test_teardown(t_hairpin_udp, fx_teardown),
		cmocka_unit_test_teardown(t_hairpin_tcp, fx_teardown),
		cmocka_unit_test_teardown(t_hairpin_icmp, fx_teardown),
		cmocka_unit_test_teardown(t_hairpin_gone, fx_teardown),
		cmocka_unit_test(t_api),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
