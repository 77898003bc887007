/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 31 point 6, in process (the harness plays the gNBs; amf_sm_fx gives an SMF so that
 * UEs hold PDU sessions a PATH SWITCH REQUEST could move):
 *
 *  - a Global RAN Node ID held by a set-up association is refused to a second one with NG
 *    SETUP FAILURE (TS 38.413 8.7.1.3, Misc "unspecified", Time to Wait); the holder keeps
 *    its UEs when it answers the AMF CONFIGURATION UPDATE that asks whether it is there,
 *    and is taken as lost when it stays silent (a gNB restarted on a new association: its
 *    retry is then accepted);
 *  - n2.allowed_gnbs: by Global gNB ID, by source prefix, by both; a gNB matching none gets
 *    NG SETUP FAILURE, its association is closed (gracefully), nothing else changes;
 *  - AMF UE NGAP IDs (TS 38.413 9.3.3.1) of 1000 registrations are not sequential;
 *  - PATH SWITCH REQUESTs (TS 38.413 8.4.4) from another gNB naming IDs derived from its
 *    own UE's ID (the old "generation << index bits | index" pattern and +-64 around it)
 *    move no UE: each gets ERROR INDICATION "unknown local UE NGAP ID" (10.6);
 *  - UE-associated messages from another association naming a UE (TS 38.413 10.6): the UE
 *    is not changed.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "mob_fx.h"
#include "testlib.h"

#define ASSOC_X 21   /* the second association / the stranger */
#define ID_A (0x100 + ASSOC)   /* what h_ng_setup gives ASSOC */

static const uint8_t plmn00101[3] = { 0x00, 0xf1, 0x10 };

static void set_peer(uint32_t assoc, const char *ip)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(38412) };

	assert_int_equal(inet_pton(AF_INET, ip, &sa.sin_addr), 1);
	assert_int_equal(amf_n2_assoc_peer(H.amf, assoc, (struct sockaddr *)&sa, sizeof(sa)), 0);
}

/* NG SETUP REQUEST on assoc (brought up first, from ip) naming id/bits; TAC 1, SST 1 SD 010203. */
static void ng_setup_id(uint32_t assoc, const char *ip, uint32_t id, uint8_t bits)
{
	static struct ngap_msg m;
	struct ngap_supported_ta *ta = &m.u.ng_setup_request.tas[0];

	struct amf_gnb_info gi;

	if (amf_gnb_info_by_assoc(H.amf, assoc, &gi) < 0)
		amf_n2_assoc_up(H.amf, assoc, 16, 16);
	if (ip)
		set_peer(assoc, ip);
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_NG_SETUP;
	m.u.ng_setup_request.ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(m.u.ng_setup_request.ran_node_id.plmn.v, plmn00101, 3);
	m.u.ng_setup_request.ran_node_id.id = id;
	m.u.ng_setup_request.ran_node_id.id_bits = bits;
	m.u.ng_setup_request.n_tas = 1;
	ta->tac[2] = 1;
	ta->n_plmns = 1;
	memcpy(ta->plmns[0].plmn.v, plmn00101, 3);
	ta->plmns[0].n_slices = 1;
	ta->plmns[0].slices[0] = (struct ngap_snssai){ .sst = 1, .has_sd = true, .sd = { 1, 2, 3 } };
	m.u.ng_setup_request.default_paging_drx = 1;
	h_send(&H, assoc, 0, &m);
}

/* TS 38.413 8.7.1.3 / 9.3.1.2: NG SETUP FAILURE, Misc "unspecified" (5), with Time to Wait. */
static void expect_setup_failure(uint32_t assoc)
{
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP);
	assert_int_equal(H.cur.assoc, assoc);
	assert_int_equal(H.cur.stream, 0);
	assert_int_equal(H.m.u.ng_setup_failure.cause.group, NGAP_CAUSE_MISC);
	assert_int_equal(H.m.u.ng_setup_failure.cause.value, 5);
	assert_true(H.m.u.ng_setup_failure.has_time_to_wait);
}

