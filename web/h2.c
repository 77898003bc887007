/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * HTTP/2 (RFC 9113) through nghttp2's server session in memory mode: bytes
 * in with nghttp2_session_mem_recv(), frames out with mem_send() into the
 * connection's buffer. One request per stream, dispatched on END_STREAM.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "web/web_int.h"

#define H2_PATH_MAX 4096
#define H2_AUTH_MAX 300

struct h2_stream {
	int32_t id;
	char method[16];
	char path[H2_PATH_MAX + 1];
	char auth[H2_AUTH_MAX + 1];
	bool has_auth;
	char cookie[WEB_COOKIE_MAX + 1];   /* crumbs joined with ';' (RFC 9113 8.2.3) */
	size_t cookie_len;
	char csrf[WEB_CSRF_HDR_MAX + 1];
	char ctype[128], origin[256], host[256];
	size_t head_bytes;
	uint8_t *body;
	size_t body_len, body_cap;
	int err_status;
	bool responded;
	bool complete;           /* END_STREAM seen, or answered early: no deadline, data ignored */
	bool deferred;           /* a worker's job will answer */
	bool rst_after;          /* answered before its body: RST_STREAM(NO_ERROR) once sent */
	size_t body_lim;         /* web_preauth */
	size_t counted;          /* body bytes in web->body_bytes */
	uint64_t deadline_ns;    /* the request must be in by then (limits.request_ms) */
	struct web_resp resp;
	size_t resp_off;
	struct h2_stream *prev, *next;   /* every open stream, freed with the session */
};

struct h2_state {
	nghttp2_session *s;
	struct web_conn *c;
	struct h2_stream *streams;
	uint32_t nstreams;
	size_t body_bytes;       /* bodies buffered on this connection */
};

static void body_release(struct h2_state *h, struct h2_stream *st)
{
	if (st->counted) {
		web_body_account(h->c->web, st->counted, false);
		h->body_bytes -= st->counted;
		st->counted = 0;
	}
	if (st->body) {
		explicit_bzero(st->body, st->body_cap);
		free(st->body);
		st->body = NULL;
	}
	st->body_len = st->body_cap = 0;
}

/* The request timer of the connection: the earliest deadline of a stream
 * whose request is not in yet (RFC 9113 gives streams no deadline; a client
 * that opens streams and never ends them would hold them for ever). */
static void deadline_arm(struct h2_state *h)
{
	struct web *w = h->c->web;
	uint64_t first = UINT64_MAX, now = ev_now_ns(w->loop);

	for (struct h2_stream *st = h->streams; st; st = st->next)
		if (!st->complete && st->deadline_ns < first)
			first = st->deadline_ns;
	if (first == UINT64_MAX)
		ev_timer_stop(w->loop, &h->c->req);
	else
		ev_timer_start_ns(w->loop, &h->c->req, first > now ? first - now : 0);
}

static void stream_free(struct h2_state *h, struct h2_stream *st)
{
	if (st->prev)
		st->prev->next = st->next;
	else
		h->streams = st->next;
	if (st->next)
		st->next->prev = st->prev;
	body_release(h, st);
	h->nstreams--;
	h->c->web->h2_streams--;
	web_resp_free(&st->resp);
	explicit_bzero(st->auth, sizeof(st->auth));
	free(st);
}

