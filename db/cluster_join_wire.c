/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_join_wire - enrollment over the cluster address's TLS (db/cluster_join.h):
 * the member's side (the handler of connections without a client certificate)
 * and the joining node's side. Both are blocking, on threads of their own (the
 * member: the TLS terminator's short-lived thread; the joiner: start-up or the CLI).
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "common/log.h"
#include "db/cluster_join.h"
#include "db/cluster_pki.h"
#include "db/dqlite_client_int.h"

#define FRAME_HDR 3
#define F_CA 'C'
#define F_JOIN 'J'
#define F_KEYS 'K'
#define F_ERR 'E'
/* 'J' before the CSR: secret, node id, address length. */
#define JOIN_FIXED (CLUSTER_JOIN_SECRET_LEN + 8 + 1)
#define NODE_ADDR_MAX 64

static atomic_int serving;

/* SO_RCVTIMEO / SO_SNDTIMEO to what is left before deadline (at least 1 ms). */
static int set_timeouts(int fd, int64_t deadline)
{
	int64_t left = deadline - dqlc_now_ms();
	struct timeval tv;

	if (left <= 0)
		return -ETIMEDOUT;
	tv.tv_sec = left / 1000;
	tv.tv_usec = (left % 1000) * 1000;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv)) < 0 ||
	    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof(tv)) < 0)
		return -errno;
	return 0;
}

static int ssl_read_n(SSL *ssl, int fd, int64_t deadline, uint8_t *buf, size_t n)
{
	size_t got = 0;

	while (got < n) {
		int rc = set_timeouts(fd, deadline);
		if (rc < 0)
			return rc;
		rc = SSL_read(ssl, buf + got, (int)(n - got));
		if (rc <= 0) {
			ERR_clear_error();
			return dqlc_now_ms() >= deadline ? -ETIMEDOUT : -ECONNRESET;
		}
		got += (size_t)rc;
	}
	return 0;
}

/* One frame: its type, and its payload into buf (at most size bytes). Length or -errno. */
static int frame_read(SSL *ssl, int fd, int64_t deadline, uint8_t *type, uint8_t *buf, size_t size)
{
	uint8_t h[FRAME_HDR];
	size_t len;
	int rc;

	if ((rc = ssl_read_n(ssl, fd, deadline, h, sizeof(h))) < 0)
		return rc;
	len = (size_t)h[1] << 8 | h[2];
	if (len > size || len > CLUSTER_JOIN_FRAME_MAX)
		return -EMSGSIZE;
	*type = h[0];
	if ((rc = ssl_read_n(ssl, fd, deadline, buf, len)) < 0)
		return rc;
	return (int)len;
}

/* The payload of one frame is given in parts (iov-like), sent as one write. */
static int frame_write(SSL *ssl, int fd, int64_t deadline, uint8_t type, const void *const *part,
		       const size_t *part_len, unsigned n)
{
	uint8_t buf[FRAME_HDR + CLUSTER_JOIN_FRAME_MAX];
	size_t len = 0;
	int rc;

	for (unsigned i = 0; i < n; i++) {
		if (part_len[i] > CLUSTER_JOIN_FRAME_MAX - len)
			return -EMSGSIZE;
		memcpy(buf + FRAME_HDR + len, part[i], part_len[i]);
		len += part_len[i];
	}
	buf[0] = type;
	buf[1] = (uint8_t)(len >> 8);
	buf[2] = (uint8_t)len;
	rc = set_timeouts(fd, deadline);
	if (rc == 0 && SSL_write(ssl, buf, (int)(FRAME_HDR + len)) != (int)(FRAME_HDR + len)) {
		ERR_clear_error();
		rc = -ECONNRESET;
	}
	OPENSSL_cleanse(buf, sizeof(buf));   /* it may have held the CA key or the secret */
	return rc;
}

/* dir/tls/name into buf (NUL-terminated). Length or -errno. */
static int read_pem(const char *dir, const char *name, char *buf, size_t size)
{
	char p[4096];
	FILE *f;
	size_t n;
	int rc;

	if ((rc = cluster_pki_path(dir, name, p, sizeof(p))) < 0)
		return rc;
	if (!(f = fopen(p, "re")))
		return -errno;
	n = fread(buf, 1, size - 1, f);
	rc = ferror(f) ? -EIO : !feof(f) ? -EFBIG : (int)n;
	fclose(f);
	buf[n] = '\0';
	return rc;
}

