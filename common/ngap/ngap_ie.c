/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * NGAP IE codecs, TS 38.413 9.3 (ASN.1 in 9.4.5). Every NGAP SEQUENCE here is extensible and ends
 * with "iE-Extensions ProtocolExtensionContainer OPTIONAL": we skip received extensions and never
 * send any. NGAP CHOICEs have no extension marker: "choice-Extensions" is their last root
 * alternative, which we do not decode (-ENOTSUP).
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap_int.h"

#define MAX_PROTOCOL_IES 65535 /* maxProtocolIEs, maxProtocolExtensions */

/* ---- SEQUENCE helpers ---- */

static int skip_ext_container(struct aper_r *r)
{
	size_t n, i;
	int64_t id;
	unsigned crit;
	struct aper_r sub;

	/* ProtocolExtensionContainer: SEQUENCE (SIZE(1..maxProtocolExtensions)) OF {id, criticality, value} */
	if (aper_get_count(r, 1, MAX_PROTOCOL_IES, &n))
		return r->err;
	for (i = 0; i < n && !r->err; i++) {
		aper_get_cint(r, 0, 65535, false, &id);
		aper_get_enum(r, 3, false, &crit);
		if (!r->err && crit > NGAP_CRIT_NOTIFY)
			return aper_r_fail(r, -EBADMSG, "bad criticality value");
		aper_get_open(r, &sub);
		/* we comprehend no extension IE: 10.3.4.2 applies to them by their criticality */
		if (!r->err && r->user)
			ngap_note_ie(r->user, (uint16_t)id, (uint8_t)crit, NGAP_ERR_NOT_UNDERSTOOD);
	}
	return r->err;
}

int ngap_seq_dec(struct aper_r *r, unsigned nopt, uint32_t *mask, bool *ext)
{
	return aper_get_seq(r, true, nopt, ext, mask);
}

int ngap_seq_end(struct aper_r *r, unsigned nopt, uint32_t mask, bool ext)
{
	if (nopt && (mask >> (nopt - 1)) & 1)
		skip_ext_container(r);
	if (ext && !r->err)
		aper_skip_seq_ext(r);
	return r->err;
}

int ngap_fixed_octets(struct aper_r *r, uint8_t *out, size_t n)
{
	size_t got;

	return aper_get_octets_copy(r, (int64_t)n, (int64_t)n, false, out, n, &got);
}

int ngap_get_count(struct aper_r *r, int64_t ub, size_t limit, uint8_t *cnt)
{
	size_t n;

	*cnt = 0;
	if (aper_get_count(r, 1, ub, &n))
		return r->err;
	if (n > limit)
		return aper_r_fail(r, -E2BIG, "list longer than our limit");
	*cnt = (uint8_t)n;
	return 0;
}

int ngap_put_count(struct aper_w *w, int64_t ub, size_t limit, size_t n)
{
	if (n > limit)
		return aper_w_fail(w, -EINVAL, "list longer than its array");
	return aper_put_count(w, 1, ub, n);
}

/* ---- generic simple codecs ---- */

static uint64_t get_uint(const void *f, unsigned width)
{
	switch (width) {
	case 1: return *(const uint8_t *)f;
	case 2: return *(const uint16_t *)f;
	case 4: return *(const uint32_t *)f;
	default: return *(const uint64_t *)f;
	}
}

static void set_uint(void *f, unsigned width, uint64_t v)
{
	switch (width) {
	case 1: *(uint8_t *)f = (uint8_t)v; break;
	case 2: *(uint16_t *)f = (uint16_t)v; break;
	case 4: *(uint32_t *)f = (uint32_t)v; break;
	default: *(uint64_t *)f = v; break;
	}
}

