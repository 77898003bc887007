/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The fixture of test_upf_n4_mod.c and test_upf_n4_urr.c (n4_fix.h). */
#include "n4_fix.h"

const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
const uint8_t GNB_MAC[6] = { 2, 0, 0, 0, 3, 2 };
const uint8_t N6_MAC[6] = { 2, 0, 0, 0, 6, 1 };
const uint8_t DN_MAC[6] = { 2, 0, 0, 0, 6, 2 };

const char *tshark_path;
int teardown_failed;
char pcap_path[512];
struct pcapw *W;
int n3_if, n6_if;

struct upf *U;
struct upf_n4 *N;
int cli = -1;
struct pfcp_msg Q, R;
uint8_t buf[4096];

uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

/* The UPF, its N4 server on it, and the SMF's socket: the fixture of every case. */
int open_upf(struct upf_params *p, struct upf_n4_params *np)
{
	if (upf_open(p, &U))
		return -1;
	np->upf = U;
	if (upf_n4_open(np, &N))
		return -1;
	cli = tn_udp_bind(ip(SMF_ADDR), PFCP_PORT);
	return cli < 0 ? -1 : 0;
}

int setup(void **state)
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

int teardown(void **state)
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

void record(uint32_t src, uint32_t dst, const uint8_t *b, size_t len)
{
	uint8_t pkt[4200];

	pkt_ipv4(pkt, src, dst, 17, PKT_UDP + len);
	pkt_udp(pkt + PKT_IP, PFCP_PORT, PFCP_PORT, len);
	memcpy(pkt + PKT_IP + PKT_UDP, b, len);
	assert_int_equal(pcapw_upper(W, "ip", pkt, PKT_IP + PKT_UDP + len), 0);
}

/* b to the server, its answer decoded into R (both recorded) */
void xchg_raw(const uint8_t *b, size_t len)
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

void xchg(void)
{
	int n = pfcp_encode(&Q, buf, sizeof(buf));

	assert_true(n > 0);
	xchg_raw(buf, (size_t)n);
}

void associate(void)
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

const char DNN_LABELS[] = "\x08internet";   /* 8.2.4 as an APN (TS 23.003 9.1) */
void est_head(uint32_t seq, uint64_t cp_seid)
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

struct pfcp_pdr *add_pdr(uint16_t id, uint32_t prec, uint8_t src_if, uint32_t far)
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

void refs(struct pfcp_pdr *d, unsigned n_qer, const uint32_t *qer, unsigned n_urr, const uint32_t *urr)
{
	d->has |= (n_qer ? PFCP_PDR_QER_ID : 0) | (n_urr ? PFCP_PDR_URR_ID : 0);
	d->n_qer = (uint8_t)n_qer;
	if (n_qer)
		memcpy(d->qer_id, qer, n_qer * sizeof(*qer));
	d->n_urr = (uint8_t)n_urr;
	if (n_urr)
		memcpy(d->urr_id, urr, n_urr * sizeof(*urr));
}

void sess_req(uint8_t type, uint32_t seq, uint64_t seid)
{
	memset(&Q, 0, sizeof(Q));
	Q.h.type = type;
	Q.h.seq = seq;
	Q.h.seid = seid;
}

void ue_ip(struct pfcp_pdr *d, bool dst)
{
	d->pdi.has |= PFCP_PDI_UE_IP;
	d->pdi.ue_ip.flags = PFCP_UEIP_V4 | (dst ? PFCP_UEIP_SD : 0);
	memcpy(d->pdi.ue_ip.ipv4, &(uint32_t){ ip(UE) }, 4);
}

void far_core(uint32_t id)
{
	Q.est.far[Q.est.n_far++] = (struct pfcp_far){
		.has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = id, .apply = PFCP_AA_FORW,
		.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_NI, .dest_if = PFCP_IF_CORE,
			 .ni = { (const uint8_t *)DNN_LABELS, sizeof(DNN_LABELS) - 1 } } };
}

