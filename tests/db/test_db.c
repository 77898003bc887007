/* SPDX-License-Identifier: AGPL-3.0-or-later */
/* db: migrations on fresh and existing files, subscriber rows, loading, and the
 * write-behind writer (flush, stop, coalescing, full queue). Real SQLite files. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <sys/prctl.h>
#include <signal.h>

#include <cmocka.h>

#include "db/db_int.h"
#include "dbtest.h"

static void test_migrations(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	/* Fresh file: created at the latest version, WAL on. */
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_true(db_schema_latest() >= 1);
	assert_int_equal(db_schema_version(db), db_schema_latest());
	struct db_subscriber s;
	dbt_sub_init(&s, "imsi-001010000000001", 1);
	assert_int_equal(db_subscriber_put(db, &s), 0);
	db_close(db);
	assert_int_equal(dbt_sql_int(&t, "PRAGMA user_version"), db_schema_latest());
	assert_int_equal(dbt_sql_int(&t, "SELECT count(*) FROM sqlite_master WHERE name = 'subscribers'"),
			 1);

	/* Existing file at the current version: opened as is, data kept. */
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_schema_version(db), db_schema_latest());
	assert_int_equal(db_subscriber_count(db), 1);
	db_close(db);

	/* A file from a newer solocore is refused, not touched. */
	char q[64];
	snprintf(q, sizeof(q), "PRAGMA user_version = %d", db_schema_latest() + 1);
	assert_int_equal(dbt_sql_exec(&t, q), 0);
	assert_int_equal(dbt_open(&t, &db), -EPROTO);
	assert_int_equal(dbt_sql_int(&t, "PRAGMA user_version"), db_schema_latest() + 1);
	dbt_cleanup(&t);
}

/* A file: WAL mode on, and a file that is no database refused. */
static void test_file_wal(void **state)
{
	(void)state;
	DBT_FILE_ONLY("journal mode and a non-database file are properties of a local file");
	struct dbt t;
	struct db *db;
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	db_close(db);
	struct sql *c;
	struct sql_stmt *st;
	assert_int_equal(sql_sqlite_open(t.db, false, &c), 0);
	assert_int_equal(sql_prepare(c, "PRAGMA journal_mode", 0, &st), 0);
	assert_int_equal(sql_step(st), SQL_ROW);
	assert_string_equal(sql_column_text(st, 0), "wal");
	sql_finalize(st);
	sql_close(c);

	/* Not a database at all. */
	dbt_write(t.file, "this is not sqlite, just text long enough to have a header.........\n");
	assert_true(db_open(t.file, &db) < 0);
	dbt_cleanup(&t);
}

/* The migration runner itself, with a longer list: an existing file at
 * version 1 is upgraded step by step; a failing step rolls back alone. */
static void test_migration_steps(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	struct sql *c;
	assert_int_equal(dbt_conn(&t, &c), 0);
	const char *const steps[] = {
		"CREATE TABLE a (x INTEGER); INSERT INTO a VALUES (1);",
		"ALTER TABLE a ADD COLUMN y INTEGER NOT NULL DEFAULT 7;",
		"CREATE TABLE b (z INTEGER); INSERT INTO nosuch VALUES (1);",   /* fails */
	};
	assert_int_equal(db_migrate_steps(c, steps, 1), 0);
	sql_close(c);
	assert_int_equal(dbt_sql_int(&t, "PRAGMA user_version"), 1);

	/* Existing v1 file, list of 2: only step 2 runs, data kept. */
	assert_int_equal(dbt_conn(&t, &c), 0);
	assert_int_equal(db_migrate_steps(c, steps, 2), 0);
	sql_close(c);
	assert_int_equal(dbt_sql_int(&t, "PRAGMA user_version"), 2);
	assert_int_equal(dbt_sql_int(&t, "SELECT x + y FROM a"), 8);

	/* Step 3 fails: version stays 2 and table b does not exist. */
	assert_int_equal(dbt_conn(&t, &c), 0);
	assert_true(db_migrate_steps(c, steps, 3) < 0);
	sql_close(c);
	assert_int_equal(dbt_sql_int(&t, "PRAGMA user_version"), 2);
	assert_int_equal(dbt_sql_int(&t, "SELECT count(*) FROM sqlite_master WHERE name = 'b'"), 0);
	dbt_cleanup(&t);
}

