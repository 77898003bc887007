/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The standalone UPF's PFCP server (upf/upf_n4.h, TS 29.244) against a PFCP
 * client in this test (common/pfcp codec) over real UDP on loopback:
 *   server 127.0.0.1:8805 (N4), client "SMF" 127.0.0.2:8805
 * with the real UPF (XDP program loaded, UPF_XDP_NONE) whose rules are checked
 * by running G-PDUs and downlink packets through BPF_PROG_TEST_RUN in a
 * private network namespace (tests/upf/netns.h: n3 192.0.2.1, gNB 192.0.2.2,
 * n6 198.51.100.1, DN router 198.51.100.2). Every well-formed datagram of the
 * exchange goes into a pcap that tshark's PFCP dissector decodes at the end
 * (no malformed frame, no error). Needs root; skips with 77 otherwise.
 * argv: tshark path, build directory (for the pcap).
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
#include <time.h>
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
static const uint8_t N6_MAC[6] = { 2, 0, 0, 0, 6, 1 };
static const uint8_t DN_MAC[6] = { 2, 0, 0, 0, 6, 2 };
#define N3 "192.0.2.1"
#define GNB "192.0.2.2"
#define UE "172.16.0.3"
#define UPF_N4_ADDR "127.0.0.1"
#define SMF_ADDR "127.0.0.2"
#define RECOVERY 3900000000u      /* our Recovery Time Stamp (NTP seconds) */
#define CP_RECOVERY 3900000100u
#define MAX_SESS 64
/* IPv6 and NAT (setup6): pool6, our N3 IPv6, an IPv6 gNB, the DN router's IPv6 */
#define POOL6 "2001:db8:100::"
#define PFX6 "2001:db8:100:7::"
#define N3_6 "2001:db8:3::1"
#define GNB6 "2001:db8:3::2"
#define NAT_ADDR "198.51.100.1"

static const char *tshark_path;
static int teardown_failed;
static char pcap_path[512];
static struct pcapw *W;
static int n3_if, n6_if;

static struct upf *U;
static struct upf_n4 *N;
static int cli = -1;
static int notified;
static struct pfcp_msg Q, R;     /* 16.5 KB each: not on the stack */
static uint8_t buf[4096];

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

/* The data path's notification, wired to the N4 server as solocore upf does */
static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	notified++;
	upf_n4_dl_data(N, id);
}

static int setup(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .err_ind_per_s = 100, .on_dl_data = on_dl,
	};
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .max_teid = MAX_SESS, .recovery_ts = RECOVERY,
	};

	(void)state;
	notified = 0;
	if (upf_open(&p, &U))
		return -1;
	np.upf = U;
	if (upf_n4_open(&np, &N))
		return -1;
	cli = tn_udp_bind(ip(SMF_ADDR), PFCP_PORT);
	return cli < 0 ? -1 : 0;
}

/* The DNNs of the UPF's own configuration (upf_alone.c): NAT on "nat" (and its pool) */
static const struct upf_n4_dnn DNNS[] = {
	{ .name = "internet", .plen = 17 }, { .name = "nat", .plen = 17, .nat = true },
};

/* As setup, with pool6 2001:db8:100::/48, N3 IPv6 and NAT on N6 (the n6 address) */
static int setup6(void **state)
{
	static struct upf_n4_dnn d[2];
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .ue_pool6_plen = 48, .nat_addr = ip(NAT_ADDR), .max_sessions = MAX_SESS,
		.err_ind_per_s = 100, .on_dl_data = on_dl,
	};
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .ue_pool6_plen = 48, .dnns = d, .n_dnns = 2, .max_sessions = MAX_SESS,
		.max_teid = MAX_SESS, .recovery_ts = RECOVERY,
	};

	(void)state;
	memcpy(d, DNNS, sizeof(d));
	d[0].pool = ip("172.16.0.0");
	d[1].pool = ip("172.16.128.0");
	notified = 0;
	if (pkt_in6(POOL6, p.ue_pool6) || pkt_in6(N3_6, p.n3_addr6))
		return -1;
	memcpy(np.ue_pool6, p.ue_pool6, 16);
	memcpy(np.n3_addr6, p.n3_addr6, 16);
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

static uint64_t n4cnt(unsigned idx)
{
	uint64_t c[UPF_N4__MAX];

	assert_int_equal(upf_n4_counters(N, c, UPF_N4__MAX), 0);
	return c[idx];
}

static uint64_t upcnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

/* A datagram src -> dst (UDP 8805 both ways) into the pcap */
static void record(uint32_t src, uint32_t dst, const uint8_t *b, size_t len)
{
	uint8_t pkt[4200];

	pkt_ipv4(pkt, src, dst, 17, PKT_UDP + len);
	pkt_udp(pkt + PKT_IP, PFCP_PORT, PFCP_PORT, len);
	memcpy(pkt + PKT_IP + PKT_UDP, b, len);
	assert_int_equal(pcapw_upper(W, "ip", pkt, PKT_IP + PKT_UDP + len), 0);
}

/* Raw bytes from fd to the server; the server handles them at once. */
static void send_from(int fd, const uint8_t *b, size_t len, int rec)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT),
				  .sin_addr.s_addr = ip(UPF_N4_ADDR) };

	assert_int_equal(sendto(fd, b, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
	if (rec)
		record(ip(SMF_ADDR), ip(UPF_N4_ADDR), b, len);
	assert_true(upf_n4_process(N) >= 1);
}

/* What the server sent to fd, decoded into R (recorded); -EAGAIN when nothing.
 * The server answers inside upf_n4_process(), so the datagram is already here. */
static int recv_on(int fd, uint8_t *raw, size_t *rawlen)
{
	static uint8_t in[4096];
	ssize_t n = recv(fd, in, sizeof(in), MSG_DONTWAIT);

	if (n < 0)
		return -EAGAIN;
	record(ip(UPF_N4_ADDR), ip(SMF_ADDR), in, (size_t)n);
	if (raw) {
		memcpy(raw, in, (size_t)n);
		*rawlen = (size_t)n;
	}
	assert_true(pfcp_decode(in, (size_t)n, &R, NULL) > 0);
	return (int)n;
}

/* Q to the server, its answer in R */
static void xchg(void)
{
	int n = pfcp_encode(&Q, buf, sizeof(buf));

	assert_true(n > 0);
	send_from(cli, buf, (size_t)n, 1);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.seq, Q.h.seq);   /* TS 29.244 7.2.2.2 */
	assert_int_equal(R.h.type, Q.h.type + 1);
}

static void no_answer(void)
{
	assert_int_equal(recv_on(cli, NULL, NULL), -EAGAIN);
}

static void node_id(struct pfcp_node_id *id)
{
	memset(id, 0, sizeof(*id));
	id->type = PFCP_NODE_IPV4;
	memcpy(id->addr, &(uint32_t){ ip(SMF_ADDR) }, 4);
}

static void node_req(uint8_t type, uint32_t seq, uint32_t recovery)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = type;
	Q.h.seq = seq;
	Q.node.has = PFCP_N_NODE_ID | (recovery ? PFCP_N_RECOVERY : 0);
	node_id(&Q.node.node_id);
	Q.node.recovery = recovery;
}

/* TS 29.244 7.4.2.1: Heartbeat Request with the CP's Recovery Time Stamp */
static void hb_req(uint32_t seq)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_HEARTBEAT_REQ;
	Q.h.seq = seq;
	Q.node.has = PFCP_N_RECOVERY;
	Q.node.recovery = CP_RECOVERY;
}

/* TS 29.244 7.4.4.1 / 6.2.6.2: Association Setup accepted */
static void associate(uint32_t seq, uint32_t recovery)
{
	node_req(PFCP_ASSOC_SETUP_REQ, seq, recovery);
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
}

static void pdr(struct pfcp_pdr *d, uint16_t id, uint8_t src_if, uint32_t far)
{
	memset(d, 0, sizeof(*d));
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_QER_ID |
		 PFCP_PDR_URR_ID;
	d->pdr_id = id;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF;
	d->pdi.src_if = src_if;
	d->far_id = far;
	d->n_qer = 1;
	d->qer_id[0] = 1;
	d->n_urr = 1;
	d->urr_id[0] = 1;
}

/* A usual SMF's session (TS 23.502 4.3.2.2.1 step 10a): uplink PDR 1 with
 * CHOOSE and outer header removal, downlink PDR 2 to the UE address, FAR 1
 * forward to Core, FAR 2 forward to the gNB tunnel (or BUFF|NOCP when
 * buffer), QER 1 (MBR, QFI 5), URR 1 (volume). */
