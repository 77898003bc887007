/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32, rules in a modification and usage reporting (TS 29.244 7.5.4, 5.2.2, 7.5.8.3): the
 * standalone UPF's PFCP server over real UDP on loopback with the real XDP program (packets
 * through BPF_PROG_TEST_RUN in a private network namespace): Create / Update / Remove QER and
 * URR and Update PDR changing its QERs / URRs in a Session Modification, applied all or nothing
 * (a refusal carries the Failed Rule ID, 8.2.80, and changes nothing); Query URR and QAURR
 * answered with the volumes the data path forwarded; Volume Threshold, Time Threshold and
 * Measurement Period reports in Session Report Requests (USAR) with Start / End Time and
 * UR-SEQN, retransmitted per 6.4; free5GC's two URRs reporting. Every datagram is decoded by
 * tshark at the end: nothing malformed, the IEs asserted present. Needs root; skips otherwise.
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
#include <sys/socket.h>
#include <unistd.h>

#include <cmocka.h>

#include <time.h>
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
#define SMF_GTPU "127.0.0.2"
#define MAX_SESS 16
#define POOL6 "2001:db8:100::"
#define PFX6 "2001:db8:100:7::"
#define N3_6 "2001:db8:3::1"
#define CHOOSE_ID 5                /* the UL and up2cp PDRs' CHOOSE ID (8.2.3) */

static const char *tshark_path;
static int teardown_failed;
static char pcap_path[512];
static struct pcapw *W;
static int n3_if, n6_if;

static struct upf *U;
static struct upf_n4 *N;
static int cli = -1;
static struct pfcp_msg Q, R;
static uint8_t buf[4096];

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

/* The UPF, its N4 server on it, and the SMF's socket: the fixture of every case. */
static int open_upf(struct upf_params *p, struct upf_n4_params *np)
{
	if (upf_open(p, &U))
		return -1;
	np->upf = U;
	if (upf_n4_open(np, &N))
		return -1;
	cli = tn_udp_bind(ip(SMF_ADDR), PFCP_PORT);
	return cli < 0 ? -1 : 0;
}

static int setup(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .err_ind_per_s = 100,
	};
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .max_teid = MAX_SESS, .recovery_ts = 3900000000u,
		.sessions_per_peer = MAX_SESS,
	};

	(void)state;
	return open_upf(&p, &np);
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

/* b to the server, its answer decoded into R (both recorded) */
static void xchg_raw(const uint8_t *b, size_t len)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT),
				  .sin_addr.s_addr = ip(UPF_N4_ADDR) };
	static uint8_t in[4096];
	ssize_t n;

	assert_int_equal(sendto(cli, b, len, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)len);
	record(ip(SMF_ADDR), ip(UPF_N4_ADDR), b, len);
	assert_true(upf_n4_process(N) >= 1);
	n = recv(cli, in, sizeof(in), MSG_DONTWAIT);
	assert_true(n > 0);
	record(ip(UPF_N4_ADDR), ip(SMF_ADDR), in, (size_t)n);
	assert_true(pfcp_decode(in, (size_t)n, &R, NULL) > 0);
	assert_int_equal(R.h.seq, Q.h.seq);
	assert_int_equal(R.h.type, Q.h.type + 1);
}

static void xchg(void)
{
	int n = pfcp_encode(&Q, buf, sizeof(buf));

	assert_true(n > 0);
	xchg_raw(buf, (size_t)n);
}

static void associate(void)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_ASSOC_SETUP_REQ;
	Q.h.seq = 1;
	Q.node.has = PFCP_N_NODE_ID | PFCP_N_RECOVERY;
	Q.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(Q.node.node_id.addr, &(uint32_t){ ip(SMF_ADDR) }, 4);
	Q.node.recovery = 3900000100u;
	xchg();
	assert_int_equal(R.node.cause, PFCP_CAUSE_ACCEPTED);
}

static const char DNN_LABELS[] = "\x08internet";   /* 8.2.4 as an APN (TS 23.003 9.1) */
static void est_head(uint32_t seq, uint64_t cp_seid)
{
	struct pfcp_sess_est_req *e = &Q.est;

	memset(&Q, 0, sizeof(Q));
	Q.h.type = PFCP_SESS_EST_REQ;
	Q.h.seq = seq;
	e->has = PFCP_SER_NODE_ID | PFCP_SER_F_SEID | PFCP_SER_PDR | PFCP_SER_FAR | PFCP_SER_QER | PFCP_SER_URR;
	e->node_id.type = PFCP_NODE_IPV4;
	memcpy(e->node_id.addr, &(uint32_t){ ip(SMF_ADDR) }, 4);
	e->cp_fseid.flags = PFCP_ADDR_V4;
	e->cp_fseid.seid = cp_seid;
	memcpy(e->cp_fseid.ipv4, &(uint32_t){ ip(SMF_ADDR) }, 4);
}

static struct pfcp_pdr *add_pdr(uint16_t id, uint32_t prec, uint8_t src_if, uint32_t far)
{
	struct pfcp_pdr *d = &Q.est.pdr[Q.est.n_pdr++];

	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	d->pdr_id = id;
	d->precedence = prec;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_NI;
	d->pdi.src_if = src_if;
	d->pdi.ni = (struct pfcp_buf){ (const uint8_t *)DNN_LABELS, sizeof(DNN_LABELS) - 1 };
	d->far_id = far;
	return d;
}

