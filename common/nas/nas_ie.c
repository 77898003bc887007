/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * 5GMM information elements (TS 24.501 9.11.2, 9.11.3): value codecs and
 * to_str. Values only: the IEI and length octets are the framing's job
 * (nas_codec.c). Decoders never read outside [v, v + n).
 */
#include "common/nas/nas_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

int nas_sappend(char *buf, size_t sz, int *pos, const char *fmt, ...)
{
	va_list ap;
	size_t room = (size_t)*pos < sz ? sz - (size_t)*pos : 0;
	int r;

	va_start(ap, fmt);
	r = vsnprintf(room ? buf + *pos : NULL, room, fmt, ap);
	va_end(ap);
	if (r > 0)
		*pos += r;
	return r;
}

void nas_shex(char *buf, size_t sz, int *pos, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		nas_sappend(buf, sz, pos, "%02x", p[i]);
}

/* ---- PLMN (TS 24.008 10.5.1.13 / TS 24.501 9.11.3.4 octets 5-7) ---- */

int nas_plmn_dec(const uint8_t v[3], struct nas_plmn *p)
{
	uint8_t d[6] = { v[0] & 0xf, v[0] >> 4, v[1] & 0xf, v[2] & 0xf, v[2] >> 4, v[1] >> 4 };

	for (int i = 0; i < 5; i++)
		if (d[i] > 9)
			return -ERANGE;
	if (d[5] != 0xf && d[5] > 9)
		return -ERANGE;
	p->mcc = (uint16_t)(d[0] * 100 + d[1] * 10 + d[2]);
	p->mnc3 = d[5] != 0xf;
	p->mnc = p->mnc3 ? (uint16_t)(d[3] * 100 + d[4] * 10 + d[5]) : (uint16_t)(d[3] * 10 + d[4]);
	return 0;
}

void nas_plmn_enc(const struct nas_plmn *p, uint8_t out[3])
{
	unsigned mcc = p->mcc % 1000, mnc = p->mnc % 1000;
	unsigned m1 = mcc / 100, m2 = mcc / 10 % 10, m3 = mcc % 10;
	unsigned n1, n2, n3;

	if (p->mnc3) {
		n1 = mnc / 100; n2 = mnc / 10 % 10; n3 = mnc % 10;
	} else {
		n1 = mnc / 10 % 10; n2 = mnc % 10; n3 = 0xf;
	}
	out[0] = (uint8_t)(m2 << 4 | m1);
	out[1] = (uint8_t)(n3 << 4 | m3);
	out[2] = (uint8_t)(n2 << 4 | n1);
}

int nas_plmn_to_str(const struct nas_plmn *p, char *buf, size_t sz)
{
	return snprintf(buf, sz, p->mnc3 ? "%03u-%03u" : "%03u-%02u", p->mcc, p->mnc);
}

/* ---- 9.11.3.4 5GS mobile identity ---- */

static uint32_t be32(const uint8_t *p) { return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]; }
static void put_be32(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }

static int suci_dec(const uint8_t *v, size_t n, struct nas_suci *s, struct nas_err *e)
{
	s->supi_format = (v[0] >> 4) & 7;
	if (s->supi_format == 1) {              /* network specific identifier: NAI octets */
		if (n < 2)
			return nas_fail(e, 0, -EBADMSG, "SUCI: empty NAI");
		s->nai = (struct nas_buf){ v + 1, (uint16_t)(n - 1) };
		return 0;
	}
	if (s->supi_format != 0)
		return nas_fail(e, 0, -ERANGE, "SUCI: reserved SUPI format");
	if (n < 9)
		return nas_fail(e, 0, -EBADMSG, "SUCI: truncated");
	if (nas_plmn_dec(v + 1, &s->plmn) < 0)
		return nas_fail(e, 1, -ERANGE, "SUCI: PLMN digit not BCD");
	s->rid[0] = v[4] & 0xf; s->rid[1] = v[4] >> 4; s->rid[2] = v[5] & 0xf; s->rid[3] = v[5] >> 4;
	s->scheme = v[6] & 0xf;
	s->hn_key_id = v[7];
	s->output = (struct nas_buf){ v + 8, (uint16_t)(n - 8) };
	/* TS 33.501 C.3.4: ECIES output = eph public key | ciphertext | 8-octet MAC */
	if (s->scheme == NAS_SUCI_PROFILE_A && n - 8 <= NAS_SUCI_PROFILE_A_EPH_LEN + NAS_SUCI_MAC_LEN)
		return nas_fail(e, 8, -EBADMSG, "SUCI: profile A scheme output too short");
	if (s->scheme == NAS_SUCI_PROFILE_B && n - 8 <= NAS_SUCI_PROFILE_B_EPH_LEN + NAS_SUCI_MAC_LEN)
		return nas_fail(e, 8, -EBADMSG, "SUCI: profile B scheme output too short");
	return 0;
}

