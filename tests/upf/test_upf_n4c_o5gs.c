/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 32, "What to build" item 4 (our SMF against real UPFs): the SMF's N4 client
 * (upf/upf.h, a UPF over PFCP) with its real UDP socket against a PFCP peer that behaves like
 * Open5GS's UPF v2.8.0 (tests/upf/o5gs_upf_peer.h) on two real UDP sockets on loopback: 8805
 * for the SMF's requests, an ephemeral port for its own (Heartbeat, Session Report).
 *
 * One PDU session life for 10 UEs, as the SMF drives it, against the peer as v2.8.0 (t_o5gs_v280)
 * and as v2.7.7 (t_o5gs_v277: the Release 15 sizes taken, so what else it needs shows too):
 *   association (the peer advertises FTUP, EMPU, FRRT, MNOP, VTIME), heartbeats both ways
 *   (the peer's from its ephemeral port, answered to that port: TS 29.244 4.2.2);
 *   10 establishments (no gNB tunnel yet: downlink BUFF|NOCP), each accepted toward the UE only
 *   after the answer (TS 23.502 4.3.2.2.1 steps 10-11), with the F-TEID the peer chose for the
 *   CHOOSE (8.2.3, 7.5.3.2), each carrying what Open5GS needs: PDN Type (7.5.2.1), Source
 *   Interface Type N3 on the Access PDR and N6 on the Core PDR, Destination Interface Type N6
 *   on the uplink FAR (8.2.118), Network Instance (8.2.4), Apply Action in 2 octets and
 *   Reporting Triggers in 3 (8.2.26, 8.2.19: a Release 15 size and v2.8.0 drops the request);
 *   modification to the gNB tunnel (FORW + OHC), AN release (BUFF|NOCP, TS 23.502 4.2.6),
 *   a Downlink Data Report from the ephemeral port answered to that port (7.5.8.2), the
 *   reactivation (FORW to the new tunnel), the deletions (answered with Usage Reports),
 *   association release.
 * Every check that fails is printed as "CAUGHT:" and the test fails at the end, so a run
 * against an older client lists all it gets wrong. The exchange, with the real ports, goes into
 * a pcap that tshark decodes at the end (no malformed field; the IEs above present).
 * t_peer_sizes checks the peer's own size rule on raw bytes first.
 * Built with -DO5GS_OLD_CLIENT, it compiles against the client of 0ebdf3d (no on_est_done: the
 * session counts as accepted when upf_session_create returns). argv: tshark, build directory.
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
#include "upf/upf.h"
#include "testlib.h"
#include "pkt.h"
#include "o5gs_upf_peer.h"

#define SMF_ADDR "127.0.33.2"
#define UPF_ADDR "127.0.33.3"
#define N3 "192.0.2.1"
#define GNB "192.0.2.2"
#define NUE 10
#define MAX_SESS 16
#define T1_MS 30
#define N1 2
#define HB_MS 60

static const char *tshark_path;
static char pcap_path[512];
static struct pcapw *W;
static struct ev_loop *L;
static struct upf_n4c *C;
static struct upf *P;
static struct o5p O;

static unsigned caught;
static int nframes;   /* written to the pcap */
static int up_events, dl_events[NUE], lost_events;
static bool accepted[NUE], accepted_early[NUE];
static uint32_t ul_teid[NUE];

#define CHECK(cond, ...) do { if (!(cond)) { caught++; printf("CAUGHT: " __VA_ARGS__); printf("\n"); } } while (0)

static uint32_t ip(const char *s)
{
	struct in_addr a;

	assert_int_equal(inet_pton(AF_INET, s, &a), 1);
	return a.s_addr;
}

static uint32_t ue(unsigned k)
{
	return htonl(ntohl(ip("10.45.0.10")) + k);
}

static void record(uint32_t src, uint16_t sport, uint32_t dst, uint16_t dport, const uint8_t *b, size_t n)
{
	uint8_t pkt[4200];

	assert_true(n <= 4096);
	pkt_ipv4(pkt, src, dst, 17, PKT_UDP + n);
	pkt_udp(pkt + PKT_IP, sport, dport, n);
	memcpy(pkt + PKT_IP + PKT_UDP, b, n);
	assert_int_equal(pcapw_upper(W, "ip", pkt, PKT_IP + PKT_UDP + n), 0);
	nframes++;
}

static void pump(int ms)
{
	uint64_t end = ev_update_now(L) + (uint64_t)ms * 1000000u;

	while (ev_update_now(L) < end) {
		ev_run_once(L, 1);
		o5p_poll(&O);
	}
}

static void on_dl(void *arg, uint32_t id)
{
	(void)arg;
	if (id < NUE)
		dl_events[id]++;
}

static void on_lost(void *arg, uint32_t id, enum upf_lost_reason why)
{
	(void)arg;
	printf("session %u lost (reason %d)\n", id, (int)why);
	lost_events++;
}

static void on_state(void *arg, bool up)
{
	(void)arg;
	up_events += up;
}

#ifndef O5GS_OLD_CLIENT
/* The SMF's accept toward the UE happens here: the peer must hold the session by now */
static void on_est(void *arg, uint32_t id, const struct upf_est_result *r)
{
	struct o5p_sess *s;

	(void)arg;
	if (id >= NUE)
		return;
	s = o5p_find_ue(&O, ue(id));
	accepted[id] = r->status == UPF_EST_OK;
	CHECK(r->status == UPF_EST_OK, "session %u: establishment status %d cause %u", id, (int)r->status, r->cause);
	CHECK(s != NULL, "session %u accepted before the UPF held it", id);
	if (s && r->status == UPF_EST_OK) {
		CHECK(r->ul_teid == s->ul_teid, "session %u: F-TEID 0x%x, the UPF's Created PDR 0x%x", id, r->ul_teid,
		      s->ul_teid);
		CHECK(r->n3_addr == ip(N3), "session %u: F-TEID address not the UPF's N3", id);
	}
	ul_teid[id] = r->ul_teid;
}
#endif

static struct upf_session_rule rule(unsigned k, uint32_t gnb_teid, enum upf_dl_state st)
{
	return (struct upf_session_rule){
		.ul_teid = ul_teid[k], .ue_addr = ue(k), .dnn = "internet",
		.gnb_addr = gnb_teid ? ip(GNB) : 0, .gnb_teid = gnb_teid, .qfi = 9,
		.ambr_ul_bps = 50000000, .ambr_dl_bps = 100000000, .dl_state = st,
	};
}

static void open_all(bool lax)
{
	struct upf_n4c_params cp = {
		.loop = L, .addr = ip(SMF_ADDR), .max_sessions = MAX_SESS, .heartbeat_ms = HB_MS,
		.t1_ms = T1_MS, .n1 = N1, .recovery_ts = 3900000100u,
	};
	struct upf_n4c_peer pp = {
		.name = "open5gs-upf", .addr = ip(UPF_ADDR), .n3_addr = ip(N3), .on_dl_data = on_dl,
		.on_session_lost = on_lost, .on_state = on_state,
#ifndef O5GS_OLD_CLIENT
		.on_est_done = on_est,
#endif
	};

	O.record = record;
	assert_int_equal(o5p_open(&O, ip(UPF_ADDR), ip(N3), 3900000000u), 0);
	O.lax_sizes = lax;
	assert_int_equal(upf_n4c_open(&cp, &C), 0);
	assert_int_equal(upf_n4c_peer_add(C, &pp, &P), 0);
}

/* Every session's downlink FAR on the peer */
static void check_dl(const char *step, uint8_t apply, uint32_t teid_base)
{
	for (unsigned k = 0; k < NUE; k++) {
		struct o5p_sess *s = o5p_find_ue(&O, ue(k));

		if (!s)
			continue;
		CHECK(s->dl_apply == apply, "%s: session %u downlink Apply Action 0x%02x, want 0x%02x", step, k,
		      s->dl_apply, apply);
		if (teid_base)
			CHECK(s->dl_teid == teid_base + k && s->dl_gnb == ip(GNB),
			      "%s: session %u downlink OHC TEID 0x%x, want 0x%x", step, k, s->dl_teid, teid_base + k);
	}
}

static void modify_all(uint32_t teid_base, enum upf_dl_state st)
{
	for (unsigned k = 0; k < NUE; k++) {
		struct upf_session_rule r = rule(k, teid_base ? teid_base + k : 0, st);
		int rc = upf_session_modify(P, k, &r);

		CHECK(rc == 0, "session %u: upf_session_modify %d", k, rc);
	}
	pump(4 * T1_MS);
}

static void life(bool lax)
{
	unsigned mod0;

	open_all(lax);
	/* association: our setup, its features */
	pump(20);
	CHECK(up_events == 1 && upf_ready(P), "association not up");
	CHECK(O.rx[5] == 1, "%u Association Setup Requests", O.rx[5]);
	/* heartbeats both ways: ours to 8805, its from the ephemeral port answered to that port */
	pump(3 * HB_MS);
	CHECK(O.rx[1] >= 2, "%u Heartbeat Requests from the SMF in 3 periods", O.rx[1]);
	assert_int_equal(o5p_heartbeat(&O), 0);
	pump(20);
	CHECK(O.hb_answered == 1, "the UPF's Heartbeat Request from port %u not answered to that port (%u answers "
	      "to 8805)", O.eport, O.answers_wrong_port);

	/* 10 establishments, as the SMF makes them before the gNB's tunnel is known */
	for (unsigned k = 0; k < NUE; k++) {
		struct upf_session_rule r;
		int rc;

		ul_teid[k] = k + 1;   /* the SMF's own TEID, used only for a UPF without FTUP */
		r = rule(k, 0, UPF_DL_BUFFER);
		rc = upf_session_create(P, k, &r);
		CHECK(rc == 0, "session %u: upf_session_create %d", k, rc);
#ifdef O5GS_OLD_CLIENT
		/* no answer to wait for: the SMF accepts the session toward the UE now */
		accepted[k] = rc == 0;
		accepted_early[k] = rc == 0 && !o5p_find_ue(&O, ue(k));
#else
		accepted_early[k] = accepted[k];
		CHECK(rc != 0 || upf_session_pending(P, k), "session %u not pending its N4 answer", k);
#endif
		CHECK(!accepted_early[k], "session %u accepted toward the UE before the N4 answer (TS 23.502 "
		      "4.3.2.2.1)", k);
	}
	pump(6 * T1_MS);
	CHECK(O.rx[50] == NUE, "%u Session Establishment Requests for %d sessions", O.rx[50], NUE);
	CHECK(o5p_sessions(&O) == NUE, "the UPF holds %u sessions of %d (%u requests dropped unanswered)",
	      o5p_sessions(&O), NUE, O.dropped[50]);
	CHECK(lost_events == 0, "%d sessions lost", lost_events);
	for (unsigned k = 0; k < NUE; k++) {
		struct o5p_sess *s = o5p_find_ue(&O, ue(k));

		CHECK(accepted[k], "session %u never accepted", k);
		if (!s)
			continue;
		CHECK(s->ue_bound, "session %u: UE address not bound (no PDN Type): no downlink", k);
		CHECK(s->ul_fwd, "session %u: uplink buffered (no N3 / N6 interface types)", k);
		CHECK(s->chose, "session %u: F-TEID not chosen by the UPF although it advertises FTUP", k);
		CHECK(s->n_urr == 1, "session %u: %u URRs", k, s->n_urr);
	}
	check_dl("establishment", 0x0c, 0);

	/* the gNB's tunnel (N2 PDU Session Resource Setup Response) */
	mod0 = O.rx[52];
	modify_all(0x5000, UPF_DL_ACTIVE);
	CHECK(O.rx[52] - mod0 == NUE, "%u Session Modification Requests for the gNB tunnels", O.rx[52] - mod0);
	check_dl("gNB tunnel", 0x02, 0x5000);
	/* AN release: buffer and notify */
	modify_all(0, UPF_DL_BUFFER);
	check_dl("AN release", 0x0c, 0);
	/* downlink data for UE 3: the peer's report from its ephemeral port */
	{
		struct o5p_sess *s = o5p_find_ue(&O, ue(3));

		CHECK(s != NULL, "no session 3 on the UPF to report on");
		if (s) {
			assert_int_equal(o5p_report_dldr(&O, s, 2), 0);
			pump(20);
		}
		CHECK(O.rep_answered == 1 && O.rep_cause == 1, "the Session Report Request from port %u: %u answers "
		      "there (cause %u), %u to 8805", O.eport, O.rep_answered, O.rep_cause, O.answers_wrong_port);
		CHECK(dl_events[3] == 1, "no on_dl_data for session 3 (%d)", dl_events[3]);
	}
	/* service request: the user plane reactivated on new tunnels */
	modify_all(0x6000, UPF_DL_ACTIVE);
	check_dl("reactivation", 0x02, 0x6000);

	/* deletions, answered with the Usage Report of the URR */
	for (unsigned k = 0; k < NUE; k++)
		CHECK(upf_session_remove(P, k) == 0, "session %u: upf_session_remove", k);
	pump(4 * T1_MS);
	CHECK(O.rx[54] == NUE, "%u Session Deletion Requests", O.rx[54]);
	CHECK(o5p_sessions(&O) == 0, "the UPF still holds %u sessions", o5p_sessions(&O));
	CHECK(lost_events == 0, "%d sessions lost", lost_events);

	/* association release (upf_n4c_close: best effort, no wait) */
	upf_n4c_close(C);
	C = NULL;
	o5p_poll(&O);
	CHECK(O.rx[9] == 1, "%u Association Release Requests", O.rx[9]);

	for (unsigned f = 0; f < O5P__MAX; f++)
		CHECK(O.findings[f] == 0, "%u x %s", O.findings[f], o5p_finding_name(f));
	printf("o5gs peer (%s): %u checks failed\n", lax ? "v2.7.7 sizes" : "v2.8.0", caught);
	assert_int_equal(caught, 0);
}

/* v2.8.0: a request with a Release 15 IE size is dropped */
static void t_o5gs_v280(void **state)
{
	(void)state;
	life(false);
}

/* v2.7.7 took those sizes: what it then needs (PDN Type, interface types, CHOOSE) shows even
 * behind a size bug */
static void t_o5gs_v277(void **state)
{
	(void)state;
	life(true);
}

/* The peer's own size rule, on raw bytes (the client of main never sends a Release 15 size):
 * a Session Establishment Request whose Create FAR's Apply Action has 1 octet, or whose Create
 * URR's Reporting Triggers have 2, gets no answer from v2.8.0; v2.7.7 answers it (Cause 1) */
static size_t raw_est(uint8_t *b, uint32_t seq, unsigned aa_len, unsigned rt_len)
{
	static const uint8_t head[] = {
		0x21, 50, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,   /* S, SEID 0, seq, spare */
		0, 60, 0, 5, 0, 127, 0, 33, 2,                        /* Node ID IPv4 */
		0, 57, 0, 13, 0x02, 0, 0, 0, 0, 0, 0, 0, 7, 127, 0, 33, 2,   /* F-SEID V4, SEID 7 */
		0, 113, 0, 1, 1,                                      /* PDN Type IPv4 */
	};
	size_t n = sizeof(head), far;

	memcpy(b, head, n);
	b[12] = (uint8_t)(seq >> 16), b[13] = (uint8_t)(seq >> 8), b[14] = (uint8_t)seq;
	far = n;   /* Create FAR { FAR ID 2, Apply Action FORW } */
	memcpy(b + n, (uint8_t[]){ 0, 3, 0, 0, 0, 108, 0, 4, 0, 0, 0, 2, 0, 44, 0, (uint8_t)aa_len, 0x02, 0 },
	       12 + 4 + aa_len);
	n += 12 + 4 + aa_len;
	b[far + 3] = (uint8_t)(n - far - 4);
	far = n;   /* Create URR { URR ID 1, Measurement Method VOLUM, Reporting Triggers 0 } */
	memcpy(b + n, (uint8_t[]){ 0, 6, 0, 0, 0, 81, 0, 4, 0, 0, 0, 1, 0, 62, 0, 1, 0x02, 0, 37, 0,
				   (uint8_t)rt_len, 0, 0, 0 }, 21 + rt_len);
	n += 21 + rt_len;
	b[far + 3] = (uint8_t)(n - far - 4);
	b[2] = (uint8_t)((n - 4) >> 8), b[3] = (uint8_t)(n - 4);
	return n;
}

static int sent_answered(int fd, const uint8_t *b, size_t n)
{
	struct sockaddr_in to = { .sin_family = AF_INET, .sin_port = htons(8805), .sin_addr.s_addr = ip(UPF_ADDR) };
	uint8_t r[2048];
	ssize_t got;

	unsigned before = O.rx[50];

	assert_int_equal(sendto(fd, b, n, 0, (struct sockaddr *)&to, sizeof(to)), (ssize_t)n);
	for (int i = 0; i < 2000 && O.rx[50] == before; i++) {   /* until the peer has taken it */
		usleep(500);
		o5p_poll(&O);
	}
	assert_int_equal(O.rx[50], before + 1);
	/* its answer, if any, went out before o5p_poll returned: on loopback it is queued now */
	got = recv(fd, r, sizeof(r), MSG_DONTWAIT);
	return got > 16 && r[1] == 51;
}

static void t_peer_sizes(void **state)
{
	struct sockaddr_in me = { .sin_family = AF_INET, .sin_addr.s_addr = ip(SMF_ADDR) };
	uint8_t b[256];
	int fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	(void)state;
	O.record = record;
	assert_int_equal(o5p_open(&O, ip(UPF_ADDR), ip(N3), 3900000000u), 0);
	assert_true(fd >= 0);
	assert_int_equal(bind(fd, (struct sockaddr *)&me, sizeof(me)), 0);
	assert_true(sent_answered(fd, b, raw_est(b, 1, 2, 3)));        /* Release 16 sizes */
	assert_false(sent_answered(fd, b, raw_est(b, 2, 1, 3)));       /* Apply Action 1 octet */
	assert_false(sent_answered(fd, b, raw_est(b, 3, 2, 2)));       /* Reporting Triggers 2 */
	assert_int_equal(O.dropped[50], 2);
	assert_int_equal(O.findings[O5P_BAD_SIZE], 2);
	O.lax_sizes = true;                                              /* v2.7.7 */
	assert_true(sent_answered(fd, b, raw_est(b, 4, 1, 2)));
	assert_int_equal(O.findings[O5P_BAD_SIZE], 3);
	assert_int_equal(o5p_sessions(&O), 2);
	close(fd);
}

static int setup(void **state)
{
	int err;

	(void)state;
	caught = 0;
	up_events = lost_events = 0;
	memset(dl_events, 0, sizeof(dl_events));
	memset(accepted, 0, sizeof(accepted));
	memset(accepted_early, 0, sizeof(accepted_early));
	memset(ul_teid, 0, sizeof(ul_teid));
	L = ev_loop_new(&err);
	return L ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	upf_n4c_close(C);
	C = NULL;
	o5p_close(&O);
	ev_loop_free(L);
	return 0;
}

/* One tshark run over the whole exchange (tshark_fields: nothing malformed, no expert error),
 * each frame's fields counted against what must be there */
static const char *const tf[] = {
	"pfcp.msg_type", "udp.srcport", "udp.dstport", "pfcp.up_function_features.ftup",
	"pfcp.up_function_features.empu", "pfcp.up_function_features.frrt", "pfcp.up_function_features.mnop",
	"pfcp.up_function_features.vtime", "pfcp.pdn_type", "pfcp.tgpp_interface_type", "pfcp.network_instance",
	"pfcp.f_teid_flags.ch", "pfcp.f_teid_flags.ch_id", "pfcp.ie_type", "pfcp.apply_action.buff",
	"pfcp.apply_action.nocp", "pfcp.report_type.dldr", "pfcp.usage_report_trigger.term",
	"pfcp.volume_measurement.dlvol",
};
enum {
	F_TYPE, F_SPORT, F_DPORT, F_FTUP, F_EMPU, F_FRRT, F_MNOP, F_VTIME, F_PDN, F_IFT, F_NI, F_CH, F_CHID,
	F_IE, F_BUFF, F_NOCP, F_DLDR, F_TERM, F_DLVOL, F__N
};
enum {
	C_FEAT, C_HB_OURS, C_HB_ANS, C_PDN, C_IFT, C_NI, C_CHOOSE, C_CREATED, C_BUFF, C_DLDR, C_DLDR_ANS,
	C_UR, C_REL, C__N
};
static const struct { const char *what; int n; } must[C__N] = {
	[C_FEAT] = { "Association Setup Response with FTUP, EMPU, FRRT, MNOP, VTIME", 2 },
	[C_HB_OURS] = { "our Heartbeat Requests from 8805", 4 },
	[C_HB_ANS] = { "Heartbeat Responses to the peer's ephemeral port", 2 },
	[C_PDN] = { "Establishment Requests with PDN Type IPv4", 2 * NUE },
	[C_IFT] = { "Establishment Requests with Interface Types N3 once, N6 twice", 2 * NUE },
	[C_NI] = { "Establishment Requests with Network Instance on both PDRs", 2 * NUE },
	[C_CHOOSE] = { "Establishment Requests with CH and CHID", 2 * NUE },
	[C_CREATED] = { "Establishment Responses with a Created PDR", 2 * NUE },
	[C_BUFF] = { "Modification Requests with BUFF and NOCP", 2 * NUE },
	[C_DLDR] = { "DLDR Session Report Requests from the ephemeral port", 2 },
	[C_DLDR_ANS] = { "Session Report Responses to the ephemeral port", 2 },
	[C_UR] = { "Deletion Responses with a TERMR Usage Report", 2 * NUE },
	[C_REL] = { "Association Release Requests", 2 },
};
static int cnt[C__N];

static unsigned occ(const char *list, const char *v)
{
	unsigned n = 0;
	size_t l = strlen(v);

	for (const char *p = list; *p; p++)
		if ((p == list || p[-1] == ',') && !strncmp(p, v, l) && (p[l] == ',' || !p[l]))
			n++;
	return n;
}

static int row(void *ctx, int frame, char **f)
{
	int t = atoi(f[F_TYPE]), sp = atoi(f[F_SPORT]), dp = atoi(f[F_DPORT]);

	(void)ctx;
	(void)frame;
	cnt[C_FEAT] += t == 6 && !strcmp(f[F_FTUP], "1") && !strcmp(f[F_EMPU], "1") && !strcmp(f[F_FRRT], "1") &&
		       !strcmp(f[F_MNOP], "1") && !strcmp(f[F_VTIME], "1");
	cnt[C_HB_OURS] += t == 1 && sp == 8805;
	cnt[C_HB_ANS] += t == 2 && dp != 8805;
	cnt[C_PDN] += t == 50 && !strcmp(f[F_PDN], "1");
	cnt[C_IFT] += t == 50 && occ(f[F_IFT], "11") == 1 && occ(f[F_IFT], "17") == 2;
	cnt[C_NI] += t == 50 && occ(f[F_NI], "internet") == 2;
	cnt[C_CHOOSE] += t == 50 && !strcmp(f[F_CH], "1") && !strcmp(f[F_CHID], "1");
	cnt[C_CREATED] += t == 51 && occ(f[F_IE], "8") == 1;
	cnt[C_BUFF] += t == 52 && !strcmp(f[F_BUFF], "1") && !strcmp(f[F_NOCP], "1");
	cnt[C_DLDR] += t == 56 && !strcmp(f[F_DLDR], "1") && sp != 8805;
	cnt[C_DLDR_ANS] += t == 57 && dp != 8805;
	cnt[C_UR] += t == 55 && !strcmp(f[F_TERM], "1") && f[F_DLVOL][0];
	cnt[C_REL] += t == 9;
	return 0;
}

static int tshark_checks(void)
{
	const struct tshark_fields q = { .fields = tf, .nfields = F__N, .nframes = nframes, .row = row };
	int bad = tshark_fields(tshark_path, pcap_path, &q);

	if (bad)
		fprintf(stderr, "CAUGHT: tshark: %d problems in %s\n", bad, pcap_path);
	for (unsigned i = 0; i < C__N; i++)
		if (cnt[i] < must[i].n) {
			fprintf(stderr, "CAUGHT: tshark: %d %s (want %d)\n", cnt[i], must[i].what, must[i].n);
			bad++;
		}
	return bad;
}

int main(int argc, char **argv)
{
	int rc;

	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the N4 exchange");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/upf_n4c_o5gs.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_peer_sizes, setup, teardown),
		cmocka_unit_test_setup_teardown(t_o5gs_v280, setup, teardown),
		cmocka_unit_test_setup_teardown(t_o5gs_v277, setup, teardown),
	};

	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	if (!W)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	if (pcapw_close(W))
		return 1;
	return tshark_checks() ? 1 : rc;
}
