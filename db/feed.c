/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * feed - the cluster's change feed (db/feed.h): a thread reads `changes` after the last
 * position, turns each key into the row as it is now, and queues it for the control thread.
 *
 * The queue is a ring of DB_FEED_QUEUE items under one mutex; the thread waits when it is
 * full (a bulk import on another node then paces itself to the control thread, never
 * dropping an item), and signals an eventfd when it adds to an empty ring.
 */
#include "db/feed.h"
#include "db/db_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <time.h>
#include <unistd.h>

#include "common/log.h"

#define BATCH 256
#define PRUNE_EVERY_MS 60000

struct change {
	int64_t seq;
	int kind;
	char key[sizeof(((struct db_feed_item *)0)->key)];
};

struct db_feed {
	struct db *peer;          /* the thread's connection */
	uint64_t self;
	int efd;
	pthread_t thread;
	bool started;
	pthread_mutex_t mu;
	pthread_cond_t cv;        /* space in the ring, or stop */
	bool stop;
	struct db_feed_item *ring;
	unsigned head, n;
	struct db_node_row row;   /* to publish (under mu) */
	bool have_row;
	struct db_feed_stats st;  /* under mu */
	struct change batch[BATCH];
	/* full resynchronisation state (thread only) */
	struct db_policy *pols;
	size_t n_pols, cap_pols;
	char (*supis)[DB_SUPI_MAX];
	size_t n_supis, cap_supis;
	bool dead;                /* the stop came while queueing */
};

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Queue it (copied, then *it wiped); waits for room. -ESHUTDOWN when stopping. */
static int push(struct db_feed *f, struct db_feed_item *it)
{
	int rc = 0;

	pthread_mutex_lock(&f->mu);
	while (!f->stop && f->n == DB_FEED_QUEUE)
		pthread_cond_wait(&f->cv, &f->mu);
	if (f->stop) {
		rc = -ESHUTDOWN;
	} else {
		f->ring[(f->head + f->n) % DB_FEED_QUEUE] = *it;
		f->n++;
		f->st.items++;
		if (f->n == 1) {
			uint64_t one = 1;
			ssize_t w = write(f->efd, &one, sizeof(one));
			(void)w;
		}
	}
	pthread_mutex_unlock(&f->mu);
	if (rc < 0) {
		free(it->value);
		free(it->supis);
		f->dead = true;
	}
	explicit_bzero(it, sizeof(*it));
	return rc;
}

int db_feed_take(struct db_feed *f, struct db_feed_item *out)
{
	int rc = 0;

	if (!f || !out)
		return -EINVAL;
	pthread_mutex_lock(&f->mu);
	if (f->n) {
		struct db_feed_item *it = &f->ring[f->head];

		*out = *it;
		explicit_bzero(it, sizeof(*it));
		f->head = (f->head + 1) % DB_FEED_QUEUE;
		if (f->n-- == DB_FEED_QUEUE)
			pthread_cond_signal(&f->cv);
		rc = 1;
	} else {
		uint64_t v;
		ssize_t r = read(f->efd, &v, sizeof(v));   /* nonblocking: drained */
		(void)r;
	}
	pthread_mutex_unlock(&f->mu);
	return rc;
}

/* The changes after pos, at most BATCH, into f->batch. Count or -errno. */
static int read_batch(struct db_feed *f, int64_t pos)
{
	struct sql_stmt *st;
	int n = 0, rc = db_stmt(f->peer, "SELECT seq, kind, key FROM changes WHERE seq > ? ORDER BY seq"
				" LIMIT 256", &st);

	if (rc < 0)
		return rc;
	sql_bind_int64(st, 1, pos);
	while ((rc = sql_step(st)) == SQL_ROW && n < BATCH) {
		struct change *c = &f->batch[n];
		const char *k = sql_column_text(st, 2);
		int len = sql_column_bytes(st, 2);

		if (!k || len <= 0 || (size_t)len >= sizeof(c->key))
			continue;   /* not a key of ours (a trigger never writes one) */
		c->seq = sql_column_int64(st, 0);
		c->kind = sql_column_int(st, 1);
		memcpy(c->key, k, (size_t)len + 1);
		n++;
	}
	sql_finalize(st);
	return rc == SQL_DONE || rc == SQL_ROW ? n : rc;
}

