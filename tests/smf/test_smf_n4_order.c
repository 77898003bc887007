/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32, "the UE's accept only after the N4 answer" and "CHOOSE when the UPF advertises FTUP":
 * the SMF (upf.mode pfcp) with its N4 client on a real UDP socket (127.3.2.1:8805) against a
 * PFCP peer of this test on another (127.3.2.2:8805) that answers as each case wants, all on
 * the fixture's ev loop. What the SMF tells the UE comes out of smf_n1_rx (F->out) or ops.send
 * (F->sends), as the AMF would send it.
 *   - TS 23.502 4.3.2.2.1: N4 Session Establishment (steps 10a/10b) before the N1N2 message
 *     transfer of step 11: nothing reaches the UE while the UPF holds its answer (t_delayed).
 *   - TS 24.501 6.4.1.4.1 / Annex B: a UPF that refuses for resources (PFCP Cause 75, TS 29.244
 *     8.2.1) -> PDU SESSION ESTABLISHMENT REJECT #26, any other refusal #31, no answer after T1 x
 *     N1 (29.244 6.4) #38; no N2 resource setup, nothing left (t_reject, t_timeout).
 *   - TS 29.244 8.2.25 FTUP -> the UL PDR's F-TEID with CH + CHID (8.2.3), the UPF's TEID read
 *     from the Created PDR (7.5.3.2) into the N2 UL NG-U UP TNL Information (t_choose); without
 *     FTUP the CP's TEID with the SMF node id in its high bits (5.5.3.1, t_cp_node).
 *   - a release or deregistration while waiting, a late answer for a freed session (t_cancel),
 *     the UE's own release request while waiting (t_ue_release); an accept the AMF cannot deliver
 *     (t_unreachable); a CHOOSE accepted without its Created PDR (t_no_created), an answer under
 *     another SEID than the request's (t_seid).
 * Every datagram goes into a pcap that tshark's PFCP dissector reads at the end (the CH flag in
 * the request, the Created PDR in the response, nothing malformed). argv: tshark, build dir.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
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

#include "common/ngap/ngap.h"
#include "common/pfcp/pfcp.h"
#include "smf/smf.h"
#include "upf/upf.h"
#include "smf_fx.h"
#include "testlib.h"

#define SMF_N4 "127.3.2.1"
#define UPF_N4 "127.3.2.2"
#define UPF_N3 "192.0.2.10"      /* the configured N3 address of the peer */
#define UPF_N3_CHOSEN "192.0.2.77" /* the address the UPF gives in its Created PDR */
#define T1_MS 50   /* margin for a loaded CI host: the held answer must beat T1 x N1 */
#define N1 2
#define MAX_SESS 64

enum est_mode { EST_ANSWER = 0, EST_HOLD, EST_REJECT, EST_NEVER };

static struct fx *F;
static struct upf_n4c *C;
static struct upf *P;
static const char *tshark_path;
static char pcap_path[512];
static struct pcapw *W;

/* the PFCP peer of this test */
static struct {
	int fd;
	bool ftup;
	enum est_mode mode;
	uint8_t cause;               /* EST_REJECT */
	bool no_created;             /* accept a CHOOSE without its Created PDR (a broken UPF) */
	uint64_t seid_xor;           /* answers an establishment under another header SEID */
	uint32_t chosen_teid;        /* next TEID it allocates (CHOOSE) */
	int n_est, n_mod, n_del, n_assoc;
	struct pfcp_msg held;        /* the last establishment request (EST_HOLD: unanswered) */
	bool holding;
	uint64_t last_del_seid;      /* header SEID of the last deletion */
	uint64_t up_seid_next;
	struct pfcp_fteid req_fteid; /* the UL PDR's F-TEID of the last establishment request */
	uint32_t req_seq;
	int n_fwd_create, n_fwd_target, n_fwd_remove;   /* forwarding PDR 3 / FAR 3 (t_ho_fwd) */
} U;
static struct pfcp_msg in, out;

static void record(uint32_t src, uint32_t dst, const uint8_t *b, size_t len)
{
	uint8_t pkt[2048 + 28] = { 0 };
	uint32_t sum = 0;

	assert_true(len <= 2048);
	pkt[0] = 0x45;
	pkt[2] = (uint8_t)((len + 28) >> 8);
	pkt[3] = (uint8_t)(len + 28);
	pkt[8] = 64;
	pkt[9] = 17;
	memcpy(pkt + 12, &src, 4);
	memcpy(pkt + 16, &dst, 4);
	for (int i = 0; i < 20; i += 2)
		sum += (uint32_t)pkt[i] << 8 | pkt[i + 1];
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	pkt[10] = (uint8_t)(~sum >> 8);
	pkt[11] = (uint8_t)~sum;
	pkt[20] = pkt[22] = PFCP_PORT >> 8;
	pkt[21] = pkt[23] = PFCP_PORT & 0xff;
	pkt[24] = (uint8_t)((len + 8) >> 8);
	pkt[25] = (uint8_t)(len + 8);   /* UDP checksum 0: none (RFC 768) */
	memcpy(pkt + 28, b, len);
	assert_int_equal(pcapw_upper(W, "ip", pkt, len + 28), 0);
}

