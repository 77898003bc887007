/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db/cluster_pki.h with real OpenSSL: a CA and node certificate made by
 * cluster_pki_init verify (X509_verify_cert against ca.crt), files and modes
 * (dir 0700, keys 0600), -EEXIST on a second init, add-node copies the CA and
 * issues a certificate that verifies against the first node's ca.crt, a CSR
 * signed (CN kept, extensions not copied), bad CSRs refused with -EBADMSG
 * (garbage, a CSR whose signature does not verify, an RSA key), -ENOSPC, the
 * CA fingerprint equal to SHA-256 of its DER (issue 31 point 1).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <cmocka.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "db/cluster_pki.h"
#include "dbtest.h"

static X509 *read_crt(const char *dir, const char *name)
{
	char p[512];
	FILE *f;
	X509 *x;

	assert_int_equal(cluster_pki_path(dir, name, p, sizeof(p)), 0);
	f = fopen(p, "r");
	assert_non_null(f);
	x = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	assert_non_null(x);
	return x;
}

static int verify(X509 *ca, X509 *leaf)
{
	X509_STORE *st = X509_STORE_new();
	X509_STORE_CTX *ctx = X509_STORE_CTX_new();
	int ok;

	X509_STORE_add_cert(st, ca);
	X509_STORE_CTX_init(ctx, st, leaf, NULL);
	ok = X509_verify_cert(ctx);
	X509_STORE_CTX_free(ctx);
	X509_STORE_free(st);
	return ok;
}

static void cn_is(X509 *x, const char *want)
{
	char cn[128];
	assert_true(X509_NAME_get_text_by_NID(X509_get_subject_name(x), NID_commonName, cn,
					      sizeof(cn)) > 0);
	assert_string_equal(cn, want);
}

static mode_t mode_of(const char *dir, const char *name)
{
	char p[512];
	struct stat st;

	assert_int_equal(cluster_pki_path(dir, name, p, sizeof(p)), 0);
	assert_int_equal(stat(p, &st), 0);
	return st.st_mode & 0777;
}

static void test_init_and_add(void **state)
{
	struct dbt t;
	char a[128], b[128];
	(void)state;

	dbt_init(&t);
	snprintf(a, sizeof(a), "%s/a", t.dir);
	snprintf(b, sizeof(b), "%s/b", t.dir);
	assert_int_equal(cluster_pki_present(a), 0);
	assert_int_equal(cluster_pki_init(a, "node-1"), 0);
	assert_int_equal(cluster_pki_present(a), 1);
	assert_int_equal(cluster_pki_init(a, "node-1"), -EEXIST);
	assert_int_equal(cluster_pki_init(b, ""), -EINVAL);
	assert_int_equal(cluster_pki_init(b, "a/b"), -EINVAL);
	assert_int_equal(mode_of(a, NULL), 0700);
	assert_int_equal(mode_of(a, CLUSTER_PKI_CA_KEY), 0600);
	assert_int_equal(mode_of(a, CLUSTER_PKI_NODE_KEY), 0600);

	X509 *ca = read_crt(a, CLUSTER_PKI_CA_CRT), *n1 = read_crt(a, CLUSTER_PKI_NODE_CRT);
	assert_int_equal(X509_check_ca(ca), 1);
	assert_int_equal(X509_check_ca(n1), 0);
	assert_int_equal(verify(ca, n1), 1);
	cn_is(n1, "node-1");

	/* add-node: out dir gets its own key and a copy of the CA (crt and key). */
	assert_int_equal(cluster_pki_add_node(b, a, "x"), -EEXIST);
	assert_int_equal(cluster_pki_add_node(a, b, "node-2"), 0);
	assert_int_equal(cluster_pki_add_node(a, b, "node-2"), -EEXIST);
	X509 *ca2 = read_crt(b, CLUSTER_PKI_CA_CRT), *n2 = read_crt(b, CLUSTER_PKI_NODE_CRT);
	assert_int_equal(X509_cmp(ca, ca2), 0);
	assert_int_equal(verify(ca, n2), 1);
	cn_is(n2, "node-2");
	assert_int_equal(mode_of(b, CLUSTER_PKI_CA_KEY), 0600);

	/* A CA of another cluster does not vouch for node-1. */
	char c[128];
	snprintf(c, sizeof(c), "%s/c", t.dir);
	assert_int_equal(cluster_pki_add_node(c, b, "y"), -EEXIST);
	assert_int_equal(cluster_pki_init(c, "stranger"), 0);
	X509 *ca3 = read_crt(c, CLUSTER_PKI_CA_CRT);
	assert_int_equal(verify(ca3, n1), 0);
	char d[128];
	snprintf(d, sizeof(d), "%s/d", t.dir);
	assert_int_equal(cluster_pki_add_node(d, c, "z"), -EEXIST);
	assert_int_equal(cluster_pki_add_node(d, d, "z"), -ENOENT);

	/* Fingerprint: SHA-256 of the DER. */
	uint8_t fp[32], want[32];
	unsigned n = 0;
	assert_int_equal(cluster_pki_ca_fingerprint(a, fp), 0);
	assert_int_equal(X509_digest(ca, EVP_sha256(), want, &n), 1);
	assert_memory_equal(fp, want, 32);
	assert_int_equal(cluster_pki_ca_fingerprint(d, fp), -ENOENT);

	X509_free(ca); X509_free(n1); X509_free(ca2); X509_free(n2); X509_free(ca3);
	dbt_cleanup(&t);
}

