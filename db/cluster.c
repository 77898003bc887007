/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster - the in-process dqlite node: create, bootstrap or join, stop
 * (db/cluster.h). libdqlite 1.11 node API: dqlite_node_create /
 * set_bind_address / set_network_latency_ms / start / stop / destroy.
 */
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <dqlite.h>

#include "common/conf.h"
#include "common/log.h"
#include "db/cluster.h"
#include "db/cluster_pki.h"
#include "db/cluster_tls.h"
#include "db/cluster_join.h"

/* Join retries: first after 100 ms, doubling to at most 2 s. */
#define JOIN_BACKOFF_MS 100
#define JOIN_BACKOFF_MAX_MS 2000
/* Bound for one request while joining (ASSIGN voter waits for the catch-up). */
#define JOIN_REQ_TIMEOUT_MS 5000
/* Node 1's first election: one voter, so its own election timeout. */
#define BOOTSTRAP_WAIT_MS 15000
/* Probing peers before node 1 bootstraps. */
#define PROBE_TIMEOUT_MS 1000

struct cluster {
	dqlite_node *node;
	struct cluster_tls *tls;       /* the TLS terminator on addr (issue 31) */
	uint64_t id;
	char addr[DQLC_ADDR_MAX];
	char backend[64];              /* dqlite's private abstract socket, "@..." */
};

static int64_t now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
	nanosleep(&ts, NULL);
}

/* Create dir (and its parents) 0700. 0 or -errno. */
static int mkdir_p(const char *dir)
{
	char p[4096];
	size_t len = strlen(dir);

	if (len == 0 || len >= sizeof(p))
		return -ENAMETOOLONG;
	memcpy(p, dir, len + 1);
	for (char *s = p + 1; *s; s++) {
		if (*s != '/')
			continue;
		*s = '\0';
		if (mkdir(p, 0700) < 0 && errno != EEXIST)
			return -errno;
		*s = '/';
	}
	if (mkdir(p, 0700) < 0 && errno != EEXIST)
		return -errno;
	return 0;
}

/* 1 when dir holds anything (Raft state of an earlier run), 0 when empty. The
 * certificates (dir/tls, db/cluster_pki.h) are not Raft state. */
static int dir_has_state(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int found = 0;

	if (!d)
		return -errno;
	while (!found && (e = readdir(d)))
		found = strcmp(e->d_name, ".") && strcmp(e->d_name, "..") &&
			strcmp(e->d_name, CLUSTER_PKI_SUBDIR);
	closedir(d);
	return found;
}

static int check_params(const struct cluster_params *p)
{
	if (!p || !p->node_id || p->node_id > INT64_MAX || !p->address || !p->address[0] ||
	    strlen(p->address) >= DQLC_ADDR_MAX || !p->dir || !p->dir[0] ||
	    p->n_peers > CLUSTER_PEERS_MAX)
		return -EINVAL;
	for (unsigned i = 0; i < p->n_peers; i++)
		if (!p->peers[i] || !p->peers[i][0])
			return -EINVAL;
	return 0;
}

/* Node 1 (the bootstrap id) until it has elected itself. */
static int wait_self_leader(struct cluster *cl)
{
	const char *self[1] = { cl->addr };
	int64_t deadline = now_ms() + BOOTSTRAP_WAIT_MS;
	char la[DQLC_ADDR_MAX];
	uint64_t lid = 0;

	do {
		if (cluster_find_leader(self, 1, PROBE_TIMEOUT_MS, &lid, la, sizeof(la)) == 0)
			return 0;
		sleep_ms(50);
	} while (now_ms() < deadline);
	log_error("cluster", "node %llu at %s: no leader %d s after bootstrap",
		  (unsigned long long)cl->id, cl->addr, BOOTSTRAP_WAIT_MS / 1000);
	return -ETIMEDOUT;
}

