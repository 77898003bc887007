/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_db_list [N]: N subscribers (default 1,000,000) made with one
 * INSERT ... SELECT, then the time of db_subscriber_list() pages of 50 at
 * several offsets, with and without an IMSI prefix, and of the prefix count.
 * Prints figures; suite 'bench'.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sqlite3.h>

#include "db/db_int.h"
#include "common/log.h"
#include "dbtest.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static int nop(const struct db_subscriber *s, void *arg)
{
	(void)s;
	++*(int *)arg;
	return 0;
}

static void page(struct db *db, const char *prefix, uint64_t offset)
{
	int n = 0, reps = 20;
	double t0 = now_ms();

	for (int i = 0; i < reps; i++)
		if (db_subscriber_list(db, prefix, offset, 50, nop, &n) < 0)
			exit(1);
	printf("page of 50 at offset %8llu prefix %-12s %8.3f ms (%d rows)\n", (unsigned long long)offset,
	       prefix ? prefix : "-", (now_ms() - t0) / reps, n / reps);
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	struct dbt t;
	struct db *db;
	sqlite3 *c;
	char sql[1024];
	double t0;

	log_set_level(LOGL_WARN);
	dbt_init(&t);
	if (db_open(t.db, &db) < 0)
		return 1;
	db_close(db);
	t0 = now_ms();
	if (sqlite3_open(t.db, &c) != SQLITE_OK)
		return 1;
	snprintf(sql, sizeof(sql),
		 "WITH RECURSIVE i(x) AS (SELECT 0 UNION ALL SELECT x + 1 FROM i WHERE x + 1 < %ld)"
		 " INSERT INTO subscribers (supi, k, opc, created, updated)"
		 " SELECT printf('imsi-00101%%010d', x), zeroblob(16), zeroblob(16), 1, 1 FROM i", n);
	if (sqlite3_exec(c, sql, NULL, NULL, NULL) != SQLITE_OK)
		return 1;
	sqlite3_close(c);
	printf("%ld subscribers inserted in %.0f ms\n", n, now_ms() - t0);
	if (db_open(t.db, &db) < 0)
		return 1;
	page(db, NULL, 0);
	page(db, NULL, (uint64_t)n / 2);
	page(db, NULL, (uint64_t)n - 50);
	page(db, "0010100005", 0);
	page(db, "0010100009", 9000);
	{
		char after[48];
		int k = 0, reps = 20;
		long long cnt;

		snprintf(after, sizeof(after), "imsi-00101%010ld", n - 51);
		t0 = now_ms();
		for (int i = 0; i < reps; i++)
			db_subscriber_list_after(db, NULL, after, 50, nop, &k);
		printf("page of 50 after %s (cursor)    %8.3f ms (%d rows)\n", after, (now_ms() - t0) / reps,
		       k / reps);
		t0 = now_ms();
		cnt = (long long)db_subscriber_count_prefix(db, NULL);
		printf("count all: %lld in %.2f ms\n", cnt, now_ms() - t0);
		t0 = now_ms();
		cnt = (long long)db_subscriber_count_prefix(db, "0010100005");
		printf("count prefix 0010100005: %lld in %.2f ms\n", cnt, now_ms() - t0);
	}
	db_close(db);
	dbt_cleanup(&t);
	return 0;
}
