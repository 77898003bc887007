/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NAS codec: round trip of every message with no optional IE, each optional
 * IE alone and all of them; IE codecs one by one; bad input (truncated,
 * overlong, wrong length, out of range, unknown) gives an error with an
 * offset and a reason; encoders never write past their buffer.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/nas/nas_int.h"
#include "nas_sample.h"

static uint8_t b1[8192], b2[8192];
static char s1[16384], s2[16384];

/* encode m, decode, re-encode: same bytes, same to_str, same has_ flags */
static void roundtrip(const struct nas_msg *m, const char *what)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(m->type);
	struct nas_msg d;
	struct nas_err e;
	int n1, n2;

	n1 = nas_encode(m, b1, sizeof(b1), &e);
	if (n1 < 0)
		fail_msg("%s %s: encode %d (%s: %s)", md->name, what, n1, e.ie ? e.ie : "-", e.reason);
	if (nas_decode(b1, (size_t)n1, &d, &e) < 0)
		fail_msg("%s %s: decode at %zu: %s (%s)", md->name, what, e.off, e.reason, e.ie ? e.ie : "-");
	n2 = nas_encode(&d, b2, sizeof(b2), &e);
	assert_int_equal(n1, n2);
	assert_memory_equal(b1, b2, (size_t)n1);
	assert_true(nas_msg_to_str(m, s1, sizeof(s1)) > 0);
	assert_true(nas_msg_to_str(&d, s2, sizeof(s2)) > 0);
	assert_string_equal(s1, s2);
	for (unsigned i = 0; i < md->n_ies; i++)
		if (md->ies[i].has >= 0)
			assert_int_equal(*(const bool *)((const uint8_t *)m + md->ies[i].has),
					 *(const bool *)((const uint8_t *)&d + md->ies[i].has));
	assert_int_equal(d.psi, m->psi);
	assert_int_equal(d.pti, m->pti);
}

static void test_roundtrip_all_messages(void **st)
{
	uint8_t types[64];
	int nt = nas_sample_types(types, 64);
	struct nas_msg m;
	(void)st;

	assert_int_equal(nt, 39);       /* every message of the brief */
	for (int i = 0; i < nt; i++) {
		assert_int_equal(nas_sample_fill(&m, types[i], 0), 0);
		roundtrip(&m, "no optional IE");
		assert_int_equal(nas_sample_fill(&m, types[i], 1), 0);
		roundtrip(&m, "all optional IEs");
		for (int k = 0; k < nas_sample_n_opt(types[i]); k++) {
			assert_int_equal(nas_sample_fill_one(&m, types[i], k), 0);
			roundtrip(&m, "one optional IE");
		}
	}
}

/* Truncation anywhere inside the mandatory part is an error with a reason;
 * any prefix decodes or fails cleanly; encoders respect cap exactly. */
static void test_truncation_and_short_buffers(void **st)
{
	uint8_t types[64];
	int nt = nas_sample_types(types, 64);
	struct nas_msg m, d;
	struct nas_err e;
	(void)st;

	for (int i = 0; i < nt; i++) {
		nas_sample_fill(&m, types[i], 0);
		int nmand = nas_encode(&m, b1, sizeof(b1), NULL);
		nas_sample_fill(&m, types[i], 1);
		int n = nas_encode(&m, b1, sizeof(b1), NULL);
		assert_true(nmand > 0 && n >= nmand);
		for (int l = 0; l < n; l++) {
			int r = nas_decode(b1, (size_t)l, &d, &e);
			if (l < nmand)
				assert_int_equal(r, -EBADMSG);
			if (r < 0) {
				assert_non_null(e.reason);
				assert_true(e.off <= (size_t)l);
			}
		}
		for (int cap = 0; cap < n; cap++) {
			memset(b2, 0xa5, sizeof(b2));
			assert_int_equal(nas_encode(&m, b2, (size_t)cap, NULL), -ENOSPC);
			for (size_t k = (size_t)cap; k < (size_t)n + 16; k++)
				assert_int_equal(b2[k], 0xa5);
		}
	}
}

struct bad { const char *name; const char *hex; int err; size_t off; };
static size_t unhex(const char *hex, uint8_t *buf);

