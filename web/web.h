/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web - the HTTP server of the control thread: REST API under /api/v1,
 * Prometheus /metrics, the embedded UI page.
 *
 * Transports, all on one port, all non-blocking on the caller's ev loop:
 *   - HTTP/1.1 (http-parser), keep-alive and pipelining;
 *   - HTTP/2 cleartext with prior knowledge (RFC 9113 3.3): a connection that
 *     opens with the client preface "PRI * HTTP/2.0..." goes to nghttp2;
 *   - TLS (OpenSSL) when conf->web.tls.cert/key are set: then the port speaks
 *     TLS only, ALPN chooses "h2" or "http/1.1" (RFC 7301).
 *
 * Limits (struct web_limits, defaults below): request head size (431),
 * body size (413; far smaller for a route that needs no authentication),
 * body bytes buffered in total (503), connections in total and per client
 * address (503 then close), idle time per connection (only requests and
 * response progress count: an HTTP/2 PING does not), time to receive one
 * whole HTTP/1.1 request, one HTTP/2 stream's request, or finish a TLS
 * handshake (408: a client trickling bytes cannot hold a connection or a
 * stream forever). Authentication and the route's role are checked on the
 * request head, before a body byte is buffered or 100 Continue is sent.
 * A connection whose output exceeds 1 MiB is not read nor parsed further
 * (pipelined requests wait) until the client has read it.
 *
 * The process must ignore SIGPIPE (solocore.c does): OpenSSL writes to the
 * socket with write(2).
 *
 * Authentication, in this order:
 *   - `Authorization: Bearer <token>`: a static token (web_token_add(),
 *     $SOLOCORE_WEB_TOKEN as admin) or an API token from the database
 *     (POST /api/v1/tokens, stored as SHA-256);
 *   - the session cookie of POST /api/v1/login (users in the database,
 *     PBKDF2-HMAC-SHA256; HttpOnly, SameSite=Strict, Secure under TLS);
 *     POST/PUT/PATCH/DELETE with a cookie also need the session's
 *     X-CSRF-Token header (403 otherwise);
 *   - config-less default: no token, no user, and a loopback peer: operator.
 * Roles: read (views), operator (+ subscriber changes), admin (+ users,
 * tokens, audit log, backup/restore, secrets). Health, version, the OpenAPI
 * document, login and the UI page need nothing. On first start with no user
 * and no token (web_limits.first_admin) the user "admin" is created with a
 * random password printed once on stdout. Every successful change is
 * written to the audit log (who, METHOD path, status, time); logins too.
 * The login's KDF runs on a thread of its own: the control thread never
 * waits for it.
 *
 * Secrets: K, OPc and OP are accepted on writes and only returned by GET
 * /api/v1/subscribers/{imsi}?secrets=1 or the export with ?secrets=1, with an
 * admin token. They are never logged; request bodies are never logged.
 *
 * Other modules plug in read views (gNBs, UEs, sessions) with web_route_add()
 * and their counters with web_metrics_register().
 */
#ifndef SOLOCORE_WEB_WEB_H
#define SOLOCORE_WEB_WEB_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

struct ev_loop;
struct conf;
struct db;
struct udm;
struct web;
struct web_req;
struct web_resp;
struct json_t;   /* jansson */

struct web_limits {
	uint32_t max_conns;        /* default 256 */
	uint32_t max_head;         /* request line + headers, bytes; default 16384 */
	uint32_t max_body;         /* default 16 MiB (a TOML import of ~100k SIMs) */
	uint32_t idle_ms;          /* default 60000 */
	uint32_t request_ms;       /* default 30000 */
	uint32_t h2_max_streams;   /* SETTINGS_MAX_CONCURRENT_STREAMS, default 100: more open
				    * streams on one connection are refused (RST_STREAM
				    * REFUSED_STREAM) */
	/* Request bodies are buffered only after the head has passed
	 * authentication and the route's role; a route that needs none (login)
	 * takes at most max_body_unauth bytes (default 16384, 413 beyond). */
	uint32_t max_body_unauth;
	/* Body bytes buffered over all connections and streams (default 64 MiB):
	 * a request that would go beyond gets 503 + Retry-After. */
	uint32_t max_body_total;
	/* Open HTTP/2 streams over all connections (default 1024). */
	uint32_t h2_max_streams_total;
	/* Connections from one client address (IPv4, or IPv6 /64), default 16 (503). */
	uint32_t max_conns_per_client;
	/* Absolute connection lifetime, default 3600000 (1 h; 0: none): then no
	 * new request (HTTP/1.1 "Connection: close", HTTP/2 GOAWAY), and the
	 * connection is closed after at most request_ms more, whatever is in
	 * flight, so a client reading an answer a byte at a time (which counts
	 * as activity for idle_ms) cannot hold it and its output for ever. */
	uint32_t lifetime_ms;
	/* No user in the database and no token: create user "admin" with a
	 * random password printed once on stdout (default true). */
	bool first_admin;
	/* Failed logins for one user name within login_lock_s before that name
	 * is locked for login_lock_s (429 + Retry-After); defaults 5 and 300.
	 * All names together: 10x that many. */
	uint32_t login_max_fails;
	uint32_t login_lock_s;
};