/* ---- the member's side ---- */

const char *cluster_join_serve_arg(const char *dir)
{
	static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
	static char dirs[CLUSTER_JOIN_DIRS_MAX][4096];
	const char *r = NULL;

	if (!dir || strlen(dir) >= sizeof(dirs[0]))
		return NULL;
	pthread_mutex_lock(&mu);
	for (unsigned i = 0; !r && i < CLUSTER_JOIN_DIRS_MAX; i++) {
		if (!dirs[i][0])
			snprintf(dirs[i], sizeof(dirs[i]), "%s", dir);
		if (!strcmp(dirs[i], dir))
			r = dirs[i];
	}
	pthread_mutex_unlock(&mu);
	return r;
}

struct req {
	char peer[INET6_ADDRSTRLEN + 8];
	char node_addr[NODE_ADDR_MAX];
	uint64_t node_id;
	char id[CLUSTER_JOIN_ID_LEN + 1];
};

static void peer_name(int fd, char *out, size_t size)
{
	struct sockaddr_storage ss;
	socklen_t sl = sizeof(ss);
	char host[INET6_ADDRSTRLEN] = "?", port[8] = "?";

	if (getpeername(fd, (struct sockaddr *)&ss, &sl) == 0)
		getnameinfo((struct sockaddr *)&ss, sl, host, sizeof(host), port, sizeof(port),
			    NI_NUMERICHOST | NI_NUMERICSERV);
	snprintf(out, size, "%s:%s", host, port);
}

static const char *token_reason(int rc)
{
	return rc == -ENOENT ? "unknown token" : rc == -EKEYEXPIRED ? "token expired" :
	       rc == -EALREADY ? "token already used" : "token store unreadable";
}

/* Refuse: the reason to the peer (best effort, within a second of its own: the
 * enrollment's deadline may be what ran out) and to the audit line. */
static void refuse(SSL *ssl, int fd, const struct req *r, const char *why)
{
	const void *part[1] = { why };
	size_t len[1] = { strlen(why) };

	cluster_join_audit(false, "enrollment refused:", "node %llu at %s from %s token %s: %s",
			   (unsigned long long)r->node_id, r->node_addr[0] ? r->node_addr : "?", r->peer,
			   r->id[0] ? r->id : "-", why);
	frame_write(ssl, fd, dqlc_now_ms() + 1000, F_ERR, part, len, 1);
}

/* The 'J' payload into r, the secret and the CSR. 0 or -EBADMSG. */
static int parse_join(const uint8_t *p, size_t len, struct req *r, uint8_t *secret,
		      const uint8_t **csr, size_t *csr_len)
{
	size_t alen;
	uint64_t id = 0;

	if (len < JOIN_FIXED)
		return -EBADMSG;
	memcpy(secret, p, CLUSTER_JOIN_SECRET_LEN);
	cluster_join_token_id(secret, r->id);
	for (int i = 0; i < 8; i++)
		id = id << 8 | p[CLUSTER_JOIN_SECRET_LEN + i];
	alen = p[JOIN_FIXED - 1];
	if (alen >= sizeof(r->node_addr) || len < JOIN_FIXED + alen)
		return -EBADMSG;
	for (size_t i = 0; i < alen; i++)
		if (p[JOIN_FIXED + i] < 0x21 || p[JOIN_FIXED + i] > 0x7e)   /* printable: it is logged */
			return -EBADMSG;
	memcpy(r->node_addr, p + JOIN_FIXED, alen);
	r->node_addr[alen] = '\0';
	r->node_id = id;
	*csr = p + JOIN_FIXED + alen;
	*csr_len = len - JOIN_FIXED - alen;
	return 0;
}

/* After the 'C' frame: one 'J', checked, answered. The token is consumed only after the
 * CSR was signed, in the store's locked step: of two concurrent uses one wins. */