static void upf_send(void)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT), .sin_addr.s_addr = fx_ip(SMF_N4) };
	uint8_t b[2048];
	int n = pfcp_encode(&out, b, sizeof(b));

	assert_true(n > 0);
	record(fx_ip(UPF_N4), fx_ip(SMF_N4), b, (size_t)n);
	assert_int_equal(sendto(U.fd, b, (size_t)n, 0, (struct sockaddr *)&to, sizeof(to)), n);
}

static void node_rsp(uint8_t type, uint32_t has)
{
	memset(&out, 0, sizeof(out));
	out.h.type = type;
	out.h.seq = in.h.seq;
	out.node.has = has;
	out.node.node_id.type = PFCP_NODE_IPV4;
	memcpy(out.node.node_id.addr, &(uint32_t){ fx_ip(UPF_N4) }, 4);
	out.node.cause = PFCP_CAUSE_ACCEPTED;
	out.node.recovery = 3900000000u;
}

/* TS 29.244 7.5.3: the answer to the establishment in m, with cause; accepted: UP F-SEID and,
 * for a CHOOSE, the Created PDR with the F-TEID we allocated (7.5.3.2) */
static void est_rsp(const struct pfcp_msg *m, uint8_t cause)
{
	memset(&out, 0, sizeof(out));
	out.h.type = PFCP_SESS_EST_RSP;
	out.h.seq = m->h.seq;
	out.h.seid = m->est.cp_fseid.seid ^ U.seid_xor;   /* 7.2.2.4.2: the CP's SEID */
	out.rsp.has = PFCP_SRSP_NODE_ID | PFCP_SRSP_CAUSE;
	out.rsp.node_id.type = PFCP_NODE_IPV4;
	memcpy(out.rsp.node_id.addr, &(uint32_t){ fx_ip(UPF_N4) }, 4);
	out.rsp.cause = cause;
	if (cause == PFCP_CAUSE_ACCEPTED) {
		out.rsp.has |= PFCP_SRSP_F_SEID;
		out.rsp.up_fseid.flags = PFCP_ADDR_V4;
		out.rsp.up_fseid.seid = ++U.up_seid_next;
		memcpy(out.rsp.up_fseid.ipv4, &(uint32_t){ fx_ip(UPF_N4) }, 4);
		for (unsigned i = 0; i < m->est.n_pdr; i++) {
			const struct pfcp_pdr *d = &m->est.pdr[i];
			struct pfcp_created_pdr *cp;

			if (!(d->pdi.has & PFCP_PDI_F_TEID) || !(d->pdi.fteid.flags & PFCP_FTEID_CH) || U.no_created)
				continue;
			cp = &out.rsp.created[out.rsp.n_created++];
			out.rsp.has |= PFCP_SRSP_CREATED_PDR;
			cp->has = PFCP_CPDR_ID | PFCP_CPDR_F_TEID;
			cp->pdr_id = d->pdr_id;
			cp->fteid.flags = PFCP_FTEID_V4;
			cp->fteid.teid = U.chosen_teid++;
			memcpy(cp->fteid.ipv4, &(uint32_t){ fx_ip(UPF_N3_CHOSEN) }, 4);
		}
	} else {
		out.rsp.has |= PFCP_SRSP_OFFENDING;
		out.rsp.offending_ie = PFCP_IE_CREATE_PDR;
	}
	upf_send();
}

