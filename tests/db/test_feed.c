/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * db/feed.h on a real dqlite node (in-process, dbtest.h): what one connection writes (as
 * another node's API would) reaches the feed of another connection as the rows are now;
 * SQN write-behind never shows up; a pruned gap gives a full resynchronisation; the node
 * row is published; a full queue does not stop the close; udm_sweep; and a SQLite file gets
 * no feed (the single-node default is unchanged: no trigger fills `changes`).
 */
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "dbtest.h"
#include "db/feed.h"
#include "udm/udm.h"

/* Items taken within ms (waiting on the fd) until pred says enough. */
struct got {
	struct db_feed_item it[64];
	int n;
};

static bool has_key(const struct got *g, const char *key)
{
	for (int i = 0; key && i < g->n; i++)
		if (!strcmp(g->it[i].key, key))
			return true;
	return false;
}

/* until: stop early once an item of that key came (NULL: want items). */
static void take_for(struct db_feed *f, struct got *g, int ms, int want, const char *until)
{
	for (int waited = 0; waited <= ms && g->n < want && !has_key(g, until); waited += 50) {
		struct pollfd p = { db_feed_fd(f), POLLIN, 0 };
		poll(&p, 1, 50);
		while (g->n < 64 && db_feed_take(f, &g->it[g->n]) == 1) {
			free(g->it[g->n].value);
			g->it[g->n].value = NULL;
			g->n++;
		}
	}
}

/* The last item for kind/key, or NULL. */
static const struct db_feed_item *last(const struct got *g, enum db_feed_kind k, const char *key)
{
	const struct db_feed_item *r = NULL;

	for (int i = 0; i < g->n; i++)
		if (g->it[i].kind == k && !strcmp(g->it[i].key, key))
			r = &g->it[i];
	return r;
}

static void test_sqlite_no_feed(void **state)
{
	(void)state;
	struct dbt t;
	struct db *db;
	struct db_feed *f = NULL;
	struct db_subscriber s;

	dbt_init(&t);
	assert_int_equal(db_open(t.db, &db), 0);
	assert_int_equal(db_feed_open(db, 1, &f), -EOPNOTSUPP);
	assert_null(f);
	dbt_sub_init(&s, "imsi-001010000000001", 1);
	assert_int_equal(db_subscriber_put(db, &s), 0);
	static const char *const q[] = { "SELECT count(*) FROM changes",
					 "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'",
					 "SELECT count(*) FROM subscribers" };
	for (int i = 0; i < 3; i++) {
		struct sql_stmt *st;
		assert_int_equal(sql_prepare(db->conn, q[i], 0, &st), 0);
		assert_int_equal(sql_step(st), SQL_ROW);
		assert_int_equal(sql_column_int64(st, 0), i == 2);
		sql_finalize(st);
	}
	db_close(db);
	dbt_cleanup(&t);
}

static void test_changes_as_rows(void **state)
{
	(void)state;
	struct dbt t;
	struct db *w, *r;
	struct db_feed *f;
	struct db_subscriber s;
	struct db_policy p = { .name = "gold", .n_dnns = 1, .dnns = { "ims" }, .ambr_dl = 5000000 };
	static struct got g;

	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &w), 0);   /* "node A": the API writes here */
	assert_int_equal(dbt_open(&t, &r), 0);   /* "node B": its feed */
	dbt_sub_init(&s, "imsi-001010000000001", 1);
	assert_int_equal(db_subscriber_put(w, &s), 0);   /* before the feed: loaded at start */
	assert_int_equal(db_feed_open(r, 2, &f), 0);

	dbt_sub_init(&s, "imsi-001010000000002", 2);
	assert_int_equal(db_subscriber_put(w, &s), 0);
	dbt_sub_init(&s, "imsi-001010000000003", 3);
	assert_int_equal(db_subscriber_put(w, &s), 0);
	dbt_sub_init(&s, "imsi-001010000000002", 2);
	s.n_dnns = 1;
	snprintf(s.dnns[0], sizeof(s.dnns[0]), "iot");
	assert_int_equal(db_subscriber_put(w, &s), 0);
	assert_int_equal(db_subscriber_delete(w, "imsi-001010000000003"), 0);
	assert_int_equal(db_policy_put(w, &p, DB_PUT_CREATE), 0);
	dbt_sub_init(&s, "imsi-001010000000004", 4);
	snprintf(s.policy, sizeof(s.policy), "gold");
	assert_int_equal(db_subscriber_put(w, &s), 0);
	assert_int_equal(db_setting_put(w, "net.tacs", "[1]"), 0);
	take_for(f, &g, 10000, 64, "net.tacs");   /* the last write */

	assert_null(last(&g, DB_FEED_SUBSCRIBER, "imsi-001010000000001"));
	const struct db_feed_item *i2 = last(&g, DB_FEED_SUBSCRIBER, "imsi-001010000000002");
	assert_non_null(i2);
	assert_false(i2->gone);
	assert_int_equal(i2->sub.n_dnns, 1);
	assert_string_equal(i2->sub.dnns[0], "iot");   /* the row as it is now */
	assert_int_equal(i2->sub.k[0], 2);
	const struct db_feed_item *i3 = last(&g, DB_FEED_SUBSCRIBER, "imsi-001010000000003");
	assert_non_null(i3);
	assert_true(i3->gone);
	const struct db_feed_item *ip = last(&g, DB_FEED_POLICY, "gold");
	assert_non_null(ip);
	assert_false(ip->gone);
	assert_int_equal(ip->pol.ambr_dl, 5000000);
	const struct db_feed_item *i4 = last(&g, DB_FEED_SUBSCRIBER, "imsi-001010000000004");
	assert_non_null(i4);
	assert_true(i4->has_pol);
	assert_string_equal(i4->pol.name, "gold");
	const struct db_feed_item *is = last(&g, DB_FEED_SETTING, "net.tacs");
	assert_non_null(is);
	assert_false(is->gone);
	/* in commit order */
	for (int i = 1; i < g.n; i++)
		assert_true(g.it[i].seq > g.it[i - 1].seq);

	/* SQN write-behind (the writer's UPDATE of sqn, updated) is not a change: every node
	 * issues its own SQNs. */
	struct db_writer *wr;
	assert_int_equal(db_writer_start(w, NULL, &wr), 0);
	assert_int_equal(db_writer_sqn(wr, "imsi-001010000000002", 12345), 0);
	assert_int_equal(db_writer_flush(wr), 0);
	db_writer_stop(wr);
	struct db_subscriber chk;
	assert_int_equal(db_subscriber_get(w, "imsi-001010000000002", &chk), 0);
	assert_int_equal(chk.sqn, 12345);
	int before = g.n;
	assert_int_equal(db_subscriber_delete(w, "imsi-001010000000001"), 0);   /* a marker after it */
	take_for(f, &g, 10000, before + 1, NULL);
	assert_int_equal(g.n, before + 1);
	assert_string_equal(g.it[before].key, "imsi-001010000000001");
	assert_true(g.it[before].gone);

	struct db_feed_stats st;
	db_feed_get_stats(f, &st);
	assert_int_equal(st.items, (uint64_t)g.n);
	assert_int_equal(st.resyncs, 0);
	db_feed_close(f);
	explicit_bzero(&g, sizeof(g));
	g.n = 0;
	db_close(r);
	db_close(w);
	dbt_cleanup(&t);
}

