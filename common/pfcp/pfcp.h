/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * pfcp - PFCP codec for N4 (TS 29.244): the message header (7.2.2), the node
 * messages (heartbeat, association setup / update / release, version not
 * supported, node report) and
 * the session messages (establishment, modification, deletion, report), with
 * the IEs of 8.2 the UPF and SMF use: PDR / FAR / QER / URR / BAR create,
 * update and remove, Created PDR, Usage Report, Downlink Data Report, Node ID,
 * F-SEID, F-TEID, UE IP address, SDF filter, outer header creation / removal,
 * cause, offending IE, function features. common/pfcp/README.md lists it all.
 *
 * Rules (as common/nas and common/ngap):
 *  - Decoders never allocate and never read past their input. Opaque bytes
 *    (struct pfcp_buf) point INTO the input buffer, which must outlive the
 *    decoded struct. Repeated IEs fill bounded arrays (the PFCP_*_MAX limits
 *    below); one more than a limit is an error, never a truncation.
 *  - Encoders write into a caller buffer and return the bytes written or a
 *    negative errno (-ENOSPC: buffer too small; -EINVAL: a mandatory IE not
 *    set or a value that cannot be encoded; -ERANGE: a value too large for
 *    its field; -E2BIG: a count above its limit).
 *  - Presence: every struct has a `has` bit set (PFCP_HAS_* of that struct)
 *    per IE that was decoded or is to be encoded; repeated IEs have a count.
 *  - Decode errors are a negative errno plus a struct pfcp_err naming the
 *    offending IE, so a server can answer with the TS 29.244 7.6 cause and
 *    an Offending IE (pfcp_err_cause() maps one to the other):
 *      -EBADMSG          a length that is wrong: message shorter than its
 *                        header says, an IE running past its container, an
 *                        IE value too short for its flags  (cause 68)
 *      -ENOENT           a mandatory IE missing            (cause 66)
 *      -EINVAL           an IE with a value that is not allowed (cause 69)
 *      -E2BIG            more repeated IEs than a limit    (cause 75)
 *      -ELOOP            the codec's own tables nest deeper than PFCP_NEST_MAX
 *                        (a build error, never a wire case)             (69)
 *      -ENOMSG           unknown message type (7.6: ignored, not answered)
 *      -EPROTONOSUPPORT  version other than 1 (answer: Version Not Supported
 *                        Response, 7.4.4.7); the header fields are filled
 *      -EPROTO           S flag wrong for the message type (7.2.2.1)
 *  - Unknown IEs, unexpected ones (a grouped IE where its parent has no
 *    place for it), vendor-specific IEs (type bit 16, Enterprise ID) and IEs
 *    this codec does not decode are skipped (TS 29.244 7.6.1); a repeated
 *    single IE keeps its first occurrence; octets past the fields of a known
 *    IE are ignored (later releases append fields, 8.1.1).
 */
#ifndef SOLOCORE_COMMON_PFCP_PFCP_H
#define SOLOCORE_COMMON_PFCP_PFCP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ---- limits (named, next to the codec; STYLE.md "Named limits") ---- */
#define PFCP_PORT            8805   /* TS 29.244 4.2.2 */
#define PFCP_VERSION         1      /* TS 29.244 7.2.2.1 */
#define PFCP_HDR_LEN         8      /* node messages: flags, type, length, sequence, spare */
#define PFCP_HDR_SEID_LEN    16     /* session messages: + 8-octet SEID */
#define PFCP_MSG_MAX_LEN     65539  /* 4 + the 16-bit message length */
#define PFCP_SEQ_MAX         0xffffffu  /* 24-bit sequence number, 7.2.2.2 */
#define PFCP_PDR_MAX         16     /* Create / Update / Remove PDR, Created PDR per message */
#define PFCP_FAR_MAX         16     /* Create / Update / Remove FAR per message */
#define PFCP_URR_MAX         8      /* Create / Update / Remove URR per message */
#define PFCP_QER_MAX         8      /* Create / Update / Remove QER per message */
#define PFCP_PDR_URR_MAX     4      /* URR IDs in one PDR */
#define PFCP_PDR_QER_MAX     4      /* QER IDs in one PDR */
#define PFCP_SDF_MAX         4      /* SDF filters in one PDI */
#define PFCP_PDI_QFI_MAX     4      /* QFIs in one PDI */
#define PFCP_USAGE_MAX       8      /* Usage Reports in one message */
#define PFCP_DLDR_PDR_MAX    8      /* PDR IDs in one Downlink Data Report */
#define PFCP_PEER_MAX        8      /* Remote GTP-U Peers in one path failure report */
/* Grouped IEs nest at most this deep below the message in the IEs decoded here
 * (message > Create PDR > PDI, message > Update FAR > Update Forwarding Parameters). */
#define PFCP_NEST_MAX        2

