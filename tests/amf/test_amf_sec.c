/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * AMF scenario tests: the NIA0 policy (TS 33.501 5.5.2: null integrity only for
 * unauthenticated emergency sessions, which we do not serve) and the receiver rules for
 * uplink NAS (TS 24.501 7.5, TS 24.007 11.4.2: IEs of later releases, malformed optional
 * IEs). The test plays gNB and UE.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "common/log.h"
#include "harness.h"

#define ASSOC_A 7
#define SUPI1 "imsi-001010000000001"

static struct h H;

/* Log lines captured while a test runs (the reason of a reject must be said). */
static char logbuf[16384];
static size_t loglen;

static void log_capture(enum log_level level, const char *line, size_t len, void *arg)
{
	(void)level;
	(void)arg;
	if (loglen + len + 1 < sizeof(logbuf)) {
		memcpy(logbuf + loglen, line, len);
		loglen += len;
		logbuf[loglen++] = '\n';
		logbuf[loglen] = '\0';
	}
}

static int setup_ciph(const uint8_t *integ, unsigned n_integ, const uint8_t *ciph, unsigned n_ciph)
{
	struct amf_cfg cfg;

	h_cfg(&cfg);
	if (n_integ) {
		memcpy(cfg.integ_prio, integ, n_integ);
		cfg.n_integ = n_integ;
	}
	if (n_ciph) {
		memcpy(cfg.ciph_prio, ciph, n_ciph);
		cfg.n_ciph = n_ciph;
	}
	loglen = 0;
	logbuf[0] = '\0';
	log_set_sink(log_capture, NULL);
	h_init(&H, &cfg);           /* (its warnings captured too) */
	h_add_sub(&H, SUPI1, 1, 0x010203, 0);
	h_ng_setup(&H, ASSOC_A);
	log_set_level(LOGL_INFO);   /* the harness keeps the AMF quiet */
	return 0;
}

static int setup_with(const uint8_t *integ, unsigned n_integ)
{
	return setup_ciph(integ, n_integ, NULL, 0);
}

/* The defaults: NIA2, NIA1, NIA3, NIA0. */
static int setup(void **state)
{
	(void)state;
	return setup_with(NULL, 0);
}

/* NIA0 configured as the most preferred integrity algorithm. */
static int setup_nia0_first(void **state)
{
	(void)state;
	return setup_with((const uint8_t[]){ 0, 2 }, 2);
}

/* NIA0 the only integrity algorithm configured. */
static int setup_nia0_only(void **state)
{
	(void)state;
	return setup_with((const uint8_t[]){ 0 }, 1);
}

static int teardown(void **state)
{
	(void)state;
	log_set_sink(NULL, NULL);
	log_set_level(LOGL_INFO);
	h_fini(&H);
	return 0;
}

/* #23 before AKA: no vector spent (SQN unchanged), no context left. */
static void expect_rejected_before_aka(struct sue *ue)
{
	struct amf_stats st;
	struct amf_ue_info info;
	uint64_t sqn = 1;

	sue_expect_reg_reject(&H, ue, NAS_5GMM_UE_SECURITY_CAP_MISMATCH);
	assert_int_equal(udm_get_sqn(H.udm, ue->supi, &sqn), 0);
	assert_int_equal(sqn, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.auth_ok, 0);
	assert_int_equal(st.reg_rejected, 1);
	assert_int_equal(st.reg_accepted, 0);
	assert_int_not_equal(amf_ue_info_by_supi(H.amf, ue->supi, &info) == 0 &&
			     info.state == AMF_GMM_REGISTERED, 1);
}

/* A UE offering only 5G-IA0 while NIA0 is in the configured list (the default): never
 * registered with null integrity, #23 before AKA, and the log says why. */
static void test_nia0_only_ue_rejected(void **state)
{
	struct sue ue;
	struct nas_msg m;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.ia = 0x80;   /* 5G-IA0 only */
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	expect_rejected_before_aka(&ue);
	assert_non_null(strstr(logbuf, "only NIA0"));
	assert_non_null(strstr(logbuf, "TS 33.501 5.5.2"));
	assert_null(strstr(logbuf, "no algorithm but NIA0"));
}

/* NIA0 first in our list and offered by the UE with NIA2: NIA2 is selected. */
static void test_nia0_preferred_not_selected(void **state)
{
	struct sue ue;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.ia = 0xa0;   /* 5G-IA0 and 128-5G-IA2 */
	sue_register(&H, &ue, 2, 0);
	{
		struct amf_ue_info info;

		assert_int_equal(amf_ue_info_by_supi(H.amf, ue.supi, &info), 0);
		assert_int_equal(info.state, AMF_GMM_REGISTERED);
		assert_int_equal(info.nia, 2);
	}
}

/* Only NIA0 configured: even a UE offering everything gets #23 (nothing we may use). */
static void test_nia0_only_cfg_rejects(void **state)
{
	struct sue ue;
	struct nas_msg m;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	expect_rejected_before_aka(&ue);
	assert_non_null(strstr(logbuf, "only NIA0"));
	/* Said once at start-up too. */
	assert_non_null(strstr(logbuf, "no algorithm but NIA0"));
}

