/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* NAS integrity and ciphering dispatch (TS 33.501 D.4) and the AES based 128-NIA2 / 128-NEA2
 * (TS 33.401 B.1.3 and B.2.3, through OpenSSL EVP contexts kept per thread). */
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>

/* Bits after bitlen in the last octet are "don't care" on input and cleared on output. */
static void clear_tail(uint8_t *out, size_t bitlen)
{
	if (bitlen % 8)
		out[bitlen / 8] &= (uint8_t)(0xff00u >> (bitlen % 8));
}

/* The 64-bit prefix used by 128-NIA2 and the first half of the 128-NEA2 counter block:
 * COUNT || BEARER || DIRECTION || 0^26 (TS 33.401 B.1.3, B.2.3). */
static void count_prefix(uint8_t p[8], uint32_t count, uint8_t bearer, uint8_t dir)
{
	crypto_put_be32(p, count);
	p[4] = (uint8_t)((bearer & 0x1f) << 3 | (dir & 1) << 2);
	p[5] = p[6] = p[7] = 0;
}

/* CMAC subkey doubling in GF(2^128), NIST SP 800-38B 6.1. */
static void dbl(uint8_t o[16], const uint8_t in[16])
{
	uint8_t carry = in[0] >> 7;

	for (int i = 0; i < 15; i++)
		o[i] = (uint8_t)(in[i] << 1 | in[i + 1] >> 7);
	o[15] = (uint8_t)(in[15] << 1) ^ (carry ? 0x87 : 0);
}

static int cmac_key(struct crypto_tls *t, const uint8_t key[16])
{
	static const uint8_t zero[16];
	uint8_t l[16];
	int rc;

	if (t->cmac_valid && !CRYPTO_memcmp(t->cmac_key, key, 16))
		return 0; /* the chain continues from t->cmac_chain, see nia2() */
	t->cmac_valid = 0;
	rc = crypto_aes_key(t, key);
	if (!rc)
		rc = crypto_aes_blocks(t, zero, l, 1);
	if (!rc && EVP_EncryptInit_ex(t->cbc, NULL, NULL, key, zero) != 1)
		rc = -EIO;
	if (!rc) {
		dbl(t->cmac_k1, l);
		dbl(t->cmac_k2, t->cmac_k1);
		memcpy(t->cmac_key, key, 16);
		memset(t->cmac_chain, 0, 16); /* just initialised with a zero IV */
		t->cmac_valid = 1;
	}
	OPENSSL_cleanse(l, sizeof(l));
	return rc;
}

static void xor16(uint8_t *d, const uint8_t s[16])
{
	for (int i = 0; i < 16; i++)
		d[i] ^= s[i];
}

/* Copy n octets of prefix || msg starting at octet pos of that string. */
static void gather(uint8_t *dst, const uint8_t pre[8], const uint8_t *msg, size_t pos, size_t n)
{
	while (n && pos < 8) {
		*dst++ = pre[pos++];
		n--;
	}
	if (n)
		memcpy(dst, msg + (pos - 8), n);
}

#define CMAC_CHUNK 512 /* octets handed to one EVP call */

/* 128-NIA2: AES-CMAC over COUNT||BEARER||DIRECTION||0^26||MESSAGE, bit granular, MAC = the
 * first 32 bits (TS 33.401 B.2.3). CMAC is CBC-MAC with the last block masked by K1 or K2, so
 * all blocks but the last go through one AES-CBC context in large chunks. The context is not
 * reset between MACs with the same key: it chains on from the previous MAC's last block C, so
 * the first block is fed as M1 ^ C, giving E(M1 ^ C ^ C) = E(M1), as with a zero IV. */
static int nia2(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		const uint8_t *msg, size_t bitlen, uint8_t mac[4])
{
	struct crypto_tls *t = crypto_tls_get();
	uint8_t pre[8], buf[CMAC_CHUNK], scratch[CMAC_CHUNK], last[16];
	size_t total = 64 + bitlen, nblocks = (total + 127) / 128;
	size_t full = (nblocks - 1) * 16, pos = 0, rem_bits = total - full * 8;
	size_t last_bytes = (rem_bits + 7) / 8;
	int olen, rc;

	if (!t)
		return -ENOMEM;
	rc = cmac_key(t, key);
	if (rc)
		return rc;
	count_prefix(pre, count, bearer, dir);
	while (pos < full) {
		size_t n = full - pos < CMAC_CHUNK ? full - pos : CMAC_CHUNK;

		gather(buf, pre, msg, pos, n);
		if (pos == 0)
			xor16(buf, t->cmac_chain);
		if (EVP_EncryptUpdate(t->cbc, scratch, &olen, buf, (int)n) != 1) {
			t->cmac_valid = 0; /* chain state unknown: re-key next time */
			return -EIO;
		}
		pos += n;
	}
	memset(last, 0, sizeof(last));
	gather(last, pre, msg, pos, last_bytes);
	if (rem_bits == 128) {
		for (int i = 0; i < 16; i++)
			last[i] ^= t->cmac_k1[i];
	} else {
		/* keep rem_bits bits, then the 10* padding */
		clear_tail(last, rem_bits);
		last[rem_bits / 8] |= (uint8_t)(0x80 >> (rem_bits % 8));
		for (int i = 0; i < 16; i++)
			last[i] ^= t->cmac_k2[i];
	}
	if (full == 0)
		xor16(last, t->cmac_chain);
	if (EVP_EncryptUpdate(t->cbc, scratch, &olen, last, 16) != 1 || olen != 16) {
		t->cmac_valid = 0;
		return -EIO;
	}
	memcpy(mac, scratch, 4);
	memcpy(t->cmac_chain, scratch, 16);
	OPENSSL_cleanse(scratch, 16);
	return 0;
}