static const struct bad bad_inputs[] = {
	{ "empty", "", -EBADMSG, 0 },
	{ "unknown EPD", "12 00 41", -ENOMSG, 0 },
	{ "unknown 5GMM message type", "7e 00 99", -ENOMSG, 2 },
	{ "5GSM type under 5GMM EPD", "7e 00 c1", -ENOMSG, 2 },
	{ "5GMM type under 5GSM EPD", "2e 01 01 41", -ENOMSG, 3 },
	{ "security protected to nas_decode", "7e 02 00 00 00 00 01 7e 00 43", -EPROTO, 1 },
	{ "truncated 5GSM header", "2e 01 01", -EBADMSG, 3 },
	{ "registration request without identity", "7e 00 41 79", -EBADMSG, 4 },
	{ "mobile identity length past the end", "7e 00 41 79 00 0b f2 00 f1 10", -EBADMSG, 4 },
	{ "5G-GUTI of wrong length", "7e 00 41 79 00 05 f2 00 f1 10 01", -EBADMSG, 6 },
	{ "5G-GUTI PLMN digit out of range", "7e 00 41 79 00 0b f2 0a f1 10 01 00 40 00 00 00 01", -ERANGE, 7 },
	{ "IMEI digit not BCD", "7e 00 5c 00 08 3b 45 67 89 01 23 45 6a", -ERANGE, 12 },
	{ "SUCI reserved SUPI format", "7e 00 5c 00 02 71 00", -ERANGE, 5 },
	{ "SUCI profile A output too short", "7e 00 5c 00 0a 01 00 f1 10 00 00 01 01 aa bb", -EBADMSG, 13 },
	{ "UE security capability length 3", "7e 00 41 79 00 01 00 2e 03 80 20 00", -EBADMSG, 9 },
	{ "UE security capability overlong", "7e 00 41 79 00 01 00 2e 09 80 20 00 00 00 00 00 00 00", -EBADMSG, 9 },
	{ "S-NSSAI length 3", "7e 00 67 01 00 01 00 22 03 01 02 03", -EBADMSG, 9 },
	{ "TLV past the end", "7e 00 67 01 00 01 00 25 09 08 69", -EBADMSG, 7 },
	{ "RAND truncated", "7e 00 56 00 02 00 00 21 00 11 22", -EBADMSG, 7 },
	{ "AUTN wrong length", "7e 00 56 00 02 00 00 20 02 00 11", -EBADMSG, 9 },
	{ "unknown comprehension-required IE", "7e 00 43 05 01 00", -EPROTO, 3 },
	{ "TAI list reserved type", "7e 00 42 01 01 54 07 60 00 f1 10 00 00 01", -ERANGE, 7 },
	{ "TAI list partial list truncated", "7e 00 42 01 01 54 07 01 00 f1 10 00 00 01", -EBADMSG, 7 },
	{ "registration result length 2", "7e 00 42 02 01 01", -EBADMSG, 4 },
	{ "PDU address type not IP", "2e 05 01 c2 11 00 04 01 00 01 01 06 06 03 e8 06 03 e8 29 05 04 0a 00 00 01", -ERANGE, 20 },
	{ "PDU address length vs type", "2e 05 01 c2 11 00 04 01 00 01 01 06 06 03 e8 06 03 e8 29 06 01 0a 00 00 01 00", -EBADMSG, 20 },
	{ "session-AMBR unit 0", "2e 05 01 c2 11 00 04 01 00 01 01 06 00 03 e8 06 03 e8", -ERANGE, 12 },
	{ "session-AMBR wrong length", "2e 05 01 c2 11 00 04 01 00 01 01 05 06 03 e8 06 03", -EBADMSG, 12 },
	{ "5GSM cause missing", "2e 05 01 d6", -EBADMSG, 4 },
	{ "network name reserved coding", "7e 00 54 43 02 e0 41", -ERANGE, 5 },
};

static void test_bad_inputs(void **st)
{
	uint8_t buf[256];
	struct nas_msg m;
	struct nas_err e;
	(void)st;

	for (size_t i = 0; i < sizeof(bad_inputs) / sizeof(bad_inputs[0]); i++) {
		const struct bad *b = &bad_inputs[i];
		size_t n = 0;
		for (const char *p = b->hex; *p;) {
			unsigned v;
			if (*p == ' ') { p++; continue; }
			assert_int_equal(sscanf(p, "%2x", &v), 1);
			buf[n++] = (uint8_t)v;
			p += 2;
		}
		int r = nas_decode(buf, n, &m, &e);
		if (r != b->err || e.off != b->off)
			fail_msg("%s: got %d at %zu (%s), want %d at %zu", b->name, r, e.off, e.reason ? e.reason : "-",
				 b->err, b->off);
		assert_non_null(e.reason);
	}
}

static void test_unknown_and_repeated_ies(void **st)
{
	/* registration complete + unknown TLV 5a, unknown TLV-E 7f, unknown type-1 c1 */
	static const uint8_t unk[] = { 0x7e, 0x00, 0x43, 0x5a, 0x02, 0xaa, 0xbb, 0x7f, 0x00, 0x01, 0xcc, 0xc1 };
	/* authentication response with RES* twice: the first one counts (TS 24.501 7.6.3) */
	uint8_t rep[3 + 2 * 18] = { 0x7e, 0x00, 0x57 };
	struct nas_msg m;
	struct nas_err e;
	(void)st;

	assert_int_equal(nas_decode(unk, sizeof(unk), &m, &e), 0);
	assert_false(m.reg_cpl.has_sor_container);
	for (int k = 0; k < 2; k++) {
		rep[3 + 18 * k] = 0x2d;
		rep[4 + 18 * k] = 16;
		memset(rep + 5 + 18 * k, k + 1, 16);
	}
	assert_int_equal(nas_decode(rep, sizeof(rep), &m, &e), 0);
	assert_int_equal(m.auth_resp.res_star.p[0], 1);
}

static void test_security_header(void **st)
{
	uint8_t msg[] = { 0x7e, 0x02, 0x01, 0x02, 0x03, 0x04, 0x05, 0x7e, 0x00, 0x43 };
	struct nas_sec_hdr h;
	struct nas_err e;
	uint8_t epd, sht;
	(void)st;

	assert_int_equal(nas_peek(msg, sizeof(msg), &epd, &sht), 0);
	assert_int_equal(sht, 2);
	assert_int_equal(nas_sec_decode(msg, sizeof(msg), &h, &e), 0);
	assert_int_equal(h.mac, 0x01020304);
	assert_int_equal(h.sqn, 5);
	assert_int_equal(h.msg.len, 3);
	assert_int_equal(nas_sec_decode(msg, 7, &h, &e), -EBADMSG);  /* no inner message */
	msg[1] = 5;
	assert_int_equal(nas_sec_decode(msg, sizeof(msg), &h, &e), -ERANGE);
	assert_int_equal(e.off, 1);
	msg[1] = 0;
	assert_int_equal(nas_sec_decode(msg, sizeof(msg), &h, &e), -EPROTO);
	msg[0] = 0x2e;
	assert_int_equal(nas_sec_decode(msg, sizeof(msg), &h, &e), -ENOMSG);
	/* over NAS_MSG_MAX_LEN: refused before anything is read */
	static uint8_t big[NAS_MSG_MAX_LEN + 1] = { 0x7e, 0x02 };
	struct nas_msg m;
	assert_int_equal(nas_sec_decode(big, sizeof(big), &h, &e), -EBADMSG);
	assert_int_equal(e.off, NAS_MSG_MAX_LEN);
	big[1] = 0;
	assert_int_equal(nas_decode(big, sizeof(big), &m, &e), -EBADMSG);
	assert_int_equal(e.off, NAS_MSG_MAX_LEN);
	assert_int_equal(nas_peek(big, 0, &epd, &sht), -EBADMSG);
	big[0] = 0x12;
	assert_int_equal(nas_peek(big, 1, &epd, &sht), -ENOMSG);
	assert_int_equal(nas_sec_decode((const uint8_t[]){ 0x7e }, 1, &h, &e), -EBADMSG);
	assert_int_equal(nas_sec_hdr_enc(b1, 6, 2, 0, 0), -ENOSPC);
	assert_int_equal(nas_sec_hdr_enc(b1, 7, 0, 0, 0), -EINVAL);
}

