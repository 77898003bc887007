/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * /api/v1/policies over HTTP/1.1 on real sockets with a real SQLite file and UDM store:
 * every endpoint and error status (400 naming the field, 401, 403 for read-only writes,
 * 404, 409 duplicate, 409 delete while used), the audit log; subscribers' "policy" and
 * "effective"; a policy change seen at once through udm_get() of an assigned subscriber;
 * TOML import with policy = (all or nothing, the line named) and export.
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

#include "db/db.h"
#include "udm/udm.h"
#include "webcli.h"

#define GOLD "{\"name\":\"gold\",\"dnns\":[\"corp\",\"ims\"],\"slices\":[{\"sst\":2,\"sd\":\"ABCDEF\"}]," \
	     "\"ambr_ul\":200000000,\"ambr_dl\":500000000,\"default_5qi\":6,\"arp\":2}"

static json_int_t jint(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_integer(v))
		fail_msg("%s is not an integer", k);
	return json_integer_value(v);
}

static const char *jstr(json_t *o, const char *k)
{
	json_t *v = json_object_get(o, k);

	if (!json_is_string(v))
		fail_msg("%s is not a string", k);
	return json_string_value(v);
}

static void expect(struct srv *s, const char *m, const char *path, const char *tok,
		   const char *body, int status, const char *field)
{
	struct resp r;

	do_req(s, m, path, tok, body, &r);
	if (r.status != status)
		fail_msg("%s %s %s: %d, wanted %d: %s", m, path, body ? body : "", r.status, status,
			 r.body ? r.body : "");
	if (status >= 400)
		expect_err(&r, status, field);
	resp_free(&r);
}

static void assert_gold(json_t *p, json_int_t users)
{
	json_t *dn = json_object_get(p, "dnns"), *sl = json_object_get(p, "slices");

	assert_string_equal(jstr(p, "name"), "gold");
	assert_int_equal(json_array_size(dn), 2);
	assert_string_equal(json_string_value(json_array_get(dn, 0)), "corp");
	assert_string_equal(json_string_value(json_array_get(dn, 1)), "ims");
	assert_int_equal(json_array_size(sl), 1);
	assert_int_equal(jint(json_array_get(sl, 0), "sst"), 2);
	assert_string_equal(jstr(json_array_get(sl, 0), "sd"), "ABCDEF");
	assert_int_equal(jint(p, "ambr_ul"), 200000000);
	assert_int_equal(jint(p, "ambr_dl"), 500000000);
	assert_int_equal(jint(p, "default_5qi"), 6);
	assert_int_equal(jint(p, "arp"), 2);
	assert_int_equal(jint(p, "subscribers"), users);
	assert_true(jint(p, "created") > 0);
}

