/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_tls - mutual-TLS terminator and relay in front of dqlite
 * (db/cluster_tls.h). One thread, one epoll set, level-triggered:
 *
 *   listener --accept--> HANDSHAKE (pending FIFO, bounded, deadline)
 *       SSL_accept done + a CA-signed certificate --> connect to dqlite's
 *       private socket --> RELAY (TLS side <-> plain side)
 *       done without a certificate --> the anonymous handler, or closed
 *       failed / evicted / deadline --> closed (and logged, rate limited)
 *   cluster_tls_connect (dqlite's thread) --TCP + TLS + socketpair--> queue
 *       --eventfd--> RELAY
 *
 * A connection in RELAY owns two 16 KiB buffers (one TLS record each way),
 * allocated once when it is established: nothing is allocated per message.
 * Connections closed while handling a batch of events are freed after the
 * batch (an event later in it may still name them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "common/log.h"
#include "db/cluster_tls.h"
#include "db/dqlite_client_int.h"

#define BUF_SIZE 16384              /* one TLS record (RFC 8446 5.1: 2^14) */
#define EVENTS_MAX 64
#define ACCEPT_BATCH 256            /* accepts per wake-up, then the others get a turn */
#define DQLITE_ERR 1                /* libdqlite's DQLITE_ERROR for the connect function */

enum tag_kind { TAG_LISTEN, TAG_WAKE, TAG_TLS, TAG_PLAIN };

struct conn;
struct tag {
	enum tag_kind kind;
	struct conn *c;
};

struct rbuf {
	uint8_t *d;
	size_t off, len;
};

struct conn {
	bool relay;                  /* false: in its handshake (pending list) */
	bool dead;
	bool t_eof, p_eof;
	int tfd, pfd;                /* TLS side (TCP), plain side (dqlite), -1 when none */
	SSL *ssl;
	int64_t deadline;            /* handshake */
	struct conn *prev, *next;
	struct tag tt, tp;
	uint32_t ev_t, ev_p;         /* registered interests (EV_NONE: not registered) */
	int rd_want, wr_want;        /* SSL_ERROR_WANT_* of the last SSL_read / SSL_write */
	struct rbuf up;              /* plain -> TLS */
	struct rbuf down;            /* TLS -> plain */
	char peer[INET6_ADDRSTRLEN + 8];
};

struct list {
	struct conn *head, *tail;
	unsigned n;
};

struct cluster_tls {
	SSL_CTX *srv, *cli;
	int lfd, epfd, wfd;
	pthread_t thr;
	bool thr_up;
	atomic_bool stop;
	struct sockaddr_un backend;
	socklen_t backend_len;
	struct list pending, relays;
	struct conn *reap;
	pthread_mutex_t qlock;       /* dialed connections handed to the thread */
	struct conn *q;
	void (*anon_fn)(void *arg, SSL *ssl, int fd);
	void *anon_arg;
	struct tag tl, tw;
	_Atomic uint64_t st[7];      /* struct cluster_tls_stats, in order */
};

enum { ST_ACCEPTED, ST_REFUSED, ST_EVICTED, ST_TIMED_OUT, ST_RELAYED, ST_DIALED, ST_ANON };
#define EV_NONE 0xffffffffu

/* Anonymous-handler threads of the whole process (they may outlive their cluster_tls). */
static atomic_uint anon_running;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void count(struct cluster_tls *t, int which)
{
	atomic_fetch_add_explicit(&t->st[which], 1, memory_order_relaxed);
}

static void list_add(struct list *l, struct conn *c)
{
	c->next = NULL;
	c->prev = l->tail;
	if (l->tail)
		l->tail->next = c;
	else
		l->head = c;
	l->tail = c;
	l->n++;
}

static void list_del(struct list *l, struct conn *c)
{
	if (c->prev)
		c->prev->next = c->next;
	else
		l->head = c->next;
	if (c->next)
		c->next->prev = c->prev;
	else
		l->tail = c->prev;
	c->prev = c->next = NULL;
	l->n--;
}

static int set_ev(struct cluster_tls *t, int fd, struct tag *tag, uint32_t *cur, uint32_t ev)
{
	struct epoll_event e = { .events = ev, .data.ptr = tag };

	if (fd < 0 || *cur == ev)
		return 0;
	if (epoll_ctl(t->epfd, *cur == EV_NONE ? EPOLL_CTL_ADD : EPOLL_CTL_MOD, fd, &e) < 0)
		return -errno;
	*cur = ev;
	return 0;
}

static struct conn *conn_new(int tfd, SSL *ssl)
{
	struct conn *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->tfd = tfd;
	c->pfd = -1;
	c->ssl = ssl;
	c->tt = (struct tag){ TAG_TLS, c };
	c->tp = (struct tag){ TAG_PLAIN, c };
	c->ev_t = c->ev_p = EV_NONE;
	return c;
}

static int conn_buffers(struct conn *c)
{
	c->up.d = malloc(2 * BUF_SIZE);
	c->down.d = c->up.d ? c->up.d + BUF_SIZE : NULL;
	return c->up.d ? 0 : -ENOMEM;
}

static void conn_free(struct conn *c)
{
	if (c->ssl)
		SSL_free(c->ssl);
	if (c->tfd >= 0)
		close(c->tfd);
	if (c->pfd >= 0)
		close(c->pfd);
	free(c->up.d);
	free(c);
}

/* Close now, free after the batch. */
static void conn_kill(struct cluster_tls *t, struct conn *c)
{
	if (c->dead)
		return;
	c->dead = true;
	list_del(c->relay ? &t->relays : &t->pending, c);
	if (c->tfd >= 0 && c->ev_t != EV_NONE)
		epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->tfd, NULL);
	if (c->pfd >= 0 && c->ev_p != EV_NONE)
		epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->pfd, NULL);
	c->next = t->reap;
	t->reap = c;
}

