/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Intra-AMF Xn handover in process (issue 17 items 2-4; TS 23.502 4.9.1.2.2, TS 38.413 8.4.4,
 * TS 33.501 6.9.2): the sm_fx AMF + SMF with gNB A (ASSOC, slice 1/010203) and gNB B on a
 * second association. A UE with two sessions moves A -> B by PATH SWITCH REQUEST: the
 * acknowledge carries NCC 2 and the NH computed here from A.10's formula (HMAC-SHA-256 over
 * FC 0x6F || SYNC-input || 0x0020, OpenSSL directly, not common/crypto), the SMF holds the
 * new DL tunnels, the UE's NAS goes to B, A gets nothing; B -> C continues the chain (NCC 3).
 * Refusals: unknown UE, slice not served by the target (released, the other moves), every
 * session failing (FAILURE, the UE stays), a UE mid-registration without security.
 * Built a second time with -DAMF_MOB_TSHARK (amf_mob_tshark): tshark decodes the exchange.
 */
#include <arpa/inet.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "mob_fx.h"
#include "testlib.h"

#ifndef TSHARK
#define TSHARK "/nonexistent/tshark"
#endif

static void ng_setup_b(bool two)
{
	h_ng_setup_slices(&H, ASSOC_B, 1, two);
}

static size_t ps_transfer(uint8_t *buf, size_t cap, const char *addr, uint8_t bits, uint32_t teid)
{
	struct ngap_path_switch_request_transfer t;
	uint32_t a = ip4(addr);
	int n;

	memset(&t, 0, sizeof(t));
	memcpy(t.dl_tunnel.addr, &a, 4);
	if (bits == 128)
		memset(t.dl_tunnel.addr, 0x20, 16);
	t.dl_tunnel.addr_bits = bits;
	t.dl_tunnel.teid[2] = (uint8_t)(teid >> 8);
	t.dl_tunnel.teid[3] = (uint8_t)teid;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_path_switch_request_transfer(&t, buf, cap);
	assert_true(n > 0);
	return (size_t)n;
}

/* The UE security capabilities the target reports (NGAP form): the harness UE's EA1-3 / IA1-3
 * (capability octets 0xf0) unless a test changes them. */
static uint16_t ps_nr_int = 0xe000;

/* PATH SWITCH REQUEST from assoc for the UE known as src, psis[n] towards addr (bits). */
static void path_switch(uint32_t assoc, uint32_t ran, uint64_t src, const uint8_t *psis, unsigned n,
			const char *addr, uint8_t bits)
{
	static struct ngap_msg g;
	static uint8_t tr[4][64];
	struct ngap_path_switch_request *r = &g.u.path_switch_request;
	unsigned i;

	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_PATH_SWITCH_REQUEST;
	r->ran_ue_id = ran;
	r->source_amf_ue_id = src;
	memcpy(r->uli.tai.plmn.v, (const uint8_t[3]){ 0x00, 0xf1, 0x10 }, 3);
	r->uli.tai.tac[2] = 1;
	memcpy(r->uli.nr_cgi.plmn.v, r->uli.tai.plmn.v, 3);
	r->uli.nr_cgi.cell_id = 0x200001;
	r->ue_sec_cap.nr_enc = 0xe000;   /* EA1-3 of the harness UE (0xf0) in NGAP form */
	r->ue_sec_cap.nr_int = ps_nr_int;
	r->n_sessions = (uint8_t)n;
	for (i = 0; i < n; i++) {
		r->sessions[i].id = psis[i];
		r->sessions[i].transfer.p = tr[i];
		r->sessions[i].transfer.len = ps_transfer(tr[i], sizeof(tr[i]), addr, bits, 0xb00u + psis[i]);
	}
	h_send(&H, assoc, 1, &g);
}

/* The acknowledge just popped: NCC and NH as expected, the switched PSIs. The UE is now the
 * target's (assoc, ran, the AMF UE NGAP ID of the acknowledge). */
