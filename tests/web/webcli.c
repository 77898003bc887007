/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* Test harness for web/: see webcli.h. */
#define WEBCLI_REAL_DB_OPEN 1   /* this file opens the real db_open() */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <time.h>
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <http_parser.h>
#include <nghttp2/nghttp2.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/pem.h>
#include <openssl/x509.h>
#include <jansson.h>

#include <dqlite.h>

#include "common/crypto/crypto.h"
#include "common/ev.h"
#include "db/cluster.h"
#include "db/db.h"
#include "db/dqlite_client.h"
#include "udm/udm.h"
#include "webcli.h"

/* ---- backend under test ---- */

static struct {
	bool dqlite;
	struct cluster *node;          /* node 1 as solocore runs it: behind mutual TLS (issue 31) */
	char addr[64];
	char dir[200];
	unsigned seq;      /* makes each server's temp dir, so its database name, unique */
} be;

bool webcli_dqlite(void) { return be.dqlite; }
const char *webcli_dqlite_addr(void) { return be.addr; }

/* A TCP port on 127.0.0.1 nobody listens on right now. */
static int free_port(void)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t sl = sizeof(sa);
	int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 ||
	    getsockname(fd, (struct sockaddr *)&sa, &sl) < 0) {
		perror("free_port");
		abort();
	}
	close(fd);
	return ntohs(sa.sin_port);
}

int webcli_backend_init(int argc, char **argv)
{
	be.dqlite = argc > 1 && !strcmp(argv[1], "--dqlite");
	if (!be.dqlite) {
		printf("db backend: sqlite (a file per server)\n");
		return 0;
	}
	snprintf(be.dir, sizeof(be.dir), "%s/webtest-dqlite.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(be.dir)) {
		perror("mkdtemp");
		return -1;
	}
	snprintf(be.addr, sizeof(be.addr), "127.0.0.1:%d", free_port());
	/* cluster_start: node 1 on an empty dir makes the CA and its certificate, bootstraps,
	 * and points this process's dqlite clients (the web's database) at that certificate. */
	struct cluster_params p = { .node_id = 1, .address = be.addr, .dir = be.dir };
	int rc = cluster_start(&p, &be.node);
	if (rc < 0) {
		fprintf(stderr, "FAIL: dqlite node %s does not start: %s\n", be.addr, strerror(-rc));
		return -1;
	}
	for (int i = 0; i < 200; i++) {   /* <= 10 s to elect itself */
		struct dqlc *c;
		char leader[DQLC_ADDR_MAX] = "";

		if (dqlc_connect(be.addr, 1000, &c) == 0) {
			int rc = dqlc_leader(c, NULL, leader, sizeof(leader));

			dqlc_close(c);
			if (rc == 0 && leader[0]) {
				printf("db backend: dqlite (node 1 at %s, a database per server)\n", be.addr);
				fflush(stdout);
				return 0;
			}
		}
		nanosleep(&(struct timespec){ 0, 50 * 1000 * 1000 }, NULL);
	}
	fprintf(stderr, "FAIL: dqlite node %s: no leader after 10 s\n", be.addr);
	return -1;
}

void webcli_backend_fini(void)
{
	char cmd[300];

	if (!be.node)
		return;
	cluster_stop(be.node);
	be.node = NULL;
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", be.dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", be.dir);
}

const char *srv_db_name(const char *dir, char *buf, size_t n)
{
	const char *b = strrchr(dir, '/');

	snprintf(buf, n, "%s.db", b ? b + 1 : dir);
	return buf;
}

int webcli_db_open(const char *path, struct db **out)
{
	static const char tail[] = "/solocore.db";
	size_t pl = strlen(path), tl = sizeof(tail) - 1;
	char dir[300], name[200];

	if (!be.dqlite || pl <= tl || strcmp(path + pl - tl, tail))
		return db_open(path, out);
	snprintf(dir, sizeof(dir), "%.*s", (int)(pl - tl), path);
	return db_open_dqlite(be.addr, srv_db_name(dir, name, sizeof(name)), out);
}

/* ---- server ---- */