static int digits_dec(const uint8_t *v, size_t n, struct nas_mobile_id *id, struct nas_err *e)
{
	unsigned odd = (v[0] >> 3) & 1, k = 0;
	size_t total = 1 + 2 * (n - 1) - (odd ? 0 : 1);

	if (total < 1 || total > NAS_MOBID_DIGITS_MAX)
		return nas_fail(e, 0, -EBADMSG, "IMEI/IMEISV: no digits or too many digits");
	for (size_t i = 0; i < 2 * n - 1 && k < total; i++) {
		/* digit 1 is in bits 8-5 of the first octet, then low nibble first */
		uint8_t d = (i == 0) ? v[0] >> 4 : ((i - 1) % 2 == 0 ? v[1 + (i - 1) / 2] & 0xf : v[1 + (i - 1) / 2] >> 4);
		if (d > 9)
			return nas_fail(e, i == 0 ? 0 : 1 + (i - 1) / 2, -ERANGE, "IMEI/IMEISV: digit not BCD");
		id->digits.d[k++] = (char)('0' + d);
	}
	if (!odd && (v[n - 1] >> 4) != 0xf)
		return nas_fail(e, n - 1, -EBADMSG, "IMEI/IMEISV: even number of digits without filler");
	id->digits.n = (uint8_t)k;
	id->digits.d[k] = 0;
	return 0;
}

int nas_mobile_id_dec(const uint8_t *v, size_t n, struct nas_mobile_id *id, struct nas_err *e)
{
	memset(id, 0, sizeof(*id));
	if (n < 1)
		return nas_fail(e, 0, -EBADMSG, "mobile identity: empty");
	id->type = v[0] & 7;
	switch (id->type) {
	case NAS_MOBID_SUCI:
		return suci_dec(v, n, &id->suci, e);
	case NAS_MOBID_5G_GUTI:
		if (n != 11)
			return nas_fail(e, 0, -EBADMSG, "5G-GUTI: length is not 11");
		if (nas_plmn_dec(v + 1, &id->guti.plmn) < 0)
			return nas_fail(e, 1, -ERANGE, "5G-GUTI: PLMN digit not BCD");
		id->guti.amf_region_id = v[4];
		id->guti.amf_set_id = (uint16_t)(v[5] << 2 | v[6] >> 6);
		id->guti.amf_pointer = v[6] & 0x3f;
		id->guti.tmsi = be32(v + 7);
		break;
	case NAS_MOBID_5G_S_TMSI:
		if (n != 7)
			return nas_fail(e, 0, -EBADMSG, "5G-S-TMSI: length is not 7");
		id->guti.amf_set_id = (uint16_t)(v[1] << 2 | v[2] >> 6);
		id->guti.amf_pointer = v[2] & 0x3f;
		id->guti.tmsi = be32(v + 3);
		break;
	case NAS_MOBID_IMEI:
	case NAS_MOBID_IMEISV:
		if (n > 1 + NAS_MOBID_DIGITS_MAX / 2)
			return nas_fail(e, 0, -EBADMSG, "IMEI/IMEISV: too long");
		return digits_dec(v, n, id, e);
	case NAS_MOBID_MAC:
		if (n != 7)
			return nas_fail(e, 0, -EBADMSG, "MAC address identity: length is not 7");
		id->raw = (struct nas_buf){ v, (uint16_t)n };
		return 0;
	case NAS_MOBID_EUI64:
		if (n != 9)
			return nas_fail(e, 0, -EBADMSG, "EUI-64 identity: length is not 9");
		id->raw = (struct nas_buf){ v, (uint16_t)n };
		return 0;
	default: /* NAS_MOBID_NONE: TS 24.501 9.11.3.4, one octet (more is tolerated, kept raw) */
		id->raw = (struct nas_buf){ v, (uint16_t)n };
		return 0;
	}
	if ((v[0] >> 4) != 0xf) {       /* spare bits 8-5: keep a non-standard value for re-encoding */
		id->spare_hi_set = 1;
		id->spare_hi = v[0] >> 4;
	}
	return 0;
}

