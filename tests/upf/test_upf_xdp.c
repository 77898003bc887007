/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The XDP program on crafted frames through BPF_PROG_TEST_RUN, and the
 * exception path (GTP-U socket, buffering) over loopback. Runs in a private
 * network namespace with two veth pairs so bpf_fib_lookup resolves:
 *   n3 192.0.2.1/24    gNB 192.0.2.2 = 02:00:00:00:03:02 (static neighbour)
 *   n6 198.51.100.1/24 DN router 198.51.100.2 = 02:00:00:00:06:02, default route
 *      2001:db8:6::1/64  DN router 2001:db8:6::2 (same MAC), IPv6 default route
 * IPv6 sessions (issue 19) take their /64 from pool6 2001:db8:100::/48. The IPv6 frames the
 * program and the exception path produce are written to a pcap that tshark decodes at the end
 * (argv: tshark path, output directory; without them, or without tshark, that check is skipped
 * and says so).
 * Needs root; skips with 77 otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <net/if.h>
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

#include <bpf/bpf.h>
#include <linux/bpf.h>

#include "common/ev.h"
#include "upf/upf.h"
#include "testlib.h"
#include "pkt.h"
#include "netns.h"

static const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
static const uint8_t GNB_MAC[6] = { 2, 0, 0, 0, 3, 2 };
static const uint8_t N6_MAC[6] = { 2, 0, 0, 0, 6, 1 };
static const uint8_t DN_MAC[6] = { 2, 0, 0, 0, 6, 2 };
#define N3_ADDR "192.0.2.1"
#define GNB_ADDR "192.0.2.2"

static int n3_ifindex, n6_ifindex;
static struct tv_file *vec;
static const char *tshark_path;
static char pcap_path[512];
static struct pcapw *W;     /* NULL: no tshark check */
static int pcap_frames;

#define POOL6 "2001:db8:100::"
#define POOL6_PLEN 48

struct fx {
	struct upf *u;
	uint32_t ei_peer, ei_teid;
	int ei;
	uint32_t notified_id;
	int notified;
	int sock;            /* test "gNB" on 127.0.0.2:2152 */
};

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void on_ei(void *arg, const struct upf_err_ind *ei)
{
	struct fx *f = arg;

	f->ei++;
	f->ei_peer = ei->addr;
	f->ei_teid = ei->teid;
}

static void on_dl(void *arg, uint32_t id)
{
	struct fx *f = arg;

	f->notified++;
	f->notified_id = id;
}

/* Open a upf (no attach) with a UE pool (and pool6 2001:db8:100::/48 if v6); one per test, so
 * counters start at 0. */
static struct fx *fx_open6(const char *pool, uint8_t plen, uint32_t err_ind_per_s, int v6)
{
	struct fx *f = calloc(1, sizeof(*f));
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE,
		.n3_addr = ip(N3_ADDR),
		.ue_pool_addr = ip(pool),
		.ue_pool_plen = plen,
		.max_sessions = 1024,
		.buffer_per_session = 4,
		.buffer_total = 16,
		.err_ind_per_s = err_ind_per_s,
		.on_dl_data = on_dl,
		.on_err_ind = on_ei,
	};
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(2152) };
	int one = 1;

	assert_non_null(f);
	p.cb_arg = f;
	if (v6) {
		assert_int_equal(pkt_in6(POOL6, p.ue_pool6), 0);
		p.ue_pool6_plen = POOL6_PLEN;
	}
	assert_int_equal(upf_open(&p, &f->u), 0);
	f->sock = socket(AF_INET, SOCK_DGRAM, 0);
	assert_true(f->sock >= 0);
	setsockopt(f->sock, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	a.sin_addr.s_addr = ip("127.0.0.2");
	assert_int_equal(bind(f->sock, (struct sockaddr *)&a, sizeof(a)), 0);
	return f;
}

static struct fx *fx_open(const char *pool, uint8_t plen, uint32_t err_ind_per_s)
{
	return fx_open6(pool, plen, err_ind_per_s, 0);
}

static int fx_teardown(void **state)
{
	struct fx *f = *state;

	if (f) {
		upf_close(f->u);
		close(f->sock);
		free(f);
	}
	*state = NULL;
	return 0;
}

struct run {
	uint32_t action;
	uint8_t out[2048];
	uint32_t out_len;
};

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

/* The frame a gNB would send: vector GTP-U message in IPv4/UDP to our N3 address. */
static size_t ul_frame_from_vector(const char *name, uint8_t *frame, uint8_t *gtp, int *gtp_len)
{
	int s = tv_find(vec, name);

	assert_true(s >= 0);
	*gtp_len = tv_hex(vec, s, "hex", gtp, 512);
	assert_true(*gtp_len > 0);
	return pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, (size_t)*gtp_len);
}

static void session(struct fx *f, uint32_t id, uint32_t teid, const char *ue, uint32_t gnb_teid,
		    uint8_t qfi, enum upf_dl_state st)
{
	struct upf_session_rule r = {
		.ul_teid = teid, .ue_addr = ip(ue), .gnb_addr = ip(GNB_ADDR), .gnb_teid = gnb_teid,
		.qfi = qfi, .dl_state = st,
	};

	assert_int_equal(upf_session_create(f->u, id, &r), 0);
}

/* Uplink G-PDU whose inner packet starts at inner_off of the GTP-U message:
 * decapsulated, Ethernet rewritten toward the DN router, redirected to n6. */
static void check_ul_ok(struct fx *f, const char *vector, int inner_off)
{
	uint8_t frame[600], gtp[512];
	int gl;
	size_t len = ul_frame_from_vector(vector, frame, gtp, &gl);
	struct upf_session_stats st;
	struct run r;

	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out_len, PKT_ETH + (uint32_t)(gl - inner_off));
	assert_memory_equal(r.out, DN_MAC, 6);
	assert_memory_equal(r.out + 6, N6_MAC, 6);
	assert_int_equal(r.out[12], 0x08);
	assert_int_equal(r.out[13], 0x00);
	assert_memory_equal(r.out + PKT_ETH, gtp + inner_off, (size_t)(gl - inner_off));
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 1);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_pkts, 1);
	assert_int_equal(st.ul_bytes, (uint64_t)(gl - inner_off));
	assert_int_equal(st.dl_pkts, 0);
}

static void t_ul_container(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);

	*state = f;
	session(f, 7, 2, "172.16.0.3", 0x99, 1, UPF_DL_ACTIVE);
	check_ul_ok(f, "gtpu_gpdu_ul_pdu_session_container_qfi1", 16);
	/* Counters follow the session when its TEID moves; the old TEID is unknown. */
	struct upf_session_rule r = { .ul_teid = 3, .ue_addr = ip("172.16.0.3"), .gnb_addr = ip(GNB_ADDR),
				      .gnb_teid = 0x99, .qfi = 1 };
	struct upf_session_stats st;
	uint8_t frame[600], gtp[512];
	struct run out;
	int gl;
	size_t len = ul_frame_from_vector("gtpu_gpdu_ul_pdu_session_container_qfi1", frame, gtp, &gl);

	assert_int_equal(upf_session_modify(f->u, 7, &r), 0);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_pkts, 1);
	xdp_run(f, n3_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_UNKNOWN_TEID), 1);
}

static void t_ul_plain(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);

	*state = f;
	session(f, 7, 1, "172.16.0.3", 0x99, 1, UPF_DL_ACTIVE);
	check_ul_ok(f, "gtpu_gpdu_plain_teid1", 8);
	/* Link-layer padding after the datagram is not carried into the DN. */
	uint8_t frame[600], gtp[512];
	struct run r;
	int gl;
	size_t len = ul_frame_from_vector("gtpu_gpdu_plain_teid1", frame, gtp, &gl);

	memset(frame + len, 0xee, 10);
	xdp_run(f, n3_ifindex, frame, len + 10, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out_len, PKT_ETH + (uint32_t)gl - 8);
	assert_memory_equal(r.out + PKT_ETH, gtp + 8, (size_t)gl - 8);
}

