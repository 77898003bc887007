/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * settings - the key/value table of schema v3 (network settings saved from
 * the web API) and explicit transactions for all-or-nothing groups of
 * writes. Not on a hot path: statements are prepared per call.
 */
#include "db/db_int.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "common/ident.h"
#include "common/log.h"

bool db_setting_key_valid(const char *k)
{
	return ident_valid(k, DB_SETTING_KEY_MAX, "._-");
}

struct setting_out {
	char *out;
	size_t outsz;
	int64_t *updated;
};

static int setting_row(struct sql_stmt *st, void *ctx)
{
	const struct setting_out *o = ctx;
	const char *v = sql_column_text(st, 0);
	int len = sql_column_bytes(st, 0);

	if (!v)
		return -EPROTO;
	if ((size_t)len >= o->outsz)
		return -ENOSPC;
	memcpy(o->out, v, (size_t)len + 1);
	if (o->updated)
		*o->updated = sql_column_int64(st, 1);
	return len;
}

int db_setting_get(struct db *db, const char *key, char *out, size_t outsz, int64_t *updated)
{
	struct setting_out o = { out, outsz, updated };
	struct sql_stmt *st;

	if (!db_setting_key_valid(key) || !out || !outsz)
		return -EINVAL;
	out[0] = 0;
	int r = db_stmt(db, "SELECT value, updated FROM settings WHERE key = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, key, -1);
	return db_row_get(st, setting_row, &o);
}

int db_setting_put(struct db *db, const char *key, const char *value)
{
	struct sql_stmt *st;

	if (!db_setting_key_valid(key) || !value || strlen(value) > DB_SETTING_VALUE_MAX)
		return -EINVAL;
	int r = db_stmt(db, "INSERT INTO settings (key, value, updated) VALUES (?, ?, ?)"
		     " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
		     " updated = excluded.updated", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, key, -1);
	sql_bind_text(st, 2, value, -1);
	sql_bind_int64(st, 3, (int64_t)time(NULL));
	int rc = sql_step(st);
	sql_finalize(st);
	return rc == SQL_DONE ? 0 : rc;
}

int db_setting_delete(struct db *db, const char *key)
{
	struct sql_stmt *st;

	if (!db_setting_key_valid(key))
		return -EINVAL;
	int r = db_stmt(db, "DELETE FROM settings WHERE key = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, key, -1);
	int rc = sql_step(st);
	r = rc == SQL_DONE ? (sql_changes(db->conn) ? 0 : -ENOENT) : rc;
	sql_finalize(st);
	return r;
}

struct setting_walk {
	db_setting_cb cb;
	void *arg;
};

static int setting_each(struct sql_stmt *st, void *ctx)
{
	const struct setting_walk *w = ctx;
	const char *k = sql_column_text(st, 0);
	const char *v = sql_column_text(st, 1);

	if (!k || !v)
		return -EPROTO;
	return w->cb(k, v, sql_column_int64(st, 2), w->arg);
}

int db_setting_walk(struct db *db, const char *prefix, db_setting_cb cb, void *arg)
{
	struct sql_stmt *st;
	size_t pl = prefix ? strlen(prefix) : 0;

	if (pl > DB_SETTING_KEY_MAX)
		return -EINVAL;
	/* Prefix as a key range [prefix, prefix || 0x7f): keys are ASCII below
	 * 0x7f, and the primary key answers the range without a scan. */
	int r = db_stmt(db, pl ? "SELECT key, value, updated FROM settings"
			      " WHERE key >= ?1 AND key < ?2 ORDER BY key"
			    : "SELECT key, value, updated FROM settings ORDER BY key", &st);
	if (r < 0)
		return r;
	char hi[DB_SETTING_KEY_MAX + 2];
	if (pl) {
		memcpy(hi, prefix, pl);
		hi[pl] = 0x7f;
		hi[pl + 1] = 0;
		sql_bind_text(st, 1, prefix, -1);
		sql_bind_text(st, 2, hi, -1);
	}
	struct setting_walk w = { cb, arg };
	return db_rows_walk(st, setting_each, &w);
}

/* ---- explicit transactions ---- */

static int tx_fail(struct db *db, const char *what, int r)
{
	if (r < 0)
		log_warn("db", "%s failed: %s", what, sql_errmsg(db->conn));
	return r;
}

int db_tx_begin(struct db *db)
{
	if (sql_in_tx(db->conn))
		return -EBUSY;   /* already inside one: SQLite does not nest BEGIN */
	return tx_fail(db, "BEGIN IMMEDIATE", sql_begin(db->conn));
}

int db_tx_commit(struct db *db)
{
	if (!sql_in_tx(db->conn))
		return -EINVAL;
	int r = tx_fail(db, "COMMIT", sql_commit(db->conn));
	if (r < 0)
		db_tx_rollback(db);
	return r;
}

int db_tx_rollback(struct db *db)
{
	if (!sql_in_tx(db->conn))
		return 0;
	/* Subscriber counts may have changed inside the group. */
	db_rows_changed(db);
	return tx_fail(db, "ROLLBACK", sql_rollback(db->conn));
}
