/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* web: subscriber conversions (sub_json.c), used by api_subs.c. */
#ifndef SOLOCORE_WEB_SUB_INT_H
#define SOLOCORE_WEB_SUB_INT_H

#include <stdbool.h>
#include <stddef.h>

#include <jansson.h>

#include "db/db.h"

/* Which field was wrong and why, for {"error", "field"}. */
struct web_field_err {
	char field[32];
	char msg[160];
};

bool web_imsi_digits(const char *s, size_t min, size_t max);
/* "001010000000001" or "imsi-001010000000001" -> "imsi-...". 0 or -EINVAL. */
int web_supi_from_param(const char *p, char supi[DB_SUPI_MAX]);
/* New reference, or NULL. K and OPc/OP only when secrets. */
json_t *web_sub_to_json(const struct db_subscriber *s, bool secrets);
/* Apply the fields of j onto s. create: imsi, k and opc|op are required.
 * 0 or -EINVAL with e filled. */
int web_sub_from_json(json_t *j, struct db_subscriber *s, bool create, struct web_field_err *e);
/* The subscriber as a db/SIMS.md table. Length or -ENOSPC. */
int web_sub_to_toml(const struct db_subscriber *s, bool secrets, char *out, size_t outsz);

#endif
