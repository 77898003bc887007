/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * policy - policy profiles of schema v3: named DNN / S-NSSAI / session-AMBR
 * / UE-AMBR (v5) / 5QI / ARP sets that subscribers refer to (subscribers.policy).
 *
 * Operator-made and few: statements are prepared per call, except the
 * existence check every subscriber write and import row runs. A policy in
 * use cannot be deleted (-EBUSY, counted through the partial index on
 * subscribers.policy); the foreign key is the backstop.
 */
#include "db/db_int.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/ident.h"
#include "common/log.h"
#include "common/qos.h"

#define PCOLS "name, dnns, slices, ambr_ul, ambr_dl, default_5qi, arp, created, updated, " \
	      "ue_ambr_ul, ue_ambr_dl"

bool db_policy_name_valid(const char *n)
{
	return ident_valid(n, DB_POLICY_NAME_MAX, "._-");
}

static int bad(const char **field, const char *f, char *err, size_t errsz, const char *why)
{
	if (field)
		*field = f;
	if (err && errsz)
		snprintf(err, errsz, "%s", why);
	return -EINVAL;
}

int db_policy_check(const struct db_policy *p, const char **field, char *err, size_t errsz)
{
	if (!db_policy_name_valid(p->name))
		return bad(field, "name", err, errsz,
			   "name must be 1 to 32 characters of A-Z a-z 0-9 . _ -");
	if (p->n_dnns > DB_MAX_DNNS)
		return bad(field, "dnns", err, errsz, "at most 8 dnns");
	for (unsigned i = 0; i < p->n_dnns; i++) {
		if (!db_dnn_valid(p->dnns[i], strnlen(p->dnns[i], DB_DNN_MAX + 1)))
			return bad(field, "dnns", err, errsz, "invalid dnn (letters, digits, '-' "
				   "and '.', at most 100 characters)");
		for (unsigned j = 0; j < i; j++)
			if (!strcmp(p->dnns[i], p->dnns[j]))
				return bad(field, "dnns", err, errsz, "duplicate dnn");
	}
	if (p->n_slices > DB_MAX_SLICES)
		return bad(field, "slices", err, errsz, "at most 8 slices");
	for (unsigned i = 0; i < p->n_slices; i++) {
		if (p->slices[i].sd > DB_SD_NONE)
			return bad(field, "slices", err, errsz, "slice sd exceeds 24 bits");
		for (unsigned j = 0; j < i; j++)
			if (p->slices[i].sst == p->slices[j].sst && p->slices[i].sd == p->slices[j].sd)
				return bad(field, "slices", err, errsz, "duplicate slice");
	}
	if (p->ambr_ul > DB_AMBR_MAX)
		return bad(field, "ambr_ul", err, errsz, "ambr_ul out of range (at most 4000000000000 bit/s)");
	if (p->ambr_dl > DB_AMBR_MAX)
		return bad(field, "ambr_dl", err, errsz, "ambr_dl out of range (at most 4000000000000 bit/s)");
	if (p->ue_ambr_ul > DB_AMBR_MAX)
		return bad(field, "ue_ambr_ul", err, errsz, "ue_ambr_ul out of range (at most 4000000000000 bit/s)");
	if (p->ue_ambr_dl > DB_AMBR_MAX)
		return bad(field, "ue_ambr_dl", err, errsz, "ue_ambr_dl out of range (at most 4000000000000 bit/s)");
	if (qos_5qi_is_gbr(p->default_5qi))
		return bad(field, "default_5qi", err, errsz, DB_GBR_5QI_WHY);
	if (p->arp > 15)
		return bad(field, "arp", err, errsz, "arp must be 1..15");
	return 0;
}

int db_policy_exists(struct db *db, const char *name)
{
	if (!db->st_pol_exists) {
		int rc = sql_prepare(db->conn, "SELECT 1 FROM policies WHERE name = ?", SQL_PERSISTENT,
				     &db->st_pol_exists);
		if (rc < 0)
			return rc;
	}
	sql_bind_text(db->st_pol_exists, 1, name, -1);
	int rc = sql_step(db->st_pol_exists);
	int r = rc == SQL_ROW ? 1 : rc == SQL_DONE ? 0 : rc;
	sql_reset(db->st_pol_exists);
	sql_clear_bindings(db->st_pol_exists);
	return r;
}

static int prow_read(struct sql_stmt *st, struct db_policy *p)
{
	const char *name = sql_column_text(st, 0);
	const char *dnns = sql_column_text(st, 1);
	const char *slices = sql_column_text(st, 2);

	memset(p, 0, sizeof(*p));
	if (!name || strlen(name) > DB_POLICY_NAME_MAX)
		return -EPROTO;
	strcpy(p->name, name);
	if (db_dnns_parse_n(dnns ? dnns : "", p->dnns, &p->n_dnns) < 0 ||
	    db_slices_parse_n(slices ? slices : "", p->slices, &p->n_slices) < 0)
		return -EPROTO;
	p->ambr_ul = (uint64_t)sql_column_int64(st, 3);
	p->ambr_dl = (uint64_t)sql_column_int64(st, 4);
	p->default_5qi = (uint8_t)sql_column_int(st, 5);
	p->arp = (uint8_t)sql_column_int(st, 6);
	p->created = sql_column_int64(st, 7);
	p->updated = sql_column_int64(st, 8);
	p->ue_ambr_ul = (uint64_t)sql_column_int64(st, 9);
	p->ue_ambr_dl = (uint64_t)sql_column_int64(st, 10);
	return 0;
}

