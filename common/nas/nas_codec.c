/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The generic NAS message codec: one walker over the message description
 * tables of nas_tab.c (mandatory IEs in order, then optional IEs by IEI),
 * the security protected header (TS 24.501 9.1.1) and message to_str.
 */
#include "common/nas/nas_int.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

static void *field(struct nas_msg *m, uint16_t off) { return (uint8_t *)m + off; }
static const void *cfield(const struct nas_msg *m, uint16_t off) { return (const uint8_t *)m + off; }

static int is_mandatory(const struct nas_ie_desc *d) { return d->fmt <= NAS_F_LVE; }

/* Decode the value v[0..n) of IE d into m. base = offset of v in the message. */
static int val_dec(const struct nas_ie_desc *d, const uint8_t *v, size_t n, struct nas_msg *m, size_t base,
		   struct nas_err *e, unsigned flags)
{
	void *f = field(m, d->off);
	int r = 0;

	if ((flags & NAS_DEC_LENIENT) && d->fmt != NAS_F_V && d->fmt != NAS_F_TV) {
		/* TS 24.007 11.4.2: a type 4/6 IE longer than its value part needs
		 * is not an error (the extra octets are ignored), and one shorter
		 * than this release defines may be an earlier release's encoding.
		 * Variable-size opaque values are kept whole; fixed-size ones
		 * (RAND, AUTN, RES*, AUTS...) and decoded ones use what they need. */
		if (d->codec == NAS_C_BUF && d->min != d->max) {
			*(struct nas_buf *)f = (struct nas_buf){ v, (uint16_t)n };
			return 0;
		}
		if (n > d->max)
			n = d->max;
	}
	if (n < d->min || n > d->max)
		return nas_fail(e, base, -EBADMSG, "IE length out of range");
	switch (d->codec) {
	case NAS_C_U8: *(uint8_t *)f = v[0]; break;
	case NAS_C_BUF: *(struct nas_buf *)f = (struct nas_buf){ v, (uint16_t)n }; break;
	case NAS_C_MOBID: r = nas_mobile_id_dec(v, n, f, e); break;
	case NAS_C_SNSSAI: r = nas_snssai_dec(v, n, f, e); break;
	case NAS_C_NSSAI: r = nas_nssai_dec(v, n, f, e); break;
	case NAS_C_UESEC: r = nas_ue_sec_cap_dec(v, n, f, e); break;
	case NAS_C_TAIL: r = nas_tai_list_dec(v, n, f, e); break;
	case NAS_C_PSIMAP: r = nas_psi_map_dec(v, n, f, e); break;
	case NAS_C_AMBR: r = nas_ambr_dec(v, n, f, e); break;
	case NAS_C_PDUADDR: r = nas_pdu_address_dec(v, n, f, e); break;
	case NAS_C_NETNAME: r = nas_network_name_dec(v, n, f, e); break;
	default: return nas_fail(e, base, -EINVAL, "IE codec not valid for a full-octet value");
	}
	if (r < 0 && e)
		e->off += base;
	return r;
}

/* Encode the value of IE d from m into out; returns its length. */
static int val_enc(const struct nas_ie_desc *d, const struct nas_msg *m, uint8_t *out, size_t cap)
{
	const void *f = cfield(m, d->off);
	int r;

	switch (d->codec) {
	case NAS_C_U8:
		if (cap < 1)
			return -ENOSPC;
		out[0] = *(const uint8_t *)f;
		r = 1;
		break;
	case NAS_C_BUF: {
		const struct nas_buf *b = f;
		if (b->len && !b->p)
			return -EINVAL;
		if (cap < b->len)
			return -ENOSPC;
		if (b->len)
			memcpy(out, b->p, b->len);
		r = b->len;
		break;
	}
	case NAS_C_MOBID: r = nas_mobile_id_enc(f, out, cap); break;
	case NAS_C_SNSSAI: r = nas_snssai_enc(f, out, cap); break;
	case NAS_C_NSSAI: r = nas_nssai_enc(f, out, cap); break;
	case NAS_C_UESEC: r = nas_ue_sec_cap_enc(f, out, cap); break;
	case NAS_C_TAIL: r = nas_tai_list_enc(f, out, cap); break;
	case NAS_C_PSIMAP: r = nas_psi_map_enc(*(const uint16_t *)f, out, cap); break;
	case NAS_C_AMBR: r = nas_ambr_enc(f, out, cap); break;
	case NAS_C_PDUADDR: r = nas_pdu_address_enc(f, out, cap); break;
	case NAS_C_NETNAME: r = nas_network_name_enc(f, out, cap); break;
	default: return -EINVAL;
	}
	if (r >= 0 && ((size_t)r < d->min || (size_t)r > d->max))
		return -EINVAL;         /* e.g. a buffer longer than the IE allows */
	return r;
}

