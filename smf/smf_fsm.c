/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The PDU session state machine of the network side, TS 24.501 6.1.3.3
 * (PDU SESSION INACTIVE / ACTIVE / MODIFICATION PENDING / INACTIVE PENDING),
 * with ACTIVE_PENDING for the wait on the gNB after the accept (TS 23.502
 * 4.3.2.2.1 steps 11-15; the UE is told ACTIVE already), and N4_PENDING before it
 * for the wait on a UPF over PFCP (steps 10a/10b: the N4 Session Establishment is
 * answered before the N1N2 transfer of step 11; the UE hears nothing until then). The user plane
 * (none / pending / active / inactive) is a sub-state of the session, changed
 * by the same actions; so is the N2 handover (none / preparing / admitted and
 * its forwarding tunnel, smf_ho.c), which the on-enter step of the dispatcher
 * ends for a session entering a release or losing its user plane.
 *
 * A const table lists per state the events it takes and the states it may go
 * to; one action function per event returns the next state. smf_fsm_dispatch()
 * refuses what the table does not allow and logs every transition. A session
 * that reaches INACTIVE is freed there (rules, address, TEID, slot).
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap.h"
#include "smf/smf_int.h"
#include "upf/upf.h"

#define EVB(e) (1u << (e))
#define STB(s) (1u << (s))

struct smf_state_desc {
	const char *name;
	uint32_t events;       /* EVB() of the events taken in this state */
	uint32_t next;         /* STB() of the states an action may lead to */
};

static const struct smf_state_desc states[SMF_ST__MAX] = {
	[SMF_ST_INACTIVE] = { "INACTIVE",
		EVB(SMF_EV_EST_REQ),
		STB(SMF_ST_ACTIVE_PENDING) | STB(SMF_ST_N4_PENDING) | STB(SMF_ST_INACTIVE) },
	/* TS 23.502 4.3.2.2.1 step 10b awaited. The UE's retransmission of its request is taken
	 * (nothing to say yet); a release of any origin or the UE's deregistration ends it: the
	 * PFCP session is deleted once it is answered (upf/upf.h), the UE gets a reject (network
	 * release) or a release command (its own request), the gNB nothing. */
	[SMF_ST_N4_PENDING] = { "N4_PENDING",
		EVB(SMF_EV_EST_REQ) | EVB(SMF_EV_N4_EST_OK) | EVB(SMF_EV_N4_EST_FAIL) | EVB(SMF_EV_REL_REQ) |
		EVB(SMF_EV_NET_REL) | EVB(SMF_EV_UP_DEACT) | EVB(SMF_EV_LOCAL_REL),
		STB(SMF_ST_N4_PENDING) | STB(SMF_ST_ACTIVE_PENDING) | STB(SMF_ST_INACTIVE_PENDING) |
		STB(SMF_ST_INACTIVE) },
	[SMF_ST_ACTIVE_PENDING] = { "ACTIVE_PENDING",
		EVB(SMF_EV_EST_REQ) | EVB(SMF_EV_N2_SETUP_OK) | EVB(SMF_EV_N2_SETUP_FAIL) |
		EVB(SMF_EV_REL_REQ) | EVB(SMF_EV_NET_REL) | EVB(SMF_EV_UP_DEACT) | EVB(SMF_EV_LOCAL_REL),
		STB(SMF_ST_ACTIVE_PENDING) | STB(SMF_ST_ACTIVE) | STB(SMF_ST_INACTIVE_PENDING) |
		STB(SMF_ST_INACTIVE) },
	[SMF_ST_ACTIVE] = { "ACTIVE",
		EVB(SMF_EV_N2_SETUP_OK) | EVB(SMF_EV_N2_SETUP_FAIL) | EVB(SMF_EV_REL_REQ) |
		EVB(SMF_EV_NET_REL) | EVB(SMF_EV_NET_MOD) | EVB(SMF_EV_UP_DEACT) | EVB(SMF_EV_UP_REACT) |
		EVB(SMF_EV_LOCAL_REL) | EVB(SMF_EV_N2_MOD_IND) | EVB(SMF_EV_N2_PATH_SWITCH) |
		EVB(SMF_EV_N2_HO_PREP) | EVB(SMF_EV_N2_HO_ADMIT) | EVB(SMF_EV_N2_HO_NOTIFY) |
		EVB(SMF_EV_HO_CANCEL) | EVB(SMF_EV_HO_FWD_END),
		STB(SMF_ST_ACTIVE) | STB(SMF_ST_MODIFICATION_PENDING) | STB(SMF_ST_INACTIVE_PENDING) |
		STB(SMF_ST_INACTIVE) },
	[SMF_ST_MODIFICATION_PENDING] = { "MODIFICATION_PENDING",
		EVB(SMF_EV_MOD_CPL) | EVB(SMF_EV_MOD_CMD_REJ) | EVB(SMF_EV_N2_MOD_RSP) | EVB(SMF_EV_T3591) |
		EVB(SMF_EV_REL_REQ) | EVB(SMF_EV_NET_REL) | EVB(SMF_EV_UP_DEACT) | EVB(SMF_EV_STATUS_ABORT) |
		EVB(SMF_EV_LOCAL_REL) | EVB(SMF_EV_N2_MOD_IND) | EVB(SMF_EV_N2_PATH_SWITCH) |
		EVB(SMF_EV_HO_FWD_END),
		STB(SMF_ST_MODIFICATION_PENDING) | STB(SMF_ST_ACTIVE) | STB(SMF_ST_INACTIVE_PENDING) |
		STB(SMF_ST_INACTIVE) },
	[SMF_ST_INACTIVE_PENDING] = { "INACTIVE_PENDING",
		EVB(SMF_EV_REL_REQ) | EVB(SMF_EV_REL_CPL) | EVB(SMF_EV_N2_REL_RSP) | EVB(SMF_EV_T3592) |
		EVB(SMF_EV_UP_DEACT) | EVB(SMF_EV_STATUS_ABORT) | EVB(SMF_EV_LOCAL_REL),
		STB(SMF_ST_INACTIVE_PENDING) | STB(SMF_ST_INACTIVE) },
};

