/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Usage reporting (TS 29.244 5.2.2, 7.5.2.4, 7.5.4.4, 7.5.4.9, 7.5.4.10, 7.5.8.3).
 *
 * A URR measures the PDRs that carry it from the data path's per-session counters (upf.h
 * upf_session_stats: forwarded inner IP bytes and packets per direction); the program counts
 * per packet, user space never sees a packet. Measurement methods VOLUM and DURAT (8.2.40).
 * A measurement runs from its Start Time to the report that ends it; the next one starts
 * there (5.2.2.3.1: the volume of a report is what was measured since the previous one).
 *
 * Reports: Query URR and QAURR in a modification (IMMER, in its response), Remove URR (TERMR,
 * in its response), deletion (TERMR); and, from the N4 tick (upf_n4_tick: every T1 / 4), a
 * sweep over the sessions with a Volume Threshold (VOLTH, 8.2.13), Time Threshold (TIMTH,
 * 8.2.14) or Measurement Period (PERIO, 8.2.18) only (a list through their slots), at most
 * N4_URR_SWEEP of them per tick, that reads their counters and sends the reports due in a
 * Session Report Request (USAR) to the session's CP, retransmitted per 6.4 (upf_n4_sess.c).
 * A round over W such sessions takes ceil(W / 65536) ticks: a threshold or period is reported
 * at the first sweep of the session after it passed, with the volume measured then.
 *
 * Quotas (5.2.2.2; Volume Quota 8.2.50, Time Quota 8.2.51): counted from when the quota was
 * provisioned; the sweep that finds one reached sets UPF_RULE_DROP on the data path rules of
 * the PDRs carrying the URR (upf.h ul_drop / dl_drop: the same drop as a FAR DROP, 8.2.26) and
 * reports VOLQU / TIMQU (8.2.41) when the Reporting Triggers ask for it (8.2.19). An Update URR
 * with a new quota (or a zero one: no quota) lifts the drop. What passes beyond the quota is
 * at most what the PDRs carry between two sweeps of the session (upf/README.md). The Time
 * Quota is wall time since it was provisioned (as DURAT here); no Quota Holding Time.
 * Not done: EVENT measurement, Linked URRs, Inactivity Detection Time, Quota Holding Time.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "upf/upf_n4_int.h"

static int urr_refuse(struct n4_sess *s, uint16_t ie, uint32_t id, uint16_t *off, const char *why)
{
	log_rl(LOGL_WARN, N4_MOD, NULL, "URR %u not supported (cause 73, offending %s): %s", id,
	       pfcp_ie_name(ie), why);
	if (s)
		n4_fail_rule(s, PFCP_RULE_URR, id);
	*off = ie;
	return PFCP_CAUSE_RULE_FAILURE;
}

/* NTP seconds (8.2.83 / 8.2.84) of a CLOCK_MONOTONIC instant: the wall clock read once */
static uint32_t ntp_at(struct upf_n4 *n, uint64_t now_ns)
{
	if (!n->ntp0) {
		n->ntp0 = (uint32_t)(time(NULL) + NTP_UNIX_OFFSET);
		n->mono0_ns = now_ns;
	}
	return n->ntp0 + (uint32_t)(((int64_t)now_ns - (int64_t)n->mono0_ns) / 1000000000);
}