static void test_put_get_delete(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	struct db_subscriber s, g;
	dbt_sub_init(&s, "imsi-001010000000007", 7);
	s.op_is_opc = false;
	s.amf = 0x1234;
	s.sqn = DB_SQN_MAX;
	s.n_slices = 2;
	s.slices[0] = (struct db_snssai){ .sst = 1, .sd = 0x010203 };
	s.slices[1] = (struct db_snssai){ .sst = 255, .sd = DB_SD_NONE };
	s.n_dnns = 1;
	strcpy(s.dnns[0], "internet");
	s.ambr_ul = 1000;
	s.ambr_dl = 2000;
	s.default_5qi = 7;
	s.arp = 1;
	assert_int_equal(db_subscriber_get(db, s.supi, &g), -ENOENT);
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_subscriber_get(db, s.supi, &g), 0);
	assert_memory_equal(g.k, s.k, 16);
	assert_memory_equal(g.opc, s.opc, 16);
	assert_false(g.op_is_opc);
	assert_int_equal(g.amf, 0x1234);
	assert_true(g.sqn == DB_SQN_MAX);
	assert_int_equal(g.n_slices, 2);
	assert_int_equal(g.slices[0].sd, 0x010203);
	assert_int_equal(g.slices[1].sst, 255);
	assert_int_equal(g.slices[1].sd, DB_SD_NONE);
	assert_int_equal(g.n_dnns, 1);
	assert_string_equal(g.dnns[0], "internet");
	assert_true(g.ambr_ul == 1000 && g.ambr_dl == 2000);
	assert_int_equal(g.default_5qi, 7);
	assert_int_equal(g.arp, 1);

	/* Replace keeps the row's created time. */
	int64_t created = g.created;
	s.sqn = 5;
	assert_int_equal(db_subscriber_put(db, &s), 0);
	assert_int_equal(db_subscriber_get(db, s.supi, &g), 0);
	assert_true(g.sqn == 5);
	assert_true(g.created == created);
	assert_int_equal(db_subscriber_count(db), 1);

	/* Invalid rows are refused. */
	struct db_subscriber bad = s;
	strcpy(bad.supi, "imsi-12");
	assert_int_equal(db_subscriber_put(db, &bad), -EINVAL);
	bad = s;
	bad.sqn = DB_SQN_MAX + 1;
	assert_int_equal(db_subscriber_put(db, &bad), -EINVAL);
	bad = s;
	strcpy(bad.dnns[0], "a,b");
	assert_int_equal(db_subscriber_put(db, &bad), -EINVAL);
	bad = s;
	bad.arp = 16;
	assert_int_equal(db_subscriber_put(db, &bad), -EINVAL);
	char why[64];
	assert_int_equal(db_subscriber_check(&bad, why, sizeof(why)), -EINVAL);
	assert_string_equal(why, "arp must be 1..15");

	assert_int_equal(db_subscriber_delete(db, s.supi), 0);
	assert_int_equal(db_subscriber_delete(db, s.supi), -ENOENT);
	assert_int_equal(db_subscriber_count(db), 0);
	db_close(db);
	dbt_cleanup(&t);
}

struct load_ctx {
	int n;
	int stop_at;
	char last[DB_SUPI_MAX];
};

