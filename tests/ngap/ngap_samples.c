/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Sample NGAP messages, PLMN 001/01, TAC 1, gNB id 0x19b (32 bits), AMF UE id 0x123456789a, RAN UE id 77. */
#include "ngap_samples_int.h"

#include <string.h>

static const uint8_t nas_reg_req[] = { 0x7e, 0x00, 0x41, 0x79, 0x00, 0x0d, 0x01, 0x00, 0xf1, 0x10, 0x00, 0x00,
				       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01, 0x2e, 0x02, 0xf0, 0xf0 };
static const uint8_t nas_auth_req[] = { 0x7e, 0x00, 0x56, 0x00, 0x02, 0x00, 0x00, 0x21, 0x11, 0x22, 0x33, 0x44,
					0x55, 0x66, 0x77, 0x88, 0x99, 0xaa, 0xbb, 0xcc, 0xdd, 0xee, 0xff, 0x00,
					0x20, 0x10, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
					0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10 };
static const uint8_t nas_5gmm_status[] = { 0x7e, 0x00, 0x64, 0x6f };
/* TS 38.331 UERadioAccessCapabilityInformation (UPER): c1, ueRadioAccessCapabilityInformation, an empty
 * UE-CapabilityRAT-ContainerList in its OCTET STRING */
static const uint8_t ue_radio_cap[] = { 0x00, 0x08, 0x00 };
/* UERadioCapabilityForPaging with the NR part: an empty UERadioPagingInformation (TS 38.331) */
static const uint8_t ue_radio_cap_paging[] = { 0x40, 0x01, 0x00 };

static uint8_t xfer_buf[NGAP_SAMPLE_XFERS][2][256];
static size_t xfer_len[NGAP_SAMPLE_XFERS][2];

static const struct ngap_plmn plmn = { { 0x00, 0xf1, 0x10 } };

static struct ngap_bytes B(const void *p, size_t n)
{
	struct ngap_bytes b = { p, n };

	return b;
}

static struct ngap_bytes S(const char *s)
{
	return B(s, strlen(s));
}

struct ngap_bytes ngap_sample_xfer_bytes(int kind, bool full)
{
	if (!xfer_len[kind][full])
		xfer_len[kind][full] = (size_t)ngap_sample_xfer(kind, full, xfer_buf[kind][full], 256);
	return B(xfer_buf[kind][full], xfer_len[kind][full]);
}

static void uli(struct ngap_uli *u, bool full)
{
	u->nr_cgi.plmn = plmn;
	u->nr_cgi.cell_id = 0x000066c000ULL;
	u->tai.plmn = plmn;
	u->tai.tac[2] = 1;
	u->has_time_stamp = full;
	if (full)
		memcpy(u->time_stamp, "\xe7\x1a\x2b\x3c", 4);
}

static void snssai(struct ngap_snssai *s, bool sd)
{
	s->sst = 1;
	s->has_sd = sd;
	if (sd)
		memcpy(s->sd, "\x01\x02\x03", 3);
}

static void diag(struct ngap_crit_diag *d)
{
	d->has_proc = d->has_trigger = d->has_proc_crit = true;
	d->proc = NGAP_PROC_INITIAL_CONTEXT_SETUP;
	d->trigger = NGAP_INITIATING;
	d->proc_crit = NGAP_CRIT_REJECT;
	d->n_ies = 2;
	d->ies[0] = (struct ngap_diag_ie){ NGAP_CRIT_REJECT, 9999, NGAP_ERR_NOT_UNDERSTOOD };
	d->ies[1] = (struct ngap_diag_ie){ NGAP_CRIT_IGNORE, 94, NGAP_ERR_MISSING };
}

void ngap_sample_diag(struct ngap_crit_diag *d)
{
	diag(d);
}

static void sess(struct ngap_pdu_sess_item *it, uint8_t id, bool nas, bool sn, int xkind, bool full)
{
	it->id = id;
	if (nas)
		it->nas = B(nas_5gmm_status, sizeof(nas_5gmm_status));
	it->has_snssai = sn;
	if (sn)
		snssai(&it->snssai, full);
	it->transfer = ngap_sample_xfer_bytes(xkind, full);
}

static void tas(struct ngap_supported_ta *ta, uint8_t *n, bool full)
{
	*n = full ? 2 : 1;
	for (int i = 0; i < *n; i++) {
		ta[i].tac[2] = (uint8_t)(i + 1);
		ta[i].n_plmns = 1;
		ta[i].plmns[0].plmn = plmn;
		ta[i].plmns[0].n_slices = full ? 2 : 1;
		snssai(&ta[i].plmns[0].slices[0], false);
		snssai(&ta[i].plmns[0].slices[1], true);
	}
}

