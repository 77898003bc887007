/* SPDX-License-Identifier: AGPL-3.0-or-later */
/*
 * bench_udm_policy [N]: what policy profiles cost at N subscribers (default 1,000,000).
 *   - start-up load (udm_load_db) with 3/4 of the subscribers on one of 3 policies (8 exist),
 *     against the same file with no policy assigned: the cost of the resolution
 *   - udm_policy_update of one policy (N/4 subscribers, in memory): the time the control
 *     thread spends after PUT /api/v1/policies/{name}
 *   - udm_set_defaults changing fields every subscriber takes from the network (all N): the
 *     time after PATCH /api/v1/settings slices / DNNs
 *   - db_policy_users (the "subscribers" count of a policy, and the delete check)
 * Prints its figures; not run by meson test (suite 'bench').
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "db/db_int.h"
#include "udm/udm_int.h"

/* CPU time of this thread: the figures stay meaningful on a shared, loaded machine
 * (wall time is printed too). */
static double cpu_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static const char *const names[] = { "bronze", "gold", "silver" };

static int fill(struct db *db, long n)
{
	struct sql_stmt *st;
	uint8_t k[16];
	char supi[DB_SUPI_MAX];
	int rc;

	for (int i = 0; i < 8; i++) {
		struct db_policy p;

		memset(&p, 0, sizeof(p));
		if (i < 3)
			snprintf(p.name, sizeof(p.name), "%s", names[i]);
		else
			snprintf(p.name, sizeof(p.name), "spare%d", i);
		p.n_dnns = 1;
		snprintf(p.dnns[0], sizeof(p.dnns[0]), "dnn%d", i);
		p.n_slices = 1;
		p.slices[0].sst = (uint8_t)(i + 1);
		p.slices[0].sd = DB_SD_NONE;
		p.ambr_dl = 1000000ull * (uint64_t)(i + 1);
		p.arp = (uint8_t)(i + 1);
		if ((rc = db_policy_put(db, &p, DB_PUT_CREATE)) < 0)
			return rc;
	}
	if (sql_exec(db->conn, "BEGIN") < 0 ||
	    sql_prepare(db->conn, "INSERT INTO subscribers (supi, k, opc, created, updated,"
			" policy) VALUES (?, ?, ?, 1, 1, ?)", 0, &st) < 0)
		return -EIO;
	for (long i = 0; i < n; i++) {
		snprintf(supi, sizeof(supi), "imsi-00101%010ld", i % 10000000000L);
		memset(k, (int)(i & 0xff), sizeof(k));
		sql_bind_text(st, 1, supi, -1);
		sql_bind_blob(st, 2, k, 16);
		sql_bind_blob(st, 3, k, 16);
		if (i % 4)
			sql_bind_text(st, 4, names[i % 4 - 1], -1);
		else
			sql_bind_null(st, 4);
		if (sql_step(st) != SQL_DONE)
			return -EIO;
		sql_reset(st);
	}
	sql_finalize(st);
	return sql_exec(db->conn, "COMMIT") == 0 ? 0 : -EIO;
}

