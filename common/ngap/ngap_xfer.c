/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * SM transfer containers, TS 38.413 9.3.4 (ASN.1 in 9.4.5): the OCTET STRINGs the SMF builds
 * for the gNB (N2 SM information) and reads back. Optional fields we do not keep are still
 * parsed (so that the following fields line up) and dropped.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

#define MAX_QOS_FLOWS_ASN 64 /* maxnoofQosFlows */

static int dec_done(struct aper_r *r, struct ngap_dec_info *info)
{
	if (!r->err && aper_r_left(r) >= 8)
		aper_r_fail(r, -EBADMSG, "trailing octets after the transfer");
	if (r->err) {
		info->err_bit = r->err_bit;
		info->why = r->why;
		return r->err;
	}
	if (info->action == NGAP_ACT_REJECT) {
		info->why = "IE with criticality reject not comprehended or missing";
		return -EPROTO;
	}
	return 0;
}

static void dec_start(struct aper_r *r, const uint8_t *buf, size_t len, struct ngap_dec_info **info,
		      struct ngap_dec_info *local)
{
	if (!*info)
		*info = local;
	memset(*info, 0, sizeof(**info));
	aper_r_init(r, buf, len);
	r->user = *info;
}

/* A ProtocolIE-Container transfer (9.3.4.1, 9.3.4.3): its table does the work. Inline, as
 * dec_seq_xfer below. */
static inline int dec_container_xfer(const uint8_t *buf, size_t len, const struct ngap_container *ct,
				     void *t, struct ngap_dec_info *info)
{
	struct ngap_dec_info local;
	struct aper_r r;

	dec_start(&r, buf, len, &info, &local);
	ngap_container_dec(&r, ct, t, info);
	return dec_done(&r, info);
}

static int enc_container_xfer(const struct ngap_container *ct, const void *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	ngap_container_enc(&w, ct, t);
	return aper_w_len(&w);
}

/* The fields of a plain SEQUENCE transfer after its preamble; mask has the optional ones present. */
typedef void (*seq_body_dec)(struct aper_r *r, uint32_t mask, void *t);

/* What every plain SEQUENCE transfer's decoder does around its fields: t (tsz bytes) cleared,
 * the preamble (extension bit, nopt optional-field bits), body (NULL: no fields), the
 * extension container and extensions it does not know, nothing left over. Inline: each
 * caller's body is then a direct call (the codec benchmark's instruction counts stay). */
static inline int dec_seq_xfer(const uint8_t *buf, size_t len, void *t, size_t tsz, unsigned nopt,
			       seq_body_dec body, struct ngap_dec_info *info)
{
	struct ngap_dec_info local;
	struct aper_r r;
	uint32_t mask;
	bool ext;

	dec_start(&r, buf, len, &info, &local);
	memset(t, 0, tsz);
	ngap_seq_dec(&r, nopt, &mask, &ext);
	if (body)
		body(&r, mask, t);
	ngap_seq_end(&r, nopt, mask, ext);
	return dec_done(&r, info);
}

/* ---- UPTransportLayerInformation 9.3.2.2 (gTPTunnel) ---- */

static int dec_tunnel(struct aper_r *r, struct ngap_gtp_tunnel *t)
{
	unsigned idx;
	uint32_t mask;
	bool ext;
	size_t n, got;

	memset(t, 0, sizeof(*t));
	if (aper_get_choice(r, 2, false, &idx))
		return r->err;
	if (idx != 0)
		return aper_r_fail(r, -ENOTSUP, "UPTransportLayerInformation choice-Extensions");
	ngap_seq_dec(r, 1, &mask, &ext);
	/* TransportLayerAddress ::= BIT STRING (SIZE(1..160, ...)) */
	if (aper_get_bitstr(r, 1, 160, true, t->addr, sizeof(t->addr), &n))
		return r->err;
	if (n == 0) /* legal PER after the extension bit, but no address (TS 38.414 5.1: 32, 128 or 160) */
		return aper_r_fail(r, -ERANGE, "empty transport layer address");
	t->addr_bits = (uint8_t)n;
	aper_get_octets_copy(r, 4, 4, false, t->teid, 4, &got);
	return ngap_seq_end(r, 1, mask, ext);
}