static const char *const ev_names[SMF_EV__MAX] = {
	[SMF_EV_EST_REQ] = "EST_REQ", [SMF_EV_N2_SETUP_OK] = "N2_SETUP_OK",
	[SMF_EV_N2_SETUP_FAIL] = "N2_SETUP_FAIL", [SMF_EV_REL_REQ] = "REL_REQ",
	[SMF_EV_NET_REL] = "NET_REL", [SMF_EV_REL_CPL] = "REL_CPL", [SMF_EV_N2_REL_RSP] = "N2_REL_RSP",
	[SMF_EV_NET_MOD] = "NET_MOD", [SMF_EV_MOD_CPL] = "MOD_CPL", [SMF_EV_MOD_CMD_REJ] = "MOD_CMD_REJ",
	[SMF_EV_N2_MOD_RSP] = "N2_MOD_RSP", [SMF_EV_UP_DEACT] = "UP_DEACT", [SMF_EV_UP_REACT] = "UP_REACT",
	[SMF_EV_T3591] = "T3591", [SMF_EV_T3592] = "T3592", [SMF_EV_STATUS_ABORT] = "STATUS_ABORT",
	[SMF_EV_LOCAL_REL] = "LOCAL_REL", [SMF_EV_N2_MOD_IND] = "N2_MOD_IND",
	[SMF_EV_N2_PATH_SWITCH] = "N2_PATH_SWITCH", [SMF_EV_N2_HO_PREP] = "N2_HO_PREP",
	[SMF_EV_N2_HO_ADMIT] = "N2_HO_ADMIT", [SMF_EV_N2_HO_NOTIFY] = "N2_HO_NOTIFY",
	[SMF_EV_HO_CANCEL] = "HO_CANCEL", [SMF_EV_HO_FWD_END] = "HO_FWD_END",
	[SMF_EV_N4_EST_OK] = "N4_EST_OK", [SMF_EV_N4_EST_FAIL] = "N4_EST_FAIL",
};

