/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The UE mobility messages (TS 38.413 9.2.3) and their SM transfers: decoded fields equal what the samples
 * set (Security Context, Target ID, containers pointing into the input, forwarding tunnels), log lines keep
 * the NH out, and bad input is refused with the codec's errors: NCC out of range, every truncation, a wrong
 * open type length, a missing Security Context, a target eNB, too many DRBs, trailing octets. The
 * round trips and no-allocation runs of these messages are in test_ngap / test_ngap_nomalloc.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/ngap/ngap.h"
#include "ngap_samples.h"

static struct ngap_msg m, m2;
static uint8_t out[4096];
static union ngap_sample_xfer_any xs;

/* encode sample (type, proc) into out; returns the length */
static int sample(uint8_t type, uint8_t proc, bool full)
{
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, full, &m);
		if (m.type == type && m.proc == proc) {
			int l = ngap_encode(&m, out, sizeof(out));

			assert_true(l > 0);
			return l;
		}
	}
	fail_msg("no sample %u/%u", type, proc);
	return -1;
}

/* offset of the IE id (crit reject) in a top-level container, found by its 3 head octets */
static size_t ie_at(const uint8_t *p, size_t l, uint16_t id)
{
	for (size_t i = 5; i + 3 < l; i++)
		if (p[i] == id >> 8 && p[i + 1] == (id & 0xff) && p[i + 2] == 0)
			return i;
	fail_msg("IE %u not found", id);
	return 0;
}

static void test_security_context(void **state)
{
	struct ngap_dec_info info;
	char line[1024];
	int l;

	(void)state;
	/* TS 38.413 9.3.1.88 in the Handover Request and the Path Switch Request Acknowledge */
	l = sample(NGAP_INITIATING, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION, true);
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, &info), 0);
	assert_int_equal(m2.u.handover_request.security_context.ncc, 7);
	assert_memory_equal(m2.u.handover_request.security_context.nh, m.u.handover_request.security_context.nh, 32);
	assert_true(m2.u.handover_request.has_new_security_context_ind);
	assert_int_equal(m2.u.handover_request.sessions[0].snssai.sst, 1);
	assert_true(m2.u.handover_request.sessions[0].snssai.has_sd);
	assert_int_equal(ngap_dec_setup_request_transfer(m2.u.handover_request.sessions[0].transfer.p,
							 m2.u.handover_request.sessions[0].transfer.len, &xs.a, NULL), 0);
	/* the log line names the NCC and never the NH (0x40 0x41 ...) */
	assert_true(ngap_msg_str(&m2, line, sizeof(line)) > 0);
	assert_non_null(strstr(line, "SecurityContext=ncc=7 nh=<redacted>"));
	assert_null(strstr(line, "4041"));
	l = sample(NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST, true);
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, &info), 0);
	assert_int_equal(m2.u.path_switch_request_ack.security_context.ncc, 2);
	assert_int_equal(m2.u.path_switch_request_ack.security_context.nh[31], 0x40 + 31);
	/* NCC is INTEGER (0..7): 8 cannot be sent */
	m.u.path_switch_request_ack.security_context.ncc = 8;
	assert_int_equal(ngap_encode(&m, out, sizeof(out)), -EINVAL);
	m.u.path_switch_request_ack.security_context.ncc = 7;
	assert_true(ngap_encode(&m, out, sizeof(out)) > 0);
}

static void test_fields(void **state)
{
	int l;

	(void)state;
	l = sample(NGAP_INITIATING, NGAP_PROC_HANDOVER_PREPARATION, true);
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, NULL), 0);
	{
		const struct ngap_handover_required *x = &m2.u.handover_required;

		assert_int_equal(x->handover_type, NGAP_HO_INTRA_5GS);
		assert_int_equal(x->target.ran_node_id.id, 0x19c);
		assert_int_equal(x->target.tai.tac[2], 2);
		assert_true(x->has_direct_forwarding);
		assert_int_equal(x->n_sessions, 2);
		assert_true(x->source_to_target.p > out && x->source_to_target.p < out + l); /* into the PDU */
		assert_int_equal(x->source_to_target.len, m.u.handover_required.source_to_target.len);
		assert_int_equal(ngap_dec_ho_required_transfer(x->sessions[0].transfer.p, x->sessions[0].transfer.len,
							       (void *)&xs, NULL), 0);
		assert_true(((struct ngap_ho_required_transfer *)&xs)->has_direct_forwarding);
	}
	l = sample(NGAP_INITIATING, NGAP_PROC_PATH_SWITCH_REQUEST, true);
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, NULL), 0);
	assert_int_equal(m2.u.path_switch_request.source_amf_ue_id, 0x123456789aULL);
	assert_int_equal(m2.u.path_switch_request.rrc_resume_cause, 3);
	assert_int_equal(ngap_dec_path_switch_request_transfer(m2.u.path_switch_request.sessions[0].transfer.p,
							       m2.u.path_switch_request.sessions[0].transfer.len,
							       &xs.f, NULL), 0);
	assert_int_equal(xs.f.dl_tunnel.addr[3], 211);
	assert_true(xs.f.dl_tnl_reused && xs.f.has_up_security);
	assert_int_equal(xs.f.up_security_indication.confidentiality, 2);
	assert_int_equal(xs.f.n_flows, 2);
	/* Handover Command Transfer: per-DRB tunnels */
	l = ngap_sample_xfer(NGAP_SX_HO_COMMAND, true, out, sizeof(out));
	assert_int_equal(ngap_dec_ho_command_transfer(out, (size_t)l, &xs.d, NULL), 0);
	assert_int_equal(xs.d.n_drbs, 2);
	assert_int_equal(xs.d.drbs[1].drb_id, 32);
	assert_true(xs.d.drbs[1].has_ul && !xs.d.drbs[0].has_ul);
	assert_int_equal(xs.d.dl_forwarding.teid[3], 0x01);
	/* RAN status container kept as its octets, for the AMF to copy into the Downlink RAN Status Transfer */
	l = sample(NGAP_INITIATING, NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER, true);
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, NULL), 0);
	assert_int_equal(m2.u.uplink_ran_status_transfer.container.len, m.u.uplink_ran_status_transfer.container.len);
	assert_memory_equal(m2.u.uplink_ran_status_transfer.container.p, m.u.uplink_ran_status_transfer.container.p,
			    m.u.uplink_ran_status_transfer.container.len);
}

