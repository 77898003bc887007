/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * smf: creation, UE handles, session slots, the UPF rules and the entry
 * points for N2 transfers, the user plane and network-initiated procedures.
 * The 5GSM receive side is in smf_n1.c, the state machine in smf_fsm.c.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/ngap/ngap.h"
#include "smf/smf_int.h"
#include "upf/upf.h"

void smf_slog(enum log_level lvl, const struct smf *smf, const struct smf_sess *s, const char *fmt, ...)
{
	char obj[96];
	va_list ap;

	if (!log_enabled(lvl, MOD))
		return;
	snprintf(obj, sizeof(obj), "ue=%s psi=%u sm{%s}", smf->ues[s->ue].supi, s->psi,
		 smf_state_name(s->state));
	va_start(ap, fmt);
	log_vmsg(lvl, MOD, obj, fmt, ap);
	va_end(ap);
}

void smf_parse_dns(struct smf *smf, unsigned d)
{
	const struct conf_dnn *dn = &smf->dnns[d];

	smf->n_dns[d] = smf->n_dns6[d] = 0;
	for (unsigned i = 0; i < dn->n_dns && i < CONF_MAX_DNS; i++) {
		struct in_addr a;

		/* IPv6 servers go to IPv6 / IPv4v6 sessions (ePCO 0003H, TS 24.008 10.5.6.3) */
		if (inet_pton(AF_INET, dn->dns[i], &a) == 1)
			smf->dns[d][smf->n_dns[d]++] = a.s_addr;
		else if (inet_pton(AF_INET6, dn->dns[i], smf->dns6[d][smf->n_dns6[d]]) == 1)
			smf->n_dns6[d]++;
	}
}

struct smf *smf_new(const struct smf_params *p, int *err)
{
	struct smf *smf;
	const struct conf *cf = p->conf;
	int rc = -EINVAL;

	if (!cf || !p->loop) {
		*err = -EINVAL;
		return NULL;
	}
	smf = calloc(1, sizeof(*smf));
	if (!smf) {
		*err = -ENOMEM;
		return NULL;
	}
	smf->p = *p;
	smf->p.conf = NULL;   /* read here only: the SMF keeps what it needs */
	smf->n_dnns = cf->n_dnns < CONF_MAX_DNNS ? cf->n_dnns : CONF_MAX_DNNS;
	memcpy(smf->dnns, cf->dnns, smf->n_dnns * sizeof(smf->dnns[0]));
	smf->n_slices = cf->n_slices < CONF_MAX_SLICES ? cf->n_slices : CONF_MAX_SLICES;
	memcpy(smf->slices, cf->slices, smf->n_slices * sizeof(smf->slices[0]));
	smf->upf = p->upf;
	smf->n_sess = p->max_sessions ? p->max_sessions : cf->upf.max_sessions;
	smf->n_ues = p->max_ues ? p->max_ues : cf->limits.max_ues;
	smf->max_per_ue = p->max_per_ue && p->max_per_ue <= SMF_PSI_MAX ? p->max_per_ue : SMF_PSI_MAX;
	smf->t3591_ms = p->t3591_ms ? p->t3591_ms : cf->timers.t3591 * 1000u;
	smf->t3592_ms = p->t3592_ms ? p->t3592_ms : cf->timers.t3592 * 1000u;
	smf->max_retx = p->max_retx ? p->max_retx : 4;
	smf->ho_fwd_guard_ms = p->ho_fwd_guard_ms ? p->ho_fwd_guard_ms : SMF_HO_FWD_GUARD_MS;
	smf->no_upf_backoff_s = cf->upf.no_upf_backoff;
	if (!smf->n_sess || !smf->n_ues || smf->n_sess >= SMF_NONE || smf->n_ues >= SMF_NONE)
		goto fail;
	for (unsigned d = 0; d < smf->n_dnns; d++) {
		rc = smf_pool_init(&smf->pools[d], cf->dnns[d].pool, smf->n_sess);
		if (rc < 0) {
			log_error(MOD, "dnn %s: bad pool \"%s\"", cf->dnns[d].name, cf->dnns[d].pool);
			goto fail;
		}
		if (cf->dnns[d].pool6[0] && (rc = smf_pool6_init(&smf->pools6[d], cf->dnns[d].pool6, smf->n_sess)) < 0) {
			log_error(MOD, "dnn %s: bad pool6 \"%s\"", cf->dnns[d].name, cf->dnns[d].pool6);
			goto fail;
		}
		smf_parse_dns(smf, d);
	}
	rc = -ENOMEM;
	smf->sess = calloc(smf->n_sess, sizeof(*smf->sess));
	smf->ues = calloc(smf->n_ues, sizeof(*smf->ues));
	smf->setup_t0 = calloc(smf->n_sess, sizeof(*smf->setup_t0));
	if (!smf->sess || !smf->ues || !smf->setup_t0)
		goto fail;
	/* Slots are handed out from a high-water mark before the free lists, so the
	 * arrays (sized for the configured maximum) are only touched when used. */
	smf->sess_free = SMF_NONE;
	smf->ue_free = SMF_NONE;
	log_info(MOD, "started: %u dnns, %u sessions, %u ues, user plane %s", cf->n_dnns, smf->n_sess,
		 smf->n_ues, smf->upf ? "attached" : "none");
	*err = 0;
	return smf;
fail:
	smf_free(smf);
	*err = rc;
	return NULL;
}