static void refs(struct pfcp_pdr *d, unsigned n_qer, const uint32_t *qer, unsigned n_urr, const uint32_t *urr)
{
	d->has |= (n_qer ? PFCP_PDR_QER_ID : 0) | (n_urr ? PFCP_PDR_URR_ID : 0);
	d->n_qer = (uint8_t)n_qer;
	if (n_qer)
		memcpy(d->qer_id, qer, n_qer * sizeof(*qer));
	d->n_urr = (uint8_t)n_urr;
	if (n_urr)
		memcpy(d->urr_id, urr, n_urr * sizeof(*urr));
}

static void sess_req(uint8_t type, uint32_t seq, uint64_t seid)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = type;
	Q.h.seq = seq;
	Q.h.seid = seid;
}

static void ue_ip(struct pfcp_pdr *d, bool dst)
{
	d->pdi.has |= PFCP_PDI_UE_IP;
	d->pdi.ue_ip.flags = PFCP_UEIP_V4 | (dst ? PFCP_UEIP_SD : 0);
	memcpy(d->pdi.ue_ip.ipv4, &(uint32_t){ ip(UE) }, 4);
}

static void far_core(uint32_t id)
{
	Q.est.far[Q.est.n_far++] = (struct pfcp_far){
		.has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = id, .apply = PFCP_AA_FORW,
		.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_NI, .dest_if = PFCP_IF_CORE,
			 .ni = { (const uint8_t *)DNN_LABELS, sizeof(DNN_LABELS) - 1 } } };
}

static void far_gnb(struct pfcp_far *f, uint32_t id, uint32_t gnb_teid)
{
	*f = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = id,
				.apply = PFCP_AA_FORW,
				.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC, .dest_if = PFCP_IF_ACCESS,
					 .ohc = { .desc = PFCP_OHC_GTPU4, .teid = gnb_teid } } };
	memcpy(f->fwd.ohc.ipv4, &(uint32_t){ ip(GNB) }, 4);
}

/* free5GC's: CP-chosen F-TEID teid on our N3 address; on both PDRs QER 1 (flow: MBR, QFI 9)
 * and QER 2 (session-AMBR), URR 1 (Measurement Period) and URR 2 (Volume Threshold) */
static void free5gc_est(uint32_t seq, uint64_t cp_seid, uint32_t teid, uint64_t flow_kbps, uint64_t ambr_kbps)
{
	static const uint32_t two[] = { 1, 2 };
	struct pfcp_sess_est_req *e = &Q.est;
	struct pfcp_pdr *d;

	est_head(seq, cp_seid);
	d = add_pdr(1, 255, PFCP_IF_ACCESS, 1);
	d->pdi.has |= PFCP_PDI_F_TEID;
	d->pdi.fteid.flags = PFCP_FTEID_V4;
	d->pdi.fteid.teid = teid;
	memcpy(d->pdi.fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	ue_ip(d, false);
	d->has |= PFCP_PDR_OHR;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	refs(d, 2, two, 2, two);
	d = add_pdr(2, 255, PFCP_IF_CORE, 2);
	ue_ip(d, true);
	refs(d, 2, two, 2, two);
	far_core(1);
	far_gnb(&e->far[e->n_far++], 2, 0x77);
	e->n_qer = 2;
	e->qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR | PFCP_QER_QFI,
				       .qer_id = 1, .mbr = { flow_kbps, flow_kbps }, .qfi = 9 };
	e->qer[1] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR, .qer_id = 2,
				       .mbr = { ambr_kbps, ambr_kbps } };
	e->n_urr = 2;
	e->urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS | PFCP_URR_PERIOD,
				       .urr_id = 1, .method = PFCP_MM_VOLUM, .triggers = PFCP_RT_PERIO, .period = 100 };
	/* its build: Volume Threshold flags 0x06, the uplink and downlink volumes */
	e->urr[1] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS | PFCP_URR_VOL_THRESH,
				       .urr_id = 2, .method = PFCP_MM_VOLUM, .triggers = PFCP_RT_VOLTH,
				       .vol_thresh = { .flags = PFCP_VOL_ULVOL | PFCP_VOL_DLVOL, .ul = 104857600,
						       .dl = 104857600 } };
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

/* An uplink G-PDU of size bytes on teid (QFI qfi): its verdict */
static int ul(uint32_t teid, uint8_t qfi, size_t size)
{
	uint8_t inner[1200], gtp[1300], frame[1400];
	size_t gl, fl;
	struct run r;

	pkt_inner_udp(inner, ip(UE), ip("198.51.100.2"), size);
	gl = pkt_gpdu(gtp, teid, qfi, 1, inner, size);
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	return r.verdict;
}

/* A downlink packet to the UE: its verdict; *teid the GTP-U TEID it was sent with */
static int dl(uint32_t *teid)
{
	uint8_t inner[80], frame[200];
	size_t fl;
	struct run r;

	pkt_inner_udp(inner, ip("198.51.100.2"), ip(UE), sizeof(inner));
	fl = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, sizeof(inner));
	xdp(n6_if, frame, fl, &r);
	if (r.verdict == XDP_REDIRECT)
		*teid = pkt_rd32(r.out + PKT_ETH + PKT_IP + PKT_UDP + 4);
	return r.verdict;
}

