/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim UE NAS security (ue_nas.c) on its own: downlink messages protected here the way
 * the network does it (TS 33.501 D.3, TS 24.501 4.4.3) must verify and decipher; a
 * tampered MAC or body is dropped and counted; unprotected messages other than the
 * TS 24.501 4.4.4.2 list are refused once security is on; the uplink protection is the
 * mirror image; the SUCI carries the MSIN of the SIM.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <string.h>

#include <cmocka.h>

#include "common/ev.h"
#include "rs_int.h"

static struct ev_loop *loop;

static struct ransim *mk(void)
{
	struct ransim_cfg c;
	struct ransim_sim sim;
	struct ransim *rs;
	int err = 0;

	ransim_cfg_init(&c);
	memset(&sim, 0, sizeof(sim));
	snprintf(sim.supi, sizeof(sim.supi), "imsi-001010123456789");
	rs = ransim_new(loop, &c, &sim, 1, &err);
	assert_non_null(rs);
	return rs;
}

/* Give UE 0 an active context with NIA nia / NEA nea from a fixed K_AMF. */
static struct rs_ue *ctx(struct ransim *rs, uint8_t nia, uint8_t nea)
{
	struct rs_ue *ue = &rs->ues[0];
	unsigned i;

	for (i = 0; i < 32; i++)
		ue->kamf[i] = (uint8_t)(0xa0 + i);
	ue->has_kamf = true;
	ue->nia = nia;
	ue->nea = nea;
	assert_int_equal(crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_INT, nia, ue->kint), 0);
	assert_int_equal(crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_ENC, nea, ue->kenc), 0);
	ue->sec = true;
	return ue;
}

/* Network side: protect m with the UE's keys, downlink COUNT count. */
static size_t net_protect(const struct rs_ue *ue, const struct nas_msg *m, uint8_t sht, uint32_t count,
			  uint8_t *out)
{
	uint8_t mac[4];
	int n = nas_encode(m, out + NAS_SEC_HDR_LEN, 512, NULL);

	assert_true(n > 0);
	if (sht == NAS_SHT_INTEGRITY_CIPHERED && ue->nea)
		assert_int_equal(crypto_nea(ue->nea, ue->kenc, count, RS_NAS_BEARER, CRYPTO_DIR_DOWNLINK, out + NAS_SEC_HDR_LEN,
					    out + NAS_SEC_HDR_LEN, (size_t)n * 8), 0);
	out[NAS_SEC_MAC_OFF] = (uint8_t)count;
	assert_int_equal(crypto_nia(ue->nia, ue->kint, count, RS_NAS_BEARER, CRYPTO_DIR_DOWNLINK, out + NAS_SEC_MAC_OFF,
				    ((size_t)n + 1) * 8, mac), 0);
	assert_int_equal(nas_sec_hdr_enc(out, NAS_SEC_HDR_LEN, sht,
					 (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3],
					 (uint8_t)count), NAS_SEC_HDR_LEN);
	return (size_t)n + NAS_SEC_HDR_LEN;
}

static void cuc(struct nas_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = NAS_CONFIGURATION_UPDATE_COMMAND;
	m->cuc.has_cfg_update_ind = true;
	m->cuc.cfg_update_ind = 1;
	m->cuc.has_local_time_zone = true;
	m->cuc.local_time_zone = 0x40;
}

static void test_dl_verify_decipher(void **state)
{
	static const uint8_t algs[][2] = { { 1, 1 }, { 2, 2 }, { 3, 3 }, { 2, 0 }, { 1, 3 } };
	struct ransim *rs;
	struct nas_msg m, out;
	uint8_t pdu[600];
	size_t n, i;

	(void)state;
	for (i = 0; i < sizeof(algs) / sizeof(algs[0]); i++) {
		struct rs_ue *ue;

		rs = mk();
		ue = ctx(rs, algs[i][0], algs[i][1]);
		cuc(&m);
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 0, pdu);
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), 0);
		assert_int_equal(out.type, NAS_CONFIGURATION_UPDATE_COMMAND);
		assert_int_equal(out.cuc.local_time_zone, 0x40);
		/* a flipped MAC bit: dropped and counted */
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu);
		pdu[2] ^= 0x01;
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), -EACCES);
		/* a flipped body bit */
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu);
		pdu[n - 1] ^= 0x80;
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), -EACCES);
		assert_int_equal(rs->st.dl_mac_fail, 2);
		/* the right one still goes through (COUNT 1) */
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, 1, pdu);
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), 0);
		ransim_free(rs);
	}
}

/* The 8-bit NAS SQN wraps: the UE follows the overflow counter (TS 24.501 4.4.3.1). */
static void test_dl_count_wrap(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 2, 2);
	struct nas_msg m, out;
	uint8_t pdu[600];
	uint32_t count;
	size_t n;

	(void)state;
	cuc(&m);
	for (count = 250; count < 262; count++) {
		n = net_protect(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, count, pdu);
		assert_int_equal(rs_nas_unwrap(ue, pdu, n, &out), 0);
	}
	assert_int_equal(ue->dl_count, 261);
	ransim_free(rs);
}