void smf_free(struct smf *smf)
{
	if (!smf)
		return;
	if (smf->ues)
		for (uint32_t i = 0; i < smf->ue_hwm; i++)
			if (smf->ues[i].in_use)
				smf_ue_detach(smf, &smf->ues[i]);
	for (unsigned d = 0; d < CONF_MAX_DNNS; d++) {
		smf_pool_fini(&smf->pools[d]);
		smf_pool_fini(&smf->pools6[d]);
	}
	free(smf->sess);
	free(smf->ues);
	free(smf->setup_t0);
	free(smf);
}

void smf_set_upf(struct smf *smf, struct upf *upf)
{
	smf->upf = upf;
	if (!upf)
		smf->n_upfs = 0;   /* the UPFs are being closed: the sessions keep no rules anywhere */
}

void smf_set_amf_ops(struct smf *smf, const struct smf_amf_ops *ops)
{
	smf->p.ops = *ops;
}

/* ---- UE handles ---- */

void smf_ue_set_cookie(struct smf *smf, struct smf_ue *ue, void *ue_cookie)
{
	(void)smf;
	ue->cookie = ue_cookie;
}

int smf_ue_attach(struct smf *smf, const char *supi, void *ue_cookie, struct smf_ue **out)
{
	struct smf_ue *ue;

	if (smf->ue_free != SMF_NONE) {
		ue = &smf->ues[smf->ue_free];
		smf->ue_free = ue->next_free;
	} else if (smf->ue_hwm < smf->n_ues) {
		ue = &smf->ues[smf->ue_hwm++];
	} else {
		return -ENOSPC;
	}
	ue->in_use = 1;
	ue->cookie = ue_cookie;
	ue->n_sess = 0;
	ue->n_allowed = 0;
	snprintf(ue->supi, sizeof(ue->supi), "%s", supi ? supi : "");
	for (unsigned i = 0; i <= SMF_PSI_MAX; i++)
		ue->sess[i] = SMF_NONE;
	*out = ue;
	return 0;
}

int smf_ue_detach(struct smf *smf, struct smf_ue *ue)
{
	struct smf_ev_ctx c = { 0 };
	int n = 0;

	if (!ue || !ue->in_use)
		return 0;
	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		struct smf_sess *s = smf_sess_get(smf, ue, psi);
		if (s && smf_fsm_dispatch(smf, s, SMF_EV_LOCAL_REL, &c) == SMF_ST_INACTIVE)
			n++;
	}
	ue->in_use = 0;
	ue->cookie = NULL;
	ue->next_free = smf->ue_free;
	smf->ue_free = (uint32_t)(ue - smf->ues);
	return n;
}

uint16_t smf_ue_psi_map(const struct smf_ue *ue)
{
	uint16_t m = 0;

	for (unsigned psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++)
		if (ue->sess[psi] != SMF_NONE)
			m |= (uint16_t)(1u << psi);
	return m;
}

