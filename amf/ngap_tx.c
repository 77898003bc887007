/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * N2 send side: encode into the AMF's one transmit buffer and hand the bytes to
 * the transport (which copies them), plus the UE-associated messages the NAS
 * procedures need.
 */
#include <errno.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/crypto/crypto.h"
#include "common/log.h"

int amf_ngap_send(struct amf *amf, uint32_t assoc, uint16_t stream, const struct ngap_msg *m)
{
	int n = ngap_encode(m, amf->txbuf, sizeof(amf->txbuf));

	if (n < 0) {
		log_error("amf", "assoc=%u encode %s failed rc=%d", assoc, ngap_msg_name(m->type, m->proc), n);
		return n;
	}
	amf->st.ngap_tx++;
	return amf->ops.send(amf->ops.arg, assoc, stream, amf->txbuf, (size_t)n);
}

int amf_ngap_dl_nas(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;

	if (!ue->gnb)
		return -ENOTCONN;
	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_DOWNLINK_NAS_TRANSPORT;
	tx->u.downlink_nas_transport.amf_ue_id = ue->amf_ue_ngap_id;
	tx->u.downlink_nas_transport.ran_ue_id = ue->ran_ue_ngap_id;
	tx->u.downlink_nas_transport.nas.p = nas;
	tx->u.downlink_nas_transport.nas.len = len;
	return amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

static void snssai_to_ngap(const struct amf_snssai *in, struct ngap_snssai *out)
{
	out->sst = in->sst;
	out->has_sd = in->sd != AMF_SD_NONE;
	out->sd[0] = (uint8_t)(in->sd >> 16);
	out->sd[1] = (uint8_t)(in->sd >> 8);
	out->sd[2] = (uint8_t)in->sd;
}

/* NAS UE security capability octets (TS 24.501 9.11.3.54: bit 8 = EA0/IA0) to the NGAP
 * 16-bit strings (TS 38.413 9.3.1.86: first bit = 128-NEA1/NIA1). */
static uint16_t nas_caps_to_ngap(uint8_t octet)
{
	return (uint16_t)(((uint16_t)(octet << 1) & 0xfe) << 8);
}

int amf_ngap_ics_request(struct amf_ue *ue, const uint8_t *nas, size_t len)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;
	struct ngap_initial_context_setup_request *r = &tx->u.initial_context_setup_request;
	unsigned i;
	int rc;

	if (!ue->gnb)
		return -ENOTCONN;
	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_INITIAL_CONTEXT_SETUP;
	r->amf_ue_id = ue->amf_ue_ngap_id;
	r->ran_ue_id = ue->ran_ue_ngap_id;
	memcpy(r->guami.plmn.v, amf->cfg.plmn, 3);
	r->guami.region = amf->cfg.amf_region_id;
	r->guami.set_id = amf->cfg.amf_set_id;
	r->guami.pointer = amf->cfg.amf_pointer;
	r->n_allowed_nssai = ue->allowed.n;
	for (i = 0; i < ue->allowed.n; i++)
		snssai_to_ngap(&ue->allowed.s[i], &r->allowed_nssai[i]);
	/* TS 38.413 9.3.1.86 from the UE's NAS capabilities (TS 33.501 6.7.2). */
	r->ue_sec_cap.nr_enc = nas_caps_to_ngap(ue->ue_sec_cap[0]);
	r->ue_sec_cap.nr_int = nas_caps_to_ngap(ue->ue_sec_cap[1]);
	if (ue->ue_sec_cap_len >= 4) {
		r->ue_sec_cap.eutra_enc = nas_caps_to_ngap(ue->ue_sec_cap[2]);
		r->ue_sec_cap.eutra_int = nas_caps_to_ngap(ue->ue_sec_cap[3]);
	}
	/* TS 33.501 6.8.1.2.2 / A.9: K_gNB from K_AMF and the uplink NAS COUNT of the
	 * message that completed security (Security Mode Complete / Service Request). */
	rc = crypto_kdf_kgnb(ue->kamf, ue->ul_count, CRYPTO_ACCESS_3GPP, r->security_key);
	if (rc < 0)
		return rc;
	if (nas) {
		r->nas.p = nas;
		r->nas.len = len;
	}
	rc = amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
	explicit_bzero(r->security_key, sizeof(r->security_key));
	if (rc == 0)
		ue->ics_sent = true;
	return rc;
}

int amf_ngap_release(struct amf_ue *ue, uint8_t cause_group, uint8_t cause_value)
{
	struct amf *amf = ue->amf;
	struct ngap_msg *tx = &amf->tx;

	if (!ue->gnb)
		return -ENOTCONN;
	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_UE_CONTEXT_RELEASE;
	tx->u.ue_context_release_command.has_ran_ue_id = true;
	tx->u.ue_context_release_command.amf_ue_id = ue->amf_ue_ngap_id;
	tx->u.ue_context_release_command.ran_ue_id = ue->ran_ue_ngap_id;
	tx->u.ue_context_release_command.cause = (struct ngap_cause){ cause_group, cause_value };
	ue->release_pending = true;
	return amf_ngap_send(amf, ue->gnb->assoc, ue->stream, tx);
}

int amf_ngap_error_ind(struct amf *amf, uint32_t assoc, uint16_t stream, const uint64_t *amf_ue_id,
		       const uint32_t *ran_ue_id, uint8_t cause_group, uint8_t cause_value,
		       const struct ngap_crit_diag *diag)
{
	struct ngap_msg *tx = &amf->tx;
	struct ngap_error_indication *e = &tx->u.error_indication;

	memset(tx, 0, sizeof(*tx));
	tx->type = NGAP_INITIATING;
	tx->proc = NGAP_PROC_ERROR_INDICATION;
	/* TS 38.413 9.2.7.1: both UE IDs or none. */
	if (amf_ue_id && ran_ue_id && *amf_ue_id <= AMF_UE_NGAP_ID_MAX) {
		e->has_amf_ue_id = true;
		e->amf_ue_id = *amf_ue_id;
		e->has_ran_ue_id = true;
		e->ran_ue_id = *ran_ue_id;
	}
	e->has_cause = true;
	e->cause = (struct ngap_cause){ cause_group, cause_value };
	if (diag && (diag->has_proc || diag->n_ies)) {
		e->has_crit_diag = true;
		e->crit_diag = *diag;
	}
	return amf_ngap_send(amf, assoc, stream, tx);
}
