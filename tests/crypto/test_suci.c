/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* SIDF against TS 33.501 Annex C.4 (tests/vectors/suci_ts33501_annex_c4.txt), both directions,
 * plus the rejections: truncated input, MAC mismatch, unknown key id, point not on the curve. */
#include "crypto_test.h"

#include <unistd.h>

#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>

#include "common/crypto/crypto.h"

struct c4 {
	enum crypto_suci_scheme scheme;
	char hn_priv[80];
	uint8_t hn_pub[33], eph_priv[32], plain[64], out[128];
	int hn_pub_len, plain_len, out_len;
};

static void load(const struct tv_file *f, const char *sec, struct c4 *v)
{
	int s = ct_sec(f, sec), el, cl;
	uint8_t c[64];

	v->scheme = (enum crypto_suci_scheme)ct_num(f, s, "protection_scheme_id", 10);
	snprintf(v->hn_priv, sizeof(v->hn_priv), "%s", ct_str(f, s, "home_network_private_key"));
	v->hn_pub_len = ct_hex(f, s, "home_network_public_key", v->hn_pub, sizeof(v->hn_pub), 0);
	ct_hex(f, s, "eph_private_key", v->eph_priv, 32, 32);
	v->plain_len = ct_hex(f, s, "scheme_input", v->plain, sizeof(v->plain), 0);
	/* scheme output = eph pub || ciphertext || MAC tag (the NAI sections print it as text) */
	el = ct_hex(f, s, "eph_public_key", v->out, sizeof(v->out), 0);
	cl = ct_hex(f, s, "ciphertext", c, sizeof(c), 0);
	memcpy(v->out + el, c, (size_t)cl);
	ct_hex(f, s, "mac_tag", v->out + el + cl, 8, 8);
	v->out_len = el + cl + 8;
	if (tv_get(f, s, "scheme_output")) {
		uint8_t so[128];
		int n = ct_hex(f, s, "scheme_output", so, sizeof(so), 0);

		assert_int_equal(n, v->out_len);
		assert_memory_equal(so, v->out, (size_t)n);
	}
}

static const char *const c4_sections[] = {
	"c_4_3_1_profile_a_imsi", "c_4_3_2_profile_a_nai", "c_4_4_1_profile_b_imsi",
	"c_4_4_2_profile_b_nai",
};

static void test_annex_c4(void **state)
{
	struct tv_file *f = ct_open("suci_ts33501_annex_c4.txt");

	(void)state;
	for (size_t i = 0; i < 4; i++) {
		struct c4 v;
		struct crypto_hn_key *k;
		uint8_t pub[33], plain[64], out[128];

		load(f, c4_sections[i], &v);
		assert_int_equal(crypto_hn_key_load(&k, v.scheme, 1, v.hn_priv), 0);
		assert_int_equal(crypto_hn_key_public(k, pub, sizeof(pub)), v.hn_pub_len);
		CT_MEM(pub, v.hn_pub, (size_t)v.hn_pub_len, "home network public key");
		/* HN side */
		assert_int_equal(crypto_suci_deconceal(k, v.out, (size_t)v.out_len, plain, sizeof(plain)),
				 v.plain_len);
		CT_MEM(plain, v.plain, (size_t)v.plain_len, c4_sections[i]);
		/* UE side with the annex ephemeral key gives the annex scheme output */
		assert_int_equal(crypto_suci_conceal(v.scheme, v.hn_pub, (size_t)v.hn_pub_len, v.eph_priv,
						     v.plain, (size_t)v.plain_len, out, sizeof(out)),
				 v.out_len);
		CT_MEM(out, v.out, (size_t)v.out_len, c4_sections[i]);
		crypto_hn_key_free(k);
	}
	tv_close(f);
}

static void test_null_scheme(void **state)
{
	struct tv_file *f = ct_open("suci_ts33501_annex_c4.txt");
	int s = ct_sec(f, "c_4_2_1_null_scheme_imsi");
	uint8_t in[8], want[8], out[8];
	int n;

	(void)state;
	n = ct_hex(f, s, "scheme_input", in, sizeof(in), 5);
	ct_hex(f, s, "scheme_output", want, sizeof(want), 5);
	assert_int_equal(crypto_suci_conceal(CRYPTO_SUCI_NULL, NULL, 0, NULL, in, (size_t)n, out,
					     sizeof(out)), n);
	assert_memory_equal(out, want, 5);
	assert_int_equal(crypto_suci_deconceal_ring(NULL, CRYPTO_SUCI_NULL, 0, want, 5, out,
						    sizeof(out)), 5);
	assert_memory_equal(out, in, 5);
	tv_close(f);
}