uint16_t smf_ue_up_map(const struct smf *smf, const struct smf_ue *ue)
{
	uint16_t m = 0;

	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		const struct smf_sess *s = smf_sess_get(smf, ue, psi);
		if (s && (s->up == SMF_UP_ACTIVE || s->up == SMF_UP_PENDING))
			m |= (uint16_t)(1u << psi);
	}
	return m;
}

uint16_t smf_ue_status_sync(struct smf *smf, struct smf_ue *ue, uint16_t ue_map)
{
	struct smf_ev_ctx c = { 0 };

	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		struct smf_sess *s = smf_sess_get(smf, ue, psi);
		if (s && !(ue_map & (1u << psi))) {
			smf_slog(LOGL_INFO, smf, s, "not active in the UE: local release");
			smf_fsm_dispatch(smf, s, SMF_EV_LOCAL_REL, &c);
		}
	}
	return smf_ue_psi_map(ue);
}

/* ---- sessions ---- */

struct smf_sess *smf_sess_get(const struct smf *smf, const struct smf_ue *ue, uint8_t psi)
{
	if (!ue || psi < SMF_PSI_MIN || psi > SMF_PSI_MAX || ue->sess[psi] == SMF_NONE)
		return NULL;
	return &smf->sess[ue->sess[psi]];
}

struct smf_ue *smf_sess_ue(const struct smf *smf, const struct smf_sess *s)
{
	return &smf->ues[s->ue];
}

struct smf_sess *smf_sess_alloc(struct smf *smf, struct smf_ue *ue, uint8_t psi)
{
	struct smf_sess *s;
	uint32_t idx = smf->sess_free;

	if (idx != SMF_NONE) {
		s = &smf->sess[idx];
		smf->sess_free = s->next_free;
	} else if (smf->sess_hwm < smf->n_sess) {
		idx = smf->sess_hwm++;
		s = &smf->sess[idx];
		s->smf = smf;
		ev_timer_init(&s->timer, smf_timer_cb, s);
		ev_timer_init(&s->ho_timer, smf_ho_timer_cb, s);
	} else {
		return NULL;
	}
	memset(&s->psi, 0, offsetof(struct smf_sess, timer) - offsetof(struct smf_sess, psi));
	s->in_use = 1;
	s->ue = (uint32_t)(ue - smf->ues);
	s->psi = psi;
	s->state = SMF_ST_INACTIVE;
	s->teid = idx + 1;     /* unique while the session lives: the slot; the UPF indexes by it */
	ue->sess[psi] = idx;
	ue->n_sess++;
	smf->st.sessions++;
	/* Sessions are only made for a PDU SESSION ESTABLISHMENT REQUEST (smf_n1.c): the
	 * start of the setup latency (the loop's cached time: no clock call here). */
	smf->setup_t0[idx] = ev_now_ns(smf->p.loop);
	return s;
}

/* The traffic of a session leaving the UPF stays in smf_upf_totals. */
static void retire_counters(struct smf *smf, uint32_t idx)
{
	struct smf_upf_totals *t = &smf->retired;
	struct upf_session_stats st;

	if (upf_session_stats(smf_sess_upf(smf, &smf->sess[idx]), idx, &st) < 0)
		return;
	t->ul_pkts += st.ul_pkts;
	t->ul_bytes += st.ul_bytes;
	t->dl_pkts += st.dl_pkts;
	t->dl_bytes += st.dl_bytes;
}

