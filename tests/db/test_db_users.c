/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* db/ schema v2: migration from v1, users (PBKDF2), tokens (hashed), audit
 * log, backup/restore staging, the users CLI, and the paged subscriber list
 * (an indexed range, checked with EXPLAIN QUERY PLAN). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>
#include <sqlite3.h>   /* test_backup_restore crafts a bad file with SQLite itself */

#include "db/db_int.h"
#include "dbtest.h"

static void sub_init(struct db_subscriber *s, const char *supi)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->supi, sizeof(s->supi), "%s", supi);
	memset(s->k, 1, 16);
	memset(s->opc, 2, 16);
	s->op_is_opc = true;
	s->amf = DB_DEFAULT_AMF;
}

static void sql_text(const struct dbt *t, const char *q, char *out, size_t n)
{
	struct sql *c;
	struct sql_stmt *st;

	assert_int_equal(dbt_conn(t, &c), 0);
	assert_int_equal(sql_prepare(c, q, 0, &st), 0);
	out[0] = 0;
	while (sql_step(st) == SQL_ROW) {
		size_t l = strlen(out);
		snprintf(out + l, n - l, "%s|", sql_column_text(st, sql_column_count(st) - 1));
	}
	sql_finalize(st);
	sql_close(c);
}

static void test_migrate_v1_to_v2(void **state)
{
	struct dbt t;
	struct db *db;
	char out[512];

	(void)state;
	dbt_init(&t);
	/* A version-1 file as released. */
	assert_int_equal(dbt_sql_exec(&t, "CREATE TABLE subscribers (supi TEXT PRIMARY KEY NOT NULL,"
				      " k BLOB NOT NULL, opc BLOB NOT NULL, op_is_opc INTEGER NOT NULL DEFAULT 1,"
				      " amf INTEGER NOT NULL DEFAULT 32768, sqn INTEGER NOT NULL DEFAULT 0,"
				      " slices TEXT NOT NULL DEFAULT '', dnns TEXT NOT NULL DEFAULT '',"
				      " ambr_ul INTEGER NOT NULL DEFAULT 0, ambr_dl INTEGER NOT NULL DEFAULT 0,"
				      " default_5qi INTEGER NOT NULL DEFAULT 0, arp INTEGER NOT NULL DEFAULT 0,"
				      " created INTEGER NOT NULL, updated INTEGER NOT NULL) WITHOUT ROWID;"
				      "INSERT INTO subscribers (supi, k, opc, created, updated) VALUES"
				      " ('imsi-001010000000001', zeroblob(16), zeroblob(16), 1, 1);"
				      "PRAGMA user_version = 1;"), 0);
	/* Opening runs every later step too (v2 -> v3: test_db_policy). */
	assert_int_equal(db_schema_latest(), 6);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_schema_version(db), 6);
	assert_int_equal(db_subscriber_count(db), 1);
	assert_int_equal(db_user_count(db), 0);
	db_close(db);
	sql_text(&t, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", out, sizeof(out));
	assert_string_equal(out, "audit|changes|nodes|policies|settings|sqlite_sequence|subscribers|tokens|users|");
	dbt_cleanup(&t);
}

static void test_users(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_user u;
	char out[512];
	int role = 0;

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	/* The default iteration count is the one stored. */
	assert_int_equal(db_user_kdf_iter(0), DB_KDF_ITER_DEFAULT);
	assert_int_equal(db_user_create(db, "alice", DB_ROLE_ADMIN, "secret password"), 0);
	db_user_kdf_iter(1000);
	assert_int_equal(db_user_create(db, "bob", DB_ROLE_READ, "another one"), 0);
	assert_int_equal(db_user_create(db, "bob", DB_ROLE_READ, "another one"), -EEXIST);
	assert_int_equal(db_user_create(db, "b b", DB_ROLE_READ, "another one"), -EINVAL);
	assert_int_equal(db_user_create(db, "carl", 4, "another one"), -EINVAL);
	assert_int_equal(db_user_create(db, "carl", DB_ROLE_READ, "short"), -EINVAL);
	assert_int_equal(db_user_verify(db, "alice", "secret password", &role), 0);
	assert_int_equal(role, DB_ROLE_ADMIN);
	assert_int_equal(db_user_verify(db, "alice", "secret passwore", &role), -EACCES);
	assert_int_equal(db_user_verify(db, "nobody", "secret password", &role), -EACCES);
	assert_int_equal(db_user_update(db, "bob", DB_ROLE_OPERATOR, "changed it"), 0);
	assert_int_equal(db_user_verify(db, "bob", "another one", &role), -EACCES);
	assert_int_equal(db_user_verify(db, "bob", "changed it", &role), 0);
	assert_int_equal(role, DB_ROLE_OPERATOR);
	assert_int_equal(db_user_get(db, "bob", &u), 0);
	assert_int_equal(db_user_count_role(db, DB_ROLE_ADMIN), 1);
	assert_int_equal(db_user_delete(db, "bob"), 0);
	assert_int_equal(db_user_delete(db, "bob"), -ENOENT);
	assert_int_equal(db_user_update(db, "bob", 0, NULL), -ENOENT);
	db_close(db);
	sql_text(&t, "SELECT pw FROM users", out, sizeof(out));
	assert_memory_equal(out, "pbkdf2-sha256$600000$", 21);
	assert_null(strstr(out, "secret"));
	dbt_cleanup(&t);
}