static int enc_tunnel(struct aper_w *w, const struct ngap_gtp_tunnel *t)
{
	if (t->addr_bits < 1 || t->addr_bits > 160)
		return aper_w_fail(w, -EINVAL, "transport layer address length");
	aper_put_choice(w, 2, false, 0);
	aper_put_seq(w, true, 1, 0);
	aper_put_bitstr(w, 1, 160, true, t->addr, t->addr_bits);
	return aper_put_octets(w, 4, 4, false, t->teid, 4);
}

static int d_tunnel(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c, (void)cnt;
	return dec_tunnel(r, f);
}

static int e_tunnel(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c, (void)cnt;
	return enc_tunnel(w, f);
}

static const struct ngap_codec c_tunnel = { d_tunnel, e_tunnel, "UPTransportLayerInformation", 0, 0, false, 0, 0 };

/* PDUSessionAggregateMaximumBitRate has the shape of UEAggregateMaximumBitRate (dl, ul, iE-Ext). */
static const struct ngap_codec c_pdu_session_type = { ngap_dec_simple, ngap_enc_simple, "PDUSessionType",
						      NGAP_K_ENUM, 1, true, 0, 5 };

/* ---- QosFlowLevelQosParameters 9.3.1.12 ---- */

static int skip_cint(struct aper_r *r, int64_t lb, int64_t ub, bool ext)
{
	int64_t v;

	return aper_get_cint(r, lb, ub, ext, &v);
}

static int skip_enum(struct aper_r *r, unsigned nroot, bool ext)
{
	unsigned v;

	return aper_get_enum(r, nroot, ext, &v);
}

static int dec_qos_params(struct aper_r *r, struct ngap_qos_flow_setup *q)
{
	uint32_t mask, m2;
	bool ext, e2;
	unsigned idx, v;
	int64_t x;

	ngap_seq_dec(r, 4, &mask, &ext);
	if (aper_get_choice(r, 3, false, &idx))
		return r->err;
	if (idx != 0) /* 9.3.1.18 Dynamic 5QI Descriptor: not used by this core */
		return aper_r_fail(r, -ENOTSUP, "QosCharacteristics: only nonDynamic5QI is supported");
	ngap_seq_dec(r, 4, &m2, &e2);
	aper_get_cint(r, 0, 255, true, &x); /* FiveQI ::= INTEGER (0..255, ...) */
	q->five_qi = (uint8_t)x;
	if ((q->has_priority_level = m2 & 1)) {
		aper_get_cint(r, 1, 127, true, &x); /* PriorityLevelQos */
		q->priority_level = (uint8_t)x;
	}
	if (m2 & 2)
		skip_cint(r, 0, 4095, true); /* AveragingWindow */
	if (m2 & 4)
		skip_cint(r, 0, 4095, true); /* MaximumDataBurstVolume */
	ngap_seq_end(r, 4, m2, e2);
	/* AllocationAndRetentionPriority 9.3.1.19 */
	ngap_seq_dec(r, 1, &m2, &e2);
	aper_get_cint(r, 1, 15, false, &x);
	q->arp_priority = (uint8_t)x;
	aper_get_enum(r, 2, true, &v);
	q->arp_preempt_cap = (uint8_t)v;
	aper_get_enum(r, 2, true, &v);
	q->arp_preempt_vuln = (uint8_t)v;
	ngap_seq_end(r, 1, m2, e2);
	if ((q->has_gbr = mask & 1)) { /* GBR-QosInformation 9.3.1.20 */
		ngap_seq_dec(r, 4, &m2, &e2);
		ngap_dec_bitrate(r, &q->gbr_max.dl);
		ngap_dec_bitrate(r, &q->gbr_max.ul);
		ngap_dec_bitrate(r, &q->gbr_guaranteed.dl);
		ngap_dec_bitrate(r, &q->gbr_guaranteed.ul);
		if (m2 & 1)
			skip_enum(r, 1, true); /* NotificationControl */
		if (m2 & 2)
			skip_cint(r, 0, 1000, true); /* PacketLossRate */
		if (m2 & 4)
			skip_cint(r, 0, 1000, true);
		ngap_seq_end(r, 4, m2, e2);
	}
	if (mask & 2)
		skip_enum(r, 1, true); /* ReflectiveQosAttribute */
	if (mask & 4)
		skip_enum(r, 1, true); /* AdditionalQosFlowInformation */
	return ngap_seq_end(r, 4, mask, ext);
}

