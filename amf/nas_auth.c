/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Child procedures of registration: 5G-AKA authentication (TS 24.501 5.4.1.3,
 * TS 33.501 6.1.3.2) through ausf/, and NAS security mode control
 * (TS 24.501 5.4.2, TS 33.501 6.7.2). Each reports to amf_reg_continue() on
 * success, or ends the registration on failure.
 */
#include <errno.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/crypto/crypto.h"
#include "common/log.h"

/* TS 33.501 A.7.1: ABBA for this release, 0x0000. */
static const uint8_t abba[2] = { 0x00, 0x00 };

int amf_auth_reject(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;

	amf->st.auth_reject++;
	amf_tmr_stop(ue, AMF_T3560);
	ausf_auth_clear(&ue->auth);
	amf_ue_log(LOGL_INFO, ue, "authentication rejected");
	memset(m, 0, sizeof(*m));
	m->type = NAS_AUTHENTICATION_REJECT;
	/* TS 24.501 5.4.1.3.5: sent without new protection (there is none). */
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	/* The context goes with its connection (amf_a_an_rel). A context that was
	 * authenticated before (a verified request that re-authenticated it) goes too:
	 * TS 24.501 5.4.1.3.5, the UE considers its USIM invalid. */
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_AUTH_FAILURE);
	return AMF_GS_DEREGISTERED;
}

/* RES* wrong or AUTN refused (#20): a UE the 5G-GUTI identified is asked for its SUCI
 * first, the GUTI may name someone else (TS 24.501 5.4.1.3.5, 5.4.1.3.7 c)). */
static int auth_failed(struct amf_ue *ue)
{
	ausf_auth_clear(&ue->auth);
	if (ue->ident_by_guti)
		return amf_reg_ident_after_auth(ue);
	return amf_auth_reject(ue);
}

/* TS 24.501 5.4.1.3.2: a ngKSI different from the one the UE holds (and ours). */
static uint8_t next_ngksi(const struct amf_ue *ue)
{
	uint8_t k = 0;

	while (k == ue->ue_ngksi || k == ue->ngksi)
		k++;
	return k;
}

static void auth_send(struct amf_ue *ue)
{
	struct nas_msg *m = &ue->amf->ntx;
	struct nas_authentication_request *r = &m->auth_req;

	memset(m, 0, sizeof(*m));
	m->type = NAS_AUTHENTICATION_REQUEST;
	r->ngksi = ue->pending_ngksi;
	r->abba.p = abba;
	r->abba.len = sizeof(abba);
	r->has_rand = true;
	r->rand.p = ue->auth.rand;
	r->rand.len = 16;
	r->has_autn = true;
	r->autn.p = ue->auth.autn;
	r->autn.len = 16;
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_T3560);
	amf_tmr_start(ue, AMF_T3560);
}

int amf_auth_start(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	int rc;

	rc = ausf_5gaka_start(amf->ausf, ue->supi, amf->snname, &ue->auth);
	if (rc == -ENOENT) {
		/* Unknown subscriber. TS 24.501 5.5.1.2.5 / Annex A: #7 "5GS services not
		 * allowed" makes the UE consider its USIM invalid for 5GS until switched off,
		 * instead of retrying (#3 would say it failed authentication, which it did not). */
		amf_ue_log(LOGL_INFO, ue, "unknown subscriber");
		return amf_reg_reject(ue, NAS_5GMM_5GS_SERVICES_NOT_ALLOWED);
	}
	if (rc == -EAGAIN) {
		/* Cluster SQNs (udm.h): this node's lease is being extended. Not the UE's fault and
		 * over in a moment: #22 congestion, the UE retries later (TS 24.501 5.5.1.2.5). */
		amf_ue_log(LOGL_WARN, ue, "AKA start: SQN lease exhausted, congestion");
		return amf_reg_reject(ue, NAS_5GMM_CONGESTION);
	}
	if (rc < 0) {
		amf_ue_log(LOGL_ERROR, ue, "AKA start failed rc=%d", rc);
		return amf_reg_reject(ue, NAS_5GMM_PROTOCOL_ERROR_UNSPECIFIED);
	}
	ue->pending_ngksi = next_ngksi(ue);
	auth_send(ue);
	return AMF_GS_AUTH;
}

