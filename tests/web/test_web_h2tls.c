/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ over HTTP/2 with prior knowledge (h2c, nghttp2 client session) on the
 * same port as HTTP/1.1, and over TLS with a self-signed certificate made in
 * the test: ALPN h2 and http/1.1, and no ALPN at all.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/ev.h"
#include "db/db.h"
#include "udm/udm.h"
#include "webcli.h"

#define SUB "{\"imsi\":\"001010000000001\",\"k\":\"465B5CE8B199B49FAA5F0A2EE238A6BC\"," \
	    "\"opc\":\"E8ED289DEBA952E4283B54E88E6183CA\"}"

/* The same checks over any HTTP/2 connection. */
static void h2_checks(struct srv *s, struct cli *c)
{
	struct resp r;

	assert_int_equal(h2_req(c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "\"status\":\"ok\""));
	assert_string_equal(r.ctype, "application/json");
	assert_non_null(strstr(r.csp, "default-src 'self'"));
	resp_free(&r);
	assert_int_equal(h2_req(c, "POST", "/api/v1/subscribers", TOK_OP, SUB, &r), 0);
	assert_int_equal(r.status, 201);
	resp_free(&r);
	assert_non_null(udm_get(s->udm, "imsi-001010000000001"));
	assert_int_equal(h2_req(c, "POST", "/api/v1/subscribers", TOK_OP, SUB, &r), 0);
	assert_int_equal(r.status, 409);
	assert_non_null(strstr(r.body, "\"field\":\"imsi\""));
	resp_free(&r);
	assert_int_equal(h2_req(c, "GET", "/api/v1/subscribers/001010000000001", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 401);
	resp_free(&r);
	assert_int_equal(h2_req(c, "GET", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_null(strstr(r.body, "465B5CE8"));
	resp_free(&r);
	assert_int_equal(h2_req(c, "DELETE", "/api/v1/subscribers/001010000000001", TOK_OP, NULL, &r), 0);
	assert_int_equal(r.status, 204);
	resp_free(&r);
	assert_null(udm_get(s->udm, "imsi-001010000000001"));
}

static void test_h2c_prior_knowledge(void **state)
{
	struct srv s;
	struct cli c;
	struct resp r;

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	h2_checks(&s, &c);
	cli_close(&c);
	/* The same port still speaks HTTP/1.1. */
	assert_int_equal(h1(s.port, "GET", "/api/v1/health", NULL, NULL, &r), 200);
	resp_free(&r);
	srv_free(&s);
}

static void test_h2c_limits(void **state)
{
	struct web_limits lim;
	struct srv_opts o = { .lim = &lim };
	struct srv s;
	struct cli c;
	struct resp r;
	char *big = malloc(10001);

	(void)state;
	assert_non_null(big);
	memset(big, ' ', 10000);
	big[10000] = 0;
	web_limits_default(&lim);
	lim.max_body = 4096;
	lim.max_head = 400;
	srv_start(&s, &o);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(h2_req(&c, "POST", "/api/v1/subscribers/import", TOK_OP, big, &r), 0);
	assert_int_equal(r.status, 413);
	assert_non_null(strstr(r.body, "\"field\":\"body\""));
	resp_free(&r);
	/* Header list over the limit: 431, the connection goes on. */
	big[280] = 0;
	memset(big, 'x', 280);
	assert_int_equal(h2_req(&c, "GET", "/api/v1/subscribers", big, NULL, &r), 0);
	assert_int_equal(r.status, 431);
	assert_non_null(strstr(r.body, "\"field\":\"headers\""));
	resp_free(&r);
	assert_int_equal(h2_req(&c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	cli_close(&c);
	free(big);
	srv_free(&s);
}

/* Login over TLS: the cookie is Secure; the session and its CSRF token work
 * over HTTP/2 (cookie header, x-csrf-token), a change without the token is 403. */
static void test_tls_session(void **state)
{
	struct srv_opts o = { .tls = true };
	struct srv s;
	struct cli c;
	struct resp r;
	char req[512], cookie[160], csrf[80];
	static const char login[] = "{\"user\":\"alice\",\"password\":\"secret password\"}";
	json_t *j;
	int n;

	(void)state;
	srv_start(&s, &o);
	assert_int_equal(cli_connect(&c, s.port, "h2"), 0);
	assert_int_equal(h2_req(&c, "POST", "/api/v1/users", TOK_ADMIN,
				"{\"name\":\"alice\",\"role\":\"operator\",\"password\":\"secret password\"}", &r), 0);
	assert_int_equal(r.status, 201);
	resp_free(&r);
	cli_close(&c);
	assert_int_equal(cli_connect(&c, s.port, "http/1.1"), 0);
	n = snprintf(req, sizeof(req), "POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
		     strlen(login), login);
	assert_int_equal(cli_write(&c, req, (size_t)n), 0);
	assert_int_equal(h1_read(&c, &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.set_cookie, "; Secure"));
	assert_non_null(strstr(r.set_cookie, "HttpOnly"));
	snprintf(cookie, sizeof(cookie), "%.*s", (int)strcspn(r.set_cookie, ";"), r.set_cookie);
	j = jbody(&r);
	snprintf(csrf, sizeof(csrf), "%s", json_string_value(json_object_get(j, "csrf")));
	json_decref(j);
	resp_free(&r);
	cli_close(&c);
	assert_int_equal(cli_connect(&c, s.port, "h2"), 0);
	c.cookie = cookie;
	assert_int_equal(h2_req(&c, "GET", "/api/v1/session", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "\"alice\""));
	resp_free(&r);
	assert_int_equal(h2_req(&c, "POST", "/api/v1/subscribers", NULL, webcli_sub1, &r), 0);
	assert_int_equal(r.status, 403);
	assert_non_null(strstr(r.body, "X-CSRF-Token"));
	resp_free(&r);
	c.csrf = csrf;
	assert_int_equal(h2_req(&c, "POST", "/api/v1/subscribers", NULL, webcli_sub1, &r), 0);
	assert_int_equal(r.status, 201);
	resp_free(&r);
	cli_close(&c);
	srv_free(&s);
}

static void test_tls(void **state)
{
	struct srv_opts o = { .tls = true };
	struct srv s;
	struct cli c;
	struct resp r;

	(void)state;
	srv_start(&s, &o);
	/* ALPN h2 */
	assert_int_equal(cli_connect(&c, s.port, "h2"), 0);
	{
		const unsigned char *a;
		unsigned al;

		SSL_get0_alpn_selected(c.ssl, &a, &al);
		assert_int_equal(al, 2);
		assert_memory_equal(a, "h2", 2);
	}
	h2_checks(&s, &c);
	cli_close(&c);
	/* ALPN http/1.1, keep-alive */
	assert_int_equal(cli_connect(&c, s.port, "http/1.1"), 0);
	assert_int_equal(h1_req(&c, "GET", "/api/v1/version", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	assert_int_equal(h1_req(&c, "POST", "/api/v1/subscribers", TOK_OP, SUB, &r), 0);
	assert_int_equal(r.status, 201);
	resp_free(&r);
	cli_close(&c);
	/* No ALPN: HTTP/1.1 */
	assert_int_equal(cli_connect(&c, s.port, ""), 0);
	assert_int_equal(h1_req(&c, "GET", "/api/v1/subscribers", TOK_RO, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "\"total\":1"));
	resp_free(&r);
	cli_close(&c);
	/* Cleartext on a TLS port gets no HTTP answer. */
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	assert_int_equal(cli_write(&c, "GET / HTTP/1.1\r\n\r\n", 18), 0);
	assert_int_not_equal(h1_read(&c, &r), 0);
	resp_free(&r);
	cli_close(&c);
	srv_free(&s);
}

static void test_tls_bad_cert(void **state)
{
	struct conf conf;
	struct web *w = NULL;
	struct ev_loop *loop;
	int err;

	(void)state;
	assert_int_equal(conf_defaults(&conf), 0);
	snprintf(conf.web.listen, sizeof(conf.web.listen), "127.0.0.1");
	conf.web.port = 0;
	snprintf(conf.web.tls.cert, sizeof(conf.web.tls.cert), "/nonexistent/cert.pem");
	snprintf(conf.web.tls.key, sizeof(conf.web.tls.key), "/nonexistent/key.pem");
	loop = ev_loop_new(&err);
	assert_non_null(loop);
	assert_int_equal(web_start(loop, &conf, NULL, NULL, NULL, &w), -EINVAL);
	assert_null(w);
	ev_loop_free(loop);
}

int main(void)
{
	signal(SIGPIPE, SIG_IGN);   /* a server closing first must fail a check, not kill the test */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_h2c_prior_knowledge),
		cmocka_unit_test(test_h2c_limits),
		cmocka_unit_test(test_tls),
		cmocka_unit_test(test_tls_session),
		cmocka_unit_test(test_tls_bad_cert),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