int ngap_dec_simple(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_bytes *b = f;
	int64_t v;
	uint64_t u;
	unsigned e;
	size_t n;

	(void)cnt;
	switch (c->kind) {
	case NGAP_K_INT:
		if (aper_get_cint(r, c->lb, c->ub, c->ext, &v))
			return r->err;
		if (v < 0 || (c->width < 8 && (uint64_t)v >> (c->width * 8)))
			return aper_r_fail(r, -ERANGE, "integer extension value too large");
		set_uint(f, c->width, (uint64_t)v);
		return 0;
	case NGAP_K_ENUM:
		if (aper_get_enum(r, (unsigned)c->ub, c->ext, &e))
			return r->err;
		*(uint8_t *)f = (uint8_t)e;
		return 0;
	case NGAP_K_FLAG:
		return aper_get_enum(r, 1, c->ext, &e);
	case NGAP_K_BITS:
		if (aper_get_bits_fixed(r, (unsigned)c->lb, c->ext, &u))
			return r->err;
		set_uint(f, c->width, u);
		return 0;
	case NGAP_K_OCTETS:
		aper_get_octets(r, c->lb, c->ub, c->ext, &b->p, &n);
		b->len = n;
		return r->err;
	case NGAP_K_PRINTABLE:
		aper_get_string(r, APER_PRINTABLE, c->lb, c->ub, c->ext, &b->p, &n);
		b->len = n;
		return r->err;
	case NGAP_K_RAW:
		if (!r->len)
			return aper_r_fail(r, -EBADMSG, "empty open type");
		b->p = r->buf;
		b->len = r->len;
		r->pos = r->len * 8;
		return 0;
	}
	return aper_r_fail(r, -EINVAL, "bad codec kind");
}

int ngap_enc_simple(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_bytes *b = f;

	(void)cnt;
	switch (c->kind) {
	case NGAP_K_INT:
		return aper_put_cint(w, c->lb, c->ub, c->ext, (int64_t)get_uint(f, c->width));
	case NGAP_K_ENUM:
		return aper_put_enum(w, (unsigned)c->ub, c->ext, *(const uint8_t *)f);
	case NGAP_K_FLAG:
		return aper_put_enum(w, 1, c->ext, 0);
	case NGAP_K_BITS:
		return aper_put_bits_fixed(w, (unsigned)c->lb, c->ext, get_uint(f, c->width));
	case NGAP_K_OCTETS:
		return aper_put_octets(w, c->lb, c->ub, c->ext, b->p, b->len);
	case NGAP_K_PRINTABLE:
		return aper_put_string(w, APER_PRINTABLE, c->lb, c->ub, c->ext, b->p, b->len);
	case NGAP_K_RAW:
		if (!b->len)
			return aper_w_fail(w, -EINVAL, "empty raw IE");
		aper_w_align(w);
		for (size_t i = 0; i < b->len && !w->err; i++)
			aper_put_bits(w, b->p[i], 8);
		return w->err;
	}
	return aper_w_fail(w, -EINVAL, "bad codec kind");
}

#define SIMPLE(nm, k, wd, x, l, u) \
	const struct ngap_codec ngap_c_##nm = { ngap_dec_simple, ngap_enc_simple, #nm, k, wd, x, l, u }

SIMPLE(amf_ue_id, NGAP_K_INT, 8, false, 0, 1099511627775LL);          /* 9.3.3.1 */
SIMPLE(ran_ue_id, NGAP_K_INT, 4, false, 0, 4294967295LL);             /* 9.3.3.2 */
SIMPLE(nas_pdu, NGAP_K_OCTETS, 0, false, 0, APER_UNBOUNDED);          /* 9.3.3.4 */
SIMPLE(octets, NGAP_K_OCTETS, 0, false, 0, APER_UNBOUNDED);
SIMPLE(name, NGAP_K_PRINTABLE, 0, true, 1, NGAP_MAX_NAME);            /* 9.3.3.21 AMFName, 9.3.1.4 RANNodeName */
SIMPLE(paging_drx, NGAP_K_ENUM, 1, true, 0, 4);                       /* 9.3.1.90 */
SIMPLE(ue_retention, NGAP_K_ENUM, 1, true, 0, 1);                     /* 9.3.1.117 */
SIMPLE(relative_capacity, NGAP_K_INT, 1, false, 0, 255);              /* 9.3.1.32 */
SIMPLE(time_to_wait, NGAP_K_ENUM, 1, true, 0, 6);                     /* 9.3.1.56 */
SIMPLE(rrc_cause, NGAP_K_ENUM, 1, true, 0, 10);                       /* 9.3.1.111 */
SIMPLE(amf_set_id, NGAP_K_BITS, 2, false, 10, 10);                    /* 9.3.3.12 */
SIMPLE(flag, NGAP_K_FLAG, 0, true, 0, 1);                             /* e.g. UEContextRequest 9.3.1.74 */
SIMPLE(ran_paging_priority, NGAP_K_INT, 2, false, 1, 256);            /* 9.3.3.15 */
SIMPLE(index_to_rfsp, NGAP_K_INT, 2, true, 1, 256);                   /* 9.3.1.61 */
SIMPLE(raw, NGAP_K_RAW, 0, false, 0, 0);
SIMPLE(paging_priority, NGAP_K_ENUM, 1, true, 0, 8);                  /* 9.3.1.78 */