/* TS 29.244 7.3 message types */
enum pfcp_msg_type {
	PFCP_HEARTBEAT_REQ = 1,
	PFCP_HEARTBEAT_RSP = 2,
	PFCP_ASSOC_SETUP_REQ = 5,
	PFCP_ASSOC_SETUP_RSP = 6,
	PFCP_ASSOC_UPDATE_REQ = 7,
	PFCP_ASSOC_UPDATE_RSP = 8,
	PFCP_ASSOC_RELEASE_REQ = 9,
	PFCP_ASSOC_RELEASE_RSP = 10,
	PFCP_VERSION_NOT_SUPPORTED_RSP = 11,
	PFCP_NODE_REPORT_REQ = 12,
	PFCP_NODE_REPORT_RSP = 13,
	PFCP_SESS_EST_REQ = 50,
	PFCP_SESS_EST_RSP = 51,
	PFCP_SESS_MOD_REQ = 52,
	PFCP_SESS_MOD_RSP = 53,
	PFCP_SESS_DEL_REQ = 54,
	PFCP_SESS_DEL_RSP = 55,
	PFCP_SESS_REPORT_REQ = 56,
	PFCP_SESS_REPORT_RSP = 57,
};

/* TS 29.244 8.1.2 IE types used here */
enum pfcp_ie_type {
	PFCP_IE_CREATE_PDR = 1, PFCP_IE_PDI = 2, PFCP_IE_CREATE_FAR = 3, PFCP_IE_FWD_PARAMS = 4,
	PFCP_IE_CREATE_URR = 6, PFCP_IE_CREATE_QER = 7, PFCP_IE_CREATED_PDR = 8,
	PFCP_IE_UPDATE_PDR = 9, PFCP_IE_UPDATE_FAR = 10, PFCP_IE_UPD_FWD_PARAMS = 11,
	PFCP_IE_UPDATE_BAR_SRR = 12, PFCP_IE_UPDATE_URR = 13, PFCP_IE_UPDATE_QER = 14,
	PFCP_IE_REMOVE_PDR = 15, PFCP_IE_REMOVE_FAR = 16, PFCP_IE_REMOVE_URR = 17,
	PFCP_IE_REMOVE_QER = 18, PFCP_IE_CAUSE = 19, PFCP_IE_SOURCE_IF = 20, PFCP_IE_F_TEID = 21,
	PFCP_IE_NETWORK_INSTANCE = 22, PFCP_IE_SDF_FILTER = 23, PFCP_IE_GATE_STATUS = 25,
	PFCP_IE_MBR = 26, PFCP_IE_GBR = 27, PFCP_IE_PRECEDENCE = 29, PFCP_IE_VOLUME_THRESHOLD = 31,
	PFCP_IE_TIME_THRESHOLD = 32, PFCP_IE_REPORTING_TRIGGERS = 37, PFCP_IE_REPORT_TYPE = 39,
	PFCP_IE_OFFENDING_IE = 40, PFCP_IE_DEST_IF = 42, PFCP_IE_UP_FEATURES = 43,
	PFCP_IE_APPLY_ACTION = 44, PFCP_IE_DDN_DELAY = 46, PFCP_IE_PDR_ID = 56, PFCP_IE_F_SEID = 57,
	PFCP_IE_NODE_ID = 60, PFCP_IE_MEASUREMENT_METHOD = 62, PFCP_IE_USAGE_REPORT_TRIGGER = 63,
	PFCP_IE_MEASUREMENT_PERIOD = 64, PFCP_IE_VOLUME_MEASUREMENT = 66,
	PFCP_IE_DURATION_MEASUREMENT = 67, PFCP_IE_VOLUME_QUOTA = 73, PFCP_IE_TIME_QUOTA = 74,
	PFCP_IE_START_TIME = 75, PFCP_IE_END_TIME = 76, PFCP_IE_USAGE_REPORT_SMR = 78,
	PFCP_IE_USAGE_REPORT_SDR = 79, PFCP_IE_USAGE_REPORT_SRR = 80, PFCP_IE_URR_ID = 81,
	PFCP_IE_DL_DATA_REPORT = 83, PFCP_IE_OUTER_HDR_CREATION = 84, PFCP_IE_CREATE_BAR = 85,
	PFCP_IE_UPDATE_BAR_SMR = 86, PFCP_IE_REMOVE_BAR = 87, PFCP_IE_BAR_ID = 88,
	PFCP_IE_CP_FEATURES = 89, PFCP_IE_UE_IP_ADDRESS = 93, PFCP_IE_OUTER_HDR_REMOVAL = 95,
	PFCP_IE_RECOVERY_TIME_STAMP = 96, PFCP_IE_NODE_REPORT_TYPE = 101,
	PFCP_IE_UP_PATH_FAILURE = 102, PFCP_IE_REMOTE_GTPU_PEER = 103, PFCP_IE_UR_SEQN = 104,
	PFCP_IE_FAR_ID = 108, PFCP_IE_QER_ID = 109, PFCP_IE_QFI = 124,
	PFCP_IE_ERR_IND_REPORT = 99,
	PFCP_IE_PDN_TYPE = 113, PFCP_IE_SUGGESTED_BUF_PKTS = 140, PFCP_IE_3GPP_IF_TYPE = 160,
	PFCP_IE_SMREQ_FLAGS = 49, PFCP_IE_QUERY_URR = 77, PFCP_IE_FAILED_RULE_ID = 114,
};

