/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP IE value codecs (TS 29.244 8.2): one dec / enc / to_str per kind of
 * value. Lengths are checked against the flags that say which fields follow;
 * octets past the last known field are ignored (8.1.1: later releases append
 * fields), spare bits are dropped on decode and written as 0.
 */
#include <stdio.h>
#include <string.h>

#include "common/pfcp/pfcp_int.h"

#define BAD(msg) (*why = (msg), -EBADMSG)
#define INVAL(msg) (*why = (msg), -EINVAL)

/* ---- integers and bit strings ---- */

static int u8_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	if (len < 1)
		return BAD("value truncated");
	*(uint8_t *)v = p[0] & d->arg;
	return 0;
}

static int u8_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	if (*(const uint8_t *)v & ~d->arg)
		return -ERANGE;
	if (cap < 1)
		return -ENOSPC;
	p[0] = *(const uint8_t *)v;
	return 1;
}

static int u8_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	(void)d;
	return snprintf(o, cap, "%u", *(const uint8_t *)v);
}

static int u16_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	(void)d;
	if (len < 2)
		return BAD("value truncated");
	*(uint16_t *)v = (uint16_t)pfcp_get(p, 2);
	return 0;
}

static int u16_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	(void)d;
	if (cap < 2)
		return -ENOSPC;
	pfcp_put(p, *(const uint16_t *)v, 2);
	return 2;
}

static int u16_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	(void)d;
	return snprintf(o, cap, "%u", *(const uint16_t *)v);
}

/* 4 octets, or d->arg octets (the 2-octet PDR ID of a Remove PDR) */
static int u32_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	unsigned n = d->arg ? d->arg : 4;

	if (len < n)
		return BAD("value truncated");
	*(uint32_t *)v = pfcp_get(p, n);
	return 0;
}

static int u32_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	unsigned n = d->arg ? d->arg : 4;
	uint32_t x = *(const uint32_t *)v;

	if (n < 4 && x >> (8 * n))
		return -ERANGE;
	if (cap < n)
		return -ENOSPC;
	pfcp_put(p, x, n);
	return (int)n;
}

static int u32_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	(void)d;
	return snprintf(o, cap, "%u", *(const uint32_t *)v);
}

/* Bit strings (Apply Action 8.2.26, Reporting Triggers 8.2.19, Usage Report
 * Trigger 8.2.41): octet 5 is bits 0-7 of the value, octet 6 bits 8-15 ...
 * d->arg is the octets the release we follow defines. A shorter value (an
 * earlier release's: Apply Action had 1 octet, the triggers 2 until Release
 * 16) reads the missing flags as 0; octets past d->arg belong to a later
 * release and are ignored (8.1.1: octets "present only if explicitly
 * specified"), so a flag we do not know never reaches the caller. */
static int flags_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	uint32_t x = 0;

	if (len < 1)
		return BAD("value truncated");
	for (size_t i = 0; i < len && i < d->arg; i++)
		x |= (uint32_t)p[i] << (8 * i);
	*(uint32_t *)v = x;
	return 0;
}

/* d->arg octets, what the release we follow defines: receivers of that
 * release (e.g. Open5GS 2.8) drop a shorter Apply Action. A flag past them
 * is -ERANGE: our own decoder would drop it. */
static int flags_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	uint32_t x = *(const uint32_t *)v;
	size_t n = d->arg;

	if (n < 4 && (x >> (8 * n)))
		return -ERANGE;
	if (cap < n)
		return -ENOSPC;
	for (size_t i = 0; i < n; i++)
		p[i] = (uint8_t)(x >> (8 * i));
	return (int)n;
}

static int flags_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	(void)d;
	return snprintf(o, cap, "0x%x", *(const uint32_t *)v);
}

static int buf_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_buf *b = v;

	if (len < d->arg)
		return BAD("value truncated");
	b->p = p;
	b->len = (uint16_t)len;
	return 0;
}

static int buf_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_buf *b = v;

	if (b->len < d->arg || (b->len && !b->p))
		return -EINVAL;
	if (cap < b->len)
		return -ENOSPC;
	if (b->len)
		memcpy(p, b->p, b->len);
	return b->len;
}

static int buf_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_buf *b = v;

	(void)d;
	return pfcp_cathex(o, cap, 0, b->p, b->len);
}

/* ---- addresses ---- */

