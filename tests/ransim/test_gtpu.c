/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gtpu (gtpu.h) on its own, no root: the simulated gNB's N3 socket on 127.0.0.73:2152,
 * a stand-in UPF socket on 127.0.0.74:2152.
 *  - uplink: every G-PDU byte-checked (TS 29.281 5.1 header with E, length, the UE's TEID;
 *    TS 38.415 5.5.2.2 UL PDU SESSION INFORMATION with the UE's QFI; inner IPv4 header and
 *    checksum, UE source, destination, UDP ports and length), round robin over the UEs with
 *    a session only, the counters equal to what arrived;
 *  - downlink: G-PDUs with and without extension headers on a DL TEID we gave, an unknown
 *    TEID, the TEID of a UE without a session, a wrong inner destination, an Error
 *    Indication, an Echo Request, a bad length: each counted where it belongs;
 *  - IPv6 (TS 23.501 5.8.2.2.2, RFC 4861): one Router Solicitation per IPv6 session, nothing
 *    sent before a Router Advertisement gives the /64, then IPv6/UDP from prefix::IID with a
 *    valid checksum; a bad RA counted and ignored; IPv6 downlink counted;
 *  - no allocation while sending and receiving (nomalloc);
 *  - IPv6 N3 (TS 38.414 5.1): the gNB's AF_INET6 socket on [::1]:2152, a stand-in UPF on
 *    another local IPv6 address (skipped where the host has none): the same G-PDU bytes, a UE
 *    whose UPF address is IPv4 never sent for, downlink counted as over IPv4, no allocation;
 *  - the TransportLayerAddress (TS 38.413 9.3.2.4): the gNB's DL tunnel is 32 bits for IPv4
 *    N3, 128 for IPv6; the core's UL tunnel of 32, 128 or 160 bits gives each gNB the address
 *    of its family, or fails the UE (setup_transfer_n3_family, setup_transfer_n3_addr).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <ifaddrs.h>
#include <net/if.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sched.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/ev.h"
#include "gtpu.h"
#include "rs_int.h"
#include "testlib.h"

#define GNB_ADDR "127.0.0.73"
#define UPF_ADDR "127.0.0.74"
#define N_UES 3
#define SIZE 60

struct fx {
	struct ev_loop *loop;
	struct ransim *rs;
	struct rs_gtpu *g;
	int upf;                   /* the stand-in UPF's socket */
	struct sockaddr_storage gnb;
};

static uint32_t ue_addr(unsigned i)
{
	return htonl(0x0a2d0001u + i);   /* 10.45.0.1 + i */
}

static bool fx_v6;   /* test_ipv6: IPv4v6 sessions, traffic to DST6 */
#define DST6 "2001:db8:99::7"
/* test_n3_ipv6: the gNB on [GNB6]:2152, the UPF on [fx_upf6]:2152 (another local address;
 * "": none here, the UPF socket is then an unbound one that only sends) */
static bool fx_n3v6;
#define GNB6 "::1"
static char fx_upf6[INET6_ADDRSTRLEN];

/* The stand-in UPF's socket on addr:2152 (or any port when addr is ""). */
static int upf_socket(int fam, const char *addr)
{
	struct sockaddr_storage ss;
	struct sockaddr_in *v4 = (struct sockaddr_in *)&ss;
	struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&ss;
	int fd = socket(fam, SOCK_DGRAM | SOCK_NONBLOCK, 0), one = 1;

	assert_true(fd >= 0);
	if (!addr[0])
		return fd;
	memset(&ss, 0, sizeof(ss));
	if (fam == AF_INET6) {
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &one, sizeof(one));
		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(RS_GTPU_PORT);
		assert_int_equal(inet_pton(AF_INET6, addr, &v6->sin6_addr), 1);
	} else {
		v4->sin_family = AF_INET;
		v4->sin_port = htons(RS_GTPU_PORT);
		assert_int_equal(inet_pton(AF_INET, addr, &v4->sin_addr), 1);
	}
	assert_int_equal(bind(fd, (struct sockaddr *)&ss, sizeof(ss)), 0);
	return fd;
}

