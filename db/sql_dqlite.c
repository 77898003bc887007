/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * sql_dqlite - the sql.h backend on a dqlite cluster, through dqlc (the
 * wire-protocol client, db/dqlite_client.h).
 *
 * One struct sql is one dqlc connection to the leader with one database
 * open. Statements map onto dqlite's prepared statements:
 *   sql_prepare  -> PREPARE (the id is the server's; never used after FINALIZE,
 *                   see dqlite_client.h on libdqlite 1.11.1)
 *   sql_step of a reading statement -> QUERY with the bound parameters on the
 *                   first step, then one row per step from dqlc_next()
 *   sql_step of a writing statement -> EXEC; changes and last insert id come
 *                   from its RESULT
 *   transactions -> BEGIN IMMEDIATE / COMMIT / ROLLBACK as EXEC_SQL on the same
 *                   connection (the leader holds the transaction for it)
 *
 * Reading or writing is decided once, at prepare, from the statement's
 * first keyword: SELECT, VALUES, WITH and EXPLAIN read; PRAGMA reads unless
 * it assigns ("PRAGMA x = v"); everything else writes. That is all db/ runs
 * (no INSERT ... RETURNING, no writing CTE). A writing statement run as
 * QUERY would return its rows but a reading one run as EXEC would lose them,
 * and dqlite cannot tell us up front (PREPARE answers only the parameter
 * count), hence the keyword.
 *
 * Lost connection, or the leader moved (a request answered "not leader",
 * or the socket failed): the connection is marked broken and the next
 * request first finds the leader again (last leader, then the node given at
 * open) and opens the database anew; statements are prepared again on their
 * next step (each keeps its SQL). What is retried at once on the new
 * connection: PREPARE, BEGIN and reading statements (nothing to repeat
 * twice), and a write the old leader refused as "not leader" (it did not
 * run). A write whose answer was lost is reported failed, never sent again:
 * it may have committed. A transaction does not survive its connection:
 * after the loss everything but COMMIT (which fails) and ROLLBACK (which
 * ends it) is refused with -ENOTCONN, so no later write of the group lands
 * outside it.
 *
 * Bindings are kept in the statement (by reference, or copied into its own
 * buffer for the _copy calls) and sent with the QUERY or EXEC. Nothing is
 * allocated per step: the parameter and row arrays are sized at prepare.
 */
#include "db/sql.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"
#include "db/dqlite_client.h"

#define DQ_TIMEOUT_MS 5000
/* SQLITE_BUSY from the leader (another connection holds the write
 * transaction): tried again every DQ_BUSY_STEP_US for up to DQ_BUSY_MAX_MS,
 * as the SQLite backend's busy handler does (db.c), so a writer batch or an
 * API write waits for the other's short transaction instead of failing. */
#define DQ_BUSY_STEP_US 1000
#define DQ_BUSY_MAX_MS 5000

struct dq_stmt;

struct dq {
	struct sql base;
	struct dqlc *c;
	uint32_t db_id;
	struct dq_stmt *streaming;   /* the statement whose rows the connection carries */
	int64_t changes, last_id;
	bool in_tx;
	bool broken;                 /* reconnect before the next request */
	bool tx_lost;                /* in_tx, but the connection holding it is gone */
	uint32_t gen;                /* connections so far: a statement of an older one is re-prepared */
	char *addr, *name;           /* as given to sql_dqlite_open */
	char leader[DQLC_ADDR_MAX];  /* where we are connected */
	char err[DQLC_ERRMSG_MAX + 64];
};

enum dq_state { DQ_IDLE, DQ_ROWS, DQ_DONE };

