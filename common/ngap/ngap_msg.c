/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NGAP-PDU and the ProtocolIE-Container walker (TS 38.413 9.4.3 / 9.4.4 / 10.3).
 * Each message is a table of the IEs we code, in the order of its *IEs set in the ASN.1; one
 * generic routine decodes and encodes every container from its table.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/ngap/ngap_tab.h"

#define ID_AMF_UE_NGAP_ID 10
#define ID_RAN_UE_NGAP_ID 85
#define MAX_IE_ROWS 64

/* ---- container walker ---- */

static bool ie_present(const struct ngap_ie_spec *e, const void *s)
{
	const char *b = s;

	if (e->presence == NGAP_PRES_M)
		return true;
	if (e->has >= 0)
		return *(const bool *)(b + e->has);
	if (e->raw >= 0 && ((const struct ngap_bytes *)(b + e->raw))->p)
		return true;
	if (e->cnt >= 0)
		return *(const uint8_t *)(b + e->cnt) > 0;
	return ((const struct ngap_bytes *)(b + e->off))->p != NULL; /* optional OCTET STRING / name */
}

/* TS 38.413 10.3.4.2 / 10.3.5: record an IE not comprehended or missing, by its criticality. */
void ngap_note_ie(struct ngap_dec_info *info, uint16_t id, uint8_t crit, uint8_t type)
{
	uint8_t act = crit == NGAP_CRIT_REJECT ? NGAP_ACT_REJECT :
		      crit == NGAP_CRIT_NOTIFY ? NGAP_ACT_NOTIFY : NGAP_ACT_IGNORE;

	/* only what is to be reported goes into the diagnostics: "ignore" IEs are dropped silently */
	if (crit != NGAP_CRIT_IGNORE && info->diag.n_ies < NGAP_MAX_DIAG_IES) {
		struct ngap_diag_ie *d = &info->diag.ies[info->diag.n_ies++];

		d->crit = crit;
		d->id = id;
		d->type_of_error = type;
	}
	if (act > info->action)
		info->action = act;
}

/* ProtocolIE-Field head (TS 38.413 9.4.4): id INTEGER (0..65535), 16 bits octet-aligned, then
 * criticality ENUMERATED {reject, ignore, notify}, 2 bits. Every field starts octet-aligned (after
 * the count or the previous open type), so both come from the next three octets directly; returns
 * false (nothing read) when they are not all there, the position is not aligned, or the
 * criticality is out of range, for aper_get_cint / aper_get_enum to decode or report as ever. */
static bool ie_head(struct aper_r *r, int64_t *id, unsigned *crit)
{
	const uint8_t *p = r->buf + r->pos / 8;

	if (r->err || (r->pos & 7) || r->len - r->pos / 8 < 3 || (p[2] >> 6) > NGAP_CRIT_NOTIFY)
		return false;
	*id = (int64_t)p[0] << 8 | p[1];
	*crit = p[2] >> 6;
	r->pos += 18;
	return true;
}

int ngap_container_dec(struct aper_r *r, const struct ngap_container *ct, void *s, struct ngap_dec_info *info)
{
	uint32_t mask;
	bool ext;
	size_t n, i;
	uint64_t seen = 0;
	char *base = s;

	memset(s, 0, ct->size);
	ngap_seq_dec(r, 0, &mask, &ext); /* SEQUENCE { protocolIEs ProtocolIE-Container, ... } */
	if (aper_get_count(r, 0, 65535, &n)) /* SEQUENCE (SIZE (0..maxProtocolIEs)) OF ProtocolIE-Field */
		return r->err;
	for (i = 0; i < n; i++) {
		int64_t id;
		unsigned crit, k;
		int rc;
		struct aper_r sub;
		const struct ngap_ie_spec *e = NULL;
		size_t at = r->base + r->pos;

		if (!ie_head(r, &id, &crit)) { /* the general way, which also reports the errors */
			aper_get_cint(r, 0, 65535, false, &id);
			aper_get_enum(r, 3, false, &crit);
		}
		if (!r->err && crit > NGAP_CRIT_NOTIFY)
			return aper_r_fail(r, -EBADMSG, "bad criticality value");
		if (ngap_get_open(r, &sub, info))
			return r->err;
		for (k = 0; k < ct->n; k++)
			if (ct->ies[k].id == id) {
				e = &ct->ies[k];
				break;
			}
		if (!e) { /* not comprehended: unknown id, or not expected in this message */
			ngap_note_ie(info, (uint16_t)id, (uint8_t)crit, NGAP_ERR_NOT_UNDERSTOOD);
			continue;
		}
		if (seen & (UINT64_C(1) << k)) {
			/* 10.3.6: an IE more often than allowed is an abstract syntax error (falsely constructed) */
			r->pos = at - r->base;
			return aper_r_fail(r, -EBADMSG, "IE appears more than once");
		}
		seen |= UINT64_C(1) << k;
		if (e->has >= 0)
			*(bool *)(base + e->has) = true;
		rc = e->codec->dec(e->codec, &sub, base + e->off, e->cnt >= 0 ? (uint8_t *)(base + e->cnt) : NULL);
		if (sub.err)
			return aper_r_take(r, &sub);
		if (e->raw >= 0)
			*(struct ngap_bytes *)(base + e->raw) = (struct ngap_bytes){ sub.buf, sub.len };
		if (e->total >= 0 && rc > 0) {
			if (e->twidth == 2)
				*(uint16_t *)(base + e->total) = (uint16_t)rc;
			else
				*(uint32_t *)(base + e->total) = (uint32_t)rc;
		}
		if (aper_r_left(&sub) >= 8)
			return aper_r_fail(&sub, -EBADMSG, "IE value longer than its content"),
			       aper_r_take(r, &sub);
		if (id == ID_AMF_UE_NGAP_ID && e->codec == &ngap_c_amf_ue_id) {
			info->ue_ids_seen |= 1;
			info->amf_ue_id = *(uint64_t *)(base + e->off);
		} else if (id == ID_RAN_UE_NGAP_ID) {
			info->ue_ids_seen |= 2;
			info->ran_ue_id = *(uint32_t *)(base + e->off);
		}
	}
	for (unsigned k = 0; k < ct->n; k++)
		if (ct->ies[k].presence == NGAP_PRES_M && !(seen & (UINT64_C(1) << k)))
			ngap_note_ie(info, ct->ies[k].id, ct->ies[k].crit, NGAP_ERR_MISSING);
	return ngap_seq_end(r, 0, 0, ext);
}

