/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim adversary (issue 13 item 4): can a stranger who knows a subscriber's identities,
 * but not its K, disturb it?
 *
 * UE 0 is the victim: it registers with its real K/OPc, sets up a PDU session (and, for the
 * service request replay, goes to CM-IDLE and comes back with a SERVICE REQUEST once), then
 * holds in 5GMM-REGISTERED while the gNB runs its G-PDUs (gtpu.c). A forger UE context
 * (adv->f, never one of rs->ues) knows the victim's IMSI, SUCI, 5G-GUTI and 5G-S-TMSI - it
 * reads them from the victim's state in this process - and the victim's uplink NAS PDUs as
 * they were sent, but its K is random. It runs one attack from the const table attacks[]:
 * each variant once per gNB (gNB 0 is the victim's own association, gNB 1 a second one),
 * every step on a fresh RAN-UE-NGAP-ID. After the attack the victim must be untouched:
 * still registered on the same N2 connection, no UE Context Release Command, no downlink
 * NAS that fails its MAC, and G-PDUs still flowing both ways (the traffic of a window after
 * the attack against one before it). The victim then deregisters (a Deregistration Accept
 * proves its NAS security context still lines up with the AMF's).
 *
 * The run is a sequence of phases (phases[], adv_phase() is the only place that changes it);
 * the forger is its own small state machine (forger_fsm[]) driven by the downlink NAS it
 * receives; it never checks a MAC (it has no keys) and never touches rs->st.dl_mac_fail,
 * which stays the victim's. With cfg.attack_events the phases "ready", "attack_end" and
 * "check" are appended to that file and each waits (up to 20 s) for FILE.<phase>.ack, so a
 * test script can read the core's web API at those points.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "common/log.h"
#include "gtpu.h"
#include "rs_int.h"

#define ADV_MAX_STEPS 8
#define ADV_CAP_MAX 256               /* one captured uplink NAS PDU */
#define ADV_RAN_ID_BASE 0x00800000u   /* forger RAN-UE-NGAP-IDs, far from the victim's idx + k */
#define ADV_AUTH_ANSWERS_MAX 4        /* authentication requests answered per step (no loops) */
#define ADV_SYNC_POLL_MS 50
#define ADV_SYNC_POLLS 400            /* 20 s for the script's ack */
#define ADV_SETTLE_MS 200             /* after a step's release, before the next step */
#define ADV_CLEANUP_MS 2000           /* wait for the release our release request asks for */

/* What the forger sends first. */
enum adv_kind {
	ADV_K_NONE = 0,       /* baseline: no attack */
	ADV_K_REG_GUTI,       /* plain REGISTRATION REQUEST with the victim's 5G-GUTI */
	ADV_K_REG_SUCI,       /* plain REGISTRATION REQUEST with a SUCI of the victim's SUPI */
	ADV_K_SVC,            /* SERVICE REQUEST with the victim's 5G-S-TMSI: v0 bad MAC, v1 plain */
	ADV_K_DEREG,          /* DEREGISTRATION REQUEST with the victim's 5G-GUTI and a bad MAC */
	ADV_K_REPLAY_UL,      /* v0 the victim's UL NAS TRANSPORT, v1 its REGISTRATION COMPLETE */
	ADV_K_REPLAY_SVC,     /* the victim's old SERVICE REQUEST */
};

/* The forger's answer to an AUTHENTICATION REQUEST. */
enum adv_auth { ADV_A_WRONG_RES = 0, ADV_A_FAIL20, ADV_A_SILENT };

/* The forger's answer the spec defines (checked per step; an acceptance never passes). */
enum adv_expect {
	ADV_E_NO_ACCEPT = 0,  /* nothing defined beyond "not accepted" */
	ADV_E_REG_REJECT_23,
	ADV_E_AUTH_REJECT,
	ADV_E_SVC_REJECT_9,
	ADV_E_RELEASE,        /* the N1 signalling connection released */
};
static const char *const expect_names[] = {
	"no_accept", "reg_reject_23", "auth_reject", "svc_reject_9", "release",
};

struct adv_attack {
	const char *name;
	const char *spec;     /* what protects the victim, and the forger's expected answer */
	uint8_t kind;         /* enum adv_kind */
	uint8_t n_var;        /* variants, each once per gNB */
	uint8_t auth;         /* enum adv_auth */
	uint8_t expect;       /* enum adv_expect */
	uint8_t ia, ea;       /* forger's UE security capability (0: the configured one) */
	int8_t suci;          /* SUCI scheme the attack needs (enum ransim_suci), -1 any */
	bool svc_round;       /* the victim goes to CM-IDLE and back by service request first */
	bool switch_off;      /* ADV_K_DEREG: switch-off */
};

static const struct adv_attack attacks[] = {
	{ "baseline", "no attack: the harness itself", ADV_K_NONE, 0, 0, 0, 0, 0, -1, false, false },
	{ "reg-guti-badcaps", "TS 23.502 4.2.2.2.2, TS 24.501 4.4.4.3, 5.5.1.2.5 (#23)", ADV_K_REG_GUTI, 1,
	  ADV_A_WRONG_RES, ADV_E_REG_REJECT_23, 0x80, 0x80, -1, false, false },
	{ "reg-guti-t3560", "TS 24.501 5.4.1.3.7 b (T3560 5th expiry: abort, release)", ADV_K_REG_GUTI, 1,
	  ADV_A_SILENT, ADV_E_RELEASE, 0, 0, -1, false, false },
	{ "reg-guti-wrong-res", "TS 24.501 5.4.1.3.7 c (identification, then AUTHENTICATION REJECT)",
	  ADV_K_REG_GUTI, 1, ADV_A_WRONG_RES, ADV_E_AUTH_REJECT, 0, 0, -1, false, false },
	{ "reg-guti-auth-fail20", "TS 24.501 5.4.1.3.7 c, 5.4.1.3.5 (#20 MAC failure)", ADV_K_REG_GUTI, 1,
	  ADV_A_FAIL20, ADV_E_NO_ACCEPT, 0, 0, -1, false, false },
	{ "reg-suci-null", "TS 23.502 4.2.2.2.2, TS 24.501 5.4.1.3.5 (AUTHENTICATION REJECT)", ADV_K_REG_SUCI, 1,
	  ADV_A_WRONG_RES, ADV_E_AUTH_REJECT, 0, 0, RANSIM_SUCI_NULL, false, false },
	{ "reg-suci-a", "TS 23.502 4.2.2.2.2, TS 24.501 5.4.1.3.5, TS 33.501 C.3.4.1", ADV_K_REG_SUCI, 1,
	  ADV_A_WRONG_RES, ADV_E_AUTH_REJECT, 0, 0, RANSIM_SUCI_A, false, false },
	{ "svc-forged", "TS 24.501 4.4.4.3, 5.6.1.5 (SERVICE REJECT #9, contexts unchanged)", ADV_K_SVC, 2,
	  ADV_A_WRONG_RES, ADV_E_SVC_REJECT_9, 0, 0, -1, false, false },
	{ "dereg-normal", "TS 24.501 4.4.4.3 (authenticate before a deregistration that fails integrity)",
	  ADV_K_DEREG, 1, ADV_A_WRONG_RES, ADV_E_AUTH_REJECT, 0, 0, -1, false, false },
	{ "dereg-switchoff", "TS 24.501 4.4.4.3, 5.5.2.2.1 (switch-off: no DEREGISTRATION ACCEPT)", ADV_K_DEREG, 1,
	  ADV_A_WRONG_RES, ADV_E_NO_ACCEPT, 0, 0, -1, false, true },
	{ "replay-ul-nas", "TS 24.501 4.4.3.1, 4.4.4.3 (replayed NAS COUNT, no context on that connection)",
	  ADV_K_REPLAY_UL, 2, ADV_A_WRONG_RES, ADV_E_NO_ACCEPT, 0, 0, -1, false, false },
	{ "replay-svc", "TS 24.501 4.4.3.1, 4.4.4.3, 5.6.1.5 (replayed SERVICE REQUEST: #9)", ADV_K_REPLAY_SVC, 1,
	  ADV_A_WRONG_RES, ADV_E_SVC_REJECT_9, 0, 0, -1, true, false },
};
#define N_ATTACKS (sizeof(attacks) / sizeof(attacks[0]))

/* ---- run phases ---- */
enum adv_phase {
	ADV_P_SETUP = 0,   /* victim registering, PDU session (and the service request round) */
	ADV_P_PRE,         /* traffic window before the attack */
	ADV_P_SYNC,        /* waiting for the script's ack of a phase line */
	ADV_P_ATTACK,      /* the forger's steps */
	ADV_P_POST,        /* traffic window after the attack */
	ADV_P_DEREG,       /* the victim deregisters */
	ADV_P_COUNT
};

/* ---- the forger's states ---- */
enum adv_fstate {
	ADV_F_IDLE = 0,
	ADV_F_WAIT,        /* initial message sent: whatever the network answers */
	ADV_F_CLEANUP,     /* quiet: our UE Context Release Request sent, waiting for the release */
	ADV_F_DONE,        /* released (or given up): the next step follows */
	ADV_F_COUNT
};
static const char *const fstate_names[ADV_F_COUNT] = { "IDLE", "WAIT", "CLEANUP", "DONE" };

struct adv_step {
	uint8_t gnb, var;
	char answer[32];   /* first final answer: reg_reject_N, auth_reject, svc_reject_N, accepted_X ... */
	bool released, accepted, protected_rx, expected;
	char end[12];      /* released | quiet | no_release */
};

struct rs_adv {
	struct ransim *rs;
	const struct adv_attack *a;
	enum adv_phase ph, sync_next;
	const char *sync_name;
	unsigned sync_polls;
	struct ev_timer t;          /* phase timer */
	struct ev_timer quiet;      /* forger step: no message for attack_quiet_ms */
	struct rs_ue *v;            /* the victim, rs->ues[0] */
	struct rs_ue f;             /* the forger */
	struct ransim_sim fsim;     /* the victim's SUPI with a random K / OPc */
	enum adv_fstate fst;
	unsigned step, n_steps, auth_answers;
	struct adv_step steps[ADV_MAX_STEPS];
	/* the victim's uplink NAS PDUs as sent (TS 24.501 4.4.3.1: each has its own COUNT) */
	uint8_t cap_ul[ADV_CAP_MAX], cap_rc[ADV_CAP_MAX], cap_sr[ADV_CAP_MAX];
	uint16_t cap_ul_len, cap_rc_len, cap_sr_len;
	/* the victim's N2 connection when the attack starts */
	uint32_t v_ran_id;
	uint64_t v_amf_id;
	bool attacking, checked, victim_ok, forger_ok, traffic;
	uint64_t victim_releases, dl_mac_fail0;
	struct rs_gtpu_stats snap[4];  /* before / after the pre window, at attack end, after post */
	uint32_t forger_rx[256], forger_rx_prot[256];
	char harm[8][32];
	unsigned n_harm;
};

static void adv_log(enum log_level lvl, const struct rs_adv *ad, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void adv_log(enum log_level lvl, const struct rs_adv *ad, const char *fmt, ...)
{
	char obj[64];
	va_list ap;

	if (!log_enabled(lvl, "ransim"))
		return;
	snprintf(obj, sizeof(obj), "adv %s step=%u forger{%s}", ad->a->name, ad->step, fstate_names[ad->fst]);
	va_start(ap, fmt);
	log_vmsg(lvl, "ransim", obj, fmt, ap);
	va_end(ap);
}

static const struct adv_attack *attack_by_name(const char *name)
{
	for (size_t i = 0; name && i < N_ATTACKS; i++)
		if (!strcmp(attacks[i].name, name))
			return &attacks[i];
	return NULL;
}

void ransim_attack_list(FILE *out)
{
	for (size_t i = 0; i < N_ATTACKS; i++)
		fprintf(out, "    %-22s %s\n", attacks[i].name, attacks[i].spec);
}

int ransim_attack_suci(const char *name)
{
	const struct adv_attack *a = attack_by_name(name);

	return !a ? -1 : a->suci < 0 ? 3 : a->suci;
}

static void harm(struct rs_adv *ad, const char *why)
{
	for (unsigned i = 0; i < ad->n_harm; i++)
		if (!strcmp(ad->harm[i], why))
			return;
	if (ad->n_harm < sizeof(ad->harm) / sizeof(ad->harm[0]))
		snprintf(ad->harm[ad->n_harm++], sizeof(ad->harm[0]), "%s", why);
	ad->victim_ok = false;
	adv_log(LOGL_WARN, ad, "victim harmed: %s", why);
	rs_ue_fail(ad->v, why);
}

static void snap(struct rs_adv *ad, unsigned i)
{
	if (ad->rs->gtpu)
		rs_gtpu_get_stats(ad->rs->gtpu, &ad->snap[i]);
}

static void event_line(const struct rs_adv *ad, const char *name)
{
	FILE *f;

	if (!ad->rs->cfg.attack_events)
		return;
	f = fopen(ad->rs->cfg.attack_events, "a");
	if (!f)
		return;
	fprintf(f, "%s\n", name);
	fclose(f);
}

/* ---- phases ---- */

static void adv_phase(struct rs_adv *ad, enum adv_phase ph);

static void phase_sync(struct rs_adv *ad, const char *name, enum adv_phase next)
{
	ad->sync_name = name;
	ad->sync_next = next;
	ad->sync_polls = 0;
	event_line(ad, name);
	adv_phase(ad, ADV_P_SYNC);
}

static void sync_poll(struct rs_adv *ad)
{
	char ack[600];

	snprintf(ack, sizeof(ack), "%s.%s.ack", ad->rs->cfg.attack_events ? ad->rs->cfg.attack_events : "",
		 ad->sync_name);
	if (ad->rs->cfg.attack_events && access(ack, F_OK) != 0 && ++ad->sync_polls < ADV_SYNC_POLLS) {
		ev_timer_start(ad->rs->loop, &ad->t, ADV_SYNC_POLL_MS);
		return;
	}
	if (ad->sync_polls >= ADV_SYNC_POLLS)
		rs_cause_add(ad->rs, "adv_sync_timeout");
	adv_phase(ad, ad->sync_next);
}

static void pre_enter(struct rs_adv *ad)
{
	ad->traffic = ad->rs->gtpu != NULL;
	snap(ad, 0);
	ev_timer_start(ad->rs->loop, &ad->t, ad->rs->cfg.attack_window_ms);
}

static void pre_timeout(struct rs_adv *ad)
{
	snap(ad, 1);
	ad->v_ran_id = ad->v->ran_id;
	ad->v_amf_id = ad->v->amf_ue_id;
	ad->dl_mac_fail0 = ad->rs->st.dl_mac_fail;
	ad->attacking = true;   /* from here a release of the victim is harm */
	phase_sync(ad, "ready", ADV_P_ATTACK);
}

static void sync_enter(struct rs_adv *ad)
{
	ev_timer_start(ad->rs->loop, &ad->t, 0);
}

static void step_start(struct rs_adv *ad);

static void attack_over(struct rs_adv *ad)
{
	ev_timer_stop(ad->rs->loop, &ad->quiet);
	event_line(ad, "attack_over");
	snap(ad, 2);
	phase_sync(ad, "attack_end", ADV_P_POST);
}

static void attack_enter(struct rs_adv *ad)
{
	event_line(ad, "attack_start");
	ad->step = 0;
	if (!ad->n_steps) {
		attack_over(ad);
		return;
	}
	step_start(ad);
}

/* ADV_P_ATTACK's timer: the settle time after a step, then the next step or the end. */
static void attack_timeout(struct rs_adv *ad)
{
	if (++ad->step < ad->n_steps)
		step_start(ad);
	else
		attack_over(ad);
}

static void post_enter(struct rs_adv *ad)
{
	ev_timer_start(ad->rs->loop, &ad->t, ad->rs->cfg.attack_window_ms);
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

/* The victim-unharmed checks, at the end of the window after the attack. */
static void check_victim(struct rs_adv *ad)
{
	const struct rs_ue *v = ad->v;
	const struct rs_gtpu_stats *s = ad->snap;

	ad->checked = true;
	if (v->finished || v->st != RS_UE_REGISTERED)
		harm(ad, "adv_victim_not_registered");
	if (ad->victim_releases)
		harm(ad, "adv_victim_released");
	if (v->ran_id != ad->v_ran_id || !v->has_amf_id || v->amf_ue_id != ad->v_amf_id)
		harm(ad, "adv_victim_n2_changed");
	if (ad->rs->st.dl_mac_fail != ad->dl_mac_fail0 || ad->rs->st.dl_mac_fail)
		harm(ad, "adv_victim_dl_mac_fail");
	if (ad->traffic) {
		uint64_t ul_pre = s[1].ul_packets - s[0].ul_packets, dl_pre = s[1].dl_packets - s[0].dl_packets;
		uint64_t ul_post = s[3].ul_packets - s[2].ul_packets, dl_post = s[3].dl_packets - s[2].dl_packets;

		if (!ul_pre || !dl_pre)
			harm(ad, "adv_no_traffic_before_attack");
		if (!ul_post)
			harm(ad, "adv_no_uplink_after_attack");
		/* every uplink packet is an echo request: at most half of them lost */
		if (!dl_post || dl_post * 2 < ul_post)
			harm(ad, "adv_no_downlink_after_attack");
	}
	ad->forger_ok = true;
	for (unsigned i = 0; i < ad->n_steps; i++)
		if (!ad->steps[i].expected)
			ad->forger_ok = false;
}

static void post_timeout(struct rs_adv *ad)
{
	snap(ad, 3);
	check_victim(ad);
	phase_sync(ad, "check", ADV_P_DEREG);
}

static void dereg_enter(struct rs_adv *ad)
{
	struct rs_ue *v = ad->v;

	ad->attacking = false;
	event_line(ad, "end");
	/* the victim's context must still match the AMF's: a protected deregistration */
	if (!v->finished && v->st == RS_UE_REGISTERED)
		rs_ue_set_state(v, rs_ue_deregister(v, RANSIM_DEREG_NORMAL));
}

static const struct {
	const char *name;
	void (*enter)(struct rs_adv *ad);
	void (*timeout)(struct rs_adv *ad);
} phases[ADV_P_COUNT] = {
	[ADV_P_SETUP] = { "SETUP", NULL, NULL },
	[ADV_P_PRE] = { "PRE", pre_enter, pre_timeout },
	[ADV_P_SYNC] = { "SYNC", sync_enter, sync_poll },
	[ADV_P_ATTACK] = { "ATTACK", attack_enter, attack_timeout },
	[ADV_P_POST] = { "POST", post_enter, post_timeout },
	[ADV_P_DEREG] = { "DEREG", dereg_enter, NULL },
};

static void adv_phase(struct rs_adv *ad, enum adv_phase ph)
{
	adv_log(LOGL_INFO, ad, "phase %s -> %s", phases[ad->ph].name, phases[ph].name);
	ev_timer_stop(ad->rs->loop, &ad->t);
	ad->ph = ph;
	if (phases[ph].enter)
		phases[ph].enter(ad);
}

static void phase_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct rs_adv *ad = t->arg;

	(void)loop;
	if (phases[ad->ph].timeout)
		phases[ad->ph].timeout(ad);
}

/* ---- the forger ---- */

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
	adv_log(LOGL_INFO, ad, "step over: answer %s, %s, %s", s->answer, how,
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
		adv_log(LOGL_ERROR, ad, "no captured %s to replay", what);
		snprintf(cur(ad)->answer, sizeof(cur(ad)->answer), "no_capture");
		cur(ad)->accepted = true;   /* a harness failure: never "as expected" */
		return -ENOENT;
	}
	return rs_ue_send_nas_pdu(&ad->f, pdu, len, true);
}

/* Each step: a fresh forger connection (RAN-UE-NGAP-ID) on gNB step % n_gnbs. */
static void step_start(struct rs_adv *ad)
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
	adv_log(LOGL_INFO, ad, "start on gNB %u, variant %u", s->gnb, s->var);
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
	adv_log(LOGL_WARN, ad, "the network accepted the forger: %s", nas_msg_name(m->type));
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
	adv_log(LOGL_INFO, ad, "rx %s%s", prot ? "protected " : "", nas_msg_name(m->type));
	for (size_t i = 0; i < sizeof(forger_fsm) / sizeof(forger_fsm[0]); i++) {
		if (forger_fsm[i].msg != m->type || (forger_fsm[i].st != ADV_ANY && forger_fsm[i].st != ad->fst))
			continue;
		forger_fsm[i].fn(ad, m);
		return;
	}
	adv_log(LOGL_INFO, ad, "%s ignored", nas_msg_name(m->type));
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

/* ---- the victim ---- */

void rs_adv_victim_release(struct rs_ue *ue)
{
	struct rs_adv *ad = ue->rs->adv;

	if (ue != ad->v || !ad->attacking)
		return;
	ad->victim_releases++;
	harm(ad, "adv_victim_released");
}

enum rs_ue_state rs_adv_victim_next(struct rs_ue *ue)
{
	struct rs_adv *ad = ue->rs->adv;

	if (ue != ad->v) {
		rs_ue_fail(ue, "adv_one_victim_only");
		rs_ue_finish(ue);
		return RS_UE_REGISTERED;
	}
	if (ad->ph > ADV_P_POST)
		return RS_UE_REGISTERED;
	if (!ue->sess_tried)
		return rs_sm_establish(ue);
	if (ue->fail[0] || !ue->sess_up) {
		/* the harness failed before any attack: deregister, report */
		rs_cause_add(ue->rs, "adv_setup_failed");
		return rs_ue_deregister(ue, RANSIM_DEREG_NORMAL);
	}
	if (ad->a->svc_round && !ue->idle_done) {
		/* TS 23.502 4.2.6 then 4.2.3.2: to CM-IDLE and back, so there is a SERVICE REQUEST */
		rs_proc_start(ue, RANSIM_P_AN_RELEASE);
		rs_gnb_release_request(ue->gnb, ue);
		return RS_UE_WAIT_IDLE;
	}
	if (ad->ph == ADV_P_SETUP)
		adv_phase(ad, ADV_P_PRE);
	return RS_UE_REGISTERED;
}

void rs_adv_capture(struct rs_ue *ue, uint8_t type, const uint8_t *nas, size_t len)
{
	struct rs_adv *ad = ue->rs->adv;
	uint8_t *dst = NULL;
	uint16_t *dlen = NULL;

	if (ue != ad->v || len > ADV_CAP_MAX)
		return;
	/* the first of each: the oldest is the replay */
	if (type == NAS_UL_NAS_TRANSPORT && !ad->cap_ul_len) {
		dst = ad->cap_ul;
		dlen = &ad->cap_ul_len;
	} else if (type == NAS_REGISTRATION_COMPLETE && !ad->cap_rc_len) {
		dst = ad->cap_rc;
		dlen = &ad->cap_rc_len;
	} else if (type == NAS_SERVICE_REQUEST && !ad->cap_sr_len) {
		dst = ad->cap_sr;
		dlen = &ad->cap_sr_len;
	}
	if (!dst)
		return;
	memcpy(dst, nas, len);
	*dlen = (uint16_t)len;
}

/* ---- life cycle, report ---- */

/* The forger's waits are the quiet timer's; its guard never runs (rs_ue_set_state is not
 * used on it), but a timer initialised with a callback is safe to stop. */
static void forger_guard_cb(struct ev_loop *loop, struct ev_timer *t)
{
	(void)loop;
	(void)t;
}

int rs_adv_new(struct ransim *rs)
{
	const struct adv_attack *a = attack_by_name(rs->cfg.attack);
	struct rs_adv *ad;
	struct rs_ue *f;

	if (!a || rs->cfg.n_ues != 1 || (a->suci >= 0 && (int)rs->cfg.suci != a->suci))
		return -EINVAL;
	ad = calloc(1, sizeof(*ad));
	if (!ad)
		return -ENOMEM;
	ad->rs = rs;
	ad->a = a;
	ad->v = &rs->ues[0];
	ad->n_steps = (unsigned)a->n_var * rs->cfg.n_gnbs;
	if (ad->n_steps > ADV_MAX_STEPS)
		ad->n_steps = ADV_MAX_STEPS;
	ad->victim_ok = true;
	ev_timer_init(&ad->t, phase_cb, ad);
	ev_timer_init(&ad->quiet, quiet_cb, ad);
	/* the victim's SUPI (the forger knows it), a key that is not the victim's */
	ad->fsim = *ad->v->sim;
	rnd(ad->fsim.k, sizeof(ad->fsim.k));
	rnd(ad->fsim.opc, sizeof(ad->fsim.opc));
	f = &ad->f;
	f->rs = rs;
	f->sim = &ad->fsim;
	f->idx = rs->cfg.n_ues;   /* its own SCTP stream; never an index into rs->ues */
	f->forger = true;
	f->started = true;
	f->ngksi = 7;
	f->gnb = &rs->gnbs[0];
	ev_timer_init(&f->guard, forger_guard_cb, f);
	rs->adv = ad;
	return 0;
}

void rs_adv_free(struct ransim *rs)
{
	struct rs_adv *ad = rs->adv;

	if (!ad)
		return;
	ev_timer_stop(rs->loop, &ad->t);
	ev_timer_stop(rs->loop, &ad->quiet);
	memset(&ad->fsim, 0, sizeof(ad->fsim));
	free(ad);
	rs->adv = NULL;
}

bool rs_adv_done(const struct ransim *rs)
{
	const struct rs_adv *ad = rs->adv;

	/* the victim finished: deregistered at the end, or its setup failed */
	return ad->v->finished && (ad->ph == ADV_P_DEREG || ad->ph == ADV_P_SETUP);
}

void rs_adv_report(const struct ransim *rs, FILE *out)
{
	const struct rs_adv *ad = rs->adv;
	const struct rs_gtpu_stats *s = ad->snap;
	unsigned i;

	if (!ad)
		return;
	fprintf(out, "attack %s\nattack_spec %s\nadv_expect %s\nadv_steps %u\n", ad->a->name, ad->a->spec,
		expect_names[ad->a->expect], ad->n_steps);
	for (i = 0; i < ad->n_steps; i++) {
		const struct adv_step *st = &ad->steps[i];

		fprintf(out, "adv_step %u gnb %u variant %u answer %s end %s protected %d expected %d\n", i, st->gnb,
			st->var, st->answer[0] ? st->answer : "not_run", st->end[0] ? st->end : "not_run",
			st->protected_rx, st->expected);
	}
	for (i = 0; i < 256; i++) {
		if (ad->forger_rx[i])
			fprintf(out, "forger_rx %s %u\n", nas_msg_name((uint8_t)i), ad->forger_rx[i]);
		if (ad->forger_rx_prot[i])
			fprintf(out, "forger_rx_protected %s %u\n", nas_msg_name((uint8_t)i), ad->forger_rx_prot[i]);
	}
	fprintf(out, "adv_captured ul_nas %u reg_complete %u service_request %u\n", ad->cap_ul_len, ad->cap_rc_len,
		ad->cap_sr_len);
	fprintf(out, "adv_victim_release_cmds %llu\n", (unsigned long long)ad->victim_releases);
	fprintf(out, "adv_traffic %d\n", ad->traffic);
	fprintf(out, "adv_ul_pre %llu\nadv_dl_pre %llu\nadv_ul_post %llu\nadv_dl_post %llu\n",
		(unsigned long long)(s[1].ul_packets - s[0].ul_packets),
		(unsigned long long)(s[1].dl_packets - s[0].dl_packets),
		(unsigned long long)(s[3].ul_packets - s[2].ul_packets),
		(unsigned long long)(s[3].dl_packets - s[2].dl_packets));
	for (i = 0; i < ad->n_harm; i++)
		fprintf(out, "adv_harm %s\n", ad->harm[i]);
	fprintf(out, "adv_checked %d\nadv_victim_ok %d\nadv_forger_ok %d\n", ad->checked,
		ad->checked && ad->victim_ok, ad->checked && ad->forger_ok);
	fprintf(out, "adv_victim_deregistered %d\n",
		ad->v->finished && !ad->v->fail[0] && rs->st.done[RANSIM_P_DEREGISTRATION] > 0);
}