static void t_ul_two_ext(void **state)
{
	struct fx *f = fx_open("10.45.0.0", 16, 100);

	*state = f;
	/* PDCP PDU Number (0xc0) then the PDU Session Container (0x85). */
	session(f, 7, 1, "10.45.0.1", 0x99, 1, UPF_DL_ACTIVE);
	check_ul_ok(f, "gtpu_gpdu_two_ext_pdcp_pdu_number_and_pdu_session_container", 20);
}

static void t_ul_wrong_source(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[600], gtp[512];
	struct upf_session_stats st;
	struct run r;
	int gl;
	size_t len;

	*state = f;
	session(f, 7, 2, "172.16.0.9", 0x99, 1, UPF_DL_ACTIVE);
	len = ul_frame_from_vector("gtpu_gpdu_ul_pdu_session_container_qfi1", frame, gtp, &gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_BAD_SRC), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 0);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_drops, 1);
	assert_int_equal(st.ul_pkts, 0);
}

static void t_ul_wrong_qfi(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[600], gtp[512];
	struct run r;
	int gl;
	size_t len;

	*state = f;
	session(f, 7, 2, "172.16.0.3", 0x99, 5, UPF_DL_ACTIVE);
	len = ul_frame_from_vector("gtpu_gpdu_ul_pdu_session_container_qfi1", frame, gtp, &gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_QFI), 1);
}

static void t_ul_unknown_teid(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[600], gtp[512];
	struct run r;
	int gl;
	size_t len;

	*state = f;
	/* TEID 2 not installed (another session has TEID 5); TEID beyond the map. */
	session(f, 7, 5, "172.16.0.3", 0x99, 1, UPF_DL_ACTIVE);
	len = ul_frame_from_vector("gtpu_gpdu_ul_pdu_session_container_qfi1", frame, gtp, &gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(r.out_len, len);
	assert_memory_equal(r.out, frame, len);
	frame[PKT_ETH + PKT_IP + PKT_UDP + 4] = 0x7f;   /* TEID 0x7f000002 */
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_UNKNOWN_TEID), 2);
}

static void t_echo_and_end_marker(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[600], gtp[512];
	const uint8_t em[8] = { 0x30, 0xfe, 0, 0, 0, 0, 0, 2 };
	struct run r;
	int gl;
	size_t len;

	*state = f;
	session(f, 7, 2, "172.16.0.3", 0x99, 1, UPF_DL_ACTIVE);
	len = ul_frame_from_vector("gtpu_echo_request_sn0", frame, gtp, &gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_ECHO_REQ), 1);
	/* TS 29.281 7.3.2 End Marker on a known TEID. */
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), em, sizeof(em));
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_END_MARKER), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 0);
}

static void t_non_gtp(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[128] = { 0 }, inner[64];
	struct run r;
	size_t len;

	*state = f;
	/* ARP request. */
	memset(frame, 0xff, 6);
	memcpy(frame + 6, GNB_MAC, 6);
	frame[12] = 0x08;
	frame[13] = 0x06;
	xdp_run(f, n3_ifindex, frame, 60, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_PASS_NON_IP), 1);
	/* UDP to our N3 address, port 9: not GTP-U, not for a UE. */
	pkt_inner_udp(inner, ip(GNB_ADDR), ip(N3_ADDR), 48);
	len = pkt_ip_frame(frame, N3_MAC, GNB_MAC, inner, 48);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_memory_equal(r.out, frame, len);
	assert_int_equal(cnt(f, UPF_CNT_PASS_OTHER), 1);
}

static void t_malformed(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[600], gtp[512], bad[512];
	struct run r;
	int gl;
	size_t len;

	*state = f;
	session(f, 7, 2, "172.16.0.3", 0x99, 1, UPF_DL_ACTIVE);
	ul_frame_from_vector("gtpu_gpdu_ul_pdu_session_container_qfi1", frame, gtp, &gl);
	/* 1: GTP length one more than the datagram carries. */
	memcpy(bad, gtp, (size_t)gl);
	bad[3]++;
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), bad, (size_t)gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	/* 2: GTP version 2 (GTPv2-C flags) on the user-plane port. */
	memcpy(bad, gtp, (size_t)gl);
	bad[0] = 0x48;
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), bad, (size_t)gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	/* 3: an extension header of length 0. */
	memcpy(bad, gtp, (size_t)gl);
	bad[12] = 0;
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), bad, (size_t)gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	/* 4: a chain longer than UPF_GTP_MAX_EXT headers (each says "another follows"). */
	{
		uint8_t m[64] = { 0x34, 0xff, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0xc0 };
		size_t o = 12;

		for (int i = 0; i < UPF_GTP_MAX_EXT + 1; i++, o += 4) {
			m[o] = 1;
			m[o + 3] = 0xc0;
		}
		memcpy(m + o, gtp + 16, 20);
		o += 20;
		m[3] = (uint8_t)(o - 8);
		len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), m, o);
		xdp_run(f, n3_ifindex, frame, len, &r);
		assert_int_equal(r.action, XDP_DROP);
	}
	/* 5: truncated inner packet. */
	memcpy(bad, gtp, 16 + 10);
	bad[2] = 0;
	bad[3] = 8 + 10;
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), bad, 26);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_MALFORMED), 4);
	assert_int_equal(cnt(f, UPF_CNT_DROP_INNER), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 0);
}

/* Downlink: the inner packet of the DL vector (to 192.168.3.2) comes in on n6
 * and must leave on n3 as exactly the vector's GTP-U message (TEID 2, DL PDU
 * Session Container with QFI 1) in IPv4/UDP from our N3 address to the gNB. */
static void t_dl_ok(void **state)
{
	struct fx *f = fx_open("192.168.0.0", 16, 100);
	uint8_t frame[600], gtp[512];
	struct upf_session_stats st;
	struct run r;
	size_t len;
	int s, gl;

	*state = f;
	session(f, 7, 11, "192.168.3.2", 2, 1, UPF_DL_ACTIVE);
	s = tv_find(vec, "gtpu_gpdu_dl_pdu_session_container_qfi1");
	gl = tv_hex(vec, s, "hex", gtp, sizeof(gtp));
	assert_int_equal(gl, 100);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, gtp + 16, (size_t)gl - 16);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out_len, PKT_ETH + PKT_IP + PKT_UDP + (uint32_t)gl);
	assert_memory_equal(r.out, GNB_MAC, 6);
	assert_memory_equal(r.out + 6, N3_MAC, 6);
	/* Outer IPv4: a valid header from N3 to the gNB, UDP 2152 -> 2152. */
	{
		uint8_t want[PKT_IP + PKT_UDP];

		pkt_ipv4(want, ip(N3_ADDR), ip(GNB_ADDR), 17, PKT_UDP + (size_t)gl);
		pkt_udp(want + PKT_IP, 2152, 2152, (size_t)gl);
		assert_memory_equal(r.out + PKT_ETH, want, sizeof(want));
		assert_int_equal(pkt_csum(r.out + PKT_ETH, PKT_IP), 0);
	}
	assert_memory_equal(r.out + PKT_ETH + PKT_IP + PKT_UDP, gtp, (size_t)gl);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD), 1);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.dl_pkts, 1);
	assert_int_equal(st.dl_bytes, 84);
	/* A pool address without a session is dropped and counted. */
	frame[PKT_ETH + 19] = 9;
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_NO_SESSION), 1);
}

static int recv_timeout(int fd, uint8_t *buf, size_t n)
{
	if (!tn_wait_readable(fd, 2000))
		return -1;
	return (int)recv(fd, buf, n, MSG_DONTWAIT);
}

/* Downlink for an idle session: to user space, buffered (bounded), one
 * notification, released in order to the gNB on reactivation. */