int amf_a_auth_rsp(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_authentication_response *r = &c->msg->auth_resp;
	struct amf *amf = ue->amf;
	uint8_t kseaf[32];
	int rc;

	amf_tmr_stop(ue, AMF_T3560);
	ue->last_auth_fail = 0;
	if (!r->has_res_star || r->res_star.len != 16)
		return auth_failed(ue);
	/* TS 33.501 6.1.3.2.0 step 9: the SEAF checks HRES* against HXRES* first. */
	if (crypto_aka_check_hres_star(ue->auth.rand, r->res_star.p, ue->auth.hxres_star) < 0) {
		amf_ue_log(LOGL_INFO, ue, "HRES* mismatch");
		return auth_failed(ue);
	}
	/* Step 10-12: the AUSF compares RES* with XRES* and returns K_SEAF. */
	rc = ausf_5gaka_confirm(amf->ausf, &ue->auth, r->res_star.p, kseaf);
	if (rc < 0)
		return auth_failed(ue);
	/* TS 33.501 A.7: K_AMF from K_SEAF, SUPI and ABBA. */
	rc = crypto_kdf_kamf(kseaf, ue->supi, abba, sizeof(abba), ue->kamf);
	explicit_bzero(kseaf, sizeof(kseaf));
	amf_as_nh_reset(ue);   /* TS 33.501 6.9.2.1.1: the chain belongs to the old K_AMF */
	ausf_auth_clear(&ue->auth);
	if (rc < 0)
		return amf_auth_reject(ue);
	amf->st.auth_ok++;
	ue->ngksi = ue->pending_ngksi;
	ue->auth_done = true;
	/* The new K_AMF needs a security mode before anything uses it. */
	ue->smc_done = false;
	amf_ue_log(LOGL_INFO, ue, "authenticated ngksi=%u", ue->ngksi);
	return amf_reg_continue(ue);
}

int amf_a_auth_fail(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_authentication_failure *r = &c->msg->auth_fail;
	struct amf *amf = ue->amf;
	int rc;

	amf_tmr_stop(ue, AMF_T3560);
	ue->last_auth_fail = r->cause;
	amf_ue_log(LOGL_INFO, ue, "authentication failure cause=%u (%s)", r->cause,
		   nas_5gmm_cause_name(r->cause));
	switch (r->cause) {
	case NAS_5GMM_SYNCH_FAILURE:
		amf->st.auth_sync_fail++;
		/* TS 24.501 5.4.1.3.7 f) / TS 33.501 6.1.3.3.2: resynchronise once with AUTS
		 * and send a fresh vector; a second failure in a row rejects. */
		if (!r->has_auts || r->auts.len != 14 || ue->auth_resyncs >= AMF_AUTH_MAX_RESYNC)
			return amf_auth_reject(ue);
		ue->auth_resyncs++;
		rc = ausf_5gaka_resync(amf->ausf, &ue->auth, r->auts.p);
		if (rc == -EAGAIN) {
			/* SQN_MS adopted beyond this node's SQN lease (cluster, udm.h): the next
			 * vector waits for the extension. An Authentication Reject would make the UE
			 * take its USIM as invalid (5.4.1.3.5): #22 congestion, it comes back later. */
			amf_ue_log(LOGL_WARN, ue, "resync: SQN lease exhausted, congestion");
			return amf_reg_reject(ue, NAS_5GMM_CONGESTION);
		}
		if (rc < 0) {
			amf_ue_log(LOGL_WARN, ue, "resync failed rc=%d", rc);
			return amf_auth_reject(ue);
		}
		auth_send(ue);
		return AMF_GS_AUTH;
	case NAS_5GMM_MAC_FAILURE:
		/* TS 24.501 5.4.1.3.7 c): the UE found AUTN forged -- or the 5G-GUTI it used
		 * maps to another subscriber here: identification first when it came by
		 * GUTI; identified by SUCI, reject. */
		amf->st.auth_mac_fail++;
		return auth_failed(ue);
	case NAS_5GMM_NGKSI_ALREADY_IN_USE:
		/* TS 24.501 5.4.1.3.7 e): start again with another ngKSI (and a fresh vector);
		 * once only, through the same counter as resynchronisation. */
		if (ue->auth_resyncs >= AMF_AUTH_MAX_RESYNC)
			return amf_auth_reject(ue);
		ue->auth_resyncs++;
		ue->ue_ngksi = ue->pending_ngksi;
		return amf_auth_start(ue);
	default:
		/* #26 non-5G authentication unacceptable, ... */
		return amf_auth_reject(ue);
	}
}

