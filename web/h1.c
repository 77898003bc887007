/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * HTTP/1.1 framing (RFC 9112) on http-parser: request head and body
 * collected under the limits, one dispatch per message, responses with
 * Content-Length, keep-alive as http_should_keep_alive() says, pipelined
 * requests answered in order.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "common/log.h"
#include "web/web_int.h"

#define H1_URL_MAX 4096
#define H1_FIELD_MAX 32
#define H1_AUTH_MAX 300

enum h1_hdr { HDR_OTHER, HDR_AUTH, HDR_EXPECT, HDR_HOST, HDR_COOKIE, HDR_CSRF, HDR_CTYPE, HDR_ORIGIN };
#define H1_SMALL_HDR 256

struct h1_state {
	http_parser p;
	char url[H1_URL_MAX + 1];
	size_t url_len;
	size_t head_bytes;
	char field[H1_FIELD_MAX + 1];
	size_t field_len;
	bool in_value;
	enum h1_hdr hdr;
	char auth[H1_AUTH_MAX + 1];
	size_t auth_len;
	bool has_auth;
	/* Cookie (only the session cookie is used; an overlong header is ignored)
	 * and X-CSRF-Token. */
	char cookie[WEB_COOKIE_MAX + 1];
	size_t cookie_len;
	char csrf[WEB_CSRF_HDR_MAX + 1];
	size_t csrf_len;
	char ctype[H1_SMALL_HDR + 1], origin[H1_SMALL_HDR + 1], host[H1_SMALL_HDR + 1];
	size_t ctype_len, origin_len, host_len;
	/* While a deferred response is pending: the parser is paused, bytes
	 * that came after the request wait here, in order (pipelining). */
	uint8_t *pend;
	size_t pend_len, pend_cap;
	bool keep;
	bool head;               /* the deferred request was a HEAD */
	bool has_host;
	bool expect_continue;
	uint8_t *body;
	size_t body_len, body_cap;
	int err_status;          /* limit hit: answer this and close */
	const char *err_field;
	size_t body_lim;         /* this request's body limit (web_preauth) */
	size_t counted;          /* body bytes in web->body_bytes */
	struct web_resp early;   /* 401/403 from the head alone: sent, then closed */
	struct web_conn *c;
};

static int head_add(struct h1_state *h, size_t n)
{
	h->head_bytes += n;
	if (h->head_bytes > h->c->web->lim.max_head) {
		h->err_status = 431;
		h->err_field = "headers";
		return -1;
	}
	return 0;
}

static int on_message_begin(http_parser *p)
{
	struct h1_state *h = p->data;

	h->url_len = h->head_bytes = h->field_len = h->auth_len = h->body_len = 0;
	h->cookie_len = h->csrf_len = 0;
	h->ctype_len = h->origin_len = h->host_len = 0;
	h->in_value = false;
	h->has_auth = h->has_host = h->expect_continue = false;
	h->body_lim = h->c->web->lim.max_body_unauth;
	web_conn_req_begin(h->c);
	web_conn_touch(h->c);
	return 0;
}

static int on_url(http_parser *p, const char *at, size_t n)
{
	struct h1_state *h = p->data;

	if (head_add(h, n) < 0)
		return -1;
	if (h->url_len + n > H1_URL_MAX) {
		h->err_status = 414;
		h->err_field = "path";
		return -1;
	}
	memcpy(h->url + h->url_len, at, n);
	h->url_len += n;
	return 0;
}

static int on_header_field(http_parser *p, const char *at, size_t n)
{
	struct h1_state *h = p->data;

	if (head_add(h, n + 4) < 0)   /* ": " and CRLF count too */
		return -1;
	if (h->in_value) {
		h->in_value = false;
		h->field_len = 0;
	}
	if (h->field_len + n > H1_FIELD_MAX) {
		h->field_len = H1_FIELD_MAX + 1;   /* too long for a header we care about */
		return 0;
	}
	memcpy(h->field + h->field_len, at, n);
	h->field_len += n;
	return 0;
}

