/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* web internals: shared by the files of web/ only. */
#ifndef SOLOCORE_WEB_WEB_INT_H
#define SOLOCORE_WEB_WEB_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <http_parser.h>
#include <nghttp2/nghttp2.h>
#include <openssl/ssl.h>

#include "common/ev.h"
#include "web/web.h"

#define WEB_MAX_ROUTES 64
#define WEB_MAX_PARAMS 4
#define WEB_MAX_TOKENS 32
#define WEB_MAX_METRICS_FNS 32
#define WEB_PATH_MAX 2048
#define WEB_STATUS_SLOTS 16
#define WEB_COOKIE_MAX 1024
#define WEB_CSRF_HDR_MAX 128
#define WEB_MAX_SESSIONS 64
#define WEB_SESSIONS_PER_USER 8
#define WEB_SESSION_TTL_S (8 * 3600)
#define WEB_SESSION_COOKIE "solocore_session"
#define WEB_LOGIN_SLOTS 64
/* A handler that answers later (web_resp.job set): the transport binds the
 * job to its connection / stream and the response comes through
 * web_h1_deliver / web_h2_deliver on the loop thread. */
#define WEB_STATUS_DEFERRED 1
#define WEB_MAX_AUTH_JOBS 16

/* On every response: the page may load nothing from elsewhere and may not
 * be framed; no MIME sniffing. The UI's script and style are inline. */
#define WEB_CSP "default-src 'self'; script-src 'self' 'unsafe-inline'; " \
		"style-src 'self' 'unsafe-inline'; frame-ancestors 'none'"

/* A parsed request, independent of the transport. */
struct web_req {
	enum web_method method;
	bool method_known;
	char path[WEB_PATH_MAX];       /* decoded path, without query */
	const char *query;             /* raw query string (after '?'), "" if none */
	const uint8_t *body;
	size_t body_len;
	const char *params[WEB_MAX_PARAMS];
	char param_buf[WEB_PATH_MAX];
	enum web_role role;
	const char *bearer;            /* token, or NULL */
	bool loopback;
	char who[160];                 /* identity for the audit log */
	char user[72];                 /* user name (session or token owner), "" otherwise */
	uint8_t **body_own;            /* the transport's body buffer: web_req_take_body() */
	bool form_body;                /* a Content-Type other than application/json */
	bool cross_origin;             /* an Origin header that names another host than Host */
	bool by_cookie;                /* authenticated by a session cookie ... */
	uint8_t sess_hash[32];         /* ... whose id hashes to this */
};

/* The request headers the router uses (any may be NULL). */
struct web_hdrs {
	const char *auth;
	const char *cookie;
	const char *csrf;
	const char *ctype;    /* Content-Type (login checks it) */
	const char *origin;   /* Origin */
	const char *host;     /* Host / :authority */
};

/* A logged-in browser session (api_auth.c). Only hashes of the cookie
 * value are kept. */
struct web_session {
	uint8_t id_hash[32];
	char csrf[65];
	char user[72];
	enum web_role role;
	uint64_t expires;              /* CLOCK_MONOTONIC seconds, 0 = free */
};

/* Failed logins per user name (api_auth.c): a sliding lock-out. */
struct web_login_slot {
	char name[72];
	uint32_t fails;
	uint64_t window_start, locked_until;   /* monotonic seconds */
};

struct web_resp {
	int status;
	const char *content_type;
	char *body;                    /* malloc'd, owned */
	size_t len;
	char allow[64];                /* Allow header for 405 */
	char set_cookie[256];          /* Set-Cookie, or "" */
	unsigned retry_after;          /* Retry-After seconds (429), 0 = none */
	const char *content_disposition;  /* static string, or NULL */
	struct web_job *job;           /* status WEB_STATUS_DEFERRED */
};

enum conn_state { CONN_DETECT, CONN_TLS_HS, CONN_H1, CONN_H2 };

/* Buffer of bytes waiting for the socket. */
struct web_buf {
	uint8_t *p;
	size_t len, off, cap;
};

struct h1_state;
struct h2_state;

