/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * /api/v1/cluster (issue 20): the nodes of the replicated cluster as any node's API sees
 * them, and membership changes.
 *
 *   GET    /api/v1/cluster             (read)   {"enabled":false} without a cluster: section;
 *          else self, leader, quorum, error, and per node its membership (db/cluster.h
 *          cluster_status) joined with the row it publishes (db/db.h db_node_row).
 *   POST   /api/v1/cluster/nodes       (admin)  {"id":N,"address":"IPv4:port"}: cluster_add.
 *   DELETE /api/v1/cluster/nodes/{id}  (admin)  cluster_remove, then its row is forgotten.
 * Without a cluster: section POST and DELETE answer 409 "not a cluster".
 *
 * Threads: every cluster call connects to nodes, and may wait (a connect timeout per
 * address; cluster_add waits for the new voter to catch up; remove of the leader waits for
 * the leadership transfer), so all of it runs on the web task thread (web_task_submit, its
 * own database connection) and the control thread never waits on the cluster. The status
 * first asks who the leader is (one pass over the addresses, CLUSTER_WEB_TIMEOUT_MS each)
 * and calls cluster_status only when the leader answers: cluster_status itself goes on
 * trying for up to 10 s while the followers still name a dead leader, and a page that
 * refreshes every few seconds is better told "no quorum" at once.
 *
 * Also the router's mapping of cluster errors to 503 (web_cluster_error).
 */
#include <arpa/inet.h>
#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <jansson.h>

#include "common/conf.h"
#include "common/log.h"
#include "db/cluster.h"
#include "db/db.h"
#include "db/feed.h"
#include "web/sub_int.h"
#include "web/web_int.h"

#define CLUSTER_WEB_TIMEOUT_MS 1000    /* per connect / request to one node */
/* Add and remove: ASSIGN voter answers once the node has caught up (as cluster.c's join). */
#define CLUSTER_WEB_CHANGE_MS 5000
#define CLUSTER_WEB_ROWS_MAX 64        /* node rows listed at most */
#define CLUSTER_ID_MAX 32              /* conf: cluster.node_id 1..32 (SQN IND bits) */
/* A row not refreshed for this long belongs to a node that is down or cut off. */
#define CLUSTER_STALE_MS (3 * DB_FEED_PUBLISH_MS)
#define CLUSTER_RETRY_S 2

enum cl_op { CL_STATUS, CL_ADD, CL_REMOVE };

struct cl_task {
	enum cl_op op;
	const char *addrs[1 + CONF_MAX_CLUSTER_PEERS];   /* point into web->conf */
	unsigned n;
	uint64_t self;
	uint64_t id;                  /* add / remove */
	char addr[DQLC_ADDR_MAX];     /* add */
	char who[160];                /* remove: for the audit log */
	char act[160];
	/* the answer, made on the task thread */
	int status;
	char *body;                   /* JSON, malloc'd (jansson); NULL: no body */
	unsigned retry_after;
};

static int64_t unix_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static bool cluster_on(const struct web *w)
{
	return w->conf && w->conf->cluster.node_id != 0;
}

/* The "no leader now" family: what db/cluster_admin.c and the dqlite backend answer when no
 * leader can be reached (-EAGAIN: a leader is named but does not answer, after retries). */
static bool no_leader(int rc)
{
	return rc == -EHOSTUNREACH || rc == -ENOTCONN || rc == -ECONNREFUSED || rc == -ETIMEDOUT ||
	       rc == -EAGAIN || rc == -ECONNRESET || rc == -EPIPE || rc == -ENETUNREACH ||
	       rc == -EHOSTDOWN;
}

/* ---- 503 for cluster errors of any API request (router.c) ----
 *
 * db/sql_dqlite.c (its top comment): -EHOSTUNREACH is "not leader" (the request did not run;
 * retried once already) or no leader known when connecting; -ECONNREFUSED no connection to
 * the leader; -ENOTCONN no connection, or a transaction whose connection was lost (what it
 * held was rolled back with it, nothing later is sent): none of these ran the failing
 * statement. -ETIMEDOUT, -ECONNRESET and -EPIPE are a request whose answer was lost: a write
 * may have committed ("outcome unknown"); so are -ENETUNREACH / -EHOSTDOWN (no route to the
 * leader any more: a partition, seen on a reconnect after a request of the same handler timed
 * out). dqlite's 10506 "leadership lost" (a write that
 * may also have committed) arrives as -EIO, which SQLite errors give too: it stays a 500. */