struct dq_stmt {
	struct sql_stmt base;
	struct dq *conn;
	uint32_t id, gen;
	char *sql;                   /* to prepare it again on a new connection */
	bool reading;
	enum dq_state state;
	unsigned n_params, n_cols;
	struct dqlc_value *params;   /* n_params */
	int32_t *copy_off;           /* n_params: offset in copy[] of a copied value, or -1 */
	char *copy;
	size_t copy_len, copy_cap;
	struct dqlc_value row[DQLC_COLUMNS_MAX];
	char num[DQLC_COLUMNS_MAX][24];   /* an integer column read as text */
	/* Rows read ahead into memory (spool): another request came while this query's rows
	 * were still on the connection. row[] then points into spool_bytes. */
	bool spooled;
	int spool_err;               /* what ended the read-ahead (SQL_DONE or -errno) */
	size_t spool_n, spool_i;     /* rows held, the current one */
	struct dqlc_value *spool_vals;   /* spool_n * n_cols; b.p holds an offset until fixed */
	char *spool_bytes;
	size_t spool_len, spool_cap;
};

static int spool(struct dq *d);

#define DC(c) ((struct dq *)(c))
#define DS(s) ((struct dq_stmt *)(s))

static const struct sql_ops dq_ops;

/* A dqlc result to -errno, keeping the message for sql_errmsg(). */
static int dq_err(struct dq *d, int r)
{
	if (r >= 0)
		return r;
	if (r == -DQLC_EFAILURE) {
		uint64_t code = dqlc_errcode(d->c);

		snprintf(d->err, sizeof(d->err), "%s", dqlc_errmsg(d->c));
		if (code == DQLC_NOT_LEADER) {   /* leadership moved: find it again */
			d->broken = true;
			return -EHOSTUNREACH;
		}
		return sql_sqlite_errno((int)code);
	}
	snprintf(d->err, sizeof(d->err), "dqlite connection: %s", strerror(-r));
	/* dqlite_client.h: after any other error the stream is out of step. */
	if (r != -EINVAL && r != -E2BIG && r != -ENOMEM)
		d->broken = true;
	return r;
}

static int dq_connect(const char *node_addr, const char *name, struct dqlc **out, uint32_t *db_id,
		      char leader[DQLC_ADDR_MAX]);

/* A broken connection replaced by a new one to the leader (see the top of
 * the file). 0, or -errno and still broken. */
static int dq_ensure(struct dq *d)
{
	struct dqlc *c = NULL;
	uint32_t db_id = 0;
	char leader[DQLC_ADDR_MAX] = "";
	int r;

	if (!d->broken)
		return 0;
	if (d->streaming) {   /* its rows went with the connection */
		d->streaming->state = DQ_DONE;
		d->streaming = NULL;
	}
	r = d->leader[0] && strcmp(d->leader, d->addr) ? dq_connect(d->leader, d->name, &c, &db_id, leader)
							: -ENOTCONN;
	if (r < 0)
		r = dq_connect(d->addr, d->name, &c, &db_id, leader);
	if (r < 0) {
		snprintf(d->err, sizeof(d->err), "dqlite: no connection to the leader: %s", strerror(-r));
		return r;
	}
	dqlc_close(d->c);
	d->c = c;
	d->db_id = db_id;
	snprintf(d->leader, sizeof(d->leader), "%s", leader);
	d->gen++;
	d->broken = false;
	d->tx_lost = d->in_tx;
	log_warn("db", "dqlite: database %s reconnected to the leader %s%s", d->name, leader,
		 d->tx_lost ? " (the open transaction was lost)" : "");
	return 0;
}

/* Worth one more try on a new connection: the connection failed, or the
 * node was no longer the leader. */
static bool lost(int r)
{
	return r == -EHOSTUNREACH || r == -ENOTCONN || r == -ECONNRESET || r == -EPIPE ||
	       r == -ETIMEDOUT || r == -EPROTO || r == -EMSGSIZE || r == -ECONNREFUSED ||
	       r == -ENETUNREACH || r == -EHOSTDOWN;   /* no route to the leader (a partition) */
}

/* Before a request: a usable connection, no lost transaction. */
static int dq_ready(struct dq *d)
{
	int r = dq_ensure(d);

	if (r == 0 && d->tx_lost) {
		snprintf(d->err, sizeof(d->err), "transaction lost with its dqlite connection: roll back");
		r = -ENOTCONN;
	}
	return r;
}