static void t_dl_idle(void **state)
{
	struct fx *f = fx_open("192.168.0.0", 16, 100);
	uint8_t frame[256], inner[128], got[256];
	struct upf_session_stats st;
	struct upf_session_rule rule = {
		.ul_teid = 11, .ue_addr = ip("192.168.3.2"), .gnb_addr = ip("127.0.0.2"), .gnb_teid = 0x1234,
		.qfi = 9, .dl_state = UPF_DL_BUFFER,
	};
	struct run r;
	size_t len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	for (int i = 0; i < 6; i++) {
		pkt_inner_udp(inner, ip("8.8.8.8"), rule.ue_addr, 60);
		inner[PKT_IP + PKT_UDP] = (uint8_t)(0xa0 + i);   /* sequence mark */
		len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, 60);
		xdp_run(f, n6_ifindex, frame, len, &r);
		assert_int_equal(r.action, XDP_DROP);
	}
	assert_int_equal(cnt(f, UPF_CNT_DL_BUFFERED), 6);
	assert_true(upf_process(f->u) >= 6);
	assert_int_equal(f->notified, 1);
	assert_int_equal(f->notified_id, 7);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.buffered, 4);              /* buffer_per_session */
	assert_int_equal(cnt(f, UPF_STAT_BUF_DROPPED), 2);
	/* A second packet while still idle does not notify again. */
	xdp_run(f, n6_ifindex, frame, len, &r);
	upf_process(f->u);
	assert_int_equal(f->notified, 1);
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);

	rule.dl_state = UPF_DL_ACTIVE;
	assert_int_equal(upf_session_modify(f->u, 7, &rule), 0);
	for (int i = 0; i < 4; i++) {
		int n = recv_timeout(f->sock, got, sizeof(got));

		assert_int_equal(n, 16 + 60);
		assert_int_equal(got[0], 0x34);
		assert_int_equal(got[1], 0xff);
		assert_int_equal(got[3], 8 + 60);
		assert_int_equal(pkt_rd32(got + 4), 0x1234);
		assert_int_equal(got[11], 0x85);
		assert_int_equal(got[14], 9);
		assert_int_equal(got[16 + PKT_IP + PKT_UDP], 0xa0 + i);  /* in order */
	}
	assert_int_equal(cnt(f, UPF_STAT_BUF_RELEASED), 4);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.buffered, 0);
	/* Released from the buffer: the session's downlink counts them (inner bytes). */
	assert_int_equal(st.dl_pkts, 4);
	assert_int_equal(st.dl_bytes, 4 * 60);
	/* Active now, no longer buffered; this "gNB" (127.0.0.2) is local so
	 * bpf_fib_lookup cannot give a next hop: the packet takes the kernel
	 * path through user space and still arrives, encapsulated. */
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DL_BUFFERED), 7);
	assert_int_equal(cnt(f, UPF_CNT_DL_NEXTHOP), 1);
	upf_process(f->u);
	assert_int_equal(recv_timeout(f->sock, got, sizeof(got)), 16 + 60);
	assert_int_equal(pkt_rd32(got + 4), 0x1234);
	assert_int_equal(cnt(f, UPF_STAT_NEXTHOP_SENT), 1);
	/* ... and counts in the session's downlink like the XDP path. */
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.dl_pkts, 5);
	assert_int_equal(st.dl_bytes, 5 * 60);
}

/* Session-AMBR: 8 kbit/s with a burst tolerance of three 1000-byte packets'
 * worth: of 50 back-to-back packets some pass and the rest are policed. */
static void t_ambr(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	uint8_t frame[1200], gtp[1100], inner[1000];
	struct upf_session_rule rule = {
		.ul_teid = 2, .ue_addr = ip("172.16.0.3"), .gnb_addr = ip(GNB_ADDR), .gnb_teid = 5,
		.qfi = 1, .ambr_ul_bps = 8000, .ambr_dl_bps = 8000,
	};
	struct upf_session_stats st;
	struct run r;
	size_t len, gl;
	int fwd = 0, drop = 0;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	pkt_inner_udp(inner, rule.ue_addr, ip("8.8.8.8"), sizeof(inner));
	gl = pkt_gpdu(gtp, 2, 1, 1, inner, sizeof(inner));
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);
	for (int i = 0; i < 50; i++) {
		xdp_run(f, n3_ifindex, frame, len, &r);
		if (r.action == XDP_REDIRECT)
			fwd++;
		else if (r.action == XDP_DROP)
			drop++;
	}
	assert_int_equal(fwd + drop, 50);
	assert_true(fwd >= 1);
	assert_true(drop >= 1);
	assert_int_equal(cnt(f, UPF_CNT_DROP_AMBR_UL), (uint64_t)drop);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_drops, (uint64_t)drop);
	assert_int_equal(st.ul_pkts, (uint64_t)fwd);

	/* Downlink direction, its own bucket. */
	fwd = drop = 0;
	pkt_inner_udp(inner, ip("8.8.8.8"), rule.ue_addr, sizeof(inner));
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, sizeof(inner));
	for (int i = 0; i < 50; i++) {
		xdp_run(f, n6_ifindex, frame, len, &r);
		fwd += r.action == XDP_REDIRECT;
		drop += r.action == XDP_DROP;
	}
	assert_int_equal(fwd + drop, 50);
	assert_true(fwd >= 1 && drop >= 1);
	assert_int_equal(cnt(f, UPF_CNT_DROP_AMBR_DL), (uint64_t)drop);
}

/* User-space exception path over loopback: Echo Response and Error Indication. */
static void t_socket_echo_err_ind(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 2);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152) };
	const uint8_t echo[12] = { 0x32, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0x12, 0x34, 0, 0 };
	uint8_t gpdu[64], inner[40], got[256];
	int n;

	*state = f;
	to.sin_addr.s_addr = ip(N3_ADDR);
	assert_int_equal(sendto(f->sock, echo, sizeof(echo), 0, (struct sockaddr *)&to, sizeof(to)),
			 (ssize_t)sizeof(echo));
	{
		int fd[UPF_MAX_FDS];

		upf_fds(f->u, fd);
		tn_wait_readable(fd[0], 2000);
	}
	upf_process(f->u);
	n = recv_timeout(f->sock, got, sizeof(got));
	/* TS 29.281 7.2.2: Echo Response, same sequence number, Recovery IE (14) = 0. */
	{
		const uint8_t want[14] = { 0x32, 0x02, 0x00, 0x06, 0, 0, 0, 0, 0x12, 0x34, 0, 0, 14, 0 };

		assert_int_equal(n, sizeof(want));
		assert_memory_equal(got, want, sizeof(want));
	}
	assert_int_equal(cnt(f, UPF_STAT_ECHO_RSP_SENT), 1);

	/* Unknown TEID 0xdeadbeef: Error Indication, at most 2 per second. */
	pkt_inner_udp(inner, ip("172.16.0.3"), ip("8.8.8.8"), sizeof(inner));
	size_t gl = pkt_gpdu(gpdu, 0xdeadbeef, -1, 1, inner, sizeof(inner));

	for (int i = 0; i < 5; i++)
		assert_int_equal(sendto(f->sock, gpdu, gl, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl);
	{
		int fd[UPF_MAX_FDS];

		upf_fds(f->u, fd);
		tn_wait_readable(fd[0], 2000);
	}
	while (upf_process(f->u) > 0)
		;
	n = recv_timeout(f->sock, got, sizeof(got));
	/* TS 29.281 7.3.1: flags E|S, type 26, TEID 0; UDP Port ext header (0x40)
	 * = 2152; TEID Data I (16) = deadbeef; GTP-U Peer Address (133) = N3. */
	{
		uint8_t want[28] = { 0x36, 26, 0, 20, 0, 0, 0, 0, 0, 0, 0, 0x40, 1, 0x08, 0x68, 0,
				     16, 0xde, 0xad, 0xbe, 0xef, 133, 0, 4, 192, 0, 2, 1 };

		assert_int_equal(n, sizeof(want));
		assert_memory_equal(got, want, sizeof(want));
	}
	assert_int_equal(recv_timeout(f->sock, got, sizeof(got)), 28);
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_SENT), 2);
	assert_int_equal(cnt(f, UPF_STAT_ERR_IND_LIMITED), 3);

	/* An Error Indication from the "gNB" (the srsRAN-style message: S flag,
	 * TEID Data I, Peer Address) that names no downlink tunnel of ours: counted, no callback
	 * (test_upf_errind has the tunnel cases). */
	{
		const uint8_t ei[] = { 0x32, 26, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0,
				       16, 0x00, 0x00, 0x12, 0x34, 133, 0, 4, 127, 0, 0, 2 };
		int fd[UPF_MAX_FDS];

		assert_int_equal(sendto(f->sock, ei, sizeof(ei), 0, (struct sockaddr *)&to, sizeof(to)),
				 (ssize_t)sizeof(ei));
		upf_fds(f->u, fd);
		tn_wait_readable(fd[0], 2000);
		upf_process(f->u);
		assert_int_equal(f->ei, 0);
		assert_int_equal(cnt(f, UPF_STAT_ERR_IND_IGNORED), 1);
		/* Truncated: counted, no callback. */
		assert_int_equal(sendto(f->sock, ei, 14, 0, (struct sockaddr *)&to, sizeof(to)), 14);
		tn_wait_readable(fd[0], 2000);
		upf_process(f->u);
		assert_int_equal(f->ei, 0);
		assert_int_equal(cnt(f, UPF_STAT_SOCK_BAD), 1);
	}
}

