/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP message and grouped IE tables: the IEs of each TS 29.244 7.4 / 7.5
 * table that this codec decodes, in the spec's order (the encoder writes
 * them in this order), with their presence (M = mandatory; C and O are both
 * optional to the codec: conditions are the caller's business) and where
 * each lands in the caller's struct.
 */
#include <stddef.h>

#include "common/pfcp/pfcp_int.h"

#define LEN(a) (sizeof(a) / sizeof((a)[0]))
#define FSIZE(S, F) sizeof(((S *)0)->F)

/* One IE held once in field F of struct S */
#define ONE(T, K, M, S, F, BIT, ...) \
	{ .type = T, .kind = K, .mand = M, .max = 1, .off = offsetof(S, F), .esize = FSIZE(S, F), .bit = BIT, __VA_ARGS__ }
/* A repeated IE held in array F, its count in N */
#define MANY(T, K, M, S, F, N, BIT, ...)                                                          \
	{ .type = T, .kind = K, .mand = M, .max = LEN(((S *)0)->F), .off = offsetof(S, F),       \
	  .cnt_off = offsetof(S, N), .esize = FSIZE(S, F[0]), .bit = BIT, __VA_ARGS__ }
#define GROUP(g) .grp = &(g)
#define U8M(mask) .arg = (mask)
#define DEF_GRP(name, T, tab) static const struct pfcp_grp name = { T, LEN(tab), tab }

enum { O = 0, M = 1 };
#define U8 PFCP_K_U8
#define U16 PFCP_K_U16
#define U32 PFCP_K_U32
#define GRPK PFCP_K_GROUP

/* ---- PDR: 7.5.2.2 Create PDR, 7.5.4.2 Update PDR, 7.5.4.6 Remove PDR ---- */
static const struct pfcp_ie_desc pdi_ie[] = {
	ONE(PFCP_IE_SOURCE_IF, U8, M, struct pfcp_pdi, src_if, PFCP_PDI_SRC_IF, U8M(0x0f)),
	ONE(PFCP_IE_F_TEID, PFCP_K_FTEID, O, struct pfcp_pdi, fteid, PFCP_PDI_F_TEID),
	ONE(PFCP_IE_NETWORK_INSTANCE, PFCP_K_BUF, O, struct pfcp_pdi, ni, PFCP_PDI_NI),
	ONE(PFCP_IE_UE_IP_ADDRESS, PFCP_K_UE_IP, O, struct pfcp_pdi, ue_ip, PFCP_PDI_UE_IP),
	MANY(PFCP_IE_SDF_FILTER, PFCP_K_SDF, O, struct pfcp_pdi, sdf, n_sdf, PFCP_PDI_SDF),
	MANY(PFCP_IE_QFI, U8, O, struct pfcp_pdi, qfi, n_qfi, PFCP_PDI_QFI, U8M(0x3f)),
	ONE(PFCP_IE_3GPP_IF_TYPE, U8, O, struct pfcp_pdi, src_if_type, PFCP_PDI_SRC_IF_TYPE, U8M(0x3f)),
};
DEF_GRP(g_pdi, PFCP_IE_PDI, pdi_ie);

static const struct pfcp_ie_desc create_pdr_ie[] = {
	ONE(PFCP_IE_PDR_ID, U16, M, struct pfcp_pdr, pdr_id, PFCP_PDR_ID),
	ONE(PFCP_IE_PRECEDENCE, U32, M, struct pfcp_pdr, precedence, PFCP_PDR_PRECEDENCE),
	ONE(PFCP_IE_PDI, GRPK, M, struct pfcp_pdr, pdi, PFCP_PDR_PDI, GROUP(g_pdi)),
	ONE(PFCP_IE_OUTER_HDR_REMOVAL, PFCP_K_OHR, O, struct pfcp_pdr, ohr, PFCP_PDR_OHR),
	ONE(PFCP_IE_FAR_ID, U32, O, struct pfcp_pdr, far_id, PFCP_PDR_FAR_ID),
	MANY(PFCP_IE_URR_ID, U32, O, struct pfcp_pdr, urr_id, n_urr, PFCP_PDR_URR_ID),
	MANY(PFCP_IE_QER_ID, U32, O, struct pfcp_pdr, qer_id, n_qer, PFCP_PDR_QER_ID),
};
DEF_GRP(g_create_pdr, PFCP_IE_CREATE_PDR, create_pdr_ie);

static const struct pfcp_ie_desc update_pdr_ie[] = {
	ONE(PFCP_IE_PDR_ID, U16, M, struct pfcp_pdr, pdr_id, PFCP_PDR_ID),
	ONE(PFCP_IE_OUTER_HDR_REMOVAL, PFCP_K_OHR, O, struct pfcp_pdr, ohr, PFCP_PDR_OHR),
	ONE(PFCP_IE_PRECEDENCE, U32, O, struct pfcp_pdr, precedence, PFCP_PDR_PRECEDENCE),
	ONE(PFCP_IE_PDI, GRPK, O, struct pfcp_pdr, pdi, PFCP_PDR_PDI, GROUP(g_pdi)),
	ONE(PFCP_IE_FAR_ID, U32, O, struct pfcp_pdr, far_id, PFCP_PDR_FAR_ID),
	MANY(PFCP_IE_URR_ID, U32, O, struct pfcp_pdr, urr_id, n_urr, PFCP_PDR_URR_ID),
	MANY(PFCP_IE_QER_ID, U32, O, struct pfcp_pdr, qer_id, n_qer, PFCP_PDR_QER_ID),
};
DEF_GRP(g_update_pdr, PFCP_IE_UPDATE_PDR, update_pdr_ie);

/* Remove PDR / FAR / URR / QER hold one rule ID; the PDR ID has 2 octets */
static const struct pfcp_ie_desc rm_pdr_ie[] = {
	ONE(PFCP_IE_PDR_ID, U32, M, struct pfcp_rm, id, PFCP_RM_ID, .arg = 2),
};
DEF_GRP(g_rm_pdr, PFCP_IE_REMOVE_PDR, rm_pdr_ie);
static const struct pfcp_ie_desc rm_far_ie[] = { ONE(PFCP_IE_FAR_ID, U32, M, struct pfcp_rm, id, PFCP_RM_ID) };
DEF_GRP(g_rm_far, PFCP_IE_REMOVE_FAR, rm_far_ie);
static const struct pfcp_ie_desc rm_urr_ie[] = { ONE(PFCP_IE_URR_ID, U32, M, struct pfcp_rm, id, PFCP_RM_ID) };
DEF_GRP(g_rm_urr, PFCP_IE_REMOVE_URR, rm_urr_ie);
static const struct pfcp_ie_desc rm_qer_ie[] = { ONE(PFCP_IE_QER_ID, U32, M, struct pfcp_rm, id, PFCP_RM_ID) };
DEF_GRP(g_rm_qer, PFCP_IE_REMOVE_QER, rm_qer_ie);
/* 7.5.4.10 Query URR: the URR ID */
DEF_GRP(g_query_urr, PFCP_IE_QUERY_URR, rm_urr_ie);

/* ---- FAR: 7.5.2.3 Create FAR, 7.5.4.3 Update FAR ---- */
#define FWD_IE(dest_m)                                                                             \
	ONE(PFCP_IE_DEST_IF, U8, dest_m, struct pfcp_fwd, dest_if, PFCP_FWD_DEST_IF, U8M(0x0f)),   \
	ONE(PFCP_IE_NETWORK_INSTANCE, PFCP_K_BUF, O, struct pfcp_fwd, ni, PFCP_FWD_NI),            \
	ONE(PFCP_IE_OUTER_HDR_CREATION, PFCP_K_OHC, O, struct pfcp_fwd, ohc, PFCP_FWD_OHC),         \
	ONE(PFCP_IE_3GPP_IF_TYPE, U8, O, struct pfcp_fwd, dest_if_type, PFCP_FWD_DEST_IF_TYPE, U8M(0x3f))
static const struct pfcp_ie_desc fwd_ie[] = { FWD_IE(M) };
DEF_GRP(g_fwd, PFCP_IE_FWD_PARAMS, fwd_ie);
static const struct pfcp_ie_desc upd_fwd_ie[] = { FWD_IE(O) };
DEF_GRP(g_upd_fwd, PFCP_IE_UPD_FWD_PARAMS, upd_fwd_ie);

/* Apply Action: 2 octets (8.2.26 from Release 16; Open5GS 2.8 drops a 1-octet one), read
 * from 1 octet up (a Release 15 sender; the octet-6 flags then read 0). Forwarding
 * Parameters in a Create FAR, Update Forwarding Parameters in an Update FAR. */
#define FAR_IE(m, fwd_type, fwd_grp)                                                               \
	ONE(PFCP_IE_FAR_ID, U32, M, struct pfcp_far, far_id, PFCP_FAR_ID),                       \
	ONE(PFCP_IE_APPLY_ACTION, PFCP_K_FLAGS, m, struct pfcp_far, apply, PFCP_FAR_APPLY, .arg = 2), \
	ONE(fwd_type, GRPK, O, struct pfcp_far, fwd, PFCP_FAR_FWD, GROUP(fwd_grp)),              \
	ONE(PFCP_IE_BAR_ID, U8, O, struct pfcp_far, bar_id, PFCP_FAR_BAR_ID, U8M(0xff))
static const struct pfcp_ie_desc create_far_ie[] = { FAR_IE(M, PFCP_IE_FWD_PARAMS, g_fwd) };
DEF_GRP(g_create_far, PFCP_IE_CREATE_FAR, create_far_ie);
static const struct pfcp_ie_desc update_far_ie[] = { FAR_IE(O, PFCP_IE_UPD_FWD_PARAMS, g_upd_fwd) };
DEF_GRP(g_update_far, PFCP_IE_UPDATE_FAR, update_far_ie);

/* ---- QER: 7.5.2.5 Create QER, 7.5.4.5 Update QER ---- */
#define QER_IE(gate_m)                                                                             \
	ONE(PFCP_IE_QER_ID, U32, M, struct pfcp_qer, qer_id, PFCP_QER_ID),                       \
	ONE(PFCP_IE_GATE_STATUS, U8, gate_m, struct pfcp_qer, gate, PFCP_QER_GATE, U8M(0x0f)),   \
	ONE(PFCP_IE_MBR, PFCP_K_BITRATE, O, struct pfcp_qer, mbr, PFCP_QER_MBR),                 \
	ONE(PFCP_IE_GBR, PFCP_K_BITRATE, O, struct pfcp_qer, gbr, PFCP_QER_GBR),                 \
	ONE(PFCP_IE_QFI, U8, O, struct pfcp_qer, qfi, PFCP_QER_QFI, U8M(0x3f))
static const struct pfcp_ie_desc create_qer_ie[] = { QER_IE(M) };
DEF_GRP(g_create_qer, PFCP_IE_CREATE_QER, create_qer_ie);
static const struct pfcp_ie_desc update_qer_ie[] = { QER_IE(O) };
DEF_GRP(g_update_qer, PFCP_IE_UPDATE_QER, update_qer_ie);

/* ---- URR: 7.5.2.4 Create URR, 7.5.4.4 Update URR ---- */
/* Reporting Triggers: 3 octets (8.2.19 from Release 16), read from 1 octet up */
#define URR_IE(m)                                                                                  \
	ONE(PFCP_IE_URR_ID, U32, M, struct pfcp_urr, urr_id, PFCP_URR_ID),                       \
	ONE(PFCP_IE_MEASUREMENT_METHOD, U8, m, struct pfcp_urr, method, PFCP_URR_METHOD, U8M(0x07)), \
	ONE(PFCP_IE_REPORTING_TRIGGERS, PFCP_K_FLAGS, m, struct pfcp_urr, triggers, PFCP_URR_TRIGGERS, \
	    .arg = 3),                                                                             \
	ONE(PFCP_IE_MEASUREMENT_PERIOD, U32, O, struct pfcp_urr, period, PFCP_URR_PERIOD),       \
	ONE(PFCP_IE_VOLUME_THRESHOLD, PFCP_K_VOLUME, O, struct pfcp_urr, vol_thresh, PFCP_URR_VOL_THRESH), \
	ONE(PFCP_IE_VOLUME_QUOTA, PFCP_K_VOLUME, O, struct pfcp_urr, vol_quota, PFCP_URR_VOL_QUOTA), \
	ONE(PFCP_IE_TIME_THRESHOLD, U32, O, struct pfcp_urr, time_thresh, PFCP_URR_TIME_THRESH), \
	ONE(PFCP_IE_TIME_QUOTA, U32, O, struct pfcp_urr, time_quota, PFCP_URR_TIME_QUOTA)
static const struct pfcp_ie_desc create_urr_ie[] = { URR_IE(M) };
DEF_GRP(g_create_urr, PFCP_IE_CREATE_URR, create_urr_ie);
static const struct pfcp_ie_desc update_urr_ie[] = { URR_IE(O) };
DEF_GRP(g_update_urr, PFCP_IE_UPDATE_URR, update_urr_ie);

/* ---- BAR: 7.5.2.6 Create BAR, 7.5.4.11 / 7.5.9.2 Update BAR, 7.5.4.12 Remove BAR ---- */
static const struct pfcp_ie_desc bar_ie[] = {
	ONE(PFCP_IE_BAR_ID, U8, M, struct pfcp_bar, bar_id, PFCP_BAR_ID, U8M(0xff)),
	ONE(PFCP_IE_DDN_DELAY, U8, O, struct pfcp_bar, ddn_delay, PFCP_BAR_DDN_DELAY, U8M(0xff)),
	ONE(PFCP_IE_SUGGESTED_BUF_PKTS, U8, O, struct pfcp_bar, suggested_pkts, PFCP_BAR_SUGGESTED_PKTS,
	    U8M(0xff)),
};
DEF_GRP(g_create_bar, PFCP_IE_CREATE_BAR, bar_ie);
DEF_GRP(g_update_bar_smr, PFCP_IE_UPDATE_BAR_SMR, bar_ie);
DEF_GRP(g_update_bar_srr, PFCP_IE_UPDATE_BAR_SRR, bar_ie);
static const struct pfcp_ie_desc rm_bar_ie[] = {
	ONE(PFCP_IE_BAR_ID, U8, M, struct pfcp_bar, bar_id, PFCP_BAR_ID, U8M(0xff)),
};
DEF_GRP(g_rm_bar, PFCP_IE_REMOVE_BAR, rm_bar_ie);

/* ---- reports: 7.5.3.2 Created PDR, Usage Report (7.5.5.2 / 7.5.7.2 / 7.5.8.3),
 * 7.5.8.2 Downlink Data Report, 7.4.5.1.2 User Plane Path Failure Report ---- */
static const struct pfcp_ie_desc created_pdr_ie[] = {
	ONE(PFCP_IE_PDR_ID, U16, M, struct pfcp_created_pdr, pdr_id, PFCP_CPDR_ID),
	ONE(PFCP_IE_F_TEID, PFCP_K_FTEID, O, struct pfcp_created_pdr, fteid, PFCP_CPDR_F_TEID),
	ONE(PFCP_IE_UE_IP_ADDRESS, PFCP_K_UE_IP, O, struct pfcp_created_pdr, ue_ip, PFCP_CPDR_UE_IP),
};
DEF_GRP(g_created_pdr, PFCP_IE_CREATED_PDR, created_pdr_ie);

/* Usage Report Trigger: 3 octets (8.2.41 from Release 16), read from 1 octet up */
static const struct pfcp_ie_desc usage_ie[] = {
	ONE(PFCP_IE_URR_ID, U32, M, struct pfcp_usage_report, urr_id, PFCP_UR_URR_ID),
	ONE(PFCP_IE_UR_SEQN, U32, M, struct pfcp_usage_report, seqn, PFCP_UR_SEQN),
	ONE(PFCP_IE_USAGE_REPORT_TRIGGER, PFCP_K_FLAGS, M, struct pfcp_usage_report, trigger, PFCP_UR_TRIGGER,
	    .arg = 3),
	ONE(PFCP_IE_START_TIME, U32, O, struct pfcp_usage_report, start, PFCP_UR_START),
	ONE(PFCP_IE_END_TIME, U32, O, struct pfcp_usage_report, end, PFCP_UR_END),
	ONE(PFCP_IE_VOLUME_MEASUREMENT, PFCP_K_VOLMEAS, O, struct pfcp_usage_report, volume, PFCP_UR_VOLUME),
	ONE(PFCP_IE_DURATION_MEASUREMENT, U32, O, struct pfcp_usage_report, duration, PFCP_UR_DURATION),
};
DEF_GRP(g_usage_smr, PFCP_IE_USAGE_REPORT_SMR, usage_ie);
DEF_GRP(g_usage_sdr, PFCP_IE_USAGE_REPORT_SDR, usage_ie);
DEF_GRP(g_usage_srr, PFCP_IE_USAGE_REPORT_SRR, usage_ie);

static const struct pfcp_ie_desc dl_report_ie[] = {
	MANY(PFCP_IE_PDR_ID, U16, M, struct pfcp_dl_report, pdr_id, n_pdr, PFCP_DLDR_PDR_ID),
};
DEF_GRP(g_dl_report, PFCP_IE_DL_DATA_REPORT, dl_report_ie);

/* 7.5.8.4 Error Indication Report: Remote F-TEID, M, one or more */
static const struct pfcp_ie_desc err_ind_report_ie[] = {
	MANY(PFCP_IE_F_TEID, PFCP_K_FTEID, M, struct pfcp_err_ind_report, fteid, n_fteid, PFCP_ERIR_F_TEID),
};
DEF_GRP(g_err_ind_report, PFCP_IE_ERR_IND_REPORT, err_ind_report_ie);

static const struct pfcp_ie_desc path_failure_ie[] = {
	MANY(PFCP_IE_REMOTE_GTPU_PEER, PFCP_K_BUF, M, struct pfcp_path_failure, peer, n_peer, PFCP_UPFR_PEER,
	     .arg = 1),
};
DEF_GRP(g_path_failure, PFCP_IE_UP_PATH_FAILURE, path_failure_ie);

/* ---- node messages, 7.4: heartbeat 7.4.2, association 7.4.4, node report 7.4.5 ---- */
#define NM struct pfcp_node_msg
#define N_NODE(m) ONE(PFCP_IE_NODE_ID, PFCP_K_NODE_ID, m, NM, node_id, PFCP_N_NODE_ID)
#define N_CAUSE(m) ONE(PFCP_IE_CAUSE, U8, m, NM, cause, PFCP_N_CAUSE, U8M(0xff))
#define N_RECOVERY(m) ONE(PFCP_IE_RECOVERY_TIME_STAMP, U32, m, NM, recovery, PFCP_N_RECOVERY)
#define N_FEATURES                                                                              \
	ONE(PFCP_IE_UP_FEATURES, PFCP_K_BUF, O, NM, up_features, PFCP_N_UP_FEATURES, .arg = 1), \
	ONE(PFCP_IE_CP_FEATURES, PFCP_K_BUF, O, NM, cp_features, PFCP_N_CP_FEATURES, .arg = 1)
#define N_OFFENDING ONE(PFCP_IE_OFFENDING_IE, U16, O, NM, offending_ie, PFCP_N_OFFENDING)

static const struct pfcp_ie_desc heartbeat_ie[] = { N_RECOVERY(M) };
DEF_GRP(g_heartbeat, 0, heartbeat_ie);
static const struct pfcp_ie_desc assoc_setup_req_ie[] = { N_NODE(M), N_RECOVERY(M), N_FEATURES };
DEF_GRP(g_assoc_setup_req, 0, assoc_setup_req_ie);
static const struct pfcp_ie_desc assoc_setup_rsp_ie[] = { N_NODE(M), N_CAUSE(M), N_RECOVERY(M), N_FEATURES };
DEF_GRP(g_assoc_setup_rsp, 0, assoc_setup_rsp_ie);
static const struct pfcp_ie_desc assoc_update_req_ie[] = { N_NODE(M), N_FEATURES };
DEF_GRP(g_assoc_update_req, 0, assoc_update_req_ie);
static const struct pfcp_ie_desc assoc_update_rsp_ie[] = { N_NODE(M), N_CAUSE(M), N_FEATURES };
DEF_GRP(g_assoc_update_rsp, 0, assoc_update_rsp_ie);
static const struct pfcp_ie_desc assoc_release_req_ie[] = { N_NODE(M) };
DEF_GRP(g_assoc_release_req, 0, assoc_release_req_ie);
static const struct pfcp_ie_desc node_cause_ie[] = { N_NODE(M), N_CAUSE(M), N_OFFENDING };
DEF_GRP(g_node_cause, 0, node_cause_ie);
static const struct pfcp_ie_desc node_report_req_ie[] = {
	N_NODE(M),
	ONE(PFCP_IE_NODE_REPORT_TYPE, U8, M, NM, report_type, PFCP_N_REPORT_TYPE, U8M(0xff)),
	ONE(PFCP_IE_UP_PATH_FAILURE, GRPK, O, NM, path_failure, PFCP_N_PATH_FAILURE, GROUP(g_path_failure)),
};
DEF_GRP(g_node_report_req, 0, node_report_req_ie);

/* ---- session messages, 7.5 ---- */
#define ER struct pfcp_sess_est_req
static const struct pfcp_ie_desc est_req_ie[] = {
	ONE(PFCP_IE_NODE_ID, PFCP_K_NODE_ID, M, ER, node_id, PFCP_SER_NODE_ID),
	ONE(PFCP_IE_F_SEID, PFCP_K_FSEID, M, ER, cp_fseid, PFCP_SER_F_SEID),
	MANY(PFCP_IE_CREATE_PDR, GRPK, M, ER, pdr, n_pdr, PFCP_SER_PDR, GROUP(g_create_pdr)),
	MANY(PFCP_IE_CREATE_FAR, GRPK, M, ER, far, n_far, PFCP_SER_FAR, GROUP(g_create_far)),
	MANY(PFCP_IE_CREATE_URR, GRPK, O, ER, urr, n_urr, PFCP_SER_URR, GROUP(g_create_urr)),
	MANY(PFCP_IE_CREATE_QER, GRPK, O, ER, qer, n_qer, PFCP_SER_QER, GROUP(g_create_qer)),
	ONE(PFCP_IE_CREATE_BAR, GRPK, O, ER, bar, PFCP_SER_BAR, GROUP(g_create_bar)),
	ONE(PFCP_IE_PDN_TYPE, U8, O, ER, pdn_type, PFCP_SER_PDN_TYPE, U8M(0x07)),
};
DEF_GRP(g_est_req, 0, est_req_ie);

#define MR struct pfcp_sess_mod_req
static const struct pfcp_ie_desc mod_req_ie[] = {
	ONE(PFCP_IE_F_SEID, PFCP_K_FSEID, O, MR, cp_fseid, PFCP_SMR_F_SEID),
	MANY(PFCP_IE_REMOVE_PDR, GRPK, O, MR, rm_pdr, n_rm_pdr, PFCP_SMR_RM_PDR, GROUP(g_rm_pdr)),
	MANY(PFCP_IE_REMOVE_FAR, GRPK, O, MR, rm_far, n_rm_far, PFCP_SMR_RM_FAR, GROUP(g_rm_far)),
	MANY(PFCP_IE_REMOVE_URR, GRPK, O, MR, rm_urr, n_rm_urr, PFCP_SMR_RM_URR, GROUP(g_rm_urr)),
	MANY(PFCP_IE_REMOVE_QER, GRPK, O, MR, rm_qer, n_rm_qer, PFCP_SMR_RM_QER, GROUP(g_rm_qer)),
	ONE(PFCP_IE_REMOVE_BAR, GRPK, O, MR, rm_bar, PFCP_SMR_RM_BAR, GROUP(g_rm_bar)),
	MANY(PFCP_IE_CREATE_PDR, GRPK, O, MR, pdr, n_pdr, PFCP_SMR_PDR, GROUP(g_create_pdr)),
	MANY(PFCP_IE_CREATE_FAR, GRPK, O, MR, far, n_far, PFCP_SMR_FAR, GROUP(g_create_far)),
	MANY(PFCP_IE_CREATE_URR, GRPK, O, MR, urr, n_urr, PFCP_SMR_URR, GROUP(g_create_urr)),
	MANY(PFCP_IE_CREATE_QER, GRPK, O, MR, qer, n_qer, PFCP_SMR_QER, GROUP(g_create_qer)),
	ONE(PFCP_IE_CREATE_BAR, GRPK, O, MR, bar, PFCP_SMR_BAR, GROUP(g_create_bar)),
	MANY(PFCP_IE_UPDATE_PDR, GRPK, O, MR, upd_pdr, n_upd_pdr, PFCP_SMR_UPD_PDR, GROUP(g_update_pdr)),
	MANY(PFCP_IE_UPDATE_FAR, GRPK, O, MR, upd_far, n_upd_far, PFCP_SMR_UPD_FAR, GROUP(g_update_far)),
	MANY(PFCP_IE_UPDATE_URR, GRPK, O, MR, upd_urr, n_upd_urr, PFCP_SMR_UPD_URR, GROUP(g_update_urr)),
	MANY(PFCP_IE_UPDATE_QER, GRPK, O, MR, upd_qer, n_upd_qer, PFCP_SMR_UPD_QER, GROUP(g_update_qer)),
	ONE(PFCP_IE_UPDATE_BAR_SMR, GRPK, O, MR, upd_bar, PFCP_SMR_UPD_BAR, GROUP(g_update_bar_smr)),
	ONE(PFCP_IE_SMREQ_FLAGS, U8, O, MR, flags, PFCP_SMR_FLAGS, U8M(0x07)),
	MANY(PFCP_IE_QUERY_URR, GRPK, O, MR, query_urr, n_query_urr, PFCP_SMR_QUERY_URR, GROUP(g_query_urr)),
};
DEF_GRP(g_mod_req, 0, mod_req_ie);

#define SR struct pfcp_sess_rsp
#define SR_CAUSE ONE(PFCP_IE_CAUSE, U8, M, SR, cause, PFCP_SRSP_CAUSE, U8M(0xff)), \
	ONE(PFCP_IE_OFFENDING_IE, U16, O, SR, offending_ie, PFCP_SRSP_OFFENDING)
static const struct pfcp_ie_desc est_rsp_ie[] = {
	ONE(PFCP_IE_NODE_ID, PFCP_K_NODE_ID, M, SR, node_id, PFCP_SRSP_NODE_ID),
	SR_CAUSE,
	ONE(PFCP_IE_F_SEID, PFCP_K_FSEID, O, SR, up_fseid, PFCP_SRSP_F_SEID),
	MANY(PFCP_IE_CREATED_PDR, GRPK, O, SR, created, n_created, PFCP_SRSP_CREATED_PDR, GROUP(g_created_pdr)),
	ONE(PFCP_IE_FAILED_RULE_ID, PFCP_K_RULE_ID, O, SR, failed_rule, PFCP_SRSP_FAILED_RULE),
};
DEF_GRP(g_est_rsp, 0, est_rsp_ie);
static const struct pfcp_ie_desc mod_rsp_ie[] = {
	SR_CAUSE,
	MANY(PFCP_IE_CREATED_PDR, GRPK, O, SR, created, n_created, PFCP_SRSP_CREATED_PDR, GROUP(g_created_pdr)),
	MANY(PFCP_IE_USAGE_REPORT_SMR, GRPK, O, SR, usage, n_usage, PFCP_SRSP_USAGE, GROUP(g_usage_smr)),
	ONE(PFCP_IE_FAILED_RULE_ID, PFCP_K_RULE_ID, O, SR, failed_rule, PFCP_SRSP_FAILED_RULE),
};
DEF_GRP(g_mod_rsp, 0, mod_rsp_ie);
static const struct pfcp_ie_desc del_rsp_ie[] = {
	SR_CAUSE,
	MANY(PFCP_IE_USAGE_REPORT_SDR, GRPK, O, SR, usage, n_usage, PFCP_SRSP_USAGE, GROUP(g_usage_sdr)),
};
DEF_GRP(g_del_rsp, 0, del_rsp_ie);
static const struct pfcp_grp g_none = { 0, 0, NULL };

#define RR struct pfcp_sess_report_req
static const struct pfcp_ie_desc report_req_ie[] = {
	ONE(PFCP_IE_REPORT_TYPE, U8, M, RR, type, PFCP_SRR_TYPE, U8M(0x7f)),
	ONE(PFCP_IE_DL_DATA_REPORT, GRPK, O, RR, dl, PFCP_SRR_DL_REPORT, GROUP(g_dl_report)),
	MANY(PFCP_IE_USAGE_REPORT_SRR, GRPK, O, RR, usage, n_usage, PFCP_SRR_USAGE, GROUP(g_usage_srr)),
	ONE(PFCP_IE_ERR_IND_REPORT, GRPK, O, RR, err_ind, PFCP_SRR_ERR_IND, GROUP(g_err_ind_report)),
};
DEF_GRP(g_report_req, 0, report_req_ie);
#define RS struct pfcp_sess_report_rsp
static const struct pfcp_ie_desc report_rsp_ie[] = {
	ONE(PFCP_IE_CAUSE, U8, M, RS, cause, PFCP_SRRSP_CAUSE, U8M(0xff)),
	ONE(PFCP_IE_OFFENDING_IE, U16, O, RS, offending_ie, PFCP_SRRSP_OFFENDING),
	ONE(PFCP_IE_UPDATE_BAR_SRR, GRPK, O, RS, upd_bar, PFCP_SRRSP_UPD_BAR, GROUP(g_update_bar_srr)),
};
DEF_GRP(g_report_rsp, 0, report_rsp_ie);

/* 7.3: the node messages have S = 0, the session messages S = 1 (7.2.2.1) */
const struct pfcp_msg_desc pfcp_msgs[] = {
	{ PFCP_HEARTBEAT_REQ, 0, "Heartbeat Request", &g_heartbeat, sizeof(NM) },
	{ PFCP_HEARTBEAT_RSP, 0, "Heartbeat Response", &g_heartbeat, sizeof(NM) },
	{ PFCP_ASSOC_SETUP_REQ, 0, "Association Setup Request", &g_assoc_setup_req, sizeof(NM) },
	{ PFCP_ASSOC_SETUP_RSP, 0, "Association Setup Response", &g_assoc_setup_rsp, sizeof(NM) },
	{ PFCP_ASSOC_UPDATE_REQ, 0, "Association Update Request", &g_assoc_update_req, sizeof(NM) },
	{ PFCP_ASSOC_UPDATE_RSP, 0, "Association Update Response", &g_assoc_update_rsp, sizeof(NM) },
	{ PFCP_ASSOC_RELEASE_REQ, 0, "Association Release Request", &g_assoc_release_req, sizeof(NM) },
	{ PFCP_ASSOC_RELEASE_RSP, 0, "Association Release Response", &g_node_cause, sizeof(NM) },
	/* 7.4.4.7: the header alone, our version in it */
	{ PFCP_VERSION_NOT_SUPPORTED_RSP, 0, "Version Not Supported Response", &g_none, sizeof(uint32_t) },
	{ PFCP_NODE_REPORT_REQ, 0, "Node Report Request", &g_node_report_req, sizeof(NM) },
	{ PFCP_NODE_REPORT_RSP, 0, "Node Report Response", &g_node_cause, sizeof(NM) },
	{ PFCP_SESS_EST_REQ, 1, "Session Establishment Request", &g_est_req, sizeof(ER) },
	{ PFCP_SESS_EST_RSP, 1, "Session Establishment Response", &g_est_rsp, sizeof(SR) },
	{ PFCP_SESS_MOD_REQ, 1, "Session Modification Request", &g_mod_req, sizeof(MR) },
	{ PFCP_SESS_MOD_RSP, 1, "Session Modification Response", &g_mod_rsp, sizeof(SR) },
	{ PFCP_SESS_DEL_REQ, 1, "Session Deletion Request", &g_none, sizeof(uint32_t) },
	{ PFCP_SESS_DEL_RSP, 1, "Session Deletion Response", &g_del_rsp, sizeof(SR) },
	{ PFCP_SESS_REPORT_REQ, 1, "Session Report Request", &g_report_req, sizeof(RR) },
	{ PFCP_SESS_REPORT_RSP, 1, "Session Report Response", &g_report_rsp, sizeof(RS) },
};
const size_t pfcp_n_msgs = LEN(pfcp_msgs);

const struct pfcp_msg_desc *pfcp_msg_desc(uint8_t type)
{
	for (size_t i = 0; i < LEN(pfcp_msgs); i++)
		if (pfcp_msgs[i].type == type)
			return &pfcp_msgs[i];
	return NULL;
}