static void expect_ack(struct sue *ue, uint32_t assoc, uint32_t ran, uint8_t ncc, const uint8_t nh[32],
		       uint8_t n_sw, uint8_t n_rel)
{
	const struct ngap_path_switch_request_ack *k = &H.m.u.path_switch_request_ack;
	struct ngap_path_switch_request_ack_transfer at;
	unsigned i;

	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(H.cur.assoc, assoc);
	assert_int_equal(k->ran_ue_id, ran);
	assert_int_equal(k->security_context.ncc, ncc);
	assert_memory_equal(k->security_context.nh, nh, 32);
	assert_false(k->has_ue_sec_cap);   /* the target's capabilities are ours */
	assert_int_equal(k->n_switched, n_sw);
	assert_int_equal(k->n_released, n_rel);
	for (i = 0; i < n_sw; i++) {
		assert_int_equal(ngap_dec_path_switch_request_ack_transfer(k->switched[i].transfer.p,
									   k->switched[i].transfer.len, &at, NULL), 0);
		assert_true(at.has_ul_tunnel);
		assert_memory_equal(at.ul_tunnel.addr, &(uint32_t){ ip4(N3_ADDR) }, 4);
	}
	assert_int_not_equal(k->amf_ue_id, ue->amf_id);   /* a fresh ID on the new connection */
	ue->assoc = assoc;
	ue->ran_id = ran;
	ue->amf_id = k->amf_ue_id;
}

static void test_xn_two_sessions(void **state)
{
	static const uint8_t psis[2] = { 1, 2 };
	struct sue ue;
	uint8_t kgnb[32], nh1[32], nh2[32], nh3[32];

	(void)state;
	ng_setup_b(true);
	two_sessions(&ue, kgnb);
	nh_ref(ue.kamf, kgnb, nh1);      /* NCC 1: kept by the AMF, not sent */
	nh_ref(ue.kamf, nh1, nh2);
	nh_ref(ue.kamf, nh2, nh3);

	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 2, GNB_B, 32);
	expect_ack(&ue, ASSOC_B, RAN_B, 2, nh2, 2, 0);
	assert_int_equal(h_pending(&H), 0);   /* nothing to gNB A */
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	dl_tunnel_is(&ue, 2, GNB_B, 0xb02);
	ue_on(&ue, ASSOC_B, RAN_B);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 0);
	nas_reaches(&ue);

	/* On to gNB C (both slices): the chain goes on (TS 33.501 6.9.2.3.3). */
	h_ng_setup_slices(&H, ASSOC_C, 1, true);
	path_switch(ASSOC_C, 77, ue.amf_id, psis, 2, GNB_C, 32);
	expect_ack(&ue, ASSOC_C, 77, 3, nh3, 2, 0);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_C, 0xb01);
	dl_tunnel_is(&ue, 2, GNB_C, 0xb02);
	ue_on(&ue, ASSOC_C, 77);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_B), 0);
	nas_reaches(&ue);

	/* Idle and back (on C): the new Initial Context Setup's K_gNB starts a new chain. */
	{
		static const uint8_t both[2] = { 1, 2 };
		struct nas_msg dl;

		gnb_release_req(&ue);
		service_req(&ue, 78, true, 1u << 1 | 1u << 2, true, 1u << 1 | 1u << 2);
		assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
		memcpy(kgnb, H.m.u.initial_context_setup_request.security_key, 32);
		ics_rsp(&ue, 2, both);
		nh_ref(ue.kamf, kgnb, nh1);
		nh_ref(ue.kamf, nh1, nh2);
		path_switch(ASSOC_B, RAN_B + 1, ue.amf_id, psis, 2, GNB_B, 32);
		expect_ack(&ue, ASSOC_B, RAN_B + 1, 2, nh2, 2, 0);
		assert_int_equal(h_pending(&H), 0);
	}
}

/* The old AMF UE NGAP ID after a switch, and one never given: Error Indication, nothing moves. */
static void test_unknown_ue(void **state)
{
	static const uint8_t psis[1] = { 1 };
	struct sue ue;
	uint8_t kgnb[32];
	uint64_t old;

	(void)state;
	ng_setup_b(true);
	path_switch(ASSOC_B, RAN_B, 123456, psis, 1, GNB_B, 32);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_int_equal(H.cur.assoc, ASSOC_B);
	assert_true(H.m.u.error_indication.has_cause);
	assert_int_equal(H.m.u.error_indication.cause.value, 14);   /* unknown-local-UE-NGAP-ID */
	assert_int_equal(H.m.u.error_indication.ran_ue_id, RAN_B);
	assert_int_equal(h_pending(&H), 0);

	two_sessions(&ue, kgnb);
	old = ue.amf_id;
	path_switch(ASSOC_B, RAN_B, old, psis, 1, GNB_B, 32);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	path_switch(ASSOC_B, RAN_B + 1, old, psis, 1, GNB_B, 32);   /* a replay of the first */
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	assert_int_equal(h_pending(&H), 0);

	/* A CM-IDLE UE has no N2 connection to switch. */
	{
		struct sue u2;
		struct amf_ue_info info;

		registered(&u2, "0000000002", 9);
		gnb_release_req(&u2);
		assert_int_equal(amf_ue_info_by_supi(H.amf, u2.supi, &info), 0);
		assert_int_equal(info.amf_ue_ngap_id, UINT64_MAX);
		path_switch(ASSOC_B, RAN_B + 2, u2.amf_id, psis, 1, GNB_B, 32);
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION);
	}
}