void smf_sess_free(struct smf *smf, struct smf_sess *s)
{
	struct smf_ue *ue = &smf->ues[s->ue];
	uint32_t idx = (uint32_t)(s - smf->sess);
	int rc;

	if (!s->in_use)
		return;
	if (smf->p.loop) {
		ev_timer_stop(smf->p.loop, &s->timer);
		ev_timer_stop(smf->p.loop, &s->ho_timer);   /* the dispatcher's smf_ho_leave did the rest */
	}
	if (s->upf_installed) {
		if (!smf_sess_upf(smf, s)) {
			smf->st.upf_skipped++;
		} else {
			retire_counters(smf, idx);
			rc = upf_session_remove(smf_sess_upf(smf, s), idx);
			if (rc < 0 && rc != -ENOENT)
				smf->st.upf_errors++;   /* -ENOENT: installed before smf_set_upf() */
		}
		s->upf_installed = 0;
	}
	if (s->ue_addr && smf_pool_free(&smf->pools[s->dnn], s->ue_addr) < 0)
		smf_slog(LOGL_ERROR, smf, s, "address not from its pool");
	s->ue_addr = 0;
	if ((s->pdu_type == NAS_PDU_IPV6 || s->pdu_type == NAS_PDU_IPV4V6) &&
	    smf_pool6_free(&smf->pools6[s->dnn], s->pfx6) < 0)
		smf_slog(LOGL_ERROR, smf, s, "/64 not from its pool6");
	memset(s->pfx6, 0, sizeof(s->pfx6));
	s->state = SMF_ST_INACTIVE;
	s->in_use = 0;
	if (ue->sess[s->psi] == idx) {
		ue->sess[s->psi] = SMF_NONE;
		ue->n_sess--;
	}
	s->next_free = smf->sess_free;
	smf->sess_free = idx;
	smf->st.sessions--;
}

/* The session's rules as the UPF should hold them now (upf/upf.h). With no user
 * plane attached nothing is installed: counted, never pretended. */
int smf_upf_apply(struct smf *smf, struct smf_sess *s)
{
	uint32_t idx = (uint32_t)(s - smf->sess);
	struct upf_session_rule r = {
		.ul_teid = s->teid,
		.ue_addr = s->ue_addr,
		.gnb_addr = s->gnb_addr,
		.gnb_teid = s->gnb_teid,
		.qfi = SMF_QFI_DEFAULT,
		.ambr_ul_bps = s->ambr_ul,
		.ambr_dl_bps = s->ambr_dl,
		.dl_state = s->up == SMF_UP_ACTIVE ? UPF_DL_ACTIVE : UPF_DL_BUFFER,
	};
	struct upf *u = smf_sess_upf(smf, s);
	int rc;

	memcpy(r.gnb_addr6, s->gnb_addr6, 16);                 /* all zero for an IPv4 gNB */
	memcpy(r.ue_prefix6, s->pfx6, sizeof(r.ue_prefix6));   /* all zero for IPv4 */
	r.nat = s->nat;
	r.dnn = smf->dnns[s->dnn].name;

	if (!u) {
		smf->st.upf_skipped++;
		s->upf_installed = 1;
		return 0;
	}
	rc = s->upf_installed ? upf_session_modify(u, idx, &r) : upf_session_create(u, idx, &r);
	if (rc == -ENOENT && s->upf_installed)
		rc = upf_session_create(u, idx, &r);   /* installed before smf_set_upf() */
	if (rc < 0) {
		smf->st.upf_errors++;
		smf_slog(LOGL_ERROR, smf, s, "upf rule %s failed: %d", s->upf_installed ? "modify" : "create", rc);
		return rc;
	}
	s->upf_installed = 1;
	return 0;
}

int smf_send(struct smf *smf, struct smf_sess *s, const struct smf_out *o)
{
	int rc = -ENOTCONN;

	if (smf->p.ops.send)
		rc = smf->p.ops.send(smf->p.ops.arg, smf->ues[s->ue].cookie, o);
	if (rc < 0)
		smf->st.send_failed++;
	return rc;
}

void smf_upf_dl_data(void *arg, uint32_t session_id)
{
	struct smf *smf = arg;
	struct smf_sess *s;

	if (!smf || session_id >= smf->sess_hwm)
		return;
	s = &smf->sess[session_id];
	if (!s->in_use || s->up != SMF_UP_INACTIVE)
		return;
	smf->st.dl_data_notified++;
	smf_slog(LOGL_DEBUG, smf, s, "downlink data waiting: notify the AMF");
	if (smf->p.ops.dl_data)
		smf->p.ops.dl_data(smf->p.ops.arg, smf->ues[s->ue].cookie, s->psi);
}

/* TS 29.244 5.10, TS 23.527 5.3: the gNB no longer knows the session's downlink tunnel (a GTP-U
 * Error Indication, reported by the UPF in process or in a Session Report with ERIR): the user
 * plane of that PDU session is deactivated as in an AN release (TS 23.502 4.2.6), the session
 * kept; later downlink is buffered and pages the UE, or the UE reactivates with a Service
 * Request. Only if the report names the tunnel the session uses now (a report about a tunnel
 * the session already left, after a handover or a reactivation, changes nothing). */