static uint8_t spare_hi(const struct nas_mobile_id *id)
{
	return id->spare_hi_set ? (uint8_t)(id->spare_hi & 0xf) : 0xf;
}

/* SUCI (TS 24.501 9.11.3.4, figures 9.11.3.4.3 / .3a): a NAI as it is,
 * or the IMSI form: PLMN, routing indicator, scheme, key id, output. */
static int suci_enc(const struct nas_suci *s, uint8_t *out, size_t cap)
{
	size_t n;

	if (s->supi_format == 1) {
		if (!s->nai.p || !s->nai.len || cap < 1u + s->nai.len)
			return !s->nai.p || !s->nai.len ? -EINVAL : -ENOSPC;
		out[0] = 0x10 | NAS_MOBID_SUCI;
		memcpy(out + 1, s->nai.p, s->nai.len);
		return 1 + s->nai.len;
	}
	if (s->supi_format != 0 || (s->output.len && !s->output.p))
		return -EINVAL;
	n = 8u + s->output.len;
	if (cap < n)
		return -ENOSPC;
	out[0] = NAS_MOBID_SUCI;
	nas_plmn_enc(&s->plmn, out + 1);
	out[4] = (uint8_t)((s->rid[1] & 0xf) << 4 | (s->rid[0] & 0xf));
	out[5] = (uint8_t)((s->rid[3] & 0xf) << 4 | (s->rid[2] & 0xf));
	out[6] = s->scheme & 0xf;
	out[7] = s->hn_key_id;
	if (s->output.len)
		memcpy(out + 8, s->output.p, s->output.len);
	return (int)n;
}

/* IMEI / IMEISV (TS 24.501 9.11.3.4, figure 9.11.3.4.2): BCD digits, the
 * first beside the odd/even flag and the type. */
static int digits_enc(const struct nas_mobile_id *id, uint8_t *out, size_t cap)
{
	unsigned nd = id->digits.n, odd = nd & 1;
	size_t n;

	if (nd < 1 || nd > NAS_MOBID_DIGITS_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < nd; i++)
		if (id->digits.d[i] < '0' || id->digits.d[i] > '9')
			return -EINVAL;
	n = 1 + nd / 2;
	if (cap < n)
		return -ENOSPC;
	out[0] = (uint8_t)((id->digits.d[0] - '0') << 4 | odd << 3 | id->type);
	for (unsigned i = 1; i < nd; i += 2) {
		uint8_t lo = (uint8_t)(id->digits.d[i] - '0');
		uint8_t hi = i + 1 < nd ? (uint8_t)(id->digits.d[i + 1] - '0') : 0xf;
		out[1 + (i - 1) / 2] = (uint8_t)(hi << 4 | lo);
	}
	return (int)n;
}

int nas_mobile_id_enc(const struct nas_mobile_id *id, uint8_t *out, size_t cap)
{
	switch (id->type) {
	case NAS_MOBID_SUCI:
		return suci_enc(&id->suci, out, cap);
	case NAS_MOBID_5G_GUTI:
		if (cap < 11)
			return -ENOSPC;
		out[0] = (uint8_t)(spare_hi(id) << 4 | NAS_MOBID_5G_GUTI);
		nas_plmn_enc(&id->guti.plmn, out + 1);
		out[4] = id->guti.amf_region_id;
		out[5] = (uint8_t)(id->guti.amf_set_id >> 2);
		out[6] = (uint8_t)((id->guti.amf_set_id & 3) << 6 | (id->guti.amf_pointer & 0x3f));
		put_be32(out + 7, id->guti.tmsi);
		return 11;
	case NAS_MOBID_5G_S_TMSI:
		if (cap < 7)
			return -ENOSPC;
		out[0] = (uint8_t)(spare_hi(id) << 4 | NAS_MOBID_5G_S_TMSI);
		out[1] = (uint8_t)(id->guti.amf_set_id >> 2);
		out[2] = (uint8_t)((id->guti.amf_set_id & 3) << 6 | (id->guti.amf_pointer & 0x3f));
		put_be32(out + 3, id->guti.tmsi);
		return 7;
	case NAS_MOBID_IMEI:
	case NAS_MOBID_IMEISV:
		return digits_enc(id, out, cap);
	default:
		if (id->raw.len) {
			if (!id->raw.p)
				return -EINVAL;
			if (cap < id->raw.len)
				return -ENOSPC;
			memcpy(out, id->raw.p, id->raw.len);
			return id->raw.len;
		}
		if (id->type != NAS_MOBID_NONE)
			return -EINVAL;
		if (cap < 1)
			return -ENOSPC;
		out[0] = NAS_MOBID_NONE;
		return 1;
	}
}

