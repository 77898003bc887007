/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web server: listener, connections, socket and TLS I/O, protocol detection,
 * idle timers, stop. The HTTP/1.1 and HTTP/2 framing live in h1.c and h2.c.
 *
 * A connection is freed only through ev_defer() (never inside its own
 * callback): web_conn_close() unhooks it and closes the fd at once.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <malloc.h>
#include <netinet/tcp.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>
#include <openssl/err.h>

#include "common/conf.h"
#include "common/log.h"
#include "web/web_int.h"

/* RFC 9113 3.4: the client connection preface. */
static const char h2_preface[] = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n";
#define H2_PREFACE_LEN 24
/* Stop reading and parsing while this much output waits (back-pressure on big
 * exports, and on pipelined requests whose answers the client does not read). */
#define OUT_HIGH_WATER WEB_OUT_HIGH_WATER

void web_limits_default(struct web_limits *l)
{
	l->max_conns = 256;
	l->max_head = 16384;
	l->max_body = 16u << 20;
	l->idle_ms = 60000;
	l->request_ms = 30000;
	l->h2_max_streams = 100;
	l->max_body_unauth = 16384;
	l->max_body_total = 64u << 20;
	l->h2_max_streams_total = 1024;
	l->max_conns_per_client = 16;
	l->lifetime_ms = 3600000;
	l->first_admin = true;
	l->login_max_fails = 5;
	l->login_lock_s = 300;
}

static void conn_set_events(struct web_conn *c)
{
	uint32_t ev = 0;

	if (c->dead)
		return;
	if (!c->close_after_flush && !c->waiting && !c->held && c->out.len - c->out.off < OUT_HIGH_WATER)
		ev |= EV_READ;
	if (c->want_write || c->out_more || c->out.len > c->out.off)
		ev |= EV_WRITE;
	if (ev != c->events) {
		ev_fd_mod(c->web->loop, c->fd, ev);
		c->events = ev;
	}
}

static void conn_free(void *arg)
{
	struct web_conn *c = arg;

	web_h1_free(c);
	web_h2_free(c);
	if (c->ssl)
		SSL_free(c->ssl);
	free(c->out.p);
	free(c);
}

/* Unhook from the loop and the list, close the fd; the memory stays. */
static void conn_unlink(struct web_conn *c)
{
	struct web *w = c->web;

	c->dead = true;
	ev_timer_stop(w->loop, &c->idle);
	ev_timer_stop(w->loop, &c->req);
	ev_timer_stop(w->loop, &c->life);
	ev_fd_del(w->loop, c->fd);
	close(c->fd);
	c->fd = -1;
	if (c->prev)
		c->prev->next = c->next;
	else
		w->conns = c->next;
	if (c->next)
		c->next->prev = c->prev;
	w->nconns--;
}

void web_conn_close(struct web_conn *c)
{
	if (c->dead)
		return;
	conn_unlink(c);
	if (ev_defer(c->web->loop, conn_free, c) < 0)
		log_error("web", "cannot defer a connection free: leaked");
}

/* Write what we can. 0, or -errno on a dead socket. */
static int conn_flush(struct web_conn *c)
{
	c->want_write = false;
	while (c->out.off < c->out.len) {
		size_t n = c->out.len - c->out.off;
		ssize_t k;

		if (c->ssl) {
			int r;

			ERR_clear_error();
			r = SSL_write(c->ssl, c->out.p + c->out.off, (int)(n > INT32_MAX ? INT32_MAX : n));
			if (r <= 0) {
				int e = SSL_get_error(c->ssl, r);

				if (e == SSL_ERROR_WANT_WRITE || e == SSL_ERROR_WANT_READ)
					break;
				return -EIO;
			}
			k = r;
		} else {
			k = send(c->fd, c->out.p + c->out.off, n, MSG_NOSIGNAL);
			if (k < 0) {
				if (errno == EAGAIN || errno == EINTR)
					break;
				return -errno;
			}
		}
		c->out.off += (size_t)k;
		if (k > 0 && (c->state != CONN_H2 || web_h2_open(c)))
			web_conn_touch(c);   /* a response moving counts as activity; bytes read do not */
	}
	if (c->out.off == c->out.len)
		c->out.off = c->out.len = 0;
	return 0;
}

