/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * common/ngap tests: captured PDUs (decode, fields, byte-identical re-encode), round trip of every
 * message and SM transfer with optional IEs present and absent, bad input with offsets and
 * reasons, and the criticality handling of unknown / missing IEs (TS 38.413 10.3).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/aper/aper.h"
#include "common/ngap/ngap.h"
#include "ngap_samples.h"
#include "testlib.h"

static struct ngap_msg m, m2;
static uint8_t in[4096], out[4096], out2[4096];

static int vec(const char *section, uint8_t *buf, size_t cap)
{
	struct tv_file *f = tv_open("ngap_messages.txt");
	int i, n;

	assert_non_null(f);
	i = tv_find(f, section);
	assert_true(i >= 0);
	n = tv_hex(f, i, "hex", buf, cap);
	assert_true(n > 0);
	tv_close(f);
	return n;
}

/* ---- captured vectors ---- */

static void test_vectors_all(void **state)
{
	struct tv_file *f = tv_open("ngap_messages.txt");
	struct ngap_dec_info info;

	(void)state;
	assert_non_null(f);
	assert_true(tv_sections(f) >= 12);
	for (int i = 0; i < tv_sections(f); i++) {
		int n = tv_hex(f, i, "hex", in, sizeof(in)), l;

		assert_true(n > 0);
		if (ngap_decode(in, (size_t)n, &m, &info) != 0)
			fail_msg("%s: %s at bit %zu", tv_section_name(f, i), info.why, info.err_bit);
		assert_int_equal(info.action, NGAP_ACT_NONE);
		l = ngap_encode(&m, out, sizeof(out));
		assert_int_equal(l, n);
		assert_memory_equal(out, in, (size_t)n);
	}
	tv_close(f);
}