/* TS 29.244 8.2.1 cause values */
enum pfcp_cause {
	PFCP_CAUSE_ACCEPTED = 1,
	PFCP_CAUSE_REJECTED = 64,
	PFCP_CAUSE_SESSION_NOT_FOUND = 65,
	PFCP_CAUSE_MANDATORY_IE_MISSING = 66,
	PFCP_CAUSE_CONDITIONAL_IE_MISSING = 67,
	PFCP_CAUSE_INVALID_LENGTH = 68,
	PFCP_CAUSE_MANDATORY_IE_INCORRECT = 69,
	PFCP_CAUSE_INVALID_FWD_POLICY = 70,
	PFCP_CAUSE_INVALID_FTEID_ALLOC = 71,
	PFCP_CAUSE_NO_ASSOCIATION = 72,
	PFCP_CAUSE_RULE_FAILURE = 73,
	PFCP_CAUSE_CONGESTION = 74,
	PFCP_CAUSE_NO_RESOURCES = 75,
	PFCP_CAUSE_SERVICE_NOT_SUPPORTED = 76,
	PFCP_CAUSE_SYSTEM_FAILURE = 77,
};

/* TS 29.244 8.2.2 / 8.2.24 interface values (Source / Destination Interface) */
enum pfcp_iface { PFCP_IF_ACCESS = 0, PFCP_IF_CORE = 1, PFCP_IF_SGI_LAN = 2, PFCP_IF_CP = 3 };

/* TS 29.244 8.2.118 3GPP Interface Type (Source Interface Type in a PDI, Destination
 * Interface Type in Forwarding Parameters): 6 bits */
enum { PFCP_IFT_N3_3GPP = 11, PFCP_IFT_N3_FWD = 14, PFCP_IFT_N9 = 15, PFCP_IFT_SGI = 16, PFCP_IFT_N6 = 17 };
/* TS 29.244 8.2.79 PDN Type (3 bits) */
enum { PFCP_PDN_IPV4 = 1, PFCP_PDN_IPV6 = 2, PFCP_PDN_IPV4V6 = 3, PFCP_PDN_NON_IP = 4, PFCP_PDN_ETHERNET = 5 };

/* TS 29.244 8.2.26 Apply Action: octet 5 in bits 0-7, octet 6 in bits 8-15 */
enum {
	PFCP_AA_DROP = 1 << 0, PFCP_AA_FORW = 1 << 1, PFCP_AA_BUFF = 1 << 2,
	PFCP_AA_NOCP = 1 << 3, PFCP_AA_DUPL = 1 << 4,
};
/* TS 29.244 8.2.19 Reporting Triggers (octet 5 bits 0-7, octet 6 bits 8-15, octet 7 16-23) */
enum {
	PFCP_RT_PERIO = 1 << 0, PFCP_RT_VOLTH = 1 << 1, PFCP_RT_TIMTH = 1 << 2,
	PFCP_RT_QUHTI = 1 << 3, PFCP_RT_START = 1 << 4, PFCP_RT_STOPT = 1 << 5,
	PFCP_RT_DROTH = 1 << 6, PFCP_RT_LIUSA = 1 << 7, PFCP_RT_VOLQU = 1 << 8,
	PFCP_RT_TIMQU = 1 << 9,
};
/* TS 29.244 8.2.41 Usage Report Trigger (same octet order) */
enum {
	PFCP_URT_PERIO = 1 << 0, PFCP_URT_VOLTH = 1 << 1, PFCP_URT_TIMTH = 1 << 2,
	PFCP_URT_QUHTI = 1 << 3, PFCP_URT_START = 1 << 4, PFCP_URT_STOPT = 1 << 5,
	PFCP_URT_DROTH = 1 << 6, PFCP_URT_IMMER = 1 << 7, PFCP_URT_VOLQU = 1 << 8,
	PFCP_URT_TIMQU = 1 << 9, PFCP_URT_LIUSA = 1 << 10, PFCP_URT_TERMR = 1 << 11,
};
/* TS 29.244 8.2.40 Measurement Method; 8.2.21 Report Type; 8.2.7 Gate Status */
enum { PFCP_MM_DURAT = 1, PFCP_MM_VOLUM = 2, PFCP_MM_EVENT = 4 };
enum { PFCP_RPT_DLDR = 1, PFCP_RPT_USAR = 2, PFCP_RPT_ERIR = 4, PFCP_RPT_UPIR = 8 };
enum { PFCP_GATE_OPEN = 0, PFCP_GATE_CLOSED = 1 }; /* gate = UL << 2 | DL */
/* TS 29.244 8.2.31 PFCPSMReq-Flags */
enum { PFCP_SMF_DROBU = 1, PFCP_SMF_SNDEM = 2, PFCP_SMF_QAURR = 4 };
/* TS 29.244 8.2.80 Failed Rule ID: Rule ID Type */
enum { PFCP_RULE_PDR = 0, PFCP_RULE_FAR = 1, PFCP_RULE_QER = 2, PFCP_RULE_URR = 3, PFCP_RULE_BAR = 4 };
struct pfcp_rule_id {
	uint8_t type;               /* PFCP_RULE_* */
	uint32_t id;                /* PDR ID 2 octets, FAR / QER / URR ID 4, BAR ID 1 on the wire */
};
/* TS 29.244 8.2.69 Node Report Type */
enum { PFCP_NRT_UPFR = 1 };

