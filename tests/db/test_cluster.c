/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db/cluster with REAL dqlite nodes, each in its own forked process on
 * 127.0.0.1 with its own port and data dir (so the test can SIGKILL one):
 * node 1 bootstraps, 2 and 3 join through it at the same time (Raft takes
 * one configuration change at a time: the loser retries); a row written
 * through the leader and read through another node's address; SIGKILL of the
 * leader -> a new leader (time measured and printed, only a generous bound
 * asserted), the row still there, a write through the new leader; the killed
 * node restarted from its dir -> a voter again; one survivor of three refuses
 * writes (the error printed); a node restarted as a spare is a voter again, a
 * removed one is not added back until `cluster add`; remove (of the leader)
 * -> two members. Error paths of cluster_start / cluster_add /
 * cluster_remove / cluster_status.
 *
 * `test_cluster --node ID ADDR DIR [PEER...]` runs one node until SIGTERM
 * (prints "ready" once started): tests/db/cluster_cli.sh uses it.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/conf.h"
#include "db/cluster.h"
#include "db/cluster_pki.h"
#include "dbtest.h"
#include "testlib.h"

#define N 3
#define JOIN_MS 30000          /* cluster_start's bound in the children */
#define ELECTION_BOUND_MS 30000 /* generous: only that a leader appears is asserted */

struct node {
	uint64_t id;
	char addr[64];
	char dir[128];
	pid_t pid;
};

static struct {
	struct dbt tmp;
	struct node n[N];
	const char *addrs[N];
	uint64_t killed;           /* the leader killed by t_failover */
} g;

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* The node process: start (bootstrap or join), say so on fd, wait for SIGTERM, stop. */
static void node_main(const struct cluster_params *p, int fd)
{
	sigset_t set;
	struct cluster *cl = NULL;
	int sig, rc;

	/* Blocked before libdqlite starts its threads: they inherit the mask. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	rc = cluster_start(p, &cl);
	if (write(fd, &rc, sizeof(rc)) != sizeof(rc))
		_exit(3);
	close(fd);
	if (rc < 0)
		_exit(1);
	sigwait(&set, &sig);
	cluster_stop(cl);
	_exit(0);
}

static void params_of(const struct node *nd, struct cluster_params *p)
{
	memset(p, 0, sizeof(*p));
	p->node_id = nd->id;
	p->address = nd->addr;
	p->dir = nd->dir;
	p->join_timeout_ms = JOIN_MS;
	/* Every node knows every other: it can join (or be told the leader) through any. */
	for (int i = 0; i < N; i++)
		if (&g.n[i] != nd)
			p->peers[p->n_peers++] = g.n[i].addr;
}

/* Fork node i; returns the read end of its status pipe. */
static int spawn(int i)
{
	struct cluster_params p;
	int fds[2];

	params_of(&g.n[i], &p);
	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	fflush(stderr);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		node_main(&p, fds[1]);
	}
	close(fds[1]);
	g.n[i].pid = pid;
	return fds[0];
}

/* cluster_start's result in the child (within its join bound + margin). */
static int started(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };
	int rc = -ETIMEDOUT;

	if (poll(&pfd, 1, JOIN_MS + 10000) == 1 && read(fd, &rc, sizeof(rc)) != sizeof(rc))
		rc = -EPIPE;
	close(fd);
	return rc;
}

static void kill_node(int i, int sig)
{
	int st;

	if (g.n[i].pid <= 0)
		return;
	kill(g.n[i].pid, sig);
	waitpid(g.n[i].pid, &st, 0);
	if (sig == SIGTERM)
		assert_true(WIFEXITED(st) && WEXITSTATUS(st) == 0);   /* stopped cleanly */
	g.n[i].pid = 0;
}

static int idx_of(uint64_t id)
{
	for (int i = 0; i < N; i++)
		if (g.n[i].id == id)
			return i;
	fail_msg("no node %llu", (unsigned long long)id);
	return -1;
}