/* The same head written: three octets (the criticality's 6 padding bits zero, as the writer pads)
 * when the position is aligned and they fit; false (nothing written) otherwise. */
static bool ie_head_put(struct aper_w *w, uint16_t id, uint8_t crit)
{
	uint8_t *p = w->buf + w->pos / 8;

	if (w->err || (w->pos & 7) || w->cap - w->pos / 8 < 3 || crit > NGAP_CRIT_NOTIFY)
		return false;
	p[0] = (uint8_t)(id >> 8);
	p[1] = (uint8_t)id;
	p[2] = (uint8_t)(crit << 6);
	w->pos += 18;
	return true;
}

int ngap_container_enc(struct aper_w *w, const struct ngap_container *ct, const void *s)
{
	const char *base = s;
	size_t n = 0, mark;

	for (unsigned k = 0; k < ct->n; k++)
		n += ie_present(&ct->ies[k], s);
	aper_put_seq(w, true, 0, 0);
	aper_put_count(w, 0, 65535, n);
	for (unsigned k = 0; k < ct->n && !w->err; k++) {
		const struct ngap_ie_spec *e = &ct->ies[k];

		if (!ie_present(e, s))
			continue;
		if (!ie_head_put(w, e->id, e->crit)) {
			aper_put_cint(w, 0, 65535, false, e->id);
			aper_put_enum(w, 3, false, e->crit);
		}
		aper_open_begin(w, &mark);
		if (e->raw >= 0 && ((const struct ngap_bytes *)(base + e->raw))->p) {
			const struct ngap_bytes *rb = (const void *)(base + e->raw); /* an encoded list, as is */

			for (size_t j = 0; j < rb->len && !w->err; j++)
				aper_put_bits(w, rb->p[j], 8);
		} else {
			e->codec->enc(e->codec, w, base + e->off, e->cnt >= 0 ? (const uint8_t *)(base + e->cnt) : NULL);
		}
		aper_open_end(w, mark);
	}
	return w->err;
}

/* ---- IE tables (TS 38.413 9.2; order, criticality and presence as in the ASN.1 *IEs sets of 9.4.4;
 * the last column is the IE's ProtocolIE-ID name in 9.4.7, which names it in the tabular text) ---- */

/* ROW, M, O ... CONTAINER: ngap_tab.h */

#define T struct ngap_ng_setup_request
static const struct ngap_ie_spec ng_setup_req_ies[] = {
	M(T, 27, REJECT, ran_node_id, global_ran_node_id, "id-GlobalRANNodeID"),
	OB(T, 82, IGNORE, ran_node_name, name, "id-RANNodeName"),
	LX(T, 102, REJECT, M, tas, n_tas, total_tas, tas_raw, supported_ta_list, "id-SupportedTAList"),
	M(T, 21, IGNORE, default_paging_drx, paging_drx, "id-DefaultPagingDRX"),
	O(T, 147, IGNORE, ue_retention_info, has_ue_retention_info, ue_retention, "id-UERetentionInformation"),
};
CONTAINER(ng_setup_req, T);
#undef T