struct web_conn {
	struct web *web;
	int fd;
	enum conn_state state;
	bool dead;              /* closed: waiting for the deferred free */
	bool close_after_flush;
	bool want_write;
	bool loopback;
	bool waiting;           /* HTTP/1.1: a deferred response is pending; input held */
	bool out_more;          /* HTTP/2: nghttp2 has more to send once out drains */
	bool held;              /* HTTP/1.1: output over the high-water mark; parsing held */
	uint8_t peer[16];       /* client address (IPv4 as v4-mapped), for the per-client cap */
	uint64_t id;            /* unique per web: a deferred answer finds its connection */
	uint8_t idle_goaway;    /* idle timer fired once already (GOAWAY pending) */
	uint32_t events;        /* current ev mask */
	SSL *ssl;
	struct ev_timer idle;
	struct ev_timer req;    /* one request (or the TLS handshake) must be in by then */
	struct ev_timer life;   /* limits.lifetime_ms, then request_ms of grace */
	bool life_over;         /* the lifetime has passed: no new request */
	struct web_buf out;
	uint8_t detect[24];     /* first bytes, to spot the HTTP/2 preface */
	size_t detect_len;
	struct h1_state *h1;
	struct h2_state *h2;
	struct web_conn *prev, *next;
};

struct web_route {
	enum web_method method;
	char pattern[128];
	enum web_role min_role;
	web_handler fn;
	void *arg;
};

struct web_token {
	uint8_t hash[32];
	enum web_role role;
};

struct web_metrics_reg {
	web_metrics_fn fn;
	void *arg;
};

struct web {
	struct ev_loop *loop;
	struct db *db;
	struct udm *udm;
	struct web_change_ops chg;     /* changes.c: core.c's hooks */
	const struct conf *conf;
	struct web_limits lim;
	int lfd;
	uint16_t port;
	SSL_CTX *tls;
	struct web_conn *conns;
	uint32_t nconns;
	struct web_route routes[WEB_MAX_ROUTES];
	unsigned nroutes;
	struct web_token tokens[WEB_MAX_TOKENS];
	unsigned ntokens;
	struct web_metrics_reg metrics[WEB_MAX_METRICS_FNS];
	unsigned nmetrics;
	uint64_t start_ns;
	uint64_t start_unix;
	/* requests by status: codes seen so far, and a counter per code */
	uint16_t status_code[WEB_STATUS_SLOTS];
	uint64_t status_count[WEB_STATUS_SLOTS];
	uint64_t conns_rejected;
	uint64_t conns_accepted;
	struct web_session sessions[WEB_MAX_SESSIONS];
	struct web_login_slot logins[WEB_LOGIN_SLOTS];
	uint64_t login_global_start;   /* all names together: a guesser rotating names */
	uint32_t login_global_fails;
	uint64_t logins_ok, logins_failed, logins_limited;
	uint64_t next_conn_id;
	uint64_t body_bytes;           /* request body bytes buffered now, all connections */
	uint32_t h2_streams;           /* HTTP/2 streams open now, all connections */
	uint64_t refused_body, refused_streams, refused_client;   /* limit counters */
	struct web_auth_worker *aw;    /* the KDF thread (api_auth.c), made on first login */
	struct web_auth_worker *tw;    /* the task thread (web_task_submit), made on first use */
	bool task_busy;                /* a task is queued, running or stepping */
	bool task_writing;             /* ... and it writes the database */
	unsigned steps_inflight;       /* web_steps_submit requests not answered yet */
	/* The SMF's and the UPF's views (api_sess.c: web_attach_smf / web_attach_upf), not
	 * owned (they outlive web). With smf set, the AMF's UE view and stats (api_amf.c) add
	 * the SMF's parts (web_sess_ue_add, web_sess_stats_add). */
	struct smf *smf;
	struct upf *upf;
};

/* server.c: append n bytes to a growing buffer (doubling). 0 or -ENOMEM. */
int web_bytes_append(uint8_t **p, size_t *len, size_t *cap, const void *d, size_t n);
/* server.c: after a deferred response was queued: send, rearm, close if done. */
void web_conn_kick(struct web_conn *c);
/* server.c: the live connection with this id, or NULL. */
struct web_conn *web_conn_find(struct web *web, uint64_t id);
/* h1.c / h2.c: the deferred response for c (stream for HTTP/2); resp is
 * consumed. Negative: close c. */
int web_h1_deliver(struct web_conn *c, struct web_resp *resp);
int web_h2_deliver(struct web_conn *c, int32_t stream, struct web_resp *resp);
/* api_auth.c: tie a deferred job to where its answer goes. */
void web_job_bind(struct web_job *job, struct web_conn *c, int32_t stream);
/* api_auth.c: create (create true) or update a user whose password needs
 * hashing: the KDF runs on its thread, the answer (201/200, 409, 404, 503)
 * is deferred and audited when it comes. role 0 on update: keep. */
