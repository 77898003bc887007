/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * dqlc against a REAL dqlite node (libdqlite's node API, in-process, bound to
 * 127.0.0.1:<free port>, data dir under a mkdtemp directory): LEADER, CLIENT,
 * OPEN, EXEC_SQL / QUERY_SQL with each parameter type, prepared statements,
 * FAILURE, result sets over several ROWS batches. Then the decoders on
 * truncated / malformed bodies (each in a heap block of exactly its size, so
 * ASan sees any read past it) and a fake server for timeouts and bad frames.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <dqlite.h>

#include "db/dqlite_client_int.h"
#include "dbtest.h"
#include "testlib.h"

static struct {
	struct dbt tmp;
	struct dbt_node node;
	char addr[64];
} g;

/* A port nobody listens on right now (bind :0, read it back, close). */
static int node_up(void **state)
{
	(void)state;
	dbt_init(&g.tmp);
	snprintf(g.addr, sizeof(g.addr), "127.0.0.1:%d", tl_free_port());
	/* Node id 1 with an empty data dir bootstraps a one-voter cluster. */
	/* Behind the cluster's mutual TLS, as solocore runs it (issue 31). */
	if (dbt_node_up(&g.node, 1, g.addr, g.tmp.dir, NULL) < 0)
		return -1;
	/* Wait (<= 10 s) until it has elected itself. */
	for (int i = 0; i < 200; i++) {
		struct dqlc *c;
		char leader[DQLC_ADDR_MAX] = "";
		if (dqlc_connect(g.addr, 1000, &c) == 0) {
			int rc = dqlc_leader(c, NULL, leader, sizeof(leader));
			dqlc_close(c);
			if (rc == 0 && leader[0])
				return 0;
		}
		tl_sleep_ms(50);
	}
	fprintf(stderr, "dqlite node %s: no leader after 10 s\n", g.addr);
	return -1;
}

static int node_down(void **state)
{
	(void)state;
	dbt_node_down(&g.node);
	dbt_cleanup(&g.tmp);
	return 0;
}

/* Connected, registered, database `name` open. */
static struct dqlc *open_db(const char *name, uint32_t *db)
{
	struct dqlc *c = NULL;
	uint64_t hb = 0;
	assert_int_equal(dqlc_connect(g.addr, 5000, &c), 0);
	assert_int_equal(dqlc_register(c, 42, &hb), 0);
	assert_int_equal(dqlc_open(c, name, db), 0);
	return c;
}

static void test_leader(void **state)
{
	(void)state;
	struct dqlc *c;
	char addr[DQLC_ADDR_MAX];
	uint64_t id = 0;
	assert_int_equal(dqlc_connect(g.addr, 5000, &c), 0);
	assert_int_equal(dqlc_leader(c, &id, addr, sizeof(addr)), 0);
	assert_string_equal(addr, g.addr);
	assert_int_equal(id, 1);
	char tiny[4];
	assert_int_equal(dqlc_leader(c, &id, tiny, sizeof(tiny)), -ENAMETOOLONG);
	dqlc_close(c);
	/* Bad addresses are refused before any socket. */
	assert_int_equal(dqlc_connect("127.0.0.1", 100, &c), -EINVAL);
	assert_int_equal(dqlc_connect("[::1]9000", 100, &c), -EINVAL);
	assert_int_equal(dqlc_connect(":9000", 100, &c), -EINVAL);
}

