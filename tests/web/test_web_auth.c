/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web/ security over HTTP/1.1 on real sockets: users and roles, login with a
 * session cookie (flags), CSRF rejection, API tokens (create, use, revoke),
 * login rate limit (429 + Retry-After), the audit log, backup and staged
 * restore, the first admin printed on first start.
 */
#include <stdarg.h>
#include <setjmp.h>
#include <stddef.h>
#include <cmocka.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "db/db.h"
#include "webcli.h"

#define PW "correct horse battery"

/* POST /api/v1/users as the static admin token; expects 201. */
static void mkuser(struct srv *s, const char *name, const char *role)
{
	char body[256];
	struct resp r;

	snprintf(body, sizeof(body), "{\"name\":\"%s\",\"role\":\"%s\",\"password\":\"" PW "\"}", name, role);
	assert_int_equal(do_req(s, "POST", "/api/v1/users", TOK_ADMIN, body, &r), 201);
	resp_free(&r);
}

struct sess {
	char cookie[160];   /* "Cookie: solocore_session=...\r\n" */
	char csrf[200];     /* "X-CSRF-Token: ...\r\n" */
	char both[360];
};

static void login(struct srv *s, const char *user, const char *pw, struct sess *out)
{
	char body[256];
	struct resp r;
	json_t *j;

	snprintf(body, sizeof(body), "{\"user\":\"%s\",\"password\":\"%s\"}", user, pw);
	assert_int_equal(h1x(s->port, "POST", "/api/v1/login", NULL, body, strlen(body), &r), 200);
	/* The cookie the browser keeps: not readable by scripts, never sent cross-site. */
	assert_non_null(strstr(r.set_cookie, "solocore_session="));
	assert_non_null(strstr(r.set_cookie, "HttpOnly"));
	assert_non_null(strstr(r.set_cookie, "SameSite=Strict"));
	assert_null(strstr(r.set_cookie, "Secure"));   /* plain HTTP here (TLS: test_web_h2tls) */
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "user")), user);
	assert_int_equal(strlen(json_string_value(json_object_get(j, "csrf"))), 64);
	snprintf(out->cookie, sizeof(out->cookie), "Cookie: %.*s\r\n",
		 (int)strcspn(r.set_cookie, ";"), r.set_cookie);
	snprintf(out->csrf, sizeof(out->csrf), "X-CSRF-Token: %s\r\n",
		 json_string_value(json_object_get(j, "csrf")));
	snprintf(out->both, sizeof(out->both), "%s%s", out->cookie, out->csrf);
	json_decref(j);
	resp_free(&r);
}

static int req(struct srv *s, const char *m, const char *path, const char *extra, const char *body,
	       struct resp *r)
{
	int st = h1x(s->port, m, path, extra, body, body ? strlen(body) : 0, r);

	assert_true(st > 0);
	return st;
}

static void test_login_cookie_csrf(void **state)
{
	struct srv s;
	struct resp r;
	struct sess a;
	json_t *j;

	(void)state;
	srv_start(&s, NULL);
	mkuser(&s, "alice", "admin");
	/* Wrong password, unknown user: the same 401; missing fields: 400. */
	assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, "{\"user\":\"alice\",\"password\":\"nope-nope\"}", &r), 401);
	expect_err(&r, 401, "password");
	assert_string_equal(r.set_cookie, "");
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, "{\"user\":\"bob\",\"password\":\"nope-nope\"}", &r), 401);
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, "{\"user\":\"alice\"}", &r), 400);
	expect_err(&r, 400, "password");
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, "[1]", &r), 400);
	expect_err(&r, 400, "user");
	resp_free(&r);

	login(&s, "alice", PW, &a);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a.cookie, NULL, &r), 200);
	j = jbody(&r);
	assert_string_equal(json_string_value(json_object_get(j, "user")), "alice");
	assert_string_equal(json_string_value(json_object_get(j, "role")), "admin");
	json_decref(j);
	resp_free(&r);
	/* GET with the cookie alone is fine; a change without the CSRF token is not. */
	assert_int_equal(req(&s, "GET", "/api/v1/subscribers", a.cookie, NULL, &r), 200);
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/subscribers", a.cookie, webcli_sub1, &r), 403);
	expect_err(&r, 403, "X-CSRF-Token");
	resp_free(&r);
	{
		char bad[400];

		snprintf(bad, sizeof(bad), "%sX-CSRF-Token: %064d\r\n", a.cookie, 7);
		assert_int_equal(req(&s, "POST", "/api/v1/subscribers", bad, webcli_sub1, &r), 403);
		expect_err(&r, 403, "X-CSRF-Token");
		resp_free(&r);
	}
	assert_int_equal(req(&s, "GET", "/api/v1/subscribers/001010000000001", a.cookie, NULL, &r), 404);
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/subscribers", a.both, webcli_sub1, &r), 201);
	resp_free(&r);
	/* A cookie that is not a session is no login at all. */
	assert_int_equal(req(&s, "GET", "/api/v1/subscribers", "Cookie: solocore_session=abc\r\n", NULL, &r), 401);
	resp_free(&r);
	/* Logout ends the session and clears the cookie. */
	assert_int_equal(req(&s, "POST", "/api/v1/logout", a.both, NULL, &r), 204);
	assert_non_null(strstr(r.set_cookie, "Max-Age=0"));
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a.cookie, NULL, &r), 401);
	resp_free(&r);
	srv_free(&s);
}

