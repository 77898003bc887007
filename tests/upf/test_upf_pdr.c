/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32, the XDP data path takes rules as TS 29.244 has them:
 *   - CP-chosen TEIDs anywhere in 32 bits (5.5.3.1: the CP function allocates the F-TEID when it
 *     does not ask CHOOSE), past max_teid through the data path's hash (upf.h ul_teid), with no
 *     clash with the TEIDs the UPF chooses (5.5.3.1, 8.2.3) and a clash refused with cause 73
 *     and Offending IE F-TEID (8.2.1, 7.5.3.1), no entry left for one with cause 75;
 *   - several uplink PDRs matched by precedence (5.2.1), SDF filters (8.2.5, TS 29.212 5.4.2),
 *     FAR FORW / DROP / FORW to CP-function with Outer Header Creation (Open5GS's up2cp: the
 *     UE's Router Solicitation to the SMF's GTP-U address in a G-PDU) and Open5GS's cp2up (the
 *     SMF's packet for the UE on our cp2up TEID, down the gNB tunnel);
 * replayed into the standalone UPF's PFCP server (upf/upf_n4.h) over real UDP on loopback with
 * the real XDP program (BPF_PROG_TEST_RUN in a private network namespace, tests/upf/netns.h)
 * carrying traffic through what was installed. Every datagram goes into a pcap that tshark's
 * PFCP dissector decodes at the end: nothing malformed, the F-TEIDs and causes read as meant.
 * Needs root; skips with 77 otherwise. argv: tshark path, build directory (for the pcap).
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

#include "common/pfcp/pfcp.h"
#include "upf/upf.h"
#include "upf/upf_n4.h"
#include "testlib.h"
#include "pkt.h"
#include "netns.h"

static const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
static const uint8_t GNB_MAC[6] = { 2, 0, 0, 0, 3, 2 };
#define N3 "192.0.2.1"
#define GNB "192.0.2.2"
#define DN "198.51.100.2"
#define UPF_N4_ADDR "127.0.0.1"
#define SMF_ADDR "127.0.0.2"
#define MAX_SESS 16
#define BIG_TEID 0xfffffff0u       /* bit 31 set, past every range of ours */
#define SMF_GTPU "127.0.0.2"
#define RS_FILTER "permit out 58 from ff02::2/128 to assigned"

static const char *tshark_path;
static int teardown_failed;
static char pcap_path[512];
static struct pcapw *W;
static int n3_if, n6_if;   /* n6_if: the downlink tests (item 2) */

static struct upf *U;
static struct upf_n4 *N;
static int cli = -1;
static struct pfcp_msg Q, R;
static uint8_t buf[4096];
static uint32_t seq = 1;
static uint32_t gnb_addr;          /* the downlink tunnel's end est() names; 0: GNB */

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static int setup(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .err_ind_per_s = 100, .max_cp_teids = 2,
	};
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .max_teid = MAX_SESS, .recovery_ts = 3900000000u,
		.sessions_per_peer = MAX_SESS,
	};

	(void)state;
	if (upf_open(&p, &U))
		return -1;
	np.upf = U;
	if (upf_n4_open(&np, &N))
		return -1;
	cli = tn_udp_bind(ip(SMF_ADDR), PFCP_PORT);
	return cli < 0 ? -1 : 0;
}

static int teardown(void **state)
{
	(void)state;
	upf_n4_close(N);
	upf_close(U);
	N = NULL;
	U = NULL;
	close(cli);
	cli = -1;
	return 0;
}

static void record(uint32_t src, uint32_t dst, const uint8_t *b, size_t len)
{
	uint8_t pkt[4200];

	pkt_ipv4(pkt, src, dst, 17, PKT_UDP + len);
	pkt_udp(pkt + PKT_IP, PFCP_PORT, PFCP_PORT, len);
	memcpy(pkt + PKT_IP + PKT_UDP, b, len);
	assert_int_equal(pcapw_upper(W, "ip", pkt, PKT_IP + PKT_UDP + len), 0);
}