static void mobid_rt(const struct nas_mobile_id *id, const char *want)
{
	struct nas_mobile_id d;
	char s[256];
	int n = nas_mobile_id_enc(id, b1, sizeof(b1));
	assert_true(n > 0);
	assert_int_equal(nas_mobile_id_dec(b1, (size_t)n, &d, NULL), 0);
	assert_int_equal(nas_mobile_id_enc(&d, b2, sizeof(b2)), n);
	assert_memory_equal(b1, b2, (size_t)n);
	nas_mobile_id_to_str(&d, s, sizeof(s));
	assert_string_equal(s, want);
}

static void test_mobile_identities(void **st)
{
	static const uint8_t eph[33 + 5 + 8] = { 0x02 };
	static const uint8_t nai[] = "user@example.org";
	struct nas_mobile_id id;
	struct nas_buf ek, ct, mac;
	(void)st;

	memset(&id, 0, sizeof(id));
	id.type = NAS_MOBID_5G_GUTI;
	id.guti = (struct nas_guti){ { 999, 70, 0 }, 0xca, 0x3f8, 0x21, 0xdeadbeef };
	mobid_rt(&id, "5g-guti{plmn=999-70 region=202 set=1016 ptr=33 tmsi=0xdeadbeef}");
	assert_int_equal(b1[0], 0xf2);
	id.type = NAS_MOBID_5G_S_TMSI;
	mobid_rt(&id, "5g-s-tmsi{set=1016 ptr=33 tmsi=0xdeadbeef}");
	assert_int_equal(nas_mobile_id_enc(&id, b1, sizeof(b1)), 7);
	memset(&id, 0, sizeof(id));
	id.type = NAS_MOBID_IMEI;
	strcpy(id.digits.d, "490154203237518");
	id.digits.n = 15;
	mobid_rt(&id, "imei-490154203237518");
	assert_int_equal(b1[0], 0x4b);  /* digit 4, odd, type 3 */
	id.type = NAS_MOBID_IMEISV;
	strcpy(id.digits.d, "4901542032375181");
	id.digits.n = 16;
	mobid_rt(&id, "imeisv-4901542032375181");
	assert_int_equal(b1[8], 0xf1);  /* filler */
	memset(&id, 0, sizeof(id));
	id.type = NAS_MOBID_SUCI;
	id.suci.plmn = (struct nas_plmn){ 310, 410, 1 };
	memcpy(id.suci.rid, (uint8_t[]){ 1, 2, 3, 4 }, 4);
	id.suci.scheme = NAS_SUCI_PROFILE_B;
	id.suci.hn_key_id = 3;
	id.suci.output = (struct nas_buf){ eph, sizeof(eph) };
	assert_int_equal(nas_suci_ecies_parts(&id.suci, &ek, &ct, &mac), 0);
	assert_int_equal(ct.len, 5);
	assert_int_equal(nas_mobile_id_enc(&id, b1, sizeof(b1)), 8 + (int)sizeof(eph));
	assert_memory_equal(b1, ((uint8_t[]){ 0x01, 0x13, 0x00, 0x14, 0x21, 0x43, 0x02, 0x03 }), 8);
	memset(&id, 0, sizeof(id));
	id.type = NAS_MOBID_SUCI;
	id.suci.supi_format = 1;
	id.suci.nai = (struct nas_buf){ nai, sizeof(nai) - 1 };
	mobid_rt(&id, "suci{nai=user@example.org}");
	memset(&id, 0, sizeof(id));
	id.type = NAS_MOBID_NONE;
	assert_int_equal(nas_mobile_id_enc(&id, b1, sizeof(b1)), 1);
	assert_int_equal(b1[0], 0);
	id.type = NAS_MOBID_IMEI;       /* no digits: cannot be encoded */
	assert_int_equal(nas_mobile_id_enc(&id, b1, sizeof(b1)), -EINVAL);
}

static void test_tai_list_types(void **st)
{
	struct nas_tai_list t, d;
	char s[256];
	(void)st;

	memset(&t, 0, sizeof(t));
	t.n = 3;
	for (int i = 0; i < 3; i++)
		t.tai[i] = (struct nas_tai){ { 1, 1, 0 }, 0x10 + (uint32_t)i };
	t.n_lists = 1;
	t.lists[0].type = 1;            /* consecutive TACs */
	t.lists[0].n = 3;
	assert_int_equal(nas_tai_list_enc(&t, b1, sizeof(b1)), 7);
	assert_int_equal(b1[0], 0x22);
	assert_int_equal(nas_tai_list_dec(b1, 7, &d, NULL), 0);
	assert_int_equal(d.n, 3);
	assert_int_equal(d.tai[2].tac, 0x12);
	t.tai[2].plmn.mcc = 2;          /* type 1 needs one PLMN */
	assert_int_equal(nas_tai_list_enc(&t, b1, sizeof(b1)), -EINVAL);
	t.n_lists = 0;                  /* automatic: two PLMNs -> type 2 */
	assert_int_equal(nas_tai_list_enc(&t, b1, sizeof(b1)), 1 + 18);
	assert_int_equal(b1[0], 0x42);
	assert_int_equal(nas_tai_list_dec(b1, 19, &d, NULL), 0);
	nas_tai_list_to_str(&d, s, sizeof(s));
	assert_string_equal(s, "[001-01/000010,001-01/000011,002-01/000012]");
	/* 17 TAIs in one type-1 list is over NAS_TAI_MAX */
	static const uint8_t big[] = { 0x30, 0x00, 0xf1, 0x10, 0x00, 0x00, 0x01 };
	assert_int_equal(nas_tai_list_dec(big, sizeof(big), &d, NULL), -E2BIG);
}

