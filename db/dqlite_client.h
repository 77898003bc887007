/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * dqlc - a small client for dqlite's wire protocol (protocol version 1),
 * reference: https://dqlite.io/docs/reference/wire-protocol ("WP" below).
 *
 * Debian 12's libdqlite 1.11 only ships the node API; a process that wants to
 * run SQL on a (possibly remote) dqlite node talks to it over TCP with this
 * client: connect + handshake, LEADER, CLIENT, OPEN, EXEC_SQL / QUERY_SQL and
 * prepared statements (PREPARE / EXEC / QUERY / FINALIZE).
 *
 * One struct dqlc is one connection, used by one thread at a time. The
 * protocol is strictly request/response, so a connection runs one request at
 * a time; a query's rows are read one by one with dqlc_next() and a new
 * request first drains (discards) the rows of a query left unfinished.
 *
 * Memory: the client owns one growable buffer used both to build requests and
 * to receive responses; nothing is allocated per row. Text and blob values
 * and column names returned by a query point into that buffer and stay valid
 * until the next call on the same connection.
 *
 * Errors: 0 (or a count) on success, a negative errno on failure.
 *  -DQLC_EFAILURE  the server answered FAILURE (WP "FAILURE"): dqlc_errcode()
 *                  and dqlc_errmsg() give its SQLite code and message; the
 *                  connection stays usable.
 *  -ETIMEDOUT      a socket operation took longer than the timeout.
 *  -EPROTO         a response did not decode (bad length, type, value).
 *  -EMSGSIZE       a response larger than DQLC_MSG_MAX.
 *  -ECONNRESET     the server closed the connection.
 *  -ENOTCONN       an earlier I/O or protocol error broke the connection.
 *  -EINVAL, -ENOMEM, -E2BIG (too many parameters or columns).
 * After any error but -DQLC_EFAILURE, -EINVAL and -E2BIG before anything was
 * sent, the byte stream may be out of step: the connection is broken and
 * every later call returns -ENOTCONN; close it and connect again.
 */
#ifndef SOLOCORE_DB_DQLITE_CLIENT_H
#define SOLOCORE_DB_DQLITE_CLIENT_H

#include <errno.h>
#include <stddef.h>
#include <stdint.h>

/* FAILURE response from the server (SQL error, not leader, ...). */
#define DQLC_EFAILURE EREMOTEIO

/* Named limits (responses past them are -EPROTO / -EMSGSIZE, never a crash). */
#define DQLC_MSG_MAX (16u << 20)    /* one message body, bytes */
#define DQLC_PARAMS_MAX 255         /* WP tuple, params format: 1-byte count */
#define DQLC_COLUMNS_MAX 64         /* columns of a result set we accept */
#define DQLC_ADDR_MAX 256           /* "host:port" of a node */
#define DQLC_ERRMSG_MAX 256         /* FAILURE message kept for dqlc_errmsg() */
#define DQLC_TIMEOUT_MS_DEFAULT 5000

/* Value types: the SQLite / dqlite type codes of WP "Tuple". */
enum dqlc_type {
	DQLC_INTEGER = 1,
	DQLC_FLOAT = 2,
	DQLC_TEXT = 3,
	DQLC_BLOB = 4,
	DQLC_NULL = 5,
	DQLC_UNIXTIME = 9,   /* int64 seconds; rows only */
	DQLC_ISO8601 = 10,   /* text; rows only */
	DQLC_BOOLEAN = 11,   /* 0 / 1 in .i; rows only */
};

/*
 * A parameter (filled by the caller) or a column value (filled by dqlc_next).
 * Text: .s with .len bytes, NUL-terminated on output; on input .s must be
 * NUL-terminated without interior NULs (the wire format has no length).
 */
struct dqlc_value {
	enum dqlc_type type;
	union {
		int64_t i;       /* INTEGER, UNIXTIME, BOOLEAN */
		double f;        /* FLOAT */
		struct {
			const void *p;   /* TEXT / ISO8601: const char *, BLOB: bytes */
			size_t len;
		} b;
	};
};

