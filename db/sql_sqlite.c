/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * sql_sqlite - the sql.h backend on a local SQLite file: each op is the
 * sqlite3_* call of the same name, nothing more (the subscriber load path
 * steps 10^6 rows through it), plus the SQLite result code -> errno map.
 */
#include "db/sql.h"

#include <errno.h>
#include <sqlite3.h>
#include <stdlib.h>
#include <time.h>

#include "common/log.h"

struct lite {
	struct sql base;
	sqlite3 *db;
	/* BEGIN IMMEDIATE, COMMIT, ROLLBACK prepared once, on first use:
	 * sqlite3_exec would parse them again for every writer batch (~1,000
	 * instructions per NGAP message of a serial cycle, on the core's CPU). */
	sqlite3_stmt *tx[3];
};

struct lite_stmt {
	struct sql_stmt base;
	sqlite3_stmt *st;
};

#define LC(c) ((struct lite *)(c))
#define LS(s) (((struct lite_stmt *)(s))->st)

int sql_sqlite_errno(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_OK:
	case SQLITE_DONE:
	case SQLITE_ROW:
		return 0;
	case SQLITE_NOMEM: return -ENOMEM;
	case SQLITE_BUSY:
	case SQLITE_LOCKED: return -EBUSY;
	case SQLITE_CONSTRAINT: return -EEXIST;
	case SQLITE_CANTOPEN: return -ENOENT;
	case SQLITE_PERM:
	case SQLITE_READONLY: return -EACCES;
	case SQLITE_FULL: return -ENOSPC;
	case SQLITE_NOTADB:
	case SQLITE_CORRUPT: return -EPROTO;
	default: return -EIO;
	}
}

static const struct sql_ops lite_ops;

static int l_prepare(struct sql *c, const char *sql, unsigned flags, struct sql_stmt **out)
{
	struct lite_stmt *s = malloc(sizeof(*s));

	if (!s)
		return -ENOMEM;
	int rc = sqlite3_prepare_v3(LC(c)->db, sql, -1,
				    flags & SQL_PERSISTENT ? SQLITE_PREPARE_PERSISTENT : 0, &s->st, NULL);
	if (rc != SQLITE_OK) {
		sqlite3_finalize(s->st);
		free(s);
		return sql_sqlite_errno(rc);
	}
	s->base.ops = &lite_ops;
	*out = &s->base;
	return 0;
}

static int l_bind_int64(struct sql_stmt *st, int i, int64_t v)
{
	return sql_sqlite_errno(sqlite3_bind_int64(LS(st), i, v));
}

static int l_bind_text(struct sql_stmt *st, int i, const char *s, int len, bool copy)
{
	return sql_sqlite_errno(sqlite3_bind_text(LS(st), i, s, len, copy ? SQLITE_TRANSIENT : SQLITE_STATIC));
}

static int l_bind_blob(struct sql_stmt *st, int i, const void *p, int len, bool copy)
{
	return sql_sqlite_errno(sqlite3_bind_blob(LS(st), i, p, len, copy ? SQLITE_TRANSIENT : SQLITE_STATIC));
}

static int l_bind_null(struct sql_stmt *st, int i) { return sql_sqlite_errno(sqlite3_bind_null(LS(st), i)); }

static int l_step(struct sql_stmt *st)
{
	int rc = sqlite3_step(LS(st));

	return rc == SQLITE_ROW ? SQL_ROW : rc == SQLITE_DONE ? SQL_DONE : sql_sqlite_errno(rc);
}

static int64_t l_column_int64(struct sql_stmt *st, int i) { return sqlite3_column_int64(LS(st), i); }

static const char *l_column_text(struct sql_stmt *st, int i)
{
	return (const char *)sqlite3_column_text(LS(st), i);
}

static const void *l_column_blob(struct sql_stmt *st, int i) { return sqlite3_column_blob(LS(st), i); }
static int l_column_bytes(struct sql_stmt *st, int i) { return sqlite3_column_bytes(LS(st), i); }
static int l_column_type(struct sql_stmt *st, int i) { return sqlite3_column_type(LS(st), i); }
static int l_column_count(struct sql_stmt *st) { return sqlite3_column_count(LS(st)); }
/* The error of the last step is reported by the step; reset itself only rewinds. */
static int l_reset(struct sql_stmt *st) { sqlite3_reset(LS(st)); return 0; }
static int l_clear_bindings(struct sql_stmt *st) { return sql_sqlite_errno(sqlite3_clear_bindings(LS(st))); }

static void l_finalize(struct sql_stmt *st)
{
	sqlite3_finalize(LS(st));
	free(st);
}

static int l_exec(struct sql *c, const char *script)
{
	return sql_sqlite_errno(sqlite3_exec(LC(c)->db, script, NULL, NULL, NULL));
}

static int64_t l_changes(struct sql *c) { return sqlite3_changes64(LC(c)->db); }
static int64_t l_last_insert_id(struct sql *c) { return sqlite3_last_insert_rowid(LC(c)->db); }