static void test_roles(void **state)
{
	struct srv s;
	struct resp r;
	struct sess ro, op;

	(void)state;
	srv_start(&s, NULL);
	mkuser(&s, "rita", "read");
	mkuser(&s, "olga", "operator");
	login(&s, "rita", PW, &ro);
	login(&s, "olga", PW, &op);
	/* read-only: views yes, every write 403. */
	assert_int_equal(req(&s, "GET", "/api/v1/subscribers", ro.cookie, NULL, &r), 200);
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/subscribers", ro.both, webcli_sub1, &r), 403);
	expect_err(&r, 403, NULL);
	resp_free(&r);
	/* operator: subscribers yes, users / tokens / audit / backup no. */
	assert_int_equal(req(&s, "POST", "/api/v1/subscribers", op.both, webcli_sub1, &r), 201);
	resp_free(&r);
	assert_int_equal(req(&s, "DELETE", "/api/v1/subscribers/001010000000001", ro.both, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/users", op.both,
			     "{\"name\":\"x\",\"role\":\"admin\",\"password\":\"12345678\"}", &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/users", op.cookie, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/audit", op.cookie, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/backup", op.cookie, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/tokens", TOK_OP, "{\"name\":\"t\",\"role\":\"read\"}", &r), 403);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/restore", TOK_RO, "x", &r), 403);
	resp_free(&r);
	/* No credentials at all (tokens are configured): 401. */
	assert_int_equal(req(&s, "GET", "/api/v1/users", NULL, NULL, &r), 401);
	resp_free(&r);
	srv_free(&s);
}

static void test_tokens(void **state)
{
	struct srv s;
	struct resp r;
	char auth[160], tok[DB_TOKEN_LEN + 1], path[64];
	json_int_t id;
	json_t *j;

	(void)state;
	srv_start(&s, NULL);
	assert_int_equal(do_req(&s, "POST", "/api/v1/tokens", TOK_ADMIN, "{\"name\":\"ci\",\"role\":\"root\"}", &r), 400);
	expect_err(&r, 400, "role");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/tokens", TOK_ADMIN, "{\"name\":\"a b\",\"role\":\"read\"}", &r), 400);
	expect_err(&r, 400, "name");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/tokens", TOK_ADMIN, "nope", &r), 400);
	expect_err(&r, 400, "body");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/tokens", TOK_ADMIN, "{\"name\":\"ci\",\"role\":\"operator\"}", &r), 201);
	j = jbody(&r);
	snprintf(tok, sizeof(tok), "%s", json_string_value(json_object_get(j, "token")));
	id = json_integer_value(json_object_get(j, "id"));
	json_decref(j);
	resp_free(&r);
	assert_int_equal(strlen(tok), DB_TOKEN_LEN);
	assert_true(id > 0);
	/* The token works with its role... */
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", tok, webcli_sub1, &r), 201);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/users", tok, NULL, &r), 403);
	resp_free(&r);
	/* ...is listed without its secret... */
	assert_int_equal(do_req(&s, "GET", "/api/v1/tokens", TOK_ADMIN, NULL, &r), 200);
	assert_null(strstr(r.body, tok));
	assert_null(strstr(r.body, "\"token\""));
	assert_non_null(strstr(r.body, "\"ci\""));
	resp_free(&r);
	/* ...and is stored hashed only. */
	srv_halt(&s);
	{
		struct db_token t;

		assert_int_equal(db_token_check(s.db, tok, &t), 0);
		assert_string_equal(t.name, "ci");
		assert_int_equal(t.role, DB_ROLE_OPERATOR);
	}
	srv_resume(&s);
	snprintf(path, sizeof(path), "/api/v1/tokens/%lld", (long long)id);
	assert_int_equal(do_req(&s, "DELETE", path, TOK_ADMIN, NULL, &r), 204);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers", tok, NULL, &r), 401);
	expect_err(&r, 401, "Authorization");
	resp_free(&r);
	assert_int_equal(do_req(&s, "DELETE", path, TOK_ADMIN, NULL, &r), 404);
	resp_free(&r);
	/* Issue 15 item 9: the next token does not take the deleted one's id. */
	assert_int_equal(do_req(&s, "POST", "/api/v1/tokens", TOK_ADMIN, "{\"name\":\"ci2\",\"role\":\"read\"}", &r), 201);
	j = jbody(&r);
	assert_true(json_integer_value(json_object_get(j, "id")) > id);
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "DELETE", "/api/v1/tokens/x1", TOK_ADMIN, NULL, &r), 400);
	expect_err(&r, 400, "id");
	resp_free(&r);
	(void)auth;
	srv_free(&s);
}

