/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * nodes - the rows each node of a cluster publishes about itself (schema v6, db.h
 * db_node_row). Not a hot path: one row every few seconds per node; statements are
 * prepared per call.
 */
#include "db/db_int.h"

#include <errno.h>
#include <string.h>
#include <time.h>

static bool terminated(const char *s, size_t n)
{
	return memchr(s, 0, n) != NULL;
}

static int64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int db_node_put(struct db *db, const struct db_node_row *r)
{
	struct sql_stmt *st;

	if (!db || !r || !r->id || r->id > INT64_MAX || !terminated(r->addr, sizeof(r->addr)) ||
	    !terminated(r->api, sizeof(r->api)) || !terminated(r->gnb_json, sizeof(r->gnb_json)))
		return -EINVAL;
	int rc = db_stmt(db, "INSERT INTO nodes (id, addr, api, gnbs, ues, sessions, gnb_json, updated)"
			 " VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (id) DO UPDATE SET"
			 " addr = excluded.addr, api = excluded.api, gnbs = excluded.gnbs,"
			 " ues = excluded.ues, sessions = excluded.sessions,"
			 " gnb_json = excluded.gnb_json, updated = excluded.updated", &st);
	if (rc < 0)
		return rc;
	sql_bind_int64(st, 1, (int64_t)r->id);
	sql_bind_text(st, 2, r->addr, -1);
	sql_bind_text(st, 3, r->api, -1);
	sql_bind_int64(st, 4, r->gnbs);
	sql_bind_int64(st, 5, r->ues);
	sql_bind_int64(st, 6, r->sessions);
	sql_bind_text(st, 7, r->gnb_json[0] ? r->gnb_json : "[]", -1);
	sql_bind_int64(st, 8, now_ms());
	rc = sql_step(st);
	sql_finalize(st);
	return rc == SQL_DONE ? 0 : rc;
}

struct node_walk {
	db_node_cb cb;
	void *arg;
	struct db_node_row row;
};

static void copy_col(struct sql_stmt *st, int i, char *out, size_t n)
{
	const char *v = sql_column_text(st, i);
	size_t len = v ? (size_t)sql_column_bytes(st, i) : 0;

	if (len >= n)
		len = n - 1;
	if (len)
		memcpy(out, v, len);
	out[len] = 0;
}

static int node_each(struct sql_stmt *st, void *ctx)
{
	struct node_walk *w = ctx;
	struct db_node_row *r = &w->row;

	r->id = (uint64_t)sql_column_int64(st, 0);
	copy_col(st, 1, r->addr, sizeof(r->addr));
	copy_col(st, 2, r->api, sizeof(r->api));
	r->gnbs = (uint32_t)sql_column_int64(st, 3);
	r->ues = (uint32_t)sql_column_int64(st, 4);
	r->sessions = (uint32_t)sql_column_int64(st, 5);
	copy_col(st, 6, r->gnb_json, sizeof(r->gnb_json));
	r->updated = sql_column_int64(st, 7);
	return w->cb(r, w->arg);
}

int db_node_walk(struct db *db, db_node_cb cb, void *arg)
{
	struct sql_stmt *st;

	if (!db || !cb)
		return -EINVAL;
	int rc = db_stmt(db, "SELECT id, addr, api, gnbs, ues, sessions, gnb_json, updated FROM nodes"
			 " ORDER BY id", &st);
	if (rc < 0)
		return rc;
	struct node_walk w = { .cb = cb, .arg = arg };
	return db_rows_walk(st, node_each, &w);
}

int db_node_delete(struct db *db, uint64_t id)
{
	struct sql_stmt *st;

	if (!db || !id || id > INT64_MAX)
		return -EINVAL;
	int rc = db_stmt(db, "DELETE FROM nodes WHERE id = ?", &st);
	if (rc < 0)
		return rc;
	sql_bind_int64(st, 1, (int64_t)id);
	rc = sql_step(st);
	sql_finalize(st);
	if (rc != SQL_DONE)
		return rc;
	return sql_changes(db->conn) ? 0 : -ENOENT;
}
