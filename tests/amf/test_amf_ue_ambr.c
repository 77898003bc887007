/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The subscribed UE-AMBR (TS 23.501 5.7.2.6) through the AMF (sm_fx.h): resolved by the UDM
 * (own value > policy > network default, per direction) and not the session-AMBR; sent in
 * PDU SESSION RESOURCE SETUP REQUEST (TS 38.413 9.2.1.1) and in the INITIAL CONTEXT SETUP
 * REQUEST of a service request with sessions (9.2.2.1, conditional on the session list); a
 * subscription change reaches a connected UE's gNB by UE CONTEXT MODIFICATION REQUEST
 * (8.3.4) once, an idle UE's in its next Initial Context Setup; the gNB's failure answer
 * (8.3.4.3) changes nothing and gets no Error Indication.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "amf/amf.h"
#include "db/db.h"
#include "sm_fx.h"
#include "udm/udm.h"

#define M 1000000ull

static struct db_policy pol;
static struct db_subscriber row;

/* SUPI1 as sm_fx provisions it, but as a db row on policy "ue": policy UE-AMBR 100/200
 * Mbit/s, its own downlink 300 Mbit/s, and a session-AMBR of 7/8 Mbit/s of its own. */
static void provision(void)
{
	memset(&pol, 0, sizeof(pol));
	strcpy(pol.name, "ue");
	pol.ue_ambr_ul = 100 * M;
	pol.ue_ambr_dl = 200 * M;
	memset(&row, 0, sizeof(row));
	strcpy(row.supi, SUPI1);
	memcpy(row.k, h_k1, 16);
	memcpy(row.opc, h_opc1, 16);
	row.op_is_opc = true;
	row.amf = 0x8000;
	row.n_slices = 2;
	row.slices[0] = (struct db_snssai){ 1, 0x010203 };
	row.slices[1] = (struct db_snssai){ 2, DB_SD_NONE };
	row.n_dnns = 2;
	strcpy(row.dnns[0], "internet");
	strcpy(row.dnns[1], "ims");
	row.ambr_ul = 7 * M;
	row.ambr_dl = 8 * M;
	row.ue_ambr_dl = 300 * M;
	strcpy(row.policy, "ue");
	assert_int_equal(udm_add_db_policy(H.udm, &row, &pol), 0);
}

static int walk_all(void)
{
	uint32_t cur = 0;
	int sent = 0, steps = 0;

	while (cur != AMF_WALK_END) {
		sent += amf_ue_ambr_walk(H.amf, &cur, 1);   /* one slot per step: bounded */
		assert_true(++steps < 1000);
	}
	return sent;
}

