/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db - connection, schema migrations and subscriber rows.
 *
 * Migrations: PRAGMA user_version holds the schema version; migrations[i]
 * takes version i to i+1 in its own transaction together with the version
 * bump, so a crash mid-upgrade leaves the previous version intact. Never
 * edit a released step: append a new one.
 */
#include "db/db_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include "common/hex.h"
#include "common/log.h"
#include "common/qos.h"

static const char *const migrations[] = {
	/* 1: subscribers. K/OPc as 16-byte blobs; slices "sst[:sd],..." and
	 * dnns "a,b" as text (short, read once at start-up). */
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
	") WITHOUT ROWID;",
	/* 2: web users (password as a PBKDF2 string, users.c), API tokens
	 * (SHA-256 of the token only), audit log (who did what, when). */
	"CREATE TABLE users ("
	" name TEXT PRIMARY KEY NOT NULL,"
	" role INTEGER NOT NULL CHECK (role BETWEEN 1 AND 3),"
	" pw TEXT NOT NULL,"
	" created INTEGER NOT NULL,"
	" updated INTEGER NOT NULL"
	") WITHOUT ROWID;"
	"CREATE TABLE tokens ("
	" id INTEGER PRIMARY KEY,"
	" name TEXT NOT NULL,"
	" owner TEXT NOT NULL,"
	" role INTEGER NOT NULL CHECK (role BETWEEN 1 AND 3),"
	" hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),"
	" created INTEGER NOT NULL"
	");"
	"CREATE TABLE audit ("
	" id INTEGER PRIMARY KEY,"
	" ts INTEGER NOT NULL,"
	" who TEXT NOT NULL,"
	" action TEXT NOT NULL,"
	" detail TEXT NOT NULL DEFAULT ''"
	");",
	/* 3: policy profiles (policy.c) a subscriber may reference (NULL: none;
	 * the UDM resolves own value > policy > network default), and a
	 * key/value table for network settings saved from the web API
	 * (settings.c). The partial index answers "who uses policy X" (delete
	 * refusal, re-resolution after a change) without a table scan, and
	 * costs nothing for subscribers without a policy. */
	"CREATE TABLE policies ("
	" name TEXT PRIMARY KEY NOT NULL CHECK (length(name) BETWEEN 1 AND 32),"
	" dnns TEXT NOT NULL DEFAULT '',"
	" slices TEXT NOT NULL DEFAULT '',"
	" ambr_ul INTEGER NOT NULL DEFAULT 0,"
	" ambr_dl INTEGER NOT NULL DEFAULT 0,"
	" default_5qi INTEGER NOT NULL DEFAULT 0 CHECK (default_5qi BETWEEN 0 AND 255),"
	" arp INTEGER NOT NULL DEFAULT 0 CHECK (arp BETWEEN 0 AND 15),"
	" created INTEGER NOT NULL,"
	" updated INTEGER NOT NULL"
	") WITHOUT ROWID;"
	"ALTER TABLE subscribers ADD COLUMN policy TEXT REFERENCES policies (name);"
	"CREATE INDEX subscribers_policy ON subscribers (policy) WHERE policy IS NOT NULL;"
	"CREATE TABLE settings ("
	" key TEXT PRIMARY KEY NOT NULL,"
	" value TEXT NOT NULL,"
	" updated INTEGER"
	") WITHOUT ROWID;",
	/* 4: token ids never reused (AUTOINCREMENT): a deleted token's id named
	 * in the audit log or a script stays its own. */
	"CREATE TABLE tokens4 ("
	" id INTEGER PRIMARY KEY AUTOINCREMENT,"
	" name TEXT NOT NULL,"
	" owner TEXT NOT NULL,"
	" role INTEGER NOT NULL CHECK (role BETWEEN 1 AND 3),"
	" hash BLOB NOT NULL UNIQUE CHECK (length(hash) = 32),"
	" created INTEGER NOT NULL"
	");"
	"INSERT INTO tokens4 (id, name, owner, role, hash, created)"
	" SELECT id, name, owner, role, hash, created FROM tokens;"
	"DROP TABLE tokens;"
	"ALTER TABLE tokens4 RENAME TO tokens;",
	/* 5: subscribed UE-AMBR (TS 23.501 5.7.2.6), apart from the session-AMBR; 0 = the
	 * policy's, else the network default (amf.ue_ambr_ul / _dl). */
	"ALTER TABLE subscribers ADD COLUMN ue_ambr_ul INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE subscribers ADD COLUMN ue_ambr_dl INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE policies ADD COLUMN ue_ambr_ul INTEGER NOT NULL DEFAULT 0;"
	"ALTER TABLE policies ADD COLUMN ue_ambr_dl INTEGER NOT NULL DEFAULT 0;",
	/* 6: a cluster (issue 20). changes: what was written to subscribers, policies and
	 * settings, in commit order (seq never reused: AUTOINCREMENT), so every node applies
	 * the others' writes to its in-memory UDM (db/feed.h); its rows come from triggers
	 * that only a dqlite database gets (db_open_dqlite), so a single SQLite file never
	 * fills it. nodes: what each node publishes about itself (the web API's cluster view). */
	"CREATE TABLE changes ("
	" seq INTEGER PRIMARY KEY AUTOINCREMENT,"
	" kind INTEGER NOT NULL CHECK (kind BETWEEN 1 AND 3),"
	" key TEXT NOT NULL,"
	" at INTEGER NOT NULL"
	");"
	"CREATE TABLE nodes ("
	" id INTEGER PRIMARY KEY,"
	" addr TEXT NOT NULL DEFAULT '',"
	" api TEXT NOT NULL DEFAULT '',"
	" gnbs INTEGER NOT NULL DEFAULT 0,"
	" ues INTEGER NOT NULL DEFAULT 0,"
	" sessions INTEGER NOT NULL DEFAULT 0,"
	" gnb_json TEXT NOT NULL DEFAULT '[]',"
	" updated INTEGER NOT NULL"
	");",
};