/* Issue 15 item 3: a demoted admin's cookie and the admin token it made lose
 * admin rights at once; a password change ends its sessions; a token's
 * holder cannot end its owner's browser sessions through /logout. */
static void test_rights_change(void **state)
{
	struct srv s;
	struct resp r;
	struct sess a, a2;
	char tok[DB_TOKEN_LEN + 1], extra[512];
	json_t *j;

	(void)state;
	srv_start(&s, NULL);
	mkuser(&s, "dora", "admin");
	mkuser(&s, "adam", "admin");   /* not the last admin: she may be demoted */
	login(&s, "dora", PW, &a);
	login(&s, "dora", PW, &a2);
	/* As admin: an admin token. */
	assert_int_equal(req(&s, "POST", "/api/v1/tokens", a.both, "{\"name\":\"dt\",\"role\":\"admin\"}", &r), 201);
	j = jbody(&r);
	snprintf(tok, sizeof(tok), "%s", json_string_value(json_object_get(j, "token")));
	json_decref(j);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/users", tok, NULL, &r), 200);
	resp_free(&r);
	/* Demoted to read by another admin. */
	assert_int_equal(do_req(&s, "PUT", "/api/v1/users/dora", TOK_ADMIN, "{\"role\":\"read\"}", &r), 200);
	resp_free(&r);
	/* The cookie is a read session now: no user creation, no admin views. */
	assert_int_equal(req(&s, "POST", "/api/v1/users", a.both,
			     "{\"name\":\"evil\",\"role\":\"admin\",\"password\":\"" PW "\"}", &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/users", a.cookie, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a.cookie, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"read\""));
	resp_free(&r);
	/* The token she made is limited to her role now. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/users", tok, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", tok, webcli_sub1, &r), 403);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers", tok, NULL, &r), 200);
	resp_free(&r);
	/* The token's holder logs out: her browser sessions go on. */
	assert_int_equal(do_req(&s, "POST", "/api/v1/logout", tok, NULL, &r), 204);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a.cookie, NULL, &r), 200);
	resp_free(&r);
	/* Her own logout ends that session only. */
	assert_int_equal(req(&s, "POST", "/api/v1/logout", a2.both, NULL, &r), 204);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a2.cookie, NULL, &r), 401);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a.cookie, NULL, &r), 200);
	resp_free(&r);
	/* A new password ends the sessions made with the old one. */
	assert_int_equal(do_req(&s, "PUT", "/api/v1/users/dora", TOK_ADMIN, "{\"password\":\"another pw 2\"}", &r), 200);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", a.cookie, NULL, &r), 401);
	resp_free(&r);
	/* Login CSRF: a form's Content-Type or another site's Origin is refused. */
	{
		static const char lb[] = "{\"user\":\"adam\",\"password\":\"" PW "\"}";

		assert_int_equal(h1x(s.port, "POST", "/api/v1/login", "Content-Type: text/plain\r\n", lb,
				     sizeof(lb) - 1, &r), 415);
		expect_err(&r, 415, "Content-Type");
		resp_free(&r);
		assert_int_equal(h1x(s.port, "POST", "/api/v1/login",
				     "Content-Type: application/x-www-form-urlencoded\r\n", lb, sizeof(lb) - 1, &r), 415);
		resp_free(&r);
		assert_int_equal(h1x(s.port, "POST", "/api/v1/login",
				     "Content-Type: application/json\r\nOrigin: https://evil.example\r\n", lb,
				     sizeof(lb) - 1, &r), 403);
		expect_err(&r, 403, "Origin");
		resp_free(&r);
		assert_int_equal(h1x(s.port, "POST", "/api/v1/login",
				     "Content-Type: application/json; charset=utf-8\r\nOrigin: http://localhost\r\n",
				     lb, sizeof(lb) - 1, &r), 200);
		resp_free(&r);
	}
	/* 64 logins of a read-only user do not push another user's session out. */
	mkuser(&s, "rory", "read");
	login(&s, "adam", PW, &a2);
	for (int i = 0; i < 64; i++) {
		struct sess x;

		login(&s, "rory", PW, &x);
	}
	assert_int_equal(req(&s, "GET", "/api/v1/users", a2.cookie, NULL, &r), 200);
	resp_free(&r);
	/* Deleted: her token ends too. */
	assert_int_equal(do_req(&s, "DELETE", "/api/v1/users/dora", TOK_ADMIN, NULL, &r), 204);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers", tok, NULL, &r), 401);
	resp_free(&r);
	(void)extra;
	srv_free(&s);
}

