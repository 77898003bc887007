/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Join tokens and enrollment (db/cluster_join.h, issue 31 point 1) with real
 * OpenSSL: a member's CA made by cluster_pki_init, a TLS 1.3 server on
 * 127.0.0.1 that hands connections without a client certificate to
 * cluster_join_serve on a thread of their own (as the cluster address's TLS
 * terminator does), and joiners using cluster_join_enroll. Covers: a fresh
 * token enrolls (files, modes, chain); reuse, unknown, expired, garbage and a
 * silent peer are refused with nothing written; two concurrent uses of one
 * token: exactly one wins; a server whose CA does not match the token gets no
 * secret; no token, secret or CA key in any log line; the store keeps hashes
 * only (0600).
 */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <unistd.h>

#include <cmocka.h>
#include <openssl/err.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "common/log.h"
#include "db/cluster_join.h"
#include "db/cluster_pki.h"

static char root[64], member[128], addr[32];

/* ---- the member's TLS listener (what cluster_tls does in front of dqlite) ---- */

struct server {
	int lfd;
	SSL_CTX *ctx;
	pthread_t th;
	char dir[128];
	int with_cert;       /* connections that presented a client certificate */
};
static struct server srv;

struct conn { SSL *ssl; int fd; };

static void *anon_thread(void *arg)
{
	struct conn *c = arg;

	cluster_join_serve(srv.dir, c->ssl, c->fd);
	free(c);
	return NULL;
}

static void *accept_loop(void *arg)
{
	(void)arg;
	for (;;) {
		int fd = accept(srv.lfd, NULL, NULL);
		SSL *ssl;
		X509 *peer;
		pthread_t th;

		if (fd < 0)
			return NULL;
		ssl = SSL_new(srv.ctx);
		SSL_set_fd(ssl, fd);
		if (SSL_accept(ssl) != 1) {
			ERR_clear_error();
			SSL_free(ssl);
			close(fd);
			continue;
		}
		if ((peer = SSL_get1_peer_certificate(ssl))) {
			X509_free(peer);
			srv.with_cert++;
			SSL_free(ssl);
			close(fd);
			continue;
		}
		struct conn *c = malloc(sizeof(*c));
		c->ssl = ssl;
		c->fd = fd;
		pthread_create(&th, NULL, anon_thread, c);
		pthread_detach(th);
	}
}

static int verify_any(int ok, X509_STORE_CTX *x)
{
	(void)ok;
	(void)x;
	return 1;
}

/* A TLS 1.3 server with dir's node certificate; client certificates asked for, not required. */
static void server_start(const char *dir)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	char crt[256], key[256];

	snprintf(srv.dir, sizeof(srv.dir), "%s", dir);
	cluster_pki_path(dir, CLUSTER_PKI_NODE_CRT, crt, sizeof(crt));
	cluster_pki_path(dir, CLUSTER_PKI_NODE_KEY, key, sizeof(key));
	srv.ctx = SSL_CTX_new(TLS_server_method());
	assert_non_null(srv.ctx);
	assert_int_equal(SSL_CTX_set_min_proto_version(srv.ctx, TLS1_3_VERSION), 1);
	assert_int_equal(SSL_CTX_use_certificate_file(srv.ctx, crt, SSL_FILETYPE_PEM), 1);
	assert_int_equal(SSL_CTX_use_PrivateKey_file(srv.ctx, key, SSL_FILETYPE_PEM), 1);
	SSL_CTX_set_verify(srv.ctx, SSL_VERIFY_PEER, verify_any);
	srv.lfd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	assert_true(srv.lfd >= 0);
	assert_int_equal(bind(srv.lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(listen(srv.lfd, 16), 0);
	assert_int_equal(getsockname(srv.lfd, (struct sockaddr *)&sa, &sl), 0);
	snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(sa.sin_port));
	assert_int_equal(pthread_create(&srv.th, NULL, accept_loop, NULL), 0);
}

/* ---- log capture ---- */

static pthread_mutex_t log_mu = PTHREAD_MUTEX_INITIALIZER;
static char *logbuf;
static size_t log_len, log_cap;

