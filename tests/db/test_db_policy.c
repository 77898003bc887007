/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* db/ schema v3: migration of a real v2 file, policy profiles (CRUD, checks,
 * in-use delete, subscribers referring to them, TOML import with policy =),
 * the settings key/value table and explicit transactions. Real SQLite files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "db/db_int.h"
#include "dbtest.h"

static void sub_init(struct db_subscriber *s, const char *supi, const char *policy)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->supi, sizeof(s->supi), "%s", supi);
	memset(s->k, 1, 16);
	memset(s->opc, 2, 16);
	s->op_is_opc = true;
	s->amf = DB_DEFAULT_AMF;
	snprintf(s->policy, sizeof(s->policy), "%s", policy ? policy : "");
}

static void pol_init(struct db_policy *p, const char *name)
{
	memset(p, 0, sizeof(*p));
	snprintf(p->name, sizeof(p->name), "%s", name);
	p->n_dnns = 2;
	strcpy(p->dnns[0], "internet");
	strcpy(p->dnns[1], "ims");
	p->n_slices = 2;
	p->slices[0] = (struct db_snssai){ .sst = 1, .sd = 0x000001 };
	p->slices[1] = (struct db_snssai){ .sst = 2, .sd = DB_SD_NONE };
	p->ambr_ul = 50000000;
	p->ambr_dl = 1000000000;
	p->default_5qi = 8;
	p->arp = 5;
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
		const char *v = sql_column_text(st, sql_column_count(st) - 1);
		snprintf(out + l, n - l, "%s|", v ? v : "NULL");
	}
	sql_finalize(st);
	sql_close(c);
}

/* Schema version 2 exactly as released (migrations 1 and 2 of db.c). */
static const char v2_schema[] =
	"CREATE TABLE subscribers ("
	" supi TEXT PRIMARY KEY NOT NULL,"
	" k BLOB NOT NULL CHECK (length(k) = 16),"
	" opc BLOB NOT NULL CHECK (length(opc) = 16),"
	" op_is_opc INTEGER NOT NULL DEFAULT 1 CHECK (op_is_opc IN (0, 1)),"
	" amf INTEGER NOT NULL DEFAULT 32768 CHECK (amf BETWEEN 0 AND 65535),"
	" sqn INTEGER NOT NULL DEFAULT 0 CHECK (sqn BETWEEN 0 AND 281474976710655),"
	" slices TEXT NOT NULL DEFAULT '',"
	" dnns TEXT NOT NULL DEFAULT '',"
	" ambr_ul INTEGER NOT NULL DEFAULT 0,"
	" ambr_dl INTEGER NOT NULL DEFAULT 0,"
	" default_5qi INTEGER NOT NULL DEFAULT 0 CHECK (default_5qi BETWEEN 0 AND 255),"
	" arp INTEGER NOT NULL DEFAULT 0 CHECK (arp BETWEEN 0 AND 15),"
	" created INTEGER NOT NULL,"
	" updated INTEGER NOT NULL"
	") WITHOUT ROWID;"
	"CREATE TABLE users (name TEXT PRIMARY KEY NOT NULL,"
	" role INTEGER NOT NULL CHECK (role BETWEEN 1 AND 3), pw TEXT NOT NULL,"
	" created INTEGER NOT NULL, updated INTEGER NOT NULL) WITHOUT ROWID;"
	"CREATE TABLE tokens (id INTEGER PRIMARY KEY, name TEXT NOT NULL, owner TEXT NOT NULL,"
	" role INTEGER NOT NULL CHECK (role BETWEEN 1 AND 3),"
	" hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32), created INTEGER NOT NULL);"
	"CREATE TABLE audit (id INTEGER PRIMARY KEY, ts INTEGER NOT NULL, who TEXT NOT NULL,"
	" action TEXT NOT NULL, detail TEXT NOT NULL DEFAULT '');"
	"INSERT INTO subscribers (supi, k, opc, sqn, slices, dnns, ambr_ul, arp, created, updated)"
	" VALUES ('imsi-001010000000001', zeroblob(16), zeroblob(16), 42, '1:000001', 'internet',"
	" 7000, 3, 1, 1);"
	"INSERT INTO users VALUES ('admin', 3, 'pbkdf2-sha256$1$00$00', 1, 1);"
	"INSERT INTO audit (ts, who, action) VALUES (1, 'admin', 'login');"
	"PRAGMA user_version = 2;";

