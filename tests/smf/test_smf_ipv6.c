/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * IPv6 and IPv4v6 PDU sessions in the SMF (issue 19 item 1; TS 24.501 6.4.1, TS 23.501
 * 5.8.2.2). The fixture's "internet" DNN gets pool6 2001:db8:45::/62 (four /64s) and an IPv6
 * DNS server next to its IPv4 ones; "ims" has no pool6.
 *   - IPv6 asked on internet: granted, PDU address = interface identifier (9.11.4.10), a /64 of
 *     its own, no IPv4 address; ePCO 0003H answered with the IPv6 DNS server only; the N2
 *     transfer's PDU Session Type ipv6 (TS 38.413 9.3.1.52).
 *   - IPv4v6 on internet: both, IID + IPv4 in the PDU address, no #50.
 *   - IPv6 on ims (no pool6): PDU SESSION ESTABLISHMENT REJECT #50 "IPv4 only allowed";
 *     IPv4v6 there: IPv4 with #50 (6.4.1.3).
 *   - the pool6 exhausted: #26; a release gives the /64 back (O(1), no leak).
 * The accepts go into a pcap that tshark's NAS-5GS dissector decodes (argv[1] tshark, argv[2]
 * build dir); without tshark the test says so and exits 77.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/nas/nas.h"
#include "common/ngap/ngap.h"
#include "smf/smf.h"
#include "smf/smf_int.h"   /* smf_pool6_*, tested directly below */
#include "testlib.h"
#include "smf_fx.h"

static const char *tshark_path;
static char pcap_path[512];
static struct pcapw *W;
static struct fx *F;

static void edit(struct conf *c)
{
	snprintf(c->dnns[0].pool6, sizeof(c->dnns[0].pool6), "2001:db8:45::/62");
	c->dnns[0].nat = true;   /* issue 19 item 3: NAT of the IPv4 part */
}

static int setup(void **state)
{
	(void)state;
	fx_conf_edit = edit;
	F = fx_new(64, 15);
	fx_conf_edit = NULL;
	return F ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	fx_free(F);
	return 0;
}

/* The accept in F->out: decoded, recorded for tshark; its PDU session type returned */
static uint8_t est_accept(struct nas_msg *m)
{
	fx_dec_n1(F, m, NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT);
	assert_int_equal(pcapw_upper(W, "nas-5gs", F->out.n1, F->out.n1_len), 0);
	return m->pdu_est_acc.pdu_session_type;
}

static uint8_t n2_type(void)
{
	struct ngap_setup_request_transfer t;

	assert_int_equal(F->out.n2_proc, SMF_N2_SETUP);
	assert_int_equal(ngap_dec_setup_request_transfer(F->out.n2, F->out.n2_len, &t, NULL), 0);
	return (uint8_t)t.pdu_session_type;
}

static const uint8_t *pco_item(const struct nas_msg *m, uint16_t id, unsigned nth, uint8_t *len)
{
	static struct nas_pco pco;
	struct nas_err err;
	unsigned k = 0;

	if (!m->pdu_est_acc.has_epco)
		return NULL;
	assert_int_equal(nas_pco_dec(m->pdu_est_acc.epco.p, m->pdu_est_acc.epco.len, &pco, &err), 0);
	for (unsigned i = 0; i < pco.n; i++)
		if (pco.it[i].id == id && k++ == nth) {
			*len = (uint8_t)pco.it[i].v.len;
			return pco.it[i].v.p;
		}
	return NULL;
}

/* TS 24.501 6.4.1.3, 9.11.4.10; TS 23.501 5.8.2.2.1 */
static void t_ipv6(void **state)
{
	struct est_opt o = { .psi = 1, .pti = 1, .type = NAS_PDU_IPV6, .dns6 = true };
	struct smf_sess_info info;
	struct nas_msg m;
	uint8_t len, want[16];
	const uint8_t *v;

	(void)state;
	assert_int_equal(fx_est(F, F->ue1, &o), 0);
	assert_int_equal(est_accept(&m), NAS_PDU_IPV6);
	assert_false(m.pdu_est_acc.has_cause);
	assert_int_equal(m.pdu_est_acc.pdu_address.type, NAS_PDU_IPV6);
	assert_int_equal(n2_type(), NGAP_PDU_IPV6);
	assert_int_equal(smf_sess_info(F->smf, F->ue1, 1, &info), 0);
	assert_int_equal(info.ue_addr, 0);   /* no IPv4 address taken */
	assert_false(info.nat);              /* nothing to NAT */
	assert_memory_equal(m.pdu_est_acc.pdu_address.ipv6_iid, info.ue_iid6, 8);
	assert_memory_not_equal(info.ue_iid6, "\0\0\0\0\0\0\0\0", 8);
	assert_memory_equal(info.ue_prefix6, "\x20\x01\x0d\xb8\x00\x45\x00\x00", 8);
	/* ePCO: the IPv6 DNS server only (an IPv6 session has no use for IPv4 servers) */
	v = pco_item(&m, NAS_PCO_DNS_IPV6, 0, &len);
	assert_non_null(v);
	assert_int_equal(len, 16);
	inet_pton(AF_INET6, "2001:db8::1", want);
	assert_memory_equal(v, want, 16);
	assert_null(pco_item(&m, NAS_PCO_DNS_IPV4, 0, &len));
	assert_int_equal(fx_setup_rsp(F, F->ue1, 1, 0x501), 0);
	assert_int_equal(smf_sess_info(F->smf, F->ue1, 1, &info), 0);
	assert_int_equal(info.state, SMF_ST_ACTIVE);
}