static void sink(enum log_level level, const char *line, size_t len, void *arg)
{
	(void)level;
	(void)arg;
	pthread_mutex_lock(&log_mu);
	if (log_len + len + 2 > log_cap) {
		log_cap = (log_len + len + 2) * 2;
		logbuf = realloc(logbuf, log_cap);
	}
	memcpy(logbuf + log_len, line, len);
	log_len += len;
	logbuf[log_len++] = '\n';
	logbuf[log_len] = '\0';
	pthread_mutex_unlock(&log_mu);
}

static bool log_has(const char *s)
{
	bool r;

	pthread_mutex_lock(&log_mu);
	r = logbuf && strstr(logbuf, s);
	pthread_mutex_unlock(&log_mu);
	return r;
}

/* ---- helpers ---- */

static void new_token(char tok[CLUSTER_JOIN_TOKEN_MAX], char id[CLUSTER_JOIN_ID_LEN + 1])
{
	assert_int_equal(cluster_join_token_new(member, addr, 0, tok, CLUSTER_JOIN_TOKEN_MAX, id), 0);
}

static void joiner_dir(char *out, size_t size, const char *name)
{
	snprintf(out, size, "%s/%s", root, name);
}

static bool has_tls_file(const char *dir, const char *name)
{
	char p[256];
	struct stat st;

	cluster_pki_path(dir, name, p, sizeof(p));
	return stat(p, &st) == 0;
}

static bool nothing_written(const char *dir)
{
	return !has_tls_file(dir, CLUSTER_PKI_NODE_CRT) && !has_tls_file(dir, CLUSTER_PKI_NODE_KEY) &&
	       !has_tls_file(dir, CLUSTER_PKI_CA_CRT) && !has_tls_file(dir, CLUSTER_PKI_CA_KEY);
}

static char *slurp(const char *dir, const char *name)
{
	char p[256], *buf = calloc(1, 16384);
	FILE *f;

	cluster_pki_path(dir, name, p, sizeof(p));
	f = fopen(p, "r");
	assert_non_null(f);
	assert_true(fread(buf, 1, 16383, f) > 0);
	fclose(f);
	return buf;
}

static int enroll(const char *dir, const char *tok, char *err, size_t size)
{
	return cluster_join_enroll(dir, tok, "joiner", 2, "127.0.0.1:9002", 5000, err, size);
}

/* ---- tests ---- */

static void test_token_text(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], id2[CLUSTER_JOIN_ID_LEN + 1];
	struct cluster_join_token t;
	uint8_t fp[32];
	struct stat st;
	char p[256], *store, hex[65];

	(void)state;
	new_token(tok, id);
	assert_int_equal(strlen(tok), 100);
	assert_int_equal(strncmp(tok, "scj1.", 5), 0);
	assert_int_equal(cluster_join_token_parse(tok, &t), 0);
	assert_string_equal(t.addr, addr);
	assert_int_equal(cluster_pki_ca_fingerprint(member, fp), 0);
	assert_memory_equal(t.ca_fp, fp, 32);
	cluster_join_token_id(t.secret, id2);
	assert_string_equal(id, id2);
	/* The store: 0600, the hash of the secret, never the secret nor the token. */
	cluster_pki_path(member, CLUSTER_JOIN_STORE, p, sizeof(p));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	store = slurp(member, CLUSTER_JOIN_STORE);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", t.secret[i]);
	assert_null(strstr(store, hex));
	assert_null(strstr(store, tok + 5));
	assert_non_null(strstr(store, id));   /* the id is the start of the stored hash */
	free(store);
	/* Malformed texts. */
	assert_int_equal(cluster_join_token_parse("scj1.", &t), -EINVAL);
	assert_int_equal(cluster_join_token_parse(NULL, &t), -EINVAL);
	tok[4] = ':';
	assert_int_equal(cluster_join_token_parse(tok, &t), -EINVAL);
	tok[4] = '.';
	tok[50] = '*';
	assert_int_equal(cluster_join_token_parse(tok, &t), -EINVAL);
	/* A non-canonical last character (low bits set) and a wrong version. */
	new_token(tok, id);
	tok[99] = tok[99] == 'B' ? 'C' : 'B';
	assert_int_equal(cluster_join_token_parse(tok, &t), -EINVAL);
	new_token(tok, id);
	tok[5] = 'C';        /* version byte 1 -> 9 */
	assert_int_equal(cluster_join_token_parse(tok, &t), -EINVAL);
	/* Bad arguments to token_new. */
	assert_int_equal(cluster_join_token_new(member, "10.0.0.1", 0, tok, sizeof(tok), id), -EINVAL);
	assert_int_equal(cluster_join_token_new(member, "[::1]:9001", 0, tok, sizeof(tok), id), -EINVAL);
	assert_int_equal(cluster_join_token_new(member, addr, CLUSTER_JOIN_TTL_MAX + 1, tok, sizeof(tok), id),
			 -EINVAL);
	snprintf(p, sizeof(p), "%s/no-ca", root);
	assert_int_equal(cluster_join_token_new(p, addr, 0, tok, sizeof(tok), id), -ENOENT);
}

