/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * 5GSM and text information elements (TS 24.501 9.11.4, 9.11.2.1B,
 * 9.11.3.35): session-AMBR, PDU address, DNN, network name, QoS rules, QoS
 * flow descriptions, extended protocol configuration options.
 */
#include "common/nas/nas_int.h"

#include <stdio.h>
#include <string.h>

/* ---- 9.11.4.14 Session-AMBR ---- */

int nas_ambr_dec(const uint8_t *v, size_t n, struct nas_session_ambr *a, struct nas_err *e)
{
	if (n != 6)
		return nas_fail(e, 0, -EBADMSG, "session-AMBR: length is not 6");
	a->dl_unit = v[0];
	a->dl = (uint16_t)(v[1] << 8 | v[2]);
	a->ul_unit = v[3];
	a->ul = (uint16_t)(v[4] << 8 | v[5]);
	if (!a->dl_unit || !a->ul_unit)
		return nas_fail(e, a->dl_unit ? 3 : 0, -ERANGE, "session-AMBR: unit value 0 is not used");
	return 0;
}

int nas_ambr_enc(const struct nas_session_ambr *a, uint8_t *out, size_t cap)
{
	if (cap < 6)
		return -ENOSPC;
	out[0] = a->dl_unit;
	out[1] = (uint8_t)(a->dl >> 8);
	out[2] = (uint8_t)a->dl;
	out[3] = a->ul_unit;
	out[4] = (uint8_t)(a->ul >> 8);
	out[5] = (uint8_t)a->ul;
	return 6;
}

uint64_t nas_ambr_kbps(uint8_t unit, uint16_t value)
{
	/* 9.11.4.14: units 1..5 = 1, 4, 16, 64, 256 kbps; 6..10 the same in Mbps;
	 * 11..15 Gbps; 16..20 Tbps; 21..25 Pbps (decimal prefixes) */
	uint64_t k = 1;

	if (unit < 1 || unit > 25)
		return 0;
	for (unsigned i = 0; i < (unit - 1u) / 5; i++)
		k *= 1000;
	return (uint64_t)value * k << (2 * ((unit - 1u) % 5));
}

int nas_ambr_to_str(const struct nas_session_ambr *a, char *buf, size_t sz)
{
	return snprintf(buf, sz, "{dl=%llukbps ul=%llukbps}", (unsigned long long)nas_ambr_kbps(a->dl_unit, a->dl),
			(unsigned long long)nas_ambr_kbps(a->ul_unit, a->ul));
}

/* ---- 9.11.4.10 PDU address ---- */

int nas_pdu_address_dec(const uint8_t *v, size_t n, struct nas_pdu_address *a, struct nas_err *e)
{
	size_t need;

	memset(a, 0, sizeof(*a));
	if (n < 1)
		return nas_fail(e, 0, -EBADMSG, "PDU address: empty");
	a->type = v[0] & 7;
	a->si6lla = (v[0] >> 3) & 1;
	switch (a->type) {
	case NAS_PDU_IPV4: need = 5; break;
	case NAS_PDU_IPV6: need = 9; break;
	case NAS_PDU_IPV4V6: need = 13; break;
	default: return nas_fail(e, 0, -ERANGE, "PDU address: type is not IPv4, IPv6 or IPv4v6");
	}
	if (n != need + (a->si6lla ? 16 : 0))
		return nas_fail(e, 0, -EBADMSG, "PDU address: length does not match its type");
	if (a->type == NAS_PDU_IPV4)
		memcpy(a->ipv4, v + 1, 4);
	if (a->type != NAS_PDU_IPV4)
		memcpy(a->ipv6_iid, v + 1, 8);
	if (a->type == NAS_PDU_IPV4V6)          /* IPv6 interface identifier first, then IPv4 */
		memcpy(a->ipv4, v + 9, 4);
	if (a->si6lla)
		memcpy(a->smf_ll6, v + need, 16);
	return 0;
}

