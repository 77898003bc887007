/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF's side of an intra-AMF N2 handover (TS 23.502 4.9.1.3.2 preparation, 4.9.1.3.3 execution,
 * 4.9.1.3.4 cancel; TS 38.413 8.4.1-8.4.3, 8.4.5), per PDU session. One UPF serves source and target,
 * so the UL tunnel (our N3 F-TEID) never changes (4.9.1.3.2 step 4: no T-UPF is selected):
 *
 *   prepare   Handover Required Transfer in, Handover Request Transfer out (9.3.4.13 -> 9.3.4.1:
 *             the Setup Request Transfer of a service request, the same encoder)       -> PREPARING
 *   admitted  Handover Request Acknowledge Transfer in (9.3.4.11): the target's DL tunnel kept, the
 *             data forwarding chosen, Handover Command Transfer out (9.3.4.10)         -> ADMITTED
 *   complete  HANDOVER NOTIFY: the downlink moves in one UPF rule update, the UPF sends the End
 *             Marker on the source's tunnel (4.9.1.3.3 steps 6-8, TS 23.501 5.8.2.9) -> NONE
 *   cancel / not admitted: the target's tunnel forgotten, the session as it was      -> NONE
 *   end / guard: the indirect forwarding tunnel removed (4.9.1.3.3 step 21a)
 *
 * Each is an event of smf_fsm.c's table (SMF_EV_N2_HO_PREP ... SMF_EV_HO_FWD_END); the sub-state
 * (s->ho, ho_direct, ho_fwd, the target's tunnel) is written by these actions and by smf_ho_leave,
 * the dispatcher's on-enter step for a release or a user plane gone. A session being released
 * (INACTIVE_PENDING) is not in any handover: every smf_ho_* call answers -ENOENT for it, as for a
 * session already gone, so the AMF drops it from the handover.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap.h"
#include "smf/smf_int.h"
#include "upf/upf.h"

/* TS 38.413 9.3.1.2 CauseRadioNetwork values the Handover Preparation Unsuccessful Transfer uses */
#define SMF_CAUSE_RN_INTERACTION_WITH_OTHER_PROC 25
#define SMF_CAUSE_RN_UNKNOWN_PDU_SESSION_ID 26

static uint32_t slot_of(const struct smf *smf, const struct smf_sess *s)
{
	return (uint32_t)(s - smf->sess);
}

/* An IPv4 address our N3 can send to (160 bits: IPv4 first, then IPv6, TS 38.414 / 9.3.2.4), not
 * 0.0.0.0 (the UPF refuses such a peer, upf_fwd_create -EINVAL). */
static bool tunnel_ipv4(const struct ngap_gtp_tunnel *t)
{
	static const uint8_t zero[4];

	return (t->addr_bits == 32 || t->addr_bits == 160) && memcmp(t->addr, zero, 4);
}

static void timer_stop(struct smf *smf, struct smf_sess *s)
{
	if (smf->p.loop)
		ev_timer_stop(smf->p.loop, &s->ho_timer);
}

/* TS 23.502 4.9.1.3.2 step 9-11 (indirect forwarding): the UPF relays what the source sends to
 * its forwarding tunnel (*up_addr / *up_teid: UPF_FWD_TEID(slot) on our N3 in process; over
 * PFCP the F-TEID the UPF chose for the tunnel asked at the preparation, upf_fwd_prepare) on to
 * the target's DL forwarding tunnel. No UPF: counted, never pretended. */
static int fwd_open(struct smf *smf, struct smf_sess *s, uint32_t addr, uint32_t teid, uint32_t *up_addr,
		    uint32_t *up_teid)
{
	struct upf *u = smf_sess_upf(smf, s);
	int rc;

	*up_addr = smf_sess_n3(smf, s);
	*up_teid = UPF_FWD_TEID(slot_of(smf, s));
	if (!u) {
		smf->st.upf_skipped++;
	} else {
		rc = upf_fwd_create(u, slot_of(smf, s), addr, teid);
		if (rc < 0) {
			smf->st.upf_errors++;
			smf_slog(LOGL_ERROR, smf, s, "forwarding tunnel create failed: %d", rc);
			return rc;
		}
		rc = upf_fwd_tunnel(u, slot_of(smf, s), up_addr, up_teid);
		if (rc < 0) {
			/* the UPF has not answered the preparation's Create PDR yet (-EINPROGRESS) or
			 * refused it: the handover goes on without forwarding */
			smf->st.upf_errors++;
			smf_slog(LOGL_ERROR, smf, s, "forwarding tunnel's F-TEID not known (%d): no forwarding", rc);
			upf_fwd_remove(u, slot_of(smf, s));
			s->ho_fwd_prep = 0;
			return rc;
		}
	}
	s->ho_fwd = 1;
	smf->st.fwd_created++;
	return 0;
}

/* TS 23.502 4.9.1.3.2 steps 9-10 over PFCP: the UPF chooses the forwarding tunnel's F-TEID
 * (CHOOSE, answered later), and the Handover Command must carry it at once (step 11): it is
 * asked at the Handover Required of a handover without a direct path, its FAR DROP until
 * the target is known (fwd_open). In process a no-op. */
static void fwd_prepare(struct smf *smf, struct smf_sess *s)
{
	struct upf *u = smf_sess_upf(smf, s);
	int rc;

	if (!u || s->ho_direct)
		return;
	rc = upf_fwd_prepare(u, slot_of(smf, s));
	if (rc < 0) {
		smf->st.upf_errors++;
		smf_slog(LOGL_ERROR, smf, s, "forwarding tunnel not asked for: %d", rc);
		return;
	}
	s->ho_fwd_prep = 1;
}

static void fwd_close(struct smf *smf, struct smf_sess *s)
{
	int rc;

	timer_stop(smf, s);
	if (s->ho_fwd_prep && !s->ho_fwd && smf_sess_upf(smf, s))
		upf_fwd_remove(smf_sess_upf(smf, s), slot_of(smf, s));   /* asked, never used */
	s->ho_fwd_prep = 0;
	if (!s->ho_fwd)
		return;
	if (!smf_sess_upf(smf, s)) {
		smf->st.upf_skipped++;
	} else {
		rc = upf_fwd_remove(smf_sess_upf(smf, s), slot_of(smf, s));
		if (rc < 0 && rc != -ENOENT)   /* -ENOENT: the UPF (re)opened without it */
			smf->st.upf_errors++;
	}
	s->ho_fwd = 0;
	smf->st.fwd_removed++;
}

/* Leave the handover (nothing of it stays): the target's tunnel forgotten, forwarding removed. */
static void ho_reset(struct smf *smf, struct smf_sess *s)
{
	if (s->ho != SMF_HO_NONE)
		smf->st.ho_cancelled++;
	s->ho = SMF_HO_NONE;
	s->ho_direct = 0;
	s->ho_gnb_addr = s->ho_gnb_teid = 0;
	memset(s->ho_gnb_addr6, 0, 16);
	fwd_close(smf, s);
}

void smf_ho_leave(struct smf *smf, struct smf_sess *s)
{
	smf_slog(LOGL_INFO, smf, s, "leaves its handover (%s)",
		 s->ho != SMF_HO_NONE ? "in progress" : "forwarding tunnel");
	ho_reset(smf, s);
}

/* ---- actions (smf_fsm.c's table) ---- */

/* TS 23.502 4.9.1.3.2 step 3-4 (Nsmf_PDUSession_UpdateSMContext, N2 SM information): the session
 * can be handed over when its user plane is active and no other procedure runs on it (the table
 * takes the event in ACTIVE only). c->cause: the direct forwarding path is available. */
int smf_a_ho_prep(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	int rc;

	if (s->up != SMF_UP_ACTIVE)
		return -EPROTO;
	if (s->ho != SMF_HO_NONE)
		return -EBUSY;
	fwd_close(smf, s);   /* a previous handover's forwarding: its source is gone by now */
	rc = smf_msg_setup_transfer(smf, s, c->out);
	if (rc < 0)
		return rc;
	c->out->n2_proc = SMF_N2_HO_REQUEST;
	s->ho = SMF_HO_PREPARING;
	s->ho_direct = c->cause ? 1 : 0;
	fwd_prepare(smf, s);
	smf->st.ho_prepared++;
	smf_slog(LOGL_INFO, smf, s, "handover preparing (%s forwarding path)", s->ho_direct ? "direct" : "no direct");
	return s->state;
}

static bool default_flow_admitted(const struct ngap_ho_request_ack_transfer *t)
{
	for (unsigned i = 0; i < t->n_flows && i < NGAP_MAX_QOS_FLOWS; i++)
		if (t->flows[i].qfi == SMF_QFI_DEFAULT)
			return true;
	return false;
}

/* TS 38.413 9.3.4.10 / TS 23.502 4.9.1.3.2 step 11: the tunnel the source forwards to, and the flows
 * the target accepted forwarding for (qosFlowToBeForwardedList). Direct: the target's own tunnel (and
 * its per-DRB tunnels); indirect: our forwarding TEID on N3. 0, or -errno from the UPF. */
static int fwd_plan(struct smf *smf, struct smf_sess *s, const struct ngap_ho_request_ack_transfer *t,
		    struct ngap_ho_command_transfer *cmd)
{
	const struct ngap_gtp_tunnel *fw = &t->dl_forwarding;
	uint32_t addr, up_addr, up_teid;
	int rc;

	memset(cmd, 0, sizeof(*cmd));
	for (unsigned i = 0; i < t->n_flows && i < NGAP_MAX_QOS_FLOWS; i++)
		if (t->flows[i].forwarding_accepted)
			cmd->qfis[cmd->n_flows++] = t->flows[i].qfi;
	if (!t->has_dl_forwarding || !cmd->n_flows || !tunnel_ipv4(fw)) {
		cmd->n_flows = 0;   /* no data forwarding (9.3.4.11: the target offered none we can use) */
		fwd_close(smf, s);  /* a tunnel asked at the preparation goes unused */
		return 0;
	}
	if (s->ho_direct) {
		cmd->has_dl_forwarding = true;
		cmd->dl_forwarding = *fw;
		cmd->n_drbs = t->n_drbs <= NGAP_MAX_DRBS ? t->n_drbs : NGAP_MAX_DRBS;
		memcpy(cmd->drbs, t->drbs, cmd->n_drbs * sizeof(cmd->drbs[0]));
		return 0;
	}
	memcpy(&addr, fw->addr, 4);
	rc = fwd_open(smf, s, addr, smf_tunnel_teid(fw), &up_addr, &up_teid);
	if (rc < 0) {
		cmd->n_flows = 0;   /* the handover goes on without forwarding */
		return rc;
	}
	cmd->has_dl_forwarding = true;
	/* IPv4 only: the UPF's forwarding tunnels are IPv4 (upf_fwd_create). */
	smf_msg_tunnel(&cmd->dl_forwarding, up_addr, NULL, up_teid);
	return 0;
}

/* TS 23.502 4.9.1.3.2 steps 9-11: no UPF change yet (the source still serves the downlink); the
 * target's tunnel is kept for the notify. A target tunnel of no family our N3 has or without
 * the default QoS flow admitted cannot carry the session: refused (the caller cancels). */
int smf_a_ho_admit(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	const struct ngap_ho_request_ack_transfer *t = c->n2;
	struct ngap_ho_command_transfer cmd;
	uint8_t a6[16];
	uint32_t a4;
	int n;

	if (s->ho != SMF_HO_PREPARING)
		return -EPROTO;

	if (smf_tunnel_gnb(smf, s, &t->dl_tunnel, &a4, a6) || !default_flow_admitted(t)) {
		smf_slog(LOGL_INFO, smf, s, "handover acknowledge refused: %u-bit tunnel, QFI %u %s",
			 t->dl_tunnel.addr_bits, SMF_QFI_DEFAULT, default_flow_admitted(t) ? "admitted" : "missing");
		return -EINVAL;
	}
	fwd_plan(smf, s, t, &cmd);
	n = ngap_enc_ho_command_transfer(&cmd, c->out->n2, c->out->n2_cap);
	if (n < 0) {
		fwd_close(smf, s);
		return n;
	}
	c->out->n2_len = (size_t)n;
	c->out->n2_proc = SMF_N2_HO_COMMAND;
	s->ho_gnb_addr = a4;
	memcpy(s->ho_gnb_addr6, a6, 16);
	s->ho_gnb_teid = smf_tunnel_teid(&t->dl_tunnel);
	s->ho = SMF_HO_ADMITTED;
	smf_slog(LOGL_INFO, smf, s, "handover admitted: target teid=%08x, forwarding %s", s->ho_gnb_teid,
		 !cmd.has_dl_forwarding ? "none" : s->ho_fwd ? "indirect" : "direct");
	return s->state;
}

/* TS 23.502 4.9.1.3.3 steps 6-8 (Nsmf_PDUSession_UpdateSMContext after HANDOVER NOTIFY): N4 update
 * to the target's DL tunnel; the UPF's End Marker on the old one lets the target order forwarded
 * and direct packets (TS 23.501 5.8.2.9). A rule update the UPF refuses is counted (upf_errors) and
 * logged by smf_upf_apply; the UE is at the target already, so the session follows it anyway and
 * the next rule update carries the tunnel again. The forwarding guard starts now (step 21a). */
int smf_a_ho_notify(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	if (s->ho != SMF_HO_ADMITTED)
		return -EPROTO;
	s->gnb_addr = s->ho_gnb_addr;
	s->gnb_teid = s->ho_gnb_teid;
	memcpy(s->gnb_addr6, s->ho_gnb_addr6, 16);
	s->ho_gnb_addr = s->ho_gnb_teid = 0;
	memset(s->ho_gnb_addr6, 0, 16);
	s->ho = SMF_HO_NONE;
	smf_upf_apply(smf, s);
	smf->st.ho_completed++;
	if (s->ho_fwd && smf->p.loop && ev_timer_start(smf->p.loop, &s->ho_timer, smf->ho_fwd_guard_ms) < 0)
		smf_slog(LOGL_ERROR, smf, s, "cannot start the forwarding guard");
	smf_slog(LOGL_INFO, smf, s, "handover complete: downlink to teid=%08x", s->gnb_teid);
	return s->state;
}

/* TS 23.502 4.9.1.3.4 / TS 38.413 8.4.5, and a target that did not admit the session (4.9.1.3.2
 * step 10): the source keeps it; nothing changed in the UPF but a forwarding tunnel, removed. */
int smf_a_ho_cancel(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	(void)c;
	if (s->ho == SMF_HO_NONE)
		return -EPROTO;
	ho_reset(smf, s);
	return s->state;
}

/* TS 23.502 4.9.1.3.3 step 21a: the source's resources are released (or the SMF's own timer ran
 * out): the indirect forwarding tunnel goes. A handover not yet notified is cancelled instead. */
int smf_a_ho_fwd_end(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	if (s->ho != SMF_HO_NONE)
		return -EPROTO;
	if (!s->ho_fwd)
		return -EALREADY;
	smf_slog(LOGL_INFO, smf, s, "forwarding tunnel removed (%s)", c->cause ? "guard expired" : "source released");
	fwd_close(smf, s);
	return s->state;
}

void smf_ho_timer_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct smf_sess *s = t->arg;
	struct smf_ev_ctx c = { .cause = 1 };

	(void)loop;
	if (s->in_use)
		smf_fsm_dispatch(s->smf, s, SMF_EV_HO_FWD_END, &c);
}

