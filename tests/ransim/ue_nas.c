/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim UE: NAS security (TS 24.501 4.4, TS 33.501 6.4 / D.3) and the SUCI (TS 33.501 6.12.2). */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

/* TS 24.501 9.11.3.4: MSIN digits in BCD, low nibble first, 0xF filler. */
static int msin_bcd(const char *supi, size_t mcc_mnc_len, uint8_t *out, size_t cap)
{
	const char *msin = supi + 5 + mcc_mnc_len;
	size_t n = strlen(msin), i;

	if (n == 0 || (n + 1) / 2 > cap)
		return -EINVAL;
	memset(out, 0xff, (n + 1) / 2);
	for (i = 0; i < n; i++) {
		uint8_t d = (uint8_t)(msin[i] - '0');

		if (d > 9)
			return -EINVAL;
		if (i & 1)
			out[i / 2] = (uint8_t)((out[i / 2] & 0x0f) | d << 4);
		else
			out[i / 2] = (uint8_t)(0xf0 | d);
	}
	return (int)((n + 1) / 2);
}

int rs_nas_suci(struct rs_ue *ue, struct nas_mobile_id *id)
{
	struct ransim *rs = ue->rs;
	struct nas_suci *s = &id->suci;
	uint8_t bcd[8];
	/* The SIM's IMSI holds the home MCC+MNC; we take its length from the home PLMN. */
	size_t plmn_digits = 3 + (rs->home.mnc3 ? 3 : 2);
	int n;

	memset(id, 0, sizeof(*id));
	n = msin_bcd(ue->sim->supi, plmn_digits, bcd, sizeof(bcd));
	if (n < 0)
		return n;
	id->type = NAS_MOBID_SUCI;
	s->supi_format = 0;
	s->plmn = rs->home;
	s->rid[0] = 0;            /* routing indicator "0" (TS 23.003 2.2B) */
	s->rid[1] = s->rid[2] = s->rid[3] = 0xf;
	if (rs->cfg.suci == RANSIM_SUCI_NULL) {
		s->scheme = NAS_SUCI_NULL;
		s->hn_key_id = 0;
		memcpy(rs->suci_out, bcd, (size_t)n);
	} else {
		/* TS 33.501 C.3: ECIES with a fresh ephemeral key per registration. */
		n = crypto_suci_conceal(rs->cfg.suci == RANSIM_SUCI_A ? CRYPTO_SUCI_PROFILE_A
								     : CRYPTO_SUCI_PROFILE_B,
					rs->cfg.hn_pub, rs->cfg.hn_pub_len, NULL, bcd, (size_t)n,
					rs->suci_out, sizeof(rs->suci_out));
		if (n < 0)
			return n;
		s->scheme = rs->cfg.suci == RANSIM_SUCI_A ? NAS_SUCI_PROFILE_A : NAS_SUCI_PROFILE_B;
		s->hn_key_id = rs->cfg.hn_key_id;
	}
	s->output.p = rs->suci_out;
	s->output.len = (uint16_t)n;
	return 0;
}

int rs_nas_wrap(struct rs_ue *ue, const struct nas_msg *m, uint8_t sht, uint8_t *out, size_t cap,
		bool corrupt_mac)
{
	uint8_t mac[4];
	int n, rc;

	if (sht == NAS_SHT_PLAIN)
		return nas_encode(m, out, cap, NULL);
	if (!ue->sec || cap < NAS_SEC_HDR_LEN)
		return -EINVAL;
	n = nas_encode(m, out + NAS_SEC_HDR_LEN, cap - NAS_SEC_HDR_LEN, NULL);
	if (n < 0)
		return n;
	/* TS 33.501 6.4.3.1 / 6.4.4.1: BEARER = NAS connection identifier, direction 0 = uplink. */
	if ((sht == NAS_SHT_INTEGRITY_CIPHERED || sht == NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX) && ue->nea) {
		rc = crypto_nea(ue->nea, ue->kenc, ue->ul_count, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, out + NAS_SEC_HDR_LEN,
				out + NAS_SEC_HDR_LEN, (size_t)n * 8);
		if (rc < 0)
			return rc;
	}
	/* TS 24.501 4.4.3.1: the MAC covers the sequence number and the (ciphered) message. */
	out[NAS_SEC_MAC_OFF] = (uint8_t)ue->ul_count;
	rc = crypto_nia(ue->nia, ue->kint, ue->ul_count, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, out + NAS_SEC_MAC_OFF,
			((size_t)n + 1) * 8, mac);
	if (rc < 0)
		return rc;
	if (corrupt_mac)
		mac[3] ^= 0x5a;
	rc = nas_sec_hdr_enc(out, NAS_SEC_HDR_LEN, sht,
			     (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3],
			     (uint8_t)ue->ul_count);
	if (rc < 0)
		return rc;
	if (!corrupt_mac)
		ue->ul_count = (ue->ul_count + 1) & 0xffffff;
	return n + NAS_SEC_HDR_LEN;
}