const char *smf_state_name(unsigned s)
{
	return s < SMF_ST__MAX ? states[s].name : "?";
}

const char *smf_event_name(unsigned ev)
{
	return ev < SMF_EV__MAX ? ev_names[ev] : "?";
}

static void timer_start(struct smf *smf, struct smf_sess *s, uint32_t ms)
{
	if (smf->p.loop && ev_timer_start(smf->p.loop, &s->timer, ms) < 0)
		smf_slog(LOGL_ERROR, smf, s, "cannot start timer");
}

static void timer_stop(struct smf *smf, struct smf_sess *s)
{
	if (smf->p.loop)
		ev_timer_stop(smf->p.loop, &s->timer);
}

/* ---- actions: one per event; each returns the next state or -errno ---- */

/* TS 23.502 4.3.2.2.1 step 11: the accept and the Setup Request Transfer (UL tunnel: the
 * session's F-TEID) out; the gNB is awaited. */
static int est_accept(struct smf *smf, struct smf_sess *s, struct smf_out *out)
{
	int rc = smf_msg_est_accept(smf, s, out);

	if (!rc)
		rc = smf_msg_setup_transfer(smf, s, out);
	if (rc < 0)
		return rc;
	s->up = SMF_UP_PENDING;
	return SMF_ST_ACTIVE_PENDING;
}

/* TS 23.502 4.3.2.2.1 steps 3-11: rules installed (downlink buffered until the gNB answers),
 * then accept and Setup Request Transfer out -- at once for a UPF that installs them as it is
 * called (in process), after its N4 Session Establishment Response for a PFCP peer (steps
 * 10a/10b first: N4_PENDING). A second request with the same PTI while we wait is the UE's
 * retransmission (T3580): answered again with the same session, or (N4) by the accept to come. */
static int a_est_req(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	struct upf *u;
	int rc;

	if (s->state == SMF_ST_N4_PENDING)
		return SMF_ST_N4_PENDING;
	if (s->state == SMF_ST_INACTIVE) {
		rc = smf_upf_apply(smf, s);
		if (rc < 0)
			return rc;
		u = smf_sess_upf(smf, s);
		if (u && upf_session_pending(u, (uint32_t)(s - smf->sess)))
			return SMF_ST_N4_PENDING;
	}
	return est_accept(smf, s, c->out);
}

/* TS 23.502 4.3.2.2.1 step 10b, accepted: the F-TEID the UPF took (CHOOSE) or ours goes to
 * the gNB in the Setup Request Transfer (the rule keeps it: smf_upf_apply). */
static int a_n4_est_ok(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	if (c->n4->ul_teid) {
		s->teid = c->n4->ul_teid;
		s->n3_addr = c->n4->n3_addr;
	}
	smf->st.est_accepted++;
	smf_slog(LOGL_INFO, smf, s, "N4 session accepted by the UPF, F-TEID 0x%x on %u.%u.%u.%u: accept sent",
		 s->teid, ((uint8_t *)&s->n3_addr)[0], ((uint8_t *)&s->n3_addr)[1], ((uint8_t *)&s->n3_addr)[2],
		 ((uint8_t *)&s->n3_addr)[3]);
	return est_accept(smf, s, c->out);
}

/* The UPF refused or did not answer (step 10b): PDU SESSION ESTABLISHMENT REJECT, nothing to
 * the gNB (step 11 never happens), the session freed. TS 24.501 6.4.1.4.1 / 9.11.4.2 and Annex B:
 * #26 "insufficient resources" when the UPF has none (PFCP Cause 74 / 75), #38 "network
 * failure" when it did not answer (an error situation in the network), #31 "request rejected,
 * unspecified" for any other refusal (one the UE cannot act on). */