static uint64_t upcnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

/* 50 back-to-back 1000-byte uplink packets on teid: how many the data path policed */
static uint64_t ul_burst(uint32_t teid, uint8_t qfi)
{
	uint64_t before = upcnt(UPF_CNT_DROP_AMBR_UL);

	for (int i = 0; i < 50; i++)
		ul(teid, qfi, 1000);
	return upcnt(UPF_CNT_DROP_AMBR_UL) - before;
}

/* ---- tests ---- */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A session of the common shape: UL PDR 1 (CP TEID 3, FAR 1), DL PDR 2 (FAR 2 to the gNB),
 * QER 1 (MBR 1 Gbit/s) and URR 1 on both; the URR as given. Its UP SEID. */
static uint64_t est_k(uint32_t seq, const struct pfcp_urr *u, uint8_t k)
{
	static const uint32_t one[] = { 1 };
	struct pfcp_sess_est_req *e = &Q.est;
	struct pfcp_pdr *d;

	est_head(seq, 0x7000 + seq);
	d = add_pdr(1, 255, PFCP_IF_ACCESS, 1);
	d->pdi.has |= PFCP_PDI_F_TEID;
	d->pdi.fteid.flags = PFCP_FTEID_V4;
	d->pdi.fteid.teid = (2u + k) % MAX_SESS + 1;   /* 3 for k 0; in 1..max_teid */
	memcpy(d->pdi.fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
	d->has |= PFCP_PDR_OHR;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	refs(d, 1, one, 1, one);
	d = add_pdr(2, 255, PFCP_IF_CORE, 2);
	ue_ip(d, true);
	d->pdi.ue_ip.ipv4[3] = (uint8_t)(d->pdi.ue_ip.ipv4[3] + k);
	refs(d, 1, one, 1, one);
	far_core(1);
	far_gnb(&e->far[e->n_far++], 2, 0x77);
	e->n_qer = 1;
	e->qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR, .qer_id = 1,
				       .mbr = { 1000000, 1000000 } };
	e->n_urr = 1;
	e->urr[0] = *u;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	return R.rsp.up_fseid.seid;
}

/* The session of the common shape (est_k: the k-th, another TEID and UE address) */
static uint64_t est(uint32_t seq, const struct pfcp_urr *u)
{
	return est_k(seq, u, 0);
}

static const struct pfcp_urr VOLUM = { .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS, .urr_id = 1,
				       .method = PFCP_MM_VOLUM };

/* n uplink packets of size bytes and n downlink ones (80 bytes): all forwarded */
static void traffic(int n, size_t size)
{
	uint32_t got;

	for (int i = 0; i < n; i++) {
		assert_int_equal(ul(3, 0, size), XDP_REDIRECT);
		assert_int_equal(dl(&got), XDP_REDIRECT);
	}
}

static const struct pfcp_usage_report *usage_of(const struct pfcp_usage_report *u, unsigned n, uint32_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (u[i].urr_id == id)
			return &u[i];
	fail_msg("no usage report for URR %u", id);
	return NULL;
}

/* The next Session Report Request the server sent (heartbeats skipped) into R; 0: none */
static int report_rx(void)
{
	static uint8_t in[4096];
	ssize_t n;

	while ((n = recv(cli, in, sizeof(in), MSG_DONTWAIT)) > 0) {
		record(ip(UPF_N4_ADDR), ip(SMF_ADDR), in, (size_t)n);
		assert_true(pfcp_decode(in, (size_t)n, &R, NULL) > 0);
		if (R.h.type == PFCP_SESS_REPORT_REQ)
			return 1;
	}
	return 0;
}

static void report_answer(void)
{
	struct pfcp_msg a = { .h = { .type = PFCP_SESS_REPORT_RSP, .seq = R.h.seq, .seid = 0x7002 } };
	int n;

	a.rep_rsp.has = PFCP_SRRSP_CAUSE;
	a.rep_rsp.cause = PFCP_CAUSE_ACCEPTED;
	n = pfcp_encode(&a, buf, sizeof(buf));
	assert_true(n > 0);
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT),
				  .sin_addr.s_addr = ip(UPF_N4_ADDR) };

	assert_int_equal(sendto(cli, buf, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)), n);
	record(ip(SMF_ADDR), ip(UPF_N4_ADDR), buf, (size_t)n);
	upf_n4_process(N);
}

/* TS 29.244 7.5.4.5 / 7.5.4.8 Create / Remove QER, 7.5.4.4 / 7.5.4.9 Create / Remove URR and
 * 7.5.4.2 Update PDR naming them, 7.5.4.10 Query URR: a second QER with a lower MBR polices the
 * uplink once the PDR names it, and no more once removed; a URR created in a modification
 * measures from then; Query URR answers with what the data path forwarded (IMMER), Remove URR
 * with its last report (TERMR, 8.2.41), QAURR with every URR. Refused (cause 73) before. */
