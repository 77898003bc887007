/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * SMF side of the Xn handover (TS 23.502 4.9.1.2.2, TS 38.413 8.4.4; smf/smf_mob.c):
 * smf_path_switch moves the session's downlink tunnel with one UPF rule update and answers
 * a Path Switch Request Acknowledge Transfer with the unchanged UL tunnel; every refusal
 * keeps the old tunnel and answers a Path Switch Request Unsuccessful Transfer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "smf_fx.h"

/* A Path Switch Request Transfer towards addr/teid with the QFIs given. */
static size_t ps_transfer(uint8_t *buf, size_t cap, uint32_t addr, uint8_t bits, uint32_t teid,
			  const uint8_t *qfis, uint8_t n)
{
	struct ngap_path_switch_request_transfer t;
	int len;

	memset(&t, 0, sizeof(t));
	memcpy(t.dl_tunnel.addr, &addr, 4);
	if (bits == 128)
		memset(t.dl_tunnel.addr, 0x20, 16);
	t.dl_tunnel.addr_bits = bits;
	t.dl_tunnel.teid[0] = (uint8_t)(teid >> 24);
	t.dl_tunnel.teid[1] = (uint8_t)(teid >> 16);
	t.dl_tunnel.teid[2] = (uint8_t)(teid >> 8);
	t.dl_tunnel.teid[3] = (uint8_t)teid;
	t.n_flows = n;
	memcpy(t.qfis, qfis, n);
	len = ngap_enc_path_switch_request_transfer(&t, buf, cap);
	assert_true(len > 0);
	return (size_t)len;
}

static uint64_t upf_updates(const struct fx *f)
{
	struct smf_stats st;

	smf_get_stats(f->smf, &st);
	return st.upf_skipped;   /* no UPF attached: each rule operation is counted here */
}

static void expect_unsuccessful(const struct fx *f, uint8_t psi, uint8_t group, uint8_t value)
{
	struct ngap_cause_transfer ct;

	assert_int_equal(f->out.n2_proc, SMF_N2_PATH_SWITCH_FAILED);
	assert_int_equal(f->out.psi, psi);
	assert_int_equal(ngap_dec_cause_transfer(f->out.n2, f->out.n2_len, &ct, NULL), 0);
	assert_int_equal(ct.cause.group, group);
	assert_int_equal(ct.cause.value, value);
}

static void test_switch(void **state)
{
	static const uint8_t q1[] = { 1 };
	struct fx *f = fx_new(16, 15);
	struct ngap_path_switch_request_ack_transfer at;
	struct smf_sess_info info, after;
	uint32_t b = fx_ip("192.0.2.77"), n3 = fx_ip(N3_ADDR);
	uint8_t buf[128];
	uint64_t u0;
	size_t n;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	u0 = upf_updates(f);
	n = ps_transfer(buf, sizeof(buf), b, 32, 0xB0000001u, q1, 1);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n, &f->out), 0);
	assert_int_equal(upf_updates(f), u0 + 1);   /* one update of the session's rule */
	assert_int_equal(f->out.n2_proc, SMF_N2_PATH_SWITCH_ACK);
	assert_int_equal(f->out.psi, 1);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(ngap_dec_path_switch_request_ack_transfer(f->out.n2, f->out.n2_len, &at, NULL), 0);
	assert_true(at.has_ul_tunnel);
	assert_int_equal(at.ul_tunnel.addr_bits, 32);
	assert_memory_equal(at.ul_tunnel.addr, &n3, 4);
	assert_int_equal((uint32_t)at.ul_tunnel.teid[0] << 24 | (uint32_t)at.ul_tunnel.teid[1] << 16 |
				 (uint32_t)at.ul_tunnel.teid[2] << 8 | at.ul_tunnel.teid[3],
			 info.ul_teid);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &after), 0);
	assert_int_equal(after.gnb_addr, b);
	assert_int_equal(after.gnb_teid, 0xB0000001u);
	assert_int_equal(after.ul_teid, info.ul_teid);
	assert_int_equal(after.ue_addr, info.ue_addr);
	assert_int_equal(after.state, SMF_ST_ACTIVE);
	assert_true(after.up_active);
	fx_free(f);
}

