/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NGAP (TS 38.413 v17.3.0, ASN.1 "h30") codec: NGAP-PDU and the messages the core uses.
 *
 * Decoding: ngap_decode() fills a struct ngap_msg. Variable parts (NAS-PDU, names, SM transfer
 * containers, security key ...) POINT INTO THE INPUT BUFFER, which must outlive the struct.
 * Nothing is allocated; lists are bounded arrays whose limits are the NGAP_MAX_* below (a peer
 * sending more items than a limit gets -E2BIG, reason in the info struct), except the lists the
 * specification lets grow large (SupportedTAList, UE-associatedLogicalNG-connectionList): those decode
 * up to the ASN.1 maxima, the arrays keep the first items and an iterator walks all (see below).
 *
 * Encoding: fill a struct ngap_msg (type, proc, the matching union member; optional IEs are
 * present when their has_* flag is true, their count is non-zero, or, for an optional
 * struct ngap_bytes field such as nas / old_amf / ran_node_name / a session item's nas, its .p is
 * non-NULL; a served GUAMI's backup_amf_name when its len is non-zero) and call ngap_encode(): it
 * writes into the caller's buffer and returns the length, or -ENOSPC (buffer too small),
 * -EINVAL (a value out of its ASN.1 range), -ENOTSUP (message not supported).
 *
 * Unknown / unexpected / missing IEs are handled by criticality, TS 38.413 10.3.4 / 10.3.5:
 *  - an IE not comprehended (unknown id, or known but not expected in this message) or a missing
 *    mandatory IE with criticality "reject": ngap_decode() returns -EPROTO and sets
 *    info->action = NGAP_ACT_REJECT;
 *  - "ignore and notify": decoding continues, returns 0, info->action = NGAP_ACT_NOTIFY;
 *  - "ignore": decoding continues silently, info->action = NGAP_ACT_IGNORE (not listed in info->diag).
 * info->diag holds what the caller needs to build CriticalityDiagnostics (procedure code,
 * triggering message, procedure criticality and the reported IEs with their type of error),
 * and can be passed straight into an Error Indication / failure message (ngap_crit_diag).
 * IEs inside ProtocolExtensionContainers are all "not comprehended" here and follow the same rules.
 * An unknown procedure code gives -ENOTSUP with info->action set from the procedure criticality
 * (TS 38.413 10.3.4.1). The IE order within a container is not checked.
 *
 * Transfer-syntax errors (truncated, overlong, out of range ...) return a negative errno with
 * info->err_bit (bit offset into the input) and info->why (a static string for a log line).
 */
#ifndef SOLOCORE_COMMON_NGAP_NGAP_H
#define SOLOCORE_COMMON_NGAP_NGAP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- named limits (our bounds; the ASN.1 maxnoof* are larger, noted) ---- */
#define NGAP_MAX_NAME 150           /* AMFName / RANNodeName: PrintableString (SIZE(1..150,...)) */
#define NGAP_MAX_PLMNS 12           /* maxnoofBPLMNs = 12, maxnoofPLMNs = 12 */
#define NGAP_MAX_TAS 16             /* maxnoofTACs = 256: the first 16 in the array, all by ngap_ta_iter */
#define NGAP_MAX_SLICES 16          /* maxnoofSliceItems = 1024 (first 16 per list in arrays); maxnoofAllowedS-NSSAIs = 8 */
#define NGAP_MAX_GUAMIS 16          /* maxnoofServedGUAMIs = 256 */
#define NGAP_MAX_PDU_SESSIONS 16    /* maxnoofPDUSessions = 256 */
#define NGAP_MAX_QOS_FLOWS 16       /* maxnoofQosFlows = 64 */
#define NGAP_MAX_TAI_PAGING 16      /* maxnoofTAIforPaging = 16 */
#define NGAP_MAX_UE_ASSOC 32        /* maxnoofNGConnectionsToReset = 65536: first 32 in the array, all by ngap_ue_assoc_iter */
#define NGAP_MAX_DIAG_IES 16        /* maxnoofErrors = 256 */
#define NGAP_MAX_TNL_ADDR 20        /* TransportLayerAddress BIT STRING (SIZE(1..160,...)) */
#define NGAP_MAX_DRBS 8              /* maxnoofDRBs = 32 (DataForwardingResponseDRBList) */
#define NGAP_MAX_AMF_UE_NGAP_ID 1099511627775ULL /* INTEGER (0..1099511627775) */
/* The specification's list maxima (TS 38.413 9.4.7). Lists up to these decode: the fixed arrays hold
 * the first NGAP_MAX_* items, the total count and the list's raw APER octets are kept, and an iterator
 * walks every item from those octets (no allocation). More than these: -ERANGE / -EINVAL. */
#define NGAP_MAXNOOF_TACS 256
#define NGAP_MAXNOOF_BPLMNS 12
#define NGAP_MAXNOOF_SLICE_ITEMS 1024
#define NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET 65536

/* ---- NGAP-PDU ---- */
enum ngap_pdu_type { NGAP_INITIATING = 0, NGAP_SUCCESSFUL = 1, NGAP_UNSUCCESSFUL = 2 };

enum ngap_crit { NGAP_CRIT_REJECT = 0, NGAP_CRIT_IGNORE = 1, NGAP_CRIT_NOTIFY = 2 };

/* ProcedureCode values, TS 38.413 9.4.7 (NGAP-Constants). */
enum ngap_proc {
	NGAP_PROC_AMF_CONFIGURATION_UPDATE = 0,
	NGAP_PROC_AMF_STATUS_INDICATION = 1,
	NGAP_PROC_DOWNLINK_NAS_TRANSPORT = 4,
	NGAP_PROC_DOWNLINK_RAN_STATUS_TRANSFER = 7,
	NGAP_PROC_ERROR_INDICATION = 9,
	NGAP_PROC_HANDOVER_CANCEL = 10,
	NGAP_PROC_HANDOVER_NOTIFICATION = 11,
	NGAP_PROC_HANDOVER_PREPARATION = 12,
	NGAP_PROC_HANDOVER_RESOURCE_ALLOCATION = 13,
	NGAP_PROC_INITIAL_CONTEXT_SETUP = 14,
	NGAP_PROC_INITIAL_UE_MESSAGE = 15,
	NGAP_PROC_NAS_NON_DELIVERY_INDICATION = 19,
	NGAP_PROC_NG_RESET = 20,
	NGAP_PROC_NG_SETUP = 21,
	NGAP_PROC_PAGING = 24,
	NGAP_PROC_PATH_SWITCH_REQUEST = 25,
	NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY = 26,
	NGAP_PROC_PDU_SESSION_RESOURCE_MODIFY_INDICATION = 27,
	NGAP_PROC_PDU_SESSION_RESOURCE_RELEASE = 28,
	NGAP_PROC_PDU_SESSION_RESOURCE_SETUP = 29,
	NGAP_PROC_PDU_SESSION_RESOURCE_NOTIFY = 30,
	NGAP_PROC_RAN_CONFIGURATION_UPDATE = 35,
	NGAP_PROC_REROUTE_NAS_REQUEST = 36,
	NGAP_PROC_UE_CONTEXT_MODIFICATION = 40,
	NGAP_PROC_UE_CONTEXT_RELEASE = 41,
	NGAP_PROC_UE_CONTEXT_RELEASE_REQUEST = 42,
	NGAP_PROC_UE_RADIO_CAPABILITY_INFO_INDICATION = 44,
	NGAP_PROC_UPLINK_NAS_TRANSPORT = 46,
	NGAP_PROC_UPLINK_RAN_STATUS_TRANSFER = 49,
};

/* ---- common IEs (TS 38.413 9.3) ---- */
struct ngap_plmn { uint8_t v[3]; };              /* 9.3.3.5, TBCD exactly as on the wire */

struct ngap_snssai {                              /* 9.3.1.24 */
	uint8_t sst;
	bool has_sd;
	uint8_t sd[3];
};

struct ngap_tai {                                 /* 9.3.3.11 */
	struct ngap_plmn plmn;
	uint8_t tac[3];
};

struct ngap_guami {                               /* 9.3.3.3 */
	struct ngap_plmn plmn;
	uint8_t region;                           /* AMFRegionID BIT STRING (SIZE(8)) */
	uint16_t set_id;                          /* AMFSetID BIT STRING (SIZE(10)) */
	uint8_t pointer;                          /* AMFPointer BIT STRING (SIZE(6)) */
};

enum ngap_ran_node_kind { NGAP_RAN_GNB = 0, NGAP_RAN_NG_ENB = 1, NGAP_RAN_N3IWF = 2 };
struct ngap_global_ran_node_id {                  /* 9.3.1.5 */
	uint8_t kind;                             /* enum ngap_ran_node_kind; only NGAP_RAN_GNB coded today */
	struct ngap_plmn plmn;
	uint32_t id;                              /* gNB-ID, right-aligned */
	uint8_t id_bits;                          /* 22..32 */
};

struct ngap_nr_cgi {                              /* 9.3.1.7 */
	struct ngap_plmn plmn;
	uint64_t cell_id;                         /* NRCellIdentity BIT STRING (SIZE(36)), right-aligned */
};

struct ngap_uli {                                 /* 9.3.1.16, userLocationInformationNR only */
	struct ngap_nr_cgi nr_cgi;
	struct ngap_tai tai;
	bool has_time_stamp;
	uint8_t time_stamp[4];
};

enum ngap_cause_group {                           /* 9.3.1.2 */
	NGAP_CAUSE_RADIO_NETWORK = 0,
	NGAP_CAUSE_TRANSPORT = 1,
	NGAP_CAUSE_NAS = 2,
	NGAP_CAUSE_PROTOCOL = 3,
	NGAP_CAUSE_MISC = 4,
};
struct ngap_cause {
	uint8_t group;                            /* enum ngap_cause_group */
	uint8_t value;                            /* index in the ENUMERATED; >= root count = extension */
};
/* A few cause values used by the AMF. */
#define NGAP_CAUSE_RN_UNSPECIFIED 0
#define NGAP_CAUSE_RN_USER_INACTIVITY 20
#define NGAP_CAUSE_RN_UNKNOWN_LOCAL_UE_NGAP_ID 14
#define NGAP_CAUSE_RN_INCONSISTENT_REMOTE_UE_NGAP_ID 15
#define NGAP_CAUSE_NAS_NORMAL_RELEASE 0
#define NGAP_CAUSE_NAS_DEREGISTER 2
#define NGAP_CAUSE_PROT_TRANSFER_SYNTAX_ERROR 0
#define NGAP_CAUSE_PROT_ABSTRACT_SYNTAX_ERROR_REJECT 1
#define NGAP_CAUSE_PROT_ABSTRACT_SYNTAX_ERROR_IGNORE_AND_NOTIFY 2
#define NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE 3
#define NGAP_CAUSE_PROT_SEMANTIC_ERROR 4
#define NGAP_CAUSE_PROT_ABSTRACT_SYNTAX_ERROR_FALSELY_CONSTRUCTED 5
#define NGAP_CAUSE_PROT_UNSPECIFIED 6
#define NGAP_CAUSE_MISC_UNSPECIFIED 5
#define NGAP_CAUSE_MISC_UNKNOWN_PLMN 4

enum ngap_type_of_error { NGAP_ERR_NOT_UNDERSTOOD = 0, NGAP_ERR_MISSING = 1 };
struct ngap_diag_ie {
	uint8_t crit;                             /* enum ngap_crit */
	uint16_t id;
	uint8_t type_of_error;                    /* enum ngap_type_of_error */
};
struct ngap_crit_diag {                           /* 9.3.1.3 CriticalityDiagnostics */
	bool has_proc;
	uint8_t proc;
	bool has_trigger;
	uint8_t trigger;                          /* TriggeringMessage: enum ngap_pdu_type */
	bool has_proc_crit;
	uint8_t proc_crit;
	uint8_t n_ies;
	struct ngap_diag_ie ies[NGAP_MAX_DIAG_IES];
};

struct ngap_ue_sec_cap {                          /* 9.3.1.86, each BIT STRING (SIZE(16,...)) */
	uint16_t nr_enc, nr_int, eutra_enc, eutra_int;
};

struct ngap_ambr { uint64_t dl, ul; };            /* BitRate INTEGER (0..4000000000000,...) */

struct ngap_bytes { const uint8_t *p; size_t len; };  /* points into the decoded input */

struct ngap_5g_s_tmsi {                           /* 9.3.3.20 */
	uint16_t set_id;                          /* 10 bits */
	uint8_t pointer;                          /* 6 bits */
	uint8_t tmsi[4];
};

/* One PDU session list item; which fields are used depends on the list (see each message). */
struct ngap_pdu_sess_item {
	uint8_t id;                               /* PDUSessionID INTEGER (0..255) */
	struct ngap_bytes nas;                    /* pDUSessionNAS-PDU (optional where allowed) */
	bool has_snssai;
	struct ngap_snssai snssai;
	struct ngap_bytes transfer;               /* the SM transfer OCTET STRING (decode with ngap_*_transfer) */
};

/* ---- messages ---- */
struct ngap_supported_ta {                        /* SupportedTAItem */
	uint8_t tac[3];
	uint8_t n_plmns;
	struct {
		struct ngap_plmn plmn;
		uint8_t n_slices;                 /* in slices[] (at most NGAP_MAX_SLICES) */
		struct ngap_snssai slices[NGAP_MAX_SLICES];
		uint16_t total_slices;            /* decoded: on the wire (<= 1024); all via ngap_ta_iter */
	} plmns[NGAP_MAX_PLMNS];
};

struct ngap_plmn_support {                        /* PLMNSupportItem */
	struct ngap_plmn plmn;
	uint8_t n_slices;
	struct ngap_snssai slices[NGAP_MAX_SLICES];
};

struct ngap_served_guami {                        /* ServedGUAMIItem */
	struct ngap_guami guami;
	struct ngap_bytes backup_amf_name;        /* optional: len 0 = absent */
};

/* 9.2.6.1 NG SETUP REQUEST */
struct ngap_ng_setup_request {
	struct ngap_global_ran_node_id ran_node_id;
	struct ngap_bytes ran_node_name;          /* optional */
	uint8_t n_tas;                            /* in tas[]: the first NGAP_MAX_TAS of the list */
	struct ngap_supported_ta tas[NGAP_MAX_TAS];
	uint16_t total_tas;                       /* decoded: TAs on the wire (<= NGAP_MAXNOOF_TACS) */
	struct ngap_bytes tas_raw;                /* the SupportedTAList value (ngap_ta_iter); when set for
						   * ngap_encode, sent as is instead of tas[] */
	uint8_t default_paging_drx;               /* PagingDRX: 0=v32 1=v64 2=v128 3=v256 */
	bool has_ue_retention_info;
	uint8_t ue_retention_info;
};

/* 9.2.6.2 NG SETUP RESPONSE */
struct ngap_ng_setup_response {
	struct ngap_bytes amf_name;
	uint8_t n_guamis;
	struct ngap_served_guami guamis[NGAP_MAX_GUAMIS];
	uint8_t relative_capacity;
	uint8_t n_plmns;
	struct ngap_plmn_support plmns[NGAP_MAX_PLMNS];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
	bool has_ue_retention_info;
	uint8_t ue_retention_info;
};

/* 9.2.6.3 NG SETUP FAILURE */
struct ngap_ng_setup_failure {
	struct ngap_cause cause;
	bool has_time_to_wait;
	uint8_t time_to_wait;                     /* 0=v1s 1=v2s 2=v5s 3=v10s 4=v20s 5=v60s */
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.5.1 INITIAL UE MESSAGE */
struct ngap_initial_ue_message {
	uint32_t ran_ue_id;
	struct ngap_bytes nas;
	struct ngap_uli uli;
	uint8_t rrc_cause;                        /* RRCEstablishmentCause */
	bool has_s_tmsi;
	struct ngap_5g_s_tmsi s_tmsi;
	bool has_amf_set_id;
	uint16_t amf_set_id;
	bool has_ue_context_request;              /* UEContextRequest ::= ENUMERATED {requested, ...} */
	uint8_t n_allowed_nssai;
	struct ngap_snssai allowed_nssai[NGAP_MAX_SLICES];
};

/* 9.2.5.2 DOWNLINK NAS TRANSPORT */
struct ngap_downlink_nas_transport {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes old_amf;                /* optional AMFName */
	bool has_ran_paging_priority;
	uint16_t ran_paging_priority;             /* 1..256 */
	struct ngap_bytes nas;
	bool has_index_to_rfsp;
	uint16_t index_to_rfsp;                   /* 1..256 */
	bool has_ue_ambr;
	struct ngap_ambr ue_ambr;
	uint8_t n_allowed_nssai;
	struct ngap_snssai allowed_nssai[NGAP_MAX_SLICES];
};

/* 9.2.5.3 UPLINK NAS TRANSPORT */
struct ngap_uplink_nas_transport {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes nas;
	struct ngap_uli uli;
};

/* 9.2.5.4 NAS NON DELIVERY INDICATION */
struct ngap_nas_non_delivery_indication {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes nas;
	struct ngap_cause cause;
};

/* 9.2.5.5 REROUTE NAS REQUEST */
struct ngap_reroute_nas_request {
	bool has_amf_ue_id;
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes ngap_message;           /* OCTET STRING: the InitialUEMessage to re-send */
	uint16_t amf_set_id;
	uint8_t n_allowed_nssai;
	struct ngap_snssai allowed_nssai[NGAP_MAX_SLICES];
};

/* 9.2.2.1 INITIAL CONTEXT SETUP REQUEST */
struct ngap_initial_context_setup_request {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes old_amf;                /* optional */
	bool has_ue_ambr;
	struct ngap_ambr ue_ambr;
	struct ngap_guami guami;
	uint8_t n_sessions;                       /* PDUSessionResourceSetupListCxtReq (id, nas, snssai, transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_allowed_nssai;
	struct ngap_snssai allowed_nssai[NGAP_MAX_SLICES];
	struct ngap_ue_sec_cap ue_sec_cap;
	uint8_t security_key[32];                 /* SecurityKey BIT STRING (SIZE(256)): K_gNB */
	struct ngap_bytes ue_radio_capability;    /* optional */
	bool has_index_to_rfsp;
	uint16_t index_to_rfsp;
	bool has_masked_imeisv;
	uint8_t masked_imeisv[8];                 /* BIT STRING (SIZE(64)) */
	struct ngap_bytes nas;                    /* optional */
};

/* 9.2.2.2 INITIAL CONTEXT SETUP RESPONSE */
struct ngap_initial_context_setup_response {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_setup;                          /* PDUSessionResourceSetupListCxtRes (id, transfer) */
	struct ngap_pdu_sess_item setup[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_failed;                         /* FailedToSetupListCxtRes (id, unsuccessful transfer) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.2.3 INITIAL CONTEXT SETUP FAILURE */
struct ngap_initial_context_setup_failure {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_failed;                         /* FailedToSetupListCxtFail (id, unsuccessful transfer) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.2.4 UE CONTEXT RELEASE REQUEST */
struct ngap_ue_context_release_request {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_sessions;                       /* PDUSessionResourceListCxtRelReq (id only) */
	uint8_t session_ids[NGAP_MAX_PDU_SESSIONS];
	struct ngap_cause cause;
};

/* 9.2.2.5 UE CONTEXT RELEASE COMMAND: UE-NGAP-IDs is a pair or the AMF id alone */
struct ngap_ue_context_release_command {
	bool has_ran_ue_id;                       /* false: aMF-UE-NGAP-ID alternative */
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_cause cause;
};

/* 9.2.2.6 UE CONTEXT RELEASE COMPLETE */
struct ngap_ue_context_release_complete {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_uli;
	struct ngap_uli uli;
	uint8_t n_sessions;                       /* PDUSessionResourceListCxtRelCpl (id only) */
	uint8_t session_ids[NGAP_MAX_PDU_SESSIONS];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.2.7-9 UE CONTEXT MODIFICATION REQUEST / RESPONSE / FAILURE (subset) */
struct ngap_ue_context_modification_request {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_ran_paging_priority;
	uint16_t ran_paging_priority;
	bool has_security_key;
	uint8_t security_key[32];
	bool has_index_to_rfsp;
	uint16_t index_to_rfsp;
	bool has_ue_ambr;
	struct ngap_ambr ue_ambr;
	bool has_ue_sec_cap;
	struct ngap_ue_sec_cap ue_sec_cap;
	bool has_new_amf_ue_id;
	uint64_t new_amf_ue_id;
};
struct ngap_ue_context_modification_response {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_uli;
	struct ngap_uli uli;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};
struct ngap_ue_context_modification_failure {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.1.1 PDU SESSION RESOURCE SETUP REQUEST */
struct ngap_pdu_session_resource_setup_request {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_ran_paging_priority;
	uint16_t ran_paging_priority;
	struct ngap_bytes nas;                    /* optional */
	uint8_t n_sessions;                       /* PDUSessionResourceSetupListSUReq (id, nas opt, snssai, transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	bool has_ue_ambr;
	struct ngap_ambr ue_ambr;
};

/* 9.2.1.2 PDU SESSION RESOURCE SETUP RESPONSE */
struct ngap_pdu_session_resource_setup_response {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_setup;                          /* SetupListSURes (id, transfer) */
	struct ngap_pdu_sess_item setup[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_failed;                         /* FailedToSetupListSURes (id, unsuccessful transfer) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.1.3 PDU SESSION RESOURCE RELEASE COMMAND */
struct ngap_pdu_session_resource_release_command {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_ran_paging_priority;
	uint16_t ran_paging_priority;
	struct ngap_bytes nas;                    /* optional */
	uint8_t n_sessions;                       /* ToReleaseListRelCmd (id, transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
};

/* 9.2.1.4 PDU SESSION RESOURCE RELEASE RESPONSE */
struct ngap_pdu_session_resource_release_response {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_sessions;                       /* ReleasedListRelRes (id, transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	bool has_uli;
	struct ngap_uli uli;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.1.5/6 PDU SESSION RESOURCE MODIFY REQUEST / RESPONSE */
struct ngap_pdu_session_resource_modify_request {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_ran_paging_priority;
	uint16_t ran_paging_priority;
	uint8_t n_sessions;                       /* ModifyListModReq (id, nas opt, transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
};
struct ngap_pdu_session_resource_modify_response {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_modified;                       /* ModifyListModRes (id, transfer) */
	struct ngap_pdu_sess_item modified[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_failed;                         /* FailedToModifyListModRes (id, unsuccessful transfer) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	bool has_uli;
	struct ngap_uli uli;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.1.7 PDU SESSION RESOURCE NOTIFY */
struct ngap_pdu_session_resource_notify {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_notify;                         /* NotifyList (id, notify transfer) */
	struct ngap_pdu_sess_item notify[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_released;                       /* ReleasedListNot (id, release notify transfer) */
	struct ngap_pdu_sess_item released[NGAP_MAX_PDU_SESSIONS];
	bool has_uli;
	struct ngap_uli uli;
};

/* 9.2.1.8 PDU SESSION RESOURCE MODIFY INDICATION (gNB -> AMF, TS 38.413 8.2.5) */
struct ngap_pdu_session_resource_modify_indication {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_sessions;                       /* ModifyListModInd (id, modify indication transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	bool has_uli;
	struct ngap_uli uli;
};

/* 9.2.1.9 PDU SESSION RESOURCE MODIFY CONFIRM (AMF -> gNB) */
struct ngap_pdu_session_resource_modify_confirm {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_modified;                       /* ModifyListModCfm (id, modify confirm transfer), optional */
	struct ngap_pdu_sess_item modified[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_failed;                         /* FailedToModifyListModCfm (id, indication unsuccessful transfer) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* ERROR INDICATION (TS 38.413 9.2.6) */
struct ngap_error_indication {
	bool has_amf_ue_id;
	uint64_t amf_ue_id;
	bool has_ran_ue_id;
	uint32_t ran_ue_id;
	bool has_cause;
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
	bool has_s_tmsi;
	struct ngap_5g_s_tmsi s_tmsi;
};

/* UE-associatedLogicalNG-connectionItem */
struct ngap_ue_assoc {
	bool has_amf_ue_id;
	uint64_t amf_ue_id;
	bool has_ran_ue_id;
	uint32_t ran_ue_id;
};

/* 9.2.6.11 NG RESET: ResetType nG-Interface (reset all) or partOfNG-Interface (list) */
struct ngap_ng_reset {
	struct ngap_cause cause;
	bool reset_all;
	uint8_t n_ues;                            /* in ues[]: the first NGAP_MAX_UE_ASSOC of the list */
	struct ngap_ue_assoc ues[NGAP_MAX_UE_ASSOC];
	uint32_t total_ues;                       /* decoded: items on the wire (<= 65536) */
	struct ngap_bytes ues_raw;                /* the UE-associatedLogicalNG-connectionList (ngap_ue_assoc_iter);
						   * when set for ngap_encode, sent as is instead of ues[]; copy it
						   * into the acknowledge's ues_raw to echo the whole list (8.7.4.2.2) */
};

/* 9.2.6.12 NG RESET ACKNOWLEDGE */
struct ngap_ng_reset_ack {
	uint8_t n_ues;                            /* optional list */
	struct ngap_ue_assoc ues[NGAP_MAX_UE_ASSOC];
	uint32_t total_ues;                       /* as in struct ngap_ng_reset */
	struct ngap_bytes ues_raw;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.4.1 PAGING */
struct ngap_paging {
	struct ngap_5g_s_tmsi ue_paging_id;       /* UEPagingIdentity: fiveG-S-TMSI */
	bool has_paging_drx;
	uint8_t paging_drx;
	uint8_t n_tais;
	struct ngap_tai tais[NGAP_MAX_TAI_PAGING];
	bool has_paging_priority;
	uint8_t paging_priority;                  /* 0=priolevel1 .. 7=priolevel8 */
	bool has_paging_origin;                   /* PagingOrigin ::= ENUMERATED {non-3gpp, ...} */
	struct ngap_bytes ue_radio_capability_for_paging; /* optional, 9.3.1.68, encoded: e.g. the one of the
						   * UE's last UE RADIO CAPABILITY INFO INDICATION, or
						   * ngap_enc_ue_radio_cap_paging() */
};

/* UE RADIO CAPABILITY INFO INDICATION (TS 38.413 9.2.2) */
struct ngap_ue_radio_capability_info_indication {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes ue_radio_capability;
	struct ngap_bytes ue_radio_capability_for_paging; /* raw UERadioCapabilityForPaging, optional */
};

/* 9.2.6.4-6 RAN CONFIGURATION UPDATE / ACKNOWLEDGE / FAILURE */
struct ngap_ran_configuration_update {
	struct ngap_bytes ran_node_name;          /* optional */
	uint8_t n_tas;                            /* optional */
	struct ngap_supported_ta tas[NGAP_MAX_TAS];
	uint16_t total_tas;                       /* as in struct ngap_ng_setup_request */
	struct ngap_bytes tas_raw;
	bool has_default_paging_drx;
	uint8_t default_paging_drx;
	bool has_ran_node_id;
	struct ngap_global_ran_node_id ran_node_id;
};
struct ngap_ran_configuration_update_ack {
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};
struct ngap_ran_configuration_update_failure {
	struct ngap_cause cause;
	bool has_time_to_wait;
	uint8_t time_to_wait;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.6.7-9 AMF CONFIGURATION UPDATE / ACKNOWLEDGE / FAILURE (TNL association lists not coded) */
struct ngap_amf_configuration_update {
	struct ngap_bytes amf_name;               /* optional */
	uint8_t n_guamis;                         /* optional */
	struct ngap_served_guami guamis[NGAP_MAX_GUAMIS];
	bool has_relative_capacity;
	uint8_t relative_capacity;
	uint8_t n_plmns;                          /* optional */
	struct ngap_plmn_support plmns[NGAP_MAX_PLMNS];
};
struct ngap_amf_configuration_update_ack {
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};
struct ngap_amf_configuration_update_failure {
	struct ngap_cause cause;
	bool has_time_to_wait;
	uint8_t time_to_wait;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* ---- UE mobility management messages (TS 38.413 9.2.3; N2 handover 8.4.1-8.4.6, Xn 8.4.4) ----
 * The transparent containers are opaque to the core and are relayed as they came: Source to Target /
 * Target to Source (Failure) Transparent Containers are OCTET STRINGs; the RAN Status Transfer
 * Transparent Container is a SEQUENCE, kept as its encoded octets (ASN.1 in 9.4.5). */

enum ngap_handover_type { NGAP_HO_INTRA_5GS = 0, NGAP_HO_5GS_TO_EPS = 1, NGAP_HO_EPS_TO_5GS = 2,
			  NGAP_HO_5GS_TO_UTRAN = 3 /* extension value */ };

/* Target ID (TargetID): targetRANNodeID (a gNB and the selected TAI) only; targeteNB-ID is -ENOTSUP */
struct ngap_target_id {
	struct ngap_global_ran_node_id ran_node_id;
	struct ngap_tai tai;
};

/* Security Context (SecurityContext, 9.3.1.88): {NCC, NH} for the target's AS keys (TS 33.501 6.9.2) */
struct ngap_security_context {
	uint8_t ncc;                              /* NextHopChainingCount INTEGER (0..7) */
	uint8_t nh[32];                           /* nextHopNH SecurityKey BIT STRING (SIZE(256)) */
};

/* 9.2.3.1 HANDOVER REQUIRED (source gNB -> AMF) */
struct ngap_handover_required {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t handover_type;                    /* enum ngap_handover_type */
	struct ngap_cause cause;
	struct ngap_target_id target;
	bool has_direct_forwarding;               /* DirectForwardingPathAvailability {direct-path-available} */
	uint8_t n_sessions;                       /* PDUSessionResourceListHORqd (id, Handover Required Transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	struct ngap_bytes source_to_target;       /* SourceToTarget-TransparentContainer */
};

/* 9.2.3.2 HANDOVER COMMAND (AMF -> source gNB) */
struct ngap_handover_command {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t handover_type;
	struct ngap_bytes nas_security_params;    /* optional NASSecurityParametersFromNGRAN (to EPS / UTRAN) */
	uint8_t n_sessions;                       /* PDUSessionResourceHandoverList (id, Handover Command Transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_release;                        /* ToReleaseListHOCmd (id, Handover Preparation Unsuccessful Transfer) */
	struct ngap_pdu_sess_item release[NGAP_MAX_PDU_SESSIONS];
	struct ngap_bytes target_to_source;       /* TargetToSource-TransparentContainer */
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.3.3 HANDOVER PREPARATION FAILURE */
struct ngap_handover_preparation_failure {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
	struct ngap_bytes target_to_source_failure; /* optional TargettoSource-Failure-TransparentContainer */
};

/* 9.2.3.4 HANDOVER REQUEST (AMF -> target gNB) */
struct ngap_handover_request {
	uint64_t amf_ue_id;
	uint8_t handover_type;
	struct ngap_cause cause;
	struct ngap_ambr ue_ambr;
	struct ngap_ue_sec_cap ue_sec_cap;
	struct ngap_security_context security_context;
	bool has_new_security_context_ind;        /* NewSecurityContextInd {true} */
	struct ngap_bytes nasc;                   /* optional NASC (a NAS-PDU) */
	uint8_t n_sessions;                       /* SetupListHOReq (id, snssai, Handover Request Transfer =
						   * a Setup Request Transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_allowed_nssai;
	struct ngap_snssai allowed_nssai[NGAP_MAX_SLICES];
	bool has_masked_imeisv;
	uint8_t masked_imeisv[8];
	struct ngap_bytes source_to_target;
	struct ngap_guami guami;
};

/* 9.2.3.5 HANDOVER REQUEST ACKNOWLEDGE */
struct ngap_handover_request_ack {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_admitted;                       /* AdmittedList (id, Handover Request Acknowledge Transfer) */
	struct ngap_pdu_sess_item admitted[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_failed;                         /* FailedToSetupListHOAck (id, Resource Allocation Unsuccessful) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	struct ngap_bytes target_to_source;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.3.6 HANDOVER FAILURE (no RAN UE NGAP ID: the target allocated none) */
struct ngap_handover_failure {
	uint64_t amf_ue_id;
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
	struct ngap_bytes target_to_source_failure; /* optional */
};

/* 9.2.3.7 HANDOVER NOTIFY (target gNB -> AMF) */
struct ngap_handover_notify {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_uli uli;
	bool has_notify_source;                   /* NotifySourceNGRANNode {notifySource} */
};

/* 9.2.3.8 PATH SWITCH REQUEST (target gNB -> AMF, Xn handover) */
struct ngap_path_switch_request {
	uint32_t ran_ue_id;
	uint64_t source_amf_ue_id;                /* id-SourceAMF-UE-NGAP-ID */
	struct ngap_uli uli;
	struct ngap_ue_sec_cap ue_sec_cap;
	uint8_t n_sessions;                       /* ToBeSwitchedDLList (id, Path Switch Request Transfer) */
	struct ngap_pdu_sess_item sessions[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_failed;                         /* FailedToSetupListPSReq (id, Setup Failed Transfer) */
	struct ngap_pdu_sess_item failed[NGAP_MAX_PDU_SESSIONS];
	bool has_rrc_resume_cause;
	uint8_t rrc_resume_cause;                 /* RRCEstablishmentCause */
};

/* 9.2.3.9 PATH SWITCH REQUEST ACKNOWLEDGE */
struct ngap_path_switch_request_ack {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_ue_sec_cap;
	struct ngap_ue_sec_cap ue_sec_cap;
	struct ngap_security_context security_context;
	bool has_new_security_context_ind;
	uint8_t n_switched;                       /* SwitchedList (id, Path Switch Request Acknowledge Transfer) */
	struct ngap_pdu_sess_item switched[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_released;                       /* ReleasedListPSAck (id, Path Switch Request Unsuccessful) */
	struct ngap_pdu_sess_item released[NGAP_MAX_PDU_SESSIONS];
	uint8_t n_allowed_nssai;
	struct ngap_snssai allowed_nssai[NGAP_MAX_SLICES];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.3.10 PATH SWITCH REQUEST FAILURE */
struct ngap_path_switch_request_failure {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	uint8_t n_released;                       /* ReleasedListPSFail (id, Path Switch Request Unsuccessful) */
	struct ngap_pdu_sess_item released[NGAP_MAX_PDU_SESSIONS];
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.3.11 HANDOVER CANCEL / 9.2.3.12 HANDOVER CANCEL ACKNOWLEDGE */
struct ngap_handover_cancel {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_cause cause;
};
struct ngap_handover_cancel_ack {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.2.3.13 UPLINK / 9.2.3.14 DOWNLINK RAN STATUS TRANSFER: the AMF copies the container over */
struct ngap_ran_status_transfer {
	uint64_t amf_ue_id;
	uint32_t ran_ue_id;
	struct ngap_bytes container;              /* RANStatusTransfer-TransparentContainer, encoded */
};

/* The decoded / to-be-encoded PDU. Which union member is valid follows from (type, proc). */
struct ngap_msg {
	uint8_t type;                             /* enum ngap_pdu_type */
	uint8_t proc;                             /* enum ngap_proc */
	uint8_t crit;                             /* procedure criticality as decoded; ignored by ngap_encode */
	union {
		struct ngap_ng_setup_request ng_setup_request;
		struct ngap_ng_setup_response ng_setup_response;
		struct ngap_ng_setup_failure ng_setup_failure;
		struct ngap_initial_ue_message initial_ue_message;
		struct ngap_downlink_nas_transport downlink_nas_transport;
		struct ngap_uplink_nas_transport uplink_nas_transport;
		struct ngap_nas_non_delivery_indication nas_non_delivery_indication;
		struct ngap_reroute_nas_request reroute_nas_request;
		struct ngap_initial_context_setup_request initial_context_setup_request;
		struct ngap_initial_context_setup_response initial_context_setup_response;
		struct ngap_initial_context_setup_failure initial_context_setup_failure;
		struct ngap_ue_context_release_request ue_context_release_request;
		struct ngap_ue_context_release_command ue_context_release_command;
		struct ngap_ue_context_release_complete ue_context_release_complete;
		struct ngap_ue_context_modification_request ue_context_modification_request;
		struct ngap_ue_context_modification_response ue_context_modification_response;
		struct ngap_ue_context_modification_failure ue_context_modification_failure;
		struct ngap_pdu_session_resource_setup_request pdu_session_resource_setup_request;
		struct ngap_pdu_session_resource_setup_response pdu_session_resource_setup_response;
		struct ngap_pdu_session_resource_release_command pdu_session_resource_release_command;
		struct ngap_pdu_session_resource_release_response pdu_session_resource_release_response;
		struct ngap_pdu_session_resource_modify_request pdu_session_resource_modify_request;
		struct ngap_pdu_session_resource_modify_response pdu_session_resource_modify_response;
		struct ngap_pdu_session_resource_notify pdu_session_resource_notify;
		struct ngap_pdu_session_resource_modify_indication pdu_session_resource_modify_indication;
		struct ngap_pdu_session_resource_modify_confirm pdu_session_resource_modify_confirm;
		struct ngap_error_indication error_indication;
		struct ngap_ng_reset ng_reset;
		struct ngap_ng_reset_ack ng_reset_ack;
		struct ngap_paging paging;
		struct ngap_ue_radio_capability_info_indication ue_radio_capability_info_indication;
		struct ngap_ran_configuration_update ran_configuration_update;
		struct ngap_ran_configuration_update_ack ran_configuration_update_ack;
		struct ngap_ran_configuration_update_failure ran_configuration_update_failure;
		struct ngap_amf_configuration_update amf_configuration_update;
		struct ngap_amf_configuration_update_ack amf_configuration_update_ack;
		struct ngap_amf_configuration_update_failure amf_configuration_update_failure;
		struct ngap_handover_required handover_required;
		struct ngap_handover_command handover_command;
		struct ngap_handover_preparation_failure handover_preparation_failure;
		struct ngap_handover_request handover_request;
		struct ngap_handover_request_ack handover_request_ack;
		struct ngap_handover_failure handover_failure;
		struct ngap_handover_notify handover_notify;
		struct ngap_path_switch_request path_switch_request;
		struct ngap_path_switch_request_ack path_switch_request_ack;
		struct ngap_path_switch_request_failure path_switch_request_failure;
		struct ngap_handover_cancel handover_cancel;
		struct ngap_handover_cancel_ack handover_cancel_ack;
		struct ngap_ran_status_transfer uplink_ran_status_transfer;
		struct ngap_ran_status_transfer downlink_ran_status_transfer;
	} u;
};

/* What to do after a decode, TS 38.413 10.3.4 / 10.3.5. */
enum ngap_action {
	NGAP_ACT_NONE = 0,                        /* all IEs understood */
	NGAP_ACT_IGNORE = 1,                      /* something ignored silently */
	NGAP_ACT_NOTIFY = 2,                      /* continue, and report with Error Indication / CritDiag */
	NGAP_ACT_REJECT = 3,                      /* reject the procedure (failure message or Error Indication) */
};

struct ngap_dec_info {
	size_t err_bit;                           /* bit offset of the first error into the input */
	const char *why;                          /* static reason for a log line, NULL if no error */
	uint8_t action;                           /* enum ngap_action */
	uint16_t ue_ids_seen;                     /* bit 0: AMF-UE-NGAP-ID decoded, bit 1: RAN-UE-NGAP-ID decoded */
	uint64_t amf_ue_id;                       /* valid when ue_ids_seen & 1 (for a reject on a UE message) */
	uint32_t ran_ue_id;                       /* valid when ue_ids_seen & 2 */
	struct ngap_crit_diag diag;               /* procedure, trigger, crit and the offending IEs */
	uint8_t *scratch;                         /* ngap_decode_scratch: where fragmented open types go */
	size_t scratch_cap, scratch_used;
};

/* Decode one NGAP-PDU. info may be NULL. Returns 0, or -EBADMSG (transfer syntax: truncated, overlong,
 * bad length), -ERANGE (a value outside its ASN.1 constraint), -E2BIG (more items than our limits),
 * -EPROTO (an IE to reject, see above), -ENOTSUP (a procedure or CHOICE alternative we do not code).
 * On 0, info->action may still be NGAP_ACT_NOTIFY (send the diagnostics) or NGAP_ACT_IGNORE. */
int ngap_decode(const uint8_t *buf, size_t len, struct ngap_msg *m, struct ngap_dec_info *info);

/* The same, for PDUs whose open types are fragmented (X.691 11.9.3.8: any message value or IE value
 * of 16 KB or more, e.g. an NG Reset with thousands of UEs): their octets are joined into scratch,
 * and pointers in m (NAS-PDUs, raw lists ...) may point there, so scratch must outlive m too.
 * 2 * len octets always suffice (-ENOBUFS if scratch is too small). ngap_decode() is this with no
 * scratch: a fragmented open type is -ENOTSUP there. */
int ngap_decode_scratch(const uint8_t *buf, size_t len, struct ngap_msg *m, struct ngap_dec_info *info,
			uint8_t *scratch, size_t cap);

/* Encode; m->crit is ignored and the procedure's criticality from TS 38.413 9.4 is used. */
int ngap_encode(const struct ngap_msg *m, uint8_t *buf, size_t cap);

/* Name of a message ("NGSetupRequest"), or "?" */
const char *ngap_msg_name(uint8_t type, uint8_t proc);

/* The message on one line for a log: its name, then IE=value for each present IE, e.g.
 * "UplinkNASTransport AMF-UE-NGAP-ID=7 RAN-UE-NGAP-ID=9 NAS-PDU=<2 octets> UserLocationInformation=NR ...".
 * SecurityKey is printed as <redacted>; NAS-PDUs and transfers by length only. snprintf semantics:
 * returns the length the full text needs (truncated to cap - 1), or -ENOTSUP for an unknown message. */
int ngap_msg_str(const struct ngap_msg *m, char *buf, size_t cap);

/* ---- lists longer than the arrays: iterators over the raw octets, and encoders ---- */

/* One slice of a SupportedTAList, flattened: TA ta_idx (its TAC), broadcast PLMN plmn_idx of that TA,
 * slice slice_idx of that PLMN. Every TA has >= 1 PLMN and every PLMN >= 1 slice, so the flat
 * entries list the whole SupportedTAList. */
struct ngap_ta_entry {
	uint16_t ta_idx;
	uint8_t tac[3];
	uint8_t plmn_idx;
	struct ngap_plmn plmn;
	uint16_t slice_idx;
	struct ngap_snssai slice;
};

/* Cursor over a SupportedTAList value (tas_raw of a decoded message). Fields are private. */
struct ngap_ta_iter {
	const uint8_t *buf;
	size_t len, pos;
	int err;
	uint16_t n_tas, ta, n_slices, slice;
	uint8_t n_plmns, plmn;
	uint32_t ta_mask, plmn_mask;
	bool ta_ext, plmn_ext;
	uint8_t tac[3];
	struct ngap_plmn cur_plmn;
};

/* Returns the number of TAs in the list (0 for an empty raw), or a negative errno. */
int ngap_ta_iter_init(struct ngap_ta_iter *it, struct ngap_bytes raw);
/* 1 and *e filled, 0 at the end, or a negative errno (a list ngap_decode accepted does not fail). */
int ngap_ta_iter_next(struct ngap_ta_iter *it, struct ngap_ta_entry *e);
/* Encode a SupportedTAList value from n flat entries (grouped by ta_idx, then plmn_idx, in order)
 * into buf, for tas_raw: returns its length, -EINVAL (n == 0, more than 256 TAs, 12 PLMNs per TA or
 * 1024 slices per PLMN) or -ENOSPC. */
int ngap_enc_ta_list(const struct ngap_ta_entry *e, size_t n, uint8_t *buf, size_t cap);

/* Cursor over a UE-associatedLogicalNG-connectionList value (ues_raw of NG Reset / Acknowledge). */
struct ngap_ue_assoc_iter {
	const uint8_t *buf;
	size_t len, pos;
	int err;
	uint32_t left;                            /* items left in this fragment */
	bool more;                                /* another fragment follows */
	uint32_t total;
};

/* Returns the number of items (counting every fragment), or a negative errno. */
int ngap_ue_assoc_iter_init(struct ngap_ue_assoc_iter *it, struct ngap_bytes raw);
/* 1 and *u filled, 0 at the end, or a negative errno. */
int ngap_ue_assoc_iter_next(struct ngap_ue_assoc_iter *it, struct ngap_ue_assoc *u);
/* Encode the list of n items (1..65536, fragmented from 16384 on) into buf, for ues_raw: returns its
 * length, -EINVAL or -ENOSPC. */
int ngap_enc_ue_assoc_list(const struct ngap_ue_assoc *u, size_t n, uint8_t *buf, size_t cap);

/* ---- SM transfer containers (TS 38.413 9.3.4), carried as OCTET STRINGs between SMF and gNB ---- */
struct ngap_gtp_tunnel {                          /* UPTransportLayerInformation: gTPTunnel */
	uint8_t addr[NGAP_MAX_TNL_ADDR];          /* TransportLayerAddress, left-aligned bits */
	uint8_t addr_bits;                        /* 32 = IPv4, 128 = IPv6, 160 = both */
	uint8_t teid[4];
};

struct ngap_qos_flow_setup {                      /* QosFlowSetupRequestItem */
	uint8_t qfi;                              /* 0..63 */
	bool dynamic;                             /* false: nonDynamic5QI; true: dynamic5QI (not coded: -ENOTSUP) */
	uint8_t five_qi;
	bool has_priority_level;
	uint8_t priority_level;                   /* 1..127 */
	uint8_t arp_priority;                     /* 1..15 */
	uint8_t arp_preempt_cap;                  /* 0 shall-not-trigger, 1 may-trigger */
	uint8_t arp_preempt_vuln;                 /* 0 not-pre-emptable, 1 pre-emptable */
	bool has_gbr;
	struct ngap_ambr gbr_max, gbr_guaranteed; /* GBR-QosInformation: maximum / guaranteed flow bit rates */
	bool params_absent;                       /* Modify Request Transfer only: no qosFlowLevelQosParameters */
};

enum ngap_pdu_session_type { NGAP_PDU_IPV4 = 0, NGAP_PDU_IPV6 = 1, NGAP_PDU_IPV4V6 = 2, NGAP_PDU_ETHERNET = 3,
			     NGAP_PDU_UNSTRUCTURED = 4 };

/* 9.3.4.1 PDU Session Resource Setup Request Transfer */
struct ngap_setup_request_transfer {
	bool has_session_ambr;
	struct ngap_ambr session_ambr;
	struct ngap_gtp_tunnel ul_tunnel;         /* UL-NGU-UP-TNLInformation */
	uint8_t pdu_session_type;
	struct ngap_bytes network_instance;       /* unused: NetworkInstance is INTEGER; kept 0-length */
	uint8_t n_flows;
	struct ngap_qos_flow_setup flows[NGAP_MAX_QOS_FLOWS];
};

struct ngap_qos_flow_cause {                      /* QosFlowWithCauseItem */
	uint8_t qfi;
	struct ngap_cause cause;
};

/* 9.3.4.2 PDU Session Resource Setup Response Transfer */
struct ngap_setup_response_transfer {
	struct ngap_gtp_tunnel dl_tunnel;
	uint8_t n_flows;                          /* associatedQosFlowList */
	uint8_t qfis[NGAP_MAX_QOS_FLOWS];
	uint8_t n_failed;                         /* qosFlowFailedToSetupList (optional) */
	struct ngap_qos_flow_cause failed[NGAP_MAX_QOS_FLOWS];
};

/* 9.3.4.16 PDU Session Resource Setup Unsuccessful Transfer */
struct ngap_setup_unsuccessful_transfer {
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* 9.3.4.12 PDU Session Resource Release Command Transfer */
struct ngap_release_command_transfer {
	struct ngap_cause cause;
};

/* 9.3.4.21 PDU Session Resource Release Response Transfer (only extensions; nothing to carry) */
struct ngap_release_response_transfer {
	uint8_t unused;
};

/* 9.3.4.3 PDU Session Resource Modify Request Transfer (subset) */
struct ngap_modify_request_transfer {
	bool has_session_ambr;
	struct ngap_ambr session_ambr;
	uint8_t n_flows;                          /* QosFlowAddOrModifyRequestList (optional) */
	struct ngap_qos_flow_setup flows[NGAP_MAX_QOS_FLOWS];
	uint8_t n_release;                        /* QosFlowToReleaseList (optional) */
	struct ngap_qos_flow_cause release[NGAP_MAX_QOS_FLOWS];
};

/* 9.3.4.4 PDU Session Resource Modify Response Transfer (subset) */
struct ngap_modify_response_transfer {
	bool has_dl_tunnel;
	struct ngap_gtp_tunnel dl_tunnel;
	bool has_ul_tunnel;
	struct ngap_gtp_tunnel ul_tunnel;
	uint8_t n_flows;                          /* qosFlowAddOrModifyResponseList (optional) */
	uint8_t qfis[NGAP_MAX_QOS_FLOWS];
};

/* 9.3.4.5 PDU Session Resource Notify Transfer (gNB -> SMF: QoS flows notified or released) */
enum ngap_notification_cause { NGAP_NOTIF_FULFILLED = 0, NGAP_NOTIF_NOT_FULFILLED = 1 };
struct ngap_qos_flow_notify {                     /* QosFlowNotifyItem */
	uint8_t qfi;
	uint8_t cause;                            /* enum ngap_notification_cause */
};
struct ngap_notify_transfer {
	uint8_t n_notify;                         /* qosFlowNotifyList (optional) */
	struct ngap_qos_flow_notify notify[NGAP_MAX_QOS_FLOWS];
	uint8_t n_released;                       /* qosFlowReleasedList (optional) */
	struct ngap_qos_flow_cause released[NGAP_MAX_QOS_FLOWS];
};

/* 9.3.4.x PDU Session Resource Notify Released Transfer (ReleasedListNot items) */
struct ngap_notify_released_transfer {
	struct ngap_cause cause;
};

/* 9.3.4.6 PDU Session Resource Modify Indication Transfer (gNB -> SMF: the new DL tunnel) */
struct ngap_modify_indication_transfer {
	struct ngap_gtp_tunnel dl_tunnel;         /* dLQosFlowPerTNLInformation */
	uint8_t n_flows;                          /* its associatedQosFlowList */
	uint8_t qfis[NGAP_MAX_QOS_FLOWS];
	/* additionalDLQosFlowPerTNLInformation (dual connectivity): parsed and dropped */
};

/* 9.3.4.7 PDU Session Resource Modify Confirm Transfer (SMF -> gNB) */
struct ngap_modify_confirm_transfer {
	uint8_t n_flows;                          /* qosFlowModifyConfirmList */
	uint8_t qfis[NGAP_MAX_QOS_FLOWS];
	struct ngap_gtp_tunnel ul_tunnel;         /* uLNGU-UP-TNLInformation */
	uint8_t n_failed;                         /* qosFlowFailedToModifyList (optional) */
	struct ngap_qos_flow_cause failed[NGAP_MAX_QOS_FLOWS];
	/* additionalNG-UUPTNLInformation: parsed and dropped, never sent */
};

/* 9.3.4.x PDU Session Resource Modify Indication Unsuccessful Transfer (FailedToModifyListModCfm) */
struct ngap_modify_indication_unsuccessful_transfer {
	struct ngap_cause cause;
};

/* Each returns 0 / a length, or a negative errno as above; info may be NULL. */
int ngap_dec_notify_transfer(const uint8_t *buf, size_t len, struct ngap_notify_transfer *t,
			     struct ngap_dec_info *info);
int ngap_enc_notify_transfer(const struct ngap_notify_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_notify_released_transfer(const uint8_t *buf, size_t len, struct ngap_notify_released_transfer *t,
				      struct ngap_dec_info *info);
int ngap_enc_notify_released_transfer(const struct ngap_notify_released_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_modify_indication_transfer(const uint8_t *buf, size_t len, struct ngap_modify_indication_transfer *t,
					struct ngap_dec_info *info);
int ngap_enc_modify_indication_transfer(const struct ngap_modify_indication_transfer *t, uint8_t *buf,
					size_t cap);
int ngap_dec_modify_confirm_transfer(const uint8_t *buf, size_t len, struct ngap_modify_confirm_transfer *t,
				     struct ngap_dec_info *info);
int ngap_enc_modify_confirm_transfer(const struct ngap_modify_confirm_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_modify_indication_unsuccessful_transfer(const uint8_t *buf, size_t len,
						     struct ngap_modify_indication_unsuccessful_transfer *t,
						     struct ngap_dec_info *info);
int ngap_enc_modify_indication_unsuccessful_transfer(const struct ngap_modify_indication_unsuccessful_transfer *t,
						     uint8_t *buf, size_t cap);

/* 9.3.1.68 UERadioCapabilityForPaging { uERadioCapabilityForPagingOfNR OCTET STRING OPTIONAL,
 * ...OfEUTRA OCTET STRING OPTIONAL }: the encoded value (for the ue_radio_capability_for_paging fields)
 * from its parts (a part with .p NULL is absent), and back (pointers into raw). */
int ngap_enc_ue_radio_cap_paging(struct ngap_bytes nr, struct ngap_bytes eutra, uint8_t *buf, size_t cap);
int ngap_dec_ue_radio_cap_paging(struct ngap_bytes raw, struct ngap_bytes *nr, struct ngap_bytes *eutra);

/* Each returns 0 / a length, or a negative errno as above; info may be NULL. */
int ngap_dec_setup_request_transfer(const uint8_t *buf, size_t len, struct ngap_setup_request_transfer *t,
				    struct ngap_dec_info *info);
int ngap_enc_setup_request_transfer(const struct ngap_setup_request_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_setup_response_transfer(const uint8_t *buf, size_t len, struct ngap_setup_response_transfer *t,
				     struct ngap_dec_info *info);
int ngap_enc_setup_response_transfer(const struct ngap_setup_response_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_setup_unsuccessful_transfer(const uint8_t *buf, size_t len,
					 struct ngap_setup_unsuccessful_transfer *t, struct ngap_dec_info *info);
int ngap_enc_setup_unsuccessful_transfer(const struct ngap_setup_unsuccessful_transfer *t, uint8_t *buf,
					 size_t cap);
int ngap_dec_release_command_transfer(const uint8_t *buf, size_t len, struct ngap_release_command_transfer *t,
				      struct ngap_dec_info *info);
int ngap_enc_release_command_transfer(const struct ngap_release_command_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_release_response_transfer(const uint8_t *buf, size_t len,
				       struct ngap_release_response_transfer *t, struct ngap_dec_info *info);
int ngap_enc_release_response_transfer(const struct ngap_release_response_transfer *t, uint8_t *buf,
				       size_t cap);
int ngap_dec_modify_request_transfer(const uint8_t *buf, size_t len, struct ngap_modify_request_transfer *t,
				     struct ngap_dec_info *info);
int ngap_enc_modify_request_transfer(const struct ngap_modify_request_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_modify_response_transfer(const uint8_t *buf, size_t len, struct ngap_modify_response_transfer *t,
				      struct ngap_dec_info *info);
int ngap_enc_modify_response_transfer(const struct ngap_modify_response_transfer *t, uint8_t *buf,
				      size_t cap);

/* ---- SM transfers of the handover and path switch procedures (TS 38.413 9.3.4; SMF <-> gNB through the
 * AMF, TS 23.502 4.9.1.2.2, 4.9.1.3) ---- */

/* Security Indication / Security Result (9.3.1.27, 9.3.1.59): ENUMERATED values as indices */
struct ngap_security_indication {
	uint8_t integrity;                        /* 0 required, 1 preferred, 2 not-needed */
	uint8_t confidentiality;                  /* same values */
	bool has_max_ip_rate_ul;
	uint8_t max_ip_rate_ul;                   /* MaximumIntegrityProtectedDataRate: 0 64 kbps, 1 maximum UE rate */
};
struct ngap_security_result {
	uint8_t integrity;                        /* 0 performed, 1 not-performed */
	uint8_t confidentiality;
};

/* Handover Required Transfer (9.3.4.13) */
struct ngap_ho_required_transfer {
	bool has_direct_forwarding;               /* directForwardingPathAvailability */
};

/* One DataForwardingResponseDRBItem: the target's forwarding tunnels per DRB */
struct ngap_drb_forwarding {
	uint8_t drb_id;                           /* DRB-ID INTEGER (1..32, ...) */
	bool has_dl;
	struct ngap_gtp_tunnel dl;
	bool has_ul;
	struct ngap_gtp_tunnel ul;
};

/* Handover Command Transfer (9.3.4.10): where the source forwards data to */
struct ngap_ho_command_transfer {
	bool has_dl_forwarding;
	struct ngap_gtp_tunnel dl_forwarding;     /* dLForwardingUP-TNLInformation */
	uint8_t n_flows;                          /* qosFlowToBeForwardedList (optional) */
	uint8_t qfis[NGAP_MAX_QOS_FLOWS];
	uint8_t n_drbs;                           /* dataForwardingResponseDRBList (optional) */
	struct ngap_drb_forwarding drbs[NGAP_MAX_DRBS];
};

/* QosFlowItemWithDataForwarding */
struct ngap_qos_flow_fwd {
	uint8_t qfi;
	bool forwarding_accepted;                 /* dataForwardingAccepted present */
};

/* Handover Request Acknowledge Transfer (9.3.4.11) */
struct ngap_ho_request_ack_transfer {
	struct ngap_gtp_tunnel dl_tunnel;         /* dL-NGU-UP-TNLInformation */
	bool has_dl_forwarding;
	struct ngap_gtp_tunnel dl_forwarding;     /* dLForwardingUP-TNLInformation */
	bool has_security_result;
	struct ngap_security_result security_result;
	uint8_t n_flows;                          /* qosFlowSetupResponseList */
	struct ngap_qos_flow_fwd flows[NGAP_MAX_QOS_FLOWS];
	uint8_t n_failed;                         /* qosFlowFailedToSetupList (optional) */
	struct ngap_qos_flow_cause failed[NGAP_MAX_QOS_FLOWS];
	uint8_t n_drbs;                           /* dataForwardingResponseDRBList (optional) */
	struct ngap_drb_forwarding drbs[NGAP_MAX_DRBS];
};

/* Path Switch Request Transfer (9.3.4.8): the target gNB's DL tunnel */
struct ngap_path_switch_request_transfer {
	struct ngap_gtp_tunnel dl_tunnel;         /* dL-NGU-UP-TNLInformation */
	bool dl_tnl_reused;                       /* dL-NGU-TNLInformationReused {true} */
	bool has_up_security;                     /* userPlaneSecurityInformation */
	struct ngap_security_result up_security_result;
	struct ngap_security_indication up_security_indication;
	uint8_t n_flows;                          /* qosFlowAcceptedList */
	uint8_t qfis[NGAP_MAX_QOS_FLOWS];
};

/* Path Switch Request Acknowledge Transfer (9.3.4.9) */
struct ngap_path_switch_request_ack_transfer {
	bool has_ul_tunnel;
	struct ngap_gtp_tunnel ul_tunnel;         /* uL-NGU-UP-TNLInformation */
	bool has_security_indication;
	struct ngap_security_indication security_indication;
};

/* {cause, iE-Extensions, ...}: Handover Preparation Unsuccessful (9.3.4.18), Path Switch Request Setup
 * Failed (9.3.4.14) and Path Switch Request Unsuccessful (9.3.4.15) Transfers */
struct ngap_cause_transfer {
	struct ngap_cause cause;
};

/* Handover Resource Allocation Unsuccessful Transfer (9.3.4.19): the shape of the Setup Unsuccessful one */
struct ngap_ho_resource_alloc_unsuccessful_transfer {
	struct ngap_cause cause;
	bool has_crit_diag;
	struct ngap_crit_diag crit_diag;
};

/* Each returns 0 / a length, or a negative errno as above; info may be NULL. The Handover Request Transfer
 * is a PDU Session Resource Setup Request Transfer (ngap_*_setup_request_transfer). */
int ngap_dec_ho_required_transfer(const uint8_t *buf, size_t len, struct ngap_ho_required_transfer *t,
				  struct ngap_dec_info *info);
int ngap_enc_ho_required_transfer(const struct ngap_ho_required_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_ho_command_transfer(const uint8_t *buf, size_t len, struct ngap_ho_command_transfer *t,
				 struct ngap_dec_info *info);
int ngap_enc_ho_command_transfer(const struct ngap_ho_command_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_ho_request_ack_transfer(const uint8_t *buf, size_t len, struct ngap_ho_request_ack_transfer *t,
				     struct ngap_dec_info *info);
int ngap_enc_ho_request_ack_transfer(const struct ngap_ho_request_ack_transfer *t, uint8_t *buf, size_t cap);
int ngap_dec_ho_resource_alloc_unsuccessful_transfer(const uint8_t *buf, size_t len,
						     struct ngap_ho_resource_alloc_unsuccessful_transfer *t,
						     struct ngap_dec_info *info);
int ngap_enc_ho_resource_alloc_unsuccessful_transfer(const struct ngap_ho_resource_alloc_unsuccessful_transfer *t,
						     uint8_t *buf, size_t cap);
int ngap_dec_path_switch_request_transfer(const uint8_t *buf, size_t len,
					  struct ngap_path_switch_request_transfer *t, struct ngap_dec_info *info);
int ngap_enc_path_switch_request_transfer(const struct ngap_path_switch_request_transfer *t, uint8_t *buf,
					  size_t cap);
int ngap_dec_path_switch_request_ack_transfer(const uint8_t *buf, size_t len,
					      struct ngap_path_switch_request_ack_transfer *t,
					      struct ngap_dec_info *info);
int ngap_enc_path_switch_request_ack_transfer(const struct ngap_path_switch_request_ack_transfer *t, uint8_t *buf,
					      size_t cap);
/* the three {cause} transfers above share one codec */
int ngap_dec_cause_transfer(const uint8_t *buf, size_t len, struct ngap_cause_transfer *t,
			    struct ngap_dec_info *info);
int ngap_enc_cause_transfer(const struct ngap_cause_transfer *t, uint8_t *buf, size_t cap);

#endif