static void test_vector_fields(void **state)
{
	int n;

	(void)state;
	/* NG Setup Request (srsRAN): gNB id 1 in 32 bits, PLMN 001/01, name "gnb1", TAC 0x000075, SST 1 */
	n = vec("ngap_ng_setup_request", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	assert_int_equal(m.type, NGAP_INITIATING);
	assert_int_equal(m.proc, NGAP_PROC_NG_SETUP);
	assert_int_equal(m.crit, NGAP_CRIT_REJECT);
	{
		const struct ngap_ng_setup_request *x = &m.u.ng_setup_request;

		assert_int_equal(x->ran_node_id.id, 1);
		assert_int_equal(x->ran_node_id.id_bits, 32);
		assert_memory_equal(x->ran_node_id.plmn.v, "\x00\xf1\x10", 3);
		assert_int_equal(x->ran_node_name.len, 4);
		assert_memory_equal(x->ran_node_name.p, "gnb1", 4);
		assert_int_equal(x->n_tas, 1);
		assert_memory_equal(x->tas[0].tac, "\x00\x00\x75", 3);
		assert_int_equal(x->tas[0].n_plmns, 1);
		assert_int_equal(x->tas[0].plmns[0].n_slices, 1);
		assert_int_equal(x->tas[0].plmns[0].slices[0].sst, 1);
		assert_int_equal(x->default_paging_drx, 3); /* v256 */
	}
	/* UERANSIM NG Setup Request: PLMN 999/70, name UERANSIM-gnb-999-70-1, TAC 1 */
	n = vec("ngap_ng_setup_request_ueransim", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	assert_memory_equal(m.u.ng_setup_request.ran_node_id.plmn.v, "\x99\xf9\x07", 3);
	assert_int_equal(m.u.ng_setup_request.ran_node_name.len, strlen("UERANSIM-gnb-999-70-1"));
	assert_memory_equal(m.u.ng_setup_request.tas[0].tac, "\x00\x00\x01", 3);
	/* NG Setup Response: AMF name, GUAMI region 2 set 1 pointer 0? capacity 255 */
	n = vec("ngap_ng_setup_response", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	assert_int_equal(m.type, NGAP_SUCCESSFUL);
	assert_int_equal(m.u.ng_setup_response.amf_name.len, 56);
	assert_memory_equal(m.u.ng_setup_response.amf_name.p, "amf1.cluster1.net2.amf", 22);
	assert_int_equal(m.u.ng_setup_response.n_guamis, 1);
	assert_int_equal(m.u.ng_setup_response.n_plmns, 1);
	assert_int_equal(m.u.ng_setup_response.relative_capacity, 5);
	/* Initial UE Message: RAN UE id 1, registration request NAS 0x7e 0x00 0x41, TAC 0x000075, mo-Signalling */
	n = vec("ngap_initial_ue_message_registration_request", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	{
		const struct ngap_initial_ue_message *x = &m.u.initial_ue_message;

		assert_int_equal(x->ran_ue_id, 1);
		assert_int_equal(x->nas.len, 124);
		assert_memory_equal(x->nas.p, "\x7e\x00\x41", 3);
		assert_ptr_equal(x->nas.p >= in && x->nas.p < in + n, 1); /* points into the input */
		assert_memory_equal(x->uli.tai.tac, "\x00\x00\x75", 3);
		assert_int_equal(x->uli.nr_cgi.cell_id, 1);
		assert_int_equal(x->rrc_cause, 3);
		assert_false(x->has_ue_context_request); /* not in this capture */
	}
	/* DL NAS Transport: AMF UE id 1, RAN UE id 1, authentication request */
	n = vec("ngap_downlink_nas_transport_authentication_request", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	assert_int_equal(m.crit, NGAP_CRIT_IGNORE);
	assert_int_equal(m.u.downlink_nas_transport.amf_ue_id, 1);
	assert_int_equal(m.u.downlink_nas_transport.ran_ue_id, 1);
	assert_memory_equal(m.u.downlink_nas_transport.nas.p, "\x7e\x00\x56", 3);
	/* Initial Context Setup Request: GUAMI, security key, UE security capabilities */
	n = vec("ngap_initial_context_setup_request", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	{
		const struct ngap_initial_context_setup_request *x = &m.u.initial_context_setup_request;

		assert_int_equal(x->amf_ue_id, 12);
		assert_int_equal(x->ran_ue_id, 0);
		assert_memory_equal(x->guami.plmn.v, "\x00\xf1\x10", 3);
		assert_int_equal(x->guami.region, 2);
		assert_int_equal(x->guami.set_id, 1);
		assert_int_equal(x->n_allowed_nssai, 1);
		assert_memory_equal(x->security_key, "\x50\x63\x6e\x38", 4);
		assert_true(x->has_masked_imeisv);
		assert_int_equal(x->nas.len, 46);
	}
	/* PDU Session Resource Setup Request: session 1, transfer decodes */
	n = vec("ngap_pdu_session_resource_setup_request", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	{
		const struct ngap_pdu_session_resource_setup_request *x = &m.u.pdu_session_resource_setup_request;
		struct ngap_setup_request_transfer t;

		assert_int_equal(x->n_sessions, 1);
		assert_int_equal(x->sessions[0].id, 1);
		assert_int_equal(x->sessions[0].snssai.sst, 0); /* as captured */
		assert_int_equal(ngap_dec_setup_request_transfer(x->sessions[0].transfer.p, x->sessions[0].transfer.len,
								 &t, NULL), 0);
		assert_int_equal(t.ul_tunnel.addr_bits, 32);
		assert_memory_equal(t.ul_tunnel.addr, "\xc0\xa8\x11\xd2", 4); /* 192.168.17.210 */
		assert_memory_equal(t.ul_tunnel.teid, "\x00\x00\x00\x01", 4);
		assert_int_equal(t.n_flows, 1);
		assert_int_equal(t.flows[0].qfi, 1);
		assert_int_equal(t.flows[0].five_qi, 9);
		/* and re-encodes identically */
		assert_int_equal(ngap_enc_setup_request_transfer(&t, out, sizeof(out)), x->sessions[0].transfer.len);
		assert_memory_equal(out, x->sessions[0].transfer.p, x->sessions[0].transfer.len);
	}
	/* UE Context Release Command: the UE-NGAP-ID pair 1/1, cause nas normal-release */
	n = vec("ngap_ue_context_release_command", in, sizeof(in));
	assert_int_equal(ngap_decode(in, (size_t)n, &m, NULL), 0);
	assert_true(m.u.ue_context_release_command.has_ran_ue_id);
	assert_int_equal(m.u.ue_context_release_command.amf_ue_id, 1);
	assert_int_equal(m.u.ue_context_release_command.cause.group, NGAP_CAUSE_NAS);
}

/* ---- round trips ---- */

static void test_round_trip_messages(void **state)
{
	struct ngap_dec_info info;

	(void)state;
	for (int i = 0; i < ngap_sample_count(); i++) {
		int lf = 0;

		for (int full = 1; full >= 0; full--) {
			int l, l2;

			ngap_sample(i, full, &m);
			l = ngap_encode(&m, out, sizeof(out));
			if (l <= 0)
				fail_msg("encode %s full=%d: %d", ngap_msg_name(m.type, m.proc), full, l);
			if (ngap_decode(out, (size_t)l, &m2, &info) != 0)
				fail_msg("decode %s full=%d: %s at bit %zu", ngap_msg_name(m.type, m.proc), full,
					 info.why, info.err_bit);
			assert_int_equal(info.action, NGAP_ACT_NONE);
			assert_int_equal(m2.type, m.type);
			assert_int_equal(m2.proc, m.proc);
			l2 = ngap_encode(&m2, out2, sizeof(out2));
			assert_int_equal(l2, l);
			assert_memory_equal(out2, out, (size_t)l);
			if (full)
				lf = l;
			else if (strcmp(ngap_msg_name(m.type, m.proc), "AMFConfigurationUpdateAcknowledge") &&
				 strcmp(ngap_msg_name(m.type, m.proc), "UplinkNASTransport") &&
				 strcmp(ngap_msg_name(m.type, m.proc), "NASNonDeliveryIndication") &&
				 strcmp(ngap_msg_name(m.type, m.proc), "HandoverCancel"))
				assert_true(l < lf); /* the optional IEs were really there, and are gone */
		}
	}
}

static void test_round_trip_fields(void **state)
{
	(void)state;
	/* a few decoded values compared with what the sample put in */
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		int l = ngap_encode(&m, out, sizeof(out));

		assert_int_equal(ngap_decode(out, (size_t)l, &m2, NULL), 0);
		if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_INITIAL_CONTEXT_SETUP) {
			const struct ngap_initial_context_setup_request *a = &m.u.initial_context_setup_request,
									 *b = &m2.u.initial_context_setup_request;

			assert_int_equal(b->amf_ue_id, a->amf_ue_id);
			assert_int_equal(b->ue_ambr.dl, 4000000000000ULL);
			assert_memory_equal(b->security_key, a->security_key, 32);
			assert_memory_equal(b->masked_imeisv, a->masked_imeisv, 8);
			assert_int_equal(b->ue_sec_cap.nr_enc, 0xe000);
			assert_int_equal(b->sessions[0].transfer.len, a->sessions[0].transfer.len);
			assert_true(b->sessions[0].snssai.has_sd);
		}
		if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_NG_RESET) {
			assert_false(m2.u.ng_reset.reset_all);
			assert_int_equal(m2.u.ng_reset.n_ues, 2);
			assert_false(m2.u.ng_reset.ues[1].has_amf_ue_id);
			assert_int_equal(m2.u.ng_reset.ues[1].ran_ue_id, 78);
		}
		if (m.type == NGAP_SUCCESSFUL && m.proc == NGAP_PROC_NG_SETUP) {
			assert_int_equal(m2.u.ng_setup_response.crit_diag.n_ies, 2);
			assert_int_equal(m2.u.ng_setup_response.crit_diag.ies[0].id, 9999);
			assert_int_equal(m2.u.ng_setup_response.guamis[0].backup_amf_name.len, 10);
		}
		if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_RAN_CONFIGURATION_UPDATE) {
			assert_int_equal(m2.u.ran_configuration_update.ran_node_id.id, 0x3fffff);
			assert_int_equal(m2.u.ran_configuration_update.ran_node_id.id_bits, 22);
		}
	}
}

static void test_round_trip_transfers(void **state)
{
	static union ngap_sample_xfer_any scratch;
	struct ngap_dec_info info;
	int l2;

	(void)state;
	for (int k = 0; k < NGAP_SAMPLE_XFERS; k++)
		for (int full = 0; full < 2; full++) {
			int l = ngap_sample_xfer(k, full, out, sizeof(out));

			l2 = -1;

			assert_true(l > 0);
			if (ngap_sample_xfer_decode(k, out, (size_t)l, &scratch, &info) != 0)
				fail_msg("%s full=%d: %s at %zu", ngap_sample_xfer_name(k), full, info.why, info.err_bit);
			switch (k) {
			case 0: l2 = ngap_enc_setup_request_transfer(&scratch.a, out2, sizeof(out2)); break;
			case 1: l2 = ngap_enc_setup_response_transfer(&scratch.b, out2, sizeof(out2)); break;
			case 2: l2 = ngap_enc_setup_unsuccessful_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 3: l2 = ngap_enc_release_command_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 4: l2 = ngap_enc_release_response_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 5: l2 = ngap_enc_modify_request_transfer(&scratch.c, out2, sizeof(out2)); break;
			case 6: l2 = ngap_enc_modify_response_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 7: l2 = ngap_enc_notify_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 8: l2 = ngap_enc_notify_released_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 9: l2 = ngap_enc_modify_indication_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 10: l2 = ngap_enc_modify_confirm_transfer((void *)&scratch, out2, sizeof(out2)); break;
			case 11:
				l2 = ngap_enc_modify_indication_unsuccessful_transfer((void *)&scratch, out2,
										      sizeof(out2));
				break;
			default: l2 = ngap_sample_xfer_ho_encode(k, &scratch, out2, sizeof(out2)); break;
			}
			assert_int_equal(l2, l);
			assert_memory_equal(out2, out, (size_t)l);
		}
	/* a modified flow without new QoS parameters (fuzz finding: the encoder used to add them) */
	{
		struct ngap_modify_request_transfer t = { 0 };

		t.n_flows = 1;
		t.flows[0].qfi = 4;
		t.flows[0].params_absent = true;
		l2 = ngap_enc_modify_request_transfer(&t, out, sizeof(out));
		assert_true(l2 > 0);
		assert_int_equal(ngap_dec_modify_request_transfer(out, (size_t)l2, &scratch.c, NULL), 0);
		assert_true(scratch.c.flows[0].params_absent);
		assert_int_equal(scratch.c.flows[0].qfi, 4);
		assert_int_equal(ngap_enc_modify_request_transfer(&scratch.c, out2, sizeof(out2)), l2);
		assert_memory_equal(out, out2, (size_t)l2);
	}
	/* field check on the full setup request transfer: GBR flow kept */
	int l = ngap_sample_xfer(0, true, out, sizeof(out));
	assert_int_equal(ngap_dec_setup_request_transfer(out, (size_t)l, &scratch.a, NULL), 0);
	assert_int_equal(scratch.a.n_flows, 2);
	assert_true(scratch.a.flows[1].has_gbr);
	assert_int_equal(scratch.a.flows[1].gbr_guaranteed.ul, 1000000);
	assert_int_equal(scratch.a.pdu_session_type, NGAP_PDU_IPV4V6);
	assert_true(scratch.a.has_session_ambr);
}

/* ---- bad input ---- */

static void test_truncated(void **state)
{
	struct tv_file *f = tv_open("ngap_messages.txt");
	struct ngap_dec_info info;

	(void)state;
	assert_non_null(f);
	for (int i = 0; i < tv_sections(f); i++) {
		int n = tv_hex(f, i, "hex", in, sizeof(in));

		for (int cut = 0; cut < n; cut++) {
			int rc = ngap_decode(in, (size_t)cut, &m, &info);

			if (rc >= 0)
				fail_msg("%s cut at %d decoded", tv_section_name(f, i), cut);
			assert_int_equal(rc, -EBADMSG);
			assert_non_null(info.why);
			assert_true(info.err_bit <= (size_t)cut * 8);
		}
	}
	tv_close(f);
	/* transfers too */
	for (int k = 0; k < NGAP_SAMPLE_XFERS; k++) {
		static uint8_t scratch[sizeof(struct ngap_setup_request_transfer) + 4096];
		int l = ngap_sample_xfer(k, true, out, sizeof(out));

		for (int cut = 0; cut < l; cut++) {
			int rc = ngap_sample_xfer_decode(k, out, (size_t)cut, scratch, &info);

			assert_true(rc < 0);
			assert_non_null(info.why);
		}
	}
}

static void test_overlong_and_wrong_length(void **state)
{
	struct ngap_dec_info info;
	int n;

	(void)state;
	/* one octet after the PDU */
	n = vec("ngap_ue_context_release_complete", in, sizeof(in));
	in[n] = 0;
	assert_int_equal(ngap_decode(in, (size_t)n + 1, &m, &info), -EBADMSG);
	assert_string_equal(info.why, "trailing octets after the NGAP-PDU");
	assert_int_equal(info.err_bit, (size_t)n * 8);
	/* 2029000f 000002 000a 40 02 0001 ...: the AMF-UE-NGAP-ID value says 2 octets; claim 3 */
	n = vec("ngap_ue_context_release_complete", in, sizeof(in));
	in[10] = 0x03;
	assert_true(ngap_decode(in, (size_t)n, &m, &info) < 0);
	assert_non_null(info.why);
	/* claim 1: the integer (1 octet count + value) no longer fits its open type */
	n = vec("ngap_ue_context_release_complete", in, sizeof(in));
	in[10] = 0x01;
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EBADMSG);
	assert_int_equal(info.err_bit, 12 * 8); /* at the end of that 1-octet IE value */
	/* the PDU's open type longer than the input */
	n = vec("ngap_ue_context_release_complete", in, sizeof(in));
	in[3] = 0x20;
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EBADMSG);
	assert_string_equal(info.why, "open type longer than the input");
	assert_int_equal(info.err_bit, 24);
	/* an IE value with an unused octet left over */
	{
		static const uint8_t v[] = { 0x20, 0x29, 0x00, 0x10, 0x00, 0x00, 0x02, 0x00, 0x0a, 0x40, 0x03, 0x00,
					     0x01, 0x00, 0x00, 0x55, 0x40, 0x02, 0x00, 0x01 };

		assert_int_equal(ngap_decode(v, sizeof(v), &m, &info), -EBADMSG);
		assert_string_equal(info.why, "IE value longer than its content");
	}
}

/* Build a PDU from raw IEs: each {id, crit, value octets}. */
struct raw_ie { uint16_t id; uint8_t crit; const uint8_t *v; size_t n; };

static int build(uint8_t type, uint8_t proc, uint8_t crit, const struct raw_ie *ies, size_t n, uint8_t *buf)
{
	struct aper_w w;
	size_t mark, m2;

	aper_w_init(&w, buf, 4096);
	aper_put_choice(&w, 3, true, type);
	aper_put_cint(&w, 0, 255, false, proc);
	aper_put_enum(&w, 3, false, crit);
	aper_open_begin(&w, &mark);
	aper_put_seq(&w, true, 0, 0);
	aper_put_count(&w, 0, 65535, n);
	for (size_t i = 0; i < n; i++) {
		aper_put_cint(&w, 0, 65535, false, ies[i].id);
		aper_put_enum(&w, 3, false, ies[i].crit);
		aper_open_begin(&w, &m2);
		for (size_t k = 0; k < ies[i].n; k++)
			aper_put_bits(&w, ies[i].v[k], 8);
		aper_open_end(&w, m2);
	}
	aper_open_end(&w, mark);
	return aper_w_len(&w);
}

static const uint8_t v_amf[] = { 0x00, 0x07 }, v_ran[] = { 0x00, 0x09 };
static const uint8_t v_nas[] = { 0x02, 0x7e, 0x00 };
static const uint8_t v_uli[] = { 0x40, 0x00, 0xf1, 0x10, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0xf1, 0x10, 0x00, 0x00,
				 0x01 };
static const uint8_t v_junk[] = { 0xde, 0xad };

/* The ProtocolIE-Field head (id, criticality) of the first IE of the captured DownlinkNASTransport
 * (octets 7-8 id, octet 9 criticality in its top 2 bits; the NGAP-PDU value length is octet 3):
 * reserved criticality 3 is a range error at the criticality's bit; padding bits after the
 * criticality are ignored (same decode); a message cut inside the head (outer length adjusted) is
 * truncated at the field that does not fit. Encoded again at every capacity up to its size. */
static void test_ie_head(void **state)
{
	static struct ngap_msg ref;
	struct ngap_dec_info info;
	int n = vec("ngap_downlink_nas_transport_authentication_request", in, sizeof(in));

	(void)state;
	assert_true(n > 12);
	assert_int_equal(in[3], n - 4);
	assert_int_equal(in[7] << 8 | in[8], 10); /* id-AMF-UE-NGAP-ID */
	assert_int_equal(in[9], 0x00);
	assert_int_equal(ngap_decode(in, (size_t)n, &ref, &info), 0);
	/* padding after the criticality: ignored */
	in[9] = 0x15;
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_NONE);
	assert_int_equal(m.type, ref.type);
	assert_int_equal(m.proc, ref.proc);
	assert_memory_equal(&m.u.downlink_nas_transport, &ref.u.downlink_nas_transport, sizeof(m.u.downlink_nas_transport));
	/* criticality 3 (not in reject/ignore/notify) */
	in[9] = 0xc0;
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -ERANGE);
	assert_int_equal(info.err_bit, 9 * 8);
	in[9] = 0x00;
	/* encoding it again gives the capture, in a buffer of exactly its size, and -ENOSPC in every
	 * smaller one (the writer's IE head shortcut needs three octets; the general path the rest) */
	for (int cap = 0; cap <= n; cap++) {
		memset(out, 0xee, sizeof(out));
		if (cap < n) {
			assert_int_equal(ngap_encode(&ref, out, (size_t)cap), -ENOSPC);
		} else {
			assert_int_equal(ngap_encode(&ref, out, (size_t)cap), n);
			assert_memory_equal(out, in, (size_t)n);
		}
	}
	/* cut after octet 7 (id half there), 8 (id there, criticality not), 9 (no length) */
	for (int cut = 8; cut <= 10; cut++) {
		static const size_t want[] = { 7 * 8, 9 * 8, 10 * 8 };

		in[3] = (uint8_t)(cut - 4);
		assert_int_equal(ngap_decode(in, (size_t)cut, &m, &info), -EBADMSG);
		assert_int_equal(info.err_bit, want[cut - 8]);
	}
}