static void guamis(struct ngap_served_guami *g, uint8_t *n, bool full)
{
	*n = 1;
	g[0].guami.plmn = plmn;
	g[0].guami.region = 2;
	g[0].guami.set_id = 1;
	g[0].guami.pointer = 1;
	if (full)
		g[0].backup_amf_name = S("amf-backup");
}

static void plmns(struct ngap_plmn_support *p, uint8_t *n, bool full)
{
	*n = 1;
	p[0].plmn = plmn;
	p[0].n_slices = full ? 2 : 1;
	snssai(&p[0].slices[0], true);
	snssai(&p[0].slices[1], false);
}

static void sec_cap(struct ngap_ue_sec_cap *s)
{
	s->nr_enc = 0xe000;
	s->nr_int = 0xe000;
	s->eutra_enc = 0xe000;
	s->eutra_int = 0xe000;
}

#define AMF_ID 0x123456789aULL
#define RAN_ID 77u

static const struct { uint8_t type, proc; } kinds[] = {
	{ NGAP_INITIATING, NGAP_PROC_NG_SETUP },
	{ NGAP_SUCCESSFUL, NGAP_PROC_NG_SETUP },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_NG_SETUP },
	{ NGAP_INITIATING, NGAP_PROC_INITIAL_UE_MESSAGE },
	{ NGAP_INITIATING, NGAP_PROC_DOWNLINK_NAS_TRANSPORT },
	{ NGAP_INITIATING, NGAP_PROC_UPLINK_NAS_TRANSPORT },
	{ NGAP_INITIATING, NGAP_PROC_INITIAL_CONTEXT_SETUP },
	{ NGAP_SUCCESSFUL, NGAP_PROC_INITIAL_CONTEXT_SETUP },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_INITIAL_CONTEXT_SETUP },
	{ NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST },
	{ NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_RELEASE },
	{ NGAP_SUCCESSFUL, NGAP_PROC_UE_CONTEXT_RELEASE },
	{ NGAP_INITIATING, NGAP_PROC_ERROR_INDICATION },
	{ NGAP_INITIATING, NGAP_PROC_NG_RESET },
	{ NGAP_SUCCESSFUL, NGAP_PROC_NG_RESET },
	{ NGAP_INITIATING, NGAP_PROC_PDU_SESSION_RESOURCE_SETUP },
	{ NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_SETUP },
	{ NGAP_INITIATING, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE },
	{ NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE },
	{ NGAP_INITIATING, NGAP_PROC_PAGING },
	{ NGAP_INITIATING, NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION },
	{ NGAP_INITIATING, NGAP_PROC_NAS_NON_DELIVERY_INDICATION },
	{ NGAP_INITIATING, NGAP_PROC_RAN_CONFIGURATION_UPDATE },
	{ NGAP_SUCCESSFUL, NGAP_PROC_RAN_CONFIGURATION_UPDATE },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_RAN_CONFIGURATION_UPDATE },
	{ NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE },
	{ NGAP_SUCCESSFUL, NGAP_PROC_AMF_CONFIGURATION_UPDATE },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_AMF_CONFIGURATION_UPDATE },
	{ NGAP_INITIATING, NGAP_PROC_REROUTE_NAS_REQUEST },
	{ NGAP_INITIATING, NGAP_PROC_UE_CONTEXT_MODIFICATION },
	{ NGAP_SUCCESSFUL, NGAP_PROC_UE_CONTEXT_MODIFICATION },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_UE_CONTEXT_MODIFICATION },
	{ NGAP_INITIATING, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY },
	{ NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY },
	{ NGAP_INITIATING, NGAP_PROC_PDU_SESSION_RESOURCE_NOTIFY },
	{ NGAP_INITIATING, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION },
	{ NGAP_SUCCESSFUL, NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION },
	/* UE mobility (ngap_samples_ho.c) */
	{ NGAP_INITIATING, NGAP_PROC_HANDOVER_PREPARATION },
	{ NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_HANDOVER_PREPARATION },
	{ NGAP_INITIATING, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION },
	{ NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION },
	{ NGAP_INITIATING, NGAP_PROC_HANDOVER_NOTIFICATION },
	{ NGAP_INITIATING, NGAP_PROC_PATH_SWITCH_REQUEST },
	{ NGAP_SUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST },
	{ NGAP_UNSUCCESSFUL, NGAP_PROC_PATH_SWITCH_REQUEST },
	{ NGAP_INITIATING, NGAP_PROC_HANDOVER_CANCEL },
	{ NGAP_SUCCESSFUL, NGAP_PROC_HANDOVER_CANCEL },
	{ NGAP_INITIATING, NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER },
	{ NGAP_INITIATING, NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER },
};