/* The change feed's triggers (migration 6), dqlite databases only. UPDATE OF names every
 * provisioned column but sqn (and updated): the write-behind SQN writer updates those two
 * all the time and a node's SQNs are its own (udm.h, cluster SQN). IF NOT EXISTS: every
 * node runs this at open, also at once. */
static const char feed_triggers[] =
	"CREATE TRIGGER IF NOT EXISTS feed_sub_ins AFTER INSERT ON subscribers BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (1, NEW.supi, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_sub_upd AFTER UPDATE OF supi, k, opc, op_is_opc, amf, slices,"
	" dnns, ambr_ul, ambr_dl, default_5qi, arp, policy, ue_ambr_ul, ue_ambr_dl ON subscribers BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (1, NEW.supi, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_sub_del AFTER DELETE ON subscribers BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (1, OLD.supi, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_pol_ins AFTER INSERT ON policies BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (2, NEW.name, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_pol_upd AFTER UPDATE ON policies BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (2, NEW.name, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_pol_del AFTER DELETE ON policies BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (2, OLD.name, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_set_ins AFTER INSERT ON settings BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (3, NEW.key, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_set_upd AFTER UPDATE ON settings BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (3, NEW.key, CAST(strftime('%s','now') AS INTEGER)); END;"
	"CREATE TRIGGER IF NOT EXISTS feed_set_del AFTER DELETE ON settings BEGIN"
	" INSERT INTO changes (kind, key, at) VALUES (3, OLD.key, CAST(strftime('%s','now') AS INTEGER)); END;";

#define N_MIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

#define COLS "supi, k, opc, op_is_opc, amf, sqn, slices, dnns, ambr_ul, ambr_dl, " \
	     "default_5qi, arp, created, updated, policy, ue_ambr_ul, ue_ambr_dl"
#define VALS "(?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"

int db_schema_latest(void) { return N_MIGRATIONS; }

static int user_version(struct sql *c)
{
	struct sql_stmt *st;
	int r = sql_prepare(c, "PRAGMA user_version", 0, &st);
	if (r < 0)
		return r;
	int v = sql_step(st) == SQL_ROW ? sql_column_int(st, 0) : -EIO;
	sql_finalize(st);
	return v;
}

int db_migrate_steps(struct sql *c, const char *const *steps, int n)
{
	int v = user_version(c);
	if (v < 0)
		return v;
	if (v > n) {
		log_error("db", "schema version %d is newer than this solocore (%d)", v, n);
		return -EPROTO;
	}
	while (v < n) {
		char bump[64];
		int r = sql_begin(c);
		if (r < 0) {
			log_error("db", "sql failed: %s", sql_errmsg(c));
			return r;
		}
		/* Read again inside the write transaction: a migration another node (or opener)
		 * committed since the read above is seen, and no step runs twice. */
		if ((v = user_version(c)) < 0 || v >= n) {
			sql_rollback(c);
			if (v > n)
				log_error("db", "schema version %d is newer than this solocore (%d)", v, n);
			return v < 0 ? v : v > n ? -EPROTO : 0;
		}
		snprintf(bump, sizeof(bump), "PRAGMA user_version = %d", v + 1);
		if ((r = sql_exec(c, steps[v])) < 0 || (r = sql_exec(c, bump)) < 0 ||
		    (r = sql_commit(c)) < 0) {
			log_error("db", "sql failed: %s", sql_errmsg(c));
			sql_rollback(c);
			log_error("db", "migration to schema version %d failed", v + 1);
			return r;
		}
		log_info("db", "schema migrated to version %d", ++v);
	}
	return 0;
}

/* Make path (a database, its -wal or -shm) owner-only by its name. 0 (done, or ENOENT when
 * may_miss) or -errno. No descriptor of it is opened (db_file_private). */
static int chmod_private(const char *path, bool may_miss)
{
	struct stat sb;

	if (lstat(path, &sb) < 0)
		return errno == ENOENT && may_miss ? 0 : -errno;
	/* As the O_NOFOLLOW open before: a link is not followed to whatever it names. */
	if (S_ISLNK(sb.st_mode))
		return -ELOOP;
	if (!S_ISREG(sb.st_mode))
		return -EINVAL;
	if ((sb.st_mode & 07777) == 0600)
		return 0;
	/* glibc does AT_SYMLINK_NOFOLLOW with fchmodat2, or on an O_PATH descriptor (whose close
	 * drops no lock: Linux's filp_close() skips locks_remove_posix() for FMODE_PATH files) and
	 * /proc/self/fd; without /proc it answers EOPNOTSUPP: chmod by the name just checked. */
	if (fchmodat(AT_FDCWD, path, 0600, AT_SYMLINK_NOFOLLOW) == 0)
		return 0;
	if (errno != EOPNOTSUPP)
		return -errno;
	return chmod(path, 0600) < 0 ? -errno : 0;
}