static void test_param_types(void **state)
{
	(void)state;
	uint32_t db;
	struct dqlc *c = open_db("types.db", &db);
	struct dqlc_result r;
	static const uint8_t blob[] = { 0, 1, 2, 0xff, 0xee, 0, 7, 8, 9, 10, 11 };   /* 11: not a word */
	static const char text[] = "héllo, dqlite: exactly-16";

	assert_int_equal(dqlc_exec_sql(c, db, "CREATE TABLE t (k INTEGER PRIMARY KEY, i INTEGER, "
				       "s TEXT, b BLOB, n INTEGER, f REAL)", NULL, 0, &r), 0);
	struct dqlc_value p[] = { dqlc_int(INT64_MIN), dqlc_text(text), dqlc_blob(blob, sizeof(blob)),
				  dqlc_null(), dqlc_float(-2.5) };
	assert_int_equal(dqlc_exec_sql(c, db, "INSERT INTO t (i, s, b, n, f) VALUES (?, ?, ?, ?, ?)",
				       p, 5, &r), 0);
	assert_int_equal(r.rows_affected, 1);
	assert_int_equal(r.last_insert_id, 1);
	struct dqlc_value p2[] = { dqlc_int(INT64_MAX), dqlc_text(""), dqlc_blob(NULL, 0),
				   dqlc_null(), dqlc_float(0.0) };
	assert_int_equal(dqlc_exec_sql(c, db, "INSERT INTO t (i, s, b, n, f) VALUES (?, ?, ?, ?, ?)",
				       p2, 5, &r), 0);
	assert_int_equal(r.last_insert_id, 2);

	struct dqlc_value k = dqlc_int(1), v[6];
	assert_int_equal(dqlc_query_sql(c, db, "SELECT k, i, s, b, n, f FROM t WHERE k = ?", &k, 1), 6);
	assert_string_equal(dqlc_column_name(c, 2), "s");
	assert_null(dqlc_column_name(c, 6));
	assert_int_equal(dqlc_next(c, v, 6), 1);
	assert_int_equal(v[0].type, DQLC_INTEGER);
	assert_int_equal(v[0].i, 1);
	assert_int_equal(v[1].type, DQLC_INTEGER);
	assert_true(v[1].i == INT64_MIN);
	assert_int_equal(v[2].type, DQLC_TEXT);
	assert_int_equal(v[2].b.len, strlen(text));
	assert_string_equal(v[2].b.p, text);
	assert_int_equal(v[3].type, DQLC_BLOB);
	assert_int_equal(v[3].b.len, sizeof(blob));
	assert_memory_equal(v[3].b.p, blob, sizeof(blob));
	assert_int_equal(v[4].type, DQLC_NULL);
	assert_int_equal(v[5].type, DQLC_FLOAT);
	assert_true(v[5].f == -2.5);
	assert_int_equal(dqlc_next(c, v, 6), 0);
	assert_int_equal(dqlc_next(c, v, 6), 0);   /* stays at the end */

	k = dqlc_int(2);
	assert_int_equal(dqlc_query_sql(c, db, "SELECT i, s, length(b), n FROM t WHERE k = ?", &k, 1), 4);
	assert_int_equal(dqlc_next(c, v, 3), -EINVAL);   /* fewer slots than columns */
	assert_int_equal(dqlc_next(c, v, 4), 1);
	assert_true(v[0].i == INT64_MAX);
	assert_int_equal(v[1].type, DQLC_TEXT);
	assert_int_equal(v[1].b.len, 0);
	assert_string_equal(v[1].b.p, "");
	assert_int_equal(v[2].i, 0);
	assert_int_equal(v[3].type, DQLC_NULL);
	assert_int_equal(dqlc_next(c, v, 4), 0);

	/* Eight parameters: the params header is then two words (1 + 8 bytes). */
	struct dqlc_value p8[8];
	for (int i = 0; i < 8; i++)
		p8[i] = dqlc_int(i + 1);
	assert_int_equal(dqlc_query_sql(c, db, "SELECT ?+?+?+?+?+?+?+?", p8, 8), 1);
	assert_int_equal(dqlc_next(c, v, 6), 1);
	assert_int_equal(v[0].i, 36);
	assert_int_equal(dqlc_next(c, v, 6), 0);

	/* Bad parameters: refused before sending, connection still fine. */
	struct dqlc_value bad = { .type = DQLC_ISO8601 };
	assert_int_equal(dqlc_exec_sql(c, db, "SELECT ?", &bad, 1, &r), -EINVAL);
	struct dqlc_value nul_text = dqlc_text(NULL);
	assert_int_equal(dqlc_exec_sql(c, db, "SELECT ?", &nul_text, 1, &r), -EINVAL);
	assert_int_equal(dqlc_exec_sql(c, db, "SELECT ?", p8, DQLC_PARAMS_MAX + 1, &r), -E2BIG);
	assert_int_equal(dqlc_query_sql(c, db, "SELECT count(*) FROM t", NULL, 0), 1);
	assert_int_equal(dqlc_next(c, v, 6), 1);
	assert_int_equal(v[0].i, 2);
	dqlc_close(c);
}

static void test_prepared(void **state)
{
	(void)state;
	uint32_t db, ins, sel;
	uint64_t np = 0;
	struct dqlc_result r;
	struct dqlc_value v[2];
	struct dqlc *c = open_db("prep.db", &db);

	assert_int_equal(dqlc_exec_sql(c, db, "CREATE TABLE p (id INTEGER PRIMARY KEY, name TEXT)",
				       NULL, 0, &r), 0);
	assert_int_equal(dqlc_prepare(c, db, "INSERT INTO p (id, name) VALUES (?, ?)", &ins, &np), 0);
	assert_int_equal(np, 2);
	for (int i = 1; i <= 5; i++) {
		char name[16];
		snprintf(name, sizeof(name), "n%d", i * 11);
		struct dqlc_value p[] = { dqlc_int(i * 10), dqlc_text(name) };
		assert_int_equal(dqlc_exec(c, db, ins, p, 2, &r), 0);
		assert_int_equal(r.rows_affected, 1);
		assert_int_equal(r.last_insert_id, i * 10);
	}
	assert_int_equal(dqlc_prepare(c, db, "SELECT id, name FROM p WHERE id >= ? ORDER BY id",
				      &sel, &np), 0);
	assert_int_equal(np, 1);
	for (int from = 10; from <= 50; from += 20) {
		struct dqlc_value p = dqlc_int(from);
		assert_int_equal(dqlc_query(c, db, sel, &p, 1), 2);
		int n = 0, rc;
		while ((rc = dqlc_next(c, v, 2)) == 1) {
			char want[16];
			int id = from + 10 * n;
			snprintf(want, sizeof(want), "n%d", id / 10 * 11);
			assert_int_equal(v[0].i, id);
			assert_string_equal(v[1].b.p, want);
			n++;
		}
		assert_int_equal(rc, 0);
		assert_int_equal(n, (50 - from) / 10 + 1);
	}
	/* A duplicate key: FAILURE from EXEC, the statement stays usable. */
	struct dqlc_value dup[] = { dqlc_int(10), dqlc_text("again") };
	assert_int_equal(dqlc_exec(c, db, ins, dup, 2, &r), -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c) & 0xff, 19);   /* SQLITE_CONSTRAINT */
	struct dqlc_value ok[] = { dqlc_int(60), dqlc_text("n66") };
	assert_int_equal(dqlc_exec(c, db, ins, ok, 2, &r), 0);

	assert_int_equal(dqlc_finalize(c, db, ins), 0);
	assert_int_equal(dqlc_finalize(c, db, sel), 0);
	/* An id the server never handed out: FAILURE. (Not a finalized one: the
	 * 1.11.1 node dereferences the freed registry slot and crashes, see
	 * db/dqlite_client.h.) */
	assert_int_equal(dqlc_exec(c, db, 1000, ok, 2, &r), -DQLC_EFAILURE);
	assert_true(strlen(dqlc_errmsg(c)) > 0);
	dqlc_close(c);
}