static void fx_open(struct fx *f, uint32_t pps, uint32_t dst)
{
	struct rs_gtpu_cfg c = { .dst = dst, .dst_port = 7, .size = SIZE, .pps = pps, .has_dst6 = fx_v6 };
	const char *upf = fx_n3v6 ? fx_upf6 : UPF_ADDR;
	int err, i;

	inet_pton(AF_INET6, DST6, c.dst6);

	memset(f, 0, sizeof(*f));
	f->loop = ev_loop_new(&err);
	assert_non_null(f->loop);
	f->rs = calloc(1, sizeof(*f->rs));
	assert_non_null(f->rs);
	f->rs->loop = f->loop;
	f->rs->cfg.n_ues = N_UES;
	f->rs->cfg.n_gnbs = 1;        /* every UE on gNB 0: its per-gNB counters (Xn handover) */
	f->rs->gnbs[0].rs = f->rs;
	f->rs->ues = calloc(N_UES, sizeof(*f->rs->ues));
	assert_non_null(f->rs->ues);
	for (i = 0; i < N_UES; i++) {
		struct rs_ue *ue = &f->rs->ues[i];

		ue->rs = f->rs;
		ue->gnb = &f->rs->gnbs[0];
		ue->dl_old_gnb = -1;
		ue->idx = (uint32_t)i;
		ue->ue_addr = ue_addr((unsigned)i);
		ue->qfi = (uint8_t)(5 + i);
		if (upf[0])
			assert_int_equal(rs_n3_addr_parse(upf, &ue->n3_upf_addr), 0);
		ue->n3_ul_teid = 0x100u + (uint32_t)i;
		ue->sess_up = i != 1;     /* UE 1: no session, never sends, its DL TEID unknown */
		if (fx_v6) {
			ue->sess_type = 3;    /* IPv4v6 */
			memset(ue->iid6, 0x10 + i, 8);
		}
	}
	f->upf = upf_socket(fx_n3v6 ? AF_INET6 : AF_INET, upf);
	assert_int_equal(rs_n3_addr_parse(fx_n3v6 ? GNB6 : GNB_ADDR, &c.gnb_n3), 0);
	f->g = rs_gtpu_new(f->rs, &c, &err);
	assert_non_null(f->g);
	assert_true(rs_n3_addr_eq(&f->rs->gnb_n3_addr, &c.gnb_n3));
	memset(&f->gnb, 0, sizeof(f->gnb));
	if (fx_n3v6) {
		struct sockaddr_in6 *v6 = (struct sockaddr_in6 *)&f->gnb;

		v6->sin6_family = AF_INET6;
		v6->sin6_port = htons(RS_GTPU_PORT);
		memcpy(&v6->sin6_addr, c.gnb_n3.a, 16);
	} else {
		struct sockaddr_in *v4 = (struct sockaddr_in *)&f->gnb;

		v4->sin_family = AF_INET;
		v4->sin_port = htons(RS_GTPU_PORT);
		memcpy(&v4->sin_addr, c.gnb_n3.a, 4);
	}
}

static void fx_close(struct fx *f)
{
	rs_gtpu_free(f->g);
	if (f->upf >= 0)
		close(f->upf);
	free(f->rs->ues);
	free(f->rs);
	ev_loop_free(f->loop);
}

