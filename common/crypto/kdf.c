/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* The TS 33.220 Annex B.2 KDF and the TS 33.501 Annex A derivations built on it.
 *
 * HMAC-SHA-256 is done here on OpenSSL's SHA256_* functions instead of EVP_MAC: in OpenSSL 3.0
 * every EVP_MAC_init() with a new key allocates (5 calls measured) and EVP_DigestInit allocates
 * once, while SHA256_Init/Update/Final work on a stack context and still use the SHA-NI / AVX2
 * block function. They are deprecated in 3.0 but present in all 3.x releases; if they go, this file
 * is the only place to change. */
#define OPENSSL_SUPPRESS_DEPRECATED 1
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/sha.h>

void crypto_sha256(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t out[32])
{
	SHA256_CTX c;

	SHA256_Init(&c);
	SHA256_Update(&c, a, alen);
	if (blen)
		SHA256_Update(&c, b, blen);
	SHA256_Final(out, &c);
	OPENSSL_cleanse(&c, sizeof(c));
}

/* RFC 2104 HMAC with SHA-256 (block 64 octets). */
void crypto_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *const piece[],
			const size_t plen[], unsigned n, uint8_t out[32])
{
	uint8_t k[64], pad[64], inner[32];
	SHA256_CTX c;

	memset(k, 0, sizeof(k));
	if (keylen > sizeof(k))
		crypto_sha256(key, keylen, NULL, 0, k);
	else
		memcpy(k, key, keylen);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x36;
	SHA256_Init(&c);
	SHA256_Update(&c, pad, sizeof(pad));
	for (unsigned i = 0; i < n; i++)
		SHA256_Update(&c, piece[i], plen[i]);
	SHA256_Final(inner, &c);
	for (int i = 0; i < 64; i++)
		pad[i] = k[i] ^ 0x5c;
	SHA256_Init(&c);
	SHA256_Update(&c, pad, sizeof(pad));
	SHA256_Update(&c, inner, sizeof(inner));
	SHA256_Final(out, &c);
	OPENSSL_cleanse(k, sizeof(k));
	OPENSSL_cleanse(pad, sizeof(pad));
	OPENSSL_cleanse(inner, sizeof(inner));
	OPENSSL_cleanse(&c, sizeof(c));
}

/* S = FC || P0 || L0 || ... : assembled in a stack buffer (strings are short: the longest P is
 * an NAI SUPI or a serving network name). */
#define KDF_S_MAX 1024

int crypto_kdf(const uint8_t *key, size_t keylen, uint8_t fc, const uint8_t *const p[],
	       const uint16_t len[], unsigned n, uint8_t out[32])
{
	uint8_t s[KDF_S_MAX];
	size_t off = 0;
	const uint8_t *piece[1];
	size_t plen[1];

	if (!key || !out || n > CRYPTO_KDF_MAX_PARAMS || (n && (!p || !len)))
		return -EINVAL;
	s[off++] = fc;
	for (unsigned i = 0; i < n; i++) {
		if (off + len[i] + 2 > sizeof(s))
			return -ENOSPC;
		if (len[i])
			memcpy(s + off, p[i], len[i]);
		off += len[i];
		s[off++] = (uint8_t)(len[i] >> 8);
		s[off++] = (uint8_t)len[i];
	}
	piece[0] = s;
	plen[0] = off;
	crypto_hmac_sha256(key, keylen, piece, plen, 1, out);
	OPENSSL_cleanse(s, off);
	return 0;
}

static int str_len16(const char *s, uint16_t *len)
{
	size_t l;

	if (!s)
		return -EINVAL;
	l = strlen(s);
	if (l == 0 || l > 512)
		return -EINVAL;
	*len = (uint16_t)l;
	return 0;
}

/* The derivations keyed with CK || IK: P0 = a network name string, then n more parameters. */
static int kdf_ckik(const uint8_t ck[16], const uint8_t ik[16], uint8_t fc, const char *name,
		    const uint8_t *const more[], const uint16_t more_len[], unsigned n, uint8_t out[32])
{
	uint8_t key[32];
	const uint8_t *p[3] = { (const uint8_t *)name };
	uint16_t l[3];
	int rc = str_len16(name, &l[0]);

	if (rc || n > 2)
		return rc ? rc : -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		p[i + 1] = more[i];
		l[i + 1] = more_len[i];
	}
	memcpy(key, ck, 16);
	memcpy(key + 16, ik, 16);
	rc = crypto_kdf(key, sizeof(key), fc, p, l, n + 1, out);
	OPENSSL_cleanse(key, sizeof(key));
	return rc;
}

int crypto_kdf_kausf(const uint8_t ck[16], const uint8_t ik[16], const char *snn,
		     const uint8_t sqn_xor_ak[6], uint8_t kausf[32])
{
	const uint8_t *p[1] = { sqn_xor_ak };
	const uint16_t l[1] = { 6 };

	return kdf_ckik(ck, ik, 0x6a, snn, p, l, 1, kausf); /* TS 33.501 A.2 */
}