/* The one integer q selects, or -errno. */
static int64_t scalar(struct db *db, const char *q)
{
	struct sql_stmt *st;
	int rc = db_stmt(db, q, &st);

	if (rc < 0)
		return rc;
	rc = sql_step(st);
	int64_t v = rc == SQL_ROW ? sql_column_int64(st, 0) : rc;
	sql_finalize(st);
	return v;
}

static int64_t min_seq(struct db_feed *f)
{
	return scalar(f->peer, "SELECT coalesce(min(seq), 0) FROM changes");
}

/* The last seq ever given (AUTOINCREMENT's mark survives the pruning of every row, which
 * max(seq) would not: a quiet cluster would then look like a gap). */
static int64_t max_seq(struct db *db)
{
	return scalar(db, "SELECT coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'changes'), 0)");
}

/* One change as the row is now. 0 (queued), -errno (try again at the next poll). */
static int deliver(struct db_feed *f, const struct change *c)
{
	struct db_feed_item it = { .seq = c->seq, .kind = (enum db_feed_kind)c->kind };
	int rc;

	memcpy(it.key, c->key, sizeof(it.key));
	switch (c->kind) {
	case DB_FEED_SUBSCRIBER:
		rc = db_subscriber_get(f->peer, c->key, &it.sub);
		if (rc == 0 && it.sub.policy[0]) {
			rc = db_policy_get(f->peer, it.sub.policy, &it.pol);
			it.has_pol = rc == 0;
			if (rc == -ENOENT)   /* deleted since (the FK forbids it): the next change says */
				rc = 0;
		}
		break;
	case DB_FEED_POLICY:
		rc = db_policy_get(f->peer, c->key, &it.pol);
		it.has_pol = rc == 0;
		break;
	case DB_FEED_SETTING:
		it.value = malloc(DB_SETTING_VALUE_MAX + 1);
		rc = it.value ? db_setting_get(f->peer, c->key, it.value, DB_SETTING_VALUE_MAX + 1, NULL)
			      : -ENOMEM;
		if (rc > 0)
			rc = 0;
		break;
	default:
		return 0;   /* a kind this binary does not know: skipped */
	}
	if (rc == -ENOENT) {
		it.gone = true;
		free(it.value);
		it.value = NULL;
		rc = 0;
	}
	if (rc < 0) {
		free(it.value);
		explicit_bzero(&it, sizeof(it));
		return rc;
	}
	return push(f, &it);
}

static int pol_cmp(const void *a, const void *b)
{
	return strcmp(((const struct db_policy *)a)->name, ((const struct db_policy *)b)->name);
}

static int resync_pol(const struct db_policy *p, void *arg)
{
	struct db_feed *f = arg;

	if (f->n_pols == f->cap_pols) {
		size_t cap = f->cap_pols ? 2 * f->cap_pols : 64;
		struct db_policy *np = realloc(f->pols, cap * sizeof(*np));

		if (!np)
			return -ENOMEM;
		f->pols = np;
		f->cap_pols = cap;
	}
	f->pols[f->n_pols++] = *p;
	return 0;
}

static int resync_sub(const struct db_subscriber *s, void *arg)
{
	struct db_feed *f = arg;
	struct db_feed_item it = { .kind = DB_FEED_SUBSCRIBER, .sub = *s };

	if (f->n_supis == f->cap_supis) {
		size_t cap = f->cap_supis ? 2 * f->cap_supis : 1024;
		char (*ns)[DB_SUPI_MAX] = realloc(f->supis, cap * sizeof(*ns));

		if (!ns) {
			explicit_bzero(&it, sizeof(it));
			return -ENOMEM;
		}
		f->supis = ns;
		f->cap_supis = cap;
	}
	memcpy(f->supis[f->n_supis++], s->supi, DB_SUPI_MAX);
	snprintf(it.key, sizeof(it.key), "%s", s->supi);
	if (s->policy[0] && f->n_pols) {
		struct db_policy k;
		snprintf(k.name, sizeof(k.name), "%s", s->policy);
		const struct db_policy *p = bsearch(&k, f->pols, f->n_pols, sizeof(*p), pol_cmp);
		if (p) {
			it.pol = *p;
			it.has_pol = true;
		}
	}
	return push(f, &it);
}