static void test_unknown_ie_criticality(void **state)
{
	struct ngap_dec_info info;
	int n;

	(void)state;
	/* the pieces form a valid Uplink NAS Transport */
	struct raw_ie ies[5] = {
		{ 10, 0, v_amf, 2 }, { 85, 0, v_ran, 2 }, { 38, 0, v_nas, 3 }, { 121, 1, v_uli, sizeof(v_uli) },
		{ 999, 0, v_junk, 2 },
	};
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 4, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(m.u.uplink_nas_transport.amf_ue_id, 7);
	assert_int_equal(m.u.uplink_nas_transport.ran_ue_id, 9);
	/* unknown IE, criticality reject: 10.3.4.2 reject the procedure; the caller gets the ids */
	ies[4].crit = NGAP_CRIT_REJECT;
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 5, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EPROTO);
	assert_int_equal(info.action, NGAP_ACT_REJECT);
	assert_int_equal(info.diag.n_ies, 1);
	assert_int_equal(info.diag.ies[0].id, 999);
	assert_int_equal(info.diag.ies[0].crit, NGAP_CRIT_REJECT);
	assert_int_equal(info.diag.ies[0].type_of_error, NGAP_ERR_NOT_UNDERSTOOD);
	assert_int_equal(info.diag.proc, NGAP_PROC_UPLINK_NAS_TRANSPORT);
	assert_int_equal(info.diag.trigger, NGAP_INITIATING);
	assert_int_equal(info.diag.proc_crit, NGAP_CRIT_IGNORE);
	assert_int_equal(info.ue_ids_seen, 3);
	assert_int_equal(info.amf_ue_id, 7);
	assert_int_equal(info.ran_ue_id, 9);
	assert_non_null(info.why);
	/* ignore and notify: decoded, reported */
	ies[4].crit = NGAP_CRIT_NOTIFY;
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 5, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_NOTIFY);
	assert_int_equal(info.diag.n_ies, 1);
	assert_int_equal(info.diag.ies[0].crit, NGAP_CRIT_NOTIFY);
	assert_int_equal(m.u.uplink_nas_transport.nas.len, 2);
	/* ignore: decoded silently, nothing to report */
	ies[4].crit = NGAP_CRIT_IGNORE;
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 5, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_IGNORE);
	assert_int_equal(info.diag.n_ies, 0);
	/* a known IE not expected in this message (SecurityKey, 94) is not comprehended either */
	ies[4].id = 94;
	ies[4].crit = NGAP_CRIT_REJECT;
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 5, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EPROTO);
	assert_int_equal(info.diag.ies[0].id, 94);
	/* the diagnostics go straight into an Error Indication */
	{
		struct ngap_msg e = { .type = NGAP_INITIATING, .proc = NGAP_PROC_ERROR_INDICATION };

		e.u.error_indication.has_amf_ue_id = e.u.error_indication.has_ran_ue_id = true;
		e.u.error_indication.amf_ue_id = info.amf_ue_id;
		e.u.error_indication.ran_ue_id = info.ran_ue_id;
		e.u.error_indication.has_cause = true;
		e.u.error_indication.cause = (struct ngap_cause){ NGAP_CAUSE_PROTOCOL,
								  NGAP_CAUSE_PROT_ABSTRACT_SYNTAX_ERROR_REJECT };
		e.u.error_indication.has_crit_diag = true;
		e.u.error_indication.crit_diag = info.diag;
		n = ngap_encode(&e, out, sizeof(out));
		assert_true(n > 0);
		assert_int_equal(ngap_decode(out, (size_t)n, &m2, NULL), 0);
		assert_int_equal(m2.u.error_indication.crit_diag.ies[0].id, 94);
		assert_int_equal(m2.u.error_indication.crit_diag.proc, NGAP_PROC_UPLINK_NAS_TRANSPORT);
	}
}

