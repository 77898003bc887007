/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* common/ngap internals: IE codec descriptors and the ProtocolIE-Container tables. Not for other folders. */
#ifndef SOLOCORE_COMMON_NGAP_NGAP_INT_H
#define SOLOCORE_COMMON_NGAP_NGAP_INT_H

#include <stddef.h>

#include "common/aper/aper.h"
#include "common/ngap/ngap.h"

/*
 * One codec per IE type. Simple types are described by data (kind + bounds) and share the
 * generic ngap_dec_simple / ngap_enc_simple; structured ones have their own functions. f points
 * at the struct field; cnt at the uint8_t item count of a list (NULL otherwise).
 */
struct ngap_codec {
	int (*dec)(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt);
	int (*enc)(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt);
	const char *name;
	uint8_t kind;        /* enum ngap_simple_kind for the generic codecs */
	uint8_t width;       /* field size in octets for integers */
	bool ext;            /* extension marker in the ASN.1 type */
	int64_t lb, ub;
};

enum ngap_simple_kind {
	NGAP_K_INT = 1,      /* INTEGER (lb..ub[, ...]) into an unsigned field of width octets */
	NGAP_K_ENUM,         /* ENUMERATED with ub root values, into uint8_t */
	NGAP_K_FLAG,         /* ENUMERATED {x, ...}: presence is the value; field untouched */
	NGAP_K_BITS,         /* BIT STRING (SIZE(lb)) into an unsigned field of width octets */
	NGAP_K_OCTETS,       /* OCTET STRING (lb..ub) by reference: struct ngap_bytes */
	NGAP_K_PRINTABLE,    /* PrintableString (SIZE(lb..ub[, ...])) by reference */
	NGAP_K_RAW,          /* any type kept as its encoded octets (struct ngap_bytes) */
};

int ngap_dec_simple(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt);
int ngap_enc_simple(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt);

enum ngap_presence { NGAP_PRES_M = 0, NGAP_PRES_O = 1 };

/* One row of a ProtocolIE-Container table (TS 38.413 9.2 tables / the *IEs sets in 9.4.4). */
struct ngap_ie_spec {
	uint16_t id;
	uint8_t crit;            /* criticality we send, and the one used for a missing IE */
	uint8_t presence;        /* enum ngap_presence (conditional IEs are optional here) */
	int16_t off;             /* field offset in the message struct */
	int16_t cnt;             /* offset of the uint8_t item count for lists, else -1 */
	int16_t has;             /* offset of the bool has_* for optional scalars, else -1 */
	const struct ngap_codec *codec;
	const char *ref;         /* the IE's ProtocolIE-ID name in TS 38.413 9.4.7, e.g. "id-NAS-PDU" */
	int16_t raw;             /* lists longer than their array: offset of a struct ngap_bytes that gets the
				  * IE value on decode and, when set, is sent as the value on encode; else -1 */
	int16_t total;           /* offset of the total item count (uint16_t or uint32_t by twidth), else -1:
				  * list codecs return that count (> 0) from dec */
	uint8_t twidth;
};

struct ngap_container {
	const struct ngap_ie_spec *ies;
	uint8_t n;
	uint16_t size;           /* sizeof the struct being filled */
};

/* TS 38.413 10.3.4.2 / 10.3.5: record an IE not comprehended or missing and raise info->action by its
 * criticality. Readers of a decode carry the info in aper_r.user. */
void ngap_note_ie(struct ngap_dec_info *info, uint16_t id, uint8_t crit, uint8_t type);

/* Generic walkers over a SEQUENCE { protocolIEs ProtocolIE-Container, ... }. */
int ngap_container_dec(struct aper_r *r, const struct ngap_container *ct, void *s, struct ngap_dec_info *info);
int ngap_container_enc(struct aper_w *w, const struct ngap_container *ct, const void *s);

/* One IE value as text (ngap_str.c); snprintf semantics. */
int ngap_ie_str(const struct ngap_ie_spec *e, const void *f, const uint8_t *cnt, char *buf, size_t cap);

/* An open type (X.691 11.2) into sub; a fragmented one is joined into info->scratch when the decode
 * has one (ngap_decode_scratch), else -ENOTSUP. */
int ngap_get_open(struct aper_r *r, struct aper_r *sub, struct ngap_dec_info *info);

/* Start / finish decoding a SEQUENCE with nopt optional fields where the last one is iE-Extensions. */
int ngap_seq_dec(struct aper_r *r, unsigned nopt, uint32_t *mask, bool *ext);
int ngap_seq_end(struct aper_r *r, unsigned nopt, uint32_t mask, bool ext);

/* Helpers shared by the IE codec files */
int ngap_fixed_octets(struct aper_r *r, uint8_t *out, size_t n);
int ngap_get_count(struct aper_r *r, int64_t ub, size_t limit, uint8_t *cnt);
int ngap_put_count(struct aper_w *w, int64_t ub, size_t limit, size_t n);
int ngap_dec_tai(struct aper_r *r, struct ngap_tai *t);
int ngap_enc_tai(struct aper_w *w, const struct ngap_tai *t);

