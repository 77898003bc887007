/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Registration areas and the mobility registration update after a handover (issue 17
 * item 3; TS 23.502 4.9.1.2.2 / 4.2.2.2, TS 24.501 5.5.1.3, 5.3.4, 9.11.3.9), in process on
 * the sm_fx AMF + SMF. The configuration goes through common/conf: tac [1, 2, 3] with
 * amf.registration_areas [[1], [2, 3]]. gNB A (TAC 1, area 0), gNB B (TAC 3) and gNB C
 * (TAC 2), both in area 1. A UE registered on A (TAI list {1}) with a session moves to B by
 * PATH SWITCH REQUEST and sends REGISTRATION REQUEST "mobility updating" over B.
 * Built a second time with -DAMF_RA_TSHARK (amf_ra_tshark): tshark decodes the accept's
 * TAI list (nas_5gs.tac; the harness UE uses NEA0, so the NAS is readable).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "sm_fx.h"
#include "testlib.h"

#ifndef TSHARK
#define TSHARK "/nonexistent/tshark"
#endif

#define ASSOC_B 8   /* TAC 3 */
#define ASSOC_C 9   /* TAC 2 */
#define GNB_B "192.0.2.66"
#define RAN_B 500

static void ra_cfg(struct amf_cfg *cfg)
{
	static const char y[] = "tac: [1, 2, 3]\namf: {registration_areas: [[1], [2, 3]]}\n";
	static struct conf c;
	struct amf_cfg from;
	char err[256];

	assert_int_equal(conf_load_string(&c, "ra.yaml", y, sizeof(y) - 1, err, sizeof(err)), 0);
	assert_int_equal(amf_cfg_from_conf(&from, &c), 0);
	memcpy(cfg->tacs, from.tacs, sizeof(cfg->tacs));
	memcpy(cfg->tac_area, from.tac_area, sizeof(cfg->tac_area));
	cfg->n_tacs = from.n_tacs;
	cfg->has_areas = from.has_areas;
}

static int setup_ra(void **state)
{
	sm_fx_cfg_hook = ra_cfg;
	return setup(state);
}

/* PATH SWITCH REQUEST from B (ULI TAC 3) for psi 1; the acknowledge makes the UE B's. */
static void move_to_b(struct sue *ue)
{
	static struct ngap_msg g;
	static uint8_t tr[64];
	struct ngap_path_switch_request *r = &g.u.path_switch_request;
	struct ngap_path_switch_request_transfer t;
	uint32_t a = ip4(GNB_B);
	int n;

	memset(&t, 0, sizeof(t));
	memcpy(t.dl_tunnel.addr, &a, 4);
	t.dl_tunnel.addr_bits = 32;
	t.dl_tunnel.teid[3] = 0xb1;
	t.n_flows = 1;
	t.qfis[0] = 1;
	n = ngap_enc_path_switch_request_transfer(&t, tr, sizeof(tr));
	assert_true(n > 0);
	memset(&g, 0, sizeof(g));
	g.type = NGAP_INITIATING;
	g.proc = NGAP_PROC_PATH_SWITCH_REQUEST;
	r->ran_ue_id = RAN_B;
	r->source_amf_ue_id = ue->amf_id;
	memcpy(r->uli.tai.plmn.v, (const uint8_t[3]){ 0x00, 0xf1, 0x10 }, 3);
	r->uli.tai.tac[2] = 3;
	memcpy(r->uli.nr_cgi.plmn.v, r->uli.tai.plmn.v, 3);
	r->uli.nr_cgi.cell_id = 0x300001;
	r->ue_sec_cap.nr_enc = 0xe000;
	r->ue_sec_cap.nr_int = 0xe000;
	r->n_sessions = 1;
	r->sessions[0].id = 1;
	r->sessions[0].transfer = (struct ngap_bytes){ tr, (size_t)n };
	h_send(&H, ASSOC_B, 1, &g);
	h_expect(&H, NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST);
	assert_int_equal(H.m.u.path_switch_request_ack.n_switched, 1);
	ue->assoc = ASSOC_B;
	ue->ran_id = RAN_B;
	ue->amf_id = H.m.u.path_switch_request_ack.amf_ue_id;
	ue->tac = 3;
	assert_int_equal(h_pending(&H), 0);
}

/* TS 24.501 8.2.6: mobility updating, 5G-GUTI, ngKSI, UE security capability, PDU session
 * status and Uplink data status of psi 1. */
static void mob_req(struct sue *ue, struct nas_msg *m)
{
	sue_reg_req(ue, m, true);
	m->reg_req.reg_type = 0x02;
	m->reg_req.ngksi = ue->ngksi;
	m->reg_req.has_pdu_session_status = true;
	m->reg_req.pdu_session_status = 1u << 1;
	m->reg_req.has_ul_data_status = true;
	m->reg_req.ul_data_status = 1u << 1;
}

