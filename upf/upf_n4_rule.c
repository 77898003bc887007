/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP rules (TS 29.244 5.2, 7.5.2.2-7.5.2.6, 7.5.4) onto the one
 * upf_session_rule the XDP program applies per session. What it takes:
 *
 *   uplink PDR    Source Interface Access; F-TEID with CH (we allocate, V4
 *                 and / or V6) or an F-TEID on our N3 address(es) with a
 *                 TEID in range; Outer Header Removal GTP-U/UDP/IPv4, /IPv6
 *                 (with upf.n3_address6) or /IP; at most one QFI; no SDF
 *                 filter or a match-all one; a UE IP Address (source) if
 *                 any equal to the downlink PDR's
 *   downlink PDR  Source Interface Core; UE IP Address IPv4 in the pool
 *                 and / or an IPv6 /64 in pool6 (8.2.62: V6, no prefix
 *                 delegation bits or 0, prefix length absent or 64); its
 *                 Network Instance (8.2.4) names the DNN (NAT, below);
 *                 no F-TEID, no outer header removal; SDF as above
 *   uplink FAR    FORW to Core (or SGi-LAN), no Outer Header Creation
 *   downlink FAR  FORW with Outer Header Creation GTP-U/UDP/IPv4 or
 *                 GTP-U/UDP/IPv6 (with upf.n3_address6) to Access
 *                 -> UPF_DL_ACTIVE toward the gNB tunnel; BUFF (with or
 *                 without NOCP), or FORW without a tunnel yet -> UPF_DL_BUFFER
 *   NAT           decided here, not by the CP (PFCP has no IE for it): the
 *                 DNN the downlink PDR's Network Instance names (or, without
 *                 one or naming none of ours, the one whose pool holds the
 *                 UE IPv4) has nat in our configuration -> rule.nat
 *   QER           one for the session: gates open, MBR -> session-AMBR,
 *                 QFI -> the QFI of the PDU Session Container; no GBR
 *   URR           one, Measurement Method VOLUM, no threshold / quota /
 *                 period (the usage is reported at deletion, 7.5.7.2)
 *   BAR           accepted; the data path's own buffer bounds apply
 *
 * Anything else -- a second uplink or downlink PDR, an SDF filter that
 * selects traffic, DUPL / DROP, IPv6 without pool6 / n3_address6, a prefix
 * other than a /64, Ethernet, N9 / N6 tunnels, UE address allocation in the
 * UP (CHV4) -- is Cause 73 "Rule creation/modification failure" (8.2.1)
 * with the Offending IE, and one log line naming it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