static void test_failure(void **state)
{
	(void)state;
	uint32_t db, st;
	struct dqlc_result r;
	struct dqlc_value v[1];
	struct dqlc *c = open_db("fail.db", &db);

	assert_int_equal(dqlc_exec_sql(c, db, "INSERT INTO nosuch VALUES (1)", NULL, 0, &r),
			 -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c), 1);   /* SQLITE_ERROR */
	assert_non_null(strstr(dqlc_errmsg(c), "no such table: nosuch"));
	assert_int_equal(dqlc_query_sql(c, db, "SELEKT 1", NULL, 0), -DQLC_EFAILURE);
	assert_non_null(strstr(dqlc_errmsg(c), "syntax error"));
	assert_int_equal(dqlc_prepare(c, db, "SELECT * FROM nosuch", &st, NULL), -DQLC_EFAILURE);
	assert_non_null(strstr(dqlc_errmsg(c), "no such table"));
	/* The connection is still in step after each FAILURE. */
	assert_int_equal(dqlc_query_sql(c, db, "SELECT 7", NULL, 0), 1);
	assert_int_equal(dqlc_next(c, v, 1), 1);
	assert_int_equal(v[0].i, 7);
	assert_int_equal(dqlc_next(c, v, 1), 0);
	dqlc_close(c);
}

