/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ network settings (GET / PATCH / DELETE /api/v1/settings) against a real AMF and SMF:
 * the tests/amf session fixture (AMF + SMF over no user plane, DNNs internet 10.45.0.0/16 and
 * ims 10.46.0.0/29, slices 1/010203 and 2, one gNB set up on assoc 7) with the web server of
 * tests/web on its own loop thread and SQLite file. Live effects are checked in the AMF and
 * SMF themselves: an NG Setup with a new TAC, the AMF CONFIGURATION UPDATE to the connected
 * gNB, a session on a new DNN with an address from its pool. Persistence: the web and core
 * objects are freed and made again on the same database file.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "common/log.h"
#include "core_live.h"
#include "db/db.h"
#include "tests/amf/sm_fx.h"
#include "webcli.h"

/* A subscriber with no slices or DNNs of its own: the network's apply. */
static const char sub_defaults[] =
	"{\"imsi\":\"001010000000009\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}";

static struct srv s;
static struct conf F;                   /* "the configuration file": C as loaded */
static struct web_settings_env env;
static struct core_live live;           /* the composition root's half, as core.c wires it */

/* udm: the store the web server was started with (the defaults are refreshed there). */
static void attach(struct udm *udm)
{
	live = (struct core_live){ .conf = &C, .amf = H.amf, .smf = S, .udm = udm };
	env = (struct web_settings_env){ .conf = &C, .base = &F, .smf = S, .apply = core_live_apply,
					 .apply_arg = &live };
	assert_int_equal(web_attach_settings(s.web, &env), 0);
}

/* Core (AMF + SMF fixture) and web, the web loop running. */
static int start(void **state)
{
	setup(state);
	F = C;
	srv_start(&s, NULL);
	srv_halt(&s);
	attach(s.udm);
	srv_resume(&s);
	return 0;
}

static int stop(void **state)
{
	srv_free(&s);
	return teardown(state);
}

/* A request that must answer want; its JSON body (NULL for an error status, checked to name
 * field). */
static json_t *call(const char *m, const char *path, const char *tok, const char *body, int want,
		    const char *field)
{
	struct resp r;
	json_t *j = NULL;
	int st = do_req(&s, m, path, tok, body, &r);

	if (st != want)
		fail_msg("%s %s %s: %d, want %d: %s", m, path, body ? body : "", st, want, r.body);
	if (want >= 400)
		expect_err(&r, want, field);
	else
		j = jbody(&r);
	resp_free(&r);
	return j;
}

static json_t *patch(const char *body, int want, const char *field)
{
	return call("PATCH", "/api/v1/settings", TOK_ADMIN, body, want, field);
}

static json_t *get(void)
{
	return call("GET", "/api/v1/settings", TOK_RO, NULL, 200, NULL);
}

/* The strings of a JSON list joined with ','. */
static const char *joined(json_t *a)
{
	static char buf[256];
	size_t i, n = 0;
	json_t *v;

	buf[0] = 0;
	assert_true(json_is_array(a));
	json_array_foreach(a, i, v)
		n += (size_t)snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? "," : "", json_string_value(v));
	return buf;
}

static void expect_keys(json_t *j, const char *key, const char *want)
{
	assert_string_equal(joined(json_object_get(j, key)), want);
}

/* NG Setup Request from assoc with one TA (tac; slice sst/sd) in PLMN 001/01; the outcome. */
static uint8_t ng_setup(uint32_t assoc, uint32_t tac, uint8_t sst, uint32_t sd)
{
	static struct ngap_msg m;
	static const uint8_t plmn[3] = { 0x00, 0xf1, 0x10 };
	struct ngap_supported_ta *ta = &m.u.ng_setup_request.tas[0];

	amf_n2_assoc_up(H.amf, assoc, 16, 16);
	memset(&m, 0, sizeof(m));
	m.type = NGAP_INITIATING;
	m.proc = NGAP_PROC_NG_SETUP;
	m.u.ng_setup_request.ran_node_id.kind = NGAP_RAN_GNB;
	memcpy(m.u.ng_setup_request.ran_node_id.plmn.v, plmn, 3);
	m.u.ng_setup_request.ran_node_id.id = 0x200 + assoc;
	m.u.ng_setup_request.ran_node_id.id_bits = 22;
	m.u.ng_setup_request.n_tas = 1;
	ta->tac[0] = (uint8_t)(tac >> 16);
	ta->tac[1] = (uint8_t)(tac >> 8);
	ta->tac[2] = (uint8_t)tac;
	ta->n_plmns = 1;
	memcpy(ta->plmns[0].plmn.v, plmn, 3);
	ta->plmns[0].n_slices = 1;
	ta->plmns[0].slices[0].sst = sst;
	ta->plmns[0].slices[0].has_sd = sd != AMF_SD_NONE;
	ta->plmns[0].slices[0].sd[0] = (uint8_t)(sd >> 16);
	ta->plmns[0].slices[0].sd[1] = (uint8_t)(sd >> 8);
	ta->plmns[0].slices[0].sd[2] = (uint8_t)sd;
	m.u.ng_setup_request.default_paging_drx = 1;
	h_send(&H, assoc, 0, &m);
	assert_true(h_pop(&H));
	assert_int_equal(H.m.proc, NGAP_PROC_NG_SETUP);
	return H.m.type;
}

