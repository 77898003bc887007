/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Indirect data forwarding tunnels (TS 23.502 4.9.1.3.2 steps 9-11, 4.9.1.3.3): the real XDP
 * program on crafted frames through BPF_PROG_TEST_RUN, and its socket fallback over loopback.
 * A private network namespace (tests/upf/netns.h tn_fib_setup) with static neighbours:
 *   n3 192.0.2.1/24 (N3)   source gNB 192.0.2.2 = 02:00:00:00:03:02
 *                          target gNB 192.0.2.3 = 02:00:00:00:03:03 (added here)
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
#include "pkt.h"
#include "netns.h"

static const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
static const uint8_t SRC_MAC[6] = { 2, 0, 0, 0, 3, 2 };
static const uint8_t TGT_MAC[6] = { 2, 0, 0, 0, 3, 3 };
#define N3 "192.0.2.1"
#define SRC_GNB "192.0.2.2"
#define TGT_GNB "192.0.2.3"
#define SESS 7
#define PEER_TEID 0x4242u
#define MAX_SESS 64

static int n3_if, n6_if;

static struct upf *U;
static int sock = -1;      /* a "gNB" on 127.0.0.2:2152 (socket fallback tests) */

struct run {
	int verdict;
	uint8_t out[2048];
	uint32_t len;
};

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

/* Per test: a upf (not attached: the tests run the program through BPF_PROG_TEST_RUN) with
 * session SESS installed, and the loopback "gNB" socket; counters start at zero. */
static int setup(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .err_ind_per_s = 100,
	};
	struct upf_session_rule r = {
		.ul_teid = 2, .ue_addr = ip("172.16.0.3"), .gnb_addr = ip(SRC_GNB), .gnb_teid = 0x99, .qfi = 5,
	};

	(void)state;
	if (upf_open(&p, &U) || upf_session_create(U, SESS, &r))
		return -1;
	sock = tn_udp_bind(ip("127.0.0.2"), 2152);
	return sock < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	upf_close(U);
	U = NULL;
	if (sock >= 0)
		close(sock);
	sock = -1;
	return 0;
}

static uint64_t cnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

static void run(const uint8_t *frame, size_t len, struct run *r)
{
	r->len = sizeof(r->out);
	r->verdict = tn_xdp_run(upf_prog_fd(U), n3_if, frame, len, r->out, &r->len);
	assert_true(r->verdict >= 0);
}

/* What the source gNB forwards (TS 38.413 8.4.1: the DL data it still holds): a G-PDU with the
 * DL PDU Session Container of QFI 5 (TS 38.415 5.5.2.1) around a 100-byte inner packet. */
static size_t fwd_gpdu(uint8_t *gtp, uint32_t teid)
{
	uint8_t inner[100];

	pkt_inner_udp(inner, ip("198.51.100.2"), ip("172.16.0.3"), sizeof(inner));
	return pkt_gpdu(gtp, teid, 5, 0, inner, sizeof(inner));
}

/* The source gNB's End Marker after its last forwarded packet (TS 29.281 7.3.2, TS 23.501
 * 5.8.2.9): type 254, no T-PDU, the same PDU Session Container. */
static size_t fwd_end_marker(uint8_t *gtp, uint32_t teid)
{
	const uint8_t em[16] = { 0x34, 0xfe, 0, 8, 0, 0, 0, 0, 0, 0, 0, 0x85, 1, 0x00, 5, 0 };

	memcpy(gtp, em, sizeof(em));
	teid = htonl(teid);
	memcpy(gtp + 4, &teid, 4);
	return sizeof(em);
}

static size_t frame_of(uint8_t *frame, const uint8_t *gtp, size_t gl)
{
	return pkt_gtpu_frame(frame, N3_MAC, SRC_MAC, ip(SRC_GNB), ip(N3), gtp, gl);
}

/* Four bytes after the UDP datagram inside the outer IPv4 packet (its total length grows,
 * checksum fixed). Returns the new frame length. */
static size_t ip_pad(uint8_t *frame, size_t len)
{
	uint16_t c;

	memset(frame + len, 0xee, 4);
	frame[PKT_ETH + 3] += 4;
	frame[PKT_ETH + 10] = frame[PKT_ETH + 11] = 0;
	c = pkt_csum(frame + PKT_ETH, PKT_IP);
	frame[PKT_ETH + 10] = (uint8_t)(c >> 8);
	frame[PKT_ETH + 11] = (uint8_t)c;
	return len + 4;
}

