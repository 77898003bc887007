/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP rules (TS 29.244 5.2, 7.5.2.2-7.5.2.6, 7.5.4) onto the one
 * upf_session_rule the XDP program applies per session. What it takes:
 *
 *   uplink PDR    Source Interface Access; F-TEID with CH (we allocate on the
 *                 families asked that we have: V4 and V6 together are answered
 *                 with V4 only without upf.n3_address6, 8.2.3; CHID accepted) or
 *                 an F-TEID on our N3 address(es) with any non-zero TEID (71 for
 *                 0 or another address; 73 + Offending IE F-TEID for one a session
 *                 holds or one we keep: cp2up, forwarding tunnels); Outer
 *                 Header Removal GTP-U/UDP/IPv4, /IPv6 (with
 *                 upf.n3_address6) or /IP; at most one QFI; no SDF filter or a
 *                 match-all one; a UE IP Address (source) if any equal to the
 *                 downlink PDR's
 *   downlink PDR  Source Interface Core; UE IP Address IPv4 in the pool
 *                 and / or an IPv6 /64 in pool6 (8.2.62: V6, no prefix
 *                 delegation bits or 0, prefix length absent or 64); its
 *                 Network Instance (8.2.4) names the DNN (NAT, below);
 *                 no F-TEID, no outer header removal; SDF as above
 *   further UL    Access PDRs on the uplink PDR's F-TEID with selecting SDF
 *                 filters (issue 32): checked and installed by upf_n4_sdf.c, the
 *                 data path's PDR list; Open5GS's up2cp is one of them (the UE's RS
 *                 to the SMF), its cp2up gets our cp2up TEID (the SMF's answer down)
 *   uplink FAR    FORW to Core (or SGi-LAN), no Outer Header Creation
 *   downlink FAR  FORW with Outer Header Creation GTP-U/UDP/IPv4 or
 *                 GTP-U/UDP/IPv6 (with upf.n3_address6) to Access
 *                 -> UPF_DL_ACTIVE toward the gNB tunnel; BUFF (with or
 *                 without NOCP), or FORW without a tunnel yet -> UPF_DL_BUFFER
 *   NAT           decided here, not by the CP (PFCP has no IE for it): the
 *                 DNN the downlink PDR's Network Instance names (or, without
 *                 one or naming none of ours, the one whose pool holds the
 *                 UE IPv4) has nat in our configuration -> rule.nat
 *   QER           up to N4_QER_MAX per session, several per PDR (free5GC: flow
 *                 + session-AMBR): gates open; per direction the smallest MBR of
 *                 the QERs on that direction's PDR is policed; QFI from the QER
 *                 carrying one (two different: refused); a GBR accepted, not
 *                 policed (5.4, 8.2.9)
 *   URR           up to N4_URR_MAX, Measurement Method VOLUM, with or without a
 *                 Volume Threshold / Measurement Period; measured from the
 *                 session's counters and reported at deletion only (7.5.7.2):
 *                 no threshold or periodic report is sent yet; no quota, no time
 *   BAR           accepted; the data path's own buffer bounds apply
 *
 * Anything else -- a second downlink PDR, a second uplink PDR without a
 * selecting SDF filter, what upf_n4_sdf.c refuses, DUPL, IPv6 without pool6 /
 * n3_address6, a prefix other than a /64, Ethernet, N9 / N6 tunnels, UE
 * address allocation in the UP (CHV4) -- is Cause 73 "Rule creation/
 * modification failure" (8.2.1) with the Offending IE, and one log line naming it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "upf/upf_bpf.h"
#include "upf/upf_n4_int.h"

int n4_unsupported(uint16_t ie, uint16_t *off, const char *fmt, ...)
{
	char what[160];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(what, sizeof(what), fmt, ap);
	va_end(ap);
	log_rl(LOGL_WARN, N4_MOD, NULL, "rule not supported (cause 73, offending %s): %s",
	       pfcp_ie_name(ie), what);
	*off = ie;
	return PFCP_CAUSE_RULE_FAILURE;
}

/* IPFilterRule texts (TS 29.212 5.4.2) that select all of a session's traffic. */
static bool sdf_match_all(const struct pfcp_pdi *pdi)
{
	static const char *const all[] = {
		"permit out ip from any to assigned", "permit out ip from any to any",
		"permit out ip from 0.0.0.0/0 to assigned",
	};

	if (!pdi->n_sdf)
		return true;
	if (pdi->n_sdf > 1 || pdi->sdf[0].flags != PFCP_SDF_FD)
		return false;
	for (size_t i = 0; i < sizeof(all) / sizeof(all[0]); i++)
		if (pdi->sdf[0].flow.len == strlen(all[i]) && !memcmp(pdi->sdf[0].flow.p, all[i], strlen(all[i])))
			return true;
	return false;
}