/* ---- entry points (smf.h) ---- */

/* The session for a handover call: a session being released is out of every handover. */
static struct smf_sess *ho_sess(struct smf *smf, struct smf_ue *ue, uint8_t psi)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);

	return s && s->state != SMF_ST_INACTIVE_PENDING ? s : NULL;
}

static int out_reset(struct smf_out *out, uint8_t psi)
{
	if (!out || out->n2_cap < SMF_N2_MAX)
		return -ENOSPC;
	out->n1_len = out->n2_len = 0;
	out->n2_proc = SMF_N2_NONE;
	out->psi = psi;
	return 0;
}

/* A refused step: the Handover Preparation Unsuccessful Transfer (9.3.4.18) for the AMF's
 * ToReleaseListHOCmd, with the cause for rc; rc returned. -EPROTO counts as unexpected. */
static int prep_failed(struct smf *smf, struct smf_sess *s, uint8_t psi, int rc, struct smf_out *out)
{
	struct ngap_cause cause = smf_ho_cause_of(rc);

	/* A session the SMF does not have (or is releasing), or one already in a handover */
	if (rc == -ENOENT)
		cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, SMF_CAUSE_RN_UNKNOWN_PDU_SESSION_ID };
	else if (rc == -EBUSY)
		cause = (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, SMF_CAUSE_RN_INTERACTION_WITH_OTHER_PROC };

	if (rc == -ENOSPC)
		return rc;
	if (rc == -EPROTO)
		smf->st.n2_unexpected++;
	out->n2_len = 0;
	smf_msg_cause_transfer(psi, &cause, SMF_N2_HO_PREP_FAILED, out);
	if (s)
		out->snssai = s->snssai;
	return rc;
}

