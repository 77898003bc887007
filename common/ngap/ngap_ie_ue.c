/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NGAP IE codecs for UE-associated signalling, TS 38.413 9.3 (ASN.1 in 9.4.5): location, UE
 * identities, bit rates, security capabilities, PDU session lists, UE NGAP IDs, reset lists.
 * Same conventions as ngap_ie.c.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

/* ---- UserLocationInformation 9.3.1.16 (NR only) ---- */

static int d_uli(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_uli *u = f;
	unsigned idx;
	uint32_t mask, m2;
	bool ext, e2;
	uint64_t v;

	(void)c, (void)cnt;
	memset(u, 0, sizeof(*u));
	if (aper_get_choice(r, 4, false, &idx))
		return r->err;
	if (idx != 1)
		return aper_r_fail(r, -ENOTSUP, "UserLocationInformation: only NR is supported");
	ngap_seq_dec(r, 2, &mask, &ext);
	ngap_seq_dec(r, 1, &m2, &e2); /* NR-CGI */
	ngap_dec_plmn(r, &u->nr_cgi.plmn);
	aper_get_bits_fixed(r, 36, false, &v);
	u->nr_cgi.cell_id = v;
	ngap_seq_end(r, 1, m2, e2);
	ngap_dec_tai(r, &u->tai);
	if ((u->has_time_stamp = mask & 1))
		ngap_fixed_octets(r, u->time_stamp, 4);
	return ngap_seq_end(r, 2, mask, ext);
}

static int e_uli(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_uli *u = f;

	(void)c, (void)cnt;
	aper_put_choice(w, 4, false, 1);
	aper_put_seq(w, true, 2, u->has_time_stamp);
	aper_put_seq(w, true, 1, 0);
	ngap_enc_plmn(w, &u->nr_cgi.plmn);
	aper_put_bits_fixed(w, 36, false, u->nr_cgi.cell_id);
	ngap_enc_tai(w, &u->tai);
	if (u->has_time_stamp)
		aper_put_octets(w, 4, 4, false, u->time_stamp, 4);
	return w->err;
}

const struct ngap_codec ngap_c_uli = { d_uli, e_uli, "UserLocationInformation", 0, 0, false, 0, 0 };

/* ---- FiveG-S-TMSI 9.3.3.20, UEPagingIdentity 9.3.3.18 ---- */

static int dec_s_tmsi(struct aper_r *r, struct ngap_5g_s_tmsi *t)
{
	uint32_t mask;
	bool ext;
	uint64_t v;

	ngap_seq_dec(r, 1, &mask, &ext);
	aper_get_bits_fixed(r, 10, false, &v);
	t->set_id = (uint16_t)v;
	aper_get_bits_fixed(r, 6, false, &v);
	t->pointer = (uint8_t)v;
	ngap_fixed_octets(r, t->tmsi, 4);
	return ngap_seq_end(r, 1, mask, ext);
}

static int enc_s_tmsi(struct aper_w *w, const struct ngap_5g_s_tmsi *t)
{
	aper_put_seq(w, true, 1, 0);
	aper_put_bits_fixed(w, 10, false, t->set_id);
	aper_put_bits_fixed(w, 6, false, t->pointer);
	return aper_put_octets(w, 4, 4, false, t->tmsi, 4);
}

static int d_s_tmsi(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c, (void)cnt;
	return dec_s_tmsi(r, f);
}

static int e_s_tmsi(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c, (void)cnt;
	return enc_s_tmsi(w, f);
}

const struct ngap_codec ngap_c_s_tmsi = { d_s_tmsi, e_s_tmsi, "FiveG-S-TMSI", 0, 0, false, 0, 0 };

static int d_ue_paging_id(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	unsigned idx;

	(void)c, (void)cnt;
	if (aper_get_choice(r, 2, false, &idx))
		return r->err;
	if (idx != 0)
		return aper_r_fail(r, -ENOTSUP, "UEPagingIdentity choice-Extensions");
	return dec_s_tmsi(r, f);
}

static int e_ue_paging_id(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c, (void)cnt;
	aper_put_choice(w, 2, false, 0);
	return enc_s_tmsi(w, f);
}