/* The relayed frame: toward the target gNB, a new outer header from N3 (TTL 64, valid
 * checksum, UDP 2152 -> 2152, checksum 0), the target's TEID; the GTP-U flags, optional
 * fields, extension headers and T-PDU exactly as the source sent them. */
static void check_relayed(const struct run *r, const uint8_t *gtp, size_t gl)
{
	const uint8_t *o = r->out, *ih = o + PKT_ETH, *u = ih + PKT_IP, *g = u + PKT_UDP;

	assert_int_equal(r->verdict, XDP_TX);          /* source and target both behind N3 */
	assert_int_equal(r->len, PKT_ETH + PKT_IP + PKT_UDP + gl);
	assert_memory_equal(o, TGT_MAC, 6);
	assert_memory_equal(o + 6, N3_MAC, 6);
	assert_int_equal(ih[0], 0x45);
	assert_int_equal(ih[8], 64);
	assert_int_equal(ih[9], 17);
	assert_int_equal(htonl(pkt_rd32(ih + 12)), ip(N3));
	assert_int_equal(htonl(pkt_rd32(ih + 16)), ip(TGT_GNB));
	assert_int_equal(((unsigned)ih[2] << 8 | ih[3]), PKT_IP + PKT_UDP + gl);
	assert_int_equal(pkt_csum(ih, PKT_IP), 0);
	assert_int_equal((unsigned)u[0] << 8 | u[1], 2152);
	assert_int_equal((unsigned)u[2] << 8 | u[3], 2152);
	assert_int_equal((unsigned)u[4] << 8 | u[5], PKT_UDP + gl);
	assert_int_equal((unsigned)u[6] << 8 | u[7], 0);
	assert_memory_equal(g, gtp, 4);
	assert_int_equal(pkt_rd32(g + 4), PEER_TEID);
	assert_memory_equal(g + 8, gtp + 8, gl - 8);
}

/* TS 23.502 4.9.1.3.3 step 3 (indirect forwarding via the UPF): G-PDUs to UPF_FWD_TEID(id)
 * leave toward the target gNB's DL forwarding tunnel; Ethernet padding is not relayed. */
static void t_fwd_gpdu(void **state)
{
	uint8_t gtp[256], frame[400];
	size_t gl = fwd_gpdu(gtp, UPF_FWD_TEID(SESS)), len = frame_of(frame, gtp, gl);
	struct upf_session_stats st;
	struct run r;

	(void)state;
	/* Before the tunnel exists the TEID is unknown: to the socket (Error Indication). */
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_PASS);
	assert_int_equal(cnt(UPF_CNT_DROP_FWD_NO_TUNNEL), 1);
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), PEER_TEID), 0);
	run(frame, len, &r);
	check_relayed(&r, gtp, gl);
	memset(frame + len, 0xee, 10);
	run(frame, len + 10, &r);
	check_relayed(&r, gtp, gl);
	/* Padding inside the outer IPv4 packet, after the UDP datagram (total length larger than
	 * 20 + UDP length, TS 29.281 4.4.1 carries GTP-U in the UDP payload only): not relayed,
	 * and the relayed header gives the length it has. */
	run(frame, ip_pad(frame, len), &r);
	check_relayed(&r, gtp, gl);
	assert_int_equal(cnt(UPF_CNT_FWD_PKTS), 3);
	assert_int_equal(cnt(UPF_CNT_FWD_BYTES), 3 * gl);
	assert_int_equal(cnt(UPF_CNT_FWD_END_MARKER), 0);
	/* Not uplink: the session's own counters and the uplink counter do not move. */
	assert_int_equal(upf_session_stats(U, SESS, &st), 0);
	assert_int_equal(st.ul_pkts + st.dl_pkts + st.ul_drops, 0);
	assert_int_equal(cnt(UPF_CNT_UL_FWD), 0);
	assert_int_equal(cnt(UPF_CNT_UNKNOWN_TEID), 0);
}

/* TS 29.281 7.3.2 / TS 23.501 5.8.2.9: the End Marker on a forwarding tunnel is relayed (the
 * target learns the forwarded stream is over); on a session's own TEID it is still counted
 * and dropped. */
