/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db - subscriber storage in SQLite: schema and migrations, SIM import from
 * TOML (format in db/SIMS.md), the subscriber rows the UDM loads at start-up,
 * and the write-behind writer thread that persists SQN changes.
 *
 * Threads: a struct db (one SQLite connection) is used by one thread, the
 * control thread. The writer has its own connection to the same file and
 * its own thread; db_writer_sqn() is the only function another thread's
 * data path calls, and it never waits for I/O. The database runs in WAL
 * mode with synchronous=NORMAL: a commit does not fsync (checkpoints do), and
 * readers never block the writer.
 *
 * Secrets: K and OPc/OP only travel in struct db_subscriber; nothing in db/
 * logs them, and buffers that held them are wiped.
 * All functions return 0 (or a count) on success and a negative errno.
 */
#ifndef SOLOCORE_DB_DB_H
#define SOLOCORE_DB_DB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* "imsi-" + up to 15 digits (TS 23.003 2.2: MCC 3 + MNC 2-3 + MSIN, <= 15). */
#define DB_SUPI_MAX 24
#define DB_IMSI_MIN_DIGITS 5
#define DB_IMSI_MAX_DIGITS 15
/* Allowed NSSAI holds at most 8 S-NSSAIs (TS 24.501 9.11.3.37). */
#define DB_MAX_SLICES 8
#define DB_MAX_DNNS 8
/* A DNN is at most 100 octets (TS 23.003 9.1). */
#define DB_DNN_MAX 100
/* S-NSSAI without an SD (TS 23.003 28.4.2: 0xFFFFFF means "no SD"). */
#define DB_SD_NONE 0xffffffu
#define DB_SQN_MAX ((1ull << 48) - 1)
#define DB_DEFAULT_AMF 0x8000u
/* Session-AMBR, bit/s: NGAP's BitRate is 0..4,000,000,000,000 (TS 38.413 9.3.1.4). */
#define DB_AMBR_MAX 4000000000000ull
/* Why a GBR default 5QI is refused (db_subscriber_check, db_policy_check): the default QoS
 * flow carries no GFBR/MFBR, so it must be non-GBR (TS 23.501 5.7.2.7, table 5.7.4-1). */
#define DB_GBR_5QI_WHY "default_5qi must be a non-GBR 5QI (not 1-4, 65-67, 71-76, 82-85; TS 23.501 5.7.2.7)"
/* Policy profile names: 1..32 of [A-Za-z0-9._-] (db_policy_name_valid). */
#define DB_POLICY_NAME_MAX 32

struct db_snssai {
	uint8_t sst;
	uint32_t sd;   /* 24 bits, DB_SD_NONE when absent */
};

/*
 * One subscriber. Zero / empty optional fields mean "use the network's
 * configured default" (slices, dnns, ambr, default_5qi, arp); the UDM
 * applies those defaults, db/ stores what was provisioned.
 */
struct db_subscriber {
	char supi[DB_SUPI_MAX];          /* "imsi-001010000000001" */
	uint8_t k[16];
	uint8_t opc[16];                 /* OPc, or OP when op_is_opc is false */
	bool op_is_opc;                  /* false: UDM derives OPc = E_K(OP) ^ OP (TS 35.206 4.1) */
	uint16_t amf;                    /* AMF field of AUTN, default 0x8000 */
	uint64_t sqn;                    /* 48-bit SQN (TS 33.102 6.3.2, Annex C) */
	uint8_t n_slices;
	struct db_snssai slices[DB_MAX_SLICES];
	uint8_t n_dnns;
	char dnns[DB_MAX_DNNS][DB_DNN_MAX + 1];
	uint64_t ambr_ul;                /* session-AMBR, bit/s, 0 = default */
	uint64_t ambr_dl;
	uint64_t ue_ambr_ul;             /* subscribed UE-AMBR (schema v5), bit/s, 0 = default */
	uint64_t ue_ambr_dl;
	uint8_t default_5qi;             /* 0 = default, else a non-GBR 5QI (DB_GBR_5QI_WHY) */
	uint8_t arp;                     /* ARP priority level 1..15, 0 = default */
	int64_t created;                 /* unix seconds, set by db/ */
	int64_t updated;
	/* Policy profile (schema v3), "" = none. Must name an existing policy:
	 * db_subscriber_put() refuses an unknown one with -ENOENT. The UDM
	 * resolves each field as: own non-zero value > policy > network default. */
	char policy[DB_POLICY_NAME_MAX + 1];
};