/* Keyring with several key ids; the rejections. */
static void test_keyring_and_rejects(void **state)
{
	struct tv_file *f = ct_open("suci_ts33501_annex_c4.txt");
	struct crypto_keyring *ring = crypto_keyring_new();
	struct crypto_hn_key *ka, *kb, *dup;
	struct c4 a, b;
	uint8_t plain[64], bad[128];

	(void)state;
	assert_non_null(ring);
	load(f, "c_4_3_1_profile_a_imsi", &a);
	load(f, "c_4_4_1_profile_b_imsi", &b);
	assert_int_equal(crypto_hn_key_from_hex(&ka, CRYPTO_SUCI_PROFILE_A, 3, a.hn_priv), 0);
	assert_int_equal(crypto_hn_key_from_hex(&kb, CRYPTO_SUCI_PROFILE_B, 7, b.hn_priv), 0);
	assert_int_equal(crypto_keyring_add(ring, ka), 0);
	assert_int_equal(crypto_keyring_add(ring, kb), 0);
	assert_int_equal(crypto_hn_key_from_hex(&dup, CRYPTO_SUCI_PROFILE_A, 3, a.hn_priv), 0);
	assert_int_equal(crypto_keyring_add(ring, dup), -EEXIST);
	crypto_hn_key_free(dup);
	assert_ptr_equal(crypto_keyring_find(ring, CRYPTO_SUCI_PROFILE_B, 7), kb);
	assert_int_equal(crypto_hn_key_id(kb), 7);
	assert_int_equal(crypto_hn_key_scheme(kb), CRYPTO_SUCI_PROFILE_B);

	/* found by id */
	assert_int_equal(crypto_suci_deconceal_ring(ring, CRYPTO_SUCI_PROFILE_A, 3, a.out,
						    (size_t)a.out_len, plain, sizeof(plain)), 5);
	assert_int_equal(crypto_suci_deconceal_ring(ring, CRYPTO_SUCI_PROFILE_B, 7, b.out,
						    (size_t)b.out_len, plain, sizeof(plain)), 5);
	assert_memory_equal(plain, b.plain, 5);
	/* unknown key id, and a known id of the other profile */
	assert_int_equal(crypto_suci_deconceal_ring(ring, CRYPTO_SUCI_PROFILE_A, 4, a.out,
						    (size_t)a.out_len, plain, sizeof(plain)), -ENOENT);
	assert_int_equal(crypto_suci_deconceal_ring(ring, CRYPTO_SUCI_PROFILE_B, 3, b.out,
						    (size_t)b.out_len, plain, sizeof(plain)), -ENOENT);
	/* truncated: no room for one ciphertext octet, and a cut MAC tag */
	assert_int_equal(crypto_suci_deconceal(ka, a.out, 32 + 8, plain, sizeof(plain)), -EBADMSG);
	assert_int_equal(crypto_suci_deconceal(kb, b.out, 33 + 8, plain, sizeof(plain)), -EBADMSG);
	assert_int_equal(crypto_suci_deconceal(ka, a.out, 5, plain, sizeof(plain)), -EBADMSG);
	assert_int_equal(crypto_suci_deconceal(ka, a.out, (size_t)a.out_len - 1, plain,
					       sizeof(plain)), -EBADMSG);
	/* MAC mismatch: flipped tag bit, flipped ciphertext bit */
	memcpy(bad, a.out, (size_t)a.out_len);
	bad[a.out_len - 1] ^= 1;
	assert_int_equal(crypto_suci_deconceal(ka, bad, (size_t)a.out_len, plain, sizeof(plain)),
			 -EBADMSG);
	memcpy(bad, b.out, (size_t)b.out_len);
	bad[34] ^= 0x10;
	assert_int_equal(crypto_suci_deconceal(kb, bad, (size_t)b.out_len, plain, sizeof(plain)),
			 -EBADMSG);
	/* plaintext buffer too small */
	assert_int_equal(crypto_suci_deconceal(ka, a.out, (size_t)a.out_len, plain, 4), -ENOSPC);
	crypto_keyring_free(ring);
	tv_close(f);
}

/* Profile B: an ephemeral key whose x has no point on P-256 (found with OpenSSL's own decoder),
 * and an uncompressed point where a compressed one is required. Profile A: a small-order point
 * (u = 0) gives an all-zero shared secret and is refused. */
