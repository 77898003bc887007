/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * writer - write-behind of SQN changes on a thread of its own.
 *
 * The control thread issues authentication vectors and keeps each
 * subscriber's SQN in memory; it only tells the writer "SQN of X is now N".
 * Pending updates live in a map SUPI -> latest SQN (a fixed array plus an
 * open-addressing index, both allocated at start): a second update for the
 * same subscriber replaces the first (coalescing), so the queue holds at
 * most one entry per subscriber and its capacity bounds memory.
 *
 * Two such maps alternate: the producer fills `pending`, the writer swaps it
 * for the empty one under the mutex (a pointer swap, no I/O under the lock),
 * then writes its map in transactions of batch_max rows. The first update of
 * a batch waits at most batch_ms for company, so a burst of registrations
 * costs one commit, not one per UE.
 *
 * Why dropping an update when the map is full is safe: the in-memory SQN
 * stays correct, only the copy on disk lags. If solocore restarts with a
 * stale SQN on disk, the next vector carries an SQN the USIM has already
 * seen; the USIM answers with a synchronisation failure carrying AUTS, and
 * the UDM resynchronises SQN from SQN_MS (TS 33.102 6.3.5; TS 33.501
 * 6.1.3.3; DESIGN.md, "Crash safety"). The UE sees one extra
 * authentication round trip; nothing is lost for good. The same argument
 * covers updates queued but not committed at a crash.
 */
#include "db/db_int.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"

struct wentry {
	char supi[DB_SUPI_MAX];
	uint64_t sqn;
};

struct wmap {
	uint32_t n;
	struct wentry *e;   /* cap entries */
	uint32_t *idx;      /* idx_cap slots: entry index + 1, 0 = empty */
};

struct db_writer {
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t wake;   /* producer/flush/stop -> writer */
	pthread_cond_t done;   /* writer -> flush waiters */
	struct wmap maps[2];
	struct wmap *pending;
	uint32_t cap, idx_mask, batch_max, batch_ms, checkpoint_ms;
	uint64_t swap_gen, done_gen;
	bool stop, flush_req;
	uint32_t idle_ticks;
	int err;               /* first failure since the last flush */
	struct db_writer_stats st;
	struct sql *conn;
	struct sql_stmt *upd;
	struct sql_stmt *upd_rows;   /* dqlite: WR_ROWS rows per statement (write_rows) */
	struct db *db;         /* whose connection's autocheckpoint we took over */
};

static uint32_t supi_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

int db_writer_sqn(struct db_writer *w, const char *supi, uint64_t sqn)
{
	size_t len = strnlen(supi, DB_SUPI_MAX);
	if (len == 0 || len >= DB_SUPI_MAX || sqn > DB_SQN_MAX)
		return -EINVAL;
	uint32_t h = supi_hash(supi);
	pthread_mutex_lock(&w->mu);
	if (w->stop) {
		pthread_mutex_unlock(&w->mu);
		return -ESHUTDOWN;
	}
	struct wmap *m = w->pending;
	uint32_t slot = h & w->idx_mask;
	for (; m->idx[slot]; slot = (slot + 1) & w->idx_mask) {
		struct wentry *e = &m->e[m->idx[slot] - 1];
		if (!strcmp(e->supi, supi)) {
			e->sqn = sqn;   /* only the latest SQN matters */
			w->st.coalesced++;
			pthread_mutex_unlock(&w->mu);
			return 0;
		}
	}
	if (m->n == w->cap) {
		/* Full: drop, count, never wait (safe, see the top of the file). */
		w->st.dropped++;
		pthread_mutex_unlock(&w->mu);
		log_rl(LOGL_WARN, "db", NULL, "writer queue full (%u subscribers pending): SQN update "
		       "dropped, AKA resynchronisation covers it", w->cap);
		return -ENOSPC;
	}
	struct wentry *e = &m->e[m->n];
	memcpy(e->supi, supi, len + 1);
	e->sqn = sqn;
	m->idx[slot] = ++m->n;
	w->st.queued++;
	if (m->n == 1 || m->n == w->batch_max)
		pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->mu);
	return 0;
}

