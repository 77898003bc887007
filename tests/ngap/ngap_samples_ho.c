/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Sample UE mobility messages (TS 38.413 9.2.3) and their SM transfers (9.3.4.8-9.3.4.19) for the same
 * tests as ngap_samples.c. The transparent containers are valid encodings of what they contain (built
 * with the APER writer), so that Wireshark, which dissects them, has nothing to complain about.
 */
#include <string.h>

#include "common/aper/aper.h"
#include "ngap_samples_int.h"

#define AMF_ID 0x123456789aULL
#define RAN_ID 77u

static const struct ngap_plmn plmn = { { 0x00, 0xf1, 0x10 } };
/* NASC: an S1 mode to N1 mode NAS transparent container (TS 24.501 9.11.2.9): MAC, NEA2/NIA2, ngKSI 1,
 * sequence number 5, two spare octets */
static const uint8_t nasc[] = { 0x11, 0x22, 0x33, 0x44, 0x22, 0x01, 0x05, 0x00, 0x00 };

static struct ngap_bytes B(const void *p, size_t n)
{
	return (struct ngap_bytes){ p, n };
}

/* NGRAN-CGI: nR-CGI {PLMN, NRCellIdentity 36 bits} */
static void put_ngran_cgi(struct aper_w *w, uint64_t cell)
{
	aper_put_choice(w, 3, false, 0);
	aper_put_seq(w, true, 1, 0);
	aper_put_octets(w, 3, 3, false, plmn.v, 3);
	aper_put_bits_fixed(w, 36, false, cell);
}

/* SourceNGRANNode-ToTargetNGRANNode-TransparentContainer { rRCContainer (an empty TS 38.331
 * HandoverPreparationInformation), targetCell-ID, uEHistoryInformation (one NR cell, 10 s) } */
static struct ngap_bytes source_to_target(void)
{
	static uint8_t b[64];
	static const uint8_t rrc[] = { 0x00, 0x00 };
	struct aper_w w;

	aper_w_init(&w, b, sizeof(b));
	aper_put_seq(&w, true, 4, 0);
	aper_put_octets(&w, 0, APER_UNBOUNDED, false, rrc, sizeof(rrc));
	put_ngran_cgi(&w, 0x000066c001ULL);
	aper_put_count(&w, 1, 16, 1);               /* UEHistoryInformation */
	aper_put_seq(&w, true, 1, 0);               /* LastVisitedCellItem */
	aper_put_choice(&w, 5, false, 0);           /* nGRANCell */
	aper_put_seq(&w, true, 3, 0);
	put_ngran_cgi(&w, 0x000066c000ULL);
	aper_put_seq(&w, true, 1, 0);               /* CellType */
	aper_put_enum(&w, 4, true, 1);              /* small */
	aper_put_cint(&w, 0, 4095, false, 10);
	return B(b, (size_t)aper_w_len(&w));
}

/* TargetNGRANNode-ToSourceNGRANNode-TransparentContainer { rRCContainer: a TS 38.331 HandoverCommand
 * holding an empty RRCReconfiguration } */
static struct ngap_bytes target_to_source(void)
{
	static uint8_t b[16];
	static const uint8_t rrc[] = { 0x00, 0x10, 0x00 };
	struct aper_w w;

	aper_w_init(&w, b, sizeof(b));
	aper_put_seq(&w, true, 1, 0);
	aper_put_octets(&w, 0, APER_UNBOUNDED, false, rrc, sizeof(rrc));
	return B(b, (size_t)aper_w_len(&w));
}

/* TargettoSource-Failure-TransparentContainer { cell-CAGInformation { nGRAN-CGI, cellCAGList (CAG 1) } } */
static struct ngap_bytes target_to_source_failure(void)
{
	static uint8_t b[32];
	static const uint8_t cag[] = { 0, 0, 0, 1 };
	struct aper_w w;

	aper_w_init(&w, b, sizeof(b));
	aper_put_seq(&w, true, 1, 0);
	aper_put_seq(&w, true, 1, 0);
	put_ngran_cgi(&w, 0x000066c001ULL);
	aper_put_count(&w, 1, 64, 1);
	aper_put_bitstr(&w, 32, 32, false, cag, 32);
	return B(b, (size_t)aper_w_len(&w));
}