static int load_cb(const struct db_subscriber *s, void *arg)
{
	struct load_ctx *c = arg;
	/* SUPI order and the row's own key bytes. */
	assert_true(strcmp(c->last, s->supi) < 0);
	assert_int_equal(s->k[0], (uint8_t)(atoi(s->supi + 5 + 10)));
	strcpy(c->last, s->supi);
	if (++c->n == c->stop_at)
		return 42;
	return 0;
}

static void test_load(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	struct db *db;
	assert_int_equal(dbt_open(&t, &db), 0);
	struct load_ctx c = { 0 };
	assert_int_equal(db_load_subscribers(db, load_cb, &c), 0);
	for (int i = 99; i >= 0; i--) {
		char supi[32];
		snprintf(supi, sizeof(supi), "imsi-0010100000%05d", i);
		struct db_subscriber s;
		dbt_sub_init(&s, supi, (uint8_t)i);
		assert_int_equal(db_subscriber_put(db, &s), 0);
	}
	assert_int_equal(db_load_subscribers(db, load_cb, &c), 100);
	assert_int_equal(c.n, 100);
	memset(&c, 0, sizeof(c));
	c.stop_at = 10;
	assert_int_equal(db_load_subscribers(db, load_cb, &c), 42);
	assert_int_equal(c.n, 10);
	db_close(db);
	dbt_cleanup(&t);
}

static struct db *open_with(struct dbt *t, int n)
{
	struct db *db;
	assert_int_equal(dbt_open(t, &db), 0);
	for (int i = 0; i < n; i++) {
		char supi[32];
		snprintf(supi, sizeof(supi), "imsi-0010100000%05d", i);
		struct db_subscriber s;
		dbt_sub_init(&s, supi, (uint8_t)i);
		assert_int_equal(db_subscriber_put(db, &s), 0);
	}
	return db;
}

static uint64_t sqn_of(const struct dbt *t, int i)
{
	struct db *db;
	assert_int_equal(dbt_open(t, &db), 0);
	char supi[32];
	snprintf(supi, sizeof(supi), "imsi-0010100000%05d", i);
	struct db_subscriber s;
	assert_int_equal(db_subscriber_get(db, supi, &s), 0);
	db_close(db);
	return s.sqn;
}

static void test_writer_flush(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	enum { N = 3000 };
	struct db *db = open_with(&t, N);
	struct db_writer *w;
	assert_int_equal(db_writer_start(db, NULL, &w), 0);
	for (int round = 1; round <= 3; round++)
		for (int i = 0; i < N; i++) {
			char supi[32];
			snprintf(supi, sizeof(supi), "imsi-0010100000%05d", i);
			assert_int_equal(db_writer_sqn(w, supi, (uint64_t)(round * 100000 + i)), 0);
		}
	/* An update for a subscriber that is not in the table is harmless. */
	assert_int_equal(db_writer_sqn(w, "imsi-99999", 1), 0);
	assert_int_equal(db_writer_sqn(w, "", 1), -EINVAL);
	assert_int_equal(db_writer_sqn(w, "imsi-00101", DB_SQN_MAX + 1), -EINVAL);
	assert_int_equal(db_writer_flush(w), 0);
	/* Read through a different connection: the rows are committed. */
	assert_true(sqn_of(&t, 0) == 300000);
	assert_true(sqn_of(&t, N - 1) == 300000 + N - 1);
	struct db_writer_stats st;
	db_writer_get_stats(w, &st);
	assert_true(st.queued + st.coalesced == 3 * N + 1);
	assert_int_equal(st.dropped, 0);
	assert_int_equal(st.failed, 0);
	assert_true(st.written >= N && st.written <= 3 * N);
	assert_true(st.batches >= 3);   /* 1000 rows per transaction at most */

	/* stop flushes what is still queued. */
	for (int i = 0; i < N; i++) {
		char supi[32];
		snprintf(supi, sizeof(supi), "imsi-0010100000%05d", i);
		assert_int_equal(db_writer_sqn(w, supi, 777), 0);
	}
	db_writer_stop(w);
	db_close(db);
	for (int i = 0; i < N; i += 499)
		assert_true(sqn_of(&t, i) == 777);
	db_writer_stop(NULL);
	dbt_cleanup(&t);
}

