/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Registration (TS 24.501 5.5.1, TS 23.502 4.2.2.2) as the parent procedure:
 * identification, authentication and security mode run as its children and
 * report back through amf_reg_continue(). Also identification (5.4.3), the
 * registration reject / accept / complete and the configuration update (5.4.4).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "amf/amf_int.h"
#include "common/crypto/crypto.h"
#include "common/log.h"
#include "udm/udm.h"

/* TS 24.501 9.11.3.2 cause #62 "No network slices available". */
#define AMF_5GMM_NO_NETWORK_SLICES 62

/* Registration latency (amf_reg_latency): t0 is the ev loop's time cached at the top of
 * the iteration, so measuring costs no clock call. reg_t0_ns 0 means "not measuring"; a
 * loop that has not run yet reads 0 too, so the start is kept at 1 ns at least. */
static void reg_latency_start(struct amf_ue *ue, uint64_t t0)
{
	ue->reg_t0_ns = t0 ? t0 : 1;
}

static void reg_latency_done(struct amf_ue *ue)
{
	uint64_t now = ev_now_ns(ue->amf->loop);

	if (!ue->reg_t0_ns)
		return;
	hist_add(&ue->amf->reg_latency, now > ue->reg_t0_ns ? now - ue->reg_t0_ns : 0);
	ue->reg_t0_ns = 0;
}

static void plmn_to_nas(const struct amf *amf, struct nas_plmn *p)
{
	nas_plmn_dec(amf->cfg.plmn, p);
}

void amf_reg_take_ies(struct amf_ue *ue, const struct nas_registration_request *r)
{
	unsigned i;

	if (r->has_ue_sec_cap) {
		ue->sec_cap = r->ue_sec_cap;
		ue->ue_sec_cap[0] = r->ue_sec_cap.ea;
		ue->ue_sec_cap[1] = r->ue_sec_cap.ia;
		ue->ue_sec_cap[2] = r->ue_sec_cap.eea;
		ue->ue_sec_cap[3] = r->ue_sec_cap.eia;
		ue->ue_sec_cap_len = r->ue_sec_cap.has_eps ? 4 : 2;
		ue->ue_sec_cap_valid = true;
	}
	if (r->has_requested_nssai) {
		ue->requested.n = 0;
		for (i = 0; i < r->requested_nssai.n && ue->requested.n < AMF_MAX_NSSAI; i++) {
			ue->requested.s[ue->requested.n].sst = r->requested_nssai.s[i].sst;
			ue->requested.s[ue->requested.n].sd =
				r->requested_nssai.s[i].has_sd ? r->requested_nssai.s[i].sd : AMF_SD_NONE;
			ue->requested.n++;
		}
	}
	/* TS 24.501 5.5.1.3.4: PDU session status of a registration updating. */
	if (r->has_pdu_session_status) {
		ue->has_reg_pss = true;
		ue->reg_pss = r->pdu_session_status;
	}
	if (r->has_ul_data_status) {
		ue->has_reg_uds = true;
		ue->reg_uds = r->ul_data_status;
	}
}

int amf_reg_suci(struct amf_ue *ue, const struct nas_suci *suci)
{
	struct amf *amf = ue->amf;
	struct udm_suci us;
	char supi[UDM_SUPI_MAX];
	uint8_t plmn[3];
	struct nas_plmn p = suci->plmn;
	int rc;

	if (suci->supi_format != 0)
		return NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED; /* NAI SUPIs: not provisioned here */
	nas_plmn_enc(&p, plmn);
	if (memcmp(plmn, amf->cfg.plmn, 3) != 0) {
		/* TS 24.501 5.5.1.2.5 #11: the home network of this UE is not ours and we
		 * have no roaming agreements. */
		return NAS_5GMM_PLMN_NOT_ALLOWED;
	}
	snprintf(us.mcc, sizeof(us.mcc), "%03u", suci->plmn.mcc % 1000);
	snprintf(us.mnc, sizeof(us.mnc), suci->plmn.mnc3 ? "%03u" : "%02u", suci->plmn.mnc % 1000);
	us.scheme = suci->scheme;
	us.hnpki = suci->hn_key_id;
	us.out = suci->output.p;
	us.out_len = suci->output.len;
	rc = udm_suci_to_supi(amf->udm, &us, supi);
	if (rc < 0) {
		amf_ue_log(LOGL_WARN, ue, "SUCI not resolvable scheme=%u key=%u rc=%d", us.scheme, us.hnpki, rc);
		/* TS 33.501 6.12.5: de-concealment failed; the UE's identity is unknown. */
		return NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED;
	}
	/* A SUCI proves nothing (the null scheme is the IMSI in clear): any context of the
	 * same SUPI stays as it is until this one has authenticated (TS 23.502 4.2.2.2.2;
	 * amf_ue_supersede at SECURITY MODE COMPLETE). */
	if (ue->has_supi && strcmp(ue->supi, supi) != 0 && ue->supi_indexed) {
		amf_ue_log(LOGL_WARN, ue, "SUCI names another SUPI than this context's");
		return NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED;
	}
	if (!ue->supi_indexed)
		amf_ue_set_supi_pending(ue, supi);
	ue->ident_by_guti = false;
	amf_ue_log(LOGL_INFO, ue, "identified supi=%s", supi);
	return 0;
}