static void test_policy_crud(void **state)
{
	struct srv s;
	json_t *j, *items;

	(void)state;
	srv_start(&s, NULL);
	j = req_json(&s, "GET", "/api/v1/policies", TOK_RO, NULL, 200);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
	json_decref(j);
	j = req_json(&s, "POST", "/api/v1/policies", TOK_OP, GOLD, 201);
	assert_gold(j, 0);
	json_decref(j);
	/* Only the name: everything else is the network default (0 / []). */
	j = req_json(&s, "POST", "/api/v1/policies", TOK_ADMIN, "{\"name\":\"basic\",\"ambr_ul\":null}",
		     201);
	assert_int_equal(json_array_size(json_object_get(j, "dnns")), 0);
	assert_int_equal(json_array_size(json_object_get(j, "slices")), 0);
	assert_int_equal(jint(j, "ambr_ul"), 0);
	assert_int_equal(jint(j, "arp"), 0);
	json_decref(j);
	j = req_json(&s, "GET", "/api/v1/policies/gold", TOK_RO, NULL, 200);
	assert_gold(j, 0);
	json_decref(j);
	j = req_json(&s, "GET", "/api/v1/policies", TOK_RO, NULL, 200);
	items = json_object_get(j, "items");
	assert_int_equal(json_array_size(items), 2);
	assert_string_equal(jstr(json_array_get(items, 0), "name"), "basic");
	assert_gold(json_array_get(items, 1), 0);
	json_decref(j);
	/* Full replace: fields left out go back to the default; the name may be left out;
	 * a GET body sent back (read-only fields included) is accepted. */
	j = req_json(&s, "PUT", "/api/v1/policies/gold", TOK_OP, "{\"arp\":3,\"dnns\":[\"x\"]}", 200);
	assert_string_equal(jstr(j, "name"), "gold");
	assert_int_equal(jint(j, "arp"), 3);
	assert_int_equal(jint(j, "ambr_ul"), 0);
	assert_int_equal(json_array_size(json_object_get(j, "slices")), 0);
	json_decref(j);
	j = req_json(&s, "PUT", "/api/v1/policies/gold", TOK_OP, GOLD, 200);
	{
		char *back = json_dumps(j, 0);

		json_decref(j);
		j = req_json(&s, "PUT", "/api/v1/policies/gold", TOK_OP, back, 200);
		free(back);
	}
	assert_gold(j, 0);
	json_decref(j);
	/* Delete, then it is gone everywhere. */
	expect(&s, "DELETE", "/api/v1/policies/basic", TOK_OP, NULL, 204, NULL);
	expect(&s, "GET", "/api/v1/policies/basic", TOK_RO, NULL, 404, "name");
	expect(&s, "PUT", "/api/v1/policies/basic", TOK_OP, "{}", 404, "name");
	expect(&s, "DELETE", "/api/v1/policies/basic", TOK_OP, NULL, 404, "name");
	expect(&s, "GET", "/api/v1/policies/no%20such", TOK_RO, NULL, 404, "name");
	j = req_json(&s, "GET", "/api/v1/policies", TOK_RO, NULL, 200);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 1);
	json_decref(j);
	/* In the database as the API said. */
	{
		struct db_policy p;

		srv_halt(&s);
		assert_int_equal(db_policy_get(s.db, "gold", &p), 0);
		assert_int_equal(p.arp, 2);
		assert_int_equal(p.slices[0].sd, 0xabcdef);
		assert_int_equal(db_policy_get(s.db, "basic", &p), -ENOENT);
		srv_resume(&s);
	}
	srv_free(&s);
}

static void test_policy_errors(void **state)
{
	static const struct {
		const char *body, *field;
	} bad[] = {
		{ "{", "body" },
		{ "[1]", "body" },
		{ "{\"name\":\"a\",\"name\":\"b\"}", "body" },   /* duplicate key */
		{ "{}", "name" },
		{ "{\"name\":\"\"}", "name" },
		{ "{\"name\":\"has space\"}", "name" },
		{ "{\"name\":\"abcdefghijabcdefghijabcdefghij123\"}", "name" },   /* 33 */
		{ "{\"name\":7}", "name" },
		{ "{\"name\":\"p\",\"colour\":\"red\"}", "colour" },
		{ "{\"name\":\"p\",\"dnns\":\"internet\"}", "dnns" },
		{ "{\"name\":\"p\",\"dnns\":[\"\"]}", "dnns" },
		{ "{\"name\":\"p\",\"dnns\":[\"bad dnn\"]}", "dnns" },
		{ "{\"name\":\"p\",\"dnns\":[\"a\",\"a\"]}", "dnns" },
		{ "{\"name\":\"p\",\"dnns\":[\"a\",\"b\",\"c\",\"d\",\"e\",\"f\",\"g\",\"h\",\"i\"]}", "dnns" },
		{ "{\"name\":\"p\",\"slices\":[{\"sst\":256}]}", "slices" },
		{ "{\"name\":\"p\",\"slices\":[{\"sst\":1,\"sd\":\"12345\"}]}", "slices" },
		{ "{\"name\":\"p\",\"slices\":[{\"sst\":1,\"x\":1}]}", "slices" },
		{ "{\"name\":\"p\",\"slices\":[{\"sst\":1},{\"sst\":1}]}", "slices" },
		{ "{\"name\":\"p\",\"ambr_ul\":-1}", "ambr_ul" },
		{ "{\"name\":\"p\",\"ambr_dl\":\"1 Gbps\"}", "ambr_dl" },
		{ "{\"name\":\"p\",\"default_5qi\":256}", "default_5qi" },
		{ "{\"name\":\"p\",\"arp\":16}", "arp" },
		{ "{\"name\":\"p\",\"arp\":1.5}", "arp" },
	};
	struct srv s;
	json_t *j;

	(void)state;
	srv_start(&s, NULL);
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect(&s, "POST", "/api/v1/policies", TOK_OP, bad[i].body, 400, bad[i].field);
	expect(&s, "POST", "/api/v1/policies", TOK_OP, GOLD, 201, NULL);
	/* 409: the name exists (and the first one is unchanged). */
	expect(&s, "POST", "/api/v1/policies", TOK_OP, "{\"name\":\"gold\",\"arp\":9}", 409, "name");
	j = req_json(&s, "GET", "/api/v1/policies/gold", TOK_RO, NULL, 200);
	assert_gold(j, 0);
	json_decref(j);
	/* PUT: the same checks, and the name is the resource's. */
	expect(&s, "PUT", "/api/v1/policies/gold", TOK_OP, "{\"name\":\"silver\"}", 400, "name");
	expect(&s, "PUT", "/api/v1/policies/gold", TOK_OP, "{\"arp\":0.5}", 400, "arp");
	expect(&s, "PUT", "/api/v1/policies/gold", TOK_OP, "nope", 400, "body");
	j = req_json(&s, "GET", "/api/v1/policies/gold", TOK_RO, NULL, 200);
	assert_gold(j, 0);   /* a refused PUT changed nothing */
	json_decref(j);
	/* 401 without credentials, 401 with a wrong token, 403 for read-only writes. */
	expect(&s, "GET", "/api/v1/policies", NULL, NULL, 401, "Authorization");
	expect(&s, "GET", "/api/v1/policies/gold", "wrong-token", NULL, 401, "Authorization");
	expect(&s, "POST", "/api/v1/policies", NULL, GOLD, 401, "Authorization");
	expect(&s, "POST", "/api/v1/policies", TOK_RO, "{\"name\":\"ro\"}", 403, NULL);
	expect(&s, "PUT", "/api/v1/policies/gold", TOK_RO, "{}", 403, NULL);
	expect(&s, "DELETE", "/api/v1/policies/gold", TOK_RO, NULL, 403, NULL);
	expect(&s, "PATCH", "/api/v1/policies/gold", TOK_OP, "{}", 405, NULL);
	j = req_json(&s, "GET", "/api/v1/policies", TOK_RO, NULL, 200);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 1);
	json_decref(j);
	srv_free(&s);
}