int nas_pdu_address_enc(const struct nas_pdu_address *a, uint8_t *out, size_t cap)
{
	size_t n = a->type == NAS_PDU_IPV4 ? 5 : a->type == NAS_PDU_IPV6 ? 9 : a->type == NAS_PDU_IPV4V6 ? 13 : 0;

	if (!n)
		return -EINVAL;
	if (cap < n + (a->si6lla ? 16 : 0))
		return -ENOSPC;
	out[0] = (uint8_t)((a->si6lla ? 8 : 0) | a->type);
	if (a->type == NAS_PDU_IPV4)
		memcpy(out + 1, a->ipv4, 4);
	else
		memcpy(out + 1, a->ipv6_iid, 8);
	if (a->type == NAS_PDU_IPV4V6)
		memcpy(out + 9, a->ipv4, 4);
	if (a->si6lla) {
		memcpy(out + n, a->smf_ll6, 16);
		n += 16;
	}
	return (int)n;
}

int nas_pdu_address_to_str(const struct nas_pdu_address *a, char *buf, size_t sz)
{
	int pos = 0;

	if (a->type != NAS_PDU_IPV6)
		nas_sappend(buf, sz, &pos, "ipv4=%u.%u.%u.%u", a->ipv4[0], a->ipv4[1], a->ipv4[2], a->ipv4[3]);
	if (a->type != NAS_PDU_IPV4) {
		nas_sappend(buf, sz, &pos, "%siid=", a->type == NAS_PDU_IPV4V6 ? " " : "");
		nas_shex(buf, sz, &pos, a->ipv6_iid, 8);
	}
	return pos;
}

/* ---- 9.11.2.1B DNN: APN labels, TS 23.003 9.1 ---- */

int nas_dnn_to_str(const struct nas_buf *dnn, char *buf, size_t sz)
{
	int pos = 0;
	size_t off = 0;

	if (sz)
		buf[0] = 0;
	while (off < dnn->len) {
		size_t l = dnn->p[off];
		if (l == 0 || off + 1 + l > dnn->len)
			return -EBADMSG;
		nas_sappend(buf, sz, &pos, "%s%.*s", off ? "." : "", (int)l, (const char *)dnn->p + off + 1);
		off += 1 + l;
	}
	return pos;
}

int nas_dnn_enc(const char *dotted, uint8_t *out, size_t cap)
{
	size_t n = strlen(dotted), off = 0;
	const char *s = dotted;

	if (n == 0 || n > 99)           /* 9.11.2.1B: DNN value up to 100 octets */
		return -EINVAL;
	if (cap < n + 1)
		return -ENOSPC;
	while (*s) {
		const char *dot = strchr(s, '.');
		size_t l = dot ? (size_t)(dot - s) : strlen(s);
		if (l == 0 || l > 63)
			return -EINVAL;
		out[off] = (uint8_t)l;
		memcpy(out + off + 1, s, l);
		off += 1 + l;
		s += l + (dot ? 1 : 0);
		if (dot && !*s)
			return -EINVAL;
	}
	return (int)off;
}

/* ---- 9.11.3.35 network name (TS 24.008 10.5.3.5a) ---- */

int nas_network_name_dec(const uint8_t *v, size_t n, struct nas_network_name *nn, struct nas_err *e)
{
	if (n < 1)
		return nas_fail(e, 0, -EBADMSG, "network name: empty");
	nn->coding = (v[0] >> 4) & 7;
	nn->add_ci = (v[0] >> 3) & 1;
	nn->spare_bits = v[0] & 7;
	nn->text = (struct nas_buf){ v + 1, (uint16_t)(n - 1) };
	if (nn->coding > 1)
		return nas_fail(e, 0, -ERANGE, "network name: reserved coding scheme");
	return 0;
}

int nas_network_name_enc(const struct nas_network_name *nn, uint8_t *out, size_t cap)
{
	if (nn->text.len && !nn->text.p)
		return -EINVAL;
	if (cap < 1u + nn->text.len)
		return -ENOSPC;
	out[0] = (uint8_t)(0x80 | (nn->coding & 7) << 4 | (nn->add_ci ? 8 : 0) | (nn->spare_bits & 7));
	if (nn->text.len)
		memcpy(out + 1, nn->text.p, nn->text.len);
	return 1 + nn->text.len;
}

