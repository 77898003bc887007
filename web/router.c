/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web router: request target parsing, bearer-token authentication, the route
 * table (method + path pattern), JSON responses and errors, status counters.
 * Transport independent: h1.c and h2.c call web_dispatch() with the parts.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>

#include "common/hex.h"
#include "common/log.h"
#include "db/db.h"
#include "web/web_int.h"

static const char *const method_names[WEB_METHOD_N] = {
	[WEB_GET] = "GET", [WEB_POST] = "POST", [WEB_PUT] = "PUT",
	[WEB_PATCH] = "PATCH", [WEB_DELETE] = "DELETE",
};

const char *web_status_text(int status)
{
	switch (status) {
	case 200: return "OK";
	case 201: return "Created";
	case 204: return "No Content";
	case 400: return "Bad Request";
	case 401: return "Unauthorized";
	case 403: return "Forbidden";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 408: return "Request Timeout";
	case 409: return "Conflict";
	case 413: return "Content Too Large";
	case 429: return "Too Many Requests";
	case 414: return "URI Too Long";
	case 415: return "Unsupported Media Type";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 503: return "Service Unavailable";
	default: return "Unknown";
	}
}

void web_count_status(struct web *w, int status)
{
	unsigned i;

	for (i = 0; i < WEB_STATUS_SLOTS && w->status_code[i]; i++)
		if (w->status_code[i] == status)
			break;
	if (i == WEB_STATUS_SLOTS)
		i = WEB_STATUS_SLOTS - 1;   /* more distinct codes than slots: lump into the last */
	else if (!w->status_code[i])
		w->status_code[i] = (uint16_t)status;
	w->status_count[i]++;
}

void web_resp_free(struct web_resp *r)
{
	free(r->body);
	r->body = NULL;
	r->len = 0;
}

void web_resp_text(struct web_resp *r, int status, const char *ctype, const char *body, size_t len)
{
	web_resp_free(r);
	r->status = status;
	r->content_type = ctype;
	if (!len)
		return;
	r->body = malloc(len);
	if (!r->body) {
		r->status = 500;
		return;
	}
	memcpy(r->body, body, len);
	r->len = len;
}

void web_resp_json(struct web_resp *r, int status, json_t *j)
{
	char *s;

	web_resp_free(r);
	r->status = status;
	r->content_type = "application/json";
	s = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (!s) {
		static const char oom[] = "{\"error\":\"out of memory\"}";

		r->status = 500;
		r->body = strdup(oom);
		r->len = r->body ? sizeof(oom) - 1 : 0;
		return;
	}
	r->len = strlen(s);
	r->body = s;
}

void web_resp_error(struct web_resp *r, int status, const char *field, const char *fmt, ...)
{
	char msg[512];
	va_list ap;
	json_t *j;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	j = json_pack("{s:s}", "error", msg);
	if (!j) {
		/* Not UTF-8 (a path or field a client sent): jansson refuses it;
		 * say it with the odd bytes as '?' rather than a 500. */
		for (char *p = msg; *p; p++)
			if ((unsigned char)*p >= 0x80 || (unsigned char)*p < 0x20)
				*p = '?';
		j = json_pack("{s:s}", "error", msg);
	}
	if (j && field)
		json_object_set_new(j, "field", json_string(field));
	web_resp_json(r, status, j);
}

int web_token_add(struct web *w, const char *token, enum web_role role)
{
	size_t n = token ? strlen(token) : 0;
	unsigned len = 32;

	if (!n || n > 256 || role == WEB_ROLE_NONE || role > WEB_ROLE_ADMIN)
		return -EINVAL;
	if (w->ntokens == WEB_MAX_TOKENS)
		return -ENOSPC;
	if (!EVP_Digest(token, n, w->tokens[w->ntokens].hash, &len, EVP_sha256(), NULL))
		return -EIO;
	w->tokens[w->ntokens++].role = role;
	return 0;
}

/* Value of cookie name in a Cookie header ("a=1; b=2"), copied to out. */
static bool cookie_get(const char *hdr, const char *name, char *out, size_t outsz)
{
	size_t nl = strlen(name);

	while (hdr && *hdr) {
		while (*hdr == ' ' || *hdr == ';')
			hdr++;
		const char *end = strchrnul(hdr, ';');
		if ((size_t)(end - hdr) > nl && memcmp(hdr, name, nl) == 0 && hdr[nl] == '=') {
			size_t vl = (size_t)(end - hdr) - nl - 1;
			if (vl >= outsz)
				return false;
			memcpy(out, hdr + nl + 1, vl);
			out[vl] = 0;
			return true;
		}
		hdr = end;
	}
	return false;
}