/* The network defaults of conf_defaults() (DESIGN.md): SST 1 / SD 010203, "internet",
 * 1 Gbit/s, 5QI 9, ARP 8. */
static void assert_eff_defaults(json_t *e)
{
	assert_non_null(e);
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "dnns"), 0)), "internet");
	assert_int_equal(json_array_size(json_object_get(e, "dnns")), 1);
	assert_string_equal(jstr(json_array_get(json_object_get(e, "slices"), 0), "sd"), "010203");
	assert_int_equal(jint(e, "ambr_dl"), UDM_DEFAULT_AMBR_BPS);
	assert_int_equal(jint(e, "default_5qi"), UDM_DEFAULT_5QI);
	assert_int_equal(jint(e, "arp"), UDM_DEFAULT_ARP);
}

#define SUB(imsi, extra) "{\"imsi\":\"" imsi "\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"" extra "}"

static void test_policy_subscribers(void **state)
{
	struct srv s;
	struct resp r;
	json_t *j, *e;
	const struct udm_sub_data *d;

	(void)state;
	srv_start(&s, NULL);
	expect(&s, "POST", "/api/v1/policies", TOK_OP, GOLD, 201, NULL);
	/* Unknown or malformed policy: 400 on "policy", nothing stored. */
	expect(&s, "POST", "/api/v1/subscribers", TOK_OP, SUB("001010000000001", ",\"policy\":\"silver\""),
	       400, "policy");
	expect(&s, "POST", "/api/v1/subscribers", TOK_OP, SUB("001010000000001", ",\"policy\":\"a b\""),
	       400, "policy");
	expect(&s, "POST", "/api/v1/subscribers", TOK_OP, SUB("001010000000001", ",\"policy\":5"),
	       400, "policy");
	expect(&s, "GET", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, 404, "imsi");
	/* 1: gold, nothing of its own; 2: gold with its own ARP; 3: no policy. */
	j = req_json(&s, "POST", "/api/v1/subscribers", TOK_OP,
		     SUB("001010000000001", ",\"policy\":\"gold\""), 201);
	assert_string_equal(jstr(j, "policy"), "gold");
	e = json_object_get(j, "effective");
	assert_int_equal(jint(e, "arp"), 2);
	assert_int_equal(jint(e, "default_5qi"), 6);
	assert_int_equal(jint(e, "ambr_ul"), 200000000);
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "dnns"), 0)), "corp");
	assert_string_equal(jstr(json_array_get(json_object_get(e, "slices"), 0), "sd"), "ABCDEF");
	assert_int_equal(jint(j, "arp"), 0);   /* its own value: unset */
	json_decref(j);
	j = req_json(&s, "POST", "/api/v1/subscribers", TOK_OP,
		     SUB("001010000000002", ",\"policy\":\"gold\",\"arp\":12"), 201);
	assert_int_equal(jint(json_object_get(j, "effective"), "arp"), 12);
	json_decref(j);
	j = req_json(&s, "POST", "/api/v1/subscribers", TOK_OP, SUB("001010000000003", ""), 201);
	assert_true(json_is_null(json_object_get(j, "policy")));
	assert_eff_defaults(json_object_get(j, "effective"));
	json_decref(j);
	j = req_json(&s, "GET", "/api/v1/policies/gold", TOK_RO, NULL, 200);
	assert_int_equal(jint(j, "subscribers"), 2);
	json_decref(j);

	/* In use: 409 with the count, nothing deleted (and not audited: test_policy_audit). */
	do_req(&s, "DELETE", "/api/v1/policies/gold", TOK_OP, NULL, &r);
	expect_err(&r, 409, "name");
	assert_non_null(strstr(r.body, "used by 2 subscribers"));
	resp_free(&r);

	/* The UDM has the resolved values... */
	srv_halt(&s);
	d = udm_get(s.udm, "imsi-001010000000001");
	assert_non_null(d);
	assert_int_equal(d->arp, 2);
	assert_int_equal(d->qi5, 6);
	assert_int_equal(d->ambr_dl_bps, 500000000);
	assert_string_equal(d->dnns[0], "corp");
	assert_int_equal(d->slices[0].sd, 0xabcdef);
	srv_resume(&s);
	/* ... and a policy change reaches them at once, through the same pointer. */
	j = req_json(&s, "PUT", "/api/v1/policies/gold", TOK_OP,
		     "{\"dnns\":[\"iot\"],\"ambr_dl\":7000000,\"default_5qi\":7,\"arp\":4}", 200);
	assert_int_equal(jint(j, "subscribers"), 2);
	json_decref(j);
	srv_halt(&s);
	assert_ptr_equal(udm_get(s.udm, "imsi-001010000000001"), d);
	assert_int_equal(d->arp, 4);
	assert_int_equal(d->qi5, 7);
	assert_int_equal(d->ambr_dl_bps, 7000000);
	assert_int_equal(d->ambr_ul_bps, UDM_DEFAULT_AMBR_BPS);   /* the policy no longer sets it */
	assert_int_equal(d->n_dnns, 1);
	assert_string_equal(d->dnns[0], "iot");
	assert_int_equal(d->slices[0].sd, 0x010203);              /* network's slices again */
	d = udm_get(s.udm, "imsi-001010000000002");
	assert_int_equal(d->arp, 12);                             /* own value wins */
	assert_int_equal(d->qi5, 7);
	d = udm_get(s.udm, "imsi-001010000000003");
	assert_int_equal(d->arp, UDM_DEFAULT_ARP);
	srv_resume(&s);
	/* The subscriber views show the same. */
	j = req_json(&s, "GET", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, 200);
	e = json_object_get(j, "effective");
	assert_int_equal(jint(e, "arp"), 4);
	assert_string_equal(json_string_value(json_array_get(json_object_get(e, "dnns"), 0)), "iot");
	json_decref(j);
	j = req_json(&s, "GET", "/api/v1/subscribers?limit=10", TOK_RO, NULL, 200);
	e = json_object_get(json_array_get(json_object_get(j, "items"), 1), "effective");
	assert_int_equal(jint(e, "arp"), 12);
	assert_int_equal(jint(e, "default_5qi"), 7);
	assert_eff_defaults(json_object_get(json_array_get(json_object_get(j, "items"), 2), "effective"));
	json_decref(j);

	/* PATCH to another policy, to an unknown one (400, unchanged), to none. */
	expect(&s, "POST", "/api/v1/policies", TOK_OP, "{\"name\":\"bronze\",\"arp\":15}", 201, NULL);
	j = req_json(&s, "PATCH", "/api/v1/subscribers/001010000000001", TOK_OP,
		     "{\"policy\":\"bronze\"}", 200);
	assert_string_equal(jstr(j, "policy"), "bronze");
	assert_int_equal(jint(json_object_get(j, "effective"), "arp"), 15);
	json_decref(j);
	expect(&s, "PATCH", "/api/v1/subscribers/001010000000001", TOK_OP, "{\"policy\":\"nope\"}",
	       400, "policy");
	srv_halt(&s);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000001")->arp, 15);
	srv_resume(&s);
	j = req_json(&s, "PUT", "/api/v1/subscribers/001010000000001", TOK_OP, "{\"policy\":null}", 200);
	assert_true(json_is_null(json_object_get(j, "policy")));
	assert_eff_defaults(json_object_get(j, "effective"));
	json_decref(j);
	srv_halt(&s);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000001")->arp, UDM_DEFAULT_ARP);
	srv_resume(&s);
	/* Once nobody uses it, delete works. */
	expect(&s, "DELETE", "/api/v1/subscribers/001010000000002", TOK_OP, NULL, 204, NULL);
	expect(&s, "DELETE", "/api/v1/policies/gold", TOK_OP, NULL, 204, NULL);
	expect(&s, "DELETE", "/api/v1/policies/bronze", TOK_OP, NULL, 204, NULL);
	srv_free(&s);
}

