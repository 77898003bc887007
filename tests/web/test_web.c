/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ over HTTP/1.1 on real sockets: every route's happy path, each error
 * status with its message and field, authentication and roles, keep-alive,
 * limits, subscriber CRUD mirrored into the UDM, TOML import (all or
 * nothing) and export, secrets, /metrics in Prometheus text format.
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
#include <sys/socket.h>
#include <unistd.h>

#include <jansson.h>

#include "common/log.h"
#include "db/db.h"
#include "udm/udm.h"
#include "webcli.h"

static void test_health_version_openapi(void **state)
{
	struct srv s;
	struct resp r;
	json_t *j, *paths;
	static const char *const want[] = {
		"/api/v1/health", "/api/v1/version", "/api/v1/openapi.json", "/metrics",
		"/api/v1/subscribers", "/api/v1/subscribers/import", "/api/v1/subscribers/export",
		"/api/v1/subscribers/{imsi}",
	};

	(void)state;
	srv_start(&s, NULL);
	/* No token needed for these three. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/health", NULL, NULL, &r), 200);
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "status")), "ok");
	assert_string_equal(json_string_value(json_object_get(j, "database")), "ok");
	json_decref(j);
	assert_string_equal(r.ctype, "application/json");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/version", NULL, NULL, &r), 200);
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "api")), "v1");
	assert_true(json_is_string(json_object_get(j, "version")));
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/openapi.json", NULL, NULL, &r), 200);
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "openapi")), "3.0.3");
	paths = json_object_get(j, "paths");
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!json_object_get(paths, want[i]))
			fail_msg("openapi.json lacks %s", want[i]);
	/* The other way round: every operation the document lists is routed
	 * (a route's own 404 names its field; an unrouted path's does not). */
	{
		static const char *const ms[] = { "get", "post", "put", "patch", "delete" };
		static const char *const MS[] = { "GET", "POST", "PUT", "PATCH", "DELETE" };
		const char *path;
		json_t *ops;
		unsigned n = 0;

		json_object_foreach(paths, path, ops) {
			char p[256];
			const char *brace = strstr(path, "{imsi}");

			if (brace)
				snprintf(p, sizeof(p), "%.*s001010000000009%s", (int)(brace - path), path, brace + 6);
			else
				snprintf(p, sizeof(p), "%s", path);
			for (size_t k = 0; k < 5; k++) {
				struct resp r2;
				json_t *e;

				if (!json_object_get(ops, ms[k]))
					continue;
				/* Views another module adds (web_attach_amf): test_web_amf. */
				if (json_object_get(json_object_get(ops, ms[k]), "x-solocore-requires"))
					continue;
				do_req(&s, MS[k], p, TOK_ADMIN, k == 0 || k == 4 ? NULL : "{}", &r2);
				if (r2.status == 405 || r2.status == 401 || r2.status == 403)
					fail_msg("%s %s documented but answered %d", MS[k], p, r2.status);
				if (r2.status == 404) {
					e = jbody(&r2);
					if (!json_object_get(e, "field"))
						fail_msg("%s %s documented but not routed", MS[k], p);
					json_decref(e);
				}
				resp_free(&r2);
				n++;
			}
		}
		assert_true(n >= 12);
	}
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/", NULL, NULL, &r), 200);
	assert_non_null(strstr(r.ctype, "text/html"));
	assert_non_null(strstr(r.body, "solocore"));
	assert_non_null(strstr(r.body, "/api/v1/subscribers"));
	/* Nothing fetched from elsewhere at run time. */
	assert_null(strstr(r.body, "http://"));
	assert_null(strstr(r.body, "https://"));
	assert_null(strstr(r.body, "src=\"//"));
	/* ... and the browser is told so. */
	assert_non_null(strstr(r.csp, "default-src 'self'"));
	assert_non_null(strstr(r.csp, "frame-ancestors 'none'"));
	resp_free(&r);
	srv_free(&s);
}