static void reap(struct cluster_tls *t)
{
	while (t->reap) {
		struct conn *c = t->reap;
		t->reap = c->next;
		conn_free(c);
	}
}

/* Why a handshake failed, for the log: the certificate check, else OpenSSL's reason. */
static const char *hs_reason(SSL *ssl, int ssl_err)
{
	long vr = SSL_get_verify_result(ssl);
	unsigned long e = ERR_peek_error();
	const char *r;

	if (vr != X509_V_OK)
		return X509_verify_cert_error_string(vr);
	if (e && (r = ERR_reason_error_string(e)))
		return r;
	return ssl_err == SSL_ERROR_SYSCALL || ssl_err == SSL_ERROR_ZERO_RETURN ?
	       "closed by the peer" : "TLS error";
}

static void refuse(struct cluster_tls *t, struct conn *c, const char *why)
{
	count(t, ST_REFUSED);
	log_rl(LOGL_WARN, "cluster", NULL, "tls: refused %s: %s", c->peer, why);
	ERR_clear_error();
	conn_kill(t, c);
}

/* ---- relay ---- */

static void pump(struct cluster_tls *t, struct conn *c)
{
	bool progress;

	do {
		size_t n = 0;
		ssize_t k;
		int e;

		progress = false;
		if (c->up.len == 0 && !c->p_eof) {
			k = recv(c->pfd, c->up.d, BUF_SIZE, MSG_DONTWAIT);
			if (k > 0) {
				c->up.off = 0;
				c->up.len = (size_t)k;
				progress = true;
			} else if (k == 0) {
				c->p_eof = true;
			} else if (errno != EAGAIN && errno != EINTR) {
				c->p_eof = true;
			}
		}
		if (c->up.off < c->up.len) {
			if (SSL_write_ex(c->ssl, c->up.d + c->up.off, c->up.len - c->up.off, &n)) {
				c->up.off += n;
				if (c->up.off == c->up.len)
					c->up.off = c->up.len = 0;
				c->wr_want = 0;
				progress = true;
			} else if ((e = SSL_get_error(c->ssl, 0)) == SSL_ERROR_WANT_READ ||
				   e == SSL_ERROR_WANT_WRITE) {
				c->wr_want = e;
			} else {
				goto close;
			}
		}
		if (c->down.len == 0 && !c->t_eof) {
			if (SSL_read_ex(c->ssl, c->down.d, BUF_SIZE, &n)) {
				c->down.off = 0;
				c->down.len = n;
				c->rd_want = 0;
				progress = true;
			} else if ((e = SSL_get_error(c->ssl, 0)) == SSL_ERROR_WANT_READ ||
				   e == SSL_ERROR_WANT_WRITE) {
				c->rd_want = e;
			} else {
				c->t_eof = true;   /* close_notify, an alert, or the peer gone */
			}
		}
		if (c->down.off < c->down.len) {
			k = send(c->pfd, c->down.d + c->down.off, c->down.len - c->down.off,
				 MSG_DONTWAIT | MSG_NOSIGNAL);
			if (k > 0) {
				c->down.off += (size_t)k;
				if (c->down.off == c->down.len)
					c->down.off = c->down.len = 0;
				progress = true;
			} else if (k < 0 && errno != EAGAIN && errno != EINTR) {
				goto close;
			}
		}
		if ((c->p_eof && c->up.len == 0) || (c->t_eof && c->down.len == 0))
			goto close;
	} while (progress);

	uint32_t et = 0, ep = 0;
	if (c->down.len == 0)
		et |= c->rd_want == SSL_ERROR_WANT_WRITE ? EPOLLOUT : EPOLLIN;
	if (c->up.len)
		et |= c->wr_want == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT;
	if (c->up.len == 0)
		ep |= EPOLLIN;
	if (c->down.len)
		ep |= EPOLLOUT;
	if (set_ev(t, c->tfd, &c->tt, &c->ev_t, et) == 0 &&
	    set_ev(t, c->pfd, &c->tp, &c->ev_p, ep) == 0)
		return;
close:
	ERR_clear_error();
	if (c->up.len == 0 && !c->t_eof)
		(void)SSL_shutdown(c->ssl);   /* close_notify when the socket takes it */
	ERR_clear_error();
	conn_kill(t, c);
}