/* The next-hop cache follows a neighbour change once revalidated. */
static void t_nexthop_cache(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	const uint8_t NEW_MAC[6] = { 2, 0, 0, 0, 6, 3 };
	uint8_t frame[600], gtp[512];
	struct run r;
	int gl;
	size_t len;

	*state = f;
	session(f, 7, 2, "172.16.0.3", 0x99, 1, UPF_DL_ACTIVE);
	len = ul_frame_from_vector("gtpu_gpdu_ul_pdu_session_container_qfi1", frame, gtp, &gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_memory_equal(r.out, DN_MAC, 6);
	assert_int_equal(tn_sh("ip neigh replace 198.51.100.2 lladdr 02:00:00:00:06:03 dev n6 nud permanent"), 0);
	upf_nexthop_flush(f->u);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(tn_sh("ip neigh replace 198.51.100.2 lladdr 02:00:00:00:06:02 dev n6 nud permanent"), 0);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_memory_equal(r.out, NEW_MAC, 6);
	upf_nexthop_flush(f->u);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_memory_equal(r.out, DN_MAC, 6);
}

/* With an ev_loop the exception socket is served by the loop, and the
 * next-hop revalidation timer is armed. */
static void t_ev_loop(void **state)
{
	int err = 0;
	struct ev_loop *loop = ev_loop_new(&err);
	struct upf *u = NULL;
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = 16, .loop = loop,
	};
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152) };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(40001) };
	const uint8_t echo[12] = { 0x32, 0x01, 0x00, 0x04, 0, 0, 0, 0, 0x00, 0x09, 0, 0 };
	uint8_t got[64];
	int fd = socket(AF_INET, SOCK_DGRAM, 0);

	(void)state;
	assert_non_null(loop);
	assert_int_equal(upf_open(&p, &u), 0);
	assert_int_equal(ev_timer_count(loop), 1);
	a.sin_addr.s_addr = ip("127.0.0.3");
	assert_int_equal(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
	to.sin_addr.s_addr = ip(N3_ADDR);
	assert_int_equal(sendto(fd, echo, sizeof(echo), 0, (struct sockaddr *)&to, sizeof(to)), 12);
	for (int i = 0; i < 20 && !tn_wait_readable(fd, 0); i++)
		ev_run_once(loop, 100);
	/* Echo Response to the request's source port (TS 29.281 4.4.2). */
	assert_int_equal(recv(fd, got, sizeof(got), MSG_DONTWAIT), 14);
	assert_int_equal(got[1], 2);
	assert_int_equal(got[9], 9);
	upf_close(u);
	assert_int_equal(ev_timer_count(loop), 0);
	ev_loop_free(loop);
	close(fd);
}

/* A downlink packet whose encapsulation exceeds the N3 MTU is not
 * redirected (the driver would drop it): it goes to user space and leaves
 * through the kernel, which fragments the outer packet. The next-hop cache,
 * filled by a small packet, must not hide the MTU. */
static void t_dl_mtu(void **state)
{
	struct fx *f = fx_open("192.168.0.0", 16, 100);
	uint8_t frame[1600], inner[1500];
	struct run r;
	size_t len;

	*state = f;
	session(f, 7, 11, "192.168.3.2", 2, 1, UPF_DL_ACTIVE);
	assert_int_equal(tn_sh("ip link set dev n3 mtu 1000"), 0);
	pkt_inner_udp(inner, ip("8.8.8.8"), ip("192.168.3.2"), 100);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, 100);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	pkt_inner_udp(inner, ip("8.8.8.8"), ip("192.168.3.2"), 980);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, 980);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(tn_sh("ip link set dev n3 mtu 1500"), 0);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DL_NEXTHOP), 1);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD), 1);
}

static void t_api_errors(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	struct upf_session_rule r = { .ul_teid = 2, .ue_addr = ip("172.16.0.3"), .gnb_addr = ip(GNB_ADDR),
				      .gnb_teid = 1, .qfi = 1 };
	struct upf_session_rule r2 = r;
	struct upf_session_stats st;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 1, &r), 0);
	assert_int_equal(upf_session_create(f->u, 1, &r), -EEXIST);
	assert_int_equal(upf_session_create(f->u, 1024, &r), -ERANGE);
	r2.ue_addr = ip("172.16.0.4");
	assert_int_equal(upf_session_create(f->u, 2, &r2), -EADDRINUSE);   /* TEID taken */
	r2.ul_teid = 3;
	r2.ue_addr = r.ue_addr;
	assert_int_equal(upf_session_create(f->u, 2, &r2), -EADDRINUSE);   /* UE address taken */
	r2.ue_addr = ip("10.0.0.1");
	assert_int_equal(upf_session_create(f->u, 2, &r2), -ERANGE);       /* outside the pool */
	r2.ue_addr = ip("172.16.0.4");
	/* Issue 32: past max_teid a TEID goes through the ul_teids hash (a CP-chosen F-TEID, TS
	 * 29.244 5.5.3.1); the forwarding TEIDs UPF_FWD_TEID(id) are never uplink ones. */
	r2.ul_teid = UPF_FWD_TEID(5);
	assert_int_equal(upf_session_create(f->u, 2, &r2), -ERANGE);
	r2.ul_teid = 1025;
	assert_int_equal(upf_session_create(f->u, 2, &r2), 0);
	r2.ue_addr = ip("172.16.0.6");
	assert_int_equal(upf_session_create(f->u, 3, &r2), -EADDRINUSE);   /* hash TEID taken */
	assert_int_equal(upf_session_remove(f->u, 2), 0);
	r2.ue_addr = ip("172.16.0.4");
	r2.ul_teid = 3;
	r2.gnb_addr = 0;
	assert_int_equal(upf_session_create(f->u, 2, &r2), -EINVAL);       /* active without a tunnel */
	assert_int_equal(upf_session_remove(f->u, 2), -ENOENT);
	assert_int_equal(upf_session_modify(f->u, 2, &r), -ENOENT);
	assert_int_equal(upf_session_stats(f->u, 2, &st), -ENOENT);
	/* Move TEID and address: the old indexes are free afterwards. */
	r2 = r;
	r2.ul_teid = 9;
	r2.ue_addr = ip("172.16.0.5");
	assert_int_equal(upf_session_modify(f->u, 1, &r2), 0);
	assert_int_equal(upf_session_create(f->u, 2, &r), 0);
	assert_int_equal(upf_session_remove(f->u, 1), 0);
	assert_int_equal(upf_session_remove(f->u, 1), -ENOENT);
	assert_string_equal(upf_counter_name(UPF_CNT_DROP_BAD_SRC), "drop_bad_src");
	assert_null(upf_counter_name(UPF_STAT__MAX));
}

/* ---- IPv6 (issue 19; TS 23.501 5.8.2.2, RFC 4861) ---- */

static void in6(const char *s, uint8_t a[16])
{
	assert_int_equal(pkt_in6(s, a), 0);
}

/* A frame as the program left it, for tshark. */
static void pcap_eth(const uint8_t *frame, size_t len)
{
	if (!W)
		return;
	assert_int_equal(pcapw_upper(W, "eth_withoutfcs", frame, len), 0);
	pcap_frames++;
}

/* A GTP-U message the exception path sent (received on the test "gNB" socket), for tshark in
 * the IPv4/UDP it travelled in. */