void smf_upf_err_ind(void *arg, const struct upf_err_ind *ei)
{
	struct smf *smf = arg;
	struct smf_ev_ctx c = { 0 };
	struct smf_sess *s;

	if (!smf || !ei || ei->session_id >= smf->sess_hwm)
		return;
	s = &smf->sess[ei->session_id];
	if (!s->in_use)
		return;
	if (s->up != SMF_UP_ACTIVE || s->gnb_teid != ei->teid ||
	    (ei->addr ? s->gnb_addr != ei->addr : memcmp(s->gnb_addr6, ei->addr6, 16) != 0)) {
		smf_slog(LOGL_INFO, smf, s, "Error Indication for teid=0x%x: not the session's active tunnel, ignored",
			 ei->teid);
		return;
	}
	smf_slog(LOGL_WARN, smf, s, "Error Indication from the gNB (teid=0x%x): user plane deactivated",
		 ei->teid);
	smf_fsm_dispatch(smf, s, SMF_EV_UP_DEACT, &c);
}

/* TS 23.502 4.3.2.2.1 step 10b -> 11 (issue 32): the N4 answer decides what the UE hears. The
 * accept (and the N2 Setup Request) or the reject goes through ops.send; an accept the AMF
 * cannot deliver now (the UE lost its N2 connection meanwhile) ends the session locally: the UE
 * establishes it again (T3580) or learns it from its next PDU session status. */
void smf_upf_est_done(void *arg, uint32_t session_id, const struct upf_est_result *r)
{
	struct smf *smf = arg;
	struct smf_ev_ctx c = { .n4 = r };
	struct smf_sess *s;
	struct smf_out o;
	int rc;

	if (!smf || !r || session_id >= smf->sess_hwm)
		return;
	s = &smf->sess[session_id];
	if (!s->in_use || s->state != SMF_ST_N4_PENDING) {
		log_msg(LOGL_DEBUG, MOD, NULL, "N4 establishment answer for session %u, no longer waiting: ignored",
			session_id);
		return;
	}
	smf_out_init(&o, smf->scratch_n1, sizeof(smf->scratch_n1), smf->scratch_n2, sizeof(smf->scratch_n2));
	c.out = &o;
	rc = smf_fsm_dispatch(smf, s, r->status == UPF_EST_OK ? SMF_EV_N4_EST_OK : SMF_EV_N4_EST_FAIL, &c);
	if (rc < 0) {   /* the accept did not encode: nothing sent yet, the UE gets a reject */
		struct smf_ev_ctx l = { 0 };
		uint8_t psi = s->psi, pti = s->pti;

		smf_fsm_dispatch(smf, s, SMF_EV_LOCAL_REL, &l);
		smf_out_init(&o, smf->scratch_n1, sizeof(smf->scratch_n1), smf->scratch_n2, sizeof(smf->scratch_n2));
		if (smf_msg_est_reject(&o, psi, pti, NAS_5GSM_INSUFFICIENT_RESOURCES) < 0)
			return;
	}
	/* s may be free now (a reject): its ue index is still the one to send to */
	if (smf_send(smf, s, &o) < 0 && s->in_use && s->state == SMF_ST_ACTIVE_PENDING) {
		struct smf_ev_ctx l = { 0 };

		smf_slog(LOGL_INFO, smf, s, "accept not deliverable now: local release");
		smf_fsm_dispatch(smf, s, SMF_EV_LOCAL_REL, &l);
	}
}

/* ---- N2 ---- */

/* The gNB answered the Setup Request of an establishment (not a reactivation: those
 * run in ACTIVE). ok: TS 23.502 4.3.2.2.1 step 15 done, the setup latency observed. */
static void setup_outcome(struct smf *smf, const struct smf_sess *s, bool ok)
{
	uint64_t now = ev_now_ns(smf->p.loop), t0 = smf->setup_t0[s - smf->sess];

	if (!ok) {
		smf->st.est_failed++;
		return;
	}
	smf->st.est_completed++;
	hist_add(&smf->st.setup_latency, now > t0 ? now - t0 : 0);
}