static int ident_start(struct amf_ue *ue)
{
	struct nas_msg *m = &ue->amf->ntx;

	memset(m, 0, sizeof(*m));
	m->type = NAS_IDENTITY_REQUEST;
	m->id_req.identity_type = NAS_MOBID_SUCI;
	ue->ident_type = NAS_MOBID_SUCI;
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_T3570);
	amf_tmr_start(ue, AMF_T3570);
	return AMF_GS_IDENT;
}

/* TS 24.501 5.4.1.3.5 / 5.4.1.3.7 c): an authentication that failed for a UE the 5G-GUTI
 * identified (the GUTI may name someone else): ask for the SUCI before any reject. */
int amf_reg_ident_after_auth(struct amf_ue *ue)
{
	ue->auth_after_ident = true;
	return ident_start(ue);
}

int amf_a_id_rsp(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_identity_response *r = &c->msg->id_resp;
	char was[AMF_SUPI_MAX];
	int cause;

	amf_tmr_stop(ue, AMF_T3570);
	if (r->mobile_id.type != NAS_MOBID_SUCI)
		return amf_reg_reject(ue, NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED);
	snprintf(was, sizeof(was), "%s", ue->has_supi ? ue->supi : "");
	cause = amf_reg_suci(ue, &r->mobile_id.suci);
	if (cause)
		return amf_reg_reject(ue, (uint8_t)cause);
	if (ue->auth_after_ident) {
		ue->auth_after_ident = false;
		if (ue->last_auth_fail == NAS_5GMM_MAC_FAILURE || strcmp(was, ue->supi) != 0) {
			/* TS 24.501 5.4.1.3.5: another SUPI than the 5G-GUTI's: authenticate
			 * that one; 5.4.1.3.7 c): after #20 a new authentication either way. */
			ue->auth_resyncs = 0;
			return amf_auth_start(ue);
		}
		/* TS 24.501 5.4.1.3.5: the SUCI names the SUPI the RES* failed for. */
		return amf_auth_reject(ue);
	}
	return amf_reg_continue(ue);
}

static bool tac_served(const struct amf *amf, uint32_t tac)
{
	for (unsigned i = 0; i < amf->cfg.n_tacs; i++)
		if (amf->cfg.tacs[i] == tac)
			return true;
	return false;
}

/* TS 24.501 4.4.6 b): with a valid context the UE sends only the cleartext IEs in the
 * clear and the whole REGISTRATION REQUEST in the NAS message container. */
static void take_container(struct amf_ue *ue, const struct nas_registration_request *r)
{
	if (amf_nas_container_open(ue, &r->nas_container, NAS_REGISTRATION_REQUEST) == 0)
		amf_reg_take_ies(ue, &ue->amf->nrx2.reg_req);
}

/* Who the REGISTRATION REQUEST says it is: 0 with ue->has_supi set (or not: identify),
 * or a 5GMM cause. ue is the context nas_conn.c dispatched on: the one the 5G-GUTI
 * names when the message verified with it, else a context of its own. */
static int reg_identity(struct amf_ue *ue, const struct nas_registration_request *r,
			const struct amf_gmm_ctx *c)
{
	const struct amf_ue *named = c->named;

	if (r->mobile_id.type == NAS_MOBID_SUCI)
		return ue->has_supi && ue->supi_indexed ? 0 : amf_reg_suci(ue, &r->mobile_id.suci);
	if (r->mobile_id.type != NAS_MOBID_5G_GUTI) {
		/* TS 24.501 5.5.1.2.2: SUCI or 5G-GUTI only (IMEI is for emergency). */
		return NAS_5GMM_UE_IDENTITY_CANNOT_BE_DERIVED;
	}
	if (ue->has_supi)
		return 0;
	if (named && named->has_supi && named->supi_indexed) {
		/* Known 5G-GUTI, message not verified with its context (TS 24.501 4.4.4.3):
		 * authenticate the SUPI it maps to, in this context; the named one is left
		 * alone (TS 23.502 4.2.2.2.2). */
		amf_ue_set_supi_pending(ue, named->supi);
		ue->ident_by_guti = true;
		amf_ue_log(LOGL_INFO, ue, "5G-GUTI of ue=%u, not integrity verified: authenticating", named->idx);
	}
	return 0;   /* unknown 5G-GUTI: identification (TS 24.501 5.5.1.2.2, 5.4.3) */
}