static ssize_t resp_read(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len,
			 uint32_t *flags, nghttp2_data_source *src, void *user)
{
	struct h2_stream *st = src->ptr;
	size_t n = st->resp.len - st->resp_off;

	(void)s;
	(void)id;
	(void)user;
	if (n > len)
		n = len;
	memcpy(buf, st->resp.body + st->resp_off, n);
	st->resp_off += n;
	if (st->resp_off == st->resp.len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

#define NV(n, v) { (uint8_t *)(n), (uint8_t *)(v), sizeof(n) - 1, strlen(v), NGHTTP2_NV_FLAG_NONE }

static int submit(nghttp2_session *s, struct h2_stream *st)
{
	char status[4], clen[24], retry[12];
	nghttp2_nv nva[12];
	size_t n = 0;
	nghttp2_data_provider prd = { .source.ptr = st, .read_callback = resp_read };

	st->responded = true;
	snprintf(status, sizeof(status), "%03d", st->resp.status);
	snprintf(clen, sizeof(clen), "%zu", st->resp.len);
	nva[n++] = (nghttp2_nv)NV(":status", status);
	if (st->resp.status != 204) {
		nva[n++] = (nghttp2_nv)NV("content-type",
					   st->resp.content_type ? st->resp.content_type : "application/json");
		nva[n++] = (nghttp2_nv)NV("content-length", clen);
	}
	if (st->resp.allow[0])
		nva[n++] = (nghttp2_nv)NV("allow", st->resp.allow);
	if (st->resp.set_cookie[0])
		nva[n++] = (nghttp2_nv)NV("set-cookie", st->resp.set_cookie);
	if (st->resp.retry_after) {
		snprintf(retry, sizeof(retry), "%u", st->resp.retry_after);
		nva[n++] = (nghttp2_nv)NV("retry-after", retry);
	}
	if (st->resp.content_disposition)
		nva[n++] = (nghttp2_nv)NV("content-disposition", st->resp.content_disposition);
	if (st->resp.status == 401)
		nva[n++] = (nghttp2_nv)NV("www-authenticate", "Bearer realm=\"solocore\"");
	nva[n++] = (nghttp2_nv)NV("cache-control", "no-store");
	nva[n++] = (nghttp2_nv)NV("x-content-type-options", "nosniff");
	nva[n++] = (nghttp2_nv)NV("content-security-policy", WEB_CSP);
	/* HEAD: the head of the GET, content-length included, no DATA (RFC 9110 9.3.2). */
	return nghttp2_submit_response(s, st->id, nva, n,
				       st->resp.len && strcmp(st->method, "HEAD") != 0 ? &prd : NULL);
}

static int respond_error(nghttp2_session *s, struct h2_stream *st, struct web *w, int status,
			 const char *field, const char *msg)
{
	web_resp_error(&st->resp, status, field, "%s", msg);
	web_count_status(w, status);
	return submit(s, st);
}

static int on_begin_headers(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct h2_state *h = user;
	struct h2_stream *st;

	struct web *w = h->c->web;

	if (f->hd.type != NGHTTP2_HEADERS || f->headers.cat != NGHTTP2_HCAT_REQUEST)
		return 0;
	/* Open streams per connection and over all of them (each holds a few KB
	 * and perhaps a body): beyond, the stream is refused (RFC 9113 8.7). */
	if (h->nstreams >= w->lim.h2_max_streams || w->h2_streams >= w->lim.h2_max_streams_total) {
		w->refused_streams++;
		return nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, f->hd.stream_id,
						 NGHTTP2_REFUSED_STREAM) == 0 ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	st = calloc(1, sizeof(*st));
	if (!st)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	h->nstreams++;
	w->h2_streams++;
	st->id = f->hd.stream_id;
	st->body_lim = w->lim.max_body_unauth;
	st->deadline_ns = ev_now_ns(w->loop) + (uint64_t)w->lim.request_ms * 1000000u;
	web_conn_touch(h->c);
	st->next = h->streams;
	if (h->streams)
		h->streams->prev = st;
	h->streams = st;
	nghttp2_session_set_stream_user_data(s, st->id, st);
	deadline_arm(h);
	return 0;
}

static int on_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nlen,
		     const uint8_t *value, size_t vlen, uint8_t flags, void *user)
{
	struct h2_state *h = user;
	struct h2_stream *st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);

	(void)flags;
	if (!st || f->hd.type != NGHTTP2_HEADERS)
		return 0;
	/* RFC 9113 6.5.2: size as SETTINGS_MAX_HEADER_LIST_SIZE counts it. */
	st->head_bytes += nlen + vlen + 32;
	if (st->head_bytes > h->c->web->lim.max_head) {
		st->err_status = 431;
		return 0;
	}
	if (nlen == 7 && memcmp(name, ":method", 7) == 0 && vlen < sizeof(st->method)) {
		memcpy(st->method, value, vlen);
		st->method[vlen] = 0;
	} else if (nlen == 5 && memcmp(name, ":path", 5) == 0) {
		if (vlen > H2_PATH_MAX) {
			st->err_status = 414;
			return 0;
		}
		memcpy(st->path, value, vlen);
		st->path[vlen] = 0;
	} else if (nlen == 13 && memcmp(name, "authorization", 13) == 0) {
		if (vlen > H2_AUTH_MAX) {
			st->err_status = 431;
			return 0;
		}
		memcpy(st->auth, value, vlen);
		st->auth[vlen] = 0;
		st->has_auth = true;
	} else if (nlen == 6 && memcmp(name, "cookie", 6) == 0) {
		if (st->cookie_len + vlen + 1 <= WEB_COOKIE_MAX) {
			if (st->cookie_len)
				st->cookie[st->cookie_len++] = ';';
			memcpy(st->cookie + st->cookie_len, value, vlen);
			st->cookie_len += vlen;
			st->cookie[st->cookie_len] = 0;
		}
	} else if (nlen == 12 && memcmp(name, "content-type", 12) == 0 && vlen < sizeof(st->ctype)) {
		memcpy(st->ctype, value, vlen);
		st->ctype[vlen] = 0;
	} else if (nlen == 6 && memcmp(name, "origin", 6) == 0 && vlen < sizeof(st->origin)) {
		memcpy(st->origin, value, vlen);
		st->origin[vlen] = 0;
	} else if (((nlen == 10 && memcmp(name, ":authority", 10) == 0) ||
		    (nlen == 4 && memcmp(name, "host", 4) == 0)) && vlen < sizeof(st->host)) {
		memcpy(st->host, value, vlen);
		st->host[vlen] = 0;
	} else if (nlen == 12 && memcmp(name, "x-csrf-token", 12) == 0 && vlen <= WEB_CSRF_HDR_MAX) {
		memcpy(st->csrf, value, vlen);
		st->csrf[vlen] = 0;
	}
	return 0;
}