static void tai_list_is(const struct nas_tai_list *l, unsigned n, const uint32_t *tacs)
{
	assert_int_equal(l->n, n);
	for (unsigned i = 0; i < n; i++)
		assert_int_equal(l->tai[i].tac, tacs[i]);
}

/* The UE registered on A (area 0: TAI list {1}, sue_register checks it holds one TAI) with
 * psi 1, B and C up, the UE moved to B. */
static void registered_moved(struct sue *ue)
{
	h_ng_setup_tac(&H, ASSOC_B, 3);
	h_ng_setup_tac(&H, ASSOC_C, 2);
	registered(ue, "0000000001", 1);
	establish(ue, 1, "internet", &SN1);
	move_to_b(ue);
}

/* Paging of the idle UE: the TAIs of the PAGING and the gNBs that got one (bit per assoc). */
static unsigned paged(struct sue *ue, struct ngap_paging *out)
{
	unsigned assocs = 0;

	gnb_release_req(ue);
	smf_upf_dl_data(S, session_id_of(ue, 1));
	while (h_pending(&H)) {
		h_expect(&H, NGAP_INITIATING, NGAP_PROC_PAGING);
		assocs |= 1u << H.cur.assoc;
		*out = H.m.u.paging;
	}
	return assocs;
}

/* TS 24.501 5.5.1.3.2 a) / 5.5.1.3.4, TS 23.502 4.9.1.2.2 step 4 -> 4.2.2.2: the UE in TAC 3,
 * outside its TAI list {1}, registers for mobility over B in 5GMM-CONNECTED: the accept
 * (DL NAS over B, no re-authentication: nothing but the accept is sent) carries area 1's
 * list {2, 3}, a new 5G-GUTI (TS 33.501 6.12.3), the PDU session status and reactivation
 * result; the session keeps its user plane on B (no PDU Session Resource Setup: it is up).
 * Paging after that goes to B and C (area 1) with TAIs {2, 3}, never to A. */
static void test_mobility_connected(void **state)
{
	static const uint32_t area1[2] = { 2, 3 };
	struct nas_msg m, dl;
	struct sue ue;
	struct smf_sess_info si;
	struct amf_reg_counts rc0, rc1;
	struct ngap_paging pg;
	uint32_t old_tmsi;

	(void)state;
	registered_moved(&ue);
	old_tmsi = ue.guti.guti.tmsi;
	amf_reg_counts(H.amf, &rc0);
	mob_req(&ue, &m);
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(H.cur.assoc, ASSOC_B);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	assert_true(dl.reg_acc.has_tai_list);
	tai_list_is(&dl.reg_acc.tai_list, 2, area1);
	assert_true(dl.reg_acc.has_guti);
	assert_int_not_equal(dl.reg_acc.guti.guti.tmsi, old_tmsi);
	assert_true(dl.reg_acc.has_pdu_session_status);
	assert_int_equal(dl.reg_acc.pdu_session_status, 1u << 1);
	assert_true(dl.reg_acc.has_reactivation_result);
	assert_int_equal(dl.reg_acc.reactivation_result, 0);
	assert_int_equal(h_pending(&H), 0);
	amf_reg_counts(H.amf, &rc1);
	assert_int_equal(rc1.accepted[2], rc0.accepted[2] + 1);
	ue.guti = dl.reg_acc.guti;
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(h_pending(&H), 0);   /* no CONFIGURATION UPDATE after a mobility one */
	sess(&ue, 1, &si);
	assert_int_equal(si.state, SMF_ST_ACTIVE);
	assert_true(si.up_active);
	assert_int_equal(si.gnb_addr, ip4(GNB_B));
	/* TS 23.502 4.2.3.3 step 4b: paged in the registration area the accept gave. */
	assert_int_equal(paged(&ue, &pg), 1u << ASSOC_B | 1u << ASSOC_C);
	assert_int_equal(pg.n_tais, 2);
	assert_int_equal(pg.tais[0].tac[2], 2);
	assert_int_equal(pg.tais[1].tac[2], 3);
}

/* TS 24.501 4.4.4.3: the same request with a bad MAC is discarded and counted: no accept,
 * the 5G-GUTI and the registration area stay (paging still goes to A only, TAI {1}); the
 * next verified one is accepted (the bad one did not advance the COUNT). */
static void test_mobility_bad_mac(void **state)
{
	struct nas_msg m, dl;
	struct sue ue;
	struct amf_ue_info i0, i1;
	struct amf_stats st0, st1;
	struct ngap_paging pg;

	(void)state;
	registered_moved(&ue);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &i0), 0);
	amf_get_stats(H.amf, &st0);
	mob_req(&ue, &m);
	sue_ul_badmac(&H, &ue, &m);
	assert_int_equal(h_pending(&H), 0);
	amf_get_stats(H.amf, &st1);
	assert_int_equal(st1.nas_mac_fail, st0.nas_mac_fail + 1);
	assert_int_equal(st1.reg_accepted, st0.reg_accepted);
	assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &i1), 0);
	assert_int_equal(i1.tmsi, i0.tmsi);
	assert_int_equal(i1.ul_count, i0.ul_count);
	assert_int_equal(i1.state, AMF_GMM_REGISTERED);
	assert_int_equal(i1.nas_mac_fail, i0.nas_mac_fail + 1);
	/* A verified one now: accepted (then the UE stays connected in area 1). */
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	assert_int_equal(dl.reg_acc.tai_list.n, 2);
	(void)pg;
}

