/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Issue 15, the attacks of a stranger on the management port, reproduced on
 * real sockets against the server running on its thread in this process;
 * memory is the process's RSS growth while the attack is held (a bound in
 * bytes, no clock):
 *   - HTTP/1.1 bodies before authentication (16 MiB POSTs with and without
 *     Expect: 100-continue): 401 from the head, no 100 Continue, nothing buffered;
 *     a route without authentication (login) takes 16 KiB at most (413);
 *   - HTTP/2: 60 unfinished 16 MiB POSTs on one connection, unauthenticated
 *     (401 + RST_STREAM each) and authenticated (bodies bounded per connection
 *     and in total: 503), and streams that never end (408 at their deadline);
 *   - pipelined GET / never read (response amplification): bounded, and every
 *     answer still arrives, in order, once the client reads;
 *   - connections per client address (503) and an idle timeout that PINGs do
 *     not extend;
 *   - a connection kept busy ends at its absolute lifetime.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <nghttp2/nghttp2.h>

#include "webcli.h"

#define MIB (1024u * 1024u)

/* Under AddressSanitizer freed blocks sit in its quarantine (256 MB by
 * default) and count in RSS: keep it small, so that what is measured is what
 * the server holds. An ASAN_OPTIONS quarantine setting still wins. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "quarantine_size_mb=1:thread_local_quarantine_size_kb=64";
}

static long rss_bytes(void)
{
	long pages = 0, res = 0;
	FILE *f = fopen("/proc/self/statm", "r");

	if (f) {
		if (fscanf(f, "%ld %ld", &pages, &res) != 2)
			res = 0;
		fclose(f);
	}
	return res * sysconf(_SC_PAGESIZE);
}

/* Write as much of p as the socket takes within a few polls; the bytes sent. */
static size_t write_some(int fd, const void *p, size_t n)
{
	size_t off = 0;

	while (off < n) {
		struct pollfd pf = { .fd = fd, .events = POLLOUT };
		ssize_t k;

		if (poll(&pf, 1, 200) <= 0 || (pf.revents & (POLLERR | POLLHUP)))
			break;
		k = send(fd, (const char *)p + off, n - off, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (k <= 0)
			break;
		off += (size_t)k;
	}
	return off;
}

/* ---- HTTP/1.1 ---- */

static void test_h1_body_before_auth(void **state)
{
	struct srv s;
	struct resp r;
	struct cli c[10];
	char *junk = calloc(1, MIB);
	long before, grown;
	static const char q[] = "POST /api/v1/subscribers/import HTTP/1.1\r\nHost: x\r\n"
				"Content-Length: 16777216\r\nExpect: 100-continue\r\n\r\n";

	(void)state;
	assert_non_null(junk);
	srv_start(&s, NULL);
	before = rss_bytes();
	for (int i = 0; i < 10; i++) {
		assert_int_equal(cli_connect(&c[i], s.port, NULL), 0);
		assert_int_equal(cli_write(&c[i], q, sizeof(q) - 1), 0);
		/* The first answer is the refusal, not 100 Continue. */
		assert_int_equal(h1_read(&c[i], &r), 0);
		expect_err(&r, 401, "Authorization");
		assert_false(r.keep_alive);
		resp_free(&r);
		write_some(c[i].fd, junk, MIB);   /* the server reads none of it */
	}
	grown = rss_bytes() - before;
	printf("RSS growth with 10 refused 16 MiB uploads: %ld KiB\n", grown / 1024);
	assert_true(grown < 4 * (long)MIB);
	for (int i = 0; i < 10; i++)
		cli_close(&c[i]);

	/* Without Expect, the body already on its way: the same 401, at once. */
	{
		static const char q2[] = "POST /api/v1/subscribers HTTP/1.1\r\nHost: x\r\n"
					 "Authorization: Bearer wrong-token\r\nContent-Length: 1048576\r\n\r\n";

		assert_int_equal(cli_connect(&c[0], s.port, NULL), 0);
		assert_int_equal(cli_write(&c[0], q2, sizeof(q2) - 1), 0);
		assert_int_equal(h1_read(&c[0], &r), 0);
		expect_err(&r, 401, "Authorization");
		resp_free(&r);
		cli_close(&c[0]);
	}
	/* A read-only token may not import: 403 before the body, not after. */
	{
		static const char q3[] = "POST /api/v1/subscribers/import HTTP/1.1\r\nHost: x\r\n"
					 "Authorization: Bearer " TOK_RO "\r\nContent-Length: 1048576\r\n"
					 "Expect: 100-continue\r\n\r\n";

		assert_int_equal(cli_connect(&c[0], s.port, NULL), 0);
		assert_int_equal(cli_write(&c[0], q3, sizeof(q3) - 1), 0);
		assert_int_equal(h1_read(&c[0], &r), 0);
		assert_int_equal(r.status, 403);
		resp_free(&r);
		cli_close(&c[0]);
	}
	/* The login route needs no authentication: its body is capped small. */
	{
		static const char q4[] = "POST /api/v1/login HTTP/1.1\r\nHost: x\r\n"
					 "Content-Length: 1048576\r\n\r\n";

		assert_int_equal(cli_connect(&c[0], s.port, NULL), 0);
		assert_int_equal(cli_write(&c[0], q4, sizeof(q4) - 1), 0);
		assert_int_equal(h1_read(&c[0], &r), 0);
		expect_err(&r, 413, "body");
		resp_free(&r);
		cli_close(&c[0]);
	}
	/* The operator's upload still gets its 100 Continue and its answer. */
	{
		char head[256];
		static const char toml[] = "[imsi-001010000000077]\nki = \"" K1 "\"\nopc = \"" OPC1 "\"\n";
		char b[64];
		int n = snprintf(head, sizeof(head), "POST /api/v1/subscribers/import HTTP/1.1\r\nHost: x\r\n"
				 "Authorization: Bearer " TOK_OP "\r\nContent-Length: %zu\r\n"
				 "Expect: 100-continue\r\n\r\n", sizeof(toml) - 1);
		int k;

		assert_int_equal(cli_connect(&c[0], s.port, NULL), 0);
		assert_int_equal(cli_write(&c[0], head, (size_t)n), 0);
		k = cli_read(&c[0], b, 25);
		assert_true(k > 0);
		assert_memory_equal(b, "HTTP/1.1 100 Continue\r\n", 23);
		while (k < 25) {
			int m = cli_read(&c[0], b + k, (size_t)(25 - k));

			assert_true(m > 0);
			k += m;
		}
		assert_int_equal(cli_write(&c[0], toml, sizeof(toml) - 1), 0);
		assert_int_equal(h1_read(&c[0], &r), 0);
		assert_int_equal(r.status, 200);
		resp_free(&r);
		cli_close(&c[0]);
	}
	free(junk);
	srv_free(&s);
}

static void test_h1_pipelining_amplification(void **state)
{
	struct srv s;
	struct cli c[4];
	static const char one[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n";
	size_t reqs = 16384 / (sizeof(one) - 1), sent[4];
	char *many = malloc(reqs * (sizeof(one) - 1));
	long before, grown;

	(void)state;
	assert_non_null(many);
	for (size_t i = 0; i < reqs; i++)
		memcpy(many + i * (sizeof(one) - 1), one, sizeof(one) - 1);
	srv_start(&s, NULL);
	before = rss_bytes();
	/* 16 KiB of pipelined requests per connection (about 600 UI pages of
	 * ~49 KB: 29 MB of answers each before the fix), not read for now. */
	for (int i = 0; i < 4; i++) {
		assert_int_equal(cli_connect(&c[i], s.port, NULL), 0);
		sent[i] = write_some(c[i].fd, many, reqs * (sizeof(one) - 1));
		assert_true(sent[i] > 0);
	}
	/* Let the server do all it is willing to do. */
	usleep(500 * 1000);
	grown = rss_bytes() - before;
	printf("RSS growth with 4 connections pipelining unread GET /: %ld KiB\n", grown / 1024);
	/* The mark is 1 MiB of output per connection (plus one answer, the
	 * waiting requests and the kernel's buffers are not ours). */
	assert_true(grown < 4 * 3 * (long)MIB);
	/* Nothing was lost: once read, every request of connection 0 was answered. */
	{
		size_t want = sent[0] / (sizeof(one) - 1), got = 0;
		struct resp r;

		assert_int_equal(sent[0] % (sizeof(one) - 1), 0);
		while (got < want && h1_read(&c[0], &r) == 0) {
			assert_int_equal(r.status, 200);
			resp_free(&r);
			got++;
		}
		assert_int_equal(got, want);
	}
	for (int i = 0; i < 4; i++)
		cli_close(&c[i]);
	free(many);
	srv_free(&s);
}

static void test_conns_per_client(void **state)
{
	struct srv s;
	struct srv_opts o = { 0 };
	struct web_limits lim;
	struct cli c[5];
	struct resp r;

	(void)state;
	web_limits_default(&lim);
	lim.max_conns_per_client = 4;
	o.lim = &lim;
	srv_start(&s, &o);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(cli_connect(&c[i], s.port, NULL), 0);
		assert_int_equal(h1_req(&c[i], "GET", "/api/v1/health", NULL, NULL, &r), 0);
		assert_int_equal(r.status, 200);
		resp_free(&r);
	}
	assert_int_equal(cli_connect(&c[4], s.port, NULL), 0);
	assert_int_equal(h1_read(&c[4], &r), 0);
	assert_int_equal(r.status, 503);
	resp_free(&r);
	cli_close(&c[4]);
	/* One closes: the next one is let in. */
	cli_close(&c[0]);
	usleep(100 * 1000);
	assert_int_equal(cli_connect(&c[0], s.port, NULL), 0);
	assert_int_equal(h1_req(&c[0], "GET", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	for (int i = 0; i < 4; i++)
		cli_close(&c[i]);
	srv_free(&s);
}

/* ---- HTTP/2: an attacker's client (nghttp2), streams that send and never end ---- */

struct atk_stream {
	int32_t id;
	int status;
	uint32_t close_code;
	bool closed;
	size_t sent, quota;   /* body bytes: sent so far, and how many before it stops (no EOF) */
};

struct atk {
	nghttp2_session *s;
	int fd;
	struct atk_stream st[200];
	int n;
	size_t body_sent;
	bool goaway, eof;
};

static struct atk_stream *atk_find(struct atk *a, int32_t id)
{
	for (int i = 0; i < a->n; i++)
		if (a->st[i].id == id)
			return &a->st[i];
	return NULL;
}

static int atk_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nl,
		      const uint8_t *value, size_t vl, uint8_t flags, void *user)
{
	struct atk_stream *st = atk_find(user, f->hd.stream_id);

	(void)s;
	(void)flags;
	(void)vl;
	if (st && nl == 7 && !memcmp(name, ":status", 7))
		st->status = atoi((const char *)value);
	return 0;
}

static int atk_close(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct atk_stream *st = atk_find(user, id);

	(void)s;
	if (st) {
		st->closed = true;
		st->close_code = code;
	}
	return 0;
}

static int atk_frame(nghttp2_session *s, const nghttp2_frame *f, void *user)
{
	(void)s;
	if (f->hd.type == NGHTTP2_GOAWAY)
		((struct atk *)user)->goaway = true;
	return 0;
}

static ssize_t atk_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
			nghttp2_data_source *src, void *user)
{
	struct atk *a = user;
	struct atk_stream *st = src->ptr;
	size_t n = st->quota - st->sent;

	(void)s;
	(void)id;
	(void)flags;
	if (!n)
		return NGHTTP2_ERR_DEFERRED;   /* never ends its request */
	if (n > len)
		n = len;
	memset(buf, 'x', n);
	st->sent += n;
	a->body_sent += n;
	return (ssize_t)n;
}

static void atk_open(struct atk *a, uint16_t port)
{
	nghttp2_session_callbacks *cb;
	nghttp2_option *opt;
	struct cli c;

	memset(a, 0, sizeof(*a));
	assert_int_equal(cli_connect(&c, port, NULL), 0);
	a->fd = c.fd;
	nghttp2_session_callbacks_new(&cb);
	nghttp2_session_callbacks_set_on_header_callback(cb, atk_header);
	nghttp2_session_callbacks_set_on_stream_close_callback(cb, atk_close);
	nghttp2_session_callbacks_set_on_frame_recv_callback(cb, atk_frame);
	nghttp2_option_new(&opt);
	/* Open more streams than the server allows, before its SETTINGS arrive. */
	nghttp2_option_set_peer_max_concurrent_streams(opt, 1000);
	nghttp2_session_client_new2(&a->s, cb, a, opt);
	nghttp2_option_del(opt);
	nghttp2_session_callbacks_del(cb);
	/* A window as big as the server's 1 MiB per stream on our side too. */
	nghttp2_submit_settings(a->s, NGHTTP2_FLAG_NONE,
				&(nghttp2_settings_entry){ NGHTTP2_SETTINGS_INITIAL_WINDOW_SIZE, 1u << 20 }, 1);
}

static void atk_post(struct atk *a, const char *path, const char *token, size_t quota)
{
	char auth[300];
	nghttp2_nv nva[6] = {
		{ (uint8_t *)":method", (uint8_t *)"POST", 7, 4, 0 },
		{ (uint8_t *)":path", (uint8_t *)path, 5, strlen(path), 0 },
		{ (uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0 },
		{ (uint8_t *)":authority", (uint8_t *)"x", 10, 1, 0 },
		{ (uint8_t *)"content-length", (uint8_t *)"16777216", 14, 8, 0 },
	};
	size_t nn = 5;
	struct atk_stream *st = &a->st[a->n];
	nghttp2_data_provider prd = { .source.ptr = st, .read_callback = atk_body };

	if (token) {
		snprintf(auth, sizeof(auth), "Bearer %s", token);
		nva[nn++] = (nghttp2_nv){ (uint8_t *)"authorization", (uint8_t *)auth, 13, strlen(auth), 0 };
	}
	st->quota = quota;
	st->id = nghttp2_submit_request(a->s, NULL, nva, nn, &prd, st);
	assert_true(st->id > 0);
	a->n++;
}

/* Send and receive for `rounds` polls of 50 ms, resuming deferred bodies. */
static void atk_pump(struct atk *a, int rounds)
{
	for (int r = 0; r < rounds && !a->eof; r++) {
		const uint8_t *p;
		ssize_t n;
		struct pollfd pf = { .fd = a->fd, .events = POLLIN };
		uint8_t buf[65536];

		for (int i = 0; i < a->n; i++)
			if (!a->st[i].closed && a->st[i].sent < a->st[i].quota)
				nghttp2_session_resume_data(a->s, a->st[i].id);
		while ((n = nghttp2_session_mem_send(a->s, &p)) > 0)
			if (write_some(a->fd, p, (size_t)n) != (size_t)n) {
				a->eof = true;
				return;
			}
		if (poll(&pf, 1, 50) > 0) {
			ssize_t k = recv(a->fd, buf, sizeof(buf), MSG_DONTWAIT);

			if (k == 0 || (k < 0 && errno != EAGAIN)) {
				a->eof = true;
				return;
			}
			if (k > 0 && nghttp2_session_mem_recv(a->s, buf, (size_t)k) < 0) {
				a->eof = true;
				return;
			}
		}
	}
}

static void atk_free(struct atk *a)
{
	nghttp2_session_del(a->s);
	close(a->fd);
}

static int atk_count(const struct atk *a, int status)
{
	int n = 0;

	for (int i = 0; i < a->n; i++)
		n += a->st[i].status == status;
	return n;
}

static void test_h2_unauth_streams(void **state)
{
	struct srv s;
	struct atk a;
	long before, grown;

	(void)state;
	srv_start(&s, NULL);
	before = rss_bytes();
	atk_open(&a, s.port);
	/* 60 unfinished 16 MiB imports, no token, each willing to send 4 MiB. */
	for (int i = 0; i < 60; i++)
		atk_post(&a, "/api/v1/subscribers/import", NULL, 4 * MIB);
	atk_pump(&a, 100);
	grown = rss_bytes() - before;
	printf("h2: 60 unauthenticated 16 MiB POSTs: %d answered 401, %zu body bytes sent by the "
	       "client, RSS growth %ld KiB\n", atk_count(&a, 401), a.body_sent, grown / 1024);
	assert_int_equal(atk_count(&a, 401), 60);
	for (int i = 0; i < 60; i++)   /* and asked to stop sending: RST_STREAM(NO_ERROR) */
		assert_true(a.st[i].closed);
	assert_true(grown < 8 * (long)MIB);
	atk_free(&a);
	srv_free(&s);
}

static void test_h2_authed_streams(void **state)
{
	struct srv s;
	struct srv_opts o = { 0 };
	struct web_limits lim;
	struct atk a;
	long before, grown;

	(void)state;
	web_limits_default(&lim);
	lim.max_body = 8192;          /* per request and per connection */
	lim.max_body_total = 12288;   /* all connections */
	lim.request_ms = 2000;
	o.lim = &lim;
	srv_start(&s, &o);
	before = rss_bytes();
	/* An operator's client gone wrong: 60 streams of 1 KiB each (the limits
	 * scaled down so that the first flow-control window shows them), never ended. */
	atk_open(&a, s.port);
	for (int i = 0; i < 60; i++)
		atk_post(&a, "/api/v1/subscribers/import", TOK_OP, 1024);
	atk_pump(&a, 30);
	grown = rss_bytes() - before;
	printf("h2: 60 authenticated 1 KiB bodies on one connection: %d refused 503, RSS growth %ld "
	       "KiB\n", atk_count(&a, 503), grown / 1024);
	/* The connection holds at most max_body (8 bodies): the others are refused. */
	assert_true(atk_count(&a, 503) >= 52);
	assert_true(grown < 4 * (long)MIB);
	/* The ones that fit are unfinished: their deadline ends them (408), while the
	 * client keeps the connection busy. */
	for (int i = 0; i < 200 && atk_count(&a, 503) + atk_count(&a, 408) < 60; i++)
		atk_pump(&a, 1);
	assert_int_equal(atk_count(&a, 503) + atk_count(&a, 408), 60);
	assert_true(atk_count(&a, 408) >= 1);
	atk_free(&a);
	srv_free(&s);
}

static void test_h2_stream_cap(void **state)
{
	struct srv s;
	struct atk a;
	int refused = 0;

	(void)state;
	srv_start(&s, NULL);
	atk_open(&a, s.port);
	for (int i = 0; i < 150; i++)
		atk_post(&a, "/api/v1/subscribers/import", TOK_OP, 0);
	atk_pump(&a, 20);
	for (int i = 0; i < a.n; i++)
		refused += a.st[i].closed && a.st[i].close_code == NGHTTP2_REFUSED_STREAM;
	printf("h2: 150 open streams: %d refused\n", refused);
	assert_int_equal(refused, 50);
	atk_free(&a);
	srv_free(&s);
}

static void test_h2_ping_idle(void **state)
{
	struct srv s;
	struct srv_opts o = { 0 };
	struct web_limits lim;
	struct atk a;
	int pings = 0;

	(void)state;
	web_limits_default(&lim);
	lim.idle_ms = 1000;
	o.lim = &lim;
	srv_start(&s, &o);
	atk_open(&a, s.port);
	/* A PING every ~250 ms: before the fix each one restarted the idle timer. */
	while (!a.eof && !a.goaway && pings < 40) {
		nghttp2_submit_ping(a.s, NGHTTP2_FLAG_NONE, NULL);
		pings++;
		atk_pump(&a, 5);
	}
	printf("h2: idle connection sending PINGs closed after %d PINGs (idle %u ms)\n", pings,
	       lim.idle_ms);
	assert_true(a.eof || a.goaway);
	assert_true(pings < 40);
	atk_free(&a);
	srv_free(&s);
}

/* A connection that is never idle (a request every ~20 ms, or an HTTP/2
 * client doing the same) ends at the absolute lifetime: before, it could be
 * held for ever (and with it a slow reader's queued output). Counted in
 * requests: with a 400 ms lifetime, far fewer than 200 of them. */
static void atk_get(struct atk *a, const char *path)
{
	nghttp2_nv nva[4] = {
		{ (uint8_t *)":method", (uint8_t *)"GET", 7, 3, 0 },
		{ (uint8_t *)":path", (uint8_t *)path, 5, strlen(path), 0 },
		{ (uint8_t *)":scheme", (uint8_t *)"http", 7, 4, 0 },
		{ (uint8_t *)":authority", (uint8_t *)"x", 10, 1, 0 },
	};
	struct atk_stream *st = &a->st[a->n];

	st->id = nghttp2_submit_request(a->s, NULL, nva, 4, NULL, st);
	assert_true(st->id > 0);
	a->n++;
}

static void test_lifetime(void **state)
{
	struct srv s;
	struct srv_opts o = { 0 };
	struct web_limits lim;
	struct resp r;
	struct cli c;
	struct atk a;
	char b;
	int n = 0;
	bool last = false;

	(void)state;
	web_limits_default(&lim);
	assert_int_equal(lim.lifetime_ms, 3600000);
	lim.lifetime_ms = 400;
	lim.request_ms = 300;
	o.lim = &lim;
	srv_start(&s, &o);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	/* Past the lifetime the connection is closed between two requests, or
	 * the answer in flight says "Connection: close" and it is closed after. */
	while (!last && n < 200) {
		if (h1_req(&c, "GET", "/api/v1/version", NULL, NULL, &r) < 0)
			break;
		assert_int_equal(r.status, 200);
		last = !r.keep_alive;
		resp_free(&r);
		n++;
		usleep(20000);
	}
	printf("h1: a busy connection ended after %d requests (lifetime %u ms)\n", n, lim.lifetime_ms);
	assert_true(n > 1 && n < 200);
	assert_true(cli_read(&c, &b, 1) <= 0);   /* closed */
	cli_close(&c);

	atk_open(&a, s.port);
	n = 0;
	while (!a.eof && !a.goaway && n < 190) {
		atk_get(&a, "/api/v1/version");
		n++;
		atk_pump(&a, 1);
		usleep(20000);
	}
	printf("h2: a busy connection got GOAWAY after %d requests\n", n);
	assert_true(a.eof || a.goaway);
	assert_true(n < 190);
	assert_true(atk_count(&a, 200) > 0);
	atk_free(&a);
	srv_free(&s);
}

/* Issue 15 item 9 (part): HEAD is GET without content (was 405 with a body, a
 * protocol error over HTTP/2); a path that is not UTF-8 gets its 404 (was
 * 500); session-AMBR beyond NGAP's BitRate range is refused. */
static void test_head_utf8_ambr(void **state)
{
	struct srv s;
	struct cli c;
	struct resp r;
	char buf[2048];
	size_t got = 0;
	static const char q[] = "HEAD /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n";

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, q, sizeof(q) - 1), 0);
	while (!memmem(buf, got, "\r\n\r\n", 4)) {
		int k = cli_read(&c, buf + got, sizeof(buf) - 1 - got);

		assert_true(k > 0);
		got += (size_t)k;
	}
	buf[got] = 0;
	assert_memory_equal(buf, "HTTP/1.1 200", 12);
	assert_non_null(strcasestr(buf, "Content-Length: "));
	/* Nothing after the head: the next answer on the connection is whole. */
	assert_int_equal((char *)memmem(buf, got, "\r\n\r\n", 4) + 4 - buf, (long)got);
	assert_int_equal(h1_req(&c, "GET", "/api/v1/version", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	cli_close(&c);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(h2_req(&c, "HEAD", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_int_equal(r.len, 0);
	resp_free(&r);
	cli_close(&c);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/%ff%fe", TOK_RO, NULL, &r), 400);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/%ff", TOK_RO, NULL, &r), 404);
	expect_err(&r, 404, NULL);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP,
				"{\"imsi\":\"001010000000009\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\","
				"\"ambr_ul\":4000000000001}", &r), 400);
	expect_err(&r, 400, "ambr_ul");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/policies", TOK_OP,
				"{\"name\":\"huge\",\"ambr_dl\":9223372036854775807}", &r), 400);
	expect_err(&r, 400, "ambr_dl");
	resp_free(&r);
	srv_free(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h1_body_before_auth),
		cmocka_unit_test(test_h1_pipelining_amplification),
		cmocka_unit_test(test_conns_per_client),
		cmocka_unit_test(test_h2_unauth_streams),
		cmocka_unit_test(test_h2_authed_streams),
		cmocka_unit_test(test_h2_stream_cap),
		cmocka_unit_test(test_h2_ping_idle),
		cmocka_unit_test(test_lifetime),
		cmocka_unit_test(test_head_utf8_ambr),
	};

	if (webcli_backend_init(argc, argv) < 0)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	webcli_backend_fini();
	return rc;
}