/* The leader through the live nodes, waiting up to bound_ms; its id, or 0. */
static uint64_t wait_leader(int bound_ms, uint64_t not_this)
{
	int64_t end = now_ms() + bound_ms;
	char la[DQLC_ADDR_MAX];
	uint64_t lid = 0;

	do {
		if (cluster_find_leader(g.addrs, N, 500, &lid, la, sizeof(la)) == 0 && lid != not_this)
			return lid;
		tl_sleep_ms(50);
	} while (now_ms() < end);
	return 0;
}

/* A connection to the leader, registered, db "t" open, and the leader serving
 * (right after an election the leadership can move once more: try again, 10 s). */
static struct dqlc *leader_db(uint32_t *db)
{
	int64_t end = now_ms() + 10000;
	char la[DQLC_ADDR_MAX];
	uint64_t lid;
	struct dqlc *c;
	int rc;

	for (;;) {
		assert_int_equal(cluster_find_leader(g.addrs, N, 2000, &lid, la, sizeof(la)), 0);
		assert_int_equal(dqlc_connect(la, 10000, &c), 0);
		assert_int_equal(dqlc_register(c, 7, NULL), 0);
		assert_int_equal(dqlc_open(c, "t", db), 0);
		rc = dqlc_query_sql(c, *db, "SELECT 1", NULL, 0);
		if (rc == 1 || now_ms() > end)
			break;
		printf("leader %llu at %s: %s, looking again\n", (unsigned long long)lid, la, dqlc_errmsg(c));
		dqlc_close(c);
		tl_sleep_ms(200);
	}
	assert_int_equal(rc, 1);
	return c;
}

static int64_t count_rows(struct dqlc *c, uint32_t db)
{
	struct dqlc_value v[1];
	int rc = dqlc_query_sql(c, db, "SELECT count(*) FROM kv", NULL, 0);
	if (rc < 0)
		printf("count: rc %d code %llu \"%s\"\n", rc, (unsigned long long)dqlc_errcode(c), dqlc_errmsg(c));
	assert_int_equal(rc, 1);
	assert_int_equal(dqlc_next(c, v, 1), 1);
	assert_int_equal(dqlc_next(c, v, 1), 0);
	return v[0].i;
}

/* All n members voters, one leader, each reachable, within bound_ms. */
static void wait_voters(unsigned n, int bound_ms)
{
	struct cluster_member m[DQLC_NODES_MAX];
	int64_t end = now_ms() + bound_ms;
	int k = 0;

	do {
		k = cluster_status(g.addrs, N, 1000, m, DQLC_NODES_MAX);
		if (k == (int)n) {
			unsigned voters = 0, leaders = 0, up = 0;
			for (int i = 0; i < k; i++) {
				voters += m[i].role == DQLC_ROLE_VOTER;
				leaders += m[i].leader;
				up += m[i].reachable;
			}
			if (voters == n && leaders == 1 && up == n)
				return;
		}
		tl_sleep_ms(100);
	} while (now_ms() < end);
	fail_msg("no %u reachable voters with one leader in %d ms (last status %d)", n, bound_ms, k);
}

static int setup(void **state)
{
	(void)state;
	dbt_init(&g.tmp);
	for (int i = 0; i < N; i++) {
		g.n[i].id = (uint64_t)i + 1;
		snprintf(g.n[i].addr, sizeof(g.n[i].addr), "127.0.0.1:%d", tl_free_port());
		snprintf(g.n[i].dir, sizeof(g.n[i].dir), "%s/node%d", g.tmp.dir, i + 1);
		g.addrs[i] = g.n[i].addr;
	}
	/* Issue 31: the link is mutual TLS; one CA, each node its certificate, and this
	 * process (a client of the nodes) node 1's. */
	assert_int_equal(cluster_pki_init(g.n[0].dir, "node-1"), 0);
	for (int i = 1; i < N; i++)
		assert_int_equal(cluster_pki_add_node(g.n[0].dir, g.n[i].dir, "node"), 0);
	assert_int_equal(dqlc_tls_init(g.n[0].dir), 0);
	return 0;
}

/* A certificate of the cluster's CA for a node started from dir (test fixture). */
static void certify(const char *dir)
{
	int rc = cluster_pki_add_node(g.n[0].dir, dir, "node");
	assert_true(rc == 0 || rc == -EEXIST);
}

