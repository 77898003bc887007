/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * solocore-load (issue 8 item 1): modes and reports on top of the ransim library.
 *  - cycle: the 27-message cycle of issue 6 per UE (QCore's method with --concurrency 1:
 *    time per cycle as seen by the tester, its own UE crypto included);
 *  - register: register the UEs and hold them (no deregistration);
 *  - sessions: register, establish one PDU session each and hold them;
 *  - handover: as sessions, then paced handovers between the gNBs (load_ho.c).
 * Message rates are NGAP PDUs counted on the SCTP associations in both directions.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <string.h>

#include "gtpu.h"
#include "load.h"
#include "rs_int.h"

static const char *const mode_names[] = { "cycle", "register", "sessions", "handover" };

int load_mode_apply(const char *name, enum load_mode *m, struct ransim_cfg *cfg)
{
	if (!strcmp(name, "cycle")) {
		*m = LOAD_CYCLE;
		cfg->cycle = true;
		cfg->dereg = RANSIM_DEREG_NORMAL;
	} else if (!strcmp(name, "register")) {
		*m = LOAD_REGISTER;
		cfg->dereg = RANSIM_DEREG_NONE;
	} else if (!strcmp(name, "sessions") || !strcmp(name, "handover")) {
		*m = name[0] == 's' ? LOAD_SESSIONS : LOAD_HANDOVER;
		cfg->session = true;
		cfg->dereg = RANSIM_DEREG_NONE;
	} else {
		return -EINVAL;
	}
	return 0;
}

/* UE runs completed by the mode's measure: cycles, registrations or sessions. */
static uint64_t completed(const struct ransim *rs, enum load_mode m)
{
	switch (m) {
	case LOAD_CYCLE: return rs->st.cycles;
	case LOAD_REGISTER: return rs->st.done[RANSIM_P_REGISTRATION];
	default: return rs->st.pdu_established;
	}
}

void load_progress(const struct ransim *rs, double elapsed_s, FILE *out)
{
	uint64_t msgs = rs->st.ngap_tx + rs->st.ngap_rx;

	fprintf(out, "\r%7.1fs  %llu NGAP PDUs  %.0f msg/s  %llu UE runs done  %llu errors  %u in flight   ",
		elapsed_s, (unsigned long long)msgs, elapsed_s > 0 ? (double)msgs / elapsed_s : 0.0,
		(unsigned long long)rs->finished, (unsigned long long)rs->st.ues_failed, rs->in_flight);
	if (rs->gtpu) {
		struct rs_gtpu_stats t;

		rs_gtpu_get_stats(rs->gtpu, &t);
		fprintf(out, "G-PDUs up %llu down %llu   ", (unsigned long long)t.ul_packets,
			(unsigned long long)t.dl_packets);
	}
	fflush(out);
}

/* N3 traffic (gtpu.h): "key value" lines, or JSON members each followed by a comma. The rate
 * is over the traffic's own time (first G-PDU to the end), not the mode's elapsed_s. */
static void gtpu_report(const struct ransim *rs, const struct rs_gtpu *g, bool json, FILE *out)
{
	struct rs_gtpu_stats t;
	const char *fmt = json ? "\"%s\":%llu," : "%s %llu\n";
	const struct { const char *k; const uint64_t *v; } f[] = {
		{ "ul_packets", &t.ul_packets }, { "ul_bytes", &t.ul_bytes }, { "ul_send_errors", &t.ul_send_errors },
		{ "ul_no_buffer", &t.ul_no_buffer }, { "dl_packets", &t.dl_packets }, { "dl_bytes", &t.dl_bytes },
		{ "dl_unknown_teid", &t.dl_unknown_teid }, { "dl_bad_inner", &t.dl_bad_inner },
		{ "dl_err_ind", &t.dl_err_ind }, { "dl_other", &t.dl_other }, { "err_ind_sent", &t.err_ind_sent },
		{ "rs_sent", &t.rs_sent }, { "ra_received", &t.ra_received }, { "ra_bad", &t.ra_bad },
		{ "ul6_packets", &t.ul6_packets }, { "dl6_packets", &t.dl6_packets },
	};

	char as[INET6_ADDRSTRLEN];

	rs_gtpu_get_stats(g, &t);
	/* the gNBs' N3 address in its family (TS 38.414 5.1: IPv4 or IPv6) */
	fprintf(out, json ? "\"gnb_n3_addr\":\"%s\"," : "gnb_n3_addr %s\n", rs_n3_addr_str(&rs->gnb_n3_addr, as, sizeof(as)));
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		fprintf(out, fmt, f[i].k, (unsigned long long)*f[i].v);
	fprintf(out, json ? "\"ul_seconds\":%.3f,\"ul_packets_per_s\":%.0f," : "ul_seconds %.3f\nul_packets_per_s %.0f\n",
		t.ul_seconds, t.ul_seconds > 0 ? (double)t.ul_packets / t.ul_seconds : 0.0);
}

