/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * smf unit tests: the SMF as the AMF sees it. No user plane attached (the
 * upf handle is NULL: every rule operation is counted in upf_skipped);
 * test_smf_upf.c runs the same flows against the real UPF.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "smf_fx.h"

static int setup(void **state)
{
	*state = fx_new(64, 0);
	return 0;
}

static int teardown(void **state)
{
	fx_free(*state);
	return 0;
}

static uint64_t ambr_bps(uint8_t unit, uint16_t v)
{
	return nas_ambr_kbps(unit, v) * 1000;
}

static uint32_t be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

/* Establishment: every field of the accept and of the Setup Request Transfer. */
static void test_establish_fields(void **state)
{
	struct fx *f = *state;
	struct est_opt o = { .psi = 5, .pti = 9, .dnn = "internet" };
	struct nas_msg m;
	struct nas_qos_rules rules;
	struct nas_qos_flows flows;
	struct nas_pco pco;
	struct nas_err err;
	struct ngap_setup_request_transfer t;
	struct smf_sess_info info;
	struct smf_stats st;
	char dnn[64];
	uint32_t addr, dns;

	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(m.psi, 5);
	assert_int_equal(m.pti, 9);
	const struct nas_pdu_session_establishment_accept *a = &m.pdu_est_acc;
	assert_int_equal(a->pdu_session_type, NAS_PDU_IPV4);
	assert_int_equal(a->ssc_mode, NAS_SSC_MODE_1);
	assert_false(a->has_cause);
	assert_false(a->has_always_on);
	/* default QoS rule: create, DQR, one match-all filter, precedence 255, QFI 1 */
	assert_int_equal(nas_qos_rules_dec(a->qos_rules.p, a->qos_rules.len, &rules, &err), 0);
	assert_int_equal(rules.n, 1);
	assert_int_equal(rules.r[0].id, 1);
	assert_int_equal(rules.r[0].op, NAS_QOS_RULE_CREATE);
	assert_int_equal(rules.r[0].dqr, 1);
	assert_int_equal(rules.r[0].n_filters, 1);
	assert_int_equal(rules.r[0].f[0].dir, 3);
	assert_int_equal(rules.r[0].f[0].contents.len, 1);
	assert_int_equal(rules.r[0].f[0].contents.p[0], 0x01);
	assert_int_equal(rules.r[0].has_prec_qfi, 1);
	assert_int_equal(rules.r[0].precedence, 255);
	assert_int_equal(rules.r[0].qfi, 1);
	/* session-AMBR of the subscription (100M up, 200M down) */
	assert_int_equal(ambr_bps(a->ambr.ul_unit, a->ambr.ul), 100000000);
	assert_int_equal(ambr_bps(a->ambr.dl_unit, a->ambr.dl), 200000000);
	/* PDU address in the internet pool */
	assert_true(a->has_pdu_address);
	assert_int_equal(a->pdu_address.type, NAS_PDU_IPV4);
	memcpy(&addr, a->pdu_address.ipv4, 4);
	assert_int_equal(ntohl(addr) & 0xffff0000u, 0x0a2d0000u);
	assert_int_not_equal(ntohl(addr) & 0xffff, 0);
	/* S-NSSAI */
	assert_true(a->has_snssai);
	assert_int_equal(a->snssai.sst, 1);
	assert_true(a->snssai.has_sd);
	assert_int_equal(a->snssai.sd, 0x010203);
	/* QoS flow description: QFI 1, create, 5QI 7 from the subscription */
	assert_true(a->has_qos_flows);
	assert_int_equal(nas_qos_flows_dec(a->qos_flows.p, a->qos_flows.len, &flows, &err), 0);
	assert_int_equal(flows.n, 1);
	assert_int_equal(flows.f[0].qfi, 1);
	assert_int_equal(flows.f[0].op, 1);
	assert_int_equal(flows.f[0].n, 1);
	assert_int_equal(flows.f[0].p[0].id, NAS_QOS_P_5QI);
	assert_int_equal(flows.f[0].p[0].v.len, 1);
	assert_int_equal(flows.f[0].p[0].v.p[0], 7);
	/* ePCO: the two IPv4 DNS servers (not the IPv6 one) and the MTU */
	assert_true(a->has_epco);
	assert_int_equal(nas_pco_dec(a->epco.p, a->epco.len, &pco, &err), 0);
	assert_int_equal(pco.n, 3);
	assert_int_equal(pco.it[0].id, NAS_PCO_DNS_IPV4);
	memcpy(&dns, pco.it[0].v.p, 4);
	assert_int_equal(dns, fx_ip("8.8.8.8"));
	assert_int_equal(pco.it[1].id, NAS_PCO_DNS_IPV4);
	memcpy(&dns, pco.it[1].v.p, 4);
	assert_int_equal(dns, fx_ip("1.1.1.1"));
	assert_int_equal(pco.it[2].id, NAS_PCO_IPV4_LINK_MTU);
	assert_int_equal(pco.it[2].v.len, 2);
	assert_int_equal(pco.it[2].v.p[0] << 8 | pco.it[2].v.p[1], 1400);
	assert_true(a->has_dnn);
	assert_true(nas_dnn_to_str(&a->dnn, dnn, sizeof(dnn)) > 0);
	assert_string_equal(dnn, "internet");

	/* N2: PDU Session Resource Setup Request Transfer */
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(f->out.psi, 5);
	assert_int_equal(f->out.snssai.sst, 1);
	assert_true(f->out.snssai.has_sd);
	assert_memory_equal(f->out.snssai.sd, "\x01\x02\x03", 3);
	assert_int_equal(ngap_dec_setup_request_transfer(f->out.n2, f->out.n2_len, &t, NULL), 0);
	assert_true(t.has_session_ambr);
	assert_int_equal(t.session_ambr.ul, 100000000);
	assert_int_equal(t.session_ambr.dl, 200000000);
	assert_int_equal(t.ul_tunnel.addr_bits, 32);
	assert_memory_equal(t.ul_tunnel.addr, &(uint32_t){ fx_ip(N3_ADDR) }, 4);
	assert_int_equal(t.pdu_session_type, NGAP_PDU_IPV4);
	assert_int_equal(t.n_flows, 1);
	assert_int_equal(t.flows[0].qfi, 1);
	assert_false(t.flows[0].dynamic);
	assert_int_equal(t.flows[0].five_qi, 7);
	assert_int_equal(t.flows[0].arp_priority, 3);

	assert_int_equal(smf_sess_info(f->smf, f->ue1, 5, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE_PENDING);
	assert_false(info.up_active);
	assert_int_equal(be32(t.ul_tunnel.teid), info.ul_teid);
	assert_int_not_equal(info.ul_teid, 0);
	assert_int_equal(info.ue_addr, addr);
	assert_int_equal(smf_ue_psi_map(f->ue1), 1u << 5);

	/* the gNB answers: downlink active toward its tunnel */
	assert_int_equal(fx_setup_rsp(f, f->ue1, 5, 0xabcdef01), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_NONE);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 5, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	assert_true(info.up_active);
	assert_int_equal(info.gnb_addr, fx_ip(GNB_ADDR));
	assert_int_equal(info.gnb_teid, 0xabcdef01);
	assert_string_equal(info.dnn, "internet");
	assert_int_equal(smf_ue_up_map(f->smf, f->ue1), 1u << 5);

	smf_get_stats(f->smf, &st);
	assert_int_equal(st.est_accepted, 1);
	assert_int_equal(st.sessions, 1);
	/* no user plane: create + modify were skipped and counted, nothing failed */
	assert_int_equal(st.upf_skipped, 2);
	assert_int_equal(st.upf_errors, 0);
}

/* Defaults: no DNN, no S-NSSAI, no PDU session type, no ePCO; subscriber without
 * AMBR/5QI/ARP gets 1 Gbit/s, 5QI 9, ARP 8. */
static void test_establish_defaults(void **state)
{
	struct fx *f = *state;
	struct est_opt o = { .psi = 1, .pti = 1, .no_dnn = true, .no_snssai = true, .no_type = true,
			     .no_epco = true, .ssc = NAS_SSC_MODE_1 };
	struct nas_msg m;
	struct smf_sess_info info;
	char dnn[64];

	assert_int_equal(fx_est(f, f->ue2, &o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(m.pdu_est_acc.pdu_session_type, NAS_PDU_IPV4);
	assert_false(m.pdu_est_acc.has_epco);
	assert_true(nas_dnn_to_str(&m.pdu_est_acc.dnn, dnn, sizeof(dnn)) > 0);
	assert_string_equal(dnn, "internet");
	assert_int_equal(m.pdu_est_acc.snssai.sst, 1);
	assert_int_equal(m.pdu_est_acc.snssai.sd, 0x010203);
	assert_int_equal(ambr_bps(m.pdu_est_acc.ambr.dl_unit, m.pdu_est_acc.ambr.dl), 1000000000);
	assert_int_equal(smf_sess_info(f->smf, f->ue2, 1, &info), 0);
	assert_int_equal(info.five_qi, 9);
	assert_int_equal(info.arp, 8);
}

/* A minimal PDU Session Establishment Request (IPv4) encoded into buf; its length. */
static int enc_min_est_req(uint8_t psi, uint8_t pti, uint8_t *buf, size_t cap)
{
	static const uint8_t imr[2] = { 0xff, 0xff };
	struct nas_msg m;
	int n;

	memset(&m, 0, sizeof(m));
	m.type = NAS_PDU_SESSION_ESTABLISHMENT_REQUEST;
	m.psi = psi;
	m.pti = pti;
	m.pdu_est_req.integrity_max_rate = (struct nas_buf){ imr, 2 };
	m.pdu_est_req.has_pdu_session_type = true;
	m.pdu_est_req.pdu_session_type = NAS_PDU_IPV4;
	n = nas_encode(&m, buf, cap, NULL);
	assert_true(n > 0);
	return n;
}

/* TS 24.501 7.5 / TS 24.007 11.4.2: a request whose optional DS-TT Ethernet port MAC
 * address (9.11.4.25, exactly 6 octets) is 2 octets long, followed by an Ethernet
 * header compression configuration (9.11.4.28, 1 octet in this release) 2 octets long, is
 * still accepted: the malformed IE is treated as absent and the longer one's extra octet
 * ignored. The strict decoder refuses the same bytes, so this fails if smf/ decodes strictly. */
static void test_establish_malformed_optional_ie(void **state)
{
	/* 0x6e len 2 (malformed); 0x1f len 2 (later-release length) */
	static const uint8_t tail[] = { 0x6e, 0x02, 0x00, 0x00, 0x1f, 0x02, 0x00, 0x00 };
	struct fx *f = *state;
	struct nas_msg m, chk;
	struct nas_err err;
	struct smf_sess_info info;
	struct smf_stats before, after;
	uint8_t buf[64];
	int n;

	n = enc_min_est_req(5, 7, buf, sizeof(buf));
	assert_true((size_t)n + sizeof(tail) <= sizeof(buf));
	memcpy(buf + n, tail, sizeof(tail));
	n += (int)sizeof(tail);
	assert_true(nas_decode(buf, (size_t)n, &chk, &err) < 0);
	assert_int_equal(nas_decode_ex(buf, (size_t)n, &chk, &err, NAS_DEC_LENIENT), 0);
	assert_int_equal(err.ignored, 1);

	smf_get_stats(f->smf, &before);
	assert_int_equal(fx_n1(f, f->ue2, 5, buf, (size_t)n), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(m.psi, 5);
	assert_int_equal(m.pti, 7);
	assert_int_equal(m.pdu_est_acc.pdu_session_type, NAS_PDU_IPV4);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	assert_true(f->out.n2_len > 0);
	smf_get_stats(f->smf, &after);
	assert_int_equal(after.est_rejected, before.est_rejected);
	assert_int_equal(smf_sess_info(f->smf, f->ue2, 5, &info), 0);
}

/* IPv4v6 requested: IPv4 granted with #50; always-on asked: answered "not allowed". */
static void test_establish_ipv4v6(void **state)
{
	struct fx *f = *state;
	struct est_opt o = { .psi = 2, .pti = 3, .type = NAS_PDU_IPV4V6, .always_on = true };
	struct nas_msg m;

	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(m.pdu_est_acc.pdu_session_type, NAS_PDU_IPV4);
	assert_true(m.pdu_est_acc.has_cause);
	assert_int_equal(m.pdu_est_acc.cause, NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED);
	assert_int_equal(m.pdu_est_acc.pdu_address.type, NAS_PDU_IPV4);
	assert_true(m.pdu_est_acc.has_always_on);
	assert_int_equal(m.pdu_est_acc.always_on, 0);
}

static void expect_reject(struct fx *f, struct smf_ue *ue, const struct est_opt *o, uint8_t cause)
{
	struct nas_msg m;
	struct smf_stats before, after;

	smf_get_stats(f->smf, &before);
	assert_int_equal(fx_est(f, ue, o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.psi, o->psi);
	assert_int_equal(m.pti, o->pti);
	assert_int_equal(m.pdu_est_rej.cause, cause);
	assert_int_equal(f->out.n2_proc, SMF_N2_NONE);
	assert_int_equal(f->out.n2_len, 0);
	smf_get_stats(f->smf, &after);
	assert_int_equal(after.est_rejected, before.est_rejected + 1);
	assert_int_equal(after.sessions, before.sessions);
	if (cause == NAS_5GSM_NOT_SUPPORTED_SSC_MODE) {
		assert_true(m.pdu_est_rej.has_allowed_ssc_mode);
		assert_int_equal(m.pdu_est_rej.allowed_ssc_mode, 1);
	}
}

static void test_reject_causes(void **state)
{
	struct fx *f = *state;
	uint32_t used, size;

	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .dnn = "nosuch" },
		      NAS_5GSM_MISSING_OR_UNKNOWN_DNN);
	expect_reject(f, f->ue2, &(struct est_opt){ .psi = 1, .pti = 1, .dnn = "ims" },
		      NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED);
	/* slice configured but not subscribed; slice not configured at all */
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .sst = 2, .sd = UDM_SD_NONE },
		      NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .sst = 1, .sd = 0x999999 },
		      NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .type = NAS_PDU_IPV6 },
		      NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .type = NAS_PDU_ETHERNET },
		      NAS_5GSM_UNKNOWN_PDU_SESSION_TYPE);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .ssc = NAS_SSC_MODE_2 },
		      NAS_5GSM_NOT_SUPPORTED_SSC_MODE);
	/* TS 24.501 7.3.2 a) / 7.3.1: reserved PSI, PSI differing from the transport's, PTI 0 */
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 0, .pti = 1 }, NAS_5GSM_INVALID_PDU_SESSION_ID);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 3, .pti = 1, .wrong_ul_psi = true },
		      NAS_5GSM_INVALID_PDU_SESSION_ID);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 0 }, NAS_5GSM_INVALID_PTI);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .req_type = NAS_REQ_EXISTING_PDU_SESSION },
		      NAS_5GSM_PDU_SESSION_DOES_NOT_EXIST);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1, .req_type = NAS_REQ_INITIAL_EMERGENCY },
		      NAS_5GSM_SERVICE_OPTION_NOT_SUPPORTED);
	assert_int_equal(smf_pool_usage(f->smf, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	assert_int_equal(size, 65534);
	assert_int_equal(smf_ue_psi_map(f->ue1), 0);
}

/* A UE not in the UDM: #31. */
static void test_reject_unknown_subscriber(void **state)
{
	struct fx *f = *state;
	struct smf_ue *ue;
	int cookie;

	assert_int_equal(smf_ue_attach(f->smf, "imsi-001019999999999", &cookie, &ue), 0);
	expect_reject(f, ue, &(struct est_opt){ .psi = 1, .pti = 1 }, NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED);
	assert_int_equal(smf_ue_detach(f->smf, ue), 0);
}

/* At most max_per_ue sessions per UE (#65), at most max_sessions in total (#26). */
static void test_reject_max_sessions(void **state)
{
	struct fx *f = fx_new(3, 2);
	struct smf_sess_info info;

	(void)state;
	fx_establish(f, f->ue1, 1, "internet", &info);
	fx_establish(f, f->ue1, 2, "internet", &info);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 3, .pti = 3 }, 65);
	fx_establish(f, f->ue2, 1, "internet", &info);
	expect_reject(f, f->ue2, &(struct est_opt){ .psi = 2, .pti = 3 }, NAS_5GSM_INSUFFICIENT_RESOURCES);
	fx_free(f);
}