static int on_header_value(http_parser *p, const char *at, size_t n)
{
	struct h1_state *h = p->data;

	if (head_add(h, n) < 0)
		return -1;
	if (!h->in_value) {
		size_t fl = h->field_len <= H1_FIELD_MAX ? h->field_len : 0;

		h->in_value = true;
		h->field[fl] = 0;
		h->hdr = HDR_OTHER;
		if (strcasecmp(h->field, "authorization") == 0) {
			h->hdr = HDR_AUTH;
			h->auth_len = 0;
			h->has_auth = true;
		} else if (strcasecmp(h->field, "cookie") == 0) {
			h->hdr = HDR_COOKIE;
			if (h->cookie_len && h->cookie_len < WEB_COOKIE_MAX)
				h->cookie[h->cookie_len++] = ';';   /* RFC 6265 5.4: several Cookie lines join with "; " */
		} else if (strcasecmp(h->field, "x-csrf-token") == 0) {
			h->hdr = HDR_CSRF;
			h->csrf_len = 0;
		} else if (strcasecmp(h->field, "expect") == 0) {
			h->hdr = HDR_EXPECT;
		} else if (strcasecmp(h->field, "host") == 0) {
			h->has_host = true;
			h->hdr = HDR_HOST;
		} else if (strcasecmp(h->field, "content-type") == 0) {
			h->hdr = HDR_CTYPE;
		} else if (strcasecmp(h->field, "origin") == 0) {
			h->hdr = HDR_ORIGIN;
		}
	}
	if (h->hdr == HDR_AUTH) {
		if (h->auth_len + n > H1_AUTH_MAX) {
			h->err_status = 431;
			h->err_field = "Authorization";
			return -1;
		}
		memcpy(h->auth + h->auth_len, at, n);
		h->auth_len += n;
	} else if (h->hdr == HDR_COOKIE) {
		size_t k = h->cookie_len + n <= WEB_COOKIE_MAX ? n : 0;
		memcpy(h->cookie + h->cookie_len, at, k);
		h->cookie_len += k;
	} else if (h->hdr == HDR_CSRF) {
		size_t k = h->csrf_len + n <= WEB_CSRF_HDR_MAX ? n : 0;
		memcpy(h->csrf + h->csrf_len, at, k);
		h->csrf_len += k;
	} else if (h->hdr == HDR_CTYPE || h->hdr == HDR_ORIGIN || h->hdr == HDR_HOST) {
		char *b = h->hdr == HDR_CTYPE ? h->ctype : h->hdr == HDR_ORIGIN ? h->origin : h->host;
		size_t *l = h->hdr == HDR_CTYPE ? &h->ctype_len : h->hdr == HDR_ORIGIN ? &h->origin_len
										  : &h->host_len;
		size_t k = *l + n <= H1_SMALL_HDR ? n : 0;

		memcpy(b + *l, at, k);
		*l += k;
		b[*l] = 0;
	} else if (h->hdr == HDR_EXPECT && n >= 12 && strncasecmp(at, "100-continue", 12) == 0) {
		h->expect_continue = true;
	}
	return 0;
}

static void body_release(struct h1_state *h)
{
	if (h->counted)
		web_body_account(h->c->web, h->counted, false);
	h->counted = 0;
}

static int on_headers_complete(http_parser *p)
{
	struct h1_state *h = p->data;
	struct web_conn *c = h->c;

	/* Rights from the head alone, before a body byte is kept or 100 Continue
	 * goes out: a stranger's body is never buffered beyond max_body_unauth. */
	h->url[h->url_len] = 0;
	h->auth[h->auth_len] = 0;
	h->cookie[h->cookie_len] = 0;
	h->csrf[h->csrf_len] = 0;
	if (web_preauth(c->web, http_method_str(p->method), h->url,
			&(struct web_hdrs){ .auth = h->has_auth ? h->auth : NULL,
					    .cookie = h->cookie_len ? h->cookie : NULL,
					    .csrf = h->csrf_len ? h->csrf : NULL },
			c->loopback, &h->body_lim, &h->early) == 1) {
		h->err_status = h->early.status;
		return -1;
	}
	web_resp_free(&h->early);
	if ((p->flags & F_CONTENTLENGTH) && p->content_length > h->body_lim) {
		h->err_status = 413;
		h->err_field = "body";
		return -1;   /* neither 0, 1 nor 2: the parser stops with an error */
	}
	/* RFC 9112 3.2: an HTTP/1.1 request without Host is a 400. */
	if (!h->has_host && p->http_major == 1 && p->http_minor >= 1) {
		h->err_status = 400;
		h->err_field = "Host";
		return -1;
	}
	/* RFC 9110 10.1.1: tell the client to go on sending the body. */
	if (h->expect_continue && p->http_major == 1 && p->http_minor >= 1) {
		static const char cont[] = "HTTP/1.1 100 Continue\r\n\r\n";

		if (web_conn_send(h->c, cont, sizeof(cont) - 1) < 0)
			return -1;
	}
	return 0;
}

