/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Helpers for the db tests: a temp dir per test, files written from strings. */
#ifndef SOLOCORE_TESTS_DB_DBTEST_H
#define SOLOCORE_TESTS_DB_DBTEST_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct dbt {
	char dir[64];
	char db[96];
	char file[96];
};

static inline void dbt_init(struct dbt *t)
{
	snprintf(t->dir, sizeof(t->dir), "/tmp/solocore-dbtest-XXXXXX");
	if (!mkdtemp(t->dir)) {
		perror("mkdtemp");
		abort();
	}
	snprintf(t->db, sizeof(t->db), "%s/s.db", t->dir);
	snprintf(t->file, sizeof(t->file), "%s/sims.toml", t->dir);
}

static inline void dbt_write(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
		perror(path);
		abort();
	}
}

static inline void dbt_cleanup(struct dbt *t)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", t->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "cleanup of %s failed\n", t->dir);
}

/* ---- the backend under test: a SQLite file (default) or a dqlite node ----
 *
 * A test binary run with --dqlite starts one real dqlite node in-process
 * (node id 1 with an empty data dir bootstraps a one-voter cluster, bound to
 * 127.0.0.1 on a free port) and every dbt_open() opens a database of its own
 * on it (named after the test's temp dir); without it dbt_open() opens the
 * test's SQLite file. Tests of what only a file has (file modes, WAL,
 * VACUUM INTO, restore) call DBT_FILE_ONLY() first: on dqlite they print why
 * and are reported SKIPPED by cmocka, never as passed.
 */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdbool.h>
#include <sys/socket.h>
#include <time.h>

#include <dqlite.h>

#include "db/cluster_pki.h"
#include "db/cluster_tls.h"
#include "db/db_int.h"
#include "db/dqlite_client.h"

/*
 * A real dqlite node the way solocore runs one (issue 31): dqlite on a private
 * abstract socket, the mutual-TLS terminator of db/cluster_tls.h on addr, Raft
 * dialling through it. Certificates: ca_dir NULL makes a new cluster CA in dir
 * (and points this process's dqlite clients at it); otherwise dir gets a node
 * certificate of the CA in ca_dir. 0 or -1 (message printed).
 */
struct dbt_node {
	dqlite_node *node;
	struct cluster_tls *tls;
	char backend[64];
};

static inline int dbt_node_up(struct dbt_node *n, uint64_t id, const char *addr, const char *dir,
			      const char *ca_dir)
{
	static unsigned seq;
	int rc = 0;

	if (!cluster_pki_present(dir))
		rc = ca_dir ? cluster_pki_add_node(ca_dir, dir, "test") : cluster_pki_init(dir, "test");
	if (rc == 0 && !ca_dir)
		rc = dqlc_tls_init(dir);
	snprintf(n->backend, sizeof(n->backend), "@solocore-dbtest-%ld-%u", (long)getpid(), ++seq);
	if (rc == 0)
		rc = cluster_tls_start(addr, n->backend, dir, &n->tls);
	if (rc < 0) {
		fprintf(stderr, "FAIL: node %s: certificates / TLS listener: %s\n", addr, strerror(-rc));
		return -1;
	}
	if (dqlite_node_create(id, addr, dir, &n->node) != 0 ||
	    dqlite_node_set_bind_address(n->node, n->backend) != 0 ||
	    dqlite_node_set_connect_func(n->node, cluster_tls_connect, n->tls) != 0 ||
	    dqlite_node_start(n->node) != 0) {
		fprintf(stderr, "FAIL: dqlite node %s does not start: %s\n", addr,
			n->node ? dqlite_node_errmsg(n->node) : "create");
		return -1;
	}
	return 0;
}

static inline void dbt_node_down(struct dbt_node *n)
{
	if (n->node) {
		dqlite_node_stop(n->node);
		dqlite_node_destroy(n->node);
	}
	cluster_tls_stop(n->tls);
	n->node = NULL;
	n->tls = NULL;
}

struct dbt_backend {
	bool dqlite;
	struct dbt_node n;
	char addr[64];
	struct dbt dir;
};

static inline struct dbt_backend *dbt_be(void)
{
	static struct dbt_backend be;
	return &be;
}

static inline bool dbt_dqlite(void) { return dbt_be()->dqlite; }

#define DBT_FILE_ONLY(why) do { \
	if (dbt_dqlite()) { \
		printf("SKIP on dqlite: %s\n", why); \
		fflush(stdout); \
		skip(); \
	} \
} while (0)

/* A TCP port on 127.0.0.1 nobody listens on right now. */
static inline int dbt_free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		perror("dbt_free_port");
		abort();
	}
	close(fd);
	return ntohs(sa.sin_port);
}

/* From main: "--dqlite" starts the node. Prints the backend; -1 (after a loud
 * message) when the node does not come up, and the test binary then fails. */