static uint8_t n4_reject_cause(const struct upf_est_result *r)
{
	switch (r->status) {
	case UPF_EST_NO_RESOURCES:
		return NAS_5GSM_INSUFFICIENT_RESOURCES;
	case UPF_EST_TIMEOUT:
		return NAS_5GSM_NETWORK_FAILURE;
	default:
		return NAS_5GSM_REQUEST_REJECTED_UNSPECIFIED;
	}
}

static int est_reject(struct smf *smf, struct smf_sess *s, struct smf_out *out, uint8_t cause)
{
	int rc = smf_msg_est_reject(out, s->psi, s->pti, cause);

	if (rc < 0)
		return rc;
	smf->st.est_rejected++;
	smf->st.est_rej_cause[cause < SMF_CAUSE_SLOTS ? cause : 0]++;
	return SMF_ST_INACTIVE;
}

static int a_n4_est_fail(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	uint8_t cause = n4_reject_cause(c->n4);
	int rc;

	smf_slog(LOGL_WARN, smf, s, "pti=%u the UPF %s the N4 session (PFCP cause %u): establishment rejected #%u %s",
		 s->pti, c->n4->status == UPF_EST_TIMEOUT ? "did not answer" : "refused", c->n4->cause, cause,
		 nas_5gsm_cause_name(cause));
	smf->st.upf_est_failed++;
	rc = est_reject(smf, s, c->out, cause);
	/* TS 24.501 6.4.1.4.3: the same reject with T3396 (upf.no_upf_backoff) when the UPF did not
	 * answer, so the UE does not ask again at once of a UPF that does not answer (issue 32:
	 * before, a timeout on a live UPF released the session #39 and the UE came back at once,
	 * without bound) */
	if (rc >= 0 && c->n4->status == UPF_EST_TIMEOUT && smf->no_upf_backoff_s)
		smf_msg_est_reject_backoff(c->out, s->psi, s->pti, cause, smf->no_upf_backoff_s);
	return rc;
}

/* TS 23.502 4.3.2.2.1 step 15 / 4.2.3.2 step 12: the gNB's DL tunnel; downlink active. */
static int start_release(struct smf *smf, struct smf_sess *s, struct smf_out *out, uint8_t pti);

static int a_n2_setup_ok(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	const struct ngap_setup_response_transfer *t = c->n2;

	uint32_t a4;
	uint8_t a6[16];

	if (s->up != SMF_UP_PENDING)
		return -EPROTO;
	if (smf_tunnel_gnb(smf, s, &t->dl_tunnel, &a4, a6)) {
		/* No address of a family our N3 has (an IPv6-only gNB, our N3 IPv4 only): no
		 * downlink can reach this gNB. The gNB holds the resources: release the session, N1
		 * and N2 (#38), rather than leave it pending forever. */
		smf_slog(LOGL_WARN, smf, s, "gNB N3 address of %u bits, no family in common with our N3: releasing the session",
			 t->dl_tunnel.addr_bits);
		timer_stop(smf, s);
		s->rel_cause = NAS_5GSM_NETWORK_FAILURE;
		s->rel_net = 1;
		return start_release(smf, s, c->out, 0);
	}
	s->gnb_addr = a4;
	memcpy(s->gnb_addr6, a6, 16);
	s->gnb_teid = smf_tunnel_teid(&t->dl_tunnel);
	s->up = SMF_UP_ACTIVE;
	smf_upf_apply(smf, s);
	if (s->state == SMF_ST_ACTIVE)
		smf->st.up_reactivated++;
	return SMF_ST_ACTIVE;
}