/* The common start of the three calls that answer in out: 0 and *sp, or the -ENOENT answer. */
static int ho_begin(struct smf *smf, struct smf_ue *ue, uint8_t psi, struct smf_out *out, struct smf_sess **sp)
{
	int rc = out_reset(out, psi);

	if (rc < 0)
		return rc;
	*sp = ho_sess(smf, ue, psi);
	return *sp ? 0 : prep_failed(smf, NULL, psi, -ENOENT, out);
}

static int bad_transfer(struct smf *smf, const struct smf_sess *s, const char *what)
{
	smf->st.n2_bad++;
	smf_slog(LOGL_INFO, smf, s, "undecodable %s", what);
	return -EBADMSG;
}

int smf_ho_prepare(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
		   bool direct, struct smf_out *out)
{
	struct smf_sess *s;
	struct ngap_ho_required_transfer t;
	struct smf_ev_ctx c = { .out = out, .n2 = &t };
	int rc = ho_begin(smf, ue, psi, out, &s);

	if (rc < 0)
		return rc;
	if (!transfer || ngap_dec_ho_required_transfer(transfer, len, &t, NULL) < 0)
		return prep_failed(smf, s, psi, bad_transfer(smf, s, "Handover Required Transfer"), out);
	/* TS 38.413 9.2.3.1 / 9.3.4.13: DirectForwardingPathAvailability in the message or the transfer */
	c.cause = direct || t.has_direct_forwarding;
	rc = smf_fsm_dispatch(smf, s, SMF_EV_N2_HO_PREP, &c);
	return rc < 0 ? prep_failed(smf, s, psi, rc, out) : 0;
}