static void release_ue(struct fx *f, struct smf_ue *ue, uint8_t psi)
{
	struct nas_msg m;

	assert_int_equal(fx_gsm(f, ue, NAS_PDU_SESSION_RELEASE_REQUEST, psi, 40, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(fx_n2(f, ue, psi, SMF_N2_RELEASE_RSP), 0);
	assert_int_equal(fx_gsm(f, ue, NAS_PDU_SESSION_RELEASE_COMPLETE, psi, 40, 0), 0);
	assert_int_equal(f->out.n1_len, 0);
}

/* The ims pool (/29) holds 6 addresses: the 7th request gets #26; a released
 * address is handed out again; 1000 cycles leave nothing behind. */
static void test_pool_exhaustion_reuse(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	uint32_t used, size, addrs[7], freed;

	for (uint8_t psi = 1; psi <= 6; psi++) {
		fx_establish(f, f->ue1, psi, "ims", &info);
		addrs[psi] = ntohl(info.ue_addr);
		assert_true(addrs[psi] > 0x0a2e0000u && addrs[psi] < 0x0a2e0007u);
		for (uint8_t k = 1; k < psi; k++)
			assert_int_not_equal(addrs[k], addrs[psi]);
	}
	assert_int_equal(smf_pool_usage(f->smf, "ims", &used, &size), 0);
	assert_int_equal(used, 6);
	assert_int_equal(size, 6);
	expect_reject(f, f->ue1, &(struct est_opt){ .psi = 7, .pti = 7, .dnn = "ims" },
		      NAS_5GSM_INSUFFICIENT_RESOURCES);
	/* the internet pool is independent */
	fx_establish(f, f->ue1, 7, "internet", &info);
	freed = addrs[4];
	release_ue(f, f->ue1, 4);
	assert_int_equal(smf_pool_usage(f->smf, "ims", &used, &size), 0);
	assert_int_equal(used, 5);
	fx_establish(f, f->ue1, 8, "ims", &info);
	assert_int_equal(ntohl(info.ue_addr), freed);
	for (int i = 0; i < 1000; i++) {
		release_ue(f, f->ue1, 8);
		fx_establish(f, f->ue1, 8, "ims", &info);
	}
	assert_int_equal(smf_ue_detach(f->smf, f->ue1), 7);
	f->ue1 = NULL;
	assert_int_equal(smf_pool_usage(f->smf, "ims", &used, &size), 0);
	assert_int_equal(used, 0);
	assert_int_equal(smf_pool_usage(f->smf, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	struct smf_stats st;
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.sessions, 0);
}

/* TS 24.501 6.4.1.2: a new request on the PSI of an existing session releases the
 * old one locally; the same PTI while waiting for the gNB is a retransmission. */
static void test_duplicate_psi(void **state)
{
	struct fx *f = *state;
	struct est_opt o = { .psi = 5, .pti = 20 };
	struct smf_sess_info a, b;
	struct smf_stats st;
	struct nas_msg m;

	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 5, &a), 0);
	assert_int_equal(fx_est(f, f->ue1, &o), 0);       /* retransmission */
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 5, &b), 0);
	assert_int_equal(a.ue_addr, b.ue_addr);
	assert_int_equal(a.ul_teid, b.ul_teid);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.sessions, 1);
	assert_int_equal(st.rel_local, 0);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 5, 77), 0);

	o.pti = 21;                                        /* a new request: old one released */
	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(m.pti, 21);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.sessions, 1);
	assert_int_equal(st.rel_local, 1);
	assert_int_equal(st.est_accepted, 2);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 5, &b), 0);
	assert_int_equal(b.state, SMF_ST_ACTIVE_PENDING);
	assert_int_equal(b.pti, 21);
	uint32_t used, size;
	assert_int_equal(smf_pool_usage(f->smf, "internet", &used, &size), 0);
	assert_int_equal(used, 1);
}