enum auth_fail { AUTH_OK, AUTH_BAD_TOKEN, AUTH_CSRF };

/* The role of a bearer token from the database (an API token), capped at
 * its creator's role now; WEB_ROLE_NONE if it is unknown or its user gone. */
static enum web_role auth_db_token(struct web *w, const char *token, struct web_req *req)
{
	enum web_role role;
	struct db_token t;
	struct db_user u;

	if (db_token_check(w->db, token, &t) != 0)
		return WEB_ROLE_NONE;
	/* A token carries at most its creator's role now: a demoted
	 * user's tokens are demoted with it, a deleted user's end
	 * ("static": made with a static token, no user behind it). */
	role = (enum web_role)t.role;
	if (db_user_get(w->db, t.owner, &u) == 0) {
		if ((enum web_role)u.role < role)
			role = (enum web_role)u.role;
	} else if (strcmp(t.owner, "static") != 0) {
		role = WEB_ROLE_NONE;
	}
	if (role) {
		snprintf(req->who, sizeof(req->who), "%s (token %s)", t.owner, t.name);
		snprintf(req->user, sizeof(req->user), "%s", t.owner);
	}
	return role;
}

/* The role an Authorization header gives: a static token, else an API token
 * from the database; WEB_ROLE_NONE with AUTH_BAD_TOKEN otherwise. */
static enum web_role auth_bearer(struct web *w, const char *auth, struct web_req *req,
				 enum auth_fail *fail)
{
	uint8_t h[32];
	unsigned len = 32, i;
	enum web_role role = WEB_ROLE_NONE;

	/* RFC 6750 2.1: "Bearer" is case-insensitive, one space then the token. */
	if (strncasecmp(auth, "Bearer ", 7) != 0 || !auth[7] ||
	    !EVP_Digest(auth + 7, strlen(auth + 7), h, &len, EVP_sha256(), NULL)) {
		*fail = AUTH_BAD_TOKEN;
		return WEB_ROLE_NONE;
	}
	/* Constant time over every token: no timing hint of which one matched. */
	for (i = 0; i < w->ntokens; i++)
		if (CRYPTO_memcmp(h, w->tokens[i].hash, 32) == 0)
			role = w->tokens[i].role;
	if (role) {
		snprintf(req->who, sizeof(req->who), "token:static");
		return role;
	}
	if (w->db) {
		role = auth_db_token(w, auth + 7, req);
		if (role)
			return role;
	}
	*fail = AUTH_BAD_TOKEN;
	return WEB_ROLE_NONE;
}

/* The role a session cookie gives (unsafe methods also need the session's
 * X-CSRF-Token, else AUTH_CSRF); WEB_ROLE_NONE with *fail untouched when
 * there is no live session, so the caller falls back. */
static enum web_role auth_cookie(struct web *w, const struct web_hdrs *hd, struct web_req *req,
				 enum auth_fail *fail)
{
	enum web_role role;
	char sid[128];
	char csrf[65];

	if (!hd || !hd->cookie || !cookie_get(hd->cookie, WEB_SESSION_COOKIE, sid, sizeof(sid)))
		return WEB_ROLE_NONE;
	role = web_session_find(w, sid, csrf, req->user);
	if (role && w->db) {
		struct db_user u;

		/* The user's role now, not the one at login: a demotion or a
		 * removal takes effect on the next request. */
		role = db_user_get(w->db, req->user, &u) == 0 ? (enum web_role)u.role : WEB_ROLE_NONE;
	}
	if (role) {
		unsigned hl = 32;

		req->by_cookie = EVP_Digest(sid, strlen(sid), req->sess_hash, &hl, EVP_sha256(), NULL) == 1;
	}
	explicit_bzero(sid, sizeof(sid));
	if (!role)
		return WEB_ROLE_NONE;
	snprintf(req->who, sizeof(req->who), "%s", req->user);
	/* CSRF: a cross-site form or fetch carries the cookie but
	 * cannot read the token the login returned, so an unsafe
	 * method without it is refused (OWASP "synchronizer token"). */
	if (req->method != WEB_GET &&
	    (!hd->csrf || strlen(hd->csrf) != strlen(csrf) ||
	     CRYPTO_memcmp(hd->csrf, csrf, strlen(csrf)) != 0)) {
		*fail = AUTH_CSRF;
		return WEB_ROLE_NONE;
	}
	return role;
}

