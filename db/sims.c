/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * sims - SIM files (format: db/SIMS.md) into the subscribers table.
 *
 * The whole file is parsed and every entry validated and inserted inside
 * one transaction; the first error rolls everything back, so a file either
 * imports completely or not at all. Error text is "file:line: reason".
 */
#include "db/db_int.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "common/hex.h"
#include "common/log.h"
#include "common/qos.h"
#include "common/toml/toml.h"

struct ctx {
	struct db *db;
	const char *file;
	char *err;
	size_t errsz;
	const char *imsi;   /* table key, for messages */
};

__attribute__((format(printf, 3, 4)))
static int fail(struct ctx *c, const struct toml_node *n, const char *fmt, ...)
{
	if (c->err && c->errsz) {
		int k = snprintf(c->err, c->errsz, "%s:%u: ", c->file, toml_line(n));
		if (k >= 0 && (size_t)k < c->errsz) {
			va_list ap;
			va_start(ap, fmt);
			vsnprintf(c->err + k, c->errsz - (size_t)k, fmt, ap);
			va_end(ap);
		}
	}
	return -EINVAL;
}

static int want_hex(struct ctx *c, const struct toml_node *v, const char *key, uint8_t *out,
		    size_t n)
{
	size_t len;
	const char *s = toml_str(v, &len);
	if (toml_type(v) != TOML_STRING || hex_decode_exact(out, n, s, len) < 0)
		return fail(c, v, "[%s] %s must be a string of %zu hex digits", c->imsi, key, 2 * n);
	return 0;
}

static int get_sqn(struct ctx *c, const struct toml_node *v, uint64_t *out)
{
	if (toml_type(v) == TOML_INT) {
		int64_t i = toml_int(v);
		if (i < 0 || (uint64_t)i > DB_SQN_MAX)
			return fail(c, v, "[%s] sqn out of range (0..2^48-1)", c->imsi);
		*out = (uint64_t)i;
		return 0;
	}
	uint8_t b[6];
	size_t len;
	const char *s = toml_str(v, &len);
	if (toml_type(v) != TOML_STRING || hex_decode_exact(b, 6, s, len) < 0)
		return fail(c, v, "[%s] sqn must be 12 hex digits or an integer", c->imsi);
	*out = 0;
	for (int i = 0; i < 6; i++)
		*out = *out << 8 | b[i];
	return 0;
}

/* "100 Mbps", "1.5 Gbps", "64000 bps", "2 kbps" (units are bits/s, any case). */
static int parse_rate(const char *s, uint64_t *out)
{
	char *e;
	unsigned long long whole = strtoull(s, &e, 10);
	if (e == s || *s == '-' || *s == '+')
		return -EINVAL;
	uint64_t frac = 0, fdiv = 1;
	if (*e == '.') {
		for (e++; *e >= '0' && *e <= '9'; e++) {
			/* 6 fraction digits: frac * mul stays below 2^64. */
			if (fdiv < 1000000ull) {
				frac = frac * 10 + (uint64_t)(*e - '0');
				fdiv *= 10;
			}
		}
	}
	while (*e == ' ')
		e++;
	static const struct { const char *u; uint64_t mul; } units[] = {
		{ "bps", 1 }, { "kbps", 1000 }, { "mbps", 1000000 }, { "gbps", 1000000000 },
		{ "tbps", 1000000000000ull },
	};
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (strcasecmp(e, units[i].u))
			continue;
		uint64_t mul = units[i].mul;
		if (whole > INT64_MAX / mul)
			return -ERANGE;
		uint64_t v = whole * mul + frac * mul / fdiv;
		if (v == 0 || v > INT64_MAX)
			return -ERANGE;
		*out = v;
		return 0;
	}
	return -EINVAL;
}

