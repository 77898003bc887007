/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Subscriber <-> JSON and TOML text (the UDM copy is udm_add_db(), udm/udm.h).
 * JSON fields (OpenAPI schema "Subscriber"): imsi, k, opc | op (write-only),
 * amf ("8000"), sqn, slices [{sst, sd}], dnns, ambr_ul, ambr_dl (bit/s),
 * default_5qi, arp, policy (a policy profile's name or null); read-only: supi, created,
 * updated, effective (what the UDM uses: own value > policy > network default).
 * Policy profiles' JSON (schema "Policy") is in api_policy.c; the slice and DNN
 * list helpers here serve both.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <jansson.h>

#include "db/db.h"
#include "udm/udm.h"
#include "web/sub_int.h"

static int hex_nibble(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
		return (c | 0x20) - 'a' + 10;
	return -1;
}

static int hex_parse(const char *s, uint8_t *out, size_t n)
{
	size_t i;

	if (strlen(s) != 2 * n)
		return -EINVAL;
	for (i = 0; i < n; i++) {
		int hi = hex_nibble(s[2 * i]), lo = hex_nibble(s[2 * i + 1]);

		if (hi < 0 || lo < 0)
			return -EINVAL;
		out[i] = (uint8_t)(hi << 4 | lo);
	}
	return 0;
}

static void hex_str(const uint8_t *b, size_t n, char *out)
{
	size_t i;

	for (i = 0; i < n; i++)
		snprintf(out + 2 * i, 3, "%02X", b[i]);
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
	json_object_set_new(j, "default_5qi", json_integer(s->default_5qi));
	json_object_set_new(j, "arp", json_integer(s->arp));
	json_object_set_new(j, "policy", s->policy[0] ? json_string(s->policy) : json_null());
	json_object_set_new(j, "created", json_integer(s->created));
	json_object_set_new(j, "updated", json_integer(s->updated));
	if (secrets) {
		hex_str(s->k, 16, hex);
		json_object_set_new(j, "k", json_string(hex));
		hex_str(s->opc, 16, hex);
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
	unsigned i;

	udm_resolve(udm, s, p, &d);
	for (i = 0; i < d.n_slices; i++) {
		sl[i].sst = d.slices[i].sst;
		sl[i].sd = d.slices[i].sd;
	}
	for (i = 0; dn && i < d.n_dnns; i++)
		json_array_append_new(dn, json_string(d.dnns[i] ? d.dnns[i] : ""));
	j = json_pack("{s:o?, s:o?, s:I, s:I, s:i, s:i}", "dnns", dn, "slices",
		      web_slices_to_json(sl, d.n_slices), "ambr_ul", (json_int_t)d.ambr_ul_bps,
		      "ambr_dl", (json_int_t)d.ambr_dl_bps, "default_5qi", d.qi5, "arp", d.arp);
	return j;
}

#define BAD(f, ...) do { snprintf(e->field, sizeof(e->field), "%s", f); \
		snprintf(e->msg, sizeof(e->msg), __VA_ARGS__); return -EINVAL; } while (0)

static int get_uint(json_t *v, const char *f, uint64_t min, uint64_t max, uint64_t *out,
		    struct web_field_err *e)
{
	json_int_t x;

	if (!json_is_integer(v))
		BAD(f, "%s must be an integer", f);
	x = json_integer_value(v);
	if (x < 0 || (uint64_t)x < min || (uint64_t)x > max)
		BAD(f, "%s must be %llu..%llu", f, (unsigned long long)min, (unsigned long long)max);
	*out = (uint64_t)x;
	return 0;
}

int web_slices_from_json(json_t *v, struct db_snssai *sl, uint8_t *n, struct web_field_err *e)
{
	size_t i;
	json_t *x;

	if (!json_is_array(v) || json_array_size(v) > DB_MAX_SLICES)
		BAD("slices", "slices must be an array of at most %d {sst, sd}", DB_MAX_SLICES);
	*n = 0;
	json_array_foreach(v, i, x) {
		json_t *sst = json_object_get(x, "sst"), *sd = json_object_get(x, "sd");
		uint8_t b[3];

		if (!json_is_object(x) || !json_is_integer(sst) || json_integer_value(sst) < 0 ||
		    json_integer_value(sst) > 255 || json_object_size(x) > (sd ? 2u : 1u))
			BAD("slices", "slices[%zu] must be {\"sst\": 0..255, \"sd\": \"6 hex digits\"}", i);
		sl[i].sst = (uint8_t)json_integer_value(sst);
		sl[i].sd = DB_SD_NONE;
		if (sd && !json_is_null(sd)) {
			if (!json_is_string(sd) || hex_parse(json_string_value(sd), b, 3) < 0)
				BAD("slices", "slices[%zu].sd must be 6 hex digits", i);
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
		BAD("dnns", "dnns must be an array of at most %d strings", DB_MAX_DNNS);
	*n = 0;
	json_array_foreach(v, i, x) {
		if (!json_is_string(x) || !json_string_length(x) || json_string_length(x) > DB_DNN_MAX)
			BAD("dnns", "dnns[%zu] must be a string of 1..%d characters", i, DB_DNN_MAX);
		snprintf(dnns[i], DB_DNN_MAX + 1, "%s", json_string_value(x));
		(*n)++;
	}
	return 0;
}

static int get_key(json_t *v, const char *f, uint8_t out[16], struct web_field_err *e)
{
	if (!json_is_string(v) || hex_parse(json_string_value(v), out, 16) < 0)
		BAD(f, "%s must be a string of 32 hex digits", f);
	return 0;
}

int web_sub_from_json(json_t *j, struct db_subscriber *s, bool create, struct web_field_err *e)
{
	const char *key;
	json_t *v;
	bool has_k = false, has_op = false;
	uint64_t u;
	uint8_t amf[2];

	if (!json_is_object(j))
		BAD("body", "body must be a JSON object");
	json_object_foreach(j, key, v) {
		if (!strcmp(key, "imsi") || !strcmp(key, "supi")) {
			char supi[DB_SUPI_MAX];

			if (!json_is_string(v) || web_supi_from_param(json_string_value(v), supi) < 0)
				BAD(key, "%s must be 5 to 15 digits (optionally prefixed imsi-)", key);
			if (!create && strcmp(supi, s->supi))
				BAD(key, "%s cannot be changed (it is the resource's name)", key);
			memcpy(s->supi, supi, sizeof(supi));
		} else if (!strcmp(key, "k")) {
			if (get_key(v, "k", s->k, e) < 0)
				return -EINVAL;
			has_k = true;
		} else if (!strcmp(key, "opc") || !strcmp(key, "op")) {
			if (has_op)
				BAD(key, "give one of opc and op");
			if (get_key(v, key, s->opc, e) < 0)
				return -EINVAL;
			s->op_is_opc = key[2] == 'c';
			has_op = true;
		} else if (!strcmp(key, "amf")) {
			if (!json_is_string(v) || hex_parse(json_string_value(v), amf, 2) < 0)
				BAD("amf", "amf must be a string of 4 hex digits");
			s->amf = (uint16_t)(amf[0] << 8 | amf[1]);
		} else if (!strcmp(key, "sqn")) {
			if (get_uint(v, "sqn", 0, DB_SQN_MAX, &s->sqn, e) < 0)
				return -EINVAL;
		} else if (!strcmp(key, "slices")) {
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
				BAD("policy", "policy must be a policy name (1 to %d characters of "
				    "A-Z a-z 0-9 . _ -) or null", DB_POLICY_NAME_MAX);
			else
				snprintf(s->policy, sizeof(s->policy), "%s", json_string_value(v));
		} else if (!strcmp(key, "ambr_ul") || !strcmp(key, "ambr_dl")) {
			if (get_uint(v, key, 0, DB_AMBR_MAX, key[5] == 'u' ? &s->ambr_ul : &s->ambr_dl, e) < 0)
				return -EINVAL;
		} else if (!strcmp(key, "default_5qi")) {
			if (get_uint(v, key, 0, 255, &u, e) < 0)
				return -EINVAL;
			s->default_5qi = (uint8_t)u;
		} else if (!strcmp(key, "arp")) {
			if (get_uint(v, key, 0, 15, &u, e) < 0)
				return -EINVAL;
			s->arp = (uint8_t)u;
		} else if (!strcmp(key, "created") || !strcmp(key, "updated") ||
			   !strcmp(key, "effective")) {
			continue;   /* read-only: a GET body sent back is accepted */
		} else {
			BAD(key, "unknown field %s", key);
		}
	}
	if (create && !s->supi[0])
		BAD("imsi", "imsi is required");
	if (create && !has_k)
		BAD("k", "k is required");
	if (create && !has_op)
		BAD("opc", "opc (or op) is required");
	return 0;
}

__attribute__((format(printf, 4, 5)))
static int putf(char *out, size_t outsz, size_t *n, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = vsnprintf(out + *n, outsz - *n, fmt, ap);
	va_end(ap);
	if (k < 0 || (size_t)k >= outsz - *n)
		return -ENOSPC;
	*n += (size_t)k;
	return 0;
}

/* One [imsi-...] table of db/SIMS.md. */
int web_sub_to_toml(const struct db_subscriber *s, bool secrets, char *out, size_t outsz)
{
	char hex[33];
	size_t n = 0;
	unsigned i;

#define PUT(...) do { if (putf(out, outsz, &n, __VA_ARGS__) < 0) goto nospace; } while (0)
	PUT("[%s]\n", s->supi);
	if (secrets) {
		hex_str(s->k, 16, hex);
		PUT("ki = \"%s\"\n", hex);
		hex_str(s->opc, 16, hex);
		PUT("%s = \"%s\"\n", s->op_is_opc ? "opc" : "op", hex);
	}
	PUT("amf = \"%04X\"\nsqn = %llu\n", s->amf, (unsigned long long)s->sqn);
	if (s->n_slices) {
		PUT("slices = [");
		for (i = 0; i < s->n_slices; i++) {
			if (s->slices[i].sd == DB_SD_NONE)
				PUT("%s\"%u\"", i ? ", " : " ", s->slices[i].sst);
			else
				PUT("%s\"%u:%06X\"", i ? ", " : " ", s->slices[i].sst, s->slices[i].sd);
		}
		PUT(" ]\n");
	}
	if (s->n_dnns) {
		PUT("dnns = [");
		for (i = 0; i < s->n_dnns; i++)
			PUT("%s\"%s\"", i ? ", " : " ", s->dnns[i]);
		PUT(" ]\n");
	}
	if (s->ambr_ul)
		PUT("ambr_ul = %llu\n", (unsigned long long)s->ambr_ul);
	if (s->ambr_dl)
		PUT("ambr_dl = %llu\n", (unsigned long long)s->ambr_dl);
	if (s->default_5qi)
		PUT("default_5qi = %u\n", s->default_5qi);
	if (s->arp)
		PUT("arp = %u\n", s->arp);
	if (s->policy[0])
		PUT("policy = \"%s\"\n", s->policy);
	PUT("\n");
#undef PUT
	explicit_bzero(hex, sizeof(hex));
	return (int)n;
nospace:
	explicit_bzero(hex, sizeof(hex));
	return -ENOSPC;
}