/* The role the request has (web.h): a bearer token (static, or an API token
 * from the database), else a session cookie (unsafe methods also need the
 * session's X-CSRF-Token), else the loopback default when nothing is
 * configured. Sets req->who / req->user for the audit log. */
static enum web_role authenticate(struct web *w, const struct web_hdrs *hd, struct web_req *req,
				  enum auth_fail *fail)
{
	enum web_role role;

	*fail = AUTH_OK;
	if (hd && hd->auth)
		return auth_bearer(w, hd->auth, req, fail);
	role = auth_cookie(w, hd, req, fail);
	if (role || *fail != AUTH_OK)
		return role;
	if (req->loopback && w->ntokens == 0 && (!w->db || db_user_count(w->db) == 0)) {
		snprintf(req->who, sizeof(req->who), "loopback");
		return WEB_ROLE_OPERATOR;
	}
	return WEB_ROLE_NONE;
}

int web_routes_add(struct web *w, const struct web_route_def *defs, size_t n, void *arg)
{
	int rc = 0;

	for (size_t i = 0; rc == 0 && i < n; i++)
		rc = web_route_add(w, defs[i].m, defs[i].pat, defs[i].role, defs[i].fn, arg);
	return rc;
}

int web_route_add(struct web *w, enum web_method m, const char *pattern, enum web_role min_role,
		  web_handler fn, void *arg)
{
	struct web_route *r;

	if (!pattern || pattern[0] != '/' || !fn || m >= WEB_METHOD_N ||
	    strlen(pattern) >= sizeof(r->pattern))
		return -EINVAL;
	if (w->nroutes == WEB_MAX_ROUTES)
		return -ENOSPC;
	r = &w->routes[w->nroutes++];
	r->method = m;
	snprintf(r->pattern, sizeof(r->pattern), "%s", pattern);
	r->min_role = min_role;
	r->fn = fn;
	r->arg = arg;
	return 0;
}

/* Match path against pattern segment by segment; "{x}" takes one segment,
 * copied to req->param_buf. */
static bool route_match(const char *pat, const char *path, struct web_req *req)
{
	size_t used = 0;
	unsigned np = 0;

	while (*pat && *path) {
		const char *pe, *se;

		if (*pat != '/' || *path != '/')
			return false;
		pat++;
		path++;
		pe = strchrnul(pat, '/');
		se = strchrnul(path, '/');
		if (*pat == '{' && pe > pat && pe[-1] == '}') {
			size_t n = (size_t)(se - path);

			if (!n || np == WEB_MAX_PARAMS || used + n + 1 > sizeof(req->param_buf))
				return false;
			memcpy(req->param_buf + used, path, n);
			req->param_buf[used + n] = 0;
			req->params[np++] = req->param_buf + used;
			used += n + 1;
		} else if (pe - pat != se - path || memcmp(pat, path, (size_t)(pe - pat)) != 0) {
			return false;
		}
		pat = pe;
		path = se;
	}
	return *pat == 0 && *path == 0;
}

/* RFC 3986 2.1 percent-decoding into out; plus_space for query values
 * (application/x-www-form-urlencoded). -EINVAL on a bad escape or a NUL. */
static int pct_decode(const char *in, size_t n, char *out, size_t outsz, bool plus_space)
{
	size_t i, o = 0;

	for (i = 0; i < n; i++) {
		int c = (unsigned char)in[i];

		if (c == '%') {
			int hi, lo;

			if (n - i < 3)
				return -EINVAL;
			hi = hex_digit((unsigned char)in[i + 1]);
			lo = hex_digit((unsigned char)in[i + 2]);
			if (hi < 0 || lo < 0)
				return -EINVAL;
			c = hi * 16 + lo;
			i += 2;
			if (c == 0)
				return -EINVAL;
		} else if (c == '+' && plus_space) {
			c = ' ';
		}
		if (o + 1 >= outsz)
			return -ENOSPC;
		out[o++] = (char)c;
	}
	out[o] = 0;
	return (int)o;
}

const char *web_req_param(const struct web_req *req, unsigned n)
{
	return n < WEB_MAX_PARAMS ? req->params[n] : NULL;
}

int web_req_query(const struct web_req *req, const char *key, char *buf, size_t bufsz)
{
	const char *p = req->query;
	size_t kl = strlen(key);

	while (p && *p) {
		const char *end = strchrnul(p, '&');
		const char *eq = memchr(p, '=', (size_t)(end - p));
		const char *kend = eq ? eq : end;

		if ((size_t)(kend - p) == kl && memcmp(p, key, kl) == 0) {
			const char *v = eq ? eq + 1 : end;

			return pct_decode(v, (size_t)(end - v), buf, bufsz, true);
		}
		p = *end ? end + 1 : end;
	}
	return -ENOENT;
}