static int enc_qos_params(struct aper_w *w, const struct ngap_qos_flow_setup *q)
{
	if (q->dynamic)
		return aper_w_fail(w, -ENOTSUP, "dynamic 5QI");
	aper_put_seq(w, true, 4, q->has_gbr);
	aper_put_choice(w, 3, false, 0);
	aper_put_seq(w, true, 4, q->has_priority_level);
	aper_put_cint(w, 0, 255, true, q->five_qi);
	if (q->has_priority_level)
		aper_put_cint(w, 1, 127, true, q->priority_level);
	aper_put_seq(w, true, 1, 0);
	aper_put_cint(w, 1, 15, false, q->arp_priority);
	aper_put_enum(w, 2, true, q->arp_preempt_cap);
	aper_put_enum(w, 2, true, q->arp_preempt_vuln);
	if (q->has_gbr) {
		aper_put_seq(w, true, 4, 0);
		ngap_enc_bitrate(w, q->gbr_max.dl);
		ngap_enc_bitrate(w, q->gbr_max.ul);
		ngap_enc_bitrate(w, q->gbr_guaranteed.dl);
		ngap_enc_bitrate(w, q->gbr_guaranteed.ul);
	}
	return w->err;
}

/* QosFlowSetupRequestList (kind 0) / QosFlowAddOrModifyRequestList (kind 1, parameters optional) */
static int d_flows(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_qos_flow_setup *q = f;
	unsigned nopt = c->kind ? 3 : 2;
	uint32_t mask;
	bool ext;
	int64_t x;

	if (ngap_get_count(r, MAX_QOS_FLOWS_ASN, NGAP_MAX_QOS_FLOWS, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		memset(&q[i], 0, sizeof(q[i]));
		ngap_seq_dec(r, nopt, &mask, &ext);
		aper_get_cint(r, 0, 63, true, &x); /* QosFlowIdentifier ::= INTEGER (0..63, ...) */
		q[i].qfi = (uint8_t)x;
		if (!c->kind || (mask & 1))
			dec_qos_params(r, &q[i]);
		else
			q[i].params_absent = true;
		if (mask & (c->kind ? 2 : 1))
			skip_cint(r, 0, 15, true); /* E-RAB-ID */
		ngap_seq_end(r, nopt, mask, ext);
	}
	return r->err;
}

static int e_flows(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_qos_flow_setup *q = f;

	if (*cnt > NGAP_MAX_QOS_FLOWS)
		return aper_w_fail(w, -EINVAL, "too many QoS flows");
	aper_put_count(w, 1, MAX_QOS_FLOWS_ASN, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		bool params = !c->kind || !q[i].params_absent; /* mandatory in QosFlowSetupRequestItem */

		aper_put_seq(w, true, c->kind ? 3 : 2, c->kind && params ? 1 : 0);
		aper_put_cint(w, 0, 63, true, q[i].qfi);
		if (params)
			enc_qos_params(w, &q[i]);
	}
	return w->err;
}

static const struct ngap_codec c_flows_setup = { d_flows, e_flows, "QosFlowSetupRequestList", 0, 0, false, 0, 0 };
static const struct ngap_codec c_flows_modify = { d_flows, e_flows, "QosFlowAddOrModifyRequestList", 1, 0, false,
						  0, 0 };

/* QosFlowListWithCause: SEQUENCE (SIZE(1..64)) OF {qosFlowIdentifier, cause, iE-Ext} */

static int dec_flow_causes(struct aper_r *r, struct ngap_qos_flow_cause *fc, uint8_t *cnt)
{
	uint32_t mask;
	bool ext;
	int64_t x;

	if (ngap_get_count(r, MAX_QOS_FLOWS_ASN, NGAP_MAX_QOS_FLOWS, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		aper_get_cint(r, 0, 63, true, &x);
		fc[i].qfi = (uint8_t)x;
		ngap_dec_cause(r, &fc[i].cause);
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

static int enc_flow_causes(struct aper_w *w, const struct ngap_qos_flow_cause *fc, uint8_t cnt)
{
	if (cnt > NGAP_MAX_QOS_FLOWS)
		return aper_w_fail(w, -EINVAL, "too many QoS flows");
	aper_put_count(w, 1, MAX_QOS_FLOWS_ASN, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		aper_put_cint(w, 0, 63, true, fc[i].qfi);
		ngap_enc_cause(w, &fc[i].cause);
	}
	return w->err;
}

static int d_flow_causes(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c;
	return dec_flow_causes(r, f, cnt);
}

static int e_flow_causes(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c;
	return enc_flow_causes(w, f, *cnt);
}

static const struct ngap_codec c_flow_causes = { d_flow_causes, e_flow_causes, "QosFlowListWithCause", 0, 0, false,
						 0, 0 };

/* QFI-only lists: AssociatedQosFlowList (item has one more optional: qosFlowMappingIndication) and
 * QosFlowAddOrModifyResponseList. */
static int dec_qfis(struct aper_r *r, uint8_t *qfis, uint8_t *cnt, bool associated)
{
	unsigned nopt = associated ? 2 : 1;
	uint32_t mask;
	bool ext;
	int64_t x;

	if (ngap_get_count(r, MAX_QOS_FLOWS_ASN, NGAP_MAX_QOS_FLOWS, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, nopt, &mask, &ext);
		aper_get_cint(r, 0, 63, true, &x);
		qfis[i] = (uint8_t)x;
		if (associated && (mask & 1))
			skip_enum(r, 2, true); /* qosFlowMappingIndication */
		ngap_seq_end(r, nopt, mask, ext);
	}
	return r->err;
}

static int enc_qfis(struct aper_w *w, const uint8_t *qfis, uint8_t cnt, bool associated)
{
	if (cnt > NGAP_MAX_QOS_FLOWS)
		return aper_w_fail(w, -EINVAL, "too many QoS flows");
	aper_put_count(w, 1, MAX_QOS_FLOWS_ASN, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		aper_put_seq(w, true, associated ? 2 : 1, 0);
		aper_put_cint(w, 0, 63, true, qfis[i]);
	}
	return w->err;
}

/* QosFlowPerTNLInformation 9.3.2.8 */
static int dec_per_tnl(struct aper_r *r, struct ngap_gtp_tunnel *t, uint8_t *qfis, uint8_t *cnt)
{
	uint32_t mask;
	bool ext;

	ngap_seq_dec(r, 1, &mask, &ext);
	dec_tunnel(r, t);
	dec_qfis(r, qfis, cnt, true);
	return ngap_seq_end(r, 1, mask, ext);
}

static int enc_per_tnl(struct aper_w *w, const struct ngap_gtp_tunnel *t, const uint8_t *qfis, uint8_t cnt)
{
	aper_put_seq(w, true, 1, 0);
	enc_tunnel(w, t);
	return enc_qfis(w, qfis, cnt, true);
}

/* QosFlowPerTNLInformationList (additional tunnels, dual connectivity): parsed and dropped. */
static int skip_per_tnl_list(struct aper_r *r)
{
	struct ngap_gtp_tunnel t;
	uint8_t qfis[NGAP_MAX_QOS_FLOWS], n, cnt;
	uint32_t mask;
	bool ext;

	if (ngap_get_count(r, 3, 3, &n)) /* maxnoofMultiConnectivityMinusOne */
		return r->err;
	for (unsigned i = 0; i < n && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		dec_per_tnl(r, &t, qfis, &cnt);
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

/* ---- 9.3.4.1 PDU Session Resource Setup Request Transfer (a ProtocolIE-Container) ---- */

#define ROW(T, id, crit, pres, fld, cnt, has, codec, ref) \
	{ id, NGAP_CRIT_##crit, NGAP_PRES_##pres, (int16_t)offsetof(T, fld), cnt, has, codec, ref, -1, -1, 0 }

#define T struct ngap_setup_request_transfer
static const struct ngap_ie_spec srq_ies[] = {
	ROW(T, 130, REJECT, O, session_ambr, -1, (int16_t)offsetof(T, has_session_ambr), &ngap_c_ue_ambr,
	    "id-PDUSessionAggregateMaximumBitRate"),
	ROW(T, 139, REJECT, M, ul_tunnel, -1, -1, &c_tunnel, "id-UL-NGU-UP-TNLInformation"),
	ROW(T, 134, REJECT, M, pdu_session_type, -1, -1, &c_pdu_session_type, "id-PDUSessionType"),
	ROW(T, 136, REJECT, M, flows, (int16_t)offsetof(T, n_flows), -1, &c_flows_setup, "id-QosFlowSetupRequestList"),
};
static const struct ngap_container srq_ct = { srq_ies, 4, sizeof(T) };
#undef T

int ngap_dec_setup_request_transfer(const uint8_t *buf, size_t len, struct ngap_setup_request_transfer *t,
				    struct ngap_dec_info *info)
{
	return dec_container_xfer(buf, len, &srq_ct, t, info);
}

int ngap_enc_setup_request_transfer(const struct ngap_setup_request_transfer *t, uint8_t *buf, size_t cap)
{
	return enc_container_xfer(&srq_ct, t, buf, cap);
}

/* ---- 9.3.4.3 PDU Session Resource Modify Request Transfer (a ProtocolIE-Container) ---- */

#define T struct ngap_modify_request_transfer
static const struct ngap_ie_spec mrq_ies[] = {
	ROW(T, 130, REJECT, O, session_ambr, -1, (int16_t)offsetof(T, has_session_ambr), &ngap_c_ue_ambr,
	    "id-PDUSessionAggregateMaximumBitRate"),
	ROW(T, 135, REJECT, O, flows, (int16_t)offsetof(T, n_flows), -1, &c_flows_modify, "id-QosFlowAddOrModifyRequestList"),
	ROW(T, 137, REJECT, O, release, (int16_t)offsetof(T, n_release), -1, &c_flow_causes, "id-QosFlowToReleaseList"),
};
static const struct ngap_container mrq_ct = { mrq_ies, 3, sizeof(T) };
#undef T

int ngap_dec_modify_request_transfer(const uint8_t *buf, size_t len, struct ngap_modify_request_transfer *t,
				     struct ngap_dec_info *info)
{
	return dec_container_xfer(buf, len, &mrq_ct, t, info);
}

int ngap_enc_modify_request_transfer(const struct ngap_modify_request_transfer *t, uint8_t *buf, size_t cap)
{
	return enc_container_xfer(&mrq_ct, t, buf, cap);
}

/* ---- plain SEQUENCE transfers ---- */

/* 9.3.4.2 */
static void srsp_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_setup_response_transfer *t = p;
	uint32_t m2;
	bool e2;

	dec_per_tnl(r, &t->dl_tunnel, t->qfis, &t->n_flows);
	if (mask & 1)
		skip_per_tnl_list(r);
	if (mask & 2) { /* SecurityResult: two ENUMERATED {performed, not-performed, ...} */
		ngap_seq_dec(r, 1, &m2, &e2);
		skip_enum(r, 2, true);
		skip_enum(r, 2, true);
		ngap_seq_end(r, 1, m2, e2);
	}
	if (mask & 4)
		dec_flow_causes(r, t->failed, &t->n_failed);
}

int ngap_dec_setup_response_transfer(const uint8_t *buf, size_t len, struct ngap_setup_response_transfer *t,
				     struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 4, srsp_body, info);
}

int ngap_enc_setup_response_transfer(const struct ngap_setup_response_transfer *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 4, t->n_failed ? 4u : 0);
	enc_per_tnl(&w, &t->dl_tunnel, t->qfis, t->n_flows);
	if (t->n_failed)
		enc_flow_causes(&w, t->failed, t->n_failed);
	return aper_w_len(&w);
}

/* 9.3.4.16 */
static void sunsucc_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_setup_unsuccessful_transfer *t = p;

	ngap_dec_cause(r, &t->cause);
	if ((t->has_crit_diag = mask & 1))
		ngap_dec_crit_diag(r, &t->crit_diag);
}

int ngap_dec_setup_unsuccessful_transfer(const uint8_t *buf, size_t len,
					 struct ngap_setup_unsuccessful_transfer *t, struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 2, sunsucc_body, info);
}

int ngap_enc_setup_unsuccessful_transfer(const struct ngap_setup_unsuccessful_transfer *t, uint8_t *buf,
					 size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 2, t->has_crit_diag);
	ngap_enc_cause(&w, &t->cause);
	if (t->has_crit_diag)
		ngap_enc_crit_diag(&w, &t->crit_diag);
	return aper_w_len(&w);
}

/* {cause, iE-Extensions, ...}: Release Command (9.3.4.12), Notify Released (9.3.4.8) and
 * Modify Indication Unsuccessful (9.3.4.9) Transfers */
static void cause_body(struct aper_r *r, uint32_t mask, void *c)
{
	(void)mask;
	ngap_dec_cause(r, c);
}

static int enc_cause_only(const struct ngap_cause *c, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 1, 0);
	ngap_enc_cause(&w, c);
	return aper_w_len(&w);
}