/* UE context release and service request (TS 23.502 4.2.6, 4.2.3.2). */
static void test_deactivate_reactivate(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info, after;
	struct ngap_setup_request_transfer t;
	struct smf_stats st;

	fx_establish(f, f->ue1, 1, "internet", &info);
	fx_establish(f, f->ue1, 2, "ims", &info);
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 2);
	assert_int_equal(smf_ue_up_map(f->smf, f->ue1), 0);
	assert_int_equal(smf_ue_psi_map(f->ue1), (1u << 1) | (1u << 2));
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &after), 0);
	assert_int_equal(after.state, SMF_ST_ACTIVE);
	assert_false(after.up_active);

	/* downlink data for the idle session 2: the AMF hears about it */
	smf_upf_dl_data(f->smf, info.session_id);
	assert_int_equal(f->dl_data, 1);
	assert_int_equal(f->dl_psi, 2);
	assert_ptr_equal(f->dl_cookie, &f->cookie1);
	smf_upf_dl_data(f->smf, 100000);                   /* out of range: ignored */
	assert_int_equal(f->dl_data, 1);

	/* service request: the Setup Request Transfer again, same TEID, no N1 */
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 2, &f->out), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(f->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(f->out.psi, 2);
	assert_int_equal(ngap_dec_setup_request_transfer(f->out.n2, f->out.n2_len, &t, NULL), 0);
	assert_int_equal(be32(t.ul_tunnel.teid), info.ul_teid);
	assert_int_equal(t.flows[0].five_qi, 7);
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 2, &f->out), -EALREADY);
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 9, &f->out), -ENOENT);
	/* while active the UPF does not notify; a stale notification is ignored */
	smf_upf_dl_data(f->smf, info.session_id);
	assert_int_equal(f->dl_data, 1);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 2, 0x55), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &after), 0);
	assert_true(after.up_active);
	assert_int_equal(after.gnb_teid, 0x55);
	assert_int_equal(smf_ue_up_map(f->smf, f->ue1), 1u << 2);
	/* a reactivation the gNB refuses leaves the session idle */
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 1, &f->out), 0);
	assert_int_equal(fx_n2(f, f->ue1, 1, SMF_N2_SETUP_FAIL), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &after), 0);
	assert_int_equal(after.state, SMF_ST_ACTIVE);
	assert_false(after.up_active);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.up_deactivated, 2);
	assert_int_equal(st.up_reactivated, 1);
	assert_int_equal(st.dl_data_notified, 1);
}