static int pragma_int(struct sql *c, const char *sql)
{
	struct sql_stmt *st;
	int v = -1;

	assert_int_equal(sql_prepare(c, sql, 0, &st), 0);
	if (sql_step(st) == SQL_ROW)
		v = sql_column_int(st, 0);
	sql_finalize(st);
	return v;
}

/* While the writer runs, the control thread's connection never checkpoints
 * (a checkpoint fsyncs): the writer moves the API's writes into the file. */
static void test_writer_checkpoints(void **state)
{
	(void)state;
	DBT_FILE_ONLY("WAL checkpoints: dqlite checkpoints its own WAL (its replication log)");
	struct dbt t;
	dbt_init(&t);
	struct db *db = open_with(&t, 0);
	struct db_writer *w;
	struct db_writer_opts o = { .checkpoint_ms = 20 };
	struct db_writer_stats st;

	assert_int_equal(pragma_int(db->conn, "PRAGMA wal_autocheckpoint"), 1000);
	assert_int_equal(db_writer_start(db, &o, &w), 0);
	assert_int_equal(pragma_int(db->conn, "PRAGMA wal_autocheckpoint"), 0);
	/* 1500 commits of the control thread's connection: well past SQLite's
	 * 1000-page automatic checkpoint, which must not have run on it. */
	for (int i = 0; i < 1500; i++) {
		char supi[32];
		struct db_subscriber s;
		snprintf(supi, sizeof(supi), "imsi-0010100000%05d", i);
		dbt_sub_init(&s, supi, (uint8_t)i);
		assert_int_equal(db_subscriber_put(db, &s), 0);
	}
	/* The writer's idle checkpoint moves them (poll: no wall-clock bound, the
	 * suite's timeout is the limit). */
	do {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		db_writer_get_stats(w, &st);
	} while (st.ckpt_frames < 1000);
	assert_true(st.checkpoints >= 1);
	db_writer_stop(w);
	assert_int_equal(pragma_int(db->conn, "PRAGMA wal_autocheckpoint"), 1000);
	db_close(db);
	dbt_cleanup(&t);
}

static void put_many(struct db *db, int from, int n)
{
	for (int i = from; i < from + n; i++) {
		char supi[32];
		struct db_subscriber s;
		snprintf(supi, sizeof(supi), "imsi-0010100%08d", i);
		dbt_sub_init(&s, supi, (uint8_t)i);
		assert_int_equal(db_subscriber_put(db, &s), 0);
	}
}

static void wait_stats(struct db_writer *w, struct db_writer_stats *st, uint64_t attempts, uint64_t frames)
{
	do {
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		db_writer_get_stats(w, st);
	} while (st->ckpt_attempts < attempts || st->ckpt_frames < frames);
}

static long file_size(const char *p)
{
	struct stat sb;
	return stat(p, &sb) == 0 ? (long)sb.st_size : -1;
}

/* Issue 15 item 7: after idle periods that found nothing to move, the API's
 * writes (on the control thread's connection) are still checkpointed, round
 * after round, and the WAL stays bounded. Before: the first empty tick ended
 * checkpointing until the next SQN batch. */