static void *loop_thread(void *arg)
{
	struct srv *s = arg;

	while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE))
		ev_run_once(s->loop, 20);
	/* Handlers that reach the AMF (settings: CONFIGURATION UPDATE COMMANDs are NAS-protected
	 * on this thread) leave per-thread cipher contexts (common/crypto/crypto.h). */
	crypto_thread_cleanup();
	return NULL;
}

/* A self-signed P-256 certificate for CN=localhost, made with OpenSSL. */
static void make_cert(const char *certpath, const char *keypath)
{
	EVP_PKEY *pk = EVP_EC_gen("P-256");
	X509 *x = X509_new();
	X509_NAME *n;
	FILE *f;

	assert_non_null(pk);
	assert_non_null(x);
	X509_set_version(x, 2);
	ASN1_INTEGER_set(X509_get_serialNumber(x), 1);
	X509_gmtime_adj(X509_getm_notBefore(x), -60);
	X509_gmtime_adj(X509_getm_notAfter(x), 3600);
	X509_set_pubkey(x, pk);
	n = X509_get_subject_name(x);
	X509_NAME_add_entry_by_txt(n, "CN", MBSTRING_ASC, (const unsigned char *)"localhost", -1, -1, 0);
	X509_set_issuer_name(x, n);
	assert_true(X509_sign(x, pk, EVP_sha256()) > 0);
	f = fopen(certpath, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_X509(f, x), 1);
	fclose(f);
	f = fopen(keypath, "w");
	assert_non_null(f);
	assert_int_equal(PEM_write_PrivateKey(f, pk, NULL, NULL, 0, NULL, NULL), 1);
	fclose(f);
	X509_free(x);
	EVP_PKEY_free(pk);
}

