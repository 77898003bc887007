/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * SM transfers of the N2 handover and the path switch, TS 38.413 9.3.4 (ASN.1 in 9.4.5): what the SMF
 * and the gNBs tell each other through the AMF when the user plane moves (TS 23.502 4.9.1.2.2, 4.9.1.3).
 * Plain SEQUENCEs: decoded with the framing of ngap_xfer.c (ngap_dec_seq_xfer), encoded here.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

#define MAX_QOS_FLOWS_ASN 64 /* maxnoofQosFlows */
#define MAX_DRBS_ASN 32      /* maxnoofDRBs */

/* INTEGER (lb..ub, ...) into a uint8_t: an extension value above 255 does not fit our fields */
static uint8_t get_small(struct aper_r *r, int64_t lb, int64_t ub)
{
	int64_t x = 0;

	if (!aper_get_cint(r, lb, ub, true, &x) && (x < 0 || x > 255))
		aper_r_fail(r, -ERANGE, "integer extension value too large");
	return (uint8_t)x;
}

static uint8_t get_enum(struct aper_r *r, unsigned nroot)
{
	unsigned e = 0;

	aper_get_enum(r, nroot, true, &e);
	if (!r->err && e > 255)
		aper_r_fail(r, -ERANGE, "enumerated extension value too large");
	return (uint8_t)e;
}

/* ---- SecurityIndication (9.3.1.27), SecurityResult (9.3.1.59) ---- */

static int dec_sec_ind(struct aper_r *r, struct ngap_security_indication *s)
{
	uint32_t mask;
	bool ext;

	ngap_seq_dec(r, 2, &mask, &ext);
	s->integrity = get_enum(r, 3);       /* IntegrityProtectionIndication {required, preferred, not-needed, ...} */
	s->confidentiality = get_enum(r, 3);
	if ((s->has_max_ip_rate_ul = mask & 1))
		s->max_ip_rate_ul = get_enum(r, 2); /* MaximumIntegrityProtectedDataRate */
	return ngap_seq_end(r, 2, mask, ext);
}

static int enc_sec_ind(struct aper_w *w, const struct ngap_security_indication *s)
{
	aper_put_seq(w, true, 2, s->has_max_ip_rate_ul);
	aper_put_enum(w, 3, true, s->integrity);
	aper_put_enum(w, 3, true, s->confidentiality);
	if (s->has_max_ip_rate_ul)
		aper_put_enum(w, 2, true, s->max_ip_rate_ul);
	return w->err;
}

static int dec_sec_result(struct aper_r *r, struct ngap_security_result *s)
{
	uint32_t mask;
	bool ext;

	ngap_seq_dec(r, 1, &mask, &ext);
	s->integrity = get_enum(r, 2);       /* IntegrityProtectionResult {performed, not-performed, ...} */
	s->confidentiality = get_enum(r, 2);
	return ngap_seq_end(r, 1, mask, ext);
}

static int enc_sec_result(struct aper_w *w, const struct ngap_security_result *s)
{
	aper_put_seq(w, true, 1, 0);
	aper_put_enum(w, 2, true, s->integrity);
	return aper_put_enum(w, 2, true, s->confidentiality);
}

/* ---- DataForwardingResponseDRBList: SEQUENCE (SIZE(1..maxnoofDRBs)) OF DataForwardingResponseDRBItem ---- */

static int dec_drbs(struct aper_r *r, struct ngap_drb_forwarding *d, uint8_t *cnt)
{
	uint32_t mask;
	bool ext;

	if (ngap_get_count(r, MAX_DRBS_ASN, NGAP_MAX_DRBS, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 3, &mask, &ext);
		d[i].drb_id = get_small(r, 1, 32); /* DRB-ID ::= INTEGER (1..32, ...) */
		if ((d[i].has_dl = mask & 1))
			ngap_dec_tunnel(r, &d[i].dl);
		if ((d[i].has_ul = mask & 2))
			ngap_dec_tunnel(r, &d[i].ul);
		ngap_seq_end(r, 3, mask, ext);
	}
	return r->err;
}