static bool in_pool(const struct upf_n4 *n, uint32_t a)
{
	uint32_t mask = n->p.ue_pool_plen ? ~0u << (32 - n->p.ue_pool_plen) : 0;

	return (ntohl(a) & mask) == (ntohl(n->p.ue_pool_addr) & mask);
}

static bool zero(const uint8_t *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

static bool n3v6(const struct upf_n4 *n)
{
	return !zero(n->p.n3_addr6, 16);
}

/* The first 64 bits (the session's /64) inside ue_pool6 / ue_pool6_plen */
static bool in_pool6(const struct upf_n4 *n, const uint8_t *a)
{
	unsigned bits = n->p.ue_pool6_plen;

	if (!bits || memcmp(a, n->p.ue_pool6, bits / 8))
		return false;
	return bits % 8 == 0 || !((a[bits / 8] ^ n->p.ue_pool6[bits / 8]) & (0xff00 >> (bits % 8)));
}

/* 8.2.4: the Network Instance is an OctetString, "e.g. encoded as a Domain Name or an APN"
 * (TS 23.003 9.1: length-prefixed labels); CP functions send either. As text (dots between
 * labels) into out; 0, or -EINVAL when it does not fit. */
static int ni_text(const struct pfcp_buf *ni, char *out, size_t cap)
{
	size_t i = 0, o = 0;
	bool labels = ni->len > 0;

	/* labels only if they exactly tile the octets */
	while (labels && i < ni->len) {
		if (!ni->p[i] || i + 1 + ni->p[i] > ni->len)
			labels = false;
		else
			i += 1 + ni->p[i];
	}
	if (ni->len >= cap)
		return -EINVAL;
	if (!labels) {
		memcpy(out, ni->p, ni->len);
		out[ni->len] = 0;
		return 0;
	}
	for (i = 0; i < ni->len; i += 1 + ni->p[i]) {
		if (o)
			out[o++] = '.';
		memcpy(out + o, ni->p + i + 1, ni->p[i]);
		o += ni->p[i];
	}
	out[o] = 0;
	return 0;
}

/* NAT is the UPF's decision (its N6 address, its configuration): by the DNN the downlink
 * PDR names (8.2.4), else by the pool of the UE IPv4 address. IPv4 only (upf.h). */
static bool dnn_nat(const struct upf_n4 *n, const struct pfcp_pdi *pdi, uint32_t ue_addr)
{
	char name[256];

	if (!ue_addr)
		return false;
	if ((pdi->has & PFCP_PDI_NI) && !ni_text(&pdi->ni, name, sizeof(name)))
		for (unsigned i = 0; i < n->p.n_dnns; i++)
			if (!strcasecmp(name, n->p.dnns[i].name))
				return n->p.dnns[i].nat;
	for (unsigned i = 0; i < n->p.n_dnns; i++) {
		const struct upf_n4_dnn *d = &n->p.dnns[i];
		uint32_t mask = d->plen ? ~0u << (32 - d->plen) : 0;

		if (d->plen && (ntohl(ue_addr) & mask) == (ntohl(d->pool) & mask))
			return d->nat;
	}
	return false;
}

/* What every PDR must satisfy */
int n4_pdr_common(const struct pfcp_pdr *d, uint16_t *off)
{
	if (d->pdi.n_qfi > 1)
		return n4_unsupported(PFCP_IE_QFI, off, "PDR %u: %u QFIs", d->pdr_id, d->pdi.n_qfi);
	if (!(d->has & PFCP_PDR_FAR_ID))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u without a FAR", d->pdr_id);
	return 0;
}

/* The families of the F-TEID we answer a CHOOSE with. 8.2.3: "both may be set to 1" when
 * the UP function allocates; it answers with the address(es) it has: IPv4 (n3_addr, always
 * set), and IPv6 only with upf.n3_address6. 0 when it has none of those asked for. */
static uint8_t choose_families(const struct upf_n4 *n, uint8_t flags)
{
	uint8_t want = flags & (PFCP_FTEID_V4 | PFCP_FTEID_V6);

	if (!want)
		want = PFCP_FTEID_V4;
	return want & (PFCP_FTEID_V4 | (n3v6(n) ? PFCP_FTEID_V6 : 0));
}

/* A TEID the UP function keeps for itself: the cp2up PDRs' (n4_cp2up_teid) and the indirect
 * forwarding tunnels' (upf.h UPF_FWD_TEID) */
static bool teid_reserved(const struct upf_n4 *n, uint32_t t)
{
	return (t > n->p.max_teid && t - n->p.max_teid <= n->p.max_sessions) ||
	       ((t & UPF_FWD_TEID_BIT) && (t & ~UPF_FWD_TEID_BIT) < n->p.max_sessions);
}

int n4_pdr_ul(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, bool *choose, uint16_t *off)
{
	const struct pfcp_fteid *f = &d->pdi.fteid;
	uint32_t a4 = 0;

	if (!sdf_match_all(&d->pdi))
		return n4_unsupported(PFCP_IE_SDF_FILTER, off, "PDR %u: SDF filter other than match-all", d->pdr_id);
	if (!(d->pdi.has & PFCP_PDI_F_TEID))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "uplink PDR %u without F-TEID", d->pdr_id);
	if (f->flags & PFCP_FTEID_CH) {
		/* 5.5.3, 8.2.3: the UP allocates (upf_n4_sess.c) on the families it has */
		*choose = true;
		s->fteid_flags = choose_families(n, f->flags);
		if (!s->fteid_flags)
			return n4_unsupported(PFCP_IE_F_TEID, off, "uplink F-TEID CHOOSE IPv6 only: no upf.n3_address6 here");
	} else {
		if ((f->flags & PFCP_FTEID_V6) && !n3v6(n))
			return n4_unsupported(PFCP_IE_F_TEID, off, "uplink F-TEID with IPv6: no upf.n3_address6 here");
		if (f->flags & PFCP_FTEID_V4)
			memcpy(&a4, f->ipv4, 4);
		if (((f->flags & PFCP_FTEID_V4) && a4 != n->p.n3_addr) ||
		    ((f->flags & PFCP_FTEID_V6) && memcmp(f->ipv6, n->p.n3_addr6, 16)) || !f->teid) {
			*off = PFCP_IE_F_TEID;
			log_rl(LOGL_WARN, N4_MOD, NULL, "uplink F-TEID %08x/0x%x not ours", ntohl(a4), f->teid);
			return PFCP_CAUSE_INVALID_FTEID_ALLOC;   /* 8.2.1 cause 71 */
		}
		/* 5.5.3.1: the CP allocates; any 32-bit TEID (past max_teid the data path's hash,
		 * upf.h) but one a session holds or one we keep for ourselves: cause 73 (8.2.1, the
		 * rule cannot be created), Offending IE F-TEID; the session's own (an Update PDR
		 * that keeps it, s->r.ul_teid) is no clash */
		if (f->teid != s->r.ul_teid &&
		    (teid_reserved(n, f->teid) || (n->p.upf && upf_teid_taken(n->p.upf, f->teid, UINT32_MAX))))
			return n4_unsupported(PFCP_IE_F_TEID, off, "uplink PDR %u: TEID 0x%x in use", d->pdr_id, f->teid);
		s->r.ul_teid = f->teid;
	}
	/* 8.2.64: GTP-U/UDP/IPv6 removal means the gNB sends over IPv6: our n3_addr6 */
	if (!(d->has & PFCP_PDR_OHR) ||
	    (d->ohr.desc != PFCP_OHR_GTPU_UDP_IPV4 && d->ohr.desc != PFCP_OHR_GTPU_UDP_IP &&
	     (d->ohr.desc != PFCP_OHR_GTPU_UDP_IPV6 || !n3v6(n))))
		return n4_unsupported(PFCP_IE_OUTER_HDR_REMOVAL, off, "uplink PDR %u: no GTP-U/UDP/IPv4%s removal",
				   d->pdr_id, n3v6(n) ? " or /IPv6" : "");
	if (d->pdi.n_qfi)
		s->r.qfi = d->pdi.qfi[0];
	s->ul_pdr = d->pdr_id;
	s->ul_far = d->far_id;
	return 0;
}