/* ---- inbound handshakes ---- */

struct anon_job {
	void (*fn)(void *arg, SSL *ssl, int fd);
	void *arg;
	SSL *ssl;
	int fd;
};

static void *anon_main(void *p)
{
	struct anon_job j = *(struct anon_job *)p;

	free(p);
	j.fn(j.arg, j.ssl, j.fd);
	ERR_clear_error();
	atomic_fetch_sub(&anon_running, 1);
	return NULL;
}

/* A handshake without a client certificate: the enrollment handler's, or closed. */
static void to_anon(struct cluster_tls *t, struct conn *c)
{
	struct anon_job *j;
	pthread_attr_t a;
	pthread_t th;
	int fl;

	void (*fn)(void *, SSL *, int) = __atomic_load_n(&t->anon_fn, __ATOMIC_ACQUIRE);

	if (!fn)
		return refuse(t, c, "no client certificate");
	if (atomic_fetch_add(&anon_running, 1) >= CLUSTER_TLS_ANON_MAX) {
		atomic_fetch_sub(&anon_running, 1);
		return refuse(t, c, "no client certificate, and enrollment is busy");
	}
	j = malloc(sizeof(*j));
	if (!j) {
		atomic_fetch_sub(&anon_running, 1);
		return refuse(t, c, "out of memory");
	}
	*j = (struct anon_job){ fn, t->anon_arg, c->ssl, c->tfd };
	epoll_ctl(t->epfd, EPOLL_CTL_DEL, c->tfd, NULL);
	c->ev_t = EV_NONE;
	fl = fcntl(c->tfd, F_GETFL);
	if (fl >= 0)
		(void)fcntl(c->tfd, F_SETFL, fl & ~O_NONBLOCK);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	if (pthread_create(&th, &a, anon_main, j) != 0) {
		pthread_attr_destroy(&a);
		free(j);
		atomic_fetch_sub(&anon_running, 1);
		return refuse(t, c, "no thread for enrollment");
	}
	pthread_attr_destroy(&a);
	count(t, ST_ANON);
	c->ssl = NULL;   /* the handler's now */
	c->tfd = -1;
	conn_kill(t, c);
}

