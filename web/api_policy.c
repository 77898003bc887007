/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * /api/v1/policies: policy profiles (db/db.h struct db_policy) — list, get, create, full
 * replace, delete (refused while subscribers use it). A change is written to the database
 * and then re-resolved into the UDM's memory for every subscriber of the policy
 * (udm_policy_update, in memory), so the next registration or PDU session uses it; attached
 * UEs get a changed UE-AMBR and their active sessions a changed session-AMBR through the
 * composition root (web_set_change_ops; TS 23.502 4.3.3.2). Writes are audited by the router like every other change.
 *
 * JSON (OpenAPI schema "Policy"): name, dnns, slices [{sst, sd}], ambr_ul, ambr_dl
 * (session-AMBR, bit/s), ue_ambr_ul, ue_ambr_dl (UE-AMBR, bit/s), default_5qi (non-GBR), arp — 0 / [] / null meaning "the network default"; read-only: subscribers
 * (how many use it), created, updated.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "common/log.h"
#include "udm/udm.h"
#include "web/sub_int.h"
#include "web/web_int.h"

const struct db_policy *web_pol_cache_get(struct web_pol_cache *c, struct db *db, const char *name)
{
	if (!name[0])
		return NULL;
	if (c->have && strcmp(c->p.name, name) == 0)
		return &c->p;
	c->have = db_policy_get(db, name, &c->p) == 0;
	return c->have ? &c->p : NULL;
}

json_t *web_sub_to_json_eff(const struct udm *udm, struct db *db, struct web_pol_cache *c,
			    const struct db_subscriber *s, bool secrets)
{
	json_t *j = web_sub_to_json(s, secrets);

	if (j && json_object_set_new(j, "effective",
				     web_sub_effective_json(udm, s, web_pol_cache_get(c, db, s->policy))) < 0) {
		json_decref(j);
		return NULL;
	}
	return j;
}

static json_t *pol_to_json(const struct db_policy *p, int64_t users)
{
	json_t *dn = json_array();
	unsigned i;

	for (i = 0; dn && i < p->n_dnns; i++)
		json_array_append_new(dn, json_string(p->dnns[i]));
	return json_pack("{s:s, s:o?, s:o?, s:I, s:I, s:I, s:I, s:i, s:i, s:I, s:I, s:I}", "name", p->name,
			 "dnns", dn, "slices", web_slices_to_json(p->slices, p->n_slices),
			 "ambr_ul", (json_int_t)p->ambr_ul, "ambr_dl", (json_int_t)p->ambr_dl,
			 "ue_ambr_ul", (json_int_t)p->ue_ambr_ul, "ue_ambr_dl", (json_int_t)p->ue_ambr_dl,
			 "default_5qi", p->default_5qi, "arp", p->arp, "subscribers",
			 (json_int_t)(users < 0 ? 0 : users), "created", (json_int_t)p->created,
			 "updated", (json_int_t)p->updated);
}

/* An integer lo..hi, or null (= 0, the network default). */
static int get_num(json_t *v, const char *f, uint64_t hi, uint64_t *out, struct web_field_err *e)
{
	if (json_is_null(v)) {
		*out = 0;
		return 0;
	}
	if (!json_is_integer(v) || json_integer_value(v) < 0 || (uint64_t)json_integer_value(v) > hi)
		return web_field_bad(e, f, "%s must be an integer 0..%llu (0 or null: the network default)", f,
		    (unsigned long long)hi);
	*out = (uint64_t)json_integer_value(v);
	return 0;
}

/* The whole policy from j (absent fields: network default). path_name: the name in the
 * URL for PUT (the body's must match or be absent), NULL for POST (required). */
static int pol_from_json(json_t *j, const char *path_name, struct db_policy *p,
			 struct web_field_err *e)
{
	const char *key;
	json_t *v;
	uint64_t u;

