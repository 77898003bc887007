/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* NIA1/2/3 and NEA1/2/3 against every set of tests/vectors/ni?*_test_sets.txt and nea*_test_sets.txt
 * (TS 33.401 Annex C, ETSI/SAGE EEA3/EIA3 Document 3), including the non-octet bit lengths. */
#include "crypto_test.h"

#include "common/crypto/crypto.h"

#include <openssl/evp.h>

#define MAXB 4096

struct nas_set {
	uint8_t key[16];
	uint32_t count;
	uint8_t bearer, dir;
	size_t bits;
	uint8_t in[MAXB], want[MAXB];
};

static void load(const struct tv_file *f, int s, const char *in, const char *out, struct nas_set *v)
{
	int n;

	ct_hex(f, s, "KEY", v->key, 16, 16);
	v->count = (uint32_t)ct_num(f, s, "COUNT", 16);
	v->bearer = (uint8_t)ct_num(f, s, "BEARER", 16);
	v->dir = (uint8_t)ct_num(f, s, "DIRECTION", 10);
	v->bits = ct_num(f, s, "LENGTH", 10);
	n = ct_hex(f, s, in, v->in, MAXB, 0);
	if ((size_t)n != (v->bits + 7) / 8)
		fail_msg("[%s] %s has %d octets for %zu bits", tv_section_name(f, s), in, n, v->bits);
	ct_hex(f, s, out, v->want, MAXB, 0);
}

static int run_nia(int alg, const char *file)
{
	struct tv_file *f = ct_open(file);
	static struct nas_set v;
	int sets = 0;

	for (int s = 0; s < tv_sections(f); s++) {
		uint8_t mac[4];

		load(f, s, "MESSAGE", "MAC", &v);
		assert_int_equal(crypto_nia(alg, v.key, v.count, v.bearer, v.dir, v.in, v.bits, mac), 0);
		CT_MEM(mac, v.want, 4, tv_section_name(f, s));
		/* bits after LENGTH are don't care */
		if (v.bits % 8) {
			v.in[v.bits / 8] ^= (uint8_t)(0xffu >> (v.bits % 8));
			assert_int_equal(crypto_nia(alg, v.key, v.count, v.bearer, v.dir, v.in, v.bits,
						    mac), 0);
			CT_MEM(mac, v.want, 4, "MAC with flipped padding bits");
		}
		/* a flipped message bit changes the MAC (the receiver's check) */
		v.in[0] ^= 0x80;
		assert_int_equal(crypto_nia(alg, v.key, v.count, v.bearer, v.dir, v.in, v.bits, mac), 0);
		assert_memory_not_equal(mac, v.want, 4);
		sets++;
	}
	tv_close(f);
	return sets;
}

static int run_nea(int alg, const char *file)
{
	struct tv_file *f = ct_open(file);
	static struct nas_set v;
	static uint8_t out[MAXB], back[MAXB];
	int sets = 0;

	for (int s = 0; s < tv_sections(f); s++) {
		size_t n;

		load(f, s, "PLAINTEXT", "CIPHERTEXT", &v);
		n = (v.bits + 7) / 8;
		assert_int_equal(crypto_nea(alg, v.key, v.count, v.bearer, v.dir, v.in, out, v.bits), 0);
		ct_bits_equal(out, v.want, v.bits, tv_section_name(f, s));
		if (v.bits % 8) /* the output's trailing bits are cleared */
			assert_int_equal(out[n - 1] & (0xffu >> (v.bits % 8)), 0);
		/* decryption, in place */
		memcpy(back, out, n);
		assert_int_equal(crypto_nea(alg, v.key, v.count, v.bearer, v.dir, back, back, v.bits), 0);
		ct_bits_equal(back, v.in, v.bits, "in-place decryption");
		sets++;
	}
	tv_close(f);
	return sets;
}

static void test_nia1(void **state) { (void)state; assert_int_equal(run_nia(1, "nia1_test_sets.txt"), 7); }
static void test_nia2(void **state) { (void)state; assert_int_equal(run_nia(2, "nia2_test_sets.txt"), 8); }
static void test_nia3(void **state) { (void)state; assert_int_equal(run_nia(3, "nia3_test_sets.txt"), 5); }
static void test_nea1(void **state) { (void)state; assert_int_equal(run_nea(1, "nea1_test_sets.txt"), 12); }
static void test_nea2(void **state) { (void)state; assert_int_equal(run_nea(2, "nea2_test_sets.txt"), 6); }
static void test_nea3(void **state) { (void)state; assert_int_equal(run_nea(3, "nea3_test_sets.txt"), 5); }

/* NIA2 caches CMAC subkeys per key: interleaving keys must not mix them up. */
static void test_nia2_key_switch(void **state)
{
	struct tv_file *f = ct_open("nia2_test_sets.txt");
	static struct nas_set a, b;
	uint8_t mac[4];

	(void)state;
	load(f, ct_sec(f, "test_set_2"), "MESSAGE", "MAC", &a);
	load(f, ct_sec(f, "test_set_5"), "MESSAGE", "MAC", &b);
	for (int i = 0; i < 3; i++) {
		assert_int_equal(crypto_nia(2, a.key, a.count, a.bearer, a.dir, a.in, a.bits, mac), 0);
		assert_memory_equal(mac, a.want, 4);
		assert_int_equal(crypto_nia(2, b.key, b.count, b.bearer, b.dir, b.in, b.bits, mac), 0);
		assert_memory_equal(mac, b.want, 4);
	}
	tv_close(f);
}