/* On dqlite every statement is a round trip to the leader (~100 us here, a
 * 1000-row batch 0.1 s): there one UPDATE ... FROM (VALUES ...) carries
 * WR_ROWS rows, as many as dqlite's 255 parameters per statement allow (2 per
 * row and the time). Unused rows of the last statement are NULL, which
 * matches no SUPI. The map holds each SUPI once, so no row is matched twice.
 * SQLite keeps the one-row statement: no round trips to save. */
#define WR_ROWS 126

static int write_rows(struct db_writer *w, const struct wentry *e, uint32_t n, int64_t now)
{
	int changed = 0;

	for (uint32_t i = 0; i < n; i += WR_ROWS) {
		sql_bind_int64(w->upd_rows, 1, now);
		for (uint32_t j = 0; j < WR_ROWS; j++) {
			int p = 2 + 2 * (int)j;
			if (i + j < n) {
				sql_bind_text(w->upd_rows, p, e[i + j].supi, -1);
				sql_bind_int64(w->upd_rows, p + 1, (int64_t)e[i + j].sqn);
			} else {
				sql_bind_null(w->upd_rows, p);
				sql_bind_null(w->upd_rows, p + 1);
			}
		}
		int rc = sql_step(w->upd_rows);
		sql_reset(w->upd_rows);
		if (rc < 0)
			return rc;
		changed += (int)sql_changes(w->conn);
	}
	return changed;
}

static int prepare_rows(struct db_writer *w)
{
	/* "(?2,?3),(?4,?5),...": at most 10 bytes per row. */
	char sql[160 + WR_ROWS * 12];
	size_t k = (size_t)snprintf(sql, sizeof(sql), "UPDATE subscribers SET sqn = v.column2,"
				    " updated = ?1 FROM (VALUES ");

	for (int j = 0; j < WR_ROWS; j++)
		k += (size_t)snprintf(sql + k, sizeof(sql) - k, "%s(?%d,?%d)", j ? "," : "", 2 + 2 * j,
				      3 + 2 * j);
	snprintf(sql + k, sizeof(sql) - k, ") AS v WHERE subscribers.supi = v.column1");
	return sql_prepare(w->conn, sql, SQL_PERSISTENT, &w->upd_rows);
}

/* One transaction of up to batch_max rows. Returns rows changed or -errno. */
static int write_chunk(struct db_writer *w, const struct wentry *e, uint32_t n)
{
	/* sql_begin / sql_commit run statements the backend prepared once. */
	int r = sql_begin(w->conn);
	if (r < 0)
		return r;
	int64_t now = (int64_t)time(NULL);
	int changed = 0;
	if (w->upd_rows) {
		if ((changed = write_rows(w, e, n, now)) < 0) {
			sql_rollback(w->conn);
			return changed;
		}
		n = 0;   /* all written */
	}
	for (uint32_t i = 0; i < n; i++) {
		sql_bind_int64(w->upd, 1, (int64_t)e[i].sqn);
		sql_bind_int64(w->upd, 2, now);
		sql_bind_text(w->upd, 3, e[i].supi, -1);
		int rc = sql_step(w->upd);
		sql_reset(w->upd);
		if (rc < 0) {
			sql_rollback(w->conn);
			return rc;
		}
		/* 0 when the subscriber was deleted meanwhile: nothing to keep. */
		changed += sql_changes(w->conn);
	}
	if ((r = sql_commit(w->conn)) < 0) {
		sql_rollback(w->conn);
		return r;
	}
	return changed;
}

static void write_map(struct db_writer *w, struct wmap *m, int *err, uint64_t *written,
		      uint64_t *batches, uint64_t *failed)
{
	for (uint32_t i = 0; i < m->n; i += w->batch_max) {
		uint32_t n = m->n - i < w->batch_max ? m->n - i : w->batch_max;
		int r = write_chunk(w, m->e + i, n);
		if (r < 0) {
			(*failed)++;
			if (!*err)
				*err = -EIO;
			log_rl(LOGL_ERROR, "db", NULL, "writer: transaction of %u SQN updates failed: %s",
			       n, sql_errmsg(w->conn));
			continue;
		}
		*written += (uint64_t)r;
		(*batches)++;
	}
	/* Empty the map for its next turn: clear only the slots in use. */
	for (uint32_t i = 0; i < m->n; i++) {
		uint32_t slot = supi_hash(m->e[i].supi) & w->idx_mask;
		while (m->idx[slot] != i + 1)
			slot = (slot + 1) & w->idx_mask;
		m->idx[slot] = 0;
	}
	/* No tombstones needed: every used slot of this map is cleared, and the
	 * probe above walks past slots already zeroed. */
	m->n = 0;
}