static void est_req(uint32_t seq, uint64_t cp_seid, const char *ue, int buffer)
{
	struct pfcp_sess_est_req *e = &Q.est;

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_EST_REQ;
	Q.h.seq = seq;
	Q.h.seid = 0;   /* 7.2.2.4.2: no UP SEID yet */
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR | PFCP_SER_QER | PFCP_SER_URR;
	node_id(&e->node_id);
	e->cp_fseid.flags = PFCP_ADDR_V4;
	e->cp_fseid.seid = cp_seid;
	memcpy(e->cp_fseid.ipv4, &(uint32_t){ ip(SMF_ADDR) }, 4);
	e->n_pdr = 2;
	pdr(&e->pdr[0], 1, PFCP_IF_ACCESS, 1);
	e->pdr[0].has |= PFCP_PDR_OHR;
	e->pdr[0].ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	e->pdr[0].pdi.has |= PFCP_PDI_F_TEID;
	e->pdr[0].pdi.fteid.flags = PFCP_FTEID_CH | PFCP_FTEID_V4;
	pdr(&e->pdr[1], 2, PFCP_IF_CORE, 2);
	e->pdr[1].pdi.has |= PFCP_PDI_UE_IP;
	e->pdr[1].pdi.ue_ip.flags = PFCP_UEIP_V4 | PFCP_UEIP_SD;
	memcpy(e->pdr[1].pdi.ue_ip.ipv4, &(uint32_t){ ip(ue) }, 4);
	e->n_far = 2;
	e->far[0] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = 1,
				       .apply = PFCP_AA_FORW,
				       .fwd = { .has = PFCP_FWD_DEST_IF, .dest_if = PFCP_IF_CORE } };
	e->far[1] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 2,
				       .apply = buffer ? PFCP_AA_BUFF | PFCP_AA_NOCP : PFCP_AA_FORW };
	if (!buffer) {
		e->far[1].has |= PFCP_FAR_FWD;
		e->far[1].fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC;
		e->far[1].fwd.dest_if = PFCP_IF_ACCESS;
		e->far[1].fwd.ohc.desc = PFCP_OHC_GTPU4;
		e->far[1].fwd.ohc.teid = 0x99;
		memcpy(e->far[1].fwd.ohc.ipv4, &(uint32_t){ ip(GNB) }, 4);
	}
	e->n_qer = 1;
	e->qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR | PFCP_QER_QFI,
				       .qer_id = 1, .mbr = { 100000, 200000 }, .qfi = 5 };
	e->n_urr = 1;
	e->urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS, .urr_id = 1,
				       .method = PFCP_MM_VOLUM };
}

/* Establish; returns our UP SEID, *teid the uplink TEID of the Created PDR */
static uint64_t establish(uint32_t seq, uint64_t cp_seid, const char *ue, int buffer, uint32_t *teid)
{
	est_req(seq, cp_seid, ue, buffer);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.h.seid, cp_seid);                   /* 7.2.2.4.2 */
	assert_true(R.rsp.has & PFCP_SRSP_F_SEID);
	assert_int_equal(R.rsp.n_created, 1);                  /* 7.5.3.2: CHOOSE answered */
	assert_int_equal(R.rsp.created[0].pdr_id, 1);
	assert_memory_equal(R.rsp.created[0].fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	if (teid)
		*teid = R.rsp.created[0].fteid.teid;
	return R.rsp.up_fseid.seid;
}

static void sess_req(uint8_t type, uint32_t seq, uint64_t seid)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = type;
	Q.h.seq = seq;
	Q.h.seid = seid;
}

/* Update FAR 2 (7.5.4.3): FORW to a gNB tunnel, or BUFF|NOCP */
static void mod_far(uint32_t seq, uint64_t seid, uint32_t gnb_teid, int buffer)
{
	struct pfcp_far *f = &Q.mod.upd_far[0];

	sess_req(PFCP_SESS_MOD_REQ, seq, seid);
	Q.mod.has = PFCP_SMR_UPD_FAR;
	Q.mod.n_upd_far = 1;
	f->has = PFCP_FAR_ID | PFCP_FAR_APPLY;
	f->far_id = 2;
	f->apply = buffer ? PFCP_AA_BUFF | PFCP_AA_NOCP : PFCP_AA_FORW;
	if (!buffer) {
		f->has |= PFCP_FAR_FWD;
		f->fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC;
		f->fwd.dest_if = PFCP_IF_ACCESS;
		f->fwd.ohc.desc = PFCP_OHC_GTPU4;
		f->fwd.ohc.teid = gnb_teid;
		memcpy(f->fwd.ohc.ipv4, &(uint32_t){ ip(GNB) }, 4);
	}
}

/* ---- the data path through BPF_PROG_TEST_RUN ---- */

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

/* Uplink G-PDU on teid (UL PDU Session Container, QFI 5): decapsulated to N6 */
static void ul_ok(uint32_t teid)
{
	uint8_t inner[100], gtp[200], frame[300];
	size_t gl, fl;
	struct run r;

	pkt_inner_udp(inner, ip(UE), ip("198.51.100.2"), sizeof(inner));
	gl = pkt_gpdu(gtp, teid, 5, 1, inner, sizeof(inner));
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	assert_int_equal(r.verdict, XDP_REDIRECT);
	assert_int_equal(r.len, PKT_ETH + sizeof(inner));
	assert_memory_equal(r.out + PKT_ETH, inner, sizeof(inner));
}

/* Downlink to the UE: XDP_REDIRECT encapsulated toward the gNB with gnb_teid,
 * or (gnb_teid 0) XDP_DROP into the buffer */
static void dl(uint32_t gnb_teid)
{
	uint8_t inner[80], frame[200];
	size_t fl;
	struct run r;

	pkt_inner_udp(inner, ip("198.51.100.2"), ip(UE), sizeof(inner));
	fl = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, sizeof(inner));
	xdp(n6_if, frame, fl, &r);
	if (!gnb_teid) {
		assert_int_equal(r.verdict, XDP_DROP);
		return;
	}
	assert_int_equal(r.verdict, XDP_REDIRECT);
	assert_memory_equal(r.out, GNB_MAC, 6);
	assert_int_equal(pkt_rd32(r.out + PKT_ETH + PKT_IP + PKT_UDP + 4), gnb_teid);
}

/* ---- tests ---- */

/* TS 29.244 7.4.2 / 6.2.2: heartbeat with or without an association;
 * 6.2.6.1: session and association update / release requests from a node
 * without an association get Cause 72; 7.4.4.1-7.4.4.4: setup and update
 * accepted with our Node ID, Recovery Time Stamp and UP Function Features. */
static void t_node(void **state)
{
	(void)state;
	hb_req(1);
	xchg();
	assert_int_equal(R.node.recovery, RECOVERY);

	est_req(2, 0x1111, UE, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_NO_ASSOCIATION);
	assert_int_equal(R.h.seid, 0);
	node_req(PFCP_ASSOC_UPDATE_REQ, 3, 0);
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_NO_ASSOCIATION);
	node_req(PFCP_ASSOC_RELEASE_REQ, 4, 0);
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_NO_ASSOCIATION);
	assert_int_equal(n4cnt(UPF_N4_NO_ASSOC), 3);
	assert_int_equal(upf_n4_sessions(N), 0);

	associate(5, CP_RECOVERY);
	assert_int_equal(R.node.recovery, RECOVERY);
	assert_memory_equal(R.node.node_id.addr, &(uint32_t){ ip(UPF_N4_ADDR) }, 4);
	assert_int_equal(R.node.up_features.len, 2);
	assert_int_equal(R.node.up_features.p[0], 0x10);   /* 8.2.25 FTUP */
	assert_int_equal(R.node.up_features.p[1], 0x01);   /* EMPU */
	assert_int_equal(upf_n4_associations(N), 1);
	node_req(PFCP_ASSOC_UPDATE_REQ, 6, 0);
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
}

/* TS 29.244 6.4: a retransmitted request (same peer, same sequence number)
 * is answered with the same response and not executed again. */
static void t_duplicate(void **state)
{
	uint8_t first[1024], again[1024];
	size_t l1, l2;
	int n;

	(void)state;
	associate(1, CP_RECOVERY);
	est_req(7, 0x2222, UE, 0);
	n = pfcp_encode(&Q, buf, sizeof(buf));
	assert_true(n > 0);
	send_from(cli, buf, (size_t)n, 1);
	assert_true(recv_on(cli, first, &l1) > 0);
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	send_from(cli, buf, (size_t)n, 1);
	assert_true(recv_on(cli, again, &l2) > 0);
	assert_int_equal(l1, l2);
	assert_memory_equal(first, again, l1);
	assert_int_equal(n4cnt(UPF_N4_RX_DUP), 1);
	assert_int_equal(n4cnt(UPF_N4_SESS_EST), 1);
	assert_int_equal(upf_n4_sessions(N), 1);
	/* A heartbeat repeated with the same sequence number: answered again, not from the
	 * cache (it changes nothing; issue 31 point 7: a flood of them must not take room) */
	hb_req(8);
	xchg();
	xchg();
	assert_int_equal(n4cnt(UPF_N4_HEARTBEAT), 2);
	assert_int_equal(n4cnt(UPF_N4_RX_DUP), 1);
	/* The number of the first Association Setup again with other bytes (a CP function that
	 * restarted and counts from there again, another Recovery Time Stamp): a new request,
	 * executed, not answered from the cache (6.4: a retransmission is the same message);
	 * the restart purges the session (TS 23.007 19A). */
	associate(1, CP_RECOVERY + 7);
	assert_int_equal(n4cnt(UPF_N4_RX_DUP), 1);
	assert_int_equal(n4cnt(UPF_N4_ASSOC_SETUP), 2);
	assert_int_equal(upf_n4_sessions(N), 0);
}