static int on_body(http_parser *p, const char *at, size_t n)
{
	struct h1_state *h = p->data;

	if (h->body_len + n > h->body_lim) {   /* chunked bodies end here */
		h->err_status = 413;
		h->err_field = "body";
		return -1;
	}
	if (web_body_account(h->c->web, n, true) < 0) {
		h->err_status = 503;
		h->err_field = "body";
		return -1;
	}
	h->counted += n;
	return web_bytes_append(&h->body, &h->body_len, &h->body_cap, at, n);
}

/* Serialise one response. */
static int send_resp(struct web_conn *c, const struct web_resp *r, bool keep, bool is_head)
{
	char head[1280];
	int n;

	n = snprintf(head, sizeof(head), "HTTP/1.1 %d %s\r\n", r->status, web_status_text(r->status));
	/* RFC 9110 8.6: no Content-Length in a 204. */
	if (r->status != 204)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Content-Type: %s\r\nContent-Length: %zu\r\n",
			      r->content_type ? r->content_type : "application/json", r->len);
	if (r->allow[0])
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Allow: %s\r\n", r->allow);
	if (r->set_cookie[0])
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Set-Cookie: %s\r\n", r->set_cookie);
	if (r->retry_after)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Retry-After: %u\r\n", r->retry_after);
	if (r->content_disposition)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Content-Disposition: %s\r\n",
			      r->content_disposition);
	if (r->status == 401)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "WWW-Authenticate: Bearer realm=\"solocore\"\r\n");
	n += snprintf(head + n, sizeof(head) - (size_t)n, "Cache-Control: no-store\r\n"
		      "X-Content-Type-Options: nosniff\r\nContent-Security-Policy: " WEB_CSP "\r\n%s\r\n",
		      keep ? "" : "Connection: close\r\n");
	if (web_conn_send(c, head, (size_t)n) < 0)
		return -ENOMEM;
	return r->len && !is_head ? web_conn_send(c, r->body, r->len) : 0;
}

static int on_message_complete(http_parser *p)
{
	struct h1_state *h = p->data;
	struct web_conn *c = h->c;
	struct web_resp resp;
	bool keep = http_should_keep_alive(p) && !c->life_over;   /* past its lifetime: the last */
	int rc;

	web_conn_req_end(c);
	h->url[h->url_len] = 0;
	h->auth[h->auth_len] = 0;
	h->cookie[h->cookie_len] = 0;
	h->csrf[h->csrf_len] = 0;
	web_dispatch(c->web, http_method_str(p->method), h->url,
		     &(struct web_hdrs){ .auth = h->has_auth ? h->auth : NULL,
					 .cookie = h->cookie_len ? h->cookie : NULL,
					 .csrf = h->csrf_len ? h->csrf : NULL,
					 .ctype = h->ctype_len ? h->ctype : NULL,
					 .origin = h->origin_len ? h->origin : NULL,
					 .host = h->host_len ? h->host : NULL },
		     c->loopback, &h->body, h->body_len, &resp);
	explicit_bzero(h->cookie, sizeof(h->cookie));
	if (resp.status == WEB_STATUS_DEFERRED) {
		web_job_bind(resp.job, c, 0);
		c->waiting = true;
		h->keep = keep;
		h->head = p->method == HTTP_HEAD;
		http_parser_pause(p, 1);
		rc = 0;
	} else {
		rc = send_resp(c, &resp, keep, p->method == HTTP_HEAD);
	}
	web_resp_free(&resp);
	explicit_bzero(h->auth, sizeof(h->auth));
	if (!h->body) {              /* taken by the handler (web_req_take_body) */
		h->body_cap = 0;
	} else if (h->body_cap > 65536) {   /* don't keep a big import's buffer for the connection's life */
		free(h->body);
		h->body = NULL;
		h->body_cap = 0;
	} else if (h->body_len) {
		explicit_bzero(h->body, h->body_len);   /* bodies may hold K/OPc */
	}
	h->body_len = 0;
	body_release(h);
	if (rc < 0)
		return -1;
	if (!keep && !c->waiting) {
		c->close_after_flush = true;
		http_parser_pause(p, 1);
	} else if (!c->waiting && web_conn_queued(c) >= WEB_OUT_HIGH_WATER) {
		/* Back-pressure before the next pipelined request is parsed: a
		 * client that sends requests and never reads the answers makes the
		 * server hold at most one answer beyond the mark. */
		c->held = true;
		http_parser_pause(p, 1);
	}
	return 0;
}