static void pcap_gtpu(const uint8_t *g, size_t len)
{
	uint8_t b[2048];
	size_t o;

	if (!W)
		return;
	o = pkt_ipv4(b, ip(N3_ADDR), ip("127.0.0.2"), 17, PKT_UDP + len);
	o += pkt_udp(b + o, 2152, 2152, len);
	memcpy(b + o, g, len);
	assert_int_equal(pcapw_upper(W, "ip", b, o + len), 0);
	pcap_frames++;
}

/* A session rule; ue4 NULL: IPv6 only, prefix NULL: IPv4 only. */
static struct upf_session_rule rule6(uint32_t teid, const char *ue4, const char *prefix, uint32_t gnb,
				     uint32_t gnb_teid, uint8_t qfi, enum upf_dl_state st)
{
	struct upf_session_rule r = {
		.ul_teid = teid, .ue_addr = ue4 ? ip(ue4) : 0, .gnb_addr = gnb, .gnb_teid = gnb_teid,
		.qfi = qfi, .dl_state = st,
	};
	uint8_t a[16];

	if (prefix) {
		in6(prefix, a);
		memcpy(r.ue_prefix6, a, 8);
	}
	return r;
}

/* The gNB's G-PDU (UL container, QFI 1) carrying an inner IPv6/UDP packet of ilen bytes. */
static size_t ul6_frame(uint8_t *frame, uint32_t teid, const char *src, const char *dst, size_t ilen,
			uint8_t *inner)
{
	uint8_t gtp[1600], s6[16], d6[16];
	size_t gl;

	in6(src, s6);
	in6(dst, d6);
	pkt_inner_udp6(inner, s6, d6, ilen);
	gl = pkt_gpdu(gtp, teid, 1, 1, inner, ilen);
	return pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);
}

/* A DN host's IPv6/UDP packet of ilen bytes to dst, arriving on n6. */
static size_t dl6_frame(uint8_t *frame, const char *dst, size_t ilen, uint8_t *inner)
{
	uint8_t s6[16], d6[16];

	in6("2001:db8:99::1", s6);
	in6(dst, d6);
	pkt_inner_udp6(inner, s6, d6, ilen);
	return pkt_ip6_frame(frame, N6_MAC, DN_MAC, inner, ilen);
}

/* Uplink IPv6 from the session's /64: decapsulated, EtherType IPv6, toward the DN router
 * found by bpf_fib_lookup AF_INET6, redirected to n6. */
static void t_v6_ul_ok(void **state)
{
	struct fx *f = fx_open6("172.16.0.0", 16, 100, 1);
	struct upf_session_rule rule = rule6(2, NULL, "2001:db8:100:7::", ip(GNB_ADDR), 0x99, 1, UPF_DL_ACTIVE);
	uint8_t frame[600], inner[512];
	struct upf_session_stats st;
	struct run r;
	size_t len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	len = ul6_frame(frame, 2, "2001:db8:100:7::abcd", "2001:db8:99::1", 100, inner);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out_len, PKT_ETH + 100);
	assert_memory_equal(r.out, DN_MAC, 6);
	assert_memory_equal(r.out + 6, N6_MAC, 6);
	assert_int_equal(r.out[12], 0x86);
	assert_int_equal(r.out[13], 0xdd);
	assert_memory_equal(r.out + PKT_ETH, inner, 100);
	pcap_eth(r.out, r.out_len);
	assert_int_equal(cnt(f, UPF_CNT_UL6_FWD), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 0);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_pkts, 1);
	assert_int_equal(st.ul_bytes, 100);
	/* Outer padding is not carried into the DN. */
	memset(frame + len, 0xee, 12);
	xdp_run(f, n3_ifindex, frame, len + 12, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out_len, PKT_ETH + 100);
	/* A payload length beyond what the tunnel carried: refused. */
	frame[PKT_ETH + PKT_IP + PKT_UDP + 16 + 5] += 1;
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_INNER), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL6_FWD), 2);
	/* The IPv6 next-hop cache follows a neighbour change once revalidated. */
	frame[PKT_ETH + PKT_IP + PKT_UDP + 16 + 5] -= 1;
	assert_int_equal(tn_sh("ip -6 neigh replace 2001:db8:6::2 lladdr 02:00:00:00:06:03 dev n6 nud permanent"), 0);
	upf_nexthop_flush(f->u);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(tn_sh("ip -6 neigh replace 2001:db8:6::2 lladdr 02:00:00:00:06:02 dev n6 nud permanent"), 0);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out[5], 3);
	upf_nexthop_flush(f->u);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_memory_equal(r.out, DN_MAC, 6);
}

/* Anti-spoofing (TS 23.501 5.8.2.2): a source outside the session's /64, another session's
 * /64 or a link-local source on data, is dropped and counted on the session. */
static void t_v6_ul_spoof(void **state)
{
	struct fx *f = fx_open6("172.16.0.0", 16, 100, 1);
	struct upf_session_rule rule = rule6(2, NULL, "2001:db8:100:7::", ip(GNB_ADDR), 0x99, 1, UPF_DL_ACTIVE);
	uint8_t frame[600], inner[512];
	struct upf_session_stats st;
	struct run r;
	size_t len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	len = ul6_frame(frame, 2, "2001:db8:100:8::abcd", "2001:db8:99::1", 80, inner);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	len = ul6_frame(frame, 2, "fe80::abcd", "2001:db8:99::1", 80, inner);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	/* Same last 64 bits, other upper bits. */
	len = ul6_frame(frame, 2, "2001:db8:101:7::abcd", "2001:db8:99::1", 80, inner);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_BAD_SRC6), 3);
	assert_int_equal(cnt(f, UPF_CNT_UL6_FWD), 0);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_drops, 3);
	assert_int_equal(st.ul_pkts, 0);
}

/* A session's rule accepts only its own families: IPv4 on an IPv6-only session (even from
 * 0.0.0.0, which equals its empty IPv4 address), IPv6 on an IPv4-only one. */
static void t_v6_family(void **state)
{
	struct fx *f = fx_open6("172.16.0.0", 16, 100, 1);
	struct upf_session_rule r6 = rule6(2, NULL, "2001:db8:100:7::", ip(GNB_ADDR), 0x99, 1, UPF_DL_ACTIVE);
	struct upf_session_rule r4 = rule6(3, "172.16.0.3", NULL, ip(GNB_ADDR), 0x98, 1, UPF_DL_ACTIVE);
	uint8_t frame[600], inner[512], gtp[600];
	struct upf_session_stats st;
	struct run r;
	size_t len, gl;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &r6), 0);
	assert_int_equal(upf_session_create(f->u, 8, &r4), 0);
	for (int i = 0; i < 2; i++) {
		pkt_inner_udp(inner, i ? ip("172.16.0.3") : 0, ip("8.8.8.8"), 60);
		gl = pkt_gpdu(gtp, 2, 1, 1, inner, 60);
		len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);
		xdp_run(f, n3_ifindex, frame, len, &r);
		assert_int_equal(r.action, XDP_DROP);
	}
	len = ul6_frame(frame, 3, "2001:db8:100:7::1", "2001:db8:99::1", 80, inner);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_FAMILY), 3);
	assert_int_equal(cnt(f, UPF_CNT_DROP_BAD_SRC), 0);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD) + cnt(f, UPF_CNT_UL6_FWD), 0);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_drops, 2);
	assert_int_equal(upf_session_stats(f->u, 8, &st), 0);
	assert_int_equal(st.ul_drops, 1);
	/* The IPv4-only session still forwards its IPv4. */
	pkt_inner_udp(inner, ip("172.16.0.3"), ip("8.8.8.8"), 60);
	gl = pkt_gpdu(gtp, 3, 1, 1, inner, 60);
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
}

/* The outer headers of a downlink packet of ilen inner bytes, and its GTP-U G-PDU (TEID,
 * DL PDU Session Container with the QFI, TS 29.281 5.1 / TS 38.415 5.5.2.1). */
