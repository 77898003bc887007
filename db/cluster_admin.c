/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_admin - membership as a client sees it: find the leader, list the
 * members, add and remove nodes (db/cluster.h). Everything goes over the
 * dqlite wire protocol (db/dqlite_client.h); membership changes go to the
 * leader, the only node that serves them (WP "ADD", "ASSIGN", "REMOVE").
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "db/cluster.h"
#include "db/cluster_join.h"

#define SQLITE_BUSY_CODE 5u

/* Time for a leadership transfer (TRANSFER answers once the leader has
 * stepped down) to show a new leader: a few election timeouts. */
#define TRANSFER_WAIT_MS 10000

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

int cluster_find_leader(const char *const *addrs, unsigned n, int timeout_ms,
			uint64_t *id, char *addr, size_t addr_size)
{
	bool answered = false;

	if (!addrs || !addr || !addr_size)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++) {
		struct dqlc *c;
		uint64_t lid = 0;
		int rc;

		if (!addrs[i] || dqlc_connect(addrs[i], timeout_ms, &c) < 0)
			continue;
		rc = dqlc_leader(c, &lid, addr, addr_size);
		dqlc_close(c);
		if (rc < 0)
			continue;
		answered = true;
		/* "" and 0: that node knows no leader now (election, or no quorum). */
		if (addr[0] && lid) {
			if (id)
				*id = lid;
			return 0;
		}
	}
	addr[0] = '\0';
	return answered ? -ENOTCONN : -EHOSTUNREACH;
}

/* A connection to the leader and its id. */
static int open_leader(const char *const *addrs, unsigned n, int timeout_ms, struct dqlc **c,
		       uint64_t *lid)
{
	char la[DQLC_ADDR_MAX];
	int rc = cluster_find_leader(addrs, n, timeout_ms, lid, la, sizeof(la));

	if (rc < 0)
		return rc;
	rc = dqlc_connect(la, timeout_ms, c);
	if (rc < 0) {
		/* Followers name a dead leader until their election timeout: the callers
		 * try again (-EAGAIN) while the others elect a new one. */
		log_info("cluster", "leader %s (node %llu) does not answer: %s", la,
			 (unsigned long long)*lid, strerror(-rc));
		return -EAGAIN;
	}
	return 0;
}

/* Log a FAILURE with its message (the errno alone says "Remote I/O error"). The
 * leader moving away between LEADER and the request is -EAGAIN: worth another go. */
static int failed(struct dqlc *c, const char *what, uint64_t id, int rc)
{
	uint64_t code = dqlc_errcode(c);

	if (rc != -DQLC_EFAILURE) {
		log_warn("cluster", "%s node %llu: %s", what, (unsigned long long)id, strerror(-rc));
		return rc;
	}
	if (code == DQLC_NOT_LEADER || code == DQLC_LEADERSHIP_LOST) {
		log_info("cluster", "%s node %llu: the leader changed meanwhile (%s), again", what,
			 (unsigned long long)id, code == DQLC_NOT_LEADER ? "not leader" : "leadership lost");
		return -EAGAIN;
	}
	/* Raft runs one configuration change at a time (RAFT_CANTCHANGE, sent as
	 * SQLITE_BUSY): another join or a catch-up is under way. */
	if (code == SQLITE_BUSY_CODE) {
		log_info("cluster", "%s node %llu: %s, again", what, (unsigned long long)id, dqlc_errmsg(c));
		return -EAGAIN;
	}
	log_warn("cluster", "%s node %llu: the leader refused: %s (code %llu)", what,
		 (unsigned long long)id, dqlc_errmsg(c), (unsigned long long)code);
	return rc;
}

/* Again while the leader moves (-EAGAIN), within a few election timeouts. */
#define LEADER_RETRY_MS 10000
#define LEADER_RETRY_STEP_MS 200

static int status_once(const char *const *addrs, unsigned n, int timeout_ms,
		       struct cluster_member *out, unsigned max)
{
	struct dqlc_node nodes[DQLC_NODES_MAX];
	struct dqlc *c;
	uint64_t lid = 0;
	int m, rc;