static void test_enroll_ok(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], dir[128], err[256], p[256];
	struct cluster_join_token t;
	char *a, *b;
	struct stat st;
	X509 *ca, *crt;
	FILE *f;

	(void)state;
	new_token(tok, id);
	joiner_dir(dir, sizeof(dir), "j-ok");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), 0);
	assert_int_equal(cluster_pki_present(dir), 1);
	/* Keys 0600, the CA key is the member's, the certificate chains to the CA. */
	cluster_pki_path(dir, CLUSTER_PKI_NODE_KEY, p, sizeof(p));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	cluster_pki_path(dir, CLUSTER_PKI_CA_KEY, p, sizeof(p));
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	a = slurp(dir, CLUSTER_PKI_CA_KEY);
	b = slurp(member, CLUSTER_PKI_CA_KEY);
	assert_string_equal(a, b);
	free(a);
	free(b);
	cluster_pki_path(dir, CLUSTER_PKI_CA_CRT, p, sizeof(p));
	f = fopen(p, "r");
	ca = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	cluster_pki_path(dir, CLUSTER_PKI_NODE_CRT, p, sizeof(p));
	f = fopen(p, "r");
	crt = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(ca);
	assert_non_null(crt);
	assert_int_equal(X509_verify(crt, X509_get0_pubkey(ca)), 1);
	X509_free(ca);
	X509_free(crt);
	/* Consumed; audited with the id, the node and the peer. */
	assert_int_equal(cluster_join_token_parse(tok, &t), 0);
	assert_int_equal(cluster_join_token_check(member, t.secret, false), -EALREADY);
	snprintf(p, sizeof(p), "audit cluster: enrollment accepted: node 2 at 127.0.0.1:9002 from 127.0.0.1:");
	assert_true(log_has(p));
	snprintf(p, sizeof(p), "token %s: certificate issued", id);
	assert_true(log_has(p));
	/* A second enrollment into a dir that has a certificate: refused before any connection. */
	new_token(tok, id);
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EEXIST);
}