/* GSM 03.38 default alphabet: the ASCII letters, digits, space and most
 * punctuation have the same code; these differ. */
static uint8_t gsm7_from_ascii(char c)
{
	switch (c) {
	case '@': return 0x00;
	case '$': return 0x02;
	case '_': return 0x11;
	case '`': case '[': case '\\': case ']': case '^': case '{': case '|': case '}': case '~':
		return '?';
	default: return (uint8_t)c >= 0x20 && (uint8_t)c < 0x7f ? (uint8_t)c : '?';
	}
}

static char gsm7_to_ascii(uint8_t g)
{
	switch (g) {
	case 0x00: return '@';
	case 0x02: return '$';
	case 0x11: return '_';
	default: return g >= 0x20 && g < 0x7f ? (char)g : '?';
	}
}

int nas_network_name_set_ascii(struct nas_network_name *nn, const char *ascii, uint8_t *text_buf, size_t cap)
{
	size_t nc = strlen(ascii), bits = nc * 7, nb = (bits + 7) / 8;

	if (nc == 0)
		return -EINVAL;
	if (cap < nb)
		return -ENOSPC;
	memset(text_buf, 0, nb);
	for (size_t i = 0; i < nc; i++) {       /* septets packed LSB first (TS 23.038 6.1.2.1.1) */
		unsigned g = gsm7_from_ascii(ascii[i]), bit = (unsigned)(i * 7);
		text_buf[bit / 8] |= (uint8_t)(g << (bit % 8));
		if (bit % 8 > 1)
			text_buf[bit / 8 + 1] |= (uint8_t)(g >> (8 - bit % 8));
	}
	nn->coding = 0;
	nn->add_ci = 0;
	nn->spare_bits = (uint8_t)(nb * 8 - bits);
	nn->text = (struct nas_buf){ text_buf, (uint16_t)nb };
	return (int)nb;
}

int nas_network_name_to_str(const struct nas_network_name *nn, char *buf, size_t sz)
{
	int pos = 0;

	if (nn->coding != 0) {
		nas_sappend(buf, sz, &pos, "ucs2:");
		nas_shex(buf, sz, &pos, nn->text.p, nn->text.len);
		return pos;
	}
	size_t nchars = nn->text.len * 8u >= nn->spare_bits ? (nn->text.len * 8u - nn->spare_bits) / 7 : 0;
	nas_sappend(buf, sz, &pos, "\"");
	for (size_t i = 0; i < nchars; i++) {
		size_t bit = i * 7;
		unsigned g = nn->text.p[bit / 8] >> (bit % 8);
		if (bit % 8 > 1 && bit / 8 + 1 < nn->text.len)
			g |= (unsigned)nn->text.p[bit / 8 + 1] << (8 - bit % 8);
		nas_sappend(buf, sz, &pos, "%c", gsm7_to_ascii((uint8_t)(g & 0x7f)));
	}
	nas_sappend(buf, sz, &pos, "\"");
	return pos;
}

/* ---- 9.11.4.13 QoS rules ---- */

