/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The TS 33.220 KDF and TS 33.501 Annex A derivations against every kdf_*.txt vector file. */
#include "crypto_test.h"

#include "common/crypto/crypto.h"

/* Generic KDF with up to 3 hex parameters given as section keys; compares to the want key. */
static void kdf_hex(const struct tv_file *f, int s, const char *keyname, uint8_t fc,
		    const char *const pk[], unsigned n, const char *wantname)
{
	uint8_t key[32], p[3][64], out[32], want[32];
	const uint8_t *pp[3];
	uint16_t l[3];

	ct_hex(f, s, keyname, key, sizeof(key), 32);
	ct_hex(f, s, wantname, want, sizeof(want), 32);
	for (unsigned i = 0; i < n; i++) {
		l[i] = (uint16_t)ct_hex(f, s, pk[i], p[i], sizeof(p[i]), 0);
		pp[i] = p[i];
	}
	assert_int_equal(crypto_kdf(key, 32, fc, pp, l, n, out), 0);
	CT_MEM(out, want, 32, wantname);
}

static void test_srsran_5g(void **state)
{
	struct tv_file *f = ct_open("kdf_srsran_test_vectors.txt");
	uint8_t ck[16], ik[16], rand[16], res[8], sqnak[6], a[32], b[32], o[32], abba[2], o16[16];
	int s;

	(void)state;
	s = ct_sec(f, "res_star");
	ct_hex(f, s, "CK", ck, 16, 16);
	ct_hex(f, s, "IK", ik, 16, 16);
	ct_hex(f, s, "RAND", rand, 16, 16);
	ct_hex(f, s, "RES", res, 8, 8);
	ct_hex(f, s, "RES_star", a, 16, 16);
	assert_int_equal(crypto_kdf_res_star(ck, ik, ct_str(f, s, "serving_network_name_ascii"), rand,
					     res, 8, o), 0);
	assert_memory_equal(o, a, 16);

	s = ct_sec(f, "k_ausf");
	ct_hex(f, s, "CK", ck, 16, 16);
	ct_hex(f, s, "IK", ik, 16, 16);
	ct_hex(f, s, "SQN_xor_AK", sqnak, 6, 6);
	ct_hex(f, s, "K_AUSF", a, 32, 32);
	assert_int_equal(crypto_kdf_kausf(ck, ik, ct_str(f, s, "serving_network_name_ascii"), sqnak,
					  o), 0);
	assert_memory_equal(o, a, 32);

	s = ct_sec(f, "k_seaf");
	ct_hex(f, s, "K_AUSF", a, 32, 32);
	ct_hex(f, s, "K_SEAF", b, 32, 32);
	assert_int_equal(crypto_kdf_kseaf(a, ct_str(f, s, "serving_network_name_ascii"), o), 0);
	assert_memory_equal(o, b, 32);

	for (int i = 0; i < 2; i++) {
		char supi[64];

		s = ct_sec(f, i ? "k_amf_2" : "k_amf_1");
		ct_hex(f, s, "K_SEAF", a, 32, 32);
		ct_hex(f, s, "ABBA", abba, 2, 2);
		ct_hex(f, s, "K_AMF", b, 32, 32);
		assert_int_equal(crypto_kdf_kamf(a, ct_str(f, s, "SUPI_ascii"), abba, 2, o), 0);
		assert_memory_equal(o, b, 32);
		/* the "imsi-" prefix of the SUPI string is dropped (A.7.0) */
		snprintf(supi, sizeof(supi), "imsi-%s", ct_str(f, s, "SUPI_ascii"));
		assert_int_equal(crypto_kdf_kamf(a, supi, abba, 2, o), 0);
		assert_memory_equal(o, b, 32);
	}

	s = ct_sec(f, "k_nas_5g");
	ct_hex(f, s, "K_AMF", a, 32, 32);
	ct_hex(f, s, "K_NASenc", b, 16, 16);
	assert_int_equal(crypto_kdf_alg_key(a, CRYPTO_N_NAS_ENC, 0, o16), 0);
	assert_memory_equal(o16, b, 16);
	ct_hex(f, s, "K_NASint", b, 16, 16);
	assert_int_equal(crypto_kdf_alg_key(a, CRYPTO_N_NAS_INT, 2, o16), 0);
	assert_memory_equal(o16, b, 16);
	{
		static const char *const enc[] = { "enc_distinguisher", "enc_alg_id" };
		static const char *const in[] = { "int_distinguisher", "int_alg_id" };

		kdf_hex(f, s, "K_AMF", 0x69, enc, 2, "K_NASenc_full");
		kdf_hex(f, s, "K_AMF", 0x69, in, 2, "K_NASint_full");
	}

	s = ct_sec(f, "k_gnb");
	ct_hex(f, s, "K_AMF", a, 32, 32);
	ct_hex(f, s, "K_gNB", b, 32, 32);
	assert_int_equal(ct_num(f, s, "UL_NAS_COUNT", 16), 0);
	assert_int_equal(crypto_kdf_kgnb(a, 0, CRYPTO_ACCESS_3GPP, o), 0);
	assert_memory_equal(o, b, 32);
	tv_close(f);
}

