/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * ransim gNB: the AMF set (issue 20 item 4). Each gNB has an NG-C association and an NG
 * Setup with every AMF of the set (gnb.c); here what it keeps of each NG SETUP RESPONSE
 * (Served GUAMI List, Relative AMF Capacity: TS 38.413 9.2.6.2), the choice of the AMF at
 * each new UE-associated logical NG connection (TS 38.300 4.2, TS 23.501 6.3.5, 5.21.2;
 * amf_sel.c) with the 5G-S-TMSI in the INITIAL UE MESSAGE (TS 38.413 9.2.5.1), and the gNB's
 * side of an AMF failure: once the RAN node detects it, it drops the UE-TNLA bindings of every
 * UE that AMF served (TS 23.502 4.2.7.2, TS 23.501 5.21.2.1): each of those UEs is released
 * locally (no NGAP: the peer is gone) and goes on through another AMF (ue_fo.c). Nothing
 * allocated.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "rs_int.h"

void rs_gnb_amf_setup(struct rs_n2 *l, const struct ngap_ng_setup_response *r)
{
	struct rs_amf_entry *e = &l->g->sel.e[l->ai];
	unsigned i;

	l->g->rs->amf_st[l->ai].ng_setups++;
	e->capacity = r->relative_capacity;
	e->n_guamis = 0;
	for (i = 0; i < r->n_guamis && i < NGAP_MAX_GUAMIS; i++)
		e->guamis[e->n_guamis++] = r->guamis[i].guami;
	/* TS 38.413 9.2.6.2: the Served GUAMI List is mandatory; without one the AMF can
	 * still take UEs by capacity but never one by its GUAMI */
	if (!e->n_guamis)
		rs_cause_add(l->g->rs, "ng_setup_no_guami");
	e->ready = true;
}

bool rs_gnb_pick_amf(struct rs_gnb *g, struct rs_ue *ue, struct ngap_5g_s_tmsi *t)
{
	struct ransim *rs = g->rs;
	struct ngap_guami gu;
	bool tmsi = ue->rrc_has_guti;
	enum rs_amf_how how;
	int k;

	ue->rrc_has_guti = false;
	ue->amf = 0;   /* one AMF: nothing to choose */
	if (rs->n_amfs > 1) {
		if (tmsi) {
			/* the GUAMI the UE gave in RRC (TS 38.331 registeredAMF / ng-5G-S-TMSI) */
			memset(&gu, 0, sizeof(gu));
			nas_plmn_enc(&ue->rrc_guti.plmn, gu.plmn.v);
			gu.region = ue->rrc_guti.amf_region_id;
			gu.set_id = ue->rrc_guti.amf_set_id;
			gu.pointer = ue->rrc_guti.amf_pointer;
		}
		k = rs_amf_select(&g->sel, tmsi ? &gu : NULL, &how);
		if (k < 0) {
			rs_cause_add(rs, "no_amf");
			return false;   /* the send fails: no association is up */
		}
		ue->amf = (uint8_t)k;
		rs->amf_st[k].assigned[how]++;
	}
	if (!tmsi)
		return false;
	/* TS 38.413 9.2.5.1, 9.3.3.20: a gNB includes the 5G-S-TMSI it got in RRC (AMF Set ID,
	 * AMF Pointer, 5G-TMSI), whether or not it had an AMF to choose */
	t->set_id = ue->rrc_guti.amf_set_id;
	t->pointer = ue->rrc_guti.amf_pointer;
	t->tmsi[0] = (uint8_t)(ue->rrc_guti.tmsi >> 24);
	t->tmsi[1] = (uint8_t)(ue->rrc_guti.tmsi >> 16);
	t->tmsi[2] = (uint8_t)(ue->rrc_guti.tmsi >> 8);
	t->tmsi[3] = (uint8_t)ue->rrc_guti.tmsi;
	return true;
}

/* After the lost association's callback (never act inside it): every UE it served goes on. */
static void lost_cb(void *arg)
{
	struct rs_n2 *l = arg;
	struct ransim *rs = l->g->rs;
	unsigned i;

	for (i = 0; i < rs->cfg.n_ues; i++) {
		struct rs_ue *ue = &rs->ues[i];

		if (ue->fo_lost_on == l && ue->fo_t_lost) {
			ue->fo_lost_on = NULL;
			rs_ue_fo_start(ue);
		}
	}
}

