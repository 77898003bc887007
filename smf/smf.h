/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * smf - Session Management Function (TS 23.501 6.2.2), called by the AMF as
 * plain functions, driving the UPF through upf/upf.h.
 *
 * What it does: PDU session establishment, user-plane deactivation and
 * reactivation, UE- and network-requested release, UE- and network-requested
 * modification (session-AMBR; requested QoS checked), 5GSM status (TS 24.501 6.3-6.5, 7.3, 7.4;
 * TS 23.502 4.3.2, 4.3.3, 4.3.4, 4.2.3, 4.2.6), Xn and N2 handover with direct or indirect data
 * forwarding (TS 23.502 4.9.1.2.2, 4.9.1.3), with IPv4 pools per DNN
 * from the configuration and the timers T3591 / T3592.
 *
 * Calling convention
 *  - The AMF attaches each registered UE once (smf_ue_attach), keeps the
 *    returned handle in its UE context and passes it to every call. The
 *    SMF never looks at the AMF's context: ue_cookie is handed back in the
 *    callbacks only.
 *  - A call made because of a message from the UE or the gNB returns what
 *    to send in a struct smf_out (caller buffers, see smf_out_init). The
 *    AMF sends it right away:
 *      n2_proc NONE:    n1 in a DOWNLINK NAS TRANSPORT (DL NAS Transport,
 *                       payload container type N1 SM, PDU session ID = psi)
 *      n2_proc SETUP:   PDU SESSION RESOURCE SETUP REQUEST, item {psi,
 *                       NAS-PDU = DL NAS Transport(n1) if n1_len, snssai,
 *                       transfer = n2}; during a service request the item
 *                       goes into INITIAL CONTEXT SETUP REQUEST instead
 *      n2_proc RELEASE: PDU SESSION RESOURCE RELEASE COMMAND, item {psi,
 *                       transfer = n2}, NAS-PDU = DL NAS Transport(n1)
 *      n2_proc MODIFY:  PDU SESSION RESOURCE MODIFY REQUEST, item {psi,
 *                       NAS-PDU = DL NAS Transport(n1), transfer = n2}
 *    n1_len == 0 and n2_proc NONE: nothing to send.
 *  - What the SMF starts itself (timer retransmissions, network-requested
 *    release and modification) goes out through ops.send with the same
 *    struct; the AMF returns -EAGAIN from send when the UE cannot be
 *    reached now (CM-IDLE): a release then completes locally and the UE
 *    learns it from the PDU session status IE (TS 23.502 4.3.4.2).
 *  - Downlink data for a session whose user plane is deactivated reaches
 *    ops.dl_data (from upf's on_dl_data via smf_upf_dl_data): the AMF pages
 *    the UE, or if it is connected calls smf_up_reactivate.
 *
 * User plane: the upf handle may be NULL, meaning "no user plane attached"
 * (unit tests, a control-plane-only run). Every rule operation is then
 * skipped and counted in smf_stats.upf_skipped; TEIDs and addresses are
 * still allocated and signalled, but no packet flows.
 *
 * Order of calls for the 27-message cycle (see smf/README.md):
 *   registration accepted     -> smf_ue_attach
 *   UL NAS Transport (N1 SM)  -> smf_n1_rx -> out: SETUP (accept)
 *   PDUSessionResourceSetupResponse / ICS Response item
 *                             -> smf_n2_rx(SMF_N2_SETUP_RSP)  (or SETUP_FAIL)
 *   UE context release        -> smf_up_deactivate
 *   Service Request           -> smf_ue_status_sync, then for each PSI to
 *                                reactivate smf_up_reactivate -> out: SETUP
 *                                (item of Initial Context Setup Request)
 *   ICS Response item         -> smf_n2_rx(SMF_N2_SETUP_RSP)
 *   UL NAS Transport (release request) -> smf_n1_rx -> out: RELEASE
 *   PDUSessionResourceReleaseResponse -> smf_n2_rx(SMF_N2_RELEASE_RSP)
 *   UL NAS Transport (release complete) -> smf_n1_rx (nothing to send)
 *   deregistration / context gone -> smf_ue_detach (local release of all)
 *
 * Threading: the control thread (the ev_loop's). No call allocates after
 * smf_new; everything is sized by smf_params.
 */
#ifndef SOLOCORE_SMF_SMF_H
#define SOLOCORE_SMF_SMF_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/hist.h"
#include "common/ngap/ngap.h"

struct smf;
struct smf_ue;
struct ev_loop;
struct conf;
struct udm;
struct upf;
struct nas_ul_nas_transport;

#define SMF_PSI_MIN 1         /* TS 24.007 11.2.3.1b: PDU session identity values 1..15 */
#define SMF_PSI_MAX 15
#define SMF_N1_MAX 512        /* enough for any 5GSM message the SMF sends */
#define SMF_N2_MAX 256        /* enough for any SM transfer the SMF sends */

/* Which NGAP procedure carries the output (see the top of this file). */
enum smf_n2_proc {
	SMF_N2_NONE = 0,
	SMF_N2_SETUP,          /* PDU Session Resource Setup Request Transfer */
	SMF_N2_MODIFY,         /* PDU Session Resource Modify Request Transfer */
	SMF_N2_RELEASE,        /* PDU Session Resource Release Command Transfer */
	SMF_N2_MODIFY_CONFIRM, /* PDU Session Resource Modify Confirm Transfer: item {psi, transfer = n2} of
				* PDUSessionResourceModifyListModCfm in PDU SESSION RESOURCE MODIFY CONFIRM */
	SMF_N2_MODIFY_CONFIRM_FAILED, /* Modify Indication Unsuccessful Transfer: item of
				* PDUSessionResourceFailedToModifyListModCfm in the same CONFIRM */
	SMF_N2_PATH_SWITCH_ACK, /* Path Switch Request Acknowledge Transfer: item of the SwitchedList of
				 * PATH SWITCH REQUEST ACKNOWLEDGE (smf_path_switch) */
	SMF_N2_PATH_SWITCH_FAILED, /* Path Switch Request Unsuccessful Transfer: item of ReleasedListPSAck /
				    * ReleasedListPSFail */
	SMF_N2_HO_REQUEST,      /* Handover Request Transfer (= a PDU Session Resource Setup Request Transfer):
				 * item {psi, snssai, transfer = n2} of PDUSessionResourceSetupListHOReq in
				 * HANDOVER REQUEST (smf_ho_prepare) */
	SMF_N2_HO_COMMAND,      /* Handover Command Transfer: item of PDUSessionResourceHandoverList in
				 * HANDOVER COMMAND (smf_ho_admitted) */
	SMF_N2_HO_PREP_FAILED,  /* Handover Preparation Unsuccessful Transfer: item of ToReleaseListHOCmd in
				 * HANDOVER COMMAND, or the session left out of the handover */
};

struct smf_out {
	/* caller's buffers (smf_out_init), at least SMF_N1_MAX and SMF_N2_MAX bytes */
	uint8_t *n1;
	size_t n1_cap;
	uint8_t *n2;
	size_t n2_cap;
	/* filled by the SMF */
	size_t n1_len;         /* plain 5GSM message; 0: none */
	size_t n2_len;         /* SM transfer; 0: none */
	uint8_t n2_proc;       /* enum smf_n2_proc */
	uint8_t psi;           /* PDU session ID of both */
	struct ngap_snssai snssai; /* S-NSSAI of the session (SETUP items) */
	uint64_t ambr_ul_bps, ambr_dl_bps; /* session-AMBR (the AMF may derive UE-AMBR) */
};

static inline void smf_out_init(struct smf_out *o, uint8_t *n1, size_t n1_cap, uint8_t *n2, size_t n2_cap)
{
	*o = (struct smf_out){ .n1 = n1, .n1_cap = n1_cap, .n2 = n2, .n2_cap = n2_cap };
}

/* Callbacks into the AMF (control thread). */
struct smf_amf_ops {
	/* SMF-initiated N1/N2 (same meaning as a returned smf_out). The bytes
	 * are valid during the call only. 0, -EAGAIN (UE not reachable now),
	 * or another -errno (counted, treated like -EAGAIN). */
	int (*send)(void *arg, void *ue_cookie, const struct smf_out *out);
	/* Downlink data waits for PDU session psi of this UE (user plane
	 * deactivated): page the UE (TS 23.502 4.2.3.3). Optional. */
	void (*dl_data)(void *arg, void *ue_cookie, uint8_t psi);
	void *arg;
};

struct smf_params {
	const struct conf *conf;    /* dnns (name, pool, dns, mtu), slices, timers: read by smf_new only */
	struct ev_loop *loop;       /* T3591 / T3592 */
	struct udm *udm;            /* subscription data by SUPI; NULL: conf defaults for everyone */
	struct upf *upf;            /* NULL: no user plane attached (see above); smf_set_upf later */
	uint32_t n3_addr;           /* UPF N3 IPv4, network order: UL NG-U UP TNL address */
	/* UPF N3 IPv6 (all zero: none), the builtin UPF's only (smf_params.upf): the UL tunnel
	 * then carries both addresses (160 bits, TS 38.414 5.1) and a gNB that gives only an IPv6
	 * DL tunnel (128 bits) is served over IPv6. */
	uint8_t n3_addr6[16];
	uint32_t max_sessions;      /* PDU sessions in total = upf session ids; 0: conf->upf.max_sessions */
	uint32_t max_ues;           /* attached UEs; 0: conf->limits.max_ues */
	uint8_t max_per_ue;         /* sessions per UE, 1..15; 0: 15 */
	uint32_t t3591_ms;          /* 0: conf->timers.t3591 seconds */
	uint32_t t3592_ms;          /* 0: conf->timers.t3592 seconds */
	uint8_t max_retx;           /* retransmissions before giving up; 0: 4 (TS 24.501 6.3.2.5, 6.3.3.5) */
	uint32_t ho_fwd_guard_ms;   /* indirect forwarding tunnel kept at most this long after HANDOVER NOTIFY
				     * (TS 23.502 4.9.1.3.3 step 21a); 0: SMF_HO_FWD_GUARD_MS */
	struct smf_amf_ops ops;
};

/* Default guard of an indirect forwarding tunnel: the source's UE context release normally ends it
 * (smf_ho_end) well before; this bounds a release that never comes. */
#define SMF_HO_FWD_GUARD_MS 2000u

/* NULL with *err = -errno (-EINVAL for a bad DNN pool in conf, -ENOMEM). */
struct smf *smf_new(const struct smf_params *p, int *err);
/* Releases every session locally (UPF rules removed), stops timers; call it before
 * freeing the loop and closing the upf. Accepts NULL. */
void smf_free(struct smf *smf);
/* Attach / replace the user plane (NULL: none, and the UPFs of smf_add_upf are forgotten too).
 * Sessions already installed are not re-sent. */
void smf_set_upf(struct smf *smf, struct upf *upf);
/* Set the AMF callbacks after creation (the AMF is usually created after the SMF). */
void smf_set_amf_ops(struct smf *smf, const struct smf_amf_ops *ops);
/* Matches upf_params.on_dl_data: pass it with cb_arg = the smf. */
void smf_upf_dl_data(void *smf, uint32_t session_id);
/* Matches upf_params.on_err_ind and upf_n4c_peer.on_err_ind (cb_arg = the smf): the gNB no
 * longer knows the session's downlink tunnel (GTP-U Error Indication, TS 29.281 7.3.1; TS 29.244
 * 5.10): if it is the tunnel the session uses now, its user plane is deactivated as in an AN
 * release (TS 23.527 5.3, TS 23.502 4.2.6), the session kept. */
struct upf_err_ind;
void smf_upf_err_ind(void *smf, const struct upf_err_ind *ei);

/* ---- several UPFs (upf.mode pfcp; smf_upf.c) ----
 * With UPFs added here, each session is placed at establishment on one that is ready
 * (upf_ready) and serves its DNN and S-NSSAI (peer->dnns / slices, [] = all), round robin
 * among those (TS 23.501 6.3.3 UPF selection); none: PDU SESSION ESTABLISHMENT REJECT #26
 * "insufficient resources". The session's UL F-TEID is on that UPF's N3 address
 * (upf_n3_addr). With none added, smf_params.upf / smf_set_upf is the one user plane.
 * The SMF does not own u. 0, -ENOSPC beyond SMF_UPF_MAX, -EINVAL (a DNN that is not
 * configured, NULL u). */
#define SMF_UPF_MAX 16
struct conf_upf_peer;
int smf_add_upf(struct smf *smf, struct upf *u, const struct conf_upf_peer *peer);
/* Matches upf_n4c_peer.on_session_lost (cb_arg = the smf): the UPF lost the session (it
 * restarted or stopped answering: why UPF_LOST_PEER / TIMEOUT) or refused its rules
 * (UPF_LOST_REFUSED). Network-requested release (TS 24.501 6.3.3, TS 23.527 4.4): 5GSM #39
 * "reactivation requested" when lost, so the UE establishes it again (on a UPF that
 * works), #26 "insufficient resources" when refused. The why is an enum upf_lost_reason. */
void smf_upf_session_lost(void *smf, uint32_t session_id, int why);
/* Matches upf_n4c_peer.on_est_done (cb_arg = the smf): the UPF answered the N4 Session
 * Establishment of a session in SMF_ST_N4_PENDING (TS 23.502 4.3.2.2.1 step 10b). Accepted:
 * the PDU SESSION ESTABLISHMENT ACCEPT and the PDU Session Resource Setup Request Transfer
 * (UL tunnel: the F-TEID the UPF gave) go out through ops.send (step 11). Refused or not
 * answered: PDU SESSION ESTABLISHMENT REJECT through ops.send (TS 24.501 6.4.1.4: #26
 * insufficient resources when the UPF has none, #38 network failure when it did not answer,
 * #31 request rejected unspecified otherwise), nothing to the gNB, the session freed. An answer
 * for a session no longer waiting is ignored. */
struct upf_est_result;
void smf_upf_est_done(void *smf, uint32_t session_id, const struct upf_est_result *r);

/* ---- UE handles ---- */
/* Attach a registered UE. supi is copied. -ENOSPC when max_ues are attached. */
int smf_ue_attach(struct smf *smf, const char *supi, void *ue_cookie, struct smf_ue **out);
/* The AMF's context of the UE changed (an authenticated registration replaced the old
 * one): callbacks get ue_cookie from now on. */
void smf_ue_set_cookie(struct smf *smf, struct smf_ue *ue, void *ue_cookie);
/* Local release of every session (TS 24.501 5.5.1.2.4, deregistration; TS 23.502 4.2.2.3),
 * then forget the handle. Returns the number of sessions released. Accepts NULL ue. */
int smf_ue_detach(struct smf *smf, struct smf_ue *ue);
/* The UE's Allowed NSSAI (TS 24.501 5.15.5.2.1), set by the AMF at every registration accept and
 * configuration update: a PDU session request without an S-NSSAI gets the first allowed S-NSSAI the
 * UE is subscribed to and the network serves (TS 23.502 4.3.2.2.1 step 1). n = 0 (or never called):
 * the old default, the subscription's first slice. -EINVAL for n > 8. */
int smf_ue_set_allowed_nssai(struct smf *smf, struct smf_ue *ue, const struct ngap_snssai *nssai, unsigned n);
/* PDU session status bitmap (bit i = PSI i) of the sessions that exist for this UE. */
uint16_t smf_ue_psi_map(const struct smf_ue *ue);
/* Sessions whose user plane is active (or being set up). */
uint16_t smf_ue_up_map(const struct smf *smf, const struct smf_ue *ue);
/* PDU session status from the UE (registration / service request): release locally the
 * sessions the UE does not have (TS 24.501 5.6.1.4.1, 5.5.1.3.4). Returns the map after. */
uint16_t smf_ue_status_sync(struct smf *smf, struct smf_ue *ue, uint16_t ue_map);

/* ---- N1: a 5GSM message from the UE ----
 * ul is the decoded UL NAS TRANSPORT with payload container type N1 SM: its
 * PDU session ID, request type, S-NSSAI and DNN IEs are used, the payload is
 * the 5GSM message. Returns 0 (out says what to send, maybe nothing), or
 * -EINVAL (not N1 SM), -ENOSPC (out buffers too small). Protocol errors of the
 * UE are answered in out (reject or 5GSM STATUS), never returned. */
int smf_n1_rx(struct smf *smf, struct smf_ue *ue, const struct nas_ul_nas_transport *ul,
	      struct smf_out *out);

/* ---- N2: an SM transfer from the gNB ---- */
enum smf_n2_msg {
	SMF_N2_SETUP_RSP = 0,   /* PDU Session Resource Setup Response Transfer */
	SMF_N2_SETUP_FAIL,      /* PDU Session Resource Setup Unsuccessful Transfer */
	SMF_N2_RELEASE_RSP,     /* PDU Session Resource Release Response Transfer */
	SMF_N2_MODIFY_RSP,      /* PDU Session Resource Modify Response Transfer */
	SMF_N2_MODIFY_FAIL,     /* PDU Session Resource Modify Unsuccessful Transfer */
	SMF_N2_MODIFY_IND,      /* PDU Session Resource Modify Indication Transfer (TS 38.413 8.2.5, the
				 * gNB moved the DL end): out = MODIFY_CONFIRM or MODIFY_CONFIRM_FAILED */
};
/* out is required (a failed setup answers with a release command, so does a Setup Response whose
 * gNB N3 address is IPv6 only: Release Command N1 + N2).
 * 0 (out may hold something to send, e.g. a release after a failed setup),
 * -ENOENT (no such session), -EBADMSG (transfer undecodable; counted),
 * -EPROTO (not expected in the session's state; counted, ignored), -ENOSPC (out too small). */
int smf_n2_rx(struct smf *smf, struct smf_ue *ue, uint8_t psi, enum smf_n2_msg kind,
	      const uint8_t *transfer, size_t len, struct smf_out *out);

/* ---- user plane ---- */
/* AN release (UE context release): every session's downlink goes to buffering
 * (TS 23.502 4.2.6). Returns the number of sessions deactivated. */
int smf_up_deactivate(struct smf *smf, struct smf_ue *ue);
/* Service request (TS 23.502 4.2.3.2): out gets the Setup Request Transfer for psi
 * (n2_proc SETUP, no n1). -ENOENT (no session), -EALREADY (user plane active),
 * -EBUSY (a procedure is running on it), -ENOSPC (out too small). */
int smf_up_reactivate(struct smf *smf, struct smf_ue *ue, uint8_t psi, struct smf_out *out);

/* ---- Xn handover (TS 23.502 4.9.1.2.2, TS 38.413 8.4.4; smf_mob.c) ----
 * smf_path_switch: the target gNB's Path Switch Request Transfer for psi. 0: the UPF sends
 * downlink to the new tunnel (one rule update) and out is SMF_N2_PATH_SWITCH_ACK (the Path
 * Switch Request Acknowledge Transfer, the UL tunnel unchanged). Otherwise nothing changed
 * and out is SMF_N2_PATH_SWITCH_FAILED (Path Switch Request Unsuccessful Transfer) with:
 * -ENOENT (no session), -EBADMSG (undecodable), -EPROTO (its state cannot switch: a release
 * or an establishment running, user plane not active), -EINVAL (no IPv4 address, default QoS
 * flow not accepted); -ENOSPC (out too small: nothing in out). */
int smf_path_switch(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
		    struct smf_out *out);
/* The target cannot take psi (its slice is not supported there: step 1b): the user plane is
 * deactivated (downlink buffered) and out is SMF_N2_PATH_SWITCH_FAILED with cause. The session
 * stays until the caller releases it (smf_release). 0, -ENOENT, -ENOSPC. */
int smf_path_switch_drop(struct smf *smf, struct smf_ue *ue, uint8_t psi, const struct ngap_cause *cause,
			 struct smf_out *out);

/* ---- N2 handover (TS 23.502 4.9.1.3, TS 38.413 8.4.1-8.4.3, 8.4.5; smf_ho.c) ----
 * Per PDU session, called by the AMF in this order; a session is in at most one handover
 * (smf_sess_info.ho_state). The UL tunnel (the UPF's N3 F-TEID) does not change: one UPF serves
 * source and target. While a session is in a handover a network- or UE-requested modification is
 * refused (smf_modify_ambr -EBUSY, the UE gets a reject #26, a subscription change is retried by the
 * SMF after it) and so is a path switch; a release of any origin, an AN release (smf_up_deactivate)
 * or smf_ue_detach ends the handover and removes its forwarding tunnel. A session being released
 * (its release command sent) is out of every handover: each smf_ho_* call answers -ENOENT for it
 * as for a session that does not exist, and the AMF leaves it out of the handover.
 * The failures that answer in out carry a Handover Preparation Unsuccessful Transfer (9.3.4.18)
 * for ToReleaseListHOCmd with the cause: unknown-PDU-session-ID (-ENOENT), interaction-with-other-
 * procedure (-EBUSY), message-not-compatible-with-receiver-state (-EPROTO), semantic-error
 * (-EBADMSG), transport unspecified (-EINVAL), the target's or the AMF's (not admitted).
 *
 * smf_ho_prepare: the source gNB's Handover Required Transfer (4.9.1.3.2 steps 3-4). 0 and out
 * SMF_N2_HO_REQUEST (the Handover Request Transfer for the target: UL tunnel, QoS flows,
 * session-AMBR, PDU session type; psi and snssai set); the session is preparing. direct: the HANDOVER
 * REQUIRED's DirectForwardingPathAvailability (the transfer's own flag counts too). A forwarding
 * tunnel left from a previous handover is removed. Otherwise nothing changed and out is
 * SMF_N2_HO_PREP_FAILED: -ENOENT, -EBADMSG (undecodable or NULL, counted in n2_bad), -EPROTO (user
 * plane not active, or an establishment / modification running; counted in n2_unexpected),
 * -EBUSY (already in a handover); -ENOSPC (out NULL or too small: nothing in out). */
int smf_ho_prepare(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
		   bool direct, struct smf_out *out);
/* smf_ho_admitted: the target's Handover Request Acknowledge Transfer (steps 9-11). The target's DL
 * tunnel is kept for smf_ho_complete (no UPF rule change yet). Data forwarding when the target gave
 * an IPv4 dLForwardingUP-TNLInformation and accepted forwarding for at least one QoS flow: direct
 * (the source sends to the target's tunnel; its per-DRB tunnels relayed too) when prepare had
 * direct set, indirect otherwise (upf_fwd_create now: the source sends to {N3 address,
 * UPF_FWD_TEID(session_id)}; a UPF refusal is counted in upf_errors and the handover goes on
 * without forwarding). 0 and out SMF_N2_HO_COMMAND (Handover Command Transfer: that tunnel and the
 * qosFlowToBeForwardedList, or empty without forwarding). Otherwise the session leaves the handover
 * (as smf_ho_cancel) and out is SMF_N2_HO_PREP_FAILED: -ENOENT, -EBADMSG, -EPROTO (not preparing,
 * e.g. a second acknowledge), -EINVAL (target tunnel not IPv4, default QoS flow not admitted);
 * -ENOSPC. */
int smf_ho_admitted(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
		    struct smf_out *out);
/* smf_ho_not_admitted: the target did not take psi (step 10: its Handover Resource Allocation
 * Unsuccessful Transfer, whose cause is used; or transfer NULL: not listed, a slice it does not
 * serve, cause (NULL: radio network unspecified) used). The session leaves the handover and stays on
 * the source; out is SMF_N2_HO_PREP_FAILED. 0, -ENOENT, -EPROTO (not in a handover: nothing changed,
 * out answered all the same), -ENOSPC. An undecodable transfer is counted (n2_bad) and handled as
 * NULL. Once the UE has moved (HANDOVER NOTIFY) such a session, like one refused by smf_ho_prepare or
 * smf_ho_admitted, has no resources at the target: the AMF deactivates its user plane with
 * smf_path_switch_drop (downlink buffered, paging; its out is not sent) or releases it (smf_release,
 * a slice the target does not serve), as for the Xn handover (TS 23.502 4.9.1.3.3, 4.9.1.2.2 1b). */
int smf_ho_not_admitted(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
			const struct ngap_cause *cause, struct smf_out *out);
/* smf_ho_complete: HANDOVER NOTIFY (4.9.1.3.3 steps 6-8): the downlink moves to the target's tunnel
 * in one UPF rule update, the UPF sends an End Marker on the source's (TS 23.501 5.8.2.9). An
 * indirect forwarding tunnel stays until smf_ho_end or the SMF's own guard, smf_params.
 * ho_fwd_guard_ms from now (step 21a), whichever comes first. 0, -ENOENT, -EPROTO (not admitted:
 * the session is left as it was, a preparation goes on; counted in n2_unexpected). */
int smf_ho_complete(struct smf *smf, struct smf_ue *ue, uint8_t psi);
/* smf_ho_cancel: the handover was cancelled, failed or timed out before HANDOVER NOTIFY (4.9.1.3.4,
 * TS 38.413 8.4.5): the target's tunnel forgotten, a forwarding tunnel removed; the session as before
 * on the source. 0, -ENOENT, -EPROTO (not in a handover). */
int smf_ho_cancel(struct smf *smf, struct smf_ue *ue, uint8_t psi);
/* smf_ho_end: the source's UE context is released after the handover (step 21a): the forwarding
 * tunnel, if any, removed now and the guard stopped. 0, -ENOENT, -EALREADY (none left: direct or no
 * forwarding, or the guard came first), -EPROTO (the handover is not notified yet: smf_ho_cancel). */
int smf_ho_end(struct smf *smf, struct smf_ue *ue, uint8_t psi);

/* ---- network-initiated procedures (sent through ops.send) ---- */
/* Network-requested release (TS 24.501 6.3.3) with a 5GSM cause (e.g. 36, 39, 26).
 * 0 (command sent, T3592 running, or released locally when the UE is unreachable),
 * -ENOENT, -EBUSY (release already running). */
int smf_release(struct smf *smf, struct smf_ue *ue, uint8_t psi, uint8_t cause);
/* Network-requested modification of the session-AMBR (TS 24.501 6.3.2), T3591.
 * The UPF gets the new AMBR when the UE completes. 0, -ENOENT, -EBUSY, -EAGAIN (UE unreachable). */
int smf_modify_ambr(struct smf *smf, struct smf_ue *ue, uint8_t psi, uint64_t ul_bps, uint64_t dl_bps);

/* The subscription or policy of a UE changed (web/API): every ACTIVE session whose session-AMBR
 * differs from the subscription's now gets a network-requested modification (smf_modify_ambr, sent
 * through ops.send; TS 23.502 4.3.3.2). Sessions busy with another procedure or of an unreachable
 * UE are counted in *skipped (may be NULL) and retried by the SMF itself once they are next ACTIVE
 * (their establishment or modification done, the user plane back after a service request).
 * Returns the number of modifications started. */
int smf_ue_policy_update(struct smf *smf, struct smf_ue *ue, unsigned *skipped);
/* The same for the UE with this SUPI: -ENOENT when it is not attached. */
int smf_supi_policy_update(struct smf *smf, const char *supi, unsigned *skipped);
/* The same for every attached UE (a policy used by many), in bounded steps: from *cursor (0 at the
 * start) at most budget UE slots; *cursor = SMF_WALK_END when done. Returns modifications started. */
int smf_policy_update_walk(struct smf *smf, uint32_t *cursor, uint32_t budget, unsigned *skipped);

/* ---- observation ---- */
enum smf_state {
	SMF_ST_INACTIVE = 0,       /* TS 24.501 6.1.3.3: PDU SESSION INACTIVE */
	SMF_ST_ACTIVE_PENDING,     /* accept sent, waiting for the gNB (TS 23.502 4.3.2.2.1 steps 11-15) */
	SMF_ST_ACTIVE,             /* PDU SESSION ACTIVE */
	SMF_ST_MODIFICATION_PENDING, /* PDU SESSION MODIFICATION PENDING (T3591) */
	SMF_ST_INACTIVE_PENDING,   /* PDU SESSION INACTIVE PENDING (T3592) */
	/* The N4 Session Establishment is sent, its answer awaited before anything goes to the UE
	 * (TS 23.502 4.3.2.2.1 steps 10a/10b before step 11; a UPF over PFCP only, issue 32) */
	SMF_ST_N4_PENDING,
	SMF_ST__MAX
};
const char *smf_state_name(unsigned s);

/* Handover sub-state of a session (TS 23.502 4.9.1.3): preparing after smf_ho_prepare, admitted
 * after smf_ho_admitted, none again after smf_ho_complete / _cancel / _not_admitted or a teardown.
 * An indirect forwarding tunnel (smf_sess_info.fwd_teid) may outlive it until smf_ho_end. */
enum smf_ho_state { SMF_HO_NONE = 0, SMF_HO_PREPARING, SMF_HO_ADMITTED };

struct smf_sess_info {
	uint8_t state;             /* enum smf_state */
	bool up_active;            /* downlink forwarded to the gNB */
	uint32_t session_id;       /* = upf session id */
	uint32_t ue_addr;          /* network order; 0: IPv6 session */
	uint8_t ue_prefix6[8];     /* IPv6 / IPv4v6: the session's /64; zeros otherwise */
	uint8_t ue_iid6[8];        /* ... the interface identifier in the PDU address (9.11.4.10) */
	bool nat;                  /* its IPv4 is source-NATed on N6 (dnns[].nat) */
	uint32_t ul_teid;          /* ours (UPF N3) */
	uint32_t gnb_addr, gnb_teid;
	uint8_t gnb_addr6[16];     /* gnb_addr 0: the gNB's IPv6 N3 end */
	uint8_t pdu_type;          /* enum nas_pdu_type granted */
	uint8_t five_qi, arp, qfi, pti;
	uint64_t ambr_ul_bps, ambr_dl_bps;
	char dnn[64];
	struct ngap_snssai snssai;
	uint8_t retx;              /* retransmissions of the running T3591 / T3592 procedure */
	/* N2 handover (smf_ho.c) */
	uint8_t ho_state;          /* enum smf_ho_state */
	bool ho_direct;            /* direct forwarding path available (prepare) */
	uint32_t ho_gnb_addr, ho_gnb_teid; /* the target's DL tunnel while ADMITTED, else 0 */
	uint32_t fwd_teid;         /* UPF_FWD_TEID(session_id) while an indirect forwarding tunnel exists; 0: none */
};
/* 0 or -ENOENT. */
int smf_sess_info(const struct smf *smf, const struct smf_ue *ue, uint8_t psi, struct smf_sess_info *out);

/* est_rej_cause is indexed by the 5GSM cause (TS 24.501 9.11.4.2, all below 128);
 * a cause outside counts at index 0. */
#define SMF_CAUSE_SLOTS 128

struct smf_stats {
	uint64_t sessions;         /* existing now */
	uint64_t est_accepted, est_rejected;
	uint64_t rel_ue, rel_net, rel_local;  /* completed releases by origin */
	uint64_t mod_ok, mod_failed;
	uint64_t up_deactivated, up_reactivated;
	uint64_t t3591_expired, t3592_expired, t3591_gave_up, t3592_gave_up;
	uint64_t gsm_status_tx, gsm_status_rx;
	uint64_t n1_ignored;       /* 5GSM messages ignored (TS 24.501 7.3.2, too short ...) */
	uint64_t n2_bad, n2_unexpected;
	uint64_t dl_data_notified;
	uint64_t upf_skipped;      /* rule operations not done: no user plane attached */
	uint64_t upf_errors;
	uint64_t upf_lost;         /* sessions their UPF lost or refused (smf_upf_session_lost) */
	uint64_t upf_none_ready;   /* establishments refused (#26): no ready UPF serves them */
	uint64_t upf_est_failed;   /* establishments rejected: the UPF refused or did not answer the
				    * N4 Session Establishment (smf_upf_est_done) */
	uint64_t send_failed;      /* ops.send returned an error */
	/* Establishment outcomes (TS 23.502 4.3.2.2.1): est_accepted splits into est_completed
	 * (the gNB's Setup Response handled, step 15) and est_failed (the gNB's Setup
	 * Unsuccessful Transfer: released with #38); a session released or replaced while
	 * waiting for the gNB is in neither. est_rejected by cause: */
	uint64_t est_completed;
	uint64_t est_failed;
	uint64_t est_rej_cause[SMF_CAUSE_SLOTS];
	/* N2 handover (smf_ho.c): sessions prepared (Handover Request Transfer sent), completed (HANDOVER
	 * NOTIFY), cancelled (cancel, not admitted, refused acknowledge, or a teardown while in one);
	 * indirect forwarding tunnels created / removed (with no UPF also counted in upf_skipped) */
	uint64_t ho_prepared, ho_completed, ho_cancelled;
	uint64_t fwd_created, fwd_removed;
	/* PDU Session Establishment Request received -> PDU Session Resource Setup Response
	 * handled, per completed establishment, on the ev loop's cached clock (ev_now_ns). */
	struct hist setup_latency;    /* common/hist.h */
};
void smf_get_stats(const struct smf *smf, struct smf_stats *out);

/* Addresses in use / size of the pool of a DNN (tests, metrics). 0 or -ENOENT. */
int smf_pool_usage(const struct smf *smf, const char *dnn, uint32_t *used, uint32_t *size);

/* ---- walks for the web API (REST views) and metrics ----
 * Allocation-free reads on the control thread. A callback returns 0 to go on or non-zero
 * to stop; the walk then returns that value (0 when it ran to the end). Pointers in the
 * view are valid during the callback only. */
struct smf_sess_view {
	const char *supi;
	uint8_t psi;
	struct smf_sess_info info;
	/* A UPF is attached and holds the session's rules: the counters below are its
	 * (upf_session_stats: forwarded packets, inner IP bytes); zeros otherwise. */
	bool has_counters;
	uint64_t ul_pkts, ul_bytes, dl_pkts, dl_bytes;
};
typedef int (*smf_sess_walk_fn)(const struct smf_sess_view *v, void *arg);
/* Every session in slot order, from *cursor (0: the first; NULL: from the start, no
 * resume). When the callback stops the walk, *cursor is set to resume after that session,
 * and to SMF_WALK_END when the walk ran to the end. A full walk costs the slots ever used;
 * budget (with a cursor; 0: none) bounds the slots looked at in one call: past it *cursor
 * is where to go on (a REST page over a sparse pool costs at most budget slots). */
#define SMF_WALK_END UINT32_MAX
int smf_sess_walk(const struct smf *smf, uint32_t *cursor, uint32_t budget, smf_sess_walk_fn fn, void *arg);
/* The sessions of one UE (the AMF's handle, amf_ue_info.sm), by PSI. NULL ue: none. */
int smf_ue_sess_walk(const struct smf *smf, const struct smf_ue *ue, smf_sess_walk_fn fn, void *arg);

/* User-plane traffic of every session this SMF put in the UPF: the live sessions'
 * counters plus those of sessions already removed (read just before removal).
 * 0, or -ENODEV when no UPF is attached. */
struct smf_upf_totals {
	uint64_t ul_pkts, ul_bytes, dl_pkts, dl_bytes;
};
int smf_upf_totals(const struct smf *smf, struct smf_upf_totals *out);

/* ---- live DNN list and slice changes (PATCH /api/v1/settings through core.c; smf_pool.c) ----
 * The SMF copies the DNN list and the served slices from smf_params.conf at smf_new (conf
 * need not outlive it for them); a session refers to its DNN by its index in that copy. A DNN with PDU sessions must stay, with the same pool (its sessions' UE
 * addresses and UPF rules come from it); everything else may change: DNNs added, removed,
 * reordered (the first is the default DNN), DNS servers and MTU (sent to new sessions). */
struct conf_dnn;
/* Could next (n entries) replace the DNN list now? 0, -EBUSY (a DNN with sessions would
 * go or change pool: why names it and the count), -EINVAL (bad pool, n not 1..16). */
int smf_dnns_check(const struct smf *smf, const struct conf_dnn *next, unsigned n, char *why,
		   size_t whysz);
/* Replace the list with a copy of next: new pools made, the sessions re-indexed and the
 * pools of dropped DNNs freed. All or nothing: 0, or -EBUSY / -EINVAL as smf_dnns_check,
 * -ENOMEM (nothing changed). The UPF's UE prefix must cover a new pool (core's business). */
int smf_dnns_replace(struct smf *smf, const struct conf_dnn *next, unsigned n, char *why, size_t whysz);
/* The S-NSSAIs served (1..CONF_MAX_SLICES), copied: new sessions are checked against them.
 * 0 or -EINVAL. */
struct conf_slice;
int smf_set_slices(struct smf *smf, const struct conf_slice *s, unsigned n);

#endif