int web_bytes_append(uint8_t **p, size_t *len, size_t *cap, const void *d, size_t n)
{
	if (*len + n > *cap) {
		size_t c = *cap ? *cap : 4096;
		uint8_t *b;

		while (c < *len + n)
			c *= 2;
		b = realloc(*p, c);
		if (!b)
			return -ENOMEM;
		*p = b;
		*cap = c;
	}
	memcpy(*p + *len, d, n);
	*len += n;
	return 0;
}

int web_conn_send(struct web_conn *c, const void *data, size_t len)
{
	struct web_buf *b = &c->out;

	if (c->dead)
		return -EPIPE;
	if (b->off && b->len + len > b->cap) {   /* slide the unsent bytes down first */
		memmove(b->p, b->p + b->off, b->len - b->off);
		b->len -= b->off;
		b->off = 0;
	}
	return web_bytes_append(&b->p, &b->len, &b->cap, data, len);
}

static int conn_read(struct web_conn *c);

/* Produce and send what is pending. 0 or -errno (close the connection). */
static int conn_push(struct web_conn *c)
{
	if (c->state == CONN_H2 && web_h2_flush(c) < 0)
		return -EIO;
	return conn_flush(c);
}

static void conn_after_io(struct web_conn *c);

void web_conn_kick(struct web_conn *c)
{
	conn_after_io(c);
}

struct web_conn *web_conn_find(struct web *w, uint64_t id)
{
	for (struct web_conn *c = w->conns; c; c = c->next)
		if (c->id == id && !c->dead)
			return c;
	return NULL;
}

/* After input or output: send, rearm, close when done. */
static void conn_after_io(struct web_conn *c)
{
	if (c->dead)
		return;
	if (conn_push(c) < 0) {
		web_conn_close(c);
		return;
	}
	/* HTTP/1.1 pipelining held at the high-water mark: parse on once the
	 * client has read its answers (below half the mark). */
	for (int i = 0; c->held && c->out.len - c->out.off < OUT_HIGH_WATER / 2; i++) {
		if (i == 4) {
			c->want_write = true;   /* enough for one callback: come back on EV_WRITE */
			break;
		}
		if (web_h1_resume(c) < 0 || c->dead || conn_push(c) < 0) {
			web_conn_close(c);
			return;
		}
	}
	/* TLS may hold decrypted bytes the socket no longer signals (reading
	 * stopped at the high-water mark): take them once output has drained. */
	if (c->ssl && c->state != CONN_TLS_HS && SSL_pending(c->ssl) && !c->close_after_flush && !c->waiting && !c->held &&
	    c->out.len - c->out.off < OUT_HIGH_WATER) {
		if (conn_read(c) < 0 || c->dead || conn_push(c) < 0) {
			web_conn_close(c);
			return;
		}
	}
	if (c->close_after_flush && c->out.len == 0) {
		/* Half-close first so the peer reads the whole response (RFC 9112 9.6). */
		shutdown(c->fd, SHUT_WR);
		web_conn_close(c);
		return;
	}
	conn_set_events(c);
}

static int conn_start_proto(struct web_conn *c, bool h2)
{
	int rc;

	if (h2) {
		web_conn_req_end(c);   /* HTTP/2: streams, the idle timer guards the connection */
		c->state = CONN_H2;
		rc = web_h2_init(c);
	} else {
		c->state = CONN_H1;
		rc = web_h1_init(c);
	}
	return rc;
}

/* Route bytes to the protocol; cleartext connections first decide between
 * HTTP/1.1 and the HTTP/2 preface (RFC 9113 3.3, prior knowledge). */
static int conn_input(struct web_conn *c, const uint8_t *d, size_t n)
{
	int rc;

	if (c->state == CONN_DETECT) {
		size_t take = H2_PREFACE_LEN - c->detect_len;

		if (take > n)
			take = n;
		memcpy(c->detect + c->detect_len, d, take);
		c->detect_len += take;
		if (memcmp(c->detect, h2_preface, c->detect_len) == 0 && c->detect_len < H2_PREFACE_LEN)
			return 0;   /* still a prefix of the preface: wait */
		rc = conn_start_proto(c, memcmp(c->detect, h2_preface, c->detect_len) == 0);
		if (rc < 0)
			return rc;
		rc = c->state == CONN_H2 ? web_h2_input(c, c->detect, c->detect_len)
					  : web_h1_input(c, c->detect, c->detect_len);
		if (rc < 0 || c->dead)
			return rc;
		d += take;
		n -= take;
		if (!n)
			return 0;
	}
	if (c->state == CONN_H2)
		return web_h2_input(c, d, n);
	return web_h1_input(c, d, n);
}