/* Q to the server, its answer decoded into R (both recorded) */
static void xchg(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT),
				  .sin_addr.s_addr = ip(UPF_N4_ADDR) };
	static uint8_t in[4096];
	int len = pfcp_encode(&Q, buf, sizeof(buf));
	ssize_t n;

	assert_true(len > 0);
	assert_int_equal(sendto(cli, buf, (size_t)len, 0, (struct sockaddr *)&to, sizeof(to)), len);
	record(ip(SMF_ADDR), ip(UPF_N4_ADDR), buf, (size_t)len);
	assert_true(upf_n4_process(N) >= 1);
	n = recv(cli, in, sizeof(in), MSG_DONTWAIT);
	assert_true(n > 0);
	record(ip(UPF_N4_ADDR), ip(SMF_ADDR), in, (size_t)n);
	assert_true(pfcp_decode(in, (size_t)n, &R, NULL) > 0);
	assert_int_equal(R.h.seq, Q.h.seq);
	assert_int_equal(R.h.type, Q.h.type + 1);
}

static void associate(void)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_ASSOC_SETUP_REQ;
	Q.h.seq = seq++;
	Q.node.has = PFCP_N_NODE_ID | PFCP_N_RECOVERY;
	Q.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(Q.node.node_id.addr, &(uint32_t){ ip(SMF_ADDR) }, 4);
	Q.node.recovery = 3900000100u;
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
}

static uint32_t ue_addr(unsigned i)
{
	return htonl(ntohl(ip("172.16.0.0")) + 10 + i);
}

/* The common shape: PDR 1 uplink (F-TEID teid on our N3 address, or CHOOSE with teid 0), PDR 2
 * downlink, FAR 1 to Core, FAR 2 to the gNB's tunnel 0x77; UE address ue_addr(ue). */
static void est(uint64_t cp_seid, uint32_t teid, unsigned ue)
{
	struct pfcp_sess_est_req *e = &Q.est;
	struct pfcp_pdr *d;

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_EST_REQ;
	Q.h.seq = seq++;
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR;
	e->node_id.type = PFCP_NODE_IPV4;
	memcpy(e->node_id.addr, &(uint32_t){ ip(SMF_ADDR) }, 4);
	e->cp_fseid.flags = PFCP_ADDR_V4;
	e->cp_fseid.seid = cp_seid;
	memcpy(e->cp_fseid.ipv4, &(uint32_t){ ip(SMF_ADDR) }, 4);
	d = &e->pdr[e->n_pdr++];
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_OHR;
	d->pdr_id = 1;
	d->precedence = 255;
	d->far_id = 1;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID | PFCP_PDI_UE_IP;
	d->pdi.src_if = PFCP_IF_ACCESS;
	d->pdi.fteid.flags = PFCP_FTEID_V4 | (teid ? 0 : PFCP_FTEID_CH);
	d->pdi.fteid.teid = teid;
	if (teid)
		memcpy(d->pdi.fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	d->pdi.ue_ip.flags = PFCP_UEIP_V4;
	memcpy(d->pdi.ue_ip.ipv4, &(uint32_t){ ue_addr(ue) }, 4);
	d = &e->pdr[e->n_pdr++];
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	d->pdr_id = 2;
	d->precedence = 255;
	d->far_id = 2;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_UE_IP;
	d->pdi.src_if = PFCP_IF_CORE;
	d->pdi.ue_ip.flags = PFCP_UEIP_V4 | PFCP_UEIP_SD;
	memcpy(d->pdi.ue_ip.ipv4, &(uint32_t){ ue_addr(ue) }, 4);
	e->far[e->n_far++] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = 1,
						.apply = PFCP_AA_FORW,
						.fwd = { .has = PFCP_FWD_DEST_IF, .dest_if = PFCP_IF_CORE } };
	struct pfcp_far *f = &e->far[e->n_far++];

	*f = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = 2,
				.apply = PFCP_AA_FORW,
				.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC, .dest_if = PFCP_IF_ACCESS,
					 .ohc = { .desc = PFCP_OHC_GTPU4, .teid = 0x77 } } };
	memcpy(f->fwd.ohc.ipv4, &(uint32_t){ gnb_addr ? gnb_addr : ip(GNB) }, 4);
}

/* One more uplink PDR on the same CP-chosen TEID: precedence prec, one SDF filter with flow
 * description flow, FAR far */
static struct pfcp_pdr *add_ul_sdf(uint16_t id, uint32_t prec, const char *flow, uint32_t far)
{
	struct pfcp_pdr *d = &Q.est.pdr[Q.est.n_pdr++];

