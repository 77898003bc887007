/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web benchmark (suite 'bench', run by hand:
 *   meson test -C BUILD --suite bench web-bench -v):
 * sequential requests on one keep-alive connection over HTTP/1.1 and h2c,
 * TOML import of 10,000 SIMs, list pages and single GETs over them.
 * The client runs in this process; figures include its cost.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "db/db.h"
#include "webcli.h"

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void bench(void **state)
{
	enum { N = 20000, SIMS = 10000, PAGES = 200 };
	struct srv s;
	struct cli c;
	struct resp r;
	double t0, t;
	char *toml, path[128];
	size_t cap = (size_t)SIMS * 128, len = 0;

	struct srv_opts o = { .udm_cap = 2 * SIMS };

	(void)state;
	srv_start(&s, &o);
	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	t0 = now_s();
	for (int i = 0; i < N; i++) {
		assert_int_equal(h1_req(&c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
		resp_free(&r);
	}
	t = now_s() - t0;
	printf("HTTP/1.1 keep-alive GET /api/v1/health: %d requests, %.0f req/s, %.1f us each\n", N,
	       N / t, t / N * 1e6);
	cli_close(&c);

	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	t0 = now_s();
	for (int i = 0; i < N; i++) {
		assert_int_equal(h2_req(&c, "GET", "/api/v1/health", NULL, NULL, &r), 0);
		resp_free(&r);
	}
	t = now_s() - t0;
	printf("h2c one connection GET /api/v1/health: %d requests, %.0f req/s, %.1f us each\n", N,
	       N / t, t / N * 1e6);
	cli_close(&c);

	toml = malloc(cap);
	assert_non_null(toml);
	for (int i = 0; i < SIMS; i++)
		len += (size_t)snprintf(toml + len, cap - len,
					"[imsi-0010100%08d]\nki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
					"opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n", i);
	t0 = now_s();
	assert_int_equal(h1(s.port, "POST", "/api/v1/subscribers/import", TOK_OP, toml, &r), 200);
	t = now_s() - t0;
	resp_free(&r);
	printf("import of %d SIMs (%zu bytes TOML) over HTTP/1.1: %.3f s (%.0f SIMs/s)\n", SIMS, len, t,
	       SIMS / t);
	free(toml);

	assert_int_equal(cli_connect(&c, s.port, NULL), 0);
	t0 = now_s();
	for (int i = 0; i < PAGES; i++) {
		snprintf(path, sizeof(path), "/api/v1/subscribers?offset=%d&limit=50", (i * 50) % SIMS);
		assert_int_equal(h1_req(&c, "GET", path, TOK_RO, NULL, &r), 0);
		assert_int_equal(r.status, 200);
		resp_free(&r);
	}
	t = now_s() - t0;
	printf("list page of 50 among %d subscribers: %.2f ms each (walk from the first row to the page: offsets 0..%d)\n", SIMS,
	       t / PAGES * 1e3, SIMS - 50);
	t0 = now_s();
	for (int i = 0; i < N / 10; i++) {
		snprintf(path, sizeof(path), "/api/v1/subscribers/0010100%08d", i % SIMS);
		assert_int_equal(h1_req(&c, "GET", path, TOK_RO, NULL, &r), 0);
		assert_int_equal(r.status, 200);
		resp_free(&r);
	}
	t = now_s() - t0;
	printf("GET one subscriber: %.1f us each\n", t / (N / 10) * 1e6);
	t0 = now_s();
	assert_int_equal(h1_req(&c, "GET", "/api/v1/subscribers/export", TOK_RO, NULL, &r), 0);
	t = now_s() - t0;
	printf("export of %d subscribers: %zu bytes in %.3f s\n", SIMS, r.len, t);
	resp_free(&r);
	cli_close(&c);
	srv_free(&s);
}

int main(void)
{
	const struct CMUnitTest tests[] = { cmocka_unit_test(bench) };

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