/* TS 23.502 4.3.2.2.1: the gNB could not set the session up. At establishment the
 * session is released by the network (N1 only: the gNB has nothing to release); at
 * reactivation the session stays with its user plane deactivated (4.2.3.2). */
static int a_n2_setup_fail(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	if (s->up != SMF_UP_PENDING)
		return -EPROTO;
	s->up = SMF_UP_INACTIVE;
	if (s->state == SMF_ST_ACTIVE)
		return SMF_ST_ACTIVE;
	s->up = SMF_UP_NONE;
	s->rel_cause = NAS_5GSM_NETWORK_FAILURE;
	s->rel_net = 1;
	return start_release(smf, s, c->out, 0);
}

/* Release command (N1) plus, when the gNB holds resources, the Release Command
 * Transfer (N2); T3592 (TS 24.501 6.3.3.2). */
static int start_release(struct smf *smf, struct smf_sess *s, struct smf_out *out, uint8_t pti)
{
	int rc;

	s->pti = pti;
	s->retx = 0;
	s->rel_n1_done = 0;
	s->rel_n2_done = 0;
	s->rel_n2_wait = s->up == SMF_UP_ACTIVE || s->up == SMF_UP_PENDING;
	rc = smf_msg_rel_command(s, pti, out);
	if (!rc && s->rel_n2_wait)
		rc = smf_msg_rel_transfer(s, out);
	if (!rc && !s->rel_n2_wait)
		out->psi = s->psi;
	if (rc < 0)
		return rc;
	timer_start(smf, s, smf->t3592_ms);
	return SMF_ST_INACTIVE_PENDING;
}

/* TS 24.501 6.4.3.2/6.4.3.3: UE-requested release, #36 regular deactivation.
 * While a network release runs, the UE's request is dropped (collision,
 * TS 24.501 6.4.3.5: the network-requested release goes on). */
static int a_rel_req(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	if (s->state == SMF_ST_INACTIVE_PENDING)
		return SMF_ST_INACTIVE_PENDING;
	timer_stop(smf, s);        /* a modification in progress is abandoned */
	s->rel_cause = NAS_5GSM_REGULAR_DEACTIVATION;
	s->rel_net = 0;
	return start_release(smf, s, c->out, c->msg->pti);
}

/* TS 24.501 6.3.3.2: network-requested release, PTI 0. Before the accept (N4_PENDING) the UE
 * has no session to release: its establishment is rejected instead (6.4.1.4.1), #39 (the UPF
 * was lost, TS 23.527 4.4) as #38 "network failure", the establishment reject's cause for it. */
static int a_net_rel(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	if (s->state == SMF_ST_N4_PENDING)
		return est_reject(smf, s, c->out,
				  c->cause == NAS_5GSM_REACTIVATION_REQUESTED ? NAS_5GSM_NETWORK_FAILURE : c->cause);
	timer_stop(smf, s);
	s->rel_cause = c->cause;
	s->rel_net = 1;
	return start_release(smf, s, c->out, 0);
}

/* TS 24.501 6.3.3.3: release complete ends the procedure; the session is gone
 * (TS 23.502 4.3.4.2 step 11: N4 session release follows). */
static int a_rel_cpl(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	timer_stop(smf, s);
	s->rel_n1_done = 1;
	if (s->rel_net)
		smf->st.rel_net++;
	else
		smf->st.rel_ue++;
	return SMF_ST_INACTIVE;
}

static int a_n2_rel_rsp(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	if (!s->rel_n2_wait || s->rel_n2_done)
		return -EPROTO;
	s->rel_n2_done = 1;
	s->up = SMF_UP_NONE;
	smf_slog(LOGL_DEBUG, smf, s, "gNB released the resources");
	return SMF_ST_INACTIVE_PENDING;
}

/* TS 24.501 6.3.2.2: modification command (session-AMBR), T3591; N2 Modify
 * Request Transfer when the gNB holds the session. With the UE's PDU SESSION MODIFICATION
 * REQUEST in c->msg it is the network's answer to it (6.4.2.3): same command, the UE's PTI. */
