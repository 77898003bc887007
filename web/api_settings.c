/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web: network settings. GET /api/v1/settings (read), PATCH /api/v1/settings
 * and DELETE /api/v1/settings (admin): the PLMN, the AMF name, the served TACs,
 * the slices and the DNNs with their pools.
 *
 * A PATCH is checked whole before anything changes (JSON shape here, values by
 * the configuration's own checks through conf_overlay_string, so the API and
 * the YAML file accept the same values), then saved in the database (settings
 * table, keys "net.<name>", one transaction), then applied live where that is
 * safe; the other keys wait for the next start (web_settings_overlay puts the
 * saved keys on top of the configuration file before any module starts).
 * What is live, and why:
 * Applying is the composition root's (env->apply, core_live.c), each module through its
 * own setter:
 *   tacs    live: the AMF reads its TAC list per procedure (amf_set_tacs).
 *   slices  live: new registrations and NG Setups use the new list, gNBs already
 *           set up get an AMF CONFIGURATION UPDATE (TS 38.413 8.7.3), the SMF
 *           checks a session's S-NSSAI against its copy (smf_set_slices).
 *   dnns    live when the UPF's UE prefix covers every pool (or no UPF runs): the
 *           SMF makes the new pools (smf_dnns_replace); a DNN with PDU sessions
 *           must stay with the same pool (409 otherwise: release them first, or
 *           PATCH with ?live=0 to change it at the next start). A pool outside
 *           the UPF's prefix needs a restart (the XDP program's UE prefix is set
 *           when it is loaded).
 *   plmn, amf_name  restart: the PLMN is in every 5G-GUTI and TAI handed out
 *           and in each gNB's NG Setup state (TS 23.003 2.10, TS 38.413 8.7.1);
 *           the AMF name is sent in the NG Setup Response.
 * Subscribers without their own slices or DNNs take the network's at once
 * (udm_set_defaults_from_conf from core_live.c: applied in memory to every subscriber
 * that takes them).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include <jansson.h>

#include "amf/amf.h"
#include "common/conf.h"
#include "common/log.h"
#include "db/db.h"
#include "smf/smf.h"
#include "web/sub_int.h"
#include "web/web_int.h"

enum skey { K_PLMN, K_AMF_NAME, K_TACS, K_SLICES, K_DNNS, K__N };
_Static_assert(WEB_LIVE_TACS == 1u << K_TACS && WEB_LIVE_SLICES == 1u << K_SLICES &&
	       WEB_LIVE_DNNS == 1u << K_DNNS, "web.h WEB_LIVE_* are the live keys' bits");

static const struct {
	const char *api;     /* JSON key */
	const char *db;      /* settings table key */
	const char *conf;    /* key path in the configuration (and its error messages) */
} keys[K__N] = {
	{ "plmn", "net.plmn", "plmn" },
	{ "amf_name", "net.amf_name", "amf.name" },
	{ "tacs", "net.tacs", "tac" },
	{ "slices", "net.slices", "slices" },
	{ "dnns", "net.dnns", "dnns" },
};
#define DB_PREFIX "net."
#define WRITABLE "plmn, amf_name, tacs, slices, dnns"


/* Every key of obj is in ok[] or ignore[] (NULL-terminated; ignore may be NULL). */
static int only_keys(json_t *obj, const char *path, const char *const *ok, const char *const *ignore,
		     struct web_field_err *e)
{
	const char *k;
	json_t *v;

	json_object_foreach(obj, k, v) {
		bool found = false;

		for (unsigned i = 0; ok[i] && !found; i++)
			found = !strcmp(k, ok[i]);
		for (unsigned i = 0; ignore && ignore[i] && !found; i++)
			found = !strcmp(k, ignore[i]);
		if (!found) {
			char f[64];

			snprintf(f, sizeof(f), "%s.%s", path, k);
			return web_field_bad(e, f, "unknown key");
		}
	}
	return 0;
}