int ngap_dec_release_command_transfer(const uint8_t *buf, size_t len, struct ngap_release_command_transfer *t,
				      struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, &t->cause, sizeof(t->cause), 1, cause_body, info);
}

int ngap_enc_release_command_transfer(const struct ngap_release_command_transfer *t, uint8_t *buf, size_t cap)
{
	return enc_cause_only(&t->cause, buf, cap);
}

/* 9.3.4.21: only an optional extension container; the encoding is one octet */
int ngap_dec_release_response_transfer(const uint8_t *buf, size_t len,
				       struct ngap_release_response_transfer *t, struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 1, NULL, info);
}

int ngap_enc_release_response_transfer(const struct ngap_release_response_transfer *t, uint8_t *buf,
				       size_t cap)
{
	struct aper_w w;

	(void)t;
	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 1, 0);
	return aper_w_len(&w);
}

/* 9.3.4.4 */
static void mrsp_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_modify_response_transfer *t = p;
	struct ngap_qos_flow_cause fc[NGAP_MAX_QOS_FLOWS];
	uint8_t nfc;

	if ((t->has_dl_tunnel = mask & 1))
		dec_tunnel(r, &t->dl_tunnel);
	if ((t->has_ul_tunnel = mask & 2))
		dec_tunnel(r, &t->ul_tunnel);
	if (mask & 4)
		dec_qfis(r, t->qfis, &t->n_flows, false);
	if (mask & 8)
		skip_per_tnl_list(r);
	if (mask & 16)
		dec_flow_causes(r, fc, &nfc);
}