bool web_cluster_error(struct web *w, const struct web_req *req, int rc, struct web_resp *resp)
{
	const char *outcome;
	json_t *j;

	if (!cluster_on(w))
		return false;   /* one node on SQLite: unchanged */
	if (rc == -EHOSTUNREACH || rc == -ECONNREFUSED || rc == -ENOTCONN)
		outcome = "not done";
	else if (rc == -ETIMEDOUT || rc == -ECONNRESET || rc == -EPIPE || rc == -ENETUNREACH ||
		 rc == -EHOSTDOWN)
		outcome = "unknown";
	else
		return false;
	log_warn("web", "%s: cluster error %s (outcome %s): 503", req->path, strerror(-rc), outcome);
	if (req->method == WEB_GET)
		j = json_pack("{s:s}", "error", "cluster: no leader reachable: repeat the request");
	else
		j = json_pack("{s:s, s:s}", "error",
			      "cluster: no leader reachable, the write was not done or its outcome is "
			      "unknown: repeat it (PUT and DELETE are idempotent)",
			      "outcome", outcome);
	web_resp_json(resp, 503, j);
	resp->retry_after = CLUSTER_RETRY_S;
	return true;
}

/* ---- the status (task thread) ---- */

struct rows {
	struct db_node_row *r;
	unsigned n;
	bool *listed;
};

static int row_keep(const struct db_node_row *r, void *arg)
{
	struct rows *rs = arg;

	if (rs->n == CLUSTER_WEB_ROWS_MAX)
		return 0;
	rs->r[rs->n++] = *r;
	return 0;
}

static const struct db_node_row *row_of(const struct rows *rs, uint64_t id, unsigned *idx)
{
	for (unsigned i = 0; i < rs->n; i++)
		if (rs->r[i].id == id) {
			*idx = i;
			return &rs->r[i];
		}
	return NULL;
}

/* The row's part of a node (null counts and age when it never published). */
static void row_json(json_t *o, const struct db_node_row *r, int64_t now)
{
	json_t *g = NULL;

	if (!r) {
		json_object_set_new(o, "api", json_string(""));
		json_object_set_new(o, "gnbs", json_null());
		json_object_set_new(o, "ues", json_null());
		json_object_set_new(o, "sessions", json_null());
		json_object_set_new(o, "gnb_list", json_array());
		json_object_set_new(o, "status_age_ms", json_null());
		json_object_set_new(o, "stale", json_true());
		return;
	}
	int64_t age = now - r->updated;

	if (age < 0)
		age = 0;   /* the other node's clock is ahead */
	if (r->gnb_json[0])
		g = json_loads(r->gnb_json, 0, NULL);
	if (!json_is_array(g)) {
		json_decref(g);
		g = json_array();
	}
	json_object_set_new(o, "api", json_string(r->api));
	json_object_set_new(o, "gnbs", json_integer(r->gnbs));
	json_object_set_new(o, "ues", json_integer(r->ues));
	json_object_set_new(o, "sessions", json_integer(r->sessions));
	json_object_set_new(o, "gnb_list", g);
	json_object_set_new(o, "status_age_ms", json_integer(age));
	json_object_set_new(o, "stale", json_boolean(age > CLUSTER_STALE_MS));
}

static json_t *node_json(uint64_t id, const char *addr, const char *role, bool leader, bool reachable,
			 bool member)
{
	return json_pack("{s:I, s:s, s:s?, s:b, s:b, s:b}", "id", (json_int_t)id, "address", addr, "role",
			 role, "leader", leader, "reachable", reachable, "member", member);
}

/* Members (from the leader) joined with the rows; rows of non-members after them. */
static void nodes_json(json_t *nodes, const struct cluster_member *m, int nm, struct rows *rs)
{
	int64_t now = unix_ms();
	unsigned k;

	for (int i = 0; i < nm; i++) {
		const struct db_node_row *r = row_of(rs, m[i].id, &k);
		json_t *o = node_json(m[i].id, m[i].addr, dqlc_role_name(m[i].role), m[i].leader,
				      m[i].reachable, true);

		if (r)
			rs->listed[k] = true;
		if (o) {
			row_json(o, r, now);
			json_array_append_new(nodes, o);
		}
	}
	for (unsigned i = 0; i < rs->n; i++) {
		json_t *o;

		if (rs->listed[i])
			continue;
		/* Removed, or never added: its last row, no role. */
		o = node_json(rs->r[i].id, rs->r[i].addr, NULL, false, false, false);
		if (o) {
			row_json(o, &rs->r[i], now);
			json_array_append_new(nodes, o);
		}
	}
}

