/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * nas - 5GS NAS codec (TS 24.501): framing (plain and security protected,
 * 9.1-9.3), the 5GMM (8.2) and 5GSM (8.3) messages of registration,
 * authentication, identification, security mode, service request,
 * configuration update, deregistration, UL/DL NAS transport, PDU session
 * establishment / modification / release and the status messages, and their
 * information elements (9.11).
 *
 * Rules:
 *  - Decoders never allocate and never read past their input. Variable parts
 *    of a decoded message (struct nas_buf) point INTO the input buffer, which
 *    must outlive the decoded struct. Counted items live in bounded arrays
 *    whose limits are the NAS_*_MAX constants below (3GPP limits where the
 *    spec has one); more items than that is an error, never a truncation.
 *  - Encoders write into a caller buffer and return the number of bytes
 *    written or a negative errno (-ENOSPC if the buffer is too small,
 *    -EINVAL / -ERANGE for an input that cannot be encoded).
 *  - Every decode error is a negative errno plus a struct nas_err with the
 *    byte offset (from the start of the buffer given to the call) and a
 *    static reason string a log line can show:
 *      -EBADMSG  truncated input, wrong IE length, malformed contents
 *      -ERANGE   a value outside its allowed range
 *      -ENOMSG   unknown extended protocol discriminator or message type
 *      -E2BIG    more items than a NAS_*_MAX limit
 *      -EPROTO   unknown comprehension-required IE (TS 24.501 7.5, TS 24.007 11.2.4),
 *                or a security-protected message passed to nas_decode()
 *  - Unknown optional IEs are skipped (TS 24.501 7.6.1); a repeated IE keeps
 *    its first occurrence (7.6.3); optional IEs are accepted in any order.
 *  - nas_decode() is strict about malformed optional IEs too;
 *    nas_decode_ex(NAS_DEC_LENIENT) drops them as TS 24.501 7.5 says a
 *    receiver should (see there), for messages coming from UEs.
 *  - Security: this codec frames the security-protected header and exposes
 *    the MAC, the sequence number and the byte range the MAC covers
 *    (TS 24.501 4.4.3 / TS 33.501 D.3: the sequence number and the NAS
 *    message). Ciphering and integrity live in common/crypto and the AMF.
 *  - to_str functions never print key material: RES*, AUTS and EAP
 *    payloads are redacted.
 */
#ifndef SOLOCORE_COMMON_NAS_NAS_H
#define SOLOCORE_COMMON_NAS_NAS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- limits (named, next to the codec; STYLE.md "Named limits") ---- */
#define NAS_MSG_MAX_LEN        65535 /* largest plain NAS message we encode or accept */
#define NAS_NSSAI_MAX          16    /* TS 24.501 9.11.3.37: configured NSSAI up to 16 S-NSSAI */
#define NAS_TAI_MAX            16    /* TS 24.501 9.11.3.9: at most 16 TAIs in a TAI list */
#define NAS_TAI_LISTS_MAX      16    /* partial tracking area lists in one TAI list */
#define NAS_QOS_RULES_MAX      16    /* QoS rules parsed from one QoS rules IE */
#define NAS_QOS_FILTERS_MAX    16    /* TS 24.501 9.11.4.13: 4-bit number of packet filters */
#define NAS_QOS_FLOWS_MAX      16    /* QoS flow descriptions parsed from one IE */
#define NAS_QOS_PARAMS_MAX     8     /* parameters per QoS flow description */
#define NAS_PCO_MAX            32    /* protocol/container entries in one (E)PCO */
#define NAS_MOBID_DIGITS_MAX   16    /* IMEI 15 / IMEISV 16 digits */
#define NAS_SEC_HDR_LEN        7     /* EPD, SHT, MAC(4), SQN: TS 24.501 9.1.1 */

/* ---- framing constants ---- */
enum nas_epd { NAS_EPD_5GSM = 0x2e, NAS_EPD_5GMM = 0x7e }; /* TS 24.007 11.2.3.1.1A */

/* TS 24.501 9.3.1 security header type */
enum nas_sht {
	NAS_SHT_PLAIN = 0,
	NAS_SHT_INTEGRITY = 1,
	NAS_SHT_INTEGRITY_CIPHERED = 2,
	NAS_SHT_INTEGRITY_NEW_CTX = 3,          /* security mode command */
	NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX = 4, /* security mode complete */
};

/* TS 24.501 9.7 message types */
enum nas_msg_type {
	/* 5GMM */
	NAS_REGISTRATION_REQUEST = 0x41,
	NAS_REGISTRATION_ACCEPT = 0x42,
	NAS_REGISTRATION_COMPLETE = 0x43,
	NAS_REGISTRATION_REJECT = 0x44,
	NAS_DEREGISTRATION_REQUEST_UE_ORIG = 0x45,
	NAS_DEREGISTRATION_ACCEPT_UE_ORIG = 0x46,
	NAS_DEREGISTRATION_REQUEST_UE_TERM = 0x47,
	NAS_DEREGISTRATION_ACCEPT_UE_TERM = 0x48,
	NAS_SERVICE_REQUEST = 0x4c,
	NAS_SERVICE_REJECT = 0x4d,
	NAS_SERVICE_ACCEPT = 0x4e,
	NAS_CONFIGURATION_UPDATE_COMMAND = 0x54,
	NAS_CONFIGURATION_UPDATE_COMPLETE = 0x55,
	NAS_AUTHENTICATION_REQUEST = 0x56,
	NAS_AUTHENTICATION_RESPONSE = 0x57,
	NAS_AUTHENTICATION_REJECT = 0x58,
	NAS_AUTHENTICATION_FAILURE = 0x59,
	NAS_AUTHENTICATION_RESULT = 0x5a,
	NAS_IDENTITY_REQUEST = 0x5b,
	NAS_IDENTITY_RESPONSE = 0x5c,
	NAS_SECURITY_MODE_COMMAND = 0x5d,
	NAS_SECURITY_MODE_COMPLETE = 0x5e,
	NAS_SECURITY_MODE_REJECT = 0x5f,
	NAS_5GMM_STATUS = 0x64,
	NAS_UL_NAS_TRANSPORT = 0x67,
	NAS_DL_NAS_TRANSPORT = 0x68,
	/* 5GSM */
	NAS_PDU_SESSION_ESTABLISHMENT_REQUEST = 0xc1,
	NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT = 0xc2,
	NAS_PDU_SESSION_ESTABLISHMENT_REJECT = 0xc3,
	NAS_PDU_SESSION_MODIFICATION_REQUEST = 0xc9,
	NAS_PDU_SESSION_MODIFICATION_REJECT = 0xca,
	NAS_PDU_SESSION_MODIFICATION_COMMAND = 0xcb,
	NAS_PDU_SESSION_MODIFICATION_COMPLETE = 0xcc,
	NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT = 0xcd,
	NAS_PDU_SESSION_RELEASE_REQUEST = 0xd1,
	NAS_PDU_SESSION_RELEASE_REJECT = 0xd2,
	NAS_PDU_SESSION_RELEASE_COMMAND = 0xd3,
	NAS_PDU_SESSION_RELEASE_COMPLETE = 0xd4,
	NAS_5GSM_STATUS = 0xd6,
};

