/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * solocore-load handover (issue 17 item 5): paced handovers of UEs that hold a PDU session.
 *
 * Once every UE holds its session, `rate` handovers per second, open loop (a request goes out
 * on time whether the earlier ones were answered or not, like the other rate modes), each to
 * the UE's next gNB (idx + 1 mod G) in round robin over the UEs, until rate * secs requests
 * went out. Whatever --handover-mode asks: Xn (TS 23.502 4.9.1.2.2, PATH SWITCH REQUEST) or N2
 * (4.9.1.3, HANDOVER REQUIRED). Measured per handover, from the handover observer of rs_int.h
 * (called at the moment of each event, clock_gettime):
 *  - latency: request sent -> PATH SWITCH REQUEST ACKNOWLEDGE (Xn) or HANDOVER NOTIFY sent
 *    (N2), and HANDOVER REQUIRED -> HANDOVER COMMAND (N2 preparation, TS 38.413 8.4.1.2);
 *  - with --traffic, the user-plane interruption of that UE: last downlink G-PDU through the
 *    source -> first through the target (TS 23.501 5.8.2.9: the source's packets until the
 *    End Marker do not end it), and the same for the uplink as sent. The G-PDUs of one UE are
 *    rate/UEs apart, so the interruption includes up to one packet interval (reported).
 * Each series goes into a common/hist.h histogram (the tree's buckets, as the core's /metrics
 * prints them) and into a sample array sized for rate * secs at creation, for exact p50/p99;
 * nothing is allocated once the run starts.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include "common/ev.h"
#include "common/hist.h"
#include "gtpu.h"
#include "load.h"
#include "rs_int.h"

#define TICK_NS 1000000ull          /* pacing period, as the traffic's */
#define SETTLE_MS 300               /* the last Setup Responses reach the SMF before the first move */
#define SETTLE_TRAFFIC_MS 1000      /* ... and with traffic, each UE has G-PDUs on its source */
#define MEASURE_WAIT_MS 3000        /* after the last answer: the first G-PDUs on the targets */
#define MAX_HANDOVERS (1u << 26)    /* rate * secs: 4 sample arrays of 256 MB at most */

/* One measured series: the tree's histogram and the exact samples (microseconds). */
struct ho_series {
	struct hist h;
	uint32_t *v;
	unsigned n, cap;
	uint32_t max;
};

struct ho_ue {
	uint64_t t_req;             /* request sent (ns); 0: no handover in progress */
	uint64_t t_dl, t_ul;        /* last downlink G-PDU received / uplink sent (ns) */
	uint64_t t_dl_src, t_ul_src; /* ... through the source of the open interruption */
	uint8_t dl_gnb, ul_gnb;     /* the gNBs of t_dl, t_ul */
	uint8_t src, tgt;           /* gNBs of the UE's last handover */
	bool want_dl, want_ul;      /* interruption not closed yet */
};

struct load_ho {
	struct ransim *rs;
	unsigned rate, total;       /* handovers per second; requests to send (rate * secs) */
	struct ev_timer tick;
	bool started;
	uint64_t t_start;           /* when pacing may begin (settle time after the sessions) */
	uint64_t t_last, t_first, t_last_req, t_last_ans;
	double credit;
	unsigned cursor;            /* next UE of the round robin */
	unsigned pending;           /* requests without an answer */
	int last_err;               /* of the last request that could not be sent */
	struct ho_ue *ue;
	struct ho_series lat, prep, dl, ul;
	struct load_ho_stats st;
};

static int series_init(struct ho_series *s, unsigned cap)
{
	memset(s, 0, sizeof(*s));
	s->cap = cap;
	s->v = calloc(cap ? cap : 1, sizeof(*s->v));
	return s->v ? 0 : -ENOMEM;
}