static void test_migrate_v2_to_v3(void **state)
{
	struct dbt t;
	struct db *db;
	struct sql *c;
	char out[512];
	struct db_subscriber s;

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_conn(&t, &c), 0);
	assert_int_equal(sql_exec(c, v2_schema), 0);
	sql_close(c);

	assert_int_equal(db_schema_latest(), 6);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_schema_version(db), 6);
	/* v2 data kept; the new column reads as "no policy". */
	assert_int_equal(db_subscriber_count(db), 1);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000001", &s), 0);
	assert_int_equal(s.sqn, 42);
	assert_int_equal(s.ambr_ul, 7000);
	assert_int_equal(s.arp, 3);
	assert_int_equal(s.n_slices, 1);
	assert_string_equal(s.dnns[0], "internet");
	assert_string_equal(s.policy, "");
	/* v5: no UE-AMBR of its own (the policy's or the network default) */
	assert_int_equal(s.ue_ambr_ul, 0);
	assert_int_equal(s.ue_ambr_dl, 0);
	assert_int_equal(db_user_count(db), 1);
	/* The upgraded file takes policies, references and settings. */
	struct db_policy p;
	pol_init(&p, "gold");
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), 0);
	strcpy(s.policy, "gold");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_policy_users(db, "gold"), 1);
	assert_int_equal(db_setting_put(db, "net.tacs", "[1,2]"), 0);
	db_close(db);

	sql_text(&t, "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name", out,
		 sizeof(out));
	assert_string_equal(out, "audit|changes|nodes|policies|settings|sqlite_sequence|subscribers|tokens|users|");
	sql_text(&t, "SELECT name FROM sqlite_master WHERE type = 'index' AND sql IS NOT NULL",
		 out, sizeof(out));
	assert_string_equal(out, "subscribers_policy|");
	sql_text(&t, "PRAGMA user_version", out, sizeof(out));
	assert_string_equal(out, "6|");
	sql_text(&t, "SELECT policy FROM subscribers", out, sizeof(out));
	assert_string_equal(out, "gold|");
	sql_text(&t, "PRAGMA foreign_key_check", out, sizeof(out));
	assert_string_equal(out, "");

	/* Reopening a current file runs nothing and keeps everything. */
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_schema_version(db), 6);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000001", &s), 0);
	assert_string_equal(s.policy, "gold");
	db_close(db);
	dbt_cleanup(&t);
}

/* Schema v5: the UE-AMBR of subscribers and policies is stored apart from the session-AMBR
 * and read back as written (TS 23.501 5.7.2.6); a GBR default 5QI is refused at provisioning
 * (TS 23.501 5.7.2.7). */