int db_file_private(const char *path)
{
	/* K, OPc, password and token hashes: owner only, whatever the umask.
	 * SQLite gives -wal and -shm the database file's mode when it makes
	 * them; older ones (0644 from before) are tightened here too.
	 *
	 * Never open() and close() an existing database file here (issue 31 point 3): SQLite's
	 * locks are POSIX record locks (fcntl F_SETLK), owned by the process per inode, and a
	 * close() of ANY descriptor of the inode drops all of them (POSIX close(); fcntl(2)).
	 * This runs at every db_conn_open(), also while this process's other connections hold
	 * their SHARED lock, and SQLite (which counts its locks per inode for the whole process)
	 * would not take it again. Another process (`solocore users list --db`, `sqlite3`, a
	 * backup script) closing its connection would then find nobody else on the file,
	 * checkpoint and delete the -wal and -shm the core still writes to: writes lost on a
	 * crash, or the other side's on a clean stop.
	 *   - A new file is made with O_CREAT | O_EXCL: an inode this call created carries no
	 *     lock of anyone's, so closing its descriptor drops nothing; fchmod first (umask).
	 *   - An existing one is changed by name (chmod_private), and its access checked with
	 *     faccessat, not by opening it (an unwritable file would otherwise open read-only
	 *     in SQLite and fail at the first write). */
	static const char *const side[] = { "-wal", "-shm" };
	char p[4200];
	int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0600), r;

	if (fd >= 0) {
		r = fchmod(fd, 0600) < 0 ? -errno : 0;
		close(fd);
		if (r < 0)
			return r;
	} else if (errno != EEXIST) {
		return -errno;
	} else if ((r = chmod_private(path, false)) < 0) {
		return r;
	} else if (faccessat(AT_FDCWD, path, R_OK | W_OK, AT_EACCESS) < 0) {
		return -errno;
	}
	for (unsigned i = 0; i < 2; i++) {
		snprintf(p, sizeof(p), "%s%s", path, side[i]);
		if ((r = chmod_private(p, true)) < 0)
			return r;
	}
	return 0;
}

pid_t db_file_holder(const char *path)
{
	/* F_GETLK: the first lock of another process that a write lock on the whole file would
	 * conflict with (this process's own are never reported). */
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET, .l_start = 0, .l_len = 0 };
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW), r = 0;

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (fcntl(fd, F_GETLK, &fl) < 0)
		r = -errno;
	close(fd);
	return r < 0 ? r : fl.l_type == F_UNLCK ? 0 : fl.l_pid;
}

int db_conn_open(const char *path, struct sql **out)
{
	struct sql *c = NULL;
	struct sql_stmt *st;
	int r = db_file_private(path);

	if (r < 0) {
		log_error("db", "%s (or its -wal / -shm): cannot create or make it owner-only: %s", path, strerror(-r));
		return r;
	}
	if ((r = sql_sqlite_open(path, false, &c)) < 0)
		return r;
	sql_sqlite_busy_wait(c);
	/* WAL: readers and the writer thread do not block each other; NORMAL:
	 * commits do not fsync, a power cut may lose the last transactions but
	 * never corrupts the file (SQLite docs, "WAL mode"). */
	r = sql_prepare(c, "PRAGMA journal_mode = WAL", 0, &st);
	if (r == 0) {
		int rc = sql_step(st);
		const char *mode = rc == SQL_ROW ? sql_column_text(st, 0) : NULL;
		/* Not WAL (or no answer): as SQLITE_CANTOPEN, like before sql.h. */
		r = mode && !strcmp(mode, "wal") ? 0 : -ENOENT;
		sql_finalize(st);
	}
	if (r < 0) {
		log_error("db", "%s: cannot enable WAL: %s", path, sql_errmsg(c));
		sql_close(c);
		return r;
	}
	r = sql_exec(c, "PRAGMA synchronous = NORMAL");
	/* Page cache 512 KB per connection instead of 2 MB: the B-tree's inner
	 * pages fit; leaves come from the OS page cache. -N is in KiB. */
	if (r == 0)
		r = sql_exec(c, "PRAGMA cache_size = -512");
	/* subscribers.policy REFERENCES policies: enforced per connection. The
	 * API checks first (to answer -ENOENT / -EBUSY); this is the backstop. */
	if (r == 0)
		r = sql_exec(c, "PRAGMA foreign_keys = ON");
	/* After a checkpoint has moved everything, the WAL is cut back to this
	 * size instead of keeping the largest it ever was (an import). */
	if (r == 0)
		r = sql_exec(c, "PRAGMA journal_size_limit = 67108864");
	if (r < 0) {
		log_error("db", "sql failed: %s", sql_errmsg(c));
		sql_close(c);
		return r;
	}
	*out = c;
	return 0;
}

int db_open(const char *path, struct db **out)
{
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->count_cache = -1;
	db->path = strdup(path);
	if (!db->path) {
		free(db);
		return -ENOMEM;
	}
	int r = db_restore_apply(path);
	if (r == 0)
		r = db_conn_open(path, &db->conn);
	if (r == 0)
		r = db_migrate_steps(db->conn, migrations, N_MIGRATIONS);
	if (r < 0) {
		db_close(db);
		return r;
	}
	*out = db;
	return 0;
}

/* A dqlite connection with the one pragma that is per connection and matters
 * to db/ (the leader runs each client's statements on a connection of its own). */
static int dq_conn_open(const char *addr, const char *name, struct sql **out)
{
	struct sql *c;
	int r = sql_dqlite_open(addr, name, &c);

	if (r == 0 && (r = sql_exec(c, "PRAGMA foreign_keys = ON")) < 0) {
		log_error("db", "dqlite %s: %s", name, sql_errmsg(c));
		sql_close(c);
	}
	if (r == 0)
		*out = c;
	return r;
}

int db_conn_again(const struct db *db, struct sql **out)
{
	if (db->path)
		return db_conn_open(db->path, out);
	return dq_conn_open(db->dq_addr, db->dq_name, out);
}