static void gnb_is(uint32_t assoc, bool ready, uint32_t id, unsigned ues)
{
	struct amf_gnb_info g;

	assert_int_equal(amf_gnb_info_by_assoc(H.amf, assoc, &g), 0);
	assert_int_equal(g.state == AMF_GNB_READY, ready);
	if (ready)
		assert_int_equal(g.gnb_id, id);
	assert_int_equal(g.n_ues, ues);
}

static void ack_cfg_update(uint32_t assoc)
{
	static struct ngap_msg m;

	memset(&m, 0, sizeof(m));
	m.type = NGAP_SUCCESSFUL;
	m.proc = NGAP_PROC_AMF_CONFIGURATION_UPDATE;
	h_send(&H, assoc, 0, &m);
}

static void run_ms(unsigned ms)
{
	uint64_t end = ev_now_ns(H.loop) + (uint64_t)ms * 1000000u;

	while (ev_now_ns(H.loop) < end)
		ev_run_once(H.loop, 5);
}

/* ---- duplicate Global RAN Node ID ---- */

static void set_probe_ms(struct amf_cfg *cfg)
{
	cfg->gnb_probe_ms = 100;
}

static int setup_none(void **state)
{
	sm_fx_cfg_hook = NULL;
	return setup(state);
}

static int setup_probe(void **state)
{
	sm_fx_cfg_hook = set_probe_ms;
	return setup(state);
}

/* A stranger claims gNB A's ID on a second association (another address): refused, and A,
 * which answers the AMF's question, keeps its UE and its sessions. */
static void test_dup_id_refused(void **state)
{
	struct sue ue;
	uint8_t kgnb[32];
	struct amf_stats st;

	(void)state;
	set_peer(ASSOC, "192.0.2.2");
	two_sessions(&ue, kgnb);
	gnb_is(ASSOC, true, ID_A, 1);

	ng_setup_id(ASSOC_X, "198.51.100.9", ID_A, 22);
	/* A is asked first (AMF CONFIGURATION UPDATE restating our PLMN Support List) ... */
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	assert_int_equal(H.cur.assoc, ASSOC);
	assert_int_equal(H.m.u.amf_configuration_update.n_plmns, 1);
	/* ... and the stranger refused */
	expect_setup_failure(ASSOC_X);
	assert_int_equal(h_pending(&H), 0);
	gnb_is(ASSOC_X, false, 0, 0);
	gnb_is(ASSOC, true, ID_A, 1);
	ack_cfg_update(ASSOC);
	run_ms(250);   /* past the probe time: A answered, it stays */
	assert_int_equal(h_pending(&H), 0);
	gnb_is(ASSOC, true, ID_A, 1);
	ue_on(&ue, ASSOC, 2);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	nas_reaches(&ue);
	assert_int_equal(H.n_closed, 0);

	/* the same claim from A's own address is refused just the same (no trust in addresses) */
	ng_setup_id(ASSOC_X + 1, "192.0.2.2", ID_A, 22);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	expect_setup_failure(ASSOC_X + 1);
	ack_cfg_update(ASSOC);
	run_ms(250);
	gnb_is(ASSOC, true, ID_A, 1);
	ue_on(&ue, ASSOC, 2);

	/* two claims while A is being asked: one question (TS 38.413 8.7.3), two refusals */
	ng_setup_id(ASSOC_X + 3, "198.51.100.9", ID_A, 22);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	expect_setup_failure(ASSOC_X + 3);
	ng_setup_id(ASSOC_X + 4, "198.51.100.10", ID_A, 22);
	expect_setup_failure(ASSOC_X + 4);
	assert_int_equal(h_pending(&H), 0);
	ack_cfg_update(ASSOC);
	run_ms(250);
	gnb_is(ASSOC, true, ID_A, 1);

	/* another length is another Global gNB ID (a BIT STRING of 22..32 bits): accepted */
	ng_setup_id(ASSOC_X + 2, "198.51.100.9", ID_A, 24);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ng_setup_id_in_use, 4);
	assert_int_equal(st.gnb_probe_lost, 0);
}