int crypto_kdf_res_star(const uint8_t ck[16], const uint8_t ik[16], const char *snn,
			const uint8_t rand[16], const uint8_t *res, size_t res_len,
			uint8_t res_star[16])
{
	const uint8_t *p[2] = { rand, res };
	const uint16_t l[2] = { 16, (uint16_t)res_len };
	uint8_t o[32];
	int rc;

	/* TS 33.102: RES is 4..16 octets (Milenage gives 8). */
	if (!res || res_len < 4 || res_len > 16)
		return -EINVAL;
	rc = kdf_ckik(ck, ik, 0x6b, snn, p, l, 2, o); /* TS 33.501 A.4 */
	if (!rc)
		memcpy(res_star, o + 16, 16);         /* 128 least significant bits */
	OPENSSL_cleanse(o, sizeof(o));
	return rc;
}

int crypto_hxres_star(const uint8_t rand[16], const uint8_t xres_star[16], uint8_t hxres_star[16])
{
	uint8_t h[32];

	/* TS 33.501 A.5: SHA-256(RAND || XRES*), the 128 least significant bits. */
	crypto_sha256(rand, 16, xres_star, 16, h);
	memcpy(hxres_star, h + 16, 16);
	return 0;
}

int crypto_kdf_kseaf(const uint8_t kausf[32], const char *snn, uint8_t kseaf[32])
{
	const uint8_t *p[1] = { (const uint8_t *)snn };
	uint16_t l[1];
	int rc = str_len16(snn, &l[0]);

	return rc ? rc : crypto_kdf(kausf, 32, 0x6c, p, l, 1, kseaf); /* TS 33.501 A.6 */
}

int crypto_kdf_kamf(const uint8_t kseaf[32], const char *supi, const uint8_t *abba, size_t abba_len,
		    uint8_t kamf[32])
{
	const uint8_t *p[2];
	uint16_t l[2];
	int rc;

	if (!supi || !abba || abba_len < 2 || abba_len > 64)
		return -EINVAL;
	/* TS 33.501 A.7.0: the IMSI digits (TS 23.003 2.2) or the NAI, without the type prefix
	 * of the TS 29.571 SUPI string. */
	if (!strncmp(supi, "imsi-", 5))
		supi += 5;
	else if (!strncmp(supi, "nai-", 4))
		supi += 4;
	rc = str_len16(supi, &l[0]);
	if (rc)
		return rc;
	p[0] = (const uint8_t *)supi;
	p[1] = abba;
	l[1] = (uint16_t)abba_len;
	return crypto_kdf(kseaf, 32, 0x6d, p, l, 2, kamf);
}

int crypto_kdf_alg_key(const uint8_t key[32], enum crypto_alg_dist dist, uint8_t alg_id,
		       uint8_t out[16])
{
	uint8_t d = (uint8_t)dist, o[32];
	const uint8_t *p[2] = { &d, &alg_id };
	uint16_t l[2] = { 1, 1 };
	int rc;

	if (dist < CRYPTO_N_NAS_ENC || dist > CRYPTO_N_UP_INT)
		return -EINVAL;
	rc = crypto_kdf(key, 32, 0x69, p, l, 2, o); /* TS 33.501 A.8 */
	if (!rc)
		memcpy(out, o + 16, 16);            /* 128 least significant bits */
	OPENSSL_cleanse(o, sizeof(o));
	return rc;
}

int crypto_kdf_kgnb(const uint8_t kamf[32], uint32_t ul_nas_count, enum crypto_access_type at,
		    uint8_t kgnb[32])
{
	uint8_t cnt[4], a = (uint8_t)at;
	const uint8_t *p[2] = { cnt, &a };
	uint16_t l[2] = { 4, 1 };

	if (at != CRYPTO_ACCESS_3GPP && at != CRYPTO_ACCESS_NON_3GPP)
		return -EINVAL;
	crypto_put_be32(cnt, ul_nas_count);
	return crypto_kdf(kamf, 32, 0x6e, p, l, 2, kgnb); /* TS 33.501 A.9 */
}

int crypto_kdf_nh(const uint8_t kamf[32], const uint8_t sync_input[32], uint8_t nh[32])
{
	const uint8_t *p[1] = { sync_input };
	uint16_t l[1] = { 32 };

	return crypto_kdf(kamf, 32, 0x6f, p, l, 1, nh); /* TS 33.501 A.10 */
}

int crypto_kdf_kamf_prime(const uint8_t kamf[32], enum crypto_kamf_dir dir, uint32_t count,
			  uint8_t kamf_prime[32])
{
	uint8_t d = (uint8_t)dir, cnt[4];
	const uint8_t *p[2] = { &d, cnt };
	uint16_t l[2] = { 1, 4 };

	if (dir != CRYPTO_KAMF_IDLE_MOBILITY && dir != CRYPTO_KAMF_HANDOVER)
		return -EINVAL;
	crypto_put_be32(cnt, count);
	return crypto_kdf(kamf, 32, 0x72, p, l, 2, kamf_prime); /* TS 33.501 A.13 */
}

int crypto_kdf_ck_ik_prime(const uint8_t ck[16], const uint8_t ik[16], const char *net_name,
			   const uint8_t sqn_xor_ak[6], uint8_t ck_prime[16], uint8_t ik_prime[16])
{
	const uint8_t *p[1] = { sqn_xor_ak };
	const uint16_t l[1] = { 6 };
	uint8_t o[32];
	int rc = kdf_ckik(ck, ik, 0x20, net_name, p, l, 1, o); /* TS 33.402 A.2 */

	if (!rc) {
		memcpy(ck_prime, o, 16);
		memcpy(ik_prime, o + 16, 16);
	}
	OPENSSL_cleanse(o, sizeof(o));
	return rc;
}