static int a_net_mod(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	int rc;

	/* The target gNB has no copy of the session yet (TS 23.502 4.9.1.3.2): no modification during a
	 * handover; the policy retry (ambr_stale) or the UE asks again once it is over. */
	if (s->ho != SMF_HO_NONE)
		return -EBUSY;
	s->retx = 0;
	s->pti = c->msg ? c->msg->pti : 0;
	rc = smf_msg_mod_command(s, c->out);
	s->mod_n2_wait = s->up == SMF_UP_ACTIVE;
	if (!rc && s->mod_n2_wait)
		rc = smf_msg_mod_transfer(s, c->out);
	if (rc < 0)
		return rc;
	timer_start(smf, s, smf->t3591_ms);
	return SMF_ST_MODIFICATION_PENDING;
}

/* TS 24.501 6.3.2.3: the UE took the new AMBR; the UPF polices it now. */
static int a_mod_cpl(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	timer_stop(smf, s);
	s->ambr_ul = s->new_ambr_ul;
	s->ambr_dl = s->new_ambr_dl;
	smf_upf_apply(smf, s);
	smf->st.mod_ok++;
	return SMF_ST_ACTIVE;
}

/* TS 24.501 6.3.2.4 (command reject) and 6.5.3 (status aborting it): keep the
 * previous configuration. */
static int a_mod_cmd_rej(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	timer_stop(smf, s);
	smf->st.mod_failed++;
	return SMF_ST_ACTIVE;
}

static int a_n2_mod_rsp(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)smf;
	(void)c;
	if (!s->mod_n2_wait)
		return -EPROTO;
	s->mod_n2_wait = 0;
	return SMF_ST_MODIFICATION_PENDING;
}

/* TS 23.502 4.2.6 step 5: AN release; downlink buffered (UPF notifies). */
static int a_up_deact(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	if (s->state == SMF_ST_INACTIVE_PENDING) {
		/* nothing left at the gNB for the release either */
		if (s->rel_n2_wait)
			s->rel_n2_done = 1;
		s->up = SMF_UP_NONE;
		return SMF_ST_INACTIVE_PENDING;
	}
	if (s->up == SMF_UP_ACTIVE || s->up == SMF_UP_PENDING) {
		s->up = SMF_UP_INACTIVE;
		smf->st.up_deactivated++;
		smf_upf_apply(smf, s);
	}
	s->mod_n2_wait = 0;
	return s->state == SMF_ST_ACTIVE_PENDING ? SMF_ST_ACTIVE : s->state;
}

/* TS 23.502 4.2.3.2 step 4-11: the Setup Request Transfer again (same UL TEID). */
static int a_up_react(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	int rc;

	if (s->up != SMF_UP_INACTIVE)
		return -EALREADY;
	rc = smf_msg_setup_transfer(smf, s, c->out);
	if (rc < 0)
		return rc;
	s->up = SMF_UP_PENDING;
	return SMF_ST_ACTIVE;
}

/* Retransmission of the N1 part alone (DL NAS Transport) through ops.send. */
static int retransmit(struct smf *smf, struct smf_sess *s, bool release)
{
	struct smf_out o;
	int rc;

	smf_out_init(&o, smf->scratch_n1, sizeof(smf->scratch_n1), smf->scratch_n2, sizeof(smf->scratch_n2));
	rc = release ? smf_msg_rel_command(s, s->pti, &o) : smf_msg_mod_command(s, &o);
	if (rc < 0)
		return rc;
	o.psi = s->psi;
	o.snssai = s->snssai;
	return smf_send(smf, s, &o);
}

/* TS 24.501 6.3.2.5 a): retransmit four times; on the fifth expiry abort the
 * modification and keep the previous configuration. */