void rs_gnb_amf_lost(struct rs_n2 *l)
{
	struct rs_gnb *g = l->g;
	struct ransim *rs = g->rs;
	uint64_t now = rs_now_ns();
	unsigned i, n = 0;

	for (i = 0; i < rs->cfg.n_ues; i++) {
		struct rs_ue *ue = &rs->ues[i];

		if (ue->gnb != g || ue->amf != l->ai || !ue->started || ue->st == RS_UE_NULL || ue->st == RS_UE_DONE)
			continue;
		/* a CM-IDLE UE has no connection to lose: it finds out when it next connects */
		if (ue->cm_idle || ue->restart_idle)
			continue;
		/* the UE-associated logical NG connection is gone with the TNL association */
		ue->has_amf_id = false;
		ue->n3_ul_teid = 0;        /* and with it the user plane */
		ue->fo_t_lost = now;
		ue->fo_lost_on = l;
		ev_timer_stop(rs->loop, &ue->guard);
		rs->amf_st[l->ai].lost++;
		if (!rs->fo_t_first) {
			struct timespec ts;

			rs->fo_t_first = now;
			clock_gettime(CLOCK_REALTIME, &ts);
			rs->fo_wall_ms = (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
		}
		n++;
	}
	log_msg(LOGL_INFO, "ransim", "gnb", "gnb=%u AMF %u (%s) lost: %u UE contexts released locally", g->idx,
		l->ai, rs->amfs[l->ai].addr, n);
	if (n)
		ev_defer(rs->loop, lost_cb, l);
}

void rs_amf_fo_registered(struct rs_ue *ue)
{
	struct ransim *rs = ue->rs;
	uint64_t now = rs_now_ns();

	rs->fo_back++;
	rs->amf_st[ue->amf].fo_reg++;
	rs->fo_t_last = now;
	rs_lat_add(&rs->fo_lat, (uint32_t)((now - ue->fo_t_lost) / 1000));
}

int ransim_amf_stats(const struct ransim *rs, unsigned ai, struct ransim_amf_stats *out)
{
	const struct rs_amf_st *a;

	if (ai >= rs->n_amfs)
		return -ENOENT;
	a = &rs->amf_st[ai];
	memset(out, 0, sizeof(*out));
	out->ready = rs->gnbs[0].sel.e[ai].ready;
	out->capacity = rs->gnbs[0].sel.e[ai].capacity;
	out->ng_setups = a->ng_setups;
	out->by_guami = a->assigned[RS_SEL_GUAMI];
	out->by_set = a->assigned[RS_SEL_SET];
	out->by_capacity = a->assigned[RS_SEL_CAPACITY];
	out->by_any = a->assigned[RS_SEL_ANY];
	out->assigned = out->by_guami + out->by_set + out->by_capacity + out->by_any;
	out->lost = a->lost;
	out->fo_reg = a->fo_reg;
	return 0;
}

void ransim_failover(const struct ransim *rs, struct ransim_failover *out)
{
	memset(out, 0, sizeof(*out));
	out->lost = rs->fo_lost;
	out->back = rs->fo_back;
	out->sess_back = rs->fo_sess_back;
	if (rs->fo_t_first && rs->fo_t_last > rs->fo_t_first)
		out->time_us = (rs->fo_t_last - rs->fo_t_first) / 1000;
	if (rs->fo_lat.n) {
		out->p50_us = rs_lat_pct(&rs->fo_lat, 50);
		out->p99_us = rs_lat_pct(&rs->fo_lat, 99);
		out->max_us = rs->fo_lat.max;
	}
}

void rs_amf_report(const struct ransim *rs, FILE *out)
{
	struct ransim_amf_stats a;
	struct ransim_failover f;
	unsigned i, j;

	if (rs->n_amfs == 1)
		return;   /* one AMF: the report as before */
	for (i = 0; i < rs->n_amfs; i++) {
		const struct rs_amf_entry *e = &rs->gnbs[0].sel.e[i];

		ransim_amf_stats(rs, i, &a);
		fprintf(out, "amf %u addr %s:%u ready %u capacity %u guamis", i, rs->amfs[i].addr, rs->amfs[i].port,
			a.ready, a.capacity);
		for (j = 0; j < e->n_guamis; j++)
			fprintf(out, " %02x%02x%02x-%02x-%03x-%02x", e->guamis[j].plmn.v[0], e->guamis[j].plmn.v[1],
				e->guamis[j].plmn.v[2], e->guamis[j].region, e->guamis[j].set_id, e->guamis[j].pointer);
		if (!e->n_guamis)
			fprintf(out, " -");
		fprintf(out, " ng_setups %llu assigned %llu by_guami %llu by_set %llu by_capacity %llu by_any %llu"
			" lost %llu fo_reg %llu\n", (unsigned long long)a.ng_setups, (unsigned long long)a.assigned,
			(unsigned long long)a.by_guami, (unsigned long long)a.by_set,
			(unsigned long long)a.by_capacity, (unsigned long long)a.by_any, (unsigned long long)a.lost,
			(unsigned long long)a.fo_reg);
	}
	ransim_failover(rs, &f);
	fprintf(out, "failover_lost %llu\nfailover_reregistered %llu\nfailover_sessions %llu\nfailover_fresh %llu\n",
		(unsigned long long)f.lost, (unsigned long long)f.back, (unsigned long long)f.sess_back,
		(unsigned long long)rs->fo_fresh);
	fprintf(out, "failover_detected_unix_ms %llu\n", (unsigned long long)rs->fo_wall_ms);
	fprintf(out, "failover_time_ms %.1f\nfailover_ue_p50_ms %.1f\nfailover_ue_p99_ms %.1f\nfailover_ue_max_ms %.1f\n",
		f.time_us / 1000.0, f.p50_us / 1000.0, f.p99_us / 1000.0, f.max_us / 1000.0);
}
