/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * dqlc: dqlite wire-protocol client (see db/dqlite_client.h).
 * WP = https://dqlite.io/docs/reference/wire-protocol. Every integer on the
 * wire is little endian; every field and message is a multiple of a word
 * (8 bytes). The decoders below run on a cursor over exactly the received
 * body and check each length before reading.
 */
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <openssl/err.h>
#include <openssl/ssl.h>

#include "db/dqlite_client_int.h"

struct dqlc {
	int fd;
	SSL *ssl;                /* the cluster link's TLS (db/dqlite_tls.c); NULL: plain (tests) */
	int timeout_ms;
	bool broken;             /* stream out of step: only dqlc_close is left */
	/* The one buffer: a request is built here, then the response replaces it. */
	uint8_t *buf;
	size_t cap;
	/* Current query: cursor over the rest of the current ROWS body. */
	bool in_rows;
	struct dqlc_cur rows;
	unsigned n_cols;
	unsigned batches;        /* ROWS messages of the current query (tests) */
	const char *names[DQLC_COLUMNS_MAX];
	uint64_t errcode;
	char errmsg[DQLC_ERRMSG_MAX];
};

static size_t pad8(size_t n)
{
	return (n + 7u) & ~(size_t)7u;
}

/* ---- little-endian helpers ---- */

static uint64_t get_le64(const uint8_t *p)
{
	uint64_t v = 0;
	for (int i = 7; i >= 0; i--)
		v = (v << 8) | p[i];
	return v;
}

static uint32_t get_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static void put_le64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

static void put_le32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++, v >>= 8)
		p[i] = (uint8_t)v;
}

/* ---- decoder (bounded cursor) ---- */

int dqlc_dec_hdr(const uint8_t *buf, size_t len, struct dqlc_hdr *h)
{
	if (!buf || len < DQLC_HDR_SIZE)
		return -EPROTO;
	/* WP "Message": bytes 0-3 body words, 4 type, 5 schema, 6-7 unused. */
	h->words = get_le32(buf);
	h->type = buf[4];
	h->schema = buf[5];
	return 0;
}

/* The next n bytes of c, consumed; NULL (nothing consumed) when fewer are left. Every read of
 * the cursor goes through here: the one bounds check. */
static const uint8_t *cur_take(struct dqlc_cur *c, size_t n)
{
	const uint8_t *p = c->p;

	if (n > c->len)
		return NULL;
	c->p += n;
	c->len -= n;
	return p;
}

int dqlc_cur_u64(struct dqlc_cur *c, uint64_t *v)
{
	const uint8_t *p = cur_take(c, 8);

	if (!p)
		return -EPROTO;
	*v = get_le64(p);
	return 0;
}

int dqlc_cur_u32(struct dqlc_cur *c, uint32_t *v)
{
	const uint8_t *p = cur_take(c, 4);

	if (!p)
		return -EPROTO;
	*v = get_le32(p);
	return 0;
}

int dqlc_cur_text(struct dqlc_cur *c, const char **s, size_t *len)
{
	const uint8_t *nul = memchr(c->p, 0, c->len);
	size_t n = nul ? (size_t)(nul - c->p) : 0;
	const uint8_t *p = nul ? cur_take(c, pad8(n + 1)) : NULL;

	if (!p)
		return -EPROTO;
	*s = (const char *)p;
	if (len)
		*len = n;
	return 0;
}

/* WP "blob": uint64 length, then the bytes zero-padded to a word. */
static int cur_blob(struct dqlc_cur *c, const void **p, size_t *len)
{
	uint64_t n;
	int rc = dqlc_cur_u64(c, &n);
	if (rc)
		return rc;
	if (n > c->len)   /* before pad8: no wrap-around of a huge length */
		return -EPROTO;
	*p = cur_take(c, pad8((size_t)n));
	if (!*p)
		return -EPROTO;
	*len = (size_t)n;
	return 0;
}

int dqlc_dec_failure(struct dqlc_cur *c, uint64_t *code, const char **msg)
{
	int rc = dqlc_cur_u64(c, code);
	return rc ? rc : dqlc_cur_text(c, msg, NULL);
}

/* WP "SERVER" (protocol 1): uint64 id, text address. */
int dqlc_dec_server(struct dqlc_cur *c, uint64_t *id, const char **addr)
{
	int rc = dqlc_cur_u64(c, id);
	return rc ? rc : dqlc_cur_text(c, addr, NULL);
}