void far_gnb(struct pfcp_far *f, uint32_t id, uint32_t gnb_teid)
{
	*f = (struct pfcp_far){ .has = PFCP_FAR_ID | PFCP_FAR_APPLY | PFCP_FAR_FWD, .far_id = id,
				.apply = PFCP_AA_FORW,
				.fwd = { .has = PFCP_FWD_DEST_IF | PFCP_FWD_OHC, .dest_if = PFCP_IF_ACCESS,
					 .ohc = { .desc = PFCP_OHC_GTPU4, .teid = gnb_teid } } };
	memcpy(f->fwd.ohc.ipv4, &(uint32_t){ ip(GNB) }, 4);
}

/* free5GC's: CP-chosen F-TEID teid on our N3 address; on both PDRs QER 1 (flow: MBR, QFI 9)
 * and QER 2 (session-AMBR), URR 1 (Measurement Period) and URR 2 (Volume Threshold) */
void free5gc_est(uint32_t seq, uint64_t cp_seid, uint32_t teid, uint64_t flow_kbps, uint64_t ambr_kbps)
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


void xdp(int ifindex, const uint8_t *frame, size_t len, struct run *r)
{
	r->len = sizeof(r->out);
	r->verdict = tn_xdp_run(upf_prog_fd(U), ifindex, frame, len, r->out, &r->len);
	assert_true(r->verdict >= 0);
}

/* An uplink G-PDU of size bytes on teid (QFI qfi): its verdict */
int ul(uint32_t teid, uint8_t qfi, size_t size)
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
int dl(uint32_t *teid)
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

uint64_t upcnt(unsigned idx)
{
	uint64_t c[UPF_STAT__MAX];

	assert_int_equal(upf_counters(U, c, UPF_STAT__MAX), 0);
	return c[idx];
}

/* 50 back-to-back 1000-byte uplink packets on teid: how many the data path policed */
uint64_t ul_burst(uint32_t teid, uint8_t qfi)
{
	uint64_t before = upcnt(UPF_CNT_DROP_AMBR_UL);

	for (int i = 0; i < 50; i++)
		ul(teid, qfi, 1000);
	return upcnt(UPF_CNT_DROP_AMBR_UL) - before;
}

uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* A session of the common shape: UL PDR 1 (CP TEID 3, FAR 1), DL PDR 2 (FAR 2 to the gNB),
 * QER 1 (MBR 1 Gbit/s) and URR 1 on both; the URR as given. Its UP SEID. */
uint64_t est_k(uint32_t seq, const struct pfcp_urr *u, uint8_t k)
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
uint64_t est(uint32_t seq, const struct pfcp_urr *u)
{
	return est_k(seq, u, 0);
}

const struct pfcp_urr VOLUM = { .has = PFCP_URR_ID | PFCP_URR_METHOD | PFCP_URR_TRIGGERS, .urr_id = 1,
				       .method = PFCP_MM_VOLUM };

/* n uplink packets of size bytes and n downlink ones (80 bytes): all forwarded */
void traffic(int n, size_t size)
{
	uint32_t got;

	for (int i = 0; i < n; i++) {
		assert_int_equal(ul(3, 0, size), XDP_REDIRECT);
		assert_int_equal(dl(&got), XDP_REDIRECT);
	}
}

const struct pfcp_usage_report *usage_of(const struct pfcp_usage_report *u, unsigned n, uint32_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (u[i].urr_id == id)
			return &u[i];
	fail_msg("no usage report for URR %u", id);
	return NULL;
}

/* The next Session Report Request the server sent (heartbeats skipped) into R; 0: none */
int report_rx(void)
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

void report_answer(void)
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

/* As setup, with a T1 of 1000 s: nothing we send is given up on during the test */
int setup_slow_t1(void **state)
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

int n4_fix_group_setup(void **state)
{
	(void)state;
	if (tn_unshare_net() || tn_fib_setup(&n3_if, &n6_if))
		return -1;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

int n4_fix_group_teardown(const char *const *want, size_t n_want)
{
	if (pcapw_close(W))
		return -1;
	if (tshark_expert(tshark_path, pcap_path, NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y _ws.malformed", NULL) != 0)
		return -1;
	for (size_t i = 0; i < n_want; i++) {
		char f[400];

		snprintf(f, sizeof(f), "-Y '%s'", want[i]);
		if (tshark_lines(tshark_path, pcap_path, f, NULL) < 1) {
			fprintf(stderr, "tshark: nothing matches %s\n", want[i]);
			return -1;
		}
	}
	return 0;
}
