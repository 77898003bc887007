/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim UE: the registration / deregistration state machine of one UE (TS 24.501 5.5.1.2,
 * 5.4.1.3, 5.4.2, 5.4.4, 5.5.2.2), driven only by the downlink messages it receives.
 *
 * The transitions are the const table ue_fsm[]: (state, NAS message) -> action; the
 * action returns the next state. A message not in the table for the current state is
 * unexpected: logged and recorded as the UE's failure. Every wait for the network runs
 * the guard timer (cfg.ue_timeout_ms).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

static const char *const state_names[RS_UE_STATE_COUNT] = {
	[RS_UE_NULL] = "NULL",
	[RS_UE_WAIT_AUTH] = "WAIT_AUTH",
	[RS_UE_WAIT_SMC] = "WAIT_SMC",
	[RS_UE_WAIT_ACCEPT] = "WAIT_ACCEPT",
	[RS_UE_WAIT_CUC] = "WAIT_CUC",
	[RS_UE_REGISTERED] = "REGISTERED",
	[RS_UE_WAIT_IDLE] = "WAIT_IDLE",
	[RS_UE_WAIT_DEREG_ACCEPT] = "WAIT_DEREG_ACCEPT",
	[RS_UE_WAIT_RELEASE] = "WAIT_RELEASE",
	[RS_UE_WAIT_PDU_ACCEPT] = "WAIT_PDU_ACCEPT",
	[RS_UE_WAIT_SVC_ACCEPT] = "WAIT_SVC_ACCEPT",
	[RS_UE_WAIT_PDU_REL] = "WAIT_PDU_REL",
	[RS_UE_DONE] = "DONE",
};

const char *rs_ue_state_name(enum rs_ue_state s)
{
	return s < RS_UE_STATE_COUNT ? state_names[s] : "?";
}

static void ue_log(enum log_level lvl, const struct rs_ue *ue, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void ue_log(enum log_level lvl, const struct rs_ue *ue, const char *fmt, ...)
{
	char obj[64];
	va_list ap;

	if (!log_enabled(lvl, "ransim"))
		return;
	snprintf(obj, sizeof(obj), "ue=%u %s{%s}", ue->idx, ue->sim->supi, rs_ue_state_name(ue->st));
	va_start(ap, fmt);
	log_vmsg(lvl, "ransim", obj, fmt, ap);
	va_end(ap);
}

void rs_ue_fail(struct rs_ue *ue, const char *cause)
{
	if (ue->fail[0])
		return;
	snprintf(ue->fail, sizeof(ue->fail), "%s", cause);
	ue_log(LOGL_INFO, ue, "failed: %s", cause);
	/* after its plan finished (a UE staying registered, dereg none) the network can still
	 * fail it (a release, a status): the cause is listed even though ues_ok counted it */
	if (ue->finished)
		rs_cause_add(ue->rs, cause);
}

static void guard_cb(struct ev_loop *loop, struct ev_timer *t);

void rs_ue_init(struct ransim *rs, struct rs_ue *ue, uint32_t idx)
{
	memset(ue, 0, sizeof(*ue));
	ue->rs = rs;
	ue->idx = idx;
	ue->sim = &rs->sims[(idx + rs->cfg.sim_offset) % rs->n_sims];
	ue->gnb = &rs->gnbs[idx % rs->cfg.n_gnbs];
	ue->ngksi = 7;
	ue->dl_old_gnb = -1;
	ev_timer_init(&ue->guard, guard_cb, ue);
	/* A USIM that has already accepted SQN s (the SIM file's sqn) rejects anything older. */
	if (ue->sim->sqn) {
		/* TS 33.102 C.2.2: a card that has seen SEQ has it in every IND slot as far as a
		 * network SQN with a lower SEQ is concerned: accept SEQ under each IND. */
		uint64_t seq = ue->sim->sqn & ~(uint64_t)(CRYPTO_SQN_IND_COUNT - 1);
		unsigned ind;

		for (ind = 0; ind < CRYPTO_SQN_IND_COUNT; ind++)
			crypto_usim_sqn_accept(&ue->usim, seq | ind);
	}
}

void rs_ue_set_state(struct rs_ue *ue, enum rs_ue_state st)
{
	if (st != ue->st)
		ue_log(LOGL_DEBUG, ue, "-> %s", rs_ue_state_name(st));
	ue->st = st;
	switch (st) {
	case RS_UE_WAIT_AUTH:
	case RS_UE_WAIT_SMC:
	case RS_UE_WAIT_ACCEPT:
	case RS_UE_WAIT_CUC:
	case RS_UE_WAIT_IDLE:
	case RS_UE_WAIT_DEREG_ACCEPT:
	case RS_UE_WAIT_RELEASE:
	case RS_UE_WAIT_PDU_ACCEPT:
	case RS_UE_WAIT_SVC_ACCEPT:
	case RS_UE_WAIT_PDU_REL:
		ev_timer_start(ue->rs->loop, &ue->guard, ue->rs->cfg.ue_timeout_ms);
		break;
	case RS_UE_REGISTERED:
		if (!ue->holding)
			ev_timer_stop(ue->rs->loop, &ue->guard);
		break;
	default:
		ev_timer_stop(ue->rs->loop, &ue->guard);
		break;
	}
}

void rs_ue_finish(struct rs_ue *ue)
{
	if (ue->finished)
		return;
	ue->finished = true;
	ev_timer_stop(ue->rs->loop, &ue->guard);
	rs_ue_finished(ue);
}


/* The guard timer, or the end of the hold time in REGISTERED (cfg.hold_ms). */
static void guard_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct rs_ue *ue = t->arg;
	char cause[32];

	(void)loop;
	if (ue->st == RS_UE_REGISTERED && ue->holding) {
		ue->holding = false;
		ue->held = true;
		rs_ue_set_state(ue, rs_ue_next_step(ue));
		return;
	}
	snprintf(cause, sizeof(cause), "timeout_%s", rs_ue_state_name(ue->st));
	rs_ue_fail(ue, cause);
	rs_ue_set_state(ue, RS_UE_DONE);
	rs_ue_finish(ue);
}