int n4_pdr_dl(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, uint16_t *off)
{
	const struct pfcp_ue_ip *ip = &d->pdi.ue_ip;

	if (!sdf_match_all(&d->pdi))
		return n4_unsupported(PFCP_IE_SDF_FILTER, off, "PDR %u: SDF filter other than match-all", d->pdr_id);
	if (!(d->pdi.has & PFCP_PDI_UE_IP) || (ip->flags & (PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6)))
		return n4_unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: no UE IPv4 (UP allocation not "
				   "supported)", d->pdr_id);
	if (!(ip->flags & (PFCP_UEIP_V4 | PFCP_UEIP_V6)))
		return n4_unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: no UE address", d->pdr_id);
	if (ip->flags & PFCP_UEIP_V4) {
		memcpy(&s->r.ue_addr, ip->ipv4, 4);
		if (!in_pool(n, s->r.ue_addr))
			return n4_unsupported(PFCP_IE_UE_IP_ADDRESS, off, "UE address %08x outside the pool",
					   ntohl(s->r.ue_addr));
	}
	if (ip->flags & PFCP_UEIP_V6) {
		/* 8.2.62: without IPv6D the prefix is the default /64 (TS 23.501 5.8.2.2: one /64 per
		 * PDU session); delegation bits 0 and an IPv6 Prefix Length of 64 say the same. Other
		 * lengths (a shorter delegated prefix, a /128) are not what the data path indexes. */
		if (((ip->flags & PFCP_UEIP_V6D) && ip->v6d_bits) ||
		    ((ip->flags & PFCP_UEIP_V6PL) && ip->v6_prefix_len != 64))
			return n4_unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: IPv6 prefix other than /64",
					   d->pdr_id);
		if (!in_pool6(n, ip->ipv6))
			return n4_unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: IPv6 prefix %s", d->pdr_id,
					   n->p.ue_pool6_plen ? "outside pool6" : "but no pool6 here");
		memcpy(s->r.ue_prefix6, ip->ipv6, 8);
	}
	s->r.nat = dnn_nat(n, &d->pdi, s->r.ue_addr);
	if ((d->pdi.has & PFCP_PDI_F_TEID) || (d->has & PFCP_PDR_OHR))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "downlink PDR %u with a tunnel (N9)", d->pdr_id);
	s->dl_pdr = d->pdr_id;
	s->dl_far = d->far_id;
	return 0;
}