static void test_auth_roles(void **state)
{
	struct srv s;
	struct resp r;

	(void)state;
	srv_start(&s, NULL);
	/* Tokens configured: loopback is no exception. */
	do_req(&s, "GET", "/api/v1/subscribers", NULL, NULL, &r);
	expect_err(&r, 401, "Authorization");
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers", "wrong-token", NULL, &r);
	expect_err(&r, 401, "Authorization");
	resp_free(&r);
	do_req(&s, "GET", "/metrics", NULL, NULL, &r);
	expect_err(&r, 401, "Authorization");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers", TOK_RO, NULL, &r), 200);
	resp_free(&r);
	/* Read-only may not write. */
	do_req(&s, "POST", "/api/v1/subscribers", TOK_RO, webcli_sub1, &r);
	expect_err(&r, 403, NULL);
	resp_free(&r);
	do_req(&s, "DELETE", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, &r);
	expect_err(&r, 403, NULL);
	resp_free(&r);
	assert_int_equal(db_subscriber_count(s.db), 0);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r), 201);
	resp_free(&r);
	/* Secrets need admin. */
	do_req(&s, "GET", "/api/v1/subscribers/001010000000001?secrets=1", TOK_OP, NULL, &r);
	expect_err(&r, 403, "secrets");
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers/export?secrets=1", TOK_RO, NULL, &r);
	expect_err(&r, 403, "secrets");
	resp_free(&r);
	srv_free(&s);
}

static void test_loopback_default(void **state)
{
	struct srv s;
	struct srv_opts o = { .no_tokens = true };
	struct resp r;

	(void)state;
	srv_start(&s, &o);
	/* No token configured: a loopback client is an operator. */
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", NULL, webcli_sub1, &r), 201);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/001010000000001", NULL, NULL, &r), 200);
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers/001010000000001?secrets=1", NULL, NULL, &r);
	expect_err(&r, 403, "secrets");
	resp_free(&r);
	/* A made-up token is still refused. */
	do_req(&s, "GET", "/api/v1/subscribers", "x", NULL, &r);
	expect_err(&r, 401, "Authorization");
	resp_free(&r);
	srv_free(&s);
}