/* A subscriber of slice 1/010203 with one DNN. */
static void add_sub_dnn(const char *supi, const char *dnn)
{
	struct udm_sub_in in;

	memset(&in, 0, sizeof(in));
	snprintf(in.data.supi, sizeof(in.data.supi), "%s", supi);
	in.data.slices[0] = (struct udm_snssai){ 1, 0x010203 };
	in.data.n_slices = 1;
	in.data.dnns[0] = dnn;
	in.data.n_dnns = 1;
	memcpy(in.k, h_k1, 16);
	memcpy(in.opc, h_opc1, 16);
	in.op_is_opc = true;
	in.amf[0] = 0x80;
	assert_int_equal(udm_add(H.udm, &in), 0);
}

/* GET: the effective values, DNN pool usage from the SMF, nothing saved or pending; roles. */
static void test_get(void **state)
{
	json_t *j, *d;

	(void)state;
	j = get();
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "plmn"), "mcc")), "001");
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "plmn"), "mnc")), "01");
	assert_string_equal(json_string_value(json_object_get(j, "amf_name")), C.amf.name);
	assert_int_equal(json_array_size(json_object_get(j, "tacs")), 1);
	assert_int_equal(json_integer_value(json_array_get(json_object_get(j, "tacs"), 0)), 1);
	d = json_object_get(j, "slices");
	assert_int_equal(json_array_size(d), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 0), "sd")), "010203");
	assert_null(json_object_get(json_array_get(d, 1), "sd"));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(d, 1), "sst")), 2);
	d = json_object_get(j, "dnns");
	assert_int_equal(json_array_size(d), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 1), "name")), "ims");
	assert_string_equal(json_string_value(json_object_get(json_array_get(d, 1), "pool")), "10.46.0.0/29");
	assert_int_equal(json_integer_value(json_object_get(json_array_get(d, 1), "size")), 6);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(d, 0), "size")), 65534);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(d, 0), "used")), 0);
	assert_int_equal(json_integer_value(json_object_get(json_array_get(d, 0), "mtu")), 1400);
	assert_string_equal(joined(json_object_get(json_array_get(d, 0), "dns")), "8.8.8.8");
	expect_keys(j, "pending_restart", "");
	expect_keys(j, "saved", "");
	json_decref(j);
	call("GET", "/api/v1/settings", NULL, NULL, 401, "Authorization");
	/* Documented in the OpenAPI file, as routed. */
	j = call("GET", "/api/v1/openapi.json", NULL, NULL, 200, NULL);
	d = json_object_get(json_object_get(j, "paths"), "/api/v1/settings");
	assert_non_null(json_object_get(d, "get"));
	assert_non_null(json_object_get(d, "patch"));
	assert_non_null(json_object_get(d, "delete"));
	assert_null(json_object_get(d, "put"));
	json_decref(j);
	call("PUT", "/api/v1/settings", TOK_ADMIN, "{}", 405, NULL);
}

/* TACs live: a gNB whose only TA is TAC 5 is refused, then accepted after the PATCH; the AMF
 * serves the new list; a TAC no longer served refuses the next NG Setup. */
static void test_tacs_live(void **state)
{
	struct amf_cfg cfg;
	json_t *j;

	(void)state;
	assert_int_equal(ng_setup(9, 5, 1, 0x010203), NGAP_UNSUCCESSFUL);
	j = patch("{\"tacs\": [1, 5]}", 200, NULL);
	expect_keys(j, "applied", "tacs");
	expect_keys(j, "restart_required", "");
	assert_int_equal(json_array_size(json_object_get(json_object_get(j, "settings"), "tacs")), 2);
	expect_keys(json_object_get(j, "settings"), "saved", "tacs");
	expect_keys(json_object_get(j, "settings"), "pending_restart", "");
	json_decref(j);
	amf_get_cfg(H.amf, &cfg);
	assert_int_equal(cfg.n_tacs, 2);
	assert_int_equal(cfg.tacs[1], 5);
	assert_int_equal(C.n_tac, 2);
	assert_int_equal(ng_setup(9, 5, 1, 0x010203), NGAP_SUCCESSFUL);
	/* TAC 1 dropped: a gNB serving only TAC 1 is now another network's. */
	j = patch("{\"tacs\": [5]}", 200, NULL);
	json_decref(j);
	assert_int_equal(ng_setup(10, 1, 1, 0x010203), NGAP_UNSUCCESSFUL);
	assert_int_equal(h_pending(&H), 0);
}

static unsigned warn_lines;
static char warn_last[512];

static void count_warn(enum log_level level, const char *line, size_t len, void *arg)
{
	(void)arg;
	if (level != LOGL_WARN)
		return;
	warn_lines++;
	snprintf(warn_last, sizeof(warn_last), "%.*s", (int)len, line);
}