/* gNB A restarted on a new association (its old one not known dead): the first NG Setup is
 * refused, the old association asked and silent: taken as lost (its UE gets the AN release:
 * CM-IDLE, sessions kept), and the retry after the Time to Wait is accepted. */
static void test_dup_id_restart(void **state)
{
	struct sue ue;
	uint8_t kgnb[32];
	struct amf_ue_info info;
	struct amf_stats st;

	(void)state;
	two_sessions(&ue, kgnb);
	ng_setup_id(ASSOC_X, NULL, ID_A, 22);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	expect_setup_failure(ASSOC_X);
	run_ms(250);   /* no answer from A */
	assert_int_equal(H.n_closed, 1);
	assert_int_equal(H.closed_assoc, ASSOC);
	assert_int_equal(amf_gnb_info_by_assoc(H.amf, ASSOC, &(struct amf_gnb_info){ 0 }), -ENOENT);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.state, AMF_GMM_REGISTERED);
	assert_int_equal(info.amf_ue_ngap_id, UINT64_MAX);   /* CM-IDLE */
	assert_int_equal(sessions(), 2);                     /* TS 23.502 4.2.6: kept */
	ng_setup_id(ASSOC_X, NULL, ID_A, 22);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	gnb_is(ASSOC_X, true, ID_A, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.gnb_probe_lost, 1);
}

/* ---- n2.allowed_gnbs ---- */

static void allow_hook(struct amf_cfg *cfg)
{
	static const char *const rules[] = { "00101:0x107/22", "203.0.113.0/24", "00101:0x200/32@198.51.100.7" };

	for (unsigned i = 0; i < 3; i++)
		assert_int_equal(conf_gnb_rule_parse(rules[i], &cfg->allowed_gnbs[i], NULL, 0), 0);
	cfg->n_allowed_gnbs = 3;
}

static int setup_allow(void **state)
{
	sm_fx_cfg_hook = allow_hook;
	return setup(state);   /* gNB A (ASSOC 7: 00101:0x107/22) is listed */
}

static void refused(uint32_t assoc, const char *ip, uint32_t id, uint8_t bits)
{
	unsigned closed = H.n_closed;

	ng_setup_id(assoc, ip, id, bits);
	expect_setup_failure(assoc);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(H.n_closed, closed + 1);
	assert_int_equal(H.closed_assoc, assoc);
	assert_true(H.closed_graceful);   /* SHUTDOWN: the failure is delivered first */
	gnb_is(assoc, false, 0, 0);
	amf_n2_assoc_down(H.amf, assoc);  /* the transport reports the close */
}

static void test_allowed_gnbs(void **state)
{
	struct sue ue;
	struct amf_stats st;

	(void)state;
	registered(&ue, "0000000001", 1);
	/* not listed, from anywhere */
	refused(30, "192.0.2.50", 0x300, 22);
	refused(31, NULL, 0x300, 22);
	/* the listed ID with another length, another PLMN's encoding of it: not the entry */
	refused(32, "192.0.2.50", 0x107, 24);
	/* ID@prefix: that ID from elsewhere, and another ID from that address */
	refused(33, "198.51.100.8", 0x200, 32);
	refused(34, "198.51.100.7", 0x201, 32);
	/* nothing of A changed */
	gnb_is(ASSOC, true, ID_A, 1);
	ue_on(&ue, ASSOC, 1);
	nas_reaches(&ue);

	/* listed: by prefix (any ID), by ID@prefix */
	ng_setup_id(35, "203.0.113.200", 0x999, 22);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	ng_setup_id(36, "198.51.100.7", 0x200, 32);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	/* the peer of an association that is not there, an address longer than a sockaddr */
	{
		struct sockaddr_storage big[2];

		memset(big, 0, sizeof(big));
		big[0].ss_family = AF_INET;
		assert_int_equal(amf_n2_assoc_peer(H.amf, 999, (struct sockaddr *)big, sizeof(struct sockaddr_in)),
				 -ENOENT);
		assert_int_equal(amf_n2_assoc_peer(H.amf, ASSOC, (struct sockaddr *)big, sizeof(big)), -EINVAL);
		assert_int_equal(amf_n2_assoc_peer(H.amf, ASSOC, NULL, 0), -EINVAL);
	}
	/* IPv4-mapped IPv6 source (a dual-stack listener) matches the IPv4 prefix */
	{
		struct sockaddr_in6 s6 = { .sin6_family = AF_INET6 };

		amf_n2_assoc_up(H.amf, 37, 16, 16);
		assert_int_equal(inet_pton(AF_INET6, "::ffff:203.0.113.9", &s6.sin6_addr), 1);
		assert_int_equal(amf_n2_assoc_peer(H.amf, 37, (struct sockaddr *)&s6, sizeof(s6)), 0);
		ng_setup_id(37, NULL, 0x998, 22);
		h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP);
	}
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ng_setup_not_allowed, 5);
	assert_int_equal(st.gnbs, 4);
}