static void test_nssai_limits(void **st)
{
	uint8_t v[2 * (NAS_NSSAI_MAX + 1)];
	struct nas_nssai s;
	struct nas_snssai one = { .sst = 1, .has_sd = 1, .sd = 0xabcdef, .has_mapped_sst = 1, .mapped_sst = 2,
				  .has_mapped_sd = 1, .mapped_sd = 0x123456 };
	struct nas_snssai d;
	char str[128];
	(void)st;

	for (int i = 0; i <= NAS_NSSAI_MAX; i++) {
		v[2 * i] = 1;
		v[2 * i + 1] = (uint8_t)i;
	}
	assert_int_equal(nas_nssai_dec(v, sizeof(v) - 2, &s, NULL), 0);
	assert_int_equal(s.n, NAS_NSSAI_MAX);
	assert_int_equal(nas_nssai_dec(v, sizeof(v), &s, NULL), -E2BIG);
	assert_int_equal(nas_snssai_enc(&one, b1, sizeof(b1)), 8);
	assert_int_equal(nas_snssai_dec(b1, 8, &d, NULL), 0);
	nas_snssai_to_str(&d, str, sizeof(str));
	assert_string_equal(str, "sst=1/sd=abcdef(mapped sst=2/sd=123456)");
	one.has_mapped_sst = 0;         /* mapped SD without mapped SST */
	assert_int_equal(nas_snssai_enc(&one, b1, sizeof(b1)), -EINVAL);
}

static void test_qos_rules_and_flows(void **st)
{
	static const uint8_t pf[] = { 0x01 };   /* match-all */
	struct nas_qos_rules r, d;
	struct nas_qos_flows f, fd;
	static const uint8_t five_qi[] = { 9 };
	char s[256];
	(void)st;

	memset(&r, 0, sizeof(r));
	r.n = 3;
	r.r[0] = (struct nas_qos_rule){ .id = 1, .op = NAS_QOS_RULE_CREATE, .dqr = 1, .n_filters = 1,
					.has_prec_qfi = 1, .precedence = 255, .qfi = 1 };
	r.r[0].f[0] = (struct nas_pkt_filter){ 3, 1, { pf, 1 } };
	r.r[1] = (struct nas_qos_rule){ .id = 2, .op = NAS_QOS_RULE_DELETE };
	r.r[2] = (struct nas_qos_rule){ .id = 3, .op = NAS_QOS_RULE_DELETE_FILTERS, .n_filters = 2,
					.has_prec_qfi = 1, .precedence = 10, .segregation = 1, .qfi = 5 };
	r.r[2].f[0].id = 1;
	r.r[2].f[1].id = 2;
	int n = nas_qos_rules_enc(&r, b1, sizeof(b1));
	assert_int_equal(n, 9 + 4 + 8);
	assert_int_equal(nas_qos_rules_dec(b1, (size_t)n, &d, NULL), 0);
	assert_int_equal(d.n, 3);
	assert_false(d.r[1].has_prec_qfi);
	assert_int_equal(d.r[2].f[1].id, 2);
	assert_int_equal(d.r[2].segregation, 1);
	assert_int_equal(nas_qos_rules_enc(&d, b2, sizeof(b2)), n);
	assert_memory_equal(b1, b2, (size_t)n);
	nas_qos_rules_to_str(&d, s, sizeof(s));
	assert_string_equal(s, "[{id=1 op=1 dqr=1 filters=1 prec=255 qfi=1},{id=2 op=2 dqr=0 filters=0},"
			       "{id=3 op=5 dqr=0 filters=2 prec=10 qfi=5}]");
	b1[2] = 0x40;                   /* rule length past the IE */
	assert_int_equal(nas_qos_rules_dec(b1, (size_t)n, &d, NULL), -EBADMSG);

	memset(&f, 0, sizeof(f));
	f.n = 1;
	f.f[0] = (struct nas_qos_flow){ .qfi = 1, .op = 1, .e = 1, .n = 1 };
	f.f[0].p[0] = (struct nas_qos_param){ NAS_QOS_P_5QI, { five_qi, 1 } };
	n = nas_qos_flows_enc(&f, b1, sizeof(b1));
	assert_int_equal(n, 6);
	assert_memory_equal(b1, ((uint8_t[]){ 0x01, 0x20, 0x41, 0x01, 0x01, 0x09 }), 6);
	assert_int_equal(nas_qos_flows_dec(b1, 6, &fd, NULL), 0);
	assert_int_equal(fd.f[0].p[0].v.p[0], 9);
	assert_int_equal(nas_qos_flows_dec(b1, 5, &fd, NULL), -EBADMSG);
}

static void test_epco(void **st)
{
	/* what UEs send: DNS IPv4 request, IP address via NAS, MTU request (empty containers) */
	static const uint8_t ue[] = { 0x80, 0x00, 0x0d, 0x00, 0x00, 0x0a, 0x00, 0x00, 0x10, 0x00, 0x80, 0x21, 0x03,
				      0x01, 0x00, 0x03 };
	static const uint8_t dns[] = { 10, 45, 0, 1 }, mtu[] = { 0x05, 0x78 };
	struct nas_pco p, d;
	char s[256];
	(void)st;

	assert_int_equal(nas_pco_dec(ue, sizeof(ue), &p, NULL), 0);
	assert_int_equal(p.n, 4);
	assert_non_null(nas_pco_find(&p, NAS_PCO_DNS_IPV4));
	assert_non_null(nas_pco_find(&p, NAS_PCO_IPV4_LINK_MTU));
	assert_null(nas_pco_find(&p, NAS_PCO_DNS_IPV6));
	assert_int_equal(nas_pco_find(&p, NAS_PCO_IPCP)->v.len, 3);
	assert_int_equal(nas_pco_enc(&p, b1, sizeof(b1)), (int)sizeof(ue));
	assert_memory_equal(b1, ue, sizeof(ue));
	/* the network's answer */
	memset(&p, 0, sizeof(p));
	assert_int_equal(nas_pco_add(&p, NAS_PCO_DNS_IPV4, dns, 4), 0);
	assert_int_equal(nas_pco_add(&p, NAS_PCO_IPV4_LINK_MTU, mtu, 2), 0);
	int n = nas_pco_enc(&p, b1, sizeof(b1));
	assert_int_equal(n, 1 + 7 + 5);
	assert_int_equal(nas_pco_dec(b1, (size_t)n, &d, NULL), 0);
	nas_pco_to_str(&d, s, sizeof(s));
	assert_string_equal(s, "[000d=dns4:10.45.0.1,0010=mtu:1400]");
	assert_int_equal(nas_pco_dec(ue, sizeof(ue) - 1, &d, NULL), -EBADMSG);
	for (int i = 0; i < NAS_PCO_MAX - 2; i++)
		assert_int_equal(nas_pco_add(&p, 1, NULL, 0), 0);
	assert_int_equal(nas_pco_add(&p, 1, NULL, 0), -E2BIG);
}