static void t_fwd_end_marker(void **state)
{
	uint8_t gtp[64], frame[128];
	size_t gl = fwd_end_marker(gtp, UPF_FWD_TEID(SESS)), len = frame_of(frame, gtp, gl);
	struct run r;

	(void)state;
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), PEER_TEID), 0);
	run(frame, len, &r);
	check_relayed(&r, gtp, gl);
	assert_int_equal(r.out[PKT_ETH + PKT_IP + PKT_UDP + 1], 254);
	assert_int_equal(cnt(UPF_CNT_FWD_END_MARKER), 1);
	assert_int_equal(cnt(UPF_CNT_FWD_PKTS), 1);
	assert_int_equal(cnt(UPF_CNT_END_MARKER), 0);
	gl = fwd_end_marker(gtp, 2);
	len = frame_of(frame, gtp, gl);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_DROP);
	assert_int_equal(cnt(UPF_CNT_END_MARKER), 1);
	assert_int_equal(cnt(UPF_CNT_FWD_END_MARKER), 1);
}

/* After upf_fwd_remove (TS 23.502 4.9.1.3.3 step 21a: the SMF releases the forwarding tunnel)
 * the TEID is unknown again: the G-PDU goes to the socket, which answers with an Error
 * Indication naming the TEID (TS 29.281 7.3.1); an End Marker is dropped. Counted. A
 * TEID with bit 31 beyond max_sessions is an unknown uplink TEID: the same answer. */
static void t_fwd_removed(void **state)
{
	uint8_t gtp[256], frame[400], got[256];
	size_t gl = fwd_gpdu(gtp, UPF_FWD_TEID(SESS)), len = frame_of(frame, gtp, gl);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152), .sin_addr.s_addr = ip(N3) };
	int fd[UPF_MAX_FDS];
	struct run r;

	(void)state;
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), PEER_TEID), 0);
	assert_int_equal(upf_fwd_remove(U, SESS), 0);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_PASS);
	assert_int_equal(r.len, len);
	assert_memory_equal(r.out, frame, len);
	gl = fwd_end_marker(gtp, UPF_FWD_TEID(SESS));
	len = frame_of(frame, gtp, gl);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_DROP);
	/* Issue 32: bit 31 beyond max_sessions is no forwarding TEID but an uplink one a CP may
	 * choose (TS 29.244 5.5.3.1): unknown here, the same Error Indication path. */
	uint64_t unknown = cnt(UPF_CNT_UNKNOWN_TEID);

	gl = fwd_gpdu(gtp, UPF_FWD_TEID(MAX_SESS + 5));
	len = frame_of(frame, gtp, gl);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_PASS);
	assert_int_equal(cnt(UPF_CNT_UNKNOWN_TEID), unknown + 1);
	assert_int_equal(cnt(UPF_CNT_DROP_FWD_NO_TUNNEL), 2);
	assert_int_equal(cnt(UPF_CNT_FWD_PKTS), 0);

	/* What XDP_PASS hands the kernel reaches the socket: Error Indication, TEID Data I. */
	gl = fwd_gpdu(gtp, UPF_FWD_TEID(SESS));
	assert_int_equal(sendto(sock, gtp, gl, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl);
	upf_fds(U, fd);
	assert_true(tn_wait_readable(fd[0], 2000));
	upf_process(U);
	assert_true(tn_wait_readable(sock, 2000));
	assert_int_equal(recv(sock, got, sizeof(got), MSG_DONTWAIT), 28);
	assert_int_equal(got[1], 26);
	assert_int_equal(got[16], 16);
	assert_int_equal(pkt_rd32(got + 17), UPF_FWD_TEID(SESS));
	assert_int_equal(cnt(UPF_STAT_ERR_IND_SENT), 1);
	assert_int_equal(cnt(UPF_STAT_FWD_SENT), 0);
}

/* The socket fallback (what the program passes to the kernel: no neighbour entry yet, an
 * outer fragment, no program attached) relays the same way, from <N3>:2152, with no Error
 * Indication while the tunnel exists (TS 29.281 7.3.1 is for TEIDs we do not have). */