/* TS 24.501 9.11.3.2 5GMM cause (the ones the core sends or must recognise) */
enum nas_5gmm_cause {
	NAS_5GMM_ILLEGAL_UE = 3,
	NAS_5GMM_PEI_NOT_ACCEPTED = 5,
	NAS_5GMM_ILLEGAL_ME = 6,
	NAS_5GMM_5GS_SERVICES_NOT_ALLOWED = 7,
	NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED = 9,
	NAS_5GMM_IMPLICITLY_DEREGISTERED = 10,
	NAS_5GMM_PLMN_NOT_ALLOWED = 11,
	NAS_5GMM_TA_NOT_ALLOWED = 12,
	NAS_5GMM_ROAMING_NOT_ALLOWED_IN_TA = 13,
	NAS_5GMM_NO_SUITABLE_CELLS_IN_TA = 15,
	NAS_5GMM_MAC_FAILURE = 20,
	NAS_5GMM_SYNCH_FAILURE = 21,
	NAS_5GMM_CONGESTION = 22,
	NAS_5GMM_UE_SECURITY_CAP_MISMATCH = 23,
	NAS_5GMM_SEC_MODE_REJECTED_UNSPECIFIED = 24,
	NAS_5GMM_NON_5G_AUTH_UNACCEPTABLE = 26,
	NAS_5GMM_N1_MODE_NOT_ALLOWED = 27,
	NAS_5GMM_RESTRICTED_SERVICE_AREA = 28,
	NAS_5GMM_NGKSI_ALREADY_IN_USE = 71,
	NAS_5GMM_PAYLOAD_NOT_FORWARDED = 90,
	NAS_5GMM_DNN_NOT_SUPPORTED_IN_SLICE = 91,
	NAS_5GMM_INSUFFICIENT_RESOURCES_SLICE_DNN = 92,
	NAS_5GMM_SEMANTICALLY_INCORRECT = 95,
	NAS_5GMM_INVALID_MANDATORY_INFO = 96,
	NAS_5GMM_MSG_TYPE_NON_EXISTENT = 97,
	NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE = 98,
	NAS_5GMM_IE_NON_EXISTENT = 99,
	NAS_5GMM_CONDITIONAL_IE_ERROR = 100,
	NAS_5GMM_MSG_NOT_COMPATIBLE = 101,
	NAS_5GMM_PROTOCOL_ERROR_UNSPECIFIED = 111,
};

/* TS 24.501 9.11.4.2 5GSM cause (selection) */
enum nas_5gsm_cause {
	NAS_5GSM_INSUFFICIENT_RESOURCES = 26,
	NAS_5GSM_MISSING_OR_UNKNOWN_DNN = 27,
	NAS_5GSM_UNKNOWN_PDU_SESSION_TYPE = 28,
	NAS_5GSM_USER_AUTH_FAILED = 29,
	NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED = 31,
	NAS_5GSM_SERVICE_OPTION_NOT_SUPPORTED = 32,
	NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED = 33,
	NAS_5GSM_PTI_ALREADY_IN_USE = 35,
	NAS_5GSM_REGULAR_DEACTIVATION = 36,
	NAS_5GSM_NETWORK_FAILURE = 38,
	NAS_5GSM_REACTIVATION_REQUESTED = 39,
	NAS_5GSM_INVALID_PDU_SESSION_ID = 43,
	NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED = 50,
	NAS_5GSM_PDU_TYPE_IPV6_ONLY_ALLOWED = 51,
	NAS_5GSM_PDU_SESSION_DOES_NOT_EXIST = 54,
	NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE_DNN = 67,
	NAS_5GSM_NOT_SUPPORTED_SSC_MODE = 68,
	NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE = 69,
	NAS_5GSM_MISSING_OR_UNKNOWN_DNN_IN_SLICE = 70,
	NAS_5GSM_INVALID_PTI = 81,
	NAS_5GSM_SEMANTICALLY_INCORRECT = 95,
	NAS_5GSM_INVALID_MANDATORY_INFO = 96,
	NAS_5GSM_MSG_TYPE_NON_EXISTENT = 97,
	NAS_5GSM_MSG_TYPE_NOT_COMPATIBLE = 98,
	NAS_5GSM_IE_NON_EXISTENT = 99,
	NAS_5GSM_CONDITIONAL_IE_ERROR = 100,
	NAS_5GSM_MSG_NOT_COMPATIBLE = 101,
	NAS_5GSM_PROTOCOL_ERROR_UNSPECIFIED = 111,
};

/* Values of the small IEs (half octets and single octets), TS 24.501 9.11 */
enum nas_reg_type {                     /* 9.11.3.7, bits 1-3 of reg_type */
	NAS_REG_INITIAL = 1, NAS_REG_MOBILITY = 2, NAS_REG_PERIODIC = 3, NAS_REG_EMERGENCY = 4,
	NAS_REG_SNPN_ONBOARDING = 5,
};
#define NAS_REG_FOLLOW_ON_REQ   0x8     /* 9.11.3.7 bit 4: follow-on request pending */
#define NAS_NGKSI_NO_KEY        7       /* 9.11.3.32: no key is available */
#define NAS_NGKSI_TSC_MAPPED    0x8     /* 9.11.3.32 bit 4: mapped security context */
enum nas_reg_result {                   /* 9.11.3.6 bits 1-3 */
	NAS_REG_RESULT_3GPP = 1, NAS_REG_RESULT_NON_3GPP = 2, NAS_REG_RESULT_BOTH = 3,
};
#define NAS_REG_RESULT_SMS_ALLOWED 0x8  /* 9.11.3.6 bit 4 */
#define NAS_DEREG_SWITCH_OFF    0x8     /* 9.11.3.20 bit 4, UE originating */
#define NAS_DEREG_REREG_REQUIRED 0x8    /* 9.11.3.20 bit 4, UE terminated */
enum nas_access_type { NAS_ACCESS_3GPP = 1, NAS_ACCESS_NON_3GPP = 2, NAS_ACCESS_BOTH = 3 }; /* bits 1-2 */
enum nas_payload_type {                 /* 9.11.3.40 */
	NAS_PAYLOAD_N1_SM = 1, NAS_PAYLOAD_SMS = 2, NAS_PAYLOAD_LPP = 3, NAS_PAYLOAD_SOR = 4,
	NAS_PAYLOAD_UE_POLICY = 5, NAS_PAYLOAD_UE_PARAMS_UPDATE = 6, NAS_PAYLOAD_LCS = 7,
	NAS_PAYLOAD_CIOT = 8, NAS_PAYLOAD_MULTIPLE = 15,
};
enum nas_request_type {                 /* 9.11.3.47 */
	NAS_REQ_INITIAL = 1, NAS_REQ_EXISTING_PDU_SESSION = 2, NAS_REQ_INITIAL_EMERGENCY = 3,
	NAS_REQ_EXISTING_EMERGENCY = 4, NAS_REQ_MODIFICATION = 5, NAS_REQ_MA_PDU = 6,
};
enum nas_service_type {                 /* 9.11.3.50 */
	NAS_SVC_SIGNALLING = 0, NAS_SVC_DATA = 1, NAS_SVC_MT_SERVICES = 2, NAS_SVC_EMERGENCY = 3,
	NAS_SVC_EMERGENCY_FALLBACK = 4, NAS_SVC_HIGH_PRIORITY = 5, NAS_SVC_ELEVATED_SIGNALLING = 6,
};
enum nas_ssc_mode { NAS_SSC_MODE_1 = 1, NAS_SSC_MODE_2 = 2, NAS_SSC_MODE_3 = 3 }; /* 9.11.4.16 */
/* 9.11.3.34 NAS security algorithms octet: ciphering bits 8-5, integrity bits 4-1 */
#define NAS_ALGS(nea, nia)      (uint8_t)(((nea) & 0xf) << 4 | ((nia) & 0xf))
#define NAS_ALGS_NEA(algs)      ((uint8_t)(algs) >> 4)
#define NAS_ALGS_NIA(algs)      ((uint8_t)(algs) & 0xf)

/* ---- error report ---- */
struct nas_err {
	size_t off;         /* byte offset of the problem in the decoded buffer */
	const char *reason; /* static string, e.g. "SUCI: truncated" */
	const char *ie;     /* name of the IE being decoded, or NULL */
	unsigned ignored;   /* NAS_DEC_LENIENT: optional IEs dropped as malformed (the first
			     * one's off/reason/ie above); 0 otherwise */
};

/* A run of bytes inside the decoded input (or, for encoding, caller memory). */
struct nas_buf {
	const uint8_t *p;
	uint16_t len;
};

/* ---- information elements (TS 24.501 9.11) ---- */

/* PLMN identity (TS 24.008 10.5.1.13 coding: MCC digit 2|1, MNC3|MCC3, MNC 2|1) */
struct nas_plmn {
	uint16_t mcc;   /* 0..999 */
	uint16_t mnc;   /* 0..999 */
	uint8_t mnc3;   /* 1 if the MNC has three digits */
};

