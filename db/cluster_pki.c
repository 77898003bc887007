/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_pki - the cluster CA and node certificates (db/cluster_pki.h),
 * OpenSSL 3: EC P-256 keys (EVP_EC_gen), X.509 v3, ECDSA-SHA256 signatures.
 * Key material lives in OpenSSL objects and in PEM buffers that are
 * cleansed before they are freed; nothing is logged but paths and reasons.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <openssl/bio.h>
#include <openssl/crypto.h>
#include <openssl/ec.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/rand.h>
#include <openssl/x509.h>
#include <openssl/x509v3.h>

#include "common/log.h"
#include "db/cluster_pki.h"

#define VALID_DAYS (10 * 365 + 3)   /* 10 years, leap days included */
#define CA_CN "solocore cluster CA"

int cluster_pki_path(const char *dir, const char *name, char *out, size_t out_size)
{
	int n;

	if (!dir || !dir[0])
		return -EINVAL;
	n = name ? snprintf(out, out_size, "%s/%s/%s", dir, CLUSTER_PKI_SUBDIR, name)
		 : snprintf(out, out_size, "%s/%s", dir, CLUSTER_PKI_SUBDIR);
	return n < 0 || (size_t)n >= out_size ? -ENAMETOOLONG : 0;
}

static int exists(const char *dir, const char *name)
{
	char p[4096];
	struct stat st;

	return cluster_pki_path(dir, name, p, sizeof(p)) == 0 && stat(p, &st) == 0;
}

int cluster_pki_present(const char *dir)
{
	return exists(dir, CLUSTER_PKI_CA_CRT) && exists(dir, CLUSTER_PKI_NODE_CRT) &&
	       exists(dir, CLUSTER_PKI_NODE_KEY);
}

static int mkdir_mode(const char *p)
{
	if (mkdir(p, 0700) == 0 || errno == EEXIST)
		return 0;
	return -errno;
}

int cluster_pki_write(const char *dir, const char *name, const char *pem, size_t len,
		      mode_t mode)
{
	char d[4096], p[4096], tmp[4200];
	int fd, rc = 0;
	size_t off = 0;

	if (!name || !name[0] || strchr(name, '/') || !pem)
		return -EINVAL;
	if ((rc = cluster_pki_path(dir, NULL, d, sizeof(d))) < 0 ||
	    (rc = cluster_pki_path(dir, name, p, sizeof(p))) < 0)
		return rc;
	if ((rc = mkdir_mode(dir)) < 0 || (rc = mkdir_mode(d)) < 0)
		return rc;
	/* An existing tls dir made by hand with a wider mode is narrowed: keys live here. */
	if (chmod(d, 0700) < 0)
		return -errno;
	snprintf(tmp, sizeof(tmp), "%s.tmp%ld", p, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, mode & 0777);
	if (fd < 0)
		return -errno;
	/* O_CREAT's mode is cut by the umask; the mode asked for is the mode wanted. */
	if (fchmod(fd, mode & 0777) < 0)
		rc = -errno;
	while (rc == 0 && off < len) {
		ssize_t w = write(fd, pem + off, len - off);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			rc = w < 0 ? -errno : -EIO;
		else
			off += (size_t)w;
	}
	if (rc == 0 && fsync(fd) < 0)
		rc = -errno;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && rename(tmp, p) < 0)
		rc = -errno;
	if (rc < 0)
		unlink(tmp);
	return rc;
}

static int check_name(const char *name)
{
	size_t n = name ? strlen(name) : 0;

	if (n == 0 || n > CLUSTER_PKI_NAME_MAX)
		return -EINVAL;
	for (size_t i = 0; i < n; i++)
		if (name[i] < 0x20 || name[i] > 0x7e || name[i] == '/')
			return -EINVAL;
	return 0;
}

static EVP_PKEY *new_key(void)
{
	return EVP_EC_gen("P-256");
}