static int prow_get(struct sql_stmt *st, void *out)
{
	return prow_read(st, out);
}

int db_policy_put(struct db *db, const struct db_policy *p, enum db_put_mode mode)
{
	char why[96], slices[DB_SLICES_TEXT_MAX], dnns[DB_DNNS_TEXT_MAX];
	struct sql_stmt *st;
	const char *sql;

	if (db_policy_check(p, NULL, why, sizeof(why)) < 0) {
		log_warn("db", "policy put refused: %s", why);
		return -EINVAL;
	}
	switch (mode) {
	case DB_PUT_CREATE:
		sql = "INSERT INTO policies (" PCOLS ") VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?8,?9,?10)";
		break;
	case DB_PUT_REPLACE:
		sql = "UPDATE policies SET dnns = ?2, slices = ?3, ambr_ul = ?4, ambr_dl = ?5,"
		      " default_5qi = ?6, arp = ?7, updated = ?8, ue_ambr_ul = ?9,"
		      " ue_ambr_dl = ?10 WHERE name = ?1";
		break;
	case DB_PUT_UPSERT:
		sql = "INSERT INTO policies (" PCOLS ") VALUES (?1,?2,?3,?4,?5,?6,?7,?8,?8,?9,?10)"
		      " ON CONFLICT (name) DO UPDATE SET dnns = excluded.dnns,"
		      " slices = excluded.slices, ambr_ul = excluded.ambr_ul,"
		      " ambr_dl = excluded.ambr_dl, default_5qi = excluded.default_5qi,"
		      " arp = excluded.arp, updated = excluded.updated,"
		      " ue_ambr_ul = excluded.ue_ambr_ul, ue_ambr_dl = excluded.ue_ambr_dl";
		break;
	default:
		return -EINVAL;
	}
	int r = db_stmt(db, sql, &st);
	if (r < 0)
		return r;
	db_dnns_text((const char (*)[DB_DNN_MAX + 1])p->dnns, p->n_dnns, dnns, sizeof(dnns));
	db_slices_text(p->slices, p->n_slices, slices, sizeof(slices));
	sql_bind_text(st, 1, p->name, -1);
	sql_bind_text(st, 2, dnns, -1);
	sql_bind_text(st, 3, slices, -1);
	sql_bind_int64(st, 4, (int64_t)p->ambr_ul);
	sql_bind_int64(st, 5, (int64_t)p->ambr_dl);
	sql_bind_int64(st, 6, p->default_5qi);
	sql_bind_int64(st, 7, p->arp);
	sql_bind_int64(st, 8, (int64_t)time(NULL));
	sql_bind_int64(st, 9, (int64_t)p->ue_ambr_ul);
	sql_bind_int64(st, 10, (int64_t)p->ue_ambr_dl);
	int rc = sql_step(st);
	if (rc != SQL_DONE)
		r = rc;   /* CREATE of an existing name: CONSTRAINT -> -EEXIST */
	else if (mode == DB_PUT_REPLACE && sql_changes(db->conn) == 0)
		r = -ENOENT;
	sql_finalize(st);
	return r;
}

int db_policy_get(struct db *db, const char *name, struct db_policy *out)
{
	struct sql_stmt *st;

	if (!db_policy_name_valid(name))
		return -ENOENT;
	int r = db_stmt(db, "SELECT " PCOLS " FROM policies WHERE name = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	return db_row_get(st, prow_get, out);
}

int64_t db_policy_users(struct db *db, const char *name)
{
	struct sql_stmt *st;
	/* "policy = ?" implies NOT NULL: SQLite uses the partial index. */
	int r = db_stmt(db, "SELECT count(*) FROM subscribers WHERE policy = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	int rc = sql_step(st);
	int64_t n = rc == SQL_ROW ? sql_column_int64(st, 0) : rc;
	sql_finalize(st);
	return n;
}

int db_policy_delete(struct db *db, const char *name)
{
	struct sql_stmt *st;

	if (!db_policy_name_valid(name))
		return -ENOENT;
	/* In use: one probe of the partial index, not a count of its users. */
	int r = db_stmt(db, "SELECT 1 FROM subscribers WHERE policy = ? LIMIT 1", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	int rc = sql_step(st);
	sql_finalize(st);
	if (rc != SQL_ROW && rc != SQL_DONE)
		return rc;
	if (rc == SQL_ROW)
		return db_policy_exists(db, name) == 1 ? -EBUSY : -ENOENT;
	r = db_stmt(db, "DELETE FROM policies WHERE name = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	rc = sql_step(st);
	if (rc == SQL_DONE)
		r = sql_changes(db->conn) ? 0 : -ENOENT;
	else   /* a reference appeared between the count and the delete: the FK says no */
		r = rc == -EEXIST ? -EBUSY : rc;   /* sql.h: a constraint is -EEXIST */
	sql_finalize(st);
	return r;
}

struct pwalk {
	db_policy_cb cb;
	void *arg;
};

static int prow_each(struct sql_stmt *st, void *ctx)
{
	const struct pwalk *w = ctx;
	struct db_policy p;
	int r = prow_read(st, &p);

	return r < 0 ? r : w->cb(&p, w->arg);
}

int db_policy_walk(struct db *db, db_policy_cb cb, void *arg)
{
	struct pwalk w = { cb, arg };
	struct sql_stmt *st;

	int r = db_stmt(db, "SELECT " PCOLS " FROM policies ORDER BY name", &st);
	return r < 0 ? r : db_rows_walk(st, prow_each, &w);
}