/* TS 29.244 7.5.2-7.5.7 with the data path: establishment installs the rule
 * (uplink decapsulated, downlink encapsulated toward the gNB), modification
 * of the downlink FAR moves the tunnel (End Marker on the old one, TS 23.501
 * 5.8.2.9), deletion removes it and reports the volume (7.5.7.2, 8.2.41 TERMR). */
static void t_session(void **state)
{
	struct upf_session_stats st;
	uint32_t teid;
	uint64_t seid;

	(void)state;
	associate(1, CP_RECOVERY);
	seid = establish(2, 0xabc, UE, 0, &teid);
	assert_in_range(teid, 1, MAX_SESS);   /* random in the data path's range (issue 31 point 6) */
	ul_ok(teid);
	dl(0x99);

	mod_far(3, seid, 0x77, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.h.seid, 0xabc);
	assert_int_equal(upcnt(UPF_STAT_END_MARKER_SENT), 1);
	dl(0x77);

	sess_req(PFCP_SESS_DEL_REQ, 4, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 1);
	assert_int_equal(R.rsp.usage[0].urr_id, 1);
	assert_true(R.rsp.usage[0].trigger & PFCP_URT_TERMR);
	assert_int_equal(R.rsp.usage[0].volume.ul_pkts, 1);
	assert_int_equal(R.rsp.usage[0].volume.ul, 100);
	assert_int_equal(R.rsp.usage[0].volume.dl_pkts, 2);
	assert_int_equal(R.rsp.usage[0].volume.total_pkts, 3);
	assert_int_equal(upf_n4_sessions(N), 0);
	assert_int_equal(upf_session_stats(U, 0, &st), -ENOENT);
	/* the deleted session's SEID is gone: 7.5.5.1 cause 65 */
	mod_far(5, seid, 0x78, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_SESSION_NOT_FOUND);
	assert_int_equal(R.h.seid, 0);
}

/* Our Session Report Response (7.5.9, Request accepted) to the UPF's report seq, encoded in buf */
static int rep_rsp(uint32_t seq, uint64_t seid)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_REPORT_RSP;
	Q.h.seq = seq;
	Q.h.seid = seid;
	Q.rep_rsp.has = PFCP_SRRSP_CAUSE;
	Q.rep_rsp.cause = PFCP_CAUSE_ACCEPTED;
	return pfcp_encode(&Q, buf, sizeof(buf));
}

/* TS 29.244 7.5.8 / 8.2.26: BUFF|NOCP -> the first buffered downlink packet
 * gives a Session Report Request with a Downlink Data Report; its response
 * is matched by sequence number and sender, a repeat of it or the same from
 * another address is stale (counted). */
static void t_report(void **state)
{
	uint64_t seid;
	uint32_t seq;
	int n;

	(void)state;
	associate(1, CP_RECOVERY);
	seid = establish(2, 0xdef, UE, 1, NULL);
	dl(0);
	assert_true(upf_process(U) >= 1);
	assert_int_equal(notified, 1);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_SESS_REPORT_REQ);
	assert_int_equal(R.h.seid, 0xdef);
	assert_int_equal(R.rep.type, PFCP_RPT_DLDR);
	assert_int_equal(R.rep.dl.n_pdr, 1);
	assert_int_equal(R.rep.dl.pdr_id[0], 2);
	seq = R.h.seq;
	n = rep_rsp(seq, seid);
	/* the right sequence number from another address does not answer it */
	int other = tn_udp_bind(ip("127.0.0.3"), PFCP_PORT);

	assert_true(other >= 0);
	send_from(other, buf, (size_t)n, 0);
	close(other);
	assert_int_equal(n4cnt(UPF_N4_RX_STALE_RSP), 1);
	assert_int_equal(n4cnt(UPF_N4_REPORT_RSP), 0);
	send_from(cli, buf, (size_t)n, 1);
	assert_int_equal(n4cnt(UPF_N4_REPORT_RSP), 1);
	send_from(cli, buf, (size_t)n, 1);
	assert_int_equal(n4cnt(UPF_N4_RX_STALE_RSP), 2);
	no_answer();
	/* the service request path: FORW to the gNB releases the buffered packet */
	mod_far(3, seid, 0x55, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(upcnt(UPF_STAT_BUF_RELEASED), 1);
	dl(0x55);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* TS 29.244 6.4: our Session Report Request without an answer goes again after T1 (3 s by
 * default), the same bytes and sequence number, N1 (3) times; then it is given up and counted,
 * and the session reports again in its next buffering period, with a new sequence number. An answer
 * to a retransmission stops it. Time is given to upf_n4_tick (no loop here). */
static void t_report_retx(void **state)
{
	uint8_t first[512], again[512];
	size_t flen, alen;
	uint64_t seid, t0;
	uint32_t seq;
	int n;

	(void)state;
	associate(1, CP_RECOVERY);
	seid = establish(2, 0xabc, UE, 1, NULL);
	dl(0);
	assert_true(upf_process(U) >= 1);
	t0 = mono_ns();
	assert_true(recv_on(cli, first, &flen) > 0);
	assert_int_equal(R.h.type, PFCP_SESS_REPORT_REQ);
	seq = R.h.seq;
	/* before T1: nothing */
	assert_int_equal(upf_n4_tick(N, t0 + 2900000000ull), 0);
	no_answer();
	/* T1 x 1, 2, 3: the same datagram each time */
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(upf_n4_tick(N, t0 + (uint64_t)i * 3100000000ull), 1);
		assert_true(recv_on(cli, again, &alen) > 0);
		assert_int_equal(alen, flen);
		assert_memory_equal(again, first, flen);
		assert_int_equal(R.h.seq, seq);
		assert_int_equal(R.h.seid, 0xabc);
		assert_int_equal(n4cnt(UPF_N4_REPORT_RETX), (uint64_t)i);
	}
	/* after N1 retransmissions: given up, nothing more is sent */
	assert_int_equal(upf_n4_tick(N, t0 + 4 * 3100000000ull), 0);
	no_answer();
	assert_int_equal(n4cnt(UPF_N4_REPORT_TIMEOUT), 1);
	assert_int_equal(upf_n4_tick(N, t0 + 12700000000ull), 0);   /* before the first heartbeat (t0 + 12.9 s) */
	no_answer();
	/* the late answer is stale now */
	n = rep_rsp(seq, seid);
	send_from(cli, buf, (size_t)n, 1);
	assert_int_equal(n4cnt(UPF_N4_RX_STALE_RSP), 1);
	assert_int_equal(n4cnt(UPF_N4_REPORT_RSP), 0);
	/* the data path notifies once per buffering period (upf.h on_dl_data): after the next
	 * activation and deactivation, the session reports again, a new sequence number */
	mod_far(3, seid, 0x55, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	mod_far(4, seid, 0, 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	dl(0);
	assert_true(upf_process(U) >= 1);
	t0 = mono_ns();
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_SESS_REPORT_REQ);
	assert_int_not_equal(R.h.seq, seq);
	seq = R.h.seq;
	assert_int_equal(n4cnt(UPF_N4_REPORT_SENT), 2);
	/* one retransmission, answered: no more */
	assert_int_equal(upf_n4_tick(N, t0 + 3100000000ull), 1);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.seq, seq);
	n = rep_rsp(seq, seid);
	send_from(cli, buf, (size_t)n, 1);
	assert_int_equal(n4cnt(UPF_N4_REPORT_RSP), 1);
	assert_int_equal(upf_n4_tick(N, t0 + 3 * 3100000000ull), 0);
	no_answer();
	assert_int_equal(n4cnt(UPF_N4_REPORT_RETX), 4);
	assert_int_equal(n4cnt(UPF_N4_REPORT_TIMEOUT), 1);
}

/* A report for a session deleted meanwhile is not sent again. */
static void t_report_retx_deleted(void **state)
{
	uint64_t seid, t0;

	(void)state;
	associate(1, CP_RECOVERY);
	seid = establish(2, 0xabd, UE, 1, NULL);
	dl(0);
	assert_true(upf_process(U) >= 1);
	t0 = mono_ns();
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_SESS_REPORT_REQ);
	sess_req(PFCP_SESS_DEL_REQ, 3, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(upf_n4_tick(N, t0 + 3100000000ull), 0);
	no_answer();
	assert_int_equal(n4cnt(UPF_N4_REPORT_RETX), 0);
	assert_int_equal(n4cnt(UPF_N4_REPORT_TIMEOUT), 0);
}