static void t_mod_rules(void **state)
{
	static const uint32_t both_q[] = { 1, 2 }, both_u[] = { 1, 2 };
	const struct pfcp_usage_report *u;
	uint64_t seid;
	uint32_t seqn1;

	(void)state;
	associate();
	seid = est(2, &VOLUM);
	traffic(3, 500);
	assert_int_equal(ul_burst(3, 0), 0);   /* 1 Gbit/s: nothing policed */
	/* Create QER 2 (8 kbit/s) and URR 2; both PDRs name them; Query URR 1 */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_QER | PFCP_SMR_URR | PFCP_SMR_UPD_PDR | PFCP_SMR_QUERY_URR;
	Q.mod.n_qer = 1;
	Q.mod.qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR, .qer_id = 2,
					  .mbr = { 8, 8 } };
	Q.mod.n_urr = 1;
	Q.mod.urr[0] = VOLUM;
	Q.mod.urr[0].urr_id = 2;
	Q.mod.n_upd_pdr = 2;
	for (int i = 0; i < 2; i++) {
		Q.mod.upd_pdr[i].has = PFCP_PDR_ID;
		Q.mod.upd_pdr[i].pdr_id = (uint16_t)(1 + i);
		refs(&Q.mod.upd_pdr[i], 2, both_q, 2, both_u);
	}
	Q.mod.n_query_urr = 1;
	Q.mod.query_urr[0] = (struct pfcp_rm){ PFCP_RM_ID, 1 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 1);
	u = usage_of(R.rsp.usage, R.rsp.n_usage, 1);
	assert_int_equal(u->trigger, PFCP_URT_IMMER);
	assert_int_equal(u->volume.ul, 3 * 500 + 50 * 1000);
	assert_int_equal(u->volume.dl, 3 * 80);
	assert_int_equal(u->volume.ul_pkts, 53);
	assert_true((u->has & PFCP_UR_START) && (u->has & PFCP_UR_END) && u->end >= u->start);
	seqn1 = u->seqn;
	/* the 8 kbit/s QER now polices the uplink (5.4.1) */
	assert_true(ul_burst(3, 0) > 0);
	/* Remove QER 2 and URR 2 (the PDRs no longer name them); QAURR (8.2.31) */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	Q.mod.has = PFCP_SMR_RM_QER | PFCP_SMR_RM_URR | PFCP_SMR_FLAGS;
	Q.mod.n_rm_qer = Q.mod.n_rm_urr = 1;
	Q.mod.rm_qer[0] = Q.mod.rm_urr[0] = (struct pfcp_rm){ PFCP_RM_ID, 2 };
	Q.mod.flags = PFCP_SMF_QAURR;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 2);
	u = usage_of(R.rsp.usage, R.rsp.n_usage, 2);
	assert_int_equal(u->trigger, PFCP_URT_TERMR);
	assert_true(u->volume.ul_pkts > 0);   /* the burst's packets that passed the policer */
	assert_int_equal(usage_of(R.rsp.usage, R.rsp.n_usage, 1)->trigger, PFCP_URT_IMMER);
	/* 8.2.54: UR-SEQN orders the reports of one URR */
	assert_int_equal(usage_of(R.rsp.usage, R.rsp.n_usage, 1)->seqn, seqn1 + 1);
	/* (the uplink's AMBR state keeps the debt the 8 kbit/s QER left: its next packets wait) */
	/* Update URR 1: a Volume Threshold from now on (8.2.13), here on the downlink's 80-byte packets */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	Q.mod.has = PFCP_SMR_UPD_URR;
	Q.mod.n_upd_urr = 1;
	Q.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_TRIGGERS | PFCP_URR_VOL_THRESH, .urr_id = 1,
					      .triggers = PFCP_RT_VOLTH,
					      .vol_thresh = { .flags = PFCP_VOL_DLVOL, .dl = 4000 } };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (int i = 0; i < 50; i++) {
		uint32_t got;

		assert_int_equal(dl(&got), XDP_REDIRECT);
	}
	upf_n4_tick(N, mono_ns());
	assert_true(report_rx());
	assert_int_equal(R.rep.type, PFCP_RPT_USAR);
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_VOLTH);
	report_answer();
}

/* TS 29.244 7.5.4 / 7.5.5.1 / 8.2.80: a modification with a rule that cannot be applied is
 * refused as a whole, cause 73 with the Offending IE and the Failed Rule ID, and changes
 * nothing (the QER created next to it is not there); the same in an establishment (7.5.3.1).
 * Failed Rule ID was never sent before. */
