/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ARPF: 5G HE authentication vectors and SQN management (TS 33.501 6.1.3.2,
 * TS 33.102 6.3 and Annex C.3.2). The keys never leave this file's callers in udm/.
 */
#include <errno.h>
#include <string.h>

#include "common/crypto/crypto.h"
#include "common/log.h"
#include "udm/udm_int.h"

int udm_opc_from_op(const uint8_t k[16], const uint8_t op[16], uint8_t opc[16])
{
	return crypto_milenage_opc(k, op, opc);
}

int udm_generate_av(struct udm *udm, const char *supi, const char *snname, struct udm_av *av)
{
	struct udm_subscriber *s = udm_find(udm, supi);
	struct crypto_he_av he;
	uint64_t sqn;
	int rc;

	if (!s)
		return -ENOENT;
	if (udm->sqn_stopped)
		return -ESHUTDOWN;
	if (udm->sqn_gen) {
		/* Cluster mode (sqn.c): this node's IND, time-based SEQ under the lease. */
		rc = udm_sqn_gen_next(udm->sqn_gen, s->sqn, &sqn);
		if (rc < 0)
			return rc;
	} else {
		/* TS 33.102 C.3.2: SEQ + 1 and the next IND, so vectors used out of order
		 * by a future multi-AMF setup are still accepted by the USIM. */
		sqn = crypto_sqn_next(s->sqn);
	}
	rc = crypto_aka_generate(s->k, s->opc, sqn, s->amf, snname, NULL, &he);
	if (rc < 0) {
		log_error("udm", "av generation failed supi=%s rc=%d", supi, rc);
		return rc;
	}
	/* The SQN is "used" as soon as a vector leaves the ARPF, whether or not the
	 * UE answers: write-behind to db (never blocks here). */
	udm_sqn_set(udm, s, sqn);
	memcpy(av->rand, he.rand, 16);
	memcpy(av->autn, he.autn, 16);
	memcpy(av->xres_star, he.xres_star, 16);
	memcpy(av->kausf, he.kausf, 32);
	explicit_bzero(&he, sizeof(he));
	return 0;
}

int udm_resync(struct udm *udm, const char *supi, const uint8_t rand[16], const uint8_t auts[14])
{
	struct udm_subscriber *s = udm_find(udm, supi);
	uint64_t sqn_ms;
	int rc;

	if (!s)
		return -ENOENT;
	rc = crypto_aka_resync(s->k, s->opc, rand, auts, &sqn_ms);
	if (rc < 0) {
		log_warn("udm", "resync rejected supi=%s rc=%d (AUTS MAC-S)", supi, rc);
		return rc == -EBADMSG ? -EBADMSG : rc;
	}
	if (udm->sqn_stopped)
		return -ESHUTDOWN;
	if (udm->sqn_gen) {
		uint64_t keep;

		/* Cluster mode: SQN_MS only when ahead (the SQN never moves back, sqn.c). */
		rc = udm_sqn_gen_resync(udm->sqn_gen, s->sqn, sqn_ms, &keep);
		log_info("udm", "resync supi=%s sqn_he=%llu sqn_ms=%llu kept=%llu rc=%d", supi,
			 (unsigned long long)s->sqn, (unsigned long long)sqn_ms,
			 (unsigned long long)keep, rc);
		if (keep != s->sqn)
			udm_sqn_set(udm, s, keep);
		if (rc < 0)
			log_error("udm", "resync supi=%s: the next SQN would still be more than Delta "
				  "ahead of the USIM's (TS 33.102 C.2.1); the SIM needs its SQN "
				  "re-provisioned", supi);
		return rc;
	}
	/* TS 33.102 6.3.5: the HE adopts SQN_MS; the next vector uses crypto_sqn_next(SQN_MS). */
	log_info("udm", "resync supi=%s sqn_he=%llu sqn_ms=%llu", supi,
		 (unsigned long long)s->sqn, (unsigned long long)sqn_ms);
	udm_sqn_set(udm, s, sqn_ms);
	return 0;
}

int udm_warm_up(struct udm *udm)
{
	/* The first vector after start-up paid 7-12 ms (ransim) for one-time set-up inside
	 * OpenSSL: default provider and algorithm fetches for AES-128 and HMAC-SHA-256, the
	 * per-thread cipher contexts (common/crypto tls.c) and the DRBG instantiation and
	 * seeding behind RAND_bytes. Run one throwaway vector and a resync check on this
	 * (the control) thread with a dummy key, so the first UE does not pay for them; then
	 * one SUCI round trip per ECIES profile configured (the first X25519 / P-256 use). */
	static const uint8_t k[16] = { 0x5a }, op[16] = { 0xa5 }, amf[2] = { 0x80, 0x00 };
	static const uint8_t auts[14];
	struct crypto_he_av he;
	uint8_t opc[16];
	uint64_t sqn_ms;
	int rc;

	rc = crypto_milenage_opc(k, op, opc);
	if (rc == 0)
		rc = crypto_aka_generate(k, opc, 32, amf, "5G:mnc001.mcc001.3gppnetwork.org", NULL, &he);
	if (rc == 0)
		(void)crypto_aka_resync(k, opc, he.rand, auts, &sqn_ms); /* MAC-S fails: expected */
	explicit_bzero(&he, sizeof(he));
	explicit_bzero(opc, sizeof(opc));
	if (rc == 0)
		rc = udm_sidf_warm_up(udm);
	return rc;
}