/* First keyword of sql (after blanks and comments) reads? See the top of the file. */
static bool sql_reads(const char *s)
{
	for (;;) {
		while (isspace((unsigned char)*s))
			s++;
		if (s[0] == '-' && s[1] == '-') {
			s = strchr(s, '\n');
			if (!s)
				return false;
		} else if (s[0] == '/' && s[1] == '*') {
			s = strstr(s + 2, "*/");
			if (!s)
				return false;
			s += 2;
		} else {
			break;
		}
	}
	static const char *const rd[] = { "SELECT", "VALUES", "WITH", "EXPLAIN" };
	for (size_t i = 0; i < sizeof(rd) / sizeof(rd[0]); i++) {
		size_t n = strlen(rd[i]);
		if (!strncasecmp(s, rd[i], n) && !isalnum((unsigned char)s[n]))
			return true;
	}
	if (!strncasecmp(s, "PRAGMA", 6) && !isalnum((unsigned char)s[6]))
		return !strchr(s, '=');
	return false;
}

static int d_prepare(struct sql *c, const char *sql, unsigned flags, struct sql_stmt **out)
{
	struct dq *d = DC(c);
	uint64_t np = 0;
	uint32_t id;

	(void)flags;   /* every dqlite statement lives until FINALIZE */
	int r = spool(d);
	if (r == 0)
		r = dq_ready(d);
	if (r == 0)
		r = dq_err(d, dqlc_prepare(d->c, d->db_id, sql, &id, &np));
	if (lost(r) && !d->in_tx && dq_ready(d) == 0)
		r = dq_err(d, dqlc_prepare(d->c, d->db_id, sql, &id, &np));
	if (r < 0)
		return r;
	struct dq_stmt *s = calloc(1, sizeof(*s));
	if (s && !(s->sql = strdup(sql))) {
		free(s);
		s = NULL;
	}
	if (s && np > DQLC_PARAMS_MAX) {
		free(s->sql);
		free(s);
		dqlc_finalize(d->c, d->db_id, id);
		return -E2BIG;
	}
	if (s && np) {
		s->params = calloc(np, sizeof(*s->params));
		s->copy_off = calloc(np, sizeof(*s->copy_off));
	}
	if (!s || (np && (!s->params || !s->copy_off))) {
		if (s) {
			free(s->params);
			free(s->copy_off);
			free(s->sql);
		}
		free(s);
		dqlc_finalize(d->c, d->db_id, id);
		return -ENOMEM;
	}
	s->base.ops = &dq_ops;
	s->conn = d;
	s->id = id;
	s->gen = d->gen;
	s->reading = sql_reads(sql);
	s->n_params = (unsigned)np;
	for (unsigned i = 0; i < s->n_params; i++) {
		s->params[i] = dqlc_null();
		s->copy_off[i] = -1;
	}
	*out = &s->base;
	return 0;
}

/* Parameter i (1-based) of s, or NULL (out of range). */
static struct dqlc_value *param(struct dq_stmt *s, int i)
{
	if (i < 1 || (unsigned)i > s->n_params)
		return NULL;
	s->copy_off[i - 1] = -1;
	return &s->params[i - 1];
}

static int d_bind_int64(struct sql_stmt *st, int i, int64_t v)
{
	struct dqlc_value *p = param(DS(st), i);

	if (!p)
		return -ERANGE;
	*p = dqlc_int(v);
	return 0;
}

static int d_bind_null(struct sql_stmt *st, int i)
{
	struct dqlc_value *p = param(DS(st), i);

	if (!p)
		return -ERANGE;
	*p = dqlc_null();
	return 0;
}

