/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The messages the SMF sends: 5GSM (TS 24.501 8.3) into out->n1 and the SM
 * transfers (TS 38.413 9.3.4) into out->n2, through the common codecs.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "common/ngap/ngap.h"
#include "smf/smf_int.h"

/* TS 24.501 9.11.4.14: the finest unit that carries the rate exactly in 16 bits,
 * else the finest whose value (rounded up) fits. */
void smf_nas_ambr(uint64_t bps, uint8_t *unit, uint16_t *val)
{
	uint64_t kbps = (bps + 999) / 1000;

	if (!kbps)
		kbps = 1;
	for (uint8_t u = 1; u <= 25; u++) {
		uint64_t m = nas_ambr_kbps(u, 1);
		if (kbps % m == 0 && kbps / m <= 0xffff) {
			*unit = u;
			*val = (uint16_t)(kbps / m);
			return;
		}
	}
	for (uint8_t u = 1; u <= 25; u++) {
		uint64_t m = nas_ambr_kbps(u, 1);
		if ((kbps + m - 1) / m <= 0xffff) {
			*unit = u;
			*val = (uint16_t)((kbps + m - 1) / m);
			return;
		}
	}
	*unit = 25;
	*val = 0xffff;
}

static void nas_ambr_set(struct nas_session_ambr *a, uint64_t ul, uint64_t dl)
{
	smf_nas_ambr(ul, &a->ul_unit, &a->ul);
	smf_nas_ambr(dl, &a->dl_unit, &a->dl);
}

static int put_n1(struct smf_out *out, const struct nas_msg *m)
{
	int n = nas_encode(m, out->n1, out->n1_cap, NULL);

	if (n < 0)
		return n;
	out->n1_len = (size_t)n;
	out->psi = m->psi;
	return 0;
}

static int gsm_simple(struct smf_out *out, uint8_t type, uint8_t psi, uint8_t pti, uint8_t cause)
{
	struct nas_msg m;

	memset(&m, 0, offsetof(struct nas_msg, pdu_est_acc));
	m.type = type;
	m.psi = psi;
	m.pti = pti;
	switch (type) {
	case NAS_PDU_SESSION_ESTABLISHMENT_REJECT:
		memset(&m.pdu_est_rej, 0, sizeof(m.pdu_est_rej));
		m.pdu_est_rej.cause = cause;
		/* TS 24.501 6.4.1.4.1: #68 carries the SSC modes we allow (SSC mode 1 only). */
		if (cause == NAS_5GSM_NOT_SUPPORTED_SSC_MODE) {
			m.pdu_est_rej.has_allowed_ssc_mode = true;
			m.pdu_est_rej.allowed_ssc_mode = 0x1;
		}
		break;
	case NAS_PDU_SESSION_RELEASE_REJECT:
		memset(&m.pdu_rel_rej, 0, sizeof(m.pdu_rel_rej));
		m.pdu_rel_rej.cause = cause;
		break;
	case NAS_PDU_SESSION_MODIFICATION_REJECT:
		memset(&m.pdu_mod_rej, 0, sizeof(m.pdu_mod_rej));
		m.pdu_mod_rej.cause = cause;
		break;
	default:
		m.gsm_status.cause = cause;
		break;
	}
	return put_n1(out, &m);
}

int smf_msg_est_reject(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause)
{
	return gsm_simple(out, NAS_PDU_SESSION_ESTABLISHMENT_REJECT, psi, pti, cause);
}

int smf_msg_est_reject_backoff(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause, uint32_t backoff_s)
{
	struct nas_msg m;

	memset(&m, 0, offsetof(struct nas_msg, pdu_est_acc));
	memset(&m.pdu_est_rej, 0, sizeof(m.pdu_est_rej));
	m.type = NAS_PDU_SESSION_ESTABLISHMENT_REJECT;
	m.psi = psi;
	m.pti = pti;
	m.pdu_est_rej.cause = cause;
	m.pdu_est_rej.has_backoff_timer = true;
	m.pdu_est_rej.backoff_timer = nas_gprs_timer3_enc(backoff_s);
	return put_n1(out, &m);
}