/* Slices live: the gNB already set up gets an AMF CONFIGURATION UPDATE with the new PLMN
 * Support List (TS 38.413 8.7.3), a new gNB the new list in its NG Setup Response, the SMF
 * (which reads the conf) the new list. */
static void test_slices_live(void **state)
{
	const struct ngap_plmn_support *ps;
	struct amf_cfg cfg;
	json_t *j;

	(void)state;
	assert_int_equal(ng_setup(9, 1, 3, 0x000001), NGAP_UNSUCCESSFUL);
	json_decref(call("POST", "/api/v1/subscribers", TOK_OP, sub_defaults, 201, NULL));
	assert_int_equal(udm_get(s.udm, "imsi-001010000000009")->n_slices, 1);
	{
		/* A connected UE whose allowed NSSAI (SN1) the change leaves as it is: no
		 * CONFIGURATION UPDATE COMMAND for it (h_pending below; amf_nssai_update has the rest). */
		struct sue ue;

		registered(&ue, "0000000002", 3);
	}
	j = patch("{\"slices\": [{\"sst\": 1, \"sd\": \"010203\"}, {\"sst\": 2, \"sd\": null}, "
		  "{\"sst\": 3, \"sd\": \"000001\"}]}", 200, NULL);
	expect_keys(j, "applied", "slices");
	json_decref(j);
	assert_true(h_pop(&H));
	assert_int_equal(H.cur.assoc, ASSOC);
	assert_int_equal(H.cur.stream, 0);
	assert_int_equal(H.m.type, NGAP_INITIATING);
	assert_int_equal(H.m.proc, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	assert_int_equal(H.m.u.amf_configuration_update.n_plmns, 1);
	ps = &H.m.u.amf_configuration_update.plmns[0];
	assert_memory_equal(ps->plmn.v, H.cfg.plmn, 3);
	assert_int_equal(ps->n_slices, 3);
	assert_false(ps->slices[1].has_sd);
	assert_int_equal(ps->slices[2].sst, 3);
	assert_true(ps->slices[2].has_sd);
	assert_memory_equal(ps->slices[2].sd, "\x00\x00\x01", 3);
	assert_int_equal(h_pending(&H), 0);   /* only the one gNB that was set up */
	/* The gNB's answers (TS 38.413 8.7.3.2 / 8.7.3.3): an acknowledge is quiet, a refusal
	 * is a WARN naming its cause; neither draws a PDU back. */
	{
		struct ngap_msg a;

		memset(&a, 0, sizeof(a));
		a.type = NGAP_SUCCESSFUL;
		a.proc = NGAP_PROC_AMF_CONFIGURATION_UPDATE;
		warn_lines = 0;
		log_set_sink(count_warn, NULL);
		h_send(&H, ASSOC, 0, &a);
		assert_int_equal(warn_lines, 0);
		a.type = NGAP_UNSUCCESSFUL;
		a.u.amf_configuration_update_failure.cause.group = NGAP_CAUSE_MISC;
		a.u.amf_configuration_update_failure.cause.value = 0;
		h_send(&H, ASSOC, 0, &a);
		log_set_sink(NULL, NULL);
		assert_int_equal(warn_lines, 1);
		assert_non_null(strstr(warn_last, "refused the AMF Configuration Update cause=4/0"));
		assert_int_equal(h_pending(&H), 0);
	}
	amf_get_cfg(H.amf, &cfg);
	assert_int_equal(cfg.n_slices, 3);
	assert_int_equal(cfg.slices[1].sd, AMF_SD_NONE);
	assert_int_equal(C.n_slices, 3);
	assert_true(C.slices[2].has_sd);
	assert_int_equal(ng_setup(9, 1, 3, 0x000001), NGAP_SUCCESSFUL);
	assert_int_equal(H.m.u.ng_setup_response.plmns[0].n_slices, 3);
	/* The subscriber on network defaults has the new slices, as after a restart. */
	assert_int_equal(udm_get(s.udm, "imsi-001010000000009")->n_slices, 3);
	assert_int_equal(udm_get(s.udm, "imsi-001010000000009")->slices[2].sd, 1);
}

/* The web and the AMF on one UDM store, as in `solocore run`: a registered, connected UE
 * whose subscriber takes the network's slices gains the slices a PATCH adds only once the
 * UDM has the new defaults, after amf_set_slices(): api_settings.c then has the AMF
 * recompute (amf_nssai_resync) and the UE gets a CONFIGURATION UPDATE COMMAND with them
 * (TS 24.501 5.4.4). */
static void test_default_slices_cuc(void **state)
{
	struct web_limits lim;
	struct nas_msg dl;
	struct sue ue9;
	json_t *j;

	(void)state;
	srv_halt(&s);
	web_stop(s.web);
	web_limits_default(&lim);
	lim.first_admin = false;
	assert_true(udm_set_defaults_from_conf(H.udm, &C) >= 0);
	assert_int_equal(web_start(s.loop, &s.conf, s.db, H.udm, &lim, &s.web), 0);
	assert_int_equal(web_token_add(s.web, TOK_ADMIN, WEB_ROLE_ADMIN), 0);
	assert_int_equal(web_token_add(s.web, TOK_OP, WEB_ROLE_OPERATOR), 0);
	s.port = web_port(s.web);
	attach(H.udm);
	srv_resume(&s);

	/* The harness UE's keys (Milenage test set 1), no slices of its own. */
	{
		char body[160], k[33], opc[33];

		for (int i = 0; i < 16; i++) {
			snprintf(k + 2 * i, 3, "%02X", h_k1[i]);
			snprintf(opc + 2 * i, 3, "%02X", h_opc1[i]);
		}
		snprintf(body, sizeof(body), "{\"imsi\":\"001010000000009\",\"k\":\"%s\",\"opc\":\"%s\"}", k, opc);
		json_decref(call("POST", "/api/v1/subscribers", TOK_OP, body, 201, NULL));
	}
	/* Start from one served slice, the network's default for imsi-...9. */
	j = patch("{\"slices\": [{\"sst\": 1, \"sd\": \"010203\"}]}", 200, NULL);
	json_decref(j);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	assert_int_equal(udm_get(H.udm, "imsi-001010000000009")->n_slices, 1);
	sue_init(&ue9, "0000000009", ASSOC, 4);
	ue9.requested.n = 0;   /* allowed: subscribed ∩ served */
	sue_register(&H, &ue9, 2, 0);
	assert_int_equal(h_pending(&H), 0);
	j = patch("{\"slices\": [{\"sst\": 1, \"sd\": \"010203\"}, {\"sst\": 2, \"sd\": null}, "
		  "{\"sst\": 3, \"sd\": \"000001\"}]}", 200, NULL);
	expect_keys(j, "applied", "slices");
	json_decref(j);
	h_expect(&H, NGAP_INITIATING, NGAP_PROC_AMF_CONFIGURATION_UPDATE);
	assert_int_equal(udm_get(H.udm, "imsi-001010000000009")->n_slices, 3);
	assert_int_equal(sue_dl(&H, &ue9, &dl), NGAP_PROC_DOWNLINK_NAS_TRANSPORT);
	assert_int_equal(dl.type, NAS_CONFIGURATION_UPDATE_COMMAND);
	assert_true(dl.cuc.has_allowed_nssai);
	assert_int_equal(dl.cuc.allowed_nssai.n, 3);
	assert_int_equal(dl.cuc.allowed_nssai.s[1].sst, 2);
	assert_int_equal(dl.cuc.allowed_nssai.s[2].sst, 3);
	assert_int_equal(h_pending(&H), 0);
}

/* DNNs live (no UPF): a new DNN's pool exists in the SMF and a session on it gets an address
 * from it; the old DNNs keep theirs. */
static void test_dnns_live(void **state)
{
	struct sue ue;
	uint32_t used = 0, size = 0, addr;
	json_t *j, *d;

	(void)state;
	assert_int_equal(smf_pool_usage(S, "iot", &used, &size), -ENOENT);
	/* A subscriber provisioned with no DNN of its own: the network's (the webcli store's
	 * defaults: internet). */
	json_decref(call("POST", "/api/v1/subscribers", TOK_OP, sub_defaults, 201, NULL));
	assert_int_equal(udm_get(s.udm, "imsi-001010000000009")->n_dnns, 1);
	j = patch("{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}, "
		  "{\"name\": \"ims\", \"pool\": \"10.46.0.0/29\", \"used\": 0, \"size\": 6}, "
		  "{\"name\": \"iot\", \"pool\": \"10.47.0.0/24\", \"dns\": [\"192.0.2.53\"], \"mtu\": 1300}]}",
		  200, NULL);
	expect_keys(j, "applied", "dnns");
	d = json_array_get(json_object_get(json_object_get(j, "settings"), "dnns"), 2);
	assert_int_equal(json_integer_value(json_object_get(d, "size")), 254);
	assert_int_equal(json_integer_value(json_object_get(d, "mtu")), 1300);
	json_decref(j);
	assert_int_equal(smf_pool_usage(S, "iot", &used, &size), 0);
	assert_int_equal(used, 0);
	assert_int_equal(size, 254);
	/* ... now has the new network list, as after a restart. */
	{
		const struct udm_sub_data *d9 = udm_get(s.udm, "imsi-001010000000009");

		assert_int_equal(d9->n_dnns, 3);
		assert_string_equal(d9->dnns[2], "iot");
	}
	add_sub_dnn("imsi-001010000000003", "iot");
	registered(&ue, "0000000003", 300);
	addr = establish(&ue, 1, "iot", &SN1);
	assert_int_equal(ntohl(addr) >> 8, 0x0a2f00);   /* 10.47.0.x */
	pool_used("iot", 1);
	pool_used("internet", 0);
	j = get();
	d = json_array_get(json_object_get(j, "dnns"), 2);
	assert_int_equal(json_integer_value(json_object_get(d, "used")), 1);
	json_decref(j);
}

/* A DNN with a session: removing it or changing its pool is 409 and changes nothing (not
 * even the database); its MTU may change; ?live=0 saves the removal for the next start. */
static void test_dnns_busy(void **state)
{
	struct sue ue;
	json_t *j;

	(void)state;
	sue_init(&ue, "0000000001", ASSOC, 100);
	ue.requested.n = 2;               /* slice 2 (ims's) in the requested NSSAI */
	ue.requested.s[1] = SN2;
	sue_register(&H, &ue, 2, 0);
	establish(&ue, 1, "ims", &SN2);
	pool_used("ims", 1);
	patch("{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}], \"tacs\": [1, 7]}", 409, "dnns");
	patch("{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}, "
	      "{\"name\": \"IMS\", \"pool\": \"10.46.1.0/29\"}]}", 409, "dnns");
	assert_int_equal(C.n_tac, 1);
	j = get();
	expect_keys(j, "saved", "");
	assert_int_equal(json_array_size(json_object_get(j, "dnns")), 2);
	json_decref(j);
	/* Same pool, other MTU, order changed: live; the session follows its DNN. */
	j = patch("{\"dnns\": [{\"name\": \"ims\", \"pool\": \"10.46.0.0/29\", \"mtu\": 1280}, "
		  "{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}]}", 200, NULL);
	expect_keys(j, "applied", "dnns");
	json_decref(j);
	pool_used("ims", 1);
	assert_string_equal(C.dnns[0].name, "ims");
	assert_int_equal(C.dnns[0].mtu, 1280);
	{
		struct smf_sess_info si;

		sess(&ue, 1, &si);
		assert_string_equal(si.dnn, "ims");
	}
	/* Deferred: saved, pending, the running list unchanged. */
	j = call("PATCH", "/api/v1/settings?live=0", TOK_ADMIN,
		 "{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}]}", 200, NULL);
	expect_keys(j, "applied", "");
	expect_keys(j, "restart_required", "dnns");
	expect_keys(json_object_get(j, "settings"), "pending_restart", "dnns");
	json_decref(j);
	assert_int_equal(C.n_dnns, 2);
	call("PATCH", "/api/v1/settings?live=maybe", TOK_ADMIN, "{\"tacs\": [1]}", 400, "live");
	call("PATCH", "/api/v1/settings?live=falsefalsefalse", TOK_ADMIN, "{\"tacs\": [1]}", 400, "live");
}

/* PLMN and AMF name wait for a restart; with a UPF, a pool outside its UE prefix too. */
static void test_restart_required(void **state)
{
	struct amf_cfg cfg;
	json_t *j;

	(void)state;
	j = patch("{\"plmn\": {\"mcc\": \"001\", \"mnc\": \"02\"}, \"amf_name\": \"edge-1\", \"tacs\": [1]}", 200, NULL);
	expect_keys(j, "applied", "tacs");
	expect_keys(j, "restart_required", "plmn,amf_name");
	expect_keys(json_object_get(j, "settings"), "pending_restart", "plmn,amf_name");
	expect_keys(json_object_get(j, "settings"), "saved", "plmn,amf_name,tacs");
	/* GET shows what runs now. */
	assert_string_equal(json_string_value(json_object_get(json_object_get(json_object_get(j, "settings"),
			    "plmn"), "mnc")), "01");
	json_decref(j);
	amf_get_cfg(H.amf, &cfg);
	assert_memory_equal(cfg.plmn, H.cfg.plmn, 3);
	assert_string_equal(C.plmn.mnc, "01");
	/* Setting it back to the running value: nothing pending any more. */
	j = patch("{\"plmn\": {\"mcc\": \"001\", \"mnc\": \"01\"}}", 200, NULL);
	expect_keys(j, "applied", "plmn");
	expect_keys(json_object_get(j, "settings"), "pending_restart", "amf_name");
	json_decref(j);

	/* A UPF with UE prefix 10.44.0.0/14: 10.47.0.0/24 is inside, 10.99.0.0/24 is not. */
	srv_halt(&s);
	env.ue_net = htonl(0x0a2c0000);
	env.ue_plen = 14;
	srv_resume(&s);
	j = patch("{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}, "
		  "{\"name\": \"ims\", \"pool\": \"10.46.0.0/29\"}, {\"name\": \"iot\", \"pool\": \"10.47.0.0/24\"}]}",
		  200, NULL);
	expect_keys(j, "applied", "dnns");
	json_decref(j);
	j = patch("{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}, "
		  "{\"name\": \"ims\", \"pool\": \"10.46.0.0/29\"}, {\"name\": \"iot\", \"pool\": \"10.99.0.0/24\"}]}",
		  200, NULL);
	expect_keys(j, "applied", "");
	expect_keys(j, "restart_required", "dnns");
	json_decref(j);
	assert_string_equal(C.dnns[2].pool, "10.47.0.0/24");
	/* With upf.n3_interface set, every pool within one /10 (the UPF's single UE prefix). */
	srv_halt(&s);
	snprintf(C.upf.n3_interface, sizeof(C.upf.n3_interface), "eth9");
	srv_resume(&s);
	patch("{\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}, "
	      "{\"name\": \"lan\", \"pool\": \"192.168.0.0/24\"}]}", 400, "dnns");
}

/* Every 400 names the field; nothing is applied or saved. */
static void test_bad_requests(void **state)
{
	static const struct {
		const char *body, *field;
	} bad[] = {
		{ "{\"tacs\": [1", "body" },
		{ "[1]", "body" },
		{ "{}", "body" },
		{ "{\"pending_restart\": []}", "body" },
		{ "{\"tac\": [1]}", "tac" },
		{ "{\"tacs\": 1}", "tacs" },
		{ "{\"tacs\": []}", "tacs" },
		{ "{\"tacs\": [1, \"2\"]}", "tacs[1]" },
		{ "{\"tacs\": [1, 2, 16777216]}", "tacs[2]" },
		{ "{\"tacs\": [1, 2, -1]}", "tacs[2]" },
		{ "{\"tacs\": [1, 2, 1]}", "tacs[2]" },
		{ "{\"tacs\": [1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17]}", "tacs" },
		{ "{\"plmn\": \"00101\"}", "plmn" },
		{ "{\"plmn\": {\"mcc\": \"1\", \"mnc\": \"01\"}}", "plmn.mcc" },
		{ "{\"plmn\": {\"mcc\": \"001\"}}", "plmn.mnc" },
		{ "{\"plmn\": {\"mcc\": \"001\", \"mnc\": \"0x\"}}", "plmn.mnc" },
		{ "{\"plmn\": {\"mcc\": \"001\", \"mnc\": \"01\", \"x\": 1}}", "plmn.x" },
		{ "{\"amf_name\": \"\"}", "amf_name" },
		{ "{\"amf_name\": 7}", "amf_name" },
		{ "{\"slices\": []}", "slices" },
		{ "{\"slices\": [{\"sst\": 1, \"sd\": \"zz\"}]}", "slices[0].sd" },
		{ "{\"slices\": [{\"sst\": 1, \"sd\": 1}]}", "slices[0].sd" },
		{ "{\"slices\": [{\"sst\": 1, \"sd\": \"FFFFFF\"}]}", "slices[0].sd" },
		{ "{\"slices\": [{\"sd\": \"000001\"}]}", "slices[0].sst" },
		{ "{\"slices\": [{\"sst\": 1}, {\"sst\": 256}]}", "slices[1].sst" },
		{ "{\"slices\": [{\"sst\": 1}, {\"sst\": 1}]}", "slices[1]" },
		{ "{\"slices\": [{\"sst\": 1, \"sdd\": \"000001\"}]}", "slices[0].sdd" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/4\"}]}", "dnns[0].pool" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.1/24\"}]}", "dnns[0].pool" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0/24\"}]}", "dnns[0].pool" },
		{ "{\"dnns\": [{\"name\": \"a\"}]}", "dnns[0].pool" },
		{ "{\"dnns\": [{\"pool\": \"10.0.0.0/24\"}]}", "dnns[0].name" },
		{ "{\"dnns\": [{\"name\": \"a b\", \"pool\": \"10.0.0.0/24\"}]}", "dnns[0].name" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/24\", \"dns\": [\"x\"]}]}", "dnns[0].dns[0]" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/24\", \"dns\": [7]}]}", "dnns[0].dns[0]" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/24\", \"mtu\": 100}]}", "dnns[0].mtu" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/24\", \"mtu\": \"1400\"}]}", "dnns[0].mtu" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/24\", \"x\": 1}]}", "dnns[0].x" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/24\"}, {\"name\": \"A\", \"pool\": \"10.0.1.0/24\"}]}",
		  "dnns[1]" },
		{ "{\"dnns\": [{\"name\": \"a\", \"pool\": \"10.0.0.0/16\"}, {\"name\": \"b\", \"pool\": \"10.0.1.0/24\"}]}",
		  "dnns[1]" },   /* pools that overlap (conf_schema.c chk_dnns) */
		/* All or nothing: a good key with a bad one. */
		{ "{\"tacs\": [1, 9], \"slices\": [{\"sst\": 1, \"sd\": \"zz\"}]}", "slices[0].sd" },
	};
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		patch(bad[i].body, 400, bad[i].field);
	assert_int_equal(C.n_tac, 1);
	assert_int_equal(C.n_slices, 2);
	j = get();
	expect_keys(j, "saved", "");
	json_decref(j);
}

/* Roles (admin only for changes) and the audit log. */
static void test_roles_audit(void **state)
{
	json_t *j, *items, *a;
	size_t i;
	bool found = false;

	(void)state;
	call("PATCH", "/api/v1/settings", TOK_OP, "{\"tacs\": [1, 2]}", 403, NULL);
	call("PATCH", "/api/v1/settings", TOK_RO, "{\"tacs\": [1, 2]}", 403, NULL);
	call("DELETE", "/api/v1/settings", TOK_OP, NULL, 403, NULL);
	call("DELETE", "/api/v1/settings", TOK_RO, NULL, 403, NULL);
	call("PATCH", "/api/v1/settings", NULL, "{\"tacs\": [1, 2]}", 401, "Authorization");
	assert_int_equal(C.n_tac, 1);
	json_decref(patch("{\"tacs\": [1, 2], \"plmn\": {\"mcc\": \"999\", \"mnc\": \"70\"}}", 200, NULL));
	j = call("GET", "/api/v1/audit", TOK_ADMIN, NULL, 200, NULL);
	items = json_object_get(j, "items");
	json_array_foreach(items, i, a) {
		if (!strcmp(json_string_value(json_object_get(a, "action")), "settings")) {
			assert_string_equal(json_string_value(json_object_get(a, "detail")),
					    "plmn=restart tacs=applied");
			found = true;
		}
	}
	assert_true(found);
	json_decref(j);
}

/* Free the web and core objects and make them again on the same database file, as a
 * restart does: the configuration file's values, the saved keys on top. */
static void restart_core(int want_keys, const char *want_names)
{
	struct web_limits lim;
	struct amf_cfg cfg;
	struct smf_params p;
	char names[96];
	int err = 0;

	srv_halt(&s);
	web_stop(s.web);
	s.web = NULL;
	db_close(s.db);
	s.db = NULL;
	teardown(NULL);
	memset(&H, 0, sizeof(H));   /* a failure below must not free the old objects again */

	C = F;
	assert_int_equal(db_open(s.dbpath, &s.db), 0);
	assert_int_equal(web_settings_overlay(s.db, &C, names, sizeof(names)), want_keys);
	assert_string_equal(names, want_names);
	assert_int_equal(amf_cfg_from_conf(&cfg, &C), 0);
	cfg.max_ues = 64;
	cfg.max_gnbs = 8;
	h_init(&H, &cfg);
	memset(&p, 0, sizeof(p));
	p.conf = &C;
	p.loop = H.loop;
	p.n3_addr = ip4(N3_ADDR);
	p.max_sessions = 64;
	p.max_ues = 64;
	amf_smf_ops(H.amf, &p.ops);
	S = smf_new(&p, &err);
	assert_non_null(S);
	amf_set_smf(H.amf, S);
	web_limits_default(&lim);
	lim.first_admin = false;
	assert_int_equal(web_start(s.loop, &s.conf, s.db, s.udm, &lim, &s.web), 0);
	assert_int_equal(web_token_add(s.web, TOK_ADMIN, WEB_ROLE_ADMIN), 0);
	assert_int_equal(web_token_add(s.web, TOK_RO, WEB_ROLE_READ), 0);
	s.port = web_port(s.web);
	attach(s.udm);
	srv_resume(&s);
}

/* Saved settings survive a restart and are in force after it; DELETE goes back to the file
 * at the next start; a saved value that no longer passes the checks is skipped. */
static void test_persist(void **state)
{
	struct amf_cfg cfg;
	uint32_t used, size;
	json_t *j;

	(void)state;
	json_decref(patch("{\"plmn\": {\"mcc\": \"001\", \"mnc\": \"02\"}, \"tacs\": [1, 5], "
			  "\"dnns\": [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}, "
			  "{\"name\": \"iot\", \"pool\": \"10.47.0.0/24\"}]}", 200, NULL));
	restart_core(3, "plmn, tacs, dnns");
	assert_string_equal(C.plmn.mnc, "02");
	amf_get_cfg(H.amf, &cfg);
	assert_memory_equal(cfg.plmn, "\x00\xf1\x20", 3);   /* 001/02 on the wire */
	assert_int_equal(cfg.n_tacs, 2);
	assert_int_equal(smf_pool_usage(S, "iot", &used, &size), 0);
	assert_int_equal(size, 254);
	assert_int_equal(smf_pool_usage(S, "ims", &used, &size), -ENOENT);
	j = get();
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "plmn"), "mnc")), "02");
	expect_keys(j, "pending_restart", "");
	expect_keys(j, "saved", "plmn,tacs,dnns");
	json_decref(j);

	/* DELETE: nothing saved; what came from the database reverts at the next start. */
	j = call("DELETE", "/api/v1/settings", TOK_ADMIN, NULL, 200, NULL);
	expect_keys(j, "deleted", "plmn,tacs,dnns");
	expect_keys(json_object_get(j, "settings"), "saved", "");
	expect_keys(json_object_get(j, "settings"), "pending_restart", "plmn,tacs,dnns");
	json_decref(j);
	restart_core(0, "");
	assert_string_equal(C.plmn.mnc, "01");
	assert_int_equal(C.n_tac, 1);
	assert_int_equal(C.n_dnns, 2);
	j = get();
	expect_keys(j, "pending_restart", "");
	json_decref(j);

	/* A saved value that does not load (written by hand, or by an older version). */
	assert_int_equal(db_setting_put(s.db, "net.tacs", "[\"x\"]"), 0);
	assert_int_equal(db_setting_put(s.db, "net.slices", "not json"), 0);
	assert_int_equal(db_setting_put(s.db, "net.amf_name", "\"edge-2\""), 0);
	restart_core(1, "amf_name");
	assert_int_equal(C.n_tac, 1);
	assert_string_equal(C.amf.name, "edge-2");
	j = get();
	expect_keys(j, "saved", "amf_name,tacs,slices");
	expect_keys(j, "pending_restart", "");
	json_decref(j);
}