static uint16_t sum16(const uint8_t *p, size_t n)
{
	uint32_t s = 0;

	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* Run the loop until the UPF socket got want G-PDUs (bounded: fails after 20 s). */
static unsigned upf_collect(struct fx *f, uint8_t (*pkts)[512], int *lens, unsigned want)
{
	unsigned n = 0;
	int i;

	for (i = 0; i < 4000 && n < want; i++) {
		ssize_t l;

		ev_run_once(f->loop, 5);
		while (n < want && (l = recv(f->upf, pkts[n], sizeof(pkts[n]), 0)) > 0)
			lens[n++] = (int)l;
	}
	return n;
}

/* One uplink G-PDU of ue with an inner IPv4/UDP packet to dst, byte by byte. */
static void check_ul(const uint8_t *p, int len, const struct rs_ue *ue, uint32_t dst)
{
	const uint8_t *ip = p + 16, *udp = ip + 20;
	uint32_t teid = (uint32_t)p[4] << 24 | (uint32_t)p[5] << 16 | (uint32_t)p[6] << 8 | p[7];

	assert_int_equal(len, 16 + SIZE);
	assert_int_equal(p[0], 0x34);                 /* version 1, PT, E */
	assert_int_equal(p[1], 255);                  /* G-PDU */
	assert_int_equal(p[2] << 8 | p[3], SIZE + 8); /* after the mandatory 8 octets */
	assert_int_equal(teid, ue->n3_ul_teid);
	assert_int_equal(p[8] | p[9] | p[10], 0);     /* sequence number, N-PDU number */
	assert_int_equal(p[11], 0x85);                /* PDU Session Container */
	assert_int_equal(p[12], 1);                   /* 4 octets */
	assert_int_equal(p[13], 0x10);                /* PDU type 1: UL PDU SESSION INFORMATION */
	assert_int_equal(p[14], ue->qfi);
	assert_int_equal(p[15], 0);                   /* no next extension header */
	assert_int_equal(ip[0], 0x45);
	assert_int_equal(ip[2] << 8 | ip[3], SIZE);
	assert_int_equal(ip[9], IPPROTO_UDP);
	assert_int_equal(sum16(ip, 20), 0xffff);      /* header checksum verifies */
	assert_memory_equal(ip + 12, &ue->ue_addr, 4);
	assert_memory_equal(ip + 16, &dst, 4);
	assert_int_equal(udp[2] << 8 | udp[3], 7);
	assert_int_equal(udp[4] << 8 | udp[5], SIZE - 20);
}

static void test_uplink(void **state)
{
	static uint8_t pkts[40][512];
	int lens[40];
	struct fx f;
	struct rs_gtpu_stats st;
	uint32_t dst;
	unsigned n, i;

	(void)state;
	inet_pton(AF_INET, "192.0.2.7", &dst);
	fx_open(&f, 2000, dst);
	n = upf_collect(&f, pkts, lens, 40);
	assert_int_equal(n, 40);
	rs_gtpu_stop(f.g);
	/* round robin over UEs 0 and 2 (UE 1 has no session) */
	for (i = 0; i < n; i++)
		check_ul(pkts[i], lens[i], &f.rs->ues[i % 2 ? 2 : 0], dst);
	/* what was sent is what arrived (nothing in flight on loopback once read) */
	for (i = 0; i < 20; i++) {
		ev_run_once(f.loop, 1);
		while (recv(f.upf, pkts[0], sizeof(pkts[0]), 0) > 0)
			n++;
	}
	rs_gtpu_get_stats(f.g, &st);
	assert_int_equal(st.ul_packets, n);
	assert_int_equal(st.ul_bytes, (uint64_t)n * SIZE);
	assert_int_equal(st.ul_send_errors, 0);
	assert_true(st.ul_seconds > 0);
	fx_close(&f);
}

/* A downlink G-PDU toward the gNB: TEID, inner destination, with or without the container. */
static size_t dl_gpdu(uint8_t *p, uint32_t teid, uint32_t inner_dst, bool ext)
{
	size_t h = ext ? 16 : 8, inner = 40;

	memset(p, 0, h + inner);
	p[0] = ext ? 0x34 : 0x30;
	p[1] = 255;
	p[2] = (uint8_t)((h - 8 + inner) >> 8);
	p[3] = (uint8_t)(h - 8 + inner);
	p[4] = (uint8_t)(teid >> 24);
	p[5] = (uint8_t)(teid >> 16);
	p[6] = (uint8_t)(teid >> 8);
	p[7] = (uint8_t)teid;
	if (ext) {
		p[11] = 0x85;
		p[12] = 1;
		p[13] = 0x00;   /* DL PDU SESSION INFORMATION */
		p[14] = 5;
	}
	p[h] = 0x45;
	p[h + 3] = (uint8_t)inner;
	memcpy(p + h + 16, &inner_dst, 4);
	return h + inner;
}

static void test_downlink(void **state)
{
	uint8_t p[128];
	struct fx f;
	struct rs_gtpu_stats st = { 0 };
	size_t l;
	int i;

	(void)state;
	fx_open(&f, 0, 0);
	/* UE 2 in an Xn handover: served by gNB 1 (the target), gNB 0's TEID still carries its
	 * downlink until the End Marker (TS 29.281 7.3.2) */
	f.rs->cfg.n_gnbs = 2;
	f.rs->gnbs[1].rs = f.rs;
	f.rs->gnbs[1].idx = 1;
	f.rs->ues[2].gnb = &f.rs->gnbs[1];
	f.rs->ues[2].dl_old_gnb = 0;
#define SEND(len) assert_int_equal(sendto(f.upf, p, (len), 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)(len))
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), ue_addr(0), true);
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(2), ue_addr(2), false);
	SEND(l);
	l = dl_gpdu(p, 0x20000001u, ue_addr(0), true);          /* not one of ours */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(N_UES), ue_addr(0), true); /* past the last UE */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(1), ue_addr(1), true);     /* UE without a session */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), ue_addr(2), true);     /* another UE's packet */
	SEND(l);
	l = dl_gpdu(p, 0, 0, false);
	p[1] = 26;                                               /* Error Indication */
	SEND(l);
	p[1] = 1;                                                /* Echo Request */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), ue_addr(0), true);
	p[3]++;                                                  /* length disagrees */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID_AT(1, 2), ue_addr(2), true); /* UE 2 on its target's TEID */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(2), 0, true);
	p[1] = 254;                                              /* End Marker on the source's TEID */
	p[3] = 8;                                                /* the container only */
	SEND(16);
	l = dl_gpdu(p, RS_GNB_DL_TEID(2), ue_addr(2), true);     /* the source's TEID after it: unknown */
	SEND(l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), 0, true);
	p[1] = 254;                                              /* End Marker where none is due */
	p[3] = 8;
	SEND(16);
	for (i = 0; i < 2000; i++) {
		ev_run_once(f.loop, 5);
		rs_gtpu_get_stats(f.g, &st);
		if (st.dl_packets + st.dl_unknown_teid + st.dl_bad_inner + st.dl_err_ind + st.dl_other >= 11 &&
		    f.rs->st.end_markers + f.rs->st.end_markers_other >= 2)
			break;
	}
	assert_int_equal(st.dl_packets, 3);
	assert_int_equal(st.dl_bytes, 120);
	assert_int_equal(st.dl_unknown_teid, 4);
	assert_int_equal(f.rs->st.end_markers, 1);
	assert_int_equal(f.rs->st.end_markers_other, 1);
	assert_int_equal(f.rs->ues[2].dl_old_gnb, -1);
	assert_int_equal(f.rs->n3[0].dl_packets, 2);             /* UE 0, UE 2 forwarded from the source */
	assert_int_equal(f.rs->n3[1].dl_packets, 1);
	assert_int_equal(f.rs->n3[0].end_markers, 2);
	assert_int_equal(st.dl_bad_inner, 1);
	assert_int_equal(st.dl_err_ind, 1);
	assert_int_equal(st.dl_other, 2);
	assert_int_equal(st.ul_packets, 0);     /* pps 0: counting only */
	/* TS 29.281 7.3.1 (issue 32): each G-PDU on a TEID no UE holds here (not ours, past the last
	 * UE, a UE without a session, the source's TEID after its End Marker) answered with an Error
	 * Indication to the sender's port 2152: TEID 0, S, TEID Data I, GTP-U Peer Address (ours) */
	assert_int_equal(st.err_ind_sent, 4);
	{
		uint8_t m[64];
		const uint8_t want[] = { 0x32, 26, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0,
					 16, 0x20, 0x00, 0x00, 0x01, 133, 0, 4 };
		ssize_t n;

		for (i = 0; i < 200 && (n = recv(f.upf, m, sizeof(m), MSG_DONTWAIT)) < 0; i++)
			ev_run_once(f.loop, 5);
		assert_int_equal(n, (ssize_t)sizeof(want) + 4);
		assert_memory_equal(m, want, sizeof(want));
		assert_int_equal(memcmp(m + 20, f.rs->gnb_n3_addr.a, 4), 0);
	}
	fx_close(&f);
}