int nas_suci_null_supi(const struct nas_suci *s, char *buf, size_t sz)
{
	int pos = 0;

	if (s->supi_format != 0 || s->scheme != NAS_SUCI_NULL)
		return -EINVAL;
	nas_sappend(buf, sz, &pos, "imsi-%03u", s->plmn.mcc);
	nas_sappend(buf, sz, &pos, s->plmn.mnc3 ? "%03u" : "%02u", s->plmn.mnc);
	for (size_t i = 0; i < s->output.len; i++) {
		uint8_t lo = s->output.p[i] & 0xf, hi = s->output.p[i] >> 4;
		if (lo > 9)
			return -EBADMSG;
		nas_sappend(buf, sz, &pos, "%u", lo);
		if (hi == 0xf && i + 1 == s->output.len)
			break;
		if (hi > 9)
			return -EBADMSG;
		nas_sappend(buf, sz, &pos, "%u", hi);
	}
	return pos;
}

int nas_suci_ecies_parts(const struct nas_suci *s, struct nas_buf *eph, struct nas_buf *cipher, struct nas_buf *mac)
{
	size_t ek;

	if (s->supi_format != 0)
		return -EINVAL;
	if (s->scheme == NAS_SUCI_PROFILE_A)
		ek = NAS_SUCI_PROFILE_A_EPH_LEN;
	else if (s->scheme == NAS_SUCI_PROFILE_B)
		ek = NAS_SUCI_PROFILE_B_EPH_LEN;
	else
		return -EINVAL;
	if (s->output.len <= ek + NAS_SUCI_MAC_LEN)
		return -EBADMSG;
	*eph = (struct nas_buf){ s->output.p, (uint16_t)ek };
	*cipher = (struct nas_buf){ s->output.p + ek, (uint16_t)(s->output.len - ek - NAS_SUCI_MAC_LEN) };
	*mac = (struct nas_buf){ s->output.p + s->output.len - NAS_SUCI_MAC_LEN, NAS_SUCI_MAC_LEN };
	return 0;
}

int nas_mobile_id_to_str(const struct nas_mobile_id *id, char *buf, size_t sz)
{
	int pos = 0;
	char plmn[16];

	switch (id->type) {
	case NAS_MOBID_SUCI:
		if (id->suci.supi_format == 1) {
			nas_sappend(buf, sz, &pos, "suci{nai=%.*s}", (int)id->suci.nai.len, (const char *)id->suci.nai.p);
			break;
		}
		nas_plmn_to_str(&id->suci.plmn, plmn, sizeof(plmn));
		nas_sappend(buf, sz, &pos, "suci{plmn=%s rid=", plmn);
		for (int i = 0; i < 4 && id->suci.rid[i] != 0xf; i++)
			nas_sappend(buf, sz, &pos, "%x", id->suci.rid[i]);
		nas_sappend(buf, sz, &pos, " scheme=%u key=%u out=", id->suci.scheme, id->suci.hn_key_id);
		nas_shex(buf, sz, &pos, id->suci.output.p, id->suci.output.len);
		nas_sappend(buf, sz, &pos, "}");
		break;
	case NAS_MOBID_5G_GUTI:
		nas_plmn_to_str(&id->guti.plmn, plmn, sizeof(plmn));
		nas_sappend(buf, sz, &pos, "5g-guti{plmn=%s region=%u set=%u ptr=%u tmsi=0x%08x}", plmn,
			    id->guti.amf_region_id, id->guti.amf_set_id, id->guti.amf_pointer, id->guti.tmsi);
		break;
	case NAS_MOBID_5G_S_TMSI:
		nas_sappend(buf, sz, &pos, "5g-s-tmsi{set=%u ptr=%u tmsi=0x%08x}", id->guti.amf_set_id,
			    id->guti.amf_pointer, id->guti.tmsi);
		break;
	case NAS_MOBID_IMEI:
	case NAS_MOBID_IMEISV:
		nas_sappend(buf, sz, &pos, "%s-%s", id->type == NAS_MOBID_IMEI ? "imei" : "imeisv", id->digits.d);
		break;
	default:
		nas_sappend(buf, sz, &pos, "identity{type=%u ", id->type);
		nas_shex(buf, sz, &pos, id->raw.p, id->raw.len);
		nas_sappend(buf, sz, &pos, "}");
	}
	return pos;
}