/* Changes pruned before the feed read them: a full resynchronisation, then the feed goes on. */
static void test_gap_resync(void **state)
{
	(void)state;
	struct dbt t;
	struct db *w, *r;
	struct db_feed *f;
	struct db_subscriber s;
	static struct got g;

	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &w), 0);
	assert_int_equal(dbt_open(&t, &r), 0);
	dbt_sub_init(&s, "imsi-001010000000009", 9);
	assert_int_equal(db_subscriber_put(w, &s), 0);
	assert_int_equal(db_feed_open(r, 2, &f), 0);
	/* One transaction, so the feed sees it all at once: two rows whose changes are gone
	 * (as the pruning of another node would leave it), then one whose change is there. */
	assert_int_equal(db_tx_begin(w), 0);
	dbt_sub_init(&s, "imsi-001010000000005", 5);
	assert_int_equal(db_subscriber_put(w, &s), 0);
	dbt_sub_init(&s, "imsi-001010000000006", 6);
	assert_int_equal(db_subscriber_put(w, &s), 0);
	struct sql_stmt *st;
	assert_int_equal(sql_prepare(w->conn, "DELETE FROM changes", 0, &st), 0);
	assert_int_equal(sql_step(st), SQL_DONE);
	sql_finalize(st);
	dbt_sub_init(&s, "imsi-001010000000007", 7);
	assert_int_equal(db_subscriber_put(w, &s), 0);
	assert_int_equal(db_tx_commit(w), 0);

	take_for(f, &g, 10000, 6, NULL);   /* BEGIN, 4 subscribers, END */
	take_for(f, &g, 300, 64, NULL);   /* and nothing more */
	assert_true(g.n >= 6);
	assert_int_equal(g.it[0].kind, DB_FEED_RESYNC_BEGIN);
	int end = -1;
	for (int i = 0; i < g.n; i++)
		if (g.it[i].kind == DB_FEED_RESYNC_END)
			end = i;
	assert_int_equal(end, 5);
	assert_int_equal(g.it[end].n_supis, 4);
	assert_string_equal(g.it[end].supis[0], "imsi-001010000000005");
	assert_string_equal(g.it[end].supis[3], "imsi-001010000000009");
	for (int i = 1; i < end; i++)
		assert_int_equal(g.it[i].kind, DB_FEED_SUBSCRIBER);

	/* udm_sweep with that list: what is not in it goes. */
	int err;
	struct udm *u = udm_new(16, &err);
	assert_non_null(u);
	for (int i = 1; i < end; i++)
		assert_int_equal(udm_add_db(u, &g.it[i].sub), 0);
	dbt_sub_init(&s, "imsi-001010000000003", 3);   /* deleted while the node was away */
	assert_int_equal(udm_add_db(u, &s), 0);
	assert_int_equal(udm_count(u), 5);
	assert_int_equal(udm_sweep(u, (const char (*)[UDM_SUPI_MAX])g.it[end].supis, g.it[end].n_supis), 1);
	assert_int_equal(udm_count(u), 4);
	assert_null(udm_get(u, "imsi-001010000000003"));
	assert_non_null(udm_get(u, "imsi-001010000000007"));
	assert_int_equal(udm_sweep(u, NULL, 0), 4);
	assert_int_equal(udm_count(u), 0);
	assert_int_equal(udm_sweep(u, NULL, 1), -EINVAL);
	udm_free(u);
	free(g.it[end].supis);

	/* and then the feed goes on from where the resync read */
	int before = g.n;
	assert_int_equal(db_subscriber_delete(w, "imsi-001010000000005"), 0);
	take_for(f, &g, 10000, before + 1, NULL);
	assert_int_equal(g.n, before + 1);
	assert_true(g.it[before].gone);
	struct db_feed_stats fs;
	db_feed_get_stats(f, &fs);
	assert_int_equal(fs.resyncs, 1);
	db_feed_close(f);
	explicit_bzero(&g, sizeof(g));
	db_close(r);
	db_close(w);
	dbt_cleanup(&t);
}