/* len bytes of v into the statement's copy buffer (+ NUL): its offset, or -errno. */
static int32_t copy_in(struct dq_stmt *s, const void *v, size_t len)
{
	if (s->copy_len + len + 1 > INT32_MAX)
		return -E2BIG;
	if (s->copy_len + len + 1 > s->copy_cap) {
		size_t cap = s->copy_cap ? s->copy_cap : 256;
		while (cap < s->copy_len + len + 1)
			cap *= 2;
		char *n = realloc(s->copy, cap);
		if (!n)
			return -ENOMEM;
		s->copy = n;
		s->copy_cap = cap;
	}
	int32_t off = (int32_t)s->copy_len;
	memcpy(s->copy + off, v, len);
	s->copy[off + (int32_t)len] = 0;
	s->copy_len += len + 1;
	return off;
}

static int bind_bytes(struct sql_stmt *st, int i, const void *v, int len, bool copy, bool text)
{
	struct dq_stmt *s = DS(st);
	struct dqlc_value *p = param(s, i);

	if (!p)
		return -ERANGE;
	if (!v) {
		*p = dqlc_null();
		return 0;
	}
	size_t n = len >= 0 ? (size_t)len : strlen(v);
	/* The wire's text has no length: it must end in a NUL right at n, which
	 * a text of explicit length may not have (nor may its byte n be ours to
	 * read): copied and terminated. */
	if (text && len >= 0)
		copy = true;
	if (text && memchr(v, 0, n))
		return -EINVAL;
	*p = text ? dqlc_text(v) : dqlc_blob(v, n);
	p->b.len = n;
	if (copy) {
		int32_t off = copy_in(s, v, n);
		if (off < 0)
			return off;
		s->copy_off[i - 1] = off;
	}
	return 0;
}

static int d_bind_text(struct sql_stmt *st, int i, const char *v, int len, bool copy)
{
	return bind_bytes(st, i, v, len, copy, true);
}

static int d_bind_blob(struct sql_stmt *st, int i, const void *v, int len, bool copy)
{
	return bind_bytes(st, i, v, len < 0 ? 0 : len, copy, false);
}

static void spool_free(struct dq_stmt *s)
{
	if (s->spool_bytes)
		explicit_bzero(s->spool_bytes, s->spool_cap);
	free(s->spool_bytes);
	free(s->spool_vals);
	s->spool_bytes = NULL;
	s->spool_vals = NULL;
	s->spool_n = s->spool_i = s->spool_len = s->spool_cap = 0;
	s->spooled = false;
}

/* Append row (its bytes copied) to s's spool. 0 or -ENOMEM. */
static int spool_add(struct dq_stmt *s, const struct dqlc_value *row)
{
	struct dqlc_value *v = realloc(s->spool_vals, (s->spool_n + 1) * s->n_cols * sizeof(*v));

	if (!v)
		return -ENOMEM;
	s->spool_vals = v;
	v += s->spool_n * s->n_cols;
	for (unsigned j = 0; j < s->n_cols; j++) {
		v[j] = row[j];
		if (row[j].type != DQLC_TEXT && row[j].type != DQLC_ISO8601 && row[j].type != DQLC_BLOB)
			continue;
		size_t n = row[j].b.len + 1;   /* text keeps its NUL */
		if (s->spool_len + n > s->spool_cap) {
			size_t cap = s->spool_cap ? s->spool_cap : 4096;
			while (cap < s->spool_len + n)
				cap *= 2;
			char *b = realloc(s->spool_bytes, cap);
			if (!b)
				return -ENOMEM;
			s->spool_bytes = b;
			s->spool_cap = cap;
		}
		memcpy(s->spool_bytes + s->spool_len, row[j].b.p, row[j].b.len);
		s->spool_bytes[s->spool_len + row[j].b.len] = 0;
		v[j].b.p = (const void *)(uintptr_t)s->spool_len;   /* fixed once the buffer stops moving */
		s->spool_len += n;
	}
	s->spool_n++;
	return 0;
}

static void spool_row(struct dq_stmt *s)
{
	const struct dqlc_value *v = s->spool_vals + s->spool_i * s->n_cols;

	memcpy(s->row, v, s->n_cols * sizeof(*v));
}