/* 8.2.62: the uplink PDR's UE IP Address is the source (S/D 0) the session sends from: the
 * same address and /64 as the downlink PDR's (anti-spoofing checks those). */
int n4_ul_ue_ip(const struct pfcp_ue_ip *ip, const struct n4_sess *s, uint16_t *off)
{
	uint32_t a4 = 0;

	if (ip->flags & PFCP_UEIP_V4)
		memcpy(&a4, ip->ipv4, 4);
	if ((ip->flags & (PFCP_UEIP_SD | PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6)) ||
	    !!(ip->flags & PFCP_UEIP_V4) != !!s->r.ue_addr || a4 != s->r.ue_addr ||
	    !!(ip->flags & PFCP_UEIP_V6) != !zero(s->r.ue_prefix6, 8) ||
	    ((ip->flags & PFCP_UEIP_V6) && memcmp(ip->ipv6, s->r.ue_prefix6, 8)))
		return n4_unsupported(PFCP_IE_UE_IP_ADDRESS, off, "uplink PDR: UE IP Address other than the "
				   "downlink PDR's (as source)");
	return 0;
}

/* The uplink FAR: FORW to Core, or DROP (8.2.26; 5.2.1: the packets of its PDR are dropped,
 * UPF_RULE_DROP in the uplink rule). Apply Action absent (an Update FAR): unchanged. */