static char *toml(const char *extra2)
{
	char *t = NULL;
	int n = asprintf(&t,
			 "[imsi-001010000000011]\nki = \"" K1 "\"\nopc = \"" OPC1 "\"\npolicy = \"gold\"\n\n"
			 "[imsi-001010000000012]\nki = \"" K1 "\"\nopc = \"" OPC1 "\"\n%s\n\n"
			 "[imsi-001010000000013]\nki = \"" K1 "\"\nopc = \"" OPC1 "\"\narp = 3\n"
			 "policy = \"gold\"\n", extra2);

	assert_true(n > 0);
	return t;
}

static void test_policy_import_export(void **state)
{
	struct srv s, s2;
	struct resp r;
	json_t *j;
	char *t;

	(void)state;
	srv_start(&s, NULL);
	expect(&s, "POST", "/api/v1/policies", TOK_OP, GOLD, 201, NULL);
	/* One unknown policy: nothing imported, its line named. */
	t = toml("policy = \"silver\"");
	do_req(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, &r);
	free(t);
	expect_err(&r, 400, "body");
	if (!strstr(r.body, "body:9: [imsi-001010000000012] unknown policy \\\"silver\\\"; nothing imported"))
		fail_msg("%s", r.body);
	assert_non_null(strstr(r.body, "nothing imported"));
	resp_free(&r);
	srv_halt(&s);
	assert_int_equal(db_subscriber_count(s.db), 0);
	assert_null(udm_get(s.udm, "imsi-001010000000011"));
	srv_resume(&s);
	/* All known: imported, and the UDM resolves them through the policy. */
	t = toml("");
	j = req_json(&s, "POST", "/api/v1/subscribers/import", TOK_OP, t, 200);
	free(t);
	assert_int_equal(jint(j, "imported"), 3);
	json_decref(j);
	srv_halt(&s);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000011")->qi5, 6);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000012")->qi5, UDM_DEFAULT_5QI);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000013")->arp, 3);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000013")->qi5, 6);
	assert_int_equal(db_policy_users(s.db, "gold"), 2);
	srv_resume(&s);
	j = req_json(&s, "GET", "/api/v1/policies/gold", TOK_RO, NULL, 200);
	assert_int_equal(jint(j, "subscribers"), 2);
	json_decref(j);

	/* Export writes policy = ...; the file imports into a core that has the policy. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/export?secrets=1", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "[imsi-001010000000011]\n"));
	assert_non_null(strstr(r.body, "policy = \"gold\"\n"));
	srv_start(&s2, NULL);
	expect(&s2, "POST", "/api/v1/subscribers/import", TOK_OP, r.body, 400, "body");   /* no gold */
	expect(&s2, "POST", "/api/v1/policies", TOK_OP, GOLD, 201, NULL);
	j = req_json(&s2, "POST", "/api/v1/subscribers/import", TOK_OP, r.body, 200);
	assert_int_equal(jint(j, "imported"), 3);
	json_decref(j);
	j = req_json(&s2, "GET", "/api/v1/subscribers/001010000000013", TOK_RO, NULL, 200);
	assert_string_equal(jstr(j, "policy"), "gold");
	assert_int_equal(jint(j, "arp"), 3);
	json_decref(j);
	resp_free(&r);
	srv_free(&s2);
	srv_free(&s);
}