static void test_ue_ambr_and_gbr(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_policy p, q;
	struct db_subscriber s, r;
	const char *field = NULL;
	char err[160];

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	pol_init(&p, "ue-200m");
	p.ue_ambr_ul = 200000000;
	p.ue_ambr_dl = 2000000000;
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), 0);
	assert_int_equal(db_policy_get(db, "ue-200m", &q), 0);
	assert_int_equal(q.ue_ambr_ul, 200000000);
	assert_int_equal(q.ue_ambr_dl, 2000000000);
	assert_int_equal(q.ambr_ul, p.ambr_ul);   /* the session-AMBR is its own column */
	p.ue_ambr_dl = 3000000000;
	assert_int_equal(db_policy_put(db, &p, DB_PUT_REPLACE), 0);
	assert_int_equal(db_policy_get(db, "ue-200m", &q), 0);
	assert_int_equal(q.ue_ambr_dl, 3000000000);
	p.ue_ambr_dl = 4000000000001ull;
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "ue_ambr_dl");
	p.ue_ambr_dl = 0;
	for (unsigned qi = 1; qi <= 255; qi++) {
		bool gbr = (qi <= 4) || (qi >= 65 && qi <= 67) || (qi >= 71 && qi <= 76) ||
			   (qi >= 82 && qi <= 85);

		p.default_5qi = (uint8_t)qi;
		field = NULL;
		assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), gbr ? -EINVAL : 0);
		if (gbr)
			assert_string_equal(field, "default_5qi");
	}

	memset(&s, 0, sizeof(s));
	strcpy(s.supi, "imsi-001010000000077");
	s.op_is_opc = true;
	s.ue_ambr_ul = 123000;
	s.ue_ambr_dl = 4000000000000ull;
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_subscriber_get(db, s.supi, &r), 0);
	assert_int_equal(r.ue_ambr_ul, 123000);
	assert_int_equal(r.ue_ambr_dl, 4000000000000ull);
	assert_int_equal(r.ambr_ul, 0);
	s.default_5qi = 1;   /* GBR (conversational voice) */
	assert_int_equal(db_subscriber_check(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "non-GBR"));
	assert_int_equal(db_subscriber_put(db, &s), -EINVAL);
	assert_int_equal(db_subscriber_get(db, s.supi, &r), 0);
	assert_int_equal(r.default_5qi, 0);   /* the refused write changed nothing */
	s.default_5qi = 9;
	s.ue_ambr_ul = 4000000000001ull;
	assert_int_equal(db_subscriber_check(&s, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "ue_ambr"));
	db_close(db);
	dbt_cleanup(&t);
}

static void test_policy_check(void **state)
{
	struct db_policy p;
	const char *field = NULL;
	char err[96];

	(void)state;
	pol_init(&p, "internet-1g.v2_A");
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), 0);
	/* Empty lists and zeros are "network default": valid. */
	memset(&p, 0, sizeof(p));
	strcpy(p.name, "x");
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), 0);

	static const struct { const char *name; const char *field; } names[] = {
		{ "", "name" }, { "a b", "name" }, { "a/b", "name" }, { "ä", "name" },
	};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		pol_init(&p, names[i].name);
		field = NULL;
		assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
		assert_string_equal(field, names[i].field);
	}
	assert_true(db_policy_name_valid("abcdefghijabcdefghijabcdefghij12"));   /* 32 */
	assert_false(db_policy_name_valid("abcdefghijabcdefghijabcdefghij123"));
	assert_false(db_policy_name_valid(NULL));

	pol_init(&p, "p");
	strcpy(p.dnns[1], "internet");
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "dnns");
	pol_init(&p, "p");
	strcpy(p.dnns[1], "bad dnn");
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "dnns");
	pol_init(&p, "p");
	p.n_dnns = DB_MAX_DNNS + 1;
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "dnns");
	pol_init(&p, "p");
	p.slices[1] = p.slices[0];
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "slices");
	pol_init(&p, "p");
	p.slices[0].sd = 0x1000000;
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "slices");
	pol_init(&p, "p");
	p.ambr_dl = (uint64_t)INT64_MAX + 1;
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "ambr_dl");
	pol_init(&p, "p");
	p.arp = 16;
	assert_int_equal(db_policy_check(&p, &field, err, sizeof(err)), -EINVAL);
	assert_string_equal(field, "arp");
	assert_string_equal(err, "arp must be 1..15");
}

struct names { char buf[256]; };

static int name_cb(const struct db_policy *p, void *arg)
{
	struct names *n = arg;
	size_t l = strlen(n->buf);
	snprintf(n->buf + l, sizeof(n->buf) - l, "%s|", p->name);
	return 0;
}

static int supi_cb(const struct db_subscriber *s, void *arg)
{
	struct names *n = arg;
	size_t l = strlen(n->buf);
	snprintf(n->buf + l, sizeof(n->buf) - l, "%s:%s|", s->supi + 19, s->policy);
	return 0;
}

