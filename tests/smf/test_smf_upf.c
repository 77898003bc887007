/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF driving the real UPF (upf/upf.h): the XDP program and its maps are
 * loaded (UPF_XDP_NONE: attached nowhere), so every rule operation the SMF
 * makes is checked by the UPF itself. The UPF's answers prove what is
 * installed: a second create on the session id says -EEXIST, a session using
 * the same TEID or UE address says -EADDRINUSE, a removed session -ENOENT.
 * Needs root and BPF; exits 77 (skip) with the reason otherwise.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "smf_fx.h"
#include "upf/upf.h"

static struct upf *upf;

static void probe(struct smf_sess_info *info, int want_exist)
{
	struct upf_session_rule r = { .ul_teid = info->ul_teid, .ue_addr = fx_ip("10.45.200.1"), .qfi = 1,
				      .dl_state = UPF_DL_BUFFER };
	struct upf_session_rule r2 = { .ul_teid = 60, .ue_addr = info->ue_addr, .qfi = 1,
				       .dl_state = UPF_DL_BUFFER };
	struct upf_session_stats ss;

	if (want_exist) {
		assert_int_equal(upf_session_create(upf, info->session_id, &r), -EEXIST);
		assert_int_equal(upf_session_create(upf, 63, &r), -EADDRINUSE);    /* TEID taken */
		assert_int_equal(upf_session_create(upf, 63, &r2), -EADDRINUSE);   /* address taken */
		assert_int_equal(upf_session_stats(upf, info->session_id, &ss), 0);
	} else {
		assert_int_equal(upf_session_remove(upf, info->session_id), -ENOENT);
	}
}

static void test_smf_upf(void **state)
{
	struct fx *f = fx_new(64, 0);
	struct smf_sess_info info, i2;
	struct smf_stats st;
	struct nas_msg m;

	(void)state;
	smf_set_upf(f->smf, upf);
	fx_establish(f, f->ue1, 1, "internet", &info);
	probe(&info, 1);
	/* AN release and service request: modify calls the UPF accepts */
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 1);
	probe(&info, 1);
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 1, &f->out), 0);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 1, 0x77), 0);
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 1000000, 2000000), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, 0, 0), 0);
	/* the ims pool (10.46.0.0/29) is outside the UPF's UE pool: the UPF refuses
	 * the rule and the UE gets #26; nothing is left behind */
	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 2, .pti = 2, .dnn = "ims" }), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_INSUFFICIENT_RESOURCES);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &i2), -ENOENT);
	/* release: rules removed */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 1, 5, 0), 0);
	assert_int_equal(fx_n2(f, f->ue1, 1, SMF_N2_RELEASE_RSP), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 1, 5, 0), 0);
	probe(&info, 0);
	/* deregistration with two sessions: both removed from the UPF */
	fx_establish(f, f->ue1, 3, "internet", &info);
	fx_establish(f, f->ue1, 4, "internet", &i2);
	probe(&info, 1);
	probe(&i2, 1);
	assert_int_equal(smf_ue_detach(f->smf, f->ue1), 2);
	f->ue1 = NULL;
	probe(&info, 0);
	probe(&i2, 0);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.upf_skipped, 0);
	assert_int_equal(st.upf_errors, 1);               /* the ims attempt */
	assert_int_equal(st.sessions, 0);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_smf_upf),
	};
	int rc;

	if (geteuid() != 0) {
		printf("SKIP: needs root to load the UPF's BPF program\n");
		return 77;
	}
	upf = fx_upf_open("192.0.2.61", &rc);
	if (!upf) {
		printf("SKIP: upf_open failed (%s): no BPF here\n", strerror(-rc));
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	upf_close(upf);
	return rc;
}