int n4_urr_take(struct upf_n4 *n, const struct pfcp_urr *c, struct n4_urr *u, bool create, uint16_t *off)
{
	uint16_t ie = create ? PFCP_IE_CREATE_URR : PFCP_IE_UPDATE_URR;

	(void)n;
	if ((c->has & PFCP_URR_METHOD) && (!c->method || (c->method & PFCP_MM_EVENT)))
		return urr_refuse(NULL, ie, c->urr_id, off,
				  "only volume and duration measurement (8.2.40)");
	if ((c->has & PFCP_URR_TRIGGERS) &&
	    (c->triggers & ~(uint32_t)(PFCP_RT_PERIO | PFCP_RT_VOLTH | PFCP_RT_TIMTH | PFCP_RT_VOLQU |
				      PFCP_RT_TIMQU | PFCP_RT_LIUSA)))
		return urr_refuse(NULL, ie, c->urr_id, off,
				  "a reporting trigger other than PERIO / VOLTH / TIMTH");
	if ((c->has & PFCP_URR_PERIOD) && !c->period)
		return urr_refuse(NULL, ie, c->urr_id, off, "Measurement Period 0");
	if (c->has & PFCP_URR_METHOD)
		u->method = c->method;
	if (c->has & PFCP_URR_TRIGGERS)
		u->triggers = c->triggers;
	if (c->has & PFCP_URR_PERIOD) {
		u->period_s = c->period;
		/* 5.2.2.2.1: a new period restarts the periodic reports from now */
		u->next_perio = 0;
	}
	if (c->has & PFCP_URR_TIME_THRESH)
		u->time_thresh_s = c->time_thresh;
	if (c->has & PFCP_URR_VOL_THRESH) {
		u->thresh_flags = c->vol_thresh.flags & (PFCP_VOL_TOVOL | PFCP_VOL_ULVOL | PFCP_VOL_DLVOL);
		u->thresh[0] = c->vol_thresh.total;
		u->thresh[1] = c->vol_thresh.ul;
		u->thresh[2] = c->vol_thresh.dl;
	}
	/* 5.2.2.2: a quota provisioned (again) is counted from now (n4_urr_mod_reports /
	 * n4_urr_start set qbase) and lifts the drop of an exhausted one; 0 (or no flag): none */
	if (c->has & PFCP_URR_VOL_QUOTA) {
		u->quota_flags = c->vol_quota.flags & (PFCP_VOL_TOVOL | PFCP_VOL_ULVOL | PFCP_VOL_DLVOL);
		u->quota[0] = c->vol_quota.total;
		u->quota[1] = c->vol_quota.ul;
		u->quota[2] = c->vol_quota.dl;
	}
	if (c->has & PFCP_URR_TIME_QUOTA)
		u->time_quota_s = c->time_quota;
	if (c->has & (PFCP_URR_VOL_QUOTA | PFCP_URR_TIME_QUOTA)) {
		u->quota_hit = false;
		u->quota_new = true;
	}
	return 0;
}

/* 5.2.2.2: the directions that drop because a URR carried there reached its quota */
void n4_urr_quota_sync(struct n4_sess *s)
{
	uint8_t d = 0;

	for (unsigned i = 0; i < s->n_urr; i++)
		if (s->urrs[i].quota_hit)
			d |= s->urrs[i].pdrs;
	s->quota_drop = d;
	n4_drop_sync(s);
}

static int stats(struct upf_n4 *n, uint32_t id, struct upf_session_stats *st)
{
	memset(st, 0, sizeof(*st));
	return n->p.upf ? upf_session_stats(n->p.upf, id, st) : 0;
}

static void cur_of(const struct upf_session_stats *st, uint64_t c[N4_B__MAX])
{
	c[N4_B_ULB] = st->ul_bytes;
	c[N4_B_DLB] = st->dl_bytes;
	c[N4_B_ULP] = st->ul_pkts;
	c[N4_B_DLP] = st->dl_pkts;
}

static void measure_start(struct upf_n4 *n, struct n4_urr *u, const uint64_t c[N4_B__MAX], uint64_t now_ns)
{
	memcpy(u->base, c, sizeof(u->base));
	u->start_ntp = ntp_at(n, now_ns);
	if (u->quota_new) {   /* the quota counts from here */
		u->quota_new = false;
		u->qbase[0] = c[N4_B_ULB];
		u->qbase[1] = c[N4_B_DLB];
		u->qstart_ntp = u->start_ntp;
	}
	if (u->period_s && (u->triggers & PFCP_RT_PERIO) && !u->next_perio)
		u->next_perio = u->start_ntp + u->period_s;
}