	rc = open_leader(addrs, n, timeout_ms, &c, &lid);
	if (rc < 0)
		return rc;
	m = dqlc_cluster(c, nodes, DQLC_NODES_MAX);
	dqlc_close(c);
	if (m < 0)
		return m;
	for (int i = 0; i < m && (unsigned)i < max; i++) {
		struct cluster_member *o = &out[i];
		char la[DQLC_ADDR_MAX];
		struct dqlc *p;

		o->id = nodes[i].id;
		snprintf(o->addr, sizeof(o->addr), "%s", nodes[i].addr);
		o->role = nodes[i].role;
		o->leader = nodes[i].id == lid;
		/* Reachable: it answers a request of its own now (not what the leader
		 * last heard from it). */
		o->reachable = dqlc_connect(nodes[i].addr, timeout_ms, &p) == 0 &&
			       dqlc_leader(p, NULL, la, sizeof(la)) == 0;
		dqlc_close(p);   /* NULL after a failed connect */
	}
	return (unsigned)m > max ? -E2BIG : m;
}

int cluster_status(const char *const *addrs, unsigned n, int timeout_ms,
		   struct cluster_member *out, unsigned max)
{
	int rc;

	if (!out && max)
		return -EINVAL;
	for (int waited = 0;; waited += LEADER_RETRY_STEP_MS) {
		rc = status_once(addrs, n, timeout_ms, out, max);
		if (rc != -EAGAIN || waited >= LEADER_RETRY_MS)
			return rc;
		sleep_ms(LEADER_RETRY_STEP_MS);
	}
}

static int add_once(const char *const *addrs, unsigned n, int timeout_ms, uint64_t id,
		    const char *addr)
{
	struct dqlc_node nodes[DQLC_NODES_MAX];
	const struct dqlc_node *me = NULL;
	struct dqlc *c;
	uint64_t lid;
	int m, rc;

	rc = open_leader(addrs, n, timeout_ms, &c, &lid);
	if (rc < 0)
		return rc;
	m = dqlc_cluster(c, nodes, DQLC_NODES_MAX);
	if (m < 0) {
		dqlc_close(c);
		return m;
	}
	for (int i = 0; i < m; i++) {
		bool same_id = nodes[i].id == id, same_addr = !strcmp(nodes[i].addr, addr);

		if (same_id != same_addr) {
			/* One id at two addresses, or two ids at one: Raft would take both. */
			log_error("cluster", "cannot add node %llu at %s: node %llu is at %s already",
				  (unsigned long long)id, addr, (unsigned long long)nodes[i].id,
				  nodes[i].addr);
			dqlc_close(c);
			return -EADDRINUSE;
		}
		if (same_id)
			me = &nodes[i];
	}
	/* ASSIGN voter of a node that does not run never completes its catch-up, and
	 * libraft then refuses every other configuration change ("a configuration change
	 * is already in progress", seen with 1.11 for as long as the node stays down): so
	 * the node must answer first. (Joining, it is the caller and answers.) */
	if (!me || me->role != DQLC_ROLE_VOTER) {
		char la[DQLC_ADDR_MAX];
		struct dqlc *t;

		rc = dqlc_connect(addr, timeout_ms, &t);
		if (rc == 0)
			rc = dqlc_leader(t, NULL, la, sizeof(la));
		dqlc_close(t);
		if (rc < 0) {
			log_error("cluster", "cannot add node %llu: nothing answers at %s (%s): start it first "
				  "(with its cluster: section it joins by itself)", (unsigned long long)id, addr,
				  strerror(-rc));
			dqlc_close(c);
			return -EHOSTDOWN;
		}
	}
	/* ADD makes it a spare that receives the log; ASSIGN voter completes once it
	 * has caught up. A node left a spare by an interrupted join gets ASSIGN only. */
	if (!me && (rc = dqlc_add(c, id, addr)) < 0)
		rc = failed(c, "add", id, rc);
	else if ((!me || me->role != DQLC_ROLE_VOTER) &&
		 (rc = dqlc_assign(c, id, DQLC_ROLE_VOTER)) < 0)
		rc = failed(c, "assign voter to", id, rc);
	else
		rc = 0;
	dqlc_close(c);
	return rc;
}