/* Once security is on, only the TS 24.501 4.4.4.2 list may come unprotected. */
static void test_plain_after_security(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 2, 0);
	struct nas_msg m, out;
	uint8_t pdu[600];
	int n;

	(void)state;
	cuc(&m);
	n = nas_encode(&m, pdu, sizeof(pdu), NULL);
	assert_true(n > 0);
	assert_int_equal(rs_nas_unwrap(ue, pdu, (size_t)n, &out), -EPERM);
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_REJECT;
	m.reg_rej.cause = NAS_5GMM_PLMN_NOT_ALLOWED;
	n = nas_encode(&m, pdu, sizeof(pdu), NULL);
	assert_int_equal(rs_nas_unwrap(ue, pdu, (size_t)n, &out), 0);
	assert_int_equal(out.reg_rej.cause, NAS_5GMM_PLMN_NOT_ALLOWED);
	ransim_free(rs);
}

/* Uplink: what rs_nas_wrap produces verifies and deciphers with the network's view. */
static void test_ul_wrap(void **state)
{
	struct ransim *rs = mk();
	struct rs_ue *ue = ctx(rs, 3, 1);
	struct nas_msg m, out;
	struct nas_sec_hdr hdr;
	uint8_t pdu[600], plain[600], mac[4];
	struct nas_err nerr;
	int n;

	(void)state;
	memset(&m, 0, sizeof(m));
	m.type = NAS_REGISTRATION_COMPLETE;
	ue->ul_count = 7;
	n = rs_nas_wrap(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, pdu, sizeof(pdu), false);
	assert_true(n > NAS_SEC_HDR_LEN);
	assert_int_equal(ue->ul_count, 8);
	assert_int_equal(nas_sec_decode(pdu, (size_t)n, &hdr, &nerr), 0);
	assert_int_equal(hdr.sqn, 7);
	assert_int_equal(crypto_nia(3, ue->kint, 7, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.mac_input.p,
				    (size_t)hdr.mac_input.len * 8, mac), 0);
	assert_int_equal((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3], hdr.mac);
	assert_int_equal(crypto_nea(1, ue->kenc, 7, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.msg.p, plain,
				    (size_t)hdr.msg.len * 8), 0);
	assert_int_equal(nas_decode(plain, hdr.msg.len, &out, &nerr), 0);
	assert_int_equal(out.type, NAS_REGISTRATION_COMPLETE);
	/* corrupted: the MAC differs and the COUNT does not advance */
	n = rs_nas_wrap(ue, &m, NAS_SHT_INTEGRITY_CIPHERED, pdu, sizeof(pdu), true);
	assert_int_equal(ue->ul_count, 8);
	assert_int_equal(nas_sec_decode(pdu, (size_t)n, &hdr, &nerr), 0);
	assert_int_equal(crypto_nia(3, ue->kint, 8, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, hdr.mac_input.p,
				    (size_t)hdr.mac_input.len * 8, mac), 0);
	assert_true(((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3]) != hdr.mac);
	ransim_free(rs);
}

/* Null-scheme SUCI: home PLMN and the MSIN of the SIM in BCD (TS 24.501 9.11.3.4). */
static void test_suci_null(void **state)
{
	struct ransim *rs = mk();
	struct nas_mobile_id id;
	char supi[32];

	(void)state;
	assert_int_equal(rs_nas_suci(&rs->ues[0], &id), 0);
	assert_int_equal(id.type, NAS_MOBID_SUCI);
	assert_int_equal(id.suci.scheme, NAS_SUCI_NULL);
	assert_true(nas_suci_null_supi(&id.suci, supi, sizeof(supi)) > 0);
	assert_string_equal(supi, "imsi-001010123456789");
	ransim_free(rs);
}

/* The latency histogram: exact mean/min/max, percentiles within the 3 % bucket width. */
static void test_latency_histogram(void **state)
{
	static struct rs_lat l;
	uint32_t v;

	(void)state;
	memset(&l, 0, sizeof(l));
	for (v = 1; v <= 1000; v++)
		rs_lat_add(&l, v);
	rs_lat_add(&l, 4000000000u);
	assert_int_equal(l.n, 1001);
	assert_int_equal(l.min, 1);
	assert_int_equal(l.max, 4000000000u);
	assert_true(rs_lat_pct(&l, 50) >= 501 && rs_lat_pct(&l, 50) <= 501 * 103 / 100);
	assert_true(rs_lat_pct(&l, 90) >= 901 && rs_lat_pct(&l, 90) <= 901 * 103 / 100);
	assert_int_equal(rs_lat_pct(&l, 100), 4000000000u);
	memset(&l, 0, sizeof(l));
	rs_lat_add(&l, 7);
	assert_int_equal(rs_lat_pct(&l, 50), 7);   /* small values are exact */
	assert_int_equal(rs_lat_pct(&l, 99), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dl_verify_decipher),
		cmocka_unit_test(test_dl_count_wrap),
		cmocka_unit_test(test_plain_after_security),
		cmocka_unit_test(test_ul_wrap),
		cmocka_unit_test(test_suci_null),
		cmocka_unit_test(test_latency_histogram),
	};
	int err = 0, rc;

	loop = ev_loop_new(&err);
	if (!loop)
		return 1;
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	ev_loop_free(loop);
	crypto_thread_cleanup();
	return rc;
}