/* A verified member: connect to dqlite's private socket and relay. */
static void to_relay(struct cluster_tls *t, struct conn *c)
{
	if (t->relays.n >= CLUSTER_TLS_CONNS_MAX)
		return refuse(t, c, "too many cluster connections");
	c->pfd = socket(AF_UNIX, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (c->pfd < 0 || connect(c->pfd, (struct sockaddr *)&t->backend, t->backend_len) < 0) {
		log_rl(LOGL_ERROR, "cluster", NULL, "tls: %s: dqlite's socket: %s", c->peer,
		       strerror(errno));
		count(t, ST_REFUSED);
		return conn_kill(t, c);
	}
	if (conn_buffers(c) < 0)
		return refuse(t, c, "out of memory");
	list_del(&t->pending, c);
	c->relay = true;
	list_add(&t->relays, c);
	count(t, ST_RELAYED);
	pump(t, c);
}

static void handshake(struct cluster_tls *t, struct conn *c)
{
	int r, e;

	ERR_clear_error();
	r = SSL_accept(c->ssl);
	if (r == 1) {
		/* TLS 1.3 (RFC 8446 4.4.2.4): a certificate was checked against the CA during
		 * the handshake; an empty one is only possible when the handler is set. */
		if (!SSL_get0_peer_certificate(c->ssl))
			return to_anon(t, c);
		if (SSL_get_verify_result(c->ssl) != X509_V_OK)
			return refuse(t, c, "certificate not verified");
		return to_relay(t, c);
	}
	e = SSL_get_error(c->ssl, r);
	if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
		if (set_ev(t, c->tfd, &c->tt, &c->ev_t, e == SSL_ERROR_WANT_READ ? EPOLLIN : EPOLLOUT) < 0)
			refuse(t, c, "epoll");
		return;
	}
	refuse(t, c, hs_reason(c->ssl, e));
}

static void peer_name(int fd, char *out, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char a[INET6_ADDRSTRLEN] = "?";
	unsigned port = 0;

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0) {
		if (ss.ss_family == AF_INET) {
			struct sockaddr_in *s4 = (struct sockaddr_in *)&ss;
			inet_ntop(AF_INET, &s4->sin_addr, a, sizeof(a));
			port = ntohs(s4->sin_port);
		} else if (ss.ss_family == AF_INET6) {
			struct sockaddr_in6 *s6 = (struct sockaddr_in6 *)&ss;
			inet_ntop(AF_INET6, &s6->sin6_addr, a, sizeof(a));
			port = ntohs(s6->sin6_port);
		}
	}
	snprintf(out, size, "%s:%u", a, port);
}