	*d = Q.est.pdr[0];
	d->pdr_id = id;
	d->precedence = prec;
	d->far_id = far;
	d->has &= ~(uint32_t)(PFCP_PDR_QER_ID | PFCP_PDR_URR_ID);
	d->pdi.has = (d->pdi.has & ~(uint32_t)PFCP_PDI_UE_IP) | PFCP_PDI_SDF;
	d->pdi.n_sdf = 1;
	d->pdi.sdf[0] = (struct pfcp_sdf){ .flags = PFCP_SDF_FD, .flow = { (const uint8_t *)flow, strlen(flow) } };
	return d;
}

static void add_far(uint32_t id, uint32_t apply, uint8_t dest_if)
{
	Q.est.far[Q.est.n_far++] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | (apply == PFCP_AA_FORW ?
										      PFCP_FAR_FWD : 0),
						      .far_id = id, .apply = apply,
						      .fwd = { .has = PFCP_FWD_DEST_IF, .dest_if = dest_if } };
}

static void del(uint64_t seid)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_DEL_REQ;
	Q.h.seq = seq++;
	Q.h.seid = seid;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
}

/* ---- the data path ---- */

struct run {
	int verdict;
	uint8_t out[2048];
	uint32_t len;
};

static void xdp(int ifindex, const uint8_t *frame, size_t len, struct run *r)
{
	r->len = sizeof(r->out);
	r->verdict = tn_xdp_run(upf_prog_fd(U), ifindex, frame, len, r->out, &r->len);
	assert_true(r->verdict >= 0);
}

/* An uplink G-PDU (inner UDP from the UE ue to DN, port dport) on teid: its verdict */
static int ul(uint32_t teid, unsigned ue, uint16_t dport)
{
	uint8_t inner[100], gtp[200], frame[300];
	size_t gl, fl;
	struct run r;

	pkt_inner_udp(inner, ue_addr(ue), ip(DN), sizeof(inner));
	memcpy(inner + PKT_IP + 2, &(uint16_t){ htons(dport) }, 2);
	gl = pkt_gpdu(gtp, teid, 1, 1, inner, sizeof(inner));
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	return r.verdict;
}

static uint64_t upcnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

/* A GTP-U datagram on the wire for the pcap (tshark decodes the G-PDU and what it carries) */
static void record_gtpu(uint32_t src, uint32_t dst, const uint8_t *b, size_t len)
{
	uint8_t pkt[2200];

	pkt_ipv4(pkt, src, dst, 17, PKT_UDP + len);
	pkt_udp(pkt + PKT_IP, 2152, 2152, len);
	memcpy(pkt + PKT_IP + PKT_UDP, b, len);
	assert_int_equal(pcapw_upper(W, "ip", pkt, PKT_IP + PKT_UDP + len), 0);
}

static uint64_t ul_pkts(uint32_t id)
{
	struct upf_session_stats st;

	assert_int_equal(upf_session_stats(U, id, &st), 0);
	return st.ul_pkts;
}

/* ---- CP-chosen TEIDs (issue 32 item 1) ---- */

/* TS 29.244 5.5.3.1: a CP-chosen F-TEID of 0xfffffff0 (bit 31 set, far past max_teid) is
 * accepted, the uplink on it forwarded by XDP and counted on its session; a second one, and a
 * CHOOSE session next to it, carry traffic too. Before issue 32: cause 71 (TEIDs past max_teid
 * refused, the data path's uplink rules being a direct array only). */
