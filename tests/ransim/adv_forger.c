/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim adversary: the forger (see adv.c). One attack step is one fresh N2 connection
 * (RAN-UE-NGAP-ID) on gNB step % n_gnbs carrying the attack's initial message; from then
 * on the forger is driven by the downlink NAS it receives (forger_fsm[]): it answers an
 * Identity Request with the victim's SUCI and an Authentication Request as the attack says
 * (a guessed RES*, #20, or nothing), and records the first final answer (reject, or an
 * acceptance: always a failure). A step ends with the release of its connection, or after
 * cfg.attack_quiet_ms without a message (then the gNB asks for the release itself).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "adv_int.h"

static void rnd(void *p, size_t n)
{
	uint8_t *b = p;

	/* a stranger's key: any random bytes (rand() when getrandom is short: still not K) */
	if (getrandom(b, n, 0) != (ssize_t)n)
		for (size_t i = 0; i < n; i++)
			b[i] = (uint8_t)rand();
}

static struct adv_step *cur(struct rs_adv *ad)
{
	return &ad->steps[ad->step];
}

static bool step_expected(const struct rs_adv *ad, const struct adv_step *s)
{
	if (s->accepted)
		return false;
	switch (ad->a->expect) {
	case ADV_E_REG_REJECT_23: return !strcmp(s->answer, "reg_reject_23");
	case ADV_E_AUTH_REJECT: return !strcmp(s->answer, "auth_reject");
	case ADV_E_SVC_REJECT_9: return !strcmp(s->answer, "svc_reject_9");
	case ADV_E_RELEASE: return s->released;
	default: return true;
	}
}

/* Record the first final answer of a step. */
static void answer(struct rs_adv *ad, const char *what)
{
	struct adv_step *s = cur(ad);

	if (!s->answer[0] || !strcmp(s->answer, "none"))
		snprintf(s->answer, sizeof(s->answer), "%s", what);
}

static void step_end(struct rs_adv *ad, const char *how)
{
	struct adv_step *s = cur(ad);

	ev_timer_stop(ad->rs->loop, &ad->quiet);
	ad->fst = ADV_F_DONE;
	snprintf(s->end, sizeof(s->end), "%s", how);
	s->expected = step_expected(ad, s);
	rs_adv_log(LOGL_INFO, ad, "step over: answer %s, %s, %s", s->answer, how,
		s->expected ? "as expected" : "NOT as expected");
	ev_timer_start(ad->rs->loop, &ad->t, ADV_SETTLE_MS);
}

static void quiet_restart(struct rs_adv *ad)
{
	ev_timer_start(ad->rs->loop, &ad->quiet, ad->rs->cfg.attack_quiet_ms);
}

static void quiet_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct rs_adv *ad = t->arg;
	struct rs_ue *f = &ad->f;

	(void)loop;
	if (ad->fst == ADV_F_WAIT && f->has_amf_id) {
		/* the network went quiet on a connection it keeps: the gNB lets it go (radio lost),
		 * TS 38.413 8.3.2, so that no half-open context is left behind */
		ad->fst = ADV_F_CLEANUP;
		rs_gnb_release_request(f->gnb, f);
		ev_timer_start(ad->rs->loop, &ad->quiet, ADV_CLEANUP_MS);
		return;
	}
	step_end(ad, ad->fst == ADV_F_CLEANUP ? "no_release" : "quiet");
}

/* A 5G-GUTI / 5G-S-TMSI, ngKSI and capabilities as the victim has them. */
static void forger_reg_request(struct rs_adv *ad, struct nas_msg *m, bool guti)
{
	struct ransim *rs = ad->rs;
	struct nas_registration_request *r = &m->reg_req;

	memset(m, 0, sizeof(*m));
	m->type = NAS_REGISTRATION_REQUEST;
	r->reg_type = 0x09;   /* 9.11.3.7: initial registration, follow-on request pending */
	if (guti) {
		r->ngksi = ad->v->ngksi;
		r->mobile_id.type = NAS_MOBID_5G_GUTI;
		r->mobile_id.guti = ad->v->guti;
	} else {
		r->ngksi = 7;
		if (rs_nas_suci(&ad->f, &r->mobile_id) < 0)
			rs_cause_add(rs, "adv_suci");
	}
	r->has_ue_sec_cap = true;
	r->ue_sec_cap.ea = ad->a->ea ? ad->a->ea : rs->cfg.ue_ea;
	r->ue_sec_cap.ia = ad->a->ia ? ad->a->ia : rs->cfg.ue_ia;
	r->has_requested_nssai = true;
	r->requested_nssai.n = 1;
	r->requested_nssai.s[0].sst = rs->cfg.req_sst;
	if (rs->cfg.req_sd != 0xffffff) {
		r->requested_nssai.s[0].has_sd = 1;
		r->requested_nssai.s[0].sd = rs->cfg.req_sd;
	}
}