uint8_t *web_req_take_body(const struct web_req *req)
{
	uint8_t *b;

	if (!req->body_own || !*req->body_own)
		return NULL;
	b = *req->body_own;
	*req->body_own = NULL;
	return b;
}

const uint8_t *web_req_body(const struct web_req *req, size_t *len)
{
	*len = req->body_len;
	return req->body;
}

enum web_role web_req_role(const struct web_req *req)
{
	return req->role;
}

static int method_parse(const char *m)
{
	int i;

	for (i = 0; i < WEB_METHOD_N; i++)
		if (strcmp(m, method_names[i]) == 0)
			return i;
	return -1;
}

/* The route for method m on req->path (req->params filled), or NULL with
 * *path_hit telling 405 from 404; allow gets the 405's Allow list. */
static const struct web_route *route_find(struct web *w, int m, struct web_req *req, bool *path_hit,
					  char *allow, size_t allowsz)
{
	size_t al = 0;

	*path_hit = false;
	for (unsigned i = 0; i < w->nroutes; i++) {
		struct web_route *r = &w->routes[i];

		memset(req->params, 0, sizeof(req->params));
		if (!route_match(r->pattern, req->path, req))
			continue;
		*path_hit = true;
		if (m >= 0 && r->method == (enum web_method)m)
			return r;
		/* RFC 9110 15.5.6: a 405 lists the methods the resource has. */
		if (allow && al + 8 < allowsz && !strstr(allow, method_names[r->method]))
			al += (size_t)snprintf(allow + al, allowsz - al, "%s%s", al ? ", " : "",
					       method_names[r->method]);
	}
	return NULL;
}

/* 401/403 for a caller whose role (from authenticate) does not reach the route's; 0 if it does. */
static int auth_verdict(const struct web_route *hit, const struct web_req *req, enum auth_fail fail,
			const char *method, struct web_resp *resp)
{
	if (fail == AUTH_CSRF && hit->min_role != WEB_ROLE_NONE) {
		web_resp_error(resp, 403, "X-CSRF-Token",
			       "a session request that changes something needs the session's X-CSRF-Token header");
		return 1;
	}
	if (hit->min_role != WEB_ROLE_NONE && req->role == WEB_ROLE_NONE) {
		/* RFC 6750 3: 401 with the scheme to use. */
		web_resp_error(resp, 401, "Authorization",
			       fail == AUTH_BAD_TOKEN ? "invalid bearer token"
			       : "authentication required (Authorization: Bearer <token>, or log in)");
		return 1;
	}
	if (req->role < hit->min_role) {
		web_resp_error(resp, 403, NULL, "this token's role may not %s %s", method, req->path);
		return 1;
	}
	return 0;
}

int web_preauth(struct web *w, const char *method, const char *target, const struct web_hdrs *hdrs,
		bool loopback, size_t *body_cap, struct web_resp *resp)
{
	struct web_req *req;
	const char *q = strchr(target, '?');
	size_t plen = q ? (size_t)(q - target) : strlen(target);
	int m = strcmp(method, "HEAD") == 0 ? WEB_GET : method_parse(method), rc = 0;
	const struct web_route *hit;
	enum auth_fail fail;
	bool path_hit;

	memset(resp, 0, sizeof(*resp));
	*body_cap = w->lim.max_body_unauth;
	req = calloc(1, sizeof(*req));
	if (!req)
		return 0;   /* the dispatch answers; the small cap holds */
	req->query = q ? q + 1 : "";
	req->loopback = loopback;
	if (target[0] == '/' && pct_decode(target, plen, req->path, sizeof(req->path), false) >= 0 &&
	    (hit = route_find(w, m, req, &path_hit, NULL, 0)) && hit->min_role != WEB_ROLE_NONE) {
		req->method = (enum web_method)m;
		req->role = authenticate(w, hdrs, req, &fail);
		rc = auth_verdict(hit, req, fail, method, resp);
		if (rc == 0)
			*body_cap = w->lim.max_body;
		else
			web_count_status(w, resp->status);
	}
	explicit_bzero(req, sizeof(*req));
	free(req);
	return rc;
}

/* What the headers say about the body and the caller's site: a form body
 * (anything but JSON) and a cross-origin request are told apart for the
 * handlers' CSRF checks. */