const struct ngap_codec ngap_c_ue_paging_id = { d_ue_paging_id, e_ue_paging_id, "UEPagingIdentity", 0, 0, false,
						0, 0 };

/* TAIListForPaging: SEQUENCE (SIZE(1..maxnoofTAIforPaging)) OF {tAI, iE-Ext} */
static int d_tai_paging(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_tai *t = f;
	uint32_t mask;
	bool ext;

	(void)c;
	if (ngap_get_count(r, 16, NGAP_MAX_TAI_PAGING, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		ngap_dec_tai(r, &t[i]);
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

static int e_tai_paging(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_tai *t = f;

	(void)c;
	ngap_put_count(w, 16, NGAP_MAX_TAI_PAGING, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		ngap_enc_tai(w, &t[i]);
	}
	return w->err;
}

const struct ngap_codec ngap_c_tai_paging = { d_tai_paging, e_tai_paging, "TAIListForPaging", 0, 0, false, 0, 0 };

/* ---- bit rates, UE-AMBR 9.3.1.58, UESecurityCapabilities 9.3.1.86 ---- */

int ngap_dec_bitrate(struct aper_r *r, uint64_t *v)
{
	int64_t x;

	aper_get_cint(r, 0, 4000000000000LL, true, &x); /* BitRate ::= INTEGER (0..4000000000000,...) */
	if (!r->err && x < 0)
		return aper_r_fail(r, -ERANGE, "negative bit rate");
	*v = (uint64_t)x;
	return r->err;
}

int ngap_enc_bitrate(struct aper_w *w, uint64_t v)
{
	if (v > INT64_MAX)
		return aper_w_fail(w, -EINVAL, "bit rate");
	return aper_put_cint(w, 0, 4000000000000LL, true, (int64_t)v);
}

static int d_ue_ambr(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_ambr *a = f;
	uint32_t mask;
	bool ext;

	(void)c, (void)cnt;
	ngap_seq_dec(r, 1, &mask, &ext);
	ngap_dec_bitrate(r, &a->dl);
	ngap_dec_bitrate(r, &a->ul);
	return ngap_seq_end(r, 1, mask, ext);
}

static int e_ue_ambr(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_ambr *a = f;

	(void)c, (void)cnt;
	aper_put_seq(w, true, 1, 0);
	ngap_enc_bitrate(w, a->dl);
	return ngap_enc_bitrate(w, a->ul);
}

const struct ngap_codec ngap_c_ue_ambr = { d_ue_ambr, e_ue_ambr, "UEAggregateMaximumBitRate", 0, 0, false, 0, 0 };

static int d_ue_sec_cap(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_ue_sec_cap *s = f;
	uint16_t *fields[4] = { &s->nr_enc, &s->nr_int, &s->eutra_enc, &s->eutra_int };
	uint32_t mask;
	bool ext;
	uint8_t b[2];
	size_t n;

	(void)c, (void)cnt;
	ngap_seq_dec(r, 1, &mask, &ext);
	for (unsigned i = 0; i < 4 && !r->err; i++) {
		/* BIT STRING (SIZE(16, ...)): keep the first 16 bits of a longer extension value */
		uint8_t big[8] = { 0 };

		if (aper_get_bitstr(r, 16, 16, true, big, sizeof(big), &n))
			break;
		b[0] = big[0], b[1] = big[1];
		*fields[i] = (uint16_t)(b[0] << 8 | b[1]);
	}
	return ngap_seq_end(r, 1, mask, ext);
}

static int e_ue_sec_cap(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_ue_sec_cap *s = f;
	const uint16_t v[4] = { s->nr_enc, s->nr_int, s->eutra_enc, s->eutra_int };

	(void)c, (void)cnt;
	aper_put_seq(w, true, 1, 0);
	for (unsigned i = 0; i < 4; i++)
		aper_put_bits_fixed(w, 16, true, v[i]);
	return w->err;
}

const struct ngap_codec ngap_c_ue_sec_cap = { d_ue_sec_cap, e_ue_sec_cap, "UESecurityCapabilities", 0, 0, false,
					      0, 0 };

/* ---- PDU session lists (one item struct, four shapes) ---- */

/* SESS_SNSSAI_XFER: PDUSessionResourceSetupItemHOReq {id, s-NSSAI, transfer} (TS 38.413 9.2.3.4) */
enum sess_shape { SESS_NAS_SNSSAI, SESS_NAS, SESS_XFER, SESS_SNSSAI_XFER };

static int dec_sess_list(struct aper_r *r, struct ngap_pdu_sess_item *it, uint8_t *cnt, enum sess_shape shape)
{
	bool has_nas = shape == SESS_NAS_SNSSAI || shape == SESS_NAS;
	unsigned nopt = has_nas ? 2 : 1;
	uint32_t mask;
	bool ext;
	int64_t v;
	size_t n;

	if (ngap_get_count(r, 256, NGAP_MAX_PDU_SESSIONS, cnt)) /* maxnoofPDUSessions */
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		memset(&it[i], 0, sizeof(it[i]));
		ngap_seq_dec(r, nopt, &mask, &ext);
		aper_get_cint(r, 0, 255, false, &v);
		it[i].id = (uint8_t)v;
		if (has_nas && (mask & 1)) {
			aper_get_octets(r, 0, APER_UNBOUNDED, false, &it[i].nas.p, &n);
			it[i].nas.len = n;
		}
		if (shape == SESS_NAS_SNSSAI || shape == SESS_SNSSAI_XFER) {
			it[i].has_snssai = true;
			ngap_dec_snssai(r, &it[i].snssai);
		}
		aper_get_octets(r, 0, APER_UNBOUNDED, false, &it[i].transfer.p, &n);
		it[i].transfer.len = n;
		ngap_seq_end(r, nopt, mask, ext);
	}
	return r->err;
}

static int enc_sess_list(struct aper_w *w, const struct ngap_pdu_sess_item *it, uint8_t cnt, enum sess_shape shape)
{
	bool has_nas = shape == SESS_NAS_SNSSAI || shape == SESS_NAS;

	ngap_put_count(w, 256, NGAP_MAX_PDU_SESSIONS, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		bool nas = has_nas && it[i].nas.p;

		aper_put_seq(w, true, has_nas ? 2 : 1, nas);
		aper_put_cint(w, 0, 255, false, it[i].id);
		if (nas)
			aper_put_octets(w, 0, APER_UNBOUNDED, false, it[i].nas.p, it[i].nas.len);
		if (shape == SESS_NAS_SNSSAI || shape == SESS_SNSSAI_XFER)
			ngap_enc_snssai(w, &it[i].snssai);
		aper_put_octets(w, 0, APER_UNBOUNDED, false, it[i].transfer.p, it[i].transfer.len);
	}
	return w->err;
}

static int d_sess(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	return dec_sess_list(r, f, cnt, (enum sess_shape)c->kind);
}

static int e_sess(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	return enc_sess_list(w, f, *cnt, (enum sess_shape)c->kind);
}

const struct ngap_codec ngap_c_sess_nas_snssai = { d_sess, e_sess, "PDUSessionResourceSetupList(Req)",
						   SESS_NAS_SNSSAI, 0, false, 0, 0 };
const struct ngap_codec ngap_c_sess_nas = { d_sess, e_sess, "PDUSessionResourceModifyListModReq", SESS_NAS, 0,
					    false, 0, 0 };
const struct ngap_codec ngap_c_sess_xfer = { d_sess, e_sess, "PDUSessionResource(id, transfer)List", SESS_XFER,
					     0, false, 0, 0 };
const struct ngap_codec ngap_c_sess_snssai_xfer = { d_sess, e_sess, "PDUSessionResourceSetupListHOReq",
						    SESS_SNSSAI_XFER, 0, false, 0, 0 };

/* PDUSessionResourceListCxtRelReq / CxtRelCpl: SEQUENCE OF {pDUSessionID, iE-Ext} */
static int d_sess_ids(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	uint8_t *ids = f;
	uint32_t mask;
	bool ext;
	int64_t v;

	(void)c;
	if (ngap_get_count(r, 256, NGAP_MAX_PDU_SESSIONS, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		aper_get_cint(r, 0, 255, false, &v);
		ids[i] = (uint8_t)v;
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

static int e_sess_ids(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const uint8_t *ids = f;

	(void)c;
	ngap_put_count(w, 256, NGAP_MAX_PDU_SESSIONS, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		aper_put_cint(w, 0, 255, false, ids[i]);
	}
	return w->err;
}

const struct ngap_codec ngap_c_sess_ids = { d_sess_ids, e_sess_ids, "PDUSessionResourceList(id)", 0, 0, false, 0,
					    0 };

/* ---- UE-NGAP-IDs (UE Context Release Command); field = the message struct ---- */

static int d_ue_ngap_ids(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_ue_context_release_command *m = f;
	unsigned idx;
	uint32_t mask;
	bool ext;
	int64_t v;

	(void)c, (void)cnt;
	if (aper_get_choice(r, 3, false, &idx))
		return r->err;
	if (idx == 2)
		return aper_r_fail(r, -ENOTSUP, "UE-NGAP-IDs choice-Extensions");
	if (idx == 1) {
		m->has_ran_ue_id = false;
		aper_get_cint(r, 0, 1099511627775LL, false, &v);
		m->amf_ue_id = (uint64_t)v;
		return r->err;
	}
	m->has_ran_ue_id = true;
	ngap_seq_dec(r, 1, &mask, &ext);
	aper_get_cint(r, 0, 1099511627775LL, false, &v);
	m->amf_ue_id = (uint64_t)v;
	aper_get_cint(r, 0, 4294967295LL, false, &v);
	m->ran_ue_id = (uint32_t)v;
	return ngap_seq_end(r, 1, mask, ext);
}

static int e_ue_ngap_ids(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_ue_context_release_command *m = f;

	(void)c, (void)cnt;
	if (!m->has_ran_ue_id) {
		aper_put_choice(w, 3, false, 1);
		return aper_put_cint(w, 0, 1099511627775LL, false, (int64_t)m->amf_ue_id);
	}
	aper_put_choice(w, 3, false, 0);
	aper_put_seq(w, true, 1, 0);
	aper_put_cint(w, 0, 1099511627775LL, false, (int64_t)m->amf_ue_id);
	return aper_put_cint(w, 0, 4294967295LL, false, m->ran_ue_id);
}

const struct ngap_codec ngap_c_ue_ngap_ids = { d_ue_ngap_ids, e_ue_ngap_ids, "UE-NGAP-IDs", 0, 0, false, 0, 0 };

/* ---- UE-associatedLogicalNG-connectionList, ResetType ---- */

int ngap_dec_ue_assoc_item(struct aper_r *r, struct ngap_ue_assoc *u)
{
	uint32_t mask;
	bool ext;
	int64_t v;

	memset(u, 0, sizeof(*u));
	ngap_seq_dec(r, 3, &mask, &ext);
	if ((u->has_amf_ue_id = mask & 1)) {
		aper_get_cint(r, 0, 1099511627775LL, false, &v);
		u->amf_ue_id = (uint64_t)v;
	}
	if ((u->has_ran_ue_id = mask & 2)) {
		aper_get_cint(r, 0, 4294967295LL, false, &v);
		u->ran_ue_id = (uint32_t)v;
	}
	return ngap_seq_end(r, 3, mask, ext);
}

int ngap_enc_ue_assoc_item(struct aper_w *w, const struct ngap_ue_assoc *u)
{
	aper_put_seq(w, true, 3, (u->has_amf_ue_id ? 1u : 0) | (u->has_ran_ue_id ? 2u : 0));
	if (u->has_amf_ue_id)
		aper_put_cint(w, 0, 1099511627775LL, false, (int64_t)u->amf_ue_id);
	if (u->has_ran_ue_id)
		aper_put_cint(w, 0, 4294967295LL, false, u->ran_ue_id);
	return w->err;
}

/* SIZE(1..maxnoofNGConnectionsToReset = 65536): ub is not < 64K, so the unbounded length (X.691
 * 11.9.4.2), fragmented from 16K items on (11.9.3.8: 16K-multiples, then the rest, 0 included). The
 * first NGAP_MAX_UE_ASSOC items land in u, the others are decoded and dropped (ngap_ue_assoc_iter walks
 * them all). Returns the item count. */
static int dec_ue_assoc(struct aper_r *r, struct ngap_ue_assoc *u, uint8_t *cnt)
{
	struct ngap_ue_assoc drop;
	size_t n, all = 0;
	bool more = true;

	*cnt = 0;
	while (more && !r->err) {
		if (aper_get_len(r, 0, APER_UNBOUNDED, &n, &more))
			return r->err;
		if (n > NGAP_MAXNOOF_NG_CONNECTIONS_TO_RESET - all)
			return aper_r_fail(r, -ERANGE, "more than maxnoofNGConnectionsToReset items");
		for (size_t k = 0; k < n && !r->err; k++, all++)
			ngap_dec_ue_assoc_item(r, all < NGAP_MAX_UE_ASSOC ? &u[all] : &drop);
	}
	if (!r->err && all == 0)
		return aper_r_fail(r, -ERANGE, "length outside its size constraint");
	if (r->err)
		return r->err;
	*cnt = (uint8_t)(all < NGAP_MAX_UE_ASSOC ? all : NGAP_MAX_UE_ASSOC);
	return (int)all;
}

static int enc_ue_assoc(struct aper_w *w, const struct ngap_ue_assoc *u, uint8_t cnt)
{
	ngap_put_count(w, 65536, NGAP_MAX_UE_ASSOC, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++)
		ngap_enc_ue_assoc_item(w, &u[i]);
	return w->err;
}

static int d_ue_assoc_list(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c;
	return dec_ue_assoc(r, f, cnt);
}

static int e_ue_assoc_list(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c;
	return enc_ue_assoc(w, f, *cnt);
}

const struct ngap_codec ngap_c_ue_assoc_list = { d_ue_assoc_list, e_ue_assoc_list,
						 "UE-associatedLogicalNG-connectionList", 0, 0, false, 0, 0 };

/* ResetType; field = struct ngap_ng_reset */
static int d_reset_type(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_ng_reset *m = f;
	unsigned idx, e;
	size_t start;
	int rc;

	(void)c, (void)cnt;
	if (aper_get_choice(r, 3, false, &idx))
		return r->err;
	if (idx == 2)
		return aper_r_fail(r, -ENOTSUP, "ResetType choice-Extensions");
	m->reset_all = idx == 0;
	m->n_ues = 0;
	m->total_ues = 0;
	m->ues_raw = (struct ngap_bytes){ NULL, 0 };
	if (idx == 0)
		return aper_get_enum(r, 1, true, &e); /* ResetAll ::= ENUMERATED {reset-all, ...} */
	start = (r->pos + 7) / 8; /* the list starts octet-aligned (its length determinant) */
	rc = dec_ue_assoc(r, m->ues, &m->n_ues);
	if (rc < 0)
		return rc;
	m->total_ues = (uint32_t)rc;
	m->ues_raw = (struct ngap_bytes){ r->buf + start, (r->pos + 7) / 8 - start };
	return 0;
}

static int e_reset_type(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_ng_reset *m = f;

	(void)c, (void)cnt;
	aper_put_choice(w, 3, false, m->reset_all ? 0 : 1);
	if (m->reset_all)
		return aper_put_enum(w, 1, true, 0);
	if (m->ues_raw.p) { /* an encoded list (ngap_enc_ue_assoc_list, or a decoded NG Reset's), as is */
		aper_w_align(w);
		for (size_t i = 0; i < m->ues_raw.len && !w->err; i++)
			aper_put_bits(w, m->ues_raw.p[i], 8);
		return w->err;
	}
	return enc_ue_assoc(w, m->ues, m->n_ues);
}

const struct ngap_codec ngap_c_reset_type = { d_reset_type, e_reset_type, "ResetType", 0, 0, false, 0, 0 };