static void t_cp_teid_big(void **state)
{
	uint64_t seid;
	uint32_t chosen;

	(void)state;
	associate();
	est(0x100, BIG_TEID, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	seid = R.rsp.up_fseid.seid;
	assert_int_equal(ul(BIG_TEID, 0, 9), XDP_REDIRECT);
	assert_int_equal(ul_pkts((uint32_t)seid - 1), 1);
	est(0x101, 0x12345678, 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	est(0x102, 0, 2);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 1);
	chosen = R.rsp.created[0].fteid.teid;
	assert_in_range(chosen, 1, MAX_SESS);
	assert_int_equal(ul(0x12345678, 1, 9), XDP_REDIRECT);
	assert_int_equal(ul(chosen, 2, 9), XDP_REDIRECT);
	/* a TEID nobody holds: the exception path (Error Indication, TS 29.281 7.3.1) */
	assert_int_equal(ul(BIG_TEID - 1, 0, 9), XDP_PASS);
	/* a G-PDU on the held hash TEID that reaches the GTP-U socket (what the kernel hands it: a
	 * reassembled outer fragment) is known there too: counted, no Error Indication */
	{
		uint8_t inner[100], gtp[200], got[64];
		struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152),
					  .sin_addr.s_addr = ip(N3) };
		int g = tn_udp_bind(ip("127.0.0.5"), 2152), fd[UPF_MAX_FDS];
		uint64_t bad = upcnt(UPF_STAT_SOCK_BAD);
		size_t gl;

		assert_true(g >= 0);
		pkt_inner_udp(inner, ue_addr(0), ip(DN), sizeof(inner));
		gl = pkt_gpdu(gtp, BIG_TEID, 1, 1, inner, sizeof(inner));
		upf_fds(U, fd);
		assert_int_equal(sendto(g, gtp, gl, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl);
		assert_true(tn_wait_readable(fd[0], 2000));
		upf_process(U);
		assert_int_equal(upcnt(UPF_STAT_SOCK_BAD), bad + 1);
		assert_int_equal(tn_wait_readable(g, 200), 0);
		assert_true(recv(g, got, sizeof(got), MSG_DONTWAIT) < 0);
		close(g);
	}
	/* the session gone, so is its hash entry: the TEID is unknown, then free again */
	del(seid);
	assert_int_equal(ul(BIG_TEID, 0, 9), XDP_PASS);
	est(0x103, BIG_TEID, 3);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(BIG_TEID, 3, 9), XDP_REDIRECT);
}

/* A CP-chosen TEID equal to the one the UPF chose for a session that has gone (the number it
 * would hand out): accepted, traffic flows; then CHOOSE fills every other TEID of 1..max_teid
 * and never hands out the CP's (the bitmap skips it), each session with traffic. */
static void t_cp_teid_ours(void **state)
{
	uint32_t t, teids[MAX_SESS];

	(void)state;
	associate();
	est(0x200, 0, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	t = R.rsp.created[0].fteid.teid;
	del(R.rsp.up_fseid.seid);
	est(0x201, t, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(t, 0, 9), XDP_REDIRECT);
	for (unsigned i = 1; i < MAX_SESS; i++) {
		est(0x201 + i, 0, i);
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
		teids[i] = R.rsp.created[0].fteid.teid;
		assert_int_not_equal(teids[i], t);
		assert_int_equal(ul(teids[i], i, 9), XDP_REDIRECT);
	}
	assert_int_equal(upf_n4_sessions(N), MAX_SESS);
}

/* TS 29.244 8.2.1 / 7.5.3.1: a CP-chosen TEID another session holds (past max_teid, or one the
 * UPF chose), or one the UPF keeps for itself (the cp2up TEIDs right past max_teid, the
 * indirect forwarding tunnels' UPF_FWD_TEID), cannot be installed: cause 73 "Rule creation /
 * modification failure" with Offending IE F-TEID, the holder's traffic untouched. Before: cause
 * 71 for the first and the last two, Offending IE Create PDR for the second. */
static void t_cp_teid_clash(void **state)
{
	static const uint32_t bad[] = { BIG_TEID, 0, MAX_SESS + 1, UPF_FWD_TEID(3) };
	uint32_t chosen;

	(void)state;
	associate();
	est(0x300, BIG_TEID, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	est(0x301, 0, 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	chosen = R.rsp.created[0].fteid.teid;
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		est(0x310 + i, bad[i] ? bad[i] : chosen, 2);
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
		assert_true(R.rsp.has & PFCP_SRSP_OFFENDING);
		assert_int_equal(R.rsp.offending_ie, PFCP_IE_F_TEID);
	}
	assert_int_equal(upf_n4_sessions(N), 2);
	assert_int_equal(ul(BIG_TEID, 0, 9), XDP_REDIRECT);
	assert_int_equal(ul(chosen, 1, 9), XDP_REDIRECT);
	/* max_cp_teids (2 here) TEIDs past max_teid at once; a third: cause 75 (8.2.1 "No
	 * resources available"), Offending IE F-TEID */
	est(0x320, 0x22222222, 3);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	est(0x321, 0x33333333, 4);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_NO_RESOURCES);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_F_TEID);
	assert_int_equal(ul(0x33333333, 4, 9), XDP_PASS);
	assert_int_equal(ul(0x22222222, 3, 9), XDP_REDIRECT);
}