static int teardown(void **state)
{
	(void)state;
	for (int i = 0; i < N; i++)
		kill_node(i, SIGKILL);
	dbt_cleanup(&g.tmp);
	return 0;
}

static void t_form(void **state)
{
	(void)state;
	struct cluster_member m[DQLC_NODES_MAX];
	int64_t t0 = now_ms();

	assert_int_equal(started(spawn(0)), 0);
	printf("node 1 bootstrapped in %lld ms\n", (long long)(now_ms() - t0));
	t0 = now_ms();
	int f2 = spawn(1), f3 = spawn(2);
	assert_int_equal(started(f2), 0);
	assert_int_equal(started(f3), 0);
	printf("nodes 2 and 3 joined (at the same time) in %lld ms\n", (long long)(now_ms() - t0));

	int k = cluster_status(g.addrs, N, 2000, m, DQLC_NODES_MAX);
	assert_int_equal(k, 3);
	unsigned leaders = 0;
	for (int i = 0; i < k; i++) {
		assert_int_equal(m[i].id, g.n[idx_of(m[i].id)].id);
		assert_string_equal(m[i].addr, g.n[idx_of(m[i].id)].addr);
		assert_int_equal(m[i].role, DQLC_ROLE_VOTER);
		assert_true(m[i].reachable);
		leaders += m[i].leader;
	}
	assert_int_equal(leaders, 1);
	assert_int_equal(cluster_status(g.addrs, N, 2000, m, 2), -E2BIG);

	/* Adding a member again is a no-op; its id or address at another is refused. */
	assert_int_equal(cluster_add(g.addrs, N, 5000, 2, g.n[1].addr), 0);
	assert_int_equal(cluster_add(g.addrs, N, 5000, 2, "127.0.0.1:1"), -EADDRINUSE);
	assert_int_equal(cluster_add(g.addrs, N, 5000, 9, g.n[2].addr), -EADDRINUSE);
	assert_int_equal(cluster_remove(g.addrs, N, 5000, 9), -ENOENT);
	assert_int_equal(cluster_add(g.addrs, N, 5000, 0, "127.0.0.1:1"), -EINVAL);
	/* A node that does not run: refused before ADD (its catch-up would never end and
	 * block every later change); the configuration is unchanged. */
	char dead[64];
	snprintf(dead, sizeof(dead), "127.0.0.1:%d", tl_free_port());
	assert_int_equal(cluster_add(g.addrs, N, 5000, 9, dead), -EHOSTDOWN);
	assert_int_equal(cluster_status(g.addrs, N, 2000, m, DQLC_NODES_MAX), 3);
}

/* Written through the leader; then what a connection to a follower gives. */
static void t_replicate(void **state)
{
	(void)state;
	struct dqlc_result r;
	struct dqlc_value v[2];
	uint32_t db, fdb;
	struct dqlc *c = leader_db(&db), *f;
	char la[DQLC_ADDR_MAX];
	uint64_t lid;

	assert_int_equal(dqlc_exec_sql(c, db, "CREATE TABLE kv (k TEXT PRIMARY KEY, v INTEGER)", NULL, 0, &r), 0);
	struct dqlc_value p[] = { dqlc_text("imsi-001010000000001"), dqlc_int(42) };
	assert_int_equal(dqlc_exec_sql(c, db, "INSERT INTO kv VALUES (?, ?)", p, 2, &r), 0);
	assert_int_equal(r.rows_affected, 1);
	dqlc_close(c);

	/* A follower's address. libdqlite 1.11 serves SQL on the leader only: the
	 * follower opens the database but answers a query with FAILURE "not leader",
	 * and LEADER through the same connection tells where to go. */
	assert_int_equal(cluster_find_leader(g.addrs, N, 2000, &lid, la, sizeof(la)), 0);
	int fi = lid == 1 ? 1 : 0;
	assert_int_equal(dqlc_connect(g.n[fi].addr, 5000, &f), 0);
	assert_int_equal(dqlc_register(f, 8, NULL), 0);
	assert_int_equal(dqlc_open(f, "t", &fdb), 0);
	int rc = dqlc_query_sql(f, fdb, "SELECT v FROM kv WHERE k = ?", p, 1);
	printf("query through follower %s: rc %d code %llu \"%s\"\n", g.n[fi].addr, rc,
	       (unsigned long long)dqlc_errcode(f), rc < 0 ? dqlc_errmsg(f) : "");
	assert_int_equal(rc, -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(f), DQLC_NOT_LEADER);
	char la2[DQLC_ADDR_MAX];
	assert_int_equal(dqlc_leader(f, NULL, la2, sizeof(la2)), 0);
	assert_string_equal(la2, la);
	dqlc_close(f);

	/* Through the leader it names: the row. */
	assert_int_equal(dqlc_connect(la2, 5000, &f), 0);
	assert_int_equal(dqlc_register(f, 8, NULL), 0);
	assert_int_equal(dqlc_open(f, "t", &fdb), 0);
	assert_int_equal(dqlc_query_sql(f, fdb, "SELECT k, v FROM kv", NULL, 0), 2);
	assert_int_equal(dqlc_next(f, v, 2), 1);
	assert_string_equal(v[0].b.p, "imsi-001010000000001");
	assert_int_equal(v[1].i, 42);
	assert_int_equal(dqlc_next(f, v, 2), 0);
	dqlc_close(f);
}