int ngap_sample_count(void)
{
	return (int)(sizeof(kinds) / sizeof(kinds[0]));
}

static void fill_a(struct ngap_msg *m, bool f);
static void fill_b(struct ngap_msg *m, bool f);

void ngap_sample(int i, bool full, struct ngap_msg *m)
{
	memset(m, 0, sizeof(*m));
	m->type = kinds[i].type;
	m->proc = kinds[i].proc;
	fill_a(m, full);
	fill_b(m, full);
	ngap_sample_fill_ho(m, full);
}

static const struct ngap_cause cause_rn = { NGAP_CAUSE_RADIO_NETWORK, NGAP_CAUSE_RN_USER_INACTIVITY };
static const struct ngap_cause cause_nas = { NGAP_CAUSE_NAS, NGAP_CAUSE_NAS_NORMAL_RELEASE };
static const struct ngap_cause cause_misc = { NGAP_CAUSE_MISC, NGAP_CAUSE_MISC_UNKNOWN_PLMN };

/* Interface management, NAS transport, context management. */
static void fill_a(struct ngap_msg *m, bool f)
{
	switch (m->type * 256 + m->proc) {
	case NGAP_INITIATING * 256 + NGAP_PROC_NG_SETUP: {
		struct ngap_ng_setup_request *x = &m->u.ng_setup_request;

		x->ran_node_id = (struct ngap_global_ran_node_id){ NGAP_RAN_GNB, plmn, 0x19b, 32 };
		if (f)
			x->ran_node_name = S("solocore-gnb-1");
		tas(x->tas, &x->n_tas, f);
		x->default_paging_drx = 2;
		x->has_ue_retention_info = f;
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_NG_SETUP: {
		struct ngap_ng_setup_response *x = &m->u.ng_setup_response;

		x->amf_name = S("amf1.solocore.5gc.mnc001.mcc001.3gppnetwork.org");
		guamis(x->guamis, &x->n_guamis, f);
		x->relative_capacity = 255;
		plmns(x->plmns, &x->n_plmns, f);
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		x->has_ue_retention_info = f;
		break;
	}
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_NG_SETUP: {
		struct ngap_ng_setup_failure *x = &m->u.ng_setup_failure;

		x->cause = cause_misc;
		x->has_time_to_wait = f;
		x->time_to_wait = 3;
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_INITIAL_UE_MESSAGE: {
		struct ngap_initial_ue_message *x = &m->u.initial_ue_message;

		x->ran_ue_id = RAN_ID;
		x->nas = B(nas_reg_req, sizeof(nas_reg_req));
		uli(&x->uli, f);
		x->rrc_cause = 3; /* mo-Signalling */
		if ((x->has_s_tmsi = f))
			x->s_tmsi = (struct ngap_5g_s_tmsi){ 1, 1, { 0xc0, 0x00, 0x00, 0x2a } };
		x->has_amf_set_id = f;
		x->amf_set_id = 1;
		x->has_ue_context_request = f;
		if (f) {
			x->n_allowed_nssai = 1;
			snssai(&x->allowed_nssai[0], true);
		}
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_DOWNLINK_NAS_TRANSPORT: {
		struct ngap_downlink_nas_transport *x = &m->u.downlink_nas_transport;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f)
			x->old_amf = S("old-amf");
		x->has_ran_paging_priority = f;
		x->ran_paging_priority = 256;
		x->nas = B(nas_auth_req, sizeof(nas_auth_req));
		x->has_index_to_rfsp = f;
		x->index_to_rfsp = 1;
		if ((x->has_ue_ambr = f))
			x->ue_ambr = (struct ngap_ambr){ 1000000000ULL, 500000000ULL };
		if (f) {
			x->n_allowed_nssai = 2;
			snssai(&x->allowed_nssai[0], true);
			snssai(&x->allowed_nssai[1], false);
		}
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_UPLINK_NAS_TRANSPORT: {
		struct ngap_uplink_nas_transport *x = &m->u.uplink_nas_transport;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->nas = B(nas_5gmm_status, sizeof(nas_5gmm_status));
		uli(&x->uli, f);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_INITIAL_CONTEXT_SETUP: {
		struct ngap_initial_context_setup_request *x = &m->u.initial_context_setup_request;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f)
			x->old_amf = S("old-amf");
		if ((x->has_ue_ambr = f))
			x->ue_ambr = (struct ngap_ambr){ 4000000000000ULL, 1 };
		x->guami = (struct ngap_guami){ plmn, 2, 1, 1 };
		if (f) {
			x->n_sessions = 1;
			sess(&x->sessions[0], 5, true, true, 0, f);
		}
		x->n_allowed_nssai = 1;
		snssai(&x->allowed_nssai[0], f);
		sec_cap(&x->ue_sec_cap);
		for (int i = 0; i < 32; i++)
			x->security_key[i] = (uint8_t)(0xa0 + i);
		if (f)
			x->ue_radio_capability = B(ue_radio_cap, sizeof(ue_radio_cap));
		x->has_index_to_rfsp = f;
		x->index_to_rfsp = 256;
		if ((x->has_masked_imeisv = f))
			memcpy(x->masked_imeisv, "\x35\x12\x34\x56\xff\xff\x01\x00", 8);
		if (f)
			x->nas = B(nas_5gmm_status, sizeof(nas_5gmm_status));
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_INITIAL_CONTEXT_SETUP: {
		struct ngap_initial_context_setup_response *x = &m->u.initial_context_setup_response;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f) {
			x->n_setup = 1;
			sess(&x->setup[0], 5, false, false, 1, f);
			x->n_failed = 1;
			sess(&x->failed[0], 6, false, false, 2, f);
		}
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_INITIAL_CONTEXT_SETUP: {
		struct ngap_initial_context_setup_failure *x = &m->u.initial_context_setup_failure;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f) {
			x->n_failed = 1;
			sess(&x->failed[0], 5, false, false, 2, f);
		}
		x->cause = cause_rn;
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST: {
		struct ngap_ue_context_release_request *x = &m->u.ue_context_release_request;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f) {
			x->n_sessions = 2;
			x->session_ids[0] = 5;
			x->session_ids[1] = 6;
		}
		x->cause = cause_rn;
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_UE_CONTEXT_RELEASE: {
		struct ngap_ue_context_release_command *x = &m->u.ue_context_release_command;

		x->has_ran_ue_id = f;
		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->cause = cause_nas;
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_UE_CONTEXT_RELEASE: {
		struct ngap_ue_context_release_complete *x = &m->u.ue_context_release_complete;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if ((x->has_uli = f))
			uli(&x->uli, f);
		if (f) {
			x->n_sessions = 1;
			x->session_ids[0] = 5;
		}
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_ERROR_INDICATION: {
		struct ngap_error_indication *x = &m->u.error_indication;

		x->has_amf_ue_id = x->has_ran_ue_id = f;
		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->has_cause = true; /* TS 38.413 9.2.7.1: at least Cause or Criticality Diagnostics */
		x->cause = (struct ngap_cause){ NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_ABSTRACT_SYNTAX_ERROR_REJECT };
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		if ((x->has_s_tmsi = f))
			x->s_tmsi = (struct ngap_5g_s_tmsi){ 1, 1, { 1, 2, 3, 4 } };
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_NG_RESET: {
		struct ngap_ng_reset *x = &m->u.ng_reset;

		x->cause = (struct ngap_cause){ NGAP_CAUSE_TRANSPORT, 1 };
		x->reset_all = !f;
		if (f) {
			x->n_ues = 2;
			x->ues[0] = (struct ngap_ue_assoc){ true, AMF_ID, true, RAN_ID };
			x->ues[1] = (struct ngap_ue_assoc){ false, 0, true, RAN_ID + 1 };
		}
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_NG_RESET: {
		struct ngap_ng_reset_ack *x = &m->u.ng_reset_ack;

		if (f) {
			x->n_ues = 1;
			x->ues[0] = (struct ngap_ue_assoc){ true, AMF_ID, false, 0 };
		}
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	default:
		break;
	}
}

/* PDU sessions, paging, configuration updates, the rest. */
static void fill_b(struct ngap_msg *m, bool f)
{
	switch (m->type * 256 + m->proc) {
	case NGAP_INITIATING * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_SETUP: {
		struct ngap_pdu_session_resource_setup_request *x = &m->u.pdu_session_resource_setup_request;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->has_ran_paging_priority = f;
		x->ran_paging_priority = 1;
		if (f)
			x->nas = B(nas_5gmm_status, sizeof(nas_5gmm_status));
		x->n_sessions = f ? 2 : 1;
		sess(&x->sessions[0], 1, f, true, 0, f);
		sess(&x->sessions[1], 2, false, true, 0, false);
		if ((x->has_ue_ambr = f))
			x->ue_ambr = (struct ngap_ambr){ 100000000ULL, 50000000ULL };
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_SETUP: {
		struct ngap_pdu_session_resource_setup_response *x = &m->u.pdu_session_resource_setup_response;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f) {
			x->n_setup = 1;
			sess(&x->setup[0], 1, false, false, 1, f);
			x->n_failed = 1;
			sess(&x->failed[0], 2, false, false, 2, f);
		}
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE: {
		struct ngap_pdu_session_resource_release_command *x = &m->u.pdu_session_resource_release_command;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->has_ran_paging_priority = f;
		x->ran_paging_priority = 2;
		if (f)
			x->nas = B(nas_5gmm_status, sizeof(nas_5gmm_status));
		x->n_sessions = 1;
		sess(&x->sessions[0], 1, false, false, 3, f);
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE: {
		struct ngap_pdu_session_resource_release_response *x = &m->u.pdu_session_resource_release_response;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->n_sessions = 1;
		sess(&x->sessions[0], 1, false, false, 4, f);
		if ((x->has_uli = f))
			uli(&x->uli, f);
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_PAGING: {
		struct ngap_paging *x = &m->u.paging;

		x->ue_paging_id = (struct ngap_5g_s_tmsi){ 1, 1, { 0xc0, 0, 0, 0x2a } };
		x->has_paging_drx = f;
		x->paging_drx = 1;
		x->n_tais = f ? 2 : 1;
		x->tais[0].plmn = plmn;
		x->tais[0].tac[2] = 1;
		x->tais[1].plmn = plmn;
		x->tais[1].tac[2] = 2;
		x->has_paging_priority = f;
		x->paging_priority = 7;
		x->has_paging_origin = f;
		if (f)
			x->ue_radio_capability_for_paging = B(ue_radio_cap_paging, sizeof(ue_radio_cap_paging));
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION: {
		struct ngap_ue_radio_capability_info_indication *x = &m->u.ue_radio_capability_info_indication;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->ue_radio_capability = B(ue_radio_cap, sizeof(ue_radio_cap));
		if (f)
			x->ue_radio_capability_for_paging = B(ue_radio_cap_paging, sizeof(ue_radio_cap_paging));
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_NAS_NON_DELIVERY_INDICATION: {
		struct ngap_nas_non_delivery_indication *x = &m->u.nas_non_delivery_indication;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->nas = B(nas_auth_req, sizeof(nas_auth_req));
		x->cause = cause_rn;
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_RAN_CONFIGURATION_UPDATE: {
		struct ngap_ran_configuration_update *x = &m->u.ran_configuration_update;

		if (f) {
			x->ran_node_name = S("gnb-renamed");
			tas(x->tas, &x->n_tas, f);
		}
		x->has_default_paging_drx = f;
		x->default_paging_drx = 3;
		if ((x->has_ran_node_id = f))
			x->ran_node_id = (struct ngap_global_ran_node_id){ NGAP_RAN_GNB, plmn, 0x3fffff, 22 };
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_RAN_CONFIGURATION_UPDATE:
		if ((m->u.ran_configuration_update_ack.has_crit_diag = f))
			diag(&m->u.ran_configuration_update_ack.crit_diag);
		break;
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_RAN_CONFIGURATION_UPDATE: {
		struct ngap_ran_configuration_update_failure *x = &m->u.ran_configuration_update_failure;

		x->cause = cause_misc;
		x->has_time_to_wait = f;
		x->time_to_wait = 5;
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_AMF_CONFIGURATION_UPDATE: {
		struct ngap_amf_configuration_update *x = &m->u.amf_configuration_update;

		if (f) {
			x->amf_name = S("amf2");
			guamis(x->guamis, &x->n_guamis, f);
			plmns(x->plmns, &x->n_plmns, f);
		}
		x->has_relative_capacity = true; /* one IE at least, or the message says nothing */
		x->relative_capacity = 10;
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_AMF_CONFIGURATION_UPDATE:
		if ((m->u.amf_configuration_update_ack.has_crit_diag = f))
			diag(&m->u.amf_configuration_update_ack.crit_diag);
		break;
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_AMF_CONFIGURATION_UPDATE: {
		struct ngap_amf_configuration_update_failure *x = &m->u.amf_configuration_update_failure;

		x->cause = cause_misc;
		x->has_time_to_wait = f;
		x->time_to_wait = 0;
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_REROUTE_NAS_REQUEST: {
		static uint8_t inner[256];
		struct ngap_msg *im = &(struct ngap_msg){ 0 };
		struct ngap_reroute_nas_request *x = &m->u.reroute_nas_request;
		int n;

		im->type = NGAP_INITIATING;
		im->proc = NGAP_PROC_INITIAL_UE_MESSAGE;
		im->u.initial_ue_message.ran_ue_id = RAN_ID;
		im->u.initial_ue_message.nas = B(nas_reg_req, sizeof(nas_reg_req));
		uli(&im->u.initial_ue_message.uli, false);
		n = ngap_encode(im, inner, sizeof(inner));
		x->ran_ue_id = RAN_ID;
		x->has_amf_ue_id = f;
		x->amf_ue_id = AMF_ID;
		x->ngap_message = B(inner, n > 0 ? (size_t)n : 0);
		x->amf_set_id = 3;
		if (f) {
			x->n_allowed_nssai = 1;
			snssai(&x->allowed_nssai[0], true);
		}
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_UE_CONTEXT_MODIFICATION: {
		struct ngap_ue_context_modification_request *x = &m->u.ue_context_modification_request;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->has_ran_paging_priority = f;
		x->ran_paging_priority = 3;
		if ((x->has_security_key = f))
			memset(x->security_key, 0x5a, 32);
		x->has_index_to_rfsp = f;
		x->index_to_rfsp = 2;
		if ((x->has_ue_ambr = f))
			x->ue_ambr = (struct ngap_ambr){ 2, 3 };
		if ((x->has_ue_sec_cap = f))
			sec_cap(&x->ue_sec_cap);
		x->has_new_amf_ue_id = f;
		x->new_amf_ue_id = AMF_ID + 1;
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_UE_CONTEXT_MODIFICATION: {
		struct ngap_ue_context_modification_response *x = &m->u.ue_context_modification_response;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if ((x->has_uli = f))
			uli(&x->uli, f);
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_UNSUCCESSFUL * 256 + NGAP_PROC_UE_CONTEXT_MODIFICATION: {
		struct ngap_ue_context_modification_failure *x = &m->u.ue_context_modification_failure;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->cause = cause_rn;
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY: {
		struct ngap_pdu_session_resource_modify_request *x = &m->u.pdu_session_resource_modify_request;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->has_ran_paging_priority = f;
		x->ran_paging_priority = 4;
		x->n_sessions = 1;
		sess(&x->sessions[0], 1, f, false, 5, f);
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY: {
		struct ngap_pdu_session_resource_modify_response *x = &m->u.pdu_session_resource_modify_response;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		if (f) {
			x->n_modified = 1;
			sess(&x->modified[0], 1, false, false, 6, f);
			x->n_failed = 1;
			sess(&x->failed[0], 2, false, false, 2, f);
		}
		if ((x->has_uli = f))
			uli(&x->uli, f);
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_NOTIFY: {
		struct ngap_pdu_session_resource_notify *x = &m->u.pdu_session_resource_notify;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->n_notify = 1;
		sess(&x->notify[0], 2, false, false, 7, f);
		if (f) {
			x->n_released = 1;
			sess(&x->released[0], 1, false, false, 8, f);
		}
		if ((x->has_uli = f))
			uli(&x->uli, f);
		break;
	}
	case NGAP_INITIATING * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION: {
		struct ngap_pdu_session_resource_modify_indication *x = &m->u.pdu_session_resource_modify_indication;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->n_sessions = f ? 2 : 1;
		sess(&x->sessions[0], 1, false, false, 9, f);
		sess(&x->sessions[1], 2, false, false, 9, false);
		if ((x->has_uli = f))
			uli(&x->uli, f);
		break;
	}
	case NGAP_SUCCESSFUL * 256 + NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION: {
		struct ngap_pdu_session_resource_modify_confirm *x = &m->u.pdu_session_resource_modify_confirm;

		x->amf_ue_id = AMF_ID;
		x->ran_ue_id = RAN_ID;
		x->n_modified = 1;
		sess(&x->modified[0], 1, false, false, 10, f);
		if (f) {
			x->n_failed = 1;
			sess(&x->failed[0], 2, false, false, 11, f);
		}
		if ((x->has_crit_diag = f))
			diag(&x->crit_diag);
		break;
	}
	default:
		break;
	}
}

/* ---- SM transfers ---- */

static const char *const xfer_names[NGAP_SAMPLE_XFERS] = {
	"PDUSessionResourceSetupRequestTransfer", "PDUSessionResourceSetupResponseTransfer",
	"PDUSessionResourceSetupUnsuccessfulTransfer", "PDUSessionResourceReleaseCommandTransfer",
	"PDUSessionResourceReleaseResponseTransfer", "PDUSessionResourceModifyRequestTransfer",
	"PDUSessionResourceModifyResponseTransfer", "PDUSessionResourceNotifyTransfer",
	"PDUSessionResourceNotifyReleasedTransfer", "PDUSessionResourceModifyIndicationTransfer",
	"PDUSessionResourceModifyConfirmTransfer", "PDUSessionResourceModifyIndicationUnsuccessfulTransfer",
	"HandoverRequiredTransfer", "HandoverCommandTransfer", "HandoverRequestAcknowledgeTransfer",
	"HandoverResourceAllocationUnsuccessfulTransfer", "PathSwitchRequestTransfer",
	"PathSwitchRequestAcknowledgeTransfer", "PathSwitchRequestSetupFailedTransfer",
	"PathSwitchRequestUnsuccessfulTransfer", "HandoverPreparationUnsuccessfulTransfer",
};

const char *ngap_sample_xfer_name(int kind)
{
	return xfer_names[kind];
}

static void tunnel(struct ngap_gtp_tunnel *t, uint8_t last, uint32_t teid)
{
	memset(t, 0, sizeof(*t));
	t->addr[0] = 10, t->addr[1] = 45, t->addr[2] = 0, t->addr[3] = last;
	t->addr_bits = 32;
	t->teid[0] = (uint8_t)(teid >> 24), t->teid[1] = (uint8_t)(teid >> 16);
	t->teid[2] = (uint8_t)(teid >> 8), t->teid[3] = (uint8_t)teid;
}

static void flow(struct ngap_qos_flow_setup *q, uint8_t qfi, bool full)
{
	memset(q, 0, sizeof(*q));
	q->qfi = qfi;
	q->five_qi = full ? 1 : 9;
	q->has_priority_level = full;
	q->priority_level = 20;
	q->arp_priority = 8;
	q->arp_preempt_cap = full;
	q->arp_preempt_vuln = full;
	if ((q->has_gbr = full)) {
		q->gbr_max = (struct ngap_ambr){ 2000000, 2000000 };
		q->gbr_guaranteed = (struct ngap_ambr){ 1000000, 1000000 };
	}
}

int ngap_sample_xfer(int kind, bool full, uint8_t *buf, size_t cap)
{
	union {
		struct ngap_setup_request_transfer srq;
		struct ngap_setup_response_transfer srs;
		struct ngap_setup_unsuccessful_transfer su;
		struct ngap_release_command_transfer rc;
		struct ngap_release_response_transfer rr;
		struct ngap_modify_request_transfer mrq;
		struct ngap_modify_response_transfer mrs;
		struct ngap_notify_transfer nt;
		struct ngap_notify_released_transfer nr;
		struct ngap_modify_indication_transfer mi;
		struct ngap_modify_confirm_transfer mc;
		struct ngap_modify_indication_unsuccessful_transfer mu;
	} u;

	memset(&u, 0, sizeof(u));
	switch (kind) {
	case 0:
		if ((u.srq.has_session_ambr = full))
			u.srq.session_ambr = (struct ngap_ambr){ 1000000000, 1000000000 };
		tunnel(&u.srq.ul_tunnel, 1, 0x1001);
		u.srq.pdu_session_type = full ? NGAP_PDU_IPV4V6 : NGAP_PDU_IPV4;
		u.srq.n_flows = full ? 2 : 1;
		flow(&u.srq.flows[0], 1, false);
		flow(&u.srq.flows[1], 2, true);
		return ngap_enc_setup_request_transfer(&u.srq, buf, cap);
	case 1:
		tunnel(&u.srs.dl_tunnel, 200, 0x2002);
		u.srs.n_flows = 1;
		u.srs.qfis[0] = 1;
		if (full) {
			u.srs.n_failed = 1;
			u.srs.failed[0] = (struct ngap_qos_flow_cause){ 2, { NGAP_CAUSE_RADIO_NETWORK, 0 } };
		}
		return ngap_enc_setup_response_transfer(&u.srs, buf, cap);
	case 2:
		u.su.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, 0 };
		if ((u.su.has_crit_diag = full))
			diag(&u.su.crit_diag);
		return ngap_enc_setup_unsuccessful_transfer(&u.su, buf, cap);
	case 3:
		u.rc.cause = (struct ngap_cause){ NGAP_CAUSE_NAS, NGAP_CAUSE_NAS_NORMAL_RELEASE };
		return ngap_enc_release_command_transfer(&u.rc, buf, cap);
	case 4:
		return ngap_enc_release_response_transfer(&u.rr, buf, cap);
	case 5:
		if ((u.mrq.has_session_ambr = full))
			u.mrq.session_ambr = (struct ngap_ambr){ 5, 6 };
		u.mrq.n_flows = 1;
		flow(&u.mrq.flows[0], 3, full);
		if (full) {
			u.mrq.n_release = 1;
			u.mrq.release[0] = (struct ngap_qos_flow_cause){ 1, { NGAP_CAUSE_NAS, 0 } };
		}
		return ngap_enc_modify_request_transfer(&u.mrq, buf, cap);
	case 6:
		if ((u.mrs.has_dl_tunnel = full))
			tunnel(&u.mrs.dl_tunnel, 201, 0x3003);
		if ((u.mrs.has_ul_tunnel = full))
			tunnel(&u.mrs.ul_tunnel, 2, 0x4004);
		u.mrs.n_flows = 1;
		u.mrs.qfis[0] = 3;
		return ngap_enc_modify_response_transfer(&u.mrs, buf, cap);
	case 7: /* QoS flow 1 fulfilled again, flow 2 not; flow 3 released by the RAN */
		u.nt.n_notify = full ? 2 : 1;
		u.nt.notify[0] = (struct ngap_qos_flow_notify){ 1, NGAP_NOTIF_FULFILLED };
		u.nt.notify[1] = (struct ngap_qos_flow_notify){ 2, NGAP_NOTIF_NOT_FULFILLED };
		if (full) {
			u.nt.n_released = 1;
			u.nt.released[0] = (struct ngap_qos_flow_cause){ 3, { NGAP_CAUSE_RADIO_NETWORK, 21 } };
		}
		return ngap_enc_notify_transfer(&u.nt, buf, cap);
	case 8:
		u.nr.cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, full ? 21 : 0 };
		return ngap_enc_notify_released_transfer(&u.nr, buf, cap);
	case 9: /* the gNB moved the session's DL end to another address */
		tunnel(&u.mi.dl_tunnel, 202, 0x5005);
		u.mi.n_flows = full ? 2 : 1;
		u.mi.qfis[0] = 1;
		u.mi.qfis[1] = 2;
		return ngap_enc_modify_indication_transfer(&u.mi, buf, cap);
	case 10:
		u.mc.n_flows = 1;
		u.mc.qfis[0] = 1;
		tunnel(&u.mc.ul_tunnel, 1, 0x1001);
		if (full) {
			u.mc.n_failed = 1;
			u.mc.failed[0] = (struct ngap_qos_flow_cause){ 2, { NGAP_CAUSE_RADIO_NETWORK, 0 } };
		}
		return ngap_enc_modify_confirm_transfer(&u.mc, buf, cap);
	case 11:
		u.mu.cause = (struct ngap_cause){ NGAP_CAUSE_PROTOCOL, full ? 4 : 6 };
		return ngap_enc_modify_indication_unsuccessful_transfer(&u.mu, buf, cap);
	}
	return ngap_sample_xfer_ho(kind, full, buf, cap);
}

int ngap_sample_xfer_decode(int kind, const uint8_t *buf, size_t len, void *scratch, struct ngap_dec_info *info)
{
	switch (kind) {
	case 0: return ngap_dec_setup_request_transfer(buf, len, scratch, info);
	case 1: return ngap_dec_setup_response_transfer(buf, len, scratch, info);
	case 2: return ngap_dec_setup_unsuccessful_transfer(buf, len, scratch, info);
	case 3: return ngap_dec_release_command_transfer(buf, len, scratch, info);
	case 4: return ngap_dec_release_response_transfer(buf, len, scratch, info);
	case 5: return ngap_dec_modify_request_transfer(buf, len, scratch, info);
	case 6: return ngap_dec_modify_response_transfer(buf, len, scratch, info);
	case 7: return ngap_dec_notify_transfer(buf, len, scratch, info);
	case 8: return ngap_dec_notify_released_transfer(buf, len, scratch, info);
	case 9: return ngap_dec_modify_indication_transfer(buf, len, scratch, info);
	case 10: return ngap_dec_modify_confirm_transfer(buf, len, scratch, info);
	case 11: return ngap_dec_modify_indication_unsuccessful_transfer(buf, len, scratch, info);
	}
	return ngap_sample_xfer_ho_decode(kind, buf, len, scratch, info);
}