static void accept_some(struct cluster_tls *t)
{
	for (int i = 0; i < ACCEPT_BATCH; i++) {
		int fd = accept4(t->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct conn *c;
		SSL *ssl;

		if (fd < 0) {
			if (errno != EAGAIN && errno != EINTR && errno != ECONNABORTED)
				log_rl(LOGL_WARN, "cluster", NULL, "tls: accept: %s", strerror(errno));
			return;
		}
		count(t, ST_ACCEPTED);
		/* Small requests answered one by one, relayed as they come: no Nagle delay. */
		(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
		/* The oldest stranger makes room: a flood of idle connections costs each of
		 * them its slot, never a member its handshake. */
		if (t->pending.n >= CLUSTER_TLS_PENDING_MAX) {
			count(t, ST_EVICTED);
			log_rl(LOGL_WARN, "cluster", NULL, "tls: %u handshakes pending: closed the oldest (%s)",
			       t->pending.n, t->pending.head->peer);
			conn_kill(t, t->pending.head);
		}
		ssl = SSL_new(t->srv);
		c = ssl ? conn_new(fd, ssl) : NULL;
		if (!c) {
			SSL_free(ssl);
			close(fd);
			continue;
		}
		peer_name(fd, c->peer, sizeof(c->peer));
		/* Certificate required, unless enrollment may take certificate-less ones. */
		SSL_set_verify(ssl, __atomic_load_n(&t->anon_fn, __ATOMIC_ACQUIRE) ? SSL_VERIFY_PEER :
			       SSL_VERIFY_PEER | SSL_VERIFY_FAIL_IF_NO_PEER_CERT, NULL);
		if (dqlc_tls_set_fd(ssl, fd) < 0) {
			conn_kill(t, c);
			continue;
		}
		c->deadline = now_ms() + CLUSTER_TLS_HANDSHAKE_MS;
		list_add(&t->pending, c);
		if (set_ev(t, fd, &c->tt, &c->ev_t, EPOLLIN) < 0)
			conn_kill(t, c);
	}
}

static void expire(struct cluster_tls *t)
{
	int64_t now = now_ms();

	while (t->pending.head && t->pending.head->deadline <= now) {
		count(t, ST_TIMED_OUT);
		refuse(t, t->pending.head, "no handshake within the bound");
	}
}

/* Dialed connections from cluster_tls_connect, handed over through the queue. */
static void take_queue(struct cluster_tls *t)
{
	uint64_t v;
	struct conn *q;

	(void)!read(t->wfd, &v, sizeof(v));
	pthread_mutex_lock(&t->qlock);
	q = t->q;
	t->q = NULL;
	pthread_mutex_unlock(&t->qlock);
	while (q) {
		struct conn *c = q;
		q = c->next;
		c->relay = true;
		list_add(&t->relays, c);
		pump(t, c);
	}
}

static void *relay_main(void *arg)
{
	struct cluster_tls *t = arg;
	struct epoll_event ev[EVENTS_MAX];

	while (!atomic_load(&t->stop)) {
		int timeout = 1000;
		if (t->pending.head) {
			int64_t left = t->pending.head->deadline - now_ms();
			timeout = left < 0 ? 0 : left < timeout ? (int)left : timeout;
		}
		int n = epoll_wait(t->epfd, ev, EVENTS_MAX, timeout);
		for (int i = 0; i < n; i++) {
			struct tag *g = ev[i].data.ptr;
			if (g->kind == TAG_LISTEN)
				accept_some(t);
			else if (g->kind == TAG_WAKE)
				take_queue(t);
			else if (!g->c->dead && !g->c->relay)
				handshake(t, g->c);
			else if (!g->c->dead)
				pump(t, g->c);
		}
		expire(t);
		reap(t);
	}
	return NULL;
}

/* ---- outbound: dqlite's connect function ---- */

int cluster_tls_connect(void *arg, const char *address, int *fd)
{
	struct cluster_tls *t = arg;
	int64_t deadline = now_ms() + CLUSTER_TLS_HANDSHAKE_MS;
	int tcp, sv[2] = { -1, -1 };
	struct conn *c = NULL;
	SSL *ssl = NULL;
	uint64_t one = 1;

	if ((tcp = dqlc_tcp_connect(address, CLUSTER_TLS_HANDSHAKE_MS)) < 0)
		return DQLITE_ERR;
	if (!(ssl = SSL_new(t->cli)) || dqlc_tls_set_fd(ssl, tcp) < 0)
		goto fail;
	ERR_clear_error();
	for (;;) {
		int r = SSL_connect(ssl), e;
		if (r == 1)
			break;
		e = SSL_get_error(ssl, r);
		if ((e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE) ||
		    dqlc_tls_wait(tcp, e, deadline) < 0) {
			log_rl(LOGL_WARN, "cluster", NULL, "tls: to %s: %s", address, hs_reason(ssl, e));
			goto fail;
		}
	}
	if (!SSL_get0_peer_certificate(ssl) || SSL_get_verify_result(ssl) != X509_V_OK)
		goto fail;
	if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) < 0 ||
	    fcntl(sv[1], F_SETFL, O_NONBLOCK) < 0 || !(c = conn_new(tcp, ssl)) ||
	    conn_buffers(c) < 0)
		goto fail;
	c->pfd = sv[1];
	snprintf(c->peer, sizeof(c->peer), "%s", address);
	pthread_mutex_lock(&t->qlock);
	c->next = t->q;
	t->q = c;
	pthread_mutex_unlock(&t->qlock);
	(void)!write(t->wfd, &one, sizeof(one));
	count(t, ST_DIALED);
	*fd = sv[0];
	return 0;
fail:
	ERR_clear_error();
	if (c) {
		c->ssl = NULL;
		c->tfd = c->pfd = -1;
		conn_free(c);
	}
	SSL_free(ssl);
	close(tcp);
	if (sv[0] >= 0) {
		close(sv[0]);
		close(sv[1]);
	}
	return DQLITE_ERR;
}

/* ---- life cycle ---- */