struct db;

/* Open (creating if needed) the SQLite file and bring its schema to the
 * current version. A file whose schema is newer than this binary knows is
 * refused (-EPROTO). path must be a file (the writer opens it a second time). */
int db_open(const char *path, struct db **out);
/* The same schema and migrations in database `name` of a dqlite cluster
 * (issue 20), reached through node_addr ("host:port" of any node; db/
 * connects to the leader it names). Everything below works on it, except
 * what needs a local file: db_backup() and db_restore_stage() answer
 * -EOPNOTSUPP (logged), and the writer does no WAL checkpoints (dqlite
 * does). -EHOSTUNREACH (logged) when the cluster has no leader now. */
int db_open_dqlite(const char *node_addr, const char *name, struct db **out);
/* Accepts NULL. Stop the writer first. */
void db_close(struct db *db);
/* A second connection to db's file for another thread (a web worker): no
 * restore, no migration (db is open and current). Used by that thread only;
 * db_close() it there. 0 or -errno. */
int db_open_peer(struct db *db, struct db **out);
/* Schema version of the open file (PRAGMA user_version). */
int db_schema_version(struct db *db);
/* The version this binary migrates to. */
int db_schema_latest(void);

/* Streams every subscriber in SUPI order. cb returns 0 to go on; any other
 * value stops the walk and is returned. Returns the number of rows passed
 * to cb, or a negative errno. The struct is reused between calls: copy it. */
typedef int (*db_subscriber_cb)(const struct db_subscriber *s, void *arg);
int db_load_subscribers(struct db *db, db_subscriber_cb cb, void *arg);

/* Import a SIM file (db/SIMS.md) in one transaction: any error in the file
 * (syntax, validation, an IMSI already in the database) imports nothing.
 * Returns the number of subscribers imported, or a negative errno with
 * "file:line: reason" in err. */
int db_import_toml(struct db *db, const char *path, char *err, size_t errsz);
/* The same, with cb (may be NULL) called for each row inserted, inside the
 * transaction: a negative return stops the import, rolls it all back and is
 * returned (err: "import stopped"). */
int db_import_toml_cb(struct db *db, const char *path, char *err, size_t errsz, db_subscriber_cb cb,
		      void *arg);

/* Single-subscriber access for the web API. put inserts or replaces (created
 * is kept on replace), -EINVAL (db_subscriber_check), -ENOENT (s->policy
 * names no policy); get returns -ENOENT if absent (out->policy is "" or
 * the policy name); delete returns -ENOENT if absent. */
int db_subscriber_put(struct db *db, const struct db_subscriber *s);
int db_subscriber_get(struct db *db, const char *supi, struct db_subscriber *out);
int db_subscriber_delete(struct db *db, const char *supi);
/* Number of subscribers, or a negative errno. Kept by db as rows are put,
 * deleted and imported through it (O(1)); counted again (a walk of the
 * primary key) only after changes it cannot follow (db_int.h). */
int64_t db_subscriber_count(struct db *db);

/* Page of subscribers in SUPI order whose IMSI starts with prefix (NULL or
 * "": all), skipping offset of them, at most limit. A range query on the
 * primary key: the cost is the page plus the skipped index entries, never a
 * walk of the table. Returns the rows passed to cb or a negative errno. */