static void test_login_rate_limit(void **state)
{
	struct srv s;
	struct srv_opts o = { 0 };
	struct web_limits lim;
	struct resp r;
	struct sess b;
	static const char bad[] = "{\"user\":\"alice\",\"password\":\"wrong-wrong\"}";
	static const char good[] = "{\"user\":\"alice\",\"password\":\"" PW "\"}";

	(void)state;
	web_limits_default(&lim);
	lim.login_max_fails = 3;
	o.lim = &lim;
	srv_start(&s, &o);
	mkuser(&s, "alice", "admin");
	mkuser(&s, "bert", "read");
	for (int i = 0; i < 3; i++) {
		assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, bad, &r), 401);
		resp_free(&r);
	}
	/* Locked: even the right password is refused, with a Retry-After. */
	assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, good, &r), 429);
	expect_err(&r, 429, "user");
	assert_true(r.retry_after > 0 && r.retry_after <= 300);
	assert_string_equal(r.set_cookie, "");
	resp_free(&r);
	/* Another name is not locked. */
	login(&s, "bert", PW, &b);
	assert_int_equal(do_req(&s, "GET", "/api/v1/audit?limit=20", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"login refused\""));
	assert_non_null(strstr(r.body, "\"login failed\""));
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/metrics", TOK_RO, NULL, &r), 200);
	assert_non_null(strstr(r.body, "solocore_web_logins_total{result=\"failed\"} 3\n"));
	assert_non_null(strstr(r.body, "solocore_web_logins_total{result=\"rate_limited\"} 1\n"));
	assert_non_null(strstr(r.body, "solocore_web_logins_total{result=\"ok\"} 1\n"));
	resp_free(&r);
	srv_free(&s);
}