static void test_small_ies(void **st)
{
	struct nas_network_name nn, d;
	struct nas_buf dnn;
	uint8_t text[32];
	char s[128];
	(void)st;

	assert_int_equal(nas_network_name_set_ascii(&nn, "solocore_1", text, sizeof(text)), 9);
	assert_int_equal(nn.spare_bits, 2);
	int n = nas_network_name_enc(&nn, b1, sizeof(b1));
	assert_int_equal(nas_network_name_dec(b1, (size_t)n, &d, NULL), 0);
	nas_network_name_to_str(&d, s, sizeof(s));
	assert_string_equal(s, "\"solocore_1\"");

	n = nas_dnn_enc("ims.mnc001.mcc001.gprs", b1, sizeof(b1));
	assert_int_equal(n, 23);
	dnn = (struct nas_buf){ b1, (uint16_t)n };
	assert_int_equal(nas_dnn_to_str(&dnn, s, sizeof(s)), 22);
	assert_string_equal(s, "ims.mnc001.mcc001.gprs");
	assert_int_equal(nas_dnn_enc("a..b", b1, sizeof(b1)), -EINVAL);
	assert_int_equal(nas_dnn_enc("internet.", b1, sizeof(b1)), -EINVAL);
	b1[0] = 30;                     /* label past the end */
	assert_int_equal(nas_dnn_to_str(&dnn, s, sizeof(s)), -EBADMSG);

	assert_int_equal(nas_gprs_timer3_secs(0x06), 3600);   /* 6 x 10 min */
	assert_int_equal(nas_gprs_timer3_secs(0xe0), UINT32_MAX);
	assert_int_equal(nas_gprs_timer2_secs(0x2c), 720);
	assert_int_equal(nas_gprs_timer3_enc(25 * 60), 0xb9);  /* 25 min: 1-min unit */
	assert_int_equal(nas_gprs_timer3_enc(54 * 60), 0x06);  /* 54 min rounds up to 6 x 10 min */
	assert_int_equal(nas_gprs_timer3_secs(nas_gprs_timer3_enc(1500)), 1500);
	assert_int_equal(nas_gprs_timer2_enc(10), 0x05);
	assert_int_equal(nas_gprs_timer2_enc(UINT32_MAX), 0xe0);

	assert_int_equal(nas_ambr_kbps(1, 100), 100);
	assert_int_equal(nas_ambr_kbps(6, 1000), 1000000);
	assert_int_equal(nas_ambr_kbps(11, 2), 2000000);
	assert_int_equal(nas_ambr_kbps(0, 5), 0);

	/* time zone: TS 24.008 10.5.3.8 example coding, +8 h = 32 quarters -> 0x23 */
	assert_int_equal(nas_time_zone_enc(480), 0x23);
	assert_int_equal(nas_time_zone_minutes(0x23), 480);
	assert_int_equal(nas_time_zone_enc(-330), 0x2a);       /* -5:30 = -22 quarters */
	assert_int_equal(nas_time_zone_minutes(0x2a), -330);
	assert_int_equal(nas_time_zone_enc(15 * 60), 0xff);
	uint8_t ut[7];
	assert_int_equal(nas_universal_time_enc(ut, 2026, 11, 29, 23, 59, 7, 60), 7);
	assert_memory_equal(ut, ((uint8_t[]){ 0x62, 0x11, 0x92, 0x32, 0x95, 0x70, 0x40 }), 7);
	assert_int_equal(nas_universal_time_enc(ut, 2026, 13, 1, 0, 0, 0, 0), -EINVAL);

	nas_psi_map_to_str(0x0420, s, sizeof(s));
	assert_string_equal(s, "{5,10}");
	assert_string_equal(nas_5gmm_cause_name(NAS_5GMM_SYNCH_FAILURE), "Synch failure");
	assert_string_equal(nas_msg_name(NAS_PDU_SESSION_RELEASE_COMMAND), "PDU session release command");
	assert_string_equal(nas_msg_name(0x01), "unknown message type");
}

static void test_encode_invalid_values(void **st)
{
	static uint8_t long_dnn[101];
	struct nas_msg m;
	struct nas_err e;
	(void)st;

	nas_sample_fill(&m, NAS_UL_NAS_TRANSPORT, 0);
	m.ul_nas.has_dnn = true;
	m.ul_nas.dnn = (struct nas_buf){ long_dnn, sizeof(long_dnn) };
	assert_int_equal(nas_encode(&m, b1, sizeof(b1), &e), -EINVAL);
	assert_string_equal(e.ie, "dnn");
	m.ul_nas.has_dnn = false;
	m.ul_nas.payload = (struct nas_buf){ NULL, 5 };
	assert_int_equal(nas_encode(&m, b1, sizeof(b1), &e), -EINVAL);
	m.type = 0x01;
	assert_int_equal(nas_encode(&m, b1, sizeof(b1), &e), -ENOMSG);
}