/* Every refusal: old tunnel kept, no rule update, the unsuccessful transfer with a cause. */
static void test_refused(void **state)
{
	static const uint8_t q1[] = { 1 }, q5[] = { 5 };
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info, after;
	uint32_t b = fx_ip("192.0.2.77");
	uint8_t buf[128];
	uint64_t u0;
	size_t n;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	u0 = upf_updates(f);
	/* no such session */
	n = ps_transfer(buf, sizeof(buf), b, 32, 9, q1, 1);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 4, buf, n, &f->out), -ENOENT);
	expect_unsuccessful(f, 4, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE);
	/* garbage, and the transfer one octet short */
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, 2, &f->out), -EBADMSG);
	expect_unsuccessful(f, 1, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_SEMANTIC_ERROR);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n - 1, &f->out), -EBADMSG);
	/* IPv6 only: our N3 is IPv4 */
	n = ps_transfer(buf, sizeof(buf), b, 128, 9, q1, 1);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n, &f->out), -EINVAL);
	expect_unsuccessful(f, 1, NGAP_CAUSE_TRANSPORT, 1);
	/* the default QoS flow not accepted by the target */
	n = ps_transfer(buf, sizeof(buf), b, 32, 9, q5, 1);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n, &f->out), -EINVAL);
	assert_int_equal(upf_updates(f), u0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &after), 0);
	assert_int_equal(after.gnb_addr, info.gnb_addr);
	assert_int_equal(after.gnb_teid, info.gnb_teid);
	/* out too small: nothing */
	{
		uint8_t small[8];
		struct smf_out o;

		smf_out_init(&o, f->n1, sizeof(f->n1), small, sizeof(small));
		n = ps_transfer(buf, sizeof(buf), b, 32, 9, q1, 1);
		assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n, &o), -ENOSPC);
		assert_int_equal(smf_path_switch_drop(f->smf, f->ue1, 1,
						      &(struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 0 }, &o),
				 -ENOSPC);
	}
	/* user plane deactivated (AN release): cannot switch */
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 1);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n, &f->out), -EPROTO);
	expect_unsuccessful(f, 1, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE);
	fx_free(f);
}

/* A release running (INACTIVE PENDING) or an establishment waiting for the gNB (ACTIVE
 * PENDING): the state table does not take the switch. */
static void test_state_cannot_switch(void **state)
{
	static const uint8_t q1[] = { 1 };
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info;
	struct est_opt o = { .psi = 2, .pti = 3 };
	uint8_t buf[128];
	size_t n = ps_transfer(buf, sizeof(buf), fx_ip("192.0.2.77"), 32, 9, q1, 1);

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(smf_release(f->smf, f->ue1, 1, 36), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_INACTIVE_PENDING);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 1, buf, n, &f->out), -EPROTO);
	expect_unsuccessful(f, 1, NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE);
	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE_PENDING);
	assert_int_equal(smf_path_switch(f->smf, f->ue1, 2, buf, n, &f->out), -EPROTO);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE_PENDING);
	fx_free(f);
}

/* The target cannot take the session (slice): user plane deactivated, unsuccessful transfer. */
static void test_drop(void **state)
{
	struct fx *f = fx_new(16, 15);
	struct smf_sess_info info;
	const struct ngap_cause c = { NGAP_CAUSE_RADIO_NETWORK, 39 };

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(smf_path_switch_drop(f->smf, f->ue1, 1, &c, &f->out), 0);
	expect_unsuccessful(f, 1, NGAP_CAUSE_RADIO_NETWORK, 39);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	assert_false(info.up_active);
	assert_int_equal(smf_path_switch_drop(f->smf, f->ue1, 5, &c, &f->out), -ENOENT);
	fx_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_switch),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_state_cannot_switch),
		cmocka_unit_test(test_drop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
