/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Milenage, TS 35.206 clause 4.1, with the default constants c1..c5 and r1..r5:
 *   TEMP  = E_K(RAND xor OPc)
 *   OUT1  = E_K(TEMP xor rot(IN1 xor OPc, r1) xor c1) xor OPc,  IN1 = SQN||AMF||SQN||AMF
 *   OUTn  = E_K(rot(TEMP xor OPc, rn) xor cn) xor OPc            n = 2..5
 * r1 = 64, r2 = 0, r3 = 32, r4 = 64, r5 = 96 bits; c1 = 0, c2 = ..01, c3 = ..02, c4 = ..04, c5 = ..08.
 * One AES key schedule per call (re-keying the per-thread ECB context does not allocate). */
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>

/* Which outputs a call needs. */
enum { M_F1 = 1, M_F1S = 2, M_F2345 = 4, M_F5S = 8 };

struct milenage_res {
	uint8_t out1[16]; /* MAC-A = out1[0..7], MAC-S = out1[8..15] */
	uint8_t out2[16]; /* AK = out2[0..5], RES = out2[8..15] */
	uint8_t out3[16]; /* CK */
	uint8_t out4[16]; /* IK */
	uint8_t out5[16]; /* AK* = out5[0..5] */
};

static void xor16(uint8_t *d, const uint8_t *a, const uint8_t *b)
{
	for (int i = 0; i < 16; i++)
		d[i] = a[i] ^ b[i];
}

/* Input block of OUTn, n = 2..5: TEMP xor OPc rotated left by rot octets, xor cn into the
 * last octet. */
static void in_n(const uint8_t opc[16], const uint8_t temp[16], unsigned rot, uint8_t c,
		 uint8_t x[16])
{
	for (unsigned i = 0; i < 16; i++)
		x[i] = temp[(i + rot) % 16] ^ opc[(i + rot) % 16];
	x[15] ^= c;
}

/* After TEMP every block input is known, so all wanted OUTn go through one EVP call. */
static int milenage(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
		    const uint8_t *sqn, const uint8_t *amf, unsigned what, struct milenage_res *r)
{
	struct crypto_tls *t = crypto_tls_get();
	uint8_t x[5][16], y[5][16], temp[16], in1[16];
	uint8_t *dst[5];
	unsigned n = 0;
	int rc;

	if (!t)
		return -ENOMEM;
	if (!k || !opc || !rand)
		return -EINVAL;
	rc = crypto_aes_key(t, k);
	if (rc)
		return rc;
	for (int i = 0; i < 16; i++)
		x[0][i] = rand[i] ^ opc[i];
	rc = crypto_aes_blocks(t, x[0], temp, 1);
	if (rc)
		goto out;
	if (what & (M_F1 | M_F1S)) {
		memcpy(in1, sqn, 6);
		memcpy(in1 + 6, amf, 2);
		memcpy(in1 + 8, in1, 8);
		/* OUT1: TEMP xor rot(IN1 xor OPc, r1 = 64 bits), c1 = 0 */
		for (int i = 0; i < 16; i++)
			x[n][i] = temp[i] ^ in1[(i + 8) % 16] ^ opc[(i + 8) % 16];
		dst[n++] = r->out1;
	}
	if (what & M_F2345) {
		in_n(opc, temp, 0, 0x01, x[n]);  /* r2 = 0 */
		dst[n++] = r->out2;
		in_n(opc, temp, 4, 0x02, x[n]);  /* r3 = 32 bits */
		dst[n++] = r->out3;
		in_n(opc, temp, 8, 0x04, x[n]);  /* r4 = 64 bits */
		dst[n++] = r->out4;
	}
	if (what & M_F5S) {
		in_n(opc, temp, 12, 0x08, x[n]); /* r5 = 96 bits */
		dst[n++] = r->out5;
	}
	rc = crypto_aes_blocks(t, x[0], y[0], n);
	for (unsigned b = 0; !rc && b < n; b++)
		for (int i = 0; i < 16; i++)
			dst[b][i] = y[b][i] ^ opc[i];
out:
	OPENSSL_cleanse(x, sizeof(x));
	OPENSSL_cleanse(y, sizeof(y));
	OPENSSL_cleanse(temp, sizeof(temp));
	OPENSSL_cleanse(in1, sizeof(in1));
	return rc;
}

int crypto_milenage_opc(const uint8_t k[16], const uint8_t op[16], uint8_t opc[16])
{
	struct crypto_tls *t = crypto_tls_get();
	uint8_t e[16];
	int rc;

	if (!t)
		return -ENOMEM;
	rc = crypto_aes_key(t, k);
	if (!rc)
		rc = crypto_aes_blocks(t, op, e, 1);
	if (!rc)
		xor16(opc, e, op); /* OPc = OP xor E_K(OP) */
	OPENSSL_cleanse(e, sizeof(e));
	return rc;
}

int crypto_milenage_f1(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
		       const uint8_t sqn[6], const uint8_t amf[2], uint8_t mac_a[8], uint8_t mac_s[8])
{
	struct milenage_res r;
	int rc;

	if (!sqn || !amf)
		return -EINVAL;
	rc = milenage(k, opc, rand, sqn, amf, M_F1, &r);
	if (!rc && mac_a)
		memcpy(mac_a, r.out1, 8);
	if (!rc && mac_s)
		memcpy(mac_s, r.out1 + 8, 8);
	OPENSSL_cleanse(&r, sizeof(r));
	return rc;
}

int crypto_milenage_f2345(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			  uint8_t res[8], uint8_t ck[16], uint8_t ik[16], uint8_t ak[6])
{
	struct milenage_res r;
	int rc = milenage(k, opc, rand, NULL, NULL, M_F2345, &r);

	if (!rc) {
		if (res)
			memcpy(res, r.out2 + 8, 8);
		if (ak)
			memcpy(ak, r.out2, 6);
		if (ck)
			memcpy(ck, r.out3, 16);
		if (ik)
			memcpy(ik, r.out4, 16);
	}
	OPENSSL_cleanse(&r, sizeof(r));
	return rc;
}

int crypto_milenage_f5star(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			   uint8_t ak_s[6])
{
	struct milenage_res r;
	int rc = milenage(k, opc, rand, NULL, NULL, M_F5S, &r);

	if (!rc)
		memcpy(ak_s, r.out5, 6);
	OPENSSL_cleanse(&r, sizeof(r));
	return rc;
}

int crypto_milenage_all(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			const uint8_t sqn[6], const uint8_t amf[2], struct crypto_milenage_out *out)
{
	struct milenage_res r;
	int rc;

	if (!sqn || !amf || !out)
		return -EINVAL;
	rc = milenage(k, opc, rand, sqn, amf, M_F1 | M_F1S | M_F2345 | M_F5S, &r);
	if (!rc) {
		memcpy(out->mac_a, r.out1, 8);
		memcpy(out->mac_s, r.out1 + 8, 8);
		memcpy(out->res, r.out2 + 8, 8);
		memcpy(out->ak, r.out2, 6);
		memcpy(out->ck, r.out3, 16);
		memcpy(out->ik, r.out4, 16);
		memcpy(out->ak_s, r.out5, 6);
	}
	OPENSSL_cleanse(&r, sizeof(r));
	return rc;
}