static int qos_rule_dec(const uint8_t *v, size_t n, struct nas_qos_rule *q, struct nas_err *e)
{
	size_t off = 1;

	if (n < 1)
		return nas_fail(e, 0, -EBADMSG, "QoS rule: empty");
	q->op = v[0] >> 5;
	q->dqr = (v[0] >> 4) & 1;
	q->n_filters = v[0] & 0xf;
	if (q->op == 0 || q->op == 7)
		return nas_fail(e, 0, -ERANGE, "QoS rule: reserved rule operation code");
	for (unsigned i = 0; i < q->n_filters; i++) {
		struct nas_pkt_filter *f = &q->f[i];
		if (off >= n)
			return nas_fail(e, off, -EBADMSG, "QoS rule: packet filter list truncated");
		f->dir = (v[off] >> 4) & 3;
		f->id = v[off] & 0xf;
		if (q->op == NAS_QOS_RULE_DELETE_FILTERS) {     /* identifiers only */
			f->contents = (struct nas_buf){ 0 };
			off++;
			continue;
		}
		if (off + 2 > n || off + 2 + v[off + 1] > n)
			return nas_fail(e, off, -EBADMSG, "QoS rule: packet filter truncated");
		f->contents = (struct nas_buf){ v + off + 2, v[off + 1] };
		off += 2u + v[off + 1];
	}
	q->has_prec_qfi = 0;
	if (off < n) {                  /* absent for "delete existing QoS rule" */
		if (off + 2 != n)
			return nas_fail(e, off, -EBADMSG, "QoS rule: length does not match its contents");
		q->has_prec_qfi = 1;
		q->precedence = v[off];
		q->segregation = (v[off + 1] >> 6) & 1;
		q->qfi = v[off + 1] & 0x3f;
	}
	return 0;
}

int nas_qos_rules_dec(const uint8_t *v, size_t n, struct nas_qos_rules *r, struct nas_err *e)
{
	size_t off = 0;

	r->n = 0;
	while (off < n) {
		size_t l;
		int rc;
		if (off + 3 > n)
			return nas_fail(e, off, -EBADMSG, "QoS rules: rule header truncated");
		l = (size_t)v[off + 1] << 8 | v[off + 2];
		if (off + 3 + l > n)
			return nas_fail(e, off + 1, -EBADMSG, "QoS rules: rule length exceeds the IE");
		if (r->n >= NAS_QOS_RULES_MAX)
			return nas_fail(e, off, -E2BIG, "QoS rules: more than NAS_QOS_RULES_MAX rules");
		r->r[r->n].id = v[off];
		rc = qos_rule_dec(v + off + 3, l, &r->r[r->n], e);
		if (rc < 0) {
			if (e)
				e->off += off + 3;
			return rc;
		}
		r->n++;
		off += 3 + l;
	}
	return 0;
}

int nas_qos_rules_enc(const struct nas_qos_rules *r, uint8_t *out, size_t cap)
{
	size_t off = 0;

	if (r->n > NAS_QOS_RULES_MAX)
		return -E2BIG;
	for (unsigned i = 0; i < r->n; i++) {
		const struct nas_qos_rule *q = &r->r[i];
		size_t start = off;
		if (q->n_filters > NAS_QOS_FILTERS_MAX || q->op == 0 || q->op > 6)
			return -EINVAL;
		if (cap - off < 4)
			return -ENOSPC;
		out[off] = q->id;
		off += 3;
		out[off++] = (uint8_t)(q->op << 5 | (q->dqr ? 0x10 : 0) | q->n_filters);
		for (unsigned k = 0; k < q->n_filters; k++) {
			const struct nas_pkt_filter *f = &q->f[k];
			size_t need = q->op == NAS_QOS_RULE_DELETE_FILTERS ? 1 : 2u + f->contents.len;
			if (cap - off < need)
				return -ENOSPC;
			out[off] = (uint8_t)((f->dir & 3) << 4 | (f->id & 0xf));
			if (q->op != NAS_QOS_RULE_DELETE_FILTERS) {
				if (f->contents.len > 255 || (f->contents.len && !f->contents.p))
					return -EINVAL;
				out[off + 1] = (uint8_t)f->contents.len;
				if (f->contents.len)
					memcpy(out + off + 2, f->contents.p, f->contents.len);
			}
			off += need;
		}
		if (q->has_prec_qfi) {
			if (cap - off < 2)
				return -ENOSPC;
			out[off] = q->precedence;
			out[off + 1] = (uint8_t)((q->segregation ? 0x40 : 0) | (q->qfi & 0x3f));
			off += 2;
		}
		size_t l = off - start - 3;
		out[start + 1] = (uint8_t)(l >> 8);
		out[start + 2] = (uint8_t)l;
	}
	return (int)off;
}