static void serve_join(SSL *ssl, int fd, int64_t deadline, const char *dir, struct req *r,
		       uint8_t *buf, size_t size)
{
	char cert[CLUSTER_PKI_PEM_MAX], key[CLUSTER_PKI_PEM_MAX];
	uint8_t secret[CLUSTER_JOIN_SECRET_LEN], type = 0, cl[2], kl[2];
	const uint8_t *csr;
	size_t csr_len;
	int n, rc, clen, klen;

	n = frame_read(ssl, fd, deadline, &type, buf, size);
	if (n < 0 || type != F_JOIN || parse_join(buf, (size_t)n, r, secret, &csr, &csr_len) < 0) {
		refuse(ssl, fd, r, n == -ETIMEDOUT ? "timed out" : "bad request");
		return;
	}
	if ((rc = cluster_join_token_check(dir, secret, false)) < 0) {
		refuse(ssl, fd, r, token_reason(rc));
		goto out;
	}
	if ((clen = cluster_pki_sign_csr(dir, (const char *)csr, csr_len, cert, sizeof(cert))) < 0) {
		refuse(ssl, fd, r, clen == -EBADMSG ? "bad CSR (EC P-256, signed, CN = node name)" :
		       "cannot sign");
		goto out;
	}
	if ((klen = read_pem(dir, CLUSTER_PKI_CA_KEY, key, sizeof(key))) < 0) {
		refuse(ssl, fd, r, "CA key unreadable");
		goto out;
	}
	if ((rc = cluster_join_token_check(dir, secret, true)) < 0) {
		refuse(ssl, fd, r, token_reason(rc));
		goto out;
	}
	cl[0] = (uint8_t)(clen >> 8), cl[1] = (uint8_t)clen;
	kl[0] = (uint8_t)(klen >> 8), kl[1] = (uint8_t)klen;
	/* Audited before the answer leaves: the joiner may act on it at once. */
	cluster_join_audit(true, "enrollment accepted:", "node %llu at %s from %s token %s: certificate issued",
			   (unsigned long long)r->node_id, r->node_addr, r->peer, r->id);
	{
		const void *part[4] = { cl, cert, kl, key };
		size_t len[4] = { 2, (size_t)clen, 2, (size_t)klen };
		rc = frame_write(ssl, fd, deadline, F_KEYS, part, len, 4);
	}
	/* The token is spent either way: a joiner that lost the answer asks for a new one. */
	if (rc < 0)
		cluster_join_audit(false, "enrollment answer lost:", "node %llu from %s token %s: not "
				   "delivered (%s); the token is spent", (unsigned long long)r->node_id, r->peer,
				   r->id, strerror(-rc));
out:
	OPENSSL_cleanse(secret, sizeof(secret));
	OPENSSL_cleanse(key, sizeof(key));
}

void cluster_join_serve(void *arg, SSL *ssl, int fd)
{
	const char *dir = arg;
	int64_t deadline = dqlc_now_ms() + CLUSTER_JOIN_IO_TIMEOUT_MS;
	uint8_t *buf = malloc(CLUSTER_JOIN_FRAME_MAX);
	char ca[CLUSTER_PKI_PEM_MAX];
	struct req r = { .node_id = 0 };
	int n;

	peer_name(fd, r.peer, sizeof(r.peer));
	/* Bounded: a flood of anonymous connections does not become a flood of signatures. */
	if (atomic_fetch_add(&serving, 1) >= CLUSTER_JOIN_SERVING_MAX)
		refuse(ssl, fd, &r, "busy");
	else if (!buf || !dir || (n = read_pem(dir, CLUSTER_PKI_CA_CRT, ca, sizeof(ca))) < 0)
		refuse(ssl, fd, &r, "this node has no cluster CA");
	else if (frame_write(ssl, fd, deadline, F_CA, (const void *[]){ ca }, (size_t[]){ (size_t)n }, 1) < 0)
		cluster_join_audit(false, "enrollment refused:", "from %s: connection lost", r.peer);
	else
		serve_join(ssl, fd, deadline, dir, &r, buf, CLUSTER_JOIN_FRAME_MAX);
	atomic_fetch_sub(&serving, 1);
	if (buf)
		OPENSSL_cleanse(buf, CLUSTER_JOIN_FRAME_MAX);
	free(buf);
	SSL_shutdown(ssl);
	SSL_free(ssl);
	close(fd);
}