/* EPS and NR RRC/UP derivations of the same file through the generic KDF. */
static void test_srsran_generic(void **state)
{
	struct tv_file *f = ct_open("kdf_srsran_test_vectors.txt");
	uint8_t ck[16], ik[16], key[32], sqn[6], ak[6], plmn[3], o[32], want[32];
	const uint8_t *p[2];
	uint16_t l[2];
	int s;

	(void)state;
	s = ct_sec(f, "eps_k_asme"); /* TS 33.401 A.2, FC 0x10 */
	ct_hex(f, s, "CK", ck, 16, 16);
	ct_hex(f, s, "IK", ik, 16, 16);
	ct_hex(f, s, "AK", ak, 6, 6);
	ct_hex(f, s, "SQN", sqn, 6, 6);
	ct_hex(f, s, "PLMN", plmn, 3, 3);
	ct_hex(f, s, "K_ASME", want, 32, 32);
	for (int i = 0; i < 6; i++)
		sqn[i] ^= ak[i];
	memcpy(key, ck, 16);
	memcpy(key + 16, ik, 16);
	p[0] = plmn;
	l[0] = 3;
	p[1] = sqn;
	l[1] = 6;
	assert_int_equal(crypto_kdf(key, 32, 0x10, p, l, 2, o), 0);
	assert_memory_equal(o, want, 32);
	{
		static const uint8_t enc0[2] = { 0x01, 0x00 }, int1[2] = { 0x02, 0x01 };
		static const uint8_t rrcenc0[2] = { 0x03, 0x00 }, rrcint2[2] = { 0x04, 0x02 };
		static const uint8_t upenc0[2] = { 0x05, 0x00 }, upint2[2] = { 0x06, 0x02 };
		const struct { const char *sec, *key, *want; const uint8_t *d; } alg[] = {
			{ "eps_k_nas", "K_ASME", "K_NASenc_full_EEA0", enc0 },
			{ "eps_k_nas", "K_ASME", "K_NASint_full_EIA1", int1 },
			{ "eps_k_rrc_up", "K_eNB", "K_RRCenc_full_EEA0", rrcenc0 },
			{ "eps_k_rrc_up", "K_eNB", "K_RRCint_full_EIA2", rrcint2 },
			{ "eps_k_rrc_up", "K_eNB", "K_UPenc_full_EEA0", upenc0 },
			{ "eps_k_rrc_up", "K_eNB", "K_UPint_full_EIA2", upint2 },
		};

		for (size_t i = 0; i < sizeof(alg) / sizeof(alg[0]); i++) {
			s = ct_sec(f, alg[i].sec);
			ct_hex(f, s, alg[i].key, key, 32, 32);
			ct_hex(f, s, alg[i].want, want, 32, 32);
			p[0] = alg[i].d;
			l[0] = 1;
			p[1] = alg[i].d + 1;
			l[1] = 1;
			assert_int_equal(crypto_kdf(key, 32, 0x15, p, l, 2, o), 0);
			CT_MEM(o, want, 32, alg[i].want);
		}
	}
	{
		static const char *const cnt[] = { "UL_NAS_COUNT" };
		static const char *const star[] = { "PCI", "EARFCN_DL" };
		static const char *const sync[] = { "SYNC_input" };
		static const char *const scg[] = { "SCG_counter" };

		kdf_hex(f, ct_sec(f, "eps_k_enb"), "K_ASME", 0x11, cnt, 1, "K_eNB");
		kdf_hex(f, ct_sec(f, "eps_k_enb_star"), "K_eNB", 0x13, star, 2, "K_eNB_star");
		kdf_hex(f, ct_sec(f, "eps_nh"), "K_ASME", 0x12, sync, 1, "NH");
		kdf_hex(f, ct_sec(f, "en_dc_s_kgnb"), "K_eNB", 0x1c, scg, 1, "S_KgNB");
	}
	/* NR RRC/UP keys from S-KgNB (TS 33.501 A.8) with NEA2 */
	s = ct_sec(f, "nr_k_rrc_up_from_s_kgnb");
	ct_hex(f, s, "S_KgNB", key, 32, 32);
	ct_hex(f, s, "K_RRCenc_full_NEA2", want, 32, 32);
	assert_int_equal(crypto_kdf_alg_key(key, CRYPTO_N_RRC_ENC, 2, o), 0);
	assert_memory_equal(o, want + 16, 16);
	ct_hex(f, s, "K_UPenc_full_NEA2", want, 32, 32);
	assert_int_equal(crypto_kdf_alg_key(key, CRYPTO_N_UP_ENC, 2, o), 0);
	assert_memory_equal(o, want + 16, 16);
	tv_close(f);
}