/* 9.11.3.4 5GS mobile identity */
enum nas_mobid_type {
	NAS_MOBID_NONE = 0,
	NAS_MOBID_SUCI = 1,
	NAS_MOBID_5G_GUTI = 2,
	NAS_MOBID_IMEI = 3,
	NAS_MOBID_5G_S_TMSI = 4,
	NAS_MOBID_IMEISV = 5,
	NAS_MOBID_MAC = 6,
	NAS_MOBID_EUI64 = 7,
};
enum nas_suci_scheme { NAS_SUCI_NULL = 0, NAS_SUCI_PROFILE_A = 1, NAS_SUCI_PROFILE_B = 2 };
#define NAS_SUCI_PROFILE_A_EPH_LEN 32 /* X25519 public key, TS 33.501 C.3.4.1 */
#define NAS_SUCI_PROFILE_B_EPH_LEN 33 /* compressed P-256 point, TS 33.501 C.3.4.2 */
#define NAS_SUCI_MAC_LEN 8

struct nas_suci {
	uint8_t supi_format;    /* 0 IMSI, 1 network specific identifier (NAI) */
	struct nas_plmn plmn;   /* IMSI format only */
	uint8_t rid[4];         /* routing indicator digits, 0xf = unused (TS 23.003 2.2B) */
	uint8_t scheme;         /* enum nas_suci_scheme (0..15 on the wire) */
	uint8_t hn_key_id;      /* home network public key identifier */
	struct nas_buf output;  /* scheme output (null: BCD MSIN; A/B: eph key|cipher|MAC) */
	struct nas_buf nai;     /* NAI format: the NAI octets */
};

struct nas_guti {
	struct nas_plmn plmn;
	uint8_t amf_region_id;
	uint16_t amf_set_id;    /* 10 bits */
	uint8_t amf_pointer;    /* 6 bits */
	uint32_t tmsi;
};

struct nas_mobile_id {
	uint8_t type;           /* enum nas_mobid_type */
	/* Bits 8-5 of the first value octet where they are spare (5G-GUTI,
	 * 5G-S-TMSI): encoded as 1111 unless spare_hi_set (kept so a received
	 * identity re-encodes byte-identical). */
	uint8_t spare_hi_set, spare_hi;
	union {
		struct nas_suci suci;
		struct nas_guti guti;   /* 5G-GUTI; for 5G-S-TMSI only set id, pointer, tmsi */
		struct {
			uint8_t n;      /* number of digits */
			char d[NAS_MOBID_DIGITS_MAX + 1]; /* ASCII digits, NUL terminated */
		} digits;               /* IMEI, IMEISV */
		struct nas_buf raw;     /* MAC address, EUI-64, no identity */
	};
};

/* 9.11.2.8 S-NSSAI: value length 1 (SST), 2 (SST, mapped SST), 4 (SST, SD),
 * 5 (+mapped SST), 8 (+mapped SD) */
struct nas_snssai {
	uint8_t sst;
	uint8_t has_sd, has_mapped_sst, has_mapped_sd;
	uint32_t sd;            /* 24 bits */
	uint8_t mapped_sst;
	uint32_t mapped_sd;
};
/* 9.11.3.37 NSSAI */
struct nas_nssai {
	uint8_t n;
	struct nas_snssai s[NAS_NSSAI_MAX];
};

/* 9.11.3.54 UE security capability (value 2..8 octets) */
struct nas_ue_sec_cap {
	uint8_t ea;             /* 5G-EA0..7 bits: 0x80 = EA0 ... */
	uint8_t ia;             /* 5G-IA0..7 */
	uint8_t has_eps;        /* EEA/EIA octets present */
	uint8_t eea, eia;
	uint8_t n_spare;        /* received spare octets 7..10 (kept for re-encoding) */
	uint8_t spare[4];
};

/* 9.11.3.9 5GS tracking area identity list: all TAIs flat, plus how they
 * were grouped into partial lists (type 0: one PLMN, listed TACs; type 1: one
 * PLMN, consecutive TACs from the first; type 2: PLMN+TAC each). */
struct nas_tai {
	struct nas_plmn plmn;
	uint32_t tac;           /* 24 bits */
};
struct nas_tai_list {
	uint8_t n_lists;        /* 0 when encoding: one partial list chosen automatically */
	struct { uint8_t type, n; } lists[NAS_TAI_LISTS_MAX];
	uint8_t n;              /* number of TAIs in tai[] */
	struct nas_tai tai[NAS_TAI_MAX];
};

/* 9.11.4.14 Session-AMBR: unit per 9.11.4.14 (1 = 1 kbps, 6 = 1 Mbps, 11 = 1 Gbps ...) */
struct nas_session_ambr {
	uint8_t dl_unit;
	uint16_t dl;
	uint8_t ul_unit;
	uint16_t ul;
};

/* 9.11.4.10 PDU address */
enum nas_pdu_type { NAS_PDU_IPV4 = 1, NAS_PDU_IPV6 = 2, NAS_PDU_IPV4V6 = 3, NAS_PDU_UNSTRUCTURED = 4, NAS_PDU_ETHERNET = 5 };
struct nas_pdu_address {
	uint8_t type;           /* enum nas_pdu_type */
	uint8_t si6lla;         /* SMF's IPv6 link local address present */
	uint8_t ipv4[4];
	uint8_t ipv6_iid[8];
	uint8_t smf_ll6[16];
};

/* 9.11.3.35 network name (TS 24.008 10.5.3.5a): text is packed GSM 7-bit
 * (coding 0) or UCS2 (coding 1); see nas_network_name_set_ascii(). */
struct nas_network_name {
	uint8_t coding;         /* 0 GSM default alphabet, 1 UCS2 */
	uint8_t add_ci;         /* add country initials */
	uint8_t spare_bits;     /* number of spare bits in the last octet (0..7) */
	struct nas_buf text;
};

/* 9.11.4.13 QoS rules (parsed on demand from the IE's struct nas_buf) */
enum nas_qos_rule_op {
	NAS_QOS_RULE_CREATE = 1, NAS_QOS_RULE_DELETE = 2, NAS_QOS_RULE_ADD_FILTERS = 3,
	NAS_QOS_RULE_REPLACE_FILTERS = 4, NAS_QOS_RULE_DELETE_FILTERS = 5, NAS_QOS_RULE_NO_FILTER_CHANGE = 6,
};
struct nas_pkt_filter {
	uint8_t dir;            /* 1 DL only, 2 UL only, 3 bidirectional */
	uint8_t id;             /* 0..15 */
	struct nas_buf contents; /* packet filter components (absent for DELETE_FILTERS) */
};
struct nas_qos_rule {
	uint8_t id;
	uint8_t op;             /* enum nas_qos_rule_op */
	uint8_t dqr;            /* default QoS rule */
	uint8_t n_filters;
	struct nas_pkt_filter f[NAS_QOS_FILTERS_MAX];
	uint8_t has_prec_qfi;   /* precedence and QFI present (absent e.g. for DELETE) */
	uint8_t precedence;
	uint8_t segregation;
	uint8_t qfi;            /* 6 bits */
};
struct nas_qos_rules {
	uint8_t n;
	struct nas_qos_rule r[NAS_QOS_RULES_MAX];
};

/* 9.11.4.12 QoS flow descriptions */
enum nas_qos_param_id {
	NAS_QOS_P_5QI = 1, NAS_QOS_P_GFBR_UL = 2, NAS_QOS_P_GFBR_DL = 3, NAS_QOS_P_MFBR_UL = 4,
	NAS_QOS_P_MFBR_DL = 5, NAS_QOS_P_AVG_WINDOW = 6, NAS_QOS_P_EBI = 7,
};
struct nas_qos_param {
	uint8_t id;
	struct nas_buf v;
};
struct nas_qos_flow {
	uint8_t qfi;
	uint8_t op;             /* 1 create, 2 delete, 3 modify */
	uint8_t e;              /* E bit: parameters list included / replace all */
	uint8_t n;
	struct nas_qos_param p[NAS_QOS_PARAMS_MAX];
};
struct nas_qos_flows {
	uint8_t n;
	struct nas_qos_flow f[NAS_QOS_FLOWS_MAX];
};