/* ---- JSON of the API -> the configuration's document (values checked by conf) ---- */

static int conv_plmn(json_t *v, json_t **out, struct web_field_err *e)
{
	static const char *const ok[] = { "mcc", "mnc", NULL };
	json_t *mcc = json_object_get(v, "mcc"), *mnc = json_object_get(v, "mnc");

	if (!json_is_object(v))
		return web_field_bad(e, "plmn", "must be an object like {\"mcc\": \"001\", \"mnc\": \"01\"}");
	if (only_keys(v, "plmn", ok, NULL, e) < 0)
		return -EINVAL;
	if (!json_is_string(mcc))
		return web_field_bad(e, "plmn.mcc", "missing, or not a string of 3 digits");
	if (!json_is_string(mnc))
		return web_field_bad(e, "plmn.mnc", "missing, or not a string of 2 or 3 digits");
	*out = json_pack("{s:O, s:O}", "mcc", mcc, "mnc", mnc);
	return 0;
}

static int conv_amf_name(json_t *v, json_t **out, struct web_field_err *e)
{
	if (!json_is_string(v) || !json_string_length(v))
		return web_field_bad(e, "amf_name", "must be a non-empty string");
	/* The AMF keeps AMF_NAME_MAX - 1 characters (TS 38.413 9.3.3.21 allows 150). */
	if (json_string_length(v) >= AMF_NAME_MAX)
		return web_field_bad(e, "amf_name", "longer than %u characters", AMF_NAME_MAX - 1);
	*out = json_pack("{s:O}", "name", v);
	return 0;
}

static int conv_tacs(json_t *v, json_t **out, struct web_field_err *e)
{
	size_t i;
	json_t *t;

	if (!json_is_array(v) || !json_array_size(v))
		return web_field_bad(e, "tacs", "must be a non-empty list of TACs (integers 0..16777215)");
	/* TS 24.501 9.11.3.9: the AMF sends its TACs as one TAI list of at most 16. */
	if (json_array_size(v) > AMF_MAX_TACS)
		return web_field_bad(e, "tacs", "more than %u TACs", AMF_MAX_TACS);
	json_array_foreach(v, i, t) {
		if (!json_is_integer(t)) {
			char f[32];

			snprintf(f, sizeof(f), "tacs[%zu]", i);
			return web_field_bad(e, f, "must be an integer 0..16777215");
		}
	}
	*out = json_deep_copy(v);
	return 0;
}

static int conv_slices(json_t *v, json_t **out, struct web_field_err *e)
{
	static const char *const ok[] = { "sst", "sd", NULL };
	size_t i;
	json_t *s;
	char f[48];

	if (!json_is_array(v) || !json_array_size(v))
		return web_field_bad(e, "slices", "must be a non-empty list like [{\"sst\": 1, \"sd\": \"000001\"}]");
	if (json_array_size(v) > CONF_MAX_SLICES)
		return web_field_bad(e, "slices", "more than %u slices (TS 24.501 9.11.3.37)", CONF_MAX_SLICES);
	*out = json_array();
	json_array_foreach(v, i, s) {
		json_t *sst = json_object_get(s, "sst"), *sd = json_object_get(s, "sd"), *o;

		snprintf(f, sizeof(f), "slices[%zu]", i);
		if (!json_is_object(s))
			return web_field_bad(e, f, "must be an object {\"sst\": 1, \"sd\": \"000001\"}");
		if (only_keys(s, f, ok, NULL, e) < 0)
			return -EINVAL;
		snprintf(f, sizeof(f), "slices[%zu].sst", i);
		if (!json_is_integer(sst))
			return web_field_bad(e, f, "missing, or not an integer 0..255");
		snprintf(f, sizeof(f), "slices[%zu].sd", i);
		if (sd && !json_is_null(sd) && !json_is_string(sd))
			return web_field_bad(e, f, "must be 6 hex digits, or absent / null for no SD");
		/* TS 23.003 28.4.2: SD FFFFFF is the "no SD value" marker, not an SD. */
		if (json_is_string(sd) && !strcasecmp(json_string_value(sd), "ffffff"))
			return web_field_bad(e, f, "FFFFFF means \"no SD\" (TS 23.003 28.4.2): leave sd out");
		o = json_pack("{s:O}", "sst", sst);
		if (json_is_string(sd))
			json_object_set(o, "sd", sd);
		json_array_append_new(*out, o);
	}
	return 0;
}

