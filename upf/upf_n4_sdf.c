/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * PFCP uplink PDRs with selecting SDF filters (issue 32; TS 29.244 5.2.1, 7.5.2.2, 8.2.5) onto
 * the data path's PDR list (upf.h upf_session_pdrs): besides the session's uplink PDR, more
 * PDRs of Source Interface Access on the same F-TEID, each with SDF filters (Flow Description
 * as an IPFilterRule, ToS / Traffic Class, Flow Label; the SDF Filter ID is accepted and not
 * needed) and its FAR: FORW to Core / SGi-LAN, DROP, or FORW to CP-function with Outer Header
 * Creation GTP-U/UDP/IPv4 (Open5GS's up2cp: the UE's Router Solicitation to the SMF). Matched in
 * precedence order with the uplink PDR (its UE IP Address is its filter), first match wins.
 * What is not taken -- a Security Parameter Index, a filter the parser refuses (negation, port
 * lists, options), more than the data path's UPF_PDR_MAX entries, another FAR action -- is
 * Cause 73 with the Offending IE (upf/README.md).
 */
#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "upf/upf_int.h"
#include "upf/upf_n4_int.h"

static int refused(uint16_t ie, uint16_t *off, uint16_t pdr, const char *what)
{
	log_rl(LOGL_WARN, N4_MOD, NULL, "rule not supported (cause 73, offending %s): PDR %u: %s",
	       pfcp_ie_name(ie), pdr, what);
	*off = ie;
	return PFCP_CAUSE_RULE_FAILURE;
}

static const struct pfcp_far *far_of(const struct pfcp_sess_est_req *e, uint32_t id)
{
	for (unsigned i = 0; i < e->n_far; i++)
		if (e->far[i].far_id == id)
			return &e->far[i];
	return NULL;
}

/* The data path's action for a FAR (7.5.2.3, 8.2.26), or -1 */
static int far_action(const struct pfcp_far *f, uint32_t *cp_addr, uint32_t *cp_teid)
{
	if (!f || !(f->has & PFCP_FAR_APPLY))
		return -1;
	if (f->apply == PFCP_AA_DROP)
		return UPF_PDR_DROP;
	if (f->apply != PFCP_AA_FORW || !(f->has & PFCP_FAR_FWD) || !(f->fwd.has & PFCP_FWD_DEST_IF))
		return -1;
	if ((f->fwd.dest_if == PFCP_IF_CORE || f->fwd.dest_if == PFCP_IF_SGI_LAN) && !(f->fwd.has & PFCP_FWD_OHC))
		return UPF_PDR_FORW;
	if (f->fwd.dest_if == PFCP_IF_CP && (f->fwd.has & PFCP_FWD_OHC) && f->fwd.ohc.desc == PFCP_OHC_GTPU4) {
		memcpy(cp_addr, f->fwd.ohc.ipv4, 4);
		*cp_teid = f->fwd.ohc.teid;
		return UPF_PDR_TO_CP;
	}
	return -1;
}

/* PDR d's filters as data path entries (*cnt of them): 0, or a cause with *off set */
static int pdr_entries(const struct pfcp_sess_est_req *e, const struct pfcp_pdr *d, struct upf_ul_pdr *out,
		       unsigned room, unsigned *cnt, uint16_t *off)
{
	uint32_t cp_addr = 0, cp_teid = 0;
	int act = far_action(far_of(e, d->far_id), &cp_addr, &cp_teid);
	struct upf_pdr scratch;

	if (act < 0)
		return refused(PFCP_IE_CREATE_FAR, off, d->pdr_id, "its FAR is not FORW to Core, DROP or FORW to "
			       "CP-function in GTP-U/UDP/IPv4");
	if (d->pdi.n_sdf > room)
		return refused(PFCP_IE_CREATE_PDR, off, d->pdr_id, "more SDF filters than the data path holds");
	for (unsigned i = 0; i < d->pdi.n_sdf; i++) {
		const struct pfcp_sdf *f = &d->pdi.sdf[i];
		struct upf_ul_pdr *o = &out[i];

		memset(o, 0, sizeof(*o));
		if (f->flags & PFCP_SDF_SPI)
			return refused(PFCP_IE_SDF_FILTER, off, d->pdr_id, "a Security Parameter Index filter");
		if (f->flags & PFCP_SDF_FD) {
			if (upf_sdf_parse((const char *)f->flow.p, f->flow.len, &scratch))
				return refused(PFCP_IE_SDF_FILTER, off, d->pdr_id, "a flow description not understood");
			o->flow = (const char *)f->flow.p;
			o->flow_len = f->flow.len;
		}
		if (f->flags & PFCP_SDF_TTC) {   /* 8.2.5: octet 1 the value, octet 2 the mask */
			o->has_tos = true;
			o->tos = (uint8_t)(f->tos >> 8);
			o->tos_mask = (uint8_t)f->tos;
		}
		if (f->flags & PFCP_SDF_FL) {
			o->has_flow_label = true;
			o->flow_label = f->flow_label & 0xfffff;
		}
		o->precedence = d->precedence;
		o->action = (uint8_t)act;
		o->cp_addr = cp_addr;
		o->cp_teid = cp_teid;
	}
	*cnt = d->pdi.n_sdf;
	return 0;
}