/* ---- 9.11.2.8 S-NSSAI and 9.11.3.37 NSSAI ---- */

static uint32_t be24(const uint8_t *p) { return (uint32_t)p[0] << 16 | (uint32_t)p[1] << 8 | p[2]; }
static void put_be24(uint8_t *p, uint32_t v) { p[0] = (uint8_t)(v >> 16); p[1] = (uint8_t)(v >> 8); p[2] = (uint8_t)v; }

int nas_snssai_dec(const uint8_t *v, size_t n, struct nas_snssai *s, struct nas_err *e)
{
	memset(s, 0, sizeof(*s));
	if (n != 1 && n != 2 && n != 4 && n != 5 && n != 8)
		return nas_fail(e, 0, -EBADMSG, "S-NSSAI: length not 1, 2, 4, 5 or 8");
	s->sst = v[0];
	if (n == 2) {
		s->has_mapped_sst = 1;
		s->mapped_sst = v[1];
		return 0;
	}
	if (n >= 4) {
		s->has_sd = 1;
		s->sd = be24(v + 1);
	}
	if (n >= 5) {
		s->has_mapped_sst = 1;
		s->mapped_sst = v[4];
	}
	if (n == 8) {
		s->has_mapped_sd = 1;
		s->mapped_sd = be24(v + 5);
	}
	return 0;
}

int nas_snssai_enc(const struct nas_snssai *s, uint8_t *out, size_t cap)
{
	size_t n = 1 + (s->has_sd ? 3 : 0) + (s->has_mapped_sst ? 1 : 0) + (s->has_mapped_sd ? 3 : 0);

	/* the mapped SD needs the SD and the mapped SST (9.11.2.8) */
	if (s->has_mapped_sd && (!s->has_sd || !s->has_mapped_sst))
		return -EINVAL;
	if (cap < n)
		return -ENOSPC;
	out[0] = s->sst;
	n = 1;
	if (s->has_sd) {
		put_be24(out + n, s->sd);
		n += 3;
	}
	if (s->has_mapped_sst)
		out[n++] = s->mapped_sst;
	if (s->has_mapped_sd) {
		put_be24(out + n, s->mapped_sd);
		n += 3;
	}
	return (int)n;
}

int nas_snssai_to_str(const struct nas_snssai *s, char *buf, size_t sz)
{
	int pos = 0;

	nas_sappend(buf, sz, &pos, "sst=%u", s->sst);
	if (s->has_sd)
		nas_sappend(buf, sz, &pos, "/sd=%06x", s->sd);
	if (s->has_mapped_sst)
		nas_sappend(buf, sz, &pos, "(mapped sst=%u", s->mapped_sst);
	if (s->has_mapped_sd)
		nas_sappend(buf, sz, &pos, "/sd=%06x", s->mapped_sd);
	if (s->has_mapped_sst)
		nas_sappend(buf, sz, &pos, ")");
	return pos;
}

int nas_nssai_dec(const uint8_t *v, size_t n, struct nas_nssai *s, struct nas_err *e)
{
	size_t off = 0;

	s->n = 0;
	while (off < n) {
		size_t l = v[off];
		int r;
		if (off + 1 + l > n)
			return nas_fail(e, off, -EBADMSG, "NSSAI: S-NSSAI truncated");
		if (s->n >= NAS_NSSAI_MAX)
			return nas_fail(e, off, -E2BIG, "NSSAI: more than NAS_NSSAI_MAX S-NSSAI");
		r = nas_snssai_dec(v + off + 1, l, &s->s[s->n], e);
		if (r < 0) {
			if (e)
				e->off += off + 1;
			return r;
		}
		s->n++;
		off += 1 + l;
	}
	return 0;
}