/* Opaque bytes, pointing into the decoded buffer */
struct pfcp_buf {
	const uint8_t *p;
	uint16_t len;
};

/* TS 29.244 8.2.38 Node ID */
enum { PFCP_NODE_IPV4 = 0, PFCP_NODE_IPV6 = 1, PFCP_NODE_FQDN = 2 };
struct pfcp_node_id {
	uint8_t type;
	uint8_t addr[16];           /* IPv4 in addr[0..3] */
	struct pfcp_buf fqdn;       /* DNS label encoding, as on the wire */
};

/* TS 29.244 8.2.37 F-SEID */
enum { PFCP_ADDR_V6 = 1, PFCP_ADDR_V4 = 2 };
struct pfcp_fseid {
	uint8_t flags;              /* PFCP_ADDR_V4 | PFCP_ADDR_V6, at least one */
	uint64_t seid;
	uint8_t ipv4[4], ipv6[16];
};

/* TS 29.244 8.2.3 F-TEID. With CH the UP function allocates the TEID (and the
 * address of the V4 / V6 kind asked for); CHID groups PDRs that share it. */
enum { PFCP_FTEID_V4 = 1, PFCP_FTEID_V6 = 2, PFCP_FTEID_CH = 4, PFCP_FTEID_CHID = 8 };
struct pfcp_fteid {
	uint8_t flags;
	uint32_t teid;
	uint8_t ipv4[4], ipv6[16];
	uint8_t choose_id;
};

/* TS 29.244 8.2.62 UE IP Address */
enum {
	PFCP_UEIP_V6 = 1, PFCP_UEIP_V4 = 2, PFCP_UEIP_SD = 4, PFCP_UEIP_V6D = 8,
	PFCP_UEIP_CHV4 = 16, PFCP_UEIP_CHV6 = 32, PFCP_UEIP_V6PL = 64,
};
struct pfcp_ue_ip {
	uint8_t flags;              /* PFCP_UEIP_SD: destination address (downlink PDR) */
	uint8_t ipv4[4], ipv6[16];
	uint8_t v6d_bits, v6_prefix_len;
};

/* TS 29.244 8.2.5 SDF Filter */
enum { PFCP_SDF_FD = 1, PFCP_SDF_TTC = 2, PFCP_SDF_SPI = 4, PFCP_SDF_FL = 8, PFCP_SDF_BID = 16 };
struct pfcp_sdf {
	uint8_t flags;
	struct pfcp_buf flow;       /* flow description, TS 29.212 5.4.2 IPFilterRule text */
	uint16_t tos;
	uint32_t spi, flow_label, filter_id;
};

/* TS 29.244 8.2.56 Outer Header Creation: description octet 5 in bits 8-15 */
enum {
	PFCP_OHC_GTPU4 = 0x0100, PFCP_OHC_GTPU6 = 0x0200, PFCP_OHC_UDP4 = 0x0400,
	PFCP_OHC_UDP6 = 0x0800, PFCP_OHC_IPV4 = 0x1000, PFCP_OHC_IPV6 = 0x2000,
	PFCP_OHC_CTAG = 0x4000, PFCP_OHC_STAG = 0x8000, PFCP_OHC_N19 = 0x0001, PFCP_OHC_N6 = 0x0002,
};
struct pfcp_ohc {
	uint16_t desc;
	uint32_t teid;
	uint8_t ipv4[4], ipv6[16];
	uint16_t port;
	uint32_t ctag, stag;        /* 24 bits each */
};

