/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Session Modification (TS 29.244 7.5.4): the rule changes a modification carries, applied
 * to a copy of the session that the caller keeps only when every one is accepted (all or
 * nothing: on a refusal nothing changed, 7.5.5.1 cause 73 with the Failed Rule ID).
 * The checks of each rule are upf_n4_rule.c's, shared with the establishment.
 */
#include <string.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

/* Whether the QER (or URR) IDs an Update PDR names are exactly the ones on that direction */
static bool same_refs(const uint32_t *ids, unsigned n_ids, const struct n4_sess *s, uint8_t dir, bool qer)
{
	unsigned have = 0, n = qer ? s->n_qer : s->n_urr;

	for (unsigned i = 0; i < n; i++)
		have += !!((qer ? s->qers[i].pdrs : s->urrs[i].pdrs) & dir);
	if (n_ids != have)
		return false;
	for (unsigned k = 0; k < n_ids; k++) {
		bool found = false;

		for (unsigned i = 0; i < n && !found; i++)
			found = (qer ? s->qers[i].id : s->urrs[i].id) == ids[k] &&
				((qer ? s->qers[i].pdrs : s->urrs[i].pdrs) & dir);
		if (!found)
			return false;
	}
	return true;
}

/* The QER (qer) or URR IDs of Update PDR u replace those of its direction dir: every one
 * must be the session's (created before or in this modification) */
static int upd_refs(const struct pfcp_pdr *u, uint8_t dir, struct n4_sess *s, bool qer, uint16_t *off)
{
	unsigned n = qer ? s->n_qer : s->n_urr, n_ids = qer ? u->n_qer : u->n_urr;
	const uint32_t *ids = qer ? u->qer_id : u->urr_id;

	for (unsigned k = 0; k < n_ids; k++) {
		bool found = false;

		for (unsigned i = 0; i < n && !found; i++)
			found = (qer ? s->qers[i].id : s->urrs[i].id) == ids[k];
		if (!found) {
			n4_fail_rule(s, PFCP_RULE_PDR, u->pdr_id);
			return n4_unsupported(PFCP_IE_UPDATE_PDR, off, "PDR %u: %s %u not created", u->pdr_id,
					   qer ? "QER" : "URR", ids[k]);
		}
	}
	for (unsigned i = 0; i < n; i++) {
		uint8_t *pdrs = qer ? &s->qers[i].pdrs : &s->urrs[i].pdrs;
		uint32_t id = qer ? s->qers[i].id : s->urrs[i].id;

		*pdrs &= (uint8_t)~dir;
		for (unsigned k = 0; k < n_ids; k++)
			if (ids[k] == id)
				*pdrs |= dir;
	}
	return 0;
}

/* A Create FAR of this modification */
static const struct pfcp_far *created_far(const struct pfcp_sess_mod_req *m, uint32_t id)
{
	for (unsigned i = 0; i < m->n_far; i++)
		if (m->far[i].far_id == id)
			return &m->far[i];
	return NULL;
}

/* Created FAR f becomes the FAR of the PDR of direction dir (a created or updated PDR): its
 * action and tunnel replace the old FAR's (7.5.4.3 Create FAR; FORW <-> BUFF, a new Outer
 * Header Creation) */
static int far_take(struct upf_n4 *n, const struct pfcp_far *f, uint8_t dir, struct n4_sess *s, uint16_t *off)
{
	int rc;

	n4_fail_rule(s, PFCP_RULE_FAR, f->far_id);
	if (dir == N4_UL) {
		rc = n4_far_ul(f, s, off);
		s->ul_far = f->far_id;
	} else {
		s->r.dl_state = UPF_DL_BUFFER;   /* a new FAR: its own action and tunnel only */
		s->r.gnb_addr = s->r.gnb_teid = 0;
		memset(s->r.gnb_addr6, 0, 16);
		rc = n4_far_dl(n, f, s, off);
		s->dl_far = f->far_id;
	}
	return rc;
}

