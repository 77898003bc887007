/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * cluster_join - join tokens: text form, the issuing node's store of their
 * hashes, single use (db/cluster_join.h), and the audit line.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/conf.h"
#include "common/hex.h"
#include "common/log.h"
#include "db/cluster_join.h"
#include "db/cluster_pki.h"

#define TOKEN_VERSION 1
#define TOKEN_BIN_LEN (1 + 4 + 2 + CLUSTER_JOIN_SECRET_LEN + CLUSTER_JOIN_FP_LEN)   /* 71 */
#define TOKEN_B64_LEN 95                    /* ceil(71 * 4 / 3), no padding */
#define STORE_LOCK "join_tokens.lock"
/* Entries read from the store at most (unexpired + recently expired); a line is 84 bytes. */
#define STORE_ENTRIES 256
/* An expired or used entry is kept this long after its expiry, so a late try is told
 * "expired" rather than "unknown", then dropped: the store does not grow with time. */
#define STORE_KEEP_S 86400

struct entry {
	uint8_t hash[32];
	int64_t expires;
	bool used;
};

struct store {
	struct entry e[STORE_ENTRIES];
	unsigned n;
};

static const char b64url[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

static void sha256(const uint8_t *in, size_t len, uint8_t out[32])
{
	unsigned n = 32;

	EVP_Digest(in, len, out, &n, EVP_sha256(), NULL);
}

void cluster_join_token_id(const uint8_t secret[CLUSTER_JOIN_SECRET_LEN],
			   char id[CLUSTER_JOIN_ID_LEN + 1])
{
	uint8_t h[32];

	sha256(secret, CLUSTER_JOIN_SECRET_LEN, h);
	for (int i = 0; i < CLUSTER_JOIN_ID_LEN / 2; i++) {
		id[2 * i] = hex_char(h[i] >> 4, false);
		id[2 * i + 1] = hex_char(h[i], false);
	}
	id[CLUSTER_JOIN_ID_LEN] = '\0';
}

/* ---- text form ---- */

static void b64_encode(const uint8_t *in, size_t len, char *out)
{
	uint32_t acc = 0;
	int bits = 0;

	for (size_t i = 0; i < len; i++) {
		acc = acc << 8 | in[i];
		bits += 8;
		while (bits >= 6) {
			bits -= 6;
			*out++ = b64url[(acc >> bits) & 63];
		}
	}
	if (bits)
		*out++ = b64url[(acc << (6 - bits)) & 63];
	*out = '\0';
}

/* Exactly len bytes from the base64url text (no padding). 0 or -EINVAL. */
static int b64_decode(const char *in, size_t in_len, uint8_t *out, size_t len)
{
	uint32_t acc = 0;
	int bits = 0;
	size_t o = 0;

	for (size_t i = 0; i < in_len; i++) {
		const char *p = in[i] ? strchr(b64url, in[i]) : NULL;
		if (!p)
			return -EINVAL;
		acc = acc << 6 | (uint32_t)(p - b64url);
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			if (o == len)
				return -EINVAL;
			out[o++] = (uint8_t)(acc >> bits);
		}
	}
	/* The unused low bits of the last character are zero in a canonical encoding. */
	return o == len && !(acc & ((1u << bits) - 1)) ? 0 : -EINVAL;
}

/* "a.b.c.d:port" into 4 + 2 bytes. 0 or -EINVAL. */
static int addr_pack(const char *addr, uint8_t out[6])
{
	char host[16], *end;
	const char *colon = strrchr(addr, ':');
	unsigned long port;

	if (!colon || colon == addr || (size_t)(colon - addr) >= sizeof(host))
		return -EINVAL;
	memcpy(host, addr, (size_t)(colon - addr));
	host[colon - addr] = '\0';
	errno = 0;
	port = strtoul(colon + 1, &end, 10);
	if (inet_pton(AF_INET, host, out) != 1 || !colon[1] || *end || errno || !port || port > 65535)
		return -EINVAL;
	out[4] = (uint8_t)(port >> 8);
	out[5] = (uint8_t)port;
	return 0;
}

