/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ + amf/: an AMF made with amf_new() (no transport) on the server's
 * loop, attached with web_attach_amf(): /metrics carries its counter
 * families in Prometheus text format, /api/v1/stats, the UE view and the
 * deregister action with their errors and roles.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "amf/amf.h"
#include "ausf/ausf.h"
#include "tests/amf/harness.h"
#include "common/ev.h"
#include "webcli.h"

static int no_send(void *arg, uint32_t assoc, uint16_t stream, const uint8_t *buf, size_t len)
{
	(void)arg;
	(void)assoc;
	(void)stream;
	(void)buf;
	(void)len;
	return 0;
}

static void test_amf_views(void **state)
{
	struct srv s;
	struct resp r;
	struct amf_cfg cfg;
	struct amf_n2_ops ops = { .send = no_send };
	struct ausf *ausf;
	struct amf *amf;
	int err = 0;
	json_t *j;
	static const char *const want[] = {
		"# TYPE solocore_amf_ngap_rx_total counter\n", "solocore_amf_ngap_rx_total 0\n",
		"solocore_amf_gnbs 0\n", "# TYPE solocore_amf_registered gauge\n", "solocore_amf_registered 0\n",
		"solocore_amf_reg_accepted_total 0\n", "solocore_amf_auth_mac_fail_total 0\n",
		"solocore_amf_implicit_dereg_total 0\n", "solocore_amf_paging_gave_up_total 0\n",
		/* by kind (no NGAP series before the first message), the registration latency
		 * histogram without an SMF attached */
		"# TYPE solocore_amf_ngap_messages_total counter\n",
		"# TYPE solocore_amf_registrations_total counter\n",
		"\nsolocore_amf_registrations_total{result=\"accepted\",type=\"initial\"} 0\n",
		"\nsolocore_amf_registrations_total{result=\"accepted\",type=\"emergency\"} 0\n",
		"\nsolocore_amf_service_requests_total{result=\"rejected\"} 0\n",
		"# TYPE solocore_amf_registration_seconds histogram\n",
		"\nsolocore_amf_registration_seconds_bucket{le=\"+Inf\"} 0\n", "\nsolocore_amf_registration_seconds_count 0\n",
	};
	const struct amf_stat_desc *d;
	unsigned nd;

	(void)state;
	srv_start(&s, NULL);
	srv_halt(&s);
	ausf = ausf_new(s.udm, &err);
	assert_non_null(ausf);
	amf_cfg_default(&cfg);
	cfg.max_ues = 64;
	amf = amf_new(s.loop, &cfg, ausf, s.udm, &ops, &err);
	assert_non_null(amf);
	assert_int_equal(web_attach_amf(s.web, amf), 0);
	assert_int_equal(web_attach_amf(s.web, NULL), -EINVAL);
	srv_resume(&s);

	assert_int_equal(do_req(&s, "GET", "/metrics", TOK_RO, NULL, &r), 200);
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++)
		if (!strstr(r.body, want[i]))
			fail_msg("/metrics lacks %s", want[i]);
	assert_null(strstr(r.body, "solocore_amf_ngap_messages_total{"));
	assert_null(strstr(r.body, "result=\"rejected\",cause="));
	/* Every counter of the AMF's table, with one HELP and one TYPE line of its kind. */
	d = amf_stats_desc(&nd);
	assert_true(nd >= 29);
	for (unsigned i = 0; i < nd; i++) {
		char line[160];
		const char *suf = d[i].gauge ? "" : "_total";

		snprintf(line, sizeof(line), "\n# HELP solocore_amf_%s%s %s\n# TYPE solocore_amf_%s%s %s\nsolocore_amf_%s%s 0\n",
			 d[i].name, suf, d[i].help, d[i].name, suf, d[i].gauge ? "gauge" : "counter", d[i].name, suf);
		if (!strstr(r.body, line))
			fail_msg("/metrics lacks %s", line);
	}
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/stats", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "gnbs")), 0);
	assert_true(json_is_integer(json_object_get(j, "registered_ues")));
	assert_null(json_object_get(j, "sessions"));   /* the SMF's parts only with an SMF */
	assert_null(json_object_get(j, "upf"));
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/stats", NULL, NULL, &r), 401);
	resp_free(&r);
	/* UE view and deregistration: unknown UE 404, bad SUPI 400, roles. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues/imsi-001010000000001", TOK_RO, NULL, &r), 404);
	expect_err(&r, 404, "supi");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues/12x", TOK_RO, NULL, &r), 400);
	expect_err(&r, 400, "supi");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/ues/001010000000001/deregister", TOK_RO, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/ues/001010000000001/deregister", TOK_OP, "{\"reregister\":1}", &r), 400);
	expect_err(&r, 400, "reregister");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/ues/001010000000001/deregister", TOK_OP, "{\"reregister\":true}", &r), 404);
	expect_err(&r, 404, "supi");
	resp_free(&r);

	srv_halt(&s);
	amf_free(amf);
	srv_free(&s);   /* ev_loop_free drops the AMF's deferred frees */
	ausf_free(ausf);
}