/*
 * Another request is about to use the connection while d->streaming's rows are still on it
 * (a row callback that reads another table: the web's list of subscribers resolving each
 * one's policy). SQLite allows that; the wire does not. So what is left of that query,
 * and its current row, is read into memory first, and its next steps come from there.
 * Cost: the rest of that query's rows in memory, only for such nested use.
 */
static int spool(struct dq *d)
{
	struct dq_stmt *s = d->streaming;
	int r = 0;

	if (!s)
		return 0;
	r = spool_add(s, s->row);
	while (r == 0) {
		int n = dqlc_next(d->c, s->row, DQLC_COLUMNS_MAX);
		if (n != 1) {
			s->spool_err = n == 0 ? SQL_DONE : dq_err(d, n);
			break;
		}
		r = spool_add(s, s->row);
	}
	d->streaming = NULL;
	if (r < 0) {   /* out of memory: the rest is lost, and so is the stream's place */
		while (dqlc_next(d->c, s->row, DQLC_COLUMNS_MAX) == 1)
			;
		s->spool_err = r;
	}
	for (size_t i = 0; i < s->spool_n * s->n_cols; i++) {
		struct dqlc_value *v = &s->spool_vals[i];
		if (v->type == DQLC_TEXT || v->type == DQLC_ISO8601 || v->type == DQLC_BLOB)
			v->b.p = s->spool_bytes + (uintptr_t)v->b.p;
	}
	s->spooled = true;
	s->spool_i = 0;
	if (s->spool_n)
		spool_row(s);   /* the current row, now in our memory */
	return 0;
}

/* Read the next row of s's query. */
static int next_row(struct dq_stmt *s)
{
	struct dq *d = s->conn;

	if (s->spooled) {
		if (++s->spool_i < s->spool_n) {
			spool_row(s);
			return SQL_ROW;
		}
		int e = s->spool_err;
		spool_free(s);
		s->state = DQ_DONE;
		return e;
	}
	int r = dqlc_next(d->c, s->row, DQLC_COLUMNS_MAX);

	if (r == 1)
		return SQL_ROW;
	s->state = DQ_DONE;
	d->streaming = NULL;
	return r == 0 ? SQL_DONE : dq_err(d, r);
}

/* Read and drop what is left of s's rows (reset, finalize). */
static void drain(struct dq_stmt *s)
{
	while (s->state == DQ_ROWS && next_row(s) == SQL_ROW)
		;
}

/* May a -EBUSY answer be tried again? Only when nothing of ours ran: outside
 * a transaction (an autocommit write is all or nothing), or for BEGIN. */
static bool busy_retry(struct dq *d, int r, unsigned *n)
{
	static const struct timespec step = { 0, DQ_BUSY_STEP_US * 1000L };

	if (r != -EBUSY || d->in_tx || (*n)++ >= DQ_BUSY_MAX_MS * 1000u / DQ_BUSY_STEP_US)
		return false;
	nanosleep(&step, NULL);
	return true;
}

/* s prepared on the current connection (again, after a reconnect). */
static int stmt_ready(struct dq_stmt *s)
{
	struct dq *d = s->conn;
	uint64_t np = 0;
	int r = dq_ready(d);

	if (r < 0 || s->gen == d->gen)
		return r;
	if ((r = dq_err(d, dqlc_prepare(d->c, d->db_id, s->sql, &s->id, &np))) < 0)
		return r;
	s->gen = d->gen;
	return np == s->n_params ? 0 : -EPROTO;
}