int db_subscriber_list(struct db *db, const char *prefix, uint64_t offset, uint32_t limit,
		       db_subscriber_cb cb, void *arg);
/* Keyset paging: the page of rows after the SUPI `after` (a cursor: the
 * last SUPI of the previous page), so a page deep in 10^6 rows costs the
 * same as the first (one index seek). */
int db_subscriber_list_after(struct db *db, const char *prefix, const char *after, uint32_t limit,
			     db_subscriber_cb cb, void *arg);
/* Subscribers whose IMSI starts with prefix (NULL: all). Without a prefix
 * the count kept by db (O(1)); with one a walk of the range: use
 * db_subscriber_seek() in steps where that can be long. */
int64_t db_subscriber_count_prefix(struct db *db, const char *prefix);
/* Bounded walk of the rows whose IMSI starts with prefix (NULL or "": all),
 * strictly after the SUPI `after` (NULL or "": from the first): if there are
 * at least n (1..INT32_MAX), the n-th one's SUPI goes to key and n is
 * returned, else how many there are (< n; key untouched), or -errno. One
 * index seek plus n entries: the caller chooses how much one step costs
 * (offset paging and prefix counts in steps, web/api_subs.c). */
int db_subscriber_seek(struct db *db, const char *prefix, const char *after, uint32_t n,
		       char key[DB_SUPI_MAX]);
/* A peer connection of db (db_open_peer) is about to import rows and the
 * caller makes sure nothing else adds or removes rows until it is over:
 * db_subscriber_count() keeps answering from the count it holds, without a
 * recount, and db_subscriber_count_release(db, n) adds the n rows the import
 * committed (0 if it failed, negative: unknown, counted again when next
 * asked). hold returns the count, or -errno (then nothing is held). */
int64_t db_subscriber_count_hold(struct db *db);
void db_subscriber_count_release(struct db *db, int added);

/* Validate s (SUPI form, ranges, slices, DNNs); 0 or -EINVAL with a reason. */
int db_subscriber_check(const struct db_subscriber *s, char *err, size_t errsz);

/* ---- web users, API tokens, audit log (schema v2, users.c) ---- */

/* Roles; the same values as enum web_role. */
enum db_role { DB_ROLE_READ = 1, DB_ROLE_OPERATOR = 2, DB_ROLE_ADMIN = 3 };
#define DB_NAME_MAX 64            /* user and token names: [A-Za-z0-9._@-], 1..64 */
#define DB_PASSWORD_MIN 8
#define DB_PASSWORD_MAX 256
#define DB_TOKEN_LEN 68           /* "sct_" + 32 random bytes in hex */
#define DB_KDF_ITER_DEFAULT 600000u /* PBKDF2-HMAC-SHA256, OWASP 2023 figure */

/* "read" / "operator" / "admin" (also "read-only", "readonly"); -EINVAL. */
int db_role_parse(const char *s);
const char *db_role_name(int role);
bool db_name_valid(const char *name);

struct db_user {
	char name[DB_NAME_MAX + 1];
	int role;
	int64_t created, updated;
};
typedef int (*db_user_cb)(const struct db_user *u, void *arg);

/* Passwords are stored as "pbkdf2-sha256$ITER$SALT$HASH" (16-byte random
 * salt, 32-byte PBKDF2-HMAC-SHA256, ITER = db_user_kdf_iter(0)).
 * create: -EEXIST, -EINVAL (name, role, password length). */
int db_user_create(struct db *db, const char *name, int role, const char *password);
/* Change role (0: keep) and/or password (NULL: keep). -ENOENT. */
int db_user_update(struct db *db, const char *name, int role, const char *password);
int db_user_delete(struct db *db, const char *name);
/* 0 and *role, or -EACCES for an unknown user or a wrong password (the
 * KDF runs in both cases: no timing hint of which). */