static void test_audit(void **state)
{
	struct srv s;
	struct resp r;
	struct sess a;
	json_t *j, *items, *e;
	bool saw_sub = false, saw_login = false;
	size_t i;

	(void)state;
	srv_start(&s, NULL);
	mkuser(&s, "alice", "admin");
	login(&s, "alice", PW, &a);
	assert_int_equal(req(&s, "POST", "/api/v1/subscribers", a.both, webcli_sub1, &r), 201);
	resp_free(&r);
	/* A refused change is no change: not audited. */
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_RO, webcli_sub1, &r), 403);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/audit", a.cookie, NULL, &r), 200);
	j = jbody(&r);
	items = json_object_get(j, "items");
	assert_true(json_array_size(items) >= 3);
	json_array_foreach(items, i, e) {
		const char *who = json_string_value(json_object_get(e, "who"));
		const char *act = json_string_value(json_object_get(e, "action"));

		assert_true(json_integer_value(json_object_get(e, "time")) > 1600000000);
		if (!strcmp(act, "POST /api/v1/subscribers")) {
			assert_string_equal(who, "alice");
			assert_string_equal(json_string_value(json_object_get(e, "detail")), "201");
			saw_sub = true;
		}
		if (!strcmp(act, "login"))
			saw_login = true;
		assert_string_not_equal(who, "token:ro");
	}
	/* Newest first: the subscriber creation is the first entry. */
	assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "action")),
			    "POST /api/v1/subscribers");
	assert_true(saw_sub && saw_login);
	/* The user creation by the static admin token. */
	assert_non_null(strstr(r.body, "\"who\":\"token:static\",\"action\":\"POST /api/v1/users\""));
	json_decref(j);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/audit?limit=1", a.cookie, NULL, &r), 200);
	j = jbody(&r);
	assert_int_equal(json_array_size(json_object_get(j, "items")), 1);
	json_decref(j);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/audit?limit=0", a.cookie, NULL, &r), 400);
	expect_err(&r, 400, "limit");
	resp_free(&r);
	srv_free(&s);
}

static void test_users_crud(void **state)
{
	struct srv s;
	struct resp r;
	struct sess o;

	(void)state;
	srv_start(&s, NULL);
	mkuser(&s, "alice", "admin");
	mkuser(&s, "olga", "operator");
	assert_int_equal(do_req(&s, "POST", "/api/v1/users", TOK_ADMIN,
				"{\"name\":\"olga\",\"role\":\"read\",\"password\":\"12345678\"}", &r), 409);
	expect_err(&r, 409, "name");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/users", TOK_ADMIN,
				"{\"name\":\"x/y\",\"role\":\"read\",\"password\":\"12345678\"}", &r), 400);
	expect_err(&r, 400, "name");
	resp_free(&r);
	assert_int_equal(do_req(&s, "POST", "/api/v1/users", TOK_ADMIN,
				"{\"name\":\"short\",\"role\":\"read\",\"password\":\"1234567\"}", &r), 400);
	expect_err(&r, 400, "password");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/users", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"olga\""));
	assert_null(strstr(r.body, "pbkdf2"));   /* hashes never leave the database */
	resp_free(&r);
	/* The last admin cannot be demoted or deleted. */
	assert_int_equal(do_req(&s, "PUT", "/api/v1/users/alice", TOK_ADMIN, "{\"role\":\"read\"}", &r), 409);
	resp_free(&r);
	assert_int_equal(do_req(&s, "DELETE", "/api/v1/users/alice", TOK_ADMIN, NULL, &r), 409);
	resp_free(&r);
	/* Password change: the old one stops working. */
	assert_int_equal(do_req(&s, "PUT", "/api/v1/users/olga", TOK_ADMIN, "{\"password\":\"new password 1\"}", &r), 200);
	resp_free(&r);
	assert_int_equal(req(&s, "POST", "/api/v1/login", NULL, "{\"user\":\"olga\",\"password\":\"" PW "\"}", &r), 401);
	resp_free(&r);
	login(&s, "olga", "new password 1", &o);
	assert_int_equal(do_req(&s, "PUT", "/api/v1/users/nobody", TOK_ADMIN, "{}", &r), 404);
	resp_free(&r);
	assert_int_equal(do_req(&s, "PUT", "/api/v1/users/olga", TOK_ADMIN, "{\"role\":\"god\"}", &r), 400);
	expect_err(&r, 400, "role");
	resp_free(&r);
	/* Deleting a user ends its sessions. */
	assert_int_equal(do_req(&s, "DELETE", "/api/v1/users/olga", TOK_ADMIN, NULL, &r), 204);
	resp_free(&r);
	assert_int_equal(req(&s, "GET", "/api/v1/session", o.cookie, NULL, &r), 401);
	resp_free(&r);
	assert_int_equal(do_req(&s, "DELETE", "/api/v1/users/olga", TOK_ADMIN, NULL, &r), 404);
	resp_free(&r);
	srv_free(&s);
}