/* Our Heartbeat Response to the UPF's request seq, with recovery */
static void hb_rsp(uint32_t seq, uint32_t recovery)
{
	int n;

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_HEARTBEAT_RSP;
	Q.h.seq = seq;
	Q.node.has = PFCP_N_RECOVERY;
	Q.node.recovery = recovery;
	n = pfcp_encode(&Q, buf, sizeof(buf));
	assert_true(n > 0);
	send_from(cli, buf, (size_t)n, 1);
}

/* TS 29.244 6.2.2 / 7.4.2: the UPF sends a Heartbeat Request (its Recovery Time Stamp) to an
 * associated CP every heartbeat period (10 s by default); unanswered, it goes again after T1
 * N1 times (6.4), then the CP is counted unreachable and its sessions kept (the user plane
 * forwards on); a later answer makes it reachable again, and an answer with another Recovery
 * Time Stamp purges the CP's sessions (TS 23.007 19A). A response with a wrong sequence number
 * is stale. */
static void t_heartbeat_out(void **state)
{
	uint64_t t0;
	uint32_t seq;

	(void)state;
	t0 = mono_ns();
	associate(1, CP_RECOVERY);
	establish(2, 0xac1, UE, 0, NULL);
	/* the period starts at the first tick after the setup */
	assert_int_equal(upf_n4_tick(N, t0), 0);
	assert_int_equal(upf_n4_tick(N, t0 + 9000000000ull), 0);
	no_answer();
	assert_int_equal(upf_n4_tick(N, t0 + 10100000000ull), 1);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_HEARTBEAT_REQ);
	assert_true(R.node.has & PFCP_N_RECOVERY);
	assert_int_equal(R.node.recovery, RECOVERY);
	seq = R.h.seq;
	hb_rsp(seq + 1, CP_RECOVERY);           /* not ours */
	assert_int_equal(n4cnt(UPF_N4_RX_STALE_RSP), 1);
	hb_rsp(seq, CP_RECOVERY);
	assert_int_equal(n4cnt(UPF_N4_HB_ANSWERED), 1);
	hb_rsp(seq, CP_RECOVERY);               /* a repeat: stale */
	assert_int_equal(n4cnt(UPF_N4_RX_STALE_RSP), 2);
	/* the next one a period after the answer; unanswered: 1 + 3 sends, then unreachable */
	t0 = mono_ns();
	assert_int_equal(upf_n4_tick(N, t0 + 10100000000ull), 1);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	seq = R.h.seq;
	for (int i = 1; i <= 3; i++) {
		assert_int_equal(upf_n4_tick(N, t0 + 10100000000ull + (uint64_t)i * 3100000000ull), 1);
		assert_true(recv_on(cli, NULL, NULL) > 0);
		assert_int_equal(R.h.type, PFCP_HEARTBEAT_REQ);
		assert_int_equal(R.h.seq, seq);
	}
	assert_int_equal(upf_n4_tick(N, t0 + 10100000000ull + 4 * 3100000000ull), 0);
	no_answer();
	assert_int_equal(n4cnt(UPF_N4_CP_UNREACHABLE), 1);
	assert_int_equal(n4cnt(UPF_N4_HB_SENT), 5);
	assert_int_equal(upf_n4_sessions(N), 1);          /* kept */
	/* the next period: the CP answers, with a new Recovery Time Stamp: its sessions go */
	assert_int_equal(upf_n4_tick(N, t0 + 10100000000ull + 4 * 3100000000ull + 10100000000ull), 1);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_HEARTBEAT_REQ);
	hb_rsp(R.h.seq, CP_RECOVERY + 7);
	assert_int_equal(n4cnt(UPF_N4_HB_ANSWERED), 2);
	assert_int_equal(upf_n4_sessions(N), 0);
	assert_int_equal(n4cnt(UPF_N4_SESS_PURGED), 1);
	assert_int_equal(n4cnt(UPF_N4_CP_UNREACHABLE), 1);
}

/* One unsupported rule: cause, offending IE, nothing installed */
static void refused(uint8_t cause, uint16_t offending)
{
	xchg();
	assert_int_equal(R.rsp.cause, cause);
	assert_true(R.rsp.has & PFCP_SRSP_OFFENDING);
	assert_int_equal(R.rsp.offending_ie, offending);
	assert_int_equal(upf_n4_sessions(N), 0);
}

/* TS 29.244 7.5.3.1 / 8.2.1: what the XDP program cannot do is refused with
 * Cause 73 (71 for an F-TEID that is not ours) and the Offending IE, and the
 * session slot is returned (the next session still gets slot 0, TEID 1). */
static void t_unsupported(void **state)
{
	static const char narrow[] = "permit out ip from 10.0.0.0/8 to assigned";
	uint32_t teid;
	uint64_t seid;

	(void)state;
	associate(1, CP_RECOVERY);
	est_req(2, 1, UE, 0);                       /* a second uplink PDR */
	Q.est.pdr[1] = Q.est.pdr[0];
	Q.est.pdr[1].pdr_id = 3;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_PDR);
	est_req(3, 1, UE, 0);                       /* an SDF filter that selects */
	Q.est.pdr[1].pdi.has |= PFCP_PDI_SDF;
	Q.est.pdr[1].pdi.n_sdf = 1;
	Q.est.pdr[1].pdi.sdf[0].flags = PFCP_SDF_FD;
	Q.est.pdr[1].pdi.sdf[0].flow = (struct pfcp_buf){ (const uint8_t *)narrow, sizeof(narrow) - 1 };
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_SDF_FILTER);
	est_req(4, 1, UE, 0);                       /* duplication */
	Q.est.far[1].apply |= PFCP_AA_DUPL;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_APPLY_ACTION);
	est_req(5, 1, UE, 0);                       /* IPv6 UE address */
	Q.est.pdr[1].pdi.ue_ip.flags = PFCP_UEIP_V6 | PFCP_UEIP_SD;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est_req(6, 1, UE, 0);                       /* event measurement (a quota is accepted, issue 32) */
	Q.est.urr[0].method = PFCP_MM_EVENT;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_CREATE_URR);
	est_req(7, 1, UE, 0);                       /* a UE address outside the pool */
	memcpy(Q.est.pdr[1].pdi.ue_ip.ipv4, &(uint32_t){ ip("10.9.9.9") }, 4);
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est_req(8, 1, UE, 0);                       /* a given F-TEID on another address */
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_V4;
	Q.est.pdr[0].pdi.fteid.teid = 5;
	memcpy(Q.est.pdr[0].pdi.fteid.ipv4, &(uint32_t){ ip("192.0.2.9") }, 4);
	refused(PFCP_CAUSE_INVALID_FTEID_ALLOC, PFCP_IE_F_TEID);
	assert_int_equal(n4cnt(UPF_N4_SESS_REJECTED), 7);
	seid = establish(9, 1, UE, 0, &teid);
	assert_in_range(teid, 1, MAX_SESS);
	/* a second session on the same UE address: the data path refuses, cause 73 */
	est_req(10, 2, UE, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(upf_n4_sessions(N), 1);
	/* the downlink PDR removed with none created (a session keeps one, TS 29.244 7.5.4.6 is
	 * supported otherwise: upf_n4_urr t_pdr_far): refused, the rule unchanged */
	sess_req(PFCP_SESS_MOD_REQ, 11, seid);
	Q.mod.has = PFCP_SMR_RM_PDR;
	Q.mod.n_rm_pdr = 1;
	Q.mod.rm_pdr[0] = (struct pfcp_rm){ .has = PFCP_RM_ID, .id = 2 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_REMOVE_PDR);
	dl(0x99);
}

/* A forwarding G-PDU from the source gNB to teid: where the data path sends it (the TEID it
 * carries on, 0 when it is not relayed) */
static uint32_t fwd_relay(uint32_t teid)
{
	uint8_t inner[100], gtp[200], frame[300];
	size_t gl, fl;
	struct run r;

	pkt_inner_udp(inner, ip("198.51.100.2"), ip(UE), sizeof(inner));
	gl = pkt_gpdu(gtp, teid, 5, 0, inner, sizeof(inner));
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	if (r.verdict != XDP_TX && r.verdict != XDP_REDIRECT)
		return 0;
	return pkt_rd32(r.out + PKT_ETH + PKT_IP + PKT_UDP + 4);
}

/* Modification seq on seid with the forwarding PDR 3 (Source Access, Type 14 N3 for data
 * forwarding, F-TEID CHOOSE, OHR) and its FAR 3 to the target tunnel (teid; on GNB's address,
 * the one neighbour the data path knows here) */