static void test_no_alloc(void **state)
{
	static uint8_t pkts[64][512];
	int lens[64];
	uint8_t p[128];
	struct fx f;
	struct rs_gtpu_stats st;
	unsigned n, allocs;
	size_t l;

	(void)state;
	fx_open(&f, 5000, 0);
	assert_int_equal(upf_collect(&f, pkts, lens, 8), 8);   /* warmed up */
	nomalloc_begin();
	n = upf_collect(&f, pkts, lens, 64);
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), ue_addr(0), true);
	for (int i = 0; i < 10; i++)
		sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb));
	for (int i = 0; i < 20; i++)
		ev_run_once(f.loop, 2);
	allocs = nomalloc_end();
	assert_int_equal(n, 64);
	rs_gtpu_get_stats(f.g, &st);
	assert_int_equal(st.dl_packets, 10);
	assert_int_equal(allocs, 0);
	fx_close(&f);
}

/* Both loopback addresses on port 2152 free? (another program may hold 0.0.0.0:2152) */
static int probe(void)
{
	const char *a[2] = { GNB_ADDR, UPF_ADDR };

	for (int i = 0; i < 2; i++) {
		struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(RS_GTPU_PORT) };
		int fd = socket(AF_INET, SOCK_DGRAM, 0), rc;

		inet_pton(AF_INET, a[i], &sa.sin_addr);
		rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof(sa));
		if (rc < 0) {
			printf("SKIP: cannot bind UDP %s:%d here: %s\n", a[i], RS_GTPU_PORT, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -1;
		}
		close(fd);
	}
	return 0;
}

/* RFC 4861 4.2 Router Advertisement to ue's link-local address, one Prefix Information option
 * (4.6.2) of pfx/64 with L and A, in a DL G-PDU on the UE's TEID; bad_csum spoils it. */