static json_t *status_json(struct cl_task *x, struct db *db)
{
	struct cluster_member m[DQLC_NODES_MAX];
	char la[DQLC_ADDR_MAX], err[DQLC_ADDR_MAX + 200] = "";
	struct rows rs = { 0 };
	json_t *j, *nodes = json_array();
	uint64_t lid = 0;
	int nm = 0, rc;
	bool quorum = false;
	struct dqlc *c = NULL;

	j = json_pack("{s:b, s:I}", "enabled", true, "self", (json_int_t)x->self);
	if (!j || !nodes) {
		json_decref(j);
		json_decref(nodes);
		return NULL;
	}
	rc = cluster_find_leader(x->addrs, x->n, CLUSTER_WEB_TIMEOUT_MS, &lid, la, sizeof(la));
	if (rc == -ENOTCONN)
		snprintf(err, sizeof(err), "nodes answer but none knows a leader: no quorum (or an election "
			 "is under way)");
	else if (rc < 0)
		snprintf(err, sizeof(err), "no node answers at this node's cluster address or peers (%s)",
			 strerror(-rc));
	else if ((rc = dqlc_connect(la, CLUSTER_WEB_TIMEOUT_MS, &c)) < 0)
		snprintf(err, sizeof(err), "the nodes name node %" PRIu64 " at %s the leader, but it does "
			 "not answer (%s): an election should follow", lid, la, strerror(-rc));
	dqlc_close(c);
	if (rc == 0) {
		nm = cluster_status(x->addrs, x->n, CLUSTER_WEB_TIMEOUT_MS, m, DQLC_NODES_MAX);
		if (nm < 0) {
			snprintf(err, sizeof(err), "membership not read: %s", strerror(-nm));
			nm = 0;
		} else {
			quorum = true;
		}
	}
	json_object_set_new(j, "leader", rc == 0 || lid ? json_pack("{s:I, s:s}", "id", (json_int_t)lid,
								      "address", la) : json_null());
	for (int i = 0; i < nm; i++)
		if (m[i].leader)
			json_object_set_new(j, "leader", json_pack("{s:I, s:s}", "id", (json_int_t)m[i].id,
								   "address", m[i].addr));
	json_object_set_new(j, "quorum", json_boolean(quorum));
	/* The rows need a leader (every read goes to it): without one they would only wait. */
	if (quorum) {
		rs.r = calloc(CLUSTER_WEB_ROWS_MAX, sizeof(*rs.r));
		rs.listed = calloc(CLUSTER_WEB_ROWS_MAX, sizeof(*rs.listed));
		if (!rs.r || !rs.listed)
			rc = -ENOMEM;
		else
			rc = db_node_walk(db, row_keep, &rs);
		if (rc < 0) {
			snprintf(err, sizeof(err), "node status rows not read: %s", strerror(-rc));
			rs.n = 0;
		}
		nodes_json(nodes, m, nm, &rs);
		free(rs.r);
		free(rs.listed);
	}
	if (err[0])
		json_object_set_new(j, "error", json_string(err));
	json_object_set_new(j, "nodes", nodes);
	return j;
}

/* ---- add / remove (task thread) ---- */

static void answer(struct cl_task *x, int status, json_t *j)
{
	x->status = status;
	x->body = j ? json_dumps(j, JSON_COMPACT) : NULL;
	json_decref(j);
	if (j && !x->body)
		x->status = 500;
}