static int tls_handshake(struct web_conn *c)
{
	const unsigned char *alpn = NULL;
	unsigned alpn_len = 0;
	int r, e;

	ERR_clear_error();
	r = SSL_do_handshake(c->ssl);
	if (r == 1) {
		SSL_get0_alpn_selected(c->ssl, &alpn, &alpn_len);
		return conn_start_proto(c, alpn_len == 2 && memcmp(alpn, "h2", 2) == 0);
	}
	e = SSL_get_error(c->ssl, r);
	if (e == SSL_ERROR_WANT_READ)
		return 0;
	if (e == SSL_ERROR_WANT_WRITE) {
		c->want_write = true;
		return 0;
	}
	log_rl(LOGL_INFO, "web", NULL, "TLS handshake failed: %s",
	       ERR_reason_error_string(ERR_peek_error()) ? ERR_reason_error_string(ERR_peek_error())
							 : "connection closed");
	return -EPROTO;
}

/* Read everything available. 0, 1 on EOF, -errno on error. */
static int conn_read(struct web_conn *c)
{
	uint8_t buf[16384];
	int rc;

	for (;;) {
		ssize_t n;

		if (c->dead || c->close_after_flush || c->waiting || c->held)
			return 0;
		if (c->state == CONN_TLS_HS) {
			rc = tls_handshake(c);
			if (rc < 0)
				return rc;
			if (c->state == CONN_TLS_HS)
				return 0;
		}
		if (c->ssl) {
			int r, e;

			ERR_clear_error();
			r = SSL_read(c->ssl, buf, sizeof(buf));
			if (r <= 0) {
				e = SSL_get_error(c->ssl, r);
				if (e == SSL_ERROR_WANT_READ)
					return 0;
				if (e == SSL_ERROR_WANT_WRITE) {
					c->want_write = true;
					return 0;
				}
				return e == SSL_ERROR_ZERO_RETURN ? 1 : -EIO;
			}
			n = r;
		} else {
			n = recv(c->fd, buf, sizeof(buf), 0);
			if (n < 0)
				return errno == EAGAIN || errno == EINTR ? 0 : -errno;
			if (n == 0)
				return 1;
		}
		rc = conn_input(c, buf, (size_t)n);
		if (rc < 0)
			return rc;
		if (c->out.len - c->out.off >= OUT_HIGH_WATER)
			return 0;
	}
}

static void conn_cb(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct web_conn *c = arg;
	int rc = 0;

	(void)fd;
	if (c->dead)
		return;
	(void)loop;
	/* The idle timer is not restarted here: bytes that make no request (an
	 * HTTP/2 PING, a trickle) do not keep a connection (web_conn_touch). */
	if (events & (EV_READ | EV_HUP | EV_ERROR) || (c->ssl && c->state == CONN_TLS_HS)) {
		rc = conn_read(c);
		if (rc != 0) {
			/* EOF: a pipelined response may still be owed; error: drop. */
			if (rc < 0 || c->out.len == c->out.off) {
				web_conn_close(c);
				return;
			}
			c->close_after_flush = true;
		}
	}
	conn_after_io(c);
}

static void req_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct web_conn *c = t->arg;

	(void)loop;
	log_rl(LOGL_INFO, "web", NULL, "request not complete after %u ms: connection closed",
	       c->web->lim.request_ms);
	if (c->state == CONN_H1) {
		web_h1_timeout(c);
		conn_after_io(c);
	} else if (c->state == CONN_H2) {
		web_h2_timeout(c);   /* 408 to the late streams; the connection goes on */
		conn_after_io(c);
	} else {
		web_conn_close(c);
	}
}