int ngap_dec_modify_response_transfer(const uint8_t *buf, size_t len, struct ngap_modify_response_transfer *t,
				      struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 6, mrsp_body, info);
}

int ngap_enc_modify_response_transfer(const struct ngap_modify_response_transfer *t, uint8_t *buf,
				      size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 6, (t->has_dl_tunnel ? 1u : 0) | (t->has_ul_tunnel ? 2u : 0) | (t->n_flows ? 4u : 0));
	if (t->has_dl_tunnel)
		enc_tunnel(&w, &t->dl_tunnel);
	if (t->has_ul_tunnel)
		enc_tunnel(&w, &t->ul_tunnel);
	if (t->n_flows)
		enc_qfis(&w, t->qfis, t->n_flows, false);
	return aper_w_len(&w);
}

/* ---- PDU Session Resource Notify / Modify Indication / Modify Confirm transfers (TS 38.413 8.2.4,
 * 8.2.5; 9.3.4.5-9.3.4.7) ---- */

int ngap_dec_notify_released_transfer(const uint8_t *buf, size_t len, struct ngap_notify_released_transfer *t,
				      struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, &t->cause, sizeof(t->cause), 1, cause_body, info);
}

int ngap_enc_notify_released_transfer(const struct ngap_notify_released_transfer *t, uint8_t *buf, size_t cap)
{
	return enc_cause_only(&t->cause, buf, cap);
}