static void test_srsran_project_nr(void **state)
{
	struct tv_file *f = ct_open("kdf_srsran_project_nr.txt");
	const struct { const char *sec, *want; enum crypto_alg_dist d; uint8_t alg; } t[] = {
		{ "nr_k_rrc", "K_RRCenc_full_NEA2", CRYPTO_N_RRC_ENC, 2 },
		{ "nr_k_rrc", "K_RRCint_full_NIA0", CRYPTO_N_RRC_INT, 0 },
		{ "nr_k_up", "K_UPenc_full_NEA2", CRYPTO_N_UP_ENC, 2 },
		{ "nr_k_up", "K_UPint_full_NIA0", CRYPTO_N_UP_INT, 0 },
	};
	uint8_t key[32], want[32], o[16];

	(void)state;
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		int s = ct_sec(f, t[i].sec);

		ct_hex(f, s, "S_KgNB", key, 32, 32);
		ct_hex(f, s, t[i].want, want, 32, 32);
		assert_int_equal(crypto_kdf_alg_key(key, t[i].d, t[i].alg, o), 0);
		CT_MEM(o, want + 16, 16, t[i].want);
	}
	{
		/* K_NG-RAN* (A.11) with the file's 2-octet ARFCN convention, generic KDF */
		static const char *const p[] = { "PCI", "ARFCN_DL" };

		kdf_hex(f, ct_sec(f, "k_ng_ran_star"), "K_gNB", 0x70, p, 2, "K_NG_RAN_star");
	}
	tv_close(f);
}

