/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim UE: its side of an AMF failover (issue 20 item 4). The AMF serving the UE is gone
 * (its gNB's association to it went down, gnb_amf.c) and the gNB released the UE's
 * connection locally: the UE is back in 5GMM-IDLE, still registered in its own view, with
 * its 5G-GUTI and 5G NAS security context. It registers again, "mobility registration
 * updating" with that 5G-GUTI (TS 24.501 5.5.1.3.2), which the gNB routes to another AMF of
 * the same set (TS 23.501 5.21.2.1, amf_sel.c). That AMF does not know the 5G-GUTI (another
 * AMF pointer): IDENTITY REQUEST -> the SUCI, authentication (on its own SQN: perhaps an
 * AUTS resynchronisation first), SECURITY MODE COMMAND, REGISTRATION ACCEPT with a 5G-GUTI of
 * its own pointer. The UE's PDU session died with the old AMF: the ACCEPT shows it inactive,
 * the UE releases it locally (5.5.1.3.4) and establishes it again (6.4.1).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

/* TS 24.501 4.4.6: an initial NAS message from a UE with a valid 5G NAS security context
 * carries the cleartext IEs only (registration type, ngKSI, 5G-GUTI, UE security capability)
 * and the entire message, ciphered with the current context, in the NAS message container;
 * integrity protected (security header type 1). The AMF that cannot verify it asks for the
 * identity, sets up security and then takes the whole message from the SECURITY MODE
 * COMPLETE (ue->initial: the plain message, on_smc). */
static int fo_register(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *m = &rs->nas_tx;
	struct nas_registration_request *r = &m->reg_req;
	uint8_t plain[sizeof(ue->initial)], cont[sizeof(ue->initial)];
	int n, rc;

	ue->has_amf_id = false;
	ue->ran_id += rs->cfg.n_ues;   /* a new N2 connection, a new RAN-UE-NGAP-ID */
	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REQUEST;
	/* 9.11.3.7: mobility registration updating; follow-on request pending when the UE has a
	 * PDU session to establish (again) right after */
	r->reg_type = ue->fo_had_sess || ((rs->cfg.session || rs->cfg.cycle) && !ue->sess_up) ? 0x0a : 0x02;
	r->ngksi = ue->ngksi;
	r->mobile_id.type = NAS_MOBID_5G_GUTI;
	r->mobile_id.guti = ue->guti;
	r->has_ue_sec_cap = true;
	r->ue_sec_cap.ea = rs->cfg.ue_ea;
	r->ue_sec_cap.ia = rs->cfg.ue_ia;
	r->has_requested_nssai = true;
	r->requested_nssai.n = 1;
	r->requested_nssai.s[0].sst = rs->cfg.req_sst;
	if (rs->cfg.req_sd != 0xffffff) {
		r->requested_nssai.s[0].has_sd = 1;
		r->requested_nssai.s[0].sd = rs->cfg.req_sd;
	}
	if (ue->fo_had_sess) {
		/* 5.5.1.3.2: the PDU sessions the UE holds, so that the network answers for them */
		r->has_pdu_session_status = true;
		r->pdu_session_status = (uint16_t)(1u << rs->cfg.psi);
	}
	n = nas_encode(m, plain, sizeof(plain), NULL);
	if (n < 0)
		return n;
	memcpy(cont, plain, (size_t)n);
	if (ue->nea && crypto_nea(ue->nea, ue->kenc, ue->ul_count, RS_NAS_BEARER, CRYPTO_DIR_UPLINK, cont, cont,
				  (size_t)n * 8) < 0)
		return -EINVAL;
	r->has_requested_nssai = false;
	r->has_pdu_session_status = false;
	r->has_nas_container = true;
	r->nas_container.p = cont;
	r->nas_container.len = (uint16_t)n;
	rs_proc_start(ue, RANSIM_P_REGISTRATION);
	rs_proc_start(ue, RANSIM_P_AUTH_REQ);
	rs_ue_set_state(ue, RS_UE_WAIT_AUTH);
	rc = rs_ue_send_nas(ue, m, NAS_SHT_INTEGRITY, true, false);
	/* for the SECURITY MODE COMPLETE: the whole message, not the protected PDU sent */
	memcpy(ue->initial, plain, (size_t)n);
	ue->initial_len = (uint8_t)n;
	return rc < 0 ? rc : 0;
}

void rs_ue_fo_start(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;

	ue->holding = false;
	ue->mob_reg_pending = false;
	if (ue->dereg_sent) {
		/* TS 24.501 5.5.2.2.6 b): the lower layers failed before the DEREGISTRATION ACCEPT:
		 * the deregistration is done locally */
		ue->fo_t_lost = 0;
		rs_ue_set_state(ue, RS_UE_WAIT_RELEASE);
		rs_ue_release_cmd(ue);
		return;
	}
	if (!ue->registered_once || !ue->has_guti || !ue->sec) {
		/* 5.5.1.2.7 a): the initial registration failed in the lower layers: it starts
		 * again (through the cell, so another AMF) */
		rs->fo_fresh++;
		ue->fo_t_lost = 0;
		rs_ue_reset(ue);
		rs_ue_start(ue);
		return;
	}
	rs->fo_lost++;
	ue->fo_pending = true;
	ue->fo_had_sess = ue->sess_up;
	ue->rereg_done = false;         /* --reregister: once more, with the new AMF's 5G-GUTI */
	if (!ue->sess_up)
		ue->sess_tried = false;     /* an establishment cut short runs again */
	log_msg(LOGL_INFO, "ransim", ue->sim->supi, "AMF lost: mobility registration with the 5G-GUTI%s",
		ue->fo_had_sess ? " (PDU session held)" : "");
	if (fo_register(ue) < 0) {
		rs_ue_fail(ue, "fo_register");
		rs_ue_set_state(ue, RS_UE_DONE);
		rs_ue_finish(ue);
	}
}

/* The 5G-GUTI is one of the AMF's own: a GUAMI of its NG SETUP RESPONSE (TS 23.003 2.10.1). */
static bool guti_of_amf(const struct rs_ue *ue, const struct nas_guti *g)
{
	const struct rs_amf_entry *e = &ue->gnb->sel.e[ue->amf];
	struct ngap_guami gu;

	memset(&gu, 0, sizeof(gu));
	nas_plmn_enc(&g->plmn, gu.plmn.v);
	gu.region = g->amf_region_id;
	gu.set_id = g->amf_set_id;
	gu.pointer = g->amf_pointer;
	for (unsigned i = 0; i < e->n_guamis; i++)
		if (rs_guami_eq(&e->guamis[i], &gu))
			return true;
	return false;
}

enum rs_ue_state rs_ue_fo_accept(struct rs_ue *ue, const struct nas_registration_accept *a)
{
	struct ransim *rs = ue->rs;
	struct nas_msg *r = &rs->nas_tx;
	uint16_t psi = (uint16_t)(1u << rs->cfg.psi);

	ue->fo_pending = false;
	rs_ue_take_tai_list(ue, a);
	if (!a->has_guti || a->guti.type != NAS_MOBID_5G_GUTI) {
		/* 5.5.1.3.4, TS 33.501 6.12.3: the AMF that took the UE over gives its own */
		rs_ue_fail(ue, "fo_accept_without_guti");
	} else {
		if (!guti_of_amf(ue, &a->guti.guti))
			rs_ue_fail(ue, "fo_guti_not_of_amf");
		ue->guti = a->guti.guti;
	}
	if (ue->fo_had_sess) {
		if (!a->has_pdu_session_status) {
			rs_ue_fail(ue, "fo_accept_session_status");   /* 5.5.1.3.4: ours answered */
		} else if (a->pdu_session_status & psi) {
			rs_ue_fail(ue, "fo_session_kept");    /* the new AMF cannot hold it */
		} else {
			rs_sm_local_release(ue);           /* 5.5.1.3.4 */
			ue->fo_sess_pending = true;
			ue->sess_tried = false;            /* established again (6.4.1) */
		}
	}
	if (!ue->fail[0])
		rs_amf_fo_registered(ue);
	memset(r, 0, sizeof(*r));
	r->type = NAS_REGISTRATION_COMPLETE;           /* a new 5G-GUTI: 5.5.1.3.4 */
	if (a->has_guti)
		rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED, false, false);
	return rs_ue_next_step(ue);
}
