/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Message description tables (TS 24.501 8.2, 8.3): for each message its
 * mandatory IEs in wire order, then its optional IEs with IEI, format and
 * value length bounds (octets of the value, i.e. the table's "Length"
 * column minus IEI and length octets). nas_codec.c walks them.
 */
#include "common/nas/nas_int.h"

#include <stddef.h>

#define O(f) ((uint16_t)offsetof(struct nas_msg, f))
#define MAND(fmt, codec, str, mn, mx, msg, fld, ref) \
	{ 0, fmt, codec, str, mn, mx, O(msg.fld), -1, #fld, ref }
#define V4(msg, fld, ref) { 0, NAS_F_V4, NAS_C_U4, NAS_S_DEF, 0, 0, O(msg.fld), -1, #fld, ref }
#define SPARE4 { 0, NAS_F_V4, NAS_C_SPARE4, NAS_S_DEF, 0, 0, 0, -1, "spare", "" }
#define OPT(iei, fmt, codec, str, mn, mx, msg, fld, ref) \
	{ iei, fmt, codec, str, mn, mx, O(msg.fld), (int16_t)O(msg.has_##fld), #fld, ref }
#define T1(iei, msg, fld, ref) OPT(iei, NAS_F_TV1, NAS_C_U4, NAS_S_DEF, 0, 0, msg, fld, ref)
#define TV8(iei, str, msg, fld, ref) OPT(iei, NAS_F_TV, NAS_C_U8, str, 1, 1, msg, fld, ref)
#define TLV8(iei, str, msg, fld, ref) OPT(iei, NAS_F_TLV, NAS_C_U8, str, 1, 1, msg, fld, ref)
#define TLVB(iei, mn, mx, msg, fld, ref) OPT(iei, NAS_F_TLV, NAS_C_BUF, NAS_S_DEF, mn, mx, msg, fld, ref)
#define TLVEB(iei, mn, mx, msg, fld, ref) OPT(iei, NAS_F_TLVE, NAS_C_BUF, NAS_S_DEF, mn, mx, msg, fld, ref)
#define PSIMAP(iei, msg, fld, ref) OPT(iei, NAS_F_TLV, NAS_C_PSIMAP, NAS_S_DEF, 2, 32, msg, fld, ref)
#define EAP(msg) OPT(0x78, NAS_F_TLVE, NAS_C_BUF, NAS_S_SECRET, 4, 1500, msg, eap, "9.11.2.2")
#define EPCO(msg) TLVEB(0x7b, 1, 65535, msg, epco, "9.11.4.6")
#define MMCAUSE(msg) MAND(NAS_F_V, NAS_C_U8, NAS_S_MMCAUSE, 1, 1, msg, cause, "9.11.3.2")
#define SMCAUSE(msg) MAND(NAS_F_V, NAS_C_U8, NAS_S_SMCAUSE, 1, 1, msg, cause, "9.11.4.2")
#define N(a) (uint8_t)(sizeof(a) / sizeof((a)[0]))

/* 8.2.6 */
static const struct nas_ie_desc reg_req[] = {
	V4(reg_req, reg_type, "9.11.3.7"),
	V4(reg_req, ngksi, "9.11.3.32"),
	MAND(NAS_F_LVE, NAS_C_MOBID, NAS_S_DEF, 1, 65535, reg_req, mobile_id, "9.11.3.4"),
	T1(0xc, reg_req, non_current_ngksi, "9.11.3.32"),
	TLVB(0x10, 1, 13, reg_req, gmm_cap, "9.11.3.1"),
	OPT(0x2e, NAS_F_TLV, NAS_C_UESEC, NAS_S_DEF, 2, 8, reg_req, ue_sec_cap, "9.11.3.54"),
	OPT(0x2f, NAS_F_TLV, NAS_C_NSSAI, NAS_S_DEF, 2, 72, reg_req, requested_nssai, "9.11.3.37"),
	OPT(0x52, NAS_F_TV, NAS_C_BUF, NAS_S_DEF, 6, 6, reg_req, last_visited_tai, "9.11.3.8"),
	TLVB(0x17, 2, 13, reg_req, s1_ue_net_cap, "9.11.3.48"),
	PSIMAP(0x40, reg_req, ul_data_status, "9.11.3.57"),
	PSIMAP(0x50, reg_req, pdu_session_status, "9.11.3.44"),
	T1(0xb, reg_req, mico, "9.11.3.31"),
	TLV8(0x2b, NAS_S_DEF, reg_req, ue_status, "9.11.3.56"),
	OPT(0x77, NAS_F_TLVE, NAS_C_MOBID, NAS_S_DEF, 11, 11, reg_req, additional_guti, "9.11.3.4"),
	PSIMAP(0x25, reg_req, allowed_pdu_session_status, "9.11.3.13"),
	TLV8(0x18, NAS_S_DEF, reg_req, ue_usage_setting, "9.11.3.55"),
	TLV8(0x51, NAS_S_DEF, reg_req, requested_drx, "9.11.3.2A"),
	TLVEB(0x70, 1, 65535, reg_req, eps_nas_container, "9.11.3.24"),
	TLVEB(0x74, 0, 808, reg_req, ladn_indication, "9.11.3.29"),
	T1(0x8, reg_req, payload_container_type, "9.11.3.40"),
	OPT(0x7b, NAS_F_TLVE, NAS_C_BUF, NAS_S_NESTED, 1, 65535, reg_req, payload_container, "9.11.3.39"),
	T1(0x9, reg_req, network_slicing_ind, "9.11.3.36"),
	TLV8(0x53, NAS_S_DEF, reg_req, update_type, "9.11.3.9A"),
	TLVB(0x41, 3, 3, reg_req, ms_classmark2, "9.11.3.31C"),
	TLVB(0x42, 3, 255, reg_req, supported_codecs, "9.11.3.51A"),
	OPT(0x71, NAS_F_TLVE, NAS_C_BUF, NAS_S_NESTED, 1, 65535, reg_req, nas_container, "9.11.3.33"),
	TLVB(0x60, 2, 2, reg_req, eps_bearer_ctx_status, "9.11.3.23A"),
	TLVB(0x6e, 1, 2, reg_req, requested_edrx, "9.11.3.26A"),
	TLV8(0x6a, NAS_S_TIMER3, reg_req, t3324, "9.11.2.5"),
	TLVB(0x67, 1, 255, reg_req, ue_radio_cap_id, "9.11.3.68"),
	TLVB(0x35, 1, 40, reg_req, requested_mapped_nssai, "9.11.3.84"),
	TLV8(0x48, NAS_S_DEF, reg_req, additional_info_req, "9.11.3.12A"),
	TLVB(0x1a, 1, 255, reg_req, requested_wus, "9.11.3.71"),
	T1(0xa, reg_req, n5gc_ind, "9.11.3.72"),
	TLV8(0x30, NAS_S_DEF, reg_req, requested_nb_n1_drx, "9.11.3.73"),
	TLV8(0x29, NAS_S_DEF, reg_req, ue_request_type, "9.11.3.76"),
	TLVB(0x28, 1, 33, reg_req, paging_restriction, "9.11.3.77"),
	TLVB(0x32, 6, 6, reg_req, nid, "9.11.3.79"),
	TLVB(0x2a, 1, 255, reg_req, requested_peips, "9.11.3.80"),
	TLV8(0x3b, NAS_S_TIMER3, reg_req, requested_t3512, "9.11.2.5"),
};

/* 8.2.7 */
static const struct nas_ie_desc reg_acc[] = {
	MAND(NAS_F_LV, NAS_C_U8, NAS_S_DEF, 1, 1, reg_acc, reg_result, "9.11.3.6"),
	OPT(0x77, NAS_F_TLVE, NAS_C_MOBID, NAS_S_DEF, 11, 11, reg_acc, guti, "9.11.3.4"),
	TLVB(0x4a, 3, 45, reg_acc, equivalent_plmns, "9.11.3.45"),
	OPT(0x54, NAS_F_TLV, NAS_C_TAIL, NAS_S_DEF, 7, 112, reg_acc, tai_list, "9.11.3.9"),
	OPT(0x15, NAS_F_TLV, NAS_C_NSSAI, NAS_S_DEF, 2, 72, reg_acc, allowed_nssai, "9.11.3.37"),
	TLVB(0x11, 2, 40, reg_acc, rejected_nssai, "9.11.3.46"),
	OPT(0x31, NAS_F_TLV, NAS_C_NSSAI, NAS_S_DEF, 2, 144, reg_acc, configured_nssai, "9.11.3.37"),
	TLVB(0x21, 1, 3, reg_acc, nw_feature_support, "9.11.3.5"),
	PSIMAP(0x50, reg_acc, pdu_session_status, "9.11.3.44"),
	PSIMAP(0x26, reg_acc, reactivation_result, "9.11.3.42"),
	TLVEB(0x72, 2, 512, reg_acc, reactivation_error, "9.11.3.43"),
	TLVEB(0x79, 9, 1712, reg_acc, ladn_info, "9.11.3.30"),
	T1(0xb, reg_acc, mico, "9.11.3.31"),
	T1(0x9, reg_acc, network_slicing_ind, "9.11.3.36"),
	TLVB(0x27, 4, 112, reg_acc, service_area_list, "9.11.3.49"),
	TLV8(0x5e, NAS_S_TIMER3, reg_acc, t3512, "9.11.2.5"),
	TLV8(0x5d, NAS_S_TIMER2, reg_acc, non3gpp_dereg_timer, "9.11.2.4"),
	TLV8(0x16, NAS_S_TIMER2, reg_acc, t3502, "9.11.2.4"),
	TLVB(0x34, 3, 48, reg_acc, emergency_numbers, "9.11.3.23"),
	TLVEB(0x7a, 4, 65535, reg_acc, ext_emergency_numbers, "9.11.3.26"),
	TLVEB(0x73, 17, 65535, reg_acc, sor_container, "9.11.3.51"),
	EAP(reg_acc),
	T1(0xa, reg_acc, nssai_inclusion_mode, "9.11.3.37A"),
	TLVEB(0x76, 0, 65535, reg_acc, op_access_categories, "9.11.3.38"),
	TLV8(0x51, NAS_S_DEF, reg_acc, negotiated_drx, "9.11.3.2A"),
	T1(0xd, reg_acc, non3gpp_nw_policies, "9.11.3.36A"),
	TLVB(0x60, 2, 2, reg_acc, eps_bearer_ctx_status, "9.11.3.23A"),
	TLVB(0x6e, 1, 2, reg_acc, negotiated_edrx, "9.11.3.26A"),
	TLV8(0x6c, NAS_S_TIMER3, reg_acc, t3447, "9.11.2.5"),
	TLV8(0x6b, NAS_S_TIMER2, reg_acc, t3448, "9.11.2.4"),
	TLV8(0x6a, NAS_S_TIMER3, reg_acc, t3324, "9.11.2.5"),
	TLVB(0x67, 1, 255, reg_acc, ue_radio_cap_id, "9.11.3.68"),
	T1(0xe, reg_acc, ue_radio_cap_id_del, "9.11.3.69"),
	TLVB(0x39, 2, 68, reg_acc, pending_nssai, "9.11.3.37"),
	TLVEB(0x74, 1, 65535, reg_acc, ciphering_key_data, "9.11.3.18C"),
	TLVEB(0x75, 0, 65535, reg_acc, cag_info_list, "9.11.3.18A"),
	TLV8(0x1b, NAS_S_DEF, reg_acc, truncated_s_tmsi_cfg, "9.11.3.70"),
	TLVB(0x1c, 1, 255, reg_acc, negotiated_wus, "9.11.3.71"),
	TLV8(0x29, NAS_S_DEF, reg_acc, negotiated_nb_n1_drx, "9.11.3.73"),
	TLVB(0x68, 3, 88, reg_acc, ext_rejected_nssai, "9.11.3.75"),
	TLVEB(0x7b, 1, 65535, reg_acc, sla_container, "9.11.2.10"),
	TLVB(0x33, 1, 255, reg_acc, negotiated_peips, "9.11.3.80"),
	TLV8(0x35, NAS_S_DEF, reg_acc, additional_req_result, "9.11.3.81"),
	TLVEB(0x70, 4, 4096, reg_acc, nssrg_info, "9.11.3.82"),
	TLVB(0x14, 2, 2, reg_acc, disaster_roaming_wait, "9.11.3.84"),
	TLVB(0x2c, 2, 2, reg_acc, disaster_return_wait, "9.11.3.84"),
	TLVB(0x13, 0, 255, reg_acc, disaster_plmns, "9.11.3.83"),
	TLVB(0x1d, 7, 112, reg_acc, forbidden_tais_roaming, "9.11.3.9"),
	TLVB(0x1e, 7, 112, reg_acc, forbidden_tais_service, "9.11.3.9"),
	TLVEB(0x71, 0, 65535, reg_acc, ext_cag_info_list, "9.11.3.86"),
	TLVEB(0x7c, 6, 3140, reg_acc, nsag_info, "9.11.3.87"),
};

/* 8.2.8 */
static const struct nas_ie_desc reg_cpl[] = {
	TLVEB(0x73, 17, 65535, reg_cpl, sor_container, "9.11.3.51"),
};

/* 8.2.9 */
static const struct nas_ie_desc reg_rej[] = {
	MMCAUSE(reg_rej),
	TLV8(0x5f, NAS_S_TIMER2, reg_rej, t3346, "9.11.2.4"),
	TLV8(0x16, NAS_S_TIMER2, reg_rej, t3502, "9.11.2.4"),
	EAP(reg_rej),
	TLVB(0x69, 2, 40, reg_rej, rejected_nssai, "9.11.3.46"),
	TLVEB(0x75, 0, 65535, reg_rej, cag_info_list, "9.11.3.18A"),
	TLVB(0x68, 3, 88, reg_rej, ext_rejected_nssai, "9.11.3.75"),
	TLVB(0x2c, 2, 2, reg_rej, disaster_return_wait, "9.11.3.84"),
	TLVEB(0x71, 0, 65535, reg_rej, ext_cag_info_list, "9.11.3.86"),
	TLV8(0x3a, NAS_S_TIMER3, reg_rej, lower_bound_timer, "9.11.2.5"),
	TLVB(0x1d, 7, 112, reg_rej, forbidden_tais_roaming, "9.11.3.9"),
	TLVB(0x1e, 7, 112, reg_rej, forbidden_tais_service, "9.11.3.9"),
};

/* 8.2.1 - 8.2.5 */
static const struct nas_ie_desc auth_req[] = {
	V4(auth_req, ngksi, "9.11.3.32"),
	SPARE4,
	MAND(NAS_F_LV, NAS_C_BUF, NAS_S_DEF, 2, 255, auth_req, abba, "9.11.3.10"),
	OPT(0x21, NAS_F_TV, NAS_C_BUF, NAS_S_DEF, 16, 16, auth_req, rand, "9.11.3.16"),
	TLVB(0x20, 16, 16, auth_req, autn, "9.11.3.15"),
	EAP(auth_req),
};
static const struct nas_ie_desc auth_resp[] = {
	OPT(0x2d, NAS_F_TLV, NAS_C_BUF, NAS_S_SECRET, 16, 16, auth_resp, res_star, "9.11.3.17"),
	EAP(auth_resp),
};
static const struct nas_ie_desc auth_result[] = {
	V4(auth_result, ngksi, "9.11.3.32"),
	SPARE4,
	MAND(NAS_F_LVE, NAS_C_BUF, NAS_S_SECRET, 4, 1500, auth_result, eap, "9.11.2.2"),
	TLVB(0x38, 2, 255, auth_result, abba, "9.11.3.10"),
};
static const struct nas_ie_desc auth_fail[] = {
	MMCAUSE(auth_fail),
	OPT(0x30, NAS_F_TLV, NAS_C_BUF, NAS_S_SECRET, 14, 14, auth_fail, auts, "9.11.3.14"),
};
static const struct nas_ie_desc auth_rej[] = {
	EAP(auth_rej),
};

/* 8.2.21, 8.2.22 */
static const struct nas_ie_desc id_req[] = {
	V4(id_req, identity_type, "9.11.3.3"),
	SPARE4,
};
static const struct nas_ie_desc id_resp[] = {
	MAND(NAS_F_LVE, NAS_C_MOBID, NAS_S_DEF, 1, 65535, id_resp, mobile_id, "9.11.3.4"),
};

/* 8.2.25 - 8.2.27 */
static const struct nas_ie_desc smc[] = {
	MAND(NAS_F_V, NAS_C_U8, NAS_S_DEF, 1, 1, smc, algs, "9.11.3.34"),
	V4(smc, ngksi, "9.11.3.32"),
	SPARE4,
	MAND(NAS_F_LV, NAS_C_UESEC, NAS_S_DEF, 2, 8, smc, replayed_ue_sec_cap, "9.11.3.54"),
	T1(0xe, smc, imeisv_request, "9.11.3.28"),
	TV8(0x57, NAS_S_DEF, smc, eps_algs, "9.11.3.25"),
	TLV8(0x36, NAS_S_DEF, smc, additional_sec_info, "9.11.3.12"),
	EAP(smc),
	TLVB(0x38, 2, 255, smc, abba, "9.11.3.10"),
	TLVB(0x19, 2, 5, smc, replayed_s1_sec_cap, "9.11.3.48A"),
};
static const struct nas_ie_desc smc_cpl[] = {
	OPT(0x77, NAS_F_TLVE, NAS_C_MOBID, NAS_S_DEF, 1, 65535, smc_cpl, imeisv, "9.11.3.4"),
	OPT(0x71, NAS_F_TLVE, NAS_C_BUF, NAS_S_NESTED, 1, 65535, smc_cpl, nas_container, "9.11.3.33"),
	OPT(0x78, NAS_F_TLVE, NAS_C_MOBID, NAS_S_DEF, 1, 65535, smc_cpl, non_imeisv_pei, "9.11.3.4"),
};
static const struct nas_ie_desc smc_rej[] = {
	MMCAUSE(smc_rej),
};

/* 8.2.16 - 8.2.18 */
static const struct nas_ie_desc svc_req[] = {
	V4(svc_req, ngksi, "9.11.3.32"),
	V4(svc_req, service_type, "9.11.3.50"),
	MAND(NAS_F_LVE, NAS_C_MOBID, NAS_S_DEF, 7, 7, svc_req, s_tmsi, "9.11.3.4"),
	PSIMAP(0x40, svc_req, ul_data_status, "9.11.3.57"),
	PSIMAP(0x50, svc_req, pdu_session_status, "9.11.3.44"),
	PSIMAP(0x25, svc_req, allowed_pdu_session_status, "9.11.3.13"),
	OPT(0x71, NAS_F_TLVE, NAS_C_BUF, NAS_S_NESTED, 1, 65535, svc_req, nas_container, "9.11.3.33"),
};
static const struct nas_ie_desc svc_acc[] = {
	PSIMAP(0x50, svc_acc, pdu_session_status, "9.11.3.44"),
	PSIMAP(0x26, svc_acc, reactivation_result, "9.11.3.42"),
	TLVEB(0x72, 2, 512, svc_acc, reactivation_error, "9.11.3.43"),
	EAP(svc_acc),
	TLV8(0x6b, NAS_S_TIMER2, svc_acc, t3448, "9.11.2.4"),
	TLV8(0x34, NAS_S_DEF, svc_acc, additional_req_result, "9.11.3.81"),
	TLVB(0x1d, 7, 112, svc_acc, forbidden_tais_roaming, "9.11.3.9"),
	TLVB(0x1e, 7, 112, svc_acc, forbidden_tais_service, "9.11.3.9"),
};
static const struct nas_ie_desc svc_rej[] = {
	MMCAUSE(svc_rej),
	PSIMAP(0x50, svc_rej, pdu_session_status, "9.11.3.44"),
	TLV8(0x5f, NAS_S_TIMER2, svc_rej, t3346, "9.11.2.4"),
	EAP(svc_rej),
	TLV8(0x6b, NAS_S_TIMER2, svc_rej, t3448, "9.11.2.4"),
	TLVEB(0x75, 0, 65535, svc_rej, cag_info_list, "9.11.3.18A"),
	TLVB(0x2c, 2, 2, svc_rej, disaster_return_wait, "9.11.3.84"),
	TLVEB(0x71, 0, 65535, svc_rej, ext_cag_info_list, "9.11.3.86"),
	TLV8(0x3a, NAS_S_TIMER3, svc_rej, lower_bound_timer, "9.11.2.5"),
	TLVB(0x1d, 7, 112, svc_rej, forbidden_tais_roaming, "9.11.3.9"),
	TLVB(0x1e, 7, 112, svc_rej, forbidden_tais_service, "9.11.3.9"),
};

/* 8.2.19 */
static const struct nas_ie_desc cuc[] = {
	T1(0xd, cuc, cfg_update_ind, "9.11.3.18"),
	OPT(0x77, NAS_F_TLVE, NAS_C_MOBID, NAS_S_DEF, 11, 11, cuc, guti, "9.11.3.4"),
	OPT(0x54, NAS_F_TLV, NAS_C_TAIL, NAS_S_DEF, 7, 112, cuc, tai_list, "9.11.3.9"),
	OPT(0x15, NAS_F_TLV, NAS_C_NSSAI, NAS_S_DEF, 2, 72, cuc, allowed_nssai, "9.11.3.37"),
	TLVB(0x27, 4, 112, cuc, service_area_list, "9.11.3.49"),
	OPT(0x43, NAS_F_TLV, NAS_C_NETNAME, NAS_S_DEF, 1, 255, cuc, full_name, "9.11.3.35"),
	OPT(0x45, NAS_F_TLV, NAS_C_NETNAME, NAS_S_DEF, 1, 255, cuc, short_name, "9.11.3.35"),
	TV8(0x46, NAS_S_TZ, cuc, local_time_zone, "9.11.3.52"),
	OPT(0x47, NAS_F_TV, NAS_C_BUF, NAS_S_DEF, 7, 7, cuc, universal_time, "9.11.3.53"),
	TLV8(0x49, NAS_S_DEF, cuc, dst, "9.11.3.19"),
	TLVEB(0x79, 9, 1712, cuc, ladn_info, "9.11.3.30"),
	T1(0xb, cuc, mico, "9.11.3.31"),
	T1(0x9, cuc, network_slicing_ind, "9.11.3.36"),
	OPT(0x31, NAS_F_TLV, NAS_C_NSSAI, NAS_S_DEF, 2, 144, cuc, configured_nssai, "9.11.3.37"),
	TLVB(0x11, 2, 40, cuc, rejected_nssai, "9.11.3.46"),
	TLVEB(0x76, 0, 65535, cuc, op_access_categories, "9.11.3.38"),
	T1(0xf, cuc, sms_ind, "9.11.3.50A"),
	TLV8(0x6c, NAS_S_TIMER3, cuc, t3447, "9.11.2.5"),
	TLVEB(0x75, 0, 65535, cuc, cag_info_list, "9.11.3.18A"),
	TLVB(0x67, 1, 255, cuc, ue_radio_cap_id, "9.11.3.68"),
	T1(0xa, cuc, ue_radio_cap_id_del, "9.11.3.69"),
	TLV8(0x44, NAS_S_DEF, cuc, reg_result, "9.11.3.6"),
	TLV8(0x1b, NAS_S_DEF, cuc, truncated_s_tmsi_cfg, "9.11.3.70"),
	T1(0xc, cuc, additional_cfg_ind, "9.11.3.74"),
	TLVB(0x68, 3, 88, cuc, ext_rejected_nssai, "9.11.3.75"),
	TLVEB(0x72, 1, 65535, cuc, sla_container, "9.11.2.10"),
	TLVEB(0x70, 4, 4096, cuc, nssrg_info, "9.11.3.82"),
};

/* 8.2.12 (UE originating) and 8.2.14 (UE terminated) */
static const struct nas_ie_desc dereg_req_orig[] = {
	V4(dereg_req, dereg_type, "9.11.3.20"),
	V4(dereg_req, ngksi, "9.11.3.32"),
	MAND(NAS_F_LVE, NAS_C_MOBID, NAS_S_DEF, 1, 65535, dereg_req, mobile_id, "9.11.3.4"),
};
static const struct nas_ie_desc dereg_req_term[] = {
	V4(dereg_req, dereg_type, "9.11.3.20"),
	SPARE4,
	TV8(0x58, NAS_S_MMCAUSE, dereg_req, cause, "9.11.3.2"),
	TLV8(0x5f, NAS_S_TIMER2, dereg_req, t3346, "9.11.2.4"),
	TLVB(0x6d, 2, 40, dereg_req, rejected_nssai, "9.11.3.46"),
	TLVB(0x68, 3, 88, dereg_req, ext_rejected_nssai, "9.11.3.75"),
	TLVB(0x2c, 2, 2, dereg_req, disaster_return_wait, "9.11.3.84"),
};

/* 8.2.10, 8.2.11, 8.2.29 */
static const struct nas_ie_desc ul_nas[] = {
	V4(ul_nas, payload_type, "9.11.3.40"),
	SPARE4,
	MAND(NAS_F_LVE, NAS_C_BUF, NAS_S_NESTED, 1, 65535, ul_nas, payload, "9.11.3.39"),
	TV8(0x12, NAS_S_DEC, ul_nas, psi, "9.11.3.41"),
	TV8(0x59, NAS_S_DEC, ul_nas, old_psi, "9.11.3.41"),
	T1(0x8, ul_nas, request_type, "9.11.3.47"),
	OPT(0x22, NAS_F_TLV, NAS_C_SNSSAI, NAS_S_DEF, 1, 8, ul_nas, snssai, "9.11.2.8"),
	OPT(0x25, NAS_F_TLV, NAS_C_BUF, NAS_S_DNN, 1, 100, ul_nas, dnn, "9.11.2.1B"),
	TLVB(0x24, 1, 255, ul_nas, additional_info, "9.11.2.1"),
	T1(0xa, ul_nas, ma_pdu_info, "9.11.3.31A"),
	T1(0xf, ul_nas, release_assistance, "9.11.3.46A"),
};
static const struct nas_ie_desc dl_nas[] = {
	V4(dl_nas, payload_type, "9.11.3.40"),
	SPARE4,
	MAND(NAS_F_LVE, NAS_C_BUF, NAS_S_NESTED, 1, 65535, dl_nas, payload, "9.11.3.39"),
	TV8(0x12, NAS_S_DEC, dl_nas, psi, "9.11.3.41"),
	TLVB(0x24, 1, 255, dl_nas, additional_info, "9.11.2.1"),
	TV8(0x58, NAS_S_MMCAUSE, dl_nas, cause, "9.11.3.2"),
	TLV8(0x37, NAS_S_TIMER3, dl_nas, backoff_timer, "9.11.2.5"),
	TLV8(0x3a, NAS_S_TIMER3, dl_nas, lower_bound_timer, "9.11.2.5"),
};
static const struct nas_ie_desc gmm_status[] = {
	MMCAUSE(gmm_status),
};

/* 8.3.1 - 8.3.3 */
static const struct nas_ie_desc pdu_est_req[] = {
	MAND(NAS_F_V, NAS_C_BUF, NAS_S_DEF, 2, 2, pdu_est_req, integrity_max_rate, "9.11.4.7"),
	T1(0x9, pdu_est_req, pdu_session_type, "9.11.4.11"),
	T1(0xa, pdu_est_req, ssc_mode, "9.11.4.16"),
	TLVB(0x28, 1, 13, pdu_est_req, gsm_cap, "9.11.4.1"),
	OPT(0x55, NAS_F_TV, NAS_C_BUF, NAS_S_DEF, 2, 2, pdu_est_req, max_pkt_filters, "9.11.4.9"),
	T1(0xb, pdu_est_req, always_on_requested, "9.11.4.4"),
	TLVB(0x39, 1, 253, pdu_est_req, sm_pdu_dn_container, "9.11.4.15"),
	EPCO(pdu_est_req),
	TLVB(0x66, 3, 255, pdu_est_req, ip_hc_config, "9.11.4.24"),
	TLVB(0x6e, 6, 6, pdu_est_req, ds_tt_mac, "9.11.4.25"),
	TLVB(0x6f, 8, 8, pdu_est_req, ue_ds_tt_residence, "9.11.4.26"),
	TLVEB(0x74, 1, 65535, pdu_est_req, port_mgmt_container, "9.11.4.27"),
	TLVB(0x1f, 1, 1, pdu_est_req, eth_hc_config, "9.11.4.28"),
	TLVB(0x29, 9, 9, pdu_est_req, suggested_iid, "9.11.4.10"),
};
static const struct nas_ie_desc pdu_est_acc[] = {
	V4(pdu_est_acc, pdu_session_type, "9.11.4.11"),
	V4(pdu_est_acc, ssc_mode, "9.11.4.16"),
	MAND(NAS_F_LVE, NAS_C_BUF, NAS_S_DEF, 4, 65535, pdu_est_acc, qos_rules, "9.11.4.13"),
	MAND(NAS_F_LV, NAS_C_AMBR, NAS_S_DEF, 6, 6, pdu_est_acc, ambr, "9.11.4.14"),
	TV8(0x59, NAS_S_SMCAUSE, pdu_est_acc, cause, "9.11.4.2"),
	OPT(0x29, NAS_F_TLV, NAS_C_PDUADDR, NAS_S_DEF, 5, 29, pdu_est_acc, pdu_address, "9.11.4.10"),
	TV8(0x56, NAS_S_TIMER2, pdu_est_acc, rq_timer, "9.11.2.3"),
	OPT(0x22, NAS_F_TLV, NAS_C_SNSSAI, NAS_S_DEF, 1, 8, pdu_est_acc, snssai, "9.11.2.8"),
	T1(0x8, pdu_est_acc, always_on, "9.11.4.3"),
	TLVEB(0x75, 4, 65535, pdu_est_acc, mapped_eps_ctx, "9.11.4.8"),
	EAP(pdu_est_acc),
	TLVEB(0x79, 3, 65535, pdu_est_acc, qos_flows, "9.11.4.12"),
	EPCO(pdu_est_acc),
	OPT(0x25, NAS_F_TLV, NAS_C_BUF, NAS_S_DNN, 1, 100, pdu_est_acc, dnn, "9.11.2.1B"),
	TLVB(0x17, 1, 13, pdu_est_acc, gsm_nw_feature, "9.11.4.18"),
	TLVB(0x18, 2, 2, pdu_est_acc, serving_plmn_rate, "9.11.4.20"),
	TLVEB(0x77, 1, 65535, pdu_est_acc, atsss_container, "9.11.4.22"),
	T1(0xc, pdu_est_acc, cp_only_ind, "9.11.4.23"),
	TLVB(0x66, 3, 255, pdu_est_acc, ip_hc_config, "9.11.4.24"),
	TLVB(0x1f, 1, 1, pdu_est_acc, eth_hc_config, "9.11.4.28"),
};
static const struct nas_ie_desc pdu_est_rej[] = {
	SMCAUSE(pdu_est_rej),
	TLV8(0x37, NAS_S_TIMER3, pdu_est_rej, backoff_timer, "9.11.2.5"),
	T1(0xf, pdu_est_rej, allowed_ssc_mode, "9.11.4.5"),
	EAP(pdu_est_rej),
	TLV8(0x61, NAS_S_DEF, pdu_est_rej, congestion_reattempt, "9.11.4.21"),
	EPCO(pdu_est_rej),
	TLV8(0x1d, NAS_S_DEF, pdu_est_rej, reattempt_ind, "9.11.4.17"),
};

/* 8.3.7 - 8.3.11 */
static const struct nas_ie_desc pdu_mod_req[] = {
	TLVB(0x28, 1, 13, pdu_mod_req, gsm_cap, "9.11.4.1"),
	TV8(0x59, NAS_S_SMCAUSE, pdu_mod_req, cause, "9.11.4.2"),
	OPT(0x55, NAS_F_TV, NAS_C_BUF, NAS_S_DEF, 2, 2, pdu_mod_req, max_pkt_filters, "9.11.4.9"),
	T1(0xb, pdu_mod_req, always_on_requested, "9.11.4.4"),
	OPT(0x13, NAS_F_TV, NAS_C_BUF, NAS_S_DEF, 2, 2, pdu_mod_req, integrity_max_rate, "9.11.4.7"),
	TLVEB(0x7a, 4, 65535, pdu_mod_req, qos_rules, "9.11.4.13"),
	TLVEB(0x79, 3, 65535, pdu_mod_req, qos_flows, "9.11.4.12"),
	TLVEB(0x75, 4, 65535, pdu_mod_req, mapped_eps_ctx, "9.11.4.8"),
	EPCO(pdu_mod_req),
	TLVEB(0x74, 1, 65535, pdu_mod_req, port_mgmt_container, "9.11.4.27"),
	TLVB(0x66, 3, 255, pdu_mod_req, ip_hc_config, "9.11.4.24"),
	TLVB(0x1f, 1, 1, pdu_mod_req, eth_hc_config, "9.11.4.28"),
};
static const struct nas_ie_desc pdu_mod_rej[] = {
	SMCAUSE(pdu_mod_rej),
	TLV8(0x37, NAS_S_TIMER3, pdu_mod_rej, backoff_timer, "9.11.2.5"),
	TLV8(0x61, NAS_S_DEF, pdu_mod_rej, congestion_reattempt, "9.11.4.21"),
	EPCO(pdu_mod_rej),
	TLV8(0x1d, NAS_S_DEF, pdu_mod_rej, reattempt_ind, "9.11.4.17"),
};
static const struct nas_ie_desc pdu_mod_cmd[] = {
	TV8(0x59, NAS_S_SMCAUSE, pdu_mod_cmd, cause, "9.11.4.2"),
	OPT(0x2a, NAS_F_TLV, NAS_C_AMBR, NAS_S_DEF, 6, 6, pdu_mod_cmd, ambr, "9.11.4.14"),
	TV8(0x56, NAS_S_TIMER2, pdu_mod_cmd, rq_timer, "9.11.2.3"),
	T1(0x8, pdu_mod_cmd, always_on, "9.11.4.3"),
	TLVEB(0x7a, 4, 65535, pdu_mod_cmd, qos_rules, "9.11.4.13"),
	TLVEB(0x75, 4, 65535, pdu_mod_cmd, mapped_eps_ctx, "9.11.4.8"),
	TLVEB(0x79, 3, 65535, pdu_mod_cmd, qos_flows, "9.11.4.12"),
	EPCO(pdu_mod_cmd),
	TLVEB(0x77, 1, 65535, pdu_mod_cmd, atsss_container, "9.11.4.22"),
	TLVB(0x66, 3, 255, pdu_mod_cmd, ip_hc_config, "9.11.4.24"),
	TLVEB(0x74, 1, 65535, pdu_mod_cmd, port_mgmt_container, "9.11.4.27"),
	TLVB(0x1e, 2, 2, pdu_mod_cmd, serving_plmn_rate, "9.11.4.20"),
	TLVB(0x1f, 1, 1, pdu_mod_cmd, eth_hc_config, "9.11.4.28"),
};
static const struct nas_ie_desc pdu_mod_cpl[] = {
	EPCO(pdu_mod_cpl),
	TLVEB(0x74, 1, 65535, pdu_mod_cpl, port_mgmt_container, "9.11.4.27"),
};
static const struct nas_ie_desc pdu_mod_cmd_rej[] = {
	SMCAUSE(pdu_mod_cmd_rej),
	EPCO(pdu_mod_cmd_rej),
};

/* 8.3.12 - 8.3.16 */
static const struct nas_ie_desc pdu_rel_req[] = {
	TV8(0x59, NAS_S_SMCAUSE, pdu_rel_req, cause, "9.11.4.2"),
	EPCO(pdu_rel_req),
};
static const struct nas_ie_desc pdu_rel_rej[] = {
	SMCAUSE(pdu_rel_rej),
	EPCO(pdu_rel_rej),
};
static const struct nas_ie_desc pdu_rel_cmd[] = {
	SMCAUSE(pdu_rel_cmd),
	TLV8(0x37, NAS_S_TIMER3, pdu_rel_cmd, backoff_timer, "9.11.2.5"),
	EAP(pdu_rel_cmd),
	TLV8(0x61, NAS_S_DEF, pdu_rel_cmd, congestion_reattempt, "9.11.4.21"),
	EPCO(pdu_rel_cmd),
	T1(0xd, pdu_rel_cmd, access_type, "9.11.2.1A"),
};
static const struct nas_ie_desc pdu_rel_cpl[] = {
	TV8(0x59, NAS_S_SMCAUSE, pdu_rel_cpl, cause, "9.11.4.2"),
	EPCO(pdu_rel_cpl),
};
static const struct nas_ie_desc gsm_status[] = {
	SMCAUSE(gsm_status),
};

/* the member of struct nas_msg named like the IE table */
#define CLR(ies) (uint16_t)(offsetof(struct nas_msg, ies) + sizeof(((struct nas_msg *)0)->ies))
#define MM(t, name, ref, ies) [t] = { t, NAS_EPD_5GMM, name, ref, ies, N(ies), CLR(ies) }
#define MM0(t, name, ref) [t] = { t, NAS_EPD_5GMM, name, ref, NULL, 0, (uint16_t)offsetof(struct nas_msg, reg_req) }
#define SM(t, name, ref, ies) [t] = { t, NAS_EPD_5GSM, name, ref, ies, N(ies), CLR(ies) }

/* 5GMM and 5GSM message type ranges do not overlap (TS 24.501 9.7), so one table */
static const struct nas_msg_desc msgs[256] = {
	MM(NAS_REGISTRATION_REQUEST, "Registration request", "8.2.6", reg_req),
	MM(NAS_REGISTRATION_ACCEPT, "Registration accept", "8.2.7", reg_acc),
	MM(NAS_REGISTRATION_COMPLETE, "Registration complete", "8.2.8", reg_cpl),
	MM(NAS_REGISTRATION_REJECT, "Registration reject", "8.2.9", reg_rej),
	[NAS_DEREGISTRATION_REQUEST_UE_ORIG] = { NAS_DEREGISTRATION_REQUEST_UE_ORIG, NAS_EPD_5GMM,
		"Deregistration request (UE originating)", "8.2.12", dereg_req_orig, N(dereg_req_orig), CLR(dereg_req) },
	MM0(NAS_DEREGISTRATION_ACCEPT_UE_ORIG, "Deregistration accept (UE originating)", "8.2.13"),
	[NAS_DEREGISTRATION_REQUEST_UE_TERM] = { NAS_DEREGISTRATION_REQUEST_UE_TERM, NAS_EPD_5GMM,
		"Deregistration request (UE terminated)", "8.2.14", dereg_req_term, N(dereg_req_term), CLR(dereg_req) },
	MM0(NAS_DEREGISTRATION_ACCEPT_UE_TERM, "Deregistration accept (UE terminated)", "8.2.15"),
	MM(NAS_SERVICE_REQUEST, "Service request", "8.2.16", svc_req),
	MM(NAS_SERVICE_REJECT, "Service reject", "8.2.18", svc_rej),
	MM(NAS_SERVICE_ACCEPT, "Service accept", "8.2.17", svc_acc),
	MM(NAS_CONFIGURATION_UPDATE_COMMAND, "Configuration update command", "8.2.19", cuc),
	MM0(NAS_CONFIGURATION_UPDATE_COMPLETE, "Configuration update complete", "8.2.20"),
	MM(NAS_AUTHENTICATION_REQUEST, "Authentication request", "8.2.1", auth_req),
	MM(NAS_AUTHENTICATION_RESPONSE, "Authentication response", "8.2.2", auth_resp),
	MM(NAS_AUTHENTICATION_REJECT, "Authentication reject", "8.2.5", auth_rej),
	MM(NAS_AUTHENTICATION_FAILURE, "Authentication failure", "8.2.4", auth_fail),
	MM(NAS_AUTHENTICATION_RESULT, "Authentication result", "8.2.3", auth_result),
	MM(NAS_IDENTITY_REQUEST, "Identity request", "8.2.21", id_req),
	MM(NAS_IDENTITY_RESPONSE, "Identity response", "8.2.22", id_resp),
	MM(NAS_SECURITY_MODE_COMMAND, "Security mode command", "8.2.25", smc),
	MM(NAS_SECURITY_MODE_COMPLETE, "Security mode complete", "8.2.26", smc_cpl),
	MM(NAS_SECURITY_MODE_REJECT, "Security mode reject", "8.2.27", smc_rej),
	MM(NAS_5GMM_STATUS, "5GMM status", "8.2.29", gmm_status),
	MM(NAS_UL_NAS_TRANSPORT, "UL NAS transport", "8.2.10", ul_nas),
	MM(NAS_DL_NAS_TRANSPORT, "DL NAS transport", "8.2.11", dl_nas),
	SM(NAS_PDU_SESSION_ESTABLISHMENT_REQUEST, "PDU session establishment request", "8.3.1", pdu_est_req),
	SM(NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT, "PDU session establishment accept", "8.3.2", pdu_est_acc),
	SM(NAS_PDU_SESSION_ESTABLISHMENT_REJECT, "PDU session establishment reject", "8.3.3", pdu_est_rej),
	SM(NAS_PDU_SESSION_MODIFICATION_REQUEST, "PDU session modification request", "8.3.7", pdu_mod_req),
	SM(NAS_PDU_SESSION_MODIFICATION_REJECT, "PDU session modification reject", "8.3.8", pdu_mod_rej),
	SM(NAS_PDU_SESSION_MODIFICATION_COMMAND, "PDU session modification command", "8.3.9", pdu_mod_cmd),
	SM(NAS_PDU_SESSION_MODIFICATION_COMPLETE, "PDU session modification complete", "8.3.10", pdu_mod_cpl),
	SM(NAS_PDU_SESSION_MODIFICATION_COMMAND_REJECT, "PDU session modification command reject", "8.3.11",
	   pdu_mod_cmd_rej),
	SM(NAS_PDU_SESSION_RELEASE_REQUEST, "PDU session release request", "8.3.12", pdu_rel_req),
	SM(NAS_PDU_SESSION_RELEASE_REJECT, "PDU session release reject", "8.3.13", pdu_rel_rej),
	SM(NAS_PDU_SESSION_RELEASE_COMMAND, "PDU session release command", "8.3.14", pdu_rel_cmd),
	SM(NAS_PDU_SESSION_RELEASE_COMPLETE, "PDU session release complete", "8.3.15", pdu_rel_cpl),
	SM(NAS_5GSM_STATUS, "5GSM status", "8.3.16", gsm_status),
};

const struct nas_msg_desc *nas_msg_desc_get(uint8_t type)
{
	return msgs[type].name ? &msgs[type] : NULL;
}

/* Optional IE lookup by the IEI octet: per message type, 256 entries of
 * (index in ies[] + 1), 0 = not an IE of this message. A type 1 IE (TS 24.007
 * 11.2.4: IEI in bits 8-5) fills the 16 octet values it can take. Built
 * once before main() from the tables above, read-only afterwards. */
#define N_SLOTS 48
static uint8_t slot_of[256];
static uint8_t iei_map[N_SLOTS][256];

__attribute__((constructor)) static void build_iei_maps(void)
{
	unsigned slot = 0;

	for (unsigned t = 0; t < 256; t++) {
		const struct nas_msg_desc *md = &msgs[t];
		if (!md->name || slot >= N_SLOTS - 1)
			continue;
		slot_of[t] = (uint8_t)++slot;
		for (unsigned i = md->n_ies; i-- > 0;) {        /* backwards: the first entry wins */
			const struct nas_ie_desc *d = &md->ies[i];
			if (d->fmt == NAS_F_TV1)
				for (unsigned v = 0; v < 16; v++)
					iei_map[slot][d->iei << 4 | v] = (uint8_t)(i + 1);
			else if (d->fmt > NAS_F_LVE)
				iei_map[slot][d->iei] = (uint8_t)(i + 1);
		}
	}
}

const struct nas_ie_desc *nas_ie_lookup(const struct nas_msg_desc *md, uint8_t iei)
{
	unsigned k = iei_map[slot_of[md->type]][iei];
	return k ? &md->ies[k - 1] : NULL;
}

const char *nas_5gmm_cause_name(uint8_t c)
{
	switch (c) {
	case NAS_5GMM_ILLEGAL_UE: return "Illegal UE";
	case NAS_5GMM_PEI_NOT_ACCEPTED: return "PEI not accepted";
	case NAS_5GMM_ILLEGAL_ME: return "Illegal ME";
	case NAS_5GMM_5GS_SERVICES_NOT_ALLOWED: return "5GS services not allowed";
	case NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED: return "UE identity cannot be derived by the network";
	case NAS_5GMM_IMPLICITLY_DEREGISTERED: return "Implicitly de-registered";
	case NAS_5GMM_PLMN_NOT_ALLOWED: return "PLMN not allowed";
	case NAS_5GMM_TA_NOT_ALLOWED: return "Tracking area not allowed";
	case NAS_5GMM_ROAMING_NOT_ALLOWED_IN_TA: return "Roaming not allowed in this tracking area";
	case NAS_5GMM_NO_SUITABLE_CELLS_IN_TA: return "No suitable cells in tracking area";
	case NAS_5GMM_MAC_FAILURE: return "MAC failure";
	case NAS_5GMM_SYNCH_FAILURE: return "Synch failure";
	case NAS_5GMM_CONGESTION: return "Congestion";
	case NAS_5GMM_UE_SECURITY_CAP_MISMATCH: return "UE security capabilities mismatch";
	case NAS_5GMM_SEC_MODE_REJECTED_UNSPECIFIED: return "Security mode rejected, unspecified";
	case NAS_5GMM_NON_5G_AUTH_UNACCEPTABLE: return "Non-5G authentication unacceptable";
	case NAS_5GMM_N1_MODE_NOT_ALLOWED: return "N1 mode not allowed";
	case NAS_5GMM_RESTRICTED_SERVICE_AREA: return "Restricted service area";
	case NAS_5GMM_NGKSI_ALREADY_IN_USE: return "ngKSI already in use";
	case NAS_5GMM_PAYLOAD_NOT_FORWARDED: return "Payload was not forwarded";
	case NAS_5GMM_DNN_NOT_SUPPORTED_IN_SLICE: return "DNN not supported or not subscribed in the slice";
	case NAS_5GMM_INSUFFICIENT_RESOURCES_SLICE_DNN: return "Insufficient user-plane resources for the PDU session";
	case NAS_5GMM_SEMANTICALLY_INCORRECT: return "Semantically incorrect message";
	case NAS_5GMM_INVALID_MANDATORY_INFO: return "Invalid mandatory information";
	case NAS_5GMM_MSG_TYPE_NON_EXISTENT: return "Message type non-existent or not implemented";
	case NAS_5GMM_MSG_TYPE_NOT_COMPATIBLE: return "Message type not compatible with the protocol state";
	case NAS_5GMM_IE_NON_EXISTENT: return "Information element non-existent or not implemented";
	case NAS_5GMM_CONDITIONAL_IE_ERROR: return "Conditional IE error";
	case NAS_5GMM_MSG_NOT_COMPATIBLE: return "Message not compatible with the protocol state";
	case NAS_5GMM_PROTOCOL_ERROR_UNSPECIFIED: return "Protocol error, unspecified";
	default: return "unknown 5GMM cause";
	}
}

const char *nas_5gsm_cause_name(uint8_t c)
{
	switch (c) {
	case NAS_5GSM_INSUFFICIENT_RESOURCES: return "Insufficient resources";
	case NAS_5GSM_MISSING_OR_UNKNOWN_DNN: return "Missing or unknown DNN";
	case NAS_5GSM_UNKNOWN_PDU_SESSION_TYPE: return "Unknown PDU session type";
	case NAS_5GSM_USER_AUTH_FAILED: return "User authentication or authorization failed";
	case NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED: return "Request rejected, unspecified";
	case NAS_5GSM_SERVICE_OPTION_NOT_SUPPORTED: return "Service option not supported";
	case NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED: return "Requested service option not subscribed";
	case NAS_5GSM_PTI_ALREADY_IN_USE: return "PTI already in use";
	case NAS_5GSM_REGULAR_DEACTIVATION: return "Regular deactivation";
	case NAS_5GSM_NETWORK_FAILURE: return "Network failure";
	case NAS_5GSM_REACTIVATION_REQUESTED: return "Reactivation requested";
	case NAS_5GSM_INVALID_PDU_SESSION_ID: return "Invalid PDU session identity";
	case NAS_5GSM_PDU_TYPE_IPV4_ONLY_ALLOWED: return "PDU session type IPv4 only allowed";
	case NAS_5GSM_PDU_TYPE_IPV6_ONLY_ALLOWED: return "PDU session type IPv6 only allowed";
	case NAS_5GSM_PDU_SESSION_DOES_NOT_EXIST: return "PDU session does not exist";
	case NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE_DNN: return "Insufficient resources for specific slice and DNN";
	case NAS_5GSM_NOT_SUPPORTED_SSC_MODE: return "Not supported SSC mode";
	case NAS_5GSM_INSUFFICIENT_RESOURCES_SLICE: return "Insufficient resources for specific slice";
	case NAS_5GSM_MISSING_OR_UNKNOWN_DNN_IN_SLICE: return "Missing or unknown DNN in a slice";
	case NAS_5GSM_INVALID_PTI: return "Invalid PTI value";
	case NAS_5GSM_SEMANTICALLY_INCORRECT: return "Semantically incorrect message";
	case NAS_5GSM_INVALID_MANDATORY_INFO: return "Invalid mandatory information";
	case NAS_5GSM_MSG_TYPE_NON_EXISTENT: return "Message type non-existent or not implemented";
	case NAS_5GSM_MSG_TYPE_NOT_COMPATIBLE: return "Message type not compatible with the protocol state";
	case NAS_5GSM_IE_NON_EXISTENT: return "Information element non-existent or not implemented";
	case NAS_5GSM_CONDITIONAL_IE_ERROR: return "Conditional IE error";
	case NAS_5GSM_MSG_NOT_COMPATIBLE: return "Message not compatible with the protocol state";
	case NAS_5GSM_PROTOCOL_ERROR_UNSPECIFIED: return "Protocol error, unspecified";
	default: return "unknown 5GSM cause";
	}
}