/* Wrap m and send it in an Uplink NAS Transport (or the Initial UE Message when initial). */
int rs_ue_send_nas(struct rs_ue *ue, const struct nas_msg *m, uint8_t sht, bool initial, bool corrupt)
{
	struct ransim *rs = ue->rs;
	int n = rs_nas_wrap(ue, m, sht, rs->nas_buf, sizeof(rs->nas_buf), corrupt);

	if (n < 0) {
		rs_ue_fail(ue, "nas_encode");
		return n;
	}
	/* TS 33.501 A.9: without a Security Mode Command, K_gNB comes from the COUNT of the
	 * (protected) initial message. */
	if (initial && sht != NAS_SHT_PLAIN)
		ue->kgnb_count = (ue->ul_count - 1) & 0xffffff;
	/* the identity the UE also gives the gNB in RRC (TS 38.331 ng-5G-S-TMSI-Value,
	 * registeredAMF): its 5G-GUTI / 5G-S-TMSI when the NAS message names one */
	if (initial && m->type == NAS_REGISTRATION_REQUEST && m->reg_req.mobile_id.type == NAS_MOBID_5G_GUTI) {
		ue->rrc_has_guti = true;
		ue->rrc_guti = m->reg_req.mobile_id.guti;
	} else if (initial && m->type == NAS_SERVICE_REQUEST) {
		ue->rrc_has_guti = true;
		ue->rrc_guti = m->svc_req.s_tmsi.guti;
	}
	if (ue->rs->adv && !ue->forger)
		rs_adv_capture(ue, m->type, rs->nas_buf, (size_t)n);
	return rs_ue_send_nas_pdu(ue, rs->nas_buf, (size_t)n, initial);
}

/* Send an encoded NAS PDU as it is (the adversary's replays use it too). */
int rs_ue_send_nas_pdu(struct rs_ue *ue, const uint8_t *nas, size_t len, bool initial)
{
	struct ransim *rs = ue->rs;
	struct ngap_msg *g = &rs->tx;
	int n;

	memset(g, 0, sizeof(*g));
	g->type = NGAP_INITIATING;
	if (initial) {
		if (len <= sizeof(ue->initial)) {
			if (nas != ue->initial)
				memcpy(ue->initial, nas, len);
			ue->initial_len = (uint8_t)len;
		}
		g->proc = NGAP_PROC_INITIAL_UE_MESSAGE;
		/* a new UE-associated logical NG connection: the AMF for it (gnb_amf.c) */
		g->u.initial_ue_message.has_s_tmsi = rs_gnb_pick_amf(ue->gnb, ue, &g->u.initial_ue_message.s_tmsi);
		g->u.initial_ue_message.ran_ue_id = ue->ran_id;
		g->u.initial_ue_message.nas.p = nas;
		g->u.initial_ue_message.nas.len = len;
		rs_gnb_uli(ue->gnb, &g->u.initial_ue_message.uli);
		g->u.initial_ue_message.rrc_cause = 3; /* mo-Signalling (TS 38.331) */
	} else {
		g->proc = NGAP_PROC_UPLINK_NAS_TRANSPORT;
		g->u.uplink_nas_transport.amf_ue_id = ue->amf_ue_id;
		g->u.uplink_nas_transport.ran_ue_id = ue->ran_id;
		g->u.uplink_nas_transport.nas.p = nas;
		g->u.uplink_nas_transport.nas.len = len;
		rs_gnb_uli(ue->gnb, &g->u.uplink_nas_transport.uli);
	}
	n = rs_gnb_send_ue(ue->gnb, ue, g);
	if (n < 0)
		rs_ue_fail(ue, "send");
	return n;
}

