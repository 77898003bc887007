/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP IE value codecs for what sits inside the rules (TS 29.244 8.2): UE IP
 * address, SDF filter, outer header creation / removal, volumes and bit
 * rates. Same conventions as pfcp_ie.c.
 */
#include <string.h>

#include "common/pfcp/pfcp_int.h"

#define BAD(msg) (*why = (msg), -EBADMSG)

/* 8.2.62 UE IP Address: flags, IPv4 (V4), IPv6 (V6), IPv6 prefix delegation
 * bits (IPv6D), IPv6 prefix length (IP6PL) */
static size_t ue_ip_len(uint8_t f)
{
	return 1 + (f & PFCP_UEIP_V4 ? 4 : 0) + (f & PFCP_UEIP_V6 ? 16 : 0) + !!(f & PFCP_UEIP_V6D) +
	       !!(f & PFCP_UEIP_V6PL);
}

int pfcp_ue_ip_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_ue_ip *u = v;

	(void)d;
	if (len < 1)
		return BAD("UE IP address truncated");
	u->flags = p[0] & 0x7f;
	if (len < ue_ip_len(u->flags))
		return BAD("UE IP address truncated");
	p = pfcp_get_addrs(p + 1, u->flags & PFCP_UEIP_V4, u->flags & PFCP_UEIP_V6, u->ipv4, u->ipv6);
	if (u->flags & PFCP_UEIP_V6D)
		u->v6d_bits = *p++;
	if (u->flags & PFCP_UEIP_V6PL)
		u->v6_prefix_len = *p;
	return 0;
}

int pfcp_ue_ip_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_ue_ip *u = v;
	size_t n = ue_ip_len(u->flags);

	(void)d;
	if (u->flags & 0x80)
		return -EINVAL;
	if (cap < n)
		return -ENOSPC;
	*p = u->flags;
	p = pfcp_put_addrs(p + 1, u->flags & PFCP_UEIP_V4, u->flags & PFCP_UEIP_V6, u->ipv4, u->ipv6);
	if (u->flags & PFCP_UEIP_V6D)
		*p++ = u->v6d_bits;
	if (u->flags & PFCP_UEIP_V6PL)
		*p = u->v6_prefix_len;
	return (int)n;
}

int pfcp_ue_ip_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_ue_ip *u = v;
	int k = pfcp_catf(o, cap, 0, "flags=0x%x", u->flags);

	(void)d;
	k = pfcp_cataddr(o, cap, k, u->flags & PFCP_UEIP_V4 ? u->ipv4 : NULL, u->flags & PFCP_UEIP_V6 ? u->ipv6 : NULL);
	if (u->flags & PFCP_UEIP_V6D)
		k = pfcp_catf(o, cap, k, " pd=%u", u->v6d_bits);
	if (u->flags & PFCP_UEIP_V6PL)
		k = pfcp_catf(o, cap, k, " plen=%u", u->v6_prefix_len);
	return k;
}

/* 8.2.5 SDF Filter: flags, spare, [flow description length + text] [ToS
 * traffic class (2)] [SPI (4)] [flow label (3)] [SDF filter ID (4)] */
int pfcp_sdf_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_sdf *s = v;
	size_t pos = 2, need;

	(void)d;
	if (len < 2)
		return BAD("SDF filter truncated");
	s->flags = p[0] & 0x1f;
	if (s->flags & PFCP_SDF_FD) {
		if (len < 4)
			return BAD("SDF filter flow description truncated");
		s->flow.len = (uint16_t)pfcp_get(p + 2, 2);
		s->flow.p = p + 4;
		pos = 4 + (size_t)s->flow.len;
	}
	need = pos + (s->flags & PFCP_SDF_TTC ? 2 : 0) + (s->flags & PFCP_SDF_SPI ? 4 : 0) +
	       (s->flags & PFCP_SDF_FL ? 3 : 0) + (s->flags & PFCP_SDF_BID ? 4 : 0);
	if (len < need)
		return BAD("SDF filter truncated");
	if (s->flags & PFCP_SDF_TTC) {
		s->tos = (uint16_t)pfcp_get(p + pos, 2);
		pos += 2;
	}
	if (s->flags & PFCP_SDF_SPI) {
		s->spi = pfcp_get(p + pos, 4);
		pos += 4;
	}
	if (s->flags & PFCP_SDF_FL) {
		s->flow_label = pfcp_get(p + pos, 3);
		pos += 3;
	}
	if (s->flags & PFCP_SDF_BID)
		s->filter_id = pfcp_get(p + pos, 4);
	return 0;
}

