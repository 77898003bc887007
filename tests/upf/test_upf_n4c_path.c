/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32: a PFCP path failure is not a restart. The SMF's N4 client (upf/upf.h, a UPF over
 * PFCP) with its real UDP socket against a PFCP peer on another real UDP socket in this
 * process: a small UPF that answers Association Setup, Heartbeat and session requests, and
 * that the test can silence, hold, or restart (another Recovery Time Stamp).
 *
 *   t_silent_same_stamp   heartbeats unanswered far longer than the old ~12 s rule's
 *                         T1 x (N1 + 1) after a heartbeat: the peer is unreachable (not
 *                         ready, no new sessions), its sessions are kept (no on_session_lost),
 *                         a modification made meanwhile is held; it answers again with the
 *                         same Recovery Time Stamp: resumed, the held modification goes, no
 *                         establishment or deletion sent (TS 29.244 6.2.2, 6.2.6.2.2;
 *                         TS 23.007 19A). Before: every session lost (UPF_LOST_PEER).
 *   t_silent_new_stamp    it comes back with another Recovery Time Stamp: it lost them, the
 *                         sessions are lost (released by the SMF, TS 23.527 4.3.2), nothing
 *                         deleted on it, the association set up again.
 *   t_path_release        unreachable past path_release_ms (upf.n4_path_release_timer): the
 *                         sessions are released; when it answers again with the same stamp,
 *                         what it still holds is deleted (one Deletion per session). Before:
 *                         released at the heartbeat loss, nothing deleted later.
 *   t_restart_race        it restarts; a new session made while our Association Setup Request
 *                         is unanswered is held (upf_ready true, no -ENOTCONN / #26) and
 *                         established once the setup is answered. Before: -ENOTCONN, 0.5 ms
 *                         before the answer (issue 32).
 *   t_restart_no_setup    ... and when the setup is never answered, the held session is lost
 *                         once (bounded by T1 x (N1 + 1)), then the peer is not ready.
 *
 * Every datagram both ways goes into a pcap that tshark's PFCP dissector checks at the end.
 * Short timers (heartbeat 60 ms, T1 30 ms, N1 2). argv: tshark path, build directory.
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

#include "common/ev.h"
#include "common/pfcp/pfcp.h"
#include "upf/upf.h"
#include "testlib.h"
#include "pkt.h"

#define SMF_ADDR "127.0.32.2"
#define UPF_ADDR "127.0.32.3"
#define N3 "192.0.2.1"
#define MAX_SESS 16
#define T1_MS 30
#define N1 2
#define HB_MS 60
/* heartbeat period + T1 x (N1 + 1): unanswered heartbeats make a path failure after this */
#define LOSS_MS (HB_MS + (N1 + 1) * T1_MS)

static const char *tshark_path;
static int teardown_failed;
static char pcap_path[512];
static struct pcapw *W;

static struct ev_loop *L;
static struct upf_n4c *C;
static struct upf *P;

/* the peer UPF */
static int ufd = -1;
static uint32_t u_recovery;
static bool u_silent;        /* drops every request */
static bool u_hold_setup;    /* drops Association Setup Requests only */
static uint64_t u_seid;
static unsigned u_rx[64];    /* requests received (not dropped), by message type */
static unsigned u_drop[64];  /* ... and dropped */
static int up_events, down_events, lost_events[4];

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static void record(uint32_t src, uint32_t dst, const uint8_t *b, size_t len)
{
	uint8_t pkt[2200];

	assert_true(len <= 2048);
	pkt_ipv4(pkt, src, dst, 17, PKT_UDP + len);
	pkt_udp(pkt + PKT_IP, PFCP_PORT, PFCP_PORT, len);
	memcpy(pkt + PKT_IP + PKT_UDP, b, len);
	assert_int_equal(pcapw_upper(W, "ip", pkt, PKT_IP + PKT_UDP + len), 0);
}

static void u_send(struct pfcp_msg *m, const struct sockaddr_in *to)
{
	uint8_t b[2048];
	int n = pfcp_encode(m, b, sizeof(b));

	assert_true(n > 0);
	record(ip(UPF_ADDR), ip(SMF_ADDR), b, (size_t)n);
	assert_int_equal(sendto(ufd, b, (size_t)n, 0, (const struct sockaddr *)to, sizeof(*to)), n);
}

static void u_node_answer(struct pfcp_msg *m, uint8_t type, uint32_t has)
{
	uint32_t seq = m->h.seq;

	memset(m, 0, sizeof(*m));
	m->h.type = type;
	m->h.seq = seq;
	m->node.has = has;
	m->node.cause = PFCP_CAUSE_ACCEPTED;
	m->node.node_id.type = PFCP_NODE_IPV4;
	memcpy(m->node.node_id.addr, &(uint32_t){ ip(UPF_ADDR) }, 4);
	m->node.recovery = u_recovery;
}

/* TS 29.244 7.5.3 / 7.5.5 / 7.5.7: accepted; an establishment gets a UP F-SEID */
static void u_sess_answer(struct pfcp_msg *m)
{
	uint32_t seq = m->h.seq;
	uint64_t cp = m->est.cp_fseid.seid;
	uint8_t type = (uint8_t)(m->h.type + 1);

	memset(m, 0, sizeof(*m));
	m->h.type = type;
	m->h.seq = seq;
	m->h.seid = type == PFCP_SESS_EST_RSP ? cp : 0;
	m->rsp.has = PFCP_SRSP_CAUSE;
	m->rsp.cause = PFCP_CAUSE_ACCEPTED;
	if (type == PFCP_SESS_EST_RSP) {
		m->rsp.has |= PFCP_SRSP_NODE_ID | PFCP_SRSP_F_SEID;
		m->rsp.node_id.type = PFCP_NODE_IPV4;
		memcpy(m->rsp.node_id.addr, &(uint32_t){ ip(UPF_ADDR) }, 4);
		m->rsp.up_fseid.flags = PFCP_ADDR_V4;
		m->rsp.up_fseid.seid = ++u_seid;
		memcpy(m->rsp.up_fseid.ipv4, &(uint32_t){ ip(UPF_ADDR) }, 4);
	}
}

/* The peer: every request waiting on its socket, answered unless silenced */
static void u_poll(void)
{
	static struct pfcp_msg m;
	uint8_t b[2048];

	for (;;) {
		struct sockaddr_in from;
		socklen_t fl = sizeof(from);
		ssize_t n = recvfrom(ufd, b, sizeof(b), MSG_DONTWAIT, (struct sockaddr *)&from, &fl);
		int rc;

		if (n < 0)
			return;
		record(ip(SMF_ADDR), ip(UPF_ADDR), b, (size_t)n);
		rc = pfcp_decode(b, (size_t)n, &m, NULL);
		assert_true(rc > 0);
		if (u_silent || (u_hold_setup && m.h.type == PFCP_ASSOC_SETUP_REQ)) {
			u_drop[m.h.type & 63]++;
			continue;
		}
		u_rx[m.h.type & 63]++;
		switch (m.h.type) {
		case PFCP_HEARTBEAT_REQ:
			u_node_answer(&m, PFCP_HEARTBEAT_RSP, PFCP_N_RECOVERY);
			break;
		case PFCP_ASSOC_SETUP_REQ:
			u_node_answer(&m, PFCP_ASSOC_SETUP_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE | PFCP_N_RECOVERY);
			break;
		case PFCP_ASSOC_RELEASE_REQ:
			u_node_answer(&m, PFCP_ASSOC_RELEASE_RSP, PFCP_N_NODE_ID | PFCP_N_CAUSE);
			break;
		case PFCP_SESS_EST_REQ:
		case PFCP_SESS_MOD_REQ:
		case PFCP_SESS_DEL_REQ:
			u_sess_answer(&m);
			break;
		default:
			continue;
		}
		u_send(&m, &from);
	}
}

/* Run the loop (the client's socket and timers) and the peer for ms. */
static void pump(int ms)
{
	uint64_t end = ev_update_now(L) + (uint64_t)ms * 1000000u;

	while (ev_update_now(L) < end) {
		ev_run_once(L, 1);
		u_poll();
	}
}

static uint64_t ccnt(unsigned idx)
{
	uint64_t c[UPF_N4C__MAX];

	assert_int_equal(upf_n4c_counters_get(C, c, UPF_N4C__MAX), 0);
	return c[idx];
}

static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	(void)id;
}