int smf_msg_rel_reject(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause)
{
	return gsm_simple(out, NAS_PDU_SESSION_RELEASE_REJECT, psi, pti, cause);
}

int smf_msg_mod_reject(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause)
{
	return gsm_simple(out, NAS_PDU_SESSION_MODIFICATION_REJECT, psi, pti, cause);
}

int smf_msg_status(struct smf_out *out, uint8_t psi, uint8_t pti, uint8_t cause)
{
	return gsm_simple(out, NAS_5GSM_STATUS, psi, pti, cause);
}

/* What the accept answers of the request, kept in the session (s->est_flags) so that an accept
 * sent after the N4 answer (TS 23.502 4.3.2.2.1 step 11) needs no copy of the request. */
uint8_t smf_msg_est_flags(const struct nas_msg *req)
{
	const struct nas_pdu_session_establishment_request *r = &req->pdu_est_req;
	struct nas_pco in;
	struct nas_err err;
	uint8_t f = r->has_always_on_requested ? SMF_EST_ALWAYS_ON : 0;

	if (!r->has_epco || nas_pco_dec(r->epco.p, r->epco.len, &in, &err) < 0)
		return f;
	if (nas_pco_find(&in, NAS_PCO_DNS_IPV4))
		f |= SMF_EST_DNS4;
	if (nas_pco_find(&in, NAS_PCO_DNS_IPV6))
		f |= SMF_EST_DNS6;
	if (nas_pco_find(&in, NAS_PCO_IPV4_LINK_MTU))
		f |= SMF_EST_MTU;
	return f;
}

/* ePCO answer (TS 24.008 10.5.6.3): the DNS servers and the MTU, each only when asked. */
static int epco_answer(struct smf *smf, const struct smf_sess *s, uint8_t *buf, size_t cap)
{
	struct nas_pco outp = { .octet3 = 0x80 };
	uint8_t mtu[2];

	if (s->pdu_type != NAS_PDU_IPV6 && (s->est_flags & SMF_EST_DNS4))
		for (unsigned i = 0; i < smf->n_dns[s->dnn]; i++)
			nas_pco_add(&outp, NAS_PCO_DNS_IPV4, (const uint8_t *)&smf->dns[s->dnn][i], 4);
	/* 0003H, DNS Server IPv6 Address: for the sessions that have IPv6 */
	if (s->pdu_type != NAS_PDU_IPV4 && (s->est_flags & SMF_EST_DNS6))
		for (unsigned i = 0; i < smf->n_dns6[s->dnn]; i++)
			nas_pco_add(&outp, NAS_PCO_DNS_IPV6, smf->dns6[s->dnn][i], 16);
	if (s->est_flags & SMF_EST_MTU) {
		uint32_t v = smf->dnns[s->dnn].mtu;
		mtu[0] = (uint8_t)(v >> 8);
		mtu[1] = (uint8_t)v;
		nas_pco_add(&outp, NAS_PCO_IPV4_LINK_MTU, mtu, 2);
	}
	if (!outp.n)
		return 0;
	return nas_pco_enc(&outp, buf, cap);
}

static void to_nas_snssai(const struct ngap_snssai *in, struct nas_snssai *o)
{
	memset(o, 0, sizeof(*o));
	o->sst = in->sst;
	if (in->has_sd) {
		o->has_sd = 1;
		o->sd = (uint32_t)in->sd[0] << 16 | (uint32_t)in->sd[1] << 8 | in->sd[2];
	}
}

/* TS 24.501 8.3.2 with the default QoS rule (9.11.4.13: match-all packet filter)
 * and the default QoS flow description (9.11.4.12: 5QI). */