/* An AMF made by the tests/amf harness with two gNBs and three registered UEs:
 * GET /api/v1/gnbs, GET /api/v1/ues paged with the walk cursor, bad cursor and limit
 * (400), role, the counters on /metrics after the registrations, OpenAPI entries. */
static void test_gnb_ue_views(void **state)
{
	static struct h H;
	struct amf_cfg cfg;
	struct sue a, b, c;
	struct srv s;
	struct resp r;
	json_t *j, *items, *g, *u;
	char path[96], next[24], supis[4][32], guti[48];
	struct amf_ue_info info;
	unsigned seen = 0;

	(void)state;
	h_cfg(&cfg);
	h_init(&H, &cfg);
	h_add_sub(&H, "imsi-001010000000001", 1, 0x010203, 0);
	h_add_sub(&H, "imsi-001010000000002", 1, 0x010203, 0);
	h_add_sub(&H, "imsi-001010000000003", 1, 0x010203, 0);
	h_ng_setup(&H, 7);
	h_ng_setup(&H, 9);
	sue_init(&a, "0000000001", 7, 100);
	sue_register(&H, &a, 2, 0);
	sue_init(&b, "0000000002", 9, 200);
	sue_register(&H, &b, 2, 0);
	sue_init(&c, "0000000003", 7, 101);
	sue_register(&H, &c, 2, 0);

	srv_start(&s, NULL);
	srv_halt(&s);
	assert_int_equal(web_attach_amf(s.web, H.amf), 0);
	srv_resume(&s);

	/* gNBs: identity from the NG Setup Request, state, UE count. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/gnbs", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "count")), 2);
	items = json_object_get(j, "items");
	assert_int_equal(json_array_size(items), 2);
	for (size_t i = 0; i < 2; i++) {
		json_int_t assoc;

		g = json_array_get(items, i);
		assoc = json_integer_value(json_object_get(g, "assoc"));
		assert_true(assoc == 7 || assoc == 9);
		assert_string_equal(json_string_value(json_object_get(g, "name")), "test-gnb");
		assert_int_equal(json_integer_value(json_object_get(g, "gnb_id")), 0x100 + assoc);
		assert_int_equal(json_integer_value(json_object_get(g, "gnb_id_bits")), 22);
		assert_string_equal(json_string_value(json_object_get(g, "plmn")), "00101");
		assert_string_equal(json_string_value(json_object_get(g, "state")), amf_gnb_state_name(AMF_GNB_READY));
		/* amf_new() transport: no SCTP peer address. */
		assert_true(json_is_null(json_object_get(g, "peer")));
		assert_int_equal(json_array_size(json_object_get(g, "tacs")), 1);
		assert_int_equal(json_integer_value(json_array_get(json_object_get(g, "tacs"), 0)), 1);
		assert_int_equal(json_array_size(json_object_get(g, "slices")), 1);
		assert_int_equal(json_integer_value(json_object_get(json_array_get(json_object_get(g, "slices"), 0), "sst")), 1);
		assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(g, "slices"), 0), "sd")), "010203");
		assert_int_equal(json_integer_value(json_object_get(g, "ue_count")), assoc == 7 ? 2 : 1);
	}
	json_decref(j);
	resp_free(&r);

	/* UEs, two per page: 2 + 1, every SUPI once, the cursor of a full page resumes. */
	snprintf(path, sizeof(path), "/api/v1/ues?limit=2");
	for (unsigned page = 0; page < 3; page++) {
		assert_int_equal(do_req(&s, "GET", path, TOK_RO, NULL, &r), 200);
		j = jbody(&r);
		items = json_object_get(j, "items");
		for (size_t i = 0; i < json_array_size(items); i++) {
			const char *supi;

			u = json_array_get(items, i);
			supi = json_string_value(json_object_get(u, "supi"));
			assert_non_null(supi);
			assert_true(seen < 4);
			snprintf(supis[seen++], sizeof(supis[0]), "%s", supi);
			assert_string_equal(json_string_value(json_object_get(u, "state")), amf_gmm_state_name(AMF_GMM_REGISTERED));
			assert_string_equal(json_string_value(json_object_get(u, "cm_state")), amf_cm_state_name(AMF_CM_CONNECTED));
			assert_int_equal(amf_ue_info_by_supi(H.amf, supi, &info), 0);
			assert_true(amf_guti_to_str(H.amf, &info, guti, sizeof(guti)) > 0);
			assert_string_equal(json_string_value(json_object_get(u, "guti")), guti);
			assert_int_equal(strlen(guti), 5 + 6 + 8);
			assert_int_equal(json_integer_value(json_object_get(json_object_get(u, "gnb"), "assoc")),
					 strcmp(supi, "imsi-001010000000002") ? 7 : 9);
			assert_string_equal(json_string_value(json_object_get(json_object_get(u, "gnb"), "name")), "test-gnb");
			assert_true(json_is_array(json_object_get(u, "pdu_sessions")));
			assert_int_equal(json_array_size(json_object_get(u, "pdu_sessions")), 0);
		}
		if (page == 0)
			assert_int_equal(json_array_size(items), 2);
		if (!json_object_get(j, "next")) {
			json_decref(j);
			resp_free(&r);
			break;
		}
		assert_true(page < 2);
		snprintf(next, sizeof(next), "%s", json_string_value(json_object_get(j, "next")));
		snprintf(path, sizeof(path), "/api/v1/ues?limit=2&cursor=%s", next);
		json_decref(j);
		resp_free(&r);
	}
	assert_int_equal(seen, 3);
	for (unsigned i = 0; i < 3; i++)
		for (unsigned k = i + 1; k < 3; k++)
			assert_string_not_equal(supis[i], supis[k]);
	/* Default page: all three, no "next". */
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 3);
	assert_null(json_object_get(j, "next"));
	json_decref(j);
	resp_free(&r);
	/* Errors: bad cursor / limit 400 naming the parameter; no token 401. */
	static const char *const bad_cursor[] = { "x", "-1", "4294967295", "99999999999999999999", "", "1x" };
	for (size_t i = 0; i < sizeof(bad_cursor) / sizeof(bad_cursor[0]); i++) {
		snprintf(path, sizeof(path), "/api/v1/ues?cursor=%s", bad_cursor[i]);
		assert_int_equal(do_req(&s, "GET", path, TOK_RO, NULL, &r), 400);
		expect_err(&r, 400, "cursor");
		resp_free(&r);
	}
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues?limit=0", TOK_RO, NULL, &r), 400);
	expect_err(&r, 400, "limit");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues?limit=1001", TOK_RO, NULL, &r), 400);
	expect_err(&r, 400, "limit");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues", NULL, NULL, &r), 401);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/gnbs", NULL, NULL, &r), 401);
	resp_free(&r);
	/* A cursor past the pool's used slots: an empty last page. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues?cursor=4000000", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
	assert_null(json_object_get(j, "next"));
	json_decref(j);
	resp_free(&r);
	/* The counters moved by the registrations. */
	assert_int_equal(do_req(&s, "GET", "/metrics", TOK_RO, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\nsolocore_amf_gnbs 2\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_registered 3\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_reg_accepted_total 3\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_registrations_total{result=\"accepted\",type=\"initial\"} 3\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_ngap_messages_total{procedure=\"NGSetup\",direction=\"rx\","
			       "type=\"initiating\"} 2\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_ngap_messages_total{procedure=\"NGSetup\",direction=\"tx\","
			       "type=\"successful\"} 2\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_ngap_messages_total{procedure=\"InitialUEMessage\","
			       "direction=\"rx\",type=\"initiating\"} 3\n"));
	assert_non_null(strstr(r.body, "\nsolocore_amf_registration_seconds_count 3\n"));
	resp_free(&r);
	/* Both views are in the OpenAPI document, marked as needing the AMF. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/openapi.json", NULL, NULL, &r), 200);
	j = jbody(&r);
	assert_non_null(json_object_get(json_object_get(json_object_get(json_object_get(j, "paths"), "/api/v1/gnbs"), "get"),
					"x-solocore-requires"));
	assert_non_null(json_object_get(json_object_get(json_object_get(json_object_get(j, "paths"), "/api/v1/ues"), "get"),
					"x-solocore-requires"));
	json_decref(j);
	resp_free(&r);

	srv_halt(&s);
	srv_free(&s);
	h_fini(&H);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amf_views),
		cmocka_unit_test(test_gnb_ue_views),
	};

	if (webcli_backend_init(argc, argv) < 0)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	webcli_backend_fini();
	return rc;
}