/* AN release racing the procedures: before the gNB's setup response (the session
 * stays, idle) and during a release (nothing left to release at the gNB). */
static void test_deactivate_races(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct nas_msg m;

	assert_int_equal(fx_est(f, f->ue1, &(struct est_opt){ .psi = 1, .pti = 1 }), 0);
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 1);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	assert_false(info.up_active);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 1, 3), -EPROTO);   /* late response: ignored */
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 1, &f->out), 0);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 1, 3), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 1, 2, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(f->out.n2_proc, SMF_N2_RELEASE);
	assert_int_equal(smf_up_deactivate(f->smf, f->ue1), 1);      /* gNB context gone */
	assert_int_equal(fx_n2(f, f->ue1, 1, SMF_N2_RELEASE_RSP), -EPROTO);
	assert_int_equal(smf_up_reactivate(f->smf, f->ue1, 1, &f->out), -EBUSY);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 1, 2, 0), 0);
	assert_int_equal(smf_ue_psi_map(f->ue1), 0);
}

/* UE-requested release: #36, both transfers, then everything freed. */
static void test_release_ue(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct ngap_release_command_transfer rt;
	struct nas_msg m;
	struct smf_stats st;
	uint32_t used, size;

	fx_establish(f, f->ue1, 3, "internet", &info);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 3, 50, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.psi, 3);
	assert_int_equal(m.pti, 50);
	assert_int_equal(m.pdu_rel_cmd.cause, NAS_5GSM_REGULAR_DEACTIVATION);
	assert_int_equal(f->out.n2_proc, SMF_N2_RELEASE);
	assert_int_equal(f->out.psi, 3);
	assert_int_equal(ngap_dec_release_command_transfer(f->out.n2, f->out.n2_len, &rt, NULL), 0);
	assert_int_equal(rt.cause.group, NGAP_CAUSE_NAS);
	assert_int_equal(rt.cause.value, NGAP_CAUSE_NAS_NORMAL_RELEASE);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 3, &info), 0);
	assert_int_equal(info.state, SMF_ST_INACTIVE_PENDING);
	/* a second request during the release: ignored (no new command) */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 3, 50, 0), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(fx_n2(f, f->ue1, 3, SMF_N2_RELEASE_RSP), 0);
	assert_int_equal(fx_n2(f, f->ue1, 3, SMF_N2_RELEASE_RSP), -EPROTO);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 3, &info), 0);
	assert_int_equal(info.state, SMF_ST_INACTIVE_PENDING);
	/* complete with a wrong PTI: #81, session kept */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 3, 51, 0), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
	assert_int_equal(m.gsm_status.cause, NAS_5GSM_INVALID_PTI);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 3, 50, 0), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 3, &info), -ENOENT);
	assert_int_equal(smf_pool_usage(f->smf, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.rel_ue, 1);
	assert_int_equal(st.sessions, 0);
	assert_int_equal(f->sends, 0);

	/* a release request for a session that does not exist: reject #43 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 3, 52, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_REJECT);
	assert_int_equal(m.pdu_rel_rej.cause, NAS_5GSM_INVALID_PDU_SESSION_ID);
	/* a release of an idle session goes N1 only (DL NAS Transport) */
	fx_establish(f, f->ue1, 4, "internet", &info);
	smf_up_deactivate(f->smf, f->ue1);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_REQUEST, 4, 60, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(f->out.n2_proc, SMF_N2_NONE);
	assert_int_equal(f->out.n2_len, 0);
	assert_int_equal(f->out.psi, 4);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 4, 60, 0), 0);
	assert_int_equal(smf_ue_psi_map(f->ue1), 0);
}