static void test_ue_ambr(void **state)
{
	struct sue ue;
	struct nas_msg dl;
	static struct ngap_msg g;
	const struct ngap_ue_context_modification_request *cm;

	(void)state;
	provision();
	registered(&ue, "0000000001", 1);
	establish(&ue, 1, "internet", &SN1);
	/* The UE-AMBR, not the session-AMBR: the policy's uplink, its own downlink. */
	assert_true(H.m.u.pdu_session_resource_setup_request.has_ue_ambr);
	assert_int_equal(H.m.u.pdu_session_resource_setup_request.ue_ambr.ul, 100 * M);
	assert_int_equal(H.m.u.pdu_session_resource_setup_request.ue_ambr.dl, 300 * M);

	/* Nothing changed: nothing sent. */
	assert_int_equal(walk_all(), 0);
	assert_int_equal(amf_ue_ambr_update(H.amf, SUPI1), 0);
	assert_int_equal(h_pending(&H), 0);

	/* The policy changes (PUT /api/v1/policies/ue): one UE CONTEXT MODIFICATION REQUEST. */
	pol.ue_ambr_ul = 150 * M;
	assert_true(udm_policy_update(H.udm, &pol) >= 0);
	assert_int_equal(walk_all(), 1);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_MODIFICATION);
	cm = &H.m.u.ue_context_modification_request;
	assert_int_equal(cm->amf_ue_id, ue.amf_id);
	assert_int_equal(cm->ran_ue_id, ue.ran_id);
	assert_true(cm->has_ue_ambr);
	assert_int_equal(cm->ue_ambr.ul, 150 * M);
	assert_int_equal(cm->ue_ambr.dl, 300 * M);
	assert_false(cm->has_security_key);   /* nothing else is asked of the gNB */
	assert_int_equal(h_pending(&H), 0);
	assert_int_equal(walk_all(), 0);      /* told once */

	/* The gNB refuses: logged, no Error Indication, the UE stays as it was. */
	memset(&g, 0, sizeof(g));
	g.type = NGAP_UNSUCCESSFUL;
	g.proc = NGAP_PROC_UE_CONTEXT_MODIFICATION;
	g.u.ue_context_modification_failure.amf_ue_id = ue.amf_id;
	g.u.ue_context_modification_failure.ran_ue_id = ue.ran_id;
	g.u.ue_context_modification_failure.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 0 };
	h_send(&H, ue.assoc, 1, &g);
	assert_int_equal(h_pending(&H), 0);
	memset(&g, 0, sizeof(g));
	g.type = NGAP_SUCCESSFUL;
	g.proc = NGAP_PROC_UE_CONTEXT_MODIFICATION;
	g.u.ue_context_modification_response.amf_ue_id = ue.amf_id;
	g.u.ue_context_modification_response.ran_ue_id = ue.ran_id;
	h_send(&H, ue.assoc, 1, &g);
	assert_int_equal(h_pending(&H), 0);

	/* Idle: the gNB has no UE context; a change waits for the next Initial Context Setup. */
	gnb_release_req(&ue);
	row.ue_ambr_dl = 400 * M;
	assert_int_equal(udm_add_db_policy(H.udm, &row, &pol), 0);
	assert_int_equal(amf_ue_ambr_update(H.amf, SUPI1), 0);
	assert_int_equal(h_pending(&H), 0);
	service_req(&ue, 2, true, 1u << 1, true, 1u << 1);
	assert_int_equal(sue_dl(&H, &ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(H.m.u.initial_context_setup_request.n_sessions, 1);
	assert_true(H.m.u.initial_context_setup_request.has_ue_ambr);
	assert_int_equal(H.m.u.initial_context_setup_request.ue_ambr.ul, 150 * M);
	assert_int_equal(H.m.u.initial_context_setup_request.ue_ambr.dl, 400 * M);
	ics_rsp(&ue, 1, (const uint8_t[]){ 1 });
	assert_int_equal(h_pending(&H), 0);

	assert_int_equal(amf_ue_ambr_update(H.amf, SUPI2), -ENOENT);   /* not registered */
	assert_int_equal(amf_ue_ambr_update(H.amf, "imsi-001019999999999"), -ENOENT);
}

/* A UE on the network default: UDM_DEFAULT_UE_AMBR_BPS, then conf's value at once. */
static void test_ue_ambr_default(void **state)
{
	struct sue ue;

	(void)state;
	registered(&ue, "0000000002", 1);
	establish(&ue, 1, "internet", &SN1);
	assert_int_equal(H.m.u.pdu_session_resource_setup_request.ue_ambr.ul, UDM_DEFAULT_UE_AMBR_BPS);
	assert_int_equal(H.m.u.pdu_session_resource_setup_request.ue_ambr.dl, UDM_DEFAULT_UE_AMBR_BPS);
	udm_set_ue_ambr_default(H.udm, 5 * M, 6 * M);
	assert_int_equal(amf_ue_ambr_update(H.amf, SUPI2), 1);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_MODIFICATION);
	assert_int_equal(H.m.u.ue_context_modification_request.ue_ambr.ul, 5 * M);
	assert_int_equal(H.m.u.ue_context_modification_request.ue_ambr.dl, 6 * M);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_ue_ambr, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ue_ambr_default, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