static int enc_drbs(struct aper_w *w, const struct ngap_drb_forwarding *d, uint8_t cnt)
{
	ngap_put_count(w, MAX_DRBS_ASN, NGAP_MAX_DRBS, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		aper_put_seq(w, true, 3, (d[i].has_dl ? 1u : 0) | (d[i].has_ul ? 2u : 0));
		aper_put_cint(w, 1, 32, true, d[i].drb_id);
		if (d[i].has_dl)
			ngap_enc_tunnel(w, &d[i].dl);
		if (d[i].has_ul)
			ngap_enc_tunnel(w, &d[i].ul);
	}
	return w->err;
}

/* ---- 9.3.4.13 Handover Required Transfer { directForwardingPathAvailability OPTIONAL, iE-Ext, ... } ---- */

static void ho_required_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_ho_required_transfer *t = p;

	if ((t->has_direct_forwarding = mask & 1))
		get_enum(r, 1); /* DirectForwardingPathAvailability ::= ENUMERATED {direct-path-available, ...} */
}

int ngap_dec_ho_required_transfer(const uint8_t *buf, size_t len, struct ngap_ho_required_transfer *t,
				  struct ngap_dec_info *info)
{
	return ngap_dec_seq_xfer(buf, len, t, sizeof(*t), 2, ho_required_body, info);
}

int ngap_enc_ho_required_transfer(const struct ngap_ho_required_transfer *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 2, t->has_direct_forwarding);
	if (t->has_direct_forwarding)
		aper_put_enum(&w, 1, true, 0);
	return aper_w_len(&w);
}

/* ---- 9.3.4.10 Handover Command Transfer { dLForwardingUP-TNLInformation OPTIONAL, qosFlowToBeForwardedList
 * OPTIONAL, dataForwardingResponseDRBList OPTIONAL, iE-Ext, ... } ---- */

static void ho_command_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_ho_command_transfer *t = p;

	if ((t->has_dl_forwarding = mask & 1))
		ngap_dec_tunnel(r, &t->dl_forwarding);
	if (mask & 2)
		ngap_dec_qfis(r, t->qfis, &t->n_flows);
	if (mask & 4)
		dec_drbs(r, t->drbs, &t->n_drbs);
}

int ngap_dec_ho_command_transfer(const uint8_t *buf, size_t len, struct ngap_ho_command_transfer *t,
				 struct ngap_dec_info *info)
{
	return ngap_dec_seq_xfer(buf, len, t, sizeof(*t), 4, ho_command_body, info);
}

int ngap_enc_ho_command_transfer(const struct ngap_ho_command_transfer *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 4, (t->has_dl_forwarding ? 1u : 0) | (t->n_flows ? 2u : 0) | (t->n_drbs ? 4u : 0));
	if (t->has_dl_forwarding)
		ngap_enc_tunnel(&w, &t->dl_forwarding);
	if (t->n_flows)
		ngap_enc_qfis(&w, t->qfis, t->n_flows);
	if (t->n_drbs)
		enc_drbs(&w, t->drbs, t->n_drbs);
	return aper_w_len(&w);
}

/* ---- 9.3.4.11 Handover Request Acknowledge Transfer ---- */

/* QosFlowListWithDataForwarding: SEQUENCE (SIZE(1..maxnoofQosFlows)) OF {qosFlowIdentifier,
 * dataForwardingAccepted OPTIONAL, iE-Ext} */
static int dec_fwd_flows(struct aper_r *r, struct ngap_qos_flow_fwd *f, uint8_t *cnt)
{
	uint32_t mask;
	bool ext;

	if (ngap_get_count(r, MAX_QOS_FLOWS_ASN, NGAP_MAX_QOS_FLOWS, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 2, &mask, &ext);
		f[i].qfi = get_small(r, 0, 63);
		if ((f[i].forwarding_accepted = mask & 1))
			get_enum(r, 1); /* DataForwardingAccepted ::= ENUMERATED {data-forwarding-accepted, ...} */
		ngap_seq_end(r, 2, mask, ext);
	}
	return r->err;
}