/* 7.5.4.6 Remove PDR: the data path PDR's slot is free for a Create PDR of the same direction
 * (the data path rule is rebuilt when its TEID or UE address changes, upf_n4_sess.c) */
static int rm_pdrs(const struct pfcp_sess_mod_req *m, struct n4_sess *s, uint16_t *off)
{
	for (unsigned i = 0; i < m->n_rm_pdr; i++) {
		uint32_t id = m->rm_pdr[i].id;
		uint8_t dir = 0;

		n4_fail_rule(s, PFCP_RULE_PDR, id);
		if (id && id == s->ul_pdr) {
			dir = N4_UL;
			s->ul_pdr = 0;
			if (s->up2cp_pdr)   /* Open5GS's up2cp PDR shares its TEID */
				return n4_unsupported(PFCP_IE_REMOVE_PDR, off, "PDR %u: the up2cp PDR %u shares its "
						      "F-TEID", (unsigned)id, s->up2cp_pdr);
		} else if (id && id == s->dl_pdr) {
			dir = N4_DL;
			s->dl_pdr = 0;
		} else if (id && id == s->up2cp_pdr) {
			s->up2cp_pdr = 0;
			s->up2cp_far = 0;
		} else if (id && id == s->cp2up_pdr) {
			s->cp2up_pdr = 0;
		} else {
			return n4_unsupported(PFCP_IE_REMOVE_PDR, off, "PDR %u unknown", (unsigned)id);
		}
		for (unsigned k = 0; k < s->n_qer; k++)
			s->qers[k].pdrs &= (uint8_t)~dir;
		for (unsigned k = 0; k < s->n_urr; k++)
			s->urrs[k].pdrs &= (uint8_t)~dir;
	}
	return 0;
}

/* 7.5.4.2 / 7.5.2.2 Create PDR in a modification: an uplink (Access) or downlink (Core) PDR
 * whose slot is free (Remove PDR in the same or an earlier modification), its FAR created in
 * this modification or the one its direction has; the auxiliary PDRs only at establishment */
static int create_pdrs(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *s, bool *choose,
		       uint16_t *off)
{
	const struct pfcp_pdr *ulp = NULL;
	int rc;

	for (unsigned i = 0; i < m->n_pdr; i++) {
		const struct pfcp_pdr *d = &m->pdr[i];
		bool ul = d->pdi.src_if == PFCP_IF_ACCESS;
		const struct pfcp_far *f;
		uint32_t old_far = ul ? s->ul_far : s->dl_far;

		n4_fail_rule(s, PFCP_RULE_PDR, d->pdr_id);
		if ((rc = n4_pdr_common(d, off)))
			return rc;
		if ((!ul && d->pdi.src_if != PFCP_IF_CORE) || (ul ? s->ul_pdr : s->dl_pdr) || !d->pdr_id ||
		    d->pdr_id == s->ul_pdr || d->pdr_id == s->dl_pdr || d->pdr_id == s->up2cp_pdr ||
		    d->pdr_id == s->cp2up_pdr)
			return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: a second PDR of source interface %u",
					      d->pdr_id, d->pdi.src_if);
		if (!ul)   /* the new PDI's addresses only */
			memset(s->r.ue_prefix6, 0, 8), s->r.ue_addr = 0;
		rc = ul ? n4_pdr_ul(n, d, s, choose, off) : n4_pdr_dl(n, d, s, off);
		if (!rc)
			rc = n4_pdr_refs(d, ul ? N4_UL : N4_DL, s, off);
		if (rc)
			return rc;
		n4_fail_rule(s, PFCP_RULE_PDR, d->pdr_id);
		f = created_far(m, d->far_id);
		if (f)
			rc = far_take(n, f, ul ? N4_UL : N4_DL, s, off);
		else if (d->far_id != old_far || !old_far)
			rc = n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: FAR %u not created", d->pdr_id,
					    d->far_id);
		if (rc)
			return rc;
		if (ul)
			ulp = d;
	}
	if (ulp && (ulp->pdi.has & PFCP_PDI_UE_IP))
		return n4_ul_ue_ip(&ulp->pdi.ue_ip, s, off);
	return 0;
}