static void build_reg_req(struct rs_ue *ue, struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	struct nas_registration_request *r = &m->reg_req;

	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REQUEST;
	/* 9.11.3.7: initial registration, follow-on request pending. */
	r->reg_type = 0x09;
	r->ngksi = ue->ngksi;
	if (rs->cfg.unknown_guti && !ue->fake_guti_sent) {
		/* A 5G-GUTI from "another" AMF pointer: the AMF cannot map it (TS 24.501 5.5.1.2.2). */
		ue->fake_guti_sent = true;
		r->mobile_id.type = NAS_MOBID_5G_GUTI;
		r->mobile_id.guti.plmn = rs->home;
		r->mobile_id.guti.amf_region_id = 0xca;
		r->mobile_id.guti.amf_set_id = 0x3fe;
		r->mobile_id.guti.amf_pointer = 0x3e;
		r->mobile_id.guti.tmsi = 0xc0000000u | ue->idx;
	} else if (rs_nas_suci(ue, &r->mobile_id) < 0) {
		rs_ue_fail(ue, "suci");
	}
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
}

void rs_ue_start(struct rs_ue *ue)
{
	struct nas_msg *m = &ue->rs->nas_tx;

	ue->started = true;
	ue->runs++;
	ue->sess_tried = ue->sess_up = ue->idle_done = ue->rel_tried = ue->dereg_sent = false;
	ue->reest_pending = ue->reest = ue->idle_hold = ue->cm_idle = false;
	ue->ran_id = ue->idx;
	ue->has_amf_id = false;
	ue->sec = false;
	ue->has_kamf = false;
	ue->ngksi = 7;
	if (ue->rs->cfg.unknown_service) {
		rs_sm_unknown_service(ue);
		return;
	}
	if (ue->rs->cfg.cycle)
		rs_proc_start(ue, RANSIM_P_CYCLE);
	rs_proc_start(ue, RANSIM_P_REGISTRATION);
	rs_proc_start(ue, RANSIM_P_AUTH_REQ);
	build_reg_req(ue, m);
	if (ue->fail[0]) {
		rs_ue_set_state(ue, RS_UE_DONE);
		rs_ue_finish(ue);
		return;
	}
	rs_ue_set_state(ue, RS_UE_WAIT_AUTH);
	rs_ue_send_nas(ue, m, NAS_SHT_PLAIN, true, false);
}

/* TS 24.501 5.5.1.3.2 / 4.4.6: periodic registration update from CM-IDLE with the
 * 5G-GUTI; only cleartext IEs, integrity protected with the current context. */
static void start_reregistration(struct rs_ue *ue)
{
	struct nas_msg *m = &ue->rs->nas_tx;
	struct nas_registration_request *r = &m->reg_req;

	ue->rereg_done = true;
	ue->has_amf_id = false;
	ue->ran_id += ue->rs->cfg.n_ues;   /* a new N2 connection, a new RAN-UE-NGAP-ID */
	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REQUEST;
	r->reg_type = 0x0b;        /* periodic registration updating, follow-on request pending */
	r->ngksi = ue->ngksi;
	r->mobile_id.type = NAS_MOBID_5G_GUTI;
	r->mobile_id.guti = ue->guti;
	r->has_ue_sec_cap = true;
	r->ue_sec_cap.ea = ue->rs->cfg.ue_ea;
	r->ue_sec_cap.ia = ue->rs->cfg.ue_ia;
	rs_proc_start(ue, RANSIM_P_REGISTRATION);
	rs_ue_set_state(ue, RS_UE_WAIT_AUTH);
	rs_ue_send_nas(ue, m, NAS_SHT_INTEGRITY, true, false);
}

void rs_ue_reset(struct rs_ue *ue)
{
	ev_timer_stop(ue->rs->loop, &ue->guard);
	ue->st = RS_UE_NULL;
	ue->has_amf_id = false;
	ue->sec = false;
	ue->has_kamf = false;
}

/* ---- actions: each returns the next state ---- */

typedef enum rs_ue_state (*ue_action)(struct rs_ue *ue, const struct nas_msg *m);

static enum rs_ue_state on_identity_req(struct rs_ue *ue, const struct nas_msg *m)
{
	struct nas_msg *r = &ue->rs->nas_tx;