/* Reused, unknown, expired: refused by the member, nothing written, audited. */
static void test_refused(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], dir[128], err[256], p[256];
	struct cluster_join_token t;
	char *store, *line;
	FILE *f;

	(void)state;
	/* Used once, then again. */
	new_token(tok, id);
	joiner_dir(dir, sizeof(dir), "j-first");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), 0);
	joiner_dir(dir, sizeof(dir), "j-reuse");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EACCES);
	assert_string_equal(err, "refused: token already used");
	assert_true(nothing_written(dir));
	snprintf(p, sizeof(p), "token %s: token already used", id);
	assert_true(log_has(p));

	/* Unknown: the right address and CA, a secret never issued. */
	new_token(tok, id);
	tok[20] = tok[20] == 'A' ? 'B' : 'A';
	joiner_dir(dir, sizeof(dir), "j-unknown");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EACCES);
	assert_string_equal(err, "refused: unknown token");
	assert_true(nothing_written(dir));

	/* Expired: the store's expiry put in the past (a token's ttl is >= 1 s: no waiting). */
	new_token(tok, id);
	store = slurp(member, CLUSTER_JOIN_STORE);
	line = strstr(store, id);
	assert_non_null(line);
	{
		char *sp = strchr(line, ' ');
		char *end = strchr(sp + 1, ' ');
		char num[32];
		int k = snprintf(num, sizeof(num), "%ld", (long)time(NULL) - 10);
		char *out = calloc(1, strlen(store) + 64);

		memcpy(out, store, (size_t)(sp + 1 - store));
		memcpy(out + (sp + 1 - store), num, (size_t)k);
		strcat(out, end);
		cluster_pki_path(member, CLUSTER_JOIN_STORE, p, sizeof(p));
		f = fopen(p, "w");
		fputs(out, f);
		fclose(f);
		free(out);
	}
	free(store);
	assert_int_equal(cluster_join_token_parse(tok, &t), 0);
	assert_int_equal(cluster_join_token_check(member, t.secret, false), -EKEYEXPIRED);
	joiner_dir(dir, sizeof(dir), "j-expired");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EACCES);
	assert_string_equal(err, "refused: token expired");
	assert_true(nothing_written(dir));
	snprintf(p, sizeof(p), "token %s: token expired", id);
	assert_true(log_has(p));
}

struct race { const char *tok; char dir[128]; int rc; pthread_barrier_t *bar; };

static void *race_thread(void *arg)
{
	struct race *r = arg;
	char err[256];

	pthread_barrier_wait(r->bar);
	r->rc = enroll(r->dir, r->tok, err, sizeof(err));
	return NULL;
}

/* One token, three joiners at once: one enrollment wins, the others get nothing. */
static void test_concurrent(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1];
	enum { N = 3 };
	struct race r[N];
	pthread_t th[N];
	pthread_barrier_t bar;

	(void)state;
	for (int round = 0; round < 3; round++) {
		int won = 0;

		new_token(tok, id);
		pthread_barrier_init(&bar, NULL, N);
		for (int i = 0; i < N; i++) {
			r[i].tok = tok;
			r[i].bar = &bar;
			snprintf(r[i].dir, sizeof(r[i].dir), "%s/race%d-%d", root, round, i);
			pthread_create(&th[i], NULL, race_thread, &r[i]);
		}
		for (int i = 0; i < N; i++)
			pthread_join(th[i], NULL);
		pthread_barrier_destroy(&bar);
		for (int i = 0; i < N; i++) {
			if (r[i].rc == 0) {
				won++;
				assert_int_equal(cluster_pki_present(r[i].dir), 1);
			} else {
				assert_int_equal(r[i].rc, -EACCES);
				assert_true(nothing_written(r[i].dir));
			}
		}
		assert_int_equal(won, 1);
	}
}

/* A server whose CA is not the token's: the joiner stops before sending the secret. */
static void test_wrong_ca(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], other[128], dir[128], err[256];
	char otok[CLUSTER_JOIN_TOKEN_MAX], oid[CLUSTER_JOIN_ID_LEN + 1];
	struct cluster_join_token t, o;
	char p[256];

	(void)state;
	/* A token of another cluster (its own CA) that names our member's address. */
	snprintf(other, sizeof(other), "%s/other", root);
	assert_int_equal(cluster_pki_init(other, "other"), 0);
	assert_int_equal(cluster_join_token_new(other, addr, 0, otok, sizeof(otok), oid), 0);
	joiner_dir(dir, sizeof(dir), "j-wrongca");
	assert_int_equal(enroll(dir, otok, err, sizeof(err)), -EPERM);
	assert_non_null(strstr(err, "does not match the token's fingerprint"));
	assert_true(nothing_written(dir));
	/* The member never saw its id: the secret did not leave the joiner. */
	snprintf(p, sizeof(p), "token %s", oid);
	assert_false(log_has(p));
	/* And the other cluster's token is still unused there. */
	assert_int_equal(cluster_join_token_parse(otok, &o), 0);
	assert_int_equal(cluster_join_token_check(other, o.secret, false), 0);
	/* A good token for our member keeps working after that. */
	new_token(tok, id);
	assert_int_equal(cluster_join_token_parse(tok, &t), 0);
	assert_int_equal(cluster_join_token_check(member, t.secret, false), 0);
}