int nas_nssai_enc(const struct nas_nssai *s, uint8_t *out, size_t cap)
{
	size_t off = 0;

	if (s->n > NAS_NSSAI_MAX)
		return -E2BIG;
	for (unsigned i = 0; i < s->n; i++) {
		int r;
		if (off + 1 > cap)
			return -ENOSPC;
		r = nas_snssai_enc(&s->s[i], out + off + 1, cap - off - 1);
		if (r < 0)
			return r;
		out[off] = (uint8_t)r;
		off += 1 + (size_t)r;
	}
	return (int)off;
}

int nas_nssai_to_str(const struct nas_nssai *s, char *buf, size_t sz)
{
	int pos = 0;
	char one[64];

	nas_sappend(buf, sz, &pos, "[");
	for (unsigned i = 0; i < s->n; i++) {
		nas_snssai_to_str(&s->s[i], one, sizeof(one));
		nas_sappend(buf, sz, &pos, "%s%s", i ? "," : "", one);
	}
	nas_sappend(buf, sz, &pos, "]");
	return pos;
}

/* ---- 9.11.3.54 UE security capability ---- */

int nas_ue_sec_cap_dec(const uint8_t *v, size_t n, struct nas_ue_sec_cap *c, struct nas_err *e)
{
	memset(c, 0, sizeof(*c));
	/* octets 3-4 mandatory, 5-6 (EEA/EIA) together, 7-10 spare */
	if (n < 2 || n == 3 || n > 8)
		return nas_fail(e, 0, -EBADMSG, "UE security capability: length not 2 or 4..8");
	c->ea = v[0];
	c->ia = v[1];
	if (n >= 4) {
		c->has_eps = 1;
		c->eea = v[2];
		c->eia = v[3];
		c->n_spare = (uint8_t)(n - 4);
		memcpy(c->spare, v + 4, n - 4);
	}
	return 0;
}

int nas_ue_sec_cap_enc(const struct nas_ue_sec_cap *c, uint8_t *out, size_t cap)
{
	size_t n = c->has_eps ? 4u + (c->n_spare > 4 ? 4 : c->n_spare) : 2u;

	if (cap < n)
		return -ENOSPC;
	out[0] = c->ea;
	out[1] = c->ia;
	if (c->has_eps) {
		out[2] = c->eea;
		out[3] = c->eia;
		memcpy(out + 4, c->spare, n - 4);
	}
	return (int)n;
}

int nas_ue_sec_cap_to_str(const struct nas_ue_sec_cap *c, char *buf, size_t sz)
{
	if (c->has_eps)
		return snprintf(buf, sz, "{ea=0x%02x ia=0x%02x eea=0x%02x eia=0x%02x}", c->ea, c->ia, c->eea, c->eia);
	return snprintf(buf, sz, "{ea=0x%02x ia=0x%02x}", c->ea, c->ia);
}

/* ---- 9.11.3.9 5GS tracking area identity list ---- */

int nas_tai_list_dec(const uint8_t *v, size_t n, struct nas_tai_list *t, struct nas_err *e)
{
	size_t off = 0;

	t->n = 0;
	t->n_lists = 0;
	while (off < n) {
		unsigned type = (v[off] >> 5) & 3, cnt = (v[off] & 0x1f) + 1u;
		size_t need = type == 0 ? 3 + 3 * cnt : type == 1 ? 6 : 6 * cnt;
		struct nas_plmn plmn = { 0 };

		if (type == 3)
			return nas_fail(e, off, -ERANGE, "TAI list: reserved type of list");
		if (off + 1 + need > n)
			return nas_fail(e, off, -EBADMSG, "TAI list: partial list truncated");
		if (t->n + cnt > NAS_TAI_MAX)
			return nas_fail(e, off, -E2BIG, "TAI list: more than NAS_TAI_MAX TAIs");
		const uint8_t *p = v + off + 1;
		for (unsigned i = 0; i < cnt; i++) {
			struct nas_tai *ta = &t->tai[t->n + i];
			const uint8_t *pp = type == 2 ? p + 6 * i : p;
			if ((type != 2 && i == 0) || type == 2) {
				if (nas_plmn_dec(pp, &plmn) < 0)
					return nas_fail(e, (size_t)(pp - v), -ERANGE, "TAI list: PLMN digit not BCD");
			}
			ta->plmn = plmn;
			ta->tac = type == 0 ? be24(p + 3 + 3 * i) : type == 1 ? (be24(p + 3) + i) & 0xffffff : be24(pp + 3);
		}
		t->lists[t->n_lists].type = (uint8_t)type;
		t->lists[t->n_lists].n = (uint8_t)cnt;
		t->n_lists++;
		t->n = (uint8_t)(t->n + cnt);
		off += 1 + need;
	}
	if (t->n == 0)
		return nas_fail(e, 0, -EBADMSG, "TAI list: empty");
	return 0;
}

