/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim --ps-guess (issue 31 point 6): a gNB that completed NG Setup tries to take another
 * gNB's UE by PATH SWITCH REQUEST (TS 38.413 8.4.4.2 names the UE by its source AMF UE NGAP
 * ID alone). When UE 0 of this run is registered (at the start of --hold-ms), its gNB sends
 * one PATH SWITCH REQUEST per guess, each on a fresh RAN UE NGAP ID (RS_GUESS_RAN_BASE + i),
 * for PDU session cfg.psi with a valid transfer (this gNB's DL tunnel): the IDs +-64 around
 * UE 0's own AMF UE NGAP ID F, and the pattern of an AMF that numbers IDs "generation <<
 * index bits | pool index": ((F >> b) - g) << b | x for b 1..24, g 0..3, x 0..3. With
 * unpredictable IDs each guess gets ERROR INDICATION "unknown local UE NGAP ID" (10.6). The
 * answers are counted (ps_guess_*), never taken: an ACKNOWLEDGE means a UE was moved.
 */
#include <stdio.h>
#include <string.h>

#include "common/log.h"
#include "rs_int.h"

#define RS_GUESS_RAN_BASE 0x00900000u
#define RS_GUESS_MAX 1024u

static unsigned guesses(uint64_t f, uint64_t *out)
{
	unsigned n = 0;

	for (uint64_t i = 1; i <= 64; i++) {
		out[n++] = (f + i) & 0xffffffffffull;
		out[n++] = (f - i) & 0xffffffffffull;
	}
	for (unsigned b = 1; b <= 24; b++)
		for (uint64_t g = 0; g <= 3; g++)
			for (uint64_t x = 0; x <= 3; x++)
				out[n++] = (((f >> b) - g) << b | x) & 0xffffffffffull;
	return n;
}

void rs_guess_fire(struct rs_ue *ue)
{
	static uint64_t ids[RS_GUESS_MAX];
	struct ransim *rs = ue->rs;
	struct ngap_msg *m = &rs->tx;
	struct ngap_path_switch_request *r = &m->u.path_switch_request;
	struct ngap_path_switch_request_transfer t;
	unsigned n, i;
	int len;

	if (!rs->cfg.ps_guess || ue->idx != 0 || rs->st.ps_guess_sent || !ue->has_amf_id)
		return;
	memset(&t, 0, sizeof(t));
	rs_ue_dl_tunnel(ue, &t.dl_tunnel);
	t.n_flows = 1;
	t.qfis[0] = 1;
	len = ngap_enc_path_switch_request_transfer(&t, rs->xfer_buf[0], sizeof(rs->xfer_buf[0]));
	if (len < 0) {
		rs_cause_add(rs, "ps_guess_transfer");
		return;
	}
	n = guesses(ue->amf_ue_id, ids);
	log_msg(LOGL_INFO, "ransim", ue->sim->supi, "own AMF UE NGAP ID %010llx: %u PATH SWITCH REQUEST guesses",
		(unsigned long long)ue->amf_ue_id, n);
	for (i = 0; i < n; i++) {
		if (ids[i] == ue->amf_ue_id)
			continue;
		memset(m, 0, sizeof(*m));
		m->type = NGAP_INITIATING;
		m->proc = NGAP_PROC_PATH_SWITCH_REQUEST;
		r->ran_ue_id = RS_GUESS_RAN_BASE + i;
		r->source_amf_ue_id = ids[i];
		rs_gnb_uli(ue->gnb, &r->uli);
		r->ue_sec_cap = ue->as_caps;
		r->n_sessions = 1;
		r->sessions[0].id = rs->cfg.psi ? rs->cfg.psi : 1;
		r->sessions[0].transfer.p = rs->xfer_buf[0];
		r->sessions[0].transfer.len = (size_t)len;
		if (rs_gnb_send_ue(ue->gnb, ue, m) == 0)
			rs->st.ps_guess_sent++;
	}
}

bool rs_guess_answer(struct rs_gnb *g, const struct ngap_msg *m)
{
	struct ransim *rs = g->rs;
	uint32_t ran;

	if (!rs->cfg.ps_guess)
		return false;
	if (m->type == NGAP_INITIATING && m->proc == NGAP_PROC_ERROR_INDICATION) {
		const struct ngap_error_indication *e = &m->u.error_indication;

		if (!e->has_ran_ue_id || e->ran_ue_id < RS_GUESS_RAN_BASE || e->ran_ue_id >= RS_GUESS_RAN_BASE + RS_GUESS_MAX)
			return false;
		if (e->has_cause && e->cause.group == NGAP_CAUSE_RADIO_NETWORK && e->cause.value == 14)
			rs->st.ps_guess_error_ind++;   /* unknown-local-UE-NGAP-ID */
		else
			rs->st.ps_guess_other++;
		return true;
	}
	if (m->proc != NGAP_PROC_PATH_SWITCH_REQUEST)
		return false;
	ran = m->type == NGAP_SUCCESSFUL ? m->u.path_switch_request_ack.ran_ue_id
					 : m->u.path_switch_request_failure.ran_ue_id;
	if (ran < RS_GUESS_RAN_BASE || ran >= RS_GUESS_RAN_BASE + RS_GUESS_MAX)
		return false;
	if (m->type == NGAP_SUCCESSFUL) {
		/* another gNB's UE now routed here: the attack worked */
		rs->st.ps_guess_ack++;
		rs_cause_add(rs, "ps_guess_acknowledged");
		log_msg(LOGL_ERROR, "ransim", NULL, "PATH SWITCH REQUEST guess %010llx ACKNOWLEDGED: a UE was moved",
			(unsigned long long)m->u.path_switch_request_ack.amf_ue_id);
	} else {
		rs->st.ps_guess_fail++;   /* the ID named a UE (an oracle), which did not move */
	}
	return true;
}