static int conv_dnns(json_t *v, json_t **out, struct web_field_err *e)
{
	static const char *const ok[] = { "name", "pool", "dns", "mtu", NULL };
	static const char *const ro[] = { "used", "size", NULL };   /* GET's, read-only */
	size_t i, k;
	json_t *d, *x;
	char f[64];

	if (!json_is_array(v) || !json_array_size(v))
		return web_field_bad(e, "dnns", "must be a non-empty list like [{\"name\": \"internet\", \"pool\": \"10.45.0.0/16\"}]");
	if (json_array_size(v) > CONF_MAX_DNNS)
		return web_field_bad(e, "dnns", "more than %u DNNs", CONF_MAX_DNNS);
	*out = json_array();
	json_array_foreach(v, i, d) {
		json_t *name = json_object_get(d, "name"), *pool = json_object_get(d, "pool");
		json_t *dns = json_object_get(d, "dns"), *mtu = json_object_get(d, "mtu"), *o;

		snprintf(f, sizeof(f), "dnns[%zu]", i);
		if (!json_is_object(d))
			return web_field_bad(e, f, "must be an object {\"name\", \"pool\", \"dns\", \"mtu\"}");
		if (only_keys(d, f, ok, ro, e) < 0)
			return -EINVAL;
		snprintf(f, sizeof(f), "dnns[%zu].name", i);
		if (!json_is_string(name))
			return web_field_bad(e, f, "missing, or not a string");
		snprintf(f, sizeof(f), "dnns[%zu].pool", i);
		if (!json_is_string(pool))
			return web_field_bad(e, f, "missing, or not an IPv4 prefix string like \"10.45.0.0/16\"");
		o = json_pack("{s:O, s:O}", "name", name, "pool", pool);
		json_array_append_new(*out, o);
		if (dns) {
			snprintf(f, sizeof(f), "dnns[%zu].dns", i);
			if (!json_is_array(dns))
				return web_field_bad(e, f, "must be a list of IP addresses");
			json_array_foreach(dns, k, x) {
				if (!json_is_string(x)) {
					snprintf(f, sizeof(f), "dnns[%zu].dns[%zu]", i, k);
					return web_field_bad(e, f, "must be an IP address string");
				}
			}
			json_object_set(o, "dns", dns);
		}
		if (mtu) {
			snprintf(f, sizeof(f), "dnns[%zu].mtu", i);
			if (!json_is_integer(mtu))
				return web_field_bad(e, f, "must be an integer 576..9216");
			json_object_set(o, "mtu", mtu);
		}
	}
	return 0;
}

/* "tac[2]: duplicate value" from conf -> field "tacs[2]", message "duplicate value". */
static int conf_error(const char *err, struct web_field_err *e)
{
	const char *sep = strstr(err, ": ");
	size_t plen = sep ? (size_t)(sep - err) : 0;

	for (unsigned k = 0; sep && k < K__N; k++) {
		size_t cl = strlen(keys[k].conf);

		if (plen >= cl && !strncmp(err, keys[k].conf, cl) &&
		    (err[cl] == ':' || err[cl] == '[' || err[cl] == '.')) {
			char f[64];

			snprintf(f, sizeof(f), "%s%.*s", keys[k].api, (int)(plen - cl), err + cl);
			return web_field_bad(e, f, "%s", sep + 2);
		}
	}
	return web_field_bad(e, "body", "%s", err);
}