static void on_lost(void *arg, uint32_t id, enum upf_lost_reason why)
{
	(void)arg;
	assert_true(why >= UPF_LOST_REFUSED && why <= UPF_LOST_PEER);
	lost_events[why]++;
	assert_int_equal(upf_session_remove(P, id), 0);   /* as the SMF does: the session goes */
}

static void on_state(void *arg, bool up)
{
	(void)arg;
	if (up)
		up_events++;
	else
		down_events++;
}

static void open_all(uint32_t path_release_ms)
{
	struct sockaddr_in a = { .sin_family = AF_INET, .sin_port = htons(PFCP_PORT), .sin_addr.s_addr = ip(UPF_ADDR) };
	struct upf_n4c_params cp = {
		.loop = L, .addr = ip(SMF_ADDR), .max_sessions = MAX_SESS, .heartbeat_ms = HB_MS,
		.t1_ms = T1_MS, .n1 = N1, .recovery_ts = 3900000100u, .path_release_ms = path_release_ms,
	};
	struct upf_n4c_peer pp = {
		.name = "upf1", .addr = ip(UPF_ADDR), .n3_addr = ip(N3), .on_dl_data = on_dl,
		.on_session_lost = on_lost, .on_state = on_state,
	};

	ufd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	assert_true(ufd >= 0);
	assert_int_equal(bind(ufd, (struct sockaddr *)&a, sizeof(a)), 0);
	assert_int_equal(upf_n4c_open(&cp, &C), 0);
	assert_int_equal(upf_n4c_peer_add(C, &pp, &P), 0);
	pump(20);
	assert_int_equal(up_events, 1);
	assert_true(upf_ready(P));
}