int amf_a_reg_req(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	const struct nas_registration_request *r = &c->msg->reg_req;
	struct amf *amf = ue->amf;
	uint8_t type = r->reg_type & 0x07;
	int cause;

	/* TS 24.501 9.11.3.7: 1 initial, 2 mobility updating, 3 periodic updating. */
	if (type < 1 || type > 3)
		return amf_reg_reject(ue, NAS_5GMM_SEMANTICALLY_INCORRECT);
	/* TS 24.501 5.5.1.2.8 f): a new REGISTRATION REQUEST during a common procedure
	 * aborts it and starts again; one after the accept replaces that registration. */
	amf_tmr_stop(ue, AMF_T3560);
	amf_tmr_stop(ue, AMF_T3570);
	amf_tmr_stop(ue, AMF_T3550);
	ue->parent = AMF_PARENT_REG;
	reg_latency_start(ue, ev_now_ns(amf->loop));
	ue->reg_type = r->reg_type;
	ue->follow_on = (r->reg_type & 0x08) != 0;
	ue->ue_ngksi = r->ngksi & 0x07;
	ue->has_reg_pss = false;   /* of this request only, not of one that was aborted */
	ue->has_reg_uds = false;
	amf_reg_take_ies(ue, r);
	if (c->initial && ue->initial_ok && r->has_nas_container)
		take_container(ue, r);
	cause = reg_identity(ue, r, c);
	if (!cause && !tac_served(amf, ue->tac)) {
		/* TS 24.501 5.5.1.2.5 #12: the cell's tracking area is not one this AMF serves
		 * (its TAC was dropped from the served list, live, after the gNB's NG Setup);
		 * the UE bars the TA and looks for another. Before authentication: no vector spent. */
		amf_ue_log(LOGL_INFO, ue, "registration from TAC %06x, not served: #12", ue->tac);
		cause = NAS_5GMM_TA_NOT_ALLOWED;
	}
	if (!cause && !ue->ue_sec_cap_valid && type == 1) {
		/* TS 24.501 8.2.6.4: mandatory for initial registration. */
		cause = NAS_5GMM_INVALID_MANDATORY_INFO;
	}
	if (!cause && ue->ue_sec_cap_valid && !amf_algs_acceptable(ue)) {
		/* TS 24.501 5.5.1.2.5 #23: nothing in common with amf.security lists (NIA0 does
		 * not count, TS 33.501 5.5.2); said before spending an authentication vector (and
		 * an SQN) on a UE we cannot protect. */
		amf_algs_log_mismatch(ue);
		cause = NAS_5GMM_UE_SECURITY_CAP_MISMATCH;
	}
	if (cause)
		return amf_reg_reject(ue, (uint8_t)cause);
	ue->auth_done = false;
	ue->smc_done = false;
	ue->auth_resyncs = 0;
	ue->auth_after_ident = false;
	/* TS 24.501 5.5.1.3.2: a periodic / mobility registration over a verified
	 * security context needs neither authentication nor security mode -- unless the
	 * NAS COUNT is close to wrapping (TS 33.501 6.4.3.1). */
	if (ue->sec_active && type != 1 && !amf_counts_near_wrap(ue)) {
		ue->auth_done = true;
		ue->smc_done = true;
	}
	return amf_reg_continue(ue);
}

static bool snssai_eq(const struct amf_snssai *a, uint8_t sst, uint32_t sd)
{
	return a->sst == sst && a->sd == sd;
}

static bool served(const struct amf *amf, uint8_t sst, uint32_t sd)
{
	unsigned i;

	for (i = 0; i < amf->cfg.n_slices; i++)
		if (snssai_eq(&amf->cfg.slices[i], sst, sd))
			return true;
	return false;
}

/* TS 23.501 5.15.5.2.1: allowed = requested ∩ subscribed ∩ served; with nothing
 * requested (or nothing of it allowed), the subscribed S-NSSAIs we serve. */
static void allowed_of(const struct amf_ue *ue, const struct udm_sub_data *sub, struct amf_nssai *out)
{
	const struct amf *amf = ue->amf;
	unsigned i, j;

	out->n = 0;
	for (i = 0; i < ue->requested.n; i++) {
		const struct amf_snssai *rq = &ue->requested.s[i];

		for (j = 0; j < sub->n_slices; j++)
			if (sub->slices[j].sst == rq->sst && sub->slices[j].sd == rq->sd &&
			    served(amf, rq->sst, rq->sd) && out->n < AMF_MAX_NSSAI)
				out->s[out->n++] = *rq;
	}
	if (out->n)
		return;
	for (j = 0; j < sub->n_slices && out->n < AMF_MAX_NSSAI; j++)
		if (served(amf, sub->slices[j].sst, sub->slices[j].sd)) {
			out->s[out->n].sst = sub->slices[j].sst;
			out->s[out->n].sd = sub->slices[j].sd;
			out->n++;
		}
}

static void compute_allowed(struct amf_ue *ue, const struct udm_sub_data *sub)
{
	allowed_of(ue, sub, &ue->allowed);
}

