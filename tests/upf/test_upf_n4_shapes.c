/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32: the session shapes popular SMFs send, replayed into the standalone UPF's PFCP
 * server (upf/upf_n4.h) over real UDP on loopback, with the real XDP program (BPF_PROG_TEST_RUN
 * in a private network namespace, tests/upf/netns.h) carrying traffic through what was
 * installed. The IE shapes are built from reading the SMFs' sources (not copied):
 *   Open5GS  src/smf/context.c (UL PDR F-TEID V4+V6+CH+CHID; the cp2up PDR, Source Interface
 *            CP-function; the up2cp PDR with the UL PDR's CHOOSE ID and the RS filter, its FAR
 *            to CP-function with OHC), src/smf/npcf-handler.c (one QER: session-AMBR + QFI),
 *            the URR with VOLTH and a 100 MB Volume Threshold, PDN Type (TS 29.244 7.5.2.1),
 *            3GPP Interface Types N3 / N6 (8.2.118)
 *   free5GC  internal/context/datapath.go (CP-chosen F-TEIDs; two QERs per PDR: the flow QER
 *            and the session-AMBR QER; two URRs per PDR: Measurement Period and Volume
 *            Threshold)
 *   a PFCP benchmark client: a QER with a GBR
 * Every datagram goes into a pcap that tshark's PFCP dissector decodes at the end: no
 * malformed field, and the IEs read as meant. Needs root; skips with 77 otherwise.
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

/* As setup, with pool6 2001:db8:100::/48 and our N3 IPv6 (upf.n3_address6) */
static int setup6(void **state)
{
	struct upf_params p = {
		.xdp_mode = UPF_XDP_NONE, .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .ue_pool6_plen = 48, .max_sessions = MAX_SESS, .err_ind_per_s = 100,
	};
	struct upf_n4_params np = {
		.addr = ip(UPF_N4_ADDR), .n3_addr = ip(N3), .ue_pool_addr = ip("172.16.0.0"),
		.ue_pool_plen = 16, .ue_pool6_plen = 48, .max_sessions = MAX_SESS, .max_teid = MAX_SESS,
		.recovery_ts = 3900000000u, .sessions_per_peer = MAX_SESS,
	};

	(void)state;
	if (pkt_in6(POOL6, p.ue_pool6) || pkt_in6(N3_6, p.n3_addr6))
		return -1;
	memcpy(np.ue_pool6, p.ue_pool6, 16);
	memcpy(np.n3_addr6, p.n3_addr6, 16);
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
static const char RS_FILTER[] = "permit out 58 from ff02::2/128 to assigned";

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
	memcpy(d->qer_id, qer, n_qer * sizeof(*qer));
	d->n_urr = (uint8_t)n_urr;
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

static void fteid_choose(struct pfcp_pdr *d, bool chid)
{
	d->pdi.has |= PFCP_PDI_F_TEID;
	d->pdi.fteid.flags = PFCP_FTEID_V4 | PFCP_FTEID_V6 | PFCP_FTEID_CH | (chid ? PFCP_FTEID_CHID : 0);
	d->pdi.fteid.choose_id = chid ? CHOOSE_ID : 0;
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

/* Open5GS's Session Establishment Request for an IPv4 PDU session on a UPF with FTUP:
 * PDR 1 DL, PDR 2 UL (CHOOSE V4+V6, CHOOSE ID), PDR 3 cp2up, PDR 4 up2cp; FAR 1 DL
 * (BUFF|NOCP until the gNB's tunnel is known), FAR 2 UL, FAR 3 up2cp toward the SMF;
 * QER 1 (session-AMBR, QFI 1); URR 1 (VOLUM, VOLTH, 100 MB); BAR 1. */
static void open5gs_est(uint32_t seq, uint64_t cp_seid)
{
	static const uint32_t one[] = { 1 };
	struct pfcp_sess_est_req *e = &Q.est;
	struct pfcp_pdr *d;

	est_head(seq, cp_seid);
	e->has |= PFCP_SER_PDN_TYPE;   /* 7.5.2.1, 8.2.79 */
	e->pdn_type = PFCP_PDN_IPV4;
	d = add_pdr(1, 255, PFCP_IF_CORE, 1);
	ue_ip(d, true);
	d->pdi.has |= PFCP_PDI_SRC_IF_TYPE;   /* 8.2.118 */
	d->pdi.src_if_type = PFCP_IFT_N6;
	refs(d, 1, one, 1, one);
	d = add_pdr(2, 255, PFCP_IF_ACCESS, 2);
	d->pdi.has |= PFCP_PDI_SRC_IF_TYPE;
	d->pdi.src_if_type = PFCP_IFT_N3_3GPP;
	fteid_choose(d, true);
	ue_ip(d, false);
	d->pdi.has |= PFCP_PDI_QFI;
	d->pdi.n_qfi = 1;
	d->pdi.qfi[0] = 1;
	d->has |= PFCP_PDR_OHR;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IP;
	refs(d, 1, one, 1, one);
	d = add_pdr(3, 1000, PFCP_IF_CP, 1);
	fteid_choose(d, false);
	d->has |= PFCP_PDR_OHR;
	d->ohr.desc = PFCP_OHR_GTPU_UDP_IP;
	d = add_pdr(4, 1000, PFCP_IF_ACCESS, 3);
	fteid_choose(d, true);
	d->pdi.has |= PFCP_PDI_SDF;
	d->pdi.n_sdf = 1;
	d->pdi.sdf[0] = (struct pfcp_sdf){ .flags = PFCP_SDF_FD,
					   .flow = { (const uint8_t *)RS_FILTER, sizeof(RS_FILTER) - 1 } };
	e->far[e->n_far++] = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD | PFCP_FAR_BAR_ID,
						.far_id = 1, .apply = PFCP_AA_BUFF | PFCP_AA_NOCP, .bar_id = 1,
						.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_DEST_IF_TYPE,
							 .dest_if = PFCP_IF_ACCESS, .dest_if_type = PFCP_IFT_N3_3GPP } };
	far_core(2);
	e->far[1].fwd.has |= PFCP_FWD_DEST_IF_TYPE;
	e->far[1].fwd.dest_if_type = PFCP_IFT_N6;
	e->far[e->n_far] = (struct pfcp_far){
		.has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = 3, .apply = PFCP_AA_FORW,
		.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC, .dest_if = PFCP_IF_CP,
			 .ohc = { .desc = PFCP_OHC_GTPU4, .teid = 7 } } };
	memcpy(e->far[e->n_far++].fwd.ohc.ipv4, &(uint32_t){ ip(SMF_GTPU) }, 4);
	e->n_qer = 1;
	e->qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_GATE | PFCP_QER_MBR | PFCP_QER_QFI,
				       .qer_id = 1, .mbr = { 1000000, 2000000 }, .qfi = 1 };
	e->n_urr = 1;
	e->urr[0] = (struct pfcp_urr){ .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS | PFCP_URR_VOL_THRESH,
				       .urr_id = 1, .method = PFCP_MM_VOLUM, .triggers = PFCP_RT_VOLTH,
				       .vol_thresh = { .flags = PFCP_VOL_TOVOL, .total = 104857600 } };
	e->has |= PFCP_SER_BAR;
	e->bar = (struct pfcp_bar){ .has = PFCP_BAR_ID, .bar_id = 1 };
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

