/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db - web users (PBKDF2 password hashes), API tokens (SHA-256 only), the
 * audit log, backup (VACUUM INTO) and staged restore.
 *
 * Not on any hot path: statements are prepared per call.
 */
#include "db/db_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/rand.h>

#include "common/hex.h"
#include "common/ident.h"
#include "common/log.h"

/* PBKDF2 iterations for new password hashes; db_user_kdf_iter() reads and sets it. */
static unsigned kdf_iter = DB_KDF_ITER_DEFAULT;

unsigned db_user_kdf_iter(unsigned iter)
{
	if (iter)
		kdf_iter = iter;
	return kdf_iter;
}

int db_role_parse(const char *s)
{
	if (!s)
		return -EINVAL;
	if (!strcmp(s, "admin"))
		return DB_ROLE_ADMIN;
	if (!strcmp(s, "operator"))
		return DB_ROLE_OPERATOR;
	if (!strcmp(s, "read") || !strcmp(s, "read-only") || !strcmp(s, "readonly"))
		return DB_ROLE_READ;
	return -EINVAL;
}

const char *db_role_name(int role)
{
	switch (role) {
	case DB_ROLE_ADMIN: return "admin";
	case DB_ROLE_OPERATOR: return "operator";
	case DB_ROLE_READ: return "read";
	default: return "none";
	}
}

bool db_name_valid(const char *n)
{
	return ident_valid(n, DB_NAME_MAX, "._@-");
}

/* "pbkdf2-sha256$ITER$SALT$HASH" */
#define PW_STR_MAX DB_PW_STR_MAX

static int pw_hash(const char *pw, unsigned iter, const uint8_t salt[16], uint8_t out[32])
{
	return PKCS5_PBKDF2_HMAC(pw, (int)strlen(pw), salt, 16, (int)iter, EVP_sha256(), 32, out) == 1
		       ? 0 : -EIO;
}

static int pw_make(const char *pw, char out[PW_STR_MAX])
{
	uint8_t salt[16], h[32];
	char sh[33], hh[65];

	if (RAND_bytes(salt, sizeof(salt)) != 1 || pw_hash(pw, kdf_iter, salt, h) < 0)
		return -EIO;
	hex_encode(sh, sizeof(sh), salt, 16, false);
	hex_encode(hh, sizeof(hh), h, 32, false);
	snprintf(out, PW_STR_MAX, "pbkdf2-sha256$%u$%s$%s", kdf_iter, sh, hh);
	explicit_bzero(h, sizeof(h));
	return 0;
}

/* 0 when pw matches the stored string. */
static int pw_check(const char *pw, const char *stored)
{
	unsigned iter;
	char sh[33], hh[65];
	uint8_t salt[16], want[32], got[32];

	if (sscanf(stored, "pbkdf2-sha256$%u$%32[0-9a-f]$%64[0-9a-f]", &iter, sh, hh) != 3 ||
	    !iter || hex_decode_exact(salt, 16, sh, strlen(sh)) < 0 ||
	    hex_decode_exact(want, 32, hh, strlen(hh)) < 0)
		return -EPROTO;
	if (pw_hash(pw, iter, salt, got) < 0)
		return -EIO;
	int r = CRYPTO_memcmp(got, want, 32) == 0 ? 0 : -EACCES;
	explicit_bzero(got, sizeof(got));
	return r;
}

static int pw_valid(const char *pw)
{
	size_t n = pw ? strlen(pw) : 0;
	return n >= DB_PASSWORD_MIN && n <= DB_PASSWORD_MAX ? 0 : -EINVAL;
}

/* Prepare, bind text args (NULL-terminated list), step once. */
static int step_done(struct db *db, struct sql_stmt *st)
{
	int rc = sql_step(st);
	int r = rc < 0 ? rc : 0;
	if (r == 0 && !sql_changes(db->conn))
		r = -ENOENT;
	sql_finalize(st);
	return r;
}

int db_pw_make(const char *password, char out[DB_PW_STR_MAX])
{
	return pw_valid(password) < 0 ? -EINVAL : pw_make(password, out);
}

static bool stored_valid(const char *s)
{
	return s && !strncmp(s, "pbkdf2-sha256$", 14) && strlen(s) < PW_STR_MAX;
}