static void nssai_to_nas(const struct amf_nssai *in, struct nas_nssai *out)
{
	unsigned i;

	memset(out, 0, sizeof(*out));
	out->n = in->n;
	for (i = 0; i < in->n; i++) {
		out->s[i].sst = in->s[i].sst;
		out->s[i].has_sd = in->s[i].sd != AMF_SD_NONE;
		out->s[i].sd = in->s[i].sd;
	}
}

static void guti_to_nas(const struct amf_ue *ue, struct nas_mobile_id *id)
{
	const struct amf *amf = ue->amf;

	memset(id, 0, sizeof(*id));
	id->type = NAS_MOBID_5G_GUTI;
	plmn_to_nas(amf, &id->guti.plmn);
	id->guti.amf_region_id = amf->cfg.amf_region_id;
	id->guti.amf_set_id = amf->cfg.amf_set_id;
	id->guti.amf_pointer = amf->cfg.amf_pointer;
	id->guti.tmsi = ue->tmsi;
}

/* TS 24.501 9.11.3.5: no optional network features (IMS VoPS, EMC, ... all 0). */
static const uint8_t nw_feature_support[2] = { 0x00, 0x00 };

/* TS 24.501 5.5.1.3.4 (and 5.5.1.2.4 for the list): the TAI list is the registration area
 * of the TA the UE registers in (ue->tac, from the ULI of the message that carried the
 * request, or of the PATH SWITCH REQUEST that moved it); the UE is paged there from now on. */
static void reg_tai_list(struct amf_ue *ue, struct nas_tai_list *l)
{
	struct amf *amf = ue->amf;
	uint32_t tacs[NAS_TAI_MAX];
	unsigned i, n;

	ue->ra = amf_ra_of(amf, ue->tac);
	n = amf_ra_tacs(amf, ue->ra, tacs, NAS_TAI_MAX);
	for (i = 0; i < n; i++) {
		plmn_to_nas(amf, &l->tai[i].plmn);
		l->tai[i].tac = tacs[i];
	}
	l->n = (uint8_t)n;
}

/* TS 24.501 5.5.1.3.4: the sessions of a mobility / periodic registration. The PDU session
 * status syncs both sides (the network releases locally what the UE no longer has); with
 * an Uplink data status the user planes it names are re-established as for a service
 * request (TS 23.502 4.2.2.2.2 step 20, 4.2.3.2): in the Initial Context Setup from idle,
 * by PDU Session Resource Setup when connected -- where the sessions already up (an Xn
 * handover kept them) stay as they are. Called before the accept is built (amf->ntx). */
static void reg_sessions(struct amf_ue *ue, struct nas_registration_accept *a)
{
	struct nas_service_request r = {
		.has_ul_data_status = true, .ul_data_status = ue->reg_uds,
		.has_pdu_session_status = ue->has_reg_pss, .pdu_session_status = ue->reg_pss,
	};
	struct nas_service_accept sa;

	if ((ue->reg_type & 0x07) == 1 || (!ue->sm && !ue->has_reg_pss && !ue->has_reg_uds))
		return;
	if (!ue->has_reg_uds) {
		a->has_pdu_session_status = true;
		a->pdu_session_status = amf_sm_status(ue, ue->has_reg_pss, ue->reg_pss);
		return;
	}
	memset(&sa, 0, sizeof(sa));
	if (ue->ics_sent)
		amf_sm_service_connected(ue, &r, &sa);
	else
		amf_sm_service(ue, &r, &sa);
	a->has_pdu_session_status = true;
	a->pdu_session_status = sa.pdu_session_status;
	a->has_reactivation_result = true;
	a->reactivation_result = sa.reactivation_result;
}