int smf_msg_est_accept(struct smf *smf, const struct smf_sess *s, struct smf_out *out)
{
	static const uint8_t match_all[] = { 0x01 };   /* packet filter component: match-all */
	struct nas_msg m;
	struct nas_pdu_session_establishment_accept *a = &m.pdu_est_acc;
	struct nas_qos_rules rules;
	struct nas_qos_flows flows;
	uint8_t rules_buf[32], flows_buf[16], epco_buf[160], dnn_buf[CONF_DNN_NAME + 2];
	uint8_t qi5 = s->five_qi;
	int n;

	memset(&m, 0, offsetof(struct nas_msg, pdu_est_acc) + sizeof(*a));
	m.type = NAS_PDU_SESSION_ESTABLISHMENT_ACCEPT;
	m.psi = s->psi;
	m.pti = s->pti;
	a->pdu_session_type = s->pdu_type;
	a->ssc_mode = NAS_SSC_MODE_1;

	memset(&rules, 0, sizeof(rules.n) + sizeof(rules.r[0]));
	rules.n = 1;
	rules.r[0].id = SMF_QOS_RULE_DEFAULT;
	rules.r[0].op = NAS_QOS_RULE_CREATE;
	rules.r[0].dqr = 1;
	rules.r[0].n_filters = 1;
	rules.r[0].f[0].dir = 3;
	rules.r[0].f[0].id = 1;
	rules.r[0].f[0].contents = (struct nas_buf){ match_all, sizeof(match_all) };
	rules.r[0].has_prec_qfi = 1;
	rules.r[0].precedence = 255;
	rules.r[0].qfi = SMF_QFI_DEFAULT;
	n = nas_qos_rules_enc(&rules, rules_buf, sizeof(rules_buf));
	if (n < 0)
		return n;
	a->qos_rules = (struct nas_buf){ rules_buf, (uint16_t)n };

	nas_ambr_set(&a->ambr, s->ambr_ul, s->ambr_dl);
	if (s->pdu_cause) {
		a->has_cause = true;
		a->cause = s->pdu_cause;
	}
	/* 9.11.4.10: IPv4 address, IPv6 interface identifier, or both */
	a->has_pdu_address = true;
	a->pdu_address.type = s->pdu_type;
	memcpy(a->pdu_address.ipv4, &s->ue_addr, 4);
	memcpy(a->pdu_address.ipv6_iid, s->iid, 8);
	a->has_snssai = true;
	to_nas_snssai(&s->snssai, &a->snssai);

	memset(&flows, 0, sizeof(flows.n) + sizeof(flows.f[0]));
	flows.n = 1;
	flows.f[0].qfi = SMF_QFI_DEFAULT;
	flows.f[0].op = 1;        /* create new QoS flow description */
	flows.f[0].e = 1;         /* parameters list included */
	flows.f[0].n = 1;
	flows.f[0].p[0] = (struct nas_qos_param){ NAS_QOS_P_5QI, { &qi5, 1 } };
	n = nas_qos_flows_enc(&flows, flows_buf, sizeof(flows_buf));
	if (n < 0)
		return n;
	a->has_qos_flows = true;
	a->qos_flows = (struct nas_buf){ flows_buf, (uint16_t)n };

	/* TS 24.501 6.4.1.3: a UE asking for an always-on session gets an answer;
	 * we have no URLLC flows, so: not allowed (9.11.4.3, APSI = 0). */
	if (s->est_flags & SMF_EST_ALWAYS_ON) {
		a->has_always_on = true;
		a->always_on = 0;
	}
	n = epco_answer(smf, s, epco_buf, sizeof(epco_buf));
	if (n < 0)
		return n;
	if (n > 0) {
		a->has_epco = true;
		a->epco = (struct nas_buf){ epco_buf, (uint16_t)n };
	}
	n = nas_dnn_enc(smf->dnns[s->dnn].name, dnn_buf, sizeof(dnn_buf));
	if (n < 0)
		return n;
	a->has_dnn = true;
	a->dnn = (struct nas_buf){ dnn_buf, (uint16_t)n };
	return put_n1(out, &m);
}

