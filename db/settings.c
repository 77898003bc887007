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

#include "common/log.h"

bool db_setting_key_valid(const char *k)
{
	size_t len = k ? strlen(k) : 0;

	if (!len || len > DB_SETTING_KEY_MAX)
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = k[i];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '.' || c == '_' || c == '-'))
			return false;
	}
	return true;
}

int db_setting_get(struct db *db, const char *key, char *out, size_t outsz, int64_t *updated)
{
	sqlite3_stmt *st;

	if (!db_setting_key_valid(key) || !out || !outsz)
		return -EINVAL;
	out[0] = 0;
	int r = db_stmt(db, "SELECT value, updated FROM settings WHERE key = ?", &st);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		const char *v = (const char *)sqlite3_column_text(st, 0);
		int len = sqlite3_column_bytes(st, 0);
		if (!v)
			r = -EPROTO;
		else if ((size_t)len >= outsz)
			r = -ENOSPC;
		else {
			memcpy(out, v, (size_t)len + 1);
			r = len;
			if (updated)
				*updated = sqlite3_column_int64(st, 1);
		}
	} else {
		r = rc == SQLITE_DONE ? -ENOENT : db_errno(rc);
	}
	sqlite3_finalize(st);
	return r;
}

int db_setting_put(struct db *db, const char *key, const char *value)
{
	sqlite3_stmt *st;

	if (!db_setting_key_valid(key) || !value || strlen(value) > DB_SETTING_VALUE_MAX)
		return -EINVAL;
	int r = db_stmt(db, "INSERT INTO settings (key, value, updated) VALUES (?, ?, ?)"
		     " ON CONFLICT (key) DO UPDATE SET value = excluded.value,"
		     " updated = excluded.updated", &st);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, value, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)time(NULL));
	int rc = sqlite3_step(st);
	sqlite3_finalize(st);
	return rc == SQLITE_DONE ? 0 : db_errno(rc);
}

int db_setting_delete(struct db *db, const char *key)
{
	sqlite3_stmt *st;

	if (!db_setting_key_valid(key))
		return -EINVAL;
	int r = db_stmt(db, "DELETE FROM settings WHERE key = ?", &st);
	if (r < 0)
		return r;
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	r = rc == SQLITE_DONE ? (sqlite3_changes(db->conn) ? 0 : -ENOENT) : db_errno(rc);
	sqlite3_finalize(st);
	return r;
}

int db_setting_walk(struct db *db, const char *prefix, db_setting_cb cb, void *arg)
{
	sqlite3_stmt *st;
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
		sqlite3_bind_text(st, 1, prefix, -1, SQLITE_STATIC);
		sqlite3_bind_text(st, 2, hi, -1, SQLITE_STATIC);
	}
	int rc, n = 0;
	r = 0;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		const char *k = (const char *)sqlite3_column_text(st, 0);
		const char *v = (const char *)sqlite3_column_text(st, 1);
		if (!k || !v) {
			r = -EPROTO;
			break;
		}
		if ((r = cb(k, v, sqlite3_column_int64(st, 2), arg)) != 0)
			break;
		n++;
	}
	if (r == 0 && rc != SQLITE_DONE)
		r = db_errno(rc);
	sqlite3_finalize(st);
	return r ? r : n;
}

/* ---- explicit transactions ---- */

static int tx_exec(struct db *db, const char *sql)
{
	int rc = sqlite3_exec(db->conn, sql, NULL, NULL, NULL);
	if (rc != SQLITE_OK) {
		log_warn("db", "%s failed: %s", sql, sqlite3_errmsg(db->conn));
		return db_errno(rc);
	}
	return 0;
}

int db_tx_begin(struct db *db)
{
	if (!sqlite3_get_autocommit(db->conn))
		return -EBUSY;   /* already inside one: SQLite does not nest BEGIN */
	return tx_exec(db, "BEGIN IMMEDIATE");
}

int db_tx_commit(struct db *db)
{
	if (sqlite3_get_autocommit(db->conn))
		return -EINVAL;
	int r = tx_exec(db, "COMMIT");
	if (r < 0)
		db_tx_rollback(db);
	return r;
}

int db_tx_rollback(struct db *db)
{
	if (sqlite3_get_autocommit(db->conn))
		return 0;
	/* Subscriber counts may have changed inside the group. */
	db_rows_changed(db);
	return tx_exec(db, "ROLLBACK");
}
