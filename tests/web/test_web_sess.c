/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ + smf/ (+ upf/): the session views. The AMF + SMF of tests/amf's sm_fx fixture
 * (the harness plays the gNB and the UEs) attached with web_attach_amf and
 * web_attach_smf: UEs register and establish PDU sessions (one is rejected), then
 * GET /api/v1/sessions (paging, errors, roles), the UE view's "sessions", the stats'
 * "sessions" / "upf", and /metrics, parsed line by line as Prometheus text format 0.0.4:
 * the session gauge, setups by result and cause, and both latency histograms (cumulative
 * buckets, +Inf = _count) moving with the registrations and sessions.
 *
 * Run with the argument "upf" (test web-sess-upf): the real UPF (XDP program loaded,
 * attached nowhere) in a private network namespace with the veths of tests/upf, GTP-U
 * pushed through the program with BPF_PROG_TEST_RUN: the session's packet and byte
 * counters, the "upf" stats and the solocore_upf_* families move, and stay after the
 * session is released. Needs root and BPF; exits 77 (skip) otherwise.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <jansson.h>

#include "amf/amf.h"
#include "smf/smf.h"
#include "tests/amf/sm_fx.h"
#include "upf/upf.h"
#include "netns.h"
#include "pkt.h"
#include "webcli.h"

/* ---- Prometheus text format 0.0.4 (what a scraper accepts) ---- */

#define PROM_MAX 512

struct prom_sample {
	char name[96];
	char labels[160];          /* as written, without the braces: k="v",k="v" */
	double v;
};

struct prom {
	struct prom_sample s[PROM_MAX];
	unsigned n;
	char types[128][96];       /* family names with a TYPE line */
	char type_of[128][16];
	unsigned n_types;
};

static const char *family_type(const struct prom *p, const char *fam)
{
	for (unsigned i = 0; i < p->n_types; i++)
		if (!strcmp(p->types[i], fam))
			return p->type_of[i];
	return NULL;
}

/* The family of a sample name: a histogram's _bucket / _sum / _count belong to it. */
static const char *sample_type(const struct prom *p, const char *name, char fam[96])
{
	static const char *const suf[] = { "_bucket", "_sum", "_count" };
	const char *t;
	size_t n = strlen(name);

	snprintf(fam, 96, "%s", name);
	if ((t = family_type(p, fam)))
		return t;
	for (unsigned i = 0; i < 3; i++) {
		size_t k = strlen(suf[i]);
		if (n > k && !strcmp(name + n - k, suf[i])) {
			snprintf(fam, 96, "%.*s", (int)(n - k), name);
			t = family_type(p, fam);
			if (t && !strcmp(t, "histogram"))
				return t;
		}
	}
	return NULL;
}

static bool name_char(char c, bool first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || c == ':' ||
	       (!first && c >= '0' && c <= '9');
}

/* One line; fails the test on anything a Prometheus scraper would refuse. */
static void prom_line(struct prom *p, const char *l)
{
	struct prom_sample *s;
	const char *q = l;
	char *end;
	size_t i = 0;

	if (!strncmp(l, "# HELP ", 7))
		return;
	if (!strncmp(l, "# TYPE ", 7)) {
		char name[96], type[16];

		if (sscanf(l + 7, "%95s %15s", name, type) != 2)
			fail_msg("bad TYPE line: %s", l);
		if (strcmp(type, "counter") && strcmp(type, "gauge") && strcmp(type, "histogram") &&
		    strcmp(type, "summary") && strcmp(type, "untyped"))
			fail_msg("bad type: %s", l);
		if (family_type(p, name))
			fail_msg("second TYPE line for %s", name);
		assert_true(p->n_types < 128);
		snprintf(p->types[p->n_types], sizeof(p->types[0]), "%s", name);
		snprintf(p->type_of[p->n_types++], sizeof(p->type_of[0]), "%s", type);
		return;
	}
	if (l[0] == '#')
		return;
	assert_true(p->n < PROM_MAX);
	s = &p->s[p->n];
	memset(s, 0, sizeof(*s));
	while (name_char(*q, q == l))
		q++;
	if (q == l || (size_t)(q - l) >= sizeof(s->name))
		fail_msg("bad metric name: %s", l);
	memcpy(s->name, l, (size_t)(q - l));
	if (*q == '{') {
		q++;
		while (*q != '}') {
			const char *k = q;

			while (name_char(*q, q == k))
				q++;
			if (q == k || *q != '=' || q[1] != '"')
				fail_msg("bad label name: %s", l);
			q += 2;
			while (*q && *q != '"') {
				if (*q == '\\' && (q[1] == '\\' || q[1] == '"' || q[1] == 'n'))
					q++;
				else if (*q == '\\' || *q == '\n')
					fail_msg("bad escape in label value: %s", l);
				q++;
			}
			if (*q != '"')
				fail_msg("unterminated label value: %s", l);
			q++;
			if (*q == ',')
				q++;
			else if (*q != '}')
				fail_msg("bad label list: %s", l);
		}
		i = (size_t)(q - strchr(l, '{')) - 1;
		if (i >= sizeof(s->labels))
			fail_msg("labels too long: %s", l);
		memcpy(s->labels, strchr(l, '{') + 1, i);
		q++;
	}
	if (*q != ' ')
		fail_msg("no value: %s", l);
	q++;
	if (!strcmp(q, "+Inf"))
		s->v = INFINITY;
	else if (!strcmp(q, "NaN"))
		s->v = NAN;
	else {
		s->v = strtod(q, &end);
		if (end == q || *end)
			fail_msg("bad value: %s", l);
	}
	char fam[96];
	if (!sample_type(p, s->name, fam))
		fail_msg("sample before (or without) its TYPE line: %s", l);
	p->n++;
}