static inline int dbt_backend_init(int argc, char **argv)
{
	struct dbt_backend *be = dbt_be();

	be->dqlite = argc > 1 && !strcmp(argv[1], "--dqlite");
	if (!be->dqlite) {
		printf("db backend: sqlite (a file per test)\n");
		return 0;
	}
	dbt_init(&be->dir);
	snprintf(be->addr, sizeof(be->addr), "127.0.0.1:%d", dbt_free_port());
	if (dbt_node_up(&be->n, 1, be->addr, be->dir.dir, NULL) < 0)
		return -1;
	for (int i = 0; i < 200; i++) {   /* <= 10 s to elect itself */
		struct dqlc *c;
		char leader[DQLC_ADDR_MAX] = "";
		if (dqlc_connect(be->addr, 1000, &c) == 0) {
			int rc = dqlc_leader(c, NULL, leader, sizeof(leader));
			dqlc_close(c);
			if (rc == 0 && leader[0]) {
				printf("db backend: dqlite (node 1 at %s, a database per test)\n", be->addr);
				return 0;
			}
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	fprintf(stderr, "FAIL: dqlite node %s: no leader after 10 s\n", be->addr);
	return -1;
}

/* Wait (<= 10 s) until the node at addr names a leader. 0 or -1. */
static inline int dbt_wait_leader(const char *addr)
{
	for (int i = 0; i < 200; i++) {
		struct dqlc *c;
		char leader[DQLC_ADDR_MAX] = "";
		if (dqlc_connect(addr, 1000, &c) == 0) {
			int rc = dqlc_leader(c, NULL, leader, sizeof(leader));
			dqlc_close(c);
			if (rc == 0 && leader[0])
				return 0;
		}
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	return -1;
}

/* Stop the dqlite node and start it again on the same address and data:
 * every client connection to it breaks. 0 or -1 (message printed). */
static inline int dbt_node_restart(void)
{
	struct dbt_backend *be = dbt_be();

	dbt_node_down(&be->n);
	if (dbt_node_up(&be->n, 1, be->addr, be->dir.dir, NULL) < 0 || dbt_wait_leader(be->addr) < 0) {
		fprintf(stderr, "FAIL: dqlite node %s does not come back\n", be->addr);
		return -1;
	}
	return 0;
}

static inline void dbt_backend_fini(void)
{
	struct dbt_backend *be = dbt_be();

	if (be->n.node) {
		dbt_node_down(&be->n);
		dbt_cleanup(&be->dir);
	}
}

/* The dqlite database name of test t: its temp dir's last component. */
static inline const char *dbt_name(const struct dbt *t, char *buf, size_t n)
{
	const char *b = strrchr(t->dir, '/');
	snprintf(buf, n, "%s.db", b ? b + 1 : t->dir);
	return buf;
}

/* A subscriber with K and OPc made from seed, everything else the defaults. */
static inline void dbt_sub_init(struct db_subscriber *s, const char *supi, int seed)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->supi, sizeof(s->supi), "%.*s", DB_SUPI_MAX - 1, supi);
	for (int i = 0; i < 16; i++) {
		s->k[i] = (uint8_t)(seed + i);
		s->opc[i] = (uint8_t)(seed * 3 + i);
	}
	s->op_is_opc = true;
	s->amf = DB_DEFAULT_AMF;
}

/* db_open() on the backend under test. */
static inline int dbt_open(const struct dbt *t, struct db **out)
{
	char name[96];

	if (!dbt_dqlite())
		return db_open(t->db, out);
	return db_open_dqlite(dbt_be()->addr, dbt_name(t, name, sizeof(name)), out);
}

/* A bare connection (no migration) to the same database as dbt_open(). */
static inline int dbt_conn(const struct dbt *t, struct sql **out)
{
	char name[96];

	if (!dbt_dqlite())
		return db_conn_open(t->db, out);
	int r = sql_dqlite_open(dbt_be()->addr, dbt_name(t, name, sizeof(name)), out);
	/* As db/ sets it on its own connections (db_conn_open does on a file). */
	if (r == 0 && (r = sql_exec(*out, "PRAGMA foreign_keys = ON")) < 0)
		sql_close(*out);
	return r;
}

/* The first column of the first row of q through a new connection, -1 if none. */
static inline int64_t dbt_sql_int(const struct dbt *t, const char *q)
{
	struct sql *c;
	struct sql_stmt *st;
	int64_t v = -1;

	if (dbt_conn(t, &c) < 0)
		return -2;
	if (sql_prepare(c, q, 0, &st) == 0) {
		if (sql_step(st) == SQL_ROW)
			v = sql_column_int64(st, 0);
		sql_finalize(st);
	}
	sql_close(c);
	return v;
}

/* Run a script through a new connection: 0 or -errno. */
static inline int dbt_sql_exec(const struct dbt *t, const char *script)
{
	struct sql *c;
	int r = dbt_conn(t, &c);

	if (r < 0)
		return r;
	r = sql_exec(c, script);
	sql_close(c);
	return r;
}

#endif