/* ADD + ASSIGN voter through the peers, with backoff, within the bound. */
static int join(struct cluster *cl, const struct cluster_params *p)
{
	int bound = p->join_timeout_ms > 0 ? p->join_timeout_ms : CLUSTER_JOIN_TIMEOUT_MS;
	int64_t start = now_ms(), deadline = start + bound;
	long backoff = JOIN_BACKOFF_MS;
	unsigned tries = 0;
	int rc;

	for (;;) {
		tries++;
		rc = cluster_add(p->peers, p->n_peers, JOIN_REQ_TIMEOUT_MS, cl->id, cl->addr);
		if (rc == 0) {
			log_info("cluster", "node %llu at %s: joined as a voter (%u tries, %lld ms)",
				 (unsigned long long)cl->id, cl->addr, tries,
				 (long long)(now_ms() - start));
			cluster_join_audit(true, "joined:", "node %llu at %s through %s: a voter",
					   (unsigned long long)cl->id, cl->addr, p->peers[0]);
			return 0;
		}
		/* Not worth retrying: the configuration conflicts with the cluster's. */
		if (rc == -EADDRINUSE || rc == -EINVAL) {
			cluster_join_audit(false, "join refused:", "node %llu at %s: %s", (unsigned long long)cl->id,
					   cl->addr, strerror(-rc));
			return rc;
		}
		int64_t left = deadline - now_ms();
		if (left <= 0)
			break;
		log_debug("cluster", "join: %s, again in %ld ms", strerror(-rc), backoff);
		sleep_ms(backoff < left ? backoff : (long)left);
		backoff = backoff * 2 > JOIN_BACKOFF_MAX_MS ? JOIN_BACKOFF_MAX_MS : backoff * 2;
	}
	log_error("cluster", "node %llu at %s: could not join through %u peer(s) (first %s) in %d ms, "
		  "%u tries; last error: %s%s", (unsigned long long)cl->id, cl->addr, p->n_peers,
		  p->peers[0], bound, tries, strerror(-rc),
		  rc == -EHOSTUNREACH ? " (no peer answered)" :
		  rc == -ENOTCONN ? " (the peers know no leader: is a majority up?)" : "");
	cluster_join_audit(false, "join failed:", "node %llu at %s: %s", (unsigned long long)cl->id, cl->addr,
			   strerror(-rc));
	return -ETIMEDOUT;
}

/* A restart with data: one quick look at the leader's configuration. A node left a
 * spare or standby (a join cut short between ADD and ASSIGN, or demoted) is made a voter
 * again; a node removed by an operator is not added back behind their back (only
 * logged). No leader reachable (the whole cluster restarting): nothing to do, and no
 * waiting for one. */
static void check_member(struct cluster *cl, const struct cluster_params *p)
{
	struct cluster_member m[DQLC_NODES_MAX];
	int k = cluster_status(p->peers, p->n_peers, PROBE_TIMEOUT_MS, m, DQLC_NODES_MAX);
	int i = 0, rc;

	if (k < 0) {
		log_info("cluster", "node %llu: no leader among the peers now (%s): starting on its data",
			 (unsigned long long)cl->id, strerror(-k));
		return;
	}
	while (i < k && m[i].id != cl->id)
		i++;
	if (i == k) {
		log_warn("cluster", "node %llu at %s is not in the cluster's configuration (removed?): it "
			 "holds data but takes no part; `solocore cluster add %llu %s` adds it back",
			 (unsigned long long)cl->id, cl->addr, (unsigned long long)cl->id, cl->addr);
		return;
	}
	if (m[i].role == DQLC_ROLE_VOTER)
		return;
	rc = cluster_add(p->peers, p->n_peers, JOIN_REQ_TIMEOUT_MS, cl->id, cl->addr);
	if (rc < 0)
		log_warn("cluster", "node %llu: a %s, could not be made a voter: %s", (unsigned long long)cl->id,
			 dqlc_role_name(m[i].role), strerror(-rc));
	else
		log_info("cluster", "node %llu: was a %s, a voter again", (unsigned long long)cl->id,
			 dqlc_role_name(m[i].role));
}

/* Issue 31: dqlite listens on a private abstract socket only this process can reach
 * (libdqlite 1.11 dqlite_node_set_bind_address: "@..."; abstract sockets belong to the
 * network namespace, so the pid and node id make the name unique); the TLS terminator
 * takes cluster.address and relays verified members to it, and Raft dials its peers
 * through cluster_tls_connect. The node's Raft address stays cluster.address. */