/* 9.11.4.6 extended protocol configuration options (TS 24.008 10.5.6.3 body) */
enum nas_pco_id {
	NAS_PCO_IPCP = 0x8021,
	NAS_PCO_DNS_IPV6 = 0x0003,          /* UE->NW request, NW->UE IPv6 DNS server address */
	NAS_PCO_IP_ALLOC_VIA_NAS = 0x000a,
	NAS_PCO_DNS_IPV4 = 0x000d,          /* UE->NW request, NW->UE IPv4 DNS server address */
	NAS_PCO_IPV4_LINK_MTU = 0x0010,     /* UE->NW request, NW->UE 2-octet MTU */
};
struct nas_pco_item {
	uint16_t id;
	struct nas_buf v;
};
struct nas_pco {
	uint8_t octet3;         /* ext bit + configuration protocol; 0 encodes as 0x80 */
	uint8_t n;
	struct nas_pco_item it[NAS_PCO_MAX];
};

/* ---- 5GMM messages (TS 24.501 8.2). has_* flags mark optional IEs. ----
 * Fields of type uint8_t named after a half-octet IE hold the 4-bit value. */

/* 8.2.6 Registration request */
struct nas_registration_request {
	uint8_t reg_type;               /* 9.11.3.7: bits 1-3 type, bit 4 follow-on request */
	uint8_t ngksi;                  /* 9.11.3.32: bit 4 TSC, bits 1-3 KSI (7 = no key) */
	struct nas_mobile_id mobile_id;
	bool has_non_current_ngksi;     uint8_t non_current_ngksi;            /* C- */
	bool has_gmm_cap;               struct nas_buf gmm_cap;               /* 10 */
	bool has_ue_sec_cap;            struct nas_ue_sec_cap ue_sec_cap;     /* 2E */
	bool has_requested_nssai;       struct nas_nssai requested_nssai;     /* 2F */
	bool has_last_visited_tai;      struct nas_buf last_visited_tai;      /* 52 */
	bool has_s1_ue_net_cap;         struct nas_buf s1_ue_net_cap;         /* 17 */
	bool has_ul_data_status;        uint16_t ul_data_status;              /* 40, PSI bitmap */
	bool has_pdu_session_status;    uint16_t pdu_session_status;          /* 50 */
	bool has_mico;                  uint8_t mico;                         /* B- */
	bool has_ue_status;             uint8_t ue_status;                    /* 2B */
	bool has_additional_guti;       struct nas_mobile_id additional_guti; /* 77 */
	bool has_allowed_pdu_session_status; uint16_t allowed_pdu_session_status; /* 25 */
	bool has_ue_usage_setting;      uint8_t ue_usage_setting;             /* 18 */
	bool has_requested_drx;         uint8_t requested_drx;                /* 51 */
	bool has_eps_nas_container;     struct nas_buf eps_nas_container;     /* 70 */
	bool has_ladn_indication;       struct nas_buf ladn_indication;       /* 74 */
	bool has_payload_container_type; uint8_t payload_container_type;      /* 8- */
	bool has_payload_container;     struct nas_buf payload_container;     /* 7B */
	bool has_network_slicing_ind;   uint8_t network_slicing_ind;          /* 9- */
	bool has_update_type;           uint8_t update_type;                  /* 53 */
	bool has_ms_classmark2;         struct nas_buf ms_classmark2;         /* 41 */
	bool has_supported_codecs;      struct nas_buf supported_codecs;      /* 42 */
	bool has_nas_container;         struct nas_buf nas_container;         /* 71 */
	bool has_eps_bearer_ctx_status; struct nas_buf eps_bearer_ctx_status; /* 60 */
	bool has_requested_edrx;        struct nas_buf requested_edrx;        /* 6E */
	bool has_t3324;                 uint8_t t3324;                        /* 6A, GPRS timer 3 */
	bool has_ue_radio_cap_id;       struct nas_buf ue_radio_cap_id;       /* 67 */
	bool has_requested_mapped_nssai; struct nas_buf requested_mapped_nssai; /* 35 */
	bool has_additional_info_req;   uint8_t additional_info_req;          /* 48 */
	bool has_requested_wus;         struct nas_buf requested_wus;         /* 1A */
	bool has_n5gc_ind;              uint8_t n5gc_ind;                     /* A- */
	bool has_requested_nb_n1_drx;   uint8_t requested_nb_n1_drx;          /* 30 */
	bool has_ue_request_type;       uint8_t ue_request_type;              /* 29 */
	bool has_paging_restriction;    struct nas_buf paging_restriction;    /* 28 */
	bool has_nid;                   struct nas_buf nid;                   /* 32 */
	bool has_requested_peips;       struct nas_buf requested_peips;       /* 2A */
	bool has_requested_t3512;       uint8_t requested_t3512;              /* 3B */
};

/* 8.2.7 Registration accept */
struct nas_registration_accept {
	uint8_t reg_result;             /* 9.11.3.6 value octet */
	bool has_guti;                  struct nas_mobile_id guti;            /* 77 */
	bool has_equivalent_plmns;      struct nas_buf equivalent_plmns;      /* 4A */
	bool has_tai_list;              struct nas_tai_list tai_list;         /* 54 */
	bool has_allowed_nssai;         struct nas_nssai allowed_nssai;       /* 15 */
	bool has_rejected_nssai;        struct nas_buf rejected_nssai;        /* 11 */
	bool has_configured_nssai;      struct nas_nssai configured_nssai;    /* 31 */
	bool has_nw_feature_support;    struct nas_buf nw_feature_support;    /* 21 */
	bool has_pdu_session_status;    uint16_t pdu_session_status;          /* 50 */
	bool has_reactivation_result;   uint16_t reactivation_result;         /* 26 */
	bool has_reactivation_error;    struct nas_buf reactivation_error;    /* 72 */
	bool has_ladn_info;             struct nas_buf ladn_info;             /* 79 */
	bool has_mico;                  uint8_t mico;                         /* B- */
	bool has_network_slicing_ind;   uint8_t network_slicing_ind;          /* 9- */
	bool has_service_area_list;     struct nas_buf service_area_list;     /* 27 */
	bool has_t3512;                 uint8_t t3512;                        /* 5E, GPRS timer 3 */
	bool has_non3gpp_dereg_timer;   uint8_t non3gpp_dereg_timer;          /* 5D, GPRS timer 2 */
	bool has_t3502;                 uint8_t t3502;                        /* 16, GPRS timer 2 */
	bool has_emergency_numbers;     struct nas_buf emergency_numbers;     /* 34 */
	bool has_ext_emergency_numbers; struct nas_buf ext_emergency_numbers; /* 7A */
	bool has_sor_container;         struct nas_buf sor_container;         /* 73 */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_nssai_inclusion_mode;  uint8_t nssai_inclusion_mode;         /* A- */
	bool has_op_access_categories;  struct nas_buf op_access_categories;  /* 76 */
	bool has_negotiated_drx;        uint8_t negotiated_drx;               /* 51 */
	bool has_non3gpp_nw_policies;   uint8_t non3gpp_nw_policies;          /* D- */
	bool has_eps_bearer_ctx_status; struct nas_buf eps_bearer_ctx_status; /* 60 */
	bool has_negotiated_edrx;       struct nas_buf negotiated_edrx;       /* 6E */
	bool has_t3447;                 uint8_t t3447;                        /* 6C */
	bool has_t3448;                 uint8_t t3448;                        /* 6B, GPRS timer 2 */
	bool has_t3324;                 uint8_t t3324;                        /* 6A */
	bool has_ue_radio_cap_id;       struct nas_buf ue_radio_cap_id;       /* 67 */
	bool has_ue_radio_cap_id_del;   uint8_t ue_radio_cap_id_del;          /* E- */
	bool has_pending_nssai;         struct nas_buf pending_nssai;         /* 39 */
	bool has_ciphering_key_data;    struct nas_buf ciphering_key_data;    /* 74 */
	bool has_cag_info_list;         struct nas_buf cag_info_list;         /* 75 */
	bool has_truncated_s_tmsi_cfg;  uint8_t truncated_s_tmsi_cfg;         /* 1B */
	bool has_negotiated_wus;        struct nas_buf negotiated_wus;        /* 1C */
	bool has_negotiated_nb_n1_drx;  uint8_t negotiated_nb_n1_drx;         /* 29 */
	bool has_ext_rejected_nssai;    struct nas_buf ext_rejected_nssai;    /* 68 */
	bool has_sla_container;         struct nas_buf sla_container;         /* 7B */
	bool has_negotiated_peips;      struct nas_buf negotiated_peips;      /* 33 */
	bool has_additional_req_result; uint8_t additional_req_result;        /* 35 */
	bool has_nssrg_info;            struct nas_buf nssrg_info;            /* 70 */
	bool has_disaster_roaming_wait; struct nas_buf disaster_roaming_wait; /* 14 */
	bool has_disaster_return_wait;  struct nas_buf disaster_return_wait;  /* 2C */
	bool has_disaster_plmns;        struct nas_buf disaster_plmns;        /* 13 */
	bool has_forbidden_tais_roaming; struct nas_buf forbidden_tais_roaming; /* 1D */
	bool has_forbidden_tais_service; struct nas_buf forbidden_tais_service; /* 1E */
	bool has_ext_cag_info_list;     struct nas_buf ext_cag_info_list;     /* 71 */
	bool has_nsag_info;             struct nas_buf nsag_info;             /* 7C */
};

