/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NAS security wrapping for the AMF (TS 24.501 4.4, TS 33.501 6.4 and D.3):
 * uplink integrity verification with NAS COUNT estimation, deciphering,
 * downlink protection, and the retransmission copy of the last downlink message.
 */
#include <errno.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/crypto/crypto.h"
#include "common/log.h"

#define NAS_BEARER_3GPP AMF_NAS_BEARER_3GPP

int amf_nas_derive_keys(struct amf_ue *ue)
{
	int rc = crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_INT, ue->nia, ue->knas_int);

	if (rc == 0)
		rc = crypto_kdf_alg_key(ue->kamf, CRYPTO_N_NAS_ENC, ue->nea, ue->knas_enc);
	return rc;
}

int amf_nas_decode_ul(struct amf_ue *ue, const uint8_t *buf, size_t len, struct nas_msg *m,
		      struct nas_err *err)
{
	/* TS 24.501 7.5 / TS 24.007 11.4.2: a UE of a later release may send longer IEs, and a
	 * malformed optional IE is treated as absent rather than failing the message. */
	int rc = nas_decode_ex(buf, len, m, err, NAS_DEC_LENIENT);

	if (rc == 0 && err->ignored)
		amf_ue_log(LOGL_DEBUG, ue, "%s: %u malformed optional IE(s) ignored, first %s at %zu: %s",
			   nas_msg_name(m->type), err->ignored, err->ie ? err->ie : "?", err->off,
			   err->reason ? err->reason : "");
	return rc;
}

/* TS 24.501 4.4.3.1: the receiver keeps the 24-bit COUNT and estimates the
 * overflow from the 8-bit sequence number of each message. */
static uint32_t estimate_ul_count(const struct amf_ue *ue, uint8_t sqn)
{
	uint32_t c;

	if (!ue->ul_count_valid)
		return sqn;
	c = (ue->ul_count & 0xffff00u) | sqn;
	if (c <= ue->ul_count)
		c = (c + 0x100u) & 0xffffffu;
	return c;
}

void amf_nas_count_accept(struct amf_ue *ue, const struct amf_nas_in *in)
{
	ue->ul_count = in->count;
	ue->ul_count_valid = true;
}

int amf_nas_unwrap(struct amf_ue *ue, const uint8_t *buf, size_t len, struct amf_nas_in *in)
{
	struct amf *amf = ue->amf;
	struct nas_sec_hdr h;
	struct nas_err err;
	uint8_t epd, sht, mac[4];
	uint32_t count;
	int rc;

	memset(in, 0, sizeof(*in));
	rc = nas_peek(buf, len, &epd, &sht);
	if (rc < 0 || epd != NAS_EPD_5GMM)
		return -EBADMSG;
	in->sht = sht;
	if (sht == NAS_SHT_PLAIN) {
		in->msg = buf;
		in->len = len;
		return 0;
	}
	rc = nas_sec_decode(buf, len, &h, &err);
	if (rc < 0)
		return -EBADMSG;
	in->msg = h.msg.p;
	in->len = h.msg.len;
	if (!ue->sec_ctx)
		return 0;   /* nothing to verify with: integrity_ok stays false */
	count = estimate_ul_count(ue, h.sqn);
	rc = crypto_nia(ue->nia, ue->knas_int, count, NAS_BEARER_3GPP, CRYPTO_DIR_UPLINK,
			h.mac_input.p, (size_t)h.mac_input.len * 8, mac);
	if (rc < 0)
		return rc;
	/* NIA0 gives a zero MAC (TS 33.501 D.1); the check is the same compare. */
	if (((uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3]) != h.mac)
		return 0;
	in->integrity_ok = true;
	in->count = count;
	if ((sht == NAS_SHT_INTEGRITY_CIPHERED || sht == NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX) &&
	    ue->nea != 0) {
		/* Not nasbuf: handlers send while the decoded message still points here. */
		if (h.msg.len > sizeof(amf->nasrx))
			return -EMSGSIZE;
		rc = crypto_nea(ue->nea, ue->knas_enc, count, NAS_BEARER_3GPP, CRYPTO_DIR_UPLINK,
				h.msg.p, amf->nasrx, (size_t)h.msg.len * 8);
		if (rc < 0)
			return rc;
		in->msg = amf->nasrx;
	}
	return 0;
}