/* Is d one of the session's further uplink PDRs (Access, a selecting SDF filter)? */
static bool is_extra(const struct n4_sess *s, const struct pfcp_pdr *d)
{
	return d->pdi.src_if == PFCP_IF_ACCESS && d->pdr_id != s->ul_pdr && d->pdi.n_sdf;
}

bool n4_sdf_chooses(const struct n4_sess *s, const struct pfcp_pdr *d)
{
	return is_extra(s, d) && d->pdr_id != s->up2cp_pdr && (d->pdi.has & PFCP_PDI_F_TEID) &&
	       (d->pdi.fteid.flags & PFCP_FTEID_CH);
}

int n4_sdf_install(struct upf_n4 *n, const struct pfcp_sess_est_req *e, const struct n4_sess *s, uint32_t id,
		   uint16_t *off)
{
	struct upf_ul_pdr l[UPF_PDR_MAX];
	uint32_t main_prec = 0;
	unsigned k = 0;
	int rc;

	for (unsigned i = 0; i < e->n_pdr; i++) {
		const struct pfcp_pdr *d = &e->pdr[i];

		if (d->pdr_id == s->ul_pdr)
			main_prec = d->precedence;
		if (!is_extra(s, d))
			continue;
		/* the session's own PDR takes one entry per family it has */
		unsigned c = 0;

		if ((rc = pdr_entries(e, d, l + k, UPF_PDR_MAX - 2 - k, &c, off)))
			return rc;
		k += c;
	}
	/* Open5GS's cp2up PDR (Source Interface CP-function, the downlink FAR): the SMF's packets
	 * for the UE from the GTP-U address its up2cp FAR names, on our cp2up TEID */
	if (n->p.upf && s->cp2up_pdr && s->up2cp_far) {
		const struct pfcp_far *f = far_of(e, s->up2cp_far);
		uint32_t cp = 0;

		if (f && (f->fwd.has & PFCP_FWD_OHC))
			memcpy(&cp, f->fwd.ohc.ipv4, 4);
		if (cp && upf_cp2up_teid(n->p.upf, id) == n4_cp2up_teid(n, id))
			upf_session_cp2up(n->p.upf, id, cp);
	}
	if (!k || !n->p.upf)
		return 0;
	rc = upf_session_pdrs(n->p.upf, id, main_prec, l, k);
	if (rc < 0) {
		log_rl(LOGL_WARN, N4_MOD, NULL, "session %u: the data path refused its uplink PDRs: %s", id,
		       strerror(-rc));
		*off = PFCP_IE_SDF_FILTER;
		return PFCP_CAUSE_RULE_FAILURE;
	}
	return 0;
}

int n4_sdf_check(const struct pfcp_sess_est_req *e, const struct pfcp_pdr *d, unsigned *used, uint16_t *off)
{
	struct upf_ul_pdr l[UPF_PDR_MAX];
	int rc;

	if (*used + 2 > UPF_PDR_MAX)
		return refused(PFCP_IE_CREATE_PDR, off, d->pdr_id, "more uplink PDRs than the data path holds");
	unsigned c = 0;

	rc = pdr_entries(e, d, l, UPF_PDR_MAX - 2 - *used, &c, off);
	if (rc)
		return rc;
	*used += c;
	return 0;
}