static void t_refused(void **state)
{
	uint64_t seid;

	(void)state;
	associate();
	seid = est(2, &VOLUM);
	/* Create QER 2 (fine) with Create URR 1 (exists): nothing applied */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_QER | PFCP_SMR_URR;
	Q.mod.n_qer = 1;
	Q.mod.qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR, .qer_id = 2,
					  .mbr = { 8, 8 } };
	Q.mod.n_urr = 1;
	Q.mod.urr[0] = VOLUM;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_URR);
	assert_true(R.rsp.has & PFCP_SRSP_FAILED_RULE);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_URR);
	assert_int_equal(R.rsp.failed_rule.id, 1);
	/* QER 2 was not created: an Update QER of it is refused, naming it */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	Q.mod.has = PFCP_SMR_UPD_QER;
	Q.mod.n_upd_qer = 1;
	Q.mod.upd_qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_MBR, .qer_id = 2, .mbr = { 8, 8 } };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_QER);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_QER);
	assert_int_equal(R.rsp.failed_rule.id, 2);
	/* Update PDR naming a URR that does not exist; Create PDR (not supported in a modification) */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	Q.mod.has = PFCP_SMR_UPD_PDR;
	Q.mod.n_upd_pdr = 1;
	Q.mod.upd_pdr[0].has = PFCP_PDR_ID;
	Q.mod.upd_pdr[0].pdr_id = 2;
	refs(&Q.mod.upd_pdr[0], 0, NULL, 1, (const uint32_t[]){ 9 });
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_PDR);
	assert_int_equal(R.rsp.failed_rule.id, 2);
	sess_req(PFCP_SESS_MOD_REQ, 6, seid);
	Q.mod.has = PFCP_SMR_RM_PDR;
	Q.mod.n_rm_pdr = 1;
	Q.mod.rm_pdr[0] = (struct pfcp_rm){ PFCP_RM_ID, 2 };   /* the downlink PDR, none created */
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_REMOVE_PDR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_PDR);
	assert_int_equal(R.rsp.failed_rule.id, 2);
	/* the session unchanged: one URR, measuring; the uplink not policed */
	assert_int_equal(ul_burst(3, 0), 0);
	sess_req(PFCP_SESS_MOD_REQ, 7, seid);
	Q.mod.has = PFCP_SMR_FLAGS;
	Q.mod.flags = PFCP_SMF_QAURR;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 1);
	assert_int_equal(R.rsp.usage[0].volume.ul_pkts, 50);
	/* an establishment: a Volume Quota (not supported) names its URR */
	est_head(8, 0x7008);
	Q.est.n_pdr = 0;
	{
		struct pfcp_urr u = VOLUM;

		u.urr_id = 5;
		u.has |= PFCP_URR_VOL_QUOTA;
		u.vol_quota = (struct pfcp_volume){ .flags = PFCP_VOL_TOVOL, .total = 1000 };
		memset(&Q, 0, sizeof(Q));
		est_head(8, 0x7008);
		struct pfcp_pdr *d = add_pdr(2, 255, PFCP_IF_CORE, 2);

		ue_ip(d, true);
		d->pdi.ue_ip.ipv4[3] = 9;
		refs(d, 0, NULL, 1, (const uint32_t[]){ 5 });
		far_gnb(&Q.est.far[Q.est.n_far++], 2, 0x78);
		Q.est.n_urr = 1;
		Q.est.urr[0] = u;
	}
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_URR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_URR);
	assert_int_equal(R.rsp.failed_rule.id, 5);
	assert_int_equal(upf_n4_sessions(N), 1);
}

/* TS 29.244 5.2.2.2.1 / 8.2.13 Volume Threshold and 8.2.18 Measurement Period: a Session Report
 * Request (7.5.8, Report Type USAR) when the volume since the last report reaches the
 * threshold, and one per period with Start / End Time (8.2.83 / 8.2.84) the period apart, the
 * volume of that period, UR-SEQN rising; not answered: sent again after T1, the same bytes
 * and sequence number (6.4). Nothing was ever sent before (reported at deletion only). */
static void t_reports(void **state)
{
	struct pfcp_urr u = VOLUM;
	uint64_t t0, seid;
	uint32_t seq, seqn;

	(void)state;
	associate();
	u.has |= PFCP_URR_PERIOD | PFCP_URR_VOL_THRESH;
	u.triggers = PFCP_RT_PERIO | PFCP_RT_VOLTH;
	u.period = 60;
	u.vol_thresh = (struct pfcp_volume){ .flags = PFCP_VOL_ULVOL, .ul = 3000 };
	t0 = mono_ns();
	seid = est(2, &u);
	traffic(2, 1000);
	upf_n4_tick(N, t0 + 1000000000ull);   /* 2000 < 3000 */
	assert_false(report_rx());
	traffic(1, 1000);
	upf_n4_tick(N, t0 + 2000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.h.seid, 0x7002);
	assert_int_equal(R.rep.type, PFCP_RPT_USAR);
	assert_int_equal(R.rep.n_usage, 1);
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_VOLTH);
	assert_int_equal(R.rep.usage[0].volume.ul, 3000);
	assert_int_equal(R.rep.usage[0].volume.dl, 240);
	seq = R.h.seq;
	seqn = R.rep.usage[0].seqn;
	/* unanswered: again after T1 (3 s), the same sequence number */
	upf_n4_tick(N, t0 + 5100000000ull);
	assert_true(report_rx());
	assert_int_equal(R.h.seq, seq);
	assert_int_equal(R.rep.usage[0].seqn, seqn);
	report_answer();
	/* the period: a report 60 s after the establishment, with what passed since the last */
	traffic(1, 100);
	upf_n4_tick(N, t0 + 59000000000ull);
	assert_false(report_rx());   /* heartbeats only */
	upf_n4_tick(N, t0 + 61000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_PERIO);
	assert_int_equal(R.rep.usage[0].volume.ul, 100);
	assert_true(R.rep.usage[0].seqn > seqn);
	assert_true(R.rep.usage[0].end - R.rep.usage[0].start >= 58 && R.rep.usage[0].end - R.rep.usage[0].start <= 60);
	report_answer();
	/* deleted (7.5.7.2: its last report, TERMR): no report after that */
	sess_req(PFCP_SESS_DEL_REQ, 3, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.usage[0].trigger, PFCP_URT_TERMR);
	upf_n4_tick(N, t0 + 200000000000ull);
	assert_false(report_rx());
}