static int get_ambr(struct ctx *c, const struct toml_node *v, const char *key, uint64_t *out)
{
	if (toml_type(v) == TOML_INT) {
		if (toml_int(v) <= 0)
			return fail(c, v, "[%s] %s must be a positive bit rate", c->imsi, key);
		*out = (uint64_t)toml_int(v);
	} else if (toml_type(v) != TOML_STRING || parse_rate(toml_str(v, NULL), out) < 0) {
		return fail(c, v, "[%s] %s must be bits/s or a string like \"100 Mbps\"", c->imsi,
			    key);
	}
	if (*out > DB_AMBR_MAX)   /* NGAP BitRate, TS 38.413 9.3.1.4 */
		return fail(c, v, "[%s] %s exceeds 4000000000000 bit/s (4 Tbps)", c->imsi, key);
	return 0;
}

static int get_slice(struct ctx *c, const struct toml_node *e, struct db_snssai *out)
{
	if (toml_type(e) == TOML_STRING) {
		size_t len;
		const char *s = toml_str(e, &len);
		if (db_snssai_parse(s, len, out) < 0)
			return fail(c, e, "[%s] slice \"%s\": expected \"SST\" or \"SST:SD\" "
				    "(SST 0..255, SD 6 hex digits)", c->imsi, s);
		return 0;
	}
	if (toml_type(e) != TOML_TABLE)
		return fail(c, e, "[%s] slices: each slice is \"SST:SD\" or { sst = N, sd = \"HEX\" }",
			    c->imsi);
	out->sd = DB_SD_NONE;
	bool have_sst = false;
	for (const struct toml_node *m = toml_first(e); m; m = toml_next(m)) {
		if (!strcmp(toml_key(m), "sst")) {
			if (toml_type(m) != TOML_INT || toml_int(m) < 0 || toml_int(m) > 255)
				return fail(c, m, "[%s] sst must be an integer 0..255", c->imsi);
			out->sst = (uint8_t)toml_int(m);
			have_sst = true;
		} else if (!strcmp(toml_key(m), "sd")) {
			uint8_t b[3];
			if (want_hex(c, m, "sd", b, 3) < 0)
				return -EINVAL;
			out->sd = (uint32_t)b[0] << 16 | (uint32_t)b[1] << 8 | b[2];
		} else {
			return fail(c, m, "[%s] unknown slice key '%s'", c->imsi, toml_key(m));
		}
	}
	if (!have_sst)
		return fail(c, e, "[%s] slice without sst", c->imsi);
	return 0;
}

static int get_slices(struct ctx *c, const struct toml_node *v, struct db_subscriber *s)
{
	if (toml_type(v) != TOML_ARRAY)
		return fail(c, v, "[%s] slices must be an array", c->imsi);
	if (toml_count(v) > DB_MAX_SLICES)
		return fail(c, v, "[%s] at most %d slices", c->imsi, DB_MAX_SLICES);
	for (const struct toml_node *e = toml_first(v); e; e = toml_next(e)) {
		struct db_snssai *x = &s->slices[s->n_slices];
		if (get_slice(c, e, x) < 0)
			return -EINVAL;
		for (unsigned i = 0; i < s->n_slices; i++)
			if (s->slices[i].sst == x->sst && s->slices[i].sd == x->sd)
				return fail(c, e, "[%s] duplicate slice", c->imsi);
		s->n_slices++;
	}
	return 0;
}

static int get_dnns(struct ctx *c, const struct toml_node *v, struct db_subscriber *s)
{
	if (toml_type(v) != TOML_ARRAY)
		return fail(c, v, "[%s] dnns must be an array of strings", c->imsi);
	if (toml_count(v) > DB_MAX_DNNS)
		return fail(c, v, "[%s] at most %d dnns", c->imsi, DB_MAX_DNNS);
	for (const struct toml_node *e = toml_first(v); e; e = toml_next(e)) {
		size_t len;
		const char *d = toml_str(e, &len);
		if (toml_type(e) != TOML_STRING || !db_dnn_valid(d, len))
			return fail(c, e, "[%s] invalid dnn (letters, digits, '-' and '.', "
				    "at most %d characters)", c->imsi, DB_DNN_MAX);
		for (unsigned i = 0; i < s->n_dnns; i++)
			if (!strcmp(s->dnns[i], d))
				return fail(c, e, "[%s] duplicate dnn \"%s\"", c->imsi, d);
		memcpy(s->dnns[s->n_dnns++], d, len + 1);
	}
	return 0;
}