/* masked IMEISV is stored as uint8_t[8] in the message; keep it as a byte array on the wire too */
static int d_bytes_bits(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	size_t n;

	(void)cnt;
	if (aper_get_bitstr(r, c->lb, c->lb, false, f, (size_t)c->lb / 8, &n))
		return r->err;
	return 0;
}

static int e_bytes_bits(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)cnt;
	return aper_put_bitstr(w, c->lb, c->lb, false, f, (size_t)c->lb);
}

const struct ngap_codec ngap_c_security_key = { d_bytes_bits, e_bytes_bits, "SecurityKey", 0, 0, false, 256, 256 };
const struct ngap_codec ngap_c_masked_imeisv = { d_bytes_bits, e_bytes_bits, "MaskedIMEISV", 0, 0, false, 64, 64 };

/* ---- PLMN, TAI, S-NSSAI, GUAMI ---- */

int ngap_dec_plmn(struct aper_r *r, struct ngap_plmn *p)
{
	return ngap_fixed_octets(r, p->v, 3); /* 9.3.3.5 OCTET STRING (SIZE(3)) */
}

int ngap_enc_plmn(struct aper_w *w, const struct ngap_plmn *p)
{
	return aper_put_octets(w, 3, 3, false, p->v, 3);
}

int ngap_dec_snssai(struct aper_r *r, struct ngap_snssai *s)
{
	uint32_t mask;
	bool ext;

	memset(s, 0, sizeof(*s));
	ngap_seq_dec(r, 2, &mask, &ext);
	ngap_fixed_octets(r, &s->sst, 1);
	s->has_sd = mask & 1;
	if (s->has_sd)
		ngap_fixed_octets(r, s->sd, 3);
	return ngap_seq_end(r, 2, mask, ext);
}

int ngap_enc_snssai(struct aper_w *w, const struct ngap_snssai *s)
{
	aper_put_seq(w, true, 2, s->has_sd);
	aper_put_octets(w, 1, 1, false, &s->sst, 1);
	if (s->has_sd)
		aper_put_octets(w, 3, 3, false, s->sd, 3);
	return w->err;
}

int ngap_dec_tai(struct aper_r *r, struct ngap_tai *t)
{
	uint32_t mask;
	bool ext;

	ngap_seq_dec(r, 1, &mask, &ext);
	ngap_dec_plmn(r, &t->plmn);
	ngap_fixed_octets(r, t->tac, 3);
	return ngap_seq_end(r, 1, mask, ext);
}

int ngap_enc_tai(struct aper_w *w, const struct ngap_tai *t)
{
	aper_put_seq(w, true, 1, 0);
	ngap_enc_plmn(w, &t->plmn);
	return aper_put_octets(w, 3, 3, false, t->tac, 3);
}

static int dec_guami(struct aper_r *r, struct ngap_guami *g)
{
	uint32_t mask;
	bool ext;
	uint64_t v;

	ngap_seq_dec(r, 1, &mask, &ext);
	ngap_dec_plmn(r, &g->plmn);
	aper_get_bits_fixed(r, 8, false, &v);
	g->region = (uint8_t)v;
	aper_get_bits_fixed(r, 10, false, &v);
	g->set_id = (uint16_t)v;
	aper_get_bits_fixed(r, 6, false, &v);
	g->pointer = (uint8_t)v;
	return ngap_seq_end(r, 1, mask, ext);
}

