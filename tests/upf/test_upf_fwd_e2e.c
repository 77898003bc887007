/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Indirect data forwarding end to end (TS 23.502 4.9.1.3.2 steps 9-11, 4.9.1.3.3): the real XDP
 * program attached to the core's n3 and n6 (tests/upf/e2e_topo.h), a "source gNB" on
 * 192.0.2.2:2152 and a "target gNB" on 192.0.2.3:2152 in the gnb namespace (both behind N3, so
 * the relay leaves by the interface it came in on), and a capture on gnb0 that tshark decodes.
 * Needs root; skips with 77 otherwise (and without tshark).
 *
 * XDP mode: UPF_E2E_MODE=generic|native (default generic); native attaches an XDP_PASS program
 * to gnb0 and dn0 (veth XDP_TX / redirect needs one on the receiving peer).
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

#include "upf/upf.h"
#include "e2e_topo.h"
#include "netns.h"
#include "pkt.h"
#include "testlib.h"

#define TGT_ADDR "192.0.2.3"
#define SESS 1
#define TGT_TEID 0x7001u
#define NPKT 40
#define QFI 1

static const char *tshark = "/nonexistent/tshark";
static const char *outdir = ".";
static struct e2e topo;
static struct upf *U;
static enum upf_xdp_mode mode = UPF_XDP_GENERIC;
static int src_sock = -1, tgt_sock = -1, cap = -1;

/* What the target side received (outer IPv4 on), for tshark. */
static uint8_t seen[NPKT + 1][256];
static size_t seen_len[NPKT + 1];
static int nseen;

static uint64_t cnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

