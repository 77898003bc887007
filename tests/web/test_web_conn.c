/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ connections over HTTP/1.1 on real sockets: keep-alive and
 * pipelining, Connection: close, Host, limits (head 431, body 413 by
 * Content-Length and chunked, request deadline 408, connections 503, idle),
 * malformed requests, random bytes, stop with open connections.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "webcli.h"

static void test_keepalive(void **state)
{
	struct srv s;
	struct resp r;
	struct cli c;
	static const char two[] = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n"
				  "GET /api/v1/version HTTP/1.1\r\nHost: x\r\n\r\n";

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(h1_req(&c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_true(r.keep_alive);
	resp_free(&r);
	assert_int_equal(h1_req(&c, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r), 0);
	assert_int_equal(r.status, 201);
	resp_free(&r);
	assert_int_equal(h1_req(&c, "GET", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	/* Pipelined: both answered, in order, on the same connection. */
	assert_int_equal(cli_write(&c, two, sizeof(two) - 1), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	assert_non_null(strstr(r.body, "uptime_seconds"));
	resp_free(&r);
	assert_int_equal(h1_read(&c, &r), 0);
	assert_non_null(strstr(r.body, "\"api\""));
	resp_free(&r);
	cli_close(&c);
	/* Connection: close is honoured. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	{
		static const char q[] = "GET /api/v1/health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n";

		assert_int_equal(cli_write(&c, q, sizeof(q) - 1), 0);
	}
	assert_int_equal(h1_read(&c, &r), 0);
	assert_int_equal(r.status, 200);
	assert_false(r.keep_alive);
	resp_free(&r);
	{
		char b[16];

		assert_int_equal(cli_read(&c, b, sizeof(b)), 0);   /* server closed */
	}
	cli_close(&c);
	srv_free(&s);
}

static void test_limits(void **state)
{
	struct web_limits lim;
	struct srv_opts o = { .lim = &lim };
	struct srv s;
	struct resp r;
	struct cli c, c2, c3;
	char *big;
	char b[64];

	(void)state;
	web_limits_default(&lim);
	lim.max_head = 2048;
	lim.max_body = 4096;
	lim.max_conns = 3;
	/* Short enough to wait for, long enough that a slow (sanitizer, loaded CI)
	 * run never hits them in the middle of the other checks. */
	lim.idle_ms = 3000;
	lim.request_ms = 1500;
	srv_start(&s, &o);

	/* Head over the limit: 431, connection closed. */
	big = malloc(8192);
	assert_non_null(big);
	memset(big, 'a', 8191);
	big[8191] = 0;
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	{
		char *req = malloc(9000);

		snprintf(req, 9000, "GET /api/v1/health HTTP/1.1\r\nX-Pad: %s\r\n\r\n", big);
		cli_write(&c, req, strlen(req));
		free(req);
	}
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 431, "headers");
	assert_false(r.keep_alive);
	resp_free(&r);
	cli_close(&c);

	/* Body over the limit by Content-Length: 413 before the body is read. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	{
		static const char q[] = "POST /api/v1/subscribers HTTP/1.1\r\nAuthorization: Bearer " TOK_OP
					"\r\nContent-Length: 100000\r\n\r\n{";

		assert_int_equal(cli_write(&c, q, sizeof(q) - 1), 0);
	}
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 413, "body");
	resp_free(&r);
	cli_close(&c);
	/* ... and chunked, counted as it arrives. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	{
		char req[6000];
		int n = snprintf(req, sizeof(req), "POST /api/v1/subscribers/import HTTP/1.1\r\n"
				 "Host: x\r\nAuthorization: Bearer " TOK_OP "\r\nTransfer-Encoding: chunked\r\n\r\n"
				 "1388\r\n%.5000s\r\n0\r\n\r\n", big);

		assert_int_equal(cli_write(&c, req, (size_t)n), 0);
	}
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 413, "body");
	resp_free(&r);
	cli_close(&c);
	free(big);

	/* HTTP/1.1 without Host: 400 naming it; HTTP/1.0 needs none. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, "GET /api/v1/health HTTP/1.1\r\n\r\n", 31), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 400, "Host");
	resp_free(&r);
	cli_close(&c);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, "GET /api/v1/health HTTP/1.0\r\n\r\n", 31), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	assert_int_equal(r.status, 200);
	assert_false(r.keep_alive);
	resp_free(&r);
	cli_close(&c);

	/* Malformed request line: 400, closed. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, "GET /x HTTP/1.1 extra\r\n\r\n", 25), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 400, NULL);
	resp_free(&r);
	assert_int_equal(cli_read(&c, b, sizeof(b)), 0);
	cli_close(&c);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, "\x01\x02garbage\r\n\r\n", 13), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 400, NULL);
	resp_free(&r);
	cli_close(&c);

	/* A request that never completes: 408 after request_ms, closed. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n", 38), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	expect_err(&r, 408, NULL);
	resp_free(&r);
	assert_int_equal(cli_read(&c, b, sizeof(b)), 0);
	cli_close(&c);

	/* Connections: the 4th over a limit of 3 gets a 503. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_connect(&c2, s.port, NULL), 0);
	assert_int_equal(cli_connect(&c3, s.port, NULL), 0);
	/* make sure all three are accepted before the fourth */
	assert_int_equal(h1_req(&c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	resp_free(&r);
	assert_int_equal(h1_req(&c2, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	resp_free(&r);
	assert_int_equal(h1_req(&c3, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	resp_free(&r);
	{
		struct cli c4;

		assert_int_equal(cli_connect(&c4, s.port, NULL), 0);
		assert_int_equal(h1_read(&c4, &r), 0);
		assert_int_equal(r.status, 503);
		resp_free(&r);
		cli_close(&c4);
	}
	/* Idle: the server closes a silent connection (here after 3 s). */
	assert_int_equal(cli_read(&c, b, sizeof(b)), 0);
	cli_close(&c);
	cli_close(&c2);
	cli_close(&c3);
	srv_free(&s);
}

/* Prometheus text format 0.0.4: comments, or `name{labels} value`. */
static void test_garbage(void **state)
{
	static const char *const starts[] = {
		"", "GET / HTTP/1.1\r\n", "POST /api/v1/subscribers HTTP/1.1\r\nContent-Length: 40\r\n\r\n",
		"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n",
		("POST /api/v1/subscribers/import HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"),
	};
	struct srv s;
	struct resp r;
	unsigned seed = 12345;

	(void)state;
	srv_start(&s, NULL);
	for (int i = 0; i < 300; i++) {
		struct cli c;
		char buf[2048], rd[4096];
		const char *st = starts[i % 5];
		size_t n = strlen(st), len = n + (size_t)(rand_r(&seed) % (int)(sizeof(buf) - n));

		memcpy(buf, st, n);
		for (size_t k = n; k < len; k++)
			buf[k] = (char)rand_r(&seed);
		assert_int_equal(cli_connect(&c, s.port, NULL), 0);
		cli_write(&c, buf, len);
		shutdown(c.fd, SHUT_WR);
		while (cli_read(&c, rd, sizeof(rd)) > 0)
			;
		cli_close(&c);
	}
	assert_int_equal(do_req(&s, "GET", "/api/v1/health", NULL, NULL, &r), 200);
	resp_free(&r);
	srv_free(&s);
}

static void test_stop_closes(void **state)
{
	struct srv s;
	struct resp r;
	struct cli c;
	char b[16];

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(h1_req(&c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	resp_free(&r);
	assert_int_equal(web_conn_count(s.web), 1);
	srv_halt(&s);
	web_stop(s.web);
	s.web = NULL;
	assert_int_equal(cli_read(&c, b, sizeof(b)), 0);   /* EOF, not a hang */
	cli_close(&c);
	srv_free(&s);
}
int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_keepalive),
		cmocka_unit_test(test_limits),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_stop_closes),
	};

	signal(SIGPIPE, SIG_IGN);   /* a server closing first must fail a check, not kill the test */
	return cmocka_run_group_tests(tests, NULL, NULL);
}