/* More rows than one ROWS batch (a page) holds: PART, then more batches. */
static void test_many_rows(void **state)
{
	(void)state;
	enum { N = 3000 };
	uint32_t db, ins;
	struct dqlc_result r;
	struct dqlc_value v[2];
	struct dqlc *c = open_db("many.db", &db);

	assert_int_equal(dqlc_exec_sql(c, db, "CREATE TABLE m (id INTEGER PRIMARY KEY, x TEXT)",
				       NULL, 0, &r), 0);
	assert_int_equal(dqlc_exec_sql(c, db, "BEGIN", NULL, 0, &r), 0);
	assert_int_equal(dqlc_prepare(c, db, "INSERT INTO m VALUES (?, ?)", &ins, NULL), 0);
	for (int i = 0; i < N; i++) {
		struct dqlc_value p[] = { dqlc_int(i), dqlc_text("a row of some twenty-four") };
		assert_int_equal(dqlc_exec(c, db, ins, p, 2, &r), 0);
	}
	assert_int_equal(dqlc_exec_sql(c, db, "COMMIT", NULL, 0, &r), 0);
	assert_int_equal(dqlc_finalize(c, db, ins), 0);

	assert_int_equal(dqlc_query_sql(c, db, "SELECT id, x FROM m ORDER BY id", NULL, 0), 2);
	int n = 0, rc;
	while ((rc = dqlc_next(c, v, 2)) == 1) {
		assert_int_equal(v[0].i, n);
		assert_int_equal(v[1].b.len, 25);
		n++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(n, N);
	/* ~48 bytes a row, ~144 KB in all: the node sends page-sized batches. */
	assert_true(dqlc_batches(c) > 1);
	printf("many rows: %d rows in %u ROWS batches\n", N, dqlc_batches(c));

	/* Left after 3 rows: the next request drains the rest first. */
	assert_int_equal(dqlc_query_sql(c, db, "SELECT id, x FROM m ORDER BY id", NULL, 0), 2);
	for (int i = 0; i < 3; i++)
		assert_int_equal(dqlc_next(c, v, 2), 1);
	assert_int_equal(dqlc_query_sql(c, db, "SELECT count(*) FROM m", NULL, 0), 1);
	assert_int_equal(dqlc_next(c, v, 2), 1);
	assert_int_equal(v[0].i, N);
	assert_int_equal(dqlc_next(c, v, 2), 0);
	dqlc_close(c);
}

/* ---- membership: CLUSTER, ADD, ASSIGN, REMOVE, TRANSFER on the real node ---- */

static int cluster_of(struct dqlc *c, struct dqlc_node *nodes)
{
	return dqlc_cluster(c, nodes, DQLC_NODES_MAX);
}

static void test_membership(void **state)
{
	(void)state;
	struct dqlc_node nodes[DQLC_NODES_MAX];
	struct dqlc *c;
	char ghost[64];

	assert_int_equal(dqlc_connect(g.addr, 5000, &c), 0);
	assert_int_equal(cluster_of(c, nodes), 1);
	assert_int_equal(nodes[0].id, 1);
	assert_string_equal(nodes[0].addr, g.addr);
	assert_int_equal(nodes[0].role, DQLC_ROLE_VOTER);
	assert_string_equal(dqlc_role_name(nodes[0].role), "voter");
	/* Room for none: -E2BIG after reading the whole answer, connection still in step. */
	assert_int_equal(dqlc_cluster(c, nodes, 0), -E2BIG);
	assert_int_equal(cluster_of(c, nodes), 1);

	/* Node 2 at an address nobody serves: ADD commits with the one voter (a spare
	 * needs no catch-up); STANDBY too. (VOTER would wait for a catch-up that never
	 * comes: tests/db/test_cluster.c promotes real nodes.) */
	snprintf(ghost, sizeof(ghost), "127.0.0.1:%d", tl_free_port());
	assert_int_equal(dqlc_add(c, 2, ghost), 0);
	assert_int_equal(cluster_of(c, nodes), 2);
	assert_int_equal(nodes[1].id, 2);
	assert_string_equal(nodes[1].addr, ghost);
	assert_int_equal(nodes[1].role, DQLC_ROLE_SPARE);
	assert_int_equal(dqlc_assign(c, 2, DQLC_ROLE_STANDBY), 0);
	assert_int_equal(cluster_of(c, nodes), 2);
	assert_int_equal(nodes[1].role, DQLC_ROLE_STANDBY);
	assert_string_equal(dqlc_role_name(nodes[1].role), "standby");

	/* Refused by the leader (FAILURE), the connection stays usable. */
	assert_int_equal(dqlc_add(c, 2, ghost), -DQLC_EFAILURE);     /* id taken */
	printf("ADD of a duplicate id: code %llu \"%s\"\n", (unsigned long long)dqlc_errcode(c), dqlc_errmsg(c));
	assert_true(strlen(dqlc_errmsg(c)) > 0);
	assert_int_equal(dqlc_remove(c, 99), -DQLC_EFAILURE);        /* no such member */
	printf("REMOVE of a non-member: code %llu \"%s\"\n", (unsigned long long)dqlc_errcode(c), dqlc_errmsg(c));
	assert_int_equal(dqlc_assign(c, 99, DQLC_ROLE_VOTER), -DQLC_EFAILURE);
	/* No other voter to hand leadership to. */
	assert_int_equal(dqlc_transfer(c, 0), -DQLC_EFAILURE);
	printf("TRANSFER without another voter: code %llu \"%s\"\n", (unsigned long long)dqlc_errcode(c),
	       dqlc_errmsg(c));

	assert_int_equal(dqlc_remove(c, 2), 0);
	assert_int_equal(cluster_of(c, nodes), 1);
	assert_int_equal(nodes[0].id, 1);

	/* Bad arguments: refused before anything is sent. */
	assert_int_equal(dqlc_add(c, 0, ghost), -EINVAL);
	assert_int_equal(dqlc_add(c, 3, ""), -EINVAL);
	assert_int_equal(dqlc_add(c, 3, NULL), -EINVAL);
	assert_int_equal(dqlc_assign(c, 3, (enum dqlc_role)7), -EINVAL);
	assert_int_equal(dqlc_remove(c, 0), -EINVAL);
	assert_int_equal(dqlc_cluster(c, NULL, 4), -EINVAL);
	assert_string_equal(dqlc_role_name((enum dqlc_role)9), "?");
	assert_int_equal(cluster_of(c, nodes), 1);
	dqlc_close(c);
}

/* A second node that is no member of anything (id 5, empty dir: libdqlite
 * bootstraps id 1 only) knows no leader and refuses membership requests with
 * FAILURE "not leader"; CLUSTER it answers (an empty configuration). */
static void test_not_leader(void **state)
{
	(void)state;
	struct dqlc_node nodes[DQLC_NODES_MAX];
	struct dbt tmp;
	struct dbt_node n = { 0 };
	struct dqlc *c;
	char addr[64], leader[DQLC_ADDR_MAX];
	uint64_t id = 7;

	dbt_init(&tmp);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", tl_free_port());
	assert_int_equal(dbt_node_up(&n, 5, addr, tmp.dir, g.tmp.dir), 0);
	assert_int_equal(dqlc_connect(addr, 5000, &c), 0);
	assert_int_equal(dqlc_leader(c, &id, leader, sizeof(leader)), 0);
	assert_int_equal(id, 0);
	assert_string_equal(leader, "");
	assert_int_equal(dqlc_add(c, 6, g.addr), -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c), DQLC_NOT_LEADER);
	assert_non_null(strstr(dqlc_errmsg(c), "not leader"));
	assert_int_equal(dqlc_assign(c, 5, DQLC_ROLE_VOTER), -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c), DQLC_NOT_LEADER);
	assert_int_equal(dqlc_remove(c, 5), -DQLC_EFAILURE);
	assert_int_equal(dqlc_transfer(c, 1), -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c), DQLC_NOT_LEADER);
	assert_int_equal(dqlc_cluster(c, nodes, DQLC_NODES_MAX), 0);
	dqlc_close(c);
	dbt_node_down(&n);
	dbt_cleanup(&tmp);
}

