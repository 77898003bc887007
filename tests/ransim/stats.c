/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* ransim: counters, failure causes, per-procedure latency and the final report. */
#include <arpa/inet.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "rs_int.h"

static const char *const proc_names[RANSIM_P_COUNT] = {
	[RANSIM_P_NG_SETUP] = "ng_setup",
	[RANSIM_P_REGISTRATION] = "registration",
	[RANSIM_P_AUTH_REQ] = "request_to_auth_request",
	[RANSIM_P_AUTH] = "auth_response_to_smc",
	[RANSIM_P_SMC] = "smc_complete_to_accept",
	[RANSIM_P_CUC] = "configuration_update",
	[RANSIM_P_DEREGISTRATION] = "deregistration",
	[RANSIM_P_PDU_EST] = "pdu_session_establishment",
	[RANSIM_P_AN_RELEASE] = "an_release",
	[RANSIM_P_SERVICE] = "service_request",
	[RANSIM_P_PDU_REL] = "pdu_session_release",
	[RANSIM_P_CYCLE] = "cycle",
};

const char *ransim_proc_name(enum ransim_proc p)
{
	return p < RANSIM_P_COUNT ? proc_names[p] : "?";
}

uint64_t rs_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* NGAP-PDU (TS 38.413 9.4): CHOICE index in the top 3 bits of octet 0 (extension bit first),
 * procedureCode in octet 1. Counted before decoding so that every PDU on the wire counts. */
void rs_count_ngap(struct ransim *rs, int dir, const uint8_t *buf, size_t len)
{
	unsigned type, proc;

	if (len < 2)
		return;
	type = (buf[0] >> 5) & 3;
	proc = buf[1];
	if (type < 3 && proc < RS_NGAP_PROCS)
		rs->ngap_cnt[dir][type][proc]++;
}

void rs_cause_add(struct ransim *rs, const char *cause)
{
	unsigned i;

	for (i = 0; i < rs->n_causes; i++) {
		if (!strcmp(rs->causes[i].name, cause)) {
			rs->causes[i].n++;
			return;
		}
	}
	if (rs->n_causes == RS_MAX_CAUSES)
		i = RS_MAX_CAUSES - 1;  /* last slot collects the overflow */
	else
		i = rs->n_causes++;
	snprintf(rs->causes[i].name, sizeof(rs->causes[i].name), "%s", cause);
	rs->causes[i].n++;
}

void rs_proc_start(struct rs_ue *ue, enum ransim_proc p)
{
	ue->t0[p] = rs_now_ns();
	ue->rs->st.started[p]++;
}

void rs_proc_done(struct rs_ue *ue, enum ransim_proc p)
{
	if (!ue->t0[p])
		return;
	ue->rs->st.done[p]++;
	rs_lat_add(&ue->rs->lat[p], (uint32_t)((rs_now_ns() - ue->t0[p]) / 1000));
	ue->t0[p] = 0;
}

void rs_ue_finished(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;

	rs->finished++;
	if (rs->in_flight)
		rs->in_flight--;
	if (ue->fail[0]) {
		rs->st.ues_failed++;
		rs_cause_add(rs, ue->fail);
	} else {
		rs->st.ues_ok++;
	}
	rs_schedule(rs);
}

/* Not re-entered: a UE that fails inside rs_ue_start() finishes and asks for the next one
 * from within this loop; that request only sets `resched`, so the stack stays flat even
 * when every UE fails at once. */