	/* TS 24.501 5.4.3.2: answer with the identity asked for; we only have the SUCI. */
	ue->rs->st.identity_requests++;
	if (m->id_req.identity_type != NAS_MOBID_SUCI) {
		rs_ue_fail(ue, "identity_type");
		return ue->st;
	}
	memset(r, 0, sizeof(*r));
	r->type = NAS_IDENTITY_RESPONSE;
	if (rs_nas_suci(ue, &r->id_resp.mobile_id) < 0) {
		rs_ue_fail(ue, "suci");
		return ue->st;
	}
	rs_proc_start(ue, RANSIM_P_AUTH_REQ);
	/* after a failover the request comes from an AMF without the UE's context (plain):
	 * answered plain, it could not read a protected answer (ue_fo.c) */
	rs_ue_send_nas(ue, r, ue->sec && !ue->fo_pending ? NAS_SHT_INTEGRITY_CIPHERED : NAS_SHT_PLAIN, false, false);
	return RS_UE_WAIT_AUTH;
}

static enum rs_ue_state auth_failure(struct rs_ue *ue, uint8_t cause, const uint8_t *auts)
{
	struct nas_msg *r = &ue->rs->nas_tx;

	memset(r, 0, sizeof(*r));
	r->type = NAS_AUTHENTICATION_FAILURE;
	r->auth_fail.cause = cause;
	if (auts) {
		r->auth_fail.has_auts = true;
		r->auth_fail.auts.p = auts;
		r->auth_fail.auts.len = 14;
	}
	rs_ue_send_nas(ue, r, NAS_SHT_PLAIN, false, false);
	return cause == NAS_5GMM_SYNCH_FAILURE ? RS_UE_WAIT_AUTH : RS_UE_WAIT_SMC;
}

static enum rs_ue_state on_auth_req(struct rs_ue *ue, const struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	const struct nas_authentication_request *a = &m->auth_req;
	struct crypto_ue_aka_out o;
	uint8_t kseaf[32];
	struct nas_msg *r = &rs->nas_tx;
	int rc;

	rs_proc_done(ue, RANSIM_P_AUTH_REQ);
	if (!a->has_rand || a->rand.len != 16 || !a->has_autn || a->autn.len != 16) {
		rs_ue_fail(ue, "auth_req_malformed");
		return auth_failure(ue, NAS_5GMM_NON_5G_AUTH_UNACCEPTABLE, NULL);
	}
	/* TS 33.102 6.3.3 / TS 33.501 6.1.3.2.0 step 6: the USIM checks AUTN (MAC-A, SQN). */
	rc = crypto_aka_ue_check(ue->sim->k, ue->sim->opc, a->rand.p, a->autn.p, rs->snn, &ue->usim, &o);
	if (rc == -EBADMSG) {
		rs->st.auth_mac_fail++;
		ue_log(LOGL_INFO, ue, "AUTN MAC failure: Authentication Failure #20");
		return auth_failure(ue, NAS_5GMM_MAC_FAILURE, NULL);
	}
	if (rc == -ESTALE) {
		rs->st.auth_sync_fail++;
		ue_log(LOGL_INFO, ue, "SQN not fresh: Authentication Failure #21 with AUTS");
		return auth_failure(ue, NAS_5GMM_SYNCH_FAILURE, o.auts);
	}
	if (rc < 0) {
		/* TS 33.501 6.1.3.2.0: AMF separation bit not set. */
		rs_ue_fail(ue, "auth_amf_bit");
		return auth_failure(ue, NAS_5GMM_NON_5G_AUTH_UNACCEPTABLE, NULL);
	}
	/* TS 33.501 A.6 / A.7: K_SEAF, then K_AMF with the SUPI and ABBA. */
	if (crypto_kdf_kseaf(o.kausf, rs->snn, kseaf) < 0 ||
	    crypto_kdf_kamf(kseaf, ue->sim->supi, a->abba.p, a->abba.len, ue->kamf) < 0) {
		rs_ue_fail(ue, "kdf");
		return ue->st;
	}
	ue->has_kamf = true;
	ue->ngksi = a->ngksi & 7;
	memset(r, 0, sizeof(*r));
	r->type = NAS_AUTHENTICATION_RESPONSE;
	r->auth_resp.has_res_star = true;
	r->auth_resp.res_star.p = o.res_star;
	r->auth_resp.res_star.len = 16;
	rs_ue_send_nas(ue, r, NAS_SHT_PLAIN, false, false);
	rs_proc_start(ue, RANSIM_P_AUTH);
	return RS_UE_WAIT_SMC;
}