static void check_dl_encap(const struct run *r, const uint8_t *inner, size_t ilen, uint32_t gnb_teid, uint8_t qfi)
{
	uint8_t want[1600];
	size_t gl = pkt_gpdu(want + PKT_IP + PKT_UDP, gnb_teid, qfi, 0, inner, ilen);

	assert_int_equal(r->action, XDP_REDIRECT);
	assert_int_equal(r->out_len, PKT_ETH + PKT_IP + PKT_UDP + 16 + ilen);
	assert_memory_equal(r->out, GNB_MAC, 6);
	assert_memory_equal(r->out + 6, N3_MAC, 6);
	assert_int_equal(r->out[12], 0x08);
	assert_int_equal(r->out[13], 0x00);
	pkt_ipv4(want, ip(N3_ADDR), ip(GNB_ADDR), 17, PKT_UDP + gl);
	pkt_udp(want + PKT_IP, 2152, 2152, gl);
	assert_memory_equal(r->out + PKT_ETH, want, PKT_IP + PKT_UDP + gl);
	assert_int_equal(pkt_csum(r->out + PKT_ETH, PKT_IP), 0);
}

/* Downlink IPv6 to any address of the session's /64: encapsulated exactly as IPv4 (outer IPv4
 * to the gNB). A /64 of pool6 without a session: dropped; outside pool6: the kernel's. */
static void t_v6_dl_ok(void **state)
{
	struct fx *f = fx_open6("192.168.0.0", 16, 100, 1);
	struct upf_session_rule rule = rule6(11, NULL, "2001:db8:100:7::", ip(GNB_ADDR), 2, 1, UPF_DL_ACTIVE);
	uint8_t frame[600], inner[512];
	struct upf_session_stats st;
	struct run r;
	size_t len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	len = dl6_frame(frame, "2001:db8:100:7::abcd", 84, inner);
	xdp_run(f, n6_ifindex, frame, len, &r);
	check_dl_encap(&r, inner, 84, 2, 1);
	pcap_eth(r.out, r.out_len);
	/* Another interface identifier of the same /64, with Ethernet padding after it. */
	len = dl6_frame(frame, "2001:db8:100:7:1:2:3:4", 60, inner);
	memset(frame + len, 0, 8);
	xdp_run(f, n6_ifindex, frame, len + 8, &r);
	check_dl_encap(&r, inner, 60, 2, 1);
	pcap_eth(r.out, r.out_len);
	assert_int_equal(cnt(f, UPF_CNT_DL6_FWD), 2);
	assert_int_equal(cnt(f, UPF_CNT_DL_FWD), 0);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.dl_pkts, 2);
	assert_int_equal(st.dl_bytes, 84 + 60);
	/* A /64 of pool6 nobody holds. */
	len = dl6_frame(frame, "2001:db8:100:9::1", 84, inner);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_NO_SESSION6), 1);
	/* Outside pool6 (our own N6 address): passed on, untouched. */
	len = dl6_frame(frame, "2001:db8:6::1", 84, inner);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_PASS);
	assert_int_equal(r.out_len, len);
	assert_memory_equal(r.out, frame, len);
	assert_int_equal(cnt(f, UPF_CNT_PASS_OTHER), 1);
	/* A truncated packet (payload length beyond the frame). */
	len = dl6_frame(frame, "2001:db8:100:7::abcd", 84, inner);
	xdp_run(f, n6_ifindex, frame, len - 1, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_INNER), 1);
}

/* An IPv4v6 session: both families up and down, one set of session counters; after removal
 * neither family's downlink finds it. */
static void t_v6_dual(void **state)
{
	struct fx *f = fx_open6("172.16.0.0", 16, 100, 1);
	struct upf_session_rule rule = rule6(2, "172.16.0.3", "2001:db8:100:7::", ip(GNB_ADDR), 0x77, 1,
					     UPF_DL_ACTIVE);
	uint8_t frame[600], inner[512], gtp[600];
	struct upf_session_stats st;
	struct run r;
	size_t len, gl;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	pkt_inner_udp(inner, ip("172.16.0.3"), ip("8.8.8.8"), 60);
	gl = pkt_gpdu(gtp, 2, 1, 1, inner, 60);
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out[12], 0x08);
	len = ul6_frame(frame, 2, "2001:db8:100:7::5", "2001:db8:99::1", 70, inner);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_REDIRECT);
	assert_int_equal(r.out[12], 0x86);
	pcap_eth(r.out, r.out_len);
	assert_int_equal(cnt(f, UPF_CNT_UL_FWD), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL6_FWD), 1);

	pkt_inner_udp(inner, ip("8.8.8.8"), ip("172.16.0.3"), 50);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, 50);
	xdp_run(f, n6_ifindex, frame, len, &r);
	check_dl_encap(&r, inner, 50, 0x77, 1);
	len = dl6_frame(frame, "2001:db8:100:7::5", 90, inner);
	xdp_run(f, n6_ifindex, frame, len, &r);
	check_dl_encap(&r, inner, 90, 0x77, 1);
	pcap_eth(r.out, r.out_len);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.ul_pkts, 2);
	assert_int_equal(st.ul_bytes, 60 + 70);
	assert_int_equal(st.dl_pkts, 2);
	assert_int_equal(st.dl_bytes, 50 + 90);

	assert_int_equal(upf_session_remove(f->u, 7), 0);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_NO_SESSION6), 1);
	pkt_inner_udp(inner, ip("8.8.8.8"), ip("172.16.0.3"), 50);
	len = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, 50);
	xdp_run(f, n6_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	assert_int_equal(cnt(f, UPF_CNT_DROP_NO_SESSION), 1);
	/* The /64 is free again. */
	assert_int_equal(upf_session_create(f->u, 8, &rule), 0);
}

/* Downlink IPv6 for an idle session: through the ring to user space, buffered, one
 * notification, released in order in the tunnel on activation. */
static void t_v6_dl_idle(void **state)
{
	struct fx *f = fx_open6("192.168.0.0", 16, 100, 1);
	struct upf_session_rule rule = rule6(11, NULL, "2001:db8:100:7::", ip("127.0.0.2"), 0x1234, 9,
					     UPF_DL_BUFFER);
	uint8_t frame[256], inner[3][128], got[256];
	struct upf_session_stats st;
	struct run r;
	size_t len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 7, &rule), 0);
	for (int i = 0; i < 3; i++) {
		char dst[64];

		snprintf(dst, sizeof(dst), "2001:db8:100:7::a%d", i);   /* sequence mark */
		len = dl6_frame(frame, dst, 80, inner[i]);
		xdp_run(f, n6_ifindex, frame, len, &r);
		assert_int_equal(r.action, XDP_DROP);
	}
	assert_int_equal(cnt(f, UPF_CNT_DL_BUFFERED), 3);
	assert_true(upf_process(f->u) >= 3);
	assert_int_equal(f->notified, 1);
	assert_int_equal(f->notified_id, 7);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.buffered, 3);
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);

	rule.dl_state = UPF_DL_ACTIVE;
	assert_int_equal(upf_session_modify(f->u, 7, &rule), 0);
	for (int i = 0; i < 3; i++) {
		int n = recv_timeout(f->sock, got, sizeof(got));

		assert_int_equal(n, 16 + 80);
		assert_int_equal(got[0], 0x34);
		assert_int_equal(got[1], 0xff);
		assert_int_equal(got[3], 8 + 80);
		assert_int_equal(pkt_rd32(got + 4), 0x1234);
		assert_int_equal(got[11], 0x85);
		assert_int_equal(got[14], 9);
		assert_memory_equal(got + 16, inner[i], 80);   /* in order, unchanged */
		pcap_gtpu(got, (size_t)n);
	}
	assert_int_equal(cnt(f, UPF_STAT_BUF_RELEASED), 3);
	assert_int_equal(upf_session_stats(f->u, 7, &st), 0);
	assert_int_equal(st.buffered, 0);
	assert_int_equal(st.dl_pkts, 3);
	assert_int_equal(st.dl_bytes, 3 * 80);
}

/* Send a Router Solicitation from src in the session's tunnel (TEID teid). */
static void send_rs(struct fx *f, uint32_t teid, const char *src, uint8_t hop_limit)
{
	uint8_t rs[64], gtp[128], frame[256], s6[16];
	struct run r;
	size_t len, gl;

	in6(src, s6);
	len = pkt_rs6(rs, s6);
	rs[7] = hop_limit;
	gl = pkt_gpdu(gtp, teid, 5, 1, rs, len);
	len = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB_ADDR), ip(N3_ADDR), gtp, gl);
	xdp_run(f, n3_ifindex, frame, len, &r);
	assert_int_equal(r.action, XDP_DROP);
	while (upf_process(f->u) > 0)
		;
}