static void test_crud(void **state)
{
	struct srv s;
	struct resp r;
	json_t *j;
	const struct udm_sub_data *d;
	uint64_t sqn;

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r), 201);
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "supi")), "imsi-001010000000001");
	assert_null(json_object_get(j, "k"));
	assert_null(json_object_get(j, "opc"));
	json_decref(j);
	resp_free(&r);
	/* In the database and in the UDM, with the UDM's defaults where unset. */
	assert_int_equal(db_subscriber_count(s.db), 1);
	d = udm_get(s.udm, "imsi-001010000000001");
	assert_non_null(d);
	assert_int_equal(d->n_slices, 1);
	assert_int_equal(d->slices[0].sd, 0x010203);
	assert_int_equal(d->n_dnns, 1);
	assert_string_equal(d->dnns[0], "internet");
	assert_int_equal(d->ambr_ul_bps, 100000000);
	assert_int_equal(d->ambr_dl_bps, 1000000000);
	assert_int_equal(d->qi5, 9);

	do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r);
	expect_err(&r, 409, "imsi");
	resp_free(&r);

	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/imsi-001010000000001", TOK_RO, NULL, &r), 200);
	assert_null(strstr(r.body, K1));
	assert_null(strstr(r.body, OPC1));
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "imsi")), "001010000000001");
	assert_int_equal(json_integer_value(json_object_get(j, "ambr_ul")), 100000000);
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/001010000000001?secrets=1", TOK_ADMIN,
				NULL, &r), 200);
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "k")), K1);
	assert_string_equal(json_string_value(json_object_get(j, "opc")), OPC1);
	json_decref(j);
	resp_free(&r);

	/* The UDM's SQN moves on (AKA); GET shows it, an update keeps it. */
	assert_int_equal(udm_get_sqn(s.udm, "imsi-001010000000001", &sqn), 0);
	assert_int_equal(do_req(&s, "PUT", "/api/v1/subscribers/001010000000001", TOK_OP,
				"{\"dnns\":[\"ims\",\"internet\"],\"arp\":3}", &r), 200);
	j = jbody(&r);
	assert_int_equal(json_array_size(json_object_get(j, "dnns")), 2);
	assert_int_equal(json_integer_value(json_object_get(j, "arp")), 3);
	assert_null(json_object_get(j, "k"));
	json_decref(j);
	resp_free(&r);
	d = udm_get(s.udm, "imsi-001010000000001");
	assert_int_equal(d->n_dnns, 2);
	assert_string_equal(d->dnns[0], "ims");
	assert_int_equal(d->arp, 3);
	/* K kept by the partial update. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/001010000000001?secrets=1", TOK_ADMIN,
				NULL, &r), 200);
	assert_non_null(strstr(r.body, K1));
	resp_free(&r);
	assert_int_equal(do_req(&s, "PATCH", "/api/v1/subscribers/001010000000001", TOK_OP,
				"{\"sqn\":4096}", &r), 200);
	resp_free(&r);
	assert_int_equal(udm_get_sqn(s.udm, "imsi-001010000000001", &sqn), 0);
	assert_int_equal(sqn, 4096);
	do_req(&s, "PUT", "/api/v1/subscribers/001010000000009", TOK_OP, "{\"arp\":3}", &r);
	expect_err(&r, 404, "imsi");
	resp_free(&r);
	do_req(&s, "PUT", "/api/v1/subscribers/001010000000001", TOK_OP, "{\"imsi\":\"001010000000002\"}", &r);
	expect_err(&r, 400, "imsi");
	resp_free(&r);

	assert_int_equal(do_req(&s, "DELETE", "/api/v1/subscribers/001010000000001", TOK_OP, NULL, &r), 204);
	assert_int_equal(r.len, 0);
	resp_free(&r);
	assert_null(udm_get(s.udm, "imsi-001010000000001"));
	assert_int_equal(db_subscriber_count(s.db), 0);
	do_req(&s, "GET", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, &r);
	expect_err(&r, 404, "imsi");
	resp_free(&r);
	do_req(&s, "DELETE", "/api/v1/subscribers/001010000000001", TOK_OP, NULL, &r);
	expect_err(&r, 404, "imsi");
	resp_free(&r);
	srv_free(&s);
}

static void test_bad_values(void **state)
{
	static const struct {
		const char *body, *field;
	} cases[] = {
		{ "{\"imsi\":\"001010000000001\",", "body" },                     /* truncated JSON */
		{ "[1,2]", "body" },                                               /* not an object */
		{ "{\"imsi\":\"00101x\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}", "imsi" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"12\",\"opc\":\"" OPC1 "\"}", "k" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\"}", "opc" },
		{ "{\"imsi\":\"001010000000001\",\"opc\":\"" OPC1 "\"}", "k" },
		{ "{\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}", "imsi" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"colour\":1}", "colour" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"arp\":16}", "arp" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"sqn\":-1}", "sqn" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"amf\":\"80\"}", "amf" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"slices\":[{\"sst\":300}]}", "slices" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"slices\":[{\"sst\":1,\"sd\":\"xyz\"}]}", "slices" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"dnns\":\"internet\"}", "dnns" },
		{ "{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\",\"op\":\"" OPC1 "\"}", "op" },
		{ "{\"imsi\":\"001010000000001\",\"imsi\":\"001010000000002\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}", "body" },
	};
	struct srv s;
	struct resp r;

	(void)state;
	srv_start(&s, NULL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, cases[i].body, &r);
		expect_err(&r, 400, cases[i].field);
		resp_free(&r);
	}
	assert_int_equal(db_subscriber_count(s.db), 0);
	assert_int_equal(udm_count(s.udm), 0);
	do_req(&s, "GET", "/api/v1/subscribers/12", TOK_RO, NULL, &r);
	expect_err(&r, 400, "imsi");
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers?limit=0", TOK_RO, NULL, &r);
	expect_err(&r, 400, "limit");
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers?offset=-3", TOK_RO, NULL, &r);
	expect_err(&r, 400, "offset");
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers?imsi=00a", TOK_RO, NULL, &r);
	expect_err(&r, 400, "imsi");
	resp_free(&r);
	srv_free(&s);
}