static enum rs_ue_state on_auth_reject(struct rs_ue *ue, const struct nas_msg *m)
{
	(void)m;
	/* TS 24.501 5.4.1.3.5: the network rejected us; wait for the N2 release. */
	rs_ue_fail(ue, "auth_reject");
	return RS_UE_WAIT_RELEASE;
}

static enum rs_ue_state on_reg_reject(struct rs_ue *ue, const struct nas_msg *m)
{
	char cause[32];

	snprintf(cause, sizeof(cause), "reg_reject_%u", m->reg_rej.cause);
	rs_ue_fail(ue, cause);
	return RS_UE_WAIT_RELEASE;
}

static enum rs_ue_state on_smc(struct rs_ue *ue, const struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	const struct nas_security_mode_command *c = &m->smc;
	struct nas_msg *r = &rs->nas_tx;

	rs_proc_done(ue, RANSIM_P_AUTH);
	/* TS 24.501 5.4.2.3: replayed capabilities must equal what we sent, else #23. */
	if (c->replayed_ue_sec_cap.ea != rs->cfg.ue_ea || c->replayed_ue_sec_cap.ia != rs->cfg.ue_ia) {
		rs_ue_fail(ue, "smc_replayed_caps");
		memset(r, 0, sizeof(*r));
		r->type = NAS_SECURITY_MODE_REJECT;
		r->smc_rej.cause = NAS_5GMM_UE_SECURITY_CAP_MISMATCH;
		rs_ue_send_nas(ue, r, NAS_SHT_PLAIN, false, false);
		return RS_UE_WAIT_RELEASE;
	}
	if ((rs->cfg.expect_nia >= 0 && ue->nia != rs->cfg.expect_nia) ||
	    (rs->cfg.expect_nea >= 0 && ue->nea != rs->cfg.expect_nea))
		rs_ue_fail(ue, "alg_mismatch");
	ue_log(LOGL_DEBUG, ue, "security mode NIA%u NEA%u", ue->nia, ue->nea);
	memset(r, 0, sizeof(*r));
	r->type = NAS_SECURITY_MODE_COMPLETE;
	if (c->has_imeisv_request && (c->imeisv_request & 1)) {
		r->smc_cpl.has_imeisv = true;
		r->smc_cpl.imeisv.type = NAS_MOBID_IMEISV;
		r->smc_cpl.imeisv.digits.n = 16;
		memcpy(r->smc_cpl.imeisv.digits.d, "3534900698733019", 17);
	}
	/* TS 24.501 4.4.6: the entire initial NAS message in the container. */
	r->smc_cpl.has_nas_container = true;
	r->smc_cpl.nas_container.p = ue->initial;
	r->smc_cpl.nas_container.len = ue->initial_len;
	ue->kgnb_count = ue->ul_count;
	rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED_NEW_CTX, false, false);
	rs_proc_start(ue, RANSIM_P_SMC);
	return RS_UE_WAIT_ACCEPT;
}

/* After registration (and the configuration update when expected): the plan's last step. */
enum rs_ue_state rs_ue_next_step(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;

	/* TS 24.501 6.3.3.3: a session released with #39 comes back before anything else */
	if (ue->reest_pending && !ue->sess_up && !ue->fail[0] && !ue->dereg_sent && !ue->mob_reg_pending)
		return rs_sm_reestablish_due(ue, ue->st);
	if (rs->adv)
		return rs_adv_victim_next(ue);
	if (rs->cfg.reregister && !ue->rereg_done) {
		/* The gNB releases the UE to CM-IDLE (TS 23.502 4.2.6). */
		rs_gnb_release_request(ue->gnb, ue);
		return RS_UE_WAIT_IDLE;
	}
	if ((rs->cfg.session || rs->cfg.cycle) && !ue->sess_tried)
		return rs_sm_establish(ue);
	if (rs->cfg.cycle && ue->sess_up && !ue->idle_done) {
		/* 14: the gNB releases the UE to CM-IDLE, its session stays (TS 23.502 4.2.6) */
		rs_proc_start(ue, RANSIM_P_AN_RELEASE);
		rs_gnb_release_request(ue->gnb, ue);
		return RS_UE_WAIT_IDLE;
	}
	if (rs->cfg.cycle && ue->sess_up && !ue->rel_tried)
		return rs_sm_release(ue);
	if (rs->cfg.hold_ms && !ue->held && rs->cfg.dereg != RANSIM_DEREG_NONE) {
		/* stay registered (CM-CONNECTED) for a while before the last step */
		ue->holding = true;
		rs_guess_fire(ue);   /* --ps-guess: while UE 0 holds */
		ev_timer_start(rs->loop, &ue->guard, rs->cfg.hold_ms);
		return RS_UE_REGISTERED;
	}
	if (rs->cfg.dereg == RANSIM_DEREG_NONE) {
		rs_ue_finish(ue);
		return RS_UE_REGISTERED;
	}
	return rs_ue_deregister(ue, rs->cfg.dereg);
}