/* ---- decoders on malformed input ---- */

/* Run fn over a heap copy of exactly len bytes, so any over-read is an ASan error. */
static uint8_t *dup_exact(const uint8_t *p, size_t len)
{
	uint8_t *q = malloc(len ? len : 1);
	assert_non_null(q);
	if (len)
		memcpy(q, p, len);
	return q;
}

static size_t put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++, v >>= 8)
		p[i] = (uint8_t)v;
	return 8;
}

/* A well-formed ROWS body: 2 columns "id","name"; rows (1,"ab"), (NULL, blob[3]); DONE. */
static size_t rows_body(uint8_t *b)
{
	size_t o = 0;
	memset(b, 0, 256);
	o += put64(b + o, 2);
	memcpy(b + o, "id", 2); o += 8;
	memcpy(b + o, "name", 4); o += 8;
	b[o] = DQLC_INTEGER | DQLC_TEXT << 4; o += 8;   /* row 1 header */
	o += put64(b + o, 1);
	memcpy(b + o, "ab", 2); o += 8;
	b[o] = DQLC_NULL | DQLC_BLOB << 4; o += 8;      /* row 2 header */
	o += 8;                                          /* NULL word */
	o += put64(b + o, 3);
	memcpy(b + o, "\x01\x02\x03", 3); o += 8;
	o += put64(b + o, DQLC_ROWS_DONE);
	return o;
}

/* Decode a ROWS body completely: rows seen, or the first error. */
static int decode_rows(const uint8_t *body, size_t len, struct dqlc_value *last)
{
	const char *names[DQLC_COLUMNS_MAX];
	unsigned n;
	struct dqlc_cur cur = { body, len };
	int rc = dqlc_dec_columns(&cur, &n, names), rows = 0;
	if (rc)
		return rc;
	while ((rc = dqlc_dec_row(&cur, n, last)) == 1)
		rows++;
	return rc < 0 ? rc : rows;
}

static void test_decode_rows(void **state)
{
	(void)state;
	uint8_t b[256];
	struct dqlc_value v[2];
	size_t len = rows_body(b);

	uint8_t *q = dup_exact(b, len);
	assert_int_equal(decode_rows(q, len, v), 2);
	assert_int_equal(v[0].type, DQLC_NULL);
	assert_int_equal(v[1].type, DQLC_BLOB);
	assert_int_equal(v[1].b.len, 3);
	assert_memory_equal(v[1].b.p, "\x01\x02\x03", 3);
	free(q);

	/* Every truncation of it: -EPROTO, never a read past the end. */
	for (size_t l = 0; l < len; l++) {
		q = dup_exact(b, l);
		assert_int_equal(decode_rows(q, l, v), -EPROTO);
		free(q);
	}

	/* Malformed fields, one at a time. */
	uint8_t m[256];
	memcpy(m, b, len);
	put64(m, 0);                                    /* no columns */
	assert_int_equal(decode_rows(m, len, v), -EPROTO);
	put64(m, 1ull << 40);                            /* absurd column count */
	assert_int_equal(decode_rows(m, len, v), -EPROTO);
	put64(m, DQLC_COLUMNS_MAX + 1);
	assert_int_equal(decode_rows(m, len, v), -EPROTO);

	memcpy(m, b, len);
	memset(m + 8, 'x', 16);                          /* names without a NUL */
	q = dup_exact(m, 24);
	assert_int_equal(decode_rows(q, 24, v), -EPROTO);
	free(q);

	memcpy(m, b, len);
	m[24] = 7 | DQLC_TEXT << 4;                      /* unknown type code 7 */
	assert_int_equal(decode_rows(m, len, v), -EPROTO);
	m[24] = 0x0e | 0x0e << 4;                        /* 14: not a type either */
	assert_int_equal(decode_rows(m, len, v), -EPROTO);

	memcpy(m, b, len);
	put64(m + 64, UINT64_MAX - 3);                   /* blob length past the body */
	assert_int_equal(decode_rows(m, len, v), -EPROTO);
	put64(m + 64, 17);                               /* 17 needs 24 bytes, 16 are left */
	assert_int_equal(decode_rows(m, len, v), -EPROTO);

	/* PART marker ends a batch with 2 rows and says "more". */
	memcpy(m, b, len);
	put64(m + len - 8, DQLC_ROWS_PART);
	{
		const char *names[DQLC_COLUMNS_MAX];
		unsigned n;
		struct dqlc_cur cur = { m, len };
		assert_int_equal(dqlc_dec_columns(&cur, &n, names), 0);
		assert_int_equal(n, 2);
		assert_string_equal(names[1], "name");
		assert_int_equal(dqlc_dec_row(&cur, n, v), 1);
		assert_string_equal(v[1].b.p, "ab");
		assert_int_equal(dqlc_dec_row(&cur, n, v), 1);
		assert_int_equal(dqlc_dec_row(&cur, n, v), DQLC_ROW_PART);
		assert_int_equal(cur.len, 0);
	}
}