int db_file_only(const struct db *db, const char *what)
{
	if (sql_backend(db->conn) == SQL_SQLITE)
		return 0;
	log_error("db", "%s: not supported on the %s backend (it needs a local SQLite file)", what,
		  sql_backend_name(db->conn));
	return -EOPNOTSUPP;
}

int db_open_dqlite(const char *node_addr, const char *name, struct db **out)
{
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->count_cache = -1;
	db->dq_addr = strdup(node_addr ? node_addr : "");
	db->dq_name = strdup(name ? name : "");
	int r = db->dq_addr && db->dq_name ? 0 : -ENOMEM;
	if (r == 0 && (!node_addr || !*node_addr || !name || !*name))
		r = -EINVAL;
	/* Several nodes may open a new database at once: one migrates, the others' steps fail
	 * (busy, or a table that exists since). Each try reads the version again. */
	for (int tries = 1; r == 0; tries++) {
		r = db->conn ? 0 : dq_conn_open(node_addr, name, &db->conn);
		if (r < 0)
			break;   /* no node, no leader: the caller's to say */
		r = db_migrate_steps(db->conn, migrations, N_MIGRATIONS);
		if (r == 0 && (r = sql_exec(db->conn, feed_triggers)) < 0)
			log_error("db", "dqlite %s: change feed triggers: %s", name, sql_errmsg(db->conn));
		if (r == 0 || r == -EPROTO || r == -ENOMEM || tries == 5)
			break;
		log_warn("db", "dqlite %s: schema set-up failed (another node at it too?): trying again", name);
		/* On a fresh connection: the failed one was seen to read the old user_version again
		 * and again while another opener's migration had committed (test_feed
		 * test_concurrent_open, 1 run in 20: five tries, each "duplicate column"). */
		sql_close(db->conn);
		db->conn = NULL;
		nanosleep(&(struct timespec){ 0, 300 * 1000 * 1000 }, NULL);
		r = 0;
	}
	if (r < 0) {
		db_close(db);
		return r;
	}
	log_info("db", "database %s on the dqlite cluster of %s (schema version %d)", name, node_addr,
		 N_MIGRATIONS);
	*out = db;
	return 0;
}

int db_open_peer(struct db *main, struct db **out)
{
	struct db *db = calloc(1, sizeof(*db));
	if (!db)
		return -ENOMEM;
	db->count_cache = -1;
	db->main = main;
	db->path = main->path ? strdup(main->path) : NULL;
	db->dq_addr = main->dq_addr ? strdup(main->dq_addr) : NULL;
	db->dq_name = main->dq_name ? strdup(main->dq_name) : NULL;
	int r = (main->path && !db->path) || (main->dq_addr && (!db->dq_addr || !db->dq_name))
		? -ENOMEM : db_conn_again(db, &db->conn);
	if (r < 0) {
		db_close(db);
		return r;
	}
	*out = db;
	return 0;
}

void db_close(struct db *db)
{
	if (!db)
		return;
	sql_finalize(db->st_get);
	sql_finalize(db->st_put);
	sql_finalize(db->st_del);
	sql_finalize(db->st_insert);
	sql_finalize(db->st_pol_exists);
	sql_close(db->conn);
	free(db->path);
	free(db->dq_addr);
	free(db->dq_name);
	free(db);
}

int db_schema_version(struct db *db) { return user_version(db->conn); }

/* ---- text columns ---- */

bool db_imsi_valid(const char *d, size_t len)
{
	if (len < DB_IMSI_MIN_DIGITS || len > DB_IMSI_MAX_DIGITS)
		return false;
	for (size_t i = 0; i < len; i++)
		if (d[i] < '0' || d[i] > '9')
			return false;
	return true;
}

/* TS 23.003 9.1: labels of letters, digits and hyphens separated by dots. */
bool db_dnn_valid(const char *d, size_t len)
{
	if (len == 0 || len > DB_DNN_MAX || d[0] == '.' || d[len - 1] == '.')
		return false;
	for (size_t i = 0; i < len; i++) {
		char c = d[i];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			  c == '-' || (c == '.' && d[i - 1] != '.');
		if (!ok)
			return false;
	}
	return true;
}

int db_snssai_parse(const char *t, size_t len, struct db_snssai *out)
{
	size_t i = 0;
	unsigned sst = 0;
	for (; i < len && t[i] >= '0' && t[i] <= '9'; i++) {
		sst = sst * 10 + (unsigned)(t[i] - '0');
		if (sst > 255)
			return -EINVAL;
	}
	if (i == 0)
		return -EINVAL;
	out->sst = (uint8_t)sst;
	out->sd = DB_SD_NONE;
	if (i == len)
		return 0;
	if (t[i] != ':' || len - i - 1 != 6)
		return -EINVAL;
	uint8_t sd[3];
	if (hex_decode_exact(sd, 3, t + i + 1, 6) < 0)
		return -EINVAL;
	out->sd = (uint32_t)sd[0] << 16 | (uint32_t)sd[1] << 8 | sd[2];
	return 0;
}

int db_slices_parse_n(const char *txt, struct db_snssai *slices, uint8_t *n)
{
	*n = 0;
	while (*txt) {
		const char *e = strchr(txt, ',');
		size_t len = e ? (size_t)(e - txt) : strlen(txt);
		if (*n == DB_MAX_SLICES || db_snssai_parse(txt, len, &slices[*n]) < 0)
			return -EINVAL;
		(*n)++;
		txt += len + (e ? 1 : 0);
	}
	return 0;
}

