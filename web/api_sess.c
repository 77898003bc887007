/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web: the SMF's and the UPF's views. GET /api/v1/sessions (every PDU session, paged
 * with smf_sess_walk's cursor), "sessions" in GET /api/v1/ues/{supi}, "sessions" and
 * "upf" in GET /api/v1/stats, and on /metrics the session gauge, the establishment
 * outcomes by result and 5GSM cause, the session-setup and registration latency
 * histograms, and the UPF's packets, bytes and drops.
 *
 * The UE view and the stats are the AMF's views (api_amf.c): with an SMF attached
 * (web->smf) they add its parts through web_sess_ue_add() / web_sess_stats_add(); without
 * the AMF, web_attach_smf() serves GET /api/v1/stats with the SMF's parts alone.
 * The SMF and the UPF are struct web's smf / upf (web_int.h): nothing allocated here.
 * Everything runs on the control thread, which owns the AMF, the SMF and the UPF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>

#include <jansson.h>

#include "common/hist.h"
#include "smf/smf.h"
#include "upf/upf.h"
#include "web/web_int.h"

/* ---- JSON ---- */

static json_t *ip_json(uint32_t a)
{
	char s[INET_ADDRSTRLEN];

	if (!a || !inet_ntop(AF_INET, &a, s, sizeof(s)))
		return json_null();
	return json_string(s);
}

/* The gNB's N3 end: IPv4, or IPv6 (smf_sess_info.gnb_addr6) when the gNB is on IPv6. */
static json_t *gnb_ip_json(const struct smf_sess_info *i)
{
	static const uint8_t zero[16];
	char s[INET6_ADDRSTRLEN];

	if (i->gnb_addr || !memcmp(i->gnb_addr6, zero, 16))
		return ip_json(i->gnb_addr);
	if (!inet_ntop(AF_INET6, i->gnb_addr6, s, sizeof(s)))
		return json_null();
	return json_string(s);
}

/* S of the API contract (web/README.md, openapi.json). */
static json_t *sess_json(const struct smf_sess_view *v)
{
	const struct smf_sess_info *i = &v->info;
	json_t *gnb_ip = gnb_ip_json(i);
	char sd[8];
	json_t *j;

	snprintf(sd, sizeof(sd), "%02x%02x%02x", i->snssai.sd[0], i->snssai.sd[1], i->snssai.sd[2]);
	j = json_pack("{s:s, s:i, s:s, s:i, s:s?, s:o, s:s, s:I, s:o, s:o, s:I, s:I, s:i, s:b}",
		      "supi", v->supi, "psi", v->psi, "dnn", i->dnn, "sst", i->snssai.sst,
		      "sd", i->snssai.has_sd ? sd : NULL, "ue_ip", ip_json(i->ue_addr),
		      "state", smf_state_name(i->state), "ul_teid", (json_int_t)i->ul_teid,
		      "dl_teid", json_is_null(gnb_ip) ? json_null() : json_integer(i->gnb_teid),
		      "gnb_ip", gnb_ip, "ambr_ul", (json_int_t)i->ambr_ul_bps,
		      "ambr_dl", (json_int_t)i->ambr_dl_bps, "5qi", i->five_qi,
		      "user_plane", v->has_counters && i->up_active);
	if (!j)
		return NULL;
	json_object_set_new(j, "ul_packets", json_integer((json_int_t)v->ul_pkts));
	json_object_set_new(j, "ul_bytes", json_integer((json_int_t)v->ul_bytes));
	json_object_set_new(j, "dl_packets", json_integer((json_int_t)v->dl_pkts));
	json_object_set_new(j, "dl_bytes", json_integer((json_int_t)v->dl_bytes));
	return j;
}

#define SESS_LIMIT_DEFAULT 100
#define SESS_LIMIT_MAX 1000

struct sess_page {
	json_t *items;
	unsigned limit;            /* 0: no limit */
	bool oom;
};

static int sess_one(const struct smf_sess_view *v, void *arg)
{
	struct sess_page *p = arg;
	json_t *j = sess_json(v);

	if (!j || json_array_append_new(p->items, j) < 0) {
		p->oom = true;
		return -ENOMEM;
	}
	return p->limit && json_array_size(p->items) >= p->limit ? 1 : 0;
}

/* A decimal query parameter within [lo, hi]: 0 (absent: *out unchanged), or -EINVAL. */
static int query_uint(const struct web_req *req, const char *key, unsigned long long lo,
		      unsigned long long hi, unsigned long long *out)
{
	char v[24], *end;
	unsigned long long x;
	int rc = web_req_query(req, key, v, sizeof(v));

	if (rc == -ENOENT)
		return 0;
	if (rc <= 0 || v[0] < '0' || v[0] > '9')
		return -EINVAL;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (*end || errno || x < lo || x > hi)
		return -EINVAL;
	*out = x;
	return 0;
}

/* GET /api/v1/sessions?limit=&cursor=: a page of PDU sessions in slot order; "next" is
 * the cursor of the following page, null on the last one. */
static int h_sessions(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct sess_page p = { .limit = SESS_LIMIT_DEFAULT };
	unsigned long long lim = SESS_LIMIT_DEFAULT, cur = 0;
	uint32_t cursor;
	char next[16];

	(void)arg;
	if (query_uint(req, "limit", 1, SESS_LIMIT_MAX, &lim) < 0) {
		web_resp_error(resp, 400, "limit", "limit is 1 to %d", SESS_LIMIT_MAX);
		return 0;
	}
	if (query_uint(req, "cursor", 0, SMF_WALK_END - 1, &cur) < 0) {
		web_resp_error(resp, 400, "cursor", "cursor is the \"next\" of the previous page");
		return 0;
	}
	p.limit = (unsigned)lim;
	cursor = (uint32_t)cur;
	p.items = json_array();
	if (!p.items || smf_sess_walk(w->smf, &cursor, WEB_WALK_BUDGET, sess_one, &p) < 0 || p.oom) {
		json_decref(p.items);
		web_resp_error(resp, 500, NULL, "out of memory");
		return 0;
	}
	snprintf(next, sizeof(next), "%u", cursor);
	web_resp_json(resp, 200, json_pack("{s:o, s:s?}", "items", p.items, "next",
					   cursor != SMF_WALK_END ? next : NULL));
	return 0;
}

/* The UPF's drop counters (upf.h), by reason: the "drop_" counters and the packets the
 * exception path discards. reason: the counter's name without "drop_". */
static const char *drop_reason(unsigned idx)
{
	const char *n = upf_counter_name(idx);

	if (!n)
		return NULL;
	if (!strncmp(n, "drop_", 5))
		return n + 5;
	if (idx == UPF_CNT_UNKNOWN_TEID || idx == UPF_STAT_BUF_DROPPED || idx == UPF_STAT_SOCK_BAD)
		return n;    /* answered with an Error Indication / buffer bound / malformed: not forwarded */
	return NULL;
}

/* "upf": {"ul_packets", "ul_bytes", "dl_packets", "dl_bytes", "drops": {reason: n}}. */
static json_t *upf_json(const struct web *w)
{
	uint64_t cnt[UPF_STAT__MAX];
	struct smf_upf_totals t = { 0 };
	json_t *drops = json_object();

	if (!w->upf || upf_counters(w->upf, cnt, UPF_STAT__MAX) < 0) {
		json_decref(drops);
		return json_null();
	}
	smf_upf_totals(w->smf, &t);
	for (unsigned i = 0; i < UPF_STAT__MAX; i++) {
		const char *r = drop_reason(i);

		if (r)
			json_object_set_new(drops, r, json_integer((json_int_t)cnt[i]));
	}
	return json_pack("{s:I, s:I, s:I, s:I, s:o}", "ul_packets", (json_int_t)t.ul_pkts,
			 "ul_bytes", (json_int_t)t.ul_bytes, "dl_packets", (json_int_t)t.dl_pkts,
			 "dl_bytes", (json_int_t)t.dl_bytes, "drops", drops);
}

void web_sess_stats_add(struct web *w, json_t *j)
{
	struct smf_stats st;

	smf_get_stats(w->smf, &st);
	json_object_set_new(j, "sessions", json_integer((json_int_t)st.sessions));
	json_object_set_new(j, "upf", upf_json(w));
}

int web_sess_ue_add(struct web *w, struct smf_ue *sm, json_t *j)
{
	struct sess_page p = { .items = json_array() };

	if (p.items && sm)
		smf_ue_sess_walk(w->smf, sm, sess_one, &p);
	if (!p.items || p.oom || json_object_set_new(j, "sessions", p.items) < 0) {
		if (p.oom)
			json_decref(p.items);
		return -ENOMEM;
	}
	return 0;
}

/* GET /api/v1/stats without the AMF (web_attach_amf takes the route over): the SMF's
 * "sessions" and "upf" alone. */
static int h_stats(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *j = json_object();

	(void)req;
	(void)arg;
	if (!j) {
		web_resp_error(resp, 500, NULL, "out of memory");
		return 0;
	}
	web_sess_stats_add(w, j);
	web_resp_json(resp, 200, j);
	return 0;
}

/* ---- /metrics ---- */

/* Prometheus histogram: cumulative _bucket{le} lines, le in seconds, then _sum, _count. */
void web_metrics_hist(struct web_metrics_out *o, const char *name, const char *help, const struct hist *h)
{
	unsigned n, i;
	const uint32_t *b = hist_bounds_us(&n);
	uint64_t cum = 0;

	web_metrics_printf(o, "# HELP %s %s\n# TYPE %s histogram\n", name, help, name);
	for (i = 0; i < n; i++) {
		cum += h->bucket[i];
		web_metrics_printf(o, "%s_bucket{le=\"%g\"} %llu\n", name, b[i] / 1e6, (unsigned long long)cum);
	}
	cum += h->bucket[n];
	web_metrics_printf(o, "%s_bucket{le=\"+Inf\"} %llu\n%s_sum %.9f\n%s_count %llu\n", name,
			   (unsigned long long)cum, name, h->sum_ns / 1e9, name, (unsigned long long)h->count);
}

static void metrics_smf(struct web_metrics_out *o, void *arg)
{
	const struct web *w = arg;
	struct smf_stats st;

	smf_get_stats(w->smf, &st);
	web_metrics_printf(o, "# HELP solocore_smf_sessions PDU sessions that exist now.\n"
			   "# TYPE solocore_smf_sessions gauge\nsolocore_smf_sessions %llu\n",
			   (unsigned long long)st.sessions);
	/* TS 24.501 9.11.4.2: cause is the 5GSM cause the UE got ("none" on success; #38
	 * network failure in the release after the gNB's Setup Unsuccessful Transfer). */
	web_metrics_printf(o, "# HELP solocore_smf_session_setups_total PDU session establishments by result "
			   "and 5GSM cause.\n# TYPE solocore_smf_session_setups_total counter\n"
			   "solocore_smf_session_setups_total{result=\"success\",cause=\"none\"} %llu\n"
			   "solocore_smf_session_setups_total{result=\"failure\",cause=\"38\"} %llu\n",
			   (unsigned long long)st.est_completed, (unsigned long long)st.est_failed);
	for (unsigned i = 0; i < SMF_CAUSE_SLOTS; i++)
		if (st.est_rej_cause[i])
			web_metrics_printf(o, "solocore_smf_session_setups_total{result=\"reject\",cause=\"%u\"} %llu\n",
					   i, (unsigned long long)st.est_rej_cause[i]);
	/* TS 23.502 4.9.1.3: N2 handovers of PDU sessions by outcome, and the indirect forwarding
	 * tunnels they put in the UPF (a created one not yet removed is live). */
	web_metrics_printf(o, "# HELP solocore_smf_session_handovers_total PDU sessions in N2 handovers, by "
			   "outcome.\n# TYPE solocore_smf_session_handovers_total counter\n"
			   "solocore_smf_session_handovers_total{result=\"prepared\"} %llu\n"
			   "solocore_smf_session_handovers_total{result=\"completed\"} %llu\n"
			   "solocore_smf_session_handovers_total{result=\"cancelled\"} %llu\n"
			   "# HELP solocore_smf_forwarding_tunnels_total Indirect forwarding tunnels.\n"
			   "# TYPE solocore_smf_forwarding_tunnels_total counter\n"
			   "solocore_smf_forwarding_tunnels_total{event=\"created\"} %llu\n"
			   "solocore_smf_forwarding_tunnels_total{event=\"removed\"} %llu\n",
			   (unsigned long long)st.ho_prepared, (unsigned long long)st.ho_completed,
			   (unsigned long long)st.ho_cancelled, (unsigned long long)st.fwd_created,
			   (unsigned long long)st.fwd_removed);
	web_metrics_hist(o, "solocore_smf_session_setup_seconds",
			 "PDU Session Establishment Request to PDU Session Resource Setup Response handled.",
			 &st.setup_latency);
}

static void metrics_upf(struct web_metrics_out *o, void *arg)
{
	const struct web *w = arg;
	uint64_t cnt[UPF_STAT__MAX];
	struct smf_upf_totals t;

	if (!w->upf)
		return;
	if (smf_upf_totals(w->smf, &t) == 0)
		web_metrics_printf(o, "# HELP solocore_upf_packets_total Packets forwarded by the UPF, summed over "
				   "PDU sessions.\n# TYPE solocore_upf_packets_total counter\n"
				   "solocore_upf_packets_total{direction=\"ul\"} %llu\n"
				   "solocore_upf_packets_total{direction=\"dl\"} %llu\n"
				   "# HELP solocore_upf_bytes_total Inner IP bytes forwarded by the UPF, summed over "
				   "PDU sessions.\n# TYPE solocore_upf_bytes_total counter\n"
				   "solocore_upf_bytes_total{direction=\"ul\"} %llu\n"
				   "solocore_upf_bytes_total{direction=\"dl\"} %llu\n",
				   (unsigned long long)t.ul_pkts, (unsigned long long)t.dl_pkts,
				   (unsigned long long)t.ul_bytes, (unsigned long long)t.dl_bytes);
	if (upf_counters(w->upf, cnt, UPF_STAT__MAX) < 0)
		return;
	web_metrics_printf(o, "# HELP solocore_upf_drops_total Packets the UPF did not forward, by reason.\n"
			   "# TYPE solocore_upf_drops_total counter\n");
	for (unsigned i = 0; i < UPF_STAT__MAX; i++) {
		const char *r = drop_reason(i);

		if (r)
			web_metrics_printf(o, "solocore_upf_drops_total{reason=\"%s\"} %llu\n", r,
					   (unsigned long long)cnt[i]);
	}
	/* N2 handover with indirect forwarding (TS 23.502 4.9.1.3.2): what the relay carried, by
	 * path (XDP, or the N3 socket while the target's neighbour is unresolved), and the End
	 * Markers of the handovers (TS 29.281 7.3.2): sent on an old path, relayed on. */
	web_metrics_printf(o, "# HELP solocore_upf_forwarded_total GTP-U packets relayed on an indirect forwarding "
			   "tunnel, by path.\n# TYPE solocore_upf_forwarded_total counter\n"
			   "solocore_upf_forwarded_total{path=\"xdp\"} %llu\n"
			   "solocore_upf_forwarded_total{path=\"socket\"} %llu\n"
			   "# HELP solocore_upf_end_markers_total End Markers sent on a switched downlink path or "
			   "relayed on a forwarding tunnel.\n# TYPE solocore_upf_end_markers_total counter\n"
			   "solocore_upf_end_markers_total{event=\"sent\"} %llu\n"
			   "solocore_upf_end_markers_total{event=\"relayed\"} %llu\n",
			   (unsigned long long)cnt[UPF_CNT_FWD_PKTS], (unsigned long long)cnt[UPF_CNT_FWD_KERNEL],
			   (unsigned long long)cnt[UPF_STAT_END_MARKER_SENT],
			   (unsigned long long)cnt[UPF_CNT_FWD_END_MARKER]);
	/* GTP-U in outer IPv6 (upf.n3_address6, TS 38.414 5.1): downlink the program could not
	 * checksum itself goes out the IPv6 socket. */
	web_metrics_printf(o, "# HELP solocore_upf_n3_ipv6_packets_total G-PDUs in outer IPv6 on N3, by direction "
			   "and path.\n# TYPE solocore_upf_n3_ipv6_packets_total counter\n"
			   "solocore_upf_n3_ipv6_packets_total{direction=\"ul\",path=\"xdp\"} %llu\n"
			   "solocore_upf_n3_ipv6_packets_total{direction=\"dl\",path=\"xdp\"} %llu\n"
			   "solocore_upf_n3_ipv6_packets_total{direction=\"dl\",path=\"socket\"} %llu\n",
			   (unsigned long long)cnt[UPF_CNT_UL_N3V6], (unsigned long long)cnt[UPF_CNT_DL_N3V6],
			   (unsigned long long)cnt[UPF_CNT_DL_N3V6_USER]);
	/* RFC 4787 REQ-9: uplink to the NAT address turned back down to the UE holding the port
	 * (an unheld port is the drop reason nat_no_mapping) */
	web_metrics_printf(o, "# HELP solocore_upf_nat_hairpin_packets_total Uplink packets of NAT sessions to "
			   "the NAT address sent back down to the UE holding the port (RFC 4787 REQ-9).\n"
			   "# TYPE solocore_upf_nat_hairpin_packets_total counter\n"
			   "solocore_upf_nat_hairpin_packets_total %llu\n",
			   (unsigned long long)cnt[UPF_CNT_NAT_HAIRPIN]);
}

/* ---- attach ---- */

static bool route_exists(const struct web *w, const char *pattern)
{
	for (unsigned i = 0; i < w->nroutes; i++)
		if (w->routes[i].method == WEB_GET && !strcmp(w->routes[i].pattern, pattern))
			return true;
	return false;
}

int web_attach_smf(struct web *w, struct smf *smf)
{
	int rc;

	if (!w || !smf)
		return -EINVAL;
	if (w->smf)
		return -EALREADY;
	w->smf = smf;    /* first: a route added below may be served before a later one fails */
	rc = web_route_add(w, WEB_GET, "/api/v1/sessions", WEB_ROLE_READ, h_sessions, NULL);
	if (rc == 0)
		rc = web_metrics_register(w, metrics_smf, w);
	if (rc == 0)
		rc = web_metrics_register(w, metrics_upf, w);
	/* The AMF's stats (web_attach_amf) add the SMF's parts themselves. */
	if (rc == 0 && !route_exists(w, "/api/v1/stats"))
		rc = web_route_add(w, WEB_GET, "/api/v1/stats", WEB_ROLE_READ, h_stats, NULL);
	return rc;
}

/* upf.mode pfcp: the N4 client's counters (upf.h enum upf_n4c_counter) */
static void metrics_n4c(struct web_metrics_out *o, void *arg)
{
	uint64_t c[UPF_N4C__MAX];

	if (upf_n4c_counters_get(arg, c, UPF_N4C__MAX) < 0)
		return;
	web_metrics_printf(o, "# HELP solocore_pfcp_events_total The SMF's PFCP (N4) client: datagrams, requests by "
			   "kind, answers, retransmissions, timeouts, refusals, reports, peer losses.\n"
			   "# TYPE solocore_pfcp_events_total counter\n");
	for (unsigned i = 0; i < UPF_N4C__MAX; i++)
		web_metrics_printf(o, "solocore_pfcp_events_total{event=\"%s\"} %llu\n", upf_n4c_counter_name(i),
				   (unsigned long long)c[i]);
}

int web_attach_n4c(struct web *w, struct upf_n4c *c)
{
	if (!w || !c)
		return -EINVAL;
	return web_metrics_register(w, metrics_n4c, c);
}

int web_attach_upf(struct web *w, struct upf *upf)
{
	if (!w || !w->smf || !upf)
		return -EINVAL;
	w->upf = upf;
	return 0;
}