static int enc_guami(struct aper_w *w, const struct ngap_guami *g)
{
	aper_put_seq(w, true, 1, 0);
	ngap_enc_plmn(w, &g->plmn);
	aper_put_bits_fixed(w, 8, false, g->region);
	aper_put_bits_fixed(w, 10, false, g->set_id);
	return aper_put_bits_fixed(w, 6, false, g->pointer);
}

static int d_guami(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c, (void)cnt;
	return dec_guami(r, f);
}

static int e_guami(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c, (void)cnt;
	return enc_guami(w, f);
}

const struct ngap_codec ngap_c_guami = { d_guami, e_guami, "GUAMI", 0, 0, false, 0, 0 };

/* SliceSupportItem ::= SEQUENCE { s-NSSAI, iE-Extensions OPTIONAL, ... } */
int ngap_dec_slice_item(struct aper_r *r, struct ngap_snssai *s)
{
	uint32_t mask;
	bool ext;

	ngap_seq_dec(r, 1, &mask, &ext);
	ngap_dec_snssai(r, s);
	return ngap_seq_end(r, 1, mask, ext);
}

int ngap_enc_slice_item(struct aper_w *w, const struct ngap_snssai *s)
{
	aper_put_seq(w, true, 1, 0);
	return ngap_enc_snssai(w, s);
}