/* Histograms: per family, le ascending, counts non-decreasing, +Inf equal to _count. */
static void prom_check_histograms(const struct prom *p)
{
	for (unsigned t = 0; t < p->n_types; t++) {
		char bucket[112], count[112];
		double last_le = -INFINITY, last_v = -1, inf = -1, cnt = -1;
		unsigned nb = 0;

		if (strcmp(p->type_of[t], "histogram"))
			continue;
		snprintf(bucket, sizeof(bucket), "%s_bucket", p->types[t]);
		snprintf(count, sizeof(count), "%s_count", p->types[t]);
		for (unsigned i = 0; i < p->n; i++) {
			const struct prom_sample *s = &p->s[i];

			if (!strcmp(s->name, count))
				cnt = s->v;
			if (strcmp(s->name, bucket))
				continue;
			assert_true(!strncmp(s->labels, "le=\"", 4));
			double le = !strcmp(s->labels, "le=\"+Inf\"") ? INFINITY : strtod(s->labels + 4, NULL);
			assert_true(le > last_le);
			assert_true(s->v >= last_v);
			last_le = le;
			last_v = s->v;
			if (isinf(le))
				inf = s->v;
			nb++;
		}
		if (nb < 2 || inf < 0 || cnt < 0)
			fail_msg("histogram %s: buckets, +Inf or _count missing", p->types[t]);
		assert_true(inf == cnt);
	}
}

static void prom_parse(struct prom *p, const char *body)
{
	char line[512];

	memset(p, 0, sizeof(*p));
	while (*body) {
		const char *e = strchr(body, '\n');

		assert_non_null(e);   /* every line ends with \n */
		assert_true((size_t)(e - body) < sizeof(line));
		memcpy(line, body, (size_t)(e - body));
		line[e - body] = 0;
		prom_line(p, line);
		body = e + 1;
	}
	prom_check_histograms(p);
}

/* The value of name{labels} (labels "" for none), or -1 when there is no such sample. */
static double prom_get(const struct prom *p, const char *name, const char *labels)
{
	for (unsigned i = 0; i < p->n; i++)
		if (!strcmp(p->s[i].name, name) && !strcmp(p->s[i].labels, labels))
			return p->s[i].v;
	return -1;
}

/* The sum of the samples of name whose labels contain part ("" for all). */
static double prom_sum(const struct prom *p, const char *name, const char *part)
{
	double sum = 0;

	for (unsigned i = 0; i < p->n; i++)
		if (!strcmp(p->s[i].name, name) && strstr(p->s[i].labels, part))
			sum += p->s[i].v;
	return sum;
}

/* The NGAP series by procedure add up to the AMF's totals (every PDU decoded: no bad one). */
static void check_ngap_sums(const struct prom *p)
{
	assert_true(prom_get(p, "solocore_amf_ngap_rx_bad_total", "") == 0);
	assert_true(prom_sum(p, "solocore_amf_ngap_messages_total", "direction=\"rx\"") ==
		    prom_get(p, "solocore_amf_ngap_rx_total", ""));
	assert_true(prom_sum(p, "solocore_amf_ngap_messages_total", "direction=\"tx\"") ==
		    prom_get(p, "solocore_amf_ngap_tx_total", ""));
}

static void scrape(struct srv *s, struct prom *p)
{
	struct resp r;

	assert_int_equal(do_req(s, "GET", "/metrics", TOK_RO, NULL, &r), 200);
	prom_parse(p, r.body);
	resp_free(&r);
}

/* ---- helpers ---- */

static json_t *get_json(struct srv *s, const char *path)
{
	struct resp r;
	json_t *j;

	assert_int_equal(do_req(s, "GET", path, TOK_RO, NULL, &r), 200);
	j = jbody(&r);
	resp_free(&r);
	return j;
}