/* TS 29.244 8.2.64 Outer Header Removal */
enum { PFCP_OHR_GTPU_UDP_IPV4 = 0, PFCP_OHR_GTPU_UDP_IPV6 = 1, PFCP_OHR_GTPU_UDP_IP = 6 };
struct pfcp_ohr {
	uint8_t desc;
	bool has_ext;               /* GTP-U extension header deletion octet present */
	uint8_t ext;                /* bit 1: PDU session container */
};

/* TS 29.244 8.2.13 / 8.2.50 Volume Threshold / Quota; 8.2.44 Volume Measurement */
enum {
	PFCP_VOL_TOVOL = 1, PFCP_VOL_ULVOL = 2, PFCP_VOL_DLVOL = 4,
	PFCP_VOL_TONOP = 8, PFCP_VOL_ULNOP = 16, PFCP_VOL_DLNOP = 32, /* measurement only */
};
struct pfcp_volume {
	uint8_t flags;
	uint64_t total, ul, dl;               /* octets */
	uint64_t total_pkts, ul_pkts, dl_pkts; /* Volume Measurement only */
};

/* TS 29.244 8.2.8 / 8.2.9 MBR / GBR, kbps in 40 bits */
struct pfcp_bitrate {
	uint64_t ul, dl;
};

/* ---- grouped IEs ---- */

/* PDI, TS 29.244 7.5.2.2-2 */
enum {
	PFCP_PDI_SRC_IF = 1 << 0, PFCP_PDI_F_TEID = 1 << 1, PFCP_PDI_NI = 1 << 2,
	PFCP_PDI_UE_IP = 1 << 3, PFCP_PDI_SDF = 1 << 4, PFCP_PDI_QFI = 1 << 5,
	PFCP_PDI_SRC_IF_TYPE = 1 << 6,
};
struct pfcp_pdi {
	uint32_t has;
	uint8_t src_if;
	struct pfcp_fteid fteid;
	struct pfcp_buf ni;
	struct pfcp_ue_ip ue_ip;
	uint8_t n_sdf;
	struct pfcp_sdf sdf[PFCP_SDF_MAX];
	uint8_t n_qfi;
	uint8_t qfi[PFCP_PDI_QFI_MAX];
	uint8_t src_if_type;        /* PFCP_IFT_*, 8.2.118 */
};

/* Create PDR (7.5.2.2) and Update PDR (7.5.4.2) */
enum {
	PFCP_PDR_ID = 1 << 0, PFCP_PDR_PRECEDENCE = 1 << 1, PFCP_PDR_PDI = 1 << 2,
	PFCP_PDR_OHR = 1 << 3, PFCP_PDR_FAR_ID = 1 << 4, PFCP_PDR_URR_ID = 1 << 5,
	PFCP_PDR_QER_ID = 1 << 6,
};
struct pfcp_pdr {
	uint32_t has;
	uint16_t pdr_id;
	uint32_t precedence;
	struct pfcp_pdi pdi;
	struct pfcp_ohr ohr;
	uint32_t far_id;
	uint8_t n_urr;
	uint32_t urr_id[PFCP_PDR_URR_MAX];
	uint8_t n_qer;
	uint32_t qer_id[PFCP_PDR_QER_MAX];
};

/* Forwarding Parameters (7.5.2.3-2) and Update Forwarding Parameters (7.5.4.3-2) */
enum {
	PFCP_FWD_DEST_IF = 1 << 0, PFCP_FWD_NI = 1 << 1, PFCP_FWD_OHC = 1 << 2,
	PFCP_FWD_DEST_IF_TYPE = 1 << 3,
};
struct pfcp_fwd {
	uint32_t has;
	uint8_t dest_if;
	struct pfcp_buf ni;
	struct pfcp_ohc ohc;
	uint8_t dest_if_type;       /* PFCP_IFT_*, 8.2.118 */
};

/* Create FAR (7.5.2.3) and Update FAR (7.5.4.3); fwd is Forwarding Parameters
 * in a Create FAR and Update Forwarding Parameters in an Update FAR. */
enum {
	PFCP_FAR_ID = 1 << 0, PFCP_FAR_APPLY = 1 << 1, PFCP_FAR_FWD = 1 << 2,
	PFCP_FAR_BAR_ID = 1 << 3,
};
struct pfcp_far {
	uint32_t has;
	uint32_t far_id;
	uint32_t apply;             /* PFCP_AA_* */
	struct pfcp_fwd fwd;
	uint8_t bar_id;
};

/* Create QER (7.5.2.5) and Update QER (7.5.4.5) */
enum {
	PFCP_QER_ID = 1 << 0, PFCP_QER_GATE = 1 << 1, PFCP_QER_MBR = 1 << 2,
	PFCP_QER_GBR = 1 << 3, PFCP_QER_QFI = 1 << 4,
};
struct pfcp_qer {
	uint32_t has;
	uint32_t qer_id;
	uint8_t gate;               /* UL gate << 2 | DL gate, PFCP_GATE_* */
	struct pfcp_bitrate mbr, gbr;
	uint8_t qfi;
};