/* NIA2 does not reset its CBC context between MACs with the same key (it chains on from the
 * previous MAC's last block): every set several times in a row, each one-block, multi-block and
 * multi-chunk case following every other, must still give the published MAC. */
static void test_nia2_same_key_chain(void **state)
{
	struct tv_file *f = ct_open("nia2_test_sets.txt");
	static struct nas_set v[16];
	int n = tv_sections(f);
	uint8_t mac[4];

	(void)state;
	assert_true(n >= 8 && n <= 16);
	for (int s = 0; s < n; s++)
		load(f, s, "MESSAGE", "MAC", &v[s]);
	for (int s = 0; s < n; s++) {
		for (int rep = 0; rep < 3; rep++) {
			assert_int_equal(crypto_nia(2, v[s].key, v[s].count, v[s].bearer, v[s].dir, v[s].in,
						    v[s].bits, mac), 0);
			assert_memory_equal(mac, v[s].want, 4);
		}
		/* the same key, a one-block message (64 prefix bits + 0 bits) in between: the MAC of
		 * the empty message, then the set again */
		assert_int_equal(crypto_nia(2, v[s].key, v[s].count, v[s].bearer, v[s].dir, v[s].in, 0, mac), 0);
		assert_int_equal(crypto_nia(2, v[s].key, v[s].count, v[s].bearer, v[s].dir, v[s].in,
					    v[s].bits, mac), 0);
		assert_memory_equal(mac, v[s].want, 4);
	}
	tv_close(f);
}

/* 128-NEA2 makes its keystream from a kept ECB context: messages longer than its 512-octet
 * chunk, the same key again, another key and back, bit lengths that end inside a block, all
 * equal AES-128-CTR from OpenSSL with the TS 33.401 B.1.3 initial counter block. */
static void test_nea2_against_evp_ctr(void **state)
{
	static uint8_t in[2100], got[2100], want[2100];
	static const size_t bits[] = { 1, 8, 127, 128, 129, 4095, 4096, 4097, 8 * 1500 + 3, 8 * 2100 };
	uint8_t key[2][16];
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	(void)state;
	assert_non_null(ctx);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (uint8_t)(i * 131u + 7u);
	for (int k = 0; k < 16; k++) {
		key[0][k] = (uint8_t)(0xa0 + k);
		key[1][k] = (uint8_t)(0x11 * k);
	}
	for (int rep = 0; rep < 6; rep++) {
		const uint8_t *kk = key[rep % 3 == 2];     /* key 0, key 0, key 1, key 0, ... */
		uint32_t count = 0x01020304u + (uint32_t)rep;
		uint8_t bearer = (uint8_t)(rep * 5 % 32), dir = (uint8_t)(rep & 1);

		for (size_t b = 0; b < sizeof(bits) / sizeof(bits[0]); b++) {
			size_t n = (bits[b] + 7) / 8;
			uint8_t iv[16] = { (uint8_t)(count >> 24), (uint8_t)(count >> 16), (uint8_t)(count >> 8),
					   (uint8_t)count, (uint8_t)(bearer << 3 | dir << 2) };
			int olen;

			assert_int_equal(EVP_EncryptInit_ex(ctx, EVP_aes_128_ctr(), NULL, kk, iv), 1);
			assert_int_equal(EVP_EncryptUpdate(ctx, want, &olen, in, (int)n), 1);
			if (bits[b] % 8)
				want[n - 1] &= (uint8_t)(0xff00u >> (bits[b] % 8));
			assert_int_equal(crypto_nea(2, kk, count, bearer, dir, in, got, bits[b]), 0);
			assert_memory_equal(got, want, n);
		}
	}
	EVP_CIPHER_CTX_free(ctx);
}

static void test_null_algs(void **state)
{
	uint8_t msg[5] = { 1, 2, 3, 4, 0xff }, out[5], mac[4] = { 1, 1, 1, 1 };

	(void)state;
	assert_int_equal(crypto_nia(0, NULL, 1, 0, 0, msg, 40, mac), 0);
	assert_memory_equal(mac, "\0\0\0\0", 4);
	assert_int_equal(crypto_nea(0, NULL, 1, 0, 0, msg, out, 36), 0);
	assert_memory_equal(out, msg, 4);
	assert_int_equal(out[4], 0xf0);
}

static void test_bad_args(void **state)
{
	uint8_t key[16] = { 0 }, msg[4] = { 0 }, mac[4];

	(void)state;
	assert_int_equal(crypto_nia(4, key, 0, 0, 0, msg, 32, mac), -EINVAL);
	assert_int_equal(crypto_nia(2, key, 0, 32, 0, msg, 32, mac), -EINVAL);
	assert_int_equal(crypto_nia(2, key, 0, 0, 2, msg, 32, mac), -EINVAL);
	assert_int_equal(crypto_nea(-1, key, 0, 0, 0, msg, msg, 32), -EINVAL);
	assert_int_equal(crypto_nia(1, NULL, 0, 0, 0, msg, 32, mac), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nia1),
		cmocka_unit_test(test_nia2),
		cmocka_unit_test(test_nia3),
		cmocka_unit_test(test_nea1),
		cmocka_unit_test(test_nea2),
		cmocka_unit_test(test_nea3),
		cmocka_unit_test(test_nia2_key_switch),
		cmocka_unit_test(test_nia2_same_key_chain),
		cmocka_unit_test(test_nea2_against_evp_ctr),
		cmocka_unit_test(test_null_algs),
		cmocka_unit_test(test_bad_args),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	crypto_thread_cleanup();
	return rc;
}