int ngap_dec_modify_indication_unsuccessful_transfer(const uint8_t *buf, size_t len,
						     struct ngap_modify_indication_unsuccessful_transfer *t,
						     struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, &t->cause, sizeof(t->cause), 1, cause_body, info);
}

int ngap_enc_modify_indication_unsuccessful_transfer(const struct ngap_modify_indication_unsuccessful_transfer *t,
						     uint8_t *buf, size_t cap)
{
	return enc_cause_only(&t->cause, buf, cap);
}

/* 9.3.4.5 { qosFlowNotifyList OPTIONAL, qosFlowReleasedList OPTIONAL, iE-Extensions OPTIONAL, ... };
 * QosFlowNotifyItem { qosFlowIdentifier, notificationCause ENUMERATED {fulfilled, not-fulfilled, ...} } */
static void notify_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_notify_transfer *t = p;
	uint32_t m2;
	bool e2;
	int64_t x;
	unsigned e;

	if (mask & 1) {
		ngap_get_count(r, MAX_QOS_FLOWS_ASN, NGAP_MAX_QOS_FLOWS, &t->n_notify);
		for (unsigned i = 0; i < t->n_notify && !r->err; i++) {
			ngap_seq_dec(r, 1, &m2, &e2);
			aper_get_cint(r, 0, 63, true, &x);
			t->notify[i].qfi = (uint8_t)x;
			aper_get_enum(r, 2, true, &e);
			t->notify[i].cause = (uint8_t)e;
			ngap_seq_end(r, 1, m2, e2);
		}
	}
	if (mask & 2)
		dec_flow_causes(r, t->released, &t->n_released);
}