void n4_urr_start(struct upf_n4 *n, struct n4_sess *s, uint32_t id)
{
	struct upf_session_stats st;
	uint64_t c[N4_B__MAX], now = n4_now_ns(n);

	if (!s->n_urr || stats(n, id, &st) < 0)
		memset(&st, 0, sizeof(st));
	cur_of(&st, c);
	for (unsigned i = 0; i < s->n_urr; i++)
		measure_start(n, &s->urrs[i], c, now);
}

/* The measurement of u since its start (the PDRs that carry it), as a Usage Report (8.2.41
 * trigger, 8.2.83 / 8.2.84 Start / End Time, 8.2.44 Volume Measurement, 8.2.45 Duration
 * Measurement, 8.2.54 UR-SEQN); the next measurement starts now */
static void report_fill(struct upf_n4 *n, struct n4_urr *u, uint32_t trigger,
			const uint64_t c[N4_B__MAX], uint64_t now_ns, struct pfcp_usage_report *r)
{
	bool ul = u->pdrs & N4_UL, dl = u->pdrs & N4_DL;

	memset(r, 0, sizeof(*r));
	r->has = PFCP_UR_URR_ID | PFCP_UR_SEQN | PFCP_UR_TRIGGER | PFCP_UR_START | PFCP_UR_END;
	r->urr_id = u->id;
	r->seqn = u->seqn++;   /* 8.2.54: the order of the reports of this URR */
	r->trigger = trigger;
	r->start = u->start_ntp;
	r->end = ntp_at(n, now_ns);
	if (!u->method || (u->method & PFCP_MM_VOLUM)) {
		r->has |= PFCP_UR_VOLUME;
		r->volume.flags = PFCP_VOL_TOVOL | PFCP_VOL_ULVOL | PFCP_VOL_DLVOL | PFCP_VOL_TONOP |
				  PFCP_VOL_ULNOP | PFCP_VOL_DLNOP;
		r->volume.ul = ul ? c[N4_B_ULB] - u->base[N4_B_ULB] : 0;
		r->volume.dl = dl ? c[N4_B_DLB] - u->base[N4_B_DLB] : 0;
		r->volume.total = r->volume.ul + r->volume.dl;
		r->volume.ul_pkts = ul ? c[N4_B_ULP] - u->base[N4_B_ULP] : 0;
		r->volume.dl_pkts = dl ? c[N4_B_DLP] - u->base[N4_B_DLP] : 0;
		r->volume.total_pkts = r->volume.ul_pkts + r->volume.dl_pkts;
	}
	if (u->method & PFCP_MM_DURAT) {
		r->has |= PFCP_UR_DURATION;
		r->duration = r->end - u->start_ntp;
	}
	measure_start(n, u, c, now_ns);
}

static void rsp_report(struct upf_n4 *n, struct n4_urr *u, uint32_t trigger,
		       const uint64_t c[N4_B__MAX], uint64_t now_ns)
{
	struct pfcp_sess_rsp *r = &n->out.rsp;

	if (r->n_usage >= PFCP_USAGE_MAX)
		return;
	report_fill(n, u, trigger, c, now_ns, &r->usage[r->n_usage++]);
	r->has |= PFCP_SRSP_USAGE;
}

void n4_urr_final(struct upf_n4 *n, struct n4_sess *s, uint32_t id)
{
	struct upf_session_stats st;
	uint64_t c[N4_B__MAX], now = n4_now_ns(n);

	if (!s->n_urr || stats(n, id, &st) < 0)
		return;
	cur_of(&st, c);
	for (unsigned i = 0; i < s->n_urr; i++)
		rsp_report(n, &s->urrs[i], PFCP_URT_TERMR, c, now);
}

void n4_urr_rebase(struct n4_sess *s, const struct upf_session_stats *before, const struct upf_session_stats *after)
{
	uint64_t b[N4_B__MAX], a[N4_B__MAX];

	cur_of(before, b);
	cur_of(after, a);
	for (unsigned i = 0; i < s->n_urr; i++) {
		for (unsigned k = 0; k < N4_B__MAX; k++)   /* modulo 2^64: what was measured stays */
			s->urrs[i].base[k] = s->urrs[i].base[k] - b[k] + a[k];
		s->urrs[i].qbase[0] = s->urrs[i].qbase[0] - b[N4_B_ULB] + a[N4_B_ULB];
		s->urrs[i].qbase[1] = s->urrs[i].qbase[1] - b[N4_B_DLB] + a[N4_B_DLB];
	}
}

