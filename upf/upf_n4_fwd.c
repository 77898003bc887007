/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Indirect data forwarding over N4 (TS 23.502 4.9.1.3.2 steps 9-10, 4.9.1.3.3 step 21a): the
 * SMF's forwarding tunnel, asked for in a Session Modification, mapped onto the data path's
 * one forwarding tunnel of the session (upf_fwd.c, TEID UPF_FWD_TEID(id)).
 *
 * The shape taken (what our SMF sends, upf_n4c_sess.c; the one Open5GS's SMF sends for an
 * indirect tunnel):
 *   Create PDR  Source Interface Access with Source Interface Type 14 "N3 for data forwarding"
 *               (8.2.118), or whose FAR created with it forwards to Access; F-TEID CHOOSE (V4,
 *               8.2.3: we answer UPF_FWD_TEID(id) on our N3 address in a Created PDR, 7.5.5.1)
 *               or that very F-TEID; Outer Header Removal GTP-U/UDP/IPv4 or none (the relay
 *               puts a new outer header on the same GTP-U packet); no UE IP, SDF, QER, URR
 *   Create FAR  its FAR: FORW to Destination Interface Access with Outer Header Creation
 *               GTP-U/UDP/IPv4 (the target gNB's DL forwarding F-TEID, TS 38.413 9.3.4.11),
 *               or DROP (the tunnel's F-TEID asked for before the target is known)
 *   Update FAR  that FAR: to another target, DROP <-> FORW
 *   Remove PDR / Remove FAR: the tunnel goes (end of forwarding, 4.9.1.3.3 step 21a)
 * One forwarding PDR per session. Anything else about it (IPv6 tunnels, BUFF / DUPL, a CP
 * F-TEID other than UPF_FWD_TEID(id), a target on our own N3 address) is refused with cause
 * 73, the Offending IE and the Failed Rule ID. The entries taken are removed from the
 * message, so the rest goes through upf_n4_mod.c's checks as before.
 */
#include <arpa/inet.h>
#include <string.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

static const struct pfcp_far *far_in(const struct pfcp_far *f, unsigned n, uint32_t id)
{
	for (unsigned i = 0; i < n; i++)
		if (f[i].far_id == id)
			return &f[i];
	return NULL;
}

static bool far_used(const struct n4_sess *t, uint32_t id)
{
	return id == t->ul_far || id == t->dl_far || id == t->up2cp_far || id == t->fwd_far;
}

static bool fwd_pdr_shape(const struct pfcp_sess_mod_req *m, const struct pfcp_pdr *d)
{
	const struct pfcp_far *f = far_in(m->far, m->n_far, d->far_id);

	if (d->pdi.src_if != PFCP_IF_ACCESS)
		return false;
	if ((d->pdi.has & PFCP_PDI_SRC_IF_TYPE) && d->pdi.src_if_type == PFCP_IFT_N3_FWD)
		return true;
	return f && (f->has & PFCP_FAR_FWD) && (f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if == PFCP_IF_ACCESS;
}

/* The FAR of the forwarding tunnel into t (fwd_addr / fwd_teid; 0: DROP, no tunnel yet) */
static int fwd_far(const struct upf_n4 *n, const struct pfcp_far *f, struct n4_sess *t, uint16_t ie, uint16_t *off)
{
	const struct pfcp_ohc *o = &f->fwd.ohc;
	uint32_t a;

	n4_fail_rule(t, PFCP_RULE_FAR, f->far_id);
	if ((f->has & PFCP_FAR_APPLY) && f->apply == PFCP_AA_DROP) {
		t->fwd_addr = t->fwd_teid = 0;
		return 0;
	}
	if (!(f->has & PFCP_FAR_APPLY) || f->apply != PFCP_AA_FORW || !(f->has & PFCP_FAR_FWD) ||
	    !(f->fwd.has & PFCP_FWD_OHC) || o->desc != PFCP_OHC_GTPU4 ||
	    ((f->fwd.has & PFCP_FWD_DEST_IF) && f->fwd.dest_if != PFCP_IF_ACCESS))
		return n4_unsupported(ie, off, "FAR %u: a forwarding tunnel is FORW to Access with Outer Header "
				      "Creation GTP-U/UDP/IPv4, or DROP", f->far_id);
	memcpy(&a, o->ipv4, 4);
	/* upf_fwd_create: a target is an address, never our own N3 (a relay loop) */
	if (!a || a == n->p.n3_addr)
		return n4_unsupported(ie, off, "FAR %u: forwarding target 0.0.0.0 or our own N3 address", f->far_id);
	t->fwd_addr = a;
	t->fwd_teid = o->teid;
	return 0;
}

static int fwd_create(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, const struct pfcp_pdr *d, uint32_t id,
		      struct n4_sess *t, bool *choose, uint16_t *off)
{
	const struct pfcp_fteid *ft = &d->pdi.fteid;
	const struct pfcp_far *f = far_in(m->far, m->n_far, d->far_id);
	uint32_t a;

	n4_fail_rule(t, PFCP_RULE_PDR, d->pdr_id);
	if (t->fwd_pdr || !d->pdr_id || d->pdr_id == t->ul_pdr || d->pdr_id == t->dl_pdr ||
	    d->pdr_id == t->up2cp_pdr || d->pdr_id == t->cp2up_pdr)
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: a second forwarding PDR, or its ID in use",
				      d->pdr_id);
	if ((d->pdi.has & (PFCP_PDI_UE_IP | PFCP_PDI_SDF | PFCP_PDI_QFI)) || d->n_qer || d->n_urr ||
	    ((d->has & PFCP_PDR_OHR) && d->ohr.desc != PFCP_OHR_GTPU_UDP_IPV4))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: a forwarding PDR selects by its F-TEID "
				      "only, without QER or URR", d->pdr_id);
	if (!(d->pdi.has & PFCP_PDI_F_TEID) || !(ft->flags & PFCP_FTEID_V4))
		return n4_unsupported(PFCP_IE_F_TEID, off, "PDR %u: a forwarding PDR needs an IPv4 F-TEID", d->pdr_id);
	if (!(ft->flags & PFCP_FTEID_CH)) {
		memcpy(&a, ft->ipv4, 4);
		if (ft->teid != UPF_FWD_TEID(id) || a != n->p.n3_addr)
			return n4_unsupported(PFCP_IE_F_TEID, off, "PDR %u: forwarding F-TEID 0x%x: only CHOOSE or "
					      "0x%x on our N3 address", d->pdr_id, ft->teid, UPF_FWD_TEID(id));
	}
	if (!f || far_used(t, d->far_id))
		return n4_unsupported(PFCP_IE_CREATE_PDR, off, "PDR %u: its FAR %u is not created with it",
				      d->pdr_id, d->far_id);
	t->fwd_pdr = d->pdr_id;
	t->fwd_far = d->far_id;
	*choose = (ft->flags & PFCP_FTEID_CH) != 0;
	return fwd_far(n, f, t, PFCP_IE_CREATE_FAR, off);
}

/* Drop entry k of an array of n (the forwarding rules the rest of the checks must not see) */
#define TAKE(arr, cnt, k) (memmove(&(arr)[k], &(arr)[(k) + 1], ((cnt) - (k) - 1) * sizeof((arr)[0])), (cnt)--)

int n4_fwd_take(struct upf_n4 *n, struct pfcp_sess_mod_req *m, uint32_t id, struct n4_sess *t, bool *choose,
		uint16_t *off)
{
	uint32_t far = 0;
	int rc;

	*choose = false;
	for (unsigned i = 0; i < m->n_rm_pdr; i++) {
		if (!t->fwd_pdr || m->rm_pdr[i].id != t->fwd_pdr)
			continue;
		t->fwd_pdr = 0;
		t->fwd_addr = t->fwd_teid = 0;
		TAKE(m->rm_pdr, m->n_rm_pdr, i);
		break;
	}
	for (unsigned i = 0; i < m->n_rm_far; i++) {
		if (!t->fwd_far || m->rm_far[i].id != t->fwd_far)
			continue;
		n4_fail_rule(t, PFCP_RULE_FAR, t->fwd_far);
		if (t->fwd_pdr)
			return n4_unsupported(PFCP_IE_REMOVE_FAR, off, "FAR %u: the forwarding PDR %u still names it",
					      t->fwd_far, t->fwd_pdr);
		t->fwd_far = 0;
		TAKE(m->rm_far, m->n_rm_far, i);
		break;
	}
	for (unsigned i = 0; i < m->n_pdr; i++) {
		if (!fwd_pdr_shape(m, &m->pdr[i]))
			continue;
		if ((rc = fwd_create(n, m, &m->pdr[i], id, t, choose, off)))
			return rc;
		far = m->pdr[i].far_id;
		TAKE(m->pdr, m->n_pdr, i);
		break;
	}
	for (unsigned i = 0; far && i < m->n_far; i++) {
		if (m->far[i].far_id != far)
			continue;
		TAKE(m->far, m->n_far, i);
		break;
	}
	for (unsigned i = 0; t->fwd_far && i < m->n_upd_far; i++) {
		if (m->upd_far[i].far_id != t->fwd_far)
			continue;
		if ((rc = fwd_far(n, &m->upd_far[i], t, PFCP_IE_UPDATE_FAR, off)))
			return rc;
		if (!t->fwd_pdr)
			t->fwd_addr = t->fwd_teid = 0;
		TAKE(m->upd_far, m->n_upd_far, i);
		break;
	}
	return 0;
}

int n4_fwd_apply(struct upf_n4 *n, uint32_t id, const struct n4_sess *s, const struct n4_sess *t)
{
	int rc;

	if (!n->p.upf || (s->fwd_addr == t->fwd_addr && s->fwd_teid == t->fwd_teid))
		return 0;
	if (s->fwd_addr)
		upf_fwd_remove(n->p.upf, id);
	if (!t->fwd_addr)
		return 0;
	rc = upf_fwd_create(n->p.upf, id, t->fwd_addr, t->fwd_teid);
	if (rc < 0)
		log_rl(LOGL_WARN, N4_MOD, NULL, "session %u: forwarding tunnel not created: %d", id, rc);
	return rc;
}