static bool far_of(const struct n4_sess *s, uint32_t id)
{
	return id && ((s->ul_pdr && id == s->ul_far) || (s->dl_pdr && id == s->dl_far) ||
		      (s->up2cp_pdr && id == s->up2cp_far));
}

/* 7.5.4.7 Remove FAR: one the session had (o, before), that no PDR names now (s, after);
 * 7.5.2.3 Create FAR: an ID the session does not hold (or removes here); one no PDR names is
 * checked and otherwise unused (the data path has nothing to hold it in) */
static int far_refs_check(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, const struct n4_sess *o,
			  struct n4_sess *s, uint16_t *off)
{
	for (unsigned i = 0; i < m->n_rm_far; i++) {
		uint32_t id = m->rm_far[i].id;

		n4_fail_rule(s, PFCP_RULE_FAR, id);
		if (!far_of(o, id))
			return n4_unsupported(PFCP_IE_REMOVE_FAR, off, "FAR %u unknown", id);
		if (far_of(s, id) && !created_far(m, id))
			return n4_unsupported(PFCP_IE_REMOVE_FAR, off, "FAR %u: a PDR still names it", id);
	}
	for (unsigned i = 0; i < m->n_far; i++) {
		const struct pfcp_far *f = &m->far[i];
		struct n4_sess scratch = *s;
		bool dl = (f->has & PFCP_FAR_FWD) && (f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if == PFCP_IF_ACCESS;
		bool removed = false;
		int rc;

		n4_fail_rule(s, PFCP_RULE_FAR, f->far_id);
		for (unsigned k = 0; k < m->n_rm_far; k++)
			removed |= m->rm_far[k].id == f->far_id;
		if (far_of(o, f->far_id) && !removed)
			return n4_unsupported(PFCP_IE_CREATE_FAR, off, "FAR %u exists already", f->far_id);
		if ((rc = dl ? n4_far_dl(n, f, &scratch, off) : n4_far_ul(f, &scratch, off)))
			return rc;
	}
	return 0;
}

/* 7.5.4.2 Update PDR: free5GC sends one for the downlink PDR, unchanged but for its FAR's new
 * tunnel, with the Update FAR of the PDU Session Resource Setup Response (its
 * pdu_session.go, DLPDR.State = RULE_UPDATE). Accepted when what it carries (a PDI replaces
 * the old one whole) gives the same installed rule, FAR, QERs and URRs; any real change of
 * a PDR is refused (the data path's rule is fixed for the session's life, upf.h). */
static int upd_pdr(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, const struct pfcp_pdr *u,
		   struct n4_sess *s, uint16_t *off)
{
	struct n4_sess t = *s;
	uint8_t dir = u->pdr_id == s->ul_pdr ? N4_UL : u->pdr_id == s->dl_pdr ? N4_DL : 0;
	uint32_t far = dir == N4_UL ? s->ul_far : dir == N4_DL ? s->dl_far : s->up2cp_far;
	bool choose = false;
	int rc = 0;