int web_h1_deliver(struct web_conn *c, struct web_resp *resp)
{
	struct h1_state *h = c->h1;
	uint8_t *rest;
	size_t n;
	int rc;

	if (!h || !c->waiting) {
		web_resp_free(resp);
		return 0;
	}
	rc = send_resp(c, resp, h->keep, h->head);
	web_resp_free(resp);
	c->waiting = false;
	if (rc < 0)
		return rc;
	if (!h->keep) {
		c->close_after_flush = true;
		return 0;
	}
	if (web_conn_queued(c) >= WEB_OUT_HIGH_WATER) {
		c->held = true;   /* parsing resumes in web_h1_resume */
		return 0;
	}
	http_parser_pause(&h->p, 0);
	/* The requests that arrived meanwhile, in order. */
	rest = h->pend;
	n = h->pend_len;
	h->pend = NULL;
	h->pend_len = h->pend_cap = 0;
	rc = n ? web_h1_input(c, rest, n) : 0;
	free(rest);
	return rc;
}

int web_h1_resume(struct web_conn *c)
{
	struct h1_state *h = c->h1;
	uint8_t *rest;
	size_t n;
	int rc;

	c->held = false;
	if (!h || c->waiting || c->close_after_flush)
		return 0;
	http_parser_pause(&h->p, 0);
	rest = h->pend;
	n = h->pend_len;
	h->pend = NULL;
	h->pend_len = h->pend_cap = 0;
	rc = n ? web_h1_input(c, rest, n) : 0;
	free(rest);
	return rc;
}

static const http_parser_settings h1_settings = {
	.on_message_begin = on_message_begin,
	.on_url = on_url,
	.on_header_field = on_header_field,
	.on_header_value = on_header_value,
	.on_headers_complete = on_headers_complete,
	.on_body = on_body,
	.on_message_complete = on_message_complete,
};

int web_h1_init(struct web_conn *c)
{
	struct h1_state *h = calloc(1, sizeof(*h));

	if (!h)
		return -ENOMEM;
	http_parser_init(&h->p, HTTP_REQUEST);
	h->p.data = h;
	h->c = c;
	c->h1 = h;
	return 0;
}

void web_h1_free(struct web_conn *c)
{
	struct h1_state *h = c->h1;

	if (!h)
		return;
	body_release(h);
	web_resp_free(&h->early);
	if (h->body)
		explicit_bzero(h->body, h->body_cap);
	free(h->body);
	free(h->pend);
	explicit_bzero(h->auth, sizeof(h->auth));
	free(h);
	c->h1 = NULL;
}

/* A request we cannot parse or accept: answer with a JSON error and close. */
static int fail(struct web_conn *c, int status, const char *field, const char *msg)
{
	struct web_resp r;

	memset(&r, 0, sizeof(r));
	web_resp_error(&r, status, field, "%s", msg);
	web_count_status(c->web, status);
	send_resp(c, &r, false, false);
	web_resp_free(&r);
	c->close_after_flush = true;
	return 0;
}

void web_h1_timeout(struct web_conn *c)
{
	if (!c->close_after_flush)
		fail(c, 408, NULL, "request not received in time");
}

int web_h1_input(struct web_conn *c, const uint8_t *data, size_t len)
{
	struct h1_state *h = c->h1;
	enum http_errno e;

	size_t used;

	if (c->close_after_flush)
		return 0;   /* after "Connection: close" nothing more is read */
	if (c->waiting || c->held)
		return web_bytes_append(&h->pend, &h->pend_len, &h->pend_cap, data, len);
	used = http_parser_execute(&h->p, &h1_settings, (const char *)data, len);
	e = HTTP_PARSER_ERRNO(&h->p);
	if ((c->waiting || c->held) && used < len)
		return web_bytes_append(&h->pend, &h->pend_len, &h->pend_cap, data + used, len - used);
	if (e == HPE_OK || e == HPE_PAUSED)
		return 0;
	if (h->early.status) {
		/* 401/403 decided on the head: answered, the body is not read. */
		send_resp(c, &h->early, false, false);
		web_resp_free(&h->early);
		c->close_after_flush = true;
		return 0;
	}
	if (h->err_status == 503)
		return fail(c, 503, h->err_field, "too many request bodies in flight; try again");
	if (h->err_status == 413)
		return fail(c, 413, h->err_field, "request body exceeds the limit");
	if (h->err_status == 431 || e == HPE_HEADER_OVERFLOW)
		return fail(c, 431, h->err_field, "request head exceeds the limit");
	if (h->err_status == 400)
		return fail(c, 400, h->err_field, "HTTP/1.1 request without Host");
	if (h->err_status == 414)
		return fail(c, 414, h->err_field, "request target too long");
	if (e == HPE_CB_message_complete || e == HPE_CB_body || e == HPE_CB_headers_complete)
		return -ENOMEM;
	log_rl(LOGL_INFO, "web", NULL, "malformed HTTP/1.1 request: %s", http_errno_name(e));
	return fail(c, 400, NULL, http_errno_description(e));
}