/* Across DNNs: every pool within the UPF's single UE prefix. (Pools that overlap are
 * refused by the configuration's own check, conf_schema.c chk_dnns.) */
static int check_pools(const struct conf *c, struct web_field_err *e)
{
	/* The UPF has one UE prefix covering every pool (core.c, upf_params.ue_pool_plen). */
	if (c->upf.n3_interface[0]) {
		uint32_t net;
		uint8_t plen;

		if (conf_ue_supernet(c, &net, &plen) < 0 || plen < 10)
			return web_field_bad(e, "dnns", "with a UPF (upf.n3_interface) every pool must lie within one /10 "
				    "or smaller prefix");
	}
	return 0;
}

/*
 * The keys of body (an object) on top of *out, checked: JSON shapes here, values by the
 * configuration's checks. *given gets a bit per key present. All or nothing.
 */
static int body_to_conf(json_t *body, struct conf *out, unsigned *given, struct web_field_err *e)
{
	static const char *const ro[] = { "pending_restart", "saved", NULL };   /* GET's */
	json_t *doc = json_object(), *v, *conv = NULL;
	struct conf *c = malloc(sizeof(*c));
	const char *k;
	char err[512], *text;
	int rc = 0;

	*given = 0;
	if (!c) {
		json_decref(doc);
		return web_field_bad(e, "body", "out of memory");
	}
	memcpy(c, out, sizeof(*c));
	json_object_foreach(body, k, v) {
		unsigned i, j;

		for (i = 0; i < K__N && strcmp(k, keys[i].api); i++)
			;
		for (j = 0; ro[j] && strcmp(k, ro[j]); j++)
			;
		if (i == K__N && ro[j])
			continue;
		if (i == K__N) {
			rc = web_field_bad(e, k, "unknown key (writable: " WRITABLE ")");
			break;
		}
		rc = i == K_PLMN ? conv_plmn(v, &conv, e) : i == K_AMF_NAME ? conv_amf_name(v, &conv, e) :
		     i == K_TACS ? conv_tacs(v, &conv, e) : i == K_SLICES ? conv_slices(v, &conv, e) :
		     conv_dnns(v, &conv, e);
		if (rc < 0)
			break;
		json_object_set_new(doc, i == K_AMF_NAME ? "amf" : i == K_TACS ? "tac" : keys[i].api, conv);
		conv = NULL;
		*given |= 1u << i;
	}
	json_decref(conv);
	if (rc == 0 && *given) {
		text = json_dumps(doc, JSON_ENSURE_ASCII);
		rc = text ? conf_overlay_string(c, NULL, text, strlen(text), err, sizeof(err)) : -ENOMEM;
		if (rc == -EINVAL)
			conf_error(err, e);
		else if (rc < 0)
			web_field_bad(e, "body", "%s", strerror(-rc));
		free(text);
	}
	if (rc == 0 && (*given & 1u << K_DNNS))
		rc = check_pools(c, e);
	if (rc == 0)
		memcpy(out, c, sizeof(*c));
	explicit_bzero(c, sizeof(*c));   /* suci keys */
	free(c);
	json_decref(doc);
	return rc;
}

/* ---- comparing and showing keys ---- */

static bool key_equal(const struct conf *a, const struct conf *b, enum skey k)
{
	unsigned i, j;

	switch (k) {
	case K_PLMN:
		return !strcmp(a->plmn.mcc, b->plmn.mcc) && !strcmp(a->plmn.mnc, b->plmn.mnc);
	case K_AMF_NAME:
		return !strcmp(a->amf.name, b->amf.name);
	case K_TACS:
		return a->n_tac == b->n_tac && !memcmp(a->tac, b->tac, a->n_tac * sizeof(a->tac[0]));
	case K_SLICES:
		if (a->n_slices != b->n_slices)
			return false;
		for (i = 0; i < a->n_slices; i++)
			if (a->slices[i].sst != b->slices[i].sst || a->slices[i].has_sd != b->slices[i].has_sd ||
			    (a->slices[i].has_sd && a->slices[i].sd != b->slices[i].sd))
				return false;
		return true;
	case K_DNNS:
		if (a->n_dnns != b->n_dnns)
			return false;
		for (i = 0; i < a->n_dnns; i++) {
			const struct conf_dnn *x = &a->dnns[i], *y = &b->dnns[i];

			if (strcmp(x->name, y->name) || strcmp(x->pool, y->pool) || x->mtu != y->mtu ||
			    x->n_dns != y->n_dns)
				return false;
			for (j = 0; j < x->n_dns; j++)
				if (strcmp(x->dns[j], y->dns[j]))
					return false;
		}
		return true;
	default:
		return true;
	}
}