static void t_failover(void **state)
{
	(void)state;
	struct dqlc_result r;
	uint32_t db;
	uint64_t old = wait_leader(2000, 0), lid;

	assert_true(old != 0);
	int64_t t0 = now_ms();
	kill_node(idx_of(old), SIGKILL);
	g.killed = old;
	lid = wait_leader(ELECTION_BOUND_MS, old);
	int64_t took = now_ms() - t0;
	printf("SIGKILL of leader %llu: node %llu leads after %lld ms (libdqlite 1.11 default timing)\n",
	       (unsigned long long)old, (unsigned long long)lid, (long long)took);
	assert_true(lid != 0 && lid != old);

	struct dqlc *c = leader_db(&db);
	assert_int_equal(count_rows(c, db), 1);
	struct dqlc_value p[] = { dqlc_text("imsi-001010000000002"), dqlc_int(43) };
	assert_int_equal(dqlc_exec_sql(c, db, "INSERT INTO kv VALUES (?, ?)", p, 2, &r), 0);
	assert_int_equal(count_rows(c, db), 2);
	dqlc_close(c);
}

static void t_rejoin(void **state)
{
	(void)state;
	int i = idx_of(g.killed);
	int64_t t0 = now_ms();

	/* Its dir holds Raft state: it just starts, a voter of the configuration. */
	assert_int_equal(started(spawn(i)), 0);
	wait_voters(3, 30000);
	printf("node %llu restarted from its dir: a reachable voter again after %lld ms\n",
	       (unsigned long long)g.killed, (long long)(now_ms() - t0));
}

/* One survivor of three: no quorum, no write. The survivor is the leader, so
 * this is the leader cut off from the majority. */