/* Issue 32, free5GC's shape (upf_n4_shapes t_free5gc): URR 1 with a Measurement Period of 100 s,
 * URR 2 with a 100 MB UL / DL Volume Threshold, both on both PDRs: the periodic report of URR 1
 * now arrives after 100 s (5.2.2.2.1), URR 2 stays quiet below its threshold. Before: nothing
 * until the deletion. */
static void t_free5gc_reports(void **state)
{
	uint64_t t0 = mono_ns();
	int got = 0;

	(void)state;
	associate();
	free5gc_est(2, 0x8100, 3, 1000000, 1000000);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (int i = 0; i < 3; i++)
		assert_int_equal(ul(3, 9, 700), XDP_REDIRECT);
	upf_n4_tick(N, t0 + 50000000000ull);
	assert_false(report_rx());
	upf_n4_tick(N, t0 + 101000000000ull);
	while (report_rx()) {
		assert_int_equal(R.rep.n_usage, 1);
		assert_int_equal(R.rep.usage[0].urr_id, 1);
		assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_PERIO);
		assert_int_equal(R.rep.usage[0].volume.ul, 2100);
		got++;
	}
	assert_int_equal(got, 1);
}

/* A Create FAR (id) of the modification in Q toward the gNB's TEID, or BUFF|NOCP (teid 0) */
static void mod_far(uint32_t id, uint32_t teid)
{
	struct pfcp_far *f = &Q.mod.far[Q.mod.n_far++];

	Q.mod.has |= PFCP_SMR_FAR;
	if (teid) {
		far_gnb(f, id, teid);
		return;
	}
	*f = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = id,
				.apply = PFCP_AA_BUFF | PFCP_AA_NOCP,
				.fwd = { .has = PFCP_FWD_DEST_IF, .dest_if = PFCP_IF_ACCESS } };
}

static void mod_upd_pdr_far(uint16_t pdr, uint32_t far)
{
	struct pfcp_pdr *d = &Q.mod.upd_pdr[Q.mod.n_upd_pdr++];

	Q.mod.has |= PFCP_SMR_UPD_PDR;
	d->has = PFCP_PDR_ID | PFCP_PDR_FAR_ID;
	d->pdr_id = pdr;
	d->far_id = far;
}

static void mod_rm(struct pfcp_rm *a, uint8_t *n, uint32_t bit, uint32_t id)
{
	Q.mod.has |= bit;
	a[(*n)++] = (struct pfcp_rm){ PFCP_RM_ID, id };
}

/* TS 29.244 7.5.4.6 Remove PDR + 7.5.2.2 Create PDR in a modification: the uplink PDR re-created
 * with CHOOSE (a new TEID in the Created PDR, 7.5.5.1; the old TEID no longer forwards; the URR's
 * measurement goes on across the rebuilt data path rule), the downlink PDR re-created; 7.5.4.3
 * Create FAR + Update PDR to it + 7.5.4.7 Remove FAR: a FAR replaced (FORW to a new Outer Header
 * Creation with SNDEM, 8.2.31: an End Marker on the old tunnel, TS 29.281 7.3.2; FORW -> BUFF ->
 * FORW with DROBU: what was buffered dropped, not sent); a second uplink PDR and the removal of a
 * FAR a PDR still names refused with their Failed Rule ID, nothing changed. All cause 73 before. */