/* A security context that is not the victim's: the victim's algorithm and uplink COUNT (the
 * forger saw them on the air), a random K_NASint, so the MAC is wrong. */
static void forger_fake_context(struct rs_adv *ad)
{
	struct rs_ue *f = &ad->f;

	f->sec = true;
	f->nia = ad->v->nia ? ad->v->nia : 2;
	f->nea = 0;
	f->ul_count = ad->v->ul_count;
	rnd(f->kint, sizeof(f->kint));
}

static int replay(struct rs_adv *ad, const uint8_t *pdu, uint16_t len, const char *what)
{
	if (!len) {
		rs_adv_log(LOGL_ERROR, ad, "no captured %s to replay", what);
		snprintf(cur(ad)->answer, sizeof(cur(ad)->answer), "no_capture");
		cur(ad)->accepted = true;   /* a harness failure: never "as expected" */
		return -ENOENT;
	}
	return rs_ue_send_nas_pdu(&ad->f, pdu, len, true);
}

/* Each step: a fresh forger connection (RAN-UE-NGAP-ID) on gNB step % n_gnbs. */
void rs_adv_step_start(struct rs_adv *ad)
{
	struct ransim *rs = ad->rs;
	struct rs_ue *f = &ad->f;
	struct adv_step *s = cur(ad);
	struct nas_msg *m = &rs->nas_tx;
	uint16_t bit = (uint16_t)(1u << rs->cfg.psi);
	int rc = 0;

	memset(s, 0, sizeof(*s));
	s->gnb = (uint8_t)(ad->step % rs->cfg.n_gnbs);
	s->var = (uint8_t)(ad->step / rs->cfg.n_gnbs);
	snprintf(s->answer, sizeof(s->answer), "none");
	f->gnb = &rs->gnbs[s->gnb];
	f->ran_id = ADV_RAN_ID_BASE + ad->step;
	f->has_amf_id = false;
	f->sec = f->has_kamf = false;
	f->ngksi = 7;
	f->ul_count = f->dl_count = 0;
	f->fail[0] = '\0';
	ad->auth_answers = 0;
	ad->fst = ADV_F_WAIT;
	rs_adv_log(LOGL_INFO, ad, "start on gNB %u, variant %u", s->gnb, s->var);
	switch (ad->a->kind) {
	case ADV_K_REG_GUTI:
	case ADV_K_REG_SUCI:
		forger_reg_request(ad, m, ad->a->kind == ADV_K_REG_GUTI);
		rc = rs_ue_send_nas(f, m, NAS_SHT_PLAIN, true, false);
		break;
	case ADV_K_SVC:
		/* TS 24.501 5.6.1.2: what the victim itself would send coming back from CM-IDLE */
		memset(m, 0, sizeof(*m));
		m->type = NAS_SERVICE_REQUEST;
		m->svc_req.ngksi = ad->v->ngksi;
		m->svc_req.service_type = 1;   /* data */
		m->svc_req.s_tmsi.type = NAS_MOBID_5G_S_TMSI;
		m->svc_req.s_tmsi.guti = ad->v->guti;
		m->svc_req.has_ul_data_status = true;
		m->svc_req.ul_data_status = bit;
		m->svc_req.has_pdu_session_status = true;
		m->svc_req.pdu_session_status = bit;
		if (s->var == 0)
			forger_fake_context(ad);
		rc = rs_ue_send_nas(f, m, s->var == 0 ? NAS_SHT_INTEGRITY : NAS_SHT_PLAIN, true, false);
		break;
	case ADV_K_DEREG:
		memset(m, 0, sizeof(*m));
		m->type = NAS_DEREGISTRATION_REQUEST_UE_ORIG;
		m->dereg_req.dereg_type = ad->a->switch_off ? 0x09 : 0x01;   /* 9.11.3.20 */
		m->dereg_req.ngksi = ad->v->ngksi;
		m->dereg_req.mobile_id.type = NAS_MOBID_5G_GUTI;
		m->dereg_req.mobile_id.guti = ad->v->guti;
		forger_fake_context(ad);
		rc = rs_ue_send_nas(f, m, NAS_SHT_INTEGRITY, true, false);
		break;
	case ADV_K_REPLAY_UL:
		rc = s->var == 0 ? replay(ad, ad->cap_ul, ad->cap_ul_len, "UL NAS TRANSPORT")
				 : replay(ad, ad->cap_rc, ad->cap_rc_len, "REGISTRATION COMPLETE");
		break;
	case ADV_K_REPLAY_SVC:
		rc = replay(ad, ad->cap_sr, ad->cap_sr_len, "SERVICE REQUEST");
		break;
	default:
		break;
	}
	if (rc < 0) {
		step_end(ad, "not_sent");
		return;
	}
	quiet_restart(ad);
}