int dqlc_dec_servers(struct dqlc_cur *c, struct dqlc_node *nodes, unsigned max)
{
	uint64_t n, id, role;
	const char *addr;
	size_t len;
	int rc = dqlc_cur_u64(c, &n);

	if (rc)
		return rc;
	/* A member takes at least 3 words: a count the body cannot hold is
	 * malformed (and no loop runs 2^64 times on a hostile count). */
	if (n > c->len / 24)
		return -EPROTO;
	for (uint64_t i = 0; i < n; i++) {
		if ((rc = dqlc_cur_u64(c, &id)) || (rc = dqlc_cur_text(c, &addr, &len)) ||
		    (rc = dqlc_cur_u64(c, &role)))
			return rc;
		if (len >= DQLC_ADDR_MAX || role > DQLC_ROLE_SPARE)
			return -EPROTO;
		if (i < max) {
			nodes[i].id = id;
			memcpy(nodes[i].addr, addr, len + 1);
			nodes[i].role = (enum dqlc_role)role;
		}
	}
	if (c->len)
		return -EPROTO;
	return n > max ? -E2BIG : (int)n;
}

/* WP "ROWS": uint64 column count, then one text per column name. */
int dqlc_dec_columns(struct dqlc_cur *c, unsigned *n_cols, const char **names)
{
	uint64_t n;
	int rc = dqlc_cur_u64(c, &n);
	if (rc)
		return rc;
	if (n == 0 || n > DQLC_COLUMNS_MAX)
		return -EPROTO;
	for (unsigned i = 0; i < n; i++) {
		rc = dqlc_cur_text(c, &names[i], NULL);
		if (rc)
			return rc;
	}
	*n_cols = (unsigned)n;
	return 0;
}

static int dec_value(struct dqlc_cur *c, unsigned type, struct dqlc_value *v)
{
	uint64_t u;
	int rc;

	v->type = (enum dqlc_type)type;
	switch (type) {
	case DQLC_INTEGER:
	case DQLC_UNIXTIME:
	case DQLC_BOOLEAN:
		rc = dqlc_cur_u64(c, &u);
		v->i = (int64_t)u;
		return rc;
	case DQLC_FLOAT:
		rc = dqlc_cur_u64(c, &u);
		memcpy(&v->f, &u, sizeof(v->f));
		return rc;
	case DQLC_NULL:
		/* WP: a NULL takes one (zero) word. */
		v->b.p = NULL;
		v->b.len = 0;
		return dqlc_cur_u64(c, &u);
	case DQLC_TEXT:
	case DQLC_ISO8601: {
		const char *s;
		rc = dqlc_cur_text(c, &s, &v->b.len);
		v->b.p = s;
		return rc;
	}
	case DQLC_BLOB:
		return cur_blob(c, &v->b.p, &v->b.len);
	default:
		return -EPROTO;
	}
}

int dqlc_dec_row(struct dqlc_cur *c, unsigned n_cols, struct dqlc_value *vals)
{
	uint64_t w;

	if (n_cols == 0 || n_cols > DQLC_COLUMNS_MAX)
		return -EPROTO;
	/* End-of-batch markers occupy the place of the next row header; no valid
	 * header starts with 0xee or 0xff (type nibbles 14 / 15 do not exist). */
	if (c->len < 8)
		return -EPROTO;
	w = get_le64(c->p);
	if (w == DQLC_ROWS_DONE || w == DQLC_ROWS_PART) {
		c->p += 8;
		c->len -= 8;
		return w == DQLC_ROWS_DONE ? DQLC_ROW_DONE : DQLC_ROW_PART;
	}
	/* WP "Tuple", row format: 4 bits of type per column, low nibble first,
	 * header padded to a word. */
	size_t hsize = pad8((n_cols + 1) / 2);
	if (hsize > c->len)
		return -EPROTO;
	const uint8_t *hdr = c->p;
	c->p += hsize;
	c->len -= hsize;
	for (unsigned i = 0; i < n_cols; i++) {
		unsigned t = (i % 2 == 0) ? (hdr[i / 2] & 0x0fu) : (hdr[i / 2] >> 4);
		int rc = dec_value(c, t, &vals[i]);
		if (rc)
			return rc;
	}
	return 1;
}

/* ---- encoder ---- */

static long value_size(const struct dqlc_value *v)
{
	switch (v->type) {
	case DQLC_INTEGER:
	case DQLC_FLOAT:
	case DQLC_NULL:
		return 8;
	case DQLC_TEXT:
		if (!v->b.p)
			return -EINVAL;
		return (long)pad8(strlen(v->b.p) + 1);
	case DQLC_BLOB:
		if (!v->b.p && v->b.len)
			return -EINVAL;
		if (v->b.len > DQLC_MSG_MAX)
			return -E2BIG;
		return 8 + (long)pad8(v->b.len);
	default:
		return -EINVAL;
	}
}

