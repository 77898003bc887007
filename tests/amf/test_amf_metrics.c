/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * amf/: the counters behind /metrics by kind (amf.h: amf_ngap_msg_count, amf_reg_counts),
 * checked exactly after a known sequence played by tests/amf's harness (gNB and UEs):
 * NG Setup; N initial registrations (5G-AKA, SMC, accept in the Initial Context Setup,
 * Complete, CONFIGURATION UPDATE COMMAND and its Complete); one UE back from CM-IDLE with a
 * periodic then a mobility registration updating; an unknown subscriber rejected with #7;
 * a service request accepted and one with an unknown 5G-S-TMSI rejected. Every NGAP
 * procedure, direction and PDU type is compared with what the flow sends (the others
 * must stay 0), and the per-procedure sums with the totals (struct amf_stats) and with the
 * PDUs the harness itself counted both ways.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <stdio.h>
#include <string.h>

#include "tests/amf/harness.h"

#define ASSOC 7
#define N_UES 3

static struct h H;

struct want {
	uint8_t proc;
	enum amf_ngap_dir dir;
	uint8_t type;
	uint64_t n;
};

static int setup(void **state)
{
	struct amf_cfg cfg;
	char supi[32];

	(void)state;
	h_cfg(&cfg);
	cfg.cuc_after_reg = true;   /* TS 24.501 5.4.4: one CUC (and its COMPLETE) per initial registration */
	h_init(&H, &cfg);
	for (unsigned i = 1; i <= N_UES; i++) {
		snprintf(supi, sizeof(supi), "imsi-00101000000000%u", i);
		h_add_sub(&H, supi, 1, 0x010203, 0);
	}
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	h_fini(&H);
	return 0;
}

/* Every (procedure, direction, type) equals its entry in w, or 0 when absent. */
static void check_ngap(const struct want *w, size_t n)
{
	uint64_t rx = 0, tx = 0;
	struct amf_stats st;

	for (unsigned p = 0; p < AMF_NGAP_PROC_SLOTS; p++)
		for (unsigned d = 0; d < 2; d++)
			for (unsigned t = 0; t < AMF_NGAP_PDU_TYPES; t++) {
				uint64_t want = 0, got = amf_ngap_msg_count(H.amf, p, (enum amf_ngap_dir)d, t);

				for (size_t i = 0; i < n; i++)
					if (w[i].proc == p && (unsigned)w[i].dir == d && w[i].type == t)
						want = w[i].n;
				if (got != want)
					fail_msg("%s %s type %u: %llu, want %llu", amf_ngap_proc_name(p),
						 d ? "tx" : "rx", t, (unsigned long long)got, (unsigned long long)want);
				(d ? &tx : &rx)[0] += got;
			}
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.ngap_rx_bad, 0);
	assert_int_equal(rx, st.ngap_rx);
	assert_int_equal(tx, st.ngap_tx);
	assert_int_equal(rx, H.n_up);
	assert_int_equal(tx, H.n_down);
	/* Out of range: 0, not a read past the table. */
	assert_int_equal(amf_ngap_msg_count(H.amf, AMF_NGAP_PROC_SLOTS, AMF_NGAP_RX, 0), 0);
	assert_int_equal(amf_ngap_msg_count(H.amf, NGAP_PROC_NG_SETUP, AMF_NGAP_RX, AMF_NGAP_PDU_TYPES), 0);
}

static void gnb_releases(struct sue *ue)
{
	static struct ngap_msg m;

	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST;
	m.u.ue_context_release_request.amf_ue_id = ue->amf_id;
	m.u.ue_context_release_request.ran_ue_id = ue->ran_id;
	m.u.ue_context_release_request.cause.group = NGAP_CAUSE_RADIO_NETWORK;
	m.u.ue_context_release_request.cause.value = 20;   /* user-inactivity */
	h_send(&H, ASSOC, 1, &m);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, ue);
}

/* Registration updating (TS 24.501 9.11.3.7 type) from CM-IDLE with the 5G-GUTI: accepted in
 * the Initial Context Setup Request, no AKA, SMC or CUC; the UE completes (new GUTI). */