int nas_qos_rules_to_str(const struct nas_qos_rules *r, char *buf, size_t sz)
{
	int pos = 0;

	nas_sappend(buf, sz, &pos, "[");
	for (unsigned i = 0; i < r->n; i++) {
		const struct nas_qos_rule *q = &r->r[i];
		nas_sappend(buf, sz, &pos, "%s{id=%u op=%u dqr=%u filters=%u", i ? "," : "", q->id, q->op, q->dqr,
			    q->n_filters);
		if (q->has_prec_qfi)
			nas_sappend(buf, sz, &pos, " prec=%u qfi=%u", q->precedence, q->qfi);
		nas_sappend(buf, sz, &pos, "}");
	}
	nas_sappend(buf, sz, &pos, "]");
	return pos;
}

/* ---- 9.11.4.12 QoS flow descriptions ---- */

int nas_qos_flows_dec(const uint8_t *v, size_t n, struct nas_qos_flows *fl, struct nas_err *e)
{
	size_t off = 0;

	fl->n = 0;
	while (off < n) {
		struct nas_qos_flow *f;
		if (off + 3 > n)
			return nas_fail(e, off, -EBADMSG, "QoS flow description: truncated");
		if (fl->n >= NAS_QOS_FLOWS_MAX)
			return nas_fail(e, off, -E2BIG, "QoS flow descriptions: more than NAS_QOS_FLOWS_MAX");
		f = &fl->f[fl->n];
		f->qfi = v[off] & 0x3f;
		f->op = v[off + 1] >> 5;
		f->e = (v[off + 2] >> 6) & 1;
		f->n = v[off + 2] & 0x3f;
		if (f->n > NAS_QOS_PARAMS_MAX)
			return nas_fail(e, off + 2, -E2BIG, "QoS flow description: more than NAS_QOS_PARAMS_MAX parameters");
		off += 3;
		for (unsigned i = 0; i < f->n; i++) {
			if (off + 2 > n || off + 2 + v[off + 1] > n)
				return nas_fail(e, off, -EBADMSG, "QoS flow description: parameter truncated");
			f->p[i].id = v[off];
			f->p[i].v = (struct nas_buf){ v + off + 2, v[off + 1] };
			off += 2u + v[off + 1];
		}
		fl->n++;
	}
	return 0;
}

int nas_qos_flows_enc(const struct nas_qos_flows *fl, uint8_t *out, size_t cap)
{
	size_t off = 0;

	if (fl->n > NAS_QOS_FLOWS_MAX)
		return -E2BIG;
	for (unsigned i = 0; i < fl->n; i++) {
		const struct nas_qos_flow *f = &fl->f[i];
		if (f->n > NAS_QOS_PARAMS_MAX)
			return -E2BIG;
		if (cap - off < 3)
			return -ENOSPC;
		out[off] = f->qfi & 0x3f;
		out[off + 1] = (uint8_t)((f->op & 7) << 5);
		out[off + 2] = (uint8_t)((f->e ? 0x40 : 0) | f->n);
		off += 3;
		for (unsigned k = 0; k < f->n; k++) {
			const struct nas_qos_param *p = &f->p[k];
			if (p->v.len > 255 || (p->v.len && !p->v.p))
				return -EINVAL;
			if (cap - off < 2u + p->v.len)
				return -ENOSPC;
			out[off] = p->id;
			out[off + 1] = (uint8_t)p->v.len;
			if (p->v.len)
				memcpy(out + off + 2, p->v.p, p->v.len);
			off += 2u + p->v.len;
		}
	}
	return (int)off;
}

int nas_qos_flows_to_str(const struct nas_qos_flows *fl, char *buf, size_t sz)
{
	int pos = 0;

	nas_sappend(buf, sz, &pos, "[");
	for (unsigned i = 0; i < fl->n; i++) {
		const struct nas_qos_flow *f = &fl->f[i];
		nas_sappend(buf, sz, &pos, "%s{qfi=%u op=%u", i ? "," : "", f->qfi, f->op);
		for (unsigned k = 0; k < f->n; k++) {
			nas_sappend(buf, sz, &pos, " p%u=", f->p[k].id);
			nas_shex(buf, sz, &pos, f->p[k].v.p, f->p[k].v.len);
		}
		nas_sappend(buf, sz, &pos, "}");
	}
	nas_sappend(buf, sz, &pos, "]");
	return pos;
}