static int get_small(struct ctx *c, const struct toml_node *v, const char *key, int lo, int hi,
		     uint8_t *out)
{
	if (toml_type(v) != TOML_INT || toml_int(v) < lo || toml_int(v) > hi)
		return fail(c, v, "[%s] %s must be an integer %d..%d", c->imsi, key, lo, hi);
	*out = (uint8_t)toml_int(v);
	return 0;
}

/* policy = "name": a policy profile that must exist (checked in the same
 * transaction as the insert, so the whole file fails on an unknown one). */
static int get_policy(struct ctx *c, const struct toml_node *v, struct db_subscriber *s)
{
	const char *name = toml_str(v, NULL);
	if (toml_type(v) != TOML_STRING || !db_policy_name_valid(name))
		return fail(c, v, "[%s] policy must be a policy name (1 to %d characters of "
			    "A-Z a-z 0-9 . _ -)", c->imsi, DB_POLICY_NAME_MAX);
	int r = db_policy_exists(c->db, name);
	if (r < 0)
		return fail(c, v, "[%s] policy lookup failed: %s", c->imsi, strerror(-r));
	if (r == 0)
		return fail(c, v, "[%s] unknown policy \"%s\"", c->imsi, name);
	strcpy(s->policy, name);
	return 0;
}

/* One [imsi-...] table into s. */
static int sim_from_table(struct ctx *c, const struct toml_node *t, struct db_subscriber *s)
{
	const char *name = toml_key(t);
	memset(s, 0, sizeof(*s));
	c->imsi = name;
	if (toml_type(t) != TOML_TABLE)
		return fail(c, t, "unexpected top-level key '%s' (expected [imsi-...] tables)", name);
	size_t nl = strlen(name);
	if (strncmp(name, "imsi-", 5) || !db_imsi_valid(name + 5, nl - 5))
		return fail(c, t, "[%s]: table name must be imsi- followed by %d to %d digits "
			    "(MCC, MNC, MSIN)", name, DB_IMSI_MIN_DIGITS, DB_IMSI_MAX_DIGITS);
	memcpy(s->supi, name, nl + 1);
	s->amf = DB_DEFAULT_AMF;
	s->op_is_opc = true;
	bool have_k = false, have_opc = false, have_op = false;
	int r = 0;
	for (const struct toml_node *v = toml_first(t); v && r == 0; v = toml_next(v)) {
		const char *k = toml_key(v);
		if (!strcmp(k, "ki")) {
			r = want_hex(c, v, "ki", s->k, 16);
			have_k = true;
		} else if (!strcmp(k, "opc") || !strcmp(k, "op")) {
			bool is_op = k[2] == 0;
			if ((is_op && have_opc) || (!is_op && have_op))
				return fail(c, v, "[%s] give either opc or op, not both", name);
			r = want_hex(c, v, k, s->opc, 16);
			s->op_is_opc = !is_op;
			have_op |= is_op;
			have_opc |= !is_op;
		} else if (!strcmp(k, "amf")) {
			uint8_t b[2];
			r = want_hex(c, v, "amf", b, 2);
			s->amf = (uint16_t)(b[0] << 8 | b[1]);
		} else if (!strcmp(k, "sqn")) {
			r = get_sqn(c, v, &s->sqn);
		} else if (!strcmp(k, "slices")) {
			r = get_slices(c, v, s);
		} else if (!strcmp(k, "dnns")) {
			r = get_dnns(c, v, s);
		} else if (!strcmp(k, "ambr_ul")) {
			r = get_ambr(c, v, k, &s->ambr_ul);
		} else if (!strcmp(k, "ambr_dl")) {
			r = get_ambr(c, v, k, &s->ambr_dl);
		} else if (!strcmp(k, "ue_ambr_ul")) {
			r = get_ambr(c, v, k, &s->ue_ambr_ul);
		} else if (!strcmp(k, "ue_ambr_dl")) {
			r = get_ambr(c, v, k, &s->ue_ambr_dl);
		} else if (!strcmp(k, "default_5qi")) {
			r = get_small(c, v, k, 1, 255, &s->default_5qi);
			if (r == 0 && qos_5qi_is_gbr(s->default_5qi))
				r = fail(c, v, "[%s] %s", name, DB_GBR_5QI_WHY);
		} else if (!strcmp(k, "arp")) {
			r = get_small(c, v, k, 1, 15, &s->arp);
		} else if (!strcmp(k, "policy")) {
			r = get_policy(c, v, s);
		} else {
			r = fail(c, v, "[%s] unknown key '%s'", name, k);
		}
	}
	if (r < 0)
		return r;
	if (!have_k)
		return fail(c, t, "[%s] missing ki", name);
	if (!have_opc && !have_op)
		return fail(c, t, "[%s] missing opc (or op)", name);
	return 0;
}