static void reg_update(struct sue *ue, uint8_t type, uint32_t ran_id)
{
	struct nas_msg m, dl;

	gnb_releases(ue);
	ue->ran_id = ran_id;
	sue_reg_req(ue, &m, true);
	m.reg_req.reg_type = type;
	sue_initial(&H, ue, &m, NAS_SHT_INTEGRITY);
	assert_int_equal(sue_dl(&H, ue, &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_REGISTRATION_ACCEPT);
	ue->guti = dl.reg_acc.guti;
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	sue_ul(&H, ue, &m, NAS_SHT_INTEGRITY_CIPHERED);
	assert_int_equal(h_pending(&H), 0);
}

static void service_request(struct sue *ue, uint32_t tmsi, uint32_t ran_id)
{
	struct nas_msg m;

	ue->ran_id = ran_id;
	memset(&m, 0, sizeof(m));
	m.type = NAS_SERVICE_REQUEST;
	m.svc_req.ngksi = ue->ngksi;
	m.svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
	m.svc_req.s_tmsi.guti.amf_set_id = H.cfg.amf_set_id;
	m.svc_req.s_tmsi.guti.amf_pointer = H.cfg.amf_pointer;
	m.svc_req.s_tmsi.guti.tmsi = tmsi;
	sue_initial(&H, ue, &m, NAS_SHT_INTEGRITY);
}

static void test_counts(void **state)
{
	static const char *const msin[N_UES] = { "0000000001", "0000000002", "0000000003" };
	struct sue ue[N_UES], stranger;
	struct amf_reg_counts c;
	struct nas_msg m, dl;
	uint64_t rej = 0;

	(void)state;
	/* Nothing yet. */
	check_ngap(NULL, 0);
	amf_reg_counts(H.amf, &c);
	for (unsigned t = 0; t < AMF_REG_TYPES; t++)
		assert_int_equal(c.accepted[t], 0);
	assert_int_equal(c.service_accepted + c.service_rejected, 0);

	/* TS 38.413 8.7.1: NG Setup Request in, Response out. */
	h_ng_setup(&H, ASSOC);
	{
		const struct want w[] = {
			{ NGAP_PROC_NG_SETUP, AMF_NGAP_RX, NGAP_INITIATING, 1 },
			{ NGAP_PROC_NG_SETUP, AMF_NGAP_TX, NGAP_SUCCESSFUL, 1 },
		};
		check_ngap(w, sizeof(w) / sizeof(w[0]));
	}

	/* N initial registrations. Per UE, in: InitialUEMessage (REGISTRATION REQUEST), Uplink
	 * NAS Transport x 4 (AUTHENTICATION RESPONSE, SECURITY MODE COMPLETE, REGISTRATION
	 * COMPLETE, CONFIGURATION UPDATE COMPLETE), Initial Context Setup Response; out:
	 * Downlink NAS Transport x 3 (AUTHENTICATION REQUEST, SECURITY MODE COMMAND, CUC),
	 * Initial Context Setup Request (REGISTRATION ACCEPT). */
	for (unsigned i = 0; i < N_UES; i++) {
		sue_init(&ue[i], msin[i], ASSOC, 100 + i);
		sue_register(&H, &ue[i], 2, 0);
		assert_int_equal(h_pending(&H), 0);
	}
	{
		const struct want w[] = {
			{ NGAP_PROC_NG_SETUP, AMF_NGAP_RX, NGAP_INITIATING, 1 },
			{ NGAP_PROC_NG_SETUP, AMF_NGAP_TX, NGAP_SUCCESSFUL, 1 },
			{ NGAP_PROC_INITIAL_UE_MESSAGE, AMF_NGAP_RX, NGAP_INITIATING, N_UES },
			{ NGAP_PROC_UPLINK_NAS_TRANSPORT, AMF_NGAP_RX, NGAP_INITIATING, 4 * N_UES },
			{ NGAP_PROC_INITIAL_CONTEXT_SETUP, AMF_NGAP_RX, NGAP_SUCCESSFUL, N_UES },
			{ NGAP_PROC_DOWNLINK_NAS_TRANSPORT, AMF_NGAP_TX, NGAP_INITIATING, 3 * N_UES },
			{ NGAP_PROC_INITIAL_CONTEXT_SETUP, AMF_NGAP_TX, NGAP_INITIATING, N_UES },
		};
		check_ngap(w, sizeof(w) / sizeof(w[0]));
	}
	amf_reg_counts(H.amf, &c);
	assert_int_equal(c.accepted[1], N_UES);
	assert_string_equal(amf_reg_type_name(1), "initial");

	/* UE 0 from CM-IDLE: periodic (3) then mobility (2) registration updating. Each: UE
	 * Context Release Request in, Command out, Complete in; InitialUEMessage in, Initial
	 * Context Setup Request out (accept, no Response sent here), REGISTRATION COMPLETE in. */
	reg_update(&ue[0], 0x03, 200);
	reg_update(&ue[0], 0x02, 201);

	/* An unknown subscriber: REGISTRATION REJECT #7 (TS 24.501 5.5.1.2.5) in a Downlink NAS
	 * Transport, then the UE Context Release Command, answered. */
	sue_init(&stranger, "0000000777", ASSOC, 300);
	sue_reg_req(&stranger, &m, false);
	sue_initial(&H, &stranger, &m, NAS_SHT_PLAIN);
	sue_expect_reg_reject(&H, &stranger, NAS_5GMM_5GS_SERVICES_NOT_ALLOWED);

	/* UE 1 from CM-IDLE: SERVICE REQUEST accepted in the Initial Context Setup Request
	 * (TS 24.501 5.6.1.4); one naming a 5G-S-TMSI nobody has: SERVICE REJECT #9 (5.6.1.5)
	 * in a Downlink NAS Transport and the connection released. */
	gnb_releases(&ue[1]);
	service_request(&ue[1], ue[1].guti.guti.tmsi, 400);
	assert_int_equal(sue_dl(&H, &ue[1], &dl), NGAP_PROC_INITIAL_CONTEXT_SETUP);
	assert_int_equal(dl.type, NAS_SERVICE_ACCEPT);
	gnb_releases(&ue[2]);
	service_request(&ue[2], ue[2].guti.guti.tmsi ^ 0x5a5a5a5a, 401);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE);
	sue_release_complete(&H, &ue[2]);
	assert_int_equal(h_pending(&H), 0);

	{
		const struct want w[] = {
			{ NGAP_PROC_NG_SETUP, AMF_NGAP_RX, NGAP_INITIATING, 1 },
			{ NGAP_PROC_NG_SETUP, AMF_NGAP_TX, NGAP_SUCCESSFUL, 1 },
			/* N + 2 updates + stranger + 2 service requests */
			{ NGAP_PROC_INITIAL_UE_MESSAGE, AMF_NGAP_RX, NGAP_INITIATING, N_UES + 2 + 1 + 2 },
			/* + a REGISTRATION COMPLETE per update */
			{ NGAP_PROC_UPLINK_NAS_TRANSPORT, AMF_NGAP_RX, NGAP_INITIATING, 4 * N_UES + 2 },
			{ NGAP_PROC_INITIAL_CONTEXT_SETUP, AMF_NGAP_RX, NGAP_SUCCESSFUL, N_UES },
			/* + the REGISTRATION REJECT and the SERVICE REJECT */
			{ NGAP_PROC_DOWNLINK_NAS_TRANSPORT, AMF_NGAP_TX, NGAP_INITIATING, 3 * N_UES + 2 },
			/* + 2 updates + the accepted service request */
			{ NGAP_PROC_INITIAL_CONTEXT_SETUP, AMF_NGAP_TX, NGAP_INITIATING, N_UES + 2 + 1 },
			/* gNB-initiated: before the 2 updates and the 2 service requests */
			{ NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST, AMF_NGAP_RX, NGAP_INITIATING, 4 },
			/* those 4 + the reject's + the service reject's */
			{ NGAP_PROC_UE_CONTEXT_RELEASE, AMF_NGAP_TX, NGAP_INITIATING, 6 },
			{ NGAP_PROC_UE_CONTEXT_RELEASE, AMF_NGAP_RX, NGAP_SUCCESSFUL, 6 },
		};
		check_ngap(w, sizeof(w) / sizeof(w[0]));
	}

	/* Accepts by registration type, rejects by cause, service requests by result. */
	amf_reg_counts(H.amf, &c);
	assert_int_equal(c.accepted[1], N_UES);
	assert_int_equal(c.accepted[2], 1);
	assert_int_equal(c.accepted[3], 1);
	assert_int_equal(c.accepted[4], 0);
	assert_int_equal(c.accepted[0] + c.accepted[5] + c.accepted[6] + c.accepted[7], 0);
	assert_int_equal(c.rejected[NAS_5GMM_5GS_SERVICES_NOT_ALLOWED], 1);
	for (unsigned k = 0; k < 256; k++)
		rej += c.rejected[k];
	assert_int_equal(rej, 1);
	assert_int_equal(c.service_accepted, 1);
	assert_int_equal(c.service_rejected, 1);
	{
		struct amf_stats st;

		amf_get_stats(H.amf, &st);
		assert_int_equal(st.reg_accepted, N_UES + 2);
		assert_int_equal(st.reg_rejected, 1);
	}
	assert_string_equal(amf_reg_type_name(2), "mobility");
	assert_string_equal(amf_reg_type_name(3), "periodic");
	assert_string_equal(amf_reg_type_name(4), "emergency");
	assert_null(amf_reg_type_name(0));
	assert_null(amf_reg_type_name(AMF_REG_TYPES));
}