	memset(p, 0, sizeof(*p));
	if (!json_is_object(j))
		return web_field_bad(e, "body", "body must be a JSON object");
	json_object_foreach(j, key, v) {
		if (!strcmp(key, "name")) {
			if (!json_is_string(v) || !db_policy_name_valid(json_string_value(v)))
				return web_field_bad(e, "name", "name must be 1 to %d characters of A-Z a-z 0-9 . _ -",
				    DB_POLICY_NAME_MAX);
			if (path_name && strcmp(json_string_value(v), path_name))
				return web_field_bad(e, "name", "name cannot be changed (it is the resource's name: %s)",
				    path_name);
			snprintf(p->name, sizeof(p->name), "%s", json_string_value(v));
		} else if (!strcmp(key, "dnns")) {
			if (!json_is_null(v) && web_dnns_from_json(v, p->dnns, &p->n_dnns, e) < 0)
				return -EINVAL;
		} else if (!strcmp(key, "slices")) {
			if (!json_is_null(v) && web_slices_from_json(v, p->slices, &p->n_slices, e) < 0)
				return -EINVAL;
		} else if (!strcmp(key, "ambr_ul") || !strcmp(key, "ambr_dl")) {
			if (get_num(v, key, DB_AMBR_MAX, key[5] == 'u' ? &p->ambr_ul : &p->ambr_dl, e) < 0)
				return -EINVAL;
		} else if (!strcmp(key, "ue_ambr_ul") || !strcmp(key, "ue_ambr_dl")) {
			if (get_num(v, key, DB_AMBR_MAX, key[8] == 'u' ? &p->ue_ambr_ul : &p->ue_ambr_dl,
				    e) < 0)
				return -EINVAL;
		} else if (!strcmp(key, "default_5qi")) {
			if (get_num(v, key, 255, &u, e) < 0)
				return -EINVAL;
			p->default_5qi = (uint8_t)u;
		} else if (!strcmp(key, "arp")) {
			/* TS 23.501 5.7.2.2: ARP priority level 1..15. */
			if (get_num(v, key, 15, &u, e) < 0)
				return -EINVAL;
			p->arp = (uint8_t)u;
		} else if (!strcmp(key, "subscribers") || !strcmp(key, "created") ||
			   !strcmp(key, "updated")) {
			continue;   /* read-only: a GET body sent back is accepted */
		} else {
			return web_field_bad(e, key, "unknown field %s", key);
		}
	}
	if (path_name && !p->name[0])
		snprintf(p->name, sizeof(p->name), "%s", path_name);
	if (!p->name[0])
		return web_field_bad(e, "name", "name is required");
	/* The rest of the rules (DNN syntax, duplicates) are db/'s. */
	{
		const char *field = NULL;

		if (db_policy_check(p, &field, e->msg, sizeof(e->msg)) < 0) {
			snprintf(e->field, sizeof(e->field), "%s", field ? field : "body");
			return -EINVAL;
		}
	}
	return 0;
}

/* How many subscribers use it: the UDM's per-policy count when it holds the policy (every
 * subscriber with a policy is in the store, or its write was undone), O(1); the database's
 * count(*) over the partial index otherwise (O(users): 70-90 ms at 10^6 on the control thread). */
static int64_t policy_users(struct web *w, const char *name)
{
	int n = w->udm ? udm_policy_users(w->udm, name) : -ENOENT;

	return n >= 0 ? n : db_policy_users(w->db, name);
}

/* The policy named in the path; 404 (field "name") when there is none. 0, 1 (resp
 * filled) or -errno. */
static int path_policy(struct web *w, const struct web_req *req, struct web_resp *resp,
		       struct db_policy *p)
{
	const char *name = web_req_param(req, 0);
	int rc = db_policy_get(w->db, name, p);

	if (rc == -ENOENT) {
		web_resp_error(resp, 404, "name", "no policy %.40s", name);
		return 1;
	}
	return rc;
}

static int reply(struct web *w, struct web_resp *resp, int status, const char *name)
{
	struct db_policy p;
	int rc = db_policy_get(w->db, name, &p);

	if (rc < 0)
		return rc;
	web_resp_json(resp, status, pol_to_json(&p, policy_users(w, name)));
	return 0;
}

struct list_ctx {
	struct web *w;
	json_t *items;
};

static int list_one(const struct db_policy *p, void *arg)
{
	struct list_ctx *l = arg;

	return json_array_append_new(l->items, pol_to_json(p, policy_users(l->w, p->name))) == 0
		       ? 0 : -ENOMEM;
}