static int add_ext(X509 *crt, X509 *issuer, int nid, const char *value)
{
	X509V3_CTX ctx;
	X509_EXTENSION *ext;
	int ok;

	X509V3_set_ctx_nodb(&ctx);
	X509V3_set_ctx(&ctx, issuer, crt, NULL, NULL, 0);
	ext = X509V3_EXT_conf_nid(NULL, &ctx, nid, value);
	if (!ext)
		return -EIO;
	ok = X509_add_ext(crt, ext, -1);
	X509_EXTENSION_free(ext);
	return ok ? 0 : -EIO;
}

/* A certificate for key with subject CN = cn, signed by ca_key (ca NULL: self-signed CA). */
static X509 *make_cert(EVP_PKEY *key, const char *cn, X509 *ca, EVP_PKEY *ca_key)
{
	X509 *crt = X509_new();
	X509_NAME *name;
	uint8_t serial[16];
	BIGNUM *bn = NULL;
	int ok = crt != NULL;

	/* RFC 5280 4.1.2.2: a positive serial of at most 20 octets, unpredictable here. */
	ok = ok && RAND_bytes(serial, sizeof(serial)) == 1;
	serial[0] &= 0x7f;
	ok = ok && (bn = BN_bin2bn(serial, sizeof(serial), NULL)) != NULL;
	ok = ok && BN_to_ASN1_INTEGER(bn, X509_get_serialNumber(crt)) != NULL;
	BN_free(bn);
	ok = ok && X509_set_version(crt, X509_VERSION_3);
	ok = ok && X509_gmtime_adj(X509_getm_notBefore(crt), -3600) != NULL;
	ok = ok && X509_gmtime_adj(X509_getm_notAfter(crt), (long)VALID_DAYS * 86400) != NULL;
	ok = ok && X509_set_pubkey(crt, key);
	ok = ok && (name = X509_get_subject_name(crt)) != NULL;
	ok = ok && X509_NAME_add_entry_by_txt(name, "O", MBSTRING_ASC,
					      (const unsigned char *)"solocore", -1, -1, 0);
	ok = ok && X509_NAME_add_entry_by_txt(name, "CN", MBSTRING_UTF8,
					      (const unsigned char *)cn, -1, -1, 0);
	ok = ok && X509_set_issuer_name(crt, ca ? X509_get_subject_name(ca) : name);
	if (ok && !ca) {
		/* RFC 5280 4.2.1.9 / 4.2.1.3: a CA that signs certificates, nothing else. */
		ok = add_ext(crt, crt, NID_basic_constraints, "critical,CA:TRUE,pathlen:0") == 0 &&
		     add_ext(crt, crt, NID_key_usage, "critical,keyCertSign,cRLSign") == 0 &&
		     add_ext(crt, crt, NID_subject_key_identifier, "hash") == 0;
	} else if (ok) {
		/* A node is a TLS server (its listener) and a client (its dials, the CLI). */
		ok = add_ext(crt, ca, NID_basic_constraints, "critical,CA:FALSE") == 0 &&
		     add_ext(crt, ca, NID_key_usage, "critical,digitalSignature") == 0 &&
		     add_ext(crt, ca, NID_ext_key_usage, "serverAuth,clientAuth") == 0 &&
		     add_ext(crt, ca, NID_subject_key_identifier, "hash") == 0 &&
		     add_ext(crt, ca, NID_authority_key_identifier, "keyid:always") == 0;
	}
	ok = ok && X509_sign(crt, ca_key, EVP_sha256()) > 0;
	if (!ok) {
		X509_free(crt);
		return NULL;
	}
	return crt;
}

/* PEM of a certificate or a private key into a malloc'd buffer (*len bytes, NUL after). */
static char *to_pem(X509 *crt, EVP_PKEY *key, size_t *len)
{
	BIO *b = BIO_new(BIO_s_mem());
	char *data, *out = NULL;
	long n;
	int ok;

	if (!b)
		return NULL;
	ok = crt ? PEM_write_bio_X509(b, crt) : PEM_write_bio_PrivateKey(b, key, NULL, NULL, 0, NULL, NULL);
	n = BIO_get_mem_data(b, &data);
	if (ok && n > 0 && (out = malloc((size_t)n + 1))) {
		memcpy(out, data, (size_t)n);
		out[n] = '\0';
		*len = (size_t)n;
	}
	if (data && n > 0)
		OPENSSL_cleanse(data, (size_t)n);
	BIO_free(b);
	return out;
}