static int tx_step(struct sql *c, unsigned which)
{
	static const char *const sql[3] = { "BEGIN IMMEDIATE", "COMMIT", "ROLLBACK" };
	struct lite *l = LC(c);

	if (!l->tx[which]) {
		int rc = sqlite3_prepare_v3(l->db, sql[which], -1, SQLITE_PREPARE_PERSISTENT,
					    &l->tx[which], NULL);
		if (rc != SQLITE_OK)
			return sql_sqlite_errno(rc);
	}
	int rc = sqlite3_step(l->tx[which]);
	/* The reset's own return repeats the step's error; errmsg stays until the next call. */
	sqlite3_reset(l->tx[which]);
	return rc == SQLITE_DONE ? 0 : sql_sqlite_errno(rc);
}

static int l_begin(struct sql *c) { return tx_step(c, 0); }
static int l_commit(struct sql *c) { return tx_step(c, 1); }
static int l_rollback(struct sql *c) { return tx_step(c, 2); }
static bool l_in_tx(struct sql *c) { return !sqlite3_get_autocommit(LC(c)->db); }
static const char *l_errmsg(struct sql *c) { return sqlite3_errmsg(LC(c)->db); }

static void l_close(struct sql *c)
{
	struct lite *l = LC(c);

	for (unsigned i = 0; i < 3; i++)
		sqlite3_finalize(l->tx[i]);
	sqlite3_close(l->db);
	free(l);
}

static const struct sql_ops lite_ops = {
	.backend = SQL_SQLITE,
	.name = "sqlite",
	.prepare = l_prepare,
	.bind_int64 = l_bind_int64,
	.bind_text = l_bind_text,
	.bind_blob = l_bind_blob,
	.bind_null = l_bind_null,
	.step = l_step,
	.column_int64 = l_column_int64,
	.column_text = l_column_text,
	.column_blob = l_column_blob,
	.column_bytes = l_column_bytes,
	.column_type = l_column_type,
	.column_count = l_column_count,
	.reset = l_reset,
	.clear_bindings = l_clear_bindings,
	.finalize = l_finalize,
	.exec = l_exec,
	.changes = l_changes,
	.last_insert_id = l_last_insert_id,
	.begin = l_begin,
	.commit = l_commit,
	.rollback = l_rollback,
	.in_tx = l_in_tx,
	.errmsg = l_errmsg,
	.close = l_close,
};

int sql_sqlite_open(const char *path, bool read_only, struct sql **out)
{
	struct lite *l = calloc(1, sizeof(*l));

	if (!l)
		return -ENOMEM;
	/* NOMUTEX: each connection belongs to one thread. */
	int flags = (read_only ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE) |
		    SQLITE_OPEN_NOMUTEX;
	int rc = sqlite3_open_v2(path, &l->db, flags, NULL);
	if (rc != SQLITE_OK) {
		/* A read-only open probes a file someone handed in (a restore):
		 * the caller says what is wrong with it. */
		if (!read_only)
			log_error("db", "cannot open %s: %s", path,
				  l->db ? sqlite3_errmsg(l->db) : sqlite3_errstr(rc));
		sqlite3_close(l->db);
		free(l);
		return sql_sqlite_errno(rc);
	}
	l->base.ops = &lite_ops;
	*out = &l->base;
	return 0;
}

struct sqlite3 *sql_sqlite_handle(struct sql *c)
{
	return c && c->ops == &lite_ops ? LC(c)->db : NULL;
}

/* SQLITE_BUSY: the other connection (the SQN writer thread, or the control thread's API
 * write) holds the WAL write lock for one short transaction. sqlite3_busy_timeout backs off
 * 1, 2, 5 ... 100 ms between looks, so behind the writer's steady stream of batches under
 * load one API write slept up to half a second on the control thread (web-e2e-load saw
 * 531 ms, every NGAP procedure waiting with it). Look every 100 us instead: the wait is what
 * the lock is held, not the back-off's step. Gives up after 5 s, as the timeout did. */
static int busy_wait(void *arg, int n)
{
	static const struct timespec step = { 0, 100000 };

	(void)arg;
	if (n >= 50000)
		return 0;
	nanosleep(&step, NULL);
	return 1;
}

int sql_sqlite_busy_wait(struct sql *c)
{
	if (c->ops != &lite_ops)
		return -EOPNOTSUPP;
	return sql_sqlite_errno(sqlite3_busy_handler(LC(c)->db, busy_wait, NULL));
}

int sql_sqlite_checkpoint(struct sql *c, int *frames)
{
	int log = 0, done = 0;

	if (c->ops != &lite_ops)
		return -EOPNOTSUPP;
	int rc = sqlite3_wal_checkpoint_v2(LC(c)->db, NULL, SQLITE_CHECKPOINT_PASSIVE, &log, &done);
	*frames = done > 0 ? done : 0;
	return sql_sqlite_errno(rc);
}