static int h_list(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct list_ctx l = { .w = w, .items = json_array() };
	int rc;

	(void)req;
	(void)arg;
	if (!l.items)
		return -ENOMEM;
	rc = db_policy_walk(w->db, list_one, &l);
	if (rc < 0) {
		json_decref(l.items);
		return rc;
	}
	web_resp_json(resp, 200, json_pack("{s:o}", "items", l.items));
	return 0;
}

static int h_get(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct db_policy p;
	int rc;

	(void)arg;
	rc = path_policy(w, req, resp, &p);
	if (rc)
		return rc < 0 ? rc : 0;
	web_resp_json(resp, 200, pol_to_json(&p, policy_users(w, p.name)));
	return 0;
}

static int h_create(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct db_policy p;
	struct web_field_err e;
	json_t *j = web_body_json(req, resp);
	int rc;

	(void)arg;
	if (!j)
		return 0;
	rc = pol_from_json(j, NULL, &p, &e);
	json_decref(j);
	if (rc < 0) {
		web_resp_error(resp, 400, e.field, "%s", e.msg);
		return 0;
	}
	rc = db_policy_put(w->db, &p, DB_PUT_CREATE);
	if (rc == -EEXIST) {
		web_resp_error(resp, 409, "name", "policy %s already exists", p.name);
		return 0;
	}
	if (rc < 0)
		return rc;
	log_info("web", "policy %s created", p.name);
	return reply(w, resp, 201, p.name);
}

static int h_replace(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct db_policy p, old;
	struct web_field_err e;
	json_t *j;
	int rc;

	(void)arg;
	rc = path_policy(w, req, resp, &old);
	if (rc)
		return rc < 0 ? rc : 0;
	j = web_body_json(req, resp);
	if (!j)
		return 0;
	rc = pol_from_json(j, old.name, &p, &e);
	json_decref(j);
	if (rc < 0) {
		web_resp_error(resp, 400, e.field, "%s", e.msg);
		return 0;
	}
	rc = db_policy_put(w->db, &p, DB_PUT_REPLACE);
	if (rc == -ENOENT) {
		web_resp_error(resp, 404, "name", "no policy %s", p.name);
		return 0;
	}
	if (rc < 0)
		return rc;
	/* At once for the next registration / session of each of its subscribers (in memory). */
	if (w->udm) {
		rc = udm_policy_update(w->udm, &p);
		if (rc < 0)
			log_error("web", "policy %s stored but not re-resolved in the UDM: %s", p.name,
				  strerror(-rc));
	}
	log_info("web", "policy %s replaced (%d subscribers re-resolved)", p.name, rc);
	web_changed_policy(w, p.name);   /* attached UEs' AMBRs follow (core.c) */
	return reply(w, resp, 200, p.name);
}

static int h_delete(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	const char *name = web_req_param(req, 0);
	int64_t users;
	int rc;

	(void)arg;
	rc = db_policy_delete(w->db, name);
	if (rc == -ENOENT) {
		web_resp_error(resp, 404, "name", "no policy %.40s", name);
		return 0;
	}
	if (rc == -EBUSY) {
		users = policy_users(w, name);
		web_resp_error(resp, 409, "name", "policy %s is used by %lld subscriber%s: assign "
			       "them another policy (or none) first", name, (long long)users,
			       users == 1 ? "" : "s");
		return 0;
	}
	if (rc < 0)
		return rc;
	if (w->udm) /* frees its slot in the store's policy table (no subscriber uses it) */
		udm_policy_delete(w->udm, name);
	log_info("web", "policy %s deleted", name);
	web_resp_text(resp, 204, NULL, NULL, 0);
	return 0;
}

int web_api_policy_routes(struct web *w)
{
	static const struct web_route_def r[] = {
		{ WEB_GET, "/api/v1/policies", WEB_ROLE_READ, h_list },
		{ WEB_POST, "/api/v1/policies", WEB_ROLE_OPERATOR, h_create },
		{ WEB_GET, "/api/v1/policies/{name}", WEB_ROLE_READ, h_get },
		{ WEB_PUT, "/api/v1/policies/{name}", WEB_ROLE_OPERATOR, h_replace },
		{ WEB_DELETE, "/api/v1/policies/{name}", WEB_ROLE_OPERATOR, h_delete },
	};

	if (!w->db)
		return -EINVAL;
	return web_routes_add(w, r, sizeof(r) / sizeof(r[0]), NULL);
}