static int same_plmn(const struct nas_plmn *a, const struct nas_plmn *b)
{
	return a->mcc == b->mcc && a->mnc == b->mnc && a->mnc3 == b->mnc3;
}

static int tai_part_enc(const struct nas_tai *ta, unsigned type, unsigned cnt, uint8_t *out, size_t cap)
{
	size_t need = 1 + (type == 0 ? 3 + 3 * cnt : type == 1 ? 6 : 6 * cnt);

	if (cnt < 1 || cnt > 32 || type > 2)
		return -EINVAL;
	if (cap < need)
		return -ENOSPC;
	out[0] = (uint8_t)(type << 5 | (cnt - 1));
	for (unsigned i = 0; i < cnt; i++) {
		if (type != 2 && !same_plmn(&ta[i].plmn, &ta[0].plmn))
			return -EINVAL;
		if (type == 1 && ta[i].tac != ((ta[0].tac + i) & 0xffffff))
			return -EINVAL;
		if (type == 2) {
			nas_plmn_enc(&ta[i].plmn, out + 1 + 6 * i);
			put_be24(out + 4 + 6 * i, ta[i].tac);
		} else if (type == 0) {
			put_be24(out + 4 + 3 * i, ta[i].tac);
		}
	}
	if (type != 2) {
		nas_plmn_enc(&ta[0].plmn, out + 1);
		if (type == 1)
			put_be24(out + 4, ta[0].tac);
	}
	return (int)need;
}

int nas_tai_list_enc(const struct nas_tai_list *t, uint8_t *out, size_t cap)
{
	size_t off = 0;
	unsigned k = 0;

	if (t->n < 1 || t->n > NAS_TAI_MAX || t->n_lists > NAS_TAI_LISTS_MAX)
		return -EINVAL;
	if (t->n_lists == 0) {          /* one list: type 0 if one PLMN, else type 2 */
		unsigned type = 0;
		for (unsigned i = 1; i < t->n; i++)
			if (!same_plmn(&t->tai[i].plmn, &t->tai[0].plmn))
				type = 2;
		return tai_part_enc(t->tai, type, t->n, out, cap);
	}
	for (unsigned l = 0; l < t->n_lists; l++) {
		int r;
		if (k + t->lists[l].n > t->n)
			return -EINVAL;
		r = tai_part_enc(t->tai + k, t->lists[l].type, t->lists[l].n, out + off, cap - off);
		if (r < 0)
			return r;
		off += (size_t)r;
		k += t->lists[l].n;
	}
	return k == t->n ? (int)off : -EINVAL;
}

int nas_tai_list_to_str(const struct nas_tai_list *t, char *buf, size_t sz)
{
	int pos = 0;
	char plmn[16];

	nas_sappend(buf, sz, &pos, "[");
	for (unsigned i = 0; i < t->n; i++) {
		nas_plmn_to_str(&t->tai[i].plmn, plmn, sizeof(plmn));
		nas_sappend(buf, sz, &pos, "%s%s/%06x", i ? "," : "", plmn, t->tai[i].tac);
	}
	nas_sappend(buf, sz, &pos, "]");
	return pos;
}

/* ---- PSI bitmaps: 9.11.3.44 / .57 / .13 / .42 (octet 3 = PSI 7..0, octet 4 = PSI 15..8) ---- */

int nas_psi_map_dec(const uint8_t *v, size_t n, uint16_t *map, struct nas_err *e)
{
	if (n < 2)
		return nas_fail(e, 0, -EBADMSG, "PSI bitmap: shorter than 2 octets");
	*map = (uint16_t)(v[0] | v[1] << 8);    /* octets 5.. are spare (ignored) */
	return 0;
}