/* IPv4v6 where the DNN has both: both granted, no #50 */
static void t_ipv4v6(void **state)
{
	struct est_opt o = { .psi = 2, .pti = 2, .type = NAS_PDU_IPV4V6, .dns6 = true };
	struct smf_sess_info info;
	struct nas_msg m;
	uint8_t len;

	(void)state;
	assert_int_equal(fx_est(F, F->ue1, &o), 0);
	assert_int_equal(est_accept(&m), NAS_PDU_IPV4V6);
	assert_false(m.pdu_est_acc.has_cause);
	assert_int_equal(m.pdu_est_acc.pdu_address.type, NAS_PDU_IPV4V6);
	assert_int_equal(n2_type(), NGAP_PDU_IPV4V6);
	assert_int_equal(smf_sess_info(F->smf, F->ue1, 2, &info), 0);
	assert_int_equal(ntohl(info.ue_addr) >> 16, 0x0a2d);   /* 10.45/16 */
	assert_memory_equal(m.pdu_est_acc.pdu_address.ipv4, &info.ue_addr, 4);
	assert_true(info.nat);               /* dnns[0].nat: the IPv4 part is NATed on N6 */
	assert_memory_equal(m.pdu_est_acc.pdu_address.ipv6_iid, info.ue_iid6, 8);
	assert_non_null(pco_item(&m, NAS_PCO_DNS_IPV6, 0, &len));
	assert_non_null(pco_item(&m, NAS_PCO_DNS_IPV4, 0, &len));
}

/* A DNN without pool6: IPv6 refused with #50, IPv4v6 narrowed with #50 (6.4.1.3) */
static void t_no_pool6(void **state)
{
	struct est_opt o = { .psi = 3, .pti = 3, .type = NAS_PDU_IPV6, .dnn = "ims" };
	struct nas_msg m;

	(void)state;
	assert_int_equal(fx_est(F, F->ue1, &o), 0);
	fx_dec_n1(F, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED);
	o.type = NAS_PDU_IPV4V6;
	assert_int_equal(fx_est(F, F->ue1, &o), 0);
	assert_int_equal(est_accept(&m), NAS_PDU_IPV4);
	assert_true(m.pdu_est_acc.has_cause);
	assert_int_equal(m.pdu_est_acc.cause, NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED);
	assert_int_equal(m.pdu_est_acc.pdu_address.type, NAS_PDU_IPV4);
	{
		struct smf_sess_info info;

		assert_int_equal(smf_sess_info(F->smf, F->ue1, 3, &info), 0);
		assert_false(info.nat);          /* ims has no nat */
	}
}

/* Four /64s: the fifth session is refused with #26 and takes no IPv4 address with it; a
 * released session's /64 is given out again */