static int reg_accept(struct amf_ue *ue)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;
	struct nas_registration_accept *a = &m->reg_acc;
	const struct udm_sub_data *sub = udm_get(amf->udm, ue->supi);
	struct nas_registration_accept sess = { .reg_result = 0 };

	if (!sub)
		return amf_reg_reject(ue, NAS_5GMM_5GS_SERVICES_NOT_ALLOWED);
	compute_allowed(ue, sub);
	amf_sm_allowed_sync(ue);
	amf_ue_ambr_load(ue, sub);
	if (!ue->allowed.n) {
		/* TS 24.501 5.5.1.2.5 #62: no S-NSSAI can be allowed. */
		return amf_reg_reject(ue, AMF_5GMM_NO_NETWORK_SLICES);
	}
	/* TS 24.501 5.5.1.2.4 / TS 23.502 4.2.2.2.2 step 14: an initial registration of a UE
	 * we still hold sessions for releases them locally (the UE did so itself). */
	if ((ue->reg_type & 0x07) == 1)
		amf_sm_detach(ue);
	reg_sessions(ue, &sess);
	/* TS 33.501 6.12.3: a fresh 5G-GUTI on every initial / mobility registration; the
	 * one the UE holds stays valid until REGISTRATION COMPLETE (TS 24.501 5.5.1.2.4). */
	amf_ue_new_tmsi(ue, amf_tmsi_alloc(amf));
	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_ACCEPT;
	a->reg_result = 0x01;            /* 9.11.3.6: 3GPP access */
	a->has_guti = true;
	guti_to_nas(ue, &a->guti);
	a->has_tai_list = true;
	reg_tai_list(ue, &a->tai_list);
	a->has_allowed_nssai = true;
	nssai_to_nas(&ue->allowed, &a->allowed_nssai);
	/* The accept carries the allowed NSSAI of the served slices now: a configuration
	 * update still owed for an earlier change is not needed any more (TS 24.501 5.4.4.1). */
	ue->nssai_cuc_pending = false;
	ue->nssai_cuc_inflight = false;
	a->has_nw_feature_support = true;
	a->nw_feature_support.p = nw_feature_support;
	a->nw_feature_support.len = sizeof(nw_feature_support);
	a->has_t3512 = true;
	a->t3512 = nas_gprs_timer3_enc(amf->cfg.t3512_s);
	/* TS 24.501 5.5.1.3.4: the accept tells the UE which sessions the network still holds
	 * (and which user planes could not be re-established). */
	a->has_pdu_session_status = sess.has_pdu_session_status;
	a->pdu_session_status = sess.pdu_session_status;
	a->has_reactivation_result = sess.has_reactivation_result;
	a->reactivation_result = sess.reactivation_result;
	ue->has_reg_pss = false;
	ue->has_reg_uds = false;
	amf->st.reg_accepted++;
	amf->reg_acc_type[ue->reg_type & 0x07]++;   /* TS 24.501 9.11.3.7 (amf_reg_counts) */
	amf_ue_log(LOGL_INFO, ue, "registration accepted type=%u tmsi=%08x nia=%u nea=%u slices=%u tac=%06x tais=%u",
		   ue->reg_type & 0x07, ue->tmsi, ue->nia, ue->nea, ue->allowed.n, ue->tac, a->tai_list.n);
	/* TS 23.502 4.2.2.2.2 step 21: the accept rides on Initial Context Setup
	 * when the RAN has no UE context yet. */
	amf_nas_send(ue, m, AMF_NAS_AUTO, ue->ics_sent ? AMF_VIA_DL_NAS : AMF_VIA_ICS, AMF_T3550);
	/* TS 24.501 5.5.1.2.4: T3550 because a new 5G-GUTI is in the accept. */
	amf_tmr_start(ue, AMF_T3550);
	/* TS 24.501 5.5.1.2.4: without a new 5G-GUTI (or another IE asking for it) no
	 * COMPLETE comes: the registration ends with the accept. */
	if (!a->has_guti) {
		reg_latency_done(ue);
		return AMF_GS_REGISTERED;
	}
	return AMF_GS_WAIT_COMPLETE;
}

/* The common procedures one after the other, then what they ran for (ue->parent). */
int amf_reg_continue(struct amf_ue *ue)
{
	if (!ue->has_supi)
		return ident_start(ue);
	if (!ue->auth_done)
		return amf_auth_start(ue);
	if (!ue->smc_done)
		return amf_smc_start(ue);
	switch (ue->parent) {
	case AMF_PARENT_DEREG:
		return amf_dereg_authenticated(ue);
	case AMF_PARENT_SVC:
		return amf_service_accept(ue);
	default:
		return reg_accept(ue);
	}
}

int amf_reg_reject(struct amf_ue *ue, uint8_t cause)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;

	amf->st.reg_rejected++;
	amf->reg_rej_cause[cause]++;                /* TS 24.501 9.11.3.2 (amf_reg_counts) */
	ue->reg_t0_ns = 0;   /* the latency is of completed registrations */
	amf_ue_log(LOGL_INFO, ue, "registration rejected cause=%u (%s)", cause, nas_5gmm_cause_name(cause));
	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REJECT;
	m->reg_rej.cause = cause;
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_TMR_COUNT);
	amf_tmr_stop_all(ue);
	/* TS 33.501 6.8.1.1.1: a reject removes the security parameters; the context goes
	 * with the connection (amf_a_an_rel). */
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_NORMAL_RELEASE);
	return AMF_GS_DEREGISTERED;
}

/* A common procedure failed or gave up: its parent ends and the connection is released.
 * A service request's parent leaves the UE registered (its old key is gone with the
 * authentication, so it comes back with a registration). */
int amf_reg_abort(struct amf_ue *ue, uint8_t ngap_cause_group, uint8_t ngap_cause)
{
	amf_tmr_stop(ue, AMF_T3560);
	amf_tmr_stop(ue, AMF_T3570);
	amf_ue_log(LOGL_INFO, ue, "procedure aborted");
	amf_ue_release(ue, ngap_cause_group, ngap_cause);
	return ue->parent == AMF_PARENT_SVC ? AMF_GS_REGISTERED : AMF_GS_DEREGISTERED;
}