/* The bad MAC changed nothing of the area: without the verified request, paging after the
 * move still goes to A (the area of the last accept, TAI {1}) only. */
static void test_bad_mac_paging_unchanged(void **state)
{
	struct nas_msg m;
	struct sue ue;
	struct ngap_paging pg;

	(void)state;
	registered_moved(&ue);
	mob_req(&ue, &m);
	sue_ul_badmac(&H, &ue, &m);
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(paged(&ue, &pg), 1u << ASSOC);
	assert_int_equal(pg.n_tais, 1);
	assert_int_equal(pg.tais[0].tac[2], 1);
}

/* TS 24.501 5.5.1.3.4 from 5GMM-IDLE: a mobility registration over B (initial message,
 * integrity protected with the current context) with Uplink data status {1}: the user plane
 * of psi 1 comes back in the Initial Context Setup that carries the accept (TS 23.502 4.2.2.2.2
 * step 20/21); before, the ICS had no session and the UE's data had nowhere to go. */
static void test_mobility_idle_uplink_data(void **state)
{
	static const uint32_t area1[2] = { 2, 3 };
	static const uint8_t one[1] = { 1 };
	struct nas_msg m, dl;
	struct sue ue;
	struct smf_sess_info si;

	(void)state;
	h_ng_setup_tac(&H, ASSOC_B, 3);
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	gnb_release_req(&ue);
	ue.assoc = ASSOC_B;
	ue.ran_id = RAN_B;
	ue.tac = 3;
	mob_req(&ue, &m);
	sue_initial(&H, &ue, &m, NAS_SHT_INTEGRITY);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	tai_list_is(&dl.reg_acc.tai_list, 2, area1);
	assert_int_equal(dl.reg_acc.pdu_session_status, 1u << 1);
	assert_true(dl.reg_acc.has_reactivation_result);
	assert_int_equal(dl.reg_acc.reactivation_result, 0);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 1);
	assert_int_equal(H.m.u.initial_context_setup_request.sessions[0].id, 1);
	ics_rsp(&ue, 1, one);
	sess(&ue, 1, &si);
	assert_true(si.up_active);
}

/* The exchange of test_mobility_connected as tshark reads it (TS 24.501 9.11.3.9): nothing
 * malformed, and the REGISTRATION ACCEPT lists TACs 2 and 3 -- not 1, where the UE was. */
static void test_tshark(void **state)
{
	char path[] = "/tmp/solocore-amf-ra-XXXXXX.pcap";
	struct nas_msg m, dl;
	struct sue ue;
	int fd;

	(void)state;
	registered_moved(&ue);
	fd = mkstemps(path, 5);
	assert_true(fd >= 0);
	close(fd);
	H.pcap = pcapw_open(path, PCAPW_SCTP_IPV4);
	assert_non_null(H.pcap);
	mob_req(&ue, &m);
	sue_ul(&H, &ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(pcapw_close(H.pcap), 0);
	H.pcap = NULL;
	assert_int_equal(tshark_lines(TSHARK, path,
				      TSHARK_NULL_DECIPHER " -Y '_ws.malformed || _ws.expert.severity >= \"Error\"'", NULL), 0);
	/* the accept: one frame with the TAC list "2,3" */
	assert_int_equal(tshark_lines(TSHARK, path, TSHARK_NULL_DECIPHER
				      " -Y 'nas_5gs.mm.message_type == 0x42' -T fields -e nas_5gs.tac", "grep -x '2,3'"), 1);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tshark_tests[] = {
		cmocka_unit_test_setup_teardown(test_tshark, setup_ra, teardown),
	};
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_mobility_connected, setup_ra, teardown),
		cmocka_unit_test_setup_teardown(test_mobility_bad_mac, setup_ra, teardown),
		cmocka_unit_test_setup_teardown(test_bad_mac_paging_unchanged, setup_ra, teardown),
		cmocka_unit_test_setup_teardown(test_mobility_idle_uplink_data, setup_ra, teardown),
	};

#ifdef AMF_RA_TSHARK
	(void)tests;
	if (tshark_require(TSHARK, "decode the TAI list of a mobility registration accept"))
		return 77;
	return cmocka_run_group_tests_name("amf_ra_tshark", tshark_tests, NULL, NULL);
#else
	(void)tshark_tests;
	return cmocka_run_group_tests_name("amf_ra", tests, NULL, NULL);
#endif
}