static int enc_fwd_flows(struct aper_w *w, const struct ngap_qos_flow_fwd *f, uint8_t cnt)
{
	ngap_put_count(w, MAX_QOS_FLOWS_ASN, NGAP_MAX_QOS_FLOWS, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		aper_put_seq(w, true, 2, f[i].forwarding_accepted);
		aper_put_cint(w, 0, 63, true, f[i].qfi);
		if (f[i].forwarding_accepted)
			aper_put_enum(w, 1, true, 0);
	}
	return w->err;
}

/* { dL-NGU-UP-TNLInformation, dLForwardingUP-TNLInformation OPTIONAL, securityResult OPTIONAL,
 *   qosFlowSetupResponseList, qosFlowFailedToSetupList OPTIONAL, dataForwardingResponseDRBList OPTIONAL,
 *   iE-Extensions OPTIONAL, ... } */
static void ho_request_ack_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_ho_request_ack_transfer *t = p;

	ngap_dec_tunnel(r, &t->dl_tunnel);
	if ((t->has_dl_forwarding = mask & 1))
		ngap_dec_tunnel(r, &t->dl_forwarding);
	if ((t->has_security_result = mask & 2))
		dec_sec_result(r, &t->security_result);
	dec_fwd_flows(r, t->flows, &t->n_flows);
	if (mask & 4)
		ngap_dec_flow_causes(r, t->failed, &t->n_failed);
	if (mask & 8)
		dec_drbs(r, t->drbs, &t->n_drbs);
}

int ngap_dec_ho_request_ack_transfer(const uint8_t *buf, size_t len, struct ngap_ho_request_ack_transfer *t,
				     struct ngap_dec_info *info)
{
	return ngap_dec_seq_xfer(buf, len, t, sizeof(*t), 5, ho_request_ack_body, info);
}

int ngap_enc_ho_request_ack_transfer(const struct ngap_ho_request_ack_transfer *t, uint8_t *buf, size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 5, (t->has_dl_forwarding ? 1u : 0) | (t->has_security_result ? 2u : 0) |
				   (t->n_failed ? 4u : 0) | (t->n_drbs ? 8u : 0));
	ngap_enc_tunnel(&w, &t->dl_tunnel);
	if (t->has_dl_forwarding)
		ngap_enc_tunnel(&w, &t->dl_forwarding);
	if (t->has_security_result)
		enc_sec_result(&w, &t->security_result);
	enc_fwd_flows(&w, t->flows, t->n_flows);
	if (t->n_failed)
		ngap_enc_flow_causes(&w, t->failed, t->n_failed);
	if (t->n_drbs)
		enc_drbs(&w, t->drbs, t->n_drbs);
	return aper_w_len(&w);
}

/* ---- 9.3.4.8 Path Switch Request Transfer { dL-NGU-UP-TNLInformation, dL-NGU-TNLInformationReused OPTIONAL,
 * userPlaneSecurityInformation OPTIONAL, qosFlowAcceptedList, iE-Extensions OPTIONAL, ... } ---- */

static void ps_request_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_path_switch_request_transfer *t = p;
	uint32_t m2;
	bool e2;

	ngap_dec_tunnel(r, &t->dl_tunnel);
	if ((t->dl_tnl_reused = mask & 1))
		get_enum(r, 1); /* DL-NGU-TNLInformationReused ::= ENUMERATED {true, ...} */
	if ((t->has_up_security = mask & 2)) { /* UserPlaneSecurityInformation {securityResult, securityIndication} */
		ngap_seq_dec(r, 1, &m2, &e2);
		dec_sec_result(r, &t->up_security_result);
		dec_sec_ind(r, &t->up_security_indication);
		ngap_seq_end(r, 1, m2, e2);
	}
	ngap_dec_qfis(r, t->qfis, &t->n_flows);
}

int ngap_dec_path_switch_request_transfer(const uint8_t *buf, size_t len,
					  struct ngap_path_switch_request_transfer *t, struct ngap_dec_info *info)
{
	return ngap_dec_seq_xfer(buf, len, t, sizeof(*t), 3, ps_request_body, info);
}