static int unsupported(uint16_t ie, uint16_t *off, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int unsupported(uint16_t ie, uint16_t *off, const char *fmt, ...)
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

/* What both PDRs must satisfy */
static int pdr_common(const struct pfcp_pdr *d, uint16_t *off)
{
	if (!sdf_match_all(&d->pdi))
		return unsupported(PFCP_IE_SDF_FILTER, off, "PDR %u: SDF filter other than match-all", d->pdr_id);
	if (d->pdi.n_qfi > 1)
		return unsupported(PFCP_IE_QFI, off, "PDR %u: %u QFIs", d->pdr_id, d->pdi.n_qfi);
	if (d->n_urr > 1 || d->n_qer > 1)
		return unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: several URRs or QERs", d->pdr_id);
	if (!(d->has & PFCP_PDR_FAR_ID))
		return unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u without a FAR", d->pdr_id);
	return 0;
}

static int pdr_ul(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, bool *choose, uint16_t *off)
{
	const struct pfcp_fteid *f = &d->pdi.fteid;
	uint32_t a4 = 0;

	if (!(d->pdi.has & PFCP_PDI_F_TEID))
		return unsupported(PFCP_IE_CREATE_PDR, off, "uplink PDR %u without F-TEID", d->pdr_id);
	if ((f->flags & PFCP_FTEID_V6) && !n3v6(n))
		return unsupported(PFCP_IE_F_TEID, off, "uplink F-TEID with IPv6: no upf.n3_address6 here");
	if (f->flags & PFCP_FTEID_CH) {
		/* 5.5.3, 8.2.3: the UP allocates (TEID = session id + 1) on the families asked */
		*choose = true;
		s->fteid_flags = f->flags & (PFCP_FTEID_V4 | PFCP_FTEID_V6);
		if (!s->fteid_flags)
			s->fteid_flags = PFCP_FTEID_V4;
	} else {
		if (f->flags & PFCP_FTEID_V4)
			memcpy(&a4, f->ipv4, 4);
		if (((f->flags & PFCP_FTEID_V4) && a4 != n->p.n3_addr) ||
		    ((f->flags & PFCP_FTEID_V6) && memcmp(f->ipv6, n->p.n3_addr6, 16)) || !f->teid ||
		    f->teid > n->p.max_teid) {
			*off = PFCP_IE_F_TEID;
			log_rl(LOGL_WARN, N4_MOD, NULL, "uplink F-TEID %08x/0x%x not ours", ntohl(a4), f->teid);
			return PFCP_CAUSE_INVALID_FTEID_ALLOC;   /* 8.2.1 cause 71 */
		}
		s->r.ul_teid = f->teid;
	}
	/* 8.2.64: GTP-U/UDP/IPv6 removal means the gNB sends over IPv6: our n3_addr6 */
	if (!(d->has & PFCP_PDR_OHR) ||
	    (d->ohr.desc != PFCP_OHR_GTPU_UDP_IPV4 && d->ohr.desc != PFCP_OHR_GTPU_UDP_IP &&
	     (d->ohr.desc != PFCP_OHR_GTPU_UDP_IPV6 || !n3v6(n))))
		return unsupported(PFCP_IE_OUTER_HDR_REMOVAL, off, "uplink PDR %u: no GTP-U/UDP/IPv4%s removal",
				   d->pdr_id, n3v6(n) ? " or /IPv6" : "");
	if (d->pdi.n_qfi)
		s->r.qfi = d->pdi.qfi[0];
	s->ul_pdr = d->pdr_id;
	s->ul_far = d->far_id;
	return 0;
}

static int pdr_dl(struct upf_n4 *n, const struct pfcp_pdr *d, struct n4_sess *s, uint16_t *off)
{
	const struct pfcp_ue_ip *ip = &d->pdi.ue_ip;

	if (!(d->pdi.has & PFCP_PDI_UE_IP) || (ip->flags & (PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6)))
		return unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: no UE IPv4 (UP allocation not "
				   "supported)", d->pdr_id);
	if (!(ip->flags & (PFCP_UEIP_V4 | PFCP_UEIP_V6)))
		return unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: no UE address", d->pdr_id);
	if (ip->flags & PFCP_UEIP_V4) {
		memcpy(&s->r.ue_addr, ip->ipv4, 4);
		if (!in_pool(n, s->r.ue_addr))
			return unsupported(PFCP_IE_UE_IP_ADDRESS, off, "UE address %08x outside the pool",
					   ntohl(s->r.ue_addr));
	}
	if (ip->flags & PFCP_UEIP_V6) {
		/* 8.2.62: without IPv6D the prefix is the default /64 (TS 23.501 5.8.2.2: one /64 per
		 * PDU session); delegation bits 0 and an IPv6 Prefix Length of 64 say the same. Other
		 * lengths (a shorter delegated prefix, a /128) are not what the data path indexes. */
		if (((ip->flags & PFCP_UEIP_V6D) && ip->v6d_bits) ||
		    ((ip->flags & PFCP_UEIP_V6PL) && ip->v6_prefix_len != 64))
			return unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: IPv6 prefix other than /64",
					   d->pdr_id);
		if (!in_pool6(n, ip->ipv6))
			return unsupported(PFCP_IE_UE_IP_ADDRESS, off, "downlink PDR %u: IPv6 prefix %s", d->pdr_id,
					   n->p.ue_pool6_plen ? "outside pool6" : "but no pool6 here");
		memcpy(s->r.ue_prefix6, ip->ipv6, 8);
	}
	s->r.nat = dnn_nat(n, &d->pdi, s->r.ue_addr);
	if ((d->pdi.has & PFCP_PDI_F_TEID) || (d->has & PFCP_PDR_OHR))
		return unsupported(PFCP_IE_CREATE_PDR, off, "downlink PDR %u with a tunnel (N9)", d->pdr_id);
	s->dl_pdr = d->pdr_id;
	s->dl_far = d->far_id;
	return 0;
}