static void test_policy_audit(void **state)
{
	struct srv s;
	struct resp r;

	(void)state;
	srv_start(&s, NULL);
	expect(&s, "POST", "/api/v1/policies", TOK_OP, GOLD, 201, NULL);
	expect(&s, "POST", "/api/v1/policies", TOK_OP, GOLD, 409, "name");
	expect(&s, "PUT", "/api/v1/policies/gold", TOK_OP, "{\"arp\":1}", 200, NULL);
	expect(&s, "POST", "/api/v1/subscribers", TOK_OP, SUB("001010000000001", ",\"policy\":\"gold\""),
	       201, NULL);
	expect(&s, "DELETE", "/api/v1/policies/gold", TOK_OP, NULL, 409, "name");
	expect(&s, "DELETE", "/api/v1/subscribers/001010000000001", TOK_OP, NULL, 204, NULL);
	expect(&s, "DELETE", "/api/v1/policies/gold", TOK_OP, NULL, 204, NULL);
	assert_int_equal(do_req(&s, "GET", "/api/v1/audit?limit=50", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"POST /api/v1/policies\""));
	assert_non_null(strstr(r.body, "\"PUT /api/v1/policies/gold\""));
	assert_non_null(strstr(r.body, "\"DELETE /api/v1/policies/gold\""));
	/* Refused changes (409) are no changes: one entry each for what succeeded. */
	{
		const char *p = r.body;
		int n = 0;

		while ((p = strstr(p, "\"DELETE /api/v1/policies/gold\"")))
			n++, p++;
		assert_int_equal(n, 1);
		p = r.body;
		n = 0;
		while ((p = strstr(p, "\"POST /api/v1/policies\"")))
			n++, p++;
		assert_int_equal(n, 1);
	}
	resp_free(&r);
	srv_free(&s);
}