void web_conn_req_begin(struct web_conn *c)
{
	if (!ev_timer_pending(&c->req))
		ev_timer_start(c->web->loop, &c->req, c->web->lim.request_ms);
}

void web_conn_req_end(struct web_conn *c)
{
	ev_timer_stop(c->web->loop, &c->req);
}

static void idle_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct web_conn *c = t->arg;

	/* A request the server itself is still answering (a job on a worker
	 * thread) is not idleness; streams the client leaves unfinished have
	 * their own deadline (request_ms). */
	if (c->idle_goaway == 0 && (c->waiting || (c->state == CONN_H2 && web_h2_deferred(c)))) {
		ev_timer_start(loop, &c->idle, c->web->lim.idle_ms);
		return;
	}
	log_debug("web", "idle connection closed fd=%d", c->fd);
	if (c->state == CONN_H2 && web_h2_session(c)) {
		/* RFC 9113 6.8: tell the peer before closing. */
		nghttp2_session_terminate_session(web_h2_session(c), NGHTTP2_NO_ERROR);
		if (web_h2_flush(c) == 0 && conn_flush(c) == 0 && c->out.len) {
			c->close_after_flush = true;   /* let the GOAWAY out, then close */
			conn_set_events(c);
			ev_timer_start(loop, &c->idle, 1000);
			if (c->idle_goaway++ == 0)
				return;
		}
	}
	web_conn_close(c);
}

/* The lifetime is over: the idle path ends the connection as soon as
 * nothing is in flight (GOAWAY first on HTTP/2); request_ms later it is
 * closed whatever it is doing. */
static void life_cb(struct ev_loop *loop, struct ev_timer *t)
{
	struct web_conn *c = t->arg;

	if (c->life_over) {
		log_rl(LOGL_INFO, "web", NULL, "connection still busy %u ms after its lifetime: closed",
		       c->web->lim.request_ms);
		web_conn_close(c);
		return;
	}
	log_debug("web", "connection lifetime (%u ms) over fd=%d", c->web->lim.lifetime_ms, c->fd);
	c->life_over = true;
	if (c->out.len == c->out.off)   /* an answer still going out gets the grace */
		ev_timer_start(loop, &c->idle, 0);
	ev_timer_start(loop, &c->life, c->web->lim.request_ms);
}

void web_conn_touch(struct web_conn *c)
{
	if (!c->dead && !c->idle_goaway && !c->life_over)
		ev_timer_start(c->web->loop, &c->idle, c->web->lim.idle_ms);
}

int web_body_account(struct web *w, size_t n, bool add)
{
	if (!add) {
		w->body_bytes -= n <= w->body_bytes ? n : w->body_bytes;
		return 0;
	}
	if (w->body_bytes + n > w->lim.max_body_total) {
		w->refused_body++;
		log_rl(LOGL_WARN, "web", NULL, "request bodies in flight at the limit (%u bytes): refused",
		       w->lim.max_body_total);
		return -ENOBUFS;
	}
	w->body_bytes += n;
	return 0;
}

/* The client's address as 16 bytes: IPv4 as v4-mapped, IPv6 cut to its /64
 * (one host usually holds a whole /64). */
static void addr_key(const struct sockaddr_storage *ss, uint8_t out[16])
{
	memset(out, 0, 16);
	if (ss->ss_family == AF_INET) {
		out[10] = out[11] = 0xff;
		memcpy(out + 12, &((const struct sockaddr_in *)ss)->sin_addr, 4);
	} else if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		memcpy(out, a, 16);
		if (!IN6_IS_ADDR_V4MAPPED(a))
			memset(out + 8, 0, 8);
	}
}

static bool addr_loopback(const struct sockaddr_storage *ss)
{
	if (ss->ss_family == AF_INET)
		return (ntohl(((const struct sockaddr_in *)ss)->sin_addr.s_addr) >> 24) == 127;
	if (ss->ss_family == AF_INET6) {
		const struct in6_addr *a = &((const struct sockaddr_in6 *)ss)->sin6_addr;

		if (IN6_IS_ADDR_LOOPBACK(a))
			return true;
		return IN6_IS_ADDR_V4MAPPED(a) && a->s6_addr[12] == 127;
	}
	return false;
}