static void test_backup_restore(void **state)
{
	struct srv s;
	struct resp r, bk;
	struct db_subscriber sub;
	static const char sub2[] = "{\"imsi\":\"001010000000002\",\"k\":\"" K1 "\",\"opc\":\"" OPC1 "\"}";
	char staged[400];

	(void)state;
	WEBT_FILE_ONLY("GET /api/v1/backup is a copy of the SQLite file, restore stages a file next to it (db_backup/db_restore_stage: -EOPNOTSUPP)");
	srv_start(&s, NULL);
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_ADMIN, webcli_sub1, &r), 201);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/backup", TOK_OP, NULL, &r), 403);
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/backup", TOK_ADMIN, NULL, &bk), 200);
	assert_string_equal(bk.ctype, "application/vnd.sqlite3");
	assert_true(bk.len > 100);
	assert_memory_equal(bk.body, "SQLite format 3", 16);
	/* Changes after the snapshot. */
	assert_int_equal(do_req(&s, "POST", "/api/v1/subscribers", TOK_ADMIN, sub2, &r), 201);
	resp_free(&r);
	/* Restore: garbage and an empty body are refused, nothing staged. */
	assert_int_equal(h1x(s.port, "POST", "/api/v1/restore", "Authorization: Bearer " TOK_ADMIN "\r\n",
			     "not a database at all, not at all", 33, &r), 400);
	expect_err(&r, 400, "body");
	resp_free(&r);
	snprintf(staged, sizeof(staged), "%s.restore", s.dbpath);
	assert_int_not_equal(access(staged, F_OK), 0);
	assert_int_equal(h1x(s.port, "POST", "/api/v1/restore", "Authorization: Bearer " TOK_ADMIN "\r\n",
			     bk.body, bk.len, &r), 202);
	assert_non_null(strstr(r.body, "restart"));
	resp_free(&r);
	resp_free(&bk);
	assert_int_equal(access(staged, F_OK), 0);
	/* Until the restart nothing changed. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers/001010000000002", TOK_ADMIN, NULL, &r), 200);
	resp_free(&r);
	/* "Restart": the next db_open applies the snapshot. */
	srv_halt(&s);
	web_stop(s.web);
	s.web = NULL;
	db_close(s.db);
	assert_int_equal(db_open(s.dbpath, &s.db), 0);
	assert_int_not_equal(access(staged, F_OK), 0);
	assert_int_equal(db_subscriber_get(s.db, "imsi-001010000000001", &sub), 0);
	assert_int_equal(db_subscriber_get(s.db, "imsi-001010000000002", &sub), -ENOENT);
	/* The audit log came back with it: the backup held the entries before it. */
	assert_true(db_schema_version(s.db) == db_schema_latest());
	srv_free(&s);
}

static void test_first_admin(void **state)
{
	struct srv s;
	struct srv_opts o = { .no_tokens = true, .first_admin = true };
	struct resp r;
	struct sess a;
	char out[] = "/tmp/webauth-stdout.XXXXXX", buf[512] = "", pw[64] = "";
	int fd = mkstemp(out), saved = dup(1);
	const char *p;

	(void)state;
	assert_true(fd >= 0 && saved >= 0);
	fflush(stdout);
	dup2(fd, 1);
	srv_start(&s, &o);
	fflush(stdout);
	dup2(saved, 1);
	close(saved);
	assert_true(pread(fd, buf, sizeof(buf) - 1, 0) > 0);
	close(fd);
	unlink(out);
	p = strstr(buf, "with password ");
	assert_non_null(p);
	assert_int_equal(sscanf(p, "with password %63s", pw), 1);
	assert_int_equal(strlen(pw), 20);
	/* A user exists now: loopback no longer gets the config-less default. */
	assert_int_equal(req(&s, "GET", "/api/v1/subscribers", NULL, NULL, &r), 401);
	resp_free(&r);
	login(&s, "admin", pw, &a);
	assert_int_equal(req(&s, "GET", "/api/v1/users", a.cookie, NULL, &r), 200);
	resp_free(&r);
	srv_free(&s);
	/* Without first_admin and without users the loopback default stays. */
	srv_start(&s, &(struct srv_opts){ .no_tokens = true });
	assert_int_equal(req(&s, "GET", "/api/v1/subscribers", NULL, NULL, &r), 200);
	resp_free(&r);
	srv_free(&s);
}