static int count_cb(const struct db_token *tk, void *arg)
{
	(void)tk;
	++*(int *)arg;
	return 0;
}

static int audit_cb(const struct db_audit *a, void *arg)
{
	char *s = arg;
	strcat(s, a->action);
	strcat(s, ";");
	return 0;
}

static void test_tokens_audit(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_token tk;
	char tok[DB_TOKEN_LEN + 1], out[512] = "";
	int64_t id;
	int n = 0;

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_token_create(db, "ci", "alice", DB_ROLE_READ, tok, &id), 0);
	assert_int_equal(strlen(tok), DB_TOKEN_LEN);
	assert_int_equal(db_token_check(db, tok, &tk), 0);
	assert_int_equal(tk.id, id);
	assert_string_equal(tk.owner, "alice");
	tok[10] ^= 1;
	assert_int_equal(db_token_check(db, tok, &tk), -ENOENT);
	assert_int_equal(db_token_list(db, count_cb, &n), 1);
	assert_int_equal(db_token_delete_owner(db, "alice"), 0);
	assert_int_equal(db_token_delete(db, id), -ENOENT);
	assert_int_equal(db_audit_add(db, "alice", "a1", ""), 0);
	assert_int_equal(db_audit_add(db, "alice", "a2", "x"), 0);
	assert_int_equal(db_audit_add(db, "alice", "a3", "y"), 0);
	assert_int_equal(db_audit_list(db, 0, 2, audit_cb, out), 2);
	assert_string_equal(out, "a3;a2;");
	out[0] = 0;
	assert_int_equal(db_audit_list(db, 2, 10, audit_cb, out), 1);
	assert_string_equal(out, "a1;");
	db_close(db);
	/* Only the hash is on disk. */
	tok[10] ^= 1;
	sql_text(&t, "SELECT hex(hash) FROM tokens", out, sizeof(out));
	assert_string_equal(out, "");
	dbt_cleanup(&t);
}

struct page {
	char first[DB_SUPI_MAX], last[DB_SUPI_MAX];
	int n;
};

static int page_cb(const struct db_subscriber *s, void *arg)
{
	struct page *p = arg;

	if (!p->n++)
		strcpy(p->first, s->supi);
	strcpy(p->last, s->supi);
	return 0;
}

static void test_subscriber_list(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_subscriber s;
	struct page p;
	char supi[DB_SUPI_MAX], plan[1024];

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	for (int i = 0; i < 200; i++) {
		snprintf(supi, sizeof(supi), "imsi-00101%010d", i);
		sub_init(&s, supi);
		assert_int_equal(db_subscriber_put(db, &s), 0);
		snprintf(supi, sizeof(supi), "imsi-00102%010d", i);
		sub_init(&s, supi);
		assert_int_equal(db_subscriber_put(db, &s), 0);
	}
	memset(&p, 0, sizeof(p));
	assert_int_equal(db_subscriber_list(db, NULL, 190, 20, page_cb, &p), 20);
	assert_string_equal(p.first, "imsi-001010000000190");
	assert_string_equal(p.last, "imsi-001020000000009");
	memset(&p, 0, sizeof(p));
	assert_int_equal(db_subscriber_list(db, "00102", 195, 20, page_cb, &p), 5);
	assert_string_equal(p.first, "imsi-001020000000195");
	memset(&p, 0, sizeof(p));
	assert_int_equal(db_subscriber_list(db, "001010000000012", 0, 50, page_cb, &p), 1);
	assert_int_equal(db_subscriber_list(db, "00103", 0, 50, page_cb, &p), 0);
	assert_int_equal(db_subscriber_count_prefix(db, "00102"), 200);
	assert_int_equal(db_subscriber_count_prefix(db, "00102000000001"), 10);
	assert_int_equal(db_subscriber_count_prefix(db, NULL), 400);
	assert_int_equal(db_subscriber_list(db, "0010100000000012", 0, 5, page_cb, &p), -EINVAL);
	/* Cursor pages: after the last SUPI of the previous page, inside the prefix. */
	memset(&p, 0, sizeof(p));
	assert_int_equal(db_subscriber_list_after(db, NULL, "imsi-001010000000199", 3, page_cb, &p), 3);
	assert_string_equal(p.first, "imsi-001020000000000");
	memset(&p, 0, sizeof(p));
	assert_int_equal(db_subscriber_list_after(db, "00101", "imsi-001010000000197", 50, page_cb, &p), 2);
	assert_string_equal(p.last, "imsi-001010000000199");
	memset(&p, 0, sizeof(p));
	assert_int_equal(db_subscriber_list_after(db, "00102", "imsi-00101", 1, page_cb, &p), 1);
	assert_string_equal(p.first, "imsi-001020000000000");
	/* The cached count follows puts and deletes. */
	assert_int_equal(db_subscriber_count(db), 400);
	assert_int_equal(db_subscriber_delete(db, "imsi-001020000000000"), 0);
	assert_int_equal(db_subscriber_count(db), 399);
	sub_init(&s, "imsi-001030000000000");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_subscriber_count_prefix(db, ""), 400);
	db_close(db);
	/* A search of the primary key, never a full scan. */
	sql_text(&t, "EXPLAIN QUERY PLAN SELECT * FROM subscribers WHERE supi >= 'imsi-00102'"
		 " AND supi < 'imsi-00102:' ORDER BY supi LIMIT 10 OFFSET 5", plan, sizeof(plan));
	assert_non_null(strstr(plan, "SEARCH subscribers USING PRIMARY KEY"));
	dbt_cleanup(&t);
}