/* ---- the joining node's side ---- */

/* A TCP connection to "a.b.c.d:port" within timeout_ms (dqlc_tcp_connect), blocking from
 * here: bounded by SO_RCVTIMEO / SO_SNDTIMEO. fd or -errno. */
static int dial(const char *addr, int timeout_ms)
{
	int fd = dqlc_tcp_connect(addr, timeout_ms);

	if (fd >= 0 && fcntl(fd, F_SETFL, 0) < 0) {
		int e = -errno;

		close(fd);
		return e;
	}
	return fd;
}

/* The CA the server sent: its SHA-256 must be the token's, and the certificate the
 * server showed in the handshake must chain to it as a TLS server. 0 or -EPERM. */
static int check_server(SSL *ssl, const uint8_t *pem, size_t len, const uint8_t fp[32], X509 **ca_out)
{
	BIO *b = BIO_new_mem_buf(pem, (int)len);
	X509 *ca = b ? PEM_read_bio_X509(b, NULL, NULL, NULL) : NULL;
	X509 *leaf = SSL_get0_peer_certificate(ssl);
	X509_STORE *st = NULL;
	X509_STORE_CTX *ctx = NULL;
	uint8_t md[32];
	unsigned mdlen = 0;
	int ok;

	BIO_free(b);
	ok = ca && leaf && X509_digest(ca, EVP_sha256(), md, &mdlen) == 1 && mdlen == 32 &&
	     CRYPTO_memcmp(md, fp, 32) == 0;
	ok = ok && (st = X509_STORE_new()) && X509_STORE_add_cert(st, ca) == 1 &&
	     (ctx = X509_STORE_CTX_new()) &&
	     X509_STORE_CTX_init(ctx, st, leaf, SSL_get_peer_cert_chain(ssl)) == 1 &&
	     X509_STORE_CTX_set_purpose(ctx, X509_PURPOSE_SSL_SERVER) == 1 &&
	     X509_verify_cert(ctx) == 1;
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	ERR_clear_error();
	if (!ok) {
		X509_free(ca);
		return -EPERM;
	}
	*ca_out = ca;
	return 0;
}

/* A new EC P-256 key and a CSR for it with CN = name (PEM into csr). Length or -errno. */
static int make_csr(const char *name, EVP_PKEY **key, char *csr, size_t size)
{
	X509_REQ *req = X509_REQ_new();
	X509_NAME *nm = X509_NAME_new();
	BIO *b = BIO_new(BIO_s_mem());
	char *data;
	long n = 0;
	int ok;

	*key = EVP_EC_gen("P-256");
	ok = req && nm && b && *key &&
	     X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_UTF8, (const unsigned char *)name, -1, -1, 0) &&
	     X509_REQ_set_subject_name(req, nm) && X509_REQ_set_pubkey(req, *key) &&
	     X509_REQ_sign(req, *key, EVP_sha256()) > 0 && PEM_write_bio_X509_REQ(b, req) &&
	     (n = BIO_get_mem_data(b, &data)) > 0 && (size_t)n < size;
	if (ok) {
		memcpy(csr, data, (size_t)n);
		csr[n] = '\0';
	}
	BIO_free(b);
	X509_NAME_free(nm);
	X509_REQ_free(req);
	ERR_clear_error();
	return ok ? (int)n : -EIO;
}

static int key_pem(EVP_PKEY *key, char *out, size_t size)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data = NULL;
	long n = 0;
	int ok = b && PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL) &&
		 (n = BIO_get_mem_data(b, &data)) > 0 && (size_t)n < size;

	if (ok)
		memcpy(out, data, (size_t)n);
	if (data && n > 0)
		OPENSSL_cleanse(data, (size_t)n);
	BIO_free(b);
	return ok ? (int)n : -EIO;
}

/* The 'K' payload: our certificate (for our key, issued by ca) and the CA key (ca's).
 * Written ca.key, node.key, node.crt, ca.crt: cluster_pki_present() is true only at the end. */