static int setup(void **state)
{
	int err;

	(void)state;
	u_recovery = 3900000000u;
	u_silent = u_hold_setup = false;
	memset(u_rx, 0, sizeof(u_rx));
	memset(u_drop, 0, sizeof(u_drop));
	up_events = down_events = 0;
	memset(lost_events, 0, sizeof(lost_events));
	L = ev_loop_new(&err);
	return L ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	upf_n4c_close(C);
	u_poll();
	close(ufd);
	ufd = -1;
	ev_loop_free(L);
	C = NULL;
	P = NULL;
	return 0;
}

static struct upf_session_rule rule(unsigned k, uint32_t gnb_teid)
{
	return (struct upf_session_rule){
		.ul_teid = 10 + k, .ue_addr = htonl(ntohl(ip("172.16.0.10")) + k), .gnb_addr = ip("192.0.2.2"),
		.gnb_teid = gnb_teid, .qfi = 9, .ambr_ul_bps = 50000000, .ambr_dl_bps = 100000000,
		.dl_state = UPF_DL_ACTIVE,
	};
}

static void three_sessions(void)
{
	for (unsigned k = 0; k < 3; k++) {
		struct upf_session_rule r = rule(k, 0x1000 + k);

		assert_int_equal(upf_session_create(P, k, &r), 0);
	}
	pump(10);
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 3);
	assert_int_equal(ccnt(UPF_N4C_EST_OK), 3);
}

/* Silent for 4 x what made the old client give the peer up */
static void outage(void)
{
	u_silent = true;
	pump(4 * LOSS_MS);
	assert_int_equal(ccnt(UPF_N4C_PEER_LOST), 1);
	assert_int_equal(down_events, 1);
	assert_false(upf_ready(P));
}