static int on_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *data, size_t len,
		   void *user)
{
	struct h2_state *h = user;
	struct h2_stream *st = nghttp2_session_get_stream_user_data(s, id);

	struct web *w = h->c->web;

	(void)flags;
	if (!st || st->err_status || st->responded || st->complete)
		return 0;
	if (st->body_len + len > st->body_lim || h->body_bytes + len > w->lim.max_body ||
	    web_body_account(w, len, true) < 0) {
		/* Answer now and ask the client to stop (RST_STREAM NO_ERROR once
		 * the answer is out, RFC 9113 8.1); what still comes is dropped. */
		bool big = st->body_len + len > st->body_lim;

		st->err_status = big ? 413 : 503;
		st->complete = st->rst_after = true;
		body_release(h, st);
		deadline_arm(h);
		if (!big)
			st->resp.retry_after = 1;
		return respond_error(s, st, w, st->err_status, "body",
				     big ? "request body exceeds the limit"
					 : "too many request bodies in flight; try again") == 0
			       ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
	}
	st->counted += len;
	h->body_bytes += len;
	return web_bytes_append(&st->body, &st->body_len, &st->body_cap, data, len) == 0
		       ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
}

static int on_frame_recv(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct h2_state *h = user;
	struct h2_stream *st;

	if (f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA)
		return 0;
	st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
	if (!st || st->responded || st->complete)
		return 0;
	if (f->hd.type == NGHTTP2_HEADERS && f->headers.cat == NGHTTP2_HCAT_REQUEST && !st->err_status &&
	    st->method[0] && st->path[0]) {
		/* The head is in: rights before any DATA is kept. */
		if (web_preauth(h->c->web, st->method, st->path,
				&(struct web_hdrs){ .auth = st->has_auth ? st->auth : NULL,
						    .cookie = st->cookie_len ? st->cookie : NULL,
						    .csrf = st->csrf[0] ? st->csrf : NULL },
				h->c->loopback, &st->body_lim, &st->resp) == 1) {
			explicit_bzero(st->auth, sizeof(st->auth));
			explicit_bzero(st->cookie, sizeof(st->cookie));
			st->complete = true;
			st->rst_after = !(f->hd.flags & NGHTTP2_FLAG_END_STREAM);
			deadline_arm(h);
			return submit(s, st) == 0 ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
		}
	}
	if (!(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	st->complete = true;
	deadline_arm(h);
	if (st->err_status == 431)
		return respond_error(s, st, h->c->web, 431, "headers", "request head exceeds the limit");
	if (st->err_status == 414)
		return respond_error(s, st, h->c->web, 414, "path", "request target too long");
	if (!st->method[0] || !st->path[0])
		return respond_error(s, st, h->c->web, 400, NULL, "missing :method or :path");
	web_dispatch(h->c->web, st->method, st->path,
		     &(struct web_hdrs){ .auth = st->has_auth ? st->auth : NULL,
					 .cookie = st->cookie_len ? st->cookie : NULL,
					 .csrf = st->csrf[0] ? st->csrf : NULL,
					 .ctype = st->ctype[0] ? st->ctype : NULL,
					 .origin = st->origin[0] ? st->origin : NULL,
					 .host = st->host[0] ? st->host : NULL }, h->c->loopback,
		     &st->body, st->body_len, &st->resp);
	explicit_bzero(st->auth, sizeof(st->auth));
	explicit_bzero(st->cookie, sizeof(st->cookie));
	body_release(h, st);
	if (st->resp.status == WEB_STATUS_DEFERRED) {
		/* Answered by web_h2_deliver(); other streams go on meanwhile. */
		web_job_bind(st->resp.job, h->c, st->id);
		st->resp.job = NULL;
		st->resp.status = 0;
		st->deferred = true;
		return 0;
	}
	return submit(s, st) == 0 ? 0 : NGHTTP2_ERR_CALLBACK_FAILURE;
}

static int on_frame_send(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	struct h2_stream *st;

	(void)user;
	if ((f->hd.type != NGHTTP2_HEADERS && f->hd.type != NGHTTP2_DATA) ||
	    !(f->hd.flags & NGHTTP2_FLAG_END_STREAM))
		return 0;
	st = nghttp2_session_get_stream_user_data(s, f->hd.stream_id);
	if (st && st->rst_after) {
		st->rst_after = false;
		nghttp2_submit_rst_stream(s, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_NO_ERROR);
	}
	return 0;
}

bool web_h2_open(struct web_conn *c)
{
	return c->h2 && c->h2->nstreams;
}

bool web_h2_deferred(struct web_conn *c)
{
	for (struct h2_stream *st = c->h2 ? c->h2->streams : NULL; st; st = st->next)
		if (st->deferred && !st->responded)
			return true;
	return false;
}

void web_h2_timeout(struct web_conn *c)
{
	struct h2_state *h = c->h2;
	uint64_t now;

	if (!h)
		return;
	now = ev_now_ns(c->web->loop);
	for (struct h2_stream *st = h->streams; st; st = st->next) {
		if (st->complete || st->deadline_ns > now)
			continue;
		st->complete = st->rst_after = true;
		body_release(h, st);
		if (!st->responded && respond_error(h->s, st, c->web, 408, NULL, "request not received in time") != 0)
			nghttp2_submit_rst_stream(h->s, NGHTTP2_FLAG_NONE, st->id, NGHTTP2_CANCEL);
	}
	deadline_arm(h);
}

static int on_stream_close(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct h2_stream *st = nghttp2_session_get_stream_user_data(s, id);

	(void)code;
	if (st) {
		nghttp2_session_set_stream_user_data(s, id, NULL);
		stream_free(user, st);
	}
	return 0;
}

int web_h2_deliver(struct web_conn *c, int32_t stream, struct web_resp *resp)
{
	struct h2_state *h = c->h2;
	struct h2_stream *st = h ? nghttp2_session_get_stream_user_data(h->s, stream) : NULL;

	if (!st || st->responded) {   /* the peer reset the stream meanwhile */
		web_resp_free(resp);
		return 0;
	}
	web_resp_free(&st->resp);
	st->resp = *resp;
	memset(resp, 0, sizeof(*resp));
	if (submit(h->s, st) != 0)
		return -EIO;
	return web_h2_flush(c);
}

int web_h2_init(struct web_conn *c)
{
	nghttp2_session_callbacks *cb;
	nghttp2_settings_entry iv[3];
	struct h2_state *h;
	int rc;

	h = calloc(1, sizeof(*h));
	if (!h)
		return -ENOMEM;
	h->c = c;
	if (nghttp2_session_callbacks_new(&cb) != 0) {
		free(h);
		return -ENOMEM;
	}
	nghttp2_session_callbacks_set_on_begin_headers_callback(cb, on_begin_headers);
	nghttp2_session_callbacks_set_on_header_callback(cb, on_header);
	nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, on_data);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, on_frame_recv);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, on_stream_close);
	nghttp2_session_callbacks_set_on_frame_send_callback(cb, on_frame_send);
	rc = nghttp2_session_server_new(&h->s, cb, h);
	nghttp2_session_callbacks_del(cb);
	if (rc != 0) {
		free(h);
		return -ENOMEM;
	}
	c->h2 = h;
	iv[0] = (nghttp2_settings_entry){ NGHTTP2_SETTINGS_MAX_CONCURRENT_STREAMS, c->web->lim.h2_max_streams };
	iv[1] = (nghttp2_settings_entry){ NGHTTP2_SETTINGS_MAX_HEADER_LIST_SIZE, c->web->lim.max_head };
	iv[2] = (nghttp2_settings_entry){ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 20 };
	if (nghttp2_submit_settings(h->s, NGHTTP2_FLAG_NONE, iv, 3) != 0)
		return -ENOMEM;
	return 0;
}

