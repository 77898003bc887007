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
		aper_get_open(r, &sub);
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

static int fixed_octets(struct aper_r *r, uint8_t *out, size_t n)
{
	size_t got;

	return aper_get_octets_copy(r, (int64_t)n, (int64_t)n, false, out, n, &got);
}

static int get_count(struct aper_r *r, int64_t ub, size_t limit, uint8_t *cnt)
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

static int put_count(struct aper_w *w, int64_t ub, size_t limit, size_t n)
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
	return fixed_octets(r, p->v, 3); /* 9.3.3.5 OCTET STRING (SIZE(3)) */
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
	fixed_octets(r, &s->sst, 1);
	s->has_sd = mask & 1;
	if (s->has_sd)
		fixed_octets(r, s->sd, 3);
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

static int dec_tai(struct aper_r *r, struct ngap_tai *t)
{
	uint32_t mask;
	bool ext;

	ngap_seq_dec(r, 1, &mask, &ext);
	ngap_dec_plmn(r, &t->plmn);
	fixed_octets(r, t->tac, 3);
	return ngap_seq_end(r, 1, mask, ext);
}

static int enc_tai(struct aper_w *w, const struct ngap_tai *t)
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

/* SliceSupportList ::= SEQUENCE (SIZE(1..maxnoofSliceItems)) OF SliceSupportItem {s-NSSAI, iE-Ext} */
static int dec_slices(struct aper_r *r, struct ngap_snssai *s, uint8_t *cnt, int64_t ub, bool item_seq)
{
	uint32_t mask;
	bool ext;

	if (get_count(r, ub, NGAP_MAX_SLICES, cnt))
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
	put_count(w, ub, NGAP_MAX_SLICES, cnt);
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

/* ---- SupportedTAList 9.3.3.? (SupportedTAItem, BroadcastPLMNItem) ---- */

static int d_supported_ta_list(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_supported_ta *ta = f;
	uint32_t mask, m2;
	bool ext, e2;

	(void)c;
	if (get_count(r, 256, NGAP_MAX_TAS, cnt)) /* maxnoofTACs */
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		fixed_octets(r, ta[i].tac, 3);
		get_count(r, 12, NGAP_MAX_PLMNS, &ta[i].n_plmns); /* maxnoofBPLMNs */
		for (unsigned j = 0; j < ta[i].n_plmns && !r->err; j++) {
			ngap_seq_dec(r, 1, &m2, &e2);
			ngap_dec_plmn(r, &ta[i].plmns[j].plmn);
			dec_slices(r, ta[i].plmns[j].slices, &ta[i].plmns[j].n_slices, 1024, true);
			ngap_seq_end(r, 1, m2, e2);
		}
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

static int e_supported_ta_list(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_supported_ta *ta = f;

	(void)c;
	put_count(w, 256, NGAP_MAX_TAS, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		aper_put_octets(w, 3, 3, false, ta[i].tac, 3);
		put_count(w, 12, NGAP_MAX_PLMNS, ta[i].n_plmns);
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

/* ---- ServedGUAMIList 9.3.3.? ---- */

static int d_served_guami_list(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	struct ngap_served_guami *g = f;
	uint32_t mask;
	bool ext;
	size_t n;

	(void)c;
	if (get_count(r, 256, NGAP_MAX_GUAMIS, cnt)) /* maxnoofServedGUAMIs */
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
	put_count(w, 256, NGAP_MAX_GUAMIS, *cnt);
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
	if (get_count(r, 12, NGAP_MAX_PLMNS, cnt)) /* maxnoofPLMNs */
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
	put_count(w, 12, NGAP_MAX_PLMNS, *cnt);
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
		get_count(r, 256, NGAP_MAX_DIAG_IES, &d->n_ies); /* maxnoofErrors */
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
		put_count(w, 256, NGAP_MAX_DIAG_IES, d->n_ies);
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
	dec_tai(r, &u->tai);
	if ((u->has_time_stamp = mask & 1))
		fixed_octets(r, u->time_stamp, 4);
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
	enc_tai(w, &u->tai);
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
	fixed_octets(r, t->tmsi, 4);
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
	if (get_count(r, 16, NGAP_MAX_TAI_PAGING, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		ngap_seq_dec(r, 1, &mask, &ext);
		dec_tai(r, &t[i]);
		ngap_seq_end(r, 1, mask, ext);
	}
	return r->err;
}

static int e_tai_paging(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_tai *t = f;

	(void)c;
	put_count(w, 16, NGAP_MAX_TAI_PAGING, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		enc_tai(w, &t[i]);
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

/* ---- PDU session lists 9.3.1.? (one item struct, three shapes) ---- */

enum sess_shape { SESS_NAS_SNSSAI, SESS_NAS, SESS_XFER };

static int dec_sess_list(struct aper_r *r, struct ngap_pdu_sess_item *it, uint8_t *cnt, enum sess_shape shape)
{
	unsigned nopt = shape == SESS_XFER ? 1 : 2;
	uint32_t mask;
	bool ext;
	int64_t v;
	size_t n;

	if (get_count(r, 256, NGAP_MAX_PDU_SESSIONS, cnt)) /* maxnoofPDUSessions */
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		memset(&it[i], 0, sizeof(it[i]));
		ngap_seq_dec(r, nopt, &mask, &ext);
		aper_get_cint(r, 0, 255, false, &v);
		it[i].id = (uint8_t)v;
		if (shape != SESS_XFER && (mask & 1)) {
			aper_get_octets(r, 0, APER_UNBOUNDED, false, &it[i].nas.p, &n);
			it[i].nas.len = n;
		}
		if (shape == SESS_NAS_SNSSAI) {
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
	put_count(w, 256, NGAP_MAX_PDU_SESSIONS, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		bool nas = shape != SESS_XFER && it[i].nas.p;

		aper_put_seq(w, true, shape == SESS_XFER ? 1 : 2, nas);
		aper_put_cint(w, 0, 255, false, it[i].id);
		if (nas)
			aper_put_octets(w, 0, APER_UNBOUNDED, false, it[i].nas.p, it[i].nas.len);
		if (shape == SESS_NAS_SNSSAI)
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

/* PDUSessionResourceListCxtRelReq / CxtRelCpl: SEQUENCE OF {pDUSessionID, iE-Ext} */
static int d_sess_ids(const struct ngap_codec *c, struct aper_r *r, void *f, uint8_t *cnt)
{
	uint8_t *ids = f;
	uint32_t mask;
	bool ext;
	int64_t v;

	(void)c;
	if (get_count(r, 256, NGAP_MAX_PDU_SESSIONS, cnt))
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
	put_count(w, 256, NGAP_MAX_PDU_SESSIONS, *cnt);
	for (unsigned i = 0; i < *cnt && !w->err; i++) {
		aper_put_seq(w, true, 1, 0);
		aper_put_cint(w, 0, 255, false, ids[i]);
	}
	return w->err;
}

const struct ngap_codec ngap_c_sess_ids = { d_sess_ids, e_sess_ids, "PDUSessionResourceList(id)", 0, 0, false, 0,
					    0 };

/* ---- UE-NGAP-IDs 9.3.3.? (UE Context Release Command); field = the message struct ---- */

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

/* ---- UE-associatedLogicalNG-connectionList, ResetType 9.3.1.? ---- */

static int dec_ue_assoc(struct aper_r *r, struct ngap_ue_assoc *u, uint8_t *cnt)
{
	uint32_t mask;
	bool ext;
	int64_t v;

	/* SIZE(1..maxnoofNGConnectionsToReset = 65536): ub is not < 64K, so the unbounded form (X.691 11.9.4.2) */
	if (get_count(r, 65536, NGAP_MAX_UE_ASSOC, cnt))
		return r->err;
	for (unsigned i = 0; i < *cnt && !r->err; i++) {
		memset(&u[i], 0, sizeof(u[i]));
		ngap_seq_dec(r, 3, &mask, &ext);
		if ((u[i].has_amf_ue_id = mask & 1)) {
			aper_get_cint(r, 0, 1099511627775LL, false, &v);
			u[i].amf_ue_id = (uint64_t)v;
		}
		if ((u[i].has_ran_ue_id = mask & 2)) {
			aper_get_cint(r, 0, 4294967295LL, false, &v);
			u[i].ran_ue_id = (uint32_t)v;
		}
		ngap_seq_end(r, 3, mask, ext);
	}
	return r->err;
}

static int enc_ue_assoc(struct aper_w *w, const struct ngap_ue_assoc *u, uint8_t cnt)
{
	put_count(w, 65536, NGAP_MAX_UE_ASSOC, cnt);
	for (unsigned i = 0; i < cnt && !w->err; i++) {
		aper_put_seq(w, true, 3, (u[i].has_amf_ue_id ? 1u : 0) | (u[i].has_ran_ue_id ? 2u : 0));
		if (u[i].has_amf_ue_id)
			aper_put_cint(w, 0, 1099511627775LL, false, (int64_t)u[i].amf_ue_id);
		if (u[i].has_ran_ue_id)
			aper_put_cint(w, 0, 4294967295LL, false, u[i].ran_ue_id);
	}
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

	(void)c, (void)cnt;
	if (aper_get_choice(r, 3, false, &idx))
		return r->err;
	if (idx == 2)
		return aper_r_fail(r, -ENOTSUP, "ResetType choice-Extensions");
	m->reset_all = idx == 0;
	m->n_ues = 0;
	if (idx == 0)
		return aper_get_enum(r, 1, true, &e); /* ResetAll ::= ENUMERATED {reset-all, ...} */
	return dec_ue_assoc(r, m->ues, &m->n_ues);
}

static int e_reset_type(const struct ngap_codec *c, struct aper_w *w, const void *f, const uint8_t *cnt)
{
	const struct ngap_ng_reset *m = f;

	(void)c, (void)cnt;
	aper_put_choice(w, 3, false, m->reset_all ? 0 : 1);
	if (m->reset_all)
		return aper_put_enum(w, 1, true, 0);
	return enc_ue_assoc(w, m->ues, m->n_ues);
}

const struct ngap_codec ngap_c_reset_type = { d_reset_type, e_reset_type, "ResetType", 0, 0, false, 0, 0 };