static void deadline_after(struct timespec *ts, uint32_t ms)
{
	clock_gettime(CLOCK_MONOTONIC, ts);
	ts->tv_nsec += (long)(ms % 1000) * 1000000L;
	ts->tv_sec += ms / 1000 + ts->tv_nsec / 1000000000L;
	ts->tv_nsec %= 1000000000L;
}

/* Move the WAL's frames (the API's writes on the control thread's connection,
 * our SQN batches) into the database file. PASSIVE: never waits for readers
 * or the other connection's writes; whatever it cannot move now it moves next
 * time. Called without the mutex. */
static void checkpoint(struct db_writer *w, uint64_t *n, uint64_t *frames)
{
	int done = 0;
	int rc = sql_sqlite_checkpoint(w->conn, &done);

	if (rc == 0 && done > 0) {
		(*n)++;
		*frames += (uint64_t)done;
	} else if (rc < 0 && rc != -EBUSY && rc != -EOPNOTSUPP) {
		log_warn("db", "WAL checkpoint failed: %s", sql_errmsg(w->conn));
	}
}

static void *writer_main(void *arg)
{
	struct db_writer *w = arg;
	bool ckpt_due = true;   /* the control thread may have written before we started */
	pthread_mutex_lock(&w->mu);
	for (;;) {
		while (w->pending->n == 0 && !w->stop) {
			struct timespec idle;
			deadline_after(&idle, w->checkpoint_ms);
			if (pthread_cond_timedwait(&w->wake, &w->mu, &idle) != ETIMEDOUT)
				continue;
			/* Our batches make a checkpoint due; the API's writes on the
			 * control thread's connection we cannot see, so every 8th idle
			 * period looks anyway. Re-armed on every tick: an idle tick that
			 * finds nothing to move must not end checkpointing for good. */
			if (ckpt_due || (++w->idle_ticks % 8) == 0) {
				uint64_t n = 0, frames = 0;
				pthread_mutex_unlock(&w->mu);
				checkpoint(w, &n, &frames);
				pthread_mutex_lock(&w->mu);
				w->st.checkpoints += n;
				w->st.ckpt_frames += frames;
				w->st.ckpt_attempts++;
				ckpt_due = n != 0;   /* frames moved: look again next period */
			}
		}
		if (w->pending->n == 0)
			break;   /* stopping and drained */
		ckpt_due = true;
		/* Batch window: let more updates join unless someone waits. */
		struct timespec dl;
		deadline_after(&dl, w->batch_ms);
		while (w->pending->n < w->batch_max && !w->stop && !w->flush_req)
			if (pthread_cond_timedwait(&w->wake, &w->mu, &dl) == ETIMEDOUT)
				break;
		struct wmap *m = w->pending;
		w->pending = m == &w->maps[0] ? &w->maps[1] : &w->maps[0];
		uint64_t gen = ++w->swap_gen;
		w->flush_req = false;
		pthread_mutex_unlock(&w->mu);

		int err = 0;
		uint64_t written = 0, batches = 0, failed = 0;
		write_map(w, m, &err, &written, &batches, &failed);

		pthread_mutex_lock(&w->mu);
		w->st.written += written;
		w->st.batches += batches;
		w->st.failed += failed;
		if (err && !w->err)
			w->err = err;
		w->done_gen = gen;
		pthread_cond_broadcast(&w->done);
	}
	pthread_mutex_unlock(&w->mu);
	return NULL;
}

int db_writer_flush(struct db_writer *w)
{
	pthread_mutex_lock(&w->mu);
	uint64_t target = w->pending->n ? w->swap_gen + 1 : w->swap_gen;
	if (w->pending->n) {
		w->flush_req = true;
		pthread_cond_signal(&w->wake);
	}
	while (w->done_gen < target)
		pthread_cond_wait(&w->done, &w->mu);
	int r = w->err;
	w->err = 0;
	pthread_mutex_unlock(&w->mu);
	return r;
}

