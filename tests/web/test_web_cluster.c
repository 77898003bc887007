/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * /api/v1/cluster with REAL dqlite nodes (issue 20), each in a forked process on 127.0.0.1
 * with its own port and data dir, forked before any thread of this process: node 1
 * bootstraps (cluster_start), node 2 runs a bare libdqlite node that is no member until
 * POSTed. The web under test runs in this process on a dqlite database through node 1
 * (db_open_dqlite), with a cluster: section naming node 1 and node 2 as its peer.
 *
 * Cases: no cluster: section (enabled false, POST / DELETE 409); one member with its
 * published row (leader, voter, reachable, counts, gnb_list, not stale) and the row of a
 * non-member ("member": false); bad bodies (400 naming the field), roles (403), an address
 * where nothing listens (422, membership unchanged), another member's address (409), POST
 * of node 2 (201, two voters), DELETE of an unknown id (404), of a bad id (400), of node 2
 * (204, one member), of the non-member row (204, gone), the audit log; then node 1
 * SIGKILLed: a subscriber write answers 503 with Retry-After and the cluster message (not
 * 500), a read 503, GET /api/v1/cluster answers quorum false with an error within a
 * generous bound, POST and DELETE 503.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <dqlite.h>
#include <jansson.h>

#include "common/ev.h"
#include "db/cluster.h"
#include "db/cluster_pki.h"
#include "db/cluster_tls.h"
#include "db/db.h"
#include "testlib.h"
#include "udm/udm.h"
#include "webcli.h"

#define START_MS 30000

static struct {
	char dir[150];
	char addr1[64], addr2[64], nowhere[64];
	pid_t pid1, pid2;
	struct srv s;
	bool up;
} g;

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void wait_term(void)
{
	sigset_t set;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	sigwait(&set, &sig);
}

/* Node 1: bootstraps a one-voter cluster. Writes cluster_start's result on fd. */
static void node1_main(int fd)
{
	struct cluster_params p = { .node_id = 1, .address = g.addr1, .join_timeout_ms = START_MS };
	struct cluster *cl = NULL;
	char dir[300];
	sigset_t set;
	int rc;

	snprintf(dir, sizeof(dir), "%s/n1", g.dir);
	p.dir = dir;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);   /* before libdqlite's threads: they inherit it */
	rc = cluster_start(&p, &cl);
	if (write(fd, &rc, sizeof(rc)) != sizeof(rc))
		_exit(3);
	if (rc < 0)
		_exit(1);
	wait_term();
	cluster_stop(cl);
	_exit(0);
}

/* Node 2: a bare libdqlite node, empty dir, id 2: it waits to be added (no join of its own).
 * Issue 31: behind the cluster's mutual TLS as solocore runs one (private abstract socket,
 * TLS terminator on its address, Raft dialling through cluster_tls_connect). */
static void node2_main(int fd)
{
	dqlite_node *n = NULL;
	struct cluster_tls *tls = NULL;
	char dir[300], backend[64];
	int rc;

	snprintf(dir, sizeof(dir), "%s/n2", g.dir);
	signal(SIGPIPE, SIG_IGN);
	sigset_t set;
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	rc = mkdir(dir, 0700) == 0 || errno == EEXIST ? 0 : -errno;
	snprintf(backend, sizeof(backend), "@solocore-webtest-%ld", (long)getpid());
	if (rc == 0)
		rc = cluster_tls_start(g.addr2, backend, dir, &tls);
	if (rc == 0)
		rc = dqlite_node_create(2, g.addr2, dir, &n) ? -EIO : 0;
	if (rc == 0)
		rc = dqlite_node_set_bind_address(n, backend) ? -EIO : 0;
	if (rc == 0)
		rc = dqlite_node_set_connect_func(n, cluster_tls_connect, tls) ? -EIO : 0;
	if (rc == 0)
		rc = dqlite_node_start(n) ? -EIO : 0;
	if (write(fd, &rc, sizeof(rc)) != sizeof(rc))
		_exit(3);
	if (rc < 0)
		_exit(1);
	wait_term();
	dqlite_node_stop(n);
	dqlite_node_destroy(n);
	cluster_tls_stop(tls);
	_exit(0);
}

static pid_t spawn(void (*fn)(int))
{
	int fds[2], rc = -ETIMEDOUT;
	struct pollfd pfd;
	pid_t pid;

	assert_int_equal(pipe(fds), 0);
	fflush(stdout);
	fflush(stderr);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		close(fds[0]);
		fn(fds[1]);
	}
	close(fds[1]);
	pfd = (struct pollfd){ .fd = fds[0], .events = POLLIN };
	if (poll(&pfd, 1, START_MS + 10000) == 1 && read(fds[0], &rc, sizeof(rc)) != sizeof(rc))
		rc = -EPIPE;
	close(fds[0]);
	if (rc < 0)
		fail_msg("node did not start: %s", strerror(-rc));
	return pid;
}