static int listen_on(const char *address)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV }, *res;
	char host[256];
	const char *port;
	int fd, one = 1, rc;

	if (dqlc_split_hostport(address, host, sizeof(host), &port) < 0 ||
	    getaddrinfo(host, port, &hints, &res) != 0)
		return -EINVAL;
	fd = socket(res->ai_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	rc = fd < 0 ? -errno : 0;
	if (rc == 0)
		(void)setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
	if (rc == 0 && (bind(fd, res->ai_addr, res->ai_addrlen) < 0 || listen(fd, SOMAXCONN) < 0))
		rc = -errno;
	freeaddrinfo(res);
	if (rc < 0) {
		if (fd >= 0)
			close(fd);
		return rc;
	}
	return fd;
}

int cluster_tls_start(const char *address, const char *backend, const char *dir,
		      struct cluster_tls **out)
{
	struct cluster_tls *t;
	size_t bl;
	int rc;

	if (!out)
		return -EINVAL;
	*out = NULL;
	if (!address || !backend || backend[0] != '@')
		return -EINVAL;
	bl = strlen(backend);
	t = calloc(1, sizeof(*t));
	if (!t)
		return -ENOMEM;
	if (bl > sizeof(t->backend.sun_path)) {
		free(t);
		return -ENAMETOOLONG;
	}
	t->lfd = t->epfd = t->wfd = -1;
	pthread_mutex_init(&t->qlock, NULL);
	/* Abstract namespace (unix(7)): sun_path[0] = '\0', then the name without the '@'. */
	t->backend.sun_family = AF_UNIX;
	memcpy(t->backend.sun_path + 1, backend + 1, bl - 1);
	t->backend_len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + bl);
	if ((rc = dqlc_tls_ctx_new(dir, true, &t->srv)) < 0 ||
	    (rc = dqlc_tls_ctx_new(dir, false, &t->cli)) < 0)
		goto err;
	if ((t->lfd = listen_on(address)) < 0) {
		rc = t->lfd;
		goto err;
	}
	t->epfd = epoll_create1(EPOLL_CLOEXEC);
	t->wfd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	t->tl = (struct tag){ TAG_LISTEN, NULL };
	t->tw = (struct tag){ TAG_WAKE, NULL };
	struct epoll_event el = { .events = EPOLLIN, .data.ptr = &t->tl };
	struct epoll_event ew = { .events = EPOLLIN, .data.ptr = &t->tw };
	if (t->epfd < 0 || t->wfd < 0 || epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->lfd, &el) < 0 ||
	    epoll_ctl(t->epfd, EPOLL_CTL_ADD, t->wfd, &ew) < 0) {
		rc = -errno;
		goto err;
	}
	if ((rc = -pthread_create(&t->thr, NULL, relay_main, t)) < 0)
		goto err;
	t->thr_up = true;
	*out = t;
	return 0;
err:
	cluster_tls_stop(t);
	return rc;
}

void cluster_tls_stop(struct cluster_tls *t)
{
	uint64_t one = 1;

	if (!t)
		return;
	if (t->thr_up) {
		atomic_store(&t->stop, true);
		(void)!write(t->wfd, &one, sizeof(one));
		pthread_join(t->thr, NULL);
	}
	while (t->pending.head)
		conn_kill(t, t->pending.head);
	while (t->relays.head)
		conn_kill(t, t->relays.head);
	reap(t);
	while (t->q) {
		struct conn *c = t->q;
		t->q = c->next;
		conn_free(c);
	}
	if (t->lfd >= 0)
		close(t->lfd);
	if (t->epfd >= 0)
		close(t->epfd);
	if (t->wfd >= 0)
		close(t->wfd);
	SSL_CTX_free(t->srv);
	SSL_CTX_free(t->cli);
	pthread_mutex_destroy(&t->qlock);
	free(t);
}

void cluster_tls_set_anon_handler(struct cluster_tls *t,
				  void (*fn)(void *arg, SSL *ssl, int fd), void *arg)
{
	if (!t)
		return;
	/* Read by the relay thread at each accept; set before members or joiners come. */
	t->anon_arg = arg;
	__atomic_store_n(&t->anon_fn, fn, __ATOMIC_RELEASE);
}

void cluster_tls_stats(const struct cluster_tls *t, struct cluster_tls_stats *o)
{
	uint64_t v[7];

	for (int i = 0; i < 7; i++)
		v[i] = t ? atomic_load_explicit(&((struct cluster_tls *)t)->st[i], memory_order_relaxed) : 0;
	*o = (struct cluster_tls_stats){ v[0], v[1], v[2], v[3], v[4], v[5], v[6] };
}