static int take_keys(const char *dir, const uint8_t *p, size_t len, X509 *ca, EVP_PKEY *key,
		     const uint8_t *ca_pem, size_t ca_len)
{
	size_t clen, klen;
	X509 *crt = NULL;
	EVP_PKEY *cakey = NULL;
	BIO *b;
	char kp[CLUSTER_PKI_PEM_MAX];
	int n, rc = -EPROTO;

	if (len < 2 || (clen = (size_t)p[0] << 8 | p[1]) > len - 2 || len - 2 - clen < 2 ||
	    (klen = (size_t)p[2 + clen] << 8 | p[3 + clen]) != len - 4 - clen)
		return -EPROTO;
	if ((b = BIO_new_mem_buf(p + 2, (int)clen))) {
		crt = PEM_read_bio_X509(b, NULL, NULL, NULL);
		BIO_free(b);
	}
	if ((b = BIO_new_mem_buf(p + 4 + clen, (int)klen))) {
		cakey = PEM_read_bio_PrivateKey(b, NULL, NULL, NULL);
		BIO_free(b);
	}
	if (crt && cakey && X509_check_private_key(crt, key) == 1 && X509_verify(crt, X509_get0_pubkey(ca)) == 1 &&
	    X509_check_private_key(ca, cakey) == 1 && (n = key_pem(key, kp, sizeof(kp))) > 0) {
		rc = cluster_pki_write(dir, CLUSTER_PKI_CA_KEY, (const char *)p + 4 + clen, klen, 0600);
		if (rc == 0)
			rc = cluster_pki_write(dir, CLUSTER_PKI_NODE_KEY, kp, (size_t)n, 0600);
		if (rc == 0)
			rc = cluster_pki_write(dir, CLUSTER_PKI_NODE_CRT, (const char *)p + 2, clen, 0644);
		if (rc == 0)
			rc = cluster_pki_write(dir, CLUSTER_PKI_CA_CRT, (const char *)ca_pem, ca_len, 0644);
		OPENSSL_cleanse(kp, sizeof(kp));
	}
	ERR_clear_error();
	X509_free(crt);
	EVP_PKEY_free(cakey);
	return rc;
}

static int fail(char *err, size_t size, int rc, const char *fmt, const char *arg)
{
	if (err && size)
		snprintf(err, size, fmt, arg);
	return rc;
}

/* The exchange on an established TLS connection. */
static int enroll_on(SSL *ssl, int fd, int64_t deadline, const char *dir, const struct cluster_join_token *t,
		     const char *name, uint64_t node_id, const char *node_addr, uint8_t *buf, char *err,
		     size_t err_size)
{
	uint8_t ca_pem[CLUSTER_PKI_PEM_MAX], type = 0, fixed[JOIN_FIXED];
	char csr[CLUSTER_PKI_PEM_MAX];
	size_t alen = strlen(node_addr), ca_len;
	EVP_PKEY *key = NULL;
	X509 *ca = NULL;
	int n, rc;

	n = frame_read(ssl, fd, deadline, &type, ca_pem, sizeof(ca_pem) - 1);
	if (n < 0 || type != F_CA)
		return fail(err, err_size, -EPROTO, "%s: no CA certificate from the server (not a solocore "
			    "cluster address, or it refused)", t->addr);
	ca_len = (size_t)n;
	if (check_server(ssl, ca_pem, ca_len, t->ca_fp, &ca) < 0)
		return fail(err, err_size, -EPERM, "%s: the server's CA does not match the token's "
			    "fingerprint (or its certificate is not from that CA): nothing sent", t->addr);
	if (alen >= NODE_ADDR_MAX || (n = make_csr(name, &key, csr, sizeof(csr))) < 0) {
		rc = fail(err, err_size, -EINVAL, "cannot make a key and CSR for '%s'", name);
		goto out;
	}
	memcpy(fixed, t->secret, CLUSTER_JOIN_SECRET_LEN);
	for (int i = 0; i < 8; i++)
		fixed[CLUSTER_JOIN_SECRET_LEN + i] = (uint8_t)(node_id >> (56 - 8 * i));
	fixed[JOIN_FIXED - 1] = (uint8_t)alen;
	rc = frame_write(ssl, fd, deadline, F_JOIN, (const void *[]){ fixed, node_addr, csr },
			 (size_t[]){ sizeof(fixed), alen, (size_t)n }, 3);
	OPENSSL_cleanse(fixed, sizeof(fixed));
	if (rc == 0)
		rc = n = frame_read(ssl, fd, deadline, &type, buf, CLUSTER_JOIN_FRAME_MAX - 1);
	if (rc < 0) {
		rc = fail(err, err_size, -EPROTO, "%s: connection lost during enrollment", t->addr);
	} else if (type == F_ERR) {
		buf[n] = '\0';
		for (int i = 0; i < n; i++)
			if (buf[i] < 0x20 || buf[i] > 0x7e)
				buf[i] = '?';
		rc = fail(err, err_size, -EACCES, "refused: %s", (const char *)buf);
	} else if (type != F_KEYS || (rc = take_keys(dir, buf, (size_t)n, ca, key, ca_pem, ca_len)) < 0) {
		rc = fail(err, err_size, rc == -EPROTO || type != F_KEYS ? -EPROTO : rc,
			  "%s: a bad answer, or the certificates could not be written", t->addr);
	}
out:
	EVP_PKEY_free(key);
	X509_free(ca);
	return rc;
}