static struct n4_urr *urr_of(struct n4_sess *s, uint32_t id)
{
	for (unsigned i = 0; i < s->n_urr; i++)
		if (s->urrs[i].id == id)
			return &s->urrs[i];
	return NULL;
}

int n4_urr_mod(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *t, uint16_t *off)
{
	int rc;

	/* 7.5.4.9 Remove URR: the PDRs that named it no longer do (the references are the URR's) */
	for (unsigned i = 0; i < m->n_rm_urr; i++) {
		struct n4_urr *u = urr_of(t, m->rm_urr[i].id);

		if (!u)
			return urr_refuse(t, PFCP_IE_REMOVE_URR, m->rm_urr[i].id, off, "unknown");
		*u = t->urrs[--t->n_urr];
	}
	/* 7.5.4.4 Create URR: measured once a PDR names it (Update PDR) */
	for (unsigned i = 0; i < m->n_urr; i++) {
		struct n4_urr *u;

		if (urr_of(t, m->urr[i].urr_id))
			return urr_refuse(t, PFCP_IE_CREATE_URR, m->urr[i].urr_id, off, "exists already");
		if (t->n_urr == N4_URR_MAX)
			return urr_refuse(t, PFCP_IE_CREATE_URR, m->urr[i].urr_id, off, "more than 2 URRs");
		u = &t->urrs[t->n_urr++];
		memset(u, 0, sizeof(*u));
		u->id = m->urr[i].urr_id;
		if ((rc = n4_urr_take(n, &m->urr[i], u, true, off))) {
			n4_fail_rule(t, PFCP_RULE_URR, u->id);
			return rc;
		}
		u->fresh = true;   /* started by n4_urr_mod_reports once accepted */
	}
	for (unsigned i = 0; i < m->n_upd_urr; i++) {
		struct n4_urr *u = urr_of(t, m->upd_urr[i].urr_id);

		if (!u)
			return urr_refuse(t, PFCP_IE_UPDATE_URR, m->upd_urr[i].urr_id, off, "unknown");
		if ((rc = n4_urr_take(n, &m->upd_urr[i], u, false, off))) {
			n4_fail_rule(t, PFCP_RULE_URR, u->id);
			return rc;
		}
	}
	for (unsigned i = 0; i < m->n_query_urr; i++)
		if (!urr_of(t, m->query_urr[i].id))
			return urr_refuse(t, PFCP_IE_QUERY_URR, m->query_urr[i].id, off, "unknown");
	return 0;
}

void n4_urr_mod_reports(struct upf_n4 *n, const struct pfcp_sess_mod_req *m, struct n4_sess *s,
			struct n4_sess *t, uint32_t id)
{
	struct upf_session_stats st;
	uint64_t c[N4_B__MAX], now = n4_now_ns(n);

	if ((!s->n_urr && !t->n_urr) || stats(n, id, &st) < 0)
		return;
	cur_of(&st, c);
	/* removed: the last report of each (TERMR, 8.2.41), from the state before */
	for (unsigned i = 0; i < s->n_urr; i++)
		if (!urr_of(t, s->urrs[i].id))
			rsp_report(n, &s->urrs[i], PFCP_URT_TERMR, c, now);
	for (unsigned i = 0; i < t->n_urr; i++) {
		struct n4_urr *u = &t->urrs[i];
		bool q = (m->has & PFCP_SMR_FLAGS) && (m->flags & PFCP_SMF_QAURR);

		if (u->fresh) {   /* created now */
			u->fresh = false;
			measure_start(n, u, c, now);
			continue;
		}
		if (u->quota_new) {   /* a new quota (Update URR): counted from now */
			u->quota_new = false;
			u->qbase[0] = c[N4_B_ULB];
			u->qbase[1] = c[N4_B_DLB];
			u->qstart_ntp = ntp_at(n, now);
		}
		/* an update that set a new period: periodic reports from now (measure_start) */
		if (u->period_s && (u->triggers & PFCP_RT_PERIO) && !u->next_perio)
			u->next_perio = ntp_at(n, now) + u->period_s;
		for (unsigned k = 0; k < m->n_query_urr && !q; k++)
			q = m->query_urr[k].id == u->id;
		if (q)   /* 7.5.4.10: an immediate report of the measurement so far */
			rsp_report(n, u, PFCP_URT_IMMER, c, now);
	}
}