static json_t *key_json(const struct conf *c, enum skey k)
{
	json_t *a;
	unsigned i, j;
	char sd[8];

	switch (k) {
	case K_PLMN:
		return json_pack("{s:s, s:s}", "mcc", c->plmn.mcc, "mnc", c->plmn.mnc);
	case K_AMF_NAME:
		return json_string(c->amf.name);
	case K_TACS:
		a = json_array();
		for (i = 0; i < c->n_tac; i++)
			json_array_append_new(a, json_integer(c->tac[i]));
		return a;
	case K_SLICES:
		a = json_array();
		for (i = 0; i < c->n_slices; i++) {
			json_t *s = json_pack("{s:i}", "sst", c->slices[i].sst);

			if (c->slices[i].has_sd) {
				snprintf(sd, sizeof(sd), "%06x", c->slices[i].sd & 0xffffffu);
				json_object_set_new(s, "sd", json_string(sd));
			}
			json_array_append_new(a, s);
		}
		return a;
	case K_DNNS:
		a = json_array();
		for (i = 0; i < c->n_dnns; i++) {
			json_t *dns = json_array();

			for (j = 0; j < c->dnns[i].n_dns; j++)
				json_array_append_new(dns, json_string(c->dnns[i].dns[j]));
			json_array_append_new(a, json_pack("{s:s, s:s, s:o, s:I}", "name", c->dnns[i].name, "pool",
							   c->dnns[i].pool, "dns", dns, "mtu",
							   (json_int_t)c->dnns[i].mtu));
		}
		return a;
	default:
		return json_null();
	}
}

static json_t *key_list(unsigned mask)
{
	json_t *a = json_array();

	for (unsigned k = 0; k < K__N; k++)
		if (mask & 1u << k)
			json_array_append_new(a, json_string(keys[k].api));
	return a;
}

/* ---- the saved keys ---- */

struct saved {
	struct conf *c;          /* the saved keys are put on top of it */
	unsigned saved, bad;     /* keys in the table; those that do not apply */
};

static int saved_one(const char *key, const char *value, int64_t updated, void *arg)
{
	struct saved *s = arg;
	json_error_t je;
	json_t *v, *body;
	struct web_field_err e;
	unsigned k, given;

	(void)updated;
	for (k = 0; k < K__N && strcmp(key, keys[k].db); k++)
		;
	if (k == K__N)
		return 0;   /* not ours (a later version's key): left alone */
	s->saved |= 1u << k;
	v = json_loads(value, JSON_DECODE_ANY, &je);
	body = v ? json_pack("{s:o}", keys[k].api, v) : NULL;
	if (!body || body_to_conf(body, s->c, &given, &e) < 0) {
		s->bad |= 1u << k;
		log_error("web", "settings: saved %s not applied: %s: %s (the configuration file's value "
			  "stays; PATCH or DELETE /api/v1/settings)", keys[k].api, body ? e.field : key,
			  body ? e.msg : je.text);
	}
	json_decref(body);
	return 0;
}