int ngap_dec_notify_transfer(const uint8_t *buf, size_t len, struct ngap_notify_transfer *t,
			     struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 3, notify_body, info);
}

int ngap_enc_notify_transfer(const struct ngap_notify_transfer *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	if (t->n_notify > NGAP_MAX_QOS_FLOWS)
		return aper_w_fail(&w, -EINVAL, "too many QoS flows");
	aper_put_seq(&w, true, 3, (t->n_notify ? 1u : 0) | (t->n_released ? 2u : 0));
	if (t->n_notify) {
		aper_put_count(&w, 1, MAX_QOS_FLOWS_ASN, t->n_notify);
		for (unsigned i = 0; i < t->n_notify && !w.err; i++) {
			aper_put_seq(&w, true, 1, 0);
			aper_put_cint(&w, 0, 63, true, t->notify[i].qfi);
			aper_put_enum(&w, 2, true, t->notify[i].cause);
		}
	}
	if (t->n_released)
		enc_flow_causes(&w, t->released, t->n_released);
	return aper_w_len(&w);
}

/* 9.3.4.6 { dLQosFlowPerTNLInformation, additionalDLQosFlowPerTNLInformation OPTIONAL, iE-Ext, ... } */
static void mind_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_modify_indication_transfer *t = p;

	dec_per_tnl(r, &t->dl_tunnel, t->qfis, &t->n_flows);
	if (mask & 1)
		skip_per_tnl_list(r);
}

int ngap_dec_modify_indication_transfer(const uint8_t *buf, size_t len, struct ngap_modify_indication_transfer *t,
					struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 2, mind_body, info);
}

int ngap_enc_modify_indication_transfer(const struct ngap_modify_indication_transfer *t, uint8_t *buf,
					size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 2, 0);
	enc_per_tnl(&w, &t->dl_tunnel, t->qfis, t->n_flows);
	return aper_w_len(&w);
}

/* UPTransportLayerInformationPairList (SIZE(1..maxnoofMultiConnectivityMinusOne = 3)) of {UL, DL}:
 * parsed and dropped. */
