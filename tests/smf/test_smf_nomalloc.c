/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * No allocation on the per-message path: after one warm-up cycle, 200 full
 * session cycles (establish, gNB response, UE context release, downlink data
 * notification, service request, an N2 handover with indirect forwarding and
 * a cancelled one (TS 23.502 4.9.1.3), AMBR modification, UE-requested release)
 * plus the reject and 5GSM status paths make no allocator call from our code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "smf_fx.h"
#include "testlib.h"

/* TS 23.502 4.9.1.3.2-4.9.1.3.4: prepared, admitted (indirect forwarding), notified, forwarding
 * ended; then prepared and cancelled. */
static void handover(struct fx *f, uint8_t psi)
{
	struct ngap_ho_required_transfer rq = { .has_direct_forwarding = false };
	struct ngap_ho_request_ack_transfer ack;
	uint8_t rb[16], ab[128];
	int rn, an;

	memset(&ack, 0, sizeof(ack));
	ack.dl_tunnel.addr_bits = 32;
	memset(ack.dl_tunnel.addr, 0x0a, 4);
	ack.dl_tunnel.teid[3] = 0x42;
	ack.has_dl_forwarding = true;
	ack.dl_forwarding = ack.dl_tunnel;
	ack.dl_forwarding.teid[3] = 0x43;
	ack.n_flows = 1;
	ack.flows[0] = (struct ngap_qos_flow_fwd){ .qfi = 1, .forwarding_accepted = true };
	rn = ngap_enc_ho_required_transfer(&rq, rb, sizeof(rb));
	an = ngap_enc_ho_request_ack_transfer(&ack, ab, sizeof(ab));
	assert_true(rn > 0 && an > 0);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, psi, rb, (size_t)rn, false, &f->out), 0);
	assert_int_equal(smf_ho_admitted(f->smf, f->ue1, psi, ab, (size_t)an, &f->out), 0);
	assert_int_equal(smf_ho_complete(f->smf, f->ue1, psi), 0);
	assert_int_equal(smf_ho_end(f->smf, f->ue1, psi), 0);
	assert_int_equal(smf_ho_prepare(f->smf, f->ue1, psi, rb, (size_t)rn, true, &f->out), 0);
	assert_int_equal(smf_ho_cancel(f->smf, f->ue1, psi), 0);
}

static void cycle(struct fx *f, uint8_t psi)
{
	struct smf_sess_info info;
	struct nas_msg m;

	fx_establish(f, f->ue1, psi, "internet", &info);
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 1);
	smf_upf_dl_data(f->smf, info.session_id);
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, psi, &f->out), 0);
	assert_int_equal(fx_setup_rsp(f, f->ue1, psi, 99), 0);
	handover(f, psi);
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, psi, 1000000, 2000000), 0);
	assert_int_equal(fx_n2(f, f->ue1, psi, SMF_N2_MODIFY_RSP), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, psi, 0, 0), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, psi, 7, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(fx_n2(f, f->ue1, psi, SMF_N2_RELEASE_RSP), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, psi, 7, 0), 0);
	/* error paths */
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = psi, .pti = 1, .dnn = "nosuch" }), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, psi, 7, 0), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
}

static void test_nomalloc(void **state)
{
	struct fx *f = fx_new(16, 0);
	struct smf_stats st;
	unsigned calls;

	(void)state;
	/* the guard is live in this binary: an allocation is seen */
	nomalloc_begin();
	void *volatile p = malloc(16);
	free(p);
	assert_int_equal(nomalloc_end(), 1);
	cycle(f, 1);                       /* warm-up: the ev heap may grow once */
	nomalloc_begin();
	for (int i = 0; i < 200; i++)
		cycle(f, (uint8_t)(1 + i % 15));
	calls = nomalloc_end();
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.est_accepted, 201);
	assert_int_equal(st.rel_ue, 201);
	assert_int_equal(st.mod_ok, 201);
	assert_int_equal(st.sessions, 0);
	assert_int_equal(st.ho_completed, 201);
	assert_int_equal(st.fwd_removed, 201);
	printf("allocator calls over 200 cycles: %u\n", calls);
	assert_int_equal(calls, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nomalloc),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