int n4_far_ul(const struct pfcp_far *f, struct n4_sess *s, uint16_t *off)
{
	if ((f->has & PFCP_FAR_APPLY) && f->apply != PFCP_AA_FORW && f->apply != PFCP_AA_DROP)
		return n4_unsupported(PFCP_IE_APPLY_ACTION, off, "uplink FAR %u: apply action 0x%x", f->far_id,
				   f->apply);
	if (f->has & PFCP_FAR_APPLY) {
		s->far_drop = (uint8_t)((s->far_drop & ~N4_UL) | (f->apply == PFCP_AA_DROP ? N4_UL : 0));
		n4_drop_sync(s);
	}
	if ((f->fwd.has & PFCP_FWD_OHC) ||
	    ((f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if != PFCP_IF_CORE && f->fwd.dest_if != PFCP_IF_SGI_LAN))
		return n4_unsupported(PFCP_IE_FWD_PARAMS, off, "uplink FAR %u: not plain forwarding to Core",
				   f->far_id);
	return 0;
}

/* The downlink FAR's action and tunnel into r (Create FAR or Update FAR: the
 * fields not present keep their value). */
int n4_far_dl(const struct upf_n4 *n, const struct pfcp_far *f, struct n4_sess *s, uint16_t *off)
{
	uint32_t aa = (f->has & PFCP_FAR_APPLY) ? f->apply : 0;

	/* 8.2.26: one of DROP, FORW, BUFF; NOCP only with BUFF */
	if ((aa & ~(uint32_t)(PFCP_AA_FORW | PFCP_AA_BUFF | PFCP_AA_NOCP | PFCP_AA_DROP)) ||
	    ((aa & PFCP_AA_DROP) && aa != PFCP_AA_DROP) ||
	    (aa & (PFCP_AA_FORW | PFCP_AA_BUFF)) == (PFCP_AA_FORW | PFCP_AA_BUFF))
		return n4_unsupported(PFCP_IE_APPLY_ACTION, off, "downlink FAR %u: apply action 0x%x", f->far_id, aa);
	if (aa) {   /* 5.2.1: DROP drops the PDR's packets (UPF_RULE_DROP in the downlink rule) */
		s->far_drop = (uint8_t)((s->far_drop & ~N4_DL) | (aa == PFCP_AA_DROP ? N4_DL : 0));
		n4_drop_sync(s);
	}
	if (f->has & PFCP_FAR_FWD && f->fwd.has & PFCP_FWD_OHC) {
		const struct pfcp_ohc *o = &f->fwd.ohc;

		/* 8.2.56: GTP-U/UDP/IPv4, or /IPv6 toward an IPv6 gNB (our n3_addr6 as the
		 * source); both set (a dual-stack gNB): IPv4 */
		if (!o->desc || (o->desc & ~(PFCP_OHC_GTPU4 | PFCP_OHC_GTPU6)) ||
		    (o->desc == PFCP_OHC_GTPU6 && (!n3v6(n) || zero(o->ipv6, 16))))
			return n4_unsupported(PFCP_IE_OUTER_HDR_CREATION, off, "downlink FAR %u: outer header 0x%x%s",
					   f->far_id, o->desc, o->desc == PFCP_OHC_GTPU6 ? " (no upf.n3_address6)" : "");
		if ((f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if != PFCP_IF_ACCESS)
			return n4_unsupported(PFCP_IE_DEST_IF, off, "downlink FAR %u: destination %u", f->far_id,
					   f->fwd.dest_if);
		s->r.gnb_addr = 0;
		memset(s->r.gnb_addr6, 0, 16);
		if (o->desc & PFCP_OHC_GTPU4)
			memcpy(&s->r.gnb_addr, o->ipv4, 4);
		else
			memcpy(s->r.gnb_addr6, o->ipv6, 16);
		s->r.gnb_teid = o->teid;
	}
	if (aa & PFCP_AA_BUFF) {
		s->r.dl_state = UPF_DL_BUFFER;
		s->nocp = aa & PFCP_AA_NOCP;
		s->reported = false;
	} else if (aa & PFCP_AA_FORW) {
		/* FORW without a tunnel yet (5.2.1: the SMF completes it later): held */
		s->r.dl_state = s->r.gnb_addr || !zero(s->r.gnb_addr6, 16) ? UPF_DL_ACTIVE : UPF_DL_BUFFER;
		s->nocp = false;
	}
	return 0;
}

/* ---- QERs (7.5.2.5) ---- */

/* One QER's values into q (Create QER, or Update QER: absent fields keep theirs). 5.4 / 8.2.8:
 * the MBR is what the UP function polices; a GBR (8.2.9) is the bit rate reserved for the flow,
 * which a UPF without admission control of its own has nothing to do with: accepted, not policed. */
int n4_qer_take(const struct pfcp_qer *c, struct n4_qer *q, uint16_t *off)
{
	if ((c->has & PFCP_QER_GATE) && c->gate != 0)
		return n4_unsupported(PFCP_IE_GATE_STATUS, off, "QER %u: gate closed", c->qer_id);
	if (c->has & PFCP_QER_MBR) {
		q->mbr_ul_kbps = c->mbr.ul > UINT32_MAX ? UINT32_MAX : (uint32_t)c->mbr.ul;   /* 8.2.8: kbps */
		q->mbr_dl_kbps = c->mbr.dl > UINT32_MAX ? UINT32_MAX : (uint32_t)c->mbr.dl;
	}
	if (c->has & PFCP_QER_QFI) {
		if (c->qfi > 63)
			return n4_unsupported(PFCP_IE_QFI, off, "QER %u: QFI %u", c->qer_id, c->qfi);
		q->qfi = c->qfi;
	}
	return 0;
}

static uint64_t tighter(uint64_t a, uint64_t b)
{
	return !a ? b : !b ? a : a < b ? a : b;
}

/* The session's policing from its QERs. 5.4.1 / 7.5.2.2: every QER a PDR names applies to the
 * packets of that PDR, so a packet under a flow QER and the session-AMBR QER (free5GC) must
 * stay within both MBRs: the smaller one per direction is the one that binds. The QFI comes
 * from the QER carrying one; two different QFIs for one session's flow are refused. */
int n4_qers_apply(struct n4_sess *s, uint16_t *off)
{
	uint64_t ul = 0, dl = 0;
	uint8_t qfi = 0;

	for (unsigned i = 0; i < s->n_qer; i++) {
		const struct n4_qer *q = &s->qers[i];

		if (q->pdrs & N4_UL)
			ul = tighter(ul, q->mbr_ul_kbps * 1000ull);
		if (q->pdrs & N4_DL)
			dl = tighter(dl, q->mbr_dl_kbps * 1000ull);
		if (q->qfi && qfi && q->qfi != qfi && (n4_fail_rule(s, PFCP_RULE_QER, q->id), 1))
			return n4_unsupported(PFCP_IE_CREATE_QER, off, "QER %u: QFI %u where another QER says %u",
					   q->id, q->qfi, qfi);
		if (q->qfi)
			qfi = q->qfi;
	}
	s->r.ambr_ul_bps = ul;
	s->r.ambr_dl_bps = dl;
	if (qfi)
		s->r.qfi = qfi;
	return 0;
}

struct n4_qer *n4_qer_of(struct n4_sess *s, uint32_t id)
{
	for (unsigned i = 0; i < s->n_qer; i++)
		if (s->qers[i].id == id)
			return &s->qers[i];
	return NULL;
}

void n4_fail_rule(struct n4_sess *s, uint8_t type, uint32_t id)
{
	s->failed = true;
	s->fail = (struct pfcp_rule_id){ type, id };
}

/* ---- URRs (7.5.2.4): taken by upf_n4_urr.c ---- */

static const struct pfcp_far *far_find(const struct pfcp_far *f, unsigned nf, uint32_t id)
{
	for (unsigned i = 0; i < nf; i++)
		if (f[i].far_id == id)
			return &f[i];
	return NULL;
}

/* The QER and URR IDs a data path PDR names, into the session's sets (dir N4_UL / N4_DL) */
int n4_pdr_refs(const struct pfcp_pdr *d, uint8_t dir, struct n4_sess *s, uint16_t *off)
{
	for (unsigned i = 0; i < d->n_qer; i++) {
		struct n4_qer *q = n4_qer_of(s, d->qer_id[i]);

		n4_fail_rule(s, PFCP_RULE_QER, d->qer_id[i]);
		if (!q) {
			if (s->n_qer == N4_QER_MAX)
				return n4_unsupported(PFCP_IE_CREATE_QER, off, "more than %u QERs", N4_QER_MAX);
			q = &s->qers[s->n_qer++];
			q->id = d->qer_id[i];
		}
		q->pdrs |= dir;
	}
	for (unsigned i = 0; i < d->n_urr; i++) {
		unsigned k;

		for (k = 0; k < s->n_urr && s->urrs[k].id != d->urr_id[i]; k++)
			;
		n4_fail_rule(s, PFCP_RULE_URR, d->urr_id[i]);
		if (k == s->n_urr) {
			if (s->n_urr == N4_URR_MAX)
				return n4_unsupported(PFCP_IE_CREATE_URR, off, "more than %u URRs", N4_URR_MAX);
			s->urrs[s->n_urr++].id = d->urr_id[i];
		}
		s->urrs[k].pdrs |= dir;
	}
	return 0;
}

/* ---- Open5GS's auxiliary PDRs (its src/smf/context.c, cp/up data forwarding) ----
 *
 * up2cp: Source Interface Access on the uplink PDR's TEID (the same CHOOSE ID, 8.2.3), SDF
 * "permit out 58 from ff02::2/128 to assigned" (the UE's Router Solicitations), its FAR FORW to
 * CP-function with Outer Header Creation toward the SMF. cp2up: Source Interface CP-function
 * with an F-TEID of its own, the downlink FAR (the SMF's Router Advertisements to the UE).
 * Both exist so the SMF can answer the UE's RS. Our UPF answers RSs itself (upf_exc.c, RFC 4861
 * 6.2.6 with the session's /64, TS 23.501 5.8.2.2.2), so the RS never goes to the SMF and the SMF
 * (which sends RAs only in answer to an RS it received) sends nothing on cp2up. Both PDRs are
 * accepted and answered (Created PDR), nothing is installed for them: the cp2up TEID lies above
 * max_teid, outside the data path's uplink array, so a G-PDU sent there anyway gets an Error
 * Indication (TS 29.281 7.3.1) like any unknown TEID. */
static const char up2cp_sdf[] = "permit out 58 from ff02::2/128 to assigned";

static bool is_up2cp(const struct pfcp_pdr *d)
{
	const struct pfcp_sdf *f = &d->pdi.sdf[0];

	return d->pdi.src_if == PFCP_IF_ACCESS && d->pdi.n_sdf == 1 && (f->flags & PFCP_SDF_FD) &&
	       f->flow.len == sizeof(up2cp_sdf) - 1 && !memcmp(f->flow.p, up2cp_sdf, f->flow.len);
}

/* The up2cp PDR's F-TEID is the uplink PDR's: both CHOOSE with the same CHOOSE ID, or both the
 * same CP-given TEID */
static int up2cp_check(const struct pfcp_pdr *ul, const struct pfcp_pdr *d, uint16_t *off)
{
	const struct pfcp_fteid *a = &ul->pdi.fteid, *b = &d->pdi.fteid;
	bool same;

	if (!(d->pdi.has & PFCP_PDI_F_TEID))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "up2cp PDR %u without F-TEID", d->pdr_id);
	if (a->flags & PFCP_FTEID_CH)
		same = (a->flags & b->flags & PFCP_FTEID_CHID) && (b->flags & PFCP_FTEID_CH) &&
		       a->choose_id == b->choose_id;
	else
		same = !(b->flags & PFCP_FTEID_CH) && b->teid == a->teid;
	if (!same)
		return n4_unsupported(PFCP_IE_F_TEID, off, "PDR %u: an Access PDR on another TEID than uplink PDR "
				   "%u's", d->pdr_id, ul->pdr_id);
	return 0;
}

static int up2cp_far_check(const struct pfcp_sess_est_req *e, uint32_t id, uint16_t *off)
{
	const struct pfcp_far *f = far_find(e->far, e->n_far, id);

	if (!f)
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "FAR %u not created", id);
	if (!(f->has & PFCP_FAR_APPLY) || f->apply != PFCP_AA_FORW || !(f->has & PFCP_FAR_FWD) ||
	    !(f->fwd.has & PFCP_FWD_DEST_IF) || f->fwd.dest_if != PFCP_IF_CP || !(f->fwd.has & PFCP_FWD_OHC) ||
	    !(f->fwd.ohc.desc & (PFCP_OHC_GTPU4 | PFCP_OHC_GTPU6)))
		return n4_unsupported(PFCP_IE_FWD_PARAMS, off, "up2cp FAR %u: not FORW to CP-function in GTP-U", id);
	return 0;
}

