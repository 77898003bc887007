/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* SIDF: SUCI concealment and deconcealment with ECIES (TS 33.501 6.12.2 and Annex C.3):
 *  profile A: X25519, profile B: secp256r1 with a compressed ephemeral public key (C.3.4.1/2);
 *  both: ANSI X9.63 KDF with SHA-256 and SharedInfo = the ephemeral public key as sent,
 *  64 octets = encryption key (16) || ICB (16) || MAC key (32), AES-128-CTR, HMAC-SHA-256 tag
 *  truncated to 8 octets (C.3.3). Keys and shared secrets are wiped and never logged. */
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/bn.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/param_build.h>
#include <openssl/pem.h>

#define ECIES_KEY_LEN 32
#define P256_COMPRESSED 33
#define P256_UNCOMPRESSED 65

struct crypto_hn_key {
	enum crypto_suci_scheme scheme;
	uint8_t id;
	EVP_PKEY *pkey;
	uint8_t pub[CRYPTO_SUCI_MAX_PUB];
	size_t pub_len;
};

struct crypto_keyring {
	struct crypto_hn_key **keys;
	size_t n, cap;
};

/* ---- P-256 helpers ---- */

/* Convert any SEC1 encoding of a P-256 point to the compressed form; -EINVAL if not on the curve. */
static int p256_compress(const uint8_t *in, size_t len, uint8_t out[P256_COMPRESSED])
{
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	EC_POINT *pt = g ? EC_POINT_new(g) : NULL;
	int rc = -ENOMEM;

	if (pt) {
		rc = -EINVAL;
		if (EC_POINT_oct2point(g, pt, in, len, NULL) == 1 &&
		    EC_POINT_point2oct(g, pt, POINT_CONVERSION_COMPRESSED, out, P256_COMPRESSED,
				       NULL) == P256_COMPRESSED)
			rc = 0;
	}
	EC_POINT_free(pt);
	EC_GROUP_free(g);
	return rc;
}

/* Build an EVP_PKEY from P-256 parameters; priv may be NULL (public key only). The public point
 * is checked to be on the curve by the import (EC_POINT_oct2point). */
static int p256_pkey(const uint8_t *priv, const uint8_t *pub, size_t pub_len, EVP_PKEY **out)
{
	OSSL_PARAM_BLD *b = OSSL_PARAM_BLD_new();
	OSSL_PARAM *params = NULL;
	EVP_PKEY_CTX *ctx = NULL;
	BIGNUM *d = NULL;
	int rc = -ENOMEM;

	*out = NULL;
	if (!b)
		goto out;
	if (!OSSL_PARAM_BLD_push_utf8_string(b, OSSL_PKEY_PARAM_GROUP_NAME, "prime256v1", 0) ||
	    !OSSL_PARAM_BLD_push_octet_string(b, OSSL_PKEY_PARAM_PUB_KEY, pub, pub_len))
		goto out;
	if (priv) {
		d = BN_secure_new();
		if (!d || !BN_bin2bn(priv, ECIES_KEY_LEN, d) ||
		    !OSSL_PARAM_BLD_push_BN(b, OSSL_PKEY_PARAM_PRIV_KEY, d))
			goto out;
	}
	params = OSSL_PARAM_BLD_to_param(b);
	ctx = EVP_PKEY_CTX_new_from_name(NULL, "EC", NULL);
	if (!params || !ctx)
		goto out;
	rc = -EINVAL;
	if (EVP_PKEY_fromdata_init(ctx) != 1 ||
	    EVP_PKEY_fromdata(ctx, out, priv ? EVP_PKEY_KEYPAIR : EVP_PKEY_PUBLIC_KEY, params) != 1)
		goto out;
	rc = 0;
out:
	EVP_PKEY_CTX_free(ctx);
	OSSL_PARAM_free(params);
	OSSL_PARAM_BLD_free(b);
	BN_clear_free(d);
	return rc;
}