/* Any refused acknowledge takes the session out of the handover (the AMF lists it in
 * ToReleaseListHOCmd, TS 38.413 8.4.1.2): the cancel event. */
static int admit_failed(struct smf *smf, struct smf_sess *s, uint8_t psi, int rc, struct smf_out *out)
{
	struct smf_ev_ctx l = { 0 };

	if (s->ho != SMF_HO_NONE)
		smf_fsm_dispatch(smf, s, SMF_EV_HO_CANCEL, &l);
	return prep_failed(smf, s, psi, rc, out);
}

int smf_ho_admitted(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
		    struct smf_out *out)
{
	struct smf_sess *s;
	struct ngap_ho_request_ack_transfer t;
	struct smf_ev_ctx c = { .out = out, .n2 = &t };
	int rc = ho_begin(smf, ue, psi, out, &s);

	if (rc < 0)
		return rc;
	if (!transfer || ngap_dec_ho_request_ack_transfer(transfer, len, &t, NULL) < 0)
		return admit_failed(smf, s, psi, bad_transfer(smf, s, "Handover Request Acknowledge Transfer"), out);
	rc = smf_fsm_dispatch(smf, s, SMF_EV_N2_HO_ADMIT, &c);
	if (rc < 0)
		return admit_failed(smf, s, psi, rc, out);
	out->snssai = s->snssai;
	return 0;
}