static size_t dl_ra(uint8_t *p, const struct rs_ue *ue, const uint8_t pfx[8], bool bad_csum)
{
	uint8_t *ip = p + 8, *icmp = ip + 40, *pio = icmp + 16, src[16] = { 0xfe, 0x80, [15] = 1 }, dst[16] = { 0xfe, 0x80 };
	size_t plen = 16 + 32;
	uint32_t teid = RS_GNB_DL_TEID(ue->idx), s = 0;

	memcpy(dst + 8, ue->iid6, 8);
	memset(p, 0, 8 + 40 + plen);
	p[0] = 0x30;
	p[1] = 255;
	p[3] = (uint8_t)(40 + plen);
	p[4] = (uint8_t)(teid >> 24);
	p[5] = (uint8_t)(teid >> 16);
	p[6] = (uint8_t)(teid >> 8);
	p[7] = (uint8_t)teid;
	ip[0] = 0x60;
	ip[5] = (uint8_t)plen;
	ip[6] = 58;
	ip[7] = 255;
	memcpy(ip + 8, src, 16);
	memcpy(ip + 24, dst, 16);
	icmp[0] = 134;
	icmp[4] = 64;             /* cur hop limit */
	icmp[6] = 0x23;           /* router lifetime 9000 s */
	icmp[7] = 0x28;
	pio[0] = 3;
	pio[1] = 4;
	pio[2] = 64;
	pio[3] = 0xc0;            /* L, A */
	memset(pio + 4, 0xff, 8); /* valid / preferred lifetimes: infinity */
	memcpy(pio + 16, pfx, 8);
	for (int i = 0; i < 16; i += 2)
		s += (uint32_t)(src[i] << 8 | src[i + 1]) + (uint32_t)(dst[i] << 8 | dst[i + 1]);
	s += (uint32_t)plen + 58;
	for (size_t i = 0; i < plen; i += 2)
		s += (uint32_t)(icmp[i] << 8 | icmp[i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	s = ~s & 0xffff;
	icmp[2] = (uint8_t)(s >> 8);
	icmp[3] = (uint8_t)(s ^ (bad_csum ? 1 : 0));
	return 8 + 40 + plen;
}

/* The checksum of an IPv6 packet's upper layer verifies (RFC 8200 8.1) */
static bool csum6_ok(const uint8_t *ip)
{
	size_t plen = (size_t)ip[4] << 8 | ip[5];
	uint32_t s = 0;

	for (int i = 8; i < 40; i += 2)
		s += (uint32_t)(ip[i] << 8 | ip[i + 1]);
	s += (uint32_t)plen + ip[6];
	for (size_t i = 0; i + 1 < plen; i += 2)
		s += (uint32_t)(ip[40 + i] << 8 | ip[40 + i + 1]);
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return s == 0xffff;
}

/* TS 23.501 5.8.2.2.2, RFC 4861 6.3.7: each IPv6 UE sends one Router Solicitation from
 * fe80::IID, sends nothing before an RA gives it its /64, then IPv6/UDP G-PDUs from
 * prefix::IID with a checksum that verifies; a bad RA is counted and ignored; downlink to its
 * address counted as IPv6. */
static void test_ipv6(void **state)
{
	static const uint8_t pfx[8] = { 0x20, 0x01, 0x0d, 0xb8, 0x00, 0x45, 0x00, 0x01 };
	static uint8_t pkts[20][512];
	uint8_t p[256];
	int lens[20];
	struct rs_gtpu_stats st;
	struct fx f;
	unsigned n, rs = 0;
	size_t l;

	(void)state;
	fx_v6 = true;
	fx_open(&f, 2000, 0);
	fx_v6 = false;
	n = upf_collect(&f, pkts, lens, 2);   /* the two UEs with a session: one RS each */
	assert_int_equal(n, 2);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *ip = pkts[i] + 16;

		assert_int_equal(lens[i], 16 + 48);
		assert_int_equal(ip[0] >> 4, 6);
		assert_int_equal(ip[6], 58);
		assert_int_equal(ip[7], 255);             /* RFC 4861 6.1.1 */
		assert_int_equal(ip[8], 0xfe);            /* link-local source */
		assert_int_equal(ip[24], 0xff);           /* ff02::2 */
		assert_int_equal(ip[39], 2);
		assert_int_equal(ip[40], 133);
		assert_true(csum6_ok(ip));
		rs++;
	}
	/* no address yet: nothing more (the next RS only after RTR_SOLICITATION_INTERVAL, 4 s) */
	for (int i = 0; i < 60; i++)
		ev_run_once(f.loop, 5);
	assert_true(recv(f.upf, pkts[0], sizeof(pkts[0]), MSG_DONTWAIT) < 0);
	/* the RA for UE 0; a broken one for UE 2 */
	l = dl_ra(p, &f.rs->ues[0], pfx, false);
	assert_int_equal(sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)l);
	l = dl_ra(p, &f.rs->ues[2], pfx, true);
	assert_int_equal(sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)l);
	n = upf_collect(&f, pkts, lens, 10);
	assert_int_equal(n, 10);
	for (unsigned i = 0; i < n; i++) {
		const uint8_t *ip = pkts[i] + 16, *udp = ip + 40;
		uint8_t src[16], dst[16];

		memcpy(src, pfx, 8);
		memcpy(src + 8, f.rs->ues[0].iid6, 8);
		inet_pton(AF_INET6, DST6, dst);
		assert_int_equal(lens[i], 16 + SIZE);
		assert_int_equal(ip[0] >> 4, 6);
		assert_int_equal(ip[6], IPPROTO_UDP);
		assert_memory_equal(ip + 8, src, 16);     /* only UE 0 has an address */
		assert_memory_equal(ip + 24, dst, 16);
		assert_int_equal(udp[2] << 8 | udp[3], 7);
		assert_true(csum6_ok(ip));
	}
	rs_gtpu_stop(f.g);
	/* downlink IPv6 to UE 0's address */
	memset(p, 0, sizeof(p));
	p[0] = 0x30;
	p[1] = 255;
	p[3] = 48;
	p[7] = (uint8_t)RS_GNB_DL_TEID(0);
	p[4] = (uint8_t)(RS_GNB_DL_TEID(0) >> 24);
	p[8] = 0x60;
	p[13] = 8;
	p[14] = IPPROTO_UDP;
	memcpy(p + 8 + 24, pfx, 8);
	memcpy(p + 8 + 32, f.rs->ues[0].iid6, 8);
	assert_int_equal(sendto(f.upf, p, 56, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), 56);
	for (int i = 0; i < 50; i++)
		ev_run_once(f.loop, 2);
	rs_gtpu_get_stats(f.g, &st);
	assert_int_equal(st.rs_sent, rs);
	assert_int_equal(st.ra_received, 1);
	assert_int_equal(st.ra_bad, 1);
	assert_int_equal(st.ul6_packets, st.ul_packets);
	assert_int_equal(st.dl6_packets, 1);
	assert_int_equal(st.dl_packets, 1);
	assert_int_equal(st.dl_bad_inner, 0);
	fx_close(&f);
}

/* [::1]:2152 free for the gNB, and a second local IPv6 address (global or ULA, up) whose
 * port 2152 is free for the stand-in UPF, into fx_upf6 ("" when the host has none).
 * -1: no IPv6 here at all. */