/* 10.3.4.2 also covers IEs inside ProtocolExtensionContainers: UserLocationInformationNR with an
 * extension IE 999 we do not comprehend. */
static void test_extension_ie_criticality(void **state)
{
	struct ngap_dec_info info;
	int n;
	uint8_t uli_ext[] = { 0x48, 0x00, 0xf1, 0x10, 0x00, 0x00, 0x00, 0x00, 0x10, 0x00, 0xf1, 0x10, 0x00, 0x00,
			      0x01, 0x00, 0x00, 0x03, 0xe7, 0x00, 0x01, 0x00 };
	struct raw_ie ies[4] = {
		{ 10, 0, v_amf, 2 }, { 85, 0, v_ran, 2 }, { 38, 0, v_nas, 3 }, { 121, 1, uli_ext, sizeof(uli_ext) },
	};

	(void)state;
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 4, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EPROTO);
	assert_int_equal(info.action, NGAP_ACT_REJECT);
	assert_int_equal(info.diag.n_ies, 1);
	assert_int_equal(info.diag.ies[0].id, 999);
	assert_int_equal(info.diag.ies[0].crit, NGAP_CRIT_REJECT);
	uli_ext[19] = 0x40; /* ignore */
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 4, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_IGNORE);
	assert_memory_equal(m.u.uplink_nas_transport.uli.tai.tac, "\x00\x00\x01", 3);
	uli_ext[19] = 0x80; /* ignore and notify */
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 4, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_NOTIFY);
}