void srv_start(struct srv *s, const struct srv_opts *o)
{
	static const struct srv_opts none;
	pthread_t th;
	int err = 0;

	if (!o)
		o = &none;
	memset(s, 0, sizeof(*s));
	if (be.dqlite)   /* the pid and a count: no database name comes back in this process */
		snprintf(s->dir, sizeof(s->dir), "%s/webtest.%d-%u.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid(), ++be.seq);
	else
		snprintf(s->dir, sizeof(s->dir), "%s/webtest.XXXXXX",
			 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	assert_non_null(mkdtemp(s->dir));
	snprintf(s->dbpath, sizeof(s->dbpath), "%s/solocore.db", s->dir);
	assert_int_equal(conf_defaults(&s->conf), 0);
	snprintf(s->conf.web.listen, sizeof(s->conf.web.listen), "127.0.0.1");
	s->conf.web.port = 0;
	if (o->tls) {
		snprintf(s->conf.web.tls.cert, sizeof(s->conf.web.tls.cert), "%s/cert.pem", s->dir);
		snprintf(s->conf.web.tls.key, sizeof(s->conf.web.tls.key), "%s/key.pem", s->dir);
		make_cert(s->conf.web.tls.cert, s->conf.web.tls.key);
	}
	assert_int_equal(webcli_db_open(s->dbpath, &s->db), 0);
	s->udm = udm_new(o->udm_cap ? o->udm_cap : 4096, &err);
	assert_non_null(s->udm);
	/* The network defaults udm_start() sets (the store is sized here instead, for the
	 * UDM-full tests); web/ adds subscribers with udm_add_db(), which applies them. */
	udm_set_defaults_from_conf(s->udm, &s->conf);
	s->loop = ev_loop_new(&err);
	assert_non_null(s->loop);
	{
		struct web_limits lim;

		/* The first-admin bootstrap only where a test asks for it (it
		 * turns the loopback default off); a cheap KDF keeps logins fast
		 * (the stored iteration count is what verification uses). */
		if (o->lim)
			lim = *o->lim;
		else
			web_limits_default(&lim);
		lim.first_admin = o->first_admin;
		db_user_kdf_iter(o->kdf_iter ? o->kdf_iter : 1000);
		assert_int_equal(web_start(s->loop, &s->conf, s->db, s->udm, &lim, &s->web), 0);
	}
	if (!o->no_tokens) {
		assert_int_equal(web_token_add(s->web, TOK_ADMIN, WEB_ROLE_ADMIN), 0);
		assert_int_equal(web_token_add(s->web, TOK_OP, WEB_ROLE_OPERATOR), 0);
		assert_int_equal(web_token_add(s->web, TOK_RO, WEB_ROLE_READ), 0);
	}
	s->port = web_port(s->web);
	assert_true(s->port != 0);
	assert_int_equal(pthread_create(&th, NULL, loop_thread, s), 0);
	s->thread = (unsigned long)th;
	s->running = true;
}

void srv_halt(struct srv *s)
{
	if (!s->running)
		return;
	__atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
	pthread_join((pthread_t)s->thread, NULL);
	s->running = false;
}

void srv_resume(struct srv *s)
{
	pthread_t th;

	s->stop = 0;
	assert_int_equal(pthread_create(&th, NULL, loop_thread, s), 0);
	s->thread = (unsigned long)th;
	s->running = true;
}

void srv_free(struct srv *s)
{
	char cmd[400];

	srv_halt(s);
	web_stop(s->web);
	udm_free(s->udm);
	db_close(s->db);
	ev_loop_free(s->loop);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", s->dir);
	if (system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", s->dir);
}

/* ---- checks ---- */

const char webcli_sub1[] =
	"{\"imsi\":\"001010000000001\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\","
	"\"slices\":[{\"sst\":1,\"sd\":\"010203\"}],\"dnns\":[\"internet\"],\"ambr_ul\":100000000}";

json_t *jbody(const struct resp *r)
{
	json_t *j = json_loads(r->body, 0, NULL);

	if (!j)
		fail_msg("not JSON: %s", r->body);
	return j;
}

/* Status and, for errors, {"error": non-empty, "field": field}. */
void expect_err(const struct resp *r, int status, const char *field)
{
	json_t *j;
	json_t *f;

	if (r->status != status)
		fail_msg("status %d, expected %d: %s", r->status, status, r->body);
	j = jbody(r);
	assert_true(json_is_string(json_object_get(j, "error")));
	assert_true(json_string_length(json_object_get(j, "error")) > 0);
	f = json_object_get(j, "field");
	if (field) {
		if (!json_is_string(f) || strcmp(json_string_value(f), field))
			fail_msg("field %s, expected %s: %s", json_is_string(f) ? json_string_value(f) : "(none)",
				 field, r->body);
	}
	json_decref(j);
}

int do_req(struct srv *s, const char *m, const char *path, const char *tok, const char *body,
		  struct resp *r)
{
	int st = h1(s->port, m, path, tok, body, r);

	assert_int_not_equal(st, -1);
	return st;
}

/* ---- client transport ---- */

int cli_connect(struct cli *c, uint16_t port, const char *alpn)
{
	struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons(port) };

	memset(c, 0, sizeof(*c));
	sa.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	c->fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (c->fd < 0 || connect(c->fd, (struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -1;
	setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &(int){ 1 }, sizeof(int));
	if (!alpn)
		return 0;
	c->ctx = SSL_CTX_new(TLS_client_method());
	c->ssl = c->ctx ? SSL_new(c->ctx) : NULL;
	if (!c->ssl)
		return -1;
	if (alpn[0]) {
		unsigned char wire[32];
		size_t n = strlen(alpn);

		wire[0] = (unsigned char)n;
		memcpy(wire + 1, alpn, n);
		SSL_set_alpn_protos(c->ssl, wire, (unsigned)n + 1);
	}
	SSL_set_fd(c->ssl, c->fd);
	/* Self-signed test certificate: no verification here. */
	return SSL_connect(c->ssl) == 1 ? 0 : -1;
}

int cli_write(struct cli *c, const void *p, size_t n)
{
	const uint8_t *b = p;

	while (n) {
		ssize_t k = c->ssl ? SSL_write(c->ssl, b, (int)n) : send(c->fd, b, n, MSG_NOSIGNAL);

		if (k <= 0)
			return -1;
		b += k;
		n -= (size_t)k;
	}
	return 0;
}

int cli_read(struct cli *c, void *p, size_t n)
{
	struct pollfd pfd = { .fd = c->fd, .events = POLLIN };
	int k;

	/* A liveness bound, not a speed check: a login behind a 2M-iteration
	 * PBKDF2 under ASan on a loaded 2-CPU machine can take well over 10 s. */
	if (!(c->ssl && SSL_pending(c->ssl)) && poll(&pfd, 1, 60000) <= 0)
		return -1;
	if (c->ssl) {
		k = SSL_read(c->ssl, p, (int)n);
		if (k <= 0)
			return SSL_get_error(c->ssl, k) == SSL_ERROR_ZERO_RETURN ? 0 : -1;
		return k;
	}
	k = (int)recv(c->fd, p, n, 0);
	return k < 0 && errno == ECONNRESET ? 0 : k;
}

void cli_close(struct cli *c)
{
	if (c->h2)
		nghttp2_session_del(c->h2);
	free(c->h2x);
	if (c->ssl)
		SSL_free(c->ssl);
	SSL_CTX_free(c->ctx);
	if (c->fd >= 0)
		close(c->fd);
	memset(c, 0, sizeof(*c));
	c->fd = -1;
}

/* ---- HTTP/1.1 client (responses parsed by http-parser) ---- */

void resp_free(struct resp *r)
{
	free(r->body);
	memset(r, 0, sizeof(*r));
}

struct h1p {
	struct resp *r;
	char field[64];
	int hdr;   /* 1 allow, 2 content-type, 3 content-security-policy */
	bool done;
};

static int rp_field(http_parser *p, const char *at, size_t n)
{
	struct h1p *x = p->data;

	snprintf(x->field, sizeof(x->field), "%.*s", (int)n, at);
	x->hdr = !strcasecmp(x->field, "allow") ? 1 : !strcasecmp(x->field, "content-type") ? 2
		 : !strcasecmp(x->field, "content-security-policy") ? 3
		 : !strcasecmp(x->field, "set-cookie") ? 4 : !strcasecmp(x->field, "retry-after") ? 5 : 0;
	return 0;
}

static int rp_value(http_parser *p, const char *at, size_t n)
{
	struct h1p *x = p->data;

	if (x->hdr == 1)
		snprintf(x->r->allow, sizeof(x->r->allow), "%.*s", (int)n, at);
	else if (x->hdr == 2)
		snprintf(x->r->ctype, sizeof(x->r->ctype), "%.*s", (int)n, at);
	else if (x->hdr == 3)
		snprintf(x->r->csp, sizeof(x->r->csp), "%.*s", (int)n, at);
	else if (x->hdr == 4)
		snprintf(x->r->set_cookie, sizeof(x->r->set_cookie), "%.*s", (int)n, at);
	else if (x->hdr == 5)
		x->r->retry_after = atoi(at);
	return 0;
}

static int rp_body(http_parser *p, const char *at, size_t n)
{
	struct h1p *x = p->data;
	char *b = realloc(x->r->body, x->r->len + n + 1);

	if (!b)
		return -1;
	memcpy(b + x->r->len, at, n);
	x->r->len += n;
	b[x->r->len] = 0;
	x->r->body = b;
	return 0;
}

static int rp_complete(http_parser *p)
{
	struct h1p *x = p->data;

	if (p->status_code == 100) {
		http_parser_init(p, HTTP_RESPONSE);
		p->data = x;
		return 0;
	}
	x->r->status = p->status_code;
	x->r->keep_alive = http_should_keep_alive(p);
	x->done = true;
	http_parser_pause(p, 1);
	return 0;
}

static const http_parser_settings rp_settings = {
	.on_header_field = rp_field, .on_header_value = rp_value, .on_body = rp_body,
	.on_message_complete = rp_complete,
};

/* Bytes after the end of one response (pipelining) stay in c->rbuf. */
int h1_read(struct cli *c, struct resp *r)
{
	http_parser p;
	struct h1p x = { .r = r };

	memset(r, 0, sizeof(*r));
	http_parser_init(&p, HTTP_RESPONSE);
	p.data = &x;
	while (!x.done) {
		size_t used;
		int n;

		if (!c->rlen) {
			n = cli_read(c, c->rbuf, sizeof(c->rbuf));
			if (n <= 0) {
				if (n == 0)   /* EOF ends a close-delimited body */
					http_parser_execute(&p, &rp_settings, NULL, 0);
				return x.done ? 0 : -1;
			}
			c->rlen = (size_t)n;
		}
		used = http_parser_execute(&p, &rp_settings, c->rbuf, c->rlen);
		if (!x.done && HTTP_PARSER_ERRNO(&p) != HPE_OK)
			return -1;
		memmove(c->rbuf, c->rbuf + used, c->rlen - used);
		c->rlen -= used;
	}
	if (!r->body) {
		r->body = calloc(1, 1);
		r->len = 0;
	}
	return 0;
}

int h1_req(struct cli *c, const char *method, const char *path, const char *token,
	   const char *body, struct resp *r)
{
	char head[1024];
	size_t bl = body ? strlen(body) : 0;
	int n;

	n = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: localhost\r\n", method, path);
	if (token)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Authorization: Bearer %s\r\n", token);
	if (body)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Content-Length: %zu\r\n", bl);
	n += snprintf(head + n, sizeof(head) - (size_t)n, "\r\n");
	if (cli_write(c, head, (size_t)n) < 0 || (bl && cli_write(c, body, bl) < 0))
		return -1;
	return h1_read(c, r);
}

int h1x(uint16_t port, const char *method, const char *path, const char *extra, const void *body,
	size_t blen, struct resp *r)
{
	struct cli c;
	char head[2048];
	int n, rc = -1;

	memset(r, 0, sizeof(*r));
	n = snprintf(head, sizeof(head), "%s %s HTTP/1.1\r\nHost: localhost\r\n%s", method, path,
		     extra ? extra : "");
	if (body)
		n += snprintf(head + n, sizeof(head) - (size_t)n, "Content-Length: %zu\r\n", blen);
	n += snprintf(head + n, sizeof(head) - (size_t)n, "\r\n");
	if (cli_connect(&c, port, NULL) == 0 && cli_write(&c, head, (size_t)n) == 0 &&
	    (!blen || cli_write(&c, body, blen) == 0))
		rc = h1_read(&c, r);
	cli_close(&c);
	return rc < 0 ? -1 : r->status;
}

int h1(uint16_t port, const char *method, const char *path, const char *token, const char *body,
       struct resp *r)
{
	struct cli c;
	int rc;

	memset(r, 0, sizeof(*r));
	if (cli_connect(&c, port, NULL) < 0) {
		cli_close(&c);
		return -1;
	}
	rc = h1_req(&c, method, path, token, body, r);
	cli_close(&c);
	return rc < 0 ? -1 : r->status;
}

/* ---- HTTP/2 client (nghttp2) ---- */

struct h2c {
	int32_t id;
	struct resp *r;
	const char *body;
	size_t body_len, body_off;
	bool closed;
};

static int c_header(nghttp2_session *s, const nghttp2_frame *f, const uint8_t *name, size_t nl,
		    const uint8_t *value, size_t vl, uint8_t flags, void *user)
{
	struct h2c *x = user;

	(void)s;
	(void)f;
	(void)flags;
	if (nl == 7 && !memcmp(name, ":status", 7))
		x->r->status = atoi((const char *)value);
	else if (nl == 12 && !memcmp(name, "content-type", 12))
		snprintf(x->r->ctype, sizeof(x->r->ctype), "%.*s", (int)vl, value);
	else if (nl == 23 && !memcmp(name, "content-security-policy", 23))
		snprintf(x->r->csp, sizeof(x->r->csp), "%.*s", (int)vl, value);
	else if (nl == 10 && !memcmp(name, "set-cookie", 10))
		snprintf(x->r->set_cookie, sizeof(x->r->set_cookie), "%.*s", (int)vl, value);
	return 0;
}

static int c_data(nghttp2_session *s, uint8_t flags, int32_t id, const uint8_t *d, size_t n, void *user)
{
	struct h2c *x = user;
	char *b = realloc(x->r->body, x->r->len + n + 1);

	(void)s;
	(void)flags;
	(void)id;
	if (!b)
		return NGHTTP2_ERR_CALLBACK_FAILURE;
	memcpy(b + x->r->len, d, n);
	x->r->len += n;
	b[x->r->len] = 0;
	x->r->body = b;
	return 0;
}

static int c_close(nghttp2_session *s, int32_t id, uint32_t code, void *user)
{
	struct h2c *x = user;

	(void)s;
	(void)code;
	if (id == x->id)
		x->closed = true;
	return 0;
}

static ssize_t c_body(nghttp2_session *s, int32_t id, uint8_t *buf, size_t len, uint32_t *flags,
		      nghttp2_data_source *src, void *user)
{
	struct h2c *x = user;
	size_t n = x->body_len - x->body_off;

	(void)s;
	(void)id;
	(void)src;
	if (n > len)
		n = len;
	memcpy(buf, x->body + x->body_off, n);
	x->body_off += n;
	if (x->body_off == x->body_len)
		*flags |= NGHTTP2_DATA_FLAG_EOF;
	return (ssize_t)n;
}

#define CNV(n, v) { (uint8_t *)(n), (uint8_t *)(v), strlen(n), strlen(v), NGHTTP2_NV_FLAG_NONE }

int h2_req(struct cli *c, const char *method, const char *path, const char *token,
	   const char *body, struct resp *r)
{
	nghttp2_session *s = c->h2;
	struct h2c *x = c->h2x;
	char auth[300];
	nghttp2_nv nva[7] = {
		CNV(":method", method), CNV(":path", path), CNV(":scheme", c->ssl ? "https" : "http"),
		CNV(":authority", "localhost"),
	};
	size_t nn = 4;
	nghttp2_data_provider prd = { .read_callback = c_body };

	memset(r, 0, sizeof(*r));
	if (!s) {
		nghttp2_session_callbacks *cb;

		x = calloc(1, sizeof(*x));
		if (!x)
			return -1;
		nghttp2_session_callbacks_new(&cb);
		nghttp2_session_callbacks_set_on_header_callback(cb, c_header);
		nghttp2_session_callbacks_set_on_data_chunk_recv_callback(cb, c_data);
		nghttp2_session_callbacks_set_on_stream_close_callback(cb, c_close);
		nghttp2_session_client_new(&s, cb, x);
		nghttp2_session_callbacks_del(cb);
		nghttp2_submit_settings(s, NGHTTP2_FLAG_NONE, NULL, 0);
		c->h2 = s;
		c->h2x = x;
	}
	memset(x, 0, sizeof(*x));
	x->r = r;
	x->body = body;
	x->body_len = body ? strlen(body) : 0;
	if (token) {
		snprintf(auth, sizeof(auth), "Bearer %s", token);
		nva[nn++] = (nghttp2_nv)CNV("authorization", auth);
	}
	if (c->cookie)
		nva[nn++] = (nghttp2_nv)CNV("cookie", c->cookie);
	if (c->csrf)
		nva[nn++] = (nghttp2_nv)CNV("x-csrf-token", c->csrf);
	x->id = nghttp2_submit_request(s, NULL, nva, nn, body ? &prd : NULL, NULL);
	if (x->id < 0)
		return -1;
	while (!x->closed) {
		const uint8_t *p;
		ssize_t n;
		uint8_t buf[16384];
		int k;

		while ((n = nghttp2_session_mem_send(s, &p)) > 0)
			if (cli_write(c, p, (size_t)n) < 0)
				return -1;
		if (n < 0)
			return -1;
		if (x->closed)
			break;
		k = cli_read(c, buf, sizeof(buf));
		if (k <= 0)
			return -1;
		if (nghttp2_session_mem_recv(s, buf, (size_t)k) < 0)
			return -1;
	}
	if (!r->body)
		r->body = calloc(1, 1);
	return r->status ? 0 : -1;
}

json_t *req_json(struct srv *s, const char *m, const char *path, const char *tok, const char *body,
		 int want)
{
	struct resp r;
	json_t *j;

	if (do_req(s, m, path, tok, body, &r) != want)
		fail_msg("%s %s: %d, wanted %d: %s", m, path, r.status, want, r.body ? r.body : "");
	j = want == 204 ? NULL : jbody(&r);
	resp_free(&r);
	return j;
}
