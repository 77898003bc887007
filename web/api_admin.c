/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * web: admin routes. Users (/api/v1/users), API tokens (/api/v1/tokens,
 * the token itself shown once on creation, stored hashed), the audit log
 * (/api/v1/audit), backup (a consistent SQLite snapshot, VACUUM INTO) and
 * restore (validated, staged, applied by db_open() on the next start).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include "common/log.h"
#include "db/db.h"
#include "web/web_int.h"

static json_t *body_object(const struct web_req *req, struct web_resp *resp)
{
	json_error_t e;
	json_t *j = json_loadb((const char *)req->body, req->body_len, 0, &e);

	if (!json_is_object(j)) {
		json_decref(j);
		web_resp_error(resp, 400, "body", "the body must be a JSON object");
		return NULL;
	}
	return j;
}

static int user_json(const struct db_user *u, void *arg)
{
	json_array_append_new(arg, json_pack("{s:s, s:s, s:I, s:I}", "name", u->name, "role",
					     db_role_name(u->role), "created", (json_int_t)u->created,
					     "updated", (json_int_t)u->updated));
	return 0;
}

static int h_users_list(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *a = json_array();
	int rc;

	(void)req;
	(void)arg;
	if ((rc = db_user_list(w->db, user_json, a)) < 0) {
		json_decref(a);
		return rc;
	}
	web_resp_json(resp, 200, json_pack("{s:o}", "items", a));
	return 0;
}

/* role from j's "role" (absent: 0); -EINVAL answered. */
static int role_field(json_t *j, struct web_resp *resp, bool required)
{
	json_t *r = json_object_get(j, "role");
	int role;

	if (!r && !required)
		return 0;
	role = db_role_parse(json_string_value(r));
	if (role < 0)
		web_resp_error(resp, 400, "role", "role must be admin, operator or read");
	return role;
}

static int h_users_create(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *j = body_object(req, resp);
	const char *name, *pw;
	int role, rc;

	(void)arg;
	if (!j)
		return 0;
	name = json_string_value(json_object_get(j, "name"));
	pw = json_string_value(json_object_get(j, "password"));
	if (!db_name_valid(name))
		web_resp_error(resp, 400, "name", "name: 1..%d of A-Z a-z 0-9 . _ @ -", DB_NAME_MAX);
	else if ((role = role_field(j, resp, true)) < 0)
		;
	else if (!pw || strlen(pw) < DB_PASSWORD_MIN || strlen(pw) > DB_PASSWORD_MAX)
		web_resp_error(resp, 400, "password", "password: %d..%d characters", DB_PASSWORD_MIN,
			       DB_PASSWORD_MAX);
	else if (db_user_get(w->db, name, &(struct db_user){ 0 }) == 0)
		web_resp_error(resp, 409, "name", "user %s exists", name);
	else if ((rc = web_user_write_deferred(w, req, resp, name, role, pw, true)) < 0) {
		json_decref(j);
		return rc;
	}
	json_decref(j);
	return 0;
}

static int h_users_update(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	const char *name = web_req_param(req, 0), *pw;
	struct db_user u;
	json_t *j;
	int role, rc;

	(void)arg;
	if (db_user_get(w->db, name, &u) < 0) {
		web_resp_error(resp, 404, "name", "no user %s", name);
		return 0;
	}
	if (!(j = body_object(req, resp)))
		return 0;
	pw = json_string_value(json_object_get(j, "password"));
	if ((role = role_field(j, resp, false)) < 0)
		;
	else if (json_object_get(j, "password") &&
		 (!pw || strlen(pw) < DB_PASSWORD_MIN || strlen(pw) > DB_PASSWORD_MAX))
		web_resp_error(resp, 400, "password", "password: %d..%d characters", DB_PASSWORD_MIN,
			       DB_PASSWORD_MAX);
	else if (u.role == DB_ROLE_ADMIN && role && role != DB_ROLE_ADMIN &&
		 db_user_count_role(w->db, DB_ROLE_ADMIN) == 1)
		web_resp_error(resp, 409, "role", "%s is the last admin", name);
	else if (pw) {
		/* The KDF on its thread; the last-admin check is made again there. */
		if ((rc = web_user_write_deferred(w, req, resp, name, role, pw, false)) < 0) {
			json_decref(j);
			return rc;
		}
	} else if ((rc = db_user_update(w->db, name, role, NULL)) < 0)
		web_resp_error(resp, 500, NULL, "cannot update the user");
	else
		web_resp_json(resp, 200, json_pack("{s:s, s:s}", "name", name,
						   "role", db_role_name(role ? role : u.role)));
	json_decref(j);
	return 0;
}

static int h_users_delete(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	const char *name = web_req_param(req, 0);
	struct db_user u;

	(void)arg;
	if (db_user_get(w->db, name, &u) < 0) {
		web_resp_error(resp, 404, "name", "no user %s", name);
		return 0;
	}
	if (u.role == DB_ROLE_ADMIN && db_user_count_role(w->db, DB_ROLE_ADMIN) == 1) {
		web_resp_error(resp, 409, "name", "%s is the last admin", name);
		return 0;
	}
	if (db_user_delete(w->db, name) < 0 || db_token_delete_owner(w->db, name) < 0)
		return -EIO;
	/* Its sessions end now. */
	web_sessions_end_user(w, name);
	web_resp_text(resp, 204, NULL, NULL, 0);
	return 0;
}