/* Cursor paging: ?after= the "next" of the previous page. */
static void test_list_cursor(void **state)
{
	struct srv s;
	struct resp r;
	char *toml = malloc(120 * 120), path[128], next[32] = "";
	size_t n = 0;
	int pages = 0, seen = 0;

	(void)state;
	assert_non_null(toml);
	for (int i = 0; i < 120; i++)
		n += (size_t)sprintf(toml + n, "[imsi-00101%010d]\nki = \"%s\"\nopc = \"%s\"\n\n", i, K1, OPC1);
	srv_start(&s, NULL);
	assert_int_equal(h1x(s.port, "POST", "/api/v1/subscribers/import", "Authorization: Bearer " TOK_OP "\r\n",
			     toml, n, &r), 200);
	resp_free(&r);
	for (;;) {
		json_t *j, *items;

		snprintf(path, sizeof(path), "/api/v1/subscribers?limit=50%s%s", next[0] ? "&after=" : "", next);
		assert_int_equal(do_req(&s, "GET", path, TOK_RO, NULL, &r), 200);
		j = jbody(&r);
		items = json_object_get(j, "items");
		{
			char want[16];

			/* Each page starts right after the previous one ended. */
			snprintf(want, sizeof(want), "00101%010d", seen);
			assert_string_equal(json_string_value(json_object_get(json_array_get(items, 0), "imsi")), want);
		}
		seen += (int)json_array_size(items);
		assert_int_equal(json_integer_value(json_object_get(j, "total")), 120);
		pages++;
		if (!json_object_get(j, "next")) {
			json_decref(j);
			resp_free(&r);
			break;
		}
		snprintf(next, sizeof(next), "%s", json_string_value(json_object_get(j, "next")));
		json_decref(j);
		resp_free(&r);
		assert_true(pages < 5);
	}
	assert_int_equal(seen, 120);
	assert_int_equal(pages, 3);
	assert_string_equal(next, "001010000000099");
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers?after=001010000000049&offset=5", TOK_RO, NULL, &r), 400);
	expect_err(&r, 400, "after");
	resp_free(&r);
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers?after=x", TOK_RO, NULL, &r), 400);
	expect_err(&r, 400, "after");
	resp_free(&r);
	/* With a prefix: the cursor stays inside it. */
	assert_int_equal(do_req(&s, "GET", "/api/v1/subscribers?imsi=00101000000001&after=001010000000015&limit=50", TOK_RO, NULL, &r), 200);
	{
		json_t *j = jbody(&r);

		assert_int_equal(json_array_size(json_object_get(j, "items")), 4);
		assert_string_equal(json_string_value(json_object_get(json_array_get(json_object_get(j, "items"), 0), "imsi")),
				    "001010000000016");
		assert_null(json_object_get(j, "next"));
		json_decref(j);
	}
	resp_free(&r);
	free(toml);
	srv_free(&s);
}

/* The KDF runs off the control thread: while a slow login is being checked
 * the server answers others; HTTP/1.1 pipelining keeps its order behind a
 * deferred login; HTTP/2 logins work; a client that leaves mid-login is
 * no harm. */
