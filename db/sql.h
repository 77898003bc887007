/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * sql - the statement interface db/ runs its SQL through, on one of two
 * backends: a local SQLite file (sql_sqlite.c, the default) or a dqlite
 * cluster reached over its wire protocol (sql_dqlite.c, issue 20).
 *
 * The shape is SQLite's own (prepare, bind, step, column, reset, finalize),
 * so the SQLite backend is a 1:1 mapping behind one indirect call; the
 * calls below are inline wrappers over the backend's ops table.
 *
 * Threads: a struct sql (one connection) and its statements are used by one
 * thread at a time.
 *
 * Lifetimes:
 *  - sql_bind_text / sql_bind_blob bind by reference: the bytes must stay
 *    valid until the statement is stepped, reset or bound again (SQLite's
 *    SQLITE_STATIC; K and OPc are never copied into heap the backend frees
 *    without wiping). The _copy variants take a copy. (dqlite copies a text
 *    given with an explicit length anyway: its wire text ends in a NUL.)
 *    A blob's length is never negative.
 *  - Column values (text, blob) are valid until the next step, reset or
 *    finalize of that statement.
 *  - On dqlite a reading statement streams its rows from the connection;
 *    another request on the same connection while it still has rows first
 *    reads the rest of them (and its current row) into memory, so steps may
 *    interleave as on SQLite. The rows it still gives are those of the
 *    moment it was read ahead.
 *
 * Errors: 0 (or a count) on success, a negative errno on failure; the
 * backend's message for the last failure is sql_errmsg(). Mapping: unique /
 * primary key / check / foreign key violation -EEXIST, busy or locked
 * -EBUSY, read-only -EACCES, full -ENOSPC, not a database or corrupt -EPROTO,
 * no such file -ENOENT, out of memory -ENOMEM, anything else -EIO; on dqlite
 * also "not leader" (leadership moved, or this side of a partition has no
 * quorum) -EHOSTUNREACH and dqlc's connection errors (-ETIMEDOUT, -ECONNRESET,
 * -ENOTCONN: the connection is then dead, open a new one). Things a
 * backend cannot do (WAL checkpoints on dqlite) are -EOPNOTSUPP. Backends do
 * not log SQL errors (only a failed open): the caller knows what failed.
 */
#ifndef SOLOCORE_DB_SQL_H
#define SOLOCORE_DB_SQL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum sql_backend { SQL_SQLITE = 1, SQL_DQLITE = 2 };

/* Column types: SQLite's codes (SQLITE_INTEGER ... SQLITE_NULL), also dqlite's. */
enum sql_type { SQL_INTEGER = 1, SQL_FLOAT = 2, SQL_TEXT = 3, SQL_BLOB = 4, SQL_NULL = 5 };

/* sql_step(): a row is ready, or the statement has run to completion. */
#define SQL_ROW 1
#define SQL_DONE 0

/* sql_prepare() flags. PERSISTENT: kept for the connection's lifetime and
 * stepped many times (SQLite: SQLITE_PREPARE_PERSISTENT). */
#define SQL_PERSISTENT 1u

struct sql;
struct sql_stmt;

/* ---- backend interface (callers use the functions further down) ---- */
struct sql_ops {
	enum sql_backend backend;
	const char *name;
	int (*prepare)(struct sql *c, const char *sql, unsigned flags, struct sql_stmt **out);
	int (*bind_int64)(struct sql_stmt *st, int i, int64_t v);
	int (*bind_text)(struct sql_stmt *st, int i, const char *s, int len, bool copy);
	int (*bind_blob)(struct sql_stmt *st, int i, const void *p, int len, bool copy);
	int (*bind_null)(struct sql_stmt *st, int i);
	int (*step)(struct sql_stmt *st);
	int64_t (*column_int64)(struct sql_stmt *st, int i);
	const char *(*column_text)(struct sql_stmt *st, int i);
	const void *(*column_blob)(struct sql_stmt *st, int i);
	int (*column_bytes)(struct sql_stmt *st, int i);
	int (*column_type)(struct sql_stmt *st, int i);
	int (*column_count)(struct sql_stmt *st);
	int (*reset)(struct sql_stmt *st);
	int (*clear_bindings)(struct sql_stmt *st);
	void (*finalize)(struct sql_stmt *st);
	int (*exec)(struct sql *c, const char *script);
	int64_t (*changes)(struct sql *c);
	int64_t (*last_insert_id)(struct sql *c);
	int (*begin)(struct sql *c);
	int (*commit)(struct sql *c);
	int (*rollback)(struct sql *c);
	bool (*in_tx)(struct sql *c);
	const char *(*errmsg)(struct sql *c);
	void (*close)(struct sql *c);
};

/* The first member of every backend's connection and statement. */
struct sql {
	const struct sql_ops *ops;
};
struct sql_stmt {
	const struct sql_ops *ops;
};

/* ---- opening ---- */

/* SQLite file at path (created when absent unless read_only), no pragmas:
 * db/ sets its own (db_conn_open). -errno with a log line on failure. */