/* IE decoders on their own: each error path with its code and offset */
enum ie_kind { IE_MOBID, IE_SNSSAI, IE_NSSAI, IE_TAIL, IE_PSIMAP, IE_AMBR, IE_PDUADDR, IE_NETNAME, IE_RULES,
	       IE_FLOWS, IE_PCO };
struct ie_bad { enum ie_kind k; const char *hex; int err; size_t off; };

static const struct ie_bad ie_bads[] = {
	{ IE_MOBID, "", -EBADMSG, 0 },
	{ IE_MOBID, "11", -EBADMSG, 0 },                                 /* SUCI NAI, empty */
	{ IE_MOBID, "01 00 f1 10 00 00 00 01", -EBADMSG, 0 },            /* SUCI, no scheme output */
	{ IE_MOBID, "01 0a f1 10 00 00 00 01 aa", -ERANGE, 1 },          /* SUCI PLMN not BCD */
	{ IE_MOBID, "21", -ERANGE, 0 },                                  /* SUCI SUPI format 2 */
	{ IE_MOBID, "01 00 f1 10 00 00 02 01 aa bb", -EBADMSG, 8 },      /* profile B output too short */
	{ IE_MOBID, "f4 00 40 00 00 00", -EBADMSG, 0 },                  /* 5G-S-TMSI length 6 */
	{ IE_MOBID, "f3", -EBADMSG, 0 },                                 /* IMEI without digits */
	{ IE_MOBID, "33 45 67 89 01 23 45 67 89 01", -EBADMSG, 0 },      /* 19 digits */
	{ IE_MOBID, "35 45 67 89 01 23 45 67 89", -EBADMSG, 8 },         /* even count, no filler */
	{ IE_MOBID, "06 00 11 22 33 44", -EBADMSG, 0 },                  /* MAC of 5 octets */
	{ IE_MOBID, "07 00 11 22 33 44 55 66", -EBADMSG, 0 },            /* EUI-64 of 7 octets */
	{ IE_SNSSAI, "01 02 03", -EBADMSG, 0 },
	{ IE_SNSSAI, "01 02 03 04 05 06", -EBADMSG, 0 },
	{ IE_NSSAI, "04 01 02 03", -EBADMSG, 0 },                        /* S-NSSAI past the end */
	{ IE_NSSAI, "01 01 03 01 02 03", -EBADMSG, 3 },                  /* second S-NSSAI length 3 */
	{ IE_TAIL, "", -EBADMSG, 0 },
	{ IE_TAIL, "00 0a f1 10 00 00 01", -ERANGE, 1 },                 /* PLMN not BCD */
	{ IE_TAIL, "41 00 f1 10 00 00 01", -EBADMSG, 0 },                /* type 2, 2 TAIs, 1 present */
	{ IE_PSIMAP, "20", -EBADMSG, 0 },
	{ IE_AMBR, "06 03 e8 06 03", -EBADMSG, 0 },
	{ IE_AMBR, "06 03 e8 00 03 e8", -ERANGE, 3 },
	{ IE_PDUADDR, "", -EBADMSG, 0 },
	{ IE_PDUADDR, "0a 0a 00 00 01", -EBADMSG, 0 },                   /* SI6LLA set, no address */
	{ IE_PDUADDR, "02 00 00 00 00 00 00 00", -EBADMSG, 0 },          /* IPv6 IID of 7 octets */
	{ IE_NETNAME, "", -EBADMSG, 0 },
	{ IE_RULES, "01 00", -EBADMSG, 0 },                              /* rule header truncated */
	{ IE_RULES, "01 00 00", -EBADMSG, 3 },                           /* empty rule */
	{ IE_RULES, "01 00 01 e0", -ERANGE, 3 },                         /* reserved operation code */
	{ IE_RULES, "01 00 01 22", -EBADMSG, 4 },                        /* 2 filters announced, none */
	{ IE_RULES, "01 00 04 21 31 05 01", -EBADMSG, 4 },               /* filter contents past the rule */
	{ IE_RULES, "01 00 04 20 ff 01 00", -EBADMSG, 4 },               /* 3 octets after the filters */
	{ IE_FLOWS, "01 20", -EBADMSG, 0 },
	{ IE_FLOWS, "01 20 49", -E2BIG, 2 },                             /* 9 parameters */
	{ IE_FLOWS, "01 20 41 01 02 09", -EBADMSG, 3 },
	{ IE_PCO, "", -EBADMSG, 0 },
	{ IE_PCO, "81", -ERANGE, 0 },                                    /* configuration protocol 1 */
};

static int ie_dec(enum ie_kind k, const uint8_t *v, size_t n, struct nas_err *e)
{
	static union {
		struct nas_mobile_id id; struct nas_snssai sn; struct nas_nssai ns; struct nas_tai_list t;
		struct nas_session_ambr a; struct nas_pdu_address pa; struct nas_network_name nn;
		struct nas_qos_rules r; struct nas_qos_flows f; struct nas_pco p; uint16_t map;
	} u;
	switch (k) {
	case IE_MOBID: return nas_mobile_id_dec(v, n, &u.id, e);
	case IE_SNSSAI: return nas_snssai_dec(v, n, &u.sn, e);
	case IE_NSSAI: return nas_nssai_dec(v, n, &u.ns, e);
	case IE_TAIL: return nas_tai_list_dec(v, n, &u.t, e);
	case IE_PSIMAP: return nas_psi_map_dec(v, n, &u.map, e);
	case IE_AMBR: return nas_ambr_dec(v, n, &u.a, e);
	case IE_PDUADDR: return nas_pdu_address_dec(v, n, &u.pa, e);
	case IE_NETNAME: return nas_network_name_dec(v, n, &u.nn, e);
	case IE_RULES: return nas_qos_rules_dec(v, n, &u.r, e);
	case IE_FLOWS: return nas_qos_flows_dec(v, n, &u.f, e);
	default: return nas_pco_dec(v, n, &u.p, e);
	}
}

static size_t unhex(const char *hex, uint8_t *buf)
{
	size_t n = 0;
	for (const char *p = hex; *p;) {
		unsigned v;
		if (*p == ' ') { p++; continue; }
		assert_int_equal(sscanf(p, "%2x", &v), 1);
		buf[n++] = (uint8_t)v;
		p += 2;
	}
	return n;
}