int db_dnns_parse_n(const char *txt, char (*dnns)[DB_DNN_MAX + 1], uint8_t *n)
{
	*n = 0;
	while (*txt) {
		const char *e = strchr(txt, ',');
		size_t len = e ? (size_t)(e - txt) : strlen(txt);
		if (*n == DB_MAX_DNNS || !db_dnn_valid(txt, len))
			return -EINVAL;
		memcpy(dnns[*n], txt, len);
		dnns[*n][len] = 0;
		(*n)++;
		txt += len + (e ? 1 : 0);
	}
	return 0;
}

int db_slices_parse(const char *txt, struct db_subscriber *s)
{
	return db_slices_parse_n(txt, s->slices, &s->n_slices);
}

int db_dnns_parse(const char *txt, struct db_subscriber *s)
{
	return db_dnns_parse_n(txt, s->dnns, &s->n_dnns);
}

void db_slices_text(const struct db_snssai *sl, unsigned n_sl, char *out, size_t outsz)
{
	size_t n = 0;
	out[0] = 0;
	for (unsigned i = 0; i < n_sl && n < outsz; i++) {
		const struct db_snssai *x = &sl[i];
		if (x->sd == DB_SD_NONE)
			n += (size_t)snprintf(out + n, outsz - n, "%s%u", i ? "," : "", x->sst);
		else
			n += (size_t)snprintf(out + n, outsz - n, "%s%u:%06x", i ? "," : "", x->sst,
					      x->sd);
	}
}

void db_dnns_text(const char (*dnns)[DB_DNN_MAX + 1], unsigned n_dnns, char *out, size_t outsz)
{
	size_t n = 0;
	out[0] = 0;
	for (unsigned i = 0; i < n_dnns && n < outsz; i++)
		n += (size_t)snprintf(out + n, outsz - n, "%s%s", i ? "," : "", dnns[i]);
}

int db_subscriber_check(const struct db_subscriber *s, char *err, size_t errsz)
{
	const char *why = NULL;
	size_t sl = strnlen(s->supi, sizeof(s->supi));
	if (sl >= sizeof(s->supi) || strncmp(s->supi, "imsi-", 5) ||
	    !db_imsi_valid(s->supi + 5, sl - 5))
		why = "supi must be imsi- followed by 5 to 15 digits";
	else if (s->sqn > DB_SQN_MAX)
		why = "sqn exceeds 48 bits";
	else if (s->n_slices > DB_MAX_SLICES)
		why = "more than 8 slices";
	else if (s->n_dnns > DB_MAX_DNNS)
		why = "more than 8 dnns";
	else if (s->arp > 15)
		why = "arp must be 1..15";
	else if (s->ambr_ul > DB_AMBR_MAX || s->ambr_dl > DB_AMBR_MAX)
		why = "ambr out of range (at most 4000000000000 bit/s, TS 38.413 9.3.1.4)";
	else if (s->ue_ambr_ul > DB_AMBR_MAX || s->ue_ambr_dl > DB_AMBR_MAX)
		why = "ue_ambr out of range (at most 4000000000000 bit/s, TS 38.413 9.3.1.4)";
	else if (qos_5qi_is_gbr(s->default_5qi))
		why = DB_GBR_5QI_WHY;
	else if (s->policy[0] && !db_policy_name_valid(s->policy))
		why = "invalid policy name";
	for (unsigned i = 0; !why && i < s->n_slices && i < DB_MAX_SLICES; i++)
		if (s->slices[i].sd > DB_SD_NONE)
			why = "slice sd exceeds 24 bits";
	for (unsigned i = 0; !why && i < s->n_dnns && i < DB_MAX_DNNS; i++)
		if (!db_dnn_valid(s->dnns[i], strnlen(s->dnns[i], DB_DNN_MAX + 1)))
			why = "invalid dnn";
	if (!why)
		return 0;
	if (err && errsz)
		snprintf(err, errsz, "%s", why);
	return -EINVAL;
}

/* ---- rows ---- */

int db_bind_subscriber(struct sql_stmt *st, const struct db_subscriber *s, int64_t now)
{
	char slices[DB_MAX_SLICES * 12 + 1];
	char dnns[DB_MAX_DNNS * (DB_DNN_MAX + 1) + 1];
	db_slices_text(s->slices, s->n_slices, slices, sizeof(slices));
	db_dnns_text((const char (*)[DB_DNN_MAX + 1])s->dnns, s->n_dnns, dnns, sizeof(dnns));
	/* STATIC: s outlives the step (callers step at once), and SQLite keeps
	 * no copy of K/OPc of its own in freed, unwiped heap. */
	int rc = sql_bind_text(st, 1, s->supi, -1);
	rc |= sql_bind_blob(st, 2, s->k, 16);
	rc |= sql_bind_blob(st, 3, s->opc, 16);
	rc |= sql_bind_int64(st, 4, s->op_is_opc);
	rc |= sql_bind_int64(st, 5, s->amf);
	rc |= sql_bind_int64(st, 6, (int64_t)s->sqn);
	rc |= sql_bind_text_copy(st, 7, slices, -1);
	rc |= sql_bind_text_copy(st, 8, dnns, -1);
	rc |= sql_bind_int64(st, 9, (int64_t)s->ambr_ul);
	rc |= sql_bind_int64(st, 10, (int64_t)s->ambr_dl);
	rc |= sql_bind_int64(st, 11, s->default_5qi);
	rc |= sql_bind_int64(st, 12, s->arp);
	rc |= sql_bind_int64(st, 13, now);
	rc |= sql_bind_int64(st, 14, now);
	if (s->policy[0])
		rc |= sql_bind_text(st, 15, s->policy, -1);
	else
		rc |= sql_bind_null(st, 15);
	rc |= sql_bind_int64(st, 16, (int64_t)s->ue_ambr_ul);
	rc |= sql_bind_int64(st, 17, (int64_t)s->ue_ambr_dl);
	return rc == 0 ? 0 : -EIO;
}