static void test_writer_checkpoint_rearm(void **state)
{
	(void)state;
	DBT_FILE_ONLY("WAL checkpoints and the -wal file: dqlite keeps no local file of ours");
	struct dbt t;
	char wal[128];
	dbt_init(&t);
	snprintf(wal, sizeof(wal), "%s-wal", t.db);
	struct db *db = open_with(&t, 0);
	struct db_writer *w;
	struct db_writer_opts o = { .checkpoint_ms = 5 };
	struct db_writer_stats st;
	long max_wal = 0;

	assert_int_equal(db_writer_start(db, &o, &w), 0);
	for (int round = 0; round < 5; round++) {
		db_writer_get_stats(w, &st);
		/* some empty idle periods first ... */
		wait_stats(w, &st, st.ckpt_attempts + 3, 0);
		uint64_t before = st.ckpt_frames;
		/* ... then API writes: moved by a later idle checkpoint. */
		put_many(db, round * 2000, 2000);
		wait_stats(w, &st, 0, before + 1);
		if (file_size(wal) > max_wal)
			max_wal = file_size(wal);
	}
	printf("largest WAL over 5 rounds of 2000 API writes: %ld KiB\n", max_wal / 1024);
	/* Far below what 10,000 commits left unmoved would take (one page or more each). */
	assert_true(max_wal < 2000L * 4096 * 3);
	db_writer_stop(w);
	db_close(db);
	dbt_cleanup(&t);
}

/* Issue 15 item 6: the database, its -wal and -shm, backups and a staged
 * restore are 0600 whatever the umask; an existing 0644 file is tightened. */