static void test_point_not_on_curve(void **state)
{
	struct tv_file *f = ct_open("suci_ts33501_annex_c4.txt");
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	EC_POINT *pt = EC_POINT_new(g);
	struct crypto_hn_key *ka, *kb;
	struct c4 a, b;
	uint8_t bad[128], plain[64];
	int found = 0;

	(void)state;
	load(f, "c_4_3_1_profile_a_imsi", &a);
	load(f, "c_4_4_1_profile_b_imsi", &b);
	assert_int_equal(crypto_hn_key_from_hex(&ka, CRYPTO_SUCI_PROFILE_A, 1, a.hn_priv), 0);
	assert_int_equal(crypto_hn_key_from_hex(&kb, CRYPTO_SUCI_PROFILE_B, 1, b.hn_priv), 0);
	memcpy(bad, b.out, (size_t)b.out_len);
	for (int x = 1; x < 64 && !found; x++) {
		bad[32] = (uint8_t)x;
		if (EC_POINT_oct2point(g, pt, bad, 33, NULL) != 1)
			found = 1;
	}
	assert_true(found);
	assert_int_equal(crypto_suci_deconceal(kb, bad, (size_t)b.out_len, plain, sizeof(plain)),
			 -EINVAL);
	bad[0] = 0x04;
	assert_int_equal(crypto_suci_deconceal(kb, bad, (size_t)b.out_len, plain, sizeof(plain)),
			 -EINVAL);
	memcpy(bad, a.out, (size_t)a.out_len);
	memset(bad, 0, 32);
	assert_int_equal(crypto_suci_deconceal(ka, bad, (size_t)a.out_len, plain, sizeof(plain)),
			 -EINVAL);
	crypto_hn_key_free(ka);
	crypto_hn_key_free(kb);
	/* a key that is not a scalar of the group, a short key, not hex */
	assert_int_equal(crypto_hn_key_from_hex(&kb, CRYPTO_SUCI_PROFILE_B, 1,
		"ffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffffff"), -EINVAL);
	assert_null(kb);
	assert_int_equal(crypto_hn_key_from_hex(&kb, CRYPTO_SUCI_PROFILE_B, 1, "00ff"), -EINVAL);
	assert_int_equal(crypto_hn_key_from_hex(&ka, CRYPTO_SUCI_PROFILE_A, 1, "zz"), -EINVAL);
	EC_POINT_free(pt);
	EC_GROUP_free(g);
	tv_close(f);
}

/* PEM key files (generated here) and random ephemeral keys: conceal -> deconceal round trip. */
static void test_pem_round_trip(void **state)
{
	static const char *const alg[2][2] = { { "X25519", NULL }, { "EC", "P-256" } };
	const uint8_t nai[] = "verylongusername1";

	(void)state;
	for (int i = 0; i < 2; i++) {
		enum crypto_suci_scheme sc = i ? CRYPTO_SUCI_PROFILE_B : CRYPTO_SUCI_PROFILE_A;
		EVP_PKEY *pk = i ? EVP_PKEY_Q_keygen(NULL, NULL, alg[i][0], alg[i][1])
				 : EVP_PKEY_Q_keygen(NULL, NULL, alg[i][0]);
		char path[] = "/tmp/solocore-crypto-test-XXXXXX";
		int fd = mkstemp(path);
		FILE *fp = fd >= 0 ? fdopen(fd, "w") : NULL;
		struct crypto_hn_key *k, *wrong;
		uint8_t pub[33], out[128], plain[64];
		int pl, ol;

		assert_non_null(pk);
		assert_non_null(fp);
		assert_int_equal(PEM_write_PrivateKey(fp, pk, NULL, NULL, 0, NULL, NULL), 1);
		fclose(fp);
		EVP_PKEY_free(pk);
		/* a config value that is not 64 hex digits is a PEM path */
		assert_int_equal(crypto_hn_key_load(&k, sc, 9, path), 0);
		/* the same file for the other profile is refused */
		assert_int_equal(crypto_hn_key_from_pem(&wrong, i ? CRYPTO_SUCI_PROFILE_A
								  : CRYPTO_SUCI_PROFILE_B, 9, path),
				 -EINVAL);
		unlink(path);
		pl = crypto_hn_key_public(k, pub, sizeof(pub));
		assert_int_equal(pl, i ? 33 : 32);
		ol = crypto_suci_conceal(sc, pub, (size_t)pl, NULL, nai, sizeof(nai) - 1, out,
					 sizeof(out));
		assert_int_equal(ol, pl + (int)sizeof(nai) - 1 + 8);
		assert_int_equal(crypto_suci_deconceal(k, out, (size_t)ol, plain, sizeof(plain)),
				 (int)sizeof(nai) - 1);
		assert_memory_equal(plain, nai, sizeof(nai) - 1);
		crypto_hn_key_free(k);
	}
	assert_int_equal(crypto_hn_key_from_pem(NULL, CRYPTO_SUCI_PROFILE_A, 1, "/nonexistent"),
			 -EINVAL);
	{
		struct crypto_hn_key *k;

		assert_int_equal(crypto_hn_key_from_pem(&k, CRYPTO_SUCI_PROFILE_A, 1, "/nonexistent"),
				 -ENOENT);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_annex_c4),
		cmocka_unit_test(test_null_scheme),
		cmocka_unit_test(test_keyring_and_rejects),
		cmocka_unit_test(test_point_not_on_curve),
		cmocka_unit_test(test_pem_round_trip),
	};
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	crypto_thread_cleanup();
	return rc;
}
