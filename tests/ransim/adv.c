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
 * the forger is its own small state machine (forger_fsm[] in adv_forger.c) driven by the NAS it
 * receives; it never checks a MAC (it has no keys) and never touches rs->st.dl_mac_fail,
 * which stays the victim's. With cfg.attack_events the phases "ready", "attack_end" and
 * "check" are appended to that file and each waits (up to 20 s) for FILE.<phase>.ack, so a
 * test script can read the core's web API at those points.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "adv_int.h"

static const char *const expect_names[] = {
	"no_accept", "reg_reject_23", "auth_reject", "svc_reject_9", "release",
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

const char *const rs_adv_fstate_names[ADV_F_COUNT] = { "IDLE", "WAIT", "CLEANUP", "DONE" };


void rs_adv_log(enum log_level lvl, const struct rs_adv *ad, const char *fmt, ...)
{
	char obj[64];
	va_list ap;

	if (!log_enabled(lvl, "ransim"))
		return;
	snprintf(obj, sizeof(obj), "adv %s step=%u forger{%s}", ad->a->name, ad->step, rs_adv_fstate_names[ad->fst]);
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
	rs_adv_log(LOGL_WARN, ad, "victim harmed: %s", why);
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
	rs_adv_step_start(ad);
}

/* ADV_P_ATTACK's timer: the settle time after a step, then the next step or the end. */
static void attack_timeout(struct rs_adv *ad)
{
	if (++ad->step < ad->n_steps)
		rs_adv_step_start(ad);
	else
		attack_over(ad);
}

static void post_enter(struct rs_adv *ad)
{
	ev_timer_start(ad->rs->loop, &ad->t, ad->rs->cfg.attack_window_ms);
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
	rs_adv_log(LOGL_INFO, ad, "phase %s -> %s", phases[ad->ph].name, phases[ph].name);
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

int rs_adv_new(struct ransim *rs)
{
	const struct adv_attack *a = attack_by_name(rs->cfg.attack);
	struct rs_adv *ad;

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
	rs_adv_forger_init(ad);
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
