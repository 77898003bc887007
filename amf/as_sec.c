/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The AS security material the AMF hands to gNBs: the UE security capabilities in their
 * NGAP form (TS 38.413 9.3.1.86), K_gNB for an Initial Context Setup (TS 33.501 6.8.1.2.2,
 * A.9) and the NH/NCC chain a path switch continues (TS 33.501 6.9.2.1.1, 6.9.2.3.3, A.10).
 *
 * The chain, per UE: at each Initial Context Setup the initial K_gNB is tied to NCC 0 and
 * the AMF computes NH_1 = KDF(K_AMF, K_gNB) with NCC 1, kept and not sent (6.9.2.1.1).
 * Each N2 path switch first increases the NCC by one and computes the next NH =
 * KDF(K_AMF, previous NH) (6.9.2.3.3), and that {NCC, NH} goes to the target gNB. NCC is 3
 * bits (mod 8, 38.413 9.3.1.88). A new K_AMF ends the chain: the next Initial Context Setup
 * starts a new one from its K_gNB.
 */
#include <errno.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/crypto/crypto.h"

/* NAS UE security capability octets (TS 24.501 9.11.3.54: bit 8 = EA0/IA0) to the NGAP
 * 16-bit strings (TS 38.413 9.3.1.86: first bit = 128-NEA1/NIA1). */
static uint16_t nas_caps_to_ngap(uint8_t octet)
{
	return (uint16_t)(((uint16_t)(octet << 1) & 0xfe) << 8);
}

void amf_as_sec_caps(const struct amf_ue *ue, struct ngap_ue_sec_cap *out)
{
	memset(out, 0, sizeof(*out));
	/* TS 33.501 6.7.2: what the UE sent in its registration */
	out->nr_enc = nas_caps_to_ngap(ue->ue_sec_cap[0]);
	out->nr_int = nas_caps_to_ngap(ue->ue_sec_cap[1]);
	if (ue->ue_sec_cap_len >= 4) {
		out->eutra_enc = nas_caps_to_ngap(ue->ue_sec_cap[2]);
		out->eutra_int = nas_caps_to_ngap(ue->ue_sec_cap[3]);
	}
}

int amf_as_kgnb(struct amf_ue *ue, uint8_t kgnb[32])
{
	/* TS 33.501 6.8.1.2.2 / A.9: from K_AMF and the uplink NAS COUNT of the message that
	 * completed security (Security Mode Complete / Service Request). */
	int rc = crypto_kdf_kgnb(ue->kamf, ue->ul_count, CRYPTO_ACCESS_3GPP, kgnb);

	if (rc == 0)
		rc = crypto_kdf_nh(ue->kamf, kgnb, ue->nh);   /* 6.9.2.1.1: NH_1, NCC 1 */
	ue->nh_valid = rc == 0;
	ue->ncc = 1;
	if (rc < 0)
		explicit_bzero(ue->nh, sizeof(ue->nh));
	return rc;
}

int amf_as_nh_next(struct amf_ue *ue, struct ngap_security_context *out)
{
	uint8_t nh[32];
	int rc;

	if (!ue->nh_valid)
		return -ENOKEY;
	/* TS 33.501 6.9.2.3.3: NCC + 1, then a fresh NH from the stored one (A.10). */
	rc = crypto_kdf_nh(ue->kamf, ue->nh, nh);
	if (rc < 0)
		return rc;
	memcpy(ue->nh, nh, sizeof(nh));
	explicit_bzero(nh, sizeof(nh));
	ue->ncc = (uint8_t)((ue->ncc + 1) & 7);
	out->ncc = ue->ncc;
	memcpy(out->nh, ue->nh, sizeof(out->nh));
	return 0;
}

void amf_as_nh_reset(struct amf_ue *ue)
{
	explicit_bzero(ue->nh, sizeof(ue->nh));
	ue->nh_valid = false;
	ue->ncc = 0;
}