/* A PEM CSR for a new key of the given kind with CN cn; tamper flips a byte of the signature. */
static int make_csr(const char *kind, const char *cn, bool tamper, char *out, size_t size)
{
	EVP_PKEY *key = strcmp(kind, "rsa") ? EVP_EC_gen("P-256") : EVP_RSA_gen(2048);
	X509_REQ *req = X509_REQ_new();
	X509_NAME *nm = X509_REQ_get_subject_name(req);
	BIO *b = BIO_new(BIO_s_mem());
	char *data;
	long n;

	X509_NAME_add_entry_by_txt(nm, "CN", MBSTRING_ASC, (const unsigned char *)cn, -1, -1, 0);
	X509_REQ_set_pubkey(req, key);
	X509_REQ_sign(req, key, EVP_sha256());
	if (tamper) {
		const ASN1_BIT_STRING *sig;
		X509_REQ_get0_signature(req, &sig, NULL);
		((ASN1_BIT_STRING *)sig)->data[8] ^= 0x55;
	}
	PEM_write_bio_X509_REQ(b, req);
	n = BIO_get_mem_data(b, &data);
	assert_true(n > 0 && (size_t)n < size);
	memcpy(out, data, (size_t)n);
	out[n] = '\0';
	BIO_free(b);
	X509_REQ_free(req);
	EVP_PKEY_free(key);
	return (int)n;
}

static void test_sign_csr(void **state)
{
	struct dbt t;
	char a[128], csr[4096], crt[CLUSTER_PKI_PEM_MAX];
	int n, rc;
	(void)state;

	dbt_init(&t);
	snprintf(a, sizeof(a), "%s/a", t.dir);
	assert_int_equal(cluster_pki_init(a, "node-1"), 0);

	n = make_csr("ec", "joiner", false, csr, sizeof(csr));
	rc = cluster_pki_sign_csr(a, csr, (size_t)n, crt, sizeof(crt));
	assert_true(rc > 0);
	assert_int_equal((size_t)rc, strlen(crt));
	BIO *b = BIO_new_mem_buf(crt, rc);
	X509 *x = PEM_read_bio_X509(b, NULL, NULL, NULL);
	BIO_free(b);
	assert_non_null(x);
	X509 *ca = read_crt(a, CLUSTER_PKI_CA_CRT);
	assert_int_equal(verify(ca, x), 1);
	cn_is(x, "joiner");
	assert_int_equal(X509_check_ca(x), 0);
	X509_free(x);

	assert_int_equal(cluster_pki_sign_csr(a, csr, (size_t)n, crt, 100), -ENOSPC);
	assert_int_equal(cluster_pki_sign_csr(a, "garbage", 7, crt, sizeof(crt)), -EBADMSG);
	n = make_csr("ec", "joiner", true, csr, sizeof(csr));
	assert_int_equal(cluster_pki_sign_csr(a, csr, (size_t)n, crt, sizeof(crt)), -EBADMSG);
	n = make_csr("rsa", "joiner", false, csr, sizeof(csr));
	assert_int_equal(cluster_pki_sign_csr(a, csr, (size_t)n, crt, sizeof(crt)), -EBADMSG);
	n = make_csr("ec", "bad/name", false, csr, sizeof(csr));
	assert_int_equal(cluster_pki_sign_csr(a, csr, (size_t)n, crt, sizeof(crt)), -EBADMSG);
	X509_free(ca);
	dbt_cleanup(&t);
}

static void test_write(void **state)
{
	struct dbt t;
	char a[128];
	(void)state;

	dbt_init(&t);
	snprintf(a, sizeof(a), "%s/a", t.dir);
	assert_int_equal(cluster_pki_write(a, "k.pem", "x\n", 2, 0600), 0);
	assert_int_equal(mode_of(a, "k.pem"), 0600);
	assert_int_equal(mode_of(a, NULL), 0700);
	assert_int_equal(cluster_pki_write(a, "../k.pem", "x\n", 2, 0600), -EINVAL);
	assert_int_equal(cluster_pki_write("/proc/nonexistent/x", "k.pem", "x", 1, 0600), -ENOENT);
	dbt_cleanup(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_and_add),
		cmocka_unit_test(test_sign_csr),
		cmocka_unit_test(test_write),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