/* A raw TLS client: garbage, an oversized frame, silence. Each gets an 'E' and a close. */
static int raw_session(const uint8_t *send, size_t len, uint8_t *reply, size_t cap)
{
	struct sockaddr_in sa = { .sin_family = AF_INET };
	SSL_CTX *ctx = SSL_CTX_new(TLS_client_method());
	int fd = socket(AF_INET, SOCK_STREAM, 0), got = 0, n;
	SSL *ssl;

	inet_pton(AF_INET, "127.0.0.1", &sa.sin_addr);
	sa.sin_port = htons((uint16_t)atoi(strchr(addr, ':') + 1));
	assert_int_equal(connect(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	ssl = SSL_new(ctx);
	SSL_set_fd(ssl, fd);
	assert_int_equal(SSL_connect(ssl), 1);
	if (len)
		SSL_write(ssl, send, (int)len);
	while ((size_t)got < cap && (n = SSL_read(ssl, reply + got, (int)(cap - (size_t)got))) > 0)
		got += n;
	ERR_clear_error();
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	close(fd);
	return got;
}

/* Past the 'C' frame of the reply: the next frame's type, and its text into why. */
static uint8_t second_frame(const uint8_t *b, int n, char *why, size_t size)
{
	size_t l0, l1;

	assert_true(n >= 3 && b[0] == 'C');
	l0 = (size_t)b[1] << 8 | b[2];
	assert_true((size_t)n >= 3 + l0 + 3);
	l1 = (size_t)b[3 + l0 + 1] << 8 | b[3 + l0 + 2];
	assert_true((size_t)n == 6 + l0 + l1);
	snprintf(why, size, "%.*s", (int)l1, (const char *)b + 6 + l0);
	return b[3 + l0];
}

static void test_garbage(void **state)
{
	uint8_t reply[8192], big[3] = { 'J', 0xff, 0xff };
	char why[128];
	int n;

	(void)state;
	n = raw_session((const uint8_t *)"hello, dqlite", 13, reply, sizeof(reply));
	assert_int_equal(second_frame(reply, n, why, sizeof(why)), 'E');
	assert_string_equal(why, "bad request");
	n = raw_session(big, sizeof(big), reply, sizeof(reply));
	assert_int_equal(second_frame(reply, n, why, sizeof(why)), 'E');
	assert_string_equal(why, "bad request");
	/* A 'J' too short to hold a secret. */
	n = raw_session((const uint8_t *)"J\0\4abcd", 7, reply, sizeof(reply));
	assert_int_equal(second_frame(reply, n, why, sizeof(why)), 'E');
	/* A well-formed request for a good token, but a CSR that is not one: refused, the
	 * token left unused. */
	{
		char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1];
		struct cluster_join_token t;
		uint8_t req[3 + 32 + 8 + 1 + 4 + 9];

		new_token(tok, id);
		assert_int_equal(cluster_join_token_parse(tok, &t), 0);
		req[0] = 'J';
		req[1] = 0;
		req[2] = sizeof(req) - 3;
		memcpy(req + 3, t.secret, 32);
		memset(req + 35, 0, 8);
		req[43] = 4;
		memcpy(req + 44, "1.2.", 4);
		memcpy(req + 48, "not a csr", 9);
		n = raw_session(req, sizeof(req), reply, sizeof(reply));
		assert_int_equal(second_frame(reply, n, why, sizeof(why)), 'E');
		assert_non_null(strstr(why, "bad CSR"));
		assert_int_equal(cluster_join_token_check(member, t.secret, false), 0);
	}
	/* Silence: the member gives up after its read timeout (CLUSTER_JOIN_IO_TIMEOUT_MS). */
	n = raw_session(NULL, 0, reply, sizeof(reply));
	assert_int_equal(second_frame(reply, n, why, sizeof(why)), 'E');
	assert_string_equal(why, "timed out");
	assert_true(log_has("audit cluster: enrollment refused: node 0 at ? from 127.0.0.1:"));
}

/* Nothing listening; a port that speaks no TLS. */
static void test_unreachable(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], dir[128], err[256];
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	char a2[32];
	int lfd = socket(AF_INET, SOCK_STREAM, 0);

	(void)state;
	assert_int_equal(bind(lfd, (struct sockaddr *)&sa, sizeof(sa)), 0);
	assert_int_equal(getsockname(lfd, (struct sockaddr *)&sa, &sl), 0);
	snprintf(a2, sizeof(a2), "127.0.0.1:%u", ntohs(sa.sin_port));
	/* Bound, not listening: refused at once. */
	assert_int_equal(cluster_join_token_new(member, a2, 0, tok, sizeof(tok), id), 0);
	joiner_dir(dir, sizeof(dir), "j-unreach");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EHOSTUNREACH);
	assert_non_null(strstr(err, "does not answer"));
	/* Listening, but closes without TLS. */
	assert_int_equal(listen(lfd, 4), 0);
	shutdown(lfd, SHUT_RD);
	assert_true(enroll(dir, tok, err, sizeof(err)) < 0);
	assert_true(nothing_written(dir));
	close(lfd);
	assert_int_equal(enroll(dir, "scj1.nonsense", err, sizeof(err)), -EINVAL);
}