/* TS 23.502 4.9.1.2.2 step 1b: B serves slice 1 only. psi 2 (slice 2) is released (listed
 * with cause slice-not-supported, then the network's PDU SESSION RELEASE COMMAND over B),
 * psi 1 moves. */
static void test_slice_released(void **state)
{
	static const uint8_t psis[2] = { 1, 2 };
	struct ngap_cause_transfer ct;
	struct sue ue;
	struct nas_msg dl, gsm;
	struct smf_sess_info si;
	struct amf_ue_info info;
	uint8_t kgnb[32], nh1[32], nh2[32];

	(void)state;
	ng_setup_b(false);
	two_sessions(&ue, kgnb);
	nh_ref(ue.kamf, kgnb, nh1);
	nh_ref(ue.kamf, nh1, nh2);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 2, GNB_B, 32);
	expect_ack(&ue, ASSOC_B, RAN_B, 2, nh2, 1, 1);
	assert_int_equal(H.m.u.path_switch_request_ack.switched[0].id, 1);
	assert_int_equal(H.m.u.path_switch_request_ack.released[0].id, 2);
	assert_int_equal(ngap_dec_cause_transfer(H.m.u.path_switch_request_ack.released[0].transfer.p,
						 H.m.u.path_switch_request_ack.released[0].transfer.len, &ct, NULL), 0);
	assert_int_equal(ct.cause.group, NGAP_CAUSE_RADIO_NETWORK);
	assert_int_equal(ct.cause.value, 39);   /* slice-not-supported */
	dl_tunnel_is(&ue, 1, GNB_B, 0xb01);
	/* the release: N1 only (B holds nothing for it), to the UE on B */
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	inner_gsm(&dl, 2, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(gsm.pdu_rel_cmd.cause, NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE);
	sess(&ue, 2, &si);
	assert_false(si.up_active);
	gsm_simple(&ue, NAS_PDU_SESSION_RELEASE_COMPLETE, 2, 0);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.psi_map, 1u << 1);
	pool_used("ims", 0);
}

/* Every session refused (IPv6-only target, then slices B does not serve): PATH SWITCH
 * REQUEST FAILURE, the UE and its tunnels stay on A, the chain does not advance. */
static void test_all_fail(void **state)
{
	static const uint8_t psis[2] = { 1, 2 }, two[1] = { 2 };
	const struct ngap_path_switch_request_failure *f = &H.m.u.path_switch_request_failure;
	struct sue ue;
	uint8_t kgnb[32], nh1[32], nh2[32];

	(void)state;
	ng_setup_b(false);
	two_sessions(&ue, kgnb);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 2, GNB_B, 128);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(H.cur.assoc, ASSOC_B);
	assert_int_equal(f->amf_ue_id, ue.amf_id);
	assert_int_equal(f->ran_ue_id, RAN_B);
	assert_int_equal(f->n_released, 2);
	assert_int_equal(h_pending(&H), 0);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	dl_tunnel_is(&ue, 2, GNB_ADDR, 0x202);
	ue_on(&ue, ASSOC, 2);
	nas_reaches(&ue);
	/* only psi 2, on the slice B lacks: failure too, psi 2 untouched */
	path_switch(ASSOC_B, RAN_B, ue.amf_id, two, 1, GNB_B, 32);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(f->n_released, 1);
	assert_int_equal(f->released[0].id, 2);
	dl_tunnel_is(&ue, 2, GNB_ADDR, 0x202);
	/* a valid one now: NCC 2, as if the failures had not been */
	nh_ref(ue.kamf, kgnb, nh1);
	nh_ref(ue.kamf, nh1, nh2);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 1, GNB_B, 32);
	expect_ack(&ue, ASSOC_B, RAN_B, 2, nh2, 1, 0);
}

/* A PSI listed twice (TS 38.413 8.4.4.4) and a UE whose release is running: FAILURE, nothing
 * moves. Capabilities from the target that are not ours (TS 33.501 6.7.3.1): switched, ours
 * in the acknowledge. */