/* ---- threshold and periodic reports (the N4 tick) ---- */

/* What u must report now (8.2.41 bits), 0: nothing */
static uint32_t due(const struct n4_urr *u, const uint64_t c[N4_B__MAX], uint32_t now_s)
{
	uint32_t t = 0;

	if ((u->triggers & PFCP_RT_PERIO) && u->next_perio && now_s >= u->next_perio)
		t |= PFCP_URT_PERIO;
	if ((u->triggers & PFCP_RT_VOLTH) && u->thresh_flags) {
		uint64_t ul = (u->pdrs & N4_UL) ? c[N4_B_ULB] - u->base[N4_B_ULB] : 0;
		uint64_t dl = (u->pdrs & N4_DL) ? c[N4_B_DLB] - u->base[N4_B_DLB] : 0;

		if (((u->thresh_flags & PFCP_VOL_TOVOL) && u->thresh[0] && ul + dl >= u->thresh[0]) ||
		    ((u->thresh_flags & PFCP_VOL_ULVOL) && u->thresh[1] && ul >= u->thresh[1]) ||
		    ((u->thresh_flags & PFCP_VOL_DLVOL) && u->thresh[2] && dl >= u->thresh[2]))
			t |= PFCP_URT_VOLTH;
	}
	if ((u->triggers & PFCP_RT_TIMTH) && u->time_thresh_s &&
	    now_s - u->start_ntp >= u->time_thresh_s)
		t |= PFCP_URT_TIMTH;
	if (u->quota_hit)
		return t;
	/* 5.2.2.2: the quotas, since they were provisioned */
	if (u->quota_flags) {
		uint64_t ul = (u->pdrs & N4_UL) ? c[N4_B_ULB] - u->qbase[0] : 0;
		uint64_t dl = (u->pdrs & N4_DL) ? c[N4_B_DLB] - u->qbase[1] : 0;

		if (((u->quota_flags & PFCP_VOL_TOVOL) && ul + dl >= u->quota[0]) ||
		    ((u->quota_flags & PFCP_VOL_ULVOL) && ul >= u->quota[1]) ||
		    ((u->quota_flags & PFCP_VOL_DLVOL) && dl >= u->quota[2]))
			t |= PFCP_URT_VOLQU;
	}
	if (u->time_quota_s && now_s - u->qstart_ntp >= u->time_quota_s)
		t |= PFCP_URT_TIMQU;
	return t;
}

static bool reports_alone(const struct n4_sess *s)
{
	for (unsigned i = 0; i < s->n_urr; i++)
		if ((s->urrs[i].triggers & (PFCP_RT_PERIO | PFCP_RT_VOLTH | PFCP_RT_TIMTH)) ||
		    ((s->urrs[i].quota_flags || s->urrs[i].time_quota_s) && !s->urrs[i].quota_hit))
			return true;
	return false;
}

void n4_urr_unwatch(struct upf_n4 *n, uint32_t id)
{
	struct n4_sess *s = &n->sess[id];

	if (!s->watched)
		return;
	if (n->w_cursor == id)
		n->w_cursor = s->w_next;
	if (s->w_prev != N4_NONE)
		n->sess[s->w_prev].w_next = s->w_next;
	else
		n->w_head = s->w_next;
	if (s->w_next != N4_NONE)
		n->sess[s->w_next].w_prev = s->w_prev;
	s->watched = false;
	n->n_watch--;
}