void rs_schedule(struct ransim *rs)
{
	if (rs->in_schedule) {
		rs->resched = true;
		return;
	}
	rs->in_schedule = true;
	do {
		rs->resched = false;
		while (!rs->stopping && rs->in_flight < rs->cfg.concurrency) {
			struct rs_ue *ue;

			if (rs->next_ue == rs->cfg.n_ues) {
				/* next pass (load tests): from UE 0 again */
				if (rs->pass + 1 >= (rs->cfg.passes ? rs->cfg.passes : 1))
					break;
				rs->pass++;
				rs->next_ue = 0;
			}
			ue = &rs->ues[rs->next_ue];
			if (ue->started && !ue->finished)     /* its previous pass is still running */
				break;
			if (ue->runs > rs->pass) {           /* failed before start (its gNB is gone) */
				rs->next_ue++;
				continue;
			}
			if (ue->gnb->st != RS_GNB_READY)
				break;
			ue->finished = false;
			ue->fail[0] = '\0';
			rs->next_ue++;
			rs->in_flight++;
			rs_ue_start(ue);
		}
	} while (rs->resched);
	rs->in_schedule = false;
}

void ransim_get_stats(const struct ransim *rs, struct ransim_stats *out)
{
	*out = rs->st;
}

uint64_t ransim_failures(const struct ransim *rs, const char *cause)
{
	unsigned i;

	for (i = 0; i < rs->n_causes; i++)
		if (!strcmp(rs->causes[i].name, cause))
			return rs->causes[i].n;
	return 0;
}

uint64_t ransim_ngap_count(const struct ransim *rs, int dir, const char *name)
{
	unsigned t, p;
	uint64_t n = 0;

	if (dir < 0 || dir > 1)
		return 0;
	for (t = 0; t < 3; t++)
		for (p = 0; p < RS_NGAP_PROCS; p++)
			if (rs->ngap_cnt[dir][t][p] && !strcmp(ngap_msg_name((uint8_t)t, (uint8_t)p), name))
				n += rs->ngap_cnt[dir][t][p];
	return n;
}

static unsigned lat_idx(uint32_t v)
{
	unsigned e;

	if (v < RS_LAT_SUB)
		return v;
	e = 31u - (unsigned)__builtin_clz(v);          /* 5..31 */
	return (e - 4) * RS_LAT_SUB + ((v >> (e - 5)) & (RS_LAT_SUB - 1));
}

static uint32_t lat_upper(unsigned idx)
{
	unsigned g = idx / RS_LAT_SUB, sub = idx % RS_LAT_SUB;
	uint64_t lo;

	if (!g)
		return idx;
	lo = (uint64_t)(RS_LAT_SUB + sub) << (g - 1);
	lo += ((uint64_t)1 << (g - 1)) - 1;
	return lo > UINT32_MAX ? UINT32_MAX : (uint32_t)lo;
}

void rs_lat_add(struct rs_lat *l, uint32_t us)
{
	if (!l->n || us < l->min)
		l->min = us;
	if (us > l->max)
		l->max = us;
	l->n++;
	l->sum += us;
	l->b[lat_idx(us)]++;
}

uint32_t rs_lat_pct(const struct rs_lat *l, unsigned p)
{
	uint64_t want = (l->n * p + 99) / 100, seen = 0;
	unsigned i;

	for (i = 0; i < RS_LAT_BUCKETS; i++) {
		seen += l->b[i];
		if (seen >= want && seen)
			return lat_upper(i) < l->max ? lat_upper(i) : l->max;
	}
	return l->max;
}

int ransim_ue_qos(const struct ransim *rs, unsigned idx, struct ransim_ue_qos *out)
{
	if (idx >= rs->cfg.n_ues)
		return -ENOENT;
	*out = rs->ues[idx].qos;
	return 0;
}

void rs_qos_report(const struct ransim *rs, bool json, FILE *out)
{
	const struct ransim_stats *s = &rs->st;
	const char *fmt = json ? "\"%s\":%llu," : "%s %llu\n";
	const struct { const char *k; uint64_t v; } f[] = {
		{ "ue_ctx_mods", s->ue_ctx_mods }, { "ue_ambr_ul_last", s->ue_ambr_ul_last },
		{ "ue_ambr_dl_last", s->ue_ambr_dl_last }, { "pdu_mod_requests", s->pdu_mod_requests },
		{ "pdu_mod_commands", s->pdu_mod_commands }, { "pdu_mod_rejected", s->pdu_mod_rejected },
		{ "sess_ambr_ul_last", s->sess_ambr_ul_last }, { "sess_ambr_dl_last", s->sess_ambr_dl_last },
	};

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		fprintf(out, fmt, f[i].k, (unsigned long long)f[i].v);
}