void db_writer_get_stats(struct db_writer *w, struct db_writer_stats *out)
{
	pthread_mutex_lock(&w->mu);
	*out = w->st;
	pthread_mutex_unlock(&w->mu);
}

/* SQLite's default again: the connection checkpoints its own commits. */
static void autockpt_default(struct db *db)
{
	if (sql_backend(db->conn) == SQL_SQLITE)
		sql_exec(db->conn, "PRAGMA wal_autocheckpoint = 1000");
}

static void writer_free(struct db_writer *w)
{
	for (int i = 0; i < 2; i++) {
		free(w->maps[i].e);
		free(w->maps[i].idx);
	}
	sql_finalize(w->upd);
	sql_finalize(w->upd_rows);
	sql_close(w->conn);
	pthread_cond_destroy(&w->wake);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->mu);
	free(w);
}

int db_writer_start(struct db *db, const struct db_writer_opts *opts, struct db_writer **out)
{
	struct db_writer *w = calloc(1, sizeof(*w));
	if (!w)
		return -ENOMEM;
	w->cap = opts && opts->queue_cap ? opts->queue_cap : 65536;
	w->batch_max = opts && opts->batch_max ? opts->batch_max : 1000;
	w->batch_ms = opts && opts->batch_ms ? opts->batch_ms : 10;
	w->checkpoint_ms = opts && opts->checkpoint_ms ? opts->checkpoint_ms : 1000;
	if (w->cap > (1u << 26)) {
		free(w);
		return -EINVAL;
	}
	uint32_t idx_cap = 16;
	while (idx_cap < 2 * w->cap)
		idx_cap <<= 1;
	w->idx_mask = idx_cap - 1;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_mutex_init(&w->mu, NULL);
	pthread_cond_init(&w->wake, &ca);
	pthread_cond_init(&w->done, &ca);
	pthread_condattr_destroy(&ca);
	int r = 0;
	for (int i = 0; i < 2 && r == 0; i++) {
		w->maps[i].e = calloc(w->cap, sizeof(struct wentry));
		w->maps[i].idx = calloc(idx_cap, sizeof(uint32_t));
		if (!w->maps[i].e || !w->maps[i].idx)
			r = -ENOMEM;
	}
	w->pending = &w->maps[0];
	if (r == 0)
		r = db_conn_again(db, &w->conn);
	if (r == 0)
		r = sql_prepare(w->conn, "UPDATE subscribers SET sqn = ?, updated = ? WHERE supi = ?",
				SQL_PERSISTENT, &w->upd);
	if (r == 0 && sql_backend(w->conn) == SQL_DQLITE)
		r = prepare_rows(w);
	/* DESIGN.md: the control thread never waits on fsync. Its commits do not
	 * (WAL, synchronous=NORMAL) but an automatic checkpoint after one would:
	 * from now on the writer checkpoints (we are on the thread that owns db).
	 * dqlite checkpoints on its own (the WAL is its replication log). */
	if (r == 0 && sql_backend(db->conn) == SQL_SQLITE &&
	    sql_exec(db->conn, "PRAGMA wal_autocheckpoint = 0") < 0)
		r = -EIO;
	if (r == 0)
		w->db = db;
	if (r == 0 && (r = -pthread_create(&w->thread, NULL, writer_main, w)) == 0)
		pthread_setname_np(w->thread, "db-writer");
	if (r < 0) {
		if (w->db)
			autockpt_default(db);
		log_error("db", "writer start failed: %d", r);
		writer_free(w);
		return r;
	}
	*out = w;
	return 0;
}

void db_writer_stop(struct db_writer *w)
{
	if (!w)
		return;
	pthread_mutex_lock(&w->mu);
	w->stop = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->mu);
	pthread_join(w->thread, NULL);   /* the thread drains pending first */
	if (w->db)
		autockpt_default(w->db);
	if (w->st.dropped || w->st.failed)
		log_warn("db", "writer stopped: %llu SQN updates dropped, %llu transactions failed",
			 (unsigned long long)w->st.dropped, (unsigned long long)w->st.failed);
	writer_free(w);
}