static json_t *find_sess(json_t *items, const char *supi, int psi)
{
	for (size_t i = 0; i < json_array_size(items); i++) {
		json_t *it = json_array_get(items, i);

		if (!strcmp(json_string_value(json_object_get(it, "supi")), supi) &&
		    json_integer_value(json_object_get(it, "psi")) == psi)
			return it;
	}
	fail_msg("no session %s/%d", supi, psi);
	return NULL;
}

static const char *ipstr(uint32_t a, char buf[16])
{
	return inet_ntop(AF_INET, &a, buf, 16);
}

/* S of the contract against smf_sess_info. */
static void check_sess(json_t *it, const struct sue *ue, uint8_t psi, const char *dnn, int sst, const char *sd)
{
	struct smf_sess_info si;
	char a[16];

	sess(ue, psi, &si);
	assert_string_equal(json_string_value(json_object_get(it, "dnn")), dnn);
	assert_int_equal(json_integer_value(json_object_get(it, "sst")), sst);
	if (sd)
		assert_string_equal(json_string_value(json_object_get(it, "sd")), sd);
	else
		assert_true(json_is_null(json_object_get(it, "sd")));
	assert_string_equal(json_string_value(json_object_get(it, "ue_ip")), ipstr(si.ue_addr, a));
	assert_string_equal(json_string_value(json_object_get(it, "state")), "ACTIVE");
	assert_int_equal(json_integer_value(json_object_get(it, "ul_teid")), si.ul_teid);
	assert_int_equal(json_integer_value(json_object_get(it, "dl_teid")), 0x100 + psi);
	assert_string_equal(json_string_value(json_object_get(it, "gnb_ip")), GNB_ADDR);
	assert_int_equal(json_integer_value(json_object_get(it, "ambr_ul")), si.ambr_ul_bps);
	assert_int_equal(json_integer_value(json_object_get(it, "ambr_dl")), si.ambr_dl_bps);
	assert_true(si.ambr_ul_bps > 0);
	assert_int_equal(json_integer_value(json_object_get(it, "5qi")), si.five_qi);
	assert_true(si.five_qi > 0);
	assert_true(json_is_boolean(json_object_get(it, "user_plane")));
	assert_true(json_is_integer(json_object_get(it, "ul_packets")));
	assert_true(json_is_integer(json_object_get(it, "dl_bytes")));
}

/* Attach the AMF and the SMF (and the UPF) while the server's loop is halted. */
static void attach(struct srv *s, struct upf *upf)
{
	srv_halt(s);
	assert_int_equal(web_attach_amf(s->web, H.amf), 0);
	assert_int_equal(web_attach_upf(s->web, upf), -EINVAL);    /* the SMF first */
	assert_int_equal(web_attach_smf(s->web, S), 0);
	assert_int_equal(web_attach_smf(s->web, S), -EALREADY);
	assert_int_equal(web_attach_smf(s->web, NULL), -EINVAL);
	if (upf)
		assert_int_equal(web_attach_upf(s->web, upf), 0);
	assert_int_equal(web_attach_upf(s->web, NULL), -EINVAL);
	srv_resume(s);
}

/* ---- the views without a user plane ---- */