/* RANStatusTransfer-TransparentContainer: DRB 1, UL COUNT 2/100, DL COUNT 3/200 (12-bit PDCP SNs) */
static struct ngap_bytes ran_status(bool full)
{
	static uint8_t b[2][64];
	struct aper_w w;

	aper_w_init(&w, b[full], sizeof(b[full]));
	aper_put_seq(&w, true, 1, 0);
	aper_put_count(&w, 1, 32, full ? 2 : 1);
	for (int i = 0; i < (full ? 2 : 1); i++) {
		aper_put_seq(&w, true, 1, 0);
		aper_put_cint(&w, 1, 32, true, i + 1);
		aper_put_choice(&w, 3, false, 0);   /* dRBStatusUL12 */
		aper_put_seq(&w, true, 2, 0);
		aper_put_seq(&w, true, 1, 0);
		aper_put_cint(&w, 0, 4095, false, 100);
		aper_put_cint(&w, 0, 1048575, false, 2);
		aper_put_choice(&w, 3, false, 0);   /* dRBStatusDL12 */
		aper_put_seq(&w, true, 1, 0);
		aper_put_seq(&w, true, 1, 0);
		aper_put_cint(&w, 0, 4095, false, 200);
		aper_put_cint(&w, 0, 1048575, false, 3);
	}
	return B(b[full], (size_t)aper_w_len(&w));
}

static void target(struct ngap_target_id *t)
{
	t->ran_node_id = (struct ngap_global_ran_node_id){ NGAP_RAN_GNB, plmn, 0x19c, 32 };
	t->tai.plmn = plmn;
	t->tai.tac[2] = 2;
}

static void sec_ctx(struct ngap_security_context *s, uint8_t ncc)
{
	s->ncc = ncc;
	for (int i = 0; i < 32; i++)
		s->nh[i] = (uint8_t)(0x40 + i);
}

static void uli(struct ngap_uli *u, bool full)
{
	u->nr_cgi.plmn = plmn;
	u->nr_cgi.cell_id = 0x000066c001ULL;
	u->tai.plmn = plmn;
	u->tai.tac[2] = 2;
	u->has_time_stamp = full;
	if (full)
		memcpy(u->time_stamp, "\xe7\x1a\x2b\x3c", 4);
}

static void item(struct ngap_pdu_sess_item *it, uint8_t id, int xkind, bool full)
{
	it->id = id;
	it->transfer = ngap_sample_xfer_bytes(xkind, full);
}

static const struct ngap_ue_sec_cap sec_cap = { 0xe000, 0xe000, 0xe000, 0xe000 };
static const struct ngap_cause cause_ho = { NGAP_CAUSE_RADIO_NETWORK, 16 }; /* handover-desirable-for-radio-reason */