void n4_urr_watch(struct upf_n4 *n, uint32_t id)
{
	struct n4_sess *s = &n->sess[id];

	if (!s->used || !reports_alone(s)) {
		n4_urr_unwatch(n, id);
		return;
	}
	if (s->watched)
		return;
	s->w_prev = N4_NONE;
	s->w_next = n->w_head;
	if (n->w_head != N4_NONE)
		n->sess[n->w_head].w_prev = id;
	n->w_head = id;
	s->watched = true;
	n->n_watch++;
}

/* A Session Report Request (7.5.8.1, Report Type USAR) with the reports due of session id */
static int sess_sweep(struct upf_n4 *n, struct n4_sess *s, uint32_t id, uint64_t now_ns)
{
	struct upf_session_stats st;
	uint64_t c[N4_B__MAX];
	struct pfcp_sess_report_req *rep = &n->out.rep;
	uint32_t seq, now_s = ntp_at(n, now_ns);

	/* 6.4: at most N4_REPORT_MAX requests in flight; a report that would take the place of
	 * one not answered yet waits for the next tick (its URR stays due) */
	if (n->reports[n->next_seq % N4_REPORT_MAX].seq)
		return -EBUSY;
	if (stats(n, id, &st) < 0)
		return 0;
	cur_of(&st, c);
	memset(rep, 0, sizeof(*rep));
	for (unsigned i = 0; i < s->n_urr; i++) {
		struct n4_urr *u = &s->urrs[i];
		uint32_t t = due(u, c, now_s);

		if (t & (PFCP_URT_VOLQU | PFCP_URT_TIMQU)) {
			/* 5.2.2.2: the PDRs carrying it stop forwarding (the data path's drop) */
			u->quota_hit = true;
			n4_urr_quota_sync(s);
			if (n->p.upf && upf_session_modify(n->p.upf, id, &s->r) < 0)
				log_rl(LOGL_WARN, N4_MOD, NULL, "session %u: quota reached, drop not installed", id);
			/* reported when the Reporting Triggers ask (8.2.19 VOLQU / TIMQU) */
			t &= ~((PFCP_URT_VOLQU | PFCP_URT_TIMQU) & ~(u->triggers & (PFCP_RT_VOLQU | PFCP_RT_TIMQU)));
		}
		if (!t)
			continue;
		if (t & PFCP_URT_PERIO)   /* the next period from the one due, not from now: no drift */
			while (u->next_perio <= now_s)
				u->next_perio += u->period_s;
		report_fill(n, u, t, c, now_ns, &rep->usage[rep->n_usage++]);
	}
	if (!rep->n_usage)
		return 0;
	rep->has = PFCP_SRR_TYPE | PFCP_SRR_USAGE;
	rep->type = PFCP_RPT_USAR;
	seq = n->next_seq;
	n->next_seq = n->next_seq >= PFCP_SEQ_MAX ? 1 : n->next_seq + 1;
	return n4_report_track(n, s, id, seq, true) < 0 ? 0 : 1;
}

int n4_urr_tick(struct upf_n4 *n, uint64_t now_ns)
{
	uint32_t k, sent = 0;

	/* round robin over the watched sessions only, at most N4_URR_SWEEP per tick */
	for (k = 0; k < N4_URR_SWEEP && k < n->n_watch; k++) {
		uint32_t id = n->w_cursor != N4_NONE ? n->w_cursor : n->w_head;
		int rc = sess_sweep(n, &n->sess[id], id, now_ns);

		if (rc < 0) {   /* no room for another report in flight: from here next tick */
			log_rl(LOGL_INFO, N4_MOD, NULL, "usage reports wait: %u Session Report Requests unanswered",
			       N4_REPORT_MAX);
			n->w_cursor = id;
			break;
		}
		n->w_cursor = n->sess[id].w_next;
		sent += (uint32_t)rc;
	}
	return (int)sent;
}