static int cp2up_take(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, uint16_t *off)
{
	if (!(d->pdi.has & PFCP_PDI_F_TEID) || !(d->pdi.fteid.flags & PFCP_FTEID_CH) ||
	    !sdf_match_all(&d->pdi))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u from CP-function: only with F-TEID CHOOSE "
				   "and no filter", d->pdr_id);
	/* below bit 31: TEIDs with it are the indirect forwarding tunnels' (upf.h UPF_FWD_TEID) */
	if ((uint64_t)n->p.max_teid + n->p.max_sessions >= UPF_FWD_TEID_BIT)
		return n4_unsupported(PFCP_IE_F_TEID, off, "PDR %u from CP-function: no TEID left", d->pdr_id);
	s->cp2up_families = choose_families(n, d->pdi.fteid.flags);
	if (!s->cp2up_families)
		return n4_unsupported(PFCP_IE_F_TEID, off, "PDR %u from CP-function: CHOOSE IPv6 only, no "
				   "upf.n3_address6 here", d->pdr_id);
	s->cp2up_pdr = d->pdr_id;
	return 0;
}

uint32_t n4_cp2up_teid(const struct upf_n4 *n, uint32_t id)
{
	return n->p.max_teid + 1 + id;
}

/* The PDRs: which is uplink, which downlink, which auxiliary */
static int est_pdrs(struct upf_n4 *n, const struct pfcp_sess_est_req *e, struct n4_sess *s, bool *choose,
		    uint16_t *off)
{
	const struct pfcp_pdr *ulp = NULL, *dlp = NULL, *up2cp = NULL, *cp2up = NULL, *xs[UPF_PDR_MAX];
	unsigned n_x = 0, used = 0;
	int rc;

	for (unsigned i = 0; i < e->n_pdr; i++) {
		const struct pfcp_pdr *d = &e->pdr[i];

		n4_fail_rule(s, PFCP_RULE_PDR, d->pdr_id);
		rc = n4_pdr_common(d, off);
		if (rc)
			return rc;
		if (is_up2cp(d) && !up2cp) {
			up2cp = d;
		} else if (d->pdi.src_if == PFCP_IF_ACCESS && !sdf_match_all(&d->pdi)) {
			/* issue 32: another uplink PDR, its SDF filters select (upf_n4_sdf.c), checked
			 * once the uplink PDR is known */
			rc = n_x < UPF_PDR_MAX ? 0 : n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: too many "
								  "uplink PDRs", d->pdr_id);
			if (!rc)
				xs[n_x++] = d;
		} else if (d->pdi.src_if == PFCP_IF_CP && !cp2up) {
			cp2up = d;
			rc = cp2up_take(n, d, s, off);
		} else if (d->pdi.src_if == PFCP_IF_ACCESS && !ulp) {
			ulp = d;
			rc = n4_pdr_ul(n, d, s, choose, off);
			if (!rc)
				rc = n4_pdr_refs(d, N4_UL, s, off);
		} else if (d->pdi.src_if == PFCP_IF_CORE && !dlp) {
			dlp = d;
			rc = n4_pdr_dl(n, d, s, off);
			if (!rc)
				rc = n4_pdr_refs(d, N4_DL, s, off);
		} else {
			rc = n4_unsupported(d->pdi.n_sdf ? PFCP_IE_SDF_FILTER : PFCP_IE_CREATE_PDR, off,
					 "PDR %u: a second PDR of source interface %u", d->pdr_id, d->pdi.src_if);
		}
		if (rc)
			return rc;
	}
	if (!dlp)
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "no downlink PDR (Source Interface Core)");
	if (up2cp) {
		if (!ulp)
			return n4_unsupported(PFCP_IE_SDF_FILTER, off, "PDR %u: an SDF filter that selects without an "
					   "uplink PDR", up2cp->pdr_id);
		if ((rc = up2cp_check(ulp, up2cp, off)) || (rc = up2cp_far_check(e, up2cp->far_id, off)))
			return rc;
		s->up2cp_pdr = up2cp->pdr_id;
		s->up2cp_far = up2cp->far_id;
		if (n_x < UPF_PDR_MAX)
			xs[n_x++] = up2cp;
	}
	for (unsigned i = 0; i < n_x; i++) {   /* on the uplink PDR's F-TEID, filters we take */
		n4_fail_rule(s, PFCP_RULE_PDR, xs[i]->pdr_id);
		if (!ulp)
			return n4_unsupported(PFCP_IE_SDF_FILTER, off, "PDR %u: an SDF filter that selects without an "
					   "uplink PDR", xs[i]->pdr_id);
		if ((rc = up2cp_check(ulp, xs[i], off)) || (rc = n4_sdf_check(e, xs[i], &used, off)))
			return rc;
	}
	if (cp2up && cp2up->far_id != dlp->far_id)
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u from CP-function: FAR %u is not the downlink "
				   "FAR", cp2up->pdr_id, cp2up->far_id);
	return ulp && (ulp->pdi.has & PFCP_PDI_UE_IP) ? n4_ul_ue_ip(&ulp->pdi.ue_ip, s, off) : 0;
}

