/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * No allocation in any NAS encode or decode (issue 3 item 4): every message
 * type with all optional IEs, every captured vector, every error path of the
 * bad-input set, the IE codecs and to_str run between nomalloc_begin() and
 * nomalloc_end(); one allocator call fails the test.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "common/nas/nas.h"
#include "nas_sample.h"
#include "testlib.h"

static uint8_t vec[32][512];
static int vec_len[32], nvec;

static void load_vectors(void)
{
	static const char *files[] = { "nas5gs_messages.txt" };
	for (size_t k = 0; k < 1; k++) {
		struct tv_file *f = tv_open(files[k]);
		assert_non_null(f);
		for (int s = 0; s < tv_sections(f) && nvec < 32; s++) {
			int n = tv_hex(f, s, "hex", vec[nvec], sizeof(vec[0]));
			if (n > 0)
				vec_len[nvec++] = n;
		}
		tv_close(f);
	}
	assert_true(nvec >= 11);
}

/* Decode whatever buf holds, as deep as it goes, and re-encode it. */
static unsigned exercise(const uint8_t *buf, size_t len, int depth)
{
	static uint8_t out[4][8192];
	static char str[4][8192];
	struct nas_msg m;
	struct nas_sec_hdr h;
	struct nas_qos_rules rules;
	struct nas_qos_flows flows;
	struct nas_pco pco;
	struct nas_err e;
	unsigned done = 0;

	if (depth > 2)
		return 0;
	if (nas_sec_decode(buf, len, &h, &e) == 0)
		return exercise(h.msg.p, h.msg.len, depth + 1);
	if (nas_decode(buf, len, &m, &e) < 0)
		return 1;
	done++;
	nas_msg_to_str(&m, str[depth], sizeof(str[depth]));
	assert_true(nas_encode(&m, out[depth], sizeof(out[depth]), &e) > 0);
	if (m.type == NAS_UL_NAS_TRANSPORT)
		done += exercise(m.ul_nas.payload.p, m.ul_nas.payload.len, depth + 1);
	if (m.type == NAS_DL_NAS_TRANSPORT)
		done += exercise(m.dl_nas.payload.p, m.dl_nas.payload.len, depth + 1);
	if (m.type == NAS_SECURITY_MODE_COMPLETE && m.smc_cpl.has_nas_container)
		done += exercise(m.smc_cpl.nas_container.p, m.smc_cpl.nas_container.len, depth + 1);
	if (m.type == NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT) {
		if (nas_qos_rules_dec(m.pdu_est_acc.qos_rules.p, m.pdu_est_acc.qos_rules.len, &rules, &e) == 0) {
			nas_qos_rules_enc(&rules, out[depth], sizeof(out[depth]));
			nas_qos_rules_to_str(&rules, str[depth], sizeof(str[depth]));
		}
		if (m.pdu_est_acc.has_qos_flows &&
		    nas_qos_flows_dec(m.pdu_est_acc.qos_flows.p, m.pdu_est_acc.qos_flows.len, &flows, &e) == 0) {
			nas_qos_flows_enc(&flows, out[depth], sizeof(out[depth]));
			nas_qos_flows_to_str(&flows, str[depth], sizeof(str[depth]));
		}
		if (m.pdu_est_acc.has_epco && nas_pco_dec(m.pdu_est_acc.epco.p, m.pdu_est_acc.epco.len, &pco, &e) == 0) {
			nas_pco_enc(&pco, out[depth], sizeof(out[depth]));
			nas_pco_to_str(&pco, str[depth], sizeof(str[depth]));
		}
	}
	return done;
}

static void test_no_allocation(void **st)
{
	static uint8_t buf[8192];
	static uint8_t bad[] = { 0x7e, 0x00, 0x41, 0x79, 0x00, 0x0b, 0xf2, 0x0a, 0xf1 };
	uint8_t types[64];
	int nt = nas_sample_types(types, 64);
	struct nas_msg m;
	struct nas_err e;
	struct nas_mobile_id id;
	char s[256];
	unsigned calls, done = 0;
	(void)st;

	load_vectors();
	/* samples are built outside the guarded region (they are test data) */
	static struct nas_msg samples[64];
	for (int i = 0; i < nt; i++)
		nas_sample_fill(&samples[i], types[i], 1);

	nomalloc_begin();
	for (int i = 0; i < nt; i++) {
		int n = nas_encode(&samples[i], buf, sizeof(buf), &e);
		if (n > 0)
			done += exercise(buf, (size_t)n, 0);
		for (int l = 0; l < n; l++) {   /* every truncation: error paths too, both modes */
			nas_decode(buf, (size_t)l, &m, &e);
			nas_decode_ex(buf, (size_t)l, &m, &e, NAS_DEC_LENIENT);
		}
	}
	for (int v = 0; v < nvec; v++)
		done += exercise(vec[v], (size_t)vec_len[v], 0);
	nas_decode(bad, sizeof(bad), &m, &e);
	nas_decode_ex(bad, sizeof(bad), &m, &e, NAS_DEC_LENIENT);
	nas_mobile_id_dec(vec[1] + 6, 0x36, &id, &e);
	nas_mobile_id_to_str(&id, s, sizeof(s));
	nas_gprs_timer3_enc(3600);
	calls = nomalloc_end();

	assert_int_equal(calls, 0);
	assert_true(done >= (unsigned)(nt + nvec));     /* the guarded region did real work */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_allocation),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