/* conf_overlay_string (the check behind PATCH): on top of a loaded conf, lists replaced,
 * the rest kept, all or nothing, "key.path: reason" without a position. */
static void test_conf_overlay(void **state)
{
	static const char good[] = "{\"tac\": [7, 8], \"plmn\": {\"mnc\": \"001\"}}";
	static const char badt[] = "{\"tac\": [7], \"dnns\": [{\"name\": \"x\", \"pool\": \"1.2.3.4\"}]}";
	struct conf c;
	char err[256];

	(void)state;
	assert_int_equal(conf_defaults(&c), 0);
	c.n2.port = 1234;
	assert_int_equal(conf_overlay_string(&c, NULL, good, strlen(good), err, sizeof(err)), 0);
	assert_int_equal(c.n_tac, 2);
	assert_int_equal(c.tac[1], 8);
	assert_string_equal(c.plmn.mnc, "001");
	assert_string_equal(c.plmn.mcc, "001");
	assert_int_equal(c.n2.port, 1234);
	assert_int_equal(conf_overlay_string(&c, NULL, badt, strlen(badt), err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "dnns[0].pool: \"1.2.3.4\" is not an IPv4 prefix like 10.45.0.0/16");
	assert_int_equal(c.n_tac, 2);
	assert_int_equal(conf_overlay_string(&c, "s.yaml", badt, strlen(badt), err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "s.yaml:1:"));
	conf_free(&c);
}

/* Another node of a cluster saved settings (core_feed.c calls web_settings_reload): the live
 * keys that differ apply here as a PATCH here would, the others wait for the next start. */
static void test_reload_from_elsewhere(void **state)
{
	struct amf_cfg cfg;
	unsigned applied = 9, restart = 9;

	(void)state;
	srv_halt(&s);   /* the loop thread owns the modules: call as it would */
	assert_int_equal(db_setting_put(s.db, "net.tacs", "[1, 5]"), 0);
	assert_int_equal(web_settings_reload(s.web, &env, &applied, &restart), 0);
	assert_int_equal(applied, WEB_LIVE_TACS);
	assert_int_equal(restart, 0);
	amf_get_cfg(H.amf, &cfg);
	assert_int_equal(cfg.n_tacs, 2);
	assert_int_equal(cfg.tacs[1], 5);
	assert_int_equal(C.n_tac, 2);
	/* in effect already: nothing to do */
	assert_int_equal(web_settings_reload(s.web, &env, &applied, &restart), 0);
	assert_int_equal(applied, 0);
	assert_int_equal(restart, 0);
	/* a key that never applies live, and one that no longer passes the checks (skipped) */
	assert_int_equal(db_setting_put(s.db, "net.amf_name", "\"edge-2\""), 0);
	assert_int_equal(db_setting_put(s.db, "net.slices", "not json"), 0);
	assert_int_equal(web_settings_reload(s.web, &env, &applied, &restart), 0);
	assert_int_equal(applied, 0);
	assert_int_equal(__builtin_popcount(restart), 1);
	assert_string_equal(C.amf.name, F.amf.name);   /* not changed while running */
	assert_int_equal(restart, 1u << 1);   /* amf_name (K_AMF_NAME) */
	assert_int_equal(web_settings_reload(NULL, &env, &applied, &restart), -EINVAL);
	srv_resume(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_overlay),
		cmocka_unit_test_setup_teardown(test_get, start, stop),
		cmocka_unit_test_setup_teardown(test_tacs_live, start, stop),
		cmocka_unit_test_setup_teardown(test_slices_live, start, stop),
		cmocka_unit_test_setup_teardown(test_default_slices_cuc, start, stop),
		cmocka_unit_test_setup_teardown(test_dnns_live, start, stop),
		cmocka_unit_test_setup_teardown(test_dnns_busy, start, stop),
		cmocka_unit_test_setup_teardown(test_restart_required, start, stop),
		cmocka_unit_test_setup_teardown(test_bad_requests, start, stop),
		cmocka_unit_test_setup_teardown(test_roles_audit, start, stop),
		cmocka_unit_test_setup_teardown(test_persist, start, stop),
		cmocka_unit_test_setup_teardown(test_reload_from_elsewhere, start, stop),
	};

	if (webcli_backend_init(argc, argv) < 0)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	webcli_backend_fini();
	return rc;
}