int web_settings_overlay(struct db *db, struct conf *conf, char *names, size_t namesz)
{
	struct saved s = { .c = conf };
	size_t n = 0;
	int rc, cnt = 0;

	if (namesz)
		names[0] = 0;
	rc = db_setting_walk(db, DB_PREFIX, saved_one, &s);
	if (rc < 0)
		return rc;
	for (unsigned k = 0; k < K__N; k++) {
		if (!(s.saved & ~s.bad & 1u << k))
			continue;
		cnt++;
		if (n < namesz)
			n += (size_t)snprintf(names + n, namesz - n, "%s%s", n ? ", " : "", keys[k].api);
	}
	return cnt;
}

/* What the next start would run with: the configuration as loaded, the saved keys on top. */
static int next_start(struct web *w, const struct web_settings_env *env, struct conf **out,
		      unsigned *saved)
{
	struct saved s = { .c = malloc(sizeof(struct conf)) };
	int rc;

	if (!s.c)
		return -ENOMEM;
	memcpy(s.c, env->base ? env->base : env->conf, sizeof(*s.c));
	rc = db_setting_walk(w->db, DB_PREFIX, saved_one, &s);
	if (rc < 0) {
		free(s.c);
		return rc;
	}
	*out = s.c;
	*saved = s.saved;
	return 0;
}

static json_t *settings_json(struct web *w, const struct web_settings_env *env)
{
	json_t *j = json_object(), *dnns, *d;
	struct conf *next = NULL;
	unsigned saved = 0, pending = 0;
	size_t i;

	for (unsigned k = 0; k < K__N; k++)
		json_object_set_new(j, keys[k].api, key_json(env->conf, k));
	dnns = json_object_get(j, "dnns");
	json_array_foreach(dnns, i, d) {
		uint32_t used, size;

		if (env->smf && smf_pool_usage(env->smf, env->conf->dnns[i].name, &used, &size) == 0) {
			json_object_set_new(d, "used", json_integer(used));
			json_object_set_new(d, "size", json_integer(size));
		} else {
			json_object_set_new(d, "used", json_null());
			json_object_set_new(d, "size", json_null());
		}
	}
	if (next_start(w, env, &next, &saved) == 0) {
		for (unsigned k = 0; k < K__N; k++)
			if (!key_equal(next, env->conf, k))
				pending |= 1u << k;
		explicit_bzero(next, sizeof(*next));   /* suci keys */
		free(next);
	}
	json_object_set_new(j, "pending_restart", key_list(pending));
	json_object_set_new(j, "saved", key_list(saved));
	return j;
}

/* ---- handlers ---- */

static int h_get(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	(void)req;
	web_resp_json(resp, 200, settings_json(w, arg));
	return 0;
}

/* The given keys of c, one transaction. */
static int save(struct db *db, const struct conf *c, unsigned given)
{
	int rc = db_tx_begin(db);

	for (unsigned k = 0; rc == 0 && k < K__N; k++) {
		char *text;

		if (!(given & 1u << k))
			continue;
		json_t *v = key_json(c, k);
		text = json_dumps(v, JSON_COMPACT | JSON_ENCODE_ANY);
		json_decref(v);
		rc = text ? db_setting_put(db, keys[k].db, text) : -ENOMEM;
		free(text);
	}
	if (rc == 0)
		return db_tx_commit(db);
	db_tx_rollback(db);
	return rc;
}

/* Is every pool of c inside the running UPF's UE prefix (or is there no UPF)? */
static bool pools_covered(const struct web_settings_env *env, const struct conf *c)
{
	uint32_t net, mask;
	uint8_t plen;

	if (!env->ue_plen)
		return true;
	if (conf_ue_supernet(c, &net, &plen) < 0)
		return false;
	mask = htonl(env->ue_plen >= 32 ? UINT32_MAX : ~(UINT32_MAX >> env->ue_plen));
	return plen >= env->ue_plen && (net & mask) == (env->ue_net & mask);
}