int pfcp_sdf_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_sdf *s = v;
	size_t pos = 2;
	size_t n = 2 + (s->flags & PFCP_SDF_FD ? 2 + (size_t)s->flow.len : 0) + (s->flags & PFCP_SDF_TTC ? 2 : 0) +
		   (s->flags & PFCP_SDF_SPI ? 4 : 0) + (s->flags & PFCP_SDF_FL ? 3 : 0) +
		   (s->flags & PFCP_SDF_BID ? 4 : 0);

	(void)d;
	if (s->flags > 0x1f || ((s->flags & PFCP_SDF_FD) && s->flow.len && !s->flow.p))
		return -EINVAL;
	if (s->flow_label > 0xffffff)
		return -ERANGE;
	if (cap < n)
		return -ENOSPC;
	p[0] = s->flags;
	p[1] = 0;
	if (s->flags & PFCP_SDF_FD) {
		pfcp_put(p + 2, s->flow.len, 2);
		if (s->flow.len)
			memcpy(p + 4, s->flow.p, s->flow.len);
		pos = 4 + (size_t)s->flow.len;
	}
	if (s->flags & PFCP_SDF_TTC) {
		pfcp_put(p + pos, s->tos, 2);
		pos += 2;
	}
	if (s->flags & PFCP_SDF_SPI) {
		pfcp_put(p + pos, s->spi, 4);
		pos += 4;
	}
	if (s->flags & PFCP_SDF_FL) {
		pfcp_put(p + pos, s->flow_label, 3);
		pos += 3;
	}
	if (s->flags & PFCP_SDF_BID)
		pfcp_put(p + pos, s->filter_id, 4);
	return (int)n;
}

int pfcp_sdf_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_sdf *s = v;
	int k = pfcp_catf(o, cap, 0, "flags=0x%x", s->flags);

	(void)d;
	if (s->flags & PFCP_SDF_FD)
		k = pfcp_catf(o, cap, k, " fd=\"%.*s\"", (int)s->flow.len, s->flow.p ? (const char *)s->flow.p : "");
	if (s->flags & PFCP_SDF_TTC)
		k = pfcp_catf(o, cap, k, " tos=0x%x", s->tos);
	if (s->flags & PFCP_SDF_SPI)
		k = pfcp_catf(o, cap, k, " spi=0x%x", s->spi);
	if (s->flags & PFCP_SDF_FL)
		k = pfcp_catf(o, cap, k, " fl=0x%x", s->flow_label);
	if (s->flags & PFCP_SDF_BID)
		k = pfcp_catf(o, cap, k, " id=%u", s->filter_id);
	return k;
}

/* 8.2.56 Outer Header Creation: description (2), [TEID] [IPv4] [IPv6] [port]
 * [C-TAG (3)] [S-TAG (3)], each present as the description says */
#define OHC_TEID (PFCP_OHC_GTPU4 | PFCP_OHC_GTPU6)
#define OHC_V4 (PFCP_OHC_GTPU4 | PFCP_OHC_UDP4 | PFCP_OHC_IPV4)
#define OHC_V6 (PFCP_OHC_GTPU6 | PFCP_OHC_UDP6 | PFCP_OHC_IPV6)
#define OHC_PORT (PFCP_OHC_UDP4 | PFCP_OHC_UDP6)

static size_t ohc_len(uint16_t f)
{
	return 2 + (f & OHC_TEID ? 4 : 0) + (f & OHC_V4 ? 4 : 0) + (f & OHC_V6 ? 16 : 0) +
	       (f & OHC_PORT ? 2 : 0) + (f & PFCP_OHC_CTAG ? 3 : 0) + (f & PFCP_OHC_STAG ? 3 : 0);
}

