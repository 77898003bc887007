/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_tls - the cluster link over mutual TLS 1.3 (issue 31 point 1), the
 * way LXD and MicroCloud run dqlite (whose C library has no TLS):
 *
 *  - dqlite binds a private abstract unix socket ("@solocore-dqlite-...";
 *    libdqlite 1.11 accepts only connections from its own process there);
 *  - this terminator listens on cluster.address (TCP), runs the TLS
 *    handshake, requires a client certificate signed by the cluster CA
 *    (db/cluster_pki.h) and only then connects to dqlite's socket and relays
 *    bytes both ways. Without a certificate not one byte reaches dqlite;
 *  - outbound Raft connections: cluster_tls_connect() is dqlite's connect
 *    function: TCP to the peer, TLS presenting this node's certificate and
 *    verifying the peer's against the CA, then a socketpair whose one end
 *    goes to dqlite and the other is relayed through the TLS connection.
 *
 * One relay thread (epoll) carries every connection. Strangers are bounded:
 * at most CLUSTER_TLS_PENDING_MAX connections may be in their handshake (a
 * new one evicts the oldest) and each has CLUSTER_TLS_HANDSHAKE_MS to finish,
 * so thousands of idle connections hold no more than that many slots and a
 * member still gets through. Refused handshakes are logged (peer address and
 * reason, at most 10 lines a second); keys never are.
 */
#ifndef SOLOCORE_DB_CLUSTER_TLS_H
#define SOLOCORE_DB_CLUSTER_TLS_H

#include <stdint.h>

#include <openssl/ssl.h>

#define CLUSTER_TLS_PENDING_MAX 64     /* connections in their handshake */
#define CLUSTER_TLS_HANDSHAKE_MS 5000  /* to finish it */
#define CLUSTER_TLS_CONNS_MAX 1024     /* relayed (authenticated) connections */
#define CLUSTER_TLS_ANON_MAX 8         /* anonymous-handler threads at once */

struct cluster_tls;

/* Counters (tests, logs). */
struct cluster_tls_stats {
	uint64_t accepted;       /* TCP connections accepted */
	uint64_t refused;        /* handshakes failed or without a certificate */
	uint64_t evicted;        /* pending handshakes closed for a newer one */
	uint64_t timed_out;      /* pending handshakes past CLUSTER_TLS_HANDSHAKE_MS */
	uint64_t relayed;        /* verified connections relayed to dqlite */
	uint64_t dialed;         /* outbound connections set up for dqlite */
	uint64_t anon;           /* handed to the anonymous handler */
};

/*
 * Listen on `address` ("host:port", TCP) with the certificates of dir/tls and
 * relay verified connections to dqlite's `backend` ("@name": an abstract
 * unix socket). 0, -EINVAL, -ENOENT / -EBADMSG (certificates), -EADDRINUSE,
 * -errno.
 */
int cluster_tls_start(const char *address, const char *backend, const char *dir,
		      struct cluster_tls **out);
/* Close every connection and stop the thread. NULL is fine. */
void cluster_tls_stop(struct cluster_tls *t);

/*
 * Join-token enrollment: a connection whose TLS handshake completed WITHOUT a
 * client certificate is handed to fn on a new short-lived detached thread,
 * which owns ssl and fd (blocking socket; fn must SSL_free(ssl) and
 * close(fd)). At most CLUSTER_TLS_ANON_MAX run at once (more are closed).
 * NULL fn: such connections are closed (the default). A certificate that
 * does not chain to the CA is refused either way.
 */
void cluster_tls_set_anon_handler(struct cluster_tls *t,
				  void (*fn)(void *arg, SSL *ssl, int fd), void *arg);

/* dqlite_node_set_connect_func's callback; arg is the struct cluster_tls.
 * Blocks (on dqlite's thread) for the TCP connect and the handshake, at most
 * CLUSTER_TLS_HANDSHAKE_MS. 0 (*fd for dqlite) or a libdqlite error code. */
int cluster_tls_connect(void *arg, const char *address, int *fd);

void cluster_tls_stats(const struct cluster_tls *t, struct cluster_tls_stats *out);

#endif /* SOLOCORE_DB_CLUSTER_TLS_H */