static void t_minority(void **state)
{
	(void)state;
	struct dqlc_result r;
	uint32_t db;
	uint64_t lid = wait_leader(5000, 0);
	int li = idx_of(lid);
	struct dqlc *c = leader_db(&db);
	int64_t before = count_rows(c, db);

	for (int i = 0; i < N; i++)
		if (i != li)
			kill_node(i, SIGKILL);
	int64_t t0 = now_ms();
	struct dqlc_value p[] = { dqlc_text("imsi-minority"), dqlc_int(1) };
	int rc = dqlc_exec_sql(c, db, "INSERT INTO kv VALUES (?, ?)", p, 2, &r);
	printf("write on the survivor (leader %llu, 2 of 3 killed): rc %d after %lld ms, code %llu \"%s\"\n",
	       (unsigned long long)lid, rc, (long long)(now_ms() - t0),
	       (unsigned long long)dqlc_errcode(c), rc == -DQLC_EFAILURE ? dqlc_errmsg(c) : strerror(-rc));
	/* 1.11: the leader holds the write until it steps down, then SQLITE_IOERR_LEADERSHIP_LOST. */
	assert_int_equal(rc, -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c), DQLC_LEADERSHIP_LOST);
	dqlc_close(c);

	/* Once it has stepped down: it knows no leader; a write is "not leader". */
	const char *self[1] = { g.n[li].addr };
	char la[DQLC_ADDR_MAX];
	int64_t end = now_ms() + ELECTION_BOUND_MS;
	while (cluster_find_leader(self, 1, 1000, NULL, la, sizeof(la)) == 0 && now_ms() < end)
		tl_sleep_ms(50);
	assert_int_equal(cluster_find_leader(self, 1, 1000, NULL, la, sizeof(la)), -ENOTCONN);
	printf("survivor stepped down after %lld ms\n", (long long)(now_ms() - t0));
	assert_int_equal(dqlc_connect(g.n[li].addr, 5000, &c), 0);
	assert_int_equal(dqlc_register(c, 9, NULL), 0);
	assert_int_equal(dqlc_open(c, "t", &db), 0);
	rc = dqlc_exec_sql(c, db, "INSERT INTO kv VALUES (?, ?)", p, 2, &r);
	printf("write on the survivor after step-down: rc %d code %llu \"%s\"\n", rc,
	       (unsigned long long)dqlc_errcode(c), rc == -DQLC_EFAILURE ? dqlc_errmsg(c) : strerror(-rc));
	assert_int_equal(rc, -DQLC_EFAILURE);
	assert_int_equal(dqlc_errcode(c), DQLC_NOT_LEADER);
	dqlc_close(c);
	/* The CLI's view: nodes answer, no leader. */
	struct cluster_member m[DQLC_NODES_MAX];
	assert_int_equal(cluster_status(g.addrs, N, 1000, m, DQLC_NODES_MAX), -ENOTCONN);
	assert_int_equal(cluster_add(g.addrs, N, 1000, 9, "127.0.0.1:1"), -ENOTCONN);

	/* Back to three. The first write's outcome was unknown to its client: Raft
	 * may still commit it (it is in the survivor's log) - say which. */
	for (int i = 0; i < N; i++)
		if (i != li)
			assert_int_equal(started(spawn(i)), 0);
	wait_voters(3, 30000);
	c = leader_db(&db);
	int64_t after = count_rows(c, db);
	printf("after recovery: %lld rows (before the failed write: %lld): the refused write was %s\n",
	       (long long)after, (long long)before, after > before ? "COMMITTED later" : "dropped");
	assert_true(after == before || after == before + 1);
	dqlc_close(c);
}

static void t_remove(void **state)
{
	(void)state;
	struct cluster_member m[DQLC_NODES_MAX];
	uint64_t lid = wait_leader(5000, 0);
	/* The leader itself: TRANSFER first, then REMOVE through the new leader. */
	int64_t t0 = now_ms();
	assert_int_equal(cluster_remove(g.addrs, N, 10000, lid), 0);
	printf("removed leader %llu in %lld ms\n", (unsigned long long)lid, (long long)(now_ms() - t0));
	kill_node(idx_of(lid), SIGTERM);
	int k = -1;
	int64_t end = now_ms() + 10000;
	while ((k = cluster_status(g.addrs, N, 1000, m, DQLC_NODES_MAX)) != 2 && now_ms() < end)
		tl_sleep_ms(100);
	assert_int_equal(k, 2);
	for (int i = 0; i < k; i++) {
		assert_true(m[i].id != lid);
		assert_int_equal(m[i].role, DQLC_ROLE_VOTER);
	}
	assert_int_equal(cluster_remove(g.addrs, N, 5000, lid), -ENOENT);
}

/* Restart with data: a node left a spare is made a voter again; a removed one is not
 * added back on its own (an operator's `cluster add` does). Node 4 in a child. */