int db_user_create_hashed(struct db *db, const char *name, int role, const char *stored)
{
	struct sql_stmt *st;
	int64_t now = (int64_t)time(NULL);

	if (!db_name_valid(name) || role < DB_ROLE_READ || role > DB_ROLE_ADMIN || !stored_valid(stored))
		return -EINVAL;
	int r = db_stmt(db, "INSERT INTO users (name, role, pw, created, updated) VALUES (?,?,?,?,?)", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	sql_bind_int64(st, 2, role);
	sql_bind_text(st, 3, stored, -1);
	sql_bind_int64(st, 4, now);
	sql_bind_int64(st, 5, now);
	return step_done(db, st);
}

int db_user_create(struct db *db, const char *name, int role, const char *password)
{
	char pw[PW_STR_MAX];

	if (!db_name_valid(name) || role < DB_ROLE_READ || role > DB_ROLE_ADMIN || pw_valid(password))
		return -EINVAL;
	int r = pw_make(password, pw);
	if (r == 0)
		r = db_user_create_hashed(db, name, role, pw);
	explicit_bzero(pw, sizeof(pw));
	return r;
}

int db_user_update_hashed(struct db *db, const char *name, int role, const char *stored)
{
	struct sql_stmt *st;

	if ((role && (role < DB_ROLE_READ || role > DB_ROLE_ADMIN)) || (stored && !stored_valid(stored)))
		return -EINVAL;
	int r = db_stmt(db, "UPDATE users SET role = CASE WHEN ?2 > 0 THEN ?2 ELSE role END,"
		    " pw = CASE WHEN ?3 <> '' THEN ?3 ELSE pw END, updated = ?4 WHERE name = ?1", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	sql_bind_int64(st, 2, role);
	sql_bind_text(st, 3, stored ? stored : "", -1);
	sql_bind_int64(st, 4, (int64_t)time(NULL));
	return step_done(db, st);
}

int db_user_update(struct db *db, const char *name, int role, const char *password)
{
	char pw[PW_STR_MAX];
	int r;

	if ((role && (role < DB_ROLE_READ || role > DB_ROLE_ADMIN)) || (password && pw_valid(password)))
		return -EINVAL;
	if (password && pw_make(password, pw) < 0)
		return -EIO;
	r = db_user_update_hashed(db, name, role, password ? pw : NULL);
	explicit_bzero(pw, sizeof(pw));
	return r;
}

int db_user_delete(struct db *db, const char *name)
{
	struct sql_stmt *st;
	int r = db_stmt(db, "DELETE FROM users WHERE name = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	return step_done(db, st);
}

int db_user_pw_get(struct db *db, const char *name, char stored[DB_PW_STR_MAX], int *role)
{
	/* A fixed dummy hash for unknown users: the same KDF work either way. */
	static char dummy[PW_STR_MAX];
	struct sql_stmt *st;
	int r;

	*role = 0;
	if (!dummy[0] && pw_make("no-such-user-password", dummy) < 0)
		return -EIO;
	r = db_stmt(db, "SELECT role, pw FROM users WHERE name = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name ? name : "", -1);
	snprintf(stored, DB_PW_STR_MAX, "%s", dummy);
	if (sql_step(st) == SQL_ROW) {
		const char *p = sql_column_text(st, 1);
		*role = sql_column_int(st, 0);
		snprintf(stored, DB_PW_STR_MAX, "%s", p ? p : "");
	}
	sql_finalize(st);
	return 0;
}

int db_pw_check(const char *password, const char *stored)
{
	if (!password || strlen(password) > DB_PASSWORD_MAX)
		return -EACCES;
	return pw_check(password, stored) == 0 ? 0 : -EACCES;
}

int db_user_verify(struct db *db, const char *name, const char *password, int *role)
{
	char stored[PW_STR_MAX];
	int found_role, r = db_user_pw_get(db, name, stored, &found_role);

	if (r < 0)
		return r;
	r = db_pw_check(password, stored);
	explicit_bzero(stored, sizeof(stored));
	if (!found_role || r < 0)
		return -EACCES;
	*role = found_role;
	return 0;
}

/* A users row into w->u, then to w->cb when walking a list. */
struct user_walk {
	struct db_user u;
	db_user_cb cb;
	void *arg;
};

static int user_row(struct sql_stmt *st, void *ctx)
{
	struct user_walk *w = ctx;

	memset(&w->u, 0, sizeof(w->u));
	snprintf(w->u.name, sizeof(w->u.name), "%s", sql_column_text(st, 0));
	w->u.role = sql_column_int(st, 1);
	w->u.created = sql_column_int64(st, 2);
	w->u.updated = sql_column_int64(st, 3);
	return w->cb ? w->cb(&w->u, w->arg) : 0;
}

int db_user_get(struct db *db, const char *name, struct db_user *out)
{
	struct user_walk w = { .cb = NULL };
	struct sql_stmt *st;
	int r = db_stmt(db, "SELECT name, role, created, updated FROM users WHERE name = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, name, -1);
	if ((r = db_row_get(st, user_row, &w)) == 0)
		*out = w.u;
	return r;
}

int db_user_list(struct db *db, db_user_cb cb, void *arg)
{
	struct user_walk w = { .cb = cb, .arg = arg };
	struct sql_stmt *st;
	int r = db_stmt(db, "SELECT name, role, created, updated FROM users ORDER BY name", &st);

	return r < 0 ? r : db_rows_walk(st, user_row, &w);
}

static int64_t count(struct db *db, const char *sql, int bind)
{
	struct sql_stmt *st;
	int r = db_stmt(db, sql, &st);
	if (r < 0)
		return r;
	if (bind)
		sql_bind_int64(st, 1, bind);
	int64_t n = sql_step(st) == SQL_ROW ? sql_column_int64(st, 0) : -EIO;
	sql_finalize(st);
	return n;
}

int64_t db_user_count(struct db *db) { return count(db, "SELECT count(*) FROM users", 0); }

int64_t db_user_count_role(struct db *db, int role)
{
	return count(db, "SELECT count(*) FROM users WHERE role = ?", role);
}

/* ---- API tokens ---- */

static int sha256(const char *s, uint8_t out[32])
{
	unsigned len = 32;
	return EVP_Digest(s, strlen(s), out, &len, EVP_sha256(), NULL) == 1 ? 0 : -EIO;
}

int db_token_create(struct db *db, const char *name, const char *owner, int role,
		    char out[DB_TOKEN_LEN + 1], int64_t *id)
{
	uint8_t raw[32], h[32];
	struct sql_stmt *st;

	if (!db_name_valid(name) || !db_name_valid(owner) || role < DB_ROLE_READ || role > DB_ROLE_ADMIN)
		return -EINVAL;
	if (RAND_bytes(raw, sizeof(raw)) != 1)
		return -EIO;
	memcpy(out, "sct_", 4);
	hex_encode(out + 4, DB_TOKEN_LEN + 1 - 4, raw, 32, false);
	explicit_bzero(raw, sizeof(raw));
	int r = sha256(out, h);
	if (r == 0)
		r = db_stmt(db, "INSERT INTO tokens (name, owner, role, hash, created) VALUES (?,?,?,?,?)", &st);
	if (r < 0) {
		explicit_bzero(out, DB_TOKEN_LEN + 1);
		return r;
	}
	sql_bind_text(st, 1, name, -1);
	sql_bind_text(st, 2, owner, -1);
	sql_bind_int64(st, 3, role);
	sql_bind_blob(st, 4, h, 32);
	sql_bind_int64(st, 5, (int64_t)time(NULL));
	r = step_done(db, st);
	if (r < 0)
		explicit_bzero(out, DB_TOKEN_LEN + 1);
	else
		*id = sql_last_insert_id(db->conn);
	return r;
}

/* A tokens row into w->t, then to w->cb when walking a list. */
struct token_walk {
	struct db_token t;
	db_token_cb cb;
	void *arg;
};

static int token_row(struct sql_stmt *st, void *ctx)
{
	struct token_walk *w = ctx;

	memset(&w->t, 0, sizeof(w->t));
	w->t.id = sql_column_int64(st, 0);
	snprintf(w->t.name, sizeof(w->t.name), "%s", sql_column_text(st, 1));
	snprintf(w->t.owner, sizeof(w->t.owner), "%s", sql_column_text(st, 2));
	w->t.role = sql_column_int(st, 3);
	w->t.created = sql_column_int64(st, 4);
	return w->cb ? w->cb(&w->t, w->arg) : 0;
}

int db_token_check(struct db *db, const char *token, struct db_token *out)
{
	struct token_walk w = { .cb = NULL };
	uint8_t h[32];
	struct sql_stmt *st;

	/* The lookup is by hash: equal-prefix timing says nothing about the token. */
	int r = sha256(token, h);
	if (r == 0)
		r = db_stmt(db, "SELECT id, name, owner, role, created FROM tokens WHERE hash = ?", &st);
	if (r < 0)
		return r;
	sql_bind_blob(st, 1, h, 32);
	if ((r = db_row_get(st, token_row, &w)) == 0)
		*out = w.t;
	return r;
}

int db_token_list(struct db *db, db_token_cb cb, void *arg)
{
	struct token_walk w = { .cb = cb, .arg = arg };
	struct sql_stmt *st;
	int r = db_stmt(db, "SELECT id, name, owner, role, created FROM tokens ORDER BY id", &st);

	return r < 0 ? r : db_rows_walk(st, token_row, &w);
}

int db_token_delete(struct db *db, int64_t id)
{
	struct sql_stmt *st;
	int r = db_stmt(db, "DELETE FROM tokens WHERE id = ?", &st);
	if (r < 0)
		return r;
	sql_bind_int64(st, 1, id);
	return step_done(db, st);
}

int db_token_delete_owner(struct db *db, const char *owner)
{
	struct sql_stmt *st;
	int r = db_stmt(db, "DELETE FROM tokens WHERE owner = ?", &st);
	if (r < 0)
		return r;
	sql_bind_text(st, 1, owner, -1);
	r = step_done(db, st);
	return r == -ENOENT ? 0 : r;
}

/* ---- audit log ---- */

int db_audit_add(struct db *db, const char *who, const char *action, const char *detail)
{
	struct sql_stmt *st;
	int r = db_stmt(db, "INSERT INTO audit (ts, who, action, detail) VALUES (?,?,?,?)", &st);
	if (r < 0)
		return r;
	sql_bind_int64(st, 1, (int64_t)time(NULL));
	sql_bind_text(st, 2, who ? who : "?", -1);
	sql_bind_text(st, 3, action ? action : "?", -1);
	sql_bind_text(st, 4, detail ? detail : "", -1);
	return step_done(db, st);
}

struct audit_walk {
	db_audit_cb cb;
	void *arg;
};

static int audit_each(struct sql_stmt *st, void *ctx)
{
	const struct audit_walk *w = ctx;
	struct db_audit a;

	memset(&a, 0, sizeof(a));
	a.id = sql_column_int64(st, 0);
	a.ts = sql_column_int64(st, 1);
	snprintf(a.who, sizeof(a.who), "%s", sql_column_text(st, 2));
	snprintf(a.action, sizeof(a.action), "%s", sql_column_text(st, 3));
	snprintf(a.detail, sizeof(a.detail), "%s", sql_column_text(st, 4));
	return w->cb(&a, w->arg);
}

int db_audit_list(struct db *db, int64_t before, uint32_t limit, db_audit_cb cb, void *arg)
{
	struct audit_walk w = { cb, arg };
	struct sql_stmt *st;
	int r = db_stmt(db, "SELECT id, ts, who, action, detail FROM audit WHERE id < ?"
		    " ORDER BY id DESC LIMIT ?", &st);

	if (r < 0)
		return r;
	sql_bind_int64(st, 1, before > 0 ? before : INT64_MAX);
	sql_bind_int64(st, 2, limit);
	return db_rows_walk(st, audit_each, &w);
}

/* ---- backup and restore ---- */

int db_backup(struct db *db, const char *path)
{
	struct sql_stmt *st;

	if (db_file_only(db, "backup to a file (VACUUM INTO)") < 0)
		return -EOPNOTSUPP;
	/* Made empty and 0600 first (VACUUM INTO accepts an empty file): a
	 * backup holds K, OPc and the password hashes. */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	close(fd);
	/* SQLite "VACUUM INTO": a transactionally consistent copy. */
	int r = db_stmt(db, "VACUUM INTO ?", &st);
	if (r < 0) {
		unlink(path);
		return r;
	}
	sql_bind_text(st, 1, path, -1);
	int rc = sql_step(st);
	sql_finalize(st);
	if (rc != SQL_DONE) {
		log_error("db", "backup failed: %s", sql_errmsg(db->conn));
		unlink(path);
		return rc;
	}
	return 0;
}

/* Open src read-only: an SQLite file that passes its integrity check. */
static int restore_integrity(const char *src, char *err, size_t errsz)
{
	struct sql *c = NULL;
	struct sql_stmt *st = NULL;
	int r = -EINVAL, v = -1;

	if (sql_sqlite_open(src, true, &c) < 0) {
		snprintf(err, errsz, "not a database");
		goto out;
	}
	if (sql_prepare(c, "PRAGMA integrity_check", 0, &st) < 0 ||
	    sql_step(st) != SQL_ROW ||
	    strcmp(sql_column_text(st, 0), "ok") != 0) {
		snprintf(err, errsz, "not an SQLite database, or it fails its integrity check");
		goto out;
	}
	sql_finalize(st);
	st = NULL;
	if (sql_prepare(c, "PRAGMA user_version", 0, &st) == 0 && sql_step(st) == SQL_ROW)
		v = sql_column_int(st, 0);
	if (v < 1 || v > db_schema_latest()) {
		snprintf(err, errsz, "schema version %d is not one this solocore knows (1..%d)",
			 v, db_schema_latest());
		goto out;
	}
	r = 0;
out:
	sql_finalize(st);
	sql_close(c);
	return r;
}

static int count_sub(const struct db_subscriber *s, void *arg) { (void)s; (void)arg; return 0; }
static int count_pol(const struct db_policy *p, void *arg) { (void)p; (void)arg; return 0; }
static int count_user(const struct db_user *u, void *arg) { (void)u; (void)arg; return 0; }
static int count_set(const char *k, const char *v, int64_t t, void *arg)
{
	(void)k; (void)v; (void)t; (void)arg;
	return 0;
}

/* What the core does with a database at start-up, on path (a private copy:
 * migrations may upgrade it in place): open, migrate, then read every
 * subscriber, policy, user and setting as the UDM, the web and the
 * settings overlay do, and check the foreign keys. Reason in err. */
static int restore_check(const char *path, char *err, size_t errsz)
{
	struct db *db = NULL;
	struct sql_stmt *st = NULL;
	int r = restore_integrity(path, err, errsz);

	if (r < 0)
		return r;
	if ((r = db_open(path, &db)) < 0) {
		snprintf(err, errsz, "solocore cannot open it (schema or migration): %s", strerror(-r));
		return -EINVAL;
	}
	if ((r = db_load_subscribers(db, count_sub, NULL)) < 0)
		snprintf(err, errsz, "its subscribers cannot be loaded: %s", strerror(-r));
	else if ((r = db_policy_walk(db, count_pol, NULL)) < 0)
		snprintf(err, errsz, "its policies cannot be read: %s", strerror(-r));
	else if ((r = db_user_list(db, count_user, NULL)) < 0)
		snprintf(err, errsz, "its users cannot be read: %s", strerror(-r));
	else if ((r = db_setting_walk(db, NULL, count_set, NULL)) < 0)
		snprintf(err, errsz, "its settings cannot be read: %s", strerror(-r));
	else if (sql_prepare(db->conn, "SELECT count(*) FROM tokens", 0, &st) < 0 ||
		 sql_step(st) != SQL_ROW || (sql_finalize(st), st = NULL,
		 sql_prepare(db->conn, "PRAGMA foreign_key_check", 0, &st)) < 0 ||
		 sql_step(st) != SQL_DONE) {
		snprintf(err, errsz, "its tokens table is unusable or a foreign key is broken");
		r = -EINVAL;
	}
	sql_finalize(st);
	db_close(db);
	return r < 0 ? -EINVAL : 0;
}

/* Copy src to dst (new, 0600), fsync'ed. */
static int copy_private(const char *src, const char *dst)
{
	char buf[65536];
	ssize_t n;
	int in = open(src, O_RDONLY | O_CLOEXEC), out, r = 0;

	if (in < 0)
		return -errno;
	out = open(dst, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (out < 0) {
		r = -errno;
		close(in);
		return r;
	}
	while (r == 0 && (n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0 || write(out, buf, (size_t)n) != n)
			r = -EIO;
	}
	if (r == 0 && fsync(out) != 0)
		r = -errno;
	close(in);
	close(out);
	if (r < 0)
		unlink(dst);
	return r;
}

static void unlink_side(const char *path)
{
	char side[4400];

	snprintf(side, sizeof(side), "%s-wal", path);
	unlink(side);
	snprintf(side, sizeof(side), "%s-shm", path);
	unlink(side);
}

int db_restore_stage(struct db *db, const char *src, char *err, size_t errsz)
{
	char dst[4096], tmp[4200];
	int r;

	if (db_file_only(db, "restore from a file") < 0) {
		snprintf(err, errsz, "restore from a file needs the SQLite backend");
		return -EOPNOTSUPP;
	}
	snprintf(dst, sizeof(dst), "%s.restore", db->path);
	snprintf(tmp, sizeof(tmp), "%s.tmp", dst);
	/* Validated as the copy that will be moved in place (what the next start opens). */
	r = restore_integrity(src, err, errsz);
	if (r < 0)
		return r;
	if ((r = copy_private(src, tmp)) < 0) {
		snprintf(err, errsz, "cannot stage the restore: %s", strerror(-r));
		return r;
	}
	r = restore_check(tmp, err, errsz);
	unlink_side(tmp);   /* closed: the WAL was checkpointed into tmp */
	if (r == 0 && rename(tmp, dst) != 0) {
		r = -errno;
		snprintf(err, errsz, "cannot stage the restore: %s", strerror(-r));
	}
	if (r < 0)
		unlink(tmp);
	return r;
}

int db_restore_apply(const char *path)
{
	char src[4096], prev[4200], err[160];

	snprintf(src, sizeof(src), "%s.restore", path);
	if (access(src, F_OK) != 0)
		return 0;
	/* Another process on the file (the running core, when this is a `solocore users` or
	 * `sims` command; a CLI, when this is the core starting): moving a file over it would
	 * leave that process writing to the old inode, its writes lost (issue 31 point 3). The
	 * restore waits for a start with nobody else on the file. */
	pid_t holder = db_file_holder(path);
	if (holder > 0) {
		log_warn("db", "%s: staged restore not applied now: the database is open in process %ld; "
			 "it is applied at a start with no other process on the file", src, (long)holder);
		return 0;
	}
	if (restore_check(src, err, sizeof(err)) < 0) {
		log_error("db", "%s: %s: not applied", src, err);
		return -EINVAL;
	}
	unlink_side(src);
	/* The previous database is kept as PATH.prev: a consistent copy made by
	 * SQLite (its WAL included), or the file as it is when SQLite cannot read it. */
	snprintf(prev, sizeof(prev), "%s.prev", path);
	if (access(path, F_OK) == 0) {
		struct sql *old = NULL;
		struct sql_stmt *st = NULL;
		int fd, ok = 0;

		unlink(prev);
		fd = open(prev, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
		if (fd >= 0)
			close(fd);
		if (fd >= 0 && db_conn_open(path, &old) == 0 &&
		    sql_prepare(old, "VACUUM INTO ?", 0, &st) == 0 &&
		    sql_bind_text(st, 1, prev, -1) == 0)
			ok = sql_step(st) == SQL_DONE;
		sql_finalize(st);
		sql_close(old);
		if (!ok) {
			unlink(prev);
			if (copy_private(path, prev) < 0) {
				log_error("db", "cannot keep %s as %s: restore not applied", path, prev);
				return -EIO;
			}
		}
	}
	/* The old WAL belongs to the old file (kept in PATH.prev): drop it before the swap. */
	unlink_side(path);
	if (rename(src, path) != 0) {
		int e = errno;
		log_error("db", "cannot move %s over %s: %s", src, path, strerror(e));
		return -e;
	}
	log_info("db", "restored %s from a staged backup; the previous database is %s", path, prev);
	return 0;
}