/* Every Create QER / URR the data path PDRs name, taken; those no PDR names (or only an
 * auxiliary one) are checked and otherwise unused */
static int est_qers_urrs(struct upf_n4 *n, const struct pfcp_sess_est_req *e, struct n4_sess *s, uint16_t *off)
{
	int rc;

	for (unsigned i = 0; i < s->n_qer; i++) {
		unsigned k;

		n4_fail_rule(s, PFCP_RULE_QER, s->qers[i].id);
		for (k = 0; k < e->n_qer && e->qer[k].qer_id != s->qers[i].id; k++)
			;
		if (k == e->n_qer)
			return n4_unsupported(PFCP_IE_CREATE_PDR, off, "QER %u not created", s->qers[i].id);
		if ((rc = n4_qer_take(&e->qer[k], &s->qers[i], off)))
			return rc;
	}
	for (unsigned k = 0; k < e->n_qer; k++) {
		struct n4_qer scratch = { 0 };

		n4_fail_rule(s, PFCP_RULE_QER, e->qer[k].qer_id);
		if (!n4_qer_of(s, e->qer[k].qer_id) && (rc = n4_qer_take(&e->qer[k], &scratch, off)))
			return rc;
	}
	for (unsigned i = 0; i < s->n_urr; i++) {
		unsigned k;

		n4_fail_rule(s, PFCP_RULE_URR, s->urrs[i].id);
		for (k = 0; k < e->n_urr && e->urr[k].urr_id != s->urrs[i].id; k++)
			;
		if (k == e->n_urr)
			return n4_unsupported(PFCP_IE_CREATE_PDR, off, "URR %u not created", s->urrs[i].id);
		if ((rc = n4_urr_take(n, &e->urr[k], &s->urrs[i], true, off)))
			return rc;
	}
	for (unsigned k = 0; k < e->n_urr; k++) {   /* those no PDR names: checked */
		struct n4_urr scratch = { 0 };

		n4_fail_rule(s, PFCP_RULE_URR, e->urr[k].urr_id);
		if ((rc = n4_urr_take(n, &e->urr[k], &scratch, true, off)))
			return rc;
	}
	return n4_qers_apply(s, off);
}

int n4_rules_from_est(struct upf_n4 *n, const struct pfcp_sess_est_req *e, struct n4_sess *s,
		      bool *choose, uint16_t *off)
{
	const struct pfcp_far *f;
	int rc;

	*choose = false;
	rc = est_pdrs(n, e, s, choose, off);
	if (rc)
		return rc;
	if (s->ul_pdr) {
		n4_fail_rule(s, PFCP_RULE_FAR, s->ul_far);
		f = far_find(e->far, e->n_far, s->ul_far);
		rc = f ? n4_far_ul(f, s, off) : n4_unsupported(PFCP_IE_CREATE_PDR, off, "FAR %u not created", s->ul_far);
		if (rc)
			return rc;
	}
	n4_fail_rule(s, PFCP_RULE_FAR, s->dl_far);
	f = far_find(e->far, e->n_far, s->dl_far);
	if (!f || !(f->has & PFCP_FAR_APPLY))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "FAR %u not created", s->dl_far);
	s->r.dl_state = UPF_DL_BUFFER;
	rc = n4_far_dl(n, f, s, off);
	if (rc)
		return rc;
	if ((rc = est_qers_urrs(n, e, s, off)))
		return rc;
	s->failed = false;
	return 0;
}