/* Network-requested release (TS 24.501 6.3.3): through ops.send, PTI 0. */
static void test_release_network(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct nas_msg m;
	struct nas_err err;
	struct smf_stats st;

	fx_establish(f, f->ue1, 6, "internet", &info);
	assert_int_equal(smf_release(f->smf, f->ue1, 6, NAS_5GSM_REACTIVATION_REQUESTED), 0);
	assert_int_equal(f->sends, 1);
	assert_ptr_equal(f->s_cookie, &f->cookie1);
	assert_int_equal(f->s_proc, SMF_N2_RELEASE);
	assert_int_equal(f->s_psi, 6);
	assert_true(f->s_n2_len > 0);
	assert_int_equal(nas_decode(f->s_n1, f->s_n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.pti, 0);
	assert_int_equal(m.pdu_rel_cmd.cause, NAS_5GSM_REACTIVATION_REQUESTED);
	assert_int_equal(smf_release(f->smf, f->ue1, 6, 36), -EBUSY);
	assert_int_equal(smf_release(f->smf, f->ue1, 9, 36), -ENOENT);
	assert_int_equal(fx_n2(f, f->ue1, 6, SMF_N2_RELEASE_RSP), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 6, 0, 0), 0);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.rel_net, 1);
	assert_int_equal(st.sessions, 0);

	/* UE unreachable (the AMF says -EAGAIN): released locally */
	fx_establish(f, f->ue1, 7, "internet", &info);
	smf_up_deactivate(f->smf, f->ue1);
	f->send_rc = -EAGAIN;
	assert_int_equal(smf_release(f->smf, f->ue1, 7, NAS_5GSM_REGULAR_DEACTIVATION), 0);
	assert_int_equal(f->s_proc, SMF_N2_NONE);     /* idle: N1 only */
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 7, &info), -ENOENT);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.rel_local, 1);
	assert_int_equal(st.send_failed, 1);
	assert_int_equal(st.sessions, 0);
}

/* The gNB cannot set the new session up: released by the network (N1 only, #38). */
static void test_setup_unsuccessful(void **state)
{
	struct fx *f = *state;
	struct est_opt o = { .psi = 9, .pti = 4 };
	struct nas_msg m;

	assert_int_equal(fx_est(f, f->ue1, &o), 0);
	assert_int_equal(fx_n2(f, f->ue1, 9, SMF_N2_SETUP_FAIL), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.pdu_rel_cmd.cause, NAS_5GSM_NETWORK_FAILURE);
	assert_int_equal(f->out.n2_proc, SMF_N2_NONE);
	assert_int_equal(f->out.psi, 9);
	/* the UE never saw the accept: it answers 5GSM status #43 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_5GSM_STATUS, 9, 0, NAS_5GSM_INVALID_PDU_SESSION_ID), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(smf_ue_psi_map(f->ue1), 0);
}

/* N2 transfers that do not fit: undecodable, unexpected, unknown session. */
static void test_n2_errors(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct smf_stats st;
	static const uint8_t junk[] = { 0xff, 0xff, 0xff };

	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 1, 5), -EPROTO);        /* already active */
	assert_int_equal(fx_n2(f, f->ue1, 1, SMF_N2_RELEASE_RSP), -EPROTO);
	assert_int_equal(smf_n2_rx(f->smf, f->ue1, 1, SMF_N2_SETUP_RSP, junk, sizeof(junk), &f->out), -EBADMSG);
	assert_int_equal(fx_setup_rsp(f, f->ue1, 2, 5), -ENOENT);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.n2_unexpected, 2);
	assert_int_equal(st.n2_bad, 1);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	assert_int_equal(info.gnb_teid, 0x1001);
}