static void t_silent_same_stamp(void **state)
{
	struct upf_session_rule r = rule(1, 0x2222);

	(void)state;
	open_all(10000);
	three_sessions();
	outage();
	assert_int_equal(lost_events[UPF_LOST_PEER], 0);      /* TS 23.007 19A: kept */
	assert_int_equal(lost_events[UPF_LOST_TIMEOUT], 0);
	/* no new session on an unreachable UPF (the SMF places it elsewhere or answers #26) */
	assert_int_equal(upf_session_create(P, 5, &r), -ENOTCONN);
	/* a change meanwhile (the gNB tunnel): accepted, held */
	assert_int_equal(upf_session_modify(P, 1, &r), 0);
	pump(2 * LOSS_MS);
	assert_int_equal(u_rx[PFCP_SESS_MOD_REQ], 0);
	assert_int_equal(lost_events[UPF_LOST_TIMEOUT], 0);
	/* back with the same Recovery Time Stamp */
	u_silent = false;
	pump(2 * HB_MS);
	assert_true(upf_ready(P));
	assert_int_equal(up_events, 2);
	assert_int_equal(ccnt(UPF_N4C_PEER_RESUMED), 1);
	assert_int_equal(lost_events[UPF_LOST_PEER], 0);
	assert_int_equal(u_rx[PFCP_SESS_MOD_REQ], 1);          /* the held change, once */
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 3);          /* nothing it has re-sent */
	assert_int_equal(u_rx[PFCP_SESS_DEL_REQ], 0);
	assert_int_equal(u_rx[PFCP_ASSOC_SETUP_REQ], 1);       /* the association was kept */
	/* and it goes on as before */
	assert_int_equal(upf_session_create(P, 5, &r), 0);
	pump(10);
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 4);
	assert_int_equal(upf_session_remove(P, 0), 0);
	pump(10);
	assert_int_equal(u_rx[PFCP_SESS_DEL_REQ], 1);
}

/* A modification that goes unanswered because the path fails under it: sent again when the
 * peer is back (the same Update FAR / QER), the session not lost. */
static void t_mod_in_outage(void **state)
{
	struct upf_session_rule r = rule(2, 0x3333);

	(void)state;
	open_all(10000);
	three_sessions();
	u_silent = true;
	for (int i = 0; i < 2 * HB_MS && !u_drop[PFCP_HEARTBEAT_REQ]; i++)
		pump(1);
	assert_int_equal(u_drop[PFCP_HEARTBEAT_REQ], 1);   /* its timeout comes first */
	assert_int_equal(upf_session_modify(P, 2, &r), 0);
	pump(4 * LOSS_MS);
	assert_false(upf_ready(P));
	assert_true(u_drop[PFCP_SESS_MOD_REQ] >= 1);
	assert_int_equal(lost_events[UPF_LOST_TIMEOUT], 0);
	u_silent = false;
	pump(2 * HB_MS);
	assert_true(upf_ready(P));
	assert_int_equal(lost_events[UPF_LOST_PEER], 0);
	assert_int_equal(u_rx[PFCP_SESS_MOD_REQ], 1);   /* sent again, answered */
	assert_int_equal(ccnt(UPF_N4C_DEL), 0);
}

static void t_silent_new_stamp(void **state)
{
	(void)state;
	open_all(10000);
	three_sessions();
	outage();
	u_recovery++;   /* it restarted meanwhile: our sessions are gone there */
	u_silent = false;
	pump(2 * HB_MS);
	assert_int_equal(lost_events[UPF_LOST_PEER], 3);       /* TS 23.527 4.3.2: released */
	assert_int_equal(down_events, 1);                      /* one outage */
	assert_int_equal(u_rx[PFCP_SESS_DEL_REQ], 0);          /* nothing to delete there */
	assert_int_equal(u_rx[PFCP_ASSOC_SETUP_REQ], 2);
	assert_true(upf_ready(P));
	assert_int_equal(ccnt(UPF_N4C_PEER_RESUMED), 0);
}