/* Fill l with the defaults above. */
void web_limits_default(struct web_limits *l);

/*
 * Start listening on conf->web.listen:conf->web.port (port 0: ephemeral, see
 * web_port()) on loop. db is the subscriber store the API writes; udm (may be
 * NULL) is the in-memory store the AMF uses: subscribers created, changed or
 * deleted through the API are changed there too by udm_add_db(), so fields
 * left unset get the store's network defaults (udm_set_defaults(), which
 * udm_start() sets from conf) exactly as at start-up. limits may be NULL.
 * conf, db and udm must outlive web.
 * Sets jansson's allocator process-wide (its buffers are wiped on free).
 * 0 or -errno (-EINVAL for an unusable TLS cert/key, logged).
 */
int web_start(struct ev_loop *loop, const struct conf *conf, struct db *db, struct udm *udm,
	      const struct web_limits *limits, struct web **out);
/* Close the listener and every connection (pending output is flushed once,
 * without waiting), free everything. Accepts NULL. */
void web_stop(struct web *web);
/* The bound TCP port (useful with port 0). */
uint16_t web_port(const struct web *web);
/* Open connections. */
uint32_t web_conn_count(const struct web *web);

enum web_role { WEB_ROLE_NONE = 0, WEB_ROLE_READ = 1, WEB_ROLE_OPERATOR = 2, WEB_ROLE_ADMIN = 3 };

/* Accept `Authorization: Bearer token` with role. Only a SHA-256 of the token
 * is kept. 0, -EINVAL (empty or too long, > 256), -ENOSPC (32 tokens). */
int web_token_add(struct web *web, const char *token, enum web_role role);

/* The AMF's views (api_amf.c): /metrics lines from amf_get_stats(), GET
 * /api/v1/stats, GET /api/v1/ues/{supi}, POST /api/v1/ues/{supi}/deregister
 * (operator). Call after web_start() on the thread that owns amf; amf must
 * outlive web (stop web first). 0, -EINVAL, -ENOSPC. */
struct amf;
int web_attach_amf(struct web *web, struct amf *amf);

/* Network settings (api_settings.c): GET /api/v1/settings (read), PATCH and DELETE
 * /api/v1/settings (admin). PATCH checks everything first (400 naming the field, 409 when a
 * DNN with PDU sessions would go or change pool), saves the given keys in the database
 * (settings "net.*"), has env->apply carry tacs, slices and dnns to the running core (dnns
 * only when the UPF's UE prefix covers every pool) and leaves plmn and amf_name (and
 * ?live=0) for the next start. DELETE drops the saved keys: the next start runs with the
 * configuration file's values. web/ parses, checks and saves; the composition root applies
 * (core_live.c), each module through its own setter. */
#define WEB_LIVE_TACS   (1u << 2)
#define WEB_LIVE_SLICES (1u << 3)
#define WEB_LIVE_DNNS   (1u << 4)
struct smf;
struct web_settings_env {
	const struct conf *conf;   /* the configuration the modules run with now (apply keeps it so) */
	const struct conf *base;   /* as loaded from the file, before the saved keys (NULL: conf) */
	struct smf *smf;           /* may be NULL; read only: pool usage, the DNN check before a save */
	uint32_t ue_net;           /* the running UPF's UE prefix (network order) ... */
	uint8_t ue_plen;           /* ... and its length; 0: no UPF (any pool applies live) */
	/* Apply the keys of want (WEB_LIVE_*) of c to the running modules and to conf; returns
	 * the keys applied (the others wait for the next start). NULL: nothing applies live. */
	unsigned (*apply)(void *arg, const struct conf *c, unsigned want);
	void *apply_arg;
};
/* env and what it points to must outlive web. 0, -EINVAL (no database), -ENOSPC. */
int web_attach_settings(struct web *web, struct web_settings_env *env);
/* At start, before any module reads conf: the saved settings of db on top of conf (a saved
 * key that no longer passes the checks is logged and skipped). names gets the keys applied,
 * "tacs, dnns". Returns how many, or -errno. */