static void test_session_views(void **state)
{
	struct sue u1, u2, u3;
	struct srv s;
	struct resp r;
	struct prom *p = calloc(1, sizeof(*p));
	struct nas_msg dl, gsm;
	json_t *j, *items, *it;
	char path[96];

	(void)state;
	assert_non_null(p);
	srv_start(&s, NULL);
	attach(&s, NULL);

	/* Nothing yet: zero gauges, empty histograms, an empty list. */
	scrape(&s, p);
	assert_true(prom_get(p, "solocore_smf_sessions", "") == 0);
	assert_true(prom_get(p, "solocore_smf_session_setups_total", "result=\"success\",cause=\"none\"") == 0);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_count", "") == 0);
	assert_true(prom_get(p, "solocore_amf_registration_seconds_count", "") == 0);
	assert_true(prom_get(p, "solocore_amf_registration_seconds_bucket", "le=\"+Inf\"") == 0);
	assert_true(prom_get(p, "solocore_upf_packets_total", "direction=\"ul\"") < 0);   /* no UPF */
	assert_string_equal(family_type(p, "solocore_smf_session_setup_seconds"), "histogram");
	assert_string_equal(family_type(p, "solocore_amf_registration_seconds"), "histogram");
	assert_string_equal(family_type(p, "solocore_smf_sessions"), "gauge");
	assert_string_equal(family_type(p, "solocore_smf_session_setups_total"), "counter");
	/* TS 23.502 4.9.1.3: the SMF's handover counters, none yet */
	assert_string_equal(family_type(p, "solocore_smf_session_handovers_total"), "counter");
	assert_true(prom_get(p, "solocore_smf_session_handovers_total", "result=\"prepared\"") == 0);
	assert_true(prom_get(p, "solocore_smf_forwarding_tunnels_total", "event=\"created\"") == 0);
	/* The AMF's by kind: the fixture's NG Setup, no registration yet. */
	assert_string_equal(family_type(p, "solocore_amf_ngap_messages_total"), "counter");
	assert_string_equal(family_type(p, "solocore_amf_registrations_total"), "counter");
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"NGSetup\",direction=\"rx\",type=\"initiating\"") == 1);
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"NGSetup\",direction=\"tx\",type=\"successful\"") == 1);
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"InitialUEMessage\",direction=\"rx\",type=\"initiating\"") < 0);
	check_ngap_sums(p);
	assert_true(prom_get(p, "solocore_amf_registrations_total", "result=\"accepted\",type=\"initial\"") == 0);
	assert_true(prom_get(p, "solocore_amf_registrations_total", "result=\"accepted\",type=\"periodic\"") == 0);
	assert_true(prom_sum(p, "solocore_amf_registrations_total", "result=\"rejected\"") == 0);
	j = get_json(&s, "/api/v1/sessions");
	assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
	assert_true(json_is_null(json_object_get(j, "next")));
	json_decref(j);

	/* Two UEs register; three sessions (two slices, two DNNs); one request rejected #33. */
	srv_halt(&s);
	sue_init(&u1, "0000000001", ASSOC, 1);
	u1.requested.n = 2;             /* both slices allowed (sm_fx: SUPI1 has both) */
	u1.requested.s[1] = SN2;
	sue_register(&H, &u1, 2, 0);
	registered(&u2, "0000000002", 2);
	establish(&u1, 1, "internet", &SN1);
	establish(&u1, 2, "ims", &SN2);
	establish(&u2, 1, "internet", &SN1);
	est_req(&u2, 2, "ims", &SN1);
	sue_dl(&H, &u2, &dl);
	inner_gsm(&dl, 2, &gsm);
	assert_int_equal(gsm.type, NAS_PDU_SESSION_ESTABLISHMENT_REJECT);
	assert_int_equal(gsm.pdu_est_rej.cause, NAS_5GSM_SERVICE_OPTION_NOT_SUBSCRIBED);
	srv_resume(&s);

	/* /metrics moved: two registrations, three setups, one reject under #33. */
	scrape(&s, p);
	assert_true(prom_get(p, "solocore_smf_sessions", "") == 3);
	assert_true(prom_get(p, "solocore_smf_session_setups_total", "result=\"success\",cause=\"none\"") == 3);
	assert_true(prom_get(p, "solocore_smf_session_setups_total", "result=\"reject\",cause=\"33\"") == 1);
	assert_true(prom_get(p, "solocore_smf_session_setups_total", "result=\"failure\",cause=\"38\"") == 0);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_count", "") == 3);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_bucket", "le=\"+Inf\"") == 3);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_bucket", "le=\"0.0005\"") >= 0);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_bucket", "le=\"10\"") == 3);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_sum", "") >= 0);
	assert_true(prom_get(p, "solocore_amf_registration_seconds_count", "") == 2);
	assert_true(prom_get(p, "solocore_amf_registration_seconds_bucket", "le=\"+Inf\"") == 2);
	assert_true(prom_get(p, "solocore_amf_reg_accepted_total", "") == 2);   /* the AMF's own still there */
	assert_true(prom_get(p, "solocore_amf_registrations_total", "result=\"accepted\",type=\"initial\"") == 2);
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"InitialUEMessage\",direction=\"rx\",type=\"initiating\"") == 2);
	/* three sessions set up (one Setup Request each, answered), the rejected one in a DL NAS */
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"PDUSessionResourceSetup\",direction=\"tx\",type=\"initiating\"") == 3);
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"PDUSessionResourceSetup\",direction=\"rx\",type=\"successful\"") == 3);
	check_ngap_sums(p);

	/* The list: every session once, with the fields of the contract. */
	j = get_json(&s, "/api/v1/sessions");
	items = json_object_get(j, "items");
	assert_int_equal(json_array_size(items), 3);
	assert_true(json_is_null(json_object_get(j, "next")));
	check_sess(find_sess(items, SUPI1, 1), &u1, 1, "internet", 1, "010203");
	check_sess(find_sess(items, SUPI1, 2), &u1, 2, "ims", 2, NULL);
	check_sess(find_sess(items, SUPI2, 1), &u2, 1, "internet", 1, "010203");
	it = find_sess(items, SUPI1, 1);
	assert_false(json_is_true(json_object_get(it, "user_plane")));   /* no UPF */
	assert_int_equal(json_integer_value(json_object_get(it, "ul_packets")), 0);
	json_decref(j);
	/* Pages of two: 2 + 1, the cursor of the first resumes after it. */
	j = get_json(&s, "/api/v1/sessions?limit=2");
	assert_int_equal(json_array_size(json_object_get(j, "items")), 2);
	assert_true(json_is_string(json_object_get(j, "next")));
	snprintf(path, sizeof(path), "/api/v1/sessions?limit=2&cursor=%s", json_string_value(json_object_get(j, "next")));
	json_decref(j);
	j = get_json(&s, path);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 1);
	assert_true(json_is_null(json_object_get(j, "next")));
	json_decref(j);
	/* Errors name the parameter; no token: 401. */
	static const char *const bad[] = { "cursor=x", "cursor=-1", "cursor=4294967295", "cursor=",
					   "limit=0", "limit=1001", "limit=1x" };
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(path, sizeof(path), "/api/v1/sessions?%s", bad[i]);
		assert_int_equal(do_req(&s, "GET", path, TOK_RO, NULL, &r), 400);
		expect_err(&r, 400, bad[i][0] == 'c' ? "cursor" : "limit");
		resp_free(&r);
	}
	assert_int_equal(do_req(&s, "GET", "/api/v1/sessions", NULL, NULL, &r), 401);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/sessions", TOK_ADMIN, "{}", &r), 405);
	resp_free(&r);

	/* The UE view: the AMF's fields and the UE's sessions. */
	j = get_json(&s, "/api/v1/ues/imsi-001010000000001");
	assert_string_equal(json_string_value(json_object_get(j, "state")), amf_gmm_state_name(AMF_GMM_REGISTERED));
	assert_int_equal(json_array_size(json_object_get(j, "pdu_sessions")), 2);
	items = json_object_get(j, "sessions");
	assert_int_equal(json_array_size(items), 2);
	check_sess(find_sess(items, SUPI1, 1), &u1, 1, "internet", 1, "010203");
	check_sess(find_sess(items, SUPI1, 2), &u1, 2, "ims", 2, NULL);
	json_decref(j);
	j = get_json(&s, "/api/v1/ues/001010000000002");
	assert_int_equal(json_array_size(json_object_get(j, "sessions")), 1);
	json_decref(j);
	assert_int_equal(do_req(&s, "GET", "/api/v1/ues/imsi-001010000000009", TOK_RO, NULL, &r), 404);
	expect_err(&r, 404, "supi");
	resp_free(&r);

	/* The stats: the AMF's counters, "sessions", "upf": null. */
	j = get_json(&s, "/api/v1/stats");
	assert_int_equal(json_integer_value(json_object_get(j, "sessions")), 3);
	assert_true(json_is_null(json_object_get(j, "upf")));
	assert_int_equal(json_integer_value(json_object_get(j, "gnbs")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "registered_ues")), 2);
	/* Both UEs still hold their N2 connection (no release in this test so far). */
	assert_int_equal(json_integer_value(json_object_get(j, "connected_ues")), 2);
	json_decref(j);

	/* One more registration, a rejected one (not counted: the histogram is of completed
	 * registrations), a release, and a session whose gNB answers after at least 3 ms of
	 * the loop's clock: the histograms count on, that setup lands above le="0.0025". */
	double le_2_5ms = prom_get(p, "solocore_smf_session_setup_seconds_bucket", "le=\"0.0025\"");
	double sum = prom_get(p, "solocore_smf_session_setup_seconds_sum", "");
	struct timespec ts = { 0, 3 * 1000 * 1000 };
	struct sue stranger;
	struct nas_msg m;

	srv_halt(&s);
	release_session(&u1, 2);
	add_sub("imsi-001010000000003", false);
	registered(&u3, "0000000003", 3);
	sue_init(&stranger, "0000000777", ASSOC, 4);
	sue_reg_req(&stranger, &m, false);
	sue_initial(&H, &stranger, &m, NAS_SHT_PLAIN);
	sue_expect_reg_reject(&H, &stranger, NAS_5GMM_5GS_SERVICES_NOT_ALLOWED);
	ev_update_now(H.loop);
	est_req(&u3, 1, "internet", &SN1);
	assert_int_equal(sue_dl(&H, &u3, &dl), NGAP_PROC_PDU_SESSION_RESOURCE_SETUP);
	nanosleep(&ts, NULL);
	ev_update_now(H.loop);
	gnb_setup_rsp(&u3, 1, 0x101);
	srv_resume(&s);
	scrape(&s, p);
	assert_true(prom_get(p, "solocore_amf_registration_seconds_count", "") == 3);
	assert_true(prom_get(p, "solocore_amf_reg_rejected_total", "") == 1);
	/* TS 24.501 9.11.3.2: the stranger's reject under #7 with its name, nothing else */
	assert_true(prom_get(p, "solocore_amf_registrations_total",
			     "result=\"rejected\",cause=\"7\",name=\"5gs_services_not_allowed\"") == 1);
	assert_true(prom_sum(p, "solocore_amf_registrations_total", "result=\"rejected\"") == 1);
	assert_true(prom_get(p, "solocore_amf_registrations_total", "result=\"accepted\",type=\"initial\"") == 3);
	assert_true(prom_get(p, "solocore_amf_ngap_messages_total",
			     "procedure=\"InitialUEMessage\",direction=\"rx\",type=\"initiating\"") == 4);
	check_ngap_sums(p);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_count", "") == 4);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_bucket", "le=\"0.0025\"") == le_2_5ms);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_bucket", "le=\"+Inf\"") == 4);
	assert_true(prom_get(p, "solocore_smf_session_setup_seconds_sum", "") >= sum + 0.003);
	assert_true(prom_get(p, "solocore_smf_session_setups_total", "result=\"success\",cause=\"none\"") == 4);
	assert_true(prom_get(p, "solocore_smf_sessions", "") == 3);
	j = get_json(&s, "/api/v1/sessions");
	assert_int_equal(json_array_size(json_object_get(j, "items")), 3);
	json_decref(j);

	/* In the OpenAPI document. */
	j = get_json(&s, "/api/v1/openapi.json");
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "paths"), "/api/v1/sessions"), "get"));
	json_decref(j);

	srv_halt(&s);
	srv_free(&s);
	free(p);
}