/* Every policy and subscriber as they are now, then the SUPIs that exist. The position
 * is read first: what changes during the walk is delivered again after it. */
static int resync(struct db_feed *f, int64_t *pos)
{
	struct db_feed_item it = { .kind = DB_FEED_RESYNC_BEGIN };
	int64_t top = max_seq(f->peer);
	int rc;

	if (top < 0)
		return (int)top;
	f->n_pols = f->n_supis = 0;
	if ((rc = push(f, &it)) < 0)
		return rc;
	rc = db_policy_walk(f->peer, resync_pol, f);
	if (rc >= 0 && f->n_pols)
		qsort(f->pols, f->n_pols, sizeof(*f->pols), pol_cmp);
	for (size_t i = 0; rc >= 0 && i < f->n_pols; i++) {
		struct db_feed_item p = { .kind = DB_FEED_POLICY, .pol = f->pols[i], .has_pol = true };

		snprintf(p.key, sizeof(p.key), "%s", f->pols[i].name);
		rc = push(f, &p);
	}
	if (rc >= 0)
		rc = db_load_subscribers(f->peer, resync_sub, f);
	if (rc < 0)
		return rc;   /* BEGIN without END: the taker waits for the next resync */
	struct db_feed_item end = { .kind = DB_FEED_RESYNC_END, .supis = f->supis, .n_supis = f->n_supis };
	f->supis = NULL;
	f->n_supis = f->cap_supis = 0;
	if ((rc = push(f, &end)) < 0)
		return rc;
	*pos = top;
	pthread_mutex_lock(&f->mu);
	f->st.resyncs++;
	pthread_mutex_unlock(&f->mu);
	return 0;
}

/* One poll: 0 (caught up or a batch done), -errno. */
static int poll_once(struct db_feed *f, int64_t *pos)
{
	int n = read_batch(f, *pos);

	if (n < 0)
		return n;
	if (n && f->batch[0].seq != *pos + 1) {
		/* A hole: rows pruned under us (or a seq that never committed). Only the first
		 * means we missed something. */
		int64_t lo = min_seq(f);
		if (lo < 0)
			return (int)lo;
		if (lo > *pos + 1) {
			log_warn("db", "change feed: changes %lld..%lld were pruned before this node read "
				 "them (away longer than %d s): reloading every subscriber and policy",
				 (long long)*pos + 1, (long long)lo - 1, DB_FEED_KEEP_S);
			return resync(f, pos);
		}
	}
	for (int i = 0; i < n; i++) {
		/* A key changed again later in the batch: its later change delivers the same row. */
		bool later = false;
		for (int j = i + 1; j < n && !later; j++)
			later = f->batch[j].kind == f->batch[i].kind && !strcmp(f->batch[j].key, f->batch[i].key);
		int rc = later ? 0 : deliver(f, &f->batch[i]);
		if (rc < 0)
			return rc;
		*pos = f->batch[i].seq;
	}
	return n == BATCH ? 1 : 0;
}

static void prune(struct db_feed *f)
{
	struct sql_stmt *st;

	if (db_stmt(f->peer, "DELETE FROM changes WHERE at < ?", &st) < 0)
		return;
	sql_bind_int64(st, 1, (int64_t)time(NULL) - DB_FEED_KEEP_S);
	sql_step(st);
	sql_finalize(st);
}