int pfcp_ohc_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_ohc *h = v;
	const uint8_t *q = p + 2;

	(void)d;
	if (len < 2)
		return BAD("outer header creation truncated");
	h->desc = (uint16_t)pfcp_get(p, 2);
	if (len < ohc_len(h->desc))
		return BAD("outer header creation truncated");
	if (h->desc & OHC_TEID) {
		h->teid = pfcp_get(q, 4);
		q += 4;
	}
	q = pfcp_get_addrs(q, h->desc & OHC_V4, h->desc & OHC_V6, h->ipv4, h->ipv6);
	if (h->desc & OHC_PORT) {
		h->port = (uint16_t)pfcp_get(q, 2);
		q += 2;
	}
	if (h->desc & PFCP_OHC_CTAG) {
		h->ctag = pfcp_get(q, 3);
		q += 3;
	}
	if (h->desc & PFCP_OHC_STAG)
		h->stag = pfcp_get(q, 3);
	return 0;
}

int pfcp_ohc_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_ohc *h = v;
	size_t n = ohc_len(h->desc);
	uint8_t *q = p + 2;

	(void)d;
	if (h->ctag > 0xffffff || h->stag > 0xffffff)
		return -ERANGE;
	if (cap < n)
		return -ENOSPC;
	pfcp_put(p, h->desc, 2);
	if (h->desc & OHC_TEID) {
		pfcp_put(q, h->teid, 4);
		q += 4;
	}
	q = pfcp_put_addrs(q, h->desc & OHC_V4, h->desc & OHC_V6, h->ipv4, h->ipv6);
	if (h->desc & OHC_PORT) {
		pfcp_put(q, h->port, 2);
		q += 2;
	}
	if (h->desc & PFCP_OHC_CTAG) {
		pfcp_put(q, h->ctag, 3);
		q += 3;
	}
	if (h->desc & PFCP_OHC_STAG)
		pfcp_put(q, h->stag, 3);
	return (int)n;
}

int pfcp_ohc_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_ohc *h = v;
	int k = pfcp_catf(o, cap, 0, "desc=0x%04x", h->desc);

	(void)d;
	if (h->desc & OHC_TEID)
		k = pfcp_catf(o, cap, k, " teid=0x%x", h->teid);
	k = pfcp_cataddr(o, cap, k, h->desc & OHC_V4 ? h->ipv4 : NULL, h->desc & OHC_V6 ? h->ipv6 : NULL);
	if (h->desc & OHC_PORT)
		k = pfcp_catf(o, cap, k, " port=%u", h->port);
	if (h->desc & PFCP_OHC_CTAG)
		k = pfcp_catf(o, cap, k, " ctag=0x%x", h->ctag);
	if (h->desc & PFCP_OHC_STAG)
		k = pfcp_catf(o, cap, k, " stag=0x%x", h->stag);
	return k;
}

/* 8.2.64 Outer Header Removal: description, [GTP-U extension header deletion] */
int pfcp_ohr_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_ohr *r = v;

	(void)d;
	if (len < 1)
		return BAD("outer header removal truncated");
	r->desc = p[0];
	r->has_ext = len >= 2;
	r->ext = r->has_ext ? p[1] : 0;
	return 0;
}

int pfcp_ohr_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_ohr *r = v;
	size_t n = r->has_ext ? 2 : 1;

	(void)d;
	if (cap < n)
		return -ENOSPC;
	p[0] = r->desc;
	if (r->has_ext)
		p[1] = r->ext;
	return (int)n;
}

int pfcp_ohr_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_ohr *r = v;

	(void)d;
	return r->has_ext ? pfcp_catf(o, cap, 0, "desc=%u ext=0x%x", r->desc, r->ext) :
			    pfcp_catf(o, cap, 0, "desc=%u", r->desc);
}

/* 8.2.13 / 8.2.50 Volume Threshold / Quota (TOVOL, ULVOL, DLVOL) and 8.2.44
 * Volume Measurement (+ TONOP, ULNOP, DLNOP): a flags octet, then one
 * 8-octet value per flag in flag order. */
static uint64_t *vol_field(struct pfcp_volume *x, unsigned i)
{
	uint64_t *f[] = { &x->total, &x->ul, &x->dl, &x->total_pkts, &x->ul_pkts, &x->dl_pkts };

	return f[i];
}

static unsigned vol_bits(const struct pfcp_ie_desc *d)
{
	return d->kind == PFCP_K_VOLMEAS ? 6 : 3;
}