static void test_missing_and_duplicate(void **state)
{
	struct ngap_dec_info info;
	int n;
	struct raw_ie ies[4] = {
		{ 10, 0, v_amf, 2 }, { 85, 0, v_ran, 2 }, { 38, 0, v_nas, 3 }, { 121, 1, v_uli, sizeof(v_uli) },
	};

	(void)state;
	/* missing RAN-UE-NGAP-ID (criticality reject in the table): 10.3.5 reject */
	struct raw_ie no_ran[3] = { ies[0], ies[2], ies[3] };
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, no_ran, 3, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EPROTO);
	assert_int_equal(info.diag.n_ies, 1);
	assert_int_equal(info.diag.ies[0].id, 85);
	assert_int_equal(info.diag.ies[0].type_of_error, NGAP_ERR_MISSING);
	/* missing UserLocationInformation (criticality ignore): continue */
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, ies, 3, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_IGNORE);
	assert_int_equal(info.diag.n_ies, 0); /* "ignore": nothing to report */
	/* the same IE twice */
	struct raw_ie dup[5] = { ies[0], ies[1], ies[2], ies[2], ies[3] };
	n = build(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT, NGAP_CRIT_IGNORE, dup, 5, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EBADMSG);
	assert_string_equal(info.why, "IE appears more than once");
}