#define T struct ngap_ng_setup_response
static const struct ngap_ie_spec ng_setup_resp_ies[] = {
	M(T, 1, REJECT, amf_name, name, "id-AMFName"),
	ML(T, 96, REJECT, guamis, n_guamis, served_guami_list, "id-ServedGUAMIList"),
	M(T, 86, IGNORE, relative_capacity, relative_capacity, "id-RelativeAMFCapacity"),
	ML(T, 80, REJECT, plmns, n_plmns, plmn_support_list, "id-PLMNSupportList"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
	O(T, 147, IGNORE, ue_retention_info, has_ue_retention_info, ue_retention, "id-UERetentionInformation"),
};
CONTAINER(ng_setup_resp, T);
#undef T

#define FAILURE_IES(T) \
	M(T, 15, IGNORE, cause, cause, "id-Cause"), \
	O(T, 107, IGNORE, time_to_wait, has_time_to_wait, time_to_wait, "id-TimeToWait"), \
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics")

static const struct ngap_ie_spec ng_setup_fail_ies[] = { FAILURE_IES(struct ngap_ng_setup_failure) };
CONTAINER(ng_setup_fail, struct ngap_ng_setup_failure);
static const struct ngap_ie_spec ran_cfg_fail_ies[] = { FAILURE_IES(struct ngap_ran_configuration_update_failure) };
CONTAINER(ran_cfg_fail, struct ngap_ran_configuration_update_failure);
static const struct ngap_ie_spec amf_cfg_fail_ies[] = { FAILURE_IES(struct ngap_amf_configuration_update_failure) };
CONTAINER(amf_cfg_fail, struct ngap_amf_configuration_update_failure);

#define T struct ngap_initial_ue_message
static const struct ngap_ie_spec init_ue_ies[] = {
	M(T, 85, REJECT, ran_ue_id, ran_ue_id, "id-RAN-UE-NGAP-ID"),
	M(T, 38, REJECT, nas, nas_pdu, "id-NAS-PDU"),
	M(T, 121, REJECT, uli, uli, "id-UserLocationInformation"),
	M(T, 90, IGNORE, rrc_cause, rrc_cause, "id-RRCEstablishmentCause"),
	O(T, 26, REJECT, s_tmsi, has_s_tmsi, s_tmsi, "id-FiveG-S-TMSI"),
	O(T, 3, IGNORE, amf_set_id, has_amf_set_id, amf_set_id, "id-AMFSetID"),
	OF(T, 112, IGNORE, has_ue_context_request, "id-UEContextRequest"),
	OL(T, 0, REJECT, allowed_nssai, n_allowed_nssai, allowed_nssai, "id-AllowedNSSAI"),
};
CONTAINER(init_ue, T);
#undef T

#define T struct ngap_downlink_nas_transport
static const struct ngap_ie_spec dl_nas_ies[] = {
	UE_IDS(T, REJECT),
	OB(T, 48, REJECT, old_amf, name, "id-OldAMF"),
	O(T, 83, IGNORE, ran_paging_priority, has_ran_paging_priority, ran_paging_priority, "id-RANPagingPriority"),
	M(T, 38, REJECT, nas, nas_pdu, "id-NAS-PDU"),
	O(T, 31, IGNORE, index_to_rfsp, has_index_to_rfsp, index_to_rfsp, "id-IndexToRFSP"),
	O(T, 110, IGNORE, ue_ambr, has_ue_ambr, ue_ambr, "id-UEAggregateMaximumBitRate"),
	OL(T, 0, REJECT, allowed_nssai, n_allowed_nssai, allowed_nssai, "id-AllowedNSSAI"),
};
CONTAINER(dl_nas, T);
#undef T

#define T struct ngap_uplink_nas_transport
static const struct ngap_ie_spec ul_nas_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 38, REJECT, nas, nas_pdu, "id-NAS-PDU"),
	M(T, 121, IGNORE, uli, uli, "id-UserLocationInformation"),
};
CONTAINER(ul_nas, T);
#undef T

#define T struct ngap_nas_non_delivery_indication
static const struct ngap_ie_spec nas_nd_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 38, IGNORE, nas, nas_pdu, "id-NAS-PDU"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
};
CONTAINER(nas_nd, T);
#undef T

#define T struct ngap_reroute_nas_request
static const struct ngap_ie_spec reroute_ies[] = {
	M(T, 85, REJECT, ran_ue_id, ran_ue_id, "id-RAN-UE-NGAP-ID"),
	O(T, 10, IGNORE, amf_ue_id, has_amf_ue_id, amf_ue_id, "id-AMF-UE-NGAP-ID"),
	M(T, 42, REJECT, ngap_message, octets, "id-NGAP-Message"),
	M(T, 3, REJECT, amf_set_id, amf_set_id, "id-AMFSetID"),
	OL(T, 0, REJECT, allowed_nssai, n_allowed_nssai, allowed_nssai, "id-AllowedNSSAI"),
};
CONTAINER(reroute, T);
#undef T

#define T struct ngap_initial_context_setup_request
static const struct ngap_ie_spec ics_req_ies[] = {
	UE_IDS(T, REJECT),
	OB(T, 48, REJECT, old_amf, name, "id-OldAMF"),
	O(T, 110, REJECT, ue_ambr, has_ue_ambr, ue_ambr, "id-UEAggregateMaximumBitRate"),
	M(T, 28, REJECT, guami, guami, "id-GUAMI"),
	OL(T, 71, REJECT, sessions, n_sessions, sess_nas_snssai, "id-PDUSessionResourceSetupListCxtReq"),
	ML(T, 0, REJECT, allowed_nssai, n_allowed_nssai, allowed_nssai, "id-AllowedNSSAI"),
	M(T, 119, REJECT, ue_sec_cap, ue_sec_cap, "id-UESecurityCapabilities"),
	M(T, 94, REJECT, security_key, security_key, "id-SecurityKey"),
	OB(T, 117, IGNORE, ue_radio_capability, octets, "id-UERadioCapability"),
	O(T, 31, IGNORE, index_to_rfsp, has_index_to_rfsp, index_to_rfsp, "id-IndexToRFSP"),
	O(T, 34, IGNORE, masked_imeisv, has_masked_imeisv, masked_imeisv, "id-MaskedIMEISV"),
	OB(T, 38, IGNORE, nas, nas_pdu, "id-NAS-PDU"),
};
CONTAINER(ics_req, T);
#undef T

