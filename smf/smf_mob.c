/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SMF's side of an intra-AMF Xn handover (TS 23.502 4.9.1.2.2, TS 38.413 8.4.4):
 * per PDU session, the target gNB's Path Switch Request Transfer moves the downlink
 * tunnel (one update of the session's UPF rule, the same smf_upf_apply the service
 * request uses) and is answered with a Path Switch Request Acknowledge Transfer (the
 * UL tunnel, unchanged: no UPF re-allocation); a session that cannot switch keeps its
 * old tunnel and gets a Path Switch Request Unsuccessful Transfer (9.3.4.15).
 * The switch is the SMF_EV_N2_PATH_SWITCH event of smf_fsm.c's table.
 */
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap.h"
#include "smf/smf_int.h"

#define SMF_CAUSE_TRANSPORT_UNSPECIFIED 1   /* TS 38.413 9.3.1.2 CauseTransport */

static bool default_flow_accepted(const struct ngap_path_switch_request_transfer *t)
{
	for (unsigned i = 0; i < t->n_flows && i < NGAP_MAX_QOS_FLOWS; i++)
		if (t->qfis[i] == SMF_QFI_DEFAULT)
			return true;
	return false;
}

/* TS 38.413 9.3.4.9: the UL NG-U tunnel (ours, unchanged) for the target. */
static int enc_ack(const struct smf *smf, const struct smf_sess *s, struct smf_out *out)
{
	struct ngap_path_switch_request_ack_transfer a;
	int n;

	memset(&a, 0, sizeof(a));
	a.has_ul_tunnel = true;
	smf_msg_tunnel(&a.ul_tunnel, smf_sess_n3(smf, s), smf_sess_n3_6(smf, s), s->teid);
	n = ngap_enc_path_switch_request_ack_transfer(&a, out->n2, out->n2_cap);
	if (n < 0)
		return n;
	out->n2_len = (size_t)n;
	out->n2_proc = SMF_N2_PATH_SWITCH_ACK;
	return 0;
}

/* TS 38.413 9.3.4.15 Path Switch Request Unsuccessful Transfer, 9.3.4.18 Handover Preparation
 * Unsuccessful Transfer: both {cause}. */
void smf_msg_cause_transfer(uint8_t psi, const struct ngap_cause *cause, uint8_t proc, struct smf_out *out)
{
	struct ngap_cause_transfer t = { .cause = *cause };
	int n = ngap_enc_cause_transfer(&t, out->n2, out->n2_cap);

	out->psi = psi;
	if (n < 0)
		return;
	out->n2_len = (size_t)n;
	out->n2_proc = proc;
}

static void enc_unsuccessful(uint8_t psi, const struct ngap_cause *cause, struct smf_out *out)
{
	smf_msg_cause_transfer(psi, cause, SMF_N2_PATH_SWITCH_FAILED, out);
}

/* SMF_EV_N2_PATH_SWITCH (smf_fsm.c): the new DL end of an active user plane. An address
 * without IPv4 cannot be reached from our N3, and a session whose default QoS flow the
 * target did not accept has no user plane there (TS 23.502 4.9.1.2.2 step 2): both
 * refused, the old tunnel kept. The state does not change; a modification waiting for
 * the source gNB's answer goes on with the UE's alone (the source has left). */