static void t_path_release(void **state)
{
	(void)state;
	open_all(8 * LOSS_MS);
	three_sessions();
	outage();
	assert_int_equal(lost_events[UPF_LOST_PEER], 0);
	pump(6 * LOSS_MS);
	assert_int_equal(lost_events[UPF_LOST_PEER], 3);       /* the timer: released */
	assert_false(upf_ready(P));
	pump(LOSS_MS);
	assert_int_equal(lost_events[UPF_LOST_PEER], 3);       /* once */
	assert_int_equal(u_rx[PFCP_SESS_DEL_REQ], 0);
	u_silent = false;
	pump(2 * HB_MS);
	assert_true(upf_ready(P));
	assert_int_equal(u_rx[PFCP_SESS_DEL_REQ], 3);          /* what it kept, deleted */
	assert_int_equal(ccnt(UPF_N4C_DEL_OK), 3);
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 3);
}

/* Until the next heartbeat answer shows the new stamp: the sessions lost, our setup sent */
static void restarted(void)
{
	for (int i = 0; i < 4 * HB_MS && !u_drop[PFCP_ASSOC_SETUP_REQ]; i++)
		pump(1);
	assert_int_equal(lost_events[UPF_LOST_PEER], 3);
	assert_int_equal(u_drop[PFCP_ASSOC_SETUP_REQ], 1);
}

/* The restart race of issue 32: the new Recovery Time Stamp in a heartbeat answer, our setup
 * in flight, a re-establishment now */
static void t_restart_race(void **state)
{
	struct upf_session_rule r = rule(7, 0x7777);

	(void)state;
	open_all(10000);
	three_sessions();
	u_recovery++;
	u_hold_setup = true;
	restarted();
	assert_true(upf_ready(P));                              /* the setup is running */
	assert_int_equal(upf_session_create(P, 7, &r), 0);      /* before: -ENOTCONN (#26) */
	pump(5);
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 3);           /* held */
	u_hold_setup = false;                                   /* its retransmission is answered */
	pump(2 * T1_MS);
	assert_int_equal(u_rx[PFCP_ASSOC_SETUP_REQ], 2);
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 4);
	assert_int_equal(ccnt(UPF_N4C_EST_OK), 4);
	assert_int_equal(lost_events[UPF_LOST_PEER], 3);
}

static void t_restart_no_setup(void **state)
{
	struct upf_session_rule r = rule(7, 0x7777);

	(void)state;
	open_all(10000);
	three_sessions();
	u_recovery++;
	u_hold_setup = true;
	restarted();
	assert_int_equal(upf_session_create(P, 7, &r), 0);
	pump((N1 + 2) * T1_MS);
	assert_int_equal(lost_events[UPF_LOST_PEER], 4);        /* the held one, once */
	assert_false(upf_ready(P));
	assert_int_equal(upf_session_create(P, 8, &r), -ENOTCONN);
	pump(4 * LOSS_MS);
	assert_int_equal(lost_events[UPF_LOST_PEER], 4);
	assert_int_equal(u_rx[PFCP_SESS_EST_REQ], 3);
}

static int group_setup(void **state)
{
	(void)state;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

/* tshark reads every message of the exchange: no malformed frame, no error; the heartbeats
 * with both Recovery Time Stamps of the peer */
static int group_teardown(void **state)
{
	(void)state;
	if (pcapw_close(W))
		return -1;
	if (tshark_expert(tshark_path, pcap_path, NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y _ws.malformed", NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 2 && pfcp.recovery_time_stamp'", NULL) < 1)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'pfcp.msg_type == 54'", NULL) < 3)
		return -1;
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
	int rc;

	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4c_path.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_silent_same_stamp, setup, teardown),
		cmocka_unit_test_setup_teardown(t_mod_in_outage, setup, teardown),
		cmocka_unit_test_setup_teardown(t_silent_new_stamp, setup, teardown),
		cmocka_unit_test_setup_teardown(t_path_release, setup, teardown),
		cmocka_unit_test_setup_teardown(t_restart_race, setup, teardown),
		cmocka_unit_test_setup_teardown(t_restart_no_setup, setup, teardown),
	};

	rc = cmocka_run_group_tests(tests, group_setup, group_teardown_checked);
	return rc ? rc : teardown_failed;
}