int nas_peek(const uint8_t *buf, size_t len, uint8_t *epd, uint8_t *sht)
{
	if (len < 1)
		return -EBADMSG;
	*epd = buf[0];
	*sht = 0;
	if (buf[0] == NAS_EPD_5GMM) {
		if (len < 2)
			return -EBADMSG;
		*sht = buf[1] & 0xf;
		return 0;
	}
	return buf[0] == NAS_EPD_5GSM ? 0 : -ENOMSG;
}

/* Length in octets of the IE starting at buf[off] with format fmt (value
 * offset in *voff, value length in *vlen); -EBADMSG if it runs past len. */
static int tlv_span(const uint8_t *buf, size_t len, size_t off, unsigned fmt, size_t fixed, size_t *voff,
		    size_t *vlen)
{
	switch (fmt) {
	case NAS_F_TV1: *voff = off; *vlen = 0; return 1;
	case NAS_F_TV: *voff = off + 1; *vlen = fixed; break;
	case NAS_F_TLV:
		if (off + 2 > len)
			return -EBADMSG;
		*voff = off + 2;
		*vlen = buf[off + 1];
		break;
	default: /* TLV-E */
		if (off + 3 > len)
			return -EBADMSG;
		*voff = off + 3;
		*vlen = (size_t)buf[off + 1] << 8 | buf[off + 2];
		break;
	}
	if (*voff + *vlen > len)
		return -EBADMSG;
	return (int)(*voff + *vlen - off);
}

static int dec_mandatory(const struct nas_msg_desc *md, const uint8_t *buf, size_t len, size_t *poff,
			 struct nas_msg *m, struct nas_err *e, unsigned flags)
{
	size_t off = *poff;
	long half = -1;         /* offset of a half-used octet */
	unsigned i;

	for (i = 0; i < md->n_ies && is_mandatory(&md->ies[i]); i++) {
		const struct nas_ie_desc *d = &md->ies[i];
		size_t voff, vlen;
		int r;

		if (e)
			e->ie = d->name;
		switch (d->fmt) {
		case NAS_F_V4:
			if (half < 0) {
				if (off >= len)
					return nas_fail(e, off, -EBADMSG, "truncated: mandatory IE missing");
				half = (long)off++;
				if (d->codec == NAS_C_U4)
					*(uint8_t *)field(m, d->off) = buf[half] & 0xf;
			} else {
				if (d->codec == NAS_C_U4)
					*(uint8_t *)field(m, d->off) = buf[half] >> 4;
				half = -1;
			}
			continue;
		case NAS_F_V: voff = off; vlen = d->min; break;
		case NAS_F_LV:
			if (off >= len)
				return nas_fail(e, off, -EBADMSG, "truncated: mandatory IE missing");
			voff = off + 1;
			vlen = buf[off];
			break;
		default: /* LV-E */
			if (off + 2 > len)
				return nas_fail(e, off, -EBADMSG, "truncated: mandatory IE missing");
			voff = off + 2;
			vlen = (size_t)buf[off] << 8 | buf[off + 1];
			break;
		}
		if (voff + vlen > len)
			return nas_fail(e, off, -EBADMSG, "truncated: IE runs past the end of the message");
		r = val_dec(d, buf + voff, vlen, m, voff, e, flags);
		if (r < 0)
			return r;
		off = voff + vlen;
	}
	*poff = off;
	return 0;
}

