/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* dqlc internals: the bounded wire codec, exposed for tests/db only. */
#ifndef SOLOCORE_DB_DQLITE_CLIENT_INT_H
#define SOLOCORE_DB_DQLITE_CLIENT_INT_H

#include <stdint.h>
#include <stddef.h>

#include <stdbool.h>

#include <openssl/ssl.h>

#include "db/dqlite_client.h"

/* "host:port" / "[v6]:port" into host (hsz bytes) and *port (points into hp).
 * 0 or -EINVAL. */
int dqlc_split_hostport(const char *hp, char *host, size_t hsz, const char **port);
/* A TCP connection to hostport (each resolved address in turn), non-blocking,
 * TCP_NODELAY, within timeout_ms: the fd, or -EINVAL, -EHOSTUNREACH (no
 * address), -ETIMEDOUT, or the last connect error (e.g. -ECONNREFUSED). */
int dqlc_tcp_connect(const char *hostport, int timeout_ms);

/* ---- TLS (db/dqlite_tls.c) ---- */
/* An OpenSSL context for the cluster link from dir/tls: TLS 1.3 only, this
 * node's certificate and key, peers verified against ca.crt (SSL_VERIFY_PEER;
 * a server adds FAIL_IF_NO_PEER_CERT itself). 0, -ENOENT, -EBADMSG, -ENOMEM. */
int dqlc_tls_ctx_new(const char *dir, bool server, SSL_CTX **out);
/* The client handshake on connected socket fd within timeout_ms: *out a
 * verified SSL (0), 1 when plain TCP is allowed (tests), -ENOKEY without
 * dqlc_tls_init, -EKEYREJECTED, -ECONNRESET, -ETIMEDOUT. */
int dqlc_tls_connect(int fd, int timeout_ms, SSL **out);
/* SSL_set_fd, but writes never raise SIGPIPE (send MSG_NOSIGNAL). 0 or -ENOMEM. */
int dqlc_tls_set_fd(SSL *ssl, int fd);
/* CLOCK_MONOTONIC in ms: the scale of every deadline here. */
int64_t dqlc_now_ms(void);
/* poll fd for ev until deadline: the deadline bounds a whole send or receive,
 * so a peer dripping bytes cannot stretch it. 0, -ETIMEDOUT, -errno. */
int dqlc_wait_fd(int fd, short ev, int64_t deadline);
/* dqlc_wait_fd for what SSL_get_error said (WANT_READ / WANT_WRITE). */
int dqlc_tls_wait(int fd, int ssl_err, int64_t deadline);
/* Tests of the codec against a fake plain server: plain TCP when no
 * certificate is set (dqlc_tls_reset clears it). */
void dqlc_tls_allow_plain(bool on);
bool dqlc_tls_ready(void);

/* WP "Message": 8-byte header, body size in 8-byte words. */
#define DQLC_WORD 8u
#define DQLC_HDR_SIZE 8u
#define DQLC_PROTOCOL_VERSION 1u

/* WP request types. */
enum {
	DQLC_REQ_LEADER = 0,
	DQLC_REQ_CLIENT = 1,
	DQLC_REQ_OPEN = 3,
	DQLC_REQ_PREPARE = 4,
	DQLC_REQ_EXEC = 5,
	DQLC_REQ_QUERY = 6,
	DQLC_REQ_FINALIZE = 7,
	DQLC_REQ_EXEC_SQL = 8,
	DQLC_REQ_QUERY_SQL = 9,
	DQLC_REQ_ADD = 12,
	DQLC_REQ_ASSIGN = 13,
	DQLC_REQ_REMOVE = 14,
	DQLC_REQ_CLUSTER = 16,
	DQLC_REQ_TRANSFER = 17,
};

/* WP "CLUSTER": format 1 adds each member's role to id and address. */
#define DQLC_CLUSTER_FORMAT 1u

/* WP response types. */
enum {
	DQLC_RESP_FAILURE = 0,
	DQLC_RESP_SERVER = 1,
	DQLC_RESP_WELCOME = 2,
	DQLC_RESP_SERVERS = 3,
	DQLC_RESP_DB = 4,
	DQLC_RESP_STMT = 5,
	DQLC_RESP_RESULT = 6,
	DQLC_RESP_ROWS = 7,
	DQLC_RESP_EMPTY = 8,
};

/* WP "ROWS": the word after the last row of a batch. */
#define DQLC_ROWS_PART 0xeeeeeeeeeeeeeeeeull  /* more batches follow */
#define DQLC_ROWS_DONE 0xffffffffffffffffull  /* result set complete */

/* dqlc_dec_row results besides 1 (a row) and negative errnos. */
#define DQLC_ROW_DONE 0
#define DQLC_ROW_PART 2

/* A bounded reader over received bytes: every get checks len first. */
struct dqlc_cur {
	const uint8_t *p;
	size_t len;
};

struct dqlc_hdr {
	uint32_t words;     /* body size / 8 */
	uint8_t type;
	uint8_t schema;
};

int dqlc_dec_hdr(const uint8_t *buf, size_t len, struct dqlc_hdr *h);
int dqlc_cur_u32(struct dqlc_cur *c, uint32_t *v);
int dqlc_cur_u64(struct dqlc_cur *c, uint64_t *v);
/* WP "text": NUL-terminated, zero-padded to a word. */
int dqlc_cur_text(struct dqlc_cur *c, const char **s, size_t *len);

/* Bodies of responses (cursor over exactly the body). */
int dqlc_dec_failure(struct dqlc_cur *c, uint64_t *code, const char **msg);
int dqlc_dec_server(struct dqlc_cur *c, uint64_t *id, const char **addr);
/* SERVERS (format 1): uint64 count, then per member uint64 id, text address,
 * uint64 role. Returns the count (at most max stored), -E2BIG or -EPROTO. */
int dqlc_dec_servers(struct dqlc_cur *c, struct dqlc_node *nodes, unsigned max);
/* ROWS: column count and names; names[] has room for DQLC_COLUMNS_MAX. */
int dqlc_dec_columns(struct dqlc_cur *c, unsigned *n_cols, const char **names);
/* One row of n_cols values, or the end-of-batch word: 1, DQLC_ROW_DONE,
 * DQLC_ROW_PART, or -EPROTO. */
int dqlc_dec_row(struct dqlc_cur *c, unsigned n_cols, struct dqlc_value *vals);

/* Parameters tuple (WP "Tuple", params format) into buf: bytes written
 * (a multiple of 8; 0 for no parameters), -ENOSPC, -EINVAL or -E2BIG. */
int dqlc_enc_params(uint8_t *buf, size_t cap, const struct dqlc_value *params, unsigned n);
/* Bytes dqlc_enc_params needs, or -EINVAL / -E2BIG. */
long dqlc_params_size(const struct dqlc_value *params, unsigned n);

/* ROWS messages received for the current (or last) query. */
unsigned dqlc_batches(const struct dqlc *c);

#endif /* SOLOCORE_DB_DQLITE_CLIENT_INT_H */