int smf_a_path_switch(struct smf *smf, struct smf_sess *s, struct smf_ev_ctx *c)
{
	const struct ngap_path_switch_request_transfer *t = c->n2;
	int rc;

	if (s->up != SMF_UP_ACTIVE || s->ho != SMF_HO_NONE)
		return -EPROTO;   /* an N2 handover of the session runs: one handover at a time */
	uint32_t a4;
	uint8_t a6[16];

	if (smf_tunnel_gnb(smf, s, &t->dl_tunnel, &a4, a6)) {
		smf_slog(LOGL_INFO, smf, s, "path switch to a %u-bit address our N3 cannot reach: refused",
			 t->dl_tunnel.addr_bits);
		return -EINVAL;
	}
	if (!default_flow_accepted(t)) {
		smf_slog(LOGL_INFO, smf, s, "path switch without QFI %u accepted: refused", SMF_QFI_DEFAULT);
		return -EINVAL;
	}
	s->gnb_addr = a4;
	memcpy(s->gnb_addr6, a6, 16);
	s->gnb_teid = smf_tunnel_teid(&t->dl_tunnel);
	s->mod_n2_wait = 0;
	rc = smf_upf_apply(smf, s);
	if (rc < 0)
		return rc;
	smf_slog(LOGL_INFO, smf, s, "downlink switched to teid=%08x", s->gnb_teid);
	return enc_ack(smf, s, c->out) < 0 ? -ENOSPC : s->state;
}

struct ngap_cause smf_ho_cause_of(int rc)
{
	if (rc == -EPROTO || rc == -ENOENT)
		return (struct ngap_cause){ NGAP_CAUSE_PROTOCOL,
					    NGAP_CAUSE_PROT_MESSAGE_NOT_COMPATIBLE_WITH_RECEIVER_STATE };
	if (rc == -EBADMSG)
		return (struct ngap_cause){ NGAP_CAUSE_PROTOCOL, NGAP_CAUSE_PROT_SEMANTIC_ERROR };
	if (rc == -EINVAL)
		return (struct ngap_cause){ NGAP_CAUSE_TRANSPORT, SMF_CAUSE_TRANSPORT_UNSPECIFIED };
	return (struct ngap_cause){ NGAP_CAUSE_RADIO_NETWORK, NGAP_CAUSE_RN_UNSPECIFIED };
}

int smf_path_switch(struct smf *smf, struct smf_ue *ue, uint8_t psi, const uint8_t *transfer, size_t len,
		    struct smf_out *out)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);
	struct ngap_path_switch_request_transfer t;
	struct smf_ev_ctx c = { .out = out, .n2 = &t };
	struct ngap_cause cause;
	int rc;

	if (!out || out->n2_cap < SMF_N2_MAX)
		return -ENOSPC;
	out->n1_len = out->n2_len = 0;
	out->n2_proc = SMF_N2_NONE;
	out->psi = psi;
	if (!s) {
		rc = -ENOENT;
	} else if (ngap_dec_path_switch_request_transfer(transfer, len, &t, NULL) < 0) {
		smf->st.n2_bad++;
		smf_slog(LOGL_INFO, smf, s, "undecodable Path Switch Request Transfer");
		rc = -EBADMSG;
	} else {
		rc = smf_fsm_dispatch(smf, s, SMF_EV_N2_PATH_SWITCH, &c);
		if (rc >= 0) {
			out->snssai = s->snssai;
			return 0;
		}
		if (rc == -EPROTO)
			smf->st.n2_unexpected++;
	}
	out->n2_len = 0;
	cause = smf_ho_cause_of(rc);
	enc_unsuccessful(psi, &cause, out);
	return rc;
}

int smf_path_switch_drop(struct smf *smf, struct smf_ue *ue, uint8_t psi, const struct ngap_cause *cause,
			 struct smf_out *out)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);
	struct smf_ev_ctx c = { 0 };

	if (!out || out->n2_cap < SMF_N2_MAX)
		return -ENOSPC;
	out->n1_len = out->n2_len = 0;
	out->n2_proc = SMF_N2_NONE;
	if (!s)
		return -ENOENT;
	/* TS 23.502 4.9.1.2.2 step 1b / 4.2.6: the source gNB is gone, the target has no
	 * resources for it: downlink buffered (the UPF's rule), the session kept until the
	 * caller releases it or the UE reactivates it. */
	if (s->up == SMF_UP_ACTIVE || s->up == SMF_UP_PENDING)
		smf_fsm_dispatch(smf, s, SMF_EV_UP_DEACT, &c);
	enc_unsuccessful(psi, cause, out);
	out->snssai = s->snssai;
	return out->n2_len ? 0 : -ENOSPC;
}
