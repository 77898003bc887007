/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * The SQN lease store (udm.h struct udm_sqn_store_ops) on a dqlite cluster, through the
 * dqlc wire-protocol client: table sqn_lease(ind INTEGER PRIMARY KEY, lease INTEGER,
 * owner INTEGER). Take-over and extension are single conditional statements (one Raft
 * entry each), so they are atomic against every other node's.
 *
 * dqlite serves SQL on the leader only and answers an EXEC once the Raft log entry is
 * committed, so write() returning 0 means a majority holds the lease. Reads go to the leader
 * too (a follower's copy may lag, and a lagging lease would let SEQs be issued twice).
 * A lost connection or a leader change drops the connection; the next call finds the leader
 * again from any configured address. One mutex: the generator's start-up and its extension
 * thread never call at once, but nothing here relies on that.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "db/dqlite_client.h"
#include "udm/udm.h"

#define DBNAME_MAX 64
#define CLIENT_ID 0x5c0u   /* WP "CLIENT" id: any; the leader only logs it */

struct udm_sqn_dqlite {
	pthread_mutex_t mu;
	char addrs[UDM_SQN_DQLITE_ADDRS_MAX][DQLC_ADDR_MAX];
	unsigned n;
	char dbname[DBNAME_MAX];
	int timeout_ms;
	struct dqlc *c;       /* to the leader, database open, table created; NULL: none */
	uint32_t db;
};

int udm_sqn_dqlite_new(const char *const *addrs, unsigned n, const char *dbname, int timeout_ms,
		       struct udm_sqn_dqlite **out)
{
	struct udm_sqn_dqlite *d;

	if (!addrs || !n || n > UDM_SQN_DQLITE_ADDRS_MAX || !dbname || !*dbname ||
	    strlen(dbname) >= DBNAME_MAX || !out)
		return -EINVAL;
	for (unsigned i = 0; i < n; i++)
		if (!addrs[i] || !*addrs[i] || strlen(addrs[i]) >= DQLC_ADDR_MAX)
			return -EINVAL;
	d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	pthread_mutex_init(&d->mu, NULL);
	for (unsigned i = 0; i < n; i++)
		snprintf(d->addrs[i], sizeof(d->addrs[i]), "%s", addrs[i]);
	d->n = n;
	snprintf(d->dbname, sizeof(d->dbname), "%s", dbname);
	d->timeout_ms = timeout_ms;
	*out = d;
	return 0;
}

void udm_sqn_dqlite_free(struct udm_sqn_dqlite *d)
{
	if (!d)
		return;
	dqlc_close(d->c);
	pthread_mutex_destroy(&d->mu);
	free(d);
}

static void drop(struct udm_sqn_dqlite *d)
{
	dqlc_close(d->c);
	d->c = NULL;
}

/* Connected to `addr`, and from there to the leader it names. */
static int connect_leader(struct udm_sqn_dqlite *d, const char *addr, struct dqlc **out)
{
	char leader[DQLC_ADDR_MAX] = "";
	struct dqlc *c;
	int rc;

	rc = dqlc_connect(addr, d->timeout_ms, &c);
	if (rc < 0)
		return rc;
	rc = dqlc_leader(c, NULL, leader, sizeof(leader));
	if (rc == 0 && !leader[0])
		rc = -EHOSTUNREACH;           /* no leader now (election, no quorum) */
	if (rc == 0 && strcmp(leader, addr) != 0) {
		dqlc_close(c);
		c = NULL;
		rc = dqlc_connect(leader, d->timeout_ms, &c);
	}
	if (rc < 0) {
		dqlc_close(c);
		return rc;
	}
	*out = c;
	return 0;
}

static int ensure(struct udm_sqn_dqlite *d)
{
	struct dqlc_result r;
	int rc = -ENOTCONN;

	if (d->c)
		return 0;
	for (unsigned i = 0; i < d->n && !d->c; i++) {
		rc = connect_leader(d, d->addrs[i], &d->c);
		if (rc < 0)
			continue;
		rc = dqlc_register(d->c, CLIENT_ID, NULL);
		if (rc == 0)
			rc = dqlc_open(d->c, d->dbname, &d->db);
		if (rc == 0)
			rc = dqlc_exec_sql(d->c, d->db, "CREATE TABLE IF NOT EXISTS sqn_lease ("
					   "ind INTEGER PRIMARY KEY, lease INTEGER NOT NULL, "
					   "owner INTEGER NOT NULL)",
					   NULL, 0, &r);
		if (rc < 0) {
			log_warn("udm", "sqn lease store %s: %d %s", d->addrs[i], rc,
				 rc == -DQLC_EFAILURE ? dqlc_errmsg(d->c) : "");
			drop(d);
		}
	}
	return d->c ? 0 : rc;
}

static int do_read(struct udm_sqn_dqlite *d, unsigned ind, uint64_t *lease)
{
	struct dqlc_value k = dqlc_int(ind), v[1];
	int rc;

	rc = dqlc_query_sql(d->c, d->db, "SELECT lease FROM sqn_lease WHERE ind = ?", &k, 1);
	if (rc < 0)
		return rc;
	*lease = 0;
	rc = dqlc_next(d->c, v, 1);
	if (rc == 1) {
		if (v[0].type != DQLC_INTEGER || v[0].i < 0)
			return -EPROTO;
		*lease = (uint64_t)v[0].i;
		while ((rc = dqlc_next(d->c, v, 1)) == 1)
			;   /* a primary key: at most one row */
	}
	return rc;
}

enum op { OP_READ, OP_TAKE, OP_EXTEND };

struct req {
	enum op op;
	unsigned ind;
	uint64_t lease, expect, owner;
};

static int do_take(struct udm_sqn_dqlite *d, const struct req *q)
{
	struct dqlc_value p[4] = { dqlc_int(q->ind), dqlc_int((int64_t)q->lease),
				   dqlc_int((int64_t)q->owner), dqlc_int((int64_t)q->expect) };
	struct dqlc_result r;
	int rc;

	/* Compare-and-set on the lease read (0: no row yet). */
	rc = dqlc_exec_sql(d->c, d->db, "INSERT INTO sqn_lease (ind, lease, owner) VALUES (?, ?, ?) "
			   "ON CONFLICT (ind) DO UPDATE SET lease = excluded.lease, "
			   "owner = excluded.owner WHERE lease = ?4", p, 4, &r);
	if (rc == 0 && r.rows_affected != 1)
		rc = -EAGAIN;
	return rc;
}

static int do_extend(struct udm_sqn_dqlite *d, const struct req *q)
{
	struct dqlc_value p[3] = { dqlc_int((int64_t)q->lease), dqlc_int(q->ind),
				   dqlc_int((int64_t)q->owner) };
	struct dqlc_result r;
	int rc;

	/* max(): a late or repeated write never lowers a lease; owner: nor extends another's. */
	rc = dqlc_exec_sql(d->c, d->db, "UPDATE sqn_lease SET lease = max(lease, ?) "
			   "WHERE ind = ? AND owner = ?", p, 3, &r);
	if (rc == 0 && r.rows_affected != 1)
		rc = -ESTALE;
	return rc;
}

static bool busy(const struct udm_sqn_dqlite *d, int rc)
{
	/* SQLITE_BUSY / SQLITE_LOCKED (primary codes): another connection's write transaction is
	 * in the leader's hands (another node's lease, or one whose client died mid-request). */
	uint64_t code = rc == -DQLC_EFAILURE && d->c ? dqlc_errcode(d->c) & 0xff : 0;

	return code == 5 || code == 6;
}

static int64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Run q until it succeeds or timeout_ms has passed: "busy" is retried on the connection,
 * any other failure drops it and the next attempt finds the leader again (a leader change
 * answers "not leader" or closes the socket). The answers of the store itself (-EAGAIN: the
 * take-over lost, -ESTALE: not the owner) are final. */
static int run(struct udm_sqn_dqlite *d, struct req *q)
{
	int64_t end;
	int rc = -ENOTCONN, reconnects = 0;

	if (!d || q->ind >= 32 /* 5-bit IND */ || q->lease > INT64_MAX || q->expect > INT64_MAX ||
	    q->owner > INT64_MAX)
		return -EINVAL;
	end = mono_ms() + (d->timeout_ms > 0 ? d->timeout_ms : DQLC_TIMEOUT_MS_DEFAULT);
	pthread_mutex_lock(&d->mu);
	for (;;) {
		rc = ensure(d);
		if (rc == 0) {
			rc = q->op == OP_READ ? do_read(d, q->ind, &q->lease)
			   : q->op == OP_TAKE ? do_take(d, q) : do_extend(d, q);
			if (rc >= 0 || rc == -EAGAIN || rc == -ESTALE)
				break;
			if (!busy(d, rc)) {
				log_warn("udm", "sqn lease op %d ind=%u: %d %s", q->op, q->ind, rc,
					 rc == -DQLC_EFAILURE ? dqlc_errmsg(d->c) : "");
				drop(d);
				reconnects++;
			}
		} else {
			reconnects++;
		}
		if (reconnects >= 3 || mono_ms() >= end)
			break;
		nanosleep(&(struct timespec){ 0, 10 * 1000000L }, NULL);
	}
	pthread_mutex_unlock(&d->mu);
	return rc < 0 ? rc : 0;
}

static int lease_read(void *arg, unsigned ind, uint64_t *lease)
{
	struct req q = { .op = OP_READ, .ind = ind };
	int rc;

	if (!lease)
		return -EINVAL;
	rc = run(arg, &q);
	if (rc == 0)
		*lease = q.lease;
	return rc;
}

static int lease_take(void *arg, unsigned ind, uint64_t expect, uint64_t lease, uint64_t owner)
{
	struct req q = { .op = OP_TAKE, .ind = ind, .lease = lease, .expect = expect,
			 .owner = owner & INT64_MAX };

	return run(arg, &q);
}

static int lease_extend(void *arg, unsigned ind, uint64_t lease, uint64_t owner)
{
	struct req q = { .op = OP_EXTEND, .ind = ind, .lease = lease, .owner = owner & INT64_MAX };

	return run(arg, &q);
}

const struct udm_sqn_store_ops udm_sqn_dqlite_ops = {
	.read = lease_read,
	.take = lease_take,
	.extend = lease_extend,
};