int db_user_verify(struct db *db, const char *name, const char *password, int *role);
int db_user_get(struct db *db, const char *name, struct db_user *out);
/* db_user_verify in two halves, so the slow KDF can run off the control
 * thread: pw_get (this connection's thread) copies the stored string of
 * name (a dummy one and *role = 0 for an unknown name, so the KDF work is
 * the same); pw_check (any thread, touches no db) is 0 on a match, else
 * -EACCES. DB_PW_STR_MAX bytes hold a stored string. */
#define DB_PW_STR_MAX 160
int db_user_pw_get(struct db *db, const char *name, char stored[DB_PW_STR_MAX], int *role);
int db_pw_check(const char *password, const char *stored);
/* The slow half of create / update, for any thread: the stored string of
 * password (random salt, db_user_kdf_iter iterations). -EINVAL, -EIO. */
int db_pw_make(const char *password, char out[DB_PW_STR_MAX]);
/* create / update with a string made by db_pw_make (update: NULL keeps it). */
int db_user_create_hashed(struct db *db, const char *name, int role, const char *stored);
int db_user_update_hashed(struct db *db, const char *name, int role, const char *stored);
int db_user_list(struct db *db, db_user_cb cb, void *arg);
int64_t db_user_count(struct db *db);
/* Admin users (refuse to delete / demote the last one). */
int64_t db_user_count_role(struct db *db, int role);
/* Set the PBKDF2 iteration count for new hashes (tests lower it; 0 keeps
 * it). Returns the count in force. Verification uses the stored count. */
unsigned db_user_kdf_iter(unsigned iter);

struct db_token {
	int64_t id;
	char name[DB_NAME_MAX + 1];
	char owner[DB_NAME_MAX + 1];
	int role;
	int64_t created;
};
typedef int (*db_token_cb)(const struct db_token *t, void *arg);
/* New random token (returned once in out, DB_TOKEN_LEN + 1 bytes); only its
 * SHA-256 is stored. 0 and *id. */
int db_token_create(struct db *db, const char *name, const char *owner, int role,
		    char out[DB_TOKEN_LEN + 1], int64_t *id);
/* 0 and *out for a known token, -ENOENT. */
int db_token_check(struct db *db, const char *token, struct db_token *out);
int db_token_list(struct db *db, db_token_cb cb, void *arg);
int db_token_delete(struct db *db, int64_t id);
/* Tokens of a user (when the user is deleted). */
int db_token_delete_owner(struct db *db, const char *owner);

struct db_audit {
	int64_t id, ts;
	char who[DB_NAME_MAX + 16];
	char action[160];
	char detail[256];
};
typedef int (*db_audit_cb)(const struct db_audit *a, void *arg);
/* Append one entry (ts = now). */
int db_audit_add(struct db *db, const char *who, const char *action, const char *detail);
/* Newest first, entries with id < before (0: from the newest), at most limit. */
int db_audit_list(struct db *db, int64_t before, uint32_t limit, db_audit_cb cb, void *arg);

/* ---- policy profiles (schema v3, policy.c) ----
 *
 * A named set of subscription values shared by many subscribers: DNNs,
 * S-NSSAIs, session-AMBR (TS 23.501 5.7.2.6), default 5QI and ARP priority
 * (TS 23.501 5.7.2.1/5.7.2.2). Like in struct db_subscriber, 0 / empty means
 * "not set here" (the network default applies). A subscriber refers to at
 * most one policy by name (db_subscriber.policy). Few rows (operator-made):
 * statements are prepared per call, except the existence check that every
 * subscriber write does.
 */
struct db_policy {
	char name[DB_POLICY_NAME_MAX + 1];
	uint8_t n_dnns;
	char dnns[DB_MAX_DNNS][DB_DNN_MAX + 1];
	uint8_t n_slices;
	struct db_snssai slices[DB_MAX_SLICES];
	uint64_t ambr_ul, ambr_dl;   /* session-AMBR, bit/s, 0 = network default */
	uint64_t ue_ambr_ul, ue_ambr_dl; /* UE-AMBR (schema v5), bit/s, 0 = network default */
	uint8_t default_5qi;         /* 0 = network default, else a non-GBR 5QI */
	uint8_t arp;                 /* 0 = network default, else 1..15 */
	int64_t created, updated;    /* unix seconds, set by db/ */
};
typedef int (*db_policy_cb)(const struct db_policy *p, void *arg);