static void on_upf_rx(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	uint8_t b[4096];
	struct pfcp_err e;
	ssize_t n;

	(void)loop;
	(void)events;
	(void)arg;
	while ((n = recv(fd, b, sizeof(b), MSG_DONTWAIT)) > 0) {
		record(fx_ip(SMF_N4), fx_ip(UPF_N4), b, (size_t)n);
		assert_true(pfcp_decode(b, (size_t)n, &in, &e) > 0);
		switch (in.h.type) {
		case PFCP_ASSOC_SETUP_REQ: {
			/* 8.2.25: FTUP is octet 5 bit 5 */
			static const uint8_t feat[2] = { 0x10, 0x00 }, none[2] = { 0, 0 };

			U.n_assoc++;
			node_rsp(PFCP_ASSOC_SETUP_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE | PFCP_N_RECOVERY | PFCP_N_UP_FEATURES);
			out.node.up_features = (struct pfcp_buf){ U.ftup ? feat : none, 2 };
			upf_send();
			break;
		}
		case PFCP_HEARTBEAT_REQ:
			node_rsp(PFCP_HEARTBEAT_RSP, PFCP_N_RECOVERY);
			upf_send();
			break;
		case PFCP_SESS_EST_REQ:
			U.n_est++;
			U.req_seq = in.h.seq;
			for (unsigned i = 0; i < in.est.n_pdr; i++)
				if (in.est.pdr[i].pdi.src_if == PFCP_IF_ACCESS)
					U.req_fteid = in.est.pdr[i].pdi.fteid;
			if (U.mode == EST_ANSWER) {
				est_rsp(&in, PFCP_CAUSE_ACCEPTED);
			} else if (U.mode == EST_REJECT) {
				est_rsp(&in, U.cause);
			} else if (U.mode == EST_HOLD) {
				U.held = in;
				U.holding = true;
			}
			break;
		case PFCP_SESS_MOD_REQ:
		case PFCP_SESS_DEL_REQ:
			if (in.h.type == PFCP_SESS_MOD_REQ)
				U.n_mod++;
			else
				U.n_del++, U.last_del_seid = in.h.seid;
			memset(&out, 0, sizeof(out));
			out.h.type = (uint8_t)(in.h.type + 1);
			out.h.seq = in.h.seq;
			out.h.seid = 0x7000;   /* not checked by the client: it matches by sequence number */
			out.rsp.has = PFCP_SRSP_CAUSE;
			out.rsp.cause = PFCP_CAUSE_ACCEPTED;
			/* t_ho_fwd: the forwarding PDR's CHOOSE answered in a Created PDR (7.5.5.1) */
			for (unsigned i = 0; in.h.type == PFCP_SESS_MOD_REQ && i < in.mod.n_pdr; i++) {
				struct pfcp_created_pdr *cp = &out.rsp.created[out.rsp.n_created++];

				U.n_fwd_create++;
				out.rsp.has |= PFCP_SRSP_CREATED_PDR;
				cp->has = PFCP_CPDR_ID | PFCP_CPDR_F_TEID;
				cp->pdr_id = in.mod.pdr[i].pdr_id;
				cp->fteid.flags = PFCP_FTEID_V4;
				cp->fteid.teid = 0x80000abc;
				memcpy(cp->fteid.ipv4, &(uint32_t){ fx_ip(UPF_N3_CHOSEN) }, 4);
			}
			for (unsigned i = 0; in.h.type == PFCP_SESS_MOD_REQ && i < in.mod.n_upd_far; i++)
				U.n_fwd_target += in.mod.upd_far[i].far_id == 3 && in.mod.upd_far[i].apply == PFCP_AA_FORW;
			if (in.h.type == PFCP_SESS_MOD_REQ)
				U.n_fwd_remove += in.mod.n_rm_pdr;
			upf_send();
			break;
		default:
			break;
		}
	}
}

static void on_lost(void *smf, uint32_t id, enum upf_lost_reason why)
{
	smf_upf_session_lost(smf, id, (int)why);
}

static bool associated(struct fx *f)
{
	(void)f;
	return upf_ready(P);
}

