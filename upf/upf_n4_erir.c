/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Error Indication reporting (TS 29.244 5.10, 7.5.8.4; issue 32).
 *
 * A gNB that no longer knows one of our sessions' downlink tunnels answers its G-PDUs with a
 * GTP-U Error Indication (TS 29.281 7.3.1). The data path (upf_exc.c) reports it only when the
 * Error Indication names exactly the downlink tunnel of an installed session with an active
 * downlink and comes from that tunnel's gNB address; here it becomes a Session Report Request
 * with Report Type ERIR (8.2.21) and an Error Indication Report (7.5.8.4) carrying the Remote
 * F-TEID (the gNB's TEID and address, 8.2.3) to the CP function of that PFCP session, sent and
 * retransmitted like every report of ours (6.4, upf_n4_sess.c n4_report_track).
 *
 * The UPF changes nothing itself: the downlink FAR stays as the CP set it. TS 29.244 5.10 gives
 * the reaction to the CP function (for 5GC: TS 23.527 5.3, the SMF deactivates the user plane
 * of the PDU session with a Session Modification, BUFF / NOCP on the downlink FAR).
 */
#include <string.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

void upf_n4_err_ind(struct upf_n4 *n, const struct upf_err_ind *ei)
{
	struct pfcp_sess_report_req *rep;
	struct pfcp_fteid *f;
	struct n4_sess *s;
	uint32_t seq;

	if (!n || !ei || ei->session_id >= n->p.max_sessions)
		return;
	s = &n->sess[ei->session_id];
	if (!s->used)
		return;   /* a data path session that no PFCP session holds (none here): nobody to tell */
	rep = &n->out.rep;
	memset(rep, 0, sizeof(*rep));
	rep->has = PFCP_SRR_TYPE | PFCP_SRR_ERR_IND;
	rep->type = PFCP_RPT_ERIR;
	rep->err_ind.has = PFCP_ERIR_F_TEID;
	rep->err_ind.n_fteid = 1;
	f = &rep->err_ind.fteid[0];
	f->teid = ei->teid;
	if (ei->addr) {
		f->flags = PFCP_FTEID_V4;
		memcpy(f->ipv4, &ei->addr, 4);
	} else {
		f->flags = PFCP_FTEID_V6;
		memcpy(f->ipv6, ei->addr6, 16);
	}
	seq = n->next_seq;
	n->next_seq = n->next_seq >= PFCP_SEQ_MAX ? 1 : n->next_seq + 1;
	if (n4_report_track(n, s, ei->session_id, seq, true) < 0)
		return;
	log_rl(LOGL_WARN, N4_MOD, NULL, "session %u: Error Indication from its gNB (teid=0x%x): reported (ERIR) to the CP",
	       ei->session_id, ei->teid);
}