/* 8.2.38 Node ID: type (4 bits), then IPv4, IPv6 or an FQDN */
static int node_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	static const uint8_t alen[] = { 4, 16 };
	struct pfcp_node_id *n = v;

	(void)d;
	if (len < 1)
		return BAD("Node ID truncated");
	n->type = p[0] & 0x0f;
	if (n->type > PFCP_NODE_FQDN)
		return INVAL("Node ID type unknown");
	if (n->type == PFCP_NODE_FQDN) {
		if (len < 2)
			return BAD("Node ID FQDN empty");
		n->fqdn.p = p + 1;
		n->fqdn.len = (uint16_t)(len - 1);
		return 0;
	}
	if (len < 1u + alen[n->type])
		return BAD("Node ID address truncated");
	memcpy(n->addr, p + 1, alen[n->type]);
	return 0;
}

static int node_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_node_id *n = v;
	size_t len = n->type == PFCP_NODE_IPV4 ? 4 : n->type == PFCP_NODE_IPV6 ? 16 : n->fqdn.len;

	(void)d;
	if (n->type > PFCP_NODE_FQDN || (n->type == PFCP_NODE_FQDN && (!len || !n->fqdn.p)))
		return -EINVAL;
	if (cap < 1 + len)
		return -ENOSPC;
	p[0] = n->type;
	memcpy(p + 1, n->type == PFCP_NODE_FQDN ? n->fqdn.p : n->addr, len);
	return (int)(1 + len);
}

static int node_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_node_id *n = v;

	(void)d;
	if (n->type == PFCP_NODE_IPV4)
		return pfcp_catf(o, cap, 0, "ipv4:%u.%u.%u.%u", n->addr[0], n->addr[1], n->addr[2], n->addr[3]);
	if (n->type == PFCP_NODE_IPV6)
		return pfcp_cathex(o, cap, pfcp_catf(o, cap, 0, "ipv6:"), n->addr, 16);
	return pfcp_cathex(o, cap, pfcp_catf(o, cap, 0, "fqdn:"), n->fqdn.p, n->fqdn.len);
}

/* 8.2.37 F-SEID: flags (V6 bit 1, V4 bit 2), SEID, IPv4, IPv6 */
static int fseid_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_fseid *f = v;
	size_t need;

	(void)d;
	if (len < 9)
		return BAD("F-SEID truncated");
	f->flags = p[0] & (PFCP_ADDR_V4 | PFCP_ADDR_V6);
	if (!f->flags)
		return INVAL("F-SEID without an address");
	need = 9 + (f->flags & PFCP_ADDR_V4 ? 4 : 0) + (f->flags & PFCP_ADDR_V6 ? 16 : 0);
	if (len < need)
		return BAD("F-SEID address truncated");
	f->seid = pfcp_get64(p + 1, 8);
	pfcp_get_addrs(p + 9, f->flags & PFCP_ADDR_V4, f->flags & PFCP_ADDR_V6, f->ipv4, f->ipv6);
	return 0;
}

static int fseid_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_fseid *f = v;
	size_t n = 9 + (f->flags & PFCP_ADDR_V4 ? 4 : 0) + (f->flags & PFCP_ADDR_V6 ? 16 : 0);

	(void)d;
	if (!(f->flags & (PFCP_ADDR_V4 | PFCP_ADDR_V6)) || (f->flags & ~(PFCP_ADDR_V4 | PFCP_ADDR_V6)))
		return -EINVAL;
	if (cap < n)
		return -ENOSPC;
	p[0] = f->flags;
	pfcp_put(p + 1, f->seid, 8);
	pfcp_put_addrs(p + 9, f->flags & PFCP_ADDR_V4, f->flags & PFCP_ADDR_V6, f->ipv4, f->ipv6);
	return (int)n;
}

static int fseid_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_fseid *f = v;
	int k = pfcp_catf(o, cap, 0, "seid=0x%llx", (unsigned long long)f->seid);

	(void)d;
	return pfcp_cataddr(o, cap, k, f->flags & PFCP_ADDR_V4 ? f->ipv4 : NULL,
			    f->flags & PFCP_ADDR_V6 ? f->ipv6 : NULL);
}

/* 8.2.3 F-TEID: flags (V4, V6, CH, CHID); without CH: TEID, IPv4, IPv6; with
 * CH: only the CHOOSE ID when CHID is set (the UP function picks the rest). */