static int token_json(const struct db_token *t, void *arg)
{
	json_array_append_new(arg, json_pack("{s:I, s:s, s:s, s:s, s:I}", "id", (json_int_t)t->id,
					     "name", t->name, "owner", t->owner, "role",
					     db_role_name(t->role), "created", (json_int_t)t->created));
	return 0;
}

static int h_tokens_list(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *a = json_array();
	int rc;

	(void)req;
	(void)arg;
	if ((rc = db_token_list(w->db, token_json, a)) < 0) {
		json_decref(a);
		return rc;
	}
	web_resp_json(resp, 200, json_pack("{s:o}", "items", a));
	return 0;
}

static int h_tokens_create(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	json_t *j = body_object(req, resp);
	const char *name;
	char tok[DB_TOKEN_LEN + 1];
	int64_t id;
	int role;

	(void)arg;
	if (!j)
		return 0;
	name = json_string_value(json_object_get(j, "name"));
	if (!db_name_valid(name))
		web_resp_error(resp, 400, "name", "name: 1..%d of A-Z a-z 0-9 . _ @ -", DB_NAME_MAX);
	else if ((role = role_field(j, resp, true)) < 0)
		;
	else if (role > (int)req->role)
		web_resp_error(resp, 403, "role", "a token cannot have more rights than its creator");
	else if (db_token_create(w->db, name, req->user[0] ? req->user : "static", role, tok, &id) < 0)
		web_resp_error(resp, 500, NULL, "cannot create the token");
	else {
		/* The only time the token is shown: only its hash is kept. */
		web_resp_json(resp, 201, json_pack("{s:I, s:s, s:s, s:s}", "id", (json_int_t)id, "name", name,
						   "role", db_role_name(role), "token", tok));
		explicit_bzero(tok, sizeof(tok));
	}
	json_decref(j);
	return 0;
}

static int h_tokens_delete(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	const char *p = web_req_param(req, 0);
	char *end;
	long long id = strtoll(p, &end, 10);
	int rc;

	(void)arg;
	if (*end || id <= 0) {
		web_resp_error(resp, 400, "id", "id must be a positive integer");
		return 0;
	}
	rc = db_token_delete(w->db, id);
	if (rc == -ENOENT)
		web_resp_error(resp, 404, "id", "no token %lld", id);
	else if (rc < 0)
		return rc;
	else
		web_resp_text(resp, 204, NULL, NULL, 0);
	return 0;
}

static int audit_json(const struct db_audit *a, void *arg)
{
	json_array_append_new(arg, json_pack("{s:I, s:I, s:s, s:s, s:s}", "id", (json_int_t)a->id,
					     "time", (json_int_t)a->ts, "who", a->who, "action",
					     a->action, "detail", a->detail));
	return 0;
}

static int query_num(const struct web_req *req, struct web_resp *resp, const char *key, long long lo,
		     long long hi, long long *v)
{
	char buf[24], *end;
	int rc = web_req_query(req, key, buf, sizeof(buf));

	if (rc == -ENOENT)
		return 0;
	*v = rc > 0 ? strtoll(buf, &end, 10) : 0;
	if (rc <= 0 || *end || *v < lo || *v > hi) {
		web_resp_error(resp, 400, key, "%s must be an integer in %lld..%lld", key, lo, hi);
		return -EINVAL;
	}
	return 0;
}

static int h_audit(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	long long before = 0, limit = 100;
	json_t *a;
	int rc;

	(void)arg;
	if (query_num(req, resp, "before", 0, INT64_MAX, &before) < 0 ||
	    query_num(req, resp, "limit", 1, 1000, &limit) < 0)
		return 0;
	a = json_array();
	if ((rc = db_audit_list(w->db, before, (uint32_t)limit, audit_json, a)) < 0) {
		json_decref(a);
		return rc;
	}
	web_resp_json(resp, 200, json_pack("{s:o}", "items", a));
	return 0;
}

/* A fresh private temp directory for one snapshot file. */
static int tmp_file(char dir[64], char path[96])
{
	snprintf(dir, 64, "/tmp/solocore-web-XXXXXX");
	if (!mkdtemp(dir))
		return -errno;
	snprintf(path, 96, "%s/db", dir);
	return 0;
}

/* Backup and restore run on the task thread (web_task_submit): VACUUM INTO,
 * reading the snapshot, and the restore's validation (a full open of a copy)
 * take from milliseconds to seconds. */
struct file_task {
	uint8_t *body;          /* restore: the upload; backup: the snapshot read back */
	size_t len;
	int rc;
	char err[160];
};

static void file_task_free(struct file_task *x)
{
	if (x->body) {
		explicit_bzero(x->body, x->len);
		free(x->body);
	}
	free(x);
}