#define NEA_CHUNK 512 /* keystream octets per EVP call */

/* 128-NEA2: AES-128-CTR, initial counter block COUNT||BEARER||DIRECTION||0^26 || 0^64
 * (TS 33.401 B.1.3). The keystream is made here from an ECB context that stays keyed while the
 * key does not change (re-initialising a CTR context per message, even with the same key, is a
 * full EVP_EncryptInit_ex: key schedule and provider look-ups, more than ciphering a NAS
 * message). The counter is the low 64 bits, big-endian, as in CTR mode (TS 33.401 B.1.3:
 * T(i+1) = T(i) + 1; the high half never changes below 2^64 blocks). */
static int nea2(const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t dir,
		const uint8_t *in, uint8_t *out, size_t bitlen)
{
	struct crypto_tls *t = crypto_tls_get();
	uint8_t ks[NEA_CHUNK];
	size_t n = (bitlen + 7) / 8;
	uint64_t blk = 0;
	int olen;

	if (!t)
		return -ENOMEM;
	if (!t->nea_valid || CRYPTO_memcmp(t->nea_key, key, 16)) {
		t->nea_valid = 0;
		if (EVP_EncryptInit_ex(t->nea, NULL, NULL, key, NULL) != 1)
			return -EIO;
		memcpy(t->nea_key, key, 16);
		t->nea_valid = 1;
	}
	while (n) {
		size_t take = n < NEA_CHUNK ? n : NEA_CHUNK, nb = (take + 15) / 16;

		for (size_t b = 0; b < nb; b++, blk++) {
			uint8_t *c = ks + 16 * b;
			count_prefix(c, count, bearer, dir);
			crypto_put_be32(c + 8, (uint32_t)(blk >> 32));
			crypto_put_be32(c + 12, (uint32_t)blk);
		}
		if (EVP_EncryptUpdate(t->nea, ks, &olen, ks, (int)(nb * 16)) != 1 || olen != (int)(nb * 16)) {
			OPENSSL_cleanse(ks, sizeof(ks));
			return -EIO;
		}
		for (size_t i = 0; i < take; i++)
			out[i] = in[i] ^ ks[i];
		in += take;
		out += take;
		n -= take;
	}
	OPENSSL_cleanse(ks, sizeof(ks));
	return 0;
}

int crypto_nia(int alg, const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t direction,
	       const uint8_t *msg, size_t bitlen, uint8_t mac[4])
{
	if (!mac || (bitlen && !msg) || (alg != 0 && !key) || bearer > 31 || direction > 1)
		return -EINVAL;
	switch (alg) {
	case 0:
		memset(mac, 0, 4); /* TS 33.501 D.1: NIA0 gives a MAC of 32 zero bits */
		return 0;
	case 1:
		crypto_nia1(key, count, bearer, direction, msg, bitlen, mac);
		return 0;
	case 2:
		return nia2(key, count, bearer, direction, msg, bitlen, mac);
	case 3:
		crypto_nia3(key, count, bearer, direction, msg, bitlen, mac);
		return 0;
	default:
		return -EINVAL;
	}
}

int crypto_nea(int alg, const uint8_t key[16], uint32_t count, uint8_t bearer, uint8_t direction,
	       const uint8_t *in, uint8_t *out, size_t bitlen)
{
	int rc = 0;

	if ((bitlen && (!in || !out)) || (alg != 0 && !key) || bearer > 31 || direction > 1)
		return -EINVAL;
	if (!bitlen)
		return 0;
	switch (alg) {
	case 0:
		if (out != in)
			memmove(out, in, (bitlen + 7) / 8);
		break;
	case 1:
		crypto_nea1(key, count, bearer, direction, in, out, bitlen);
		break;
	case 2:
		rc = nea2(key, count, bearer, direction, in, out, bitlen);
		break;
	case 3:
		crypto_nea3(key, count, bearer, direction, in, out, bitlen);
		break;
	default:
		return -EINVAL;
	}
	if (!rc)
		clear_tail(out, bitlen);
	return rc;
}