bool db_policy_name_valid(const char *name);
/* Validate p (name, counts, DNN syntax, no duplicate DNN or slice, SD 24
 * bits, ARP 0..15, AMBR <= INT64_MAX). 0, or -EINVAL with *field set to
 * the JSON/TOML key at fault ("name", "dnns", "slices", "ambr_ul",
 * "ambr_dl", "default_5qi", "arp"; field may be NULL) and a reason in err. */
int db_policy_check(const struct db_policy *p, const char **field, char *err, size_t errsz);
enum db_put_mode {
	DB_PUT_UPSERT = 0,   /* insert or replace */
	DB_PUT_CREATE,       /* insert only: -EEXIST when the name exists */
	DB_PUT_REPLACE,      /* replace only: -ENOENT when it does not */
};
/* Write p (created is kept on replace; created/updated of p are ignored).
 * 0, -EINVAL (db_policy_check), -EEXIST / -ENOENT per mode. */
int db_policy_put(struct db *db, const struct db_policy *p, enum db_put_mode mode);
/* 0 or -ENOENT. */
int db_policy_get(struct db *db, const char *name, struct db_policy *out);
/* 0, -ENOENT, or -EBUSY while any subscriber refers to it (nothing deleted;
 * db_policy_users() says how many). */
int db_policy_delete(struct db *db, const char *name);
/* Every policy in name order; cb returns non-zero to stop (that value is
 * returned). Returns the number passed to cb or -errno. */
int db_policy_walk(struct db *db, db_policy_cb cb, void *arg);
/* Number of subscribers whose policy is name (an index range count), or
 * -errno. */
int64_t db_policy_users(struct db *db, const char *name);
/* Every subscriber whose policy is name, in SUPI order (the partial index
 * on subscribers.policy: cost is the matching rows only). Same contract as
 * db_load_subscribers. */
int db_subscriber_walk_policy(struct db *db, const char *name, db_subscriber_cb cb, void *arg);

/* ---- settings: a small key/value store (schema v3, settings.c) ----
 *
 * For values an operator changes at run time and that must survive a
 * restart (network settings from the web API). Keys are 1..DB_SETTING_KEY_MAX
 * characters of [A-Za-z0-9._-] (namespace them with dots: "net.plmn");
 * values are any UTF-8 text (JSON is a good choice) up to
 * DB_SETTING_VALUE_MAX bytes. Each row also records when it was last
 * written (unix seconds). Same thread rule as everything on struct db (the
 * control thread); statements are prepared per call (not a hot path).
 */
#define DB_SETTING_KEY_MAX 64
#define DB_SETTING_VALUE_MAX 65536
bool db_setting_key_valid(const char *key);
/* Copy the value of key into out (NUL-terminated). Returns the value's
 * length (strlen), -ENOENT when the key is absent, -ENOSPC when the value
 * does not fit in outsz (out is then ""; a buffer of DB_SETTING_VALUE_MAX
 * + 1 bytes always fits), -EINVAL for a bad key. updated may be NULL, else
 * it receives the time the row was last written. */
int db_setting_get(struct db *db, const char *key, char *out, size_t outsz, int64_t *updated);
/* Insert or replace key = value (updated = now). 0, -EINVAL (key syntax,
 * NULL value, value longer than DB_SETTING_VALUE_MAX). */
int db_setting_put(struct db *db, const char *key, const char *value);
/* 0 or -ENOENT. */
int db_setting_delete(struct db *db, const char *key);
/* Every key starting with prefix (NULL or "": all) in key order. cb gets
 * the key, value and updated time; it returns non-zero to stop (that value
 * is returned). Returns the number of rows passed to cb or -errno. */