static void fwd_req(uint32_t seq, uint64_t seid, uint32_t teid)
{
	struct pfcp_pdr *d = &Q.mod.pdr[0];
	struct pfcp_far *f = &Q.mod.far[0];

	sess_req(PFCP_SESS_MOD_REQ, seq, seid);
	Q.mod.has = PFCP_SMR_PDR | PFCP_SMR_FAR;
	Q.mod.n_pdr = Q.mod.n_far = 1;
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_OHR;
	d->pdr_id = 3;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_SRC_IF_TYPE | PFCP_PDI_F_TEID;
	d->pdi.src_if = PFCP_IF_ACCESS;
	d->pdi.src_if_type = PFCP_IFT_N3_FWD;
	d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_CH;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	d->far_id = 3;
	f->has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD;
	f->far_id = 3;
	f->apply = PFCP_AA_FORW;
	f->fwd.has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC;
	f->fwd.dest_if = PFCP_IF_ACCESS;
	f->fwd.ohc.desc = PFCP_OHC_GTPU4;
	f->fwd.ohc.teid = teid;
	memcpy(f->fwd.ohc.ipv4, &(uint32_t){ ip(GNB) }, 4);
}

static void fwd_refused(uint16_t offending, uint8_t rule_type, uint32_t rule_id)
{
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_true(R.rsp.has & PFCP_SRSP_OFFENDING);
	assert_int_equal(R.rsp.offending_ie, offending);
	assert_true(R.rsp.has & PFCP_SRSP_FAILED_RULE);   /* 8.2.80 */
	assert_int_equal(R.rsp.failed_rule.type, rule_type);
	assert_int_equal(R.rsp.failed_rule.id, rule_id);
}

/* Issue 32 (indirect forwarding over N4, TS 23.502 4.9.1.3.2 steps 9-10 / 4.9.1.3.3 step 21a):
 * a forwarding PDR + FAR in a Session Modification becomes the data path's forwarding tunnel
 * (UPF_FWD_TEID(id), answered in a Created PDR for CHOOSE, TS 29.244 7.5.5.1), its FAR
 * updated to another target, DROP, then removed (7.5.4.6-7); what it cannot do is cause 73 +
 * Offending IE + Failed Rule ID, the session unchanged. */
static void t_fwd(void **state)
{
	uint32_t teid, ft;
	uint64_t seid;

	(void)state;
	associate(1, CP_RECOVERY);
	seid = establish(2, 0xf00, UE, 0, &teid);
	fwd_req(3, seid, 0x2001);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 1);
	assert_int_equal(R.rsp.created[0].pdr_id, 3);
	ft = R.rsp.created[0].fteid.teid;
	assert_int_equal(ft, UPF_FWD_TEID(0));
	assert_memory_equal(R.rsp.created[0].fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	assert_int_equal(fwd_relay(ft), 0x2001);
	ul_ok(teid);   /* the session's own rules unchanged */
	dl(0x99);
	/* refused, each changing nothing: a second forwarding PDR */
	fwd_req(4, seid, 0x2002);
	Q.mod.pdr[0].pdr_id = 4;
	Q.mod.pdr[0].far_id = Q.mod.far[0].far_id = 4;
	fwd_refused(PFCP_IE_CREATE_PDR, PFCP_RULE_PDR, 4);
	/* FAR 3 removed while PDR 3 names it */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	Q.mod.has = PFCP_SMR_RM_FAR;
	Q.mod.n_rm_far = 1;
	Q.mod.rm_far[0] = (struct pfcp_rm){ .has = PFCP_RM_ID, .id = 3 };
	fwd_refused(PFCP_IE_REMOVE_FAR, PFCP_RULE_FAR, 3);
	/* the target over IPv6, or on our own N3 address (a relay loop): Update FAR refused */
	mod_far(6, seid, 0x2003, 0);
	Q.mod.upd_far[0].far_id = 3;
	Q.mod.upd_far[0].fwd.ohc.desc = PFCP_OHC_GTPU6;
	fwd_refused(PFCP_IE_UPDATE_FAR, PFCP_RULE_FAR, 3);
	mod_far(7, seid, 0x2003, 0);
	Q.mod.upd_far[0].far_id = 3;
	memcpy(Q.mod.upd_far[0].fwd.ohc.ipv4, &(uint32_t){ ip(N3) }, 4);
	fwd_refused(PFCP_IE_UPDATE_FAR, PFCP_RULE_FAR, 3);
	assert_int_equal(fwd_relay(ft), 0x2001);
	/* to another target: the tunnel follows */
	mod_far(8, seid, 0x2004, 0);
	Q.mod.upd_far[0].far_id = 3;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(fwd_relay(ft), 0x2004);
	/* the end of forwarding: Remove PDR 3 + Remove FAR 3; the session's rules as before */
	sess_req(PFCP_SESS_MOD_REQ, 9, seid);
	Q.mod.has = PFCP_SMR_RM_PDR | PFCP_SMR_RM_FAR;
	Q.mod.n_rm_pdr = Q.mod.n_rm_far = 1;
	Q.mod.rm_pdr[0] = (struct pfcp_rm){ .has = PFCP_RM_ID, .id = 3 };
	Q.mod.rm_far[0] = (struct pfcp_rm){ .has = PFCP_RM_ID, .id = 3 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(fwd_relay(ft), 0);
	ul_ok(teid);
	dl(0x99);
	/* a CP-chosen forwarding F-TEID: only the one the data path has for the session */
	fwd_req(10, seid, 0x2005);
	Q.mod.pdr[0].pdi.fteid.flags = PFCP_FTEID_V4;
	Q.mod.pdr[0].pdi.fteid.teid = UPF_FWD_TEID(1);
	memcpy(Q.mod.pdr[0].pdi.fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	fwd_refused(PFCP_IE_F_TEID, PFCP_RULE_PDR, 3);
	Q.mod.pdr[0].pdi.fteid.teid = UPF_FWD_TEID(0);
	Q.h.seq = 11;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 0);
	assert_int_equal(fwd_relay(ft), 0x2005);
	/* deleted with the session */
	sess_req(PFCP_SESS_DEL_REQ, 12, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(fwd_relay(ft), 0);
}

/* TS 29.244 7.6 and 6.4: garbage, truncated, wrong-version and stale input is
 * answered as the spec says or dropped, counted, and changes nothing. */
static void t_garbage(void **state)
{
	/* Association Setup Request without its mandatory Recovery Time Stamp */
	static const uint8_t no_recovery[] = { 0x20, 5, 0, 13, 0, 0, 9, 0,
					       0, 60, 0, 5, 0, 127, 0, 0, 2 };
	static const uint8_t junk[] = { 0xff, 0x01, 0x02 };
	uint8_t b[64];
	uint64_t seid;
	uint32_t teid;
	int n, other;

	(void)state;
	associate(1, CP_RECOVERY);
	seid = establish(2, 0x77, UE, 0, &teid);

	send_from(cli, junk, sizeof(junk), 0);            /* no header: dropped */
	no_answer();
	assert_int_equal(n4cnt(UPF_N4_RX_DROPPED), 1);

	hb_req(3);                                         /* version 2: 7.4.4.7 */
	n = pfcp_encode(&Q, b, sizeof(b));
	b[0] = (uint8_t)((b[0] & 0x1f) | 2 << 5);
	send_from(cli, b, (size_t)n, 0);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_VERSION_NOT_SUPPORTED_RSP);
	assert_int_equal(R.h.seq, 3);

	b[0] = 0x20;                                       /* unknown message type: ignored */
	b[1] = 99;
	send_from(cli, b, (size_t)n, 0);
	no_answer();

	est_req(4, 0x78, "172.16.0.4", 0);                 /* truncated: cause 68 */
	n = pfcp_encode(&Q, buf, sizeof(buf));
	send_from(cli, buf, 40, 0);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_SESS_EST_RSP);
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_INVALID_LENGTH);

	send_from(cli, no_recovery, sizeof(no_recovery), 1); /* cause 66, offending 96 */
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_ASSOC_SETUP_RSP);
	assert_int_equal(R.node.cause, PFCP_CAUSE_MANDATORY_IE_MISSING);
	assert_int_equal(n4cnt(UPF_N4_RX_BAD), 2);

	mod_far(5, seid, 0x66, 0);                         /* a modification cut short: cause 68, */
	n = pfcp_encode(&Q, buf, sizeof(buf));             /* answered with the CP's SEID (7.2.2.4.2) */
	send_from(cli, buf, (size_t)n - 4, 0);
	assert_true(recv_on(cli, NULL, NULL) > 0);
	assert_int_equal(R.h.type, PFCP_SESS_MOD_RSP);
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_INVALID_LENGTH);
	assert_int_equal(R.h.seid, 0x77);

	memset(&Q, 0, sizeof(Q));                          /* a response we never asked for */
	Q.h.type = PFCP_HEARTBEAT_RSP;
	Q.h.seq = 5;
	Q.node.has = PFCP_N_RECOVERY;
	n = pfcp_encode(&Q, buf, sizeof(buf));
	send_from(cli, buf, (size_t)n, 1);
	no_answer();
	assert_int_equal(n4cnt(UPF_N4_RX_STALE_RSP), 1);

	/* the session's SEID from an address without an association: cause 72 */
	other = tn_udp_bind(ip("127.0.0.3"), PFCP_PORT);
	assert_true(other >= 0);
	sess_req(PFCP_SESS_DEL_REQ, 6, seid);
	n = pfcp_encode(&Q, buf, sizeof(buf));
	send_from(other, buf, (size_t)n, 0);
	assert_true(recv_on(other, NULL, NULL) > 0);
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_NO_ASSOCIATION);
	close(other);

	assert_int_equal(upf_n4_sessions(N), 1);           /* nothing changed */
	assert_int_equal(upf_n4_associations(N), 1);
	dl(0x99);
	ul_ok(teid);
}