static int row_read(struct sql_stmt *st, struct db_subscriber *s)
{
	/* Not a full memset: the DNN strings are most of the struct and only
	 * the first n_dnns are meaningful (the load path runs 10^6 times). */
	const char *supi = sql_column_text(st, 0);
	const void *k = sql_column_blob(st, 1);
	const void *opc = sql_column_blob(st, 2);
	if (!supi || strlen(supi) >= sizeof(s->supi) || !k || !opc ||
	    sql_column_bytes(st, 1) != 16 || sql_column_bytes(st, 2) != 16)
		return -EPROTO;
	strcpy(s->supi, supi);
	memcpy(s->k, k, 16);
	memcpy(s->opc, opc, 16);
	s->op_is_opc = sql_column_int(st, 3) != 0;
	s->amf = (uint16_t)sql_column_int(st, 4);
	s->sqn = (uint64_t)sql_column_int64(st, 5);
	const char *slices = sql_column_text(st, 6);
	const char *dnns = sql_column_text(st, 7);
	if (db_slices_parse(slices ? slices : "", s) < 0 || db_dnns_parse(dnns ? dnns : "", s) < 0)
		return -EPROTO;
	s->ambr_ul = (uint64_t)sql_column_int64(st, 8);
	s->ambr_dl = (uint64_t)sql_column_int64(st, 9);
	s->default_5qi = (uint8_t)sql_column_int(st, 10);
	s->arp = (uint8_t)sql_column_int(st, 11);
	s->created = sql_column_int64(st, 12);
	s->updated = sql_column_int64(st, 13);
	const char *pol = sql_column_text(st, 14);
	size_t pl = pol ? strlen(pol) : 0;
	if (pl > DB_POLICY_NAME_MAX)
		return -EPROTO;
	memcpy(s->policy, pol ? pol : "", pl);
	s->policy[pl] = 0;
	s->ue_ambr_ul = (uint64_t)sql_column_int64(st, 15);
	s->ue_ambr_dl = (uint64_t)sql_column_int64(st, 16);
	return 0;
}

static int prepare(struct db *db, struct sql_stmt **st, const char *sql)
{
	if (*st) {
		sql_reset(*st);
		sql_clear_bindings(*st);
		return 0;
	}
	int rc = sql_prepare(db->conn, sql, SQL_PERSISTENT, st);
	if (rc < 0) {
		log_error("db", "prepare failed: %s", sql_errmsg(db->conn));
		return rc;
	}
	return 0;
}

int db_stmt(struct db *db, const char *sql, struct sql_stmt **st)
{
	int rc = sql_prepare(db->conn, sql, 0, st);
	if (rc < 0) {
		log_error("db", "prepare failed: %s", sql_errmsg(db->conn));
		return rc;
	}
	return 0;
}

int db_prepare_insert(struct db *db)
{
	return prepare(db, &db->st_insert,
		       "INSERT INTO subscribers (" COLS ") VALUES " VALS);
}

/* Every row of a one-parameter query (?1 = param, may be NULL) to cb. */
struct swalk {
	struct db_subscriber s;
	db_subscriber_cb cb;
	void *arg;
	int n;
};

static int srow_each(struct sql_stmt *st, void *ctx)
{
	struct swalk *w = ctx;

	if (row_read(st, &w->s) < 0) {
		log_error("db", "subscriber row %d is malformed", w->n + 1);
		return -EPROTO;
	}
	w->n++;
	return w->cb(&w->s, w->arg);
}

static int walk_rows(struct db *db, const char *sql, const char *param, db_subscriber_cb cb,
		     void *arg)
{
	struct swalk w = { .cb = cb, .arg = arg };
	struct sql_stmt *st;
	int rc = sql_prepare(db->conn, sql, 0, &st);
	if (rc < 0)
		return rc;
	if (param)
		sql_bind_text(st, 1, param, -1);
	int r = db_rows_walk(st, srow_each, &w);
	explicit_bzero(&w.s, sizeof(w.s));   /* K / OPc of the last row */
	return r;
}

int db_load_subscribers(struct db *db, db_subscriber_cb cb, void *arg)
{
	return walk_rows(db, "SELECT " COLS " FROM subscribers ORDER BY supi", NULL, cb, arg);
}

int db_subscriber_walk_policy(struct db *db, const char *name, db_subscriber_cb cb, void *arg)
{
	if (!db_policy_name_valid(name))
		return -EINVAL;
	/* INDEXED BY: the partial index on policy, never a table scan (the
	 * planner could otherwise pick the primary key for the ORDER BY). */
	return walk_rows(db, "SELECT " COLS " FROM subscribers INDEXED BY subscribers_policy"
			 " WHERE policy = ?1", name, cb, arg);
}

/* The subscriber count is kept exact without walking the table (a count(*)
 * walks the whole primary key: ~50 ms at 10^6 here, on the control thread):
 * a put that inserts adds one, a delete takes one, a peer's import is added
 * by db_subscriber_count_release(). Only when it cannot know (a peer's other
 * changes, a rolled-back transaction: db_rows_changed) is it counted again.
 * count_has: 1 if supi is stored, 0 if not, -1 if the count is not kept
 * (unknown, or a peer connection) or the probe failed. */
static bool count_valid(const struct db *db)
{
	return !db->main && db->count_cache >= 0 &&
	       (db->count_hold || db->count_gen == atomic_load(&db->rows_gen));
}