static void src_send(const uint8_t *gtp, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152),
				  .sin_addr.s_addr = e2e_ip(E2E_N3_ADDR) };

	assert_int_equal(sendto(src_sock, gtp, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
}

/* The next packet the capture sees toward the target (not the Error Indications or ARP
 * around it), kept for tshark; its length or -1. */
static int cap_target(void)
{
	uint8_t b[2048];

	for (int i = 0; i < 8; i++) {
		int n = e2e_recv_wait(U, cap, b, sizeof(b), 2000);

		if (n < 0)
			return -1;
		if (n >= PKT_IP && pkt_rd32(b + 16) == ntohl(e2e_ip(TGT_ADDR)) && nseen <= NPKT &&
		    (size_t)n <= sizeof(seen[0])) {
			memcpy(seen[nseen], b, (size_t)n);
			seen_len[nseen++] = (size_t)n;
			return n;
		}
	}
	return -1;
}

static const char *const fields[] = { "ip.src", "ip.dst", "udp.srcport", "gtp.message", "gtp.teid",
				      "gtp.ext_hdr.pdu_ses_con.qos_flow_id" };

static int row(void *ctx, int fr, char **f)
{
	unsigned want_type = fr == nseen ? 0xfe : 0xff;
	int bad = 0;

	(void)ctx;
	/* The inner IPv4/UDP is decoded too: the outer header's fields come first. */
	for (int i = 0; i < 3; i++)
		f[i][strcspn(f[i], ",")] = 0;
	if (strcmp(f[0], E2E_N3_ADDR) || strcmp(f[1], TGT_ADDR) || strcmp(f[2], "2152")) {
		fprintf(stderr, "frame %d: %s:%s -> %s, want " E2E_N3_ADDR ":2152 -> " TGT_ADDR "\n", fr,
			f[0], f[2], f[1]);
		bad++;
	}
	if (strtoul(f[3], NULL, 0) != want_type || strtoul(f[4], NULL, 0) != TGT_TEID ||
	    strtoul(f[5], NULL, 0) != QFI) {
		fprintf(stderr, "frame %d: gtp.message %s teid %s qfi %s, want 0x%x 0x%x %d\n", fr, f[3], f[4],
			f[5], want_type, TGT_TEID, QFI);
		bad++;
	}
	return bad;
}

/* tshark, an independent decoder, reads the target side: every frame from N3:2152 to the
 * target, G-PDUs then the End Marker (gtp.message 254), the target's TEID, the QFI of the
 * source's PDU Session Container; nothing malformed. */
static int check_tshark(void)
{
	char path[512];
	struct pcapw *w;
	const struct tshark_fields q = { .fields = fields, .nfields = 6, .nframes = nseen, .row = row };

	snprintf(path, sizeof(path), "%s/upf_fwd_target.pcap", outdir);
	w = pcapw_open(path, PCAPW_EXPORTED_PDU);
	if (!w)
		return -1;
	for (int i = 0; i < nseen; i++)
		if (pcapw_upper(w, "ip", seen[i], seen_len[i]) < 0)
			return -1;
	pcapw_close(w);
	return tshark_fields(tshark, path, &q);
}

/* TS 23.502 4.9.1.3.3 step 3: the source gNB forwards its DL data, then its End Marker
 * (TS 23.501 5.8.2.9), to our forwarding tunnel; the target gNB receives each with its own
 * TEID, the same PDU Session Container and inner packet, outer source N3, in order. The core
 * has no neighbour entry for the target at first: the first packets take the socket path
 * (fwd_kernel, then fwd_sent) while the kernel resolves it, the rest the XDP relay. */
static void t_forward(void **state)
{
	uint8_t inner[120], gtp[256], got[2048];
	size_t gl;

	(void)state;
	assert_int_equal(upf_fwd_create(U, SESS, e2e_ip(TGT_ADDR), TGT_TEID), 0);
	for (int i = 0; i < NPKT; i++) {
		pkt_inner_udp(inner, e2e_ip(E2E_DN_ADDR), e2e_ip("10.45.0.1"), sizeof(inner));
		inner[PKT_IP + PKT_UDP] = (uint8_t)i;
		gl = pkt_gpdu(gtp, UPF_FWD_TEID(SESS), QFI, 0, inner, sizeof(inner));
		src_send(gtp, gl);
		assert_int_equal(e2e_recv_wait(U, tgt_sock, got, sizeof(got), 2000), (int)gl);
		assert_memory_equal(got, gtp, 4);
		assert_int_equal(pkt_rd32(got + 4), TGT_TEID);
		assert_memory_equal(got + 8, gtp + 8, gl - 8);
		assert_int_equal(cap_target(), (int)(PKT_IP + PKT_UDP + gl));
	}
	const uint8_t em[16] = { 0x34, 0xfe, 0, 8, 0x80, 0, 0, SESS, 0, 0, 0, 0x85, 1, 0x00, QFI, 0 };

	src_send(em, sizeof(em));
	assert_int_equal(e2e_recv_wait(U, tgt_sock, got, sizeof(got), 2000), (int)sizeof(em));
	assert_int_equal(got[1], 0xfe);
	assert_int_equal(pkt_rd32(got + 4), TGT_TEID);
	assert_int_equal(cap_target(), PKT_IP + PKT_UDP + (int)sizeof(em));
	fprintf(stderr, "forwarded: %llu by XDP (%llu End Marker), %llu by the socket after %llu passed\n",
		(unsigned long long)cnt(UPF_CNT_FWD_PKTS), (unsigned long long)cnt(UPF_CNT_FWD_END_MARKER),
		(unsigned long long)cnt(UPF_STAT_FWD_SENT), (unsigned long long)cnt(UPF_CNT_FWD_KERNEL));
	assert_int_equal(cnt(UPF_CNT_FWD_PKTS) + cnt(UPF_STAT_FWD_SENT), NPKT + 1);
	assert_int_equal(cnt(UPF_CNT_FWD_KERNEL), cnt(UPF_STAT_FWD_SENT));
	/* Once the neighbour is known the XDP relay carries it, End Marker included. */
	assert_true(cnt(UPF_CNT_FWD_PKTS) >= NPKT - 4);
	assert_int_equal(cnt(UPF_CNT_FWD_END_MARKER), 1);
	assert_int_equal(cnt(UPF_STAT_ERR_IND_SENT), 0);
	assert_int_equal(check_tshark(), 0);
}

/* After upf_fwd_remove (TS 23.502 4.9.1.3.3 step 21a) the same G-PDU gets an Error Indication
 * (TS 29.281 7.3.1: TEID Data I = the forwarding TEID, GTP-U Peer Address = N3) and nothing
 * reaches the target. */
static void t_removed(void **state)
{
	uint8_t inner[64], gtp[128], got[2048];
	size_t gl;

	(void)state;
	assert_int_equal(upf_fwd_remove(U, SESS), 0);
	pkt_inner_udp(inner, e2e_ip(E2E_DN_ADDR), e2e_ip("10.45.0.1"), sizeof(inner));
	gl = pkt_gpdu(gtp, UPF_FWD_TEID(SESS), QFI, 0, inner, sizeof(inner));
	src_send(gtp, gl);
	assert_int_equal(e2e_recv_wait(U, src_sock, got, sizeof(got), 2000), 28);
	assert_int_equal(got[1], 26);
	assert_int_equal(got[16], 16);
	assert_int_equal(pkt_rd32(got + 17), UPF_FWD_TEID(SESS));
	assert_int_equal(htonl(pkt_rd32(got + 24)), e2e_ip(E2E_N3_ADDR));
	assert_int_equal(e2e_recv_wait(U, tgt_sock, got, sizeof(got), 300), -1);
	assert_int_equal(cnt(UPF_CNT_DROP_FWD_NO_TUNNEL), 1);
	assert_int_equal(cnt(UPF_STAT_ERR_IND_SENT), 1);
}

static int group_setup(void **state)
{
	struct upf_params p = {
		.n3_ifname = "n3", .n6_ifname = "n6", .xdp_mode = mode,
		.n3_addr = e2e_ip(E2E_N3_ADDR), .ue_pool_addr = e2e_ip(E2E_POOL),
		.ue_pool_plen = E2E_POOL_PLEN, .max_sessions = 256,
	};
	struct upf_session_rule r = {
		.ul_teid = 0x11, .ue_addr = e2e_ip("10.45.0.1"), .gnb_addr = e2e_ip(E2E_GNB_ADDR),
		.gnb_teid = 0x100, .qfi = QFI, .dl_state = UPF_DL_ACTIVE,
	};

	(void)state;
	if (e2e_up(&topo) || tn_sh("ip -n %s addr add " TGT_ADDR "/24 dev gnb0", topo.gnb))
		return -1;
	if (mode == UPF_XDP_NATIVE &&
	    (e2e_attach_pass(&topo, topo.gnb, "gnb0") || e2e_attach_pass(&topo, topo.dn, "dn0")))
		return -1;
	if (upf_open(&p, &U) || upf_session_create(U, SESS, &r)) {
		fprintf(stderr, "upf_open / session failed\n");
		return -1;
	}
	src_sock = e2e_udp(&topo, topo.gnb, E2E_GNB_ADDR, 2152);
	tgt_sock = e2e_udp(&topo, topo.gnb, TGT_ADDR, 2152);
	cap = e2e_capture(&topo, topo.gnb, "gnb0");
	return src_sock < 0 || tgt_sock < 0 || cap < 0 ? -1 : 0;
}

static int group_teardown(void **state)
{
	(void)state;
	upf_close(U);
	e2e_down();
	return 0;
}

int main(int argc, char **argv)
{
	int rc = e2e_main_start(argc, argv, "upf_fwd_e2e", &tshark, &outdir, &mode);

	if (rc)
		return rc;
	rc = tshark_require(tshark, "decode the GTP-U the UPF relays to the target gNB");
	if (rc)
		return rc;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_forward),
		cmocka_unit_test(t_removed),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
