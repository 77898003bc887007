/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AMF + SMF in process (sm_fx.h), part 2: SMF-initiated modification and release through
 * the AMF, garbage on the session paths, no allocation during a whole cycle; built a second
 * time with -DAMF_SM_TSHARK as amf_sm_tshark (the N2 pcap of a cycle and a paging round
 * decoded by tshark; SKIP without tshark).
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

#include "sm_fx.h"
#include "testlib.h"

#ifndef TSHARK
#define TSHARK "/nonexistent/tshark"
#endif

static void test_network_modify_release(void **state)
{
	struct sue ue;
	struct nas_msg dl, gsm;
	struct amf_ue_info info;
	struct smf_sess_info si;
	struct smf_stats st;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	establish(&ue, 2, "internet", &SN1);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(smf_modify_ambr(S, info.sm, 1, 5000000, 9000000), 0);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_MODIFICATION_COMMAND);
	assert_true(gsm.pdu_mod_cmd.has_ambr);
	assert_int_equal(H.m.u.pdu_session_resource_modify_request.n_sessions, 1);
	assert_int_equal(H.m.u.pdu_session_resource_modify_request.sessions[0].id, 1);
	{
		static struct ngap_msg g;
		static uint8_t tr[32];
		struct ngap_modify_response_transfer mt;
		int n;

		memset(&mt, 0, sizeof(mt));
		n = ngap_enc_modify_response_transfer(&mt, tr, sizeof(tr));
		assert_true(n > 0);
		memset(&g, 0, sizeof(g));
		g.type = NGAP_SUCCESSFUL;
		g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY;
		g.u.pdu_session_resource_modify_response.amf_ue_id = ue.amf_id;
		g.u.pdu_session_resource_modify_response.ran_ue_id = ue.ran_id;
		g.u.pdu_session_resource_modify_response.n_modified = 1;
		g.u.pdu_session_resource_modify_response.modified[0].id = 1;
		g.u.pdu_session_resource_modify_response.modified[0].transfer.p = tr;
		g.u.pdu_session_resource_modify_response.modified[0].transfer.len = (size_t)n;
		h_send(&H, ue.assoc, 1, &g);
	}
	gsm_simple(&ue, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, gsm.pti);
	assert_int_equal(h_pending(&H), 0);
	sess(&ue, 1, &si);
	assert_int_equal(si.state, SMF_ST_ACTIVE);
	assert_int_equal(si.ambr_dl_bps, 9000000);
	smf_get_stats(S, &st);
	assert_int_equal(st.mod_ok, 1);

	/* Network-requested release of PSI 1 (#36 regular deactivation). */
	assert_int_equal(smf_release(S, info.sm, 1, 36), 0);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE);
	inner_gsm(&dl, 1, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(gsm.pdu_rel_cmd.cause, 36);

	/* PSI 2 released while the UE is idle: no message, released locally. */
	gnb_release_req(&ue);
	assert_int_equal(smf_release(S, info.sm, 2, 36), 0);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
	assert_int_equal(info.psi_map & (1u << 2), 0);
}

/* Garbage from the gNB and the UE on the session paths: mutated PDU Session Resource
 * Setup Responses (transfer bytes included) and random 5GSM payloads in protected UL NAS
 * TRANSPORTs (200). Nothing crashes, no address leaks, and a session still works afterwards. */