void load_report(const struct ransim *rs, enum load_mode m, struct load_ho *ho, double elapsed_s, bool json,
		 FILE *out)
{
	const struct ransim_stats *s = &rs->st;
	uint64_t msgs = s->ngap_tx + s->ngap_rx, done = completed(rs, m);
	double rate = elapsed_s > 0 ? (double)msgs / elapsed_s : 0, dps = elapsed_s > 0 ? (double)done / elapsed_s : 0;
	double ms_per = done ? elapsed_s * 1000.0 / (double)done : 0;
	const struct rs_lat *cl = &rs->lat[RANSIM_P_CYCLE];
	unsigned p, c;

	if (!json) {
		fprintf(out, "mode %s\nues %u\ngnbs %u\nconcurrency %u\nelapsed_s %.3f\n", mode_names[m],
			rs->cfg.n_ues, rs->cfg.n_gnbs, rs->cfg.concurrency, elapsed_s);
		fprintf(out, "ngap_pdus %llu\nngap_tx %llu\nngap_rx %llu\nngap_pdus_per_s %.0f\n",
			(unsigned long long)msgs, (unsigned long long)s->ngap_tx, (unsigned long long)s->ngap_rx, rate);
		fprintf(out, "completed %llu\ncompleted_per_s %.1f\nms_per_completed %.3f\n",
			(unsigned long long)done, dps, ms_per);
		if (m == LOAD_CYCLE)
			fprintf(out, "cycles %llu\ncycles_per_s %.1f\ncycle_mean_ms %.3f\n",
				(unsigned long long)s->cycles, dps, cl->n ? (double)cl->sum / (double)cl->n / 1000.0 : 0);
		fprintf(out, "ue_runs_ok %llu\nue_runs_failed %llu\ndl_mac_fail %llu\n", (unsigned long long)s->ues_ok,
			(unsigned long long)s->ues_failed, (unsigned long long)s->dl_mac_fail);
		/* TS 24.501 6.3.3: releases the network asked for, and the #39 ones established again */
		fprintf(out, "pdu_net_released %llu\npdu_net_released_39 %llu\npdu_local_released %llu\n"
			"pdu_reestablished %llu\n", (unsigned long long)s->pdu_net_released,
			(unsigned long long)s->pdu_net_released_39, (unsigned long long)s->pdu_local_released,
			(unsigned long long)s->pdu_reestablished);
		if (rs->cfg.restart_after_ms)
			fprintf(out, "gnb_restarts %llu\nrestart_ues %llu\nrestart_svc_ok %llu\n",
				(unsigned long long)s->gnb_restarts, (unsigned long long)s->restart_ues,
				(unsigned long long)s->restart_svc_ok);
		if (rs->gtpu)
			gtpu_report(rs, rs->gtpu, false, out);
		if (rs->cfg.handover_after_ms || ho)
			rs_ho_report(rs, false, out);
		if (ho)
			load_ho_report(ho, false, out);
		rs_qos_report(rs, false, out);
		for (p = 0; p < RANSIM_P_COUNT; p++) {
			const struct rs_lat *l = &rs->lat[p];

			if (!l->n)
				continue;
			fprintf(out, "latency %s n %llu mean_us %llu p50_us %u p90_us %u p99_us %u max_us %u\n",
				ransim_proc_name((enum ransim_proc)p), (unsigned long long)l->n,
				(unsigned long long)(l->sum / l->n), rs_lat_pct(l, 50), rs_lat_pct(l, 90),
				rs_lat_pct(l, 99), l->max);
		}
		for (c = 0; c < rs->n_causes; c++)
			fprintf(out, "error %s %llu\n", rs->causes[c].name, (unsigned long long)rs->causes[c].n);
		return;
	}
	fprintf(out, "{\"mode\":\"%s\",\"ues\":%u,\"gnbs\":%u,\"concurrency\":%u,\"elapsed_s\":%.3f,", mode_names[m],
		rs->cfg.n_ues, rs->cfg.n_gnbs, rs->cfg.concurrency, elapsed_s);
	fprintf(out, "\"ngap_pdus\":%llu,\"ngap_tx\":%llu,\"ngap_rx\":%llu,\"ngap_pdus_per_s\":%.0f,",
		(unsigned long long)msgs, (unsigned long long)s->ngap_tx, (unsigned long long)s->ngap_rx, rate);
	fprintf(out, "\"completed\":%llu,\"completed_per_s\":%.1f,\"ms_per_completed\":%.3f,", (unsigned long long)done,
		dps, ms_per);
	if (m == LOAD_CYCLE)
		fprintf(out, "\"cycles\":%llu,\"cycles_per_s\":%.1f,\"cycle_mean_ms\":%.3f,", (unsigned long long)s->cycles,
			dps, cl->n ? (double)cl->sum / (double)cl->n / 1000.0 : 0);
	if (rs->gtpu)
		gtpu_report(rs, rs->gtpu, true, out);
	if (rs->cfg.handover_after_ms || ho)
		rs_ho_report(rs, true, out);
	if (ho)
		load_ho_report(ho, true, out);
	rs_qos_report(rs, true, out);
	fprintf(out, "\"ue_runs_ok\":%llu,\"ue_runs_failed\":%llu,\"dl_mac_fail\":%llu,\"latency_us\":{",
		(unsigned long long)s->ues_ok, (unsigned long long)s->ues_failed, (unsigned long long)s->dl_mac_fail);
	for (p = 0, c = 0; p < RANSIM_P_COUNT; p++) {
		const struct rs_lat *l = &rs->lat[p];

		if (!l->n)
			continue;
		fprintf(out, "%s\"%s\":{\"n\":%llu,\"mean\":%llu,\"p50\":%u,\"p90\":%u,\"p99\":%u,\"max\":%u}", c++ ? "," : "",
			ransim_proc_name((enum ransim_proc)p), (unsigned long long)l->n,
			(unsigned long long)(l->sum / l->n), rs_lat_pct(l, 50), rs_lat_pct(l, 90), rs_lat_pct(l, 99),
			l->max);
	}
	fputs("},\"errors\":{", out);
	/* cause names are [a-z0-9_] (rs_ue_fail callers): no JSON escaping needed */
	for (c = 0; c < rs->n_causes; c++)
		fprintf(out, "%s\"%s\":%llu", c ? "," : "", rs->causes[c].name, (unsigned long long)rs->causes[c].n);
	fputs("}}\n", out);
}