static void req_body_origin(struct web_req *req, const struct web_hdrs *hdrs)
{
	if (hdrs && hdrs->ctype)
		req->form_body = !(strncasecmp(hdrs->ctype, "application/json", 16) == 0 &&
				   (hdrs->ctype[16] == 0 || hdrs->ctype[16] == ';' || hdrs->ctype[16] == ' '));
	if (hdrs && hdrs->origin) {
		/* RFC 6454: scheme://host[:port]; it must name the host the request went to. */
		const char *o = strstr(hdrs->origin, "://");

		o = o ? o + 3 : hdrs->origin;
		req->cross_origin = !hdrs->host || strcasecmp(o, hdrs->host) != 0;
	}
}

/* Audit: every change that succeeded, who / what / when. The login
 * route writes its own entries (failures included). */
static void audit_change(struct web *w, const struct web_req *req, const char *method,
			 const struct web_resp *resp)
{
	char act[160], det[16];

	if (req->method == WEB_GET || resp->status >= 400 || !w->db ||
	    strcmp(req->path, "/api/v1/login") == 0)
		return;
	snprintf(act, sizeof(act), "%s %.140s", method, req->path);
	snprintf(det, sizeof(det), "%d", resp->status);
	if (db_audit_add(w->db, req->who[0] ? req->who : "?", act, det) < 0)
		log_error("web", "audit log write failed for %s", act);
}

void web_dispatch(struct web *w, const char *method, const char *target,
		  const struct web_hdrs *hdrs, bool loopback, uint8_t **body_own, size_t body_len,
		  struct web_resp *resp)
{
	struct web_req *req;
	const uint8_t *body = body_own ? *body_own : NULL;
	const char *q = strchr(target, '?');
	size_t plen = q ? (size_t)(q - target) : strlen(target);
	/* RFC 9110 9.3.2: HEAD is GET without the content (the transport drops it). */
	int m = strcmp(method, "HEAD") == 0 ? WEB_GET : method_parse(method);
	const struct web_route *hit = NULL;
	bool path_hit = false;
	enum auth_fail fail;

	memset(resp, 0, sizeof(*resp));
	req = calloc(1, sizeof(*req));
	if (!req) {
		resp->status = 503;
		goto out;
	}
	req->query = q ? q + 1 : "";
	req->body = body;
	req->body_len = body_len;
	req->body_own = body_own;
	req->loopback = loopback;
	req_body_origin(req, hdrs);
	if (target[0] != '/' || pct_decode(target, plen, req->path, sizeof(req->path), false) < 0) {
		web_resp_error(resp, 400, "path", "request target must be an absolute path");
		goto out;
	}
	hit = route_find(w, m, req, &path_hit, resp->allow, sizeof(resp->allow));
	if (!hit) {
		if (path_hit)
			web_resp_error(resp, 405, NULL, "method %s not allowed on %s", method, req->path);
		else
			web_resp_error(resp, 404, NULL, "no such resource: %s", req->path);
		goto out;
	}
	req->method = (enum web_method)m;
	req->method_known = true;
	req->role = authenticate(w, hdrs, req, &fail);
	if (auth_verdict(hit, req, fail, method, resp))
		goto out;
	/* A task that writes (an import, a restore) holds SQLite's write lock
	 * on its thread: a change here would wait for it on the control thread. */
	if (w->task_writing && req->method != WEB_GET && strcmp(req->path, "/api/v1/login") != 0 &&
	    strcmp(req->path, "/api/v1/logout") != 0) {
		web_resp_error(resp, 503, NULL, "an import or restore is running; try again");
		resp->retry_after = 1;
		goto out;
	}
	int rc = hit->fn(w, req, resp, hit->arg);
	/* A cluster without a reachable leader is a 503, not a 500 (api_cluster.c). */
	if ((rc < 0 && !web_cluster_error(w, req, rc, resp)) || !resp->status) {
		if (rc < 0)   /* the operator's only clue: the client sees "internal error" */
			log_error("web", "%s %s: %s (500)", method, req->path, strerror(-rc));
		web_resp_error(resp, 500, NULL, "internal error");
	}
	if (resp->status == WEB_STATUS_DEFERRED) {
		log_debug("web", "%s %s -> deferred", method, req->path);
		free(req);
		return;
	}
	audit_change(w, req, method, resp);
out:
	if (!resp->status)
		web_resp_error(resp, 500, NULL, "internal error");
	if (resp->status != 405)
		resp->allow[0] = 0;
	web_count_status(w, resp->status);
	/* Path only: query strings and bodies may carry secrets. */
	log_debug("web", "%s %s -> %d", method, req ? req->path : "?", resp->status);
	free(req);
}