/* TS 24.501 7.3 / 7.4: 5GSM status for unexpected messages and invalid PSIs. */
static void test_gsm_status(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct smf_stats st;
	struct nas_msg m;
	uint8_t bad_type[] = { NAS_EPD_5GSM, 1, 7, 0xc5 };       /* 0xc5: no such 5GSM message */
	uint8_t short_msg[] = { NAS_EPD_5GSM, 1, 7 };
	uint8_t trunc[] = { NAS_EPD_5GSM, 1, 7, NAS_PDU_SESSION_ESTABLISHMENT_REQUEST };

	/* complete for a session that does not exist: #43 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 4, 8, 0), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
	assert_int_equal(m.psi, 4);
	assert_int_equal(m.pti, 8);
	assert_int_equal(m.gsm_status.cause, NAS_5GSM_INVALID_PDU_SESSION_ID);
	/* the same with a reserved PSI: ignored */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 0, 8, 0), 0);
	assert_int_equal(f->out.n1_len, 0);
	/* unknown message type: #97 */
	assert_int_equal(fx_n1(f, f->ue1, 1, bad_type, sizeof(bad_type)), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
	assert_int_equal(m.gsm_status.cause, NAS_5GSM_MSG_TYPE_NON_EXISTENT);
	/* a network-to-UE message from the UE: #97 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMMAND, 1, 7, 36), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
	assert_int_equal(m.gsm_status.cause, NAS_5GSM_MSG_TYPE_NON_EXISTENT);
	/* too short: ignored */
	assert_int_equal(fx_n1(f, f->ue1, 1, short_msg, sizeof(short_msg)), 0);
	assert_int_equal(f->out.n1_len, 0);
	/* establishment request without its mandatory IE: reject #96 */
	assert_int_equal(fx_n1(f, f->ue1, 1, trunc, sizeof(trunc)), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_INVALID_MANDATORY_INFO);

	fx_establish(f, f->ue1, 1, "internet", &info);
	/* modification complete with no modification running: #98 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, 0, 0), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
	assert_int_equal(m.gsm_status.cause, NAS_5GSM_MSG_TYPE_NOT_COMPATIBLE);
	/* release complete with no release running: #98 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 1, 0, 0), 0);
	fx_dec_n1(f, &m, NAS_5GSM_STATUS);
	assert_int_equal(m.gsm_status.cause, NAS_5GSM_MSG_TYPE_NOT_COMPATIBLE);
	/* UE-requested modification asking for nothing new: answered with a command carrying the granted
	 * session-AMBR, the UE's PTI (tests/smf/test_smf_mod.c has the QoS cases); for a missing session #54 */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_REQUEST, 1, 9, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_MODIFICATION_COMMAND);
	assert_int_equal(m.pti, 9);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, 9, 0), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_REQUEST, 2, 9, 0), 0);
	fx_dec_n1(f, &m, NAS_PDU_SESSION_MODIFICATION_REJECT);
	assert_int_equal(m.pdu_mod_rej.cause, NAS_5GSM_PDU_SESSION_DOES_NOT_EXIST);
	/* the session is untouched by all this */
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	/* a 5GSM STATUS #43 from the UE: local release */
	assert_int_equal(fx_gsm(f, f->ue1, NAS_5GSM_STATUS, 1, 0, NAS_5GSM_INVALID_PDU_SESSION_ID), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), -ENOENT);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.gsm_status_tx, 5);
	assert_int_equal(st.gsm_status_rx, 1);
	assert_int_equal(st.rel_local, 1);
	assert_int_equal(st.n1_ignored, 2);
	/* not an N1 SM payload */
	struct nas_ul_nas_transport ul = { .payload_type = NAS_PAYLOAD_SMS };
	assert_int_equal(smf_n1_rx(f->smf, f->ue1, &ul, &f->out), -EINVAL);
}

static bool t3592_gave_up(struct fx *f)
{
	struct smf_stats st;

	smf_get_stats(f->smf, &st);
	return st.t3592_gave_up > 0;
}

static bool t3591_gave_up(struct fx *f)
{
	struct smf_stats st;

	smf_get_stats(f->smf, &st);
	return st.t3591_gave_up > 0;
}

static bool psi3_retransmitted(struct fx *f)
{
	struct smf_sess_info i;

	return smf_sess_info(f->smf, f->ue1, 3, &i) == 0 && i.retx >= 1;
}

/* T3592: four retransmissions of the release command, then local release. */
static void test_t3592(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct smf_stats st;
	struct nas_msg m;
	struct nas_err err;

	fx_establish(f, f->ue1, 2, "internet", &info);
	assert_int_equal(smf_release(f->smf, f->ue1, 2, NAS_5GSM_REGULAR_DEACTIVATION), 0);
	assert_int_equal(f->sends, 1);
	assert_int_equal(fx_n2(f, f->ue1, 2, SMF_N2_RELEASE_RSP), 0);
	assert_true(fx_run_until(f, t3592_gave_up, 10000));
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.t3592_expired, 5);
	assert_int_equal(f->sends, 1 + 4);
	/* each retransmission: the same command, N1 only */
	assert_int_equal(f->s_proc, SMF_N2_NONE);
	assert_int_equal(nas_decode(f->s_n1, f->s_n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_RELEASE_COMMAND);
	assert_int_equal(m.psi, 2);
	assert_int_equal(m.pdu_rel_cmd.cause, NAS_5GSM_REGULAR_DEACTIVATION);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &info), -ENOENT);
	assert_int_equal(st.rel_local, 1);
	assert_int_equal(st.sessions, 0);

	/* a complete after one retransmission ends it normally */
	fx_establish(f, f->ue1, 3, "internet", &info);
	f->sends = 0;
	assert_int_equal(smf_release(f->smf, f->ue1, 3, NAS_5GSM_REGULAR_DEACTIVATION), 0);
	assert_true(fx_run_until(f, psi3_retransmitted, 10000));
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 3, &info), 0);
	assert_int_equal(info.retx, 1);
	assert_int_equal(f->sends, 2);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_RELEASE_COMPLETE, 3, 0, 0), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 3, &info), -ENOENT);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.rel_net, 1);
}