static int a_t3591(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	smf->st.t3591_expired++;
	if (s->retx >= smf->max_retx) {
		smf->st.t3591_gave_up++;
		smf->st.mod_failed++;
		smf_slog(LOGL_WARN, smf, s, "T3591 expired %u times: modification aborted", s->retx + 1u);
		return SMF_ST_ACTIVE;
	}
	s->retx++;
	if (retransmit(smf, s, false) < 0) {
		smf->st.mod_failed++;
		return SMF_ST_ACTIVE;
	}
	timer_start(smf, s, smf->t3591_ms);
	return SMF_ST_MODIFICATION_PENDING;
}

/* TS 24.501 6.3.3.5 a): retransmit four times; on the fifth expiry release locally. */
static int a_t3592(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	smf->st.t3592_expired++;
	if (s->retx >= smf->max_retx) {
		smf->st.t3592_gave_up++;
		smf->st.rel_local++;
		smf_slog(LOGL_WARN, smf, s, "T3592 expired %u times: released locally", s->retx + 1u);
		return SMF_ST_INACTIVE;
	}
	s->retx++;
	if (retransmit(smf, s, true) < 0) {
		smf->st.rel_local++;
		return SMF_ST_INACTIVE;
	}
	timer_start(smf, s, smf->t3592_ms);
	return SMF_ST_INACTIVE_PENDING;
}

/* TS 24.501 6.5.3: a 5GSM STATUS (#81, #97, #98 ...) aborts the running procedure. */
static int a_status_abort(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	timer_stop(smf, s);
	if (s->state == SMF_ST_MODIFICATION_PENDING) {
		smf->st.mod_failed++;
		return SMF_ST_ACTIVE;
	}
	smf->st.rel_local++;
	return SMF_ST_INACTIVE;
}

static int a_local_rel(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	timer_stop(smf, s);
	smf->st.rel_local++;
	return SMF_ST_INACTIVE;
}

/* TS 23.502 4.2.3.2 / TS 38.413 8.2.5: the gNB moved the session's DL end (e.g. dual connectivity):
 * the UPF sends downlink there from now on, and the gNB gets the Modify Confirm. An address
 * without IPv4 cannot be used on our N3: refused, the old tunnel kept. The state does not change. */
static int a_n2_mod_ind(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	const struct ngap_modify_indication_transfer *t = c->n2;

	uint32_t a4;
	uint8_t a6[16];

	if (s->up != SMF_UP_ACTIVE)
		return -EPROTO;
	if (smf_tunnel_gnb(smf, s, &t->dl_tunnel, &a4, a6)) {
		smf_slog(LOGL_INFO, smf, s, "modify indication with a %u-bit address our N3 cannot reach: refused",
			 t->dl_tunnel.addr_bits);
		return smf_msg_mod_ind_fail(s, c->out) < 0 ? -ENOSPC : s->state;
	}
	s->gnb_addr = a4;
	memcpy(s->gnb_addr6, a6, 16);
	s->gnb_teid = smf_tunnel_teid(&t->dl_tunnel);
	smf_upf_apply(smf, s);
	return smf_msg_mod_confirm(smf, s, t, c->out) < 0 ? -ENOSPC : s->state;
}

typedef int (*smf_action)(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c);