/* P-256 key pair from a raw private scalar: pub = d * G, 0 < d < n. */
static int p256_from_priv(const uint8_t priv[ECIES_KEY_LEN], EVP_PKEY **out,
			  uint8_t pub[P256_COMPRESSED])
{
	EC_GROUP *g = EC_GROUP_new_by_curve_name(NID_X9_62_prime256v1);
	EC_POINT *pt = g ? EC_POINT_new(g) : NULL;
	BIGNUM *d = BN_secure_new();
	uint8_t unc[P256_UNCOMPRESSED];
	int rc = -ENOMEM;

	if (!pt || !d)
		goto out;
	rc = -EINVAL;
	if (!BN_bin2bn(priv, ECIES_KEY_LEN, d) || BN_is_zero(d) ||
	    BN_cmp(d, EC_GROUP_get0_order(g)) >= 0)
		goto out;
	if (EC_POINT_mul(g, pt, d, NULL, NULL, NULL) != 1 ||
	    EC_POINT_point2oct(g, pt, POINT_CONVERSION_UNCOMPRESSED, unc, sizeof(unc), NULL) !=
		    sizeof(unc) ||
	    EC_POINT_point2oct(g, pt, POINT_CONVERSION_COMPRESSED, pub, P256_COMPRESSED, NULL) !=
		    P256_COMPRESSED)
		goto out;
	rc = p256_pkey(priv, unc, sizeof(unc), out);
out:
	BN_clear_free(d);
	EC_POINT_free(pt);
	EC_GROUP_free(g);
	return rc;
}

/* Raw or compressed public key of a key pair of the scheme. */
static int pkey_public(enum crypto_suci_scheme scheme, EVP_PKEY *pk, uint8_t *pub, size_t *len)
{
	uint8_t unc[P256_UNCOMPRESSED];
	size_t l = 0;

	if (scheme == CRYPTO_SUCI_PROFILE_A) {
		l = ECIES_KEY_LEN;
		if (EVP_PKEY_get_raw_public_key(pk, pub, &l) != 1 || l != ECIES_KEY_LEN)
			return -EINVAL;
		*len = l;
		return 0;
	}
	if (EVP_PKEY_get_octet_string_param(pk, OSSL_PKEY_PARAM_PUB_KEY, unc, sizeof(unc), &l) != 1)
		return -EINVAL;
	*len = P256_COMPRESSED;
	return p256_compress(unc, l, pub);
}

/* ---- home network keys ---- */

static int key_new(struct crypto_hn_key **out, enum crypto_suci_scheme scheme, uint8_t id,
		   EVP_PKEY *pk)
{
	struct crypto_hn_key *k = calloc(1, sizeof(*k));
	int rc;

	if (!k) {
		EVP_PKEY_free(pk);
		return -ENOMEM;
	}
	k->scheme = scheme;
	k->id = id;
	k->pkey = pk;
	rc = pkey_public(scheme, pk, k->pub, &k->pub_len);
	if (rc) {
		crypto_hn_key_free(k);
		return rc;
	}
	*out = k;
	return 0;
}

int crypto_hn_key_from_hex(struct crypto_hn_key **out, enum crypto_suci_scheme scheme,
			   uint8_t key_id, const char *hex)
{
	uint8_t priv[ECIES_KEY_LEN], pub[P256_COMPRESSED];
	EVP_PKEY *pk = NULL;
	long len = 0;
	unsigned char *raw;
	int rc = -EINVAL;

	if (!out || !hex || (scheme != CRYPTO_SUCI_PROFILE_A && scheme != CRYPTO_SUCI_PROFILE_B))
		return -EINVAL;
	*out = NULL;
	raw = OPENSSL_hexstr2buf(hex, &len); /* accepts "ab:cd" and "abcd" */
	if (!raw)
		return -EINVAL;
	if (len == ECIES_KEY_LEN) {
		memcpy(priv, raw, sizeof(priv));
		if (scheme == CRYPTO_SUCI_PROFILE_A) {
			pk = EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, priv, sizeof(priv));
			rc = pk ? 0 : -EINVAL;
		} else {
			rc = p256_from_priv(priv, &pk, pub);
		}
	}
	OPENSSL_clear_free(raw, (size_t)len);
	OPENSSL_cleanse(priv, sizeof(priv));
	return rc ? rc : key_new(out, scheme, key_id, pk);
}