/* Network-requested modification (session-AMBR): T3591 retransmissions and
 * give-up keep the old AMBR; a complete applies the new one. */
static void test_t3591_modification(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	struct smf_stats st;
	struct nas_msg m;
	struct nas_err err;
	struct ngap_modify_request_transfer mt;

	fx_establish(f, f->ue1, 1, "internet", &info);
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 5000000, 10000000), 0);
	assert_int_equal(f->sends, 1);
	assert_int_equal(f->s_proc, SMF_N2_MODIFY);
	assert_int_equal(nas_decode(f->s_n1, f->s_n1_len, &m, &err), 0);
	assert_int_equal(m.type, NAS_PDU_SESSION_MODIFICATION_COMMAND);
	assert_int_equal(m.pti, 0);
	assert_true(m.pdu_mod_cmd.has_ambr);
	assert_int_equal(ambr_bps(m.pdu_mod_cmd.ambr.ul_unit, m.pdu_mod_cmd.ambr.ul), 5000000);
	assert_int_equal(ambr_bps(m.pdu_mod_cmd.ambr.dl_unit, m.pdu_mod_cmd.ambr.dl), 10000000);
	assert_int_equal(ngap_dec_modify_request_transfer(f->s_n2, f->s_n2_len, &mt, NULL), 0);
	assert_true(mt.has_session_ambr);
	assert_int_equal(mt.session_ambr.ul, 5000000);
	assert_int_equal(mt.session_ambr.dl, 10000000);
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 1, 1), -EBUSY);
	assert_int_equal(fx_n2(f, f->ue1, 1, SMF_N2_MODIFY_RSP), 0);
	assert_true(fx_run_until(f, t3591_gave_up, 10000));
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.t3591_expired, 5);
	assert_int_equal(f->sends, 5);
	assert_int_equal(f->s_proc, SMF_N2_NONE);          /* retransmissions: N1 only */
	assert_int_equal(st.mod_failed, 1);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	assert_int_equal(info.ambr_ul_bps, 100000000);      /* unchanged */

	/* now the UE completes */
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 5000000, 10000000), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMPLETE, 1, 0, 0), 0);
	assert_int_equal(f->out.n1_len, 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
	assert_int_equal(info.ambr_ul_bps, 5000000);
	assert_int_equal(info.ambr_dl_bps, 10000000);
	/* and a command reject keeps the current AMBR */
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 7000000, 7000000), 0);
	assert_int_equal(fx_gsm(f, f->ue1, NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT, 1, 0, 26), 0);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 1, &info), 0);
	assert_int_equal(info.ambr_ul_bps, 5000000);
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.mod_ok, 1);
	assert_int_equal(st.mod_failed, 2);
	/* a release request during a modification takes over */
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 1, 7000000, 7000000), 0);
	release_ue(f, f->ue1, 1);
	assert_int_equal(smf_ue_psi_map(f->ue1), 0);
	/* a reachable-later UE: the AMF says -EAGAIN, nothing changes */
	fx_establish(f, f->ue1, 2, "internet", &info);
	f->send_rc = -EAGAIN;
	assert_int_equal(smf_modify_ambr(f->smf, f->ue1, 2, 1000, 1000), -EAGAIN);
	assert_int_equal(smf_sess_info(f->smf, f->ue1, 2, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
}

/* Deregistration: local release of every session; PDU session status sync. */
static void test_detach_and_sync(void **state)
{
	struct fx *f = *state;
	struct smf_sess_info info;
	uint32_t used, size;

	fx_establish(f, f->ue1, 1, "internet", &info);
	fx_establish(f, f->ue1, 2, "ims", &info);
	fx_establish(f, f->ue1, 3, "internet", &info);
	/* the UE says only 1 and 3 are active */
	assert_int_equal(smf_ue_status_sync(f->smf, f->ue1, (1u << 1) | (1u << 3)), (1u << 1) | (1u << 3));
	assert_int_equal(smf_pool_usage(f->smf, "ims", &used, &size), 0);
	assert_int_equal(used, 0);
	assert_int_equal(smf_ue_detach(f->smf, f->ue1), 2);
	f->ue1 = NULL;
	assert_int_equal(smf_pool_usage(f->smf, "internet", &used, &size), 0);
	assert_int_equal(used, 0);
	struct smf_stats st;
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.sessions, 0);
	assert_int_equal(st.rel_local, 3);
	/* the handle can be reused */
	assert_int_equal(smf_ue_attach(f->smf, SUPI1, &f->cookie1, &f->ue1), 0);
	fx_establish(f, f->ue1, 1, "internet", &info);
}

static uint32_t rnd_state = 12345;
static uint32_t rnd(void)
{
	rnd_state = rnd_state * 1103515245u + 12345u;
	return rnd_state >> 8;
}

/* Untrusted input: 5000 5GSM payloads (valid messages with random bytes changed,
 * cut or extended, and pure noise) and 2000 random N2 transfers. Nothing may
 * crash (ASan/UBSan builds check memory), and the books must balance after
 * every message: sessions == addresses in use. */