/* TS 29.244 6.2.6.2.2: a setup for an associated Node ID (the SMF restarted,
 * new Recovery Time Stamp) deletes the old association's sessions, and so
 * does a heartbeat with a new stamp (TS 23.007 19A); 6.2.6.4:
 * a release deletes them too, and session requests get cause 72 after it. */
static void t_restart_release(void **state)
{
	struct upf_session_stats st;
	int n;

	(void)state;
	associate(1, CP_RECOVERY);
	establish(2, 1, UE, 0, NULL);
	establish(3, 2, "172.16.0.4", 0, NULL);
	associate(4, CP_RECOVERY + 1);
	assert_int_equal(n4cnt(UPF_N4_SESS_PURGED), 2);
	assert_int_equal(upf_n4_sessions(N), 0);
	assert_int_equal(upf_session_stats(U, 0, &st), -ENOENT);
	assert_int_equal(upf_n4_associations(N), 1);
	/* TS 23.007 19A: a heartbeat with a new Recovery Time Stamp: the SMF restarted */
	establish(5, 3, UE, 0, NULL);
	hb_req(50);
	Q.node.recovery = CP_RECOVERY + 1;
	xchg();
	assert_int_equal(upf_n4_sessions(N), 1);                  /* same stamp: kept */
	/* issue 31 point 3: a new stamp in a Heartbeat Request is not believed on its own (a
	 * forged one could carry it): our own Heartbeat Request (random sequence number) goes
	 * to the bound address first, then the answer; the stamp in its response decides. */
	for (int confirm = 0; confirm < 2; confirm++) {
		uint32_t our_seq;

		hb_req(51 + (uint32_t)confirm);
		Q.node.recovery = CP_RECOVERY + 2;
		n = pfcp_encode(&Q, buf, sizeof(buf));
		send_from(cli, buf, (size_t)n, 1);
		assert_true(recv_on(cli, NULL, NULL) > 0);
		assert_int_equal(R.h.type, PFCP_HEARTBEAT_REQ);      /* ours, asking */
		our_seq = R.h.seq;
		assert_true(recv_on(cli, NULL, NULL) > 0);
		assert_int_equal(R.h.type, PFCP_HEARTBEAT_RSP);      /* the answer to theirs */
		assert_int_equal(R.node.recovery, RECOVERY);
		assert_int_equal(upf_n4_sessions(N), 1);              /* nothing purged yet */
		memset(&Q, 0, sizeof(Q));
		Q.h.type = PFCP_HEARTBEAT_RSP;
		Q.h.seq = our_seq;
		Q.node.has = PFCP_N_RECOVERY;
		/* first: the peer answers with the stamp it had (the request was forged) */
		Q.node.recovery = confirm ? CP_RECOVERY + 2 : CP_RECOVERY + 1;
		n = pfcp_encode(&Q, buf, sizeof(buf));
		send_from(cli, buf, (size_t)n, 1);
		no_answer();
		assert_int_equal(n4cnt(UPF_N4_RESTART_UNCONFIRMED), 1);
		assert_int_equal(upf_n4_sessions(N), confirm ? 0 : 1);
	}
	assert_int_equal(n4cnt(UPF_N4_SESS_PURGED), 3);
	assert_int_equal(upf_session_stats(U, 0, &st), -ENOENT);
	establish(52, 4, UE, 0, NULL);
	node_req(PFCP_ASSOC_RELEASE_REQ, 6, 0);
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(upf_n4_sessions(N), 0);
	assert_int_equal(upf_n4_associations(N), 0);
	est_req(7, 5, UE, 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_NO_ASSOCIATION);
}

/* TS 29.244 7.4.4.2 / 8.2.1: one association more than UPF_N4_PEER_MAX is
 * refused with Cause 75 in a Setup Response that still carries its mandatory
 * Recovery Time Stamp (found by fuzz_upf_n4: the answer could not be encoded). */
static void t_peer_limit(void **state)
{
	(void)state;
	for (uint32_t i = 0; i <= UPF_N4_PEER_MAX; i++) {
		/* another CP each time: its own address (one association per address) */
		char a[32];
		int fd, n;

		snprintf(a, sizeof(a), "127.0.1.%u", 10 + i);
		fd = tn_udp_bind(ip(a), PFCP_PORT);
		assert_true(fd >= 0);
		node_req(PFCP_ASSOC_SETUP_REQ, 100 + i, CP_RECOVERY);
		Q.node.node_id.addr[3] = (uint8_t)(10 + i);    /* another CP Node ID each time */
		n = pfcp_encode(&Q, buf, sizeof(buf));
		send_from(fd, buf, (size_t)n, 1);
		assert_true(recv_on(fd, NULL, NULL) > 0);
		close(fd);
		assert_int_equal(R.node.cause, i < UPF_N4_PEER_MAX ? PFCP_CAUSE_ACCEPTED : PFCP_CAUSE_NO_RESOURCES);
		assert_true(R.node.has & PFCP_N_RECOVERY);
		assert_int_equal(R.node.recovery, RECOVERY);
	}
	assert_int_equal(upf_n4_associations(N), UPF_N4_PEER_MAX);
	assert_int_equal(n4cnt(UPF_N4_TX_FAILED), 0);
}

/* ---- IPv6 sessions, outer IPv6 on N3, NAT (setup6) ---- */

static void in6(const char *s, uint8_t out[16])
{
	assert_int_equal(pkt_in6(s, out), 0);
}

/* est_req as the SMF's N4 client sends an IPv4v6 session (upf_n4c_sess.c): UE IP Address
 * (8.2.62) V4 + V6 with the /64 and no IPv6D / IP6PL (the default /64) in both PDRs, source
 * in the uplink one, destination (SD) in the downlink one; F-TEID CHOOSE V4 + V6. ue NULL:
 * IPv6 only. */
static void est6(uint32_t seq, uint64_t cp_seid, const char *ue, const char *pfx)
{
	struct pfcp_ue_ip *ul = &Q.est.pdr[0].pdi.ue_ip, *dl6 = &Q.est.pdr[1].pdi.ue_ip;

	est_req(seq, cp_seid, ue ? ue : UE, 0);
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_CH | PFCP_FTEID_V4 | PFCP_FTEID_V6;
	Q.est.pdr[0].pdi.has |= PFCP_PDI_UE_IP;
	*ul = *dl6;
	ul->flags &= (uint8_t)~PFCP_UEIP_SD;
	if (!ue) {
		ul->flags &= (uint8_t)~PFCP_UEIP_V4;
		dl6->flags &= (uint8_t)~PFCP_UEIP_V4;
	}
	if (pfx) {
		ul->flags |= PFCP_UEIP_V6;
		dl6->flags |= PFCP_UEIP_V6;
		in6(pfx, ul->ipv6);
		in6(pfx, dl6->ipv6);
	}
}

/* Downlink IPv6 to dst: the TEID it is encapsulated with (outer IPv4, or outer IPv6 when
 * outer6), 0 when dropped */
static uint32_t dl6(const char *dst, int outer6)
{
	uint8_t inner[80], frame[200], s6[16], d6[16];
	size_t fl;
	struct run r;

	in6("2001:db8:6::2", s6);
	in6(dst, d6);
	pkt_inner_udp6(inner, s6, d6, sizeof(inner));
	fl = pkt_ip6_frame(frame, N6_MAC, DN_MAC, inner, sizeof(inner));
	xdp(n6_if, frame, fl, &r);
	if (r.verdict == XDP_DROP)
		return 0;
	assert_int_equal(r.verdict, XDP_REDIRECT);
	assert_memory_equal(r.out, GNB_MAC, 6);
	if (!outer6) {
		assert_int_equal(r.out[12] << 8 | r.out[13], 0x0800);
		return pkt_rd32(r.out + PKT_ETH + PKT_IP + PKT_UDP + 4);
	}
	assert_int_equal(r.out[12] << 8 | r.out[13], 0x86dd);   /* outer IPv6 (TS 29.281 4.4.2) */
	in6(GNB6, d6);
	assert_memory_equal(r.out + PKT_ETH + 24, d6, 16);
	return pkt_rd32(r.out + PKT_ETH + 40 + PKT_UDP + 4);
}