/* ---- with the real UPF ---- */

static const uint8_t N3_MAC[6] = { 2, 0, 0, 0, 3, 1 };
static const uint8_t GNB_MAC[6] = { 2, 0, 0, 0, 3, 2 };
static const uint8_t N6_MAC[6] = { 2, 0, 0, 0, 6, 1 };
static const uint8_t DN_MAC[6] = { 2, 0, 0, 0, 6, 2 };
static int n3_ifindex, n6_ifindex;
static struct upf *upf;

static uint32_t xdp_run(int ifindex, const uint8_t *frame, size_t len)
{
	uint8_t out[2048];
	struct xdp_md ctx = { .data = 0, .data_end = (uint32_t)len, .ingress_ifindex = (uint32_t)ifindex };
	LIBBPF_OPTS(bpf_test_run_opts, o, .data_in = frame, .data_size_in = (uint32_t)len, .data_out = out,
		    .data_size_out = sizeof(out), .ctx_in = &ctx, .ctx_size_in = sizeof(ctx), .repeat = 1);

	assert_int_equal(bpf_prog_test_run_opts(upf_prog_fd(upf), &o), 0);
	return o.retval;
}

/* A G-PDU from the gNB (UL, QFI 1) whose inner IPv4/UDP packet is ilen bytes from src
 * to a host behind the DN router (an on-link address would have no neighbour). */
