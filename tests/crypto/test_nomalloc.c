/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The hot paths (Milenage, KDFs, AV generation with its RAND and the UE check, NIA/NEA 0-3) do
 * not allocate once the thread's contexts exist. Allocations are counted twice over: our own objects through
 * nomalloc_dep's --wrap, and OpenSSL's through CRYPTO_set_mem_functions (its allocator calls
 * land in malloc here, which is wrapped). SUCI deconcealment is not a per-message path and does
 * allocate (one EVP_PKEY for the peer key and one EVP_PKEY_CTX per call): not checked here. */
#include "crypto_test.h"

#include <openssl/crypto.h>

#include "common/crypto/crypto.h"

static unsigned ossl_allocs;

static void *count_malloc(size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	ossl_allocs++;
	return malloc(n);
}

static void *count_realloc(void *p, size_t n, const char *file, int line)
{
	(void)file;
	(void)line;
	ossl_allocs++;
	return realloc(p, n);
}

static void count_free(void *p, const char *file, int line)
{
	(void)file;
	(void)line;
	free(p);
}

struct keys {
	uint8_t k[16], opc[16], rand[16], sqn[6], amf[2], key32[32], key16[16], msg[100];
};

static void load(struct keys *x)
{
	struct tv_file *f = ct_open("milenage_ts35208.txt");
	int s = ct_sec(f, "test_set_3");

	ct_hex(f, s, "K", x->k, 16, 16);
	ct_hex(f, s, "OPc", x->opc, 16, 16);
	ct_hex(f, s, "RAND", x->rand, 16, 16);
	ct_hex(f, s, "SQN", x->sqn, 6, 6);
	ct_hex(f, s, "AMF", x->amf, 2, 2);
	tv_close(f);
	for (int i = 0; i < 32; i++)
		x->key32[i] = (uint8_t)(i * 7);
	memcpy(x->key16, x->key32, 16);
	for (int i = 0; i < 100; i++)
		x->msg[i] = (uint8_t)i;
}

/* One pass over every hot path; returns the number of failures. */
static int hot_paths(struct keys *x, unsigned round)
{
	static const char snn[] = "5G:mnc001.mcc001.3gppnetwork.org";
	struct crypto_milenage_out mo;
	struct crypto_he_av av;
	struct crypto_usim_sqn usim;
	struct crypto_ue_aka_out ue;
	uint8_t o32[32], o16[16], mac[4], buf[100], abba[2] = { 0, 0 };
	int bad = 0;

	memset(&usim, 0, sizeof(usim));
	bad += crypto_milenage_opc(x->k, x->opc, o16) != 0;
	bad += crypto_milenage_all(x->k, x->opc, x->rand, x->sqn, x->amf, &mo) != 0;
	bad += crypto_kdf_kausf(mo.ck, mo.ik, snn, x->sqn, o32) != 0;
	bad += crypto_kdf_res_star(mo.ck, mo.ik, snn, x->rand, mo.res, 8, o16) != 0;
	bad += crypto_kdf_kseaf(x->key32, snn, o32) != 0;
	bad += crypto_kdf_kamf(x->key32, "imsi-001010000000001", abba, 2, o32) != 0;
	bad += crypto_kdf_alg_key(x->key32, CRYPTO_N_NAS_INT, 2, o16) != 0;
	bad += crypto_kdf_kgnb(x->key32, round, CRYPTO_ACCESS_3GPP, o32) != 0;
	bad += crypto_kdf_nh(x->key32, o32, o32) != 0;
	bad += crypto_kdf_ck_ik_prime(mo.ck, mo.ik, snn, x->sqn, o16, o16) != 0;
	bad += crypto_aka_generate(x->k, x->opc, 0x21 + round * 32, x->amf, snn, x->rand, &av) != 0;
	bad += crypto_aka_ue_check(x->k, x->opc, av.rand, av.autn, snn, &usim, &ue) != 0;
	/* RAND from the CSPRNG buffer: 3 per round, so the 49 rounds refill it twice */
	for (int i = 0; i < 3; i++)
		bad += crypto_aka_generate(x->k, x->opc, 0x21, x->amf, snn, NULL, &av) != 0;
	for (int alg = 0; alg < 4; alg++) {
		/* the key changes per round so the NIA2 subkey cache does not hide a re-key */
		x->key16[0] = (uint8_t)(round + alg);
		bad += crypto_nia(alg, x->key16, round, 1, 0, x->msg, 800, mac) != 0;
		bad += crypto_nea(alg, x->key16, round, 1, 1, x->msg, buf, 800) != 0;
		bad += crypto_nea(alg, x->key16, round, 1, 1, buf, buf, 797) != 0;
	}
	return bad;
}

static void test_no_alloc(void **state)
{
	struct keys x;
	unsigned calls;
	int bad;

	(void)state;
	load(&x);
	assert_int_equal(hot_paths(&x, 0), 0); /* creates this thread's contexts */
	ossl_allocs = 0;
	nomalloc_begin();
	bad = 0;
	for (unsigned r = 1; r < 50; r++)
		bad += hot_paths(&x, r);
	calls = nomalloc_end();
	assert_int_equal(bad, 0);
	if (calls || ossl_allocs)
		fail_msg("hot paths allocated: %u allocator calls (%u from OpenSSL)", calls, ossl_allocs);
}

/* The counter works: context creation on a fresh thread state does allocate. */
static void test_counter_sees_openssl(void **state)
{
	struct keys x;
	unsigned calls;

	(void)state;
	load(&x);
	crypto_thread_cleanup();
	ossl_allocs = 0;
	nomalloc_begin();
	assert_int_equal(hot_paths(&x, 0), 0);
	calls = nomalloc_end();
	assert_true(ossl_allocs > 0);
	assert_true(calls >= ossl_allocs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_alloc),
		cmocka_unit_test(test_counter_sees_openssl),
	};
	int rc;

	/* before OpenSSL allocates anything */
	if (!CRYPTO_set_mem_functions(count_malloc, count_realloc, count_free)) {
		puts("cannot hook OpenSSL's allocator (it allocated already): skipped");
		return 77;
	}
	rc = cmocka_run_group_tests(tests, NULL, NULL);
	crypto_thread_cleanup();
	return rc;
}
