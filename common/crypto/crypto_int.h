/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Internals of common/crypto: per-thread OpenSSL contexts and helpers. Not for other folders. */
#ifndef SOLOCORE_COMMON_CRYPTO_INT_H
#define SOLOCORE_COMMON_CRYPTO_INT_H

#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

/* Per-thread contexts, created on first use and reused: re-keying an EVP cipher context does not
 * allocate (checked by tests/crypto/test_nomalloc.c), creating one does. */
struct crypto_tls {
	EVP_CIPHER_CTX *ecb; /* AES-128-ECB, Milenage and CMAC subkeys */
	EVP_CIPHER_CTX *cbc; /* AES-128-CBC, the CMAC chain of 128-NIA2 */
	EVP_CIPHER_CTX *ctr; /* AES-128-CTR, SUCI profile A/B (ECIES) */
	EVP_CIPHER_CTX *nea; /* AES-128-ECB keyed with the last 128-NEA2 key: its keystream */
	uint8_t nea_key[16];
	int nea_valid;
	/* 128-NIA2: key whose CMAC subkeys are cached (saves one block per MAC for the same key). */
	uint8_t cmac_key[16];
	uint8_t cmac_k1[16], cmac_k2[16];
	/* The cbc context's chaining value (its last output block) after the previous MAC: XORed
	 * into the next MAC's first block instead of resetting the IV to zero (an IV reset is a
	 * full EVP_EncryptInit_ex, ~1,250 instructions, more than the MAC of a NAS message). */
	uint8_t cmac_chain[16];
	int cmac_valid;
	/* RAND values for AVs: one RAND_bytes call per sizeof(rnd) octets instead of per AV
	 * (each call costs about 1 us in OpenSSL 3.0, most of an AV). Used octets are wiped. */
	uint8_t rnd[1024];
	size_t rnd_pos; /* next unused octet; sizeof(rnd) = empty */
};

/* n <= 64 octets from the CSPRNG through the per-thread buffer. 0 or -EIO. */
int crypto_random(struct crypto_tls *t, uint8_t *out, size_t n);

/* NULL if OpenSSL cannot create the contexts. */
struct crypto_tls *crypto_tls_get(void);

/* AES-128-ECB over n blocks with the key schedule set by crypto_aes_key(). */
int crypto_aes_key(struct crypto_tls *t, const uint8_t key[16]);
int crypto_aes_blocks(struct crypto_tls *t, const uint8_t *in, uint8_t *out, unsigned n);

/* HMAC-SHA-256 over up to 4 pieces without allocation (kdf.c). */
void crypto_hmac_sha256(const uint8_t *key, size_t keylen, const uint8_t *const piece[],
			const size_t plen[], unsigned n, uint8_t out[32]);
void crypto_sha256(const uint8_t *a, size_t alen, const uint8_t *b, size_t blen, uint8_t out[32]);

/* SNOW 3G based 128-NEA1 / 128-NIA1 (snow3g.c) and ZUC based 128-NEA3 / 128-NIA3 (zuc.c). */
void crypto_nea1(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		 const uint8_t *in, uint8_t *out, size_t bitlen);
void crypto_nia1(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		 const uint8_t *msg, size_t bitlen, uint8_t mac[4]);
void crypto_nea3(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		 const uint8_t *in, uint8_t *out, size_t bitlen);
void crypto_nia3(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		 const uint8_t *msg, size_t bitlen, uint8_t mac[4]);

/* The cipher step functions of SNOW 3G and ZUC: gcc -O2 does not inline them on its own (they
 * have several callers), which costs half of the time. */
#define CRYPTO_ALWAYS_INLINE static inline __attribute__((always_inline))

static inline uint32_t crypto_get_be32(const uint8_t *p)
{
	return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3];
}

static inline void crypto_put_be32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)(v >> 24);
	p[1] = (uint8_t)(v >> 16);
	p[2] = (uint8_t)(v >> 8);
	p[3] = (uint8_t)v;
}

/* XOR one keystream word (MSB first) into the next min(4, left) octets of a stream. */
static inline void crypto_xor_ks32(uint8_t *out, const uint8_t *in, size_t left, uint32_t ks)
{
	if (left >= 4) {
		crypto_put_be32(out, crypto_get_be32(in) ^ ks);
		return;
	}
	for (size_t j = 0; j < left; j++)
		out[j] = in[j] ^ (uint8_t)(ks >> (24 - 8 * j));
}

#endif