int crypto_hn_key_from_pem(struct crypto_hn_key **out, enum crypto_suci_scheme scheme,
			   uint8_t key_id, const char *path)
{
	EVP_PKEY *pk;
	FILE *f;
	char group[32];
	size_t glen = 0;

	if (!out || !path || (scheme != CRYPTO_SUCI_PROFILE_A && scheme != CRYPTO_SUCI_PROFILE_B))
		return -EINVAL;
	*out = NULL;
	f = fopen(path, "r");
	if (!f)
		return -errno;
	pk = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	if (!pk)
		return -EINVAL;
	if (scheme == CRYPTO_SUCI_PROFILE_A ? !EVP_PKEY_is_a(pk, "X25519")
	    : !EVP_PKEY_is_a(pk, "EC") ||
	      EVP_PKEY_get_utf8_string_param(pk, OSSL_PKEY_PARAM_GROUP_NAME, group, sizeof(group),
					     &glen) != 1 ||
	      (strcmp(group, "prime256v1") && strcmp(group, "P-256"))) {
		EVP_PKEY_free(pk);
		return -EINVAL;
	}
	return key_new(out, scheme, key_id, pk);
}

int crypto_hn_key_load(struct crypto_hn_key **out, enum crypto_suci_scheme scheme, uint8_t key_id,
		       const char *value)
{
	size_t n;

	if (!value)
		return -EINVAL;
	n = strspn(value, "0123456789abcdefABCDEF");
	if (n == 2 * ECIES_KEY_LEN && value[n] == '\0')
		return crypto_hn_key_from_hex(out, scheme, key_id, value);
	return crypto_hn_key_from_pem(out, scheme, key_id, value);
}

void crypto_hn_key_free(struct crypto_hn_key *key)
{
	if (!key)
		return;
	EVP_PKEY_free(key->pkey);
	OPENSSL_cleanse(key, sizeof(*key));
	free(key);
}

uint8_t crypto_hn_key_id(const struct crypto_hn_key *key)
{
	return key->id;
}

enum crypto_suci_scheme crypto_hn_key_scheme(const struct crypto_hn_key *key)
{
	return key->scheme;
}

int crypto_hn_key_public(const struct crypto_hn_key *key, uint8_t *pub, size_t cap)
{
	if (!key || !pub)
		return -EINVAL;
	if (cap < key->pub_len)
		return -ENOSPC;
	memcpy(pub, key->pub, key->pub_len);
	return (int)key->pub_len;
}

/* ---- keyring ---- */

struct crypto_keyring *crypto_keyring_new(void)
{
	return calloc(1, sizeof(struct crypto_keyring));
}

void crypto_keyring_free(struct crypto_keyring *ring)
{
	if (!ring)
		return;
	for (size_t i = 0; i < ring->n; i++)
		crypto_hn_key_free(ring->keys[i]);
	free(ring->keys);
	free(ring);
}

int crypto_keyring_add(struct crypto_keyring *ring, struct crypto_hn_key *key)
{
	if (!ring || !key)
		return -EINVAL;
	if (crypto_keyring_find(ring, key->scheme, key->id))
		return -EEXIST;
	if (ring->n == ring->cap) {
		size_t cap = ring->cap ? ring->cap * 2 : 4;
		struct crypto_hn_key **k = realloc(ring->keys, cap * sizeof(*k));

		if (!k)
			return -ENOMEM;
		ring->keys = k;
		ring->cap = cap;
	}
	ring->keys[ring->n++] = key;
	return 0;
}

const struct crypto_hn_key *crypto_keyring_find(const struct crypto_keyring *ring,
						enum crypto_suci_scheme scheme, uint8_t key_id)
{
	for (size_t i = 0; ring && i < ring->n; i++)
		if (ring->keys[i]->scheme == scheme && ring->keys[i]->id == key_id)
			return ring->keys[i];
	return NULL;
}

/* ---- ECIES ---- */

