/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * feed - the cluster's change feed (issue 20): every node learns what any node wrote to
 * subscribers, policies and settings, and publishes its own db_node_row.
 *
 * Why: each node's UDM serves from memory (udm.h); a SIM added, changed or deleted through
 * another node's API must reach it at once, or a deleted SIM keeps authenticating there.
 * The replicated database has a table `changes` (schema v6) filled by triggers in the same
 * transaction as the write itself (db.c, dqlite databases only), so no writer can forget
 * it and the order is the commit order.
 *
 * Threads: db_feed_open() runs on the control thread and reads the feed's position (call
 * it before the UDM loads the subscribers: changes committed after that are delivered,
 * some twice, which is harmless because each item is the row as it is now, not a diff). A
 * thread of its own, with its own connection (db_open_peer), polls the table every
 * DB_FEED_POLL_MS, reads the current row of each changed key and queues it; the control
 * thread takes items with db_feed_take() when db_feed_fd() is readable. A leader change or
 * a lost quorum only delays the thread: the control thread never waits on the cluster.
 *
 * Items carry K and OPc (a subscriber row): db_feed_take() copies the item out and wipes
 * the queue's copy; the caller wipes its own.
 *
 * Retention: rows older than DB_FEED_KEEP_S are pruned by whichever node's thread gets
 * there. A node that was away longer than that (its position is below the oldest row) gets
 * a full resynchronisation instead: DB_FEED_RESYNC_BEGIN, every subscriber and policy as
 * an upsert, then DB_FEED_RESYNC_END with the SUPIs that exist (to remove the others).
 */
#ifndef SOLOCORE_DB_FEED_H
#define SOLOCORE_DB_FEED_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db/db.h"

#define DB_FEED_POLL_MS 100
#define DB_FEED_KEEP_S (24 * 3600)
#define DB_FEED_PUBLISH_MS 2000   /* the node row, when db_feed_publish gave one */
#define DB_FEED_QUEUE 1024        /* items queued at most (the thread waits beyond) */

enum db_feed_kind {
	DB_FEED_SUBSCRIBER = 1,   /* key: SUPI; sub (and pol when sub.policy is set) */
	DB_FEED_POLICY = 2,       /* key: name; pol */
	DB_FEED_SETTING = 3,      /* key: setting key; value */
	DB_FEED_RESYNC_BEGIN = 4,
	DB_FEED_RESYNC_END = 5,   /* supis: every SUPI in the database, sorted (strcmp) */
};

struct db_feed_item {
	enum db_feed_kind kind;
	bool gone;                /* the row was deleted (nothing else is set) */
	int64_t seq;              /* its changes.seq (0 for a resync item) */
	char key[DB_SETTING_KEY_MAX + DB_SUPI_MAX + 1];
	struct db_subscriber sub;
	bool has_pol;
	struct db_policy pol;
	char *value;              /* DB_FEED_SETTING: the value (malloc'd: the taker frees it) */
	char (*supis)[DB_SUPI_MAX];   /* DB_FEED_RESYNC_END: n_supis SUPIs (the taker frees) */
	size_t n_supis;
};

struct db_feed;

/* Start the feed on db's database (a dqlite one: -EOPNOTSUPP on a SQLite file). self: this
 * node's id (its row in nodes). 0 or -errno (the position could not be read: no quorum). */
int db_feed_open(struct db *db, uint64_t self, struct db_feed **out);
/* Readable (eventfd) when items are queued. */
int db_feed_fd(const struct db_feed *f);
/* Take the oldest item: 1 (copied into *out), 0 (queue empty; the fd is drained), -errno. */
int db_feed_take(struct db_feed *f, struct db_feed_item *out);
/* This node's row, written by the thread every DB_FEED_PUBLISH_MS from now on (copied). */
void db_feed_publish(struct db_feed *f, const struct db_node_row *r);

struct db_feed_stats {
	int64_t pos;              /* the last changes.seq read */
	uint64_t items;           /* queued so far */
	uint64_t errors;          /* polls that failed (no leader, lost connection) */
	uint64_t resyncs;
	uint64_t published;       /* node rows written */
	int64_t last_ok_ms;       /* CLOCK_MONOTONIC ms of the last poll that worked */
};
void db_feed_get_stats(struct db_feed *f, struct db_feed_stats *out);
/* Stop and join the thread, free the queue (wiped). NULL is fine. */
void db_feed_close(struct db_feed *f);

#endif /* SOLOCORE_DB_FEED_H */