static void test_session_garbage(void **state)
{
	struct sue ue;
	struct nas_msg dl, m;
	static uint8_t good[512], buf[512], pl[64];
	static struct ngap_msg g;
	static uint8_t tr[128];
	uint32_t rnd = 12345, used, size;
	int n, i, j;

	(void)state;
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	memset(&g, 0, sizeof(g));
	g.type = NGAP_SUCCESSFUL;
	g.proc = NGAP_PROC_PDU_SESSION_RESOURCE_SETUP;
	g.u.pdu_session_resource_setup_response.amf_ue_id = ue.amf_id;
	g.u.pdu_session_resource_setup_response.ran_ue_id = ue.ran_id;
	g.u.pdu_session_resource_setup_response.n_setup = 1;
	g.u.pdu_session_resource_setup_response.setup[0].id = 1;
	g.u.pdu_session_resource_setup_response.setup[0].transfer.p = tr;
	g.u.pdu_session_resource_setup_response.setup[0].transfer.len = setup_rsp_transfer(tr, sizeof(tr), 7);
	n = ngap_encode(&g, good, sizeof(good));
	assert_true(n > 0);
	for (i = 0; i < 3000; i++) {
		memcpy(buf, good, (size_t)n);
		for (j = 0; j < 1 + i % 4; j++) {
			rnd = rnd * 1103515245u + 12345u;
			buf[(rnd >> 8) % (uint32_t)n] ^= (uint8_t)(1u << ((rnd >> 4) & 7));
		}
		amf_n2_rx(H.amf, ASSOC, 1, buf, (size_t)n);
		while (h_pop(&H))
			;
	}
	/* 200: the harness's UE reads the downlink COUNT from its 8-bit SQN (< 256 messages). */
	for (i = 0; i < 200; i++) {
		for (j = 0; j < (int)sizeof(pl); j++) {
			rnd = rnd * 1103515245u + 12345u;
			pl[j] = (uint8_t)(rnd >> 16);
		}
		pl[0] = NAS_EPD_5GSM;
		pl[1] = (uint8_t)(1 + i % 15);
		memset(&m, 0, sizeof(m));
		m.type = NAS_UL_NAS_TRANSPORT;
		m.ul_nas.payload_type = NAS_PAYLOAD_N1_SM;
		m.ul_nas.payload = (struct nas_buf){ pl, (uint16_t)(4 + i % 60) };
		m.ul_nas.has_psi = true;
		m.ul_nas.psi = pl[1];
		if (i & 1) {
			m.ul_nas.has_request_type = true;
			m.ul_nas.request_type = 1;
		}
		sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
		while (h_pending(&H))
			sue_dl(&H, &ue, &dl);   /* whatever comes back carries a valid MAC */
	}
	/* Sessions may have been touched; release all by deregistration: nothing left. */
	sue_dereg(&H, &ue, 0x09);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue);
	assert_int_equal(sessions(), 0);
	assert_int_equal(smf_pool_usage(S, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	/* A fresh registration and session work. */
	registered(&ue, "0000000002", 9);
	establish(&ue, 1, "internet", &SN1);
	pool_used("internet", 1);
}

/* No allocator call from our code (amf, smf, ausf, udm, codecs) during a whole cycle of a
 * second UE, after the first warmed the timer heap and the deferred-call ring. */
static void test_no_alloc_cycle(void **state)
{
	struct sue u2;
	struct nas_msg dl;
	uint8_t one = 1;
	unsigned n;

	(void)state;
	sm_cycle_27();
	{
		void *volatile p;   /* control: the wrapper sees this executable's allocations */

		nomalloc_begin();
		p = malloc(16);
		free(p);
		assert_int_equal(nomalloc_end(), 1);
	}
	sue_init(&u2, "0000000002", ASSOC, 20);
	nomalloc_begin();
	sue_register(&H, &u2, 2, 0);
	establish(&u2, 1, "internet", &SN1);
	gnb_release_req(&u2);
	service_req(&u2, 21, true, 1u << 1, true, 1u << 1);
	sue_dl(&H, &u2, &dl);
	ics_rsp(&u2, 1, &one);
	release_session(&u2, 1);
	sue_dereg(&H, &u2, 0x01);
	sue_dl(&H, &u2, &dl);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &u2);
	n = nomalloc_end();
	assert_int_equal(n, 0);
	assert_int_equal(sessions(), 0);
}

/* The cycle, a #90 not-forwarded answer and a paging round written to a pcap (NEA0, so
 * the NAS is readable) and decoded by tshark: every frame NGAP, none malformed. */
static void test_tshark(void **state)
{
	static const char *const names[] = { "PDUSessionResourceSetupRequest", "PDUSessionResourceReleaseCommand",
					     "Paging", "PDU session establishment accept",
					     "PDU session release command", "Configuration update command" };
	char path[] = "/tmp/solocore-amf-sm-XXXXXX.pcap", grep[128];
	struct sue u2;
	struct nas_msg dl;
	uint8_t one = 1;
	unsigned i;
	int fd;

	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	H.pcap = pcapw_open(path, PCAPW_SCTP_IPV4);
	assert_non_null(H.pcap);
	(void)state;
	sm_cycle_27();
	registered(&u2, "0000000002", 2);
	est_req(&u2, 2, "internet", &SN2);   /* slice not allowed: #90 */
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	establish(&u2, 1, "internet", &SN1);
	gnb_release_req(&u2);
	smf_upf_dl_data(S, session_id_of(&u2, 1));
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
	service_req(&u2, 3, false, 0, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &u2, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	ics_rsp(&u2, 1, &one);
	assert_int_equal(pcapw_close(H.pcap), 0);
	H.pcap = NULL;

	assert_true(tshark_lines(TSHARK, path, "", NULL) >= 27 + 14);
	assert_int_equal(tshark_lines(TSHARK, path, "-Y '!ngap'", NULL), 0);
	assert_int_equal(tshark_lines(TSHARK, path,
				      TSHARK_NULL_DECIPHER " -Y '_ws.malformed || _ws.expert.severity >= \"Error\"'", NULL), 0);
	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(grep, sizeof(grep), "grep -m1 -i '%s'", names[i]);
		assert_int_equal(tshark_lines(TSHARK, path, TSHARK_NULL_DECIPHER " -V", grep), 1);
	}
	unlink(path);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_network_modify_release, setup, teardown),
		cmocka_unit_test_setup_teardown(test_session_garbage, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_alloc_cycle, setup, teardown),
	};
	const struct CMUnitTest tshark_tests[] = {
		cmocka_unit_test_setup_teardown(test_tshark, setup, teardown),
	};

#ifdef AMF_SM_TSHARK
	(void)tests;
	if (tshark_require(TSHARK, "decode the N2 pcap of a session cycle"))
		return 77;
	return cmocka_run_group_tests_name("amf_sm_tshark", tshark_tests, NULL, NULL);
#else
	(void)tshark_tests;
	return cmocka_run_group_tests_name("amf_sm2", tests, NULL, NULL);
#endif
}