/* free5GC's modification on the PDU Session Resource Setup Response (its pdu_session.go): Update
 * PDR of the downlink PDR as it was (PDI, FAR, URRs, QERs) and Update FAR to the gNB's tunnel */
static void free5gc_mod(uint32_t seq, uint64_t seid, uint32_t gnb_teid)
{
	static const uint32_t two[] = { 1, 2 };
	struct pfcp_pdr *d = &Q.mod.upd_pdr[0];
	struct pfcp_far *f = &Q.mod.upd_far[0];

	sess_req(PFCP_SESS_MOD_REQ, seq, seid);
	Q.mod.has = PFCP_SMR_UPD_PDR | PFCP_SMR_UPD_FAR | PFCP_SMR_F_SEID;
	Q.mod.cp_fseid.flags = PFCP_ADDR_V4;
	Q.mod.cp_fseid.seid = seid;   /* free5GC repeats its F-SEID */
	memcpy(Q.mod.cp_fseid.ipv4, &(uint32_t){ ip(SMF_ADDR) }, 4);
	Q.mod.n_upd_pdr = 1;
	d->has = PFCP_PDR_ID | PFCP_PDR_PRECEDENCE | PFCP_PDR_PDI | PFCP_PDR_FAR_ID;
	d->pdr_id = 2;
	d->precedence = 255;
	d->pdi.has = PFCP_PDI_SRC_IF | PFCP_PDI_NI;
	d->pdi.src_if = PFCP_IF_CORE;
	d->pdi.ni = (struct pfcp_buf){ (const uint8_t *)DNN_LABELS, sizeof(DNN_LABELS) - 1 };
	ue_ip(d, true);
	d->far_id = 2;
	refs(d, 2, two, 2, two);
	Q.mod.n_upd_far = 1;
	far_gnb(f, 2, gnb_teid);
	f->fwd.has |= PFCP_FWD_NI;
	f->fwd.ni = (struct pfcp_buf){ (const uint8_t *)DNN_LABELS, sizeof(DNN_LABELS) - 1 };
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

/* ---- tests ---- */

/* Issue 32 rows "PDR UL" (F-TEID V4+V6+CH+CHID, TS 29.244 8.2.3: the UP answers with the family it
 * has: IPv4 only here, no upf.n3_address6), "PDR cp2up", "PDR up2cp" (the UL PDR's CHOOSE ID: the
 * same TEID in its Created PDR) and "URR" (VOLTH, Volume Threshold 100 MB): Open5GS's whole
 * session accepted, the service request's Update FAR, traffic both ways, the final usage report
 * at deletion (7.5.7.2). Cause 73 before issue 32. */
static void t_open5gs(void **state)
{
	uint32_t teid = 0, cp2up = 0, got = 0;
	uint64_t seid;
	struct pfcp_far *f;

	(void)state;
	associate();
	open5gs_est(2, 0x5001);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 3);
	for (unsigned i = 0; i < R.rsp.n_created; i++) {
		const struct pfcp_created_pdr *c = &R.rsp.created[i];

		assert_true(c->has & PFCP_CPDR_F_TEID);
		assert_int_equal(c->fteid.flags, PFCP_FTEID_V4);   /* 8.2.3: the family we have */
		assert_memory_equal(c->fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
		if (c->pdr_id == 2)
			teid = c->fteid.teid;
		else if (c->pdr_id == 4)
			got = c->fteid.teid;
		else
			cp2up = c->fteid.teid;
	}
	assert_in_range(teid, 1, MAX_SESS);
	assert_int_equal(got, teid);            /* same CHOOSE ID, same TEID */
	assert_true(cp2up > MAX_SESS);          /* not in the data path's uplink array */
	seid = R.rsp.up_fseid.seid;
	assert_int_equal(ul(teid, 1, 100), XDP_REDIRECT);
	assert_int_equal(dl(&got), XDP_DROP);   /* buffered: no gNB tunnel yet */
	/* TS 23.502 4.3.2.2.1 step 16a: the gNB's tunnel */
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_UPD_FAR;
	Q.mod.n_upd_far = 1;
	f = &Q.mod.upd_far[0];
	far_gnb(f, 1, 0x4242);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x4242);
	/* a G-PDU on the cp2up TEID reaches no session (the exception path, Error Indication) */
	assert_int_equal(ul(cp2up, 1, 100), XDP_PASS);
	sess_req(PFCP_SESS_DEL_REQ, 4, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 1);
	assert_int_equal(R.rsp.usage[0].urr_id, 1);
	assert_int_equal(R.rsp.usage[0].trigger, PFCP_URT_TERMR);
	assert_int_equal(R.rsp.usage[0].volume.ul_pkts, 1);
	/* the buffered one, released at the Update FAR, and the direct one */
	assert_int_equal(R.rsp.usage[0].volume.dl_pkts, 2);
	assert_int_equal(upf_n4_sessions(N), 0);
}

