/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * IE tables of the UE mobility management messages, TS 38.413 9.2.3 (N2 handover 8.4.1-8.4.3, handover
 * notification 8.4.5, path switch 8.4.4, handover cancel 8.4.6, RAN status transfer 8.4.6/8.4.7); the
 * order, criticality and presence of the ASN.1 *IEs sets of 9.4.4. Registered in ngap_msg.c (MSGS_HO).
 * IEs of those sets not listed here (trace activation, mobility restriction list, V2X, ProSe, MDT ...) are
 * "not comprehended" and handled by their criticality (10.3.4.2) like every other unknown IE.
 */
#include "common/ngap/ngap_tab.h"

/* 9.2.3.1 HANDOVER REQUIRED */
#define T struct ngap_handover_required
static const struct ngap_ie_spec ngap_ct_ho_required_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 29, REJECT, handover_type, handover_type, "id-HandoverType"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	M(T, 105, REJECT, target, target_id, "id-TargetID"),
	OF(T, 22, IGNORE, has_direct_forwarding, "id-DirectForwardingPathAvailability"),
	ML(T, 61, REJECT, sessions, n_sessions, sess_xfer, "id-PDUSessionResourceListHORqd"),
	M(T, 101, REJECT, source_to_target, octets, "id-SourceToTarget-TransparentContainer"),
};
CONTAINER_X(ngap_ct_ho_required, T);
#undef T