static int write_obj(const char *dir, const char *name, X509 *crt, EVP_PKEY *key)
{
	size_t len = 0;
	char *pem = to_pem(crt, key, &len);
	int rc;

	if (!pem)
		return -ENOMEM;
	rc = cluster_pki_write(dir, name, pem, len, key ? 0600 : 0644);
	OPENSSL_cleanse(pem, len);
	free(pem);
	return rc;
}

static X509 *load_crt(const char *dir, const char *name)
{
	char p[4096];
	FILE *f;
	X509 *crt = NULL;

	if (cluster_pki_path(dir, name, p, sizeof(p)) < 0 || !(f = fopen(p, "re")))
		return NULL;
	crt = PEM_read_X509(f, NULL, NULL, NULL);
	fclose(f);
	return crt;
}

static EVP_PKEY *load_key(const char *dir, const char *name)
{
	char p[4096];
	FILE *f;
	EVP_PKEY *key;

	if (cluster_pki_path(dir, name, p, sizeof(p)) < 0 || !(f = fopen(p, "re")))
		return NULL;
	key = PEM_read_PrivateKey(f, NULL, NULL, NULL);
	fclose(f);
	return key;
}

/* The CA of dir/tls. 0, -ENOENT (no ca.crt / ca.key), -EBADMSG (unreadable or not a pair). */
static int load_ca(const char *dir, X509 **crt, EVP_PKEY **key)
{
	*crt = NULL;
	*key = NULL;
	if (!exists(dir, CLUSTER_PKI_CA_CRT) || !exists(dir, CLUSTER_PKI_CA_KEY))
		return -ENOENT;
	*crt = load_crt(dir, CLUSTER_PKI_CA_CRT);
	*key = load_key(dir, CLUSTER_PKI_CA_KEY);
	if (*crt && *key && X509_check_private_key(*crt, *key) == 1)
		return 0;
	X509_free(*crt);
	EVP_PKEY_free(*key);
	*crt = NULL;
	*key = NULL;
	return -EBADMSG;
}

/* A new node key and certificate signed by the CA, written as node.key / node.crt in dir. */
static int issue_node(const char *dir, const char *name, X509 *ca, EVP_PKEY *ca_key)
{
	EVP_PKEY *key = new_key();
	X509 *crt = key ? make_cert(key, name, ca, ca_key) : NULL;
	int rc = crt ? 0 : -EIO;

	if (rc == 0)
		rc = write_obj(dir, CLUSTER_PKI_NODE_KEY, NULL, key);
	if (rc == 0)
		rc = write_obj(dir, CLUSTER_PKI_NODE_CRT, crt, NULL);
	X509_free(crt);
	EVP_PKEY_free(key);
	return rc;
}

/* A member's dir/tls: the CA key, its own key and certificate, the CA certificate last (it
 * is what marks the dir as made). Keys first: a crash in between leaves no certificate
 * without its key. */
static int write_member(const char *dir, const char *name, X509 *ca, EVP_PKEY *ca_key)
{
	int rc = write_obj(dir, CLUSTER_PKI_CA_KEY, NULL, ca_key);

	if (rc == 0)
		rc = issue_node(dir, name, ca, ca_key);
	if (rc == 0)
		rc = write_obj(dir, CLUSTER_PKI_CA_CRT, ca, NULL);
	return rc;
}

int cluster_pki_init(const char *dir, const char *node_name)
{
	EVP_PKEY *ca_key = NULL;
	X509 *ca = NULL;
	int rc;

	if (!dir || !dir[0] || check_name(node_name) < 0)
		return -EINVAL;
	if (exists(dir, CLUSTER_PKI_CA_CRT))
		return -EEXIST;
	ca_key = new_key();
	ca = ca_key ? make_cert(ca_key, CA_CN, NULL, ca_key) : NULL;
	rc = ca ? 0 : -EIO;
	if (rc == 0)
		rc = write_member(dir, node_name, ca, ca_key);
	X509_free(ca);
	EVP_PKEY_free(ca_key);
	if (rc < 0)
		log_error("cluster", "cluster PKI in %s/%s: %s", dir, CLUSTER_PKI_SUBDIR, strerror(-rc));
	return rc;
}