/* UE-originating deregistration (TS 24.501 5.5.2.2.1), protected with the current context. */
enum rs_ue_state rs_ue_deregister(struct rs_ue *ue, enum ransim_dereg how)
{
	struct nas_msg *r = &ue->rs->nas_tx;

	memset(r, 0, sizeof(*r));
	r->type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
	/* 9.11.3.20: bit 4 switch off, bits 1-2 access type 1 = 3GPP. */
	r->dereg_req.dereg_type = how == RANSIM_DEREG_SWITCH_OFF ? 0x09 : 0x01;
	r->dereg_req.ngksi = ue->ngksi;
	r->dereg_req.mobile_id.type = NAS_MOBID_5G_GUTI;
	r->dereg_req.mobile_id.guti = ue->guti;
	rs_proc_start(ue, RANSIM_P_DEREGISTRATION);
	ue->dereg_sent = true;
	rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED, false, false);
	return how == RANSIM_DEREG_SWITCH_OFF ? RS_UE_WAIT_RELEASE : RS_UE_WAIT_DEREG_ACCEPT;
}

static enum rs_ue_state on_reg_accept(struct rs_ue *ue, const struct nas_msg *m)
{
	struct ransim *rs = ue->rs;
	const struct nas_registration_accept *a = &m->reg_acc;
	struct nas_msg *r = &rs->nas_tx;

	rs_proc_done(ue, RANSIM_P_AUTH_REQ);
	rs_proc_done(ue, RANSIM_P_SMC);
	rs_proc_done(ue, RANSIM_P_REGISTRATION);
	if (ue->fo_pending)
		return rs_ue_fo_accept(ue, a);   /* the registration after an AMF failover */
	rs_ue_take_tai_list(ue, a);
	if (a->has_guti && a->guti.type == NAS_MOBID_5G_GUTI) {
		ue->has_guti = true;
		ue->guti = a->guti.guti;
	} else if (!ue->rereg_done) {
		/* TS 24.501 5.5.1.2.4: an initial registration always assigns a 5G-GUTI. */
		rs_ue_fail(ue, "accept_without_guti");
	}
	if (ue->rereg_done) {
		rs->st.reregistrations++;
		/* TS 24.501 5.5.1.3.4: Registration Complete only for a new 5G-GUTI. */
		if (!a->has_guti)
			return rs_ue_next_step(ue);
	} else if (!ue->registered_once) {
		ue->registered_once = true;
		rs->st.ues_registered++;
	}
	memset(r, 0, sizeof(*r));
	r->type = NAS_REGISTRATION_COMPLETE;
	if (rs->cfg.bad_mac && !ue->rereg_done) {
		/* The AMF must discard this one (TS 24.501 4.4.4.3) and keep the context. */
		rs->st.bad_mac_sent++;
		rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED, false, true);
	}
	rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED, false, false);
	if (rs->cfg.expect_cuc) {
		rs_proc_start(ue, RANSIM_P_CUC);
		return RS_UE_WAIT_CUC;
	}
	return rs_ue_next_step(ue);
}

static enum rs_ue_state on_cuc(struct rs_ue *ue, const struct nas_msg *m)
{
	struct nas_msg *r = &ue->rs->nas_tx;

	ue->rs->st.cuc_received++;
	if (m->cuc.has_guti && m->cuc.guti.type == NAS_MOBID_5G_GUTI)
		ue->guti = m->cuc.guti.guti;
	/* TS 24.501 5.4.4.3: Complete when an acknowledgement is requested (9.11.3.18 bit 1). */
	if (m->cuc.has_cfg_update_ind && (m->cuc.cfg_update_ind & 1)) {
		memset(r, 0, sizeof(*r));
		r->type = NAS_CONFIGURATION_UPDATE_COMPLETE;
		rs_ue_send_nas(ue, r, NAS_SHT_INTEGRITY_CIPHERED, false, false);
	}
	if (ue->st != RS_UE_WAIT_CUC)
		return ue->st;
	rs_proc_done(ue, RANSIM_P_CUC);
	return rs_ue_next_step(ue);
}

static enum rs_ue_state on_dereg_accept(struct rs_ue *ue, const struct nas_msg *m)
{
	(void)ue;
	(void)m;
	return RS_UE_WAIT_RELEASE;
}

static enum rs_ue_state on_status(struct rs_ue *ue, const struct nas_msg *m)
{
	ue_log(LOGL_INFO, ue, "5GMM status cause=%u (%s)", m->gmm_status.cause,
	       nas_5gmm_cause_name(m->gmm_status.cause));
	return ue->st;
}