static int count_has(struct db *db, const char *supi)
{
	struct sql_stmt *st;

	if (!count_valid(db) || db_stmt(db, "SELECT 1 FROM subscribers WHERE supi = ?", &st) < 0)
		return -1;
	sql_bind_text(st, 1, supi, -1);
	int rc = sql_step(st);
	sql_finalize(st);
	return rc == SQL_ROW ? 1 : rc == SQL_DONE ? 0 : -1;
}

/* After a change of rows through db: d rows more, or unknown. */
static void count_add(struct db *db, int d, bool unknown)
{
	if (unknown || !count_valid(db))
		db_rows_changed(db);
	else
		db->count_cache += d;
}

int db_subscriber_put(struct db *db, const struct db_subscriber *s)
{
	char why[96];
	if (db_subscriber_check(s, why, sizeof(why)) < 0) {
		log_warn("db", "put %.*s refused: %s", DB_SUPI_MAX - 1, s->supi, why);
		return -EINVAL;
	}
	int r = s->policy[0] ? db_policy_exists(db, s->policy) : 1;
	if (r <= 0)
		return r == 0 ? -ENOENT : r;
	r = prepare(db, &db->st_put,
			"INSERT INTO subscribers (" COLS ") VALUES " VALS
			" ON CONFLICT (supi) DO UPDATE SET k = excluded.k, opc = excluded.opc,"
			" op_is_opc = excluded.op_is_opc, amf = excluded.amf, sqn = excluded.sqn,"
			" slices = excluded.slices, dnns = excluded.dnns,"
			" ambr_ul = excluded.ambr_ul, ambr_dl = excluded.ambr_dl,"
			" ue_ambr_ul = excluded.ue_ambr_ul, ue_ambr_dl = excluded.ue_ambr_dl,"
			" default_5qi = excluded.default_5qi, arp = excluded.arp,"
			" policy = excluded.policy, updated = excluded.updated");
	if (r < 0)
		return r;
	if ((r = db_bind_subscriber(db->st_put, s, (int64_t)time(NULL))) < 0)
		return r;
	int had = count_has(db, s->supi);
	int rc = sql_step(db->st_put);
	sql_reset(db->st_put);
	sql_clear_bindings(db->st_put);   /* drop the bound key copies */
	if (rc == SQL_DONE)
		count_add(db, had == 0 ? 1 : 0, had < 0);
	return rc == SQL_DONE ? 0 : rc;
}

int db_subscriber_get(struct db *db, const char *supi, struct db_subscriber *out)
{
	int r = prepare(db, &db->st_get, "SELECT " COLS " FROM subscribers WHERE supi = ?");
	if (r < 0)
		return r;
	sql_bind_text(db->st_get, 1, supi, -1);
	int rc = sql_step(db->st_get);
	if (rc == SQL_ROW) {
		memset(out, 0, sizeof(*out));
		r = row_read(db->st_get, out);
	}
	else
		r = rc == SQL_DONE ? -ENOENT : rc;
	sql_reset(db->st_get);
	sql_clear_bindings(db->st_get);
	return r;
}

int db_subscriber_delete(struct db *db, const char *supi)
{
	int r = prepare(db, &db->st_del, "DELETE FROM subscribers WHERE supi = ?");
	if (r < 0)
		return r;
	sql_bind_text(db->st_del, 1, supi, -1);
	int rc = sql_step(db->st_del);
	r = rc == SQL_DONE ? (sql_changes(db->conn) ? 0 : -ENOENT) : rc;
	if (r == 0)
		count_add(db, -1, false);
	sql_reset(db->st_del);
	sql_clear_bindings(db->st_del);
	return r;
}

int64_t db_subscriber_count(struct db *db)
{
	uint64_t gen = atomic_load(&db->rows_gen);

	/* On dqlite the other nodes add and remove rows too: no cache. */
	if (db->count_cache >= 0 && (db->count_gen == gen || db->count_hold) &&
	    sql_backend(db->conn) == SQL_SQLITE)
		return db->count_cache;
	struct sql_stmt *st;
	int rc = sql_prepare(db->conn, "SELECT count(*) FROM subscribers", 0, &st);
	if (rc < 0)
		return rc;
	int64_t n = sql_step(st) == SQL_ROW ? sql_column_int64(st, 0) : -EIO;
	sql_finalize(st);
	db->count_cache = n;
	db->count_gen = gen;
	return n;
}

int64_t db_subscriber_count_hold(struct db *db)
{
	int64_t n = db_subscriber_count(db);

	db->count_hold = n >= 0;
	return n;
}

void db_subscriber_count_release(struct db *db, int added)
{
	if (!db->count_hold)
		return;
	db->count_hold = false;
	if (added < 0 || db->count_cache < 0) {
		db->count_cache = -1;
		return;
	}
	db->count_cache += added;
	db->count_gen = atomic_load(&db->rows_gen);
}

/* A prefix of IMSI digits as the SUPI range [imsi-P, imsi-P:) (':' sorts
 * right after '9'): the primary key index answers it without a scan. */
static void prefix_range(const char *prefix, char lo[DB_SUPI_MAX + 2], char hi[DB_SUPI_MAX + 2])
{
	snprintf(lo, DB_SUPI_MAX + 2, "imsi-%.15s", prefix ? prefix : "");
	snprintf(hi, DB_SUPI_MAX + 2, "imsi-%.15s:", prefix ? prefix : "");
}