/* ---- 9.11.4.6 extended PCO (TS 24.008 10.5.6.3 contents) ---- */

int nas_pco_dec(const uint8_t *v, size_t n, struct nas_pco *p, struct nas_err *e)
{
	size_t off = 1;

	p->n = 0;
	if (n < 1)
		return nas_fail(e, 0, -EBADMSG, "ePCO: empty");
	p->octet3 = v[0];
	if (!(v[0] & 0x80) || (v[0] & 7) != 0)
		return nas_fail(e, 0, -ERANGE, "ePCO: configuration protocol is not PPP (0)");
	while (off < n) {
		if (off + 3 > n || off + 3 + v[off + 2] > n)
			return nas_fail(e, off, -EBADMSG, "ePCO: container truncated");
		if (p->n >= NAS_PCO_MAX)
			return nas_fail(e, off, -E2BIG, "ePCO: more than NAS_PCO_MAX containers");
		p->it[p->n].id = (uint16_t)(v[off] << 8 | v[off + 1]);
		p->it[p->n].v = (struct nas_buf){ v + off + 3, v[off + 2] };
		p->n++;
		off += 3u + v[off + 2];
	}
	return 0;
}

int nas_pco_enc(const struct nas_pco *p, uint8_t *out, size_t cap)
{
	size_t off = 1;

	if (p->n > NAS_PCO_MAX)
		return -E2BIG;
	if (cap < 1)
		return -ENOSPC;
	out[0] = p->octet3 ? p->octet3 : 0x80;
	for (unsigned i = 0; i < p->n; i++) {
		const struct nas_pco_item *it = &p->it[i];
		if (it->v.len > 255 || (it->v.len && !it->v.p))
			return -EINVAL;
		if (cap - off < 3u + it->v.len)
			return -ENOSPC;
		out[off] = (uint8_t)(it->id >> 8);
		out[off + 1] = (uint8_t)it->id;
		out[off + 2] = (uint8_t)it->v.len;
		if (it->v.len)
			memcpy(out + off + 3, it->v.p, it->v.len);
		off += 3u + it->v.len;
	}
	return (int)off;
}

const struct nas_pco_item *nas_pco_find(const struct nas_pco *p, uint16_t id)
{
	for (unsigned i = 0; i < p->n; i++)
		if (p->it[i].id == id)
			return &p->it[i];
	return NULL;
}

int nas_pco_add(struct nas_pco *p, uint16_t id, const uint8_t *v, uint16_t len)
{
	if (p->n >= NAS_PCO_MAX)
		return -E2BIG;
	if (len > 255)
		return -EINVAL;
	p->it[p->n].id = id;
	p->it[p->n].v = (struct nas_buf){ v, len };
	p->n++;
	return 0;
}

int nas_pco_to_str(const struct nas_pco *p, char *buf, size_t sz)
{
	int pos = 0;

	nas_sappend(buf, sz, &pos, "[");
	for (unsigned i = 0; i < p->n; i++) {
		const struct nas_pco_item *it = &p->it[i];
		nas_sappend(buf, sz, &pos, "%s%04x", i ? "," : "", it->id);
		if (it->id == NAS_PCO_DNS_IPV4 && it->v.len == 4)
			nas_sappend(buf, sz, &pos, "=dns4:%u.%u.%u.%u", it->v.p[0], it->v.p[1], it->v.p[2], it->v.p[3]);
		else if (it->id == NAS_PCO_IPV4_LINK_MTU && it->v.len == 2)
			nas_sappend(buf, sz, &pos, "=mtu:%u", it->v.p[0] << 8 | it->v.p[1]);
		else if (it->v.len) {
			nas_sappend(buf, sz, &pos, "=");
			nas_shex(buf, sz, &pos, it->v.p, it->v.len);
		}
	}
	nas_sappend(buf, sz, &pos, "]");
	return pos;
}