/* SliceSupportList ::= SEQUENCE (SIZE(1..maxnoofSliceItems)) OF SliceSupportItem {s-NSSAI, iE-Ext} */
static int dec_slices(struct aper_r *r, struct ngap_snssai *s, uint8_t *cnt, int64_t ub, bool item_seq)
{
	uint32_t mask;
	bool ext;

	if (ngap_get_count(r, ub, NGAP_MAX_SLICES, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		ngap_dec_snssai(r, &s[i]);
		ngap_seq_end(r, 1, mask, ext);
	}
	(void)item_seq;
	return r->err;
}

static int enc_slices(struct aper_w *w, const struct ngap_snssai *s, uint8_t cnt, int64_t ub)
{
	ngap_put_count(w, ub, NGAP_MAX_SLICES, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		ngap_enc_snssai(w, &s[i]);
	}
	return w->err;
}

/* 9.3.1.31 AllowedNSSAI: SEQUENCE (SIZE(1..maxnoofAllowedS-NSSAIs = 8)) OF {s-NSSAI, iE-Ext} */
static int d_allowed_nssai(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c;
	return dec_slices(r, f, cnt, 8, true);
}

static int e_allowed_nssai(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c;
	return enc_slices(w, f, *cnt, 8);
}

const struct ngap_codec ngap_c_allowed_nssai = { d_allowed_nssai, e_allowed_nssai, "AllowedNSSAI", 0, 0, false,
						 0, 0 };

/* ---- GlobalRANNodeID 9.3.1.5 ---- */

static int d_global_ran_node_id(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_global_ran_node_id *g = f;
	unsigned idx;
	uint32_t mask;
	bool ext;
	uint8_t b[4];
	size_t n;

	(void)c, (void)cnt;
	memset(g, 0, sizeof(*g));
	if (aper_get_choice(r, 4, false, &idx))
		return r->err;
	if (idx != 0)
		return aper_r_fail(r, -ENOTSUP, "GlobalRANNodeID: only globalGNB-ID is supported");
	ngap_seq_dec(r, 1, &mask, &ext);
	ngap_dec_plmn(r, &g->plmn);
	if (aper_get_choice(r, 2, false, &idx))
		return r->err;
	if (idx != 0)
		return aper_r_fail(r, -ENOTSUP, "GNB-ID choice-Extensions");
	if (aper_get_bitstr(r, 22, 32, false, b, sizeof(b), &n))
		return r->err;
	g->id = ((uint32_t)b[0] << 24 | (uint32_t)b[1] << 16 | (uint32_t)b[2] << 8 | b[3]) >> (32 - n);
	g->id_bits = (uint8_t)n;
	g->kind = NGAP_RAN_GNB;
	return ngap_seq_end(r, 1, mask, ext);
}

static int e_global_ran_node_id(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_global_ran_node_id *g = f;
	uint8_t b[4];
	uint32_t v;

	(void)c, (void)cnt;
	if (g->kind != NGAP_RAN_GNB)
		return aper_w_fail(w, -ENOTSUP, "GlobalRANNodeID: only gNB");
	if (g->id_bits < 22 || g->id_bits > 32 || (g->id_bits < 32 && g->id >> g->id_bits))
		return aper_w_fail(w, -EINVAL, "gNB-ID does not fit its length");
	v = g->id << (32 - g->id_bits);
	b[0] = (uint8_t)(v >> 24), b[1] = (uint8_t)(v >> 16), b[2] = (uint8_t)(v >> 8), b[3] = (uint8_t)v;
	aper_put_choice(w, 4, false, 0);
	aper_put_seq(w, true, 1, 0);
	ngap_enc_plmn(w, &g->plmn);
	aper_put_choice(w, 2, false, 0);
	return aper_put_bitstr(w, 22, 32, false, b, g->id_bits);
}

const struct ngap_codec ngap_c_global_ran_node_id = { d_global_ran_node_id, e_global_ran_node_id,
						      "GlobalRANNodeID", 0, 0, false, 0, 0 };

/* ---- SupportedTAList ---- */

/* SliceSupportList of a SupportedTAList (SIZE(1..maxnoofSliceItems)): the first NGAP_MAX_SLICES into s,
 * the others decoded (so a malformed one still fails) and dropped; *total gets the count on the wire. */
static int dec_slices_all(struct aper_r *r, struct ngap_snssai *s, uint8_t *cnt, uint16_t *total)
{
	struct ngap_snssai drop;
	size_t n;

	*cnt = 0;
	if (aper_get_count(r, 1, NGAP_MAXNOOF_SLICE_ITEMS, &n))
		return r->err;
	for (size_t i = 0; i < n && !r->err; i++)
		ngap_dec_slice_item(r, i < NGAP_MAX_SLICES ? &s[i] : &drop);
	*cnt = (uint8_t)(n < NGAP_MAX_SLICES ? n : NGAP_MAX_SLICES);
	*total = (uint16_t)n;
	return r->err;
}

/* The whole list is decoded (maxnoofTACs 256, maxnoofBPLMNs 12, maxnoofSliceItems 1024); the first
 * NGAP_MAX_TAS TAs and NGAP_MAX_SLICES slices per PLMN land in the arrays, every item stays reachable
 * through the raw value (ngap_ta_iter). Returns the number of TAs. */
static int d_supported_ta_list(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_supported_ta *tas = f, drop;
	uint32_t mask, m2;
	bool ext, e2;
	size_t n;

	(void)c;
	*cnt = 0;
	if (aper_get_count(r, 1, NGAP_MAXNOOF_TACS, &n))
		return r->err;
	for (size_t i = 0; i < n && !r->err; i++) {
		struct ngap_supported_ta *ta = i < NGAP_MAX_TAS ? &tas[i] : &drop;

		ngap_seq_dec(r, 1, &mask, &ext);
		ngap_fixed_octets(r, ta->tac, 3);
		ngap_get_count(r, NGAP_MAXNOOF_BPLMNS, NGAP_MAX_PLMNS, &ta->n_plmns);
		for (unsigned j = 0; j < ta->n_plmns && !r->err; j++) {
			ngap_seq_dec(r, 1, &m2, &e2);
			ngap_dec_plmn(r, &ta->plmns[j].plmn);
			dec_slices_all(r, ta->plmns[j].slices, &ta->plmns[j].n_slices, &ta->plmns[j].total_slices);
			ngap_seq_end(r, 1, m2, e2);
		}
		ngap_seq_end(r, 1, mask, ext);
	}
	if (r->err)
		return r->err;
	*cnt = (uint8_t)(n < NGAP_MAX_TAS ? n : NGAP_MAX_TAS);
	return (int)n;
}

static int e_supported_ta_list(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_supported_ta *ta = f;

	(void)c;
	ngap_put_count(w, 256, NGAP_MAX_TAS, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		aper_put_octets(w, 3, 3, false, ta[i].tac, 3);
		ngap_put_count(w, 12, NGAP_MAX_PLMNS, ta[i].n_plmns);
		for (unsigned j = 0; j < ta[i].n_plmns && !w->err; j++) {
			aper_put_seq(w, true, 1, 0);
			ngap_enc_plmn(w, &ta[i].plmns[j].plmn);
			enc_slices(w, ta[i].plmns[j].slices, ta[i].plmns[j].n_slices, 1024);
		}
	}
	return w->err;
}

const struct ngap_codec ngap_c_supported_ta_list = { d_supported_ta_list, e_supported_ta_list, "SupportedTAList",
						     0, 0, false, 0, 0 };

/* ---- ServedGUAMIList ---- */

static int d_served_guami_list(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_served_guami *g = f;
	uint32_t mask;
	bool ext;
	size_t n;

	(void)c;
	if (ngap_get_count(r, 256, NGAP_MAX_GUAMIS, cnt)) /* maxnoofServedGUAMIs */
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 2, &mask, &ext);
		dec_guami(r, &g[i].guami);
		g[i].backup_amf_name.p = NULL;
		g[i].backup_amf_name.len = 0;
		if (mask & 1) {
			aper_get_string(r, APER_PRINTABLE, 1, NGAP_MAX_NAME, true, &g[i].backup_amf_name.p, &n);
			g[i].backup_amf_name.len = n;
		}
		ngap_seq_end(r, 2, mask, ext);
	}
	return r->err;
}