/* One page: rows in [lo, hi) strictly after `after` (NULL: from lo). */
static int list_page(struct db *db, const char *prefix, const char *after, uint64_t offset,
		     uint32_t limit, db_subscriber_cb cb, void *arg)
{
	char lo[DB_SUPI_MAX + 2], hi[DB_SUPI_MAX + 2];
	struct sql_stmt *st;

	if (offset > INT64_MAX || (prefix && strlen(prefix) > DB_IMSI_MAX_DIGITS))
		return -EINVAL;
	prefix_range(prefix, lo, hi);
	/* One bound per side so the primary key seeks straight to the page. */
	bool from_after = after && strcmp(after, lo) >= 0;
	int rc = sql_prepare(db->conn, from_after
				    ? "SELECT " COLS " FROM subscribers WHERE supi > ?1 AND supi < ?2"
				      " ORDER BY supi LIMIT ?3 OFFSET ?4"
				    : "SELECT " COLS " FROM subscribers WHERE supi >= ?1 AND supi < ?2"
				      " ORDER BY supi LIMIT ?3 OFFSET ?4", 0, &st);
	if (rc < 0)
		return rc;
	sql_bind_text(st, 1, from_after ? after : lo, -1);
	sql_bind_text(st, 2, hi, -1);
	sql_bind_int64(st, 3, limit);
	sql_bind_int64(st, 4, (int64_t)offset);
	struct db_subscriber s;
	memset(&s, 0, sizeof(s));
	int n = 0, r = 0;
	while ((rc = sql_step(st)) == SQL_ROW) {
		if ((r = row_read(st, &s)) < 0 || (r = cb(&s, arg)) != 0)
			break;
		n++;
	}
	if (r == 0 && rc != SQL_DONE)
		r = rc;
	sql_finalize(st);
	explicit_bzero(&s, sizeof(s));
	return r ? r : n;
}

int db_subscriber_list(struct db *db, const char *prefix, uint64_t offset, uint32_t limit,
		       db_subscriber_cb cb, void *arg)
{
	return list_page(db, prefix, NULL, offset, limit, cb, arg);
}

int db_subscriber_list_after(struct db *db, const char *prefix, const char *after, uint32_t limit,
			     db_subscriber_cb cb, void *arg)
{
	return list_page(db, prefix, after, 0, limit, cb, arg);
}

int64_t db_subscriber_count_prefix(struct db *db, const char *prefix)
{
	char lo[DB_SUPI_MAX + 2], hi[DB_SUPI_MAX + 2];
	struct sql_stmt *st;

	if (prefix && strlen(prefix) > DB_IMSI_MAX_DIGITS)
		return -EINVAL;
	if (!prefix || !*prefix)
		return db_subscriber_count(db);
	prefix_range(prefix, lo, hi);
	int rc = sql_prepare(db->conn, "SELECT count(*) FROM subscribers"
				    " WHERE supi >= ?1 AND supi < ?2", 0, &st);
	if (rc < 0)
		return rc;
	sql_bind_text(st, 1, lo, -1);
	sql_bind_text(st, 2, hi, -1);
	int64_t n = sql_step(st) == SQL_ROW ? sql_column_int64(st, 0) : -EIO;
	sql_finalize(st);
	return n;
}

/* One of two statements over rows of [lo, hi) after `after` (or from lo),
 * bound with ?3 = v. 0 or -errno. */
static int seek_stmt(struct db *db, bool from_after, const char *sql_after, const char *sql_from,
		     const char *after, const char *lo, const char *hi, int64_t v, struct sql_stmt **st)
{
	int rc = sql_prepare(db->conn, from_after ? sql_after : sql_from, 0, st);

	if (rc < 0)
		return rc;
	sql_bind_text_copy(*st, 1, from_after ? after : lo, -1);
	sql_bind_text_copy(*st, 2, hi, -1);
	sql_bind_int64(*st, 3, v);
	return 0;
}

int db_subscriber_seek(struct db *db, const char *prefix, const char *after, uint32_t n,
		       char key[DB_SUPI_MAX])
{
	char lo[DB_SUPI_MAX + 2], hi[DB_SUPI_MAX + 2];
	struct sql_stmt *st;

	if (!n || n > INT32_MAX || (prefix && strlen(prefix) > DB_IMSI_MAX_DIGITS))
		return -EINVAL;
	prefix_range(prefix, lo, hi);
	bool from_after = after && after[0] && strcmp(after, lo) >= 0;
	/* The n-th row: OFFSET skips index entries without reading them out. */
	int r = seek_stmt(db, from_after,
			  "SELECT supi FROM subscribers WHERE supi > ?1 AND supi < ?2"
			  " ORDER BY supi LIMIT 1 OFFSET ?3",
			  "SELECT supi FROM subscribers WHERE supi >= ?1 AND supi < ?2"
			  " ORDER BY supi LIMIT 1 OFFSET ?3", after, lo, hi, (int64_t)n - 1, &st);
	if (r < 0)
		return r;
	int rc = sql_step(st);
	if (rc == SQL_ROW)
		snprintf(key, DB_SUPI_MAX, "%s", sql_column_text(st, 0));
	sql_finalize(st);
	if (rc != SQL_DONE)
		return rc == SQL_ROW ? (int)n : rc;
	/* Fewer than n: count them (at most n - 1 entries). */
	r = seek_stmt(db, from_after,
		      "SELECT count(*) FROM (SELECT 1 FROM subscribers WHERE supi > ?1 AND supi < ?2 LIMIT ?3)",
		      "SELECT count(*) FROM (SELECT 1 FROM subscribers WHERE supi >= ?1 AND supi < ?2 LIMIT ?3)",
		      after, lo, hi, n, &st);
	if (r < 0)
		return r;
	rc = sql_step(st);
	r = rc == SQL_ROW ? (int)sql_column_int64(st, 0) : rc;
	sql_finalize(st);
	return r;
}