typedef void (*adv_action)(struct rs_adv *ad, const struct nas_msg *m);

static void f_identity(struct rs_adv *ad, const struct nas_msg *m)
{
	struct nas_msg *r = &ad->rs->nas_tx;

	/* TS 24.501 5.4.3.2: the forger knows the SUCI (null scheme or concealed: any IMSI) */
	if (m->id_req.identity_type != NAS_MOBID_SUCI)
		return;
	memset(r, 0, sizeof(*r));
	r->type = NAS_IDENTITY_RESPONSE;
	if (rs_nas_suci(&ad->f, &r->id_resp.mobile_id) == 0)
		rs_ue_send_nas(&ad->f, r, NAS_SHT_PLAIN, false, false);
}

static void f_auth_req(struct rs_adv *ad, const struct nas_msg *m)
{
	struct nas_msg *r = &ad->rs->nas_tx;
	uint8_t res[16];

	(void)m;
	if (ad->a->auth == ADV_A_SILENT || ++ad->auth_answers > ADV_AUTH_ANSWERS_MAX)
		return;   /* T3560 runs (TS 24.501 5.4.1.3.7 b) */
	memset(r, 0, sizeof(*r));
	if (ad->a->auth == ADV_A_FAIL20) {
		r->type = NAS_AUTHENTICATION_FAILURE;
		r->auth_fail.cause = NAS_5GMM_MAC_FAILURE;
	} else {
		/* no K: any RES* is a guess */
		rnd(res, sizeof(res));
		r->type = NAS_AUTHENTICATION_RESPONSE;
		r->auth_resp.has_res_star = true;
		r->auth_resp.res_star.p = res;
		r->auth_resp.res_star.len = 16;
	}
	rs_ue_send_nas(&ad->f, r, NAS_SHT_PLAIN, false, false);
}

static void f_reg_reject(struct rs_adv *ad, const struct nas_msg *m)
{
	char a[32];

	snprintf(a, sizeof(a), "reg_reject_%u", m->reg_rej.cause);
	answer(ad, a);
}

static void f_auth_reject(struct rs_adv *ad, const struct nas_msg *m)
{
	(void)m;
	answer(ad, "auth_reject");
}

static void f_svc_reject(struct rs_adv *ad, const struct nas_msg *m)
{
	char a[32];

	snprintf(a, sizeof(a), "svc_reject_%u", m->svc_rej.cause);
	answer(ad, a);
}

/* Anything that lets the stranger in is a failure of the attack test whatever else. */
static void f_accepted(struct rs_adv *ad, const struct nas_msg *m)
{
	struct adv_step *s = cur(ad);

	s->accepted = true;
	snprintf(s->answer, sizeof(s->answer), "accepted_%u", m->type);   /* one token: the type */
	rs_adv_log(LOGL_WARN, ad, "the network accepted the forger: %s", nas_msg_name(m->type));
}

#define ADV_ANY ADV_F_COUNT

static const struct {
	uint8_t st;    /* enum adv_fstate, or ADV_ANY */
	uint8_t msg;   /* enum nas_msg_type */
	adv_action fn;
} forger_fsm[] = {
	{ ADV_F_WAIT, NAS_IDENTITY_REQUEST, f_identity },
	{ ADV_F_WAIT, NAS_AUTHENTICATION_REQUEST, f_auth_req },
	{ ADV_ANY, NAS_REGISTRATION_REJECT, f_reg_reject },
	{ ADV_ANY, NAS_AUTHENTICATION_REJECT, f_auth_reject },
	{ ADV_ANY, NAS_SERVICE_REJECT, f_svc_reject },
	{ ADV_ANY, NAS_REGISTRATION_ACCEPT, f_accepted },
	{ ADV_ANY, NAS_SERVICE_ACCEPT, f_accepted },
	{ ADV_ANY, NAS_DEREGISTRATION_ACCEPT_UE_ORIG, f_accepted },
	{ ADV_ANY, NAS_SECURITY_MODE_COMMAND, f_accepted },
	{ ADV_ANY, NAS_CONFIGURATION_UPDATE_COMMAND, f_accepted },
	{ ADV_ANY, NAS_DL_NAS_TRANSPORT, f_accepted },
};