static void test_404_405(void **state)
{
	struct srv s;
	struct resp r;

	(void)state;
	srv_start(&s, NULL);
	do_req(&s, "GET", "/api/v1/nothing", TOK_RO, NULL, &r);
	expect_err(&r, 404, NULL);
	resp_free(&r);
	do_req(&s, "GET", "/api/v2/subscribers", TOK_RO, NULL, &r);
	expect_err(&r, 404, NULL);
	resp_free(&r);
	do_req(&s, "DELETE", "/api/v1/subscribers", TOK_ADMIN, NULL, &r);
	expect_err(&r, 405, NULL);
	assert_string_equal(r.allow, "GET, POST");
	resp_free(&r);
	do_req(&s, "POST", "/api/v1/health", NULL, "{}", &r);
	expect_err(&r, 405, NULL);
	assert_string_equal(r.allow, "GET");
	resp_free(&r);
	srv_free(&s);
}

/* 25 SIMs 001010000000100..124, the second half with optional keys. */
static char *sims_toml(unsigned first, unsigned n, const char *bad_at)
{
	size_t cap = 256 * n + 256, len = 0;
	char *t = malloc(cap);

	assert_non_null(t);
	for (unsigned i = 0; i < n; i++) {
		len += (size_t)snprintf(t + len, cap - len, "[imsi-00101%010u]\nki = \"%s\"\nopc = \"%s\"\n%s\n",
					first + i, K1, OPC1,
					i % 2 ? "dnns = [ \"internet\" ]\nslices = [ \"1:010203\", \"2\" ]\narp = 8" : "");
		if (bad_at && i == n / 2)
			len += (size_t)snprintf(t + len, cap - len, "%s\n", bad_at);
	}
	return t;
}

static void test_import_export_list(void **state)
{
	struct srv s;
	struct resp r;
	json_t *j, *items;
	char *t;

	(void)state;
	srv_start(&s, NULL);
	t = sims_toml(100, 25, NULL);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r), 200);
	free(t);
	j = jbody(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "imported")), 25);
	json_decref(j);
	resp_free(&r);
	assert_int_equal(db_subscriber_count(s.db), 25);
	assert_int_equal(udm_count(s.udm), 25);
	assert_non_null(udm_get(s.udm, "imsi-001010000000124"));

	/* One bad entry in the middle: nothing imported, the line named. */
	t = sims_toml(200, 10, "colour = \"red\"");
	do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r);
	free(t);
	expect_err(&r, 400, "body");
	assert_non_null(strstr(r.body, "body:"));
	assert_null(strstr(r.body, "/proc/self/fd"));
	resp_free(&r);
	assert_int_equal(db_subscriber_count(s.db), 25);
	assert_int_equal(udm_count(s.udm), 25);
	/* An IMSI already provisioned: 409, nothing imported. */
	t = sims_toml(120, 10, NULL);
	do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r);
	free(t);
	expect_err(&r, 409, "body");
	resp_free(&r);
	assert_int_equal(db_subscriber_count(s.db), 25);
	do_req(&s, "POST", "/api/v1/subscribers/import", TOK_RO, "", &r);
	expect_err(&r, 403, NULL);
	resp_free(&r);

	/* Paging and prefix search. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers?offset=10&limit=5", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	items = json_object_get(j, "items");
	assert_int_equal(json_integer_value(json_object_get(j, "total")), 25);
	assert_int_equal(json_array_size(items), 5);
	assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "imsi")),
			    "001010000000110");
	assert_null(json_object_get(json_array_get(items, 0), "k"));
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers?imsi=00101000000012", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "total")), 5);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 5);
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers?offset=100", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
	json_decref(j);
	resp_free(&r);

	/* Export: no keys without secrets; with them the file imports again. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/export", TOK_RO, NULL, &r), 200);
	assert_string_equal(r.ctype, "application/toml");
	assert_non_null(strstr(r.body, "[imsi-001010000000100]"));
	assert_non_null(strstr(r.body, "slices = [ \"1:010203\", \"2\" ]"));
	assert_null(strstr(r.body, K1));
	assert_null(strstr(r.body, OPC1));
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/export?secrets=1", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "ki = \"" K1 "\""));
	{
		struct srv s2;
		struct resp r2;

		srv_start(&s2, NULL);
		assert_int_equal(do_req(&s2, "POST", "/api/v1/subscribers/import", TOK_OP, r.body, &r2), 200);
		resp_free(&r2);
		assert_int_equal(db_subscriber_count(s2.db), 25);
		srv_free(&s2);
	}
	resp_free(&r);
	srv_free(&s);
}

/* The UDM's store is sized at start: a create or an import it cannot hold
 * is refused (503) and leaves the database as it was. */