static int probe6(void)
{
	struct sockaddr_in6 sa = { .sin6_family = AF_INET6, .sin6_port = htons(RS_GTPU_PORT) };
	struct ifaddrs *ifs, *i;
	int fd, rc;

	fx_upf6[0] = 0;
	fd = socket(AF_INET6, SOCK_DGRAM, 0);
	inet_pton(AF_INET6, GNB6, &sa.sin6_addr);
	rc = fd < 0 ? -1 : bind(fd, (struct sockaddr *)&sa, sizeof(sa));
	if (fd >= 0)
		close(fd);
	if (rc < 0)
		return -1;
	if (getifaddrs(&ifs) < 0)
		return 0;
	for (i = ifs; i && !fx_upf6[0]; i = i->ifa_next) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)i->ifa_addr;

		if (!a || a->sin6_family != AF_INET6 || !(i->ifa_flags & IFF_UP) ||
		    IN6_IS_ADDR_LOOPBACK(&a->sin6_addr) || IN6_IS_ADDR_LINKLOCAL(&a->sin6_addr) ||
		    IN6_IS_ADDR_V4MAPPED(&a->sin6_addr))
			continue;
		sa.sin6_addr = a->sin6_addr;
		fd = socket(AF_INET6, SOCK_DGRAM, 0);
		if (fd >= 0 && bind(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
			inet_ntop(AF_INET6, &a->sin6_addr, fx_upf6, sizeof(fx_upf6));
		if (fd >= 0)
			close(fd);
	}
	freeifaddrs(ifs);
	return 0;
}

static bool have_v6;   /* probe6() */
#define UPF6_LOCAL "fd00:5c::2"   /* main() puts it on lo when it runs as root */

/* TS 38.414 5.1: N3 over IPv6, IPv4 inside (the outer family is not the inner one). The G-PDUs
 * leave the AF_INET6 socket as over IPv4 (the kernel's UDP checksum is mandatory there, RFC
 * 8200 8.1: the UPF socket only gets what verifies), from [::1]:2152; UE 2, whose UPF address
 * is IPv4, is never sent for; downlink, Error Indication and Echo counted as over IPv4;
 * nothing allocated per packet. */
static void test_n3_ipv6(void **state)
{
	static uint8_t pkts[40][512];
	int lens[40];
	uint8_t p[128];
	struct sockaddr_in6 from;
	socklen_t fl = sizeof(from);
	struct rs_gtpu_stats st = { 0 };
	struct fx f;
	uint32_t dst;
	unsigned n = 0, i, allocs;
	size_t l;

	(void)state;
	/* not a skip: run as root (main's own namespace) or on a host with a second address */
	if (!have_v6 || !fx_upf6[0])
		fail_msg("IPv6 N3 NOT CHECKED: %s", !have_v6 ? "no IPv6 loopback" :
			 "no second local IPv6 address for the stand-in UPF (run as root: main adds one "
			 "in a private network namespace)");
	inet_pton(AF_INET, "192.0.2.7", &dst);
	fx_n3v6 = true;
	fx_open(&f, 5000, dst);
	fx_n3v6 = false;
	assert_int_equal(f.rs->gnb_n3_addr.family, AF_INET6);
	/* a tunnel of the other family: a real gNB on IPv6 N3 cannot use it */
	assert_int_equal(rs_n3_addr_parse(UPF_ADDR, &f.rs->ues[2].n3_upf_addr), 0);
	/* warmed up; the first from the gNB's own address and port */
	for (i = 0; i < 4000 && n == 0; i++) {
		ev_run_once(f.loop, 5);
		if (recvfrom(f.upf, pkts[0], sizeof(pkts[0]), 0, (struct sockaddr *)&from, &fl) > 0)
			n++;
	}
	assert_int_equal(n, 1);
	assert_int_equal(from.sin6_family, AF_INET6);
	assert_int_equal(ntohs(from.sin6_port), RS_GTPU_PORT);
	assert_memory_equal(&from.sin6_addr, f.rs->gnb_n3_addr.a, 16);
	assert_int_equal(upf_collect(&f, pkts, lens, 4), 4);
	nomalloc_begin();
	n = upf_collect(&f, pkts, lens, 40);
	allocs = nomalloc_end();
	assert_int_equal(n, 40);
	assert_int_equal(allocs, 0);
	rs_gtpu_stop(f.g);
	for (i = 0; i < 40; i++)
		check_ul(pkts[i], lens[i], &f.rs->ues[0], dst);
	n += 1 + 4;   /* what the warm-up took */
	for (i = 0; i < 20; i++) {
		ev_run_once(f.loop, 1);
		while (recv(f.upf, pkts[0], sizeof(pkts[0]), 0) > 0)
			n++;
	}
	/* downlink over IPv6 */
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), ue_addr(0), true);
	nomalloc_begin();
	for (i = 0; i < 3; i++)
		assert_int_equal(sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)l);
	l = dl_gpdu(p, RS_GNB_DL_TEID(0), ue_addr(2), true);   /* another UE's packet */
	assert_int_equal(sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)l);
	l = dl_gpdu(p, 0, 0, false);
	p[1] = 26;                                               /* Error Indication */
	assert_int_equal(sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)l);
	p[1] = 1;                                                /* Echo Request */
	assert_int_equal(sendto(f.upf, p, l, 0, (struct sockaddr *)&f.gnb, sizeof(f.gnb)), (ssize_t)l);
	for (i = 0; i < 2000; i++) {
		ev_run_once(f.loop, 5);
		rs_gtpu_get_stats(f.g, &st);
		if (st.dl_packets + st.dl_bad_inner + st.dl_err_ind + st.dl_other >= 6)
			break;
	}
	allocs = nomalloc_end();
	assert_int_equal(allocs, 0);
	assert_int_equal(st.dl_packets, 3);
	assert_int_equal(st.dl_bytes, 120);
	assert_int_equal(st.dl_bad_inner, 1);
	assert_int_equal(st.dl_err_ind, 1);
	assert_int_equal(st.dl_other, 1);
	assert_int_equal(st.dl_unknown_teid, 0);
	assert_int_equal(f.rs->n3[0].dl_packets, 3);
	assert_int_equal(st.ul_packets, n);
	assert_int_equal(st.ul_send_errors, 0);
	assert_int_equal(f.rs->n3[0].ul_packets, n);
	fx_close(&f);
}