/* 8.2.8 Registration complete */
struct nas_registration_complete {
	bool has_sor_container;         struct nas_buf sor_container;         /* 73 */
};

/* 8.2.9 Registration reject */
struct nas_registration_reject {
	uint8_t cause;                  /* enum nas_5gmm_cause */
	bool has_t3346;                 uint8_t t3346;                        /* 5F, GPRS timer 2 */
	bool has_t3502;                 uint8_t t3502;                        /* 16, GPRS timer 2 */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_rejected_nssai;        struct nas_buf rejected_nssai;        /* 69 */
	bool has_cag_info_list;         struct nas_buf cag_info_list;         /* 75 */
	bool has_ext_rejected_nssai;    struct nas_buf ext_rejected_nssai;    /* 68 */
	bool has_disaster_return_wait;  struct nas_buf disaster_return_wait;  /* 2C */
	bool has_ext_cag_info_list;     struct nas_buf ext_cag_info_list;     /* 71 */
	bool has_lower_bound_timer;     uint8_t lower_bound_timer;            /* 3A, GPRS timer 3 */
	bool has_forbidden_tais_roaming; struct nas_buf forbidden_tais_roaming; /* 1D */
	bool has_forbidden_tais_service; struct nas_buf forbidden_tais_service; /* 1E */
};

/* 8.2.1 Authentication request */
struct nas_authentication_request {
	uint8_t ngksi;
	struct nas_buf abba;                                                  /* LV, 2..n */
	bool has_rand;                  struct nas_buf rand;                  /* 21, 16 octets */
	bool has_autn;                  struct nas_buf autn;                  /* 20, 16 octets */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
};
/* 8.2.2 Authentication response */
struct nas_authentication_response {
	bool has_res_star;              struct nas_buf res_star;              /* 2D, 16 octets (secret in logs) */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
};
/* 8.2.3 Authentication result */
struct nas_authentication_result {
	uint8_t ngksi;
	struct nas_buf eap;                                                   /* LV-E */
	bool has_abba;                  struct nas_buf abba;                  /* 38 */
};
/* 8.2.4 Authentication failure */
struct nas_authentication_failure {
	uint8_t cause;
	bool has_auts;                  struct nas_buf auts;                  /* 30, 14 octets */
};
/* 8.2.5 Authentication reject */
struct nas_authentication_reject {
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
};
/* 8.2.21 Identity request */
struct nas_identity_request {
	uint8_t identity_type;          /* 9.11.3.3: enum nas_mobid_type */
};
/* 8.2.22 Identity response */
struct nas_identity_response {
	struct nas_mobile_id mobile_id;
};
/* 8.2.25 Security mode command */
struct nas_security_mode_command {
	uint8_t algs;                   /* 9.11.3.34: ciphering bits 8-5, integrity bits 4-1 */
	uint8_t ngksi;
	struct nas_ue_sec_cap replayed_ue_sec_cap;                            /* LV 2..8 */
	bool has_imeisv_request;        uint8_t imeisv_request;               /* E- */
	bool has_eps_algs;              uint8_t eps_algs;                     /* 57 */
	bool has_additional_sec_info;   uint8_t additional_sec_info;          /* 36 */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_abba;                  struct nas_buf abba;                  /* 38 */
	bool has_replayed_s1_sec_cap;   struct nas_buf replayed_s1_sec_cap;   /* 19 */
};
/* 8.2.26 Security mode complete */
struct nas_security_mode_complete {
	bool has_imeisv;                struct nas_mobile_id imeisv;          /* 77 */
	bool has_nas_container;         struct nas_buf nas_container;         /* 71 */
	bool has_non_imeisv_pei;        struct nas_mobile_id non_imeisv_pei;  /* 78 */
};
/* 8.2.27 Security mode reject */
struct nas_security_mode_reject {
	uint8_t cause;
};
/* 8.2.16 Service request */
struct nas_service_request {
	uint8_t ngksi;
	uint8_t service_type;           /* 9.11.3.50 */
	struct nas_mobile_id s_tmsi;    /* 5G-S-TMSI */
	bool has_ul_data_status;        uint16_t ul_data_status;              /* 40 */
	bool has_pdu_session_status;    uint16_t pdu_session_status;          /* 50 */
	bool has_allowed_pdu_session_status; uint16_t allowed_pdu_session_status; /* 25 */
	bool has_nas_container;         struct nas_buf nas_container;         /* 71 */
};
/* 8.2.17 Service accept */
struct nas_service_accept {
	bool has_pdu_session_status;    uint16_t pdu_session_status;          /* 50 */
	bool has_reactivation_result;   uint16_t reactivation_result;         /* 26 */
	bool has_reactivation_error;    struct nas_buf reactivation_error;    /* 72 */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_t3448;                 uint8_t t3448;                        /* 6B, GPRS timer 2 */
	bool has_additional_req_result; uint8_t additional_req_result;        /* 34 */
	bool has_forbidden_tais_roaming; struct nas_buf forbidden_tais_roaming; /* 1D */
	bool has_forbidden_tais_service; struct nas_buf forbidden_tais_service; /* 1E */
};
/* 8.2.18 Service reject */
struct nas_service_reject {
	uint8_t cause;
	bool has_pdu_session_status;    uint16_t pdu_session_status;          /* 50 */
	bool has_t3346;                 uint8_t t3346;                        /* 5F */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_t3448;                 uint8_t t3448;                        /* 6B, GPRS timer 2 */
	bool has_cag_info_list;         struct nas_buf cag_info_list;         /* 75 */
	bool has_disaster_return_wait;  struct nas_buf disaster_return_wait;  /* 2C */
	bool has_ext_cag_info_list;     struct nas_buf ext_cag_info_list;     /* 71 */
	bool has_lower_bound_timer;     uint8_t lower_bound_timer;            /* 3A */
	bool has_forbidden_tais_roaming; struct nas_buf forbidden_tais_roaming; /* 1D */
	bool has_forbidden_tais_service; struct nas_buf forbidden_tais_service; /* 1E */
};
/* 8.2.19 Configuration update command */
struct nas_configuration_update_command {
	bool has_cfg_update_ind;        uint8_t cfg_update_ind;               /* D- */
	bool has_guti;                  struct nas_mobile_id guti;            /* 77 */
	bool has_tai_list;              struct nas_tai_list tai_list;         /* 54 */
	bool has_allowed_nssai;         struct nas_nssai allowed_nssai;       /* 15 */
	bool has_service_area_list;     struct nas_buf service_area_list;     /* 27 */
	bool has_full_name;             struct nas_network_name full_name;    /* 43 */
	bool has_short_name;            struct nas_network_name short_name;   /* 45 */
	bool has_local_time_zone;       uint8_t local_time_zone;              /* 46 */
	bool has_universal_time;        struct nas_buf universal_time;        /* 47, 7 octets */
	bool has_dst;                   uint8_t dst;                          /* 49 */
	bool has_ladn_info;             struct nas_buf ladn_info;             /* 79 */
	bool has_mico;                  uint8_t mico;                         /* B- */
	bool has_network_slicing_ind;   uint8_t network_slicing_ind;          /* 9- */
	bool has_configured_nssai;      struct nas_nssai configured_nssai;    /* 31 */
	bool has_rejected_nssai;        struct nas_buf rejected_nssai;        /* 11 */
	bool has_op_access_categories;  struct nas_buf op_access_categories;  /* 76 */
	bool has_sms_ind;               uint8_t sms_ind;                      /* F- */
	bool has_t3447;                 uint8_t t3447;                        /* 6C */
	bool has_cag_info_list;         struct nas_buf cag_info_list;         /* 75 */
	bool has_ue_radio_cap_id;       struct nas_buf ue_radio_cap_id;       /* 67 */
	bool has_ue_radio_cap_id_del;   uint8_t ue_radio_cap_id_del;          /* A- */
	bool has_reg_result;            uint8_t reg_result;                   /* 44 */
	bool has_truncated_s_tmsi_cfg;  uint8_t truncated_s_tmsi_cfg;         /* 1B */
	bool has_additional_cfg_ind;    uint8_t additional_cfg_ind;           /* C- */
	bool has_ext_rejected_nssai;    struct nas_buf ext_rejected_nssai;    /* 68 */
	bool has_sla_container;         struct nas_buf sla_container;         /* 72 */
	bool has_nssrg_info;            struct nas_buf nssrg_info;            /* 70 */
};
/* 8.2.20 Configuration update complete: no IEs */
/* 8.2.12 / 8.2.14 Deregistration request (UE originating / UE terminated) */
struct nas_deregistration_request {
	uint8_t dereg_type;             /* 9.11.3.20: bit 4 switch off / re-reg required, bits 1-2 access */
	uint8_t ngksi;                  /* UE originating only */
	struct nas_mobile_id mobile_id; /* UE originating only */
	bool has_cause;                 uint8_t cause;                        /* UE terminated: 58 */
	bool has_t3346;                 uint8_t t3346;                        /* UE terminated: 5F */
	bool has_rejected_nssai;        struct nas_buf rejected_nssai;        /* UE terminated: 6D */
	bool has_ext_rejected_nssai;    struct nas_buf ext_rejected_nssai;    /* UE terminated: 68 */
	bool has_disaster_return_wait;  struct nas_buf disaster_return_wait;  /* UE terminated: 2C */
};
/* 8.2.13 / 8.2.15 Deregistration accept: no IEs */

