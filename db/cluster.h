/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster - solocore nodes as one replicated dqlite cluster (issue 20).
 *
 * Each `solocore run` with a `cluster:` section runs one dqlite node in its
 * own process (libdqlite's node API: the node has its own thread and libuv
 * loop; Raft replication and client traffic share cluster.address).
 *
 * Forming the cluster, libdqlite 1.11 rules (src/server.c maybeBootstrap):
 *  - node id 1 with an empty data dir bootstraps a one-voter configuration
 *    and elects itself; with data already there it just starts;
 *  - any other node starts empty and is made a member by a client request
 *    to the leader: ADD (it joins as a spare and receives the log), then
 *    ASSIGN voter (committed once it has caught up). cluster_start() does
 *    that through the configured peers, retrying with backoff within a
 *    bound, so nodes may start in any order;
 *  - a node whose data dir already holds Raft state is (or was) a member:
 *    it just starts, without waiting for a leader, so a whole cluster can
 *    restart together. When a leader answers at once, a node found to be a
 *    spare or standby (a join cut short) is made a voter again; one removed
 *    from the configuration is only logged, never added back on its own.
 * Node 1 with an empty dir whose peers already have a leader is refused
 * (-EEXIST): it would bootstrap a second cluster beside the first.
 *
 * Transport (issue 31): dqlite binds a private abstract unix socket; the
 * node's cluster.address is served by a mutual-TLS terminator
 * (db/cluster_tls.h) that relays only members presenting a certificate of
 * the cluster CA in dir/tls (db/cluster_pki.h), and Raft dials its peers over
 * TLS. cluster_start() needs dir/tls/node.crt (node 1 with an empty dir makes
 * a new CA and its certificate itself, logged) and points this process's
 * dqlite clients (dqlc_tls_init) at the same certificate. -ENOKEY when the
 * certificate is missing (the log says which command makes it).
 *
 * SIGPIPE: libdqlite 1.11's transport writes to peers without MSG_NOSIGNAL,
 * so a dead peer would kill the process; cluster_start() sets a default
 * SIGPIPE disposition to SIG_IGN.
 *
 * The status / add / remove calls are clients of the wire protocol
 * (db/dqlite_client.h) and work from any process that can reach a node.
 * Errors: 0 or a count on success, a negative errno.
 */
#ifndef SOLOCORE_DB_CLUSTER_H
#define SOLOCORE_DB_CLUSTER_H

#include <stdbool.h>
#include <stdint.h>

#include "db/dqlite_client.h"

struct conf;
struct cluster;

#define CLUSTER_JOIN_TIMEOUT_MS 60000   /* default bound for joining */
#define CLUSTER_PEERS_MAX 8

struct cluster_params {
	uint64_t node_id;              /* 1..2^63-1; 1 bootstraps */
	const char *address;           /* "host:port": bound, and given to the others */
	const char *dir;               /* data dir, created (0700) when missing */
	const char *peers[CLUSTER_PEERS_MAX];   /* other nodes' addresses, to join through */
	unsigned n_peers;
	int join_timeout_ms;           /* <= 0: CLUSTER_JOIN_TIMEOUT_MS */
	/* Raft timing (dqlite_node_set_network_latency_ms: heartbeat 1.5x, election
	 * 15x this); 0: libdqlite's defaults. */
	unsigned latency_ms;
};

/* Start the node; a new non-bootstrap node also joins (ADD + ASSIGN voter)
 * before this returns. 0, -EINVAL (params), -EEXIST (see above), -EADDRINUSE
 * (another member has our id or address), -ETIMEDOUT (could not join within
 * the bound; the reason was logged), or what libdqlite / the OS said. */
int cluster_start(const struct cluster_params *p, struct cluster **out);
/* The same from conf->cluster (node_id 0: no cluster, *out = NULL, 0). */
int cluster_start_conf(const struct conf *c, struct cluster **out);
/* Stop the node (it stays a member: the others see it as unreachable).
 * NULL is fine. */
void cluster_stop(struct cluster *cl);
/* The node's TLS terminator (db/cluster_tls.h), e.g. for
 * cluster_tls_set_anon_handler. NULL for NULL. */
struct cluster_tls *cluster_tls_of(struct cluster *cl);
/* This node's id and address. */
uint64_t cluster_node_id(const struct cluster *cl);
const char *cluster_address(const struct cluster *cl);

/* The addresses a client tries, in order: conf->cluster.address, then the
 * peers. Returns how many (0 when node_id is 0). */
unsigned cluster_conf_addrs(const struct conf *c, const char **addrs, unsigned max);

struct cluster_member {
	uint64_t id;
	char addr[DQLC_ADDR_MAX];
	enum dqlc_role role;
	bool leader;                   /* the leader now */
	bool reachable;                /* answered a LEADER request just now */
};

/*
 * Members as the leader knows them (found through the first of addrs that
 * answers). Returns the count (at most max stored; -E2BIG beyond), or
 * -EHOSTUNREACH when no address answered, -ENOTCONN when nodes answer but
 * none knows a leader (no quorum), or another negative errno.
 */
int cluster_status(const char *const *addrs, unsigned n, int timeout_ms,
		   struct cluster_member *out, unsigned max);
/* The leader's id and address, found through addrs (errors as above). */
int cluster_find_leader(const char *const *addrs, unsigned n, int timeout_ms,
			uint64_t *id, char *addr, size_t addr_size);
/* Add node id at addr as a voter (ADD then ASSIGN through the leader). A node
 * already a voter at addr: 0. -EADDRINUSE if id or addr belongs to another;
 * -EHOSTDOWN if nothing answers at addr (a voter that cannot catch up would
 * block every later membership change). While the leader moves or another
 * change is under way it tries again for up to 10 s. */
int cluster_add(const char *const *addrs, unsigned n, int timeout_ms, uint64_t id,
		const char *addr);
/* Remove node id (the leader itself: its leadership is transferred first).
 * -ENOENT if it is not a member. */
int cluster_remove(const char *const *addrs, unsigned n, int timeout_ms, uint64_t id);

/* `solocore cluster status|add|remove` (db/cluster_cli.c); argv[0] is "cluster".
 * Returns the exit code: 0, 1 failure, 2 usage. */
int cluster_cli(int argc, char **argv);

#endif /* SOLOCORE_DB_CLUSTER_H */
