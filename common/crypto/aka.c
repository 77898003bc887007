/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* 5G AKA helpers (TS 33.501 6.1.3.2, TS 33.102 6.3) and the SQN scheme.
 *
 * SQN scheme: TS 33.102 Annex C.1.1 / C.1.2 / C.2.2 / C.3.2 -- SQN = SEQ (43 bits) || IND (5 bits),
 * not time based.
 *  - Network side (C.1.1.2, C.3.2): each new vector takes SEQ + 1 and the next IND value in a
 *    cycle of 32. Why: solocore has one ARPF, vectors are used almost at once, and a cyclic IND
 *    lets up to 32 vectors issued for the same UE (parallel procedures, an AUSF retry, a vector
 *    lost with an AMF restart) be used out of order without a sync failure, since the USIM keeps
 *    one SEQ_MS per IND. SEQ + 1 per vector keeps SEQ below the USIM's Delta limit easily.
 *  - USIM side (C.2.2): an SQN is fresh when SEQ > SEQ_MS(IND) and SEQ - SEQ_MS <= Delta
 *    (C.2.1, Delta = 2^28, the value C.3.2 suggests), SEQ_MS being the highest SEQ accepted.
 *    The optional L limit on the age of SEQ (C.2.2) is not enforced by this simulator USIM.
 *  - Resynchronisation (6.3.5, C.3.4): the USIM returns SEQ_MS || IND of its highest accepted SQN;
 *    the ARPF continues from it with crypto_sqn_next(). */
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <errno.h>
#include <string.h>

#include <openssl/crypto.h>

#define SEQ(sqn) (((sqn) & CRYPTO_SQN_MASK) >> CRYPTO_SQN_IND_BITS)
#define IND(sqn) ((sqn) & (CRYPTO_SQN_IND_COUNT - 1))

static void put48(uint8_t p[6], uint64_t v)
{
	for (int i = 5; i >= 0; i--, v >>= 8)
		p[i] = (uint8_t)v;
}

static uint64_t get48(const uint8_t p[6])
{
	uint64_t v = 0;

	for (int i = 0; i < 6; i++)
		v = v << 8 | p[i];
	return v;
}

uint64_t crypto_sqn_next(uint64_t sqn_he)
{
	uint64_t seq = SEQ(sqn_he) + 1, ind = (IND(sqn_he) + 1) % CRYPTO_SQN_IND_COUNT;

	return ((seq << CRYPTO_SQN_IND_BITS) | ind) & CRYPTO_SQN_MASK;
}

int crypto_aka_generate(const uint8_t k[16], const uint8_t opc[16], uint64_t sqn,
			const uint8_t amf[2], const char *snn, const uint8_t *rand,
			struct crypto_he_av *av)
{
	struct crypto_milenage_out m;
	uint8_t sqn_b[6], amf_sep[2], sqn_ak[6];
	int rc;

	if (!k || !opc || !amf || !snn || !av)
		return -EINVAL;
	if (rand) {
		memcpy(av->rand, rand, 16);
	} else {
		struct crypto_tls *t = crypto_tls_get();

		rc = t ? crypto_random(t, av->rand, 16) : -ENOMEM;
		if (rc)
			return rc;
	}
	/* TS 33.501 6.1.3.2.0 / TS 33.102 Annex H: AMF separation bit (bit 0) = 1 */
	amf_sep[0] = amf[0] | 0x80;
	amf_sep[1] = amf[1];
	put48(sqn_b, sqn);
	rc = crypto_milenage_all(k, opc, av->rand, sqn_b, amf_sep, &m);
	if (rc)
		goto out;
	/* AUTN = SQN xor AK || AMF || MAC-A (TS 33.102 6.3.2) */
	for (int i = 0; i < 6; i++)
		sqn_ak[i] = sqn_b[i] ^ m.ak[i];
	memcpy(av->autn, sqn_ak, 6);
	memcpy(av->autn + 6, amf_sep, 2);
	memcpy(av->autn + 8, m.mac_a, 8);
	rc = crypto_kdf_res_star(m.ck, m.ik, snn, av->rand, m.res, 8, av->xres_star);
	if (!rc)
		rc = crypto_hxres_star(av->rand, av->xres_star, av->hxres_star);
	if (!rc)
		rc = crypto_kdf_kausf(m.ck, m.ik, snn, sqn_ak, av->kausf);
out:
	OPENSSL_cleanse(&m, sizeof(m));
	if (rc)
		OPENSSL_cleanse(av, sizeof(*av));
	return rc;
}

int crypto_aka_check_res_star(const uint8_t res_star[16], const uint8_t xres_star[16])
{
	if (!res_star || !xres_star)
		return -EINVAL;
	return CRYPTO_memcmp(res_star, xres_star, 16) ? -EACCES : 0;
}

int crypto_aka_check_hres_star(const uint8_t rand[16], const uint8_t res_star[16],
			       const uint8_t hxres_star[16])
{
	uint8_t h[16];
	int rc;

	if (!rand || !res_star || !hxres_star)
		return -EINVAL;
	crypto_hxres_star(rand, res_star, h); /* HRES*, TS 33.501 A.5 */
	rc = CRYPTO_memcmp(h, hxres_star, 16) ? -EACCES : 0;
	OPENSSL_cleanse(h, sizeof(h));
	return rc;
}