/* Create URR (7.5.2.4) and Update URR (7.5.4.4) */
enum {
	PFCP_URR_ID = 1 << 0, PFCP_URR_METHOD = 1 << 1, PFCP_URR_TRIGGERS = 1 << 2,
	PFCP_URR_PERIOD = 1 << 3, PFCP_URR_VOL_THRESH = 1 << 4, PFCP_URR_VOL_QUOTA = 1 << 5,
	PFCP_URR_TIME_THRESH = 1 << 6, PFCP_URR_TIME_QUOTA = 1 << 7,
};
struct pfcp_urr {
	uint32_t has;
	uint32_t urr_id;
	uint8_t method;             /* PFCP_MM_* */
	uint32_t triggers;          /* PFCP_RT_* */
	uint32_t period;            /* seconds */
	struct pfcp_volume vol_thresh, vol_quota;
	uint32_t time_thresh, time_quota; /* seconds */
};

/* Create BAR (7.5.2.6), Update BAR (7.5.4.11 / 7.5.9.2), Remove BAR (7.5.4.12) */
enum { PFCP_BAR_ID = 1 << 0, PFCP_BAR_DDN_DELAY = 1 << 1, PFCP_BAR_SUGGESTED_PKTS = 1 << 2 };
struct pfcp_bar {
	uint32_t has;
	uint8_t bar_id;
	uint8_t ddn_delay;          /* units of 50 ms, 8.2.28 */
	uint8_t suggested_pkts;     /* 8.2.112 */
};

/* Remove PDR / FAR / URR / QER (7.5.4.6 - 7.5.4.9): the one rule ID */
enum { PFCP_RM_ID = 1 << 0 };
struct pfcp_rm {
	uint32_t has;
	uint32_t id;                /* PDR ID (16 bits) or FAR / URR / QER ID */
};

/* Created PDR (7.5.3.2) */
enum { PFCP_CPDR_ID = 1 << 0, PFCP_CPDR_F_TEID = 1 << 1, PFCP_CPDR_UE_IP = 1 << 2 };
struct pfcp_created_pdr {
	uint32_t has;
	uint16_t pdr_id;
	struct pfcp_fteid fteid;
	struct pfcp_ue_ip ue_ip;
};

/* Usage Report (7.5.5.2 / 7.5.7.2 / 7.5.8.3) */
enum {
	PFCP_UR_URR_ID = 1 << 0, PFCP_UR_SEQN = 1 << 1, PFCP_UR_TRIGGER = 1 << 2,
	PFCP_UR_START = 1 << 3, PFCP_UR_END = 1 << 4, PFCP_UR_VOLUME = 1 << 5,
	PFCP_UR_DURATION = 1 << 6,
};
struct pfcp_usage_report {
	uint32_t has;
	uint32_t urr_id;
	uint32_t seqn;
	uint32_t trigger;           /* PFCP_URT_* */
	uint32_t start, end;        /* NTP seconds, 8.2.52 / 8.2.53 */
	struct pfcp_volume volume;
	uint32_t duration;          /* seconds */
};

/* Downlink Data Report (7.5.8.2) */
enum { PFCP_DLDR_PDR_ID = 1 << 0 };
struct pfcp_dl_report {
	uint32_t has;
	uint8_t n_pdr;
	uint16_t pdr_id[PFCP_DLDR_PDR_MAX];
};

/* Error Indication Report (7.5.8.4): the Remote F-TEIDs (8.2.3; V4 / V6, TEID, address) of the
 * GTP-U tunnels a peer sent an Error Indication about (TS 29.281 7.3.1) */
#define PFCP_ERIR_FTEID_MAX 4
enum { PFCP_ERIR_F_TEID = 1 << 0 };
struct pfcp_err_ind_report {
	uint32_t has;
	uint8_t n_fteid;
	struct pfcp_fteid fteid[PFCP_ERIR_FTEID_MAX];
};

/* User Plane Path Failure Report (7.4.5.1.2): Remote GTP-U Peers, raw (8.2.70) */
enum { PFCP_UPFR_PEER = 1 << 0 };
struct pfcp_path_failure {
	uint32_t has;
	uint8_t n_peer;
	struct pfcp_buf peer[PFCP_PEER_MAX];
};

/* ---- message bodies ---- */

/* Heartbeat (7.4.2), Association Setup / Update / Release (7.4.4) and Node
 * Report (7.4.5) request and response share one body; each message's table
 * says which of these IEs it has and which are mandatory. */