/* TS 24.501 4.4.3.1: the UE estimates the 24-bit downlink COUNT from the 8-bit SQN. */
static uint32_t dl_count_estimate(const struct rs_ue *ue, uint8_t sqn)
{
	uint32_t ovf = ue->dl_count >> 8;

	if (sqn < (uint8_t)ue->dl_count)
		ovf++;
	return (ovf << 8 | sqn) & 0xffffff;
}

/* TS 24.501 4.4.4.2: plain 5GMM messages a UE accepts once security is active. */
static bool plain_allowed(uint8_t type)
{
	switch (type) {
	case NAS_IDENTITY_REQUEST:
	case NAS_AUTHENTICATION_REQUEST:
	case NAS_AUTHENTICATION_RESULT:
	case NAS_AUTHENTICATION_REJECT:
	case NAS_REGISTRATION_REJECT:
	case NAS_DEREGISTRATION_ACCEPT_UE_ORIG:
	case NAS_SERVICE_REJECT:
		return true;
	default:
		return false;
	}
}

int rs_nas_unwrap(struct rs_ue *ue, const uint8_t *nas, size_t len, struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	struct nas_sec_hdr hdr;
	struct nas_err err;
	uint8_t epd, sht, mac[4];
	uint8_t kint[16], kenc[16], nia, nea;
	uint32_t count;
	bool new_ctx;
	int rc;

	if (nas_peek(nas, len, &epd, &sht) < 0 || epd != NAS_EPD_5GMM)
		return -EBADMSG;
	if (sht == NAS_SHT_PLAIN) {
		rc = nas_decode(nas, len, m, &err);
		if (rc < 0)
			return -EBADMSG;
		if (ue->sec && !plain_allowed(m->type))
			return -EPERM;
		return 0;
	}
	if (nas_sec_decode(nas, len, &hdr, &err) < 0)
		return -EBADMSG;
	new_ctx = sht == NAS_SHT_INTEGRITY_NEW_CTX;
	if (new_ctx) {
		/* SECURITY MODE COMMAND: integrity protected with the new context, not ciphered
		 * (TS 33.501 6.7.2). Its algorithms give the keys to check the MAC with. */
		if (!ue->has_kamf || nas_decode(hdr.msg.p, hdr.msg.len, m, &err) < 0 ||
		    m->type != NAS_SECURITY_MODE_COMMAND)
			return -EBADMSG;
		nia = m->smc.algs & 0x0f;
		nea = (m->smc.algs >> 4) & 0x0f;
		if (nia > 3 || nea > 3)
			return -EBADMSG;
		if (crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_INT, nia, kint) < 0 ||
		    crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_ENC, nea, kenc) < 0)
			return -EIO;
		count = hdr.sqn;      /* a new context starts the downlink COUNT at 0 */
	} else {
		if (!ue->sec)
			return -EACCES;
		memcpy(kint, ue->kint, 16);
		memcpy(kenc, ue->kenc, 16);
		nia = ue->nia;
		nea = ue->nea;
		count = dl_count_estimate(ue, hdr.sqn);
	}
	rc = crypto_nia(nia, kint, count, RS_NAS_BEARER, CRYPTO_DIR_DOWNLINK, hdr.mac_input.p,
			(size_t)hdr.mac_input.len * 8, mac);
	if (rc < 0 || ((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3]) != hdr.mac) {
		/* TS 24.501 4.4.4.2: discard a message whose integrity check fails. */
		rs->st.dl_mac_fail++;
		return -EACCES;
	}
	if (new_ctx) {
		memcpy(ue->kint, kint, 16);
		memcpy(ue->kenc, kenc, 16);
		ue->nia = nia;
		ue->nea = nea;
		ue->sec = true;
		ue->ul_count = 0;
		ue->dl_count = count;
		return 0;    /* already decoded */
	}
	ue->dl_count = count;
	if (sht == NAS_SHT_INTEGRITY_CIPHERED && nea) {
		if (crypto_nea(nea, kenc, count, RS_NAS_BEARER, CRYPTO_DIR_DOWNLINK, hdr.msg.p, rs->nas_plain,
			       (size_t)hdr.msg.len * 8) < 0)
			return -EIO;
		rc = nas_decode(rs->nas_plain, hdr.msg.len, m, &err);
	} else {
		rc = nas_decode(hdr.msg.p, hdr.msg.len, m, &err);
	}
	return rc < 0 ? -EBADMSG : 0;
}