/* Uplink IPv6 from src on teid: the XDP verdict (anti-spoofing drops a foreign /64) */
static int ul6(uint32_t teid, const char *src)
{
	uint8_t inner[100], gtp[200], frame[300], s6[16], d6[16];
	size_t gl, fl;
	struct run r;

	in6(src, s6);
	in6("2001:db8:99::1", d6);
	pkt_inner_udp6(inner, s6, d6, sizeof(inner));
	gl = pkt_gpdu(gtp, teid, 5, 1, inner, sizeof(inner));
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	if (r.verdict == XDP_REDIRECT) {
		assert_int_equal(r.len, PKT_ETH + sizeof(inner));
		assert_memory_equal(r.out + PKT_ETH, inner, sizeof(inner));
	}
	return r.verdict;
}

/* TS 29.244 8.2.62 / TS 23.501 5.8.2.2: an IPv4v6 session over N4 -- the /64 installed
 * (downlink to any address in it, uplink from it only, RS answered with an RA), the F-TEID
 * allocated on both our N3 addresses (8.2.3); then the gNB moves to IPv6 (8.2.56
 * GTP-U/UDP/IPv6): the downlink leaves in outer IPv6 from our N3 IPv6. */
static void t_ipv6(void **state)
{
	uint8_t n36[16], rs[64], gtp[128], frame[256];
	struct run r;
	uint32_t teid;
	uint64_t seid;
	size_t fl;

	(void)state;
	associate(1, CP_RECOVERY);
	est6(2, 0x66, UE, PFX6);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 1);
	assert_int_equal(R.rsp.created[0].fteid.flags, PFCP_FTEID_V4 | PFCP_FTEID_V6);
	assert_memory_equal(R.rsp.created[0].fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	in6(N3_6, n36);
	assert_memory_equal(R.rsp.created[0].fteid.ipv6, n36, 16);
	teid = R.rsp.created[0].fteid.teid;
	seid = R.rsp.up_fseid.seid;
	assert_int_equal(dl6("2001:db8:100:7::abcd", 0), 0x99);
	assert_int_equal(dl6("2001:db8:100:7:1:2:3:4", 0), 0x99);   /* the whole /64 */
	assert_int_equal(dl6("2001:db8:100:8::1", 0), 0);            /* another /64: dropped */
	dl(0x99);                                                     /* and IPv4 */
	ul_ok(teid);
	assert_int_equal(ul6(teid, "2001:db8:100:7::abcd"), XDP_REDIRECT);
	assert_int_equal(ul6(teid, "2001:db8:100:8::abcd"), XDP_DROP);   /* anti-spoofing */
	/* RS from the UE's link-local address -> an RA with its /64 (the UPF answers, upf.h) */
	{
		uint8_t ll[16];
		uint64_t before = upcnt(UPF_STAT_RA_SENT);
		size_t rl, gl;

		in6("fe80::abcd", ll);
		rl = pkt_rs6(rs, ll);
		gl = pkt_gpdu(gtp, teid, 5, 1, rs, rl);
		fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
		xdp(n3_if, frame, fl, &r);
		assert_true(upf_process(U) >= 1);
		assert_int_equal(upcnt(UPF_STAT_RA_SENT), before + 1);
	}
	/* the gNB is now reached over IPv6: Update FAR with GTP-U/UDP/IPv6 */
	mod_far(3, seid, 0x77, 0);
	Q.mod.upd_far[0].fwd.ohc.desc = PFCP_OHC_GTPU6;
	memset(Q.mod.upd_far[0].fwd.ohc.ipv4, 0, 4);
	in6(GNB6, Q.mod.upd_far[0].fwd.ohc.ipv6);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl6("2001:db8:100:7::abcd", 1), 0x77);
	/* an RS while the downlink is still buffered (the gNB's tunnel not yet known: the SMF's
	 * modification follows) is answered once the Update FAR activates it */
	est6(5, 0x68, "172.16.0.4", "2001:db8:100:a::");
	Q.est.far[1] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY, .far_id = 2,
					  .apply = PFCP_AA_BUFF | PFCP_AA_NOCP };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	{
		uint8_t ll[16];
		uint64_t before = upcnt(UPF_STAT_RA_SENT);
		uint32_t t2 = R.rsp.created[0].fteid.teid;
		uint64_t s2 = R.rsp.up_fseid.seid;
		size_t rl, gl;

		in6("fe80::abce", ll);
		rl = pkt_rs6(rs, ll);
		gl = pkt_gpdu(gtp, t2, 5, 1, rs, rl);
		fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
		xdp(n3_if, frame, fl, &r);
		upf_process(U);
		assert_int_equal(upcnt(UPF_STAT_RA_SENT), before);   /* owed, not sent */
		mod_far(6, s2, 0x55, 0);
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
		assert_int_equal(upcnt(UPF_STAT_RA_SENT), before + 1);
	}
	/* an IPv6-only session: no IPv4 in either PDR */
	est6(4, 0x67, NULL, "2001:db8:100:9::");
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl6("2001:db8:100:9::1", 0), 0x99);
	assert_int_equal(upf_n4_sessions(N), 3);
}

/* Each IPv6 refusal: Cause 73, the Offending IE, nothing installed (8.2.62, 8.2.3) */
static void t_ipv6_refused(void **state)
{
	(void)state;
	associate(1, CP_RECOVERY);
	est6(2, 1, UE, "2001:db8:200:7::");              /* outside pool6 */
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est6(3, 1, UE, PFX6);                            /* a /56 delegated (IPv6D, 8 bits) */
	Q.est.pdr[1].pdi.ue_ip.flags |= PFCP_UEIP_V6D;
	Q.est.pdr[1].pdi.ue_ip.v6d_bits = 8;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est6(4, 1, UE, PFX6);                            /* a /128 (IP6PL) */
	Q.est.pdr[1].pdi.ue_ip.flags |= PFCP_UEIP_V6PL;
	Q.est.pdr[1].pdi.ue_ip.v6_prefix_len = 128;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est6(5, 1, UE, PFX6);                            /* the uplink PDR names another /64 */
	in6("2001:db8:100:8::", Q.est.pdr[0].pdi.ue_ip.ipv6);
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est6(6, 1, UE, PFX6);                            /* ... or is a destination */
	Q.est.pdr[0].pdi.ue_ip.flags |= PFCP_UEIP_SD;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est6(7, 1, UE, PFX6);                            /* a given IPv6 F-TEID not ours */
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_V6;
	Q.est.pdr[0].pdi.fteid.teid = 5;
	in6(GNB6, Q.est.pdr[0].pdi.fteid.ipv6);
	refused(PFCP_CAUSE_INVALID_FTEID_ALLOC, PFCP_IE_F_TEID);
	est6(8, 1, UE, PFX6);                            /* outer header creation GTP-U/UDP/IPv6 + UDP */
	Q.est.far[1].fwd.ohc.desc = PFCP_OHC_GTPU6 | PFCP_OHC_UDP6;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HDR_CREATION);
	est6(9, 1, UE, PFX6);                            /* ... toward the unspecified IPv6 address */
	Q.est.far[1].fwd.ohc.desc = PFCP_OHC_GTPU6;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HDR_CREATION);
	assert_int_equal(n4cnt(UPF_N4_SESS_REJECTED), 8);
	/* the same with the prefix as given: accepted (nothing leaked) */
	est6(10, 1, UE, PFX6);
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_V6;
	Q.est.pdr[0].pdi.fteid.teid = 5;
	in6(N3_6, Q.est.pdr[0].pdi.fteid.ipv6);
	Q.est.pdr[0].ohr.desc = PFCP_OHR_GTPU_UDP_IPV6;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 0);
	assert_int_equal(upf_n4_sessions(N), 1);
}

/* Without pool6 / n3_address6 (setup): IPv6 rules are refused, not half installed */
static void t_ipv6_off(void **state)
{
	(void)state;
	associate(1, CP_RECOVERY);
	est6(2, 1, UE, PFX6);                            /* no pool6 (and a V6 CHOOSE) */
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_CH | PFCP_FTEID_V4;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_UE_IP_ADDRESS);
	est_req(3, 1, UE, 0);                            /* F-TEID CHOOSE IPv6 */
	Q.est.pdr[0].pdi.fteid.flags = PFCP_FTEID_CH | PFCP_FTEID_V6;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_F_TEID);
	est_req(4, 1, UE, 0);                            /* GTP-U/UDP/IPv6 removal */
	Q.est.pdr[0].ohr.desc = PFCP_OHR_GTPU_UDP_IPV6;
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HDR_REMOVAL);
	est_req(5, 1, UE, 0);                            /* an IPv6 gNB */
	Q.est.far[1].fwd.ohc.desc = PFCP_OHC_GTPU6;
	in6(GNB6, Q.est.far[1].fwd.ohc.ipv6);
	refused(PFCP_CAUSE_RULE_FAILURE, PFCP_IE_OUTER_HDR_CREATION);
	assert_int_equal(n4cnt(UPF_N4_SESS_REJECTED), 4);
}