/* UE-AMBR (TS 23.501 5.7.2.6) on policies and subscribers, apart from the session-AMBR:
 * stored, shown, resolved in "effective" (own > policy > network default) and in the UDM at
 * once; a GBR default 5QI is a 400 naming default_5qi (TS 23.501 5.7.2.7), nothing stored;
 * an out-of-range UE-AMBR a 400 naming it (TS 38.413 9.3.1.4). */
static void test_ue_ambr_fields(void **state)
{
	struct srv s;
	json_t *j, *e;
	uint64_t ul, dl;

	(void)state;
	srv_start(&s, NULL);
	j = req_json(&s, "POST", "/api/v1/policies", TOK_OP,
		     "{\"name\":\"ue\",\"ambr_ul\":1000,\"ue_ambr_ul\":2000,\"ue_ambr_dl\":null}", 201);
	assert_int_equal(jint(j, "ue_ambr_ul"), 2000);
	assert_int_equal(jint(j, "ue_ambr_dl"), 0);
	assert_int_equal(jint(j, "ambr_ul"), 1000);
	json_decref(j);
	expect(&s, "POST", "/api/v1/policies", TOK_OP, "{\"name\":\"g\",\"default_5qi\":1}", 400,
	       "default_5qi");
	expect(&s, "POST", "/api/v1/policies", TOK_OP, "{\"name\":\"g\",\"ue_ambr_dl\":4000000000001}",
	       400, "ue_ambr_dl");
	expect(&s, "GET", "/api/v1/policies/g", TOK_RO, NULL, 404, "name");
	j = req_json(&s, "POST", "/api/v1/subscribers", TOK_OP,
		     SUB("001010000000011", ",\"policy\":\"ue\",\"ue_ambr_dl\":3000"), 201);
	assert_int_equal(jint(j, "ue_ambr_dl"), 3000);
	assert_int_equal(jint(j, "ue_ambr_ul"), 0);
	e = json_object_get(j, "effective");
	assert_int_equal(jint(e, "ue_ambr_ul"), 2000);       /* the policy's */
	assert_int_equal(jint(e, "ue_ambr_dl"), 3000);       /* its own */
	assert_int_equal(jint(e, "ambr_ul"), 1000);          /* the session-AMBR, untouched */
	json_decref(j);
	j = req_json(&s, "POST", "/api/v1/subscribers", TOK_OP, SUB("001010000000012", ""), 201);
	e = json_object_get(j, "effective");
	assert_int_equal(jint(e, "ue_ambr_ul"), UDM_DEFAULT_UE_AMBR_BPS);
	json_decref(j);
	expect(&s, "POST", "/api/v1/subscribers", TOK_OP,
	       SUB("001010000000013", ",\"default_5qi\":82"), 400, "default_5qi");
	expect(&s, "GET", "/api/v1/subscribers/001010000000013", TOK_RO, NULL, 404, "imsi");
	expect(&s, "PATCH", "/api/v1/subscribers/001010000000012", TOK_OP, "{\"default_5qi\":3}", 400,
	       "default_5qi");
	expect(&s, "PATCH", "/api/v1/subscribers/001010000000012", TOK_OP,
	       "{\"ue_ambr_ul\":4000000000001}", 400, "ue_ambr_ul");
	expect(&s, "PATCH", "/api/v1/subscribers/001010000000012", TOK_OP, "{\"ue_ambr_ul\":42}", 200,
	       NULL);
	srv_halt(&s);
	udm_ue_ambr(s.udm, udm_get(s.udm, "imsi-001010000000012"), &ul, &dl);
	assert_int_equal(ul, 42);
	assert_int_equal(dl, UDM_DEFAULT_UE_AMBR_BPS);
	udm_ue_ambr(s.udm, udm_get(s.udm, "imsi-001010000000011"), &ul, &dl);
	assert_int_equal(ul, 2000);
	srv_resume(&s);
	/* A policy change of the UE-AMBR alone reaches its subscriber in the UDM at once. */
	expect(&s, "PUT", "/api/v1/policies/ue", TOK_OP, "{\"ue_ambr_ul\":5000}", 200, NULL);
	srv_halt(&s);
	udm_ue_ambr(s.udm, udm_get(s.udm, "imsi-001010000000011"), &ul, &dl);
	assert_int_equal(ul, 5000);
	srv_resume(&s);
	srv_free(&s);
}