static const smf_action actions[SMF_EV__MAX] = {
	[SMF_EV_EST_REQ] = a_est_req,
	[SMF_EV_N2_SETUP_OK] = a_n2_setup_ok,
	[SMF_EV_N2_SETUP_FAIL] = a_n2_setup_fail,
	[SMF_EV_REL_REQ] = a_rel_req,
	[SMF_EV_NET_REL] = a_net_rel,
	[SMF_EV_REL_CPL] = a_rel_cpl,
	[SMF_EV_N2_REL_RSP] = a_n2_rel_rsp,
	[SMF_EV_NET_MOD] = a_net_mod,
	[SMF_EV_MOD_CPL] = a_mod_cpl,
	[SMF_EV_MOD_CMD_REJ] = a_mod_cmd_rej,
	[SMF_EV_N2_MOD_RSP] = a_n2_mod_rsp,
	[SMF_EV_UP_DEACT] = a_up_deact,
	[SMF_EV_UP_REACT] = a_up_react,
	[SMF_EV_T3591] = a_t3591,
	[SMF_EV_T3592] = a_t3592,
	[SMF_EV_STATUS_ABORT] = a_status_abort,
	[SMF_EV_LOCAL_REL] = a_local_rel,
	[SMF_EV_N2_MOD_IND] = a_n2_mod_ind,
	[SMF_EV_N2_PATH_SWITCH] = smf_a_path_switch,
	[SMF_EV_N2_HO_PREP] = smf_a_ho_prep,
	[SMF_EV_N2_HO_ADMIT] = smf_a_ho_admit,
	[SMF_EV_N2_HO_NOTIFY] = smf_a_ho_notify,
	[SMF_EV_HO_CANCEL] = smf_a_ho_cancel,
	[SMF_EV_HO_FWD_END] = smf_a_ho_fwd_end,
	[SMF_EV_N4_EST_OK] = a_n4_est_ok,
	[SMF_EV_N4_EST_FAIL] = a_n4_est_fail,
};

/* Returns the new state, -EPROTO when the state does not take the event, or the
 * action's -errno (the state is then unchanged). */
int smf_fsm_dispatch(struct smf *smf, struct smf_sess *s, enum smf_event ev, struct smf_ev_ctx *c)
{
	uint8_t from = s->state;
	int to;

	if (ev >= SMF_EV__MAX || !(states[from].events & EVB(ev))) {
		smf_slog(LOGL_INFO, smf, s, "event %s not allowed", smf_event_name(ev));
		return -EPROTO;
	}
	to = actions[ev](smf, s, c);
	if (to < 0) {
		smf_slog(LOGL_INFO, smf, s, "event %s refused: %d", smf_event_name(ev), to);
		return to;
	}
	if (!(states[from].next & STB(to))) {
		/* a bug in an action: keep the state, say so loudly */
		smf_slog(LOGL_ERROR, smf, s, "event %s: transition to %s not allowed", smf_event_name(ev),
			 smf_state_name((unsigned)to));
		return -EINVAL;
	}
	if (to != from)
		smf_slog(LOGL_DEBUG, smf, s, "%s -> %s on %s", states[from].name, states[to].name,
			 smf_event_name(ev));
	s->state = (uint8_t)to;
	/* On enter: a release (any origin) or a user plane no longer active ends a handover in
	 * progress and any forwarding tunnel (TS 23.502 4.9.1.3.2: the session is not handed over). */
	if ((s->ho != SMF_HO_NONE || s->ho_fwd) &&
	    (to == SMF_ST_INACTIVE || to == SMF_ST_INACTIVE_PENDING || s->up != SMF_UP_ACTIVE))
		smf_ho_leave(smf, s);
	if (to == SMF_ST_INACTIVE)
		smf_sess_free(smf, s);
	else if (to == SMF_ST_ACTIVE && s->ambr_stale && s->ho == SMF_HO_NONE)
		smf_policy_retry_arm(smf, s);   /* in a handover: after its notify or cancel */
	return to;
}

void smf_timer_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct smf_sess *s = t->arg;
	struct smf_ev_ctx c = { 0 };

	(void)loop;
	if (!s->in_use)
		return;
	if (s->state == SMF_ST_MODIFICATION_PENDING)
		smf_fsm_dispatch(s->smf, s, SMF_EV_T3591, &c);
	else if (s->state == SMF_ST_INACTIVE_PENDING)
		smf_fsm_dispatch(s->smf, s, SMF_EV_T3592, &c);
	else if (s->state == SMF_ST_ACTIVE && s->ambr_stale)
		smf_policy_retry(s->smf, s);
}