static void t_restart_roles(void **state)
{
	(void)state;
	struct cluster_member m[DQLC_NODES_MAX];
	struct node saved = g.n[2];
	struct dqlc *c;
	char la[DQLC_ADDR_MAX];
	uint64_t lid;
	int k;

	/* Slot 2 becomes node 4 (fresh address and dir): node 3 killed and removed first. */
	kill_node(2, SIGKILL);
	assert_true(wait_leader(ELECTION_BOUND_MS, saved.id) != 0);
	g.n[2].id = 4;
	snprintf(g.n[2].addr, sizeof(g.n[2].addr), "127.0.0.1:%d", tl_free_port());
	snprintf(g.n[2].dir, sizeof(g.n[2].dir), "%s/node4", g.tmp.dir);
	certify(g.n[2].dir);
	assert_int_equal(cluster_remove(g.addrs, N, 10000, saved.id), 0);
	assert_int_equal(started(spawn(2)), 0);
	wait_voters(3, 30000);

	/* Demoted to spare, killed, restarted from its dir: a voter again. */
	assert_int_equal(cluster_find_leader(g.addrs, N, 2000, &lid, la, sizeof(la)), 0);
	if (lid == 4) {   /* a spare cannot lead: hand leadership on first */
		assert_int_equal(dqlc_connect(la, 10000, &c), 0);
		assert_int_equal(dqlc_transfer(c, 0), 0);
		dqlc_close(c);
		lid = wait_leader(10000, 4);
		assert_true(lid != 0);
		assert_int_equal(cluster_find_leader(g.addrs, N, 2000, &lid, la, sizeof(la)), 0);
	}
	assert_int_equal(dqlc_connect(la, 10000, &c), 0);
	assert_int_equal(dqlc_assign(c, 4, DQLC_ROLE_SPARE), 0);
	dqlc_close(c);
	kill_node(2, SIGKILL);
	assert_int_equal(started(spawn(2)), 0);
	k = cluster_status(g.addrs, N, 1000, m, DQLC_NODES_MAX);
	assert_int_equal(k, 3);
	for (int i = 0; i < k; i++)
		if (m[i].id == 4)
			assert_int_equal(m[i].role, DQLC_ROLE_VOTER);
	printf("node 4 restarted as a spare with data: a voter again\n");

	/* Removed, restarted from its dir: it runs, but is not added back. */
	assert_int_equal(cluster_remove(g.addrs, N, 10000, 4), 0);
	kill_node(2, SIGTERM);
	assert_int_equal(started(spawn(2)), 0);
	k = cluster_status(g.addrs, N, 1000, m, DQLC_NODES_MAX);
	assert_int_equal(k, 2);
	for (int i = 0; i < k; i++)
		assert_true(m[i].id != 4);
	/* An operator adds it back: it catches up and votes. */
	assert_int_equal(cluster_add(g.addrs, N, 10000, 4, g.n[2].addr), 0);
	wait_voters(3, 30000);
	printf("node 4 removed, restarted: not a member until `cluster add`, then a voter\n");
}