static void start(bool ftup, enum est_mode mode, uint64_t node_id)
{
	struct upf_n4c_params cp = {
		.loop = F->loop, .addr = fx_ip(SMF_N4), .max_sessions = MAX_SESS, .heartbeat_ms = 1000,
		.t1_ms = T1_MS, .n1 = N1, .recovery_ts = 3900000100u, .node_id = node_id,
	};
	struct upf_n4c_peer pp = { .name = "upfA", .addr = fx_ip(UPF_N4), .n3_addr = fx_ip(UPF_N3),
				   .on_dl_data = smf_upf_dl_data, .on_session_lost = on_lost,
				   .on_est_done = smf_upf_est_done, .cb_arg = F->smf };
	struct conf_upf_peer pe = { 0 };
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT), .sin_addr.s_addr = fx_ip(UPF_N4) };

	memset(&U, 0, sizeof(U));
	U.ftup = ftup;
	U.mode = mode;
	U.chosen_teid = 0x5eed0001u;
	U.fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(U.fd >= 0);
	assert_int_equal(bind(U.fd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(ev_fd_add(F->loop, U.fd, EV_READ, on_upf_rx, NULL), 0);
	assert_int_equal(upf_n4c_open(&cp, &C), 0);
	snprintf(pe.name, sizeof(pe.name), "upfA");
	assert_int_equal(upf_n4c_peer_add(C, &pp, &P), 0);
	assert_int_equal(smf_add_upf(F->smf, P, &pe), 0);
	assert_true(fx_run_until(F, associated, 2000));
}

static int setup(void **state)
{
	(void)state;
	F = fx_new(MAX_SESS, 15);
	return F ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	smf_set_upf(F->smf, NULL);
	upf_n4c_close(C);
	C = NULL;
	ev_fd_del(F->loop, U.fd);
	close(U.fd);
	fx_free(F);
	return 0;
}

static int est_seen;
static bool est_arrived(struct fx *f)
{
	(void)f;
	return U.n_est >= est_seen;
}

static int sends_before;
static bool sent_one(struct fx *f)
{
	return f->sends > sends_before;
}

/* Run the loop ms, whatever happens (the time a hasty SMF would need to talk to the UE) */
static bool never(struct fx *f)
{
	(void)f;
	return false;
}

static void request(struct smf_ue *ue, uint8_t psi, uint8_t pti)
{
	struct est_opt o = { .psi = psi, .pti = pti };

	est_seen = U.n_est + 1;
	assert_int_equal(fx_est(F, ue, &o), 0);
	/* TS 23.502 4.3.2.2.1 step 11 waits for step 10b: nothing for the UE or the gNB yet */
	assert_int_equal(F->out.n1_len, 0);
	assert_int_equal(F->out.n2_proc, SMF_N2_NONE);
	assert_true(fx_run_until(F, est_arrived, 2000));
}

static void state_is(struct smf_ue *ue, uint8_t psi, unsigned st)
{
	struct smf_sess_info si;

	assert_int_equal(smf_sess_info(F->smf, ue, psi, &si), 0);
	assert_int_equal(si.state, st);
}

/* The accept and the N2 Setup Request Transfer sent through ops.send: its UL tunnel */
static void sent_accept(uint8_t psi, uint32_t *teid, uint32_t *addr)
{
	struct ngap_setup_request_transfer t;
	struct nas_msg m;
	struct nas_err err;

	assert_int_equal(nas_decode(F->s_n1, F->s_n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(m.psi, psi);
	assert_int_equal(F->s_proc, SMF_N2_SETUP);
	assert_int_equal(ngap_dec_setup_request_transfer(F->s_n2, F->s_n2_len, &t, NULL), 0);
	assert_int_equal(t.ul_tunnel.addr_bits, 32);
	memcpy(addr, t.ul_tunnel.addr, 4);
	*teid = (uint32_t)t.ul_tunnel.teid[0] << 24 | (uint32_t)t.ul_tunnel.teid[1] << 16 |
		(uint32_t)t.ul_tunnel.teid[2] << 8 | t.ul_tunnel.teid[3];
}

static void sent_reject(uint8_t psi, uint8_t pti, uint8_t cause)
{
	struct nas_msg m;
	struct nas_err err;

	assert_int_equal(nas_decode(F->s_n1, F->s_n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.psi, psi);
	assert_int_equal(m.pti, pti);
	assert_int_equal(m.pdu_est_rej.cause, cause);
	assert_int_equal(F->s_proc, SMF_N2_NONE);   /* no N2 resource setup */
}

static void nothing_left(void)
{
	struct smf_stats st;
	uint32_t used, size;

	smf_get_stats(F->smf, &st);
	assert_int_equal(st.sessions, 0);
	assert_int_equal(smf_ue_psi_map(F->ue1), 0);
	assert_int_equal(smf_pool_usage(F->smf, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
}

/* TS 23.502 4.3.2.2.1: the UPF holds its answer; no accept reaches the UE before it, the accept
 * and the N2 request follow it at once, and the UE's retransmission meanwhile changes nothing */
static void t_delayed(void **state)
{
	struct est_opt o = { .psi = 1, .pti = 5 };
	uint32_t teid, addr;

	(void)state;
	start(false, EST_HOLD, 0);
	request(F->ue1, 1, 5);
	est_seen = 2;   /* held until the client sent it again after T1 (6.4): well past "at once" */
	assert_true(fx_run_until(F, est_arrived, 2000));
	assert_int_equal(F->sends, 0);
	state_is(F->ue1, 1, SMF_ST_N4_PENDING);
	assert_true(U.holding);
	/* T3580: the UE asks again, same PTI: no second session, no answer yet */
	assert_int_equal(fx_est(F, F->ue1, &o), 0);
	assert_int_equal(F->out.n1_len, 0);
	assert_int_equal(F->sends, 0);
	/* the answer: now the accept (step 11) */
	sends_before = F->sends;
	est_rsp(&U.held, PFCP_CAUSE_ACCEPTED);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_accept(1, &teid, &addr);
	assert_int_equal(teid, 1);   /* no FTUP, node id 0: the CP's TEID, slot + 1 (5.5.3.1) */
	assert_int_equal(addr, fx_ip(UPF_N3));
	state_is(F->ue1, 1, SMF_ST_ACTIVE_PENDING);
	assert_true(U.n_est >= 2 && U.n_est <= 1 + N1);   /* one request and its retransmissions */
	assert_int_equal(fx_setup_rsp(F, F->ue1, 1, 0x100), 0);
	state_is(F->ue1, 1, SMF_ST_ACTIVE);
}

/* TS 24.501 6.4.1.4.1: refused for resources -> #26; refused otherwise -> #31; nothing kept */
static void t_reject(void **state)
{
	struct smf_stats st;

	(void)state;
	start(true, EST_REJECT, 0);
	U.cause = PFCP_CAUSE_NO_RESOURCES;
	sends_before = F->sends;
	request(F->ue1, 1, 7);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_reject(1, 7, NAS_5GSM_INSUFFICIENT_RESOURCES);
	nothing_left();
	U.cause = PFCP_CAUSE_RULE_FAILURE;
	sends_before = F->sends;
	request(F->ue1, 2, 8);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_reject(2, 8, NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED);
	nothing_left();
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.upf_est_failed, 2);
	assert_int_equal(st.est_accepted, 0);
	assert_int_equal(st.upf_lost, 0);   /* not a release: the UE had no session */
	assert_int_equal(U.n_del, 0);       /* the UPF has none to delete */
	/* the slot serves again: a session the UPF takes */
	U.mode = EST_ANSWER;
	sends_before = F->sends;
	request(F->ue1, 3, 9);
	assert_true(fx_run_until(F, sent_one, 2000));
	state_is(F->ue1, 3, SMF_ST_ACTIVE_PENDING);
}

/* TS 29.244 6.4: no answer after T1 x N1 -> #38 network failure, nothing kept */
static void t_timeout(void **state)
{
	(void)state;
	start(false, EST_NEVER, 0);
	sends_before = F->sends;
	request(F->ue1, 4, 11);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_reject(4, 11, NAS_5GSM_NETWORK_FAILURE);
	{   /* issue 32, TS 24.501 6.4.1.4.3: with T3396 (upf.no_upf_backoff, 30 s by default) */
		struct nas_msg m;
		struct nas_err err;

		assert_int_equal(nas_decode(F->s_n1, F->s_n1_len, &m, &err), 0);
		assert_true(m.pdu_est_rej.has_backoff_timer);
		assert_int_equal(nas_gprs_timer3_secs(m.pdu_est_rej.backoff_timer), 30);
	}
	assert_int_equal(U.n_est, 1 + N1);   /* sent, then N1 retransmissions */
	nothing_left();
}

/* TS 29.244 8.2.25 FTUP: CHOOSE in the request (8.2.3), the UPF's F-TEID from its Created PDR
 * (7.5.3.2) in the N2 UL tunnel; the modifications after it keep that F-TEID */
static void t_choose(void **state)
{
	struct smf_sess_info si;
	struct smf_stats st;
	uint32_t teid, addr;

	(void)state;
	start(true, EST_ANSWER, 0);
	sends_before = F->sends;
	request(F->ue1, 1, 3);
	assert_true(U.req_fteid.flags & PFCP_FTEID_CH);
	assert_true(U.req_fteid.flags & PFCP_FTEID_CHID);
	assert_true(U.req_fteid.flags & PFCP_FTEID_V4);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_accept(1, &teid, &addr);
	assert_int_equal(teid, 0x5eed0001u);
	assert_int_equal(addr, fx_ip(UPF_N3_CHOSEN));
	assert_int_equal(smf_sess_info(F->smf, F->ue1, 1, &si), 0);
	assert_int_equal(si.ul_teid, 0x5eed0001u);
	/* the gNB's tunnel: a modification (Update FAR), accepted by the client with that F-TEID */
	assert_int_equal(fx_setup_rsp(F, F->ue1, 1, 0x100), 0);
	state_is(F->ue1, 1, SMF_ST_ACTIVE);
	fx_run_until(F, never, 20);
	assert_int_equal(U.n_mod, 1);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.upf_errors, 0);
	/* a deregistration: the session deleted with the UPF's SEID */
	assert_int_equal(smf_ue_detach(F->smf, F->ue1), 1);
	fx_run_until(F, never, 20);
	assert_int_equal(U.n_del, 1);
	assert_int_equal(U.last_del_seid, 1);
}

/* An N2 handover without a direct path: Handover Required (prepare), the target's acknowledge
 * with its DL forwarding tunnel 192.0.2.91 / 0x7000BB02 (admit); *cmd the Handover Command
 * Transfer the SMF answers */
static void ho_prepare_admit(void (*between)(void), struct ngap_ho_command_transfer *cmd)
{
	struct ngap_ho_required_transfer rq = { .has_direct_forwarding = false };
	struct ngap_ho_request_ack_transfer ak;
	uint8_t b[256];
	uint32_t a;
	int n = ngap_enc_ho_required_transfer(&rq, b, sizeof(b));

	assert_true(n > 0);
	assert_int_equal(smf_ho_prepare(F->smf, F->ue1, 1, b, (size_t)n, false, &F->out), 0);
	assert_int_equal(F->out.n2_proc, SMF_N2_HO_REQUEST);
	if (between)
		between();
	memset(&ak, 0, sizeof(ak));
	a = fx_ip("192.0.2.90");
	memcpy(ak.dl_tunnel.addr, &a, 4);
	ak.dl_tunnel.addr_bits = 32;
	memcpy(ak.dl_tunnel.teid, (uint8_t[]){ 0x70, 0, 0xaa, 1 }, 4);
	ak.has_dl_forwarding = true;
	a = fx_ip("192.0.2.91");
	memcpy(ak.dl_forwarding.addr, &a, 4);
	ak.dl_forwarding.addr_bits = 32;
	memcpy(ak.dl_forwarding.teid, (uint8_t[]){ 0x70, 0, 0xbb, 2 }, 4);
	ak.n_flows = 1;
	ak.flows[0].qfi = 1;
	ak.flows[0].forwarding_accepted = true;
	n = ngap_enc_ho_request_ack_transfer(&ak, b, sizeof(b));
	assert_true(n > 0);
	assert_int_equal(smf_ho_admitted(F->smf, F->ue1, 1, b, (size_t)n, &F->out), 0);
	assert_int_equal(F->out.n2_proc, SMF_N2_HO_COMMAND);
	assert_int_equal(ngap_dec_ho_command_transfer(F->out.n2, F->out.n2_len, cmd, NULL), 0);
}

/* the UPF reads the client's request and answers at once: the answer waits in the client's socket */
static void upf_answers_now(void)
{
	on_upf_rx(F->loop, U.fd, 0, NULL);
}

/* Issue 32 (indirect forwarding over N4, TS 23.502 4.9.1.3.2 steps 9-11, 4.9.1.3.3 step 21a):
 * the UPF (FTUP) chooses the forwarding tunnel's F-TEID, asked at the Handover Required (Create
 * PDR 3 with CHOOSE); its answer, in the socket when the acknowledge is handled, is taken then
 * and its F-TEID (0x80000abc on 192.0.2.77) goes in the Handover Command, FAR 3 to the target,
 * removed at the end. An answer not there yet: that handover goes without forwarding
 * (upf_errors), the tunnel removed; the handover itself completes. */
static void t_ho_fwd(void **state)
{
	struct ngap_ho_command_transfer cmd;
	struct smf_stats st;
	uint32_t teid, addr;

	(void)state;
	start(true, EST_ANSWER, 0);
	sends_before = F->sends;
	request(F->ue1, 1, 3);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_accept(1, &teid, &addr);
	assert_int_equal(fx_setup_rsp(F, F->ue1, 1, 0x100), 0);
	fx_run_until(F, never, 20);
	ho_prepare_admit(upf_answers_now, &cmd);
	assert_true(cmd.has_dl_forwarding);
	assert_int_equal(cmd.dl_forwarding.addr_bits, 32);
	memcpy(&addr, cmd.dl_forwarding.addr, 4);
	assert_int_equal(addr, fx_ip(UPF_N3_CHOSEN));
	assert_memory_equal(cmd.dl_forwarding.teid, ((uint8_t[]){ 0x80, 0, 0x0a, 0xbc }), 4);
	fx_run_until(F, never, 20);
	assert_int_equal(U.n_fwd_create, 1);
	assert_int_equal(U.n_fwd_target, 1);
	assert_int_equal(smf_ho_complete(F->smf, F->ue1, 1), 0);
	assert_int_equal(smf_ho_end(F->smf, F->ue1, 1), 0);
	fx_run_until(F, never, 20);
	assert_int_equal(U.n_fwd_remove, 1);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.upf_errors, 0);
	assert_int_equal(st.fwd_created, 1);
	/* the UPF's answer not there at the acknowledge */
	ho_prepare_admit(NULL, &cmd);
	assert_false(cmd.has_dl_forwarding);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.upf_errors, 1);
	assert_int_equal(st.fwd_created, 1);
	fx_run_until(F, never, 20);
	assert_int_equal(U.n_fwd_create, 2);
	assert_int_equal(U.n_fwd_target, 1);
	assert_int_equal(U.n_fwd_remove, 2);
	assert_int_equal(smf_ho_complete(F->smf, F->ue1, 1), 0);
	state_is(F->ue1, 1, SMF_ST_ACTIVE);
}

/* No FTUP: the CP's TEID, node id 5 above the slot bits (max 64 sessions: 7 bits) */
static void t_cp_node(void **state)
{
	uint32_t teid, addr;

	(void)state;
	start(false, EST_ANSWER, 5);
	sends_before = F->sends;
	request(F->ue1, 1, 3);
	assert_false(U.req_fteid.flags & PFCP_FTEID_CH);
	assert_int_equal(U.req_fteid.teid, 5u << 7 | 1);
	assert_int_equal(upf_n4c_cp_teid(C, 1), 5u << 7 | 1);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_accept(1, &teid, &addr);
	assert_int_equal(teid, 5u << 7 | 1);
	assert_int_equal(addr, fx_ip(UPF_N3));
}

/* While waiting: the network releases (UPF lost: reject #38, not a release command), the UE
 * deregisters (freed; the late answer then only deletes the PFCP session, nothing to the UE) */
static void t_cancel(void **state)
{
	struct smf_stats st;

	(void)state;
	start(true, EST_HOLD, 0);
	request(F->ue2, 1, 21);
	sends_before = F->sends;
	assert_int_equal(smf_release(F->smf, F->ue2, 1, NAS_5GSM_REACTIVATION_REQUESTED), 0);
	assert_int_equal(F->sends, sends_before + 1);
	sent_reject(1, 21, NAS_5GSM_NETWORK_FAILURE);
	assert_int_equal(smf_ue_psi_map(F->ue2), 0);
	/* the held answer for that freed session: deleted at the UPF, nothing to the UE */
	sends_before = F->sends;
	est_rsp(&U.held, PFCP_CAUSE_ACCEPTED);
	fx_run_until(F, never, 30);
	assert_int_equal(U.n_del, 1);
	assert_int_equal(U.last_del_seid, 1);
	assert_int_equal(F->sends, sends_before);
	/* deregistration while waiting */
	request(F->ue1, 2, 22);
	assert_int_equal(smf_ue_detach(F->smf, F->ue1), 1);
	nothing_left();
	est_rsp(&U.held, PFCP_CAUSE_ACCEPTED);
	/* the same answer again (a duplicate): stale, changes nothing */
	est_rsp(&U.held, PFCP_CAUSE_ACCEPTED);
	fx_run_until(F, never, 30);
	assert_int_equal(U.n_del, 2);
	assert_int_equal(F->sends, sends_before);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.est_accepted, 0);
}

/* The UPF accepts a CHOOSE but gives no F-TEID (7.5.3.2 says it shall, in a Created PDR): the
 * SMF has no uplink tunnel to give the gNB -> reject #31, the PFCP session deleted */
static void t_no_created(void **state)
{
	(void)state;
	start(true, EST_ANSWER, 0);
	U.no_created = true;
	sends_before = F->sends;
	request(F->ue1, 1, 3);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_reject(1, 3, NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED);
	nothing_left();
	fx_run_until(F, never, 30);
	assert_int_equal(U.n_del, 1);
	assert_int_equal(U.last_del_seid, 1);
}

/* TS 29.244 7.2.2.4.2: an answer under another header SEID than the request's CP SEID is not
 * this session's (its sequence number matched): a refusal, #31, what the UPF made deleted */
static void t_seid(void **state)
{
	(void)state;
	start(true, EST_ANSWER, 0);
	U.seid_xor = 0x100000000ull;   /* another generation of the same slot */
	sends_before = F->sends;
	request(F->ue1, 1, 3);
	assert_true(fx_run_until(F, sent_one, 2000));
	sent_reject(1, 3, NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED);
	nothing_left();
	fx_run_until(F, never, 30);
	assert_int_equal(U.n_del, 1);
	assert_int_equal(U.last_del_seid, 1);
}

/* The answer comes while the AMF cannot reach the UE (its N2 connection went meanwhile): the
 * accept is not deliverable, the session is released locally (the UE asks again, T3580) and its
 * PFCP session deleted */
static void t_unreachable(void **state)
{
	struct smf_stats st;

	(void)state;
	start(true, EST_HOLD, 0);
	request(F->ue1, 1, 3);
	F->send_rc = -EAGAIN;
	sends_before = F->sends;
	est_rsp(&U.held, PFCP_CAUSE_ACCEPTED);
	assert_true(fx_run_until(F, sent_one, 2000));
	nothing_left();
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.rel_local, 1);
	fx_run_until(F, never, 30);
	assert_int_equal(U.n_del, 1);
}