void rs_ho_report(const struct ransim *rs, bool json, FILE *out)
{
	const struct ransim_stats *s = &rs->st;
	const char *fmt = json ? "\"%s\":%llu," : "%s %llu\n";
	const struct { const char *k; uint64_t v; } f[] = {
		{ "path_switch_sent", s->ps_sent }, { "path_switch_acked", s->ps_acked },
		{ "path_switch_failed", s->ps_failed }, { "path_switch_errors", s->ps_errors },
		{ "path_switch_ncc_last", s->ps_ncc_last }, { "path_switch_caps_corrected", s->ps_caps_corrected },
		{ "path_switch_released", s->ps_released }, { "xn_src_released", s->xn_src_released },
		{ "end_markers", s->end_markers }, { "end_markers_other", s->end_markers_other },
		{ "ul_after_ho", s->ul_after_ho }, { "dl_after_ho", s->dl_after_ho },
		{ "mob_reg_sent", s->mob_reg_sent }, { "mob_reg_accepted", s->mob_reg_accepted },
	};
	/* the N2 handover's (gnb_n2ho.c) */
	const struct { const char *k; uint64_t v; } n2[] = {
		{ "n2ho_required", s->n2ho_required }, { "n2ho_requests", s->n2ho_requests },
		{ "n2ho_request_acks", s->n2ho_request_acks }, { "n2ho_failures_sent", s->n2ho_failures_sent },
		{ "n2ho_commands", s->n2ho_commands }, { "n2ho_prep_failures", s->n2ho_prep_failures },
		{ "n2ho_prep_fail_cause", s->n2ho_prep_fail_cause }, { "n2ho_ul_status", s->n2ho_ul_status },
		{ "n2ho_dl_status", s->n2ho_dl_status }, { "n2ho_notify", s->n2ho_notify },
		{ "n2ho_src_released", s->n2ho_src_released }, { "n2ho_done", s->n2ho_done },
		{ "n2ho_cancels", s->n2ho_cancels }, { "n2ho_cancel_acks", s->n2ho_cancel_acks },
		{ "n2ho_tgt_released", s->n2ho_tgt_released }, { "n2ho_errors", s->n2ho_errors },
		{ "n2ho_unexpected", s->n2ho_unexpected }, { "n2ho_ncc_last", s->n2ho_ncc_last },
		{ "n2ho_fwd_direct", s->n2ho_fwd_direct }, { "n2ho_fwd_indirect", s->n2ho_fwd_indirect },
		{ "n2ho_fwd_none", s->n2ho_fwd_none }, { "n2ho_fwd_sent", s->n2ho_fwd_sent },
		{ "n2ho_fwd_em_sent", s->n2ho_fwd_em_sent }, { "n2ho_fwd_rx", s->n2ho_fwd_rx },
		{ "n2ho_fwd_em_rx", s->n2ho_fwd_em_rx }, { "n2ho_fwd_unknown", s->n2ho_fwd_unknown },
	};
	unsigned g;

	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		fprintf(out, fmt, f[i].k, (unsigned long long)f[i].v);
	if (rs->cfg.handover_mode != RANSIM_HO_XN || s->n2ho_required)
		for (size_t i = 0; i < sizeof(n2) / sizeof(n2[0]); i++)
			fprintf(out, fmt, n2[i].k, (unsigned long long)n2[i].v);
	if (json)
		fputs("\"gnb_n3\":[", out);
	/* the N3 address last (scripts read the counters by position), in its family */
	for (g = 0; g < rs->cfg.n_gnbs; g++) {
		struct rs_n3_addr a;
		char as[INET6_ADDRSTRLEN];

		rs_gnb_n3_addr(&rs->gnbs[g], &a);
		fprintf(out, json ? "%s{\"gnb\":%u,\"ul_packets\":%llu,\"dl_packets\":%llu,\"end_markers\":%llu,"
				    "\"n3_addr\":\"%s\"}"
				  : "%sgnb_n3 %u ul_packets %llu dl_packets %llu end_markers %llu n3_addr %s\n",
			json && g ? "," : "", g, (unsigned long long)rs->n3[g].ul_packets,
			(unsigned long long)rs->n3[g].dl_packets, (unsigned long long)rs->n3[g].end_markers,
			rs_n3_addr_str(&a, as, sizeof(as)));
	}
	if (json)
		fputs("],", out);
	if (json)
		return;
	/* one line per UE: where it is now, its DL TEID there, handovers and NCC (scripts
	 * compare them with the core's view of the session) */
	for (unsigned i = 0; i < rs->cfg.n_ues; i++) {
		const struct rs_ue *ue = &rs->ues[i];

		if (ue->handovers || ue->ho_pending || ue->n2.attempts)
			fprintf(out, "ue_ho %s gnb %u dl_teid %u handovers %u ncc %u pending %d end_marker_due %d mode %s "
				"n2ho %s n2ho_attempts %u\n", ue->sim->supi, ue->gnb->idx, rs_ue_dl_teid(ue), ue->handovers, ue->ncc,
				ue->ho_pending || ue->n2.st, ue->dl_old_gnb >= 0, rs_ho_mode_name(rs->cfg.handover_mode),
				rs_n2ho_state_name(ue->n2.st), ue->n2.attempts);
	}
}