static void t_exhausted(void **state)
{
	struct smf_sess_info info;
	struct smf_stats st;
	struct nas_msg m;
	uint32_t used, size;
	uint8_t first[8];

	(void)state;
	for (uint8_t psi = 1; psi <= 4; psi++) {
		struct est_opt o = { .psi = psi, .pti = psi, .type = NAS_PDU_IPV6 };

		assert_int_equal(fx_est(F, F->ue1, &o), 0);
		assert_int_equal(est_accept(&m), NAS_PDU_IPV6);
	}
	assert_int_equal(smf_sess_info(F->smf, F->ue1, 1, &info), 0);
	memcpy(first, info.ue_prefix6, 8);
	assert_int_equal(smf_pool_usage(F->smf, "internet", &used, &size), 0);
	struct est_opt o5 = { .psi = 5, .pti = 5, .type = NAS_PDU_IPV4V6 };

	assert_int_equal(fx_est(F, F->ue1, &o5), 0);
	fx_dec_n1(F, &m, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(m.pdu_est_rej.cause, NAS_5GSM_INSUFFICIENT_RESOURCES);
	{
		uint32_t u2, s2;

		assert_int_equal(smf_pool_usage(F->smf, "internet", &u2, &s2), 0);
		assert_int_equal(u2, used);   /* the IPv4 address of the refused IPv4v6 went back */
	}
	/* local release of session 1 (status sync without it): its /64 is the next one given */
	assert_int_equal(smf_ue_status_sync(F->smf, F->ue1, 0x1c), 0x1c);
	struct est_opt o6 = { .psi = 6, .pti = 6, .type = NAS_PDU_IPV6 };

	assert_int_equal(fx_est(F, F->ue1, &o6), 0);
	assert_int_equal(est_accept(&m), NAS_PDU_IPV6);
	assert_int_equal(smf_sess_info(F->smf, F->ue1, 6, &info), 0);
	assert_memory_equal(info.ue_prefix6, first, 8);
	smf_get_stats(F->smf, &st);
	assert_int_equal(st.est_rej_cause[NAS_5GSM_INSUFFICIENT_RESOURCES], 1);
	/* every session gone: detach frees all four /64s (a fifth session fits again) */
	assert_int_equal(smf_ue_detach(F->smf, F->ue1), 4);
}

static int group_setup(void **state)
{
	(void)state;
	W = pcapw_open(pcap_path, PCAPW_EXPORTED_PDU);
	return W ? 0 : -1;
}

/* tshark's NAS-5GS dissector reads the accepts as we meant them */
static int group_teardown(void **state)
{
	(void)state;
	if (pcapw_close(W))
		return -1;
	if (tshark_expert(tshark_path, pcap_path, NULL) != 0)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y _ws.malformed", NULL) != 0)
		return -1;
	/* 9.11.4.11 PDU session type 2 (IPv6) / 3 (IPv4v6) with the IID decoded */
	if (tshark_lines(tshark_path, pcap_path, "-Y 'nas_5gs.sm.pdu_ses_type == 2 && nas_5gs.sm.pdu_addr_inf_ipv6'",
			 NULL) < 1)
		return -1;
	if (tshark_lines(tshark_path, pcap_path,
			 "-Y 'nas_5gs.sm.pdu_ses_type == 3 && nas_5gs.sm.pdu_addr_inf_ipv4 && nas_5gs.sm.pdu_addr_inf_ipv6'",
			 NULL) < 1)
		return -1;
	if (tshark_lines(tshark_path, pcap_path, "-Y 'gsm_a.gm.sm.pco.dns.ipv6 == 2001:db8::1'", NULL) < 1)
		return -1;
	return 0;
}

/* The shortest pool6, a /44 (TS 23.501 5.8.2.2.1: a /64 per session): all 1,048,576 /64s handed
 * out once each, inside the pool (the 20 index bits in octets 5..7), and taken back; a /64 of
 * another pool is refused; /43 is refused at init. */
static void t_pool6_44(void **state)
{
	enum { N = 1 << 20 };
	struct smf_pool p;
	uint8_t pfx[8], *seen = calloc(N / 8, 1);

	(void)state;
	assert_non_null(seen);
	assert_int_equal(smf_pool6_init(&p, "2001:db8:40::/43", 16), -EINVAL);
	assert_int_equal(smf_pool6_init(&p, "2001:db8:40::/44", N), 0);
	for (uint32_t i = 0; i < N; i++) {
		uint32_t off;

		assert_int_equal(smf_pool6_alloc(&p, pfx), 0);
		assert_memory_equal(pfx, "\x20\x01\x0d\xb8\x00", 5);
		assert_int_equal(pfx[5] & 0xf0, 0x40);
		off = (uint32_t)(pfx[5] & 0x0f) << 16 | (uint32_t)pfx[6] << 8 | pfx[7];
		assert_false(seen[off / 8] & (1u << (off % 8)));
		seen[off / 8] |= (uint8_t)(1u << (off % 8));
	}
	assert_int_equal(smf_pool6_alloc(&p, pfx), -ENOSPC);
	memcpy(pfx, "\x20\x01\x0d\xb8\x00\x5f\xff\xff", 8);   /* next to it, outside */
	assert_int_equal(smf_pool6_free(&p, pfx), -EINVAL);
	memcpy(pfx, "\x20\x01\x0d\xb8\x00\x4f\xff\xff", 8);   /* its last /64 */
	assert_int_equal(smf_pool6_free(&p, pfx), 0);
	assert_int_equal(smf_pool6_alloc(&p, pfx), 0);
	assert_memory_equal(pfx, "\x20\x01\x0d\xb8\x00\x4f\xff\xff", 8);
	smf_pool_fini(&p);
	free(seen);
}

int main(int argc, char **argv)
{
	int rc;

	tshark_path = argc > 1 ? argv[1] : "tshark";
	rc = tshark_require(tshark_path, "check the IPv6 accepts");
	if (rc)
		return rc;
	snprintf(pcap_path, sizeof(pcap_path), "%s/smf_ipv6.pcap", argc > 2 ? argv[2] : ".");
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(t_ipv6, setup, teardown),
		cmocka_unit_test_setup_teardown(t_ipv4v6, setup, teardown),
		cmocka_unit_test_setup_teardown(t_no_pool6, setup, teardown),
		cmocka_unit_test_setup_teardown(t_exhausted, setup, teardown),
		cmocka_unit_test(t_pool6_44),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