/* Issue 32 row "PDR up2cp", IPv4v6 (the case its PDR exists for) with upf.n3_address6: the
 * Created PDRs carry V4 + V6 (8.2.3); the UE's Router Solicitation on the UL TEID matches the
 * up2cp PDR and goes to the SMF (ul_to_cp), which answers it (RFC 4861 6.2.6) on cp2up. */
static void t_open5gs_v6(void **state)
{
	uint8_t rs[64], gtp[128], frame[256], ll[16];
	uint32_t teid = 0;
	uint64_t seid, before;
	size_t rl, gl, fl;
	struct run r;

	(void)state;
	associate();
	open5gs_est(2, 0x5101);
	for (unsigned i = 0; i < 2; i++) {   /* Open5GS: the PAA's both families in DL and UL PDR */
		struct pfcp_ue_ip *u = &Q.est.pdr[i].pdi.ue_ip;

		u->flags |= PFCP_UEIP_V6;
		assert_int_equal(pkt_in6(PFX6, u->ipv6), 0);
	}
	Q.est.pdn_type = PFCP_PDN_IPV4V6;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_created, 3);
	for (unsigned i = 0; i < 3; i++) {
		assert_int_equal(R.rsp.created[i].fteid.flags, PFCP_FTEID_V4 | PFCP_FTEID_V6);
		if (R.rsp.created[i].pdr_id == 2)
			teid = R.rsp.created[i].fteid.teid;
	}
	seid = R.rsp.up_fseid.seid;
	sess_req(PFCP_SESS_MOD_REQ, 3, seid);
	Q.mod.has = PFCP_SMR_UPD_FAR;
	Q.mod.n_upd_far = 1;
	far_gnb(&Q.mod.upd_far[0], 1, 0x4343);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	before = upcnt(UPF_STAT_RA_SENT);
	assert_int_equal(pkt_in6("fe80::abcd", ll), 0);
	rl = pkt_rs6(rs, ll);
	gl = pkt_gpdu(gtp, teid, 1, 1, rs, rl);
	fl = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip(GNB), ip(N3), gtp, gl);
	xdp(n3_if, frame, fl, &r);
	assert_true(upf_process(U) >= 1);
	/* issue 32 item 2: the up2cp PDR is installed, the RS goes to the SMF (test_upf_pdr
	 * t_up2cp_rs follows it there and the SMF's answer back on cp2up), not to our own RA */
	assert_int_equal(upcnt(UPF_CNT_UL_TO_CP), 1);
	assert_int_equal(upcnt(UPF_STAT_RA_SENT), before);
}