static void test_truncated(void **state)
{
	struct ngap_dec_info info;

	(void)state;
	/* every prefix of every mobility sample is refused with a reason (never read past it: ASan build) */
	for (int i = 0; i < ngap_sample_count(); i++)
		for (int full = 0; full < 2; full++) {
			int l;

			ngap_sample(i, full, &m);
			if (m.proc != NGAP_PROC_HANDOVER_PREPARATION && m.proc != NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION &&
			    m.proc != NGAP_PROC_HANDOVER_NOTIFICATION && m.proc != NGAP_PROC_PATH_SWITCH_REQUEST &&
			    m.proc != NGAP_PROC_HANDOVER_CANCEL && m.proc != NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER &&
			    m.proc != NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER)
				continue;
			l = ngap_encode(&m, out, sizeof(out));
			for (int k = 0; k < l; k++) {
				int rc = ngap_decode(out, (size_t)k, &m2, &info);

				if (rc != -EBADMSG)
					fail_msg("%s cut at %d: %d", ngap_msg_name(m.type, m.proc), k, rc);
				assert_non_null(info.why);
			}
			assert_int_equal(ngap_encode(&m, out, (size_t)l - 1), -ENOSPC);
		}
	for (int k = NGAP_SX_HO_REQUIRED; k < NGAP_SAMPLE_XFERS; k++) {
		int l = ngap_sample_xfer(k, true, out, sizeof(out));

		for (int c = 0; c < l; c++)
			if (ngap_sample_xfer_decode(k, out, (size_t)c, &xs, &info) >= 0)
				fail_msg("%s cut at %d decodes", ngap_sample_xfer_name(k), c);
		/* one octet more than the transfer */
		out[l] = 0;
		assert_int_equal(ngap_sample_xfer_decode(k, out, (size_t)l + 1, &xs, &info), -EBADMSG);
	}
}

static void test_bad_values(void **state)
{
	struct ngap_dec_info info;
	size_t at;
	int l;

	(void)state;
	/* Security Context's open type one octet short: its NH runs past it */
	l = sample(NGAP_INITIATING, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION, false);
	at = ie_at(out, (size_t)l, 93);
	assert_int_equal(out[at + 3], 33); /* 2 + 3 + 256 bits */
	out[at + 3] = 32;
	assert_true(ngap_decode(out, (size_t)l, &m2, &info) < 0);
	/* the Security Context under an id nobody knows: missing (and the unknown one, both reject) */
	out[at + 3] = 33;
	out[at] = 0x7f;
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, &info), -EPROTO);
	assert_int_equal(info.action, NGAP_ACT_REJECT);
	{
		bool missing = false;

		for (unsigned i = 0; i < info.diag.n_ies; i++)
			missing |= info.diag.ies[i].id == 93 && info.diag.ies[i].type_of_error == NGAP_ERR_MISSING;
		assert_true(missing);
	}
	/* Target ID targeteNB-ID (5GS to EPS): not coded */
	l = sample(NGAP_INITIATING, NGAP_PROC_HANDOVER_PREPARATION, false);
	at = ie_at(out, (size_t)l, 105);
	out[at + 4] |= 0x40;
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, &info), -ENOTSUP);
	/* more DRBs than NGAP_MAX_DRBS: the encoder refuses, a decoder given 9 says -E2BIG */
	{
		struct ngap_ho_command_transfer t = { 0 };
		/* preamble bits 0 0 0 1 0 (dataForwardingResponseDRBList only), then 9 items (8 in 5 bits) */
		uint8_t b[8] = { 0x12, 0x00 };

		t.n_drbs = NGAP_MAX_DRBS + 1;
		for (int i = 0; i < t.n_drbs; i++)
			t.drbs[i % NGAP_MAX_DRBS].drb_id = 1;
		assert_int_equal(ngap_enc_ho_command_transfer(&t, out, sizeof(out)), -EINVAL);
		assert_int_equal(ngap_dec_ho_command_transfer(b, sizeof(b), &xs.d, &info), -E2BIG);
	}
	/* Handover Type: the extension value (5GS to UTRAN) goes and comes back */
	l = sample(NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION, false);
	m.u.handover_command.handover_type = NGAP_HO_5GS_TO_UTRAN;
	l = ngap_encode(&m, out, sizeof(out));
	assert_int_equal(ngap_decode(out, (size_t)l, &m2, NULL), 0);
	assert_int_equal(m2.u.handover_command.handover_type, NGAP_HO_5GS_TO_UTRAN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_security_context),
		cmocka_unit_test(test_fields),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_bad_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