#define T struct ngap_initial_context_setup_response
static const struct ngap_ie_spec ics_resp_ies[] = {
	UE_IDS(T, IGNORE),
	OL(T, 72, IGNORE, setup, n_setup, sess_xfer, "id-PDUSessionResourceSetupListCxtRes"),
	OL(T, 55, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToSetupListCxtRes"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ics_resp, T);
#undef T

#define T struct ngap_initial_context_setup_failure
static const struct ngap_ie_spec ics_fail_ies[] = {
	UE_IDS(T, IGNORE),
	OL(T, 132, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToSetupListCxtFail"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ics_fail, T);
#undef T

#define T struct ngap_ue_context_release_request
static const struct ngap_ie_spec ucr_req_ies[] = {
	UE_IDS(T, REJECT),
	OL(T, 133, REJECT, session_ids, n_sessions, sess_ids, "id-PDUSessionResourceListCxtRelReq"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
};
CONTAINER(ucr_req, T);
#undef T

#define T struct ngap_ue_context_release_command
static const struct ngap_ie_spec ucr_cmd_ies[] = {
	MW(T, 114, REJECT, ue_ngap_ids, "id-UE-NGAP-IDs"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
};
CONTAINER(ucr_cmd, T);
#undef T

#define T struct ngap_ue_context_release_complete
static const struct ngap_ie_spec ucr_cpl_ies[] = {
	UE_IDS(T, IGNORE),
	O(T, 121, IGNORE, uli, has_uli, uli, "id-UserLocationInformation"),
	OL(T, 60, REJECT, session_ids, n_sessions, sess_ids, "id-PDUSessionResourceListCxtRelCpl"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ucr_cpl, T);
#undef T

#define T struct ngap_ue_context_modification_request
static const struct ngap_ie_spec ucm_req_ies[] = {
	UE_IDS(T, REJECT),
	O(T, 83, IGNORE, ran_paging_priority, has_ran_paging_priority, ran_paging_priority, "id-RANPagingPriority"),
	O(T, 94, REJECT, security_key, has_security_key, security_key, "id-SecurityKey"),
	O(T, 31, IGNORE, index_to_rfsp, has_index_to_rfsp, index_to_rfsp, "id-IndexToRFSP"),
	O(T, 110, IGNORE, ue_ambr, has_ue_ambr, ue_ambr, "id-UEAggregateMaximumBitRate"),
	O(T, 119, REJECT, ue_sec_cap, has_ue_sec_cap, ue_sec_cap, "id-UESecurityCapabilities"),
	O(T, 40, REJECT, new_amf_ue_id, has_new_amf_ue_id, amf_ue_id, "id-NewAMF-UE-NGAP-ID"),
};
CONTAINER(ucm_req, T);
#undef T

#define T struct ngap_ue_context_modification_response
static const struct ngap_ie_spec ucm_resp_ies[] = {
	UE_IDS(T, IGNORE),
	O(T, 121, IGNORE, uli, has_uli, uli, "id-UserLocationInformation"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ucm_resp, T);
#undef T

#define T struct ngap_ue_context_modification_failure
static const struct ngap_ie_spec ucm_fail_ies[] = {
	UE_IDS(T, IGNORE),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ucm_fail, T);
#undef T

#define T struct ngap_pdu_session_resource_setup_request
static const struct ngap_ie_spec pss_req_ies[] = {
	UE_IDS(T, REJECT),
	O(T, 83, IGNORE, ran_paging_priority, has_ran_paging_priority, ran_paging_priority, "id-RANPagingPriority"),
	OB(T, 38, REJECT, nas, nas_pdu, "id-NAS-PDU"),
	ML(T, 74, REJECT, sessions, n_sessions, sess_nas_snssai, "id-PDUSessionResourceSetupListSUReq"),
	O(T, 110, IGNORE, ue_ambr, has_ue_ambr, ue_ambr, "id-UEAggregateMaximumBitRate"),
};
CONTAINER(pss_req, T);
#undef T

#define T struct ngap_pdu_session_resource_setup_response
static const struct ngap_ie_spec pss_resp_ies[] = {
	UE_IDS(T, IGNORE),
	OL(T, 75, IGNORE, setup, n_setup, sess_xfer, "id-PDUSessionResourceSetupListSURes"),
	OL(T, 58, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToSetupListSURes"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(pss_resp, T);
#undef T

#define T struct ngap_pdu_session_resource_release_command
static const struct ngap_ie_spec psr_cmd_ies[] = {
	UE_IDS(T, REJECT),
	O(T, 83, IGNORE, ran_paging_priority, has_ran_paging_priority, ran_paging_priority, "id-RANPagingPriority"),
	OB(T, 38, IGNORE, nas, nas_pdu, "id-NAS-PDU"),
	ML(T, 79, REJECT, sessions, n_sessions, sess_xfer, "id-PDUSessionResourceToReleaseListRelCmd"),
};
CONTAINER(psr_cmd, T);
#undef T

#define T struct ngap_pdu_session_resource_release_response
static const struct ngap_ie_spec psr_resp_ies[] = {
	UE_IDS(T, IGNORE),
	ML(T, 70, IGNORE, sessions, n_sessions, sess_xfer, "id-PDUSessionResourceReleasedListRelRes"),
	O(T, 121, IGNORE, uli, has_uli, uli, "id-UserLocationInformation"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(psr_resp, T);
#undef T

#define T struct ngap_pdu_session_resource_modify_request
static const struct ngap_ie_spec psm_req_ies[] = {
	UE_IDS(T, REJECT),
	O(T, 83, IGNORE, ran_paging_priority, has_ran_paging_priority, ran_paging_priority, "id-RANPagingPriority"),
	ML(T, 64, REJECT, sessions, n_sessions, sess_nas, "id-PDUSessionResourceModifyListModReq"),
};
CONTAINER(psm_req, T);
#undef T

#define T struct ngap_pdu_session_resource_modify_response
static const struct ngap_ie_spec psm_resp_ies[] = {
	UE_IDS(T, IGNORE),
	OL(T, 65, IGNORE, modified, n_modified, sess_xfer, "id-PDUSessionResourceModifyListModRes"),
	OL(T, 54, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToModifyListModRes"),
	O(T, 121, IGNORE, uli, has_uli, uli, "id-UserLocationInformation"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(psm_resp, T);
#undef T

#define T struct ngap_pdu_session_resource_notify
static const struct ngap_ie_spec psn_ies[] = {
	UE_IDS(T, REJECT),
	OL(T, 66, REJECT, notify, n_notify, sess_xfer, "id-PDUSessionResourceNotifyList"),
	OL(T, 67, IGNORE, released, n_released, sess_xfer, "id-PDUSessionResourceReleasedListNot"),
	O(T, 121, IGNORE, uli, has_uli, uli, "id-UserLocationInformation"),
};
CONTAINER(psn, T);
#undef T

#define T struct ngap_pdu_session_resource_modify_indication
static const struct ngap_ie_spec psmi_ies[] = {
	UE_IDS(T, REJECT),
	ML(T, 63, REJECT, sessions, n_sessions, sess_xfer, "id-PDUSessionResourceModifyListModInd"),
	O(T, 121, IGNORE, uli, has_uli, uli, "id-UserLocationInformation"),
};
CONTAINER(psmi, T);
#undef T

#define T struct ngap_pdu_session_resource_modify_confirm
static const struct ngap_ie_spec psmc_ies[] = {
	UE_IDS(T, IGNORE),
	OL(T, 62, IGNORE, modified, n_modified, sess_xfer, "id-PDUSessionResourceModifyListModCfm"),
	OL(T, 131, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToModifyListModCfm"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(psmc, T);
#undef T

#define T struct ngap_error_indication
static const struct ngap_ie_spec err_ind_ies[] = {
	O(T, 10, IGNORE, amf_ue_id, has_amf_ue_id, amf_ue_id, "id-AMF-UE-NGAP-ID"),
	O(T, 85, IGNORE, ran_ue_id, has_ran_ue_id, ran_ue_id, "id-RAN-UE-NGAP-ID"),
	O(T, 15, IGNORE, cause, has_cause, cause, "id-Cause"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
	O(T, 26, IGNORE, s_tmsi, has_s_tmsi, s_tmsi, "id-FiveG-S-TMSI"),
};
CONTAINER(err_ind, T);
#undef T

#define T struct ngap_ng_reset
static const struct ngap_ie_spec ng_reset_ies[] = {
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	MW(T, 88, REJECT, reset_type, "id-ResetType"),
};
CONTAINER(ng_reset, T);
#undef T

#define T struct ngap_ng_reset_ack
static const struct ngap_ie_spec ng_reset_ack_ies[] = {
	LX(T, 111, IGNORE, O, ues, n_ues, total_ues, ues_raw, ue_assoc_list, "id-UE-associatedLogicalNG-connectionList"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ng_reset_ack, T);
#undef T

#define T struct ngap_paging
static const struct ngap_ie_spec paging_ies[] = {
	M(T, 115, IGNORE, ue_paging_id, ue_paging_id, "id-UEPagingIdentity"),
	O(T, 50, IGNORE, paging_drx, has_paging_drx, paging_drx, "id-PagingDRX"),
	ML(T, 103, IGNORE, tais, n_tais, tai_paging, "id-TAIListForPaging"),
	O(T, 52, IGNORE, paging_priority, has_paging_priority, paging_priority, "id-PagingPriority"),
	OB(T, 118, IGNORE, ue_radio_capability_for_paging, raw, "id-UERadioCapabilityForPaging"),
	OF(T, 51, IGNORE, has_paging_origin, "id-PagingOrigin"),
};
CONTAINER(paging, T);
#undef T

#define T struct ngap_ue_radio_capability_info_indication
static const struct ngap_ie_spec urci_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 117, IGNORE, ue_radio_capability, octets, "id-UERadioCapability"),
	OB(T, 118, IGNORE, ue_radio_capability_for_paging, raw, "id-UERadioCapabilityForPaging"),
};
CONTAINER(urci, T);
#undef T

#define T struct ngap_ran_configuration_update
static const struct ngap_ie_spec ran_cfg_ies[] = {
	OB(T, 82, IGNORE, ran_node_name, name, "id-RANNodeName"),
	LX(T, 102, REJECT, O, tas, n_tas, total_tas, tas_raw, supported_ta_list, "id-SupportedTAList"),
	O(T, 21, IGNORE, default_paging_drx, has_default_paging_drx, paging_drx, "id-DefaultPagingDRX"),
	O(T, 27, IGNORE, ran_node_id, has_ran_node_id, global_ran_node_id, "id-GlobalRANNodeID"),
};
CONTAINER(ran_cfg, T);
#undef T

static const struct ngap_ie_spec ran_cfg_ack_ies[] = {
	O(struct ngap_ran_configuration_update_ack, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(ran_cfg_ack, struct ngap_ran_configuration_update_ack);

#define T struct ngap_amf_configuration_update
static const struct ngap_ie_spec amf_cfg_ies[] = {
	OB(T, 1, REJECT, amf_name, name, "id-AMFName"),
	OL(T, 96, REJECT, guamis, n_guamis, served_guami_list, "id-ServedGUAMIList"),
	O(T, 86, IGNORE, relative_capacity, has_relative_capacity, relative_capacity, "id-RelativeAMFCapacity"),
	OL(T, 80, REJECT, plmns, n_plmns, plmn_support_list, "id-PLMNSupportList"),
};
CONTAINER(amf_cfg, T);
#undef T

static const struct ngap_ie_spec amf_cfg_ack_ies[] = {
	O(struct ngap_amf_configuration_update_ack, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER(amf_cfg_ack, struct ngap_amf_configuration_update_ack);

/* ---- procedures (9.4.3 NGAP-PDU-Descriptions): type, code, procedure criticality ---- */

struct msg_spec {
	uint8_t type, proc, crit;
	const char *name;
	const struct ngap_container *ct;
};

#define I NGAP_INITIATING
#define S NGAP_SUCCESSFUL
#define U NGAP_UNSUCCESSFUL
#define R NGAP_CRIT_REJECT
#define G NGAP_CRIT_IGNORE
/* Every message we code: PDU type, procedure code, procedure criticality, name, IE container. */
#define MSGS(X) \
	X(I, NGAP_PROC_NG_SETUP, R, "NGSetupRequest", ng_setup_req) \
	X(S, NGAP_PROC_NG_SETUP, R, "NGSetupResponse", ng_setup_resp) \
	X(U, NGAP_PROC_NG_SETUP, R, "NGSetupFailure", ng_setup_fail) \
	X(I, NGAP_PROC_INITIAL_UE_MESSAGE, G, "InitialUEMessage", init_ue) \
	X(I, NGAP_PROC_DOWNLINK_NAS_TRANSPORT, G, "DownlinkNASTransport", dl_nas) \
	X(I, NGAP_PROC_UPLINK_NAS_TRANSPORT, G, "UplinkNASTransport", ul_nas) \
	X(I, NGAP_PROC_NAS_NON_DELIVERY_INDICATION, G, "NASNonDeliveryIndication", nas_nd) \
	X(I, NGAP_PROC_REROUTE_NAS_REQUEST, R, "RerouteNASRequest", reroute) \
	X(I, NGAP_PROC_INITIAL_CONTEXT_SETUP, R, "InitialContextSetupRequest", ics_req) \
	X(S, NGAP_PROC_INITIAL_CONTEXT_SETUP, R, "InitialContextSetupResponse", ics_resp) \
	X(U, NGAP_PROC_INITIAL_CONTEXT_SETUP, R, "InitialContextSetupFailure", ics_fail) \
	X(I, NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST, G, "UEContextReleaseRequest", ucr_req) \
	X(I, NGAP_PROC_UE_CONTEXT_RELEASE, R, "UEContextReleaseCommand", ucr_cmd) \
	X(S, NGAP_PROC_UE_CONTEXT_RELEASE, R, "UEContextReleaseComplete", ucr_cpl) \
	X(I, NGAP_PROC_UE_CONTEXT_MODIFICATION, R, "UEContextModificationRequest", ucm_req) \
	X(S, NGAP_PROC_UE_CONTEXT_MODIFICATION, R, "UEContextModificationResponse", ucm_resp) \
	X(U, NGAP_PROC_UE_CONTEXT_MODIFICATION, R, "UEContextModificationFailure", ucm_fail) \
	X(I, NGAP_PROC_PDU_SESSION_RESOURCE_SETUP, R, "PDUSessionResourceSetupRequest", pss_req) \
	X(S, NGAP_PROC_PDU_SESSION_RESOURCE_SETUP, R, "PDUSessionResourceSetupResponse", pss_resp) \
	X(I, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE, R, "PDUSessionResourceReleaseCommand", psr_cmd) \
	X(S, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE, R, "PDUSessionResourceReleaseResponse", psr_resp) \
	X(I, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY, R, "PDUSessionResourceModifyRequest", psm_req) \
	X(S, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY, R, "PDUSessionResourceModifyResponse", psm_resp) \
	X(I, NGAP_PROC_PDU_SESSION_RESOURCE_NOTIFY, G, "PDUSessionResourceNotify", psn) \
	X(I, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION, R, "PDUSessionResourceModifyIndication", psmi) \
	X(S, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION, R, "PDUSessionResourceModifyConfirm", psmc) \
	X(I, NGAP_PROC_ERROR_INDICATION, G, "ErrorIndication", err_ind) \
	X(I, NGAP_PROC_NG_RESET, R, "NGReset", ng_reset) \
	X(S, NGAP_PROC_NG_RESET, R, "NGResetAcknowledge", ng_reset_ack) \
	X(I, NGAP_PROC_PAGING, G, "Paging", paging) \
	X(I, NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION, G, "UERadioCapabilityInfoIndication", urci) \
	X(I, NGAP_PROC_RAN_CONFIGURATION_UPDATE, R, "RANConfigurationUpdate", ran_cfg) \
	X(S, NGAP_PROC_RAN_CONFIGURATION_UPDATE, R, "RANConfigurationUpdateAcknowledge", ran_cfg_ack) \
	X(U, NGAP_PROC_RAN_CONFIGURATION_UPDATE, R, "RANConfigurationUpdateFailure", ran_cfg_fail) \
	X(I, NGAP_PROC_AMF_CONFIGURATION_UPDATE, R, "AMFConfigurationUpdate", amf_cfg) \
	X(S, NGAP_PROC_AMF_CONFIGURATION_UPDATE, R, "AMFConfigurationUpdateAcknowledge", amf_cfg_ack) \
	X(U, NGAP_PROC_AMF_CONFIGURATION_UPDATE, R, "AMFConfigurationUpdateFailure", amf_cfg_fail) \
	MSGS_HO(X)
/* UE mobility management (TS 38.413 9.2.3; tables in ngap_ho.c) */
#define MSGS_HO(X) \
	X(I, NGAP_PROC_HANDOVER_PREPARATION, R, "HandoverRequired", ngap_ct_ho_required) \
	X(S, NGAP_PROC_HANDOVER_PREPARATION, R, "HandoverCommand", ngap_ct_ho_command) \
	X(U, NGAP_PROC_HANDOVER_PREPARATION, R, "HandoverPreparationFailure", ngap_ct_ho_prep_fail) \
	X(I, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION, R, "HandoverRequest", ngap_ct_ho_request) \
	X(S, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION, R, "HandoverRequestAcknowledge", ngap_ct_ho_request_ack) \
	X(U, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION, R, "HandoverFailure", ngap_ct_ho_fail) \
	X(I, NGAP_PROC_HANDOVER_NOTIFICATION, G, "HandoverNotify", ngap_ct_ho_notify) \
	X(I, NGAP_PROC_PATH_SWITCH_REQUEST, R, "PathSwitchRequest", ngap_ct_ps_req) \
	X(S, NGAP_PROC_PATH_SWITCH_REQUEST, R, "PathSwitchRequestAcknowledge", ngap_ct_ps_ack) \
	X(U, NGAP_PROC_PATH_SWITCH_REQUEST, R, "PathSwitchRequestFailure", ngap_ct_ps_fail) \
	X(I, NGAP_PROC_HANDOVER_CANCEL, R, "HandoverCancel", ngap_ct_ho_cancel) \
	X(S, NGAP_PROC_HANDOVER_CANCEL, R, "HandoverCancelAcknowledge", ngap_ct_ho_cancel_ack) \
	X(I, NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER, G, "UplinkRANStatusTransfer", ngap_ct_ul_ran_status) \
	X(I, NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER, G, "DownlinkRANStatusTransfer", ngap_ct_dl_ran_status)

#define MSG_SPEC(t, p, c, n, ct) { t, p, c, n, &ct },
static const struct msg_spec msgs[] = { MSGS(MSG_SPEC) };
#define MSG_ENUM(t, p, c, n, ct) MSG_##ct,
enum { MSGS(MSG_ENUM) MSG_COUNT };
/* (type, procedure code) -> 1 + index in msgs, 0 for none: one load instead of a scan of msgs on
 * every decode and encode. A pair listed twice is a build error (-Woverride-init, in -Wextra). */
#define MSG_AT(t, p, c, n, ct) [t][p] = MSG_##ct + 1,
static const uint8_t msg_at[3][256] = { MSGS(MSG_AT) };
#undef I
#undef S
#undef U
#undef R
#undef G

static const struct msg_spec *find_msg(uint8_t type, uint8_t proc)
{
	unsigned k = type < 3 ? msg_at[type][proc] : 0;

	return k ? &msgs[k - 1] : NULL;
}

const char *ngap_msg_name(uint8_t type, uint8_t proc)
{
	const struct msg_spec *ms = find_msg(type, proc);

	return ms ? ms->name : "?";
}

int ngap_msg_str(const struct ngap_msg *m, char *buf, size_t cap)
{
	const struct msg_spec *ms = find_msg(m->type, m->proc);
	const char *base = (const char *)&m->u;
	size_t n;
	int k;

	if (!ms)
		return -ENOTSUP;
	k = snprintf(buf, cap, "%s", ms->name);
	n = k > 0 ? (size_t)k : 0;
	for (unsigned i = 0; i < ms->ct->n; i++) {
		const struct ngap_ie_spec *e = &ms->ct->ies[i];
		char *p = n < cap ? buf + n : NULL;
		size_t left = n < cap ? cap - n : 0;

		if (!ie_present(e, &m->u))
			continue;
		k = snprintf(p, left, " %s=", e->ref + 3); /* drop "id-" */
		n += k > 0 ? (size_t)k : 0;
		p = n < cap ? buf + n : NULL;
		left = n < cap ? cap - n : 0;
		k = ngap_ie_str(e, base + e->off, e->cnt >= 0 ? (const uint8_t *)(base + e->cnt) : NULL, p, left);
		n += k > 0 ? (size_t)k : 0;
	}
	return (int)n;
}

static int dec_fail(struct ngap_dec_info *info, const struct aper_r *r)
{
	info->err_bit = r->err_bit;
	info->why = r->why;
	return r->err;
}

/* X.691 11.9.3.8: a fragmented open type is one or more 16K-multiple fragments, each after an
 * octet 0xc1..0xc4, then a last part (0..16K-1 octets) after a one- or two-octet length. Its octets
 * are copied, joined, into the decode's scratch and sub reads them there. */
static int get_open_frag(struct aper_r *r, struct aper_r *sub, struct ngap_dec_info *info)
{
	size_t o = (r->pos + 7) / 8, at = r->pos, n, start = info->scratch_used, got = 0;
	bool more = true;

	while (more) {
		uint8_t b;

		if (o >= r->len)
			goto truncated;
		b = r->buf[o++];
		if ((b & 0xc0) == 0xc0) {
			if ((b & 0x3f) < 1 || (b & 0x3f) > 4)
				return r->pos = o * 8 - 8, aper_r_fail(r, -EBADMSG, "bad fragment size");
			n = (size_t)(b & 0x3f) * APER_FRAG;
		} else if (b & 0x80) {
			if (o >= r->len)
				goto truncated;
			n = (size_t)(b & 0x3f) << 8 | r->buf[o++];
			more = false;
		} else {
			n = b;
			more = false;
		}
		if (n > r->len - o)
			goto truncated;
		if (n > info->scratch_cap - info->scratch_used)
			return r->pos = at, aper_r_fail(r, -ENOBUFS, "fragmented open type larger than the scratch");
		memcpy(info->scratch + info->scratch_used, r->buf + o, n);
		info->scratch_used += n;
		got += n;
		o += n;
	}
	aper_r_init(sub, info->scratch + start, got);
	sub->base = r->base + at; /* error offsets inside: approximate (the fragment headers are gone) */
	sub->user = r->user;
	r->pos = o * 8;
	return 0;
truncated:
	r->pos = at;
	return aper_r_fail(r, -EBADMSG, "open type longer than the input");
}

int ngap_get_open(struct aper_r *r, struct aper_r *sub, struct ngap_dec_info *info)
{
	size_t o = (r->pos + 7) / 8;

	if (!r->err && info && info->scratch && o < r->len && (r->buf[o] & 0xc0) == 0xc0)
		return get_open_frag(r, sub, info);
	return aper_get_open(r, sub);
}

int ngap_decode(const uint8_t *buf, size_t len, struct ngap_msg *m, struct ngap_dec_info *info)
{
	return ngap_decode_scratch(buf, len, m, info, NULL, 0);
}

int ngap_decode_scratch(const uint8_t *buf, size_t len, struct ngap_msg *m, struct ngap_dec_info *info,
			uint8_t *scratch, size_t cap)
{
	struct ngap_dec_info local;
	struct aper_r r, sub;
	const struct msg_spec *ms;
	unsigned idx, crit;
	int64_t proc;

	if (!info)
		info = &local;
	memset(info, 0, sizeof(*info));
	info->scratch = scratch;
	info->scratch_cap = scratch ? cap : 0;
	aper_r_init(&r, buf, len);
	r.user = info; /* extension containers report what they skip (ngap_ie.c) */
	/* NGAP-PDU ::= CHOICE { initiatingMessage, successfulOutcome, unsuccessfulOutcome, ... } */
	if (aper_get_choice(&r, 3, true, &idx))
		return dec_fail(info, &r);
	if (idx >= 3) {
		aper_r_fail(&r, -ENOTSUP, "NGAP-PDU extension alternative");
		return dec_fail(info, &r);
	}
	aper_get_cint(&r, 0, 255, false, &proc);
	aper_get_enum(&r, 3, false, &crit);
	ngap_get_open(&r, &sub, info);
	if (!r.err && crit > NGAP_CRIT_NOTIFY)
		aper_r_fail(&r, -EBADMSG, "bad criticality value");
	if (!r.err && aper_r_left(&r) >= 8)
		aper_r_fail(&r, -EBADMSG, "trailing octets after the NGAP-PDU");
	if (r.err)
		return dec_fail(info, &r);
	m->type = (uint8_t)idx;
	m->proc = (uint8_t)proc;
	m->crit = (uint8_t)crit;
	info->diag.has_proc = info->diag.has_trigger = info->diag.has_proc_crit = true;
	info->diag.proc = m->proc;
	info->diag.trigger = m->type;
	info->diag.proc_crit = m->crit;
	ms = find_msg(m->type, m->proc);
	if (!ms) {
		/* 10.3.4.1: procedure code not comprehended, handled by the procedure's criticality */
		info->action = crit == NGAP_CRIT_REJECT ? NGAP_ACT_REJECT :
			       crit == NGAP_CRIT_NOTIFY ? NGAP_ACT_NOTIFY : NGAP_ACT_IGNORE;
		info->err_bit = 8;
		info->why = "procedure not supported";
		return -ENOTSUP;
	}
	if (ngap_container_dec(&sub, ms->ct, &m->u, info))
		return dec_fail(info, &sub);
	if (aper_r_left(&sub) >= 8) {
		aper_r_fail(&sub, -EBADMSG, "message value longer than its content");
		return dec_fail(info, &sub);
	}
	if (info->action == NGAP_ACT_REJECT) {
		info->why = "IE with criticality reject not comprehended or missing";
		return -EPROTO;
	}
	return 0;
}

int ngap_encode(const struct ngap_msg *m, uint8_t *buf, size_t cap)
{
	const struct msg_spec *ms = find_msg(m->type, m->proc);
	struct aper_w w;
	size_t mark;

	if (!ms)
		return -ENOTSUP;
	aper_w_init(&w, buf, cap);
	aper_put_choice(&w, 3, true, m->type);
	aper_put_cint(&w, 0, 255, false, m->proc);
	aper_put_enum(&w, 3, false, ms->crit);
	aper_open_begin(&w, &mark);
	ngap_container_enc(&w, ms->ct, &m->u);
	aper_open_end(&w, mark);
	return aper_w_len(&w);
}