static int insert_all(struct db *db, struct ctx *c, const struct toml_doc *doc, db_subscriber_cb cb,
		      void *arg)
{
	struct db_subscriber s;
	int64_t now = (int64_t)time(NULL);
	int n = 0, r = db_prepare_insert(db);
	if (r < 0)
		return r;
	struct sql_stmt *st = db->st_insert;
	int rc = 0;
	for (const struct toml_node *t = toml_first(toml_root(doc)); t; t = toml_next(t)) {
		if ((r = sim_from_table(c, t, &s)) < 0)
			break;
		if ((r = db_bind_subscriber(st, &s, now)) < 0)
			break;
		rc = sql_step(st);
		if (rc < 0) {
			r = rc;
			if (r == -EEXIST)
				r = fail(c, t, "[%s] IMSI already in the database", s.supi);
			else
				snprintf(c->err, c->errsz, "%s:%u: database error: %s", c->file,
					 toml_line(t), sql_errmsg(db->conn));
		}
		sql_reset(st);
		if (rc < 0)
			break;
		if (cb && (r = cb(&s, arg)) != 0) {
			snprintf(c->err, c->errsz, "%s:%u: import stopped", c->file, toml_line(t));
			break;
		}
		n++;
	}
	sql_clear_bindings(st);
	explicit_bzero(&s, sizeof(s));
	return r < 0 ? r : n;
}

int db_import_toml(struct db *db, const char *path, char *err, size_t errsz)
{
	return db_import_toml_cb(db, path, err, errsz, NULL, NULL);
}

int db_import_toml_cb(struct db *db, const char *path, char *err, size_t errsz, db_subscriber_cb cb,
		      void *arg)
{
	char dummy[1];
	db_rows_changed(db);
	if (!err || !errsz) {
		err = dummy;
		errsz = sizeof(dummy);
	}
	err[0] = 0;
	struct toml_doc *doc;
	int r = toml_parse_file(path, &doc, err, errsz);
	if (r < 0)
		return r;
	struct ctx c = { .db = db, .file = path, .err = err, .errsz = errsz };
	int rc = sql_begin(db->conn);
	if (rc < 0) {
		snprintf(err, errsz, "%s: database busy: %s", path, sql_errmsg(db->conn));
		toml_free(doc);
		return rc;
	}
	r = insert_all(db, &c, doc, cb, arg);
	toml_free(doc);
	if (r >= 0 && (rc = sql_commit(db->conn)) < 0) {
		snprintf(err, errsz, "%s: commit failed: %s", path, sql_errmsg(db->conn));
		r = rc;
	}
	if (r < 0) {
		sql_rollback(db->conn);
		log_warn("db", "import of %s failed, nothing imported", path);
		return r;
	}
	/* Again after the COMMIT: a count taken while the import ran saw the old rows. */
	db_rows_changed(db);
	log_info("db", "imported %d subscribers from %s", r, path);
	return r;
}