	if (!dir && (!u->pdr_id || (u->pdr_id != s->up2cp_pdr && u->pdr_id != s->cp2up_pdr)))
		return n4_unsupported(PFCP_IE_UPDATE_PDR, off, "PDR %u unknown", u->pdr_id);
	if ((u->has & PFCP_PDR_FAR_ID) && u->far_id != far && (dir || u->pdr_id == s->up2cp_pdr)) {
		/* 7.5.4.2: the PDR to a FAR created in this modification (a FAR replaced) */
		const struct pfcp_far *f = dir ? created_far(m, u->far_id) : NULL;

		if (!f)
			return n4_unsupported(PFCP_IE_UPDATE_PDR, off, "PDR %u: FAR %u neither its own nor created",
					      u->pdr_id, u->far_id);
		if ((rc = far_take(n, f, dir, s, off)))
			return rc;
		far = u->far_id;
	}
	if (!dir)
		return 0;   /* nothing installed for the auxiliary PDRs */
	/* 7.5.4.2: QER IDs / URR IDs present replace the PDR's (a QER or URR created in this
	 * modification, or one the session has) */
	if ((u->has & PFCP_PDR_QER_ID) && !same_refs(u->qer_id, u->n_qer, s, dir, true) &&
	    (rc = upd_refs(u, dir, s, true, off)))
		return rc;
	if ((u->has & PFCP_PDR_URR_ID) && !same_refs(u->urr_id, u->n_urr, s, dir, false) &&
	    (rc = upd_refs(u, dir, s, false, off)))
		return rc;
	if (u->has & PFCP_PDR_PDI) {
		struct pfcp_pdr d = *u;

		d.has |= PFCP_PDR_FAR_ID;
		d.far_id = far;
		if (dir == N4_UL && !(d.has & PFCP_PDR_OHR)) {   /* absent: unchanged */
			d.has |= PFCP_PDR_OHR;
			d.ohr.desc = PFCP_OHR_GTPU_UDP_IP;
		}
		rc = n4_pdr_common(&d, off);
		if (!rc && d.pdi.src_if != (dir == N4_UL ? PFCP_IF_ACCESS : PFCP_IF_CORE))
			rc = n4_unsupported(PFCP_IE_SOURCE_IF, off, "PDR %u: another source interface", u->pdr_id);
		if (!rc)
			rc = dir == N4_UL ? n4_pdr_ul(n, &d, &t, &choose, off) : n4_pdr_dl(n, &d, &t, off);
		if (!rc && dir == N4_UL && (d.pdi.has & PFCP_PDI_UE_IP))
			rc = n4_ul_ue_ip(&d.pdi.ue_ip, s, off);
		if (rc)
			return rc;
		if (choose || t.r.ul_teid != s->r.ul_teid || t.r.ue_addr != s->r.ue_addr || t.r.nat != s->r.nat ||
		    t.r.qfi != s->r.qfi || memcmp(t.r.ue_prefix6, s->r.ue_prefix6, 8))
			return n4_unsupported(PFCP_IE_UPDATE_PDR, off, "PDR %u: its PDI changes the installed rule",
					   u->pdr_id);
	}
	return 0;
}

/* 7.5.4.8 Remove QER and 7.5.4.5 Create QER: policed once a PDR names it (Update PDR) */
static int mod_qers(const struct pfcp_sess_mod_req *m, struct n4_sess *s, uint16_t *off)
{
	int rc;

	for (unsigned i = 0; i < m->n_rm_qer; i++) {
		struct n4_qer *q = n4_qer_of(s, m->rm_qer[i].id);

		n4_fail_rule(s, PFCP_RULE_QER, m->rm_qer[i].id);
		if (!q)
			return n4_unsupported(PFCP_IE_REMOVE_QER, off, "QER %u unknown", m->rm_qer[i].id);
		*q = s->qers[--s->n_qer];
	}
	for (unsigned i = 0; i < m->n_qer; i++) {
		struct n4_qer *q;

		n4_fail_rule(s, PFCP_RULE_QER, m->qer[i].qer_id);
		if (n4_qer_of(s, m->qer[i].qer_id))
			return n4_unsupported(PFCP_IE_CREATE_QER, off, "QER %u exists already", m->qer[i].qer_id);
		if (s->n_qer == N4_QER_MAX)
			return n4_unsupported(PFCP_IE_CREATE_QER, off, "more than %u QERs", N4_QER_MAX);
		q = &s->qers[s->n_qer++];
		*q = (struct n4_qer){ .id = m->qer[i].qer_id };
		if ((rc = n4_qer_take(&m->qer[i], q, off)))
			return rc;
	}
	return 0;
}

/* Session Modification (7.5.4) on a copy of the session (the caller keeps it only when all
 * is accepted: nothing changes on a refusal): Create / Remove / Update QER and URR, Query URR;
 * Remove PDR and Create PDR of the uplink or downlink PDR (a new TEID, UE address: the caller
 * rebuilds the data path rule); Create FAR for a created PDR or an Update PDR naming it (a FAR
 * replaced), Remove FAR no PDR names; Update PDR that changes its QERs / URRs / FAR, or nothing
 * installed (upd_pdr); Update FAR (the downlink tunnel or BUFF <-> FORW: the service request, AN
 * release and handover paths, TS 23.502 4.2.3.2, 4.2.6, 4.9.1). */
int n4_rules_update(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *s, bool *choose,
		    uint16_t *off)
{
	const struct n4_sess o = *s;
	uint32_t dl_pdr = s->dl_pdr;
	int rc;

	*choose = false;
	if ((rc = mod_qers(m, s, off)) || (rc = n4_urr_mod(n, m, s, off)) || (rc = rm_pdrs(m, s, off)) ||
	    (rc = create_pdrs(n, m, s, choose, off)))
		return rc;
	for (unsigned i = 0; i < m->n_upd_pdr; i++) {
		n4_fail_rule(s, PFCP_RULE_PDR, m->upd_pdr[i].pdr_id);
		if ((rc = upd_pdr(n, m, &m->upd_pdr[i], s, off)))
			return rc;
	}
	if ((rc = far_refs_check(n, m, &o, s, off)))
		return rc;
	if (!s->dl_pdr) {   /* the data path's rule is found by the UE address (upf.h) */
		n4_fail_rule(s, PFCP_RULE_PDR, dl_pdr);
		return n4_unsupported(PFCP_IE_REMOVE_PDR, off, "PDR %u: a session keeps a downlink PDR", dl_pdr);
	}
	if (!s->ul_pdr) {   /* no uplink PDR: no uplink rule */
		s->r.ul_teid = 0;
		s->ul_far = 0;
	}
	for (unsigned i = 0; i < m->n_upd_far; i++) {
		const struct pfcp_far *f = &m->upd_far[i];

		n4_fail_rule(s, PFCP_RULE_FAR, f->far_id);
		if (f->far_id == s->dl_far)
			rc = n4_far_dl(n, f, s, off);
		else if (f->far_id == s->ul_far && s->ul_pdr)
			rc = (f->has & PFCP_FAR_APPLY) || (f->has & PFCP_FAR_FWD) ? n4_far_ul(f, s, off) : 0;
		else if (f->far_id == s->up2cp_far && s->up2cp_pdr)
			rc = 0;   /* nothing installed for it (above) */
		else
			rc = n4_unsupported(PFCP_IE_UPDATE_FAR, off, "FAR %u unknown", f->far_id);
		if (rc)
			return rc;
	}
	for (unsigned i = 0; i < m->n_upd_qer; i++) {
		struct n4_qer *q = n4_qer_of(s, m->upd_qer[i].qer_id);

		n4_fail_rule(s, PFCP_RULE_QER, m->upd_qer[i].qer_id);
		if (!q)
			return n4_unsupported(PFCP_IE_UPDATE_QER, off, "QER %u unknown", m->upd_qer[i].qer_id);
		rc = n4_qer_take(&m->upd_qer[i], q, off);
		if (rc)
			return rc;
	}
	if ((rc = n4_qers_apply(s, off)))
		return rc;
	n4_urr_quota_sync(s);   /* 5.2.2.2: a new quota, a removed URR or PDR lifts its drop */
	s->failed = false;
	return 0;
}