int cluster_join_token_parse(const char *text, struct cluster_join_token *t)
{
	size_t plen = strlen(CLUSTER_JOIN_TOKEN_PREFIX);
	uint8_t bin[TOKEN_BIN_LEN];
	char host[INET_ADDRSTRLEN];
	int rc = -EINVAL;

	if (!text || !t || strncmp(text, CLUSTER_JOIN_TOKEN_PREFIX, plen) ||
	    strlen(text) != plen + TOKEN_B64_LEN)
		return -EINVAL;
	if (b64_decode(text + plen, TOKEN_B64_LEN, bin, sizeof(bin)) == 0 && bin[0] == TOKEN_VERSION &&
	    inet_ntop(AF_INET, bin + 1, host, sizeof(host)) && (bin[5] | bin[6])) {
		snprintf(t->addr, sizeof(t->addr), "%s:%u", host, (unsigned)bin[5] << 8 | bin[6]);
		memcpy(t->secret, bin + 7, CLUSTER_JOIN_SECRET_LEN);
		memcpy(t->ca_fp, bin + 7 + CLUSTER_JOIN_SECRET_LEN, CLUSTER_JOIN_FP_LEN);
		rc = 0;
	}
	OPENSSL_cleanse(bin, sizeof(bin));
	return rc;
}

/* ---- the store ---- */

static int store_lock(const char *dir)
{
	char p[4096];
	int fd, rc;

	if ((rc = cluster_pki_path(dir, STORE_LOCK, p, sizeof(p))) < 0)
		return rc;
	fd = open(p, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
	if (fd < 0)
		return -errno;
	/* flock: per open file description, so threads of one process exclude each other
	 * as processes do (a CLI issuing a token while the node consumes one). */
	while (flock(fd, LOCK_EX) < 0) {
		if (errno != EINTR) {
			rc = -errno;
			close(fd);
			return rc;
		}
	}
	return fd;
}

static void store_unlock(int fd)
{
	flock(fd, LOCK_UN);
	close(fd);
}

/* The entries of dir's store (none when there is no file). Lines that do not parse are
 * skipped: they match no secret, so a damaged store refuses rather than admits. */
static int store_read(const char *dir, struct store *s)
{
	char p[4096], line[160];
	FILE *f;
	int rc;

	s->n = 0;
	if ((rc = cluster_pki_path(dir, CLUSTER_JOIN_STORE, p, sizeof(p))) < 0)
		return rc;
	if (!(f = fopen(p, "re")))
		return errno == ENOENT ? 0 : -errno;
	while (s->n < STORE_ENTRIES && fgets(line, sizeof(line), f)) {
		struct entry *e = &s->e[s->n];
		char hex[65];
		int64_t exp;
		int used;

		if (sscanf(line, "%64s %" SCNd64 " %d", hex, &exp, &used) == 3 && strlen(hex) == 64 &&
		    hex_decode(e->hash, sizeof(e->hash), hex, 64) == 32 && (used == 0 || used == 1)) {
			e->expires = exp;
			e->used = used;
			s->n++;
		}
	}
	fclose(f);
	return 0;
}

/* Write the entries back (0600, renamed into place), dropping the long-expired ones. */
static int store_write(const char *dir, const struct store *s, int64_t now)
{
	char buf[STORE_ENTRIES * 96];
	size_t len = 0;

	for (unsigned i = 0; i < s->n; i++) {
		const struct entry *e = &s->e[i];
		char hex[65];

		if (e->expires + STORE_KEEP_S < now)
			continue;
		for (int k = 0; k < 32; k++) {
			hex[2 * k] = hex_char(e->hash[k] >> 4, false);
			hex[2 * k + 1] = hex_char(e->hash[k], false);
		}
		hex[64] = '\0';
		len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s %" PRId64 " %d\n", hex,
					e->expires, e->used ? 1 : 0);
	}
	return cluster_pki_write(dir, CLUSTER_JOIN_STORE, buf, len, 0600);
}