int amf_nas_container_open(struct amf_ue *ue, const struct nas_buf *c, uint8_t want)
{
	struct amf *amf = ue->amf;
	struct nas_err err;
	uint8_t *plain = amf->nasrx;
	int rc = 0;

	if (c->len > sizeof(amf->nasrx))
		rc = -EMSGSIZE;
	else if (ue->nea == 0)
		memcpy(plain, c->p, c->len);
	else
		rc = crypto_nea(ue->nea, ue->knas_enc, ue->ul_count, NAS_BEARER_3GPP, CRYPTO_DIR_UPLINK, c->p,
				plain, (size_t)c->len * 8);
	if (rc == 0)
		rc = amf_nas_decode_ul(ue, plain, c->len, &amf->nrx2, &err);
	if (rc == 0 && amf->nrx2.type != want)
		rc = -EPROTO;
	if (rc < 0)
		amf_ue_log(LOGL_WARN, ue, "NAS message container not usable (rc=%d): ignored", rc);
	return rc;
}

/* Protect and send the plain message at out + NAS_SEC_HDR_LEN (plen bytes). */
static int protect_and_send(struct amf_ue *ue, uint8_t *out, size_t plen, enum amf_nas_kind kind,
			    enum amf_nas_via via)
{
	uint8_t sht, mac[4];
	uint8_t *plain = out + NAS_SEC_HDR_LEN;
	uint32_t count = ue->dl_count & 0xffffffu;
	int rc;

	if (kind == AMF_NAS_PLAIN || (kind == AMF_NAS_AUTO && !ue->sec_active)) {
		if (via == AMF_VIA_ICS)
			return amf_ngap_ics_request(ue, plain, plen);
		if (via == AMF_VIA_SM)
			return amf_ngap_sm(ue, plain, plen);
		return amf_ngap_dl_nas(ue, plain, plen);
	}
	sht = kind == AMF_NAS_SMC ? NAS_SHT_INTEGRITY_NEW_CTX : NAS_SHT_INTEGRITY_CIPHERED;
	if (sht == NAS_SHT_INTEGRITY_CIPHERED && ue->nea != 0) {
		rc = crypto_nea(ue->nea, ue->knas_enc, count, NAS_BEARER_3GPP, CRYPTO_DIR_DOWNLINK,
				plain, plain, plen * 8);
		if (rc < 0)
			return rc;
	}
	out[NAS_SEC_MAC_OFF] = (uint8_t)count;
	rc = crypto_nia(ue->nia, ue->knas_int, count, NAS_BEARER_3GPP, CRYPTO_DIR_DOWNLINK,
			out + NAS_SEC_MAC_OFF, (plen + 1) * 8, mac);
	if (rc < 0)
		return rc;
	rc = nas_sec_hdr_enc(out, NAS_SEC_HDR_LEN, sht,
			     (uint32_t)mac[0] << 24 | (uint32_t)mac[1] << 16 | (uint32_t)mac[2] << 8 | mac[3],
			     (uint8_t)count);
	if (rc < 0)
		return rc;
	/* TS 24.501 4.4.3.1: one COUNT per message; the 24-bit value wraps. */
	ue->dl_count = (ue->dl_count + 1) & 0xffffffu;
	if (via == AMF_VIA_ICS)
		return amf_ngap_ics_request(ue, out, plen + NAS_SEC_HDR_LEN);
	if (via == AMF_VIA_SM)
		return amf_ngap_sm(ue, out, plen + NAS_SEC_HDR_LEN);
	return amf_ngap_dl_nas(ue, out, plen + NAS_SEC_HDR_LEN);
}