static int tls_up(struct cluster *cl, const struct cluster_params *p)
{
	int rc;

	snprintf(cl->backend, sizeof(cl->backend), "@solocore-dqlite-%ld-%llu", (long)getpid(),
		 (unsigned long long)cl->id);
	rc = cluster_tls_start(cl->addr, cl->backend, p->dir, &cl->tls);
	if (rc < 0) {
		log_error("cluster", "node %llu at %s: TLS listener: %s%s", (unsigned long long)cl->id,
			  cl->addr, strerror(-rc),
			  rc == -EADDRINUSE ? " (is the address in use?)" :
			  rc == -ENOENT || rc == -EBADMSG ? " (the certificates in the dir's tls/)" : "");
		return rc == -EADDRINUSE ? -EIO : rc;
	}
	/* Connections without a client certificate: join-token enrollment (db/cluster_join.h). */
	cluster_tls_set_anon_handler(cl->tls, cluster_join_serve, (void *)cluster_join_serve_arg(p->dir));
	return 0;
}

static int node_up(struct cluster *cl, const struct cluster_params *p)
{
	const char *step = "dqlite_node_create";
	int rc = tls_up(cl, p);

	if (rc < 0)
		return rc;
	rc = dqlite_node_create(cl->id, cl->addr, p->dir, &cl->node);
	if (rc == 0 && (step = "dqlite_node_set_bind_address"))
		rc = dqlite_node_set_bind_address(cl->node, cl->backend);
	if (rc == 0 && (step = "dqlite_node_set_connect_func"))
		rc = dqlite_node_set_connect_func(cl->node, cluster_tls_connect, cl->tls);
	if (rc == 0 && p->latency_ms && (step = "dqlite_node_set_network_latency_ms"))
		rc = dqlite_node_set_network_latency_ms(cl->node, p->latency_ms);
	if (rc == 0 && (step = "dqlite_node_start"))
		rc = dqlite_node_start(cl->node);
	if (rc != 0) {
		/* 1.11 often leaves the message empty (a failed bind says nothing). Its
		 * destroy of a node never started leaks about 2 KB (raft_uv_init, libuv
		 * loop; LeakSanitizer, a bare create + destroy shows the same): once per
		 * failed start-up, so left as it is. */
		const char *msg = cl->node ? dqlite_node_errmsg(cl->node) : NULL;
		log_error("cluster", "node %llu at %s (dir %s): %s failed: %s (dqlite %d)",
			  (unsigned long long)cl->id, cl->addr, p->dir, step,
			  msg && msg[0] ? msg : "no reason given", rc);
		if (cl->node)
			dqlite_node_destroy(cl->node);
		cl->node = NULL;
		cluster_tls_stop(cl->tls);
		cl->tls = NULL;
		return -EIO;
	}
	return 0;
}

/* libdqlite 1.11's Raft transport writes to peer sockets without MSG_NOSIGNAL: when a
 * peer dies (seen with SIGKILL of the leader in tests/db/test_cluster.c) the write
 * raises SIGPIPE, whose default action kills the whole process, and with it this node
 * and the rest of the core. A default disposition is set to ignore (write then fails
 * with EPIPE, which raft handles); a handler someone installed is left alone. */
static void ignore_sigpipe(void)
{
	struct sigaction sa;

	if (sigaction(SIGPIPE, NULL, &sa) == 0 && sa.sa_handler == SIG_DFL) {
		signal(SIGPIPE, SIG_IGN);
		log_info("cluster", "SIGPIPE ignored: libdqlite's transport would die of it");
	}
}

/* This node's certificate (db/cluster_pki.h) for the listener, its dials and this
 * process's clients (dqlc). Node 1 on a fresh dir makes a new cluster CA itself, so a
 * one-node cluster starts out of the box; any other node must be given one. */
static int certs_ready(const struct cluster_params *p, int state)
{
	int rc;

	if (!cluster_pki_present(p->dir)) {
		if (p->node_id != 1 || state) {
			log_error("cluster", "node %llu: no certificate in %s/%s (node.crt, node.key, ca.crt): "
				  "make it with `solocore cluster add-node --dir CA_DIR --out %s` from a "
				  "member's dir (or join with a token); node 1 of a new cluster: "
				  "`solocore cluster init --dir %s`", (unsigned long long)p->node_id,
				  p->dir, CLUSTER_PKI_SUBDIR, p->dir, p->dir);
			return -ENOKEY;
		}
		rc = cluster_pki_init(p->dir, "node-1");
		if (rc < 0)
			return rc;
		log_info("cluster", "node 1: made a new cluster CA and its certificate in %s/%s "
			 "(give other nodes theirs with `solocore cluster add-node --dir %s --out DIR`)",
			 p->dir, CLUSTER_PKI_SUBDIR, p->dir);
	}
	rc = dqlc_tls_init(p->dir);
	if (rc < 0)
		log_error("cluster", "node %llu: certificates in %s/%s: %s", (unsigned long long)p->node_id,
			  p->dir, CLUSTER_PKI_SUBDIR, rc == -EBADMSG ? "unreadable, or key and certificate "
			  "do not match" : strerror(-rc));
	return rc;
}

