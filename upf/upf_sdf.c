/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * upf_sdf.c - uplink PDRs with selecting SDF filters (issue 32; TS 29.244 5.2.1, 8.2.5): a
 * session whose uplink has more than its one PDR gets UPF_RULE_SDF in its rule slot and a PDR
 * list in ul_pdrs{session id} (upf/upf_bpf.h), which the program matches in precedence order
 * before the direct path; a session of the common shape has neither and pays one flag test.
 * Here: the IPFilterRule parser (TS 29.212 5.4.2), the list writer, and the user-space end of
 * a FAR to the CP function (the packet goes on in a G-PDU to the CP's GTP-U address).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "common/log.h"
#include "upf/upf_int.h"
#include "upf/upf.skel.h"

#define MOD "upf"

int upf_sdf_setup(struct upf *u)
{
	int rc = bpf_map__set_max_entries(u->skel->maps.ul_pdrs, u->p.max_sessions);

	u->pdrs_fd = -1;
	return rc;
}

void upf_sdf_mapped(struct upf *u)
{
	u->pdrs_fd = bpf_map__fd(u->skel->maps.ul_pdrs);
}

/* ---- IPFilterRule (TS 29.212 5.4.2, RFC 6733 4.3.3): "permit out PROTO from SRC [PORTS] to DST
 * [PORTS]", PROTO "ip" or a number, an address "any", "assigned" (the UE's, which the source
 * check of the direct path enforces: any here) or an IPv4 / IPv6 address with an optional
 * /length, PORTS one port or one range lo-hi. Negation, port lists and options are refused. */

struct sdf_side {
	uint32_t a[4], m[4];
	uint16_t lo, hi;
	int fam;               /* UPF_SDF_V4, UPF_SDF_V6, 0: any */
	bool ports;
};

static int next_tok(const char **p, const char *end, char *out, size_t n)
{
	size_t k = 0;

	while (*p < end && **p == ' ')
		(*p)++;
	while (*p < end && **p != ' ' && k + 1 < n)
		out[k++] = *(*p)++;
	out[k] = 0;
	if (*p < end && **p != ' ')
		return -EINVAL;   /* a token longer than any we know */
	return k ? 0 : -ENOENT;
}

static void mask_of(uint32_t m[4], unsigned len)
{
	for (int i = 0; i < 4; i++, len = len > 32 ? len - 32 : 0)
		m[i] = len >= 32 ? 0xffffffffu : len ? htonl(~0u << (32 - len)) : 0;
}

static int parse_addr(const char *t, struct sdf_side *s)
{
	char a[64];
	const char *slash = strchr(t, '/');
	unsigned long len;
	char *e;

	memset(s, 0, sizeof(*s));
	if (!strcmp(t, "any") || !strcmp(t, "assigned"))
		return 0;
	if ((size_t)(slash ? slash - t : (long)strlen(t)) >= sizeof(a))
		return -EINVAL;
	snprintf(a, sizeof(a), "%.*s", (int)(slash ? slash - t : (long)strlen(t)), t);
	if (inet_pton(AF_INET, a, &s->a[0]) == 1)
		s->fam = UPF_SDF_V4;
	else if (inet_pton(AF_INET6, a, s->a) == 1)
		s->fam = UPF_SDF_V6;
	else
		return -EINVAL;
	len = s->fam == UPF_SDF_V4 ? 32 : 128;
	if (slash) {
		len = strtoul(slash + 1, &e, 10);
		if (!slash[1] || *e || len > (s->fam == UPF_SDF_V4 ? 32u : 128u))
			return -EINVAL;
	}
	mask_of(s->m, (unsigned)len);
	for (int i = 0; i < 4; i++)
		s->a[i] &= s->m[i];
	return 0;
}

static int parse_ports(const char *t, struct sdf_side *s)
{
	unsigned long lo, hi;
	char *e;

	lo = strtoul(t, &e, 10);
	hi = lo;
	if (*e == '-')
		hi = strtoul(e + 1, &e, 10);
	if (*e || lo > hi || hi > 65535)
		return -EINVAL;   /* a list "p1,p2", or not a port */
	s->lo = (uint16_t)lo;
	s->hi = (uint16_t)hi;
	s->ports = true;
	return 0;
}

/* One side: an address, then ports if the next token is a number. *t holds the token after. */
static int parse_side(const char **p, const char *end, struct sdf_side *s, char *t, size_t n)
{
	int rc = parse_addr(t, s);

	if (rc)
		return rc;
	s->lo = 0;
	s->hi = 65535;
	rc = next_tok(p, end, t, n);
	if (rc == -ENOENT) {
		t[0] = 0;
		return 0;
	}
	if (rc)
		return rc;
	if (t[0] >= '0' && t[0] <= '9') {
		if ((rc = parse_ports(t, s)))
			return rc;
		rc = next_tok(p, end, t, n);
		if (rc == -ENOENT)
			t[0] = 0;
		else if (rc)
			return rc;
	}
	return 0;
}

int upf_sdf_parse(const char *text, size_t len, struct upf_pdr *out)
{
	const char *p = text, *end = text + len;
	struct sdf_side from, to;
	char t[80];
	unsigned long proto = 0;
	char *e;

	memset(out, 0, sizeof(*out));
	if (next_tok(&p, end, t, sizeof(t)) || strcmp(t, "permit") || next_tok(&p, end, t, sizeof(t)) ||
	    strcmp(t, "out") || next_tok(&p, end, t, sizeof(t)))
		return -EINVAL;
	if (strcmp(t, "ip")) {
		proto = strtoul(t, &e, 10);
		if (*e || proto > 255)
			return -EINVAL;
	}
	if (next_tok(&p, end, t, sizeof(t)) || strcmp(t, "from") || next_tok(&p, end, t, sizeof(t)) ||
	    parse_side(&p, end, &from, t, sizeof(t)) || strcmp(t, "to") || next_tok(&p, end, t, sizeof(t)) ||
	    parse_side(&p, end, &to, t, sizeof(t)) || t[0])
		return -EINVAL;   /* t[0]: options after the rule (frag, established ...) */
	if (from.fam && to.fam && from.fam != to.fam)
		return -EINVAL;
	if ((from.ports || to.ports) && proto != 6 && proto != 17 && proto != 132)
		return -EINVAL;   /* ports of a protocol without them */
	/* Uplink: the UE ("to") is the packet's source, the remote ("from") its destination
	 * (TS 29.212 5.4.2: the rule is written in the downlink direction). */
	out->proto = (uint8_t)proto;
	out->flags = (from.fam | to.fam) ? (uint8_t)(from.fam | to.fam) : UPF_SDF_V4 | UPF_SDF_V6;
	if (from.ports || to.ports)
		out->flags |= UPF_SDF_PORTS;
	memcpy(out->src, to.a, 16);
	memcpy(out->smask, to.m, 16);
	memcpy(out->dst, from.a, 16);
	memcpy(out->dmask, from.m, 16);
	out->sport_lo = to.lo;
	out->sport_hi = to.hi;
	out->dport_lo = from.lo;
	out->dport_hi = from.hi;
	return 0;
}

/* ---- the list ---- */

/* The session's own uplink PDR as entries: its UE address and / or /64 as the source filter. */
static unsigned main_entries(const struct upf_session_rule *r, struct upf_pdr *e)
{
	unsigned n = 0;

	if (r->ue_addr) {
		memset(&e[n], 0, sizeof(e[n]));
		e[n].flags = UPF_SDF_V4;
		e[n].src[0] = r->ue_addr;
		e[n++].smask[0] = 0xffffffffu;
	}
	if (upf_prefix6_hi(r->ue_prefix6)) {
		memset(&e[n], 0, sizeof(e[n]));
		e[n].flags = UPF_SDF_V6;
		memcpy(e[n].src, r->ue_prefix6, 8);
		e[n].smask[0] = e[n].smask[1] = 0xffffffffu;
		n++;
	}
	return n;
}

static int pdr_entry(const struct upf_ul_pdr *d, struct upf_pdr *e)
{
	int rc = d->flow ? upf_sdf_parse(d->flow, d->flow_len, e) : 0;

	if (rc)
		return rc;
	if (!d->flow) {
		memset(e, 0, sizeof(*e));
		e->flags = UPF_SDF_V4 | UPF_SDF_V6;
	}
	if (d->action != UPF_PDR_FORW && d->action != UPF_PDR_DROP && d->action != UPF_PDR_TO_CP)
		return -EINVAL;
	if (d->action == UPF_PDR_TO_CP && !d->cp_addr)
		return -EINVAL;
	e->action = d->action;
	if (d->has_tos) {
		e->flags |= UPF_SDF_TOS;
		e->tos = d->tos & d->tos_mask;
		e->tos_mask = d->tos_mask;
	}
	if (d->has_flow_label) {
		if (d->flow_label > 0xfffff)
			return -EINVAL;
		e->flags = (uint8_t)((e->flags & ~UPF_SDF_V4) | UPF_SDF_FL);   /* IPv6 only */
		e->fl = d->flow_label;
	}
	e->cp_addr = d->cp_addr;
	e->cp_teid = htonl(d->cp_teid);
	return 0;
}

int upf_session_pdrs(struct upf *u, uint32_t id, uint32_t main_precedence, const struct upf_ul_pdr *pdrs,
		     unsigned n)
{
	struct upf_pdr_list l = { 0 };
	struct upf_pdr mains[2];
	unsigned nm;
	int rc;

	if (u->remote)
		return -EOPNOTSUPP;
	if (id >= u->p.max_sessions)
		return -ERANGE;
	if (!u->sess[id].used)
		return -ENOENT;
	if (!n) {
		upf_sdf_gone(u, id);
		return 0;
	}
	nm = main_entries(&u->sess[id].r, mains);
	if (n + nm > UPF_PDR_MAX)
		return -E2BIG;
	/* Precedence order (8.2.11: the lowest value first), stable; the session's own PDR (k ==
	 * n) before the others of its value. Insertion: n is small. */
	unsigned ord[UPF_PDR_MAX + 1];

	for (unsigned i = 0; i <= n; i++) {
		unsigned k = i;
		uint32_t pi = i < n ? pdrs[i].precedence : main_precedence;

		while (k > 0) {
			unsigned o = ord[k - 1];
			uint32_t po = o < n ? pdrs[o].precedence : main_precedence;

			if (po < pi || (po == pi && (o == n || i != n)))
				break;
			ord[k] = o;
			k--;
		}
		ord[k] = i;
	}
	for (unsigned i = 0; i <= n; i++) {
		if (ord[i] == n) {
			memcpy(&l.p[l.n], mains, nm * sizeof(mains[0]));
			l.n += nm;
		} else if ((rc = pdr_entry(&pdrs[ord[i]], &l.p[l.n++]))) {
			return rc;
		}
	}
	if (bpf_map_update_elem(u->pdrs_fd, &id, &l, BPF_ANY))
		return -errno;
	if (!u->sess[id].sdf) {
		u->sess[id].sdf = true;
		upf_ul_republish(u, id);
	}
	return 0;
}

void upf_sdf_gone(struct upf *u, uint32_t id)
{
	u->sess[id].cp2up_from = 0;
	if (!u->sess[id].sdf)
		return;
	/* The flag first: no packet looks for the list once it is gone. */
	u->sess[id].sdf = false;
	if (u->sess[id].used)
		upf_ul_republish(u, id);
	bpf_map_delete_elem(u->pdrs_fd, &id);
}

/* A packet that matched entry idx of session id's list, a FAR to the CP function (Open5GS's
 * up2cp: the UE's Router Solicitation for the SMF): sent on in a G-PDU from our N3 address to
 * the CP's GTP-U address and TEID (the FAR's Outer Header Creation, TS 29.244 8.2.56), with the
 * session's QFI in a PDU Session Container. */
void upf_sdf_to_cp(struct upf *u, uint32_t id, uint32_t idx, const uint8_t *pkt, size_t len)
{
	struct upf_pdr_list l;
	struct upf_session_rule r = { 0 };

	if (!u->sess[id].used || !u->sess[id].sdf || bpf_map_lookup_elem(u->pdrs_fd, &id, &l) ||
	    idx >= l.n || idx >= UPF_PDR_MAX || l.p[idx].action != UPF_PDR_TO_CP) {
		UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		return;
	}
	r.gnb_addr = l.p[idx].cp_addr;
	r.gnb_teid = ntohl(l.p[idx].cp_teid);
	r.qfi = u->sess[id].r.qfi;
	if (upf_exc_send_dl(u, &r, pkt, len))
		log_rl(LOGL_WARN, MOD, NULL, "session=%u: packet to the CP function not sent", id);
}

/* ---- cp2up ---- */

int upf_session_cp2up(struct upf *u, uint32_t id, uint32_t cp_addr)
{
	if (u->remote)
		return -EOPNOTSUPP;
	if (id >= u->p.max_sessions)
		return -ERANGE;
	if (!u->sess[id].used)
		return -ENOENT;
	u->sess[id].cp2up_from = cp_addr;
	return 0;
}

uint32_t upf_cp2up_teid(const struct upf *u, uint32_t id)
{
	return (uint32_t)u->ul_n + id;
}

bool upf_sdf_cp2up(struct upf *u, uint32_t teid, const uint8_t *m, size_t len, uint32_t from_v4)
{
	uint32_t id = teid - (uint32_t)u->ul_n;
	size_t off = 8;
	struct upf_sess *s;

	if (teid < u->ul_n || id >= u->p.max_sessions)
		return false;
	s = &u->sess[id];
	/* Only from the CP the session names: anyone else's G-PDU is an unknown TEID's. */
	if (!s->used || !s->cp2up_from || from_v4 != s->cp2up_from)
		return false;
	/* TS 29.281 5.1 / 5.2: the optional fields and the extension header chain */
	if (m[0] & 0x07) {
		uint8_t next;

		if (len < 12)
			goto bad;
		next = (m[0] & 0x04) ? m[11] : 0;
		off = 12;
		while (next) {
			size_t el;

			if (off + 4 > len || !m[off])
				goto bad;
			el = (size_t)m[off] * 4;
			if (off + el > len)
				goto bad;
			next = m[off + el - 1];
			off += el;
		}
	}
	if (off + 20 > len)
		goto bad;
	if (s->r.dl_state != UPF_DL_ACTIVE || upf_exc_send_dl(u, &s->r, m + off, len - off)) {
		UPF_USTAT(u, UPF_STAT_BUF_DROPPED)++;
		return true;
	}
	return true;
bad:
	UPF_USTAT(u, UPF_STAT_SOCK_BAD)++;
	return true;
}
