/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_join - one-time join tokens and enrollment of a new node into the
 * cluster's PKI (issue 31 point 1, membership side).
 *
 * A member issues a token (`solocore cluster token`): the member's cluster
 * address, 256 random bits (the secret) and the SHA-256 fingerprint of the
 * cluster CA certificate's DER (so the joiner knows which server to trust
 * before it says anything, as kubeadm's discovery token CA hash does). The
 * text form is "scj1." + base64url(no padding) of
 *
 *   version (1, = 1) | IPv4 (4) | port (2, big endian) | secret (32) | CA fp (32)
 *
 * The member keeps only SHA-256(secret), its expiry and whether it was used,
 * in <dir>/tls/join_tokens (0600, one line per token: "HASH EXPIRES USED"),
 * a file rather than a table: tokens are made and checked with no quorum and
 * no database (offline, or while the node is still enrolling others), they
 * belong to the node whose address the token names, and the file sits beside
 * the CA key it gives access to. Writers hold an flock on join_tokens.lock and
 * replace the file by rename, so a token is consumed exactly once across
 * threads and processes. The token id logged is the first 4 bytes of the
 * stored hash in hex: it says which token, and nothing about the secret.
 *
 * Enrollment runs on the TLS connection that cluster.address accepts without
 * a client certificate (cluster_tls_set_anon_handler); nothing of it reaches
 * dqlite. Frames: type (1) | length (2, big endian) | payload (at most
 * CLUSTER_JOIN_FRAME_MAX):
 *
 *   server -> 'C' ca.crt PEM, at once after the handshake
 *   client -> 'J' secret (32) | node id (8, BE) | address length (1) | address |
 *                 CSR PEM (the rest; EC P-256, CN = the node's name)
 *   server -> 'K' cert length (2) | node.crt PEM | CA key length (2) | ca.key PEM
 *          or 'E' a short reason (ASCII), then close
 *
 * The client sends the secret only after ca.crt's SHA-256 matched the token
 * and the certificate the server showed in the TLS handshake (TLS 1.3,
 * CertificateVerify: the server holds its key) chains to that CA with the
 * serverAuth purpose. The CA key is shared with members (as LXD members share
 * the cluster certificate) so that any member can enroll the next one; it
 * crosses only this TLS channel. Errors: 0 or a length, or a negative errno.
 */
#ifndef SOLOCORE_DB_CLUSTER_JOIN_H
#define SOLOCORE_DB_CLUSTER_JOIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include <openssl/ssl.h>

#define CLUSTER_JOIN_SECRET_LEN 32
#define CLUSTER_JOIN_FP_LEN 32
#define CLUSTER_JOIN_TOKEN_PREFIX "scj1."
/* Room for a token's text: "scj1." + 95 base64url characters + NUL. */
#define CLUSTER_JOIN_TOKEN_MAX 104
#define CLUSTER_JOIN_ID_LEN 8               /* hex digits of the logged token id */
#define CLUSTER_JOIN_TTL_DEFAULT 3600       /* s */
#define CLUSTER_JOIN_TTL_MAX (7 * 86400)    /* s */
#define CLUSTER_JOIN_STORE "join_tokens"
#define CLUSTER_JOIN_STORE_MAX 64           /* unexpired tokens a node keeps */
#define CLUSTER_JOIN_FRAME_MAX 8192         /* payload bytes of one frame */
#define CLUSTER_JOIN_IO_TIMEOUT_MS 5000     /* a whole enrollment, server side */
#define CLUSTER_JOIN_SERVING_MAX 4          /* enrollments served at once */

struct cluster_join_token {
	char addr[24];                          /* issuing node, "a.b.c.d:port" */
	uint8_t secret[CLUSTER_JOIN_SECRET_LEN];
	uint8_t ca_fp[CLUSTER_JOIN_FP_LEN];
};

/* ---- tokens (the issuing node's side) ---- */

/* A new token for the CA in dir/tls, naming addr (IPv4:port, this node's
 * cluster.address), valid ttl_s seconds (0: the default; at most
 * CLUSTER_JOIN_TTL_MAX). Its text into out (CLUSTER_JOIN_TOKEN_MAX bytes) and
 * its id into id (CLUSTER_JOIN_ID_LEN + 1). -ENOENT (no CA), -EINVAL (addr,
 * ttl), -ENOSPC (CLUSTER_JOIN_STORE_MAX unexpired tokens already). */
int cluster_join_token_new(const char *dir, const char *addr, unsigned ttl_s, char *out,
			   size_t out_size, char id[CLUSTER_JOIN_ID_LEN + 1]);

/* Check a secret against dir's store; consume: mark it used in the same
 * locked step. 0 (valid; used now if consume), -ENOENT (not issued here),
 * -EKEYEXPIRED (expired), -EALREADY (used before), other -errno (the store).
 * Hashes are compared in constant time, every entry looked at. */
int cluster_join_token_check(const char *dir, const uint8_t secret[CLUSTER_JOIN_SECRET_LEN],
			     bool consume);

/* The token id of a secret (hex of the first 4 bytes of its SHA-256). */
void cluster_join_token_id(const uint8_t secret[CLUSTER_JOIN_SECRET_LEN],
			   char id[CLUSTER_JOIN_ID_LEN + 1]);

/* Parse a token's text. 0 or -EINVAL (nothing of it is logged). */
int cluster_join_token_parse(const char *text, struct cluster_join_token *t);

/* ---- enrollment ---- */

/* The server side: arg is the cluster dir (a string living as long as the
 * TLS terminator). Owns ssl and fd: frees and closes them. Logs an "audit"
 * line for every attempt (peer address, node, token id, result). */
void cluster_join_serve(void *arg, SSL *ssl, int fd);

/* dir as the argument of cluster_join_serve: a copy that lives as long as the process
 * (the handler's threads are detached and may outlive a stopped node). NULL when the
 * table of CLUSTER_JOIN_DIRS_MAX dirs is full: cluster_join_serve then refuses. */
#define CLUSTER_JOIN_DIRS_MAX 16
const char *cluster_join_serve_arg(const char *dir);

/* The client side: enroll into the cluster the token names, with a new key
 * and CN name; on success dir/tls holds node.key, node.crt, ca.crt, ca.key.
 * node_id / node_addr are told to the server for its audit. 0, -EEXIST
 * (dir/tls/node.crt there already), -EINVAL (token), -EHOSTUNREACH (no
 * connection), -EPERM (the server's CA does not match the token: nothing
 * sent), -EACCES (refused: err holds the server's reason), -EPROTO. err (may
 * be NULL) gets a sentence for the operator; it never holds the token. */
int cluster_join_enroll(const char *dir, const char *token, const char *name, uint64_t node_id,
			const char *node_addr, int timeout_ms, char *err, size_t err_size);

/* An audit line: "audit cluster: ACTION DETAIL" at info (warn when !ok), for
 * membership changes made here (enrollment, join, add, remove). Callers never
 * pass secrets. */
void cluster_join_audit(bool ok, const char *action, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

struct conf;
/* Before the node starts (cluster_start_conf): a node with conf->cluster.join_token and
 * no certificate in cluster.dir/tls enrolls through the token's member. 0 (enrolled, or
 * nothing to do), or the enrollment's -errno (logged, with an audit line). */
int cluster_join_prepare(const struct conf *c);

/* `solocore cluster token|join ...` (argv[0] is "token" or "join"). Exit code. */
int cluster_join_cli(int argc, char **argv);

#endif /* SOLOCORE_DB_CLUSTER_JOIN_H */
