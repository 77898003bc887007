/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP framing: the message header (TS 29.244 7.2.2), the IE TLV header
 * (8.1.1) and the one bounded recursive-descent walker that decodes and
 * encodes a message body or a grouped IE from its table (pfcp_tab.c).
 */
#include <string.h>

#include "common/pfcp/pfcp_int.h"

#define IE_HDR 4            /* type (2), length (2): 8.1.1 */
#define IE_VENDOR 0x8000    /* type bit 16: Enterprise ID follows, 8.1.1 */

static int fail(struct pfcp_err *e, int rc, size_t off, uint16_t ie, uint16_t parent, const char *why)
{
	if (e) {
		e->off = off;
		e->ie = ie;
		e->parent = parent;
		e->reason = why;
	}
	return rc;
}

static const struct pfcp_ie_desc *find(const struct pfcp_grp *g, uint16_t type)
{
	for (unsigned i = 0; i < g->n; i++)
		if (g->ie[i].type == type)
			return &g->ie[i];
	return NULL;
}

/* The value of one IE the table knows into its field (or the next array slot). */
static int ie_dec(const struct pfcp_grp *g, const struct pfcp_ie_desc *d, const uint8_t *p, size_t len,
		  void *out, int depth, size_t base, struct pfcp_err *e)
{
	unsigned n = pfcp_count(out, d);
	const char *why = "bad value";
	void *v;
	int rc;

	if (d->max <= 1 && n)
		return 0;       /* a repeated single IE: the first one counts */
	if (d->max > 1 && n >= d->max)
		return fail(e, -E2BIG, base - IE_HDR, d->type, g->type, "more IEs than the codec holds");
	v = pfcp_val(out, d, n);
	if (d->kind == PFCP_K_GROUP) {
		/* Tables nest no deeper than the spec: a guard, not a wire case. */
		if (depth >= PFCP_NEST_MAX)
			return fail(e, -ELOOP, base - IE_HDR, d->type, g->type, "grouped IE nested too deep");
		memset(v, 0, d->esize);
		rc = pfcp_grp_dec(d->grp, p, len, v, depth + 1, base, e);
	} else {
		rc = pfcp_codecs[d->kind].dec(p, len, v, d, &why);
		if (rc < 0)
			return fail(e, rc, base - IE_HDR, d->type, g->type, why);
	}
	if (rc < 0)
		return rc;
	if (d->max > 1)
		(*((uint8_t *)out + d->cnt_off))++;
	*(uint32_t *)out |= d->bit;
	return 0;
}

/*
 * Walk the IEs of one message body or grouped IE. base is the offset of p in
 * the message, for error offsets. Unknown and unexpected IEs are skipped (7.6.1).
 */
int pfcp_grp_dec(const struct pfcp_grp *g, const uint8_t *p, size_t len, void *out, int depth,
		 size_t base, struct pfcp_err *e)
{
	size_t pos = 0;
	int rc;

	while (pos < len) {
		const struct pfcp_ie_desc *d;
		uint16_t type, ilen;

		if (len - pos < IE_HDR)     /* name the IE when its type is there */
			return fail(e, -EBADMSG, base + pos, len - pos >= 2 ? (uint16_t)pfcp_get(p + pos, 2) : 0,
				    g->type, "IE header truncated");
		type = (uint16_t)pfcp_get(p + pos, 2);
		ilen = (uint16_t)pfcp_get(p + pos + 2, 2);
		if (ilen > len - pos - IE_HDR)
			return fail(e, -EBADMSG, base + pos, type, g->type, "IE length past its container");
		if ((type & IE_VENDOR) && ilen < 2)
			return fail(e, -EBADMSG, base + pos, type, g->type, "vendor IE without Enterprise ID");
		/* TS 29.244 7.6.1: an unknown or unexpected IE (a grouped IE this structure has no
		 * place for, e.g. a PDI inside a PDI) is silently discarded: skipped, never descended
		 * into, so a crafted nesting costs no recursion. */
		d = (type & IE_VENDOR) ? NULL : find(g, type);
		if (d) {
			rc = ie_dec(g, d, p + pos + IE_HDR, ilen, out, depth, base + pos + IE_HDR, e);
			if (rc < 0)
				return rc;
		}
		pos += IE_HDR + (size_t)ilen;
	}
	for (unsigned i = 0; i < g->n; i++)
		if (g->ie[i].mand && !pfcp_count(out, &g->ie[i]))
			return fail(e, -ENOENT, base + len, g->ie[i].type, g->type, "mandatory IE missing");
	return 0;
}

/* One IE: header, value, length patched in. */
static int ie_enc(const struct pfcp_ie_desc *d, const void *v, uint8_t *out, size_t cap, int depth)
{
	int n;

	if (cap < IE_HDR)
		return -ENOSPC;
	if (d->kind == PFCP_K_GROUP)
		n = pfcp_grp_enc(d->grp, v, out + IE_HDR, cap - IE_HDR, depth + 1);
	else
		n = pfcp_codecs[d->kind].enc(out + IE_HDR, cap - IE_HDR, v, d);
	if (n < 0)
		return n;
	if (n > 0xffff)
		return -ERANGE;
	pfcp_put(out, d->type, 2);
	pfcp_put(out + 2, (uint32_t)n, 2);
	return IE_HDR + n;
}