int pfcp_vol_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_volume *x = v;
	size_t pos = 1;

	if (len < 1)
		return BAD("volume truncated");
	x->flags = p[0] & (uint8_t)((1u << vol_bits(d)) - 1);
	for (unsigned i = 0; i < vol_bits(d); i++) {
		if (!(x->flags & (1u << i)))
			continue;
		if (len < pos + 8)
			return BAD("volume truncated");
		*vol_field(x, i) = pfcp_get64(p + pos, 8);
		pos += 8;
	}
	return 0;
}

int pfcp_vol_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	struct pfcp_volume x = *(const struct pfcp_volume *)v;
	size_t pos = 1;

	if (x.flags >> vol_bits(d))
		return -EINVAL;
	if (cap < 1)
		return -ENOSPC;
	p[0] = x.flags;
	for (unsigned i = 0; i < vol_bits(d); i++) {
		if (!(x.flags & (1u << i)))
			continue;
		if (cap < pos + 8)
			return -ENOSPC;
		pfcp_put(p + pos, *vol_field(&x, i), 8);
		pos += 8;
	}
	return (int)pos;
}

int pfcp_vol_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	static const char *const nm[] = { "total", "ul", "dl", "total_pkts", "ul_pkts", "dl_pkts" };
	struct pfcp_volume x = *(const struct pfcp_volume *)v;
	int k = pfcp_catf(o, cap, 0, "flags=0x%x", x.flags);

	for (unsigned i = 0; i < vol_bits(d); i++)
		if (x.flags & (1u << i))
			k = pfcp_catf(o, cap, k, " %s=%llu", nm[i], (unsigned long long)*vol_field(&x, i));
	return k;
}

/* 8.2.8 / 8.2.9 MBR / GBR: UL then DL, 5 octets each, kbps */
#define BR_MAX ((1ull << 40) - 1)

int pfcp_br_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_bitrate *b = v;

	(void)d;
	if (len < 10)
		return BAD("bit rate truncated");
	b->ul = pfcp_get64(p, 5);
	b->dl = pfcp_get64(p + 5, 5);
	return 0;
}

int pfcp_br_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_bitrate *b = v;

	(void)d;
	if (b->ul > BR_MAX || b->dl > BR_MAX)
		return -ERANGE;
	if (cap < 10)
		return -ENOSPC;
	pfcp_put(p, b->ul, 5);
	pfcp_put(p + 5, b->dl, 5);
	return 10;
}

int pfcp_br_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_bitrate *b = v;

	(void)d;
	return pfcp_catf(o, cap, 0, "ul=%llu dl=%llu kbps", (unsigned long long)b->ul, (unsigned long long)b->dl);
}

/* 8.2.80 Failed Rule ID: octet 5 bits 1-5 the Rule ID Type, then the rule's ID in the size of
 * its own IE (PDR ID 8.2.36: 2 octets, FAR / QER / URR ID: 4, BAR ID: 1) */
static int rule_id_len(uint8_t type)
{
	switch (type) {
	case PFCP_RULE_PDR: return 2;
	case PFCP_RULE_FAR: case PFCP_RULE_QER: case PFCP_RULE_URR: return 4;
	case PFCP_RULE_BAR: return 1;
	default: return -1;
	}
}

int pfcp_rule_id_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_rule_id *r = v;
	int n;

	(void)d;
	if (len < 1)
		return BAD("failed rule ID truncated");
	r->type = p[0] & 0x1f;
	n = rule_id_len(r->type);
	if (n < 0) {
		*why = "failed rule ID: unknown rule ID type";
		return -EINVAL;
	}
	if (len < 1 + (size_t)n)
		return BAD("failed rule ID truncated");
	r->id = (uint32_t)pfcp_get64(p + 1, (size_t)n);
	return 0;
}

int pfcp_rule_id_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_rule_id *r = v;
	int n = rule_id_len(r->type);

	(void)d;
	if (n < 0)
		return -EINVAL;
	if (n < 4 && r->id >> (8 * n))
		return -ERANGE;
	if (cap < 1 + (size_t)n)
		return -ENOSPC;
	p[0] = r->type;
	pfcp_put(p + 1, r->id, (size_t)n);
	return 1 + n;
}

int pfcp_rule_id_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	static const char *const nm[] = { "PDR", "FAR", "QER", "URR", "BAR" };
	const struct pfcp_rule_id *r = v;

	(void)d;
	return pfcp_catf(o, cap, 0, "%s %u", r->type < 5 ? nm[r->type] : "?", r->id);
}