static void test_policy_crud(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_policy p, g;
	struct db_subscriber s;
	struct names n;

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_policy_get(db, "gold", &g), -ENOENT);
	pol_init(&p, "gold");
	assert_int_equal(db_policy_put(db, &p, DB_PUT_REPLACE), -ENOENT);
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), 0);
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), -EEXIST);
	assert_int_equal(db_policy_get(db, "gold", &g), 0);
	assert_string_equal(g.name, "gold");
	assert_int_equal(g.n_dnns, 2);
	assert_string_equal(g.dnns[0], "internet");
	assert_string_equal(g.dnns[1], "ims");
	assert_int_equal(g.n_slices, 2);
	assert_int_equal(g.slices[0].sst, 1);
	assert_int_equal(g.slices[0].sd, 1);
	assert_int_equal(g.slices[1].sst, 2);
	assert_int_equal(g.slices[1].sd, DB_SD_NONE);
	assert_int_equal(g.ambr_ul, 50000000);
	assert_int_equal(g.ambr_dl, 1000000000);
	assert_int_equal(g.default_5qi, 8);
	assert_int_equal(g.arp, 5);
	assert_true(g.created > 0 && g.updated >= g.created);

	/* Full replace: lists emptied, values changed, created kept. */
	memset(&p, 0, sizeof(p));
	strcpy(p.name, "gold");
	p.ambr_dl = 5;
	assert_int_equal(db_policy_put(db, &p, DB_PUT_REPLACE), 0);
	int64_t created = g.created;
	assert_int_equal(db_policy_get(db, "gold", &g), 0);
	assert_int_equal(g.n_dnns, 0);
	assert_int_equal(g.n_slices, 0);
	assert_int_equal(g.ambr_ul, 0);
	assert_int_equal(g.ambr_dl, 5);
	assert_int_equal(g.created, created);
	/* Upsert both ways; an invalid one is refused. */
	pol_init(&p, "bronze");
	assert_int_equal(db_policy_put(db, &p, DB_PUT_UPSERT), 0);
	p.arp = 9;
	assert_int_equal(db_policy_put(db, &p, DB_PUT_UPSERT), 0);
	assert_int_equal(db_policy_get(db, "bronze", &g), 0);
	assert_int_equal(g.arp, 9);
	p.arp = 99;
	assert_int_equal(db_policy_put(db, &p, DB_PUT_UPSERT), -EINVAL);
	assert_int_equal(db_policy_get(db, "a b", &g), -ENOENT);

	memset(&n, 0, sizeof(n));
	assert_int_equal(db_policy_walk(db, name_cb, &n), 2);
	assert_string_equal(n.buf, "bronze|gold|");

	/* Subscribers: an unknown policy is refused, a known one stored. */
	sub_init(&s, "imsi-001010000000001", "silver");
	assert_int_equal(db_subscriber_put(db, &s), -ENOENT);
	assert_int_equal(db_subscriber_get(db, s.supi, &s), -ENOENT);
	sub_init(&s, "imsi-001010000000001", "gold");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	sub_init(&s, "imsi-001010000000002", "gold");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	sub_init(&s, "imsi-001010000000003", NULL);
	assert_int_equal(db_subscriber_put(db, &s), 0);
	sub_init(&s, "imsi-001010000000004", "bronze");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	sub_init(&s, "imsi-001010000000005", "a b");
	assert_int_equal(db_subscriber_put(db, &s), -EINVAL);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000002", &s), 0);
	assert_string_equal(s.policy, "gold");
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000003", &s), 0);
	assert_string_equal(s.policy, "");
	assert_int_equal(db_policy_users(db, "gold"), 2);
	assert_int_equal(db_policy_users(db, "bronze"), 1);
	assert_int_equal(db_policy_users(db, "none"), 0);
	memset(&n, 0, sizeof(n));
	assert_int_equal(db_subscriber_walk_policy(db, "gold", supi_cb, &n), 2);
	assert_string_equal(n.buf, "1:gold|2:gold|");
	memset(&n, 0, sizeof(n));
	assert_int_equal(db_load_subscribers(db, supi_cb, &n), 4);
	assert_string_equal(n.buf, "1:gold|2:gold|3:|4:bronze|");

	/* In use: not deleted, still there; after reassignment: deleted. */
	assert_int_equal(db_policy_delete(db, "gold"), -EBUSY);
	assert_int_equal(db_policy_get(db, "gold", &g), 0);
	assert_int_equal(db_policy_delete(db, "nosuch"), -ENOENT);
	sub_init(&s, "imsi-001010000000001", "bronze");
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_policy_delete(db, "gold"), -EBUSY);
	assert_int_equal(db_subscriber_delete(db, "imsi-001010000000002"), 0);
	assert_int_equal(db_policy_users(db, "gold"), 0);
	assert_int_equal(db_policy_delete(db, "gold"), 0);
	assert_int_equal(db_policy_get(db, "gold", &g), -ENOENT);
	assert_int_equal(db_policy_delete(db, "gold"), -ENOENT);
	assert_int_equal(db_policy_users(db, "bronze"), 2);
	db_close(db);

	/* The foreign key backs this even for writers that skip the API. */
	char out[256];
	struct sql *c;
	assert_int_equal(dbt_conn(&t, &c), 0);
	assert_int_equal(sql_exec(c, "DELETE FROM policies WHERE name = 'bronze'"), -EEXIST);
	assert_int_equal(sql_exec(c, "UPDATE subscribers SET policy = 'zz'"), -EEXIST);
	sql_close(c);
	/* Counting users and walking them read the partial index, not the table. */
	assert_int_equal(dbt_conn(&t, &c), 0);
	struct sql_stmt *st;
	assert_int_equal(sql_prepare(c, "EXPLAIN QUERY PLAN SELECT count(*) FROM subscribers"
				     " WHERE policy = 'bronze'", 0, &st), 0);
	out[0] = 0;
	while (sql_step(st) == SQL_ROW)
		snprintf(out + strlen(out), sizeof(out) - strlen(out), "%s;", sql_column_text(st, 3));
	sql_finalize(st);
	sql_close(c);
	assert_non_null(strstr(out, "subscribers_policy"));
	dbt_cleanup(&t);
}