/* 8.2.10 UL NAS transport */
struct nas_ul_nas_transport {
	uint8_t payload_type;           /* 9.11.3.40: 1 N1 SM, 2 SMS, 3 LPP, 4 SOR ... */
	struct nas_buf payload;         /* LV-E */
	bool has_psi;                   uint8_t psi;                          /* 12 */
	bool has_old_psi;               uint8_t old_psi;                      /* 59 */
	bool has_request_type;          uint8_t request_type;                 /* 8- */
	bool has_snssai;                struct nas_snssai snssai;             /* 22 */
	bool has_dnn;                   struct nas_buf dnn;                   /* 25 */
	bool has_additional_info;       struct nas_buf additional_info;       /* 24 */
	bool has_ma_pdu_info;           uint8_t ma_pdu_info;                  /* A- */
	bool has_release_assistance;    uint8_t release_assistance;           /* F- */
};
/* 8.2.11 DL NAS transport */
struct nas_dl_nas_transport {
	uint8_t payload_type;
	struct nas_buf payload;
	bool has_psi;                   uint8_t psi;                          /* 12 */
	bool has_additional_info;       struct nas_buf additional_info;       /* 24 */
	bool has_cause;                 uint8_t cause;                        /* 58 */
	bool has_backoff_timer;         uint8_t backoff_timer;                /* 37, GPRS timer 3 */
	bool has_lower_bound_timer;     uint8_t lower_bound_timer;            /* 3A */
};
/* 8.2.29 5GMM status */
struct nas_5gmm_status {
	uint8_t cause;
};

/* ---- 5GSM messages (TS 24.501 8.3); PSI and PTI are in struct nas_msg ---- */