int web_user_write_deferred(struct web *web, const struct web_req *req, struct web_resp *resp,
			    const char *name, int role, const char *password, bool create);
/* api_auth.c: work that may take longer than about a millisecond (import,
 * export, backup, restore) runs off the control thread: run(arg, db) on the
 * task thread with a database connection of its own (db_open_peer); then
 * step(web, arg, resp) on the control thread, called again (through
 * ev_defer: other events run in between) while it returns 1; when it returns
 * 0, resp is the request's answer (deferred) and arg is the step's to free.
 * One task at a time: -EBUSY (503 in resp, arg still the caller's). With
 * writes, other API changes are refused (503) until the task has finished:
 * they would wait for its SQLite write lock on the control thread. The
 * answer is audited (as the router does) when it is a success. */
typedef void (*web_task_run)(void *arg, struct db *db);
typedef int (*web_task_step)(struct web *web, void *arg, struct web_resp *resp);
int web_task_submit(struct web *web, const struct web_req *req, struct web_resp *resp, web_task_run run,
		    web_task_step step, void *arg, bool writes);
/* api_auth.c: a request answered in bounded steps on the control thread
 * (large listings: their reads are on its connection, with its caches):
 * step(web, arg, resp) as above, first after the current batch of events,
 * again while it returns 1. No thread and no task slot: at most
 * WEB_MAX_STEPPED of them at a time (beyond: -EBUSY, 503 in resp), so one
 * loop pass runs at most that many steps. */
#define WEB_MAX_STEPPED 4
/* Pool slots one UE or session page may look at (amf_ue_walk, smf_sess_walk): a page over a
 * pool with 10^6 slots once used and few in use is short, with "next", instead of a walk
 * of the whole pool on the control thread (one slot is a cache miss: ~0.1 ms per 1024). */
#define WEB_WALK_BUDGET 16384u
int web_steps_submit(struct web *web, const struct web_req *req, struct web_resp *resp,
		     web_task_step step, void *arg);
/* api_auth.c: stop the KDF thread, drop pending jobs (web_stop). */
void web_auth_stop(struct web *web);
/* server.c: queue bytes on the connection and try to send them. */
int web_conn_send(struct web_conn *c, const void *data, size_t len);
void web_conn_close(struct web_conn *c);
/* Start / stop the request deadline (limits.request_ms). */
void web_conn_req_begin(struct web_conn *c);
void web_conn_req_end(struct web_conn *c);

/* h1.c */
int web_h1_init(struct web_conn *c);
void web_h1_free(struct web_conn *c);
/* Feed received bytes. Negative: close the connection. */
int web_h1_input(struct web_conn *c, const uint8_t *data, size_t len);
/* The request deadline passed: answer 408 and close. */
void web_h1_timeout(struct web_conn *c);

/* h2.c */
int web_h2_init(struct web_conn *c);
void web_h2_free(struct web_conn *c);
int web_h2_input(struct web_conn *c, const uint8_t *data, size_t len);
/* Let nghttp2 produce frames into c->out. Negative: close. */
int web_h2_flush(struct web_conn *c);
nghttp2_session *web_h2_session(struct web_conn *c);
/* c has a request stream open (answers going out count as activity; PING ACKs do not). */
bool web_h2_open(struct web_conn *c);
/* A stream of c waits for a deferred answer (a worker's job). */
bool web_h2_deferred(struct web_conn *c);
/* The request deadline of c's HTTP/2 streams passed (or may have): 408 to the late ones. */
void web_h2_timeout(struct web_conn *c);

/* tls.c */
int web_tls_ctx(const char *cert, const char *key, SSL_CTX **out);

/* server.c: account n more (add) or fewer body bytes in w->body_bytes. 0, or -ENOBUFS
 * when adding would exceed limits.max_body_total (nothing counted). */
int web_body_account(struct web *w, size_t n, bool add);
/* server.c: restart c's idle timer (a request began, or output made progress). */
void web_conn_touch(struct web_conn *c);
/* h1.c: output drained below the mark: parse what waited. Negative: close. */
int web_h1_resume(struct web_conn *c);
/* Output bytes queued on c now. */
static inline size_t web_conn_queued(const struct web_conn *c)
{
	return c->out.len - c->out.off;
}
#define WEB_OUT_HIGH_WATER (1u << 20)