/* IEs in table order (the order of the 7.4 / 7.5 tables). */
int pfcp_grp_enc(const struct pfcp_grp *g, const void *in, uint8_t *out, size_t cap, int depth)
{
	size_t pos = 0;

	if (depth > PFCP_NEST_MAX)
		return -ELOOP;
	for (unsigned i = 0; i < g->n; i++) {
		const struct pfcp_ie_desc *d = &g->ie[i];
		unsigned n = pfcp_count(in, d);

		if (d->mand && !n)
			return -EINVAL;
		if (n > (d->max > 1 ? d->max : 1u))
			return -E2BIG;
		for (unsigned k = 0; k < n; k++) {
			int w = ie_enc(d, pfcp_cval(in, d, k), out + pos, cap - pos, depth);

			if (w < 0)
				return w;
			pos += (size_t)w;
		}
	}
	return pos > 0xffff ? -ERANGE : (int)pos;
}

int pfcp_msg_is_session(uint8_t type)
{
	const struct pfcp_msg_desc *md = pfcp_msg_desc(type);

	return md ? md->session : -ENOMSG;
}

/* Header, 7.2.2.1: version (3 bits), spare, FO, MP, S; type; length; [SEID];
 * sequence (24 bits); message priority (4 bits) or spare. */
static int hdr_dec(const uint8_t *buf, size_t len, struct pfcp_hdr *h, size_t *hlen, size_t *mlen,
		   struct pfcp_err *e)
{
	bool s;

	if (len < IE_HDR)
		return fail(e, -EBADMSG, 0, 0, 0, "header truncated");
	s = buf[0] & 1;
	h->type = buf[1];
	h->fo = buf[0] & 4;
	*hlen = s ? PFCP_HDR_SEID_LEN : PFCP_HDR_LEN;
	*mlen = IE_HDR + pfcp_get(buf + 2, 2);
	if (len >= *hlen && *mlen >= *hlen) {
		h->seid = s ? pfcp_get64(buf + 4, 8) : 0;
		h->seq = pfcp_get(buf + *hlen - 4, 3);
	}
	if (buf[0] >> 5 != PFCP_VERSION)
		return fail(e, -EPROTONOSUPPORT, 0, 0, 0, "PFCP version not supported");
	if (*mlen < *hlen || len < *hlen)
		return fail(e, -EBADMSG, 2, 0, 0, "header truncated");
	if (*mlen > len)
		return fail(e, -EBADMSG, 2, 0, 0, "message length past the datagram");
	if (*mlen < len && !h->fo)
		return fail(e, -EBADMSG, *mlen, 0, 0, "bytes after the message without FO");
	h->has_prio = s && (buf[0] & 2);
	h->prio = h->has_prio ? buf[*hlen - 1] >> 4 : 0;
	return s;
}

int pfcp_decode(const uint8_t *buf, size_t len, struct pfcp_msg *m, struct pfcp_err *err)
{
	const struct pfcp_msg_desc *md;
	size_t hlen = 0, mlen = 0;
	int s, rc;

	memset(&m->h, 0, sizeof(m->h));
	if (err)
		memset(err, 0, sizeof(*err));
	s = hdr_dec(buf, len, &m->h, &hlen, &mlen, err);
	if (s < 0)
		return s;
	md = pfcp_msg_desc(m->h.type);
	if (!md)
		return fail(err, -ENOMSG, 1, 0, 0, "unknown message type");
	if (s != md->session)
		return fail(err, -EPROTO, 0, 0, 0, "S flag wrong for the message type");
	/* only the body this message fills: a Session Modification Request's is
	 * 16 KB, a heartbeat's 200 bytes; fields not on the wire read as 0 */
	memset((void *)&m->node, 0, md->size);
	rc = pfcp_grp_dec(md->body, buf + hlen, mlen - hlen, (void *)&m->node, 0, hlen, err);
	if (rc < 0)
		return rc;
	return (int)mlen;
}

int pfcp_encode(const struct pfcp_msg *m, uint8_t *out, size_t cap)
{
	const struct pfcp_msg_desc *md = pfcp_msg_desc(m->h.type);
	size_t hlen;
	int n;

	if (!md)
		return -ENOMSG;
	if (m->h.seq > PFCP_SEQ_MAX || m->h.prio > 15 || (m->h.has_prio && !md->session))
		return -ERANGE;
	hlen = md->session ? PFCP_HDR_SEID_LEN : PFCP_HDR_LEN;
	if (cap < hlen)
		return -ENOSPC;
	n = pfcp_grp_enc(md->body, (const void *)&m->node, out + hlen, cap - hlen, 0);
	if (n < 0)
		return n;
	if (hlen - IE_HDR + (size_t)n > 0xffff)
		return -ERANGE;
	out[0] = (uint8_t)(PFCP_VERSION << 5 | (m->h.has_prio ? 2 : 0) | md->session);
	out[1] = m->h.type;
	pfcp_put(out + 2, hlen - IE_HDR + (size_t)n, 2);
	if (md->session)
		pfcp_put(out + 4, m->h.seid, 8);
	pfcp_put(out + hlen - 4, m->h.seq, 3);
	out[hlen - 1] = m->h.has_prio ? (uint8_t)(m->h.prio << 4) : 0;
	return (int)hlen + n;
}