static void test_random_input(void **state)
{
	struct fx *f = *state;
	static const uint8_t types[] = {
		NAS_PDU_SESSION_RELEASE_REQUEST, NAS_PDU_SESSION_RELEASE_COMPLETE,
		NAS_PDU_SESSION_MODIFICATION_REQUEST, NAS_PDU_SESSION_MODIFICATION_COMPLETE,
		NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT, NAS_5GSM_STATUS,
	};
	uint8_t est[256], buf[300];
	struct nas_msg m;
	struct smf_stats st;
	uint32_t u1, u2, size;
	int n_est;

	/* a valid establishment request to mutate */
	n_est = enc_min_est_req(1, 1, est, sizeof(est));

	for (int i = 0; i < 7000; i++) {
		size_t len;
		uint8_t psi = (uint8_t)(1 + rnd() % 4);
		if (i >= 5000) {
			len = rnd() % 64;
			for (size_t k = 0; k < len; k++)
				buf[k] = (uint8_t)rnd();
			smf_n2_rx(f->smf, f->ue1, psi, (enum smf_n2_msg)(rnd() % 5), buf, len, &f->out);
		} else {
			switch (rnd() % 4) {
			case 0:     /* a valid request, psi varied, sometimes a valid accept follows */
				memcpy(buf, est, (size_t)n_est);
				buf[1] = psi;
				buf[2] = (uint8_t)(1 + rnd() % 3);
				len = (size_t)n_est;
				break;
			case 1:     /* another valid 5GSM type */
				memset(&m, 0, sizeof(m));
				m.type = types[rnd() % sizeof(types)];
				m.psi = psi;
				m.pti = (uint8_t)(rnd() % 3);
				if (m.type == NAS_5GSM_STATUS)
					m.gsm_status.cause = (uint8_t)rnd();
				{
					int n = nas_encode(&m, buf, sizeof(buf), NULL);
					assert_true(n > 0);
					len = (size_t)n;
				}
				break;
			case 2:     /* mutated */
				memcpy(buf, est, (size_t)n_est);
				len = (size_t)n_est;
				for (int k = 0; k < 3; k++)
					buf[rnd() % len] = (uint8_t)rnd();
				if (rnd() % 2)
					len = rnd() % (len + 1);
				break;
			default:    /* noise behind a 5GSM header */
				len = 4 + rnd() % 60;
				for (size_t k = 0; k < len; k++)
					buf[k] = (uint8_t)rnd();
				buf[0] = NAS_EPD_5GSM;
				break;
			}
			fx_n1(f, f->ue1, buf[1], buf, len);
			if (f->out.n2_proc == SMF_N2_SETUP && rnd() % 2)
				fx_setup_rsp(f, f->ue1, f->out.psi, rnd());
		}
		if (rnd() % 50 == 0)
			smf_up_deactivate(f->smf, f->ue1);
		smf_get_stats(f->smf, &st);
		assert_int_equal(smf_pool_usage(f->smf, "internet", &u1, &size), 0);
		assert_int_equal(smf_pool_usage(f->smf, "ims", &u2, &size), 0);
		assert_int_equal(st.sessions, u1 + u2);
		assert_true(st.sessions <= SMF_PSI_MAX);
	}
	smf_get_stats(f->smf, &st);
	printf("random input: %lu accepted, %lu rejected, %lu status sent, %lu ignored, %lu bad N2\n",
	       (unsigned long)st.est_accepted, (unsigned long)st.est_rejected, (unsigned long)st.gsm_status_tx,
	       (unsigned long)st.n1_ignored, (unsigned long)st.n2_bad);
	assert_true(st.est_accepted > 0);
	assert_int_equal(smf_ue_detach(f->smf, f->ue1), (int)st.sessions);
	f->ue1 = NULL;
	smf_get_stats(f->smf, &st);
	assert_int_equal(st.sessions, 0);
}

/* A pool that does not parse, or no loop: smf_new refuses. */
static void test_bad_pool_config(void **state)
{
	struct conf c;
	struct smf_params p = { .conf = &c };
	int err = 0;
	struct ev_loop *loop = ev_loop_new(&err);

	(void)state;
	assert_int_equal(conf_defaults(&c), 0);
	snprintf(c.dnns[0].pool, sizeof(c.dnns[0].pool), "10.0.0.0/33");
	p.loop = loop;
	p.max_sessions = 8;
	p.max_ues = 2;
	assert_null(smf_new(&p, &err));
	assert_int_equal(err, -EINVAL);
	p.loop = NULL;
	assert_null(smf_new(&p, &err));
	assert_int_equal(err, -EINVAL);
	ev_loop_free(loop);
	smf_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_establish_fields, setup, teardown),
		cmocka_unit_test_setup_teardown(test_establish_defaults, setup, teardown),
		cmocka_unit_test_setup_teardown(test_establish_malformed_optional_ie, setup, teardown),
		cmocka_unit_test_setup_teardown(test_establish_ipv4v6, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_causes, setup, teardown),
		cmocka_unit_test_setup_teardown(test_reject_unknown_subscriber, setup, teardown),
		cmocka_unit_test(test_reject_max_sessions),
		cmocka_unit_test_setup_teardown(test_pool_exhaustion_reuse, setup, teardown),
		cmocka_unit_test_setup_teardown(test_duplicate_psi, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deactivate_reactivate, setup, teardown),
		cmocka_unit_test_setup_teardown(test_deactivate_races, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_ue, setup, teardown),
		cmocka_unit_test_setup_teardown(test_release_network, setup, teardown),
		cmocka_unit_test_setup_teardown(test_setup_unsuccessful, setup, teardown),
		cmocka_unit_test_setup_teardown(test_n2_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_gsm_status, setup, teardown),
		cmocka_unit_test_setup_teardown(test_t3592, setup, teardown),
		cmocka_unit_test_setup_teardown(test_t3591_modification, setup, teardown),
		cmocka_unit_test_setup_teardown(test_detach_and_sync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_random_input, setup, teardown),
		cmocka_unit_test(test_bad_pool_config),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