int cluster_start(const struct cluster_params *p, struct cluster **out)
{
	struct cluster *cl;
	int rc, state;

	if (!out || check_params(p) < 0)
		return -EINVAL;
	*out = NULL;
	ignore_sigpipe();
	if ((rc = mkdir_p(p->dir)) < 0 || (state = dir_has_state(p->dir)) < 0) {
		rc = rc < 0 ? rc : state;
		log_error("cluster", "data dir %s: %s", p->dir, strerror(-rc));
		return rc;
	}
	if (!state && p->node_id != 1 && !p->n_peers) {
		log_error("cluster", "node %llu has no data and no peers to join through",
			  (unsigned long long)p->node_id);
		return -EINVAL;
	}
	if ((rc = certs_ready(p, state)) < 0)
		return rc;
	if (!state && p->node_id == 1 && p->n_peers) {
		/* libdqlite bootstraps id 1 whenever its dir is empty: with a leader
		 * among the peers that would be a second cluster beside the first. */
		char la[DQLC_ADDR_MAX];
		uint64_t lid;

		if (cluster_find_leader(p->peers, p->n_peers, PROBE_TIMEOUT_MS, &lid, la, sizeof(la)) == 0) {
			log_error("cluster", "node 1 has an empty dir %s but node %llu at %s leads a cluster "
				  "already: bootstrapping would make a second one. Restore the dir, or "
				  "`solocore cluster remove 1` and start this node with a new node_id",
				  p->dir, (unsigned long long)lid, la);
			return -EEXIST;
		}
	}
	cl = calloc(1, sizeof(*cl));
	if (!cl)
		return -ENOMEM;
	cl->id = p->node_id;
	snprintf(cl->addr, sizeof(cl->addr), "%s", p->address);
	rc = node_up(cl, p);
	if (rc == 0 && !state)
		rc = p->node_id == 1 ? wait_self_leader(cl) : join(cl, p);
	else if (rc == 0 && p->n_peers)
		check_member(cl, p);
	if (rc < 0) {
		cluster_stop(cl);
		return rc;
	}
	log_info("cluster", "node %llu at %s: %s (dir %s)", (unsigned long long)cl->id, cl->addr,
		 state ? "started with its data (a member already)" :
		 p->node_id == 1 ? "bootstrapped a new cluster" : "member", p->dir);
	*out = cl;
	return 0;
}

void cluster_stop(struct cluster *cl)
{
	if (!cl)
		return;
	if (cl->node) {
		dqlite_node_stop(cl->node);
		dqlite_node_destroy(cl->node);
	}
	cluster_tls_stop(cl->tls);
	free(cl);
}

struct cluster_tls *cluster_tls_of(struct cluster *cl)
{
	return cl ? cl->tls : NULL;
}

uint64_t cluster_node_id(const struct cluster *cl)
{
	return cl ? cl->id : 0;
}

const char *cluster_address(const struct cluster *cl)
{
	return cl ? cl->addr : "";
}

unsigned cluster_conf_addrs(const struct conf *c, const char **addrs, unsigned max)
{
	unsigned n = 0;

	if (!c->cluster.node_id)
		return 0;
	if (n < max)
		addrs[n++] = c->cluster.address;
	for (unsigned i = 0; i < c->cluster.n_peers && n < max; i++)
		addrs[n++] = c->cluster.peers[i];
	return n;
}

int cluster_start_conf(const struct conf *c, struct cluster **out)
{
	struct cluster_params p = { 0 };

	if (!c || !out)
		return -EINVAL;
	*out = NULL;
	if (!c->cluster.node_id)
		return 0;
	p.node_id = c->cluster.node_id;
	p.address = c->cluster.address;
	p.dir = c->cluster.dir;
	for (unsigned i = 0; i < c->cluster.n_peers && i < CLUSTER_PEERS_MAX; i++)
		p.peers[p.n_peers++] = c->cluster.peers[i];
	/* A new node with a join token enrolls first (issue 31, db/cluster_join.h). */
	int rc = cluster_join_prepare(c);
	if (rc < 0)
		return rc;
	return cluster_start(&p, out);
}