/* A ransim without a core (as test_n2ho.c): one gNB, one UE, for the N2 transfers. */
static struct ransim *mk_rs(struct ev_loop *loop)
{
	struct ransim_cfg c;
	struct ransim_sim sim;
	struct ransim *rs;
	int err = 0;

	ransim_cfg_init(&c);
	c.n_gnbs = 1;
	c.n_ues = 1;
	memset(&sim, 0, sizeof(sim));
	snprintf(sim.supi, sizeof(sim.supi), "imsi-001010123456780");
	rs = ransim_new(loop, &c, &sim, 1, &err);
	assert_non_null(rs);
	return rs;
}

#define UPF4 "192.0.2.1"
#define UPF6 "2001:db8:1::1"

/* A PDU Session Resource Setup Request Transfer (TS 38.413 9.3.4.1) with an UL tunnel of
 * bits bits: IPv4 UPF4 (32), IPv6 UPF6 (128), both (160), else zeros; into item. */
static void setup_req(struct ransim *rs, unsigned bits, uint8_t *buf, size_t cap, struct ngap_pdu_sess_item *it)
{
	struct ngap_setup_request_transfer t;
	int n;

	memset(&t, 0, sizeof(t));
	t.has_session_ambr = true;
	t.session_ambr.ul = t.session_ambr.dl = 1000000;
	t.ul_tunnel.addr_bits = (uint8_t)bits;
	if (bits == 32 || bits == 160)
		inet_pton(AF_INET, UPF4, t.ul_tunnel.addr);
	if (bits == 128)
		inet_pton(AF_INET6, UPF6, t.ul_tunnel.addr);
	if (bits == 160)
		inet_pton(AF_INET6, UPF6, t.ul_tunnel.addr + 4);
	t.ul_tunnel.teid[3] = 0x42;
	t.pdu_session_type = NGAP_PDU_IPV4;
	t.n_flows = 1;
	t.flows[0].qfi = 9;
	t.flows[0].five_qi = 9;
	t.flows[0].arp_priority = 8;
	n = ngap_enc_setup_request_transfer(&t, buf, cap);
	assert_true(n > 0);
	memset(it, 0, sizeof(*it));
	it->id = (uint8_t)rs->cfg.psi;
	it->transfer.p = buf;
	it->transfer.len = (size_t)n;
}

/* The gNB's N3 address "gnb" (NULL: none given, the SCTP address), a Setup Request Transfer
 * with a bits-bit UL tunnel: the UE's failure ("" for none), its UPF address, and the DL
 * tunnel of the Setup Response Transfer (checked: the gNB's address, 32 or 128 bits). */
static void setup_case(struct ransim *rs, const char *gnb, unsigned bits, const char *fail, const char *upf)
{
	struct rs_ue *ue = &rs->ues[0];
	struct ngap_setup_response_transfer r;
	struct ngap_pdu_sess_item it;
	struct rs_n3_addr want;
	uint8_t req[256], rsp[256];
	int n;

	memset(&rs->gnb_n3_addr, 0, sizeof(rs->gnb_n3_addr));
	if (gnb)
		assert_int_equal(rs_n3_addr_parse(gnb, &rs->gnb_n3_addr), 0);
	ue->fail[0] = 0;
	setup_req(rs, bits, req, sizeof(req), &it);
	n = rs_sm_setup_item(ue, &it, rsp, sizeof(rsp));
	assert_true(n > 0);
	assert_string_equal(ue->fail, fail);
	if (upf) {
		assert_int_equal(rs_n3_addr_parse(upf, &want), 0);
		assert_true(rs_n3_addr_eq(&ue->n3_upf_addr, &want));
		assert_int_equal(ue->n3_ul_teid, 0x42);
	} else {
		assert_int_equal(ue->n3_upf_addr.family, 0);   /* nothing to send G-PDUs to */
	}
	/* TS 38.414 5.1: the gNB's one address, 32 bits IPv4 or 128 bits IPv6 */
	assert_int_equal(ngap_dec_setup_response_transfer(rsp, (size_t)n, &r, NULL), 0);
	rs_gnb_n3_addr(&rs->gnbs[0], &want);
	assert_int_equal(want.family, gnb && strchr(gnb, ':') ? AF_INET6 : AF_INET);
	assert_int_equal(r.dl_tunnel.addr_bits, want.family == AF_INET6 ? 128 : 32);
	assert_memory_equal(r.dl_tunnel.addr, want.a, want.family == AF_INET6 ? 16 : 4);
	assert_int_equal((uint32_t)r.dl_tunnel.teid[0] << 24 | (uint32_t)r.dl_tunnel.teid[1] << 16 |
			 (uint32_t)r.dl_tunnel.teid[2] << 8 | r.dl_tunnel.teid[3], rs_ue_dl_teid(ue));
}