static void answer_err(struct cl_task *x, int status, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void answer_err(struct cl_task *x, int status, const char *fmt, ...)
{
	char msg[400];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	answer(x, status, json_pack("{s:s}", "error", msg));
	if (status == 503)
		x->retry_after = CLUSTER_RETRY_S;
}

static void no_leader_err(struct cl_task *x, int rc)
{
	answer_err(x, 503, "cluster: no leader reachable (%s): membership unchanged, try again",
		   strerror(-rc));
}

static void add_run(struct cl_task *x)
{
	struct cluster_member m[DQLC_NODES_MAX];
	int rc = cluster_add(x->addrs, x->n, CLUSTER_WEB_CHANGE_MS, x->id, x->addr);
	int nm;

	if (rc == -EADDRINUSE) {
		answer_err(x, 409, "node %" PRIu64 " or address %s belongs to another member (GET "
			   "/api/v1/cluster lists them)", x->id, x->addr);
	} else if (rc == -EHOSTDOWN) {
		answer_err(x, 422, "nothing answers at %s: start that node first, a voter that cannot "
			   "catch up would block every later membership change", x->addr);
	} else if (no_leader(rc)) {
		no_leader_err(x, rc);
	} else if (rc == -DQLC_EFAILURE) {
		answer_err(x, 409, "the leader refused to add node %" PRIu64 " (its reason is in this "
			   "node's log)", x->id);
	} else if (rc < 0) {
		answer_err(x, 500, "adding node %" PRIu64 " failed: %s", x->id, strerror(-rc));
	} else {
		/* Added: the member as the leader knows it now. */
		nm = cluster_status(x->addrs, x->n, CLUSTER_WEB_TIMEOUT_MS, m, DQLC_NODES_MAX);
		for (int i = 0; i < nm; i++)
			if (m[i].id == x->id) {
				answer(x, 201, node_json(m[i].id, m[i].addr, dqlc_role_name(m[i].role),
							 m[i].leader, m[i].reachable, true));
				return;
			}
		answer(x, 201, node_json(x->id, x->addr, "voter", false, true, true));
	}
}

static void remove_run(struct cl_task *x, struct db *db)
{
	int rc = cluster_remove(x->addrs, x->n, CLUSTER_WEB_CHANGE_MS, x->id), dr = 0;

	/* Its row goes too; one left by a node removed earlier (listed with "member":false)
	 * is forgotten by the same request. */
	if (rc == 0 || rc == -ENOENT) {
		dr = db_node_delete(db, x->id);
		if (dr < 0 && dr != -ENOENT)
			log_warn("web", "cluster: node %" PRIu64 " removed, its status row stays: %s", x->id,
				 strerror(-dr));
	}
	if (rc == 0 || (rc == -ENOENT && dr == 0))
		answer(x, 204, NULL);
	else if (rc == -ENOENT)
		answer_err(x, 404, "node %" PRIu64 " is not a member of the cluster", x->id);
	else if (no_leader(rc))
		no_leader_err(x, rc);
	else if (rc == -DQLC_EFAILURE)
		answer_err(x, 409, "the leader refused to remove node %" PRIu64 " (its reason is in this "
			   "node's log)", x->id);
	else
		answer_err(x, 500, "removing node %" PRIu64 " failed: %s", x->id, strerror(-rc));
}

static void cl_run(void *arg, struct db *db)
{
	struct cl_task *x = arg;

	switch (x->op) {
	case CL_STATUS:
		answer(x, 200, status_json(x, db));
		if (!x->body)
			x->status = 500;
		break;
	case CL_ADD:
		add_run(x);
		break;
	case CL_REMOVE:
		remove_run(x, db);
		break;
	}
}

/* Control thread: hand the answer over. The task's own audit covers POST only. */
static int cl_step(struct web *w, void *arg, struct web_resp *resp)
{
	struct cl_task *x = arg;

	if (!x->status)
		web_resp_error(resp, 500, NULL, "internal error");
	else if (x->body)
		web_resp_text(resp, x->status, "application/json", x->body, strlen(x->body));
	else
		web_resp_text(resp, x->status, NULL, NULL, 0);
	resp->retry_after = x->retry_after;
	if (x->op == CL_REMOVE && x->status < 400 && db_audit_add(w->db, x->who, x->act, "204") < 0)
		log_error("web", "audit log write failed for %s", x->act);
	free(x->body);
	free(x);
	return 0;
}

static struct cl_task *task_new(struct web *w, enum cl_op op, const struct web_req *req)
{
	struct cl_task *x = calloc(1, sizeof(*x));

	if (!x)
		return NULL;
	x->op = op;
	x->self = w->conf->cluster.node_id;
	x->n = cluster_conf_addrs(w->conf, x->addrs, sizeof(x->addrs) / sizeof(x->addrs[0]));
	snprintf(x->who, sizeof(x->who), "%s", req->who[0] ? req->who : "?");
	snprintf(x->act, sizeof(x->act), "DELETE %.140s", req->path);
	return x;
}

/* web_task_submit, and what its failures answer: 503 already in resp (another task runs),
 * or the task thread's connection could not be opened (no leader now). */
static int submit(struct web *w, const struct web_req *req, struct web_resp *resp, struct cl_task *x)
{
	int rc = web_task_submit(w, req, resp, cl_run, cl_step, x, false);

	if (rc == 0)
		return 0;
	if (rc != -EBUSY && no_leader(rc)) {
		if (x->op == CL_STATUS) {
			json_t *j = json_pack("{s:b, s:I, s:n, s:b, s:s, s:[]}", "enabled", true, "self",
					      (json_int_t)x->self, "leader", "quorum", false, "error",
					      "no connection to the cluster's database: no leader now", "nodes");
			web_resp_json(resp, 200, j);
		} else {
			web_resp_error(resp, 503, NULL, "cluster: no leader reachable (%s): membership "
				       "unchanged, try again", strerror(-rc));
			resp->retry_after = CLUSTER_RETRY_S;
		}
		rc = 0;
	}
	free(x);
	return rc == -EBUSY ? 0 : rc;
}

/* ---- handlers (control thread) ---- */

static int h_status(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct cl_task *x;

	(void)arg;
	if (!cluster_on(w)) {
		web_resp_json(resp, 200, json_pack("{s:b}", "enabled", false));
		return 0;
	}
	if (!(x = task_new(w, CL_STATUS, req)))
		return -ENOMEM;
	return submit(w, req, resp, x);
}

static bool not_cluster(struct web *w, struct web_resp *resp)
{
	if (cluster_on(w))
		return false;
	web_resp_error(resp, 409, NULL, "not a cluster: this node runs without a cluster: section in "
		       "its configuration (cluster.node_id 0)");
	return true;
}

/* "IPv4:port", as conf checks cluster.address. */
static bool addr_ok(const char *s)
{
	const char *colon = strrchr(s, ':');
	char host[32], *end;
	struct in_addr a;
	long port;

	if (!colon || colon == s || (size_t)(colon - s) >= sizeof(host))
		return false;
	memcpy(host, s, (size_t)(colon - s));
	host[colon - s] = 0;
	if (inet_pton(AF_INET, host, &a) != 1 || !isdigit((unsigned char)colon[1]))
		return false;
	port = strtol(colon + 1, &end, 10);
	return !*end && port >= 1 && port <= 65535;
}

static int h_add(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *j, *id, *ad;
	const char *key;
	json_t *v;
	struct cl_task *x;

	(void)arg;
	if (not_cluster(w, resp))
		return 0;
	if (!(j = web_body_json(req, resp)))
		return 0;
	if (!json_is_object(j)) {
		json_decref(j);
		web_resp_error(resp, 400, "body", "the body must be an object {\"id\":N,\"address\":\"IPv4:port\"}");
		return 0;
	}
	json_object_foreach(j, key, v) {
		if (strcmp(key, "id") && strcmp(key, "address")) {
			web_resp_error(resp, 400, key, "unknown field %s (only id and address)", key);
			json_decref(j);
			return 0;
		}
	}
	id = json_object_get(j, "id");
	ad = json_object_get(j, "address");
	if (!json_is_integer(id) || json_integer_value(id) < 1 || json_integer_value(id) > CLUSTER_ID_MAX) {
		web_resp_error(resp, 400, "id", "id must be an integer 1..%d (the node's cluster.node_id)",
			       CLUSTER_ID_MAX);
		json_decref(j);
		return 0;
	}
	if (!json_is_string(ad) || json_string_length(ad) >= DQLC_ADDR_MAX || !addr_ok(json_string_value(ad))) {
		web_resp_error(resp, 400, "address", "address must be the node's cluster.address, "
			       "\"IPv4:port\"");
		json_decref(j);
		return 0;
	}
	if (!(x = task_new(w, CL_ADD, req))) {
		json_decref(j);
		return -ENOMEM;
	}
	x->id = (uint64_t)json_integer_value(id);
	snprintf(x->addr, sizeof(x->addr), "%s", json_string_value(ad));
	json_decref(j);
	return submit(w, req, resp, x);
}

static int h_remove(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	const char *s = web_req_param(req, 0);
	struct cl_task *x;
	unsigned long long id;
	char *end;

	(void)arg;
	if (not_cluster(w, resp))
		return 0;
	errno = 0;
	id = s && isdigit((unsigned char)s[0]) ? strtoull(s, &end, 10) : 0;
	if (!id || errno || *end || id > INT64_MAX) {
		web_resp_error(resp, 400, "id", "the node id must be a decimal integer 1..%d", CLUSTER_ID_MAX);
		return 0;
	}
	if (!(x = task_new(w, CL_REMOVE, req)))
		return -ENOMEM;
	x->id = id;
	return submit(w, req, resp, x);
}

int web_api_cluster_routes(struct web *w)
{
	static const struct web_route_def r[] = {
		{ WEB_GET, "/api/v1/cluster", WEB_ROLE_READ, h_status },
		{ WEB_POST, "/api/v1/cluster/nodes", WEB_ROLE_ADMIN, h_add },
		{ WEB_DELETE, "/api/v1/cluster/nodes/{id}", WEB_ROLE_ADMIN, h_remove },
	};

	return web_routes_add(w, r, sizeof(r) / sizeof(r[0]), NULL);
}