static void test_policy_openapi(void **state)
{
	struct srv s;
	json_t *j, *paths, *schemas;

	(void)state;
	srv_start(&s, NULL);
	j = req_json(&s, "GET", "/api/v1/openapi.json", NULL, NULL, 200);
	paths = json_object_get(j, "paths");
	schemas = json_object_get(json_object_get(j, "components"), "schemas");
	assert_non_null(json_object_get(json_object_get(paths, "/api/v1/policies"), "get"));
	assert_non_null(json_object_get(json_object_get(paths, "/api/v1/policies"), "post"));
	assert_non_null(json_object_get(json_object_get(paths, "/api/v1/policies/{name}"), "get"));
	assert_non_null(json_object_get(json_object_get(paths, "/api/v1/policies/{name}"), "put"));
	assert_non_null(json_object_get(json_object_get(paths, "/api/v1/policies/{name}"), "delete"));
	assert_non_null(json_object_get(schemas, "Policy"));
	assert_non_null(json_object_get(json_object_get(json_object_get(schemas, "Subscriber"),
							"properties"), "policy"));
	assert_non_null(json_object_get(json_object_get(json_object_get(schemas, "Subscriber"),
							"properties"), "effective"));
	json_decref(j);
	srv_free(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_policy_crud),
		cmocka_unit_test(test_policy_errors),
		cmocka_unit_test(test_policy_subscribers),
		cmocka_unit_test(test_policy_import_export),
		cmocka_unit_test(test_policy_audit),
		cmocka_unit_test(test_policy_openapi),
		cmocka_unit_test(test_ue_ambr_fields),
	};
	if (webcli_backend_init(argc, argv) < 0)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	webcli_backend_fini();
	return rc;
}