#define ANY_STATE RS_UE_STATE_COUNT

static const struct {
	uint8_t st;        /* enum rs_ue_state, or ANY_STATE */
	uint8_t msg;       /* enum nas_msg_type */
	ue_action fn;
} ue_fsm[] = {
	{ RS_UE_WAIT_AUTH, NAS_IDENTITY_REQUEST, on_identity_req },
	{ RS_UE_WAIT_AUTH, NAS_AUTHENTICATION_REQUEST, on_auth_req },
	{ RS_UE_WAIT_SMC, NAS_AUTHENTICATION_REQUEST, on_auth_req },      /* re-authentication */
	{ RS_UE_WAIT_AUTH, NAS_AUTHENTICATION_REJECT, on_auth_reject },
	{ RS_UE_WAIT_SMC, NAS_AUTHENTICATION_REJECT, on_auth_reject },
	{ RS_UE_WAIT_SMC, NAS_SECURITY_MODE_COMMAND, on_smc },
	{ RS_UE_WAIT_ACCEPT, NAS_REGISTRATION_ACCEPT, on_reg_accept },
	/* with a valid context (re-registration) the AMF may skip authentication and even the
	 * security mode control; without one, rs_nas_unwrap() refuses these messages */
	{ RS_UE_WAIT_AUTH, NAS_SECURITY_MODE_COMMAND, on_smc },
	{ RS_UE_WAIT_AUTH, NAS_REGISTRATION_ACCEPT, on_reg_accept },
	{ RS_UE_WAIT_AUTH, NAS_REGISTRATION_REJECT, on_reg_reject },
	{ RS_UE_WAIT_SMC, NAS_REGISTRATION_REJECT, on_reg_reject },
	{ RS_UE_WAIT_ACCEPT, NAS_REGISTRATION_REJECT, on_reg_reject },
	{ RS_UE_WAIT_CUC, NAS_CONFIGURATION_UPDATE_COMMAND, on_cuc },
	/* a mobility registration of a UE holding its session (ue_mob.c) */
	{ RS_UE_REGISTERED, NAS_REGISTRATION_ACCEPT, rs_ue_on_mob_accept },
	{ RS_UE_REGISTERED, NAS_REGISTRATION_REJECT, rs_ue_on_mob_reject },
	{ RS_UE_REGISTERED, NAS_CONFIGURATION_UPDATE_COMMAND, on_cuc },
	{ RS_UE_WAIT_IDLE, NAS_CONFIGURATION_UPDATE_COMMAND, on_cuc },
	{ RS_UE_WAIT_DEREG_ACCEPT, NAS_CONFIGURATION_UPDATE_COMMAND, on_cuc },
	{ RS_UE_WAIT_DEREG_ACCEPT, NAS_DEREGISTRATION_ACCEPT_UE_ORIG, on_dereg_accept },
	{ RS_UE_WAIT_PDU_ACCEPT, NAS_DL_NAS_TRANSPORT, rs_sm_on_dl_nas },
	{ RS_UE_WAIT_PDU_REL, NAS_DL_NAS_TRANSPORT, rs_sm_on_dl_nas },
	/* network-requested PDU session modification of a UE holding its session (6.3.2) */
	{ RS_UE_REGISTERED, NAS_DL_NAS_TRANSPORT, rs_sm_on_dl_nas },
	/* ... and network-requested release (6.3.3) wherever the UE still holds its session */
	{ RS_UE_WAIT_IDLE, NAS_DL_NAS_TRANSPORT, rs_sm_on_dl_nas },
	{ RS_UE_WAIT_DEREG_ACCEPT, NAS_DL_NAS_TRANSPORT, rs_sm_on_dl_nas },
	{ RS_UE_WAIT_SVC_ACCEPT, NAS_DL_NAS_TRANSPORT, rs_sm_on_dl_nas },
	{ RS_UE_WAIT_PDU_ACCEPT, NAS_CONFIGURATION_UPDATE_COMMAND, on_cuc },
	{ RS_UE_WAIT_SVC_ACCEPT, NAS_SERVICE_ACCEPT, rs_sm_on_svc_accept },
	{ RS_UE_WAIT_SVC_ACCEPT, NAS_SERVICE_REJECT, rs_sm_on_svc_reject },
	{ ANY_STATE, NAS_5GMM_STATUS, on_status },
};