int nas_decode(const uint8_t *buf, size_t len, struct nas_msg *m, struct nas_err *e)
{
	return nas_decode_ex(buf, len, m, e, 0);
}

/* The plain header (TS 24.501 9.1.1): EPD, then the 5GMM security header
 * type (a protected message is refused here) or the 5GSM PDU session and
 * procedure transaction identities, then the message type; *off past it. */
static int dec_header(const uint8_t *buf, size_t len, struct nas_msg *m, struct nas_err *e, size_t *off)
{
	if (len > NAS_MSG_MAX_LEN)
		return nas_fail(e, NAS_MSG_MAX_LEN, -EBADMSG, "message longer than NAS_MSG_MAX_LEN");
	if (len < 1)
		return nas_fail(e, 0, -EBADMSG, "truncated: empty message");
	m->epd = buf[0];
	if (m->epd == NAS_EPD_5GMM) {
		if (len < 3)
			return nas_fail(e, len, -EBADMSG, "truncated: 5GMM header");
		if (buf[1] & 0xf)
			return nas_fail(e, 1, -EPROTO, "security protected message: use nas_sec_decode");
		m->type = buf[2];
		*off = 3;
	} else if (m->epd == NAS_EPD_5GSM) {
		if (len < 4)
			return nas_fail(e, len, -EBADMSG, "truncated: 5GSM header");
		m->psi = buf[1];
		m->pti = buf[2];
		m->type = buf[3];
		*off = 4;
	} else {
		return nas_fail(e, 0, -ENOMSG, "unknown extended protocol discriminator");
	}
	return 0;
}

/* The optional IEs from off to the end, in any order (TS 24.501 7.6):
 * unknown ones skipped by their IEI's format, a repeated one ignored, a bad
 * one ignored under NAS_DEC_LENIENT (the first kept in *e). */
static int dec_optional(const struct nas_msg_desc *md, const uint8_t *buf, size_t len, size_t off,
			struct nas_msg *m, struct nas_err *e, unsigned flags)
{
	struct nas_err first_bad = { 0 };
	int r;

	while (off < len) {
		uint8_t t = buf[off];
		const struct nas_ie_desc *d = nas_ie_lookup(md, t);
		size_t voff, vlen;
		unsigned fmt;

		if (e)
			e->ie = d ? d->name : NULL;
		if (d) {
			fmt = d->fmt;
		} else if (t & 0x80) {
			fmt = NAS_F_TV1;        /* unknown type 1 or 2 IE: one octet */
		} else if ((t >> 4) == 0) {
			/* TS 24.007 11.2.4: IEI 0000xxxx = comprehension required */
			return nas_fail(e, off, -EPROTO, "unknown comprehension-required IE");
		} else {
			/* TS 24.501 9.2 / 24.007 11.2.4: IEI 0111xxxx = TLV-E, else TLV */
			fmt = (t >> 4) == 7 ? NAS_F_TLVE : NAS_F_TLV;
		}
		r = tlv_span(buf, len, off, fmt, d ? d->min : 0, &voff, &vlen);
		if (r < 0)
			return nas_fail(e, off, -EBADMSG, "truncated: optional IE runs past the end of the message");
		if (d && !*(bool *)field(m, (uint16_t)d->has)) {        /* 7.6.3: first occurrence wins */
			int rr = 0;
			if (fmt == NAS_F_TV1)
				*(uint8_t *)field(m, d->off) = t & 0xf;
			else
				rr = val_dec(d, buf + voff, vlen, m, voff, e, flags);
			if (rr < 0 && !(flags & NAS_DEC_LENIENT))
				return rr;
			if (rr < 0) {
				/* TS 24.501 7.5: a syntactically incorrect optional IE
				 * is treated as not present; the first one stays in *e */
				if (e && ++e->ignored == 1)
					first_bad = *e;
			} else {
				*(bool *)field(m, (uint16_t)d->has) = true;
			}
		}
		off += (size_t)r;
	}
	if (e) {
		unsigned ignored = e->ignored;
		*e = ignored ? first_bad : (struct nas_err){ 0 };
		e->ignored = ignored;
	}
	return 0;
}