int amf_a_t3560(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	/* TS 24.501 5.4.1.3.7 b) / 5.4.2.7 b): abort the procedure and release. */
	return amf_reg_abort(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
}

/* First algorithm of prio the UE supports (bit 8 = algorithm 0, TS 24.501 9.11.3.54). */
static int pick_alg(const uint8_t *prio, unsigned n, uint8_t caps)
{
	unsigned i;

	for (i = 0; i < n; i++)
		if (prio[i] < 8 && (caps & (0x80u >> prio[i])))
			return prio[i];
	return -1;
}

/* TS 33.501 5.5.2: NIA0 only for unauthenticated emergency sessions. We serve no emergency
 * registration (TS 24.501 5.5.1.2.2: SUCI or 5G-GUTI only), so NIA0 is never selected, even
 * when amf.security.integrity lists it: the UE's 5G-IA0 bit is ignored here. */
static int pick_integ(const struct amf_cfg *c, uint8_t ia)
{
	return pick_alg(c->integ_prio, c->n_integ, (uint8_t)(ia & 0x7fu));
}

bool amf_algs_acceptable(const struct amf_ue *ue)
{
	const struct amf_cfg *c = &ue->amf->cfg;

	return pick_integ(c, ue->sec_cap.ia) >= 0 &&
	       pick_alg(c->ciph_prio, c->n_ciph, ue->sec_cap.ea) >= 0;
}

void amf_algs_log_mismatch(const struct amf_ue *ue)
{
	const struct amf_cfg *c = &ue->amf->cfg;

	if (pick_integ(c, ue->sec_cap.ia) < 0 && pick_alg(c->integ_prio, c->n_integ, ue->sec_cap.ia) == 0)
		amf_ue_log(LOGL_INFO, ue,
			   "UE offers only NIA0 among our integrity algorithms (ia=%02x): null "
			   "integrity is for unauthenticated emergency sessions only (TS 33.501 5.5.2)",
			   ue->sec_cap.ia);
	else
		amf_ue_log(LOGL_INFO, ue, "no common algorithm ue ia=%02x ea=%02x", ue->sec_cap.ia,
			   ue->sec_cap.ea);
}

int amf_smc_start(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;
	struct nas_security_mode_command *c = &m->smc;
	int nia, nea;

	nia = pick_integ(&amf->cfg, ue->sec_cap.ia);
	nea = pick_alg(amf->cfg.ciph_prio, amf->cfg.n_ciph, ue->sec_cap.ea);
	if (nia < 0 || nea < 0) {
		/* TS 24.501 5.5.1.2.5 #23: nothing in common with our configured lists. */
		amf_algs_log_mismatch(ue);
		return amf_reg_reject(ue, NAS_5GMM_UE_SECURITY_CAP_MISMATCH);
	}
	ue->nia = (uint8_t)nia;
	ue->nea = (uint8_t)nea;
	if (amf_nas_derive_keys(ue) < 0)
		return amf_reg_reject(ue, NAS_5GMM_PROTOCOL_ERROR_UNSPECIFIED);
	/* TS 33.501 6.7.2: a new K_AMF starts both NAS COUNTs at 0. */
	ue->sec_ctx = true;
	ue->sec_active = false;
	ue->dl_count = 0;
	ue->ul_count = 0;
	ue->ul_count_valid = false;
	memset(m, 0, sizeof(*m));
	m->type = NAS_SECURITY_MODE_COMMAND;
	c->algs = (uint8_t)(nea << 4 | nia);
	c->ngksi = ue->ngksi;
	/* TS 24.501 5.4.2.2: replay the UE's capabilities exactly as received. */
	c->replayed_ue_sec_cap = ue->sec_cap;
	if (amf->cfg.request_imeisv) {
		c->has_imeisv_request = true;
		c->imeisv_request = 1;
	}
	/* TS 24.501 5.4.2.2: ask for the whole initial message again (RINMR, 9.11.3.12
	 * bit 2) when it came without a verified integrity check. */
	c->has_additional_sec_info = true;
	c->additional_sec_info = ue->initial_ok ? 0x00 : 0x02;
	c->has_abba = true;
	c->abba.p = abba;
	c->abba.len = sizeof(abba);
	amf_nas_send(ue, m, AMF_NAS_SMC, AMF_VIA_DL_NAS, AMF_T3560);
	amf_tmr_start(ue, AMF_T3560);
	return AMF_GS_SMC;
}

int amf_a_smc_cpl(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_security_mode_complete *r = &c->msg->smc_cpl;
	struct amf *amf = ue->amf;
	struct nas_err err;

	/* Only reached with integrity verified by the new context (nas_conn.c). */
	amf_tmr_stop(ue, AMF_T3560);
	amf->st.smc_ok++;
	ue->sec_active = true;
	ue->smc_done = true;
	/* Authenticated (TS 23.502 4.2.2.2.2 steps 8-9): now, and only now, this context
	 * replaces the one the SUPI had. */
	if (!ue->supi_indexed)
		amf_ue_supersede(ue);
	if (r->has_imeisv && r->imeisv.type == NAS_MOBID_IMEISV) {
		memcpy(ue->imeisv, r->imeisv.digits.d, sizeof(ue->imeisv) - 1);
		ue->imeisv[sizeof(ue->imeisv) - 1] = '\0';
	}
	if (r->has_nas_container) {
		/* TS 24.501 4.4.6: the complete initial message (all IEs, not only the
		 * cleartext ones) is in the NAS message container. */
		if (amf_nas_decode_ul(ue, r->nas_container.p, r->nas_container.len, &amf->nrx2, &err) == 0 &&
		    amf->nrx2.type == NAS_REGISTRATION_REQUEST) {
			struct nas_ue_sec_cap before = ue->sec_cap;

			amf_reg_take_ies(ue, &amf->nrx2.reg_req);
			if (memcmp(&before, &ue->sec_cap, sizeof(before)) != 0)
				amf_ue_log(LOGL_WARN, ue, "UE security capabilities changed in container");
		} else {
			amf_ue_log(LOGL_WARN, ue, "undecodable NAS message container ignored");
		}
	}
	return amf_reg_continue(ue);
}

int amf_a_smc_rej(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_security_mode_reject *r = &c->msg->smc_rej;

	ue->amf->st.smc_reject++;
	amf_ue_log(LOGL_INFO, ue, "security mode rejected cause=%u (%s)", r->cause,
		   nas_5gmm_cause_name(r->cause));
	/* TS 24.501 5.4.2.5: stop T3560 and abort the procedure that triggered it. */
	ue->sec_ctx = false;
	return amf_reg_abort(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
}