void rs_adv_forger_nas(struct rs_ue *f, const uint8_t *nas, size_t len)
{
	struct rs_adv *ad = f->rs->adv;
	struct nas_msg *m = &f->rs->nas_rx;
	struct nas_sec_hdr hdr;
	struct nas_err err;
	uint8_t epd, sht;
	bool prot = false;

	if (ad->fst == ADV_F_DONE || ad->fst == ADV_F_IDLE)
		return;
	quiet_restart(ad);
	if (nas_peek(nas, len, &epd, &sht) < 0 || epd != NAS_EPD_5GMM) {
		rs_cause_add(f->rs, "adv_forger_rx_undecodable");
		return;
	}
	if (sht != NAS_SHT_PLAIN) {
		/* protected with a context the forger never had: the victim's. The inner message is
		 * readable when not ciphered (NEA0, or the SMC). */
		prot = true;
		cur(ad)->protected_rx = true;
		if (nas_sec_decode(nas, len, &hdr, &err) < 0 || nas_decode(hdr.msg.p, hdr.msg.len, m, &err) < 0) {
			snprintf(cur(ad)->answer, sizeof(cur(ad)->answer), "protected_ciphered");
			cur(ad)->accepted = true;
			return;
		}
		ad->forger_rx_prot[m->type]++;
	} else if (nas_decode(nas, len, m, &err) < 0) {
		rs_cause_add(f->rs, "adv_forger_rx_undecodable");
		return;
	} else {
		ad->forger_rx[m->type]++;
	}
	rs_adv_log(LOGL_INFO, ad, "rx %s%s", prot ? "protected " : "", nas_msg_name(m->type));
	for (size_t i = 0; i < sizeof(forger_fsm) / sizeof(forger_fsm[0]); i++) {
		if (forger_fsm[i].msg != m->type || (forger_fsm[i].st != ADV_ANY && forger_fsm[i].st != ad->fst))
			continue;
		forger_fsm[i].fn(ad, m);
		return;
	}
	rs_adv_log(LOGL_INFO, ad, "%s ignored", nas_msg_name(m->type));
}

void rs_adv_forger_release(struct rs_ue *f)
{
	struct rs_adv *ad = f->rs->adv;

	f->has_amf_id = false;
	if (ad->fst != ADV_F_WAIT && ad->fst != ADV_F_CLEANUP)
		return;
	cur(ad)->released = true;
	step_end(ad, "released");
}

struct rs_ue *rs_adv_forger(struct ransim *rs, const struct rs_gnb *g, uint32_t ran_id)
{
	struct rs_adv *ad = rs->adv;

	return ad->f.gnb == g && ad->f.ran_id == ran_id && ad->fst != ADV_F_IDLE ? &ad->f : NULL;
}

/* The forger's waits are the quiet timer's; its guard never runs (rs_ue_set_state is not
 * used on it), but a timer initialised with a callback is safe to stop. */
static void forger_guard_cb(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	(void)t;
}

/* Once per run: the victim's SUPI (the forger knows it), a key that is not the victim's. */
void rs_adv_forger_init(struct rs_adv *ad)
{
	struct ransim *rs = ad->rs;
	struct rs_ue *f = &ad->f;

	ev_timer_init(&ad->quiet, quiet_cb, ad);
	ad->fsim = *ad->v->sim;
	rnd(ad->fsim.k, sizeof(ad->fsim.k));
	rnd(ad->fsim.opc, sizeof(ad->fsim.opc));
	f->rs = rs;
	f->sim = &ad->fsim;
	f->idx = rs->cfg.n_ues;   /* its own SCTP stream; never an index into rs->ues */
	f->forger = true;
	f->started = true;
	f->ngksi = 7;
	f->gnb = &rs->gnbs[0];
	ev_timer_init(&f->guard, forger_guard_cb, f);
}