int smf_ho_not_admitted(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
			const struct ngap_cause *cause, struct smf_out *out)
{
	struct smf_sess *s;
	struct ngap_ho_resource_alloc_unsuccessful_transfer t;
	struct ngap_cause why = { NGAP_CAUSE_RADIO_NETWORK, NGAP_CAUSE_RN_UNSPECIFIED };
	struct smf_ev_ctx c = { 0 };
	int rc = ho_begin(smf, ue, psi, out, &s);

	if (rc < 0)
		return rc;
	if (cause)
		why = *cause;
	/* TS 38.413 9.3.4.19: the target's cause goes back to the source (9.3.4.18); undecodable, the
	 * session is still not admitted and leaves the handover */
	if (transfer && ngap_dec_ho_resource_alloc_unsuccessful_transfer(transfer, len, &t, NULL) == 0)
		why = t.cause;
	else if (transfer)
		bad_transfer(smf, s, "Handover Resource Allocation Unsuccessful Transfer");
	rc = smf_fsm_dispatch(smf, s, SMF_EV_HO_CANCEL, &c);
	if (rc == -EPROTO)
		smf->st.n2_unexpected++;
	smf_msg_cause_transfer(psi, &why, SMF_N2_HO_PREP_FAILED, out);
	out->snssai = s->snssai;
	if (!out->n2_len)
		return -ENOSPC;
	return rc < 0 ? rc : 0;
}