int cluster_add(const char *const *addrs, unsigned n, int timeout_ms, uint64_t id,
		const char *addr)
{
	int rc;

	if (!id || !addr || !addr[0] || strlen(addr) >= DQLC_ADDR_MAX)
		return -EINVAL;
	for (int waited = 0;; waited += LEADER_RETRY_STEP_MS) {
		rc = add_once(addrs, n, timeout_ms, id, addr);
		if (rc != -EAGAIN || waited >= LEADER_RETRY_MS)
			break;
		sleep_ms(LEADER_RETRY_STEP_MS);
	}
	/* Issue 31: every membership change, whoever asked (CLI, web API, a joining node). */
	if (rc == 0)
		cluster_join_audit(true, "node added:", "node %llu at %s is a voter", (unsigned long long)id, addr);
	return rc;
}

/* Leadership away from `lid` (TRANSFER, the leader picks a voter), then the new
 * leader's connection. */
static int move_leader(const char *const *addrs, unsigned n, int timeout_ms, struct dqlc **c,
		       uint64_t lid)
{
	int rc = dqlc_transfer(*c, 0);
	uint64_t nid = lid;

	if (rc < 0) {
		/* "leadership transfer failed" (the target did not take over in time):
		 * the whole removal is tried again. */
		rc = failed(*c, "transfer leadership from", lid, rc);
		return rc == -DQLC_EFAILURE ? -EAGAIN : rc;
	}
	dqlc_close(*c);
	*c = NULL;
	for (int waited = 0; waited < TRANSFER_WAIT_MS; waited += 100) {
		*c = NULL;
		rc = open_leader(addrs, n, timeout_ms, c, &nid);
		if (rc == 0 && nid != lid)
			return 0;
		dqlc_close(*c);   /* NULL when open_leader failed */
		*c = NULL;
		sleep_ms(100);
	}
	return -ETIMEDOUT;
}

static int remove_once(const char *const *addrs, unsigned n, int timeout_ms, uint64_t id)
{
	struct dqlc_node nodes[DQLC_NODES_MAX];
	struct dqlc *c = NULL;
	uint64_t lid;
	bool found = false;
	int m, rc;

	rc = open_leader(addrs, n, timeout_ms, &c, &lid);
	if (rc < 0)
		return rc;
	m = dqlc_cluster(c, nodes, DQLC_NODES_MAX);
	for (int i = 0; i < m; i++)
		found |= nodes[i].id == id;
	if (m < 0 || !found) {
		dqlc_close(c);
		return m < 0 ? m : -ENOENT;
	}
	/* The leader does not remove itself cleanly mid-term: hand leadership to
	 * another voter first (WP "TRANSFER"). */
	if (id == lid && (rc = move_leader(addrs, n, timeout_ms, &c, lid)) < 0) {
		dqlc_close(c);
		return rc;
	}
	rc = dqlc_remove(c, id);
	if (rc < 0)
		rc = failed(c, "remove", id, rc);
	dqlc_close(c);
	return rc;
}

int cluster_remove(const char *const *addrs, unsigned n, int timeout_ms, uint64_t id)
{
	int rc;

	if (!id)
		return -EINVAL;
	for (int waited = 0;; waited += LEADER_RETRY_STEP_MS) {
		rc = remove_once(addrs, n, timeout_ms, id);
		if (rc != -EAGAIN || waited >= LEADER_RETRY_MS)
			break;
		sleep_ms(LEADER_RETRY_STEP_MS);
	}
	if (rc == 0)
		cluster_join_audit(true, "node removed:", "node %llu", (unsigned long long)id);
	return rc;
}
