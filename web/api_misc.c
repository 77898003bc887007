/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * /api/v1/health, /api/v1/version, /api/v1/openapi.json, /metrics
 * (Prometheus text exposition format 0.0.4) and the embedded UI page.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "db/db.h"
#include "udm/udm.h"
#include "web/web_int.h"
#include "web/assets.h"

#ifndef SOLOCORE_VERSION
#define SOLOCORE_VERSION "unknown"
#endif

struct web_metrics_out {
	char *p;
	size_t len, cap;
	bool oom;
};

void web_metrics_printf(struct web_metrics_out *o, const char *fmt, ...)
{
	va_list ap;
	int n;

	for (;;) {
		size_t room = o->cap - o->len;

		if (o->oom)
			return;
		va_start(ap, fmt);
		n = vsnprintf(o->p ? o->p + o->len : NULL, room, fmt, ap);
		va_end(ap);
		if (n < 0) {
			o->oom = true;
			return;
		}
		if ((size_t)n < room) {
			o->len += (size_t)n;
			return;
		}
		size_t cap = o->cap ? o->cap * 2 : 4096;
		while (cap < o->len + (size_t)n + 1)
			cap *= 2;
		char *p = realloc(o->p, cap);
		if (!p) {
			o->oom = true;
			return;
		}
		o->p = p;
		o->cap = cap;
	}
}

struct web_metrics_out *web_textbuf_new(void)
{
	return calloc(1, sizeof(struct web_metrics_out));
}

void web_textbuf_free(struct web_metrics_out *o)
{
	if (!o)
		return;
	if (o->p)
		explicit_bzero(o->p, o->cap);   /* an export may hold keys */
	free(o->p);
	free(o);
}

int web_textbuf_to_resp(struct web_metrics_out *o, struct web_resp *resp, const char *ctype)
{
	if (o->oom) {
		web_textbuf_free(o);
		return -ENOMEM;
	}
	web_resp_free(resp);
	resp->status = 200;
	resp->content_type = ctype;
	resp->body = o->p;
	resp->len = o->len;
	free(o);
	return 0;
}

int web_metrics_register(struct web *w, web_metrics_fn fn, void *arg)
{
	if (!fn)
		return -EINVAL;
	if (w->nmetrics == WEB_MAX_METRICS_FNS)
		return -ENOSPC;
	w->metrics[w->nmetrics].fn = fn;
	w->metrics[w->nmetrics++].arg = arg;
	return 0;
}

static uint64_t rss_bytes(void)
{
	unsigned long size = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (!f)
		return 0;
	if (fscanf(f, "%lu %lu", &size, &res) != 2)
		res = 0;
	fclose(f);
	return (uint64_t)res * (uint64_t)sysconf(_SC_PAGESIZE);
}

static double uptime_s(struct web *w)
{
	return (double)(ev_update_now(w->loop) - w->start_ns) / 1e9;
}