/* A UE with integrity algorithms but none of ours: still the plain "no common algorithm". */
static int setup_nia1_only(void **state)
{
	(void)state;
	return setup_with((const uint8_t[]){ 1 }, 1);
}

static void test_no_common_alg_logged(void **state)
{
	struct sue ue;
	struct nas_msg m;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.ia = 0xa0;   /* IA0, IA2: we allow NIA1 only */
	sue_reg_req(&ue, &m, false);
	sue_initial(&H, &ue, &m, NAS_SHT_PLAIN);
	expect_rejected_before_aka(&ue);
	assert_non_null(strstr(logbuf, "no common algorithm ue ia=a0"));
	assert_null(strstr(logbuf, "only NIA0"));
}

/* The encoded REGISTRATION REQUEST of ue (with its tail): strict and lenient decodes. */
static void check_decodes(const struct sue *ue, int strict_rc_nonzero, unsigned ignored)
{
	static uint8_t buf[H_PDU_MAX];
	struct nas_msg m, d;
	struct nas_err err;
	struct sue tmp = *ue;
	int n;

	sue_reg_req(&tmp, &m, false);
	n = nas_encode(&m, buf, sizeof(buf), &err);
	assert_true(n > 0);
	memcpy(buf + n, ue->reg_tail, ue->reg_tail_len);
	n += (int)ue->reg_tail_len;
	memset(&err, 0, sizeof(err));
	if (strict_rc_nonzero)
		assert_true(nas_decode(buf, (size_t)n, &d, &err) < 0);
	memset(&err, 0, sizeof(err));
	assert_int_equal(nas_decode_ex(buf, (size_t)n, &d, &err, NAS_DEC_LENIENT), 0);
	assert_int_equal(err.ignored, ignored);
	assert_int_equal(d.type, NAS_REGISTRATION_REQUEST);
}

/* 5GMM capability (IEI 0x10) of 20 octets: TS 24.501 9.11.3.1 allows 1..13 in this release;
 * a later-release UE sends more, and TS 24.007 11.4.2 says the extra octets are ignored. The
 * UE registers, the long IE both in the initial message and in the SMC container. */
static const uint8_t long_gmm_cap[] = {
	0x10, 20, 0x07, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,
	0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01,
};

static void test_later_release_gmm_cap_registers(void **state)
{
	struct sue ue;
	struct amf_stats st;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.reg_tail = long_gmm_cap;
	ue.reg_tail_len = sizeof(long_gmm_cap);
	check_decodes(&ue, 1, 0);
	sue_register(&H, &ue, 2, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.reg_accepted, 1);
	assert_int_equal(st.nas_dropped, 0);
}

/* Allowed PDU session status (IEI 0x25, 2..32 octets, TS 24.501 9.11.3.13) of 1 octet:
 * malformed optional IE, treated as absent; the UE registers and the count is logged at
 * debug level. */
static const uint8_t short_allowed_pss[] = { 0x25, 0x01, 0x00 };

static void test_malformed_optional_ie_ignored(void **state)
{
	struct sue ue;
	struct amf_stats st;

	(void)state;
	log_set_level(LOGL_DEBUG);
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	ue.reg_tail = short_allowed_pss;
	ue.reg_tail_len = sizeof(short_allowed_pss);
	check_decodes(&ue, 1, 1);
	sue_register(&H, &ue, 2, 0);
	amf_get_stats(H.amf, &st);
	assert_int_equal(st.reg_accepted, 1);
	assert_non_null(strstr(logbuf, "1 malformed optional IE(s) ignored"));
}

/* amf_warm_up() (called by amf_start): succeeds with every algorithm configured, changes
 * no counter, and registration with NIA2 / NEA2 works after it. */
static int setup_nea2(void **state)
{
	(void)state;
	return setup_ciph(NULL, 0, (const uint8_t[]){ 2, 0, 1, 3 }, 4);
}

static void test_warm_up(void **state)
{
	struct amf_stats before, after;
	struct sue ue;

	(void)state;
	amf_get_stats(H.amf, &before);
	assert_int_equal(amf_warm_up(H.amf), 0);
	assert_int_equal(amf_warm_up(H.amf), 0);
	amf_get_stats(H.amf, &after);
	assert_memory_equal(&before, &after, sizeof(before));
	assert_int_equal(h_pending(&H), 0);
	sue_init(&ue, "0000000001", ASSOC_A, 100);
	sue_register(&H, &ue, 2, 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_nia0_only_ue_rejected, setup, teardown),
		cmocka_unit_test_setup_teardown(test_nia0_preferred_not_selected, setup_nia0_first, teardown),
		cmocka_unit_test_setup_teardown(test_nia0_only_cfg_rejects, setup_nia0_only, teardown),
		cmocka_unit_test_setup_teardown(test_no_common_alg_logged, setup_nia1_only, teardown),
		cmocka_unit_test_setup_teardown(test_later_release_gmm_cap_registers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_malformed_optional_ie_ignored, setup, teardown),
		cmocka_unit_test_setup_teardown(test_warm_up, setup_nea2, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