static void test_udm_full(void **state)
{
	struct srv_opts o = { .udm_cap = 10 };
	struct srv s;
	struct resp r;
	char *t;

	(void)state;
	srv_start(&s, &o);
	t = sims_toml(100, 8, NULL);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r), 200);
	resp_free(&r);
	free(t);
	t = sims_toml(200, 5, NULL);
	do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r);
	expect_err(&r, 503, NULL);
	resp_free(&r);
	free(t);
	assert_int_equal(db_subscriber_count(s.db), 8);
	assert_int_equal(udm_count(s.udm), 8);
	assert_null(udm_get(s.udm, "imsi-001010000000200"));
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r), 201);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP,
				"{\"imsi\":\"001010000000002\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}", &r), 201);
	resp_free(&r);
	do_req(&s, "POST", "/api/v1/subscribers", TOK_OP,
	       "{\"imsi\":\"001010000000003\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}", &r);
	expect_err(&r, 503, NULL);
	resp_free(&r);
	assert_int_equal(db_subscriber_count(s.db), 10);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/001010000000003", TOK_RO, NULL, &r), 404);
	resp_free(&r);
	srv_free(&s);
}

struct logcap {
	char *text;
	size_t len;
};

static void cap_sink(enum log_level lvl, const char *line, size_t len, void *arg)
{
	struct logcap *c = arg;
	char *p = realloc(c->text, c->len + len + 2);

	(void)lvl;
	if (!p)
		return;
	memcpy(p + c->len, line, len);
	c->len += len;
	p[c->len++] = '\n';
	p[c->len] = 0;
	c->text = p;
}

static void test_secrets_never_logged(void **state)
{
	struct srv s;
	struct resp r;
	struct logcap cap = { 0 };
	char *t;

	(void)state;
	log_set_level(LOGL_DEBUG);
	log_set_sink(cap_sink, &cap);
	srv_start(&s, NULL);
	do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r);
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers/001010000000001?secrets=1", TOK_ADMIN, NULL, &r);
	resp_free(&r);
	t = sims_toml(300, 3, "ki = \"" K1 "\"");   /* duplicate key: error path */
	do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r);
	resp_free(&r);
	free(t);
	do_req(&s, "PUT", "/api/v1/subscribers/001010000000001", TOK_OP, "{\"k\":\"" K1 "\",\"arp\":99}", &r);
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/subscribers/export?secrets=1", TOK_ADMIN, NULL, &r);
	resp_free(&r);
	srv_free(&s);
	log_set_sink(NULL, NULL);
	log_set_level(LOGL_INFO);
	assert_non_null(cap.text);   /* the debug lines were captured */
	assert_non_null(strstr(cap.text, "subscribers"));
	assert_null(strstr(cap.text, K1));
	assert_null(strstr(cap.text, OPC1));
	assert_null(strstr(cap.text, TOK_ADMIN));
	free(cap.text);
}