static void test_import_policy(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_policy p;
	struct db_subscriber s;
	char err[256];

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	pol_init(&p, "gold");
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), 0);
	dbt_write(t.file,
		  "[imsi-001010000000001]\n"
		  "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
		  "opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n"
		  "policy = \"gold\"\n"
		  "[imsi-001010000000002]\n"
		  "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
		  "opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n"
		  "policy = \"silver\"\n");
	assert_int_equal(db_import_toml(db, t.file, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sims.toml:8: [imsi-001010000000002] unknown policy \"silver\""));
	assert_int_equal(db_subscriber_count(db), 0);
	dbt_write(t.file,
		  "[imsi-001010000000003]\n"
		  "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
		  "opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n"
		  "policy = 7\n");
	assert_int_equal(db_import_toml(db, t.file, err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "sims.toml:4: [imsi-001010000000003] policy must be"));
	dbt_write(t.file,
		  "[imsi-001010000000001]\n"
		  "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
		  "opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n"
		  "policy = \"gold\"\n"
		  "arp = 2\n"
		  "[imsi-001010000000002]\n"
		  "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
		  "opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n");
	assert_int_equal(db_import_toml(db, t.file, err, sizeof(err)), 2);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000001", &s), 0);
	assert_string_equal(s.policy, "gold");
	assert_int_equal(s.arp, 2);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000002", &s), 0);
	assert_string_equal(s.policy, "");
	assert_int_equal(db_policy_users(db, "gold"), 1);
	db_close(db);
	dbt_cleanup(&t);
}

/* `solocore sims import` (db_cli_sims): exit 1 and nothing imported for an unknown
 * policy, 0 once it exists. */