static int count_node(const struct db_node_row *row, void *arg)
{
	struct db_node_row *out = arg;
	if (row->id == 7)
		*out = *row;
	return 0;
}

static void test_publish(void **state)
{
	(void)state;
	struct dbt t;
	struct db *r;
	struct db_feed *f;
	struct db_node_row row = { .id = 99, .gnbs = 2, .ues = 30, .sessions = 31 };
	struct db_node_row got = { 0 };

	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &r), 0);
	assert_int_equal(db_feed_open(r, 7, &f), 0);
	snprintf(row.addr, sizeof(row.addr), "10.0.0.7:9001");
	snprintf(row.gnb_json, sizeof(row.gnb_json), "[{\"name\":\"g1\"}]");
	db_feed_publish(f, &row);   /* the id is the feed's own */
	for (int i = 0; i < 100 && !got.id; i++) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		assert_true(db_node_walk(r, count_node, &got) >= 0);
	}
	assert_int_equal(got.id, 7);
	assert_int_equal(got.ues, 30);
	assert_int_equal(got.sessions, 31);
	assert_string_equal(got.addr, "10.0.0.7:9001");
	assert_string_equal(got.gnb_json, "[{\"name\":\"g1\"}]");
	assert_true(got.updated > 0);
	db_feed_close(f);
	/* node rows: bad input, delete */
	struct db_node_row bad = { 0 };
	assert_int_equal(db_node_put(r, &bad), -EINVAL);
	assert_int_equal(db_node_delete(r, 7), 0);
	assert_int_equal(db_node_delete(r, 7), -ENOENT);
	assert_int_equal(db_node_delete(r, 0), -EINVAL);
	db_close(r);
	dbt_cleanup(&t);
}