static void reap(pid_t *pid, int sig)
{
	int st;

	if (*pid <= 0)
		return;
	kill(*pid, sig);
	waitpid(*pid, &st, 0);
	*pid = 0;
}

static int group_setup(void **state)
{
	(void)state;
	snprintf(g.dir, sizeof(g.dir), "%s/webcl.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(g.dir));
	snprintf(g.addr1, sizeof(g.addr1), "127.0.0.1:%d", tl_free_port());
	snprintf(g.addr2, sizeof(g.addr2), "127.0.0.1:%d", tl_free_port());
	snprintf(g.nowhere, sizeof(g.nowhere), "127.0.0.1:%d", tl_free_port());
	/* Issue 31: one cluster CA (node 1's dir), node 2's certificate, and this process (the
	 * web's database client) with node 1's. */
	char d1[300], d2[300];
	snprintf(d1, sizeof(d1), "%s/n1", g.dir);
	snprintf(d2, sizeof(d2), "%s/n2", g.dir);
	assert_int_equal(cluster_pki_init(d1, "node-1"), 0);
	assert_int_equal(cluster_pki_add_node(d1, d2, "node-2"), 0);
	assert_int_equal(dqlc_tls_init(d1), 0);
	/* Both before any thread here: fork copies only the calling thread. */
	g.pid1 = spawn(node1_main);
	g.pid2 = spawn(node2_main);
	return 0;
}

static int group_teardown(void **state)
{
	char cmd[300];

	(void)state;
	if (g.up)
		srv_free(&g.s);
	reap(&g.pid1, SIGKILL);
	reap(&g.pid2, SIGKILL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", g.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", g.dir);
	return 0;
}

/* The web on a dqlite database through node 1 (webcli.h's srv, filled here: srv_resume runs
 * its loop thread, srv_free frees it). */
static void srv_start_cluster(struct srv *s)
{
	struct web_limits lim;
	int err = 0, rc = -1;

	memset(s, 0, sizeof(*s));
	snprintf(s->dir, sizeof(s->dir), "%s/web", g.dir);
	assert_int_equal(mkdir(s->dir, 0700), 0);
	assert_int_equal(conf_defaults(&s->conf), 0);
	snprintf(s->conf.web.listen, sizeof(s->conf.web.listen), "127.0.0.1");
	s->conf.web.port = 0;
	s->conf.cluster.node_id = 1;
	snprintf(s->conf.cluster.address, sizeof(s->conf.cluster.address), "%s", g.addr1);
	snprintf(s->conf.cluster.peers[0], sizeof(s->conf.cluster.peers[0]), "%s", g.addr2);
	s->conf.cluster.n_peers = 1;
	/* Right after the bootstrap the leader may still be settling: a few tries. */
	for (int i = 0; i < 50 && (rc = db_open_dqlite(g.addr1, "solocore", &s->db)) < 0; i++)
		tl_sleep_ms(200);
	assert_int_equal(rc, 0);
	s->udm = udm_new(4096, &err);
	assert_non_null(s->udm);
	udm_set_defaults_from_conf(s->udm, &s->conf);
	s->loop = ev_loop_new(&err);
	assert_non_null(s->loop);
	web_limits_default(&lim);
	lim.first_admin = false;
	assert_int_equal(web_start(s->loop, &s->conf, s->db, s->udm, &lim, &s->web), 0);
	assert_int_equal(web_token_add(s->web, TOK_ADMIN, WEB_ROLE_ADMIN), 0);
	assert_int_equal(web_token_add(s->web, TOK_OP, WEB_ROLE_OPERATOR), 0);
	assert_int_equal(web_token_add(s->web, TOK_RO, WEB_ROLE_READ), 0);
	s->port = web_port(s->web);
	srv_resume(s);
}

/* Status, error body with field, and (when given) a piece of the message. */
static void expect(struct srv *s, const char *m, const char *path, const char *tok, const char *body,
		   int status, const char *field, const char *says)
{
	struct resp r;

	do_req(s, m, path, tok, body, &r);
	if (r.status != status)
		fail_msg("%s %s %s: %d, wanted %d: %s", m, path, body ? body : "", r.status, status,
			 r.body ? r.body : "");
	expect_err(&r, status, field);
	if (says && !strstr(r.body, says))
		fail_msg("%s %s: %s lacks \"%s\"", m, path, r.body, says);
	resp_free(&r);
}

static json_t *node_of(json_t *st, json_int_t id)
{
	json_t *n, *nodes = json_object_get(st, "nodes");
	size_t i;

	json_array_foreach(nodes, i, n)
		if (json_integer_value(json_object_get(n, "id")) == id)
			return n;
	return NULL;
}

static size_t members(json_t *st)
{
	json_t *n, *nodes = json_object_get(st, "nodes");
	size_t i, k = 0;

	json_array_foreach(nodes, i, n)
		k += json_is_true(json_object_get(n, "member"));
	return k;
}

static void test_no_cluster(void **state)
{
	struct srv s;
	json_t *j;

	(void)state;
	srv_start(&s, NULL);
	j = req_json(&s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	assert_true(json_is_false(json_object_get(j, "enabled")));
	assert_int_equal(json_object_size(j), 1);
	json_decref(j);
	expect(&s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, "{\"id\":2,\"address\":\"127.0.0.1:9\"}", 409,
	       NULL, "not a cluster");
	expect(&s, "DELETE", "/api/v1/cluster/nodes/2", TOK_ADMIN, NULL, 409, NULL, "not a cluster");
	expect(&s, "POST", "/api/v1/cluster/nodes", TOK_RO, "{}", 403, NULL, NULL);
	/* Documented, and the page has its panel. */
	j = req_json(&s, "GET", "/api/v1/openapi.json", NULL, NULL, 200);
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "paths"), "/api/v1/cluster"), "get"));
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "paths"), "/api/v1/cluster/nodes"),
					"post"));
	assert_non_null(json_object_get(json_object_get(json_object_get(j, "paths"),
							"/api/v1/cluster/nodes/{id}"), "delete"));
	json_decref(j);
	{
		struct resp r;

		assert_int_equal(do_req(&s, "GET", "/", NULL, NULL, &r), 200);
		assert_non_null(strstr(r.body, "id=\"p-cluster\""));
		assert_non_null(strstr(r.body, "/api/v1/cluster"));
		resp_free(&r);
	}
	srv_free(&s);
}