/* ---- several uplink PDRs (issue 32 item 2) ---- */

/* TS 29.244 5.2.1: the uplink PDRs of a session matched in precedence order, the first whose
 * PDI matches applies its FAR. On one CP-chosen TEID: PDR 1 (precedence 255, the UE's address,
 * FAR 1 to Core), PDR 3 (precedence 10, UDP to port 5000, FAR 3 DROP), PDR 4 (precedence 20,
 * UDP to ports 6000-6010, FAR 1), PDR 5 (precedence 300, UDP to port 7000, FAR 3: behind PDR 1,
 * never reached). Port 5000 dropped in XDP (drop_sdf, the session's drop counter), 6005, 7000
 * and 9 forwarded. Before issue 32: cause 73, Offending IE SDF Filter. */
static void t_sdf_two_ul(void **state)
{
	uint64_t seid, drops;
	struct upf_session_stats st;

	(void)state;
	associate();
	est(0x400, 5, 0);
	add_ul_sdf(3, 10, "permit out 17 from any 5000 to assigned", 3);
	add_ul_sdf(4, 20, "permit out 17 from 198.51.100.0/24 6000-6010 to assigned", 1);
	add_ul_sdf(5, 300, "permit out 17 from any 7000 to assigned", 3);
	add_far(3, PFCP_AA_DROP, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	seid = R.rsp.up_fseid.seid;
	drops = upcnt(UPF_CNT_DROP_SDF);
	assert_int_equal(ul(5, 0, 5000), XDP_DROP);
	assert_int_equal(upcnt(UPF_CNT_DROP_SDF), drops + 1);
	assert_int_equal(ul(5, 0, 6005), XDP_REDIRECT);
	assert_int_equal(ul(5, 0, 7000), XDP_REDIRECT);
	assert_int_equal(ul(5, 0, 9), XDP_REDIRECT);
	assert_int_equal(upf_session_stats(U, (uint32_t)seid - 1, &st), 0);
	assert_int_equal(st.ul_pkts, 3);
	assert_int_equal(st.ul_drops, 1);
	/* a session of the common shape next to it: no list, port 5000 forwarded */
	est(0x401, 6, 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(6, 1, 5000), XDP_REDIRECT);
	/* the session gone, its list with it: a new session on the same slot has none */
	del(seid);
	est(0x402, 5, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(5, 0, 5000), XDP_REDIRECT);
}

/* What the data path cannot take stays refused with cause 73 and the Offending IE (8.2.1): a
 * port list, a negated address, options after the rule, a Security Parameter Index filter, a
 * FAR that buffers the uplink, more PDRs than the list holds; nothing installed. */
static void t_sdf_refused(void **state)
{
	static const char *const bad[] = {
		"permit out 17 from any 80,443 to assigned", "permit out ip from !10.0.0.0/8 to assigned",
		"permit out 6 from any to assigned established", "deny out ip from any to assigned",
		"permit out 1 from any 80 to assigned",
	};

	(void)state;
	associate();
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		est(0x500 + i, 5, 0);
		add_ul_sdf(3, 10, bad[i], 1);
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
		assert_int_equal(R.rsp.offending_ie, PFCP_IE_SDF_FILTER);
	}
	est(0x510, 5, 0);
	add_ul_sdf(3, 10, "permit out 17 from any 53 to assigned", 1)->pdi.sdf[0].flags |= PFCP_SDF_SPI;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_SDF_FILTER);
	est(0x511, 5, 0);
	add_ul_sdf(3, 10, "permit out 17 from any 53 to assigned", 3);
	add_far(3, PFCP_AA_BUFF, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_FAR);
	est(0x512, 5, 0);
	for (unsigned i = 0; i < 7; i++)
		add_ul_sdf((uint16_t)(3 + i), 10 + i, "permit out 17 from any 53 to assigned", 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_PDR);
	assert_int_equal(upf_n4_sessions(N), 0);
}