static void test_unknown_values(void **state)
{
	struct ngap_dec_info info;
	int n;

	(void)state;
	/* unknown procedure code 99 with criticality reject / ignore (10.3.4.1) */
	n = build(NGAP_INITIATING, 99, NGAP_CRIT_REJECT, NULL, 0, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -ENOTSUP);
	assert_int_equal(info.action, NGAP_ACT_REJECT);
	assert_int_equal(info.diag.proc, 99);
	n = build(NGAP_INITIATING, 99, NGAP_CRIT_IGNORE, NULL, 0, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -ENOTSUP);
	assert_int_equal(info.action, NGAP_ACT_IGNORE);
	/* a known code with an outcome it does not have (Paging has no successful outcome) */
	n = build(NGAP_SUCCESSFUL, NGAP_PROC_PAGING, NGAP_CRIT_IGNORE, NULL, 0, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -ENOTSUP);
	/* NGAP-PDU extension alternative: 1 + normally small 0 */
	static const uint8_t ext[] = { 0x80, 0x00, 0x00 };
	assert_int_equal(ngap_decode(ext, sizeof(ext), &m, &info), -ENOTSUP);
	assert_non_null(info.why);
	/* criticality value 3 does not exist */
	static const uint8_t badcrit[] = { 0x00, 0x04, 0xc0, 0x00 };
	assert_int_equal(ngap_decode(badcrit, sizeof(badcrit), &m, &info), -ERANGE);
	assert_int_equal(info.err_bit, 16);
	/* CauseRadioNetwork has 45 root values: 63 without the extension bit is out of range */
	static const uint8_t cause63[] = { 0x0f, 0xc0 };
	struct raw_ie ies[2] = { { 10, 0, v_amf, 2 }, { 15, 1, cause63, 2 } };
	uint8_t ids[] = { 0x00, 0x07, 0x00, 0x09 }; /* UE-NGAP-IDs pair: choice 0, amf 7, ran 9 */
	struct raw_ie cmd[2] = { { 114, 0, ids, sizeof(ids) }, ies[1] };
	n = build(NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE, NGAP_CRIT_REJECT, cmd, 2, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -ERANGE);
	assert_string_equal(info.why, "integer above upper bound");
	/* the same with a legal value decodes */
	static const uint8_t cause20[] = { 0x05, 0x00 };
	cmd[1].v = cause20;
	n = build(NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE, NGAP_CRIT_REJECT, cmd, 2, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), 0);
	assert_int_equal(m.u.ue_context_release_command.cause.value, 20);
	assert_int_equal(m.u.ue_context_release_command.ran_ue_id, 9);
	/* GlobalRANNodeID alternatives we do not code: ng-eNB */
	static const uint8_t ngenb[] = { 0x40, 0x00, 0xf1, 0x10, 0x00 };
	struct raw_ie ns[1] = { { 27, 0, ngenb, sizeof(ngenb) } };
	n = build(NGAP_INITIATING, NGAP_PROC_NG_SETUP, NGAP_CRIT_REJECT, ns, 1, in);
	assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -ENOTSUP);
	assert_string_equal(info.why, "GlobalRANNodeID: only globalGNB-ID is supported");
}