/* The UE's own PDU SESSION RELEASE REQUEST while waiting: a release command (its PTI, #36, N1
 * only: the gNB has nothing); the answer that comes then is not an accept; the release complete
 * frees the session and the PFCP session is deleted */
/* The client took an accepted establishment answer (its est_ok counter) */
static bool answer_taken(struct fx *f)
{
	uint64_t cnt[UPF_N4C__MAX];

	(void)f;
	assert_int_equal(upf_n4c_counters_get(C, cnt, UPF_N4C__MAX), 0);
	return cnt[UPF_N4C_EST_OK] >= 1;
}

static void t_ue_release(void **state)
{
	struct smf_stats st;
	struct nas_msg m;
	struct nas_err err;

	(void)state;
	start(true, EST_HOLD, 0);
	request(F->ue1, 1, 3);
	assert_int_equal(fx_gsm(F, F->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 1, 4, 0), 0);
	assert_int_equal(nas_decode(F->out.n1, F->out.n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.pti, 4);
	assert_int_equal(m.pdu_rel_cmd.cause, NAS_5GSM_REGULAR_DEACTIVATION);
	assert_int_equal(F->out.n2_proc, SMF_N2_NONE);
	state_is(F->ue1, 1, SMF_ST_INACTIVE_PENDING);
	est_rsp(&U.held, PFCP_CAUSE_ACCEPTED);
	assert_true(fx_run_until(F, answer_taken, 2000));
	/* what went meanwhile is the release command again (T3592), never an accept */
	assert_true(F->sends == 0 || (F->s_proc == SMF_N2_NONE && nas_decode(F->s_n1, F->s_n1_len, &m, &err) == 0 &&
				      m.type == NAS_PDU_SESSION_RELEASE_COMMAND));
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.est_accepted, 0);
	/* the fixture's T3592 is a few ms: the session may have been released locally already */
	assert_int_equal(fx_gsm(F, F->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 1, 4, 0), 0);
	nothing_left();
	fx_run_until(F, never, 30);
	assert_int_equal(U.n_del, 1);
}