static void test_ck_ik_prime(void **state)
{
	struct tv_file *f = ct_open("kdf_eap_aka_prime_ck_ik_prime.txt");
	int s = ct_sec(f, "rfc5448_test_case_1");
	uint8_t ck[16], ik[16], sqnak[6], ckp[16], ikp[16], o1[16], o2[16];

	(void)state;
	ct_hex(f, s, "CK", ck, 16, 16);
	ct_hex(f, s, "IK", ik, 16, 16);
	ct_hex(f, s, "SQN_xor_AK", sqnak, 6, 6);
	ct_hex(f, s, "CK_prime", ckp, 16, 16);
	ct_hex(f, s, "IK_prime", ikp, 16, 16);
	assert_int_equal(crypto_kdf_ck_ik_prime(ck, ik, ct_str(f, s, "access_network_identity_ascii"),
						sqnak, o1, o2), 0);
	assert_memory_equal(o1, ckp, 16);
	assert_memory_equal(o2, ikp, 16);
	tv_close(f);
}

/* The full computed chain from Milenage set 1 (consistency data, see the file header). */
static void test_chain(void **state)
{
	struct tv_file *f = ct_open("kdf_5g_chain_COMPUTED_from_milenage_set1.txt");
	int m = ct_sec(f, "milenage_set1_av"), s = ct_sec(f, "5g_aka");
	int e = ct_sec(f, "eap_aka_prime_ck_ik_prime");
	uint8_t k[16], opc[16], rand[16], amf[2], sqn[6], autn[16], want[32], o[32], o2[16];
	uint8_t kausf[32], kseaf[32], kamf[32], kgnb[32], nh[32], abba[2];
	struct crypto_milenage_out mo;
	const char *snn;

	(void)state;
	ct_hex(f, m, "K", k, 16, 16);
	ct_hex(f, m, "OPc", opc, 16, 16);
	ct_hex(f, m, "RAND", rand, 16, 16);
	ct_hex(f, m, "AMF", amf, 2, 2);
	ct_hex(f, m, "SQN", sqn, 6, 6);
	ct_hex(f, m, "AUTN", autn, 16, 16);
	assert_int_equal(crypto_milenage_all(k, opc, rand, sqn, amf, &mo), 0);
	for (int i = 0; i < 6; i++)
		o[i] = sqn[i] ^ mo.ak[i];
	memcpy(o + 6, amf, 2);
	memcpy(o + 8, mo.mac_a, 8);
	assert_memory_equal(o, autn, 16);

	snn = ct_str(f, s, "serving_network_name_ascii");
	ct_hex(f, s, "XRES_star", want, 16, 16);
	assert_int_equal(crypto_kdf_res_star(mo.ck, mo.ik, snn, rand, mo.res, 8, o), 0);
	assert_memory_equal(o, want, 16);
	ct_hex(f, s, "HXRES_star", want, 16, 16);
	assert_int_equal(crypto_hxres_star(rand, o, o2), 0);
	assert_memory_equal(o2, want, 16);
	ct_hex(f, s, "K_AUSF", want, 32, 32);
	assert_int_equal(crypto_kdf_kausf(mo.ck, mo.ik, snn, autn, kausf), 0);
	assert_memory_equal(kausf, want, 32);
	ct_hex(f, s, "K_SEAF", want, 32, 32);
	assert_int_equal(crypto_kdf_kseaf(kausf, snn, kseaf), 0);
	assert_memory_equal(kseaf, want, 32);
	ct_hex(f, s, "ABBA", abba, 2, 2);
	ct_hex(f, s, "K_AMF", want, 32, 32);
	assert_int_equal(crypto_kdf_kamf(kseaf, ct_str(f, s, "SUPI_ascii"), abba, 2, kamf), 0);
	assert_memory_equal(kamf, want, 32);
	{
		static const char *const nm[3][6] = {
			{ "K_NASenc_NEA1", "K_NASint_NIA1", "K_RRCenc_NEA1", "K_RRCint_NIA1", "K_UPenc_NEA1", "K_UPint_NIA1" },
			{ "K_NASenc_NEA2", "K_NASint_NIA2", "K_RRCenc_NEA2", "K_RRCint_NIA2", "K_UPenc_NEA2", "K_UPint_NIA2" },
			{ "K_NASenc_NEA3", "K_NASint_NIA3", "K_RRCenc_NEA3", "K_RRCint_NIA3", "K_UPenc_NEA3", "K_UPint_NIA3" },
		};

		ct_hex(f, s, "K_gNB", want, 32, 32);
		assert_int_equal(crypto_kdf_kgnb(kamf, 0, CRYPTO_ACCESS_3GPP, kgnb), 0);
		assert_memory_equal(kgnb, want, 32);
		for (int a = 0; a < 3; a++) {
			for (int d = 0; d < 6; d++) {
				/* NAS keys from K_AMF, RRC/UP keys from K_gNB */
				ct_hex(f, s, nm[a][d], want, 16, 16);
				assert_int_equal(crypto_kdf_alg_key(d < 2 ? kamf : kgnb,
					(enum crypto_alg_dist)(d + 1), (uint8_t)(a + 1), o2), 0);
				CT_MEM(o2, want, 16, nm[a][d]);
			}
		}
	}
	ct_hex(f, s, "NH_1", want, 32, 32);
	assert_int_equal(crypto_kdf_nh(kamf, kgnb, nh), 0);
	assert_memory_equal(nh, want, 32);
	ct_hex(f, s, "NH_2", want, 32, 32);
	assert_int_equal(crypto_kdf_nh(kamf, nh, o), 0);
	assert_memory_equal(o, want, 32);

	ct_hex(f, e, "CK_prime", want, 16, 16);
	ct_hex(f, e, "IK_prime", want + 16, 16, 16);
	assert_int_equal(crypto_kdf_ck_ik_prime(mo.ck, mo.ik, snn, autn, o2, o), 0);
	assert_memory_equal(o2, want, 16);
	assert_memory_equal(o, want + 16, 16);
	tv_close(f);
}