static void test_login_async(void **state)
{
	struct srv s;
	struct resp r;
	struct cli a, b;
	char req[512];
	static const char login_ok[] = "{\"user\":\"slow\",\"password\":\"" PW "\"}";
	static const char login_bad[] = "{\"user\":\"alice\",\"password\":\"wrong-wrong\"}";
	struct pollfd pfd;
	int n;

	(void)state;
	srv_start(&s, NULL);
	mkuser(&s, "alice", "admin");
	srv_halt(&s);
	db_user_kdf_iter(2000000);   /* seconds of PBKDF2 */
	assert_int_equal(db_user_create(s.db, "slow", DB_ROLE_READ, PW), 0);
	db_user_kdf_iter(1000);
	srv_resume(&s);

	/* A: the slow login, not read yet. */
	assert_int_equal(cli_connect(&a, s.port, NULL), 0);
	n = snprintf(req, sizeof(req), "POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
		     strlen(login_ok), login_ok);
	assert_int_equal(cli_write(&a, req, (size_t)n), 0);
	/* B: answered while A's KDF runs. */
	assert_int_equal(cli_connect(&b, s.port, NULL), 0);
	assert_int_equal(h1_req(&b, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	/* A is still being checked (two million iterations): no answer yet. */
	pfd.fd = a.fd;
	pfd.events = POLLIN;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	/* Pipelined on B: a (failing) login then health, answered in order
	 * (the login waits for the KDF thread, behind A's). */
	n = snprintf(req, sizeof(req), "POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s"
		     "GET /api/v1/health HTTP/1.1\r\nHost: x\r\n\r\n", strlen(login_bad), login_bad);
	assert_int_equal(cli_write(&b, req, (size_t)n), 0);
	assert_int_equal(h1_read(&b, &r), 0);
	assert_int_equal(r.status, 401);
	resp_free(&r);
	assert_int_equal(h1_read(&b, &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.body, "\"ok\""));
	resp_free(&r);
	cli_close(&b);
	assert_int_equal(h1_read(&a, &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.set_cookie, "solocore_session="));
	resp_free(&r);
	cli_close(&a);

	/* A client that leaves before its answer. */
	assert_int_equal(cli_connect(&a, s.port, NULL), 0);
	n = snprintf(req, sizeof(req), "POST /api/v1/login HTTP/1.1\r\nHost: x\r\nContent-Length: %zu\r\n\r\n%s",
		     strlen(login_bad), login_bad);
	assert_int_equal(cli_write(&a, req, (size_t)n), 0);
	cli_close(&a);

	/* HTTP/2 (prior knowledge): the login answers on its stream with the cookie. */
	assert_int_equal(cli_connect(&a, s.port, NULL), 0);
	assert_int_equal(h2_req(&a, "POST", "/api/v1/login", NULL,
				"{\"user\":\"alice\",\"password\":\"" PW "\"}", &r), 0);
	assert_int_equal(r.status, 200);
	assert_non_null(strstr(r.set_cookie, "HttpOnly"));
	resp_free(&r);
	assert_int_equal(h2_req(&a, "GET", "/api/v1/health", NULL, NULL, &r), 0);
	assert_int_equal(r.status, 200);
	resp_free(&r);
	cli_close(&a);
	assert_int_equal(do_req(&s, "GET", "/api/v1/audit?limit=50", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"who\":\"slow\",\"action\":\"login\""));
	resp_free(&r);

	/* Creating a user hashes its password on the KDF thread as well. */
	srv_halt(&s);
	db_user_kdf_iter(2000000);
	srv_resume(&s);
	{
		static const char nu[] = "{\"name\":\"newbie\",\"role\":\"read\",\"password\":\"" PW "\"}";

		assert_int_equal(cli_connect(&a, s.port, NULL), 0);
		n = snprintf(req, sizeof(req), "POST /api/v1/users HTTP/1.1\r\nHost: x\r\n"
			     "Authorization: Bearer " TOK_ADMIN "\r\nContent-Length: %zu\r\n\r\n%s", strlen(nu), nu);
		assert_int_equal(cli_write(&a, req, (size_t)n), 0);
	}
	assert_int_equal(do_req(&s, "GET", "/api/v1/health", NULL, NULL, &r), 200);
	resp_free(&r);
	pfd.fd = a.fd;
	assert_int_equal(poll(&pfd, 1, 0), 0);
	assert_int_equal(h1_read(&a, &r), 0);
	assert_int_equal(r.status, 201);
	resp_free(&r);
	cli_close(&a);
	srv_halt(&s);
	db_user_kdf_iter(1000);
	srv_resume(&s);
	assert_int_equal(do_req(&s, "GET", "/api/v1/audit?limit=5", TOK_ADMIN, NULL, &r), 200);
	assert_non_null(strstr(r.body, "\"who\":\"token:static\",\"action\":\"POST /api/v1/users\",\"detail\":\"201\""));
	resp_free(&r);
	/* The same name again: 409 before any hashing. */
	assert_int_equal(do_req(&s, "POST", "/api/v1/users", TOK_ADMIN,
				"{\"name\":\"newbie\",\"role\":\"read\",\"password\":\"12345678\"}", &r), 409);
	resp_free(&r);
	srv_free(&s);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_login_cookie_csrf),
		cmocka_unit_test(test_roles),
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_rights_change),
		cmocka_unit_test(test_login_rate_limit),
		cmocka_unit_test(test_audit),
		cmocka_unit_test(test_users_crud),
		cmocka_unit_test(test_backup_restore),
		cmocka_unit_test(test_first_admin),
		cmocka_unit_test(test_list_cursor),
		cmocka_unit_test(test_login_async),
	};

	if (webcli_backend_init(argc, argv) < 0)
		return 1;
	int rc = cmocka_run_group_tests(tests, NULL, NULL);

	webcli_backend_fini();
	return rc;
}
