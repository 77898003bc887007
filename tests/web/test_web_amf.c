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
		"# TYPE solocore_ngap_messages_total counter\n",
		"solocore_ngap_messages_total{direction=\"rx\"} 0\n",
		"solocore_gnbs 0\n", "# TYPE solocore_registered_ues gauge\n", "solocore_registered_ues 0\n",
		"solocore_registrations_total{result=\"accepted\"} 0\n",
		"solocore_authentications_total{result=\"mac_failure\"} 0\n",
		"solocore_deregistrations_total{by=\"implicit\"} 0\n",
		"solocore_paging_total{result=\"gave_up\"} 0\n",
	};

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
	/* Every family has one HELP and one TYPE line. */
	{
		const char *p = r.body;
		unsigned help = 0, type = 0;

		while ((p = strstr(p, "\n# ")) != NULL) {
			p += 3;
			if (!strncmp(p, "HELP solocore_ngap", 18) || !strncmp(p, "HELP solocore_n1_sm", 19))
				help++;
			if (!strncmp(p, "TYPE solocore_ngap", 18) || !strncmp(p, "TYPE solocore_n1_sm", 19))
				type++;
		}
		assert_int_equal(help, 3);
		assert_int_equal(type, 3);
	}
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/stats", TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_integer_value(json_object_get(j, "gnbs")), 0);
	assert_true(json_is_integer(json_object_get(j, "registered_ues")));
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_amf_views),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