int crypto_aka_resync(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
		      const uint8_t auts[14], uint64_t *sqn_ms)
{
	static const uint8_t amf0[2] = { 0, 0 }; /* TS 33.102 6.3.3: MAC-S uses a dummy AMF 0000 */
	uint8_t ak_s[6], sqn[6], mac_s[8];
	int rc;

	if (!k || !opc || !rand || !auts || !sqn_ms)
		return -EINVAL;
	rc = crypto_milenage_f5star(k, opc, rand, ak_s);
	if (rc)
		return rc;
	for (int i = 0; i < 6; i++)
		sqn[i] = auts[i] ^ ak_s[i];
	rc = crypto_milenage_f1(k, opc, rand, sqn, amf0, NULL, mac_s);
	if (!rc && CRYPTO_memcmp(mac_s, auts + 6, 8))
		rc = -EBADMSG;
	if (!rc)
		*sqn_ms = get48(sqn);
	OPENSSL_cleanse(ak_s, sizeof(ak_s));
	OPENSSL_cleanse(mac_s, sizeof(mac_s));
	return rc;
}

static uint64_t max_seq(const struct crypto_usim_sqn *st, unsigned *ind)
{
	uint64_t m = 0;

	*ind = 0;
	for (unsigned i = 0; i < CRYPTO_SQN_IND_COUNT; i++) {
		if (st->seq_ms[i] > m) {
			m = st->seq_ms[i];
			*ind = i;
		}
	}
	return m;
}

int crypto_usim_sqn_check(const struct crypto_usim_sqn *st, uint64_t sqn)
{
	uint64_t seq = SEQ(sqn);
	unsigned ind;
	uint64_t hi = max_seq(st, &ind);

	if (seq <= st->seq_ms[IND(sqn)])
		return -ESTALE;
	if (seq > hi && seq - hi > CRYPTO_SQN_DELTA)
		return -ESTALE;
	return 0;
}

void crypto_usim_sqn_accept(struct crypto_usim_sqn *st, uint64_t sqn)
{
	st->seq_ms[IND(sqn)] = SEQ(sqn);
}

uint64_t crypto_usim_sqn_ms(const struct crypto_usim_sqn *st)
{
	unsigned ind;
	uint64_t hi = max_seq(st, &ind);

	return (hi << CRYPTO_SQN_IND_BITS | ind) & CRYPTO_SQN_MASK;
}

int crypto_aka_ue_check(const uint8_t k[16], const uint8_t opc[16], const uint8_t rand[16],
			const uint8_t autn[16], const char *snn, struct crypto_usim_sqn *st,
			struct crypto_ue_aka_out *out)
{
	struct crypto_milenage_out m;
	uint8_t sqn_b[6], sqn_ms_b[6];
	uint64_t sqn;
	int rc;

	if (!k || !opc || !rand || !autn || !snn || !st || !out)
		return -EINVAL;
	memset(out, 0, sizeof(*out));
	/* AK first (f5 needs no SQN), then the SQN, then MAC-A over it (TS 33.102 6.3.3) */
	rc = crypto_milenage_f2345(k, opc, rand, NULL, NULL, NULL, m.ak);
	if (rc)
		goto out;
	for (int i = 0; i < 6; i++)
		sqn_b[i] = autn[i] ^ m.ak[i];
	rc = crypto_milenage_all(k, opc, rand, sqn_b, autn + 6, &m);
	if (rc)
		goto out;
	if (CRYPTO_memcmp(m.mac_a, autn + 8, 8)) {
		rc = -EBADMSG;
		goto out;
	}
	/* TS 33.501 6.1.3.2.0 step 6: the "separation bit" of the AMF field must be 1 */
	if (!(autn[6] & 0x80)) {
		rc = -EINVAL;
		goto out;
	}
	sqn = get48(sqn_b);
	out->sqn = sqn;
	if (crypto_usim_sqn_check(st, sqn)) {
		/* AUTS = SQN_MS xor AK* || MAC-S, MAC-S = f1*(SQN_MS, RAND, AMF = 0000) (6.3.3) */
		static const uint8_t amf0[2] = { 0, 0 };

		put48(sqn_ms_b, crypto_usim_sqn_ms(st));
		rc = crypto_milenage_f1(k, opc, rand, sqn_ms_b, amf0, NULL, out->auts + 6);
		for (int i = 0; i < 6; i++)
			out->auts[i] = sqn_ms_b[i] ^ m.ak_s[i];
		if (!rc)
			rc = -ESTALE;
		goto out;
	}
	crypto_usim_sqn_accept(st, sqn);
	memcpy(out->ck, m.ck, 16);
	memcpy(out->ik, m.ik, 16);
	rc = crypto_kdf_res_star(m.ck, m.ik, snn, rand, m.res, 8, out->res_star);
	if (!rc) {
		for (int i = 0; i < 6; i++)
			sqn_b[i] = autn[i]; /* SQN xor AK as sent */
		rc = crypto_kdf_kausf(m.ck, m.ik, snn, sqn_b, out->kausf);
	}
out:
	OPENSSL_cleanse(&m, sizeof(m));
	return rc;
}