static void series_add(struct ho_series *s, uint64_t ns)
{
	uint32_t us = ns / 1000 > UINT32_MAX ? UINT32_MAX : (uint32_t)(ns / 1000);

	hist_add(&s->h, ns);
	if (us > s->max)
		s->max = us;
	if (s->n < s->cap)
		s->v[s->n++] = us;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* Nearest-rank percentile of the (sorted) samples. */
static uint32_t series_pct(const struct ho_series *s, unsigned p)
{
	unsigned k;

	if (!s->n)
		return 0;
	k = (unsigned)(((uint64_t)s->n * p + 99) / 100);
	return s->v[k ? k - 1 : 0];
}

static void series_free(struct ho_series *s)
{
	free(s->v);
	s->v = NULL;
}

/* A handover answered (ok) or over without moving the UE. */
static void answered(struct load_ho *h, struct ho_ue *u, uint64_t now, bool ok)
{
	if (!u->t_req)
		return;   /* not one of ours (or already answered) */
	if (ok) {
		h->st.acked++;
		series_add(&h->lat, now - u->t_req);
	} else {
		h->st.failed++;
		u->want_dl = u->want_ul = false;   /* the UE stays on its source */
	}
	u->t_req = 0;
	h->pending--;
	h->t_last_ans = now;
}

/* A G-PDU of the UE through gNB gi (dl: received, else sent): closes its interruption on the
 * first one through the target; before that the source's last one is kept. */
static void gpdu(struct load_ho *h, struct ho_ue *u, bool dl, unsigned gi, uint64_t now)
{
	bool *want = dl ? &u->want_dl : &u->want_ul;
	uint64_t *t_src = dl ? &u->t_dl_src : &u->t_ul_src;

	if (*want && gi == u->tgt) {
		*want = false;
		if (*t_src) {
			series_add(dl ? &h->dl : &h->ul, now - *t_src);
		} else if (dl) {
			h->st.dl_no_source++;
		} else {
			h->st.ul_no_source++;
		}
	} else if (*want && gi == u->src) {
		*t_src = now;
	}
	if (dl) {
		u->t_dl = now;
		u->dl_gnb = (uint8_t)gi;
	} else {
		u->t_ul = now;
		u->ul_gnb = (uint8_t)gi;
	}
}

/* The observer (rs_int.h struct rs_ho_obs): at the moment of each event. */
static void on_event(void *arg, const struct rs_ue *ue, enum rs_ho_ev ev, unsigned gnb)
{
	struct load_ho *h = arg;
	struct ho_ue *u;
	uint64_t now;

	if (ue->forger || ue->idx >= h->rs->cfg.n_ues)
		return;
	u = &h->ue[ue->idx];
	now = rs_now_ns();
	switch (ev) {
	case RS_HO_EV_PREPARED:
		if (u->t_req) {
			h->st.prepared++;
			series_add(&h->prep, now - u->t_req);
		}
		break;
	case RS_HO_EV_DONE: answered(h, u, now, true); break;
	case RS_HO_EV_FAILED: answered(h, u, now, false); break;
	case RS_HO_EV_DL: gpdu(h, u, true, gnb, now); break;
	case RS_HO_EV_UL: gpdu(h, u, false, gnb, now); break;
	}
}

/* The next UE of the round robin that can move now; a UE that cannot (its previous handover
 * still running, a failure) is skipped and counted. */
static void send_one(struct load_ho *h)
{
	struct ransim *rs = h->rs;
	unsigned tries;

	for (tries = 0; tries < rs->cfg.n_ues; tries++) {
		struct rs_ue *ue = &rs->ues[h->cursor];
		struct ho_ue *u = &h->ue[h->cursor];
		unsigned src = ue->gnb->idx;
		uint64_t t;
		int rc;

		h->cursor = (h->cursor + 1) % rs->cfg.n_ues;
		if (u->t_req) {
			h->st.busy++;
			continue;
		}
		t = rs_now_ns();
		rc = ransim_handover_ue(rs, ue->idx);
		if (rc == -EAGAIN) {
			h->st.busy++;
			continue;
		}
		h->st.attempted++;
		if (rc < 0) {
			h->st.send_errors++;
			h->last_err = rc;
			return;
		}
		if (u->want_dl || u->want_ul)
			h->st.superseded++;   /* the previous one's interruption never closed */
		u->t_req = t;
		u->src = (uint8_t)src;
		u->tgt = (uint8_t)((src + 1) % rs->cfg.n_gnbs);
		u->want_dl = u->want_ul = rs->gtpu != NULL;
		u->t_dl_src = u->dl_gnb == src ? u->t_dl : 0;
		u->t_ul_src = u->ul_gnb == src ? u->t_ul : 0;
		h->pending++;
		if (!h->t_first)
			h->t_first = t;
		h->t_last_req = t;
		return;
	}
	h->st.attempted++;   /* no UE could move: a request owed and not sent */
	h->st.send_errors++;
}

static void on_tick(struct ev_loop *loop, struct ev_timer *t)
{
	struct load_ho *h = t->arg;
	uint64_t now = ev_now_ns(loop);
	double cap = h->rate / 10.0 + 2;

	h->credit += (double)(now - h->t_last) * h->rate / 1e9;
	h->t_last = now;
	/* open loop, but a stalled loop does not turn into a burst above 100 ms of requests */
	if (h->credit > cap)
		h->credit = cap;
	while (h->credit >= 1.0 && h->st.attempted < h->total) {
		send_one(h);
		h->credit -= 1.0;
	}
	if (h->st.attempted < h->total)
		ev_timer_start_ns(loop, &h->tick, TICK_NS);
}

struct load_ho *load_ho_new(struct ransim *rs, unsigned rate, unsigned secs, int *err)
{
	struct load_ho *h;
	uint64_t total = (uint64_t)rate * secs;

	*err = -EINVAL;
	if (!rate || !secs || rs->cfg.n_gnbs < 2 || rs->cfg.n_gnbs > RANSIM_MAX_GNBS || rs->ho_obs.fn)
		return NULL;
	*err = -E2BIG;
	if (total > MAX_HANDOVERS)
		return NULL;
	*err = -ENOMEM;
	h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->rs = rs;
	h->rate = rate;
	h->total = (unsigned)total;
	h->ue = calloc(rs->cfg.n_ues, sizeof(*h->ue));
	if (!h->ue || series_init(&h->lat, h->total) < 0 || series_init(&h->prep, h->total) < 0 ||
	    series_init(&h->dl, h->total) < 0 || series_init(&h->ul, h->total) < 0) {
		load_ho_free(h);
		return NULL;
	}
	ev_timer_init(&h->tick, on_tick, h);
	rs->ho_obs.fn = on_event;
	rs->ho_obs.arg = h;
	*err = 0;
	return h;
}

/* Start the pacing once the settle time after the sessions is over. */
static void start(struct load_ho *h, uint64_t now)
{
	if (!h->t_start)
		h->t_start = now + (uint64_t)(h->rs->gtpu ? SETTLE_TRAFFIC_MS : SETTLE_MS) * 1000000ull;
	if (now < h->t_start)
		return;
	h->started = true;
	h->t_last = ev_update_now(h->rs->loop);
	h->credit = 1.0;   /* the first request at once */
	on_tick(h->rs->loop, &h->tick);
}

bool load_ho_step(struct load_ho *h, bool sessions_held)
{
	uint64_t now = ev_now_ns(h->rs->loop), ue_to = (uint64_t)h->rs->cfg.ue_timeout_ms * 1000000ull;
	bool open = false;
	unsigned i;

	if (!h->started) {
		if (sessions_held)
			start(h, now);
		return true;
	}
	if (h->st.attempted < h->total)
		return true;
	if (h->pending && now < h->t_last_req + ue_to)
		return true;
	for (i = 0; i < h->rs->cfg.n_ues && !open; i++)
		open = h->ue[i].want_dl || h->ue[i].want_ul;
	return open && !h->pending && now < (h->t_last_ans > h->t_last_req ? h->t_last_ans : h->t_last_req) +
						   (uint64_t)MEASURE_WAIT_MS * 1000000ull;
}

void load_ho_get_stats(const struct load_ho *h, struct load_ho_stats *out)
{
	unsigned i;

	*out = h->st;
	out->timeout = h->pending;
	out->dl_measured = h->dl.n;
	out->ul_measured = h->ul.n;
	out->dl_open = out->ul_open = 0;
	for (i = 0; i < h->rs->cfg.n_ues; i++) {
		out->dl_open += h->ue[i].want_dl;
		out->ul_open += h->ue[i].want_ul;
	}
	out->seconds = h->t_last_ans > h->t_first ? (double)(h->t_last_ans - h->t_first) / 1e9 : 0;
}

int load_ho_status(const struct load_ho *h, char *why, size_t cap)
{
	struct load_ho_stats s;

	load_ho_get_stats(h, &s);
	if (s.attempted == h->total && s.acked == s.attempted && !s.failed && !s.send_errors && !s.timeout)
		return 0;
	snprintf(why, cap, "handover: %llu of %u requested, %llu acknowledged, %llu failed, %llu not sent, "
		 "%llu unanswered%s%s", (unsigned long long)s.attempted, h->total, (unsigned long long)s.acked,
		 (unsigned long long)s.failed, (unsigned long long)s.send_errors, (unsigned long long)s.timeout,
		 h->last_err ? "; last send error: " : "", h->last_err ? strerror(-h->last_err) : "");
	return -1;
}

void load_ho_free(struct load_ho *h)
{
	if (!h)
		return;
	ev_timer_stop(h->rs->loop, &h->tick);
	if (h->rs->ho_obs.arg == h)
		memset(&h->rs->ho_obs, 0, sizeof(h->rs->ho_obs));
	series_free(&h->lat);
	series_free(&h->prep);
	series_free(&h->dl);
	series_free(&h->ul);
	free(h->ue);
	free(h);
}

/* ---- report ---- */

/* One series: "latency NAME n .. mean_us .. p50_us .. p90_us .. p99_us .. max_us .." then its
 * histogram "hist NAME le_us:count ..." (common/hist.h buckets, +Inf last); JSON members. */
static void series_report(struct ho_series *s, const char *kind, const char *name, bool json, FILE *out)
{
	unsigned nb, i;
	const uint32_t *b = hist_bounds_us(&nb);
	unsigned long long mean = s->h.count ? (unsigned long long)(s->h.sum_ns / s->h.count / 1000) : 0;

	qsort(s->v, s->n, sizeof(*s->v), cmp_u32);
	fprintf(out, json ? "\"%s_%s_us\":{\"n\":%u,\"mean\":%llu,\"p50\":%u,\"p90\":%u,\"p99\":%u,\"max\":%u,\"hist\":["
			  : "%s %s n %u mean_us %llu p50_us %u p90_us %u p99_us %u max_us %u\nhist %s_%s",
		kind, name, s->n, mean, series_pct(s, 50), series_pct(s, 90), series_pct(s, 99), s->max, kind, name);
	for (i = 0; i <= nb; i++) {
		if (json)
			fprintf(out, "%s%llu", i ? "," : "", (unsigned long long)s->h.bucket[i]);
		else if (i < nb)
			fprintf(out, " %u:%llu", b[i], (unsigned long long)s->h.bucket[i]);
		else
			fprintf(out, " inf:%llu\n", (unsigned long long)s->h.bucket[i]);
	}
	if (json)
		fputs("]},", out);
}

void load_ho_report(struct load_ho *h, bool json, FILE *out)
{
	struct ransim *rs = h->rs;
	struct load_ho_stats s;
	struct rusage ru;
	const char *fmt = json ? "\"%s\":%llu," : "%s %llu\n";
	double per_ue_ms = 0;

	load_ho_get_stats(h, &s);
	const struct { const char *k; uint64_t v; } f[] = {
		{ "handovers_requested", h->total }, { "handovers_attempted", s.attempted },
		{ "handovers_acked", s.acked }, { "handovers_failed", s.failed },
		{ "handovers_unanswered", s.timeout }, { "handovers_not_sent", s.send_errors },
		{ "handovers_busy_skips", s.busy }, { "handovers_prepared", s.prepared },
		{ "interruption_dl_measured", s.dl_measured }, { "interruption_ul_measured", s.ul_measured },
		{ "interruption_dl_open", s.dl_open }, { "interruption_ul_open", s.ul_open },
		{ "interruption_dl_no_source", s.dl_no_source }, { "interruption_ul_no_source", s.ul_no_source },
		{ "interruption_superseded", s.superseded },
	};

	fprintf(out, json ? "\"handover_rate\":%u," : "handover_rate %u\n", h->rate);
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		fprintf(out, fmt, f[i].k, (unsigned long long)f[i].v);
	fprintf(out, json ? "\"handover_seconds\":%.3f,\"handovers_per_s\":%.1f," : "handover_seconds %.3f\nhandovers_per_s %.1f\n",
		s.seconds, s.seconds > 0 ? (double)s.acked / s.seconds : 0.0);
	/* the tester's own CPU over the whole run (registrations included): which side saturates */
	if (getrusage(RUSAGE_SELF, &ru) == 0)
		fprintf(out, json ? "\"tester_cpu_s\":%.3f," : "tester_cpu_s %.3f\n",
			(double)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	series_report(&h->lat, "latency", "handover", json, out);
	if (h->prep.n)
		series_report(&h->prep, "latency", "handover_prep", json, out);
	if (!rs->gtpu)
		return;
	series_report(&h->dl, "interruption", "dl", json, out);
	series_report(&h->ul, "interruption", "ul", json, out);
	{
		struct rs_gtpu_stats t;

		rs_gtpu_get_stats(rs->gtpu, &t);
		/* each UE's packet interval: the resolution of its interruption */
		if (t.ul_seconds > 0 && t.ul_packets)
			per_ue_ms = 1000.0 * t.ul_seconds * rs->cfg.n_ues / (double)t.ul_packets;
		/* the DN echoes each uplink G-PDU once: what did not come back was lost (after the
		 * drain of main.c, nothing is in flight any more) */
		fprintf(out, json ? "\"packet_interval_per_ue_ms\":%.2f,\"lost_packets\":%llu," :
				    "packet_interval_per_ue_ms %.2f\nlost_packets %llu\n",
			per_ue_ms, (unsigned long long)(t.ul_packets > t.dl_packets ? t.ul_packets - t.dl_packets : 0));
	}
}