/* The web module's own series. */
static void own_metrics(struct web *w, struct web_metrics_out *o)
{
	int64_t subs = w->db ? db_subscriber_count(w->db) : -1;
	unsigned i;

	web_metrics_printf(o, "# HELP process_resident_memory_bytes Resident memory size in bytes.\n"
			      "# TYPE process_resident_memory_bytes gauge\n"
			      "process_resident_memory_bytes %llu\n",
			   (unsigned long long)rss_bytes());
	web_metrics_printf(o, "# HELP process_start_time_seconds Start time of the process since unix epoch in seconds.\n"
			      "# TYPE process_start_time_seconds gauge\n"
			      "process_start_time_seconds %llu\n",
			   (unsigned long long)w->start_unix);
	web_metrics_printf(o, "# HELP solocore_uptime_seconds Seconds since the web server started.\n"
			      "# TYPE solocore_uptime_seconds gauge\n"
			      "solocore_uptime_seconds %.3f\n", uptime_s(w));
	web_metrics_printf(o, "# HELP solocore_build_info Version of this binary.\n"
			      "# TYPE solocore_build_info gauge\n"
			      "solocore_build_info{version=\"%s\"} 1\n", SOLOCORE_VERSION);
	web_metrics_printf(o, "# HELP solocore_http_requests_total HTTP requests answered, by status code.\n"
			      "# TYPE solocore_http_requests_total counter\n");
	for (i = 0; i < WEB_STATUS_SLOTS && w->status_code[i]; i++)
		web_metrics_printf(o, "solocore_http_requests_total{code=\"%u\"} %llu\n",
				   w->status_code[i], (unsigned long long)w->status_count[i]);
	web_metrics_printf(o, "# HELP solocore_http_connections Open HTTP connections.\n"
			      "# TYPE solocore_http_connections gauge\n"
			      "solocore_http_connections %u\n"
			      "# HELP solocore_http_connections_rejected_total Connections refused at the limit.\n"
			      "# TYPE solocore_http_connections_rejected_total counter\n"
			      "solocore_http_connections_rejected_total %llu\n",
			   w->nconns, (unsigned long long)w->conns_rejected);
	if (subs >= 0)
		web_metrics_printf(o, "# HELP solocore_subscribers Subscribers provisioned in the database.\n"
				      "# TYPE solocore_subscribers gauge\n"
				      "solocore_subscribers %lld\n", (long long)subs);
	if (w->udm)
		web_metrics_printf(o, "# HELP solocore_udm_subscribers Subscribers in the UDM's memory.\n"
				      "# TYPE solocore_udm_subscribers gauge\n"
				      "solocore_udm_subscribers %u\n", udm_count(w->udm));
}

static int h_metrics(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct web_metrics_out *o = web_textbuf_new();
	unsigned i;

	(void)req;
	(void)arg;
	if (!o)
		return -ENOMEM;
	own_metrics(w, o);
	for (i = 0; i < w->nmetrics; i++)
		w->metrics[i].fn(o, w->metrics[i].arg);
	return web_textbuf_to_resp(o, resp, "text/plain; version=0.0.4; charset=utf-8");
}

static int h_health(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	int64_t n = w->db ? db_subscriber_count(w->db) : 0;
	bool ok = n >= 0;

	(void)req;
	(void)arg;
	web_resp_json(resp, ok ? 200 : 503,
		      json_pack("{s:s, s:s, s:I}", "status", ok ? "ok" : "degraded",
				"database", !w->db ? "none" : ok ? "ok" : "error",
				"uptime_seconds", (json_int_t)uptime_s(w)));
	return 0;
}

static int h_version(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)w;
	(void)req;
	(void)arg;
	web_resp_json(resp, 200, json_pack("{s:s, s:s, s:i}", "version", SOLOCORE_VERSION,
					   "api", "v1", "db_schema", db_schema_latest()));
	return 0;
}

static int h_openapi(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)w;
	(void)req;
	(void)arg;
	web_resp_text(resp, 200, "application/json", web_openapi_json, strlen(web_openapi_json));
	return 0;
}

static int h_ui(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)w;
	(void)req;
	(void)arg;
	web_resp_text(resp, 200, "text/html; charset=utf-8", web_ui_html, strlen(web_ui_html));
	return 0;
}

int web_api_misc_routes(struct web *w)
{
	int rc = 0;

	rc |= web_route_add(w, WEB_GET, "/api/v1/health", WEB_ROLE_NONE, h_health, NULL);
	rc |= web_route_add(w, WEB_GET, "/api/v1/version", WEB_ROLE_NONE, h_version, NULL);
	rc |= web_route_add(w, WEB_GET, "/api/v1/openapi.json", WEB_ROLE_NONE, h_openapi, NULL);
	rc |= web_route_add(w, WEB_GET, "/metrics", WEB_ROLE_READ, h_metrics, NULL);
	rc |= web_route_add(w, WEB_GET, "/", WEB_ROLE_NONE, h_ui, NULL);
	return rc ? -ENOSPC : 0;
}