static void fill_hop(struct ngap_msg *m, bool f)
{
	switch (m->type * 256 + m->proc) {
	case NGAP_INITIATING * 256 + NGAP_PROC_HANDOVER_PREPARATION: {
		struct ngap_handover_required *x = &m->u.handover_required;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->handover_type = NGAP_HO_INTRA_5GS;
		x->cause = cause_ho;
		target(&x->target);
		x->has_direct_forwarding = f;
		x->n_sessions = f ? 2 : 1;
		item(&x->sessions[0], 1, NGAP_SX_HO_REQUIRED, f);
		item(&x->sessions[1], 2, NGAP_SX_HO_REQUIRED, false);
		x->source_to_target = source_to_target();
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_HANDOVER_PREPARATION: {
		struct ngap_handover_command *x = &m->u.handover_command;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->handover_type = NGAP_HO_INTRA_5GS;
		if (f) {
			x->n_sessions = 1;
			item(&x->sessions[0], 1, NGAP_SX_HO_COMMAND, f);
			x->n_release = 1;
			item(&x->release[0], 2, NGAP_SX_HO_PREP_UNSUCCESSFUL, f);
		}
		x->target_to_source = target_to_source();
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		break;
	}
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_HANDOVER_PREPARATION: {
		struct ngap_handover_preparation_failure *x = &m->u.handover_preparation_failure;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 11 }; /* ho-failure-in-target-5GC-ngran-node-or-target-system */
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		if (f)
			x->target_to_source_failure = target_to_source_failure();
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION: {
		struct ngap_handover_request *x = &m->u.handover_request;

		x->amf_ue_id = AMF_ID + 1;
		x->handover_type = NGAP_HO_INTRA_5GS;
		x->cause = cause_ho;
		x->ue_ambr = (struct ngap_ambr){ 1000000000ULL, 500000000ULL };
		x->ue_sec_cap = sec_cap;
		sec_ctx(&x->security_context, f ? 7 : 1);
		x->has_new_security_context_ind = f;
		if (f)
			x->nasc = B(nasc, sizeof(nasc));
		x->n_sessions = 1;
		x->sessions[0].id = 1;
		x->sessions[0].has_snssai = true;
		x->sessions[0].snssai = (struct ngap_snssai){ 1, f, { 1, 2, 3 } };
		x->sessions[0].transfer = ngap_sample_xfer_bytes(0, f); /* a Setup Request Transfer */
		x->n_allowed_nssai = 1;
		x->allowed_nssai[0] = (struct ngap_snssai){ 1, true, { 1, 2, 3 } };
		if ((x->has_masked_imeisv = f))
			memcpy(x->masked_imeisv, "\x35\x12\x34\x56\xff\xff\x01\x00", 8);
		x->source_to_target = source_to_target();
		x->guami = (struct ngap_guami){ plmn, 2, 1, 1 };
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION: {
		struct ngap_handover_request_ack *x = &m->u.handover_request_ack;

		x->amf_ue_id = AMF_ID + 1;
		x->ran_ue_id = RAN_ID + 1;
		x->n_admitted = 1;
		item(&x->admitted[0], 1, NGAP_SX_HO_REQUEST_ACK, f);
		if (f) {
			x->n_failed = 1;
			item(&x->failed[0], 2, NGAP_SX_HO_RES_ALLOC_UNSUCCESSFUL, f);
		}
		x->target_to_source = target_to_source();
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		break;
	}
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION: {
		struct ngap_handover_failure *x = &m->u.handover_failure;

		x->amf_ue_id = AMF_ID + 1;
		x->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 25 }; /* no-radio-resources-available-in-target-cell */
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		if (f)
			x->target_to_source_failure = target_to_source_failure();
		break;
	}
	default:
		break;
	}
}

static void fill_other(struct ngap_msg *m, bool f)
{
	switch (m->type * 256 + m->proc) {
	case NGAP_INITIATING * 256 + NGAP_PROC_HANDOVER_NOTIFICATION: {
		struct ngap_handover_notify *x = &m->u.handover_notify;

		x->amf_ue_id = AMF_ID + 1;
		x->ran_ue_id = RAN_ID + 1;
		uli(&x->uli, f);
		x->has_notify_source = f;
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_PATH_SWITCH_REQUEST: {
		struct ngap_path_switch_request *x = &m->u.path_switch_request;

		x->ran_ue_id = RAN_ID + 1;
		x->source_amf_ue_id = AMF_ID;
		uli(&x->uli, f);
		x->ue_sec_cap = sec_cap;
		x->n_sessions = 1;
		item(&x->sessions[0], 1, NGAP_SX_PS_REQUEST, f);
		if (f) {
			x->n_failed = 1;
			item(&x->failed[0], 2, NGAP_SX_PS_SETUP_FAILED, f);
		}
		x->has_rrc_resume_cause = f;
		x->rrc_resume_cause = 3;
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_PATH_SWITCH_REQUEST: {
		struct ngap_path_switch_request_ack *x = &m->u.path_switch_request_ack;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID + 1;
		x->has_ue_sec_cap = f;
		x->ue_sec_cap = sec_cap;
		sec_ctx(&x->security_context, f ? 2 : 0);
		x->has_new_security_context_ind = f;
		x->n_switched = 1;
		item(&x->switched[0], 1, NGAP_SX_PS_ACK, f);
		if (f) {
			x->n_released = 1;
			item(&x->released[0], 2, NGAP_SX_PS_UNSUCCESSFUL, f);
		}
		x->n_allowed_nssai = 1;
		x->allowed_nssai[0] = (struct ngap_snssai){ 1, f, { 1, 2, 3 } };
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		break;
	}
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_PATH_SWITCH_REQUEST: {
		struct ngap_path_switch_request_failure *x = &m->u.path_switch_request_failure;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID + 1;
		x->n_released = f ? 2 : 1;
		item(&x->released[0], 1, NGAP_SX_PS_UNSUCCESSFUL, f);
		item(&x->released[1], 2, NGAP_SX_PS_UNSUCCESSFUL, false);
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_HANDOVER_CANCEL: {
		struct ngap_handover_cancel *x = &m->u.handover_cancel;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 5 }; /* handover-cancelled */
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_HANDOVER_CANCEL: {
		struct ngap_handover_cancel_ack *x = &m->u.handover_cancel_ack;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if ((x->has_crit_diag = f))
			ngap_sample_diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER:
	case NGAP_INITIATING * 256 + NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER: {
		struct ngap_ran_status_transfer *x = m->proc == NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER ?
							     &m->u.uplink_ran_status_transfer :
							     &m->u.downlink_ran_status_transfer;

		x->amf_ue_id = m->proc == NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER ? AMF_ID : AMF_ID + 1;
		x->ran_ue_id = m->proc == NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER ? RAN_ID : RAN_ID + 1;
		x->container = ran_status(f);
		break;
	}
	default:
		break;
	}
}

void ngap_sample_fill_ho(struct ngap_msg *m, bool full)
{
	fill_hop(m, full);
	fill_other(m, full);
}

/* ---- transfers ---- */

static void tunnel(struct ngap_gtp_tunnel *t, uint8_t last, uint32_t teid)
{
	memset(t, 0, sizeof(*t));
	t->addr[0] = 10, t->addr[1] = 45, t->addr[2] = 1, t->addr[3] = last;
	t->addr_bits = 32;
	t->teid[0] = (uint8_t)(teid >> 24), t->teid[1] = (uint8_t)(teid >> 16);
	t->teid[2] = (uint8_t)(teid >> 8), t->teid[3] = (uint8_t)teid;
}

static const struct ngap_security_indication sec_ind = { 1, 2, true, 1 }; /* preferred, not-needed, max UE rate */

static void drbs(struct ngap_drb_forwarding *d, uint8_t *n)
{
	*n = 2;
	d[0].drb_id = 1;
	d[0].has_dl = true;
	tunnel(&d[0].dl, 210, 0x7001);
	d[1].drb_id = 32;
	d[1].has_dl = d[1].has_ul = true;
	tunnel(&d[1].dl, 210, 0x7002);
	tunnel(&d[1].ul, 210, 0x7003);
}

int ngap_sample_xfer_ho(int kind, bool full, uint8_t *buf, size_t cap)
{
	union {
		struct ngap_ho_required_transfer hrq;
		struct ngap_ho_command_transfer hc;
		struct ngap_ho_request_ack_transfer ha;
		struct ngap_ho_resource_alloc_unsuccessful_transfer hu;
		struct ngap_path_switch_request_transfer ps;
		struct ngap_path_switch_request_ack_transfer pa;
		struct ngap_cause_transfer c;
	} u;

	memset(&u, 0, sizeof(u));
	switch (kind) {
	case NGAP_SX_HO_REQUIRED:
		u.hrq.has_direct_forwarding = full;
		return ngap_enc_ho_required_transfer(&u.hrq, buf, cap);
	case NGAP_SX_HO_COMMAND: /* indirect forwarding through the UPF: one tunnel for flows 1 and 2 */
		if ((u.hc.has_dl_forwarding = full))
			tunnel(&u.hc.dl_forwarding, 1, 0x6001);
		if (full) {
			u.hc.n_flows = 2;
			u.hc.qfis[0] = 1;
			u.hc.qfis[1] = 2;
			drbs(u.hc.drbs, &u.hc.n_drbs);
		}
		return ngap_enc_ho_command_transfer(&u.hc, buf, cap);
	case NGAP_SX_HO_REQUEST_ACK:
		tunnel(&u.ha.dl_tunnel, 210, 0x8001);
		if ((u.ha.has_dl_forwarding = full))
			tunnel(&u.ha.dl_forwarding, 210, 0x8002);
		if ((u.ha.has_security_result = full))
			u.ha.security_result = (struct ngap_security_result){ 1, 1 };
		u.ha.n_flows = full ? 2 : 1;
		u.ha.flows[0] = (struct ngap_qos_flow_fwd){ 1, full };
		u.ha.flows[1] = (struct ngap_qos_flow_fwd){ 2, false };
		if (full) {
			u.ha.n_failed = 1;
			u.ha.failed[0] = (struct ngap_qos_flow_cause){ 3, { NGAP_CAUSE_RADIO_NETWORK, 0 } };
			drbs(u.ha.drbs, &u.ha.n_drbs);
		}
		return ngap_enc_ho_request_ack_transfer(&u.ha, buf, cap);
	case NGAP_SX_HO_RES_ALLOC_UNSUCCESSFUL:
		u.hu.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 25 };
		if ((u.hu.has_crit_diag = full))
			ngap_sample_diag(&u.hu.crit_diag);
		return ngap_enc_ho_resource_alloc_unsuccessful_transfer(&u.hu, buf, cap);
	case NGAP_SX_PS_REQUEST:
		tunnel(&u.ps.dl_tunnel, 211, 0x9001);
		u.ps.dl_tnl_reused = full;
		if ((u.ps.has_up_security = full)) {
			u.ps.up_security_result = (struct ngap_security_result){ 0, 1 };
			u.ps.up_security_indication = sec_ind;
		}
		u.ps.n_flows = full ? 2 : 1;
		u.ps.qfis[0] = 1;
		u.ps.qfis[1] = 2;
		return ngap_enc_path_switch_request_transfer(&u.ps, buf, cap);
	case NGAP_SX_PS_ACK:
		if ((u.pa.has_ul_tunnel = full))
			tunnel(&u.pa.ul_tunnel, 1, 0x1002);
		if ((u.pa.has_security_indication = full))
			u.pa.security_indication = sec_ind;
		return ngap_enc_path_switch_request_ack_transfer(&u.pa, buf, cap);
	case NGAP_SX_PS_SETUP_FAILED:
	case NGAP_SX_PS_UNSUCCESSFUL:
	case NGAP_SX_HO_PREP_UNSUCCESSFUL:
		u.c.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, full ? 25 : 0 };
		return ngap_enc_cause_transfer(&u.c, buf, cap);
	}
	return -1;
}

int ngap_sample_xfer_ho_decode(int kind, const uint8_t *buf, size_t len, void *scratch, struct ngap_dec_info *info)
{
	switch (kind) {
	case NGAP_SX_HO_REQUIRED: return ngap_dec_ho_required_transfer(buf, len, scratch, info);
	case NGAP_SX_HO_COMMAND: return ngap_dec_ho_command_transfer(buf, len, scratch, info);
	case NGAP_SX_HO_REQUEST_ACK: return ngap_dec_ho_request_ack_transfer(buf, len, scratch, info);
	case NGAP_SX_HO_RES_ALLOC_UNSUCCESSFUL:
		return ngap_dec_ho_resource_alloc_unsuccessful_transfer(buf, len, scratch, info);
	case NGAP_SX_PS_REQUEST: return ngap_dec_path_switch_request_transfer(buf, len, scratch, info);
	case NGAP_SX_PS_ACK: return ngap_dec_path_switch_request_ack_transfer(buf, len, scratch, info);
	default: return ngap_dec_cause_transfer(buf, len, scratch, info);
	}
}

int ngap_sample_xfer_ho_encode(int kind, const void *t, uint8_t *buf, size_t cap)
{
	switch (kind) {
	case NGAP_SX_HO_REQUIRED: return ngap_enc_ho_required_transfer(t, buf, cap);
	case NGAP_SX_HO_COMMAND: return ngap_enc_ho_command_transfer(t, buf, cap);
	case NGAP_SX_HO_REQUEST_ACK: return ngap_enc_ho_request_ack_transfer(t, buf, cap);
	case NGAP_SX_HO_RES_ALLOC_UNSUCCESSFUL: return ngap_enc_ho_resource_alloc_unsuccessful_transfer(t, buf, cap);
	case NGAP_SX_PS_REQUEST: return ngap_enc_path_switch_request_transfer(t, buf, cap);
	case NGAP_SX_PS_ACK: return ngap_enc_path_switch_request_ack_transfer(t, buf, cap);
	default: return ngap_enc_cause_transfer(t, buf, cap);
	}
}