static int d_step(struct sql_stmt *st)
{
	struct dq_stmt *s = DS(st);
	struct dq *d = s->conn;
	struct dqlc_result res;
	int r;

	if (s->state == DQ_ROWS)
		return next_row(s);
	if ((r = spool(d)) < 0)
		return r;
	/* Copied values: their addresses now that the buffer no longer moves. */
	for (unsigned i = 0; i < s->n_params; i++)
		if (s->copy_off[i] >= 0)
			s->params[i].b.p = s->copy + s->copy_off[i];
	bool again = !d->in_tx;   /* one retry on a new connection (top of the file) */
	unsigned tries = 0;
	for (;;) {
		if ((r = stmt_ready(s)) < 0)
			return r;
		if (s->reading) {
			r = dq_err(d, dqlc_query(d->c, d->db_id, s->id, s->params, s->n_params));
			if (r >= 0) {
				s->n_cols = (unsigned)r;
				s->state = DQ_ROWS;
				d->streaming = s;
				return next_row(s);
			}
			if (again && lost(r)) {
				again = false;
				continue;
			}
			return r;
		}
		r = dq_err(d, dqlc_exec(d->c, d->db_id, s->id, s->params, s->n_params, &res));
		if (busy_retry(d, r, &tries))
			continue;
		if (again && r == -EHOSTUNREACH) {   /* "not leader": it did not run */
			again = false;
			continue;
		}
		break;
	}
	if (r < 0)
		return r;
	d->changes = (int64_t)res.rows_affected;
	d->last_id = (int64_t)res.last_insert_id;
	s->state = DQ_DONE;
	return SQL_DONE;
}

/* Column i of the current row, or NULL. */
static const struct dqlc_value *col(struct sql_stmt *st, int i)
{
	struct dq_stmt *s = DS(st);

	if (s->state != DQ_ROWS || i < 0 || (unsigned)i >= s->n_cols)
		return NULL;
	return &s->row[i];
}

static int64_t d_column_int64(struct sql_stmt *st, int i)
{
	const struct dqlc_value *v = col(st, i);

	if (!v)
		return 0;
	switch (v->type) {
	case DQLC_INTEGER:
	case DQLC_UNIXTIME:
	case DQLC_BOOLEAN:
		return v->i;
	case DQLC_FLOAT:
		return (int64_t)v->f;
	case DQLC_TEXT:
	case DQLC_ISO8601:
		return strtoll(v->b.p, NULL, 10);
	default:
		return 0;
	}
}

static const char *d_column_text(struct sql_stmt *st, int i)
{
	const struct dqlc_value *v = col(st, i);
	char *num = DS(st)->num[i < 0 ? 0 : i % DQLC_COLUMNS_MAX];

	if (!v)
		return NULL;
	switch (v->type) {
	case DQLC_TEXT:
	case DQLC_ISO8601:
		return v->b.p;   /* NUL-terminated by dqlc */
	case DQLC_INTEGER:
	case DQLC_UNIXTIME:
	case DQLC_BOOLEAN:
		snprintf(num, sizeof(DS(st)->num[0]), "%" PRId64, v->i);
		return num;
	case DQLC_FLOAT:
		snprintf(num, sizeof(DS(st)->num[0]), "%.15g", v->f);
		return num;
	default:
		return NULL;
	}
}

static const void *d_column_blob(struct sql_stmt *st, int i)
{
	const struct dqlc_value *v = col(st, i);

	if (!v || (v->type != DQLC_BLOB && v->type != DQLC_TEXT && v->type != DQLC_ISO8601))
		return NULL;
	return v->b.p;
}

static int d_column_bytes(struct sql_stmt *st, int i)
{
	const struct dqlc_value *v = col(st, i);

	if (!v)
		return 0;
	if (v->type == DQLC_BLOB || v->type == DQLC_TEXT || v->type == DQLC_ISO8601)
		return (int)v->b.len;
	const char *t = d_column_text(st, i);
	return t ? (int)strlen(t) : 0;
}

static int d_column_type(struct sql_stmt *st, int i)
{
	const struct dqlc_value *v = col(st, i);

	if (!v)
		return SQL_NULL;
	switch (v->type) {
	case DQLC_INTEGER:
	case DQLC_UNIXTIME:
	case DQLC_BOOLEAN:
		return SQL_INTEGER;
	case DQLC_FLOAT: return SQL_FLOAT;
	case DQLC_TEXT:
	case DQLC_ISO8601:
		return SQL_TEXT;
	case DQLC_BLOB: return SQL_BLOB;
	default: return SQL_NULL;
	}
}