/* ---- AMF UE NGAP IDs ---- */

static void big_pool(struct amf_cfg *cfg)
{
	cfg->max_ues = 2048;
}

static int setup_big(void **state)
{
	sm_fx_cfg_hook = big_pool;
	return setup(state);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* TS 38.413 9.3.3.1: 40 bits. 1000 registrations (UEs that stay: no ID is reused): every ID
 * distinct, in range, no two successive ones within 2^24 of each other (random IDs: about
 * 0.03 such pairs expected), the top bit set in about half of them (binomial: 500 +- 16). */
static void test_ids_not_sequential(void **state)
{
	static uint64_t ids[1000], sorted[1000];
	unsigned close = 0, top = 0, i;

	(void)state;
	for (i = 0; i < 1000; i++) {
		struct sue ue;
		char msin[11], supi[24];

		snprintf(msin, sizeof(msin), "%010u", 100 + i);
		snprintf(supi, sizeof(supi), "imsi-00101%s", msin);
		h_add_sub(&H, supi, 1, 0x010203, 0);
		sue_init(&ue, msin, ASSOC, 1000 + i);
		sue_register(&H, &ue, 2, 0);
		assert_int_equal(h_pending(&H), 0);
		ids[i] = ue.amf_id;
		assert_true(ids[i] <= 0xffffffffffull);
		top += (unsigned)(ids[i] >> 39);
		if (i) {
			uint64_t d = ids[i] > ids[i - 1] ? ids[i] - ids[i - 1] : ids[i - 1] - ids[i];

			close += d < (1u << 24);
		}
	}
	memcpy(sorted, ids, sizeof(ids));
	qsort(sorted, 1000, sizeof(sorted[0]), cmp_u64);
	for (i = 1; i < 1000; i++)
		assert_true(sorted[i] != sorted[i - 1]);
	print_message("AMF UE NGAP IDs: first %010llx %010llx %010llx, %u successive pairs within 2^24, "
		      "%u of 1000 with bit 39 set\n", (unsigned long long)ids[0], (unsigned long long)ids[1],
		      (unsigned long long)ids[2], close, top);
	assert_true(close <= 2);
	assert_in_range(top, 400, 600);
}

/* ---- PATH SWITCH REQUEST guessing ---- */

static size_t ps_transfer(uint8_t *buf, size_t cap, uint32_t teid)
{
	struct ngap_path_switch_request_transfer t;
	uint32_t a = ip4(GNB_C);
	int n;

	memset(&t, 0, sizeof(t));
	memcpy(t.dl_tunnel.addr, &a, 4);
	t.dl_tunnel.addr_bits = 32;
	t.dl_tunnel.teid[2] = (uint8_t)(teid >> 8);
	t.dl_tunnel.teid[3] = (uint8_t)teid;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_path_switch_request_transfer(&t, buf, cap);
	assert_true(n > 0);
	return (size_t)n;
}

/* PATH SWITCH REQUEST from gNB C for "src", PDU sessions 1 and 2 towards C (TS 38.413 9.2.3.8). */
static void path_switch(uint32_t ran, uint64_t src)
{
	static struct ngap_msg g;
	static uint8_t tr[2][64];
	struct ngap_path_switch_request *r = &g.u.path_switch_request;

	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_PATH_SWITCH_REQUEST;
	r->ran_ue_id = ran;
	r->source_amf_ue_id = src;
	memcpy(r->uli.tai.plmn.v, plmn00101, 3);
	r->uli.tai.tac[2] = 1;
	memcpy(r->uli.nr_cgi.plmn.v, plmn00101, 3);
	r->uli.nr_cgi.cell_id = 0x200001;
	r->ue_sec_cap.nr_enc = 0xe000;
	r->ue_sec_cap.nr_int = 0xe000;
	r->n_sessions = 2;
	for (unsigned i = 0; i < 2; i++) {
		r->sessions[i].id = (uint8_t)(i + 1);
		r->sessions[i].transfer.p = tr[i];
		r->sessions[i].transfer.len = ps_transfer(tr[i], sizeof(tr[i]), 0xc00u + i);
	}
	h_send(&H, ASSOC_C, 1, &g);
}

/* The stranger (gNB C) learns the ID of a UE of its own (the AMF UE NGAP ID of the first
 * downlink message of a REGISTRATION REQUEST it relays), then names IDs around it in a PATH
 * SWITCH REQUEST each: the victim's (on gNB A, two sessions) must not move. */
static void test_path_switch_guess(void **state)
{
	struct sue ue, own;
	struct nas_msg m;
	uint8_t kgnb[32];
	uint64_t f, guesses[1024];
	unsigned n = 0, i;
	uint32_t ran = 900;

	(void)state;
	two_sessions(&ue, kgnb);
	h_ng_setup_slices(&H, ASSOC_C, 1, true);
	sue_init(&own, "0000000002", ASSOC_C, 77);
	sue_reg_req(&own, &m, false);
	sue_initial(&H, &own, &m, 0);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	f = H.m.u.downlink_nas_transport.amf_ue_id;
	assert_int_equal(h_pending(&H), 0);
	/* +-64 around the own ID, and the old pattern: (generation - g) << b | index for every
	 * index width b of a pool (1..24 bits), g 0..3, index 0..3 */
	for (i = 1; i <= 64; i++) {
		guesses[n++] = f + i;
		guesses[n++] = f - i;
	}
	for (unsigned b = 1; b <= 24; b++)
		for (uint64_t g = 0; g <= 3; g++)
			for (uint64_t x = 0; x <= 3; x++)
				guesses[n++] = (((f >> b) - g) << b | x) & 0xffffffffffull;
	for (i = 0; i < n; i++) {
		if (guesses[i] == f)
			continue;   /* its own */
		path_switch(ran, guesses[i]);
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
		assert_int_equal(H.cur.assoc, ASSOC_C);
		assert_int_equal(H.m.u.error_indication.cause.group, NGAP_CAUSE_RADIO_NETWORK);
		assert_int_equal(H.m.u.error_indication.cause.value, 14);   /* unknown-local-UE-NGAP-ID */
	}
	assert_int_equal(h_pending(&H), 0);
	ue_on(&ue, ASSOC, 2);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	dl_tunnel_is(&ue, 2, GNB_ADDR, 0x202);
	nas_reaches(&ue);
}

/* ---- a UE's messages from another association (TS 38.413 10.6) ---- */

static void foreign(uint8_t type, uint8_t proc, struct ngap_msg *g)
{
	g->type = type;
	g->proc = proc;
	h_send(&H, ASSOC_C, 1, g);
	while (h_pop(&H)) {
		/* an Error Indication (or an NG Reset of that connection) to C, nothing to A */
		assert_int_equal(H.cur.assoc, ASSOC_C);
	}
}

static void test_foreign_assoc(void **state)
{
	static struct ngap_msg g;
	struct sue ue;
	uint8_t kgnb[32];
	struct amf_stats st0, st1;

	(void)state;
	two_sessions(&ue, kgnb);
	h_ng_setup_slices(&H, ASSOC_C, 1, true);
	amf_get_stats(H.amf, &st0);

	memset(&g, 0, sizeof(g));
	g.u.uplink_nas_transport.amf_ue_id = ue.amf_id;
	g.u.uplink_nas_transport.ran_ue_id = ue.ran_id;
	g.u.uplink_nas_transport.nas.p = (const uint8_t *)"\x7e\x00\x45\x01";   /* DEREGISTRATION REQUEST */
	g.u.uplink_nas_transport.nas.len = 4;
	foreign(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, &g);

	memset(&g, 0, sizeof(g));
	g.u.ue_context_release_request.amf_ue_id = ue.amf_id;
	g.u.ue_context_release_request.ran_ue_id = ue.ran_id;
	foreign(NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST, &g);

	memset(&g, 0, sizeof(g));
	g.u.ue_context_release_complete.amf_ue_id = ue.amf_id;
	g.u.ue_context_release_complete.ran_ue_id = ue.ran_id;
	foreign(NGAP_SUCCESSFUL, NGAP_PROC_UE_CONTEXT_RELEASE, &g);

	memset(&g, 0, sizeof(g));
	g.u.error_indication.has_amf_ue_id = true;
	g.u.error_indication.amf_ue_id = ue.amf_id;
	g.u.error_indication.has_ran_ue_id = true;
	g.u.error_indication.ran_ue_id = ue.ran_id;
	g.u.error_indication.has_cause = true;
	g.u.error_indication.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 14 };
	foreign(NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION, &g);

	memset(&g, 0, sizeof(g));
	g.u.ng_reset.cause = (struct ngap_cause){ NGAP_CAUSE_MISC, 5 };
	g.u.ng_reset.n_ues = 1;
	g.u.ng_reset.ues[0] = (struct ngap_ue_assoc){ .has_amf_ue_id = true, .amf_ue_id = ue.amf_id,
						      .has_ran_ue_id = true, .ran_ue_id = ue.ran_id };
	foreign(NGAP_INITIATING, NGAP_PROC_NG_RESET, &g);

	memset(&g, 0, sizeof(g));
	g.u.handover_cancel.amf_ue_id = ue.amf_id;
	g.u.handover_cancel.ran_ue_id = ue.ran_id;
	g.u.handover_cancel.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 5 };
	foreign(NGAP_INITIATING, NGAP_PROC_HANDOVER_CANCEL, &g);

	memset(&g, 0, sizeof(g));
	g.u.pdu_session_resource_release_response.amf_ue_id = ue.amf_id;
	g.u.pdu_session_resource_release_response.ran_ue_id = ue.ran_id;
	g.u.pdu_session_resource_release_response.n_sessions = 1;
	g.u.pdu_session_resource_release_response.sessions[0].id = 1;
	foreign(NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE, &g);

	/* the UE, its sessions and its N2 connection as they were */
	ue_on(&ue, ASSOC, 2);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	dl_tunnel_is(&ue, 2, GNB_ADDR, 0x202);
	assert_int_equal(sessions(), 2);
	amf_get_stats(H.amf, &st1);
	assert_int_equal(st1.registered, st0.registered);
	assert_int_equal(st1.connected, st0.connected);
	nas_reaches(&ue);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_dup_id_refused, setup_probe, teardown),
		cmocka_unit_test_setup_teardown(test_dup_id_restart, setup_probe, teardown),
		cmocka_unit_test_setup_teardown(test_allowed_gnbs, setup_allow, teardown),
		cmocka_unit_test_setup_teardown(test_ids_not_sequential, setup_big, teardown),
		cmocka_unit_test_setup_teardown(test_path_switch_guess, setup_none, teardown),
		cmocka_unit_test_setup_teardown(test_foreign_assoc, setup_none, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