void smf_msg_tunnel(struct ngap_gtp_tunnel *t, uint32_t addr_n, const uint8_t *addr6, uint32_t teid)
{
	memset(t, 0, sizeof(*t));
	memcpy(t->addr, &addr_n, 4);
	t->addr_bits = 32;
	if (addr6) {
		memcpy(t->addr + 4, addr6, 16);
		t->addr_bits = 160;
	}
	t->teid[0] = (uint8_t)(teid >> 24);
	t->teid[1] = (uint8_t)(teid >> 16);
	t->teid[2] = (uint8_t)(teid >> 8);
	t->teid[3] = (uint8_t)teid;
}

static void flow_setup(const struct smf_sess *s, struct ngap_qos_flow_setup *f)
{
	memset(f, 0, sizeof(*f));
	f->qfi = SMF_QFI_DEFAULT;
	f->five_qi = s->five_qi;
	f->arp_priority = s->arp;
	f->arp_preempt_cap = 0;   /* shall-not-trigger-pre-emption */
	f->arp_preempt_vuln = 0;  /* not-pre-emptable */
}

static void out_common(const struct smf_sess *s, struct smf_out *out, uint8_t proc)
{
	out->n2_proc = proc;
	out->psi = s->psi;
	out->snssai = s->snssai;
	out->ambr_ul_bps = s->ambr_ul;
	out->ambr_dl_bps = s->ambr_dl;
}

/* TS 38.413 9.3.4.1 */
int smf_msg_setup_transfer(struct smf *smf, const struct smf_sess *s, struct smf_out *out)
{
	struct ngap_setup_request_transfer t;
	int n;

	memset(&t, 0, offsetof(struct ngap_setup_request_transfer, flows) + sizeof(t.flows[0]));
	t.has_session_ambr = true;
	t.session_ambr.ul = s->ambr_ul;
	t.session_ambr.dl = s->ambr_dl;
	smf_msg_tunnel(&t.ul_tunnel, smf_sess_n3(smf, s), smf_sess_n3_6(smf, s), s->teid);
	/* TS 38.413 9.3.1.52 */
	t.pdu_session_type = s->pdu_type == NAS_PDU_IPV6 ? NGAP_PDU_IPV6 :
			     s->pdu_type == NAS_PDU_IPV4V6 ? NGAP_PDU_IPV4V6 : NGAP_PDU_IPV4;
	t.n_flows = 1;
	flow_setup(s, &t.flows[0]);
	n = ngap_enc_setup_request_transfer(&t, out->n2, out->n2_cap);
	if (n < 0)
		return n;
	out->n2_len = (size_t)n;
	out_common(s, out, SMF_N2_SETUP);
	return 0;
}

/* TS 24.501 8.3.14 */
int smf_msg_rel_command(const struct smf_sess *s, uint8_t pti, struct smf_out *out)
{
	struct nas_msg m;

	memset(&m, 0, offsetof(struct nas_msg, pdu_rel_cmd) + sizeof(m.pdu_rel_cmd));
	m.type = NAS_PDU_SESSION_RELEASE_COMMAND;
	m.psi = s->psi;
	m.pti = pti;
	m.pdu_rel_cmd.cause = s->rel_cause;
	return put_n1(out, &m);
}

/* TS 38.413 9.3.4.12: NAS normal release for UE- and network-requested release alike. */
int smf_msg_rel_transfer(const struct smf_sess *s, struct smf_out *out)
{
	struct ngap_release_command_transfer t = {
		.cause = { .group = NGAP_CAUSE_NAS, .value = NGAP_CAUSE_NAS_NORMAL_RELEASE },
	};
	int n = ngap_enc_release_command_transfer(&t, out->n2, out->n2_cap);

	if (n < 0)
		return n;
	out->n2_len = (size_t)n;
	out_common(s, out, SMF_N2_RELEASE);
	return 0;
}