static void test_limits_and_encoder_errors(void **state)
{
	struct ngap_dec_info info;
	int n;

	(void)state;
	/* more TAs than NGAP_MAX_TAS decode now (tests/ngap/test_ngap_lists.c); a count whose items are
	 * not there is truncated input */
	{
		struct aper_w w;
		static uint8_t v[1024];

		aper_w_init(&w, v, sizeof(v));
		aper_put_count(&w, 1, 256, NGAP_MAX_TAS + 1);
		n = aper_w_len(&w);
		struct raw_ie ies[1] = { { 102, 0, v, (size_t)n } };
		n = build(NGAP_INITIATING, NGAP_PROC_NG_SETUP, NGAP_CRIT_REJECT, ies, 1, in);
		assert_int_equal(ngap_decode(in, (size_t)n, &m, &info), -EBADMSG);
	}
	/* encoder: values outside their ASN.1 range, full buffers */
	ngap_sample(0, true, &m);
	m.u.ng_setup_request.ran_node_id.id_bits = 21;
	assert_int_equal(ngap_encode(&m, out, sizeof(out)), -EINVAL);
	ngap_sample(4, false, &m); /* DownlinkNASTransport */
	m.u.downlink_nas_transport.amf_ue_id = NGAP_MAX_AMF_UE_NGAP_ID + 1;
	assert_int_equal(ngap_encode(&m, out, sizeof(out)), -EINVAL);
	ngap_sample(4, true, &m);
	n = ngap_encode(&m, out, sizeof(out));
	for (int cap = 0; cap < n; cap++)
		assert_int_equal(ngap_encode(&m, out, (size_t)cap), -ENOSPC);
	m.type = NGAP_SUCCESSFUL; /* no such message */
	assert_int_equal(ngap_encode(&m, out, sizeof(out)), -ENOTSUP);
	assert_string_equal(ngap_msg_name(NGAP_INITIATING, NGAP_PROC_PAGING), "Paging");
}

/* Issue 14 item 7: PDU Session Resource Notify / Modify Indication / Modify Confirm with their transfers,
 * UE Radio Capability for Paging in Paging (the Modify Indication was -ENOTSUP before: an Error
 * Indication to the gNB). */
static void test_notify_modify_indication(void **state)
{
	struct ngap_dec_info info;
	struct ngap_notify_transfer nt;
	struct ngap_modify_indication_transfer mi;
	struct ngap_modify_confirm_transfer mc;
	struct ngap_bytes nr, eutra;
	uint8_t rc[16];
	int n;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION;
	m.u.pdu_session_resource_modify_indication.amf_ue_id = 5;
	m.u.pdu_session_resource_modify_indication.ran_ue_id = 6;
	m.u.pdu_session_resource_modify_indication.n_sessions = 1;
	m.u.pdu_session_resource_modify_indication.sessions[0].id = 3;
	n = ngap_sample_xfer(9, true, out2, sizeof(out2));
	m.u.pdu_session_resource_modify_indication.sessions[0].transfer = (struct ngap_bytes){ out2, (size_t)n };
	n = ngap_encode(&m, out, sizeof(out));
	assert_true(n > 0);
	assert_int_equal(ngap_decode(out, (size_t)n, &m2, &info), 0);
	assert_int_equal(m2.crit, NGAP_CRIT_REJECT);
	assert_string_equal(ngap_msg_name(m2.type, m2.proc), "PDUSessionResourceModifyIndication");
	assert_int_equal(m2.u.pdu_session_resource_modify_indication.sessions[0].id, 3);
	const struct ngap_bytes *t = &m2.u.pdu_session_resource_modify_indication.sessions[0].transfer;
	assert_int_equal(ngap_dec_modify_indication_transfer(t->p, t->len, &mi, &info), 0);
	assert_int_equal(mi.dl_tunnel.addr_bits, 32);
	assert_int_equal(mi.dl_tunnel.addr[3], 202);
	assert_int_equal(mi.dl_tunnel.teid[3], 0x05);
	assert_int_equal(mi.n_flows, 2);
	assert_int_equal(mi.qfis[1], 2);

	/* the confirm the SMF answers with: UL tunnel kept, one flow failed */
	n = ngap_sample_xfer(10, true, out2, sizeof(out2));
	assert_int_equal(ngap_dec_modify_confirm_transfer(out2, (size_t)n, &mc, &info), 0);
	assert_int_equal(mc.n_flows, 1);
	assert_int_equal(mc.ul_tunnel.teid[2], 0x10);
	assert_int_equal(mc.n_failed, 1);
	assert_int_equal(mc.failed[0].qfi, 2);

	/* the notify transfer: fulfilled / not fulfilled / released */
	n = ngap_sample_xfer(7, true, out2, sizeof(out2));
	assert_int_equal(ngap_dec_notify_transfer(out2, (size_t)n, &nt, &info), 0);
	assert_int_equal(nt.n_notify, 2);
	assert_int_equal(nt.notify[1].qfi, 2);
	assert_int_equal(nt.notify[1].cause, NGAP_NOTIF_NOT_FULFILLED);
	assert_int_equal(nt.n_released, 1);
	assert_int_equal(nt.released[0].qfi, 3);
	assert_int_equal(nt.released[0].cause.value, 21);
	out2[0] |= 0x80; /* the extension bit with nothing after it: truncated, not a crash */
	assert_true(ngap_dec_notify_transfer(out2, 1, &nt, &info) < 0);

	/* UERadioCapabilityForPaging: built, sent in Paging, read back */
	n = ngap_enc_ue_radio_cap_paging((struct ngap_bytes){ (const uint8_t *)"\x12\x34", 2 }, (struct ngap_bytes){ 0 },
					 rc, sizeof(rc));
	assert_int_equal(n, 4);
	ngap_sample(0, true, &m);
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_PAGING)
			break;
	}
	assert_int_equal(m.proc, NGAP_PROC_PAGING);
	m.u.paging.ue_radio_capability_for_paging = (struct ngap_bytes){ rc, (size_t)n };
	n = ngap_encode(&m, out, sizeof(out));
	assert_int_equal(ngap_decode(out, (size_t)n, &m2, &info), 0);
	assert_int_equal(info.action, NGAP_ACT_NONE);
	assert_int_equal(ngap_dec_ue_radio_cap_paging(m2.u.paging.ue_radio_capability_for_paging, &nr, &eutra), 0);
	assert_int_equal(nr.len, 2);
	assert_memory_equal(nr.p, "\x12\x34", 2);
	assert_null(eutra.p);
}