/* K_AMF' (A.13) has no published vector: check it is the KDF with FC 0x72, DIRECTION, COUNT,
 * and that direction and count change the result. */
static void test_kamf_prime(void **state)
{
	uint8_t kamf[32], a[32], b[32], c[32], cnt[4] = { 0, 0, 1, 2 }, dir = 1;
	const uint8_t *p[2] = { &dir, cnt };
	uint16_t l[2] = { 1, 4 };

	(void)state;
	for (int i = 0; i < 32; i++)
		kamf[i] = (uint8_t)i;
	assert_int_equal(crypto_kdf_kamf_prime(kamf, CRYPTO_KAMF_HANDOVER, 0x102, a), 0);
	assert_int_equal(crypto_kdf(kamf, 32, 0x72, p, l, 2, b), 0);
	assert_memory_equal(a, b, 32);
	assert_int_equal(crypto_kdf_kamf_prime(kamf, CRYPTO_KAMF_IDLE_MOBILITY, 0x102, c), 0);
	assert_memory_not_equal(a, c, 32);
	assert_int_equal(crypto_kdf_kamf_prime(kamf, (enum crypto_kamf_dir)2, 0, c), -EINVAL);
}

static void test_bad_args(void **state)
{
	uint8_t k[32] = { 0 }, o[32], res[8] = { 0 };

	(void)state;
	assert_int_equal(crypto_kdf_kseaf(k, "", o), -EINVAL);
	assert_int_equal(crypto_kdf_res_star(k, k + 16, "5G:x", k, res, 2, o), -EINVAL);
	assert_int_equal(crypto_kdf_alg_key(k, (enum crypto_alg_dist)7, 1, o), -EINVAL);
	assert_int_equal(crypto_kdf_kgnb(k, 0, (enum crypto_access_type)3, o), -EINVAL);
	assert_int_equal(crypto_kdf(k, 32, 0x10, NULL, NULL, CRYPTO_KDF_MAX_PARAMS + 1, o), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_srsran_5g),
		cmocka_unit_test(test_srsran_generic),
		cmocka_unit_test(test_srsran_project_nr),
		cmocka_unit_test(test_ck_ik_prime),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_kamf_prime),
		cmocka_unit_test(test_bad_args),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	crypto_thread_cleanup();
	return rc;
}