static uint32_t send_ul(uint32_t teid, uint32_t src, size_t ilen)
{
	uint8_t inner[256], gtp[320], frame[400];
	size_t n = pkt_inner_udp(inner, src, ip4("203.0.113.7"), ilen);

	n = pkt_gpdu(gtp, teid, 1, 1, inner, n);
	n = pkt_gtpu_frame(frame, N3_MAC, GNB_MAC, ip4(GNB_ADDR), ip4(N3_ADDR), gtp, n);
	return xdp_run(n3_ifindex, frame, n);
}

/* A downlink IPv4/UDP packet of ilen bytes from the data network to the UE. */
static uint32_t send_dl(uint32_t ue, size_t ilen)
{
	uint8_t inner[256], frame[300];
	size_t n = pkt_inner_udp(inner, ip4("203.0.113.7"), ue, ilen);

	n = pkt_ip_frame(frame, N6_MAC, DN_MAC, inner, n);
	return xdp_run(n6_ifindex, frame, n);
}

static void test_upf_counters(void **state)
{
	struct smf_sess_info si;
	struct sue u1;
	struct srv s;
	struct prom *p = calloc(1, sizeof(*p));
	json_t *j, *it, *up;
	uint32_t addr;

	(void)state;
	assert_non_null(p);
	smf_set_upf(S, upf);
	srv_start(&s, NULL);
	attach(&s, upf);
	srv_halt(&s);
	registered(&u1, "0000000001", 1);
	addr = establish(&u1, 1, "internet", &SN1);
	sess(&u1, 1, &si);
	srv_resume(&s);

	/* Installed, nothing sent: zeros, user plane on. */
	j = get_json(&s, "/api/v1/sessions");
	it = find_sess(json_object_get(j, "items"), SUPI1, 1);
	assert_true(json_is_true(json_object_get(it, "user_plane")));
	assert_int_equal(json_integer_value(json_object_get(it, "ul_packets")), 0);
	json_decref(j);

	/* Two uplink packets (100 + 60 inner bytes), one downlink (200), one G-PDU for a TEID
	 * nobody has, one uplink with a source that is not the UE's. */
	assert_int_equal(send_ul(si.ul_teid, addr, 100), XDP_REDIRECT);
	assert_int_equal(send_ul(si.ul_teid, addr, 60), XDP_REDIRECT);
	assert_int_equal(send_dl(addr, 200), XDP_REDIRECT);
	assert_int_equal(send_ul(si.ul_teid + 500, addr, 80), XDP_PASS);   /* to the exception path */
	assert_int_equal(send_ul(si.ul_teid, ip4("10.45.99.99"), 80), XDP_DROP);

	j = get_json(&s, "/api/v1/sessions");
	it = find_sess(json_object_get(j, "items"), SUPI1, 1);
	assert_int_equal(json_integer_value(json_object_get(it, "ul_packets")), 2);
	assert_int_equal(json_integer_value(json_object_get(it, "ul_bytes")), 160);
	assert_int_equal(json_integer_value(json_object_get(it, "dl_packets")), 1);
	assert_int_equal(json_integer_value(json_object_get(it, "dl_bytes")), 200);
	json_decref(j);
	j = get_json(&s, "/api/v1/ues/imsi-001010000000001");
	it = find_sess(json_object_get(j, "sessions"), SUPI1, 1);
	assert_int_equal(json_integer_value(json_object_get(it, "ul_bytes")), 160);
	json_decref(j);
	j = get_json(&s, "/api/v1/stats");
	up = json_object_get(j, "upf");
	assert_true(json_is_object(up));
	assert_int_equal(json_integer_value(json_object_get(up, "ul_packets")), 2);
	assert_int_equal(json_integer_value(json_object_get(up, "ul_bytes")), 160);
	assert_int_equal(json_integer_value(json_object_get(up, "dl_packets")), 1);
	assert_int_equal(json_integer_value(json_object_get(up, "dl_bytes")), 200);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(up, "drops"), "unknown_teid")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(up, "drops"), "bad_src")), 1);
	assert_int_equal(json_integer_value(json_object_get(json_object_get(up, "drops"), "ambr_ul")), 0);
	json_decref(j);
	scrape(&s, p);
	assert_string_equal(family_type(p, "solocore_upf_packets_total"), "counter");
	assert_string_equal(family_type(p, "solocore_upf_drops_total"), "counter");
	assert_true(prom_get(p, "solocore_upf_packets_total", "direction=\"ul\"") == 2);
	assert_true(prom_get(p, "solocore_upf_packets_total", "direction=\"dl\"") == 1);
	assert_true(prom_get(p, "solocore_upf_bytes_total", "direction=\"ul\"") == 160);
	assert_true(prom_get(p, "solocore_upf_bytes_total", "direction=\"dl\"") == 200);
	assert_true(prom_get(p, "solocore_upf_drops_total", "reason=\"unknown_teid\"") == 1);
	assert_true(prom_get(p, "solocore_upf_drops_total", "reason=\"bad_src\"") == 1);
	assert_true(prom_get(p, "solocore_upf_drops_total", "reason=\"no_session\"") == 0);
	assert_string_equal(family_type(p, "solocore_upf_forwarded_total"), "counter");
	assert_true(prom_get(p, "solocore_upf_forwarded_total", "path=\"xdp\"") == 0);
	assert_true(prom_get(p, "solocore_upf_forwarded_total", "path=\"socket\"") == 0);
	assert_string_equal(family_type(p, "solocore_upf_n3_ipv6_packets_total"), "counter");
	assert_true(prom_get(p, "solocore_upf_n3_ipv6_packets_total", "direction=\"dl\",path=\"socket\"") == 0);

	/* An indirect forwarding tunnel (TS 23.502 4.9.1.3.2 step 9): a G-PDU the source gNB sends
	 * to it is relayed, in XDP or, with no neighbour entry for the target yet, through the N3
	 * socket; either way one packet shows in the family. */
	assert_int_equal(upf_fwd_create(upf, si.session_id, ip4("10.99.0.2"), 0x4242), 0);
	send_ul(UPF_FWD_TEID(si.session_id), addr, 80);
	scrape(&s, p);
	assert_true(prom_get(p, "solocore_upf_forwarded_total", "path=\"xdp\"") +
		    prom_get(p, "solocore_upf_forwarded_total", "path=\"socket\"") == 1);
	assert_true(prom_get(p, "solocore_upf_end_markers_total", "event=\"relayed\"") == 0);

	/* Released: the session is gone, its traffic stays in the totals (counters never go back). */
	srv_halt(&s);
	release_session(&u1, 1);
	srv_resume(&s);
	j = get_json(&s, "/api/v1/sessions");
	assert_int_equal(json_array_size(json_object_get(j, "items")), 0);
	json_decref(j);
	scrape(&s, p);
	assert_true(prom_get(p, "solocore_smf_sessions", "") == 0);
	assert_true(prom_get(p, "solocore_upf_packets_total", "direction=\"ul\"") == 2);
	assert_true(prom_get(p, "solocore_upf_bytes_total", "direction=\"dl\"") == 200);
	/* A new session starts from zero; its packets add to the totals. */
	srv_halt(&s);
	addr = establish(&u1, 3, "internet", &SN1);
	sess(&u1, 3, &si);
	srv_resume(&s);
	assert_int_equal(send_ul(si.ul_teid, addr, 100), XDP_REDIRECT);
	j = get_json(&s, "/api/v1/sessions");
	it = find_sess(json_object_get(j, "items"), SUPI1, 3);
	assert_int_equal(json_integer_value(json_object_get(it, "ul_packets")), 1);
	json_decref(j);
	scrape(&s, p);
	assert_true(prom_get(p, "solocore_upf_packets_total", "direction=\"ul\"") == 3);
	assert_true(prom_get(p, "solocore_upf_bytes_total", "direction=\"ul\"") == 260);

	srv_halt(&s);
	srv_free(&s);
	free(p);
}