enum {
	PFCP_N_NODE_ID = 1 << 0, PFCP_N_CAUSE = 1 << 1, PFCP_N_RECOVERY = 1 << 2,
	PFCP_N_UP_FEATURES = 1 << 3, PFCP_N_CP_FEATURES = 1 << 4, PFCP_N_OFFENDING = 1 << 5,
	PFCP_N_REPORT_TYPE = 1 << 6, PFCP_N_PATH_FAILURE = 1 << 7,
};
struct pfcp_node_msg {
	uint32_t has;
	struct pfcp_node_id node_id;
	uint8_t cause;
	uint32_t recovery;          /* Recovery Time Stamp, NTP seconds (8.2.65) */
	struct pfcp_buf up_features, cp_features; /* 8.2.25 / 8.2.58 bit strings */
	uint16_t offending_ie;
	uint8_t report_type;        /* PFCP_NRT_* */
	struct pfcp_path_failure path_failure;
};

/* Session Establishment Request (7.5.2) */
enum {
	PFCP_SER_NODE_ID = 1 << 0, PFCP_SER_F_SEID = 1 << 1, PFCP_SER_PDR = 1 << 2,
	PFCP_SER_FAR = 1 << 3, PFCP_SER_URR = 1 << 4, PFCP_SER_QER = 1 << 5,
	PFCP_SER_BAR = 1 << 6, PFCP_SER_PDN_TYPE = 1 << 7,
};
struct pfcp_sess_est_req {
	uint32_t has;
	struct pfcp_node_id node_id;
	struct pfcp_fseid cp_fseid;
	uint8_t n_pdr, n_far, n_urr, n_qer;
	struct pfcp_pdr pdr[PFCP_PDR_MAX];
	struct pfcp_far far[PFCP_FAR_MAX];
	struct pfcp_urr urr[PFCP_URR_MAX];
	struct pfcp_qer qer[PFCP_QER_MAX];
	struct pfcp_bar bar;
	uint8_t pdn_type;           /* PFCP_PDN_*, 8.2.79 (C: a PDU session, 7.5.2.1) */
};

/* Session Modification Request (7.5.4) */
enum {
	PFCP_SMR_F_SEID = 1 << 0, PFCP_SMR_RM_PDR = 1 << 1, PFCP_SMR_RM_FAR = 1 << 2,
	PFCP_SMR_RM_URR = 1 << 3, PFCP_SMR_RM_QER = 1 << 4, PFCP_SMR_RM_BAR = 1 << 5,
	PFCP_SMR_PDR = 1 << 6, PFCP_SMR_FAR = 1 << 7, PFCP_SMR_URR = 1 << 8,
	PFCP_SMR_QER = 1 << 9, PFCP_SMR_BAR = 1 << 10, PFCP_SMR_UPD_PDR = 1 << 11,
	PFCP_SMR_UPD_FAR = 1 << 12, PFCP_SMR_UPD_URR = 1 << 13, PFCP_SMR_UPD_QER = 1 << 14,
	PFCP_SMR_UPD_BAR = 1 << 15, PFCP_SMR_QUERY_URR = 1 << 16, PFCP_SMR_FLAGS = 1 << 17,
};
struct pfcp_sess_mod_req {
	uint32_t has;
	struct pfcp_fseid cp_fseid;
	uint8_t n_rm_pdr, n_rm_far, n_rm_urr, n_rm_qer;
	struct pfcp_rm rm_pdr[PFCP_PDR_MAX], rm_far[PFCP_FAR_MAX];
	struct pfcp_rm rm_urr[PFCP_URR_MAX], rm_qer[PFCP_QER_MAX];
	struct pfcp_bar rm_bar;
	uint8_t n_pdr, n_far, n_urr, n_qer;
	struct pfcp_pdr pdr[PFCP_PDR_MAX];
	struct pfcp_far far[PFCP_FAR_MAX];
	struct pfcp_urr urr[PFCP_URR_MAX];
	struct pfcp_qer qer[PFCP_QER_MAX];
	struct pfcp_bar bar;
	uint8_t n_upd_pdr, n_upd_far, n_upd_urr, n_upd_qer;
	struct pfcp_pdr upd_pdr[PFCP_PDR_MAX];
	struct pfcp_far upd_far[PFCP_FAR_MAX];
	struct pfcp_urr upd_urr[PFCP_URR_MAX];
	struct pfcp_qer upd_qer[PFCP_QER_MAX];
	struct pfcp_bar upd_bar;
	uint8_t flags;              /* PFCPSMReq-Flags, PFCP_SMF_* (8.2.31) */
	uint8_t n_query_urr;        /* Query URR (7.5.4.10): the URR IDs */
	struct pfcp_rm query_urr[PFCP_URR_MAX];
};

/* Session Establishment / Modification / Deletion Response (7.5.3, 7.5.5,
 * 7.5.7): one body, the tables differ (Node ID and UP F-SEID only in the
 * establishment response; usage reports in modification and deletion). */