int smf_n2_rx(struct smf *smf, struct smf_ue *ue, uint8_t psi, enum smf_n2_msg kind,
	      const uint8_t *transfer, size_t len, struct smf_out *out)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);
	union {
		struct ngap_setup_response_transfer rsp;
		struct ngap_setup_unsuccessful_transfer fail;
		struct ngap_release_response_transfer rel;
		struct ngap_modify_response_transfer mod;
		struct ngap_modify_indication_transfer ind;
	} t;
	struct smf_ev_ctx c = { .out = out, .n2 = &t };
	enum smf_event ev;
	uint8_t from;
	int rc;

	if (!out || out->n1_cap < SMF_N1_MAX || out->n2_cap < SMF_N2_MAX)
		return -ENOSPC;
	out->n1_len = out->n2_len = 0;
	out->n2_proc = SMF_N2_NONE;
	if (!s)
		return -ENOENT;
	switch (kind) {
	case SMF_N2_SETUP_RSP:
		rc = ngap_dec_setup_response_transfer(transfer, len, &t.rsp, NULL);
		ev = SMF_EV_N2_SETUP_OK;
		break;
	case SMF_N2_SETUP_FAIL:
		rc = ngap_dec_setup_unsuccessful_transfer(transfer, len, &t.fail, NULL);
		ev = SMF_EV_N2_SETUP_FAIL;
		break;
	case SMF_N2_RELEASE_RSP:
		rc = ngap_dec_release_response_transfer(transfer, len, &t.rel, NULL);
		ev = SMF_EV_N2_REL_RSP;
		break;
	case SMF_N2_MODIFY_RSP:
		rc = ngap_dec_modify_response_transfer(transfer, len, &t.mod, NULL);
		ev = SMF_EV_N2_MOD_RSP;
		break;
	case SMF_N2_MODIFY_FAIL:
		/* Modify Unsuccessful Transfer is not coded by common/ngap; its content
		 * (a cause) changes nothing here: the NAS side decides the outcome. */
		rc = 0;
		ev = SMF_EV_N2_MOD_RSP;
		break;
	case SMF_N2_MODIFY_IND:
		rc = ngap_dec_modify_indication_transfer(transfer, len, &t.ind, NULL);
		ev = SMF_EV_N2_MOD_IND;
		break;
	default:
		return -EINVAL;
	}
	if (rc < 0) {
		smf->st.n2_bad++;
		smf_slog(LOGL_INFO, smf, s, "undecodable N2 SM transfer (%d)", rc);
		return -EBADMSG;
	}
	from = s->state;
	rc = smf_fsm_dispatch(smf, s, ev, &c);
	if (from == SMF_ST_ACTIVE_PENDING && rc >= 0 && (kind == SMF_N2_SETUP_RSP || kind == SMF_N2_SETUP_FAIL))
		setup_outcome(smf, s, kind == SMF_N2_SETUP_RSP && s->state == SMF_ST_ACTIVE);
	if (rc == -EPROTO)
		smf->st.n2_unexpected++;
	else if (rc == -EBADMSG)
		smf->st.n2_bad++;
	return rc < 0 ? rc : 0;
}

/* ---- user plane ---- */

int smf_up_deactivate(struct smf *smf, struct smf_ue *ue)
{
	struct smf_ev_ctx c = { 0 };
	int n = 0;

	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		struct smf_sess *s = smf_sess_get(smf, ue, psi);
		if (!s)
			continue;
		bool had = s->up == SMF_UP_ACTIVE || s->up == SMF_UP_PENDING;
		if (smf_fsm_dispatch(smf, s, SMF_EV_UP_DEACT, &c) >= 0 && had)
			n++;
	}
	return n;
}