static void audit(struct web *w, const struct web_req *req, unsigned applied, unsigned restart)
{
	char det[160];
	size_t n = 0;

	for (unsigned k = 0; k < K__N; k++)
		if ((applied | restart) & 1u << k)
			n += (size_t)snprintf(det + n, sizeof(det) - n, "%s%s=%s", n ? " " : "", keys[k].api,
					      applied & 1u << k ? "applied" : "restart");
	if (w->db && db_audit_add(w->db, req->who[0] ? req->who : "?", "settings", det) < 0)
		log_error("web", "audit log write failed for settings");
}

/* ?live=0 (or false) saves a change for the next start instead of applying
 * it: *defer. -EINVAL with a 400 in resp for any other value than 0, 1,
 * false, true. */
static int patch_defer_query(const struct web_req *req, bool *defer, struct web_resp *resp)
{
	char q[8];
	int rc = web_req_query(req, "live", q, sizeof(q));

	if (rc == -ENOENT)
		return 0;
	if (rc < 0 || (strcmp(q, "0") && strcmp(q, "1") && strcmp(q, "false") && strcmp(q, "true"))) {
		web_resp_error(resp, 400, "live", "must be 0 or 1");
		return -EINVAL;
	}
	*defer = !strcmp(q, "0") || !strcmp(q, "false");
	return 0;
}

/* Each given key (K_ bits) goes to one of same (in effect already), restart
 * (deferred, or a key that only a restart can change) and live. */
static void patch_sort_keys(const struct web_settings_env *env, const struct conf *c, unsigned given,
			    bool defer, unsigned *same, unsigned *live, unsigned *restart)
{
	for (unsigned k = 0; k < K__N; k++) {
		if (!(given & 1u << k))
			continue;
		if (key_equal(c, env->conf, k))
			*same |= 1u << k;          /* in effect already: saved, nothing to apply */
		else if (defer || k == K_PLMN || k == K_AMF_NAME || (k == K_DNNS && !pools_covered(env, c)))
			*restart |= 1u << k;
		else
			*live |= 1u << k;
	}
}

/* Conflicts before anything changes: a DNN with sessions keeps its pool.
 * 0, or negative with a 409 / 400 in resp. */
static int patch_dnns_conflict(const struct web_settings_env *env, const struct conf *c, unsigned live,
			       struct web_resp *resp)
{
	char why[256];
	int rc;

	if (!(live & 1u << K_DNNS) || !env->smf)
		return 0;
	rc = smf_dnns_check(env->smf, c->dnns, c->n_dnns, why, sizeof(why));
	if (rc < 0)
		web_resp_error(resp, rc == -EBUSY ? 409 : 400, "dnns",
			       "%s%s", why, rc == -EBUSY ? ": release those sessions first, or PATCH with "
			       "?live=0 to change it at the next start" : "");
	return rc < 0 ? rc : 0;
}

static int h_patch(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct web_settings_env *env = arg;
	unsigned given = 0, live = 0, restart = 0, same = 0, done;
	struct conf *c = NULL;
	json_error_t je;
	struct web_field_err e;
	bool defer = false;
	size_t len;
	const uint8_t *b = web_req_body(req, &len);
	json_t *body = json_loadb((const char *)b, len, JSON_REJECT_DUPLICATES, &je);

	if (!body) {
		web_resp_error(resp, 400, "body", "invalid JSON at line %d column %d: %s", je.line, je.column, je.text);
		return 0;
	}
	if (patch_defer_query(req, &defer, resp) < 0)
		goto out;
	if (!json_is_object(body)) {
		web_resp_error(resp, 400, "body", "must be a JSON object with any of " WRITABLE);
		goto out;
	}
	c = malloc(sizeof(*c));
	if (!c)
		goto out;
	memcpy(c, env->conf, sizeof(*c));
	if (body_to_conf(body, c, &given, &e) < 0) {
		web_resp_error(resp, 400, e.field, "%s", e.msg);
		goto out;
	}
	if (!given) {
		web_resp_error(resp, 400, "body", "nothing to change: give any of " WRITABLE);
		goto out;
	}
	patch_sort_keys(env, c, given, defer, &same, &live, &restart);
	if (patch_dnns_conflict(env, c, live, resp) < 0)
		goto out;
	if (save(w->db, c, given) < 0) {
		web_resp_error(resp, 500, NULL, "the settings could not be saved: nothing changed");
		goto out;
	}
	/* The composition root applies (core_live.c); the K_ bits are the WEB_LIVE_ ones. */
	done = env->apply ? env->apply(env->apply_arg, c, live) & live : 0;
	restart |= live & ~done;
	audit(w, req, same | done, restart);
	web_resp_json(resp, 200, json_pack("{s:o, s:o, s:o}", "applied", key_list(same | done),
					   "restart_required", key_list(restart), "settings", settings_json(w, env)));
out:
	if (c) {
		explicit_bzero(c, sizeof(*c));
		free(c);
	}
	json_decref(body);
	return 0;
}