static void test_decode_other(void **state)
{
	(void)state;
	struct dqlc_hdr h;
	uint8_t b[64] = { 0 };
	uint64_t code, id;
	const char *s;

	assert_int_equal(dqlc_dec_hdr(b, 7, &h), -EPROTO);
	b[0] = 3; b[4] = DQLC_RESP_ROWS;
	assert_int_equal(dqlc_dec_hdr(b, 8, &h), 0);
	assert_int_equal(h.words, 3);
	assert_int_equal(h.type, DQLC_RESP_ROWS);

	/* FAILURE: code 1, "no such table: x" (16 chars + NUL -> 24 bytes). */
	memset(b, 0, sizeof(b));
	put64(b, 1);
	memcpy(b + 8, "no such table: x", 16);
	for (size_t l = 0; l < 32; l++) {
		uint8_t *q = dup_exact(b, l);
		struct dqlc_cur cur = { q, l };
		assert_int_equal(dqlc_dec_failure(&cur, &code, &s), -EPROTO);
		free(q);
	}
	struct dqlc_cur cur = { b, 32 };
	assert_int_equal(dqlc_dec_failure(&cur, &code, &s), 0);
	assert_int_equal(code, 1);
	assert_string_equal(s, "no such table: x");
	assert_int_equal(cur.len, 0);

	/* SERVER: id 1, "127.0.0.1:9001". */
	memset(b, 0, sizeof(b));
	put64(b, 1);
	memcpy(b + 8, "127.0.0.1:9001", 14);
	for (size_t l = 0; l < 24; l++) {
		uint8_t *q = dup_exact(b, l);
		struct dqlc_cur c2 = { q, l };
		assert_int_equal(dqlc_dec_server(&c2, &id, &s), -EPROTO);
		free(q);
	}
	/* NUL present but its padding runs past the end. */
	uint8_t t[5] = { 'a', 'b', 'c', 0, 0 };
	struct dqlc_cur c3 = { t, sizeof(t) };
	assert_int_equal(dqlc_cur_text(&c3, &s, NULL), -EPROTO);
	uint32_t u32;
	struct dqlc_cur c4 = { t, 3 };
	assert_int_equal(dqlc_cur_u32(&c4, &u32), -EPROTO);

	/* SERVERS: 2 members (1, "a:1", voter), (2, "127.0.0.1:9002", spare). */
	{
		uint8_t sv[96] = { 0 };
		struct dqlc_node nd[2];
		size_t o = 0;
		o += put64(sv + o, 2);
		o += put64(sv + o, 1);
		memcpy(sv + o, "a:1", 3); o += 8;
		o += put64(sv + o, DQLC_ROLE_VOTER);
		o += put64(sv + o, 2);
		memcpy(sv + o, "127.0.0.1:9002", 14); o += 16;
		o += put64(sv + o, DQLC_ROLE_SPARE);
		struct dqlc_cur cs = { sv, o };
		assert_int_equal(dqlc_dec_servers(&cs, nd, 2), 2);
		assert_int_equal(nd[1].id, 2);
		assert_string_equal(nd[1].addr, "127.0.0.1:9002");
		assert_int_equal(nd[1].role, DQLC_ROLE_SPARE);
		cs = (struct dqlc_cur){ sv, o };
		assert_int_equal(dqlc_dec_servers(&cs, nd, 1), -E2BIG);   /* well-formed, no room */
		assert_int_equal(nd[0].id, 1);
		/* Every truncation: -EPROTO, never a read past the end. */
		for (size_t l = 0; l < o; l++) {
			uint8_t *q = dup_exact(sv, l);
			struct dqlc_cur ct = { q, l };
			assert_int_equal(dqlc_dec_servers(&ct, nd, 2), -EPROTO);
			free(q);
		}
		uint8_t bad[96];
		memcpy(bad, sv, o);
		put64(bad + 24, 3);                                   /* role 3: no such role */
		cs = (struct dqlc_cur){ bad, o };
		assert_int_equal(dqlc_dec_servers(&cs, nd, 2), -EPROTO);
		memcpy(bad, sv, o);
		put64(bad, UINT64_MAX);                               /* a count the body cannot hold */
		cs = (struct dqlc_cur){ bad, o };
		assert_int_equal(dqlc_dec_servers(&cs, nd, 2), -EPROTO);
		put64(bad, 1);                                        /* one member, then trailing words */
		cs = (struct dqlc_cur){ bad, o };
		assert_int_equal(dqlc_dec_servers(&cs, nd, 2), -EPROTO);
		put64(bad, 0);                                        /* empty, trailing words */
		cs = (struct dqlc_cur){ bad, 8 };
		assert_int_equal(dqlc_dec_servers(&cs, nd, 2), 0);
	}

	/* Encoder: exact sizes and -ENOSPC. */
	uint8_t e[64];
	struct dqlc_value p[] = { dqlc_int(5), dqlc_text("abcdefg"), dqlc_blob("xyz", 3) };
	assert_int_equal(dqlc_params_size(p, 3), 8 + 8 + 8 + 16);
	assert_int_equal(dqlc_enc_params(e, 39, p, 3), -ENOSPC);
	assert_int_equal(dqlc_enc_params(e, sizeof(e), p, 3), 40);
	assert_int_equal(e[0], 3);
	assert_int_equal(e[1], DQLC_INTEGER);
	assert_int_equal(e[2], DQLC_TEXT);
	assert_int_equal(e[3], DQLC_BLOB);
	assert_int_equal(e[8], 5);
	assert_memory_equal(e + 16, "abcdefg\0", 8);
	assert_int_equal(e[24], 3);
	assert_memory_equal(e + 32, "xyz\0\0\0\0\0", 8);
	assert_int_equal(dqlc_enc_params(e, sizeof(e), NULL, 0), 0);
}