typedef int (*db_setting_cb)(const char *key, const char *value, int64_t updated, void *arg);
int db_setting_walk(struct db *db, const char *prefix, db_setting_cb cb, void *arg);

/* All-or-nothing groups of writes on this connection (e.g. several
 * db_setting_put of one PATCH): begin, the writes, then commit, or rollback
 * on the first error. Not nestable, and not around db_import_toml (which
 * runs its own transaction): begin returns -EBUSY inside a transaction.
 * BEGIN IMMEDIATE: the writer thread's SQN batches wait (busy timeout) for
 * the commit, so keep the group short. */
int db_tx_begin(struct db *db);
int db_tx_commit(struct db *db);   /* on failure the transaction is rolled back */
int db_tx_rollback(struct db *db); /* no-op (0) outside a transaction */

/* ---- backup and restore ---- */

/* A consistent snapshot of the whole database into a new file at path
 * (VACUUM INTO: one read transaction; the writer may go on). -EEXIST. */
int db_backup(struct db *db, const char *path);
/* Check that src is a solocore database this binary can open (SQLite
 * integrity_check, schema version <= latest, the subscribers table) and
 * copy it to DBPATH.restore; db_open() moves it in place on the next start.
 * -EINVAL with a reason in err. */
int db_restore_stage(struct db *db, const char *src, char *err, size_t errsz);

/* ---- write-behind writer ---- */

struct db_writer;

struct db_writer_opts {
	uint32_t queue_cap;   /* distinct subscribers pending at once (default 65536) */
	uint32_t batch_max;   /* updates per transaction (default 1000) */
	uint32_t batch_ms;    /* how long the first update may wait for others (default 10) */
	/* While the writer runs, WAL checkpoints (which fsync) are its job: the
	 * control thread's connection has wal_autocheckpoint off and the writer
	 * runs a PASSIVE checkpoint after each idle period this long (default 1000). */
	uint32_t checkpoint_ms;
};

struct db_writer_stats {
	uint64_t queued;      /* updates accepted into an empty slot */
	uint64_t coalesced;   /* updates that replaced a pending one for the same SUPI */
	uint64_t dropped;     /* updates lost because the queue was full */
	uint64_t written;     /* rows updated in committed transactions */
	uint64_t batches;     /* committed transactions */
	uint64_t failed;      /* transactions that failed (rolled back, logged) */
	uint64_t checkpoints; /* checkpoints that moved WAL frames into the database */
	uint64_t ckpt_frames; /* frames moved by them */
	uint64_t ckpt_attempts; /* checkpoints tried (idle periods that looked) */
};

/* Start the writer thread on its own connection to db's file. opts may be
 * NULL (defaults). */
int db_writer_start(struct db *db, const struct db_writer_opts *opts, struct db_writer **out);
/* Queue "SQN of supi is now sqn". Never blocks on I/O: the only lock is held
 * by the writer for a pointer swap. Returns 0 (queued or coalesced),
 * -ENOSPC (queue full: dropped and counted — safe, see writer.c),
 * -EINVAL (bad SUPI), -ESHUTDOWN (writer stopping). */
int db_writer_sqn(struct db_writer *w, const char *supi, uint64_t sqn);
/* Wait until everything queued before this call is committed. 0, or -EIO if
 * a transaction failed since the previous flush. Not for the control
 * thread's hot path (it waits for SQLite). */
int db_writer_flush(struct db_writer *w);
/* Flush, stop and join the thread, free w. Accepts NULL. */
void db_writer_stop(struct db_writer *w);
void db_writer_get_stats(struct db_writer *w, struct db_writer_stats *out);