/* WP "Tuple", params format: 1-byte count, one type byte per value, padded
 * to a word; then the values. No parameters: nothing at all (the server
 * binds none when the body ends after the SQL). */
static size_t params_hdr_size(unsigned n)
{
	return n ? pad8(1 + (size_t)n) : 0;
}

long dqlc_params_size(const struct dqlc_value *params, unsigned n)
{
	if (n > DQLC_PARAMS_MAX)
		return -E2BIG;
	if (n && !params)
		return -EINVAL;
	long total = (long)params_hdr_size(n);
	for (unsigned i = 0; i < n; i++) {
		long s = value_size(&params[i]);
		if (s < 0)
			return s;
		total += s;
		if (total > (long)DQLC_MSG_MAX)
			return -E2BIG;
	}
	return total;
}

int dqlc_enc_params(uint8_t *buf, size_t cap, const struct dqlc_value *params, unsigned n)
{
	long need = dqlc_params_size(params, n);
	if (need < 0)
		return (int)need;
	if ((size_t)need > cap)
		return -ENOSPC;
	if (n == 0)
		return 0;
	size_t h = params_hdr_size(n);
	memset(buf, 0, h);
	buf[0] = (uint8_t)n;
	uint8_t *p = buf + h;
	for (unsigned i = 0; i < n; i++) {
		const struct dqlc_value *v = &params[i];
		uint64_t u;
		size_t len;
		buf[1 + i] = (uint8_t)v->type;
		switch (v->type) {
		case DQLC_INTEGER:
			put_le64(p, (uint64_t)v->i);
			p += 8;
			break;
		case DQLC_FLOAT:
			memcpy(&u, &v->f, sizeof(u));
			put_le64(p, u);
			p += 8;
			break;
		case DQLC_NULL:
			put_le64(p, 0);
			p += 8;
			break;
		case DQLC_TEXT:
			len = strlen(v->b.p);
			memset(p, 0, pad8(len + 1));
			memcpy(p, v->b.p, len);
			p += pad8(len + 1);
			break;
		case DQLC_BLOB:
			put_le64(p, v->b.len);
			p += 8;
			memset(p, 0, pad8(v->b.len));
			if (v->b.len)
				memcpy(p, v->b.p, v->b.len);
			p += pad8(v->b.len);
			break;
		default:
			return -EINVAL;   /* checked by dqlc_params_size */
		}
	}
	return (int)(p - buf);
}

/* ---- I/O with timeouts ---- */

static int buf_reserve(struct dqlc *c, size_t need)
{
	if (need <= c->cap)
		return 0;
	size_t cap = c->cap ? c->cap : 4096;
	while (cap < need)
		cap *= 2;
	uint8_t *p = realloc(c->buf, cap);
	if (!p)
		return -ENOMEM;
	c->buf = p;
	c->cap = cap;
	return 0;
}

/* One TLS read or write within the deadline: WANT_READ / WANT_WRITE wait on the socket. */
static int tls_io(struct dqlc *c, bool wr, uint8_t *p, size_t len, int64_t deadline)
{
	for (;;) {
		size_t n = 0;
		int ok = wr ? SSL_write_ex(c->ssl, p, len, &n) : SSL_read_ex(c->ssl, p, len, &n);
		if (ok)
			return (int)n;
		int e = SSL_get_error(c->ssl, 0);
		ERR_clear_error();
		if (e != SSL_ERROR_WANT_READ && e != SSL_ERROR_WANT_WRITE)
			return -ECONNRESET;   /* close_notify, an alert, or the peer gone */
		int rc = dqlc_tls_wait(c->fd, e, deadline);
		if (rc)
			return rc;
	}
}

