/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web: the AMF's views. /metrics lines from amf_get_stats() and amf_stats_desc(),
 * GET /api/v1/stats (counters as JSON for the dashboard), GET /api/v1/gnbs (every gNB
 * association), GET /api/v1/ues (UE contexts, paged with amf_ue_walk's cursor), GET
 * /api/v1/ues/{supi} (one UE context) and POST /api/v1/ues/{supi}/deregister
 * (network-initiated deregistration, TS 24.501 5.5.2.3).
 * Everything runs on the control thread, which owns the AMF.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <jansson.h>

#include "amf/amf.h"
#include "common/hex.h"
#include "common/nas/nas.h"
#include "db/db.h"
#include "smf/smf.h"
#include "web/sub_int.h"
#include "web/web_int.h"

/* Every counter of amf_stats_desc() (the AMF's own table, so a counter added there shows
 * here without a change): solocore_amf_<name>, "_total" on counters (Prometheus naming). */
static void metrics_stats(struct web_metrics_out *o, const struct amf *amf)
{
	const struct amf_stat_desc *d;
	struct amf_stats s;
	unsigned n, i;

	amf_get_stats(amf, &s);
	d = amf_stats_desc(&n);
	for (i = 0; i < n; i++) {
		const char *suf = d[i].gauge ? "" : "_total";
		uint64_t v;

		if (d[i].off + sizeof(v) > sizeof(s))
			continue;
		memcpy(&v, (const unsigned char *)&s + d[i].off, sizeof(v));
		web_metrics_printf(o, "# HELP solocore_amf_%s%s %s\n# TYPE solocore_amf_%s%s %s\n"
				   "solocore_amf_%s%s %llu\n", d[i].name, suf, d[i].help, d[i].name, suf,
				   d[i].gauge ? "gauge" : "counter", d[i].name, suf, (unsigned long long)v);
	}
}

/* solocore_amf_ngap_messages_total{procedure,direction,type}: the series that are not zero.
 * All known procedures x 2 directions x 3 PDU types would be 384 series per scrape, most of
 * them messages that never flow (an InitialUEMessage has no outcome, the AMF never receives
 * a Paging); a series appears with its first message, which Prometheus' rate() and
 * increase() handle as a counter starting at 0. */
static void metrics_ngap(struct web_metrics_out *o, const struct amf *amf)
{
	static const char *const dir[2] = { "rx", "tx" };
	/* TS 38.413 9.4.1: NGAP-PDU ::= CHOICE { initiatingMessage, successfulOutcome,
	 * unsuccessfulOutcome } */
	static const char *const type[AMF_NGAP_PDU_TYPES] = { "initiating", "successful", "unsuccessful" };

	web_metrics_printf(o, "# HELP solocore_amf_ngap_messages_total NGAP PDUs by elementary procedure "
			   "(TS 38.413), direction and PDU type (rx: decoded and handled).\n"
			   "# TYPE solocore_amf_ngap_messages_total counter\n");
	for (unsigned p = 0; p < AMF_NGAP_PROC_SLOTS; p++) {
		const char *name = amf_ngap_proc_name(p);

		for (unsigned d = 0; d < 2 && name; d++)
			for (unsigned t = 0; t < AMF_NGAP_PDU_TYPES; t++) {
				uint64_t v = amf_ngap_msg_count(amf, p, (enum amf_ngap_dir)d, t);

				if (v)
					web_metrics_printf(o, "solocore_amf_ngap_messages_total{procedure=\"%s\","
							   "direction=\"%s\",type=\"%s\"} %llu\n", name,
							   dir[d], type[t], (unsigned long long)v);
			}
	}
}

/* A 5GMM cause's name from TS 24.501 9.11.3.2 (nas_5gmm_cause_name) as a label value:
 * lower case, words joined by '_' ("5GS services not allowed" -> "5gs_services_not_allowed").
 * 0 when the cause has no name there. */
static int cause_label(uint8_t cause, char *out, size_t sz)
{
	const char *n = nas_5gmm_cause_name(cause);
	size_t k = 0;

	if (!n || !strncmp(n, "unknown", 7))
		return 0;
	for (; *n && k + 1 < sz; n++) {
		if (isalnum((unsigned char)*n))
			out[k++] = (char)tolower((unsigned char)*n);
		else if (k && out[k - 1] != '_')
			out[k++] = '_';
	}
	while (k && out[k - 1] == '_')
		k--;
	out[k] = '\0';
	return (int)k;
}

/* solocore_amf_registrations_total: accepts by 5GS registration type (the four of TS 24.501
 * 9.11.3.7 always, others when seen), rejects by 5GMM cause (those seen: the cause as a
 * number, its name from TS 24.501 9.11.3.2 when it has one); solocore_amf_service_requests_total
 * by result (TS 24.501 5.6.1). */
static void metrics_reg(struct web_metrics_out *o, const struct amf *amf)
{
	struct amf_reg_counts c;
	char name[80];

	amf_reg_counts(amf, &c);
	web_metrics_printf(o, "# HELP solocore_amf_registrations_total Registration Accepts by registration "
			   "type and Registration Rejects by 5GMM cause.\n"
			   "# TYPE solocore_amf_registrations_total counter\n");
	for (unsigned t = 0; t < AMF_REG_TYPES; t++) {
		const char *tn = amf_reg_type_name(t);
		char num[12];

		/* initial (1) .. emergency (4) always; SNPN onboarding and reserved values when seen */
		if (!c.accepted[t] && (t < 1 || t > 4))
			continue;
		if (!tn) {
			snprintf(num, sizeof(num), "%u", t);
			tn = num;
		}
		web_metrics_printf(o, "solocore_amf_registrations_total{result=\"accepted\",type=\"%s\"} %llu\n",
				   tn, (unsigned long long)c.accepted[t]);
	}
	for (unsigned k = 0; k < 256; k++) {
		if (!c.rejected[k])
			continue;
		if (cause_label((uint8_t)k, name, sizeof(name)) > 0)
			web_metrics_printf(o, "solocore_amf_registrations_total{result=\"rejected\",cause=\"%u\","
					   "name=\"%s\"} %llu\n", k, name, (unsigned long long)c.rejected[k]);
		else
			web_metrics_printf(o, "solocore_amf_registrations_total{result=\"rejected\",cause=\"%u\"} %llu\n",
					   k, (unsigned long long)c.rejected[k]);
	}
	web_metrics_printf(o, "# HELP solocore_amf_service_requests_total Service Requests by result.\n"
			   "# TYPE solocore_amf_service_requests_total counter\n"
			   "solocore_amf_service_requests_total{result=\"accepted\"} %llu\n"
			   "solocore_amf_service_requests_total{result=\"rejected\"} %llu\n",
			   (unsigned long long)c.service_accepted, (unsigned long long)c.service_rejected);
}

static void metrics(struct web_metrics_out *o, void *arg)
{
	const struct amf *amf = arg;
	struct hist rh;

	metrics_stats(o, amf);
	metrics_ngap(o, amf);
	metrics_reg(o, amf);
	amf_reg_latency(amf, &rh);
	web_metrics_hist(o, "solocore_amf_registration_seconds",
			 "Registration Request to Registration Complete (or Accept when no Complete is expected).",
			 &rh);
}

/* PLMN identity as on the wire (TS 24.008 10.5.1.13: MCC digits 1-2 | 3 and MNC digit 3 |
 * MNC digits 1-2, nibble-swapped BCD, MNC digit 3 = F for a 2-digit MNC) -> "00101". */
static void plmn_str(const uint8_t p[3], char out[7])
{
	unsigned n = 0;

	out[n++] = hex_char(p[0], false);
	out[n++] = hex_char(p[0] >> 4, false);
	out[n++] = hex_char(p[1], false);
	out[n++] = hex_char(p[2], false);
	out[n++] = hex_char(p[2] >> 4, false);
	if ((p[1] >> 4) != 0xf)
		out[n++] = hex_char(p[1] >> 4, false);
	out[n] = '\0';
}

/* "192.0.2.1:38412", "[2001:db8::1]:38412", or NULL when unknown. */
static json_t *peer_json(const struct sockaddr *sa, uint32_t len)
{
	char a[INET6_ADDRSTRLEN], out[INET6_ADDRSTRLEN + 8];

	if (!sa)
		return json_null();
	if (sa->sa_family == AF_INET && len >= sizeof(struct sockaddr_in)) {
		const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

		inet_ntop(AF_INET, &in->sin_addr, a, sizeof(a));
		snprintf(out, sizeof(out), "%s:%u", a, ntohs(in->sin_port));
	} else if (sa->sa_family == AF_INET6 && len >= sizeof(struct sockaddr_in6)) {
		const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;

		inet_ntop(AF_INET6, &in6->sin6_addr, a, sizeof(a));
		snprintf(out, sizeof(out), "[%s]:%u", a, ntohs(in6->sin6_port));
	} else {
		return json_null();
	}
	return json_string(out);
}

static json_t *slice_json(const struct amf_snssai *sl)
{
	char sd[8];
	json_t *j = json_pack("{s:i}", "sst", sl->sst);

	if (j && sl->sd != AMF_SD_NONE) {
		snprintf(sd, sizeof(sd), "%06x", sl->sd & 0xffffffu);
		json_object_set_new(j, "sd", json_string(sd));
	}
	return j;
}

static json_t *gnb_json(const struct amf_gnb_info *g)
{
	json_t *tacs = json_array(), *slices = json_array(), *j;
	char plmn[7];
	unsigned i;

	for (i = 0; i < g->n_tacs; i++)
		json_array_append_new(tacs, json_integer(g->tacs[i]));
	for (i = 0; i < g->n_slices; i++)
		json_array_append_new(slices, slice_json(&g->slices[i]));
	plmn_str(g->plmn, plmn);
	j = json_pack("{s:I, s:s, s:I, s:i, s:o, s:s, s:o, s:o, s:s, s:I}", "assoc", (json_int_t)g->assoc,
		      "name", g->name ? g->name : "", "gnb_id", (json_int_t)g->gnb_id, "gnb_id_bits",
		      g->gnb_id_bits, "peer", peer_json(g->peer, g->peer_len), "plmn", plmn, "tacs", tacs,
		      "slices", slices, "state", amf_gnb_state_name(g->state), "ue_count",
		      (json_int_t)g->n_ues);
	return j;
}

static int gnb_one(const struct amf_gnb_info *g, void *arg)
{
	return json_array_append_new(arg, gnb_json(g)) == 0 ? 0 : -ENOMEM;
}

/* GET /api/v1/gnbs: every gNB association (set up or not), in the AMF's table order. */
static int h_gnbs(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *items = json_array();

	(void)w;
	(void)req;
	if (!items || amf_gnb_walk(arg, gnb_one, items) != 0) {
		json_decref(items);
		web_resp_error(resp, 500, NULL, "out of memory");
		return 0;
	}
	web_resp_json(resp, 200, json_pack("{s:I, s:o}", "count", (json_int_t)json_array_size(items),
					   "items", items));
	return 0;
}

#define UES_LIMIT_DEFAULT 100
#define UES_LIMIT_MAX 1000

struct ue_page {
	const struct amf *amf;
	json_t *items;
	unsigned limit;
	bool oom;
};

static int ue_one(const struct amf_ue_info *u, void *arg)
{
	struct ue_page *p = arg;
	struct amf_gnb_info g;
	char guti[48];
	json_t *psi = json_array(), *j;

	for (unsigned i = 1; i < 16; i++)
		if (u->psi_map & (1u << i))
			json_array_append_new(psi, json_integer(i));
	j = json_pack("{s:s?, s:s, s:s, s:o}", "supi", u->supi && u->supi[0] ? u->supi : NULL,
		      "state", amf_gmm_state_name(u->state), "cm_state", amf_cm_state_name(u->cm),
		      "pdu_sessions", psi);
	if (j && amf_guti_to_str(p->amf, u, guti, sizeof(guti)) > 0)
		json_object_set_new(j, "guti", json_string(guti));
	if (j && u->cm == AMF_CM_CONNECTED && u->amf_ue_ngap_id != UINT64_MAX) {
		json_t *gj = json_pack("{s:I}", "assoc", (json_int_t)u->assoc);

		if (gj && amf_gnb_info_by_assoc(p->amf, u->assoc, &g) == 0) {
			json_object_set_new(gj, "name", json_string(g.name ? g.name : ""));
			json_object_set_new(gj, "gnb_id", json_integer(g.gnb_id));
		}
		json_object_set_new(j, "gnb", gj);
	}
	if (!j || json_array_append_new(p->items, j) < 0) {
		p->oom = true;
		return -ENOMEM;
	}
	return json_array_size(p->items) >= p->limit ? 1 : 0;
}

/* GET /api/v1/ues?limit=&cursor=: a page of UE contexts in pool order. A page that is not
 * the end has "next": the amf_ue_walk cursor, passed back as ?cursor= (a page costs its
 * length, and at most WEB_WALK_BUDGET pool slots: over a sparse pool a page may be short). */
static int h_ues(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct ue_page p = { .amf = arg, .limit = UES_LIMIT_DEFAULT };
	char v[24], *end;
	unsigned long long c = 0, lim;
	uint32_t cursor;
	json_t *j;
	int rc;

	(void)w;
	if (web_req_query(req, "limit", v, sizeof(v)) != -ENOENT) {
		errno = 0;
		lim = strtoull(v, &end, 10);
		if (!v[0] || *end || errno || v[0] == '-' || lim < 1 || lim > UES_LIMIT_MAX) {
			web_resp_error(resp, 400, "limit", "limit is 1 to %d", UES_LIMIT_MAX);
			return 0;
		}
		p.limit = (unsigned)lim;
	}
	rc = web_req_query(req, "cursor", v, sizeof(v));
	if (rc != -ENOENT) {
		errno = 0;
		c = strtoull(v, &end, 10);
		if (rc < 0 || !v[0] || *end || errno || v[0] < '0' || v[0] > '9' || c >= AMF_WALK_END) {
			web_resp_error(resp, 400, "cursor", "cursor is the \"next\" of the previous page");
			return 0;
		}
	}
	cursor = (uint32_t)c;
	p.items = json_array();
	if (!p.items || amf_ue_walk(arg, &cursor, WEB_WALK_BUDGET, ue_one, &p) < 0 || p.oom) {
		json_decref(p.items);
		web_resp_error(resp, 500, NULL, "out of memory");
		return 0;
	}
	j = json_pack("{s:I, s:o}", "limit", (json_int_t)p.limit, "items", p.items);
	if (j && cursor != AMF_WALK_END) {
		snprintf(v, sizeof(v), "%u", cursor);
		json_object_set_new(j, "next", json_string(v));
	}
	web_resp_json(resp, 200, j);
	return 0;
}

/* GET /api/v1/stats: the dashboard's counters, and the SMF's parts when it is attached. */
static int h_stats(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct amf_stats s;

	(void)req;
	json_t *j;

	amf_get_stats(arg, &s);
	j = json_pack("{s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I, s:I}",
		      "gnbs", (json_int_t)s.gnbs, "ue_contexts", (json_int_t)s.ues,
		      "registered_ues", (json_int_t)s.registered, "connected_ues", (json_int_t)s.connected,
		      "ngap_rx", (json_int_t)s.ngap_rx, "ngap_tx", (json_int_t)s.ngap_tx,
		      "registrations_accepted", (json_int_t)s.reg_accepted,
		      "registrations_rejected", (json_int_t)s.reg_rejected,
		      "auth_failures", (json_int_t)(s.auth_mac_fail + s.auth_sync_fail + s.auth_reject));
	if (j && w->smf)
		web_sess_stats_add(w, j);   /* "sessions", "upf" (api_sess.c) */
	web_resp_json(resp, 200, j);
	return 0;
}

static int ue_supi(const struct web_req *req, struct web_resp *resp, char supi[DB_SUPI_MAX])
{
	if (web_supi_from_param(web_req_param(req, 0), supi) < 0) {
		web_resp_error(resp, 400, "supi", "supi must be imsi-<5 to 15 digits> or the digits");
		return -EINVAL;
	}
	return 0;
}

static int h_ue(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	char supi[DB_SUPI_MAX], tmsi[12];
	struct amf_ue_info u;
	json_t *j, *psi;

	if (ue_supi(req, resp, supi) < 0)
		return 0;
	if (amf_ue_info_by_supi(arg, supi, &u) < 0) {
		web_resp_error(resp, 404, "supi", "no UE context for %s", supi);
		return 0;
	}
	psi = json_array();
	for (unsigned i = 1; i < 16; i++)
		if (u.psi_map & (1u << i))
			json_array_append_new(psi, json_integer(i));
	j = json_pack("{s:s, s:s, s:b, s:b, s:o}", "supi", supi, "state", amf_gmm_state_name(u.state),
		      "connected", u.amf_ue_ngap_id != UINT64_MAX, "paging", u.paging, "pdu_sessions", psi);
	if (j && u.amf_ue_ngap_id != UINT64_MAX) {
		json_object_set_new(j, "amf_ue_ngap_id", json_integer((json_int_t)u.amf_ue_ngap_id));
		json_object_set_new(j, "ran_ue_ngap_id", json_integer(u.ran_ue_ngap_id));
		json_object_set_new(j, "gnb_assoc", json_integer(u.assoc));
	}
	if (j && u.has_guti) {
		snprintf(tmsi, sizeof(tmsi), "%08x", u.tmsi);
		json_object_set_new(j, "tmsi", json_string(tmsi));
	}
	if (j && u.sec_active)
		json_object_set_new(j, "security", json_pack("{s:i, s:i}", "nia", u.nia, "nea", u.nea));
	/* With the SMF attached: "sessions": [S, ...] (api_sess.c). */
	if (j && w->smf && web_sess_ue_add(w, u.sm, j) < 0) {
		json_decref(j);
		web_resp_error(resp, 500, NULL, "out of memory");
		return 0;
	}
	web_resp_json(resp, 200, j);
	return 0;
}

static int h_ue_dereg(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	char supi[DB_SUPI_MAX];
	bool rereg = false;

	(void)w;
	if (ue_supi(req, resp, supi) < 0)
		return 0;
	if (req->body_len) {
		json_error_t e;
		json_t *j = json_loadb((const char *)req->body, req->body_len, 0, &e);
		json_t *r = json_object_get(j, "reregister");

		if (!json_is_object(j) || (r && !json_is_boolean(r))) {
			json_decref(j);
			web_resp_error(resp, 400, "reregister", "body: {\"reregister\": true|false}");
			return 0;
		}
		rereg = json_is_true(r);
		json_decref(j);
	}
	if (amf_deregister_supi(arg, supi, rereg) < 0) {
		web_resp_error(resp, 404, "supi", "no UE context for %s", supi);
		return 0;
	}
	web_resp_json(resp, 202, json_pack("{s:s, s:s}", "supi", supi, "status", "deregistering"));
	return 0;
}

/* GET /api/v1/stats is this view's; the SMF-only one web_attach_smf made when it came first
 * (api_sess.c) is taken over: these stats add the SMF's parts. */
static int stats_route(struct web *w, struct amf *amf)
{
	for (unsigned i = 0; i < w->nroutes; i++) {
		struct web_route *r = &w->routes[i];

		if (r->method == WEB_GET && !strcmp(r->pattern, "/api/v1/stats")) {
			r->fn = h_stats;
			r->arg = amf;
			return 0;
		}
	}
	return web_route_add(w, WEB_GET, "/api/v1/stats", WEB_ROLE_READ, h_stats, amf);
}

int web_attach_amf(struct web *w, struct amf *amf)
{
	int rc;

	if (!w || !amf)
		return -EINVAL;
	rc = web_metrics_register(w, metrics, amf);
	if (rc == 0)
		rc = stats_route(w, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_GET, "/api/v1/ues/{supi}", WEB_ROLE_READ, h_ue, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_GET, "/api/v1/ues", WEB_ROLE_READ, h_ues, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_GET, "/api/v1/gnbs", WEB_ROLE_READ, h_gnbs, amf);
	if (rc == 0)
		rc = web_route_add(w, WEB_POST, "/api/v1/ues/{supi}/deregister", WEB_ROLE_OPERATOR, h_ue_dereg, amf);
	return rc;
}