/* TS 24.501 5.4.4.2: network name and time zone when configured, and / or a new
 * 5G-GUTI; always with "acknowledgement requested" so T3555 guards it. after_initial:
 * the command that follows an initial registration (amf_cfg.cuc_after_reg): the full
 * network name defaults to amf_name and the time zone to UTC. */
static bool cfg_update_send(struct amf_ue *ue, bool new_guti, bool after_initial)
{
	struct amf *amf = ue->amf;
	struct nas_msg *m = &amf->ntx;
	struct nas_configuration_update_command *c = &m->cuc;
	static uint8_t full[AMF_NAME_MAX * 2], shrt[AMF_NAME_MAX * 2];
	bool names = amf->cfg.network_full_name[0] || amf->cfg.network_short_name[0] || amf->cfg.send_tz;
	bool always = after_initial && amf->cfg.cuc_after_reg;
	bool nssai = ue->nssai_cuc_pending;
	const char *full_name = amf->cfg.network_full_name[0] ? amf->cfg.network_full_name
				: always ? amf->cfg.amf_name : "";

	if (!names && !new_guti && !always && !nssai)
		return false;
	memset(m, 0, sizeof(*m));
	m->type = NAS_CONFIGURATION_UPDATE_COMMAND;
	/* TS 24.501 9.11.3.18: acknowledgement requested (bit 1). */
	c->has_cfg_update_ind = true;
	c->cfg_update_ind = 0x01;
	if (nssai) {
		/* TS 24.501 5.4.4.2: a new allowed NSSAI is acknowledged (T3555). One AMF serves
		 * every slice here, so no AMF relocation and no "registration requested" (TS 23.501
		 * 5.15.5.2.2: the new Allowed NSSAI by UE Configuration Update) -- except when
		 * nothing is left to allow: an Allowed NSSAI IE holds at least one S-NSSAI
		 * (9.11.3.37), so the UE is asked to register (bit 2), which ends in #62. */
		ue->nssai_cuc_pending = false;
		ue->nssai_cuc_inflight = true;
		ue->nssai_cuc_reg_req = ue->allowed.n == 0;
		if (ue->allowed.n) {
			c->has_allowed_nssai = true;
			nssai_to_nas(&ue->allowed, &c->allowed_nssai);
		} else {
			c->cfg_update_ind |= 0x02;
		}
	}
	if (new_guti) {
		ue->pending_tmsi = amf_tmsi_alloc(amf);
		ue->has_pending_tmsi = true;
		c->has_guti = true;
		guti_to_nas(ue, &c->guti);
		c->guti.guti.tmsi = ue->pending_tmsi;
	}
	if (full_name[0] && nas_network_name_set_ascii(&c->full_name, full_name, full, sizeof(full)) >= 0)
		c->has_full_name = true;
	if (amf->cfg.network_short_name[0] &&
	    nas_network_name_set_ascii(&c->short_name, amf->cfg.network_short_name, shrt, sizeof(shrt)) >= 0)
		c->has_short_name = true;
	if (amf->cfg.send_tz || always) {
		/* TS 24.008 10.5.3.8: quarter hours, BCD swapped, bit 4 of octet = sign. */
		int q = amf->cfg.tz_quarters < 0 ? -amf->cfg.tz_quarters : amf->cfg.tz_quarters;

		c->has_local_time_zone = true;
		c->local_time_zone = (uint8_t)(((q % 10) << 4) | (q / 10) | (amf->cfg.tz_quarters < 0 ? 0x08 : 0));
	}
	amf_nas_send(ue, m, AMF_NAS_AUTO, AMF_VIA_DL_NAS, AMF_T3555);
	amf_tmr_start(ue, AMF_T3555);
	return true;
}

/* A configuration update needs a connected UE with NAS security and no other procedure
 * waiting for an answer (TS 24.501 5.4.4.1; the table takes CUC_START in REGISTERED). */
static bool cuc_possible(const struct amf_ue *ue)
{
	return ue->gnb && !ue->release_pending && ue->sec_active && ue->state == AMF_GS_REGISTERED;
}

int amf_a_cuc_start(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	if (!cuc_possible(ue))
		return -EAGAIN;
	return cfg_update_send(ue, (c->arg & AMF_CUC_NEW_GUTI) != 0, (c->arg & AMF_CUC_AFTER_INITIAL) != 0)
		       ? AMF_GS_CFG_UPDATE : AMF_GS_REGISTERED;
}

int amf_guti_reallocate(struct amf *amf, const char *supi)
{
	struct amf_ue *ue = amf_ue_by_supi(amf, supi);

	if (!ue || ue->reaping)
		return -ENOENT;
	struct amf_gmm_ctx c = { .arg = AMF_CUC_NEW_GUTI };

	if (!cuc_possible(ue))
		return -EAGAIN;   /* needs a connected UE with no procedure running */
	return amf_gmm_dispatch(ue, AMF_EV_CUC_START, &c) < 0 ? -EAGAIN : 0;
}