void rs_ue_nas_rx(struct rs_ue *ue, const uint8_t *nas, size_t len)
{
	struct nas_msg *m = &ue->rs->nas_rx;
	enum rs_ue_state next;
	size_t i;
	int rc;

	if (ue->forger) {
		/* the adversary has no keys to check anything with: its own table (adv.c) */
		rs_adv_forger_nas(ue, nas, len);
		return;
	}
	rc = rs_nas_unwrap(ue, nas, len, m);
	if (rc == -EACCES) {
		ue_log(LOGL_WARN, ue, "downlink NAS with a bad MAC discarded");
		return;
	}
	if (rc == -EPERM) {
		ue_log(LOGL_WARN, ue, "unprotected %s discarded (security active)", nas_msg_name(m->type));
		return;
	}
	if (rc < 0) {
		rs_ue_fail(ue, "dl_nas_undecodable");
		return;
	}
	for (i = 0; i < sizeof(ue_fsm) / sizeof(ue_fsm[0]); i++) {
		if (ue_fsm[i].msg != m->type || (ue_fsm[i].st != ANY_STATE && ue_fsm[i].st != ue->st))
			continue;
		ue_log(LOGL_DEBUG, ue, "rx %s", nas_msg_name(m->type));
		next = ue_fsm[i].fn(ue, m);
		rs_ue_set_state(ue, next);
		return;
	}
	ue_log(LOGL_WARN, ue, "unexpected %s", nas_msg_name(m->type));
	rs_ue_fail(ue, "unexpected_nas");
}

void rs_ue_check_kgnb(struct rs_ue *ue, const uint8_t key[32])
{
	uint8_t kgnb[32];

	/* TS 33.501 A.9: K_gNB from K_AMF and the uplink COUNT of Security Mode Complete. */
	if (!ue->has_kamf || crypto_kdf_kgnb(ue->kamf, ue->kgnb_count, CRYPTO_ACCESS_3GPP, kgnb) < 0 ||
	    memcmp(kgnb, key, 32) != 0) {
		rs_ue_fail(ue, "kgnb_mismatch");
		return;
	}
	/* TS 33.501 6.9.2.1.1: a new chain from this K_gNB, NH_1 = KDF(K_AMF, K_gNB) with NCC 1
	 * (the UE's side of the next path switch, gnb_xn.c) */
	ue->nh_valid = crypto_kdf_nh(ue->kamf, kgnb, ue->nh) == 0;
	ue->ncc = 1;
	explicit_bzero(kgnb, sizeof(kgnb));
}

void rs_ue_release_cmd(struct rs_ue *ue)
{
	if (ue->st == RS_UE_WAIT_IDLE && ue->idle_hold) {
		/* ransim_ue_idle(): CM-IDLE, still REGISTERED; the PDU session stays, its user
		 * plane is gone with the N2 connection (TS 23.502 4.2.6) until the service request */
		ue->idle_hold = false;
		ue->cm_idle = true;
		ue->has_amf_id = false;
		ue->n3_ul_teid = 0;
		rs_ue_set_state(ue, RS_UE_REGISTERED);
		return;
	}
	/* the cycle's service request; also without the session when a #39 re-establishment
	 * waits (service type signalling, 5.6.1.2) */
	if (ue->st == RS_UE_WAIT_IDLE && (ue->rs->cfg.cycle || ue->rs->adv) && (ue->sess_up || ue->reest_pending) &&
	    !ue->idle_done) {
		rs_proc_done(ue, RANSIM_P_AN_RELEASE);
		ue->idle_done = true;
		rs_sm_service_request(ue);
		return;
	}
	if (ue->st == RS_UE_WAIT_IDLE) {
		start_reregistration(ue);
		return;
	}
	if (ue->st == RS_UE_WAIT_RELEASE && ue->dereg_sent) {
		/* also after a failed session step: the UE still deregisters */
		rs_proc_done(ue, RANSIM_P_DEREGISTRATION);
		if (ue->rs->cfg.cycle && ue->rel_tried && !ue->fail[0]) {
			rs_proc_done(ue, RANSIM_P_CYCLE);
			ue->rs->st.cycles++;
		}
	}
	else if (ue->st != RS_UE_WAIT_RELEASE && ue->st != RS_UE_REGISTERED && ue->st != RS_UE_DONE) {
		char cause[32];

		snprintf(cause, sizeof(cause), "released_in_%s", rs_ue_state_name(ue->st));
		rs_ue_fail(ue, cause);
	}
	ue->has_amf_id = false;
	rs_ue_set_state(ue, RS_UE_DONE);
	rs_ue_finish(ue);
}

void rs_ue_assoc_lost(struct rs_ue *ue)
{
	if (ue->finished)
		return;
	rs_ue_fail(ue, "assoc_lost");
	rs_ue_set_state(ue, RS_UE_DONE);
	rs_ue_finish(ue);
}
