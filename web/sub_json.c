/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Subscriber <-> JSON and TOML text (the UDM copy is udm_add_db(), udm/udm.h).
 * JSON fields (OpenAPI schema "Subscriber"): imsi, k, opc | op (write-only),
 * amf ("8000"), sqn, slices [{sst, sd}], dnns, ambr_ul, ambr_dl (session-AMBR, bit/s),
 * ue_ambr_ul, ue_ambr_dl (UE-AMBR, bit/s), default_5qi (non-GBR), arp, policy (a policy profile's name or null); read-only: supi, created,
 * updated, effective (what the UDM uses: own value > policy > network default).
 * Policy profiles' JSON (schema "Policy") is in api_policy.c; the slice and DNN
 * list helpers here serve both.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "common/hex.h"
#include "common/qos.h"
#include "db/db.h"
#include "udm/udm.h"
#include "web/sub_int.h"
#include "web/web_int.h"

/* K / OPc as SIM files and the CLI print them: upper case. */
static void hex_str(const uint8_t *b, size_t n, char *out, size_t outsz)
{
	hex_encode(out, outsz, b, n, true);
}

static int hex_parse(const char *s, uint8_t *out, size_t n)
{
	return hex_decode_exact(out, n, s, strlen(s));
}

bool web_imsi_digits(const char *s, size_t min, size_t max)
{
	size_t n = strlen(s), i;

	if (n < min || n > max)
		return false;
	for (i = 0; i < n; i++)
		if (s[i] < '0' || s[i] > '9')
			return false;
	return true;
}

int web_supi_from_param(const char *p, char supi[DB_SUPI_MAX])
{
	if (strncmp(p, "imsi-", 5) == 0)
		p += 5;
	if (!web_imsi_digits(p, DB_IMSI_MIN_DIGITS, DB_IMSI_MAX_DIGITS))
		return -EINVAL;
	snprintf(supi, DB_SUPI_MAX, "imsi-%s", p);
	return 0;
}

json_t *web_slices_to_json(const struct db_snssai *sl, unsigned n)
{
	json_t *a = json_array();
	char sd[7];
	unsigned i;

	for (i = 0; a && i < n; i++) {
		json_t *x = json_pack("{s:i}", "sst", sl[i].sst);

		if (x && sl[i].sd != DB_SD_NONE) {
			snprintf(sd, sizeof(sd), "%06X", sl[i].sd);
			json_object_set_new(x, "sd", json_string(sd));
		}
		if (json_array_append_new(a, x) < 0) {
			json_decref(a);
			return NULL;
		}
	}
	return a;
}

json_t *web_sub_to_json(const struct db_subscriber *s, bool secrets)
{
	json_t *j = json_object(), *sl = web_slices_to_json(s->slices, s->n_slices);
	json_t *dn = json_array();
	char hex[33], amf[5];
	unsigned i;

	if (!j || !sl || !dn) {
		json_decref(j);
		json_decref(sl);
		json_decref(dn);
		return NULL;
	}
	for (i = 0; i < s->n_dnns; i++)
		json_array_append_new(dn, json_string(s->dnns[i]));
	snprintf(amf, sizeof(amf), "%04X", s->amf);
	json_object_set_new(j, "supi", json_string(s->supi));
	json_object_set_new(j, "imsi", json_string(s->supi + 5));
	json_object_set_new(j, "amf", json_string(amf));
	json_object_set_new(j, "sqn", json_integer((json_int_t)s->sqn));
	json_object_set_new(j, "slices", sl);
	json_object_set_new(j, "dnns", dn);
	json_object_set_new(j, "ambr_ul", json_integer((json_int_t)s->ambr_ul));
	json_object_set_new(j, "ambr_dl", json_integer((json_int_t)s->ambr_dl));
	json_object_set_new(j, "ue_ambr_ul", json_integer((json_int_t)s->ue_ambr_ul));
	json_object_set_new(j, "ue_ambr_dl", json_integer((json_int_t)s->ue_ambr_dl));
	json_object_set_new(j, "default_5qi", json_integer(s->default_5qi));
	json_object_set_new(j, "arp", json_integer(s->arp));
	json_object_set_new(j, "policy", s->policy[0] ? json_string(s->policy) : json_null());
	json_object_set_new(j, "created", json_integer(s->created));
	json_object_set_new(j, "updated", json_integer(s->updated));
	if (secrets) {
		hex_str(s->k, 16, hex, sizeof(hex));
		json_object_set_new(j, "k", json_string(hex));
		hex_str(s->opc, 16, hex, sizeof(hex));
		json_object_set_new(j, s->op_is_opc ? "opc" : "op", json_string(hex));
		explicit_bzero(hex, sizeof(hex));
	}
	return j;
}

json_t *web_sub_effective_json(const struct udm *udm, const struct db_subscriber *s,
			       const struct db_policy *p)
{
	struct udm_sub_data d;
	struct db_snssai sl[UDM_MAX_SLICES];
	json_t *dn = json_array(), *j;
	uint64_t ue_ul, ue_dl;
	unsigned i;

	udm_resolve(udm, s, p, &d);
	udm_resolve_ue_ambr(udm, s, p, &ue_ul, &ue_dl);
	for (i = 0; i < d.n_slices; i++) {
		sl[i].sst = d.slices[i].sst;
		sl[i].sd = d.slices[i].sd;
	}
	for (i = 0; dn && i < d.n_dnns; i++)
		json_array_append_new(dn, json_string(d.dnns[i] ? d.dnns[i] : ""));
	j = json_pack("{s:o?, s:o?, s:I, s:I, s:I, s:I, s:i, s:i}", "dnns", dn, "slices",
		      web_slices_to_json(sl, d.n_slices), "ambr_ul", (json_int_t)d.ambr_ul_bps,
		      "ambr_dl", (json_int_t)d.ambr_dl_bps, "ue_ambr_ul", (json_int_t)ue_ul,
		      "ue_ambr_dl", (json_int_t)ue_dl, "default_5qi", d.qi5, "arp", d.arp);
	return j;
}

int web_field_bad(struct web_field_err *e, const char *field, const char *fmt, ...)
{
	va_list ap;

	snprintf(e->field, sizeof(e->field), "%s", field);
	va_start(ap, fmt);
	vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
	va_end(ap);
	return -EINVAL;
}

json_t *web_body_json(const struct web_req *req, struct web_resp *resp)
{
	json_error_t je;
	size_t len;
	const uint8_t *b = web_req_body(req, &len);
	json_t *j = json_loadb((const char *)b, len, JSON_REJECT_DUPLICATES, &je);

	if (!j)
		web_resp_error(resp, 400, "body", "invalid JSON at line %d column %d: %s", je.line,
			       je.column, je.text);
	return j;
}

int web_5qi_from_json(json_t *v, const char *f, uint8_t *out, struct web_field_err *e)
{
	json_int_t x = json_is_integer(v) ? json_integer_value(v) : -1;

	if (x < 0 || x > 255)
		return web_field_bad(e, f, "%s must be an integer 0..255 (0: the network default)", f);
	if (qos_5qi_is_gbr((unsigned)x))
		return web_field_bad(e, f, "%s", DB_GBR_5QI_WHY);
	*out = (uint8_t)x;
	return 0;
}

static int get_uint(json_t *v, const char *f, uint64_t min, uint64_t max, uint64_t *out,
		    struct web_field_err *e)
{
	json_int_t x;

	if (!json_is_integer(v))
		return web_field_bad(e, f, "%s must be an integer", f);
	x = json_integer_value(v);
	if (x < 0 || (uint64_t)x < min || (uint64_t)x > max)
		return web_field_bad(e, f, "%s must be %llu..%llu", f, (unsigned long long)min, (unsigned long long)max);
	*out = (uint64_t)x;
	return 0;
}

int web_slices_from_json(json_t *v, struct db_snssai *sl, uint8_t *n, struct web_field_err *e)
{
	size_t i;
	json_t *x;

	if (!json_is_array(v) || json_array_size(v) > DB_MAX_SLICES)
		return web_field_bad(e, "slices", "slices must be an array of at most %d {sst, sd}", DB_MAX_SLICES);
	*n = 0;
	json_array_foreach(v, i, x) {
		json_t *sst = json_object_get(x, "sst"), *sd = json_object_get(x, "sd");
		uint8_t b[3];

		if (!json_is_object(x) || !json_is_integer(sst) || json_integer_value(sst) < 0 ||
		    json_integer_value(sst) > 255 || json_object_size(x) > (sd ? 2u : 1u))
			return web_field_bad(e, "slices", "slices[%zu] must be {\"sst\": 0..255, \"sd\": \"6 hex digits\"}", i);
		sl[i].sst = (uint8_t)json_integer_value(sst);
		sl[i].sd = DB_SD_NONE;
		if (sd && !json_is_null(sd)) {
			if (!json_is_string(sd) || hex_parse(json_string_value(sd), b, 3) < 0)
				return web_field_bad(e, "slices", "slices[%zu].sd must be 6 hex digits", i);
			sl[i].sd = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
		}
		(*n)++;
	}
	return 0;
}

int web_dnns_from_json(json_t *v, char (*dnns)[DB_DNN_MAX + 1], uint8_t *n, struct web_field_err *e)
{
	size_t i;
	json_t *x;

	if (!json_is_array(v) || json_array_size(v) > DB_MAX_DNNS)
		return web_field_bad(e, "dnns", "dnns must be an array of at most %d strings", DB_MAX_DNNS);
	*n = 0;
	json_array_foreach(v, i, x) {
		if (!json_is_string(x) || !json_string_length(x) || json_string_length(x) > DB_DNN_MAX)
			return web_field_bad(e, "dnns", "dnns[%zu] must be a string of 1..%d characters", i, DB_DNN_MAX);
		snprintf(dnns[i], DB_DNN_MAX + 1, "%s", json_string_value(x));
		(*n)++;
	}
	return 0;
}

static int get_key(json_t *v, const char *f, uint8_t out[16], struct web_field_err *e)
{
	if (!json_is_string(v) || hex_parse(json_string_value(v), out, 16) < 0)
		return web_field_bad(e, f, "%s must be a string of 32 hex digits", f);
	return 0;
}

/* sub_*_field: 0 when key was theirs and v was good, negative (e filled)
 * when it was theirs and bad, SUB_FIELD_OTHER when it is not theirs. */
enum { SUB_FIELD_OTHER = 1 };

/* The SIM's name and its authentication data: imsi (or supi), k, opc or op,
 * amf, sqn. */
static int sub_auth_field(const char *key, json_t *v, struct db_subscriber *s, bool create,
			  bool *has_k, bool *has_op, struct web_field_err *e)
{
	uint8_t amf[2];

	if (!strcmp(key, "imsi") || !strcmp(key, "supi")) {
		char supi[DB_SUPI_MAX];

		if (!json_is_string(v) || web_supi_from_param(json_string_value(v), supi) < 0)
			return web_field_bad(e, key, "%s must be 5 to 15 digits (optionally prefixed imsi-)", key);
		if (!create && strcmp(supi, s->supi))
			return web_field_bad(e, key, "%s cannot be changed (it is the resource's name)", key);
		memcpy(s->supi, supi, sizeof(supi));
	} else if (!strcmp(key, "k")) {
		if (get_key(v, "k", s->k, e) < 0)
			return -EINVAL;
		*has_k = true;
	} else if (!strcmp(key, "opc") || !strcmp(key, "op")) {
		if (*has_op)
			return web_field_bad(e, key, "give one of opc and op");
		if (get_key(v, key, s->opc, e) < 0)
			return -EINVAL;
		s->op_is_opc = key[2] == 'c';
		*has_op = true;
	} else if (!strcmp(key, "amf")) {
		if (!json_is_string(v) || hex_parse(json_string_value(v), amf, 2) < 0)
			return web_field_bad(e, "amf", "amf must be a string of 4 hex digits");
		s->amf = (uint16_t)(amf[0] << 8 | amf[1]);
	} else if (!strcmp(key, "sqn")) {
		if (get_uint(v, "sqn", 0, DB_SQN_MAX, &s->sqn, e) < 0)
			return -EINVAL;
	} else {
		return SUB_FIELD_OTHER;
	}
	return 0;
}

/* What the SIM may use: slices, dnns, policy, the AMBRs, default 5QI, ARP. */
static int sub_service_field(const char *key, json_t *v, struct db_subscriber *s,
			     struct web_field_err *e)
{
	uint64_t u;

	if (!strcmp(key, "slices")) {
		if (web_slices_from_json(v, s->slices, &s->n_slices, e) < 0)
			return -EINVAL;
	} else if (!strcmp(key, "dnns")) {
		if (web_dnns_from_json(v, s->dnns, &s->n_dnns, e) < 0)
			return -EINVAL;
	} else if (!strcmp(key, "policy")) {
		/* null or "": no policy. Existence is checked when stored (400 "policy"). */
		if (json_is_null(v) || (json_is_string(v) && !json_string_length(v)))
			s->policy[0] = 0;
		else if (!json_is_string(v) || !db_policy_name_valid(json_string_value(v)))
			return web_field_bad(e, "policy", "policy must be a policy name (1 to %d characters of "
			    "A-Z a-z 0-9 . _ -) or null", DB_POLICY_NAME_MAX);
		else
			snprintf(s->policy, sizeof(s->policy), "%s", json_string_value(v));
	} else if (!strcmp(key, "ambr_ul") || !strcmp(key, "ambr_dl")) {
		if (get_uint(v, key, 0, DB_AMBR_MAX, key[5] == 'u' ? &s->ambr_ul : &s->ambr_dl, e) < 0)
			return -EINVAL;
	} else if (!strcmp(key, "ue_ambr_ul") || !strcmp(key, "ue_ambr_dl")) {
		if (get_uint(v, key, 0, DB_AMBR_MAX, key[8] == 'u' ? &s->ue_ambr_ul : &s->ue_ambr_dl,
			     e) < 0)
			return -EINVAL;
	} else if (!strcmp(key, "default_5qi")) {
		if (web_5qi_from_json(v, key, &s->default_5qi, e) < 0)
			return -EINVAL;
	} else if (!strcmp(key, "arp")) {
		if (get_uint(v, key, 0, 15, &u, e) < 0)
			return -EINVAL;
		s->arp = (uint8_t)u;
	} else {
		return SUB_FIELD_OTHER;
	}
	return 0;
}

int web_sub_from_json(json_t *j, struct db_subscriber *s, bool create, struct web_field_err *e)
{
	const char *key;
	json_t *v;
	bool has_k = false, has_op = false;
	int rc;

	if (!json_is_object(j))
		return web_field_bad(e, "body", "body must be a JSON object");
	json_object_foreach(j, key, v) {
		rc = sub_auth_field(key, v, s, create, &has_k, &has_op, e);
		if (rc == SUB_FIELD_OTHER)
			rc = sub_service_field(key, v, s, e);
		if (rc < 0)
			return rc;
		if (rc == 0)
			continue;
		if (!strcmp(key, "created") || !strcmp(key, "updated") || !strcmp(key, "effective"))
			continue;   /* read-only: a GET body sent back is accepted */
		return web_field_bad(e, key, "unknown field %s", key);
	}
	if (create && !s->supi[0])
		return web_field_bad(e, "imsi", "imsi is required");
	if (create && !has_k)
		return web_field_bad(e, "k", "k is required");
	if (create && !has_op)
		return web_field_bad(e, "opc", "opc (or op) is required");
	return 0;
}

/* Text appended to a fixed buffer; once it is full, every later append is a no-op and
 * full stays set (one check at the end instead of one per line). */
struct tbuf {
	char *p;
	size_t sz, n;
	bool full;
};

__attribute__((format(printf, 2, 3)))
static void tput(struct tbuf *b, const char *fmt, ...)
{
	va_list ap;
	int k;

	if (b->full)
		return;
	va_start(ap, fmt);
	k = vsnprintf(b->p + b->n, b->sz - b->n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= b->sz - b->n)
		b->full = true;
	else
		b->n += (size_t)k;
}

static void tput_rate(struct tbuf *b, const char *key, uint64_t bps)
{
	if (bps)
		tput(b, "%s = %llu\n", key, (unsigned long long)bps);
}

/* One [imsi-...] table of db/SIMS.md. */
int web_sub_to_toml(const struct db_subscriber *s, bool secrets, char *out, size_t outsz)
{
	struct tbuf b = { out, outsz, 0, outsz == 0 };
	char hex[33];
	unsigned i;

	tput(&b, "[%s]\n", s->supi);
	if (secrets) {
		hex_str(s->k, 16, hex, sizeof(hex));
		tput(&b, "ki = \"%s\"\n", hex);
		hex_str(s->opc, 16, hex, sizeof(hex));
		tput(&b, "%s = \"%s\"\n", s->op_is_opc ? "opc" : "op", hex);
		explicit_bzero(hex, sizeof(hex));
	}
	tput(&b, "amf = \"%04X\"\nsqn = %llu\n", s->amf, (unsigned long long)s->sqn);
	if (s->n_slices) {
		tput(&b, "slices = [");
		for (i = 0; i < s->n_slices; i++) {
			if (s->slices[i].sd == DB_SD_NONE)
				tput(&b, "%s\"%u\"", i ? ", " : " ", s->slices[i].sst);
			else
				tput(&b, "%s\"%u:%06X\"", i ? ", " : " ", s->slices[i].sst, s->slices[i].sd);
		}
		tput(&b, " ]\n");
	}
	if (s->n_dnns) {
		tput(&b, "dnns = [");
		for (i = 0; i < s->n_dnns; i++)
			tput(&b, "%s\"%s\"", i ? ", " : " ", s->dnns[i]);
		tput(&b, " ]\n");
	}
	tput_rate(&b, "ambr_ul", s->ambr_ul);
	tput_rate(&b, "ambr_dl", s->ambr_dl);
	tput_rate(&b, "ue_ambr_ul", s->ue_ambr_ul);
	tput_rate(&b, "ue_ambr_dl", s->ue_ambr_dl);
	if (s->default_5qi)
		tput(&b, "default_5qi = %u\n", s->default_5qi);
	if (s->arp)
		tput(&b, "arp = %u\n", s->arp);
	if (s->policy[0])
		tput(&b, "policy = \"%s\"\n", s->policy);
	tput(&b, "\n");
	return b.full ? -ENOSPC : (int)b.n;
}