static int ecdh(EVP_PKEY *priv, EVP_PKEY *peer, uint8_t z[ECIES_KEY_LEN])
{
	EVP_PKEY_CTX *ctx = EVP_PKEY_CTX_new(priv, NULL);
	size_t zlen = ECIES_KEY_LEN;
	int rc = -EINVAL;

	if (!ctx)
		return -ENOMEM;
	/* No second validation of the peer (EVP_PKEY_derive_set_peer would run a full public key
	 * check, n * Q = O, a third of the profile B time): a P-256 peer was checked to be on the
	 * curve when it was imported (p256_pkey) and the cofactor is 1; X25519 derive refuses an
	 * all-zero result (a small-order peer point). */
	if (EVP_PKEY_derive_init(ctx) == 1 && EVP_PKEY_derive_set_peer_ex(ctx, peer, 0) == 1 &&
	    EVP_PKEY_derive(ctx, z, &zlen) == 1 && zlen == ECIES_KEY_LEN)
		rc = 0;
	EVP_PKEY_CTX_free(ctx);
	return rc;
}

/* ANSI X9.63 KDF with SHA-256 (TS 33.501 C.3.4): K = H(Z || 00000001 || SI) || H(Z || 00000002 || SI) */
static void x963_kdf(const uint8_t z[ECIES_KEY_LEN], const uint8_t *si, size_t si_len,
		     uint8_t out[64])
{
	for (uint32_t c = 1; c <= 2; c++) {
		uint8_t zc[ECIES_KEY_LEN + 4];

		memcpy(zc, z, ECIES_KEY_LEN);
		crypto_put_be32(zc + ECIES_KEY_LEN, c);
		crypto_sha256(zc, sizeof(zc), si, si_len, out + 32 * (c - 1));
		OPENSSL_cleanse(zc, sizeof(zc));
	}
}

static int aes_ctr(const uint8_t key[16], const uint8_t icb[16], const uint8_t *in, uint8_t *out,
		   size_t len)
{
	struct crypto_tls *t = crypto_tls_get();
	int olen;

	if (!t)
		return -ENOMEM;
	if (!len)
		return 0;
	if (EVP_EncryptInit_ex(t->ctr, NULL, NULL, key, icb) != 1 ||
	    EVP_EncryptUpdate(t->ctr, out, &olen, in, (int)len) != 1)
		return -EIO;
	return 0;
}

static void mac_tag(const uint8_t mac_key[32], const uint8_t *c, size_t len,
		    uint8_t tag[CRYPTO_SUCI_MAC_LEN])
{
	uint8_t full[32];
	const uint8_t *piece[1] = { c };
	size_t plen[1] = { len };

	crypto_hmac_sha256(mac_key, 32, piece, plen, 1, full);
	memcpy(tag, full, CRYPTO_SUCI_MAC_LEN);
}

static size_t eph_len(enum crypto_suci_scheme scheme)
{
	return scheme == CRYPTO_SUCI_PROFILE_A ? ECIES_KEY_LEN : P256_COMPRESSED;
}

int crypto_suci_deconceal(const struct crypto_hn_key *key, const uint8_t *scheme_out,
			  size_t len, uint8_t *plain, size_t cap)
{
	uint8_t z[ECIES_KEY_LEN], keys[64], tag[CRYPTO_SUCI_MAC_LEN];
	EVP_PKEY *peer = NULL;
	size_t el, clen;
	int rc;

	if (!key || !scheme_out || !plain)
		return -EINVAL;
	el = eph_len(key->scheme);
	/* at least one octet of scheme input (TS 33.501 C.3.2 / 6.12.2) */
	if (len < el + 1 + CRYPTO_SUCI_MAC_LEN)
		return -EBADMSG;
	clen = len - el - CRYPTO_SUCI_MAC_LEN;
	if (clen > cap)
		return -ENOSPC;
	if (key->scheme == CRYPTO_SUCI_PROFILE_A) {
		peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, scheme_out, el);
		rc = peer ? 0 : -EINVAL;
	} else {
		/* C.3.4.2: the ephemeral key is a compressed point */
		rc = scheme_out[0] == 0x02 || scheme_out[0] == 0x03 ?
			     p256_pkey(NULL, scheme_out, el, &peer) : -EINVAL;
	}
	if (!rc)
		rc = ecdh(key->pkey, peer, z);
	EVP_PKEY_free(peer);
	if (rc)
		return rc;
	x963_kdf(z, scheme_out, el, keys);
	mac_tag(keys + 32, scheme_out + el, clen, tag);
	if (CRYPTO_memcmp(tag, scheme_out + el + clen, CRYPTO_SUCI_MAC_LEN))
		rc = -EBADMSG;
	else
		rc = aes_ctr(keys, keys + 16, scheme_out + el, plain, clen);
	OPENSSL_cleanse(z, sizeof(z));
	OPENSSL_cleanse(keys, sizeof(keys));
	if (rc) {
		OPENSSL_cleanse(plain, clen);
		return rc;
	}
	return (int)clen;
}