static int e_served_guami_list(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_served_guami *g = f;

	(void)c;
	ngap_put_count(w, 256, NGAP_MAX_GUAMIS, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		bool backup = g[i].backup_amf_name.len > 0;

		aper_put_seq(w, true, 2, backup);
		enc_guami(w, &g[i].guami);
		if (backup)
			aper_put_string(w, APER_PRINTABLE, 1, NGAP_MAX_NAME, true, g[i].backup_amf_name.p,
					g[i].backup_amf_name.len);
	}
	return w->err;
}

const struct ngap_codec ngap_c_served_guami_list = { d_served_guami_list, e_served_guami_list, "ServedGUAMIList",
						     0, 0, false, 0, 0 };

/* ---- PLMNSupportList ---- */

static int d_plmn_support_list(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_plmn_support *p = f;
	uint32_t mask;
	bool ext;

	(void)c;
	if (ngap_get_count(r, 12, NGAP_MAX_PLMNS, cnt)) /* maxnoofPLMNs */
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		ngap_dec_plmn(r, &p[i].plmn);
		dec_slices(r, p[i].slices, &p[i].n_slices, 1024, true);
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

static int e_plmn_support_list(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_plmn_support *p = f;

	(void)c;
	ngap_put_count(w, 12, NGAP_MAX_PLMNS, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		ngap_enc_plmn(w, &p[i].plmn);
		enc_slices(w, p[i].slices, p[i].n_slices, 1024);
	}
	return w->err;
}

const struct ngap_codec ngap_c_plmn_support_list = { d_plmn_support_list, e_plmn_support_list, "PLMNSupportList",
						     0, 0, false, 0, 0 };

/* ---- Cause 9.3.1.2 ---- */

/* Root sizes of CauseRadioNetwork, CauseTransport, CauseNas, CauseProtocol, CauseMisc. */
static const uint8_t cause_roots[5] = { 45, 2, 4, 7, 6 };

int ngap_dec_cause(struct aper_r *r, struct ngap_cause *c)
{
	unsigned idx, v;

	if (aper_get_choice(r, 6, false, &idx))
		return r->err;
	if (idx >= 5)
		return aper_r_fail(r, -ENOTSUP, "Cause choice-Extensions");
	if (aper_get_enum(r, cause_roots[idx], true, &v))
		return r->err;
	c->group = (uint8_t)idx;
	c->value = (uint8_t)v;
	return 0;
}

int ngap_enc_cause(struct aper_w *w, const struct ngap_cause *c)
{
	if (c->group >= 5)
		return aper_w_fail(w, -EINVAL, "cause group");
	aper_put_choice(w, 6, false, c->group);
	return aper_put_enum(w, cause_roots[c->group], true, c->value);
}

static int d_cause(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c, (void)cnt;
	return ngap_dec_cause(r, f);
}

static int e_cause(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c, (void)cnt;
	return ngap_enc_cause(w, f);
}

const struct ngap_codec ngap_c_cause = { d_cause, e_cause, "Cause", 0, 0, false, 0, 0 };

/* ---- CriticalityDiagnostics 9.3.1.3 ---- */

int ngap_dec_crit_diag(struct aper_r *r, struct ngap_crit_diag *d)
{
	uint32_t mask, m2;
	bool ext, e2;
	int64_t v;
	unsigned e;

	memset(d, 0, sizeof(*d));
	ngap_seq_dec(r, 5, &mask, &ext);
	if ((d->has_proc = mask & 1)) {
		aper_get_cint(r, 0, 255, false, &v);
		d->proc = (uint8_t)v;
	}
	if ((d->has_trigger = mask & 2)) {
		aper_get_enum(r, 3, false, &e);
		d->trigger = (uint8_t)e;
	}
	if ((d->has_proc_crit = mask & 4)) {
		aper_get_enum(r, 3, false, &e);
		d->proc_crit = (uint8_t)e;
	}
	if (mask & 8) {
		ngap_get_count(r, 256, NGAP_MAX_DIAG_IES, &d->n_ies); /* maxnoofErrors */
		for (unsigned i = 0; i < d->n_ies && !r->err; i++) {
			ngap_seq_dec(r, 1, &m2, &e2);
			aper_get_enum(r, 3, false, &e);
			d->ies[i].crit = (uint8_t)e;
			aper_get_cint(r, 0, 65535, false, &v);
			d->ies[i].id = (uint16_t)v;
			aper_get_enum(r, 2, true, &e);
			d->ies[i].type_of_error = (uint8_t)e;
			ngap_seq_end(r, 1, m2, e2);
		}
	}
	return ngap_seq_end(r, 5, mask, ext);
}

int ngap_enc_crit_diag(struct aper_w *w, const struct ngap_crit_diag *d)
{
	uint32_t mask = (d->has_proc ? 1u : 0) | (d->has_trigger ? 2u : 0) | (d->has_proc_crit ? 4u : 0) |
			(d->n_ies ? 8u : 0);

	aper_put_seq(w, true, 5, mask);
	if (d->has_proc)
		aper_put_cint(w, 0, 255, false, d->proc);
	if (d->has_trigger)
		aper_put_enum(w, 3, false, d->trigger);
	if (d->has_proc_crit)
		aper_put_enum(w, 3, false, d->proc_crit);
	if (d->n_ies) {
		ngap_put_count(w, 256, NGAP_MAX_DIAG_IES, d->n_ies);
		for (unsigned i = 0; i < d->n_ies && !w->err; i++) {
			aper_put_seq(w, true, 1, 0);
			aper_put_enum(w, 3, false, d->ies[i].crit);
			aper_put_cint(w, 0, 65535, false, d->ies[i].id);
			aper_put_enum(w, 2, true, d->ies[i].type_of_error);
		}
	}
	return w->err;
}

static int d_crit_diag(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	(void)c, (void)cnt;
	return ngap_dec_crit_diag(r, f);
}

static int e_crit_diag(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	(void)c, (void)cnt;
	return ngap_enc_crit_diag(w, f);
}

const struct ngap_codec ngap_c_crit_diag = { d_crit_diag, e_crit_diag, "CriticalityDiagnostics", 0, 0, false, 0,
					     0 };