/* What still has no place is refused with cause 73 and the Offending IE: CHOOSE for IPv6 only
 * without upf.n3_address6; an up2cp PDR on another CHOOSE ID than the UL PDR's (a second TEID
 * the data path would not serve); its FAR not toward CP-function; a volume quota. */
static void t_open5gs_refused(void **state)
{
	(void)state;
	associate();
	open5gs_est(2, 0x5002);
	Q.est.pdr[1].pdi.fteid.flags = PFCP_FTEID_V6 | PFCP_FTEID_CH;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_F_TEID);
	open5gs_est(3, 0x5003);
	Q.est.pdr[3].pdi.fteid.choose_id = CHOOSE_ID + 1;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_F_TEID);
	open5gs_est(4, 0x5004);
	Q.est.far[2].fwd.dest_if = PFCP_IF_CORE;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_FWD_PARAMS);
	open5gs_est(5, 0x5005);
	Q.est.urr[0].method = PFCP_MM_EVENT;   /* (a Volume Quota is accepted, issue 32) */
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_URR);
	assert_int_equal(upf_n4_sessions(N), 0);
}

/* 50 back-to-back 1000-byte uplink packets: how many the data path policed */
static uint64_t ul_burst(uint32_t teid, uint8_t qfi)
{
	uint64_t before = upcnt(UPF_CNT_DROP_AMBR_UL);

	for (int i = 0; i < 50; i++)
		ul(teid, qfi, 1000);
	return upcnt(UPF_CNT_DROP_AMBR_UL) - before;
}

/* Issue 32, free5GC rows: two QERs and two URRs on each PDR. TS 29.244 5.4.1: both QERs apply
 * to the packet, so the tighter MBR (8 kbit/s here, either QER) polices it; the QFI from the
 * flow QER. Both URRs are served from the session's counters and reported at deletion. Cause 73
 * before issue 32. */
static void t_free5gc(void **state)
{
	uint64_t seid;

	(void)state;
	associate();
	free5gc_est(2, 0x6001, 3, 8, 1000000);     /* flow QER tight, AMBR loose */
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	seid = R.rsp.up_fseid.seid;
	assert_true(ul_burst(3, 9) >= 1);
	sess_req(PFCP_SESS_DEL_REQ, 3, seid);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(R.rsp.n_usage, 2);
	assert_int_equal(R.rsp.usage[0].urr_id, 1);
	assert_int_equal(R.rsp.usage[1].urr_id, 2);
	assert_int_equal(R.rsp.usage[0].volume.ul_pkts, R.rsp.usage[1].volume.ul_pkts);
	assert_true(R.rsp.usage[0].volume.ul_pkts >= 1);

	free5gc_est(4, 0x6002, 5, 1000000, 1000000);   /* both loose: nothing policed */
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	seid = R.rsp.up_fseid.seid;
	assert_int_equal(ul_burst(5, 9), 0);
	/* Update QER (7.5.4.5): the AMBR QER becomes the tight one, and it binds */
	sess_req(PFCP_SESS_MOD_REQ, 5, seid);
	Q.mod.has = PFCP_SMR_UPD_QER;
	Q.mod.n_upd_qer = 1;
	Q.mod.upd_qer[0] = (struct pfcp_qer){ .has = PFCP_QER_ID | PFCP_QER_MBR, .qer_id = 2, .mbr = { 8, 8 } };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_true(ul_burst(5, 9) >= 1);
	/* two QERs naming different QFIs for the one flow: refused */
	free5gc_est(6, 0x6003, 7, 8, 8);
	Q.est.pdr[1].pdi.ue_ip.ipv4[3] = 4;
	Q.est.pdr[0].pdi.ue_ip.ipv4[3] = 4;
	Q.est.qer[1].has |= PFCP_QER_QFI;
	Q.est.qer[1].qfi = 8;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_CREATE_QER);
}