static int d_column_count(struct sql_stmt *st) { return (int)DS(st)->n_cols; }

static int d_reset(struct sql_stmt *st)
{
	struct dq_stmt *s = DS(st);

	drain(s);
	s->state = DQ_IDLE;
	return 0;
}

static int d_clear_bindings(struct sql_stmt *st)
{
	struct dq_stmt *s = DS(st);

	for (unsigned i = 0; i < s->n_params; i++) {
		s->params[i] = dqlc_null();
		s->copy_off[i] = -1;
	}
	/* Wipe what was copied (a SUPI, slices): no key material, but no reason to keep it. */
	if (s->copy)
		explicit_bzero(s->copy, s->copy_len);
	s->copy_len = 0;
	return 0;
}

static void d_finalize(struct sql_stmt *st)
{
	struct dq_stmt *s = DS(st);
	struct dq *d = s->conn;

	drain(s);
	spool_free(s);
	if (d->streaming == s)
		d->streaming = NULL;
	if (s->gen == d->gen && !d->broken && spool(d) == 0)   /* an older connection's id means nothing here */
		dqlc_finalize(d->c, d->db_id, s->id);
	if (s->copy)
		explicit_bzero(s->copy, s->copy_cap);
	free(s->sql);
	free(s->copy);
	free(s->params);
	free(s->copy_off);
	free(s);
}

/* EXEC_SQL of script. may_repeat: running it twice does no harm (BEGIN). */
static int exec_sql(struct dq *d, const char *script, bool may_repeat)
{
	struct dqlc_result res;
	bool again = !d->in_tx;
	unsigned tries = 0;
	int r;

	if ((r = spool(d)) < 0)
		return r;
	for (;;) {
		if ((r = dq_ready(d)) < 0)
			return r;
		r = dq_err(d, dqlc_exec_sql(d->c, d->db_id, script, NULL, 0, &res));
		if (busy_retry(d, r, &tries))
			continue;
		if (again && (r == -EHOSTUNREACH || (may_repeat && lost(r)))) {
			again = false;
			continue;
		}
		break;
	}
	if (r < 0)
		return r;
	d->changes = (int64_t)res.rows_affected;
	d->last_id = (int64_t)res.last_insert_id;
	return 0;
}

static int d_exec(struct sql *c, const char *script) { return exec_sql(DC(c), script, false); }

static int64_t d_changes(struct sql *c) { return DC(c)->changes; }
static int64_t d_last_insert_id(struct sql *c) { return DC(c)->last_id; }

/* dqlite does not report the connection's autocommit state: it is tracked
 * here. A failed COMMIT leaves it set; db/ answers that with a ROLLBACK,
 * which always clears it (a transaction SQLite already ended makes that
 * ROLLBACK fail harmlessly). */
static int d_begin(struct sql *c)
{
	int r = exec_sql(DC(c), "BEGIN IMMEDIATE", true);

	if (r == 0)
		DC(c)->in_tx = true;
	return r;
}

static int d_commit(struct sql *c)
{
	int r = exec_sql(DC(c), "COMMIT", false);   /* tx_lost: -ENOTCONN, in_tx kept */

	if (r == 0)
		DC(c)->in_tx = false;
	return r;
}

static int d_rollback(struct sql *c)
{
	struct dq *d = DC(c);
	int r = 0;

	if (d->tx_lost)   /* nothing left to roll back on the new connection */
		d->tx_lost = false;
	else
		r = exec_sql(d, "ROLLBACK", false);
	d->in_tx = false;
	return r;
}

static bool d_in_tx(struct sql *c) { return DC(c)->in_tx; }
static const char *d_errmsg(struct sql *c) { return DC(c)->err[0] ? DC(c)->err : "not an error"; }

static void d_close(struct sql *c)
{
	dqlc_close(DC(c)->c);
	free(DC(c)->addr);
	free(DC(c)->name);
	free(c);
}