/* Shared IE codecs (ngap_ie.c, ngap_ie_ue.c) */
int ngap_dec_plmn(struct aper_r *r, struct ngap_plmn *p);
int ngap_enc_plmn(struct aper_w *w, const struct ngap_plmn *p);
int ngap_dec_cause(struct aper_r *r, struct ngap_cause *c);
int ngap_enc_cause(struct aper_w *w, const struct ngap_cause *c);
int ngap_dec_crit_diag(struct aper_r *r, struct ngap_crit_diag *d);
int ngap_enc_crit_diag(struct aper_w *w, const struct ngap_crit_diag *d);
int ngap_dec_bitrate(struct aper_r *r, uint64_t *v);
int ngap_enc_bitrate(struct aper_w *w, uint64_t v);
int ngap_dec_snssai(struct aper_r *r, struct ngap_snssai *s);
int ngap_enc_snssai(struct aper_w *w, const struct ngap_snssai *s);
int ngap_dec_slice_item(struct aper_r *r, struct ngap_snssai *s);
int ngap_enc_slice_item(struct aper_w *w, const struct ngap_snssai *s);
int ngap_dec_ue_assoc_item(struct aper_r *r, struct ngap_ue_assoc *u);
int ngap_enc_ue_assoc_item(struct aper_w *w, const struct ngap_ue_assoc *u);

extern const struct ngap_codec ngap_c_amf_ue_id, ngap_c_ran_ue_id, ngap_c_nas_pdu, ngap_c_name,
	ngap_c_global_ran_node_id, ngap_c_supported_ta_list, ngap_c_paging_drx, ngap_c_ue_retention,
	ngap_c_served_guami_list, ngap_c_relative_capacity, ngap_c_plmn_support_list, ngap_c_crit_diag,
	ngap_c_cause, ngap_c_time_to_wait, ngap_c_uli, ngap_c_rrc_cause, ngap_c_s_tmsi, ngap_c_amf_set_id,
	ngap_c_flag, ngap_c_allowed_nssai, ngap_c_ran_paging_priority, ngap_c_index_to_rfsp, ngap_c_ue_ambr,
	ngap_c_guami, ngap_c_ue_sec_cap, ngap_c_security_key, ngap_c_masked_imeisv, ngap_c_octets,
	ngap_c_raw, ngap_c_sess_nas_snssai, ngap_c_sess_nas, ngap_c_sess_xfer, ngap_c_sess_ids,
	ngap_c_ue_ngap_ids, ngap_c_reset_type, ngap_c_ue_assoc_list, ngap_c_ue_paging_id, ngap_c_tai_paging,
	ngap_c_paging_priority;

/* UE mobility messages' tables (ngap_ho.c, TS 38.413 9.2.3), registered in ngap_msg.c */
extern const struct ngap_container ngap_ct_ho_required, ngap_ct_ho_command, ngap_ct_ho_prep_fail,
	ngap_ct_ho_request, ngap_ct_ho_request_ack, ngap_ct_ho_fail, ngap_ct_ho_notify, ngap_ct_ps_req,
	ngap_ct_ps_ack, ngap_ct_ps_fail, ngap_ct_ho_cancel, ngap_ct_ho_cancel_ack, ngap_ct_ul_ran_status,
	ngap_ct_dl_ran_status;

/* IE codecs of the mobility messages (ngap_ie_sec.c; the SetupListHOReq shape in ngap_ie_ue.c) */
extern const struct ngap_codec ngap_c_handover_type, ngap_c_target_id, ngap_c_security_context,
	ngap_c_sess_snssai_xfer;

/* SM transfer helpers of ngap_xfer.c shared with ngap_ho_xfer.c (UPTransportLayerInformation 9.3.2.2,
 * QoS flow lists, the plain SEQUENCE transfer framing) */
typedef void (*ngap_seq_body_dec)(struct aper_r *r, uint32_t mask, void *t);
int ngap_dec_seq_xfer(const uint8_t *buf, size_t len, void *t, size_t tsz, unsigned nopt, ngap_seq_body_dec body,
		      struct ngap_dec_info *info);
int ngap_dec_tunnel(struct aper_r *r, struct ngap_gtp_tunnel *t);
int ngap_enc_tunnel(struct aper_w *w, const struct ngap_gtp_tunnel *t);
int ngap_dec_qfis(struct aper_r *r, uint8_t *qfis, uint8_t *cnt);
int ngap_enc_qfis(struct aper_w *w, const uint8_t *qfis, uint8_t cnt);
int ngap_dec_flow_causes(struct aper_r *r, struct ngap_qos_flow_cause *fc, uint8_t *cnt);
int ngap_enc_flow_causes(struct aper_w *w, const struct ngap_qos_flow_cause *fc, uint8_t cnt);

#endif
