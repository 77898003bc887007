/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* db internals shared by db.c, sims.c, writer.c and cli.c (and tests/db). */
#ifndef SOLOCORE_DB_DB_INT_H
#define SOLOCORE_DB_DB_INT_H

#include <errno.h>
#include <stdatomic.h>
#include <sys/types.h>

#include "db/db.h"
#include "db/sql.h"

struct db {
	struct sql *conn;
	/* Where conn leads, to open more connections (db_open_peer, the writer):
	 * the SQLite file, or (dqlite) a node of the cluster and the database name. */
	char *path;
	char *dq_addr, *dq_name;
	struct sql_stmt *st_get, *st_put, *st_del, *st_insert;
	struct sql_stmt *st_pol_exists;   /* policy.c: subscriber writes check the name */
	/* count(*) of subscribers walks the whole index (~120 ms at 10^6):
	 * kept here, -1 = unknown. Only this connection adds or removes rows
	 * (the writer thread only updates SQNs): a put that inserts adds one, a
	 * delete takes one (db.c), anything else it cannot follow sets it back
	 * to -1 (db_rows_changed). A peer connection (the web's
	 * task thread, db_open_peer) that adds or removes rows bumps its main's
	 * rows_gen instead, which the main compares with the generation its cache was
	 * counted at. */
	int64_t count_cache;
	uint64_t count_gen;
	bool count_hold;           /* db_subscriber_count_hold: a peer's import is running */
	_Atomic uint64_t rows_gen;
	struct db *main;           /* of a peer connection; NULL for the main one */
};

/* Rows of subscribers were added or removed through db: cached counts are stale. */
static inline void db_rows_changed(struct db *db)
{
	db->count_cache = -1;
	if (db->main)
		atomic_fetch_add(&db->main->rows_gen, 1);
}

/* Create path if absent and make it (and its -wal / -shm) 0600. 0 or -errno (-ELOOP for a
 * symlink, -EINVAL for no regular file). Never opens an existing file: a close would drop this
 * process's POSIX locks on it, which its open connections rely on (db.c). */
int db_file_private(const char *path);
/* The id of another process holding a lock on the database file path (SQLite's SHARED lock,
 * kept by every connection in WAL mode), 0 when none (or no file), -errno. Opens and closes
 * the file: only for a process with no connection on it (db_restore_apply, before db_open's). */
pid_t db_file_holder(const char *path);
/* Open a connection with solocore's pragmas (WAL, synchronous=NORMAL, busy timeout). */
int db_conn_open(const char *path, struct sql **out);
/* A new connection like db's own (the same file, or the same dqlite database
 * through its leader). 0 or -errno. */
int db_conn_again(const struct db *db, struct sql **out);
/* Run the migration steps: steps[i] takes user_version i to i+1, each in
 * its own transaction. Exposed so tests can run longer lists. */
int db_migrate_steps(struct sql *conn, const char *const *steps, int n);
/* -EOPNOTSUPP with a log line naming what when db is not on a SQLite file
 * (file modes, VACUUM INTO backups, restore from a file, WAL checkpoints). */
int db_file_only(const struct db *db, const char *what);

/* The command lines' shared parts (cli.c; sims and users): exit code of a usage error,
 * --db PATH / --cluster ADDRS into *loc (buf holds the "dqlite:" form; 1 when argv[*i] was
 * one of them and i moved past its value, 0 when not, DB_EXIT_USAGE after a message), and the
 * message for a database that does not open. */
#define DB_EXIT_USAGE 2
int db_cli_location_arg(int argc, char **argv, int *i, const char **loc, char *buf, size_t bufsz);
void db_cli_open_error(const char *loc, int r);

/* Insert statement used by import (plain INSERT: a duplicate SUPI fails). */
int db_prepare_insert(struct db *db);
/* A one-shot statement on db's connection (the caller finalizes it); a failure is logged.
 * 0 or -errno. */
int db_stmt(struct db *db, const char *sql, struct sql_stmt **st);

/* What a caller does with the current row of a statement (copy its columns out, hand them
 * to a callback); its non-zero return stops db_rows_walk(). */
typedef int (*db_row_fn)(struct sql_stmt *st, void *ctx);

/* The one row a bound statement from db_stmt() selects to fn(st, ctx), then st finalized.
 * fn's result, -ENOENT when there is no row, or -errno. */
static inline int db_row_get(struct sql_stmt *st, db_row_fn fn, void *ctx)
{
	int rc = sql_step(st);
	int r = rc == SQL_ROW ? fn(st, ctx) : rc == SQL_DONE ? -ENOENT : rc;

	sql_finalize(st);
	return r;
}

/* Every row of a bound statement from db_stmt() to fn(st, ctx) until fn returns non-zero,
 * then st finalized. The number of rows fn took, fn's non-zero result, or -errno. */
static inline int db_rows_walk(struct sql_stmt *st, db_row_fn fn, void *ctx)
{
	int n = 0, r = 0, rc;

	while ((rc = sql_step(st)) == SQL_ROW) {
		if ((r = fn(st, ctx)) != 0)
			break;
		n++;
	}
	if (r == 0 && rc != SQL_DONE)
		r = rc;
	sql_finalize(st);
	return r ? r : n;
}
/* Binds s by reference (sql_bind_text): s must stay valid until the step. */
int db_bind_subscriber(struct sql_stmt *st, const struct db_subscriber *s, int64_t now);

/* Slices as text "1:010203,2" and DNNs as "internet,ims" (db columns). */
int db_slices_parse(const char *txt, struct db_subscriber *s);
int db_dnns_parse(const char *txt, struct db_subscriber *s);
/* The same on bare arrays (policy rows): at most DB_MAX_SLICES / DB_MAX_DNNS. */
int db_slices_parse_n(const char *txt, struct db_snssai *slices, uint8_t *n);
int db_dnns_parse_n(const char *txt, char (*dnns)[DB_DNN_MAX + 1], uint8_t *n);
/* Arrays to the column text; out of DB_SLICES_TEXT_MAX / DB_DNNS_TEXT_MAX bytes. */
#define DB_SLICES_TEXT_MAX (DB_MAX_SLICES * 12 + 1)
#define DB_DNNS_TEXT_MAX (DB_MAX_DNNS * (DB_DNN_MAX + 1) + 1)
void db_slices_text(const struct db_snssai *slices, unsigned n, char *out, size_t outsz);
void db_dnns_text(const char (*dnns)[DB_DNN_MAX + 1], unsigned n, char *out, size_t outsz);
/* policy.c: 1 if a policy of that name exists, 0 if not, or -errno. */
int db_policy_exists(struct db *db, const char *name);
/* Parse "sst[:sd]" (sd 6 hex digits); 0 or -EINVAL. */
int db_snssai_parse(const char *txt, size_t len, struct db_snssai *out);
bool db_imsi_valid(const char *digits, size_t len);
bool db_dnn_valid(const char *dnn, size_t len);

/* users.c: if PATH.restore exists (db_restore_stage), validate it and move
 * it over path (dropping PATH-wal/-shm) before the file is opened. */
int db_restore_apply(const char *path);

#endif