int sql_sqlite_open(const char *path, bool read_only, struct sql **out);
/* dqlite database `name` on the cluster that node_addr ("host:port") belongs
 * to: asks that node for the leader and connects to it (reads and writes
 * both go to the leader). -EHOSTUNREACH with a log line when the cluster has
 * no leader now, else dqlc's -errno. */
int sql_dqlite_open(const char *node_addr, const char *name, struct sql **out);
/* Accepts NULL; finalize the connection's statements first. */
static inline void sql_close(struct sql *c)
{
	if (c)
		c->ops->close(c);
}

static inline enum sql_backend sql_backend(const struct sql *c) { return c->ops->backend; }
static inline const char *sql_backend_name(const struct sql *c) { return c->ops->name; }

/* ---- SQLite-only ---- */

/* The sqlite3 handle of a SQLite connection (tests read its counters), NULL
 * for another backend. */
struct sqlite3 *sql_sqlite_handle(struct sql *c);
/* Retry SQLITE_BUSY every 100 us for up to 5 s (db.c says why). */
int sql_sqlite_busy_wait(struct sql *c);
/* A SQLite result code (extended codes too) to -errno, the mapping above;
 * also for dqlite, whose FAILURE answers carry SQLite codes. 0 for OK, ROW, DONE. */
int sql_sqlite_errno(int code);
/* PASSIVE WAL checkpoint: 0 and *frames moved, -EBUSY, -EOPNOTSUPP on
 * another backend, -errno. */
int sql_sqlite_checkpoint(struct sql *c, int *frames);

/* ---- statements ---- */

static inline int sql_prepare(struct sql *c, const char *sql, unsigned flags, struct sql_stmt **out)
{
	return c->ops->prepare(c, sql, flags, out);
}
/* Parameters are numbered from 1, as in SQL (?1, ?2 ...). len < 0: strlen. */
static inline int sql_bind_int64(struct sql_stmt *st, int i, int64_t v)
{
	return st->ops->bind_int64(st, i, v);
}
static inline int sql_bind_text(struct sql_stmt *st, int i, const char *s, int len)
{
	return st->ops->bind_text(st, i, s, len, false);
}
static inline int sql_bind_text_copy(struct sql_stmt *st, int i, const char *s, int len)
{
	return st->ops->bind_text(st, i, s, len, true);
}
static inline int sql_bind_blob(struct sql_stmt *st, int i, const void *p, int len)
{
	return st->ops->bind_blob(st, i, p, len, false);
}
static inline int sql_bind_null(struct sql_stmt *st, int i) { return st->ops->bind_null(st, i); }
/* SQL_ROW, SQL_DONE or -errno. */
static inline int sql_step(struct sql_stmt *st) { return st->ops->step(st); }
/* Columns are numbered from 0. Text of a NULL is NULL. */
static inline int64_t sql_column_int64(struct sql_stmt *st, int i)
{
	return st->ops->column_int64(st, i);
}
static inline int sql_column_int(struct sql_stmt *st, int i)
{
	return (int)st->ops->column_int64(st, i);
}
static inline const char *sql_column_text(struct sql_stmt *st, int i)
{
	return st->ops->column_text(st, i);
}
static inline const void *sql_column_blob(struct sql_stmt *st, int i)
{
	return st->ops->column_blob(st, i);
}
static inline int sql_column_bytes(struct sql_stmt *st, int i)
{
	return st->ops->column_bytes(st, i);
}
static inline int sql_column_type(struct sql_stmt *st, int i)
{
	return st->ops->column_type(st, i);
}
static inline int sql_column_count(struct sql_stmt *st) { return st->ops->column_count(st); }
/* Back to before the first step; bindings are kept. */
static inline int sql_reset(struct sql_stmt *st) { return st->ops->reset(st); }
static inline int sql_clear_bindings(struct sql_stmt *st) { return st->ops->clear_bindings(st); }
/* Accepts NULL. */
static inline void sql_finalize(struct sql_stmt *st)
{
	if (st)
		st->ops->finalize(st);
}

/* ---- connection ---- */

/* One or more statements without parameters or rows (DDL, a migration step). */
static inline int sql_exec(struct sql *c, const char *script) { return c->ops->exec(c, script); }
/* Rows changed by the last INSERT / UPDATE / DELETE on this connection. */
static inline int64_t sql_changes(struct sql *c) { return c->ops->changes(c); }
static inline int64_t sql_last_insert_id(struct sql *c) { return c->ops->last_insert_id(c); }
/* BEGIN IMMEDIATE / COMMIT / ROLLBACK (a write transaction from the start). */
static inline int sql_begin(struct sql *c) { return c->ops->begin(c); }
static inline int sql_commit(struct sql *c) { return c->ops->commit(c); }
static inline int sql_rollback(struct sql *c) { return c->ops->rollback(c); }
static inline bool sql_in_tx(struct sql *c) { return c->ops->in_tx(c); }
static inline const char *sql_errmsg(struct sql *c) { return c->ops->errmsg(c); }

#endif