int ngap_enc_path_switch_request_transfer(const struct ngap_path_switch_request_transfer *t, uint8_t *buf,
					  size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 3, (t->dl_tnl_reused ? 1u : 0) | (t->has_up_security ? 2u : 0));
	ngap_enc_tunnel(&w, &t->dl_tunnel);
	if (t->dl_tnl_reused)
		aper_put_enum(&w, 1, true, 0);
	if (t->has_up_security) {
		aper_put_seq(&w, true, 1, 0);
		enc_sec_result(&w, &t->up_security_result);
		enc_sec_ind(&w, &t->up_security_indication);
	}
	ngap_enc_qfis(&w, t->qfis, t->n_flows);
	return aper_w_len(&w);
}

/* ---- 9.3.4.9 Path Switch Request Acknowledge Transfer { uL-NGU-UP-TNLInformation OPTIONAL,
 * securityIndication OPTIONAL, iE-Extensions OPTIONAL, ... } ---- */

static void ps_ack_body(struct aper_r *r, uint32_t mask, void *p)
{
	struct ngap_path_switch_request_ack_transfer *t = p;

	if ((t->has_ul_tunnel = mask & 1))
		ngap_dec_tunnel(r, &t->ul_tunnel);
	if ((t->has_security_indication = mask & 2))
		dec_sec_ind(r, &t->security_indication);
}

int ngap_dec_path_switch_request_ack_transfer(const uint8_t *buf, size_t len,
					      struct ngap_path_switch_request_ack_transfer *t,
					      struct ngap_dec_info *info)
{
	return ngap_dec_seq_xfer(buf, len, t, sizeof(*t), 3, ps_ack_body, info);
}

int ngap_enc_path_switch_request_ack_transfer(const struct ngap_path_switch_request_ack_transfer *t, uint8_t *buf,
					      size_t cap)
{
	struct aper_w w;

	aper_w_init(&w, buf, cap);
	aper_put_seq(&w, true, 3, (t->has_ul_tunnel ? 1u : 0) | (t->has_security_indication ? 2u : 0));
	if (t->has_ul_tunnel)
		ngap_enc_tunnel(&w, &t->ul_tunnel);
	if (t->has_security_indication)
		enc_sec_ind(&w, &t->security_indication);
	return aper_w_len(&w);
}

/* ---- transfers with the shape of one in ngap_xfer.c ---- */

/* {cause, iE-Extensions, ...} (9.3.4.14, 9.3.4.15, 9.3.4.18): the Release Command Transfer's encoding */
int ngap_dec_cause_transfer(const uint8_t *buf, size_t len, struct ngap_cause_transfer *t,
			    struct ngap_dec_info *info)
{
	struct ngap_release_command_transfer x;
	int rc = ngap_dec_release_command_transfer(buf, len, &x, info);

	t->cause = x.cause;
	return rc;
}

int ngap_enc_cause_transfer(const struct ngap_cause_transfer *t, uint8_t *buf, size_t cap)
{
	const struct ngap_release_command_transfer x = { t->cause };

	return ngap_enc_release_command_transfer(&x, buf, cap);
}

/* 9.3.4.19 {cause, criticalityDiagnostics OPTIONAL, iE-Ext}: the Setup Unsuccessful Transfer's (9.3.4.16) */
int ngap_dec_ho_resource_alloc_unsuccessful_transfer(const uint8_t *buf, size_t len,
						     struct ngap_ho_resource_alloc_unsuccessful_transfer *t,
						     struct ngap_dec_info *info)
{
	struct ngap_setup_unsuccessful_transfer x;
	int rc = ngap_dec_setup_unsuccessful_transfer(buf, len, &x, info);

	t->cause = x.cause;
	t->has_crit_diag = x.has_crit_diag;
	t->crit_diag = x.crit_diag;
	return rc;
}

int ngap_enc_ho_resource_alloc_unsuccessful_transfer(const struct ngap_ho_resource_alloc_unsuccessful_transfer *t,
						     uint8_t *buf, size_t cap)
{
	const struct ngap_setup_unsuccessful_transfer x = { t->cause, t->has_crit_diag, t->crit_diag };

	return ngap_enc_setup_unsuccessful_transfer(&x, buf, cap);
}