/* TS 29.244 7.5.3.2 / 8.2.3: an uplink PDR and a further one (an SDF filter, FAR DROP) both
 * asking CHOOSE with the same CHOOSE ID get one TEID, each its Created PDR; the filter applies
 * on it. Before: cause 73 (Offending IE SDF Filter). */
static void t_sdf_choose(void **state)
{
	uint32_t t1 = 0, t3 = 0;
	struct pfcp_pdr *d;

	(void)state;
	associate();
	est(0x700, 0, 0);
	Q.est.pdr[0].pdi.fteid.flags |= PFCP_FTEID_CHID;
	Q.est.pdr[0].pdi.fteid.choose_id = 9;
	d = add_ul_sdf(3, 10, "permit out 17 from any 5000 to assigned", 3);
	add_far(3, PFCP_AA_DROP, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(d->pdi.fteid.choose_id, 9);
	assert_int_equal(R.rsp.n_created, 2);
	for (unsigned i = 0; i < R.rsp.n_created; i++) {
		if (R.rsp.created[i].pdr_id == 1)
			t1 = R.rsp.created[i].fteid.teid;
		if (R.rsp.created[i].pdr_id == 3)
			t3 = R.rsp.created[i].fteid.teid;
	}
	assert_int_not_equal(t1, 0);
	assert_int_equal(t3, t1);
	assert_int_equal(ul(t1, 0, 5000), XDP_DROP);
	assert_int_equal(ul(t1, 0, 9), XDP_REDIRECT);
}

/* The in-process API (upf.h upf_session_pdrs), as the built-in UPF would use it: a ToS / Traffic
 * Class filter (8.2.5 TTC, value under mask) dropping DSCP 46 while other packets pass; a list
 * with the session's own PDR first shadows everything behind it; the refusals: no such session
 * (-ENOENT), an unknown action or flow label past 20 bits or a flow not understood (-EINVAL),
 * more than UPF_PDR_MAX entries (-E2BIG); n 0 takes the list away. */
static void t_sdf_api(void **state)
{
	struct upf_session_rule r = { .ul_teid = 3, .ue_addr = ue_addr(0), .gnb_addr = ip(GNB), .gnb_teid = 9 };
	struct upf_ul_pdr d = { .precedence = 10, .action = UPF_PDR_DROP, .has_tos = true, .tos = 0xb8,
				.tos_mask = 0xfc };
	struct upf_ul_pdr many[UPF_PDR_MAX];
	uint8_t inner[100], gtp[200], frame[300];
	size_t gl, fl;
	struct run rr;

	(void)state;
	assert_int_equal(upf_session_create(U, 0, &r), 0);
	assert_int_equal(upf_session_pdrs(U, 0, 255, &d, 1), 0);
	pkt_inner_udp(inner, ue_addr(0), ip(DN), sizeof(inner));
	inner[1] = 0xb8;   /* DSCP 46 (EF); the header checksum is not the program's concern */
	gl = pkt_gpdu(gtp, 3, 1, 1, inner, sizeof(inner));
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &rr);
	assert_int_equal(rr.verdict, XDP_DROP);
	assert_int_equal(ul(3, 0, 9), XDP_REDIRECT);   /* ToS 0 */
	/* the session's own PDR before it (precedence 5 < 10): the filter is never reached */
	assert_int_equal(upf_session_pdrs(U, 0, 5, &d, 1), 0);
	xdp(n3_if, frame, fl, &rr);
	assert_int_equal(rr.verdict, XDP_REDIRECT);
	assert_int_equal(upf_session_pdrs(U, 1, 255, &d, 1), -ENOENT);
	d.action = 9;
	assert_int_equal(upf_session_pdrs(U, 0, 255, &d, 1), -EINVAL);
	d.action = UPF_PDR_TO_CP;   /* without the CP's address */
	assert_int_equal(upf_session_pdrs(U, 0, 255, &d, 1), -EINVAL);
	d.action = UPF_PDR_DROP;
	d.has_flow_label = true;
	d.flow_label = 0x100000;
	assert_int_equal(upf_session_pdrs(U, 0, 255, &d, 1), -EINVAL);
	d.has_flow_label = false;
	d.flow = "permit out ip from 10.0.0.0/33 to assigned";
	d.flow_len = strlen(d.flow);
	assert_int_equal(upf_session_pdrs(U, 0, 255, &d, 1), -EINVAL);
	for (unsigned i = 0; i < UPF_PDR_MAX; i++)
		many[i] = (struct upf_ul_pdr){ .precedence = i, .action = UPF_PDR_DROP };
	assert_int_equal(upf_session_pdrs(U, 0, 255, many, UPF_PDR_MAX), -E2BIG);
	/* the list from before the refusals is still in: DSCP 46 passes (own PDR first) */
	xdp(n3_if, frame, fl, &rr);
	assert_int_equal(rr.verdict, XDP_REDIRECT);
	d.flow = NULL;
	assert_int_equal(upf_session_pdrs(U, 0, 255, &d, 1), 0);
	xdp(n3_if, frame, fl, &rr);
	assert_int_equal(rr.verdict, XDP_DROP);
	assert_int_equal(upf_session_pdrs(U, 0, 255, NULL, 0), 0);
	xdp(n3_if, frame, fl, &rr);
	assert_int_equal(rr.verdict, XDP_REDIRECT);
	assert_int_equal(upf_session_remove(U, 0), 0);
}