int nas_decode_ex(const uint8_t *buf, size_t len, struct nas_msg *m, struct nas_err *e, unsigned flags)
{
	const struct nas_msg_desc *md;
	size_t off;
	int r;

	/* only the header here; the message's own part is zeroed once its type is known */
	memset(m, 0, offsetof(struct nas_msg, reg_req));
	if (e)
		*e = (struct nas_err){ 0 };
	r = dec_header(buf, len, m, e, &off);
	if (r < 0)
		return r;
	md = nas_msg_desc_get(m->type);
	if (!md || md->epd != m->epd)
		return nas_fail(e, off - 1, -ENOMSG, "unknown message type");
	memset((uint8_t *)m + offsetof(struct nas_msg, reg_req), 0, md->clear - offsetof(struct nas_msg, reg_req));
	r = dec_mandatory(md, buf, len, &off, m, e, flags);
	if (r < 0)
		return r;
	return dec_optional(md, buf, len, off, m, e, flags);
}

static int enc_lenval(const struct nas_ie_desc *d, const struct nas_msg *m, uint8_t *out, size_t cap, size_t hdr)
{
	int r;

	if (cap < hdr)
		return -ENOSPC;
	r = val_enc(d, m, out + hdr, cap - hdr);
	if (r < 0)
		return r;
	if (hdr && (d->fmt == NAS_F_LV || d->fmt == NAS_F_TLV)) {
		out[hdr - 1] = (uint8_t)r;
	} else if (d->fmt == NAS_F_LVE || d->fmt == NAS_F_TLVE) {
		out[hdr - 2] = (uint8_t)(r >> 8);
		out[hdr - 1] = (uint8_t)r;
	}
	return (int)hdr + r;
}

int nas_encode(const struct nas_msg *m, uint8_t *out, size_t cap, struct nas_err *e)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(m->type);
	size_t off;
	long half = -1;

	if (e)
		*e = (struct nas_err){ 0 };
	if (!md)
		return nas_fail(e, 0, -ENOMSG, "unknown message type");
	if (md->epd == NAS_EPD_5GMM) {
		if (cap < 3)
			return -ENOSPC;
		out[0] = NAS_EPD_5GMM;
		out[1] = NAS_SHT_PLAIN;
		out[2] = m->type;
		off = 3;
	} else {
		if (cap < 4)
			return -ENOSPC;
		out[0] = NAS_EPD_5GSM;
		out[1] = m->psi;
		out[2] = m->pti;
		out[3] = m->type;
		off = 4;
	}
	for (unsigned i = 0; i < md->n_ies; i++) {
		const struct nas_ie_desc *d = &md->ies[i];
		int r;

		if (d->fmt == NAS_F_V4) {
			uint8_t v4 = d->codec == NAS_C_U4 ? *(const uint8_t *)cfield(m, d->off) & 0xf : 0;
			if (half < 0) {
				if (off >= cap)
					return nas_fail(e, off, -ENOSPC, "output buffer too small");
				half = (long)off;
				out[off++] = v4;
			} else {
				out[half] |= (uint8_t)(v4 << 4);
				half = -1;
			}
			continue;
		}
		if (!is_mandatory(d) && !*(const bool *)cfield(m, (uint16_t)d->has))
			continue;
		switch (d->fmt) {
		case NAS_F_V: r = enc_lenval(d, m, out + off, cap - off, 0); break;
		case NAS_F_LV: r = enc_lenval(d, m, out + off, cap - off, 1); break;
		case NAS_F_LVE: r = enc_lenval(d, m, out + off, cap - off, 2); break;
		case NAS_F_TV1:
			if (off >= cap)
				return -ENOSPC;
			out[off] = (uint8_t)(d->iei << 4 | (*(const uint8_t *)cfield(m, d->off) & 0xf));
			r = 1;
			break;
		default:
			if (off >= cap)
				return -ENOSPC;
			out[off] = d->iei;
			r = enc_lenval(d, m, out + off + 1, cap - off - 1,
				       d->fmt == NAS_F_TV ? 0 : d->fmt == NAS_F_TLV ? 1 : 2);
			if (r >= 0)
				r++;
			break;
		}
		if (r < 0) {
			if (e)
				e->ie = d->name;
			return nas_fail(e, off, r, r == -ENOSPC ? "output buffer too small" : "IE value cannot be encoded");
		}
		off += (size_t)r;
	}
	return (int)off;
}