static void check_prom_line(const char *l, size_t n)
{
	char buf[512], name[128], *sp;
	double v;
	size_t i;

	assert_true(n < sizeof(buf));
	memcpy(buf, l, n);
	buf[n] = 0;
	if (buf[0] == '#') {
		if (strncmp(buf, "# HELP ", 7) && strncmp(buf, "# TYPE ", 7))
			fail_msg("bad comment: %s", buf);
		if (!strncmp(buf, "# TYPE ", 7) && !strstr(buf, " gauge") && !strstr(buf, " counter") &&
		    !strstr(buf, " histogram") && !strstr(buf, " summary") && !strstr(buf, " untyped"))
			fail_msg("bad type: %s", buf);
		return;
	}
	for (i = 0; buf[i] && buf[i] != '{' && buf[i] != ' '; i++)
		if (!((buf[i] >= 'a' && buf[i] <= 'z') || (buf[i] >= 'A' && buf[i] <= 'Z') ||
		      buf[i] == '_' || buf[i] == ':' || (i && buf[i] >= '0' && buf[i] <= '9')))
			fail_msg("bad metric name: %s", buf);
	assert_true(i > 0 && i < sizeof(name));
	if (buf[i] == '{') {
		char *e = strchr(buf + i, '}');

		if (!e || !strchr(buf + i, '=') || !strchr(buf + i, '"'))
			fail_msg("bad labels: %s", buf);
		i = (size_t)(e - buf) + 1;
	}
	if (buf[i] != ' ')
		fail_msg("no value: %s", buf);
	v = strtod(buf + i + 1, &sp);
	if (sp == buf + i + 1 || (*sp && *sp != ' '))
		fail_msg("bad value: %s", buf);
	(void)v;
}

static void extra_metrics(struct web_metrics_out *o, void *arg)
{
	web_metrics_printf(o, "# HELP test_gnbs gNBs.\n# TYPE test_gnbs gauge\ntest_gnbs %d\n", *(int *)arg);
}

static int h_view(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)w;
	(void)arg;
	web_resp_json(resp, 200, json_pack("{s:s}", "ue", web_req_param(req, 0)));
	return 0;
}

static void test_metrics_and_plugins(void **state)
{
	struct srv s;
	struct resp r;
	const char *p;
	int gnbs = 7;
	long rss = 0;

	(void)state;
	srv_start(&s, NULL);
	srv_halt(&s);   /* register while the loop is idle, as the lead does before ev_run */
	assert_int_equal(web_metrics_register(s.web, extra_metrics, &gnbs), 0);
	assert_int_equal(web_route_add(s.web, WEB_GET, "/api/v1/ues/{supi}", WEB_ROLE_READ, h_view, NULL), 0);
	assert_int_equal(web_route_add(s.web, WEB_GET, "relative", WEB_ROLE_READ, h_view, NULL), -EINVAL);
	srv_resume(&s);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r), 201);
	resp_free(&r);
	do_req(&s, "GET", "/nope", TOK_RO, NULL, &r);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues/imsi-001010000000001", TOK_RO, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"ue\":\"imsi-001010000000001\""));
	resp_free(&r);
	do_req(&s, "GET", "/api/v1/ues/x", NULL, NULL, &r);
	expect_err(&r, 401, "Authorization");
	resp_free(&r);

	assert_int_equal(do_req(&s, "GET", "/metrics", TOK_RO, NULL, &r), 200);
	assert_non_null(strstr(r.ctype, "text/plain; version=0.0.4"));
	for (p = r.body; *p;) {
		const char *e = strchr(p, '\n');

		assert_non_null(e);   /* every line ends with \n */
		check_prom_line(p, (size_t)(e - p));
		p = e + 1;
	}
	assert_non_null(strstr(r.body, "solocore_http_requests_total{code=\"201\"} 1\n"));
	assert_non_null(strstr(r.body, "solocore_http_requests_total{code=\"404\"} 1\n"));
	assert_non_null(strstr(r.body, "solocore_http_requests_total{code=\"401\"} 1\n"));
	assert_non_null(strstr(r.body, "solocore_subscribers 1\n"));
	assert_non_null(strstr(r.body, "solocore_udm_subscribers 1\n"));
	assert_non_null(strstr(r.body, "solocore_uptime_seconds "));
	assert_non_null(strstr(r.body, "test_gnbs 7\n"));
	p = strstr(r.body, "\nprocess_resident_memory_bytes ");
	assert_non_null(p);
	rss = atol(p + 31);
	assert_true(rss > 0);
	resp_free(&r);
	srv_free(&s);
}