static int fteid_dec(const uint8_t *p, size_t len, void *v, const struct pfcp_ie_desc *d, const char **why)
{
	struct pfcp_fteid *t = v;
	size_t need;

	(void)d;
	if (len < 1)
		return BAD("F-TEID truncated");
	t->flags = p[0] & 0x0f;
	if (!(t->flags & (PFCP_FTEID_V4 | PFCP_FTEID_V6)))
		return INVAL("F-TEID without V4 or V6");
	if (t->flags & PFCP_FTEID_CH) {
		if (!(t->flags & PFCP_FTEID_CHID))
			return 0;
		if (len < 2)
			return BAD("F-TEID CHOOSE ID truncated");
		t->choose_id = p[1];
		return 0;
	}
	t->flags &= (uint8_t)~PFCP_FTEID_CHID;  /* CHID only means something with CH */
	need = 5 + (t->flags & PFCP_FTEID_V4 ? 4 : 0) + (t->flags & PFCP_FTEID_V6 ? 16 : 0);
	if (len < need)
		return BAD("F-TEID truncated");
	t->teid = pfcp_get(p + 1, 4);
	pfcp_get_addrs(p + 5, t->flags & PFCP_FTEID_V4, t->flags & PFCP_FTEID_V6, t->ipv4, t->ipv6);
	return 0;
}

static int fteid_enc(uint8_t *p, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_fteid *t = v;
	bool ch = t->flags & PFCP_FTEID_CH;
	size_t n;

	(void)d;
	if (!(t->flags & (PFCP_FTEID_V4 | PFCP_FTEID_V6)) || t->flags > 0x0f ||
	    (!ch && (t->flags & PFCP_FTEID_CHID)))
		return -EINVAL;
	n = ch ? 1 + !!(t->flags & PFCP_FTEID_CHID) :
		 5 + (t->flags & PFCP_FTEID_V4 ? 4 : 0) + (t->flags & PFCP_FTEID_V6 ? 16 : 0);
	if (cap < n)
		return -ENOSPC;
	p[0] = t->flags;
	if (ch) {
		if (n == 2)
			p[1] = t->choose_id;
		return (int)n;
	}
	pfcp_put(p + 1, t->teid, 4);
	pfcp_put_addrs(p + 5, t->flags & PFCP_FTEID_V4, t->flags & PFCP_FTEID_V6, t->ipv4, t->ipv6);
	return (int)n;
}

static int fteid_str(char *o, size_t cap, const void *v, const struct pfcp_ie_desc *d)
{
	const struct pfcp_fteid *t = v;
	int k;

	(void)d;
	if (t->flags & PFCP_FTEID_CH)
		return pfcp_catf(o, cap, 0, "CHOOSE%s%s id=%u", t->flags & PFCP_FTEID_V4 ? " v4" : "",
				 t->flags & PFCP_FTEID_V6 ? " v6" : "", t->choose_id);
	k = pfcp_catf(o, cap, 0, "teid=0x%x", t->teid);
	return pfcp_cataddr(o, cap, k, t->flags & PFCP_FTEID_V4 ? t->ipv4 : NULL,
			    t->flags & PFCP_FTEID_V6 ? t->ipv6 : NULL);
}

/* ---- the codec of each kind (PFCP_K_GROUP is the walker's own) ---- */
const struct pfcp_codec pfcp_codecs[PFCP_K_COUNT] = {
	[PFCP_K_U8] = { u8_dec, u8_enc, u8_str },
	[PFCP_K_U16] = { u16_dec, u16_enc, u16_str },
	[PFCP_K_U32] = { u32_dec, u32_enc, u32_str },
	[PFCP_K_FLAGS] = { flags_dec, flags_enc, flags_str },
	[PFCP_K_BUF] = { buf_dec, buf_enc, buf_str },
	[PFCP_K_NODE_ID] = { node_dec, node_enc, node_str },
	[PFCP_K_FSEID] = { fseid_dec, fseid_enc, fseid_str },
	[PFCP_K_FTEID] = { fteid_dec, fteid_enc, fteid_str },
	[PFCP_K_UE_IP] = { pfcp_ue_ip_dec, pfcp_ue_ip_enc, pfcp_ue_ip_str },
	[PFCP_K_SDF] = { pfcp_sdf_dec, pfcp_sdf_enc, pfcp_sdf_str },
	[PFCP_K_OHC] = { pfcp_ohc_dec, pfcp_ohc_enc, pfcp_ohc_str },
	[PFCP_K_OHR] = { pfcp_ohr_dec, pfcp_ohr_enc, pfcp_ohr_str },
	[PFCP_K_VOLUME] = { pfcp_vol_dec, pfcp_vol_enc, pfcp_vol_str },
	[PFCP_K_VOLMEAS] = { pfcp_vol_dec, pfcp_vol_enc, pfcp_vol_str },
	[PFCP_K_BITRATE] = { pfcp_br_dec, pfcp_br_enc, pfcp_br_str },
	[PFCP_K_RULE_ID] = { pfcp_rule_id_dec, pfcp_rule_id_enc, pfcp_rule_id_str },
};