static void test_file_modes(void **state)
{
	(void)state;
	DBT_FILE_ONLY("file modes, VACUUM INTO backup and staged restore need a local SQLite file");
	struct dbt t;
	char p[160], err[160];
	struct stat sb;
	struct db *db;
	struct db_writer *w;
	mode_t old = umask(0);

	dbt_init(&t);
	db = open_with(&t, 3);
	assert_int_equal(db_writer_start(db, NULL, &w), 0);
	assert_int_equal(db_writer_sqn(w, "imsi-001010000000001", 5), 0);
	assert_int_equal(db_writer_flush(w), 0);
	static const char *const side[] = { "", "-wal", "-shm" };
	for (int i = 0; i < 3; i++) {
		snprintf(p, sizeof(p), "%s%s", t.db, side[i]);
		assert_int_equal(stat(p, &sb), 0);
		assert_int_equal(sb.st_mode & 0777, 0600);
	}
	snprintf(p, sizeof(p), "%s/backup.db", t.dir);
	assert_int_equal(db_backup(db, p), 0);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	assert_int_equal(db_restore_stage(db, p, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s.restore", t.db);
	assert_int_equal(stat(p, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	db_writer_stop(w);
	db_close(db);
	/* An older file made 0644: tightened at the next open. */
	assert_int_equal(chmod(t.db, 0644), 0);
	unlink(p);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(stat(t.db, &sb), 0);
	assert_int_equal(sb.st_mode & 0777, 0600);
	db_close(db);
	umask(old);
	dbt_cleanup(&t);
}

/* Issue 31 point 3: a POSIX (fcntl) lock of this process on the inode ino, from /proc/locks
 * ("N: POSIX ADVISORY READ|WRITE PID MAJ:MIN:INODE START END"). */
static bool holds_posix_lock(ino_t ino)
{
	FILE *f = fopen("/proc/locks", "re");
	char line[256], kind[16], rw[16];
	unsigned long long in;
	unsigned mj, mn;
	long pid;
	bool found = false;

	assert_non_null(f);
	while (!found && fgets(line, sizeof(line), f)) {
		char *s = strchr(line, ':');

		if (s && sscanf(s + 1, " %15s %*s %15s %ld %x:%x:%llu", kind, rw, &pid, &mj, &mn, &in) == 6)
			found = !strcmp(kind, "POSIX") && pid == (long)getpid() && in == (unsigned long long)ino;
	}
	fclose(f);
	return found;
}

static ino_t ino_of(const char *path)
{
	struct stat sb;

	assert_int_equal(stat(path, &sb), 0);
	return sb.st_ino;
}

/* Issue 31 point 3: every db_conn_open() (the writer's, a web worker's) opened and closed the
 * database file, which drops all the process's POSIX locks on it; SQLite, counting its locks
 * per inode for the whole process, does not take them again. Then another process (here the
 * real sqlite3 shell) closing its connection found nobody else on the file and deleted the
 * -wal and -shm under the open connections. Now the lock is held after the second and third
 * connection, and the -wal keeps its inode across another process's open and close. */
static void test_lock_kept(void **state)
{
	(void)state;
	DBT_FILE_ONLY("POSIX locks on the database file are a local SQLite file's");
	struct dbt t;
	struct db *db, *peer;
	struct db_writer *w;
	char wal[160], cmd[400];
	ino_t wal_ino;

	if (access("/usr/bin/sqlite3", X_OK) != 0)
		fail_msg("sqlite3 (the shell, package sqlite3) is needed as the second process");
	dbt_init(&t);
	db = open_with(&t, 3);
	assert_true(holds_posix_lock(ino_of(t.db)));
	assert_int_equal(db_writer_start(db, NULL, &w), 0);
	assert_int_equal(db_open_peer(db, &peer), 0);
	assert_int_equal(db_writer_sqn(w, "imsi-001010000000001", 7), 0);
	assert_int_equal(db_writer_flush(w), 0);
	assert_true(holds_posix_lock(ino_of(t.db)));
	snprintf(wal, sizeof(wal), "%s-wal", t.db);
	wal_ino = ino_of(wal);
	snprintf(cmd, sizeof(cmd), "/usr/bin/sqlite3 '%s' 'SELECT count(*) FROM subscribers' >/dev/null", t.db);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ino_of(wal), wal_ino);
	assert_true(holds_posix_lock(ino_of(t.db)));
	/* A write after it lands in the same WAL, seen by a new process. */
	assert_int_equal(db_writer_sqn(w, "imsi-001010000000002", 9), 0);
	assert_int_equal(db_writer_flush(w), 0);
	assert_int_equal(ino_of(wal), wal_ino);
	assert_int_equal(system(cmd), 0);
	assert_int_equal(ino_of(wal), wal_ino);
	assert_int_equal(sqn_of(&t, 2), 9);
	db_close(peer);
	db_writer_stop(w);
	db_close(db);
	dbt_cleanup(&t);
}

/* A symlink in place of the database is refused, as the O_NOFOLLOW open did; so is one as the
 * -wal (SQLite would write K and OPc through it); an unwritable file answers -EACCES. */
static void test_file_refusals(void **state)
{
	(void)state;
	DBT_FILE_ONLY("links and modes are a local file's");
	struct dbt t;
	struct db *db;
	char other[160], wal[160];

	dbt_init(&t);
	snprintf(other, sizeof(other), "%s/other.db", t.dir);
	snprintf(wal, sizeof(wal), "%s-wal", t.db);
	assert_int_equal(symlink(other, t.db), 0);
	assert_int_equal(db_open(t.db, &db), -ELOOP);
	assert_int_equal(access(other, F_OK), -1);
	assert_int_equal(unlink(t.db), 0);
	assert_int_equal(symlink(other, wal), 0);
	assert_int_equal(db_open(t.db, &db), -ELOOP);
	assert_int_equal(access(other, F_OK), -1);
	assert_int_equal(unlink(wal), 0);
	assert_int_equal(mkdir(wal, 0700), 0);
	assert_int_equal(db_open(t.db, &db), -EINVAL);
	assert_int_equal(rmdir(wal), 0);
	assert_int_equal(dbt_open(&t, &db), 0);
	db_close(db);
	if (geteuid() != 0) {   /* root may write anything */
		assert_int_equal(chmod(t.db, 0400), 0);
		assert_int_equal(db_open(t.db, &db), -EACCES);
	}
	dbt_cleanup(&t);
}

/* Issue 31 point 3: a staged restore is applied by db_open() at the next start; a second
 * process's db_open() (`solocore users list --db` while the core runs) moved it over the file
 * the core has open, whose later writes then went to an unlinked inode. Now it waits while
 * another process holds the file (here a child with a plain SQLite connection), and is applied
 * by the first open with nobody else on it. */
static void test_restore_waits(void **state)
{
	(void)state;
	DBT_FILE_ONLY("a staged restore is a local file's");
	struct dbt t;
	struct db *db;
	struct db_subscriber s;
	char p[160], err[160], c;
	int fds[2];
	pid_t pid;

	dbt_init(&t);
	db = open_with(&t, 3);
	snprintf(p, sizeof(p), "%s/backup.db", t.dir);
	assert_int_equal(db_backup(db, p), 0);
	assert_int_equal(db_restore_stage(db, p, err, sizeof(err)), 0);
	dbt_sub_init(&s, "imsi-001019999999999", 9);
	assert_int_equal(db_subscriber_put(db, &s), 0);
	db_close(db);
	snprintf(p, sizeof(p), "%s.restore", t.db);
	assert_int_equal(pipe(fds), 0);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {   /* the other process: a connection that has read (SHARED lock held) */
		struct sql *cn;
		struct sql_stmt *st;
		int ok = sql_sqlite_open(t.db, false, &cn) == 0 &&
			 sql_prepare(cn, "SELECT count(*) FROM subscribers", 0, &st) == 0 &&
			 sql_step(st) == SQL_ROW;
		if (write(fds[1], ok ? "y" : "n", 1) != 1)
			_exit(1);
		close(fds[1]);
		/* Until killed, or the test process is gone (an assert failed before the kill). */
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		for (;;)
			pause();
	}
	assert_int_equal(read(fds[0], &c, 1), 1);
	assert_int_equal(c, 'y');
	assert_int_equal(db_file_holder(t.db), pid);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_subscriber_count(db), 4);   /* not restored under the other process */
	db_close(db);
	assert_int_equal(access(p, F_OK), 0);
	kill(pid, SIGKILL);
	assert_int_equal(waitpid(pid, NULL, 0), pid);
	close(fds[0]);
	close(fds[1]);
	assert_int_equal(db_file_holder(t.db), 0);
	assert_int_equal(dbt_open(&t, &db), 0);
	assert_int_equal(db_subscriber_count(db), 3);   /* applied now */
	db_close(db);
	assert_int_equal(access(p, F_OK), -1);
	dbt_cleanup(&t);
}

static void test_writer_full_queue(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	struct db *db = open_with(&t, 10);
	struct db_writer *w;
	/* Four distinct subscribers fit; the batch window is long enough that
	 * nothing is written before the flush, so the queue really fills. */
	struct db_writer_opts o = { .queue_cap = 4, .batch_max = 1000, .batch_ms = 60000 };
	assert_int_equal(db_writer_start(db, &o, &w), 0);
	char supi[10][32];
	for (int i = 0; i < 10; i++)
		snprintf(supi[i], sizeof(supi[i]), "imsi-0010100000%05d", i);
	for (int i = 0; i < 4; i++)
		assert_int_equal(db_writer_sqn(w, supi[i], 10 + (uint64_t)i), 0);
	assert_int_equal(db_writer_sqn(w, supi[4], 14), -ENOSPC);
	assert_int_equal(db_writer_sqn(w, supi[5], 15), -ENOSPC);
	/* Full, but an update for a pending subscriber coalesces. */
	assert_int_equal(db_writer_sqn(w, supi[0], 1000), 0);
	assert_int_equal(db_writer_sqn(w, supi[0], 1001), 0);
	assert_int_equal(db_writer_sqn(w, supi[3], 1003), 0);
	struct db_writer_stats st;
	db_writer_get_stats(w, &st);
	assert_int_equal(st.queued, 4);
	assert_int_equal(st.coalesced, 3);
	assert_int_equal(st.dropped, 2);
	assert_int_equal(st.written, 0);
	assert_int_equal(db_writer_flush(w), 0);
	db_writer_get_stats(w, &st);
	assert_int_equal(st.written, 4);
	assert_int_equal(st.batches, 1);
	assert_true(sqn_of(&t, 0) == 1001);
	assert_true(sqn_of(&t, 1) == 11);
	assert_true(sqn_of(&t, 3) == 1003);
	assert_true(sqn_of(&t, 4) == 0);   /* dropped: AKA resync recovers it */
	/* After the flush the queue has room again. */
	assert_int_equal(db_writer_sqn(w, supi[4], 44), 0);
	db_writer_stop(w);
	assert_true(sqn_of(&t, 4) == 44);
	db_close(db);
	dbt_cleanup(&t);
}

/* A transaction that fails is rolled back, counted, logged, and reported by
 * the next flush; the writer carries on with later batches. */
static void test_writer_failure(void **state)
{
	(void)state;
	struct dbt t;
	dbt_init(&t);
	struct db *db = open_with(&t, 3);
	assert_int_equal(dbt_sql_exec(&t, "CREATE TRIGGER no_sqn BEFORE UPDATE OF sqn ON subscribers "
				      "WHEN NEW.supi = 'imsi-001010000000001' BEGIN "
				      "SELECT RAISE(ABORT, 'refused'); END"), 0);
	struct db_writer *w;
	/* Long window: both updates are surely in the one transaction. */
	struct db_writer_opts o = { .batch_ms = 60000 };
	assert_int_equal(db_writer_start(db, &o, &w), 0);
	assert_int_equal(db_writer_sqn(w, "imsi-001010000000000", 5), 0);
	assert_int_equal(db_writer_sqn(w, "imsi-001010000000001", 5), 0);
	assert_int_equal(db_writer_flush(w), -EIO);
	struct db_writer_stats st;
	db_writer_get_stats(w, &st);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.written, 0);
	assert_true(sqn_of(&t, 0) == 0);   /* same transaction: rolled back */
	/* The error is reported once; later batches are written. */
	assert_int_equal(db_writer_sqn(w, "imsi-001010000000002", 9), 0);
	assert_int_equal(db_writer_flush(w), 0);
	assert_true(sqn_of(&t, 2) == 9);
	db_writer_stop(w);
	db_close(db);
	dbt_cleanup(&t);
}

/* dqlite: what needs a local file is refused with -EOPNOTSUPP, not tried. */
static void test_file_ops_refused(void **state)
{
	(void)state;
	if (!dbt_dqlite()) {
		printf("SKIP on sqlite: -EOPNOTSUPP for file operations is the dqlite backend's answer\n");
		skip();
	}
	struct dbt t;
	struct db *db;
	char p[160], err[160] = "";
	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &db), 0);
	snprintf(p, sizeof(p), "%s/backup.db", t.dir);
	assert_int_equal(db_backup(db, p), -EOPNOTSUPP);
	assert_int_equal(access(p, F_OK), -1);   /* not even created */
	assert_int_equal(db_restore_stage(db, p, err, sizeof(err)), -EOPNOTSUPP);
	assert_non_null(strstr(err, "SQLite"));
	db_close(db);
	dbt_cleanup(&t);
}

int main(int argc, char **argv)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_migrations),
		cmocka_unit_test(test_file_wal),
		cmocka_unit_test(test_migration_steps),
		cmocka_unit_test(test_put_get_delete),
		cmocka_unit_test(test_load),
		cmocka_unit_test(test_writer_flush),
		cmocka_unit_test(test_writer_checkpoints),
		cmocka_unit_test(test_writer_checkpoint_rearm),
		cmocka_unit_test(test_file_modes),
		cmocka_unit_test(test_lock_kept),
		cmocka_unit_test(test_file_refusals),
		cmocka_unit_test(test_restore_waits),
		cmocka_unit_test(test_file_ops_refused),
		cmocka_unit_test(test_writer_full_queue),
		cmocka_unit_test(test_writer_failure),
	};
	if (dbt_backend_init(argc, argv) < 0)
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	dbt_backend_fini();
	return r;
}
