/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The network-side 5GMM timers (TS 24.501 10.2, table 10.2.2), embedded in the
 * UE context. One table keyed by the 3GPP names: value, whether an expiry
 * retransmits the last downlink NAS message, and what the give-up path is.
 */
#include "amf/amf_int.h"
#include "common/log.h"

/* The 5GMM timers give up through the state table (ev); the others call giveup. */
struct tmr_def {
	const char *name;
	bool retransmits;     /* expiry 1..4 resends the stored NAS message */
	enum amf_gmm_event ev;
	void (*giveup)(struct amf_ue *ue);
};

static const struct tmr_def tmr_defs[AMF_TMR_COUNT] = {
	/* TS 24.501 5.5.1.2.8 c) / 5.5.1.3.8 c) */
	[AMF_T3550] = { "T3550", true, AMF_EV_T3550, NULL },
	/* TS 24.501 5.4.1.3.7 b) and 5.4.2.7 b) */
	[AMF_T3560] = { "T3560", true, AMF_EV_T3560, NULL },
	/* TS 24.501 5.4.3.7 b) */
	[AMF_T3570] = { "T3570", true, AMF_EV_T3570, NULL },
	/* TS 24.501 5.5.2.3.5 a) */
	[AMF_T3522] = { "T3522", true, AMF_EV_T3522, NULL },
	/* TS 24.501 5.4.4.5 a) */
	[AMF_T3555] = { "T3555", true, AMF_EV_T3555, NULL },
	/* TS 24.501 5.6.2.2.1 / TS 23.502 4.2.3.3: paging repeated by the AMF (nas_sm.c) */
	[AMF_T3513] = { "T3513", false, AMF_EV_COUNT, amf_on_t3513 },
	/* TS 24.501 5.3.7 */
	[AMF_TMR_MOBILE_REACHABLE] = { "mobile-reachable", false, AMF_EV_COUNT, amf_on_mobile_reachable },
	[AMF_TMR_IMPLICIT_DEREG] = { "implicit-dereg", false, AMF_EV_IMPLICIT, NULL },
	/* TS 38.413 8.3.3: a release that is never completed must not keep the context */
	[AMF_TMR_RELEASE_GUARD] = { "release-guard", false, AMF_EV_COUNT, amf_on_release_guard },
	/* TS 23.502 4.9.1.3.2 / 4.9.1.3.3: the AMF's guards of an N2 handover (ngap_ho_exec.c) */
	[AMF_TMR_HO_PREP] = { "ho-prep", false, AMF_EV_COUNT, amf_on_ho_guard },
	[AMF_TMR_HO_OVERALL] = { "ho-overall", false, AMF_EV_COUNT, amf_on_ho_guard },
};

const char *amf_tmr_name(enum amf_tmr t)
{
	return (unsigned)t < AMF_TMR_COUNT ? tmr_defs[t].name : "?";
}

static uint64_t tmr_ms(const struct amf_cfg *c, enum amf_tmr t)
{
	switch (t) {
	case AMF_T3550: return c->t3550_ms;
	case AMF_T3560: return c->t3560_ms;
	case AMF_T3570: return c->t3570_ms;
	case AMF_T3522: return c->t3522_ms;
	case AMF_T3555: return c->t3555_ms;
	case AMF_T3513: return c->t3513_ms;
	case AMF_TMR_MOBILE_REACHABLE: {
		/* TS 24.501 5.3.7: by default 4 minutes more than the T3512 the UE was given:
		 * the value on the wire, which GPRS timer 3 rounds (54 min is sent as 60 min).
		 * The configured margin (mobile_reachable - t3512) is kept on top of it; a
		 * configured value below T3512 (tests) is taken as it is. */
		uint64_t wire = nas_gprs_timer3_secs(nas_gprs_timer3_enc(c->t3512_s));

		if (c->mobile_reachable_s < c->t3512_s)
			return (uint64_t)c->mobile_reachable_s * 1000;
		return (wire + (c->mobile_reachable_s - c->t3512_s)) * 1000;
	}
	case AMF_TMR_IMPLICIT_DEREG: return (uint64_t)c->implicit_dereg_s * 1000;
	case AMF_TMR_RELEASE_GUARD: return c->release_guard_ms;
	case AMF_TMR_HO_PREP: return c->ho_prep_ms;
	case AMF_TMR_HO_OVERALL: return c->ho_overall_ms;
	case AMF_TMR_COUNT: break;
	}
	return 0;
}

static void tmr_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct amf_ue *ue = t->arg;
	enum amf_tmr id = (enum amf_tmr)(t - ue->tmr);
	const struct tmr_def *d = &tmr_defs[id];

	(void)loop;
	if (id == AMF_T3550)
		ue->amf->st.t3550_expired++;
	else if (id == AMF_T3560)
		ue->amf->st.t3560_expired++;
	else if (id == AMF_T3570)
		ue->amf->st.t3570_expired++;
	else if (id == AMF_T3522)
		ue->amf->st.t3522_expired++;
	if (d->retransmits && ue->retx[id] < AMF_NAS_MAX_RETX && ue->gnb &&
	    ue->last_nas_tmr == id && ue->last_nas_len) {
		ue->retx[id]++;
		amf_ue_log(LOGL_INFO, ue, "%s expired (%u): retransmitting", d->name, ue->retx[id]);
		if (amf_nas_retransmit(ue) == 0) {
			ev_timer_start(ue->amf->loop, &ue->tmr[id], tmr_ms(&ue->amf->cfg, id));
			return;
		}
	}
	amf_ue_log(LOGL_INFO, ue, "%s expired: giving up", d->name);
	ue->retx[id] = 0;
	if (d->ev != AMF_EV_COUNT)
		amf_gmm_dispatch(ue, d->ev, NULL);
	else
		d->giveup(ue);
}

void amf_timers_init(struct amf_ue *ue)
{
	int i;

	for (i = 0; i < AMF_TMR_COUNT; i++) {
		ev_timer_init(&ue->tmr[i], tmr_cb, ue);
		ue->retx[i] = 0;
	}
}

void amf_tmr_start(struct amf_ue *ue, enum amf_tmr t)
{
	ue->retx[t] = 0;
	ev_timer_start(ue->amf->loop, &ue->tmr[t], tmr_ms(&ue->amf->cfg, t));
}

void amf_tmr_stop(struct amf_ue *ue, enum amf_tmr t)
{
	ev_timer_stop(ue->amf->loop, &ue->tmr[t]);
	ue->retx[t] = 0;
}

void amf_tmr_stop_all(struct amf_ue *ue)
{
	int i;

	for (i = 0; i < AMF_TMR_COUNT; i++)
		amf_tmr_stop(ue, (enum amf_tmr)i);
}