/* Uplink IPv4 from ue on teid: the source the DN sees */
static uint32_t ul_src(uint32_t teid, const char *ue)
{
	uint8_t inner[100], gtp[200], frame[300];
	size_t gl, fl;
	struct run r;
	uint32_t a;

	pkt_inner_udp(inner, ip(ue), ip("198.51.100.2"), sizeof(inner));
	gl = pkt_gpdu(gtp, teid, 5, 1, inner, sizeof(inner));
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	assert_int_equal(r.verdict, XDP_REDIRECT);
	memcpy(&a, r.out + PKT_ETH + 12, 4);
	return a;
}

/* NAT is the UPF's (upf_n4_rule.c): by the DNN the downlink PDR's Network Instance names
 * (8.2.4; as APN labels, TS 23.003 9.1, or as text), else by the pool of the UE address. */
static void t_nat(void **state)
{
	static const uint8_t apn_nat[] = { 3, 'n', 'a', 't' }, apn_inet[] = { 8, 'i', 'n', 't', 'e', 'r', 'n', 'e', 't' };
	uint32_t teid;

	(void)state;
	associate(1, CP_RECOVERY);
	/* NI "nat" (labels) for a UE of internet's pool: the NI decides -> NAT */
	est_req(2, 1, "172.16.0.5", 0);
	Q.est.pdr[1].pdi.has |= PFCP_PDI_NI;
	Q.est.pdr[1].pdi.ni = (struct pfcp_buf){ apn_nat, sizeof(apn_nat) };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	teid = R.rsp.created[0].fteid.teid;
	assert_int_equal(ul_src(teid, "172.16.0.5"), ip(NAT_ADDR));
	/* NI "internet" (labels) for a UE of nat's pool: no NAT */
	est_req(3, 2, "172.16.128.5", 0);
	Q.est.pdr[1].pdi.has |= PFCP_PDI_NI;
	Q.est.pdr[1].pdi.ni = (struct pfcp_buf){ apn_inet, sizeof(apn_inet) };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	teid = R.rsp.created[0].fteid.teid;
	assert_int_equal(ul_src(teid, "172.16.128.5"), ip("172.16.128.5"));
	/* NI "NAT" as text (case-insensitive) */
	est_req(4, 3, "172.16.0.7", 0);
	Q.est.pdr[1].pdi.has |= PFCP_PDI_NI;
	Q.est.pdr[1].pdi.ni = (struct pfcp_buf){ (const uint8_t *)"NAT", 3 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul_src(R.rsp.created[0].fteid.teid, "172.16.0.7"), ip(NAT_ADDR));
	/* no NI, or one naming no DNN of ours: the UE address's pool decides */
	est_req(5, 4, "172.16.128.9", 0);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul_src(R.rsp.created[0].fteid.teid, "172.16.128.9"), ip(NAT_ADDR));
	est_req(6, 5, "172.16.0.9", 0);
	Q.est.pdr[1].pdi.has |= PFCP_PDI_NI;
	Q.est.pdr[1].pdi.ni = (struct pfcp_buf){ (const uint8_t *)"core", 4 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul_src(R.rsp.created[0].fteid.teid, "172.16.0.9"), ip("172.16.0.9"));
	assert_int_equal(upf_n4_sessions(N), 5);
}

static void no_send(void *arg, uint32_t addr, uint16_t port, const uint8_t *b, size_t len)
{
	(void)arg, (void)addr, (void)port, (void)b, (void)len;
}

/* upf_n4_open's argument checks (upf_n4.h): a pool6 longer than a /64, DNNs without the array */
static void t_open_errors(void **state)
{
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .max_sessions = 4, .max_teid = 4, .no_socket = true,
		.send = no_send,
	};
	struct upf_n4 *n = (struct upf_n4 *)&np;

	(void)state;
	np.ue_pool6_plen = 65;
	assert_int_equal(upf_n4_open(&np, &n), -EINVAL);
	assert_null(n);
	np.ue_pool6_plen = 64;
	np.n_dnns = 1;
	assert_int_equal(upf_n4_open(&np, &n), -EINVAL);
	assert_null(n);
	np.n_dnns = 0;   /* the rest was valid */
	assert_int_equal(upf_n4_open(&np, &n), 0);
	upf_n4_close(n);
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
		return -1;
	/* IPv6 (setup6): our N3 IPv6 and the gNB's, the DN router's, an IPv6 default route */
	if (tn_sh("sysctl -qw net.ipv6.conf.all.forwarding=1 && "
		  "ip -6 addr add " N3_6 "/64 dev n3 nodad && "
		  "ip -6 neigh replace " GNB6 " lladdr 02:00:00:00:03:02 dev n3 nud permanent && "
		  "ip -6 addr add 2001:db8:6::1/64 dev n6 nodad && "
		  "ip -6 neigh replace 2001:db8:6::2 lladdr 02:00:00:00:06:02 dev n6 nud permanent && "
		  "ip -6 route add default via 2001:db8:6::2 dev n6"))
		return -1;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

/* The whole exchange through tshark's PFCP dissector: no malformed frame, no
 * error-level expert item; the features and causes read as we meant them. */
static int group_teardown(void **state)
{
	(void)state;
	if (pcapw_close(W))
		return -1;
	if (tshark_expert(tshark_path, pcap_path, NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y _ws.malformed", NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path,
			 "-Y 'pfcp.up_function_features.ftup == 1 && pfcp.up_function_features.empu == 1'",
			 NULL) < 1)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.cause == 73 && pfcp.offending_ie == 23'", NULL) != 1)
		return -1;
	/* one report and its retransmissions (t_report_retx: same bytes, same sequence) */
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 56 && pfcp.pdr_id == 2'", NULL) < 1)
		return -1;
	/* IPv6 (t_ipv6): the UE IP Address with V6 and the /64 as tshark reads it (8.2.62), the
	 * F-TEID with both families (8.2.3), outer header creation toward the IPv6 gNB (8.2.56) */
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 50 && pfcp.ue_ip_address_flag.v6 == 1 && "
			 "pfcp.ue_ip_address_flag.sd == 1 && pfcp.ue_ip_addr_ipv6 == " PFX6 "'", NULL) < 1)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 51 && pfcp.f_teid_flags.v4 == 1 && "
			 "pfcp.f_teid_flags.v6 == 1 && pfcp.f_teid.ipv6_addr == " N3_6 "'", NULL) != 3)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 52 && pfcp.outer_hdr_creation.ipv6 == " GNB6 "'",
			 NULL) != 1)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 50 && pfcp.network_instance'", NULL) < 4)
		return -1;
	return 0;
}

static int group_teardown_checked(void **state)
{
	int rc = group_teardown(state);

	/* cmocka 1.1 prints a failed group teardown but does not count it: count it here */
	if (rc)
		fprintf(stderr, "group teardown failed: the tshark checks above\n");
	teardown_failed = rc != 0;
	return rc;
}

int main(int argc, char **argv)
{
	int rc = tn_require_root_bpf("upf_n4");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_node, setup, teardown),
		cmocka_unit_test_setup_teardown(t_duplicate, setup, teardown),
		cmocka_unit_test_setup_teardown(t_session, setup, teardown),
		cmocka_unit_test_setup_teardown(t_report, setup, teardown),
		cmocka_unit_test_setup_teardown(t_report_retx, setup, teardown),
		cmocka_unit_test_setup_teardown(t_report_retx_deleted, setup, teardown),
		cmocka_unit_test_setup_teardown(t_heartbeat_out, setup, teardown),
		cmocka_unit_test_setup_teardown(t_unsupported, setup, teardown),
		cmocka_unit_test_setup_teardown(t_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(t_restart_release, setup, teardown),
		cmocka_unit_test_setup_teardown(t_peer_limit, setup, teardown),
		cmocka_unit_test_setup_teardown(t_ipv6, setup6, teardown),
		cmocka_unit_test_setup_teardown(t_ipv6_refused, setup6, teardown),
		cmocka_unit_test_setup_teardown(t_ipv6_off, setup, teardown),
		cmocka_unit_test_setup_teardown(t_nat, setup6, teardown),
		cmocka_unit_test_setup_teardown(t_fwd, setup, teardown),
		cmocka_unit_test(t_open_errors),
	};

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown_checked);
	return rc ? rc : teardown_failed;
}