/* tshark reads the N4 of all the cases: no malformed frame; CHOOSE in requests; Created PDR
 * with the UPF's F-TEID in responses; CP F-TEIDs without CH */
static int tshark_check(void)
{
	int bad = 0;

	if (tshark_lines(tshark_path, pcap_path, "-Y '_ws.malformed || _ws.expert.severity >= error'", NULL) != 0)
		bad++;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 50 && pfcp.f_teid_flags.ch == 1 && "
			 "pfcp.f_teid_flags.ch_id == 1 && pfcp.f_teid.choose_id == 1'", NULL) < 1)
		bad++;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 51 && pfcp.ie_type == 8 && "
			 "pfcp.f_teid.teid == 0x5eed0001 && pfcp.f_teid.ipv4_addr == " UPF_N3_CHOSEN "'", NULL) < 1)
		bad++;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 50 && pfcp.f_teid.teid == 0x281'", NULL) < 1)
		bad++;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 6 && pfcp.up_function_features.ftup == 1'",
			 NULL) < 1)
		bad++;
	if (bad)
		fprintf(stderr, "tshark: %d check(s) failed on %s\n", bad, pcap_path);
	return bad;
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_delayed, setup, teardown),
		cmocka_unit_test_setup_teardown(t_reject, setup, teardown),
		cmocka_unit_test_setup_teardown(t_timeout, setup, teardown),
		cmocka_unit_test_setup_teardown(t_choose, setup, teardown),
		cmocka_unit_test_setup_teardown(t_cp_node, setup, teardown),
		cmocka_unit_test_setup_teardown(t_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(t_no_created, setup, teardown),
		cmocka_unit_test_setup_teardown(t_seid, setup, teardown),
		cmocka_unit_test_setup_teardown(t_unreachable, setup, teardown),
		cmocka_unit_test_setup_teardown(t_ue_release, setup, teardown),
		cmocka_unit_test_setup_teardown(t_ho_fwd, setup, teardown),
	};
	int rc;

	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 of the SMF's establishment order");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/smf_n4_order.pcap", argc > 2 ? argv[2] : ".");
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	if (!W)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	pcapw_close(W);
	return rc ? rc : tshark_check() ? 1 : 0;
}