int cluster_join_token_new(const char *dir, const char *addr, unsigned ttl_s, char *out,
			   size_t out_size, char id[CLUSTER_JOIN_ID_LEN + 1])
{
	uint8_t bin[TOKEN_BIN_LEN];
	struct store *s;
	int64_t now = time(NULL);
	unsigned live = 0;
	int fd, rc;

	if (!dir || !addr || !out || out_size < CLUSTER_JOIN_TOKEN_MAX || !id ||
	    ttl_s > CLUSTER_JOIN_TTL_MAX)
		return -EINVAL;
	if (!ttl_s)
		ttl_s = CLUSTER_JOIN_TTL_DEFAULT;
	bin[0] = TOKEN_VERSION;
	if (addr_pack(addr, bin + 1) < 0)
		return -EINVAL;
	if ((rc = cluster_pki_ca_fingerprint(dir, bin + 7 + CLUSTER_JOIN_SECRET_LEN)) < 0)
		return rc;
	if (RAND_bytes(bin + 7, CLUSTER_JOIN_SECRET_LEN) != 1)
		return -EIO;
	if (!(s = malloc(sizeof(*s)))) {
		rc = -ENOMEM;
		goto out;
	}
	if ((fd = store_lock(dir)) < 0) {
		rc = fd;
		goto out;
	}
	if ((rc = store_read(dir, s)) == 0) {
		for (unsigned i = 0; i < s->n; i++)
			live += s->e[i].expires >= now && !s->e[i].used;
		if (live >= CLUSTER_JOIN_STORE_MAX || s->n == STORE_ENTRIES)
			rc = -ENOSPC;
	}
	if (rc == 0) {
		sha256(bin + 7, CLUSTER_JOIN_SECRET_LEN, s->e[s->n].hash);
		s->e[s->n].expires = now + ttl_s;
		s->e[s->n++].used = false;
		rc = store_write(dir, s, now);
	}
	store_unlock(fd);
	if (rc == 0) {
		memcpy(out, CLUSTER_JOIN_TOKEN_PREFIX, strlen(CLUSTER_JOIN_TOKEN_PREFIX));
		b64_encode(bin, sizeof(bin), out + strlen(CLUSTER_JOIN_TOKEN_PREFIX));
		cluster_join_token_id(bin + 7, id);
	}
out:
	free(s);
	OPENSSL_cleanse(bin, sizeof(bin));
	return rc;
}

int cluster_join_token_check(const char *dir, const uint8_t secret[CLUSTER_JOIN_SECRET_LEN],
			     bool consume)
{
	struct store *s = malloc(sizeof(*s));
	int64_t now = time(NULL);
	uint8_t h[32];
	int fd, rc, hit = -1;

	if (!s)
		return -ENOMEM;
	if ((fd = store_lock(dir)) < 0) {
		free(s);
		return fd;
	}
	sha256(secret, CLUSTER_JOIN_SECRET_LEN, h);
	rc = store_read(dir, s);
	/* Every entry compared in constant time: how long the search took says nothing of
	 * which entry (or how much of one) matched. */
	for (unsigned i = 0; rc == 0 && i < s->n; i++)
		if (CRYPTO_memcmp(s->e[i].hash, h, sizeof(h)) == 0)
			hit = (int)i;
	if (rc == 0)
		rc = hit < 0 ? -ENOENT : s->e[hit].used ? -EALREADY :
		     s->e[hit].expires < now ? -EKEYEXPIRED : 0;
	if (rc == 0 && consume) {
		s->e[hit].used = true;
		rc = store_write(dir, s, now);
	}
	store_unlock(fd);
	free(s);
	return rc;
}

void cluster_join_audit(bool ok, const char *action, const char *fmt, ...)
{
	char detail[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(detail, sizeof(detail), fmt, ap);
	va_end(ap);
	/* A fixed prefix, so that membership changes can be picked out of the log. */
	log_msg(ok ? LOGL_INFO : LOGL_WARN, "cluster", NULL, "audit cluster: %s %s", action, detail);
}

int cluster_join_prepare(const struct conf *c)
{
	const char *dir = c->cluster.dir, *tok = c->cluster.join_token;
	char err[256], host[CLUSTER_PKI_NAME_MAX + 1] = "";
	struct cluster_join_token t;
	char id[CLUSTER_JOIN_ID_LEN + 1] = "-";
	int rc;

	if (!c->cluster.node_id || !tok[0])
		return 0;
	if (cluster_pki_present(dir)) {
		log_info("cluster", "node %llu: cluster.join_token not used: %s/%s holds this node's certificate "
			 "(enrolled before); the token can be removed from the config",
			 (unsigned long long)c->cluster.node_id, dir, CLUSTER_PKI_SUBDIR);
		return 0;
	}
	if (cluster_join_token_parse(tok, &t) == 0)
		cluster_join_token_id(t.secret, id);
	OPENSSL_cleanse(&t, sizeof(t));
	/* The certificate's CN: this host's name, as `solocore cluster init` gives node 1. */
	if (gethostname(host, sizeof(host) - 1) < 0 || !host[0])
		snprintf(host, sizeof(host), "node%llu", (unsigned long long)c->cluster.node_id);
	rc = cluster_join_enroll(dir, tok, host, c->cluster.node_id, c->cluster.address, 0, err, sizeof(err));
	cluster_join_audit(rc == 0, rc == 0 ? "enrolled:" : "enrollment failed:", "node %llu at %s as '%s' "
			   "token %s: %s", (unsigned long long)c->cluster.node_id, c->cluster.address, host, id,
			   rc == 0 ? "certificate and cluster CA written" : err);
	return rc;
}