/* free5GC's modification (Update PDR as it was + Update FAR, 7.5.4.2 / 7.5.4.3) accepted and the
 * downlink moved to the new tunnel; an Update PDR that would change the installed rule (another
 * UE address, other URRs, another FAR) is refused with cause 73, Offending IE Update PDR, and
 * the session is unchanged. Cause 73 for any Update PDR before issue 32. */
static void t_free5gc_mod(void **state)
{
	uint32_t got = 0;
	uint64_t seid;

	(void)state;
	associate();
	free5gc_est(2, 0x6101, 3, 1000000, 1000000);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	seid = R.rsp.up_fseid.seid;
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x77);
	free5gc_mod(3, seid, 0x88);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x88);
	free5gc_mod(4, seid, 0x99);
	Q.mod.upd_pdr[0].pdi.ue_ip.ipv4[3] = 9;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_PDR);
	free5gc_mod(5, seid, 0x99);
	Q.mod.upd_pdr[0].urr_id[1] = 7;   /* a URR the session does not have (7.5.4.2) */
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_PDR);
	free5gc_mod(6, seid, 0x99);
	Q.mod.upd_pdr[0].far_id = 1;
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_UPDATE_PDR);
	assert_int_equal(dl(&got), XDP_REDIRECT);
	assert_int_equal(got, 0x88);
	/* the uplink PDR as it was (its CP-chosen F-TEID): accepted; asking CHOOSE again (a new
	 * TEID) or another TEID: refused, the uplink still on TEID 3 */
	{
		struct pfcp_pdr u = Q.mod.upd_pdr[0];

		for (int k = 0; k < 3; k++) {
			free5gc_mod(7 + k, seid, 0x88);
			Q.mod.has &= ~(uint32_t)PFCP_SMR_UPD_FAR;
			Q.mod.n_upd_far = 0;
			u = Q.mod.upd_pdr[0];
			u.pdr_id = 1;
			u.far_id = 1;
			u.pdi.src_if = PFCP_IF_ACCESS;
			u.pdi.ue_ip.flags = PFCP_UEIP_V4;
			u.pdi.has |= PFCP_PDI_F_TEID;
			u.pdi.fteid.flags = k == 1 ? PFCP_FTEID_V4 | PFCP_FTEID_CH : PFCP_FTEID_V4;
			u.pdi.fteid.teid = k == 2 ? 4 : 3;
			memcpy(u.pdi.fteid.ipv4, &(uint32_t){ ip(N3) }, 4);
			Q.mod.upd_pdr[0] = u;
			xchg();
			assert_int_equal(R.rsp.cause, k ? PFCP_CAUSE_RULE_FAILURE : PFCP_CAUSE_ACCEPTED);
		}
		assert_int_equal(ul(3, 9, 100), XDP_REDIRECT);
	}
}

/* Issue 32 "QER with a GBR" (PFCP benchmark clients): accepted; TS 29.244 8.2.9 / 5.4: the GBR
 * is a reservation, the MBR is policed. Cause 73 (offending GBR) before issue 32. */
static void t_gbr(void **state)
{
	(void)state;
	associate();
	free5gc_est(2, 0x7001, 2, 1000000, 1000000);
	for (unsigned i = 0; i < 2; i++)   /* one QER, one URR: only the GBR is new here */
		Q.est.pdr[i].n_qer = Q.est.pdr[i].n_urr = 1;
	Q.est.n_qer = Q.est.n_urr = 1;
	Q.est.qer[0].has |= PFCP_QER_GBR;
	Q.est.qer[0].gbr = (struct pfcp_bitrate){ 5000, 5000 };
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	assert_int_equal(ul(2, 9, 100), XDP_REDIRECT);
}