static int skip_tunnel_pairs(struct aper_r *r)
{
	struct ngap_gtp_tunnel t;
	uint32_t mask;
	bool ext;
	uint8_t n;

	if (ngap_get_count(r, 3, 3, &n))
		return r->err;
	for (unsigned i = 0; i < n && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		dec_tunnel(r, &t);
		dec_tunnel(r, &t);
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

/* 9.3.4.7 { qosFlowModifyConfirmList, uLNGU-UP-TNLInformation, additionalNG-UUPTNLInformation OPTIONAL,
 * qosFlowFailedToModifyList OPTIONAL, iE-Extensions OPTIONAL, ... }; QosFlowModifyConfirmItem is a QFI */
static void mcfm_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_modify_confirm_transfer *t = p;

	dec_qfis(r, t->qfis, &t->n_flows, false);
	dec_tunnel(r, &t->ul_tunnel);
	if (mask & 1)
		skip_tunnel_pairs(r);
	if (mask & 2)
		dec_flow_causes(r, t->failed, &t->n_failed);
}

int ngap_dec_modify_confirm_transfer(const uint8_t *buf, size_t len, struct ngap_modify_confirm_transfer *t,
				     struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, sizeof(*t), 3, mcfm_body, info);
}

int ngap_enc_modify_confirm_transfer(const struct ngap_modify_confirm_transfer *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 3, t->n_failed ? 2u : 0);
	enc_qfis(&w, t->qfis, t->n_flows, false);
	enc_tunnel(&w, &t->ul_tunnel);
	if (t->n_failed)
		enc_flow_causes(&w, t->failed, t->n_failed);
	return aper_w_len(&w);
}

/* ---- 9.3.1.68 UERadioCapabilityForPaging (carried encoded in Paging and the Info Indication) ---- */

int ngap_enc_ue_radio_cap_paging(struct ngap_bytes nr, struct ngap_bytes eutra, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 3, (nr.p ? 1u : 0) | (eutra.p ? 2u : 0));
	if (nr.p)
		aper_put_octets(&w, 0, APER_UNBOUNDED, false, nr.p, nr.len);
	if (eutra.p)
		aper_put_octets(&w, 0, APER_UNBOUNDED, false, eutra.p, eutra.len);
	return aper_w_len(&w);
}

int ngap_dec_ue_radio_cap_paging(struct ngap_bytes raw, struct ngap_bytes *nr, struct ngap_bytes *eutra)
{
	struct aper_r r;
	uint32_t mask;
	bool ext;

	*nr = *eutra = (struct ngap_bytes){ NULL, 0 };
	aper_r_init(&r, raw.p, raw.p ? raw.len : 0);
	ngap_seq_dec(&r, 3, &mask, &ext);
	if (mask & 1)
		aper_get_octets(&r, 0, APER_UNBOUNDED, false, &nr->p, &nr->len);
	if (mask & 2)
		aper_get_octets(&r, 0, APER_UNBOUNDED, false, &eutra->p, &eutra->len);
	ngap_seq_end(&r, 3, mask, ext);
	if (!r.err && aper_r_left(&r) >= 8)
		return -EBADMSG;
	return r.err;
}

/* ---- shared with ngap_ho_xfer.c (the handover / path switch transfers, TS 38.413 9.3.4.8-9.3.4.19) ---- */

int ngap_dec_seq_xfer(const uint8_t *buf, size_t len, void *t, size_t tsz, unsigned nopt, ngap_seq_body_dec body,
		      struct ngap_dec_info *info)
{
	return dec_seq_xfer(buf, len, t, tsz, nopt, body, info);
}

int ngap_dec_tunnel(struct aper_r *r, struct ngap_gtp_tunnel *t)
{
	return dec_tunnel(r, t);
}

int ngap_enc_tunnel(struct aper_w *w, const struct ngap_gtp_tunnel *t)
{
	return enc_tunnel(w, t);
}

/* {qosFlowIdentifier, iE-Extensions} lists: QosFlowAcceptedList, QosFlowToBeForwardedList */
int ngap_dec_qfis(struct aper_r *r, uint8_t *qfis, uint8_t *cnt)
{
	return dec_qfis(r, qfis, cnt, false);
}

int ngap_enc_qfis(struct aper_w *w, const uint8_t *qfis, uint8_t cnt)
{
	return enc_qfis(w, qfis, cnt, false);
}

int ngap_dec_flow_causes(struct aper_r *r, struct ngap_qos_flow_cause *fc, uint8_t *cnt)
{
	return dec_flow_causes(r, fc, cnt);
}

int ngap_enc_flow_causes(struct aper_w *w, const struct ngap_qos_flow_cause *fc, uint8_t cnt)
{
	return enc_flow_causes(w, fc, cnt);
}