int cluster_join_enroll(const char *dir, const char *token, const char *name, uint64_t node_id,
			const char *node_addr, int timeout_ms, char *err, size_t err_size)
{
	struct cluster_join_token t;
	int64_t deadline = dqlc_now_ms() + (timeout_ms > 0 ? timeout_ms : CLUSTER_JOIN_IO_TIMEOUT_MS);
	char p[4096];
	struct stat st;
	uint8_t *buf = NULL;
	SSL_CTX *ctx = NULL;
	SSL *ssl = NULL;
	int fd = -1, rc;

	if (err && err_size)
		err[0] = '\0';
	if (!dir || !name || !node_addr)
		return -EINVAL;
	if (cluster_pki_path(dir, CLUSTER_PKI_NODE_CRT, p, sizeof(p)) == 0 && stat(p, &st) == 0)
		return fail(err, err_size, -EEXIST, "%s holds a node certificate already", p);
	if (cluster_join_token_parse(token, &t) < 0)
		return fail(err, err_size, -EINVAL, "%s", "the join token is not one (scj1. and 95 characters)");
	if ((fd = dial(t.addr, timeout_ms > 0 ? timeout_ms : CLUSTER_JOIN_IO_TIMEOUT_MS)) < 0) {
		rc = fail(err, err_size, -EHOSTUNREACH, "%s does not answer", t.addr);
		goto out;
	}
	/* TLS 1.3, no client certificate (that is what makes the member hand us to its
	 * enrollment handler); the server is checked against the token's CA fingerprint
	 * once its CA is at hand (check_server), before anything secret is sent. */
	rc = -EPROTO;
	if (!(buf = malloc(CLUSTER_JOIN_FRAME_MAX)) || !(ctx = SSL_CTX_new(TLS_client_method())) ||
	    !SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) || !(ssl = SSL_new(ctx)) ||
	    !SSL_set_fd(ssl, fd) || set_timeouts(fd, deadline) < 0 || SSL_connect(ssl) != 1) {
		ERR_clear_error();
		rc = fail(err, err_size, -EPROTO, "%s: no TLS 1.3 handshake (is it a cluster address of "
			  "a solocore with TLS?)", t.addr);
		goto out;
	}
	rc = enroll_on(ssl, fd, deadline, dir, &t, name, node_id, node_addr, buf, err, err_size);
	SSL_shutdown(ssl);
out:
	OPENSSL_cleanse(&t, sizeof(t));
	if (buf)
		OPENSSL_cleanse(buf, CLUSTER_JOIN_FRAME_MAX);
	free(buf);
	SSL_free(ssl);
	SSL_CTX_free(ctx);
	if (fd >= 0)
		close(fd);
	return rc;
}