/* Open5GS's up2cp and cp2up PDRs (its src/smf/context.c): the UE's Router Solicitation (RFC 4861
 * 4.1) on the uplink TEID matches the up2cp PDR (precedence 1000, SDF "permit out 58 from
 * ff02::2/128 to assigned") and its FAR (FORW to CP-function, Outer Header Creation toward the
 * SMF's GTP-U address, TEID 7): the SMF receives it in a G-PDU (TS 29.281). The SMF's answer on
 * our cp2up TEID goes down the gNB tunnel; the same G-PDU from another address is an unknown
 * TEID's (Error Indication, TS 29.281 7.3.1), not forwarded. Before issue 32 the RS was answered
 * by our own RA and the SMF's packet on cp2up got an Error Indication. */
static void t_up2cp_rs(void **state)
{
	uint8_t rs[64], gtp[160], frame[256], got[512], ll[16];
	uint32_t cp2up = 0;
	size_t rl, gl, fl;
	struct pfcp_pdr *d;
	struct pfcp_far *f;
	struct run r;
	int smf, gnb, other;
	ssize_t n;

	(void)state;
	smf = tn_udp_bind(ip(SMF_GTPU), 2152);
	gnb = tn_udp_bind(ip("127.0.0.3"), 2152);
	other = tn_udp_bind(ip("127.0.0.4"), 2152);
	assert_true(smf >= 0 && gnb >= 0 && other >= 0);
	gnb_addr = ip("127.0.0.3");
	associate();
	est(0x600, 5, 0);
	gnb_addr = 0;
	d = add_ul_sdf(4, 1000, RS_FILTER, 3);   /* up2cp: the UL PDR's TEID */
	d = &Q.est.pdr[Q.est.n_pdr++];           /* cp2up: Source Interface CP-function, the DL FAR */
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_OHR;
	d->pdr_id = 3;
	d->precedence = 1000;
	d->far_id = 2;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID;
	d->pdi.src_if = PFCP_IF_CP;
	d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_CH;
	f = &Q.est.far[Q.est.n_far++];
	*f = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = 3, .apply = PFCP_AA_FORW,
				.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC, .dest_if = PFCP_IF_CP,
					 .ohc = { .desc = PFCP_OHC_GTPU4, .teid = 7 } } };
	memcpy(f->fwd.ohc.ipv4, &(uint32_t){ ip(SMF_GTPU) }, 4);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (unsigned i = 0; i < R.rsp.n_created; i++)
		if (R.rsp.created[i].pdr_id == 3)
			cp2up = R.rsp.created[i].fteid.teid;
	assert_true(cp2up > MAX_SESS);

	/* the UE's RS up the N3 tunnel: to the SMF */
	assert_int_equal(pkt_in6("fe80::abcd", ll), 0);
	rl = pkt_rs6(rs, ll);
	gl = pkt_gpdu(gtp, 5, 1, 1, rs, rl);
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	record_gtpu(ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	assert_int_equal(r.verdict, XDP_DROP);   /* copied to user space */
	assert_int_equal(upcnt(UPF_CNT_UL_TO_CP), 1);
	assert_int_equal(upcnt(UPF_STAT_RA_SENT), 0);
	assert_true(upf_process(U) >= 1);
	assert_true(tn_wait_readable(smf, 2000));
	n = recv(smf, got, sizeof(got), MSG_DONTWAIT);
	assert_true(n > (ssize_t)rl);
	record_gtpu(ip(N3), ip(SMF_GTPU), got, (size_t)n);
	assert_int_equal(got[1], 255);                 /* G-PDU */
	assert_int_equal(pkt_rd32(got + 4), 7);        /* the FAR's TEID */
	assert_memory_equal(got + n - rl, rs, rl);     /* the RS as the UE sent it */

	/* the SMF's answer on cp2up: down the gNB tunnel (TEID 0x77) */
	gl = pkt_gpdu(gtp, cp2up, -1, 0, rs, rl);      /* any IPv6 packet for the UE */
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(2152), .sin_addr.s_addr = ip(N3) };
	int fd[UPF_MAX_FDS];

	upf_fds(U, fd);
	assert_int_equal(sendto(smf, gtp, gl, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl);
	record_gtpu(ip(SMF_GTPU), ip(N3), gtp, gl);
	assert_true(tn_wait_readable(fd[0], 2000));
	upf_process(U);
	assert_true(tn_wait_readable(gnb, 2000));
	n = recv(gnb, got, sizeof(got), MSG_DONTWAIT);
	assert_true(n > (ssize_t)rl);
	record_gtpu(ip(N3), ip("127.0.0.3"), got, (size_t)n);
	assert_int_equal(pkt_rd32(got + 4), 0x77);
	assert_memory_equal(got + n - rl, rs, rl);
	/* from another address: not the session's CP, an unknown TEID */
	assert_int_equal(sendto(other, gtp, gl, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)gl);
	assert_true(tn_wait_readable(fd[0], 2000));
	upf_process(U);
	assert_true(tn_wait_readable(other, 2000));
	n = recv(other, got, sizeof(got), MSG_DONTWAIT);
	assert_int_equal(got[1], 26);                  /* Error Indication */
	assert_int_equal(tn_wait_readable(gnb, 200), 0);
	close(smf);
	close(gnb);
	close(other);
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
		return -1;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

/* The exchange through tshark's PFCP dissector: nothing malformed; the IEs read as meant */
static int group_teardown(void **state)
{
	static const char *const want[] = {
		"pfcp.msg_type == 50 && pfcp.f_teid.teid == 0xfffffff0",
		"pfcp.msg_type == 51 && pfcp.cause == 73 && pfcp.offending_ie == 21",
		"pfcp.msg_type == 51 && pfcp.cause == 1 && pfcp.f_teid.teid <= 16",
		"pfcp.msg_type == 50 && pfcp.flow_desc == \"permit out 17 from any 5000 to assigned\"",
		"pfcp.msg_type == 51 && pfcp.cause == 73 && pfcp.offending_ie == 23",
		"gtp.teid == 7 && icmpv6.type == 133",
	};

	(void)state;
	if (pcapw_close(W))
		return -1;
	if (tshark_expert(tshark_path, pcap_path, NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y _ws.malformed", NULL) != 0)
		return -1;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		char f[400];

		snprintf(f, sizeof(f), "-Y '%s'", want[i]);
		if (tshark_lines(tshark_path, pcap_path, f, NULL) < 1) {
			fprintf(stderr, "tshark: nothing matches %s\n", want[i]);
			return -1;
		}
	}
	return 0;
}

static int group_teardown_checked(void **state)
{
	int rc = group_teardown(state);

	if (rc)
		fprintf(stderr, "group teardown failed: the tshark checks above\n");
	teardown_failed = rc != 0;
	return rc;
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_pdr");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_pdr.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_cp_teid_big, setup, teardown),
		cmocka_unit_test_setup_teardown(t_cp_teid_ours, setup, teardown),
		cmocka_unit_test_setup_teardown(t_cp_teid_clash, setup, teardown),
		cmocka_unit_test_setup_teardown(t_sdf_two_ul, setup, teardown),
		cmocka_unit_test_setup_teardown(t_sdf_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(t_up2cp_rs, setup, teardown),
		cmocka_unit_test_setup_teardown(t_sdf_api, setup, teardown),
		cmocka_unit_test_setup_teardown(t_sdf_choose, setup, teardown),
	};

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown_checked);
	return rc ? rc : teardown_failed;
}