/* The SMF attached before the AMF: /api/v1/stats is the SMF's alone ("sessions", "upf":
 * null), then the AMF's view takes the route over with the SMF's parts added; the UE view
 * has "sessions" whatever the order. */
static void test_attach_order(void **state)
{
	struct srv s;
	struct sue u1;
	json_t *j;

	(void)state;
	srv_start(&s, NULL);
	srv_halt(&s);
	assert_int_equal(web_attach_smf(s.web, S), 0);
	registered(&u1, "0000000001", 1);
	establish(&u1, 1, "internet", &SN1);
	srv_resume(&s);
	j = get_json(&s, "/api/v1/stats");
	assert_int_equal(json_integer_value(json_object_get(j, "sessions")), 1);
	assert_true(json_is_null(json_object_get(j, "upf")));
	assert_null(json_object_get(j, "gnbs"));
	assert_int_equal(json_object_size(j), 2);
	json_decref(j);
	srv_halt(&s);
	assert_int_equal(web_attach_amf(s.web, H.amf), 0);
	srv_resume(&s);
	j = get_json(&s, "/api/v1/stats");
	assert_int_equal(json_integer_value(json_object_get(j, "gnbs")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "registered_ues")), 1);
	assert_int_equal(json_integer_value(json_object_get(j, "sessions")), 1);
	assert_true(json_is_null(json_object_get(j, "upf")));
	json_decref(j);
	j = get_json(&s, "/api/v1/ues/imsi-001010000000001");
	assert_int_equal(json_array_size(json_object_get(j, "sessions")), 1);
	json_decref(j);
	srv_halt(&s);
	srv_free(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest plain[] = {
		cmocka_unit_test_setup_teardown(test_session_views, setup, teardown),
		cmocka_unit_test_setup_teardown(test_attach_order, setup, teardown),
	};
	const struct CMUnitTest with_upf[] = {
		cmocka_unit_test_setup_teardown(test_upf_counters, setup, teardown),
	};
	struct upf_params up = {
		.xdp_mode = UPF_XDP_NONE,
		.ue_pool_plen = 16,
		.max_sessions = 1024,
	};
	int rc;

	if (argc < 2 || strcmp(argv[1], "upf")) {
		if (webcli_backend_init(argc, argv) < 0)
			return 1;
		rc = cmocka_run_group_tests(plain, NULL, NULL);
		webcli_backend_fini();
		return rc;
	}
	rc = tn_require_root_bpf("web-sess-upf");
	if (rc)
		return rc;
	if (tn_unshare_net() < 0 || tn_fib_setup(&n3_ifindex, &n6_ifindex) < 0) {
		printf("SKIP: web-sess-upf: cannot make the network namespace and veths\n");
		return 77;
	}
	up.n3_addr = ip4(N3_ADDR);
	up.ue_pool_addr = ip4("10.45.0.0");
	rc = upf_open(&up, &upf);
	if (rc < 0) {
		printf("SKIP: web-sess-upf: upf_open: %s\n", strerror(-rc));
		return 77;
	}
	rc = cmocka_run_group_tests(with_upf, NULL, NULL);
	upf_close(upf);
	return rc;
}
