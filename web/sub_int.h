/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* web: subscriber conversions and the JSON request helpers (sub_json.c), used by api_subs.c,
 * api_policy.c and api_settings.c. */
#ifndef SOLOCORE_WEB_SUB_INT_H
#define SOLOCORE_WEB_SUB_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "db/db.h"

/* Which field was wrong and why, for {"error", "field"}. */
struct web_field_err {
	char field[64];
	char msg[256];
};

/* Fill e (field, printf message) and return -EINVAL: `return web_field_bad(e, ...);`. */
__attribute__((format(printf, 3, 4)))
int web_field_bad(struct web_field_err *e, const char *field, const char *fmt, ...);
/* The request body as JSON (duplicate keys refused), or NULL with a 400 naming the line
 * and column in resp. */
struct web_req;
struct web_resp;
json_t *web_body_json(const struct web_req *req, struct web_resp *resp);
/* A default 5QI: 0 (the network default) or a non-GBR 5QI (DB_GBR_5QI_WHY). */
int web_5qi_from_json(json_t *v, const char *f, uint8_t *out, struct web_field_err *e);

bool web_imsi_digits(const char *s, size_t min, size_t max);
/* "001010000000001" or "imsi-001010000000001" -> "imsi-...". 0 or -EINVAL. */
int web_supi_from_param(const char *p, char supi[DB_SUPI_MAX]);
/* New reference, or NULL. K and OPc/OP only when secrets. */
json_t *web_sub_to_json(const struct db_subscriber *s, bool secrets);
/* Apply the fields of j onto s. create: imsi, k and opc|op are required.
 * 0 or -EINVAL with e filled. */
int web_sub_from_json(json_t *j, struct db_subscriber *s, bool create, struct web_field_err *e);
/* Read-only "effective" object of a subscriber: udm_resolve() of s with its policy p
 * (NULL: none) against udm's network defaults (udm may be NULL). New reference or NULL. */
struct udm;
json_t *web_sub_effective_json(const struct udm *udm, const struct db_subscriber *s,
			       const struct db_policy *p);
/* Slice and DNN lists (subscribers and policies): [{"sst", "sd"}] and ["dnn"]. */
json_t *web_slices_to_json(const struct db_snssai *sl, unsigned n);
int web_slices_from_json(json_t *v, struct db_snssai *sl, uint8_t *n, struct web_field_err *e);
int web_dnns_from_json(json_t *v, char (*dnns)[DB_DNN_MAX + 1], uint8_t *n, struct web_field_err *e);
/* The subscriber as a db/SIMS.md table. Length or -ENOSPC. */
int web_sub_to_toml(const struct db_subscriber *s, bool secrets, char *out, size_t outsz);

/* api_policy.c: the subscriber's policy row for JSON and the UDM, cached by name (a page of
 * subscribers mostly shares a few). get returns NULL for "" or an unknown name. */
struct web_pol_cache {
	struct db_policy p;
	bool have;
};
const struct db_policy *web_pol_cache_get(struct web_pol_cache *c, struct db *db, const char *name);
/* The subscriber JSON with "effective" (web_sub_to_json + web_sub_effective_json). */
json_t *web_sub_to_json_eff(const struct udm *udm, struct db *db, struct web_pol_cache *c,
			    const struct db_subscriber *s, bool secrets);

#endif