int web_settings_overlay(struct db *db, struct conf *conf, char *names, size_t namesz);
/* The saved settings changed elsewhere (another node of a cluster): read them again and
 * apply those that apply live (as PATCH would: tacs, slices, dnns when no session holds a
 * changed pool) and differ from what runs. applied / restart get WEB_LIVE_-style key bits
 * (the others wait for the next start). 0 or -errno (nothing applied). */
int web_settings_reload(struct web *w, struct web_settings_env *env, unsigned *applied,
			unsigned *restart);

/* What an API write changed that attached UEs must learn, for the composition root (core.c)
 * to carry to the AMF and SMF: subscriber() after a subscriber's row is stored and in the
 * UDM (create, replace, patch), policy() after a policy's values are (replace). On the
 * control thread, from the handler; must not block. Either may be NULL. */
struct web_change_ops {
	void (*subscriber)(void *arg, const char *supi);
	void (*policy)(void *arg, const char *name);
	void *arg;
};
/* Copied; NULL clears. */
void web_set_change_ops(struct web *web, const struct web_change_ops *ops);

/* ---- routes (for other modules' views) ---- */

enum web_method { WEB_GET, WEB_POST, WEB_PUT, WEB_PATCH, WEB_DELETE, WEB_METHOD_N };

/* A handler fills resp (web_resp_json / web_resp_error / web_resp_text) and returns 0;
 * a negative return becomes a 500. Runs on the control thread; must not block. */
typedef int (*web_handler)(struct web *web, const struct web_req *req, struct web_resp *resp,
			   void *arg);

/* pattern: a path whose segments are literal or "{name}" (one segment), e.g.
 * "/api/v1/ues/{supi}". min_role: the least role allowed (WEB_ROLE_NONE: no
 * authentication). Routes are matched in the order added. 0, -ENOSPC, -EINVAL. */
int web_route_add(struct web *web, enum web_method m, const char *pattern, enum web_role min_role,
		  web_handler fn, void *arg);

/* n-th "{name}" segment of the matched pattern (percent-decoded), or NULL. */
const char *web_req_param(const struct web_req *req, unsigned n);
/* Query parameter key (percent-decoded, '+' is a space) copied to buf. Returns its
 * length, -ENOENT if absent, -ENOSPC if it does not fit. */
int web_req_query(const struct web_req *req, const char *key, char *buf, size_t bufsz);
const uint8_t *web_req_body(const struct web_req *req, size_t *len);
enum web_role web_req_role(const struct web_req *req);

/* Respond with json (reference stolen, even on failure). */
void web_resp_json(struct web_resp *resp, int status, struct json_t *json);
/* {"error": msg, "field": field} (field may be NULL: omitted). */
void web_resp_error(struct web_resp *resp, int status, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* A body copied as is. */
void web_resp_text(struct web_resp *resp, int status, const char *content_type, const char *body,
		   size_t len);

/* ---- metrics ---- */

struct web_metrics_out;
/* Write Prometheus text-format lines (with their # HELP / # TYPE) through web_metrics_printf. */
typedef void (*web_metrics_fn)(struct web_metrics_out *out, void *arg);
/* Called on every scrape of /metrics, in registration order. 0 or -ENOSPC (32). */
int web_metrics_register(struct web *web, web_metrics_fn fn, void *arg);
void web_metrics_printf(struct web_metrics_out *out, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* ---- PDU sessions and the user plane (api_sess.c) ----
 * web_attach_smf: GET /api/v1/sessions (read; ?limit=1..1000, ?cursor= from "next"),
 * "sessions" in GET /api/v1/ues/{supi}, "sessions" and "upf" in GET /api/v1/stats, and on
 * /metrics solocore_smf_sessions, solocore_smf_session_setups_total{result,cause} and the
 * histogram solocore_smf_session_setup_seconds. In either order with web_attach_amf() (the
 * AMF's UE view and stats add the SMF's parts; without the AMF it serves /api/v1/stats
 * itself). web_attach_upf, after web_attach_smf: the UPF's
 * counters ("upf" in the stats, solocore_upf_packets_total / _bytes_total{direction},
 * solocore_upf_drops_total{reason}); without it "upf" is null. A session's counters and
 * "user_plane" come from the SMF's UPF (smf_set_upf): zeros and false without one. On the
 * thread that owns them; smf and upf must outlive web.
 * 0, -EINVAL, -EALREADY (smf attached twice), -ENOSPC (routes). */
struct smf;
struct upf;
int web_attach_smf(struct web *web, struct smf *smf);
int web_attach_upf(struct web *web, struct upf *upf);
/* upf.mode pfcp: the SMF's PFCP client's counters on /metrics as
 * solocore_pfcp_events_total{event} (upf.h upf_n4c_counter_name). 0, -EINVAL, -ENOSPC. */
struct upf_n4c;
int web_attach_n4c(struct web *web, struct upf_n4c *c);

#endif