static void backup_run(void *arg, struct db *db)
{
	struct file_task *x = arg;
	char dir[64], path[96];
	FILE *f = NULL;
	long n = 0;

	if ((x->rc = tmp_file(dir, path)) < 0)
		return;
	x->rc = db_backup(db, path);
	if (x->rc == 0 && (!(f = fopen(path, "rb")) || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) <= 0 ||
			   fseek(f, 0, SEEK_SET) != 0))
		x->rc = -EIO;
	if (x->rc == 0) {
		x->body = malloc((size_t)n);
		if (!x->body || fread(x->body, 1, (size_t)n, f) != (size_t)n)
			x->rc = -EIO;
		else
			x->len = (size_t)n;
	}
	if (f)
		fclose(f);
	unlink(path);
	rmdir(dir);
}

static int backup_step(struct web *w, void *arg, struct web_resp *resp)
{
	struct file_task *x = arg;

	(void)w;
	if (x->rc < 0 || !x->body) {
		log_error("web", "backup failed: %s", strerror(x->rc < 0 ? -x->rc : EIO));
		web_resp_error(resp, 500, NULL, "backup failed");
	} else {
		resp->body = (char *)x->body;
		resp->len = x->len;
		x->body = NULL;
		resp->status = 200;
		resp->content_type = "application/vnd.sqlite3";
		resp->content_disposition = "attachment; filename=\"solocore-backup.db\"";
	}
	file_task_free(x);
	return 0;
}

static int h_backup(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct file_task *x = calloc(1, sizeof(*x));
	int rc;

	(void)arg;
	if (!x)
		return -ENOMEM;
	rc = web_task_submit(w, req, resp, backup_run, backup_step, x, false);
	if (rc < 0)
		file_task_free(x);
	return rc == -EBUSY ? 0 : rc;
}

static void restore_run(void *arg, struct db *db)
{
	struct file_task *x = arg;
	char dir[64], path[96];
	int fd;

	if ((x->rc = tmp_file(dir, path)) < 0)
		return;
	fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	x->rc = fd >= 0 && write(fd, x->body, x->len) == (ssize_t)x->len ? 0 : -EIO;
	if (fd >= 0 && close(fd) != 0)
		x->rc = -EIO;
	explicit_bzero(x->body, x->len);
	free(x->body);
	x->body = NULL;
	if (x->rc == 0)
		x->rc = db_restore_stage(db, path, x->err, sizeof(x->err));
	unlink(path);
	rmdir(dir);
}

static int restore_step(struct web *w, void *arg, struct web_resp *resp)
{
	struct file_task *x = arg;

	(void)w;
	if (x->rc == -EINVAL)
		web_resp_error(resp, 400, "body", "not a usable backup: %s", x->err);
	else if (x->rc < 0) {
		log_error("web", "restore: %s", x->err[0] ? x->err : strerror(-x->rc));
		web_resp_error(resp, 500, NULL, "restore failed");
	} else
		web_resp_json(resp, 202, json_pack("{s:s, s:s}", "status", "staged", "message",
						   "the backup is validated and replaces the database "
						   "on the next start of solocore (restart to apply); "
						   "the current one is kept as DB.prev"));
	file_task_free(x);
	return 0;
}

static int h_restore(struct web *w, const struct web_req *req, struct web_resp *resp, void *arg)
{
	struct file_task *x;
	int rc;

	(void)arg;
	if (!req->body_len) {
		web_resp_error(resp, 400, "body", "the body must be a database file made by GET /api/v1/backup");
		return 0;
	}
	x = calloc(1, sizeof(*x));
	if (!x)
		return -ENOMEM;
	x->len = req->body_len;
	x->body = web_req_take_body(req);
	if (!x->body) {
		free(x);
		return -EIO;
	}
	rc = web_task_submit(w, req, resp, restore_run, restore_step, x, false);
	if (rc < 0)
		file_task_free(x);
	return rc == -EBUSY ? 0 : rc;
}

int web_api_admin_routes(struct web *w)
{
	static const struct web_route_def r[] = {
		{ WEB_GET, "/api/v1/users", WEB_ROLE_ADMIN, h_users_list },
		{ WEB_POST, "/api/v1/users", WEB_ROLE_ADMIN, h_users_create },
		{ WEB_PUT, "/api/v1/users/{name}", WEB_ROLE_ADMIN, h_users_update },
		{ WEB_DELETE, "/api/v1/users/{name}", WEB_ROLE_ADMIN, h_users_delete },
		{ WEB_GET, "/api/v1/tokens", WEB_ROLE_ADMIN, h_tokens_list },
		{ WEB_POST, "/api/v1/tokens", WEB_ROLE_ADMIN, h_tokens_create },
		{ WEB_DELETE, "/api/v1/tokens/{id}", WEB_ROLE_ADMIN, h_tokens_delete },
		{ WEB_GET, "/api/v1/audit", WEB_ROLE_ADMIN, h_audit },
		{ WEB_GET, "/api/v1/backup", WEB_ROLE_ADMIN, h_backup },
		{ WEB_POST, "/api/v1/restore", WEB_ROLE_ADMIN, h_restore },
	};

	return web_routes_add(w, r, sizeof(r) / sizeof(r[0]), NULL);
}
