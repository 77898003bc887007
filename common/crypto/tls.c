/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Per-thread OpenSSL cipher contexts: created once per thread, re-keyed per call without
 * allocation, freed (and their key material wiped) by crypto_thread_cleanup(). */
#include "common/crypto/crypto.h"
#include "common/crypto/crypto_int.h"

#include <errno.h>
#include <pthread.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/rand.h>

static __thread struct crypto_tls *tls;
static __thread struct crypto_tls tls_store;
static pthread_once_t atfork_once = PTHREAD_ONCE_INIT;

/* A forked child must not hand out the parent's buffered random octets again. */
static void atfork_child(void)
{
	OPENSSL_cleanse(tls_store.rnd, sizeof(tls_store.rnd));
	tls_store.rnd_pos = sizeof(tls_store.rnd);
}

static void atfork_register(void)
{
	pthread_atfork(NULL, NULL, atfork_child);
}

static EVP_CIPHER_CTX *new_ctx(const EVP_CIPHER *c)
{
	static const uint8_t zero[16];
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	if (!ctx)
		return NULL;
	if (EVP_EncryptInit_ex(ctx, c, NULL, zero, zero) != 1) {
		EVP_CIPHER_CTX_free(ctx);
		return NULL;
	}
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	return ctx;
}

struct crypto_tls *crypto_tls_get(void)
{
	struct crypto_tls *t = &tls_store;

	if (tls)
		return tls;
	pthread_once(&atfork_once, atfork_register);
	t->ecb = new_ctx(EVP_aes_128_ecb());
	t->cbc = new_ctx(EVP_aes_128_cbc());
	t->ctr = new_ctx(EVP_aes_128_ctr());
	t->nea = new_ctx(EVP_aes_128_ecb());
	if (!t->ecb || !t->cbc || !t->ctr || !t->nea) {
		crypto_thread_cleanup();
		return NULL;
	}
	t->cmac_valid = 0;
	t->nea_valid = 0;
	t->rnd_pos = sizeof(t->rnd);
	tls = t;
	return t;
}

void crypto_thread_cleanup(void)
{
	struct crypto_tls *t = &tls_store;

	EVP_CIPHER_CTX_free(t->ecb);
	EVP_CIPHER_CTX_free(t->cbc);
	EVP_CIPHER_CTX_free(t->ctr);
	EVP_CIPHER_CTX_free(t->nea);
	OPENSSL_cleanse(t, sizeof(*t));
	tls = NULL;
}

int crypto_aes_key(struct crypto_tls *t, const uint8_t key[16])
{
	return EVP_EncryptInit_ex(t->ecb, NULL, NULL, key, NULL) == 1 ? 0 : -EIO;
}

int crypto_aes_blocks(struct crypto_tls *t, const uint8_t *in, uint8_t *out, unsigned n)
{
	int olen = 0;

	return EVP_EncryptUpdate(t->ecb, out, &olen, in, (int)(16 * n)) == 1 &&
	       olen == (int)(16 * n) ? 0 : -EIO;
}

int crypto_random(struct crypto_tls *t, uint8_t *out, size_t n)
{
	if (n > 64)
		return -EINVAL;
	if (sizeof(t->rnd) - t->rnd_pos < n) {
		if (RAND_bytes(t->rnd, sizeof(t->rnd)) != 1)
			return -EIO;
		t->rnd_pos = 0;
	}
	memcpy(out, t->rnd + t->rnd_pos, n);
	OPENSSL_cleanse(t->rnd + t->rnd_pos, n);
	t->rnd_pos += n;
	return 0;
}