static void accept_one(struct web *w, int fd, const struct sockaddr_storage *ss)
{
	struct web_conn *c;
	int one = 1;
	uint8_t peer[16];
	uint32_t same = 0;
	bool loopback = addr_loopback(ss);

	addr_key(ss, peer);
	for (c = w->conns; c; c = c->next)
		same += memcmp(c->peer, peer, 16) == 0;
	if (same >= w->lim.max_conns_per_client) {
		w->refused_client++;
		log_rl(LOGL_WARN, "web", NULL, "%u connections from one client: refused",
		       w->lim.max_conns_per_client);
	}
	if (w->nconns >= w->lim.max_conns || same >= w->lim.max_conns_per_client) {
		static const char busy[] = "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\n"
					   "Connection: close\r\n\r\n";
		/* Best effort: a TLS or h2 client sees a closed connection. */
		if (!w->tls && send(fd, busy, sizeof(busy) - 1, MSG_NOSIGNAL | MSG_DONTWAIT) < 0)
			log_debug("web", "503 not sent: %s", strerror(errno));
		close(fd);
		w->conns_rejected++;
		if (same < w->lim.max_conns_per_client)
			log_rl(LOGL_WARN, "web", NULL, "connection limit %u reached: refused", w->lim.max_conns);
		return;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		close(fd);
		return;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	c->web = w;
	c->fd = fd;
	c->id = ++w->next_conn_id;
	c->loopback = loopback;
	memcpy(c->peer, peer, 16);
	c->state = CONN_DETECT;
	c->events = EV_READ;
	ev_timer_init(&c->idle, idle_cb, c);
	ev_timer_init(&c->req, req_cb, c);
	ev_timer_init(&c->life, life_cb, c);
	if (w->tls) {
		c->ssl = SSL_new(w->tls);
		if (!c->ssl || SSL_set_fd(c->ssl, fd) != 1) {
			SSL_free(c->ssl);
			free(c);
			close(fd);
			return;
		}
		SSL_set_accept_state(c->ssl);
		c->state = CONN_TLS_HS;
	}
	if (ev_fd_add(w->loop, fd, EV_READ, conn_cb, c) < 0) {
		SSL_free(c->ssl);
		free(c);
		close(fd);
		return;
	}
	ev_timer_start(w->loop, &c->idle, w->lim.idle_ms);
	if (w->lim.lifetime_ms)
		ev_timer_start(w->loop, &c->life, w->lim.lifetime_ms);
	/* The TLS handshake and the protocol detection count as part of the
	 * first request. */
	web_conn_req_begin(c);
	c->next = w->conns;
	if (w->conns)
		w->conns->prev = c;
	w->conns = c;
	w->nconns++;
	w->conns_accepted++;
}

static void listen_cb(struct ev_loop *loop, int fd, uint32_t events, void *arg)
{
	struct web *w = arg;
	int i;

	(void)loop;
	(void)events;
	for (i = 0; i < 64; i++) {   /* bounded: let other fds run */
		struct sockaddr_storage ss;
		socklen_t sl = sizeof(ss);
		int cfd = accept4(fd, (struct sockaddr *)&ss, &sl, SOCK_NONBLOCK | SOCK_CLOEXEC);

		if (cfd < 0) {
			if (errno != EAGAIN && errno != EINTR)
				log_rl(LOGL_WARN, "web", NULL, "accept: %s", strerror(errno));
			return;
		}
		accept_one(w, cfd, &ss);
	}
}

static int listen_socket(const char *addr, uint16_t port, uint16_t *bound)
{
	struct sockaddr_storage ss;
	socklen_t sl;
	int fd, one = 1;

	memset(&ss, 0, sizeof(ss));
	if (inet_pton(AF_INET, addr, &((struct sockaddr_in *)&ss)->sin_addr) == 1) {
		ss.ss_family = AF_INET;
		((struct sockaddr_in *)&ss)->sin_port = htons(port);
		sl = sizeof(struct sockaddr_in);
	} else if (inet_pton(AF_INET6, addr, &((struct sockaddr_in6 *)&ss)->sin6_addr) == 1) {
		ss.ss_family = AF_INET6;
		((struct sockaddr_in6 *)&ss)->sin6_port = htons(port);
		sl = sizeof(struct sockaddr_in6);
	} else {
		return -EINVAL;
	}
	fd = socket(ss.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (bind(fd, (struct sockaddr *)&ss, sl) < 0 || listen(fd, 128) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	sl = sizeof(ss);
	getsockname(fd, (struct sockaddr *)&ss, &sl);
	*bound = ntohs(ss.ss_family == AF_INET ? ((struct sockaddr_in *)&ss)->sin_port
					       : ((struct sockaddr_in6 *)&ss)->sin6_port);
	return fd;
}

/* jansson's buffers hold K and OPc on their way in and out: wipe on free. */
static void json_wipe_free(void *p)
{
	if (!p)
		return;
	explicit_bzero(p, malloc_usable_size(p));
	free(p);
}

int web_start(struct ev_loop *loop, const struct conf *conf, struct db *db, struct udm *udm,
	      const struct web_limits *limits, struct web **out)
{
	struct web *w;
	struct timespec ts;
	const char *env;
	int rc;

	w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	json_set_alloc_funcs(malloc, json_wipe_free);
	w->loop = loop;
	w->db = db;
	w->udm = udm;
	w->conf = conf;
	w->lfd = -1;
	if (limits)
		w->lim = *limits;
	else
		web_limits_default(&w->lim);
	w->start_ns = ev_update_now(loop);
	clock_gettime(CLOCK_REALTIME, &ts);
	w->start_unix = (uint64_t)ts.tv_sec;
	env = getenv("SOLOCORE_WEB_TOKEN");
	if (env && *env && web_token_add(w, env, WEB_ROLE_ADMIN) < 0)
		log_warn("web", "SOLOCORE_WEB_TOKEN unusable (empty or longer than 256): ignored");
	rc = web_api_misc_routes(w);
	if (rc == 0 && db)
		rc = web_api_subs_routes(w);
	if (rc == 0 && db)
		rc = web_api_auth_routes(w);
	if (rc == 0 && db)
		rc = web_api_admin_routes(w);
	if (rc == 0 && db)
		rc = web_api_policy_routes(w);
	if (rc == 0 && db)
		rc = web_api_cluster_routes(w);
	if (rc == 0 && db && w->lim.first_admin && !w->ntokens)
		rc = web_first_admin(w);
	if (rc == 0 && conf->web.tls.cert[0] && conf->web.tls.key[0])
		rc = web_tls_ctx(conf->web.tls.cert, conf->web.tls.key, &w->tls);
	if (rc == 0) {
		rc = listen_socket(conf->web.listen, conf->web.port, &w->port);
		if (rc >= 0) {
			w->lfd = rc;
			rc = ev_fd_add(loop, w->lfd, EV_READ, listen_cb, w);
		}
	}
	if (rc < 0) {
		log_error("web", "cannot start on %s:%u: %s", conf->web.listen, conf->web.port,
			  strerror(-rc));
		web_stop(w);
		return rc;
	}
	log_info("web", "listening on %s:%u (%s, HTTP/1.1 and HTTP/2)%s", conf->web.listen, w->port,
		 w->tls ? "TLS" : "cleartext", w->ntokens ? "" : "; no API token yet: loopback clients only");
	*out = w;
	return 0;
}

void web_stop(struct web *w)
{
	if (!w)
		return;
	if (w->lfd >= 0) {
		ev_fd_del(w->loop, w->lfd);
		close(w->lfd);
	}
	web_auth_stop(w);
	while (w->conns) {
		struct web_conn *c = w->conns;

		/* One last non-blocking try for responses already produced; an
		 * HTTP/2 peer gets its GOAWAY this way (RFC 9113 6.8). */
		if (c->state == CONN_H2) {
			nghttp2_session_terminate_session(web_h2_session(c), NGHTTP2_NO_ERROR);
			web_h2_flush(c);
		}
		conn_flush(c);
		/* Not inside this connection's callback: free at once. */
		conn_unlink(c);
		conn_free(c);
	}
	SSL_CTX_free(w->tls);
	explicit_bzero(w->tokens, sizeof(w->tokens));
	free(w);
}

uint16_t web_port(const struct web *w)
{
	return w->port;
}

uint32_t web_conn_count(const struct web *w)
{
	return w->nconns;
}
