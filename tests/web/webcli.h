/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * Test harness for web/: a server on 127.0.0.1 (ephemeral port) with a real
 * SQLite file in a temp dir and a UDM store, its ev loop on a thread; and
 * blocking clients: HTTP/1.1 (responses parsed with http-parser), HTTP/2
 * (nghttp2 client session), both optionally over TLS (OpenSSL).
 */
#ifndef TESTS_WEB_WEBCLI_H
#define TESTS_WEB_WEBCLI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <openssl/ssl.h>

#include "common/conf.h"
#include "web/web.h"

#define TOK_ADMIN "admin-token-0123456789"
#define TOK_OP    "operator-token-abcdef"
#define TOK_RO    "readonly-token-xyz"

struct srv {
	char dir[200];
	char dbpath[300];
	struct conf conf;
	struct ev_loop *loop;
	struct db *db;
	struct udm *udm;
	struct web *web;
	uint16_t port;
	bool running;
	unsigned long thread;
	volatile int stop;
};

struct srv_opts {
	bool no_tokens;               /* leave the config-less default */
	const struct web_limits *lim; /* NULL: defaults */
	bool tls;                     /* make a self-signed cert and serve TLS */
	uint32_t udm_cap;             /* UDM store size, 0: 4096 */
	bool first_admin;             /* web_limits.first_admin (default off here) */
	unsigned kdf_iter;            /* PBKDF2 iterations for new users, 0: 1000 */
};

/* ---- the backend under test: a SQLite file (default) or a dqlite node (issue 20) ----
 *
 * A test binary whose main() calls webcli_backend_init(argc, argv) and is run
 * with --dqlite as argv[1] starts one real dqlite node in-process (node id 1,
 * an empty data dir: a one-voter cluster on 127.0.0.1, a free port), and each
 * srv_start() opens a database of its own on it, named after the server's
 * temp dir (srv_db_name); without it srv_start() opens s->dbpath, a SQLite
 * file. s->dbpath is set either way: on dqlite db_open(s->dbpath) (the
 * "restart" of a test) reopens that server's dqlite database, see below.
 * Tests of what only a local file has (backup/restore downloads, the file
 * itself) call WEBT_FILE_ONLY(why) first: on dqlite they print why and are
 * reported SKIPPED by cmocka, never as passed.
 */
struct db;
/* From main: 0, or -1 (message printed) when the dqlite node does not come up. */
int webcli_backend_init(int argc, char **argv);
void webcli_backend_fini(void);
bool webcli_dqlite(void);
/* "host:port" of the in-process node ("" on SQLite). */
const char *webcli_dqlite_addr(void);
/* The dqlite database name of a server's temp dir: its last component + ".db". */
const char *srv_db_name(const char *dir, char *buf, size_t n);
/* db_open() on the backend under test: on dqlite, a path "<srv dir>/solocore.db" opens
 * the database of that server (srv_db_name); any other path, and SQLite, db_open(). */
int webcli_db_open(const char *path, struct db **out);
#ifndef WEBCLI_REAL_DB_OPEN
#define db_open(path, out) webcli_db_open(path, out)
#endif

#define WEBT_FILE_ONLY(why) do { \
	if (webcli_dqlite()) { \
		printf("SKIP on dqlite: %s\n", why); \
		fflush(stdout); \
		skip(); \
	} \
} while (0)

/* Set up and start the loop thread. Fails the test on error. */
void srv_start(struct srv *s, const struct srv_opts *o);
/* Stop the thread only (the loop is idle afterwards: safe to call web_stop). */
void srv_halt(struct srv *s);
/* Start the loop thread again after srv_halt(). */
void srv_resume(struct srv *s);
/* Everything: thread, web, udm, db, temp dir. */
void srv_free(struct srv *s);

struct cli {
	int fd;
	SSL_CTX *ctx;
	SSL *ssl;
	void *h2;    /* nghttp2 client session, made by the first h2_req() */
	void *h2x;
	const char *cookie;  /* h2_req(): "cookie" / "x-csrf-token" headers when set */
	const char *csrf;
	char rbuf[16384];   /* bytes read past the end of the last HTTP/1.1 response */
	size_t rlen;
};

/* alpn: NULL (no TLS), "" (TLS, no ALPN), "h2" or "http/1.1". */
int cli_connect(struct cli *c, uint16_t port, const char *alpn);
int cli_write(struct cli *c, const void *p, size_t n);
/* >0 bytes, 0 EOF, <0 error; waits at most 10 s. */
int cli_read(struct cli *c, void *p, size_t n);
void cli_close(struct cli *c);

struct resp {
	int status;
	char allow[128];
	char ctype[128];
	char csp[256];
	char set_cookie[256];
	int retry_after;
	char *body;      /* NUL-terminated, malloc'd */
	size_t len;
	bool keep_alive;
};

void resp_free(struct resp *r);
/* Read one HTTP/1.1 response. 0, or -1 (EOF/error before a full response). */
int h1_read(struct cli *c, struct resp *r);
/* method path [token] [body] on c (keep-alive). 0 or -1. */
int h1_req(struct cli *c, const char *method, const char *path, const char *token,
	   const char *body, struct resp *r);
/* The same on a fresh connection to port. Returns the status or -1. */
int h1(uint16_t port, const char *method, const char *path, const char *token, const char *body,
       struct resp *r);

/* A request on a fresh connection with extra header lines ("Name: v\r\n"...)
 * and a body of blen bytes (body NULL: none). Returns the status or -1. */
int h1x(uint16_t port, const char *method, const char *path, const char *extra, const void *body,
	size_t blen, struct resp *r);

/* One HTTP/2 request on c (after cli_connect; prior knowledge or ALPN h2). 0 or -1. */
int h2_req(struct cli *c, const char *method, const char *path, const char *token,
	   const char *body, struct resp *r);

/* ---- checks shared by the tests ---- */

#define K1 "465B5CE8B199B49FAA5F0A2EE238A6BC"
#define OPC1 "E8ED289DEBA952E4283B54E88E6183CA"
/* A complete subscriber 001010000000001 (K1/OPC1, one slice, one DNN). */
extern const char webcli_sub1[];

struct json_t;
/* The body as JSON (fails the test if it is not). */
struct json_t *jbody(const struct resp *r);
/* The response of m path as JSON (NULL for a 204), after checking its status is want. */
struct json_t *req_json(struct srv *s, const char *m, const char *path, const char *tok,
			const char *body, int want);
/* Status and, for errors, {"error": non-empty, "field": field} (field NULL: not checked). */
void expect_err(const struct resp *r, int status, const char *field);
/* h1() on a fresh connection; fails the test on a transport error. Returns the status. */
int do_req(struct srv *s, const char *m, const char *path, const char *tok, const char *body,
	   struct resp *r);

#endif