/* The calls with nothing to send: the event for the session, -ENOENT without one. */
static int ho_event(struct smf *smf, struct smf_ue *ue, uint8_t psi, enum smf_event ev)
{
	struct smf_sess *s = ho_sess(smf, ue, psi);
	struct smf_ev_ctx c = { 0 };
	int rc;

	if (!s)
		return -ENOENT;
	rc = smf_fsm_dispatch(smf, s, ev, &c);
	if (rc == -EPROTO)
		smf->st.n2_unexpected++;
	return rc < 0 ? rc : 0;
}

int smf_ho_complete(struct smf *smf, struct smf_ue *ue, uint8_t psi)
{
	return ho_event(smf, ue, psi, SMF_EV_N2_HO_NOTIFY);
}

int smf_ho_cancel(struct smf *smf, struct smf_ue *ue, uint8_t psi)
{
	return ho_event(smf, ue, psi, SMF_EV_HO_CANCEL);
}

int smf_ho_end(struct smf *smf, struct smf_ue *ue, uint8_t psi)
{
	const struct smf_sess *s = ho_sess(smf, ue, psi);

	if (s && !s->ho_fwd && s->ho == SMF_HO_NONE)
		return -EALREADY;   /* also where the table does not take the event (MODIFICATION_PENDING) */
	return ho_event(smf, ue, psi, SMF_EV_HO_FWD_END);
}