/* The names are TS 38.413 9.4.7's (checked at a few codes, including the ends). */
static void test_proc_names(void **state)
{
	(void)state;
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_AMF_CONFIGURATION_UPDATE), "AMFConfigurationUpdate");
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_DOWNLINK_NAS_TRANSPORT), "DownlinkNASTransport");
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_NG_SETUP), "NGSetup");
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_INITIAL_UE_MESSAGE), "InitialUEMessage");
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_PDU_SESSION_RESOURCE_SETUP), "PDUSessionResourceSetup");
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST), "UEContextReleaseRequest");
	assert_string_equal(amf_ngap_proc_name(NGAP_PROC_UPLINK_NAS_TRANSPORT), "UplinkNASTransport");
	assert_string_equal(amf_ngap_proc_name(57), "RANCPRelocationIndication");
	assert_string_equal(amf_ngap_proc_name(63), "DownlinkRANEarlyStatusTransfer");
	assert_null(amf_ngap_proc_name(AMF_NGAP_PROC_SLOTS));
	/* Every procedure the NGAP codec knows has its name (ngap_msg_name agrees it exists). */
	for (unsigned p = 0; p < AMF_NGAP_PROC_SLOTS; p++)
		if (strcmp(ngap_msg_name(NGAP_INITIATING, (uint8_t)p), "?"))
			assert_non_null(amf_ngap_proc_name(p));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_counts, setup, teardown),
		cmocka_unit_test(test_proc_names),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