int crypto_suci_deconceal_ring(const struct crypto_keyring *ring, enum crypto_suci_scheme scheme,
			       uint8_t key_id, const uint8_t *scheme_out, size_t len,
			       uint8_t *plain, size_t cap)
{
	const struct crypto_hn_key *key;

	if (!scheme_out || !plain)
		return -EINVAL;
	if (scheme == CRYPTO_SUCI_NULL) {
		if (len == 0)
			return -EBADMSG;
		if (len > cap)
			return -ENOSPC;
		memcpy(plain, scheme_out, len);
		return (int)len;
	}
	if (scheme != CRYPTO_SUCI_PROFILE_A && scheme != CRYPTO_SUCI_PROFILE_B)
		return -EINVAL;
	key = crypto_keyring_find(ring, scheme, key_id);
	if (!key)
		return -ENOENT;
	return crypto_suci_deconceal(key, scheme_out, len, plain, cap);
}

int crypto_suci_conceal(enum crypto_suci_scheme scheme, const uint8_t *hn_pub, size_t hn_pub_len,
			const uint8_t *eph_priv, const uint8_t *plain, size_t plain_len,
			uint8_t *out, size_t cap)
{
	uint8_t z[ECIES_KEY_LEN], keys[64], epub[P256_COMPRESSED];
	EVP_PKEY *eph = NULL, *peer = NULL;
	size_t el = 0, need;
	int rc;

	if (!plain || !out || !plain_len)
		return -EINVAL;
	if (scheme == CRYPTO_SUCI_NULL) {
		if (plain_len > cap)
			return -ENOSPC;
		memmove(out, plain, plain_len);
		return (int)plain_len;
	}
	if (!hn_pub || (scheme != CRYPTO_SUCI_PROFILE_A && scheme != CRYPTO_SUCI_PROFILE_B))
		return -EINVAL;
	need = eph_len(scheme) + plain_len + CRYPTO_SUCI_MAC_LEN;
	if (need > cap)
		return -ENOSPC;
	if (scheme == CRYPTO_SUCI_PROFILE_A) {
		if (hn_pub_len != ECIES_KEY_LEN)
			return -EINVAL;
		eph = eph_priv ? EVP_PKEY_new_raw_private_key(EVP_PKEY_X25519, NULL, eph_priv,
							      ECIES_KEY_LEN)
			       : EVP_PKEY_Q_keygen(NULL, NULL, "X25519");
		peer = EVP_PKEY_new_raw_public_key(EVP_PKEY_X25519, NULL, hn_pub, hn_pub_len);
		rc = eph && peer ? 0 : -EINVAL;
	} else {
		rc = p256_pkey(NULL, hn_pub, hn_pub_len, &peer);
		if (!rc && eph_priv)
			rc = p256_from_priv(eph_priv, &eph, epub);
		else if (!rc && !(eph = EVP_PKEY_Q_keygen(NULL, NULL, "EC", "P-256")))
			rc = -EIO;
	}
	if (!rc)
		rc = pkey_public(scheme, eph, epub, &el);
	if (!rc)
		rc = ecdh(eph, peer, z);
	EVP_PKEY_free(eph);
	EVP_PKEY_free(peer);
	if (rc)
		return rc;
	x963_kdf(z, epub, el, keys);
	/* out = eph pub || ciphertext || tag; plain may overlap out only if it is out + el */
	memmove(out + el, plain, plain_len);
	memcpy(out, epub, el);
	rc = aes_ctr(keys, keys + 16, out + el, out + el, plain_len);
	if (!rc)
		mac_tag(keys + 32, out + el, plain_len, out + el + plain_len);
	OPENSSL_cleanse(z, sizeof(z));
	OPENSSL_cleanse(keys, sizeof(keys));
	return rc ? rc : (int)need;
}
