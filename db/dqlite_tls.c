/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * dqlc transport security (issue 31 point 1): the cluster link is mutual TLS
 * 1.3 with certificates of the cluster CA (db/cluster_pki.h). This file
 * builds the OpenSSL contexts (client and server, shared with
 * db/cluster_tls.c), keeps the process-wide client context every
 * dqlc_connect() uses, and runs the client handshake on a non-blocking
 * socket within the connection's deadline.
 *
 * Trust: the peer's certificate must chain to ca.crt (RFC 8446 4.4.2.4: a
 * bad certificate aborts the handshake). There is no host name check, on
 * purpose: every member holds the CA key (as in LXD), so the CA itself is
 * the cluster's identity and any certificate it signed is a member.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>

#include <openssl/bio.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509.h>

#include "db/dqlite_client_int.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static SSL_CTX *client_ctx;      /* NULL: not set up */
static bool allow_plain;         /* tests of the codec against a fake server */

static int file_in(const char *dir, const char *name, char *out, size_t size)
{
	struct stat st;
	int n = snprintf(out, size, "%s/tls/%s", dir, name);

	if (n < 0 || (size_t)n >= size)
		return -ENAMETOOLONG;
	return stat(out, &st) == 0 ? 0 : -errno;
}

int dqlc_tls_ctx_new(const char *dir, bool server, SSL_CTX **out)
{
	char crt[4096], key[4096], ca[4096];
	SSL_CTX *ctx;
	int rc;

	*out = NULL;
	if (!dir || !dir[0])
		return -EINVAL;
	if ((rc = file_in(dir, "node.crt", crt, sizeof(crt))) < 0 ||
	    (rc = file_in(dir, "node.key", key, sizeof(key))) < 0 ||
	    (rc = file_in(dir, "ca.crt", ca, sizeof(ca))) < 0)
		return rc;
	ctx = SSL_CTX_new(server ? TLS_server_method() : TLS_client_method());
	if (!ctx)
		return -ENOMEM;
	rc = 0;
	/* TLS 1.3 only: no renegotiation, no RSA key exchange, the certificate encrypted. */
	if (!SSL_CTX_set_min_proto_version(ctx, TLS1_3_VERSION) ||
	    !SSL_CTX_set_max_proto_version(ctx, TLS1_3_VERSION) ||
	    SSL_CTX_use_certificate_chain_file(ctx, crt) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1 ||
	    SSL_CTX_load_verify_locations(ctx, ca, NULL) != 1)
		rc = -EBADMSG;
	if (rc == 0) {
		/* Server: the caller picks FAIL_IF_NO_PEER_CERT (db/cluster_tls.c). */
		SSL_CTX_set_verify(ctx, SSL_VERIFY_PEER, NULL);
		SSL_CTX_set_verify_depth(ctx, 2);
		SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE |
				 SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
		/* No session tickets to keep or rotate: one full handshake per connection. */
		SSL_CTX_set_num_tickets(ctx, 0);
		SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
	}
	ERR_clear_error();
	if (rc < 0) {
		SSL_CTX_free(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

int dqlc_tls_init(const char *dir)
{
	SSL_CTX *ctx, *old;
	int rc = dqlc_tls_ctx_new(dir, false, &ctx);

	if (rc < 0)
		return rc;
	pthread_mutex_lock(&lock);
	old = client_ctx;
	client_ctx = ctx;
	pthread_mutex_unlock(&lock);
	SSL_CTX_free(old);   /* connections made with it hold their own reference */
	return 0;
}

void dqlc_tls_reset(void)
{
	pthread_mutex_lock(&lock);
	SSL_CTX_free(client_ctx);
	client_ctx = NULL;
	allow_plain = false;
	pthread_mutex_unlock(&lock);
}

bool dqlc_tls_ready(void)
{
	return client_ctx != NULL;
}

void dqlc_tls_allow_plain(bool on)
{
	pthread_mutex_lock(&lock);
	allow_plain = on;
	pthread_mutex_unlock(&lock);
}

/* OpenSSL's socket BIO writes with write(2): to a peer that is gone that raises SIGPIPE,
 * which kills the process (the CLI, a test, a core whose SIGPIPE is not ignored). The
 * same BIO with send(MSG_NOSIGNAL) for writes; the rest is OpenSSL's. */
static BIO_METHOD *nosig;
static pthread_once_t nosig_once = PTHREAD_ONCE_INIT;

static int nosig_write(BIO *b, const char *buf, int len)
{
	int fd = -1;
	ssize_t n;

	BIO_get_fd(b, &fd);
	n = send(fd, buf, (size_t)len, MSG_NOSIGNAL);
	BIO_clear_retry_flags(b);
	if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
		BIO_set_retry_write(b);
	return (int)n;
}

static int nosig_puts(BIO *b, const char *s)
{
	return nosig_write(b, s, (int)strlen(s));
}

static void nosig_init(void)
{
	const BIO_METHOD *s = BIO_s_socket();
	BIO_METHOD *m = BIO_meth_new(BIO_get_new_index() | BIO_TYPE_SOURCE_SINK | BIO_TYPE_DESCRIPTOR,
				     "socket, no SIGPIPE");

	if (m && BIO_meth_set_write(m, nosig_write) && BIO_meth_set_puts(m, nosig_puts) &&
	    BIO_meth_set_read(m, BIO_meth_get_read(s)) && BIO_meth_set_ctrl(m, BIO_meth_get_ctrl(s)) &&
	    BIO_meth_set_create(m, BIO_meth_get_create(s)) &&
	    BIO_meth_set_destroy(m, BIO_meth_get_destroy(s)))
		nosig = m;
	else
		BIO_meth_free(m);
}

int dqlc_tls_set_fd(SSL *ssl, int fd)
{
	BIO *b;

	pthread_once(&nosig_once, nosig_init);
	if (!nosig || !(b = BIO_new(nosig)))
		return -ENOMEM;
	BIO_set_fd(b, fd, BIO_NOCLOSE);
	SSL_set_bio(ssl, b, b);
	return 0;
}

int64_t dqlc_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int dqlc_wait_fd(int fd, short ev, int64_t deadline)
{
	struct pollfd p = { .fd = fd, .events = ev };

	for (;;) {
		int64_t left = deadline - dqlc_now_ms();
		int n = poll(&p, 1, left > 0 ? (int)left : 0);
		if (n > 0)
			return 0;
		if (n == 0)
			return -ETIMEDOUT;
		if (errno != EINTR)
			return -errno;
	}
}

int dqlc_tls_wait(int fd, int ssl_err, int64_t deadline)
{
	return dqlc_wait_fd(fd, ssl_err == SSL_ERROR_WANT_WRITE ? POLLOUT : POLLIN, deadline);
}

int dqlc_tls_connect(int fd, int timeout_ms, SSL **out)
{
	int64_t deadline = dqlc_now_ms() + timeout_ms;
	SSL *ssl;
	int rc = 0;

	*out = NULL;
	pthread_mutex_lock(&lock);
	if (!client_ctx) {
		rc = allow_plain ? 1 : -ENOKEY;
		pthread_mutex_unlock(&lock);
		return rc;
	}
	ssl = SSL_new(client_ctx);
	pthread_mutex_unlock(&lock);
	if (!ssl)
		return -ENOMEM;
	if (dqlc_tls_set_fd(ssl, fd) < 0) {
		SSL_free(ssl);
		return -ENOMEM;
	}
	ERR_clear_error();
	for (;;) {
		int r = SSL_connect(ssl);
		if (r == 1)
			break;
		int e = SSL_get_error(ssl, r);
		if (e == SSL_ERROR_WANT_READ || e == SSL_ERROR_WANT_WRITE) {
			if ((rc = dqlc_tls_wait(fd, e, deadline)) < 0)
				break;
			continue;
		}
		/* A server whose certificate does not chain to our CA, or that refused ours. */
		rc = SSL_get_verify_result(ssl) != X509_V_OK ? -EKEYREJECTED : -ECONNRESET;
		break;
	}
	ERR_clear_error();
	if (rc == 0 && (!SSL_get0_peer_certificate(ssl) || SSL_get_verify_result(ssl) != X509_V_OK))
		rc = -EKEYREJECTED;
	if (rc < 0) {
		SSL_free(ssl);
		return rc;
	}
	*out = ssl;
	return 0;
}