int smf_up_reactivate(struct smf *smf, struct smf_ue *ue, uint8_t psi, struct smf_out *out)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);
	struct smf_ev_ctx c = { .out = out };
	int rc;

	if (out->n1_cap < SMF_N1_MAX || out->n2_cap < SMF_N2_MAX)
		return -ENOSPC;
	out->n1_len = out->n2_len = 0;
	out->n2_proc = SMF_N2_NONE;
	if (!s)
		return -ENOENT;
	if (s->state != SMF_ST_ACTIVE)
		return -EBUSY;
	rc = smf_fsm_dispatch(smf, s, SMF_EV_UP_REACT, &c);
	return rc < 0 ? rc : 0;
}

/* ---- network-initiated ---- */

int smf_release(struct smf *smf, struct smf_ue *ue, uint8_t psi, uint8_t cause)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);
	struct smf_out o;
	struct smf_ev_ctx c = { .out = &o, .cause = cause };
	int rc;

	if (!s)
		return -ENOENT;
	if (s->state == SMF_ST_INACTIVE_PENDING)
		return -EBUSY;
	smf_out_init(&o, smf->scratch_n1, sizeof(smf->scratch_n1), smf->scratch_n2, sizeof(smf->scratch_n2));
	rc = smf_fsm_dispatch(smf, s, SMF_EV_NET_REL, &c);
	if (rc < 0)
		return rc;
	/* INACTIVE: an establishment still waiting for its N4 answer, rejected (smf_fsm.c) */
	if (smf_send(smf, s, &o) < 0 && rc != SMF_ST_INACTIVE) {
		/* TS 23.502 4.3.4.2: UE unreachable: release locally, the UE
		 * learns it from the PDU session status at its next contact. */
		struct smf_ev_ctx l = { 0 };
		smf_slog(LOGL_INFO, smf, s, "UE not reachable: local release");
		smf_fsm_dispatch(smf, s, SMF_EV_LOCAL_REL, &l);
	}
	return 0;
}

int smf_modify_ambr(struct smf *smf, struct smf_ue *ue, uint8_t psi, uint64_t ul_bps, uint64_t dl_bps)
{
	struct smf_sess *s = smf_sess_get(smf, ue, psi);
	struct smf_out o;
	struct smf_ev_ctx c = { .out = &o };
	int rc;

	if (!s)
		return -ENOENT;
	if (s->state != SMF_ST_ACTIVE)
		return -EBUSY;
	s->new_ambr_ul = ul_bps;
	s->new_ambr_dl = dl_bps;
	smf_out_init(&o, smf->scratch_n1, sizeof(smf->scratch_n1), smf->scratch_n2, sizeof(smf->scratch_n2));
	rc = smf_fsm_dispatch(smf, s, SMF_EV_NET_MOD, &c);
	if (rc < 0)
		return rc;
	rc = smf_send(smf, s, &o);
	if (rc < 0) {
		struct smf_ev_ctx l = { 0 };
		smf_fsm_dispatch(smf, s, SMF_EV_STATUS_ABORT, &l);
		return -EAGAIN;
	}
	return 0;
}

/* ---- observation ---- */

int smf_sess_info(const struct smf *smf, const struct smf_ue *ue, uint8_t psi, struct smf_sess_info *o)
{
	const struct smf_sess *s = smf_sess_get(smf, ue, psi);

	if (!s)
		return -ENOENT;
	memset(o, 0, sizeof(*o));
	o->state = s->state;
	o->up_active = s->up == SMF_UP_ACTIVE;
	o->session_id = (uint32_t)(s - smf->sess);
	o->ue_addr = s->ue_addr;
	memcpy(o->ue_prefix6, s->pfx6, 8);
	memcpy(o->ue_iid6, s->iid, 8);
	o->nat = s->nat;
	o->ul_teid = s->teid;
	o->gnb_addr = s->gnb_addr;
	memcpy(o->gnb_addr6, s->gnb_addr6, 16);
	o->gnb_teid = s->gnb_teid;
	o->pdu_type = s->pdu_type;
	o->five_qi = s->five_qi;
	o->arp = s->arp;
	o->qfi = SMF_QFI_DEFAULT;
	o->pti = s->pti;
	o->ambr_ul_bps = s->ambr_ul;
	o->ambr_dl_bps = s->ambr_dl;
	snprintf(o->dnn, sizeof(o->dnn), "%s", smf->dnns[s->dnn].name);
	o->snssai = s->snssai;
	o->retx = s->retx;
	o->ho_state = s->ho;
	o->ho_direct = s->ho_direct;
	if (s->ho == SMF_HO_ADMITTED) {
		o->ho_gnb_addr = s->ho_gnb_addr;
		o->ho_gnb_teid = s->ho_gnb_teid;
	}
	o->fwd_teid = s->ho_fwd ? UPF_FWD_TEID(o->session_id) : 0;
	return 0;
}