/* One line per UE that the network sent a QoS change to (the others have none to show). */
static void ue_qos_lines(const struct ransim *rs, FILE *out)
{
	for (unsigned i = 0; i < rs->cfg.n_ues; i++) {
		const struct ransim_ue_qos *q = &rs->ues[i].qos;

		if (!q->ue_ctx_mods && !q->pdu_mods)
			continue;
		fprintf(out, "ue_qos %s ue_ctx_mods %u ue_ambr_ul %llu ue_ambr_dl %llu pdu_mods %u sess_ambr_ul %llu "
			"sess_ambr_dl %llu n2_ambr_ul %llu n2_ambr_dl %llu\n", rs->ues[i].sim->supi, q->ue_ctx_mods,
			(unsigned long long)q->ue_ambr_ul, (unsigned long long)q->ue_ambr_dl, q->pdu_mods,
			(unsigned long long)q->sess_ambr_ul, (unsigned long long)q->sess_ambr_dl,
			(unsigned long long)q->n2_ambr_ul, (unsigned long long)q->n2_ambr_dl);
	}
}

void ransim_report(const struct ransim *rs, FILE *out)
{
	const struct ransim_stats *s = &rs->st;
	static const char *const dir[2] = { "tx", "rx" };
	unsigned p, d, t, c;

	fprintf(out, "ues %u\n", rs->cfg.n_ues);
	fprintf(out, "ues_ok %llu\n", (unsigned long long)s->ues_ok);
	fprintf(out, "ues_failed %llu\n", (unsigned long long)s->ues_failed);
	fprintf(out, "ues_registered %llu\n", (unsigned long long)s->ues_registered);
	fprintf(out, "ngap_tx %llu\n", (unsigned long long)s->ngap_tx);
	fprintf(out, "ngap_rx %llu\n", (unsigned long long)s->ngap_rx);
	fprintf(out, "dl_mac_fail %llu\n", (unsigned long long)s->dl_mac_fail);
	fprintf(out, "auth_mac_fail %llu\n", (unsigned long long)s->auth_mac_fail);
	fprintf(out, "auth_sync_fail %llu\n", (unsigned long long)s->auth_sync_fail);
	fprintf(out, "identity_requests %llu\n", (unsigned long long)s->identity_requests);
	fprintf(out, "bad_mac_sent %llu\n", (unsigned long long)s->bad_mac_sent);
	fprintf(out, "assoc_drops %llu\n", (unsigned long long)s->assoc_drops);
	if (rs->cfg.restart_after_ms)
		fprintf(out, "gnb_restarts %llu\nrestart_ues %llu\nrestart_svc_ok %llu\n",
			(unsigned long long)s->gnb_restarts, (unsigned long long)s->restart_ues,
			(unsigned long long)s->restart_svc_ok);
	fprintf(out, "cuc_received %llu\n", (unsigned long long)s->cuc_received);
	fprintf(out, "stream_violations %llu\n", (unsigned long long)s->stream_violations);
	fprintf(out, "amf_cfg_updates %llu\n", (unsigned long long)s->amf_cfg_updates);
	if (rs->cfg.ps_guess)
		fprintf(out, "ps_guess_sent %llu\nps_guess_error_ind %llu\nps_guess_other %llu\nps_guess_ack %llu\n"
			"ps_guess_fail %llu\n", (unsigned long long)s->ps_guess_sent,
			(unsigned long long)s->ps_guess_error_ind, (unsigned long long)s->ps_guess_other,
			(unsigned long long)s->ps_guess_ack, (unsigned long long)s->ps_guess_fail);
	fprintf(out, "reregistrations %llu\n", (unsigned long long)s->reregistrations);
	fprintf(out, "pdu_established %llu\n", (unsigned long long)s->pdu_established);
	fprintf(out, "pdu_rejected %llu\n", (unsigned long long)s->pdu_rejected);
	fprintf(out, "service_accepts %llu\n", (unsigned long long)s->service_accepts);
	fprintf(out, "service_rejects %llu\n", (unsigned long long)s->service_rejects);
	fprintf(out, "pdu_released %llu\n", (unsigned long long)s->pdu_released);
	fprintf(out, "pdu_net_released %llu\n", (unsigned long long)s->pdu_net_released);
	fprintf(out, "pdu_net_released_39 %llu\n", (unsigned long long)s->pdu_net_released_39);
	fprintf(out, "pdu_local_released %llu\n", (unsigned long long)s->pdu_local_released);
	fprintf(out, "pdu_reestablished %llu\n", (unsigned long long)s->pdu_reestablished);
	fprintf(out, "pdu_type_narrowed %llu\n", (unsigned long long)s->pdu_type_narrowed);
	fprintf(out, "pdu_ipv6 %llu\n", (unsigned long long)s->pdu_ipv6);
	fprintf(out, "cycles %llu\n", (unsigned long long)s->cycles);
	rs_qos_report(rs, false, out);
	ue_qos_lines(rs, out);
	if (rs->cfg.handover_after_ms || s->ps_sent || s->n2ho_required)
		rs_ho_report(rs, false, out);
	rs_amf_report(rs, out);   /* the AMF set; nothing with one AMF */
	for (p = 0; p < RANSIM_P_COUNT; p++) {
		const struct rs_lat *l = &rs->lat[p];

		fprintf(out, "proc %s started %llu done %llu", proc_names[p],
			(unsigned long long)s->started[p], (unsigned long long)s->done[p]);
		if (l->n)
			fprintf(out, " mean_us %llu p50_us %u p90_us %u p99_us %u max_us %u",
				(unsigned long long)(l->sum / l->n), rs_lat_pct(l, 50), rs_lat_pct(l, 90),
				rs_lat_pct(l, 99), l->max);
		fputc('\n', out);
	}
	if (rs->adv)
		rs_adv_report(rs, out);
	for (c = 0; c < rs->n_causes; c++)
		fprintf(out, "failure %s %llu\n", rs->causes[c].name, (unsigned long long)rs->causes[c].n);
	for (d = 0; d < 2; d++)
		for (t = 0; t < 3; t++)
			for (p = 0; p < RS_NGAP_PROCS; p++)
				if (rs->ngap_cnt[d][t][p])
					fprintf(out, "ngap_%s %s %llu\n", dir[d], ngap_msg_name((uint8_t)t, (uint8_t)p),
						(unsigned long long)rs->ngap_cnt[d][t][p]);
}