/* Issue 32 "CP-chosen TEIDs": a CP-chosen TEID held by one session never blocks CHOOSE for the
 * others (the TEID bitmap of upf_n4_sess.c skips it): every other TEID of 1..max_teid is
 * handed out; right beyond max_teid (the cp2up TEIDs) a CP-chosen TEID is cause 73, Offending
 * IE F-TEID (TS 29.244 8.2.1). */
static void t_cp_teid(void **state)
{
	uint32_t seq = 3;

	(void)state;
	associate();
	free5gc_est(2, 0x8000, 7, 1000000, 1000000);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
	for (unsigned i = 1; i < MAX_SESS; i++, seq++) {
		char ue[32];

		open5gs_est(seq, 0x8000 + i);
		Q.est.n_pdr = 2;   /* the common shape: one DL, one UL PDR */
		Q.est.n_far = 2;
		snprintf(ue, sizeof(ue), "172.16.1.%u", i);
		memcpy(Q.est.pdr[0].pdi.ue_ip.ipv4, &(uint32_t){ ip(ue) }, 4);
		memcpy(Q.est.pdr[1].pdi.ue_ip.ipv4, &(uint32_t){ ip(ue) }, 4);
		xchg();
		assert_int_equal(R.rsp.cause, PFCP_CAUSE_ACCEPTED);
		assert_int_not_equal(R.rsp.created[0].fteid.teid, 7);
	}
	assert_int_equal(upf_n4_sessions(N), MAX_SESS);
	teardown(state);
	assert_int_equal(setup(state), 0);
	associate();
	/* right past max_teid: the cp2up TEIDs, ours (test_upf_pdr has the rest of 32 bits) */
	free5gc_est(2, 0x8100, MAX_SESS + 1, 1000000, 1000000);
	xchg();
	assert_int_equal(R.rsp.cause, PFCP_CAUSE_RULE_FAILURE);
	assert_int_equal(R.rsp.offending_ie, PFCP_IE_F_TEID);
}

static int group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
		return -1;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

/* The replayed requests through tshark's PFCP dissector: no malformed field, no error; the IEs
 * Open5GS and free5GC send read as such */
static int group_teardown(void **state)
{
	static const char *const want[] = {
		/* Open5GS UL / up2cp: V4, V6, CH, CHID with the CHOOSE ID; the RS filter; PDN Type */
		("pfcp.msg_type == 50 && pfcp.f_teid_flags.ch_id == 1 && pfcp.f_teid_flags.v6 == 1 && "
		 "pfcp.f_teid.choose_id == 5"),
		"pfcp.msg_type == 50 && pfcp.flow_desc == \"permit out 58 from ff02::2/128 to assigned\"",
		"pfcp.msg_type == 50 && pfcp.source_interface == 3 && pfcp.dst_interface == 3",
		"pfcp.msg_type == 50 && pfcp.pdn_type == 1",
		"pfcp.msg_type == 50 && pfcp.pdn_type == 3",
		"pfcp.msg_type == 50 && pfcp.tgpp_interface_type == 11",
		"pfcp.msg_type == 50 && pfcp.volume_threshold.tovol == 104857600",
		"pfcp.msg_type == 50 && pfcp.measurement_period == 100",
		"pfcp.msg_type == 50 && pfcp.volume_threshold.ulvol == 104857600",
		"pfcp.msg_type == 52 && pfcp.pdr_id == 2 && pfcp.far_id == 2 && pfcp.urr_id == 2",
		"pfcp.msg_type == 51 && pfcp.cause == 1 && pfcp.pdr_id == 4",
		"pfcp.msg_type == 55 && pfcp.urr_id == 2",
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
	int rc = tn_require_root_bpf("upf_n4_shapes");

	if (rc)
		return rc;
	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the replayed N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4_shapes.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_open5gs, setup, teardown),
		cmocka_unit_test_setup_teardown(t_open5gs_v6, setup6, teardown),
		cmocka_unit_test_setup_teardown(t_open5gs_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(t_free5gc, setup, teardown),
		cmocka_unit_test_setup_teardown(t_free5gc_mod, setup, teardown),
		cmocka_unit_test_setup_teardown(t_gbr, setup, teardown),
		cmocka_unit_test_setup_teardown(t_cp_teid, setup, teardown),
	};

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown_checked);
	return rc ? rc : teardown_failed;
}