static void test_to_str(void **state)
{
	char line[2048];
	int n;

	(void)state;
	/* every sample prints, with its name first */
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		n = ngap_msg_str(&m, line, sizeof(line));
		assert_true(n > 0 && (size_t)n < sizeof(line));
		assert_int_equal(strncmp(line, ngap_msg_name(m.type, m.proc), strlen(ngap_msg_name(m.type, m.proc))), 0);
	}
	/* the K_gNB never reaches a log line */
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		if (m.type == NGAP_INITIATING && m.proc == NGAP_PROC_INITIAL_CONTEXT_SETUP)
			break;
	}
	ngap_msg_str(&m, line, sizeof(line));
	assert_non_null(strstr(line, "SecurityKey=<redacted>"));
	assert_null(strstr(line, "a0a1"));
	assert_null(strstr(line, "160")); /* 0xa0 in decimal */
	assert_non_null(strstr(line, "AMF-UE-NGAP-ID=78187493530"));
	assert_non_null(strstr(line, "GUAMI=00f110/2/1/1"));
	/* snprintf semantics: truncated output, full length returned */
	n = ngap_msg_str(&m, line, 10);
	assert_true(n > 10);
	assert_int_equal(strlen(line), 9);
	m.type = 7;
	assert_int_equal(ngap_msg_str(&m, line, sizeof(line)), -ENOTSUP);
}

/* Message lookup by (PDU type, procedure code): every pair we code finds its name; types past
 * unsuccessfulOutcome, procedure codes we do not code and pairs that do not exist find none. */
static void test_msg_lookup(void **state)
{
	(void)state;
	assert_string_equal(ngap_msg_name(NGAP_INITIATING, NGAP_PROC_NG_SETUP), "NGSetupRequest");
	assert_string_equal(ngap_msg_name(NGAP_UNSUCCESSFUL, NGAP_PROC_AMF_CONFIGURATION_UPDATE),
			    "AMFConfigurationUpdateFailure");
	assert_string_equal(ngap_msg_name(NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT), "UplinkNASTransport");
	assert_string_equal(ngap_msg_name(NGAP_SUCCESSFUL, NGAP_PROC_DOWNLINK_NAS_TRANSPORT), "?");
	assert_string_equal(ngap_msg_name(3, NGAP_PROC_NG_SETUP), "?");
	assert_string_equal(ngap_msg_name(255, 255), "?");
	assert_string_equal(ngap_msg_name(NGAP_INITIATING, 255), "?");
	for (int i = 0; i < ngap_sample_count(); i++) {
		ngap_sample(i, true, &m);
		assert_string_not_equal(ngap_msg_name(m.type, m.proc), "?");
		m.type = 3;
		assert_true(ngap_encode(&m, out, sizeof(out)) < 0);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_vectors_all),
		cmocka_unit_test(test_vector_fields),
		cmocka_unit_test(test_round_trip_messages),
		cmocka_unit_test(test_round_trip_fields),
		cmocka_unit_test(test_round_trip_transfers),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_overlong_and_wrong_length),
		cmocka_unit_test(test_ie_head),
		cmocka_unit_test(test_msg_lookup),
		cmocka_unit_test(test_unknown_ie_criticality),
		cmocka_unit_test(test_extension_ie_criticality),
		cmocka_unit_test(test_missing_and_duplicate),
		cmocka_unit_test(test_unknown_values),
		cmocka_unit_test(test_limits_and_encoder_errors),
		cmocka_unit_test(test_notify_modify_indication),
		cmocka_unit_test(test_to_str),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