/* 8.2.62: the uplink PDR's UE IP Address is the source (S/D 0) the session sends from: the
 * same address and /64 as the downlink PDR's (anti-spoofing checks those). */
static int ul_ue_ip(const struct pfcp_ue_ip *ip, const struct n4_sess *s, uint16_t *off)
{
	uint32_t a4 = 0;

	if (ip->flags & PFCP_UEIP_V4)
		memcpy(&a4, ip->ipv4, 4);
	if ((ip->flags & (PFCP_UEIP_SD | PFCP_UEIP_CHV4 | PFCP_UEIP_CHV6)) ||
	    !!(ip->flags & PFCP_UEIP_V4) != !!s->r.ue_addr || a4 != s->r.ue_addr ||
	    !!(ip->flags & PFCP_UEIP_V6) != !zero(s->r.ue_prefix6, 8) ||
	    ((ip->flags & PFCP_UEIP_V6) && memcmp(ip->ipv6, s->r.ue_prefix6, 8)))
		return unsupported(PFCP_IE_UE_IP_ADDRESS, off, "uplink PDR: UE IP Address other than the "
				   "downlink PDR's (as source)");
	return 0;
}

static int far_ul(const struct pfcp_far *f, uint16_t *off)
{
	if ((f->has & PFCP_FAR_APPLY) && f->apply != PFCP_AA_FORW)
		return unsupported(PFCP_IE_APPLY_ACTION, off, "uplink FAR %u: apply action 0x%x", f->far_id,
				   f->apply);
	if ((f->fwd.has & PFCP_FWD_OHC) ||
	    ((f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if != PFCP_IF_CORE && f->fwd.dest_if != PFCP_IF_SGI_LAN))
		return unsupported(PFCP_IE_FWD_PARAMS, off, "uplink FAR %u: not plain forwarding to Core",
				   f->far_id);
	return 0;
}

/* The downlink FAR's action and tunnel into r (Create FAR or Update FAR: the
 * fields not present keep their value). */
static int far_dl(const struct upf_n4 *n, const struct pfcp_far *f, struct n4_sess *s, uint16_t *off)
{
	uint32_t aa = (f->has & PFCP_FAR_APPLY) ? f->apply : 0;

	if (aa & ~(uint32_t)(PFCP_AA_FORW | PFCP_AA_BUFF | PFCP_AA_NOCP) ||
	    (aa & (PFCP_AA_FORW | PFCP_AA_BUFF)) == (PFCP_AA_FORW | PFCP_AA_BUFF))
		return unsupported(PFCP_IE_APPLY_ACTION, off, "downlink FAR %u: apply action 0x%x", f->far_id, aa);
	if (f->has & PFCP_FAR_FWD && f->fwd.has & PFCP_FWD_OHC) {
		const struct pfcp_ohc *o = &f->fwd.ohc;

		/* 8.2.56: GTP-U/UDP/IPv4, or /IPv6 toward an IPv6 gNB (our n3_addr6 as the
		 * source); both set (a dual-stack gNB): IPv4 */
		if (!o->desc || (o->desc & ~(PFCP_OHC_GTPU4 | PFCP_OHC_GTPU6)) ||
		    (o->desc == PFCP_OHC_GTPU6 && (!n3v6(n) || zero(o->ipv6, 16))))
			return unsupported(PFCP_IE_OUTER_HDR_CREATION, off, "downlink FAR %u: outer header 0x%x%s",
					   f->far_id, o->desc, o->desc == PFCP_OHC_GTPU6 ? " (no upf.n3_address6)" : "");
		if ((f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if != PFCP_IF_ACCESS)
			return unsupported(PFCP_IE_DEST_IF, off, "downlink FAR %u: destination %u", f->far_id,
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

static int qer_apply(const struct pfcp_qer *q, struct n4_sess *s, uint16_t *off)
{
	if ((q->has & PFCP_QER_GATE) && q->gate != 0)
		return unsupported(PFCP_IE_GATE_STATUS, off, "QER %u: gate closed", q->qer_id);
	if (q->has & PFCP_QER_GBR)
		return unsupported(PFCP_IE_GBR, off, "QER %u: GBR", q->qer_id);
	if (q->has & PFCP_QER_MBR) {
		s->r.ambr_ul_bps = q->mbr.ul * 1000;   /* 8.2.8: kbps */
		s->r.ambr_dl_bps = q->mbr.dl * 1000;
	}
	if (q->has & PFCP_QER_QFI) {
		if (q->qfi > 63)
			return unsupported(PFCP_IE_QFI, off, "QER %u: QFI %u", q->qer_id, q->qfi);
		s->r.qfi = q->qfi;
	}
	return 0;
}

static int urr_check(const struct pfcp_urr *u, struct n4_sess *s, uint16_t *off)
{
	if (u->method != PFCP_MM_VOLUM ||
	    (u->has & (PFCP_URR_PERIOD | PFCP_URR_VOL_THRESH | PFCP_URR_VOL_QUOTA | PFCP_URR_TIME_THRESH |
		       PFCP_URR_TIME_QUOTA)))
		return unsupported(PFCP_IE_CREATE_URR, off, "URR %u: only volume reported at deletion",
				   u->urr_id);
	s->urr = u->urr_id;
	s->urr_volume = true;
	return 0;
}

static const struct pfcp_far *far_find(const struct pfcp_far *f, unsigned nf, uint32_t id)
{
	for (unsigned i = 0; i < nf; i++)
		if (f[i].far_id == id)
			return &f[i];
	return NULL;
}

/* The PDRs: which is uplink, which downlink */
static int est_pdrs(struct upf_n4 *n, const struct pfcp_sess_est_req *e, struct n4_sess *s, bool *choose,
		    uint16_t *off, uint32_t *qer)
{
	const struct pfcp_pdr *ulp = NULL;
	bool dl = false;
	int rc;

	for (unsigned i = 0; i < e->n_pdr; i++) {
		const struct pfcp_pdr *d = &e->pdr[i];

		rc = pdr_common(d, off);
		if (rc)
			return rc;
		if (d->n_qer && *qer && d->qer_id[0] != *qer)
			return unsupported(PFCP_IE_CREATE_QER, off, "a QER per PDR");
		if (d->n_qer)
			*qer = d->qer_id[0];
		if (d->n_urr && s->urr && d->urr_id[0] != s->urr)
			return unsupported(PFCP_IE_CREATE_URR, off, "a URR per PDR");
		if (d->n_urr)
			s->urr = d->urr_id[0];
		if (d->pdi.src_if == PFCP_IF_ACCESS && !ulp) {
			ulp = d;
			rc = pdr_ul(n, d, s, choose, off);
		} else if (d->pdi.src_if == PFCP_IF_CORE && !dl) {
			dl = true;
			rc = pdr_dl(n, d, s, off);
		} else {
			rc = unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: a second PDR of source interface %u",
					 d->pdr_id, d->pdi.src_if);
		}
		if (rc)
			return rc;
	}
	if (!dl)
		return unsupported(PFCP_IE_CREATE_PDR, off, "no downlink PDR (Source Interface Core)");
	return ulp && (ulp->pdi.has & PFCP_PDI_UE_IP) ? ul_ue_ip(&ulp->pdi.ue_ip, s, off) : 0;
}

int n4_rules_from_est(struct upf_n4 *n, const struct pfcp_sess_est_req *e, struct n4_sess *s,
		      bool *choose, uint16_t *off)
{
	const struct pfcp_far *f;
	uint32_t qer = 0, urr;
	int rc;

	*choose = false;
	rc = est_pdrs(n, e, s, choose, off, &qer);
	if (rc)
		return rc;
	if (s->ul_pdr) {
		f = far_find(e->far, e->n_far, s->ul_far);
		rc = f ? far_ul(f, off) : unsupported(PFCP_IE_CREATE_PDR, off, "FAR %u not created", s->ul_far);
		if (rc)
			return rc;
	}
	f = far_find(e->far, e->n_far, s->dl_far);
	if (!f || !(f->has & PFCP_FAR_APPLY))
		return unsupported(PFCP_IE_CREATE_PDR, off, "FAR %u not created", s->dl_far);
	s->r.dl_state = UPF_DL_BUFFER;
	rc = far_dl(n, f, s, off);
	if (rc)
		return rc;
	if (e->n_qer > 1 || (e->n_qer && e->qer[0].qer_id != qer && qer))
		return unsupported(PFCP_IE_CREATE_QER, off, "%u QERs", e->n_qer);
	if (e->n_qer && (rc = qer_apply(&e->qer[0], s, off)))
		return rc;
	s->qer = e->n_qer ? e->qer[0].qer_id : 0;
	urr = s->urr;
	s->urr = 0;
	if (e->n_urr > 1)
		return unsupported(PFCP_IE_CREATE_URR, off, "%u URRs", e->n_urr);
	if (e->n_urr && (rc = urr_check(&e->urr[0], s, off)))
		return rc;
	if (urr && urr != s->urr)
		return unsupported(PFCP_IE_CREATE_PDR, off, "URR %u not created", urr);
	return 0;
}

/* Session Modification: Update FAR (the downlink tunnel or BUFF <-> FORW: the
 * service request, AN release and handover paths, TS 23.502 4.2.3.2, 4.2.6,
 * 4.9.1) and Update QER; other changes of the rule set are refused. */
int n4_rules_update(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *s, uint16_t *off)
{
	int rc;

	if (m->n_rm_pdr || m->n_rm_far || m->n_rm_urr || m->n_rm_qer || m->n_pdr || m->n_far || m->n_urr ||
	    m->n_qer || m->n_upd_pdr || m->n_upd_urr) {
		uint16_t ie = m->n_pdr ? PFCP_IE_CREATE_PDR : m->n_far ? PFCP_IE_CREATE_FAR :
			      m->n_upd_pdr ? PFCP_IE_UPDATE_PDR : m->n_rm_pdr ? PFCP_IE_REMOVE_PDR :
			      m->n_upd_urr ? PFCP_IE_UPDATE_URR : PFCP_IE_REMOVE_FAR;

		return unsupported(ie, off, "modification other than Update FAR / Update QER");
	}
	for (unsigned i = 0; i < m->n_upd_far; i++) {
		const struct pfcp_far *f = &m->upd_far[i];

		if (f->far_id == s->dl_far)
			rc = far_dl(n, f, s, off);
		else if (f->far_id == s->ul_far && s->ul_pdr)
			rc = (f->has & PFCP_FAR_APPLY) || (f->has & PFCP_FAR_FWD) ? far_ul(f, off) : 0;
		else
			rc = unsupported(PFCP_IE_UPDATE_FAR, off, "FAR %u unknown", f->far_id);
		if (rc)
			return rc;
	}
	for (unsigned i = 0; i < m->n_upd_qer; i++) {
		if (m->upd_qer[i].qer_id != s->qer || !s->qer)
			return unsupported(PFCP_IE_UPDATE_QER, off, "QER %u unknown", m->upd_qer[i].qer_id);
		rc = qer_apply(&m->upd_qer[i], s, off);
		if (rc)
			return rc;
	}
	return 0;
}