static void t_fwd_socket(void **state)
{
	uint8_t gtp[256], got[256];
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152), .sin_addr.s_addr = ip(N3) };
	struct sockaddr_in from;
	socklen_t fl = sizeof(from);
	size_t gl[2];
	int fd[UPF_MAX_FDS];

	(void)state;
	assert_int_equal(upf_fwd_create(U, SESS, ip("127.0.0.2"), PEER_TEID), 0);
	upf_fds(U, fd);
	for (int i = 0; i < 2; i++) {
		gl[i] = i ? fwd_end_marker(gtp, UPF_FWD_TEID(SESS)) : fwd_gpdu(gtp, UPF_FWD_TEID(SESS));
		assert_int_equal(sendto(sock, gtp, gl[i], 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl[i]);
		assert_true(tn_wait_readable(fd[0], 2000));
		upf_process(U);
		assert_true(tn_wait_readable(sock, 2000));
		assert_int_equal(recvfrom(sock, got, sizeof(got), MSG_DONTWAIT, (struct sockaddr *)&from, &fl),
				 (ssize_t)gl[i]);
		assert_int_equal(from.sin_addr.s_addr, ip(N3));
		assert_int_equal(ntohs(from.sin_port), 2152);
		assert_memory_equal(got, gtp, 4);
		assert_int_equal(pkt_rd32(got + 4), PEER_TEID);
		assert_memory_equal(got + 8, gtp + 8, gl[i] - 8);
	}
	assert_int_equal(cnt(UPF_STAT_FWD_SENT), 2);
	assert_int_equal(cnt(UPF_STAT_FWD_SENT_BYTES), gl[0] + gl[1]);
	assert_int_equal(cnt(UPF_STAT_ERR_IND_SENT), 0);
	/* A G-PDU from our own N3 address is our relay come back (a target on a local
	 * address): not relayed again, counted. */
	{
		int self = tn_udp_bind(ip(N3), 40152);

		assert_true(self >= 0);
		gl[0] = fwd_gpdu(gtp, UPF_FWD_TEID(SESS));
		assert_int_equal(sendto(self, gtp, gl[0], 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl[0]);
		assert_true(tn_wait_readable(fd[0], 2000));
		upf_process(U);
		close(self);
	}
	assert_false(tn_wait_readable(sock, 200));
	assert_int_equal(cnt(UPF_STAT_FWD_SENT), 2);
	assert_int_equal(cnt(UPF_STAT_SOCK_BAD), 1);
}

/* No neighbour entry for the target yet: the program does not guess a MAC, it passes the
 * frame unchanged to the kernel (for the socket, which resolves the neighbour). */
static void t_fwd_no_neighbour(void **state)
{
	uint8_t gtp[256], frame[400];
	size_t gl = fwd_gpdu(gtp, UPF_FWD_TEID(SESS)), len = frame_of(frame, gtp, gl);
	struct run r;

	(void)state;
	assert_int_equal(upf_fwd_create(U, SESS, ip("192.0.2.9"), PEER_TEID), 0);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_PASS);
	assert_int_equal(r.len, len);
	assert_memory_equal(r.out, frame, len);
	assert_int_equal(cnt(UPF_CNT_FWD_KERNEL), 1);
	/* With bytes after the datagram inside the outer IPv4 packet: the kernel gets the
	 * datagram with a total length that matches it (else it would drop it). */
	{
		uint8_t padded[400];

		memcpy(padded, frame, len);
		run(padded, ip_pad(padded, len), &r);
		assert_int_equal(r.verdict, XDP_PASS);
		assert_int_equal(r.len, len);
		assert_memory_equal(r.out, frame, len);
		assert_int_equal(cnt(UPF_CNT_FWD_KERNEL), 2);
	}
	assert_int_equal(cnt(UPF_CNT_FWD_PKTS), 0);
	/* A target on one of our own addresses (here N6) would come back to us: dropped,
	 * counted, not handed to the kernel. */
	assert_int_equal(upf_fwd_remove(U, SESS), 0);
	assert_int_equal(upf_fwd_create(U, SESS, ip("198.51.100.1"), PEER_TEID), 0);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_DROP);
	assert_int_equal(cnt(UPF_CNT_DROP_FIB), 1);
	assert_int_equal(cnt(UPF_CNT_FWD_KERNEL), 2);
}

/* TS 29.281 5.1: a forwarding TEID does not skip the GTP-U checks: a wrong length is dropped
 * as malformed, not relayed. */