static void test_backup_restore(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_subscriber s;
	char bk[128], staged[128], err[160];

	(void)state;
	DBT_FILE_ONLY("backup (VACUUM INTO) and staged restore need a local SQLite file");
	dbt_init(&t);
	snprintf(bk, sizeof(bk), "%s/bk.db", t.dir);
	snprintf(staged, sizeof(staged), "%s.restore", t.db);
	assert_int_equal(db_open(t.db, &db), 0);
	sub_init(&s, "imsi-001010000000001");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_backup(db, bk), 0);
	assert_int_equal(db_backup(db, bk), -EEXIST);
	sub_init(&s, "imsi-001010000000002");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	dbt_write(t.file, "garbage, not SQLite");
	assert_int_equal(db_restore_stage(db, t.file, err, sizeof(err)), -EINVAL);
	assert_true(err[0] != 0);
	assert_int_not_equal(access(staged, F_OK), 0);
	/* Issue 15 item 5: an SQLite file with the right user_version but a
	 * subscribers table the core cannot load is refused before staging. */
	{
		char bad[128];
		sqlite3 *c;

		snprintf(bad, sizeof(bad), "%s/bad.db", t.dir);
		assert_int_equal(sqlite3_open(bad, &c), SQLITE_OK);
		assert_int_equal(sqlite3_exec(c, "CREATE TABLE subscribers (x); INSERT INTO subscribers VALUES (1);"
					      "PRAGMA user_version = 3", NULL, NULL, NULL), SQLITE_OK);
		sqlite3_close(c);
		assert_int_equal(db_restore_stage(db, bad, err, sizeof(err)), -EINVAL);
		printf("refused: %s\n", err);
		assert_int_not_equal(access(staged, F_OK), 0);
	}
	assert_int_equal(db_restore_stage(db, bk, err, sizeof(err)), 0);
	db_close(db);
	assert_int_equal(db_open(t.db, &db), 0);
	assert_int_equal(db_subscriber_count(db), 1);
	assert_int_not_equal(access(staged, F_OK), 0);
	db_close(db);
	/* The database it replaced is kept, whole (both subscribers). */
	{
		char prev[160];

		snprintf(prev, sizeof(prev), "%s.prev", t.db);
		assert_int_equal(db_open(prev, &db), 0);
		assert_int_equal(db_subscriber_count(db), 2);
		db_close(db);
	}
	dbt_cleanup(&t);
}

static void test_cli_users(void **state)
{
	struct dbt t;
	struct db *db;

	(void)state;
	DBT_FILE_ONLY("`solocore users --db PATH` opens a SQLite file (the CLI has no dqlite option)");
	dbt_init(&t);
	char *a1[] = { "users", "create", "alice", "--role", "admin", "--db", t.db, NULL };
	char *a2[] = { "users", "create", "bob", "--db", t.db, NULL };
	char *a3[] = { "users", "delete", "alice", "--db", t.db, NULL };
	char *a4[] = { "users", "frob", "--db", t.db, NULL };
	char *a5[] = { "users", "list", "--db", t.db, NULL };
	db_user_kdf_iter(1000);
	assert_int_equal(db_cli_users(7, a1, NULL), 0);
	assert_int_equal(db_cli_users(7, a1, NULL), 1);   /* exists */
	assert_int_equal(db_cli_users(5, a2, NULL), 2);   /* no --role */
	assert_int_equal(db_cli_users(5, a3, NULL), 1);   /* last admin */
	assert_int_equal(db_cli_users(4, a4, NULL), 2);
	assert_int_equal(db_cli_users(4, a5, NULL), 0);
	assert_int_equal(db_open(t.db, &db), 0);
	assert_int_equal(db_user_count_role(db, DB_ROLE_ADMIN), 1);
	db_close(db);
	dbt_cleanup(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_v1_to_v2),
		cmocka_unit_test(test_users),
		cmocka_unit_test(test_tokens_audit),
		cmocka_unit_test(test_subscriber_list),
		cmocka_unit_test(test_backup_restore),
		cmocka_unit_test(test_cli_users),
	};
	if (dbt_backend_init(argc, argv) < 0)
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	dbt_backend_fini();
	return r;
}