/* TS 38.413 9.3.2.4, TS 38.414 5.1: 32 bits IPv4, 128 IPv6, 160 IPv4 then IPv6. */
static void test_tla(void **state)
{
	static const char *const g6 = "2001:db8:3::2", *const g4 = "192.0.2.9";
	struct ev_loop *loop;
	struct ransim *rs;
	struct ngap_gtp_tunnel t;
	struct rs_n3_addr a;
	char buf[INET6_ADDRSTRLEN];
	char *rep = NULL;
	size_t rep_len = 0;
	FILE *out;
	int err = 0;

	(void)state;
	loop = ev_loop_new(&err);
	assert_non_null(loop);
	rs = mk_rs(loop);
	setup_case(rs, g6, 160, "", UPF6);      /* the IPv6 part to an IPv6 gNB */
	setup_case(rs, g6, 128, "", UPF6);
	setup_case(rs, g4, 160, "", UPF4);      /* the IPv4 part to an IPv4 gNB */
	setup_case(rs, g4, 32, "", UPF4);
	setup_case(rs, NULL, 160, "", UPF4);    /* no --gnb-n3: IPv4, the SCTP address */
	setup_case(rs, g6, 32, "setup_transfer_n3_family", NULL);   /* no IPv6 to reach */
	setup_case(rs, g4, 128, "setup_transfer_n3_family", NULL);
	setup_case(rs, g6, 64, "setup_transfer_n3_addr", NULL);     /* no such length */
	setup_case(rs, g4, 64, "setup_transfer_n3_addr", NULL);
	/* an all-zero address, of either family */
	memset(&t, 0, sizeof(t));
	t.addr_bits = 128;
	assert_int_equal(rs_tla_get(&t, AF_INET6, &a), -EINVAL);
	t.addr_bits = 160;
	t.addr[0] = 192;
	assert_int_equal(rs_tla_get(&t, AF_INET6, &a), -EINVAL);
	assert_int_equal(rs_tla_get(&t, AF_INET, &a), 0);
	assert_int_equal(a.family, AF_INET);
	t.addr_bits = 32;
	t.addr[0] = 0;
	assert_int_equal(rs_tla_get(&t, AF_INET, &a), -EINVAL);
	assert_int_equal(a.family, 0);
	/* the report prints the address in its family */
	assert_int_equal(rs_n3_addr_parse(g6, &rs->gnb_n3_addr), 0);
	assert_string_equal(rs_n3_addr_str(&rs->gnb_n3_addr, buf, sizeof(buf)), g6);
	out = open_memstream(&rep, &rep_len);
	assert_non_null(out);
	rs_ho_report(rs, false, out);
	rs_ho_report(rs, true, out);
	fclose(out);
	assert_non_null(strstr(rep, "gnb_n3 0 ul_packets 0 dl_packets 0 end_markers 0 n3_addr 2001:db8:3::2\n"));
	assert_non_null(strstr(rep, "\"end_markers\":0,\"n3_addr\":\"2001:db8:3::2\"}"));
	free(rep);
	assert_int_equal(rs_n3_addr_parse("2001:db8::zz", &a), -EINVAL);
	ransim_free(rs);
	ev_loop_free(loop);
}

int main(void)
{
	/* As root: a network namespace of our own, so 2152 is free whatever runs on the host,
	 * with a second IPv6 address on lo for the stand-in UPF of test_n3_ipv6. */
	if (geteuid() == 0 && unshare(CLONE_NEWNET) == 0 &&
	    system("ip link set lo up && ip -6 addr add " UPF6_LOCAL "/128 dev lo nodad") != 0) {
		fprintf(stderr, "cannot set up lo in a private network namespace\n");
		return 1;
	}
	if (probe() < 0)
		return 77;
	have_v6 = probe6() == 0;
	if (!have_v6)
		printf("note: no IPv6 loopback here: IPv6 N3 not checked\n");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_uplink),
		cmocka_unit_test(test_downlink),
		cmocka_unit_test(test_ipv6),
		cmocka_unit_test(test_no_alloc),
		cmocka_unit_test(test_n3_ipv6),
		cmocka_unit_test(test_tla),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