void smf_get_stats(const struct smf *smf, struct smf_stats *out)
{
	*out = smf->st;
}

static void view_fill(const struct smf *smf, const struct smf_sess *s, struct smf_sess_view *v)
{
	const struct smf_ue *ue = &smf->ues[s->ue];
	struct upf_session_stats st;
	uint32_t idx = (uint32_t)(s - smf->sess);

	smf_sess_info(smf, ue, s->psi, &v->info);
	v->supi = ue->supi;
	v->psi = s->psi;
	v->has_counters = false;
	v->ul_pkts = v->ul_bytes = v->dl_pkts = v->dl_bytes = 0;
	/* mmap'ed counters (upf.h): no system call */
	if (smf_sess_upf(smf, s) && s->upf_installed && upf_session_stats(smf_sess_upf(smf, s), idx, &st) == 0) {
		v->has_counters = true;
		v->ul_pkts = st.ul_pkts;
		v->ul_bytes = st.ul_bytes;
		v->dl_pkts = st.dl_pkts;
		v->dl_bytes = st.dl_bytes;
	}
}

int smf_sess_walk(const struct smf *smf, uint32_t *cursor, uint32_t budget, smf_sess_walk_fn fn, void *arg)
{
	struct smf_sess_view v;
	uint32_t i = cursor ? *cursor : 0;
	uint32_t end = smf->sess_hwm;
	int rc;

	if (cursor && budget && i < end && end - i > budget)
		end = i + budget;
	/* Slots at or above sess_hwm were never used. */
	for (; i < end; i++) {
		const struct smf_sess *s = &smf->sess[i];

		if (!s->in_use)
			continue;
		view_fill(smf, s, &v);
		rc = fn(&v, arg);
		if (rc) {
			if (cursor)
				*cursor = i + 1;
			return rc;
		}
	}
	if (cursor)
		*cursor = i < smf->sess_hwm ? i : SMF_WALK_END;
	return 0;
}

int smf_ue_sess_walk(const struct smf *smf, const struct smf_ue *ue, smf_sess_walk_fn fn, void *arg)
{
	struct smf_sess_view v;
	int rc;

	if (!ue || !ue->in_use)
		return 0;
	for (uint8_t psi = SMF_PSI_MIN; psi <= SMF_PSI_MAX; psi++) {
		const struct smf_sess *s = smf_sess_get(smf, ue, psi);

		if (!s)
			continue;
		view_fill(smf, s, &v);
		rc = fn(&v, arg);
		if (rc)
			return rc;
	}
	return 0;
}

int smf_upf_totals(const struct smf *smf, struct smf_upf_totals *out)
{
	struct upf_session_stats st;

	if (!smf->upf && !smf->n_upfs)
		return -ENODEV;
	*out = smf->retired;
	for (uint32_t i = 0; i < smf->sess_hwm; i++) {
		if (!smf->sess[i].in_use || !smf->sess[i].upf_installed ||
		    !smf_sess_upf(smf, &smf->sess[i]) || upf_session_stats(smf_sess_upf(smf, &smf->sess[i]), i, &st) < 0)
			continue;
		out->ul_pkts += st.ul_pkts;
		out->ul_bytes += st.ul_bytes;
		out->dl_pkts += st.dl_pkts;
		out->dl_bytes += st.dl_bytes;
	}
	return 0;
}

int smf_pool_usage(const struct smf *smf, const char *dnn, uint32_t *used, uint32_t *size)
{
	for (unsigned d = 0; d < smf->n_dnns && d < CONF_MAX_DNNS; d++) {
		if (!strcasecmp(smf->dnns[d].name, dnn)) {
			*used = smf->pools[d].used;
			*size = smf->pools[d].size > 2 ? smf->pools[d].size - 2 : 0;
			return 0;
		}
	}
	return -ENOENT;
}