static void t_pdr_far(void **state)
{
	static const uint32_t one[] = { 1 };
	struct pfcp_pdr *d, ulp;
	uint32_t got, teid;
	uint64_t em, rel;

	(void)state;
	associate();
	uint64_t seid = est(2, &VOLUM);

	traffic(2, 1000);
	/* the uplink PDR re-created with CHOOSE */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	mod_rm(Q.mod.rm_pdr, &Q.mod.n_rm_pdr, PFCP_SMR_RM_PDR, 1);
	Q.mod.has |= PFCP_SMR_PDR;
	d = &Q.mod.pdr[Q.mod.n_pdr++];
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID | PFCP_PDR_OHR;
	d->pdr_id = 11;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_F_TEID;
	d->pdi.src_if = PFCP_IF_ACCESS;
	d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_CH;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IPV4;
	d->far_id = 1;
	refs(d, 1, one, 1, one);
	ulp = *d;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 1);
	assert_int_equal(R.rsp.created[0].pdr_id, 11);
	teid = R.rsp.created[0].fteid.teid;
	assert_true(teid != 0 && teid != 3);
	assert_int_not_equal(ul(3, 0, 1000), XDP_REDIRECT);
	assert_int_equal(ul(teid, 0, 1000), XDP_REDIRECT);
	/* Query URR 1: 3000 octets uplink, across the rebuilt rule */
	sess_req(PFCP_SESS_MOD_REQ, 4, seid);
	mod_rm(Q.mod.query_urr, &Q.mod.n_query_urr, PFCP_SMR_QUERY_URR, 1);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.usage[0].volume.ul, 3000);
	assert_int_equal(R.rsp.usage[0].volume.dl, 160);
	/* FAR 2 replaced by FAR 3 toward TEID 0x99, SNDEM: an End Marker on the old tunnel */
	em = upcnt(UPF_STAT_END_MARKER_SENT);
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	mod_far(3, 0x99);
	mod_upd_pdr_far(2, 3);
	mod_rm(Q.mod.rm_far, &Q.mod.n_rm_far, PFCP_SMR_RM_FAR, 2);
	Q.mod.has |= PFCP_SMR_FLAGS;
	Q.mod.flags = PFCP_SMF_SNDEM;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x99);
	assert_int_equal(upcnt(UPF_STAT_END_MARKER_SENT), em + 1);
	/* refused: a second uplink PDR; removing FAR 3 that PDR 2 names. Nothing changed. */
	sess_req(PFCP_SESS_MOD_REQ, 6, seid);
	Q.mod.has = PFCP_SMR_PDR;
	Q.mod.pdr[Q.mod.n_pdr++] = ulp;
	Q.mod.pdr[0].pdr_id = 12;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_PDR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_PDR);
	assert_int_equal(R.rsp.failed_rule.id, 12);
	sess_req(PFCP_SESS_MOD_REQ, 7, seid);
	mod_rm(Q.mod.rm_far, &Q.mod.n_rm_far, PFCP_SMR_RM_FAR, 3);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_REMOVE_FAR);
	assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_FAR);
	assert_int_equal(R.rsp.failed_rule.id, 3);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x99);
	assert_int_equal(ul(teid, 0, 100), XDP_REDIRECT);
	/* FAR 3 replaced by FAR 4, BUFF: the downlink held */
	sess_req(PFCP_SESS_MOD_REQ, 8, seid);
	mod_far(4, 0);
	mod_upd_pdr_far(2, 4);
	mod_rm(Q.mod.rm_far, &Q.mod.n_rm_far, PFCP_SMR_RM_FAR, 3);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_not_equal(dl(&got), XDP_REDIRECT);
	upf_process(U);
	(void)report_rx();   /* its Downlink Data Report (NOCP) */
	report_answer();
	/* FAR 4 to FORW, TEID 0xaa, with DROBU: the held packet dropped, not sent */
	rel = upcnt(UPF_STAT_BUF_RELEASED);
	sess_req(PFCP_SESS_MOD_REQ, 9, seid);
	Q.mod.has = PFCP_SMR_UPD_FAR | PFCP_SMR_FLAGS;
	Q.mod.flags = PFCP_SMF_DROBU;
	Q.mod.n_upd_far = 1;
	far_gnb(&Q.mod.upd_far[0], 4, 0xaa);
	Q.mod.upd_far[0].fwd.has &= ~(uint32_t)PFCP_FWD_DEST_IF;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(upcnt(UPF_STAT_BUF_RELEASED), rel);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0xaa);
	assert_int_equal(ul(teid, 0, 100), XDP_REDIRECT);
	/* the downlink PDR re-created (same UE address, FAR 4) */
	sess_req(PFCP_SESS_MOD_REQ, 10, seid);
	mod_rm(Q.mod.rm_pdr, &Q.mod.n_rm_pdr, PFCP_SMR_RM_PDR, 2);
	Q.mod.has |= PFCP_SMR_PDR;
	d = &Q.mod.pdr[Q.mod.n_pdr++];
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	d->pdr_id = 12;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF;
	d->pdi.src_if = PFCP_IF_CORE;
	ue_ip(d, true);
	d->far_id = 4;
	refs(d, 1, one, 1, one);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0xaa);
}

/* TS 29.244 8.2.40 DURAT and 8.2.14 Time Threshold (TIMTH): a report when the measurement has
 * lasted the threshold, with its Duration Measurement (8.2.45); the refusals of what is not
 * measured here (EVENT, a trigger such as START, a Measurement Period 0) in an Update URR:
 * cause 73 with the URR as Failed Rule ID, the URR unchanged (it reports on). DURAT and TIMTH
 * were refused before. */
static void t_duration(void **state)
{
	struct pfcp_urr u = VOLUM;
	uint64_t t0, seid;
	static const struct { uint32_t has; uint8_t method; uint32_t triggers; uint32_t period; } bad[] = {
		{ PFCP_URR_METHOD, PFCP_MM_EVENT, 0, 0 },
		{ PFCP_URR_TRIGGERS, 0, PFCP_RT_START, 0 },
		{ PFCP_URR_PERIOD, 0, 0, 0 },
	};

	(void)state;
	associate();
	u.method = PFCP_MM_VOLUM | PFCP_MM_DURAT;
	u.has |= PFCP_URR_TIME_THRESH;
	u.triggers = PFCP_RT_TIMTH;
	u.time_thresh = 10;
	t0 = mono_ns();
	seid = est(2, &u);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		sess_req(PFCP_SESS_MOD_REQ, 3 + i, seid);
		Q.mod.has = PFCP_SMR_UPD_URR;
		Q.mod.n_upd_urr = 1;
		Q.mod.upd_urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | bad[i].has, .urr_id = 1,
						      .method = bad[i].method, .triggers = bad[i].triggers,
						      .period = bad[i].period };
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
		assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_URR);
		assert_int_equal(R.rsp.failed_rule.type, PFCP_RULE_URR);
		assert_int_equal(R.rsp.failed_rule.id, 1);
	}
	traffic(1, 300);
	upf_n4_tick(N, t0 + 5000000000ull);
	assert_false(report_rx());
	upf_n4_tick(N, t0 + 11000000000ull);
	assert_true(report_rx());
	assert_int_equal(R.rep.usage[0].trigger, PFCP_URT_TIMTH);
	assert_true(R.rep.usage[0].has & PFCP_UR_DURATION);
	assert_true(R.rep.usage[0].duration >= 10 && R.rep.usage[0].duration <= 11);
	assert_int_equal(R.rep.usage[0].volume.ul, 300);
	report_answer();
}