/* ---- a fake server: timeouts and bad frames over a real socket ---- */

struct fake {
	int lfd;
	int port;
	const uint8_t *reply;
	size_t reply_len;
	int hold_ms;         /* keep the socket open that long after replying */
};

/* The fake speaks the cluster link's TLS with the node's certificate (issue 31), so the
 * bad frames reach the client's decoders as they would from a real member. */
static void *fake_run(void *arg)
{
	struct fake *f = arg;
	int fd = accept(f->lfd, NULL, NULL);
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	if (fd < 0)
		return NULL;
	if (dqlc_tls_ctx_new(g.tmp.dir, true, &ctx) != 0 || !(ssl = SSL_new(ctx)) ||
	    SSL_set_fd(ssl, fd) != 1 || SSL_accept(ssl) != 1)
		goto out;
	uint8_t in[16];   /* handshake word + LEADER request (header + 1 word) */
	size_t got = 0;
	while (got < 24) {
		int n = SSL_read(ssl, in, sizeof(in) < 24 - got ? (int)sizeof(in) : (int)(24 - got));
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (f->reply_len)
		(void)SSL_write(ssl, f->reply, (int)f->reply_len);
	tl_sleep_ms(f->hold_ms);
out:
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return NULL;
}

static int op_leader(struct dqlc *c)
{
	char leader[DQLC_ADDR_MAX];
	return dqlc_leader(c, NULL, leader, sizeof(leader));
}

/* The fake reads 24 bytes: handshake + one request of one word (LEADER, CLUSTER, REMOVE). */
static int op_cluster(struct dqlc *c)
{
	struct dqlc_node nd[DQLC_NODES_MAX];
	return dqlc_cluster(c, nd, DQLC_NODES_MAX);
}

static int op_remove(struct dqlc *c)
{
	return dqlc_remove(c, 2);
}

static int fake_call(const uint8_t *reply, size_t len, int hold_ms, int timeout_ms, int (*op)(struct dqlc *))
{
	struct fake f = { .reply = reply, .reply_len = len, .hold_ms = hold_ms };
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	pthread_t th;
	char addr[64], leader[DQLC_ADDR_MAX];
	struct dqlc *c;

	f.lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_true(f.lfd >= 0);
	assert_int_equal(bind(f.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(f.lfd, 1), 0);
	assert_int_equal(getsockname(f.lfd, (struct sockaddr *)&sa, &sl), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%d", ntohs(sa.sin_port));
	assert_int_equal(pthread_create(&th, NULL, fake_run, &f), 0);
	assert_int_equal(dqlc_connect(addr, timeout_ms, &c), 0);
	int rc = op(c);
	if (rc < 0 && rc != -DQLC_EFAILURE && rc != -E2BIG)   /* the stream is broken now */
		assert_int_equal(dqlc_leader(c, NULL, leader, sizeof(leader)), -ENOTCONN);
	dqlc_close(c);
	pthread_join(th, NULL);
	close(f.lfd);
	return rc;
}

static int fake_leader(const uint8_t *reply, size_t len, int hold_ms, int timeout_ms)
{
	return fake_call(reply, len, hold_ms, timeout_ms, op_leader);
}

/* Membership answers that do not decode: -EPROTO, connection broken. */
static void test_fake_membership(void **state)
{
	(void)state;
	uint8_t m[64] = { 0 };

	/* SERVERS with one member: id 1, "a:1", role voter. */
	m[0] = 4; m[4] = DQLC_RESP_SERVERS;
	put64(m + 8, 1);
	put64(m + 16, 1);
	memcpy(m + 24, "a:1", 3);
	put64(m + 32, DQLC_ROLE_VOTER);
	assert_int_equal(fake_call(m, 40, 0, 2000, op_cluster), 1);
	/* Short: the header says 4 words, the member's role is cut (3 words). */
	m[0] = 3;
	assert_int_equal(fake_call(m, 32, 0, 2000, op_cluster), -EPROTO);
	/* Role 9. */
	m[0] = 4;
	put64(m + 32, 9);
	assert_int_equal(fake_call(m, 40, 0, 2000, op_cluster), -EPROTO);
	/* A count of 2 with one member's words. */
	put64(m + 32, DQLC_ROLE_VOTER);
	put64(m + 8, 2);
	assert_int_equal(fake_call(m, 40, 0, 2000, op_cluster), -EPROTO);
	/* Wrong type: EMPTY for CLUSTER, SERVERS for REMOVE. */
	put64(m + 8, 1);
	m[4] = DQLC_RESP_EMPTY;
	assert_int_equal(fake_call(m, 40, 0, 2000, op_cluster), -EPROTO);
	m[4] = DQLC_RESP_SERVERS;
	assert_int_equal(fake_call(m, 40, 0, 2000, op_remove), -EPROTO);
	/* EMPTY for REMOVE: done. FAILURE: passed on. */
	memset(m, 0, sizeof(m));
	m[0] = 1; m[4] = DQLC_RESP_EMPTY;
	assert_int_equal(fake_call(m, 16, 0, 2000, op_remove), 0);
	m[0] = 3; m[4] = DQLC_RESP_FAILURE;                      /* "not leader": 11 bytes, 2 words */
	put64(m + 8, DQLC_NOT_LEADER);
	memcpy(m + 16, "not leader", 10);
	assert_int_equal(fake_call(m, 32, 0, 2000, op_remove), -DQLC_EFAILURE);
	/* No answer to REMOVE in time. */
	assert_int_equal(fake_call(NULL, 0, 600, 200, op_remove), -ETIMEDOUT);
}

static void test_fake_server(void **state)
{
	(void)state;
	uint8_t m[64] = { 0 };

	/* No answer within 200 ms. */
	assert_int_equal(fake_leader(NULL, 0, 600, 200), -ETIMEDOUT);
	/* Closed without an answer. */
	assert_int_equal(fake_leader(NULL, 0, 0, 2000), -ECONNRESET);
	/* A body larger than DQLC_MSG_MAX announced. */
	m[0] = 0xff; m[1] = 0xff; m[2] = 0xff; m[3] = 0x7f; m[4] = DQLC_RESP_SERVER;
	assert_int_equal(fake_leader(m, 8, 0, 2000), -EMSGSIZE);
	/* Header says 3 words, 1 arrives, then close. */
	memset(m, 0, sizeof(m));
	m[0] = 3; m[4] = DQLC_RESP_SERVER;
	assert_int_equal(fake_leader(m, 16, 0, 2000), -ECONNRESET);
	/* Wrong response type (DB for LEADER). */
	m[0] = 1; m[4] = DQLC_RESP_DB;
	assert_int_equal(fake_leader(m, 16, 0, 2000), -EPROTO);
	/* SERVER whose address has no NUL inside the body. */
	m[0] = 2; m[4] = DQLC_RESP_SERVER;
	put64(m + 8, 1);
	memcpy(m + 16, "12345678", 8);
	assert_int_equal(fake_leader(m, 24, 0, 2000), -EPROTO);
	/* FAILURE is passed on with code and message; the stream stays in step. */
	memset(m, 0, sizeof(m));
	m[0] = 2; m[4] = DQLC_RESP_FAILURE;
	put64(m + 8, 5);
	memcpy(m + 16, "busy", 4);
	assert_int_equal(fake_leader(m, 24, 0, 2000), -DQLC_EFAILURE);
	/* A well-formed SERVER. */
	m[4] = DQLC_RESP_SERVER;
	memcpy(m + 16, "a:1\0", 4);
	assert_int_equal(fake_leader(m, 24, 0, 2000), 0);
}

/* The codec group's fake server and client: certificates of a CA of their own. */
static int codec_up(void **state)
{
	(void)state;
	dbt_init(&g.tmp);
	return cluster_pki_init(g.tmp.dir, "test") == 0 && dqlc_tls_init(g.tmp.dir) == 0 ? 0 : -1;
}

static int codec_down(void **state)
{
	(void)state;
	dbt_cleanup(&g.tmp);
	return 0;
}

int main(void)
{
	const struct CMUnitTest node_tests[] = {
		cmocka_unit_test(test_leader),
		cmocka_unit_test(test_param_types),
		cmocka_unit_test(test_prepared),
		cmocka_unit_test(test_failure),
		cmocka_unit_test(test_many_rows),
		cmocka_unit_test(test_membership),
		cmocka_unit_test(test_not_leader),
	};
	const struct CMUnitTest codec_tests[] = {
		cmocka_unit_test(test_decode_rows),
		cmocka_unit_test(test_decode_other),
		cmocka_unit_test(test_fake_server),
		cmocka_unit_test(test_fake_membership),
	};
	int fails = cmocka_run_group_tests_name("codec", codec_tests, codec_up, codec_down);
	fails += cmocka_run_group_tests_name("dqlite-node", node_tests, node_up, node_down);
	return fails ? 1 : 0;
}