/* TS 24.501 8.3.9: network-requested with PTI 0 (6.3.2.2), or the answer to the UE's request
 * with its PTI (6.4.2.3). */
int smf_msg_mod_command(const struct smf_sess *s, struct smf_out *out)
{
	struct nas_msg m;

	memset(&m, 0, offsetof(struct nas_msg, pdu_mod_cmd) + sizeof(m.pdu_mod_cmd));
	m.type = NAS_PDU_SESSION_MODIFICATION_COMMAND;
	m.psi = s->psi;
	m.pti = s->pti;
	m.pdu_mod_cmd.has_ambr = true;
	nas_ambr_set(&m.pdu_mod_cmd.ambr, s->new_ambr_ul, s->new_ambr_dl);
	return put_n1(out, &m);
}

/* TS 38.413 9.3.4.3 */
int smf_msg_mod_transfer(const struct smf_sess *s, struct smf_out *out)
{
	struct ngap_modify_request_transfer t;
	int n;

	memset(&t, 0, sizeof(t));
	t.has_session_ambr = true;
	t.session_ambr.ul = s->new_ambr_ul;
	t.session_ambr.dl = s->new_ambr_dl;
	n = ngap_enc_modify_request_transfer(&t, out->n2, out->n2_cap);
	if (n < 0)
		return n;
	out->n2_len = (size_t)n;
	out_common(s, out, SMF_N2_MODIFY);
	out->ambr_ul_bps = s->new_ambr_ul;
	out->ambr_dl_bps = s->new_ambr_dl;
	return 0;
}

/* TS 38.413 9.3.4.7: the flows of the indication we hold (the default one) confirmed, the others
 * failed; our UL end unchanged. */
int smf_msg_mod_confirm(struct smf *smf, const struct smf_sess *s, const struct ngap_modify_indication_transfer *in,
			struct smf_out *out)
{
	struct ngap_modify_confirm_transfer t;
	int n;

	memset(&t, 0, sizeof(t));
	for (unsigned i = 0; i < in->n_flows && i < NGAP_MAX_QOS_FLOWS; i++) {
		if (in->qfis[i] == SMF_QFI_DEFAULT)
			t.qfis[t.n_flows++] = in->qfis[i];
		else
			t.failed[t.n_failed++] = (struct ngap_qos_flow_cause){
				in->qfis[i], { NGAP_CAUSE_RADIO_NETWORK, NGAP_CAUSE_RN_UNSPECIFIED } };
	}
	if (!t.n_flows) /* the list is mandatory: the session's flow */
		t.qfis[t.n_flows++] = SMF_QFI_DEFAULT;
	smf_msg_tunnel(&t.ul_tunnel, smf_sess_n3(smf, s), smf_sess_n3_6(smf, s), s->teid);
	n = ngap_enc_modify_confirm_transfer(&t, out->n2, out->n2_cap);
	if (n < 0)
		return n;
	out->n2_len = (size_t)n;
	out_common(s, out, SMF_N2_MODIFY_CONFIRM);
	return 0;
}

/* The indication is not taken (e.g. an IPv6-only address on our IPv4 N3). */
int smf_msg_mod_ind_fail(const struct smf_sess *s, struct smf_out *out)
{
	struct ngap_modify_indication_unsuccessful_transfer t = {
		.cause = { .group = NGAP_CAUSE_TRANSPORT, .value = 1 /* unspecified */ },
	};
	int n = ngap_enc_modify_indication_unsuccessful_transfer(&t, out->n2, out->n2_cap);

	if (n < 0)
		return n;
	out->n2_len = (size_t)n;
	out_common(s, out, SMF_N2_MODIFY_CONFIRM_FAILED);
	return 0;
}