/* What cluster_start refuses before any node runs, and the bounded join. */
static void t_start_errors(void **state)
{
	(void)state;
	struct cluster_params p = { .node_id = 2, .address = "127.0.0.1:1" };
	struct cluster *cl = (struct cluster *)&p;
	char dir[160], lone[64];

	snprintf(dir, sizeof(dir), "%s/err", g.tmp.dir);
	p.dir = dir;
	assert_int_equal(cluster_start(&p, &cl), -EINVAL);   /* node 2, no data, no peers */
	assert_null(cl);
	p.node_id = 0;
	assert_int_equal(cluster_start(&p, &cl), -EINVAL);
	p.node_id = (uint64_t)INT64_MAX + 1;
	assert_int_equal(cluster_start(&p, &cl), -EINVAL);
	p.node_id = 2;
	p.dir = "";
	assert_int_equal(cluster_start(&p, &cl), -EINVAL);
	p.dir = "/proc/nope/dir";
	p.peers[p.n_peers++] = "127.0.0.1:1";
	assert_true(cluster_start(&p, &cl) < 0);
	p.dir = dir;
	/* Issue 31: a node other than 1 without a certificate in dir/tls: -ENOKEY, at once. */
	assert_int_equal(cluster_start(&p, &cl), -ENOKEY);
	assert_null(cl);
	certify(dir);

	/* Peers that never answer: -ETIMEDOUT once the bound has passed. */
	snprintf(lone, sizeof(lone), "127.0.0.1:%d", tl_free_port());
	p.address = lone;
	p.peers[0] = "127.0.0.1:1";
	p.join_timeout_ms = 1500;
	int64_t t0 = now_ms();
	assert_int_equal(cluster_start(&p, &cl), -ETIMEDOUT);
	assert_null(cl);
	assert_true(now_ms() - t0 >= 1000);

	/* Node 1 with an empty dir while a peer leads a cluster: refused. */
	snprintf(dir, sizeof(dir), "%s/err1", g.tmp.dir);
	certify(dir);
	p.node_id = 1;
	p.peers[0] = g.addrs[0];
	p.n_peers = N;
	for (int i = 0; i < N; i++)
		p.peers[i] = g.addrs[i];
	assert_int_equal(cluster_start(&p, &cl), -EEXIST);
	assert_null(cl);

	/* A member's id at a new address: refused at once (-EADDRINUSE), no retrying. */
	snprintf(dir, sizeof(dir), "%s/err2", g.tmp.dir);
	certify(dir);
	snprintf(lone, sizeof(lone), "127.0.0.1:%d", tl_free_port());
	p.node_id = 2;
	p.join_timeout_ms = 20000;
	t0 = now_ms();
	assert_int_equal(cluster_start(&p, &cl), -EADDRINUSE);
	assert_true(now_ms() - t0 < 10000);
	assert_null(cl);

	/* The address is taken (a listening socket): libdqlite cannot bind, -EIO. */
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int lfd = socket(AF_INET, SOCK_STREAM, 0);
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(lfd, 1), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	snprintf(lone, sizeof(lone), "127.0.0.1:%d", ntohs(sa.sin_port));
	snprintf(dir, sizeof(dir), "%s/err3", g.tmp.dir);
	struct cluster_params q = { .node_id = 1, .address = lone, .dir = dir };
	assert_int_equal(cluster_start(&q, &cl), -EIO);
	assert_null(cl);
	close(lfd);
	/* That node 1 made a CA of its own in err3 and pointed this process's client at it. */
	assert_int_equal(dqlc_tls_init(g.n[0].dir), 0);

	/* No cluster: section: nothing starts, no addresses. */
	struct conf cf;
	const char *ca[4];
	assert_int_equal(conf_defaults(&cf), 0);
	assert_int_equal(cluster_start_conf(&cf, &cl), 0);
	assert_null(cl);
	assert_int_equal(cluster_conf_addrs(&cf, ca, 4), 0);
	assert_int_equal(cluster_start_conf(NULL, &cl), -EINVAL);
	assert_int_equal(cluster_find_leader(NULL, 0, 100, NULL, lone, sizeof(lone)), -EINVAL);

	/* Status through nothing that answers. */
	struct cluster_member m[1];
	const char *none[1] = { "127.0.0.1:1" };
	assert_int_equal(cluster_status(none, 1, 500, m, 1), -EHOSTUNREACH);
	cluster_stop(NULL);
	assert_int_equal(cluster_node_id(NULL), 0);
}

/* `test_cluster --node ID ADDR DIR [PEER...]`: one node until SIGTERM. */
static int node_cmd(int argc, char **argv)
{
	struct cluster_params p = { 0 };
	sigset_t set;
	struct cluster *cl;
	int sig;

	if (argc < 5)
		return 2;
	p.node_id = strtoull(argv[2], NULL, 10);
	p.address = argv[3];
	p.dir = argv[4];
	for (int i = 5; i < argc && p.n_peers < CLUSTER_PEERS_MAX; i++)
		p.peers[p.n_peers++] = argv[i];
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	if (cluster_start(&p, &cl) < 0)
		return 1;
	printf("ready\n");
	fflush(stdout);
	sigwait(&set, &sig);
	cluster_stop(cl);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "--node"))
		return node_cmd(argc, argv);
	setvbuf(stdout, NULL, _IOLBF, 0);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(t_form),
		cmocka_unit_test(t_replicate),
		cmocka_unit_test(t_failover),
		cmocka_unit_test(t_rejoin),
		cmocka_unit_test(t_minority),
		cmocka_unit_test(t_restart_roles),
		cmocka_unit_test(t_start_errors),
		cmocka_unit_test(t_remove),
	};
	return cmocka_run_group_tests_name("cluster", tests, setup, teardown) ? 1 : 0;
}
