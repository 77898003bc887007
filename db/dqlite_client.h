/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * dqlc - a small client for dqlite's wire protocol (protocol version 1),
 * reference: https://dqlite.io/docs/reference/wire-protocol ("WP" below).
 *
 * Debian 12's libdqlite 1.11 only ships the node API; a process that wants to
 * run SQL on a (possibly remote) dqlite node talks to it over TCP with this
 * client: connect + handshake, LEADER, CLIENT, OPEN, EXEC_SQL / QUERY_SQL,
 * prepared statements (PREPARE / EXEC / QUERY / FINALIZE) and membership
 * (CLUSTER, ADD, ASSIGN, REMOVE, TRANSFER).
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
 * Transport security (issue 31): every dqlc_connect() of the process runs a
 * TLS 1.3 handshake presenting dir/tls/node.crt (key node.key) and verifying
 * the node against dir/tls/ca.crt (the cluster CA, db/cluster_pki.h). A
 * solocore node closes any connection without such a certificate before
 * dqlite sees a byte. Until dqlc_tls_init() succeeded, dqlc_connect() returns
 * -ENOKEY: nothing in the tree talks to a cluster in clear.
 * dqlc_tls_init: 0, -ENOENT (a file missing), -EBADMSG (unreadable, or the
 * key does not match the certificate). It may be called again (new
 * connections use the new files). Thread-safe.
 */
int dqlc_tls_init(const char *dir);
/* Forget the certificate (dqlc_connect gives -ENOKEY again). */
void dqlc_tls_reset(void);
/* A server whose certificate does not chain to the CA: dqlc_connect's error. */
#define DQLC_EBADCERT EKEYREJECTED

/*
 * Connect to "host:port" ("[v6addr]:port" for IPv6) and send the protocol
 * version (WP "Setup"). timeout_ms (<= 0: DQLC_TIMEOUT_MS_DEFAULT) bounds the
 * connect and every later send or receive of this connection.
 */
int dqlc_connect(const char *hostport, int timeout_ms, struct dqlc **out);
/* (TLS: -ENOKEY before dqlc_tls_init, -EKEYREJECTED for a server certificate
 * the CA did not sign, -ECONNRESET when the server refused ours.) */
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

/* ---- membership (WP "CLUSTER", "ADD", "ASSIGN", "REMOVE", "TRANSFER") ----
 *
 * ADD, ASSIGN, REMOVE and TRANSFER must go to the leader: another node
 * answers FAILURE (SQLite code DQLC_NOT_LEADER, "not leader"); find it with
 * dqlc_leader(). The leader answers once the Raft configuration change is
 * committed (ASSIGN to voter: once the node has caught up with the log), so
 * these calls can take up to the connection's timeout. Raft runs one change
 * at a time: a second one meanwhile is a FAILURE ("a configuration change is
 * already in progress"), to be tried again. */

/* Role codes (WP "CLUSTER", format 1). */
enum dqlc_role {
	DQLC_ROLE_VOTER = 0,     /* votes and can be elected */
	DQLC_ROLE_STANDBY = 1,   /* replicates, does not vote */
	DQLC_ROLE_SPARE = 2,     /* in the configuration only */
};

/* libdqlite's SQLITE_IOERR_NOT_LEADER (SQLITE_IOERR | 40 << 8), the code of
 * the FAILURE a follower answers to a request only the leader serves. */
#define DQLC_NOT_LEADER 10250u
/* SQLITE_IOERR_LEADERSHIP_LOST (SQLITE_IOERR | 41 << 8): the node was leader when
 * the request came but lost leadership before it committed (e.g. cut off from the
 * majority: seen after about 6 s with the 1.11 defaults, tests/db/test_cluster.c).
 * The outcome is unknown: Raft may still commit the entry later. 1.11 sends the
 * message "disk I/O error" with it. */
#define DQLC_LEADERSHIP_LOST 10506u
#define DQLC_NODES_MAX 16        /* members of one CLUSTER answer we accept */

struct dqlc_node {
	uint64_t id;
	char addr[DQLC_ADDR_MAX];
	enum dqlc_role role;
};

/* CLUSTER, format 1 (id, address, role): the Raft configuration as this
 * node knows it (any node answers; a follower's view may lag). Fills
 * nodes[0..max-1]; returns the member count, -E2BIG when there are more
 * than max (the connection stays usable), -EPROTO for a bad answer. */
int dqlc_cluster(struct dqlc *c, struct dqlc_node *nodes, unsigned max);
/* ADD node `id` at `addr` (it joins as a spare; ASSIGN makes it a voter). */
int dqlc_add(struct dqlc *c, uint64_t id, const char *addr);
/* ASSIGN `role` to node `id`. */
int dqlc_assign(struct dqlc *c, uint64_t id, enum dqlc_role role);
/* REMOVE node `id` from the configuration. */
int dqlc_remove(struct dqlc *c, uint64_t id);
/* TRANSFER leadership to node `id` (0: let the leader pick a voter). */
int dqlc_transfer(struct dqlc *c, uint64_t id);
/* "voter", "standby", "spare" or "?". */
const char *dqlc_role_name(enum dqlc_role r);

/* The last FAILURE: SQLite (extended) result code and message. */
uint64_t dqlc_errcode(const struct dqlc *c);
const char *dqlc_errmsg(const struct dqlc *c);

#endif /* SOLOCORE_DB_DQLITE_CLIENT_H */