int cluster_pki_add_node(const char *ca_dir, const char *out_dir, const char *node_name)
{
	EVP_PKEY *ca_key;
	X509 *ca;
	int rc;

	if (!ca_dir || !out_dir || !out_dir[0] || check_name(node_name) < 0)
		return -EINVAL;
	if (exists(out_dir, CLUSTER_PKI_NODE_CRT))
		return -EEXIST;
	if ((rc = load_ca(ca_dir, &ca, &ca_key)) < 0)
		return rc;
	rc = write_member(out_dir, node_name, ca, ca_key);
	X509_free(ca);
	EVP_PKEY_free(ca_key);
	return rc;
}

/* The CSR's CN, checked as a node name. 0 or -EBADMSG. */
static int csr_cn(X509_REQ *req, char *cn, size_t size)
{
	X509_NAME *subj = X509_REQ_get_subject_name(req);
	int n = subj ? X509_NAME_get_text_by_NID(subj, NID_commonName, cn, (int)size) : -1;

	return n > 0 && check_name(cn) == 0 ? 0 : -EBADMSG;
}

int cluster_pki_sign_csr(const char *dir, const char *csr_pem, size_t csr_len, char *out,
			 size_t out_size)
{
	char cn[CLUSTER_PKI_NAME_MAX + 2];
	X509_REQ *req = NULL;
	EVP_PKEY *pub, *ca_key = NULL;
	X509 *ca = NULL, *crt = NULL;
	BIO *b;
	char *pem = NULL;
	size_t len = 0;
	int rc;

	if (!csr_pem || !out || csr_len > INT32_MAX)
		return -EINVAL;
	b = BIO_new_mem_buf(csr_pem, (int)csr_len);
	if (!b)
		return -ENOMEM;
	req = PEM_read_bio_X509_REQ(b, NULL, NULL, NULL);
	BIO_free(b);
	pub = req ? X509_REQ_get0_pubkey(req) : NULL;
	/* Proof of possession (RFC 2986 4.2): the CSR is signed by the key it carries. */
	rc = pub && X509_REQ_verify(req, pub) == 1 && EVP_PKEY_is_a(pub, "EC") ? 0 : -EBADMSG;
	if (rc == 0) {
		char grp[32];
		size_t gl = 0;
		if (EVP_PKEY_get_utf8_string_param(pub, "group", grp, sizeof(grp), &gl) != 1 ||
		    strcmp(grp, "prime256v1") != 0)
			rc = -EBADMSG;
	}
	if (rc == 0)
		rc = csr_cn(req, cn, sizeof(cn));
	if (rc == 0)
		rc = load_ca(dir, &ca, &ca_key);
	if (rc == 0 && !(crt = make_cert(pub, cn, ca, ca_key)))
		rc = -EIO;
	if (rc == 0 && !(pem = to_pem(crt, NULL, &len)))
		rc = -ENOMEM;
	if (rc == 0 && len + 1 > out_size)
		rc = -ENOSPC;
	if (rc == 0) {
		memcpy(out, pem, len + 1);
		rc = (int)len;
	}
	free(pem);
	X509_free(crt);
	X509_free(ca);
	EVP_PKEY_free(ca_key);
	X509_REQ_free(req);
	return rc;
}

int cluster_pki_ca_fingerprint(const char *dir, uint8_t out[32])
{
	X509 *ca;
	unsigned n = 0;
	int ok;

	if (!exists(dir, CLUSTER_PKI_CA_CRT))
		return -ENOENT;
	if (!(ca = load_crt(dir, CLUSTER_PKI_CA_CRT)))
		return -EBADMSG;
	ok = X509_digest(ca, EVP_sha256(), out, &n) == 1 && n == 32;
	X509_free(ca);
	return ok ? 0 : -EIO;
}