static void test_import_policy_cli(void **state)
{
	struct dbt t;
	struct db *db;
	struct db_policy p;
	struct db_subscriber s;

	(void)state;
	DBT_FILE_ONLY("`solocore sims import --db PATH` opens a SQLite file (the CLI has no dqlite option)");
	dbt_init(&t);
	char *argv[] = { "sims", "import", t.file, "--db", t.db, NULL };
	dbt_write(t.file,
		  "[imsi-001010000000005]\n"
		  "ki = \"465B5CE8B199B49FAA5F0A2EE238A6BC\"\n"
		  "opc = \"E8ED289DEBA952E4283B54E88E6183CA\"\n"
		  "policy = \"bronze\"\n");
	assert_int_equal(db_cli_sims(5, argv), 1);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000005", &s), -ENOENT);
	pol_init(&p, "bronze");
	assert_int_equal(db_policy_put(db, &p, DB_PUT_CREATE), 0);
	db_close(db);
	assert_int_equal(db_cli_sims(5, argv), 0);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_subscriber_get(db, "imsi-001010000000005", &s), 0);
	assert_string_equal(s.policy, "bronze");
	db_close(db);
	dbt_cleanup(&t);
}

struct kv { char buf[512]; int stop_at; int seen; };

static int kv_cb(const char *k, const char *v, int64_t updated, void *arg)
{
	struct kv *x = arg;
	size_t l = strlen(x->buf);
	assert_true(updated > 0);
	snprintf(x->buf + l, sizeof(x->buf) - l, "%s=%s|", k, v);
	return ++x->seen == x->stop_at ? 42 : 0;
}