/* router.c: the request head alone (before any body byte): the route, the
 * caller's rights. 0: go on, *body_cap is the body limit for this request
 * (limits.max_body when authenticated for a route that needs it, else
 * limits.max_body_unauth); 1: resp holds the answer (401/403) to send at
 * once, after which the body is not read. */
int web_preauth(struct web *web, const char *method, const char *target, const struct web_hdrs *hdrs,
		bool loopback, size_t *body_cap, struct web_resp *resp);
/* router.c: parse path and query, authenticate, route, fill resp. */
void web_dispatch(struct web *web, const char *method, const char *target,
		  const struct web_hdrs *hdrs, bool loopback, uint8_t **body_own, size_t body_len,
		  struct web_resp *resp);
/* router.c: take the request body (malloc'd, body_len bytes; the caller wipes
 * and frees it): the transport's pointer becomes NULL. NULL without a body. */
uint8_t *web_req_take_body(const struct web_req *req);
void web_resp_free(struct web_resp *resp);
const char *web_status_text(int status);
void web_count_status(struct web *web, int status);

/* api_misc.c: a growing text buffer (the one /metrics writes into). */
struct web_metrics_out *web_textbuf_new(void);
void web_textbuf_free(struct web_metrics_out *o);
/* Hand the text to resp as a 200 and free o. 0 or -ENOMEM. */
int web_textbuf_to_resp(struct web_metrics_out *o, struct web_resp *resp, const char *ctype);

/* api_subs.c, api_misc.c: the built-in routes. */
/* One route of a module's table, added by web_routes_add() in order. */
struct web_route_def {
	enum web_method m;
	const char *pat;
	enum web_role role;
	web_handler fn;
};
/* web_route_add() for each of defs[0..n) with arg; stops at the first failure. 0 or -errno. */
int web_routes_add(struct web *web, const struct web_route_def *defs, size_t n, void *arg);
int web_api_subs_routes(struct web *web);
int web_api_misc_routes(struct web *web);
int web_api_auth_routes(struct web *web);
int web_api_admin_routes(struct web *web);
/* api_policy.c: /api/v1/policies (policy profiles). */
int web_api_policy_routes(struct web *web);
/* api_cluster.c: /api/v1/cluster and /api/v1/cluster/nodes (issue 20). */
int web_api_cluster_routes(struct web *web);
/* api_cluster.c: a handler's rc that says the cluster has no reachable leader (only with a
 * cluster: section) made into a 503 with Retry-After in resp: true; false for any other. */
bool web_cluster_error(struct web *web, const struct web_req *req, int rc, struct web_resp *resp);

/* api_sess.c: the SMF's parts of the AMF's views (api_amf.c), for web->smf (set).
 * "sessions": [S, ...] of the UE whose SMF handle is sm (NULL: none) added to j: 0 or -ENOMEM. */
struct smf_ue;
struct hist;
int web_sess_ue_add(struct web *web, struct smf_ue *sm, struct json_t *j);
/* "sessions": n and "upf": {...} (null without a UPF) added to j. */
void web_sess_stats_add(struct web *web, struct json_t *j);
/* A Prometheus histogram of h (hist_bounds_us buckets, le in seconds): # HELP, # TYPE,
 * cumulative _bucket{le} lines, _sum, _count. */
void web_metrics_hist(struct web_metrics_out *o, const char *name, const char *help,
		      const struct hist *h);

/* api_auth.c: the role of a session cookie (0 if none or expired); its CSRF
 * token is copied to csrf_out (65 bytes), its user to user_out (72). */
enum web_role web_session_find(struct web *web, const char *cookie, char *csrf_out, char *user_out);
/* api_auth.c: first start with no user and no token: create "admin" with a
 * random password printed once on stdout. */
int web_first_admin(struct web *web);
uint64_t web_mono_s(void);
/* api_auth.c: end every browser session of user (password changed, user deleted). */
void web_sessions_end_user(struct web *web, const char *user);

/* changes.c: call the hooks of web_set_change_ops (nothing when unset). */
void web_changed_subscriber(struct web *web, const char *supi);
void web_changed_policy(struct web *web, const char *name);

#endif