/* The Router Advertisement the UPF sent in the session's tunnel (TEID gnb_teid), answering an
 * RS from rs_src, checked octet by octet (RFC 4861 4.2, 4.6.2). */
static void check_ra(struct fx *f, uint32_t gnb_teid, const char *dst, const char *prefix)
{
	uint8_t got[256], d6[16], p6[16], ll[16];
	const uint8_t *ra;
	int n = recv_timeout(f->sock, got, sizeof(got));

	in6(dst, d6);
	in6(prefix, p6);
	in6("fe80::1", ll);
	assert_int_equal(n, 16 + 88);
	pcap_gtpu(got, (size_t)n);
	/* TS 29.281 5.1 / TS 38.415 5.5.2.1: a G-PDU of the session's downlink tunnel. */
	assert_int_equal(got[0], 0x34);
	assert_int_equal(got[1], 0xff);
	assert_int_equal(got[3], 8 + 88);
	assert_int_equal(pkt_rd32(got + 4), gnb_teid);
	assert_int_equal(got[11], 0x85);
	ra = got + 16;
	/* IPv6: payload 48 (RA 16 + Prefix Information 32), ICMPv6, hop limit 255 (RFC 4861
	 * 6.1.2), from our link-local address to the soliciting one. */
	assert_int_equal(ra[0], 0x60);
	assert_int_equal(ra[4] << 8 | ra[5], 48);
	assert_int_equal(ra[6], 58);
	assert_int_equal(ra[7], 255);
	assert_memory_equal(ra + 8, ll, 16);
	assert_memory_equal(ra + 24, d6, 16);
	assert_int_equal(pkt_csum6(ra + 8, ra + 24, 58, ra + 40, 48), 0);
	{
		/* Type 134, code 0, (checksum), Cur Hop Limit 64, M=0 O=0, Router Lifetime 9000,
		 * Reachable Time 0, Retrans Timer 0. */
		const uint8_t want[16] = { 134, 0, ra[42], ra[43], 64, 0x00, 0x23, 0x28, 0, 0, 0, 0, 0, 0, 0, 0 };
		/* Prefix Information: type 3, length 4 (32 octets), /64, A=1 (SLAAC), valid and
		 * preferred lifetimes infinite, reserved, the session's prefix. */
		uint8_t pi[32] = { 3, 4, 64, 0x40, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

		memcpy(pi + 16, p6, 8);
		assert_memory_equal(ra + 40, want, 16);
		assert_memory_equal(ra + 56, pi, 32);
	}
}

/* TS 23.501 5.8.2.2.2: a Router Solicitation from the UE is answered with a Router
 * Advertisement of its /64 in its downlink tunnel; rate limited; invalid or IPv4-only: none. */
static void t_v6_rs_ra(void **state)
{
	struct fx *f = fx_open6("172.16.0.0", 16, 100, 1);
	struct upf_session_rule a = rule6(2, NULL, "2001:db8:100:7::", ip("127.0.0.2"), 0x4321, 5, UPF_DL_ACTIVE);
	struct upf_session_rule b = rule6(3, "172.16.0.8", "2001:db8:100:8::", ip("127.0.0.2"), 0x4322, 5,
					  UPF_DL_ACTIVE);
	struct upf_session_rule c = rule6(4, NULL, "2001:db8:100:9::", ip("127.0.0.2"), 0x4323, 5, UPF_DL_ACTIVE);
	struct upf_session_rule d = rule6(5, "172.16.0.5", NULL, ip("127.0.0.2"), 0x4324, 5, UPF_DL_ACTIVE);
	uint8_t got[256];

	*state = f;
	assert_int_equal(upf_session_create(f->u, 1, &a), 0);
	assert_int_equal(upf_session_create(f->u, 2, &b), 0);
	assert_int_equal(upf_session_create(f->u, 3, &c), 0);
	assert_int_equal(upf_session_create(f->u, 4, &d), 0);
	send_rs(f, 2, "fe80::2:1:c731:f114", 255);
	assert_int_equal(cnt(f, UPF_CNT_UL_RS), 1);
	check_ra(f, 0x4321, "fe80::2:1:c731:f114", "2001:db8:100:7::");
	assert_int_equal(cnt(f, UPF_STAT_RA_SENT), 1);
	/* RFC 4861 6.2.6: the next one within MIN_DELAY_BETWEEN_RAS gets nothing. */
	send_rs(f, 2, "fe80::2:1:c731:f114", 255);
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(cnt(f, UPF_STAT_RS_DROPPED), 1);
	/* From the unspecified address (an IPv4v6 session): to all-nodes. */
	send_rs(f, 3, "::", 255);
	check_ra(f, 0x4322, "ff02::1", "2001:db8:100:8::");
	assert_int_equal(cnt(f, UPF_STAT_RA_SENT), 2);
	/* RFC 4861 6.1.1: hop limit not 255 (not from the link): invalid. */
	send_rs(f, 4, "fe80::9", 64);
	/* An IPv4-only session has no prefix to advertise: refused in XDP, like any IPv6. */
	send_rs(f, 5, "fe80::5", 255);
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(cnt(f, UPF_STAT_RS_DROPPED), 2);
	assert_int_equal(cnt(f, UPF_CNT_DROP_FAMILY), 1);
	assert_int_equal(cnt(f, UPF_CNT_UL_RS), 4);
	assert_int_equal(cnt(f, UPF_CNT_UL6_FWD), 0);
	/* An RS before the gNB's tunnel is there (the session still buffering: the UE may solicit
	 * as soon as it has the accept) is answered when the downlink becomes active
	 * (TS 23.501 5.8.2.2.2), to all-nodes, once. */
	struct upf_session_rule e = rule6(6, NULL, "2001:db8:100:a::", 0, 0, 5, UPF_DL_BUFFER);

	assert_int_equal(upf_session_create(f->u, 5, &e), 0);
	send_rs(f, 6, "fe80::6", 255);
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(cnt(f, UPF_STAT_RA_SENT), 2);
	e.dl_state = UPF_DL_ACTIVE;
	e.gnb_addr = ip("127.0.0.2");
	e.gnb_teid = 0x4325;
	assert_int_equal(upf_session_modify(f->u, 5, &e), 0);
	check_ra(f, 0x4325, "ff02::1", "2001:db8:100:a::");
	assert_int_equal(cnt(f, UPF_STAT_RA_SENT), 3);
	e.dl_state = UPF_DL_BUFFER;
	assert_int_equal(upf_session_modify(f->u, 5, &e), 0);
	e.dl_state = UPF_DL_ACTIVE;
	assert_int_equal(upf_session_modify(f->u, 5, &e), 0);   /* owed once only */
	assert_int_equal(recv(f->sock, got, sizeof(got), MSG_DONTWAIT), -1);
	assert_int_equal(cnt(f, UPF_STAT_RA_SENT), 3);
}

/* Every error of the IPv6 rule checks (upf.h). */
static void t_v6_api_errors(void **state)
{
	struct fx *f = fx_open6("172.16.0.0", 16, 100, 1);
	struct upf_session_rule r = rule6(2, NULL, "2001:db8:100:7::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	struct upf_session_rule r2 = r;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 1, &r), 0);
	r2.ul_teid = 3;
	assert_int_equal(upf_session_create(f->u, 2, &r2), -EADDRINUSE);   /* /64 taken */
	r2 = rule6(3, NULL, "2001:db8:200:7::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_create(f->u, 2, &r2), -ERANGE);       /* outside pool6 */
	r2 = rule6(3, NULL, "2001:db8:101::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_create(f->u, 2, &r2), -ERANGE);       /* just past it */
	r2 = rule6(3, NULL, NULL, ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_create(f->u, 2, &r2), -EINVAL);       /* neither family */
	/* The last /64 of the pool is a valid one. */
	r2 = rule6(3, NULL, "2001:db8:100:ffff::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_create(f->u, 2, &r2), 0);
	/* The prefix is fixed for the session's life; the IPv4 address may come and go. */
	r2 = rule6(2, NULL, "2001:db8:100:8::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_modify(f->u, 1, &r2), -EINVAL);
	r2 = rule6(2, NULL, NULL, ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	r2.ue_addr = ip("172.16.0.9");
	assert_int_equal(upf_session_modify(f->u, 1, &r2), -EINVAL);       /* dropping the prefix */
	r2 = rule6(2, "172.16.0.9", "2001:db8:100:7::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_modify(f->u, 1, &r2), 0);
	assert_int_equal(upf_session_modify(f->u, 1, &r), 0);
	r2 = rule6(4, "172.16.0.9", NULL, ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_create(f->u, 3, &r2), 0);             /* the address is free */
	assert_int_equal(upf_session_remove(f->u, 1), 0);
	r2 = rule6(5, NULL, "2001:db8:100:7::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	assert_int_equal(upf_session_create(f->u, 4, &r2), 0);             /* the /64 is free */
	assert_string_equal(upf_counter_name(UPF_CNT_DROP_BAD_SRC6), "drop_bad_src6");
	assert_string_equal(upf_counter_name(UPF_STAT_RA_SENT), "ra_sent");
}

/* Without pool6: IPv6 is not the UPF's (passed to the kernel), no prefix can be installed, and
 * a pool6 length outside 44..64 is refused. */
static void t_v6_no_pool(void **state)
{
	struct fx *f = fx_open("172.16.0.0", 16, 100);
	struct upf_session_rule r = rule6(2, "172.16.0.3", "2001:db8:100:7::", ip(GNB_ADDR), 1, 1, UPF_DL_ACTIVE);
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3_ADDR), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = 16,
	};
	uint8_t frame[600], inner[512];
	struct upf *u = NULL;
	struct run out;
	size_t len;

	*state = f;
	assert_int_equal(upf_session_create(f->u, 1, &r), -ERANGE);
	len = dl6_frame(frame, "2001:db8:100:7::abcd", 84, inner);
	xdp_run(f, n6_ifindex, frame, len, &out);
	assert_int_equal(out.action, XDP_PASS);
	assert_int_equal(cnt(f, UPF_CNT_PASS_NON_IP), 1);
	assert_int_equal(pkt_in6(POOL6, p.ue_pool6), 0);
	p.ue_pool6_plen = 43;
	assert_int_equal(upf_open(&p, &u), -EINVAL);
	p.ue_pool6_plen = 65;
	assert_int_equal(upf_open(&p, &u), -EINVAL);
	assert_null(u);
}

/* tshark, an independent decoder, reads every IPv6 frame the tests produced: nothing
 * malformed, no error-level expert item; the RAs carry the sessions' prefixes with a good
 * ICMPv6 checksum; the IPv6 downlink is in GTP-U with the PDU Session Container. */
static int tshark_check(void)
{
	int bad = 0;

	if (!W) {
		fprintf(stderr, "upf_xdp: tshark check of the IPv6 frames SKIPPED (no tshark given)\n");
		return 0;
	}
	if (pcapw_close(W))
		return -1;
	W = NULL;
	fprintf(stderr, "upf_xdp: %d frames in %s\n", pcap_frames, pcap_path);
#define TS_CHECK(cond, what) do { if (!(cond)) { fprintf(stderr, "tshark check failed: %s\n", what); bad++; } } while (0)
	TS_CHECK(tshark_expert(tshark_path, pcap_path, NULL) == 0, "expert errors");
	TS_CHECK(tshark_lines(tshark_path, pcap_path, "-Y _ws.malformed", NULL) == 0, "malformed");
	TS_CHECK(tshark_lines(tshark_path, pcap_path, "", NULL) == pcap_frames, "frame count");
	TS_CHECK(tshark_lines(tshark_path, pcap_path,
			      "-Y 'icmpv6.type == 134 && icmpv6.opt.prefix == 2001:db8:100:7:: && "
			      "icmpv6.checksum.status == 1 && ipv6.hlim == 255 && icmpv6.opt.prefix.flag.a == 1 && "
			      "icmpv6.opt.prefix.length == 64 && icmpv6.opt.prefix.valid_lifetime == 0xffffffff'",
			      NULL) == 1, "RA of 2001:db8:100:7::/64");
	TS_CHECK(tshark_lines(tshark_path, pcap_path,
			      "-Y 'icmpv6.type == 134 && icmpv6.opt.prefix == 2001:db8:100:8:: && ipv6.dst == ff02::1 && "
			      "icmpv6.checksum.status == 1'", NULL) == 1, "RA to all-nodes");
	TS_CHECK(tshark_lines(tshark_path, pcap_path,
			      "-o udp.check_checksum:TRUE -Y 'gtp.message == 255 && gtp.ext_hdr.pdu_ses_con.pdu_type == 0 && "
			      "ipv6.dst == 2001:db8:100:7::/64 && udp.checksum.status == 1'", NULL) >= 6,
		 "IPv6 downlink in GTP-U with the DL container");
	TS_CHECK(tshark_lines(tshark_path, pcap_path, "-Y '!gtp && ipv6.src == 2001:db8:100:7::/64'", NULL) >= 2,
		 "decapsulated IPv6 uplink");
#undef TS_CHECK
	return bad ? -1 : 0;
}

static int group_setup(void **state)
{
	(void)state;
	vec = tv_open("gtpu_messages.txt");
	if (!vec)
		return -1;
	if (tn_unshare_net())
		return -1;
	if (tn_fib_setup(&n3_ifindex, &n6_ifindex))
		return -1;
	/* IPv6 toward the DN for the IPv6 uplink (bpf_fib_lookup AF_INET6 needs forwarding on). */
	if (tn_sh("sysctl -qw net.ipv6.conf.all.forwarding=1 && "
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
	tv_close(vec);
	return tshark_check();
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_xdp");

	if (rc)
		return rc;
	/* The tshark check is extra: without tshark the forwarding tests still run (the Linux 6.1
	 * run in UML has none). */
	if (argc > 2 && tshark_require(argv[1], "decode the IPv6 frames of the UPF") == 0) {
		tshark_path = argv[1];
		snprintf(pcap_path, sizeof(pcap_path), "%s/upf_xdp_v6.pcap", argv[2]);
	}
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(t_ul_container, fx_teardown),
		cmocka_unit_test_teardown(t_ul_plain, fx_teardown),
		cmocka_unit_test_teardown(t_ul_two_ext, fx_teardown),
		cmocka_unit_test_teardown(t_ul_wrong_source, fx_teardown),
		cmocka_unit_test_teardown(t_ul_wrong_qfi, fx_teardown),
		cmocka_unit_test_teardown(t_ul_unknown_teid, fx_teardown),
		cmocka_unit_test_teardown(t_echo_and_end_marker, fx_teardown),
		cmocka_unit_test_teardown(t_non_gtp, fx_teardown),
		cmocka_unit_test_teardown(t_malformed, fx_teardown),
		cmocka_unit_test_teardown(t_dl_ok, fx_teardown),
		cmocka_unit_test_teardown(t_dl_idle, fx_teardown),
		cmocka_unit_test_teardown(t_ambr, fx_teardown),
		cmocka_unit_test_teardown(t_socket_echo_err_ind, fx_teardown),
		cmocka_unit_test_teardown(t_nexthop_cache, fx_teardown),
		cmocka_unit_test_teardown(t_dl_mtu, fx_teardown),
		cmocka_unit_test_teardown(t_api_errors, fx_teardown),
		cmocka_unit_test_teardown(t_v6_ul_ok, fx_teardown),
		cmocka_unit_test_teardown(t_v6_ul_spoof, fx_teardown),
		cmocka_unit_test_teardown(t_v6_family, fx_teardown),
		cmocka_unit_test_teardown(t_v6_dl_ok, fx_teardown),
		cmocka_unit_test_teardown(t_v6_dual, fx_teardown),
		cmocka_unit_test_teardown(t_v6_dl_idle, fx_teardown),
		cmocka_unit_test_teardown(t_v6_rs_ra, fx_teardown),
		cmocka_unit_test_teardown(t_v6_api_errors, fx_teardown),
		cmocka_unit_test_teardown(t_v6_no_pool, fx_teardown),
		cmocka_unit_test(t_ev_loop),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