enum {
	PFCP_SRSP_NODE_ID = 1 << 0, PFCP_SRSP_CAUSE = 1 << 1, PFCP_SRSP_OFFENDING = 1 << 2,
	PFCP_SRSP_F_SEID = 1 << 3, PFCP_SRSP_CREATED_PDR = 1 << 4, PFCP_SRSP_USAGE = 1 << 5,
	PFCP_SRSP_FAILED_RULE = 1 << 6,
};
struct pfcp_sess_rsp {
	uint32_t has;
	struct pfcp_node_id node_id;
	uint8_t cause;
	uint16_t offending_ie;
	struct pfcp_fseid up_fseid;
	uint8_t n_created, n_usage;
	struct pfcp_created_pdr created[PFCP_PDR_MAX];
	struct pfcp_usage_report usage[PFCP_USAGE_MAX];
	struct pfcp_rule_id failed_rule;   /* 8.2.80, establishment / modification (7.5.3.1, 7.5.5.1) */
};

/* Session Report Request (7.5.8) */
enum {
	PFCP_SRR_TYPE = 1 << 0, PFCP_SRR_DL_REPORT = 1 << 1, PFCP_SRR_USAGE = 1 << 2,
	PFCP_SRR_ERR_IND = 1 << 3,
};
struct pfcp_sess_report_req {
	uint32_t has;
	uint8_t type;               /* PFCP_RPT_* */
	struct pfcp_dl_report dl;
	uint8_t n_usage;
	struct pfcp_usage_report usage[PFCP_USAGE_MAX];
	struct pfcp_err_ind_report err_ind;   /* Report Type ERIR (8.2.21) */
};

/* Session Report Response (7.5.9) */
enum { PFCP_SRRSP_CAUSE = 1 << 0, PFCP_SRRSP_OFFENDING = 1 << 1, PFCP_SRRSP_UPD_BAR = 1 << 2 };
struct pfcp_sess_report_rsp {
	uint32_t has;
	uint8_t cause;
	uint16_t offending_ie;
	struct pfcp_bar upd_bar;
};

/* TS 29.244 7.2.2 header */
struct pfcp_hdr {
	uint8_t type;               /* enum pfcp_msg_type */
	bool fo;                    /* decode: another message follows in the datagram */
	bool has_prio;              /* MP flag: session messages only */
	uint8_t prio;               /* 0 (highest) .. 15 */
	uint64_t seid;              /* session messages (S = 1) */
	uint32_t seq;               /* 24 bits */
};

struct pfcp_msg {
	struct pfcp_hdr h;
	union {
		struct pfcp_node_msg node;          /* 1, 2, 5-10, 12, 13 (11 has no IEs) */
		struct pfcp_sess_est_req est;       /* 50 */
		struct pfcp_sess_mod_req mod;       /* 52 */
		struct pfcp_sess_rsp rsp;           /* 51, 53, 55 (54 has no IEs) */
		struct pfcp_sess_report_req rep;    /* 56 */
		struct pfcp_sess_report_rsp rep_rsp; /* 57 */
	};
};

struct pfcp_err {
	size_t off;                 /* byte offset of the problem in the decoded buffer */
	uint16_t ie;                /* offending IE type (0: the header) */
	uint16_t parent;            /* grouped IE it sits in (0: the message) */
	const char *reason;         /* static string */
};

/*
 * Decode one PFCP message from buf. Returns the bytes it used (4 + the header's
 * message length; more may follow when m->h.fo is set) or a negative errno as
 * listed at the top, with *err filled (err may be NULL). m->h is cleared and
 * filled as far as the header could be read; the body of the message type is
 * cleared first (fields not on the wire read as 0), the rest of the union is
 * left alone. After an error only m->h means anything.
 */
int pfcp_decode(const uint8_t *buf, size_t len, struct pfcp_msg *m, struct pfcp_err *err);

/* Encode m (header from m->h; S flag and SEID from the message type). Returns the
 * bytes written or a negative errno. */
int pfcp_encode(const struct pfcp_msg *m, uint8_t *out, size_t cap);

/* Whether type is a session message (S = 1, SEID in the header); -ENOMSG if unknown. */
int pfcp_msg_is_session(uint8_t type);

/* TS 29.244 8.2.1 cause a receiver answers a pfcp_decode() error with (0: no answer). */
int pfcp_err_cause(int err);

/* Static names (never NULL: "?" for unknown values). */
const char *pfcp_msg_name(uint8_t type);
const char *pfcp_ie_name(uint16_t type);
const char *pfcp_cause_name(uint8_t cause);

/* The whole message as text ("Session Establishment Request seq=1 seid=0x0
 * {Node ID=ipv4:10.0.0.1 ...}"), truncated to fit. Returns strlen(out) of the
 * untruncated text like snprintf, or a negative errno. */
int pfcp_msg_to_str(const struct pfcp_msg *m, char *out, size_t cap);

#endif