/* More changes than the queue holds, nobody taking: the thread waits, nothing is dropped,
 * and the close does not hang. */
static void test_full_queue_close(void **state)
{
	(void)state;
	struct dbt t;
	struct db *w, *r;
	struct db_feed *f;
	struct db_subscriber s;

	dbt_init(&t);
	assert_int_equal(dbt_open(&t, &w), 0);
	assert_int_equal(dbt_open(&t, &r), 0);
	assert_int_equal(db_feed_open(r, 2, &f), 0);
	assert_int_equal(db_tx_begin(w), 0);
	for (int i = 0; i < DB_FEED_QUEUE + 100; i++) {
		char supi[DB_SUPI_MAX];
		snprintf(supi, sizeof(supi), "imsi-00101%010d", i);
		dbt_sub_init(&s, supi, i);
		assert_int_equal(db_subscriber_put(w, &s), 0);
	}
	assert_int_equal(db_tx_commit(w), 0);
	struct db_feed_stats st = { 0 };
	for (int i = 0; i < 300 && st.items < DB_FEED_QUEUE; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		db_feed_get_stats(f, &st);
	}
	assert_int_equal(st.items, DB_FEED_QUEUE);   /* full, waiting */
	struct db_feed_item it;
	int n = 0;
	while (n < 10 && db_feed_take(f, &it) == 1) {   /* room again: it goes on */
		n++;
		explicit_bzero(&it, sizeof(it));
	}
	for (int i = 0; i < 100 && st.items < DB_FEED_QUEUE + 10; i++) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };
		nanosleep(&ts, NULL);
		db_feed_get_stats(f, &st);
	}
	assert_int_equal(st.items, DB_FEED_QUEUE + 10);
	db_feed_close(f);   /* with the thread waiting for room */
	db_close(r);
	db_close(w);
	dbt_cleanup(&t);
}

struct opener {
	const struct dbt *t;
	int rc, version;
};

static void *open_one(void *arg)
{
	struct opener *o = arg;
	struct db *db;

	o->rc = dbt_open(o->t, &db);
	if (o->rc == 0) {
		o->version = db_schema_version(db);
		db_close(db);
	}
	return NULL;
}

/* Nodes started together open a new database at once (issue 20): every one of them gets
 * it at the latest version with the feed's triggers, whoever migrated. */
static void test_concurrent_open(void **state)
{
	(void)state;
	struct dbt t;
	pthread_t th[4];
	struct opener o[4];

	dbt_init(&t);
	for (int i = 0; i < 4; i++) {
		o[i] = (struct opener){ .t = &t };
		assert_int_equal(pthread_create(&th[i], NULL, open_one, &o[i]), 0);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(th[i], NULL);
		assert_int_equal(o[i].rc, 0);
		assert_int_equal(o[i].version, db_schema_latest());
	}
	assert_int_equal(dbt_sql_int(&t, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'"), 9);
	dbt_cleanup(&t);
}

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sqlite_no_feed),
		cmocka_unit_test(test_changes_as_rows),
		cmocka_unit_test(test_gap_resync),
		cmocka_unit_test(test_publish),
		cmocka_unit_test(test_full_queue_close),
		cmocka_unit_test(test_concurrent_open),
	};
	char *dq[] = { argv[0], "--dqlite", NULL };
	if (dbt_backend_init(2, dq) < 0)
		return 1;
	int r = cmocka_run_group_tests(tests, NULL, NULL);
	dbt_backend_fini();
	return r;
}