/* ---- security protected header, TS 24.501 9.1.1 ---- */

int nas_sec_decode(const uint8_t *buf, size_t len, struct nas_sec_hdr *h, struct nas_err *e)
{
	memset(h, 0, sizeof(*h));
	if (e)
		*e = (struct nas_err){ .ie = "security protected header" };
	if (len < 1)
		return nas_fail(e, 0, -EBADMSG, "truncated: empty message");
	if (buf[0] != NAS_EPD_5GMM)
		return nas_fail(e, 0, -ENOMSG, "security protected message must be 5GMM");
	if (len < 2)
		return nas_fail(e, 1, -EBADMSG, "truncated: security header type");
	h->sht = buf[1] & 0xf;
	if (h->sht == NAS_SHT_PLAIN)
		return nas_fail(e, 1, -EPROTO, "plain message: use nas_decode");
	if (h->sht > NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX)
		return nas_fail(e, 1, -ERANGE, "reserved security header type");
	if (len <= NAS_SEC_HDR_LEN)
		return nas_fail(e, len, -EBADMSG, "truncated: security protected header or empty inner message");
	if (len > NAS_MSG_MAX_LEN)
		return nas_fail(e, NAS_MSG_MAX_LEN, -EBADMSG, "message longer than NAS_MSG_MAX_LEN");
	h->mac = (uint32_t)buf[2] << 24 | (uint32_t)buf[3] << 16 | (uint32_t)buf[4] << 8 | buf[5];
	h->sqn = buf[6];
	h->mac_input = (struct nas_buf){ buf + NAS_SEC_MAC_OFF, (uint16_t)(len - NAS_SEC_MAC_OFF) };
	h->msg = (struct nas_buf){ buf + NAS_SEC_HDR_LEN, (uint16_t)(len - NAS_SEC_HDR_LEN) };
	if (e)
		e->ie = NULL;
	return 0;
}

int nas_sec_hdr_enc(uint8_t *out, size_t cap, uint8_t sht, uint32_t mac, uint8_t sqn)
{
	if (sht < NAS_SHT_INTEGRITY || sht > NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX)
		return -EINVAL;
	if (cap < NAS_SEC_HDR_LEN)
		return -ENOSPC;
	out[0] = NAS_EPD_5GMM;
	out[1] = sht;
	out[2] = (uint8_t)(mac >> 24);
	out[3] = (uint8_t)(mac >> 16);
	out[4] = (uint8_t)(mac >> 8);
	out[5] = (uint8_t)mac;
	out[6] = sqn;
	return NAS_SEC_HDR_LEN;
}

/* ---- to_str ---- */

static void msg_str(const struct nas_msg *m, const struct nas_msg_desc *md, char *buf, size_t sz, int *pos,
		    int depth);