int amf_a_reg_cpl(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	amf_tmr_stop(ue, AMF_T3550);
	/* TS 24.501 5.5.1.2.4: the old 5G-GUTI is not valid any more. */
	amf_ue_drop_old_tmsi(ue);
	reg_latency_done(ue);
	amf_ue_log(LOGL_INFO, ue, "registration complete");
	/* TS 24.501 5.4.4.2: network name and time zone after registration (QCore's cycle
	 * messages 9-10: always after an initial registration by default). TS 33.501
	 * 6.12.3 does not ask for another 5G-GUTI here: the accept carried one. */
	return cfg_update_send(ue, false, (ue->reg_type & 0x07) == 1) ? AMF_GS_CFG_UPDATE
								     : AMF_GS_REGISTERED;
}

int amf_a_t3550(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	/* TS 24.501 5.5.1.2.8 c): abort, both 5G-GUTIs stay valid, release the connection. */
	amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_UNSPECIFIED);
	return AMF_GS_REGISTERED;
}

int amf_a_cuc_cpl(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	bool reg_req = ue->nssai_cuc_inflight && ue->nssai_cuc_reg_req;

	(void)c;
	/* TS 24.501 5.4.4.4: the new 5G-GUTI is in use from now on, the old one is not. */
	amf_tmr_stop(ue, AMF_T3555);
	if (ue->has_pending_tmsi) {
		amf_ue_set_tmsi(ue, ue->pending_tmsi);
		ue->has_pending_tmsi = false;
		amf_ue_log(LOGL_INFO, ue, "5G-GUTI reallocated tmsi=%08x", ue->tmsi);
	}
	if (ue->nssai_cuc_inflight)
		amf_ue_log(LOGL_INFO, ue, "allowed NSSAI updated slices=%u", ue->allowed.n);
	ue->nssai_cuc_inflight = false;
	ue->nssai_cuc_reg_req = false;
	if (reg_req) {
		/* TS 24.501 5.4.4.3: with "registration requested" the UE registers once the
		 * N1 NAS signalling connection is released: release it. */
		amf_ue_release(ue, NGAP_CAUSE_NAS, AMF_CAUSE_NAS_NORMAL_RELEASE);
		return AMF_GS_REGISTERED;
	}
	/* The served slices changed again while this command was out. */
	if (ue->nssai_cuc_pending && ue->gnb && !ue->release_pending && cfg_update_send(ue, false, false))
		return AMF_GS_CFG_UPDATE;
	return AMF_GS_REGISTERED;
}

int amf_a_t3555(struct amf_ue *ue, struct amf_gmm_ctx *c)
{
	(void)c;
	/* TS 24.501 5.4.4.5 a): abort the configuration update. The old 5G-GUTI stays the
	 * one we index (the spec lets both be valid; the UE re-registers with either). */
	ue->has_pending_tmsi = false;
	if (ue->nssai_cuc_inflight) {
		/* The allowed NSSAI is still owed: sent again on the next connection. */
		ue->nssai_cuc_inflight = false;
		ue->nssai_cuc_pending = true;
	}
	amf_ue_log(LOGL_INFO, ue, "configuration update aborted");
	return AMF_GS_REGISTERED;
}

void amf_nssai_cuc_try(struct amf_ue *ue)
{
	if (!ue->nssai_cuc_pending || !cuc_possible(ue))
		return;   /* later: after the procedure running, or on the next connection */
	amf_gmm_dispatch(ue, AMF_EV_CUC_START, NULL);
}

/* Field by field: struct amf_snssai has padding after sst. Same order too (the list is
 * sent in this order). */
static bool nssai_eq(const struct amf_nssai *a, const struct amf_nssai *b)
{
	if (a->n != b->n)
		return false;
	for (unsigned i = 0; i < a->n; i++)
		if (a->s[i].sst != b->s[i].sst || a->s[i].sd != b->s[i].sd)
			return false;
	return true;
}

static bool nssai_has(const struct amf_nssai *a, const struct amf_snssai *s)
{
	for (unsigned i = 0; i < a->n; i++)
		if (a->s[i].sst == s->sst && a->s[i].sd == s->sd)
			return true;
	return false;
}

static bool nssai_meets(const struct amf_nssai *a, const struct amf_nssai *b)
{
	for (unsigned i = 0; i < b->n; i++)
		if (nssai_has(a, &b->s[i]))
			return true;
	return false;
}

/* Can the served-slice change (removed rm, added add) change the allowed NSSAI of ue?
 * Exact for a list computed by allowed_of() with the same subscription, and without the
 * subscription lookup (most of the cost of the walk, measured at 10^6 UEs: 300-500 ns a
 * UE looked up, 45-70 ns one skipped): a removed slice that is
 * allowed, or an added one that is requested; or, when the list is the subscribed
 * fallback (nothing requested got in: allowed is not a non-empty part of requested), any
 * added one (it may be subscribed). */