static void test_ie_bad_inputs(void **st)
{
	uint8_t buf[64];
	(void)st;
	for (size_t i = 0; i < sizeof(ie_bads) / sizeof(ie_bads[0]); i++) {
		struct nas_err e = { 0 };
		size_t n = unhex(ie_bads[i].hex, buf);
		int r = ie_dec(ie_bads[i].k, buf, n, &e);
		if (r != ie_bads[i].err || e.off != ie_bads[i].off)
			fail_msg("IE case %zu (%s): got %d at %zu (%s), want %d at %zu", i, ie_bads[i].hex, r, e.off,
				 e.reason ? e.reason : "-", ie_bads[i].err, ie_bads[i].off);
		assert_non_null(e.reason);
	}
}

static void test_ie_more_roundtrips(void **st)
{
	static const uint8_t v6[] = { 0x02, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t v46ll[] = { 0x0b, 1, 2, 3, 4, 5, 6, 7, 8, 10, 45, 0, 9,
					 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1 };
	static const uint8_t mac[] = { 0x06, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55 };
	static const uint8_t eui[] = { 0x07, 1, 2, 3, 4, 5, 6, 7, 8 };
	static const uint8_t sn2[] = { 0x01, 0x02 };
	static const uint8_t ucs2[] = { 0x90, 0x00, 0x41 };
	struct nas_pdu_address a;
	struct nas_mobile_id id;
	struct nas_snssai sn;
	struct nas_network_name nn;
	char s[128];
	(void)st;

	assert_int_equal(nas_pdu_address_dec(v6, sizeof(v6), &a, NULL), 0);
	assert_int_equal(nas_pdu_address_enc(&a, b1, sizeof(b1)), (int)sizeof(v6));
	assert_memory_equal(b1, v6, sizeof(v6));
	nas_pdu_address_to_str(&a, s, sizeof(s));
	assert_string_equal(s, "iid=0102030405060708");
	assert_int_equal(nas_pdu_address_dec(v46ll, sizeof(v46ll), &a, NULL), 0);
	assert_int_equal(a.si6lla, 1);
	assert_int_equal(a.ipv4[3], 9);
	assert_int_equal(nas_pdu_address_enc(&a, b1, sizeof(b1)), (int)sizeof(v46ll));
	assert_memory_equal(b1, v46ll, sizeof(v46ll));
	nas_pdu_address_to_str(&a, s, sizeof(s));
	assert_string_equal(s, "ipv4=10.45.0.9 iid=0102030405060708");
	assert_int_equal(nas_pdu_address_enc(&a, b1, 28), -ENOSPC);

	assert_int_equal(nas_mobile_id_dec(mac, sizeof(mac), &id, NULL), 0);
	assert_int_equal(id.type, NAS_MOBID_MAC);
	assert_int_equal(nas_mobile_id_enc(&id, b1, sizeof(b1)), (int)sizeof(mac));
	nas_mobile_id_to_str(&id, s, sizeof(s));
	assert_string_equal(s, "identity{type=6 06001122334455}");
	assert_int_equal(nas_mobile_id_dec(eui, sizeof(eui), &id, NULL), 0);
	assert_int_equal(nas_mobile_id_enc(&id, b1, 8), -ENOSPC);
	assert_int_equal(nas_mobile_id_enc(&id, b1, sizeof(b1)), (int)sizeof(eui));

	assert_int_equal(nas_snssai_dec(sn2, sizeof(sn2), &sn, NULL), 0);
	assert_true(sn.has_mapped_sst && !sn.has_sd);
	assert_int_equal(nas_snssai_enc(&sn, b1, sizeof(b1)), 2);
	assert_memory_equal(b1, sn2, 2);

	assert_int_equal(nas_network_name_dec(ucs2, sizeof(ucs2), &nn, NULL), 0);
	assert_int_equal(nn.coding, 1);
	nas_network_name_to_str(&nn, s, sizeof(s));
	assert_string_equal(s, "ucs2:0041");
	assert_int_equal(nas_network_name_set_ascii(&nn, "$@", b2, sizeof(b2)), 2);
	nas_network_name_to_str(&nn, s, sizeof(s));
	assert_string_equal(s, "\"$@\"");
	assert_int_equal(nas_network_name_set_ascii(&nn, "", b2, sizeof(b2)), -EINVAL);
}

static void test_secrets_redacted(void **st)
{
	static const uint8_t auts[14] = { 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad };
	static const uint8_t eap[] = { 0x01, 0x02, 0x00, 0x08, 0xde, 0xad, 0xbe, 0xef };
	struct nas_msg m;
	(void)st;

	nas_sample_fill(&m, NAS_AUTHENTICATION_FAILURE, 1);
	m.auth_fail.auts = (struct nas_buf){ auts, sizeof(auts) };
	assert_true(nas_msg_to_str(&m, s1, sizeof(s1)) > 0);
	assert_null(strstr(s1, "dead"));
	assert_non_null(strstr(s1, "auts=<redacted 14 octets>"));
	nas_sample_fill(&m, NAS_AUTHENTICATION_RESULT, 1);
	m.auth_result.eap = (struct nas_buf){ eap, sizeof(eap) };
	assert_true(nas_msg_to_str(&m, s1, sizeof(s1)) > 0);
	assert_null(strstr(s1, "dead"));
	assert_non_null(strstr(s1, "eap=<redacted 8 octets>"));
	/* to_str output is cut at the buffer size and says how long it would be */
	int full = nas_msg_to_str(&m, s1, sizeof(s1));
	assert_int_equal(nas_msg_to_str(&m, s2, 10), full);
	assert_int_equal(strlen(s2), 9);
}

/* NAS_DEC_LENIENT: the receiver rules of TS 24.501 7.5 / TS 24.007 11.4.2 */
static void test_lenient_decoding(void **st)
{
	/* UL NAS transport: S-NSSAI of length 3 (malformed optional IE), then a good DNN */
	static const uint8_t bad_opt[] = { 0x7e, 0x00, 0x67, 0x01, 0x00, 0x01, 0x00, 0x22, 0x03, 0x01, 0x02, 0x03,
					   0x25, 0x02, 0x01, 'x' };
	/* registration request with a 5GMM capability of 16 octets (a later release) */
	uint8_t long_cap[7 + 2 + 16] = { 0x7e, 0x00, 0x41, 0x79, 0x00, 0x01, 0x00, 0x10, 16 };
	/* registration accept: result LV of 2 octets (extra octet ignored) */
	static const uint8_t long_lv[] = { 0x7e, 0x00, 0x42, 0x02, 0x01, 0xff };
	/* UE security capability of 10 octets: first 8 used */
	static const uint8_t long_sec[] = { 0x7e, 0x00, 0x41, 0x79, 0x00, 0x01, 0x00, 0x2e, 0x0a, 0x80, 0x20, 0, 0, 0, 0,
					    0, 0, 0x11, 0x22 };
	struct nas_msg m;
	struct nas_err e;
	(void)st;

	assert_int_equal(nas_decode(bad_opt, sizeof(bad_opt), &m, &e), -EBADMSG);
	assert_int_equal(nas_decode_ex(bad_opt, sizeof(bad_opt), &m, &e, NAS_DEC_LENIENT), 0);
	assert_false(m.ul_nas.has_snssai);
	assert_true(m.ul_nas.has_dnn);
	assert_int_equal(e.ignored, 1);
	assert_int_equal(e.off, 9);
	assert_string_equal(e.ie, "snssai");
	assert_non_null(e.reason);

	assert_int_equal(nas_decode(long_cap, sizeof(long_cap), &m, &e), -EBADMSG);
	assert_int_equal(nas_decode_ex(long_cap, sizeof(long_cap), &m, &e, NAS_DEC_LENIENT), 0);
	assert_true(m.reg_req.has_gmm_cap);
	assert_int_equal(m.reg_req.gmm_cap.len, 16);
	assert_int_equal(e.ignored, 0);
	assert_null(e.reason);

	assert_int_equal(nas_decode(long_lv, sizeof(long_lv), &m, &e), -EBADMSG);
	assert_int_equal(nas_decode_ex(long_lv, sizeof(long_lv), &m, &e, NAS_DEC_LENIENT), 0);
	assert_int_equal(m.reg_acc.reg_result, 1);

	assert_int_equal(nas_decode(long_sec, sizeof(long_sec), &m, &e), -EBADMSG);
	assert_int_equal(nas_decode_ex(long_sec, sizeof(long_sec), &m, &e, NAS_DEC_LENIENT), 0);
	assert_int_equal(m.reg_req.ue_sec_cap.ea, 0x80);
	assert_int_equal(m.reg_req.ue_sec_cap.n_spare, 4);

	/* the bad messages again: lenient accepts exactly those whose fault is an
	 * optional IE's value (dropped, counted) or an over-long type 4 value */
	static const struct { int idx, ignored; } ok[] = {
		{ 14, 1 }, { 15, 0 }, { 16, 1 }, { 19, 1 }, { 21, 1 }, { 22, 1 }, { 23, 0 }, { 24, 1 }, { 25, 1 }, { 29, 1 },
	};
	assert_int_equal(sizeof(bad_inputs) / sizeof(bad_inputs[0]), 30);
	for (int i = 0; i < 30; i++) {
		uint8_t buf[256];
		size_t n = unhex(bad_inputs[i].hex, buf);
		int want = -1, r;
		for (size_t k = 0; k < sizeof(ok) / sizeof(ok[0]); k++)
			if (ok[k].idx == i)
				want = ok[k].ignored;
		r = nas_decode_ex(buf, n, &m, &e, NAS_DEC_LENIENT);
		if (want < 0 && r != bad_inputs[i].err)
			fail_msg("lenient %s: %d, want %d", bad_inputs[i].name, r, bad_inputs[i].err);
		if (want >= 0 && (r != 0 || (int)e.ignored != want))
			fail_msg("lenient %s: %d ignored %u, want 0 ignored %d", bad_inputs[i].name, r, e.ignored, want);
	}
	static const uint8_t compreq[] = { 0x7e, 0x00, 0x43, 0x05, 0x01, 0x00 };
	assert_int_equal(nas_decode_ex(compreq, sizeof(compreq), &m, &e, NAS_DEC_LENIENT), -EPROTO);
	static const uint8_t trunc[] = { 0x7e, 0x00, 0x67, 0x01, 0x00, 0x01, 0x00, 0x25, 0x09, 0x08, 0x69 };
	assert_int_equal(nas_decode_ex(trunc, sizeof(trunc), &m, &e, NAS_DEC_LENIENT), -EBADMSG);
	static const uint8_t badguti[] = { 0x7e, 0x00, 0x41, 0x79, 0x00, 0x0b, 0xf2, 0x0a, 0xf1, 0x10, 0x01,
					   0x00, 0x40, 0x00, 0x00, 0x00, 0x01 };
	assert_int_equal(nas_decode_ex(badguti, sizeof(badguti), &m, &e, NAS_DEC_LENIENT), -ERANGE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_all_messages),
		cmocka_unit_test(test_truncation_and_short_buffers),
		cmocka_unit_test(test_bad_inputs),
		cmocka_unit_test(test_unknown_and_repeated_ies),
		cmocka_unit_test(test_security_header),
		cmocka_unit_test(test_mobile_identities),
		cmocka_unit_test(test_tai_list_types),
		cmocka_unit_test(test_nssai_limits),
		cmocka_unit_test(test_qos_rules_and_flows),
		cmocka_unit_test(test_epco),
		cmocka_unit_test(test_small_ies),
		cmocka_unit_test(test_encode_invalid_values),
		cmocka_unit_test(test_ie_bad_inputs),
		cmocka_unit_test(test_ie_more_roundtrips),
		cmocka_unit_test(test_secrets_redacted),
		cmocka_unit_test(test_lenient_decoding),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