static void val_str(const struct nas_ie_desc *d, const struct nas_msg *m, char *buf, size_t sz, int *pos, int depth)
{
	const void *f = cfield(m, d->off);
	char tmp[512];

	tmp[0] = 0;
	switch (d->codec) {
	case NAS_C_U4:
		nas_sappend(buf, sz, pos, "%u", *(const uint8_t *)f);
		return;
	case NAS_C_U8: {
		uint8_t v = *(const uint8_t *)f;
		switch (d->str) {
		case NAS_S_MMCAUSE: nas_sappend(buf, sz, pos, "%u(%s)", v, nas_5gmm_cause_name(v)); return;
		case NAS_S_SMCAUSE: nas_sappend(buf, sz, pos, "%u(%s)", v, nas_5gsm_cause_name(v)); return;
		case NAS_S_TIMER2:
		case NAS_S_TIMER3: {
			uint32_t s = d->str == NAS_S_TIMER2 ? nas_gprs_timer2_secs(v) : nas_gprs_timer3_secs(v);
			if (s == UINT32_MAX)
				nas_sappend(buf, sz, pos, "deactivated");
			else
				nas_sappend(buf, sz, pos, "%us", s);
			return;
		}
		case NAS_S_DEC: nas_sappend(buf, sz, pos, "%u", v); return;
		case NAS_S_TZ: {
			int tz = nas_time_zone_minutes(v);
			nas_sappend(buf, sz, pos, "UTC%c%02d:%02d", tz < 0 ? '-' : '+', (tz < 0 ? -tz : tz) / 60,
				    (tz < 0 ? -tz : tz) % 60);
			return;
		}
		default: nas_sappend(buf, sz, pos, "0x%02x", v); return;
		}
	}
	case NAS_C_BUF: {
		const struct nas_buf *b = f;
		if (d->str == NAS_S_SECRET) {
			nas_sappend(buf, sz, pos, "<redacted %u octets>", b->len);
		} else if (d->str == NAS_S_DNN && nas_dnn_to_str(b, tmp, sizeof(tmp)) >= 0) {
			nas_sappend(buf, sz, pos, "%s", tmp);
		} else if (d->str == NAS_S_NESTED) {
			/* one level of nesting: N1 SM in UL/DL NAS transport, the NAS message container */
			struct nas_msg in;
			if (depth == 0 && nas_decode(b->p, b->len, &in, NULL) == 0) {
				nas_sappend(buf, sz, pos, "{");
				msg_str(&in, nas_msg_desc_get(in.type), buf, sz, pos, depth + 1);
				nas_sappend(buf, sz, pos, "}");
			} else {
				nas_sappend(buf, sz, pos, "<%u octets>", b->len);
			}
		} else {
			nas_shex(buf, sz, pos, b->p, b->len);
		}
		return;
	}
	case NAS_C_MOBID: nas_mobile_id_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_SNSSAI: nas_snssai_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_NSSAI: nas_nssai_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_UESEC: nas_ue_sec_cap_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_TAIL: nas_tai_list_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_PSIMAP: nas_psi_map_to_str(*(const uint16_t *)f, tmp, sizeof(tmp)); break;
	case NAS_C_AMBR: nas_ambr_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_PDUADDR: nas_pdu_address_to_str(f, tmp, sizeof(tmp)); break;
	case NAS_C_NETNAME: nas_network_name_to_str(f, tmp, sizeof(tmp)); break;
	default: break;
	}
	nas_sappend(buf, sz, pos, "%s", tmp);
}

static void msg_str(const struct nas_msg *m, const struct nas_msg_desc *md, char *buf, size_t sz, int *pos,
		    int depth)
{
	nas_sappend(buf, sz, pos, "%s", md->name);
	if (md->epd == NAS_EPD_5GSM)
		nas_sappend(buf, sz, pos, " psi=%u pti=%u", m->psi, m->pti);
	for (unsigned i = 0; i < md->n_ies; i++) {
		const struct nas_ie_desc *d = &md->ies[i];
		if (d->codec == NAS_C_SPARE4)
			continue;
		if (!is_mandatory(d) && !*(const bool *)cfield(m, (uint16_t)d->has))
			continue;
		nas_sappend(buf, sz, pos, " %s=", d->name);
		val_str(d, m, buf, sz, pos, depth);
	}
}

int nas_msg_to_str(const struct nas_msg *m, char *buf, size_t sz)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(m->type);
	int pos = 0;

	if (sz)
		buf[0] = 0;
	if (!md)
		return -ENOMSG;
	msg_str(m, md, buf, sz, &pos, 0);
	return pos;
}

const char *nas_msg_name(uint8_t type)
{
	const struct nas_msg_desc *md = nas_msg_desc_get(type);
	return md ? md->name : "unknown message type";
}