static void test_settings(void **state)
{
	struct dbt t;
	struct db *db;
	char v[32];
	int64_t upd = 0;
	struct kv kv;

	(void)state;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_setting_get(db, "net.plmn", v, sizeof(v), NULL), -ENOENT);
	assert_int_equal(db_setting_put(db, "net.plmn", "{\"mcc\":\"001\"}"), 0);
	assert_int_equal(db_setting_get(db, "net.plmn", v, sizeof(v), &upd), 13);
	assert_string_equal(v, "{\"mcc\":\"001\"}");
	assert_true(upd > 0);
	/* Overwrite; a value that does not fit is -ENOSPC, not truncated. */
	assert_int_equal(db_setting_put(db, "net.plmn", "{\"mcc\":\"999\",\"mnc\":\"70\"}"), 0);
	assert_int_equal(db_setting_get(db, "net.plmn", v, 10, NULL), -ENOSPC);
	assert_string_equal(v, "");
	assert_int_equal(db_setting_get(db, "net.plmn", v, sizeof(v), NULL), 24);
	assert_string_equal(v, "{\"mcc\":\"999\",\"mnc\":\"70\"}");
	assert_int_equal(db_setting_put(db, "net.tacs", "[1,2,3]"), 0);
	assert_int_equal(db_setting_put(db, "net.empty", ""), 0);
	assert_int_equal(db_setting_get(db, "net.empty", v, sizeof(v), NULL), 0);
	assert_int_equal(db_setting_put(db, "ui.theme", "dark"), 0);
	/* Bad keys and values. */
	assert_int_equal(db_setting_put(db, "", "x"), -EINVAL);
	assert_int_equal(db_setting_put(db, "a b", "x"), -EINVAL);
	assert_int_equal(db_setting_put(db, "k", NULL), -EINVAL);
	char key[DB_SETTING_KEY_MAX + 2];
	memset(key, 'k', sizeof(key) - 1);
	key[sizeof(key) - 1] = 0;
	assert_int_equal(db_setting_put(db, key, "x"), -EINVAL);
	key[DB_SETTING_KEY_MAX] = 0;
	assert_int_equal(db_setting_put(db, key, "x"), 0);
	assert_int_equal(db_setting_delete(db, key), 0);
	char *big = malloc(DB_SETTING_VALUE_MAX + 2);
	assert_non_null(big);
	memset(big, 'v', DB_SETTING_VALUE_MAX + 1);
	big[DB_SETTING_VALUE_MAX + 1] = 0;
	assert_int_equal(db_setting_put(db, "big", big), -EINVAL);
	big[DB_SETTING_VALUE_MAX] = 0;
	assert_int_equal(db_setting_put(db, "big", big), 0);
	char *back = malloc(DB_SETTING_VALUE_MAX + 1);
	assert_non_null(back);
	assert_int_equal(db_setting_get(db, "big", back, DB_SETTING_VALUE_MAX + 1, NULL),
			 DB_SETTING_VALUE_MAX);
	assert_memory_equal(back, big, DB_SETTING_VALUE_MAX + 1);
	free(back);
	free(big);
	assert_int_equal(db_setting_delete(db, "big"), 0);

	/* Walk: all in key order, by prefix, stopped by the callback. */
	memset(&kv, 0, sizeof(kv));
	assert_int_equal(db_setting_walk(db, NULL, kv_cb, &kv), 4);
	assert_string_equal(kv.buf, "net.empty=|net.plmn={\"mcc\":\"999\",\"mnc\":\"70\"}|"
			    "net.tacs=[1,2,3]|ui.theme=dark|");
	memset(&kv, 0, sizeof(kv));
	assert_int_equal(db_setting_walk(db, "net.", kv_cb, &kv), 3);
	memset(&kv, 0, sizeof(kv));
	assert_int_equal(db_setting_walk(db, "ui", kv_cb, &kv), 1);
	assert_string_equal(kv.buf, "ui.theme=dark|");
	memset(&kv, 0, sizeof(kv));
	assert_int_equal(db_setting_walk(db, "zz", kv_cb, &kv), 0);
	memset(&kv, 0, sizeof(kv));
	kv.stop_at = 2;
	assert_int_equal(db_setting_walk(db, "", kv_cb, &kv), 42);
	assert_int_equal(kv.seen, 2);

	assert_int_equal(db_setting_delete(db, "ui.theme"), 0);
	assert_int_equal(db_setting_delete(db, "ui.theme"), -ENOENT);
	assert_int_equal(db_setting_get(db, "ui.theme", v, sizeof(v), NULL), -ENOENT);

	/* Transactions: a rolled-back group leaves nothing, a committed one all. */
	assert_int_equal(db_tx_rollback(db), 0);
	assert_int_equal(db_tx_begin(db), 0);
	assert_int_equal(db_tx_begin(db), -EBUSY);
	assert_int_equal(db_setting_put(db, "net.tacs", "[9]"), 0);
	assert_int_equal(db_setting_put(db, "net.new", "1"), 0);
	assert_int_equal(db_tx_rollback(db), 0);
	assert_int_equal(db_setting_get(db, "net.tacs", v, sizeof(v), NULL), 7);
	assert_string_equal(v, "[1,2,3]");
	assert_int_equal(db_setting_get(db, "net.new", v, sizeof(v), NULL), -ENOENT);
	assert_int_equal(db_tx_commit(db), -EINVAL);
	assert_int_equal(db_tx_begin(db), 0);
	assert_int_equal(db_setting_put(db, "net.tacs", "[9]"), 0);
	assert_int_equal(db_setting_put(db, "net.new", "1"), 0);
	assert_int_equal(db_tx_commit(db), 0);
	db_close(db);

	/* Persisted across a reopen. */
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_setting_get(db, "net.tacs", v, sizeof(v), NULL), 3);
	assert_string_equal(v, "[9]");
	assert_int_equal(db_setting_get(db, "net.new", v, sizeof(v), NULL), 1);
	db_close(db);
	dbt_cleanup(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrate_v2_to_v3),
		cmocka_unit_test(test_policy_check),
		cmocka_unit_test(test_ue_ambr_and_gbr),
		cmocka_unit_test(test_policy_crud),
		cmocka_unit_test(test_import_policy),
		cmocka_unit_test(test_import_policy_cli),
		cmocka_unit_test(test_settings),
	};
	if (dbt_backend_init(argc, argv) < 0)
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	dbt_backend_fini();
	return r;
}