static bool may_change(const struct amf_ue *ue, const struct amf_nssai *rm, const struct amf_nssai *add)
{
	unsigned i;
	bool fallback = !ue->allowed.n;

	if (nssai_meets(&ue->allowed, rm))
		return true;
	if (!add->n)
		return false;
	for (i = 0; i < ue->allowed.n && !fallback; i++)
		fallback = !nssai_has(&ue->requested, &ue->allowed.s[i]);
	return fallback || nssai_meets(&ue->requested, add);
}

/* TS 23.501 5.15.5.2.2: the AMF updates the allowed NSSAI of registered UEs when the
 * network slices it serves change, and tells them by UE Configuration Update (TS 23.502
 * 4.2.4.2 / TS 24.501 5.4.4), connected ones now, idle ones when they next connect (the
 * procedure needs 5GMM-CONNECTED, 5.4.4.1; we do not page for it). Sessions on an S-NSSAI
 * no longer allowed are released first (TS 23.502 4.3.4.2), with #36 "regular
 * deactivation": TS 24.501 6.3.3 has no slice-specific cause for an operator's change
 * (#69 is about slice congestion and would start a back-off in the UE). */
/* One step of the walk: at most AMF_NSSAI_STEP slots from the cursor. True when done. */
static bool nssai_step(struct amf *amf)
{
	struct amf_nssai_walk *w = &amf->nssai_walk;
	uint32_t i = w->cursor, end = amf->ues_hw;
	struct amf_nssai nw;

	if (end - i > AMF_NSSAI_STEP)
		end = i + AMF_NSSAI_STEP;
	for (; i < end; i++) {
		struct amf_ue *ue = &amf->ues[i];
		const struct udm_sub_data *sub;

		/* Registrations in progress compute their list at the accept. */
		if (!ue->in_use || ue->reaping || !amf_gmm_registered(ue) || !ue->supi_indexed ||
		    (!w->all && !may_change(ue, &w->rm, &w->add)))
			continue;
		sub = udm_get(amf->udm, ue->supi);
		if (!sub)
			continue;
		allowed_of(ue, sub, &nw);
		if (nssai_eq(&nw, &ue->allowed))
			continue;
		w->changed++;
		ue->allowed = nw;
		amf_sm_allowed_sync(ue);
		amf_sm_release_disallowed(ue, NAS_5GSM_REGULAR_DEACTIVATION);
		ue->nssai_cuc_pending = true;
		amf_nssai_cuc_try(ue);
	}
	w->cursor = i;
	return i >= amf->ues_hw;
}

static void nssai_walk_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct amf *amf = t->arg;
	struct amf_nssai_walk *w = &amf->nssai_walk;

	if (!nssai_step(amf)) {
		ev_timer_start(loop, &w->tmr, 0);
		return;
	}
	w->running = false;
	log_info("amf", "allowed NSSAI walk done: changed for %u UE(s)", w->changed);
}

void amf_nssai_walk_init(struct amf *amf)
{
	ev_timer_init(&amf->nssai_walk.tmr, nssai_walk_cb, amf);
}

void amf_nssai_walk_stop(struct amf *amf)
{
	ev_timer_stop(amf->loop, &amf->nssai_walk.tmr);
	amf->nssai_walk.running = false;
}

unsigned amf_nssai_refresh(struct amf *amf, const struct amf_snssai *old, unsigned n_old)
{
	struct amf_nssai_walk *w = &amf->nssai_walk;
	struct amf_nssai was, now, rm = { .n = 0 }, add = { .n = 0 };
	uint32_t i;
	bool all = !old;   /* amf_nssai_resync: the subscriptions may have changed too */

	was.n = 0;
	for (i = 0; i < n_old && i < AMF_MAX_NSSAI; i++)
		was.s[was.n++] = old[i];
	now.n = 0;
	for (i = 0; i < amf->cfg.n_slices && i < AMF_MAX_NSSAI; i++)
		now.s[now.n++] = amf->cfg.slices[i];
	for (i = 0; i < was.n; i++)
		if (!nssai_has(&now, &was.s[i]))
			rm.s[rm.n++] = was.s[i];
	for (i = 0; i < now.n; i++)
		if (!nssai_has(&was, &now.s[i]))
			add.s[add.n++] = now.s[i];
	if (!all && !rm.n && !add.n && !w->running)
		return 0;
	/* A walk still running knows only its own change: start over with every UE. */
	w->all = all || w->running;
	w->rm = rm;
	w->add = add;
	w->cursor = 0;
	w->changed = 0;
	w->running = true;
	ev_timer_stop(amf->loop, &w->tmr);
	if (nssai_step(amf))
		w->running = false;
	else
		ev_timer_start(amf->loop, &w->tmr, 0);
	return w->changed;
}