static double load(struct db *db, long n, int *loaded, double *cpu)
{
	struct udm_sub_data defs;
	int err = 0;
	struct udm *udm = udm_new((uint32_t)n + 1024, &err);
	double t0;

	memset(&defs, 0, sizeof(defs));
	defs.qi5 = UDM_DEFAULT_5QI;
	defs.arp = UDM_DEFAULT_ARP;
	udm_set_defaults(udm, &defs);
	t0 = now_s();
	*cpu = cpu_s();
	*loaded = udm ? udm_load_db(udm, db) : err;
	*cpu = cpu_s() - *cpu;
	t0 = now_s() - t0;
	udm_free(udm);
	return t0;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1000000;
	char path[] = "/tmp/solocore-bench-policy-XXXXXX", file[64];
	struct db *db;
	struct udm *udm;
	double t, c;
	int loaded, rc;

	log_set_level(LOGL_WARN);
	if (n <= 0 || !mkdtemp(path))
		return 1;
	snprintf(file, sizeof(file), "%s/b.db", path);
	if (db_open(file, &db) < 0)
		return 1;
	t = now_s();
	rc = fill(db, n);
	printf("fill: %ld subscribers (3/4 on one of 3 policies) in %.2f s rc=%d\n", n, now_s() - t, rc);
	if (rc < 0)
		return 1;

	t = load(db, n, &loaded, &c);
	printf("udm_load_db with policies:    %d subscribers in %.3f s wall, %.3f s CPU\n", loaded,
	       t, c);
	udm = udm_new((uint32_t)n + 1024, &rc);
	if (!udm || udm_load_db(udm, db) < 0)
		return 1;
	/* gold as fill() made it, with another ARP and AMBR DL: every one of its N/4
	 * subscribers changes (none has values of its own). */
	struct db_policy p;
	if (db_policy_get(db, "gold", &p) < 0)
		return 1;
	p.arp = 15;
	p.ambr_dl = 7000000;
	t = now_s();
	c = cpu_s();
	rc = udm_policy_update(udm, &p);
	c = cpu_s() - c;
	t = now_s() - t;
	printf("udm_policy_update(gold):      %d subscribers in %.2f ms wall, %.2f ms CPU (%.1f ns each)\n",
	       rc, t * 1e3, c * 1e3, rc > 0 ? c * 1e9 / rc : 0.0);
	t = now_s();
	c = cpu_s();
	rc = udm_policy_update(udm, &p);
	c = cpu_s() - c;
	printf("udm_policy_update(gold) same: %d subscribers in %.3f ms CPU\n", rc, c * 1e3);
	/* New network slices, DNNs, 5QI and AMBR UL: fill()'s policies set none of the last
	 * two, so all N subscribers change. */
	struct udm_sub_data defs;
	memset(&defs, 0, sizeof(defs));
	defs.n_slices = 2;
	defs.slices[0] = (struct udm_snssai){ 1, 0x010203 };
	defs.slices[1] = (struct udm_snssai){ 2, UDM_SD_NONE };
	defs.n_dnns = 2;
	defs.dnns[0] = "internet";
	defs.dnns[1] = "ims";
	defs.qi5 = 8;
	defs.arp = UDM_DEFAULT_ARP;
	defs.ambr_ul_bps = 500000000;
	t = now_s();
	c = cpu_s();
	rc = udm_set_defaults(udm, &defs);
	c = cpu_s() - c;
	t = now_s() - t;
	printf("udm_set_defaults(all fields): %d subscribers in %.2f ms wall, %.2f ms CPU (%.1f ns each)\n",
	       rc, t * 1e3, c * 1e3, rc > 0 ? c * 1e9 / rc : 0.0);
	defs.n_dnns = 1;
	t = now_s();
	c = cpu_s();
	rc = udm_set_defaults(udm, &defs);
	c = cpu_s() - c;
	t = now_s() - t;
	printf("udm_set_defaults(DNNs):       %d subscribers in %.2f ms wall, %.2f ms CPU\n", rc,
	       t * 1e3, c * 1e3);
	/* A small policy: 1,000 subscribers moved to spare3 in memory; its change walks only
	 * its chain. */
	struct db_subscriber row;
	if (db_policy_get(db, "spare3", &p) < 0)
		return 1;
	for (long i = 0; i < 1000 && i < n; i++) {
		char supi[DB_SUPI_MAX];

		snprintf(supi, sizeof(supi), "imsi-00101%010ld", (i * 997) % n);
		if (db_subscriber_get(db, supi, &row) < 0)
			return 1;
		snprintf(row.policy, sizeof(row.policy), "spare3");
		if (udm_add_db_policy(udm, &row, &p) < 0)
			return 1;
	}
	p.arp = 1;
	c = cpu_s();
	rc = udm_policy_update(udm, &p);
	c = cpu_s() - c;
	printf("udm_policy_update(spare3):    %d subscribers in %.3f ms CPU\n", rc, c * 1e3);
	/* The floor: one read of every cache line of the store, nothing written. */
	{
		const volatile uint8_t *b = (const uint8_t *)udm->subs;
		size_t len = (size_t)udm->hwm * sizeof(struct udm_subscriber);
		unsigned sum = 0;

		c = cpu_s();
		for (size_t off = 0; off < len; off += 64)
			sum += b[off];
		c = cpu_s() - c;
		printf("one read pass over the store: %.2f ms CPU (%zu MB; %u)\n", c * 1e3, len >> 20,
		       sum & 1);
	}
	printf("store entry:                  %zu bytes per subscriber\n", sizeof(struct udm_subscriber));
	udm_free(udm);
	t = now_s();
	int64_t users = db_policy_users(db, "gold");
	printf("db_policy_users(gold):        %lld in %.1f ms\n", (long long)users, (now_s() - t) * 1e3);

	if (sql_exec(db->conn, "UPDATE subscribers SET policy = NULL") < 0)
		return 1;
	t = load(db, n, &loaded, &c);
	printf("udm_load_db without policies: %d subscribers in %.3f s wall, %.3f s CPU\n", loaded,
	       t, c);
	db_close(db);
	snprintf(file, sizeof(file), "rm -rf '%s'", path);
	return system(file) == 0 ? 0 : 1;
}
