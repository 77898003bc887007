/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * TLS server context: certificate chain and key from web.tls.cert/key, TLS
 * 1.2 minimum (RFC 9113 9.2 for h2), ALPN "h2" preferred over "http/1.1"
 * (RFC 7301). The sockets stay non-blocking; server.c drives the handshake.
 */
#include <errno.h>
#include <string.h>

#include <openssl/err.h>

#include "common/log.h"
#include "web/web_int.h"

/* ALPN wire format: length-prefixed names, in our order of preference. */
static const unsigned char alpn_ours[] = "\x02h2\x08http/1.1";

static int alpn_select(SSL *ssl, const unsigned char **out, unsigned char *outlen,
		       const unsigned char *in, unsigned inlen, void *arg)
{
	unsigned char *o;

	(void)ssl;
	(void)arg;
	if (SSL_select_next_proto(&o, outlen, alpn_ours, sizeof(alpn_ours) - 1, in, inlen) !=
	    OPENSSL_NPN_NEGOTIATED)
		return SSL_TLSEXT_ERR_NOACK;   /* no ALPN match: HTTP/1.1 */
	*out = o;
	return SSL_TLSEXT_ERR_OK;
}

int web_tls_ctx(const char *cert, const char *key, SSL_CTX **out)
{
	SSL_CTX *ctx = SSL_CTX_new(TLS_server_method());
	unsigned long e;
	char why[256];

	if (!ctx)
		return -ENOMEM;
	SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
	SSL_CTX_set_mode(ctx, SSL_MODE_ENABLE_PARTIAL_WRITE | SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
	/* RFC 9113 9.2.2: h2 needs ephemeral key exchange and AEAD; OpenSSL's
	 * defaults for TLS 1.2 prefer those, TLS 1.3 only has them. */
	SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_CIPHER_SERVER_PREFERENCE);
	if (SSL_CTX_use_certificate_chain_file(ctx, cert) != 1 ||
	    SSL_CTX_use_PrivateKey_file(ctx, key, SSL_FILETYPE_PEM) != 1 ||
	    SSL_CTX_check_private_key(ctx) != 1) {
		e = ERR_peek_last_error();
		ERR_error_string_n(e, why, sizeof(why));
		/* The error string names the failure, never key material. */
		log_error("web", "web.tls: cert %s / key %s unusable: %s", cert, key, why);
		ERR_clear_error();
		SSL_CTX_free(ctx);
		return -EINVAL;
	}
	SSL_CTX_set_alpn_select_cb(ctx, alpn_select, NULL);
	*out = ctx;
	return 0;
}