static void *feed_main(void *arg)
{
	struct db_feed *f = arg;
	int64_t pos, next_pub = 0, next_prune = mono_ms() + PRUNE_EVERY_MS;
	bool warned = false;

	pthread_mutex_lock(&f->mu);
	pos = f->st.pos;
	pthread_mutex_unlock(&f->mu);
	while (!f->dead) {
		int rc;

		while ((rc = poll_once(f, &pos)) == 1)
			;
		int64_t now = mono_ms();
		struct db_node_row row;
		bool pub = false;

		pthread_mutex_lock(&f->mu);
		f->st.pos = pos;
		if (rc < 0)
			f->st.errors++;
		else
			f->st.last_ok_ms = now;
		if (f->have_row && now >= next_pub) {
			row = f->row;
			pub = true;
		}
		pthread_mutex_unlock(&f->mu);
		if (rc < 0 && rc != -ESHUTDOWN && !warned) {
			log_warn("db", "change feed: cannot read the cluster's changes: %s (%s); trying "
				 "again every %d ms", strerror(-rc), sql_errmsg(f->peer->conn), DB_FEED_POLL_MS);
			warned = true;
		} else if (rc >= 0 && warned) {
			log_info("db", "change feed: reading the cluster's changes again (position %lld)",
				 (long long)pos);
			warned = false;
		}
		if (pub) {
			next_pub = now + DB_FEED_PUBLISH_MS;
			if (db_node_put(f->peer, &row) == 0) {
				pthread_mutex_lock(&f->mu);
				f->st.published++;
				pthread_mutex_unlock(&f->mu);
			}
		}
		if (now >= next_prune) {
			next_prune = now + PRUNE_EVERY_MS;
			prune(f);
		}
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		ts.tv_nsec += DB_FEED_POLL_MS * 1000000L;
		ts.tv_sec += ts.tv_nsec / 1000000000L;
		ts.tv_nsec %= 1000000000L;
		pthread_mutex_lock(&f->mu);
		if (!f->stop)
			pthread_cond_timedwait(&f->cv, &f->mu, &ts);
		if (f->stop)
			f->dead = true;
		pthread_mutex_unlock(&f->mu);
	}
	return NULL;
}

int db_feed_open(struct db *db, uint64_t self, struct db_feed **out)
{
	struct db_feed *f;
	int rc;

	if (!db || !out)
		return -EINVAL;
	if (sql_backend(db->conn) == SQL_SQLITE)
		return -EOPNOTSUPP;
	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	f->self = self;
	f->efd = -1;
	pthread_mutex_init(&f->mu, NULL);
	pthread_cond_init(&f->cv, NULL);
	f->ring = calloc(DB_FEED_QUEUE, sizeof(*f->ring));
	f->efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	rc = !f->ring ? -ENOMEM : f->efd < 0 ? -errno : 0;
	int64_t pos = rc == 0 ? max_seq(db) : 0;   /* before the UDM loads (db/feed.h) */
	if (rc == 0 && pos < 0)
		rc = (int)pos;
	if (rc == 0)
		rc = db_open_peer(db, &f->peer);
	if (rc == 0) {
		f->st.pos = pos;
		f->st.last_ok_ms = mono_ms();
		rc = -pthread_create(&f->thread, NULL, feed_main, f);
		f->started = rc == 0;
	}
	if (rc < 0) {
		log_error("db", "change feed: cannot start: %s", strerror(-rc));
		db_feed_close(f);
		return rc;
	}
	log_info("db", "change feed: from position %lld", (long long)pos);
	*out = f;
	return 0;
}

int db_feed_fd(const struct db_feed *f)
{
	return f ? f->efd : -1;
}

void db_feed_publish(struct db_feed *f, const struct db_node_row *r)
{
	if (!f || !r)
		return;
	pthread_mutex_lock(&f->mu);
	f->row = *r;
	f->row.id = f->self;
	f->have_row = true;
	pthread_mutex_unlock(&f->mu);
}

void db_feed_get_stats(struct db_feed *f, struct db_feed_stats *out)
{
	if (!f || !out)
		return;
	pthread_mutex_lock(&f->mu);
	*out = f->st;
	pthread_mutex_unlock(&f->mu);
}

void db_feed_close(struct db_feed *f)
{
	if (!f)
		return;
	pthread_mutex_lock(&f->mu);
	f->stop = true;
	pthread_cond_broadcast(&f->cv);
	pthread_mutex_unlock(&f->mu);
	if (f->started)
		pthread_join(f->thread, NULL);
	if (f->ring) {
		for (unsigned i = 0; i < f->n; i++) {
			struct db_feed_item *it = &f->ring[(f->head + i) % DB_FEED_QUEUE];
			free(it->value);
			free(it->supis);
		}
		explicit_bzero(f->ring, DB_FEED_QUEUE * sizeof(*f->ring));
		free(f->ring);
	}
	free(f->pols);
	free(f->supis);
	db_close(f->peer);
	if (f->efd >= 0)
		close(f->efd);
	pthread_cond_destroy(&f->cv);
	pthread_mutex_destroy(&f->mu);
	free(f);
}