int nas_psi_map_enc(uint16_t map, uint8_t *out, size_t cap)
{
	if (cap < 2)
		return -ENOSPC;
	out[0] = (uint8_t)map;
	out[1] = (uint8_t)(map >> 8);
	return 2;
}

int nas_psi_map_to_str(uint16_t map, char *buf, size_t sz)
{
	int pos = 0, first = 1;

	nas_sappend(buf, sz, &pos, "{");
	for (unsigned i = 0; i < 16; i++)
		if (map & (1u << i)) {
			nas_sappend(buf, sz, &pos, "%s%u", first ? "" : ",", i);
			first = 0;
		}
	nas_sappend(buf, sz, &pos, "}");
	return pos;
}

/* ---- GPRS timers, TS 24.008 10.5.7.4 / 10.5.7.4a ---- */

uint32_t nas_gprs_timer2_secs(uint8_t v)
{
	static const uint32_t unit[8] = { 2, 60, 360, 60, 60, 60, 60, 0 }; /* other values: 1 min */
	return (v >> 5) == 7 ? UINT32_MAX : unit[v >> 5] * (v & 0x1f);
}

uint32_t nas_gprs_timer3_secs(uint8_t v)
{
	static const uint32_t unit[8] = { 600, 3600, 36000, 2, 30, 60, 1152000, 0 };
	return (v >> 5) == 7 ? UINT32_MAX : unit[v >> 5] * (v & 0x1f);
}

static uint8_t timer_enc(uint32_t secs, const uint32_t *units, const uint8_t *codes, unsigned n)
{
	if (secs == UINT32_MAX)
		return 7 << 5;
	for (unsigned i = 0; i < n; i++) {
		uint32_t v = (secs + units[i] - 1) / units[i];
		if (v <= 31)
			return (uint8_t)(codes[i] << 5 | v);
	}
	return (uint8_t)(codes[n - 1] << 5 | 31);
}

uint8_t nas_gprs_timer2_enc(uint32_t secs)
{
	static const uint32_t u[] = { 2, 60, 360 };
	static const uint8_t c[] = { 0, 1, 2 };
	return timer_enc(secs, u, c, 3);
}

uint8_t nas_gprs_timer3_enc(uint32_t secs)
{
	static const uint32_t u[] = { 2, 30, 60, 600, 3600, 36000, 1152000 };
	static const uint8_t c[] = { 3, 4, 5, 0, 1, 2, 6 };
	return timer_enc(secs, u, c, 7);
}

/* ---- time zone, TS 24.008 10.5.3.8 / 10.5.3.9 ---- */

static uint8_t bcd_swapped(unsigned v) { return (uint8_t)((v % 10) << 4 | (v / 10 % 10)); }

uint8_t nas_time_zone_enc(int minutes_east)
{
	int q = (minutes_east >= 0 ? minutes_east + 7 : minutes_east - 7) / 15;  /* nearest quarter */
	unsigned a = (unsigned)(q < 0 ? -q : q);

	if (a > 56)
		return 0xff;
	/* tens digit in bits 1-3, sign in bit 4, units digit in bits 5-8 */
	return (uint8_t)((a % 10) << 4 | (q < 0 ? 0x08 : 0) | (a / 10));
}

int nas_time_zone_minutes(uint8_t v)
{
	int q = (v & 0x07) * 10 + (v >> 4);
	return (v & 0x08 ? -q : q) * 15;
}

int nas_universal_time_enc(uint8_t out[7], int year, int mon, int mday, int hour, int min, int sec,
			   int tz_minutes_east)
{
	if (mon < 1 || mon > 12 || mday < 1 || mday > 31 || hour < 0 || hour > 23 || min < 0 || min > 59 ||
	    sec < 0 || sec > 60 || year < 0)
		return -EINVAL;
	out[0] = bcd_swapped((unsigned)year % 100);
	out[1] = bcd_swapped((unsigned)mon);
	out[2] = bcd_swapped((unsigned)mday);
	out[3] = bcd_swapped((unsigned)hour);
	out[4] = bcd_swapped((unsigned)min);
	out[5] = bcd_swapped((unsigned)sec);
	out[6] = nas_time_zone_enc(tz_minutes_east);
	return out[6] == 0xff ? -ERANGE : 7;
}