static void t_fwd_malformed(void **state)
{
	uint8_t gtp[256], frame[400];
	size_t gl = fwd_gpdu(gtp, UPF_FWD_TEID(SESS)), len;
	struct run r;

	(void)state;
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), PEER_TEID), 0);
	gtp[3] ^= 0x10;
	len = frame_of(frame, gtp, gl);
	run(frame, len, &r);
	assert_int_equal(r.verdict, XDP_DROP);
	assert_int_equal(cnt(UPF_CNT_DROP_MALFORMED), 1);
	assert_int_equal(cnt(UPF_CNT_FWD_PKTS), 0);
}

/* The API's answers (upf.h), and the tunnel leaves with its session (no leak into the id's
 * next owner). upf_close with a tunnel left is the ASan build's leak check. */
static void t_fwd_api(void **state)
{
	uint8_t gtp[256], frame[400];
	size_t gl = fwd_gpdu(gtp, UPF_FWD_TEID(SESS)), len = frame_of(frame, gtp, gl);
	struct upf_session_rule r = {
		.ul_teid = 2, .ue_addr = ip("172.16.0.3"), .gnb_addr = ip(SRC_GNB), .gnb_teid = 0x99, .qfi = 5,
	};
	struct run out;

	(void)state;
	assert_int_equal(upf_fwd_create(U, MAX_SESS, ip(TGT_GNB), 1), -ERANGE);
	assert_int_equal(upf_fwd_create(U, UPF_FWD_TEID(1), ip(TGT_GNB), 1), -ERANGE);
	assert_int_equal(upf_fwd_create(U, SESS, 0, 1), -EINVAL);
	/* A target tunnel on our own N3 address would relay into itself. */
	assert_int_equal(upf_fwd_create(U, SESS, ip(N3), UPF_FWD_TEID(SESS)), -EINVAL);
	assert_int_equal(upf_fwd_remove(U, SESS), -ENOENT);
	assert_int_equal(upf_fwd_remove(U, MAX_SESS), -ERANGE);
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), PEER_TEID), 0);
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), 5), -EEXIST);
	/* The refused create left the first tunnel as it was. */
	run(frame, len, &out);
	check_relayed(&out, gtp, gl);
	assert_int_equal(upf_fwd_remove(U, SESS), 0);
	assert_int_equal(upf_fwd_remove(U, SESS), -ENOENT);
	/* Removed with its session. */
	assert_int_equal(upf_fwd_create(U, SESS, ip(TGT_GNB), PEER_TEID), 0);
	assert_int_equal(upf_session_remove(U, SESS), 0);
	assert_int_equal(upf_fwd_remove(U, SESS), -ENOENT);
	run(frame, len, &out);
	assert_int_equal(out.verdict, XDP_PASS);
	assert_int_equal(upf_session_create(U, SESS, &r), 0);
	run(frame, len, &out);
	assert_int_equal(out.verdict, XDP_PASS);
	/* Tunnels of other ids are independent; one left open for upf_close. */
	assert_int_equal(upf_fwd_create(U, 0, ip(TGT_GNB), 1), 0);
	assert_int_equal(upf_fwd_create(U, MAX_SESS - 1, ip(TGT_GNB), 2), 0);
	assert_int_equal(upf_fwd_remove(U, 0), 0);
	assert_string_equal(upf_counter_name(UPF_CNT_FWD_PKTS), "fwd_pkts");
	assert_string_equal(upf_counter_name(UPF_CNT_DROP_FWD_NO_TUNNEL), "drop_fwd_no_tunnel");
	assert_string_equal(upf_counter_name(UPF_STAT_FWD_SENT), "fwd_sent");
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
		return -1;
	return tn_sh("ip neigh replace " TGT_GNB " lladdr 02:00:00:00:03:03 dev n3 nud permanent");
}

int main(void)
{
	int rc = tn_require_root_bpf("upf_fwd");

	if (rc)
		return rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_fwd_gpdu, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fwd_end_marker, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fwd_removed, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fwd_socket, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fwd_no_neighbour, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fwd_malformed, setup, teardown),
		cmocka_unit_test_setup_teardown(t_fwd_api, setup, teardown),
	};

	return cmocka_run_group_tests(tests, group_setup, NULL);
}