static inline struct dqlc_value dqlc_int(int64_t i)
{
	return (struct dqlc_value){ .type = DQLC_INTEGER, .i = i };
}
static inline struct dqlc_value dqlc_float(double f)
{
	return (struct dqlc_value){ .type = DQLC_FLOAT, .f = f };
}
static inline struct dqlc_value dqlc_text(const char *s)
{
	return (struct dqlc_value){ .type = DQLC_TEXT, .b = { s, 0 } };
}
static inline struct dqlc_value dqlc_blob(const void *p, size_t len)
{
	return (struct dqlc_value){ .type = DQLC_BLOB, .b = { p, len } };
}
static inline struct dqlc_value dqlc_null(void)
{
	return (struct dqlc_value){ .type = DQLC_NULL };
}

/* RESULT response of EXEC / EXEC_SQL. */
struct dqlc_result {
	uint64_t last_insert_id;
	uint64_t rows_affected;
};

struct dqlc;

/*
 * Connect to "host:port" ("[v6addr]:port" for IPv6) and send the protocol
 * version (WP "Setup"). timeout_ms (<= 0: DQLC_TIMEOUT_MS_DEFAULT) bounds the
 * connect and every later send or receive of this connection.
 */
int dqlc_connect(const char *hostport, int timeout_ms, struct dqlc **out);
/* Close the socket and free everything; NULL is fine. */
void dqlc_close(struct dqlc *c);

/* LEADER: the leader's node id and address ("" and 0 when there is none now). */
int dqlc_leader(struct dqlc *c, uint64_t *id, char *addr, size_t addr_size);
/* CLIENT: register as client `id` (WP "CLIENT"); returns the server's
 * heartbeat timeout (ms) in *heartbeat_ms when non-NULL. */
int dqlc_register(struct dqlc *c, uint64_t id, uint64_t *heartbeat_ms);
/* OPEN: open (create) database `name` on this connection; *db_id for the rest. */
int dqlc_open(struct dqlc *c, const char *name, uint32_t *db_id);

/* EXEC_SQL: run `sql` (one or more statements) with n parameters. */
int dqlc_exec_sql(struct dqlc *c, uint32_t db_id, const char *sql,
		  const struct dqlc_value *params, unsigned n, struct dqlc_result *res);
/* QUERY_SQL: run `sql`; returns the column count, rows follow with dqlc_next(). */
int dqlc_query_sql(struct dqlc *c, uint32_t db_id, const char *sql,
		   const struct dqlc_value *params, unsigned n);

/* PREPARE: *stmt_id and (when non-NULL) the statement's parameter count. */
int dqlc_prepare(struct dqlc *c, uint32_t db_id, const char *sql, uint32_t *stmt_id,
		 uint64_t *n_params);
int dqlc_exec(struct dqlc *c, uint32_t db_id, uint32_t stmt_id,
	      const struct dqlc_value *params, unsigned n, struct dqlc_result *res);
/* QUERY of a prepared statement; like dqlc_query_sql. */
int dqlc_query(struct dqlc *c, uint32_t db_id, uint32_t stmt_id,
	       const struct dqlc_value *params, unsigned n);
/* FINALIZE. Never use stmt_id afterwards: libdqlite 1.11.1 (Debian 12) looks
 * the id up in its statement registry without checking for a freed slot, and
 * an EXEC/QUERY of a finalized id crashes the node (SIGSEGV in registry_get,
 * seen in tests/db/test_dqlite_client.c). An id never handed out is a FAILURE. */
int dqlc_finalize(struct dqlc *c, uint32_t db_id, uint32_t stmt_id);

/*
 * The next row of the current query into vals[0..n_vals-1] (n_vals must be
 * at least the column count). Returns 1 with a row, 0 at the end of the
 * result set, or a negative errno.
 */
int dqlc_next(struct dqlc *c, struct dqlc_value *vals, unsigned n_vals);
/* Column count and names of the current query (names valid like values). */
unsigned dqlc_columns(const struct dqlc *c);
const char *dqlc_column_name(const struct dqlc *c, unsigned i);

/* The last FAILURE: SQLite (extended) result code and message. */
uint64_t dqlc_errcode(const struct dqlc *c);
const char *dqlc_errmsg(const struct dqlc *c);

#endif /* SOLOCORE_DB_DQLITE_CLIENT_H */