static int del_one(const char *key, const char *value, int64_t updated, void *arg)
{
	unsigned *mask = arg;

	(void)value;
	(void)updated;
	for (unsigned k = 0; k < K__N; k++)
		if (!strcmp(key, keys[k].db))
			*mask |= 1u << k;
	return 0;
}

/* Drop the saved keys: the next start runs with the configuration file's values. */
static int h_delete(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	unsigned mask = 0;
	int rc;

	(void)req;
	rc = db_setting_walk(w->db, DB_PREFIX, del_one, &mask);
	if (rc >= 0)
		rc = db_tx_begin(w->db);
	for (unsigned k = 0; rc >= 0 && k < K__N; k++)
		if (mask & 1u << k)
			rc = db_setting_delete(w->db, keys[k].db);
	if (rc >= 0)
		rc = db_tx_commit(w->db);
	else
		db_tx_rollback(w->db);
	if (rc < 0) {
		web_resp_error(resp, 500, NULL, "the saved settings could not be deleted: %s", strerror(-rc));
		return 0;
	}
	web_resp_json(resp, 200, json_pack("{s:o, s:o}", "deleted", key_list(mask), "settings",
					   settings_json(w, arg)));
	return 0;
}

int web_settings_reload(struct web *w, struct web_settings_env *env, unsigned *applied,
			unsigned *restart)
{
	unsigned saved = 0, same = 0, live = 0, later = 0;
	struct conf *c = NULL;
	char why[256];
	int rc;

	*applied = *restart = 0;
	if (!w || !env || !env->conf)
		return -EINVAL;
	if ((rc = next_start(w, env, &c, &saved)) < 0)
		return rc;
	patch_sort_keys(env, c, saved, false, &same, &live, &later);
	/* A DNN with sessions here keeps its pool until the next start (as a PATCH here would
	 * answer 409). */
	if ((live & 1u << K_DNNS) && env->smf &&
	    smf_dnns_check(env->smf, c->dnns, c->n_dnns, why, sizeof(why)) < 0) {
		live &= ~(1u << K_DNNS);
		later |= 1u << K_DNNS;
		log_warn("web", "settings: dnns from another node wait for the next start here: %s", why);
	}
	unsigned done = live && env->apply ? env->apply(env->apply_arg, c, live) & live : 0;
	*applied = done;
	*restart = later | (live & ~done);
	explicit_bzero(c, sizeof(*c));
	free(c);
	return 0;
}

int web_attach_settings(struct web *web, struct web_settings_env *env)
{
	int rc;

	if (!web || !env || !env->conf || !web->db)
		return -EINVAL;
	if ((rc = web_route_add(web, WEB_GET, "/api/v1/settings", WEB_ROLE_READ, h_get, env)) < 0 ||
	    (rc = web_route_add(web, WEB_PATCH, "/api/v1/settings", WEB_ROLE_ADMIN, h_patch, env)) < 0 ||
	    (rc = web_route_add(web, WEB_DELETE, "/api/v1/settings", WEB_ROLE_ADMIN, h_delete, env)) < 0)
		return rc;
	return 0;
}