/* ---- cluster nodes (schema v6, nodes.c): what each node publishes about itself ----
 *
 * Every `solocore run` of a cluster writes its own row every few seconds (db/feed.h does it,
 * off the control thread), so the web API of any node shows all of them (GET
 * /api/v1/cluster): who the node is, where its API is, and its gNBs and UEs now. A row
 * whose updated is old belongs to a node that is down or cut off.
 */
#define DB_NODE_ADDR_MAX 64
#define DB_NODE_API_MAX 128
#define DB_NODE_GNB_JSON_MAX 4096
struct db_node_row {
	uint64_t id;                     /* cluster node id (cluster.node_id) */
	char addr[DB_NODE_ADDR_MAX];     /* its dqlite address "host:port" */
	char api[DB_NODE_API_MAX];       /* its web API base URL ("http://10.0.0.1:8080"), "" = none */
	uint32_t gnbs;                   /* NG associations up */
	uint32_t ues;                    /* UE contexts in the AMF */
	uint32_t sessions;               /* PDU sessions in the SMF */
	/* JSON array of its gNBs, [{"name":"...","global_id":"...","addr":"..."}, ...], cut at a
	 * whole entry to fit (the counts above are exact); "" is stored as "[]". */
	char gnb_json[DB_NODE_GNB_JSON_MAX];
	int64_t updated;                 /* unix milliseconds: set by db_node_put */
};
/* Insert or replace row r->id (updated = now). 0, -EINVAL (id 0, a string not terminated). */
int db_node_put(struct db *db, const struct db_node_row *r);
/* Every row in id order; cb as db_setting_walk. Returns the count or -errno. */
typedef int (*db_node_cb)(const struct db_node_row *r, void *arg);
int db_node_walk(struct db *db, db_node_cb cb, void *arg);
/* Forget node id's row (after `cluster remove`). 0 or -ENOENT. */
int db_node_delete(struct db *db, uint64_t id);

/* ---- command line ---- */

/*
 * `solocore sims ...`: argv[0] is "sims".
 *   sims import FILE.toml [--db PATH | --cluster ADDRS | -c CONFIG]   (default ./solocore.db)
 *   sims generate --count N [--imsi-start IMSI] [--ki HEX --opc HEX | --random-keys]
 * generate writes TOML to stdout; without --ki/--opc every SIM gets its own
 * random K and OPc (getrandom). Exit codes: 0 ok, 2 usage, 1 failure;
 * errors on stderr as "file:line: reason".
 * db/ does not read the YAML config: db_cli_sims() refuses -c (usage error).
 * A caller that has loaded the config calls db_cli_sims_db() with the
 * configured database path; that skips "-c/--config CONFIG" and uses conf_db unless
 * --db is given.
 */
int db_cli_sims(int argc, char **argv);
/* The database a command line names: a SQLite file path, or (a cluster) "dqlite:" followed
 * by node addresses "host:port,host:port": database DB_CLUSTER_NAME through the first node
 * that answers with a leader (db_open_dqlite). `--cluster ADDRS` on sims import and users
 * means "dqlite:ADDRS"; the configuration's cluster: section (-c) gives the same. 0 or
 * -errno (-EHOSTUNREACH: no node answered with a leader). */
#define DB_CLUSTER_NAME "solocore"
#define DB_LOC_DQLITE "dqlite:"
int db_open_location(const char *loc, struct db **out);
int db_cli_sims_db(int argc, char **argv, const char *conf_db);

/*
 * `solocore users ...`: argv[0] is "users".
 *   users create NAME --role admin|operator|read [--password-stdin] [--db PATH]
 *   users list [--db PATH]
 *   users delete NAME [--db PATH]
 *   users passwd NAME [--password-stdin] [--db PATH]
 * Without --password-stdin a random password is generated and printed once
 * on stdout. conf_db (may be NULL) is the default path when --db is absent
 * (then ./solocore.db); -c/--config CONFIG is skipped like in sims.
 * Exit codes as sims.
 */
int db_cli_users(int argc, char **argv, const char *conf_db);

#endif