/* The API's copy into the UDM (udm_add_db) and the start-up load (udm_start ->
 * udm_load_db) give the same entry for the same rows: defaults for what a row
 * leaves unset (conf's slices and DNNs, 5QI 9, ARP 8, 1 Gbit/s), given values kept. */
static void test_udm_same_as_load(void **state)
{
	static const char *const supis[] = { "imsi-001010000000001", "imsi-001010000000002" };
	struct srv s;
	struct resp r;
	struct udm *fresh;
	int err = 0;

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, &r), 201);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_OP,
				"{\"imsi\":\"001010000000002\",\"k\":\"465B5CE8B199B49FAA5F0A2EE238A6BC\","
				"\"opc\":\"E8ED289DEBA952E4283B54E88E6183CA\"}", &r), 201);
	resp_free(&r);
	srv_halt(&s);
	fresh = udm_start(&s.conf, s.db, NULL, &err);
	assert_non_null(fresh);
	for (size_t i = 0; i < 2; i++) {
		const struct udm_sub_data *a = udm_get(s.udm, supis[i]), *b = udm_get(fresh, supis[i]);

		assert_non_null(a);
		assert_non_null(b);
		assert_int_equal(a->n_slices, b->n_slices);
		assert_true(a->n_slices >= 1);
		for (unsigned k = 0; k < a->n_slices; k++) {
			assert_int_equal(a->slices[k].sst, b->slices[k].sst);
			assert_int_equal(a->slices[k].sd, b->slices[k].sd);
		}
		assert_int_equal(a->n_dnns, b->n_dnns);
		assert_true(a->n_dnns >= 1);
		for (unsigned k = 0; k < a->n_dnns; k++)
			assert_string_equal(a->dnns[k], b->dnns[k]);
		assert_int_equal(a->ambr_ul_bps, b->ambr_ul_bps);
		assert_int_equal(a->ambr_dl_bps, b->ambr_dl_bps);
		assert_int_equal(a->qi5, b->qi5);
		assert_int_equal(a->arp, b->arp);
	}
	/* The row without values got the defaults, not zeros. */
	{
		const struct udm_sub_data *d = udm_get(s.udm, supis[1]);

		assert_int_equal(d->n_slices, s.conf.n_slices);
		assert_int_equal(d->slices[0].sst, s.conf.slices[0].sst);
		assert_int_equal(d->n_dnns, s.conf.n_dnns);
		assert_string_equal(d->dnns[0], s.conf.dnns[0].name);
		assert_int_equal(d->ambr_ul_bps, 1000000000ull);
		assert_int_equal(d->ambr_dl_bps, 1000000000ull);
		assert_int_equal(d->qi5, 9);
		assert_int_equal(d->arp, 8);
	}
	udm_free(fresh);
	srv_free(&s);
}

/* Random bytes, raw or after a valid start, over HTTP/1.1 and after the
 * HTTP/2 preface: the server answers or closes, and stays up. */
int main(int argc, char **argv)
{
	signal(SIGPIPE, SIG_IGN);   /* a server closing first must fail a check, not kill the test */
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_health_version_openapi),
		cmocka_unit_test(test_auth_roles),
		cmocka_unit_test(test_loopback_default),
		cmocka_unit_test(test_crud),
		cmocka_unit_test(test_bad_values),
		cmocka_unit_test(test_404_405),
		cmocka_unit_test(test_import_export_list),
		cmocka_unit_test(test_udm_full),
		cmocka_unit_test(test_secrets_never_logged),
		cmocka_unit_test(test_metrics_and_plugins),
		cmocka_unit_test(test_udm_same_as_load),
	};

	if (webcli_backend_init(argc, argv) < 0)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	webcli_backend_fini();
	return rc;
}