/* 8.3.1 PDU session establishment request */
struct nas_pdu_session_establishment_request {
	struct nas_buf integrity_max_rate;                                    /* V 2 */
	bool has_pdu_session_type;      uint8_t pdu_session_type;             /* 9- */
	bool has_ssc_mode;              uint8_t ssc_mode;                     /* A- */
	bool has_gsm_cap;               struct nas_buf gsm_cap;               /* 28 */
	bool has_max_pkt_filters;       struct nas_buf max_pkt_filters;       /* 55, 2 octets */
	bool has_always_on_requested;   uint8_t always_on_requested;          /* B- */
	bool has_sm_pdu_dn_container;   struct nas_buf sm_pdu_dn_container;   /* 39 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B, see nas_pco_dec() */
	bool has_ip_hc_config;          struct nas_buf ip_hc_config;          /* 66 */
	bool has_ds_tt_mac;             struct nas_buf ds_tt_mac;             /* 6E */
	bool has_ue_ds_tt_residence;    struct nas_buf ue_ds_tt_residence;    /* 6F */
	bool has_port_mgmt_container;   struct nas_buf port_mgmt_container;   /* 74 */
	bool has_eth_hc_config;         struct nas_buf eth_hc_config;         /* 1F */
	bool has_suggested_iid;         struct nas_buf suggested_iid;         /* 29 */
};
/* 8.3.2 PDU session establishment accept */
struct nas_pdu_session_establishment_accept {
	uint8_t pdu_session_type;       /* selected PDU session type (bits 1-3) */
	uint8_t ssc_mode;               /* selected SSC mode */
	struct nas_buf qos_rules;       /* LV-E, see nas_qos_rules_dec() */
	struct nas_session_ambr ambr;   /* LV 6 */
	bool has_cause;                 uint8_t cause;                        /* 59 */
	bool has_pdu_address;           struct nas_pdu_address pdu_address;   /* 29 */
	bool has_rq_timer;              uint8_t rq_timer;                     /* 56 */
	bool has_snssai;                struct nas_snssai snssai;             /* 22 */
	bool has_always_on;             uint8_t always_on;                    /* 8- */
	bool has_mapped_eps_ctx;        struct nas_buf mapped_eps_ctx;        /* 75 */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_qos_flows;             struct nas_buf qos_flows;             /* 79, see nas_qos_flows_dec() */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_dnn;                   struct nas_buf dnn;                   /* 25 */
	bool has_gsm_nw_feature;        struct nas_buf gsm_nw_feature;        /* 17 */
	bool has_serving_plmn_rate;     struct nas_buf serving_plmn_rate;     /* 18 */
	bool has_atsss_container;       struct nas_buf atsss_container;       /* 77 */
	bool has_cp_only_ind;           uint8_t cp_only_ind;                  /* C- */
	bool has_ip_hc_config;          struct nas_buf ip_hc_config;          /* 66 */
	bool has_eth_hc_config;         struct nas_buf eth_hc_config;         /* 1F */
};
/* 8.3.3 PDU session establishment reject */
struct nas_pdu_session_establishment_reject {
	uint8_t cause;                  /* enum nas_5gsm_cause */
	bool has_backoff_timer;         uint8_t backoff_timer;                /* 37 */
	bool has_allowed_ssc_mode;      uint8_t allowed_ssc_mode;             /* F- */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_congestion_reattempt;  uint8_t congestion_reattempt;         /* 61 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_reattempt_ind;         uint8_t reattempt_ind;                /* 1D */
};
/* 8.3.7 PDU session modification request */
struct nas_pdu_session_modification_request {
	bool has_gsm_cap;               struct nas_buf gsm_cap;               /* 28 */
	bool has_cause;                 uint8_t cause;                        /* 59 */
	bool has_max_pkt_filters;       struct nas_buf max_pkt_filters;       /* 55 */
	bool has_always_on_requested;   uint8_t always_on_requested;          /* B- */
	bool has_integrity_max_rate;    struct nas_buf integrity_max_rate;    /* 13 */
	bool has_qos_rules;             struct nas_buf qos_rules;             /* 7A */
	bool has_qos_flows;             struct nas_buf qos_flows;             /* 79 */
	bool has_mapped_eps_ctx;        struct nas_buf mapped_eps_ctx;        /* 75 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_port_mgmt_container;   struct nas_buf port_mgmt_container;   /* 74 */
	bool has_ip_hc_config;          struct nas_buf ip_hc_config;          /* 66 */
	bool has_eth_hc_config;         struct nas_buf eth_hc_config;         /* 1F */
};
/* 8.3.8 PDU session modification reject */
struct nas_pdu_session_modification_reject {
	uint8_t cause;
	bool has_backoff_timer;         uint8_t backoff_timer;                /* 37 */
	bool has_congestion_reattempt;  uint8_t congestion_reattempt;         /* 61 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_reattempt_ind;         uint8_t reattempt_ind;                /* 1D */
};
/* 8.3.9 PDU session modification command */
struct nas_pdu_session_modification_command {
	bool has_cause;                 uint8_t cause;                        /* 59 */
	bool has_ambr;                  struct nas_session_ambr ambr;         /* 2A */
	bool has_rq_timer;              uint8_t rq_timer;                     /* 56 */
	bool has_always_on;             uint8_t always_on;                    /* 8- */
	bool has_qos_rules;             struct nas_buf qos_rules;             /* 7A */
	bool has_mapped_eps_ctx;        struct nas_buf mapped_eps_ctx;        /* 75 */
	bool has_qos_flows;             struct nas_buf qos_flows;             /* 79 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_atsss_container;       struct nas_buf atsss_container;       /* 77 */
	bool has_ip_hc_config;          struct nas_buf ip_hc_config;          /* 66 */
	bool has_port_mgmt_container;   struct nas_buf port_mgmt_container;   /* 74 */
	bool has_serving_plmn_rate;     struct nas_buf serving_plmn_rate;     /* 1E */
	bool has_eth_hc_config;         struct nas_buf eth_hc_config;         /* 1F */
};
/* 8.3.10 PDU session modification complete */
struct nas_pdu_session_modification_complete {
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_port_mgmt_container;   struct nas_buf port_mgmt_container;   /* 74 */
};
/* 8.3.11 PDU session modification command reject */
struct nas_pdu_session_modification_command_reject {
	uint8_t cause;
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
};
/* 8.3.12 PDU session release request */
struct nas_pdu_session_release_request {
	bool has_cause;                 uint8_t cause;                        /* 59 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
};
/* 8.3.13 PDU session release reject */
struct nas_pdu_session_release_reject {
	uint8_t cause;
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
};
/* 8.3.14 PDU session release command */
struct nas_pdu_session_release_command {
	uint8_t cause;
	bool has_backoff_timer;         uint8_t backoff_timer;                /* 37 */
	bool has_eap;                   struct nas_buf eap;                   /* 78 */
	bool has_congestion_reattempt;  uint8_t congestion_reattempt;         /* 61 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
	bool has_access_type;           uint8_t access_type;                  /* D- */
};
/* 8.3.15 PDU session release complete */
struct nas_pdu_session_release_complete {
	bool has_cause;                 uint8_t cause;                        /* 59 */
	bool has_epco;                  struct nas_buf epco;                  /* 7B */
};
/* 8.3.16 5GSM status */
struct nas_5gsm_status {
	uint8_t cause;
};

/* A plain NAS message. To encode: zero it, set type (and psi/pti for 5GSM),
 * then the fields and has_* flags of the union member named after the
 * message (reg_req, auth_req, pdu_est_acc ...). */
struct nas_msg {
	uint8_t epd;            /* enum nas_epd; set by nas_decode, derived from type by nas_encode */
	uint8_t type;           /* enum nas_msg_type */
	uint8_t psi, pti;       /* 5GSM header (TS 24.501 9.4, 9.6) */
	union {
		struct nas_registration_request reg_req;
		struct nas_registration_accept reg_acc;
		struct nas_registration_complete reg_cpl;
		struct nas_registration_reject reg_rej;
		struct nas_authentication_request auth_req;
		struct nas_authentication_response auth_resp;
		struct nas_authentication_result auth_result;
		struct nas_authentication_failure auth_fail;
		struct nas_authentication_reject auth_rej;
		struct nas_identity_request id_req;
		struct nas_identity_response id_resp;
		struct nas_security_mode_command smc;
		struct nas_security_mode_complete smc_cpl;
		struct nas_security_mode_reject smc_rej;
		struct nas_service_request svc_req;
		struct nas_service_accept svc_acc;
		struct nas_service_reject svc_rej;
		struct nas_configuration_update_command cuc;
		struct nas_deregistration_request dereg_req; /* both directions */
		struct nas_ul_nas_transport ul_nas;
		struct nas_dl_nas_transport dl_nas;
		struct nas_5gmm_status gmm_status;
		struct nas_pdu_session_establishment_request pdu_est_req;
		struct nas_pdu_session_establishment_accept pdu_est_acc;
		struct nas_pdu_session_establishment_reject pdu_est_rej;
		struct nas_pdu_session_modification_request pdu_mod_req;
		struct nas_pdu_session_modification_reject pdu_mod_rej;
		struct nas_pdu_session_modification_command pdu_mod_cmd;
		struct nas_pdu_session_modification_complete pdu_mod_cpl;
		struct nas_pdu_session_modification_command_reject pdu_mod_cmd_rej;
		struct nas_pdu_session_release_request pdu_rel_req;
		struct nas_pdu_session_release_reject pdu_rel_rej;
		struct nas_pdu_session_release_command pdu_rel_cmd;
		struct nas_pdu_session_release_complete pdu_rel_cpl;
		struct nas_5gsm_status gsm_status;
	};
};

/* Security protected 5GMM header (TS 24.501 9.1.1, 9.8, 9.10) */
struct nas_sec_hdr {
	uint8_t sht;            /* enum nas_sht, 1..4 */
	uint32_t mac;           /* message authentication code as on the wire (big endian) */
	uint8_t sqn;            /* NAS sequence number */
	struct nas_buf mac_input; /* what the MAC covers: SQN octet + (ciphered) message */
	struct nas_buf msg;     /* the (possibly ciphered) inner plain NAS message */
};

/* ---- framing and messages ---- */

/* Peek at the framing of any NAS PDU: EPD and, for 5GMM, the security header
 * type. 0, or -EBADMSG (empty) / -ENOMSG (unknown EPD). */
int nas_peek(const uint8_t *buf, size_t len, uint8_t *epd, uint8_t *sht);

/* Decode a plain 5GMM or 5GSM message. Pointers in *m point into buf.
 * Returns 0 or a negative errno (see top of file) with *err filled. */
int nas_decode(const uint8_t *buf, size_t len, struct nas_msg *m, struct nas_err *err);

/* nas_decode() with flags. NAS_DEC_LENIENT applies the receiver rules of
 * TS 24.501 7.5 and TS 24.007 11.4.2 instead of failing: a syntactically
 * incorrect optional IE is treated as not present (counted in err->ignored,
 * the first one described by err->off/reason/ie while the call returns 0);
 * a type 4/6 IE longer than this release defines has its extra octets
 * ignored, and opaque (struct nas_buf) values of any length are kept.
 * Mandatory IE errors, truncation and unknown comprehension-required IEs
 * still fail. Meant for messages from UEs; nas_decode() (strict) for tests
 * and for checking our own encodings. */
#define NAS_DEC_LENIENT 0x1u
int nas_decode_ex(const uint8_t *buf, size_t len, struct nas_msg *m, struct nas_err *err, unsigned flags);

/* Encode a plain message; returns length or negative errno (err may be NULL). */
int nas_encode(const struct nas_msg *m, uint8_t *out, size_t cap, struct nas_err *err);

/* Decode the security protected header (sht 1..4). hdr->msg points at the
 * inner message (still ciphered unless NEA0); after deciphering, pass it to
 * nas_decode(). Returns 0 or negative errno. */
int nas_sec_decode(const uint8_t *buf, size_t len, struct nas_sec_hdr *hdr, struct nas_err *err);

/* Write the 7-octet security protected header into out (cap >= NAS_SEC_HDR_LEN).
 * Typical use: nas_encode() the inner message at out + NAS_SEC_HDR_LEN, cipher
 * it in place, then compute the MAC over out + NAS_SEC_MAC_OFF (SQN onwards)
 * and write the header. Returns NAS_SEC_HDR_LEN or negative errno. */
#define NAS_SEC_MAC_OFF 6       /* offset of the SQN: start of the MAC-covered range */
int nas_sec_hdr_enc(uint8_t *out, size_t cap, uint8_t sht, uint32_t mac, uint8_t sqn);

/* Names for logs ("Registration request", "Illegal UE"...); never NULL. */
const char *nas_msg_name(uint8_t type);
const char *nas_5gmm_cause_name(uint8_t cause);
const char *nas_5gsm_cause_name(uint8_t cause);

/* Whole message as one log line: "Registration request reg_type=0x9 ngksi=7
 * mobile_id=suci{...} ..." with secrets redacted. Returns the length that
 * would have been written (snprintf style) or negative errno. */
int nas_msg_to_str(const struct nas_msg *m, char *buf, size_t sz);

/* ---- IE codecs: value part only (no IEI, no length octets) ----
 * dec: 0 or negative errno, err->off relative to v. enc: length or negative
 * errno. to_str: snprintf-style length. */
int nas_mobile_id_dec(const uint8_t *v, size_t n, struct nas_mobile_id *id, struct nas_err *err);
int nas_mobile_id_enc(const struct nas_mobile_id *id, uint8_t *out, size_t cap);
int nas_mobile_id_to_str(const struct nas_mobile_id *id, char *buf, size_t sz);
/* SUPI digits "imsi-<mcc><mnc><msin>" of a null-scheme SUCI (-EINVAL otherwise). */
int nas_suci_null_supi(const struct nas_suci *s, char *buf, size_t sz);
/* Split a profile A/B scheme output into eph public key, ciphertext and MAC tag. */
int nas_suci_ecies_parts(const struct nas_suci *s, struct nas_buf *eph_key, struct nas_buf *cipher,
			 struct nas_buf *mac);

int nas_plmn_dec(const uint8_t v[3], struct nas_plmn *p);  /* -ERANGE on non-BCD digits */
void nas_plmn_enc(const struct nas_plmn *p, uint8_t out[3]);
int nas_plmn_to_str(const struct nas_plmn *p, char *buf, size_t sz); /* "001-01" */

int nas_snssai_dec(const uint8_t *v, size_t n, struct nas_snssai *s, struct nas_err *err);
int nas_snssai_enc(const struct nas_snssai *s, uint8_t *out, size_t cap);
int nas_snssai_to_str(const struct nas_snssai *s, char *buf, size_t sz);
int nas_nssai_dec(const uint8_t *v, size_t n, struct nas_nssai *s, struct nas_err *err);
int nas_nssai_enc(const struct nas_nssai *s, uint8_t *out, size_t cap);
int nas_nssai_to_str(const struct nas_nssai *s, char *buf, size_t sz);

int nas_ue_sec_cap_dec(const uint8_t *v, size_t n, struct nas_ue_sec_cap *c, struct nas_err *err);
int nas_ue_sec_cap_enc(const struct nas_ue_sec_cap *c, uint8_t *out, size_t cap);
int nas_ue_sec_cap_to_str(const struct nas_ue_sec_cap *c, char *buf, size_t sz);

int nas_tai_list_dec(const uint8_t *v, size_t n, struct nas_tai_list *t, struct nas_err *err);
int nas_tai_list_enc(const struct nas_tai_list *t, uint8_t *out, size_t cap);
int nas_tai_list_to_str(const struct nas_tai_list *t, char *buf, size_t sz);

/* PDU session status / uplink data status / allowed PDU session status /
 * reactivation result (9.11.3.44, 57, 13, 42): bit i = PSI i (0..15). */
int nas_psi_map_dec(const uint8_t *v, size_t n, uint16_t *map, struct nas_err *err);
int nas_psi_map_enc(uint16_t map, uint8_t *out, size_t cap);
int nas_psi_map_to_str(uint16_t map, char *buf, size_t sz);

int nas_ambr_dec(const uint8_t *v, size_t n, struct nas_session_ambr *a, struct nas_err *err);
int nas_ambr_enc(const struct nas_session_ambr *a, uint8_t *out, size_t cap);
int nas_ambr_to_str(const struct nas_session_ambr *a, char *buf, size_t sz);
/* Rate in kbps of a value/unit pair (0 if the unit is unknown). */
uint64_t nas_ambr_kbps(uint8_t unit, uint16_t value);

int nas_pdu_address_dec(const uint8_t *v, size_t n, struct nas_pdu_address *a, struct nas_err *err);
int nas_pdu_address_enc(const struct nas_pdu_address *a, uint8_t *out, size_t cap);
int nas_pdu_address_to_str(const struct nas_pdu_address *a, char *buf, size_t sz);

/* DNN (9.11.2.1B, APN label format): dotted text <-> length-prefixed labels. */
int nas_dnn_to_str(const struct nas_buf *dnn, char *buf, size_t sz);  /* -EBADMSG if labels bad */
int nas_dnn_enc(const char *dotted, uint8_t *out, size_t cap);

int nas_network_name_dec(const uint8_t *v, size_t n, struct nas_network_name *nn, struct nas_err *err);
int nas_network_name_enc(const struct nas_network_name *nn, uint8_t *out, size_t cap);
int nas_network_name_to_str(const struct nas_network_name *nn, char *buf, size_t sz);
/* Pack ASCII into GSM 7-bit default alphabet in text_buf and point nn at it. */
int nas_network_name_set_ascii(struct nas_network_name *nn, const char *ascii, uint8_t *text_buf, size_t cap);

/* GPRS timer 2/3 (TS 24.008 10.5.7.4, 10.5.7.4a): value octet <-> seconds
 * (UINT32_MAX = deactivated). enc picks the finest unit that fits. */
uint32_t nas_gprs_timer2_secs(uint8_t v);
uint32_t nas_gprs_timer3_secs(uint8_t v);
uint8_t nas_gprs_timer2_enc(uint32_t secs);
uint8_t nas_gprs_timer3_enc(uint32_t secs);

/* Time zone (9.11.3.52 -> TS 24.008 10.5.3.8): offset from UTC in quarter
 * hours, BCD with swapped digits, sign in bit 4. enc rounds to 15 minutes
 * (valid range -14:00..+14:00, else 0xff). */
uint8_t nas_time_zone_enc(int minutes_east);
int nas_time_zone_minutes(uint8_t v);
/* Universal time and local time zone (9.11.3.53 -> TS 24.008 10.5.3.9):
 * 7 octets, year (2 digits) month day hour minute second and time zone. */
int nas_universal_time_enc(uint8_t out[7], int year, int mon, int mday, int hour, int min, int sec,
			   int tz_minutes_east);

int nas_qos_rules_dec(const uint8_t *v, size_t n, struct nas_qos_rules *r, struct nas_err *err);
int nas_qos_rules_enc(const struct nas_qos_rules *r, uint8_t *out, size_t cap);
int nas_qos_rules_to_str(const struct nas_qos_rules *r, char *buf, size_t sz);

int nas_qos_flows_dec(const uint8_t *v, size_t n, struct nas_qos_flows *f, struct nas_err *err);
int nas_qos_flows_enc(const struct nas_qos_flows *f, uint8_t *out, size_t cap);
int nas_qos_flows_to_str(const struct nas_qos_flows *f, char *buf, size_t sz);

int nas_pco_dec(const uint8_t *v, size_t n, struct nas_pco *p, struct nas_err *err);
int nas_pco_enc(const struct nas_pco *p, uint8_t *out, size_t cap);
int nas_pco_to_str(const struct nas_pco *p, char *buf, size_t sz);
/* First item with this id, or NULL. */
const struct nas_pco_item *nas_pco_find(const struct nas_pco *p, uint16_t id);
/* Append an item (the value memory must outlive encoding). 0 or -E2BIG. */
int nas_pco_add(struct nas_pco *p, uint16_t id, const uint8_t *v, uint16_t len);

#endif