void web_h2_free(struct web_conn *c)
{
	struct h2_state *h = c->h2;

	if (!h)
		return;
	nghttp2_session_del(h->s);
	/* Streams still open: their user data is ours to free. */
	while (h->streams)
		stream_free(h, h->streams);
	free(h);
	c->h2 = NULL;
}

nghttp2_session *web_h2_session(struct web_conn *c)
{
	return c->h2 ? c->h2->s : NULL;
}

int web_h2_input(struct web_conn *c, const uint8_t *data, size_t len)
{
	ssize_t n = nghttp2_session_mem_recv(c->h2->s, data, len);

	if (n < 0) {
		log_rl(LOGL_INFO, "web", NULL, "HTTP/2 connection error: %s", nghttp2_strerror((int)n));
		/* Let nghttp2 send its GOAWAY, then close. */
		web_h2_flush(c);
		c->close_after_flush = true;
		return 0;
	}
	return 0;
}

int web_h2_flush(struct web_conn *c)
{
	struct h2_state *h = c->h2;

	if (!h)
		return 0;
	/* Up to the high-water mark: nghttp2 keeps the rest until the socket
	 * has taken what is queued (conn_after_io calls again). */
	c->out_more = false;
	for (;;) {
		const uint8_t *p;
		ssize_t n;

		if (web_conn_queued(c) >= WEB_OUT_HIGH_WATER) {
			c->out_more = true;   /* EV_WRITE stays armed: more when this is out */
			break;
		}
		n = nghttp2_session_mem_send(h->s, &p);
		if (n < 0)
			return -EIO;
		if (n == 0)
			break;
		if (web_conn_send(c, p, (size_t)n) < 0)
			return -ENOMEM;
	}
	if (!nghttp2_session_want_read(h->s) && !nghttp2_session_want_write(h->s))
		c->close_after_flush = true;
	return 0;
}
