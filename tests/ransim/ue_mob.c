/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim UE: the registration area (TS 24.501 5.3.4) and the mobility registration update
 * (5.5.1.3). The UE keeps the TAI list of its last REGISTRATION ACCEPT (9.11.3.9). When a
 * handover (Xn, gnb_xn.c, or N2) puts it in a cell whose TAI is not in that list, it sends
 * REGISTRATION REQUEST "mobility registration updating" (5.5.1.3.2 a) over the new gNB, in
 * 5GMM-CONNECTED: ngKSI, 5G-GUTI, UE security capability, PDU session status and Uplink
 * data status of its session (8.2.6), integrity protected and ciphered in the current
 * context (4.4.6: a connected UE sends the whole message, no container). The ACCEPT
 * (REGISTERED row of ue.c's table while mob_reg_pending) must list the new TAI and keep
 * the session, or show it inactive, when the UE releases it locally (5.5.1.3.4); its TAI list
 * and 5G-GUTI are taken, and REGISTRATION COMPLETE answers a new 5G-GUTI. Scratch buffers only.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

void rs_ue_take_tai_list(struct rs_ue *ue, const struct nas_registration_accept *a)
{
	const struct nas_plmn *sp = &ue->rs->nplmn;

	if (!a->has_tai_list)
		return;   /* TS 24.501 5.5.1.3.4: no list, the old one stays */
	ue->n_tais = 0;
	for (unsigned i = 0; i < a->tai_list.n && i < NAS_TAI_MAX; i++) {
		const struct nas_plmn *p = &a->tai_list.tai[i].plmn;

		if (p->mcc == sp->mcc && p->mnc == sp->mnc && p->mnc3 == sp->mnc3)
			ue->tais[ue->n_tais++] = a->tai_list.tai[i].tac;
	}
}

static bool tai_listed(const struct rs_ue *ue, uint32_t tac)
{
	for (unsigned i = 0; i < ue->n_tais; i++)
		if (ue->tais[i] == tac)
			return true;
	return false;
}

int rs_ue_cell_changed(struct rs_ue *ue, struct rs_gnb *g)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *m = &rs->nas_tx;
	struct nas_registration_request *r = &m->reg_req;
	uint16_t psi = (uint16_t)(1u << rs->cfg.psi);
	int rc;

	if (ue->gnb != g || !ue->sec || !ue->has_guti || tai_listed(ue, rs_gnb_tac(g)))
		return 0;   /* same registration area: nothing to say (5.5.1.3.2) */
	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REQUEST;
	r->reg_type = 0x02;        /* 9.11.3.7: mobility registration updating */
	r->ngksi = ue->ngksi;
	r->mobile_id.type = NAS_MOBID_5G_GUTI;
	r->mobile_id.guti = ue->guti;
	r->has_ue_sec_cap = true;
	r->ue_sec_cap.ea = rs->cfg.ue_ea;
	r->ue_sec_cap.ia = rs->cfg.ue_ia;
	if (ue->sess_up) {
		r->has_pdu_session_status = true;
		r->pdu_session_status = psi;
		r->has_ul_data_status = true;
		r->ul_data_status = psi;
	}
	rc = rs_ue_send_nas(ue, m, NAS_SHT_INTEGRITY_CIPHERED, false, false);
	if (rc < 0)
		return rc;
	ue->mob_reg_pending = true;
	rs->st.mob_reg_sent++;
	rs_proc_start(ue, RANSIM_P_REGISTRATION);
	log_msg(LOGL_DEBUG, "ransim", ue->sim->supi, "gnb=%u TAC %06x outside the TAI list: mobility registration",
		g->idx, rs_gnb_tac(g));
	return 1;
}

enum rs_ue_state rs_ue_on_mob_accept(struct rs_ue *ue, const struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	const struct nas_registration_accept *a = &m->reg_acc;
	struct nas_msg *r = &rs->nas_tx;
	uint16_t psi = (uint16_t)(1u << rs->cfg.psi);

	if (!ue->mob_reg_pending) {
		rs_ue_fail(ue, "unexpected_reg_accept");
		return ue->st;
	}
	ue->mob_reg_pending = false;
	rs_proc_done(ue, RANSIM_P_REGISTRATION);
	rs_ue_take_tai_list(ue, a);
	if (!tai_listed(ue, rs_gnb_tac(ue->gnb)))
		rs_ue_fail(ue, "mob_accept_tai_list");        /* TS 24.501 5.5.1.3.4 */
	else if (ue->sess_up && !a->has_pdu_session_status)
		rs_ue_fail(ue, "mob_accept_session_status");  /* we sent ours: 5.5.1.3.4 answers it */
	else if (ue->sess_up && !(a->pdu_session_status & psi)) {
		/* TS 24.501 5.5.1.3.4: a session the AMF shows inactive is released locally */
		rs_sm_local_release(ue);
		rs->st.mob_reg_accepted++;
	} else if (a->has_reactivation_result && (a->reactivation_result & psi))
		rs_ue_fail(ue, "mob_accept_up_not_kept");
	else
		rs->st.mob_reg_accepted++;
	if (a->has_guti && a->guti.type == NAS_MOBID_5G_GUTI) {
		ue->guti = a->guti.guti;
		memset(r, 0, sizeof(*r));
		r->type = NAS_REGISTRATION_COMPLETE;
		rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED, false, false);
	}   /* no new 5G-GUTI: no COMPLETE (5.5.1.3.4) */
	/* a #39 re-establishment that waited for this procedure (6.3.3.3) */
	return rs_sm_reestablish_due(ue, ue->st);
}

enum rs_ue_state rs_ue_on_mob_reject(struct rs_ue *ue, const struct nas_msg *m)
{
	char cause[32];

	ue->mob_reg_pending = false;
	snprintf(cause, sizeof(cause), "mob_reject_%u", m->reg_rej.cause);
	rs_ue_fail(ue, cause);
	return ue->st;
}