/* 9.2.3.2 HANDOVER COMMAND */
#define T struct ngap_handover_command
static const struct ngap_ie_spec ngap_ct_ho_command_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 29, REJECT, handover_type, handover_type, "id-HandoverType"),
	OB(T, 39, REJECT, nas_security_params, octets, "id-NASSecurityParametersFromNGRAN"),
	OL(T, 59, IGNORE, sessions, n_sessions, sess_xfer, "id-PDUSessionResourceHandoverList"),
	OL(T, 78, IGNORE, release, n_release, sess_xfer, "id-PDUSessionResourceToReleaseListHOCmd"),
	M(T, 106, REJECT, target_to_source, octets, "id-TargetToSource-TransparentContainer"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER_X(ngap_ct_ho_command, T);
#undef T

/* 9.2.3.3 HANDOVER PREPARATION FAILURE */
#define T struct ngap_handover_preparation_failure
static const struct ngap_ie_spec ngap_ct_ho_prep_fail_ies[] = {
	UE_IDS(T, IGNORE),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
	OB(T, 262, IGNORE, target_to_source_failure, octets, "id-TargettoSource-Failure-TransparentContainer"),
};
CONTAINER_X(ngap_ct_ho_prep_fail, T);
#undef T

/* 9.2.3.4 HANDOVER REQUEST */
#define T struct ngap_handover_request
static const struct ngap_ie_spec ngap_ct_ho_request_ies[] = {
	M(T, 10, REJECT, amf_ue_id, amf_ue_id, "id-AMF-UE-NGAP-ID"),
	M(T, 29, REJECT, handover_type, handover_type, "id-HandoverType"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	M(T, 110, REJECT, ue_ambr, ue_ambr, "id-UEAggregateMaximumBitRate"),
	M(T, 119, REJECT, ue_sec_cap, ue_sec_cap, "id-UESecurityCapabilities"),
	M(T, 93, REJECT, security_context, security_context, "id-SecurityContext"),
	OF(T, 41, REJECT, has_new_security_context_ind, "id-NewSecurityContextInd"),
	OB(T, 37, REJECT, nasc, nas_pdu, "id-NASC"),
	ML(T, 73, REJECT, sessions, n_sessions, sess_snssai_xfer, "id-PDUSessionResourceSetupListHOReq"),
	ML(T, 0, REJECT, allowed_nssai, n_allowed_nssai, allowed_nssai, "id-AllowedNSSAI"),
	O(T, 34, IGNORE, masked_imeisv, has_masked_imeisv, masked_imeisv, "id-MaskedIMEISV"),
	M(T, 101, REJECT, source_to_target, octets, "id-SourceToTarget-TransparentContainer"),
	M(T, 28, REJECT, guami, guami, "id-GUAMI"),
};
CONTAINER_X(ngap_ct_ho_request, T);
#undef T

/* 9.2.3.5 HANDOVER REQUEST ACKNOWLEDGE */
#define T struct ngap_handover_request_ack
static const struct ngap_ie_spec ngap_ct_ho_request_ack_ies[] = {
	UE_IDS(T, IGNORE),
	ML(T, 53, IGNORE, admitted, n_admitted, sess_xfer, "id-PDUSessionResourceAdmittedList"),
	OL(T, 56, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToSetupListHOAck"),
	M(T, 106, REJECT, target_to_source, octets, "id-TargetToSource-TransparentContainer"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER_X(ngap_ct_ho_request_ack, T);
#undef T

/* 9.2.3.6 HANDOVER FAILURE */
#define T struct ngap_handover_failure
static const struct ngap_ie_spec ngap_ct_ho_fail_ies[] = {
	M(T, 10, IGNORE, amf_ue_id, amf_ue_id, "id-AMF-UE-NGAP-ID"),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
	OB(T, 262, IGNORE, target_to_source_failure, octets, "id-TargettoSource-Failure-TransparentContainer"),
};
CONTAINER_X(ngap_ct_ho_fail, T);
#undef T

/* 9.2.3.7 HANDOVER NOTIFY */
#define T struct ngap_handover_notify
static const struct ngap_ie_spec ngap_ct_ho_notify_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 121, IGNORE, uli, uli, "id-UserLocationInformation"),
	OF(T, 269, IGNORE, has_notify_source, "id-NotifySourceNGRANNode"),
};
CONTAINER_X(ngap_ct_ho_notify, T);
#undef T

/* 9.2.3.8 PATH SWITCH REQUEST */
#define T struct ngap_path_switch_request
static const struct ngap_ie_spec ngap_ct_ps_req_ies[] = {
	M(T, 85, REJECT, ran_ue_id, ran_ue_id, "id-RAN-UE-NGAP-ID"),
	M(T, 100, REJECT, source_amf_ue_id, amf_ue_id, "id-SourceAMF-UE-NGAP-ID"),
	M(T, 121, IGNORE, uli, uli, "id-UserLocationInformation"),
	M(T, 119, IGNORE, ue_sec_cap, ue_sec_cap, "id-UESecurityCapabilities"),
	ML(T, 76, REJECT, sessions, n_sessions, sess_xfer, "id-PDUSessionResourceToBeSwitchedDLList"),
	OL(T, 57, IGNORE, failed, n_failed, sess_xfer, "id-PDUSessionResourceFailedToSetupListPSReq"),
	O(T, 237, IGNORE, rrc_resume_cause, has_rrc_resume_cause, rrc_cause, "id-RRC-Resume-Cause"),
};
CONTAINER_X(ngap_ct_ps_req, T);
#undef T

/* 9.2.3.9 PATH SWITCH REQUEST ACKNOWLEDGE */
#define T struct ngap_path_switch_request_ack
static const struct ngap_ie_spec ngap_ct_ps_ack_ies[] = {
	UE_IDS(T, IGNORE),
	O(T, 119, REJECT, ue_sec_cap, has_ue_sec_cap, ue_sec_cap, "id-UESecurityCapabilities"),
	M(T, 93, REJECT, security_context, security_context, "id-SecurityContext"),
	OF(T, 41, REJECT, has_new_security_context_ind, "id-NewSecurityContextInd"),
	ML(T, 77, IGNORE, switched, n_switched, sess_xfer, "id-PDUSessionResourceSwitchedList"),
	OL(T, 68, IGNORE, released, n_released, sess_xfer, "id-PDUSessionResourceReleasedListPSAck"),
	ML(T, 0, REJECT, allowed_nssai, n_allowed_nssai, allowed_nssai, "id-AllowedNSSAI"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER_X(ngap_ct_ps_ack, T);
#undef T

/* 9.2.3.10 PATH SWITCH REQUEST FAILURE */
#define T struct ngap_path_switch_request_failure
static const struct ngap_ie_spec ngap_ct_ps_fail_ies[] = {
	UE_IDS(T, IGNORE),
	ML(T, 69, IGNORE, released, n_released, sess_xfer, "id-PDUSessionResourceReleasedListPSFail"),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER_X(ngap_ct_ps_fail, T);
#undef T

/* 9.2.3.11 HANDOVER CANCEL */
#define T struct ngap_handover_cancel
static const struct ngap_ie_spec ngap_ct_ho_cancel_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 15, IGNORE, cause, cause, "id-Cause"),
};
CONTAINER_X(ngap_ct_ho_cancel, T);
#undef T

/* 9.2.3.12 HANDOVER CANCEL ACKNOWLEDGE */
#define T struct ngap_handover_cancel_ack
static const struct ngap_ie_spec ngap_ct_ho_cancel_ack_ies[] = {
	UE_IDS(T, IGNORE),
	O(T, 19, IGNORE, crit_diag, has_crit_diag, crit_diag, "id-CriticalityDiagnostics"),
};
CONTAINER_X(ngap_ct_ho_cancel_ack, T);
#undef T

/* 9.2.3.13 UPLINK / 9.2.3.14 DOWNLINK RAN STATUS TRANSFER: one set of IEs, two messages */
#define T struct ngap_ran_status_transfer
static const struct ngap_ie_spec ran_status_ies[] = {
	UE_IDS(T, REJECT),
	M(T, 84, REJECT, container, raw, "id-RANStatusTransfer-TransparentContainer"),
};
const struct ngap_container ngap_ct_ul_ran_status = { ran_status_ies, sizeof(ran_status_ies) / sizeof(ran_status_ies[0]),
						      sizeof(T) };
const struct ngap_container ngap_ct_dl_ran_status = { ran_status_ies, sizeof(ran_status_ies) / sizeof(ran_status_ies[0]),
						      sizeof(T) };
#undef T