static void test_view(void **state)
{
	struct db_node_row r = { .id = 1, .gnbs = 2, .ues = 3, .sessions = 4 };
	json_t *j, *n, *l;

	(void)state;
	srv_start_cluster(&g.s);
	g.up = true;
	snprintf(r.addr, sizeof(r.addr), "%s", g.addr1);
	snprintf(r.api, sizeof(r.api), "http://127.0.0.1:%u", g.s.port);
	snprintf(r.gnb_json, sizeof(r.gnb_json),
		 "[{\"name\":\"gnb-a\",\"global_id\":\"00101-1\",\"addr\":\"10.0.0.5\"},"
		 "{\"name\":\"gnb-b\",\"global_id\":\"00101-2\",\"addr\":\"10.0.0.6\"}]");
	assert_int_equal(db_node_put(g.s.db, &r), 0);
	/* A row of a node that is not a member (removed, say). */
	memset(&r, 0, sizeof(r));
	r.id = 7;
	snprintf(r.addr, sizeof(r.addr), "127.0.0.1:1");
	assert_int_equal(db_node_put(g.s.db, &r), 0);

	j = req_json(&g.s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	assert_true(json_is_true(json_object_get(j, "enabled")));
	assert_int_equal(json_integer_value(json_object_get(j, "self")), 1);
	assert_true(json_is_true(json_object_get(j, "quorum")));
	assert_null(json_object_get(j, "error"));
	assert_int_equal(json_integer_value(json_object_get(json_object_get(j, "leader"), "id")), 1);
	assert_string_equal(json_string_value(json_object_get(json_object_get(j, "leader"), "address")),
			    g.addr1);
	assert_int_equal(members(j), 1);
	n = node_of(j, 1);
	assert_non_null(n);
	assert_string_equal(json_string_value(json_object_get(n, "address")), g.addr1);
	assert_string_equal(json_string_value(json_object_get(n, "role")), "voter");
	assert_true(json_is_true(json_object_get(n, "leader")));
	assert_true(json_is_true(json_object_get(n, "reachable")));
	assert_true(json_is_true(json_object_get(n, "member")));
	assert_int_equal(json_integer_value(json_object_get(n, "gnbs")), 2);
	assert_int_equal(json_integer_value(json_object_get(n, "ues")), 3);
	assert_int_equal(json_integer_value(json_object_get(n, "sessions")), 4);
	assert_true(json_is_false(json_object_get(n, "stale")));
	assert_true(json_integer_value(json_object_get(n, "status_age_ms")) >= 0);
	assert_true(strstr(json_string_value(json_object_get(n, "api")), "http://127.0.0.1:") != NULL);
	l = json_object_get(n, "gnb_list");
	assert_int_equal(json_array_size(l), 2);
	assert_string_equal(json_string_value(json_object_get(json_array_get(l, 1), "name")), "gnb-b");
	n = node_of(j, 7);
	assert_non_null(n);
	assert_true(json_is_false(json_object_get(n, "member")));
	assert_true(json_is_null(json_object_get(n, "role")));
	assert_true(json_is_false(json_object_get(n, "reachable")));
	assert_int_equal(json_array_size(json_object_get(n, "gnb_list")), 0);
	json_decref(j);
	/* Read needs a token. */
	expect(&g.s, "GET", "/api/v1/cluster", NULL, NULL, 401, NULL, NULL);
}

static void test_bad_requests(void **state)
{
	static const struct {
		const char *body, *field;
	} bad[] = {
		{ "{\"id\":2", "body" },
		{ "[1,2]", "body" },
		{ "{\"address\":\"127.0.0.1:9001\"}", "id" },
		{ "{\"id\":0,\"address\":\"127.0.0.1:9001\"}", "id" },
		{ "{\"id\":33,\"address\":\"127.0.0.1:9001\"}", "id" },
		{ "{\"id\":\"2\",\"address\":\"127.0.0.1:9001\"}", "id" },
		{ "{\"id\":2}", "address" },
		{ "{\"id\":2,\"address\":\"node2:9001\"}", "address" },
		{ "{\"id\":2,\"address\":\"127.0.0.1\"}", "address" },
		{ "{\"id\":2,\"address\":\"127.0.0.1:70000\"}", "address" },
		{ "{\"id\":2,\"address\":\"127.0.0.1:9001\",\"role\":\"voter\"}", "role" },
	};
	char body[160];
	json_t *j;

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect(&g.s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, bad[i].body, 400, bad[i].field, NULL);
	/* Roles: only admin changes the membership. */
	snprintf(body, sizeof(body), "{\"id\":2,\"address\":\"%s\"}", g.addr2);
	expect(&g.s, "POST", "/api/v1/cluster/nodes", TOK_RO, body, 403, NULL, NULL);
	expect(&g.s, "POST", "/api/v1/cluster/nodes", TOK_OP, body, 403, NULL, NULL);
	expect(&g.s, "DELETE", "/api/v1/cluster/nodes/1", TOK_OP, NULL, 403, NULL, NULL);
	expect(&g.s, "DELETE", "/api/v1/cluster/nodes/abc", TOK_ADMIN, NULL, 400, "id", NULL);
	expect(&g.s, "DELETE", "/api/v1/cluster/nodes/0", TOK_ADMIN, NULL, 400, "id", NULL);
	expect(&g.s, "DELETE", "/api/v1/cluster/nodes/9", TOK_ADMIN, NULL, 404, NULL, "not a member");
	/* Nothing listens there: refused before ADD, membership unchanged. */
	snprintf(body, sizeof(body), "{\"id\":3,\"address\":\"%s\"}", g.nowhere);
	expect(&g.s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, body, 422, NULL, "nothing answers at");
	/* Node 1's address under another id. */
	snprintf(body, sizeof(body), "{\"id\":3,\"address\":\"%s\"}", g.addr1);
	expect(&g.s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, body, 409, NULL, "belongs to another member");
	j = req_json(&g.s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	assert_int_equal(members(j), 1);
	assert_null(node_of(j, 3));
	json_decref(j);
}

static bool audited(const char *action)
{
	json_t *j = req_json(&g.s, "GET", "/api/v1/audit?limit=100", TOK_ADMIN, NULL, 200), *a, *items;
	bool found = false;
	size_t i;

	items = json_is_array(j) ? j : json_object_get(j, "items");
	json_array_foreach(items, i, a)
		found |= !strcmp(json_string_value(json_object_get(a, "action")), action);
	json_decref(j);
	return found;
}

static void test_add_remove(void **state)
{
	char body[160];
	json_t *j, *n;

	(void)state;
	snprintf(body, sizeof(body), "{\"id\":2,\"address\":\"%s\"}", g.addr2);
	j = req_json(&g.s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, body, 201);
	assert_int_equal(json_integer_value(json_object_get(j, "id")), 2);
	assert_string_equal(json_string_value(json_object_get(j, "address")), g.addr2);
	assert_string_equal(json_string_value(json_object_get(j, "role")), "voter");
	json_decref(j);
	assert_true(audited("POST /api/v1/cluster/nodes"));
	j = req_json(&g.s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	assert_int_equal(members(j), 2);
	n = node_of(j, 2);
	assert_non_null(n);
	assert_string_equal(json_string_value(json_object_get(n, "role")), "voter");
	assert_true(json_is_true(json_object_get(n, "reachable")));
	assert_true(json_is_false(json_object_get(n, "leader")));
	/* It published nothing: no counts, stale. */
	assert_true(json_is_null(json_object_get(n, "gnbs")));
	assert_true(json_is_null(json_object_get(n, "status_age_ms")));
	assert_true(json_is_true(json_object_get(n, "stale")));
	assert_string_equal(json_string_value(json_object_get(node_of(j, 1), "role")), "voter");
	json_decref(j);
	/* Again: a voter at that address already, nothing to do. */
	json_decref(req_json(&g.s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, body, 201));

	req_json(&g.s, "DELETE", "/api/v1/cluster/nodes/2", TOK_ADMIN, NULL, 204);
	assert_true(audited("DELETE /api/v1/cluster/nodes/2"));
	j = req_json(&g.s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	assert_int_equal(members(j), 1);
	assert_null(node_of(j, 2));
	json_decref(j);
	expect(&g.s, "DELETE", "/api/v1/cluster/nodes/2", TOK_ADMIN, NULL, 404, NULL, NULL);
	/* The non-member's row: forgotten. */
	req_json(&g.s, "DELETE", "/api/v1/cluster/nodes/7", TOK_ADMIN, NULL, 204);
	j = req_json(&g.s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	assert_null(node_of(j, 7));
	assert_non_null(node_of(j, 1));
	json_decref(j);
}

static void test_no_leader(void **state)
{
	char body[160];
	struct resp r;
	int64_t t0;
	json_t *j;

	(void)state;
	/* A subscriber stored while the cluster works. */
	json_decref(req_json(&g.s, "POST", "/api/v1/subscribers", TOK_OP, webcli_sub1, 201));
	reap(&g.pid1, SIGKILL);   /* the only voter: no leader, nothing answers at node 1 */

	t0 = mono_ms();
	do_req(&g.s, "PUT", "/api/v1/subscribers/001010000000001", TOK_OP, webcli_sub1, &r);
	printf("PUT with node 1 killed: %d in %lld ms: %s\n", r.status, (long long)(mono_ms() - t0), r.body);
	expect_err(&r, 503, NULL);
	assert_non_null(strstr(r.body, "cluster: no leader reachable, the write was not done or its outcome "
				       "is unknown: repeat it (PUT and DELETE are idempotent)"));
	assert_int_equal(r.retry_after, 2);
	j = jbody(&r);
	assert_true(json_is_string(json_object_get(j, "outcome")));
	json_decref(j);
	resp_free(&r);
	expect(&g.s, "DELETE", "/api/v1/subscribers/001010000000001", TOK_OP, NULL, 503, NULL,
	       "cluster: no leader reachable");
	expect(&g.s, "GET", "/api/v1/subscribers/001010000000001", TOK_RO, NULL, 503, NULL,
	       "cluster: no leader reachable: repeat the request");

	t0 = mono_ms();
	j = req_json(&g.s, "GET", "/api/v1/cluster", TOK_RO, NULL, 200);
	printf("GET /api/v1/cluster with node 1 killed: %lld ms: error %s\n", (long long)(mono_ms() - t0),
	       json_string_value(json_object_get(j, "error")));
	assert_true(mono_ms() - t0 < 20000);
	assert_true(json_is_true(json_object_get(j, "enabled")));
	assert_true(json_is_false(json_object_get(j, "quorum")));
	assert_true(json_is_string(json_object_get(j, "error")));
	assert_int_equal(json_array_size(json_object_get(j, "nodes")), 0);
	json_decref(j);

	snprintf(body, sizeof(body), "{\"id\":2,\"address\":\"%s\"}", g.addr2);
	expect(&g.s, "POST", "/api/v1/cluster/nodes", TOK_ADMIN, body, 503, NULL, "no leader");
	expect(&g.s, "DELETE", "/api/v1/cluster/nodes/2", TOK_ADMIN, NULL, 503, NULL, "no leader");
	/* The control thread kept serving meanwhile. */
	expect(&g.s, "GET", "/api/v1/nope", TOK_RO, NULL, 404, NULL, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_no_cluster),
		cmocka_unit_test(test_view),
		cmocka_unit_test(test_bad_requests),
		cmocka_unit_test(test_add_remove),
		cmocka_unit_test(test_no_leader),
	};

	return cmocka_run_group_tests(tests, group_setup, group_teardown);
}