/* The Session Report Requests the server sent since the last call, counting those with a
 * sequence number not seen before (retransmissions are not new) */
static unsigned reports_new(uint8_t *seen, size_t n_seen)
{
	unsigned fresh = 0;

	while (report_rx()) {
		assert_true(R.h.seq < n_seen);
		fresh += !seen[R.h.seq];
		seen[R.h.seq] = 1;
	}
	return fresh;
}

/* As setup, with a T1 of 1000 s: nothing we send is given up on during the test */
static int setup_slow_t1(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .err_ind_per_s = 100,
	};
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .max_sessions = MAX_SESS, .max_teid = MAX_SESS, .recovery_ts = 3900000000u,
		.sessions_per_peer = MAX_SESS, .t1_ms = 1000000,
	};

	(void)state;
	return open_upf(&p, &np);
}

/* TS 29.244 6.4: our requests in flight are bounded (1,024 Session Report Requests awaiting
 * their response, each kept for its retransmission); with 15 sessions reporting every second
 * and a CP that answers nothing, the 69th second finds 4 places left: 4 reports go, the other
 * 11 wait (their URRs stay due), none is lost or overwritten; once the CP answers, all 15 go
 * at the next tick. */
static void t_reports_bounded(void **state)
{
	static uint8_t seen[4096];
	struct pfcp_urr u = VOLUM;
	uint64_t t0 = mono_ns();

	(void)state;
	memset(seen, 0, sizeof(seen));
	associate();
	u.has |= PFCP_URR_PERIOD;
	u.triggers = PFCP_RT_PERIO;
	u.period = 1;
	for (uint8_t k = 0; k < 15; k++)
		est_k(2u + k, &u, k);
	for (int i = 1; i <= 1024 / 15; i++) {
		upf_n4_tick(N, t0 + (uint64_t)i * 1000000000ull + 100000000ull);
		assert_int_equal(reports_new(seen, sizeof(seen)), 15);
	}
	upf_n4_tick(N, t0 + (1024 / 15 + 1) * 1000000000ull + 100000000ull);
	assert_int_equal(reports_new(seen, sizeof(seen)), 1024 % 15);
	for (size_t q = 1; q < sizeof(seen); q++) {   /* the CP answers them all now */
		if (!seen[q])
			continue;
		R.h.seq = (uint32_t)q;
		report_answer();
	}
	upf_n4_tick(N, t0 + (1024 / 15 + 2) * 1000000000ull + 100000000ull);
	assert_int_equal(reports_new(seen, sizeof(seen)), 15);
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
		return -1;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

/* The whole exchange through tshark's PFCP dissector: nothing malformed; the IEs asserted */
static int group_teardown(void **state)
{
	static const char *const want[] = {
		"pfcp.msg_type == 52 && pfcp.qer_id == 2 && pfcp.urr_id == 2",
		"pfcp.msg_type == 53 && pfcp.cause == 1 && pfcp.urr_id == 1 && pfcp.volume_measurement.ulvol == 51500",
		"pfcp.msg_type == 53 && pfcp.cause == 73 && pfcp.urr_id == 1",   /* Failed Rule ID: URR 1 */
		"pfcp.msg_type == 51 && pfcp.cause == 73 && pfcp.urr_id == 5",
		"pfcp.msg_type == 56 && pfcp.report_type.usar == 1 && pfcp.ur_seqn",
		"pfcp.msg_type == 56 && pfcp.start_time && pfcp.end_time",
		"pfcp.msg_type == 52 && pfcp.smreq_flags.qaurr == 1",
		"pfcp.msg_type == 57 && pfcp.cause == 1",
		"pfcp.msg_type == 53 && pfcp.cause == 1 && pfcp.pdr_id == 11 && pfcp.f_teid.teid",   /* Created PDR */
		"pfcp.msg_type == 52 && pfcp.smreq_flags.sndem == 1 && pfcp.outer_hdr_creation.teid == 0x99",
		"pfcp.msg_type == 52 && pfcp.smreq_flags.drobu == 1",
		"pfcp.msg_type == 56 && pfcp.usage_report_trigger_flags.timth == 1 && pfcp.duration_measurement == 10",
		"pfcp.msg_type == 53 && pfcp.cause == 73 && pfcp.far_id == 3",
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
	int rc = tn_require_root_bpf("upf_n4_urr");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4_urr.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_mod_rules, setup, teardown),
		cmocka_unit_test_setup_teardown(t_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(t_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(t_free5gc_reports, setup, teardown),
		cmocka_unit_test_setup_teardown(t_pdr_far, setup, teardown),
		cmocka_unit_test_setup_teardown(t_duration, setup, teardown),
		cmocka_unit_test_setup_teardown(t_reports_bounded, setup_slow_t1, teardown),
	};

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown_checked);
	return rc ? rc : teardown_failed;
}