static int tls_all(struct dqlc *c, bool wr, uint8_t *p, size_t len)
{
	int64_t deadline = dqlc_now_ms() + c->timeout_ms;
	while (len) {
		/* Records are at most 16 KiB; an int is plenty per call. */
		int n = tls_io(c, wr, p, len > (1u << 30) ? (1u << 30) : len, deadline);
		if (n < 0)
			return n;
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_all(struct dqlc *c, const uint8_t *p, size_t len)
{
	int64_t deadline = dqlc_now_ms() + c->timeout_ms;
	if (c->ssl)
		return tls_all(c, true, (uint8_t *)p, len);
	while (len) {
		int rc = dqlc_wait_fd(c->fd, POLLOUT, deadline);
		if (rc)
			return rc;
		ssize_t n = send(c->fd, p, len, MSG_NOSIGNAL);
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

static int recv_all(struct dqlc *c, uint8_t *p, size_t len)
{
	int64_t deadline = dqlc_now_ms() + c->timeout_ms;
	if (c->ssl)
		return tls_all(c, false, p, len);
	while (len) {
		int rc = dqlc_wait_fd(c->fd, POLLIN, deadline);
		if (rc)
			return rc;
		ssize_t n = recv(c->fd, p, len, 0);
		if (n == 0)
			return -ECONNRESET;
		if (n < 0) {
			if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
				continue;
			return -errno;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

/* Errors that leave the byte stream out of step break the connection. */
static int fail(struct dqlc *c, int rc)
{
	if (rc < 0 && rc != -DQLC_EFAILURE && rc != -EINVAL && rc != -E2BIG)
		c->broken = true;
	return rc;
}

/* Read one message; *body covers exactly its body, at the start of c->buf. */
static int recv_msg(struct dqlc *c, struct dqlc_hdr *h, struct dqlc_cur *body)
{
	uint8_t hb[DQLC_HDR_SIZE];
	int rc = recv_all(c, hb, sizeof(hb));
	if (rc)
		return rc;
	rc = dqlc_dec_hdr(hb, sizeof(hb), h);
	if (rc)
		return rc;
	size_t len = (size_t)h->words * DQLC_WORD;
	if (len > DQLC_MSG_MAX)
		return -EMSGSIZE;
	rc = buf_reserve(c, len ? len : 1);
	if (rc)
		return rc;
	rc = recv_all(c, c->buf, len);
	if (rc)
		return rc;
	body->p = c->buf;
	body->len = len;
	return 0;
}

/* A FAILURE body: keep code and message, return -DQLC_EFAILURE. */
static int take_failure(struct dqlc *c, struct dqlc_cur *body)
{
	uint64_t code;
	const char *msg;
	int rc = dqlc_dec_failure(body, &code, &msg);
	if (rc)
		return rc;
	c->errcode = code;
	snprintf(c->errmsg, sizeof(c->errmsg), "%s", msg);
	return -DQLC_EFAILURE;
}

/* Read the response to the request just sent; anything but `want` (or
 * FAILURE) is a protocol error. */
static int expect(struct dqlc *c, uint8_t want, struct dqlc_cur *body)
{
	struct dqlc_hdr h;
	int rc = recv_msg(c, &h, body);
	if (rc)
		return rc;
	if (h.type == DQLC_RESP_FAILURE)
		return take_failure(c, body);
	if (h.type != want)
		return -EPROTO;
	return 0;
}

static int rows_drain(struct dqlc *c);

/* Start a request of `type` with a body of `size` bytes (a multiple of 8):
 * returns a pointer to the body inside c->buf, or NULL with *rc set. */
static uint8_t *req_begin(struct dqlc *c, uint8_t type, size_t size, int *rc)
{
	*rc = 0;
	if (c->broken) {
		*rc = -ENOTCONN;
		return NULL;
	}
	if (c->in_rows && (*rc = rows_drain(c)) != 0)
		return NULL;
	if (size > DQLC_MSG_MAX || size % DQLC_WORD) {
		*rc = -E2BIG;
		return NULL;
	}
	if ((*rc = buf_reserve(c, DQLC_HDR_SIZE + size)) != 0)
		return NULL;
	memset(c->buf, 0, DQLC_HDR_SIZE + size);
	put_le32(c->buf, (uint32_t)(size / DQLC_WORD));
	c->buf[4] = type;
	c->buf[5] = 0;   /* schema 0 for every request we send */
	return c->buf + DQLC_HDR_SIZE;
}

static int req_send(struct dqlc *c, size_t size)
{
	return send_all(c, c->buf, DQLC_HDR_SIZE + size);
}

static size_t put_text(uint8_t *p, const char *s)
{
	size_t n = strlen(s);
	memcpy(p, s, n);   /* padding already zeroed by req_begin */
	return pad8(n + 1);
}

/* ---- connection ---- */

int dqlc_split_hostport(const char *hp, char *host, size_t hsz, const char **port)
{
	const char *colon;
	size_t hl;

	if (hp[0] == '[') {
		const char *end = strchr(hp, ']');
		if (!end || end[1] != ':')
			return -EINVAL;
		hp++;
		hl = (size_t)(end - hp);
		colon = end + 1;
	} else {
		colon = strrchr(hp, ':');
		if (!colon)
			return -EINVAL;
		hl = (size_t)(colon - hp);
	}
	if (hl == 0 || hl >= hsz || colon[1] == '\0')
		return -EINVAL;
	memcpy(host, hp, hl);
	host[hl] = '\0';
	*port = colon + 1;
	return 0;
}

static int connect_one(const struct addrinfo *ai, int64_t deadline)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC,
			ai->ai_protocol);
	if (fd < 0)
		return -errno;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS) {
			int e = -errno;
			close(fd);
			return e;
		}
		int rc = dqlc_tls_wait(fd, SSL_ERROR_WANT_WRITE, deadline);
		int err = 0;
		socklen_t el = sizeof(err);
		if (!rc && getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &el) < 0)
			err = errno;
		if (rc || err) {
			close(fd);
			return rc ? rc : -err;
		}
	}
	int one = 1;
	/* Small requests answered one by one: do not wait for Nagle. */
	(void)setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
	return fd;
}

int dqlc_tcp_connect(const char *hostport, int timeout_ms)
{
	struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	int64_t deadline = dqlc_now_ms() + timeout_ms;
	char host[DQLC_ADDR_MAX];
	const char *port;
	int rc = dqlc_split_hostport(hostport, host, sizeof(host), &port);

	if (rc)
		return rc;
	if (getaddrinfo(host, port, &hints, &res) != 0 || !res)
		return -EHOSTUNREACH;
	rc = -EHOSTUNREACH;
	for (const struct addrinfo *ai = res; ai; ai = ai->ai_next)
		if ((rc = connect_one(ai, deadline)) >= 0)
			break;
	freeaddrinfo(res);
	return rc;
}

int dqlc_connect(const char *hostport, int timeout_ms, struct dqlc **out)
{
	char host[DQLC_ADDR_MAX];
	const char *port;
	int rc;

	if (!hostport || !out)
		return -EINVAL;
	*out = NULL;
	rc = dqlc_split_hostport(hostport, host, sizeof(host), &port);
	if (rc)
		return rc;
	struct dqlc *c = calloc(1, sizeof(*c));
	if (!c)
		return -ENOMEM;
	c->timeout_ms = timeout_ms > 0 ? timeout_ms : DQLC_TIMEOUT_MS_DEFAULT;
	c->fd = dqlc_tcp_connect(hostport, c->timeout_ms);
	if (c->fd < 0) {
		rc = c->fd;
		c->fd = -1;
		goto err;
	}
	/* Issue 31: the cluster link is mutual TLS; 1 = plain, allowed by a test only. */
	rc = dqlc_tls_connect(c->fd, c->timeout_ms, &c->ssl);
	if (rc < 0)
		goto err;
	/* WP "Setup": one word with the protocol version; no answer comes. */
	uint8_t v[8];
	put_le64(v, DQLC_PROTOCOL_VERSION);
	rc = send_all(c, v, sizeof(v));
	if (rc)
		goto err;
	*out = c;
	return 0;
err:
	dqlc_close(c);
	return rc;
}

void dqlc_close(struct dqlc *c)
{
	if (!c)
		return;
	if (c->ssl) {
		/* close_notify if the socket takes it now; never wait for the peer's. */
		(void)SSL_shutdown(c->ssl);
		SSL_free(c->ssl);
		ERR_clear_error();
	}
	if (c->fd >= 0)
		close(c->fd);
	free(c->buf);
	free(c);
}

/* ---- requests ---- */

int dqlc_leader(struct dqlc *c, uint64_t *id, char *addr, size_t addr_size)
{
	struct dqlc_cur b;
	const char *a;
	uint64_t nid;
	int rc;

	if (!c || !addr || addr_size == 0)
		return -EINVAL;
	/* WP "LEADER": one unused word. */
	if (!req_begin(c, DQLC_REQ_LEADER, 8, &rc))
		return fail(c, rc);
	if ((rc = req_send(c, 8)) || (rc = expect(c, DQLC_RESP_SERVER, &b)) ||
	    (rc = dqlc_dec_server(&b, &nid, &a)))
		return fail(c, rc);
	if (strlen(a) >= addr_size)
		return -ENAMETOOLONG;
	memcpy(addr, a, strlen(a) + 1);
	if (id)
		*id = nid;
	return 0;
}

int dqlc_register(struct dqlc *c, uint64_t id, uint64_t *heartbeat_ms)
{
	struct dqlc_cur b;
	uint64_t hb;
	uint8_t *p;
	int rc;

	if (!c)
		return -EINVAL;
	if (!(p = req_begin(c, DQLC_REQ_CLIENT, 8, &rc)))
		return fail(c, rc);
	put_le64(p, id);
	if ((rc = req_send(c, 8)) || (rc = expect(c, DQLC_RESP_WELCOME, &b)) ||
	    (rc = dqlc_cur_u64(&b, &hb)))
		return fail(c, rc);
	if (heartbeat_ms)
		*heartbeat_ms = hb;
	return 0;
}

int dqlc_open(struct dqlc *c, const char *name, uint32_t *db_id)
{
	/* WP "OPEN": text name, uint64 flags, text vfs. The node uses its own
	 * replicating VFS whatever is named here; go-dqlite sends "volatile". */
	static const char vfs[] = "volatile";
	struct dqlc_cur b;
	uint32_t id;
	uint8_t *p;
	int rc;

	if (!c || !name || !db_id)
		return -EINVAL;
	size_t size = pad8(strlen(name) + 1) + 8 + pad8(sizeof(vfs));
	if (!(p = req_begin(c, DQLC_REQ_OPEN, size, &rc)))
		return fail(c, rc);
	p += put_text(p, name);
	put_le64(p, 0);
	p += 8;
	put_text(p, vfs);
	if ((rc = req_send(c, size)) || (rc = expect(c, DQLC_RESP_DB, &b)) ||
	    (rc = dqlc_cur_u32(&b, &id)))
		return fail(c, rc);
	*db_id = id;
	return 0;
}

/* Body = head (already laid out by the caller, head_size bytes) + params. */
static int send_with_params(struct dqlc *c, uint8_t type, size_t head_size,
			    const struct dqlc_value *params, unsigned n,
			    uint8_t **head)
{
	long ps = dqlc_params_size(params, n);
	int rc;
	if (ps < 0)
		return (int)ps;
	size_t size = head_size + (size_t)ps;
	uint8_t *p = req_begin(c, type, size, &rc);
	if (!p)
		return rc;
	*head = p;
	return (int)size;
}

static int finish_params(struct dqlc *c, uint8_t *p, size_t head_size, size_t size,
			 const struct dqlc_value *params, unsigned n)
{
	int w = dqlc_enc_params(p + head_size, size - head_size, params, n);
	if (w < 0)
		return w;
	return req_send(c, size);
}

static int read_result(struct dqlc *c, struct dqlc_result *res)
{
	struct dqlc_cur b;
	struct dqlc_result r;
	int rc;
	if ((rc = expect(c, DQLC_RESP_RESULT, &b)) || (rc = dqlc_cur_u64(&b, &r.last_insert_id)) ||
	    (rc = dqlc_cur_u64(&b, &r.rows_affected)))
		return rc;
	if (res)
		*res = r;
	return 0;
}

/* Read a ROWS response (first or a later batch) and set up the row cursor. */
static int rows_begin(struct dqlc *c, bool first)
{
	struct dqlc_cur b;
	int rc;
	c->in_rows = false;
	if ((rc = expect(c, DQLC_RESP_ROWS, &b)) || (rc = dqlc_dec_columns(&b, &c->n_cols, c->names)))
		return rc;
	c->rows = b;
	c->in_rows = true;
	c->batches = first ? 1 : c->batches + 1;
	return (int)c->n_cols;
}

static int sql_request(struct dqlc *c, uint8_t type, uint32_t db_id, const char *sql,
		       const struct dqlc_value *params, unsigned n)
{
	uint8_t *p = NULL;
	if (!sql)
		return -EINVAL;
	/* WP "EXEC_SQL" / "QUERY_SQL": uint64 db id, text sql, tuple params. */
	size_t head = 8 + pad8(strlen(sql) + 1);
	int size = send_with_params(c, type, head, params, n, &p);
	if (size < 0)
		return size;
	put_le64(p, db_id);
	put_text(p + 8, sql);
	return finish_params(c, p, head, (size_t)size, params, n);
}

static int stmt_request(struct dqlc *c, uint8_t type, uint32_t db_id, uint32_t stmt_id,
			const struct dqlc_value *params, unsigned n)
{
	uint8_t *p = NULL;
	/* WP "EXEC" / "QUERY": uint32 db id, uint32 stmt id, tuple params. */
	int size = send_with_params(c, type, 8, params, n, &p);
	if (size < 0)
		return size;
	put_le32(p, db_id);
	put_le32(p + 4, stmt_id);
	return finish_params(c, p, 8, (size_t)size, params, n);
}

int dqlc_exec_sql(struct dqlc *c, uint32_t db_id, const char *sql,
		  const struct dqlc_value *params, unsigned n, struct dqlc_result *res)
{
	int rc;
	if (!c)
		return -EINVAL;
	if ((rc = sql_request(c, DQLC_REQ_EXEC_SQL, db_id, sql, params, n)) ||
	    (rc = read_result(c, res)))
		return fail(c, rc);
	return 0;
}

int dqlc_query_sql(struct dqlc *c, uint32_t db_id, const char *sql,
		   const struct dqlc_value *params, unsigned n)
{
	int rc;
	if (!c)
		return -EINVAL;
	if ((rc = sql_request(c, DQLC_REQ_QUERY_SQL, db_id, sql, params, n)) ||
	    (rc = rows_begin(c, true)) < 0)
		return fail(c, rc);
	return rc;
}

int dqlc_prepare(struct dqlc *c, uint32_t db_id, const char *sql, uint32_t *stmt_id,
		 uint64_t *n_params)
{
	struct dqlc_cur b;
	uint32_t dbid, sid;
	uint64_t np;
	uint8_t *p;
	int rc;

	if (!c || !sql || !stmt_id)
		return -EINVAL;
	/* WP "PREPARE": uint64 db id, text sql -> "STMT": uint32 db, uint32 id,
	 * uint64 parameter count. */
	size_t size = 8 + pad8(strlen(sql) + 1);
	if (!(p = req_begin(c, DQLC_REQ_PREPARE, size, &rc)))
		return fail(c, rc);
	put_le64(p, db_id);
	put_text(p + 8, sql);
	if ((rc = req_send(c, size)) || (rc = expect(c, DQLC_RESP_STMT, &b)) ||
	    (rc = dqlc_cur_u32(&b, &dbid)) || (rc = dqlc_cur_u32(&b, &sid)) ||
	    (rc = dqlc_cur_u64(&b, &np)))
		return fail(c, rc);
	*stmt_id = sid;
	if (n_params)
		*n_params = np;
	return 0;
}

int dqlc_exec(struct dqlc *c, uint32_t db_id, uint32_t stmt_id,
	      const struct dqlc_value *params, unsigned n, struct dqlc_result *res)
{
	int rc;
	if (!c)
		return -EINVAL;
	if ((rc = stmt_request(c, DQLC_REQ_EXEC, db_id, stmt_id, params, n)) ||
	    (rc = read_result(c, res)))
		return fail(c, rc);
	return 0;
}

int dqlc_query(struct dqlc *c, uint32_t db_id, uint32_t stmt_id,
	       const struct dqlc_value *params, unsigned n)
{
	int rc;
	if (!c)
		return -EINVAL;
	if ((rc = stmt_request(c, DQLC_REQ_QUERY, db_id, stmt_id, params, n)) ||
	    (rc = rows_begin(c, true)) < 0)
		return fail(c, rc);
	return rc;
}

int dqlc_finalize(struct dqlc *c, uint32_t db_id, uint32_t stmt_id)
{
	struct dqlc_cur b;
	uint8_t *p;
	int rc;
	if (!c)
		return -EINVAL;
	if (!(p = req_begin(c, DQLC_REQ_FINALIZE, 8, &rc)))
		return fail(c, rc);
	put_le32(p, db_id);
	put_le32(p + 4, stmt_id);
	if ((rc = req_send(c, 8)) || (rc = expect(c, DQLC_RESP_EMPTY, &b)))
		return fail(c, rc);
	return 0;
}

/* ---- membership ---- */

int dqlc_cluster(struct dqlc *c, struct dqlc_node *nodes, unsigned max)
{
	struct dqlc_cur b;
	uint8_t *p;
	int rc;

	if (!c || (!nodes && max))
		return -EINVAL;
	/* WP "CLUSTER": uint64 format -> "SERVERS". */
	if (!(p = req_begin(c, DQLC_REQ_CLUSTER, 8, &rc)))
		return fail(c, rc);
	put_le64(p, DQLC_CLUSTER_FORMAT);
	if ((rc = req_send(c, 8)) || (rc = expect(c, DQLC_RESP_SERVERS, &b)))
		return fail(c, rc);
	rc = dqlc_dec_servers(&b, nodes, max);
	/* -E2BIG: the whole answer was read and checked, the stream is in step. */
	return rc < 0 ? fail(c, rc) : rc;
}

/* A request of one uint64 id, then `word` (when non-NULL) or `text` (when
 * non-NULL); the answer is EMPTY once the leader has done it. */
static int change_request(struct dqlc *c, uint8_t type, uint64_t id, const uint64_t *word,
			  const char *text)
{
	struct dqlc_cur b;
	uint8_t *p;
	int rc;

	if (!c)
		return -EINVAL;
	size_t size = 8 + (word ? 8 : 0) + (text ? pad8(strlen(text) + 1) : 0);
	if (!(p = req_begin(c, type, size, &rc)))
		return fail(c, rc);
	put_le64(p, id);
	if (word)
		put_le64(p + 8, *word);
	if (text)
		put_text(p + 8, text);
	if ((rc = req_send(c, size)) || (rc = expect(c, DQLC_RESP_EMPTY, &b)))
		return fail(c, rc);
	return 0;
}

int dqlc_add(struct dqlc *c, uint64_t id, const char *addr)
{
	/* WP "ADD": uint64 id, text address. */
	if (!addr || !addr[0] || strlen(addr) >= DQLC_ADDR_MAX || id == 0)
		return -EINVAL;
	return change_request(c, DQLC_REQ_ADD, id, NULL, addr);
}

int dqlc_assign(struct dqlc *c, uint64_t id, enum dqlc_role role)
{
	uint64_t r = (uint64_t)role;

	/* WP "ASSIGN": uint64 id, uint64 role (without the role the server
	 * takes voter: the former PROMOTE request). */
	if ((unsigned)role > DQLC_ROLE_SPARE || id == 0)
		return -EINVAL;
	return change_request(c, DQLC_REQ_ASSIGN, id, &r, NULL);
}

int dqlc_remove(struct dqlc *c, uint64_t id)
{
	/* WP "REMOVE": uint64 id. */
	if (id == 0)
		return -EINVAL;
	return change_request(c, DQLC_REQ_REMOVE, id, NULL, NULL);
}

int dqlc_transfer(struct dqlc *c, uint64_t id)
{
	/* WP "TRANSFER": uint64 id. */
	return change_request(c, DQLC_REQ_TRANSFER, id, NULL, NULL);
}

const char *dqlc_role_name(enum dqlc_role r)
{
	switch (r) {
	case DQLC_ROLE_VOTER: return "voter";
	case DQLC_ROLE_STANDBY: return "standby";
	case DQLC_ROLE_SPARE: return "spare";
	}
	return "?";
}

/* ---- rows ---- */

/* One row into vals (n_cols entries), reading the next batch after PART. */
static int rows_step(struct dqlc *c, struct dqlc_value *vals)
{
	for (;;) {
		int rc = dqlc_dec_row(&c->rows, c->n_cols, vals);
		if (rc == 1)
			return 1;
		if (rc == DQLC_ROW_DONE) {
			c->in_rows = false;
			/* The marker is the last word of the body. */
			return c->rows.len == 0 ? 0 : -EPROTO;
		}
		if (rc == DQLC_ROW_PART) {
			/* WP "ROWS": the server sends the next batch unasked. */
			unsigned prev = c->n_cols;
			if (c->rows.len != 0)
				return -EPROTO;
			rc = rows_begin(c, false);
			if (rc < 0)
				return rc;
			if ((unsigned)rc != prev)
				return -EPROTO;
			continue;
		}
		c->in_rows = false;
		return rc;
	}
}

int dqlc_next(struct dqlc *c, struct dqlc_value *vals, unsigned n_vals)
{
	if (!c || !vals)
		return -EINVAL;
	if (c->broken)
		return -ENOTCONN;
	if (!c->in_rows)
		return 0;
	if (n_vals < c->n_cols)
		return -EINVAL;
	int rc = rows_step(c, vals);
	return rc < 0 ? fail(c, rc) : rc;
}

/* Read and drop what is left of the current result set (a FAILURE in a later
 * batch ends it too: the stream is in step again, the query is over). */
static int rows_drain(struct dqlc *c)
{
	struct dqlc_value vals[DQLC_COLUMNS_MAX];
	int rc;
	while ((rc = rows_step(c, vals)) == 1)
		;
	c->in_rows = false;
	return rc == -DQLC_EFAILURE ? 0 : rc;
}

unsigned dqlc_batches(const struct dqlc *c)
{
	return c ? c->batches : 0;
}

unsigned dqlc_columns(const struct dqlc *c)
{
	return c ? c->n_cols : 0;
}

const char *dqlc_column_name(const struct dqlc *c, unsigned i)
{
	return c && i < c->n_cols ? c->names[i] : NULL;
}

uint64_t dqlc_errcode(const struct dqlc *c)
{
	return c ? c->errcode : 0;
}

const char *dqlc_errmsg(const struct dqlc *c)
{
	return c ? c->errmsg : "";
}