int amf_nas_send(struct amf_ue *ue, const struct nas_msg *m, enum amf_nas_kind kind,
		 enum amf_nas_via via, enum amf_tmr keep_tmr)
{
	struct amf *amf = ue->amf;
	uint8_t *out = amf->nasbuf;
	struct nas_err err;
	int n;

	n = nas_encode(m, out + NAS_SEC_HDR_LEN, sizeof(amf->nasbuf) - NAS_SEC_HDR_LEN, &err);
	if (n < 0) {
		amf_ue_log(LOGL_ERROR, ue, "encode %s failed rc=%d %s", nas_msg_name(m->type), n,
			   err.reason ? err.reason : "");
		return n;
	}
	if (keep_tmr != AMF_TMR_COUNT && (size_t)n <= sizeof(ue->last_nas)) {
		memcpy(ue->last_nas, out + NAS_SEC_HDR_LEN, (size_t)n);
		ue->last_nas_len = (uint16_t)n;
		ue->last_nas_tmr = (uint8_t)keep_tmr;
		ue->last_nas_kind = (uint8_t)kind;
	}
	amf_ue_log(LOGL_DEBUG, ue, "tx %s", nas_msg_name(m->type));
	return protect_and_send(ue, out, (size_t)n, kind, via);
}

int amf_nas_retransmit(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;

	if (!ue->last_nas_len || !ue->gnb)
		return -ENOENT;
	memcpy(amf->nasbuf + NAS_SEC_HDR_LEN, ue->last_nas, ue->last_nas_len);
	/* Always by DownlinkNASTransport: the Initial Context Setup (if any) was done. */
	return protect_and_send(ue, amf->nasbuf, ue->last_nas_len,
				(enum amf_nas_kind)ue->last_nas_kind, AMF_VIA_DL_NAS);
}

int amf_warm_up(struct amf *amf)
{
	/* One-time OpenSSL set-up (provider fetches for HMAC-SHA-256, AES-CMAC and AES-CTR,
	 * cipher contexts; SNOW 3G tables) otherwise paid by the first UE: run every KDF of a
	 * registration (TS 33.501 A.5-A.9) and each configured NIA/NEA once with a dummy key. */
	static const uint8_t key[32] = { 0x3c }, rand[16] = { 0x11 }, abba[2];
	uint8_t out[32], k16[16], mac[4], buf[16] = { 0 };
	unsigned i;
	int rc;

	rc = crypto_hxres_star(rand, key, out);
	if (rc == 0)
		rc = crypto_kdf_kseaf(key, amf->snname, out);
	if (rc == 0)
		rc = crypto_kdf_kamf(key, "imsi-001010000000000", abba, sizeof(abba), out);
	if (rc == 0)
		rc = crypto_kdf_alg_key(key, CRYPTO_N_NAS_INT, 2, k16);
	if (rc == 0)
		rc = crypto_kdf_kgnb(key, 0, CRYPTO_ACCESS_3GPP, out);
	for (i = 0; rc == 0 && i < amf->cfg.n_integ; i++)
		if (amf->cfg.integ_prio[i] != 0)
			rc = crypto_nia(amf->cfg.integ_prio[i], k16, 0, NAS_BEARER_3GPP, CRYPTO_DIR_UPLINK,
					buf, sizeof(buf) * 8, mac);
	for (i = 0; rc == 0 && i < amf->cfg.n_ciph; i++)
		if (amf->cfg.ciph_prio[i] != 0)
			rc = crypto_nea(amf->cfg.ciph_prio[i], k16, 0, NAS_BEARER_3GPP, CRYPTO_DIR_DOWNLINK,
					buf, buf, sizeof(buf) * 8);
	explicit_bzero(out, sizeof(out));
	explicit_bzero(k16, sizeof(k16));
	return rc;
}