static void test_refusals_and_caps(void **state)
{
	static const uint8_t twice[2] = { 1, 1 }, psis[2] = { 1, 2 };
	const struct ngap_path_switch_request_ack *k = &H.m.u.path_switch_request_ack;
	struct sue ue;
	uint8_t kgnb[32];

	(void)state;
	ng_setup_b(true);
	two_sessions(&ue, kgnb);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, twice, 2, GNB_B, 32);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(H.m.u.path_switch_request_failure.n_released, 2);
	dl_tunnel_is(&ue, 1, GNB_ADDR, 0x201);
	ue_on(&ue, ASSOC, 2);

	ps_nr_int = 0x4000;   /* NIA2 only */
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 2, GNB_B, 32);
	ps_nr_int = 0xe000;
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_true(k->has_ue_sec_cap);
	assert_int_equal(k->ue_sec_cap.nr_int, 0xe000);
	assert_int_equal(k->ue_sec_cap.nr_enc, 0xe000);
	assert_int_equal(k->n_switched, 2);
	ue.assoc = ASSOC_B;
	ue.ran_id = RAN_B;
	ue.amf_id = k->amf_ue_id;

	/* B asks for the release; while it runs, a path switch to A is refused */
	{
		static struct ngap_msg g;

		memset(&g, 0, sizeof(g));
		g.type = NGAP_INITIATING;
		g.proc = NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST;
		g.u.ue_context_release_request.amf_ue_id = ue.amf_id;
		g.u.ue_context_release_request.ran_ue_id = ue.ran_id;
		g.u.ue_context_release_request.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 20 };
		h_send(&H, ue.assoc, 1, &g);
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	}
	path_switch(ASSOC, 88, ue.amf_id, psis, 2, GNB_ADDR, 32);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(H.cur.assoc, ASSOC);
	sue_release_complete(&H, &ue);
	assert_int_equal(h_pending(&H), 0);
}

/* A UE in the middle of its registration (SECURITY MODE COMMAND out, no AS security yet):
 * refused with FAILURE, every session listed. */
static void test_mid_registration(void **state)
{
	static const uint8_t psis[1] = { 1 };
	struct sue ue;
	struct nas_msg smc;
	struct amf_ue_info info;

	(void)state;
	ng_setup_b(true);
	sue_init(&ue, "0000000001", ASSOC, 1);
	sue_to_smc(&H, &ue, &smc);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 1, GNB_B, 32);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(H.m.u.path_switch_request_failure.n_released, 1);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC), 1);
	assert_int_equal(amf_gnb_ue_count(H.amf, ASSOC_B), 0);
	(void)info;
}

/* The switch A -> B, a failure and an unknown UE written to a pcap: tshark finds nothing
 * malformed and reads NCC 2 and the switched / released lists. */
static void test_tshark(void **state)
{
	static const uint8_t psis[2] = { 1, 2 };
	static const char *const names[] = { "PathSwitchRequest ", "PathSwitchRequestAcknowledge",
					     "PathSwitchRequestFailure", "nextHopChainingCount: 2",
					     "PDUSessionResourceSwitchedList", "PDUSessionResourceReleasedListPSFail" };
	char path[] = "/tmp/solocore-amf-mob-XXXXXX.pcap", grep[128];
	struct sue ue;
	uint8_t kgnb[32];
	unsigned i;

	(void)state;
	mob_pcap_start(path);
	ng_setup_b(true);
	two_sessions(&ue, kgnb);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 2, GNB_B, 128);
	h_expect(&H, NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	path_switch(ASSOC_B, RAN_B, ue.amf_id, psis, 2, GNB_B, 32);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	mob_pcap_clean(TSHARK, path);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(grep, sizeof(grep), "grep -m1 '%s'", names[i]);
		assert_int_equal(tshark_lines(TSHARK, path, TSHARK_NULL_DECIPHER " -V", grep), 1);
	}
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_xn_two_sessions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unknown_ue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_slice_released, setup, teardown),
		cmocka_unit_test_setup_teardown(test_all_fail, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mid_registration, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals_and_caps, setup, teardown),
	};
	const struct CMUnitTest tshark_tests[] = {
		cmocka_unit_test_setup_teardown(test_tshark, setup, teardown),
	};

#ifdef AMF_MOB_TSHARK
	(void)tests;
	if (tshark_require(TSHARK, "decode the N2 pcap of a path switch"))
		return 77;
	return cmocka_run_group_tests_name("amf_mob_tshark", tshark_tests, NULL, NULL);
#else
	(void)tshark_tests;
	return cmocka_run_group_tests_name("amf_mob", tests, NULL, NULL);
#endif
}