/* Every line logged by member and joiners: no token, no secret, no CA key. Last. */
static void test_no_secret_in_logs(void **state)
{
	char tok[CLUSTER_JOIN_TOKEN_MAX], id[CLUSTER_JOIN_ID_LEN + 1], dir[128], err[256], hex[65];
	struct cluster_join_token t;
	char *key, *line, *save = NULL;

	(void)state;
	new_token(tok, id);
	joiner_dir(dir, sizeof(dir), "j-logs");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), 0);
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EEXIST);
	joiner_dir(dir, sizeof(dir), "j-logs2");
	assert_int_equal(enroll(dir, tok, err, sizeof(err)), -EACCES);
	assert_null(strstr(err, tok + 5));
	assert_int_equal(cluster_join_token_parse(tok, &t), 0);
	for (int i = 0; i < 32; i++)
		snprintf(hex + 2 * i, 3, "%02x", t.secret[i]);
	pthread_mutex_lock(&log_mu);
	assert_non_null(logbuf);
	assert_null(strstr(logbuf, tok + 5));
	assert_null(strstr(logbuf, tok + 40));     /* any 20-character piece of it */
	assert_null(strstr(logbuf, hex));
	assert_null(strstr(logbuf, "PRIVATE KEY"));
	key = slurp(member, CLUSTER_PKI_CA_KEY);
	for (line = strtok_r(key, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		if (strlen(line) > 16 && !strstr(line, "-----"))
			assert_null(strstr(logbuf, line));
	pthread_mutex_unlock(&log_mu);
	free(key);
	assert_true(log_has("audit cluster: enrollment accepted:"));
	assert_true(log_has("audit cluster: enrollment refused:"));
}

static int setup(void **state)
{
	(void)state;
	signal(SIGPIPE, SIG_IGN);
	log_set_sink(sink, NULL);
	snprintf(root, sizeof(root), "/tmp/solocore-join-XXXXXX");
	assert_non_null(mkdtemp(root));
	snprintf(member, sizeof(member), "%s/member", root);
	assert_int_equal(cluster_pki_init(member, "member"), 0);
	server_start(member);
	return 0;
}

static int teardown(void **state)
{
	char cmd[128];

	(void)state;
	shutdown(srv.lfd, SHUT_RDWR);
	close(srv.lfd);
	pthread_join(srv.th, NULL);
	SSL_CTX_free(srv.ctx);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	if (system(cmd) != 0)
		return -1;
	log_set_sink(NULL, NULL);
	free(logbuf);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_token_text),
		cmocka_unit_test(test_enroll_ok),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_concurrent),
		cmocka_unit_test(test_wrong_ca),
		cmocka_unit_test(test_garbage),
		cmocka_unit_test(test_unreachable),
		cmocka_unit_test(test_no_secret_in_logs),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