static const struct sql_ops dq_ops = {
	.backend = SQL_DQLITE,
	.name = "dqlite",
	.prepare = d_prepare,
	.bind_int64 = d_bind_int64,
	.bind_text = d_bind_text,
	.bind_blob = d_bind_blob,
	.bind_null = d_bind_null,
	.step = d_step,
	.column_int64 = d_column_int64,
	.column_text = d_column_text,
	.column_blob = d_column_blob,
	.column_bytes = d_column_bytes,
	.column_type = d_column_type,
	.column_count = d_column_count,
	.reset = d_reset,
	.clear_bindings = d_clear_bindings,
	.finalize = d_finalize,
	.exec = d_exec,
	.changes = d_changes,
	.last_insert_id = d_last_insert_id,
	.begin = d_begin,
	.commit = d_commit,
	.rollback = d_rollback,
	.in_tx = d_in_tx,
	.errmsg = d_errmsg,
	.close = d_close,
};

/* A client id for CLIENT: unique enough per connection of this process. */
static uint64_t client_id(void)
{
	static _Atomic uint64_t seq;

	return (uint64_t)getpid() << 32 | (uint64_t)++seq;
}

/* Connected to the leader the node at node_addr names, registered, database
 * `name` open. Failures are logged. */
static int dq_connect(const char *node_addr, const char *name, struct dqlc **out, uint32_t *db_id,
		      char leader[DQLC_ADDR_MAX])
{
	uint64_t leader_id = 0;
	struct dqlc *c = NULL;
	int r;

	leader[0] = 0;
	if ((r = dqlc_connect(node_addr, DQ_TIMEOUT_MS, &c)) < 0) {
		log_error("db", "dqlite: cannot reach node %s: %s", node_addr, strerror(-r));
		return r;
	}
	r = dqlc_leader(c, &leader_id, leader, DQLC_ADDR_MAX);
	if (r == 0 && !leader[0]) {
		log_error("db", "dqlite: node %s knows no leader now (election running, or no quorum "
			  "of the cluster reachable): database %s not opened", node_addr, name);
		dqlc_close(c);
		return -EHOSTUNREACH;
	}
	/* Reads and writes both go to the leader: a follower answers "not leader". */
	if (r == 0 && strcmp(leader, node_addr) != 0) {
		dqlc_close(c);
		c = NULL;
		if ((r = dqlc_connect(leader, DQ_TIMEOUT_MS, &c)) < 0) {
			log_error("db", "dqlite: cannot reach the leader %s (node %" PRIu64 "): %s", leader,
				  leader_id, strerror(-r));
			return r;
		}
	}
	if (r == 0)
		r = dqlc_register(c, client_id(), NULL);
	if (r == 0)
		r = dqlc_open(c, name, db_id);
	if (r < 0) {
		log_error("db", "dqlite: open of %s on %s failed: %s", name, leader[0] ? leader : node_addr,
			  r == -DQLC_EFAILURE ? dqlc_errmsg(c) : strerror(-r));
		dqlc_close(c);
		return r == -DQLC_EFAILURE ? -EIO : r;
	}
	*out = c;
	return 0;
}

int sql_dqlite_open(const char *node_addr, const char *name, struct sql **out)
{
	char leader[DQLC_ADDR_MAX];
	struct dqlc *c = NULL;
	uint32_t db_id = 0;

	if (!node_addr || !name || !*name)
		return -EINVAL;
	int r = dq_connect(node_addr, name, &c, &db_id, leader);
	if (r < 0)
		return r;
	struct dq *d = calloc(1, sizeof(*d));
	if (d) {
		d->addr = strdup(node_addr);
		d->name = strdup(name);
	}
	if (!d || !d->addr || !d->name) {
		if (d) {
			free(d->addr);
			free(d->name);
		}
		free(d);
		dqlc_close(c);
		return -ENOMEM;
	}
	d->base.ops = &dq_ops;
	d->c = c;
	d->db_id = db_id;
	snprintf(d->leader, sizeof(d->leader), "%s", leader);
	*out = &d->base;
	return 0;
}
